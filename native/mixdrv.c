/*
 * mixdrv: the native driver of a mix (`loadgen run --workload`, loadgen/drivers/mixnative.py).
 *
 * One handle holds one connection per stream of the op sequence, each with the stream's
 * binary-protocol prepared statements (one, or two for read-modify-write and delete-insert). Every
 * placeholder is a 64-bit unsigned integer whose value comes from a code: 0 the op's key (plus
 * the stream's key offset), 1 the last key of its range (key + length - 1), 2 the op's index in
 * the mix (so each update writes a value no earlier op wrote), 3 the key as drawn (no offset).
 * mix_run works through a chunk of the sequence (stream, key, length arrays from
 * workload/opstream.py) in order, one op at a time, with the GIL released: op j is executed on its
 * stream's connection and answered before op j + 1 is sent, so the server sees the sequence's
 * exact order whatever the number of connections. With a pipeline depth above 1 every stream's
 * statements share one connection and up to that many are in flight (md_pipe_run).
 *
 * Per statement it does what querydrv.c does: execute, buffer the result on the client
 * (mysql_stmt_store_result), count its rows and free it; a write counts its affected rows. Each
 * op (all its statements) is timed with CLOCK_MONOTONIC into its stream's histogram, laid out as
 * loadgen/histogram.py's. A server error (a duplicate key, a deadlock) is counted in the stream's
 * errors and the sequence goes on; a client error (the connection is gone) ends the call with it.
 * Running totals per stream live in the handle (mix_stats); mix_count reads the op counts from
 * any thread while mix_run is in progress (the sampler's per-stream counts).
 */
#include "mixdrv.h"
#include "pipeline.h"
#include "qdcommon.h"

#ifdef LOADGEN_HAVE_MYSQL

#include <errno.h>
#include <mysql.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MD_CAPSULE "loadgen._native.mix"
#define MD_MAX_STREAMS 64
#define MD_MAX_STMTS 2
#define MD_MAX_PARAMS 32
#define MD_MESSAGE 512

enum { MD_KEY = 0, MD_END = 1, MD_OP = 2, MD_RAW = 3 };

typedef struct {
    MYSQL_STMT *stmt;
    char *sql;
    unsigned n_params;
    uint8_t codes[MD_MAX_PARAMS];
    MYSQL_BIND binds[MD_MAX_PARAMS];
    unsigned long long values[MD_MAX_PARAMS];
    int reads;
    unsigned columns;
    pl_reader_t reader; /* pipelined: how its responses are read (pipeline.c) */
} md_stmt_t;

typedef struct {
    int used;
    int owns; /* this stream opened (and closes) mysql; with one_connection, the first stream does */
    MYSQL *mysql;
    md_stmt_t st[MD_MAX_STMTS];
    int n_st;
    long long key_offset;
    uint64_t ops; /* read by mix_count from other threads */
    uint64_t rows, errors, ns_total, min_ns, max_ns;
    char first_error[MD_MESSAGE];
} md_stream_t;

/* --pipeline N: every stream's statements on one connection, up to `depth` statements in flight. */
typedef struct {
    int stream, stmt, last; /* the op's stream, which of its statements, whether its last */
    Py_ssize_t op;          /* index into the chunk */
    uint64_t sent_ns;       /* when the op's first statement was written */
} md_flight_t;

typedef struct {
    int fd;
    unsigned depth;
    int query_attributes;
    uint8_t *out;
    size_t out_cap;
    uint8_t *in;
    size_t in_len, in_cap;
    md_flight_t *ring;
    int broken;
} md_pipe_t;

typedef struct {
    int n; /* stream slots: the largest index + 1 */
    md_stream_t s[MD_MAX_STREAMS];
    uint64_t ops_total;
    int busy;
    md_pipe_t *pipe; /* NULL: one op at a time */
} md_handle_t;

static void md_free(md_handle_t *h) {
    if (h == NULL)
        return;
    /* statements first: with one_connection they live on a connection another stream owns */
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        for (int k = 0; k < s->n_st; k++) {
            if (s->st[k].stmt != NULL)
                mysql_stmt_close(s->st[k].stmt);
            PyMem_RawFree(s->st[k].sql);
        }
    }
    for (int i = 0; i < h->n; i++)
        if (h->s[i].mysql != NULL && h->s[i].owns)
            mysql_close(h->s[i].mysql);
    if (h->pipe != NULL) {
        free(h->pipe->out);
        free(h->pipe->in);
        free(h->pipe->ring);
        free(h->pipe);
    }
    PyMem_RawFree(h);
}

static void md_capsule_destructor(PyObject *capsule) {
    md_free((md_handle_t *)PyCapsule_GetPointer(capsule, MD_CAPSULE));
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
            st->sql = (char *)PyMem_RawMalloc(len + 1);
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

#define MD_CLIENT_DEPRECATE_EOF (1UL << 24)
#define MD_CLIENT_QUERY_ATTRIBUTES (1UL << 27)
#define MD_READ_BYTES (64 * 1024)
#define MD_EXEC_BYTES (16 + MD_MAX_PARAMS * 12) /* one COM_STMT_EXECUTE, MD_MAX_PARAMS integers */

/* The pipelined loop's state on the shared connection, and each statement's reader. */
static int md_pipe_open(md_handle_t *h, MYSQL *mysql, unsigned depth, unsigned *err, char *message, char *stage) {
    snprintf(stage, 32, "pipeline");
    if (mysql_get_ssl_cipher(mysql) != NULL) {
        snprintf(message, MD_MESSAGE, "the connection uses TLS; the pipelined driver writes plain packets");
        return 0;
    }
    if (mysql->client_flag & mysql->server_capabilities & CLIENT_COMPRESS) {
        snprintf(message, MD_MESSAGE, "the connection is compressed; the pipelined driver writes plain packets");
        return 0;
    }
    int deprecate_eof = (mysql->client_flag & mysql->server_capabilities & MD_CLIENT_DEPRECATE_EOF) != 0;
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        for (int k = 0; s->used && k < s->n_st; k++) {
            md_stmt_t *st = &s->st[k];
            uint8_t types[PL_MAX_COLUMNS] = {0}, is_unsigned[PL_MAX_COLUMNS] = {0};
            if (st->columns > PL_MAX_COLUMNS) {
                snprintf(stage, 32, "prepare:%d", i);
                snprintf(message, MD_MESSAGE, "the statement returns %u columns; pipelined, at most %d", st->columns,
                         PL_MAX_COLUMNS);
                return 0;
            }
            if (st->columns > 0) {
                MYSQL_RES *meta = mysql_stmt_result_metadata(st->stmt);
                if (meta == NULL) {
                    snprintf(message, MD_MESSAGE, "no result metadata for a prepared statement");
                    return 0;
                }
                MYSQL_FIELD *fields = mysql_fetch_fields(meta);
                for (unsigned c = 0; c < st->columns; c++) {
                    types[c] = (uint8_t)fields[c].type;
                    is_unsigned[c] = (fields[c].flags & UNSIGNED_FLAG) != 0;
                }
                mysql_free_result(meta);
            }
            pl_reader_init(&st->reader, deprecate_eof, 0, st->columns, types, is_unsigned);
        }
    }
    md_pipe_t *p = (md_pipe_t *)calloc(1, sizeof(*p));
    if (p == NULL) {
        *err = 2008;
        snprintf(message, MD_MESSAGE, "out of memory");
        return 0;
    }
    h->pipe = p;
    p->fd = (int)mysql_get_socket(mysql);
    p->depth = depth;
    p->query_attributes = (mysql->client_flag & mysql->server_capabilities & MD_CLIENT_QUERY_ATTRIBUTES) != 0;
    p->out_cap = (size_t)depth * MD_EXEC_BYTES;
    p->out = malloc(p->out_cap);
    p->in_cap = MD_READ_BYTES;
    p->in = malloc(p->in_cap);
    p->ring = calloc(depth, sizeof(md_flight_t));
    if (p->out == NULL || p->in == NULL || p->ring == NULL) {
        *err = 2008;
        snprintf(message, MD_MESSAGE, "out of memory");
        return 0;
    }
    return 1;
}

/* COM_STMT_EXECUTE of st with its parameters' current values (all BIGINT UNSIGNED). */
static size_t md_put_execute(const md_pipe_t *p, const md_stmt_t *st, uint8_t *o) {
    size_t n = 4;
    uint32_t id = (uint32_t)st->stmt->stmt_id;
    o[n++] = 0x17; /* COM_STMT_EXECUTE */
    for (int k = 0; k < 4; k++)
        o[n++] = (uint8_t)(id >> (8 * k));
    o[n++] = 0x00; /* CURSOR_TYPE_NO_CURSOR */
    o[n++] = 1;
    o[n++] = 0;
    o[n++] = 0;
    o[n++] = 0; /* iteration count 1 */
    if (st->n_params > 0) {
        for (unsigned b = 0; b < (st->n_params + 7) / 8; b++)
            o[n++] = 0x00; /* NULL bitmap: none is NULL */
        o[n++] = 0x01;     /* types follow */
        for (unsigned i = 0; i < st->n_params; i++) {
            o[n++] = 0x08; /* MYSQL_TYPE_LONGLONG */
            o[n++] = 0x80; /* unsigned */
            if (p->query_attributes)
                o[n++] = 0x00; /* the parameter's name: empty */
        }
        for (unsigned i = 0; i < st->n_params; i++)
            for (int k = 0; k < 8; k++)
                o[n++] = (uint8_t)(st->values[i] >> (8 * k));
    }
    size_t payload = n - 4;
    o[0] = (uint8_t)payload;
    o[1] = (uint8_t)(payload >> 8);
    o[2] = (uint8_t)(payload >> 16);
    o[3] = 0;
    return n;
}

/* Ops start..n of the chunk with up to depth statements in flight on the one connection; every
 * call drains what it sent before it returns, so the ops done are always a prefix. A server
 * error is counted in its stream and the ops go on; a broken connection ends the call (*fatal). */
static uint64_t md_pipe_run(md_handle_t *h, const uint16_t *stream, const uint64_t *key, const uint32_t *length,
                            Py_ssize_t start, Py_ssize_t n, uint64_t first_op, uint64_t *count, uint64_t budget_ns,
                            unsigned *fatal, char *message) {
    md_pipe_t *p = h->pipe;
    Py_ssize_t next = start; /* the next op to send */
    int next_stmt = 0;       /* of its statements, the next to send */
    size_t inflight = 0, oldest = 0, out_len = 0, out_pos = 0;
    int sending = 1;
    uint64_t done = 0, began = qd_now_ns();
    uint64_t op_rows = 0; /* of the op whose responses are being read */
    int op_failed = 0;
    unsigned op_err = 0;
    char op_message[MD_MESSAGE] = "";

    if (p->broken) {
        *fatal = 2013;
        snprintf(message, MD_MESSAGE, "the pipelined connection broke earlier");
        return 0;
    }
    for (;;) {
        if (sending && out_pos == out_len) {
            out_len = out_pos = 0;
            uint64_t now = qd_now_ns();
            while (inflight < p->depth && next < n) {
                md_stream_t *s = &h->s[stream[next]];
                md_stmt_t *st = &s->st[next_stmt];
                unsigned long long k = key[next] + (unsigned long long)s->key_offset;
                unsigned long long values[4] = {k, k + (length[next] ? length[next] : 1) - 1, first_op + (uint64_t)next,
                                                key[next]};
                for (unsigned q = 0; q < st->n_params; q++)
                    st->values[q] = values[st->codes[q]];
                out_len += md_put_execute(p, st, p->out + out_len);
                md_flight_t *f = &p->ring[(oldest + inflight) % p->depth];
                f->stream = stream[next];
                f->stmt = next_stmt;
                f->op = next;
                f->last = next_stmt == s->n_st - 1;
                f->sent_ns = next_stmt == 0 ? now : p->ring[(oldest + inflight + p->depth - 1) % p->depth].sent_ns;
                inflight++;
                if (f->last) {
                    next++;
                    next_stmt = 0;
                } else {
                    next_stmt++;
                }
            }
        }
        if (inflight == 0)
            break;
        short want = POLLIN;
        if (out_pos < out_len) {
            ssize_t w = send(p->fd, p->out + out_pos, out_len - out_pos, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0) {
                out_pos += (size_t)w;
            } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                snprintf(message, MD_MESSAGE, "Lost connection to server while sending (%s)", strerror(errno));
                *fatal = 2013;
                break;
            }
            if (out_pos < out_len)
                want |= POLLOUT;
        }
        if (p->in_len == p->in_cap) {
            size_t need = p->in_cap * 2;
            uint8_t *grown = need <= (32u << 20) ? realloc(p->in, need) : NULL;
            if (grown == NULL) {
                snprintf(message, MD_MESSAGE, "a response larger than the pipelined driver's 32 MiB buffer");
                *fatal = 2008;
                break;
            }
            p->in = grown;
            p->in_cap = need;
        }
        ssize_t got = recv(p->fd, p->in + p->in_len, p->in_cap - p->in_len, MSG_DONTWAIT);
        if (got == 0) {
            snprintf(message, MD_MESSAGE, "Lost connection to server during query (the server closed it)");
            *fatal = 2013;
            break;
        }
        if (got < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                snprintf(message, MD_MESSAGE, "Lost connection to server during query (%s)", strerror(errno));
                *fatal = 2013;
                break;
            }
            struct pollfd pfd = {.fd = p->fd, .events = want};
            if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
                snprintf(message, MD_MESSAGE, "poll on the connection failed");
                *fatal = 2013;
                break;
            }
            continue;
        }
        p->in_len += (size_t)got;
        uint64_t now = qd_now_ns();
        size_t pos = 0, used;
        pl_response_t resp;
        int bad = 0;
        while (inflight > 0) {
            md_flight_t *f = &p->ring[oldest];
            md_stream_t *s = &h->s[f->stream];
            int rc = pl_read(&s->st[f->stmt].reader, p->in + pos, p->in_len - pos, &used, &resp);
            pos += used;
            if (rc < 0) {
                snprintf(message, MD_MESSAGE, "protocol error in a pipelined response: %.400s", resp.message);
                *fatal = 2027;
                bad = 1;
                break;
            }
            if (rc == 0)
                break;
            oldest = (oldest + 1) % p->depth;
            inflight--;
            if (resp.err != 0) {
                if (!op_failed) {
                    op_err = resp.err;
                    snprintf(op_message, sizeof(op_message), "%s", resp.message);
                }
                op_failed = 1;
            } else {
                op_rows += resp.rows;
            }
            if (!f->last)
                continue;
            /* the op is answered: its statistics, as the one-at-a-time loop keeps them */
            if (op_failed) {
                if (s->errors == 0)
                    snprintf(s->first_error, sizeof(s->first_error), "%s (%u)", op_message, op_err);
                s->errors++;
            }
            uint64_t dt = now - f->sent_ns;
            count[(size_t)f->stream * QD_N_BUCKETS + qd_bucket(dt)]++;
            s->ns_total += dt;
            if (dt < s->min_ns)
                s->min_ns = dt;
            if (dt > s->max_ns)
                s->max_ns = dt;
            s->rows += op_rows;
            __atomic_store_n(&s->ops, s->ops + 1, __ATOMIC_RELAXED);
            __atomic_store_n(&h->ops_total, h->ops_total + 1, __ATOMIC_RELAXED);
            done++;
            op_rows = 0;
            op_failed = 0;
        }
        if (bad)
            break;
        if (pos > 0) {
            memmove(p->in, p->in + pos, p->in_len - pos);
            p->in_len -= pos;
        }
        if (inflight == 0 && p->in_len > 0) {
            snprintf(message, MD_MESSAGE, "the server sent more than the responses to the statements");
            *fatal = 2027;
            break;
        }
        /* past the budget: send the rest of a half-sent op only, then drain and hand back */
        if (now - began >= budget_ns && next_stmt == 0)
            sending = 0;
    }
    if (*fatal)
        p->broken = 1;
    return done;
}

PyObject *loadgen_mix_open(PyObject *self, PyObject *args) {
    const char *host, *user, *password, *unix_socket, *database;
    unsigned int port, timeout_s;
    PyObject *py_streams;
    unsigned err = 0;
    char message[MD_MESSAGE] = "";
    char stage[32] = "connect";
    int ok = 1;
    int one_connection = 0;
    unsigned depth = 1;
    MYSQL *shared = NULL;

    if (!PyArg_ParseTuple(args, "zIzzzzIO|pI:mix_open", &host, &port, &user, &password, &unix_socket, &database,
                          &timeout_s, &py_streams, &one_connection, &depth))
        return NULL;
    if (depth > 1)
        one_connection = 1; /* the server runs one connection's commands in the order they arrive */
    if (depth < 1 || depth > 4096) {
        PyErr_SetString(PyExc_ValueError, "pipeline depth 1..4096");
        return NULL;
    }
    md_handle_t *h = (md_handle_t *)PyMem_RawCalloc(1, sizeof(*h));
    if (h == NULL)
        return PyErr_NoMemory();
    if (md_parse(h, py_streams) < 0) {
        md_free(h);
        return NULL;
    }

    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; ok && i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        if (!s->used)
            continue;
        s->min_ns = UINT64_MAX;
        snprintf(stage, sizeof(stage), "connect");
        if (one_connection && shared != NULL) {
            s->mysql = shared;
            goto prepare;
        }
        s->mysql = mysql_init(NULL);
        s->owns = 1;
        if (s->mysql == NULL) {
            err = 2008; /* CR_OUT_OF_MEMORY */
            snprintf(message, sizeof(message), "mysql_init failed");
            ok = 0;
            break;
        }
        mysql_options(s->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
        if (mysql_real_connect(s->mysql, unix_socket ? NULL : host, user, password, database, unix_socket ? 0 : port,
                               unix_socket, 0) == NULL) {
            err = mysql_errno(s->mysql);
            snprintf(message, sizeof(message), "%s", mysql_error(s->mysql));
            ok = 0;
            break;
        }
        shared = s->mysql;
    prepare:
        snprintf(stage, sizeof(stage), "prepare:%d", i);
        for (int k = 0; ok && k < s->n_st; k++) {
            md_stmt_t *st = &s->st[k];
            st->stmt = mysql_stmt_init(s->mysql);
            if (st->stmt == NULL) {
                err = mysql_errno(s->mysql);
                snprintf(message, sizeof(message), "%s", mysql_error(s->mysql));
                ok = 0;
            } else if (mysql_stmt_prepare(st->stmt, st->sql, (unsigned long)strlen(st->sql)) != 0) {
                err = mysql_stmt_errno(st->stmt);
                snprintf(message, sizeof(message), "%s", mysql_stmt_error(st->stmt));
                ok = 0;
            } else if (mysql_stmt_param_count(st->stmt) != st->n_params) {
                snprintf(message, sizeof(message), "the statement has %lu placeholders, %u parameter codes given",
                         mysql_stmt_param_count(st->stmt), st->n_params);
                ok = 0;
            } else {
                st->columns = mysql_stmt_field_count(st->stmt);
                for (unsigned p = 0; p < st->n_params; p++) {
                    st->binds[p].buffer_type = MYSQL_TYPE_LONGLONG;
                    st->binds[p].buffer = &st->values[p];
                    st->binds[p].is_unsigned = 1;
                }
                if (st->n_params > 0 && mysql_stmt_bind_param(st->stmt, st->binds) != 0) {
                    err = mysql_stmt_errno(st->stmt);
                    snprintf(message, sizeof(message), "%s", mysql_stmt_error(st->stmt));
                    ok = 0;
                }
            }
        }
    }
    if (ok && depth > 1)
        ok = md_pipe_open(h, shared, depth, &err, message, stage);
    Py_END_ALLOW_THREADS

    if (!ok) {
        md_free(h);
        return md_raise(err, message, stage);
    }
    return PyCapsule_New(h, MD_CAPSULE, md_capsule_destructor);
}

/* A client-side error: the connection is gone (CR_SERVER_GONE_ERROR, CR_SERVER_LOST, ...). */
static int md_fatal(unsigned err) {
    return err >= 2000 && err < 3000;
}

/* One statement of an op: its rows (read) or affected rows (write), or -1 with err set. */
static long long md_one(md_stmt_t *st, unsigned *err, char *message) {
    if (mysql_stmt_execute(st->stmt) != 0)
        goto failed;
    if (st->columns > 0) {
        if (mysql_stmt_store_result(st->stmt) != 0)
            goto failed;
        long long rows = (long long)mysql_stmt_num_rows(st->stmt);
        mysql_stmt_free_result(st->stmt);
        return rows;
    }
    my_ulonglong changed = mysql_stmt_affected_rows(st->stmt);
    return changed == (my_ulonglong)-1 ? 0 : (long long)changed;
failed:
    *err = mysql_stmt_errno(st->stmt);
    snprintf(message, MD_MESSAGE, "%s", mysql_stmt_error(st->stmt));
    return -1;
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

    Py_BEGIN_ALLOW_THREADS
    const uint64_t *key = (const uint64_t *)keys.buf;
    const uint32_t *length = (const uint32_t *)lengths.buf;
    uint64_t *count = (uint64_t *)counts.buf;
    uint64_t began = qd_now_ns();
    if (h->pipe != NULL) {
        done = md_pipe_run(h, stream, key, length, start, n, first_op, count, budget_ns, &fatal, message);
        start = n; /* the loop below has nothing left to do */
    }
    for (Py_ssize_t j = start; j < n; j++) {
        md_stream_t *s = &h->s[stream[j]];
        unsigned long long k = key[j] + (unsigned long long)s->key_offset;
        unsigned long long values[4] = {k, k + (length[j] ? length[j] : 1) - 1, first_op + (uint64_t)j, key[j]};
        uint64_t rows = 0;
        unsigned err = 0;
        char why[MD_MESSAGE];
        uint64_t t0 = qd_now_ns();
        for (int i = 0; i < s->n_st; i++) {
            md_stmt_t *st = &s->st[i];
            for (unsigned p = 0; p < st->n_params; p++)
                st->values[p] = values[st->codes[p]];
            long long got = md_one(st, &err, why);
            if (got < 0)
                break; /* read-modify-write: no update after a failed read */
            rows += (uint64_t)got;
        }
        uint64_t t1 = qd_now_ns();
        if (err != 0 && md_fatal(err)) {
            fatal = err;
            snprintf(message, sizeof(message), "%s", why);
            break;
        }
        if (err != 0) {
            if (s->errors == 0)
                snprintf(s->first_error, sizeof(s->first_error), "%s (%u)", why, err);
            s->errors++;
        }
        uint64_t dt = t1 - t0;
        count[(size_t)stream[j] * QD_N_BUCKETS + qd_bucket(dt)]++;
        s->ns_total += dt;
        if (dt < s->min_ns)
            s->min_ns = dt;
        if (dt > s->max_ns)
            s->max_ns = dt;
        s->rows += rows;
        __atomic_store_n(&s->ops, s->ops + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&h->ops_total, h->ops_total + 1, __ATOMIC_RELAXED);
        done++;
        if (t1 - began >= budget_ns)
            break;
    }
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
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        for (int k = 0; k < s->n_st; k++) {
            if (s->st[k].stmt != NULL)
                mysql_stmt_close(s->st[k].stmt);
            s->st[k].stmt = NULL;
        }
    }
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        if (s->mysql != NULL && s->owns)
            mysql_close(s->mysql);
        s->mysql = NULL;
    }
    Py_END_ALLOW_THREADS
    __atomic_store_n(&h->busy, 0, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

#endif /* LOADGEN_HAVE_MYSQL */
