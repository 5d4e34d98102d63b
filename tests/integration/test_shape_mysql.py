"""clone-shape and seed --shape on MySQL 9.7 (docker): MySQL's SHOW CREATE TABLE (collations,
versioned comments), its index statistics and LOAD DATA LOCAL, cloned into a second database of
the same server."""
from __future__ import annotations

import json
import secrets

import pytest

from ..conftest import run_loadgen
from .conftest import login, session_labels
from .test_shape import fill

pytestmark = pytest.mark.docker

SB_ROWS, HOLES_ROWS = 50_000, 60_000
# Leaf pages of the seeded tables against the source's, in percent. Measured on MySQL 9.7.4
# (docker), 4 runs, the same every time: sbtest1 PRIMARY 0.0, k_1 0.0; holes PRIMARY -0.1, by_owner
# (filled by random inserts) +10.0. That is the spread of a small index filled in random order on
# MySQL, not a bias: six other random draws of the same (key, owner) distribution made 102-109
# leaves (the source 100), and INSERT and LOAD DATA LOCAL of the same rows 102 each (docs/shape.md).
LEAF_BOUND_PCT = 5.0
RANDOM_INSERT_BOUND_PCT = 15.0


@pytest.fixture(scope="module")
def mysql(engine, mysql_image):
    password = secrets.token_hex(8)
    container = engine.containers.run(
        mysql_image, ["--innodb-buffer-pool-size=32M", "--local-infile=ON", "--mysqlx=OFF"], detach=True,
        environment={"MYSQL_ROOT_PASSWORD": password}, ports={"3306/tcp": ("127.0.0.1", None)},
        labels=session_labels(), name=f"loadgen-test-{secrets.token_hex(3)}")
    try:
        container.reload()
        port = int(container.attrs["NetworkSettings"]["Ports"]["3306/tcp"][0]["HostPort"])
        conn = login(port, password)
        fill(conn, SB_ROWS, HOLES_ROWS, hosts=("%",))  # the host's side of docker's bridge
        yield conn, port, password
        conn.close()
    finally:
        container.remove(force=True, v=True)


def test_a_mysql_shape_is_cloned_read_only_and_seeded_back(mysql, tmp_path):
    from loadgen import db
    from loadgen.seeding import clone
    from loadgen.seeding.schemas import read_schema_file

    conn, port, password = mysql
    out = tmp_path / "sb.json"
    sums = db.query_all(conn, "CHECKSUM TABLE sbtest.sbtest1, sbtest.holes")
    res = run_loadgen("clone-shape", "--dsn", f"mysql://reader@127.0.0.1:{port}/", "--database", "sbtest",
                      "-o", str(tmp_path / "reader.json"), env={"LOADGEN_PASSWORD": "pw-reader"})
    assert res.returncode == 0, res.stderr[-3000:]
    res = run_loadgen("clone-shape", "--dsn", f"mysql://root@127.0.0.1:{port}/", "--database", "sbtest",
                      "-o", str(out), env={"LOADGEN_PASSWORD": password})
    assert res.returncode == 0, res.stderr[-3000:]
    assert db.query_all(conn, "CHECKSUM TABLE sbtest.sbtest1, sbtest.holes") == sums
    read_schema_file(out.with_suffix(".sql"), "anywhere")
    doc = json.loads(out.read_text())
    res = run_loadgen("seed", "--shape", str(out), "--database", "sbclone", "--server", "dsn",
                      "--dsn", f"mysql://root@127.0.0.1:{port}/", env={"LOADGEN_PASSWORD": password})
    assert res.returncode == 0, res.stderr[-3000:]
    again = clone.clone(conn, "sbclone", ["holes", "sbtest1"])
    for want, got in zip(doc["tables"], again["tables"]):
        assert got["rows"] == want["rows"]
        assert [s[2] for s in got["primary_key"]["segments"]] == [s[2] for s in want["primary_key"]["segments"]]
        for iname, ix in want["indexes"].items():
            pct = 100.0 * (got["indexes"][iname]["leaf_pages"] - ix["leaf_pages"]) / ix["leaf_pages"]
            bound = RANDOM_INSERT_BOUND_PCT if ix.get("build") == "load" else LEAF_BOUND_PCT
            assert abs(pct) <= bound, (want["name"], iname, ix["leaf_pages"], got["indexes"][iname])
