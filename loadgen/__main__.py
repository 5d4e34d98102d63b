"""Entry point: run the click app and turn every failure into one line and an exit code."""
from __future__ import annotations

import signal
import sys


def _sigterm_as_interrupt(signum, frame):
    # SIGTERM takes the same path as Ctrl-C, so every `finally` that stops a server or writes a
    # result runs for both.
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    # First, before the imports (a second or more on a busy host): a SIGTERM while they run is an
    # interruption too, exit 130, not a death by the signal (issue #18, N6).
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    try:
        import click

        from . import errors
        from .cli import cli
    except KeyboardInterrupt:
        sys.stderr.write("loadgen: interrupted\n")
        return 130
    _notes_as_lines(errors)
    try:
        # without standalone mode click hands back the code of a click.exceptions.Exit (`status`
        # with no server up) instead of raising it
        returned = cli.main(args=argv, prog_name="loadgen", standalone_mode=False)
        code = returned if isinstance(returned, int) and not isinstance(returned, bool) else errors.EXIT_OK
    except errors.LoadgenError as exc:
        click.echo(f"loadgen: {exc.label}: {exc}", err=True)
        code = exc.exit_code
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.UsageError as exc:
        # click's own usage errors (unknown option, bad choice) keep click's wording, in one line.
        click.echo(f"loadgen: usage error: {exc.format_message()}", err=True)
        if exc.ctx is not None:
            click.echo(f"Try '{exc.ctx.command_path} --help'.", err=True)
        code = errors.EXIT_USAGE
    except click.ClickException as exc:
        click.echo(f"loadgen: error: {exc.format_message()}", err=True)
        code = exc.exit_code
    except (click.Abort, KeyboardInterrupt):
        # never "servers stopped": on a --dsn or `loadgen up` server a DBA would read it as theirs
        click.echo("loadgen: interrupted; servers this command started were stopped (never one it did not start), "
                   "partial results (if any) written", err=True)
        code = errors.EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth a traceback.
        sys.stderr.close()
        code = errors.EXIT_OK
    finally:
        from .results.files import drop_empty_claims

        drop_empty_claims()
    return code


def _notes_as_lines(errors) -> None:
    """An InputNote (a value read from a file replaced, the command going on) as one line on
    stderr, once per message: not Python's "file:line: InputNote:" form, which reads as a crash."""
    import warnings

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, errors.InputNote):
            sys.stderr.write(f"loadgen: note: {message}\n")
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    warnings.filterwarnings("default", category=errors.InputNote)


if __name__ == "__main__":
    sys.exit(main())
