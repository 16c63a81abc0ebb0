"""Shared CLI plumbing: one-line usage errors (exit status 2) and JSON output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from attnbounds.jsonio import write_json  # noqa: F401 -- the CLI's JSON output, re-exported
from attnbounds.suggest import close_matches, did_you_mean  # noqa: F401 -- re-exported for the commands


class UsageError(click.UsageError):
    """A usage error printed as one line, ``Error: ...``, with exit status 2."""

    def show(self, file=None):
        click.echo(f"Error: {self.format_message()}", err=True)


def check_writable_file(path: str | None, flag: str, *, suffixes: tuple = ()) -> None:
    """Fail at once (one line, exit 2) if ``path`` cannot be written, before any heavy work.

    ``None`` and ``-`` (stdout) pass. The file's directory must exist (a typo in it is an
    error, not a reason to create directories anywhere) and be writable. Nothing is created
    or changed.
    """
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
