/* Python bindings for the generic row generator of user schemas (tablegen.c). */
#ifndef LOADGEN_TABLEGEN_H
#define LOADGEN_TABLEGEN_H

#include "native.h"

PyObject *loadgen_tablegen_lines(PyObject *self, PyObject *args);

#define LOADGEN_TABLEGEN_METHODS                                                          \
    {"tablegen_lines", loadgen_tablegen_lines, METH_VARARGS,                              \
     "tablegen_lines(plan, labels, pool, seed, first_row, last_row[, keymap]) -> bytes: " \
     "tablegen.lines' tab-separated rows for a column plan"},

#endif /* LOADGEN_TABLEGEN_H */
