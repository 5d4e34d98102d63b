/*
 * Miniatures (Waldspurger et al., ATC'17, "Cache Modeling and Optimization using Miniature
 * Simulations"): a pool simulated on a sample of the table's extents, with the pool and InnoDB's
 * page-count constants scaled by the sampling rate, stands for the whole. The curve
 * (curve.c) runs one per pool size where its error is small enough (loadgen/analysis/curve.py
 * decides which and turns the per-extent statistics below into an estimate and its error).
 */
#ifndef LOADGEN_LRUSIM_MINIATURE_H
#define LOADGEN_LRUSIM_MINIATURE_H

#include "innodb_lru.h"
#include "pool.h"

/* A miniature keeps the leaves of the sampled units (64-page
 * physical extents, whole, so linear read-ahead still sees its areas) and every page above the
 * leaves (few and hot: sampling the root would weigh one page 1/R times). Sampled leaves are
 * renumbered 0..L'-1 and the sampled extents packed together, so the miniature is a smaller table
 * scanned the same way; upper pages follow as L'..L'+U-1. */
struct mini {
    uint64_t n_units;     /* extents of the real table holding leaves */
    int32_t *unit_base;   /* first miniature leaf of each real extent, -1 if not sampled */
    uint32_t *unit_first; /* first real leaf of each real extent */
    uint32_t *unit_rank;  /* packed position of each sampled extent */
    uint32_t *rank_unit;  /* real extent at each packed position */
    uint32_t *mini_real;  /* real leaf of each miniature leaf */
    uint64_t n_sampled_units, leaves, real_leaf_pages;
    uint64_t scale_sampled; /* sampled leaves below sim_cfg_t's scale_leaves (all of them when 0) */
};

/* Physical pages as read-ahead sees them: the table's own, or in a miniature its sampled extents
 * packed side by side. */
static inline uint64_t sim_leaf_phys(const lru_t *m, uint64_t p) { /* physical page of simulated leaf p */
    if (!m->mini)
        return leaf_phys(p);
    uint64_t ph = leaf_phys(m->mini->mini_real[p]);
    return (uint64_t)m->mini->unit_rank[ph / EXTENT_PAGES] * EXTENT_PAGES + ph % EXTENT_PAGES;
}

static inline int64_t sim_phys_leaf(const lru_t *m, uint64_t page) { /* simulated leaf on a page, or -1 */
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

/* Sample the extents of pool c (rate, salt) and build m->mini; -1 on allocation failure. */
int mini_build(lru_t *m, const sim_cfg_t *c, uint64_t leaf_pages);

void mini_free(mini_t *x);

/* Per sampled extent y = reads - distinct leaves touched (its re-reads): sum and sum of squares,
 * for the estimate and its standard error (loadgen/analysis/curve.py), and the reads and distinct
 * pages touched above the leaves and on them. */
void sim_unit_stats(const lru_t *m, double *sum_y, double *sum_y2, uint64_t *upper_misses, uint64_t *upper_touched,
                    uint64_t *leaf_misses, uint64_t *leaf_touched);

#endif /* LOADGEN_LRUSIM_MINIATURE_H */
