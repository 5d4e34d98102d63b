/*
 * Linear read-ahead, the two rules (storage/innobase/buf/buf0rea.cc buf_read_ahead_linear; docs/
 * innodb.md, "The LRU rules the model uses"). This file only decides: a rule looks at the pool and
 * names the pages to read, and the access that triggered it reads them (access.c), so read-ahead
 * sits below the page reads instead of calling back into them. Pages read ahead go into the old
 * sublist without an access time and count as reads (misses and ra_pages); both rules see
 * physical page numbers (layout.h; in a miniature, its sampled extents packed side by side).
 *
 * MariaDB 10.11.19 as measured (read_ahead_mariadb, workload mode): a point select only checks
 * read-ahead when it steps to the next leaf (btr_pcur_move_to_next_page): when the id is the
 * first key of leaf p (the PAGE_CUR_L descent lands on p-1's supremum) or the last key of leaf p
 * (it reads on to p+1). If that is the page's first access and it is the last page of its
 * read-ahead area (64 pages, fewer for pools under 2,048 pages), the area's pages are checked as
 * buf_read_ahead_linear does: a page not resident, not accessed, or accessed before its
 * predecessor is a failure, and min(64 - threshold, area) failures abort. Otherwise the next
 * area's leaves that are not resident are read.
 *
 * MySQL 8.0-9.x (read_ahead_mysql): checked on the first access of any page, leaves or not; see
 * the function.
 */
#ifndef LOADGEN_LRUSIM_READAHEAD_H
#define LOADGEN_LRUSIM_READAHEAD_H

#include "innodb_lru.h"

/* Both rules write the simulated pages of the area they read into `pages`, in the order the server
 * reads them, and return how many (0: no read-ahead). The caller reads those not resident when it
 * comes to each (an earlier read may have evicted a later one). At most m->ra_area pages, a power
 * of two up to EXTENT_PAGES (the glue checks it). */

/* On the first access of leaf p, reached by a step from its neighbour (already resident and
 * accessed). */
int read_ahead_mariadb(const lru_t *m, uint32_t p, uint32_t pages[EXTENT_PAGES]);

/* On the first access of leaf p (already resident and accessed). */
int read_ahead_mysql(const lru_t *m, uint32_t p, uint32_t pages[EXTENT_PAGES]);

#endif /* LOADGEN_LRUSIM_READAHEAD_H */
