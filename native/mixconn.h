/*
 * mixconn: the native driver of a mix without Python (mixdrv.c is its Python glue).
 *
 * One handle holds one connection per stream of the op sequence, each with the stream's
 * binary-protocol prepared statements (one, or two for read-modify-write and delete-insert). Every
 * placeholder is a 64-bit unsigned integer whose value comes from a code: 0 the op's key (plus
 * the stream's key offset), 1 the last key of its range (key + length - 1), 2 the op's index in
 * the mix (so each update writes a value no earlier op wrote), 3 the key as drawn (no offset).
 * md_run works through a chunk of the sequence (stream, key, length arrays from
 * workload/opstream.py) in order, one op at a time: op j is executed on its stream's connection
 * and answered before op j + 1 is sent, so the server sees the sequence's exact order whatever the
 * number of connections. With a pipeline depth above 1 every stream's statements share one
 * connection and up to that many are in flight (mixpipe.c, which builds on this file: the glue,
 * mixdrv.c, picks the loop).
 *
 * Per statement it does what querydrv.c does: execute, buffer the result on the client
 * (mysql_stmt_store_result), count its rows and free it; a write counts its affected rows. Each
 * op (all its statements) is timed with CLOCK_MONOTONIC into its stream's histogram, laid out as
 * loadgen/histogram.py's. A server error (a duplicate key, a deadlock) is counted in the stream's
 * errors and the sequence goes on; a client error (the connection is gone) ends the call with it.
 * Running totals per stream live in the handle; their op counts may be read from any thread while
 * md_run is in progress (the sampler's per-stream counts).
 */
#ifndef LOADGEN_MIXCONN_H
#define LOADGEN_MIXCONN_H

#ifdef LOADGEN_HAVE_MYSQL

#include <mysql.h>
#include <stddef.h>
#include <stdint.h>

#include "plreader.h"

#define MD_MAX_STREAMS 64
#define MD_MAX_STMTS 2
#define MD_MAX_PARAMS 32
#define MD_MESSAGE 512
#define MD_STAGE 32

/* The parameter codes: where a placeholder's value comes from (md_bind). */
enum { MD_KEY = 0, MD_END = 1, MD_OP = 2, MD_RAW = 3 };

typedef struct {
    MYSQL_STMT *stmt;
    char *sql;
    unsigned n_params;
    uint8_t codes[MD_MAX_PARAMS];
    MYSQL_BIND binds[MD_MAX_PARAMS];
    unsigned long long values[MD_MAX_PARAMS];
    int reads;
    unsigned columns;
    pl_reader_t reader; /* pipelined: how its responses are read (pipeline.c) */
} md_stmt_t;

typedef struct {
    int used;
    int owns; /* this stream opened (and closes) mysql; with one_connection, the first stream does */
    MYSQL *mysql;
    md_stmt_t st[MD_MAX_STMTS];
    int n_st;
    long long key_offset;
    uint64_t ops; /* read by mix_count from other threads */
    uint64_t rows, errors, ns_total, min_ns, max_ns;
    char first_error[MD_MESSAGE];
} md_stream_t;

typedef struct md_pipe md_pipe_t; /* mixpipe.h */

typedef struct {
    int n; /* stream slots: the largest index + 1 */
    md_stream_t s[MD_MAX_STREAMS];
    uint64_t ops_total;
    int busy;
    md_pipe_t *pipe; /* NULL: one op at a time; else mixpipe.c's, which sets and frees it */
} md_handle_t;

/* Where to log in (NULL host, user, password, database: the client's defaults). */
typedef struct {
    const char *host, *user, *password, *unix_socket, *database;
    unsigned port, timeout_s;
} md_login_t;

/* A chunk of the op sequence: ops [start, n) of stream, key and length arrays, the first of them
 * op first_op of the whole mix. */
typedef struct {
    const uint16_t *stream;
    const uint64_t *key;
    const uint32_t *length;
    size_t start, n;
    uint64_t first_op;
} md_chunk_t;

/* An empty handle (streams are filled in by the caller: used, key_offset, and each statement's
 * sql, codes and reads), or NULL. */
md_handle_t *md_new(void);

/* Close the connections and free h and everything it holds but h->pipe (md_pipe_free it first;
 * NULL: nothing). */
void md_free(md_handle_t *h);

/* Close the statements and connections, keeping h itself (its counters stay readable). */
void md_disconnect(md_handle_t *h);

/* Connect every used stream (all on one connection with one_connection) and prepare and bind its
 * statements. 0 with *err, message and stage ("connect" or "prepare:<index>") on failure. */
int md_connect(md_handle_t *h, const md_login_t *login, int one_connection, unsigned *err, char *message,
               char stage[MD_STAGE]);

/* The first used stream's connection (with one_connection, every stream's). */
MYSQL *md_first_connection(const md_handle_t *h);

/* Run chunk c in order, one op at a time, until its end, budget_ns, or a lost connection (*fatal
 * and message); latencies go into count, QD_N_BUCKETS per stream slot. Returns the ops done:
 * always a prefix. */
uint64_t md_run(md_handle_t *h, const md_chunk_t *c, uint64_t *count, uint64_t budget_ns, unsigned *fatal,
                char *message);

/* Op j of chunk c's placeholder values into st (what the codes say). Inline on purpose: gcc 12
 * (-O1 and up) deleted out-of-line calls of it as dead, its modref summary storing only into
 * st->values, which libmariadb reads through the bound MYSQL_BIND buffers (mysql_stmt_execute). */
static inline void md_bind(md_stmt_t *st, const md_stream_t *s, const md_chunk_t *c, size_t j) {
    unsigned long long k = c->key[j] + (unsigned long long)s->key_offset;
    unsigned long long values[4] = {k, k + (c->length[j] ? c->length[j] : 1) - 1, c->first_op + (uint64_t)j,
                                    c->key[j]}; /* by code: MD_KEY, MD_END, MD_OP, MD_RAW */
    for (unsigned q = 0; q < st->n_params; q++)
        st->values[q] = values[st->codes[q]];
}

/* An op of stream slot i is answered: dt_ns, its rows, and err/why when one of its statements
 * failed on the server. */
void md_account(md_handle_t *h, int i, uint64_t dt_ns, uint64_t rows, unsigned err, const char *why, uint64_t *count);

#endif /* LOADGEN_HAVE_MYSQL */

#endif /* LOADGEN_MIXCONN_H */
