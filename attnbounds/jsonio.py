"""JSON output shared by every layer: strict JSON, written atomically."""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["write_json"]


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
