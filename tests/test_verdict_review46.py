"""Verdict pipeline review 46: a user's own claims attacking the verdict (verdict.py, methods.py,
tie.py, claims/base.py, plugins.py's claim-file import).

Each test is one attack. The ten holes the review found ("Was a hole") are closed; each test
asserts the verdict the evidence allows and failed before its fix. The others are regression
tests of attacks the pipeline handled, which would fail if it accepted them.
"""

from __future__ import annotations

import sys
import uuid

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

from attnbounds import claims as claim_api
from attnbounds import engine
from attnbounds.claims.base import Claim, Estimate, Proof, Reading, Sides
from attnbounds.engine.budget import Budget
from attnbounds.engine.tie import tie
from attnbounds.theory.proof import Chain, Context, by, issued

SMALL = Budget(examples=20, sweep=500, mc_samples=100, audit=50)
STRONG = ("proved", "certified", "holds")

p = sp.Symbol("p", positive=True)
z = sp.Symbol("z", positive=True)
a_, b_ = sp.symbols("a b", real=True)


def _row(reading: Reading):
    other = Reading("transcribed" if reading.name == "reconstructed" else "reconstructed", "-", "-")
    claim = Claim(id="RV46", paper="review46", title="-", source=__file__, statement="-", transcription="-",
                  transcription_latex="-", hypotheses=(), readings=(reading, other), proof="")
    return engine.judge_reading(claim, reading, budget=SMALL)


def _x(i):
    return np.asarray(i["x"], dtype=float)


def _x_le_half(i):
    """x <= 1/2: false on the stated domain [0, 1] (x = 1)."""
    return Sides(_x(i), 0.5 + 0 * _x(i))


def _xs(rng, n):
    return {"x": rng.uniform(0, 1, n)}


def _xstrat():
    return st.fixed_dictionaries({"x": st.floats(0, 1)})


def _one_le_two() -> Proof:
    one = sp.Integer(1)
    return Proof.from_chain(Chain(one).le(2, by.algebra()).prove(one, "<=", 2), "1 <= 2")


def _p_le_1_from_half(hyps: dict) -> Proof:
    """p <= 1/2 <= 1: a checked chain that needs the hypothesis 'h': p <= 1/2."""
    ch = Chain(p, Context(hyps)).le(sp.Rational(1, 2), by.hypothesis("h")).le(1, by.algebra())
    return Proof.from_chain(ch.prove(p, "<=", 1), "p <= 1/2 <= 1")


def _p_sides(i):
    v = np.asarray(i["p"], dtype=float)
    return Sides(v, 1 + 0 * v)


def _ps(rng, n):
    return {"p": rng.uniform(0.01, 1, n)}


# =========================================================================== the holes found (closed)


@pytest.mark.parametrize("tol", [{"rtol": 1.0}, {"atol": 0.6}, {"rtol": 0.05}, {"atol": -1e-12}, {"rtol": float("nan")}],
                         ids=["rtol", "atol", "rtol-small", "negative", "nan"])
def test_tolerance_abuse_passes_a_false_bound(tol):
    # Was a hole: Reading.rtol/atol are rounding slack only, but holds_relation used them uncapped in
    # the sweep and Hypothesis; x <= 1/2 on [0, 1] with rtol=1 ended `holds` (x <= 1/2 + x holds for
    # every x <= 1; counterexample x = 1). A slack beyond rtol 1e-6 / atol 1e-9 is now refused, by name.
    name = next(iter(tol))
    with pytest.raises(ValueError, match=f"{name}: the rounding slack of a numeric comparison"):
        Reading("reconstructed", "x <= 1/2 on [0, 1]", "-", sides=_x_le_half, sweep=_xs, strategy=_xstrat, **tol)


def test_certify_that_certifies_nothing_is_certified():
    # Was a hole (now: a certify pass needs an interval certificate): `certified` promises interval arithmetic on the stated domain, but run_exact accepts
    # any Proof(True, text) from certify() (no certificate object, no domain). With one fixed sweep
    # instance (x = 1/4) as the "cross-check", the false x <= 1/2 on [0, 1] is `certified`.
    r = Reading("reconstructed", "x <= 1/2 on [0, 1]", "-", sides=_x_le_half,
                sweep=lambda rng, n: {"x": 0.25}, certify=lambda: Proof(True, "arb: x in [0, 1/2]"))
    row = _row(r)
    assert row["verdict"] not in STRONG, row["evidence"]


def test_unrelated_proof_with_one_instance_sweep_is_proved():
    # Was a hole (now: proved needs the tie or the numeric evidence holds needs): without bind, a checked proof of ANY statement (1 <= 2) plus one numeric pass at one
    # fixed instance gives `proved` (verdict._combine only asks for a numeric pass with count > 0).
    # Without the proof the same evidence is `undecided` (holds needs Hypothesis and a full sweep).
    # False reading: x <= 1/2 on [0, 1]; counterexample x = 1.
    r = Reading("reconstructed", "x <= 1/2 on [0, 1]", "-", sides=_x_le_half,
                sweep=lambda rng, n: {"x": 0.25}, symbolic=_one_le_two)
    row = _row(r)
    assert row["verdict"] not in STRONG, row["evidence"]


def test_circular_proof_with_bind_on_a_weak_sweep_is_proved():
    # Was a hole (now: a hypothesis that is the goal up to a positive factor leaves it untied): a <= b from the hypothesis a - b <= 0 (the kernel accepts it: by.hypothesis), bound to
    # the sides {a: x^2, b: x}, is "tied" (the hypothesis holds wherever the reading does), so a
    # reading whose numeric methods miss its counterexamples is `proved`, not `holds`. The reading
    # says x^2 <= x on [0, 2]; the sweep and strategy draw [0, 1]. Counterexample: x = 2 (4 > 2).
    proof = Proof.from_chain(
        Chain(a_, Context({"h": sp.Le(a_ - b_, 0)})).le(b_, by.hypothesis("h")).prove(a_, "<=", b_), "a <= b")
    r = Reading("reconstructed", "x^2 <= x on [0, 2]", "-", sides=lambda i: Sides(_x(i) ** 2, _x(i)),
                sweep=_xs, strategy=_xstrat, symbolic=lambda: proof, bind=lambda i: {a_: _x(i) ** 2, b_: _x(i)})
    row = _row(r)
    assert row["verdict"] != "proved", row["evidence"]


def test_an_overflowed_side_is_taken_as_beyond_every_float():
    # Was a hole (now: any infinite side is undecided): methods._undecided treats one infinite side as decided ("beyond every float"); an
    # intermediate overflow makes e^x * 1e-300 = inf at x = 710.5, whose true value is 3.6e8 < 1e9.
    # The false 1e9 <= e^x 1e-300 on [710, 711] ends `holds`. Counterexample: x = 710 (1e9 > 2.2e8).
    def sides(i):
        x = _x(i)
        with np.errstate(over="ignore"):
            return Sides(1e9 + 0 * x, np.exp(x) * 1e-300)

    r = Reading("reconstructed", "1e9 <= e^x 1e-300 on [710, 711]", "-", sides=sides,
                sweep=lambda rng, n: {"x": rng.uniform(710, 711, n)},
                strategy=lambda: st.fixed_dictionaries({"x": st.floats(710, 711)}))
    row = _row(r)
    assert row["verdict"] not in STRONG, row["evidence"]


def test_montecarlo_with_fewer_samples_than_the_budget_holds():
    # Was a hole (now: a Monte Carlo short of the budget's samples is incomplete): run_montecarlo never compares Estimate.samples with budget.mc_samples (the sweep's
    # count is compared with budget.sweep); a Monte Carlo of 3 samples (asked for 100) is `holds`.
    # The statement E[U] <= 0.45 for U uniform on [0, 1] is false (E[U] = 1/2).
    def mc(rng, samples):
        u = rng.uniform(0, 1, 3)
        m = float(u.mean())
        return Estimate(m, (m, m), 0.45, (0.45, 0.45), 3, 0.99)

    r = Reading("reconstructed", "E[U] <= 0.45", "-",
                montecarlo=lambda rng, samples: mc(np.random.default_rng(3), samples))
    assert mc(np.random.default_rng(3), 100).lhs < 0.45  # the 3 draws happen to fall low
    row = _row(r)
    assert row["verdict"] not in STRONG, row["evidence"]


def test_an_unevaluable_hypothesis_masks_a_failing_one_in_the_tie():
    # Was a hole (now: every evaluable hypothesis at every instance first): tie._at raises _NotEvaluable at the first hypothesis with a symbol bind leaves out
    # (here an unused 'a': z <= 2) and tie() returns "not evaluable" at once, so the hypothesis
    # 'h': p <= 1/2, which fails at the reading's instances p in (1/2, 1], is never reported; the row
    # stays `proved`. Without 'a' the same proof is a CONFLICT (see the regression test below).
    proof = _p_le_1_from_half({"a": sp.Le(z, 2), "h": sp.Le(p, sp.Rational(1, 2))})
    r = Reading("reconstructed", "p <= 1 on (0, 1]", "-", sides=_p_sides, sweep=_ps, symbolic=lambda: proof,
                bind=lambda i: {p: i["p"]})
    row = _row(r)
    assert row["verdict"] != "proved", row["evidence"]
    assert row["proof"]["tie"]["status"] == "untied", row["proof"]["tie"]


def test_a_context_replaced_after_prove_is_still_issued_and_proved():
    # Was a hole (now: the fingerprint holds the context and its hypotheses): theory.proof._fingerprint (issued) covers the chain's identity, not its context; the
    # tie reads part.chain.ctx. A proof that needs 'h': p <= 1/2 is judged once (a CONFLICT, and its
    # step audit is cached by id(chain) in methods._AUDITS); its chain's ctx is then replaced with
    # object.__setattr__, and the same proof is `proved` and "tied", with no hypothesis named.
    proof = _p_le_1_from_half({"h": sp.Le(p, sp.Rational(1, 2))})
    r = Reading("reconstructed", "p <= 1 on (0, 1]", "-", sides=_p_sides, sweep=_ps, symbolic=lambda: proof,
                bind=lambda i: {p: i["p"]})
    assert _row(r)["verdict"] == "undecided"
    object.__setattr__(proof.chain.chain, "ctx", Context())
    assert not issued(proof.chain) or _row(r)["verdict"] != "proved"


def _claim_file(cid: str, head: str, rhs: str) -> str:
    """A claim file's text: x <= ``rhs`` on [0, 1] (``head``: the line that defines what ``rhs`` reads)."""
    return f'''
import numpy as np
from hypothesis import strategies as st
from attnbounds.claims.base import Claim, Reading, Sides
{head}

def sides(i):
    x = np.asarray(i["x"], float)
    return Sides(x, {rhs} + 0 * x)

CLAIM = Claim(id="{cid}", paper="review46", title="-", source="-", statement="-", transcription="-",
              transcription_latex="-", hypotheses=(), proof="", readings=(
    Reading("transcribed", "-", "-"),
    Reading("reconstructed", "x <= RHS on [0, 1]", "-", sides=sides,
            sweep=lambda rng, n: {{"x": rng.uniform(0, 1, n)}},
            strategy=lambda: st.fixed_dictionaries({{"x": st.floats(0, 1)}}))))
'''


def test_an_edited_helper_module_of_a_claim_file_is_stale(tmp_path):
    # Was a hole (now: the modules a claim file imported from beside it are re-imported when one
    # changes): plugins.import_module_or_file re-imports a claim file when its own content changes,
    # but a file beside it that it imports stays in sys.modules: after the helper's bound changes
    # from 1 to 1/2 (x <= 1/2 on [0, 1] is false), load_claims + judge_reading in the same process
    # still says `holds`, even after the claim file itself is edited.
    helper = f"rv46_helper_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{helper}.py").write_text("RHS = 1.0\n")
    main = tmp_path / "rv46_claim.py"
    main.write_text(_claim_file("STALE", f"import {helper} as H", "H.RHS"))

    def verdict():
        c = claim_api.load_claims(str(main))[0]
        return engine.judge_reading(c, c.reading("reconstructed"), budget=SMALL)["verdict"]

    try:
        assert verdict() == "holds"
        (tmp_path / f"{helper}.py").write_text("RHS = 0.5\n")
        main.write_text(main.read_text() + "\n# edited\n")
        assert verdict() == "falsified"
    finally:
        sys.modules.pop(helper, None)


def test_a_sweep_of_one_instance_repeated_counts_as_the_full_budget():
    # Was a hole (now: one instance repeated counts once): a sweep with no batch axis is "one fixed instance: judged once" and never `holds`,
    # but the same instance repeated along a batch axis counts as budget.sweep instances, and a
    # strategy of st.just is one example: the false x <= 1/2 on [0, 1] is `holds` on one point.
    r = Reading("reconstructed", "x <= 1/2 on [0, 1]", "-", sides=_x_le_half,
                sweep=lambda rng, n: {"x": np.full(n, 0.25)}, strategy=lambda: st.just({"x": 0.25}))
    row = _row(r)
    assert row["verdict"] not in STRONG, row["evidence"]


# =========================================================================== handled (regressions)


def test_nan_sides_are_an_error_not_a_pass():
    r = Reading("reconstructed", "x <= 1/2", "-", sides=lambda i: Sides(_x(i) * np.nan, 0.5 + 0 * _x(i)),
                sweep=_xs, strategy=_xstrat, symbolic=_one_le_two)
    row = _row(r)
    assert row["verdict"] == "undecided" and "NaN" in row["evidence"]


def test_both_sides_infinite_is_undecided():
    r = Reading("reconstructed", "e^x <= e^x / 2", "-",
                sides=lambda i: Sides(np.full(np.shape(_x(i)), np.inf), np.full(np.shape(_x(i)), np.inf)),
                sweep=_xs, strategy=_xstrat)
    row = _row(r)
    assert row["verdict"] == "undecided" and "a side infinite" in row["evidence"], row["evidence"]


def test_an_argued_step_never_makes_proved():
    one = sp.Integer(1)
    argued = Proof.from_chain(Chain(one).le(2, by.argued("obvious")).prove(one, "<=", 2), "1 <= 2")
    r = Reading("reconstructed", "x <= 1 on [0, 1]", "-", sides=lambda i: Sides(_x(i), 1 + 0 * _x(i)),
                sweep=_xs, strategy=_xstrat, symbolic=lambda: argued)
    row = _row(r)
    assert row["verdict"] == "holds" and row["proof"]["status"] == "argued"


def test_a_proof_claimed_without_a_chain_is_not_proved():
    r = Reading("reconstructed", "x <= 1 on [0, 1]", "-", sides=lambda i: Sides(_x(i), 1 + 0 * _x(i)),
                sweep=_xs, strategy=_xstrat, symbolic=lambda: Proof(True, "trust me"))
    assert _row(r)["verdict"] == "holds"


def test_a_checked_chain_altered_after_prove_is_an_error():
    proof = _one_le_two()
    object.__setattr__(proof.chain, "goal", (sp.Integer(3), "<=", sp.Integer(2)))
    r = Reading("reconstructed", "x <= 1 on [0, 1]", "-", sides=lambda i: Sides(_x(i), 1 + 0 * _x(i)),
                sweep=_xs, strategy=_xstrat, symbolic=lambda: proof)
    row = _row(r)
    assert row["verdict"] == "undecided" and "altered" in row["evidence"]


def test_context_hypotheses_are_immutable_and_a_bypass_is_refuted_by_the_audit():
    proof = _p_le_1_from_half({"h": sp.Le(p, sp.Rational(1, 2))})
    with pytest.raises(TypeError):
        proof.chain.chain.ctx.hypotheses.pop("h")
    fresh = _p_le_1_from_half({"h": sp.Le(p, sp.Rational(1, 2))})
    dict.pop(fresh.chain.chain.ctx.hypotheses, "h")  # the base class's method: not refused, but audited
    r = Reading("reconstructed", "p <= 1 on (0, 1]", "-", sides=_p_sides, sweep=_ps, symbolic=lambda: fresh,
                bind=lambda i: {p: i["p"]})
    row = _row(r)
    # the fingerprint holds the hypotheses: the chain is no longer what Chain.prove returned
    assert row["verdict"] == "undecided" and "not what Chain.prove returned" in row["evidence"], row["evidence"]


def test_a_bind_to_other_sides_is_a_conflict():
    chain = Chain(p * (1 - p)).le(sp.Rational(1, 4), by.algebra()).prove(p * (1 - p), "<=", sp.Rational(1, 4))
    proof = Proof.from_chain(chain, "p(1 - p) <= 1/4")
    r = Reading("reconstructed", "p(1-p) <= 1/3", "-",
                sides=lambda i: Sides(i["p"] * (1 - i["p"]), 1 / 3 + 0 * i["p"]),
                sweep=_ps, strategy=lambda: st.fixed_dictionaries({"p": st.floats(0.01, 1)}),
                symbolic=lambda: proof, bind=lambda i: {p: i["p"]})
    row = _row(r)
    assert row["verdict"] == "undecided" and row["proof"]["tie"]["status"] == "untied"


def test_a_bind_outside_the_symbols_assumptions_is_a_conflict():
    """p positive: bound to -p, the goal matches the sides of -p <= 1, but the theorem says nothing there."""
    proof = Proof.from_chain(Chain(p).le(p + 1, by.algebra()).prove(p, "<=", p + 1), "p <= p + 1")
    r = Reading("reconstructed", "-q <= -q + 1", "-", sides=lambda i: Sides(-i["p"], -i["p"] + 1),
                sweep=_ps, symbolic=lambda: proof, bind=lambda i: {p: -i["p"]})
    row = _row(r)
    assert row["verdict"] == "undecided" and "outside its assumptions" in row["proof"]["tie"]["detail"]


def test_the_tie_compares_at_the_readings_slack():
    """The proof of p(1-p) <= 1/4 is not a proof of p(1-p) <= 0.2499: the tie compares at the
    reading's slack (at most 1e-6 relative; a larger rtol is refused when the reading is built)."""
    chain = Chain(p * (1 - p)).le(sp.Rational(1, 4), by.algebra()).prove(p * (1 - p), "<=", sp.Rational(1, 4))
    proof = Proof.from_chain(chain, "p(1 - p) <= 1/4")
    r = Reading("reconstructed", "p(1-p) <= 0.2499", "-", rtol=1e-6,
                sides=lambda i: Sides(i["p"] * (1 - i["p"]), 0.2499 + 0 * i["p"]),
                sweep=_ps, symbolic=lambda: proof, bind=lambda i: {p: i["p"]})
    row = _row(r)
    assert row["verdict"] != "proved" and row["proof"]["tie"]["status"] == "untied"


def test_a_failing_proof_hypothesis_at_the_readings_instances_is_a_conflict():
    proof = _p_le_1_from_half({"h": sp.Le(p, sp.Rational(1, 2))})
    r = Reading("reconstructed", "p <= 1 on (0, 1]", "-", sides=_p_sides, sweep=_ps, symbolic=lambda: proof,
                bind=lambda i: {p: i["p"]})
    row = _row(r)
    assert row["verdict"] == "undecided" and "hypothesis 'h'" in row["conflict"]


def test_a_goal_that_is_its_own_hypothesis_is_untied():
    proof = Proof.from_chain(
        Chain(a_, Context({"h": sp.Le(a_, b_)})).le(b_, by.hypothesis("h")).prove(a_, "<=", b_), "a <= b")
    r = Reading("reconstructed", "x^2 <= x on [0, 1]", "-", sides=lambda i: Sides(_x(i) ** 2, _x(i)),
                sweep=_xs, strategy=_xstrat, symbolic=lambda: proof, bind=lambda i: {a_: _x(i) ** 2, b_: _x(i)})
    assert tie(r, proof)["status"] == "untied"
    assert _row(r)["verdict"] == "undecided"


def test_a_vacuous_reading_hypothesis_is_not_a_pass():
    r = Reading("reconstructed", "x <= 1/2 given nothing", "-", sides=_x_le_half, sweep=_xs, strategy=_xstrat,
                symbolic=_one_le_two, assume=lambda i: np.zeros(np.shape(_x(i)), dtype=bool))
    row = _row(r)
    assert row["verdict"] == "undecided", row["evidence"]


def test_a_proof_of_another_statement_is_caught_where_the_sweep_covers_the_domain():
    r = Reading("reconstructed", "x <= 1/2 on [0, 1]", "-", sides=_x_le_half, sweep=_xs, symbolic=_one_le_two,
                certify=lambda: Proof(True, "arb: x in [0, 1/2]"))
    row = _row(r)
    assert row["verdict"] == "undecided" and row["conflict"]


def test_a_symbolic_refutation_the_sides_do_not_confirm_is_a_conflict():
    r = Reading("reconstructed", "x <= 1 on [0, 1]", "-", sides=lambda i: Sides(_x(i), 1 + 0 * _x(i)),
                sweep=_xs, symbolic=lambda: Proof(False, "x = 1/2", {"x": 0.5}))
    row = _row(r)
    assert row["verdict"] == "undecided" and row["conflict"]


def test_a_sweep_cut_short_by_the_readings_hypotheses_is_not_holds():
    """Only about 1 in 2,000 draws meets the reading's hypothesis: the sweep stops at 10x its budget of
    draws with a few instances judged (incomplete), and holds needs a full sweep."""
    r = Reading("reconstructed", "x <= 1/2 on [0, 1] given x < 5e-4", "-", sides=_x_le_half, sweep=_xs,
                strategy=_xstrat, assume=lambda i: _x(i) < 5e-4)
    row = _row(r)
    assert row["verdict"] == "undecided" and "met the reading's hypotheses" in row["evidence"], row["evidence"]


def test_an_edited_claim_file_is_imported_anew(tmp_path):
    main = tmp_path / f"rv46_self_{uuid.uuid4().hex[:8]}.py"

    def verdict():
        c = claim_api.load_claims(str(main))[0]
        return engine.judge_reading(c, c.reading("reconstructed"), budget=SMALL)["verdict"]

    main.write_text(_claim_file("SELF", "RHS = 1.0", "RHS"))
    assert verdict() == "holds"
    main.write_text(_claim_file("SELF", "RHS = 0.5", "RHS"))
    assert verdict() == "falsified"


def test_an_exact_refutation_outside_the_readings_hypotheses_is_not_a_finding():
    """Noted by the review: a symbolic counterexample outside the reading's `assume` was reported
    `falsified`; such an instance refutes nothing (the reading says nothing there)."""
    r = Reading("reconstructed", "x <= 1 on [0, 1]", "-", sides=lambda i: Sides(_x(i), 1 + 0 * _x(i)),
                assume=lambda i: (_x(i) >= 0) & (_x(i) <= 1),
                symbolic=lambda: Proof(False, "x = 2", {"x": 2.0}, lhs=2.0, rhs=1.0))
    row = _row(r)
    assert row["verdict"] == "undecided" and "outside its own hypotheses" in row["evidence"], row["evidence"]


def test_a_certificate_altered_after_it_was_issued_is_no_certificate():
    from attnbounds.numerics.intervals import Certificate, certify_between_on_grid, issued_certificate

    status, cert = certify_between_on_grid(lambda z: [z[0]], [(0, 1)], 4, -1, 2)
    assert status is True and issued_certificate(cert)
    assert not issued_certificate(Certificate("by hand", "f(x) < 2", (("0", "5"),)))
    object.__setattr__(cert, "box", (("0", "5"),))  # a wider box than the one certified
    assert not issued_certificate(cert)
