/* Python bindings of the mix model's reference building loops (mixref.c; loadgen/analysis/mixpages.py). */
#ifndef LOADGEN_MIXREF_H
#define LOADGEN_MIXREF_H

#include "native.h"

PyObject *loadgen_mixref_leaves(PyObject *self, PyObject *args);
PyObject *loadgen_mixref_path(PyObject *self, PyObject *args);
PyObject *loadgen_mixref_walks(PyObject *self, PyObject *args);
PyObject *loadgen_mixref_scatter(PyObject *self, PyObject *args);
PyObject *loadgen_mixref_order(PyObject *self, PyObject *args);

/* clang-format off */
#define LOADGEN_MIXREF_METHODS                                                                               \
    {"mixref_leaves", loadgen_mixref_leaves, METH_VARARGS,                                                   \
     "mixref_leaves(starts, keys, out, rows, leaf_pages, all_leaves, rows_per_leaf): out[i] = keys[i]'s leaf"}, \
    {"mixref_path", loadgen_mixref_path, METH_VARARGS,                                                       \
     "mixref_path(leaves, out, base, all_leaves, fanout, sizes): each leaf's descent, root first"},          \
    {"mixref_walks", loadgen_mixref_walks, METH_VARARGS,                                                     \
     "mixref_walks(lo, hi, pages, flags, first_flag, move_flag, base, all_leaves, fanout, sizes): "          \
     "a descent to each lo, then each next leaf to hi"},                                                     \
    {"mixref_scatter", loadgen_mixref_scatter, METH_VARARGS,                                                 \
     "mixref_scatter(out_pages, out_size, out_flags, cursor, pages, size, flags, widths, where): each op's "  \
     "references copied to out at its cursor, the cursor moved past them"},                                  \
    {"mixref_order", loadgen_mixref_order, METH_VARARGS,                                                     \
     "mixref_order(op_widths, p_at, p_widths, starts): where each op's and each piece of purge's "            \
     "references start, purge's before the op it is due at"},
/* clang-format on */

#endif /* LOADGEN_MIXREF_H */
