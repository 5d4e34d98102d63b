/* Python bindings for the native query driver (querydrv.c over the MariaDB/MySQL C API). */
#ifndef LOADGEN_QUERYDRV_H
#define LOADGEN_QUERYDRV_H

#include "native.h"

int loadgen_querydrv_exec(PyObject *module);

#ifdef LOADGEN_HAVE_MYSQL
PyObject *loadgen_query_open(PyObject *self, PyObject *args);
PyObject *loadgen_query_run(PyObject *self, PyObject *args);
PyObject *loadgen_query_count(PyObject *self, PyObject *args);
PyObject *loadgen_query_close(PyObject *self, PyObject *args);
PyObject *loadgen_query_totals(PyObject *self, PyObject *args);
PyObject *loadgen_query_buckets(PyObject *self, PyObject *args);

/* Entries of _native.c's method table, one a line: clang-format would indent all but the first as
 * the continuation of one expression. */
/* clang-format off */
#define LOADGEN_QUERYDRV_METHODS                                                    \
    {"query_open", loadgen_query_open, METH_VARARGS,                                \
     "query_open(host, port, user, password, unix_socket, database, sql, "          \
     "connect_timeout_s[, verify[, pipeline]]) -> handle; raises QueryError(errno, message, stage)"}, \
    {"query_run", loadgen_query_run, METH_VARARGS,                                  \
     "query_run(handle, ids, start, counts, budget_ns) -> (done, rows, total_ns, "  \
     "min_ns, max_ns, digest, errno, error, empty)"},                               \
    {"query_count", loadgen_query_count, METH_VARARGS,                              \
     "query_count(handle) -> queries run so far on this handle (any thread)"},      \
    {"query_totals", loadgen_query_totals, METH_VARARGS,                            \
     "query_totals(handle) -> (queries, rows, total_ns, min_ns, max_ns, digest, empty) so far"}, \
    {"query_close", loadgen_query_close, METH_VARARGS,                              \
     "query_close(handle) -> None"},                                                \
    {"query_buckets", loadgen_query_buckets, METH_VARARGS,                          \
     "query_buckets(values_ns, counts) -> None: the loop's histogram bucketing"},
/* clang-format on */
#else
/* Built without libmariadb/libmysqlclient: loadgen falls back to the Python driver. */
#define LOADGEN_QUERYDRV_METHODS
#endif

#endif /* LOADGEN_QUERYDRV_H */
