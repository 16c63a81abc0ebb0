"""Tests of the verdict engine on toy claims built here, with known answers.

The toy claims are registered in an isolated registry (the paper's claims are hidden), so
these tests do not depend on the claim modules.
"""

from __future__ import annotations

import json
from dataclasses import replace
import time

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

from attnbounds import claims as registry
from attnbounds.claims import registry as claim_registry
from attnbounds import engine
from attnbounds.claims.base import VERDICTS, Claim, Estimate, Hypothesis, Proof, Reading, Sides
from attnbounds.engine import Budget, MethodOutcome, combine
from attnbounds.theory.proof import Chain, by

SMALL = Budget(examples=40, sweep=5_000, mc_samples=100, audit=200)


# --------------------------------------------------------------------------- toy claims


def square_sides(inst):
    x = np.asarray(inst["x"], dtype=float)
    return Sides(x**2, x)


def int_sides(inst):
    # n² <= 10 n is false exactly for n >= 11: the minimal counterexample is n = 11
    n = np.asarray(inst["n"], dtype=float)
    return Sides(n**2, 10 * n)


def amgm_sides(inst):
    # (a + b)/2 >= sqrt(ab) on a, b >= 0: true
    a, b = np.asarray(inst["a"], float), np.asarray(inst["b"], float)
    return Sides((a + b) / 2, np.sqrt(a * b))


def amgm_symbolic():
    # with a = u², b = v²: (a+b)/2 - sqrt(ab) = (u - v)²/2 >= 0, a chain the kernel checks
    u, v = sp.symbols("u v", nonnegative=True)
    chain = Chain((u**2 + v**2) / 2).ge(u * v, by.algebra())
    return Proof.from_chain(chain.prove((u**2 + v**2) / 2, ">=", u * v), "(a+b)/2 - sqrt(ab) = (sqrt a - sqrt b)^2/2 >= 0")


def amgm_bind(inst):
    # the tie: the proof's u, v are the square roots of the reading's a, b
    u, v = sp.symbols("u v", nonnegative=True)
    return {u: float(np.sqrt(inst["a"])), v: float(np.sqrt(inst["b"]))}


def checked_proof(detail: str) -> Proof:
    """A proof whose one step (1 <= 2) the kernel checks: enough for the engine's logic."""
    one = sp.Integer(1)
    return Proof.from_chain(Chain(one).le(2, by.algebra()).prove(one, "<=", 2), detail)


def x_in_0_2():
    return st.fixed_dictionaries({"x": st.floats(0, 2, allow_nan=False)})


def n_in_0_100():
    return st.fixed_dictionaries({"n": st.integers(0, 100)})


def ab_nonneg():
    return st.fixed_dictionaries({"a": st.floats(0, 100), "b": st.floats(0, 100)})


def sweep_x(rng, n):
    return {"x": rng.uniform(0, 2, n)}


def sweep_n(rng, n):
    return {"n": rng.integers(0, 101, n)}


def sweep_ab(rng, n):
    return {"a": rng.uniform(0, 100, n), "b": rng.uniform(0, 100, n)}


def make_claim(cid, *readings, hypotheses=()):
    names = {r.name for r in readings}
    extra = []
    for needed in ("transcribed", "reconstructed"):
        if needed not in names:
            extra.append(Reading(needed, "no method", "-"))
    return Claim(
        id=cid,
        title=f"toy {cid}",
        source="tests",
        statement="toy",
        transcription="toy",
        transcription_latex="toy",
        hypotheses=tuple(hypotheses),
        readings=tuple(readings) + tuple(extra),
        proof="toy",
    )


FALSE_FLOAT = Reading("transcribed", "x² <= x on [0, 2]", "x^2 \\le x", strategy=x_in_0_2, sides=square_sides,
                      sweep=sweep_x)
FALSE_INT = Reading("transcribed", "n² <= 10n on 0..100", "n^2 \\le 10n", strategy=n_in_0_100, sides=int_sides,
                    sweep=sweep_n)
TRUE_AMGM = Reading("reconstructed", "AM >= GM", "\\frac{a+b}2 \\ge \\sqrt{ab}", relation=">=",
                    symbolic=amgm_symbolic, strategy=ab_nonneg, sides=amgm_sides, sweep=sweep_ab, bind=amgm_bind)
TRUE_NUMERIC = Reading("reconstructed", "AM >= GM, numerically", "-", relation=">=", strategy=ab_nonneg,
                       sides=amgm_sides, sweep=sweep_ab)


@pytest.fixture
def toy_registry(monkeypatch):
    """Hide the paper's claims; return a function that registers toy claims."""
    monkeypatch.setattr(claim_registry, "REGISTRY", claim_registry.ClaimRegistry(modules=()))
    return registry.register


# --------------------------------------------------------------------------- verdicts


def test_false_integer_claim_is_falsified_with_the_exact_minimal_counterexample():
    claim = make_claim("TOYI", FALSE_INT)
    row = engine.judge_reading(claim, FALSE_INT, budget=SMALL)
    assert row["verdict"] == "falsified"
    cex = row["counterexample"]
    assert cex["method"] == "strategy"  # the shrunk Hypothesis instance is preferred
    assert cex["instance"] == {"n": 11}
    assert (cex["lhs"], cex["rhs"]) == (121.0, 110.0)
    assert "121" in row["evidence"] and "110" in row["evidence"]
    # the sweep independently finds violations (all scalars: of one size, the largest n)
    assert "violate" in row["detail"]["sweep"]
    assert row["sweep"] == SMALL.sweep and row["examples"] >= 1


def test_sweep_reports_the_smallest_violating_instance():
    # "sum of the entries <= 1" fails for every length >= 2; the sweep must report a violator
    # of the fewest entries among the lengths it drew, not the one that violates most
    drawn = []

    def sweep(rng, count):
        L = int(rng.integers(2, 10))
        drawn.append(L)
        return {"v": np.ones((count, L))}

    reading = Reading("transcribed", "sum v <= 1", "\\sum v \\le 1",
                      sides=lambda inst: Sides(np.asarray(inst["v"]).sum(axis=-1), 1.0), sweep=sweep)
    out = engine.run_sweep(reading, Budget(examples=1, sweep=20_000, mc_samples=10))
    assert out.outcome == "fail" and "the one with the fewest entries" in out.detail
    assert len(set(drawn)) > 1  # lengths differed, so the choice was made
    assert np.shape(out.counterexample["instance"]["v"]) == (min(drawn),)


def test_false_float_claim_is_falsified_with_a_violating_instance_in_range():
    claim = make_claim("TOYF", FALSE_FLOAT)
    row = engine.judge_reading(claim, FALSE_FLOAT, budget=SMALL)
    assert row["verdict"] == "falsified"
    x = row["counterexample"]["instance"]["x"]
    assert 1.0 < x <= 2.0
    assert row["counterexample"]["lhs"] == pytest.approx(x * x)
    assert row["counterexample"]["lhs"] > row["counterexample"]["rhs"]


def test_sweep_reports_the_worst_violating_instance_and_the_violation_count():
    out = engine.run_sweep(FALSE_INT, SMALL, seed=3)
    assert out.outcome == "fail" and out.count == SMALL.sweep
    cex = out.counterexample
    assert cex["instance"] == {"n": 100}  # largest n²-10n on 0..100
    assert (cex["lhs"], cex["rhs"]) == (10000.0, 1000.0)
    # about 90 of the 101 values of n violate
    assert 0.85 < cex["violations"] / cex["of"] < 0.93


def test_true_claim_with_a_symbolic_proof_is_proved():
    claim = make_claim("TOYT", TRUE_AMGM)
    row = engine.judge_reading(claim, TRUE_AMGM, budget=SMALL)
    assert row["verdict"] == "proved"
    assert row["methods"] == ["symbolic", "strategy", "sweep"]
    assert row["counterexample"] is None and row["conflict"] is None


def test_true_claim_without_proof_holds_and_states_both_counts():
    claim = make_claim("TOYN", TRUE_NUMERIC)
    row = engine.judge_reading(claim, TRUE_NUMERIC, budget=SMALL)
    assert row["verdict"] == "holds"
    assert row["examples"] == SMALL.examples
    assert row["sweep"] == SMALL.sweep
    assert str(SMALL.examples) in row["evidence"] and str(SMALL.sweep) in row["evidence"]


def test_holds_needs_both_search_methods():
    only_hyp = Reading("reconstructed", "-", "-", relation=">=", strategy=ab_nonneg, sides=amgm_sides)
    row = engine.judge_reading(make_claim("TOYH", only_hyp), only_hyp, budget=SMALL)
    assert row["verdict"] == "undecided"
    assert "sweep" in row["evidence"]


def test_reading_without_methods_is_undecided():
    r = Reading("transcribed", "-", "-")
    row = engine.judge_reading(make_claim("TOY0", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and row["methods"] == []


def test_symbolic_cannot_decide_is_undecided():
    r = Reading("transcribed", "-", "-", symbolic=lambda: Proof(None, "sympy gave up"))
    row = engine.judge_reading(make_claim("TOYU", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and "sympy gave up" in row["evidence"]


def test_symbolic_refutation_is_falsified_and_confirmed_numerically():
    r = Reading("transcribed", "-", "-", symbolic=lambda: Proof(False, "x = 3/2", {"x": 1.5}), sides=square_sides)
    row = engine.judge_reading(make_claim("TOYS", r), r, budget=SMALL)
    assert row["verdict"] == "falsified"
    assert row["counterexample"] == {"instance": {"x": 1.5}, "lhs": 2.25, "rhs": 1.5, "method": "symbolic"}


def test_certify_pass_untied_is_holds_and_names_the_certificate():
    from hypothesis import strategies as st

    from attnbounds.numerics.intervals import certify_between_on_grid

    def certify():
        status, cert = certify_between_on_grid(lambda z: [z[0] * (1 - z[0])], [(0, 1)], 64, "-1/100", "26/100")
        return Proof(status, "arb enclosure", certificate=cert)

    r = Reading("transcribed", "-", "-", certify=certify)
    row = engine.judge_reading(make_claim("TOYC", r), r, budget=SMALL)
    # nothing but the certificate: nothing ties it to the reading's sides
    assert row["verdict"] == "undecided" and "not cross-checked" in row["evidence"], row
    numeric = dict(sides=lambda i: Sides(np.zeros_like(np.asarray(i["x"], float)), np.ones_like(np.asarray(i["x"], float))),
                   sweep=lambda rng, k: {"x": rng.uniform(size=k)},
                   strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, 1)}))
    r = Reading("transcribed", "-", "-", certify=certify, **numeric)
    row = engine.judge_reading(make_claim("TOYC", r), r, budget=SMALL)
    # the certificate bounds x(1 - x) on [0, 1]; the reading's sides are 0 <= 1: nothing ties one to
    # the other (trial 48: an unrelated certificate made a reading `certified`), so the verdict is the
    # numeric evidence's, and the row names the certificate it could not use
    assert row["verdict"] == "holds", row
    assert "interval certificate" in row["evidence"] and "not certified" in row["evidence"], row
    assert "certificate: arb, 64 cells a side" in row["evidence"] and "[0, 1]" in row["evidence"], row
    # a Proof(True) with no interval certificate is no certificate (review 46)
    r = Reading("transcribed", "-", "-", certify=lambda: Proof(True, "arb enclosure"), **numeric)
    row = engine.judge_reading(make_claim("TOYC", r), r, budget=SMALL)
    # (trial 49: a certify that certifies nothing is named in the holds, where it had left no trace)
    assert row["verdict"] == "holds", row
    assert "certify did not certify: certify() returned Proof(True) without an interval certificate" in \
        row["evidence"], row["evidence"]


def test_a_proof_of_another_statement_is_caught_by_the_numeric_sides():
    """The chain's goal is its author's: a checked proof of 1 <= 2 attached to a false reading is
    a conflict when a numeric method evaluates the reading, and undecided without one."""
    one = sp.Integer(1)
    unrelated = lambda: Proof.from_chain(Chain(one).le(2, by.algebra()).prove(one, "<=", 2), "1 <= 2")  # noqa: E731
    false_sides = dict(sides=lambda i: Sides(2 * np.ones_like(i["x"]), np.ones_like(i["x"])),
                       sweep=lambda rng, k: {"x": rng.uniform(size=k)})
    r = Reading("transcribed", "2 <= 1", "-", symbolic=unrelated, **false_sides)
    row = engine.judge_reading(make_claim("TOYX", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and row["conflict"], row
    bare = Reading("transcribed", "2 <= 1", "-", symbolic=unrelated)
    row = engine.judge_reading(make_claim("TOYX", bare), bare, budget=SMALL)
    assert row["verdict"] == "undecided" and "not cross-checked" in row["evidence"], row
    # a numeric method that ran but checked nothing does not count (the second review's cases)
    sym = MethodOutcome("symbolic", "pass", "chain")
    for numeric in (MethodOutcome("strategy", "incomplete", "every example discarded", count=0),
                    MethodOutcome("sweep", "incomplete", "cut short", count=0),
                    MethodOutcome("montecarlo", "unknown", "timed out")):
        j = combine(bare, [sym, numeric], SMALL)
        assert j.verdict == "undecided" and "not cross-checked" in j.evidence, (numeric, j)


# --------------------------------------------------------------------------- Monte Carlo


def _mc(lhs_ci, rhs_ci, relation="<="):
    def montecarlo(rng, n):
        draws = rng.uniform(lhs_ci[0], lhs_ci[1], n)
        return Estimate(float(draws.mean()), lhs_ci, sum(rhs_ci) / 2, rhs_ci, n, 0.99, {"L": 8}, "toy")

    return Reading("transcribed", "-", "-", relation=relation, montecarlo=montecarlo)


@pytest.mark.parametrize(
    ("lhs_ci", "rhs_ci", "relation", "verdict"),
    [
        ((0.1, 0.3), (0.5, 0.5), "<=", "holds"),
        ((0.6, 0.7), (0.5, 0.5), "<=", "falsified"),
        ((0.4, 0.6), (0.5, 0.5), "<=", "undecided"),  # straddles
        ((0.1, 0.3), (0.5, 0.5), ">=", "falsified"),
        ((0.45, 0.55), (0.5, 0.5), "==", "undecided"),  # sampling cannot establish equality
        ((0.1, 0.2), (0.5, 0.5), "==", "falsified"),
    ],
)
def test_montecarlo_verdicts_follow_the_intervals(lhs_ci, rhs_ci, relation, verdict):
    r = _mc(lhs_ci, rhs_ci, relation)
    row = engine.judge_reading(make_claim("TOYM", r), r, budget=SMALL)
    assert row["verdict"] == verdict
    assert row["mc"]["samples"] == SMALL.mc_samples and row["mc"]["lhs_ci"] == list(lhs_ci)
    if verdict == "falsified":
        assert row["counterexample"]["instance"] == {"L": 8}
        assert row["counterexample"]["lhs_ci"] == list(lhs_ci)


def test_montecarlo_outcome_rejects_malformed_intervals():
    with pytest.raises(ValueError, match="estimate"):
        engine.montecarlo_outcome(Estimate(0.1, (0.3, 0.1), 0.5, (0.5, 0.5), 10, 0.9), "<=")


# --------------------------------------------------------------------------- conflicts and errors


def test_proof_contradicted_by_a_counterexample_is_a_loud_conflict():
    r = Reading("transcribed", "-", "-", symbolic=lambda: checked_proof("bogus proof"), strategy=x_in_0_2,
                sides=square_sides, sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYX", r), r, budget=SMALL)
    assert row["verdict"] == "undecided"
    assert "symbolic" in row["conflict"] and "counterexample" in row["conflict"]
    assert row["evidence"].startswith("CONFLICT")
    assert row["counterexample"] is not None  # the evidence of the bug is kept


def test_symbolic_counterexample_not_violating_numerically_is_a_conflict():
    r = Reading("transcribed", "-", "-", symbolic=lambda: Proof(False, "wrong", {"x": 0.5}), sides=square_sides)
    row = engine.judge_reading(make_claim("TOYY", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and "numeric sides hold" in row["conflict"]


def test_errors_in_methods_give_undecided_with_the_error_text_and_never_crash():
    def bad_sides(inst):
        x = np.asarray(inst["x"], float)
        if np.any(x > 1.5):
            raise ZeroDivisionError("boom in sides")
        return Sides(x, x)

    def bad_symbolic():
        raise RuntimeError("sympy exploded")

    r = Reading("transcribed", "-", "-", symbolic=bad_symbolic, strategy=x_in_0_2, sides=bad_sides, sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYE", r), r, budget=SMALL)
    assert row["verdict"] == "undecided"
    assert "sympy exploded" in row["error"] and "boom in sides" in row["error"]
    assert row["detail"]["sweep"].startswith("sweep: ZeroDivisionError")


def test_nan_sides_are_an_error_not_a_counterexample():
    r = Reading("transcribed", "-", "-", strategy=x_in_0_2, sides=lambda i: Sides(np.nan * i["x"], 1.0),
                sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYNAN", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and "NaN" in row["error"]


def test_both_sides_the_same_infinity_are_an_error_not_a_pass():
    """Σ e^{x/T} <= max e^{x/T} overflowed to inf <= inf, which "held" (a new user's trial)."""
    def big(i):
        with np.errstate(over="ignore"):
            return np.exp(1e3 * (1.0 + np.asarray(i["x"], dtype=float)))

    r = Reading("transcribed", "-", "-", strategy=x_in_0_2, sides=lambda i: Sides(2 * big(i), big(i)), sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYINF", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and "a side infinite" in row["evidence"], row
    # one infinite side against a finite one is not decided either: an overflow's true value may be
    # below the other side (review 46: e^x·1e-300 is inf at x = 710.5, its value 3.6e8 < 1e9)
    r = Reading("transcribed", "-", "-", strategy=x_in_0_2, sides=lambda i: Sides(np.asarray(i["x"]), big(i)),
                sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYINF2", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and "a side infinite" in row["evidence"], row
    # an instance with a finite violating element is a counterexample whatever its other elements are
    r = Reading("transcribed", "-", "-", strategy=x_in_0_2, sweep=sweep_x,
                sides=lambda i: Sides(np.stack([np.asarray(i["x"], float), 2 + 0 * np.asarray(i["x"], float)], -1),
                                      np.stack([big(i), 1 + 0 * np.asarray(i["x"], float)], -1)))
    assert engine.judge_reading(make_claim("TOYINF3", r), r, budget=SMALL)["verdict"] == "falsified"


def test_a_bound_met_only_within_the_rounding_slack_says_so():
    """min w >= 1e-300 at w = 0 holds only by atol: the evidence says by how much it is off."""
    r = Reading("transcribed", "-", "-", relation=">=", strategy=x_in_0_2,
                sides=lambda i: Sides(0.0 * np.asarray(i["x"]), np.full(np.shape(i["x"]), 1e-300)), sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYSLACK", r), r, budget=SMALL)
    assert row["verdict"] == "holds" and "by at most 1e-300, within the rounding slack atol=1e-12" in row["evidence"]
    r = Reading("transcribed", "-", "-", relation=">=", strategy=x_in_0_2, atol=0.0, rtol=0.0,
                sides=lambda i: Sides(0.0 * np.asarray(i["x"]), np.full(np.shape(i["x"]), 1e-300)), sweep=sweep_x)
    assert engine.judge_reading(make_claim("TOYSLACK0", r), r, budget=SMALL)["verdict"] == "falsified"


def test_a_violation_below_six_digits_is_printed_with_the_digits_that_show_it():
    r = Reading("transcribed", "-", "-", relation="==", strategy=x_in_0_2,
                sides=lambda i: Sides(np.ones(np.shape(i["x"])), np.full(np.shape(i["x"]), 1 + 1e-7)), sweep=sweep_x)
    row = engine.judge_reading(make_claim("TOYDIG", r), r, budget=SMALL)
    assert row["verdict"] == "falsified" and "lhs=1 != rhs=1.0000001" in row["evidence"]


def test_wrong_return_type_is_an_error():
    r = Reading("transcribed", "-", "-", symbolic=lambda: True)
    row = engine.judge_reading(make_claim("TOYW", r), r, budget=SMALL)
    assert row["verdict"] == "undecided" and "expected Proof" in row["error"]


def test_the_time_limit_is_a_safety_net_that_says_when_it_fires():
    def slow_symbolic():
        time.sleep(5)
        return checked_proof("too late")

    def slow_sweep(rng, n):
        time.sleep(0.15)
        return {"a": rng.uniform(0, 1, n), "b": rng.uniform(0, 1, n)}

    # both methods overrun any limit (the sweep asks for 1e9 instances): no timing assumption
    r = Reading("reconstructed", "-", "-", relation=">=", symbolic=slow_symbolic, sides=amgm_sides, sweep=slow_sweep)
    budget = Budget(examples=10, sweep=10**9, mc_samples=10, time_limit=0.4)
    row = engine.judge_reading(make_claim("TOYL", r), r, budget=budget)
    assert row["verdict"] == "undecided"  # a search cut short never holds
    assert row["timed_out"] == ["symbolic", "sweep"]
    assert row["evidence"].startswith("TIME LIMIT (symbolic, sweep)")
    assert row["detail"]["symbolic"].startswith("TIME LIMIT") and "0.4 s" in row["detail"]["symbolic"]
    assert "TIME LIMIT" in row["detail"]["sweep"] and row["sweep"] < budget.sweep
    assert row["method_seconds"]["symbolic"] < 4  # interrupted, not waited for
    # a counterexample found before the limit is still reported, marked as cut
    false_slow = Reading("transcribed", "-", "-", sides=square_sides, sweep=lambda rng, n: (
        time.sleep(0.15), {"x": rng.uniform(0, 2, n)})[1])
    row = engine.judge_reading(make_claim("TOYL2", false_slow), false_slow, budget=budget)
    assert row["verdict"] == "falsified" and row["timed_out"] == ["sweep"]
    assert row["evidence"].startswith("TIME LIMIT (sweep)")


def test_the_time_limit_interrupts_hypothesis_and_keeps_a_counterexample_it_found():
    def slow(sides):
        def wrapped(inst):
            time.sleep(0.05)
            return sides(inst)
        return wrapped

    # 200 examples of 0.05 s each overrun 0.6 s, whatever the load
    true = Reading("t", "-", "-", relation=">=", strategy=ab_nonneg, sides=slow(amgm_sides))
    out = engine.run_strategy(true, Budget(examples=200, sweep=1, mc_samples=1, time_limit=0.6))
    assert out.outcome == "incomplete" and out.timed_out and out.count < 200
    assert out.detail.startswith("Hypothesis: TIME LIMIT")
    seen = []

    def slow_shrinking(inst):  # fast until the first violation, then 1 s a call: the limit hits the shrinking
        if seen:
            time.sleep(1.0)
        sides = square_sides(inst)
        if sides.lhs > sides.rhs:
            seen.append(inst)
        return sides

    false = Reading("t", "-", "-", strategy=x_in_0_2, sides=slow_shrinking)  # x² <= x fails for x > 1
    out = engine.run_strategy(false, Budget(examples=200, sweep=1, mc_samples=1, time_limit=2.0))
    assert out.outcome == "fail" and out.timed_out and "not fully shrunk" in out.detail
    assert out.counterexample["lhs"] > out.counterexample["rhs"]


def test_no_time_limit_means_every_method_does_its_whole_budget():
    r = Reading("reconstructed", "-", "-", relation=">=", strategy=ab_nonneg, sides=amgm_sides, sweep=sweep_ab)
    row = engine.judge_reading(make_claim("TOYN", r), r, budget=Budget(examples=10, sweep=3_000, mc_samples=10))
    assert row["verdict"] == "holds" and row["timed_out"] is None
    assert row["examples"] == 10 and row["sweep"] == 3_000


# --------------------------------------------------------------------------- combination alone


def _o(method, outcome, count=None, cex=None):
    return MethodOutcome(method, outcome, f"{method} {outcome}", count=count, counterexample=cex)


def test_combine_precedence():
    r = TRUE_AMGM
    b = Budget(examples=5, sweep=100)
    cex = {"instance": {"a": 1}, "lhs": 1.0, "rhs": 2.0, "method": "sweep"}
    tied = replace(_o("symbolic", "pass"), proof={"proves": ["(u**2 + v**2)/2 >= u*v"],
                                                  "tie": {"status": "tied", "instances": 32}})
    assert combine(r, [tied, _o("strategy", "pass", 5), _o("sweep", "pass", 100)], b).verdict == "proved"
    # untied (no tie in the proof): the proof is named, the verdict is the numeric evidence's
    j = combine(r, [_o("symbolic", "pass"), _o("strategy", "pass", 5), _o("sweep", "pass", 100)], b)
    assert j.verdict == "holds" and "not tied to the reading (no bind), so not proved" in j.evidence, j.evidence
    j = combine(r, [_o("certify", "pass"), _o("strategy", "pass", 5), _o("sweep", "pass", 100)], b)
    assert j.verdict == "holds" and "so not certified" in j.evidence, j.evidence
    assert combine(r, [_o("symbolic", "unknown"), _o("strategy", "pass", 5), _o("sweep", "pass", 100)], b).verdict == "holds"
    assert combine(r, [_o("symbolic", "unknown"), _o("strategy", "pass", 5), _o("sweep", "pass", 99)], b).verdict == "undecided"
    assert combine(r, [_o("strategy", "pass", 5), _o("sweep", "incomplete", 50)], b).verdict == "undecided"
    j = combine(r, [_o("symbolic", "unknown"), _o("strategy", "pass", 5), _o("sweep", "fail", 100, cex)], b)
    assert j.verdict == "falsified" and j.counterexample == cex
    j = combine(r, [_o("certify", "pass"), _o("sweep", "fail", 100, cex)], b)
    assert j.verdict == "undecided" and j.conflict
    j = combine(r, [_o("symbolic", "pass"), _o("strategy", "error")], b)
    assert j.verdict == "undecided" and j.error
    assert combine(r, [], b).verdict == "undecided"


def test_combine_never_returns_an_unknown_verdict():
    r = TRUE_AMGM
    for outcomes in (["pass"], ["fail"], ["unknown"], ["error"], ["incomplete"]):
        for method in ("symbolic", "certify", "strategy", "sweep", "montecarlo"):
            cex = {"instance": {}, "lhs": 1.0, "rhs": 0.0, "method": method}
            assert combine(r, [_o(method, outcomes[0], 10, cex)], Budget()).verdict in VERDICTS


# --------------------------------------------------------------------------- check(): selection, rows


def _drop_ok():
    return Proof(False, "unbounded logits", {"logits": [0.0, 40.0], "L": 2}, lhs=1.0, rhs=0.5)


def _drop_broken():
    raise ValueError("drop is broken")


def _register_toys(register):
    register(make_claim("TOYI", FALSE_INT, TRUE_NUMERIC,
                        hypotheses=(Hypothesis("bounded", "logits in [-a, a]", drop=_drop_ok),
                                    Hypothesis("broken", "-", drop=_drop_broken),
                                    Hypothesis("nodrop", "-"))))
    register(make_claim("TOYT", TRUE_AMGM))


def test_check_rows_follow_the_schema_and_are_strict_json(toy_registry):
    _register_toys(toy_registry)
    seen = []
    rows = engine.check(budget=SMALL, progress=lambda label, done, total: seen.append((label, done, total)))
    ids = [r["id"] for r in rows]
    assert ids == ["TOYI:transcribed", "TOYI:reconstructed", "TOYI:without-bounded", "TOYI:without-broken",
                   "TOYT:reconstructed", "TOYT:transcribed"]
    for row in rows:
        assert isinstance(row, engine.Row)
        assert tuple(row) == engine.ROW_FIELDS == tuple(row.to_dict())
        assert row.verdict == row["verdict"] and engine.Row.from_dict(row.to_dict()) == row
        assert row["verdict"] in VERDICTS
        assert isinstance(row["methods"], list) and isinstance(row["seconds"], float)
        assert isinstance(row["evidence"], str) and row["evidence"]
        cex = row["counterexample"]
        if cex is not None:
            assert set(cex) >= {"instance", "lhs", "rhs", "method"}
            assert isinstance(cex["instance"], dict)
    json.loads(json.dumps([r.to_dict() for r in rows], allow_nan=False))
    verdicts = {r["id"]: r["verdict"] for r in rows}
    assert verdicts["TOYI:transcribed"] == "falsified"
    assert verdicts["TOYI:reconstructed"] == "holds"
    assert verdicts["TOYI:without-bounded"] == "falsified"
    assert verdicts["TOYI:without-broken"] == "undecided"
    assert verdicts["TOYT:reconstructed"] == "proved"
    assert verdicts["TOYT:transcribed"] == "undecided"
    drop = rows[2]
    assert drop["kind"] == "hypothesis" and drop["counterexample"]["instance"] == {"logits": [0.0, 40.0], "L": 2}
    assert "drop is broken" in rows[3]["error"]
    # progress: one call per unit in order, plus per-method calls, ending with done == total
    assert seen[-1] == ("done", 6, 6)
    assert [s for s in seen if ":" in s[0] and " " not in s[0]] == [(i, k, 6) for k, i in enumerate(ids)]


def test_same_seed_same_rows_and_reading_alone_equals_reading_in_a_run(toy_registry):
    _register_toys(toy_registry)

    def strip(rows):
        return [{k: v for k, v in r.items() if k not in ("seconds", "method_seconds")} for r in rows]

    a = engine.check(["TOYI"], budget=SMALL, seed=7)
    b = engine.check(["TOYI"], budget=SMALL, seed=7)
    assert strip(a) == strip(b)
    alone = engine.check(["TOYI:transcribed"], budget=SMALL, seed=7)
    assert strip(alone) == strip(a[:1])
    # the seed matters: the float sweep's chosen instance changes with it
    f1 = engine.run_sweep(FALSE_FLOAT, SMALL, seed=1)
    f2 = engine.run_sweep(FALSE_FLOAT, SMALL, seed=2)
    assert f1.counterexample["instance"] != f2.counterexample["instance"]


def test_unknown_ids_and_bad_options_name_the_argument(toy_registry):
    _register_toys(toy_registry)
    with pytest.raises(ValueError, match=r"ids: unknown id 'NOPE'; valid: TOYI, TOYI:transcribed"):
        engine.check(["NOPE"])
    with pytest.raises(ValueError, match="ids: unknown id 'TOYI:nope'"):
        engine.check(["TOYI:nope"])
    with pytest.raises(ValueError, match=r"ids: unknown id 'TOYJ' \(did you mean 'TOYI'"):
        engine.check(["TOYJ"])
    with pytest.raises(ValueError, match="examples"):
        engine.check(["TOYI"], examples=0)
    with pytest.raises(ValueError, match="seed"):
        engine.check(["TOYI"], seed=-1)
    with pytest.raises(TypeError, match="progress"):
        engine.check(["TOYI"], progress=3)
    for bad in (0, -1.0, float("inf"), True, "60"):
        with pytest.raises(ValueError, match="time_limit"):
            Budget(time_limit=bad)
    with pytest.raises(TypeError, match="claim"):
        engine.judge_reading("L1", TRUE_AMGM)


def test_selection_by_reading_and_drop_ids(toy_registry):
    _register_toys(toy_registry)
    rows = engine.check(["TOYT:reconstructed", "TOYI:without-bounded"], budget=SMALL)
    assert [r["id"] for r in rows] == ["TOYI:without-bounded", "TOYT:reconstructed"]


def test_a_claim_module_that_fails_to_load_is_a_row_not_a_crash(monkeypatch):
    monkeypatch.setattr(
        claim_registry, "REGISTRY", claim_registry.ClaimRegistry(modules=["attnbounds.claims.no_such_module_for_tests"])
    )
    rows = engine.check(budget=SMALL)
    assert len(rows) == 1
    assert rows[0]["kind"] == "load-error" and rows[0]["verdict"] == "undecided"
    assert "no_such_module_for_tests" in rows[0]["error"]


def test_interrupt_returns_finished_rows_and_the_partial_one(toy_registry):
    def interrupting_sweep(rng, n):
        raise KeyboardInterrupt

    r = Reading("reconstructed", "-", "-", relation=">=", symbolic=amgm_symbolic, strategy=ab_nonneg,
                sides=amgm_sides, sweep=interrupting_sweep)
    toy_registry(make_claim("TOYA", FALSE_INT))
    toy_registry(make_claim("TOYB", r))
    with pytest.raises(engine.CheckInterrupted) as info:
        engine.check(budget=SMALL)
    rows = info.value.rows
    assert [x["id"] for x in rows] == ["TOYA:transcribed", "TOYA:reconstructed", "TOYB:reconstructed"]
    assert rows[0]["verdict"] == "falsified"
    partial = rows[2]
    assert partial["error"] == "interrupted" and partial["verdict"] == "undecided"
    assert partial["methods"] == ["symbolic", "strategy"]  # what finished before the interrupt
    assert isinstance(info.value, KeyboardInterrupt)


def test_sweep_of_per_element_bounds_aligns_the_batch_axis():
    # lhs (B, L) per-token values against one bound per instance, rhs (B,): max_i v_i <= 1
    def sides(inst):
        v = np.asarray(inst["v"], float)
        return Sides(v, np.ones(v.shape[:-1]))

    r = Reading("transcribed", "v_i <= 1", "-", sides=sides, sweep=lambda rng, n: {"v": rng.uniform(0, 1.01, (n, 4))})
    out = engine.run_sweep(r, SMALL, seed=0)
    assert out.outcome == "fail"
    v = np.array(out.counterexample["instance"]["v"])
    assert v.shape == (4,) and v.max() > 1 and out.counterexample["lhs"] == v.max()


def test_drop_instance_must_break_the_hypothesis():
    def positive(inst):
        return np.asarray(inst["logits"], float).min() > -50  # a stand-in predicate

    ok = Hypothesis("h", "-", check=lambda inst: np.abs(np.asarray(inst["logits"])).max() <= 1, drop=_drop_ok)
    row = engine.judge_hypothesis_drop(make_claim("TOYD", FALSE_INT), ok)
    assert row["verdict"] == "falsified" and "confirms" in row["detail"]["check"]
    useless = Hypothesis("h", "-", check=positive, drop=_drop_ok)  # the instance satisfies it
    row = engine.judge_hypothesis_drop(make_claim("TOYD", FALSE_INT), useless)
    assert row["verdict"] == "undecided" and "satisfies 'h'" in row["conflict"]
    unreadable = Hypothesis("h", "-", check=lambda inst: inst["family"], drop=_drop_ok)
    row = engine.judge_hypothesis_drop(make_claim("TOYD", FALSE_INT), unreadable)
    assert row["verdict"] == "falsified" and "KeyError" in row["detail"]["check"]


def test_a_strategy_that_draws_no_dict_is_an_error_that_says_so():
    bare = Reading("transcribed", "x² <= x", "-", strategy=lambda: st.floats(0, 2, allow_nan=False), sides=square_sides)
    out = engine.run_strategy(bare, SMALL)
    assert out.outcome == "error" and "strategy() drew a float, expected a dict instance" in out.detail


def test_sides_that_give_one_value_for_a_batch_are_refused():
    # float(x[0]) judges the first instance only: "no counterexample in 5,000 instances" would be untrue
    one = Reading("transcribed", "x² <= 4", "-", sweep=sweep_x,
                  sides=lambda inst: Sides(float(np.ravel(inst["x"])[0]) ** 2, 4.0))
    out = engine.run_sweep(one, SMALL)
    assert out.outcome == "error" and "one value for a batch of" in out.detail


def test_a_sweep_of_one_fixed_instance_is_judged_once_and_says_so():
    fixed = Reading("transcribed", "1/2 <= 1", "-", sweep=lambda rng, n: {"x": 0.5},
                    sides=lambda inst: Sides(np.asarray(inst["x"], float), 1.0))
    out = engine.run_sweep(fixed, SMALL)
    assert out.outcome == "pass" and out.count == 1 and "one fixed instance" in out.detail
    wrong = Reading("transcribed", "2 <= 1", "-", sweep=lambda rng, n: {"x": 2.0},
                    sides=lambda inst: Sides(np.asarray(inst["x"], float), 1.0))
    out = engine.run_sweep(wrong, SMALL)
    assert out.outcome == "fail" and out.count == 1 and out.counterexample["instance"] == {"x": 2.0}


def test_a_fixed_instance_outside_the_readings_hypotheses_is_drawn_once():
    outside = Reading("transcribed", "x <= 1 for x >= 5", "-", sweep=lambda rng, n: {"x": 2.0},
                      sides=lambda inst: Sides(np.asarray(inst["x"], float), 1.0),
                      assume=lambda inst, size=None: np.asarray(inst["x"], float) >= 5)
    out = engine.run_sweep(outside, SMALL)
    assert out.outcome == "incomplete" and out.count == 0 and out.discarded == 1


def test_wall_clock_limit_keeps_an_outer_timer():
    """Review 51: an inner limit replaced the outer one and cancelled it on leaving. Now the
    outer timer runs on with what it had left, and an inner limit longer than the outer's time
    left is cut to it (an ``except MethodTimeout`` inside the outer limit can then absorb the
    outer's firing: nothing in the package nests them)."""
    import signal
    import time

    from attnbounds.engine.methods import MethodTimeout, wall_clock_limit

    started = time.monotonic()
    with pytest.raises(MethodTimeout, match="0.4 s"):
        with wall_clock_limit(0.4):
            with wall_clock_limit(30):
                time.sleep(0.05)  # the inner limit ends well before the outer one
            time.sleep(10)  # the outer limit must still fire
    assert time.monotonic() - started < 5
    started = time.monotonic()
    with pytest.raises(MethodTimeout):
        with wall_clock_limit(0.3):
            with wall_clock_limit(30):
                time.sleep(10)  # cut at the outer limit's 0.3 s, not at 30 s
    assert time.monotonic() - started < 5
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # nothing left running
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *args: fired.append(True))
    try:  # a caller's own alarm survives a limit that ends first
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with wall_clock_limit(5):
            time.sleep(0.01)
        time.sleep(1)
        assert fired == [True]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("seconds", [-1, 0, float("nan"), float("inf"), "5", True])
def test_wall_clock_limit_names_a_bad_seconds(seconds):
    from attnbounds.engine.methods import wall_clock_limit

    with pytest.raises(ValueError, match=r"^seconds: must be a finite number > 0"):
        with wall_clock_limit(seconds):
            pass
