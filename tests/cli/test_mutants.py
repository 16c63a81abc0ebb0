"""`attnbounds check --mutants`: mutation testing of the checker (quick form)."""

import json

import numpy as np
import pytest
import sympy as sp
from click.testing import CliRunner
from hypothesis import strategies as st

from attnbounds.claims.base import Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.cli import main
from attnbounds.engine import Budget
from attnbounds.engine.mutants import run_mutants
from attnbounds.theory.proof import Chain, ChainCheck, Context, by

SMALL = Budget(examples=20, sweep=4_000, mc_samples=100, method_seconds=30.0)
p = sp.Symbol("p", real=True)
QUARTER = sp.Rational(1, 4)


def _proof():
    # p(1-p) <= 1/4 needs only p real; "p in [0, 1]" is stated so that it can be dropped
    ctx = Context({"unit": (p >= 0, p <= 1)})
    chain = Chain(p * (1 - p), ctx).eq(QUARTER - (p - sp.Rational(1, 2)) ** 2, by.identity()).le(QUARTER, by.algebra())
    return Proof.from_chain(chain.prove(p * (1 - p), "<=", QUARTER), "p(1-p) = 1/4 - (p-1/2)^2 <= 1/4")


def _sides(inst):
    x = np.asarray(inst["p"], dtype=float)
    return Sides(x * (1 - x), np.full_like(x, 0.25))


TOY = Claim(
    id="PQ", title="toy", source="tests", statement="p(1-p) <= 1/4", transcription="-", transcription_latex="-",
    hypotheses=(Hypothesis("unit", "0 <= p <= 1"),),
    readings=(
        Reading("transcribed", "p(1-p) <= 1/4", "-", symbolic=_proof, sides=_sides,
                strategy=lambda: st.fixed_dictionaries({"p": st.floats(0, 1)}),
                sweep=lambda rng, n: {"p": rng.uniform(0, 1, n)}),
        Reading("reconstructed", "p(1-p) <= 1/2 (loose, no proof)", "-",
                sides=lambda i: Sides(_sides(i).lhs, np.full_like(np.asarray(i["p"], float), 0.5)),
                strategy=lambda: st.fixed_dictionaries({"p": st.floats(0, 1)}),
                sweep=lambda rng, n: {"p": rng.uniform(0, 1, n)}),
    ),
    proof="toy",
)


def test_mutants_of_a_proved_reading_are_killed_or_explained():
    report = run_mutants(["PQ"], budget=SMALL, claims=[TOY])
    assert report.readings == ["PQ:transcribed"]
    assert report.skipped == {"PQ:reconstructed": "holds"}  # only proved/certified readings
    kinds = {r.mutant for r in report.rows}
    assert {"scaled", "flipped", "dropped-hypothesis:unit"} <= kinds
    assert not report.defects
    by = {r.mutant: r for r in report.rows}
    assert by["scaled"].verdict == "falsified" and by["flipped"].verdict == "falsified"
    # the proof does not need p in [0, 1]: the chain checks without it and nothing shows it is
    # needed, so the row says the hypothesis is superfluous
    assert by["dropped-hypothesis:unit"].verdict == "undecided"
    assert "superfluous" in by["dropped-hypothesis:unit"].reason
    for r in report.rows:
        assert r.reason, r


def test_a_kernel_that_accepts_everything_is_caught(monkeypatch):
    monkeypatch.setattr(ChainCheck, "complete", property(lambda self: True))
    report = run_mutants(["PQ:transcribed"], budget=SMALL, claims=[TOY])
    assert report.defects and {r.verdict for r in report.defects} == {"proved"}


def test_cli_writes_rows_and_summary_and_exits_1_on_a_defect(tmp_path, monkeypatch):
    path = tmp_path / "m.json"
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--mutants", "--quick", "--claims", "tests/cli/test_mutants.py:TOY",
                                  "PQ:transcribed", "--json", str(path)])
    data = json.loads(path.read_text())
    assert {"reading", "mutant", "description", "verdict"} <= set(data["rows"][0])
    assert data["summary"]["mutants"] == len(data["rows"]) and "kill_rate" in data["summary"]
    assert result.exit_code == (1 if data["summary"]["defects"] else 0), result.output


@pytest.mark.parametrize("reading", ["L1:reconstructed"])
def test_real_reading_quick(reading):
    report = run_mutants([reading], budget=Budget(examples=10, sweep=3_000, mc_samples=100, method_seconds=30.0))
    assert report.readings == [reading] and not report.defects
    falsified = sum(r.verdict == "falsified" for r in report.rows)
    assert falsified >= 0.9 * len(report.rows)
    for r in report.rows:
        assert r.verdict in ("falsified", "undecided") and r.reason
