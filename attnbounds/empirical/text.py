"""Text for the experiments: Project Gutenberg loading, chapters, token windows.

The paper feeds GPT-2 consecutive chapters of *War and Peace* (Project Gutenberg
#2600). The pipeline:

1. :func:`load_text` reads a local file or ``"gutenberg:ID"`` and, when the text has
   Project Gutenberg markers, keeps what lies between ``*** START OF THE/THIS PROJECT
   GUTENBERG EBOOK ... ***`` and ``*** END OF ...``. A file without the START marker is
   returned verbatim (only a leading UTF-8 byte-order mark, an encoding marker, is
   dropped).
2. :func:`chapters` splits a text at chapter headings: lines that start at column 0
   with ``CHAPTER`` and a Roman or Arabic numeral (the indented table of contents does
   not match). Book headings (``BOOK ONE: 1805``, ``FIRST EPILOGUE: ...``) close the
   chapter before them and are not part of any chapter. A text without headings is one
   chapter.
3. :func:`token_windows` joins the chapters from ``start_chapter`` on (headings
   dropped, paragraphs separated by a blank line, and by default the hard line wraps of
   the e-book undone inside paragraphs), tokenizes without special tokens, and cuts
   ``count`` consecutive non-overlapping windows of ``length`` tokens.
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attnbounds.fileio import write_bytes
from attnbounds.numerics.validation import check_count

GUTENBERG_URL = "https://www.gutenberg.org/cache/epub/{id}/pg{id}.txt"
WAR_AND_PEACE = "gutenberg:2600"

_START = re.compile(r"^\*\*\*\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$", re.M | re.I)
_END = re.compile(r"^\*\*\*\s*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$", re.M | re.I)
_END_LINE = re.compile(r"\n\s*End of (?:the )?Project Gutenberg(?:'s)? E-?Book\b[^\n]*\Z", re.I)
_CHAPTER = re.compile(r"^CHAPTER\s+(?:[IVXLCDM]+|\d+)\b.*$", re.M)
_BOOK = re.compile(r"^(?:BOOK\s+[A-Z]+\b.*|(?:[A-Z]+\s+)?EPILOGUE\b.*)$", re.M)


@dataclass(frozen=True)
class Chapter:
    """One chapter: its heading, the book heading above it, and its body text."""

    index: int  # 0-based position among all chapters of the text
    title: str  # e.g. "CHAPTER I"; "" for a text without headings
    book: str  # e.g. "BOOK ONE: 1805"; "" when none precedes it
    text: str  # body, heading excluded


def load_text(src: str) -> str:
    """Read a text from a file path or ``"gutenberg:ID"``; strip Gutenberg header/footer.

    Parameters
    ----------
    src : str or path
        A local file, or ``"gutenberg:ID"`` (e.g. ``"gutenberg:2600"`` for War and
        Peace), downloaded once into ``$ATTNBOUNDS_CACHE`` (default
        ``~/.cache/attnbounds``) and read from there afterwards.

    Returns
    -------
    str
        The text between the Gutenberg START and END markers, line endings as ``\\n``;
        or, for a file without a START marker, the file's text verbatim.
    """
    if isinstance(src, os.PathLike):
        src = os.fspath(src)
    if not isinstance(src, str) or not src:
        raise ValueError(f"src must be a file path or 'gutenberg:ID', got {src!r}")
    if src.startswith("gutenberg:"):
        path = _gutenberg_file(src)
    else:
        path = Path(src).expanduser()
        if path.is_dir():
            raise IsADirectoryError(f"src: {str(path)!r} is a directory; expected a text file (UTF-8) or gutenberg:ID")
        if not path.is_file():
            raise FileNotFoundError(f"src: no such file {str(path)!r}")
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            raw = fh.read()
    except UnicodeDecodeError as err:
        raise ValueError(f"src: {str(path)!r} is not a UTF-8 text file (byte {err.object[err.start]:#04x} at "
                         f"offset {err.start} cannot be decoded)") from None
    if _START.search(raw) is None:
        return raw  # not a Gutenberg e-book: verbatim
    return strip_gutenberg(raw.replace("\r\n", "\n"), source=str(path))


def strip_gutenberg(text: str, *, source: str = "text") -> str:
    """The part of a Project Gutenberg e-book between its START and END marker lines.

    Examples
    --------
    >>> strip_gutenberg("x\\n*** START OF THE PROJECT GUTENBERG EBOOK A ***\\nbody\\n*** END OF THE PROJECT GUTENBERG EBOOK A ***\\nlicense")
    'body'
    """
    start = _START.search(text)
    if start is None:
        raise ValueError(f"{source}: no '*** START OF THE PROJECT GUTENBERG EBOOK' line")
    end = _END.search(text, start.end())
    if end is None:
        raise ValueError(
            f"{source}: has a Gutenberg START marker but no '*** END OF THE PROJECT GUTENBERG EBOOK' line "
            "(truncated file?)"
        )
    body = text[start.end() : end.start()].strip()
    return _END_LINE.sub("", body).rstrip()  # the "End of the Project Gutenberg EBook of ..." line


def chapters(text: str) -> list[Chapter]:
    """Split ``text`` at column-0 ``CHAPTER <numeral>`` headings.

    Text before the first heading (title page, contents) is not a chapter. A text with
    no heading is returned as a single untitled chapter.

    Examples
    --------
    >>> [(c.title, c.book, c.text) for c in chapters("CONTENTS\\n  CHAPTER I\\nBOOK ONE\\n\\nCHAPTER I\\n\\nA b.\\n\\nCHAPTER II\\nC.\\nBOOK TWO\\nCHAPTER I\\nD.")]
    [('CHAPTER I', 'BOOK ONE', 'A b.'), ('CHAPTER II', 'BOOK ONE', 'C.'), ('CHAPTER I', 'BOOK TWO', 'D.')]
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    headings = [(m.start(), m.end(), "chapter", m.group(0).strip()) for m in _CHAPTER.finditer(text)]
    if not headings:
        return [Chapter(index=0, title="", book="", text=text)]
    marks = headings + [(m.start(), m.end(), "book", m.group(0).strip()) for m in _BOOK.finditer(text)]
    marks.sort()
    result: list[Chapter] = []
    book = ""
    for i, (_, end, kind, heading) in enumerate(marks):
        if kind == "book":
            book = heading
            continue
        stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
        result.append(Chapter(index=len(result), title=heading, book=book, text=text[end:stop].strip()))
    return result


def unwrap_lines(text: str) -> str:
    """Undo hard line wraps: single newlines inside a paragraph become spaces.

    >>> unwrap_lines("one\\ntwo\\n\\n\\nthree\\n")
    'one two\\n\\nthree'
    """
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs if p.strip())


def token_windows(
    text: str,
    tokenizer,
    length: int,
    count: int,
    *,
    start_chapter: int = 0,
    unwrap: bool = True,
) -> np.ndarray:
    """``count`` consecutive, non-overlapping windows of ``length`` tokens.

    Parameters
    ----------
    text : str
        From :func:`load_text`.
    tokenizer : transformers tokenizer
        Called with ``add_special_tokens=False`` (no BOS/CLS/SEP is inserted).
    length : int
        Tokens per window (L_max), ≥ 1.
    count : int
        Number of windows, ≥ 1.
    start_chapter : int
        0-based index (in :func:`chapters`) of the first chapter used; War and Peace's
        BOOK ONE, CHAPTER I is 0. Chapters from there on are used consecutively.
    unwrap : bool
        Join the hard-wrapped lines of each paragraph (default) or keep the newlines.

    Returns
    -------
    numpy.ndarray of int64, shape (count, length)
        Row ``w`` holds tokens ``[w·length, (w+1)·length)`` of the tokenized chapters.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    length = _positive_int(length, "length")
    count = _positive_int(count, "count")
    if isinstance(start_chapter, bool) or not isinstance(start_chapter, (int, np.integer)) or start_chapter < 0:
        raise ValueError(f"start_chapter must be a non-negative int, got {start_chapter!r}")
    if not callable(tokenizer):
        raise ValueError(f"tokenizer must be a transformers tokenizer, got {type(tokenizer).__name__}")
    found = chapters(text)
    if start_chapter >= len(found):
        raise ValueError(f"start_chapter={start_chapter}, but the text has {len(found)} chapter(s)")
    needed = length * count
    bodies = [unwrap_lines(c.text) if unwrap else c.text.strip() for c in found[start_chapter:]]
    # Tokenize a run of chapters long enough for `needed` tokens (≈ 4 characters per token;
    # the character budget doubles until the run suffices or the chapters run out).
    chars, take, ids = 6 * needed, 0, []
    while len(ids) < needed and take < len(bodies):
        take = _chapters_for(bodies, chars)
        ids = tokenizer("\n\n".join(bodies[:take]), add_special_tokens=False, verbose=False)["input_ids"]
        chars *= 2
    if len(ids) < needed:
        raise TextTooShort(
            len(ids),
            f"text too short: chapters {start_chapter}..{len(found) - 1} ({len(found) - start_chapter} chapter(s)) "
            f"give {len(ids)} tokens, but count × length = {count} × {length} = {needed} are needed; "
            "lower count or length, or choose an earlier start_chapter"
        )
    return np.asarray(ids[:needed], dtype=np.int64).reshape(count, length)


class TextTooShort(ValueError):
    """:func:`token_windows` found fewer tokens than ``count × length``; ``tokens``: how many the
    text's chapters give (so a caller can say how many windows would fit)."""

    def __init__(self, tokens: int, message: str):
        super().__init__(message)
        self.tokens = int(tokens)


def _chapters_for(bodies: list[str], chars: int) -> int:
    """Smallest number of leading chapters holding at least ``chars`` characters."""
    total = 0
    for i, body in enumerate(bodies):
        total += len(body) + 2
        if total >= chars:
            return i + 1
    return len(bodies)


def _positive_int(value, name: str) -> int:
    return check_count(value, name)


def _gutenberg_file(src: str) -> Path:
    """Local copy of ``gutenberg:ID``, downloaded on first use."""
    book = src.removeprefix("gutenberg:")
    if not book.isdigit():
        raise ValueError(f"src: expected 'gutenberg:<number>', got {src!r}")
    cache = Path(os.environ.get("ATTNBOUNDS_CACHE") or Path.home() / ".cache" / "attnbounds") / "gutenberg"
    path = cache / f"pg{book}.txt"
    if path.is_file():
        return path
    url = GUTENBERG_URL.format(id=book)
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = response.read()
    except (urllib.error.URLError, OSError, TimeoutError) as err:
        raise FileNotFoundError(
            f"could not download Project Gutenberg #{book} from {url} ({err}); without network access, "
            f"pass a local copy of the e-book with --text PATH (from Python: load_text(PATH))"
        ) from err
    cache.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data)
    return path
