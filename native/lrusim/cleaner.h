/*
 * The page cleaner: how frames are freed for the pages a pool reads (docs/innodb.md, "The page
 * cleaner"; loadgen/analysis/pool.py fits its settings to the servers).
 *  - MariaDB 10.11 evicts from the LRU tail in batches when the free list runs low (it swings
 *    between innodb_lru_scan_depth/2 and innodb_lru_scan_depth): a full list is emptied by
 *    `batch` pages at once (make_room; batch 0 or 1: one page per read).
 *  - MySQL 8.0-9.x: the user threads free one page per read (make_room), and a timed LRU batch
 *    refills the free list to innodb_lru_scan_depth frames (cleaner_tick): when the first one
 *    lands (tick_phase_ms), how often (tick_period_ms) and how many (ticks) are the caller's;
 *    or, for a run that recorded its batches, those batches replayed where they were seen
 *    (cleaner_replay). Their user threads pass dirty pages at the tail for a clean one
 *    (free_for_read), and the flush-list batch cleans the oldest dirty pages once a second
 *    (flush_list_tick).
 * Every setting of the cleaner is taken from the pool's configuration in cleaner_init, and its
 * clock is looked at on every page access (cleaner_due): its timing lives in this file.
 */
#ifndef LOADGEN_LRUSIM_CLEANER_H
#define LOADGEN_LRUSIM_CLEANER_H

#include "innodb_lru.h"
#include "pool.h"

/* The cleaner's settings of pool c; scale is a miniature's realised sampling rate (1: the whole
 * table). m->wcap and m->ra_rule must be set. */
void cleaner_init(lru_t *m, const sim_cfg_t *c, double scale);

/* A free frame for a page of weight w about to be read (evicting from the tail when full). */
void make_room(lru_t *m, double w);

/* MySQL's timed LRU batch, due at now_ms. */
void cleaner_tick(lru_t *m, double now_ms);

/* Replay the recorded batches due at now_ms (sim_cfg_t.seen). A recorded count with this bit set
 * is SEEN_REFILL | depth: that batch refills the free frames to depth (cleaner_tick's rule)
 * instead of evicting the count (loadgen/measure/cleaner.py replay_schedule). */
#define SEEN_REFILL (1ULL << 63)
void cleaner_replay(lru_t *m, double now_ms);

#define FLUSH_PERIOD_MS 1000.0 /* the page cleaner's loop: one flush-list batch a second */
/* MySQL's adaptive flushing defaults (cleaner.c adaptive_batch): innodb_max_dirty_pages_pct_lwm,
 * innodb_max_dirty_pages_pct, innodb_flushing_avg_loops */
#define FL_DIRTY_LWM_PCT 10.0
#define FL_MAX_DIRTY_PCT 90.0
#define FL_AVG_LOOPS 30
#define FL_LSN_SCAN_FACTOR 3 /* buf_flush_lsn_scan_factor: pages_for_lsn's window (seconds of redo) and divisor */
#define DBLWR_PAGES 128 /* innodb_doublewrite_pages (MySQL 8.4-9.x): writes batched through the doublewrite buffer */

/* MySQL's flush-list batch, due at now_ms (lru_t.fl_batch pages, or fl_io's adaptive size; innodb_lru.h). */
void flush_list_tick(lru_t *m, double now_ms);

/* Run the timed batch, or the recorded ones, and the flush-list batch if due at now_ms (before
 * the access at now_ms). */
static inline void cleaner_due(lru_t *m, double now_ms) {
    if (m->i_seen < m->n_seen && now_ms >= (double)m->seen[2 * m->i_seen] * m->ms_per_query)
        cleaner_replay(m, now_ms);
    if (m->tick_depth && (now_ms >= m->tick_next_ms || m->wake))
        cleaner_tick(m, now_ms); /* the LRU batch first, as the page cleaner's loop runs it */
    if ((m->fl_batch || m->fl_io) && now_ms >= m->fl_next_ms)
        flush_list_tick(m, now_ms);
}

#endif /* LOADGEN_LRUSIM_CLEANER_H */
