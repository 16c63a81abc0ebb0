"""Tests for attnbounds.claims.theorem2: exact d = 3 sides vs Monte Carlo, the counterexample,
the conditioned bound, and verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds.claims import get
from attnbounds.claims import theorem2 as t2
from attnbounds.engine import Budget, judge_hypothesis_drop, judge_reading
from attnbounds.numerics.montecarlo import mean_ci
from attnbounds.numerics.attention import per_token_distance, top_n_mask
from attnbounds.numerics.selection import distinguishable_mask, separability

CLAIM = get("T2")
SMALL = Budget(examples=20, sweep=2000, mc_samples=3000, audit=200)


def test_exact_terms_against_monte_carlo_d3():
    w = np.array([0.4, 0.3, 0.2, 0.1])
    rng = np.random.default_rng(2)
    D, x = t2.sample_distances(rng, w, 3, 30_000, 3, 1.5)
    for r in (0.3, 0.6, 0.9):
        exact = t2.exact_terms({"weights": w, "n": 3, "M": 1.5, "r": r, "d": 3})
        _, lo, hi = mean_ci(separability(w, x, 3, r), confidence=0.999)
        assert lo <= float(exact["p"].mean()) <= hi
    _, xlo, xhi = mean_ci(D, confidence=0.999, axis=0)
    assert np.all((xlo <= exact["xi"]) & (exact["xi"] <= xhi))


def test_old_counterexample_recomputed_by_sampling():
    # N = 1: D_1 = ‖α_1 x_1 − α_1 x_1‖ = 0 for every draw, so E[N_s^sel]/N = 1 > exp(−1/16).
    rng = np.random.default_rng(0)
    D, x = t2.sample_distances(rng, [0.5, 0.5], 1, 100, 1, 1.0)
    assert np.all(D == 0) and np.all(separability([0.5, 0.5], x, 1, 1.0) == 1.0)
    proof = CLAIM.reading("transcribed-selected-only").symbolic()
    assert proof.status is False and proof.lhs == 1.0 > proof.rhs == pytest.approx(np.exp(-1 / 16))
    # with the paper's definition the same instance has N_s = 0: the non-selected token is inside
    assert np.all(distinguishable_mask([0.5, 0.5], x, 1, 1.0).sum(axis=-1) == 0)


@pytest.mark.parametrize("name", ["transcribed", "transcribed_lower"])
def test_paper_counterexamples_recomputed_by_sampling(name):
    proof = CLAIM.reading(name).symbolic()
    inst = proof.counterexample
    rng = np.random.default_rng(1)
    _, x = t2.sample_distances(rng, inst["weights"], inst["n"], 5000, inst["d"], inst["M"])
    frac = distinguishable_mask(inst["weights"], x, inst["n"], inst["r"]).sum(axis=-1) / inst["n"]
    if name == "transcribed":  # N_s = 1 surely, above exp(−1/256)
        assert np.all(frac == 1.0) and proof.lhs == 1.0 > proof.rhs == pytest.approx(np.exp(-1 / 256))
    else:  # N_s = 0 surely, below the Markov side 1
        assert np.all(frac == 0.0) and proof.lhs == 1.0 > proof.rhs == 0.0
    s = CLAIM.reading(name).sides(inst)
    assert float(s.lhs) == proof.lhs and float(s.rhs) == pytest.approx(proof.rhs)


@pytest.mark.parametrize("n", [1, 2])
def test_exact_paper_terms_against_monte_carlo(n):
    rng = np.random.default_rng(10 + n)
    for _ in range(4):
        L = int(rng.integers(n + 1, 7))
        w = rng.dirichlet(np.full(L, 0.7))
        M, r = 1.3, float(rng.uniform(0.05, 1.2))
        exact = t2.exact_paper_terms({"weights": w, "n": n, "M": M, "r": r, "d": 3})
        D, x = t2.sample_distances(rng, w, n, 40_000, 3, M)
        _, lo, hi = mean_ci(distinguishable_mask(w, x, n, r).sum(axis=-1) / n, confidence=0.999)
        assert lo - 1e-12 <= float(exact["frac"]) <= hi + 1e-12
        D_all = per_token_distance(w, x, n)
        _, lo, hi = mean_ci(((D_all <= r) & ~top_n_mask(w, n)).sum(axis=-1).astype(float), confidence=0.999)
        assert lo - 1e-12 <= float(exact["sum_p_out"]) <= hi + 1e-12


def test_exact_paper_terms_in_one_dimension_against_every_sign_pattern():
    # R¹: the sphere of radius M is {-M, M}; the mean over all 2^L sign patterns is exact
    rng = np.random.default_rng(21)
    for _ in range(60):
        L = int(rng.integers(2, 7))
        n = int(rng.integers(1, min(2, L - 1) + 1))
        w = rng.dirichlet(np.ones(L))
        M, r = float(rng.uniform(0.3, 3.0)), float(rng.uniform(0.0, 2.0))
        r *= M
        signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * L, indexing="ij")).reshape(L, -1).T  # (2^L, L)
        x = (signs * M)[..., None]
        ws = np.broadcast_to(w, signs.shape)
        exact = t2.exact_paper_terms({"weights": w, "n": n, "M": M, "r": r, "d": 1})
        assert float(exact["frac"]) == pytest.approx((distinguishable_mask(ws, x, n, r).sum(-1) / n).mean(), abs=1e-12)
        out = ((per_token_distance(ws, x, n) <= r) & ~top_n_mask(ws, n)).sum(-1).mean()
        assert float(exact["sum_p_out"]) == pytest.approx(out, abs=1e-12)


def test_the_paper_definitions_counterexamples_are_one_dimensional():
    for name in ("transcribed", "transcribed_lower"):
        proof = CLAIM.reading(name).symbolic()
        assert proof.status is False and proof.counterexample["d"] == 1
        s = CLAIM.reading(name).sides(proof.counterexample)
        assert float(s.lhs) > float(s.rhs)


def test_non_degenerate_violation_when_r_exceeds_xi():
    # N = 3, d = 3, r = ᾱ_N M: every D_i ≤ M Σ_{j≠i} α_j < r, so E[N_s^sel]/N = 1 > transcribed side.
    inst = {"weights": np.array([0.4, 0.3, 0.2, 0.1]), "n": 3, "M": 1.0, "r": 0.9, "d": 3}
    s = CLAIM.reading("transcribed-selected-only").sides(inst)
    assert float(s.lhs) == 1.0 and float(s.rhs) < 0.99
    assert float(CLAIM.reading("reconstructed-selected-only").sides(inst).rhs) == 1.0


def test_true_readings_hold_on_exact_sweeps():
    rng = np.random.default_rng(6)
    names = ("upper_if_r_le_xi", "hoeffding", "reconstructed", "lower_reconstructed",
             "transcribed_lower-selected-only", "reconstructed-selected-only")
    for _ in range(5):
        for name in names:
            reading = CLAIM.reading(name)
            s = reading.sides(reading.sweep(rng, 500))
            assert np.all(s.lhs <= s.rhs + 1e-9), name


def test_paper_count_never_exceeds_the_selected_only_count():
    rng = np.random.default_rng(3)
    w = rng.dirichlet(np.ones(6))
    _, x = t2.sample_distances(rng, w, 3, 2000, 4, 1.0)
    for r in (0.05, 0.3, 1.0):
        assert np.all(distinguishable_mask(w, x, 3, r).sum(-1) / 3 <= separability(w, x, 3, r))


def test_interval_of_the_exponential_terms():
    lo, hi = t2._interval_exp(np.array([0.1]), np.array([0.3]), 0.2, np.array([1.0]), plus=False)
    assert float(hi[0]) == 1.0 and float(lo[0]) == pytest.approx(np.exp(-0.01))
    lo, hi = t2._interval_exp(np.array([0.1]), np.array([0.3]), 0.2, np.array([1.0]), plus=True)
    assert float(hi[0]) == 1.0 and float(lo[0]) == pytest.approx(np.exp(-0.01))


def test_exact_terms_validates():
    with pytest.raises(ValueError, match="n: exact evaluation"):
        t2.exact_terms({"weights": np.ones(6) / 6, "n": 4, "M": 1.0, "r": 0.1, "d": 3})
    with pytest.raises(ValueError, match="d: exact evaluation"):
        t2.exact_terms({"weights": np.ones(6) / 6, "n": 3, "M": 1.0, "r": 0.1, "d": 4})
    with pytest.raises(ValueError, match="r: must be"):
        t2.exact_terms({"weights": np.ones(6) / 6, "n": 2, "M": 1.0, "r": -0.1, "d": 3})


def test_exact_paper_terms_validates():
    with pytest.raises(ValueError, match="n: exact evaluation"):
        t2.exact_paper_terms({"weights": np.ones(6) / 6, "n": 3, "M": 1.0, "r": 0.1, "d": 3})
    with pytest.raises(ValueError, match="d: exact evaluation"):
        t2.exact_paper_terms({"weights": np.ones(6) / 6, "n": 1, "M": 1.0, "r": 0.1, "d": 2})
    with pytest.raises(ValueError, match="r: must be"):
        t2.exact_paper_terms({"weights": np.ones(6) / 6, "n": 2, "M": 1.0, "r": -0.1, "d": 3})


EXPECTED = {
    "transcribed": "falsified",
    "transcribed_lower": "falsified",
    # the setting is a WeightedNorm: McDiarmid's c_j, sigma_i^2 <= 1 and the range [0, 2M] are
    # checked, and each token's term is a checked case split on xi_i - r
    "upper_if_r_le_xi": "proved",
    "hoeffding": "proved",
    "reconstructed": "proved",
    "lower_reconstructed": "proved",  # the count's step by the indicator rules
    "transcribed-selected-only": "falsified",
    "transcribed_lower-selected-only": "proved",
    "reconstructed-selected-only": "proved",
}

#: The rules that carry each upper reading's per-token term from the setting.
TAIL_RULES = {
    "upper_if_r_le_xi": {"cases", "hoeffding", "weighted-norm", "monotone-chain", "monotone"},
    "hoeffding": {"cases", "hoeffding", "weighted-norm", "probability"},
    "reconstructed": {"cases", "mcdiarmid", "probability"},
    "reconstructed-selected-only": {"cases", "mcdiarmid", "probability"},
}


def test_upper_readings_are_proved_from_the_setting_for_every_r():
    """Once argued (bounded differences, sigma_i^2 <= 1 and the range [0, 2M] were Assumed, and
    the tokens with xi_i <= r were joined in prose), the upper readings' chains read the tail
    bounds off the WeightedNorm setting and split each token's term into its two cases."""
    import sympy as sp

    from attnbounds.theory.proof import WeightedNorm
    from attnbounds.theory.separability import t2_chains

    for name, rules in TAIL_RULES.items():
        proof = CLAIM.reading(name).symbolic()
        assert proof.status is True and not proof.argued and not proof.chain.assumed, (name, proof.detail)
        assert rules <= set(proof.rules), (name, proof.rules)
    for name in ("mcdiarmid", "mcdiarmid_selected", "conditioned", "hoeffding"):
        chain = t2_chains()[name]
        assert chain.complete and not chain.assumed, name
        assert isinstance(chain.chain.ctx.hypotheses["sphere_iid"], WeightedNorm), name
        (r,) = [x for x in chain.goal[2].free_symbols if x.name == "r"]
        assert r.is_nonnegative and not r.is_positive, name  # r = 0 is covered
    # the (xi_i - r)_+ forms end at Max(xi_i - r, 0); the transcribed form at (r - xi_i)^2
    assert t2_chains()["mcdiarmid"].goal[2].has(sp.Max) and not t2_chains()["conditioned"].goal[2].has(sp.Max)
    assert "indicator-order" in t2_chains()["mcdiarmid"].rules and "indicator-order" not in t2_chains()["mcdiarmid_selected"].rules
    # only McDiarmid's form divides by sigma_i^2: Hoeffding's chains cover sigma_i^2 = 0 (N = 1)
    for name, positive in (("mcdiarmid", True), ("hoeffding", False), ("conditioned", False)):
        l2 = t2_chains()[name].chain.ctx.hypotheses["sphere_iid"].l2
        assert bool(l2.is_positive) is positive and l2.is_nonnegative, name


@pytest.mark.parametrize("name, chain", [("lower_reconstructed", "union"), ("transcribed_lower-selected-only", "markov")])
def test_lower_sides_are_proved_through_the_counts_definitions(name, chain):
    # the count N_s (N_s^sel) enters by its definition, a sum of indicators, and the indicator
    # rules take it to probabilities: no premise is assumed
    import sympy as sp

    from attnbounds.theory.proof import Expect, Indicator
    from attnbounds.theory.separability import t2_chains

    proof = CLAIM.reading(name).symbolic()
    assert proof.status is True and not proof.argued and not proof.chain.assumed
    assert {"indicator-mean", "indicator-algebra"} <= set(proof.rules)
    end = t2_chains()[chain].goal[2]
    assert isinstance(end, Expect) and isinstance(end.args[0], sp.Sum) and end.atoms(Indicator)
    if chain == "union":  # N_s counts a selected token only when no non-selected one is inside
        (ind,) = end.atoms(Indicator)
        assert isinstance(ind.args[0], sp.And) and "indicator-order" in proof.rules


def test_verdicts():
    rows = {r.name: judge_reading(CLAIM, r, budget=SMALL) for r in CLAIM.readings}
    for name, row in rows.items():
        assert row["verdict"] == EXPECTED[name], row
        assert row["conflict"] is None and row["error"] is None, row
        mc = row["mc"]
        if EXPECTED[name] in ("proved", "holds"):  # the numeric search and the Monte Carlo agree
            assert "no counterexample" in row["detail"]["sweep"], row
            assert mc["lhs_ci"][1] < mc["rhs_ci"][0], name
    mc = rows["transcribed-selected-only"]["mc"]
    assert mc["lhs_ci"][0] > mc["rhs_ci"][1]  # violated with confidence at L=16, N=5, d=8
    assert judge_hypothesis_drop(CLAIM, CLAIM.hypotheses[2])["verdict"] == "falsified"


def test_the_mcdiarmid_readings_are_judged_only_where_sigma_squared_is_positive():
    # their chains divide by sigma_i^2 (declared positive): at N = 1 the right side is not defined
    claim = get("T2")
    for name in ("reconstructed", "reconstructed-selected-only"):
        reading = claim.reading(name)
        assert not reading.inside({"weights": np.array([0.75, 0.25]), "n": 1})
        assert not reading.inside({"weights": np.array([1.0, 0.0, 0.0]), "n": 2})  # the other selected weight is 0
        assert reading.inside({"weights": np.array([0.5, 0.3, 0.2]), "n": 2})
        batch = {"weights": np.array([[0.5, 0.3, 0.2], [0.6, 0.4, 0.0]]), "n": 2}
        assert reading.inside(batch, size=2).tolist() == [True, True]
        assert "sigma_i^2 > 0" in reading.statement


_TIED = {  # proved reading -> the hypotheses its chain's context holds, checked at the instances
    "hoeffding": ["sphere_iid", "weights"],
    "reconstructed": ["sphere_iid"],
    "upper_if_r_le_xi": ["definition:t=xi-r", "r<=xi", "sphere_iid", "weights"],
    "lower_reconstructed": ["D>=0", "markov"],
    "transcribed_lower-selected-only": ["D>=0", "markov"],
    "reconstructed-selected-only": ["sphere_iid"],
}


@pytest.mark.parametrize("name", sorted(_TIED))
def test_the_proved_readings_are_tied_on_the_line_and_pass_over_the_sphere_of_r3(name):
    """Each proved reading's chain is evaluated on R¹'s sphere, the two points ±M, where x_1..x_L
    make 2^L equally likely sign patterns; at d = 3 (a continuous law) bind declines and the tie
    passes the instance over and says so. The WeightedNorm fact is checked against its witness.
    A right side off by 0.1% does not tie."""
    import dataclasses

    from attnbounds.engine.tie import INSTANCES, tie

    r = CLAIM.reading(name)
    proof = r.symbolic()
    got = tie(r, proof)
    assert got["status"] == "tied" and got["hypotheses"] == _TIED[name], got
    assert got["instances"] >= INSTANCES // 2, got
    assert "passed over, where bind builds no finite space" in got["detail"] and "d = 3" in got["detail"], got
    off = dataclasses.replace(r, sides=lambda i, r=r: (lambda s: type(s)(s.lhs, s.rhs * 1.001))(r.sides(i)))
    assert tie(off, proof)["status"] == "untied"


def _line_pairs(instance) -> bool:
    """Instances (or a sweep's batch) in R¹ with N = 2 (two selected tokens)."""
    return int(instance["d"]) == 1 and int(instance["n"]) == 2


@pytest.mark.parametrize("break_it, says", [
    ("dependent", "not independent"),  # x_2 := x_1: the same norms, but not independent
    ("long", "over the radius"),  # vectors 2x with weights α/2: the same norms, vectors of length 2M
    ("sigma2", "l2, sigma2(i), is"),  # σ2 that is not the other weights' sum of squares (not in hoeffding's goal)
    ("rows", "the witness's ‖Σ_j w_j X_j‖"),  # each token given its own weight instead of the other's
])
def test_a_witness_that_does_not_make_d_a_weighted_norm_of_independent_vectors_is_untied(tie_where, break_it, says):
    import dataclasses

    from attnbounds.claims.base import WITNESSES

    r = CLAIM.reading("hoeffding")
    names = t2.chain_symbols(t2.t2_chains()["hoeffding"])
    keep = _line_pairs

    def broken(instance, bind=r.bind):
        b = bind(instance)
        W, X = b[WITNESSES]["sphere_iid"]
        if break_it == "dependent":
            X = np.stack([X[0], X[0]])
        elif break_it == "long":
            W, X = W / 2, X * 2
        elif break_it == "sigma2":
            b = {**b, names["sigma2"]: np.asarray(b[names["sigma2"]]) * 1.5}
        elif break_it == "rows":
            W = W[::-1]
        return {**b, WITNESSES: {"sphere_iid": (W, X)}}

    assert tie_where(r, keep, r.sweep)["status"] == "tied"
    got = tie_where(dataclasses.replace(r, bind=broken), keep, r.sweep)
    assert got["status"] == "untied" and "sphere_iid" in got["detail"] and says in got["detail"], got


def test_a_proof_with_a_weighted_norm_fact_and_no_witness_is_not_evaluable():
    import dataclasses

    from attnbounds.claims.base import WITNESSES
    from attnbounds.engine.tie import tie

    r = CLAIM.reading("hoeffding")
    bare = dataclasses.replace(r, bind=lambda i, bind=r.bind: {k: v for k, v in bind(i).items() if k != WITNESSES})
    got = tie(bare, r.symbolic())
    assert got["status"] == "not evaluable" and "no witness" in got["detail"] and "sphere_iid" in got["detail"], got


def test_a_bind_that_builds_no_space_anywhere_is_not_evaluable():
    import dataclasses

    from attnbounds.claims.base import NoFiniteSpace
    from attnbounds.engine.tie import tie

    def never(instance):
        raise NoFiniteSpace("no finite space here")

    r = CLAIM.reading("hoeffding")
    got = tie(dataclasses.replace(r, bind=never), r.symbolic())
    assert got["status"] == "not evaluable" and "no finite space at any" in got["detail"], got


def test_p_inside_is_exact_at_every_scale_and_warns_of_nothing():
    """A new user's trial saw "overflow encountered in divide" on every check: Hypothesis draws
    a = 1e-308, and 4aρ underflowed. The formula as written also cancelled: for a ≪ ρ and r = ρ,
    r² − (a − ρ)² lost a (a = 1e-17 gave 0 for 1/2). Against the exact probability, in rationals."""
    import warnings
    from fractions import Fraction

    def exact(a, rho, r):
        a, rho, r = Fraction(a), Fraction(rho), Fraction(r)  # the floats' exact values
        return float(min(max((r**2 - (a - rho) ** 2) / (4 * a * rho), 0), 1))

    rng = np.random.default_rng(0)
    cases = [(1.2225130572449935e-308, 0.10094624801518093, 1.3971671083869215), (1e-17, 1.0, 1.0),
             (1.0, 1e-17, 1.0), (1e-200, 1e-200, 3e-200), (1e-200, 1e-200, 1e-201), (1e-300, 1e-5, 1e-5),
             (3.0, 2.0, 1.0 + 1e-12), (1e300, 1e300, 1e300), (0.5, 0.5, 0.5)]
    for _ in range(300):
        a, rho = 10.0 ** rng.uniform(-300, 300, 2)
        r = max(a, rho) * (1 + rng.uniform(-1, 1) * 10.0 ** rng.uniform(-18, 0)) if rng.random() < 0.5 else a + rho * rng.random()
        cases.append((a, rho, r))
    a, rho, r = (np.array(c) for c in zip(*cases))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = t2._p_inside(a, rho, r)
    want = np.array([exact(*c) for c in cases])
    assert np.allclose(got, want, rtol=0, atol=1e-12), [(c, g, w) for c, g, w in zip(cases, got, want) if abs(g - w) > 1e-12][:3]
