/* Buffers that take pages only where they are written: see CMalloc.h. */
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include "CMalloc.h"
#include "blocks.h"

/* Blocks from THRESHOLD bytes get a mapping of their own (header: blocks.h). */
#define THRESHOLD ((size_t)32 * 1024)

void *cmalloc_mapped_alloc(size_t size) {
    if (size >= THRESHOLD) {
        size_t length = mapping_length(size);
        if (length != 0) {
            void *block = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (block != MAP_FAILED) {
                *(size_t *)block = length;
                return (unsigned char *)block + HEADER;
            }
        }
        /* No mapping to be had: malloc's memory is as good, if not as frugal. */
    }
    return from_malloc(size);
}

void cmalloc_mapped_free(void *ptr) {
    unsigned char *block = (unsigned char *)ptr - HEADER;
    size_t length = *(size_t *)block;
    if (length != 0) {
        munmap(block, length);
    } else {
        free(block);
    }
}

void *cmalloc_mapped_realloc(void *ptr, size_t old_size, size_t new_size) {
    if (ptr == NULL) return cmalloc_mapped_alloc(new_size);
    unsigned char *block = (unsigned char *)ptr - HEADER;
    size_t length = *(size_t *)block;
    if (length == 0) {
        /* A block from malloc stays there as it grows: what grows is a buffer in use, touched as
           it is written. */
        return realloc_malloced(ptr, new_size);
    }
    if (new_size >= THRESHOLD) {
        size_t new_length = mapping_length(new_size);
        if (new_length == length) return ptr;
#if defined(__linux__)
        if (new_length != 0) {
            void *moved = mremap(block, length, new_length, MREMAP_MAYMOVE);
            if (moved != MAP_FAILED) {
                *(size_t *)moved = new_length;
                return (unsigned char *)moved + HEADER;
            }
        }
#endif
    }
    /* A mapping shrunk below the threshold, or one mremap could not move: a new block. */
    void *fresh = cmalloc_mapped_alloc(new_size);
    if (fresh == NULL) return NULL;
    memcpy(fresh, ptr, old_size < new_size ? old_size : new_size);
    cmalloc_mapped_free(ptr);
    return fresh;
}

void cmalloc_copy(void *dst, const void *src, size_t count) {
    memcpy(dst, src, count);
}
