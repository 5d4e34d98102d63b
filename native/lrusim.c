/*
 * Python bindings of the buffer-pool simulator (the kernel: native/lrusim/, kernel.h): the
 * arguments parsed and checked (a bad one is a ValueError), the GIL released around the kernel,
 * the results built back into Python objects, and the kernel's constants exported to the module.
 * loadgen/native.py wraps these; loadgen/analysis/ (model.py, curve.py, keymodel.py) calls them.
 */
#include "lrusim.h"

#include <stdlib.h>

#include "lrusim/kernel.h"

#define ERR_LEN 160

static int check_lru_args(unsigned long long n_pages, double old_pct, unsigned long long ra_threshold) {
    if (ra_threshold > EXTENT_PAGES) {
        PyErr_SetString(PyExc_ValueError, "ra_threshold must be within 0..64");
        return -1;
    }
    if (n_pages < 1 || n_pages >= NIL) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1");
        return -1;
    }
    if (old_pct < 5 || old_pct > 95) {
        PyErr_SetString(PyExc_ValueError, "old_pct must be within 5..95 (innodb_old_blocks_pct)");
        return -1;
    }
    return 0;
}

static int check_area(unsigned long long ra_area) {
    if (ra_area < 1 || ra_area > EXTENT_PAGES || (ra_area & (ra_area - 1))) {
        PyErr_SetString(PyExc_ValueError, "ra_threshold must be within 0..64 and ra_area a power of two up to 64");
        return -1;
    }
    return 0;
}

static int check_rule(int ra_rule) {
    if (ra_rule != RA_RULE_MARIADB && ra_rule != RA_RULE_MYSQL) {
        PyErr_SetString(PyExc_ValueError, "ra_rule must be 0 (MariaDB) or 1 (MySQL)");
        return -1;
    }
    return 0;
}

/* The source of a workload tuple (order, rows, stride, reps, leaf_pages, height, fanout[, moves]),
 * or, when py_workload is None, of py_trace, a buffer of uint32 page numbers: then view holds it
 * until the caller releases it (view->obj is NULL otherwise). -1 with an exception set. */
static int source_from(source_t *s, PyObject *py_trace, PyObject *py_workload, Py_buffer *view, uint64_t n_pages) {
    char err[ERR_LEN];
    view->obj = NULL;
    if (py_workload != Py_None) {
        unsigned long long rows, stride, reps, leaf, fanout;
        int order, height, moves = 0;
        if (!PyArg_ParseTuple(py_workload, "iKKKKiK|p", &order, &rows, &stride, &reps, &leaf, &height, &fanout, &moves))
            return -1;
        workload_t w = {order, rows, stride, reps, leaf, height, fanout, moves};
        if (source_init_workload(s, &w, n_pages, err, sizeof(err)) == 0)
            return 0;
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    if (PyObject_GetBuffer(py_trace, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len % 4) {
        PyErr_SetString(PyExc_ValueError, "trace must be a buffer of uint32");
    } else if (source_init_trace(s, (const uint32_t *)view->buf, (uint64_t)view->len / 4, n_pages, err, sizeof(err)) <
               0) {
        PyErr_SetString(PyExc_ValueError, err);
    } else {
        return 0;
    }
    PyBuffer_Release(view);
    return -1;
}

static void release(Py_buffer *view) {
    if (view->obj)
        PyBuffer_Release(view);
}

/* A histogram of n_pages + 1 counters as bytes of uint64. */
static PyObject *hist_bytes(const uint64_t *hist, uint64_t n_pages) {
    return PyBytes_FromStringAndSize((const char *)hist, (Py_ssize_t)((n_pages + 1) * sizeof(uint64_t)));
}

/* Append item to list and drop the caller's reference; -1 when item is NULL or the append fails. */
static int append_new(PyObject *list, PyObject *item) {
    int rc = item ? PyList_Append(list, item) : -1;
    Py_XDECREF(item);
    return rc;
}

PyObject *loadgen_lrusim_innodb(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_seen = Py_None;
    unsigned long long n_pages, cap, pp, ra_threshold = 0, area = EXTENT_PAGES, start = 0, freed = 0;
    unsigned long long batch = 0, tdepth = 0, ticks = 1, trace_leaf_pages = 0;
    double old_pct, old_time_ms, ms_per_query, tphase = 0, tperiod = 1000;
    int collapse = 1, ra_rule = RA_RULE_MARIADB, rc;
    source_t src;
    Py_buffer view, seen = {0};
    lru_counts_t out;

    if (!PyArg_ParseTuple(args, "OOKKKddd|KKpiKKKKddKKO", &py_trace, &py_workload, &n_pages, &cap, &pp, &old_pct,
                          &old_time_ms, &ms_per_query, &ra_threshold, &area, &collapse, &ra_rule, &start, &freed,
                          &batch, &tdepth, &tphase, &tperiod, &ticks, &trace_leaf_pages, &py_seen))
        return NULL;
    if (check_lru_args(n_pages, old_pct, ra_threshold) < 0 || check_area(area) < 0)
        return NULL;
    /* a bare trace has physical page numbers only when its leaves are pages 0..trace_leaf_pages-1
     * of a PK-ordered table (loadgen/analysis/keymodel.py); MySQL's trigger needs nothing else,
     * MariaDB's needs the leaf steps only a workload has */
    if (ra_threshold && py_workload == Py_None &&
        !(ra_rule == RA_RULE_MYSQL && trace_leaf_pages >= 1 && trace_leaf_pages <= n_pages)) {
        PyErr_SetString(PyExc_ValueError, "read-ahead needs a workload (physical page numbers)");
        return NULL;
    }
    if (cap < 1) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1 and capacity >= 1");
        return NULL;
    }
    if (source_from(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    if (check_rule(ra_rule) < 0) {
        release(&view);
        return NULL;
    }
    sim_cfg_t cfg = {cap,    pp,     area,    1.0,   0,    start, freed, batch,
                     tdepth, tphase, tperiod, ticks, NULL, 0,     0}; /* rate 1: exact */
    lru_params_t params = {old_pct, old_time_ms, ms_per_query, ra_threshold, ra_rule, 0};
    if (py_seen != Py_None) { /* the recorded LRU batches: uint64 pairs (queries done, pages), by queries done */
        if (PyObject_GetBuffer(py_seen, &seen, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            release(&view);
            return NULL;
        }
        const uint64_t *s = seen.buf;
        size_t n = (size_t)seen.len / (2 * sizeof(uint64_t));
        int ok = seen.itemsize == sizeof(uint64_t) && seen.len % (Py_ssize_t)(2 * sizeof(uint64_t)) == 0;
        for (size_t i = 1; ok && i < n; i++)
            ok = s[2 * i] >= s[2 * i - 2];
        if (!ok) {
            PyBuffer_Release(&seen);
            release(&view);
            PyErr_SetString(PyExc_ValueError, "seen: uint64 pairs (queries done, pages), sorted by queries done");
            return NULL;
        }
        cfg.seen = s;
        cfg.n_seen = n;
    }

    Py_BEGIN_ALLOW_THREADS
    rc = lrusim_innodb(&src, &cfg, &params, n_pages, trace_leaf_pages, collapse, &out);
    Py_END_ALLOW_THREADS

    if (seen.obj)
        PyBuffer_Release(&seen);
    release(&view);
    if (rc < 0)
        return PyErr_NoMemory();
    loadgen_debug("lrusim_innodb: %llu refs, %llu misses", (unsigned long long)out.refs,
                  (unsigned long long)out.misses);
    return Py_BuildValue("(KKKKKK)", (unsigned long long)out.refs, (unsigned long long)out.misses,
                         (unsigned long long)out.made_young, (unsigned long long)out.not_young,
                         (unsigned long long)out.ra_pages, (unsigned long long)out.ra_evicted);
}

PyObject *loadgen_lrusim_mattson(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_hist = NULL;
    unsigned long long n_pages;
    source_t src;
    Py_buffer view;
    uint64_t *hist;
    int rc = -1;

    if (!PyArg_ParseTuple(args, "OOK", &py_trace, &py_workload, &n_pages))
        return NULL;
    if (n_pages < 1 || n_pages >= NIL) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1");
        return NULL;
    }
    if (source_from(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    hist = calloc(n_pages + 1, sizeof(uint64_t));
    if (hist) {
        Py_BEGIN_ALLOW_THREADS
        rc = lrusim_mattson(&src, n_pages, hist);
        Py_END_ALLOW_THREADS
    }
    release(&view);
    if (rc < 0)
        PyErr_NoMemory();
    else
        py_hist = hist_bytes(hist, n_pages);
    free(hist);
    return py_hist;
}

/* A pool of lrusim_curve: (capacity, pool_pages, ra_area, rate, salt[, start_pages, start_freed,
 * batch, tick_depth, tick_phase_ms, tick_period_ms, ticks]); -1 with an exception set. */
static int pool_from(PyObject *py_pool, sim_cfg_t *cfg) {
    unsigned long long cap, pp, area, salt, start = 0, freed = 0, batch = 0, tdepth = 0, ticks = 1;
    double rate, tphase = 0, tperiod = 1000;
    if (!PyArg_ParseTuple(py_pool, "KKKdK|KKKKddK", &cap, &pp, &area, &rate, &salt, &start, &freed, &batch, &tdepth,
                          &tphase, &tperiod, &ticks))
        return -1;
    if (cap < 1 || rate <= 0 || check_area(area) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "need capacity >= 1 and rate > 0");
        return -1;
    }
    *cfg = (sim_cfg_t){cap, pp, area, rate, salt, start, freed, batch, tdepth, tphase, tperiod, ticks, NULL, 0, 0, 0};
    return 0;
}

/* One pool's tuple of lrusim_curve's list. */
static PyObject *point_tuple(const curve_point_t *pt) {
    const lru_counts_t *c = &pt->counts;
    return Py_BuildValue(
        "(KKKKKKKKddKKKKK)", (unsigned long long)c->refs, (unsigned long long)c->misses,
        (unsigned long long)c->made_young, (unsigned long long)c->not_young, (unsigned long long)c->ra_pages,
        (unsigned long long)c->ra_evicted, (unsigned long long)pt->sampled_units, (unsigned long long)pt->total_units,
        pt->sum_y, pt->sum_y2, (unsigned long long)pt->upper_misses, (unsigned long long)pt->leaf_misses,
        (unsigned long long)pt->leaf_touched, (unsigned long long)pt->capacity, (unsigned long long)pt->upper_touched);
}

/* lrusim_curve(trace, workload, n_pages, leaf_pages, old_pct, old_time_ms, ms_per_query,
 *              ra_threshold, [pool, ...][, ra_rule, plain_lru])
 * Several pools in one pass over the workload, each exact (rate >= 1) or a miniature (pool_from).
 * Per pool: (refs, misses, made_young, not_young, ra_pages, ra_evicted, sampled_units, total_units,
 * sum_y, sum_y2, upper_misses, leaf_misses, leaf_touched, capacity_simulated, upper_touched); then
 * (distinct leaves the workload touches, its page references), both exact; with plain_lru, then
 * the plain-LRU stack-distance histogram of the same trace without its leaf steps (what
 * lrusim_mattson gives for the workload without moves), from the same pass. */
PyObject *loadgen_lrusim_curve(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_pools, *py_result = NULL;
    unsigned long long n_pages, leaf_pages, ra_threshold;
    double old_pct, old_time_ms, ms_per_query;
    int ra_rule = RA_RULE_MARIADB, plain_lru = 0, rc, failed = 0;
    source_t src;
    Py_buffer view;
    lru_params_t params;
    sim_cfg_t *cfgs = NULL;
    curve_point_t *points = NULL;
    uint64_t *hist = NULL, distinct = 0, refs = 0;
    Py_ssize_t n_pools;

    if (!PyArg_ParseTuple(args, "OOKKdddKO!|ip", &py_trace, &py_workload, &n_pages, &leaf_pages, &old_pct, &old_time_ms,
                          &ms_per_query, &ra_threshold, &PyList_Type, &py_pools, &ra_rule, &plain_lru))
        return NULL;
    if (check_rule(ra_rule) < 0 || check_lru_args(n_pages, old_pct, ra_threshold) < 0)
        return NULL;
    if (ra_threshold && py_workload == Py_None) {
        PyErr_SetString(PyExc_ValueError, "read-ahead needs a workload (physical page numbers)");
        return NULL;
    }
    if (source_from(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    if (src.workload)
        leaf_pages = src.leaf_pages;
    if (leaf_pages < 1 || leaf_pages > n_pages) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= leaf_pages <= n_pages");
        goto done;
    }
    n_pools = PyList_GET_SIZE(py_pools);
    cfgs = calloc(n_pools ? (size_t)n_pools : 1, sizeof(sim_cfg_t));
    points = calloc(n_pools ? (size_t)n_pools : 1, sizeof(curve_point_t));
    hist = plain_lru ? calloc(n_pages + 1, sizeof(uint64_t)) : NULL;
    if (!cfgs || !points || (plain_lru && !hist)) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_pools; i++)
        if (pool_from(PyList_GET_ITEM(py_pools, i), &cfgs[i]) < 0)
            goto done;
    params = (lru_params_t){old_pct, old_time_ms, ms_per_query, ra_threshold, ra_rule, 0};

    Py_BEGIN_ALLOW_THREADS
    rc = lrusim_curve(&src, &params, n_pages, leaf_pages, cfgs, (size_t)n_pools, points, &distinct, &refs, hist);
    Py_END_ALLOW_THREADS

    if (rc < 0) {
        PyErr_NoMemory();
        goto done;
    }
    py_result = PyList_New(0);
    if (!py_result)
        goto done;
    for (Py_ssize_t i = 0; i < n_pools && !failed; i++)
        failed = append_new(py_result, point_tuple(&points[i])) < 0;
    failed = failed ||
             append_new(py_result, Py_BuildValue("(KK)", (unsigned long long)distinct, (unsigned long long)refs)) < 0;
    failed = failed || (plain_lru && append_new(py_result, hist_bytes(hist, n_pages)) < 0);
    if (failed)
        Py_CLEAR(py_result);
done:
    free(cfgs);
    free(points);
    free(hist);
    release(&view);
    return py_result;
}

/* The kernel's constants the Python side needs (loadgen/native.py lrusim_constants). */
int loadgen_lrusim_exec(PyObject *module) {
#define KERNEL_CONSTANT(name) \
    { "LRUSIM_" #name, name }
    static const struct {
        const char *name;
        long value;
    } constants[] = {
        KERNEL_CONSTANT(OLD_MIN_LEN),   KERNEL_CONSTANT(OLD_TOLERANCE), KERNEL_CONSTANT(NON_OLD_MIN_LEN),
        KERNEL_CONSTANT(RATIO_DIV),     KERNEL_CONSTANT(LRU_MIN_LEN),   KERNEL_CONSTANT(FILLER_SLOTS),
        KERNEL_CONSTANT(EXTENT_PAGES),  KERNEL_CONSTANT(MAX_HEIGHT),    KERNEL_CONSTANT(RA_RULE_MARIADB),
        KERNEL_CONSTANT(RA_RULE_MYSQL),
    };
#undef KERNEL_CONSTANT
    for (size_t i = 0; i < sizeof(constants) / sizeof(constants[0]); i++)
        if (PyModule_AddIntConstant(module, constants[i].name, constants[i].value) < 0)
            return -1;
    return 0;
}
