/*
 * One page access and one page read (buf_page_get_gen, buf_read_page): where the LRU list
 * (innodb_lru.c), the page cleaner (cleaner.c) and linear read-ahead (readahead.c) meet. The
 * kernel's calls run one way: this file calls those three, the cleaner calls the list, read-ahead
 * only looks at it, and the list calls none of them.
 */
#ifndef LOADGEN_LRUSIM_ACCESS_H
#define LOADGEN_LRUSIM_ACCESS_H

#include "innodb_lru.h"

/* Read page p into the old sublist, without an access time (a miss, or a page read ahead). */
void lru_read(lru_t *m, uint32_t p);

/* One reference to page p at now_ms (buf_page_get_gen): a hit moves it as the rules say, a miss
 * reads it into the old sublist (the page cleaner freeing a frame first), and a first access may
 * trigger linear read-ahead (move: the reference is a step to the next leaf, MariaDB's trigger). */
void lru_access(lru_t *m, uint32_t p, double now_ms, int move);

#endif /* LOADGEN_LRUSIM_ACCESS_H */
