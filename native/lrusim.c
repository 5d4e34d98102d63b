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
#define CHUNK 65536

/* ---- trace sources ---------------------------------------------------------------------- */

enum { ORDER_INTERLEAVED = 0, ORDER_LOOPED = 1, ORDER_SEQUENTIAL = 2 };

typedef struct {
    /* workload mode */
    int workload;
    int order;
    uint64_t rows, stride, reps, leaf_pages, fanout;
    int height;
    int moves;                    /* emit the leaf a point select steps to at a page boundary */
    uint64_t n_ids, n_queries, q; /* next query */
    uint32_t level_base[16];      /* first page number of each level above the leaves */
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

static uint64_t query_id(const source_t *s, uint64_t q) {
    uint64_t k;
    if (s->order == ORDER_INTERLEAVED)
        k = q / s->reps;
    else
        k = q % s->n_ids; /* looped and sequential: passes over the ids */
    return 1 + k * s->stride;
}

static uint64_t leaf_of(const source_t *s, uint64_t id) {
    /* p = floor((id-1) * L / rows): leaves evenly cover the dense primary key */
    return (uint64_t)(((unsigned __int128)(id - 1) * s->leaf_pages) / s->rows);
}

/* Fill up to CHUNK references; qidx gets the query index of each (for its timestamp), move (if
 * not NULL) whether the reference is a step to the next leaf. */
static size_t source_fill(source_t *s, uint32_t *pages, uint64_t *qidx, uint8_t *move) {
    size_t n = 0;
    if (!s->workload) {
        while (n < CHUNK && s->pos < s->trace_len) {
            if (move)
                move[n] = 0;
            pages[n] = s->trace[s->pos];
            qidx[n++] = s->pos++;
        }
        return n;
    }
    while (n + 16 <= CHUNK && s->q < s->n_queries) {
        uint64_t id = query_id(s, s->q);
        uint64_t leaf = leaf_of(s, id);
        uint64_t idx[16];
        idx[0] = leaf;
        for (int lvl = 1; lvl < s->height; lvl++)
            idx[lvl] = lvl == s->height - 1 ? 0 : idx[lvl - 1] / s->fanout;
        for (int lvl = s->height - 1; lvl >= 1; lvl--) { /* root first, like a B-tree descent */
            if (move)
                move[n] = 0;
            pages[n] = s->level_base[lvl] + (uint32_t)idx[lvl];
            qidx[n++] = s->q;
        }
        uint64_t first = leaf, second = leaf;
        if (s->moves && leaf > 0 && id >= 2 && leaf_of(s, id - 1) != leaf)
            first = leaf - 1; /* first key of the leaf: lands on the previous leaf's supremum */
        else if (s->moves && leaf + 1 < s->leaf_pages && id < s->rows && leaf_of(s, id + 1) != leaf)
            second = leaf + 1; /* last key of the leaf: reads on to the next one */
        if (move)
            move[n] = 0;
        pages[n] = (uint32_t)first;
        qidx[n++] = s->q;
        if (second != first) {
            if (move)
                move[n] = 1;
            pages[n] = (uint32_t)second;
            qidx[n++] = s->q;
        }
        s->q++;
    }
    return n;
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
        s->n_queries = s->n_ids * s->reps;
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

/* ---- InnoDB LRU ------------------------------------------------------------------------- */

typedef struct {
    uint32_t *prev, *next;
    uint8_t *resident, *old;
    double *access_ms; /* first access, < 0 when not accessed (InnoDB's access_time == 0) */
    uint64_t *fpc;     /* freed_page_clock when last put at the head */
    uint32_t head, tail, lru_old;
    uint64_t len, old_len, capacity, pool_pages;
    uint64_t freed_page_clock;
    uint64_t old_ratio;
    double old_time_ms;
    uint64_t refs, misses, made_young, not_young;
    /* linear read-ahead: off when ra_threshold == 0 */
    uint64_t ra_threshold, ra_area, leaf_pages;
    uint64_t ra_pages, ra_evicted;
} lru_t;

static void set_old_all(lru_t *m, uint8_t v) {
    for (uint32_t p = m->head; p != NIL; p = m->next[p])
        m->old[p] = v;
}

static void adjust_len(lru_t *m) { /* buf_LRU_old_adjust_len */
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
    adjust_len(m);
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
}

static void remove_block(lru_t *m, uint32_t p) { /* buf_LRU_remove_block */
    if (m->lru_old == p && m->len >= OLD_MIN_LEN) {
        uint32_t pr = m->prev[p];
        m->lru_old = pr;
        m->old[pr] = 1;
        m->old_len++;
    }
    unlink_page(m, p);
    if (m->len < OLD_MIN_LEN) {
        if (m->lru_old != NIL)
            set_old_all(m, 0);
        m->lru_old = NIL;
        m->old_len = 0;
        m->old[p] = 0;
        return;
    }
    if (m->old[p])
        m->old_len--;
    m->old[p] = 0;
    adjust_len(m);
}

static void add_block(lru_t *m, uint32_t p, int old) { /* buf_LRU_add_block_low */
    if (!old || m->len < OLD_MIN_LEN) {
        m->prev[p] = NIL;
        m->next[p] = m->head;
        if (m->head != NIL)
            m->prev[m->head] = p;
        else
            m->tail = p;
        m->head = p;
        m->fpc[p] = m->freed_page_clock & ((1ULL << 31) - 1);
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
    }
    m->len++;
    if (m->len > OLD_MIN_LEN) {
        m->old[p] = (uint8_t)old;
        adjust_len(m);
    } else if (m->len == OLD_MIN_LEN) {
        old_init(m);
    } else {
        m->old[p] = m->lru_old != NIL;
    }
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
    /* buf_page_peek_if_young: young unless it drifted > 1/4 of the young region */
    uint64_t quarter = m->pool_pages * (RATIO_DIV - m->old_ratio) / (RATIO_DIV * 4);
    return !((m->freed_page_clock & ((1ULL << 31) - 1)) < m->fpc[p] + quarter);
}

/* A free frame for a page about to be read: evict the tail when the pool is full. */
static void make_room(lru_t *m) {
    if (m->len >= m->capacity) {
        uint32_t victim = m->tail;
        remove_block(m, victim);
        m->resident[victim] = 0;
        if (m->access_ms[victim] < 0)
            m->ra_evicted++; /* read ahead, never used */
        m->access_ms[victim] = -1;
        m->freed_page_clock++;
    }
}

/* ---- linear read-ahead ------------------------------------------------------------------ */

#define EXTENT_PAGES 64
#define XDES_PAGES 16384 /* an XDES/ibuf-bitmap extent starts every 16,384 pages */
#define FRAG_LEAVES 32   /* the first 32 leaves are the segment's fragment pages 4..35 */

static uint64_t leaf_phys(uint64_t k) { /* physical page of leaf k */
    if (k < FRAG_LEAVES)
        return 4 + k;
    uint64_t j = k - FRAG_LEAVES;
    return EXTENT_PAGES + j + EXTENT_PAGES * (j / (XDES_PAGES - EXTENT_PAGES));
}

static int64_t phys_leaf(const lru_t *m, uint64_t page) { /* leaf on a physical page, or -1 */
    uint64_t k;
    if (page >= 4 && page < 4 + FRAG_LEAVES) {
        k = page - 4;
    } else {
        uint64_t block = page / XDES_PAGES, r = page % XDES_PAGES;
        if (r < EXTENT_PAGES)
            return -1; /* fsp header/fragment extent or an XDES extent */
        k = FRAG_LEAVES + block * (XDES_PAGES - EXTENT_PAGES) + r - EXTENT_PAGES;
    }
    return k < m->leaf_pages ? (int64_t)k : -1;
}

/* buf_read_ahead_linear on the first access of leaf p (already resident and accessed). */
static void read_ahead(lru_t *m, uint32_t p) {
    uint64_t area = m->ra_area, high = leaf_phys(p);
    if (high % area != area - 1 || p == 0 || p + 1 >= m->leaf_pages)
        return; /* not the last page of its area; FIL_PAGE_PREV/NEXT is FIL_NULL */
    uint64_t budget = EXTENT_PAGES - m->ra_threshold;
    if (budget > area)
        budget = area;
    double prev = -1;
    for (uint64_t page = high + 1 - area; page <= high; page++) {
        int64_t k = phys_leaf(m, page);
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
    for (uint64_t page = high + 1; page <= high + area; page++) {
        int64_t k = phys_leaf(m, page);
        if (k < 0 || m->resident[k])
            continue;
        m->misses++;
        m->ra_pages++;
        make_room(m);
        m->resident[k] = 1;
        m->access_ms[k] = -1;
        add_block(m, (uint32_t)k, 1);
    }
}

static inline void lru_access(lru_t *m, uint32_t p, double now_ms, int move) {
    int first = !m->resident[p] || m->access_ms[p] < 0;
    m->refs++;
    if (m->resident[p]) {
        if (too_old(m, p, now_ms)) {
            if (m->old[p])
                m->made_young++;
            remove_block(m, p);
            add_block(m, p, 0);
        }
    } else {
        m->misses++;
        make_room(m);
        m->resident[p] = 1;
        m->access_ms[p] = -1;
        add_block(m, p, 1);
    }
    if (m->access_ms[p] < 0)
        m->access_ms[p] = now_ms;
    if (move && first && m->ra_threshold)
        read_ahead(m, p);
}

PyObject *loadgen_lrusim_innodb(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_result = NULL;
    unsigned long long n_pages, capacity, pool_pages, ra_threshold = 0, ra_area = EXTENT_PAGES;
    double old_pct, old_time_ms, ms_per_query;
    source_t src;
    Py_buffer view;
    lru_t m;
    uint32_t *pages = NULL;
    uint64_t *qidx = NULL;
    uint8_t *move = NULL;

    memset(&m, 0, sizeof(m));
    if (!PyArg_ParseTuple(args, "OOKKKddd|KK", &py_trace, &py_workload, &n_pages, &capacity,
                          &pool_pages, &old_pct, &old_time_ms, &ms_per_query, &ra_threshold,
                          &ra_area))
        return NULL;
    if (ra_threshold > EXTENT_PAGES || ra_area < 1 || ra_area > EXTENT_PAGES ||
        (ra_area & (ra_area - 1))) {
        PyErr_SetString(PyExc_ValueError,
                        "ra_threshold must be within 0..64 and ra_area a power of two up to 64");
        return NULL;
    }
    if (ra_threshold && py_workload == Py_None) {
        PyErr_SetString(PyExc_ValueError, "read-ahead needs a workload (physical page numbers)");
        return NULL;
    }
    if (n_pages < 1 || n_pages >= NIL || capacity < 1) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1 and capacity >= 1");
        return NULL;
    }
    if (old_pct < 5 || old_pct > 95) {
        PyErr_SetString(PyExc_ValueError, "old_pct must be within 5..95 (innodb_old_blocks_pct)");
        return NULL;
    }
    if (source_init(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    m.prev = malloc(n_pages * sizeof(uint32_t));
    m.next = malloc(n_pages * sizeof(uint32_t));
    m.resident = calloc(n_pages, 1);
    m.old = calloc(n_pages, 1);
    m.access_ms = malloc(n_pages * sizeof(double));
    m.fpc = calloc(n_pages, sizeof(uint64_t));
    pages = malloc(CHUNK * sizeof(uint32_t));
    qidx = malloc(CHUNK * sizeof(uint64_t));
    move = malloc(CHUNK);
    if (!m.prev || !m.next || !m.resident || !m.old || !m.access_ms || !m.fpc || !pages || !qidx ||
        !move) {
        PyErr_NoMemory();
        goto error;
    }
    m.head = m.tail = m.lru_old = NIL;
    m.capacity = capacity;
    m.pool_pages = pool_pages ? pool_pages : capacity;
    /* innodb_old_blocks_pct -> LRU_old_ratio, as buf_LRU_old_ratio_update does */
    m.old_ratio = (uint64_t)(old_pct * RATIO_DIV / 100);
    m.old_time_ms = old_time_ms;
    m.ra_threshold = ra_threshold;
    m.ra_area = ra_area;
    m.leaf_pages = src.workload ? src.leaf_pages : 0;

    Py_BEGIN_ALLOW_THREADS
    for (size_t n; (n = source_fill(&src, pages, qidx, move)) > 0;)
        for (size_t i = 0; i < n; i++)
            lru_access(&m, pages[i], (double)qidx[i] * ms_per_query, move[i]);
    Py_END_ALLOW_THREADS

    loadgen_debug("lrusim_innodb: %llu refs, %llu misses", (unsigned long long)m.refs,
                  (unsigned long long)m.misses);
    py_result = Py_BuildValue("(KKKKKK)", (unsigned long long)m.refs, (unsigned long long)m.misses,
                              (unsigned long long)m.made_young, (unsigned long long)m.not_young,
                              (unsigned long long)m.ra_pages, (unsigned long long)m.ra_evicted);
error:
    free(m.prev);
    free(m.next);
    free(m.resident);
    free(m.old);
    free(m.access_ms);
    free(m.fpc);
    free(pages);
    free(qidx);
    free(move);
    if (view.obj)
        PyBuffer_Release(&view);
    return py_result;
}

/* ---- plain LRU, all sizes: Mattson stack distances ------------------------------------- */

typedef struct {
    int32_t *tree; /* Fenwick tree over time slots: 1 where a page's latest access sits */
    uint32_t *owner;
    int64_t *last; /* slot of each page's latest access, -1 if none */
    uint64_t size, t, live, n_pages;
} stack_t_;

static void fen_add(stack_t_ *s, uint64_t i, int32_t v) {
    for (i++; i <= s->size; i += i & (~i + 1))
        s->tree[i] += v;
}

static int64_t fen_prefix(const stack_t_ *s, uint64_t i) { /* sum of slots 0..i */
    int64_t r = 0;
    for (i++; i > 0; i -= i & (~i + 1))
        r += s->tree[i];
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
    memset(s->tree, 0, (s->size + 1) * sizeof(int32_t));
    for (uint64_t i = 1; i <= s->size; i++) { /* O(size) Fenwick build of k leading ones */
        if (i <= k)
            s->tree[i] += 1;
        uint64_t j = i + (i & (~i + 1));
        if (j <= s->size)
            s->tree[j] += s->tree[i];
    }
    s->t = k;
}

PyObject *loadgen_lrusim_mattson(PyObject *self, PyObject *args) {
    PyObject *py_trace, *py_workload, *py_hist = NULL;
    unsigned long long n_pages;
    source_t src;
    Py_buffer view;
    stack_t_ s;
    uint64_t *hist = NULL;
    uint32_t *pages = NULL;
    uint64_t *qidx = NULL;

    memset(&s, 0, sizeof(s));
    if (!PyArg_ParseTuple(args, "OOK", &py_trace, &py_workload, &n_pages))
        return NULL;
    if (n_pages < 1 || n_pages >= NIL) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n_pages < 2**32 - 1");
        return NULL;
    }
    if (source_init(&src, py_trace, py_workload, &view, n_pages) < 0)
        return NULL;
    s.n_pages = n_pages;
    s.size = 2 * n_pages + 1024;
    s.tree = calloc(s.size + 1, sizeof(int32_t));
    s.owner = malloc(s.size * sizeof(uint32_t));
    s.last = malloc(n_pages * sizeof(int64_t));
    hist = calloc(n_pages + 1, sizeof(uint64_t));
    pages = malloc(CHUNK * sizeof(uint32_t));
    qidx = malloc(CHUNK * sizeof(uint64_t));
    if (!s.tree || !s.owner || !s.last || !hist || !pages || !qidx) {
        PyErr_NoMemory();
        goto error;
    }
    for (uint64_t p = 0; p < n_pages; p++)
        s.last[p] = -1;
    for (uint64_t i = 0; i < s.size; i++)
        s.owner[i] = NIL;

    Py_BEGIN_ALLOW_THREADS
    uint32_t mru = NIL;
    for (size_t n; (n = source_fill(&src, pages, qidx, NULL)) > 0;) {
        for (size_t i = 0; i < n; i++) {
            uint32_t p = pages[i];
            if (p == mru) { /* re-access of the most recent page: distance 1, stack unchanged */
                hist[1]++;
                continue;
            }
            mru = p;
            if (s.last[p] >= 0) {
                /* distinct pages touched since p's last access, plus p itself */
                uint64_t d = (uint64_t)(s.live - fen_prefix(&s, (uint64_t)s.last[p])) + 1;
                hist[d]++;
                fen_add(&s, (uint64_t)s.last[p], -1);
                s.owner[s.last[p]] = NIL;
                s.live--;
            } else {
                hist[0]++;
            }
            if (s.t == s.size)
                compact(&s);
            fen_add(&s, s.t, 1);
            s.owner[s.t] = p;
            s.last[p] = (int64_t)s.t++;
            s.live++;
        }
    }
    Py_END_ALLOW_THREADS

    py_hist = PyBytes_FromStringAndSize((const char *)hist, (Py_ssize_t)((n_pages + 1) * sizeof(uint64_t)));
error:
    free(s.tree);
    free(s.owner);
    free(s.last);
    free(hist);
    free(pages);
    free(qidx);
    if (view.obj)
        PyBuffer_Release(&view);
    return py_hist;
}
