/* Python bindings for the key distributions of loadgen/workload/patterns.py (keydist.c). */
#ifndef LOADGEN_KEYDIST_H
#define LOADGEN_KEYDIST_H

#include "native.h"

PyObject *loadgen_keydist_fill(PyObject *self, PyObject *args);
PyObject *loadgen_keys_to_pages(PyObject *self, PyObject *args);

/* Entries of _native.c's method table, one a line: clang-format would indent all but the first as
 * the continuation of one expression. */
/* clang-format off */
#define LOADGEN_KEYDIST_METHODS                                                          \
    {"keydist_fill", loadgen_keydist_fill, METH_VARARGS,                                 \
     "keydist_fill(kind, n, start, out, (seed_a, seed_b, items, zetan, theta, hot_n, "   \
     "hot_ops, key_min)) -> count: out[j] = the key of operation start + j"},            \
    {"keys_to_pages", loadgen_keys_to_pages, METH_VARARGS,                               \
     "keys_to_pages(keys, pages, (key_min, rows, leaf_pages, height, fanout)) -> "       \
     "(refs written, keys read, queries written): each key in range's root-to-leaf "    \
     "references, with the step to a neighbouring leaf where it is a leaf's first or "  \
     "last key"},
/* clang-format on */

#endif /* LOADGEN_KEYDIST_H */
