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

SMALL = Budget(examples=20, sweep=4_000, mc_samples=100, audit=200)
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
        Reading("transcribed", "p(1-p) <= 1/4", "-", symbolic=_proof, sides=_sides, bind=lambda i: {p: i["p"]},
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


q = sp.Symbol("q", real=True)


def _needed_proof():
    # p q <= q needs both p <= 1 and q >= 0, and the claim has no drop demonstration for them:
    # the mutants are refuted on the proof's own symbols
    ctx = Context({"p<=1": p <= 1, "q>=0": q >= 0})
    chain = Chain(p * q, ctx).le(q, by.algebra())
    return Proof.from_chain(chain.prove(p * q, "<=", q), "q - p q = (1 - p) q >= 0")


def _implied_proof():
    # "p >= 0" follows from p = q^2 (an equation of the context): dropping it leaves a true
    # statement, which the row must say, not count as killed (the goal is -p <= 1, not -p <= 0:
    # that one is its own hypothesis p >= 0, which the tie reports as a conflict)
    ctx = Context({"square": sp.Eq(p, q**2), "p>=0": p >= 0})
    chain = Chain(-p, ctx).le(1, by.algebra())
    return Proof.from_chain(chain.prove(-p, "<=", 1), "-p <= 0 <= 1")


TOY2 = Claim(
    id="PQ2", title="toy", source="tests", statement="-", transcription="-", transcription_latex="-", hypotheses=(),
    readings=(
        Reading("transcribed", "p q <= q", "-", symbolic=_needed_proof, bind=lambda i: {p: i["p"], q: i["q"]},
                sides=lambda i: Sides(np.asarray(i["p"]) * np.asarray(i["q"]), np.asarray(i["q"])),
                strategy=lambda: st.fixed_dictionaries({"p": st.floats(0, 1), "q": st.floats(0, 2)}),
                sweep=lambda rng, n: {"p": rng.uniform(0, 1, n), "q": rng.uniform(0, 2, n)}),
        Reading("reconstructed", "-p <= 1 for p = q^2", "-", symbolic=_implied_proof,
                bind=lambda i: {p: float(i["q"]) ** 2, q: i["q"]},
                sides=lambda i: Sides(-np.asarray(i["q"]) ** 2, np.ones_like(np.asarray(i["q"], float))),
                strategy=lambda: st.fixed_dictionaries({"q": st.floats(-2, 2)}),
                sweep=lambda rng, n: {"q": rng.uniform(-2, 2, n)}),
    ),
    proof="toy",
)


def test_dropped_proof_hypotheses_are_refuted_on_the_proofs_symbols():
    report = run_mutants(["PQ2"], budget=SMALL, claims=[TOY2])
    rows = {(r.reading, r.mutant): r for r in report.rows}
    assert not report.defects
    for name in ("p<=1", "q>=0"):
        row = rows[("PQ2:transcribed", f"dropped-hypothesis:{name}")]
        assert row.verdict == "falsified" and "counterexample" in row.reason, row
    # dropping a term of q is not a sum here; scaling makes q(1 - p) >= 0 false at p = 1
    assert rows[("PQ2:transcribed", "scaled")].verdict == "falsified"
    implied = rows[("PQ2:reconstructed", "dropped-hypothesis:p>=0")]
    assert implied.verdict == "undecided" and "statement still true" in implied.reason, implied


@pytest.mark.parametrize("reading", ["L1:reconstructed", "T1i:reconstructed", "T1i:reconstructed-d1-norm",
                                     "C1:reconstructed", "H1:union-bound", "H1:reconstructed",
                                     "T2:lower_reconstructed", "T2:hoeffding", "T2:upper_if_r_le_xi"])
def test_real_reading_quick(reading):
    report = run_mutants([reading], budget=Budget(examples=10, sweep=3_000, mc_samples=100, audit=200))
    assert report.readings == [reading] and not report.defects
    for r in report.rows:  # every mutant is killed, shown to be a statement that is still true, or
        # drops a claim hypothesis whose demonstration (made for another reading) this reading survives
        assert r.verdict == "falsified" or (r.verdict == "undecided" and (
            "statement still true" in r.reason or "is not a counterexample to this reading" in r.reason)), r


def _argued_proof():
    # the toy's chain with its one inequality resting on an Assumed premise: argued, not proved
    from attnbounds.theory.proof import Assumed

    ctx = Context({"quarter": Assumed(p * (1 - p) <= QUARTER, "argued on the page")})
    chain = Chain(p * (1 - p), ctx).le(QUARTER, by.hypothesis("quarter"))
    return Proof.from_chain(chain.prove(p * (1 - p), "<=", QUARTER), "p(1-p) <= 1/4, argued")


ARGUED = Claim(
    id="PQA", title="toy", source="tests", statement="p(1-p) <= 1/4", transcription="-", transcription_latex="-",
    hypotheses=(),
    readings=tuple(Reading(name, "p(1-p) <= 1/4", "-", symbolic=_argued_proof, sides=_sides,
                           strategy=lambda: st.fixed_dictionaries({"p": st.floats(0, 1)}),
                           sweep=lambda rng, n: {"p": rng.uniform(0, 1, n)}) for name in ("transcribed", "reconstructed")),
    proof="toy",
)


def test_argued_readings_get_no_mutants():
    # mutants test the kernel on proved readings; an argued chain (an Assumed premise) is not one.
    # (Theorem 2's upper readings were the real cases until the weighted-norm setting proved them.)
    report = run_mutants(["PQA"], budget=SMALL, claims=[ARGUED])
    assert report.readings == [] and not report.rows and not report.defects
    assert report.skipped == {"PQA:transcribed": "holds", "PQA:reconstructed": "holds"}


# test_all_claims_kill_rate lives in tests/test_selection_independence.py, which shares its run
# of every mutant with the test that a mutant's verdict does not depend on the selection.


def test_a_claim_hypothesis_the_proof_names_otherwise_is_dropped_once():
    # H1's independent-heads is the chains' "independence": one row, falsified (its demonstration's
    # masks are not an instance of this reading, so the search over the proof's symbols decides it)
    report = run_mutants(["H1:reconstructed"], budget=Budget(examples=10, sweep=3_000, mc_samples=100, audit=200))
    drops = {r.mutant: r for r in report.rows if r.mutant.startswith("dropped-hypothesis:")}
    assert set(drops) == {"dropped-hypothesis:independence"}
    assert drops["dropped-hypothesis:independence"].verdict == "falsified"


def test_a_closed_goal_of_a_tiny_float_is_not_taken_for_zero():
    """Review 49: nsimplify took 1e-100 for 0, so 1e-100 <= 0 was decided true."""
    import sympy as sp

    from attnbounds.engine.mutants import _closed

    assert _closed(sp.Float(1e-100), "<=", 0) is False
    assert _closed(sp.Float(-1e-100), "<=", 0) is True
    assert _closed(sp.Float(1e-100), "==", 0) is False
