"""A forty-ninth review (twenty minutes on the sites where SymPy's subs meets a binder) found one more
false statement the kernel accepted: sum-term read f(x) as f.subs(k, x), and SymPy's subs replaces a
Limit's own bound k as well, so Limit(t/k, k, oo) (0 for every k) at k := t was Limit(1, t, oo) = 1,
and 1 <= 0 passed. sum-term now refuses an f that binds its own index, and the exact sum, product and
integral evaluators leave such a body alone (Σ_{k=1}^{2} (k + Limit(G(1)/k, k, oo)) was written out
as 3 + Limit(G(1), 1, oo) + ...)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, _exact_doit, by

k = sp.Symbol("k", integer=True)
t = sp.Symbol("t", integer=True, positive=True)
j = sp.Symbol("j", integer=True, positive=True)


def test_sum_term_refuses_a_term_that_binds_its_own_index():
    f = sp.Limit(t / k, k, sp.oo)  # 0 for every k
    ctx = Context({"ht": sp.Le(t, 1), "hf": sp.Ge(f, 0)})
    small, big = f.subs(k, t), sp.Sum(f, (k, 1, 1))  # 1 and 0 at t = 1
    assert small.doit() == 1 and big.doit() == 0
    assert not Chain(small, ctx).le(big, by.sum_term(index=k, lo=1, hi=1, x=t, f=f)).prove(small, "<=", big).complete
    g = sp.Limit(t / j, j, sp.oo)  # a true variant: the limit over another symbol
    ok = Chain(g, Context({"hf": sp.Ge(g, 0)})).le(sp.Sum(g, (k, 1, 1)), by.sum_term(index=k, lo=1, hi=1, x=1, f=g))
    assert ok.prove(g, "<=", sp.Sum(g, (k, 1, 1))).complete


def test_the_exact_evaluators_leave_a_body_that_binds_the_index_alone():
    G = sp.Function("G", integer=True, deterministic=True)
    S = sp.Sum(k + sp.Limit(G(1) / k, k, sp.oo), (k, 1, 2))
    assert _exact_doit(S) == S  # not 3 + Limit(G(1), 1, oo) + Limit(G(1)/2, 2, oo)
    P = sp.Product(1 + sp.Limit(t / k, k, sp.oo) + k, (k, 1, 2))
    assert _exact_doit(P) == P
