/*
 * keydist: the key distributions of loadgen/workload/patterns.py in C (the Python there is the reference,
 * value for value), and the key -> page-reference expansion the model uses for explicit key
 * streams (patterns and traces).
 *
 * Operation i's key depends only on (seed, i): two counter-based splitmix64 draws, so a chunk
 * can start anywhere (threads take contiguous slices of the operations) and memory is one chunk.
 *
 * The distributions are YCSB's (core/src/main/java/site/ycsb/generator/):
 *  0 uniform  : key_min + floor(u * n)                              (UniformLongGenerator)
 *  1 zipfian  : rank r by Gray et al.'s method over n items, key_min + r  (ZipfianGenerator)
 *  2 scrambled: r over 10^10 items, key_min + fnvhash64(r) % n   (ScrambledZipfianGenerator)
 *  3 latest   : key_min + n - 1 - r, r zipfian over n items         (SkewedLatestGenerator)
 *  4 hotspot  : with probability hot_ops uniform over the first hot_n keys, else uniform over
 *               the rest                                              (HotspotIntegerGenerator)
 */
#include "keydist.h"

#include "lrusim/source.h"

#include <math.h>
#include <stdint.h>

enum { KD_UNIFORM = 0, KD_ZIPFIAN = 1, KD_SCRAMBLED = 2, KD_LATEST = 3, KD_HOTSPOT = 4 };

static inline uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static inline double unit(uint64_t h) {
    return (double)(h >> 11) * 0x1.0p-53;
} /* [0, 1) */

/* YCSB's Utils.fnvhash64: FNV-1 over the 8 bytes, then Math.abs of the signed result. */
static inline uint64_t fnvhash64(uint64_t v) {
    uint64_t h = 0xCBF29CE484222325ULL;
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        v >>= 8;
        h *= 1099511628211ULL;
    }
    int64_t s = (int64_t)h;
    return s < 0 ? (uint64_t)0 - h : h;
}

typedef struct {
    uint64_t items;
    double zetan, theta, alpha, eta, half_pow;
} zipf_t;

static void zipf_init(zipf_t *z, uint64_t items, double zetan, double theta) {
    double zeta2 = 1.0 + pow(0.5, theta);
    z->items = items;
    z->zetan = zetan;
    z->theta = theta;
    z->alpha = 1.0 / (1.0 - theta);
    z->eta = (1.0 - pow(2.0 / (double)items, 1.0 - theta)) / (1.0 - zeta2 / zetan);
    z->half_pow = pow(0.5, theta);
}

static inline uint64_t zipf_rank(const zipf_t *z, double u) {
    double uz = u * z->zetan;
    if (uz < 1.0)
        return 0;
    if (uz < 1.0 + z->half_pow)
        return 1;
    uint64_t r = (uint64_t)((double)z->items * pow(z->eta * u - z->eta + 1.0, z->alpha));
    return r < z->items ? r : z->items - 1; /* u < 1, but rounding may reach items */
}

PyObject *loadgen_keydist_fill(PyObject *self, PyObject *args) {
    int kind;
    unsigned long long n, start, seed_a, seed_b, items, hot_n, key_min;
    double zetan, theta, hot_ops;
    Py_buffer out = {0};
    PyObject *py_result = NULL;

    if (!PyArg_ParseTuple(args, "iKKw*(KKKddKdK):keydist_fill", &kind, &n, &start, &out, &seed_a, &seed_b, &items,
                          &zetan, &theta, &hot_n, &hot_ops, &key_min))
        return NULL;
    if (kind < KD_UNIFORM || kind > KD_HOTSPOT || n < 1 || out.len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "kind must be 0..4, n >= 1, out 8-byte items");
        goto error;
    }
    if ((kind == KD_ZIPFIAN || kind == KD_SCRAMBLED || kind == KD_LATEST) &&
        (!(theta > 0.0 && theta < 1.0) || items < 2 || !(zetan >= 1.0))) {
        PyErr_SetString(PyExc_ValueError, "zipfian needs 0 < theta < 1, items >= 2 and zetan >= 1");
        goto error;
    }
    if (kind == KD_HOTSPOT && (hot_n < 1 || hot_n > n || !(hot_ops >= 0.0 && hot_ops <= 1.0))) {
        PyErr_SetString(PyExc_ValueError, "hotspot needs 1 <= hot_n <= n and 0 <= hot_ops <= 1");
        goto error;
    }
    zipf_t z = {0};
    if (kind == KD_ZIPFIAN || kind == KD_SCRAMBLED || kind == KD_LATEST)
        zipf_init(&z, items, zetan, theta);
    uint64_t *dst = (uint64_t *)out.buf;
    Py_ssize_t room = out.len / 8;

    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < room; j++) {
        uint64_t i = start + (uint64_t)j;
        double u = unit(splitmix64(seed_a + i * 0x9E3779B97F4A7C15ULL));
        uint64_t k;
        switch (kind) {
            case KD_UNIFORM:
                k = (uint64_t)(u * (double)n);
                break;
            case KD_ZIPFIAN:
                k = zipf_rank(&z, u);
                break;
            case KD_SCRAMBLED:
                k = fnvhash64(zipf_rank(&z, u)) % n;
                break;
            case KD_LATEST:
                k = n - 1 - zipf_rank(&z, u);
                break;
            default: { /* hotspot: the second draw picks the key inside the chosen set */
                double v = unit(splitmix64(seed_b + i * 0x9E3779B97F4A7C15ULL));
                uint64_t cold = n - hot_n;
                if (u < hot_ops || cold == 0)
                    k = (uint64_t)(v * (double)hot_n);
                else
                    k = hot_n + (uint64_t)(v * (double)cold);
            }
        }
        if (k >= n) /* rounding of u * n at the top */
            k = n - 1;
        dst[j] = key_min + k;
    }
    Py_END_ALLOW_THREADS

    py_result = PyLong_FromSsize_t(room);
error:
    PyBuffer_Release(&out);
    return py_result;
}

/* Pages are numbered as in lrusim/source.c: leaves 0..L-1, then each level above, the root last. Each
 * key is its root-to-leaf descent, the leaves placed and stepped as the built-in orders' (lrusim/source.c,
 * source_point_leaves): a select on a leaf's first or last key reads the neighbouring leaf too, so a
 * query is height or height + 1 references, the root first. A key outside [key_min, key_min + rows)
 * is skipped. Writes at most pages.len / 4 references and stops before a key that would not fit whole;
 * returns (references written, keys read, keys in range: the queries written). */
PyObject *loadgen_keys_to_pages(PyObject *self, PyObject *args) {
    Py_buffer keys = {0}, pages = {0};
    unsigned long long key_min, rows, leaf_pages, fanout;
    int height;
    PyObject *py_result = NULL;

    if (!PyArg_ParseTuple(args, "y*w*(KKKiK):keys_to_pages", &keys, &pages, &key_min, &rows, &leaf_pages, &height,
                          &fanout))
        return NULL;
    if (keys.len % 8 != 0 || pages.len % 4 != 0 || rows < 1 || leaf_pages < 1 || height < 1 || height > MAX_HEIGHT ||
        fanout < 2) {
        PyErr_SetString(PyExc_ValueError, "keys of 8 bytes, pages of 4, rows/leaf_pages >= 1, height 1..15");
        goto error;
    }
    /* the table as a workload source sees it: its layout, leaf starts and steps (order and ids unused) */
    workload_t wl = {ORDER_SEQUENTIAL, rows, 1, 1, leaf_pages, height, fanout, 1};
    uint64_t n_pages = leaf_pages, below = leaf_pages;
    for (int lvl = 1; lvl < height; lvl++) {
        below = lvl == height - 1 ? 1 : (below + fanout - 1) / fanout;
        n_pages += below;
    }
    source_t src;
    char err[128];
    if (n_pages >= NIL || source_init_workload(&src, &wl, n_pages, err, sizeof err) != 0) {
        PyErr_SetString(PyExc_ValueError, n_pages >= NIL ? "the table has too many pages for 32-bit references" : err);
        goto error;
    }
    const uint64_t *key = (const uint64_t *)keys.buf;
    uint32_t *dst = (uint32_t *)pages.buf;
    Py_ssize_t n_keys = keys.len / 8, room = pages.len / 4, w = 0, used = 0, descents = 0;

    Py_BEGIN_ALLOW_THREADS
    for (; used < n_keys; used++) {
        uint64_t k = key[used];
        if (k < key_min || k - key_min >= rows)
            continue;
        uint64_t first, second, idx[MAX_HEIGHT + 1];
        idx[0] = source_point_leaves(&src, 1 + (k - key_min), &first, &second);
        if (w + height + (second != first) > room)
            break;
        /* the levels above the key's own leaf, root first, as a descent (source.c's path) */
        for (int lvl = 1; lvl < height; lvl++)
            idx[lvl] = lvl == height - 1 ? 0 : idx[lvl - 1] / fanout;
        for (int lvl = height - 1; lvl >= 1; lvl--)
            dst[w++] = src.level_base[lvl] + (uint32_t)idx[lvl];
        dst[w++] = (uint32_t)first;
        if (second != first)
            dst[w++] = (uint32_t)second;
        descents++;
    }
    Py_END_ALLOW_THREADS

    py_result = Py_BuildValue("(nnn)", w, used, descents);
error:
    PyBuffer_Release(&keys);
    PyBuffer_Release(&pages);
    return py_result;
}
