/*
 * pipeline: the native driver with up to N queries in flight on one connection (--pipeline N).
 *
 * The one-at-a-time loop (querydrv.c) waits for each response before it sends the next query, so
 * every query costs the client a wake-up. Here libmariadb still does the handshake and
 * COM_STMT_PREPARE; after that COM_STMT_EXECUTE packets for the prepared statement go back to back
 * on the connection's socket (wire.c) and the reader (plreader.c) takes the responses apart. A
 * server executes the commands of one connection one after another, in the order they arrive, so
 * the buffer pool sees exactly the page sequence of the order, as without pipelining.
 *
 * Latency here is per response: from the moment a query's packet was written to the moment its
 * response was read, which includes the time it waited behind the queries before it
 * (result.latency_kind = "pipelined_response"). Each call of pl_run drains what it has in flight
 * before it returns, so Ctrl-C, a budget or an error never leaves a response unread, and the
 * count of completed queries is always a prefix of the order.
 */
#include "pipeline.h"
#include "qdcommon.h"

#include <string.h>

/* -- Python: the reader over bytes, for tests ------------------------------------------------ */
PyObject *loadgen_pipeline_parse(PyObject *self, PyObject *args) {
    Py_buffer data = {0}, types = {0}, unsigned_ = {0};
    int deprecate_eof, verify;
    PyObject *list = NULL, *result = NULL;
    pl_reader_t r;
    pl_response_t resp;
    size_t pos = 0, used;
    const char *error = NULL;

    if (!PyArg_ParseTuple(args, "y*y*y*pp:pipeline_parse", &data, &types, &unsigned_, &deprecate_eof, &verify))
        return NULL;
    if (types.len > PL_MAX_COLUMNS || unsigned_.len != types.len) {
        PyErr_Format(PyExc_ValueError, "types and unsigned: equal lengths, at most %d", PL_MAX_COLUMNS);
        goto done;
    }
    pl_reader_init(&r, deprecate_eof, verify, (unsigned)types.len, types.buf, unsigned_.buf);
    if ((list = PyList_New(0)) == NULL)
        goto done;
    for (;;) {
        int rc = pl_read(&r, (const uint8_t *)data.buf + pos, (size_t)data.len - pos, &used, &resp);
        pos += used;
        if (rc < 0) {
            error = resp.message;
            break;
        }
        if (rc == 0)
            break;
        PyObject *item = Py_BuildValue("(KIs)", (unsigned long long)resp.rows, resp.err, resp.message);
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            goto done;
        }
        Py_DECREF(item);
    }
    result = Py_BuildValue("(OnKz)", list, (Py_ssize_t)pos, (unsigned long long)r.digest, error);
done:
    Py_XDECREF(list);
    PyBuffer_Release(&data);
    PyBuffer_Release(&types);
    PyBuffer_Release(&unsigned_);
    return result;
}

int loadgen_pipeline_exec(PyObject *module) {
    return PyModule_AddIntConstant(module, "PIPELINE_MAX_DEPTH", PL_MAX_DEPTH);
}

/* -- the pipelined loop on a libmariadb connection ------------------------------------------- */
#ifdef LOADGEN_HAVE_MYSQL

#include <stdlib.h>

#include "wire.h"

struct pl_conn {
    wire_t w;
    unsigned depth;
    uint32_t stmt_id;
    pl_reader_t reader;
    uint64_t *sent_ns; /* ring: when each query in flight was written */
    int broken;        /* the connection failed: nothing more can be sent on it */
    char broken_message[PL_MESSAGE_BYTES];
};

pl_conn_t *pl_open(MYSQL *mysql, MYSQL_STMT *stmt, unsigned depth, int verify, uint64_t digest, unsigned *err,
                   char *message, size_t message_len) {
    uint8_t types[PL_MAX_COLUMNS] = {0}, is_unsigned[PL_MAX_COLUMNS] = {0};
    unsigned columns = mysql_stmt_field_count(stmt);
    pl_conn_t *p;

    *err = 0;
    if (depth < 2 || depth > PL_MAX_DEPTH) {
        snprintf(message, message_len, "--pipeline must be 2 to %d, not %u", PL_MAX_DEPTH, depth);
        return NULL;
    }
    p = (pl_conn_t *)calloc(1, sizeof(*p));
    if (p == NULL) {
        *err = 2008;
        snprintf(message, message_len, "out of memory");
        return NULL;
    }
    if (!wire_open(&p->w, mysql, (size_t)depth * WIRE_EXEC_BYTES(1), err, message, message_len) ||
        !wire_columns(stmt, PL_MAX_COLUMNS, types, is_unsigned, message, message_len)) {
        pl_free(p);
        return NULL;
    }
    for (unsigned i = 0; verify && i < columns; i++) {
        if (types[i] == MYSQL_TYPE_FLOAT || types[i] == MYSQL_TYPE_DOUBLE || types[i] == MYSQL_TYPE_DATE ||
            types[i] == MYSQL_TYPE_TIME || types[i] == MYSQL_TYPE_DATETIME || types[i] == MYSQL_TYPE_TIMESTAMP) {
            pl_free(p);
            snprintf(message, message_len, "verify mode digests string and integer columns only");
            return NULL;
        }
    }
    p->depth = depth;
    p->stmt_id = (uint32_t)stmt->stmt_id;
    pl_reader_init(&p->reader, p->w.deprecate_eof, verify, columns, types, is_unsigned);
    p->reader.digest = digest;
    p->sent_ns = calloc(depth, sizeof(uint64_t));
    if (p->sent_ns == NULL) {
        pl_free(p);
        *err = 2008;
        snprintf(message, message_len, "out of memory");
        return NULL;
    }
    loadgen_debug("pipeline open: fd %d, depth %u, stmt %u, deprecate_eof %d, query attributes %d", p->w.fd, depth,
                  p->stmt_id, p->reader.deprecate_eof, p->w.query_attributes);
    return p;
}

void pl_free(pl_conn_t *p) {
    if (p == NULL)
        return;
    wire_free(&p->w);
    free(p->sent_ns);
    free(p);
}

uint64_t pl_digest(const pl_conn_t *p) {
    return p->reader.digest;
}

static void broke(pl_conn_t *p, pl_stats_t *st, unsigned err, const char *what) {
    p->broken = 1;
    snprintf(p->broken_message, sizeof(p->broken_message), "%s", what);
    if (st->err == 0) {
        st->err = err;
        snprintf(st->message, sizeof(st->message), "%s", what);
    }
}

void pl_run(pl_conn_t *p, const uint64_t *ids, size_t start, size_t n_ids, uint64_t *counts, uint64_t budget_ns,
            uint64_t *queries_total, pl_stats_t *st) {
    wire_t *w = &p->w;
    size_t next = start, inflight = 0, oldest = 0; /* oldest: ring slot of the oldest in flight */
    int sending = 1;
    uint64_t began = qd_now_ns();

    memset(st, 0, sizeof(*st));
    st->min_ns = UINT64_MAX;
    if (p->broken) {
        st->err = 2013; /* CR_SERVER_LOST */
        snprintf(st->message, sizeof(st->message), "%s", p->broken_message);
        return;
    }
    for (;;) {
        /* Fill the window: every free slot gets the next id of the order. */
        if (sending && w->out_pos == w->out_len) {
            w->out_len = w->out_pos = 0;
            uint64_t now = qd_now_ns();
            while (inflight < p->depth && next < n_ids) {
                unsigned long long id = ids[next++];
                wire_put_execute(w, p->stmt_id, 1, &id);
                p->sent_ns[(oldest + inflight) % p->depth] = now;
                inflight++;
            }
        }
        if (inflight == 0)
            break;
        unsigned err = 0;
        char what[PL_MESSAGE_BYTES];
        long got = wire_pump(w, &err, what, sizeof(what));
        if (got == 0)
            continue;
        uint64_t now = qd_now_ns();
        pl_response_t resp;
        int rc = got < 0 ? -1 : 1;
        while (rc > 0 && inflight > 0 && (rc = wire_read(w, &p->reader, &resp, &err, what, sizeof(what))) > 0) {
            uint64_t dt = now - p->sent_ns[oldest];
            oldest = (oldest + 1) % p->depth;
            inflight--;
            if (resp.err != 0 || st->err != 0) {
                /* The first failed query ends the run; later ones still in flight are read (the
                 * connection stays in step) but not counted, so the count stays a prefix. */
                if (st->err == 0) {
                    st->err = resp.err;
                    snprintf(st->message, sizeof(st->message), "%s", resp.message);
                }
                sending = 0;
                continue;
            }
            counts[qd_bucket(dt)]++;
            st->total_ns += dt;
            if (dt < st->min_ns)
                st->min_ns = dt;
            if (dt > st->max_ns)
                st->max_ns = dt;
            st->rows += resp.rows;
            st->empty += resp.rows == 0;
            st->done++;
            __atomic_store_n(queries_total, *queries_total + 1, __ATOMIC_RELAXED);
        }
        if (rc < 0 || wire_consume(w, inflight, &err, what, sizeof(what)) < 0) {
            broke(p, st, err, what);
            break;
        }
        if (now - began >= budget_ns)
            sending = 0; /* drain what is in flight (written or not), then hand control back */
    }
    if (st->done == 0)
        st->min_ns = 0;
}

#endif /* LOADGEN_HAVE_MYSQL */
