"""The weighted-norm setting (WeightedNorm) and the rules that read it: weighted-norm, mcdiarmid
on a weighted norm, hoeffding. Each accepts its correct instantiations and rejects the wrong
ones (random thresholds, ranges and radii included: an independent review got three false
statements through the first version that way, kept below as regressions); the facts the
rules trust are checked on numbers (Hypothesis draws weights and vectors); Theorem 2's upper
chains break when the setting or the weights' total is dropped."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnbounds.theory.proof import RULES, Assumed, BoundedDifferences, Chain, Context, Expect, Prob, WeightedNorm, by

i = sp.Symbol("i", integer=True, positive=True)
M = sp.Symbol("M", positive=True)
D = sp.Function("D", real=True)
s1 = sp.Function("sigma1", nonnegative=True, deterministic=True)  # numbers indexed by the token
s2 = sp.Function("sigma2", positive=True, deterministic=True)
t = sp.Function("t", real=True, deterministic=True)
f = D(i)
tail = Prob(sp.Le(f - Expect(f), -t(i)))
SETTING = WeightedNorm(f, M, s1(i), s2(i))
CTX = Context({"setting": SETTING, "weights": sp.Le(s1(i), 1), "t>0": sp.Gt(t(i), 0)})


def _step(lhs, rel, rhs, step, ctx=CTX):
    chain = Chain(lhs, ctx)
    chain = {"=": chain.eq, "<=": chain.le, ">=": chain.ge}[rel](rhs, step)
    res = chain.prove(lhs, "==" if rel == "=" else rel, rhs)
    return res.complete, res.step_checks[0].reason


def test_rules_are_registered_with_statement_and_reason():
    for name in ("weighted-norm", "hoeffding"):
        assert RULES[name].statement and RULES[name].why


# ----------------------------------------------------------------------------- weighted-norm


@pytest.mark.parametrize("lhs, rel, rhs, ok", [
    (f, "<=", M * s1(i), True),  # triangle inequality
    (f, ">=", 0, True),
    (s2(i), "<=", s1(i) ** 2, True),  # Σ w² <= (Σ |w|)²
    (s1(i), ">=", 0, True),
    (f, "<=", M * s2(i), False),  # the sum of squares is not a bound on the norm
    (f, "<=", M * s1(i) / 2, False),
    (s1(i) ** 2, "<=", s2(i), False),  # the reverse order
    (f, "<=", M, False),  # needs the weights' total, which is not this rule's
    (-f, ">=", 0, False),
])
def test_weighted_norm_forms(lhs, rel, rhs, ok):
    done, reason = _step(lhs, rel, rhs, by.weighted_norm("setting"))
    assert done is ok, reason


def test_weighted_norm_needs_the_definition_stated_not_assumed():
    assumed = Context({"setting": Assumed(SETTING, "argued")})
    done, reason = _step(f, "<=", M * s1(i), by.weighted_norm("setting"), assumed)
    assert not done and "assumed" in reason
    done, reason = _step(f, "<=", M * s1(i), by.weighted_norm("setting"), Context({}))
    assert not done and "no WeightedNorm hypothesis 'setting'" in reason
    other = Context({"setting": WeightedNorm(sp.Function("E", real=True)(i), M, s1(i), s2(i))})
    assert not _step(f, "<=", M * s1(i), by.weighted_norm("setting"), other)[0]


# ----------------------------------------------------------------------------- mcdiarmid


def test_mcdiarmid_reads_the_bounded_differences_off_the_weighted_norm():
    right = sp.exp(-2 * t(i) ** 2 / (4 * M**2 * s2(i)))  # c_j = 2 M w_j
    assert _step(tail, "<=", right, by.mcdiarmid(f, t(i), "setting"))[0]
    for wrong in (sp.exp(-2 * t(i) ** 2 / (M**2 * s2(i))),  # c_j = M w_j: too small
                  sp.exp(-2 * t(i) ** 2 / (4 * M**2 * s1(i) ** 2)),  # l1 in place of l2 ... and
                  sp.exp(-2 * t(i) ** 2 / (4 * M**2))):  # the weights' total dropped
        done, reason = _step(tail, "<=", wrong, by.mcdiarmid(f, t(i), "setting"))
        assert not done and "sum c^2 = 4*M**2*sigma2(i)" in reason
    no_t = Context({"setting": SETTING})
    assert "t > 0" in _step(tail, "<=", right, by.mcdiarmid(f, t(i), "setting"), no_t)[1]
    assumed = Context({"setting": Assumed(SETTING, "argued"), "t>0": sp.Gt(t(i), 0)})
    assert "assumed" in _step(tail, "<=", right, by.mcdiarmid(f, t(i), "setting"), assumed)[1]


# ----------------------------------------------------------------------------- hoeffding

LOW = Chain(f).ge(0, by.weighted_norm("setting"))
HIGH = Chain(f).le(M * s1(i), by.weighted_norm("setting")).le(M, by.algebra()).le(2 * M, by.algebra())


def test_hoeffding_with_the_range_by_sub_chains():
    right = sp.exp(-2 * t(i) ** 2 / (2 * M) ** 2)
    assert _step(tail, "<=", right, by.hoeffding(f, t(i), 0, 2 * M, low=LOW, high=HIGH))[0]
    # the range straight from the hypotheses
    ranged = Context({"lo": sp.Ge(f, 0), "hi": sp.Le(f, 2 * M), "t>0": sp.Gt(t(i), 0)})
    assert _step(tail, "<=", right, by.hoeffding(f, t(i), 0, 2 * M), ranged)[0]
    # upper tail
    upper = Prob(sp.Ge(f - Expect(f), t(i)))
    assert _step(upper, "<=", right, by.hoeffding(f, t(i), 0, 2 * M), ranged)[0]


@pytest.mark.parametrize("case", ["no-range", "wrong-constant", "narrower", "high-fails", "no-weights", "no-t",
                                  "mean", "empty-range"])
def test_hoeffding_rejects(case):
    right = sp.exp(-2 * t(i) ** 2 / (2 * M) ** 2)
    step, ctx, lhs, rhs = by.hoeffding(f, t(i), 0, 2 * M, low=LOW, high=HIGH), CTX, tail, right
    if case == "no-range":  # nothing says D is in [0, 2M]
        step = by.hoeffding(f, t(i), 0, 2 * M)
    elif case == "wrong-constant":
        rhs = sp.exp(-2 * t(i) ** 2 / M**2)
    elif case == "narrower":  # [0, M/2] is not proved
        step, rhs = by.hoeffding(f, t(i), 0, M / 2, low=LOW, high=HIGH), sp.exp(-2 * t(i) ** 2 / (M / 2) ** 2)
    elif case == "high-fails":  # a sub-chain that does not reach X <= b
        step = by.hoeffding(f, t(i), 0, 2 * M, low=LOW, high=Chain(f).le(M * s1(i), by.weighted_norm("setting")))
    elif case == "no-weights":  # without sigma1 <= 1 the range [0, 2M] does not follow
        ctx = ctx.without("weights")
    elif case == "no-t":
        ctx = ctx.without("t>0")
    elif case == "mean":  # X must be random: E[D] is a number
        X = Expect(f)
        lhs = Prob(sp.Le(X - Expect(X), -t(i)))
        step = by.hoeffding(X, t(i), 0, 2 * M, low=LOW, high=HIGH)
    elif case == "empty-range":
        step, rhs = by.hoeffding(f, t(i), 0, 0), sp.exp(-2 * t(i) ** 2 / sp.Integer(0) ** 2)
    done, reason = _step(lhs, "<=", rhs, step, ctx)
    assert not done, reason


# ----------------------------------------------------------------------------- random parameters

G = sp.Function("G", positive=True)  # a random variable (no deterministic=True)
X = sp.Function("X", real=True)(i)


def test_random_thresholds_ranges_and_radii_are_refused():
    """The review's three false statements: each is refused, naming the random parameter."""
    from attnbounds.theory.proof import Lemma

    ev = sp.Le(X - Expect(X), -10)
    # Hoeffding with a range built from X itself: X in [X, X + 1] holds surely, the bound does not
    done, reason = _step(Prob(ev), "<=", sp.exp(-200), by.hoeffding(X, 10, X, X + 1), Context({}))
    assert not done and "hoeffding: a must be non-random" in reason
    # a random threshold t = G(i), inside an expectation afterwards
    ranged = Context({"lo": sp.Ge(X, 0), "hi": sp.Le(X, 1)})
    tail = Prob(sp.Le(X - Expect(X), -G(i)))
    done, reason = _step(tail, "<=", sp.exp(-2 * G(i) ** 2), by.hoeffding(X, G(i), 0, 1), ranged)
    assert not done and "hoeffding: t must be non-random" in reason
    bd = Context({"bd": BoundedDifferences(X, 1)})
    done, reason = _step(tail, "<=", sp.exp(-2 * G(i) ** 2), by.mcdiarmid(X, G(i), "bd"), bd)
    assert not done and "mcdiarmid: t must be non-random" in reason
    # a weighted norm whose radius is random
    wn = Context({"wn": WeightedNorm(f, G(i), 1, 1)})
    quarter = Prob(sp.Le(f - Expect(f), -sp.Rational(1, 4)))
    done, reason = _step(quarter, "<=", sp.exp(-sp.Rational(1, 8) / (4 * G(i) ** 2)),
                         by.mcdiarmid(f, sp.Rational(1, 4), "wn"), wn)
    assert not done and "must be non-random" in reason
    assert "radius must be non-random" in _step(f, "<=", G(i), by.weighted_norm("wn"), wn)[1]
    # Markov with a random threshold
    Y = sp.Function("Y", nonnegative=True)(i)
    done, reason = _step(Prob(sp.Ge(Y, G(i))), "<=", Expect(Y) / G(i), by.markov(Y, G(i)), Context({}))
    assert not done and "markov: r must be non-random" in reason
    # instance: a checked theorem about probabilities, with its constants a, b made random
    a, b, tt = sp.symbols("a b tt", real=True)
    thm_ctx = Context({"lo": sp.Ge(X, a), "hi": sp.Le(X, b), "b>a": sp.Gt(b, a), "t>0": sp.Gt(tt, 0)})
    goal = (Prob(sp.Le(X - Expect(X), -tt)), "<=", sp.exp(-2 * tt**2 / (b - a) ** 2))
    thm_chain = Chain(goal[0], thm_ctx).le(goal[2], by.hoeffding(X, tt, a, b))
    assert thm_chain.prove(*goal).complete
    thm = Lemma(thm_chain, goal[0], "<=", goal[2])
    subs = {a: X - 1, b: X + 1, tt: sp.Integer(10)}
    inst = Prob(sp.Le(X - Expect(X), -10))
    done, reason = _step(inst, "<=", sp.exp(-2 * 100 / sp.Integer(4)), by.instance(thm, subs), Context({}))
    assert not done and "instance: the value of a" in reason and "non-random" in reason


def test_deterministic_functions_are_constants():
    from attnbounds.theory.proof import Indicator, is_constant

    assert is_constant(t(i)) and is_constant(Expect(f)) and is_constant(sp.Symbol("r"))
    assert not is_constant(f) and not is_constant(G(i)) and not is_constant(Indicator(sp.Le(f, 1)))
    assert not is_constant(t(f))  # a fixed function of a random variable is random


def test_a_proof_names_the_functions_it_takes_as_non_random():
    """Declaring a function deterministic is an assumption of the chain's author: the summary says so."""
    from attnbounds.theory.separability import t2_chains

    chain = t2_chains()["conditioned"]
    assert chain.nonrandom == ("sigma1", "sigma2", "t")
    assert chain.summary().endswith("; non-random by declaration: sigma1, sigma2, t")
    assert t2_chains()["markov"].nonrandom == () and "non-random" not in t2_chains()["markov"].summary()


# ----------------------------------------------------------------------------- the facts on numbers


@st.composite
def _weighted_sums(draw):
    n = draw(st.integers(1, 6))
    d = draw(st.integers(1, 4))
    w = draw(arrays(np.float64, n, elements=st.floats(-2, 2, allow_nan=False)))
    R = draw(st.floats(0.1, 3.0))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-1, 1, allow_nan=False)))
    Y = draw(arrays(np.float64, (n, d), elements=st.floats(-1, 1, allow_nan=False)))

    def into_ball(V):  # rows of norm at most R
        norms = np.linalg.norm(V, axis=1, keepdims=True)
        return np.where(norms > 1, V / np.where(norms > 1, norms, 1), V) * R

    return w, R, into_ball(X), into_ball(Y)


@given(_weighted_sums(), st.integers(0, 5))
def test_what_the_rules_trust_holds_on_numbers(data, j):
    """0 <= f <= R l1, l2 <= l1², and replacing X_j moves f by at most 2R|w_j| (McDiarmid's c_j)."""
    w, R, X, Y = data
    j = j % w.size
    fx = np.linalg.norm(w @ X)
    l1, l2 = np.abs(w).sum(), (w**2).sum()
    tol = 1e-12 * (1 + R * l1)
    assert 0 <= fx <= R * l1 + tol
    assert l2 <= l1**2 * (1 + 1e-12) + 1e-300
    X2 = X.copy()
    X2[j] = Y[j]
    assert abs(np.linalg.norm(w @ X2) - fx) <= 2 * R * abs(w[j]) + tol


# ----------------------------------------------------------------------------- Theorem 2's chains


def test_theorem2_upper_chains_are_complete_and_need_their_setting():
    from attnbounds.theory.separability import t2_chains

    chains = t2_chains()
    needs = {"mcdiarmid": ("sphere_iid",), "mcdiarmid_selected": ("sphere_iid",),
             "conditioned": ("sphere_iid", "weights", "r<=xi"), "hoeffding": ("sphere_iid", "weights")}
    for name, hyps in needs.items():
        chain = chains[name]
        assert chain.complete and not chain.assumed, (name, chain.first_failure)
        ctx = chain.chain.ctx
        assert set(hyps) <= set(ctx.hypotheses), (name, sorted(ctx.hypotheses))
        for h in hyps:
            res = chain.chain.prove(*chain.goal, ctx=ctx.without(h))
            assert not res.complete, (name, h)
    # McDiarmid's own chain does not use the weights' total (sigma_i^2 stays in its bound)
    assert "weights" not in chains["mcdiarmid"].chain.ctx.hypotheses


# ----------------------------------------------------------------------------- cases


def test_cases_splits_a_non_random_real_and_evaluates_max_and_min():
    x = sp.Symbol("x", real=True)
    ok = Chain(x).le(sp.Max(x, 0), by.cases(x, pos=Chain(x).eq(x, by.identity()), nonpos=Chain(x).le(0, by.algebra())))
    assert ok.prove(x, "<=", sp.Max(x, 0)).complete
    assert Chain(sp.Min(x, 0)).le(x, by.cases(x, pos=Chain(0).le(x, by.algebra()), nonpos=Chain(x).eq(x, by.identity()))
                                  ).prove(sp.Min(x, 0), "<=", x).complete
    # false: Max(x, 0) <= x fails in the case x <= 0
    bad = Chain(sp.Max(x, 0)).le(x, by.cases(x, pos=Chain(x).eq(x, by.identity()), nonpos=Chain(0).le(x, by.algebra())))
    res = bad.prove(sp.Max(x, 0), "<=", x)
    assert not res.complete and "the case x <= 0 does not check" in res.first_failure
    # a random split: the case would hold on part of the space only
    R = sp.Function("R", real=True)(i)
    rnd = Chain(R).le(sp.Max(R, 0), by.cases(R, pos=Chain(R).eq(R, by.identity()), nonpos=Chain(R).le(0, by.algebra())))
    assert "cases: the split must be non-random" in rnd.prove(R, "<=", sp.Max(R, 0)).first_failure
    # a split not known to be real
    z = sp.Symbol("z")
    cz = Chain(z).le(sp.Max(z, 0), by.cases(z, pos=Chain(z).eq(z, by.identity()), nonpos=Chain(z).le(0, by.algebra())))
    why = cz.prove(z, "<=", sp.Max(z, 0)).first_failure
    # (refused at the step already: SymPy calls Max(0, z) real for a complex z, which the kernel does not trust)
    assert "not known to be real" in why or "Max(0, z) may be wrong" in why
    # a missing case
    miss = Chain(x).le(sp.Max(x, 0), by.cases(x, pos=Chain(x).eq(x, by.identity()), nonpos=None))
    assert "no sub-chain" in miss.prove(x, "<=", sp.Max(x, 0)).first_failure


def test_cases_refuses_a_split_on_a_bound_index():
    """The second review's counterexample: a case about one k read for every term of a sum.
    (Σ_k max(x_k, 0))(Σ_k min(x_k, 0)) = 0 is false at x = (1, -1); it checked."""
    k = sp.Symbol("k", integer=True)
    x = sp.IndexedBase("x", real=True)
    S = lambda g: sp.Sum(g, (k, 1, 2))  # noqa: E731
    lhs = S(sp.Max(x[k], 0)) * S(sp.Min(x[k], 0))
    assert lhs.doit().subs({x[1]: 1, x[2]: -1}) == -1
    pos = Chain(S(x[k]) * S(sp.Integer(0))).eq(0, by.identity())
    nonpos = Chain(S(sp.Integer(0)) * S(x[k])).eq(0, by.identity())
    res = Chain(lhs).eq(0, by.cases(x[k], pos=pos, nonpos=nonpos)).prove(lhs, "=", 0)
    assert not res.complete and "binds as an index" in res.first_failure
    # the indices the sub-chains bind count too, nested ones included
    from attnbounds.theory.proof import _binder_variables, _chain_exprs

    inner = Chain(S(sp.Abs(x[k]))).le(S(x[k]), by.termwise(k, 1, 2))
    outer = Chain(sp.Integer(0)).le(1, by.monotone_chain(sp.Symbol("u"), sp.Symbol("u"), 0, 1, term=inner))
    assert k in _binder_variables(_chain_exprs(outer))


def test_instance_refuses_a_random_indexed_value_in_a_probabilistic_theorem():
    """The second review's other counterexample: a checked Markov theorem with threshold y[k],
    cited with y := X, a random variable (P(X >= X) <= E[X]/X is false)."""
    from attnbounds.theory.proof import Lemma

    k = sp.Symbol("k", integer=True)
    y = sp.IndexedBase("y", positive=True)
    Z = sp.Function("Z", nonnegative=True)
    Xr = sp.Function("X", positive=True)
    thm_chain = Chain(Prob(sp.Ge(Z(k), y[k])), Context({"Z>=0": sp.Ge(Z(k), 0)})).le(
        Expect(Z(k)) / y[k], by.markov(Z(k), y[k]))
    assert thm_chain.prove(Prob(sp.Ge(Z(k), y[k])), "<=", Expect(Z(k)) / y[k]).complete
    thm = Lemma(thm_chain, Prob(sp.Ge(Z(k), y[k])), "<=", Expect(Z(k)) / y[k])
    goal = (Prob(sp.Ge(Z(k), Xr(k))), "<=", Expect(Z(k)) / Xr(k))
    res = Chain(goal[0], Context({"Z>=0": sp.Ge(Z(k), 0)})).le(goal[2], by.instance(thm, {y: sp.Lambda(k, Xr(k))}))
    out = res.prove(*goal)
    assert not out.complete and "instance: the value of y" in out.first_failure
