/*
 * plreader (plreader.h): one COM_STMT_EXECUTE response after another, packet by packet.
 */
#include "plreader.h"

#include <stdio.h>
#include <string.h>

#include "qdcommon.h"

/* MYSQL_TYPE_* values of the protocol (the same in every client's headers). */
enum {
    T_DECIMAL = 0,
    T_TINY = 1,
    T_SHORT = 2,
    T_LONG = 3,
    T_FLOAT = 4,
    T_DOUBLE = 5,
    T_NULL = 6,
    T_TIMESTAMP = 7,
    T_LONGLONG = 8,
    T_INT24 = 9,
    T_DATE = 10,
    T_TIME = 11,
    T_DATETIME = 12,
    T_YEAR = 13,
};

enum { PH_HEAD, PH_DEFS, PH_DEFS_EOF, PH_ROWS };

#define SERVER_MORE_RESULTS 0x0008

void pl_reader_init(pl_reader_t *r, int deprecate_eof, int verify, unsigned columns, const uint8_t *types,
                    const uint8_t *is_unsigned) {
    memset(r, 0, sizeof(*r));
    r->deprecate_eof = deprecate_eof;
    r->verify = verify;
    r->columns = columns > PL_MAX_COLUMNS ? PL_MAX_COLUMNS : columns;
    memcpy(r->types, types, r->columns);
    memcpy(r->is_unsigned, is_unsigned, r->columns);
    r->digest = FNV_OFFSET;
    r->phase = PH_HEAD;
    r->seq = 1; /* the command went out with sequence id 0 */
}

/* A length-encoded integer at p[0..n); returns its size in bytes, or 0 when it does not fit. */
static size_t lenenc(const uint8_t *p, size_t n, uint64_t *value) {
    if (n < 1)
        return 0;
    if (p[0] < 0xfb) {
        *value = p[0];
        return 1;
    }
    size_t size = p[0] == 0xfc ? 2 : p[0] == 0xfd ? 3 : p[0] == 0xfe ? 8 : 0;
    if (size == 0 || n < 1 + size) /* 0xfb (NULL) and 0xff are not integers */
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p[1 + i] << (8 * i);
    *value = v;
    return 1 + size;
}

static void fail(pl_response_t *resp, const char *what) {
    snprintf(resp->message, sizeof(resp->message), "%s", what);
}

/* Fold one value into the digest as querydrv.c's verify mode does: the bytes (at most
 * QD_COLUMN_BYTES, as its 256-byte bind buffers hold) then 0xFF. */
static void digest_value(pl_reader_t *r, const char *p, size_t n) {
    r->digest = qd_fnv(qd_fnv(r->digest, p, n < QD_COLUMN_BYTES ? n : QD_COLUMN_BYTES), "\xff", 1);
}

/* A binary row (after its 0x00 header): NULL bitmap with a 2-bit offset, then the non-NULL
 * values. Returns 0, or -1 with resp->message when the row does not parse. */
static int read_row(pl_reader_t *r, const uint8_t *p, size_t n, pl_response_t *resp) {
    size_t bitmap = (r->columns + 7 + 2) / 8, pos = bitmap;
    if (n < bitmap) {
        fail(resp, "a binary row shorter than its NULL bitmap");
        return -1;
    }
    for (unsigned i = 0; i < r->columns; i++) {
        if (p[(i + 2) / 8] & (1u << ((i + 2) % 8))) {
            if (r->verify)
                r->digest = qd_fnv(r->digest, "\xfe", 1);
            continue;
        }
        size_t fixed = 0;
        switch (r->types[i]) {
            case T_TINY:
                fixed = 1;
                break;
            case T_SHORT:
            case T_YEAR:
                fixed = 2;
                break;
            case T_LONG:
            case T_INT24:
            case T_FLOAT:
                fixed = 4;
                break;
            case T_LONGLONG:
            case T_DOUBLE:
                fixed = 8;
                break;
            case T_NULL:
                fixed = 0;
                break;
            default:
                break;
        }
        if (fixed || r->types[i] == T_NULL) {
            if (n - pos < fixed) {
                fail(resp, "a binary row ends inside a value");
                return -1;
            }
            if (r->verify && r->types[i] != T_FLOAT && r->types[i] != T_DOUBLE && fixed) {
                /* Integers reach the one-at-a-time loop as decimal text (MYSQL_TYPE_STRING binds). */
                uint64_t u = 0;
                for (size_t k = 0; k < fixed; k++)
                    u |= (uint64_t)p[pos + k] << (8 * k);
                char text[24];
                int len;
                if (r->is_unsigned[i]) {
                    len = snprintf(text, sizeof(text), "%llu", (unsigned long long)u);
                } else {
                    int64_t s = fixed == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * fixed)) >> (64 - 8 * fixed);
                    len = snprintf(text, sizeof(text), "%lld", (long long)s);
                }
                digest_value(r, text, (size_t)len);
            }
            pos += fixed;
            continue;
        }
        if (r->types[i] == T_DATE || r->types[i] == T_DATETIME || r->types[i] == T_TIMESTAMP || r->types[i] == T_TIME) {
            if (n - pos < 1 || n - pos - 1 < p[pos]) {
                fail(resp, "a binary row ends inside a temporal value");
                return -1;
            }
            pos += 1 + p[pos];
            continue;
        }
        /* Everything else (strings, blobs, DECIMAL, JSON, ENUM, SET, BIT) is length-encoded. */
        uint64_t len;
        size_t head = lenenc(p + pos, n - pos, &len);
        if (head == 0 || n - pos - head < len) {
            fail(resp, "a binary row ends inside a string value");
            return -1;
        }
        if (r->verify)
            digest_value(r, (const char *)p + pos + head, (size_t)len);
        pos += head + (size_t)len;
    }
    if (pos != n) {
        fail(resp, "a binary row longer than its columns");
        return -1;
    }
    return 0;
}

/* End of one response: report it and get ready for the next (its first packet has id 1). */
static int finish(pl_reader_t *r, pl_response_t *resp, unsigned err) {
    resp->rows = r->rows;
    resp->err = err;
    if (err == 0)
        resp->message[0] = '\0';
    r->rows = 0;
    r->phase = PH_HEAD;
    r->seq = 1;
    return 1;
}

/* The status flags of an OK packet (after its header byte), or -1. */
static int ok_status(const uint8_t *p, size_t n) {
    uint64_t ignored;
    size_t a = lenenc(p, n, &ignored), b;
    if (a == 0 || (b = lenenc(p + a, n - a, &ignored)) == 0 || n < a + b + 2)
        return -1;
    return p[a + b] | p[a + b + 1] << 8;
}

static int err_packet(pl_reader_t *r, const uint8_t *p, size_t n, pl_response_t *resp) {
    unsigned code = n >= 3 ? (unsigned)(p[1] | p[2] << 8) : 0;
    size_t pos = 3;
    if (n > pos && p[pos] == '#')
        pos += 6; /* '#' and the SQLSTATE */
    if (pos > n)
        pos = n;
    int len = (int)(n - pos);
    snprintf(resp->message, sizeof(resp->message), "%.*s", len > 400 ? 400 : len, (const char *)p + pos);
    return finish(r, resp, code ? code : 2027 /* CR_MALFORMED_PACKET */);
}

int pl_read(pl_reader_t *r, const uint8_t *buf, size_t len, size_t *used, pl_response_t *resp) {
    size_t pos = 0;
    *used = 0;
    while (len - pos >= 4) {
        size_t n = (size_t)buf[pos] | (size_t)buf[pos + 1] << 8 | (size_t)buf[pos + 2] << 16;
        uint8_t seq = buf[pos + 3];
        if (n == 0xffffff) {
            fail(resp, "a packet of 16 MiB or more: the pipelined driver does not read those");
            return -1;
        }
        if (len - pos - 4 < n)
            break; /* the rest of this packet has not arrived yet */
        if (seq != r->seq) {
            snprintf(resp->message, sizeof(resp->message),
                     "packet sequence id %u where %u was due: the responses are out of step", seq, r->seq);
            return -1;
        }
        r->seq++;
        const uint8_t *p = buf + pos + 4;
        pos += 4 + n;
        *used = pos;
        if (n == 0) {
            fail(resp, "an empty packet");
            return -1;
        }
        switch (r->phase) {
            case PH_HEAD: {
                if (p[0] == 0xff)
                    return err_packet(r, p, n, resp);
                if (p[0] == 0x00) { /* OK: a statement without a result set; its rows are those it changed */
                    int status = ok_status(p + 1, n - 1);
                    uint64_t affected = 0;
                    if (status < 0 || lenenc(p + 1, n - 1, &affected) == 0) {
                        fail(resp, "a malformed OK packet");
                        return -1;
                    }
                    r->rows += affected;
                    if (status & SERVER_MORE_RESULTS)
                        continue; /* the next result of the same command follows */
                    return finish(r, resp, 0);
                }
                if (p[0] == 0xfb) {
                    fail(resp, "the server asked for a LOCAL INFILE");
                    return -1;
                }
                uint64_t columns;
                size_t head = lenenc(p, n, &columns);
                if (head == 0 || columns == 0) {
                    fail(resp, "a malformed column count packet");
                    return -1;
                }
                if (columns != r->columns) {
                    snprintf(resp->message, sizeof(resp->message),
                             "the result has %llu columns, the prepared statement %u", (unsigned long long)columns,
                             r->columns);
                    return -1;
                }
                /* MariaDB's cache-metadata byte is there only when both sides agreed to it, and then
                 * the packet is one byte longer than its integer: the packet says which it is. */
                int metadata = n > head ? p[head] != 0 : 1;
                if (metadata) {
                    r->defs_left = (unsigned)columns;
                    r->phase = PH_DEFS;
                } else {
                    r->phase = r->deprecate_eof ? PH_ROWS : PH_DEFS_EOF;
                }
                break;
            }
            case PH_DEFS:
                if (p[0] == 0xff)
                    return err_packet(r, p, n, resp);
                if (--r->defs_left == 0)
                    r->phase = r->deprecate_eof ? PH_ROWS : PH_DEFS_EOF;
                break;
            case PH_DEFS_EOF:
                if (p[0] != 0xfe || n >= 9) {
                    fail(resp, "no EOF packet after the column definitions");
                    return -1;
                }
                r->phase = PH_ROWS;
                break;
            case PH_ROWS:
                if (p[0] == 0x00) {
                    if (read_row(r, p + 1, n - 1, resp) < 0)
                        return -1;
                    r->rows++;
                    break;
                }
                if (p[0] == 0xff)
                    return err_packet(r, p, n, resp);
                if (p[0] == 0xfe) {
                    int status;
                    if (r->deprecate_eof)
                        status = ok_status(p + 1, n - 1);
                    else
                        status = n >= 5 ? (p[3] | p[4] << 8) : -1;
                    if (status < 0) {
                        fail(resp, "a malformed end-of-rows packet");
                        return -1;
                    }
                    if (status & SERVER_MORE_RESULTS) {
                        r->phase = PH_HEAD; /* rows of the next result are counted with these */
                        break;
                    }
                    return finish(r, resp, 0);
                }
                snprintf(resp->message, sizeof(resp->message), "a row packet with header 0x%02x", p[0]);
                return -1;
        }
    }
    return 0;
}
