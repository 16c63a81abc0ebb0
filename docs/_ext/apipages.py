"""The API reference, built from one explicit list of modules (:data:`API_SECTIONS`).

The list is kept in sync with the package by ``tests/docs/test_api_pages.py``: every module
of ``attnbounds`` must be either listed here or in :data:`NOT_IN_API` (with the reason), and
every listed module must exist. A listed module that cannot be imported fails the build.

Fence: ``{api-reference}`` (expanded by :mod:`generated_blocks`).
"""

from __future__ import annotations

import ast
import importlib
import inspect

from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer

import generated_blocks
from docstring_text import escape_bars

#: (section title, intro, [(module, {"extra-rst": [lines]})]) in page order.
API_SECTIONS: tuple[tuple[str, str, tuple[tuple[str, dict], ...]], ...] = (
    (
        "Kernels",
        "numpy/scipy kernels, float64, batched over leading dimensions.",
        (
            ("attnbounds.numerics", {}),
            ("attnbounds.numerics.attention", {}),
            ("attnbounds.numerics.normalizers", {}),
            ("attnbounds.numerics.jacobian", {}),
            ("attnbounds.numerics.selection", {}),
            ("attnbounds.numerics.sampling", {}),
            ("attnbounds.numerics.montecarlo", {}),
            ("attnbounds.numerics.intervals", {}),
            ("attnbounds.numerics.coverage", {}),
            ("attnbounds.numerics.validation", {}),
            ("attnbounds.numerics.fits", {}),
        ),
    ),
    (
        "Theory",
        "SymPy closed forms and exact proofs (`attnbounds derive NAME` prints them).",
        (
            # Docstrings refer to the re-exported registry as attnbounds.theory.DERIVATIONS.
            (
                "attnbounds.theory",
                {
                    "extra-rst": [
                        ".. py:data:: DERIVATIONS",
                        "",
                        "   The registry of derivations, :data:`attnbounds.theory.derivation.DERIVATIONS`"
                        " (importing :mod:`attnbounds.theory` fills it).",
                        "",
                    ]
                },
            ),
            ("attnbounds.theory.derivation", {}),
            ("attnbounds.theory.normalization", {}),
            ("attnbounds.theory.distance", {}),
            ("attnbounds.theory.separability", {}),
            ("attnbounds.theory.jacobian", {}),
            ("attnbounds.theory.coverage", {}),
            ("attnbounds.theory.proof", {}),
        ),
    ),
    (
        "Plug-ins and output",
        "Loading user objects by spec (`module:object`, `file.py`, entry points) for the claim and normalizer "
        "registries, the JSON writer, the atomic file writes every layer uses, progress on stderr, and the "
        "\"did you mean\" hints of every layer's errors.",
        (("attnbounds.plugins", {}), ("attnbounds.jsonio", {}), ("attnbounds.fileio", {}), ("attnbounds.progress", {}),
         ("attnbounds.suggest", {})),
    ),
    (
        "Strategies",
        "Public Hypothesis strategies for attention instances.",
        (("attnbounds.strategies", {}),),
    ),
    (
        "Claims",
        "The claim model and the registry. Each claim module is documented on its claim page.",
        (
            ("attnbounds.claims", {}),
            ("attnbounds.claims.base", {}),
            ("attnbounds.claims.registry", {}),
            ("attnbounds.claims.normalized", {}),
        ),
    ),
    (
        "Engine",
        "Verdicts: every method of every reading, combined into the strongest supported verdict.",
        (
            ("attnbounds.engine", {}),
            ("attnbounds.engine.budget", {}),
            ("attnbounds.engine.methods", {}),
            ("attnbounds.engine.verdict", {}),
            ("attnbounds.engine.rows", {}),
            ("attnbounds.engine.meta", {}),
            ("attnbounds.engine.run", {}),
            ("attnbounds.engine.mutants", {}),
            ("attnbounds.engine.refute", {}),
            ("attnbounds.engine.audit", {}),
            ("attnbounds.engine.tie", {}),
        ),
    ),
    (
        "Normalizer matrix",
        "The claims' own readings under every normalizer (`attnbounds check --matrix`): the loop and the plot.",
        (("attnbounds.battery", {}),),
    ),
    (
        "Models, capture and experiments",
        "The empirical layer (needs the `empirical` extra: torch, transformers and numba).",
        (
            ("attnbounds.empirical", {}),
            ("attnbounds.empirical.models", {}),
            ("attnbounds.empirical.capture", {}),
            ("attnbounds.empirical.text", {}),
            ("attnbounds.empirical.experiments", {}),
            ("attnbounds.empirical.fused", {}),
            ("attnbounds.empirical.run", {}),
            ("attnbounds.empirical.warmup", {}),
            ("attnbounds.empirical.protocol", {}),
            ("attnbounds.empirical.report", {}),
            ("attnbounds.empirical.paper_report", {}),
            ("attnbounds.empirical.store", {}),
        ),
    ),
)

#: Modules deliberately left out of the API reference, with where they are documented.
NOT_IN_API: dict[str, str] = {
    "attnbounds": "the package docstring is summarised on the index page",
    "attnbounds.__main__": "`python -m attnbounds` is the CLI",
    "attnbounds.cli": "the CLI reference page (generated from the click objects)",
    "attnbounds.cli.*": "the CLI reference page (generated from the click objects)",
    "attnbounds.claims.<claim module>": "its claim page (the module docstring is the proof)",
}


def is_excluded(name: str) -> bool:
    """Whether module ``name`` is covered by :data:`NOT_IN_API`."""
    from attnbounds import claims

    claim_modules = {claims.module_of(cid) for cid in claims.qualified_ids()}
    return name in ("attnbounds", "attnbounds.__main__", "attnbounds.cli") or name.startswith("attnbounds.cli.") or name in claim_modules


def listed_modules() -> list[str]:
    return [module for _, _, modules in API_SECTIONS for module, _ in modules]


def public_members(module) -> list[tuple[str, str]]:
    """``[(name, kind)]`` of what ``module`` itself defines, in source order.

    kind is ``"class"``, ``"function"`` or ``"data"``. Public functions and classes are
    listed, and module-level data when it is in ``__all__`` or named as a constant
    (``UPPER_CASE``): docstrings refer to such constants (``BUILTIN_MODELS``) even when a
    module's ``__all__`` leaves them out. Re-exported (imported) names are documented where
    they are defined.
    """
    exported = set(getattr(module, "__all__", ()))
    tree = ast.parse(inspect.getsource(module))
    members: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not node.name.startswith("_"):
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                members.append((node.name, kind))
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name) and not target.id.startswith("_"):
                if target.id in exported or target.id.isupper():
                    members.append((target.id, "data"))
    seen: set[str] = set()
    return [(n, k) for n, k in members if not (n in seen or seen.add(n))]


def _alias_text(value) -> str:
    text = repr(value) if hasattr(value, "__origin__") else value.__qualname__
    return text.replace("typing.", "")


_LONG_VALUE = 100  # data whose repr is longer than this is documented without its value


def _member_rst(module, name: str, kind: str) -> list[str]:
    qualified = f"{module.__name__}.{name}"
    if kind == "class":
        return [f".. autoclass:: {qualified}", "   :members:", "   :undoc-members:", ""]
    if kind == "function":
        return [f".. autofunction:: {qualified}", ""]
    # Data: written out by hand (autodata would fall back to the docstring of the value's
    # class, e.g. sympy's Symbol or dict, when the constant has no ``#:`` comment).
    value = getattr(module, name, None)
    docs = ModuleAnalyzer.for_module(module.__name__).find_attr_docs().get(("", name), [])
    lines = [f".. py:data:: {name}", f"   :module: {module.__name__}"]
    if isinstance(value, type) or hasattr(value, "__origin__"):
        docs = [f"Type alias of ``{_alias_text(value)}``.", "", *docs]
    else:
        text = repr(value)
        if len(text) <= _LONG_VALUE and "\n" not in text:
            lines.append(f"   :value: {text}")
    lines.append("")
    lines += [f"   {escape_bars(line)}".rstrip() for line in docs]
    return lines + [""]


@generated_blocks.generator("api-reference")
def api_reference(argument: str, env):
    md: list[str] = []
    for title, intro, modules in API_SECTIONS:
        md += [f"## {title}", "", intro, ""]
        for name, options in modules:
            module = importlib.import_module(name)  # fails loudly (a build warning) if missing
            rst = [f".. automodule:: {name}", ""]
            for member, kind in public_members(module):
                rst += _member_rst(module, member, kind)
            rst += options.get("extra-rst", [])
            md += ["```{eval-rst}", *rst, "```", ""]
    return "\n".join(md), []


def setup(app: Sphinx) -> dict:
    app.setup_extension("generated_blocks")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
