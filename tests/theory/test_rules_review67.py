"""Review 67 of the kernel: the ``hypothesis`` rule's structural substitution (``xreplace``) under
a sum that binds a symbol of the equation, and the refusal of binders over values.

One hole, found through the new path (fixed: a bare Lambda's variable may carry no assumption, as
any binder's whose range the kernel does not know), and a crash (fixed: a node whose facts SymPy
raises on is untrusted): ``_domain_misfit`` reads a sum's range end that a binder of
the step binds through that variable's *declared* assumptions. That is sound only where
``_misdeclared`` has checked the variable against its binder's range, and ``_misdeclared`` skips
a bare ``Lambda`` (one outside MaxOver, MinOver and Mat: an applied function's argument, or the
Lambda of an ImageSet). Such a Lambda runs over every value (ImageSet(Lambda(j, j + 1/2),
Integers) holds −1/2), so Σ_{k=j}^{j} b[k] at j = 0 is b[0], of which b[k] = c[k] (k positive)
says nothing. From consistent hypotheses the new path proved 0 = 1. The variant whose hypothesis
has one side free of k (b[k] = 1/L) was accepted before this change too, through SymPy's
``subs`` putting b[k] for 1/L under the sum (right to left); only the xreplace path gets the
variants with k on both sides, or with a range end L (where subs also rewrote L as 1/b[k]).

Also kept: the correct refusals this review tried (a range end bound by a binder whose range
is checked, a Limit's direction, a Lambda over k itself, a Lambda over a value) and a true step
through a conditioned value under the factor P(A), which is accepted.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Prob, by

L = sp.Symbol("L", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
j = sp.Symbol("j", integer=True, positive=True)
b = sp.IndexedBase("b", real=True)
c = sp.IndexedBase("c", real=True)
g = sp.Function("g", deterministic=True)  # a functional: g(F) for a function F
c0 = sp.Symbol("c0", real=True)
X = sp.Function("X")
pick = sp.Function("pick")

LAMBDA_HOLE = ("_misdeclared skips a bare Lambda, so _domain_misfit reads a range end it binds as positive "
               "from the variable's declaration, while the Lambda runs over every integer (review 67)")


def _step(lhs, rhs, hyps, name="h"):
    return Chain(lhs, Context(hyps)).eq(rhs, by.hypothesis(name)).prove(lhs, "==", rhs)


def _entries(e):
    """j ↦ Σ_{k=j}^{j} e(k), which is e(j): the entry at j, a bound k in between."""
    return sp.Lambda(j, sp.Sum(e, (k, j, j)))



def test_zero_is_not_one_through_a_lambda_over_every_integer():
    """0 = b[0] = g(j ↦ b[j]) = g(j ↦ c[j]) = c[0] = 1. The hypotheses hold together (b[k] = c[k]
    = 0 for k >= 1, b[0] = 0, c[0] = 1, g(F) = F(0)); b[k] = c[k] is about the positive k only,
    so it does not make the functions j ↦ b[j] and j ↦ c[j] equal at j = 0. Refused before the
    change (SymPy's subs does not go under a sum binding a symbol of either side)."""
    fb, fc = _entries(b[k]), _entries(c[k])
    ctx = Context({"h": sp.Eq(b[k], c[k]), "b0": sp.Eq(b[0], 0), "c0": sp.Eq(c[0], 1),
                   "gb": sp.Eq(g(fb), b[0]), "gc": sp.Eq(g(fc), c[0])})
    res = (Chain(sp.Integer(0), ctx).eq(b[0], by.hypothesis("b0")).eq(g(fb), by.hypothesis("gb"))
           .eq(g(fc), by.hypothesis("h")).eq(c[0], by.hypothesis("gc")).eq(1, by.hypothesis("c0"))
           .prove(0, "==", 1))
    assert not res.complete



def test_zero_is_not_one_over_l_through_a_lambda_over_every_integer():
    """0 = b[0] = g(j ↦ b[j]) = g(j ↦ 1/L) = 1/L, false for every L (b[0] = 0 is no entry b[k] = 1/L
    speaks of). Model: L = 1, b[k] = 1 for k >= 1, b[0] = 0, g(F) = F(0)."""
    fb, fl = _entries(b[k]), _entries(1 / L)
    ctx = Context({"h": sp.Eq(b[k], 1 / L), "b0": sp.Eq(b[0], 0), "gb": sp.Eq(g(fb), b[0]), "gl": sp.Eq(g(fl), 1 / L)})
    res = (Chain(sp.Integer(0), ctx).eq(b[0], by.hypothesis("b0")).eq(g(fb), by.hypothesis("gb"))
           .eq(g(fl), by.hypothesis("h")).eq(1 / L, by.hypothesis("gl")).prove(0, "==", 1 / L))
    assert not res.complete


def _member(e):
    """1 if c0 is in {Σ_{k=j}^{L} e(k) : j an integer}, else 0 (the ImageSet's j runs over every
    integer, its declaration aside)."""
    return sp.Piecewise((1, sp.Contains(c0, sp.ImageSet(sp.Lambda(j, sp.Sum(e, (k, j, L))), sp.S.Integers))), (0, True))



@pytest.mark.parametrize("hyp, rhs", [
    (sp.Eq(b[k], 1 / L), _member(1 / L)),
    (sp.Eq(b[k], c[k]), _member(c[k])),
], ids=["one-over-l", "b-equals-c"])
def test_a_lambda_over_the_integers_is_not_read_from_its_variables_declaration(hyp, rhs):
    """At L = 1, b[k] = 1 (k >= 1), b[0] = 1/2, b[k] = 0 (k < 0), c0 = 3/2: the left set holds
    b[0] + b[1] = 3/2 (j = 0), the right one is the integers 2 − j, so 1 = 0 (likewise for c = b
    on the positive k and c[0] = 0). Both were refused before the change."""
    res = _step(_member(b[k]), rhs, {"h": hyp})
    assert not res.complete


def test_a_function_of_a_lambda_does_not_make_prove_raise():
    lhs, rhs = g(sp.Lambda(j, sp.Sum(k, (k, j, j)))), g(sp.Lambda(j, j))
    res = Chain(lhs, Context({})).eq(rhs, by.identity()).prove(lhs, "==", rhs)  # raised IndexError before
    assert not res.complete and "SymPy raises IndexError when it evaluates its facts" in res.first_failure, res.first_failure


# ---------------------------------------------------------------- correct refusals, kept

H = {"h": sp.Eq(b[k], 1 / L)}
MISDECLARED = "is declared with an assumption its range does not give"


@pytest.mark.parametrize("wrap", [
    lambda e: sp.Sum(e, (j, -3, L)),
    lambda e: sp.Subs(e, j, -3),
    lambda e: sp.Integral(e, (j, -3, -2)),
    lambda e: sp.Limit(e, j, -3),
], ids=["sum-from-minus-3", "subs-at-minus-3", "integral", "limit"])
def test_a_range_end_bound_by_a_checked_binder_is_read_from_that_binders_range(wrap):
    """Σ_{k=j}^{L} b[k] with j positive by declaration but run over −3.. by a binder whose range
    the kernel checks: b[0], b[−1], … are no entries b[k] = 1/L speaks of."""
    res = _step(wrap(sp.Sum(b[k], (k, j, L))), wrap(sp.Sum(1 / L, (k, j, L))), H)
    assert not res.complete
    assert MISDECLARED in res.first_failure, res.first_failure


def test_a_limits_direction_is_no_value_of_an_equation():
    """lim_{z→0+} |z|/z = 1 and lim_{z→0−} |z|/z = −1: a hypothesis about symbols named '+' and '−'
    must not turn the one into the other (the direction is a symbol in the Limit's arguments)."""
    z = sp.Symbol("z", real=True)
    lhs, rhs = sp.Limit(sp.Abs(z) / z, z, 0, "+"), sp.Limit(sp.Abs(z) / z, z, 0, "-")
    res = _step(lhs, rhs, {"h": sp.Eq(sp.Symbol("+"), sp.Symbol("-"))})
    assert not res.complete
    assert "would be captured" in res.first_failure, res.first_failure


def test_a_lambda_over_k_itself_is_not_read_for_every_k():
    """{b[k] : k an integer} holds b[0], of which b[k] = 1/L (k positive) says nothing."""
    def member(e):
        return sp.Piecewise((1, sp.Contains(c0, sp.ImageSet(sp.Lambda(k, e), sp.S.Integers))), (0, True))

    res = _step(member(b[k]), member(1 / L), H)
    assert not res.complete
    assert "an integral, Lambda or Subs over k" in res.first_failure, res.first_failure


def test_a_lambda_over_a_value_takes_no_substitution():
    """g(b[k] ↦ L b[k]) is g of the map t ↦ L t, not of t ↦ 1."""
    lam = sp.Lambda(b[k], L * b[k])
    res = _step(g(lam), g(sp.Lambda(b[k], 1)), H)
    assert not res.complete
    assert "which is not a symbol" in res.first_failure, res.first_failure


S = lambda e: sp.Sum(e, (k, 1, L))  # noqa: E731
V = Expect(Cond(X(k), pick(k)))
d = sp.IndexedBase("d", real=True)


def test_a_conditioned_value_under_its_probability_goes_under_the_sum():
    """Σ_k P(pick(k)) c[k] = Σ_k P(pick(k)) E[X(k) | pick(k)] = Σ_k P(pick(k)) d[k] is true from
    E[X(k) | pick(k)] = c[k] = d[k] where P(pick(k)) > 0: where it is 0 each term is 0 (E[X 1_A])."""
    ctx = Context({"h": sp.Eq(V, c[k]), "h2": sp.Eq(V, d[k])})
    P = Prob(pick(k))
    res = (Chain(S(P * c[k]), ctx).eq(S(P * V), by.hypothesis("h")).eq(S(P * d[k]), by.hypothesis("h2"))
           .prove(S(P * c[k]), "==", S(P * d[k])))
    assert res.complete, res.first_failure


def test_a_bare_conditioned_value_under_the_sum_is_not_passed_through():
    """Σ_k c[k] = Σ_k d[k] does not follow: c[k] and d[k] may differ where P(pick(k)) = 0."""
    ctx = Context({"h": sp.Eq(V, c[k]), "h2": sp.Eq(V, d[k])})
    res = (Chain(S(c[k]), ctx).eq(S(V), by.hypothesis("h")).eq(S(d[k]), by.hypothesis("h2"))
           .prove(S(c[k]), "==", S(d[k])))
    assert not res.complete
    assert "undefined where Prob(pick(k)) = 0" in res.first_failure, res.first_failure
