/*
 * permute: loadgen/workload/orders.py's permutation() (a 4-round Feistel network over the next power of
 * four, cycle-walking back into range(n)) in C, value for value, for the random order.
 *
 * In Python the network costs ~1 us per id, a few percent of a query with the native driver;
 * here it fills the driver's id chunks directly. Python derives half_bits and the four round keys
 * (orders._feistel) so both implementations share them.
 */
#include "permute.h"

#include <stdint.h>

static inline uint64_t feistel(uint64_t x, unsigned half_bits, uint64_t mask, const uint64_t keys[4]) {
    uint64_t left = x >> half_bits, right = x & mask;
    for (int r = 0; r < 4; r++) {
        uint64_t f = ((right * 0x85EBCA6BULL) ^ keys[r]) & 0xFFFFFFFFULL;
        f = ((f ^ (f >> 13)) * 0xC2B2AE35ULL) & mask;
        uint64_t next = left ^ f;
        left = right;
        right = next;
    }
    return (left << half_bits) | right;
}

PyObject *loadgen_permute_fill(PyObject *self, PyObject *args) {
    unsigned long long n, start, base_start, base_step;
    unsigned int half_bits;
    unsigned long long k0, k1, k2, k3;
    Py_buffer out = {0};
    PyObject *py_result = NULL;

    if (!PyArg_ParseTuple(args, "KI(KKKK)Kw*KK:permute_fill", &n, &half_bits, &k0, &k1, &k2, &k3, &start, &out,
                          &base_start, &base_step))
        return NULL;
    if (n < 1 || half_bits < 1 || half_bits > 32 || out.len % 8 != 0 ||
        (half_bits < 32 && ((n - 1) >> (2 * half_bits)) != 0)) {
        PyErr_SetString(PyExc_ValueError, "half_bits must be 1..32 with n <= 4**half_bits, out 8-byte items");
        goto error;
    }
    const uint64_t keys[4] = {k0, k1, k2, k3};
    const uint64_t mask = (1ULL << half_bits) - 1;
    uint64_t *dst = (uint64_t *)out.buf;
    Py_ssize_t count = 0, room = out.len / 8;

    Py_BEGIN_ALLOW_THREADS
    for (uint64_t i = start; i < n && count < room; i++) {
        uint64_t x = feistel(i, half_bits, mask, keys);
        while (x >= n) /* the domain is at most 4x n: this ends fast */
            x = feistel(x, half_bits, mask, keys);
        dst[count++] = base_start + base_step * x;
    }
    Py_END_ALLOW_THREADS

    py_result = PyLong_FromSsize_t(count);
error:
    PyBuffer_Release(&out);
    return py_result;
}
