import os

import pytest

from loadgen.errors import ResultError, UsageError
from loadgen.results.documents import FORMAT_VERSION, load
from loadgen.results.files import write_json_atomic
from loadgen.servers.dsn import parse_dsn


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "sub" / "r.json"
    write_json_atomic(path, {"format_version": FORMAT_VERSION, "x": 1})
    assert load(path)["x"] == 1
    assert os.listdir(path.parent) == ["r.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "r.json"
    write_json_atomic(path, {"format_version": FORMAT_VERSION, "x": 1})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"format_version": FORMAT_VERSION, "x": object()})
    assert load(path)["x"] == 1
    assert os.listdir(tmp_path) == ["r.json"]


@pytest.mark.parametrize("content,needle", [
    ('{"format_version": 1, "x": ', "bad JSON"),
    ("[1, 2]", "no format_version"),
    ('{"format_version": 99}', "format_version 99"),
])
def test_bad_result_files_are_refused_in_one_line(tmp_path, content, needle):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ResultError) as err:
        load(path)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_dsn_password_from_url_or_env_and_never_in_repr(monkeypatch):
    e = parse_dsn("mysql://bob:s3cr%40t@db.example:3307/")
    assert (e.user, e.host, e.port, e.password) == ("bob", "db.example", 3307, "s3cr@t")
    assert "s3cr" not in repr(e) and "s3cr" not in e.describe()
    monkeypatch.setenv("LOADGEN_PASSWORD", "fromenv")
    assert parse_dsn("mysql://root@127.0.0.1/").password == "fromenv"


def test_bad_dsn_is_a_usage_error_without_the_password():
    with pytest.raises(UsageError) as err:
        parse_dsn("postgres://u:hunter2@h/")
    assert "hunter2" not in str(err.value)
