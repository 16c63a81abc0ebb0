"""A thirty-second review (by hand, against review 28's fixes) found six holes, kept here as
regressions beside true variants: SymPy's facts about LambertW are wrong too (W(−y − 1/e) for
y >= 0 is "not real", yet W(−1/e) = −1); a wrong fact in a hypothesis was folded away by SymPy
before the step was read (sign(c) with c := atan(m) built as 1); and the rules that substitute
(monotone, abs-bound's Kronecker case, index-identity's definitions, sum-term) renamed an indexed
base whose label is the substituted symbol, as the slack search and the hypothesis rule had. A
symbol that is also an indexed base's label is now refused wherever a step, its instantiation or
its hypotheses have both, and so is a wrong-fact node in any of them."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, prove_nonnegative


def test_lambertw_facts_are_not_read():
    y, a = sp.Symbol("y", nonnegative=True), sp.Symbol("a", real=True)
    v = sp.im(sp.LambertW(-y - sp.exp(-1)))  # 0 at y = 0, "non-zero" to SymPy
    d = (v + 1) ** 2 - 2 * v - 1
    bad = Chain(a + v, Context({"h": sp.Eq(a * v**2, 0)})).eq(a * v**2 / d + v, by.identity()).eq(v, by.hypothesis("h"))
    assert not bad.prove(a + v, "=", v).complete  # 1 = 0 at y = 0, a = 1
    assert not prove_nonnegative(v**2, strict=True)


def test_a_wrong_fact_in_a_hypothesis_is_refused_before_sympy_folds_it():
    m, c = sp.Symbol("m", integer=True, nonnegative=True), sp.Symbol("c", real=True)
    bad = Chain(sp.sign(c), Context({"h": sp.Eq(c, sp.atan(m))})).eq(1, by.hypothesis("h"))
    assert not bad.prove(sp.sign(c), "=", 1).complete  # sign 0 = 1 at m = c = 0
    p = sp.Symbol("p", integer=True, positive=True)  # atan(p) > 0 is a true fact
    ok = Chain(sp.sign(c), Context({"h": sp.Eq(c, sp.atan(p))})).eq(1, by.hypothesis("h"))
    assert ok.prove(sp.sign(c), "=", 1).complete


def test_no_rule_renames_an_indexed_base_with_the_symbol_of_its_label():
    x, a, b = (sp.Symbol(n, real=True) for n in "xab")
    X, A, B = sp.IndexedBase(x), sp.IndexedBase(a), sp.IndexedBase(b)
    L, R = a - 2 * A[1], b - 2 * B[1]
    assert not Chain(L, Context({"h": a <= b})).le(R, by.monotone(x, x - 2 * X[1], a, b)).prove(L, "<=", R).complete
    i, j = sp.Symbol("i", integer=True), sp.Symbol("j", integer=True)
    s = sp.Abs(sp.KroneckerDelta(i, j) * (sp.IndexedBase(j)[1] - sp.IndexedBase(i)[1]))
    assert not Chain(s).le(0, by.abs_bound(cases=(i, j))).prove(s, "<=", 0).complete  # 1 <= 0
    u, w = sp.Symbol("u", real=True), sp.Symbol("w", real=True)
    U, W = sp.IndexedBase(u), sp.IndexedBase(w)
    assert not Chain(U[1], Context({"d": sp.Eq(u, w)})).eq(W[1], by.index_identity(defs="d")).prove(U[1], "=", W[1]).complete
    k = sp.Symbol("k", integer=True)
    f, K, I_ = sp.IndexedBase("f"), sp.IndexedBase(k), sp.IndexedBase(i)
    assert not Chain(f[i], Context({"d": sp.Eq(f[k], K[1])})).eq(I_[1], by.index_identity(defs="d")).prove(f[i], "=", I_[1]).complete
    # with names of their own the same steps check where they are true
    Y = sp.IndexedBase("Y")
    assert Chain(a - 2 * Y[1], Context({"h": a <= b})).le(b - 2 * Y[1], by.monotone(x, x - 2 * Y[1], a, b)).prove(
        a - 2 * Y[1], "<=", b - 2 * Y[1]).complete
    F = sp.IndexedBase("F")
    assert Chain(f[i], Context({"d": sp.Eq(f[k], F[k])})).eq(F[i], by.index_identity(defs="d")).prove(f[i], "=", F[i]).complete
