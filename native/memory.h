/* Python bindings for the memory experiments (memory.c over memcore.c). */
#ifndef LOADGEN_MEMORY_H
#define LOADGEN_MEMORY_H

#include "native.h"

PyObject *loadgen_pagez(PyObject *self, PyObject *args);
PyObject *loadgen_memset(PyObject *self, PyObject *args);
PyObject *loadgen_lazymap(PyObject *self, PyObject *args);
PyObject *loadgen_alloc_touch(PyObject *self, PyObject *args);
int loadgen_memory_exec(PyObject *module);

/* Entries of _native.c's method table, one a line: clang-format would indent all but the first as
 * the continuation of one expression. */
/* clang-format off */
#define LOADGEN_MEMORY_METHODS                                              \
    {"pagez", loadgen_pagez, METH_VARARGS,                                  \
     "pagez(chunks, iters, chunk_size) -> (alloc, passes, tlb_errno)"},     \
    {"memset", loadgen_memset, METH_VARARGS,                                \
     "memset(size, passes, pages, populate) -> "                            \
     "(map_step, passes, anon_huge_kb, tlb_errno)"},                        \
    {"lazymap", loadgen_lazymap, METH_VARARGS,                              \
     "lazymap(size, reps, kind) -> (write_s, read_s, map_s, write_minflt, " \
     "write_majflt, read_minflt, read_majflt, write_tlb, read_tlb, "        \
     "tlb_errno)"},                                                         \
    {"alloc_touch", loadgen_alloc_touch, METH_VARARGS,                      \
     "alloc_touch(size, pages) -> (touch, fill, anon_huge_kb, tlb_errno)"},
/* clang-format on */

#endif /* LOADGEN_MEMORY_H */
