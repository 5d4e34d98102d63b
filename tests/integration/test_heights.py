"""B-tree heights measured on a real mariadbd: a primary key's and a secondary index's (HANDLER on
MariaDB), an index whose name holds a backtick (names reach SQL text: the server's own catalogue
is no promise), and a height outside its bounds refused with a one-line SeedError."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.mysqld


@pytest.fixture(scope="module")
def conn(mysqld_binary, session_dir):
    from loadgen.servers.local import LocalServer

    server = LocalServer(session_dir / "heights-server", 16 << 20, mysqld=mysqld_binary)
    server.start()
    c = server.connect()
    try:
        cur = c.cursor()
        cur.execute("CREATE DATABASE h")
        cur.execute("CREATE TABLE h.t (id INT PRIMARY KEY, k INT NOT NULL, pad CHAR(200) NOT NULL, "
                    "KEY `k``1` (k)) ENGINE=InnoDB")
        cur.execute("INSERT INTO h.t SELECT seq, seq % 1000, REPEAT('x', 200) FROM h.seq_1_to_20000")
        c.commit()
        cur.close()
        yield c
    finally:
        c.close()
        server.stop()


def test_primary_and_secondary_heights(conn):
    from loadgen.seeding.height import measure_height, secondary_height

    # 20,000 rows of ~215 bytes: ~290 leaves under one root
    primary = measure_height(conn, "h", "t", ["id"], leaf_pages=290, rows=20_000)
    assert primary == 2
    height, how = secondary_height(conn, "h", "t", "k`1", ["k"], primary)
    assert how == "handler" and height in (1, 2), (height, how)


def test_a_height_outside_its_bounds_is_refused(conn):
    from loadgen.errors import SeedError
    from loadgen.seeding.height import measure_height

    # bounds of a table a hundred thousand times bigger: 2 levels cannot be right for it
    with pytest.raises(SeedError, match="measured a B-tree height of 2") as info:
        measure_height(conn, "h", "t", ["id"], leaf_pages=50_000_000, rows=2_000_000_000, attempts=2)
    assert "re-run when it is idle" in info.value.hint
