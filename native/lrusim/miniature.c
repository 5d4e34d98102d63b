/*
 * Miniatures (miniature.h): which extents a miniature keeps, and what it reports per extent.
 */
#include "miniature.h"

#include <stdlib.h>

/* Sample the extents whose mix64(extent ^ salt) falls under rate * 2^64 and build the maps: per
 * extent, not per leaf (a miniature of the seed case's 816k leaves was 6% of a curve's time). */
int mini_build(lru_t *m, const sim_cfg_t *c, uint64_t leaf_pages) {
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
            uint64_t below = c->scale_leaves && c->scale_leaves < last ? c->scale_leaves : last;
            x->scale_sampled += below > first ? below - first : 0;
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
    return 0;
}

void mini_free(mini_t *x) {
    if (!x)
        return;
    free(x->unit_base);
    free(x->unit_first);
    free(x->unit_rank);
    free(x->rank_unit);
    free(x->mini_real);
    free(x);
}

void sim_unit_stats(const lru_t *m, double *sum_y, double *sum_y2, uint64_t *upper_misses, uint64_t *upper_touched,
                    uint64_t *leaf_misses, uint64_t *leaf_touched) {
    *sum_y = *sum_y2 = 0;
    *upper_misses = *upper_touched = *leaf_misses = *leaf_touched = 0;
    for (uint64_t p = m->leaf_pages; p < m->n_pages; p++) {
        *upper_misses += m->nmiss[p];
        *upper_touched += m->pg[p].touched;
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
        y += (double)m->nmiss[p] - (double)m->pg[p].touched;
        *leaf_misses += m->nmiss[p];
        *leaf_touched += m->pg[p].touched;
    }
    if (cur_unit != UINT64_MAX) {
        *sum_y += y;
        *sum_y2 += y * y;
    }
}
