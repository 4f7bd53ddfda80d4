#ifndef HEARTH_RENAME_EXCHANGE_H
#define HEARTH_RENAME_EXCHANGE_H

/// Atomically exchanges the two paths (Linux renameat2 with RENAME_EXCHANGE, macOS renamex_np with
/// RENAME_SWAP). Returns 0, or -1 with errno set.
int hearth_rename_exchange(const char *first, const char *second);

#endif
