/*
 * InnoDB's LRU list as MariaDB 10.11 / MySQL 8.0-9.x implement it (storage/innobase/buf/
 * buf0lru.cc, include/buf0buf.ic; docs/innodb.md, "The LRU rules the model uses"):
 *  - new pages go to the head of the old sublist once the list holds BUF_LRU_OLD_MIN_LEN pages,
 *    to the head of the list before that;
 *  - buf_LRU_old_adjust_len keeps the old sublist within BUF_LRU_OLD_TOLERANCE of
 *    old_pct*1024/100 / 1024 of the list, moving the boundary (which makes pages young without
 *    an access: how a cold pool's young region fills);
 *  - no page moves while nothing has been evicted (freed_page_clock == 0: warm-up);
 *  - an old page is made young only when accessed >= old_time_ms after its first access;
 *  - a young page moves back to the head only after drifting more than a quarter of the young
 *    region (measured with freed_page_clock).
 * The free-page reserve of the page cleaner is the caller's business: `capacity` is the number
 * of data pages the pool holds, `pool_pages` the pool size used by the young-drift rule.
 *
 * lru_t is one simulated pool: the list, the counters, and the state of the parts that act on
 * it, each in its own file: the page cleaner (cleaner.c), linear read-ahead (readahead.c), one
 * page access and read (access.c), the collapse of repeated queries (collapse.c), miniatures
 * (miniature.c); pool.c sets one up. This file is the bottom of the kernel's calls: it calls none
 * of them.
 */
#ifndef LOADGEN_LRUSIM_INNODB_LRU_H
#define LOADGEN_LRUSIM_INNODB_LRU_H

#include <stdint.h>

#include "layout.h"
#include "source.h"

#define OLD_MIN_LEN 512     /* BUF_LRU_OLD_MIN_LEN */
#define OLD_TOLERANCE 20    /* BUF_LRU_OLD_TOLERANCE */
#define NON_OLD_MIN_LEN 5   /* BUF_LRU_NON_OLD_MIN_LEN */
#define RATIO_DIV 1024      /* BUF_LRU_OLD_RATIO_DIV */
#define LRU_MIN_LEN 256     /* BUF_LRU_MIN_LEN: the page cleaner's LRU batch stops there */
#define CLOCK_TICKS 65536.0 /* a miniature's freed-page clock: ticks per page of weight */

/* Whose linear read-ahead trigger (readahead.c). */
enum { RA_RULE_MARIADB = 0, RA_RULE_MYSQL = 1 };

typedef struct mini mini_t; /* miniature.h */

/* A page's state that a reference reads or writes, in one record (32 bytes, two to a cache line):
 * the same fields were seven arrays, so each reference to a page missed the cache in each of them
 * (the exact pools' state is tens of MB; branch speedmysql, bench/README.md). */
typedef struct {
    uint32_t prev, next;
    double access_ms; /* first access, < 0 when not accessed (InnoDB's access_time == 0) */
    uint64_t fpc;     /* freed_page_clock when last put at the head */
    uint8_t resident, old, touched;
} page_t;

typedef struct {
    page_t *pg;      /* each simulated page's list links and state (n_alloc) */
    uint32_t *nmiss; /* reads of each page (misses and read-ahead) */
    uint32_t head, tail, lru_old;
    uint64_t len, old_len, capacity, pool_pages, n_pages;
    double wlen, wcap, upper_w; /* capacity in leaf units: an upper page weighs upper_w */
    uint64_t one_end;           /* pages below weigh 1 (the sampled ones): the leaves, or a mix's sample */
    double wcap_lo;             /* a full pool is emptied down to this (the page cleaner's batch) */
    /* MySQL's timer-driven page cleaner (cleaner_tick): off when tick_depth == 0 */
    uint64_t tick_depth; /* innodb_lru_scan_depth: free frames an LRU batch refills to */
    double tick_next_ms, tick_period_ms;
    uint64_t ticks_left; /* batches still to come; 0 = one every period */
    /* the batches a run recorded (cleaner_replay): pairs (queries done, pages evicted) */
    const uint64_t *seen;
    uint64_t n_seen, i_seen;
    uint64_t freed_page_clock;
    uint64_t old_ratio;
    double old_time_ms, ms_per_query;
    uint64_t refs, misses, made_young, not_young;
    /* linear read-ahead: off when ra_threshold == 0 */
    uint64_t ra_threshold, ra_area, leaf_pages;
    uint64_t ra_pages, ra_evicted;
    int ra_rule;          /* RA_RULE_MARIADB or RA_RULE_MYSQL */
    uint64_t n_alloc;     /* simulated pages: n_pages, then the filler slots, then start-up pages */
    uint64_t filler_base; /* first filler slot: non-leaf pages MySQL's read-ahead reads */
    uint64_t tail_phys;   /* first physical page after the last leaf */
    uint64_t space_end;   /* physical pages in the file as read-ahead sees it (area must fit) */
    mini_t *mini;         /* NULL: the whole table */
    int collapse;
    run_t pend; /* a run waiting for the next one, to merge identical paths */
    /* A miniature keeps the old sublist and the freed-page clock in weighted units, as the full
     * pool would see them (leaves 1, upper pages upper_w), with InnoDB's page-count constants
     * scaled by the sampling rate (weighted != 0; see sim_init). */
    int weighted;
    double wold_len;                              /* weight of the old sublist */
    double w_tolerance, w_non_old_min, w_old_min; /* OLD_TOLERANCE etc. times the rate */
    double wbatch;                                /* the page cleaner's batch times the rate */
    double wclock;                                /* freed-page clock: weight of the pages evicted */
    uint64_t wquarter;                            /* the drift rule's quarter of the young region, in clock ticks */
    int promote;                                  /* promote a read-ahead burst's young pages at a batch (make_room) */
    int n_burst;                                  /* pages of the read-ahead burst being read, -1 outside one */
    uint32_t burst[EXTENT_PAGES];
    /* Dirty pages inside the pool (a mix's writes; NULL: none is ever dirty). The flush list
     * (fl_prev/fl_next, oldest first) holds them in the order they turned dirty. */
    uint8_t *dirty;
    float *dirty_ms; /* when each dirty page turned dirty (its oldest_modification, in time) */
    double now_ms;   /* the clock of the reference being simulated (set_dirty stamps it) */
    uint32_t *fl_prev, *fl_next;
    uint32_t fl_head, fl_tail;
    uint64_t n_dirty, dirty_evicted; /* dirty now; evicted dirty (each written first) */
    double w_dirty;                  /* the dirty pages' weight (a miniature's MySQL cleaner: cleaner.c) */
    double fl_carry;                 /* a miniature's flush-list batch: weight owed to the next (or over) */
    uint64_t dirty_evicted_one;      /* of them, pages below one_end (a miniature's sampled pages) */
    /* MySQL's user threads look for a clean page among this many from the tail before they
     * write one (clean_scan; 0: the tail page, MariaDB's batches); try_scan is
     * buf_pool->try_LRU_scan, off after a search failed until the page cleaner's next batch. */
    uint32_t clean_scan;
    int try_scan;
    int wake;                /* a search failed: the page cleaner's timed batch runs at the next access */
    uint64_t single_flushes; /* frames a user thread got by writing the tail page */
    uint64_t lru_batches;    /* the page cleaner's LRU batches (cleaner_tick, cleaner_replay) */
    uint64_t fl_batch;       /* pages a flush-list batch writes (cleaner.h flush_list_tick); 0: none */
    uint64_t fl_io;          /* innodb_io_capacity: the batch sized as MySQL's adaptive flushing does (0: fl_batch) */
    double fl_avg, fl_sum;   /* its avg_page_rate, and the pages written since it was last averaged */
    double fl_lsn_w;         /* lsn_avg_rate over the redo rate: 0 until the first averaging, then (w + 1) / 2 */
    uint64_t fl_loops;       /* batches since then (innodb_flushing_avg_loops of them average it) */
    double fl_next_ms;
    /* Pinned pages (a miniature's hot pages above the leaves, mix.h mix_pin; NULL: none): pin[p]
     * 0 not a candidate, 1 a candidate, 2 pinned: out of the list for good, its frame still
     * counted in len / wlen as a young page's, its references only counted (pin_page). */
    uint8_t *pin;
    double w_pinned, pin_cap_w; /* the pinned pages' weight, and the most they may weigh */
    uint64_t n_pinned;
} lru_t;

/* Leaves (in a mix's miniature, every sampled page: one_end) and filler pages (they sit in sampled
 * extents) weigh 1; pages above the leaves and the start-up pages stand for all the real ones in a
 * miniature's scaled pool. */
static inline double weight(const lru_t *m, uint32_t p) {
    if (p < m->one_end || (p >= m->filler_base && p < m->filler_base + FILLER_SLOTS))
        return 1.0;
    return m->upper_w;
}

/* The list is long enough for an old sublist (BUF_LRU_OLD_MIN_LEN pages; in a miniature, that
 * many pages' weight at full scale). */
static inline int long_enough(const lru_t *m) {
    return m->weighted ? m->wlen >= m->w_old_min : m->len >= OLD_MIN_LEN;
}

/* buf_page_peek_if_young's drift rule: young unless it drifted > 1/4 of the young region */
static inline int drifted(const lru_t *m, uint32_t p) {
    if (m->weighted)
        return !((uint64_t)(m->wclock * CLOCK_TICKS) < m->pg[p].fpc + m->wquarter);
    uint64_t quarter = m->pool_pages * (RATIO_DIV - m->old_ratio) / (RATIO_DIV * 4);
    return !((m->freed_page_clock & ((1ULL << 31) - 1)) < m->pg[p].fpc + quarter);
}

void remove_block(lru_t *m, uint32_t p);       /* buf_LRU_remove_block */
void add_block(lru_t *m, uint32_t p, int old); /* buf_LRU_add_block_low: old != 0, at the old sublist's head */
void evict_tail(lru_t *m);                     /* buf_LRU_free_page on the LRU tail */
void evict_page(lru_t *m, uint32_t p);         /* buf_LRU_free_page on p (a dirty p written first) */
void set_dirty(lru_t *m, uint32_t p);          /* p modified: onto the flush list if it was clean */
void set_clean(lru_t *m, uint32_t p);          /* p written: off the flush list, in the pool */

/* Pin resident young page p when it may be (pin[p] == 1, past warm-up, an old sublist, the pinned
 * weight under pin_cap_w): out of the list, its frame kept (len, wlen and the young region count
 * it). Returns 1 when pinned. */
int pin_page(lru_t *m, uint32_t p);

/* A hit on resident page p at now_ms should move it to the head (buf_page_peek_if_too_old); an
 * old page that waits for innodb_old_blocks_time counts in not_young. */
int too_old(lru_t *m, uint32_t p, double now_ms);

#endif /* LOADGEN_LRUSIM_INNODB_LRU_H */
