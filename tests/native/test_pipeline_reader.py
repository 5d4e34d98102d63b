"""The pipelined driver's protocol reader (native/pipeline.c, pl_read) over hand-made packets:
every kind of response a COM_STMT_EXECUTE can get, both result-set endings, MariaDB's cached
metadata, responses split anywhere, and the refusals. No server: the bytes are built here from
the protocol's description, so the reader is checked against the protocol, not against itself."""
from __future__ import annotations

import struct

import pytest

from loadgen.drivers.native import row_digest

T_LONG, T_LONGLONG, T_VARCHAR, T_VAR_STRING = 3, 8, 15, 253


@pytest.fixture(scope="module")
def parse():
    from loadgen import native

    fn = getattr(native.extension(), "pipeline_parse", None)
    if fn is None:
        pytest.skip("loadgen._native has no pipeline_parse (built without libmariadb)")
    return fn


def lenenc(n: int) -> bytes:
    if n < 0xFB:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


def lstr(b: bytes) -> bytes:
    return lenenc(len(b)) + b


class Response:
    """Packets of one response, numbered from sequence id 1 (the command went out with 0)."""

    def __init__(self):
        self.packets: list[bytes] = []

    def add(self, payload: bytes) -> Response:
        self.packets.append(payload)
        return self

    def bytes(self) -> bytes:
        return b"".join(struct.pack("<I", len(p))[:3] + bytes([(i + 1) & 0xFF]) + p
                        for i, p in enumerate(self.packets))


def ok(status: int = 2) -> bytes:
    return b"\x00" + lenenc(0) + lenenc(0) + struct.pack("<HH", status, 0)


def eof(status: int = 2) -> bytes:
    return b"\xfe" + struct.pack("<HH", 0, status)


def err(code: int, message: str) -> bytes:
    return b"\xff" + struct.pack("<H", code) + b"#42S02" + message.encode()


def coldef(name: bytes, type_: int) -> bytes:
    return (lstr(b"def") + lstr(b"chat") + lstr(b"message") + lstr(b"message") + lstr(name) + lstr(name)
            + b"\x0c" + struct.pack("<HIBHB", 45, 160, type_, 0, 0) + b"\x00\x00")


def binrow(values: list, types: list[int]) -> bytes:
    bitmap = bytearray((len(values) + 7 + 2) // 8)
    body = b""
    for i, (v, t) in enumerate(zip(values, types)):
        if v is None:
            bitmap[(i + 2) // 8] |= 1 << ((i + 2) % 8)
        elif t == T_LONG:
            body += struct.pack("<i", v)
        elif t == T_LONGLONG:
            body += struct.pack("<Q", v)
        else:
            body += lstr(v)
    return b"\x00" + bytes(bitmap) + body


def result_set(rows: list[list], types: list[int], *, deprecate_eof=False, cache_byte=None, final_status=2):
    r = Response()
    head = lenenc(len(types)) + (b"" if cache_byte is None else bytes([cache_byte]))
    r.add(head)
    if cache_byte in (None, 1):
        for i, t in enumerate(types):
            r.add(coldef(b"c%d" % i, t))
    if not deprecate_eof:
        r.add(eof())
    for row in rows:
        r.add(binrow(row, types))
    r.add(b"\xfe" + ok(final_status)[1:] if deprecate_eof else eof(final_status))
    return r.bytes()


STR = bytes([T_VARCHAR])
NOT_UNSIGNED = b"\x00"


def test_eof_terminated_result_sets_give_rows_and_the_drivers_digest(parse):
    data = result_set([[b"alias-1"]], [T_VARCHAR]) + result_set([], [T_VARCHAR]) + result_set(
        [[b"x" * 300], [b""]], [T_VARCHAR])
    responses, used, digest, error = parse(data, STR, NOT_UNSIGNED, False, True)
    assert error is None and used == len(data)
    assert [(rows, code) for rows, code, _ in responses] == [(1, 0), (0, 0), (2, 0)]
    # querydrv.c digests at most 256 bytes of a value: the same here.
    assert digest == row_digest([(b"alias-1",), (b"x" * 300,), (b"",)])


def test_ok_terminated_result_sets_with_deprecate_eof(parse):
    data = result_set([[b"a"], [b"b"]], [T_VARCHAR], deprecate_eof=True) * 3
    responses, used, digest, error = parse(data, STR, NOT_UNSIGNED, True, True)
    assert error is None and used == len(data)
    assert [r[0] for r in responses] == [2, 2, 2]
    assert digest == row_digest([(b"a",), (b"b",)] * 3)
    # The same bytes read as if EOF packets were due: the first row is not an EOF.
    _, _, _, error = parse(data, STR, NOT_UNSIGNED, False, True)
    assert error and "EOF" in error


@pytest.mark.parametrize("deprecate_eof", [False, True])
def test_mariadb_cached_metadata_skips_the_column_definitions(parse, deprecate_eof):
    sent = result_set([[b"v"]], [T_VARCHAR], deprecate_eof=deprecate_eof, cache_byte=1)
    cached = result_set([[b"w"]], [T_VARCHAR], deprecate_eof=deprecate_eof, cache_byte=0)
    responses, used, digest, error = parse(sent + cached + cached, STR, NOT_UNSIGNED, deprecate_eof, True)
    assert error is None and used == len(sent) + 2 * len(cached)
    assert [r[0] for r in responses] == [1, 1, 1]
    assert digest == row_digest([(b"v",), (b"w",), (b"w",)])


def test_ok_and_err_responses(parse):
    data = Response().add(ok()).bytes() + Response().add(err(1146, "Table 'chat.message' doesn't exist")).bytes()
    responses, used, _, error = parse(data, STR, NOT_UNSIGNED, False, False)
    assert error is None and used == len(data)
    assert responses[0] == (0, 0, "")
    assert responses[1] == (0, 1146, "Table 'chat.message' doesn't exist")


def test_an_error_in_the_middle_of_the_rows_ends_that_response(parse):
    r = Response().add(lenenc(1)).add(coldef(b"alias", T_VARCHAR)).add(eof()).add(binrow([b"a"], [T_VARCHAR]))
    r.add(err(1317, "Query execution was interrupted"))
    data = r.bytes() + result_set([[b"b"]], [T_VARCHAR])
    responses, used, _, error = parse(data, STR, NOT_UNSIGNED, False, False)
    assert error is None and used == len(data)
    assert [(rows, code) for rows, code, _ in responses] == [(1, 1317), (1, 0)]


def test_nulls_and_integers_digest_as_the_one_at_a_time_driver_sees_them(parse):
    types = [T_VARCHAR, T_LONG, T_LONGLONG]
    rows = [[b"a", -7, 2**64 - 1], [None, 2**31 - 1, None], [b"", None, 0]]
    data = result_set(rows, types)
    responses, _, digest, error = parse(data, bytes(types), bytes([0, 0, 1]), False, True)
    assert error is None and responses[0][0] == 3
    # libmariadb hands integers to a MYSQL_TYPE_STRING bind as decimal text.
    assert digest == row_digest([(b"a", b"-7", str(2**64 - 1).encode()), (None, str(2**31 - 1).encode(), None),
                                 (b"", None, b"0")])


def test_more_results_keep_one_response_open(parse):
    # Two results of one command (SERVER_MORE_RESULTS_EXIST on the first's EOF): one sequence.
    r = Response()
    for value, status in ((b"a", 2 | 8), (b"b", 2)):
        r.add(lenenc(1)).add(coldef(b"c", T_VARCHAR)).add(eof()).add(binrow([value], [T_VARCHAR])).add(eof(status))
    data = r.bytes()
    responses, used, _, error = parse(data, STR, NOT_UNSIGNED, False, False)
    assert error is None and used == len(data)
    assert responses == [(2, 0, "")]


def test_a_response_split_anywhere_waits_for_the_rest(parse):
    whole = result_set([[b"abc"], [b"def"]], [T_VARCHAR]) + result_set([[b"g"]], [T_VARCHAR])
    first_len = len(result_set([[b"abc"], [b"def"]], [T_VARCHAR]))
    for cut in range(len(whole)):
        responses, used, _, error = parse(whole[:cut], STR, NOT_UNSIGNED, False, False)
        assert error is None
        assert used <= cut
        assert len(responses) == (1 if cut >= first_len else 0)


def test_a_wrong_sequence_id_is_refused(parse):
    data = bytearray(result_set([[b"a"]], [T_VARCHAR]))
    data[3] = 0  # the first packet should carry 1
    _, used, _, error = parse(bytes(data), STR, NOT_UNSIGNED, False, False)
    assert used == 0 and "sequence id 0 where 1 was due" in error


def test_packets_of_16_mib_are_refused_not_misread(parse):
    data = b"\xff\xff\xff\x01" + b"\x00" * 64
    _, _, _, error = parse(data, STR, NOT_UNSIGNED, False, False)
    assert "16 MiB" in error


def test_a_column_count_other_than_the_prepared_one_is_refused(parse):
    data = result_set([[b"a", b"b"]], [T_VARCHAR, T_VARCHAR])
    _, _, _, error = parse(data, STR, NOT_UNSIGNED, False, False)
    assert "2 columns" in error


def test_a_truncated_row_is_refused(parse):
    r = Response().add(lenenc(1)).add(coldef(b"alias", T_VARCHAR)).add(eof()).add(b"\x00\x00" + lenenc(10) + b"abc")
    _, _, _, error = parse(r.bytes(), STR, NOT_UNSIGNED, False, False)
    assert "ends inside" in error


def test_an_ok_response_counts_the_rows_the_statement_changed(parse):
    """A pipelined write (a mix's update, insert or delete) answers OK with its affected rows:
    they are its rows, as mysql_stmt_affected_rows gives the one-at-a-time loops."""
    changed = b"\x00" + lenenc(3) + lenenc(0) + struct.pack("<HH", 2, 0)
    data = Response().add(changed).bytes() + Response().add(ok()).bytes()
    responses, used, _, error = parse(data, STR, NOT_UNSIGNED, False, False)
    assert error is None and used == len(data)
    assert [r[0] for r in responses] == [3, 0]
