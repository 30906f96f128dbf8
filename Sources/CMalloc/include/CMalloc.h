#ifndef CMALLOC_H
#define CMALLOC_H

#include <pthread.h>
#include <stddef.h>

/* glibc's malloc tuning (mallopt), which Swift's Glibc module does not import. */

/* Sets M_MMAP_THRESHOLD and M_TRIM_THRESHOLD, in bytes. Returns 1 when both were set, 0 when the C
   library has no mallopt (not glibc) or refused a value. */
int cmalloc_set_thresholds(int mmap_threshold, int trim_threshold);

/* memcpy, as the copy function of the allocator below. */
void cmalloc_copy(void *_Nonnull dst, const void *_Nonnull src, size_t count);

/* Buffer memory for a ByteBufferAllocator of rounds (an upstream transfer's buffers, made on one
   thread, freed on another once written): a block of a power-of-two size of
   cmalloc_pool_minimum() bytes or more gets a mapping of its own and, freed, waits in a pool for
   the next block of its size, as long as the pool then holds no more than its cap; beyond that
   it goes back to the kernel. A smaller block comes from malloc. Thread-safe (one mutex per pool,
   held for a list operation). */
#define CMALLOC_POOL_CLASSES 64
typedef struct cmalloc_pool {
    pthread_mutex_t lock;
    unsigned char *_Nullable free_blocks[CMALLOC_POOL_CLASSES];
    size_t held;
    size_t cap;
} cmalloc_pool;

size_t cmalloc_pool_minimum(void);
/* The cap the shared pool (which the functions without a pool argument use) starts with. */
size_t cmalloc_pool_default_cap(void);
/* Sets the shared pool's cap; when it holds more, everything it holds is unmapped. */
void cmalloc_pool_set_cap(size_t cap);
void *_Nullable cmalloc_pool_alloc(size_t size);
void *_Nullable cmalloc_pool_realloc(void *_Nullable ptr, size_t old_size, size_t new_size);
void cmalloc_pool_free(void *_Nonnull ptr);

/* The same on a pool of the caller's (tests): init before use, drain to unmap what it holds. */
void cmalloc_pool_init(cmalloc_pool *_Nonnull pool, size_t cap);
void cmalloc_pool_drain(cmalloc_pool *_Nonnull pool);
size_t cmalloc_pool_held_in(cmalloc_pool *_Nonnull pool);
void *_Nullable cmalloc_pool_take(cmalloc_pool *_Nonnull pool, size_t size);
void *_Nullable cmalloc_pool_resize(cmalloc_pool *_Nonnull pool, void *_Nullable ptr, size_t old_size, size_t new_size);
void cmalloc_pool_give(cmalloc_pool *_Nonnull pool, void *_Nonnull ptr);

#endif
