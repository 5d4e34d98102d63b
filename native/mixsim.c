/*
 * lrusim_mix (mixsim.h): the arguments checked (a bad one is a ValueError), the GIL released
 * around the kernel, the counters and the per-page reads built back; mixsim_open / mixsim_feed /
 * mixsim_close: the same simulation fed a piece at a time (a capsule holds its state).
 */
#include "mixsim.h"

#include <stdlib.h>
#include <string.h>

#include "lrusim/miniature.h"
#include "lrusim/mix.h"
#include "lrusim/squeeze.h"

#define MIX_CAPSULE "loadgen.mix_state"
#define MINI_CAPSULE "loadgen.mix_mini"

typedef struct {
    unsigned long long n_pages, leaf_pages;
    sim_cfg_t cfg;
    lru_params_t params;
    uint64_t ibuf[2]; /* MySQL's change buffer: (max_entries, merge_pages a second); {0, 0}: none */
} mix_args_t;

/* The pool's arguments (after the trace's, at args[skip..]) parsed and checked; 0, or -1 with an
 * exception set. */
static int parse_pool(PyObject *args, mix_args_t *a, const char *fmt, Py_buffer *pv, Py_buffer *fv) {
    unsigned long long cap, pp, ra_threshold, area, start, freed, batch, tdepth, ticks, clean_scan = 0, fl_batch = 0;
    unsigned long long ibuf_max = 0, ibuf_merge = 0, fl_io = 0;
    double old_pct, old_time_ms, ms_per_op, tphase, tperiod;
    int ra_rule, ok;
    if (pv)
        ok = PyArg_ParseTuple(args, fmt, pv, fv, &a->n_pages, &a->leaf_pages, &cap, &pp, &old_pct, &old_time_ms,
                              &ms_per_op, &ra_threshold, &area, &ra_rule, &start, &freed, &batch, &tdepth, &tphase,
                              &tperiod, &ticks, &clean_scan, &fl_batch, &ibuf_max, &ibuf_merge, &fl_io);
    else
        ok = PyArg_ParseTuple(args, fmt, &a->n_pages, &a->leaf_pages, &cap, &pp, &old_pct, &old_time_ms, &ms_per_op,
                              &ra_threshold, &area, &ra_rule, &start, &freed, &batch, &tdepth, &tphase, &tperiod,
                              &ticks, &clean_scan, &fl_batch, &ibuf_max, &ibuf_merge, &fl_io);
    if (!ok)
        return -1;
    const char *bad = NULL;
    if (a->n_pages < 1 || a->n_pages >= NIL || a->leaf_pages > a->n_pages || cap < 1)
        bad = "need 1 <= n_pages < 2**32 - 1, leaf_pages <= n_pages and capacity >= 1";
    else if (ra_threshold > EXTENT_PAGES || area < 1 || area > EXTENT_PAGES || (area & (area - 1)))
        bad = "ra_threshold must be within 0..64 and ra_area a power of two up to 64";
    else if (old_pct < 5 || old_pct > 95)
        bad = "old_pct must be within 5..95 (innodb_old_blocks_pct)";
    else if (ra_rule != RA_RULE_MARIADB && ra_rule != RA_RULE_MYSQL)
        bad = "ra_rule must be 0 (MariaDB) or 1 (MySQL)";
    else if (clean_scan > NIL)
        bad = "clean_scan must be below 2**32";
    else if (ra_threshold && a->leaf_pages < 1)
        bad = "read-ahead needs leaf_pages >= 1 (physical page numbers)";
    if (bad) {
        if (pv) {
            PyBuffer_Release(pv);
            PyBuffer_Release(fv);
        }
        PyErr_SetString(PyExc_ValueError, bad);
        return -1;
    }
    a->cfg = (sim_cfg_t){cap,    pp,     area,    1.0,   0,    start, freed,    batch,
                         tdepth, tphase, tperiod, ticks, NULL, 0,     fl_batch, fl_io}; /* exact */
    a->params = (lru_params_t){old_pct, old_time_ms, ms_per_op, ra_threshold, ra_rule, (uint32_t)clean_scan};
    a->ibuf[0] = ibuf_max;
    a->ibuf[1] = ibuf_merge;
    return 0;
}

/* The trace's buffers checked against the space: NULL, or the reason (buffers released). */
static const char *check_trace(Py_buffer *pv, Py_buffer *fv, uint64_t n_pages) {
    const char *bad = NULL;
    uint64_t n = (uint64_t)pv->len / 4;
    const uint32_t *pages = (const uint32_t *)pv->buf;
    if (pv->len % 4 || (uint64_t)fv->len != n)
        bad = "pages must be uint32 and flags one byte per page reference";
    for (uint64_t i = 0; !bad && i < n; i++)
        if (pages[i] >= n_pages)
            bad = "a page reference is not below n_pages";
    if (bad) {
        PyBuffer_Release(pv);
        PyBuffer_Release(fv);
    }
    return bad;
}

/* ((counters), bytes of uint32 reads per page) of an ended simulation; reads freed. */
static PyObject *result(const mix_counts_t *out, uint32_t *reads, uint64_t n_pages) {
    PyObject *per_page = PyBytes_FromStringAndSize((const char *)reads, (Py_ssize_t)(n_pages * sizeof(uint32_t)));
    free(reads);
    if (!per_page)
        return NULL;
    const lru_counts_t *k = &out->counts;
    return Py_BuildValue("((KKKKKKKKKKKKKK)N)", (unsigned long long)k->refs, (unsigned long long)k->misses,
                         (unsigned long long)k->made_young, (unsigned long long)k->not_young,
                         (unsigned long long)k->ra_pages, (unsigned long long)k->ra_evicted,
                         (unsigned long long)out->dirty_evicted, (unsigned long long)out->dirty_at_end,
                         (unsigned long long)out->filler_reads, (unsigned long long)out->single_flushes,
                         (unsigned long long)out->lru_batches, (unsigned long long)out->ibuf_buffered,
                         (unsigned long long)out->ibuf_merged, (unsigned long long)out->ibuf_merge_reads, per_page);
}

/* The recorded LRU batches (lrusim_mix's 25th argument, None or a buffer of uint64 pairs (queries
 * done, pages) sorted by queries done) into cfg: 0, or -1 with an exception set (view released). */
static int take_seen(PyObject *obj, Py_buffer *view, sim_cfg_t *cfg) {
    if (obj == Py_None)
        return 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const uint64_t *s = view->buf;
    size_t n = (size_t)view->len / (2 * sizeof(uint64_t));
    int ok = view->itemsize == sizeof(uint64_t) && view->len % (Py_ssize_t)(2 * sizeof(uint64_t)) == 0;
    for (size_t i = 1; ok && i < n; i++)
        ok = s[2 * i] >= s[2 * i - 2];
    if (!ok) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "seen: uint64 pairs (queries done, pages), sorted by queries done");
        return -1;
    }
    cfg->seen = s;
    cfg->n_seen = n;
    return 0;
}

PyObject *loadgen_lrusim_mix(PyObject *self, PyObject *args) {
    Py_buffer pv, fv, seen = {0};
    mix_args_t a;
    mix_counts_t out;
    int rc;
    /* an optional 25th argument: the run's recorded LRU batches, replayed where they were seen */
    Py_ssize_t n_args = PyTuple_Size(args);
    PyObject *pool_args = n_args == 25 ? PyTuple_GetSlice(args, 0, 24) : (Py_INCREF(args), args);
    if (!pool_args)
        return NULL;
    rc = parse_pool(pool_args, &a, "y*y*KKKKdddKKiKKKKddK|KKKKK", &pv, &fv);
    Py_DECREF(pool_args);
    if (rc < 0)
        return NULL;
    const char *bad = check_trace(&pv, &fv, a.n_pages);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    if (n_args == 25 && take_seen(PyTuple_GET_ITEM(args, 24), &seen, &a.cfg) < 0) {
        PyBuffer_Release(&pv);
        PyBuffer_Release(&fv);
        return NULL;
    }
    uint32_t *reads = calloc(a.n_pages, sizeof(uint32_t));
    if (!reads) {
        PyBuffer_Release(&pv);
        PyBuffer_Release(&fv);
        if (seen.obj)
            PyBuffer_Release(&seen);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    rc = lrusim_mix((const uint32_t *)pv.buf, (const uint8_t *)fv.buf, (uint64_t)pv.len / 4, &a.cfg, &a.params,
                    a.n_pages, a.leaf_pages, a.ibuf, &out, reads);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    if (seen.obj)
        PyBuffer_Release(&seen);
    if (rc < 0) {
        free(reads);
        return PyErr_NoMemory();
    }
    return result(&out, reads, a.n_pages);
}

static void drop_state(PyObject *capsule) {
    mix_state_t *s = PyCapsule_GetPointer(capsule, MIX_CAPSULE);
    if (s) {
        mix_free(s);
        free(s);
    }
}

/* A feed's trace for a state found (found != 0) whose space has n_pages: 0, or -1 with an
 * exception set (a closed state's already) and the buffers released. */
static int feed_trace(int found, Py_buffer *pv, Py_buffer *fv, uint64_t n_pages) {
    if (!found) {
        PyBuffer_Release(pv);
        PyBuffer_Release(fv);
        return -1;
    }
    const char *bad = check_trace(pv, fv, n_pages);
    if (bad)
        PyErr_SetString(PyExc_ValueError, bad);
    return bad ? -1 : 0;
}

PyObject *loadgen_mixsim_open(PyObject *self, PyObject *args) {
    mix_args_t a;
    if (parse_pool(args, &a, "KKKKdddKKiKKKKddK|KKKKK", NULL, NULL) < 0)
        return NULL;
    mix_state_t *s = malloc(sizeof(*s));
    if (!s || mix_begin(s, &a.cfg, &a.params, a.n_pages, a.leaf_pages) < 0 ||
        (a.ibuf[0] && mix_ibuf(s, a.ibuf[0], a.ibuf[1]) < 0)) {
        free(s);
        return PyErr_NoMemory();
    }
    PyObject *capsule = PyCapsule_New(s, MIX_CAPSULE, drop_state);
    if (!capsule) {
        mix_free(s);
        free(s);
    }
    return capsule;
}

/* The capsule's state, or NULL with an exception (not a state, or one already closed). */
static mix_state_t *state_of(PyObject *capsule) {
    mix_state_t *s = PyCapsule_GetPointer(capsule, MIX_CAPSULE);
    if (s && !s->live) {
        PyErr_SetString(PyExc_ValueError, "the simulation was closed");
        return NULL;
    }
    return s;
}

PyObject *loadgen_mixsim_feed(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer pv, fv;
    if (!PyArg_ParseTuple(args, "Oy*y*", &capsule, &pv, &fv))
        return NULL;
    mix_state_t *s = state_of(capsule);
    if (feed_trace(s != NULL, &pv, &fv, s ? s->n_pages : 0) < 0)
        return NULL;
    /* one caller at a time per state (loadgen/analysis/tracesim.py feeds each from one task) */
    Py_BEGIN_ALLOW_THREADS
    mix_feed(s, (const uint32_t *)pv.buf, (const uint8_t *)fv.buf, (uint64_t)pv.len / 4);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    Py_RETURN_NONE;
}

PyObject *loadgen_mixsim_close(PyObject *self, PyObject *capsule) {
    mix_state_t *s = state_of(capsule);
    if (!s)
        return NULL;
    uint64_t n_pages = s->n_pages;
    uint32_t *reads = calloc(n_pages, sizeof(uint32_t));
    if (!reads)
        return PyErr_NoMemory();
    mix_counts_t out;
    mix_end(s, &out, reads);
    return result(&out, reads, n_pages);
}

PyObject *loadgen_mixsim_peek(PyObject *self, PyObject *capsule) {
    mix_state_t *s = state_of(capsule);
    if (!s)
        return NULL;
    uint32_t *reads = calloc(s->n_pages, sizeof(uint32_t));
    if (!reads)
        return PyErr_NoMemory();
    mix_counts_t out;
    mix_peek(s, &out, reads);
    return result(&out, reads, s->n_pages);
}

/* A miniature of a mix's pool (loadgen/analysis/tracesample.py): the simulation and the map of the
 * space's pages to its own (-1: not sampled). */
typedef struct {
    mix_state_t s;
    int32_t *map;
    uint64_t n_map;
    pagemap_t pm; /* the map as the feed looks it up (pagemap.h) */
    squeeze_t sq; /* the group's squeezed piece, when this state leads mixmini_feed_group's group */
} mini_state_t;

static void drop_mini(PyObject *capsule) {
    mini_state_t *x = PyCapsule_GetPointer(capsule, MINI_CAPSULE);
    if (x) {
        mix_free(&x->s);
        pagemap_free(&x->pm);
        squeeze_free(&x->sq);
        free(x->map);
        free(x);
    }
}

/* The map must agree with the kernel's sample of the first table's extents (its leaves are
 * renumbered as read-ahead sees them) and name simulated pages only: NULL, or the reason. */
static const char *check_map(const mini_state_t *x, uint64_t leaf_pages, uint64_t more_ones) {
    const lru_t *m = &x->s.m;
    if (x->n_map < leaf_pages)
        return "the map must cover the first table's leaves";
    if (m->leaf_pages + more_ones > m->n_pages)
        return "more sampled pages than the miniature simulates";
    for (uint64_t p = 0; p < x->n_map; p++) {
        int32_t q = x->map[p];
        if (q < -1 || (q >= 0 && (uint64_t)q >= m->n_pages))
            return "a mapped page is not below the miniature's pages";
        if (p < leaf_pages && q != (m->mini ? mini_map(m, (uint32_t)p) : (int32_t)p))
            return "the map's first-table leaves are not the kernel's sample";
        if (p >= leaf_pages && q >= 0 && (uint64_t)q < m->leaf_pages)
            return "a page past the first table's leaves is mapped onto them";
    }
    return NULL;
}

PyObject *loadgen_mixmini_open(PyObject *self, PyObject *args) {
    Py_buffer mv, cv = {0};
    PyObject *pool;
    double pin_share = 0;
    double rate;
    unsigned long long salt, more_ones, scale_leaves = 0;
    mix_args_t a;
    if (!PyArg_ParseTuple(args, "y*dKKO!|y*dK", &mv, &rate, &salt, &more_ones, &PyTuple_Type, &pool, &cv, &pin_share,
                          &scale_leaves))
        return NULL;
    if (parse_pool(pool, &a, "KKKKdddKKiKKKKddK|KKKKK", NULL, NULL) < 0 || mv.len % 4 || !(rate > 0) ||
        !(pin_share >= 0 && pin_share < 1)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "the map must be int32, the rate above 0, the pinned share in [0, 1)");
        PyBuffer_Release(&mv);
        if (cv.obj)
            PyBuffer_Release(&cv);
        return NULL;
    }
    a.cfg.rate = rate;
    a.cfg.salt = salt;
    a.cfg.scale_leaves = scale_leaves;
    mini_state_t *x = calloc(1, sizeof(*x));
    if (x)
        x->map = malloc(mv.len ? (size_t)mv.len : 1);
    if (!x || !x->map || mix_begin(&x->s, &a.cfg, &a.params, a.n_pages, a.leaf_pages) < 0) {
        if (x)
            free(x->map);
        free(x);
        PyBuffer_Release(&mv);
        if (cv.obj)
            PyBuffer_Release(&cv);
        return PyErr_NoMemory();
    }
    memcpy(x->map, mv.buf, (size_t)mv.len);
    x->n_map = (uint64_t)mv.len / 4;
    PyBuffer_Release(&mv);
    if (pagemap_build(&x->pm, x->map, x->n_map) < 0) {
        mix_free(&x->s);
        free(x->map);
        free(x);
        if (cv.obj)
            PyBuffer_Release(&cv);
        return PyErr_NoMemory();
    }
    x->s.m.one_end = x->s.m.leaf_pages + more_ones; /* the other sampled pages follow its leaves */
    const char *bad = check_map(x, a.leaf_pages, more_ones);
    if (!bad && cv.obj && pin_share > 0) {
        /* pinned pages: the kept ones only (past the sampled pages), as many as it simulates */
        const uint8_t *cand = cv.buf;
        if ((uint64_t)cv.len > x->s.m.n_pages)
            bad = "more pin candidates than the miniature simulates";
        for (uint64_t q = 0; !bad && q < (uint64_t)cv.len && q < x->s.m.one_end; q++)
            if (cand[q])
                bad = "a sampled page cannot be pinned";
        if (!bad && mix_pin(&x->s, cand, (uint64_t)cv.len, pin_share) < 0)
            bad = "no memory for the pinned pages";
    }
    if (cv.obj)
        PyBuffer_Release(&cv);
    PyObject *capsule = bad ? NULL : PyCapsule_New(x, MINI_CAPSULE, drop_mini);
    if (!capsule) {
        if (bad)
            PyErr_SetString(PyExc_ValueError, bad);
        mix_free(&x->s);
        pagemap_free(&x->pm);
        free(x->map);
        free(x);
    }
    return capsule;
}

static mini_state_t *mini_of(PyObject *capsule) {
    mini_state_t *x = PyCapsule_GetPointer(capsule, MINI_CAPSULE);
    if (x && !x->s.live) {
        PyErr_SetString(PyExc_ValueError, "the simulation was closed");
        return NULL;
    }
    return x;
}

PyObject *loadgen_mixmini_feed(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer pv, fv;
    if (!PyArg_ParseTuple(args, "Oy*y*", &capsule, &pv, &fv))
        return NULL;
    mini_state_t *x = mini_of(capsule);
    if (feed_trace(x != NULL, &pv, &fv, x ? x->n_map : 0) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    mix_feed_mapped(&x->s, (const uint32_t *)pv.buf, (const uint8_t *)fv.buf, (uint64_t)pv.len / 4, &x->pm);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    Py_RETURN_NONE;
}

#define MAX_GROUP 64 /* miniatures fed together: a curve's pools at one rate (a handful) */

/* The miniatures of a tuple of states, for one piece fed to all: NULL with an exception set
 * unless they are distinct, open and share one map. */
static mini_state_t *group_of(PyObject *states, mix_state_t **sims, Py_ssize_t *n) {
    *n = PyTuple_GET_SIZE(states);
    if (*n < 1 || *n > MAX_GROUP) {
        PyErr_SetString(PyExc_ValueError, "a group is 1 to 64 miniatures");
        return NULL;
    }
    mini_state_t *x0 = NULL;
    for (Py_ssize_t k = 0; k < *n; k++) {
        mini_state_t *x = mini_of(PyTuple_GET_ITEM(states, k));
        if (!x)
            return NULL;
        const char *bad = NULL;
        if (!x0)
            x0 = x;
        else if (x->n_map != x0->n_map || memcmp(x->map, x0->map, x->n_map * sizeof(int32_t)) ||
                 x->s.m.n_pages != x0->s.m.n_pages || x->s.m.leaf_pages != x0->s.m.leaf_pages)
            bad = "the miniatures of a group must share one map";
        else if (x->s.now_ms != x0->s.now_ms || x->s.m.ms_per_query != x0->s.m.ms_per_query)
            bad = "the miniatures of a group must share one clock (the rate and the pieces fed)";
        for (Py_ssize_t j = 0; !bad && j < k; j++)
            if (sims[j] == &x->s)
                bad = "a miniature twice in a group";
        if (bad) {
            PyErr_SetString(PyExc_ValueError, bad);
            return NULL;
        }
        sims[k] = &x->s;
    }
    return x0;
}

PyObject *loadgen_mixmini_feed_group(PyObject *self, PyObject *args) {
    PyObject *states;
    Py_buffer pv, fv;
    if (!PyArg_ParseTuple(args, "O!y*y*", &PyTuple_Type, &states, &pv, &fv))
        return NULL;
    mix_state_t *sims[MAX_GROUP];
    Py_ssize_t n;
    mini_state_t *x0 = group_of(states, sims, &n);
    if (feed_trace(x0 != NULL, &pv, &fv, x0 ? x0->n_map : 0) < 0)
        return NULL;
    int rc;
    /* one caller at a time per group (tracesim.py feeds each group from one task) */
    Py_BEGIN_ALLOW_THREADS
    rc = mix_feed_group(&x0->sq, sims, (size_t)n, (const uint32_t *)pv.buf, (const uint8_t *)fv.buf,
                        (uint64_t)pv.len / 4, &x0->pm);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    if (rc < 0)
        return PyErr_NoMemory();
    return PyLong_FromUnsignedLongLong(x0->sq.dropped);
}

/* (what mixsim_close returns, the pages evicted dirty among the sampled ones). */
PyObject *loadgen_mixmini_close(PyObject *self, PyObject *capsule) {
    mini_state_t *x = mini_of(capsule);
    if (!x)
        return NULL;
    uint64_t n_pages = x->s.n_pages;
    uint32_t *reads = calloc(n_pages, sizeof(uint32_t));
    if (!reads)
        return PyErr_NoMemory();
    mix_counts_t out;
    mix_end(&x->s, &out, reads);
    squeeze_free(&x->sq);
    uint64_t evicted_one = x->s.evicted_one;
    return Py_BuildValue("(NK)", result(&out, reads, n_pages), (unsigned long long)evicted_one);
}

/* seen[page] = 1 for each page of the references (the distinct pages a miniature's estimate
 * counts exactly). */
PyObject *loadgen_mix_mark(PyObject *self, PyObject *args) {
    Py_buffer sv, pv;
    if (!PyArg_ParseTuple(args, "w*y*", &sv, &pv))
        return NULL;
    const uint32_t *pages = pv.buf;
    uint8_t *seen = sv.buf;
    uint64_t n = (uint64_t)pv.len / 4, n_seen = (uint64_t)sv.len, bad = pv.len % 4 != 0;
    Py_BEGIN_ALLOW_THREADS
    for (uint64_t i = 0; i < n; i++) {
        uint32_t p = pages[i];
        if (p < n_seen)
            seen[p] = 1;
        else
            bad = 1;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&sv);
    PyBuffer_Release(&pv);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "pages must be uint32 below the length of seen");
        return NULL;
    }
    Py_RETURN_NONE;
}

int loadgen_mixsim_exec(PyObject *module) {
    if (PyModule_AddIntConstant(module, "MIX_MOVE", MIX_MOVE) < 0 ||
        PyModule_AddIntConstant(module, "MIX_WRITE", MIX_WRITE) < 0 ||
        PyModule_AddIntConstant(module, "MIX_OP", MIX_OP) < 0 ||
        PyModule_AddIntConstant(module, "MIX_NEW", MIX_NEW) < 0 ||
        PyModule_AddIntConstant(module, "MIX_BUFFER", MIX_BUFFER) < 0 ||
        PyModule_AddIntConstant(module, "MIX_PURGE", MIX_PURGE) < 0)
        return -1;
    return 0;
}
