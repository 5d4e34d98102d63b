/*
 * wire (wire.h): a pipelined connection's socket, packets out and bytes in.
 */
#include "wire.h"

#ifdef LOADGEN_HAVE_MYSQL

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define READ_BYTES (64 * 1024)
#define MAX_READ_BYTES (32u << 20) /* one response: a packet larger than this is refused */
#define CLIENT_DEPRECATE_EOF_FLAG (1UL << 24)
#define CLIENT_QUERY_ATTRIBUTES_FLAG (1UL << 27)

int wire_open(wire_t *w, MYSQL *mysql, size_t out_cap, unsigned *err, char *message, size_t message_len) {
    memset(w, 0, sizeof(*w));
    if (mysql_get_ssl_cipher(mysql) != NULL) {
        snprintf(message, message_len, "the connection uses TLS; the pipelined driver writes plain packets");
        return 0;
    }
    unsigned long both = mysql->client_flag & mysql->server_capabilities;
    if (both & CLIENT_COMPRESS) {
        snprintf(message, message_len, "the connection is compressed; the pipelined driver writes plain packets");
        return 0;
    }
    w->fd = (int)mysql_get_socket(mysql);
    w->deprecate_eof = (both & CLIENT_DEPRECATE_EOF_FLAG) != 0;
    w->query_attributes = (both & CLIENT_QUERY_ATTRIBUTES_FLAG) != 0;
    w->out_cap = out_cap;
    w->out = malloc(out_cap);
    w->in_cap = READ_BYTES;
    w->in = malloc(w->in_cap);
    if (w->out == NULL || w->in == NULL) {
        wire_free(w);
        *err = 2008; /* CR_OUT_OF_MEMORY */
        snprintf(message, message_len, "out of memory");
        return 0;
    }
    return 1;
}

void wire_free(wire_t *w) {
    free(w->out);
    free(w->in);
    w->out = w->in = NULL;
}

int wire_columns(MYSQL_STMT *stmt, unsigned max, uint8_t *types, uint8_t *is_unsigned, char *message,
                 size_t message_len) {
    unsigned columns = mysql_stmt_field_count(stmt);
    if (columns > max) {
        snprintf(message, message_len, "the statement returns %u columns; pipelined, at most %u", columns, max);
        return 0;
    }
    if (columns == 0)
        return 1;
    MYSQL_RES *meta = mysql_stmt_result_metadata(stmt);
    if (meta == NULL) {
        snprintf(message, message_len, "no result metadata for a prepared statement");
        return 0;
    }
    MYSQL_FIELD *fields = mysql_fetch_fields(meta);
    for (unsigned c = 0; c < columns; c++) {
        types[c] = (uint8_t)fields[c].type;
        is_unsigned[c] = (fields[c].flags & UNSIGNED_FLAG) != 0;
    }
    mysql_free_result(meta);
    return 1;
}

void wire_put_execute(wire_t *w, uint32_t stmt_id, unsigned n_params, const unsigned long long *values) {
    uint8_t *o = w->out + w->out_len;
    size_t n = 4;
    o[n++] = 0x17; /* COM_STMT_EXECUTE */
    for (int k = 0; k < 4; k++)
        o[n++] = (uint8_t)(stmt_id >> (8 * k));
    o[n++] = 0x00; /* CURSOR_TYPE_NO_CURSOR */
    o[n++] = 1;
    o[n++] = 0;
    o[n++] = 0;
    o[n++] = 0; /* iteration count 1 */
    if (n_params > 0) {
        for (unsigned b = 0; b < (n_params + 7) / 8; b++)
            o[n++] = 0x00; /* NULL bitmap: none is NULL */
        o[n++] = 0x01;     /* types follow */
        for (unsigned i = 0; i < n_params; i++) {
            o[n++] = 0x08; /* MYSQL_TYPE_LONGLONG */
            o[n++] = 0x80; /* unsigned */
            if (w->query_attributes)
                o[n++] = 0x00; /* the parameter's name: empty */
        }
        for (unsigned i = 0; i < n_params; i++)
            for (int k = 0; k < 8; k++)
                o[n++] = (uint8_t)(values[i] >> (8 * k));
    }
    size_t payload = n - 4;
    o[0] = (uint8_t)payload;
    o[1] = (uint8_t)(payload >> 8);
    o[2] = (uint8_t)(payload >> 16);
    o[3] = 0; /* a command starts at sequence id 0 */
    w->out_len += n;
}

long wire_pump(wire_t *w, unsigned *err, char *message, size_t message_len) {
    short want = POLLIN;
    if (w->out_pos < w->out_len) {
        ssize_t sent = send(w->fd, w->out + w->out_pos, w->out_len - w->out_pos, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) {
            w->out_pos += (size_t)sent;
        } else if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            *err = 2013; /* CR_SERVER_LOST */
            snprintf(message, message_len, "Lost connection to server while sending queries (%s)", strerror(errno));
            return -1;
        }
        if (w->out_pos < w->out_len)
            want |= POLLOUT;
    }
    if (w->in_len == w->in_cap) {
        /* A packet larger than the buffer (a long row): make room for it. */
        size_t need = w->in_cap * 2;
        uint8_t *grown = need <= MAX_READ_BYTES ? realloc(w->in, need) : NULL;
        if (grown == NULL) {
            *err = 2008; /* CR_OUT_OF_MEMORY */
            snprintf(message, message_len, "a response larger than the pipelined driver's 32 MiB buffer");
            return -1;
        }
        w->in = grown;
        w->in_cap = need;
    }
    ssize_t got = recv(w->fd, w->in + w->in_len, w->in_cap - w->in_len, MSG_DONTWAIT);
    if (got == 0) {
        *err = 2013;
        snprintf(message, message_len, "Lost connection to server during query (the server closed it)");
        return -1;
    }
    if (got < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            *err = 2013;
            snprintf(message, message_len, "Lost connection to server during query (%s)", strerror(errno));
            return -1;
        }
        struct pollfd pfd = {.fd = w->fd, .events = want};
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
            *err = 2013;
            snprintf(message, message_len, "poll on the connection failed");
            return -1;
        }
        return 0;
    }
    w->in_len += (size_t)got;
    return (long)got;
}

int wire_read(wire_t *w, pl_reader_t *r, pl_response_t *resp, unsigned *err, char *message, size_t message_len) {
    size_t used;
    int rc = pl_read(r, w->in + w->in_pos, w->in_len - w->in_pos, &used, resp);
    w->in_pos += used;
    if (rc < 0) {
        *err = 2027; /* CR_MALFORMED_PACKET */
        snprintf(message, message_len, "protocol error in a pipelined response: %.400s", resp->message);
    }
    return rc;
}

int wire_consume(wire_t *w, size_t inflight, unsigned *err, char *message, size_t message_len) {
    if (w->in_pos > 0) {
        memmove(w->in, w->in + w->in_pos, w->in_len - w->in_pos);
        w->in_len -= w->in_pos;
        w->in_pos = 0;
    }
    if (inflight == 0 && w->in_len > 0) {
        *err = 2027;
        snprintf(message, message_len, "the server sent more than the responses to the statements");
        return -1;
    }
    return 0;
}

#endif /* LOADGEN_HAVE_MYSQL */
