/*
 * Plain LRU for every pool size in one pass (Mattson et al., 1970): a page's stack distance is
 * the number of distinct pages touched since its previous access, counted with a Fenwick tree
 * over access times; a pool of C pages misses every reference at a distance above C. The naive
 * baseline of the model (InnoDB's LRU is not a stack algorithm), and what libCacheSim's LRU is
 * checked against (bench/bench_curve.py --libcachesim).
 */
#ifndef LOADGEN_LRUSIM_MATTSON_H
#define LOADGEN_LRUSIM_MATTSON_H

#include <stdint.h>

#include "source.h"

#define MRU_TOP 8

/* The live time slots (1 where a page's latest access sits) as a bitmap, 64 slots a word, with a
 * Fenwick tree over the words' counts: a prefix count is the tree's (over size/64 words, 100 KB
 * for the seed case, cache-resident) plus one popcount, not a walk over a tree of every slot
 * (6.5 MB: a cache miss a level). */
typedef struct {
    int32_t *tree;  /* Fenwick tree over words: live slots in each word */
    uint64_t *bits; /* a bit per slot */
    uint64_t words;
    uint32_t *owner;
    int64_t *last; /* slot of each page's latest access, -1 if none */
    uint64_t size, t, live, n_pages;
    uint32_t top[MRU_TOP]; /* the most recent pages, outside the tree */
    int n_top;
} lru_stack_t;

/* A stack for n_pages pages; -1 on allocation failure (free it with stack_free all the same). */
int stack_init(lru_stack_t *s, uint64_t n_pages);
void stack_free(lru_stack_t *s);

/* One run through the stack: its first query reference by reference, then its repeats. The top
 * MRU_TOP entries of the stack (the root and the current path, nearly always) live in a small
 * array, most recent first, outside the tree: their distance is their position. A page pushed out
 * of the array enters the tree at the next slot, which keeps the tree's slots in stack order (it
 * is more recent than everything already there). */
void mattson_run(lru_stack_t *s, uint64_t *hist, const run_t *rr);

#endif /* LOADGEN_LRUSIM_MATTSON_H */
