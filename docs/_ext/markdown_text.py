"""Small text transformations for generated MyST Markdown (no Sphinx imports)."""

from __future__ import annotations

import json
import re

# Characters with a meaning in CommonMark/MyST inline syntax, and `$` for dollarmath.
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|$~])")


def escape(text: str) -> str:
    """Plain text -> MyST that renders as the same text (one paragraph, newlines kept as spaces).

    >>> escape("a*b_c $x$")
    'a\\\\*b\\\\_c \\\\$x\\\\$'
    """
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def math_role(latex: str) -> str:
    """Inline math with the ``{math}`` role (safe against dollarmath's rules on spacing)."""
    latex = " ".join(str(latex).split())
    fence = "``" if "`" in latex else "`"
    return f"{{math}}{fence}{latex}{fence}"


def display_math(latex: str) -> str:
    """A one-line ``$$ ... $$`` block (newlines in LaTeX are spaces)."""
    return "$$" + " ".join(str(latex).split()) + "$$"


_FENCE_OPEN = re.compile(r"^(\s*)(`{3,}|~{3,})")
_ATX = re.compile(r"^(#{1,6})(\s+.*)$")
_SETEXT = re.compile(r"^(=+|-+)\s*$")


def docstring_to_section(text: str, top_level: int = 3) -> str:
    """A module docstring (MyST) made fit to sit under a ``##`` heading of a generated page.

    * headings (ATX ``#`` or numpy-style underlined titles) are renumbered so that the
      docstring's distinct levels become consecutive levels starting at ``top_level``;
    * runs of doctest lines (``>>>`` up to the next blank line) become ```` ```pycon ````
      code blocks instead of Markdown block quotes;
    * fenced code blocks are left untouched.

    >>> docstring_to_section("Title\\n=====\\n\\n## A\\n\\n>>> 1 + 1\\n2").splitlines()
    ['### Title', '', '#### A', '', '```pycon', '>>> 1 + 1', '2', '```']
    """
    lines = str(text).expandtabs(4).splitlines()
    # Pass 1: underlined (setext) titles -> ATX headings, outside fences.
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        m = _FENCE_OPEN.match(line)
        if fence is None and m:
            fence = m.group(2)[0] * len(m.group(2))
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None and _SETEXT.match(line) and out and out[-1].strip() and len(line.strip()) >= 3:
            prev = out[-1]
            if not _ATX.match(prev) and not prev.lstrip().startswith((">>>", "-", "*", "|", "$$")):
                out[-1] = ("# " if line.strip()[0] == "=" else "## ") + prev.strip()
                continue
        out.append(line)
    lines = out
    # Pass 2: renumber headings; wrap doctests.
    levels = sorted({len(m.group(1)) for m in map(_ATX.match, _outside_fences(lines)) if m})
    rank = {level: min(6, top_level + i) for i, level in enumerate(levels)}
    out = []
    fence = None
    in_doctest = False
    for line in lines:
        if in_doctest and not line.strip():
            out.append("```")
            in_doctest = False
        m = _FENCE_OPEN.match(line)
        if fence is None and not in_doctest and m:
            fence = m.group(2)[0] * len(m.group(2))
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
        elif not in_doctest and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            in_doctest = True
        elif not in_doctest:
            h = _ATX.match(line)
            if h:
                line = "#" * rank[len(h.group(1))] + h.group(2)
        out.append(line)
    if in_doctest:
        out.append("```")
    return "\n".join(out)


def _outside_fences(lines: list[str]):
    fence = None
    for line in lines:
        m = _FENCE_OPEN.match(line)
        if fence is None and m:
            fence = m.group(2)[0] * len(m.group(2))
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        yield line


def format_value(value, limit: int = 400) -> str:
    """A JSON value as compact text: floats at full precision, long lists shortened."""
    text = json.dumps(value, default=str)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
