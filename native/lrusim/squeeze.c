/*
 * A piece of a mix's trace squeezed once for the miniatures of one sample (squeeze.h).
 */
#include "squeeze.h"

#include <stdlib.h>
#include <string.h>

/* Whether a pinned page's reference in pool s is a count and nothing else: pins on, and no cleaner
 * whose batches are due by the clock (mix.c pinned_ref calls cleaner_due; MariaDB's pools, the
 * only miniatures, have none). */
static int pins_only_count(const mix_state_t *s) {
    const lru_t *m = &s->m;
    return m->pin && m->i_seen >= m->n_seen && !m->tick_depth && !m->fl_batch && !m->fl_io;
}

static int grow(squeeze_t *sq, uint64_t n, uint64_t n_pages) {
    if (n > sq->cap) {
        uint32_t *q = realloc(sq->q, n * sizeof(uint32_t));
        if (q)
            sq->q = q;
        uint8_t *fl = realloc(sq->fl, n);
        if (fl)
            sq->fl = fl;
        double *at_ms = realloc(sq->at_ms, n * sizeof(double));
        if (at_ms)
            sq->at_ms = at_ms;
        if (!q || !fl || !at_ms)
            return -1;
        sq->cap = n;
    }
    if (n_pages > sq->drop_cap) {
        uint8_t *d = realloc(sq->drop, n_pages);
        if (!d)
            return -1;
        sq->drop = d;
        sq->drop_cap = n_pages;
    }
    return 0;
}

int mix_squeeze(squeeze_t *sq, mix_state_t *const *s, size_t n_sims, const uint32_t *pages, const uint8_t *flags,
                uint64_t n, const pagemap_t *map) {
    uint64_t n_pages = s[0]->m.n_pages;
    if (grow(sq, n ? n : 1, n_pages ? n_pages : 1) < 0)
        return -1;
    int drops = 1;
    for (size_t k = 0; k < n_sims; k++)
        drops &= pins_only_count(s[k]);
    uint8_t *drop = sq->drop;
    memset(drop, drops, n_pages);
    for (size_t k = 0; drops && k < n_sims; k++) {
        const uint8_t *pin = s[k]->m.pin;
        for (uint64_t q = 0; q < n_pages; q++)
            drop[q] &= pin[q] == 2; /* pinned for good (innodb_lru.h pin_page) */
    }
    /* without branches: which of the three a reference is (unsampled, dropped, left) and whether it
     * begins an operation are data the branch predictor cannot learn (a mispredicted branch threw
     * away the loads in flight: perf had the squeeze at 77% of the group's samples with them);
     * every reference is written, the next one over it unless kept */
    uint32_t *restrict out_q = sq->q;
    uint8_t *restrict out_fl = sq->fl;
    double *restrict out_ms = sq->at_ms;
    const pagemap_block_t *blocks = map->blocks;
    const int32_t *full = map->full;
    uint64_t kept = 0, dropped = 0;
    double now_ms = s[0]->now_ms, step_ms[2] = {0.0, s[0]->m.ms_per_query};
    for (uint64_t i = 0; i < n; i++) {
        uint8_t fl = flags[i];
        uint32_t p = pages[i];
        /* the clock moves on every operation, as mix_feed_mapped's (+ 0.0 leaves it as it is) */
        now_ms += step_ms[(fl & MIX_OP) != 0];
        /* pagemap_get without its branches (a block the full map holds is rare: that one stays) */
        const pagemap_block_t b = blocks[p >> PAGEMAP_SHIFT];
        uint32_t j = (p & ((1u << PAGEMAP_SHIFT) - 1)) - b.lo;
        int32_t in = j < (uint32_t)(b.hi - b.lo); /* by masks: gcc made a branch of a ?: here */
        int32_t q = b.base < 0 ? full[p] : ((b.base + (int32_t)j) & -in) | (in - 1);
        uint32_t qi = q < 0 ? 0 : (uint32_t)q;
        uint64_t mapped = q >= 0;
        uint64_t gone = mapped & drop[qi] & ((fl & MIX_WRITE) == 0); /* a write dirties the page: kept */
        uint64_t keep = mapped & !gone;
        out_q[kept] = qi;
        out_fl[kept] = fl;
        out_ms[kept] = now_ms;
        kept += keep;
        dropped += gone;
    }
    sq->n = kept;
    sq->dropped = dropped;
    sq->end_ms = now_ms;
    return 0;
}

int mix_feed_group(squeeze_t *sq, mix_state_t *const *s, size_t n_sims, const uint32_t *pages, const uint8_t *flags,
                   uint64_t n, const pagemap_t *map) {
    if (mix_squeeze(sq, s, n_sims, pages, flags, n, map) < 0)
        return -1;
    for (size_t k = 0; k < n_sims; k++) /* one pool after another: its state stays in cache */
        mix_feed_squeezed(s[k], sq->q, sq->fl, sq->at_ms, sq->n, sq->dropped, sq->end_ms);
    return 0;
}

void squeeze_free(squeeze_t *sq) {
    free(sq->q);
    free(sq->fl);
    free(sq->at_ms);
    free(sq->drop);
    memset(sq, 0, sizeof(*sq));
}
