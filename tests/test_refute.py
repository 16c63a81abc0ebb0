"""attnbounds.engine.refute: counterexamples to a proof's statement with a hypothesis dropped."""

import numpy as np
import pytest
import sympy as sp

from attnbounds.engine.refute import NoNumericForm, refute
from attnbounds.theory.proof import BoundedDifferences, Context, Expect, Inner, Norm, Prob, vector

R = sp.Symbol("R", nonnegative=True)
r = sp.Symbol("r", positive=True)
t = sp.Symbol("t", positive=True)
c2 = sp.Symbol("c2", positive=True)
i = sp.Symbol("i", integer=True, positive=True)
N = sp.Symbol("N", integer=True, positive=True)
D = sp.Function("D")


def test_a_needed_hypothesis_is_refuted_and_a_kept_one_is_respected():
    c, x = vector("c x")
    a, d = sp.symbols("a delta", nonnegative=True)
    d1 = sp.Symbol("d_1", nonnegative=True)
    ctx = Context({"dist": Norm(x - c) <= d1, "norm": Norm(c) <= R})
    goal = (Norm(a * x - (a + d) * c), "<=", a * d1 + d * R)
    assert refute(*goal, ctx, seed=1).assignment is None  # the true statement: nothing found
    for name in ("dist", "norm"):
        found = refute(*goal, ctx, drop=name, seed=1)
        assert found.assignment is not None and found.dropped_violated is True, name
        assert found.lhs > found.rhs
        cv, xv = np.array(found.assignment["c"]), np.array(found.assignment["x"])
        kept = "norm" if name == "dist" else "dist"
        if kept == "norm":  # the kept hypothesis holds at the counterexample
            assert np.linalg.norm(cv) <= found.assignment["R"]
        else:
            assert np.linalg.norm(xv - cv) <= found.assignment["d_1"]


def test_assumptions_of_symbols_and_functions_are_respected():
    s2 = sp.Function("sigma2", positive=True)
    x = sp.Symbol("x", positive=True)
    goal = (sp.Sum(x * s2(i), (i, 1, N)), "<=", 0)  # false for every admissible value
    found = refute(*goal, Context({}), seed=0)
    assert found.assignment is not None
    assert found.assignment["x"] > 0 and all(v > 0 for v in found.assignment["sigma2(1..)"])


def test_an_equation_is_solved_not_sampled():
    a = sp.Function("a")
    m = sp.Symbol("m", nonnegative=True)
    K = sp.Symbol("K", integer=True, positive=True)
    ctx = Context({"mass": sp.Eq(sp.Sum(a(i), (i, 1, K)), 1 - m)})
    # sum a_i + m = 1 is then always true; its tightened form is refuted
    assert refute(sp.Sum(a(i), (i, 1, K)) + m, "==", 1, ctx, seed=0).assignment is None
    assert refute(sp.Sum(a(i), (i, 1, K)) + m, "<=", sp.Rational(999, 1000), ctx, seed=0).assignment is not None


def test_markov_needs_a_non_negative_variable():
    ctx = Context({"D>=0": sp.Ge(D(1), 0)})
    goal = (Prob(sp.Gt(D(1), r)), "<=", Expect(D(1)) / r)
    assert refute(*goal, ctx, seed=0).assignment is None  # Markov holds on every finite space
    found = refute(*goal, ctx, drop="D>=0", seed=0)
    assert found.assignment is not None and found.dropped_violated is True
    assert min(found.assignment["D(1..)[atoms]"][0]) < 0  # some atom is negative


def test_bounded_differences_are_realised_soundly():
    tail = Prob(sp.Le(D(1) - Expect(D(1)), -t))
    ctx = Context({"bd": BoundedDifferences(D(1), c2)})
    goal = (tail, "<=", sp.exp(-2 * t**2 / c2))
    assert refute(*goal, ctx, seed=0, batches=40).assignment is None  # Hoeffding's inequality
    found = refute(*goal, ctx, drop="bd", seed=0, batches=40)
    assert found.assignment is not None
    atoms = np.array(found.assignment["D(1..)[atoms]"][0])
    assert (atoms.max() - atoms.min()) ** 2 > found.assignment["c2"]  # only the range can break it


def test_a_weighted_norm_is_realised_soundly():
    """WeightedNorm(D, R, l1, l2) is realised by D = sqrt(l2) |X_1|, |X_1| <= R: every world the
    search keeps has 0 <= D <= R sqrt(l2) <= R l1, so the true range bound is never refuted and
    a bound below it is."""
    from attnbounds.theory.proof import WeightedNorm

    l1, l2 = sp.Function("l1", nonnegative=True), sp.Function("l2", nonnegative=True)
    ctx = Context({"norm": WeightedNorm(D(1), R, l1(1), l2(1))})
    assert refute(Expect(D(1)), "<=", R * l1(1), ctx, seed=0, batches=40).assignment is None
    assert refute(Prob(sp.Le(D(1) - Expect(D(1)), -t)), "<=", sp.exp(-2 * t**2 / (4 * R**2 * l2(1))), ctx,
                  seed=0, batches=40).assignment is None  # McDiarmid with c_j = 2 R w_j
    found = refute(Expect(D(1)), "<=", R * l1(1) / 2, ctx, seed=0, batches=40)
    assert found.assignment is not None
    a = found.assignment
    d, l1v, l2v = np.array(a["D(1..)[atoms]"][0]), a["l1(1..)"][0], a["l2(1..)"][0]
    assert d.min() >= 0 and l2v <= l1v**2 and d.max() <= a["R"] * np.sqrt(l2v) + 1e-12  # realisable
    assert d @ np.array(a["P(atoms)"]) > a["R"] * l1v / 2  # and a counterexample


def test_a_probability_hypothesis_is_met_world_by_world():
    """P(missed(i)) = (1 - p)^H is met in every world of a batch where its value lies in (0, 1),
    not only in batches where all of them do: H1's dropped-term mutant (E[c] = 1, false when
    (1 - p)^H > 0) stayed undecided while one world with p > 1 spoiled each batch."""
    from attnbounds.theory.coverage import h1_chains

    chain = h1_chains()["independent_equal_p"]
    lhs, _, rhs = chain.goal
    found = refute(lhs, "==", sp.Integer(1), chain.chain.ctx, seed=0)
    assert found.assignment is not None and abs(found.lhs - found.rhs) > 1e-6
    p_, H_ = found.assignment["p"], found.assignment["H"]
    assert abs(found.lhs - (1 - (1 - p_) ** H_)) < 1e-9  # the world meets the hypothesis
    assert refute(lhs, "==", rhs, chain.chain.ctx, seed=0).assignment is None  # the true statement stands


def test_opaque_parts_have_no_numeric_form():
    u, v = vector("u v")
    with pytest.raises(NoNumericForm):
        refute(Inner(u, v), "<=", Norm(u) * Norm(v), Context({}))
    with pytest.raises(ValueError, match="relation"):
        refute(R, "<", 1, Context({}))


@pytest.mark.parametrize("key", ["sum", "sphere", "R_ge_1", "witness_sum", "d1_norm_sum", "per_token"])
def test_the_checked_t1i_chains_have_no_counterexample(key):
    # a hypothesis with a summation index must hold at every index; an index left bound by
    # an earlier step once made it hold at one index only, and "refuted" a proved statement
    from attnbounds.theory.distance import t1i_chains

    part = t1i_chains()[key]
    found = refute(*part.goal, part.chain.ctx, seed=0)
    assert found.assignment is None and found.tried > 0, found.text()


def _checked_parts():
    from attnbounds.claims import registry
    from attnbounds.engine.mutants import _parts

    for claim in registry.all_claims():
        for reading in claim.readings:
            if reading.symbolic is None:
                continue
            proof = reading.symbolic()
            for k, part in enumerate(_parts(proof)):
                yield f"{claim.id}:{reading.name}:{k + 1}", part


def test_no_checked_chain_of_the_package_is_refuted():
    """The control of the mutation tests: the unmutated statement of every complete chain has
    no counterexample (one would be a kernel or evaluator bug)."""
    searched, seen = 0, set()
    for name, part in _checked_parts():
        key = (sp.srepr(part.goal[0]), part.goal[1], sp.srepr(part.goal[2]), tuple(part.chain.ctx.hypotheses))
        if key in seen:  # the same lemma chain serves several readings
            continue
        seen.add(key)
        try:
            found = refute(*part.goal, part.chain.ctx, seed=3, batches=6)
        except NoNumericForm:
            continue
        searched += 1
        assert found.assignment is None, f"{name}: {found.text()}"
    assert searched >= 15


def test_a_solved_symbol_follows_a_rescaled_vector():
    # c = 2e with |e| = 1: c was solved before e was rescaled and never checked again, so the
    # search "refuted" |c| <= 2 at a point where c != 2e (a false counterexample)
    import sympy as sp

    from attnbounds.theory.proof import Assumed, Context, Norm, vector

    c, e = vector("c e")
    ctx = Context({"def": sp.Eq(c, 2 * e), "unit": sp.Eq(Norm(e), 1)})
    ok = refute(Norm(c), "<=", 2, ctx, seed=0)
    assert ok.assignment is None and ok.tried > 0, ok.text()
    found = refute(Norm(c), "<=", sp.Rational(3, 2), ctx, seed=0)
    assert found.assignment is not None and abs(found.lhs - 2) < 1e-9
    with pytest.raises(NoNumericForm, match="assumed"):
        refute(Norm(c), "<=", 2, ctx.extended({"a": Assumed(Norm(c) <= 2, "argued")}), seed=0)


def test_a_negative_zero_prints_as_zero():
    # a counterexample read "alpha_j=-0" (a rescaled zero weight); it prints as 0, other signs stay
    from attnbounds.engine import rows
    from attnbounds.engine.refute import _fmt

    assert _fmt(-0.0, 4) == "0" and _fmt([-0.0, -1.5], 4) == "[0, -1.5]"
    assert rows._fmt(-0.0) == "0" and rows._instance_text({"a": -0.0, "b": -2.0}) == "a=0, b=-2"
    assert rows._instance_text({"x": np.array([[-0.0, 1.0], [-3.0, 0.0]])}) == "x=[[0.0, 1.0], [-3.0, 0.0]]"


def test_the_integers_of_a_batch_meet_the_hypotheses_about_them_alone():
    """The integers are drawn once per batch: drawn uniformly, three of them met i <= L - N and
    N <= L in one batch of six, so a six-batch search often judged nothing (13 of the audit's
    steps). They are now drawn to meet the hypotheses that speak of them alone."""
    L = sp.Symbol("L", integer=True, positive=True)
    x = sp.Symbol("x", positive=True)
    ctx = Context({"i": sp.Le(i, L - N), "N": sp.Le(N, L)})
    found = refute(i + N, "<=", L + x, ctx, seed=3, batches=6, batch=50)
    assert found.assignment is None
    assert found.tried == 6 * 50  # every batch's integers met the integer hypotheses
    assert refute(i + N, "<=", L - 1 + x, ctx, seed=3, batches=6, batch=50).assignment is not None  # at i + N = L


def test_a_dropped_hypothesis_at_an_undrawn_index_is_neither_met_nor_failed():
    """A dropped hypothesis that reads a value nothing was drawn for (x[L + 10]) was counted as
    failing at the counterexample, so the mutants said "which fails there" of it, and a
    counterexample to the statement itself could not be told from one to the mutant."""
    x = sp.IndexedBase("x", real=True)
    L = sp.Symbol("L", integer=True, positive=True)
    far = refute(x[1], "<=", 1, Context({"x1": sp.Le(x[1], 2), "far": sp.Le(x[L + 10], 0)}), drop="far", seed=1)
    assert far.assignment is not None and far.lhs > 1 and far.dropped_violated is None
    near = refute(x[1], "<=", 1, Context({"x1": sp.Le(x[1], 2), "near": sp.Le(x[1], 1)}), drop="near", seed=1)
    assert near.assignment is not None and near.dropped_violated is True


def test_the_integers_are_drawn_where_every_hypothesis_can_hold():
    """What a hypothesis needs of the integers alone: a divisor in them is not 0 (x = 1/(L − 2) is
    undefined at L = 2) and a probability equal to an expression in them lies in [0, 1]
    (P(A) = (L − N)/L needs N <= L). T1ii's steps met their hypotheses in no draw without it."""
    from attnbounds.engine.refute import _integer_relations
    from attnbounds.theory.proof import Prob

    L = sp.Symbol("L", integer=True, positive=True)
    x = sp.Symbol("x", real=True)
    ctx = Context({"x": sp.Eq(x, 1 / (L - 2))})
    found = refute(x, "<=", 1 / (L - 2) + 1, ctx, seed=3, batches=6, batch=50)
    assert found.assignment is None and found.tried == 6 * 50  # no batch drew L = 2
    A = sp.Function("A")
    rels = _integer_relations([sp.Eq(Prob(A(i) <= 1), (L - N) / L)], [i, L, N])
    assert set(rels) == {sp.Ne(L, 0), sp.Le(0, (L - N) / L), sp.Le((L - N) / L, 1)}


def test_a_weighted_norm_over_a_range_meets_its_hypotheses():
    """T2 upper_if_r_le_xi's goal: a weighted norm at every i of a range, with sigma1(i) <= 1 and
    r <= E[D(i)]. Each per-index condition held in about half of the draws, so at every i of
    1 … 5 they held in almost none (0 of 1,200 here). The weights' condition l1 >= sqrt(l2) is now
    met where the fact is widened, and r is tightened again on the widened D."""
    from attnbounds.theory.proof import WeightedNorm

    s1, s2 = sp.Function("sigma1", nonnegative=True), sp.Function("sigma2", positive=True)
    M = sp.Symbol("M", positive=True)
    rr = sp.Symbol("r", real=True)
    ctx = Context({"norm": WeightedNorm(D(i), M, s1(i), s2(i)), "w": s1(i) <= 1, "r": rr <= Expect(D(i))})
    gap = sp.Sum(Expect(D(i)) - rr, (i, 1, 5))
    found = refute(gap, ">=", 0, ctx, seed=2, batches=6, batch=200)
    assert found.assignment is None and found.tried >= 20
    wrong = refute(gap, "<=", 0, ctx, seed=2, batches=6, batch=200)
    assert wrong.assignment is not None  # a draw that meets them all breaks the false statement


def test_placed_values_keep_their_symbols_assumptions():
    """A new user's true chain, 1 - r <= 1 for a positive r given r <= S, was reported as a kernel
    bug: the audit tightened r onto S's side and took r = -0.24, and a negative symbol was drawn
    with either sign (c + x <= x refuted at c = 0.12). A value placed by an equation (f(i) = x - 1
    for a non-negative f) broke f's assumption too. Such draws are not ones the statement speaks of."""
    from attnbounds.engine.audit import audit_chain
    from attnbounds.theory.proof import Chain, by

    S, rp = sp.symbols("S r", positive=True)
    c = sp.Symbol("c", negative=True)
    x = sp.Symbol("x", real=True)
    ok = Chain(1 - rp, Context({"r<=S": rp <= S})).le(1, by.algebra()).prove(1 - rp, "<=", 1)
    assert audit_chain(ok).counterexamples == 0
    ok = Chain(x + c, Context({"x": x <= 1})).le(x, by.algebra()).prove(x + c, "<=", x)
    assert audit_chain(ok).counterexamples == 0
    f = sp.Function("f", nonnegative=True)
    found = refute(f(i), ">=", 0, Context({"def": sp.Eq(f(i), x - 1)}), seed=0)
    assert found.assignment is None and found.tried > 0
    # the searches still judge: the same settings find a counterexample to a false statement
    assert refute(1 - rp, "<=", 1 - S, Context({"r<=S": rp <= S}), seed=0).assignment is not None
    assert refute(f(i), ">=", 1, Context({"def": sp.Eq(f(i), x - 1)}), seed=0).assignment is not None


def test_integers_that_make_an_equation_lose_its_value_are_avoided_where_they_can_be():
    """At N = L - 1 the definition E[X(i)^2] = N (L - N - 1) V[i]/((L - 2)(L - 1)) loses V[i] and asks
    E[X(i)^2] = 0: T1ii's steps judged nothing in every batch that drew it, at some seeds in all
    six. Two batches in three now prefer integers at which the coefficient is not 0 (the first of
    every three draws them as before, so the degenerate integers are still searched)."""
    from attnbounds.engine.refute import _integer_preferences

    L = sp.Symbol("L", integer=True, positive=True)
    V = sp.IndexedBase("V", nonnegative=True)
    X = sp.Function("X", real=True)
    define = sp.Eq(Expect(X(i) ** 2), N * (L - N - 1) * V[i] / ((L - 2) * (L - 1)))
    assert _integer_preferences([define], [i, N, L]) == [sp.Ne(-N * (L - N - 1) / ((L - 2) * (L - 1)), 0)]
    ctx = Context({"def": define, "N": sp.Le(N, L - 1), "i": sp.Le(i, L)})
    found = refute(V[i], ">=", 0, ctx, seed=2, batches=6, batch=200)
    # the four preferring batches all judged (1,000 of 1,200 draws; 400 without the preference)
    assert found.assignment is None and found.tried == 1000
    assert refute(V[i], ">=", 1, ctx, seed=2, batches=6, batch=200).assignment is not None


def test_an_equation_at_a_literal_index_is_met():
    """a(1) = 5 (x[1] = 5, E[X(1)] = 2, P(A(1)) = 1/2) was never made to hold: no draw met it, and
    a false goal under it was never refuted (review 3 of the refuter)."""
    a = sp.Function("a", real=True)
    x = sp.IndexedBase("x", real=True)
    X, A = sp.Function("X", real=True), sp.Function("A")
    for lhs, h, rhs in ((a(1), sp.Eq(a(1), 5), 6), (x[1], sp.Eq(x[1], 5), 6), (a(2), sp.Eq(a(1), 5), 0),
                        (Expect(X(1)), sp.Eq(Expect(X(1)), 2), 3), (Prob(A(1)), sp.Eq(Prob(A(1)), sp.Rational(1, 2)), sp.Rational(9, 10))):
        got = refute(lhs, ">=", rhs, Context({"h": h}), seed=0)
        assert got.tried > 0 and got.assignment is not None, (lhs, h)


def test_a_draw_whose_goal_has_no_value_is_not_counted_as_searched():
    """a(0) is out of the table (nan): the draws met the hypotheses but judged nothing."""
    a = sp.Function("a", real=True)
    assert refute(a(0), ">=", 0, Context({}), seed=0).tried == 0
    assert refute(a(1), ">=", 0, Context({}), seed=0).tried > 0


def test_integers_are_drawn_over_every_value_their_assumptions_allow():
    """0 for a nonnegative integer, 0 and below for one with no sign, never 0 for a nonzero one
    (review 3 of the refuter: n >= 1 was never refuted for a nonnegative n)."""
    n = sp.Symbol("n", integer=True, nonnegative=True)
    m = sp.Symbol("m", integer=True)
    z = sp.Symbol("z", integer=True, nonzero=True)
    assert refute(n, ">=", 1, Context({}), seed=0).assignment == {"n": 0.0}
    assert refute(m, ">=", 1, Context({}), seed=0).assignment is not None
    got = refute(z, ">=", 1, Context({}), seed=0)
    assert got.assignment is not None and got.assignment["z"] < 0
    assert refute(z ** 2, ">=", 1, Context({}), seed=0).assignment is None  # z = 0 is never drawn


def test_a_function_bound_to_callables_is_applied_and_differentiated_with_them():
    """The tie's path (a bind gives F and F' as callables; the refuter's own draws give none): F(x)
    is F at x's value, Derivative(F(x), x) and Subs(Derivative(F(_x), _x), _x, a) are F' at the
    value, and a Mat of derivatives of F(l_u)/Σ_k F(l_k) is SymPy's derivative evaluated with them
    (here softmax: J = diag α − ααᵀ). Without callables, F is a table, read at integers."""
    from attnbounds.engine.refute import _Env, _eval
    from attnbounds.theory.jacobian import ratio_setting
    from attnbounds.theory.proof import OpNorm

    s = ratio_setting()
    F, lg, L = s["F"], s["l"], s["L"]
    z = np.array([0.3, -1.0, 2.0])
    env = _Env(1)
    env.ints[L] = 3
    env.values[lg] = np.concatenate([[np.nan], z, [np.nan]])[None, :]
    env.functions[F] = (np.exp, lambda x: 2 * np.exp(x))  # not F's own: the evaluator takes it as given (the tie checks it)
    y = sp.Symbol("y", real=True)
    env.values[y] = np.array([0.5])
    assert _eval(F(lg[2]), env)[0] == pytest.approx(np.exp(-1.0), rel=1e-15)
    assert _eval(sp.Derivative(F(lg[3]), lg[3]), env)[0] == pytest.approx(2 * np.exp(2.0), rel=1e-15)
    slope = sp.Derivative(F(3 * y), y).doit()  # 3 Subs(Derivative(F(_x), _x), _x, 3y)
    assert slope.has(sp.Subs) and _eval(slope, env)[0] == pytest.approx(6 * np.exp(1.5), rel=1e-15)
    env.functions[F] = (np.exp, np.exp)
    a = np.exp(z) / np.exp(z).sum()
    J = np.diag(a) - np.outer(a, a)
    assert _eval(OpNorm(s["J"]), env)[0] == pytest.approx(np.linalg.norm(J, 2), rel=1e-12)
    env.functions[F] = (np.exp, None)  # no F' given: F's central differences, where they are sure
    got = _eval(sp.Derivative(F(lg[1]), lg[1]), env)[0]
    assert np.isnan(got) or got == pytest.approx(np.exp(0.3), rel=1e-8)
    plain = _Env(1)  # no callable: F is a table, read at the nearest integer as before
    plain.values[F] = np.array([[np.nan, 10.0, 20.0, np.nan]])
    plain.values[y] = np.array([1.9])
    assert _eval(F(y), plain)[0] == 20.0
    plain.integer_reads = True  # the tie's: a table read at 1.9 has no value
    with pytest.raises(NoNumericForm, match="no integer"):
        _eval(F(y), plain)
