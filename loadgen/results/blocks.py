"""The blocks of a run document (server, dataset, workload, result, buffer_pool) as small types:
the keys loadgen reads as attributes, over the block as the file has it (documents.RunResult).
docs/results.md lists the keys."""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping


class Block(MutableMapping):
    """One block of a run (server, dataset, workload, result, buffer_pool): the keys loadgen reads
    as typed attributes (run.server.flavor, run.buffer_pool.pages_read), over the block as it is
    in the file, so every key, known or not, is kept in its order and the file does not change. It
    reads and writes like its JSON object too (block["reads"], block.get("reads"))."""

    def __init__(self, data: Mapping | None = None) -> None:
        self._data = dict(data or {})

    def __getitem__(self, key: str):
        return self._data[key]

    def __setitem__(self, key: str, value) -> None:
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data!r})"

    def to_dict(self) -> dict:
        return dict(self._data)


def _key(name: str, doc: str = ""):
    """A block's key as an attribute: None where the file does not have it."""
    return property(lambda self: self._data.get(name), lambda self, value: self._data.__setitem__(name, value),
                    doc=doc or name)


class ServerBlock(Block):
    provider = _key("provider")
    flavor = _key("flavor", "mariadb or mysql: whose counters and rules")
    version = _key("version")
    pool_bytes = _key("innodb_buffer_pool_size", "innodb_buffer_pool_size as the server reported it")
    variables = _key("variables", "the server variables recorded (servers.RECORDED_VARIABLES)")
    cold_start = _key("cold_start", "how the run started cold and what verified it (runner.verify_cold)")


class DatasetBlock(Block):
    schema = _key("schema")
    database = _key("database")
    table = _key("table")
    rows = _key("rows", "the keys the orders range over")
    table_rows = _key("table_rows", "the table's own rows, where they differ from the keys")
    leaf_pages = _key("leaf_pages")
    height = _key("height")


class WorkloadBlock(Block):
    order = _key("order")
    variation = _key("variation")
    stride = _key("stride")
    reps = _key("reps")
    seed = _key("seed")
    queries = _key("queries")


class ResultBlock(Block):
    queries = _key("queries", "queries the run completed")
    qps = _key("qps")
    elapsed_s = _key("elapsed_s")
    latency_us = _key("latency_us")


class BufferPoolBlock(Block):
    pages_read = _key("pages_read", "the headline of a v2 file; read it through RunResult.headline()")
    reads = _key("reads", "Innodb_buffer_pool_reads: demand reads on MySQL, read-ahead too on MariaDB")
    read_ahead = _key("read_ahead")
    demand_reads = _key("demand_reads")
    read_requests = _key("read_requests")
    pages_total = _key("pages_total", "the pool's frames")
    pages_data_before = _key("pages_data_before", "data pages held at the run's start")
    cleaner_batches = _key("cleaner_batches", "MySQL's page-cleaner LRU batches as recorded (measure/cleaner.py)")
    counters = _key("counters", "the status variables each figure came from")


BLOCKS = {"server": ServerBlock, "dataset": DatasetBlock, "workload": WorkloadBlock, "result": ResultBlock,
          "buffer_pool": BufferPoolBlock}
