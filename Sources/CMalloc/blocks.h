/* What mapped_buffers.c and round_pool.c share: a block starts with a header of 16 bytes
   (malloc's alignment, kept for the caller) whose first word is the length of the block's own
   mapping, or 0 when the block came from malloc. Private to CMalloc. */
#ifndef CMALLOC_BLOCKS_H
#define CMALLOC_BLOCKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER 16

/* size plus the header, rounded up to whole pages; 0 on overflow. */
static inline size_t mapping_length(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - HEADER - page) return 0;
    return (size + HEADER + page - 1) / page * page;
}

/* A block of size bytes from malloc, its header zeroed. */
static inline void *from_malloc(size_t size) {
    if (size > SIZE_MAX - HEADER) return NULL;
    unsigned char *block = malloc(size + HEADER);
    if (block == NULL) return NULL;
    memset(block, 0, HEADER);
    return block + HEADER;
}

/* A block from malloc grown or shrunk in place or moved by realloc (the header moves with it). */
static inline void *realloc_malloced(void *ptr, size_t new_size) {
    if (new_size > SIZE_MAX - HEADER) return NULL;
    unsigned char *moved = realloc((unsigned char *)ptr - HEADER, new_size + HEADER);
    return moved == NULL ? NULL : moved + HEADER;
}

#endif
