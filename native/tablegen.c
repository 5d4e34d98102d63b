/*
 * tablegen: rows for any table, from a column plan (loadgen/seeding/tablegen.py builds the plan from the
 * columns the server reflected; its `_py_lines` is the reference this file must match byte for
 * byte).
 *
 * Every row is a pure function of (seed, row number): the row's generator state is derived from
 * both, so a chunk can start anywhere and an interrupted seed resumes at COUNT(*) + 1 with the
 * same bytes. Each column draws exactly three 64-bit values (null check, then two for the value)
 * whatever its kind, so the Python reference stays a line-for-line copy.
 *
 * Plan: 8 int64 per column: kind, null_permille, then a..f (meaning per kind, see tablegen.py).
 * labels: the ENUM/SET labels, each followed by a NUL. pool: letters and spaces text is cut from.
 * keymap (optional): int64 quadruples (first row, rows, first key, last key), ascending: an integer
 * primary key column with f = 1 takes, for row n, the key spread evenly over its segment
 * (seed --shape: a cloned table's key range and gaps, loadgen/seeding/shapeseed.py).
 */
#include "tablegen.h"
#include "textput.h"

#include <stdint.h>
#include <string.h>

enum { K_PK = 1, K_INT, K_DEC, K_TEXT, K_TIMEPOINT, K_TIME, K_YEAR, K_JSON, K_ENUM, K_SET };
enum { PK_INT = 0, PK_STR, PK_DATETIME, PK_DATE };

#define PLAN_WORDS 8
#define MAX_LABELS 4096

static const uint64_t POW10[19] = {1ULL,
                                   10ULL,
                                   100ULL,
                                   1000ULL,
                                   10000ULL,
                                   100000ULL,
                                   1000000ULL,
                                   10000000ULL,
                                   100000000ULL,
                                   1000000000ULL,
                                   10000000000ULL,
                                   100000000000ULL,
                                   1000000000000ULL,
                                   10000000000000ULL,
                                   100000000000000ULL,
                                   1000000000000000ULL,
                                   10000000000000000ULL,
                                   100000000000000000ULL,
                                   1000000000000000000ULL};

static inline uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Days since 1970-01-01 -> civil date (H. Hinnant's days_from_civil, inverted). */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static char *put_time_point(char *p, int64_t t, int date_only) {
    int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
    int64_t secs = t - days * 86400, y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    p = put_padded(p, (uint64_t)y, 4);
    *p++ = '-';
    p = put_padded(p, m, 2);
    *p++ = '-';
    p = put_padded(p, d, 2);
    if (!date_only) {
        *p++ = ' ';
        p = put_padded(p, (uint64_t)(secs / 3600), 2);
        *p++ = ':';
        p = put_padded(p, (uint64_t)(secs / 60 % 60), 2);
        *p++ = ':';
        p = put_padded(p, (uint64_t)(secs % 60), 2);
    }
    return p;
}

/* A text length: triangular around `mean` on [1, 2*mean-1], one in 64 four times longer. */
/* The key of row n in the key map: segment i holds rows first..first+rows-1 spread from its first key
 * to its last, both included. Rows come in order, so the search starts at the previous segment. */
static int64_t mapped_key(const int64_t *map, Py_ssize_t segs, Py_ssize_t *at, uint64_t n) {
    Py_ssize_t i = *at;
    while (i + 1 < segs && (uint64_t)map[(i + 1) * 4] <= n)
        i++;
    while (i > 0 && (uint64_t)map[i * 4] > n)
        i--;
    *at = i;
    const int64_t *m = map + i * 4;
    uint64_t k = n - (uint64_t)m[0], rows = (uint64_t)m[1];
    if (rows <= 1)
        return m[2];
    unsigned __int128 span = (uint64_t)m[3] - (uint64_t)m[2];
    return (int64_t)((uint64_t)m[2] + (uint64_t)((unsigned __int128)k * span / (rows - 1)));
}

static inline size_t text_len(uint64_t r, uint64_t mean, uint64_t max_len) {
    uint64_t len = 1 + (r & 0xFFFFFFFFULL) % mean + ((r >> 32) & 0x3FFFFFFULL) % mean;
    if ((r >> 58) == 0)
        len *= 4;
    return (size_t)(len < max_len ? len : max_len);
}

PyObject *loadgen_tablegen_lines(PyObject *self, PyObject *args) {
    Py_buffer plan = {0}, labels = {0}, pool = {0}, keymap = {0};
    unsigned long long seed, first, last;
    PyObject *py_out = NULL;
    const char *label_at[MAX_LABELS];
    size_t label_len[MAX_LABELS];
    Py_ssize_t n_labels = 0;

    if (!PyArg_ParseTuple(args, "y*y*y*KKK|y*:tablegen_lines", &plan, &labels, &pool, &seed, &first, &last, &keymap))
        return NULL;
    if (keymap.buf != NULL && keymap.len % 32 != 0) {
        PyErr_SetString(PyExc_ValueError, "keymap must hold 4 int64 words per segment");
        goto error;
    }
    const int64_t *kmap = (const int64_t *)keymap.buf;
    Py_ssize_t segs = keymap.buf != NULL ? keymap.len / 32 : 0, seg_at = 0;
    for (Py_ssize_t i = 0; i < segs; i++) {
        if (kmap[i * 4 + 1] < 1 || kmap[i * 4 + 3] < kmap[i * 4 + 2] || (i && kmap[i * 4] <= kmap[i * 4 - 4])) {
            PyErr_SetString(PyExc_ValueError, "keymap segments must ascend and hold rows");
            goto error;
        }
    }
    if (plan.len % (PLAN_WORDS * 8) != 0 || plan.len == 0) {
        PyErr_SetString(PyExc_ValueError, "plan must hold 8 int64 words per column");
        goto error;
    }
    const int64_t *w = (const int64_t *)plan.buf;
    Py_ssize_t cols = plan.len / (PLAN_WORDS * 8);
    const char *lb = (const char *)labels.buf;
    for (Py_ssize_t i = 0, start = 0; i < labels.len; i++) {
        if (lb[i] == '\0') {
            if (n_labels == MAX_LABELS) {
                PyErr_SetString(PyExc_ValueError, "too many labels");
                goto error;
            }
            label_at[n_labels] = lb + start;
            label_len[n_labels++] = (size_t)(i - start);
            start = i + 1;
        }
    }

    /* The largest a row can be, to size the output once; and the plan checked against the pool. */
    size_t row_max = 1;
    for (Py_ssize_t c = 0; c < cols; c++) {
        const int64_t *col = w + c * PLAN_WORDS;
        int64_t kind = col[0], a = col[2], b = col[3], cc = col[4], d = col[5];
        size_t most = 24;
        switch (kind) {
            case K_PK:
            case K_INT:
            case K_TIMEPOINT:
            case K_TIME:
            case K_YEAR:
                if ((kind == K_PK && (a < 1 || b < 0 || d < 0 || d > 24 || (col[7] == 1 && segs == 0))) ||
                    (kind == K_INT && b < a) || (kind == K_TIMEPOINT && b < 1)) {
                    PyErr_SetString(PyExc_ValueError, "bad plan parameters");
                    goto error;
                }
                most = 48 + (kind == K_PK && d > 0 ? (size_t)d : 0);
                break;
            case K_DEC:
                if (a < 0 || a > 18 || cc < 0 || cc > 18 || b < cc || b > 65) {
                    PyErr_SetString(PyExc_ValueError, "decimal digits out of range");
                    goto error;
                }
                most = (size_t)(a + b + 3);
                break;
            case K_TEXT:
            case K_JSON:
                if (a < 1 || b < 1 || a + 16 >= pool.len) {
                    PyErr_SetString(PyExc_ValueError, "text length must be >= 1 and below the pool size - 16");
                    goto error;
                }
                most = (size_t)a + (kind == K_JSON ? 96 : 0);
                break;
            case K_ENUM:
            case K_SET:
                if (cc < 0 || d < 1 || cc + d > n_labels) {
                    PyErr_SetString(PyExc_ValueError, "label index out of range");
                    goto error;
                }
                most = 0;
                for (int64_t i = cc; i < cc + d; i++)
                    most += label_len[i] + 1;
                break;
            default:
                PyErr_Format(PyExc_ValueError, "unknown column kind %lld", (long long)kind);
                goto error;
        }
        row_max += (most < 3 ? 3 : most) + 1;
    }
    if (last < first) {
        py_out = PyBytes_FromStringAndSize(NULL, 0);
        goto error;
    }
    Py_ssize_t rows = (Py_ssize_t)(last - first + 1);
    if (rows > PY_SSIZE_T_MAX / (Py_ssize_t)row_max) {
        PyErr_NoMemory();
        goto error;
    }
    py_out = PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)row_max);
    if (py_out == NULL)
        goto error;
    char *start = PyBytes_AS_STRING(py_out), *p = start;
    const char *text = (const char *)pool.buf;
    uint64_t pool_len = (uint64_t)pool.len;

    Py_BEGIN_ALLOW_THREADS
    for (uint64_t n = first; n <= last; n++) {
        uint64_t s = seed ^ (n * 0xD1B54A32D192ED03ULL);
        for (Py_ssize_t c = 0; c < cols; c++) {
            const int64_t *col = w + c * PLAN_WORDS;
            int64_t kind = col[0], nulls = col[1], a = col[2], b = col[3], cc = col[4], d = col[5], e = col[6];
            uint64_t r0 = splitmix(&s), r1 = splitmix(&s), r2 = splitmix(&s);
            if (c > 0)
                *p++ = '\t';
            if (nulls > 0 && (int64_t)(r0 % 1000) < nulls) {
                *p++ = '\\';
                *p++ = 'N';
                continue;
            }
            switch (kind) {
                case K_PK: {
                    uint64_t v = (n - 1) / (uint64_t)a;
                    if (b > 0)
                        v %= (uint64_t)b;
                    v += 1;
                    if (e == PK_INT && col[7] == 1) {
                        p = put_i(p, mapped_key(kmap, segs, &seg_at, n));
                    } else if (e == PK_INT) {
                        p = put_i(p, cc + (int64_t)v);
                    } else if (e == PK_STR) {
                        *p++ = 'k';
                        p = put_padded(p, v, (int)d);
                    } else {
                        p = put_time_point(p, e == PK_DATE ? (cc + (int64_t)v) * 86400 : cc + (int64_t)v * d,
                                           e == PK_DATE);
                    }
                    break;
                }
                case K_INT:
                    p = put_i(p, a + (int64_t)(r1 % ((uint64_t)(b - a) + 1)));
                    break;
                case K_DEC:
                    p = put_u(p, r1 % POW10[a]);
                    if (b > 0) {
                        *p++ = '.';
                        p = put_padded(p, r2 % POW10[cc], (int)cc);
                        for (int64_t i = cc; i < b; i++)
                            *p++ = '0';
                    }
                    break;
                case K_TEXT: {
                    size_t len = text_len(r1, (uint64_t)b, (uint64_t)a);
                    memcpy(p, text + r2 % (pool_len - (uint64_t)a), len);
                    p += len;
                    break;
                }
                case K_TIMEPOINT:
                    p = put_time_point(p, cc + (int64_t)n * a + (int64_t)(r1 % (uint64_t)b), e == 1);
                    break;
                case K_TIME: {
                    uint64_t t = r1 % 86400;
                    p = put_padded(p, t / 3600, 2);
                    *p++ = ':';
                    p = put_padded(p, t / 60 % 60, 2);
                    *p++ = ':';
                    p = put_padded(p, t % 60, 2);
                    break;
                }
                case K_YEAR:
                    p = put_u(p, 1990 + r1 % 40);
                    break;
                case K_JSON: {
                    size_t tag_len = 3 + (size_t)((r1 >> 20) % 8);
                    size_t note_len = text_len(r2, (uint64_t)b, (uint64_t)a);
                    memcpy(p, "{\"n\": ", 6);
                    p = put_u(p + 6, n);
                    memcpy(p, ", \"v\": ", 7);
                    p = put_u(p + 7, r1 % 100000);
                    memcpy(p, ", \"tag\": \"", 10);
                    p += 10;
                    memcpy(p, text + (r1 >> 40) % (pool_len - 16), tag_len);
                    p += tag_len;
                    memcpy(p, "\", \"note\": \"", 12);
                    p += 12;
                    memcpy(p, text + (r2 >> 24) % (pool_len - (uint64_t)a), note_len);
                    p += note_len;
                    memcpy(p, "\"}", 2);
                    p += 2;
                    break;
                }
                case K_ENUM: {
                    uint64_t i = r1 % (uint64_t)d, j = r2 % (uint64_t)d;
                    i = i < j ? i : j; /* min of two: skewed to the first labels, as real enums are */
                    memcpy(p, label_at[cc + i], label_len[cc + i]);
                    p += label_len[cc + i];
                    break;
                }
                case K_SET: {
                    int first_label = 1;
                    int64_t k = d < 16 ? d : 16;
                    for (int64_t i = 0; i < k; i++) {
                        if (r1 >> i & 1) {
                            if (!first_label)
                                *p++ = ',';
                            memcpy(p, label_at[cc + i], label_len[cc + i]);
                            p += label_len[cc + i];
                            first_label = 0;
                        }
                    }
                    break;
                }
            }
        }
        *p++ = '\n';
    }
    Py_END_ALLOW_THREADS

    if (_PyBytes_Resize(&py_out, p - start) < 0)
        py_out = NULL;
error:
    PyBuffer_Release(&plan);
    PyBuffer_Release(&labels);
    PyBuffer_Release(&pool);
    if (keymap.buf != NULL)
        PyBuffer_Release(&keymap);
    return py_out;
}
