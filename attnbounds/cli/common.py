"""Shared CLI plumbing: one-line usage errors (exit status 2) and JSON output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


class UsageError(click.UsageError):
    """A usage error printed as one line, ``Error: ...``, with exit status 2."""

    def show(self, file=None):
        click.echo(f"Error: {self.format_message()}", err=True)


def _to_json(value):
    """``json.dumps`` fallback: typed records (engine rows) by ``to_dict()``, anything else by ``str``."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else str(value)


def write_json(data, path: str | None) -> None:
    """Write ``data`` as JSON to ``path``, or to stdout when ``path`` is ``-`` or None."""
    text = json.dumps(data, indent=2, default=_to_json)
    if path in (None, "-"):
        sys.stdout.write(text + "\n")
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".partial")
    tmp.write_text(text + "\n")
    tmp.replace(p)  # atomic: an interrupt never leaves a half-written file
