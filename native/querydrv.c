/*
 * querydrv: the query loop of `loadgen run --driver native`, on the MariaDB/MySQL C API.
 *
 * One handle = one connection + one binary-protocol prepared statement with a single BIGINT
 * UNSIGNED placeholder, the way sysbench's oltp_point_select drives its queries
 * (mysql_stmt_execute, mysql_stmt_store_result, then the rows; docs/drivers.md).
 * Each query is timed with CLOCK_MONOTONIC (what time.perf_counter_ns reads on Linux) into the
 * caller's histogram counts, laid out exactly as loadgen/measure/histogram.py's bucket_index: values
 * below 256 ns one bucket each, then 128 buckets per power of two, 42*128 buckets in all. The
 * Python side passes Histogram.counts itself, so no conversion is needed.
 *
 * query_run works through a slice of an id array with the GIL released and returns after the
 * slice or after budget_ns, whichever comes first, so the caller can honour Ctrl-C and update
 * progress between calls. query_count reads the handle's running total from any thread (the
 * sampler's qps), also while query_run is in progress.
 *
 * Without libmariadb/libmysqlclient at build time only the exec function is compiled.
 */
#include "querydrv.h"
#include "qdcommon.h"
#include "pipeline.h"

#ifdef LOADGEN_HAVE_MYSQL

#include <mysql.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifdef MARIADB_PACKAGE_VERSION
typedef my_bool qd_bool;
#else
typedef bool qd_bool; /* MySQL 8 client headers dropped my_bool */
#endif

#define QD_MAX_COLUMNS 16
#define QD_CAPSULE "loadgen._native.query"

static PyObject *query_error; /* loadgen._native.QueryError(errno, message, stage) */

typedef struct {
    MYSQL *mysql;
    MYSQL_STMT *stmt;
    MYSQL_BIND param;
    MYSQL_BIND result[QD_MAX_COLUMNS];
    unsigned long lengths[QD_MAX_COLUMNS];
    qd_bool nulls[QD_MAX_COLUMNS];
    qd_bool truncated[QD_MAX_COLUMNS];
    char values[QD_MAX_COLUMNS][QD_COLUMN_BYTES];
    unsigned int columns;
    unsigned long long id;
    uint64_t digest;        /* FNV-1a over every value fetched, in order (verify mode) */
    int verify;             /* fetch every row into the digest; else count rows only */
    uint64_t queries_total; /* read by query_count from other threads */
    /* Running totals kept in C, so a Ctrl-C raised between query_run's return and the caller's
     * bookkeeping loses nothing: the caller takes its final figures from query_totals. */
    uint64_t rows_total, ns_total, min_total, max_total;
    uint64_t empty_total; /* queries that returned no row: lookups of keys that are not there */
    int busy;             /* set while query_run has the handle (atomic: free-threaded builds) */
    pl_conn_t *pl;        /* --pipeline N > 1: the pipelined loop of pipeline.c runs the queries */
} qd_conn_t;

static void qd_free(qd_conn_t *c) {
    if (c == NULL)
        return;
    pl_free(c->pl);
    if (c->stmt != NULL)
        mysql_stmt_close(c->stmt);
    if (c->mysql != NULL)
        mysql_close(c->mysql);
    PyMem_RawFree(c);
}

static void qd_capsule_destructor(PyObject *capsule) {
    qd_free((qd_conn_t *)PyCapsule_GetPointer(capsule, QD_CAPSULE));
}

static qd_conn_t *qd_get(PyObject *capsule) {
    qd_conn_t *c = (qd_conn_t *)PyCapsule_GetPointer(capsule, QD_CAPSULE);
    if (c == NULL)
        return NULL;
    if (c->mysql == NULL) {
        PyErr_SetString(PyExc_ValueError, "the query handle is closed");
        return NULL;
    }
    return c;
}

static PyObject *qd_raise(unsigned int err, const char *message, const char *stage) {
    PyObject *py_args = Py_BuildValue("(Iss)", err, message, stage);
    if (py_args != NULL) {
        PyErr_SetObject(query_error, py_args);
        Py_DECREF(py_args);
    }
    return NULL;
}

PyObject *loadgen_query_open(PyObject *self, PyObject *args) {
    const char *host, *user, *password, *unix_socket, *database, *sql;
    unsigned int port, timeout_s;
    qd_conn_t *c = NULL;
    int ok;
    unsigned int err = 0;
    char message[512] = "";
    const char *stage = "connect";

    int verify = 0;
    unsigned int pipeline = 1;

    if (!PyArg_ParseTuple(args, "zIzzzzsI|pI:query_open", &host, &port, &user, &password, &unix_socket, &database, &sql,
                          &timeout_s, &verify, &pipeline))
        return NULL;
    c = (qd_conn_t *)PyMem_RawCalloc(1, sizeof(*c));
    if (c == NULL)
        return PyErr_NoMemory();
    c->digest = FNV_OFFSET;
    c->verify = verify;

    Py_BEGIN_ALLOW_THREADS
    ok = 0;
    c->mysql = mysql_init(NULL);
    if (c->mysql == NULL) {
        err = 2008; /* CR_OUT_OF_MEMORY */
        snprintf(message, sizeof(message), "mysql_init failed");
    } else {
        mysql_options(c->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
        /* With a socket, connect through it (host NULL means localhost), as db.Endpoint does. */
        if (mysql_real_connect(c->mysql, unix_socket ? NULL : host, user, password, database, unix_socket ? 0 : port,
                               unix_socket, 0) == NULL) {
            err = mysql_errno(c->mysql);
            snprintf(message, sizeof(message), "%s", mysql_error(c->mysql));
        } else {
            stage = "prepare";
            c->stmt = mysql_stmt_init(c->mysql);
            if (c->stmt == NULL) {
                err = mysql_errno(c->mysql);
                snprintf(message, sizeof(message), "%s", mysql_error(c->mysql));
            } else if (mysql_stmt_prepare(c->stmt, sql, (unsigned long)strlen(sql)) != 0) {
                err = mysql_stmt_errno(c->stmt);
                snprintf(message, sizeof(message), "%s", mysql_stmt_error(c->stmt));
            } else if (mysql_stmt_param_count(c->stmt) != 1) {
                snprintf(message, sizeof(message), "the statement has %lu placeholders, not one",
                         mysql_stmt_param_count(c->stmt));
            } else if ((c->columns = mysql_stmt_field_count(c->stmt)) > QD_MAX_COLUMNS) {
                snprintf(message, sizeof(message), "the statement returns %u columns, at most %d", c->columns,
                         QD_MAX_COLUMNS);
            } else {
                c->param.buffer_type = MYSQL_TYPE_LONGLONG;
                c->param.buffer = &c->id;
                c->param.is_unsigned = 1;
                for (unsigned int i = 0; i < c->columns; i++) {
                    c->result[i].buffer_type = MYSQL_TYPE_STRING;
                    c->result[i].buffer = c->values[i];
                    c->result[i].buffer_length = QD_COLUMN_BYTES;
                    c->result[i].length = &c->lengths[i];
                    c->result[i].is_null = &c->nulls[i];
                    c->result[i].error = &c->truncated[i];
                }
                if (mysql_stmt_bind_param(c->stmt, &c->param) != 0 ||
                    (c->columns > 0 && mysql_stmt_bind_result(c->stmt, c->result) != 0)) {
                    err = mysql_stmt_errno(c->stmt);
                    snprintf(message, sizeof(message), "%s", mysql_stmt_error(c->stmt));
                } else if (pipeline > 1) {
                    c->pl = pl_open(c->mysql, c->stmt, pipeline, verify, c->digest, &err, message, sizeof(message));
                    ok = c->pl != NULL;
                } else {
                    ok = 1;
                }
            }
        }
    }
    Py_END_ALLOW_THREADS

    if (!ok) {
        qd_free(c);
        return qd_raise(err, message, stage);
    }
    loadgen_debug("query handle open: %u result columns", c->columns);
    return PyCapsule_New(c, QD_CAPSULE, qd_capsule_destructor);
}

/* One query: execute, buffer the whole result on the client (as sysbench does), count its rows;
 * in verify mode also fetch every row into the digest. Returns rows or -1. */
static long long qd_one(qd_conn_t *c) {
    long long rows = 0;
    int rc;

    if (mysql_stmt_execute(c->stmt) != 0)
        return -1;
    if (c->columns > 0) {
        if (mysql_stmt_store_result(c->stmt) != 0)
            return -1;
        if (!c->verify) {
            rows = (long long)mysql_stmt_num_rows(c->stmt);
            mysql_stmt_free_result(c->stmt);
            return rows;
        }
        while ((rc = mysql_stmt_fetch(c->stmt)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
            for (unsigned int i = 0; i < c->columns; i++) {
                if (c->nulls[i]) {
                    c->digest = qd_fnv(c->digest, "\xfe", 1);
                } else {
                    size_t n = c->lengths[i] < QD_COLUMN_BYTES ? c->lengths[i] : QD_COLUMN_BYTES;
                    c->digest = qd_fnv(qd_fnv(c->digest, c->values[i], n), "\xff", 1);
                }
            }
            rows++;
        }
        if (rc == 1) {
            mysql_stmt_free_result(c->stmt);
            return -1;
        }
        mysql_stmt_free_result(c->stmt);
    }
    return rows;
}

PyObject *loadgen_query_run(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    Py_buffer ids = {0}, counts = {0};
    Py_ssize_t start, n_ids;
    unsigned long long budget_ns;
    qd_conn_t *c;
    PyObject *py_result = NULL;
    uint64_t done = 0, rows = 0, empty = 0, total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;
    unsigned int err = 0;
    char message[512] = "";

    if (!PyArg_ParseTuple(args, "Oy*nw*K:query_run", &py_handle, &ids, &start, &counts, &budget_ns))
        return NULL;
    if ((c = qd_get(py_handle)) == NULL)
        goto error;
    if (ids.len % 8 != 0 || counts.len != (Py_ssize_t)(QD_N_BUCKETS * 8)) {
        PyErr_Format(PyExc_ValueError, "ids must be 8-byte items and counts %d 8-byte buckets", QD_N_BUCKETS);
        goto error;
    }
    n_ids = ids.len / 8;
    if (start < 0 || start > n_ids) {
        PyErr_Format(PyExc_ValueError, "start %zd is outside the %zd ids", start, n_ids);
        goto error;
    }
    if (__atomic_exchange_n(&c->busy, 1, __ATOMIC_ACQUIRE)) {
        PyErr_SetString(PyExc_RuntimeError, "the query handle is in use by another thread");
        goto error;
    }

    Py_BEGIN_ALLOW_THREADS
    const uint64_t *id = (const uint64_t *)ids.buf;
    uint64_t *count = (uint64_t *)counts.buf;
    uint64_t began = qd_now_ns();
    if (c->pl != NULL) {
        pl_stats_t st;
        pl_run(c->pl, id, (size_t)start, (size_t)n_ids, count, budget_ns, &c->queries_total, &st);
        done = st.done;
        rows = st.rows;
        empty = st.empty;
        total_ns = st.total_ns;
        min_ns = st.done ? st.min_ns : UINT64_MAX;
        max_ns = st.max_ns;
        err = st.err;
        snprintf(message, sizeof(message), "%s", st.message);
        c->digest = pl_digest(c->pl);
        start = n_ids; /* the loop below has nothing left to do */
    }
    for (Py_ssize_t i = start; i < n_ids; i++) {
        c->id = id[i];
        uint64_t t0 = qd_now_ns();
        long long got = qd_one(c);
        uint64_t t1 = qd_now_ns();
        if (got < 0) {
            err = mysql_stmt_errno(c->stmt);
            snprintf(message, sizeof(message), "%s", mysql_stmt_error(c->stmt));
            break;
        }
        uint64_t dt = t1 - t0;
        count[qd_bucket(dt)]++;
        total_ns += dt;
        if (dt < min_ns)
            min_ns = dt;
        if (dt > max_ns)
            max_ns = dt;
        rows += (uint64_t)got;
        empty += got == 0;
        done++;
        __atomic_store_n(&c->queries_total, c->queries_total + 1, __ATOMIC_RELAXED);
        if (t1 - began >= budget_ns)
            break;
    }
    Py_END_ALLOW_THREADS

    c->rows_total += rows;
    c->empty_total += empty;
    c->ns_total += total_ns;
    if (done && (c->min_total == 0 || min_ns < c->min_total))
        c->min_total = min_ns;
    if (max_ns > c->max_total)
        c->max_total = max_ns;
    __atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
    if (err != 0)
        loadgen_debug("query failed after %llu: %s (%u)", (unsigned long long)done, message, err);
    py_result =
        Py_BuildValue("(KKKKKKIzK)", (unsigned long long)done, (unsigned long long)rows, (unsigned long long)total_ns,
                      (unsigned long long)(done ? min_ns : 0), (unsigned long long)max_ns,
                      (unsigned long long)c->digest, err, err ? message : NULL, (unsigned long long)empty);
error:
    if (ids.obj != NULL)
        PyBuffer_Release(&ids);
    if (counts.obj != NULL)
        PyBuffer_Release(&counts);
    return py_result;
}

/* The loop's bucketing alone, for tests: add each uint64 value (ns) of `values` to `counts`. */
PyObject *loadgen_query_buckets(PyObject *self, PyObject *args) {
    Py_buffer values = {0}, counts = {0};
    PyObject *py_result = NULL;

    if (!PyArg_ParseTuple(args, "y*w*:query_buckets", &values, &counts))
        return NULL;
    if (values.len % 8 != 0 || counts.len != (Py_ssize_t)(QD_N_BUCKETS * 8)) {
        PyErr_Format(PyExc_ValueError, "values must be 8-byte items and counts %d 8-byte buckets", QD_N_BUCKETS);
        goto error;
    }
    const uint64_t *value = (const uint64_t *)values.buf;
    uint64_t *count = (uint64_t *)counts.buf;
    for (Py_ssize_t i = 0; i < values.len / 8; i++)
        count[qd_bucket(value[i])]++;
    py_result = Py_NewRef(Py_None);
error:
    PyBuffer_Release(&values);
    PyBuffer_Release(&counts);
    return py_result;
}

PyObject *loadgen_query_count(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    qd_conn_t *c;

    if (!PyArg_ParseTuple(args, "O:query_count", &py_handle))
        return NULL;
    c = (qd_conn_t *)PyCapsule_GetPointer(py_handle, QD_CAPSULE);
    if (c == NULL)
        return NULL;
    return PyLong_FromUnsignedLongLong(__atomic_load_n(&c->queries_total, __ATOMIC_RELAXED));
}

PyObject *loadgen_query_totals(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    qd_conn_t *c;

    if (!PyArg_ParseTuple(args, "O:query_totals", &py_handle))
        return NULL;
    c = (qd_conn_t *)PyCapsule_GetPointer(py_handle, QD_CAPSULE);
    if (c == NULL)
        return NULL;
    if (__atomic_load_n(&c->busy, __ATOMIC_ACQUIRE)) {
        PyErr_SetString(PyExc_RuntimeError, "the query handle is in use by another thread");
        return NULL;
    }
    return Py_BuildValue("(KKKKKKK)", (unsigned long long)c->queries_total, (unsigned long long)c->rows_total,
                         (unsigned long long)c->ns_total, (unsigned long long)c->min_total,
                         (unsigned long long)c->max_total, (unsigned long long)c->digest,
                         (unsigned long long)c->empty_total);
}

PyObject *loadgen_query_close(PyObject *self, PyObject *args) {
    PyObject *py_handle;
    qd_conn_t *c;

    if (!PyArg_ParseTuple(args, "O:query_close", &py_handle))
        return NULL;
    c = (qd_conn_t *)PyCapsule_GetPointer(py_handle, QD_CAPSULE);
    if (c == NULL)
        return NULL;
    if (__atomic_exchange_n(&c->busy, 1, __ATOMIC_ACQUIRE)) {
        PyErr_SetString(PyExc_RuntimeError, "the query handle is in use by another thread");
        return NULL;
    }
    /* Keep the struct (query_count may still read it); free only the connection. */
    Py_BEGIN_ALLOW_THREADS
    if (c->stmt != NULL)
        mysql_stmt_close(c->stmt);
    if (c->mysql != NULL)
        mysql_close(c->mysql);
    Py_END_ALLOW_THREADS
    pl_free(c->pl);
    c->pl = NULL;
    c->stmt = NULL;
    c->mysql = NULL;
    __atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
    Py_RETURN_NONE;
}

int loadgen_querydrv_exec(PyObject *module) {
    /* Not thread-safe inside the client library: once here, before any thread connects. */
    if (mysql_library_init(0, NULL, NULL) != 0) {
        loadgen_debug("mysql_library_init failed");
    }
    query_error = PyErr_NewException("loadgen._native.QueryError", NULL, NULL);
    if (query_error == NULL)
        return -1;
    if (PyModule_AddObject(module, "QueryError", query_error) < 0) {
        Py_DECREF(query_error);
        return -1;
    }
    Py_INCREF(query_error); /* PyModule_AddObject stole one reference; keep ours */
    if (PyModule_AddIntConstant(module, "QUERY_BUCKETS", QD_N_BUCKETS) < 0)
        return -1;
    return 0;
}

#else /* !LOADGEN_HAVE_MYSQL */

int loadgen_querydrv_exec(PyObject *module) {
    (void)module;
    return 0;
}

#endif
