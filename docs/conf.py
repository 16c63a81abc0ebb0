"""Sphinx configuration: MyST Markdown pages, furo theme, pages generated from the code.

``make docs`` builds with ``-W --keep-going -n``: every warning (including a stale
``docs/_generated/verdicts.json``) fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))

import attnbounds  # noqa: E402

project = "attnbounds"
author = "the attnbounds authors"
copyright = "2025, the attnbounds authors"
release = attnbounds.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    # MathJax 3 served from the built site (_static/mathjax), not from a CDN: the docs must
    # read the same offline. See "Math without a network" in contributing.md.
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    # Local extensions (docs/_ext): pages generated from the code and the committed results.
    "generated_blocks",
    "docstring_text",
    "claimpages",
    "clidoc",
    "apipages",
    "experimentpages",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "examples", "Thumbs.db", ".DS_Store"]

# MyST: $...$ and $$...$$ math (dollarmath), LaTeX environments (amsmath), ::: fences.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# autodoc + napoleon (numpy style docstrings).
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"undoc-members": True}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

# Nitpicky mode checks every cross-reference into attnbounds. There is no network for
# intersphinx, so references to other projects (numpy, sympy, hypothesis, ...) and the
# plain-English type words of numpy-style docstrings ("array_like", "optional") cannot
# resolve; they are ignored here, and only those.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sympy|sp|hypothesis|torch|transformers|click|matplotlib|flint|typing|collections|pathlib|dataclasses)\..*"),
    (r"py:.*", r"[a-z_][a-z0-9_ -]*"),  # int, float, optional, array_like, array-like, ...
    (r"py:.*", r"[A-Z]"),  # shape letters in types such as "(Q, L) ndarray"
    (r"py:.*", r"(Any|Callable|Literal|Mapping|Sequence|Iterable|Iterator|Path|Generator|SearchStrategy|Expr|Symbol|Rational|Tensor|PreTrainedModel|PreTrainedTokenizerBase|InvalidArgument|KeyboardInterrupt|BaseException|ValueError|TypeError|KeyError|FileNotFoundError|RuntimeError)"),
]

# Keep "--quick" and 'quotes' as typed: option names and code-like text must not become dashes.
smartquotes = False

# sphinx-mathjax-offline copies MathJax 3.2.2 into _static/mathjax when the build finishes;
# every page loads it from there (tests/docs/test_browser.py checks no page references a CDN).
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "furo"
html_title = f"attnbounds {release}"
html_static_path = ["_static"]
html_css_files = ["attnbounds.css"]
pygments_style = "sphinx"

# Internal links only: there is no network in CI, so `make linkcheck` checks links to files of
# the build; cross-references and MyST anchors are checked by the strict (-n -W) build itself,
# and tests/docs/test_browser.py checks every href="...#id" in the HTML.
linkcheck_ignore = [r"^https?://", r"^mailto:"]


def _viewcode_index_without_sourceless_modules(app):
    """sphinx.ext.viewcode lists, in ``_modules/index.html``, modules it found no source for
    (``builtins``, through a documented object whose ``__module__`` is builtins) and links them
    to pages it never writes. Drop those entries before viewcode writes its pages."""
    modules = getattr(app.env, "_viewcode_modules", {})
    for name in [m for m, entry in modules.items() if not entry]:
        del modules[name]
    return []


def setup(app):
    app.connect("html-collect-pages", _viewcode_index_without_sourceless_modules, priority=400)
