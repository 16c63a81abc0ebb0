"""A proof with a context, a sum and a maximum: max_j a_j >= 1/L for weights a_1 … a_L that sum to 1.

1/L = (Σ_k a_k)/L = Σ_k a_k/L <= Σ_k (max_j a_j)/L = max_j a_j

Each step names the rule the kernel checks it by; the sub-chain ``term`` is the step of
``termwise`` at one generic k. Run it: ``python docs/examples/max_ge_mean.py``.
"""

import sympy as sp

from attnbounds.claims.base import Proof
from attnbounds.theory.proof import Chain, Context, MaxOver, by

L = sp.Symbol("L", integer=True, positive=True)  # the number of weights
k = sp.Symbol("k", integer=True)  # the summation index
j = sp.Symbol("j", integer=True)  # the maximum's own bound variable
a = sp.IndexedBase("a")
M = MaxOver(sp.Lambda(j, a[j]), L)  # max_{1 <= j <= L} a_j
S = sp.Sum(a[k], (k, 1, L))


def chain(ctx: Context):
    """The chain under the hypotheses ``ctx``, checked against its goal 1/L <= M."""
    term = Chain(a[k] / L).le(M / L, by.extremum(of=M, x=k, c=1 / L))  # a_k/L <= M/L at each k
    steps = (Chain(1 / L)
             .eq(S / L, by.hypothesis("sum1"))  # the hypothesis Σ a_k = 1, put in
             .eq(sp.Sum(a[k] / L, (k, 1, L)), by.identity())
             .le(sp.Sum(M / L, (k, 1, L)), by.termwise(index=k, lo=1, hi=L, term=term))
             .eq(M, by.identity()))
    return steps.prove(1 / L, "<=", M, ctx)


def proof() -> Proof:
    """What a reading's ``symbolic`` method returns: ``proved`` only if every step checks."""
    return Proof.from_chain(chain(Context({"sum1": sp.Eq(S, 1)})), "1/L is the mean of the weights, at most their max")


if __name__ == "__main__":
    p = proof()
    print(p.status, p.detail)
