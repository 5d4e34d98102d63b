/*
 * One page access and one page read (access.h).
 */
#include "access.h"

#include "cleaner.h"
#include "readahead.h"

void lru_read(lru_t *m, uint32_t p) {
    m->misses++;
    m->nmiss[p]++;
    make_room(m, weight(m, p));
    m->pg[p].resident = 1;
    m->pg[p].access_ms = -1;
    add_block(m, p, 1);
}

/* Read the pages a read-ahead named that are not resident when it comes to each. In a miniature
 * with MariaDB's batches (m->promote) they are the burst make_room looks at (cleaner.c). */
static void read_ahead(lru_t *m, const uint32_t *pages, int n) {
    if (m->promote)
        m->n_burst = 0;
    for (int i = 0; i < n; i++) {
        uint32_t k = pages[i];
        if (m->pg[k].resident)
            continue;
        m->ra_pages++;
        lru_read(m, k);
        if (m->promote)
            m->burst[m->n_burst++] = k;
    }
    m->n_burst = -1;
}

void lru_access(lru_t *m, uint32_t p, double now_ms, int move) {
    cleaner_due(m, now_ms);
    int first = !m->pg[p].resident || m->pg[p].access_ms < 0;
    m->refs++;
    m->pg[p].touched = 1;
    if (m->pg[p].resident) {
        if (too_old(m, p, now_ms)) {
            if (m->pg[p].old)
                m->made_young++;
            remove_block(m, p);
            add_block(m, p, 0);
        }
    } else {
        lru_read(m, p);
    }
    if (m->pg[p].access_ms < 0)
        m->pg[p].access_ms = now_ms;
    if (first && m->ra_threshold) {
        uint32_t pages[EXTENT_PAGES];
        int n = 0;
        if (m->ra_rule == RA_RULE_MYSQL) {
            if (p < m->leaf_pages)
                n = read_ahead_mysql(m, p, pages);
        } else if (move) {
            n = read_ahead_mariadb(m, p, pages);
        }
        if (n)
            read_ahead(m, pages, n);
    }
}
