/* Python bindings for the seeding row generator (rowgen.c). */
#ifndef LOADGEN_ROWGEN_H
#define LOADGEN_ROWGEN_H

#include "native.h"

PyObject *loadgen_rowgen_lines(PyObject *self, PyObject *args);

#define LOADGEN_ROWGEN_METHODS                                                    \
    {"rowgen_lines", loadgen_rowgen_lines, METH_VARARGS,                          \
     "rowgen_lines(mt_state, letters, text, first_id, last_id, base_epoch_s) -> " \
     "bytes: dataset.chunk_lines' rows from a random.Random state"},

#endif /* LOADGEN_ROWGEN_H */
