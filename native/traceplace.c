/*
 * traceplace: a captured op trace's chunk placed on the tables' keys in one pass
 * (loadgen/analysis/tracemodel.py TracePlan.place, value for value, for the kinds most of a trace
 * holds: points on a clustered index, ranges, updates, deletes, inserts). numpy did it as a sort
 * of the chunk by (tree, kind), a gather of each group's records and a dozen passes over each
 * group (30M operations: ~2.5 s of CPU before any simulation could start). The rest (a point on
 * a secondary index, a scan, an index range) is marked for the Python code, which also names the
 * streams: here each record gets a class, tree * PLACE_SUBS + kind (an insert inside the table:
 * PLACE_INSERT_AT), and the counts Python needs to name them in its order.
 */
#include "traceplace.h"
#include "lrusim/source.h" /* mix64: mixpages.mix64 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* optrace.RECORD: kind u1, flags u1, tree u2, extra u4, lo i8, hi i8 (24 bytes, little endian) */
#define RECORD_BYTES 24
enum { K_POINT = 1, K_RANGE = 2, K_INSERT = 4, K_UPDATE = 5, K_DELETE = 6 };
enum { F_HASHED = 1, F_AUTO = 2, F_LO_OPEN = 4, F_HI_OPEN = 8, F_DESC = 16, F_VIA_INDEX = 32 };
/* a tree's parameters, one int64 row each (tracemodel.TracePlan._native_trees) */
enum { T_TABLE, T_ROWS, T_OFF, T_HAS_VALUES, T_VMIN, T_VMAX, T_POINT, T_COLS };

/* tracemodel._hash_key: the row a hashed key leads to, 1..rows */
static inline int64_t hash_key(int64_t lo, int64_t rows) {
    return (int64_t)(mix64((uint64_t)lo) % (uint64_t)(rows > 1 ? rows : 1)) + 1;
}

/* TracePlan._position: where a leading column's value lies among the rows (float64 as numpy's).
 * The geometry's values and the trace's are untrusted: the width is Python's exact integer (no
 * signed overflow: a column's whole int64 range is 2^64 values), and a value far below the lowest
 * is the first row, not a double past int64 cast (undefined in C). */
static inline int64_t position(int64_t v, int64_t vmin, int64_t vmax, int64_t rows) {
    if (v > vmax)
        return rows + 1;
    double span = 1.0;
    if (vmax >= vmin) {
        uint64_t w = (uint64_t)vmax - (uint64_t)vmin;      /* exact; + 1 fits but for the whole range */
        span = w == UINT64_MAX ? 0x1p64 : (double)(w + 1); /* one rounding, as float(int) */
    }
    double at = floor(((double)v - (double)vmin) * (double)rows / span);
    return at < 1.0 ? 1 : 1 + (int64_t)at; /* at < rows: v <= vmax */
}

typedef struct {
    uint8_t kind, flags;
    uint16_t tree;
    uint32_t extra;
    int64_t lo, hi;
} record_t;

static inline record_t load_record(const char *buf, Py_ssize_t i) {
    record_t r;
    const char *p = buf + i * RECORD_BYTES;
    r.kind = (uint8_t)p[0];
    r.flags = (uint8_t)p[1];
    memcpy(&r.tree, p + 2, 2);
    memcpy(&r.extra, p + 4, 4);
    memcpy(&r.lo, p + 8, 8);
    memcpy(&r.hi, p + 16, 8);
    return r;
}

/* One record's class, key and length (an insert's key or ordinal comes later, in group order). */
static int64_t place_one(const record_t *r, const int64_t *t, int64_t *key, int64_t *length) {
    int64_t rows = t[T_ROWS], lo, hi;
    int hashed = (r->flags & (F_HASHED | F_VIA_INDEX)) != 0;
    int64_t cls = (int64_t)r->tree * PLACE_SUBS + r->kind;
    lo = hashed ? hash_key(r->lo, rows) : (int64_t)((uint64_t)r->lo - (uint64_t)t[T_OFF]);
    switch (r->kind) {
        case K_POINT:
            if (!t[T_POINT])
                return PLACE_PYTHON;
            /* fall through: a point on the clustered index is placed as an update or a delete */
        case K_UPDATE:
        case K_DELETE:
            if (lo < 1 || lo > rows)
                return PLACE_DROPPED;
            *key = lo;
            return cls;
        case K_RANGE: {
            hi = hashed ? lo : (int64_t)((uint64_t)r->hi - (uint64_t)t[T_OFF]);
            if (r->flags & F_LO_OPEN)
                lo = 1;
            if (r->flags & F_HI_OPEN)
                hi = rows;
            lo = lo > 1 ? lo : 1;
            hi = hi < rows ? hi : rows;
            int64_t limit = (int64_t)r->extra;
            if (limit > 0 && (r->flags & F_DESC)) {
                int64_t from = (int64_t)((uint64_t)hi - (uint64_t)limit + 1); /* numpy's int64 wraps */
                lo = lo > from ? lo : from;
            } else if (limit > 0) {
                int64_t to = (int64_t)((uint64_t)lo + (uint64_t)limit - 1);
                hi = hi < to ? hi : to;
            }
            if (hi < lo)
                return PLACE_DROPPED;
            *key = lo;
            *length = (int64_t)((uint64_t)hi - (uint64_t)lo + 1);
            return cls;
        }
        case K_INSERT:
            if (t[T_HAS_VALUES] && !hashed)
                lo = position(r->lo, t[T_VMIN], t[T_VMAX], rows);
            if ((r->flags & F_AUTO) || (!hashed && lo > rows))
                return cls; /* at the end: its key in group order */
            if (lo < 1)
                return PLACE_DROPPED;
            *key = lo;
            return (int64_t)r->tree * PLACE_SUBS + PLACE_INSERT_AT;
        default:
            return PLACE_PYTHON;
    }
}

/* trace_place(records, trees, appended, inserted_at, cls, key, length, txn, counts, kept): each of
 * the n records (optrace.RECORD bytes) placed; trees: n_trees rows of T_COLS int64 (table, rows,
 * key offset, has values, lowest value, highest value, points placed here); appended (a table's
 * inserts at its end so far) and inserted_at (one: inserts inside a table so far) moved on; out
 * (int64, n each): cls (a record's class, PLACE_DROPPED, PLACE_PYTHON), key, length (1 unless set)
 * and txn (a write's transaction, else 0); counts[tree * PLACE_SUBS + kind]: the records,
 * kept[class]: the records placed (n_trees * PLACE_SUBS int64 each). Inserts take
 * their keys and ordinals as TracePlan._place gives them: by tree, then in order. */
PyObject *loadgen_trace_place(PyObject *self, PyObject *args) {
    Py_buffer rv, tv, av, iv, cv, kv, lv, xv, nv, pv;
    if (!PyArg_ParseTuple(args, "y*y*w*w*w*w*w*w*w*w*", &rv, &tv, &av, &iv, &cv, &kv, &lv, &xv, &nv, &pv))
        return NULL;
    Py_ssize_t n = rv.len / RECORD_BYTES, n_trees = tv.len / (8 * T_COLS), n_tables = av.len / 8;
    Py_ssize_t n_classes = n_trees * PLACE_SUBS;
    int ok = rv.len % RECORD_BYTES == 0 && tv.len % (8 * T_COLS) == 0 && av.len % 8 == 0 && iv.len == 8 &&
             cv.len == n * 8 && kv.len == n * 8 && lv.len == n * 8 && xv.len == n * 8 && nv.len == n_classes * 8 &&
             pv.len == n_classes * 8;
    const int64_t *trees = tv.buf;
    for (Py_ssize_t t = 0; ok && t < n_trees; t++) {
        int64_t table = trees[t * T_COLS + T_TABLE];
        ok = table >= 0 && table < n_tables && trees[t * T_COLS + T_ROWS] >= 0;
    }
    Py_ssize_t *order = NULL;
    if (ok && n) {
        order = malloc(sizeof(*order) * (size_t)n);
        if (!order) {
            ok = 0;
            PyErr_NoMemory();
        }
    }
    if (ok) {
        const char *recs = rv.buf;
        int64_t *appended = av.buf, *inserted_at = iv.buf, *cls = cv.buf, *key = kv.buf, *length = lv.buf;
        int64_t *txn = xv.buf, *counts = nv.buf, *kept = pv.buf;
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t inserts = 0;
        memset(counts, 0, (size_t)nv.len);
        memset(kept, 0, (size_t)pv.len);
        for (Py_ssize_t i = 0; i < n && ok; i++) {
            record_t r = load_record(recs, i);
            if (r.tree >= n_trees || r.kind >= PLACE_SUBS) {
                ok = 0;
                break;
            }
            key[i] = 0;
            length[i] = 1;
            txn[i] = r.kind >= K_INSERT && r.kind <= K_DELETE ? r.hi : 0;
            counts[(Py_ssize_t)r.tree * PLACE_SUBS + r.kind]++;
            cls[i] = place_one(&r, trees + (Py_ssize_t)r.tree * T_COLS, &key[i], &length[i]);
            inserts += r.kind == K_INSERT;
        }
        /* the inserts by tree, each tree's in order (a counting sort): TracePlan._place's groups */
        Py_ssize_t at = 0;
        for (Py_ssize_t t = 0; ok && inserts && t < n_trees; t++) {
            Py_ssize_t c = (Py_ssize_t)counts[t * PLACE_SUBS + K_INSERT];
            counts[t * PLACE_SUBS + K_INSERT] = at; /* its first place for now */
            at += c;
        }
        for (Py_ssize_t i = 0; ok && inserts && i < n; i++) {
            uint8_t kind = (uint8_t)recs[i * RECORD_BYTES];
            if (kind == K_INSERT) {
                uint16_t tree;
                memcpy(&tree, recs + i * RECORD_BYTES + 2, 2);
                order[counts[(Py_ssize_t)tree * PLACE_SUBS + K_INSERT]++] = i;
            }
        }
        for (Py_ssize_t t = n_trees - 1; ok && inserts && t >= 0; t--) /* the counts back */
            counts[t * PLACE_SUBS + K_INSERT] -= t ? counts[(t - 1) * PLACE_SUBS + K_INSERT] : 0;
        for (Py_ssize_t j = 0; ok && j < inserts; j++) {
            Py_ssize_t i = order[j];
            int64_t c = cls[i];
            if (c >= 0 && c % PLACE_SUBS == K_INSERT) {
                const int64_t *t = trees + (c / PLACE_SUBS) * T_COLS;
                key[i] = t[T_ROWS] + ++appended[t[T_TABLE]];
            } else if (c >= 0) {
                length[i] = ++*inserted_at;
            }
        }
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            if (cls[i] >= 0)
                kept[cls[i]]++;
        }
        Py_END_ALLOW_THREADS
    }
    free(order);
    PyBuffer_Release(&rv);
    PyBuffer_Release(&tv);
    PyBuffer_Release(&av);
    PyBuffer_Release(&iv);
    PyBuffer_Release(&cv);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&lv);
    PyBuffer_Release(&xv);
    PyBuffer_Release(&nv);
    PyBuffer_Release(&pv);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError,
                            "trace_place: 24-byte records of known trees, a row of 7 int64 a tree (its table "
                            "among appended's), n int64 outputs, tree x 16 counts");
        return NULL;
    }
    Py_RETURN_NONE;
}
