"""The page generators of docs/_ext: fence expansion, claim pages, CLI reference."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import generated_blocks  # noqa: E402


class _Env(SimpleNamespace):
    def note_dependency(self, path):
        self.deps.append(path)


@pytest.fixture
def env():
    return _Env(srcdir=str(DOCS), docname="claims/L1", deps=[])


@pytest.fixture
def echo_generator():
    generated_blocks.GENERATORS["test-echo"] = lambda arg, env: (f"ECHO[{arg}]", [Path("dep.txt")])
    yield
    del generated_blocks.GENERATORS["test-echo"]


def test_fence_is_expanded_and_dependency_noted(env, echo_generator):
    text = "# Page\n\n```{test-echo} a b\n```\n\nafter\n"
    assert generated_blocks.expand(text, env, "x") == "# Page\n\nECHO[a b]\n\nafter\n"
    assert env.deps == ["dep.txt"]


def test_fence_inside_a_longer_fence_is_left_alone(env, echo_generator):
    text = "````markdown\n```{test-echo} L1\n```\n````\n"
    assert generated_blocks.expand(text, env, "x") == text


def test_unknown_or_non_empty_fence_is_left_alone(env, echo_generator):
    text = "```{unknown-thing} L1\n```\n\n```{test-echo} L1\nbody\n```\n"
    assert generated_blocks.expand(text, env, "x") == text


def test_every_claim_page_has_its_proof_readings_and_code(env):
    claimpages = pytest.importorskip("claimpages")
    from attnbounds import claims

    claimpages._STATE.update(rows=None, meta=None, stale=None, missing_note="(test) no verdicts")
    for claim_id in claims.ids():
        claim = claims.get(claim_id)
        env.docname = f"claims/{claim_id}"
        markdown, deps = claimpages.claim_page(claim_id, env)
        assert markdown.startswith(f"(claim-{claim_id})=\n# {claim_id}: ")
        for reading_id in claim.reading_ids:
            assert f"`{reading_id}`" in markdown
        first_proof_line = next(line for line in claim.proof.splitlines() if line.strip() and not line.startswith("#"))
        assert first_proof_line.strip() in markdown
        assert "```{literalinclude}" in markdown and "(test) no verdicts" in markdown


def test_counterexample_section_shows_numbers_and_figure():
    claimpages = pytest.importorskip("claimpages")
    row = {
        "id": "X:transcribed",
        "counterexample": {"instance": {"weights": [0.5, 0.5], "n": 1}, "lhs": 1.0, "rhs": 0.5, "method": "symbolic"},
    }
    section = claimpages._counterexample_section(row, "<=")
    assert "lhs = `1.0`, rhs = `0.5`, lhs − rhs = `0.5`" in section
    assert "weights = [0.5, 0.5]" in section and "<svg" in section
    assert claimpages._counterexample_section({"id": "Y:r", "counterexample": None}, "<=") == ""


def test_counterexample_without_a_numeric_right_side_says_what_fails():
    claimpages = pytest.importorskip("claimpages")
    row = {
        "id": "X:transcribed",
        "evidence": "symbolic: d~ = 0 for every L",
        "counterexample": {"instance": {"L": [4, 16], "d_tilde": [0.0, 0.0]}, "lhs": 0.0, "rhs": None, "method": "symbolic"},
    }
    section = claimpages._counterexample_section(row, "<=")
    assert "None" not in section
    assert "= 0 for every L" in section  # the evidence, Markdown-escaped


def test_cli_reference_lists_every_command_and_option(env):
    clidoc = pytest.importorskip("clidoc")
    import click

    from attnbounds.cli import main

    markdown, _ = clidoc.cli_reference("", env)
    ctx = click.Context(main, info_name="attnbounds")
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        assert f"## `attnbounds {name}`" in markdown
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert f"`{opt}`" in markdown, f"{name} {opt}"


def test_proof_rules_table_names_every_rule_a_verdict_uses(env):
    """Every rule name in the committed verdicts' proof objects has a row on the proof-rules page."""
    import json

    claimpages = pytest.importorskip("claimpages")
    table, _ = claimpages.proof_rules("", env)
    rows = json.loads((DOCS / "_generated" / "verdicts.json").read_text())
    used = {rule for row in rows for rule in ((row.get("proof") or {}).get("rules") or [])} - {"argued"}
    assert used, "no rules in the committed verdicts"
    missing = sorted(rule for rule in used if f"`{rule}`" not in table)
    assert not missing, f"rules with no row in docs/proof-rules.md's table: {missing}"
