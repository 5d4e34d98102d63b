/*
 * The page cleaner (cleaner.h): its settings, the batches that free frames for reads, and
 * MySQL's timed LRU batch.
 */
#include "cleaner.h"

#include <math.h>

void cleaner_init(lru_t *m, const sim_cfg_t *c, double scale) {
    double b = c->rate < 1 ? (double)c->batch * scale : (double)c->batch;
    m->wcap_lo = b >= 1 && b < m->wcap ? m->wcap - (double)(uint64_t)(b + 0.5) + 1 : m->wcap;
    if (m->mini) {
        m->wbatch = c->batch > 1 ? (double)c->batch * scale : 0;
        m->promote = m->wbatch > 0 && m->ra_rule == RA_RULE_MARIADB;
    }
    m->tick_depth = c->tick_depth;
    m->tick_next_ms = c->tick_phase_ms;
    m->tick_period_ms = c->tick_period_ms;
    m->ticks_left = c->ticks;
    m->seen = c->seen;
    m->n_seen = c->seen ? c->n_seen : 0;
    m->i_seen = 0;
}

/* One frame freed for a read (buf_LRU_get_free_block). MySQL's user thread looks for a clean
 * page among the clean_scan pages at the tail (buf_LRU_free_from_common_LRU_list: its scan
 * iterator restarts at the tail while it stands in the old sublist, and a dirty page is not
 * ready for replace), evicting the first it finds; when none is clean it stops looking until the
 * page cleaner's next batch (try_LRU_scan) and writes the tail page and frees it
 * (buf_flush_single_page_from_LRU). Without clean_scan or dirty pages: the tail page. */
static void free_for_read(lru_t *m) {
    if (m->clean_scan && m->n_dirty && m->try_scan) {
        uint32_t p = m->tail;
        if (m->weighted) { /* a miniature: the scan's clean_scan pages as their weight at its rate */
            double budget = (double)m->clean_scan * m->upper_w, acc = 0;
            for (; p != NIL && acc + 0.5 * weight(m, p) < budget; acc += weight(m, p), p = m->pg[p].prev) {
                if (!m->dirty[p]) {
                    evict_page(m, p);
                    return;
                }
            }
        }
        for (uint32_t n = 0; !m->weighted && p != NIL && n < m->clean_scan; n++, p = m->pg[p].prev) {
            if (!m->dirty[p]) {
                evict_page(m, p);
                return;
            }
        }
        m->try_scan = 0;
        m->wake = 1; /* os_event_set(buf_flush_event): the page cleaner's batch comes early */
    }
    if (m->tail == NIL)
        return; /* a miniature's list of pinned pages only */
    if (m->clean_scan && m->dirty && m->dirty[m->tail])
        m->single_flushes++;
    evict_tail(m);
}

/* MariaDB's LRU batch (buf_flush_LRU_list_batch, 10.11 and 11.8) from the tail while the list is
 * longer than its floor: a clean page is evicted; a dirty one is written (buf_page_t::flush) and
 * stays where it is, counting in the list's length, so the batch goes on up the list past it. The
 * write frees no frame: 11.8's batch notes that only the temporary tablespace's pages are evicted
 * when an LRU write completes, and the runs' own counters agree on 10.11.19 as on 11.8.9 (the 64
 * stored sysbench-oltp-rw runs at 16M, 114-5,022 q/s: the clean pages the batches evicted,
 * buffer_LRU_batch_evict_total_pages, are 0.88-0.98 of the pages read or created, where with the
 * pages they wrote, buffer_LRU_batch_flush_total_pages, they would be 1.36-1.78 of them; docs/
 * workloads.md, "Dirty pages an LRU batch writes stay in the list").
 * The page, clean now, is the next batch's first to go unless accessed meanwhile. A dirty page
 * kept through a batch is the one a write just touched (an undo page, a leaf updated), so the
 * batch takes clean pages higher up in its place. Counted as a dirty eviction (the run's
 * lru_batch_flushed). */
static void mariadb_batch(lru_t *m, double w, double lo) {
    uint32_t p = m->tail;
    while (p != NIL && m->len > 0 && m->wlen + w > lo) {
        uint32_t up = m->pg[p].prev;
        if (m->dirty[p]) {
            set_clean(m, p);
            m->dirty_evicted++;
            m->dirty_evicted_one += p < m->one_end;
        } else {
            evict_page(m, p);
        }
        p = up;
    }
}

/* A free frame for a page of weight w about to be read. A full pool is emptied from the tail
 * down to wcap_lo: MariaDB's page cleaner frees pages in batches (the free list swings between
 * innodb_lru_scan_depth/2 and innodb_lru_scan_depth), so the LRU list shrinks and regrows, and
 * the old/young boundary moves with it (wcap_lo == wcap: one page per read). */
void make_room(lru_t *m, double w) {
    if (!(m->len > 0 && m->wlen + w > m->wcap))
        return;
    /* a miniature frees its batch's weight, batch x rate, without rounding it to pages */
    double lo = m->weighted && m->wbatch > 0 ? m->wcap - m->wbatch + w : m->wcap_lo;
    if (m->n_burst > 0 && m->wlen + w > lo) {
        /* A batch inside a read-ahead burst of a miniature. At full scale the burst is a small
         * part of one batch cycle and its pages are accessed before the next batch: those the
         * boundary made young move to the head then (their first access finds them drifted).
         * The miniature's burst spans several batches; do those moves now, before this batch
         * turns them old again. */
        for (int i = 0; i < m->n_burst; i++) {
            uint32_t q = m->burst[i];
            if (m->pg[q].resident && !m->pg[q].old && m->pg[q].access_ms < 0 && m->head != q) {
                remove_block(m, q);
                add_block(m, q, 0);
            }
        }
    }
    /* a miniature's batch too (its weight, wbatch): without it a miniature evicted the dirty pages
     * the exact pool keeps, and a trace's 64M curve pool read +11.5% over the exact one at 30M
     * operations (branch mysqlmini2, bench/README.md) */
    if (m->ra_rule == RA_RULE_MARIADB && m->dirty && (m->weighted ? m->wbatch > 0 : m->wcap_lo < m->wcap))
        mariadb_batch(m, w, lo);
    /* tail NIL with len > 0: a miniature whose list holds pinned pages only; free_for_read can free
     * nothing then, so stop rather than spin (the pool runs over its weight until a page is unpinned) */
    while (m->len > 0 && m->tail != NIL && m->wlen + w > lo)
        free_for_read(m);
}

/* The pages of a batch that wrote `written` still counting in the list when it stops (below):
 * MySQL's rules only (clean_scan; the captured-trace model runs without them, as before).
 * A page the batch writes stays in the LRU list, io-fixed, until its write completes
 * (buf_page_io_complete frees it), and buf_flush_LRU_list_batch stops at BUF_LRU_MIN_LEN counting
 * such pages. Its writes go DBLWR_PAGES at a time through the doublewrite buffer: the last, partial
 * batch is written only at the batch's end (dblwr::force_flush), so all of it still counts; the
 * full batch before it was written to the doublewrite file and its pages submitted while the scan
 * went on, so when the scan stops none to all of them may have completed, as the disk allows.
 * The two ends bracket MySQL 9.7's fresh 16M runs (docs/data/repeats, 15 runs of ycsb-a, ycsb-f
 * and sysbench-oltp-rw at 906-1,763 q/s: the whole reads -5.7 .. -4.5% of their mean with none,
 * +3.3 .. +4.9% with all); the model takes half, the expectation where the completion is as likely
 * at any point of the scan (-0.7 .. +1.0%). */
static inline uint64_t still_writing(const lru_t *m, uint64_t written) {
    if (!m->clean_scan)
        return 0;
    return written % DBLWR_PAGES + (written >= DBLWR_PAGES ? DBLWR_PAGES / 2 : 0);
}

/* still_writing in a miniature's weights: `written_w` is the weight written, each page of it
 * standing for 1 / upper_w pages of the whole pool (the doublewrite batches are whole pages). */
static inline double still_writing_w(const lru_t *m, double written_w) {
    if (!m->clean_scan)
        return 0;
    double k = written_w / m->upper_w;
    return m->upper_w * (fmod(k, (double)DBLWR_PAGES) + (k >= DBLWR_PAGES ? DBLWR_PAGES / 2 : 0));
}

/* refill in a miniature (branch mysqlmini2): depth, BUF_LRU_MIN_LEN and the doublewrite batch
 * scaled by the sampling rate (upper_w) and counted in weight; each bound taken at the tail
 * page's midpoint, as cleaner_replay's weighted batch is, so the batch's size is not rounded up. */
static void refill_w(lru_t *m, uint64_t depth) {
    double d = (double)depth * m->upper_w, min_w = LRU_MIN_LEN * m->upper_w, done = 0, writing = 0;
    while (m->tail != NIL) {
        double w = weight(m, m->tail), sw = still_writing_w(m, writing);
        if (!(m->wlen + sw - 0.5 * w > min_w && done + 0.5 * w < d && m->wcap - m->wlen - sw + 0.5 * w < d))
            break;
        writing += m->dirty && m->dirty[m->tail] ? w : 0;
        evict_tail(m);
        done += w;
    }
}

/* MySQL 8.0-9.x's page cleaner, on the clock: buf_flush_page_coordinator_thread wakes about once
 * a second and, when the server saw activity, has buf_flush_LRU_list_batch evict clean pages from
 * the LRU tail until innodb_lru_scan_depth frames are free, at most that many pages, and never
 * below BUF_LRU_MIN_LEN pages (docs/innodb.md, "The page cleaner"). A read-only workload is
 * no activity (srv_check_activity), so on the lab's runs one batch landed, in the run's first
 * second: the caller sets when (phase), how often and how many. The user threads meanwhile free
 * one page per read (make_room), and one that found no clean page wakes the batch early
 * (m->wake). A dirty page the batch meets is written and freed when its write ends: until then it
 * counts in the list's length and in the batch. Its writes go through the doublewrite buffer
 * DBLWR_PAGES at a time; the last, partial one (written at the batch's end, dblwr::force_flush)
 * still counts when the batch stops, and half of the full one before it (still_writing), so a
 * batch that wrote k >= DBLWR_PAGES pages leaves the list at BUF_LRU_MIN_LEN - k % DBLWR_PAGES -
 * DBLWR_PAGES / 2 (docs/mysql-lab.md: all k over-shortens it where the batches write hundreds).
 * Quiet stretches between two accesses run the batch once: a second one would find the frames
 * already free. */
static void refill(lru_t *m, uint64_t depth) {
    uint64_t n = 0, writing = 0;
    m->try_scan = 1; /* buf_flush_end */
    m->wake = 0;
    m->lru_batches++;
    if (m->weighted) {
        refill_w(m, depth);
        return;
    }
    while (m->len > 0 && m->len + still_writing(m, writing) > LRU_MIN_LEN && n < depth &&
           m->wcap - m->wlen - (double)still_writing(m, writing) < (double)depth) {
        writing += m->dirty && m->dirty[m->tail];
        evict_tail(m);
        n++;
    }
}

void cleaner_tick(lru_t *m, double now_ms) {
    refill(m, m->tick_depth);
    if (m->ticks_left == 1) {
        m->tick_depth = 0; /* the last batch */
        return;
    }
    if (m->ticks_left > 1)
        m->ticks_left--;
    if (m->tick_period_ms <= 0) {
        m->tick_depth = 0;
        return;
    }
    while (m->tick_next_ms <= now_ms)
        m->tick_next_ms += m->tick_period_ms;
}

/* The batches a run recorded (INNODB_METRICS buffer_LRU_batch_evict_total_pages, polled while it
 * ran: loadgen/measure/cleaner.py): when MySQL's timed batch landed follows the server's activity,
 * which the model cannot know, so a run's own prediction replays what the server did. Each batch
 * evicts its pages from the LRU tail before the first access of the query it was seen at, never
 * shortening the list below BUF_LRU_MIN_LEN, as buf_flush_LRU_list_batch stops there. The count
 * recorded is of clean pages evicted: a dirty page met is written besides, counting in the list
 * until its write ends (cleaner_tick). A miniature evicts the batch's weight at its sampling rate.
 * A count of SEEN_REFILL | depth is a batch the model sizes itself, as cleaner_tick does (refill
 * the free frames to depth): the server's timing, the model's amount. */
void cleaner_replay(lru_t *m, double now_ms) {
    while (m->i_seen < m->n_seen && now_ms >= (double)m->seen[2 * m->i_seen] * m->ms_per_query) {
        if (m->seen[2 * m->i_seen + 1] & SEEN_REFILL) { /* where it was seen, sized as cleaner_tick's */
            refill(m, m->seen[2 * m->i_seen + 1] & ~SEEN_REFILL);
            m->i_seen++;
            continue;
        }
        m->try_scan = 1; /* buf_flush_end */
        m->lru_batches++;
        double want = (double)m->seen[2 * m->i_seen + 1] * (m->weighted ? m->upper_w : 1.0), done = 0;
        uint64_t writing = 0;
        while (m->len > 0 && m->len + still_writing(m, writing) > LRU_MIN_LEN &&
               (m->weighted ? done + 0.5 < want : done < want)) {
            if (m->dirty && m->dirty[m->tail])
                writing++; /* written, not counted as evicted: freed when the write ends */
            else
                done += weight(m, m->tail);
            evict_tail(m);
        }
        m->i_seen++;
    }
}

/* The pages a flush-list batch writes where no run gives its rate (fl_io: innodb_io_capacity), as
 * MySQL 8.0-9.x's page_cleaner_flush_pages_recommendation sizes it, in its integer arithmetic:
 * (PCT_IO(pct_for_dirty) + avg_page_rate + pages_for_lsn) / 3, at most innodb_io_capacity_max (2 x).
 * pct_for_dirty (af_get_pct_for_dirty): none below innodb_max_dirty_pages_pct_lwm (10%) of the pool
 * dirty, else dirty_pct x 100 / (innodb_max_dirty_pages_pct (90) + 1). pages_for_lsn: the dirty pages
 * whose oldest_modification is at most the oldest one's plus lsn_avg_rate x buf_flush_lsn_scan_factor
 * (3), DIVIDED by that factor, at least 1. avg_page_rate and lsn_avg_rate are both averaged with
 * their last value only every innodb_flushing_avg_loops (30) batches, from 0: for a restarted
 * server's first 30 seconds the window is the oldest page alone and the batch is PCT_IO / 3, so
 * under the lwm the flush list writes nothing and the dirty pages stay until the LRU batch meets
 * them at the tail. The redo is taken as written evenly in time, the window as 3 seconds times
 * lsn_avg_rate's share of the rate (fl_lsn_w: 0, then 1/2, 3/4, ...); pct_for_lsn is not modelled
 * (0 while the redo log is far from full). */
static uint64_t adaptive_batch(lru_t *m) {
    /* a miniature: the dirty pages and the window as the whole pool's, their weight over the rate */
    double s = m->weighted ? m->upper_w : 1.0;
    double n_dirty = m->weighted ? m->w_dirty / s : (double)m->n_dirty;
    double dirty_pct =
        100.0 * (m->weighted ? m->w_dirty : (double)m->n_dirty) / (double)(m->pool_pages ? m->pool_pages : 1);
    uint64_t pct = dirty_pct >= FL_DIRTY_LWM_PCT ? (uint64_t)(dirty_pct * 100.0 / (FL_MAX_DIRTY_PCT + 1.0)) : 0;
    uint64_t pct_io = (uint64_t)((double)m->fl_io * ((double)(pct < 100 ? pct : 100) / 100.0));
    uint64_t for_lsn = 0;
    if (m->fl_head != NIL) {
        double limit = (double)m->dirty_ms[m->fl_head] + FL_LSN_SCAN_FACTOR * FLUSH_PERIOD_MS * m->fl_lsn_w;
        double wl = 0;
        for (uint32_t p = m->fl_head; p != NIL && (double)m->dirty_ms[p] <= limit; p = m->fl_next[p])
            wl += weight(m, p);
        for_lsn = (uint64_t)(wl / s + 0.5);
    }
    for_lsn /= FL_LSN_SCAN_FACTOR;
    for_lsn = for_lsn < 1 ? 1 : for_lsn;
    uint64_t cap = 2 * m->fl_io; /* innodb_io_capacity_max */
    for_lsn = for_lsn < 2 * cap ? for_lsn : 2 * cap;
    uint64_t n = (pct_io + (uint64_t)m->fl_avg + for_lsn) / 3;
    n = n < cap ? n : cap;
    m->fl_sum += (double)n < n_dirty ? (double)n : n_dirty;
    if (++m->fl_loops >= FL_AVG_LOOPS) {
        m->fl_avg = (double)(uint64_t)((m->fl_sum / (double)m->fl_loops + m->fl_avg) / 2.0);
        m->fl_lsn_w = (m->fl_lsn_w + 1.0) / 2.0;
        m->fl_sum = 0.0;
        m->fl_loops = 0;
    }
    return n;
}

/* MySQL's flush-list batch, once a second (buf_flush_page_coordinator_thread): the page cleaner
 * writes the fl_batch pages that turned dirty first (oldest modification), which stay in the pool
 * clean. How many a second follows redo age and innodb_io_capacity (page_cleaner_flush_pages_
 * recommendation), which the model does not follow: the caller takes it from a run (its
 * flush-list pages over its seconds) or leaves it 0. The batch's end lets the user threads search
 * the tail again (try_LRU_scan). */
void flush_list_tick(lru_t *m, double now_ms) {
    uint64_t want = m->fl_io ? adaptive_batch(m) : m->fl_batch;
    if (m->weighted) { /* a miniature writes the batch's weight at its rate, the rest carried */
        double want_w = (double)want * m->upper_w + m->fl_carry, done = 0;
        while (done < want_w && m->fl_head != NIL) {
            done += weight(m, m->fl_head);
            set_clean(m, m->fl_head);
        }
        m->fl_carry = m->fl_head != NIL ? want_w - done : 0;
    }
    for (uint64_t n = 0; !m->weighted && n < want && m->fl_head != NIL; n++)
        set_clean(m, m->fl_head);
    m->try_scan = 1;
    while (m->fl_next_ms <= now_ms)
        m->fl_next_ms += FLUSH_PERIOD_MS;
}
