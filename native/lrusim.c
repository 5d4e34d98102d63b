/*
 * Buffer-pool simulation kernels (the hot loops of loadgen/model.py).
 *
 * lrusim_innodb replays a page trace through InnoDB's LRU as MariaDB 10.11 / MySQL 8 implement it
 * (storage/innobase/buf/buf0lru.cc, include/buf0buf.ic; docs/innodb.md, "The LRU rules the model uses"):
 *  - new pages go to the head of the old sublist once the list holds BUF_LRU_OLD_MIN_LEN pages,
 *    to the head of the list before that;
 *  - buf_LRU_old_adjust_len keeps the old sublist within BUF_LRU_OLD_TOLERANCE of
 *    old_pct*1024/100 / 1024 of the list, moving the boundary (which makes pages young without
 *    an access: how a cold pool's young region fills);
 *  - no page moves while nothing has been evicted (freed_page_clock == 0: warm-up);
 *  - an old page is made young only when accessed >= old_time_ms after its first access;
 *  - a young page moves back to the head only after drifting more than a quarter of the young
 *    region (measured with freed_page_clock).
 * The free-page reserve of the page cleaner is the caller's business: `capacity` is the number
 * of data pages the pool holds, `pool_pages` the pool size used by the young-drift rule.
 *
 * Linear read-ahead (optional, workload mode; MariaDB 10.11.19 as measured, docs/innodb.md,
 * "The LRU rules the model uses"): the leaves sit on physical pages 4..35, then 64.. with the XDES/ibuf-bitmap
 * extent at every 16,384 pages skipped. A point select only checks read-ahead when it steps to
 * the next leaf (btr_pcur_move_to_next_page): when the id is the first key of leaf p (the PAGE_CUR_L
 * descent lands on p-1's supremum) or the last key of leaf p (it reads on to p+1). If that is
 * the page's first access and it is the last page of its read-ahead area (64 pages, fewer for
 * pools under 2,048 pages), the area's pages are checked as buf_read_ahead_linear does: a page
 * not resident, not accessed, or accessed before its predecessor is a failure, and
 * min(64 - threshold, area) failures abort. Otherwise the next area's leaves that are not resident
 * are read into the old sublist without an access time; each counts as a read.
 *
 * lrusim_mattson gives plain LRU for every pool size in one pass: a Fenwick tree over access
 * times counts the distinct pages touched since a page's previous access (its stack distance).
 *
 * Both read either a uint32 page trace (any buffer) or a workload description, which they expand
 * themselves in chunks so the seed's 60M-reference trace never has to exist in memory.
 */
#include "lrusim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define OLD_MIN_LEN 512   /* BUF_LRU_OLD_MIN_LEN */
#define OLD_TOLERANCE 20  /* BUF_LRU_OLD_TOLERANCE */
#define NON_OLD_MIN_LEN 5 /* BUF_LRU_NON_OLD_MIN_LEN */
#define RATIO_DIV 1024    /* BUF_LRU_OLD_RATIO_DIV */
#define LRU_MIN_LEN 256   /* BUF_LRU_MIN_LEN: the page cleaner's LRU batch stops there */
#define CLOCK_TICKS 65536.0 /* a miniature's freed-page clock: ticks per page of weight */

/* ---- trace sources: runs of identical queries ------------------------------------------- */

enum { ORDER_INTERLEAVED = 0, ORDER_LOOPED = 1, ORDER_SEQUENTIAL = 2 };

#define MAX_PATH 18
#define RUN_CHUNK 2048

/* k consecutive queries (q0..q0+k-1) that each reference the same pages in the same order.
 * Consecutive ids on one leaf share the whole root-to-leaf path, so the seed's 20M queries are
 * ~1.6M runs; a bare trace gives one run per stretch of identical references. */
typedef struct {
    uint32_t pages[MAX_PATH];
    uint8_t mv[MAX_PATH]; /* the reference is a step to the next leaf (read-ahead's trigger) */
    int8_t stepped;       /* the page only a leaf step reads (the other leaf), -1: none */
    int n;
    uint64_t q0, k;
} run_t;

typedef struct {
    /* workload mode */
    int workload;
    int order;
    uint64_t rows, stride, reps, leaf_pages, fanout;
    int height;
    int moves;                      /* emit the leaf a point select steps to at a page boundary */
    uint64_t jitter;                /* a leaf starts up to this many ids off the even spread */
    uint64_t n_ids, n_passes, pass, k; /* next id index k of pass `pass` */
    uint32_t level_base[16];        /* first page number of each level above the leaves */
    /* Ids only grow within a pass, so the leaf of the next id is found by walking forward from
     * the last one (cur, whose first id is cur_start, the next leaf's cur_next) instead of a
     * search per run: that search was 60% of an exact simulation. Only where leaf starts
     * strictly increase (rows >= leaves), as leaf_of assumes; else leaf_of. */
    int cursor;
    int narrow;                     /* 2 * leaves * rows fits 64 bits: no 128-bit division */
    uint64_t cur, cur_start, cur_next;
    /* the next leaf's even-spread start, floor((2k rows + L) / 2L), kept as quotient and
     * remainder and stepped by 2 rows: no division per leaf */
    uint64_t nk, nq, nr, step_q, step_r;
    uint64_t path_lo, path_hi; /* leaves under the cached upper path (empty at first) */
    uint32_t path[16];
    int path_n;
    /* trace mode */
    const uint32_t *trace;
    uint64_t trace_len, pos;
} source_t;

/* Page numbers: leaves 0..L-1, then level 1, level 2, ..., the root last. Returns n_pages. */
static uint64_t source_layout(source_t *s) {
    uint64_t n = s->leaf_pages, total = s->leaf_pages, below = s->leaf_pages;
    for (int lvl = 1; lvl < s->height; lvl++) {
        s->level_base[lvl] = (uint32_t)total;
        n = lvl == s->height - 1 ? 1 : (below + s->fanout - 1) / s->fanout;
        total += n;
        below = n;
    }
    return total;
}

/* splitmix64's finaliser: a strong 64-bit mixer (a weak one sampled contiguous ids unevenly). */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The first id on leaf k. Real leaves hold a varying number of rows (121-125 in chat, from the
 * row lengths), so a leaf starts up to `jitter` ids away from k * rows / L: that decides which
 * selects hit a leaf's first or last key, where read-ahead is checked. An even spread would make
 * that a fixed arithmetic pattern (with 122.5 rows per leaf, never on the last leaf of an area). */
static inline int64_t leaf_jitter(const source_t *s, uint64_t k) {
    if (s->jitter == 2) /* the usual case: a constant divisor */
        return (int64_t)(mix64(k) % 5) - 2;
    return s->jitter ? (int64_t)(mix64(k) % (2 * s->jitter + 1)) - (int64_t)s->jitter : 0;
}

static uint64_t leaf_start(const source_t *s, uint64_t k) {
    if (k == 0)
        return 1;
    if (k >= s->leaf_pages)
        return s->rows + 1;
    uint64_t even = s->narrow ? (2 * k * s->rows + s->leaf_pages) / (2 * s->leaf_pages)
                              : (uint64_t)(((unsigned __int128)2 * k * s->rows + s->leaf_pages) / (2 * s->leaf_pages));
    return (uint64_t)((int64_t)(1 + even) + leaf_jitter(s, k));
}

/* The cursor's next leaf start (leaf_start(s, s->nk + 1)), stepping nk. */
static uint64_t cursor_step(source_t *s) {
    s->nk++;
    s->nq += s->step_q;
    s->nr += s->step_r;
    if (s->nr >= 2 * s->leaf_pages) {
        s->nr -= 2 * s->leaf_pages;
        s->nq++;
    }
    if (s->nk >= s->leaf_pages)
        return s->rows + 1;
    return (uint64_t)((int64_t)(1 + s->nq) + leaf_jitter(s, s->nk));
}

static uint64_t leaf_of(const source_t *s, uint64_t id) {
    /* near floor((id-1) * L / rows): leaves cover the dense primary key in order */
    uint64_t k = (uint64_t)(((unsigned __int128)(id - 1) * s->leaf_pages) / s->rows);
    while (k + 1 < s->leaf_pages && leaf_start(s, k + 1) <= id)
        k++;
    while (k > 0 && leaf_start(s, k) > id)
        k--;
    return k;
}

/* x / stride: the seed's stride 10 as a constant divisor (a multiply, not a division) */
static inline uint64_t div_stride(const source_t *s, uint64_t x) {
    return s->stride == 10 ? x / 10 : s->stride == 1 ? x : x / s->stride;
}

/* The next run, or 0 at the end. In workload mode a run is the ids of one pass that land on
 * one leaf (each query of the interleaved order repeated reps times); with moves, an id that is
 * the first or last key of its leaf is a run of its own, since its path has a second leaf. */
static int source_next(source_t *s, run_t *r) {
    if (!s->workload) {
        if (s->pos >= s->trace_len)
            return 0;
        uint32_t p = s->trace[s->pos];
        uint64_t e = s->pos + 1;
        while (e < s->trace_len && s->trace[e] == p)
            e++;
        r->n = 1;
        r->pages[0] = p;
        r->mv[0] = 0;
        r->stepped = -1;
        r->q0 = s->pos;
        r->k = e - s->pos;
        s->pos = e;
        return 1;
    }
    if (s->pass >= s->n_passes)
        return 0;
    uint64_t k = s->k, id = 1 + k * s->stride, leaf, start, next_start;
    if (s->cursor) {
        if (k == 0) { /* a new pass starts at the first leaf */
            s->cur = 0;
            s->cur_start = 1;
            s->cur_next = leaf_start(s, 1);
            s->nk = 1;
            s->nq = (uint64_t)(((unsigned __int128)2 * s->rows + s->leaf_pages) / (2 * s->leaf_pages));
            s->nr = (uint64_t)(((unsigned __int128)2 * s->rows + s->leaf_pages) % (2 * s->leaf_pages));
        }
        while (s->cur_next <= id) {
            s->cur++;
            s->cur_start = s->cur_next;
            s->cur_next = cursor_step(s);
        }
        leaf = s->cur;
        start = s->cur_start;
        next_start = s->cur_next;
    } else {
        leaf = leaf_of(s, id);
        start = leaf_start(s, leaf);
        next_start = leaf_start(s, leaf + 1);
    }
    int n = 0;
    if (!(leaf >= s->path_lo && leaf < s->path_hi)) {
        /* the pages above the leaf change only when it crosses into another level-1 page */
        uint64_t idx[16];
        idx[0] = leaf;
        for (int lvl = 1; lvl < s->height; lvl++)
            idx[lvl] = lvl == s->height - 1 ? 0 : idx[lvl - 1] / s->fanout;
        s->path_n = 0;
        for (int lvl = s->height - 1; lvl >= 1; lvl--) /* root first, like a B-tree descent */
            s->path[s->path_n++] = s->level_base[lvl] + (uint32_t)idx[lvl];
        s->path_lo = s->height > 2 ? idx[1] * s->fanout : 0;
        s->path_hi = s->height > 2 ? s->path_lo + s->fanout : UINT64_MAX;
    }
    for (int i = 0; i < s->path_n; i++) {
        r->mv[n] = 0;
        r->pages[n++] = s->path[i];
    }
    uint64_t first = leaf, second = leaf;
    /* (with starts strictly increasing, leaf_of(id - 1) != leaf is id == start, and
     * leaf_of(id + 1) != leaf is id + 1 == next_start) */
    if (s->moves && leaf > 0 && id >= 2 && (s->cursor ? id == start : leaf_of(s, id - 1) != leaf))
        first = leaf - 1; /* first key of the leaf: lands on the previous leaf's supremum */
    else if (s->moves && leaf + 1 < s->leaf_pages && id < s->rows &&
             (s->cursor ? id + 1 == next_start : leaf_of(s, id + 1) != leaf))
        second = leaf + 1; /* last key of the leaf: reads on to the next one */
    r->stepped = -1;
    if (second != first)
        r->stepped = (int8_t)(first == leaf ? n + 1 : n);
    r->mv[n] = 0;
    r->pages[n++] = (uint32_t)first;
    if (second != first) {
        r->mv[n] = 1;
        r->pages[n++] = (uint32_t)second;
    }
    r->n = n;
    uint64_t nk = 1;
    if (first == second) {
        /* ids on this leaf: id - 1 < t, t = the next leaf's first id - 1 */
        uint64_t t = next_start - 1;
        uint64_t kend = div_stride(s, t + s->stride - 1);
        if (kend > s->n_ids)
            kend = s->n_ids;
        /* with moves, the leaf's last key (id = t) starts a run of its own */
        uint64_t kt = t >= 1 ? div_stride(s, t - 1) : 0;
        if (s->moves && t >= 1 && t - 1 == kt * s->stride && kt > k && kt < kend)
            kend = kt;
        nk = kend - k;
    }
    if (s->order == ORDER_INTERLEAVED) {
        r->q0 = k * s->reps;
        r->k = nk * s->reps;
    } else {
        r->q0 = s->pass * s->n_ids + k;
        r->k = nk;
    }
    s->k += nk;
    if (s->k >= s->n_ids) {
        s->k = 0;
        s->pass++;
    }
    return 1;
}

/* workload = (order, rows, stride, reps, leaf_pages, height, fanout[, moves]) or None;
 * trace = buffer or None */
static int source_init(source_t *s, PyObject *py_trace, PyObject *py_workload, Py_buffer *view,
                       uint64_t n_pages) {
    memset(s, 0, sizeof(*s));
    view->obj = NULL;
    if (py_workload != Py_None) {
        unsigned long long rows, stride, reps, leaf, fanout;
        int order, height, moves = 0;
        if (!PyArg_ParseTuple(py_workload, "iKKKKiK|p", &order, &rows, &stride, &reps, &leaf,
                              &height, &fanout, &moves))
            return -1;
        if (order < 0 || order > 2 || rows < 1 || stride < 1 || reps < 1 || leaf < 1 ||
            height < 1 || height > 15 || fanout < 2) {
            PyErr_SetString(PyExc_ValueError, "bad workload tuple");
            return -1;
        }
        s->workload = 1;
        s->order = order;
        s->rows = rows;
        s->stride = stride;
        s->reps = order == ORDER_SEQUENTIAL ? 1 : reps;
        s->leaf_pages = leaf;
        s->height = height;
        s->fanout = fanout;
        s->moves = moves;
        s->n_ids = (rows - 1) / stride + 1;
        /* +-2 rows where leaves hold 5+ rows; less where fewer, so starts stay increasing */
        s->jitter = rows / leaf >= 5 ? 2 : rows / leaf >= 3 ? 1 : 0;
        s->n_passes = order == ORDER_LOOPED ? s->reps : 1;
        s->cursor = rows >= leaf;
        s->step_q = 2 * rows / (2 * leaf);
        s->step_r = 2 * rows % (2 * leaf);
        s->narrow = leaf < (1ULL << 31) && rows < (1ULL << 31);
        if (source_layout(s) != n_pages) {
            PyErr_Format(PyExc_ValueError, "n_pages %llu does not match the workload's %llu",
                         (unsigned long long)n_pages, (unsigned long long)source_layout(s));
            return -1;
        }
        return 0;
    }
    if (PyObject_GetBuffer(py_trace, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len % 4) {
        PyErr_SetString(PyExc_ValueError, "trace must be a buffer of uint32");
        PyBuffer_Release(view);
        return -1;
    }
    s->trace = (const uint32_t *)view->buf;
    s->trace_len = (uint64_t)view->len / 4;
    for (uint64_t i = 0; i < s->trace_len; i++) {
        if (s->trace[i] >= n_pages) {
            PyErr_Format(PyExc_ValueError, "trace[%llu] = %u is not below n_pages",
                         (unsigned long long)i, s->trace[i]);
            PyBuffer_Release(view);
            return -1;
        }
    }
    return 0;
}

/* ---- physical layout of the leaves -------------------------------------------------------- */

#define EXTENT_PAGES 64
#define XDES_PAGES 16384 /* an XDES/ibuf-bitmap extent starts every 16,384 pages */
#define FRAG_LEAVES 32   /* the first 32 leaves are the segment's fragment pages 4..35 */
#define ROOT_PHYS 3      /* the clustered index's root */
/* MySQL's read-ahead reads whole areas, so it also reads pages that are not leaves: the rest of
 * the first extent (36..63: the level-1 pages, then free fragment pages) and the rest of the last
 * leaf's extent. Each gets a slot (0..63: physical page; 64..127: pages after the last leaf). */
#define FILLER_SLOTS 128

enum { RA_RULE_MARIADB = 0, RA_RULE_MYSQL = 1 };

static uint64_t leaf_phys(uint64_t k) { /* physical page of leaf k */
    if (k < FRAG_LEAVES)
        return 4 + k;
    uint64_t j = k - FRAG_LEAVES;
    return EXTENT_PAGES + j + EXTENT_PAGES * (j / (XDES_PAGES - EXTENT_PAGES));
}

static int64_t phys_leaf_of(uint64_t page, uint64_t leaf_pages) { /* leaf on a page, or -1 */
    uint64_t k;
    if (page >= 4 && page < 4 + FRAG_LEAVES) {
        k = page - 4;
    } else {
        uint64_t block = page / XDES_PAGES, r = page % XDES_PAGES;
        if (r < EXTENT_PAGES)
            return -1; /* fsp header/fragment extent or an XDES extent */
        k = FRAG_LEAVES + block * (XDES_PAGES - EXTENT_PAGES) + r - EXTENT_PAGES;
    }
    return k < leaf_pages ? (int64_t)k : -1;
}


/* ---- InnoDB LRU ------------------------------------------------------------------------- */

/* A miniature (Waldspurger et al., ATC'17) keeps the leaves of the sampled units (64-page
 * physical extents, whole, so linear read-ahead still sees its areas) and every page above the
 * leaves (few and hot: sampling the root would weigh one page 1/R times). Sampled leaves are
 * renumbered 0..L'-1 and the sampled extents packed together, so the miniature is a smaller table
 * scanned the same way; upper pages follow as L'..L'+U-1. */
typedef struct {
    uint64_t n_units;      /* extents of the real table holding leaves */
    int32_t *unit_base;    /* first miniature leaf of each real extent, -1 if not sampled */
    uint32_t *unit_first;  /* first real leaf of each real extent */
    uint32_t *unit_rank;   /* packed position of each sampled extent */
    uint32_t *rank_unit;   /* real extent at each packed position */
    uint32_t *mini_real;   /* real leaf of each miniature leaf */
    uint64_t n_sampled_units, leaves, real_leaf_pages;
} mini_t;

typedef struct {
    uint32_t *prev, *next;
    uint8_t *resident, *old, *touched;
    uint32_t *nmiss;   /* reads of each page (misses and read-ahead) */
    double *access_ms; /* first access, < 0 when not accessed (InnoDB's access_time == 0) */
    uint64_t *fpc;     /* freed_page_clock when last put at the head */
    uint32_t head, tail, lru_old;
    uint64_t len, old_len, capacity, pool_pages, n_pages;
    double wlen, wcap, upper_w; /* capacity in leaf units: an upper page weighs upper_w */
    double wcap_lo;             /* a full pool is emptied down to this (the page cleaner's batch) */
    /* MySQL's timer-driven page cleaner (cleaner_tick): off when tick_depth == 0 */
    uint64_t tick_depth;        /* innodb_lru_scan_depth: free frames an LRU batch refills to */
    double tick_next_ms, tick_period_ms;
    uint64_t ticks_left;        /* batches still to come; 0 = one every period */
    uint64_t freed_page_clock;
    uint64_t old_ratio;
    double old_time_ms, ms_per_query;
    uint64_t refs, misses, made_young, not_young;
    /* linear read-ahead: off when ra_threshold == 0 */
    uint64_t ra_threshold, ra_area, leaf_pages;
    uint64_t ra_pages, ra_evicted;
    int ra_rule;            /* RA_RULE_MARIADB or RA_RULE_MYSQL */
    uint64_t n_alloc;       /* simulated pages: n_pages, then the filler slots, then start-up pages */
    uint64_t filler_base;   /* first filler slot: non-leaf pages MySQL's read-ahead reads */
    uint64_t tail_phys;     /* first physical page after the last leaf */
    uint64_t space_end;     /* physical pages in the file as read-ahead sees it (area must fit) */
    mini_t *mini; /* NULL: the whole table */
    int collapse;
    run_t pend; /* a run waiting for the next one, to merge identical paths */
    int32_t *map; /* real page -> simulated page, only in miniatures; -1 = not sampled */
    /* A miniature keeps the old sublist and the freed-page clock in weighted units, as the full
     * pool would see them (leaves 1, upper pages upper_w), with InnoDB's page-count constants
     * scaled by the sampling rate (weighted != 0; see sim_init). */
    int weighted;
    double wold_len;             /* weight of the old sublist */
    double w_tolerance, w_non_old_min, w_old_min; /* OLD_TOLERANCE etc. times the rate */
    double wbatch;               /* the page cleaner's batch times the rate */
    double wclock;               /* freed-page clock: weight of the pages evicted */
    uint64_t wquarter;           /* the drift rule's quarter of the young region, in clock ticks */
    int promote;                 /* promote a read-ahead burst's young pages at a batch (make_room) */
    int n_burst;                 /* pages of the read-ahead burst being read, -1 outside one */
    uint32_t burst[EXTENT_PAGES];
} lru_t;

/* Leaves and filler pages (they sit in sampled extents) weigh 1; pages above the leaves and the
 * start-up pages stand for all the real ones in a miniature's scaled pool. */
static inline double weight(const lru_t *m, uint32_t p) {
    if (p < m->leaf_pages || (p >= m->filler_base && p < m->filler_base + FILLER_SLOTS))
        return 1.0;
    return m->upper_w;
}

static void set_old_all(lru_t *m, uint8_t v) {
    for (uint32_t p = m->head; p != NIL; p = m->next[p])
        m->old[p] = v;
}

/* buf_LRU_old_adjust_len in weighted units (miniatures): the old sublist's weight within
 * w_tolerance of old_ratio of the list's weight. w_tolerance is at least half a leaf, so a
 * boundary move of one leaf cannot overshoot the band on the other side. */
static void adjust_len_w(lru_t *m) {
    double new_len = m->wlen * (double)m->old_ratio / RATIO_DIV;
    double cap = m->wlen - (m->w_tolerance + m->w_non_old_min);
    if (cap < new_len)
        new_len = cap;
    for (;;) {
        uint32_t o = m->lru_old;
        if (m->wold_len + m->w_tolerance < new_len && m->prev[o] != NIL) {
            m->lru_old = o = m->prev[o];
            m->wold_len += weight(m, o);
            m->old[o] = 1;
        } else if (m->wold_len > new_len + m->w_tolerance && m->next[o] != NIL) {
            m->lru_old = m->next[o];
            m->wold_len -= weight(m, o);
            m->old[o] = 0;
        } else {
            return;
        }
    }
}

static void adjust_len(lru_t *m) { /* buf_LRU_old_adjust_len */
    if (m->weighted) {
        adjust_len_w(m);
        return;
    }
    uint64_t new_len = m->len * m->old_ratio / RATIO_DIV;
    uint64_t cap = m->len - (OLD_TOLERANCE + NON_OLD_MIN_LEN);
    if (cap < new_len)
        new_len = cap;
    for (;;) {
        uint32_t o = m->lru_old;
        if (m->old_len + OLD_TOLERANCE < new_len) {
            m->lru_old = o = m->prev[o];
            m->old_len++;
            m->old[o] = 1;
        } else if (m->old_len > new_len + OLD_TOLERANCE) {
            m->lru_old = m->next[o];
            m->old_len--;
            m->old[o] = 0;
        } else {
            return;
        }
    }
}

static void old_init(lru_t *m) { /* buf_LRU_old_init */
    set_old_all(m, 1);
    m->lru_old = m->head;
    m->old_len = m->len;
    m->wold_len = m->wlen;
    adjust_len(m);
}

/* The list is long enough for an old sublist (BUF_LRU_OLD_MIN_LEN pages; in a miniature, that
 * many pages' weight at full scale). */
static inline int long_enough(const lru_t *m) {
    return m->weighted ? m->wlen >= m->w_old_min : m->len >= OLD_MIN_LEN;
}

static void unlink_page(lru_t *m, uint32_t p) {
    uint32_t pr = m->prev[p], nx = m->next[p];
    if (pr != NIL)
        m->next[pr] = nx;
    else
        m->head = nx;
    if (nx != NIL)
        m->prev[nx] = pr;
    else
        m->tail = pr;
    m->len--;
    m->wlen -= weight(m, p);
}

static void remove_block(lru_t *m, uint32_t p) { /* buf_LRU_remove_block */
    if (m->lru_old == p && long_enough(m)) {
        uint32_t pr = m->prev[p];
        m->lru_old = pr;
        m->old[pr] = 1;
        m->old_len++;
        m->wold_len += weight(m, pr);
    }
    unlink_page(m, p);
    if (!long_enough(m)) {
        if (m->lru_old != NIL)
            set_old_all(m, 0);
        m->lru_old = NIL;
        m->old_len = 0;
        m->wold_len = 0;
        m->old[p] = 0;
        return;
    }
    if (m->old[p]) {
        m->old_len--;
        m->wold_len -= weight(m, p);
    }
    m->old[p] = 0;
    adjust_len(m);
}

static void add_block(lru_t *m, uint32_t p, int old) { /* buf_LRU_add_block_low */
    if (!old || !long_enough(m) || (m->weighted && m->lru_old == NIL)) {
        m->prev[p] = NIL;
        m->next[p] = m->head;
        if (m->head != NIL)
            m->prev[m->head] = p;
        else
            m->tail = p;
        m->head = p;
        m->fpc[p] = m->weighted ? (uint64_t)(m->wclock * CLOCK_TICKS) : m->freed_page_clock & ((1ULL << 31) - 1);
    } else {
        uint32_t o = m->lru_old, nx = m->next[o];
        m->prev[p] = o;
        m->next[p] = nx;
        m->next[o] = p;
        if (nx != NIL)
            m->prev[nx] = p;
        else
            m->tail = p;
        m->old_len++;
        m->wold_len += weight(m, p);
    }
    m->len++;
    m->wlen += weight(m, p);
    if (m->weighted) {
        if (m->lru_old != NIL) {
            m->old[p] = (uint8_t)old;
            adjust_len(m);
        } else if (long_enough(m)) {
            old_init(m);
        } else {
            m->old[p] = 0;
        }
        return;
    }
    if (m->len > OLD_MIN_LEN) {
        m->old[p] = (uint8_t)old;
        adjust_len(m);
    } else if (m->len == OLD_MIN_LEN) {
        old_init(m);
    } else {
        m->old[p] = m->lru_old != NIL;
    }
}

/* buf_page_peek_if_young's drift rule: young unless it drifted > 1/4 of the young region */
static inline int drifted(const lru_t *m, uint32_t p) {
    if (m->weighted)
        return !((uint64_t)(m->wclock * CLOCK_TICKS) < m->fpc[p] + m->wquarter);
    uint64_t quarter = m->pool_pages * (RATIO_DIV - m->old_ratio) / (RATIO_DIV * 4);
    return !((m->freed_page_clock & ((1ULL << 31) - 1)) < m->fpc[p] + quarter);
}

static int too_old(lru_t *m, uint32_t p, double now_ms) { /* buf_page_peek_if_too_old */
    if (m->freed_page_clock == 0)
        return 0; /* warm-up: nothing was evicted yet, nothing moves */
    if (m->old_time_ms > 0 && m->old[p]) {
        if (m->access_ms[p] >= 0 && now_ms - m->access_ms[p] >= m->old_time_ms)
            return 1;
        m->not_young++;
        return 0;
    }
    return drifted(m, p);
}

/* Evict the page at the LRU tail (buf_LRU_free_page). */
static void evict_tail(lru_t *m) {
    uint32_t victim = m->tail;
    remove_block(m, victim);
    m->resident[victim] = 0;
    if (m->access_ms[victim] < 0)
        m->ra_evicted++; /* read ahead, never used */
    m->access_ms[victim] = -1;
    m->freed_page_clock++;
    m->wclock += weight(m, victim);
}

/* A free frame for a page of weight w about to be read. A full pool is emptied from the tail
 * down to wcap_lo: MariaDB's page cleaner frees pages in batches (the free list swings between
 * innodb_lru_scan_depth/2 and innodb_lru_scan_depth), so the LRU list shrinks and regrows, and
 * the old/young boundary moves with it (wcap_lo == wcap: one page per read). */
static void make_room(lru_t *m, double w) {
    if (!(m->len > 0 && m->wlen + w > m->wcap))
        return;
    /* a miniature frees its batch's weight, batch x rate, without rounding it to pages */
    double lo = m->weighted && m->wbatch > 0 ? m->wcap - m->wbatch + w : m->wcap_lo;
    if (m->n_burst > 0 && m->wlen + w > lo) {
        /* A batch inside a read-ahead burst of a miniature. At full scale the burst is a small
         * part of one batch cycle and its pages are accessed before the next batch: those the
         * boundary made young move to the head then (their first access finds them drifted).
         * The miniature's burst spans several batches; do those moves now, before this batch
         * turns them old again. */
        for (int i = 0; i < m->n_burst; i++) {
            uint32_t q = m->burst[i];
            if (m->resident[q] && !m->old[q] && m->access_ms[q] < 0 && m->head != q) {
                remove_block(m, q);
                add_block(m, q, 0);
            }
        }
    }
    while (m->len > 0 && m->wlen + w > lo)
        evict_tail(m);
}

/* MySQL 8.0-9.x's page cleaner, on the clock: buf_flush_page_coordinator_thread wakes about once
 * a second and, when the server saw activity, has buf_flush_LRU_list_batch evict clean pages from
 * the LRU tail until innodb_lru_scan_depth frames are free, at most that many pages, and never
 * below BUF_LRU_MIN_LEN pages (docs/innodb.md, "The page cleaner"). A read-only workload is
 * no activity (srv_check_activity), so on the lab's runs one batch landed, in the run's first
 * second: the caller sets when (phase), how often and how many. The user threads meanwhile free
 * one page per read (make_room). Quiet stretches between two accesses run the batch once: a
 * second one would find the frames already free. */
static void cleaner_tick(lru_t *m, double now_ms) {
    uint64_t n = 0;
    while (m->len > LRU_MIN_LEN && n < m->tick_depth && m->wcap - m->wlen < (double)m->tick_depth) {
        evict_tail(m);
        n++;
    }
    if (m->ticks_left == 1) {
        m->tick_depth = 0; /* the last batch */
        return;
    }
    if (m->ticks_left > 1)
        m->ticks_left--;
    if (m->tick_period_ms <= 0) {
        m->tick_depth = 0;
        return;
    }
    while (m->tick_next_ms <= now_ms)
        m->tick_next_ms += m->tick_period_ms;
}

/* ---- linear read-ahead ------------------------------------------------------------------ */

static uint64_t sim_leaf_phys(const lru_t *m, uint64_t p) { /* physical page of simulated leaf p */
    if (!m->mini)
        return leaf_phys(p);
    uint64_t ph = leaf_phys(m->mini->mini_real[p]);
    return (uint64_t)m->mini->unit_rank[ph / EXTENT_PAGES] * EXTENT_PAGES + ph % EXTENT_PAGES;
}

static int64_t sim_phys_leaf(const lru_t *m, uint64_t page) { /* simulated leaf on a page, or -1 */
    if (!m->mini)
        return phys_leaf_of(page, m->leaf_pages);
    const mini_t *x = m->mini;
    uint64_t r = page / EXTENT_PAGES;
    if (r >= x->n_sampled_units)
        return -1;
    uint64_t u = x->rank_unit[r];
    int64_t k = phys_leaf_of(u * EXTENT_PAGES + page % EXTENT_PAGES, x->real_leaf_pages);
    return k < 0 ? -1 : x->unit_base[u] + (k - (int64_t)x->unit_first[u]);
}

/* buf_read_ahead_linear on the first access of leaf p (already resident and accessed). */
static void read_ahead(lru_t *m, uint32_t p) {
    uint64_t area = m->ra_area, high = sim_leaf_phys(m, p);
    if (high % area != area - 1 || p == 0 || p + 1 >= m->leaf_pages)
        return; /* not the last page of its area; FIL_PAGE_PREV/NEXT is FIL_NULL */
    uint64_t budget = EXTENT_PAGES - m->ra_threshold;
    if (budget > area)
        budget = area;
    double prev = -1;
    for (uint64_t page = high + 1 - area; page <= high; page++) {
        int64_t k = sim_phys_leaf(m, page);
        int fail;
        if (k < 0 || !m->resident[k] || m->access_ms[k] < 0) {
            fail = 1;
        } else {
            fail = prev >= 0 && prev > m->access_ms[k];
            prev = m->access_ms[k];
        }
        if (fail && !--budget)
            return;
    }
    if (m->promote)
        m->n_burst = 0;
    for (uint64_t page = high + 1; page <= high + area; page++) {
        int64_t k = sim_phys_leaf(m, page);
        if (k < 0 || m->resident[k])
            continue;
        m->misses++;
        m->ra_pages++;
        m->nmiss[k]++;
        make_room(m, 1.0);
        m->resident[k] = 1;
        m->access_ms[k] = -1;
        add_block(m, (uint32_t)k, 1);
        if (m->promote)
            m->burst[m->n_burst++] = (uint32_t)k;
    }
    m->n_burst = -1;
}

/* The simulated page on physical page `page` for MySQL's read-ahead (in a miniature, `page` is
 * packed: the sampled extents side by side), or -1: a page the model has no slot for. Pages above
 * the leaves sit where a PK-ordered load puts them: the root on page 3, the others on the first
 * extent's free fragment pages from 36 on. */
static int64_t sim_page_at(const lru_t *m, uint64_t page) {
    uint64_t real = page, real_leaves = m->leaf_pages;
    const mini_t *x = m->mini;
    if (x) {
        uint64_t r = page / EXTENT_PAGES;
        if (r >= x->n_sampled_units)
            return -1;
        real = (uint64_t)x->rank_unit[r] * EXTENT_PAGES + page % EXTENT_PAGES;
        real_leaves = x->real_leaf_pages;
    }
    int64_t k = phys_leaf_of(real, real_leaves);
    if (k >= 0 && x) {
        uint64_t u = x->rank_unit[page / EXTENT_PAGES];
        return (int64_t)x->unit_base[u] + (k - (int64_t)x->unit_first[u]);
    }
    if (k >= 0)
        return k;
    uint64_t upper = m->n_pages - m->leaf_pages; /* pages above the leaves, the root last */
    if (real == ROOT_PHYS && upper)
        return (int64_t)(m->n_pages - 1);
    if (real < EXTENT_PAGES) {
        if (real >= 4 + FRAG_LEAVES && real - (4 + FRAG_LEAVES) + 1 < upper)
            return (int64_t)(m->leaf_pages + real - (4 + FRAG_LEAVES));
        return (int64_t)(m->filler_base + real);
    }
    if (real >= m->tail_phys && real < m->tail_phys + EXTENT_PAGES - 1 && real % XDES_PAGES >= EXTENT_PAGES)
        return (int64_t)(m->filler_base + EXTENT_PAGES + (real - m->tail_phys));
    return -1;
}

/* Read page k ahead: into the old sublist, without an access time. */
static void read_in_ahead(lru_t *m, uint32_t k) {
    m->misses++;
    m->ra_pages++;
    m->nmiss[k]++;
    make_room(m, weight(m, k));
    m->resident[k] = 1;
    m->access_ms[k] = -1;
    add_block(m, k, 1);
}

/* buf_read_ahead_linear as MySQL 8.0-9.x runs it, on the first access of any page (buf_page_get_gen):
 * the page must be the first or last of its area; at most min(64 - threshold, area) pages of the
 * area may be unaccessed (or not resident) or accessed out of order (a first access earlier than
 * the previous accessed page's when ascending, later when descending; equal times pass); the page's
 * FIL_PAGE_NEXT (last page) or FIL_PAGE_PREV (first page) must name a page at a border of its own
 * area, which must lie inside the file; then every page of that area not in the pool is read
 * (except ibuf bitmap pages), leaves or not. */
static void read_ahead_mysql(lru_t *m, uint32_t p) {
    uint64_t area = m->ra_area, page = sim_leaf_phys(m, p);
    uint64_t low = page / area * area, high = low + area;
    if (page != low && page != high - 1)
        return;
    int asc = page == high - 1 ? 1 : -1;
    uint64_t threshold = EXTENT_PAGES - m->ra_threshold, fails = 0;
    if (threshold > area)
        threshold = area;
    double pred = 0;
    int have_pred = 0;
    for (uint64_t i = low; i < high; i++) {
        int64_t k = sim_page_at(m, i);
        if (k < 0 || !m->resident[k] || m->access_ms[k] < 0) {
            fails++;
        } else {
            if (have_pred) {
                double t = m->access_ms[k];
                int res = t == pred ? 0 : t < pred ? -1 : 1;
                if (res != 0 && res != asc)
                    fails++;
            }
            pred = m->access_ms[k];
            have_pred = 1;
        }
        if (fails > threshold)
            return;
    }
    uint64_t next;
    if (page == low && p + 1 < m->leaf_pages && sim_leaf_phys(m, p + 1) == page + 1) {
        if (p == 0)
            return; /* FIL_PAGE_PREV is FIL_NULL */
        next = sim_leaf_phys(m, p - 1);
    } else if (page == high - 1 && p > 0 && sim_leaf_phys(m, p - 1) == page - 1) {
        if (p + 1 >= m->leaf_pages)
            return; /* FIL_PAGE_NEXT is FIL_NULL */
        next = sim_leaf_phys(m, p + 1);
    } else {
        return;
    }
    low = next / area * area;
    high = low + area;
    if ((next != low && next != high - 1) || high > m->space_end)
        return;
    for (uint64_t i = low; i < high; i++) {
        if (!m->mini && i % XDES_PAGES == 1)
            continue; /* an ibuf bitmap page */
        int64_t k = sim_page_at(m, i);
        if (k >= 0 && !m->resident[k])
            read_in_ahead(m, (uint32_t)k);
    }
}

static inline void lru_access(lru_t *m, uint32_t p, double now_ms, int move) {
    if (m->tick_depth && now_ms >= m->tick_next_ms)
        cleaner_tick(m, now_ms);
    int first = !m->resident[p] || m->access_ms[p] < 0;
    m->refs++;
    m->touched[p] = 1;
    if (m->resident[p]) {
        if (too_old(m, p, now_ms)) {
            if (m->old[p])
                m->made_young++;
            remove_block(m, p);
            add_block(m, p, 0);
        }
    } else {
        m->misses++;
        m->nmiss[p]++;
        make_room(m, weight(m, p));
        m->resident[p] = 1;
        m->access_ms[p] = -1;
        add_block(m, p, 1);
    }
    if (m->access_ms[p] < 0)
        m->access_ms[p] = now_ms;
    if (first && m->ra_threshold) {
        if (m->ra_rule == RA_RULE_MYSQL) {
            if (p < m->leaf_pages)
                read_ahead_mysql(m, p);
        } else if (move) {
            read_ahead(m, p);
        }
    }
}

/* ---- the collapse ------------------------------------------------------------------------ */

static inline int aged(const lru_t *m, uint32_t p, uint64_t q) {
    return (double)q * m->ms_per_query - m->access_ms[p] >= m->old_time_ms;
}

/* The first repeat j in [js, k) at which accessing p changes anything but the counters, or k.
 * While nothing changes, nothing is evicted, so the freed-page clock stands still and only time
 * moves: an old page waits for old_blocks_time, every other test gives the same answer again. */
static uint64_t next_event(const lru_t *m, uint32_t p, uint64_t q0, uint64_t js, uint64_t k) {
    if (!m->resident[p] || m->access_ms[p] < 0)
        return js; /* a read, or a first access (it sets the access time) */
    if (m->freed_page_clock == 0)
        return k; /* warm-up: nothing moves */
    if (m->old_time_ms > 0 && m->old[p]) {
        if (aged(m, p, q0 + js))
            return js;
        if (m->ms_per_query <= 0 || !aged(m, p, q0 + k - 1))
            return k;
        /* aged() is monotone in j: estimate, then settle on the exact floating-point answer */
        double x = (m->old_time_ms + m->access_ms[p]) / m->ms_per_query - (double)q0;
        uint64_t j = x <= (double)js ? js : x >= (double)(k - 1) ? k - 1 : (uint64_t)x;
        while (j > js && aged(m, p, q0 + j - 1))
            j--;
        while (j < k - 1 && !aged(m, p, q0 + j))
            j++;
        return j;
    }
    return drifted(m, p) ? js : k;
}

/* Accessing p changes nothing now: does it count in Innodb_buffer_pool_pages_not_made_young? */
static inline int counts_not_young(const lru_t *m, uint32_t p) {
    return m->freed_page_clock != 0 && m->old_time_ms > 0 && m->old[p];
}

/* Replay run r: its first query reference by reference; then the k-1 repeats, skipping from one
 * state-changing access to the next and counting the accesses in between (exact: tested equal
 * to the reference-by-reference replay). */
static void lru_run(lru_t *m, const run_t *r) {
    const int n = r->n;
    for (int i = 0; i < n; i++)
        lru_access(m, r->pages[i], (double)r->q0 * m->ms_per_query, r->mv[i]);
    if (!m->collapse) {
        for (uint64_t j = 1; j < r->k; j++)
            for (int i = 0; i < n; i++)
                lru_access(m, r->pages[i], (double)(r->q0 + j) * m->ms_per_query, r->mv[i]);
        return;
    }
    uint64_t j = 1;
    int pos = 0;
    while (j < r->k) {
        uint64_t best_j = r->k;
        int best_i = n;
        for (int i = 0; i < n; i++) {
            uint64_t js = i >= pos ? j : j + 1;
            if (js >= r->k)
                continue;
            uint64_t je = next_event(m, r->pages[i], r->q0, js, r->k);
            if (je < best_j || (je == best_j && i < best_i)) {
                best_j = je;
                best_i = i;
            }
        }
        for (int i = 0; i < n; i++) { /* the quiet accesses before (best_j, best_i) */
            uint64_t from = i >= pos ? j : j + 1;
            uint64_t to = i < best_i ? best_j + 1 : best_j;
            if (to > r->k)
                to = r->k;
            if (to > from) {
                m->refs += to - from;
                if (counts_not_young(m, r->pages[i]))
                    m->not_young += to - from;
            }
        }
        if (best_j >= r->k)
            break;
        lru_access(m, r->pages[best_i], (double)(r->q0 + best_j) * m->ms_per_query, r->mv[best_i]);
        j = best_j;
        pos = best_i + 1;
        if (pos == n) {
            j++;
            pos = 0;
        }
    }
}

/* The extent (64 physical pages) holding leaf k, and the first leaf of extent u (u >= 1 holds
 * leaves; extent 0 holds the 32 fragment leaves on pages 4..35). */
static inline uint64_t leaf_unit(uint64_t k) { return leaf_phys(k) / EXTENT_PAGES; }

static uint64_t unit_first_leaf(uint64_t u) {
    if (u == 0)
        return 0;
    uint64_t block = u * EXTENT_PAGES / XDES_PAGES, r = u * EXTENT_PAGES % XDES_PAGES;
    if (r < EXTENT_PAGES)
        return UINT64_MAX; /* an XDES extent: no leaves */
    return FRAG_LEAVES + block * (XDES_PAGES - EXTENT_PAGES) + r - EXTENT_PAGES;
}

/* Real page -> miniature page, -1 for a leaf of an extent not sampled (upper page p is
 * p - L + L'). */
static inline int32_t mini_map(const lru_t *m, uint32_t p) {
    const mini_t *x = m->mini;
    if (p >= x->real_leaf_pages)
        return (int32_t)(p - x->real_leaf_pages + x->leaves);
    uint64_t u = leaf_unit(p);
    int32_t b = x->unit_base[u];
    return b < 0 ? -1 : b + (int32_t)(p - x->unit_first[u]);
}

/* Feed one run of real page numbers: miniatures drop unsampled leaves and renumber the rest;
 * consecutive runs whose paths are then equal merge (the upper levels of unsampled leaves). */
static void sim_feed(lru_t *m, const run_t *r) {
    run_t t;
    const run_t *use = r;
    run_t *pd = &m->pend;
    if (m->mini) {
        /* fast path: no sampled leaf, and the upper levels are the waiting run's (upper page p
         * is simulated as p - L + L'): extend it */
        const mini_t *x = m->mini;
        int nu = r->n, hit = 0;
        while (nu > 0 && r->pages[nu - 1] < x->real_leaf_pages)
            nu--;
        for (int i = nu; i < r->n; i++)
            hit |= m->mini->unit_base[leaf_unit(r->pages[i])] >= 0;
        if (!hit && pd->k && pd->n == nu && pd->q0 + pd->k == r->q0) {
            int same = 1;
            for (int i = 0; i < nu && same; i++)
                same = r->pages[i] >= x->real_leaf_pages && !pd->mv[i] &&
                       pd->pages[i] == r->pages[i] - x->real_leaf_pages + x->leaves;
            if (same) {
                pd->k += r->k;
                return;
            }
        }
        t.n = 0;
        t.q0 = r->q0;
        t.k = r->k;
        for (int i = 0; i < r->n; i++) {
            int32_t p = mini_map(m, r->pages[i]);
            if (p >= 0) {
                t.pages[t.n] = (uint32_t)p;
                t.mv[t.n++] = r->mv[i];
            }
        }
        use = &t;
    }
    if (pd->k && pd->n == use->n && pd->q0 + pd->k == use->q0 &&
        !memcmp(pd->pages, use->pages, sizeof(uint32_t) * (size_t)use->n) &&
        !memcmp(pd->mv, use->mv, (size_t)use->n)) {
        pd->k += use->k;
        return;
    }
    if (pd->k && pd->n)
        lru_run(m, pd);
    *pd = *use;
}

static void sim_flush(lru_t *m) {
    if (m->pend.k && m->pend.n)
        lru_run(m, &m->pend);
    m->pend.k = 0;
}

static void mini_free(mini_t *x) {
    if (!x)
        return;
    free(x->unit_base);
    free(x->unit_first);
    free(x->unit_rank);
    free(x->rank_unit);
    free(x->mini_real);
    free(x);
}

static void sim_free(lru_t *m) {
    free(m->prev);
    free(m->next);
    free(m->resident);
    free(m->old);
    free(m->touched);
    free(m->nmiss);
    free(m->access_ms);
    free(m->fpc);
    free(m->map);
    mini_free(m->mini);
    memset(m, 0, sizeof(*m));
}

typedef struct {
    uint64_t capacity, pool_pages, ra_area;
    double rate; /* >= 1: the whole table */
    uint64_t salt;
    uint64_t start_pages; /* pages the server holds before the run (read while it started) */
    uint64_t start_freed; /* pages it evicted while starting: the freed-page clock at the run's start */
    uint64_t batch; /* pages freed at once when the pool is full (0 or 1: one per read) */
    /* MySQL's timed LRU batch (cleaner_tick): scan depth (0: none), first batch at phase_ms,
     * then every period_ms, ticks of them in all (0: no end) */
    uint64_t tick_depth;
    double tick_phase_ms, tick_period_ms;
    uint64_t ticks;
} sim_cfg_t;

/* Sample the extents whose mix64(extent ^ salt) falls under rate * 2^64 and build the maps: per
 * extent, not per leaf (a miniature of the seed case's 816k leaves was 6% of a curve's time). */
static int mini_build(lru_t *m, const sim_cfg_t *c, uint64_t leaf_pages, uint64_t n_pages) {
    mini_t *x = calloc(1, sizeof(mini_t));
    if (!x)
        return -1;
    m->mini = x;
    x->real_leaf_pages = leaf_pages;
    x->n_units = leaf_unit(leaf_pages - 1) + 1;
    x->unit_base = malloc(x->n_units * sizeof(int32_t));
    x->unit_first = malloc(x->n_units * sizeof(uint32_t));
    x->unit_rank = malloc(x->n_units * sizeof(uint32_t));
    x->rank_unit = malloc(x->n_units * sizeof(uint32_t));
    if (!x->unit_base || !x->unit_first || !x->unit_rank || !x->rank_unit)
        return -1;
    uint64_t thr = c->rate >= 1 ? UINT64_MAX : (uint64_t)(c->rate * 18446744073709551616.0);
    uint64_t leaves = 0;
    for (uint64_t u = 0; u < x->n_units; u++) {
        uint64_t first = unit_first_leaf(u);
        x->unit_base[u] = -1;
        x->unit_first[u] = UINT32_MAX;
        if (first >= leaf_pages)
            continue;
        x->unit_first[u] = (uint32_t)first;
        if (mix64(u ^ c->salt) < thr) {
            /* an extent holds 64 consecutive leaves (the first: the 32 fragment leaves) */
            uint64_t last = first + (u == 0 ? FRAG_LEAVES : EXTENT_PAGES);
            if (last > leaf_pages)
                last = leaf_pages;
            x->unit_base[u] = (int32_t)leaves;
            x->unit_rank[u] = (uint32_t)x->n_sampled_units;
            x->rank_unit[x->n_sampled_units++] = (uint32_t)u;
            leaves += last - first;
        }
    }
    x->leaves = leaves;
    x->mini_real = malloc((leaves ? leaves : 1) * sizeof(uint32_t));
    if (!x->mini_real)
        return -1;
    for (uint64_t r = 0; r < x->n_sampled_units; r++) {
        uint64_t u = x->rank_unit[r], base = (uint64_t)x->unit_base[u];
        uint64_t end = r + 1 < x->n_sampled_units ? (uint64_t)x->unit_base[x->rank_unit[r + 1]] : leaves;
        for (uint64_t i = base; i < end; i++)
            x->mini_real[i] = x->unit_first[u] + (uint32_t)(i - base);
    }
    m->map = NULL;
    (void)n_pages;
    return 0;
}

/* Set up one simulated pool; returns -1 on allocation failure. */
static int sim_init(lru_t *m, const sim_cfg_t *c, uint64_t n_pages, uint64_t leaf_pages,
                    double old_pct, double old_time_ms, double ms_per_query, uint64_t ra_threshold,
                    int collapse, int ra_rule) {
    memset(m, 0, sizeof(*m));
    uint64_t sim_pages = n_pages, sim_leaves = leaf_pages;
    double scale = 1.0;
    if (c->rate < 1) {
        if (mini_build(m, c, leaf_pages, n_pages) < 0)
            return -1;
        sim_leaves = m->mini->leaves;
        sim_pages = sim_leaves + (n_pages - leaf_pages);
        scale = (double)sim_leaves / (double)leaf_pages; /* the rate this draw realised */
        m->upper_w = scale;
    } else {
        m->upper_w = 1.0;
    }
    m->n_pages = sim_pages;
    m->filler_base = sim_pages;
    uint64_t n = m->n_alloc = sim_pages + FILLER_SLOTS + c->start_pages;
    if (n >= NIL)
        return -1;
    m->prev = malloc(n * sizeof(uint32_t));
    m->next = malloc(n * sizeof(uint32_t));
    m->resident = calloc(n, 1);
    m->old = calloc(n, 1);
    m->touched = calloc(n, 1);
    m->nmiss = calloc(n, sizeof(uint32_t));
    m->access_ms = malloc(n * sizeof(double));
    m->fpc = calloc(n, sizeof(uint64_t));
    if (!m->prev || !m->next || !m->resident || !m->old || !m->touched || !m->nmiss ||
        !m->access_ms || !m->fpc)
        return -1;
    m->head = m->tail = m->lru_old = NIL;
    if (c->rate < 1) {
        m->capacity = (uint64_t)((double)c->capacity * scale + 0.5);
        m->pool_pages = (uint64_t)((double)(c->pool_pages ? c->pool_pages : c->capacity) * scale + 0.5);
    } else {
        m->capacity = c->capacity;
        m->pool_pages = c->pool_pages ? c->pool_pages : c->capacity;
    }
    if (m->capacity < 1)
        m->capacity = 1;
    m->wcap = (double)m->capacity;
    {
        double b = c->rate < 1 ? (double)c->batch * scale : (double)c->batch;
        m->wcap_lo = b >= 1 && b < m->wcap ? m->wcap - (double)(uint64_t)(b + 0.5) + 1 : m->wcap;
    }
    /* innodb_old_blocks_pct -> LRU_old_ratio, as buf_LRU_old_ratio_update does */
    m->old_ratio = (uint64_t)(old_pct * RATIO_DIV / 100);
    m->old_time_ms = old_time_ms;
    m->ms_per_query = ms_per_query;
    m->tick_depth = c->tick_depth;
    m->tick_next_ms = c->tick_phase_ms;
    m->tick_period_ms = c->tick_period_ms;
    m->ticks_left = c->ticks;
    if (m->tick_depth)
        collapse = 0; /* the collapse skips time between accesses, where a batch may land */
    m->n_burst = -1;
    if (m->mini) {
        m->weighted = 1;
        m->w_tolerance = OLD_TOLERANCE * scale < 0.5 ? 0.5 : OLD_TOLERANCE * scale;
        m->w_non_old_min = NON_OLD_MIN_LEN * scale;
        m->w_old_min = OLD_MIN_LEN * scale;
        m->wbatch = c->batch > 1 ? (double)c->batch * scale : 0;
        m->promote = m->wbatch > 0 && ra_rule == RA_RULE_MARIADB;
        m->wquarter = (uint64_t)((double)(c->pool_pages ? c->pool_pages : c->capacity) * scale *
                                 (double)(RATIO_DIV - (uint64_t)(old_pct * RATIO_DIV / 100)) / (RATIO_DIV * 4) *
                                 CLOCK_TICKS);
    }
    m->ra_threshold = ra_threshold;
    m->ra_area = c->ra_area;
    m->leaf_pages = sim_leaves;
    m->collapse = collapse;
    m->ra_rule = ra_rule;
    /* the file holds the last leaf's extent whole (the lab: MySQL read it ahead in full) */
    m->tail_phys = leaf_phys(leaf_pages - 1) + 1;
    m->space_end = m->mini ? m->mini->n_sampled_units * EXTENT_PAGES
                           : (leaf_phys(leaf_pages - 1) / EXTENT_PAGES + 1) * EXTENT_PAGES;
    /* The pages the server read while it started (dictionary, undo, system pages) hold frames and
     * LRU positions before the first query; the workload never touches them. Evictions while it
     * started run the freed-page clock, which ends the warm-up freeze. */
    for (uint64_t i = 0; i < c->start_pages; i++) {
        uint32_t p = (uint32_t)(m->filler_base + FILLER_SLOTS + i);
        make_room(m, weight(m, p));
        m->resident[p] = 1;
        m->access_ms[p] = 0;
        add_block(m, p, 1);
    }
    m->freed_page_clock += c->start_freed;
    m->ra_evicted = 0;
    return 0;
}

/* Per sampled extent y = reads - distinct leaves touched (its re-reads): sum and sum of squares,
 * for the estimate and its standard error (Python: loadgen/model.py). */
static void sim_unit_stats(const lru_t *m, double *sum_y, double *sum_y2, uint64_t *upper_misses,
                           uint64_t *upper_touched, uint64_t *leaf_misses, uint64_t *leaf_touched) {
    *sum_y = *sum_y2 = 0;
    *upper_misses = *upper_touched = *leaf_misses = *leaf_touched = 0;
    for (uint64_t p = m->leaf_pages; p < m->n_pages; p++) {
        *upper_misses += m->nmiss[p];
        *upper_touched += m->touched[p];
    }
    uint64_t cur_unit = UINT64_MAX;
    double y = 0;
    for (uint64_t p = 0; p < m->leaf_pages; p++) {
        uint64_t u = sim_leaf_phys(m, p) / EXTENT_PAGES;
        if (u != cur_unit) {
            if (cur_unit != UINT64_MAX) {
                *sum_y += y;
                *sum_y2 += y * y;
            }
            cur_unit = u;
            y = 0;
        }
        y += (double)m->nmiss[p] - (double)m->touched[p];
        *leaf_misses += m->nmiss[p];
        *leaf_touched += m->touched[p];
    }
    if (cur_unit != UINT64_MAX) {
        *sum_y += y;
        *sum_y2 += y * y;
    }
}

static PyObject *check_lru_args(unsigned long long n_pages, double old_pct,
                                unsigned long long ra_threshold) {
    if (ra_threshold > EXTENT_PAGES) {
        PyErr_SetString(PyExc_ValueError, "ra_threshold must be within 0..64");
        return NULL;
    }
    if (n_pages < 1 || n_pages >= NIL) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1");
        return NULL;
    }
    if (old_pct < 5 || old_pct > 95) {
        PyErr_SetString(PyExc_ValueError, "old_pct must be within 5..95 (innodb_old_blocks_pct)");
        return NULL;
    }
    return Py_None;
}

static int check_area(unsigned long long ra_area) {
    if (ra_area < 1 || ra_area > EXTENT_PAGES || (ra_area & (ra_area - 1))) {
        PyErr_SetString(PyExc_ValueError,
                        "ra_threshold must be within 0..64 and ra_area a power of two up to 64");
        return -1;
    }
    return 0;
}

PyObject *loadgen_lrusim_innodb(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_result = NULL;
    unsigned long long n_pages, capacity, pool_pages, ra_threshold = 0, ra_area = EXTENT_PAGES;
    unsigned long long start_pages = 0, start_freed = 0;
    double old_pct, old_time_ms, ms_per_query;
    int collapse = 1, ra_rule = RA_RULE_MARIADB;
    unsigned long long batch = 0, tick_depth = 0, ticks = 1, trace_leaf_pages = 0;
    double tick_phase_ms = 0, tick_period_ms = 1000;
    source_t src;
    Py_buffer view;
    lru_t m;
    run_t r;

    memset(&m, 0, sizeof(m));
    if (!PyArg_ParseTuple(args, "OOKKKddd|KKpiKKKKddKK", &py_trace, &py_workload, &n_pages, &capacity,
                          &pool_pages, &old_pct, &old_time_ms, &ms_per_query, &ra_threshold,
                          &ra_area, &collapse, &ra_rule, &start_pages, &start_freed,
                          &batch, &tick_depth, &tick_phase_ms, &tick_period_ms, &ticks, &trace_leaf_pages))
        return NULL;
    if (!check_lru_args(n_pages, old_pct, ra_threshold) || check_area(ra_area) < 0)
        return NULL;
    /* a bare trace has physical page numbers only when its leaves are pages 0..trace_leaf_pages-1
     * of a PK-ordered table (loadgen/analysis/keymodel.py); MySQL's trigger needs nothing else,
     * MariaDB's needs the leaf steps only a workload has */
    if (ra_threshold && py_workload == Py_None &&
        !(ra_rule == RA_RULE_MYSQL && trace_leaf_pages >= 1 && trace_leaf_pages <= n_pages)) {
        PyErr_SetString(PyExc_ValueError, "read-ahead needs a workload (physical page numbers)");
        return NULL;
    }
    if (capacity < 1) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1 and capacity >= 1");
        return NULL;
    }
    if (source_init(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    sim_cfg_t cfg = {capacity, pool_pages, ra_area, 1.0, 0, start_pages, start_freed, batch,
                     tick_depth, tick_phase_ms, tick_period_ms, ticks};
    if (ra_rule != RA_RULE_MARIADB && ra_rule != RA_RULE_MYSQL) {
        PyErr_SetString(PyExc_ValueError, "ra_rule must be 0 (MariaDB) or 1 (MySQL)");
        goto error;
    }
    if (sim_init(&m, &cfg, n_pages, src.workload ? src.leaf_pages : trace_leaf_pages ? trace_leaf_pages : n_pages,
                 old_pct, old_time_ms,
                 ms_per_query, ra_threshold, collapse, ra_rule) < 0) {
        PyErr_NoMemory();
        goto error;
    }

    Py_BEGIN_ALLOW_THREADS
    while (source_next(&src, &r))
        sim_feed(&m, &r);
    sim_flush(&m);
    Py_END_ALLOW_THREADS

    loadgen_debug("lrusim_innodb: %llu refs, %llu misses", (unsigned long long)m.refs,
                  (unsigned long long)m.misses);
    py_result = Py_BuildValue("(KKKKKK)", (unsigned long long)m.refs, (unsigned long long)m.misses,
                              (unsigned long long)m.made_young, (unsigned long long)m.not_young,
                              (unsigned long long)m.ra_pages, (unsigned long long)m.ra_evicted);
error:
    sim_free(&m);
    if (view.obj)
        PyBuffer_Release(&view);
    return py_result;
}

/* ---- plain LRU, all sizes: Mattson stack distances ------------------------------------- */

#define MRU_TOP 8
#define MRU_IN_TOP (-2) /* last[p]: p is in the top array, not in the tree */

/* The live time slots (1 where a page's latest access sits) as a bitmap, 64 slots a word, with a
 * Fenwick tree over the words' counts: a prefix count is the tree's (over size/64 words, 100 KB
 * for the seed case, cache-resident) plus one popcount, not a walk over a tree of every slot
 * (6.5 MB: a cache miss a level). */
typedef struct {
    int32_t *tree;  /* Fenwick tree over words: live slots in each word */
    uint64_t *bits; /* a bit per slot */
    uint64_t words;
    uint32_t *owner;
    int64_t *last; /* slot of each page's latest access, -1 if none */
    uint64_t size, t, live, n_pages;
    uint32_t top[8]; /* MRU_TOP */
    int n_top;
} stack_t_;

static void fen_add(stack_t_ *s, uint64_t i, int32_t v) { /* slot i becomes live (+1) or not (-1) */
    uint64_t w = i / 64;
    if (v > 0)
        s->bits[w] |= 1ULL << (i % 64);
    else
        s->bits[w] &= ~(1ULL << (i % 64));
    for (w++; w <= s->words; w += w & (~w + 1))
        s->tree[w] += v;
}

static int64_t fen_prefix(const stack_t_ *s, uint64_t i) { /* live slots among 0..i */
    uint64_t w = i / 64, b = i % 64;
    int64_t r = __builtin_popcountll(s->bits[w] & (b == 63 ? ~0ULL : (2ULL << b) - 1));
    for (; w > 0; w -= w & (~w + 1)) /* words 0..w-1 */
        r += s->tree[w];
    return r;
}

/* Out of slots: renumber the live slots 0..live-1 in time order and rebuild the tree. */
static void compact(stack_t_ *s) {
    uint64_t k = 0;
    for (uint64_t slot = 0; slot < s->t; slot++) {
        uint32_t p = s->owner[slot];
        if (p != NIL && s->last[p] == (int64_t)slot) {
            s->owner[k] = p;
            s->last[p] = (int64_t)k++;
        }
    }
    for (uint64_t slot = k; slot < s->size; slot++)
        s->owner[slot] = NIL;
    memset(s->bits, 0, s->words * sizeof(uint64_t));
    for (uint64_t slot = 0; slot < k; slot++)
        s->bits[slot / 64] |= 1ULL << (slot % 64);
    memset(s->tree, 0, (s->words + 1) * sizeof(int32_t));
    for (uint64_t i = 1; i <= s->words; i++) { /* O(words) Fenwick build of the words' counts */
        s->tree[i] += __builtin_popcountll(s->bits[i - 1]);
        uint64_t j = i + (i & (~i + 1));
        if (j <= s->words)
            s->tree[j] += s->tree[i];
    }
    s->t = k;
}

/* One run through the stack: its first query reference by reference, then its repeats. The top
 * MRU_TOP entries of the stack (the root and the current path, nearly always) live in a small
 * array, most recent first, outside the tree: their distance is their position. A page pushed out
 * of the array enters the tree at the next slot, which keeps the tree's slots in stack order (it
 * is more recent than everything already there). */
static void mattson_run(stack_t_ *s, uint64_t *hist, const run_t *rr) {
    const run_t *r = rr;
    run_t plain;
    if (rr->stepped >= 0) { /* plain LRU's trace has no leaf steps: drop the stepped-to page */
        plain = *rr;
        for (int i = rr->stepped; i + 1 < rr->n; i++)
            plain.pages[i] = rr->pages[i + 1];
        plain.n = rr->n - 1;
        r = &plain;
    }
    for (int i = 0; i < r->n; i++) {
        uint32_t p = r->pages[i];
        int at = 0;
        while (at < s->n_top && s->top[at] != p)
            at++;
        if (at < s->n_top) { /* in the array: distance at+1 */
            hist[at + 1]++;
            memmove(s->top + 1, s->top, sizeof(uint32_t) * (size_t)at);
            s->top[0] = p;
            continue;
        }
        if (s->last[p] >= 0) {
            /* the array's pages and the tree's more recent than p's last access, plus p */
            uint64_t d = (uint64_t)s->n_top + (uint64_t)(s->live - fen_prefix(s, (uint64_t)s->last[p])) + 1;
            hist[d]++;
            fen_add(s, (uint64_t)s->last[p], -1);
            s->owner[s->last[p]] = NIL;
            s->live--;
        } else {
            hist[0]++;
        }
        s->last[p] = MRU_IN_TOP;
        if (s->n_top == MRU_TOP) { /* push the array's least recent into the tree */
            uint32_t q = s->top[MRU_TOP - 1];
            if (s->t == s->size)
                compact(s);
            fen_add(s, s->t, 1);
            s->owner[s->t] = q;
            s->last[q] = (int64_t)s->t++;
            s->live++;
            s->n_top--;
        }
        memmove(s->top + 1, s->top, sizeof(uint32_t) * (size_t)s->n_top);
        s->top[0] = p;
        s->n_top++;
    }
    /* each repeat of the run re-reads its n distinct pages in the same order: every one at
     * distance n, and the stack's top n entries end as they were */
    if (r->k > 1)
        hist[r->n] += (r->k - 1) * (uint64_t)r->n;
}

/* Stack and histogram for n_pages pages; -1 on allocation failure (free with stack_free). */
static int stack_init(stack_t_ *s, uint64_t **hist, uint64_t n_pages) {
    memset(s, 0, sizeof(*s));
    s->n_pages = n_pages;
    s->size = 2 * n_pages + 1024;
    s->words = (s->size + 63) / 64;
    s->tree = calloc(s->words + 1, sizeof(int32_t));
    s->bits = calloc(s->words, sizeof(uint64_t));
    s->owner = malloc(s->size * sizeof(uint32_t));
    s->last = malloc(n_pages * sizeof(int64_t));
    *hist = calloc(n_pages + 1, sizeof(uint64_t));
    if (!s->tree || !s->bits || !s->owner || !s->last || !*hist)
        return -1;
    for (uint64_t p = 0; p < n_pages; p++)
        s->last[p] = -1;
    for (uint64_t i = 0; i < s->size; i++)
        s->owner[i] = NIL;
    return 0;
}

static void stack_free(stack_t_ *s) {
    free(s->tree);
    free(s->bits);
    free(s->owner);
    free(s->last);
    memset(s, 0, sizeof(*s));
}

PyObject *loadgen_lrusim_mattson(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_hist = NULL;
    unsigned long long n_pages;
    source_t src;
    Py_buffer view;
    stack_t_ s;
    uint64_t *hist = NULL;

    memset(&s, 0, sizeof(s));
    if (!PyArg_ParseTuple(args, "OOK", &py_trace, &py_workload, &n_pages))
        return NULL;
    if (n_pages < 1 || n_pages >= NIL) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1");
        return NULL;
    }
    if (source_init(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    if (stack_init(&s, &hist, n_pages) < 0) {
        PyErr_NoMemory();
        goto error;
    }

    Py_BEGIN_ALLOW_THREADS
    run_t r;
    while (source_next(&src, &r))
        mattson_run(&s, hist, &r);
    Py_END_ALLOW_THREADS

    py_hist = PyBytes_FromStringAndSize((const char *)hist, (Py_ssize_t)((n_pages + 1) * sizeof(uint64_t)));
error:
    stack_free(&s);
    free(hist);
    if (view.obj)
        PyBuffer_Release(&view);
    return py_hist;
}

/* ---- many pools in one pass ---------------------------------------------------------- */

typedef struct {
    size_t start, end; /* runs chunk[start..end) */
    uint64_t unit;     /* the extent all their leaves sit in, or UINT64_MAX */
    run_t upper;       /* their upper pages as one run */
} group_t;

/* lrusim_curve(trace, workload, n_pages, leaf_pages, old_pct, old_time_ms, ms_per_query,
 *              ra_threshold, [(capacity, pool_pages, ra_area, rate, salt), ...])
 * Several pools in one pass over the workload, each exact (rate >= 1) or a miniature. Per pool:
 * (refs, misses, made_young, not_young, ra_pages, ra_evicted, sampled_units, total_units,
 *  sum_y, sum_y2, upper_misses, leaf_misses, leaf_touched, capacity_simulated, upper_touched), and last
 * (distinct leaves the workload touches, its page references), both exact. With plain_lru, then
 * the plain-LRU stack-distance histogram of the same trace without its leaf steps (what
 * lrusim_mattson gives for the workload without moves), from the same pass. */
PyObject *loadgen_lrusim_curve(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_cfgs, *py_result = NULL;
    unsigned long long n_pages, leaf_pages, ra_threshold;
    double old_pct, old_time_ms, ms_per_query;
    int ra_rule = RA_RULE_MARIADB, plain_lru = 0;
    source_t src;
    Py_buffer view;
    stack_t_ stack;
    uint64_t *hist = NULL;
    lru_t *sims = NULL;
    sim_cfg_t *cfgs = NULL;
    uint8_t *seen = NULL;
    run_t *chunk = NULL;
    group_t *groups = NULL;
    uint64_t distinct = 0, total_refs = 0;
    Py_ssize_t n_sims = 0;

    memset(&stack, 0, sizeof(stack));
    if (!PyArg_ParseTuple(args, "OOKKdddKO!|ip", &py_trace, &py_workload, &n_pages, &leaf_pages,
                          &old_pct, &old_time_ms, &ms_per_query, &ra_threshold, &PyList_Type,
                          &py_cfgs, &ra_rule, &plain_lru))
        return NULL;
    if (ra_rule != RA_RULE_MARIADB && ra_rule != RA_RULE_MYSQL) {
        PyErr_SetString(PyExc_ValueError, "ra_rule must be 0 (MariaDB) or 1 (MySQL)");
        return NULL;
    }
    if (!check_lru_args(n_pages, old_pct, ra_threshold))
        return NULL;
    if (ra_threshold && py_workload == Py_None) {
        PyErr_SetString(PyExc_ValueError, "read-ahead needs a workload (physical page numbers)");
        return NULL;
    }
    if (source_init(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    if (src.workload)
        leaf_pages = src.leaf_pages;
    if (leaf_pages < 1 || leaf_pages > n_pages) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= leaf_pages <= n_pages");
        goto error;
    }
    n_sims = PyList_GET_SIZE(py_cfgs);
    sims = calloc(n_sims ? (size_t)n_sims : 1, sizeof(lru_t));
    cfgs = calloc(n_sims ? (size_t)n_sims : 1, sizeof(sim_cfg_t));
    seen = calloc(leaf_pages, 1);
    chunk = malloc(RUN_CHUNK * sizeof(run_t));
    groups = malloc(RUN_CHUNK * sizeof(group_t));
    if (!sims || !cfgs || !seen || !chunk || !groups || (plain_lru && stack_init(&stack, &hist, n_pages) < 0)) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < n_sims; i++) {
        unsigned long long cap, pp, area, salt, start = 0, freed = 0, batch = 0, tdepth = 0, ticks = 1;
        double rate, tphase = 0, tperiod = 1000;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(py_cfgs, i), "KKKdK|KKKKddK", &cap, &pp, &area, &rate,
                              &salt, &start, &freed, &batch, &tdepth, &tphase, &tperiod, &ticks))
            goto error;
        if (cap < 1 || rate <= 0 || check_area(area) < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "need capacity >= 1 and rate > 0");
            goto error;
        }
        cfgs[i] = (sim_cfg_t){cap, pp, area, rate, salt, start, freed, batch, tdepth, tphase, tperiod, ticks};
    }
    for (Py_ssize_t i = 0; i < n_sims; i++) {
        if (sim_init(&sims[i], &cfgs[i], n_pages, leaf_pages, old_pct, old_time_ms, ms_per_query,
                     ra_threshold, 1, ra_rule) < 0) {
            PyErr_NoMemory();
            goto error;
        }
    }

    Py_BEGIN_ALLOW_THREADS
    /* runs in chunks, each chunk through one pool after another: a pool's state stays in cache */
    for (;;) {
        size_t n = 0;
        while (n < RUN_CHUNK && source_next(&src, &chunk[n])) {
            run_t *c = &chunk[n++];
            total_refs += (uint64_t)c->n * c->k;
            for (int i = 0; i < c->n; i++)
                if (c->pages[i] < leaf_pages && !seen[c->pages[i]]) {
                    seen[c->pages[i]] = 1;
                    distinct++;
                }
        }
        if (!n)
            break;
        if (plain_lru)
            for (size_t j = 0; j < n; j++)
                mattson_run(&stack, hist, &chunk[j]);
        /* groups: consecutive runs whose leaves sit in one extent under the same upper pages. A
         * miniature that did not sample the extent sees only the upper pages: one merged run. */
        size_t n_groups = 0;
        for (size_t j = 0; j < n;) {
            const run_t *a = &chunk[j];
            int nu = a->n;
            while (nu > 0 && a->pages[nu - 1] < leaf_pages)
                nu--;
            uint64_t unit = UINT64_MAX;
            int one_unit = nu < a->n;
            for (int i = nu; i < a->n && one_unit; i++) {
                uint64_t u = leaf_phys(a->pages[i]) / EXTENT_PAGES;
                one_unit = unit == UINT64_MAX || u == unit;
                unit = u;
            }
            size_t e = j + 1;
            uint64_t k = a->k;
            while (one_unit && e < n) {
                const run_t *b = &chunk[e];
                int ok = b->q0 == a->q0 + k && b->n >= nu && memcmp(b->pages, a->pages, sizeof(uint32_t) * nu) == 0;
                for (int i = nu; i < b->n && ok; i++)
                    ok = b->pages[i] < leaf_pages && leaf_phys(b->pages[i]) / EXTENT_PAGES == unit;
                if (!ok)
                    break;
                k += b->k;
                e++;
            }
            group_t *gr = &groups[n_groups++];
            gr->start = j;
            gr->end = e;
            gr->unit = one_unit ? unit : UINT64_MAX;
            gr->upper.n = nu;
            memcpy(gr->upper.pages, a->pages, sizeof(uint32_t) * nu);
            memset(gr->upper.mv, 0, sizeof(gr->upper.mv));
            gr->upper.q0 = a->q0;
            gr->upper.k = k;
            j = e;
        }
        for (Py_ssize_t i = 0; i < n_sims; i++) {
            lru_t *m = &sims[i];
            for (size_t gi = 0; gi < n_groups; gi++) {
                const group_t *gr = &groups[gi];
                if (m->mini && gr->unit != UINT64_MAX && m->mini->unit_base[gr->unit] < 0) {
                    if (gr->upper.n)
                        sim_feed(m, &gr->upper);
                    continue;
                }
                for (size_t j = gr->start; j < gr->end; j++)
                    sim_feed(m, &chunk[j]);
            }
        }
    }
    for (Py_ssize_t i = 0; i < n_sims; i++)
        sim_flush(&sims[i]);
    Py_END_ALLOW_THREADS

    py_result = PyList_New(0);
    if (!py_result)
        goto error;
    for (Py_ssize_t i = 0; i < n_sims; i++) {
        lru_t *m = &sims[i];
        double sum_y, sum_y2;
        uint64_t upper, upper_touched, leaf_misses, leaf_touched;
        sim_unit_stats(m, &sum_y, &sum_y2, &upper, &upper_touched, &leaf_misses, &leaf_touched);
        uint64_t total_units = m->mini ? m->mini->n_units : 0, sampled = m->mini ? m->mini->n_sampled_units : 0;
        if (!m->mini) { /* count the extents of the whole table */
            uint64_t last = UINT64_MAX;
            for (uint64_t k = 0; k < leaf_pages; k++) {
                uint64_t u = leaf_phys(k) / EXTENT_PAGES;
                if (u != last)
                    total_units++;
                last = u;
            }
            sampled = total_units;
        } else {
            total_units = 0;
            for (uint64_t u = 0; u < m->mini->n_units; u++)
                total_units += m->mini->unit_first[u] != UINT32_MAX;
        }
        PyObject *t = Py_BuildValue("(KKKKKKKKddKKKKK)", (unsigned long long)m->refs,
                                    (unsigned long long)m->misses, (unsigned long long)m->made_young,
                                    (unsigned long long)m->not_young, (unsigned long long)m->ra_pages,
                                    (unsigned long long)m->ra_evicted, (unsigned long long)sampled,
                                    (unsigned long long)total_units, sum_y, sum_y2,
                                    (unsigned long long)upper, (unsigned long long)leaf_misses,
                                    (unsigned long long)leaf_touched, (unsigned long long)m->capacity,
                                    (unsigned long long)upper_touched);
        if (!t || PyList_Append(py_result, t) < 0) {
            Py_XDECREF(t);
            Py_CLEAR(py_result);
            goto error;
        }
        Py_DECREF(t);
    }
    {
        PyObject *d = Py_BuildValue("(KK)", (unsigned long long)distinct, (unsigned long long)total_refs);
        if (!d || PyList_Append(py_result, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(py_result);
            goto error;
        }
        Py_DECREF(d);
    }
    if (plain_lru) {
        PyObject *h = PyBytes_FromStringAndSize((const char *)hist, (Py_ssize_t)((n_pages + 1) * sizeof(uint64_t)));
        if (!h || PyList_Append(py_result, h) < 0) {
            Py_XDECREF(h);
            Py_CLEAR(py_result);
            goto error;
        }
        Py_DECREF(h);
    }
error:
    stack_free(&stack);
    free(hist);
    for (Py_ssize_t i = 0; sims && i < n_sims; i++)
        sim_free(&sims[i]);
    free(sims);
    free(cfgs);
    free(seen);
    free(chunk);
    free(groups);
    if (view.obj)
        PyBuffer_Release(&view);
    return py_result;
}
