"""Review 59 of the kernel (the rules that substitute equations; review 58's fix):

* an equation between a random value and its conditioned copy, X = Cond(X, A) (X equals
  itself where A holds), was put in under a mean by ``hypothesis`` and by ``index-identity``'s
  ``defs=``, moving E[X] to E[X | A]: E[D(1)] >= 1 was proved for D(1) uniform on {0, 1}.
  Such an equation is refused as a hypothesis (and as a lemma's statement);
* a Lemma in a cited theorem's context whose chain was built with an empty context read
  ``defs="P"`` from that empty context, not from the theorem's, where it is checked: the
  definition's index was not bound and ``instance`` substituted it (Σ_m g[m] = 0 from g[1] = 0).
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Lemma, by

D = sp.Function("D", real=True)
X = D(1)
A = sp.Ge(X, 1)


@pytest.mark.parametrize("make", [lambda: X, lambda: sp.Symbol("Y", random=True, real=True)], ids=["same", "symbol"])
def test_an_equation_across_probability_spaces_is_refused(make):
    Y = make()
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({"H": sp.Eq(Y, Cond(X, A)), "G": sp.Ge(Cond(X, A), 1)})
    lemma = Lemma(Chain(Y).eq(Y, by.identity()), Y, "=", Cond(X, A))
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({"L": lemma})


def test_equations_on_one_space_are_still_hypotheses():
    Y = sp.Symbol("Y", random=True, real=True)
    Context({"a": sp.Eq(Y, X), "b": sp.Eq(Cond(X, A), Cond(Y, A)), "c": sp.Eq(Cond(X, A), 3)})
    chain = Chain(Expect(Y), Context({"d": sp.Eq(Y, X)})).eq(Expect(X), by.hypothesis("d"))
    assert chain.prove(Expect(Y), "=", Expect(X)).complete


def test_a_lemmas_definition_is_read_where_the_lemma_is_checked():
    j, m = sp.symbols("j m", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    g = sp.IndexedBase("g", real=True)
    S = sp.Sum(g[m], (m, 1, n))
    P = sp.Eq(g[j], 0)
    M = Lemma(Chain(S, Context({})).eq(0, by.index_identity(defs="P")), S, "=", 0)
    T = Lemma(Chain(S, Context({"P": P, "M": M})).eq(0, by.hypothesis("M")), S, "=", 0)
    assert T.chain.prove(S, "=", 0).complete  # the theorem itself is true: g[j] = 0 for every j
    res = Chain(S, Context({"g1": sp.Eq(g[1], 0)})).eq(0, by.instance(T, {j: 1}, {"P": "g1"})).prove(S, "=", 0)
    assert not res.complete  # g = (0, 5) at n = 2: g[1] = 0, the sum is 5


def test_a_python_bool_hypothesis_is_a_type_error_with_a_hint():
    """``S == 1`` is Python's structural comparison, a bool: it raised an AttributeError inside."""
    L = sp.Symbol("L", integer=True, positive=True)
    k = sp.Symbol("k", integer=True)
    S = sp.Sum(sp.IndexedBase("a")[k], (k, 1, L))
    with pytest.raises(TypeError, match=r"hypotheses\['sum1'\].*got False.*write sp.Eq\(a, b\)"):
        Context({"sum1": S == 1})
