/*
 * One simulated pool: its configuration, setting it up (capacity, miniature, page cleaner,
 * read-ahead, the pages the server read while it started), feeding it runs, and the counters it
 * ends with. kernel.h's entry points drive pools through these.
 */
#ifndef LOADGEN_LRUSIM_POOL_H
#define LOADGEN_LRUSIM_POOL_H

#include <stddef.h>

#include "innodb_lru.h"

/* A pool's size and the server facts that differ between pools of one run. */
typedef struct {
    uint64_t capacity, pool_pages, ra_area;
    double rate; /* >= 1: the whole table */
    uint64_t salt;
    uint64_t start_pages; /* pages the server holds before the run (read while it started) */
    uint64_t start_freed; /* pages it evicted while starting: the freed-page clock at the run's start */
    uint64_t batch;       /* pages freed at once when the pool is full (0 or 1: one per read) */
    /* MySQL's timed LRU batch (cleaner_tick): scan depth (0: none), first batch at phase_ms,
     * then every period_ms, ticks of them in all (0: no end) */
    uint64_t tick_depth;
    double tick_phase_ms, tick_period_ms;
    uint64_t ticks;
    /* MySQL's LRU batches as a run recorded them (cleaner_replay): n_seen pairs (queries done,
     * pages evicted), sorted by queries done; they replace the timed batch (tick_depth 0) */
    const uint64_t *seen;
    size_t n_seen;
    uint64_t fl_batch; /* MySQL's flush-list batch: pages written once a second (0: none; cleaner.h) */
    uint64_t fl_io;    /* or sized each second from the dirty pages, innodb_io_capacity (0: fl_batch; cleaner.h) */
    /* A miniature's scale is the sampled share of the first scale_leaves leaves (0: of all): the
     * table's leaves at the start, not the ones its inserts append, which are filled once and then
     * rarely read. Their few extents, sampled or not, moved the share by up to 11% of itself and the
     * miniature's capacity with it (branch minibias, bench/README.md). */
    uint64_t scale_leaves;
} sim_cfg_t;

/* The server's settings, the same for every pool of a run. */
typedef struct {
    double old_pct;        /* innodb_old_blocks_pct, 5..95 */
    double old_time_ms;    /* innodb_old_blocks_time */
    double ms_per_query;   /* the clock: time from one query to the next */
    uint64_t ra_threshold; /* innodb_read_ahead_threshold, 0..64; 0: no linear read-ahead */
    int ra_rule;           /* RA_RULE_MARIADB or RA_RULE_MYSQL (innodb_lru.h) */
    uint32_t clean_scan;   /* MySQL's user threads: a clean page sought among this many at the tail (0: the tail) */
} lru_params_t;

/* Set up pool m (c, params) for a table of n_pages pages, leaf_pages of them leaves; collapse: replay
 * repeats collapsed (collapse.h). Returns -1 on allocation failure (free m with sim_free). */
int sim_init(lru_t *m, const sim_cfg_t *c, uint64_t n_pages, uint64_t leaf_pages, const lru_params_t *params,
             int collapse);

/* Follow dirty pages inside pool m (set_dirty; a mix's writes): -1 on allocation failure. */
int sim_track_dirty(lru_t *m);

/* Feed one run of real page numbers; sim_flush replays the run still waiting to merge. */
void sim_feed(lru_t *m, const run_t *r);
void sim_flush(lru_t *m);

void sim_free(lru_t *m);

#endif /* LOADGEN_LRUSIM_POOL_H */
