"""A seventeenth review attacked the sixteenth's fixes and found six more ways to a false
statement, kept here as regressions beside true variants: a substitution was evaluated by
SymPy's doit, one variable after the other (y = Subs(x, (x, y), (y, 1)) = 1), into a sum that
captured its point, and with SymPy's closed forms for a Subs of a sum or an integral; an opaque
node met outside a sum and inside a sum over one of its symbols became one symbol
(Σ_{k=1}^{n} N(k) = n N(k)); SymPy differentiated Σ_i X[i]/i by X[i] under the sum, taking the
sum's i for the free one; and a log or a power was differentiated on its branch cut."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by

x, y, t = sp.symbols("x y t", real=True)
k, i = sp.symbols("k i", integer=True)
n = sp.Symbol("n", integer=True, positive=True)


def _eq(lhs, rhs, rule=None, ctx=None):
    return Chain(lhs, ctx or Context({})).eq(rhs, rule or by.identity()).prove(lhs, "=", rhs).complete


def test_a_substitution_is_simultaneous_and_never_captured():
    S = sp.Subs(x, (x, y), (y, 1))  # y: both variables at once
    assert not _eq(S, 1)
    assert not Chain(y).eq(S, by.index_identity()).eq(1, by.identity()).prove(y, "=", 1).complete
    assert not _eq(sp.Subs(x - y, (x, y), (y, x)), 0)  # y − x
    assert _eq(sp.Subs(x - y, (x, y), (y, x)), y - x)
    X = sp.IndexedBase("x")
    c, N = sp.Symbol("c"), sp.Symbol("N", integer=True, positive=True)
    A = sp.Subs(sp.Sum(X[i] ** c, (i, 1, N)), c, i)  # Σ_k x[k]^i, not Σ_k x[k]^k
    assert not _eq(A, sp.Sum(X[i] ** i, (i, 1, N)))


def test_a_substitution_does_not_bring_back_sympys_closed_forms():
    m = sp.Symbol("m", integer=True, nonnegative=True)
    B = sp.Sum((-1) ** k * sp.binomial(m, k), (k, 0, m))  # 1 at m = 0
    assert not _eq(sp.Subs(B, y, 0), 0)
    a = sp.Symbol("a", positive=True)
    J = sp.Integral(1 / (a + sp.cos(x)), (x, 0, 2 * sp.pi))  # 2π/√3 at a = 2
    assert not _eq(sp.Subs(J, y, 0), 0)


def test_an_opaque_node_inside_a_sum_over_one_of_its_symbols_is_not_the_one_outside():
    N = sp.Integral(sp.exp(k * t**2), (t, 0, 1))
    assert not _eq(sp.Sum(N, (k, 1, n)), n * N)  # 3.83 against 4.73 at n = k = 2
    assert not _eq(sp.Sum(N, (k, 1, n)), n * N, by.index_identity())
    assert _eq(sp.Sum(N, (k, 1, n)) + N, N + sp.Sum(N, (k, 1, n)))


def test_no_derivative_under_a_sum_that_binds_a_symbol_of_the_variable():
    X = sp.IndexedBase("X")
    D = sp.Derivative(sp.Sum(X[i] / i, (i, 1, n)), X[i])  # 1/i for 1 <= i <= n
    H = sp.Sum(1 / i, (i, 1, n))
    ctx = Context({"lo": i >= 1, "hi": i <= n})
    assert not Chain(1 / i, ctx).eq(D, by.index_identity()).eq(H, by.identity()).prove(1 / i, "=", H).complete
    assert not _eq(D, H)
    assert _eq(D, 1 / i, by.index_identity(), ctx)


def test_no_derivative_on_a_branch_cut():
    h = sp.I * (sp.log(-1 - sp.I * t) - sp.log(-1 + sp.I * t))  # real for real t, jumps by 2π at 0
    assert not _eq(sp.Subs(sp.Derivative(h, t), t, 0), -2)
    assert not _eq(sp.Subs(sp.Derivative(sp.sqrt(-1 + sp.I * t), t), t, 0), sp.Rational(1, 2))
    p = sp.Symbol("p", positive=True)
    assert _eq(sp.Subs(sp.Derivative(sp.log(p + t**2) + sp.sqrt(p + t**2), t), t, 0), 0)
