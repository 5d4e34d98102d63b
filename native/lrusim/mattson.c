/*
 * Plain LRU, all sizes: Mattson stack distances (mattson.h).
 */
#include "mattson.h"

#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define MRU_IN_TOP (-2) /* last[p]: p is in the top array, not in the tree */

static void fen_add(lru_stack_t *s, uint64_t i, int32_t v) { /* slot i becomes live (+1) or not (-1) */
    uint64_t w = i / 64;
    if (v > 0)
        s->bits[w] |= 1ULL << (i % 64);
    else
        s->bits[w] &= ~(1ULL << (i % 64));
    for (w++; w <= s->words; w += w & (~w + 1))
        s->tree[w] += v;
}

static int64_t fen_prefix(const lru_stack_t *s, uint64_t i) { /* live slots among 0..i */
    uint64_t w = i / 64, b = i % 64;
    int64_t r = __builtin_popcountll(s->bits[w] & (b == 63 ? ~0ULL : (2ULL << b) - 1));
    for (; w > 0; w -= w & (~w + 1)) /* words 0..w-1 */
        r += s->tree[w];
    return r;
}

/* Out of slots: renumber the live slots 0..live-1 in time order and rebuild the tree. */
static void compact(lru_stack_t *s) {
    uint64_t k = 0;
    for (uint64_t slot = 0; slot < s->t; slot++) {
        uint32_t p = s->owner[slot];
        if (p != NIL && s->last[p] == (int64_t)slot) {
            s->owner[k] = p;
            s->last[p] = (int64_t)k++;
        }
    }
    for (uint64_t slot = k; slot < s->size; slot++)
        s->owner[slot] = NIL;
    memset(s->bits, 0, s->words * sizeof(uint64_t));
    for (uint64_t slot = 0; slot < k; slot++)
        s->bits[slot / 64] |= 1ULL << (slot % 64);
    memset(s->tree, 0, (s->words + 1) * sizeof(int32_t));
    for (uint64_t i = 1; i <= s->words; i++) { /* O(words) Fenwick build of the words' counts */
        s->tree[i] += __builtin_popcountll(s->bits[i - 1]);
        uint64_t j = i + (i & (~i + 1));
        if (j <= s->words)
            s->tree[j] += s->tree[i];
    }
    s->t = k;
}

void mattson_run(lru_stack_t *s, uint64_t *hist, const run_t *rr) {
    const run_t *r = rr;
    run_t plain;
    if (rr->stepped >= 0) { /* plain LRU's trace has no leaf steps: drop the stepped-to page */
        plain = *rr;
        for (int i = rr->stepped; i + 1 < rr->n; i++)
            plain.pages[i] = rr->pages[i + 1];
        plain.n = rr->n - 1;
        r = &plain;
    }
    for (int i = 0; i < r->n; i++) {
        uint32_t p = r->pages[i];
        int at = 0;
        while (at < s->n_top && s->top[at] != p)
            at++;
        if (at < s->n_top) { /* in the array: distance at+1 */
            hist[at + 1]++;
            memmove(s->top + 1, s->top, sizeof(uint32_t) * (size_t)at);
            s->top[0] = p;
            continue;
        }
        if (s->last[p] >= 0) {
            /* the array's pages and the tree's more recent than p's last access, plus p */
            uint64_t d = (uint64_t)s->n_top + (uint64_t)(s->live - fen_prefix(s, (uint64_t)s->last[p])) + 1;
            hist[d]++;
            fen_add(s, (uint64_t)s->last[p], -1);
            s->owner[s->last[p]] = NIL;
            s->live--;
        } else {
            hist[0]++;
        }
        s->last[p] = MRU_IN_TOP;
        if (s->n_top == MRU_TOP) { /* push the array's least recent into the tree */
            uint32_t q = s->top[MRU_TOP - 1];
            if (s->t == s->size)
                compact(s);
            fen_add(s, s->t, 1);
            s->owner[s->t] = q;
            s->last[q] = (int64_t)s->t++;
            s->live++;
            s->n_top--;
        }
        memmove(s->top + 1, s->top, sizeof(uint32_t) * (size_t)s->n_top);
        s->top[0] = p;
        s->n_top++;
    }
    /* each repeat of the run re-reads its n distinct pages in the same order: every one at
     * distance n, and the stack's top n entries end as they were */
    if (r->k > 1)
        hist[r->n] += (r->k - 1) * (uint64_t)r->n;
}

int stack_init(lru_stack_t *s, uint64_t n_pages) {
    memset(s, 0, sizeof(*s));
    s->n_pages = n_pages;
    s->size = 2 * n_pages + 1024;
    s->words = (s->size + 63) / 64;
    s->tree = calloc(s->words + 1, sizeof(int32_t));
    s->bits = calloc(s->words, sizeof(uint64_t));
    s->owner = malloc(s->size * sizeof(uint32_t));
    s->last = malloc(n_pages * sizeof(int64_t));
    if (!s->tree || !s->bits || !s->owner || !s->last)
        return -1;
    for (uint64_t p = 0; p < n_pages; p++)
        s->last[p] = -1;
    for (uint64_t i = 0; i < s->size; i++)
        s->owner[i] = NIL;
    return 0;
}

void stack_free(lru_stack_t *s) {
    free(s->tree);
    free(s->bits);
    free(s->owner);
    free(s->last);
    memset(s, 0, sizeof(*s));
}

int lrusim_mattson(source_t *src, uint64_t n_pages, uint64_t *hist) {
    lru_stack_t s;
    run_t r;
    int rc = stack_init(&s, n_pages);
    if (rc == 0)
        while (source_next(src, &r))
            mattson_run(&s, hist, &r);
    stack_free(&s);
    return rc;
}
