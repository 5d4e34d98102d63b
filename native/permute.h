/* Python bindings for the random order's id permutation (permute.c). */
#ifndef LOADGEN_PERMUTE_H
#define LOADGEN_PERMUTE_H

#include "native.h"

PyObject *loadgen_permute_fill(PyObject *self, PyObject *args);

#define LOADGEN_PERMUTE_METHODS                                                       \
    {"permute_fill", loadgen_permute_fill, METH_VARARGS,                              \
     "permute_fill(n, half_bits, keys, start, out, base_start, base_step) -> count: " \
     "out[j] = base_start + base_step * permutation(n)[start + j]"},

#endif /* LOADGEN_PERMUTE_H */
