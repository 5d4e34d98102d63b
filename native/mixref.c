/*
 * mixref: the hot loops of the mix model's reference building (loadgen/analysis/mixpages.py and
 * mixmodel.add_ops) in C, value for value: a key's leaf (Tree.leaf_of_key), a leaf's descent
 * (Tree.path), a walk along leaves (walks) and the copy of each op's references into its place
 * (positions + a fancy-index assignment: hcat, add_ops). numpy did each as several passes over
 * temporary arrays (np.repeat, arange, a gather and a scatter); here one pass writes the output.
 * Python allocates every output (numpy arrays) and checks the shapes; these check the sizes again
 * and every index they write, and run without the GIL.
 */
#include "mixref.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* numpy's floor division of doubles (npy_divmod in npymath), so a float's quotient is the same
 * one numpy gives: floor((a - fmod(a, b)) / b), rounded where the division left it just below. */
static double np_floor_divide(double a, double b) {
    double mod = fmod(a, b), div, floordiv;
    if (!b)
        return a / b;
    div = (a - mod) / b;
    if (mod) {
        if ((b < 0) != (mod < 0))
            div -= 1.0;
    }
    if (div) {
        floordiv = floor(div);
        if (div - floordiv > 0.5)
            floordiv += 1.0;
    } else {
        floordiv = copysign(0.0, a / b);
    }
    return floordiv;
}

/* numpy's astype(int64) of a double: truncation (the values here are in range). */
static inline int64_t to_i64(double x) {
    return (int64_t)x;
}

static int64_t floor_div_i64(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

typedef struct {
    const int64_t *sizes; /* pages of each level above the leaves, level 1 first */
    Py_ssize_t levels;
    int64_t base, all_leaves, fanout;
} path_t;

/* The pages of leaf's descent, root first, into out[0..levels] (Tree.path). */
static inline void descent(const path_t *t, int64_t leaf, int64_t *out) {
    int64_t at = t->base + t->all_leaves, div = 1;
    for (Py_ssize_t l = 0; l < t->levels; l++) {
        div *= t->fanout;
        int64_t col = floor_div_i64(leaf, div), top = t->sizes[l] - 1;
        out[t->levels - 1 - l] = at + (col < top ? col : top);
        at += t->sizes[l];
    }
    out[t->levels] = t->base + leaf;
}

/* mixref_leaves(starts, keys, out, rows, leaf_pages, all_leaves, rows_per_leaf): out[i] = the leaf
 * of keys[i] (int64 each; Tree.leaf_of_key with mixpages.leaf_index). */
PyObject *loadgen_mixref_leaves(PyObject *self, PyObject *args) {
    Py_buffer sv, kv, ov;
    long long rows, leaf_pages, all_leaves;
    double rpl;
    if (!PyArg_ParseTuple(args, "y*y*w*LLLd", &sv, &kv, &ov, &rows, &leaf_pages, &all_leaves, &rpl))
        return NULL;
    const int64_t *starts = sv.buf, *keys = kv.buf;
    int64_t *out = ov.buf;
    Py_ssize_t n_leaves = sv.len / 8, n = kv.len / 8;
    int bad = sv.len % 8 || kv.len % 8 || ov.len != kv.len || n_leaves < 1 || rows < 1 || all_leaves < 1;
    if (!bad) {
        Py_BEGIN_ALLOW_THREADS
        double spread = (double)n_leaves / (double)rows; /* n_leaves / max(rows, 1) */
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t key = keys[i];
            if (key > rows) { /* inserted at the end: on the new leaves */
                int64_t nw = leaf_pages + to_i64(np_floor_divide((double)(key - rows - 1), rpl));
                out[i] = nw < all_leaves - 1 ? nw : all_leaves - 1;
                continue;
            }
            int64_t k = key < 1 ? 1 : key;
            int64_t at = to_i64((double)(k - 1) * spread);
            if (at > n_leaves - 1)
                at = n_leaves - 1;
            if (at < 0)
                at = 0;
            for (;;) { /* leaf_index's steps, one key at a time */
                int up = at + 1 < n_leaves && starts[at + 1] <= k, down = starts[at] > k;
                if (!up && !down)
                    break;
                at += up - down;
            }
            out[i] = at;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&sv);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&ov);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "mixref_leaves: int64 starts (>= 1), keys and out of keys' length");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The path arguments after the outputs: base, all_leaves, fanout, sizes (int64 buffer). */
static int parse_path(path_t *t, Py_buffer *zv, long long base, long long all_leaves, long long fanout) {
    t->sizes = zv->buf;
    t->levels = zv->len / 8;
    t->base = base;
    t->all_leaves = all_leaves;
    t->fanout = fanout;
    return zv->len % 8 == 0 && fanout >= 1 && all_leaves >= 1;
}

/* mixref_path(leaves, out, base, all_leaves, fanout, sizes): out (n x height, int64) the descents. */
PyObject *loadgen_mixref_path(PyObject *self, PyObject *args) {
    Py_buffer lv, ov, zv;
    long long base, all_leaves, fanout;
    path_t t;
    if (!PyArg_ParseTuple(args, "y*w*LLLy*", &lv, &ov, &base, &all_leaves, &fanout, &zv))
        return NULL;
    int ok = parse_path(&t, &zv, base, all_leaves, fanout) && lv.len % 8 == 0;
    Py_ssize_t n = lv.len / 8, h = t.levels + 1;
    ok = ok && ov.len == n * h * 8;
    if (ok) {
        const int64_t *leaves = lv.buf;
        int64_t *out = ov.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++)
            descent(&t, leaves[i], out + i * h);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&lv);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&zv);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "mixref_path: int64 leaves and sizes, out of len(leaves) x height");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* mixref_walks(lo, hi, pages, flags, first_flag, move_flag, base, all_leaves, fanout, sizes): per op
 * the descent to leaf lo[i] (first_flag on its first page), then each next leaf to hi[i] (move_flag):
 * mixpages.walks; pages (int64) and flags (uint8) hold sum(height + max(hi - lo, 0)) references. */
PyObject *loadgen_mixref_walks(PyObject *self, PyObject *args) {
    Py_buffer lov, hiv, pv, fv, zv;
    unsigned char first_flag, move_flag;
    long long base, all_leaves, fanout;
    path_t t;
    if (!PyArg_ParseTuple(args, "y*y*w*w*bbLLLy*", &lov, &hiv, &pv, &fv, &first_flag, &move_flag, &base, &all_leaves,
                          &fanout, &zv))
        return NULL;
    int ok = parse_path(&t, &zv, base, all_leaves, fanout) && lov.len % 8 == 0 && hiv.len == lov.len &&
             pv.len % 8 == 0 && fv.len == pv.len / 8;
    if (ok) {
        const int64_t *lo = lov.buf, *hi = hiv.buf;
        int64_t *pages = pv.buf;
        uint8_t *flags = fv.buf;
        Py_ssize_t n = lov.len / 8, room = fv.len, at = 0, h = t.levels + 1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n && ok; i++) {
            int64_t steps = hi[i] > lo[i] ? hi[i] - lo[i] : 0;
            if (at + h + steps > room) {
                ok = 0;
                break;
            }
            descent(&t, lo[i], pages + at);
            memset(flags + at, 0, (size_t)h);
            flags[at] |= first_flag;
            at += h;
            for (int64_t s = 1; s <= steps; s++, at++) {
                pages[at] = t.base + lo[i] + s;
                flags[at] = move_flag;
            }
        }
        ok = ok && at == room;
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&lov);
    PyBuffer_Release(&hiv);
    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    PyBuffer_Release(&zv);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError,
                        "mixref_walks: int64 lo, hi (one length), pages int64 and flags uint8 "
                        "of the walks' references exactly");
        return NULL;
    }
    Py_RETURN_NONE;
}

static inline uint64_t load_page(const char *buf, int size, Py_ssize_t i) {
    if (size == 8) {
        uint64_t v;
        memcpy(&v, buf + i * 8, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, buf + i * 4, 4);
    return v;
}

static inline void store_page(char *buf, int size, Py_ssize_t i, uint64_t v) {
    if (size == 8) {
        memcpy(buf + i * 8, &v, 8);
    } else {
        uint32_t w = (uint32_t)v; /* astype(uint32): modulo 2**32 */
        memcpy(buf + i * 4, &w, 4);
    }
}

/* mixref_scatter(out_pages, out_size, out_flags, cursor, pages, size, flags, widths, where): op k's
 * widths[k] references (pages[...], flags[...], op after op) copied to out from cursor[i] on, i =
 * where[k] (where empty: k), and cursor[i] moved past them; sizes: 4 (uint32) or 8 (int64) bytes a
 * page. As `idx = positions(cursor[where], widths); out[idx] = pages; cursor[where] += widths`. */
PyObject *loadgen_mixref_scatter(PyObject *self, PyObject *args) {
    Py_buffer opv, ofv, cv, pv, fv, wv, hv;
    int osize, size;
    if (!PyArg_ParseTuple(args, "w*iw*w*y*iy*y*y*", &opv, &osize, &ofv, &cv, &pv, &size, &fv, &wv, &hv))
        return NULL;
    int ok = (osize == 4 || osize == 8) && (size == 4 || size == 8) && opv.len % osize == 0 &&
             ofv.len == opv.len / osize && pv.len % size == 0 && fv.len == pv.len / size && cv.len % 8 == 0 &&
             wv.len % 8 == 0 && hv.len % 8 == 0 && (hv.len == 0 || hv.len == wv.len);
    if (ok) {
        const int64_t *widths = wv.buf, *where = hv.buf;
        int64_t *cursor = cv.buf;
        const char *in = pv.buf;
        const uint8_t *fin = fv.buf;
        char *out = opv.buf;
        uint8_t *fout = ofv.buf;
        Py_ssize_t m = wv.len / 8, n_cursor = cv.len / 8, n_in = fv.len, n_out = ofv.len, at = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < m; k++) {
            int64_t i = hv.len ? where[k] : k, w = widths[k];
            if (i < 0 || i >= n_cursor || w < 0 || at + w > n_in || cursor[i] < 0 || cursor[i] + w > n_out) {
                ok = 0;
                break;
            }
            int64_t c = cursor[i];
            if (size == osize) {
                memcpy(out + c * osize, in + at * size, (size_t)(w * size));
            } else {
                for (int64_t j = 0; j < w; j++)
                    store_page(out, osize, c + j, load_page(in, size, at + j));
            }
            memcpy(fout + c, fin + at, (size_t)w);
            cursor[i] = c + w;
            at += w;
        }
        ok = ok && at == n_in;
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&opv);
    PyBuffer_Release(&ofv);
    PyBuffer_Release(&cv);
    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    PyBuffer_Release(&wv);
    PyBuffer_Release(&hv);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError,
                        "mixref_scatter: widths summing to the references, every op's place "
                        "inside out (pages of 4 or 8 bytes, int64 cursor, widths and where)");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* mixref_order(op_widths, p_at, p_widths, starts): where each op's references start (starts[0..n))
 * and each piece of purge's work (starts[n..n+m)), purge's pieces due at op a (p_at < n; below 0:
 * op 0) before op a's own, in their given order (mixmodel.add_ops' stable argsort of 2i + 1 and
 * 2 * max(p_at, 0), in one counting pass instead of a sort). */
PyObject *loadgen_mixref_order(PyObject *self, PyObject *args) {
    Py_buffer wv, av, pv, sv;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &wv, &av, &pv, &sv))
        return NULL;
    Py_ssize_t n = wv.len / 8, m = av.len / 8;
    int ok = wv.len % 8 == 0 && av.len % 8 == 0 && pv.len == av.len && sv.len == (n + m) * 8;
    Py_ssize_t *first = NULL, *order = NULL;
    if (ok) {
        first = calloc((size_t)n + 2, sizeof(*first));
        order = malloc(sizeof(*order) * (size_t)(m ? m : 1));
        if (!first || !order) {
            ok = 0;
            PyErr_NoMemory();
        }
    }
    if (ok) {
        const int64_t *op_widths = wv.buf, *p_at = av.buf, *p_widths = pv.buf;
        int64_t *starts = sv.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < m; k++) { /* the pieces due at each op, then their places */
            if (p_at[k] >= n) {
                ok = 0;
                break;
            }
            first[(p_at[k] < 0 ? 0 : p_at[k]) + 1]++;
        }
        for (Py_ssize_t a = 0; ok && a <= n; a++)
            first[a + 1] += first[a];
        for (Py_ssize_t k = 0; ok && k < m; k++) /* first[a] ends as the next op's first */
            order[first[p_at[k] < 0 ? 0 : p_at[k]]++] = k;
        int64_t pos = 0;
        Py_ssize_t j = 0;
        for (Py_ssize_t i = 0; ok && i <= n; i++) {
            for (; j < first[i]; j++) { /* first[i]: the end of the pieces due at op i */
                starts[n + order[j]] = pos;
                pos += p_widths[order[j]];
            }
            if (i < n) {
                starts[i] = pos;
                pos += op_widths[i];
            }
        }
        Py_END_ALLOW_THREADS
    }
    free(first);
    free(order);
    PyBuffer_Release(&wv);
    PyBuffer_Release(&av);
    PyBuffer_Release(&pv);
    PyBuffer_Release(&sv);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError,
                            "mixref_order: int64 op_widths, p_at (each below n), p_widths, starts of n + m");
        return NULL;
    }
    Py_RETURN_NONE;
}
