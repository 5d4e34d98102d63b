/*
 * MySQL's change buffer in a mix's pool (ibuf.h).
 */
#include "ibuf.h"

#include <stdlib.h>
#include <string.h>

#include "access.h"

#define MERGE_PERIOD_MS 1000.0 /* srv_master_thread: the active tasks once a second */

int ibuf_init(ibuf_t *ib, uint64_t n_pages, uint64_t max_entries, uint64_t merge_pages) {
    memset(ib, 0, sizeof(*ib));
    if (!max_entries)
        return 0;
    ib->max_entries = max_entries;
    ib->merge_pages = merge_pages;
    ib->next_merge_ms = MERGE_PERIOD_MS;
    ib->n_buf = calloc(n_pages, sizeof(uint32_t));
    ib->n_recs = calloc(n_pages, sizeof(int32_t));
    ib->list = malloc(n_pages * sizeof(uint32_t));
    ib->pos = malloc(n_pages * sizeof(uint32_t));
    return ib->n_buf && ib->n_recs && ib->list && ib->pos ? 0 : -1;
}

void ibuf_free(ibuf_t *ib) {
    free(ib->n_buf);
    free(ib->n_recs);
    free(ib->list);
    free(ib->pos);
    memset(ib, 0, sizeof(*ib));
}

int ibuf_take(ibuf_t *ib, const lru_t *m, uint32_t p, int purge) {
    if (!ib->max_entries || m->pg[p].resident || ib->entries >= ib->max_entries)
        return 0;
    if (purge && ib->n_recs[p] < 2)
        return 0; /* the page could become empty: purge reads it */
    ib->n_recs[p] += purge ? -1 : 1;
    if (!ib->n_buf[p]) {
        ib->pos[p] = (uint32_t)ib->n_list;
        ib->list[ib->n_list++] = p;
    }
    ib->n_buf[p]++;
    ib->entries++;
    ib->buffered++;
    return 1;
}

/* p's entries applied: off the list, the page dirty (the merge changed it) */
static void merged(ibuf_t *ib, lru_t *m, uint32_t p) {
    ib->entries -= ib->n_buf[p];
    ib->n_buf[p] = 0;
    ib->n_recs[p] = 0;
    uint32_t last = ib->list[--ib->n_list];
    ib->list[ib->pos[p]] = last;
    ib->pos[last] = ib->pos[p];
    set_dirty(m, p);
}

void ibuf_merge_read(ibuf_t *ib, lru_t *m, uint32_t p) {
    if (ib->max_entries && ib->n_buf[p]) {
        merged(ib, m, p);
        ib->merged_read++;
    }
}

/* ibuf_merge_in_background: the pages of random change buffer pages, read by the merge
 * (buf_read_ibuf_merge_pages: an asynchronous read, into the old sublist, no access) until it
 * read merge_pages or the buffer is empty; here the pages buffered first go first. */
void ibuf_tick(ibuf_t *ib, lru_t *m, double now_ms) {
    if (!ib->max_entries || now_ms < ib->next_merge_ms)
        return;
    for (uint64_t n = 0; n < ib->merge_pages && ib->n_list; n++) {
        uint32_t p = ib->list[0];
        lru_read(m, p);
        merged(ib, m, p);
        ib->merged_bg++;
    }
    while (ib->next_merge_ms <= now_ms)
        ib->next_merge_ms += MERGE_PERIOD_MS;
}
