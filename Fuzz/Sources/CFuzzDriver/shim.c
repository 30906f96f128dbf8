#include "CFuzzDriver.h"

#include <stddef.h>
#include <stdint.h>

// Declared here, not in the header: Swift never sees libFuzzer's own signature.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

int rangetap_fuzz_run(int argc, char **argv, rangetap_fuzz_test_one_input test) {
    return LLVMFuzzerRunDriver(&argc, &argv, (int (*)(const uint8_t *, size_t))test);
}
