/*
 * rowgen: the hot loop of loadgen/seeding/dataset.py's chunk_lines in C, byte for byte.
 *
 * chunk_lines draws one random.Random(...).getrandbits(64) per row and formats six tab-separated
 * columns from it. Python seeds the generator and draws the two alphabet strings, then passes
 * random.Random.getstate()'s 624 Mersenne Twister words and index here; this file continues the
 * same stream (CPython's genrand_uint32, Modules/_randommodule.c) and formats the rows the way the
 * f-string does. getrandbits(64) is two 32-bit outputs, the first one the low word.
 *
 * Seeding spends its client CPU here instead of in the interpreter, which leaves the (shared)
 * cores to the server while it ingests the previous chunk.
 */
#include "rowgen.h"
#include "textput.h"

#include <stdint.h>
#include <string.h>

#define MT_N 624
#define MT_M 397
#define MATRIX_A 0x9908b0dfU
#define UPPER_MASK 0x80000000U
#define LOWER_MASK 0x7fffffffU
#define MAX_ROW_BYTES 160 /* 20+1+4+1+7+1+15+1+84+1+20+1 = 156 */

typedef struct {
    uint32_t state[MT_N];
    int index;
} mt_t;

static uint32_t mt_next(mt_t *m) {
    static const uint32_t mag01[2] = {0x0U, MATRIX_A};
    uint32_t y;

    if (m->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (m->state[kk] & UPPER_MASK) | (m->state[kk + 1] & LOWER_MASK);
            m->state[kk] = m->state[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (m->state[kk] & UPPER_MASK) | (m->state[kk + 1] & LOWER_MASK);
            m->state[kk] = m->state[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (m->state[MT_N - 1] & UPPER_MASK) | (m->state[0] & LOWER_MASK);
        m->state[MT_N - 1] = m->state[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        m->index = 0;
    }
    y = m->state[m->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

PyObject *loadgen_rowgen_lines(PyObject *self, PyObject *args) {
    PyObject *py_state, *py_out = NULL;
    Py_buffer letters = {0}, text = {0};
    unsigned long long first_id, last_id, base_epoch;
    mt_t mt;
    Py_ssize_t rows;

    if (!PyArg_ParseTuple(args, "O!y*y*KKK:rowgen_lines", &PyTuple_Type, &py_state, &letters, &text, &first_id,
                          &last_id, &base_epoch))
        return NULL;
    if (PyTuple_GET_SIZE(py_state) != MT_N + 1) {
        PyErr_Format(PyExc_ValueError, "mt_state must hold %d words and the index", MT_N);
        goto error;
    }
    for (int i = 0; i <= MT_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(py_state, i));
        if (v == (unsigned long)-1 && PyErr_Occurred())
            goto error;
        if (i < MT_N)
            mt.state[i] = (uint32_t)v;
        else
            mt.index = (int)v;
    }
    /* The offsets below reach letters[4095 + 15] and text[8191 + 84]. */
    if (letters.len < 4111 || text.len < 8276) {
        PyErr_SetString(PyExc_ValueError, "letters must hold >= 4111 bytes and text >= 8276");
        goto error;
    }
    if (last_id < first_id) {
        py_out = PyBytes_FromStringAndSize(NULL, 0);
        goto error;
    }
    rows = (Py_ssize_t)(last_id - first_id + 1);
    if (rows > PY_SSIZE_T_MAX / MAX_ROW_BYTES) {
        PyErr_NoMemory();
        goto error;
    }
    py_out = PyBytes_FromStringAndSize(NULL, rows * MAX_ROW_BYTES);
    if (py_out == NULL)
        goto error;
    char *start = PyBytes_AS_STRING(py_out), *p = start;
    const char *alpha = (const char *)letters.buf, *body = (const char *)text.buf;

    Py_BEGIN_ALLOW_THREADS
    for (unsigned long long i = first_id; i <= last_id; i++) {
        uint64_t lo = mt_next(&mt);
        uint64_t r = lo | ((uint64_t)mt_next(&mt) << 32);
        size_t alias_at = (r >> 32) & 0xFFF, body_at = (r >> 44) & 0x1FFF;
        size_t alias_len = 8 + ((r >> 30) & 3) * 2 + ((r >> 57) & 1);
        size_t body_len = 60 + ((r >> 58) % 25);

        p = put_u(p, i);
        *p++ = '\t';
        p = put_u(p, (r & 0x3FF) + 1);
        *p++ = '\t';
        p = put_u(p, ((r >> 10) & 0xFFFFF) + 1);
        *p++ = '\t';
        memcpy(p, alpha + alias_at, alias_len);
        p += alias_len;
        *p++ = '\t';
        memcpy(p, body + body_at, body_len);
        p += body_len;
        *p++ = '\t';
        p = put_u(p, base_epoch + 3 * i + ((r >> 62) & 3));
        *p++ = '\n';
    }
    Py_END_ALLOW_THREADS

    if (_PyBytes_Resize(&py_out, p - start) < 0)
        py_out = NULL;
error:
    if (letters.obj != NULL)
        PyBuffer_Release(&letters);
    if (text.obj != NULL)
        PyBuffer_Release(&text);
    return py_out;
}
