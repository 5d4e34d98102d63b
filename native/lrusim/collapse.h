/*
 * The collapse: a run of k identical queries replayed without k times its references. While an
 * access changes nothing but the counters (a hit on a page that stays where it is), nothing is
 * evicted, so the freed-page clock stands still and only time moves; the replay skips from one
 * state-changing access to the next and counts the accesses in between. Exact: tested equal to
 * the reference-by-reference replay (collapse off), which the timed page cleaner needs (a batch
 * may land between two accesses).
 */
#ifndef LOADGEN_LRUSIM_COLLAPSE_H
#define LOADGEN_LRUSIM_COLLAPSE_H

#include "innodb_lru.h"

/* Replay run r: its first query reference by reference; then the k-1 repeats, collapsed
 * (m->collapse) or one by one. */
void lru_run(lru_t *m, const run_t *r);

#endif /* LOADGEN_LRUSIM_COLLAPSE_H */
