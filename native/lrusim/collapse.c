/*
 * The collapse (collapse.h): replaying a run's repeats from one state-changing access to the next.
 */
#include "collapse.h"

#include "access.h"

static inline int aged(const lru_t *m, uint32_t p, uint64_t q) {
    return (double)q * m->ms_per_query - m->pg[p].access_ms >= m->old_time_ms;
}

/* The first repeat j in [js, k) at which accessing p changes anything but the counters, or k.
 * While nothing changes, nothing is evicted, so the freed-page clock stands still and only time
 * moves: an old page waits for old_blocks_time, every other test gives the same answer again. */
static uint64_t next_event(const lru_t *m, uint32_t p, uint64_t q0, uint64_t js, uint64_t k) {
    if (!m->pg[p].resident || m->pg[p].access_ms < 0)
        return js; /* a read, or a first access (it sets the access time) */
    if (m->freed_page_clock == 0)
        return k; /* warm-up: nothing moves */
    if (m->old_time_ms > 0 && m->pg[p].old) {
        if (aged(m, p, q0 + js))
            return js;
        if (m->ms_per_query <= 0 || !aged(m, p, q0 + k - 1))
            return k;
        /* aged() is monotone in j: estimate, then settle on the exact floating-point answer */
        double x = (m->old_time_ms + m->pg[p].access_ms) / m->ms_per_query - (double)q0;
        uint64_t j = x <= (double)js ? js : x >= (double)(k - 1) ? k - 1 : (uint64_t)x;
        while (j > js && aged(m, p, q0 + j - 1))
            j--;
        while (j < k - 1 && !aged(m, p, q0 + j))
            j++;
        return j;
    }
    return drifted(m, p) ? js : k;
}

/* Accessing p changes nothing now: does it count in Innodb_buffer_pool_pages_not_made_young? */
static inline int counts_not_young(const lru_t *m, uint32_t p) {
    return m->freed_page_clock != 0 && m->old_time_ms > 0 && m->pg[p].old;
}

void lru_run(lru_t *m, const run_t *r) {
    const int n = r->n;
    for (int i = 0; i < n; i++)
        lru_access(m, r->pages[i], (double)r->q0 * m->ms_per_query, r->mv[i]);
    if (!m->collapse) {
        for (uint64_t j = 1; j < r->k; j++)
            for (int i = 0; i < n; i++)
                lru_access(m, r->pages[i], (double)(r->q0 + j) * m->ms_per_query, r->mv[i]);
        return;
    }
    uint64_t j = 1;
    int pos = 0;
    while (j < r->k) {
        uint64_t best_j = r->k;
        int best_i = n;
        for (int i = 0; i < n; i++) {
            uint64_t js = i >= pos ? j : j + 1;
            if (js >= r->k)
                continue;
            uint64_t je = next_event(m, r->pages[i], r->q0, js, r->k);
            if (je < best_j || (je == best_j && i < best_i)) {
                best_j = je;
                best_i = i;
            }
        }
        for (int i = 0; i < n; i++) { /* the quiet accesses before (best_j, best_i) */
            uint64_t from = i >= pos ? j : j + 1;
            uint64_t to = i < best_i ? best_j + 1 : best_j;
            if (to > r->k)
                to = r->k;
            if (to > from) {
                m->refs += to - from;
                if (counts_not_young(m, r->pages[i]))
                    m->not_young += to - from;
            }
        }
        if (best_j >= r->k)
            break;
        lru_access(m, r->pages[best_i], (double)(r->q0 + best_j) * m->ms_per_query, r->mv[best_i]);
        j = best_j;
        pos = best_i + 1;
        if (pos == n) {
            j++;
            pos = 0;
        }
    }
}
