r"""# Corollary 3: the softmax gradient bound $\min\{1/(4T), \sqrt2\}$

**Setting.** Softmax with temperature $T > 0$, $\alpha = \operatorname{softmax}(l/T)$, with
Jacobian $J = \partial\alpha/\partial l = (\operatorname{diag}\alpha - \alpha\alpha^\top)/T$
(see {ref}`Lemma 2 <claim-L2>` for the derivation and the four sharp suprema). The paper
states, as Corollary 3 of its Lemma 2,

$$\|\nabla_l \alpha\| \le \min\Big\{\frac{1}{4T}, \sqrt2\Big\},$$

and says that $1/(4T)$ is "recovered" by Lemma 2. The norm is not named, so there are four
readings: a single entry, one weight's gradient (a row), the spectral norm and the Frobenius
norm. Figure 4 of the paper overlays the same curve on a *finite difference*
$g(T,\varepsilon) = \|\operatorname{softmax}((l+\varepsilon v)/T) - \operatorname{softmax}(l/T)\|_2/\varepsilon$
with a random unit vector $v$.

## The derivative readings are all false

Over all logits and all $L$ the sharp suprema are (Lemma 2)
$\sup|J_{ij}| = \frac{1}{4T}$, $\sup\|J_{i,:}\|_2 = \frac{\sqrt2}{4T}$,
$\sup\|J\|_2 = \frac{1}{2T}$ and $\sup\|J\|_F = \frac{1}{2T}$, each attained at logits
$(0, 0)$. The minimum equals $1/(4T)$ for $T \ge \sqrt2/8$ and $\sqrt2$ below that.

* **entry**: true for $T \ge \sqrt2/8$, false below: at $T = 1/10$ the entry is
  $5/2 > \sqrt2$. A derivative bound cannot have a $T$-free cap, since every sup grows like
  $1/T$.
* **row**, **spectral**, **frobenius** (and `transcribed`, which reads the norm as the
  operator 2-norm): false for every $T > 0$. Where $T \ge \sqrt2/8$ they exceed $1/(4T)$;
  below it, $\sqrt2/(4T) > \sqrt2$ and $1/(2T) > \sqrt2$.

## What $\sqrt2$ does bound: a finite difference

$\sqrt2$ is the $\ell_2$ diameter of the probability simplex: for probability vectors
$p, q$,

$$2 - \|p - q\|_2^2 = \sum_i p_i(1-p_i) + \sum_i q_i(1-q_i) + 2\sum_i p_i q_i \ge 0 .$$

And by the mean value inequality along the segment from $l$ to $l + \varepsilon v$,
$\|\alpha(l+\varepsilon v) - \alpha(l)\|_2 \le \varepsilon \sup\|J\|_2 \le \varepsilon/(2T)$.
Together (reading `reconstructed`), for every unit $v$ and $\varepsilon > 0$:

$$g(T, \varepsilon) \le \min\Big\{\frac{1}{2T}, \frac{\sqrt2}{\varepsilon}\Big\}.$$

At $\varepsilon = 1$ the cap is the paper's $\sqrt2$. The constant $1/(2T)$ cannot be
lowered: as $\varepsilon \to 0$ at logits $(0,0)$ with $v = (1,-1)/\sqrt2$, $g \to 1/(2T)$.
So the finite-difference form of the paper's curve, $g \le \min\{1/(4T), \sqrt2\}$
(reading `finite-difference`), is false as well: it fails at small $\varepsilon$ for every $T$.

## What the full text changed

The full text confirms this form ("the form the secondary source gave") and files it as its
own Corollary 3. Its four readings used to be `L2:secondary-entry`, `-row`, `-spectral` and
`-frobenius`; they now live here as `C3:entry`, `C3:row`, `C3:spectral`, `C3:frobenius`
with the same verdicts (all falsified). New: `C3:transcribed` (falsified),
`C3:reconstructed` (the finite-difference bound, *proved*, see below) and `C3:finite-difference`
(falsified).

## The checked chain of `reconstructed`, for every $L$

The proof kernel (see {doc}`/proof-rules`) checks one `min-bound` step, $g \le \min\{a, b\}$.
It carries two chains, one for $g \le a$ and one for $g \le b$.

* $g \le 1/(2T)$. A `mean-value` step: $\alpha = \operatorname{softmax}(x/T)$ is built from
  $\exp$, sums and a positive denominator, so it is $C^1$. At a free point $\zeta$ (one that
  no hypothesis mentions), $\|\partial\alpha/\partial x\|_2 \le 1/(2T)$. That bound is itself a
  chain: the derivatives, taken by SymPy with symbolic indices, equal the entries of
  $(\operatorname{diag}\alpha - \alpha\alpha^\top)\operatorname{diag}(1/T)$ (`entrywise`);
  then submultiplicativity, Gershgorin on the rows (as in {ref}`Lemma 2 <claim-L2>`) and the
  norm of a diagonal matrix. Next, $\|\varepsilon v\|_2/\varepsilon = \sqrt{\sum_k v_k^2}$
  (`index-identity`), which is $1$ by the hypothesis that $v$ is a unit vector.
* $g \le \sqrt2/\varepsilon$. A `simplex-diameter` step. Both weight vectors are non-negative
  and sum to $1$, and both facts are checked.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from attnbounds import strategies as abst
from attnbounds.claims.base import Claim, chain_symbols, Hypothesis, Proof, Reading, Sides
from attnbounds.claims.lemma2 import (
    NORMS,
    _softmax_parts,
    certify_counterexample,
    softmax_instances,
    softmax_norm,
    softmax_sweep,
)
from attnbounds.claims.lemma2 import _symbolic_norm as _lemma2_symbolic_norm
from attnbounds.numerics.attention import softmax
from attnbounds.numerics.validation import as_float_array
from attnbounds.theory import jacobian as thj

__all__ = [
    "CLAIM",
    "secondary_sides",
    "finite_difference",
    "finite_difference_sides",
    "finite_difference_instances",
    "finite_difference_sweep",
]


def secondary_sides(kind: str):
    """``sides`` for "‖·‖_kind ≤ min{1/(4T), √2}".

    >>> s = secondary_sides("entry")({"logits": [0.0, 0.0], "T": 0.1})
    >>> round(float(s.lhs), 12), round(float(s.rhs), 6)
    (2.5, 1.414214)
    """
    if kind not in NORMS:
        raise ValueError(f"kind: must be one of {tuple(NORMS)}, got {kind!r}")

    def sides(instance) -> Sides:
        _, T = _softmax_parts(instance)
        return Sides(softmax_norm(instance, kind), np.minimum(1.0 / (4.0 * T), math.sqrt(2.0)))

    return sides


def finite_difference(instance) -> np.ndarray:
    """g = ‖softmax((l + εv)/T) − softmax(l/T)‖₂ / ε for ``{"logits", "T", "v", "eps"}`` (batched).

    ``v`` is normalized to a unit vector here, so any non-zero direction may be given.

    >>> g = finite_difference({"logits": [0.0, 0.0], "T": 1.0, "v": [1.0, -1.0], "eps": 1e-6})
    >>> round(float(g), 6)
    0.5
    """
    z = as_float_array(instance["logits"], "logits")
    v = as_float_array(instance["v"], "v")
    if v.shape != z.shape:
        raise ValueError(f"v: must have the shape of logits {z.shape}, got {v.shape}")
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    if np.any(norm == 0):
        raise ValueError("v: must be non-zero")
    eps = np.asarray(instance["eps"], dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("eps: must be finite and > 0")
    _, T = _softmax_parts(instance)
    Tc = T[..., None] if T.ndim else T
    ec = eps[..., None] if eps.ndim else eps
    diff = softmax((z + ec * v / norm) / Tc) - softmax(z / Tc)  # (..., L)
    return np.linalg.norm(diff, axis=-1) / eps


def finite_difference_sides(transcribed: bool):
    """``sides`` for g ≤ min{1/(2T), √2/ε} (``transcribed=False``) or g ≤ min{1/(4T), √2}.

    >>> s = finite_difference_sides(True)({"logits": [0.0, 0.0], "T": 1.0, "v": [1.0, -1.0], "eps": 1e-3})
    >>> round(float(s.lhs), 6), float(s.rhs)
    (0.5, 0.25)
    """

    def sides(instance) -> Sides:
        _, T = _softmax_parts(instance)
        g = finite_difference(instance)
        eps = np.asarray(instance["eps"], dtype=float)
        if transcribed:
            return Sides(g, np.minimum(1.0 / (4.0 * T), math.sqrt(2.0)) + 0 * g)
        return Sides(g, np.minimum(1.0 / (2.0 * T), math.sqrt(2.0) / eps) + 0 * g)

    return sides


_E12 = np.array([1.0, -1.0]) / math.sqrt(2.0)  # the unit direction (e_1 - e_2)/√2, as a counterexample prints it
_FD_EXAMPLES = [
    {"logits": np.array([0.0, 0.0]), "T": 1.0, "v": _E12, "eps": 1e-3},
    {"logits": np.array([-20.0, 20.0]), "T": 1.0, "v": _E12, "eps": 100.0},
]


@st.composite
def _fd_instances(draw):
    z = draw(abst.logits(min_size=1, max_size=8, min_value=-10.0, max_value=10.0))
    v = draw(abst.rng_arrays(z.shape, "sphere"))
    T = draw(abst.temperatures(1e-3, 1e3))
    eps = draw(st.sampled_from([1e-3, 1e-1, 1.0, 10.0]) | st.floats(1e-4, 1e2))
    return {"logits": z, "T": T, "v": v, "eps": eps}


def finite_difference_instances():
    """Hypothesis strategy of ``{"logits", "T", "v", "eps"}`` with the paper's ε and the extremes as examples."""
    return st.one_of(st.sampled_from(_FD_EXAMPLES), _fd_instances())


def finite_difference_sweep(rng: np.random.Generator, n: int) -> dict:
    """n instances sharing L; T log-uniform in [1e-3, 1e3], ε log-uniform in [1e-4, 1e2], v uniform on the
    sphere; a quarter near the maximizers (two tied top logits, v along e_1 − e_2)."""
    b = softmax_sweep(rng, n)
    z = b["logits"]
    L = z.shape[-1]
    v = rng.standard_normal(z.shape)
    k = n // 4
    if k and L >= 2:
        v[:k] = 0.0
        v[:k, 0], v[:k, 1] = 1.0, -1.0
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    eps = 10.0 ** rng.uniform(-4, 2, size=n)
    return {"logits": z, "T": b["T"], "v": v, "eps": eps}


# ------------------------------------------------------------------ exact methods


def _symbolic_secondary(kind: str):
    return _lemma2_symbolic_norm(kind, secondary=True)


@lru_cache(maxsize=1)  # exact and deterministic: compute once
def _symbolic_reconstructed() -> Proof:
    return Proof.from_chain(
        thj.finite_difference_chain(),
        "for any L, unit v, eps > 0: |a(l + eps v) - a(l)|/eps <= 1/(2T) by the mean value inequality "
        "(|d softmax/dx|_2 <= 1/(2T) at every point: J = (diag a - a a^T)/T entrywise, Gershgorin), "
        "and <= sqrt(2)/eps by the l2 diameter of the simplex",
    )


@lru_cache(maxsize=1)
def _fd_symbols() -> dict:
    """The symbols and bases of the finite-difference chain's goal and hypotheses, by name."""
    return chain_symbols(_symbolic_reconstructed().chain)


def _bind_fd(instance: dict) -> dict:
    """The values of the finite-difference chain's symbols (its goal g ≤ min{1/(2T), √2/ε}, the
    hypothesis Σ_k v_k² = 1) at one instance, for the tie (:mod:`attnbounds.engine.tie`): the
    logits l less their largest (softmax does not change, and e^{l/T} stays in floats), v made
    a unit vector as :func:`finite_difference` makes it, T, ε and L.

    >>> b = _bind_fd({"logits": [3.0, 1.0], "T": 0.5, "v": [3.0, 4.0], "eps": 0.1})
    >>> {str(k): np.round(np.asarray(v, dtype=float), 3).tolist() for k, v in b.items()}["v"]
    [0.6, 0.8]
    """
    names = _fd_symbols()
    z = np.asarray(instance["logits"], dtype=float)
    v = np.asarray(instance["v"], dtype=float)
    return {names["l"]: z - z.max(), names["v"]: v / np.linalg.norm(v), names["T"]: float(instance["T"]),
            names["epsilon"]: float(instance["eps"]), names["L"]: int(z.shape[-1])}


def _symbolic_fd_transcribed() -> Proof:
    # g → 1/(2T) as ε → 0 at logits (0, 0), v = (1, −1)/√2: at ε = 1e-3 the value is 0.5 − O(ε²) > 1/4.
    inst = dict(_FD_EXAMPLES[0])
    g = float(finite_difference(inst))
    limit = thj.SOFTMAX_SUPREMA["spectral"].subs(thj.T, 1)
    return Proof(
        False,
        f"as eps -> 0 at logits (0, 0), v = (1, -1)/sqrt 2, g -> |J v| = {limit} (exact) > 1/4; at eps = 1e-3, "
        f"T = 1: g = {g:.9f} > 0.25",
        counterexample=inst,
        lhs=g,
        rhs=0.25,
    )


def _temperature_positive(instance):
    T = np.asarray(instance.get("T", 1.0), dtype=float)
    return T > 0


#: The Jacobian norm each reading of the secondary form measures, in LaTeX (as Lemma 2's readings).
_NORM_LATEX = {
    "entry": r"\max_{i,j}\left|\frac{\partial\alpha_i}{\partial l_j}\right|",
    "row": r"\max_i \|\nabla_l \alpha_i\|_2",
    "spectral": r"\|J\|_2",
    "frobenius": r"\|J\|_F",
}


def _secondary_reading(name, kind, statement, note):
    return Reading(
        name,
        statement,
        _NORM_LATEX[kind] + r" \le \min\{\tfrac{1}{4T}, \sqrt2\}",
        symbolic=_symbolic_secondary(kind),
        certify=lambda: certify_counterexample(kind, secondary=True),
        strategy=softmax_instances,
        sides=secondary_sides(kind),
        sweep=softmax_sweep,
        note=note,
    )


CLAIM = Claim(
    id="C3",
    title="Corollary 3: softmax gradient bound min{1/(4T), sqrt 2}",
    source="arXiv 2508.17821, Corollary 3 (the form also given by a secondary source)",
    statement=(
        "For softmax with temperature T: |grad_l alpha| <= min{1/(4T), sqrt 2}. False for the Jacobian in every "
        "norm; what holds is the finite-difference bound |a(l + eps v) - a(l)|/eps <= min{1/(2T), sqrt(2)/eps}."
    ),
    transcription="|grad_l alpha|_2 <= min{1/(4T), sqrt 2}",
    transcription_latex=r"\|\nabla_l\alpha\|_2 \le \min\Big\{\frac{1}{4T}, \sqrt2\Big\}",
    hypotheses=(Hypothesis("positive-temperature", "T > 0", check=_temperature_positive),),
    readings=(
        _secondary_reading(
            "transcribed",
            "spectral",
            "|J|_2 <= min(1/(4T), sqrt 2) (the norm read as the operator 2-norm)",
            "false for every T > 0: the sharp sup is 1/(2T)",
        ),
        Reading(
            "reconstructed",
            "finite difference, any unit v, eps > 0: |a(l + eps v) - a(l)|_2 / eps <= min(1/(2T), sqrt(2)/eps)",
            r"\frac{\|\alpha(l+\varepsilon v)-\alpha(l)\|_2}{\varepsilon} \le \min\Big\{\frac{1}{2T}, \frac{\sqrt2}{\varepsilon}\Big\}",
            symbolic=_symbolic_reconstructed,
            strategy=finite_difference_instances,
            sides=finite_difference_sides(False),
            sweep=finite_difference_sweep,
            bind=_bind_fd,
            note="sqrt 2 is the l2 diameter of the simplex; 1/(2T) is approached as eps -> 0",
        ),
        Reading(
            "finite-difference",
            "finite difference as in Figure 4: |a(l + eps v) - a(l)|_2 / eps <= min(1/(4T), sqrt 2)",
            r"\frac{\|\alpha(l+\varepsilon v)-\alpha(l)\|_2}{\varepsilon} \le \min\Big\{\frac{1}{4T}, \sqrt2\Big\}",
            symbolic=_symbolic_fd_transcribed,
            strategy=finite_difference_instances,
            sides=finite_difference_sides(True),
            sweep=finite_difference_sweep,
            note="false at small eps for every T",
        ),
        *(
            _secondary_reading(
                kind,
                kind,
                f"{kind} norm of J <= min(1/(4T), sqrt 2)",
                "false for T < sqrt(2)/8" if kind == "entry" else "false for every T > 0",
            )
            for kind in NORMS
        ),
    ),
    proof=__doc__,
    symbolic_form=lambda: {
        "bound": thj.SECONDARY_BOUND,
        "finite_difference": thj.FINITE_DIFFERENCE_BOUND,
        **{f"sup_{k}": v for k, v in thj.SOFTMAX_SUPREMA.items()},
    },
    derivations=("L2-softmax",),
    order=8,
)
