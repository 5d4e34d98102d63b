import pytest

from loadgen.errors import UsageError
from loadgen.units import format_bytes, parse_count, parse_size


@pytest.mark.parametrize("text,expected", [
    ("128M", 128 << 20), ("1G", 1 << 30), ("134217728", 134217728), ("128MiB", 128 << 20),
    ("1.5G", 3 << 29), ("16m", 16 << 20), ("512K", 512 << 10), (134217728, 134217728),
])
def test_parse_size_accepts_what_dbas_type(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["12Q", "0", "", "M", "-5M", "1.2.3G", "0M"])
def test_parse_size_rejects_with_a_usage_error(text):
    with pytest.raises(UsageError) as err:
        parse_size(text, "--pool")
    assert err.value.exit_code == 2
    assert "--pool" in str(err.value)


@pytest.mark.parametrize("text,expected", [("200k", 200_000), ("4M", 4_000_000), ("1000000", 1_000_000),
                                           ("1.5M", 1_500_000)])
def test_parse_count_is_decimal(text, expected):
    assert parse_count(text) == expected


@pytest.mark.parametrize("text", ["-5", "0", "ten", "4Q"])
def test_parse_count_rejects(text):
    with pytest.raises(UsageError):
        parse_count(text, "--rows")


def test_format_bytes():
    assert format_bytes(128 << 20) == "128 MiB"
    assert format_bytes(3 << 29) == "1.5 GiB"
    assert format_bytes(100) == "100 B"
