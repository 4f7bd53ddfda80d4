// CRC-32C (Castagnoli) for the Storage emulator: the checksum Cloud Storage keeps for every object.
#ifndef HEARTH_CRC32C_H
#define HEARTH_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Extends `crc` (0 to start) over `length` bytes at `data`. Uses the CPU's CRC32 instruction where there is
/// one (x86-64 SSE4.2, AArch64 CRC), else a table.
uint32_t hearth_crc32c_extend(uint32_t crc, const void *data, size_t length);

#endif
