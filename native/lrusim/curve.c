/*
 * Many pools in one pass over a source (kernel.h lrusim_curve): the curve of reads against pool
 * size, each pool exact or a miniature, plus plain LRU's stack distances from the same runs.
 */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

#include "mattson.h"
#include "miniature.h"

typedef struct {
    size_t start, end; /* runs chunk[start..end) */
    uint64_t unit;     /* the extent all their leaves sit in, or UINT64_MAX */
    run_t upper;       /* their upper pages as one run */
} group_t;

/* Groups of chunk[0..n): consecutive runs whose leaves sit in one extent under the same upper
 * pages. A miniature that did not sample the extent sees only the upper pages: one merged run.
 * Returns the number of groups. */
static size_t group_runs(const run_t *chunk, size_t n, uint64_t leaf_pages, group_t *groups) {
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
    return n_groups;
}

/* What pool m ends with, for a table of leaf_pages leaves. */
static void point_of(const lru_t *m, uint64_t leaf_pages, curve_point_t *pt) {
    pt->counts = (lru_counts_t){m->refs, m->misses, m->made_young, m->not_young, m->ra_pages, m->ra_evicted};
    sim_unit_stats(m, &pt->sum_y, &pt->sum_y2, &pt->upper_misses, &pt->upper_touched, &pt->leaf_misses,
                   &pt->leaf_touched);
    uint64_t total_units = 0, sampled;
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
        for (uint64_t u = 0; u < m->mini->n_units; u++)
            total_units += m->mini->unit_first[u] != UINT32_MAX;
        sampled = m->mini->n_sampled_units;
    }
    pt->sampled_units = sampled;
    pt->total_units = total_units;
    pt->capacity = m->capacity;
}

int lrusim_curve(source_t *src, const lru_params_t *p, uint64_t n_pages, uint64_t leaf_pages, const sim_cfg_t *cfgs,
                 size_t n_pools, curve_point_t *points, uint64_t *distinct_leaves, uint64_t *refs, uint64_t *hist) {
    int rc = -1;
    lru_stack_t stack;
    lru_t *sims = calloc(n_pools ? n_pools : 1, sizeof(lru_t));
    uint8_t *seen = calloc(leaf_pages, 1);
    run_t *chunk = malloc(RUN_CHUNK * sizeof(run_t));
    group_t *groups = malloc(RUN_CHUNK * sizeof(group_t));
    uint64_t distinct = 0, total_refs = 0;

    memset(&stack, 0, sizeof(stack));
    if (!sims || !seen || !chunk || !groups || (hist && stack_init(&stack, n_pages) < 0))
        goto done;
    for (size_t i = 0; i < n_pools; i++)
        if (sim_init(&sims[i], &cfgs[i], n_pages, leaf_pages, p, 1) < 0)
            goto done;

    /* runs in chunks, each chunk through one pool after another: a pool's state stays in cache */
    for (;;) {
        size_t n = 0;
        while (n < RUN_CHUNK && source_next(src, &chunk[n])) {
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
        if (hist)
            for (size_t j = 0; j < n; j++)
                mattson_run(&stack, hist, &chunk[j]);
        size_t n_groups = group_runs(chunk, n, leaf_pages, groups);
        for (size_t i = 0; i < n_pools; i++) {
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
    for (size_t i = 0; i < n_pools; i++) {
        sim_flush(&sims[i]);
        point_of(&sims[i], leaf_pages, &points[i]);
    }
    *distinct_leaves = distinct;
    *refs = total_refs;
    rc = 0;
done:
    stack_free(&stack);
    for (size_t i = 0; sims && i < n_pools; i++)
        sim_free(&sims[i]);
    free(sims);
    free(seen);
    free(chunk);
    free(groups);
    return rc;
}
