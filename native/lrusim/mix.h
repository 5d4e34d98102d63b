/*
 * A mixed workload's references (several tables and indexes in one pool, reads and writes):
 * an explicit trace built by loadgen/analysis/mixmodel.py, one reference per page an operation
 * touches, with flags. Each B-tree has its own block of page numbers; only the block at page 0
 * (the first table's clustered index, leaves first, in key order) has physical page numbers, so
 * linear read-ahead runs on its leaves only.
 *
 * Dirty pages are followed inside the pool (innodb_lru.h): a page a write touched is dirty until
 * it is evicted, or written by MySQL's flush-list batch when the caller gives it one
 * (sim_cfg_t.fl_batch; without it the pages evicted dirty are an upper bound of the LRU
 * flushes). MySQL's user threads pass dirty pages at the tail (lru_params_t.clean_scan).
 */
#ifndef LOADGEN_LRUSIM_MIX_H
#define LOADGEN_LRUSIM_MIX_H

#include <stdint.h>

#include "ibuf.h"
#include "kernel.h"
#include "pagemap.h"

#define MIX_MOVE 1    /* the reference is a step to the next leaf (MariaDB's read-ahead trigger) */
#define MIX_WRITE 2   /* the operation changes the page: dirty from here on */
#define MIX_OP 4      /* the first reference of an operation: the clock moves on one operation */
#define MIX_NEW 8     /* a page the operation creates (an insert's new leaf): a frame, no read */
#define MIX_BUFFER 16 /* a change MySQL's change buffer may take instead of reading the leaf (ibuf.h) */
#define MIX_PURGE 32  /* with MIX_BUFFER: purge's removal of an entry (buffered under ibuf.h's rule) */

typedef struct {
    lru_counts_t counts;
    uint64_t dirty_evicted;    /* pages evicted while dirty (each write-back before a frame's reuse) */
    uint64_t dirty_at_end;     /* dirty pages still resident at the end */
    uint64_t filler_reads;     /* pages MySQL's read-ahead read that have no page number (layout.h) */
    uint64_t single_flushes;   /* frames MySQL's user threads got by writing the tail page */
    uint64_t lru_batches;      /* MySQL's page-cleaner LRU batches */
    uint64_t ibuf_buffered;    /* changes the change buffer took (ibuf.h) */
    uint64_t ibuf_merged;      /* pages their entries were merged into: read by a reference or the merge */
    uint64_t ibuf_merge_reads; /* of them, read by the master thread's merge */
} mix_counts_t;

/* One pool's simulation fed in pieces (a trace too long to hold): mix_begin, mix_feed with each
 * piece in order, mix_end (which frees it; mix_free alone when it is dropped). The same counts
 * as lrusim_mix over the pieces joined. */
typedef struct {
    lru_t m;
    int live; /* 0 once freed */
    uint64_t n_pages;
    uint64_t evicted_one; /* pages evicted dirty below m.one_end (a miniature's sampled pages) */
    double now_ms;
    ibuf_t ib; /* MySQL's change buffer: off unless mix_ibuf turned it on */
} mix_state_t;

int mix_begin(mix_state_t *s, const sim_cfg_t *c, const lru_params_t *p, uint64_t n_pages, uint64_t leaf_pages);
/* Turn the change buffer on (ibuf.h) after mix_begin: max_entries it holds, merge_pages the master
 * thread's merge reads a second. -1 on allocation failure (the state freed). */
int mix_ibuf(mix_state_t *s, uint64_t max_entries, uint64_t merge_pages);
void mix_feed(mix_state_t *s, const uint32_t *pages, const uint8_t *flags, uint64_t n);
/* mix_feed of a miniature (loadgen/analysis/tracesample.py): map gives the simulated page of
 * each page of the space, or -1 for a page not sampled (its reference dropped, its operation's
 * time kept); every page below map->n. */
void mix_feed_mapped(mix_state_t *s, const uint32_t *pages, const uint8_t *flags, uint64_t n, const pagemap_t *map);
/* mix_feed_mapped's remainder (squeeze.h): the simulated pages q[0..n) with their flags and the
 * clock at each; then dropped references to pages this pool had pinned (only counted), and the
 * clock at the piece's end. */
void mix_feed_squeezed(mix_state_t *s, const uint32_t *q, const uint8_t *flags, const double *at_ms, uint64_t n,
                       uint64_t dropped, double end_ms);
/* Pin a miniature's hot pages (innodb_lru.h pin_page): cand[q] != 0 for each simulated page q (n of
 * them, from 0) that may be pinned once it is referenced resident and young; pinned pages weigh
 * at most share of the pool. A pinned page's references are counted and nothing else (no list
 * move, never evicted): its reads are its first one. Not exact: a page the exact list would let
 * sink and evict stays (the bench's trace: docs/capture.md). -1 on allocation failure. */
int mix_pin(mix_state_t *s, const uint8_t *cand, uint64_t n, double share);
void mix_end(mix_state_t *s, mix_counts_t *out, uint32_t *reads);
/* mix_end's counts and reads of the references fed so far, the state kept to be fed on (the
 * held-spread twins of a long trace are compared with their pool at the chunk they stop at:
 * loadgen/analysis/heldspread.py). */
void mix_peek(mix_state_t *s, mix_counts_t *out, uint32_t *reads);
void mix_free(mix_state_t *s);

/* InnoDB's LRU (pool c, params p) over pages[0..n) with flags[0..n), a space of n_pages pages
 * whose first leaf_pages are the physical-layout leaves; reads[n_pages] (zeroed by the caller,
 * may be NULL) gets each page's reads; ibuf: the change buffer's (max_entries, merge_pages), NULL or
 * {0, 0}: none. Returns -1 on allocation failure. */
int lrusim_mix(const uint32_t *pages, const uint8_t *flags, uint64_t n, const sim_cfg_t *c, const lru_params_t *p,
               uint64_t n_pages, uint64_t leaf_pages, const uint64_t ibuf[2], mix_counts_t *out, uint32_t *reads);

#endif /* LOADGEN_LRUSIM_MIX_H */
