"""A fifty-third review (instance, cases, lemmas, and the fifty-second's fixes) found, with one lead of
the fifty-fourth (norms and matrices, which found no false statement):

* jensen's X form, φ(E X) <= E φ(X), called φ at X with no capture check (the weights form has
  had one since review 47): φ(v) = Σ_{k=1}^{2} (a − k) v² at X = D(k) made each term read its own
  D(k), and 0 <= −1/2 passed (a = 3/2, D(1) = 0, D(2) = ±1).
* A Lemma with the relation '<' made prove() raise long after it was built; it is refused when
  built, naming ``relation``.
* (review 54) check_steps caught five kinds of error only: a rule meeting any other made prove()
  raise; such a step is refused as a bad instantiation.
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


@pytest.mark.parametrize("error", [IndexError, NotImplementedError, ZeroDivisionError, RecursionError,
                                   sp.PolynomialError])
def test_a_rule_that_cannot_read_its_step_refuses_it_and_prove_returns(monkeypatch, error):
    """Review 54's lead: check_steps caught only KeyError, TypeError, ValueError, AttributeError and
    SympifyError, so a rule that hit any other error on a malformed step made prove() raise."""
    from dataclasses import replace

    from attnbounds.theory import proof

    def broken(*args):
        raise error("a malformed step")

    monkeypatch.setitem(proof.RULES, "algebra", replace(proof.RULES["algebra"], check=broken))
    x = sp.Symbol("x", real=True)
    res = Chain(x, Context({})).le(x + 1, by.algebra()).prove(x, "<=", x + 1)
    assert not res.complete and f"bad instantiation ({error.__name__}" in res.first_failure
