"""Claim pages generated from the claim objects and the committed verdicts.

Fences (expanded by :mod:`generated_blocks` before MyST parses the page):

``{claim} ID``
    the whole body of a claim page: statement, transcription and reconstruction side by
    side, the other readings, hypotheses, the proof (the claim module's docstring, MyST),
    the code, the verdict of every reading and each counterexample, in numbers and as a
    small figure;
``{verdict-summary}``
    one table of every verdict, with how and when it was generated;
``{claim-list}``
    a table of the claims linking to their pages.

The verdicts come from ``docs/_generated/verdicts.json``; at ``builder-inited`` the stamp
``verdicts.meta.json`` is compared with the current sources, and a stale or missing file is a
warning (an error under ``-W``) that says to run ``make verdicts``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

import generated_blocks
import verdict_store
from counterexample_figures import counterexample_svg
from markdown_text import display_math, docstring_to_section, escape, format_value, math_role

logger = logging.getLogger(__name__)

_STATE: dict = {"rows": None, "meta": None, "stale": None, "missing_note": ""}


def _rel(path: Path, env) -> str:
    """``path`` relative to the directory of the page being read (for literalinclude)."""
    page_dir = Path(env.srcdir) / Path(env.docname).parent
    return Path(os.path.relpath(path, page_dir)).as_posix()


# --------------------------------------------------------------------------- verdicts


def load_verdicts(app: Sphinx) -> None:
    """Load the rows and check the stamp; warn when they are missing, stale or mismatched."""
    rows = verdict_store.load_rows()
    meta = verdict_store.load_meta()
    _STATE.update(rows=rows, meta=meta, stale=None, missing_note="")
    engine_exists = importlib.util.find_spec("attnbounds.engine") is not None
    if rows is None or meta is None:
        missing = "docs/_generated/verdicts.json" if rows is None else "docs/_generated/verdicts.meta.json"
        _STATE["missing_note"] = (
            f"The verdicts have not been generated yet ({missing} does not exist). "
            "Run `make verdicts` to run `attnbounds check` and record them here."
        )
        _STATE["rows"] = None
        if engine_exists:
            logger.warning(f"{missing} does not exist: run `make verdicts`")
        else:
            logger.info(f"{missing} does not exist (attnbounds.engine is not there yet)")
        return
    staleness = verdict_store.check_fresh(meta)
    if staleness.stale:
        _STATE["stale"] = staleness
        logger.warning(
            "docs/_generated/verdicts.json is stale: the sources it was generated from have "
            f"changed ({staleness.describe()}); run `make verdicts`"
        )
    from attnbounds import claims as registry

    try:
        expected = set(registry.reading_ids()) | {
            f"{c.id}:without-{h.name}" for c in registry.all_claims() for h in c.hypotheses if h.drop is not None
        }
    except Exception as exc:  # a claim module that does not import: its page reports it too
        logger.warning(f"cannot load the claims to compare with the verdicts: {type(exc).__name__}: {exc}")
        return
    recorded = {r["id"] for r in rows}
    unknown = {r["id"] for r in rows if r.get("kind") != "load-error"} - expected
    if unknown:
        logger.warning(
            f"docs/_generated/verdicts.json has rows for readings that no longer exist "
            f"({', '.join(sorted(unknown))}); run `make verdicts`"
        )
    if expected - recorded:
        logger.warning(
            f"docs/_generated/verdicts.json has no verdict for {', '.join(sorted(expected - recorded))}; "
            "run `make verdicts`"
        )


def _stale_admonition() -> str:
    staleness = _STATE["stale"]
    if staleness is None:
        return ""
    return (
        "```{warning}\nThese verdicts are **stale**: sources changed since they were generated "
        f"({escape(staleness.describe())}). Run `make verdicts`.\n```\n"
    )


def _rows_for(claim_id: str) -> list[dict] | None:
    rows = _STATE["rows"]
    if rows is None:
        return None
    return [r for r in rows if r.get("claim", r["id"].partition(":")[0]) == claim_id]


def _row(rows: list[dict] | None, reading_id: str) -> dict | None:
    for r in rows or ():
        if r["id"] == reading_id:
            return r
    return None


def _verdict_text(row: dict | None) -> str:
    if row is None:
        return "*not checked*" if _STATE["rows"] is not None else "*not generated*"
    return f"**{escape(row['verdict'])}**" + _proof_text(row.get("proof"))


def _proof_text(proof) -> str:
    """The "k/n steps checked" line, the rules and the step audit of a row's proof object (the
    CLI's proof cell, :func:`attnbounds.cli.check.proof_cell`)."""
    from attnbounds.cli.check import proof_cell

    if not isinstance(proof, dict) or not proof.get("steps"):
        return ""
    return "\n\n" + escape(proof_cell(proof))


def _methods_text(methods) -> str:
    if not methods:
        return "none"
    if isinstance(methods, str):
        return escape(methods)
    return ", ".join(escape(m) for m in methods)


def _evidence_text(evidence) -> str:
    if evidence is None or evidence == "":
        return ""
    if isinstance(evidence, str):
        return escape(evidence)
    if isinstance(evidence, (list, tuple)):
        return "; ".join(_evidence_text(e) for e in evidence)
    if isinstance(evidence, dict):
        return "; ".join(f"{escape(k)}: {_evidence_text(v) if isinstance(v, (str, list, dict)) else escape(format_value(v))}" for k, v in evidence.items())
    return escape(format_value(evidence))


def _list_table(header: list[str], rows: list[list[str]], widths: str | None = None) -> str:
    lines = ["```{list-table}", ":header-rows: 1"]
    if widths:
        lines.append(f":widths: {widths}")
    lines.append("")
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            prefix = "* - " if i == 0 else "  - "
            cell_lines = str(cell).split("\n") if str(cell) else [""]
            lines.append(prefix + cell_lines[0])
            lines.extend(("    " + c) if c else "" for c in cell_lines[1:])
    lines.append("```")
    return "\n".join(lines)


def _work_text(row: dict) -> str:
    parts = []
    if row.get("examples") is not None:
        parts.append(f"{row['examples']} Hypothesis examples")
    if row.get("sweep") is not None:
        parts.append(f"{row['sweep']} sweep instances")
    mc = row.get("mc")
    if isinstance(mc, dict) and mc.get("samples") is not None:
        parts.append(f"{mc['samples']} Monte Carlo samples")
    return escape("; ".join(parts))


def _verdict_table(rows: list[dict]) -> str:
    body = []
    for r in rows:
        seconds = r.get("seconds")
        evidence = _evidence_text(r.get("evidence"))
        for key, label in (("conflict", "Conflict"), ("error", "Error")):
            if r.get(key):
                evidence += f"\n\n**{label}:** {escape(str(r[key]))}"
        body.append(
            [
                f"`{r['id']}`",
                _verdict_text(r),
                _methods_text(r.get("methods")),
                _work_text(r),
                "" if seconds is None else f"{float(seconds):.2f}",
                evidence,
            ]
        )
    return _list_table(["Check", "Verdict", "Methods", "Work", "Seconds", "Evidence"], body, "14 10 12 14 8 42")


def _method_details(rows: list[dict]) -> str:
    """A collapsed list of what every method reported for every row (the row's ``detail``)."""
    out = ["```{raw} html", "<details><summary>What each method reported</summary>", "```", ""]
    for r in rows:
        out.append(f"- `{r['id']}`")
        detail = r.get("detail") or {}
        if isinstance(detail, dict):
            for method, text in detail.items():
                out.append(f"  - {escape(method)}: {escape(str(text))}")
        elif detail:
            out.append(f"  - {escape(str(detail))}")
        mc = r.get("mc")
        if isinstance(mc, dict) and mc.get("samples") is not None:
            out.append(
                f"  - Monte Carlo ({mc.get('samples')} samples, confidence {mc.get('confidence')}): "
                f"lhs {escape(format_value(mc.get('lhs')))} in {escape(format_value(mc.get('lhs_ci')))}, "
                f"rhs {escape(format_value(mc.get('rhs')))} in {escape(format_value(mc.get('rhs_ci')))}"
            )
    out += ["", "```{raw} html", "</details>", "```"]
    return "\n".join(out)


def _counterexample_section(row: dict, relation: str | None) -> str:
    cx = row.get("counterexample")
    if not cx:
        return ""
    instance = cx.get("instance") if isinstance(cx, dict) else None
    lhs = cx.get("lhs") if isinstance(cx, dict) else None
    rhs = cx.get("rhs") if isinstance(cx, dict) else None
    out = [f"### Counterexample to `{row['id']}`", ""]
    facts = []
    if isinstance(lhs, (int, float)) and isinstance(rhs, (int, float)):
        fails = f"`lhs {relation} rhs` fails" if relation else "the conclusion fails"
        facts.append(f"lhs = `{lhs!r}`, rhs = `{rhs!r}`, lhs − rhs = `{lhs - rhs!r}`: {fails}.")
    elif lhs is not None and rhs is None:  # no numeric right side (an order in L, unboundedness)
        what = row.get("evidence") or "see the evidence"
        facts.append(f"lhs = `{format_value(lhs)}`; the statement has no numeric right side here: {escape(what)}")
    elif lhs is not None or rhs is not None:
        facts.append(f"lhs = `{format_value(lhs)}`, rhs = `{format_value(rhs)}`.")
    if isinstance(cx, dict) and cx.get("method"):
        facts.append(f"Found by: `{cx['method']}`.")
    out.extend([" ".join(facts), ""])
    if isinstance(instance, dict) and instance:
        out.append("```text")
        width = max(len(str(k)) for k in instance)
        for k, v in instance.items():
            out.append(f"{str(k):<{width}} = {format_value(v, limit=4000)}")
        out.append("```")
        out.append("")
        svg = counterexample_svg(row["id"], instance, lhs, rhs, relation)
        if svg is not None:
            out += ["```{raw} html", '<div class="counterexample-figure">', svg, "</div>", "```", ""]
    elif instance is not None:
        out += ["```text", format_value(instance, limit=4000), "```", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- pages


def _module_body_lines(path: Path) -> str:
    """``N-`` where line N is the first line after the module docstring (for literalinclude)."""
    tree = ast.parse(path.read_text())
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(getattr(tree.body[0], "value", None), ast.Constant):
        return f"{tree.body[0].end_lineno + 1}-"
    return "1-"


@generated_blocks.generator("claim")
def claim_page(argument: str, env):
    from attnbounds import claims as registry

    claim = registry.get(argument)
    module_name = registry.module_of(claim.id)
    module = importlib.import_module(module_name) if module_name else None
    source_path = Path(inspect.getsourcefile(module)) if module else None
    rows = _rows_for(claim.id)
    transcribed = claim.reading("transcribed")
    reconstructed = claim.reading("reconstructed")

    md: list[str] = [f"(claim-{claim.id})=", f"# {claim.id}: {escape(claim.title)}", ""]
    md += [_stale_admonition()]
    md += [f"*Source:* {escape(claim.source)}", "", escape(claim.statement), ""]

    md += ["## Transcription and reconstruction", ""]
    md += [
        "The **transcription** is the formula as the source summary writes it; the "
        "**reconstruction** is the statement the project proves, with its hypotheses explicit.",
        "",
    ]
    side = [
        [
            escape(claim.transcription) + "\n\n" + display_math(claim.transcription_latex),
            escape(reconstructed.statement) + "\n\n" + display_math(reconstructed.latex),
        ],
        [
            f"Verdict of `{claim.id}:transcribed`: " + _verdict_text(_row(rows, f"{claim.id}:transcribed")),
            f"Verdict of `{claim.id}:reconstructed`: " + _verdict_text(_row(rows, f"{claim.id}:reconstructed")),
        ],
    ]
    if transcribed.latex.strip() != claim.transcription_latex.strip():
        side.insert(
            1,
            [
                f"As checked (`{claim.id}:transcribed`): " + escape(transcribed.statement) + "\n\n" + display_math(transcribed.latex),
                "",
            ],
        )
    md += [_list_table(["Transcription (the summary, as written)", "Reconstruction (what we prove)"], side, "50 50"), ""]

    md += ["## Readings", ""]
    # Layout: the columns a reader scans for (id, verdict, methods) come first and the table
    # holds only text that wraps; each reading's formula, which cannot wrap, follows the table
    # in a block of its own. So the table fits the content column at 800 px and 1300 px
    # (tests/docs/test_browser.py measures this in Chromium).
    reading_rows = []
    formulas = []
    for r in claim.readings:
        note = f"\n\n{escape(r.note)}" if r.note else ""
        reading_rows.append(
            [
                f"`{claim.id}:{r.name}`",
                _verdict_text(_row(rows, f"{claim.id}:{r.name}")),
                _methods_text(r.methods),
                escape(r.relation),
                escape(r.statement) + note,
            ]
        )
        formulas += [f"`{claim.id}:{r.name}`", f": {display_math(r.latex)}", ""]
    md += [_list_table(["Reading", "Verdict", "Methods", "Relation", "Statement"], reading_rows, "18 12 16 8 46"), ""]
    md += ["Each reading's formula, as checked:", "", *formulas]

    md += ["## Hypotheses", ""]
    if claim.hypotheses:
        for h in claim.hypotheses:
            needed = ""
            if h.drop is not None:
                drop_id = f"{claim.id}:without-{h.name}"
                needed = f" Dropped (`{drop_id}`): {_verdict_text(_row(rows, drop_id))}; a `falsified` here shows the hypothesis is needed."
            statement = escape(h.statement)
            if statement and statement[-1] not in ".!?":
                statement += "."
            md.append(f"- **{escape(h.name)}**: {statement}{needed}")
    else:
        md.append("None stated.")
    md.append("")

    md += ["## Proof", ""]
    if module is not None:
        md += [f"```{{py:module}} {module_name}", "```", "", f"The proof is the docstring of `{module_name}`, rendered here.", ""]
    md += [docstring_to_section(claim.proof, top_level=3), ""]

    if claim.symbolic_form is not None:
        import sympy as sp

        forms = claim.symbolic_form()
        md += ["## Symbolic form", "", f"`attnbounds.claims.get({claim.id!r}).symbolic_form()` returns these SymPy expressions:", ""]
        table = [
            [f"`{name}`", math_role(sp.latex(expr)) if isinstance(expr, sp.Basic) else f"`{expr!s}`"]
            for name, expr in forms.items()
        ]
        md += [_list_table(["Name", "Expression"], table, "30 70"), ""]
    if claim.derivations:
        md += [
            "Derivations used (print them with `attnbounds derive NAME`): "
            + ", ".join(f"`{d}`" for d in claim.derivations),
            "",
        ]

    md += ["## The code", ""]
    deps: list[Path] = []
    if source_path is not None:
        rel_repo = source_path.relative_to(verdict_store.REPO_ROOT).as_posix()
        md += [
            f"`{rel_repo}` defines `CLAIM` (the docstring above is its first statement; the rest "
            f"follows). Get it with `attnbounds.claims.get({claim.id!r})`.",
            "",
            "```{raw} html",
            "<details><summary>Show the source of the claim module</summary>",
            "```",
            "",
            f"```{{literalinclude}} {_rel(source_path, env)}",
            ":language: python",
            f":lines: {_module_body_lines(source_path)}",
            ":lineno-match:",
            "```",
            "",
            "```{raw} html",
            "</details>",
            "```",
            "",
        ]
        deps.append(source_path)

    md += ["## Verdicts", ""]
    if rows is None:
        md += ["```{note}", _STATE["missing_note"] or "No verdicts.", "```", ""]
    else:
        meta = _STATE["meta"] or {}
        md += [
            f"From `docs/_generated/verdicts.json`, written by `{meta.get('command', 'attnbounds check')}` "
            f"on {escape(meta.get('generated_at', '?'))} (regenerate with `make verdicts`).",
            "",
        ]
        if rows:
            md += [_verdict_table(rows), "", _method_details(rows), ""]
        else:
            md += ["```{note}", f"The verdicts file has no row for {claim.id}; run `make verdicts`.", "```", ""]
        relations = {f"{claim.id}:{r.name}": r.relation for r in claim.readings}
        for row in rows:
            section = _counterexample_section(row, relations.get(row["id"]))
            if section:
                md += [section, ""]
    deps += [verdict_store.VERDICTS_PATH, verdict_store.META_PATH]
    return "\n".join(md), [d for d in deps if d.exists()]


@generated_blocks.generator("proof-rules")
def proof_rules(argument: str, env):
    """The trusted rule set of the proof kernel, one row per rule, from :data:`RULES`."""
    import attnbounds.theory.proof as kernel

    import inspect

    def call(name):
        # how a chain cites the rule: by.<name with _ for ->(<its parameters>); text= is every rule's note
        method = getattr(kernel.by, name.replace("-", "_"), None)
        if method is None:
            return ""
        sig = inspect.signature(method)
        sig = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "text"])
        return "\n\n`by." + name.replace("-", "_") + str(sig) + "`"

    body = [[f"`{escape(r.name)}`{call(r.name)}", escape(r.statement), escape(r.why)] for r in kernel.RULES.values()]
    # not a kernel rule: the name a row's proof object gives to a refutation (engine.methods.proof_summary)
    body.append([
        "`counterexample`",
        "the statement is false: it fails at one concrete instance (a refutation, not a step of a chain)",
        "exact evaluation of the statement at the instance (SymPy, exact numbers); the engine re-evaluates it "
        "with the reading's numeric sides where it has them, and a disagreement is a CONFLICT, not a verdict",
    ])
    md = _list_table(["Rule (and how a chain cites it)", "What a step may claim", "Why it is trusted"], body, "26 37 37")
    return md, [Path(kernel.__file__)]


@generated_blocks.generator("verdict-summary")
def verdict_summary(argument: str, env):
    rows = _STATE["rows"]
    if rows is None:
        return "```{note}\n" + (_STATE["missing_note"] or "No verdicts.") + "\n```\n", []
    meta = _STATE["meta"] or {}
    versions = ", ".join(f"{k} {v}" for k, v in (meta.get("versions") or {}).items() if v)
    md = [
        _stale_admonition(),
        f"Generated by `{meta.get('command', 'attnbounds check')}` on {escape(meta.get('generated_at', '?'))} "
        f"in {meta.get('seconds', '?')} s (Python {escape(meta.get('python', '?'))}; {escape(versions)}).",
        "",
    ]
    body = []
    for r in rows:
        claim_id = r.get("claim", r["id"].partition(":")[0])
        body.append(
            [
                f"{{ref}}`{r['id']} <claim-{claim_id}>`",
                _verdict_text(r),
                _methods_text(r.get("methods")),
                "" if r.get("seconds") is None else f"{float(r['seconds']):.2f}",
            ]
        )
    md.append(_list_table(["Reading", "Verdict", "Methods", "Seconds"], body, "30 20 35 15"))
    output = verdict_store.GENERATED_DIR / "check_output.txt"
    deps = [p for p in (verdict_store.VERDICTS_PATH, verdict_store.META_PATH, output) if p.exists()]
    if output.exists():
        text = output.read_text().rstrip()
        fence = "````" if "```" in text else "```"
        md += [
            "",
            "```{raw} html",
            "<details><summary>What the command printed when it wrote these rows</summary>",
            "```",
            "",
            f"{fence}console",
            f"$ {meta.get('command', 'attnbounds check')}",
            text,
            fence,
            "",
            "```{raw} html",
            "</details>",
            "```",
        ]
    return "\n".join(md), deps


@generated_blocks.generator("claim-list")
def claim_list(argument: str, env):
    """A table of the registry's claims and a (hidden) toctree of their pages, in paper order."""
    from attnbounds import claims as registry

    pages_dir = Path(env.srcdir) / Path(env.docname).parent
    body = []
    for claim_id in registry.ids():
        if not (pages_dir / f"{claim_id}.md").exists():
            raise FileNotFoundError(f"claim {claim_id} has no page {claim_id}.md (one fence: {{claim}} {claim_id})")
        claim = registry.get(claim_id)
        body.append([f"{{ref}}`{claim.id} <claim-{claim.id}>`", escape(claim.title), escape(claim.statement)])
    toctree = ["```{toctree}", ":hidden:", "", *registry.ids(), "```"]
    return _list_table(["Claim", "Title", "Statement"], body, "10 30 60") + "\n\n" + "\n".join(toctree), []


def setup(app: Sphinx) -> dict:
    app.setup_extension("generated_blocks")
    app.connect("builder-inited", load_verdicts)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
