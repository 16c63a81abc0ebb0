"""A fifty-third review (instance, cases, lemmas, and the fifty-second's fixes) found:

* jensen's X form, φ(E X) <= E φ(X), called φ at X with no capture check (the weights form has
  had one since review 47): φ(v) = Σ_{k=1}^{2} (a − k) v² at X = D(k) made each term read its own
  D(k), and 0 <= −1/2 passed (a = 3/2, D(1) = 0, D(2) = ±1).
* A Lemma with the relation '<' made prove() raise long after it was built; it is refused when
  built, naming ``relation``.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Expect, Lemma, by

v = sp.Symbol("v", real=True)
k = sp.Symbol("k", integer=True)
j = sp.Symbol("j", integer=True)
a = sp.Symbol("a", real=True)
D = sp.Function("D", real=True)


def test_jensen_refuses_x_that_a_binder_in_phi_would_capture():
    phi = sp.Lambda(v, sp.Sum((a - k) * v ** 2, (k, 1, 2)))  # (2a − 3) v²
    ctx = Context({"convex": sp.Ge(sp.Sum(a - k, (k, 1, 2)), 0)})
    small, big = phi(Expect(D(k))), Expect(phi(D(k)))  # D(k) captured: Σ_k (a − k) E[D(k)]² <= E[Σ_k (a − k) D(k)²]
    res = Chain(small, ctx).le(big, by.jensen(phi, X=D(k))).prove(small, "<=", big)
    assert not res.complete and "captured" in res.first_failure
    small, big = phi(Expect(D(j))), Expect(phi(D(j)))  # no capture: the rule still applies
    ok = Chain(small, ctx).le(big, by.jensen(phi, X=D(j))).prove(small, "<=", big)
    assert ok.complete, ok.first_failure


def test_a_lemma_with_a_strict_relation_is_refused_when_built():
    x = sp.Symbol("x", real=True)
    chain = Chain(x, Context({})).le(x + 1, by.algebra())
    with pytest.raises(ValueError, match=r"relation: must be one of <=, >=, ==, =, got '<'"):
        Lemma(chain, x, "<", x + 1)
    assert Lemma(chain, x, "<=", x + 1).relation_expr() == sp.Le(x, x + 1, evaluate=False)
