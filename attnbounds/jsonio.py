"""JSON output shared by every layer: strict JSON, written atomically (:mod:`attnbounds.fileio`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from attnbounds.fileio import write_text

__all__ = ["write_json"]


def _to_json(value):
    """``json.dumps`` fallback: typed records (engine rows) by ``to_dict()``, anything else by ``str``."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else str(value)


def write_json(data, path: str | None) -> None:
    """Write ``data`` as JSON to ``path``, or to stdout when ``path`` is ``-`` or None.

    The file is replaced atomically (:func:`attnbounds.fileio.atomic_write`): a temporary
    file with a unique name in the same directory, fsynced, then renamed over ``path``.
    Its directory must exist: a caller that wants one creates it (a typo in a path is an
    error, not a reason to create directories anywhere).

    Raises
    ------
    FileNotFoundError
        ``path: no such directory '...' (create it first)``.
    """
    text = json.dumps(data, indent=2, default=_to_json)
    if path in (None, "-"):
        sys.stdout.write(text + "\n")
        return
    p = Path(path)
    if not p.parent.is_dir():
        raise FileNotFoundError(f"path: cannot write {str(path)!r}: no such directory {str(p.parent)!r} (create it first)")
    write_text(p, text + "\n")  # atomic: a reader, a second writer or an interrupt never sees half a file
