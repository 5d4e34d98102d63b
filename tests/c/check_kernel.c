/*
 * C-level checks of the buffer-pool simulator's kernel (native/lrusim/), without Python: `make
 * check-c` builds this against the kernel's sources alone and runs it (tests/native/
 * test_kernel_c.py runs it in the suite; `make sanitize` runs it under ASan/UBSan too).
 *
 * Every expected figure below was taken from the kernel as it was before it was split into
 * native/lrusim/ (one 1,764-line native/lrusim.c, commit 37e8410), by running each case through
 * loadgen._native with the same arguments: the split changed no result, and a later change that
 * moves one shows up here as the case and the counter that moved. Cases cover both orders and
 * the sequential one, both read-ahead rules, the page cleaner's batches and MySQL's timed batch,
 * start-up pages, the collapse on and off, miniatures, the curve's one pass, plain LRU's stack
 * distances, bare traces, and the source's rarer paths (fewer rows than leaves, 128-bit spread).
 * When a change is meant to move a figure, say why in the commit and update the figure.
 *
 * Output: one line per check, "ok" or "FAIL" and what differs; exit status 1 if any failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lrusim/kernel.h"
#include "lrusim/pagemap.h"

/* ---- sources ------------------------------------------------------------------------------- */

enum {
    SRC_INTERLEAVED,
    SRC_LOOPED,
    SRC_LOOPED_MOVES,
    SRC_INTERLEAVED_MOVES,
    SRC_SEQUENTIAL,
    SRC_FEW_ROWS,
    SRC_WIDE,
    SRC_SEED_4M,
    SRC_TRACE_HOT,
    SRC_TRACE_SCAN,
    N_SOURCES
};

/* A workload (w.rows > 0) or a bare trace made by lcg_trace(seed, length, n_pages, scan_leaves). */
typedef struct {
    workload_t w;
    uint64_t n_pages;
    uint64_t seed, length, scan_leaves;
} source_spec_t;

static const source_spec_t sources[N_SOURCES] = {
    [SRC_INTERLEAVED] = {{ORDER_INTERLEAVED, 240000, 10, 2, 2000, 3, 300, 0}, 2008},
    [SRC_LOOPED] = {{ORDER_LOOPED, 240000, 10, 2, 2000, 3, 300, 0}, 2008},
    [SRC_LOOPED_MOVES] = {{ORDER_LOOPED, 240000, 10, 2, 2000, 3, 300, 1}, 2008},
    [SRC_INTERLEAVED_MOVES] = {{ORDER_INTERLEAVED, 240000, 10, 2, 2000, 3, 300, 1}, 2008},
    [SRC_SEQUENTIAL] = {{ORDER_SEQUENTIAL, 240000, 7, 3, 2000, 3, 300, 0}, 2008},
    [SRC_FEW_ROWS] = {{ORDER_LOOPED, 1500, 1, 3, 1000, 3, 50, 1}, 1021},
    [SRC_WIDE] = {{ORDER_INTERLEAVED, 3000000000ULL, 1000003, 2, 5000, 3, 100, 0}, 5051},
    [SRC_SEED_4M] = {{ORDER_LOOPED, 4000000, 10, 2, 32653, 3, 900, 1}, 32691},
    [SRC_TRACE_HOT] = {{0}, 1600, 7, 20000, 0},
    [SRC_TRACE_SCAN] = {{0}, 1010, 11, 30000, 1000},
};

/* A page trace from a 64-bit LCG: with scan_leaves, three references in four scan leaves
 * 0..scan_leaves-1 in key order; the rest half a hot set (the first eighth of the pages), half
 * uniform. */
static uint32_t *lcg_trace(uint64_t seed, uint64_t length, uint64_t n_pages, uint64_t scan_leaves) {
    uint32_t *t = malloc(length * sizeof(uint32_t));
    uint64_t x = seed;
    for (uint64_t i = 0; t && i < length; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t r = x >> 33, hot = (r >> 1) % (n_pages / 8 + 1);
        if (scan_leaves && r % 4)
            t[i] = (uint32_t)(i % scan_leaves);
        else if (r % 2)
            t[i] = (uint32_t)(hot < n_pages - 1 ? hot : n_pages - 1);
        else
            t[i] = (uint32_t)((r >> 1) % n_pages);
    }
    return t;
}

/* Source id into s; a trace is allocated into *trace (free it after the run). */
static void open_source(int id, source_t *s, uint32_t **trace) {
    const source_spec_t *spec = &sources[id];
    char err[160];
    int rc;
    *trace = NULL;
    if (spec->w.rows) {
        rc = source_init_workload(s, &spec->w, spec->n_pages, err, sizeof(err));
    } else {
        *trace = lcg_trace(spec->seed, spec->length, spec->n_pages, spec->scan_leaves);
        rc = *trace ? source_init_trace(s, *trace, spec->length, spec->n_pages, err, sizeof(err)) : -1;
    }
    if (rc < 0) {
        fprintf(stderr, "check_kernel: source %d: %s\n", id, *trace || spec->w.rows ? err : "out of memory");
        exit(2);
    }
}

/* ---- reporting ----------------------------------------------------------------------------- */

static int n_checks, n_failed;

/* One figure of a check: an integer, or (dbl) a double that must be equal to the last bit. */
typedef struct {
    const char *name;
    uint64_t got, want;
    double got_d, want_d;
    int dbl;
} field_t;

#define U64(name, got, want) \
    { name, (got), (want), 0, 0, 0 }
#define DBL(name, got, want) \
    { name, 0, 0, (got), (want), 1 }

static int same(const field_t *f) {
    return f->dbl ? memcmp(&f->got_d, &f->want_d, sizeof(double)) == 0 : f->got == f->want;
}

/* One check: every field equal, or a FAIL line naming those that are not. */
static void check(const char *what, const field_t *fields, size_t n) {
    int ok = 1;
    n_checks++;
    for (size_t i = 0; i < n; i++) {
        const field_t *f = &fields[i];
        if (same(f))
            continue;
        if (ok)
            printf("FAIL %s:", what);
        if (f->dbl)
            printf(" %s %.17g (want %.17g)", f->name, f->got_d, f->want_d);
        else
            printf(" %s %" PRIu64 " (want %" PRIu64 ")", f->name, f->got, f->want);
        ok = 0;
    }
    if (ok) {
        printf("ok   %s\n", what);
    } else {
        printf("\n");
        n_failed++;
    }
}

#define N_FIELDS(a) (sizeof(a) / sizeof((a)[0]))

static void check_counts(const char *what, const lru_counts_t *got, const lru_counts_t *want) {
    field_t f[] = {U64("refs", got->refs, want->refs),
                   U64("misses", got->misses, want->misses),
                   U64("made_young", got->made_young, want->made_young),
                   U64("not_young", got->not_young, want->not_young),
                   U64("read_ahead", got->ra_pages, want->ra_pages),
                   U64("ra_evicted", got->ra_evicted, want->ra_evicted)};
    check(what, f, N_FIELDS(f));
}

/* FNV-1a-style hash of a histogram's counters (as gen_expected.py computed it). */
static uint64_t hist_hash(const uint64_t *hist, uint64_t n) {
    uint64_t h = 14695981039346656037ULL;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ hist[i]) * 1099511628211ULL;
    return h;
}

/* ---- the cases and their figures from the kernel before the split ------------------------- */

typedef struct {
    const char *name;
    int source;
    sim_cfg_t cfg;
    lru_params_t params;
    int collapse;
    uint64_t trace_leaf_pages;
    lru_counts_t want;
} innodb_case_t;

typedef struct {
    int source;
    uint64_t refs, cold, hash; /* sum of the histogram, its index 0, hist_hash */
} mattson_case_t;

typedef struct {
    const char *name;
    int source;
    lru_params_t params;
    const sim_cfg_t *pools;
    const curve_point_t *want;
    size_t n_pools;
    int plain_lru;
    uint64_t distinct_leaves, refs, hist_hash;
} curve_case_t;

/* generated by gen_expected.py from the kernel before the split */
static const innodb_case_t innodb_cases[] = {
    {"interleaved",
     SRC_INTERLEAVED,
     {700, 800, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1.0, 0.05, 0, 0, 0},
     1,
     0,
     {144000, 2009, 1310, 24871, 0, 0}},
    {"looped",
     SRC_LOOPED,
     {1900, 2000, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 0, 0, 0},
     1,
     0,
     {144000, 2836, 1, 44635, 0, 0}},
    {"looped, not collapsed",
     SRC_LOOPED,
     {1900, 2000, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 0, 0, 0},
     0,
     0,
     {144000, 2836, 1, 44635, 0, 0}},
    {"looped, old_blocks_time 0",
     SRC_LOOPED,
     {1200, 1300, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {20.0, 0.0, 0.05, 0, 0, 0},
     1,
     0,
     {144000, 3516, 2559, 0, 0, 0}},
    {"MariaDB read-ahead",
     SRC_LOOPED_MOVES,
     {300, 500, 16, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 56, 0, 0},
     1,
     0,
     {145562, 4017, 0, 0, 1728, 0}},
    {"MariaDB read-ahead, cleaner batches",
     SRC_INTERLEAVED_MOVES,
     {900, 1100, 16, 1.0, 0, 0, 0, 100, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 8, 0, 0},
     1,
     0,
     {145562, 2015, 0, 78546, 864, 0}},
    {"MySQL read-ahead, start-up pages, timed cleaner",
     SRC_LOOPED_MOVES,
     {600, 600, 32, 1.0, 0, 200, 3, 0, 200, 125.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 56, 1, 0},
     1,
     0,
     {145562, 3761, 1, 128501, 3581, 67}},
    {"MySQL read-ahead, timed cleaner every second",
     SRC_INTERLEAVED_MOVES,
     {900, 900, 64, 1.0, 0, 50, 0, 0, 400, 10.0, 1000.0, 0, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 60, 1, 0},
     1,
     0,
     {145562, 2069, 1, 32535, 1792, 43}},
    {"sequential, small pool",
     SRC_SEQUENTIAL,
     {100, 100, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 0, 0, 0},
     1,
     0,
     {102858, 2010, 0, 0, 0, 0}},
    {"fewer rows than leaves",
     SRC_FEW_ROWS,
     {200, 260, 16, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 2.0, 0.01, 56, 0, 0},
     1,
     0,
     {17997, 3062, 0, 0, 2916, 0}},
    {"128-bit leaf spread",
     SRC_WIDE,
     {300, 300, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.05, 0, 0, 0},
     1,
     0,
     {18000, 3052, 0, 0, 0, 0}},
    {"seed case at 32M, 4M rows",
     SRC_SEED_4M,
     {876, 2028, 64, 1.0, 0, 0, 0, 768, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.06666666666666667, 56, 0, 0},
     1,
     0,
     {2412924, 66499, 0, 874081, 17728, 954}},
    {"bare trace",
     SRC_TRACE_HOT,
     {600, 650, 64, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 3.0, 1.0, 0, 0, 0},
     1,
     0,
     {20000, 6738, 1328, 5, 0, 0}},
    {"bare trace, MySQL read-ahead",
     SRC_TRACE_SCAN,
     {300, 300, 16, 1.0, 0, 100, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
     {37.0, 1000.0, 0.1, 56, 1, 0},
     1,
     1000,
     {30000, 31602, 0, 0, 20171, 5145}},
};
static const mattson_case_t mattson_cases[] = {
    {SRC_LOOPED, 144000ULL, 2008ULL, 9317114366094534569ULL},
    {SRC_INTERLEAVED_MOVES, 144000ULL, 2008ULL, 13843386418190233119ULL},
    {SRC_TRACE_HOT, 20000ULL, 1599ULL, 13181752742307381491ULL},
};
static const sim_cfg_t curve0_pools[] = {
    {300, 500, 16, 1.0, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
    {1500, 1700, 64, 0.25, 1, 0, 0, 200, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
    {700, 800, 32, 1.0, 0, 50, 2, 100, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
    {900, 1000, 64, 0.5, 3, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
};
static const curve_point_t curve0_points[] = {
    {{145562, 4017, 0, 0, 1728, 0}, 32, 32, 2000.0, 126208.0, 17, 4000, 2000, 300, 8},
    {{116200, 1282, 72, 63332, 337, 0}, 13, 32, 449.0, 20909.0, 17, 1265, 816, 612, 8},
    {{145562, 3698, 310, 98946, 1581, 0}, 32, 32, 1670.0, 100726.0, 28, 3670, 2000, 700, 8},
    {{120564, 1735, 1, 92034, 960, 0}, 16, 32, 719.0, 41303.0, 24, 1711, 992, 446, 8},
};
static const sim_cfg_t curve1_pools[] = {
    {600, 600, 32, 1.0, 0, 200, 3, 0, 200, 125.0, 1000.0, 1, NULL, 0, 0, 0, 0},
    {1600, 1600, 64, 0.5, 2, 100, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
};
static const curve_point_t curve1_points[] = {
    {{145562, 2051, 0, 84159, 1983, 0}, 32, 32, 0.0, 0.0, 14, 2000, 2000, 600, 8},
    {{120952, 1032, 1, 21802, 960, 0}, 16, 32, 0.0, 0.0, 8, 1008, 1008, 806, 8},
};
static const sim_cfg_t curve2_pools[] = {
    {200, 250, 64, 0.3, 5, 0, 0, 0, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
    {1000, 1100, 64, 0.3, 6, 0, 0, 50, 0, 0.0, 1000.0, 1, NULL, 0, 0, 0, 0},
};
static const curve_point_t curve2_points[] = {
    {{115962, 841, 0, 0, 0, 0}, 13, 32, 0.0, 0.0, 9, 832, 832, 83, 8},
    {{115966, 843, 0, 68837, 0, 0}, 13, 32, 0.0, 0.0, 11, 832, 832, 416, 8},
};
static const curve_case_t curve_cases[] = {
    {"MariaDB, exact and miniatures",
     SRC_LOOPED_MOVES,
     {37.0, 1000.0, 0.05, 56, 0, 0},
     curve0_pools,
     curve0_points,
     4,
     1,
     2000,
     145562,
     9317114366094534569ULL},
    {"MySQL, timed cleaner",
     SRC_INTERLEAVED_MOVES,
     {37.0, 1000.0, 0.05, 56, 1, 0},
     curve1_pools,
     curve1_points,
     2,
     0,
     2000,
     145562,
     0ULL},
    {"no read-ahead, miniatures only",
     SRC_INTERLEAVED,
     {37.0, 1000.0, 0.05, 0, 0, 0},
     curve2_pools,
     curve2_points,
     2,
     1,
     2000,
     144000,
     13843386418190233119ULL},
};

/* ---- the checks ---------------------------------------------------------------------------- */

static void run_innodb(const innodb_case_t *c, lru_counts_t *out) {
    source_t s;
    uint32_t *trace;
    open_source(c->source, &s, &trace);
    if (lrusim_innodb(&s, &c->cfg, &c->params, sources[c->source].n_pages, c->trace_leaf_pages, c->collapse, out) < 0) {
        fprintf(stderr, "check_kernel: %s: out of memory\n", c->name);
        exit(2);
    }
    free(trace);
}

static void check_innodb(void) {
    char what[200];
    for (size_t i = 0; i < sizeof(innodb_cases) / sizeof(innodb_cases[0]); i++) {
        const innodb_case_t *c = &innodb_cases[i];
        lru_counts_t got;
        run_innodb(c, &got);
        snprintf(what, sizeof(what), "innodb: %s", c->name);
        check_counts(what, &got, &c->want);
        if (c->collapse && !c->cfg.tick_depth) { /* the collapse is exact */
            innodb_case_t slow = *c;
            slow.collapse = 0;
            run_innodb(&slow, &got);
            snprintf(what, sizeof(what), "innodb: %s, reference by reference", c->name);
            check_counts(what, &got, &c->want);
        }
    }
}

static void check_mattson(void) {
    char what[200];
    for (size_t i = 0; i < sizeof(mattson_cases) / sizeof(mattson_cases[0]); i++) {
        const mattson_case_t *c = &mattson_cases[i];
        uint64_t n = sources[c->source].n_pages, *hist = calloc(n + 1, sizeof(uint64_t)), refs = 0;
        source_t s;
        uint32_t *trace;
        open_source(c->source, &s, &trace);
        if (!hist || lrusim_mattson(&s, n, hist) < 0) {
            fprintf(stderr, "check_kernel: mattson: out of memory\n");
            exit(2);
        }
        for (uint64_t d = 0; d <= n; d++)
            refs += hist[d];
        field_t f[] = {U64("refs", refs, c->refs), U64("cold", hist[0], c->cold),
                       U64("hash", hist_hash(hist, n + 1), c->hash)};
        snprintf(what, sizeof(what), "mattson: source %d", c->source);
        check(what, f, N_FIELDS(f));
        free(hist);
        free(trace);
    }
}

static void check_point(const char *what, const curve_point_t *got, const curve_point_t *want) {
    check_counts(what, &got->counts, &want->counts);
    field_t f[] = {U64("sampled_units", got->sampled_units, want->sampled_units),
                   U64("total_units", got->total_units, want->total_units),
                   DBL("sum_y", got->sum_y, want->sum_y),
                   DBL("sum_y2", got->sum_y2, want->sum_y2),
                   U64("upper_misses", got->upper_misses, want->upper_misses),
                   U64("leaf_misses", got->leaf_misses, want->leaf_misses),
                   U64("leaf_touched", got->leaf_touched, want->leaf_touched),
                   U64("capacity", got->capacity, want->capacity),
                   U64("upper_touched", got->upper_touched, want->upper_touched)};
    char more[220];
    snprintf(more, sizeof(more), "%s, estimate", what);
    check(more, f, N_FIELDS(f));
}

static void check_curves(void) {
    char what[200];
    for (size_t i = 0; i < sizeof(curve_cases) / sizeof(curve_cases[0]); i++) {
        const curve_case_t *c = &curve_cases[i];
        uint64_t n = sources[c->source].n_pages, distinct = 0, refs = 0;
        uint64_t *hist = c->plain_lru ? calloc(n + 1, sizeof(uint64_t)) : NULL;
        curve_point_t *points = calloc(c->n_pools, sizeof(curve_point_t));
        source_t s;
        uint32_t *trace;
        open_source(c->source, &s, &trace);
        uint64_t leaf_pages = s.workload ? s.leaf_pages : n;
        if (!points || (c->plain_lru && !hist) ||
            lrusim_curve(&s, &c->params, n, leaf_pages, c->pools, c->n_pools, points, &distinct, &refs, hist) < 0) {
            fprintf(stderr, "check_kernel: curve: out of memory\n");
            exit(2);
        }
        for (size_t j = 0; j < c->n_pools; j++) {
            snprintf(what, sizeof(what), "curve: %s, pool %zu", c->name, j);
            check_point(what, &points[j], &c->want[j]);
            /* an exact pool of the curve is the single-pool simulation of the same source */
            if (c->pools[j].rate >= 1) {
                innodb_case_t one = {"", c->source, c->pools[j], c->params, 1, 0, {0}};
                lru_counts_t single;
                run_innodb(&one, &single);
                snprintf(what, sizeof(what), "curve: %s, pool %zu equals lrusim_innodb", c->name, j);
                check_counts(what, &points[j].counts, &single);
            }
        }
        field_t f[] = {U64("distinct_leaves", distinct, c->distinct_leaves), U64("refs", refs, c->refs),
                       U64("hist_hash", hist ? hist_hash(hist, n + 1) : 0, c->hist_hash)};
        snprintf(what, sizeof(what), "curve: %s, totals", c->name);
        check(what, f, N_FIELDS(f));
        free(hist);
        free(points);
        free(trace);
    }
}

/* A bad source is refused with the message the Python glue raises as ValueError. */
static void check_refusal(const char *what, int rc, const char *err, const char *want) {
    field_t f[] = {U64("rc", (uint64_t)rc, (uint64_t)-1), U64("message differs", strcmp(err, want) != 0, 0)};
    check(what, f, N_FIELDS(f));
}

static void check_refusals(void) {
    char err[160] = "";
    source_t s;
    workload_t deep = sources[SRC_LOOPED].w;
    deep.height = MAX_HEIGHT + 1;
    int rc = source_init_workload(&s, &deep, 2008, err, sizeof(err));
    check_refusal("refusal: a workload deeper than MAX_HEIGHT", rc, err, "bad workload tuple");
    rc = source_init_workload(&s, &sources[SRC_LOOPED].w, 2009, err, sizeof(err));
    check_refusal("refusal: n_pages not the workload's", rc, err, "n_pages 2009 does not match the workload's 2008");
    uint32_t trace[] = {1, 2, 7, 3};
    rc = source_init_trace(&s, trace, 4, 7, err, sizeof(err));
    check_refusal("refusal: a trace page beyond n_pages", rc, err, "trace[2] = 7 is not below n_pages");
}

/* A miniature's compact map (pagemap.h) gives every page what the full map does: runs of 64
 * mapped pages off the blocks' edges, kept runs, lone pages, runs whose simulated pages jump (the
 * full map's blocks) and a partial last block. */
static void check_pagemap(void) {
    enum { N = 64 * 40 + 17 };
    int32_t *map = malloc(N * sizeof(int32_t));
    uint64_t x = 12345, differ = 0, irregular = 0, mapped = 0;
    int32_t next = 0;
    for (uint64_t p = 0; p < N; p++) {
        uint64_t unit = (p + 23) / 64; /* 64-page units off the 64-page blocks */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int on = unit % 3 == 0 || (p >= 1000 && p < 1300) || (x >> 60) == 0;
        if (p >= 1600 && p < 1700 && p % 2)
            on = 1; /* every other page: not one run */
        if (p == 2000)
            next += 5; /* a jump inside a run */
        map[p] = on ? next++ : -1;
    }
    pagemap_t pm;
    if (pagemap_build(&pm, map, N) < 0) {
        printf("FAIL pagemap: out of memory\n");
        n_failed++;
        free(map);
        return;
    }
    for (uint64_t p = 0; p < N; p++) {
        differ += pagemap_get(&pm, (uint32_t)p) != map[p];
        mapped += map[p] >= 0;
    }
    for (uint64_t k = 0; k < (N + 63) / 64; k++)
        irregular += pm.blocks[k].base < 0;
    field_t f[] = {U64("pages that differ", differ, 0), U64("some in the full map", irregular > 0, 1),
                   U64("some mapped", mapped > 0, 1)};
    check("pagemap: the compact map gives the full map's pages", f, N_FIELDS(f));
    pagemap_free(&pm);
    free(map);
}

int main(void) {
    check_pagemap();
    check_innodb();
    check_mattson();
    check_curves();
    check_refusals();
    printf("%d checks, %d failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
