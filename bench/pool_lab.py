#!/usr/bin/env python3
"""Lab points for the model: raw InnoDB counters of A and B at several pools, each from a cold pool.

One server (a docker image, or a local mariadbd/mysqld), one dataset; for every pool and order:
restart cold with that pool, wait until no page is being read, snapshot SHOW GLOBAL STATUS, run
the order with `loadgen run`'s own measure(), snapshot again. Writes the deltas, the gauges right
before the run, the server variables the model needs and the table's geometry as JSON (--json)
and as a Markdown table (stdout). Nothing here is timed: the counters are the measurement.

    python bench/pool_lab.py --server docker --image loadgen/mysql:9.7 --rows 200000 --json lab.json
    python bench/pool_lab.py --server local --rows 200000 --json lab-mariadb.json
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DELTAS = {  # result key: status variable
    "pages_read": "Innodb_pages_read",
    "reads": "Innodb_buffer_pool_reads",
    "read_ahead": "Innodb_buffer_pool_read_ahead",
    "read_ahead_evicted": "Innodb_buffer_pool_read_ahead_evicted",
    "read_requests": "Innodb_buffer_pool_read_requests",
}
GAUGES = {"pages_data_before": "Innodb_buffer_pool_pages_data",
          "pages_free_before": "Innodb_buffer_pool_pages_free",
          "pages_total": "Innodb_buffer_pool_pages_total",
          # Everything read since the server started: start-up's own share of pages_data.
          "pages_read_since_start": "Innodb_pages_read"}
VARIABLES = ["innodb_lru_scan_depth", "innodb_buffer_pool_instances", "innodb_read_ahead_threshold",
             "innodb_buffer_pool_chunk_size", "innodb_buffer_pool_size", "innodb_old_blocks_time",
             "innodb_random_read_ahead", "version", "version_comment"]


def status(conn) -> dict[str, int]:
    from loadgen.db import query_all

    names = list(DELTAS.values()) + list(GAUGES.values())
    quoted = ",".join(f"'{n}'" for n in names)
    rows = query_all(conn, f"SHOW GLOBAL STATUS WHERE Variable_name IN ({quoted})")
    return {str(k): int(v) for k, v in rows}


def index_stats(conn, database: str) -> dict[str, int]:
    from loadgen.db import query_all

    query_all(conn, f"ANALYZE TABLE `{database}`.message")
    rows = query_all(conn, "SELECT stat_name, stat_value FROM mysql.innodb_index_stats "
                           "WHERE database_name = %s AND table_name = 'message' AND index_name = 'PRIMARY' "
                           "AND stat_name IN ('n_leaf_pages', 'size')", (database,))
    return {str(k): int(v) for k, v in rows}


def parse_size(text: str) -> int:
    from loadgen.units import parse_size as parse

    return parse(text, "--pools")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", choices=["docker", "local"], default="docker")
    ap.add_argument("--image", default="loadgen/mysql:9.7")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--pools", default="8M,16M,32M,64M")
    ap.add_argument("--orders", default="A,B")
    ap.add_argument("--driver", default="auto", choices=["auto", "native", "python"])
    ap.add_argument("--json", type=Path, help="append the points to this JSON list")
    ap.add_argument("--unlabelled", action="store_true",
                    help="docker: no org.loadgen label, so other test sessions do not remove the container")
    ap.add_argument("--render", type=Path, nargs="+", help="only print the tables of these JSON files")
    ap.add_argument("--repredict", action="store_true",
                    help="with --render: predictions from the current model instead of the recorded ones")
    args = ap.parse_args()
    if args.render:
        points = [p for f in args.render for p in json.loads(f.read_text())]
        if args.repredict:
            points = repredict(points)
        print(table(points) + "\n\n" + settings(points) + "\n\n" + side_by_side(points))
        return

    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.db import global_variables
    from loadgen.workload.orders import Workload, resolve
    from loadgen.runner.single import QuietReporter, measure, prepare_dataset
    from loadgen.measure.sampler import wait_quiet
    from loadgen.servers import ServerSpec
    from loadgen.servers.provision import provisioned

    if args.server == "docker" and args.unlabelled:
        # The test suite's fixtures now leave containers of another cache dir alone, but older
        # checkouts' remove every container labelled org.loadgen that they did not start; a lab
        # run of many minutes keeps its containers out of their sight.
        import loadgen.servers.docker as docker_server

        docker_server._owner_labels = lambda keep: {"org.loadgen-lab": "1"}
    from loadgen.analysis.predict import predict

    pools = [parse_size(p) for p in args.pools.split(",")]
    spec = ServerSpec(provider=args.server, pool_bytes=pools[0],
                      image=args.image if args.server == "docker" else None)
    dataset_spec = DatasetSpec(rows=args.rows)
    points: list[dict] = []
    old_points = json.loads(args.json.read_text()) if args.json and args.json.exists() else []
    with provisioned(spec, dataset_spec, lambda m: print(m, file=sys.stderr)) as server, \
            tempfile.TemporaryDirectory() as tmp:
        info = prepare_dataset(server, dataset_spec, QuietReporter())
        conn = server.connect()
        try:
            geometry = index_stats(conn, info.database)
        finally:
            conn.close()
        for pool in pools:
            for variation in args.orders.split(","):
                server.set_pool(pool)
                cold = server.restart_cold()
                conn = server.connect()
                try:
                    wait_quiet(conn)
                    variables = global_variables(conn, VARIABLES)
                    before = status(conn)
                    order, variation_name = resolve(variation, None)
                    workload = Workload(order, args.rows, variation=variation_name)
                    result = measure(server, info, workload, cold, Path(tmp) / "r.json", 1.0, QuietReporter(),
                                     driver=args.driver, predict=predict)
                    after = status(conn)
                finally:
                    conn.close()
                point = {
                    "flavor": result["server"]["flavor"], "version": result["server"]["version"],
                    "provider": server.provider, "rows": args.rows, "pool_bytes": pool, "variation": variation,
                    "queries": result["result"]["queries"], "qps": result["result"].get("qps"), "cold": cold.cold,
                    **{k: after[v] - before[v] for k, v in DELTAS.items()},
                    **{k: before[v] for k, v in GAUGES.items()},
                    "variables": variables,
                    "leaf_pages": geometry.get("n_leaf_pages"), "index_pages": geometry.get("size"),
                    "height": info.height,
                    "loadgen_buffer_pool": result["buffer_pool"],
                    "prediction": (result.get("prediction") or {}).get("reads"),
                }
                points.append(point)
                if args.json:  # after every point: a run cut short keeps what it measured
                    args.json.write_text(json.dumps(old_points + points, indent=1) + "\n")
                print(json.dumps({k: v for k, v in point.items() if k not in ("variables", "loadgen_buffer_pool")}),
                      file=sys.stderr)
    print(table(points) + "\n\n" + settings(points))


def table(points: list[dict]) -> str:
    """The counters, one row per point (settings that never change on a server go in `settings`)."""
    head = ("| server | rows | pool | order | Innodb_pages_read | buffer_pool_reads | read_ahead "
            "| read_ahead_evicted | read_requests | pages_data before | pages_free before | pages_total "
            "| read since start | predicted (loadgen) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for p in points:
        since = p.get("pages_read_since_start")
        lines.append(
            f"| {p['flavor']} {p['version']} | {p['rows']:,} | {p['pool_bytes'] >> 20}M "
            f"| {p['variation']} | {p['pages_read']:,} | {p['reads']:,} | {p['read_ahead']:,} "
            f"| {p['read_ahead_evicted']:,} | {p['read_requests']:,} | {p['pages_data_before']:,} "
            f"| {p['pages_free_before']:,} | {p['pages_total']:,} | {'' if since is None else f'{since:,}'} "
            f"| {'' if p.get('prediction') is None else format(p['prediction'], ',')} |")
    return "\n".join(lines)


def repredict(points: list[dict]) -> list[dict]:
    """The points with `prediction` from the current model: each point's own pool (pages_total),
    settings, geometry, start-up pages (pages_data before) and query rate (default when missing)."""
    from loadgen.analysis import model

    out = []
    for p in points:
        g = model.Geometry(p["rows"], p["leaf_pages"], p["height"])
        pool = model.pool_model(p["pool_bytes"], p["variables"], p["flavor"], float(p.get("qps") or model.DEFAULT_QPS),
                                total_pages=p["pages_total"], start_pages=p["pages_data_before"])
        order = {"A": "interleaved", "B": "looped"}.get(p["variation"], p["variation"])
        out.append({**p, "prediction": model.simulate_detail(order, 10, 2, g, pool)[1]})
    return out


def side_by_side(points: list[dict]) -> str:
    """Per flavour: pages read, demand reads (pages read minus read-ahead, on both servers),
    read-ahead, the raw Innodb_buffer_pool_reads (MySQL: demand only; MariaDB: all), loadgen's
    prediction and its error against Innodb_pages_read."""
    flavors = list(dict.fromkeys(f"{p['flavor']} {p['version']}" for p in points))
    by_key = {(f"{p['flavor']} {p['version']}", p["rows"], p["pool_bytes"], p["variation"]): p for p in points}
    head = "| rows | pool | order | " + " | ".join(
        f"{f}: pages read | demand | read-ahead | Innodb_buffer_pool_reads | predicted | error" for f in flavors) + " |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for rows, pool, variation in dict.fromkeys((k[1], k[2], k[3]) for k in by_key):
        cells = []
        for f in flavors:
            p = by_key.get((f, rows, pool, variation))
            if p is None:
                cells.append("– | – | – | – | – | –")
                continue
            pred = p.get("prediction")
            err = f"{(pred - p['pages_read']) / p['pages_read']:+.1%}" if pred is not None else ""
            cells.append(f"{p['pages_read']:,} | {p['pages_read'] - p['read_ahead']:,} | {p['read_ahead']:,} | "
                         f"{p['reads']:,} | "
                         f"{'' if pred is None else format(pred, ',')} | {err}")
        lines.append(f"| {rows:,} | {pool >> 20}M | {variation} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def settings(points: list[dict]) -> str:
    """Server settings and table geometry, one row per server, pool and table size."""
    head = ("| server | rows | pool | innodb_lru_scan_depth | innodb_buffer_pool_instances "
            "| innodb_read_ahead_threshold | innodb_buffer_pool_chunk_size | leaf pages (index_stats) "
            "| index pages | height |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    seen = set()
    for p in points:
        key = (p["flavor"], p["version"], p["rows"], p["pool_bytes"])
        if key in seen:
            continue
        seen.add(key)
        v = p["variables"]
        chunk = v.get("innodb_buffer_pool_chunk_size")
        chunk = "n/a" if chunk is None else ("0 (auto)" if int(chunk) == 0 else f"{int(chunk) >> 20}M")
        lines.append(
            f"| {p['flavor']} {p['version']} | {p['rows']:,} | {p['pool_bytes'] >> 20}M "
            f"| {v.get('innodb_lru_scan_depth')} | {v.get('innodb_buffer_pool_instances', 'n/a')} "
            f"| {v.get('innodb_read_ahead_threshold')} | {chunk} | {p['leaf_pages']:,} | {p['index_pages']:,} "
            f"| {p['height']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
