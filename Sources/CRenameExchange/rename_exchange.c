#define _GNU_SOURCE
#include "rename_exchange.h"

#include <fcntl.h>
#include <stdio.h>

int hearth_rename_exchange(const char *first, const char *second) {
#if defined(__APPLE__)
    return renamex_np(first, second, RENAME_SWAP);
#else
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#endif
}
