/*
 * Shared header for the Python-facing files of loadgen._native.
 *
 * Layout (psutil's, scaled down): _native.c holds only the method table and
 * module init; each topic has <topic>.c with the Python bindings and
 * <topic>.h declaring them plus a LOADGEN_<TOPIC>_METHODS macro that
 * _native.c splices into its table. Pure-C cores (memcore.c, the simulator's
 * kernel in lrusim/) do not include this header.
 */
#ifndef LOADGEN_NATIVE_H
#define LOADGEN_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <stdio.h>

/* Set from LOADGEN_NATIVE_DEBUG when the module is executed. */
extern int loadgen_debug_enabled;

#define loadgen_debug(...)                                    \
    do {                                                      \
        if (loadgen_debug_enabled) {                          \
            fprintf(stderr, "loadgen._native: " __VA_ARGS__); \
            fputc('\n', stderr);                              \
        }                                                     \
    } while (0)

/* Raise OSError(err, strerror(err), what); always returns NULL. */
static inline PyObject *loadgen_raise_errno(int err, const char *what) {
    errno = err;
    return PyErr_SetFromErrnoWithFilename(PyExc_OSError, what);
}

/* Raise ValueError unless 0 < value; returns 0 on success, -1 with an
 * exception set. */
static inline int loadgen_check_positive(Py_ssize_t value, const char *name) {
    if (value <= 0) {
        PyErr_Format(PyExc_ValueError, "%s must be > 0, got %zd", name, value);
        return -1;
    }
    return 0;
}

#endif /* LOADGEN_NATIVE_H */
