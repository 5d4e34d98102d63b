/*
 * loadgen._native: method table and module init only.
 *
 * The module holds loadgen's C core, one topic a file pair: the memory
 * experiments (memory.c over memcore.c), the buffer-pool simulator (lrusim.c
 * over the kernel in lrusim/), the key distributions (keydist.c), the seeding
 * row generator (rowgen.c) and the user tables' one (tablegen.c), the random
 * order's permutation (permute.c), the native query driver (querydrv.c,
 * pipeline.c) and the mix's (mixdrv.c over mixconn.c and mixpipe.c; both
 * pipelined loops over wire.c and plreader.c), the mix model's reference
 * building loops (mixref.c), a captured trace's placing (traceplace.c).
 * loadgen/native.py is its only door.
 *
 * To add a topic: write native/<topic>.c and native/<topic>.h (declaring a
 * LOADGEN_<TOPIC>_METHODS macro and, if it needs constants, an exec
 * function), include the header below, add the macro to the table and the
 * exec call to loadgen_native_exec. setup.py compiles every .c file in native/
 * and in its subdirectories (a topic's pure-C core may live in native/<topic>/).
 */
#include "native.h"
#include "memory.h"
#include "lrusim.h"
#include "querydrv.h"
#include "pipeline.h"
#include "rowgen.h"
#include "permute.h"
#include "keydist.h"
#include "tablegen.h"
#include "mixdrv.h"
#include "mixsim.h"
#include "mixref.h"
#include "traceplace.h"

#include <stdlib.h>

int loadgen_debug_enabled = 0;

/* One topic's macro a line: clang-format would run them together as one expression. */
/* clang-format off */
static PyMethodDef loadgen_native_methods[] = {
    LOADGEN_MEMORY_METHODS
    LOADGEN_LRUSIM_METHODS
    LOADGEN_QUERYDRV_METHODS
    LOADGEN_PIPELINE_METHODS
    LOADGEN_ROWGEN_METHODS
    LOADGEN_PERMUTE_METHODS
    LOADGEN_KEYDIST_METHODS
    LOADGEN_TABLEGEN_METHODS
    LOADGEN_MIXDRV_METHODS
    LOADGEN_MIXSIM_METHODS
    LOADGEN_MIXREF_METHODS
    LOADGEN_TRACEPLACE_METHODS
    {NULL, NULL, 0, NULL},
};
/* clang-format on */

static int loadgen_native_exec(PyObject *module) {
    const char *debug = getenv("LOADGEN_NATIVE_DEBUG");

    loadgen_debug_enabled = debug != NULL && debug[0] != '\0' && debug[0] != '0';
    if (loadgen_memory_exec(module) < 0)
        return -1;
    if (loadgen_lrusim_exec(module) < 0)
        return -1;
    if (loadgen_querydrv_exec(module) < 0)
        return -1;
    if (loadgen_pipeline_exec(module) < 0)
        return -1;
    if (loadgen_mixsim_exec(module) < 0)
        return -1;
    if (loadgen_mixdrv_exec(module) < 0)
        return -1;
    loadgen_debug("module executed");
    return 0;
}

static PyModuleDef_Slot loadgen_native_slots[] = {
    {Py_mod_exec, loadgen_native_exec},
#ifdef Py_mod_gil
    /* No function keeps state between calls; free-threaded builds may run
     * them concurrently. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef loadgen_native_module = {
    PyModuleDef_HEAD_INIT,
    "loadgen._native",
    "C core of loadgen: memory experiments, the buffer-pool simulator, key "
    "distributions, row generators and the query driver; use loadgen.native "
    "instead.",
    0,
    loadgen_native_methods,
    loadgen_native_slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    return PyModuleDef_Init(&loadgen_native_module);
}
