/*
 * Python bindings of the buffer-pool simulator (lrusim.c over the kernel in native/lrusim/):
 * InnoDB's LRU on one pool, many pools in one pass (the miss-ratio curve), and plain LRU's
 * stack distances. loadgen/native.py wraps them; loadgen/analysis/lru_reference.py holds the
 * pure-Python references they are tested against.
 */
#ifndef LOADGEN_LRUSIM_H
#define LOADGEN_LRUSIM_H

#include "native.h"

PyObject *loadgen_lrusim_innodb(PyObject *self, PyObject *args);
PyObject *loadgen_lrusim_mattson(PyObject *self, PyObject *args);
PyObject *loadgen_lrusim_curve(PyObject *self, PyObject *args);
int loadgen_lrusim_exec(PyObject *module);

/* Entries of _native.c's method table, one a line: clang-format would indent all but the first as
 * the continuation of one expression. */
/* clang-format off */
#define LOADGEN_LRUSIM_METHODS                                                                                \
    {"lrusim_innodb", loadgen_lrusim_innodb, METH_VARARGS,                                                    \
     "lrusim_innodb(trace, workload, n_pages, capacity, pool_pages, old_pct, old_time_ms, ms_per_query[, "    \
     "ra_threshold, ra_area, collapse, ra_rule, start_pages, start_freed, batch, tick_depth, tick_phase_ms, " \
     "tick_period_ms, ticks, trace_leaf_pages]) -> (refs, misses, made_young, not_young, read_ahead, "        \
     "read_ahead_evicted)"},                                                                                  \
    {"lrusim_curve", loadgen_lrusim_curve, METH_VARARGS,                                                      \
     "lrusim_curve(trace, workload, n_pages, leaf_pages, old_pct, old_time_ms, ms_per_query, ra_threshold, "  \
     "[(capacity, pool_pages, ra_area, rate, salt[, start_pages, start_freed, batch, tick_depth, "            \
     "tick_phase_ms, tick_period_ms, ticks]), ...][, ra_rule, plain_lru]) -> [per-pool tuples..., "           \
     "(distinct leaves, refs)[, plain-LRU histogram]]"},                                                      \
    {"lrusim_mattson", loadgen_lrusim_mattson, METH_VARARGS,                                                  \
     "lrusim_mattson(trace, workload, n_pages) -> bytes of uint64 stack-distance histogram (index 0 = "       \
     "cold misses)"},
/* clang-format on */

#endif /* LOADGEN_LRUSIM_H */
