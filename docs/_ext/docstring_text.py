"""Make the package's plain-text math read correctly when autodoc parses it as reST.

Docstrings in attnbounds write math in plain text (``‖α_i x_i − s‖₂``, ``|S|``), which the
terminal and ``help()`` show as written. Two reST/napoleon behaviours would mangle it:

* ``|S|`` is reST substitution syntax ("Undefined substitution referenced"); bars outside
  inline literals and roles are escaped, except on table lines.
* napoleon reads the first line of a data/attribute docstring as ``type: description``, so
  ``#: The default run: 200 examples`` would render with the type "The default run". Data
  and attribute docstrings keep their text as written.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

# `...` / ``...`` literals and :role:`...` interpreted text: left untouched.
_LITERAL = re.compile(r"(:[a-zA-Z:]+:`[^`]*`|``.*?``|`[^`]*`)")
_BAR_PAIR = re.compile(r"(?<![\\|])\|(?=\S)([^|]*?\S)\|(?!\|)")
# Grid-table borders (+---+, +===+) and rows or line blocks ("| text"): left as they are.
_TABLE_LINE = re.compile(r"^\s*(\+[-=+]+\+\s*$|\|\s)")

_ORIGINAL: dict[str, list[str]] = {}


def escape_bars(line: str) -> str:
    """Escape ``|x|`` pairs outside literals and roles (not on table lines).

    >>> escape_bars("size |S| and ``|x|`` and :math:`|y|`")
    'size \\\\|S\\\\| and ``|x|`` and :math:`|y|`'
    >>> escape_bars("|D_i − s| ≤ 1"), escape_bars("| a | b |")
    ('\\\\|D_i − s\\\\| ≤ 1', '| a | b |')
    """
    if _TABLE_LINE.match(line):
        return line
    parts = _LITERAL.split(line)
    for i in range(0, len(parts), 2):  # even parts are outside literals
        parts[i] = _BAR_PAIR.sub(lambda m: "\\|" + m.group(1) + "\\|", parts[i])
    return "".join(parts)


def _before_napoleon(app, what, name, obj, options, lines):
    lines[:] = [escape_bars(line) for line in lines]
    if what in ("data", "attribute"):
        _ORIGINAL[name] = list(lines)


def _after_napoleon(app, what, name, obj, options, lines):
    if what in ("data", "attribute") and name in _ORIGINAL:
        lines[:] = _ORIGINAL.pop(name)


def resolve_unique_suffix(app, env, node, contnode):
    """Resolve a Python reference such as ``normalization.FAMILIES`` written relative to the
    package: if exactly one documented object's full name ends with ``.<target>``, link it.
    Ambiguous or unknown targets stay unresolved (and nitpicky mode reports them)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if not target or " " in target:
        return None
    from sphinx.util.nodes import make_refnode

    domain = env.get_domain("py")
    matches = [(name, obj) for name, obj in domain.objects.items() if name.endswith("." + target)]
    if len(matches) != 1:
        return None
    name, obj = matches[0]
    return make_refnode(app.builder, node["refdoc"], obj.docname, obj.node_id, contnode, name)


def setup(app: Sphinx) -> dict:
    app.connect("missing-reference", resolve_unique_suffix)
    # napoleon processes docstrings at the default priority (500).
    app.connect("autodoc-process-docstring", _before_napoleon, priority=400)
    app.connect("autodoc-process-docstring", _after_napoleon, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
