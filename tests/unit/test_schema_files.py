"""Schema files and query templates, judged before any server starts."""
from __future__ import annotations

import pytest

from loadgen.errors import UsageError
from loadgen.schemas import queried_table, read_schema_file, split_statements
from loadgen.usertable import check_query, text_format


def test_statements_keep_their_first_line_and_ignore_semicolons_in_quotes_and_comments():
    text = ("-- header; not a statement\n"
            "CREATE TABLE a (id INT PRIMARY KEY, s VARCHAR(5) DEFAULT ';');\n"
            "/* a block;\n comment */\n"
            "\n"
            "CREATE TABLE `b` (\n  id INT,\n  PRIMARY KEY (id)\n) # trailing; comment\n;\n")
    st = split_statements(text)
    assert [s.line for s in st] == [2, 6]
    assert "DEFAULT ';'" in st[0].sql and st[1].sql.startswith("CREATE TABLE `b`")


def test_the_queried_table_is_the_first_or_the_named_one(tmp_path):
    f = tmp_path / "two.sql"
    f.write_text("CREATE TABLE one (id INT PRIMARY KEY);\nCREATE TABLE IF NOT EXISTS shop.two (id INT, k INT);\n")
    schema = read_schema_file(f)
    assert schema.tables == ("one", "two")
    assert queried_table(schema, None) == "one"
    with pytest.raises(UsageError, match="line 2: table two has no PRIMARY KEY"):
        queried_table(schema, "two")
    with pytest.raises(UsageError, match="no such table"):
        queried_table(schema, "three")


def test_a_file_without_create_table_is_refused(tmp_path):
    f = tmp_path / "none.sql"
    f.write_text("-- CREATE TABLE x (id INT PRIMARY KEY);\nSELECT 1;\n")
    with pytest.raises(UsageError, match="no CREATE TABLE"):
        read_schema_file(f)


@pytest.mark.parametrize("sql,count", [("SELECT 1", 0), ("SELECT a FROM t WHERE id = ? AND b = ?", 2)])
def test_query_placeholders_are_counted_outside_quotes(sql, count):
    with pytest.raises(UsageError, match=f"{count} \\? placeholders"):
        check_query(sql)


def test_a_question_mark_in_a_string_is_not_a_placeholder():
    sql = check_query("SELECT body FROM message WHERE id = ? AND alias <> '?%'")
    assert text_format(sql) % 42 == b"SELECT body FROM message WHERE id = 42 AND alias <> '?%'"
