"""Review 55 of the kernel (weighted norms, Gershgorin, sums with odd limits, limits of floor,
Mod and Piecewise): one hole, in the sign oracle. Its sign propagation renamed a symbol with
``xreplace``, which does not respect binders. ``_collapse_deltas`` puts relations about the
kernel's own depth-0 index into the hypotheses (idx >= 1, idx <= n), and ``_nonnegative``'s
renaming gives a hypothesis's sum the same index, so that sum's bound variable became a
positive symbol too: Σ_{k=a}^{b} (|k| − k) was read as 0, and L + Σ (|k| − k) >= n as L >= n."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by

k, j, m, a, b, n = sp.symbols("k j m a b n", integer=True)
L = sp.Symbol("L", integer=True, nonnegative=True)
y = sp.IndexedBase("y", real=True)
LHS = sp.Sum(2 * sp.Sum(sp.KroneckerDelta(j, m) * y[j], (j, 1, L)), (m, 1, n))  # the factor 2 keeps the sums apart
RHS = sp.Sum(2 * y[m], (m, 1, n))
H0 = sp.Ge(n, sp.Sum(k**2, (k, 1, 1)), evaluate=False)  # n >= 1, written with a binder


def test_a_delta_is_not_collapsed_out_of_its_range_through_a_bound_variable():
    H = sp.Ge(L + sp.Sum(sp.Abs(k) - k, (k, a, b)), n)
    res = Chain(LHS, Context({"H": H, "H0": H0})).eq(RHS, by.index_identity()).prove(LHS, "==", RHS)
    at = {a: -1, b: -1, n: 3, L: 1}
    assert H.subs(at).doit() and H0.subs(at).doit()  # both hypotheses hold at a = b = -1, n = 3, L = 1
    ones = {y[1]: 1, y[2]: 1, y[3]: 1}
    assert LHS.subs(at).doit().subs(ones) == 2 and RHS.subs(at).doit().subs(ones) == 6  # and 2 != 6
    assert not res.complete


def test_the_same_identity_still_checks_given_n_le_L():
    res = Chain(LHS, Context({"H": sp.Ge(L, n), "H0": H0})).eq(RHS, by.index_identity()).prove(LHS, "==", RHS)
    assert res.complete, res.first_failure
