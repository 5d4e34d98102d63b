/*
 * memcore: first-touch, lazy-mapping and pagez experiments in plain C.
 *
 * Mappings come straight from mmap() rather than malloc(): glibc reuses freed
 * heap memory and raises its mmap threshold after a free, so a second
 * "fresh" malloc in the same process would find its pages already faulted in
 * and the fault counts would depend on what ran before.
 */
#define _GNU_SOURCE
#include "memcore.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MEMCORE_THP_SIZE ((size_t)2 << 20)

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD RUSAGE_SELF
#endif

/* Tell the compiler that the memory behind p is read and written here, so a
 * store it believes dead (memory unmapped right after) is kept. */
static inline void memcore_clobber(void *p) {
    __asm__ volatile("" : : "r"(p) : "memory");
}

static size_t memcore_page_size(void) {
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

/* ---- counters ---------------------------------------------------------- */

void memcore_tlb_open(memcore_tlb_t *tlb) {
    struct perf_event_attr attr;

    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_HW_CACHE;
    attr.config =
        PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
    /* User space only: allowed at perf_event_paranoid 2 without root. */
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    tlb->fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    tlb->err = tlb->fd < 0 ? errno : 0;
}

void memcore_tlb_close(memcore_tlb_t *tlb) {
    if (tlb->fd >= 0)
        close(tlb->fd);
    tlb->fd = -1;
}

void memcore_mark(memcore_mark_t *mark, const memcore_tlb_t *tlb) {
    struct rusage ru;
    uint64_t value;

    mark->tlb = -1;
    if (tlb != NULL && tlb->fd >= 0 && read(tlb->fd, &value, sizeof(value)) == (ssize_t)sizeof(value))
        mark->tlb = (long long)value;
    getrusage(RUSAGE_THREAD, &ru);
    mark->minflt = ru.ru_minflt;
    mark->majflt = ru.ru_majflt;
    clock_gettime(CLOCK_MONOTONIC, &mark->when);
}

void memcore_delta(const memcore_mark_t *before, const memcore_mark_t *after, memcore_pass_t *out) {
    out->seconds =
        (double)(after->when.tv_sec - before->when.tv_sec) + (double)(after->when.tv_nsec - before->when.tv_nsec) / 1e9;
    out->minflt = after->minflt - before->minflt;
    out->majflt = after->majflt - before->majflt;
    out->tlb_misses = (before->tlb >= 0 && after->tlb >= 0) ? after->tlb - before->tlb : -1;
}

/* Sum of "<key> <n> kB" in a /proc file, or -1 if it cannot be read. */
static long memcore_proc_kb(const char *path, const char *key) {
    char line[256];
    size_t keylen = strlen(key);
    long total = -1;
    FILE *f = fopen(path, "re");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, key, keylen) == 0) {
            total = (total < 0 ? 0 : total) + strtol(line + keylen, NULL, 10);
        }
    }
    fclose(f);
    return total;
}

long memcore_anon_huge_kb(void) {
    return memcore_proc_kb("/proc/self/smaps_rollup", "AnonHugePages:");
}

size_t memcore_hugetlb_page_size(void) {
    long kb = memcore_proc_kb("/proc/meminfo", "Hugepagesize:");
    return kb > 0 ? (size_t)kb * 1024 : MEMCORE_THP_SIZE;
}

/* ---- mappings ---------------------------------------------------------- */

int memcore_map(memcore_map_t *map, size_t size, int pages, int populate) {
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    void *p;

    memset(map, 0, sizeof(*map));
    if (size == 0)
        return EINVAL;
    map->size = size;
    switch (pages) {
        case MEMCORE_PAGES_4K:
            /* MAP_POPULATE is what the article measured. It faults the pages
             * in inside mmap(), before the MADV_NOHUGEPAGE below, so on a host
             * with THP "always" a populated mapping may get huge pages; the
             * caller reports AnonHugePages so that shows. */
            map->len = size;
            if (populate)
                flags |= MAP_POPULATE;
            break;
        case MEMCORE_PAGES_THP:
            /* Over-allocate by 2 MiB so an aligned start exists. */
            map->len = size + MEMCORE_THP_SIZE;
            break;
        case MEMCORE_PAGES_HUGETLB: {
            size_t hp = memcore_hugetlb_page_size();
            map->len = (size + hp - 1) / hp * hp;
            flags |= MAP_HUGETLB;
            if (populate)
                flags |= MAP_POPULATE;
            break;
        }
        default:
            return EINVAL;
    }
    p = mmap(NULL, map->len, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
        return errno;
    map->base = p;
    map->data = p;
    switch (pages) {
        case MEMCORE_PAGES_4K:
            /* EINVAL means a kernel without THP: small pages anyway. */
            if (madvise(map->base, map->len, MADV_NOHUGEPAGE) != 0 && errno != EINVAL)
                goto error;
            break;
        case MEMCORE_PAGES_THP: {
            uintptr_t a = (uintptr_t)p;
            a = (a + MEMCORE_THP_SIZE - 1) & ~(uintptr_t)(MEMCORE_THP_SIZE - 1);
            map->data = (char *)a;
            if (madvise(map->base, map->len, MADV_HUGEPAGE) != 0)
                goto error;
            /* MAP_POPULATE would fault before the madvise; prefault after. */
            if (populate && madvise(map->data, size, MADV_POPULATE_WRITE) != 0)
                goto error;
            break;
        }
        default:
            break;
    }
    return 0;

error : {
    int err = errno;
    memcore_unmap(map);
    return err;
}
}

void memcore_unmap(memcore_map_t *map) {
    if (map->base != NULL)
        munmap(map->base, map->len);
    map->base = NULL;
    map->data = NULL;
}

/* ---- experiments ------------------------------------------------------- */

int memcore_pagez(size_t chunks, size_t iters, size_t chunk_size, memcore_pass_t *alloc, memcore_pass_t *passes,
                  int *tlb_err) {
    memcore_map_t *maps = NULL;
    memcore_tlb_t tlb = {-1, 0};
    memcore_mark_t before, after;
    size_t ps = memcore_page_size();
    size_t mapped = 0, i, j;
    int err = 0;

    maps = calloc(chunks, sizeof(*maps));
    if (maps == NULL)
        return ENOMEM;
    memcore_tlb_open(&tlb);
    *tlb_err = tlb.err;

    /* The seed's malloc(GIGABYTE) loop: reserve, touch nothing. */
    memcore_mark(&before, &tlb);
    for (mapped = 0; mapped < chunks; mapped++) {
        err = memcore_map(&maps[mapped], chunk_size, MEMCORE_PAGES_4K, 0);
        if (err != 0)
            goto error;
    }
    memcore_mark(&after, &tlb);
    memcore_delta(&before, &after, alloc);

    /* One byte per page of one chunk per pass, cycling over the chunks. */
    for (i = 0; i < chunks * iters; i++) {
        volatile char *c = maps[i % chunks].data;
        memcore_mark(&before, &tlb);
        for (j = 0; j < chunk_size; j += ps)
            c[j]++;
        memcore_mark(&after, &tlb);
        memcore_delta(&before, &after, &passes[i]);
    }

error:
    for (i = 0; i < mapped; i++)
        memcore_unmap(&maps[i]);
    free(maps);
    memcore_tlb_close(&tlb);
    return err;
}

int memcore_memset(size_t size, int pages, int populate, size_t npasses, memcore_pass_t *map_step,
                   memcore_pass_t *passes, long *anon_huge_kb, int *tlb_err) {
    memcore_map_t map;
    memcore_tlb_t tlb = {-1, 0};
    memcore_mark_t before, after;
    long huge_before = memcore_anon_huge_kb();
    size_t i;
    int err;

    memcore_tlb_open(&tlb);
    *tlb_err = tlb.err;
    *anon_huge_kb = -1;

    memcore_mark(&before, &tlb);
    err = memcore_map(&map, size, pages, populate);
    memcore_mark(&after, &tlb);
    if (err != 0)
        goto error;
    memcore_delta(&before, &after, map_step);

    for (i = 0; i < npasses; i++) {
        memcore_mark(&before, &tlb);
        memset(map.data, (int)(i & 0x7f) + 1, size);
        memcore_clobber(map.data);
        memcore_mark(&after, &tlb);
        memcore_delta(&before, &after, &passes[i]);
        if (i == 0 && huge_before >= 0) {
            long huge_after = memcore_anon_huge_kb();
            if (huge_after >= 0)
                *anon_huge_kb = huge_after - huge_before;
        }
    }
    memcore_unmap(&map);

error:
    memcore_tlb_close(&tlb);
    return err;
}

static uint64_t memcore_read_all(const unsigned char *p, size_t size) {
    uint64_t sum = 0;
    size_t i;

    for (i = 0; i < size; i++)
        sum += p[i];
    return sum;
}

/* Add a per-round TLB delta to a running total; -1 stays -1 (not measured). */
static void memcore_add_tlb(long long *total, long long delta) {
    if (*total >= 0)
        *total = delta >= 0 ? *total + delta : -1;
}

int memcore_lazymap(size_t size, size_t reps, int kind, memcore_lazy_t *out) {
    memcore_map_t reused = {0};
    memcore_tlb_t tlb = {-1, 0};
    memcore_mark_t m0, m1, m2, m3, m4;
    memcore_pass_t d;
    size_t r;
    int err = 0;

    memset(out, 0, sizeof(*out));
    memcore_tlb_open(&tlb);
    out->tlb_err = tlb.err;
    if (kind == MEMCORE_LAZY_REUSED) {
        err = memcore_map(&reused, size, MEMCORE_PAGES_4K, 0);
        if (err != 0)
            goto error;
        memset(reused.data, 0, size); /* fault it in before measuring */
        memcore_clobber(reused.data);
    }
    for (r = 0; r < reps; r++) {
        memcore_map_t fresh = {0};
        unsigned char *buf = NULL;

        memcore_mark(&m0, NULL);
        switch (kind) {
            case MEMCORE_LAZY_FRESH:
                err = memcore_map(&fresh, size, MEMCORE_PAGES_4K, 0);
                if (err != 0)
                    goto error;
                buf = (unsigned char *)fresh.data;
                break;
            case MEMCORE_LAZY_REUSED:
                buf = (unsigned char *)reused.data;
                break;
            case MEMCORE_LAZY_MALLOC:
                buf = malloc(size);
                if (buf == NULL) {
                    err = ENOMEM;
                    goto error;
                }
                break;
            default:
                err = EINVAL;
                goto error;
        }
        memcore_mark(&m1, &tlb);
        memset(buf, (int)(r & 0x7f) + 1, size);
        memcore_clobber(buf);
        memcore_mark(&m2, &tlb);
        out->checksum += memcore_read_all(buf, size);
        memcore_mark(&m3, &tlb);
        if (kind == MEMCORE_LAZY_FRESH)
            memcore_unmap(&fresh);
        else if (kind == MEMCORE_LAZY_MALLOC)
            free(buf);
        memcore_mark(&m4, NULL);

        memcore_delta(&m1, &m2, &d);
        out->write_seconds += d.seconds;
        out->write_minflt += d.minflt;
        out->write_majflt += d.majflt;
        memcore_add_tlb(&out->write_tlb_misses, d.tlb_misses);
        memcore_delta(&m2, &m3, &d);
        out->read_seconds += d.seconds;
        out->read_minflt += d.minflt;
        out->read_majflt += d.majflt;
        memcore_add_tlb(&out->read_tlb_misses, d.tlb_misses);
        memcore_delta(&m0, &m1, &d);
        out->map_seconds += d.seconds;
        memcore_delta(&m3, &m4, &d);
        out->map_seconds += d.seconds;
    }

error:
    memcore_unmap(&reused);
    memcore_tlb_close(&tlb);
    return err;
}

int memcore_alloc_touch(size_t size, int pages, memcore_pass_t *touch, memcore_pass_t *fill, long *anon_huge_kb,
                        int *tlb_err) {
    memcore_map_t map;
    memcore_tlb_t tlb = {-1, 0};
    memcore_mark_t before, after;
    long huge_before = memcore_anon_huge_kb(), huge_after;
    volatile char *p;
    size_t i;
    int err;

    memcore_tlb_open(&tlb);
    *tlb_err = tlb.err;
    /* Lemire's new_and_touch: allocate, write one byte per 4 KiB and the
     * last byte. The allocation is inside the timed region. */
    memcore_mark(&before, &tlb);
    err = memcore_map(&map, size, pages, 0);
    if (err != 0)
        goto error;
    p = map.data;
    for (i = 0; i < size; i += 4096)
        p[i] = 0;
    p[size - 1] = 0;
    memcore_mark(&after, &tlb);
    memcore_delta(&before, &after, touch);

    huge_after = memcore_anon_huge_kb();
    *anon_huge_kb = (huge_before >= 0 && huge_after >= 0) ? huge_after - huge_before : -1;

    /* memset of the same, now resident, memory. */
    memcore_mark(&before, &tlb);
    memset(map.data, 1, size);
    memcore_clobber(map.data);
    memcore_mark(&after, &tlb);
    memcore_delta(&before, &after, fill);

    memcore_unmap(&map);
error:
    memcore_tlb_close(&tlb);
    return err;
}
