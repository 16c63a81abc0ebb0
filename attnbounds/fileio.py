"""Atomic file writes, shared by every layer: a reader sees the old file or the new one.

:func:`atomic_write` writes to a temporary file with a unique name in the target's own
directory (``tempfile.mkstemp``), flushes and ``fsync``\\ s it, and renames it over the
target with ``os.replace`` (atomic on POSIX and on Windows). So:

* an interrupt, an exception or a kill during the write leaves the old file as it was
  (an exception or interrupt also deletes the temporary file; a ``SIGKILL`` leaves it
  behind as a hidden ``.NAME.*.partial`` file, which nothing reads);
* two writers of the same path never write into one temporary file: the path ends up
  holding one writer's complete content, never a mix;
* the new file keeps the permission bits of the file it replaces (a new file gets the
  usual ``0o666`` less the umask, not ``mkstemp``'s ``0o600``).

The parent directory is ``fsync``\\ ed after the rename where the platform allows it, so the
rename itself survives a crash.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> write_text(p, "old")
>>> try:
...     with atomic_write(p) as fh:
...         _ = fh.write("half of the new")
...         raise RuntimeError("interrupted")
... except RuntimeError:
...     pass
>>> p.read_text(), sorted(f.name for f in p.parent.iterdir())
('old', ['out.txt'])
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

__all__ = ["atomic_write", "write_text", "write_bytes", "fsync_dir"]


def _new_file_mode() -> int:
    """``0o666`` less the process umask (what ``open(path, "w")`` would create)."""
    try:
        with open("/proc/self/status") as fh:  # Linux: read the umask without changing it
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, but brief)
    os.umask(mask)
    return 0o666 & ~mask


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_write(path, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None) -> Iterator[IO]:
    """Open a temporary file for writing; on a clean exit it atomically replaces ``path``.

    On an exception inside the ``with`` block, a ``KeyboardInterrupt`` included, the
    temporary file is deleted, ``path`` is left untouched and the exception propagates.

    Parameters
    ----------
    path : str or path-like
        The file to write. Its directory must exist. A symlink is written through (its target
        is replaced, the link stays); a path that exists and is not a regular file (a
        directory, a device, a FIFO) is refused with ``ValueError``.
    mode : str
        ``"w"`` (text) or ``"wb"`` (binary).
    encoding : str or None
        As for ``open`` (text mode only; default UTF-8).
    newline : str or None
        As for ``open`` (text mode only).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode: must be 'w' or 'wb', got {mode!r}")
    path = Path(os.path.realpath(path))  # through a symlink to its target (the link stays a link)
    if path.exists() and not path.is_file():
        raise ValueError(f"path: {str(path)!r} is not a regular file; an atomic write replaces files only")
    directory = path.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"path: directory {str(directory)!r} of {str(path)!r} does not exist")
    try:
        target_mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        target_mode = _new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".partial")
    try:
        kwargs = {} if "b" in mode else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), target_mode)
            else:  # Windows
                os.chmod(tmp, target_mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(directory)


def write_text(path, text: str, *, encoding: str = "utf-8", newline: str | None = None) -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "w", encoding=encoding, newline=newline) as fh:
        fh.write(text)


def write_bytes(path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path, "wb") as fh:
        fh.write(data)
