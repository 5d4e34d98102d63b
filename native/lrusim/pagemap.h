/*
 * A miniature's map of a mix's page space (mix_feed_mapped; loadgen/analysis/tracesample.py):
 * each page of the space to its simulated page, or -1 where it is not sampled. The map as Python
 * gives it is an int32 per page (1.7 MB for the bench's 442k pages: a cache miss on most
 * references, 44% of a 3% miniature's time, perf on bench/predict_speed.py's 30M trace); here it
 * is 8 bytes per 64 pages, which stay in L2. The sampled units are 64 consecutive leaves and the
 * kept pages long runs, so a 64-page block mostly maps one run of consecutive pages to consecutive
 * simulated pages (or none); a block that does not (a tree's last leaves beside its upper levels)
 * is looked up in the full map.
 */
#ifndef LOADGEN_LRUSIM_PAGEMAP_H
#define LOADGEN_LRUSIM_PAGEMAP_H

#include <stdint.h>

#define PAGEMAP_SHIFT 6 /* 64 pages a block */

typedef struct {
    int32_t base;   /* simulated page of the block's page lo; -1: look the block up in the full map */
    uint8_t lo, hi; /* pages lo..hi-1 of the block are mapped (lo == hi: none) */
} pagemap_block_t;

typedef struct {
    pagemap_block_t *blocks;
    const int32_t *full; /* the caller's map: it must outlive the pagemap */
    uint64_t n;          /* pages in the map */
} pagemap_t;

/* Build pm over map[0..n) (read, not copied: full points to it). -1 on allocation failure. */
int pagemap_build(pagemap_t *pm, const int32_t *map, uint64_t n);
void pagemap_free(pagemap_t *pm);

/* map[p] for p < n. */
static inline int32_t pagemap_get(const pagemap_t *pm, uint32_t p) {
    const pagemap_block_t *b = &pm->blocks[p >> PAGEMAP_SHIFT];
    uint32_t j = p & ((1u << PAGEMAP_SHIFT) - 1);
    if (b->base < 0)
        return pm->full[p];
    return j >= b->lo && j < b->hi ? b->base + (int32_t)(j - b->lo) : -1;
}

#endif /* LOADGEN_LRUSIM_PAGEMAP_H */
