/*
 * A miniature's map in 64-page blocks (pagemap.h).
 */
#include "pagemap.h"

#include <stdlib.h>

int pagemap_build(pagemap_t *pm, const int32_t *map, uint64_t n) {
    uint64_t bs = (uint64_t)1 << PAGEMAP_SHIFT, n_blocks = (n + bs - 1) / bs;
    pm->full = map;
    pm->n = n;
    pm->blocks = malloc((n_blocks ? n_blocks : 1) * sizeof(pagemap_block_t));
    if (!pm->blocks)
        return -1;
    for (uint64_t k = 0; k < n_blocks; k++) {
        uint64_t first = k * bs, end = first + bs < n ? first + bs : n, lo = end, hi = first;
        for (uint64_t p = first; p < end; p++) {
            if (map[p] >= 0) {
                lo = p < lo ? p : lo;
                hi = p + 1;
            }
        }
        pagemap_block_t *b = &pm->blocks[k];
        b->base = 0;
        b->lo = b->hi = 0;
        if (lo >= hi)
            continue; /* nothing mapped */
        /* one run of mapped pages onto consecutive simulated pages, or the full map */
        int regular = 1;
        for (uint64_t p = lo; p < hi && regular; p++)
            regular = map[p] >= 0 && (int64_t)map[p] == (int64_t)map[lo] + (int64_t)(p - lo);
        b->base = regular ? map[lo] : -1;
        b->lo = (uint8_t)(lo - first);
        b->hi = (uint8_t)(hi - first);
    }
    return 0;
}

void pagemap_free(pagemap_t *pm) {
    free(pm->blocks);
    pm->blocks = NULL;
}
