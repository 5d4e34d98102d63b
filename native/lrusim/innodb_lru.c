/*
 * InnoDB's LRU list (innodb_lru.h): the old/young boundary, adding, removing and evicting pages,
 * and the make-young rule. It calls nothing of the cleaner or read-ahead: those act on the list
 * (cleaner.c, readahead.c) and an access brings them together (access.c).
 */
#include "innodb_lru.h"

static void set_old_all(lru_t *m, uint8_t v) {
    for (uint32_t p = m->head; p != NIL; p = m->pg[p].next)
        m->pg[p].old = v;
}

/* buf_LRU_old_adjust_len in weighted units (miniatures): the old sublist's weight within
 * w_tolerance of old_ratio of the list's weight. w_tolerance is at least half a leaf, so a
 * boundary move of one leaf cannot overshoot the band on the other side. */
static void adjust_len_w(lru_t *m) {
    double new_len = m->wlen * (double)m->old_ratio / RATIO_DIV;
    double cap = m->wlen - (m->w_tolerance + m->w_non_old_min);
    if (cap < new_len)
        new_len = cap;
    for (;;) {
        uint32_t o = m->lru_old;
        if (m->wold_len + m->w_tolerance < new_len && m->pg[o].prev != NIL) {
            m->lru_old = o = m->pg[o].prev;
            m->wold_len += weight(m, o);
            m->pg[o].old = 1;
        } else if (m->wold_len > new_len + m->w_tolerance && m->pg[o].next != NIL) {
            m->lru_old = m->pg[o].next;
            m->wold_len -= weight(m, o);
            m->pg[o].old = 0;
        } else {
            return;
        }
    }
}

static void adjust_len(lru_t *m) { /* buf_LRU_old_adjust_len */
    if (m->weighted) {
        adjust_len_w(m);
        return;
    }
    uint64_t new_len = m->len * m->old_ratio / RATIO_DIV;
    uint64_t cap = m->len - (OLD_TOLERANCE + NON_OLD_MIN_LEN);
    if (cap < new_len)
        new_len = cap;
    for (;;) {
        uint32_t o = m->lru_old;
        if (m->old_len + OLD_TOLERANCE < new_len) {
            m->lru_old = o = m->pg[o].prev;
            m->old_len++;
            m->pg[o].old = 1;
        } else if (m->old_len > new_len + OLD_TOLERANCE) {
            m->lru_old = m->pg[o].next;
            m->old_len--;
            m->pg[o].old = 0;
        } else {
            return;
        }
    }
}

static void old_init(lru_t *m) { /* buf_LRU_old_init */
    set_old_all(m, 1);
    m->lru_old = m->head;
    m->old_len = m->len;
    m->wold_len = m->wlen;
    adjust_len(m);
}

/* p out of the list's links (its neighbours joined); the counts are the caller's */
static void detach(lru_t *m, uint32_t p) {
    uint32_t pr = m->pg[p].prev, nx = m->pg[p].next;
    if (pr != NIL)
        m->pg[pr].next = nx;
    else
        m->head = nx;
    if (nx != NIL)
        m->pg[nx].prev = pr;
    else
        m->tail = pr;
}

static void unlink_page(lru_t *m, uint32_t p) {
    detach(m, p);
    m->len--;
    m->wlen -= weight(m, p);
}

void remove_block(lru_t *m, uint32_t p) { /* buf_LRU_remove_block */
    if (m->lru_old == p && long_enough(m)) {
        uint32_t pr = m->pg[p].prev;
        m->lru_old = pr;
        m->pg[pr].old = 1;
        m->old_len++;
        m->wold_len += weight(m, pr);
    }
    unlink_page(m, p);
    if (!long_enough(m)) {
        if (m->lru_old != NIL)
            set_old_all(m, 0);
        m->lru_old = NIL;
        m->old_len = 0;
        m->wold_len = 0;
        m->pg[p].old = 0;
        return;
    }
    if (m->pg[p].old) {
        m->old_len--;
        m->wold_len -= weight(m, p);
    }
    m->pg[p].old = 0;
    adjust_len(m);
}

void add_block(lru_t *m, uint32_t p, int old) { /* buf_LRU_add_block_low */
    if (!old || !long_enough(m) || (m->weighted && m->lru_old == NIL)) {
        m->pg[p].prev = NIL;
        m->pg[p].next = m->head;
        if (m->head != NIL)
            m->pg[m->head].prev = p;
        else
            m->tail = p;
        m->head = p;
        m->pg[p].fpc = m->weighted ? (uint64_t)(m->wclock * CLOCK_TICKS) : m->freed_page_clock & ((1ULL << 31) - 1);
    } else {
        uint32_t o = m->lru_old, nx = m->pg[o].next;
        m->pg[p].prev = o;
        m->pg[p].next = nx;
        m->pg[o].next = p;
        if (nx != NIL)
            m->pg[nx].prev = p;
        else
            m->tail = p;
        m->old_len++;
        m->wold_len += weight(m, p);
    }
    m->len++;
    m->wlen += weight(m, p);
    if (m->weighted) {
        if (m->lru_old != NIL) {
            m->pg[p].old = (uint8_t)old;
            adjust_len(m);
        } else if (long_enough(m)) {
            old_init(m);
        } else {
            m->pg[p].old = 0;
        }
        return;
    }
    if (m->len > OLD_MIN_LEN) {
        m->pg[p].old = (uint8_t)old;
        adjust_len(m);
    } else if (m->len == OLD_MIN_LEN) {
        old_init(m);
    } else {
        m->pg[p].old = m->lru_old != NIL;
    }
}

int too_old(lru_t *m, uint32_t p, double now_ms) { /* buf_page_peek_if_too_old */
    if (m->freed_page_clock == 0)
        return 0; /* warm-up: nothing was evicted yet, nothing moves */
    if (m->old_time_ms > 0 && m->pg[p].old) {
        if (m->pg[p].access_ms >= 0 && now_ms - m->pg[p].access_ms >= m->old_time_ms)
            return 1;
        m->not_young++;
        return 0;
    }
    return drifted(m, p);
}

void set_dirty(lru_t *m, uint32_t p) { /* buf_flush_insert_into_flush_list */
    if (m->dirty[p])
        return;
    m->dirty[p] = 1;
    m->dirty_ms[p] = (float)m->now_ms;
    m->n_dirty++;
    m->w_dirty += weight(m, p);
    m->fl_prev[p] = m->fl_tail;
    m->fl_next[p] = NIL;
    if (m->fl_tail != NIL)
        m->fl_next[m->fl_tail] = p;
    else
        m->fl_head = p;
    m->fl_tail = p;
}

void set_clean(lru_t *m, uint32_t p) { /* buf_flush_remove: written, the frame kept */
    if (!m->dirty || !m->dirty[p])
        return;
    m->dirty[p] = 0;
    m->n_dirty--;
    m->w_dirty -= weight(m, p);
    uint32_t pr = m->fl_prev[p], nx = m->fl_next[p];
    if (pr != NIL)
        m->fl_next[pr] = nx;
    else
        m->fl_head = nx;
    if (nx != NIL)
        m->fl_prev[nx] = pr;
    else
        m->fl_tail = pr;
}

/* Evict page p (buf_LRU_free_page); a dirty one is written first (an LRU flush). */
void evict_page(lru_t *m, uint32_t p) {
    if (m->dirty && m->dirty[p]) {
        set_clean(m, p);
        m->dirty_evicted++;
        m->dirty_evicted_one += p < m->one_end;
    }
    remove_block(m, p);
    m->pg[p].resident = 0;
    if (m->pg[p].access_ms < 0)
        m->ra_evicted++; /* read ahead, never used */
    m->pg[p].access_ms = -1;
    m->freed_page_clock++;
    m->wclock += weight(m, p);
}

/* Evict the page at the LRU tail. */
void evict_tail(lru_t *m) {
    evict_page(m, m->tail);
}

/* A pinned page leaves the list but not the counts: len and wlen keep it, as a young page (it is
 * young when pinned, so old_len and the boundary do not change), so the old sublist's length and
 * the pool's fill are what they were. What the exact list would do with it is re-head it when it
 * drifted (a move that changes no other page's order, and the boundary only for the moment between
 * the remove and the add) and, were it ever left untouched long enough to sink into the old
 * sublist, evict it: pinning assumes that never happens (mix.h mix_pin). */
int pin_page(lru_t *m, uint32_t p) {
    if (m->pin[p] != 1 || !m->pg[p].resident || m->pg[p].old || m->freed_page_clock == 0 || m->lru_old == NIL ||
        m->pg[p].access_ms < 0 || p == m->lru_old)
        return 0;
    double w = weight(m, p);
    if (m->w_pinned + w > m->pin_cap_w)
        return 0;
    detach(m, p);
    m->pg[p].prev = m->pg[p].next = NIL;
    m->pin[p] = 2;
    m->w_pinned += w;
    m->n_pinned++;
    return 1;
}
