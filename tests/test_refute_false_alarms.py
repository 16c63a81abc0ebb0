"""False counterexamples (a review of the refuter): true statements that the search "refuted",
so that the step audit reported a CONFLICT against a correct proof, or `check --mutants` a
wrong row. Each draw must be one the statement speaks of: values with the symbols' assumptions,
definitions read as the kernel reads them, and sides compared to the rounding of the terms they
were summed from."""

from __future__ import annotations

import pytest
import sympy as sp

from attnbounds.engine.audit import audit_chain
from attnbounds.engine.refute import NoNumericForm, refute
from attnbounds.theory.proof import Chain, Context, Expect, by, vector


def _audited(lhs, rel, rhs, ctx, step):
    res = getattr(Chain(lhs, ctx), {"<=": "le", ">=": "ge", "==": "eq"}[rel])(rhs, step).prove(lhs, rel, rhs)
    assert res.complete, res.first_failure
    return audit_chain(res)


def test_integers_keep_their_assumptions():
    m = sp.Symbol("m", integer=True, negative=True)  # drawn in 1 … 5: refuted at m = 5
    assert _audited(m, "<=", 0, Context({}), by.algebra()).counterexamples == 0
    n = sp.Symbol("n", integer=True, positive=True, even=True)  # n = 1 was drawn
    assert refute(n, ">=", 2, Context({}), seed=0).assignment is None
    assert refute(sp.Symbol("p", prime=True), ">=", 2, Context({}), seed=0).assignment is None
    assert refute(n, ">=", 3, Context({}), seed=0).assignment is not None  # n = 2 is still searched


def test_integer_valued_functions_and_bases_are_drawn_as_integers():
    f = sp.Function("f", integer=True, positive=True)
    x = sp.IndexedBase("x", integer=True, positive=True)
    assert _audited(f(1), ">=", 1, Context({}), by.algebra()).counterexamples == 0  # f(1) = 0.5 was drawn
    assert _audited(x[1], ">=", 1, Context({}), by.algebra()).counterexamples == 0


def test_an_integer_is_not_solved_for():
    m, n = sp.symbols("m n", integer=True, positive=True)
    assert _audited(m, ">=", 1, Context({"h": sp.Eq(m, n / 2)}), by.algebra()).counterexamples == 0  # m = 1/2


def test_a_definition_at_a_free_index_holds_at_every_index():
    """The kernel reads f[k] = k² for every k; the search made it hold at the drawn k only."""
    f = sp.IndexedBase("f")
    k, j, n = sp.symbols("k j n", integer=True, positive=True)
    ctx = Context({"def": sp.Eq(f[k], k**2)})
    assert _audited(f[1] + f[2], "==", 5, ctx, by.index_identity(defs="def")).counterexamples == 0
    S, T = sp.Sum(f[j], (j, 1, n)), sp.Sum(j**2, (j, 1, n))
    assert _audited(S, "==", T, ctx, by.index_identity(defs="def")).counterexamples == 0
    assert refute(f[1] + f[2], "==", 6, ctx, seed=0).assignment is not None  # and a false sum is refuted
    # a(k) >= 0 with no definition at k stays a hypothesis at one drawn k: the kernel does not
    # read it at another index (it proves no a(3) >= 0 from it), and the search keeps that case
    a = sp.Function("a")
    assert refute(a(3), ">=", 0, Context({"h": a(k) >= 0}), seed=0).assignment is not None


def test_named_function_values_keep_their_assumptions_and_both_names():
    F = sp.Function("F", nonnegative=True)
    G = sp.Function("G", positive=True)
    f, b = sp.IndexedBase("f"), sp.IndexedBase("b")
    p, q = sp.IndexedBase("p", positive=True), sp.IndexedBase("q", positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    # f names the values of a non-negative F without being non-negative: no numeric form (f[1] < 0 was drawn)
    with pytest.raises(NoNumericForm, match="names the values of a nonnegative function"):
        refute(F(b[1]), ">=", 0, Context({"def": sp.Eq(f[k], F(b[k]))}), seed=0)
    ctx = Context({"dp": sp.Eq(p[k], G(b[k])), "dq": sp.Eq(q[k], G(b[k]))})  # two names: p and q were drawn apart
    assert refute(p[1], "==", q[1], ctx, seed=0).assignment is None


def test_a_function_declared_deterministic_is_a_constant_inside_a_mean():
    X, a = sp.Function("X"), sp.Function("a", deterministic=True)
    lhs, rhs = Expect(a(1) * X(1)), a(1) * Expect(X(1))
    assert _audited(lhs, "==", rhs, Context({}), by.linearity()).counterexamples == 0


def test_rounding_is_relative_to_the_terms_summed():
    x = sp.Symbol("x", real=True)
    e = sp.cosh(x) ** 2 - sp.sinh(x) ** 2  # 0.999998 at x = 12.2, from terms of 1e10
    assert _audited(e, "==", 1, Context({}), by.identity()).counterexamples == 0
    y = sp.Symbol("y", positive=True)
    p = (y + 1) ** 4 - y**4 - 4 * y**3 - 6 * y**2 - 4 * y - 1
    assert _audited(p, "==", 0, Context({}), by.identity()).counterexamples == 0
    found = refute(e, ">=", 1, Context({"id": sp.Eq(e, 1)}), drop="id", seed=0)
    assert found.assignment is None  # the identity hypothesis is met at every draw, not "violated"
    assert refute(e, "<=", sp.Rational(999, 1000), Context({}), seed=0).assignment is not None


def test_a_non_real_symbol_has_no_numeric_form():
    z = sp.Symbol("z", imaginary=True)
    with pytest.raises(NoNumericForm, match="z is not real"):
        refute(z**2, "<=", 0, Context({}), seed=0)
    e = sp.Symbol("e", extended_positive=True)
    assert refute(e, ">=", 0, Context({}), seed=0).assignment is None


def test_a_vector_equation_is_audited():
    u, v = vector("u v")
    c = sp.Symbol("c", real=True)
    got = _audited(c * (u + v), "==", c * u + c * v, Context({}), by.identity())  # raised a broadcasting error
    assert got.counterexamples == 0 and got.searched == 1


def test_a_definition_holds_at_every_index_whatever_the_goal_does_with_it():
    """(Second review.) k free in the goal, or bound by its sum, kept the definition at one k."""
    f = sp.IndexedBase("f")
    k = sp.Symbol("k", integer=True, positive=True)
    ctx = Context({"def": sp.Eq(f[k], k**2)})
    assert _audited(f[k + 1], "==", (k + 1) ** 2, ctx, by.index_identity(defs="def")).counterexamples == 0
    lhs = sp.Sum(f[k], (k, 1, 2)) + f[3]
    assert _audited(lhs, "==", 14, ctx, by.index_identity(defs="def")).counterexamples == 0


def test_a_universal_index_keeps_its_reads_in_range_and_its_assumptions():
    """x[k + 1] >= x[k] read at k = INT_MAX read past the table (no draw met it); an even k must not
    range over every index; a definition at a pinned k names nothing."""
    x, f = sp.IndexedBase("x", real=True), sp.IndexedBase("f", real=True)
    k = sp.Symbol("k", integer=True, positive=True)
    assert refute(x[1], "<=", 0, Context({"mono": sp.Ge(x[k + 1], x[k])}), seed=0).assignment is not None
    assert refute(f[2], "==", 3 * f[1], Context({"rec": sp.Eq(f[k], 2 * f[k - 1])}), seed=0).assignment is not None
    ke = sp.Symbol("k", integer=True, positive=True, even=True)
    assert refute(x[1], ">=", 1, Context({"h": sp.Ge(x[ke], 1)}), seed=0).assignment is not None
    G = sp.Function("G", positive=True)
    b, p = sp.IndexedBase("b"), sp.IndexedBase("p", positive=True)
    pinned = Context({"dp": sp.Eq(p[k], G(b[k])), "pin": sp.Eq(k, 2)})
    assert refute(p[1], "==", G(b[1]), pinned, seed=0).assignment is not None


def test_inputs_that_raised_give_a_search_or_no_numeric_form():
    L, N = sp.symbols("L N", integer=True, positive=True)
    x = sp.Symbol("x", real=True)
    for h in (sp.Le(1 / (L - 2), 3), sp.Le(sp.sqrt(N - 3), 1)):  # SymPy raised deciding them at L = 2, N = 1
        assert refute(x + 1, ">=", x, Context({"h": h}), seed=0).assignment is None
    G = sp.Function("G", positive=True)
    b = sp.IndexedBase("b")
    p, q = sp.IndexedBase("p", positive=True), sp.IndexedBase("q", positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    named = {"dp": sp.Eq(p[k], G(b[k])), "dq": sp.Eq(q[k], G(b[k]))}
    assert refute(x + 1, ">=", x, Context({**named, "h": sp.Le(p[1], q[1])}), seed=0).assignment is None  # h became True
    Fe = sp.Function("Fe", extended_positive=True)
    with pytest.raises(NoNumericForm, match="extended_positive"):
        refute(Fe(b[1]), ">=", 0, Context({"def": sp.Eq(sp.IndexedBase("f")[k], Fe(b[k]))}), seed=0)
    H = sp.Function("H", positive=True)
    y = sp.Symbol("y", nonnegative=True)
    assert refute(H(sp.log(y)), ">=", 0, Context({}), seed=0).assignment is None  # log 0 = -inf as an index


# --- review 3 of the refuter ------------------------------------------------------------------


def test_an_equation_solved_with_a_spurious_root_still_holds_as_written():
    """sqrt(a) = 2b was solved as a = 4b², which SymPy's solution also gives at b < 0, where the
    hypothesis fails: 2b >= 0 was refuted at b = −0.02."""
    a, b = sp.Symbol("a", nonnegative=True), sp.Symbol("b", real=True)
    ctx = Context({"h": sp.Eq(sp.sqrt(a), 2 * b)})
    res = Chain(2 * b, ctx).eq(sp.sqrt(a), by.hypothesis("h")).ge(0, by.algebra()).prove(2 * b, ">=", 0)
    assert audit_chain(res).counterexamples == 0
    assert refute(2 * b, ">=", 0, ctx, seed=0).tried > 0  # draws with b >= 0 still meet it


def test_a_sum_limit_is_read_at_each_draw():
    """Σ_{i=1}^{K[1]} 1 = K[1]: the limit was the first draw's K[1] for the whole batch."""
    i = sp.Symbol("i", integer=True)
    K = sp.IndexedBase("K", integer=True, positive=True)
    f = sp.Function("f", integer=True, positive=True)
    for top in (K[1], f(1)):
        assert _audited(sp.Sum(1, (i, 1, top)), "==", top, Context({}), by.identity()).counterexamples == 0
    assert refute(sp.Sum(1, (i, 1, K[1])), "<=", K[1] - 1, Context({}), seed=0).assignment is not None


def test_a_cancelling_sum_inside_a_product_is_judged_at_its_terms_size():
    """y·(cosh²x − sinh²x) = y: at x = 12 the bracket is computed from terms of 10¹⁰."""
    x, y = sp.symbols("x y", real=True)
    lhs = y * (sp.cosh(x) ** 2 - sp.sinh(x) ** 2)
    assert _audited(lhs, "==", y, Context({}), by.identity()).counterexamples == 0
    assert refute(lhs, "==", 2 * y, Context({}), seed=0).assignment is not None


def test_a_definition_at_an_index_without_a_sign_holds_on_every_sums_range():
    """a(i) = 2 for every integer i: it was made to hold on the first sum's range only."""
    a = sp.Function("a", real=True)
    i = sp.Symbol("i", integer=True)
    m, n = sp.symbols("m n", integer=True, positive=True)
    lhs = sp.Sum(a(i), (i, 1, n)) + sp.Sum(a(i), (i, 1, m))
    rhs = sp.Sum(2, (i, 1, n)) + sp.Sum(2, (i, 1, m))
    assert _audited(lhs, "==", rhs, Context({"h": sp.Eq(a(i), 2)}), by.hypothesis("h")).counterexamples == 0


def test_even_and_prime_valued_functions_and_bases_keep_their_assumptions():
    g = sp.Function("g", even=True, positive=True)
    x = sp.IndexedBase("x", prime=True)
    assert refute(g(1), ">=", 2, Context({}), seed=0).assignment is None  # g(1) = 1 was drawn
    assert refute(x[1], ">=", 2, Context({}), seed=0).assignment is None
    assert refute(g(1), ">=", 3, Context({}), seed=0).assignment is not None  # g(1) = 2 is still searched
    assert refute(x[1], ">=", 3, Context({}), seed=0).assignment is not None
