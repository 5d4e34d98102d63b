/*
 * Buffer-pool simulation kernels: InnoDB's midpoint-insertion LRU and plain-LRU stack distances
 * (Mattson). Python wrapper and pure-Python references: loadgen/model.py.
 */
#ifndef LOADGEN_LRUSIM_H
#define LOADGEN_LRUSIM_H

#include "native.h"

PyObject *loadgen_lrusim_innodb(PyObject *self, PyObject *args);
PyObject *loadgen_lrusim_mattson(PyObject *self, PyObject *args);
PyObject *loadgen_lrusim_curve(PyObject *self, PyObject *args);

#define LOADGEN_LRUSIM_METHODS                                                   \
    {"lrusim_innodb", loadgen_lrusim_innodb, METH_VARARGS,                       \
     "lrusim_innodb(trace, workload, n_pages, capacity, pool_pages, old_pct, "   \
     "old_time_ms, ms_per_query[, ra_threshold, ra_area, collapse]) -> (refs, "  \
     "misses, made_young, not_young, read_ahead, read_ahead_evicted)"},          \
    {"lrusim_curve", loadgen_lrusim_curve, METH_VARARGS,                         \
     "lrusim_curve(trace, workload, n_pages, leaf_pages, old_pct, old_time_ms, "  \
     "ms_per_query, ra_threshold, [(capacity, pool_pages, ra_area, rate, salt)]) " \
     "-> [per-pool tuples..., distinct leaves]"},                                \
    {"lrusim_mattson", loadgen_lrusim_mattson, METH_VARARGS,                     \
     "lrusim_mattson(trace, workload, n_pages) -> bytes of uint64 stack-distance " \
     "histogram (index 0 = cold misses)"},

#endif /* LOADGEN_LRUSIM_H */
