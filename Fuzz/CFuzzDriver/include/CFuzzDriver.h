// libFuzzer's driver, for a harness that has its own main (SwiftPM gives every executable one): runs the
// fuzzing loop with the command line's libFuzzer options, calling `callback` with each input.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
