// glibc's allocator tuning (mallopt), for the hearth executable. Empty where there is no <malloc.h>.
#if defined(__linux__)
#include <malloc.h>
#endif
