"""Review of the tie's WeightedNorm witness and of NoFiniteSpace (attnbounds.engine.tie): a helper's
adversarial review of stop 43's new code, with its holes fixed in the same stop.

The toys prove McDiarmid's tail from a WeightedNorm fact, P(f − E f <= −t) <= exp(−2t²/(4M²·l2)),
so that a witness the tie accepts where no weighted norm of independent bounded vectors exists
shows up as a *false* goal at the bound values: tied, although the theorem's hypotheses fail
there. Each hole below asserts first that the goal is false at the bound values, then that the
tie does not say "tied" (each failed on the code the review found, where the tie said "tied").
The correct refusals after them must stay so.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp

from attnbounds.claims.base import SPACE, WITNESSES, NoFiniteSpace, Proof, Reading, Sides
from attnbounds.engine.tie import tie
from attnbounds.theory.proof import Chain, Context, Expect, Prob, WeightedNorm, by

# --- toy 1: one fact, no free index: f = D(1) -------------------------------------------------

D = sp.Function("D", real=True)
M = sp.Symbol("M", positive=True)
S1 = sp.Symbol("s1", positive=True)
S2 = sp.Symbol("s2", positive=True)
T = sp.Symbol("t", positive=True)


def _one():
    f = D(1)
    tail = Prob(sp.Le(f - Expect(f), -T))
    bound = sp.exp(-2 * T**2 / (4 * M**2 * S2))
    chain = Chain(tail, Context({"wn": WeightedNorm(f, M, S1, S2)})).le(bound, by.mcdiarmid(f, T, "wn"))
    return Proof.from_chain(chain.prove(tail, "<=", bound), "McDiarmid on a weighted norm")


ONE = _one()


def _goal_one(b):
    """The goal's two sides at the bound values, computed directly."""
    p, d = np.asarray(b[SPACE], dtype=float), np.asarray(b[D], dtype=float)[0]
    return float(p[d - p @ d <= -b[T]].sum()), float(np.exp(-2 * b[T] ** 2 / (4 * b[M] ** 2 * b[S2])))


def _reading(bind, goal, proof):
    """A reading whose sides are the goal's own values at the bound values (so the tie's
    comparison of sides always agrees: only the hypothesis checks can refuse)."""
    return Reading("r", "-", "-", sides=lambda i: Sides(*goal(bind(i))), sweep=lambda rng, n: {"k": 0.0},
                   bind=bind, symbolic=lambda: proof, rtol=1e-9, atol=1e-15)


def _one_values(W, X, p, *, radius=1.0, l1=1.0, l2=None, t=0.5, f=None):
    W, X = np.asarray(W, dtype=float), np.asarray(X, dtype=float)
    Xd = X[..., None] if X.ndim == 2 else X
    f = np.linalg.norm(np.einsum("j,jad->ad", W, Xd), axis=-1) if f is None else np.asarray(f, dtype=float)
    l2 = float((W**2).sum()) if l2 is None else l2
    return {M: radius, S1: l1, S2: l2, T: t, D: [f], SPACE: np.asarray(p, dtype=float), WITNESSES: {"wn": (W, X)}}


def _tie_one(values):
    return tie(_reading(lambda i: values, _goal_one, ONE), ONE)


X12 = np.array([[1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, -1.0]])  # two independent signs, 4 atoms
P4 = np.full(4, 0.25)


def test_the_honest_toy_is_tied():
    got = _tie_one(_one_values([0.5, 0.5], X12, P4, l2=0.5))
    assert got["status"] == "tied" and got["hypotheses"] == ["wn"], got
    got = _tie_one(_one_values([0.5, -0.5], X12, P4, l2=0.5))  # l1 = Σ|w|
    assert got["status"] == "tied", got


# --- holes ---------------------------------------------------------------------------------------

def _rare_dependence():
    """100 vectors that are all +1 except at one atom of probability 1e-13, where every other
    one is −1: perfectly dependent, yet each joint value's probability is within the product
    check's absolute 1e-12 of the product of the margins. D drops from 1 to 0 there, and
    McDiarmid's bound with l2 = 1/100 says that has probability <= e^(−40.5) ≈ 2.6e-18."""
    J = 100
    X = np.ones((J, 2))
    X[1::2, 1] = -1.0
    return _one_values(np.full(J, 1.0 / J), X, [1 - 1e-13, 1e-13], t=0.9)


def _twins():
    """X_2 = X_1, both constant except at one atom of probability 1e-13."""
    X = np.array([[1.0, -1.0], [1.0, -1.0]])
    return _one_values([0.5, 0.5], X, [1 - 1e-13, 1e-13], l2=0.5)


@pytest.mark.parametrize("make", [_rare_dependence, _twins], ids=["hundred-vectors-false-goal", "x2-equals-x1"])
def test_dependence_on_an_atom_of_tiny_probability_is_not_independence(make):
    values = make()
    if make is _rare_dependence:
        lhs, rhs = _goal_one(values)
        assert lhs > 1e4 * rhs  # the goal is false at the bound values: the fact cannot hold
    got = _tie_one(values)
    assert got["status"] == "untied" and "not independent" in got["detail"], got


def test_a_norm_matched_only_by_absolute_tolerance_at_a_tiny_scale_is_refused():
    # D is 0 or 9e-13 (a fair coin), the witness's vectors are 0: no weighted norm of vectors of
    # length <= 1e-13 with weight 1 moves by 9e-13; P(D − ξ <= −4e-13) = 1/2 > e^(−8)
    values = _one_values([1.0], np.zeros((1, 2)), [0.5, 0.5], radius=1e-13, l2=1.0, t=4e-13, f=[0.0, 9e-13])
    lhs, rhs = _goal_one(values)
    assert lhs > 100 * rhs
    assert _tie_one(values)["status"] != "tied"


def test_an_l2_a_thousand_times_too_small_is_refused():
    w = 1e-6
    values = _one_values([w], [[0.0, 1.0]], [0.5, 0.5], l1=w, l2=1e-15, t=w / 2)
    lhs, rhs = _goal_one(values)
    assert lhs > 1e50 * rhs  # with the witness's own l2 = 1e-12 the bound is e^(−1/8) >= 1/2
    got = _tie_one(values)
    assert got["status"] == "untied" and "l2, s2" in got["detail"], got


def test_a_vector_nine_times_the_radius_is_refused():
    values = _one_values([1.0], [[0.0, 9e-16]], [0.5, 0.5], radius=1e-16, l2=1.0, t=4e-16)
    lhs, rhs = _goal_one(values)
    assert lhs > 100 * rhs
    got = _tie_one(values)
    assert got["status"] == "untied" and "over the radius" in got["detail"], got


# --- toy 2: a fact with a free index, read for every i of a sum ----------------------------------

I = sp.Symbol("i", integer=True, positive=True)
N = sp.Symbol("N", integer=True, positive=True)
F1 = sp.Function("s1", positive=True, deterministic=True)
F2 = sp.Function("s2", positive=True, deterministic=True)
TI = sp.Function("t", positive=True, deterministic=True)


def _summed(index, lo, hi, shift=0):
    """Σ_{index=lo}^{hi} P(D(index+shift) − ξ <= −t) <= Σ exp(−2t²/(4M² s2)), each term McDiarmid's
    on the fact WeightedNorm(D(index+shift), M, s1(index+shift), s2(index+shift))."""
    k = index + shift
    tail = Prob(sp.Le(D(k) - Expect(D(k)), -TI(k)))
    bound = sp.exp(-2 * TI(k) ** 2 / (4 * M**2 * F2(k)))
    ctx = Context({"wn": WeightedNorm(D(k), M, F1(k), F2(k))})
    term = Chain(tail).le(bound, by.mcdiarmid(D(k), TI(k), "wn"))
    g0, g1 = sp.Sum(tail, (index, lo, hi)), sp.Sum(bound, (index, lo, hi))
    return Proof.from_chain(Chain(g0, ctx).le(g1, by.termwise(index, lo, hi, term=term)).prove(g0, "<=", g1), "-")


SUMMED = _summed(I, 1, N)


def _goal_summed(b):
    p, d = np.asarray(b[SPACE], dtype=float), np.asarray(b[D], dtype=float)
    lhs = rhs = 0.0
    for k in range(int(b[N])):
        lhs += float(p[d[k] - p @ d[k] <= -b[TI][k]].sum())
        rhs += float(np.exp(-2 * b[TI][k] ** 2 / (4 * b[M] ** 2 * b[F2][k])))
    return lhs, rhs


W2 = np.array([[0.0, 1.0], [1.0, 0.0]])  # D(i) = |x_{other}|: row i has the other one's weight
D_HONEST = np.abs(W2 @ X12)
D_BROKEN = np.array([D_HONEST[0], [0.0, 0.0, 1.0, 1.0]])  # D(2): 0 or 1, no norm of the witness (|x_1| = 1)


def _summed_values(**over):
    """The honest values, with those named in ``over`` (F1, F2, TI, D, WITNESSES) replaced."""
    keys = {"F1": F1, "F2": F2, "TI": TI, "D": D, "WITNESSES": WITNESSES}
    base = {N: 2, M: 1.0, F1: [1.0, 1.0], F2: [1.0, 1.0], TI: [0.5, 0.5], D: D_HONEST, SPACE: P4,
            WITNESSES: {"wn": (W2, X12)}}
    return {**base, **{keys[k]: v for k, v in over.items()}}


def _tie_summed(values, proof=SUMMED):
    return tie(_reading(lambda i: values, _goal_summed, proof), proof)


def test_the_honest_summed_toy_is_tied_and_a_broken_second_norm_is_refused():
    assert _tie_summed(_summed_values())["status"] == "tied"
    got = _tie_summed(_summed_values(D=D_BROKEN))
    assert got["status"] == "untied" and "at i = 2" in got["detail"], got


def test_a_short_l1_table_does_not_leave_the_fact_unchecked_at_an_index_the_goal_reads():
    values = _summed_values(F1=[1.0], F2=[1.0, 1e-3], TI=[3.0, 0.5], D=D_BROKEN, WITNESSES={"wn": (W2[:1], X12)})
    lhs, rhs = _goal_summed(values)
    assert lhs > 40 * rhs  # 1/2 > e^(−4.5) + e^(−125): false at the bound values
    assert _tie_summed(values)["status"] != "tied"


def test_a_bind_that_gives_the_sums_index_does_not_narrow_the_fact_to_one_value():
    values = {**_summed_values(F2=[1.0, 1e-3], TI=[3.0, 0.5], D=D_BROKEN, WITNESSES={"wn": (W2[0], X12)}), I: 1}
    lhs, rhs = _goal_summed(values)
    assert lhs > 40 * rhs
    assert _tie_summed(values)["status"] != "tied"


def test_the_fact_is_checked_at_index_zero_where_the_chain_reads_it():
    i0 = sp.Symbol("i", integer=True, nonnegative=True)
    proof = _summed(i0, 0, N - 1, shift=1)  # the fact is about D(i + 1), i = 0 … N − 1
    assert proof.status is True
    # D(1) (i = 0) is no weighted norm; the one row of weights is taken for i = 1 (D(2), honest)
    values = _summed_values(F2=[1e-3, 1.0], TI=[0.5, 3.0], D=np.array([[0.0, 0.0, 1.0, 1.0], D_HONEST[1]]),
                            WITNESSES={"wn": (W2[1:], X12)})
    lhs, rhs = _goal_summed(values)
    assert lhs > 40 * rhs
    assert _tie_summed(values, proof)["status"] != "tied"


def test_a_fact_with_no_value_is_not_evaluable_rather_than_a_conflict():
    values = {k: v for k, v in _one_values([0.5, 0.5], X12, P4, l2=0.5).items() if k != S1}
    got = _tie_one(values)
    assert got["status"] == "not evaluable" and "s1" in got["detail"], got


def test_a_bind_that_declines_where_the_proof_disagrees_is_not_tied():
    p = sp.Symbol("p", positive=True)
    proof = Proof.from_chain(Chain(p * (1 - p)).le(sp.Rational(1, 4), by.algebra()).prove(p * (1 - p), "<=",
                                                                                        sp.Rational(1, 4)), "-")

    def bind(i):
        if not i["p"] < 0.01:  # the reading below says p(1 − p) <= 0 there: not the proof's statement
            raise NoFiniteSpace("no space here")
        return {p: i["p"]}

    wrong = Reading("r", "p(1 - p) <= 0 (wrong)", "-", bind=bind, symbolic=lambda: proof,
                    sides=lambda i: Sides(i["p"] * (1 - i["p"]), np.where(i["p"] < 0.01, 0.25, 0.0)),
                    sweep=lambda rng, n: {"p": rng.uniform(0, 1, n)})
    assert tie(wrong, proof)["status"] != "tied"


def test_t2_a_witness_one_row_short_with_sigma1_one_short_is_not_tied():
    from attnbounds.claims import theorem2 as t2

    r = t2.CLAIM.reading("hoeffding")
    names = t2.chain_symbols(t2.t2_chains()["hoeffding"])

    def keep(instance):
        return int(instance["d"]) == 1 and int(instance["n"]) == 2

    def kept_sweep(rng, n):
        while not keep(batch := r.sweep(rng, n)):
            pass
        return batch

    def short(instance):
        b = r.bind(instance)
        W, X = b[WITNESSES]["sphere_iid"]
        return {**b, names["sigma1"]: np.asarray(b[names["sigma1"]])[:-1], WITNESSES: {"sphere_iid": (W[:-1], X)}}

    tied = dataclasses.replace(r, sweep=kept_sweep, strategy=lambda: r.strategy().filter(keep))
    assert tie(tied, r.symbolic())["status"] == "tied"
    assert tie(dataclasses.replace(tied, bind=short), r.symbolic())["status"] != "tied"


# --- correct refusals (and acceptances) that must stay so -----------------------------------------

def test_pairwise_but_not_mutually_independent_vectors_are_refused():
    X = np.vstack([X12, X12[0] * X12[1]])  # X_3 = X_1 X_2: each pair independent, the three not
    got = _tie_one(_one_values(np.full(3, 1 / 3), X, P4))
    assert got["status"] == "untied" and "not independent" in got["detail"], got


def test_atoms_of_probability_zero_neither_make_nor_break_independence():
    X = np.array([[1.0, -1.0, 1.0, -1.0], [1.0, -1.0, -1.0, 1.0]])  # X_2 = X_1 where the atoms have mass
    got = _tie_one(_one_values([0.5, 0.5], X, [0.5, 0.5, 0.0, 0.0], l2=0.5))
    assert got["status"] == "untied" and "not independent" in got["detail"], got
    X = np.hstack([X12, [[1.0], [-7.0]]])  # an independent space, and a null atom with a long vector
    got = _tie_one(_one_values([0.5, 0.5], X, [0.25, 0.25, 0.25, 0.25, 0.0], l2=0.5))
    assert got["status"] == "tied", got


def test_repeated_atoms_with_the_same_law_are_accepted():
    X = np.hstack([X12, X12])
    got = _tie_one(_one_values([0.5, 0.5], X, [0.05, 0.2, 0.1, 0.15, 0.2, 0.05, 0.15, 0.1], l2=0.5))
    assert got["status"] == "tied", got


def test_vectors_in_the_plane_are_checked_for_independence_as_vectors():
    e = np.eye(2)
    X = np.array([[e[0], e[0], e[1], e[1]], [e[0], e[1], e[0], e[1]]])  # (J, atoms, d): independent
    assert _tie_one(_one_values([0.5, 0.5], X, P4, l2=0.5))["status"] == "tied"
    Y = X.copy()
    Y[1] = X[0][:, ::-1]  # X_2 is X_1 with its axes swapped: a function of X_1, same margins
    got = _tie_one(_one_values([0.5, 0.5], Y, P4, l2=0.5))
    assert got["status"] == "untied" and "not independent" in got["detail"], got


@pytest.mark.parametrize("where", ["vectors", "weights"])
def test_a_witness_with_nan_or_inf_is_refused(where):
    values = _one_values([0.5, 0.5], X12, P4, l2=0.5)
    W, X = values[WITNESSES]["wn"]
    W, X = (np.array([np.inf, 0.5]), X) if where == "weights" else (W, np.where(X > 0, X, np.nan))
    got = _tie_one({**values, WITNESSES: {"wn": (W, X)}})
    assert got["status"] == "untied" and "not a finite number" in got["detail"], got


def test_a_radius_short_by_a_relative_1e_10_is_refused():
    got = _tie_one(_one_values([0.5, 0.5], X12, P4, radius=1 - 1e-10, l2=0.5))
    assert got["status"] == "untied" and "over the radius" in got["detail"], got


def test_weights_of_the_wrong_shape_for_the_facts_free_index_are_not_evaluable():
    got = _tie_one({**_one_values([0.5, 0.5], X12, P4, l2=0.5), WITNESSES: {"wn": (np.array([[0.5, 0.5]]), X12)}})
    assert got["status"] == "not evaluable" and "has no free index: its witness's weights must be one row" in got["detail"], got
    got = _tie_summed(_summed_values(WITNESSES={"wn": (W2[0], X12)}))
    assert got["status"] == "not evaluable" and "must be one row per value of i" in got["detail"], got


def test_weights_rows_fewer_or_more_than_the_norms_table_are_refused():
    got = _tie_summed(_summed_values(WITNESSES={"wn": (W2[:1], X12)}))  # D(2) has a value, no row
    assert got["status"] == "untied" and "no weights at i = 2" in got["detail"], got
    got = _tie_summed(_summed_values(WITNESSES={"wn": (np.vstack([W2, W2[:1]]), X12)}))  # a row for D(3)
    assert got["status"] == "untied" and "weights for i = 3" in got["detail"], got


def test_a_fact_with_two_free_indices_is_not_evaluable():
    from attnbounds.engine.tie import _NotEvaluable, _env, _weighted_norm_holds

    i, k = sp.symbols("i k", integer=True, positive=True)
    h = WeightedNorm(D(i + k), M, F1(i), F2(k))
    values = {M: 1.0, F1: [1.0], F2: [1.0], D: [D_HONEST[0]], SPACE: P4, WITNESSES: {"wn": (W2, X12)}}
    with pytest.raises(_NotEvaluable, match="2 free indices"):
        _weighted_norm_holds("wn", h, _env(values, random={D}), values)
