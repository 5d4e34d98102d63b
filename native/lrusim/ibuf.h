/*
 * MySQL's change buffer (storage/innobase/ibuf/ibuf0ibuf.cc; innodb_change_buffering != none) in a
 * mix's pool: a change to a non-unique secondary index's leaf that is not in the pool (the
 * descent's leaf fetch is BUF_GET_IF_IN_POOL, btr_cur_search_to_nth_level) is written to the
 * change buffer instead of reading the leaf (ibuf_insert: an insert, a delete-mark, purge's
 * delete; the descent's upper pages are read all the same). The buffered entries are merged into
 * the leaf when it is next read (ibuf_merge_or_delete_for_page at the read's completion: the leaf
 * turns dirty), or when the master thread merges them (srv_master_do_active_tasks, once a second:
 * ibuf_merge_in_background reads PCT_IO(5) pages' worth, 5% of innodb_io_capacity, in the
 * background: read into the old sublist, not accessed, dirty). Nothing is buffered while the
 * change buffer holds its maximum (innodb_change_buffer_max_size, % of the pool), counted here in
 * entries (the caller's estimate of entries per change buffer page). The change buffer's own pages
 * (a few at the sizes measured) are not in the simulated pool. Purge's removal of an entry is
 * buffered only where the buffer already holds at least two records for the leaf (ibuf_insert_low:
 * min_n_recs, the buffered inserts and delete-marks less the buffered deletes, must be >= 2, so
 * that the page cannot become empty): else purge reads the leaf.
 */
#ifndef LOADGEN_LRUSIM_IBUF_H
#define LOADGEN_LRUSIM_IBUF_H

#include <stdint.h>

#include "innodb_lru.h"

typedef struct {
    uint64_t max_entries; /* entries the change buffer may hold; 0: no change buffer */
    uint64_t merge_pages; /* pages the master thread's merge reads a second */
    uint32_t *n_buf;      /* entries buffered for each page */
    int32_t *n_recs;      /* the records they put on it: inserts and delete-marks less deletes (min_n_recs) */
    uint32_t *list, *pos; /* the pages holding entries (list[0..n_list)), pos[page] its place */
    uint64_t n_list, entries;
    double next_merge_ms; /* the master thread's next second */
    uint64_t buffered;    /* changes buffered (a leaf read saved when it was not read again) */
    uint64_t merged_read; /* pages merged when a reference read them */
    uint64_t merged_bg;   /* pages the master thread read to merge them */
} ibuf_t;

/* Set up ib for a space of n_pages (max_entries 0: off, nothing allocated): -1 on allocation failure. */
int ibuf_init(ibuf_t *ib, uint64_t n_pages, uint64_t max_entries, uint64_t merge_pages);
void ibuf_free(ibuf_t *ib);

/* A change to leaf p that the change buffer may take (purge: purge's removal of an entry): 1 when
 * it took it (p not in the pool, the buffer not full, for purge two records buffered for p), 0
 * when the leaf must be read. */
int ibuf_take(ibuf_t *ib, const lru_t *m, uint32_t p, int purge);

/* Page p was just read into the pool by a reference: its buffered entries merged (p dirty). */
void ibuf_merge_read(ibuf_t *ib, lru_t *m, uint32_t p);

/* The master thread's merges due at now_ms (once a second). */
void ibuf_tick(ibuf_t *ib, lru_t *m, double now_ms);

#endif /* LOADGEN_LRUSIM_IBUF_H */
