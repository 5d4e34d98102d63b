/*
 * The buffer-pool simulator's kernel: what the Python glue (native/lrusim.c) and the C checks
 * (tests/c/check_kernel.c) call. Plain C: no Python object reaches this directory, and every
 * entry point may run without the GIL. The Python side is loadgen/analysis/ (model.py, curve.py,
 * keymodel.py; lru_reference.py holds the slow references the kernel is tested against).
 *
 * One concept a file:
 *   source     trace sources: a workload or a bare trace, as runs of identical queries
 *   layout.h   where a table's leaves sit on physical pages (64-page extents)
 *   innodb_lru InnoDB's LRU list (buf0lru.cc): the old sublist, the make-young rules, eviction
 *   cleaner    the page cleaner: MariaDB's batches, MySQL's timed LRU batch
 *   readahead  linear read-ahead: MariaDB's trigger and MySQL's, naming the pages to read
 *   access     one page access and one page read: the three above brought together
 *   collapse   replaying a run of identical queries without all its references
 *   miniature  a sample of the extents standing for the whole table
 *   pagemap.h  a mix's miniature: its map of the space's pages, compact (64-page blocks)
 *   pool       one simulated pool: configuration, set-up, feeding runs (lrusim_innodb)
 *   curve      many pools in one pass over a source (lrusim_curve)
 *   mattson    plain LRU for every pool size: stack distances (lrusim_mattson)
 */
#ifndef LOADGEN_LRUSIM_KERNEL_H
#define LOADGEN_LRUSIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "pool.h"
#include "source.h"

/* What a pool ends with: references, reads (misses, read-ahead included), pages made young and
 * not made young (Innodb_buffer_pool_pages_made_young / _not_made_young), pages read ahead and
 * those evicted without an access. */
typedef struct {
    uint64_t refs, misses, made_young, not_young, ra_pages, ra_evicted;
} lru_counts_t;

/* InnoDB's LRU: pool c over the whole of src, a table of n_pages pages. A workload source knows
 * its leaves; of a bare trace, the pages below trace_leaf_pages are leaves in key order (0: none
 * known, all pages count as leaves). collapse: replay repeats collapsed (collapse.h). Returns -1
 * on allocation failure. */
int lrusim_innodb(source_t *src, const sim_cfg_t *c, const lru_params_t *p, uint64_t n_pages, uint64_t trace_leaf_pages,
                  int collapse, lru_counts_t *out);

/* One pool of a curve: its counters, then what the estimate of a miniature needs (extents
 * sampled of all that hold leaves, the per-extent sums of miniature.h, reads and distinct pages
 * above and on the leaves) and the capacity it simulated (scaled in a miniature). */
typedef struct {
    lru_counts_t counts;
    uint64_t sampled_units, total_units;
    double sum_y, sum_y2;
    uint64_t upper_misses, leaf_misses, leaf_touched, capacity, upper_touched;
} curve_point_t;

/* Several pools in one pass over src (each exact, rate >= 1, or a miniature): points[i] for
 * cfgs[i]; the distinct leaves the source touches and its page references; with hist (n_pages + 1
 * zeroed counters), the plain-LRU stack-distance histogram of the same references without the
 * leaf steps (what lrusim_mattson gives for the workload without moves). Returns -1 on
 * allocation failure. */
int lrusim_curve(source_t *src, const lru_params_t *p, uint64_t n_pages, uint64_t leaf_pages, const sim_cfg_t *cfgs,
                 size_t n_pools, curve_point_t *points, uint64_t *distinct_leaves, uint64_t *refs, uint64_t *hist);

/* Plain LRU, all sizes: hist[d] += references at stack distance d (index 0: cold misses); hist
 * holds n_pages + 1 counters. Returns -1 on allocation failure. */
int lrusim_mattson(source_t *src, uint64_t n_pages, uint64_t *hist);

#endif /* LOADGEN_LRUSIM_KERNEL_H */
