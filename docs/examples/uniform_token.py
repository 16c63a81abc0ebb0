"""Two facts about weights w over L tokens, each with a checked proof and a ``bind`` that ties the
proof's goal to the reading's sides (see docs/proof-rules.md, "`bind`, the tie"):

* ``transcribed``: Σ_i w_i² >= 1/L; the bind gives L and the sequence a (a[1] is w's first entry);
* ``reconstructed``: for a token U drawn uniformly from the L tokens, E[w_U] = 1/L. The goal is a
  mean, so the bind builds the setting as a finite probability space: under the key ``SPACE`` the
  probabilities of its atoms (here the L values of U, each 1/L), and the event pick(k) = {U = k}
  as a table (L, atoms) of its 0/1 values at each atom (the identity).

Run it: ``attnbounds check --claims docs/examples/uniform_token.py --quick``; each row says
"tied to the sides at N instance(s)". (A new user wrote it from the docs, in a trial.)
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from attnbounds import strategies
from attnbounds.claims.base import SPACE, Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.numerics.sampling import random_simplex
from attnbounds.theory.proof import Chain, Context, Expect, Indicator, Prob, by

L = sp.Symbol("L", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
a = sp.IndexedBase("a", real=True)
pick = sp.Function("pick")  # event: U = k
S = sp.Sum(a[k], (k, 1, L))
SUM1 = sp.Eq(S, 1)


# ---------- reading 1: sum of squares ----------
def sq_sides(instance):
    w = np.asarray(instance["weights"], dtype=float)
    lhs = (w ** 2).sum(axis=-1)
    return Sides(lhs, np.full_like(lhs, 1.0 / w.shape[-1]))


def sq_proof() -> Proof:
    Q = sp.Sum(a[k] ** 2, (k, 1, L))
    term = Chain(a[k] ** 2 - (a[k] - 1 / L) ** 2).le(a[k] ** 2, by.algebra())
    c = (Chain(Q)
         .ge(sp.Sum(a[k] ** 2 - (a[k] - 1 / L) ** 2, (k, 1, L)), by.termwise(index=k, lo=1, hi=L, term=term))
         .eq(2 * S / L - 1 / L, by.identity())
         .eq(2 / L - 1 / L, by.hypothesis("sum1"))
         .eq(1 / L, by.identity()))
    return Proof.from_chain(c.prove(Q, ">=", 1 / L, Context({"sum1": SUM1})), "Σ w² >= Σ (w² − (w − 1/L)²) = 1/L")


def sq_bind(instance):
    w = np.asarray(instance["weights"], dtype=float)
    return {L: w.shape[-1], a: w}


# ---------- reading 2: mean weight of a uniform token ----------
def mean_sides(instance):
    w = np.asarray(instance["weights"], dtype=float)
    lhs = w.mean(axis=-1)  # E_U[w_U] for U uniform
    return Sides(lhs, np.full_like(lhs, 1.0 / w.shape[-1]))


def mean_proof() -> Proof:
    goal = Expect(sp.Sum(a[k] * Indicator(pick(k)), (k, 1, L)))
    c = (Chain(goal)
         .eq(sp.Sum(Expect(a[k] * Indicator(pick(k))), (k, 1, L)), by.expect_sum())
         .eq(sp.Sum(a[k] * Prob(pick(k)), (k, 1, L)), by.indicator_mean())
         .eq(sp.Sum(a[k] / L, (k, 1, L)), by.hypothesis("uniform"))  # P(U = k) = 1/L under the sum over k
         .eq(S / L, by.identity())
         .eq(1 / L, by.hypothesis("sum1")))
    ctx = Context({"sum1": SUM1, "uniform": sp.Eq(Prob(pick(k)), 1 / L)})
    return Proof.from_chain(c.prove(goal, "==", 1 / L, ctx), "E[w_U] = Σ_k w_k P(U = k) = (1/L) Σ_k w_k = 1/L")


def mean_bind(instance):
    w = np.asarray(instance["weights"], dtype=float)
    n = w.shape[-1]
    return {SPACE: np.full(n, 1.0 / n), pick: np.eye(n), a: w, L: n}


# ---------- instances ----------
def weight_instances():
    return strategies.simplex_points(min_size=1, max_size=12).map(lambda w: {"weights": w})


def weight_batches(rng, count):
    n = int(rng.integers(1, 17))
    half = max(count // 2, 1)
    w = np.concatenate([random_simplex(rng, half, n, "two_point"), random_simplex(rng, max(count - half, 1), n, "dirichlet")])
    return {"weights": w[:count]}


def is_distribution(instance):
    w = np.asarray(instance["weights"], dtype=float)
    return (w >= 0).all(axis=-1) & np.isclose(w.sum(axis=-1), 1.0)


CLAIM = Claim(
    id="UT",
    paper="docs-example",
    title="Weights: sum of squares and the mean weight of a uniform token",
    source="docs/examples/uniform_token.py",
    statement="Σ w_i² >= 1/L, and E[w_U] = 1/L for a uniform token U.",
    transcription="Σ_i w_i² >= 1/L",
    transcription_latex=r"\sum_i w_i^2 \ge 1/L",
    hypotheses=(Hypothesis("distribution", "w is a probability vector", check=is_distribution),),
    readings=(
        Reading(name="transcribed", statement="Σ_i w_i² >= 1/L", latex=r"\sum_i w_i^2 \ge \frac1L", relation=">=",
                symbolic=sq_proof, bind=sq_bind, strategy=weight_instances, sides=sq_sides, sweep=weight_batches),
        Reading(name="reconstructed", statement="E_U[w_U] = 1/L", latex=r"\mathbb E_U[w_U] = \frac1L", relation="==",
                symbolic=mean_proof, bind=mean_bind, strategy=weight_instances, sides=mean_sides, sweep=weight_batches),
    ),
    proof=__doc__,
)
