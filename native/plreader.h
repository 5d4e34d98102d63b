/*
 * plreader: the response reader of the pipelined drivers (pipeline.c, mixpipe.c), fed the bytes
 * that arrive on a connection (wire.h) and keeping its place between calls.
 *
 * It understands what a COM_STMT_EXECUTE can answer: OK, ERR, or a binary result set: column
 * count (with MariaDB's "metadata follows" byte when the column count packet carries one:
 * MARIADB_CLIENT_CACHE_METADATA), column definitions, an EOF unless CLIENT_DEPRECATE_EOF was
 * negotiated, binary rows, and an EOF or (deprecate EOF) an OK with a 0xFE header, or an ERR.
 * Sequence ids are checked packet by packet. Packets of 16 MiB or more (continued packets) are
 * refused: a point select never needs them. Plain C: no Python object here.
 */
#ifndef LOADGEN_PLREADER_H
#define LOADGEN_PLREADER_H

#include <stddef.h>
#include <stdint.h>

#define PL_MAX_COLUMNS 16
#define PL_MESSAGE_BYTES 512

/* The wire-protocol reader: fed whole packets, keeps its place between calls. */
typedef struct {
    int deprecate_eof;             /* CLIENT_DEPRECATE_EOF negotiated: OK ends a result set */
    int verify;                    /* fold every value into digest */
    unsigned columns;              /* from COM_STMT_PREPARE */
    uint8_t types[PL_MAX_COLUMNS]; /* MYSQL_TYPE_* of each result column */
    uint8_t is_unsigned[PL_MAX_COLUMNS];
    uint64_t digest; /* FNV-1a as querydrv.c's verify mode computes it */
    /* where the current response stands */
    int phase;
    unsigned defs_left;
    uint8_t seq; /* sequence id the next packet must carry */
    uint64_t rows;
} pl_reader_t;

typedef struct {
    uint64_t rows;
    unsigned err; /* server error number, 0 for success */
    char message[PL_MESSAGE_BYTES];
} pl_response_t;

void pl_reader_init(pl_reader_t *r, int deprecate_eof, int verify, unsigned columns, const uint8_t *types,
                    const uint8_t *is_unsigned);
/* 1: a response is complete (in *resp); 0: needs more bytes; -1: protocol error (resp->message).
 * *used is the bytes of whole packets consumed, in every case. */
int pl_read(pl_reader_t *r, const uint8_t *buf, size_t len, size_t *used, pl_response_t *resp);

#endif /* LOADGEN_PLREADER_H */
