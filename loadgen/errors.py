"""The one error hierarchy loadgen raises; __main__ maps it to a one-line message and an exit code.

Every message says what went wrong *and* what to do about it, because the user sees nothing else
(no traceback).
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_REGRESSION = 3
EXIT_INTERRUPTED = 130


class LoadgenError(Exception):
    """A failure the user can act on. str(err) is the whole one-line message."""

    exit_code = EXIT_ERROR
    label = "error"  # the word after "loadgen:" on stderr

    def __init__(self, message: str, hint: str | None = None):
        self.message = message
        self.hint = hint
        super().__init__(message if not hint else f"{message}; {hint}")


class UsageError(LoadgenError):
    """Bad input on the command line: malformed size, unknown variation, ..."""

    exit_code = EXIT_USAGE


class SchemaRefused(UsageError):
    """The server refused a schema file's table (a statement, or a table without a primary key):
    the dataset it was to hold can never be made, so what was made for it goes (provision.py)."""


class ProvisionError(LoadgenError):
    """No server could be started or reached."""


class SeedError(LoadgenError):
    """The dataset could not be created or verified."""


class WorkloadError(LoadgenError):
    """The run could not complete (server died, connection lost)."""


class ResultError(LoadgenError):
    """A result file is missing, truncated, or of another format."""


class VersionError(ResultError):
    """A result file of a format_version this loadgen does not read."""


class BadValueError(ResultError):
    """A result file holds a counter loadgen never writes (NaN, negative, a string): compare
    refuses it rather than gate or divide by it."""

    exit_code = EXIT_USAGE


class GateError(LoadgenError):
    """compare --max-regression was given a result it cannot judge (incomplete, another
    format_version, without the gated metric): the gate refuses instead of passing it."""

    exit_code = EXIT_USAGE


class RegressionError(LoadgenError):
    """compare BASE NEW: a metric got worse by more than --max-regression allows."""

    exit_code = EXIT_REGRESSION
    label = "regression"


class InputNote(UserWarning):
    """Something read from a file was not believed and was replaced, and the command went on:
    warnings.warn(message, InputNote) from the core; __main__ prints it as one "loadgen: note:"
    line on stderr, so a prediction made with a replaced value never looks like one made without."""


class Interrupted(LoadgenError):
    """Ctrl-C or SIGTERM; whatever was measured has been written."""

    exit_code = EXIT_INTERRUPTED
