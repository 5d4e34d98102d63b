/*
 * wire: the byte side of a pipelined connection, shared by the two pipelined loops (pipeline.c for
 * `run --pipeline N`, mixpipe.c for a mix's). libmariadb connects and prepares; then these write
 * COM_STMT_EXECUTE packets straight to the connection's socket and read back what arrives, which
 * the response reader (pipeline.h pl_read) takes apart. Plain C over the client library: no
 * Python object here.
 */
#ifndef LOADGEN_WIRE_H
#define LOADGEN_WIRE_H

#ifdef LOADGEN_HAVE_MYSQL

#include <mysql.h>
#include <stddef.h>
#include <stdint.h>

#include "plreader.h"

/* The largest COM_STMT_EXECUTE of n BIGINT UNSIGNED parameters (header, statement id, flags,
 * NULL bitmap, 3 bytes of type and name and 8 of value each), with room. */
#define WIRE_EXEC_BYTES(n) (16 + (size_t)(n)*12)

typedef struct {
    int fd;
    int deprecate_eof;    /* CLIENT_DEPRECATE_EOF negotiated: an OK ends a result set */
    int query_attributes; /* MySQL 8.0.23+: each parameter also carries a (here empty) name */
    uint8_t *out;         /* packets to write: out[out_pos..out_len) is still pending */
    size_t out_cap, out_len, out_pos;
    uint8_t *in; /* bytes read: in[in_pos..in_len) not yet taken apart */
    size_t in_pos, in_len, in_cap;
} wire_t;

/* Take over mysql's socket with room for out_cap bytes of packets. 0 with message when the
 * connection cannot take plain packets (TLS, compression) or memory is short (*err 2008). */
int wire_open(wire_t *w, MYSQL *mysql, size_t out_cap, unsigned *err, char *message, size_t message_len);

void wire_free(wire_t *w);

/* The type and signedness of each of a prepared statement's result columns, for pl_reader_init.
 * 0 with message when they are more than `max` (the reader's limit) or the server gave none. */
int wire_columns(MYSQL_STMT *stmt, unsigned max, uint8_t *types, uint8_t *is_unsigned, char *message,
                 size_t message_len);

/* Queue COM_STMT_EXECUTE of statement stmt_id with n BIGINT UNSIGNED parameters. */
void wire_put_execute(wire_t *w, uint32_t stmt_id, unsigned n, const unsigned long long *values);

/* One step of a pipelined loop: write what is pending without blocking, then read what has arrived
 * onto w->in, waiting (poll) only when nothing has. Reading goes on while the socket is full for
 * writing: the server may be blocked writing its responses to us. Returns the bytes read (> 0), 0
 * when a wait ended without any (call again), -1 when the connection failed (*err: CR_SERVER_LOST
 * or CR_OUT_OF_MEMORY, and message). */
long wire_pump(wire_t *w, unsigned *err, char *message, size_t message_len);

/* The next response, through reader r (the statement's that is oldest in flight), from what has
 * arrived: 1 with *resp, 0 when it needs more bytes, -1 on a protocol error (*err 2027,
 * CR_MALFORMED_PACKET, and message). */
int wire_read(wire_t *w, pl_reader_t *r, pl_response_t *resp, unsigned *err, char *message, size_t message_len);

/* Drop the responses taken apart. -1 (*err 2027 and message) when bytes are left over with nothing
 * in flight: the server sent more than the responses to the statements. */
int wire_consume(wire_t *w, size_t inflight, unsigned *err, char *message, size_t message_len);

#endif /* LOADGEN_HAVE_MYSQL */

#endif /* LOADGEN_WIRE_H */
