"""Shared CLI plumbing: one-line usage errors (exit status 2) and JSON output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from attnbounds.jsonio import write_json  # noqa: F401 -- the CLI's JSON output, re-exported
from attnbounds.suggest import close_matches, did_you_mean  # noqa: F401 -- re-exported for the commands


class SignalHook:
    """A handler (``_handler``) for the signal ``signum`` while the block runs, put in place only in
    the main thread (where Python runs handlers) and only where the signal is not ignored (a
    parent that set it to ``SIG_IGN``, as ``nohup`` does for SIGHUP and a shell for a background
    job's SIGINT, asked that it not stop the command), the previous one put back after; ``hit``
    says whether the signal came."""

    signum: int
    #: Set when a SIGTERM came (the CLI's SIGTERM hook, ``attnbounds.cli._Terminated``): a
    #: command's own guard reads it too, where SIGINT is ignored and the guard is not in place
    #: (the SIGTERM hook's KeyboardInterrupt can be dropped inside a gc callback)
    terminated = False

    def __init__(self):
        self.hit = False
        self._previous = None

    def _handler(self, signum, frame):  # pragma: no cover - each subclass has its own
        raise NotImplementedError

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(self.signum) is not signal.SIG_IGN:
            self._previous = signal.signal(self.signum, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        if self._previous is not None:
            signal.signal(self.signum, self._previous)
        return False


class UsageError(click.UsageError):
    """A usage error printed as one line, ``Error: ...``, with exit status 2."""

    def show(self, file=None):
        click.echo(f"Error: {self.format_message()}", err=True)


def refuse_option_like(path, flag: str, *, stdout: bool = True) -> None:
    """Refuse an output path that starts with '-': an option that took the place of the path
    (``--json --strict``: click gives ``--strict`` to ``--json``), not a file to create under that
    name (a file so named is still reachable as ``./-name``). '-' itself means stdout, and is
    refused where ``stdout`` is False (a plot, an output directory)."""
    if path is not None and str(path) == "-" and not stdout:
        raise UsageError(f"{flag}: '-' (stdout) is not possible here: give a path (for one named '-', write ./-)")
    if path is not None and str(path).startswith("-") and str(path) != "-":
        raise UsageError(f"{flag}: {str(path)!r} looks like an option, not a path: {flag} takes a path right "
                         f"after it (for a file so named, write ./{path})")


def path_option(*, stdout: bool = True):
    """A click callback that applies :func:`refuse_option_like` to a path option as click parses
    it: before click's own "unexpected extra argument" for the word after the option that took
    the path's place (``reproduce --verify --out DIR`` said only "Got unexpected extra argument
    (DIR)")."""

    def callback(ctx, param, value):
        refuse_option_like(value, param.opts[0], stdout=stdout)
        return value

    return callback


def check_writable_file(path: str | None, flag: str, *, suffixes: tuple = (), stdout: bool = True) -> None:
    """Fail at once (one line, exit 2) if ``path`` cannot be written, before any heavy work.

    ``None`` passes, and ``-`` (stdout) unless ``stdout`` is False; a path that starts with '-' is
    refused (:func:`refuse_option_like`). The file's directory must exist (a typo in it is an
    error, not a reason to create directories anywhere) and be writable. Nothing is created or
    changed.
    """
    refuse_option_like(path, flag, stdout=stdout)
    if path in (None, "-"):
        return
    p = Path(os.path.abspath(os.path.expanduser(str(path))))
    if suffixes and not p.name.lower().endswith(suffixes):
        raise UsageError(f"{flag}: must end in {', '.join(suffixes)}, got {str(path)!r}")
    p = Path(os.path.realpath(p))  # a symlink is written through: its target is the file
    if p.is_dir():
        raise UsageError(f"{flag}: {str(path)!r} is a directory")
    if p.exists() and not p.is_file():  # a device, a FIFO or a socket: the output is a replaced file
        raise UsageError(f"{flag}: {str(path)!r} is not a regular file (the output replaces a file atomically; "
                         "use '-' for stdout)")
    ancestor = p.parent
    if not ancestor.exists():
        missing = ancestor
        while not missing.parent.exists():
            missing = missing.parent
        if missing.parent.is_dir():
            raise UsageError(f"{flag}: cannot write {str(path)!r}: no such directory {str(ancestor)!r} (create it first)")
        ancestor = missing.parent
    if not ancestor.is_dir():
        raise UsageError(f"{flag}: cannot write {str(path)!r}: {str(ancestor)!r} is not a directory")
    try:  # try it: permission bits do not tell (root, read-only mounts)
        if p.exists():
            with open(p, "ab"):
                pass
        else:
            fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".attnbounds-probe-")
            os.close(fd)
            os.unlink(probe)
    except OSError as err:
        raise UsageError(f"{flag}: cannot write {str(path)!r}: {err.strerror or err}") from None


def load_user_claims(specs) -> list | None:
    """The claims named by ``--claims`` specs (None when there are none), as a usage error if bad
    (``check --claims`` and ``claims --claims``)."""
    if not specs:
        return None
    from attnbounds import claims as registry
    from attnbounds.plugins import PluginError, PluginNotFound

    found = []
    for spec in specs:
        try:
            found.extend(c for c in registry.load_claims(spec) if c not in found)
        except (ValueError, TypeError, PluginNotFound, PluginError) as exc:  # a file that fails to import too, as --normalizer's
            raise UsageError(_claims_text(exc)) from None
    return found


def claims_options(specs) -> str:
    """The ``--claims`` options as typed, for a command line to copy."""
    import shlex

    return " ".join(f"--claims {shlex.quote(s)}" for s in specs)


def _claims_text(exc: Exception) -> str:
    text = str(exc.args[0] if exc.args else exc)
    return "--" + text if text.startswith("claims: ") else f"--claims: {text}"
