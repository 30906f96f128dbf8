#ifndef C_FUZZ_DRIVER_H
#define C_FUZZ_DRIVER_H

/// A fuzz target's test function: one input, returns 0.
typedef int (*rangetap_fuzz_test_one_input)(const unsigned char *data, unsigned long size);

/// Runs libFuzzer's driver (`LLVMFuzzerRunDriver`, in the runtime `-sanitize=fuzzer` links)
/// with the process's arguments over `test`; returns libFuzzer's exit status.
int rangetap_fuzz_run(int argc, char **argv, rangetap_fuzz_test_one_input test);

#endif
