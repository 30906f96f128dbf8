/* Round buffers kept mapped for reuse, up to a cap: see CMalloc.h. */
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include "CMalloc.h"
#include "blocks.h"

/* A block's header (blocks.h) holds, after its mapping's length, its size class: log2 of the
   power-of-two size it was made for, which a smaller request may take; 0 for a mapping no pool
   keeps, and for a block from malloc. A free block in a pool keeps the next free block of its
   class in the first bytes after its header. */
#define MINIMUM ((size_t)64 * 1024)
#define CAP ((size_t)2 * 1024 * 1024)

static cmalloc_pool shared_pool = { PTHREAD_MUTEX_INITIALIZER, { NULL }, 0, CAP };

size_t cmalloc_pool_minimum(void) { return MINIMUM; }
size_t cmalloc_pool_default_cap(void) { return CAP; }

void cmalloc_pool_init(cmalloc_pool *pool, size_t cap) {
    pthread_mutex_init(&pool->lock, NULL);
    memset(pool->free_blocks, 0, sizeof pool->free_blocks);
    pool->held = 0;
    pool->cap = cap;
}

void cmalloc_pool_drain(cmalloc_pool *pool) {
    pthread_mutex_lock(&pool->lock);
    for (size_t cls = 0; cls < CMALLOC_POOL_CLASSES; cls++) {
        unsigned char *block = pool->free_blocks[cls];
        while (block != NULL) {
            unsigned char *next;
            memcpy(&next, block + HEADER, sizeof next);
            munmap(block, ((size_t *)block)[0]);
            block = next;
        }
        pool->free_blocks[cls] = NULL;
    }
    pool->held = 0;
    pthread_mutex_unlock(&pool->lock);
}

size_t cmalloc_pool_held_in(cmalloc_pool *pool) {
    pthread_mutex_lock(&pool->lock);
    size_t held = pool->held;
    pthread_mutex_unlock(&pool->lock);
    return held;
}

/* log2 of size when it is a power of two, else 0. */
static size_t size_class(size_t size) {
    if (size == 0 || (size & (size - 1)) != 0) return 0;
    size_t n = 0;
    while ((size >>= 1) != 0) n++;
    return n;
}

void *cmalloc_pool_take(cmalloc_pool *pool, size_t size) {
    if (size >= MINIMUM) {
        size_t cls = size_class(size);
        if (cls != 0) {
            /* The smallest free block that holds size: a round of 128 KiB takes a free one of
               256 KiB rather than have a mapping made while the larger one waits. */
            unsigned char *block = NULL;
            pthread_mutex_lock(&pool->lock);
            for (size_t c = cls; c < CMALLOC_POOL_CLASSES && block == NULL; c++) {
                block = pool->free_blocks[c];
                if (block != NULL) {
                    memcpy(&pool->free_blocks[c], block + HEADER, sizeof block);
                    pool->held -= ((size_t *)block)[0];
                }
            }
            pthread_mutex_unlock(&pool->lock);
            if (block != NULL) return block + HEADER;
        }
        size_t length = mapping_length(size);
        if (length != 0) {
            void *mapped = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (mapped != MAP_FAILED) {
                ((size_t *)mapped)[0] = length;
                ((size_t *)mapped)[1] = cls;
                return (unsigned char *)mapped + HEADER;
            }
        }
        /* No mapping to be had: malloc's memory serves as well. */
    }
    return from_malloc(size);
}

void cmalloc_pool_give(cmalloc_pool *pool, void *ptr) {
    unsigned char *block = (unsigned char *)ptr - HEADER;
    size_t length = ((size_t *)block)[0];
    size_t cls = ((size_t *)block)[1];
    if (length == 0) {
        free(block);
        return;
    }
    if (cls != 0 && cls < CMALLOC_POOL_CLASSES) {
        pthread_mutex_lock(&pool->lock);
        if (pool->held <= pool->cap && length <= pool->cap - pool->held) {
            memcpy(block + HEADER, &pool->free_blocks[cls], sizeof block);
            pool->free_blocks[cls] = block;
            pool->held += length;
            pthread_mutex_unlock(&pool->lock);
            return;
        }
        pthread_mutex_unlock(&pool->lock);
    }
    munmap(block, length);
}

void *cmalloc_pool_resize(cmalloc_pool *pool, void *ptr, size_t old_size, size_t new_size) {
    if (ptr == NULL) return cmalloc_pool_take(pool, new_size);
    unsigned char *block = (unsigned char *)ptr - HEADER;
    if (((size_t *)block)[0] == 0 && new_size < MINIMUM) return realloc_malloced(ptr, new_size);
    void *fresh = cmalloc_pool_take(pool, new_size);
    if (fresh == NULL) return NULL;
    memcpy(fresh, ptr, old_size < new_size ? old_size : new_size);
    cmalloc_pool_give(pool, ptr);
    return fresh;
}

void cmalloc_pool_set_cap(size_t cap) {
    pthread_mutex_lock(&shared_pool.lock);
    shared_pool.cap = cap;
    pthread_mutex_unlock(&shared_pool.lock);
    if (cmalloc_pool_held_in(&shared_pool) > cap) cmalloc_pool_drain(&shared_pool);
}
void *cmalloc_pool_alloc(size_t size) { return cmalloc_pool_take(&shared_pool, size); }
void cmalloc_pool_free(void *ptr) { cmalloc_pool_give(&shared_pool, ptr); }
void *cmalloc_pool_realloc(void *ptr, size_t old_size, size_t new_size) {
    return cmalloc_pool_resize(&shared_pool, ptr, old_size, new_size);
}

void cmalloc_copy(void *dst, const void *src, size_t count) {
    memcpy(dst, src, count);
}
