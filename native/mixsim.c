/*
 * lrusim_mix (mixsim.h): the arguments checked (a bad one is a ValueError), the GIL released
 * around the kernel, the counters and the per-page reads built back.
 */
#include "mixsim.h"

#include <stdlib.h>

#include "lrusim/mix.h"

PyObject *loadgen_lrusim_mix(PyObject *self, PyObject *args) {
    Py_buffer pv, fv;
    unsigned long long n_pages, leaf_pages, cap, pp, ra_threshold, area, start, freed, batch, tdepth, ticks;
    double old_pct, old_time_ms, ms_per_op, tphase, tperiod;
    int ra_rule, rc;
    mix_counts_t out;

    if (!PyArg_ParseTuple(args, "y*y*KKKKdddKKiKKKKddK", &pv, &fv, &n_pages, &leaf_pages, &cap, &pp, &old_pct,
                          &old_time_ms, &ms_per_op, &ra_threshold, &area, &ra_rule, &start, &freed, &batch, &tdepth,
                          &tphase, &tperiod, &ticks))
        return NULL;
    const char *bad = NULL;
    uint64_t n = (uint64_t)pv.len / 4;
    const uint32_t *pages = (const uint32_t *)pv.buf;
    if (pv.len % 4 || (uint64_t)fv.len != n)
        bad = "pages must be uint32 and flags one byte per page reference";
    else if (n_pages < 1 || n_pages >= NIL || leaf_pages > n_pages || cap < 1)
        bad = "need 1 <= n_pages < 2**32 - 1, leaf_pages <= n_pages and capacity >= 1";
    else if (ra_threshold > EXTENT_PAGES || area < 1 || area > EXTENT_PAGES || (area & (area - 1)))
        bad = "ra_threshold must be within 0..64 and ra_area a power of two up to 64";
    else if (old_pct < 5 || old_pct > 95)
        bad = "old_pct must be within 5..95 (innodb_old_blocks_pct)";
    else if (ra_rule != RA_RULE_MARIADB && ra_rule != RA_RULE_MYSQL)
        bad = "ra_rule must be 0 (MariaDB) or 1 (MySQL)";
    else if (ra_threshold && leaf_pages < 1)
        bad = "read-ahead needs leaf_pages >= 1 (physical page numbers)";
    for (uint64_t i = 0; !bad && i < n; i++)
        if (pages[i] >= n_pages)
            bad = "a page reference is not below n_pages";
    uint32_t *reads = bad ? NULL : calloc(n_pages, sizeof(uint32_t));
    if (bad || !reads) {
        PyBuffer_Release(&pv);
        PyBuffer_Release(&fv);
        if (bad)
            PyErr_SetString(PyExc_ValueError, bad);
        else
            PyErr_NoMemory();
        return NULL;
    }
    sim_cfg_t cfg = {cap, pp, area, 1.0, 0, start, freed, batch, tdepth, tphase, tperiod, ticks}; /* exact */
    lru_params_t params = {old_pct, old_time_ms, ms_per_op, ra_threshold, ra_rule};

    Py_BEGIN_ALLOW_THREADS
    rc = lrusim_mix(pages, (const uint8_t *)fv.buf, n, &cfg, &params, n_pages, leaf_pages, &out, reads);
    Py_END_ALLOW_THREADS

    PyBuffer_Release(&pv);
    PyBuffer_Release(&fv);
    if (rc < 0) {
        free(reads);
        return PyErr_NoMemory();
    }
    PyObject *per_page = PyBytes_FromStringAndSize((const char *)reads, (Py_ssize_t)(n_pages * sizeof(uint32_t)));
    free(reads);
    if (!per_page)
        return NULL;
    const lru_counts_t *k = &out.counts;
    return Py_BuildValue("((KKKKKKKKK)N)", (unsigned long long)k->refs, (unsigned long long)k->misses,
                         (unsigned long long)k->made_young, (unsigned long long)k->not_young,
                         (unsigned long long)k->ra_pages, (unsigned long long)k->ra_evicted,
                         (unsigned long long)out.dirty_evicted, (unsigned long long)out.dirty_at_end,
                         (unsigned long long)out.filler_reads, per_page);
}

int loadgen_mixsim_exec(PyObject *module) {
    if (PyModule_AddIntConstant(module, "MIX_MOVE", MIX_MOVE) < 0 ||
        PyModule_AddIntConstant(module, "MIX_WRITE", MIX_WRITE) < 0 ||
        PyModule_AddIntConstant(module, "MIX_OP", MIX_OP) < 0 ||
        PyModule_AddIntConstant(module, "MIX_NEW", MIX_NEW) < 0)
        return -1;
    return 0;
}
