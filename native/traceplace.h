/* Python binding of a captured trace's chunk placed on the tables' keys (traceplace.c;
 * loadgen/analysis/tracemodel.py TracePlan.place holds the numpy twin). */
#ifndef LOADGEN_TRACEPLACE_H
#define LOADGEN_TRACEPLACE_H

#include "native.h"

/* a record's class: tree * PLACE_SUBS + its kind (optrace's 1..7), an insert inside the table's
 * PLACE_INSERT_AT; or dropped (outside the table's keys, an empty range), or left to Python */
#define PLACE_SUBS 16
#define PLACE_INSERT_AT 8
#define PLACE_DROPPED (-1)
#define PLACE_PYTHON (-2)

PyObject *loadgen_trace_place(PyObject *self, PyObject *args);

/* clang-format off */
#define LOADGEN_TRACEPLACE_METHODS                                                                           \
    {"trace_place", loadgen_trace_place, METH_VARARGS,                                                       \
     "trace_place(records, trees, appended, inserted_at, cls, key, length, txn, counts, kept): a trace's "   \
     "chunk placed on the tables' keys (tracemodel.TracePlan.place)"},
/* clang-format on */

#endif /* LOADGEN_TRACEPLACE_H */
