/*
 * One simulated pool (pool.h): set up, fed, freed.
 */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "cleaner.h"
#include "collapse.h"
#include "kernel.h"
#include "miniature.h"

int sim_init(lru_t *m, const sim_cfg_t *c, uint64_t n_pages, uint64_t leaf_pages, const lru_params_t *params,
             int collapse) {
    memset(m, 0, sizeof(*m));
    uint64_t sim_pages = n_pages, sim_leaves = leaf_pages;
    double scale = 1.0;
    if (c->rate < 1) {
        if (mini_build(m, c, leaf_pages) < 0)
            return -1;
        sim_leaves = m->mini->leaves;
        sim_pages = sim_leaves + (n_pages - leaf_pages);
        scale = (double)sim_leaves / (double)leaf_pages; /* the rate this draw realised */
        if (c->scale_leaves && c->scale_leaves < leaf_pages && m->mini->scale_sampled)
            scale = (double)m->mini->scale_sampled / (double)c->scale_leaves; /* on the start's leaves */
        m->upper_w = scale;
    } else {
        m->upper_w = 1.0;
    }
    m->n_pages = sim_pages;
    m->filler_base = sim_pages;
    uint64_t n = m->n_alloc = sim_pages + FILLER_SLOTS + c->start_pages;
    if (n >= NIL)
        return -1;
    m->pg = calloc(n, sizeof(page_t)); /* links and access_ms set as a page joins the list (lru_read) */
    m->nmiss = calloc(n, sizeof(uint32_t));
    if (!m->pg || !m->nmiss)
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
    /* innodb_old_blocks_pct -> LRU_old_ratio, as buf_LRU_old_ratio_update does */
    m->old_ratio = (uint64_t)(params->old_pct * RATIO_DIV / 100);
    m->old_time_ms = params->old_time_ms;
    m->ms_per_query = params->ms_per_query;
    m->n_burst = -1;
    if (m->mini) {
        m->weighted = 1;
        m->w_tolerance = OLD_TOLERANCE * scale < 0.5 ? 0.5 : OLD_TOLERANCE * scale;
        m->w_non_old_min = NON_OLD_MIN_LEN * scale;
        m->w_old_min = OLD_MIN_LEN * scale;
        m->wquarter = (uint64_t)((double)(c->pool_pages ? c->pool_pages : c->capacity) * scale *
                                 (double)(RATIO_DIV - (uint64_t)(params->old_pct * RATIO_DIV / 100)) / (RATIO_DIV * 4) *
                                 CLOCK_TICKS);
    }
    m->ra_threshold = params->ra_threshold;
    m->ra_area = c->ra_area;
    m->leaf_pages = sim_leaves;
    m->one_end = sim_leaves;
    m->ra_rule = params->ra_rule;
    cleaner_init(m, c, scale);
    m->clean_scan = params->clean_scan;
    m->try_scan = 1;
    m->fl_batch = c->fl_batch;
    m->fl_io = c->fl_io;
    m->fl_avg = m->fl_sum = 0.0;
    m->fl_loops = 0;
    /* the page cleaner's loop runs its timed LRU batch and then, at once, the flush-list batch
     * (pc_flush_slot: buf_flush_LRU_list, then buf_flush_do_batch(BUF_FLUSH_LIST)): the flush list
     * keeps the timed batch's phase, so the LRU batch meets a second's dirty pages, not the
     * phase's; cleaner_due runs the two in that order */
    m->fl_next_ms = m->tick_depth && c->tick_period_ms > 0 && c->tick_phase_ms > 0 ? c->tick_phase_ms : FLUSH_PERIOD_MS;
    m->fl_head = m->fl_tail = NIL;
    /* the collapse skips time between accesses, where a timed batch may land */
    m->collapse = collapse && !m->tick_depth && !m->n_seen;
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
        m->pg[p].resident = 1;
        m->pg[p].access_ms = 0;
        add_block(m, p, 1);
    }
    m->freed_page_clock += c->start_freed;
    m->ra_evicted = 0;
    return 0;
}

/* Feed one run of real page numbers: miniatures drop unsampled leaves and renumber the rest;
 * consecutive runs whose paths are then equal merge (the upper levels of unsampled leaves). */
void sim_feed(lru_t *m, const run_t *r) {
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
        !memcmp(pd->pages, use->pages, sizeof(uint32_t) * (size_t)use->n) && !memcmp(pd->mv, use->mv, (size_t)use->n)) {
        pd->k += use->k;
        return;
    }
    if (pd->k && pd->n)
        lru_run(m, pd);
    *pd = *use;
}

void sim_flush(lru_t *m) {
    if (m->pend.k && m->pend.n)
        lru_run(m, &m->pend);
    m->pend.k = 0;
}

int sim_track_dirty(lru_t *m) {
    m->dirty = calloc(m->n_alloc, 1);
    m->dirty_ms = calloc(m->n_alloc, sizeof(float));
    m->fl_prev = malloc(m->n_alloc * sizeof(uint32_t));
    m->fl_next = malloc(m->n_alloc * sizeof(uint32_t));
    return m->dirty && m->dirty_ms && m->fl_prev && m->fl_next ? 0 : -1;
}

void sim_free(lru_t *m) {
    free(m->dirty);
    free(m->dirty_ms);
    free(m->fl_prev);
    free(m->fl_next);
    free(m->pg);
    free(m->nmiss);
    free(m->pin);
    mini_free(m->mini);
    memset(m, 0, sizeof(*m));
}

int lrusim_innodb(source_t *src, const sim_cfg_t *c, const lru_params_t *p, uint64_t n_pages, uint64_t trace_leaf_pages,
                  int collapse, lru_counts_t *out) {
    lru_t m;
    run_t r;
    uint64_t leaf_pages = src->workload ? src->leaf_pages : trace_leaf_pages ? trace_leaf_pages : n_pages;
    int rc = sim_init(&m, c, n_pages, leaf_pages, p, collapse);
    if (rc == 0) {
        while (source_next(src, &r))
            sim_feed(&m, &r);
        sim_flush(&m);
        *out = (lru_counts_t){m.refs, m.misses, m.made_young, m.not_young, m.ra_pages, m.ra_evicted};
    }
    sim_free(&m);
    return rc;
}
