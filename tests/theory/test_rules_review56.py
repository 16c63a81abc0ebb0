"""Review 56 of the kernel (the sign oracle and the kernel's own symbols, attacking review 55's
fix) found three holes, each letting a false statement through:

* review 55's fix kept a bound *symbol* from being renamed by the sign oracle, but not an indexed
  entry w[idx] whose subscript is bound: w[idx] became a positive symbol inside a hypothesis's
  sum over idx too, so Σ_k δ(w[k], 0) read as 0;
* ``_alpha`` renamed a bound variable to the kernel symbol of its depth even where that symbol
  was already free in the body (``_collapse_deltas`` leaves a delta's index free in the ranges it
  asks about), so Σ_{idx1=1}^{idx0} (y[idx1] − y[idx0]) renamed again at depth 0 read Σ 0;
* nested extrema read their inner term on the diagonal: both took their generic term at one
  kernel symbol, so 0 <= min_k min_j (2 δ_kj − 1) passed (it is −1 at n = 2).
"""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, MinOver, by

i, j, k, m = sp.symbols("i j k m", integer=True)
n_pos = sp.Symbol("n", integer=True, positive=True)


def test_an_indexed_entry_with_a_bound_subscript_is_not_renamed():
    n, b, L = sp.symbols("n b L", integer=True, nonnegative=True)
    p = sp.Symbol("p", integer=True, positive=True)
    w = sp.IndexedBase("w", integer=True, nonnegative=True)
    y = sp.IndexedBase("y", real=True)
    lhs = sp.Sum(2 * sp.Sum(3 * sp.Sum(sp.KroneckerDelta(i, p) * y[i], (i, 1, L)), (j, 1, w[m])), (m, 1, n))
    rhs = sp.Sum(2 * sp.Sum(3 * y[p], (j, 1, w[m])), (m, 1, n))
    H = sp.Ge(L + sp.Sum(sp.KroneckerDelta(w[k], 0), (k, 1, b)), p)  # L + #{k <= b: w[k] = 0} >= p
    # false at n = 2, L = 0, b = 1, p = 1, w = (0, 1), y[1] = 1: H reads 1 >= 1, lhs = 0, rhs = 6
    at = {n: 2, L: 0, b: 1, p: 1}
    ws = {w[1]: 0, w[2]: 1}
    assert H.subs(at).doit().subs(ws)
    assert lhs.subs(at).doit().subs(ws).doit().subs({y[1]: 1}) == 0
    assert rhs.subs(at).doit().subs(ws).doit().subs({y[1]: 1}) == 6
    assert not Chain(lhs, Context({"H": H})).eq(rhs, by.index_identity()).prove(lhs, "==", rhs).complete
    # given p <= L the delta collapses: the same identity checks
    assert Chain(lhs, Context({"H": sp.Ge(L, p)})).eq(rhs, by.index_identity()).prove(lhs, "==", rhs).complete


def test_a_bound_variable_is_not_renamed_onto_a_free_kernel_symbol():
    y = sp.IndexedBase("y", integer=True)
    z = sp.IndexedBase("z", real=True)
    S = sp.Sum(y[k] - y[m], (k, 1, m))
    lhs = sp.Sum(2 * sp.Sum(sp.KroneckerDelta(j, n_pos) * z[j], (j, 1, n_pos * sp.KroneckerDelta(S, 0))), (m, 1, n_pos))
    rhs = sp.Sum(2 * z[n_pos], (m, 1, n_pos))
    # false at n = 2, y = (0, 1), z[2] = 1: S(2) = -1, so the m = 2 range is empty; lhs = 2, rhs = 4
    assert not Chain(lhs, Context({})).eq(rhs, by.index_identity()).prove(lhs, "==", rhs).complete
    true_lhs = sp.Sum(2 * sp.Sum(sp.KroneckerDelta(j, n_pos) * z[j], (j, 1, n_pos)), (m, 1, n_pos))
    assert Chain(true_lhs, Context({})).eq(rhs, by.index_identity()).prove(true_lhs, "==", rhs).complete


def test_nested_extrema_read_their_inner_terms_off_the_diagonal():
    kk, jj = sp.symbols("k j", integer=True, positive=True)
    false = MinOver(sp.Lambda(kk, MinOver(sp.Lambda(jj, 2 * sp.KroneckerDelta(kk, jj) - 1), n_pos)), n_pos)
    assert not Chain(sp.S(0), Context({})).le(false, by.algebra()).prove(0, "<=", false).complete  # -1 at n = 2
    true = MinOver(sp.Lambda(kk, MinOver(sp.Lambda(jj, kk + jj), n_pos)), n_pos)  # each term is positive
    assert Chain(sp.S(0), Context({})).le(true, by.algebra()).prove(0, "<=", true).complete
