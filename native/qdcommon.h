/* What the native query loops share (querydrv.c one at a time, pipeline.c pipelined): the
 * histogram bucketing of loadgen/measure/histogram.py, the monotonic clock, and the verify digest. */
#ifndef LOADGEN_QDCOMMON_H
#define LOADGEN_QDCOMMON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define QD_SUB_BITS 7
#define QD_SUB (1 << QD_SUB_BITS)
#define QD_MAX_SHIFT 40
#define QD_N_BUCKETS ((QD_MAX_SHIFT + 2) * QD_SUB)
#define QD_COLUMN_BYTES 256 /* verify digests at most this many bytes of a value */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static inline size_t qd_bucket(uint64_t value_ns) {
    if (value_ns < 2 * QD_SUB)
        return (size_t)value_ns;
    int shift = (64 - __builtin_clzll(value_ns)) - (QD_SUB_BITS + 1);
    if (shift > QD_MAX_SHIFT)
        return QD_N_BUCKETS - 1;
    return (size_t)shift * QD_SUB + (size_t)(value_ns >> shift);
}

static inline uint64_t qd_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t qd_fnv(uint64_t h, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= FNV_PRIME;
    }
    return h;
}

#endif /* LOADGEN_QDCOMMON_H */
