"""The ``attnbounds`` command line: ``claims``, ``derive``, ``check``, ``reproduce``.

Subcommands are imported lazily so that ``attnbounds claims`` does not pay for torch.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

import click

from attnbounds.cli.common import SignalHook

# command name -> (module, attribute)
_COMMANDS = {
    "claims": ("attnbounds.cli.claims", "claims"),
    "derive": ("attnbounds.cli.derive", "derive"),
    "check": ("attnbounds.cli.check", "check"),
    "reproduce": ("attnbounds.cli.reproduce", "reproduce"),
}


class _Terminated(SignalHook):
    """SIGTERM (``kill PID``, a job scheduler's stop) taken as Ctrl-C is: through the
    SIGINT handler in place (``check``'s guard, or Python's), so that each command's interrupt path
    runs (the rows finished so far written, the windows saved named); the exit status is then
    143 (128 + SIGTERM), not 130. A second SIGTERM kills at once. Only in the main thread; the
    previous handler is put back."""

    signum = signal.SIGTERM

    def __enter__(self):
        SignalHook.terminated = False
        return super().__enter__()

    def __exit__(self, *exc):
        SignalHook.terminated = False
        return super().__exit__(*exc)

    def _handler(self, signum, frame):
        self.hit = True
        SignalHook.terminated = True  # read by check's guard even where SIGINT is ignored
        # a second SIGTERM kills at once: a KeyboardInterrupt raised inside a gc callback is dropped by
        # Python, and a command without check's guard would then go on (the first was not lost in vain)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        on_int = signal.getsignal(signal.SIGINT)
        if callable(on_int):  # check's guard sets its flag and raises; Python's raises KeyboardInterrupt
            on_int(signal.SIGINT, frame)
        raise KeyboardInterrupt  # SIGINT ignored (a background job of a script) or left to the default

    def status(self, code):
        return 143 if self.hit and code == 130 else code


_RESUMABLE = ("check", "reproduce")  # the commands that keep what they computed when interrupted


class _LazyGroup(click.Group):
    """Lazy subcommands; an interrupt exits 130 (143 for SIGTERM) and an unexpected error is one line
    (``--debug``: traceback)."""

    def invoke(self, ctx):
        with _Terminated() as term:
            try:
                return self._invoke(ctx)
            except click.exceptions.Exit as exc:
                if term.status(exc.exit_code) != exc.exit_code:
                    ctx.exit(term.status(exc.exit_code))
                raise
            except SystemExit as exc:
                if isinstance(exc.code, int) and term.status(exc.code) != exc.code:
                    raise SystemExit(term.status(exc.code)) from None
                raise

    def _invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # only check and reproduce save as they go (derive, claims: nothing to resume)
            resumable = ctx.invoked_subcommand in _RESUMABLE
            click.echo("Interrupted (rerun the same command to resume from what was saved)." if resumable
                       else "Interrupted.", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            fd = _stdout_without_reader()
            if fd is None:  # another pipe (a download, a subprocess): an error like any other
                if _debug(ctx):
                    raise
                click.echo("Error: BrokenPipeError: a pipe closed (rerun with --debug for the traceback)", err=True)
                ctx.exit(1)
            # stdout's reader went away (`| head`): quiet, as a process ended by SIGPIPE
            os.dup2(os.open(os.devnull, os.O_WRONLY), fd)  # the exit's own flush of stdout has nowhere to fail
            ctx.exit(141)
        except click.UsageError as exc:  # click's own (bad option values): one line too, not usage + hint
            from attnbounds.cli.common import UsageError

            if isinstance(exc, UsageError):
                raise
            raise UsageError(" ".join(exc.format_message().split())) from None
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - the last line of defence against tracebacks
            if _debug(ctx):
                raise
            text = " ".join(str(exc).split()) or type(exc).__name__
            click.echo(f"Error: {type(exc).__name__}: {text} (rerun with --debug for the traceback)", err=True)
            ctx.exit(1)

    def list_commands(self, ctx):
        return [name for name, (mod, _) in _COMMANDS.items() if importlib.util.find_spec(mod)]

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        mod, attr = _COMMANDS[name]
        return getattr(importlib.import_module(mod), attr)


def _stdout_without_reader() -> int | None:
    """stdout's file descriptor when it is a pipe whose reader has gone (poll reports an error
    on its write end), else None."""
    import select

    try:
        fd = sys.stdout.fileno()
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        gone = any(event & select.POLLERR for _, event in poll.poll(0))
    except (AttributeError, OSError, ValueError):  # no real stdout (captured output), or no poll
        return None
    return fd if gone else None


def _debug(ctx) -> bool:
    return bool(ctx.meta.get("attnbounds.debug")) or os.environ.get("ATTNBOUNDS_DEBUG", "") not in ("", "0")


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="attnbounds", prog_name="attnbounds")
@click.option("--debug", is_flag=True, help="Show the full traceback of an error, and of every error a row records (also ATTNBOUNDS_DEBUG=1).")
@click.pass_context
def main(ctx, debug):
    """Check theorems about attention: symbolically, numerically, and on real models."""
    ctx.meta["attnbounds.debug"] = debug
    if debug:  # the engine's rows print the traceback of an error they record (attnbounds.engine.rows.debug_tracebacks),
        # for this command only (a process that runs several, as the tests do, keeps its own setting)
        before = os.environ.get("ATTNBOUNDS_DEBUG")
        os.environ["ATTNBOUNDS_DEBUG"] = "1"

        def restore():
            if before is None:
                os.environ.pop("ATTNBOUNDS_DEBUG", None)
            else:
                os.environ["ATTNBOUNDS_DEBUG"] = before

        ctx.call_on_close(restore)


def run(args=None) -> None:
    """The console script (``attnbounds``, ``python -m attnbounds``): :func:`main`, then the
    process ends as soon as its work is done. Python's own teardown of a process that imported
    torch, numba and SymPy took about 2 s after the last line was printed (a trial: measured on
    ``reproduce``, in the interpreter's finalization, after every atexit function had run), so
    the interpreter is not torn down: threads that were not daemons are joined, the atexit
    functions run and the standard streams are flushed, as Python's exit does, and the process
    exits with ``main``'s status. :func:`main` itself (the tests' ``CliRunner``, a caller's own
    process) is unchanged."""
    try:
        main(args=args)
        code = 0
    except SystemExit as exc:
        code = exc.code
    _exit_now(code)


def _exit_now(code) -> None:
    """Python's exit for status ``code`` (None: 0; a str: printed to stderr, status 1) without
    the interpreter's teardown: non-daemon threads joined, atexit functions run, stdout and
    stderr flushed, then ``os._exit``."""
    import atexit
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: Python's exit reports nothing either way here
            pass
    os._exit(status & 0xFF)
