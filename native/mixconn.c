/*
 * mixconn (mixconn.h): a mix's handle, its connections and statements, and the loop that runs
 * one op at a time.
 */
#include "mixconn.h"

#ifdef LOADGEN_HAVE_MYSQL

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdcommon.h"

md_handle_t *md_new(void) {
    return (md_handle_t *)calloc(1, sizeof(md_handle_t));
}

void md_disconnect(md_handle_t *h) {
    /* statements first: with one_connection they live on a connection another stream owns */
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
}

void md_free(md_handle_t *h) {
    if (h == NULL)
        return;
    md_disconnect(h);
    for (int i = 0; i < h->n; i++)
        for (int k = 0; k < h->s[i].n_st; k++)
            free(h->s[i].st[k].sql);
    free(h);
}

/* Prepare and bind stream s's statements on its connection; 0 with *err and message. */
static int md_prepare(md_stream_t *s, unsigned *err, char *message) {
    for (int k = 0; k < s->n_st; k++) {
        md_stmt_t *st = &s->st[k];
        st->stmt = mysql_stmt_init(s->mysql);
        if (st->stmt == NULL) {
            *err = mysql_errno(s->mysql);
            snprintf(message, MD_MESSAGE, "%s", mysql_error(s->mysql));
            return 0;
        }
        if (mysql_stmt_prepare(st->stmt, st->sql, (unsigned long)strlen(st->sql)) != 0) {
            *err = mysql_stmt_errno(st->stmt);
            snprintf(message, MD_MESSAGE, "%s", mysql_stmt_error(st->stmt));
            return 0;
        }
        if (mysql_stmt_param_count(st->stmt) != st->n_params) {
            snprintf(message, MD_MESSAGE, "the statement has %lu placeholders, %u parameter codes given",
                     mysql_stmt_param_count(st->stmt), st->n_params);
            return 0;
        }
        st->columns = mysql_stmt_field_count(st->stmt);
        for (unsigned p = 0; p < st->n_params; p++) {
            st->binds[p].buffer_type = MYSQL_TYPE_LONGLONG;
            st->binds[p].buffer = &st->values[p];
            st->binds[p].is_unsigned = 1;
        }
        if (st->n_params > 0 && mysql_stmt_bind_param(st->stmt, st->binds) != 0) {
            *err = mysql_stmt_errno(st->stmt);
            snprintf(message, MD_MESSAGE, "%s", mysql_stmt_error(st->stmt));
            return 0;
        }
    }
    return 1;
}

int md_connect(md_handle_t *h, const md_login_t *login, int one_connection, unsigned *err, char *message,
               char stage[MD_STAGE]) {
    MYSQL *shared = NULL;
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        if (!s->used)
            continue;
        s->min_ns = UINT64_MAX;
        snprintf(stage, MD_STAGE, "connect");
        if (one_connection && shared != NULL) {
            s->mysql = shared;
        } else {
            s->mysql = mysql_init(NULL);
            s->owns = 1;
            if (s->mysql == NULL) {
                *err = 2008; /* CR_OUT_OF_MEMORY */
                snprintf(message, MD_MESSAGE, "mysql_init failed");
                return 0;
            }
            mysql_options(s->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &login->timeout_s);
            const char *sock = login->unix_socket;
            if (mysql_real_connect(s->mysql, sock ? NULL : login->host, login->user, login->password, login->database,
                                   sock ? 0 : login->port, sock, 0) == NULL) {
                *err = mysql_errno(s->mysql);
                snprintf(message, MD_MESSAGE, "%s", mysql_error(s->mysql));
                return 0;
            }
            shared = s->mysql;
        }
        snprintf(stage, MD_STAGE, "prepare:%d", i);
        if (!md_prepare(s, err, message))
            return 0;
    }
    return 1;
}

MYSQL *md_first_connection(const md_handle_t *h) {
    for (int i = 0; i < h->n; i++)
        if (h->s[i].used)
            return h->s[i].mysql;
    return NULL;
}

void md_account(md_handle_t *h, int i, uint64_t dt_ns, uint64_t rows, unsigned err, const char *why, uint64_t *count) {
    md_stream_t *s = &h->s[i];
    if (err != 0) {
        if (s->errors == 0)
            snprintf(s->first_error, sizeof(s->first_error), "%s (%u)", why, err);
        s->errors++;
    }
    count[(size_t)i * QD_N_BUCKETS + qd_bucket(dt_ns)]++;
    s->ns_total += dt_ns;
    if (dt_ns < s->min_ns)
        s->min_ns = dt_ns;
    if (dt_ns > s->max_ns)
        s->max_ns = dt_ns;
    s->rows += rows;
    __atomic_store_n(&s->ops, s->ops + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&h->ops_total, h->ops_total + 1, __ATOMIC_RELAXED);
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

uint64_t md_run(md_handle_t *h, const md_chunk_t *c, uint64_t *count, uint64_t budget_ns, unsigned *fatal,
                char *message) {
    uint64_t done = 0, began = qd_now_ns();
    for (size_t j = c->start; j < c->n; j++) {
        md_stream_t *s = &h->s[c->stream[j]];
        uint64_t rows = 0;
        unsigned err = 0;
        char why[MD_MESSAGE];
        for (int i = 0; i < s->n_st; i++)
            md_bind(&s->st[i], s, c, j);
        uint64_t t0 = qd_now_ns();
        for (int i = 0; i < s->n_st; i++) {
            long long got = md_one(&s->st[i], &err, why);
            if (got < 0)
                break; /* read-modify-write: no update after a failed read */
            rows += (uint64_t)got;
        }
        uint64_t t1 = qd_now_ns();
        if (err != 0 && md_fatal(err)) {
            *fatal = err;
            snprintf(message, MD_MESSAGE, "%s", why);
            break;
        }
        md_account(h, c->stream[j], t1 - t0, rows, err, why, count);
        done++;
        if (t1 - began >= budget_ns)
            break;
    }
    return done;
}

#endif /* LOADGEN_HAVE_MYSQL */
