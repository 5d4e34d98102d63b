/* Python bindings for the native driver of a mix (mixdrv.c over mixconn.c and mixpipe.c): several
 * connections, one per stream, each with its prepared statements, run in the op sequence's order. */
#ifndef LOADGEN_MIXDRV_H
#define LOADGEN_MIXDRV_H

#include "native.h"

/* The parameter codes (MIX_PARAM_KEY, _END, _OP, _RAW: mixconn.h) as module constants, which
 * loadgen/drivers/mixnative.py checks against workload/statements.py's before it uses the driver. */
int loadgen_mixdrv_exec(PyObject *module);

#ifdef LOADGEN_HAVE_MYSQL
PyObject *loadgen_mix_open(PyObject *self, PyObject *args);
PyObject *loadgen_mix_run(PyObject *self, PyObject *args);
PyObject *loadgen_mix_count(PyObject *self, PyObject *args);
PyObject *loadgen_mix_stats(PyObject *self, PyObject *args);
PyObject *loadgen_mix_close(PyObject *self, PyObject *args);

#define LOADGEN_MIXDRV_METHODS                                                                                     \
    {"mix_open", loadgen_mix_open, METH_VARARGS,                                                                   \
     "mix_open(host, port, user, password, unix_socket, database, connect_timeout_s, streams"                      \
     "[, one_connection[, pipeline]]) -> handle; streams: [(index, key_offset, [(sql, param_codes: bytes, reads: " \
     "bool), ...]), "                                                                                              \
     "...]; pipeline > 1: one connection, that many statements in flight; raises "                                 \
     "QueryError(errno, message, stage) with stage 'connect', 'prepare:<index>' or 'pipeline'"},                   \
        {"mix_run", loadgen_mix_run, METH_VARARGS,                                                                 \
         "mix_run(handle, stream u16[], key u64[], length u32[], start, first_op, counts, "                        \
         "budget_ns) -> (done, errno, message): ops start.. of the arrays in order, until the end, "               \
         "budget_ns, or a lost connection; counts: n_streams * QUERY_BUCKETS u64 histograms"},                     \
        {"mix_count", loadgen_mix_count, METH_VARARGS,                                                             \
         "mix_count(handle) -> (ops, (ops of each stream, ...)) so far, from any thread"},                         \
        {"mix_stats", loadgen_mix_stats, METH_VARARGS,                                                             \
         "mix_stats(handle) -> ((ops, rows, errors, total_ns, min_ns, max_ns, first_error), ...) "                 \
         "per stream index"},                                                                                      \
        {"mix_close", loadgen_mix_close, METH_VARARGS, "mix_close(handle) -> None"},
#else
#define LOADGEN_MIXDRV_METHODS
#endif

#endif /* LOADGEN_MIXDRV_H */
