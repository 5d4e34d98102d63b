/* Decimal formatting into a caller's buffer, shared by the row generators (rowgen.c for the chat
 * table, tablegen.c for any table): each writes at p and returns the byte after what it wrote, so
 * a row is built with no snprintf and no length bookkeeping. The caller sizes the buffer (at most
 * 20 digits for a uint64_t, 21 bytes with a sign). */
#ifndef LOADGEN_TEXTPUT_H
#define LOADGEN_TEXTPUT_H

#include <stdint.h>

static inline char *put_u(char *p, uint64_t v) {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

static inline char *put_i(char *p, int64_t v) {
    if (v < 0) {
        *p++ = '-';
        return put_u(p, (uint64_t)0 - (uint64_t)v); /* INT64_MIN has no positive int64_t */
    }
    return put_u(p, (uint64_t)v);
}

/* v in exactly `width` digits, zero-padded on the left (dates, times, decimal fractions). */
static inline char *put_padded(char *p, uint64_t v, int width) {
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

#endif
