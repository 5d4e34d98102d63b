/*
 * memcore: the memory experiments in plain C (no Python.h), so the same code
 * can be compiled into a standalone program or run under a sanitizer alone.
 *
 * Every measured step is a memcore_pass_t: monotonic seconds plus the
 * getrusage() minor/major fault deltas of the calling thread, plus dTLB load
 * misses when the CPU exposes them to perf_event_open (-1 otherwise).
 *
 * Functions return 0 or an errno value; they never print.
 */
#ifndef LOADGEN_MEMCORE_H
#define LOADGEN_MEMCORE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Page modes. 4K asks for small pages explicitly (MADV_NOHUGEPAGE), so a
 * host with THP "always" still measures 4 KiB faults. */
enum memcore_pages {
    MEMCORE_PAGES_4K = 0,
    MEMCORE_PAGES_THP = 1,     /* 2 MiB-aligned + MADV_HUGEPAGE */
    MEMCORE_PAGES_HUGETLB = 2, /* MAP_HUGETLB from the reserved pool */
};

/* What to do in the lazymap experiment for each repetition. */
enum memcore_lazy_kind {
    MEMCORE_LAZY_FRESH = 0,  /* mmap, write, read, munmap */
    MEMCORE_LAZY_REUSED = 1, /* one buffer, faulted in beforehand */
    MEMCORE_LAZY_MALLOC = 2, /* malloc/free: glibc hides the faults */
};

typedef struct {
    double seconds;
    long minflt;
    long majflt;
    long long tlb_misses; /* -1: not measured */
} memcore_pass_t;

typedef struct {
    int fd;  /* perf event fd, or -1 */
    int err; /* errno from perf_event_open when fd == -1 */
} memcore_tlb_t;

typedef struct {
    struct timespec when;
    long minflt;
    long majflt;
    long long tlb;
} memcore_mark_t;

typedef struct {
    char *base;  /* what mmap returned */
    size_t len;  /* what was mapped (for munmap) */
    char *data;  /* aligned start of the usable region */
    size_t size; /* usable bytes, as requested */
} memcore_map_t;

typedef struct {
    double write_seconds;
    double read_seconds;
    double map_seconds; /* mmap+munmap or malloc+free, not in the above */
    long write_minflt;
    long write_majflt;
    long read_minflt;
    long read_majflt;
    long long write_tlb_misses; /* -1: not measured */
    long long read_tlb_misses;
    int tlb_err;       /* errno from perf_event_open, 0 when counted */
    uint64_t checksum; /* keeps the read loop from being optimised away */
} memcore_lazy_t;

/* Counters. */
void memcore_tlb_open(memcore_tlb_t *tlb);
void memcore_tlb_close(memcore_tlb_t *tlb);
void memcore_mark(memcore_mark_t *mark, const memcore_tlb_t *tlb);
void memcore_delta(const memcore_mark_t *before, const memcore_mark_t *after, memcore_pass_t *out);
long memcore_anon_huge_kb(void);
size_t memcore_hugetlb_page_size(void);

/* Mappings. */
int memcore_map(memcore_map_t *map, size_t size, int pages, int populate);
void memcore_unmap(memcore_map_t *map);

/* Experiments. */
int memcore_pagez(size_t chunks, size_t iters, size_t chunk_size, memcore_pass_t *alloc, memcore_pass_t *passes,
                  int *tlb_err);
int memcore_memset(size_t size, int pages, int populate, size_t npasses, memcore_pass_t *map_step,
                   memcore_pass_t *passes, long *anon_huge_kb, int *tlb_err);
int memcore_lazymap(size_t size, size_t reps, int kind, memcore_lazy_t *out);
int memcore_alloc_touch(size_t size, int pages, memcore_pass_t *touch, memcore_pass_t *fill, long *anon_huge_kb,
                        int *tlb_err);

#endif /* LOADGEN_MEMCORE_H */
