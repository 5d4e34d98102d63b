/*
 * Linear read-ahead (readahead.h): MariaDB's trigger on leaf steps, MySQL's on any first access;
 * each names the pages to read.
 */
#include "readahead.h"

#include "miniature.h"

int read_ahead_mariadb(const lru_t *m, uint32_t p, uint32_t pages[EXTENT_PAGES]) {
    uint64_t area = m->ra_area, high = sim_leaf_phys(m, p);
    if (high % area != area - 1 || p == 0 || p + 1 >= m->leaf_pages)
        return 0; /* not the last page of its area; FIL_PAGE_PREV/NEXT is FIL_NULL */
    uint64_t budget = EXTENT_PAGES - m->ra_threshold;
    if (budget > area)
        budget = area;
    double prev = -1;
    for (uint64_t page = high + 1 - area; page <= high; page++) {
        int64_t k = sim_phys_leaf(m, page);
        int fail;
        if (k < 0 || !m->pg[k].resident || m->pg[k].access_ms < 0) {
            fail = 1;
        } else {
            fail = prev >= 0 && prev > m->pg[k].access_ms;
            prev = m->pg[k].access_ms;
        }
        if (fail && !--budget)
            return 0;
    }
    int n = 0;
    for (uint64_t page = high + 1; page <= high + area; page++) { /* the next area's leaves */
        int64_t k = sim_phys_leaf(m, page);
        if (k >= 0)
            pages[n++] = (uint32_t)k;
    }
    return n;
}

/* The simulated page on physical page `page` for MySQL's read-ahead (in a miniature, `page` is
 * packed: the sampled extents side by side), or -1: a page the model has no slot for. Pages above
 * the leaves sit where a PK-ordered load puts them: the root on page 3, the others on the first
 * extent's free fragment pages from 36 on. */
static int64_t sim_page_at(const lru_t *m, uint64_t page) {
    uint64_t real = page, real_leaves = m->leaf_pages;
    const mini_t *x = m->mini;
    if (x) {
        uint64_t r = page / EXTENT_PAGES;
        if (r >= x->n_sampled_units)
            return -1;
        real = (uint64_t)x->rank_unit[r] * EXTENT_PAGES + page % EXTENT_PAGES;
        real_leaves = x->real_leaf_pages;
    }
    int64_t k = phys_leaf_of(real, real_leaves);
    if (k >= 0 && x) {
        uint64_t u = x->rank_unit[page / EXTENT_PAGES];
        return (int64_t)x->unit_base[u] + (k - (int64_t)x->unit_first[u]);
    }
    if (k >= 0)
        return k;
    uint64_t upper = m->n_pages - m->leaf_pages; /* pages above the leaves, the root last */
    if (real == ROOT_PHYS && upper)
        return (int64_t)(m->n_pages - 1);
    if (real < EXTENT_PAGES) {
        if (real >= 4 + FRAG_LEAVES && real - (4 + FRAG_LEAVES) + 1 < upper)
            return (int64_t)(m->leaf_pages + real - (4 + FRAG_LEAVES));
        return (int64_t)(m->filler_base + real);
    }
    if (real >= m->tail_phys && real < m->tail_phys + EXTENT_PAGES - 1 && real % XDES_PAGES >= EXTENT_PAGES)
        return (int64_t)(m->filler_base + EXTENT_PAGES + (real - m->tail_phys));
    return -1;
}

/* buf_read_ahead_linear as MySQL 8.0-9.x runs it, on the first access of any page (buf_page_get_gen):
 * the page must be the first or last of its area; at most min(64 - threshold, area) pages of the
 * area may be unaccessed (or not resident) or accessed out of order (a first access earlier than
 * the previous accessed page's when ascending, later when descending; equal times pass); the page's
 * FIL_PAGE_NEXT (last page) or FIL_PAGE_PREV (first page) must name a page at a border of its own
 * area, which must lie inside the file; then every page of that area not in the pool is read
 * (except ibuf bitmap pages), leaves or not. */
int read_ahead_mysql(const lru_t *m, uint32_t p, uint32_t pages[EXTENT_PAGES]) {
    uint64_t area = m->ra_area, page = sim_leaf_phys(m, p);
    uint64_t low = page / area * area, high = low + area;
    if (page != low && page != high - 1)
        return 0;
    int asc = page == high - 1 ? 1 : -1;
    uint64_t threshold = EXTENT_PAGES - m->ra_threshold, fails = 0;
    if (threshold > area)
        threshold = area;
    double pred = 0;
    int have_pred = 0;
    for (uint64_t i = low; i < high; i++) {
        int64_t k = sim_page_at(m, i);
        if (k < 0 || !m->pg[k].resident || m->pg[k].access_ms < 0) {
            fails++;
        } else {
            if (have_pred) {
                double t = m->pg[k].access_ms;
                int res = t == pred ? 0 : t < pred ? -1 : 1;
                if (res != 0 && res != asc)
                    fails++;
            }
            pred = m->pg[k].access_ms;
            have_pred = 1;
        }
        if (fails > threshold)
            return 0;
    }
    uint64_t next;
    if (page == low && p + 1 < m->leaf_pages && sim_leaf_phys(m, p + 1) == page + 1) {
        if (p == 0)
            return 0; /* FIL_PAGE_PREV is FIL_NULL */
        next = sim_leaf_phys(m, p - 1);
    } else if (page == high - 1 && p > 0 && sim_leaf_phys(m, p - 1) == page - 1) {
        if (p + 1 >= m->leaf_pages)
            return 0; /* FIL_PAGE_NEXT is FIL_NULL */
        next = sim_leaf_phys(m, p + 1);
    } else {
        return 0;
    }
    low = next / area * area;
    high = low + area;
    if ((next != low && next != high - 1) || high > m->space_end)
        return 0;
    int n = 0;
    for (uint64_t i = low; i < high; i++) {
        if (!m->mini && i % XDES_PAGES == 1)
            continue; /* an ibuf bitmap page */
        int64_t k = sim_page_at(m, i);
        if (k >= 0)
            pages[n++] = (uint32_t)k;
    }
    return n;
}
