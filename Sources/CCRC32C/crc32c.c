// CRC-32C with the CPU's instruction when available (checked once at run time), else slicing by one byte
// through a table. Reflected polynomial 0x82F63B78.
#include "crc32c.h"

#include <string.h>

static uint32_t table[256];

static void build_table(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        table[byte] = crc;
    }
}

static uint32_t extend_table(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length--) crc = table[(crc ^ *bytes++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t extend_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = _mm_crc32_u64(wide, word);
        bytes += 8;
        length -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (length--) narrow = _mm_crc32_u8(narrow, *bytes++);
    return narrow;
}

static int hardware(void) { return __builtin_cpu_supports("sse4.2"); }
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

static uint32_t extend_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    while (length--) crc = __crc32cb(crc, *bytes++);
    return crc;
}

static int hardware(void) { return 1; }
#else
static uint32_t extend_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    return extend_table(crc, bytes, length);
}

static int hardware(void) { return 0; }
#endif

uint32_t hearth_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    static int mode = -1;  // -1 unknown, 0 table, 1 instruction; every thread computes the same value
    int current = __atomic_load_n(&mode, __ATOMIC_RELAXED);
    if (current < 0) {
        current = hardware();
        if (!current) build_table();
        __atomic_store_n(&mode, current, __ATOMIC_RELEASE);
    }
    crc = ~crc;
    crc = current ? extend_hardware(crc, (const uint8_t *)data, length) : extend_table(crc, (const uint8_t *)data, length);
    return ~crc;
}
