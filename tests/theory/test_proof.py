"""The proof kernel: every rule accepts a right instantiation and rejects wrong ones."""

import pytest
import sympy as sp

from attnbounds.theory.proof import (
    RULES,
    BoundedDifferences,
    Chain,
    Context,
    Expect,
    Inner,
    Norm,
    Prob,
    by,
    certify_nonnegative,
    prove_nonnegative,
    vector,
)

x, y, R, M, m, L, r, t, s2 = sp.symbols("x y R M m L r t sigma2", positive=True)
a, b, c = sp.symbols("a b c", real=True)
u, v, w = vector("u v w")


def one_step(lhs, rel, rhs, justification, ctx=Context()):
    """Check a one-step chain lhs <rel> rhs; return (complete, reason)."""
    res = Chain(lhs, ctx).then(rel, rhs, justification).prove(lhs, "==" if rel == "=" else rel, rhs)
    return res.complete, res.step_checks[0].reason


def ok(*args, **kw):
    done, reason = one_step(*args, **kw)
    assert done, reason


def rejected(*args, **kw):
    done, reason = one_step(*args, **kw)
    assert not done
    return reason


def test_rule_set_is_small_and_documented():
    assert set(RULES) == {
        "identity", "algebra", "hypothesis", "monotone", "triangle", "reverse-triangle",
        "cauchy-schwarz", "jensen", "markov", "mcdiarmid", "probability", "gershgorin", "termwise",
        "triangle-sum", "instance",
        "union-bound", "union-contains", "min-max", "monotone-chain",  # proofprob
        "linearity", "expect-monotone", "moment",  # proofprob
        "total-expectation", "condition", "expect-sum",  # land11 (tests/theory/test_rules_land11.py)
        "indicator-mean", "indicator-algebra", "indicator-order",  # tests/theory/test_rules_indicators.py
        "weighted-norm", "hoeffding", "cases",  # tests/theory/test_rules_weighted_norm.py
    } | {  # proofjac: general-L matrices and indices (tests/theory/test_rules_proofjac.py)
        "index-identity", "entrywise", "submultiplicative", "diag-norm", "gershgorin-rows", "abs-bound",
        "sum-term", "extremum", "max-bound", "algebra-facts", "opnorm-triangle", "rank-one", "l2-l1",
        "mean-value", "simplex-diameter", "min-bound",
    }
    for rule in RULES.values():
        assert rule.statement and rule.why


# ----------------------------------------------------------------- sign oracle and intervals


def test_prove_nonnegative_uses_hypotheses_as_slack():
    assert prove_nonnegative(M * (M - m) / (m * L * (M + (L - 1) * m)), [M >= m, L >= 1])
    assert not prove_nonnegative(M * (M - m))  # true only under M >= m
    assert not prove_nonnegative(m - M, [M >= m])
    assert prove_nonnegative(t, [t > 0], strict=True)
    assert not prove_nonnegative(t - 1, [t >= 0])


def test_certify_nonnegative_is_sound_on_boxes():
    assert certify_nonnegative(sp.exp(x) - x - sp.Rational(9, 10), {x: (-1, 1)})  # min 1 - 9/10
    assert not certify_nonnegative(sp.exp(x) - 1 - 2 * x, {x: (0, 1)})  # negative near x = 1/2
    with pytest.raises(ValueError, match="box"):
        certify_nonnegative(x + y, {x: (0, 1)})


# ----------------------------------------------------------------- identity / algebra / hypothesis


def test_identity():
    ok(x / (x + R), "=", 1 - R / (x + R), by.identity())
    assert "identity" in rejected(x / (x + R), "=", 1 - x / (x + R), by.identity())
    assert "only for '='" in rejected(x, "<=", x, by.identity())


def test_algebra():
    ok(M / (M + (L - 1) * m), "<=", M / (m * L), by.algebra(), ctx=Context({"M>=m": M >= m, "L>=1": L >= 1}))
    # the same step without the hypothesis M >= m is not proved
    assert "cannot prove" in rejected(M / (M + (L - 1) * m), "<=", M / (m * L), by.algebra(), ctx=Context({"L>=1": L >= 1}))
    # a false inequality is never proved
    rejected(M / (m * L), "<=", M / (M + (L - 1) * m), by.algebra(), ctx=Context({"M>=m": M >= m, "L>=1": L >= 1}))


def test_hypothesis():
    ctx = Context({"x<=M": x <= M, "def": sp.Eq(y, x**2)})
    ok(x, "<=", M, by.hypothesis("x<=M"), ctx=ctx)
    ok(M, ">=", x, by.hypothesis("x<=M"), ctx=ctx)
    ok(y + 1, "=", x**2 + 1, by.hypothesis("def"), ctx=ctx)
    assert "not" in rejected(x, "<=", 2 * M, by.hypothesis("x<=M"), ctx=ctx)
    assert "not a hypothesis" in rejected(x, "<=", M, by.hypothesis("x<=M"), ctx=ctx.without("x<=M"))
    rejected(M, "<=", x, by.hypothesis("x<=M"), ctx=ctx)  # wrong direction


# ----------------------------------------------------------------- monotone


def test_monotone_by_sympy_sign():
    ctx = Context({"x<=M": x <= M})
    ok(x / (x + R), "<=", M / (M + R), by.monotone(x, x / (x + R), x, M), ctx=ctx)
    # decreasing in R
    ctx2 = Context({"R>=(L-1)m": R >= (L - 1) * m, "L>=1": L >= 1})
    ok(M / (M + R), "<=", M / (M + (L - 1) * m), by.monotone(R, M / (M + R), R, (L - 1) * m), ctx=ctx2)
    # wrong direction: increasing function, but the step claims g(M) <= g(x)
    rejected(M / (M + R), "<=", x / (x + R), by.monotone(x, x / (x + R), M, x), ctx=ctx)
    # side condition a <= b is missing without the hypothesis
    assert "cannot prove" in rejected(x / (x + R), "<=", M / (M + R), by.monotone(x, x / (x + R), x, M))
    # wrong instantiation: g(a) is not the lhs
    assert "lhs is not g(a)" in rejected(x / (x + 2 * R), "<=", M / (M + R), by.monotone(x, x / (x + R), x, M), ctx=ctx)


def test_monotone_by_interval_arithmetic():
    z = sp.Symbol("z", real=True)
    g = sp.exp(z) - z**3  # g' = e^z - 3z^2 > 0 on [0, 1/2]; sign not decided by SymPy
    half = sp.Rational(1, 2)
    ctx = Context({"lo": z >= 0, "hi": z <= half})
    ok(g, "<=", g.subs(z, half), by.monotone(z, g, z, half, box={z: (0, half)}), ctx=ctx)
    # on [0, 1] g' changes sign (e - 3 < 0): not certified
    ctx01 = Context({"lo": z >= 0, "hi": z <= 1})
    rejected(g, "<=", g.subs(z, 1), by.monotone(z, g, z, 1, box={z: (0, 1)}), ctx=ctx01)
    # a box that does not cover the interval the hypotheses allow is refused
    rejected(g, "<=", g.subs(z, half), by.monotone(z, g, z, half, box={z: (sp.Rational(1, 4), half)}), ctx=ctx)


# ----------------------------------------------------------------- named inequalities


def test_triangle():
    ok(Norm(u + v + w), "<=", Norm(u) + Norm(v) + Norm(w), by.triangle(u, v, w))
    ok(Norm(a * u - v), "<=", sp.Abs(a) * Norm(u) + Norm(v), by.triangle(a * u, -v))
    rejected(Norm(u + v), "<=", Norm(u), by.triangle(u, v))  # dropped term
    rejected(Norm(u) + Norm(v), "<=", Norm(u + v), by.triangle(u, v))  # flipped
    rejected(Norm(u + v), "<=", Norm(u) + Norm(v), by.triangle(u, w))  # wrong instantiation


def test_reverse_triangle():
    ok(sp.Abs(Norm(u) - Norm(v)), "<=", Norm(u - v), by.reverse_triangle(u, v))
    rejected(sp.Abs(Norm(u) - Norm(v)), "<=", Norm(u + v) / 2, by.reverse_triangle(u, v))
    rejected(Norm(u - v), "<=", sp.Abs(Norm(u) - Norm(v)), by.reverse_triangle(u, v))


def test_cauchy_schwarz():
    ok(sp.Abs(a * x + b * y), "<=", sp.sqrt(a**2 + b**2) * sp.sqrt(x**2 + y**2), by.cauchy_schwarz([a, b], [x, y]))
    ok((a * x + b * y) ** 2, "<=", (a**2 + b**2) * (x**2 + y**2), by.cauchy_schwarz([a, b], [x, y], squared=True))
    ok(sp.Abs(Inner(u, v)), "<=", Norm(u) * Norm(v), by.cauchy_schwarz(u=u, v=v))
    rejected(sp.Abs(a * x + b * y), "<=", sp.sqrt(a**2 + b**2) * sp.sqrt(x**2), by.cauchy_schwarz([a, b], [x, y]))
    rejected(sp.Abs(Inner(u, v)), "<=", Norm(u) * Norm(w), by.cauchy_schwarz(u=u, v=v))
    rejected(sp.Abs(a * x + b * y), ">=", sp.sqrt(a**2 + b**2) * sp.sqrt(x**2 + y**2), by.cauchy_schwarz([a, b], [x, y]))


def test_jensen():
    p = sp.Symbol("p", nonnegative=True)
    ctx = Context({"p<=1": p <= 1})
    ok(Norm(p * u + (1 - p) * v), "<=", p * Norm(u) + (1 - p) * Norm(v), by.jensen(Norm, weights=[p, 1 - p], points=[u, v]), ctx=ctx)
    # the side condition 1 - p >= 0 needs p <= 1
    assert "weight" in rejected(Norm(p * u + (1 - p) * v), "<=", p * Norm(u) + (1 - p) * Norm(v), by.jensen(Norm, weights=[p, 1 - p], points=[u, v]))
    # weights that do not sum to 1
    rejected(Norm(p * u + p * v), "<=", p * Norm(u) + p * Norm(v), by.jensen(Norm, weights=[p, p], points=[u, v]), ctx=ctx)
    X = sp.Symbol("X", real=True)
    ok(Norm(Expect(u)), "<=", Expect(Norm(u)), by.jensen(Norm, X=u))
    sq = sp.Lambda(X, X**2)
    ok(Expect(X) ** 2, "<=", Expect(X**2), by.jensen(sq, X=X))
    # phi'' >= 0 is about a real variable: a complex X (E[iY]^2 <= E[(iY)^2]) is refused
    Z = sp.Symbol("Z")
    assert "not known to be real" in rejected(Expect(Z) ** 2, "<=", Expect(Z**2), by.jensen(sq, X=Z))
    sqrt = sp.Lambda(x, sp.sqrt(x))
    ok(Expect(sp.sqrt(x)), "<=", sp.sqrt(Expect(x)), by.jensen(sqrt, X=x, concave=True))
    # sqrt is not convex: the convex form is refused
    assert "phi''" in rejected(sp.sqrt(Expect(x)), "<=", Expect(sp.sqrt(x)), by.jensen(sqrt, X=x))
    rejected(Expect(Norm(u)), "<=", Norm(Expect(u)), by.jensen(Norm, X=u))  # flipped


def test_markov():
    D = sp.Symbol("D", nonnegative=True, random=True)
    ok(Prob(D >= r), "<=", Expect(D) / r, by.markov(D, r))
    ok(Prob(D > r), "<=", Expect(D) / r, by.markov(D, r))
    rs = sp.Symbol("rs", real=True)
    assert "r > 0" in rejected(Prob(D >= rs), "<=", Expect(D) / rs, by.markov(D, rs))  # side condition
    # a plain symbol is a constant: Markov on it is a random quantity written as a constant
    # (linearity would then read E[Y] as Y, and P(Y >= r) <= Y/r would be "checked")
    Y = sp.Symbol("D", nonnegative=True)
    assert "must be a random variable" in rejected(Prob(Y >= r), "<=", Expect(Y) / r, by.markov(Y, r))
    Z = sp.Symbol("Z", real=True, random=True)
    assert "X >= 0" in rejected(Prob(Z >= r), "<=", Expect(Z) / r, by.markov(Z, r))  # X may be negative
    rejected(Prob(D >= r), "<=", Expect(D) / (2 * r), by.markov(D, r))


def test_mcdiarmid():
    f = sp.Symbol("f", real=True, random=True)
    ctx = Context({"bd": BoundedDifferences(f, 4 * M**2 * s2)})
    tail = Prob(f - Expect(f) <= -t)
    ok(tail, "<=", sp.exp(-2 * t**2 / (4 * M**2 * s2)), by.mcdiarmid(f, t, "bd"), ctx=ctx)
    # the paper-style constant 16 M^2 in place of the bounded differences' sum is not McDiarmid
    rejected(tail, "<=", sp.exp(-t**2 / (16 * M**2)), by.mcdiarmid(f, t, "bd"), ctx=ctx)
    assert "BoundedDifferences" in rejected(tail, "<=", sp.exp(-2 * t**2 / (4 * M**2 * s2)), by.mcdiarmid(f, t, "bd"))
    tr = sp.Symbol("tr", real=True)
    assert "t > 0" in rejected(Prob(f - Expect(f) <= -tr), "<=", sp.exp(-2 * tr**2 / (4 * M**2 * s2)), by.mcdiarmid(f, tr, "bd"), ctx=ctx)


def test_probability_axiom():
    ok(Prob(x >= r), "<=", 1, by.probability())
    rejected(Prob(x >= r), "<=", sp.Rational(1, 2), by.probability())


def _opnorm(A):
    """opnorm(Mat) of the explicit matrix A (entries by Kronecker deltas)."""
    from attnbounds.theory.proof import Mat, OpNorm

    rr, cc = sp.symbols("rr cc", integer=True, positive=True)
    entry = sp.Add(*[A[i, j] * sp.KroneckerDelta(rr, i + 1) * sp.KroneckerDelta(cc, j + 1)
                     for i in range(A.rows) for j in range(A.cols)])
    return OpNorm(Mat(sp.Lambda((rr, cc), entry), A.rows))


def test_gershgorin():
    A = sp.Matrix([[a, b], [b, c]])
    lam = _opnorm(A)
    rows = sp.Max(sp.Abs(a) + sp.Abs(b), sp.Abs(b) + sp.Abs(c))
    ok(lam, "<=", rows, by.gershgorin(A, lam))
    B = sp.Matrix([[a, b], [c, c]])
    assert "symmetric" in rejected(_opnorm(B), "<=", sp.Max(sp.Abs(a) + sp.Abs(b), sp.Abs(c) + sp.Abs(c)), by.gershgorin(B, _opnorm(B)))
    rejected(lam, "<=", sp.Max(sp.Abs(a), sp.Abs(c)), by.gershgorin(A, lam))
    # the norm must be A's: a review had 5 <= 0 checked with the "stated norm" 5 of the matrix [[0]]
    assert "opnorm(Mat" in rejected(sp.Integer(5), "<=", 0, by.gershgorin(sp.Matrix([[0]]), 5))
    assert "entry (1, 2)" in rejected(_opnorm(sp.Matrix([[a, 0], [0, c]])), "<=", rows, by.gershgorin(A, _opnorm(sp.Matrix([[a, 0], [0, c]]))))


def test_termwise_over_an_index_set():
    i, n = sp.symbols("i n", integer=True, positive=True)
    ai = sp.Indexed(sp.IndexedBase("alpha", positive=True), i)
    ok(sp.Sum(ai * x, (i, 1, n)), "<=", sp.Sum(ai * M, (i, 1, n)), by.termwise(i, 1, n), ctx=Context({"x<=M": x <= M}))
    rejected(sp.Sum(ai * x, (i, 1, n)), "<=", sp.Sum(ai * M, (i, 1, n)), by.termwise(i, 1, n))  # needs x <= M
    rejected(sp.Sum(ai * x, (i, 1, n)), "<=", sp.Sum(ai * M, (i, 2, n)), by.termwise(i, 1, n), ctx=Context({"x<=M": x <= M}))
    # a term bound given as its own chain
    term = Chain(ai * x, Context()).le(ai * M, by.algebra())
    ok(sp.Sum(ai * x, (i, 1, n)), "<=", sp.Sum(ai * M, (i, 1, n)), by.termwise(i, 1, n, term=term), ctx=Context({"x<=M": x <= M}))


def test_termwise_rejects_a_reversed_index_range():
    # SymPy reads Sum(f, (i, 1, -1)) as -Sum(f, (i, 0, 0)): 0 <= 1 termwise would "prove"
    # Sum(0) = 0 <= Sum(1) = -1, a false statement; the kernel accepted it before
    i = sp.Symbol("i", integer=True)
    k = sp.Symbol("k", integer=True)
    assert sp.Sum(1, (i, 1, -1)).doit() == -1
    reason = rejected(sp.Sum(sp.Integer(0) * x, (i, 1, -1)), "<=", sp.Sum(sp.Integer(1), (i, 1, -1)), by.termwise(i, 1, -1))
    assert "reversed" in reason
    rejected(sp.Sum(0 * x, (i, 1, k)), "<=", sp.Sum(sp.Integer(1), (i, 1, k)), by.termwise(i, 1, k))  # k may be -5
    ok(sp.Sum(0 * x, (i, 1, k)), "<=", sp.Sum(sp.Integer(1), (i, 1, k)), by.termwise(i, 1, k), ctx=Context({"k>=0": k >= 0}))


def test_triangle_over_a_finite_sum():
    i = sp.Symbol("i", integer=True)
    n = sp.Symbol("n", integer=True, positive=True)
    k = sp.Symbol("k", integer=True)
    f = sp.Function("f")
    y = sp.IndexedBase("y", commutative=False)
    ok(sp.Abs(sp.Sum(f(i), (i, 1, n))), "<=", sp.Sum(sp.Abs(f(i)), (i, 1, n)), by.triangle_sum(i, 1, n))
    ok(Norm(sp.Sum(y[i], (i, 1, n))), "<=", sp.Sum(Norm(y[i]), (i, 1, n)), by.triangle_sum(i, 1, n))
    # the wrong direction, another range, a missing absolute value, a reversed range
    rejected(sp.Sum(sp.Abs(f(i)), (i, 1, n)), "<=", sp.Abs(sp.Sum(f(i), (i, 1, n))), by.triangle_sum(i, 1, n))
    rejected(sp.Abs(sp.Sum(f(i), (i, 1, n))), "<=", sp.Sum(sp.Abs(f(i)), (i, 2, n)), by.triangle_sum(i, 1, n))
    rejected(sp.Abs(sp.Sum(f(i), (i, 1, n))), "<=", sp.Sum(f(i), (i, 1, n)), by.triangle_sum(i, 1, n))
    assert "reversed" in rejected(sp.Abs(sp.Sum(f(i), (i, 1, k))), "<=", sp.Sum(sp.Abs(f(i)), (i, 1, k)), by.triangle_sum(i, 1, k))


def test_termwise_over_explicit_terms():
    ok(Norm(u) + 2 * Norm(v), "<=", M + 2 * R, by.termwise(pairs=[(Norm(u), M), (2 * Norm(v), 2 * R)]),
       ctx=Context({"u": Norm(u) <= M, "v": Norm(v) <= R}))
    rejected(Norm(u) + 2 * Norm(v), "<=", M + R, by.termwise(pairs=[(Norm(u), M), (2 * Norm(v), R)]),
             ctx=Context({"u": Norm(u) <= M, "v": Norm(v) <= R}))


# ----------------------------------------------------------------- chaining


def test_chaining_is_checked():
    ctx = Context({"x<=M": x <= M, "R>=(L-1)m": R >= (L - 1) * m, "L>=1": L >= 1})
    chain = (Chain(x / (x + R), ctx)
             .le(M / (M + R), by.monotone(x, x / (x + R), x, M))
             .le(M / (M + (L - 1) * m), by.monotone(R, M / (M + R), R, (L - 1) * m)))
    good = chain.prove(x / (x + R), "<=", M / (M + (L - 1) * m))
    assert good.complete and good.checked == good.steps == 2
    # goal with another rhs, another lhs, another relation: not reached
    assert not chain.prove(x / (x + R), "<=", M / (M + L * m)).complete
    assert not chain.prove(x / (x + 2 * R), "<=", M / (M + (L - 1) * m)).complete
    flipped = chain.prove(x / (x + R), ">=", M / (M + (L - 1) * m))
    assert not flipped.complete and "cannot serve" in flipped.first_failure
    # dropping a hypothesis breaks the step that used it
    dropped = chain.prove(x / (x + R), "<=", M / (M + (L - 1) * m), ctx=ctx.without("x<=M"))
    assert not dropped.complete and dropped.checked == 1


def test_argued_step_is_never_checked():
    chain = Chain(x, Context()).le(x + 1, by.argued("obvious"))
    res = chain.prove(x, "<=", x + 1)
    assert not res.complete and res.checked == 0 and res.rules == ("argued",)
    with pytest.raises(ValueError, match="text"):
        by.argued("")


def test_unknown_rule_is_refused():
    from attnbounds.theory.proof import By

    with pytest.raises(ValueError, match="unknown rule"):
        By("trust-me")


def test_empty_chain_proves_nothing():
    assert not Chain(x, Context()).prove(x, "<=", x).complete


def test_proof_from_chain_follows_the_check():
    from attnbounds.claims.base import Proof

    ctx = Context({"x<=M": x <= M})
    good = Chain(x / (x + R), ctx).le(M / (M + R), by.monotone(x, x / (x + R), x, M)).prove(x / (x + R), "<=", M / (M + R))
    p = Proof.from_chain(good, "monotone in x")
    assert p.status is True and (p.steps, p.checked, p.rules) == (1, 1, ("monotone",)) and not p.argued
    half = Chain(x / (x + R), ctx).le(M / (M + R), by.argued("F is increasing")).prove(x / (x + R), "<=", M / (M + R))
    q = Proof.from_chain(half, "monotone in x")
    assert q.status is None and q.argued and q.detail.startswith("argued:") and (q.steps, q.checked) == (1, 0)
    with pytest.raises(ValueError, match="complete chain"):
        Proof(True, "trust me", chain=half)


def test_lemma_is_rechecked_under_the_using_context():
    from attnbounds.theory.proof import AllOf, Lemma

    j, n = sp.symbols("j n", integer=True, positive=True)
    f = sp.IndexedBase("f", positive=True)
    R_sum = sp.Sum(f[j], (j, 1, n))
    lemma_chain = Chain(R_sum).ge(sp.Sum(m, (j, 1, n)), by.termwise(j, 1, n)).eq(n * m, by.identity())
    ctx = Context({"f>=m": f[j] >= m, "R>=nm": Lemma(lemma_chain, R_sum, ">=", n * m)})
    chain = Chain(M / (M + R_sum), ctx).le(M / (M + n * m), by.monotone(R, M / (M + R), R_sum, n * m))
    goal = (M / (M + R_sum), "<=", M / (M + n * m))
    assert chain.prove(*goal).complete
    # without the termwise hypothesis the lemma fails, and so does the step that used it
    assert not chain.prove(*goal, ctx=ctx.without("f>=m")).complete
    both = AllOf((chain.prove(*goal), Chain(x).le(x + 1, by.argued("why not")).prove(x, "<=", x + 1)))
    assert (both.steps, both.checked, both.complete) == (2, 1, False)


def test_allof_of_needs_a_chain_for_every_goal():
    """AllOf.of proves chain k against goal k; a goal left without its chain is an error, not
    dropped (zip would drop it, and the parts would be complete without it)."""
    from attnbounds.theory.proof import AllOf

    up = Chain(x).le(x + 1, by.algebra())
    goals = ((x, "<=", x + 1), (x, ">=", x + 1))
    with pytest.raises(ValueError, match="goals: 2 goals for 1 chains"):
        AllOf.of((up,), goals)
    assert AllOf.of((up,), goals[:1]).complete
    assert not AllOf.of((up, up), goals).complete  # the second goal (x >= x + 1) is false


def test_an_assumed_premise_is_used_by_no_rule():
    """A premise argued in prose (Assumed) is kept for the record but never backs a checked step."""
    import pytest

    from attnbounds.theory.proof import Assumed, BoundedDifferences, Chain, Context, Expect, Prob, by

    x, M = sp.symbols("x M", positive=True)
    checked = Chain(x, Context({"x<=M": x <= M})).le(M, by.hypothesis("x<=M")).prove(x, "<=", M)
    assumed = Chain(x, Context({"x<=M": Assumed(x <= M, "argued on the page")})).le(M, by.hypothesis("x<=M"))
    res = assumed.prove(x, "<=", M)
    assert checked.complete and not checked.assumed
    assert not res.complete and res.assumed == {"x<=M": "argued on the page"}
    assert "'x<=M' is assumed, not checked (argued on the page)" in res.first_failure
    # nor does the sign oracle see it
    alg = Chain(2 * x, Context({"x<=M": Assumed(x <= M, "argued")})).le(2 * M, by.algebra()).prove(2 * x, "<=", 2 * M)
    assert not alg.complete
    # nor McDiarmid's bounded differences
    f, t = sp.Function("f")(sp.Symbol("i")), sp.Symbol("t", positive=True)
    tail = Prob(sp.Le(f - Expect(f), -t))
    for fact, ok in ((BoundedDifferences(f, 4), True), (Assumed(BoundedDifferences(f, 4), "argued"), False)):
        step = Chain(tail, Context({"bd": fact})).le(sp.exp(-2 * t**2 / 4), by.mcdiarmid(f, t, "bd"))
        assert step.prove(tail, "<=", sp.exp(-2 * t**2 / 4)).complete is ok
    with pytest.raises(TypeError, match="non-empty why"):
        Context({"x<=M": Assumed(x <= M, " ")})
    with pytest.raises(TypeError, match="Assumed"):
        Context({"x": Assumed("not a relation", "why")})


def test_from_chain_names_the_assumed_premises():
    from attnbounds.claims.base import Proof
    from attnbounds.theory.proof import Assumed, Chain, Context, by

    x, M = sp.symbols("x M", positive=True)
    res = Chain(x, Context({"x<=M": Assumed(x <= M, "argued")})).le(M, by.hypothesis("x<=M")).prove(x, "<=", M)
    proof = Proof.from_chain(res, "x below M")
    assert proof.status is None and proof.argued
    assert proof.detail.startswith("argued: x below M [0/1 steps checked (hypothesis); assumed, not checked: x<=M;")
