/*
 * Python bindings for memcore: parse arguments, run the experiment with the
 * GIL released, return raw tuples. loadgen/native.py turns them into typed
 * results; nothing else imports this module.
 *
 * A pass is the tuple (seconds, minor_faults, major_faults, tlb_misses),
 * tlb_misses being -1 when not measured.
 */
#include "memory.h"

#include <stdlib.h>

#include "memcore.h"

/* Upper bound on the per-pass array pagez allocates (16M passes, 512 MiB).
 * pagez(2, 200) needs 400. */
#define LOADGEN_MAX_PASSES ((size_t)1 << 24)

static PyObject *loadgen_pass_tuple(const memcore_pass_t *p) {
    return Py_BuildValue("(dllL)", p->seconds, p->minflt, p->majflt, p->tlb_misses);
}

static PyObject *loadgen_pass_list(const memcore_pass_t *passes, size_t n) {
    PyObject *py_list = PyList_New((Py_ssize_t)n);
    PyObject *py_pass = NULL;
    size_t i;

    if (py_list == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        py_pass = loadgen_pass_tuple(&passes[i]);
        if (py_pass == NULL)
            goto error;
        PyList_SET_ITEM(py_list, (Py_ssize_t)i, py_pass); /* steals */
    }
    return py_list;

error:
    Py_DECREF(py_list);
    return NULL;
}

static int loadgen_check_pages(int pages) {
    if (pages != MEMCORE_PAGES_4K && pages != MEMCORE_PAGES_THP && pages != MEMCORE_PAGES_HUGETLB) {
        PyErr_Format(PyExc_ValueError, "unknown page mode %d", pages);
        return -1;
    }
    return 0;
}

PyObject *loadgen_pagez(PyObject *self, PyObject *args) {
    Py_ssize_t chunks, iters, chunk_size;
    memcore_pass_t alloc, *passes = NULL;
    PyObject *py_alloc = NULL, *py_passes = NULL, *py_ret = NULL;
    size_t npasses;
    int err, tlb_err = 0;

    (void)self;
    if (!PyArg_ParseTuple(args, "nnn", &chunks, &iters, &chunk_size))
        return NULL;
    if (loadgen_check_positive(chunks, "chunks") < 0 || loadgen_check_positive(iters, "iters") < 0 ||
        loadgen_check_positive(chunk_size, "chunk_size") < 0)
        return NULL;
    if ((size_t)iters > LOADGEN_MAX_PASSES / (size_t)chunks) {
        PyErr_Format(PyExc_ValueError, "chunks*iters must be <= %zu", LOADGEN_MAX_PASSES);
        return NULL;
    }
    npasses = (size_t)chunks * (size_t)iters;
    passes = calloc(npasses, sizeof(*passes));
    if (passes == NULL)
        return PyErr_NoMemory();

    loadgen_debug("pagez(%zd, %zd, %zd)", chunks, iters, chunk_size);
    Py_BEGIN_ALLOW_THREADS
    err = memcore_pagez((size_t)chunks, (size_t)iters, (size_t)chunk_size, &alloc, passes, &tlb_err);
    Py_END_ALLOW_THREADS
    if (err != 0) {
        loadgen_raise_errno(err, "mmap");
        goto error;
    }
    py_alloc = loadgen_pass_tuple(&alloc);
    if (py_alloc == NULL)
        goto error;
    py_passes = loadgen_pass_list(passes, npasses);
    if (py_passes == NULL)
        goto error;
    py_ret = Py_BuildValue("(OOi)", py_alloc, py_passes, tlb_err);

error:
    Py_XDECREF(py_alloc);
    Py_XDECREF(py_passes);
    free(passes);
    return py_ret;
}

PyObject *loadgen_memset(PyObject *self, PyObject *args) {
    Py_ssize_t size, npasses;
    int pages, populate, err, tlb_err = 0;
    long anon_huge_kb = -1;
    memcore_pass_t map_step, *passes = NULL;
    PyObject *py_map = NULL, *py_passes = NULL, *py_ret = NULL;

    (void)self;
    if (!PyArg_ParseTuple(args, "nnip", &size, &npasses, &pages, &populate))
        return NULL;
    if (loadgen_check_positive(size, "size") < 0 || loadgen_check_positive(npasses, "passes") < 0 ||
        loadgen_check_pages(pages) < 0)
        return NULL;
    if ((size_t)npasses > LOADGEN_MAX_PASSES) {
        PyErr_SetString(PyExc_ValueError, "too many passes");
        return NULL;
    }
    passes = calloc((size_t)npasses, sizeof(*passes));
    if (passes == NULL)
        return PyErr_NoMemory();

    loadgen_debug("memset(%zd, %zd, pages=%d, populate=%d)", size, npasses, pages, populate);
    Py_BEGIN_ALLOW_THREADS
    err = memcore_memset((size_t)size, pages, populate, (size_t)npasses, &map_step, passes, &anon_huge_kb, &tlb_err);
    Py_END_ALLOW_THREADS
    if (err != 0) {
        loadgen_raise_errno(err, "mmap");
        goto error;
    }
    py_map = loadgen_pass_tuple(&map_step);
    if (py_map == NULL)
        goto error;
    py_passes = loadgen_pass_list(passes, (size_t)npasses);
    if (py_passes == NULL)
        goto error;
    py_ret = Py_BuildValue("(OOli)", py_map, py_passes, anon_huge_kb, tlb_err);

error:
    Py_XDECREF(py_map);
    Py_XDECREF(py_passes);
    free(passes);
    return py_ret;
}

PyObject *loadgen_lazymap(PyObject *self, PyObject *args) {
    Py_ssize_t size, reps;
    int kind, err;
    memcore_lazy_t out;

    (void)self;
    if (!PyArg_ParseTuple(args, "nni", &size, &reps, &kind))
        return NULL;
    if (loadgen_check_positive(size, "size") < 0 || loadgen_check_positive(reps, "reps") < 0)
        return NULL;
    if (kind < MEMCORE_LAZY_FRESH || kind > MEMCORE_LAZY_MALLOC) {
        PyErr_Format(PyExc_ValueError, "unknown lazymap kind %d", kind);
        return NULL;
    }

    Py_BEGIN_ALLOW_THREADS
    err = memcore_lazymap((size_t)size, (size_t)reps, kind, &out);
    Py_END_ALLOW_THREADS
    if (err != 0)
        return loadgen_raise_errno(err, kind == MEMCORE_LAZY_MALLOC ? "malloc" : "mmap");
    return Py_BuildValue("(dddllllLLi)", out.write_seconds, out.read_seconds, out.map_seconds, out.write_minflt,
                         out.write_majflt, out.read_minflt, out.read_majflt, out.write_tlb_misses, out.read_tlb_misses,
                         out.tlb_err);
}

PyObject *loadgen_alloc_touch(PyObject *self, PyObject *args) {
    Py_ssize_t size;
    int pages, err, tlb_err = 0;
    long anon_huge_kb = -1;
    memcore_pass_t touch, fill;
    PyObject *py_touch = NULL, *py_fill = NULL, *py_ret = NULL;

    (void)self;
    if (!PyArg_ParseTuple(args, "ni", &size, &pages))
        return NULL;
    if (loadgen_check_positive(size, "size") < 0 || loadgen_check_pages(pages) < 0)
        return NULL;

    Py_BEGIN_ALLOW_THREADS
    err = memcore_alloc_touch((size_t)size, pages, &touch, &fill, &anon_huge_kb, &tlb_err);
    Py_END_ALLOW_THREADS
    if (err != 0)
        return loadgen_raise_errno(err, "mmap");
    py_touch = loadgen_pass_tuple(&touch);
    if (py_touch == NULL)
        goto error;
    py_fill = loadgen_pass_tuple(&fill);
    if (py_fill == NULL)
        goto error;
    py_ret = Py_BuildValue("(OOli)", py_touch, py_fill, anon_huge_kb, tlb_err);

error:
    Py_XDECREF(py_touch);
    Py_XDECREF(py_fill);
    return py_ret;
}

int loadgen_memory_exec(PyObject *module) {
    if (PyModule_AddIntConstant(module, "PAGES_4K", MEMCORE_PAGES_4K) < 0 ||
        PyModule_AddIntConstant(module, "PAGES_THP", MEMCORE_PAGES_THP) < 0 ||
        PyModule_AddIntConstant(module, "PAGES_HUGETLB", MEMCORE_PAGES_HUGETLB) < 0 ||
        PyModule_AddIntConstant(module, "LAZY_FRESH", MEMCORE_LAZY_FRESH) < 0 ||
        PyModule_AddIntConstant(module, "LAZY_REUSED", MEMCORE_LAZY_REUSED) < 0 ||
        PyModule_AddIntConstant(module, "LAZY_MALLOC", MEMCORE_LAZY_MALLOC) < 0)
        return -1;
    return 0;
}
