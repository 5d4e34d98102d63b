/*
 * Where a PK-ordered table's leaves sit in its tablespace (docs/innodb.md, "Table geometry"):
 * the first 32 leaves on the segment's fragment pages 4..35, then whole 64-page extents from
 * page 64 on, skipping the XDES/ibuf-bitmap extent at every 16,384 pages. Read-ahead works on
 * these physical pages, and a miniature samples whole extents. loadgen/analysis/geometry.py
 * (leaf_phys, phys_leaf) places them the same way.
 *
 * Header only: these run in the simulator's inner loops, inlined where they are used.
 */
#ifndef LOADGEN_LRUSIM_LAYOUT_H
#define LOADGEN_LRUSIM_LAYOUT_H

#include <stdint.h>

#define EXTENT_PAGES 64
#define XDES_PAGES 16384 /* an XDES/ibuf-bitmap extent starts every 16,384 pages */
#define FRAG_LEAVES 32   /* the first 32 leaves are the segment's fragment pages 4..35 */
#define ROOT_PHYS 3      /* the clustered index's root */
/* MySQL's read-ahead reads whole areas, so it also reads pages that are not leaves: the rest of
 * the first extent (36..63: the level-1 pages, then free fragment pages) and the rest of the last
 * leaf's extent. Each gets a slot (0..63: physical page; 64..127: pages after the last leaf). */
#define FILLER_SLOTS 128

static inline uint64_t leaf_phys(uint64_t k) { /* physical page of leaf k */
    if (k < FRAG_LEAVES)
        return 4 + k;
    uint64_t j = k - FRAG_LEAVES;
    return EXTENT_PAGES + j + EXTENT_PAGES * (j / (XDES_PAGES - EXTENT_PAGES));
}

static inline int64_t phys_leaf_of(uint64_t page, uint64_t leaf_pages) { /* leaf on a page, or -1 */
    uint64_t k;
    if (page >= 4 && page < 4 + FRAG_LEAVES) {
        k = page - 4;
    } else {
        uint64_t block = page / XDES_PAGES, r = page % XDES_PAGES;
        if (r < EXTENT_PAGES)
            return -1; /* fsp header/fragment extent or an XDES extent */
        k = FRAG_LEAVES + block * (XDES_PAGES - EXTENT_PAGES) + r - EXTENT_PAGES;
    }
    return k < leaf_pages ? (int64_t)k : -1;
}

/* The extent (64 physical pages) holding leaf k, and the first leaf of extent u (u >= 1 holds
 * leaves; extent 0 holds the 32 fragment leaves on pages 4..35). */
static inline uint64_t leaf_unit(uint64_t k) {
    return leaf_phys(k) / EXTENT_PAGES;
}

static inline uint64_t unit_first_leaf(uint64_t u) {
    if (u == 0)
        return 0;
    uint64_t block = u * EXTENT_PAGES / XDES_PAGES, r = u * EXTENT_PAGES % XDES_PAGES;
    if (r < EXTENT_PAGES)
        return UINT64_MAX; /* an XDES extent: no leaves */
    return FRAG_LEAVES + block * (XDES_PAGES - EXTENT_PAGES) + r - EXTENT_PAGES;
}

#endif /* LOADGEN_LRUSIM_LAYOUT_H */
