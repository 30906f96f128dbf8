#ifndef CMALLOC_H
#define CMALLOC_H

/* glibc's malloc tuning (mallopt), which Swift's Glibc module does not import. */

/* Sets M_MMAP_THRESHOLD and M_TRIM_THRESHOLD, in bytes. Returns 1 when both were set, 0 when the C
   library has no mallopt (not glibc) or refused a value. */
int cmalloc_set_thresholds(int mmap_threshold, int trim_threshold);

#endif
