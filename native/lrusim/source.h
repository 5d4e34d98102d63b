/*
 * Trace sources: the page references the simulators replay, as runs of identical queries.
 *
 * A source reads either a bare uint32 page trace (one reference per time step) or a workload
 * description (an order over a PK-ordered table of a given geometry), which it expands itself,
 * run by run, so the seed's 60M-reference trace never has to exist in memory. Page numbers:
 * leaves 0..L-1, then level 1, level 2, ..., the root last (loadgen/analysis/geometry.py).
 */
#ifndef LOADGEN_LRUSIM_SOURCE_H
#define LOADGEN_LRUSIM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define NIL UINT32_MAX /* no page; n_pages stays below it */

enum { ORDER_INTERLEAVED = 0, ORDER_LOOPED = 1, ORDER_SEQUENTIAL = 2 };

#define MAX_HEIGHT 15  /* the deepest B-tree a workload may describe */
#define MAX_PATH 18    /* pages a run references: a root-to-leaf path and the leaf it steps to */
#define RUN_CHUNK 2048 /* runs the curve reads at once, then feeds to one pool after another */

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

/* What a workload source expands (the Python side's workload tuple, loadgen/analysis/model.py
 * workload_tuple): ids 1, 1+stride, ... up to rows, each queried reps times, interleaved (each
 * id reps times in a row), looped (reps passes over all ids) or sequential (one pass). */
typedef struct {
    int order; /* ORDER_* */
    uint64_t rows, stride, reps, leaf_pages;
    int height;
    uint64_t fanout;
    int moves; /* also emit the leaf a point select steps to at a page boundary */
} workload_t;

/* A source being read: a workload being expanded (workload != 0), or a trace. */
typedef struct {
    /* workload mode */
    int workload;
    int order;
    uint64_t rows, stride, reps, leaf_pages, fanout;
    int height;
    int moves;                           /* emit the leaf a point select steps to at a page boundary */
    uint64_t jitter;                     /* a leaf starts up to this many ids off the even spread */
    uint64_t n_ids, n_passes, pass, k;   /* next id index k of pass `pass` */
    uint32_t level_base[MAX_HEIGHT + 1]; /* first page number of each level above the leaves */
    /* Ids only grow within a pass, so the leaf of the next id is found by walking forward from
     * the last one (cur, whose first id is cur_start, the next leaf's cur_next) instead of a
     * search per run: that search was 60% of an exact simulation. Only where leaf starts
     * strictly increase (rows >= leaves), as leaf_of assumes; else leaf_of. */
    int cursor;
    int narrow; /* 2 * leaves * rows fits 64 bits: no 128-bit division */
    uint64_t cur, cur_start, cur_next;
    /* the next leaf's even-spread start, floor((2k rows + L) / 2L), kept as quotient and
     * remainder and stepped by 2 rows: no division per leaf */
    uint64_t nk, nq, nr, step_q, step_r;
    uint64_t path_lo, path_hi; /* leaves under the cached upper path (empty at first) */
    uint32_t path[MAX_HEIGHT + 1];
    int path_n;
    /* trace mode */
    const uint32_t *trace;
    uint64_t trace_len, pos;
} source_t;

/* splitmix64's finaliser: a strong 64-bit mixer (a weak one sampled contiguous ids unevenly).
 * The leaves' jitter and a miniature's choice of extents both hash with it. */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Set s up to expand workload w; n_pages must be the workload's page count. Returns 0, or -1
 * with the reason in err. */
int source_init_workload(source_t *s, const workload_t *w, uint64_t n_pages, char *err, size_t err_len);

/* Set s up to replay trace[0..len), every page below n_pages (the trace is read, not copied: it
 * must outlive s). Returns 0, or -1 with the reason in err. */
int source_init_trace(source_t *s, const uint32_t *trace, uint64_t len, uint64_t n_pages, char *err, size_t err_len);

/* The next run into r; 0 at the end. */
int source_next(source_t *s, run_t *r);

/* The leaves a point select on id (1..rows) of s's table reads, in the order it reads them, as
 * source_next places them with moves: *first == *second where the select reads one leaf, else
 * the step to the neighbouring leaf (a leaf's first key: the previous leaf, then its own; its
 * last key: its own, then the next). Returns the id's own leaf, whose upper path the descent
 * takes. For explicit key streams (native/keydist.c). */
uint64_t source_point_leaves(const source_t *s, uint64_t id, uint64_t *first, uint64_t *second);

#endif /* LOADGEN_LRUSIM_SOURCE_H */
