"""Pages whose body is generated from the code: fenced blocks expanded before parsing.

A page writes a fence such as::

    ```{claim} L1
    ```

and, on Sphinx's ``source-read`` event, the fence is replaced by MyST Markdown produced by
the generator registered under that name (``claim``, ``cli-reference``, ...). The result is
parsed by MyST like any hand-written page, so headings become real sections, ``$...$`` math
renders and cross-references resolve; nothing is nested-parsed by hand.

A generator is ``func(argument: str, env) -> (markdown, dependencies)``; the dependencies
(files) are recorded so that an incremental build re-reads the page when they change.
A fence naming an unknown generator is left alone, so MyST reports it as an unknown directive.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

Generator = Callable[[str, object], "tuple[str, list[Path]]"]
GENERATORS: dict[str, Generator] = {}

# ```{name} argument   followed by a closing ``` on the next line (an empty fence).
_OPEN = re.compile(r"^```\{(?P<name>[a-z][a-z0-9-]*)\}[ \t]*(?P<arg>[^\n]*)$")
_CLOSE = re.compile(r"^```[ \t]*$")
_ANY_FENCE = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})")


def generator(name: str):
    """Register ``func`` as the generator of ``{name}`` fences."""

    def deco(func: Generator) -> Generator:
        GENERATORS[name] = func
        return func

    return deco


def expand(text: str, env, docname: str) -> str:
    """Replace each top-level empty ```` ```{name} arg ```` fence by its generated Markdown.

    Fences inside other fences (for example, a ```` ````markdown ```` block that shows the
    syntax) are left alone.
    """
    lines = text.split("\n")
    out: list[str] = []
    outer: str | None = None  # the fence (e.g. "````") we are inside, if any
    i = 0
    while i < len(lines):
        line = lines[i]
        if outer is None:
            m = _OPEN.match(line)
            if m and m.group("name") in GENERATORS and i + 1 < len(lines) and _CLOSE.match(lines[i + 1]):
                out.append(_generate(m.group("name"), m.group("arg").strip(), env, docname))
                i += 2
                continue
            f = _ANY_FENCE.match(line)
            if f:
                outer = f.group("fence")
        elif line.strip().startswith(outer) and set(line.strip()) <= set(outer[0]):
            outer = None
        out.append(line)
        i += 1
    return "\n".join(out)


def _generate(name: str, argument: str, env, docname: str) -> str:
    try:
        markdown, dependencies = GENERATORS[name](argument, env)
    except Exception as exc:  # a broken generator must fail the build, loudly
        logger.warning(f"{{{name}}} {argument}: {type(exc).__name__}: {exc}", location=docname)
        return f"```{{error}}\n{{{name}}} {argument} failed: {type(exc).__name__}: {exc}\n```"
    for dep in dependencies:
        env.note_dependency(str(dep))
    return markdown


def _on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if "```{" in source[0]:
        source[0] = expand(source[0], app.env, docname)


def setup(app: Sphinx) -> dict:
    app.connect("source-read", _on_source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
