/*
 * pipeline: `--pipeline N` for the native driver. libmariadb connects and prepares the statement;
 * then COM_STMT_EXECUTE packets go back to back on the connection's own socket (wire.h), up to N
 * in flight, and the reader (plreader.h) takes the responses apart in order. See pipeline.c.
 */
#ifndef LOADGEN_PIPELINE_H
#define LOADGEN_PIPELINE_H

#include "native.h"

#include <stddef.h>
#include <stdint.h>

#include "plreader.h"

#define PL_MAX_DEPTH 4096 /* statements in flight at most (PIPELINE_MAX_DEPTH to Python; mixdrv.c's too) */

int loadgen_pipeline_exec(PyObject *module);

#ifdef LOADGEN_HAVE_MYSQL
#include <mysql.h>

typedef struct pl_conn pl_conn_t;

typedef struct {
    uint64_t done, rows, total_ns, min_ns, max_ns;
    uint64_t empty; /* responses without a row: lookups that found nothing */
    unsigned err;
    char message[PL_MESSAGE_BYTES];
} pl_stats_t;

/* After mysql_stmt_prepare of a one-placeholder statement; NULL with *err/message on refusal. */
pl_conn_t *pl_open(MYSQL *mysql, MYSQL_STMT *stmt, unsigned depth, int verify, uint64_t digest, unsigned *err,
                   char *message, size_t message_len);
/* Run ids[start..n_ids) in order, up to depth in flight, until done or budget_ns has passed
 * (then the queries in flight are drained, so every call ends with none outstanding). */
void pl_run(pl_conn_t *p, const uint64_t *ids, size_t start, size_t n_ids, uint64_t *counts, uint64_t budget_ns,
            uint64_t *queries_total, pl_stats_t *st);
uint64_t pl_digest(const pl_conn_t *p);
void pl_free(pl_conn_t *p);
#endif

PyObject *loadgen_pipeline_parse(PyObject *self, PyObject *args);

#define LOADGEN_PIPELINE_METHODS                                                          \
    {"pipeline_parse", loadgen_pipeline_parse, METH_VARARGS,                              \
     "pipeline_parse(data, types, unsigned, deprecate_eof, verify) -> (responses, used, " \
     "digest, error): the pipelined driver's protocol reader over bytes (for tests); "    \
     "responses is a list of (rows, errno, message)"},

#endif /* LOADGEN_PIPELINE_H */
