"""Schema files and query templates, judged before any server starts."""
from __future__ import annotations

import os
import re

import pytest

from loadgen.errors import UsageError
from loadgen.seeding.schemas import queried_table, read_schema_file, split_statements
from loadgen.seeding.userquery import check_query, text_format


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
    schema = read_schema_file(f, "shop")
    assert schema.tables == ("one", "two")
    assert queried_table(schema, None) == "one"
    with pytest.raises(UsageError, match="line 2: table two has no PRIMARY KEY"):
        queried_table(schema, "two")
    with pytest.raises(UsageError, match="no such table"):
        queried_table(schema, "three")


def test_a_file_without_create_table_is_refused(tmp_path):
    f = tmp_path / "none.sql"
    f.write_text("-- CREATE TABLE x (id INT PRIMARY KEY);\n/* CREATE TABLE y (id INT PRIMARY KEY); */\n")
    with pytest.raises(UsageError, match="no CREATE TABLE"):
        read_schema_file(f, "chat")


@pytest.mark.parametrize("sql,count", [("SELECT 1", 0), ("SELECT a FROM t WHERE id = ? AND b = ?", 2)])
def test_query_placeholders_are_counted_outside_quotes(sql, count):
    with pytest.raises(UsageError, match=f"{count} \\? placeholders"):
        check_query(sql)


def test_a_question_mark_in_a_string_is_not_a_placeholder():
    sql = check_query("SELECT body FROM message WHERE id = ? AND alias <> '?%'")
    assert text_format(sql) % 42 == b"SELECT body FROM message WHERE id = 42 AND alias <> '?%'"


# -- issue #18 N1: a schema file only creates tables (and their indexes) in --database -------------
TABLE = "CREATE TABLE message (id INT PRIMARY KEY, v VARCHAR(20))"


@pytest.mark.parametrize("statement,line,words,why", [
    ("DROP DATABASE mysql", 2, '"DROP DATABASE mysql"', "not CREATE TABLE"),
    ("CREATE USER 'evil'@'%' IDENTIFIED BY 'evilpw'", 2, '"CREATE USER ..."', "not CREATE TABLE"),
    ("GRANT ALL ON *.* TO 'evil'@'%' WITH GRANT OPTION", 2, "GRANT ALL", "not CREATE TABLE"),
    ("SET GLOBAL general_log_file='/tmp/gl.log'", 2, "SET GLOBAL", "not CREATE TABLE"),
    ("CREATE TABLE IF NOT EXISTS `mysql`.`evilt` (id INT PRIMARY KEY)", 2, "CREATE TABLE IF NOT EXISTS",
     "`mysql`.`evilt` is outside --database chat"),
    ("CREATE TABLE\n  other.t (id INT PRIMARY KEY)", 3, "CREATE TABLE other.t", "is outside --database chat"),
    ("CREATE TABLE c (id INT PRIMARY KEY) SELECT * FROM mysql.user", 2, "CREATE TABLE c", "SELECT"),
    ("CREATE TABLE c AS TABLE message", 2, "CREATE TABLE c", "CREATE TABLE ... SELECT"),
    ("CREATE TABLE c (id INT PRIMARY KEY) DATA DIRECTORY = '/tmp'", 2, "CREATE TABLE c", "DATA DIRECTORY"),
    ("CREATE TABLE c (id INT PRIMARY KEY)\nPARTITION BY HASH (id) (PARTITION p0 INDEX DIRECTORY '/tmp')", 3,
     "CREATE TABLE c", "INDEX DIRECTORY"),
    ("CREATE TABLE c (id INT PRIMARY KEY) ENGINE=MERGE UNION=(mysql.user)", 2, "CREATE TABLE c", "UNION"),
    ("CREATE TABLE c (id INT PRIMARY KEY) ENGINE=CONNECT TABLE_TYPE=CSV FILE_NAME='/etc/shadow'", 2,
     "CREATE TABLE c", "ENGINE=CONNECT"),
    ("CREATE TEMPORARY TABLE c (id INT PRIMARY KEY)", 2, "CREATE TEMPORARY TABLE", "not CREATE TABLE"),
    ("CREATE TRIGGER tr BEFORE INSERT ON message FOR EACH ROW SET NEW.v = 'x'", 2, "CREATE TRIGGER",
     "not CREATE TABLE"),
    ("CREATE INDEX i ON elsewhere (v)", 2, "CREATE INDEX i ON elsewhere", "does not create before it"),
    ("ALTER TABLE message ADD INDEX i (v), RENAME TO x", 2, "ALTER TABLE message", "only ADD INDEX"),
    ("ALTER TABLE message ADD INDEX i (v) ENGINE=MyISAM", 2, "ALTER TABLE message", "only index options"),
    ("CREATE TABLE c (id INT PRIMARY KEY) /*!50000 ; DROP DATABASE mysql */", 2, "CREATE TABLE c",
     "executable comment /*!"),
    ("/*M!100000 DROP DATABASE mysql */", 2, '"..."', "executable comment /*M!"),
    ("CREATE TABLE loadgen_meta (k INT PRIMARY KEY)", 2, "CREATE TABLE loadgen_meta", "loadgen's own"),
])
def test_a_schema_file_may_only_create_tables_in_its_database(tmp_path, statement, line, words, why):
    f = tmp_path / "hostile.sql"
    f.write_text(f"{TABLE};\n{statement};\n")
    with pytest.raises(UsageError) as err:
        read_schema_file(f, "chat")
    text = str(err.value)
    assert text.startswith(f"{f} line {line}: "), text
    assert words in text and why in text and "\n" not in text, text
    assert "evilpw" not in text  # a statement's strings may be passwords: never printed


def test_a_symlink_to_a_secret_shows_nothing_of_it(tmp_path):
    """A pull request's schema file may be a symlink to a file of the CI host (a key, a password
    file): the error names the file and the line, and none of its text past a first word."""
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n")
    shadow = tmp_path / "shadow"
    shadow.write_text("root:$6$Zp9Xk2$Vh1q3mY0pQ:19000:0:99999:7:::\n")
    for target in (secret, shadow):
        link = tmp_path / f"{target.name}.sql"
        link.symlink_to(target)
        with pytest.raises(UsageError) as err:
            read_schema_file(link, "chat")
        text = str(err.value)
        assert f"{link} line " in text
        assert "b3Bl" not in text and "BEGIN" not in text and "Zp9Xk2" not in text and "root:" not in text, text


def test_tables_their_indexes_and_partitions_are_accepted(tmp_path):
    f = tmp_path / "ok.sql"
    f.write_text(f"{TABLE} ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT 'DROP DATABASE mysql; -- no';\n"
                 "CREATE TABLE IF NOT EXISTS chat.`log` (id BIGINT, at DATETIME, n DECIMAL(5,2) DEFAULT .5,\n"
                 "  `select` INT, PRIMARY KEY (id, at)) PARTITION BY RANGE COLUMNS (at)\n"
                 "  (PARTITION p0 VALUES LESS THAN ('2024-01-01'), PARTITION p1 VALUES LESS THAN (MAXVALUE));\n"
                 "CREATE UNIQUE INDEX by_v ON message (v) USING BTREE COMMENT 'x';\n"
                 "ALTER TABLE chat.log ADD INDEX by_n (n), ADD KEY by_sel (`select`) ALGORITHM=INPLACE;\n"
                 "CREATE TABLE copy LIKE message;\n")
    assert read_schema_file(f, "chat").tables == ("message", "log", "copy")


def test_an_executable_comment_is_refused_even_where_it_would_close_a_statement(tmp_path):
    """A `;` inside /*! */ is not a statement boundary to the splitter: the comment stays in its
    statement, whose line the error names, and the whole of it is refused."""
    f = tmp_path / "x.sql"
    f.write_text("/* plain; comment */\n" + TABLE + " /*!40101\n ; DROP DATABASE mysql */;\n")
    with pytest.raises(UsageError, match="line 2: .*executable comment"):
        read_schema_file(f, "chat")
    st = split_statements(f.read_text())
    assert len(st) == 1 and "DROP DATABASE" in st[0].sql


@pytest.mark.parametrize("make,needle", [
    (lambda p: os.mkfifo(p), "is a pipe, not a schema file"),
    (lambda p: p.symlink_to("/dev/zero"), "is a device, not a schema file"),
    (lambda p: p.write_bytes(b"-- " + b"x" * (16 << 20) + b"\n"), "more than a schema file may be"),
    (lambda p: p.write_bytes(b"CREATE TABLE t (id INT PRIMARY KEY);\x00\n"), "NUL"),
    (lambda p: p.write_bytes(b"CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(2) DEFAULT '\xff');\n"), "not UTF-8"),
])
def test_a_schema_file_is_a_regular_text_file_of_at_most_16_MiB(tmp_path, make, needle):
    """Issue #18 N4: /dev/zero as --schema grew until a MemoryError; a FIFO hung."""
    p = tmp_path / "s.sql"
    make(p)
    with pytest.raises(UsageError, match=needle):
        read_schema_file(p, "chat")


@pytest.mark.parametrize("sql,needle", [
    ("SELECT alias FROM message WHERE id = ? INTO OUTFILE '/tmp/x'", "holds INTO"),
    ("SELECT alias FROM message WHERE id = ? INTO DUMPFILE '/tmp/x'", "holds INTO"),
    ("SELECT alias INTO @a FROM message WHERE id = ?", "holds INTO"),
    ("SELECT alias FROM message WHERE id = ? FOR UPDATE", "holds FOR UPDATE"),
    ("SELECT alias FROM message WHERE id = ? FOR SHARE", "holds FOR SHARE"),
    ("SELECT alias FROM message WHERE id = ? LOCK IN SHARE MODE", "holds LOCK IN SHARE MODE"),
    ("SELECT alias, (SELECT 1 FROM message FOR UPDATE) FROM message WHERE id = ?", "holds FOR UPDATE"),
    ("SELECT alias FROM message WHERE id = ? /*!50000 INTO OUTFILE '/tmp/x' */", "executable comment /*!"),
    ("SELECT alias FROM message WHERE id = ? /*M!100000 FOR UPDATE */", "executable comment /*M!"),
    ("SELECT alias FROM message WHERE id = ? --1 INTO OUTFILE '/tmp/x'", "holds INTO"),  # --1: minus minus 1
    ("SELECT alias FROM message WHERE id = ? AND \"x\\\" INTO OUTFILE '/tmp/x' -- \"", "backslash before a quote"),
    ("WITH c AS (SELECT 1) DELETE FROM message WHERE id = ?", "holds DELETE"),
    ("SELECT alias FROM message WHERE id = ?; SELECT 1", "more than one statement"),
    # the red-team replay of #18: functions that read host files, stall or lock
    ("SELECT LOAD_FILE('/etc/shadow') FROM message WHERE id = ?", "calls LOAD_FILE()"),
    ("SELECT alias FROM message WHERE id = ? AND get_lock ('x', 10)", "calls GET_LOCK()"),
    ("SELECT alias FROM message WHERE id = ? AND SLEEP(1) = 0", "calls SLEEP()"),
    ("SELECT BENCHMARK(1000000, MD5('x')) FROM message WHERE id = ?", "calls BENCHMARK()"),
])
def test_a_query_that_writes_or_locks_is_refused(sql, needle):
    """Issue #18 N7: INTO OUTFILE passed the SELECT check and ran (a file on the database host where
    secure_file_priv is empty); the clauses count outside quotes and comments, as the server reads them."""
    with pytest.raises(UsageError, match=re.escape(needle)):
        check_query(sql)


@pytest.mark.parametrize("sql", [
    "SELECT alias FROM message WHERE id = ? -- INTO OUTFILE '/tmp/x' ?",
    "SELECT alias FROM message WHERE id = ? # FOR UPDATE",
    "SELECT `into`, 'FOR UPDATE; ?' FROM message WHERE id = ? AND alias = 'it''s'",
    "SELECT /*+ NO_ICP(message) */ alias FROM message FORCE INDEX FOR JOIN (PRIMARY) WHERE id = ?;",
    "SELECT alias, 'SLEEP(5)', `sleep` FROM message WHERE id = ? -- LOAD_FILE('/etc/shadow')",
])
def test_reads_with_such_words_in_quotes_and_comments_pass(sql):
    check_query(sql)
    assert text_format(sql).count(b"%d") == 1


def test_an_unknown_schema_lists_the_built_ins_or_says_they_are_gone(monkeypatch, tmp_path):
    """An editable install whose checkout moved found no built-in schema and said "choose one of: "."""
    from loadgen.seeding import dataset

    with pytest.raises(UsageError) as got:
        dataset.schema_text("tpcc")
    assert "choose one of: " in str(got.value.hint) and "chat" in str(got.value.hint)
    monkeypatch.setattr(dataset, "schema_dir", lambda: tmp_path)
    with pytest.raises(UsageError) as got:
        dataset.schema_text("chat")
    assert "missing from" in str(got.value.hint) and "reinstall" in str(got.value.hint)
