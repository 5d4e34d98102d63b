/*
 * Miniatures of one sample fed a piece of a mix's trace together (loadgen/analysis/tracesim.py:
 * the curve's pools at one rate share tracesample.py's map). mix_feed_mapped looks every reference
 * up in the map and tests the page's pin, once a pool: that loop was a quarter of the CPU of
 * bench/predict_speed.py's 30M trace (perf, docs/data/tracespeed7/perf30.txt), where 50-57% of the
 * references are to pages every pool of a group has pinned (tracesample.PIN_SHARE), which only
 * count (92.7M of 185.8M for the 64M pool, 105.1M for the three 3% pools: docs/data/simspeed). Here the piece is
 * squeezed once for all of them: each reference mapped, the unsampled ones dropped, and the reads
 * of pages every pool of the group has pinned dropped too (counted), when no pool has a timed
 * cleaner (cleaner_due: a pinned reference is then a count and nothing else); each pool then runs
 * what is left. The counts are mix_feed_mapped's to the page (test_minigroup.py).
 */
#ifndef LOADGEN_LRUSIM_SQUEEZE_H
#define LOADGEN_LRUSIM_SQUEEZE_H

#include <stddef.h>
#include <stdint.h>

#include "mix.h"
#include "pagemap.h"

/* A piece squeezed: the references left (simulated page, flags, the clock at it: the pools of a
 * group share one clock, the trace's), and the references dropped after them. The buffers are
 * kept from one piece to the next (grown as needed). */
typedef struct {
    uint32_t *q;
    uint8_t *fl;
    double *at_ms;
    uint64_t n, cap;
    uint64_t dropped; /* reads of pages every pool had pinned: each pool's refs count them */
    double end_ms;    /* the clock at the piece's end */
    uint8_t *drop;    /* per simulated page: pinned in every pool of the group (built each piece) */
    uint64_t drop_cap;
} squeeze_t;

/* The references pages[0..n) (flags) that the pools s[0..n_sims) (one map, the same simulated
 * pages, one clock: now_ms and ms_per_query equal) have to see, into sq. -1 on allocation failure. */
int mix_squeeze(squeeze_t *sq, mix_state_t *const *s, size_t n_sims, const uint32_t *pages, const uint8_t *flags,
                uint64_t n, const pagemap_t *map);

/* mix_feed_mapped of each pool s[0..n_sims) over pages[0..n): squeezed once, then each pool fed
 * what is left (mix_feed_squeezed). -1 on allocation failure (no pool fed). */
int mix_feed_group(squeeze_t *sq, mix_state_t *const *s, size_t n_sims, const uint32_t *pages, const uint8_t *flags,
                   uint64_t n, const pagemap_t *map);

void squeeze_free(squeeze_t *sq);

#endif /* LOADGEN_LRUSIM_SQUEEZE_H */
