/*
 * mixpipe (mixpipe.h): the pipelined loop of a mix's native driver.
 */
#include "mixpipe.h"

#ifdef LOADGEN_HAVE_MYSQL

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdcommon.h"
#include "wire.h"

/* A statement in flight. */
typedef struct {
    int stream, stmt, last; /* the op's stream, which of its statements, whether its last */
    uint64_t sent_ns;       /* when the op's first statement was written */
} md_flight_t;

struct md_pipe {
    wire_t w;
    unsigned depth;
    md_flight_t *ring;
    int broken;
};

int md_pipe_open(md_handle_t *h, unsigned depth, unsigned *err, char *message, char stage[MD_STAGE]) {
    snprintf(stage, MD_STAGE, "pipeline");
    md_pipe_t *p = (md_pipe_t *)calloc(1, sizeof(*p));
    if (p == NULL) {
        *err = 2008; /* CR_OUT_OF_MEMORY */
        snprintf(message, MD_MESSAGE, "out of memory");
        return 0;
    }
    h->pipe = p;
    if (!wire_open(&p->w, md_first_connection(h), (size_t)depth * WIRE_EXEC_BYTES(MD_MAX_PARAMS), err, message,
                   MD_MESSAGE))
        return 0;
    for (int i = 0; i < h->n; i++) {
        md_stream_t *s = &h->s[i];
        for (int k = 0; s->used && k < s->n_st; k++) {
            md_stmt_t *st = &s->st[k];
            uint8_t types[PL_MAX_COLUMNS] = {0}, is_unsigned[PL_MAX_COLUMNS] = {0};
            if (!wire_columns(st->stmt, PL_MAX_COLUMNS, types, is_unsigned, message, MD_MESSAGE)) {
                snprintf(stage, MD_STAGE, "prepare:%d", i);
                return 0;
            }
            pl_reader_init(&st->reader, p->w.deprecate_eof, 0, st->columns, types, is_unsigned);
        }
    }
    p->depth = depth;
    p->ring = calloc(depth, sizeof(md_flight_t));
    if (p->ring == NULL) {
        *err = 2008;
        snprintf(message, MD_MESSAGE, "out of memory");
        return 0;
    }
    return 1;
}

void md_pipe_free(md_pipe_t *p) {
    if (p == NULL)
        return;
    wire_free(&p->w);
    free(p->ring);
    free(p);
}

uint64_t md_pipe_run(md_handle_t *h, const md_chunk_t *c, uint64_t *count, uint64_t budget_ns, unsigned *fatal,
                     char *message) {
    md_pipe_t *p = h->pipe;
    wire_t *w = &p->w;
    size_t next = c->start; /* the next op to send */
    int next_stmt = 0;      /* of its statements, the next to send */
    size_t inflight = 0, oldest = 0;
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
        if (sending && w->out_pos == w->out_len) {
            w->out_len = w->out_pos = 0;
            uint64_t now = qd_now_ns();
            while (inflight < p->depth && next < c->n) {
                md_stream_t *s = &h->s[c->stream[next]];
                md_stmt_t *st = &s->st[next_stmt];
                md_bind(st, s, c, next);
                wire_put_execute(w, (uint32_t)st->stmt->stmt_id, st->n_params, st->values);
                md_flight_t *f = &p->ring[(oldest + inflight) % p->depth];
                f->stream = c->stream[next];
                f->stmt = next_stmt;
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
        long got = wire_pump(w, fatal, message, MD_MESSAGE);
        if (got == 0)
            continue;
        uint64_t now = qd_now_ns();
        pl_response_t resp;
        int rc = got < 0 ? -1 : 1;
        while (rc > 0 && inflight > 0) {
            md_flight_t *f = &p->ring[oldest];
            md_stream_t *s = &h->s[f->stream];
            if ((rc = wire_read(w, &s->st[f->stmt].reader, &resp, fatal, message, MD_MESSAGE)) <= 0)
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
            md_account(h, f->stream, now - f->sent_ns, op_rows, op_failed ? op_err : 0, op_message, count);
            done++;
            op_rows = 0;
            op_failed = 0;
        }
        if (rc < 0 || wire_consume(w, inflight, fatal, message, MD_MESSAGE) < 0)
            break;
        /* past the budget: send the rest of a half-sent op only, then drain and hand back */
        if (now - began >= budget_ns && next_stmt == 0)
            sending = 0;
    }
    if (*fatal)
        p->broken = 1;
    return done;
}

#endif /* LOADGEN_HAVE_MYSQL */
