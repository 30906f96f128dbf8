#include <stdlib.h>
#include "CMalloc.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int cmalloc_set_thresholds(int mmap_threshold, int trim_threshold) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}
