"""Shape files (seed --shape) are hostile input: every field seeding uses is checked first, and a
bad one is one line, exit 2, before any server starts. The calibration of text lengths."""
from __future__ import annotations

import copy
import json
import os

import pytest

from loadgen.errors import UsageError
from loadgen.seeding import shapefile, shapeseed, tablegen
from loadgen.seeding.clone import clean_create

from ..conftest import run_loadgen

GOOD = {
    "format": "loadgen-shape", "version": 1,
    "source": {"flavor": "mariadb", "version": "10.11.19", "database": "shop", "cloned_at": "2026-11-25T00:00:00Z"},
    "tables": [{
        "name": "orders", "rows": 30,
        "create": "CREATE TABLE `orders` (\n  `id` int NOT NULL,\n  `k` int NOT NULL,\n  PRIMARY KEY (`id`),\n"
                  "  KEY `k_1` (`k`)\n) ENGINE=InnoDB",
        "primary_key": {"columns": ["id"], "min": 5, "max": 100, "segments": [[5, 20, 10], [50, 100, 20]]},
        "indexes": {"PRIMARY": {"columns": ["id"]},
                    "k_1": {"columns": ["k"], "definition": "KEY `k_1` (`k`)", "build": "after"}},
        "columns": [{"name": "id", "avg_bytes": 4, "null_fraction": 0}],
    }],
}


def _with(**changes):
    doc = copy.deepcopy(GOOD)
    for path, value in changes.items():
        *where, last = path.split("__")
        node = doc
        for key in where:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[last] = value
    return doc


def test_a_good_shape_passes():
    shapefile.check(copy.deepcopy(GOOD))


@pytest.mark.parametrize("doc, needle", [
    (_with(version=2), "version 2"),
    (_with(format="other"), "not a loadgen shape file"),
    (_with(tables=[]), "1 to 1000 tables"),
    (_with(tables__0__rows=-1), "orders.rows must be an integer"),
    (_with(tables__0__rows=True), "orders.rows must be an integer"),
    (_with(tables__0__name="x`; DROP DATABASE mysql; --"), "not a plain identifier"),
    (_with(tables__0__create="DROP DATABASE mysql"), "orders.create"),
    (_with(tables__0__create="CREATE TABLE `other` (id int primary key)"), "does not create orders"),
    (_with(tables__0__create="CREATE TABLE orders (id int primary key) ENGINE=CONNECT"), "ENGINE=CONNECT"),
    (_with(tables__0__primary_key__segments=[[5, 20, 10], [15, 100, 20]]), "ascend"),
    (_with(tables__0__primary_key__segments=[[5, 6, 10], [50, 100, 20]]), "segment rows"),
    (_with(tables__0__primary_key__segments=[[5, 20, 10]]), "hold 10 rows, not the table's 30"),
    (_with(tables__0__indexes__k_1__definition="KEY `k_1` (`k`), RENAME TO mysql.user"), "definition"),
    (_with(tables__0__indexes__k_1__build="now"), "build must be"),
    (_with(tables__0__columns__0__null_fraction=3), "null_fraction"),
])
def test_a_bad_shape_is_a_usage_error_that_says_what(doc, needle):
    with pytest.raises(UsageError) as exc:
        shapefile.check(doc, "s.json")
    assert needle in str(exc.value), str(exc.value)


def _one_line_exit_2(res, needle):
    assert res.returncode == 2, (res.returncode, res.stderr[-1500:])
    assert "Traceback" not in res.stderr
    lines = [ln for ln in res.stderr.strip().splitlines() if ln.startswith("loadgen:")]
    assert len(lines) == 1 and needle in lines[0], res.stderr


@pytest.mark.parametrize("content, needle", [
    (json.dumps(_with(version=99)), "version 99"),
    (json.dumps(_with(tables__0__rows=-5)), "must be an integer"),
    (json.dumps(_with(tables__0__name="a`b")), "not a plain identifier"),
    ("{not json", "not JSON"),
    (None, "more than a shape file may be"),  # a 10 GiB (sparse) file is refused by its size, unread
])
def test_seed_refuses_a_bad_shape_file_before_any_server_starts(tmp_path, content, needle):
    path = tmp_path / "shape.json"
    if content is None:
        path.touch()
        os.truncate(path, 10 << 30)
    else:
        path.write_text(content)
    # port 9 answers nothing: the file is judged first, so no server is reached or started
    res = run_loadgen("seed", "--shape", str(path), "--server", "dsn", "--dsn", "mysql://root@127.0.0.1:9/",
                      timeout=120)
    _one_line_exit_2(res, needle)


def test_show_create_table_is_cleaned_to_pass_the_schema_gate():
    create = ("CREATE TABLE `t` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `p` int(11) DEFAULT NULL,\n"
              "  PRIMARY KEY (`id`),\n  UNIQUE KEY `u` (`p`),\n"
              "  CONSTRAINT `fk` FOREIGN KEY (`p`) REFERENCES `parent` (`id`)\n"
              ") ENGINE=InnoDB AUTO_INCREMENT=77 DEFAULT CHARSET=utf8mb4\n"
              "/*!50100 PARTITION BY HASH (`id`)\nPARTITIONS 4 */")
    text, indexes, notes = clean_create(create)
    from loadgen.seeding import ddl

    assert ddl.check_statement(text, "x", []) == "t"
    assert "FOREIGN" not in text and "AUTO_INCREMENT=77" not in text and "PARTITIONS 4" in text
    assert indexes == {"u": ("UNIQUE", "UNIQUE KEY `u` (`p`)")} and "foreign key left out" in notes[0]


@pytest.mark.parametrize("target, max_len", [(30.0, 200), (69.2, 200), (90.0, 100), (206.0, 4096)])
def test_text_lengths_are_calibrated_to_the_sampled_average(target, max_len):
    mean = shapeseed.text_mean(target, max_len)
    import random

    rnd = random.Random(99)  # other draws than the calibration's
    got = sum(tablegen.text_len(rnd.getrandbits(64), mean, max_len) for _ in range(20000)) / 20000
    assert abs(got - target) / target < 0.03, (mean, got)


def test_seed_shape_refuses_the_options_of_the_other_seed_paths(tmp_path):
    path = tmp_path / "shape.json"
    path.write_text(json.dumps(GOOD))
    res = run_loadgen("seed", "--shape", str(path), "--rows", "5", "--server", "dsn", "--dsn",
                      "mysql://root@127.0.0.1:9/", timeout=120)
    _one_line_exit_2(res, "--rows does not apply")
