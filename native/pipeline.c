/*
 * pipeline: the native driver with up to N queries in flight on one connection (--pipeline N).
 *
 * The one-at-a-time loop (querydrv.c) waits for each response before it sends the next query, so
 * every query costs the client a wake-up. Here libmariadb still does the handshake and
 * COM_STMT_PREPARE; after that this file writes COM_STMT_EXECUTE packets for the prepared
 * statement back to back on the connection's socket (mysql_get_socket) and reads the responses.
 * A server executes the commands of one connection one after another, in the order they arrive,
 * so the buffer pool sees exactly the page sequence of the order, as without pipelining.
 *
 * The reader (pl_read) understands what a COM_STMT_EXECUTE can answer: OK, ERR, or a binary
 * result set: column count (with MariaDB's "metadata follows" byte when the column count packet
 * carries one: MARIADB_CLIENT_CACHE_METADATA), column definitions, an EOF unless
 * CLIENT_DEPRECATE_EOF was negotiated, binary rows, and an EOF or (deprecate EOF) an OK with a
 * 0xFE header, or an ERR. Sequence ids are checked packet by packet. Packets of 16 MiB or more
 * (continued packets) are refused: a point select never needs them.
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

/* MYSQL_TYPE_* values of the protocol (the same in every client's headers). */
enum {
    T_DECIMAL = 0,
    T_TINY = 1,
    T_SHORT = 2,
    T_LONG = 3,
    T_FLOAT = 4,
    T_DOUBLE = 5,
    T_NULL = 6,
    T_TIMESTAMP = 7,
    T_LONGLONG = 8,
    T_INT24 = 9,
    T_DATE = 10,
    T_TIME = 11,
    T_DATETIME = 12,
    T_YEAR = 13,
};

enum { PH_HEAD, PH_DEFS, PH_DEFS_EOF, PH_ROWS };

#define SERVER_MORE_RESULTS 0x0008

void pl_reader_init(pl_reader_t *r, int deprecate_eof, int verify, unsigned columns, const uint8_t *types,
                    const uint8_t *is_unsigned) {
    memset(r, 0, sizeof(*r));
    r->deprecate_eof = deprecate_eof;
    r->verify = verify;
    r->columns = columns > PL_MAX_COLUMNS ? PL_MAX_COLUMNS : columns;
    memcpy(r->types, types, r->columns);
    memcpy(r->is_unsigned, is_unsigned, r->columns);
    r->digest = FNV_OFFSET;
    r->phase = PH_HEAD;
    r->seq = 1; /* the command went out with sequence id 0 */
}

/* A length-encoded integer at p[0..n); returns its size in bytes, or 0 when it does not fit. */
static size_t lenenc(const uint8_t *p, size_t n, uint64_t *value) {
    if (n < 1)
        return 0;
    if (p[0] < 0xfb) {
        *value = p[0];
        return 1;
    }
    size_t size = p[0] == 0xfc ? 2 : p[0] == 0xfd ? 3 : p[0] == 0xfe ? 8 : 0;
    if (size == 0 || n < 1 + size) /* 0xfb (NULL) and 0xff are not integers */
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p[1 + i] << (8 * i);
    *value = v;
    return 1 + size;
}

static void fail(pl_response_t *resp, const char *what) {
    snprintf(resp->message, sizeof(resp->message), "%s", what);
}

/* Fold one value into the digest as querydrv.c's verify mode does: the bytes (at most
 * QD_COLUMN_BYTES, as its 256-byte bind buffers hold) then 0xFF. */
static void digest_value(pl_reader_t *r, const char *p, size_t n) {
    r->digest = qd_fnv(qd_fnv(r->digest, p, n < QD_COLUMN_BYTES ? n : QD_COLUMN_BYTES), "\xff", 1);
}

/* A binary row (after its 0x00 header): NULL bitmap with a 2-bit offset, then the non-NULL
 * values. Returns 0, or -1 with resp->message when the row does not parse. */
static int read_row(pl_reader_t *r, const uint8_t *p, size_t n, pl_response_t *resp) {
    size_t bitmap = (r->columns + 7 + 2) / 8, pos = bitmap;
    if (n < bitmap) {
        fail(resp, "a binary row shorter than its NULL bitmap");
        return -1;
    }
    for (unsigned i = 0; i < r->columns; i++) {
        if (p[(i + 2) / 8] & (1u << ((i + 2) % 8))) {
            if (r->verify)
                r->digest = qd_fnv(r->digest, "\xfe", 1);
            continue;
        }
        size_t fixed = 0;
        switch (r->types[i]) {
            case T_TINY:
                fixed = 1;
                break;
            case T_SHORT:
            case T_YEAR:
                fixed = 2;
                break;
            case T_LONG:
            case T_INT24:
            case T_FLOAT:
                fixed = 4;
                break;
            case T_LONGLONG:
            case T_DOUBLE:
                fixed = 8;
                break;
            case T_NULL:
                fixed = 0;
                break;
            default:
                break;
        }
        if (fixed || r->types[i] == T_NULL) {
            if (n - pos < fixed) {
                fail(resp, "a binary row ends inside a value");
                return -1;
            }
            if (r->verify && r->types[i] != T_FLOAT && r->types[i] != T_DOUBLE && fixed) {
                /* Integers reach the one-at-a-time loop as decimal text (MYSQL_TYPE_STRING binds). */
                uint64_t u = 0;
                for (size_t k = 0; k < fixed; k++)
                    u |= (uint64_t)p[pos + k] << (8 * k);
                char text[24];
                int len;
                if (r->is_unsigned[i]) {
                    len = snprintf(text, sizeof(text), "%llu", (unsigned long long)u);
                } else {
                    int64_t s = fixed == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * fixed)) >> (64 - 8 * fixed);
                    len = snprintf(text, sizeof(text), "%lld", (long long)s);
                }
                digest_value(r, text, (size_t)len);
            }
            pos += fixed;
            continue;
        }
        if (r->types[i] == T_DATE || r->types[i] == T_DATETIME || r->types[i] == T_TIMESTAMP || r->types[i] == T_TIME) {
            if (n - pos < 1 || n - pos - 1 < p[pos]) {
                fail(resp, "a binary row ends inside a temporal value");
                return -1;
            }
            pos += 1 + p[pos];
            continue;
        }
        /* Everything else (strings, blobs, DECIMAL, JSON, ENUM, SET, BIT) is length-encoded. */
        uint64_t len;
        size_t head = lenenc(p + pos, n - pos, &len);
        if (head == 0 || n - pos - head < len) {
            fail(resp, "a binary row ends inside a string value");
            return -1;
        }
        if (r->verify)
            digest_value(r, (const char *)p + pos + head, (size_t)len);
        pos += head + (size_t)len;
    }
    if (pos != n) {
        fail(resp, "a binary row longer than its columns");
        return -1;
    }
    return 0;
}

/* End of one response: report it and get ready for the next (its first packet has id 1). */
static int finish(pl_reader_t *r, pl_response_t *resp, unsigned err) {
    resp->rows = r->rows;
    resp->err = err;
    if (err == 0)
        resp->message[0] = '\0';
    r->rows = 0;
    r->phase = PH_HEAD;
    r->seq = 1;
    return 1;
}

/* The status flags of an OK packet (after its header byte), or -1. */
static int ok_status(const uint8_t *p, size_t n) {
    uint64_t ignored;
    size_t a = lenenc(p, n, &ignored), b;
    if (a == 0 || (b = lenenc(p + a, n - a, &ignored)) == 0 || n < a + b + 2)
        return -1;
    return p[a + b] | p[a + b + 1] << 8;
}

static int err_packet(pl_reader_t *r, const uint8_t *p, size_t n, pl_response_t *resp) {
    unsigned code = n >= 3 ? (unsigned)(p[1] | p[2] << 8) : 0;
    size_t pos = 3;
    if (n > pos && p[pos] == '#')
        pos += 6; /* '#' and the SQLSTATE */
    if (pos > n)
        pos = n;
    int len = (int)(n - pos);
    snprintf(resp->message, sizeof(resp->message), "%.*s", len > 400 ? 400 : len, (const char *)p + pos);
    return finish(r, resp, code ? code : 2027 /* CR_MALFORMED_PACKET */);
}

int pl_read(pl_reader_t *r, const uint8_t *buf, size_t len, size_t *used, pl_response_t *resp) {
    size_t pos = 0;
    *used = 0;
    while (len - pos >= 4) {
        size_t n = (size_t)buf[pos] | (size_t)buf[pos + 1] << 8 | (size_t)buf[pos + 2] << 16;
        uint8_t seq = buf[pos + 3];
        if (n == 0xffffff) {
            fail(resp, "a packet of 16 MiB or more: the pipelined driver does not read those");
            return -1;
        }
        if (len - pos - 4 < n)
            break; /* the rest of this packet has not arrived yet */
        if (seq != r->seq) {
            snprintf(resp->message, sizeof(resp->message),
                     "packet sequence id %u where %u was due: the responses are out of step", seq, r->seq);
            return -1;
        }
        r->seq++;
        const uint8_t *p = buf + pos + 4;
        pos += 4 + n;
        *used = pos;
        if (n == 0) {
            fail(resp, "an empty packet");
            return -1;
        }
        switch (r->phase) {
            case PH_HEAD: {
                if (p[0] == 0xff)
                    return err_packet(r, p, n, resp);
                if (p[0] == 0x00) { /* OK: a statement without a result set; its rows are those it changed */
                    int status = ok_status(p + 1, n - 1);
                    uint64_t affected = 0;
                    if (status < 0 || lenenc(p + 1, n - 1, &affected) == 0) {
                        fail(resp, "a malformed OK packet");
                        return -1;
                    }
                    r->rows += affected;
                    if (status & SERVER_MORE_RESULTS)
                        continue; /* the next result of the same command follows */
                    return finish(r, resp, 0);
                }
                if (p[0] == 0xfb) {
                    fail(resp, "the server asked for a LOCAL INFILE");
                    return -1;
                }
                uint64_t columns;
                size_t head = lenenc(p, n, &columns);
                if (head == 0 || columns == 0) {
                    fail(resp, "a malformed column count packet");
                    return -1;
                }
                if (columns != r->columns) {
                    snprintf(resp->message, sizeof(resp->message),
                             "the result has %llu columns, the prepared statement %u", (unsigned long long)columns,
                             r->columns);
                    return -1;
                }
                /* MariaDB's cache-metadata byte is there only when both sides agreed to it, and then
                 * the packet is one byte longer than its integer: the packet says which it is. */
                int metadata = n > head ? p[head] != 0 : 1;
                if (metadata) {
                    r->defs_left = (unsigned)columns;
                    r->phase = PH_DEFS;
                } else {
                    r->phase = r->deprecate_eof ? PH_ROWS : PH_DEFS_EOF;
                }
                break;
            }
            case PH_DEFS:
                if (p[0] == 0xff)
                    return err_packet(r, p, n, resp);
                if (--r->defs_left == 0)
                    r->phase = r->deprecate_eof ? PH_ROWS : PH_DEFS_EOF;
                break;
            case PH_DEFS_EOF:
                if (p[0] != 0xfe || n >= 9) {
                    fail(resp, "no EOF packet after the column definitions");
                    return -1;
                }
                r->phase = PH_ROWS;
                break;
            case PH_ROWS:
                if (p[0] == 0x00) {
                    if (read_row(r, p + 1, n - 1, resp) < 0)
                        return -1;
                    r->rows++;
                    break;
                }
                if (p[0] == 0xff)
                    return err_packet(r, p, n, resp);
                if (p[0] == 0xfe) {
                    int status;
                    if (r->deprecate_eof)
                        status = ok_status(p + 1, n - 1);
                    else
                        status = n >= 5 ? (p[3] | p[4] << 8) : -1;
                    if (status < 0) {
                        fail(resp, "a malformed end-of-rows packet");
                        return -1;
                    }
                    if (status & SERVER_MORE_RESULTS) {
                        r->phase = PH_HEAD; /* rows of the next result are counted with these */
                        break;
                    }
                    return finish(r, resp, 0);
                }
                snprintf(resp->message, sizeof(resp->message), "a row packet with header 0x%02x", p[0]);
                return -1;
        }
    }
    return 0;
}

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
    return PyModule_AddIntConstant(module, "PIPELINE_MAX_DEPTH", 4096);
}

/* -- the pipelined loop on a libmariadb connection ------------------------------------------- */
#ifdef LOADGEN_HAVE_MYSQL

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#define PL_MAX_DEPTH 4096
#define PL_READ_BYTES (64 * 1024)
#define PL_EXEC_BYTES 32 /* one COM_STMT_EXECUTE with one BIGINT UNSIGNED parameter, and room */
#define CLIENT_DEPRECATE_EOF_FLAG (1UL << 24)
#define CLIENT_QUERY_ATTRIBUTES_FLAG (1UL << 27)

struct pl_conn {
    int fd;
    unsigned depth;
    uint32_t stmt_id;
    int query_attributes; /* MySQL 8.0.23+: each parameter also carries a (here empty) name */
    pl_reader_t reader;
    uint8_t *out; /* depth packets */
    uint8_t *in;
    size_t in_len, in_cap;
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
    if (mysql_get_ssl_cipher(mysql) != NULL) {
        snprintf(message, message_len, "the connection uses TLS; the pipelined driver writes plain packets");
        return NULL;
    }
    if (mysql->client_flag & mysql->server_capabilities & CLIENT_COMPRESS) {
        snprintf(message, message_len, "the connection is compressed; the pipelined driver writes plain packets");
        return NULL;
    }
    if (columns > PL_MAX_COLUMNS) {
        snprintf(message, message_len, "the statement returns %u columns, at most %d", columns, PL_MAX_COLUMNS);
        return NULL;
    }
    if (columns > 0) {
        MYSQL_RES *meta = mysql_stmt_result_metadata(stmt);
        if (meta == NULL) {
            snprintf(message, message_len, "no result metadata for the prepared statement");
            return NULL;
        }
        MYSQL_FIELD *fields = mysql_fetch_fields(meta);
        for (unsigned i = 0; i < columns; i++) {
            types[i] = (uint8_t)fields[i].type;
            is_unsigned[i] = (fields[i].flags & UNSIGNED_FLAG) != 0;
            if (verify && (fields[i].type == MYSQL_TYPE_FLOAT || fields[i].type == MYSQL_TYPE_DOUBLE ||
                           fields[i].type == MYSQL_TYPE_DATE || fields[i].type == MYSQL_TYPE_TIME ||
                           fields[i].type == MYSQL_TYPE_DATETIME || fields[i].type == MYSQL_TYPE_TIMESTAMP)) {
                mysql_free_result(meta);
                snprintf(message, message_len, "verify mode digests string and integer columns only");
                return NULL;
            }
        }
        mysql_free_result(meta);
    }
    p = (pl_conn_t *)calloc(1, sizeof(*p));
    if (p == NULL) {
        *err = 2008;
        snprintf(message, message_len, "out of memory");
        return NULL;
    }
    p->fd = (int)mysql_get_socket(mysql);
    p->depth = depth;
    p->stmt_id = (uint32_t)stmt->stmt_id;
    p->query_attributes = (mysql->client_flag & mysql->server_capabilities & CLIENT_QUERY_ATTRIBUTES_FLAG) != 0;
    pl_reader_init(&p->reader, (mysql->client_flag & mysql->server_capabilities & CLIENT_DEPRECATE_EOF_FLAG) != 0,
                   verify, columns, types, is_unsigned);
    p->reader.digest = digest;
    p->out = malloc((size_t)depth * PL_EXEC_BYTES);
    p->in_cap = PL_READ_BYTES;
    p->in = malloc(p->in_cap);
    p->sent_ns = calloc(depth, sizeof(uint64_t));
    if (p->out == NULL || p->in == NULL || p->sent_ns == NULL) {
        pl_free(p);
        *err = 2008;
        snprintf(message, message_len, "out of memory");
        return NULL;
    }
    loadgen_debug("pipeline open: fd %d, depth %u, stmt %u, deprecate_eof %d, query attributes %d", p->fd, depth,
                  p->stmt_id, p->reader.deprecate_eof, p->query_attributes);
    return p;
}

void pl_free(pl_conn_t *p) {
    if (p == NULL)
        return;
    free(p->out);
    free(p->in);
    free(p->sent_ns);
    free(p);
}

uint64_t pl_digest(const pl_conn_t *p) {
    return p->reader.digest;
}

/* COM_STMT_EXECUTE of the statement with `id` as its one BIGINT UNSIGNED parameter. */
static size_t put_execute(const pl_conn_t *p, uint8_t *o, uint64_t id) {
    size_t n = 4;
    o[n++] = 0x17; /* COM_STMT_EXECUTE */
    for (int k = 0; k < 4; k++)
        o[n++] = (uint8_t)(p->stmt_id >> (8 * k));
    o[n++] = 0x00; /* CURSOR_TYPE_NO_CURSOR */
    o[n++] = 1;
    o[n++] = 0;
    o[n++] = 0;
    o[n++] = 0;    /* iteration count 1 */
    o[n++] = 0x00; /* NULL bitmap: the parameter is not NULL */
    o[n++] = 0x01; /* types follow */
    o[n++] = 0x08; /* MYSQL_TYPE_LONGLONG */
    o[n++] = 0x80; /* unsigned */
    if (p->query_attributes)
        o[n++] = 0x00; /* the parameter's name: empty */
    for (int k = 0; k < 8; k++)
        o[n++] = (uint8_t)(id >> (8 * k));
    size_t payload = n - 4;
    o[0] = (uint8_t)payload;
    o[1] = (uint8_t)(payload >> 8);
    o[2] = (uint8_t)(payload >> 16);
    o[3] = 0; /* a command starts at sequence id 0 */
    return n;
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
    size_t next = start, inflight = 0, oldest = 0; /* oldest: ring slot of the oldest in flight */
    size_t out_len = 0, out_pos = 0;
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
        if (sending && out_pos == out_len) {
            out_len = out_pos = 0;
            uint64_t now = qd_now_ns();
            while (inflight < p->depth && next < n_ids) {
                out_len += put_execute(p, p->out + out_len, ids[next++]);
                p->sent_ns[(oldest + inflight) % p->depth] = now;
                inflight++;
            }
        }
        if (inflight == 0)
            break;
        /* Write what is pending; if the socket is full, read responses meanwhile (the server may be
         * blocked writing them to us), never both sides waiting on each other. */
        short want = POLLIN;
        if (out_pos < out_len) {
            ssize_t w = send(p->fd, p->out + out_pos, out_len - out_pos, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0) {
                out_pos += (size_t)w;
            } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                char what[PL_MESSAGE_BYTES];
                snprintf(what, sizeof(what), "Lost connection to server while sending queries (%s)", strerror(errno));
                broke(p, st, 2013, what);
                break;
            }
            if (out_pos < out_len)
                want |= POLLOUT;
        }
        /* Read what has arrived; wait only when nothing has. */
        if (p->in_len == p->in_cap) {
            /* A packet larger than the buffer (a long row): make room for it. */
            size_t need = p->in_cap * 2;
            uint8_t *grown = need <= (32u << 20) ? realloc(p->in, need) : NULL;
            if (grown == NULL) {
                broke(p, st, 2008, "a response larger than the pipelined driver's 32 MiB buffer");
                break;
            }
            p->in = grown;
            p->in_cap = need;
        }
        ssize_t got = recv(p->fd, p->in + p->in_len, p->in_cap - p->in_len, MSG_DONTWAIT);
        if (got == 0) {
            broke(p, st, 2013, "Lost connection to server during query (the server closed it)");
            break;
        }
        if (got < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                char what[PL_MESSAGE_BYTES];
                snprintf(what, sizeof(what), "Lost connection to server during query (%s)", strerror(errno));
                broke(p, st, 2013, what);
                break;
            }
            struct pollfd pfd = {.fd = p->fd, .events = want};
            if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
                broke(p, st, 2013, "poll on the connection failed");
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
            int rc = pl_read(&p->reader, p->in + pos, p->in_len - pos, &used, &resp);
            pos += used;
            if (rc < 0) {
                char what[PL_MESSAGE_BYTES];
                snprintf(what, sizeof(what), "protocol error in a pipelined response: %.400s", resp.message);
                broke(p, st, 2027, what);
                bad = 1;
                break;
            }
            if (rc == 0)
                break;
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
        if (bad)
            break;
        if (pos > 0) {
            memmove(p->in, p->in + pos, p->in_len - pos);
            p->in_len -= pos;
        }
        if (inflight == 0 && p->in_len > 0) {
            broke(p, st, 2027, "the server sent more than the responses to the queries");
            break;
        }
        if (now - began >= budget_ns)
            sending = 0; /* drain what is in flight (written or not), then hand control back */
    }
    if (st->done == 0)
        st->min_ns = 0;
}

#endif /* LOADGEN_HAVE_MYSQL */
