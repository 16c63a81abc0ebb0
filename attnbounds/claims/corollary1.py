r"""# Corollary 1: softmax weights lie within $e^{\pm 2\Delta/T}/L$

**Setting.** A query $q$, keys $k_1,\dots,k_L$ in $\mathbb{R}^d$, logits $l_i = q\cdot k_i$,
and softmax weights $\alpha_i = e^{l_i/T}/\sum_j e^{l_j/T}$ with temperature $T > 0$. Let
$\Delta = \|q\|_2 \max_j \|k_j\|_2$.

**Claim.**

$$\frac{1}{L}e^{-2\Delta/T} \;\le\; \alpha_i \;\le\; \frac{1}{L}e^{2\Delta/T}
\qquad\text{(summary form)},$$

and the sharp form

$$\frac{1}{1 + (L-1)e^{2\Delta/T}} \;\le\; \alpha_i \;\le\; \frac{1}{1 + (L-1)e^{-2\Delta/T}} .$$

**Proof.**

1. *The logits are bounded.* By Cauchy–Schwarz,
   $|l_i| = |q\cdot k_i| \le \|q\|\,\|k_i\| \le \Delta$, so every logit lies in
   $[-\Delta, \Delta]$.
2. *Apply Lemma 1* with $a = \Delta$ and $F(l) = e^{l/T}$. This $F$ is positive, continuous
   and increasing, and it does not depend on $L$. Hence $m = F(-\Delta) = e^{-\Delta/T}$
   and $M = F(\Delta) = e^{\Delta/T}$.
3. The loose constants are $C_1 = m/M = e^{-2\Delta/T}$ and $C_2 = M/m = e^{2\Delta/T}$.
   This is the summary form.
4. Lemma 1's tight bounds become
   $\dfrac{m}{m + (L-1)M} = \dfrac{1}{1 + (L-1)e^{2\Delta/T}}$ and
   $\dfrac{M}{M + (L-1)m} = \dfrac{1}{1 + (L-1)e^{-2\Delta/T}}$ after dividing numerator and
   denominator by $m$ (resp. $M$). The code proves both identities exactly. It treats
   $x = e^{\Delta/T}$ as a positive symbol, so that $m = 1/x$ and $M = x$.
5. *Tight inside loose.* With $E = e^{2\Delta/T} \ge 1$,

   $$\frac{E}{L} - \frac{1}{1 + (L-1)/E} = \frac{E(E-1)}{L\,(E + L - 1)} \ge 0,
   \qquad
   \frac{1}{1 + (L-1)E} - \frac{1}{EL} = \frac{E-1}{EL\,(1 + (L-1)E)} \ge 0,$$

   which the code checks as fractions of polynomials with non-negative coefficients in
   $E - 1 \ge 0$ and $L - 1 \ge 0$.
6. *Sharpness.* Take $k_i = K\,q/\|q\|$ and $k_j = -K\,q/\|q\|$ for $j \ne i$, where
   $K = \max_j \|k_j\|$. Then $l_i = \Delta$ and $l_j = -\Delta$, and $\alpha_i$ equals the
   sharp upper bound. Reversing the signs gives the sharp lower bound.
   $\blacksquare$

**The checked chain.** The context states only what the readings assume: the logits $l_i =
q\cdot k_i$ and $z_j = q\cdot k_j$ of the other tokens, written by polarization as $(\|q +
k\|^2 - \|q - k\|^2)/4$ (the tie evaluates norms in floats, not an abstract inner product), $K
= \max_j\|k_j\|$ as a bound on every key's norm (the upper half of the max's definition),
$\Delta = \|q\|\,K$, and softmax. Step 1, $-\Delta \le l_i, z_j \le \Delta$, is four lemmas,
each a checked chain: the triangle inequality $\|q \pm k\| \le \|q\| + \|k\|$ and the reverse
one $\|q \mp k\| \ge |\|q\| - \|k\||$ (rule `monotone-chain`) give Cauchy–Schwarz $|q\cdot k|
\le \|q\|\,\|k\|$, then $\|k\| \le K$ (rule `monotone`) and $\|q\|K = \Delta$. (The kernel's
`cauchy-schwarz` rule speaks of an `Inner` or of a sum of a fixed length; neither has a numeric
form at the readings' instances for every dimension $d$.) Both readings are proved by the
kernel for every $L \ge 1$, in three parts each. The last two are the sides, one step each:
each cites the same side of Lemma 1's checked chain by the rule `instance`: the kernel
re-checks Lemma 1's chain, substitutes $m = e^{-\Delta/T}$, $M = e^{\Delta/T}$, $x = e^{l_i/T}$
and $F(l_j) = e^{l_j/T}$ for the $L-1$ other tokens, checks that the step is Lemma 1's goal
under that substitution, and discharges every premise of Lemma 1 under Corollary 1's
hypotheses: $e^{-\Delta/T} > 0$ by SymPy's sign rules, $e^{-\Delta/T} \le e^{l/T} \le
e^{\Delta/T}$ for $l = l_i$ and every $l_j$ (and $m \le M$) by `monotone` from $-\Delta \le l
\le \Delta$ (step 1's lemmas), and the softmax definition as a hypothesis. The first part is
the reading's own statement for one token, in the log form its numeric evaluator takes:
$|\log\alpha_i - c| \le h$ with $[c - h, c + h] = [\log lo, \log hi]$ for the reading's
interval $[lo, hi]$ (for the summary form $c = -\log L$ and $h = 2\Delta/T$, so it is
$|\log(L\alpha_i)| \le 2\Delta/T$). It cites Lemma 1's statement chain the same way, between
two `identity` steps that write its ends $\log\sigma(lo)$, $\log\sigma(hi)$ as this page's. The
evaluator takes the maximum over $i$ of the left side.

**Verdict on the transcription.** The summary's form is true: it is Lemma 1's loose form.
It is not sharp for $L \ge 2$ and $\Delta > 0$: the sharp bounds tend to $0$ and $1$ as
$\Delta/T$ grows, whereas $e^{2\Delta/T}/L$ exceeds 1 as soon as $2\Delta/T > \log L$.

## What the full text changed

The full text writes $\Delta = \|q\|_2\,\|k\|_2$. With one query and $L$ keys the bound
$|l_i| \le \|q\|\,\|k_i\|$ must hold for every token, so $\|k\|$ is read as the largest key norm,
$\Delta = \|q\|_2\max_j\|k_j\|_2$, which is what this page uses. No verdict changed.
"""

from __future__ import annotations

import math
import numbers
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from scipy.special import logsumexp

from attnbounds import strategies as abst
from attnbounds.claims import lemma1 as l1
from attnbounds.claims.base import Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.claims.normalized import draws_weights, is_softmax, weights_of
from attnbounds.numerics.intervals import arb_softmax, as_rational, certify_between_on_grid, certify_upper_bound
from attnbounds.numerics.validation import as_float_array, check_count, check_rng, check_temperature
from attnbounds.theory import normalization as thn
from attnbounds.theory.proof import AllOf, Chain, Context, Lemma, Norm, by, vector

__all__ = [
    "CLAIM",
    "logit_bound",
    "log_weights",
    "transcribed_sides",
    "reconstructed_sides",
    "instances",
    "sweep_instances",
    "certify_box",
    "certify_weight_bound",
]


def _parts(instance):
    q = as_float_array(instance["q"], "q")
    keys = as_float_array(instance["keys"], "keys", min_ndim=2)
    if keys.shape[-1] != q.shape[-1]:
        raise ValueError(f"keys: last axis {keys.shape[-1]} does not match q dimension {q.shape[-1]}")
    T = np.asarray(check_temperature(instance["T"]), dtype=float)
    return q, keys, T


def _norm(x: np.ndarray) -> np.ndarray:
    # ‖x‖₂ along the last axis, scaled by max|x_k| so that tiny or huge entries do not
    # underflow or overflow when squared
    scale = np.abs(x).max(axis=-1, keepdims=True)
    safe = np.where(scale > 0, scale, 1.0)
    return (safe * np.sqrt(((x / safe) ** 2).sum(axis=-1, keepdims=True)))[..., 0]


def logit_bound(instance) -> np.ndarray:
    """Δ = ‖q‖₂ · max_j ‖k_j‖₂ (batched).

    >>> float(logit_bound({"q": [3.0, 4.0], "keys": [[1.0, 0.0], [0.0, 2.0]], "T": 1.0}))
    10.0
    """
    q, keys, _ = _parts(instance)
    return _norm(q) * _norm(keys).max(axis=-1)


def log_weights(instance) -> np.ndarray:
    """log α_i = l_i/T − logsumexp(l/T) with l_i = q·k_i (batched); under another normalizer
    (``instance["normalizer"]``, see :mod:`attnbounds.claims.normalized`) log of its weights."""
    q, keys, T = _parts(instance)
    logits = np.einsum("...ld,...d->...l", keys, q)  # l, (..., L)
    if instance.get("normalizer") is not None:
        with np.errstate(divide="ignore"):  # an exact zero weight is log 0 = -inf: outside any bound
            return np.log(weights_of(instance, logits, T))
    z = logits / T[..., None]  # l/T
    return z - logsumexp(z, axis=-1, keepdims=True)


def _transcribed_excess(instance) -> tuple[np.ndarray, np.ndarray]:
    """(|log(L α_i)| per token, 2Δ/T): what :func:`transcribed_sides` maximizes, and its bound."""
    _, _, T = _parts(instance)
    la = log_weights(instance)
    L = la.shape[-1]
    return np.abs(la + math.log(L)), 2 * logit_bound(instance) / T


@draws_weights
def transcribed_sides(instance) -> Sides:
    """max_i |log(L α_i)| ≤ 2Δ/T, i.e. e^{−2Δ/T}/L ≤ α_i ≤ e^{2Δ/T}/L.

    >>> s = transcribed_sides({"q": [1.0], "keys": [[1.0], [-1.0]], "T": 1.0})
    >>> round(float(s.lhs), 6), float(s.rhs)
    (1.433781, 2.0)
    """
    excess, bound = _transcribed_excess(instance)
    return Sides(excess.max(axis=-1), bound)


def _reconstructed_excess(instance) -> tuple[np.ndarray, np.ndarray]:
    """(|log α_i − c| per token, h): what :func:`reconstructed_sides` maximizes, and its bound."""
    _, _, T = _parts(instance)
    la = log_weights(instance)
    L = la.shape[-1]
    x = 2 * logit_bound(instance) / T
    with np.errstate(divide="ignore"):
        log_rest = np.log(L - 1.0)  # −inf for L = 1: both bounds are 1
    log_hi = -np.logaddexp(0.0, log_rest - x)  # −log(1 + (L−1)e^{−x})
    log_lo = -np.logaddexp(0.0, log_rest + x)  # −log(1 + (L−1)e^{x})
    centre, half = (log_hi + log_lo) / 2, (log_hi - log_lo) / 2
    return np.abs(la - centre[..., None]), half


@draws_weights
def reconstructed_sides(instance) -> Sides:
    """max_i |log α_i − c| ≤ h, [c − h, c + h] = [log lo, log hi] with
    lo = 1/(1 + (L−1)e^{2Δ/T}), hi = 1/(1 + (L−1)e^{−2Δ/T}).

    >>> s = reconstructed_sides({"q": [1.0], "keys": [[1.0], [-1.0]], "T": 1.0})
    >>> bool(abs(s.lhs - s.rhs) < 1e-12)  # aligned / anti-aligned keys attain it
    True
    """
    excess, bound = _reconstructed_excess(instance)
    return Sides(excess.max(axis=-1), bound)


@st.composite
def _instances(draw):
    L = draw(st.integers(1, 8))
    d = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(abst.EMBEDDING_KINDS))
    radius = draw(st.sampled_from((0.5, 1.0, 3.0)))
    keys = draw(abst.embeddings(L, d, kind=kind, radius=radius))
    q = draw(abst.embeddings(1, d, kind="box", radius=radius))[0]
    T = draw(abst.temperatures(1e-2, 1e2))
    if draw(st.booleans()) and np.linalg.norm(q) > 0:
        # extreme configuration: key i along q, all others against it (attains the sharp form)
        i = draw(st.integers(0, L - 1))
        u = q / np.linalg.norm(q)
        keys = -np.tile(u * radius, (L, 1))
        keys[i] = u * radius
    return {"q": q, "keys": keys, "T": T}


def instances():
    """Hypothesis strategy of C1 instances ``{"q": (d,), "keys": (L, d), "T": float}``."""
    return _instances()


def sweep_instances(rng: np.random.Generator, n: int) -> dict:
    """A batch of n instances with one (L, d) per call; T log-uniform in [1e-2, 1e2] per row.
    A quarter of the rows are extreme: one key along q and all the others against it."""
    check_rng(rng, "rng")
    n = check_count(n, "n")
    L = int(rng.choice([1, 2, 3, 4, 8, 16, 64]))
    d = int(rng.integers(1, 9))
    scale = float(rng.choice([0.1, 1.0, 3.0]))
    q = scale * rng.standard_normal((n, d))
    keys = scale * rng.standard_normal((n, L, d))
    k = n // 4
    if k:
        u = q[:k] / np.linalg.norm(q[:k], axis=-1, keepdims=True)
        keys[:k] = -scale * u[:, None, :]
        keys[np.arange(k), rng.integers(0, L, size=k)] = scale * u
    T = 10.0 ** rng.uniform(-2, 2, size=n)
    return {"q": q, "keys": keys, "T": T}


def _summary_bounds(delta, T, L):
    """The summary form's bounds e^{−2Δ/T}/L and e^{2Δ/T}/L as arb balls (Δ, T exact)."""
    from flint import arb

    E = (2 * arb(as_rational(delta, "delta")) / arb(as_rational(T, "T"))).exp()
    return 1 / (E * L), E / L


def certify_box(pieces: int = 4) -> Proof:
    """Certify the summary form with python-flint ``arb`` on one stated box: T = 1, Δ = 1,
    L = 3, every logit vector in [−1, 1]³ (Cauchy–Schwarz puts every (q, keys) with Δ = 1 there).

    The cube is cut into ``pieces``³ boxes; on each, α_i = 1/Σ_j e^{l_j − l_i}
    (:func:`attnbounds.numerics.intervals.arb_softmax`) is enclosed strictly inside
    (e^{−2}/3, e²/3).
    """
    L = 3
    lo, hi = _summary_bounds(1, 1, L)
    status, found = certify_between_on_grid(arb_softmax, [(-1, 1)] * L, pieces, lo, hi)
    if status is None:
        _, i, alpha = found  # the first cell not separated
        return Proof(None, f"arb could not separate alpha_{i + 1} = {alpha} from the bounds")
    return Proof(
        True,
        f"arb: T = 1, Delta = 1, L = 3, logits in [-1, 1]^3 ({pieces}^3 boxes): every alpha_i lies "
        "strictly inside (e^-2/3, e^2/3)",
        certificate=found,
    )


def certify_weight_bound(L: int = 2, delta="1", T="1", side: str = "lower", max_depth: int = 24):
    """Certify one side of the summary form for α_1 on the whole logit box [−Δ, Δ]^L by
    adaptive bisection (:func:`attnbounds.numerics.intervals.certify_upper_bound`):

    * ``side="lower"``: e^{−2Δ/T}/L − α_1(l) ≤ 0,
    * ``side="upper"``: α_1(l) − e^{2Δ/T}/L ≤ 0.

    Returns the :class:`~attnbounds.numerics.intervals.IntervalCertificate`.

    >>> certify_weight_bound(2, delta=1).status
    True
    """
    if isinstance(L, bool) or not isinstance(L, numbers.Integral) or not 1 <= L <= 4:
        raise ValueError(f"L: must be an integer in [1, 4] (boxes grow as 2^L), got {L!r}")
    d = as_rational(delta, "delta")
    if d < 0:
        raise ValueError(f"delta: must be >= 0, got {delta!r}")
    t = as_rational(T, "T")
    if t <= 0:
        raise ValueError(f"T: must be > 0, got {T!r}")
    if side not in ("lower", "upper"):
        raise ValueError(f"side: must be 'lower' or 'upper', got {side!r}")
    lo, hi = _summary_bounds(d, t, L)
    if side == "lower":
        f = lambda x: lo - arb_softmax(x, t)[0]  # noqa: E731
    else:
        f = lambda x: arb_softmax(x, t)[0] - hi  # noqa: E731
    return certify_upper_bound(f, [(-d, d)] * L, 0, max_depth=max_depth)


# ------------------------------------------------------------------ the checked proof
#
# Corollary 1 is Lemma 1 with F = exp(l/T) on [-Delta, Delta]. The proof cites Lemma 1's
# checked chains (:func:`attnbounds.claims.lemma1.proof_chains`) by the kernel's ``instance``
# rule: m = exp(-Delta/T), M = exp(Delta/T), x = exp(l_i/T), F(l_j) = exp(l_j/T), and every
# premise of Lemma 1 is discharged under C1's hypotheses (exp(-Delta/T) <= exp(l/T) <=
# exp(Delta/T) by ``monotone``, from |l| <= Delta, which the lemmas of :func:`_context` derive
# from the definitions of l, K and Delta by Cauchy-Schwarz).
_Delta = sp.Symbol("Delta", nonnegative=True)  # |q| max_j |k_j|: a product of norms
_T = sp.Symbol("T", positive=True)  # the temperature
_l = sp.Symbol("l", real=True)  # l_i = q.k_i, the logit of the token i
_z = sp.IndexedBase("z", real=True)  # the logits of the L - 1 other tokens, z_1, ..., z_{L-1}
_v = sp.Symbol("v", real=True)  # the variable of exp(v/T) in the monotone steps
_alpha, _R, _L, _j = l1._alpha, l1._R, l1._L, l1._j  # alpha_i, sum of the others' exp(z_j/T), L, j
_m, _M = sp.exp(-_Delta / _T), sp.exp(_Delta / _T)  # Lemma 1's extremes of F = exp(l/T) on [-Delta, Delta]


_q, _k = vector("q k_i")  # the query and the key of the token i
_keys = sp.IndexedBase(sp.Symbol("k", commutative=False))  # the keys of the L - 1 other tokens, k[1], ..., k[L-1]
_K = sp.Symbol("K", nonnegative=True)  # max_j |k_j|, the largest key norm (over all L keys)
_w = sp.Symbol("w", real=True)  # the variable of the monotone steps of the logit bound


def _polar(u, v):
    """<u, v> written by polarization, (|u + v|^2 - |u - v|^2)/4: the kernel's ``Inner`` has no
    numeric form, so the tie could not evaluate a definition l = <q, k_i>; the norms it can."""
    return (Norm(u + v) ** 2 - Norm(u - v) ** 2) / 4


def _logit_bound_chain(x, key, ctx: Context, side: str) -> Chain:
    """x <= Delta (``side="upper"``) or x >= -Delta (``"lower"``) for the logit x = <q, key>:
    Cauchy-Schwarz |<q, key>| <= |q| |key|, from the polarization form by the triangle inequality
    |q +- key| <= |q| + |key| and the reverse one |q -+ key| >= ||q| - |key||, each step
    ``monotone-chain`` in the norm it bounds; then |key| <= K = max_j |k_j| (``largest-key``) and
    Delta = |q| K (``Delta``)."""
    plus, minus, a, b = Norm(_q + key), Norm(_q - key), Norm(_q), Norm(key)
    gap = sp.Abs(a - b)
    chain = Chain(x, ctx).eq(_polar(_q, key), by.hypothesis("logits"))
    if side == "upper":
        tri = Chain(plus).le(a + b, by.triangle(_q, key))
        rev = Chain(gap).le(minus, by.reverse_triangle(_q, key))
        return (chain.le(((a + b) ** 2 - minus ** 2) / 4, by.monotone_chain(_w, (_w ** 2 - minus ** 2) / 4, plus, a + b, tri))
                .le(((a + b) ** 2 - gap ** 2) / 4, by.monotone_chain(_w, ((a + b) ** 2 - _w ** 2) / 4, minus, gap, rev))
                .eq(a * b, by.identity())  # Cauchy-Schwarz: <q, key> <= |q| |key|
                .le(a * _K, by.monotone(_w, a * _w, b, _K))
                .eq(_Delta, by.hypothesis("Delta")))
    tri = Chain(minus).le(a + b, by.triangle(_q, -key))
    rev = Chain(gap).le(plus, by.reverse_triangle(_q, -key))
    return (chain.ge((gap ** 2 - minus ** 2) / 4, by.monotone_chain(_w, (_w ** 2 - minus ** 2) / 4, plus, gap, rev))
            .ge((gap ** 2 - (a + b) ** 2) / 4, by.monotone_chain(_w, (gap ** 2 - _w ** 2) / 4, minus, a + b, tri))
            .eq(-a * b, by.identity())  # Cauchy-Schwarz: <q, key> >= -|q| |key|
            .ge(-a * _K, by.monotone(_w, -a * _w, b, _K))
            .eq(-_Delta, by.hypothesis("Delta")))


#: The lemmas of :func:`_context` that bound the logits, name -> (logit, key, side): every one
#: is a checked chain (:func:`_logit_bound_chain`), none is stated.
LOGIT_LEMMAS = {
    "cauchy-schwarz": (_l, _k, "upper"),
    "cauchy-schwarz-lower": (_l, _k, "lower"),
    "cauchy-schwarz-others": (_z[_j], _keys[_j], "upper"),
    "cauchy-schwarz-others-lower": (_z[_j], _keys[_j], "lower"),
}


def _definitions() -> dict:
    """What the readings assume, and nothing derived: the logits l_i = <q, k_i> and
    z_j = <q, k_j> (polarization form), K the largest key norm, Delta = |q| K, and softmax."""
    return {
        # l_i = q.k_i and z_j = q.k_j for the other tokens, by polarization
        "logits": (sp.Eq(_l, _polar(_q, _k)), sp.Eq(_z[_j], _polar(_q, _keys[_j]))),
        # K = max_j |k_j| is at least every key's norm (the definition of the max, its upper half)
        "largest-key": (Norm(_k) <= _K, Norm(_keys[_j]) <= _K),
        "Delta": sp.Eq(_Delta, Norm(_q) * _K),
        # softmax: alpha_i = exp(l_i/T) / (exp(l_i/T) + sum of the other L - 1 tokens' exp(z_j/T))
        "definition": (sp.Eq(_alpha, sp.exp(_l / _T) / (sp.exp(_l / _T) + _R)),
                       sp.Eq(_R, sp.Sum(sp.exp(_z[_j] / _T), (_j, 1, _L - 1)))),
    }


def _context() -> Context:
    """The readings' context: :func:`_definitions`, and the logit bounds -Delta <= l_i, z_j <= Delta
    as lemmas (:data:`LOGIT_LEMMAS`), each derived from the definitions by a checked chain."""
    base = Context(_definitions())
    lemmas = {name: Lemma(_logit_bound_chain(x, key, base, side), x, "<=" if side == "upper" else ">=",
                          _Delta if side == "upper" else -_Delta)
              for name, (x, key, side) in LOGIT_LEMMAS.items()}
    return base.extended(lemmas)


def bounded_logits_context() -> Context:
    """Softmax with every logit in [-Delta, Delta] as a stated premise (``bounded-logits``):
    Lemma 1 for F = exp(l/T), a theorem of its own. Corollary 2 cites Corollary 1's chain under
    it, discharging the premise by its own setting's hypothesis; Corollary 1's readings use
    :func:`_context`, which derives the bound."""
    return Context({
        "bounded-logits": (_l >= -_Delta, _l <= _Delta, _z[_j] >= -_Delta, _z[_j] <= _Delta),
        "definition": _definitions()["definition"],
    })


#: The goals of the two readings, (lhs, relation, rhs), in the proof's symbols.
GOALS = {
    "transcribed": ((_alpha, "<=", sp.exp(2 * _Delta / _T) / _L), (_alpha, ">=", sp.exp(-2 * _Delta / _T) / _L)),
    "reconstructed": ((_alpha, "<=", 1 / (1 + (_L - 1) * sp.exp(-2 * _Delta / _T))),
                      (_alpha, ">=", 1 / (1 + (_L - 1) * sp.exp(2 * _Delta / _T)))),
}


def _log_goal(reading: str) -> tuple:
    (_, _, hi), (_, _, lo) = GOALS[reading]
    centre, half = (sp.log(hi) + sp.log(lo)) / 2, (sp.log(hi) - sp.log(lo)) / 2
    return (sp.Abs(sp.log(_alpha) - centre), "<=", half)


#: Each reading's own statement about one token i, in the log form its sides take:
#: |log α − c| <= h with [c − h, c + h] = [log lo, log hi] for the interval [lo, hi] of GOALS
#: (for "transcribed" c = −log L and h = 2Δ/T).
LOG_GOALS = {name: _log_goal(name) for name in GOALS}


def _exp_between(a, b, rel) -> Chain:
    """exp(a/T) rel exp(b/T), by monotonicity of exp(v/T)."""
    g = sp.exp(_v / _T)
    chain = Chain(g.subs(_v, a))
    return chain.le(g.subs(_v, b), by.monotone(_v, g, a, b)) if rel == "<=" else chain.ge(g.subs(_v, b), by.monotone(_v, g, a, b))


def _lemma1_instance():
    """Lemma 1's substitution for softmax, and the chains that discharge its premises."""
    subs = {l1._m: _m, l1._M: _M, l1._x: sp.exp(_l / _T), l1._f: sp.Lambda(_j, sp.exp(_z[_j] / _T))}
    discharge = {
        "positive": None,  # exp(-Delta/T) > 0: SymPy's sign rules
        "bounded-logits": (  # m <= M, x >= m, x <= M, F_j >= m, F_j <= M
            _exp_between(-_Delta, _Delta, "<="),
            _exp_between(_l, -_Delta, ">="),
            _exp_between(_l, _Delta, "<="),
            _exp_between(_z[_j], -_Delta, ">="),
            _exp_between(_z[_j], _Delta, "<="),
        ),
        "definition": None,  # literally C1's softmax definition
    }
    return subs, discharge


def proof_chains(reading: str, ctx: Context | None = None) -> tuple[Chain, ...]:
    """The chains that prove ``reading`` (upper side, lower side): each side is one ``instance``
    step citing the same side of Lemma 1's checked chain for that reading."""
    if reading not in GOALS:
        raise ValueError(f"reading: must be one of {sorted(GOALS)}, got {reading!r}")
    ctx = _context() if ctx is None else ctx
    subs, discharge = _lemma1_instance()
    out = []
    for cited, goal in zip(l1.proof_chains(reading), l1.GOALS[reading], strict=True):
        thm = Lemma(cited, *goal)
        mine = GOALS[reading][len(out)]
        step = by.instance(thm, subs, discharge)
        chain = Chain(_alpha, ctx)
        out.append(chain.le(mine[2], step) if mine[1] == "<=" else chain.ge(mine[2], step))
    return tuple(out)


def statement_chain(reading: str, ctx: Context | None = None) -> Chain:
    """The chain that proves ``reading``'s statement :data:`LOG_GOALS` for one token: Lemma 1's
    statement chain (:func:`attnbounds.claims.lemma1.statement_chain`) cited by ``instance`` with
    the substitution of :func:`proof_chains`, between two ``identity`` steps that rewrite its
    interval's ends σ(lo), σ(hi) (m = e^{−Δ/T}, M = e^{Δ/T}) as this reading's."""
    if reading not in GOALS:
        raise ValueError(f"reading: must be one of {sorted(GOALS)}, got {reading!r}")
    ctx = _context() if ctx is None else ctx
    subs, discharge = _lemma1_instance()
    cited = l1.LOG_GOALS[reading]
    sigma = {k: v for k, v in subs.items() if not isinstance(v, sp.Lambda)}  # the goal has no F(l_j)
    lhs, _, rhs = LOG_GOALS[reading]
    return (Chain(lhs, ctx).eq(cited[0].xreplace(sigma), by.identity())
            .le(cited[2].xreplace(sigma), by.instance(Lemma(l1.statement_chain(reading), *cited), subs, discharge))
            .eq(rhs, by.identity()))


def check_proof(reading: str, ctx: Context | None = None, goals=None) -> AllOf:
    """Check the proof of ``reading``: its statement :data:`LOG_GOALS` (:func:`statement_chain`, the
    first part), then the two sides of :func:`proof_chains` against their goals (or mutated
    ``goals``), as its lemmas."""
    ctx = _context() if ctx is None else ctx
    sides = GOALS[reading] if goals is None else goals
    return AllOf.of((statement_chain(reading, ctx), *proof_chains(reading, ctx)), (LOG_GOALS[reading], *sides), ctx)


@lru_cache(maxsize=1)  # exact and deterministic: compute once
def _symbolic_transcribed() -> Proof:
    return Proof.from_chain(
        check_proof("transcribed"),
        "|log(L alpha_i)| <= 2 Delta/T for one token: Lemma 1's statement chain, instantiated; its sides: "
        "Lemma 1's checked chain for C1/L <= alpha_i <= C2/L, instantiated with F = exp(l/T): m = exp(-Delta/T), "
        "M = exp(Delta/T), M/(mL) = exp(2 Delta/T)/L; its premises exp(-Delta/T) <= exp(l/T) <= exp(Delta/T) "
        "from |l| <= Delta by monotonicity of exp; |l| <= Delta derived (lemmas cauchy-schwarz*): l = q.k_i "
        "(polarization), Cauchy-Schwarz by the triangle and reverse triangle inequalities, |k_i| <= K = max_j |k_j|, "
        "Delta = |q| K",
    )


@lru_cache(maxsize=1)  # exact and deterministic: compute once
def _symbolic_reconstructed() -> Proof:
    return Proof.from_chain(
        check_proof("reconstructed"),
        "|log alpha_i - c| <= h, [c-h, c+h] = [log lo, log hi], for one token: Lemma 1's statement chain, "
        "instantiated; its sides: Lemma 1's checked chain for m/(m+(L-1)M) <= alpha_i <= M/(M+(L-1)m), instantiated with F = exp(l/T): "
        "M/(M+(L-1)m) = 1/(1+(L-1)exp(-2 Delta/T)); premises from |l| <= Delta by monotonicity of exp, "
        "|l| <= Delta derived by Cauchy-Schwarz and |k_i| <= max_j |k_j| (lemmas cauchy-schwarz*); "
        "attained by keys aligned / anti-aligned with q",
    )


def _bind_at(instance, excess) -> dict:
    """The values of the proof's symbols (:func:`statement_chain` is about one token i) at the
    token where ``excess`` (the per-token |log α_i − c| that the reading's sides maximize) is
    largest, so that the goal's value is the sides' (for the tie, :mod:`attnbounds.engine.tie`;
    at L = 1 the other tokens are none, and the hypotheses about every one of them hold vacuously):
    α = α_i (:func:`log_weights`), l = q·k_i, z[1..L−1] the other tokens' logits and R the sum of
    their e^{z_j/T}, Δ (:func:`logit_bound`), T, L; and the vectors the definitions of l, z and Δ
    read: q, k_i, the other tokens' keys k[1..L−1] (in the order of z) and K = max_j ‖k_j‖.
    R is left out where it is beyond floats: then Δ/T > 700, so the goal's e^{2Δ/T} overflows too
    and the tie passes the instance over."""
    q, keys, T = _parts(instance)
    logits = keys @ q
    i = int(np.argmax(excess(instance)[0]))
    rest = np.delete(logits, i)
    with np.errstate(over="ignore"):
        R = float(np.exp(rest / T).sum())
    values = {_alpha: math.exp(log_weights(instance)[i]), _l: float(logits[i]), _z: rest,
              _Delta: float(logit_bound(instance)), _T: float(T), _L: logits.shape[-1],
              _q: q, _k: keys[i], _keys: np.delete(keys, i, axis=0), _K: float(_norm(keys).max(axis=-1))}
    return values if math.isinf(R) else {**values, _R: R}


def _bind_transcribed(instance) -> dict:
    """:func:`_bind_at` the token where |log(L α_i)| is largest (:func:`transcribed_sides`)."""
    return _bind_at(instance, _transcribed_excess)


def _bind_reconstructed(instance) -> dict:
    """:func:`_bind_at` the token where |log α_i − c| is largest (:func:`reconstructed_sides`)."""
    return _bind_at(instance, _reconstructed_excess)


def _bounded_by_delta(instance):
    q, keys, _ = _parts(instance)
    z = np.einsum("...ld,...d->...l", keys, q)
    delta = logit_bound(instance)
    return np.all(np.abs(z) <= delta[..., None] * (1 + 1e-12), axis=-1)  # rounding slack only


def _symbolic_form() -> dict:
    import sympy as sp

    E = sp.exp(2 * thn.Delta / thn.T)
    return {
        "alpha_lower": 1 / (E * thn.L),
        "alpha_upper": E / thn.L,
        "tight_lower": 1 / (1 + (thn.L - 1) * E),
        "tight_upper": 1 / (1 + (thn.L - 1) / E),
        "Delta": thn.Delta,
    }


_BOTH = dict(strategy=instances, sweep=sweep_instances, rtol=1e-9, atol=1e-12)

CLAIM = Claim(
    id="C1",
    order=2,
    title="Corollary 1: softmax weights within exp(+-2 Delta/T)/L",
    source="arXiv 2508.17821, Corollary 1 (CLAIMS.md; Delta = |q| max_j |k_j|)",
    statement=(
        "For softmax with temperature T and Delta = |q| max_j |k_j|: exp(-2 Delta/T)/L <= alpha_i <= "
        "exp(2 Delta/T)/L; sharp form 1/(1+(L-1)exp(2 Delta/T)) <= alpha_i <= 1/(1+(L-1)exp(-2 Delta/T))."
    ),
    transcription="(1/L) e^{-2 Delta/T} <= alpha_i <= (1/L) e^{2 Delta/T}, Delta = |q| max_j |k_j|",
    transcription_latex=r"\frac{1}{L}e^{-2\Delta/T} \le \alpha_i \le \frac{1}{L}e^{2\Delta/T}",
    hypotheses=(
        Hypothesis(
            "cauchy-schwarz",
            "|l_i| = |q.k_i| <= Delta for every i (always true: Cauchy-Schwarz; the proof derives it, "
            "lemmas cauchy-schwarz*, from l_i = q.k_i and Delta = |q| max_j |k_j|)",
            check=_bounded_by_delta,
        ),
        Hypothesis(
            "softmax",
            "the weights are softmax(l/T): Lemma 1 with F = exp(l/T), positive and independent of L, "
            "whose M/m on [-Delta, Delta] is exp(2 Delta/T)",
            admits=is_softmax,
        ),
    ),
    readings=(
        Reading(
            "transcribed",
            "exp(-2 Delta/T)/L <= alpha_i <= exp(2 Delta/T)/L, checked as max_i |log(L alpha_i)| <= 2 Delta/T",
            r"\max_i \left|\log(L\alpha_i)\right| \le \frac{2\Delta}{T}",
            symbolic=_symbolic_transcribed,
            certify=certify_box,
            sides=transcribed_sides,
            bind=_bind_transcribed,
            note="true (Lemma 1's loose form); not sharp for L >= 2, Delta > 0",
            **_BOTH,
        ),
        Reading(
            "reconstructed",
            "1/(1+(L-1)e^{2 Delta/T}) <= alpha_i <= 1/(1+(L-1)e^{-2 Delta/T}), checked in log space",
            r"\frac{1}{1+(L-1)e^{2\Delta/T}} \le \alpha_i \le \frac{1}{1+(L-1)e^{-2\Delta/T}}",
            symbolic=_symbolic_reconstructed,
            sides=reconstructed_sides,
            bind=_bind_reconstructed,
            note="sharp: keys aligned / anti-aligned with q attain it (argued on the page, not part of the verdict)",
            **_BOTH,
        ),
    ),
    proof=__doc__,
    symbolic_form=_symbolic_form,
    derivations=("C1", "L1-constants"),
)
