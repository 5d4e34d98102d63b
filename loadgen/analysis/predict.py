"""The one door to the model: a measured run's prediction (predict) and a workload's forecast at
a pool with its curve (forecast_workload). Here, and only here, an order picks its model:

  the built-in orders (interleaved, looped, sequential)  forecast.py: the kernel expands them
  the key streams (random, the distributions, a trace)   keymodel.py: an explicit page trace
  any order through a secondary index (an IndexMap)       secondary.py: both indexes' pages

and a run's pool model is built (pool_of_run), and every model's prediction is held to the run's
measured reads the same way (model.hold_to_measured). The mix model (mixmodel.py) predicts a
whole workload of streams and keeps its own entry.
"""
from __future__ import annotations

from ..measure.cleaner import replay_schedule
from ..results.documents import Prediction, RunResult
from ..seeding.indexmap import IndexMap
from ..workload.orders import Workload, workload_from_dict
from . import forecast, keymodel, model, secondary
from .pool import run_pool_model

def uses_workload_model(order: str | None) -> bool:
    """The built-in orders the kernel expands itself; every other order is an explicit key stream."""
    return order in model.ORDER_CODES


def pool_of_run(run: RunResult, replay: bool = False) -> model.PoolModel:
    """The simulator's view of the pool a run measured (pool.run_pool_model) and, with replay on
    MySQL, the page cleaner's batches the run recorded, placed by queries done (the key streams
    replay them themselves, at the reference where each batch's query starts: keymodel.py)."""
    flavor = run.server.get("flavor") or "mariadb"
    seen = replay_schedule(run.buffer_pool.get("cleaner_batches")) if replay and flavor == "mysql" else None
    return run_pool_model(run.server, run.buffer_pool, run.result.get("qps"), cleaner_seen=seen)


def predict(run: RunResult, workload: Workload | None = None, index_map: IndexMap | None = None) -> Prediction | None:
    """The `prediction` block of a run: the model's reads beside the measured ones; None where the
    model cannot follow it (no geometry, an order or a trace file it cannot rebuild).

    workload: the Workload the run drove (the runner has it); a file read back rebuilds it from
    its block. index_map: the secondary index the run's query read (seeding/indexmap.py)."""
    if not run.dataset.get("leaf_pages"):
        return None
    order = run.workload.get("order")
    if index_map is not None:
        w = workload or workload_from_dict(run.workload)
        if w is None:
            return None
        started = run.buffer_pool.get("pages_data_before") is not None  # its start-up pages measured
        p, plain, fields = secondary.predict_secondary(index_map, secondary.clustered_geometry(run.dataset),
                                                       pool_of_run(run), w.ids(), start_measured=started)
    elif uses_workload_model(order):
        g = model.geometry_of(run.dataset)
        p, plain, fields = forecast.predict_order_run(run, g, pool_of_run(run, replay=True))
    else:
        g = model.geometry_of(run.dataset)
        w = workload_from_dict(run.workload, g.rows) if workload is None or workload.rows != g.rows else workload
        if w is None:
            return None
        p, plain, fields = keymodel.predict_keys_run(run, w, g, pool_of_run(run))
    bp = run.buffer_pool
    requests = bp.get("read_requests") or p.read_requests
    p.hit_ratio = 1.0 - p.reads / requests if requests else 0.0
    p.measured_read_ahead = bp.get("read_ahead")
    model.hold_to_measured(p, run, plain)  # against the headline: pages read into the pool
    for name, value in fields.items():  # the run's curve (built-in orders), a note (key streams)
        setattr(p, name, value)
    return p


def forecast_workload(w: Workload, g: model.Geometry, pool_bytes: int, variables: dict | None = None,
                      flavor: str = "mariadb", qps: float = model.DEFAULT_QPS, curve_pools: list[int] | None = None,
                      exact: bool = False, estimates: dict | None = None, hist=None) -> model.Forecast:
    """The model's prediction at pool_bytes and its miss-ratio curve over curve_pools for a
    workload on a table of geometry g, no run needed (`predict`, a sweep's curves). exact,
    estimates and hist speed up or refine the built-in orders' curve (forecast.forecast)."""
    if uses_workload_model(w.order):
        return forecast.forecast(w.order, w.stride, w.reps, g, pool_bytes, variables, flavor, qps, curve_pools,
                                 exact=exact, estimates=estimates, hist=hist)
    return keymodel.forecast_keys(w, g, pool_bytes, variables, flavor, qps, curve_pools)
