/*
 * mixdrv: the Python glue of a mix's native driver (`loadgen run --workload`,
 * loadgen/drivers/mixnative.py): the streams parsed and checked (a bad one is a ValueError), the
 * handle held in a capsule, the GIL released around the work, the counters handed back as tuples.
 * What the driver does is mixconn.h's (connections, statements, one op at a time) and mixpipe.h's
 * (the pipelined loop).
 */
#include "mixdrv.h"

#ifdef LOADGEN_HAVE_MYSQL

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mixconn.h"
#include "mixpipe.h"
#include "pipeline.h"
#include "qdcommon.h"

#define MD_CAPSULE "loadgen._native.mix"

/* Free h with its pipelined loop's state (NULL: nothing). */
static void md_destroy(md_handle_t *h) {
    if (h != NULL)
        md_pipe_free(h->pipe);
    md_free(h);
}

static void md_capsule_destructor(PyObject *capsule) {
    md_destroy((md_handle_t *)PyCapsule_GetPointer(capsule, MD_CAPSULE));
}

static md_handle_t *md_get(PyObject *capsule) {
    return (md_handle_t *)PyCapsule_GetPointer(capsule, MD_CAPSULE);
}

static PyObject *md_raise(unsigned err, const char *message, const char *stage) {
    PyObject *mod = PyImport_ImportModule("loadgen._native");
    PyObject *exc = mod != NULL ? PyObject_GetAttrString(mod, "QueryError") : NULL;
    Py_XDECREF(mod);
    if (exc == NULL)
        return NULL;
    PyObject *py_args = Py_BuildValue("(Iss)", err, message, stage);
    if (py_args != NULL) {
        PyErr_SetObject(exc, py_args);
        Py_DECREF(py_args);
    }
    Py_DECREF(exc);
    return NULL;
}

/* streams: [(index, key_offset, [(sql, codes, reads), ...]), ...] into h (the GIL held). */
static int md_parse(md_handle_t *h, PyObject *py_streams) {
    PyObject *py_seq = PySequence_Fast(py_streams, "streams must be a list");
    if (py_seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(py_seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        int index;
        long long offset;
        PyObject *py_stmts;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(py_seq, i), "iLO:stream", &index, &offset, &py_stmts))
            goto error;
        if (index < 0 || index >= MD_MAX_STREAMS || h->s[index].used) {
            PyErr_Format(PyExc_ValueError, "stream index %d: 0..%d, each once", index, MD_MAX_STREAMS - 1);
            goto error;
        }
        md_stream_t *s = &h->s[index];
        s->used = 1;
        s->key_offset = offset;
        if (index + 1 > h->n)
            h->n = index + 1;
        PyObject *py_st = PySequence_Fast(py_stmts, "statements must be a list");
        if (py_st == NULL)
            goto error;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(py_st);
        if (m < 1 || m > MD_MAX_STMTS) {
            Py_DECREF(py_st);
            PyErr_Format(PyExc_ValueError, "stream %d: 1..%d statements", index, MD_MAX_STMTS);
            goto error;
        }
        for (Py_ssize_t k = 0; k < m; k++) {
            const char *sql;
            Py_buffer codes = {0};
            int reads;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(py_st, k), "sy*p:statement", &sql, &codes, &reads)) {
                Py_DECREF(py_st);
                goto error;
            }
            md_stmt_t *st = &s->st[k];
            s->n_st = (int)k + 1;
            int bad = codes.len > MD_MAX_PARAMS;
            for (Py_ssize_t c = 0; !bad && c < codes.len; c++)
                bad = ((const uint8_t *)codes.buf)[c] > MD_RAW;
            if (bad) {
                PyBuffer_Release(&codes);
                Py_DECREF(py_st);
                PyErr_Format(PyExc_ValueError, "stream %d: at most %d parameter codes of 0..3", index, MD_MAX_PARAMS);
                goto error;
            }
            st->n_params = (unsigned)codes.len;
            memcpy(st->codes, codes.buf, (size_t)codes.len);
            PyBuffer_Release(&codes);
            st->reads = reads;
            size_t len = strlen(sql);
            st->sql = (char *)malloc(len + 1);
            if (st->sql == NULL) {
                Py_DECREF(py_st);
                PyErr_NoMemory();
                goto error;
            }
            memcpy(st->sql, sql, len + 1);
        }
        Py_DECREF(py_st);
    }
    Py_DECREF(py_seq);
    return 0;
error:
    Py_DECREF(py_seq);
    return -1;
}

PyObject *loadgen_mix_open(PyObject *self, PyObject *args) {
    md_login_t login;
    PyObject *py_streams;
    unsigned err = 0;
    char message[MD_MESSAGE] = "";
    char stage[MD_STAGE] = "connect";
    int ok;
    int one_connection = 0;
    unsigned depth = 1;

    if (!PyArg_ParseTuple(args, "zIzzzzIO|pI:mix_open", &login.host, &login.port, &login.user, &login.password,
                          &login.unix_socket, &login.database, &login.timeout_s, &py_streams, &one_connection, &depth))
        return NULL;
    if (depth > 1)
        one_connection = 1; /* the server runs one connection's commands in the order they arrive */
    if (depth < 1 || depth > PL_MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "pipeline depth 1..%d", PL_MAX_DEPTH);
        return NULL;
    }
    md_handle_t *h = md_new();
    if (h == NULL)
        return PyErr_NoMemory();
    if (md_parse(h, py_streams) < 0) {
        md_destroy(h);
        return NULL;
    }

    Py_BEGIN_ALLOW_THREADS
    ok = md_connect(h, &login, one_connection, &err, message, stage);
    if (ok && depth > 1)
        ok = md_pipe_open(h, depth, &err, message, stage);
    Py_END_ALLOW_THREADS

    if (!ok) {
        md_destroy(h);
        return md_raise(err, message, stage);
    }
    return PyCapsule_New(h, MD_CAPSULE, md_capsule_destructor);
}

PyObject *loadgen_mix_run(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    Py_buffer streams = {0}, keys = {0}, lengths = {0}, counts = {0};
    Py_ssize_t start;
    unsigned long long first_op, budget_ns;
    PyObject *py_result = NULL;
    md_handle_t *h;
    uint64_t done = 0;
    unsigned fatal = 0;
    char message[MD_MESSAGE] = "";

    if (!PyArg_ParseTuple(args, "Oy*y*y*nKw*K:mix_run", &py_handle, &streams, &keys, &lengths, &start, &first_op,
                          &counts, &budget_ns))
        return NULL;
    if ((h = md_get(py_handle)) == NULL)
        goto error;
    Py_ssize_t n = keys.len / 8;
    if (streams.len != n * 2 || lengths.len != n * 4 || keys.len % 8 != 0 ||
        counts.len != (Py_ssize_t)h->n * QD_N_BUCKETS * 8) {
        PyErr_Format(PyExc_ValueError, "stream u16, key u64, length u32 arrays of one size, counts %d x %d u64", h->n,
                     QD_N_BUCKETS);
        goto error;
    }
    if (start < 0 || start > n) {
        PyErr_Format(PyExc_ValueError, "start %zd is outside the %zd ops", start, n);
        goto error;
    }
    const uint16_t *stream = (const uint16_t *)streams.buf;
    for (Py_ssize_t j = start; j < n; j++) {
        if (stream[j] >= h->n || !h->s[stream[j]].used || h->s[stream[j]].mysql == NULL) {
            PyErr_Format(PyExc_ValueError, "op %zd is on stream %u, which this handle does not drive", j, stream[j]);
            goto error;
        }
    }
    if (__atomic_exchange_n(&h->busy, 1, __ATOMIC_ACQUIRE)) {
        PyErr_SetString(PyExc_RuntimeError, "the mix handle is in use by another thread");
        goto error;
    }

    md_chunk_t chunk = {stream,  (const uint64_t *)keys.buf, (const uint32_t *)lengths.buf, (size_t)start, (size_t)n,
                        first_op};
    Py_BEGIN_ALLOW_THREADS
    if (h->pipe != NULL)
        done = md_pipe_run(h, &chunk, (uint64_t *)counts.buf, budget_ns, &fatal, message);
    else
        done = md_run(h, &chunk, (uint64_t *)counts.buf, budget_ns, &fatal, message);
    Py_END_ALLOW_THREADS

    __atomic_store_n(&h->busy, 0, __ATOMIC_RELEASE);
    py_result = Py_BuildValue("(KIz)", (unsigned long long)done, fatal, fatal ? message : NULL);
error:
    if (streams.obj != NULL)
        PyBuffer_Release(&streams);
    if (keys.obj != NULL)
        PyBuffer_Release(&keys);
    if (lengths.obj != NULL)
        PyBuffer_Release(&lengths);
    if (counts.obj != NULL)
        PyBuffer_Release(&counts);
    return py_result;
}

PyObject *loadgen_mix_count(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    md_handle_t *h;

    if (!PyArg_ParseTuple(args, "O:mix_count", &py_handle) || (h = md_get(py_handle)) == NULL)
        return NULL;
    PyObject *py_ops = PyTuple_New(h->n);
    if (py_ops == NULL)
        return NULL;
    for (int i = 0; i < h->n; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(__atomic_load_n(&h->s[i].ops, __ATOMIC_RELAXED));
        if (v == NULL) {
            Py_DECREF(py_ops);
            return NULL;
        }
        PyTuple_SET_ITEM(py_ops, i, v);
    }
    return Py_BuildValue("(KN)", (unsigned long long)__atomic_load_n(&h->ops_total, __ATOMIC_RELAXED), py_ops);
}

PyObject *loadgen_mix_stats(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    md_handle_t *h;

    if (!PyArg_ParseTuple(args, "O:mix_stats", &py_handle) || (h = md_get(py_handle)) == NULL)
        return NULL;
    if (__atomic_load_n(&h->busy, __ATOMIC_ACQUIRE)) {
        PyErr_SetString(PyExc_RuntimeError, "the mix handle is in use by another thread");
        return NULL;
    }
    PyObject *py_out = PyTuple_New(h->n);
    if (py_out == NULL)
        return NULL;
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        PyObject *v = Py_BuildValue("(KKKKKKz)", (unsigned long long)s->ops, (unsigned long long)s->rows,
                                    (unsigned long long)s->errors, (unsigned long long)s->ns_total,
                                    (unsigned long long)(s->ops ? s->min_ns : 0), (unsigned long long)s->max_ns,
                                    s->errors ? s->first_error : NULL);
        if (v == NULL) {
            Py_DECREF(py_out);
            return NULL;
        }
        PyTuple_SET_ITEM(py_out, i, v);
    }
    return py_out;
}

PyObject *loadgen_mix_close(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    md_handle_t *h;

    if (!PyArg_ParseTuple(args, "O:mix_close", &py_handle) || (h = md_get(py_handle)) == NULL)
        return NULL;
    if (__atomic_exchange_n(&h->busy, 1, __ATOMIC_ACQUIRE)) {
        PyErr_SetString(PyExc_RuntimeError, "the mix handle is in use by another thread");
        return NULL;
    }
    /* Keep the struct (mix_count may still read it); close the connections only. */
    Py_BEGIN_ALLOW_THREADS
    md_disconnect(h);
    Py_END_ALLOW_THREADS
    __atomic_store_n(&h->busy, 0, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

#endif /* LOADGEN_HAVE_MYSQL */

int loadgen_mixdrv_exec(PyObject *module) {
#ifdef LOADGEN_HAVE_MYSQL
    if (PyModule_AddIntConstant(module, "MIX_PARAM_KEY", MD_KEY) < 0 ||
        PyModule_AddIntConstant(module, "MIX_PARAM_END", MD_END) < 0 ||
        PyModule_AddIntConstant(module, "MIX_PARAM_OP", MD_OP) < 0 ||
        PyModule_AddIntConstant(module, "MIX_PARAM_RAW", MD_RAW) < 0)
        return -1;
#else
    (void)module;
#endif
    return 0;
}
