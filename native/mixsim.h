/*
 * Python binding of the mixed-workload simulation (native/lrusim/mix.h): one pool over an
 * explicit trace of several tables' references with flags. loadgen/native.py wraps it,
 * loadgen/analysis/mixmodel.py builds the trace.
 */
#ifndef LOADGEN_MIXSIM_H
#define LOADGEN_MIXSIM_H

#include "native.h"

PyObject *loadgen_lrusim_mix(PyObject *self, PyObject *args);
PyObject *loadgen_mixsim_open(PyObject *self, PyObject *args);
PyObject *loadgen_mixsim_feed(PyObject *self, PyObject *args);
PyObject *loadgen_mixsim_close(PyObject *self, PyObject *capsule);
PyObject *loadgen_mixsim_peek(PyObject *self, PyObject *capsule);
PyObject *loadgen_mixmini_open(PyObject *self, PyObject *args);
PyObject *loadgen_mixmini_feed(PyObject *self, PyObject *args);
PyObject *loadgen_mixmini_feed_group(PyObject *self, PyObject *args);
PyObject *loadgen_mixmini_close(PyObject *self, PyObject *capsule);
PyObject *loadgen_mix_mark(PyObject *self, PyObject *args);

/* The flag bits of a reference (MIX_MOVE, MIX_WRITE, MIX_OP, MIX_NEW) as module constants. */
int loadgen_mixsim_exec(PyObject *module);

/* clang-format off */
#define LOADGEN_MIXSIM_METHODS                                                                                \
    {"lrusim_mix", loadgen_lrusim_mix, METH_VARARGS,                                                          \
     "lrusim_mix(pages, flags, n_pages, leaf_pages, capacity, pool_pages, old_pct, old_time_ms, "             \
     "ms_per_op, ra_threshold, ra_area, ra_rule, start_pages, start_freed, batch, tick_depth, "               \
     "tick_phase_ms, tick_period_ms, ticks) -> ((refs, misses, made_young, not_young, read_ahead, "           \
     "read_ahead_evicted, dirty_evicted, dirty_at_end, filler_reads), bytes of uint32 reads per page)"},     \
    {"mixsim_open", loadgen_mixsim_open, METH_VARARGS,                                                              \
     "mixsim_open(n_pages, leaf_pages, capacity, ... as lrusim_mix after flags) -> the state of a simulation "   \
     "fed a piece at a time"},                                                                                \
    {"mixsim_feed", loadgen_mixsim_feed, METH_VARARGS,                                                              \
     "mixsim_feed(state, pages, flags): the next piece of the trace (GIL released)"},                            \
    {"mixsim_close", loadgen_mixsim_close, METH_O, "mixsim_close(state) -> what lrusim_mix returns over the pieces"}, \
    {"mixsim_peek", loadgen_mixsim_peek, METH_O, "mixsim_peek(state) -> mixsim_close's so far, the state kept"},  \
    {"mixmini_open", loadgen_mixmini_open, METH_VARARGS,                                                            \
     "mixmini_open(map, rate, salt, more_ones, (mixsim_open's arguments)) -> a miniature's state: map[page] "     \
     "its simulated page or -1, the first table's extents sampled at rate (salt), more_ones sampled pages "      \
     "after its leaves[, pin, pin_share[, scale_leaves: the scale is the sampled share of these first "         \
     "leaves, 0: of all]]"},                                                                                  \
    {"mixmini_feed", loadgen_mixmini_feed, METH_VARARGS,                                                            \
     "mixmini_feed(state, pages, flags): the next piece of the trace, unsampled pages dropped"},                 \
    {"mixmini_feed_group", loadgen_mixmini_feed_group, METH_VARARGS,                                                \
     "mixmini_feed_group(states, pages, flags) -> references dropped as pinned in all: mixmini_feed of each "    \
     "miniature of the tuple (one map), the piece looked up once (native/lrusim/squeeze.h)"},                                                   \
    {"mixmini_close", loadgen_mixmini_close, METH_O,                                                              \
     "mixmini_close(state) -> (what mixsim_close returns, dirty evictions of sampled pages)"},                   \
    {"mix_mark", loadgen_mix_mark, METH_VARARGS, "mix_mark(seen, pages): seen[page] = 1 for every page"},
/* clang-format on */

#endif /* LOADGEN_MIXSIM_H */
