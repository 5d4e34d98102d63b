"""The driver errors that say nothing about a table (issue #18, N6), worded once for every seeding
path: the chat table, a schema file's table and a mix's tables (the mix path used to call an
interrupted seed's 2014 "preparing the mix's tables failed: drop the database")."""
from __future__ import annotations

import MySQLdb
import pytest

from loadgen.errors import WorkloadError
from loadgen.seeding.chunks import is_driver_error, raise_if_not_the_table


def test_an_out_of_sync_connection_is_never_damage():
    exc = MySQLdb.ProgrammingError(2014, "Commands out of sync; you can't run this command now")
    with pytest.raises(WorkloadError, match="out of step while preparing the mix's tables") as info:
        raise_if_not_the_table(exc, "preparing the mix's tables", "nothing is damaged")
    assert "re-run; nothing is damaged" in str(info.value) and "drop" not in str(info.value)


def test_a_lost_server_says_so():
    exc = MySQLdb.OperationalError(2013, "Lost connection to server during query")
    with pytest.raises(WorkloadError, match="lost the server while checking the dataset"):
        raise_if_not_the_table(exc, "checking the dataset", "the table is not damaged")


def test_an_error_raised_while_handling_an_interrupt_is_the_interrupt():
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise MySQLdb.ProgrammingError(2014, "Commands out of sync")  # noqa: B904 - the cleanup's own error
    except MySQLdb.ProgrammingError as exc:
        with pytest.raises(KeyboardInterrupt):
            raise_if_not_the_table(exc, "seeding", "nothing is damaged")


def test_a_table_error_is_left_to_the_caller():
    exc = MySQLdb.OperationalError(1030, "Got error 5 from storage engine")
    raise_if_not_the_table(exc, "seeding", "nothing is damaged")  # returns: the caller words it
    assert is_driver_error(exc) and not is_driver_error(ValueError("x"))
