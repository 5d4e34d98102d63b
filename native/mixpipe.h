/*
 * mixpipe: a mix's ops with up to `depth` statements in flight on one connection (`run --workload
 * --pipeline N`): every stream's statements were prepared on that connection (mixconn.c), their
 * COM_STMT_EXECUTE packets go back to back on its socket (wire.h) and each statement's reader
 * (plreader.h) takes its responses apart, in the order sent. Plain C: no Python object here.
 */
#ifndef LOADGEN_MIXPIPE_H
#define LOADGEN_MIXPIPE_H

#ifdef LOADGEN_HAVE_MYSQL

#include "mixconn.h"

/* The pipelined loop's state on h's one connection (md_connect with one_connection), and each
 * statement's reader, into h->pipe. 0 with *err, message and stage on refusal (TLS, compression,
 * too many columns) or when memory is short. */
int md_pipe_open(md_handle_t *h, unsigned depth, unsigned *err, char *message, char stage[MD_STAGE]);

void md_pipe_free(md_pipe_t *p);

/* Ops of chunk c with up to depth statements in flight; every call drains what it sent before it
 * returns, so the ops done are always a prefix. A server error is counted in its stream and the
 * ops go on; a broken connection ends the call (*fatal). */
uint64_t md_pipe_run(md_handle_t *h, const md_chunk_t *c, uint64_t *count, uint64_t budget_ns, unsigned *fatal,
                     char *message);

#endif /* LOADGEN_HAVE_MYSQL */

#endif /* LOADGEN_MIXPIPE_H */
