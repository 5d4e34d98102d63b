/*
 * A mixed workload's trace through one pool (mix.h).
 */
#include "mix.h"

#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "pool.h"

int mix_begin(mix_state_t *s, const sim_cfg_t *c, const lru_params_t *p, uint64_t n_pages, uint64_t leaf_pages) {
    memset(s, 0, sizeof(*s));
    s->n_pages = n_pages;
    s->now_ms = -p->ms_per_query;
    if (sim_init(&s->m, c, n_pages, leaf_pages ? leaf_pages : 1, p, 0) < 0 || sim_track_dirty(&s->m) < 0) {
        sim_free(&s->m);
        return -1;
    }
    s->live = 1;
    return 0;
}

void mix_feed(mix_state_t *s, const uint32_t *pages, const uint8_t *flags, uint64_t n) {
    lru_t *m = &s->m;
    double now_ms = s->now_ms, ms_per_query = m->ms_per_query;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t pg = pages[i];
        if (flags[i] & MIX_OP)
            now_ms += ms_per_query;
        if ((flags[i] & MIX_NEW) && !m->resident[pg]) {
            /* buf_page_create: a frame taken (the cleaner may evict for it), nothing read, the
             * page put at the young head and accessed now */
            lru_read(m, pg);
            m->misses--;
            m->nmiss[pg]--;
            remove_block(m, pg);
            add_block(m, pg, 0);
            m->access_ms[pg] = now_ms;
            m->refs++;
            m->touched[pg] = 1;
        } else {
            lru_access(m, pg, now_ms, flags[i] & MIX_MOVE);
        }
        if (flags[i] & MIX_WRITE)
            set_dirty(m, pg);
    }
    s->now_ms = now_ms;
}

void mix_end(mix_state_t *s, mix_counts_t *out, uint32_t *reads) {
    lru_t *m = &s->m;
    out->counts = (lru_counts_t){m->refs, m->misses, m->made_young, m->not_young, m->ra_pages, m->ra_evicted};
    out->dirty_evicted = m->dirty_evicted;
    out->dirty_at_end = m->n_dirty;
    out->single_flushes = m->single_flushes;
    out->lru_batches = m->lru_batches;
    out->filler_reads = 0;
    for (uint64_t pg = m->filler_base; pg < m->filler_base + FILLER_SLOTS; pg++)
        out->filler_reads += m->nmiss[pg];
    if (reads)
        memcpy(reads, m->nmiss, s->n_pages * sizeof(uint32_t));
    mix_free(s);
}

void mix_free(mix_state_t *s) {
    if (s->live) {
        sim_free(&s->m);
        s->live = 0;
    }
}

int lrusim_mix(const uint32_t *pages, const uint8_t *flags, uint64_t n, const sim_cfg_t *c, const lru_params_t *p,
               uint64_t n_pages, uint64_t leaf_pages, mix_counts_t *out, uint32_t *reads) {
    mix_state_t s;
    if (mix_begin(&s, c, p, n_pages, leaf_pages) < 0)
        return -1;
    mix_feed(&s, pages, flags, n);
    mix_end(&s, out, reads);
    return 0;
}
