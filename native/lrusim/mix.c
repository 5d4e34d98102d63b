/*
 * A mixed workload's trace through one pool (mix.h).
 */
#include "mix.h"

#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "cleaner.h"
#include "pool.h"

int mix_begin(mix_state_t *s, const sim_cfg_t *c, const lru_params_t *p, uint64_t n_pages, uint64_t leaf_pages) {
    memset(s, 0, sizeof(*s));
    s->n_pages = n_pages;
    s->now_ms = -p->ms_per_query;
    if (sim_init(&s->m, c, n_pages, leaf_pages ? leaf_pages : 1, p, 0) < 0 || sim_track_dirty(&s->m) < 0) {
        sim_free(&s->m);
        return -1;
    }
    s->n_pages = s->m.n_pages; /* a miniature simulates fewer pages than its space has */
    s->live = 1;
    return 0;
}

/* One reference to simulated page pg at now_ms (the clock already moved for its operation). */
static inline void mix_ref(mix_state_t *s, uint32_t pg, uint8_t fl, double now_ms) {
    lru_t *m = &s->m;
    m->now_ms = now_ms;
    if ((fl & MIX_BUFFER) && ibuf_take(&s->ib, m, pg, fl & MIX_PURGE))
        return; /* buffered: the leaf is not read */
    if ((fl & MIX_NEW) && !m->pg[pg].resident) {
        /* buf_page_create: a frame taken (the cleaner may evict for it), nothing read, the
         * page put at the young head and accessed now */
        lru_read(m, pg);
        m->misses--;
        m->nmiss[pg]--;
        remove_block(m, pg);
        add_block(m, pg, 0);
        m->pg[pg].access_ms = now_ms;
        m->refs++;
        m->pg[pg].touched = 1;
    } else {
        lru_access(m, pg, now_ms, fl & MIX_MOVE);
        if (s->ib.max_entries)
            ibuf_merge_read(&s->ib, m, pg);
    }
    if (fl & MIX_WRITE)
        set_dirty(m, pg);
}

int mix_ibuf(mix_state_t *s, uint64_t max_entries, uint64_t merge_pages) {
    if (ibuf_init(&s->ib, s->n_pages, max_entries, merge_pages) < 0) {
        mix_free(s);
        return -1;
    }
    return 0;
}

/* References this far ahead have their page's record fetched while the current one is simulated:
 * the record's load was most of an exact pool's time (a cache miss a reference; branch speedmysql).
 * A hint only: the same counts. */
#define MIX_PREFETCH 16
#define MIX_PREFETCH_NEAR 4

void mix_feed(mix_state_t *s, const uint32_t *pages, const uint8_t *flags, uint64_t n) {
    double now_ms = s->now_ms, ms_per_query = s->m.ms_per_query;
    const page_t *pg = s->m.pg;
    for (uint64_t i = 0; i < n; i++) {
        if (i + MIX_PREFETCH < n)
            __builtin_prefetch(&pg[pages[i + MIX_PREFETCH]]);
        if (i + MIX_PREFETCH_NEAR < n) { /* a page made young leaves its neighbours joined */
            const page_t *r = &pg[pages[i + MIX_PREFETCH_NEAR]];
            if (r->resident && r->prev != NIL)
                __builtin_prefetch(&pg[r->prev]);
            if (r->resident && r->next != NIL)
                __builtin_prefetch(&pg[r->next]);
        }
        if (flags[i] & MIX_OP) {
            now_ms += ms_per_query;
            s->m.now_ms = now_ms;
            if (s->ib.max_entries)
                ibuf_tick(&s->ib, &s->m, now_ms);
        }
        mix_ref(s, pages[i], flags[i], now_ms);
    }
    s->now_ms = now_ms;
}

int mix_pin(mix_state_t *s, const uint8_t *cand, uint64_t n, double share) {
    lru_t *m = &s->m;
    if (!m->weighted)
        return 0; /* a miniature's only: adjust_len_w stops at the list's head, adjust_len does not look */
    m->pin = calloc(m->n_alloc, 1);
    if (!m->pin)
        return -1;
    for (uint64_t q = 0; q < n && q < m->n_pages; q++)
        m->pin[q] = cand[q] != 0;
    m->pin_cap_w = share * m->wcap;
    return 0;
}

/* A reference to a pinned page: what a hit on a young page that has not drifted does (the
 * clock's cleaner, the count, the page dirtied); ibuf is MySQL's, whose pools are never miniatures
 * while it is on (tracesample.pool_rate's buffered: not scaled for them). */
static inline void pinned_ref(lru_t *m, uint32_t q, uint8_t fl, double now_ms) {
    cleaner_due(m, now_ms);
    m->now_ms = now_ms;
    m->refs++;
    if ((fl & MIX_WRITE) && !m->dirty[q])
        set_dirty(m, q);
}

/* A reference of a miniature to simulated page q (mapped): a pinned page's counted, a candidate's
 * simulated and maybe pinned, any other page's simulated. */
static inline void mapped_ref(mix_state_t *s, uint32_t q, uint8_t fl, double now_ms) {
    lru_t *m = &s->m;
    const uint8_t *pin = m->pin;
    if (pin && pin[q]) {
        if (pin[q] == 2) {
            pinned_ref(m, q, fl, now_ms);
            return;
        }
        mix_ref(s, q, fl & ~MIX_MOVE, now_ms); /* a candidate is above the leaves */
        pin_page(m, q);
        return;
    }
    /* a step onto a page past the first table's leaves triggers no read-ahead (as in
     * read_ahead_mariadb); a miniature's leaf maps would not reach that far */
    mix_ref(s, q, (uint64_t)q < m->leaf_pages ? fl : fl & ~MIX_MOVE, now_ms);
}

void mix_feed_mapped(mix_state_t *s, const uint32_t *pages, const uint8_t *flags, uint64_t n, const pagemap_t *map) {
    double now_ms = s->now_ms, ms_per_query = s->m.ms_per_query;
    for (uint64_t i = 0; i < n; i++) {
        if (flags[i] & MIX_OP) /* the clock moves on every operation, sampled or not */
            now_ms += ms_per_query;
        int32_t q = pagemap_get(map, pages[i]);
        if (q >= 0)
            mapped_ref(s, (uint32_t)q, flags[i], now_ms);
    }
    s->now_ms = now_ms;
}

void mix_feed_squeezed(mix_state_t *s, const uint32_t *q, const uint8_t *flags, const double *at_ms, uint64_t n,
                       uint64_t dropped, double end_ms) {
    for (uint64_t i = 0; i < n; i++)
        mapped_ref(s, q[i], flags[i], at_ms[i]);
    s->m.refs += dropped;
    s->now_ms = end_ms;
}

void mix_end(mix_state_t *s, mix_counts_t *out, uint32_t *reads) {
    mix_peek(s, out, reads);
    mix_free(s);
}

void mix_peek(mix_state_t *s, mix_counts_t *out, uint32_t *reads) {
    lru_t *m = &s->m;
    out->counts = (lru_counts_t){m->refs, m->misses, m->made_young, m->not_young, m->ra_pages, m->ra_evicted};
    out->dirty_evicted = m->dirty_evicted;
    out->dirty_at_end = m->n_dirty;
    out->single_flushes = m->single_flushes;
    out->lru_batches = m->lru_batches;
    out->ibuf_buffered = s->ib.buffered;
    out->ibuf_merged = s->ib.merged_read + s->ib.merged_bg;
    out->ibuf_merge_reads = s->ib.merged_bg;
    s->evicted_one = m->dirty_evicted_one;
    out->filler_reads = 0;
    for (uint64_t pg = m->filler_base; pg < m->filler_base + FILLER_SLOTS; pg++)
        out->filler_reads += m->nmiss[pg];
    if (reads)
        memcpy(reads, m->nmiss, s->n_pages * sizeof(uint32_t));
}

void mix_free(mix_state_t *s) {
    if (s->live) {
        ibuf_free(&s->ib);
        sim_free(&s->m);
        s->live = 0;
    }
}

int lrusim_mix(const uint32_t *pages, const uint8_t *flags, uint64_t n, const sim_cfg_t *c, const lru_params_t *p,
               uint64_t n_pages, uint64_t leaf_pages, const uint64_t ibuf[2], mix_counts_t *out, uint32_t *reads) {
    mix_state_t s;
    if (mix_begin(&s, c, p, n_pages, leaf_pages) < 0)
        return -1;
    if (ibuf && ibuf[0] && mix_ibuf(&s, ibuf[0], ibuf[1]) < 0)
        return -1;
    mix_feed(&s, pages, flags, n);
    mix_end(&s, out, reads);
    return 0;
}
