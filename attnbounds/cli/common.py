"""Shared CLI plumbing: one-line usage errors (exit status 2) and JSON output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from attnbounds.jsonio import write_json  # noqa: F401 -- the CLI's JSON output, re-exported


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
    if p.is_dir():
        raise UsageError(f"{flag}: {str(path)!r} is a directory")
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


def close_matches(word: str, choices, n: int = 3) -> list[str]:
    """Up to ``n`` of ``choices`` close to ``word`` (:func:`difflib.get_close_matches`, ignoring case;
    cutoff 0.5, so that a two-character id such as ``L9`` still finds ``L1``).

    >>> close_matches("l9", ["L1", "C1", "T1i", "L2"])
    ['L1', 'L2']
    >>> close_matches("T1i:transcribd", ["T1i:transcribed", "T1ii:transcribed", "L1"], n=1)
    ['T1i:transcribed']
    """
    import difflib

    by_lower: dict[str, str] = {}
    for c in choices:
        by_lower.setdefault(str(c).lower(), str(c))
    order = {c: i for i, c in enumerate(by_lower)}
    word = str(word).lower()
    found = difflib.get_close_matches(word, list(by_lower), n=n, cutoff=0.5)
    # the closest first; equally close ones in the order of ``choices`` (difflib: reverse alphabetical)
    found.sort(key=lambda m: (-difflib.SequenceMatcher(None, word, m).ratio(), order[m]))
    return [by_lower[m] for m in found]


def did_you_mean(word: str, choices, n: int = 3) -> str:
    """``" (did you mean 'A' or 'B'?)"`` for the close matches of ``word``, or ``""`` without any.

    >>> did_you_mean("gpt-2", ["gpt2", "gpt2-random", "minilm"])
    " (did you mean 'gpt2' or 'gpt2-random'?)"
    >>> did_you_mean("zzz", ["gpt2"])
    ''
    """
    found = [repr(m) for m in close_matches(word, choices, n)]
    if not found:
        return ""
    return f" (did you mean {found[0] if len(found) == 1 else ', '.join(found[:-1]) + ' or ' + found[-1]}?)"
