"""Two facts about f = |Σ_j w_j X_j|, weights w_j >= 0 and independent random signs X_j (uniform
on {−1, +1}), each proved from a ``WeightedNorm`` fact and tied to its reading's sides (see
docs/proof-rules.md, "`bind`, the tie"):

* ``transcribed``: E[f] <= Σ_j w_j: f <= l1 = Σ_j |w_j| at every outcome (rule
  ``weighted-norm``), so in mean;
* ``reconstructed``: McDiarmid's lower tail, P(f − E[f] <= −t) <= exp(−2t²/(4·l2)) with
  l2 = Σ_j w_j² (rule ``mcdiarmid``: changing X_j moves f by at most 2w_j).

The proofs rest on the fact ``signs``: f = |Σ_j w_j X_j| with the X_j independent and |X_j| <= 1.
The ``bind`` builds the finite space of the 2^J sign patterns (key ``SPACE``) and gives the fact
its witness (key ``WITNESSES``): ``{"signs": (weights, vectors)}``, the weights w as an array
(J,) (the fact has no free index; with one, D(i), one row per value of i) and the X_j at each
atom as an array (J, atoms, d), here d = 1. The tie checks f against |Σ_j w_j X_j| at every
atom, |X_j| <= the radius 1, l1 and l2 against the weights, and the X_j's independence.

f is written F(1), an applied function: the tie reads a random variable on the space as a
function bound to a table (1, atoms) of its values at each atom (a symbol declared
``random=True`` cannot be bound that way).

Run it: ``attnbounds check --claims docs/examples/random_signs.py --quick``; each row says
"tied to the sides at N instance(s), where its hypotheses signs held". (From a new user's trial.)
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from attnbounds.claims.base import SPACE, WITNESSES, Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.theory.proof import Chain, Context, Expect, Prob, WeightedNorm, by

F = sp.Function("F")  # random: an applied function not declared deterministic=True
f = F(1)  # |Σ_j w_j X_j|
l1 = sp.Symbol("l1", positive=True)  # Σ_j |w_j|
l2 = sp.Symbol("l2", positive=True)  # Σ_j w_j²
t = sp.Symbol("t", positive=True)
CTX = Context({"signs": WeightedNorm(f, 1, l1, l2)})


def patterns(J: int) -> np.ndarray:
    """The 2^J sign patterns, (2^J, J)."""
    return np.array(list(itertools.product((-1.0, 1.0), repeat=J))).reshape(-1, J)


def values(w) -> np.ndarray:
    """f at each sign pattern, (…, 2^J) for weights (…, J) (each pattern has probability 2^-J)."""
    w = np.asarray(w, dtype=float)
    return np.abs(w @ patterns(w.shape[-1]).T)


# ---------- reading 1: the mean ----------
def mean_sides(instance):
    w = np.asarray(instance["weights"], dtype=float)  # (J,), or a batch (n, J)
    return Sides(values(w).mean(axis=-1), w.sum(axis=-1))


def mean_proof() -> Proof:
    c = (Chain(Expect(f), CTX)
         .le(Expect(l1), by.expect_monotone(Chain(f, CTX).le(l1, by.weighted_norm("signs"))))
         .eq(l1, by.linearity()))
    return Proof.from_chain(c.prove(Expect(f), "<=", l1), "f <= Σ|w| at every outcome, so E[f] <= Σ|w|")


# ---------- reading 2: McDiarmid's lower tail ----------
def tail_sides(instance):
    w = np.asarray(instance["weights"], dtype=float)
    v, tt = values(w), np.asarray(instance["t"], dtype=float)
    below = (v - v.mean(axis=-1, keepdims=True) <= -tt[..., None]).mean(axis=-1)
    return Sides(below, np.exp(-2 * tt**2 / (4 * (w**2).sum(axis=-1))))


def tail_proof() -> Proof:
    tail = Prob(sp.Le(f - Expect(f), -t))
    bound = sp.exp(-2 * t**2 / (4 * l2))
    c = Chain(tail, CTX).le(bound, by.mcdiarmid(f, t, "signs"))
    return Proof.from_chain(c.prove(tail, "<=", bound), "McDiarmid: changing X_j moves f by at most 2 w_j")


def bind(instance):
    w = np.asarray(instance["weights"], dtype=float)
    X = patterns(w.shape[-1])  # (atoms, J)
    out = {SPACE: np.full(len(X), 1.0 / len(X)), F: values(w)[None, :], l1: np.abs(w).sum(), l2: (w**2).sum(),
           WITNESSES: {"signs": (w, X.T[:, :, None])}}  # weights (J,); the X_j at each atom (J, atoms, 1)
    if "t" in instance:
        out[t] = float(instance["t"])
    return out


# ---------- instances: 1 to 8 positive weights (and a deviation t > 0) ----------
def instances(with_t: bool):
    w = st.lists(st.floats(0.01, 10, allow_nan=False), min_size=1, max_size=8).map(np.array)
    if not with_t:
        return w.map(lambda v: {"weights": v})
    return st.tuples(w, st.floats(0.01, 5, allow_nan=False)).map(lambda p: {"weights": p[0], "t": p[1]})


def batches(rng, count, with_t: bool):
    J = int(rng.integers(1, 9))
    out = {"weights": rng.exponential(size=(count, J)) + 0.01}
    if with_t:
        out["t"] = rng.uniform(0.01, 5.0, size=count)
    return out


def positive(instance):
    return (np.asarray(instance["weights"]) > 0).all(axis=-1)


CLAIM = Claim(
    id="RS",
    paper="docs-example",
    title="A weighted sum of random signs: its mean and its lower tail",
    source="docs/examples/random_signs.py",
    statement="f = |Σ_j w_j X_j| with w_j > 0 and X_j independent uniform signs: E[f] <= Σ_j w_j, and "
              "P(f - E[f] <= -t) <= exp(-2t²/(4 Σ_j w_j²)) for t > 0",
    transcription="E|Σ w_j X_j| <= Σ w_j",
    transcription_latex=r"\mathbb{E}\Big|\sum_j w_j X_j\Big| \le \sum_j w_j",
    hypotheses=(Hypothesis("positive", "w_j > 0 for every j", check=positive),),
    readings=(
        Reading("transcribed", "E|Σ w_j X_j| <= Σ w_j", r"\mathbb{E}|\sum_j w_jX_j| \le \sum_j w_j",
                symbolic=mean_proof, bind=bind, sides=mean_sides, strategy=lambda: instances(False),
                sweep=lambda rng, n: batches(rng, n, False)),
        Reading("reconstructed", "P(f - E f <= -t) <= exp(-t²/(2 Σ w_j²))",
                r"\Pr(f - \mathbb{E}f \le -t) \le e^{-2t^2/(4\sum_j w_j^2)}",
                symbolic=tail_proof, bind=bind, sides=tail_sides, strategy=lambda: instances(True),
                sweep=lambda rng, n: batches(rng, n, True)),
    ),
    proof=__doc__,
)
