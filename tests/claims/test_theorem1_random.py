"""Tests for attnbounds.claims.theorem1_random: exact enumeration vs naive loops and Monte Carlo,
E ≥ M ≥ ..., the gap bound, the counterexample, and how large ε is."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attnbounds.claims import get
from attnbounds.claims import theorem1_random as t1r
from attnbounds.claims.base import holds_relation
from attnbounds.engine import Budget, judge_hypothesis_drop, judge_reading
from attnbounds.numerics import selection

CLAIM = get("T1ii")
SMALL = Budget(examples=20, sweep=2000, mc_samples=400, audit=200)
RNG = np.random.default_rng(99)


def naive_expectation(w, x, n):
    L = len(w)
    vals = []
    for S in itertools.combinations(range(L), n):
        s = sum(w[j] * x[j] for j in S)
        vals.append(sum(np.linalg.norm(w[i] * x[i] - s) for i in range(L) if i not in S))
    return float(np.mean(vals))


def naive_main(w, x, n):
    L = len(w)
    k = n / (L - 1)
    c = sum(w[j] * x[j] for j in range(L))
    return (L - n) / L * sum(np.linalg.norm((1 + k) * w[i] * x[i] - k * c) for i in range(L))


def test_claim_structure():
    names = {r.name for r in CLAIM.readings}
    assert {"transcribed", "transcribed_context", "reconstructed", "gap_bound", "tight_last"} <= names
    assert CLAIM.derivations == ("T1ii",) and "Jensen" in CLAIM.proof
    assert "p_excluded" in CLAIM.symbolic_form()


def test_exact_sides_match_naive_enumeration_and_the_bounds_hold():
    batch = t1r.sweep_instances(np.random.default_rng(5), 30)
    E = CLAIM.reading("reconstructed").sides(batch).lhs
    M = CLAIM.reading("reconstructed").sides(batch).rhs
    upper = CLAIM.reading("gap_bound").sides(batch).rhs
    for k in range(30):
        w, x = batch["weights"][k], batch["x"][k]
        assert E[k] == pytest.approx(naive_expectation(w, x, batch["n"]), rel=1e-10)
        assert M[k] == pytest.approx(naive_main(w, x, batch["n"]), rel=1e-10)
    assert np.all(holds_relation(t1r.Sides(E, M), ">="))
    assert np.all(holds_relation(t1r.Sides(E, upper), "<="))


def test_gap_vanishes_at_n_equal_L_minus_1():
    batch = t1r.sweep_instances(np.random.default_rng(8), 200, n_last=True)
    s = CLAIM.reading("tight_last").sides(batch)
    np.testing.assert_allclose(s.lhs, s.rhs, rtol=1e-10, atol=1e-12)
    assert np.all(selection.jensen_gap_bound(batch["weights"], batch["x"], batch["n"]) == 0.0)


def test_jensen_gap_bound_against_direct_variance():
    w = RNG.dirichlet(np.ones(6))
    x = RNG.normal(size=(6, 2))
    n, L = 2, 6
    G = 0.0
    for i in range(L):
        cond = [S for S in itertools.combinations(range(L), n) if i not in S]
        sums = np.array([sum(w[j] * x[j] for j in S) for S in cond])
        G += np.sqrt(((sums - sums.mean(axis=0)) ** 2).sum(axis=1).mean())
    G *= (L - n) / L
    assert float(selection.jensen_gap_bound(w, x, n)) == pytest.approx(G, rel=1e-10)


def test_monte_carlo_agrees_with_exact_enumeration():
    w = RNG.dirichlet(np.ones(9))
    x = RNG.normal(size=(9, 3))
    exact = selection.jensen_gap(w, x, 3, method="exact")
    mc = selection.jensen_gap(w, x, 3, method="mc", samples=4000, seed=1, confidence=0.999)
    lo, hi = mc["E_ci"]
    assert lo <= exact["E"] <= hi and hi - lo < 0.1 * exact["E"]
    assert exact["M"] == pytest.approx(mc["M"])


@pytest.mark.parametrize("xbar", ["mean", "context"])
def test_transcription_counterexample_recomputed(xbar):
    w, x = np.array([0.5, 0.5]), np.array([[1.0], [1.0]])
    assert naive_expectation(w, x, 1) == 0.0
    center = x.mean(axis=0) if xbar == "mean" else w @ x
    manual = (2 - 1) / 2 * sum(np.linalg.norm((w[i] + 1 / (2 - 1)) * x[i] - center) for i in range(2))
    assert manual == 0.5 == float(t1r.transcribed_term(w, x, 1, xbar))
    proof = CLAIM.reading("transcribed" if xbar == "mean" else "transcribed_context").symbolic()
    assert proof.status is False and proof.lhs == 0.0 and proof.rhs == 0.5


def test_relative_gap_grows_with_L_for_isotropic_embeddings():
    # ε/M at N = 5: clearly larger at L = 512 than at L = 32 (Monte Carlo intervals disjoint).
    ratios = {}
    for L in (32, 512):
        inst = t1r.large_instance(np.random.default_rng(L), L=L, n=5, dim=16)
        g = selection.jensen_gap(inst["weights"], inst["x"], 5, method="mc", samples=1500, seed=L, confidence=0.99)
        ratios[L] = (g["epsilon_ci"][0] / g["M"], g["epsilon_ci"][1] / g["M"])
        assert g["epsilon_ci"][0] > 0  # ε > 0 resolved: the gap is not negligible
        assert g["epsilon"] <= g["G"]
    assert ratios[512][0] > ratios[32][1]


def test_verdicts():
    rows = {r.name: judge_reading(CLAIM, r, budget=SMALL) for r in CLAIM.readings}
    assert rows["transcribed"]["verdict"] == "falsified"
    assert rows["transcribed_context"]["verdict"] == "falsified"
    for name in ("reconstructed", "gap_bound", "tight_last"):
        # proved once the proof is a fully checked chain; an argued proof holds
        want = "proved" if rows[name]["proof"]["status"] == "checked" else "holds"
        assert rows[name]["verdict"] == want, rows[name]
    for row in rows.values():
        assert row["conflict"] is None and row["error"] is None, row
    # Monte Carlo at L = 256 is decisive both ways
    mc = rows["transcribed"]["mc"]
    assert mc["lhs_ci"][1] < mc["rhs_ci"][0]
    mc = rows["reconstructed"]["mc"]
    assert mc["lhs_ci"][0] > mc["rhs_ci"][1]


def test_uniform_subset_is_needed():
    row = judge_hypothesis_drop(CLAIM, CLAIM.hypotheses[0])
    assert row["verdict"] == "falsified"
    c = row["counterexample"]
    w, x, S = np.array(c["instance"]["weights"]), np.array(c["instance"]["x"]), c["instance"]["subset"]
    s = sum(w[j] * x[j] for j in S)
    d = sum(np.linalg.norm(w[i] * x[i] - s) for i in range(3) if i not in S)
    assert d == pytest.approx(c["lhs"]) and d < naive_main(w, x, 1)


def test_validation():
    with pytest.raises(ValueError, match="xbar"):
        t1r.transcribed_term([0.5, 0.5], [[1.0], [1.0]], 1, xbar="median")
    with pytest.raises(ValueError, match="n: this reading needs"):
        CLAIM.reading("tight_last").sides({"weights": np.ones(3) / 3, "x": np.ones((3, 1)), "n": 1})
    with pytest.raises(ValueError, match="method"):
        selection.jensen_gap([0.5, 0.5], [[1.0], [1.0]], 1, method="main")
    with pytest.raises(KeyError, match="'n'"):
        CLAIM.reading("reconstructed").sides({"weights": np.ones(2) / 2, "x": np.ones((2, 1))})


def test_tight_last_is_a_checked_chain_that_depends_on_the_main_term(monkeypatch):
    import attnbounds.claims.theorem1_random as t1r

    proof = t1r._symbolic_tight_last()
    assert proof.status is True and proof.checked == proof.steps
    # before, the proof was Proof(True, ...) whatever k was: the mutant k = 2N/(L-1) was "proved"
    good = t1r.main_term_coefficients

    def mutant():
        c = dict(good())
        c["k"] = 2 * c["k"]
        c["own"] = 1 + c["k"]
        return c

    monkeypatch.setattr(t1r, "main_term_coefficients", mutant)
    assert t1r._symbolic_tight_last().status is not True
    assert not t1r.tight_last_check().complete


def test_t1ii_chains_start_at_the_expected_distance_itself():
    """The law of total expectation is a checked step (land11), not the chains' starting point:
    each chain starts at E_S[sum_i 1[i not in S] |y_i - s_S|] and uses total-expectation."""
    import sympy as sp

    import attnbounds.claims.theorem1_random as t1r
    from attnbounds.theory.proof import Expect

    checks = dict(t1r.random_selection_checks(), tight_last=t1r.tight_last_check())
    for name, res in checks.items():
        assert res.complete and res.checked == res.steps, name
        start = res.goal[0]
        assert isinstance(start, Expect) and isinstance(start.args[0], sp.Sum), name
        assert {"expect-sum", "total-expectation", "condition"} <= set(res.rules), name
        # the indicator of i not in S is what makes a selected token add nothing: without it
        # (E of the sum of every token's distance) the same chain does not check
        i = start.args[0].limits[0][0]
        term = start.args[0].function
        no_indicator = Expect(sp.Sum(term.xreplace({sp.Function("in_S")(i): 0}), start.args[0].limits[0]))
        assert not res.chain.prove(no_indicator, res.goal[1], res.goal[2]).complete, name


def test_gap_bound_is_judged_only_from_three_tokens():
    # G's variance factor N(L-1-N)/((L-1)(L-2)) is 0/0 at L = 2, where the chain says nothing
    reading = CLAIM.reading("gap_bound")
    assert not reading.inside({"weights": np.array([0.5, 0.5]), "x": np.ones((2, 1)), "n": 1})
    assert reading.inside({"weights": np.full(3, 1 / 3), "x": np.ones((3, 1)), "n": 1})
    assert reading.statement.startswith("L >= 3")


@pytest.mark.parametrize("name", ["reconstructed", "gap_bound"])
def test_the_random_selection_proofs_are_tied_on_the_space_of_subsets(name):
    """The chains' goals, evaluated on every N-subset with probability 1/C(L, N), are the sides'
    enumeration, and the hypotheses uniform_subset (P(i not in S), E[s_S | i not in S], and for
    gap_bound the variance factor) hold there. A right side off by 0.1%, or a subset law that is
    not uniform, does not tie."""
    import dataclasses

    from attnbounds import claims
    from attnbounds.claims.base import SPACE
    from attnbounds.engine.tie import tie

    _, r = claims.reading(f"T1ii:{name}")
    proof = r.symbolic()
    got = tie(r, proof)
    assert got["status"] == "tied" and got["hypotheses"] == ["uniform_subset"], got
    off = dataclasses.replace(r, sides=lambda i, r=r: (lambda s: type(s)(s.lhs, s.rhs * 1.001))(r.sides(i)))
    assert tie(off, proof)["status"] == "untied"

    def skewed(instance, bind=r.bind):  # the first subset twice as likely: the goal's mean is no longer the sides'
        b = bind(instance)
        p = b[SPACE].copy()
        p[0] *= 2
        return {**b, SPACE: p / p.sum()}

    assert tie(dataclasses.replace(r, bind=skewed), proof)["status"] == "untied"


def test_reconstructed_chain_does_not_assume_the_variance_factor():
    # f = N(L-1-N)/((L-1)(L-2)) is 0/0 at L = 2, which the lower bound covers: only gap_bound assumes it
    import sympy as sp

    checks = t1r.random_selection_checks()
    (rec,) = checks["reconstructed"].chain.ctx.hypotheses.values()
    (gap,) = checks["gap_bound"].chain.ctx.hypotheses.values()
    assert len(rec) == 2 and len(gap) == 3 and not any(r.has(sp.IndexedBase("V")) for r in rec)


def test_the_last_token_proof_is_tied_with_its_conditioned_hypothesis_checked_atom_by_atom():
    """tight_last's chain (N = L − 1) is tied on the space of (L − 1)-subsets; its hypothesis
    s_S = Y − y_i given i ∉ S is a relation between random vectors outside a mean, checked at
    each atom where i ∉ S. A context vector that keeps token i (s_S = Y at every atom) breaks it."""
    import dataclasses

    import numpy as np

    from attnbounds import claims
    from attnbounds.engine.tie import tie

    _, r = claims.reading("T1ii:tight_last")
    proof = r.symbolic()
    got = tie(r, proof)
    assert got["status"] == "tied" and got["hypotheses"] == ["N = L-1: S is I minus {i}", "uniform_subset"], got
    names = t1r._chain_symbols("tight_last")

    def whole(instance, bind=r.bind):
        b = bind(instance)
        Y = np.asarray(b[names["Y"]], dtype=float)
        return {**b, names["s_S"]: np.broadcast_to(Y, np.shape(b[names["s_S"]])).copy()}

    assert tie(dataclasses.replace(r, bind=whole), proof)["status"] == "untied"
