/*
 * Trace sources (source.h): a workload expanded into runs of identical queries, or a bare
 * trace cut into runs of identical references.
 */
#include "source.h"

#include <stdio.h>
#include <string.h>

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

/* The leaves a point select on `id` (on `leaf`, whose first id is start, the next leaf's next_start)
 * reads, in order: the first key of a leaf lands on the previous leaf's supremum (the PAGE_CUR_L
 * descent) and steps on to its own, the last key reads on to the next leaf; *first == *second
 * where it reads one leaf. (With starts strictly increasing, leaf_of(id - 1) != leaf is
 * id == start, and leaf_of(id + 1) != leaf is id + 1 == next_start.) */
static void point_leaves(const source_t *s, uint64_t id, uint64_t leaf, uint64_t start, uint64_t next_start,
                         uint64_t *first, uint64_t *second) {
    *first = *second = leaf;
    if (leaf > 0 && id >= 2 && (s->cursor ? id == start : leaf_of(s, id - 1) != leaf))
        *first = leaf - 1;
    else if (leaf + 1 < s->leaf_pages && id < s->rows &&
             (s->cursor ? id + 1 == next_start : leaf_of(s, id + 1) != leaf))
        *second = leaf + 1;
}

uint64_t source_point_leaves(const source_t *s, uint64_t id, uint64_t *first, uint64_t *second) {
    uint64_t leaf = leaf_of(s, id);
    point_leaves(s, id, leaf, leaf_start(s, leaf), leaf_start(s, leaf + 1), first, second);
    return leaf;
}

/* x / stride: the seed's stride 10 as a constant divisor (a multiply, not a division) */
static inline uint64_t div_stride(const source_t *s, uint64_t x) {
    return s->stride == 10 ? x / 10 : s->stride == 1 ? x : x / s->stride;
}

/* The next run, or 0 at the end. In workload mode a run is the ids of one pass that land on
 * one leaf (each query of the interleaved order repeated reps times); with moves, an id that is
 * the first or last key of its leaf is a run of its own, since its path has a second leaf. */
int source_next(source_t *s, run_t *r) {
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
        uint64_t idx[MAX_HEIGHT + 1];
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
    if (s->moves)
        point_leaves(s, id, leaf, start, next_start, &first, &second);
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

int source_init_workload(source_t *s, const workload_t *w, uint64_t n_pages, char *err, size_t err_len) {
    memset(s, 0, sizeof(*s));
    if (w->order < 0 || w->order > 2 || w->rows < 1 || w->stride < 1 || w->reps < 1 || w->leaf_pages < 1 ||
        w->height < 1 || w->height > MAX_HEIGHT || w->fanout < 2) {
        snprintf(err, err_len, "bad workload tuple");
        return -1;
    }
    uint64_t rows = w->rows, stride = w->stride, leaf = w->leaf_pages;
    s->workload = 1;
    s->order = w->order;
    s->rows = rows;
    s->stride = stride;
    s->reps = w->order == ORDER_SEQUENTIAL ? 1 : w->reps;
    s->leaf_pages = leaf;
    s->height = w->height;
    s->fanout = w->fanout;
    s->moves = w->moves;
    s->n_ids = (rows - 1) / stride + 1;
    /* +-2 rows where leaves hold 5+ rows; less where fewer, so starts stay increasing */
    s->jitter = rows / leaf >= 5 ? 2 : rows / leaf >= 3 ? 1 : 0;
    s->n_passes = w->order == ORDER_LOOPED ? s->reps : 1;
    s->cursor = rows >= leaf;
    s->step_q = 2 * rows / (2 * leaf);
    s->step_r = 2 * rows % (2 * leaf);
    s->narrow = leaf < (1ULL << 31) && rows < (1ULL << 31);
    if (source_layout(s) != n_pages) {
        snprintf(err, err_len, "n_pages %llu does not match the workload's %llu", (unsigned long long)n_pages,
                 (unsigned long long)source_layout(s));
        return -1;
    }
    return 0;
}

int source_init_trace(source_t *s, const uint32_t *trace, uint64_t len, uint64_t n_pages, char *err, size_t err_len) {
    memset(s, 0, sizeof(*s));
    s->trace = trace;
    s->trace_len = len;
    for (uint64_t i = 0; i < len; i++) {
        if (trace[i] >= n_pages) {
            snprintf(err, err_len, "trace[%llu] = %u is not below n_pages", (unsigned long long)i, trace[i]);
            return -1;
        }
    }
    return 0;
}
