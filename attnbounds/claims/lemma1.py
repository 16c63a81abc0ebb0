r"""# Lemma 1: weights of a length-independent normalizer are of order $1/L$

**Setting.** Logits $l_1,\dots,l_L$ lie in a bounded range $[-a, a]$. A normalizer $F$ is
positive and continuous on $[-a, a]$ and does not depend on $L$. The weights are
$\alpha_i = F(l_i) / \sum_{j=1}^{L} F(l_j)$. Since $F$ is continuous on a compact interval,
it attains its extremes there:

$$m = \min_{[-a,a]} F > 0, \qquad M = \max_{[-a,a]} F, \qquad m \le M .$$

**Claim (reconstructed, sharp).** For every $L \ge 1$ and every $i$,

$$\frac{m}{m + (L-1)M} \;\le\; \alpha_i \;\le\; \frac{M}{M + (L-1)m},$$

and both bounds are attained. Consequently $C_1/L \le \alpha_i \le C_2/L$ with
$C_1 = m/M$ and $C_2 = M/m$, and no constants independent of $L$ do better.

**Proof.**

1. Fix $i$. Write $x = F(l_i)$ and $R = \sum_{j \ne i} F(l_j)$, so that
   $\alpha_i = x/(x+R)$. Every term of $R$ lies in $[m, M]$, hence
   $R \in [(L-1)m,\ (L-1)M]$, and $x \in [m, M]$.
2. The function $f(x, R) = x/(x+R)$ on $x > 0$, $R \ge 0$ has
   $\partial f/\partial x = R/(x+R)^2 \ge 0$ and $\partial f/\partial R = -x/(x+R)^2 \le 0$.
   So $f$ is largest at $x = M$, $R = (L-1)m$ and smallest at $x = m$, $R = (L-1)M$.
   These two values are the bounds above.
3. *Attainment.* Let $l_{\min}$ and $l_{\max}$ be points of $[-a, a]$ where $F$ equals
   $m$ and $M$. Put $l_i = l_{\max}$ and every other logit at $l_{\min}$: then $x = M$ and
   $R = (L-1)m$, so $\alpha_i$ equals the upper bound. Swap the roles for the lower bound.
4. *Loose form.* Put the differences over a common denominator:

   $$\frac{M}{mL} - \frac{M}{M + (L-1)m} = \frac{M(M-m)}{mL\,(M + (L-1)m)} \ge 0,
   \qquad
   \frac{m}{m + (L-1)M} - \frac{m}{ML} = \frac{m(M-m)}{ML\,(m + (L-1)M)} \ge 0 .$$

   The code checks this exactly. It substitutes $M = m + d$ and $L = 1 + n$ with
   $d, n \ge 0$. Then each numerator and each denominator is a polynomial with
   non-negative coefficients, and each denominator is positive at $d = n = 0$.
5. *Best constants.* The map $L \mapsto L \cdot M/(M + (L-1)m)$ has derivative
   $M(M-m)/(M + (L-1)m)^2 \ge 0$ and limit $M/m$ as $L \to \infty$. So any constant $C_2$
   that is valid for all $L$ must be at least $M/m$. Symmetrically, $L\, m/(m + (L-1)M)$
   decreases to $m/M$, so every valid $C_1$ is at most $m/M$. $\blacksquare$

**The checked chain.** The kernel checks steps 1–2 for each side (`monotone` in $x$, then in
$R$, with $R$'s range summed term by term), and step 4 for the loose form. Each reading's
proof starts with its own statement for one token, in the log form its numeric evaluator
takes: $|\log\alpha_i - c| \le h$ with $[c - h, c + h] = [\log lo, \log hi]$ for the reading's
interval $[lo, hi]$ (for the loose form $c = -\log L$ and $h = \log(M/m)$, so it is
$|\log(L\alpha_i)| \le \log(M/m)$). It follows by `abs-bound` from $\log\alpha_i \le \log hi$
and $\log\alpha_i \ge \log lo$, the same steps with $\log$ applied to every map (the loose
form adds one `monotone` step in $w \in [m, M]$ on $\log(M/(w + (L-1)m))$ and
$\log(m/(w + (L-1)M))$). The evaluator takes the maximum over $i$ of the left side.

**Examples of constants.** Softmax with temperature $T$, $F = e^{l/T}$, has $m = e^{-a/T}$
and $M = e^{a/T}$. Hence $C_1 = e^{-2a/T}$ and $C_2 = e^{2a/T}$, which gives Corollary 1.
Other families: softplus $\log(1 + e^{l/T})$ and sigmoid are increasing, so their extremes
sit at $\mp a$. For $1 + x + x^2/2$ with $x = l/T$, the minimum is $1/2$ at $l = -T$ when
$a \ge T$. For $(1 + l^2)^p$, the minimum is $1$ at $l = 0$ and the maximum is
$(1 + a^2)^p$ (see `attnbounds derive L1-constants`).

**The transcription.** The summary states: for any normalization that does not depend
explicitly on $L$, $C_1/L \le \alpha_i \le C_2/L$ with $C_1, C_2$ independent of $L$. This is
true once two hypotheses that the summary leaves out are added, and the proof above
supplies them:

* *bounded logits*, $|l_i| \le a$: the constants depend on $a$ through $m$ and $M$;
* *positivity* of $F$ on that range, $m > 0$: otherwise $C_1 = 0$ and $C_2 = \infty$.

The summary keeps only the third hypothesis, independence from $L$. Each of the three is
needed. The checker drops them one at a time and exhibits a counterexample:

* **unbounded logits:** softmax with $T = 1$. The constant for $a = 1$ is
  $C_2 = e^2 \approx 7.39$. Take $L = 16$ and logits $(10, 0, \dots, 0)$. Then
  $L\alpha_1 = 16e^{10}/(e^{10} + 15) \approx 15.99 > C_2$. In general
  $L\alpha_1 \to L$ as the gap grows, so no constant survives.
* **a length-aware normalizer:** scalable softmax $F_L(l) = e^{s \log L \cdot l}$, with
  $s = 1$ and $a = 1$. The logits are bounded and $F_L$ is positive, but at $L = 2$ the
  constant is $C_2 = 4$, while at $L = 64$ with logits $(1, -1, \dots, -1)$ we get
  $L\alpha_1 = 64/(1 + 63 \cdot 64^{-2}) \approx 63.0$. In general
  $L \alpha_1 = L/(1 + (L-1)L^{-2sa}) \to \infty$.
* **positivity:** $F = \max(l, 0)$ is continuous but vanishes on $[-a, 0]$. With logits
  $(1, -1, \dots, -1)$ we get $\alpha_2 = 0 < C_1/L$ for every $C_1 > 0$, and
  $L\alpha_1 = L$ is unbounded.

## What the full text changed

The full text states the hypotheses the summary left out: $F$ is smooth and does not depend on
$L$, and the logits lie in $[-a, a]$; its proof is continuity on a compact set, as above. We
keep *continuity* (weaker than smoothness, and all the proof uses) and add *positivity*,
which the paper's normalizers satisfy and without which the lower constant is $0$. No verdict
changed: `L1:transcribed` and `L1:reconstructed` stay proved, and each dropped hypothesis stays
falsified.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from scipy.special import logsumexp

from attnbounds import strategies as abst
from attnbounds.claims.base import Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.numerics.attention import softmax
from attnbounds.numerics.intervals import certify_between_on_grid
from attnbounds.numerics import normalizers as nz
from attnbounds.numerics.validation import as_float_array, check_count, check_rng, exact_number
from attnbounds.theory import normalization as thn
from attnbounds.theory.derivation import is_identity
from attnbounds.theory.proof import AllOf, Chain, Context, Lemma, by

__all__ = [
    "CLAIM",
    "FAMILY_NAMES",
    "HALF_WIDTHS",
    "PARAM_CHOICES",
    "family_normalizer",
    "family_constants",
    "log_weights",
    "transcribed_sides",
    "reconstructed_sides",
    "instances",
    "sweep_instances",
    "certify_box",
]

#: The built-in ratio-form families: the registry's normalizers with role "family".
FAMILY_NAMES: tuple[str, ...] = nz.names(role="family")
#: Logit half-widths a used by the searches (exact rationals, so that m, M are exact).
HALF_WIDTHS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
#: The family parameter (its ``search_param``: T for softmax, p for even_power) and the
#: values the searches use; the other families have none (1.0).
PARAM_CHOICES: dict[str, tuple[float, ...]] = {
    name: abst.PARAM_CHOICES[nz.get(name).search_param] for name in FAMILY_NAMES if nz.get(name).search_param
}


#: A length-aware normalizer's ratio form F_n is read at this n for Lemma 1's constants m, M:
#: the shortest context with a choice. (Any fixed n gives constants that fail at other L.)
REFERENCE_LENGTH = 2


def _lookup(family):
    """The normalizer an instance's ``family`` names (registered, or posed by a reading), or None."""
    from attnbounds.claims.normalized import lookup

    try:
        return lookup(family)
    except (LookupError, ValueError):
        return None


def _check_family(family, param):
    if _lookup(family) is None:
        raise ValueError(f"family: must be one of {FAMILY_NAMES} or a registered normalizer, got {family!r}")
    param = float(param)
    if not (math.isfinite(param) and param > 0):
        raise ValueError(f"param: must be a finite number > 0, got {param!r}")
    return family, param


@lru_cache(maxsize=256)
def family_normalizer(family: str, param: float):
    """The normalizer ``family`` with its searched parameter set to ``param`` (T for softmax,
    p for even_power; the temperature T for a normalizer without one).

    >>> family_normalizer("even_power", 2.0).expr
    (l**2 + 1)**2
    """
    family, param = _check_family(family, param)
    N = _lookup(family)
    return N.with_params(**{N.search_param or "T": param})


@lru_cache(maxsize=512)
def family_constants(family: str, param: float, a: float) -> tuple[float, float, float, float]:
    """(m, M, argmin, argmax) of the family's F on [−a, a], computed exactly by
    :func:`attnbounds.theory.normalization.normalizer_constants` and rounded to floats.

    >>> family_constants("taylor2", 1.0, 2.0)
    (0.5, 5.0, -1.0, 2.0)
    """
    family, param = _check_family(family, param)
    if not (math.isfinite(a) and a > 0):
        raise ValueError(f"a: must be a finite number > 0, got {a!r}")
    expr = _ratio_form(family_normalizer(family, param))
    k = thn.normalizer_constants(expr, thn.l, exact_number(a, "a"))
    if k is None:
        raise ValueError(f"family: the extremes of {expr} on [-{a}, {a}] cannot be decided exactly")
    return float(k.m), float(k.M), float(k.argmin), float(k.argmax)


def _ratio_form(N) -> sp.Expr:
    """A registered normalizer's F(l), n = REFERENCE_LENGTH."""
    expr = N.ratio_form(length=REFERENCE_LENGTH)
    if expr is None:
        raise ValueError(f"family: normalizer {N.name!r} has no ratio form F(l_i)/sum_j F(l_j)")
    return expr if "family" in N.roles else sp.simplify(expr)


def log_weights(instance) -> np.ndarray:
    """log α_i for α_i = F(l_i)/Σ_j F(l_j), shape of ``instance["logits"]`` (batched)."""
    family, param = _check_family(instance["family"], instance["param"])
    z = as_float_array(instance["logits"], "logits")
    N = family_normalizer(family, param)
    if "family" not in N.roles:  # an attention normalizer: its own weights, at the row's length
        with np.errstate(divide="ignore"):
            return np.log(N.weights(z))
    f = N.F(z)
    if np.any(f <= 0):
        raise ValueError(f"logits: F = {family} is not positive on them")
    logf = np.log(f)
    return logf - logsumexp(logf, axis=-1, keepdims=True)


def _constants(instance):
    return family_constants(*_check_family(instance["family"], instance["param"]), float(instance["a"]))


def _transcribed_excess(instance) -> tuple[np.ndarray, np.ndarray]:
    """(|log(L α_i)| per token, log(M/m)): what :func:`transcribed_sides` maximizes, and its bound."""
    m, M, _, _ = _constants(instance)
    la = log_weights(instance)
    L = la.shape[-1]
    return np.abs(la + math.log(L)), np.full(la.shape[:-1], math.log(M / m))[()]


def transcribed_sides(instance) -> Sides:
    """max_i |log(L α_i)| ≤ log(M/m), i.e. C1/L ≤ α_i ≤ C2/L with C1 = m/M = 1/C2.

    >>> s = transcribed_sides({"family": "softmax", "param": 1.0, "a": 1.0, "logits": [1.0, -1.0]})
    >>> round(float(s.lhs), 6), round(float(s.rhs), 6)
    (1.433781, 2.0)
    """
    excess, bound = _transcribed_excess(instance)
    return Sides(excess.max(axis=-1), bound)


def _reconstructed_excess(instance) -> tuple[np.ndarray, np.ndarray]:
    """(|log α_i − c| per token, h): what :func:`reconstructed_sides` maximizes, and its bound."""
    m, M, _, _ = _constants(instance)
    la = log_weights(instance)
    L = la.shape[-1]
    log_hi = math.log(M) - math.log(M + (L - 1) * m)
    log_lo = math.log(m) - math.log(m + (L - 1) * M)
    centre, half = (log_hi + log_lo) / 2, (log_hi - log_lo) / 2
    return np.abs(la - centre), np.full(la.shape[:-1], half)[()]


def reconstructed_sides(instance) -> Sides:
    """max_i |log α_i − c| ≤ h where [c − h, c + h] = [log lo, log hi], the log of the tight
    interval lo = m/(m + (L−1)M), hi = M/(M + (L−1)m).

    >>> s = reconstructed_sides({"family": "softmax", "param": 1.0, "a": 1.0, "logits": [1.0, -1.0]})
    >>> bool(abs(s.lhs - s.rhs) < 1e-12)  # attained: one logit at each extreme
    True
    """
    excess, bound = _reconstructed_excess(instance)
    return Sides(excess.max(axis=-1), bound)


def _param_of(F) -> float:
    return float(F.params[F.search_param]) if F.search_param else 1.0


@st.composite
def _instances(draw):
    F = draw(abst.normalizer_families())
    a = draw(st.sampled_from(HALF_WIDTHS))
    z = draw(abst.logits(min_size=1, max_size=8, min_value=-a, max_value=a))
    return {"family": F.name, "param": _param_of(F), "a": a, "logits": z}


def instances():
    """Hypothesis strategy of L1 instances ``{"family", "param", "a", "logits"}``, |l| ≤ a."""
    return _instances()


def sweep_instances(rng: np.random.Generator, n: int) -> dict:
    """A batch of n instances sharing family, parameter, a and L (drawn per call).

    A quarter of the rows put one logit at argmax F and the rest at argmin F (or the
    reverse): the configurations that attain the tight bounds.
    """
    check_rng(rng, "rng")
    n = check_count(n, "n")
    family = str(rng.choice(FAMILY_NAMES))
    param = float(rng.choice(PARAM_CHOICES.get(family, (1.0,))))
    a = float(rng.choice(HALF_WIDTHS))
    L = int(rng.choice([1, 2, 3, 5, 8, 16, 64, 256]))
    _, _, lo_at, hi_at = family_constants(family, param, a)
    z = rng.uniform(-a, a, size=(n, L))
    k = n // 4
    if k:
        top, rest = (hi_at, lo_at) if rng.random() < 0.5 else (lo_at, hi_at)
        z[:k] = rest
        z[np.arange(k), rng.integers(0, L, size=k)] = top
    return {"family": family, "param": param, "a": a, "logits": z}


def certify_box(pieces: int = 8) -> Proof:
    r"""Certify the transcribed bound with python-flint ``arb`` on one stated box:
    F = 1 + l + l²/2 (not monotone), a = 2, L = 3, every (l_1, l_2, l_3) ∈ [−2, 2]³.

    Here m = 1/2 (at l = −1), M = 5, C1/L = 1/30, C2/L = 10/3. The cube is cut into
    ``pieces``³ boxes; on each, interval arithmetic encloses every α_i strictly inside
    (1/30, 10/3).
    """
    a, L = 2, 3
    # 1 + l + l²/2 = ((l + 1)² + 1)/2: each ball enters once, so the enclosure is tight.
    if not is_identity(1 + thn.l + thn.l**2 / 2, ((thn.l + 1) ** 2 + 1) / 2):
        return Proof(None, "the single-use form of F did not check")

    def weights(z):  # α_i = F_i/(F_i + Σ_{j≠i} F_j) = 1/(1 + R_i/F_i)
        f = [((x + 1) ** 2 + 1) / 2 for x in z]
        return [1 / (1 + sum(f[j] for j in range(L) if j != i) / f[i]) for i in range(L)]

    status, found = certify_between_on_grid(weights, [(-a, a)] * L, pieces, "1/30", "10/3")
    if status is None:
        _, i, alpha = found  # the first cell not separated
        return Proof(None, f"arb could not separate alpha_{i + 1} = {alpha} from [1/30, 10/3]")
    return Proof(
        True,
        f"arb: on [-2, 2]^3 ({pieces}^3 boxes), F = 1 + l + l^2/2, every alpha_i lies strictly inside "
        "(C1/L, C2/L) = (1/30, 10/3)",
        certificate=found,
    )


# ------------------------------------------------------------------ the checked proof
#
# Symbols carry no sign assumptions: positivity and the ranges are hypotheses of the
# context, so that a proof with one of them dropped does not check.
_x, _R, _m, _M, _alpha = sp.symbols("x R m M alpha", real=True)
_L = sp.Symbol("L", positive=True, integer=True)  # the number of tokens
_j = sp.Symbol("j", positive=True, integer=True)
_f = sp.IndexedBase("F", real=True)  # F(l_j) for the tokens j != i, j = 1..L-1
_R_SUM = sp.Sum(_f[_j], (_j, 1, _L - 1))


def _context() -> Context:
    base = {
        "positive": (_m > 0,),
        # bounded logits: every F(l) lies in [m, M], the extremes of F on [-a, a]
        "bounded-logits": (_m <= _M, _x >= _m, _x <= _M, _f[_j] >= _m, _f[_j] <= _M),
        "definition": (sp.Eq(_alpha, _x / (_x + _R)), sp.Eq(_R, _R_SUM)),
    }
    r_lo = (Chain(_R).eq(_R_SUM, by.hypothesis("definition"))
            .ge(sp.Sum(_m, (_j, 1, _L - 1)), by.termwise(_j, 1, _L - 1))
            .eq((_L - 1) * _m, by.identity()))
    r_hi = (Chain(_R).eq(_R_SUM, by.hypothesis("definition"))
            .le(sp.Sum(_M, (_j, 1, _L - 1)), by.termwise(_j, 1, _L - 1))
            .eq((_L - 1) * _M, by.identity()))
    return Context({**base, "R-lower": Lemma(r_lo, _R, ">=", (_L - 1) * _m),
                    "R-upper": Lemma(r_hi, _R, "<=", (_L - 1) * _M)})


def _tight_chains(ctx: Context, f: Callable[[sp.Expr], sp.Expr] = lambda e: e) -> tuple[Chain, Chain]:
    """f(α) <= f(M/(M+(L−1)m)) and f(α) >= f(m/(m+(L−1)M)), each step ``monotone`` in x, then in R;
    f is the identity for the sides, or the increasing ``sp.log`` for the log-form statement (each
    step's map composed with log, which is defined there: x/(x+R) > 0)."""
    g = _x / (_x + _R)
    upper = (Chain(f(_alpha), ctx).eq(f(g), by.hypothesis("definition"))
             .le(f(_M / (_M + _R)), by.monotone(_x, f(g), _x, _M))
             .le(f(_M / (_M + (_L - 1) * _m)), by.monotone(_R, f(_M / (_M + _R)), _R, (_L - 1) * _m)))
    lower = (Chain(f(_alpha), ctx).eq(f(g), by.hypothesis("definition"))
             .ge(f(_m / (_m + _R)), by.monotone(_x, f(g), _x, _m))
             .ge(f(_m / (_m + (_L - 1) * _M)), by.monotone(_R, f(_m / (_m + _R)), _R, (_L - 1) * _M)))
    return upper, lower


#: The goals of the two readings: (lhs, relation, rhs) pairs in the proof's symbols.
GOALS = {
    "reconstructed": ((_alpha, "<=", _M / (_M + (_L - 1) * _m)), (_alpha, ">=", _m / (_m + (_L - 1) * _M))),
    "transcribed": ((_alpha, "<=", _M / (_m * _L)), (_alpha, ">=", _m / (_M * _L))),
}


def _log_goal(reading: str) -> tuple:
    (_, _, hi), (_, _, lo) = GOALS[reading]
    centre, half = (sp.log(hi) + sp.log(lo)) / 2, (sp.log(hi) - sp.log(lo)) / 2
    return (sp.Abs(sp.log(_alpha) - centre), "<=", half)


#: Each reading's own statement about one token i, in the log form its sides take:
#: |log α − c| <= h with [c − h, c + h] = [log lo, log hi] for the interval [lo, hi] of GOALS
#: (for "transcribed" c = −log L and h = log(M/m), written through lo = m/(ML), hi = M/(mL)).
LOG_GOALS = {name: _log_goal(name) for name in GOALS}


def proof_chains(reading: str, ctx: Context | None = None) -> tuple[Chain, ...]:
    """The chains of steps that prove ``reading`` (one per side of the two-sided bound)."""
    ctx = _context() if ctx is None else ctx
    upper, lower = _tight_chains(ctx)
    if reading == "reconstructed":
        return upper, lower
    if reading == "transcribed":
        # M/(M+(L-1)m) <= M/(mL) and m/(m+(L-1)M) >= m/(ML): the differences are
        # M(M-m)/(mL(M+(L-1)m)) and m(M-m)/(ML(m+(L-1)M)), non-negative for M >= m
        return (upper.le(_M / (_m * _L), by.algebra()), lower.ge(_m / (_M * _L), by.algebra()))
    raise ValueError(f"reading: must be 'reconstructed' or 'transcribed', got {reading!r}")


def statement_chain(reading: str, ctx: Context | None = None) -> Chain:
    """The chain that proves ``reading``'s statement :data:`LOG_GOALS` for one token by ``abs-bound``
    from two checked facts, log α <= log hi and log α >= log lo: the side chains of
    :func:`proof_chains` with log applied to every step (for "transcribed", one more step each,
    ``monotone`` in w on [m, M]: log(M/(w + (L−1)m)) and log(m/(w + (L−1)M)) decrease in w)."""
    if reading not in GOALS:
        raise ValueError(f"reading: must be 'reconstructed' or 'transcribed', got {reading!r}")
    ctx = _context() if ctx is None else ctx
    upper, lower = _tight_chains(ctx, sp.log)
    if reading == "transcribed":
        w = sp.Symbol("w", real=True)
        up, low = sp.log(_M / (w + (_L - 1) * _m)), sp.log(_m / (w + (_L - 1) * _M))
        upper = upper.le(sp.log(_M / (_m * _L)), by.monotone(w, up, _M, _m))
        lower = lower.ge(sp.log(_m / (_M * _L)), by.monotone(w, low, _m, _M))
    lhs, _, rhs = LOG_GOALS[reading]
    return Chain(lhs, ctx).le(rhs, by.abs_bound(facts=(upper, lower)))


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
        "|log(L alpha_i)| <= log(M/m) for one token by abs-bound from log alpha_i <= log(M/(mL)) and "
        "log alpha_i >= log(m/(ML)); alpha_i = x/(x+R) is increasing in x = F(l_i) in [m, M] and decreasing in "
        "R = sum_{j!=i} F(l_j) in [(L-1)m, (L-1)M] (termwise); then M/(M+(L-1)m) <= M/(mL) "
        "and m/(m+(L-1)M) >= m/(ML) since M >= m",
    )


@lru_cache(maxsize=1)  # exact and deterministic: compute once
def _symbolic_reconstructed() -> Proof:
    return Proof.from_chain(
        check_proof("reconstructed"),
        "|log alpha_i - c| <= h, [c-h, c+h] = [log lo, log hi], for one token by abs-bound from "
        "log lo <= log alpha_i <= log hi; alpha_i = x/(x+R) is increasing in x = F(l_i) in [m, M] (d/dx = R/(x+R)^2) and "
        "decreasing in R = sum_{j!=i} F(l_j) in [(L-1)m, (L-1)M] (d/dR = -x/(x+R)^2)",
    )


def _bind_at(instance, excess) -> dict:
    """The values of the proof's symbols (:func:`statement_chain` is about one token i) at the
    token where ``excess`` (the per-token |log α_i − c| that the reading's sides maximize) is
    largest, so that the goal's value is the sides' (for the tie, :mod:`attnbounds.engine.tie`;
    at L = 1 the other tokens are none, and the hypotheses about every one of them hold vacuously):
    α = α_i (:func:`log_weights`), x = F(l_i), F[1..L−1] the other tokens' F(l_j) and R their
    sum, m and M of F on [−a, a], L."""
    family, param = _check_family(instance["family"], instance["param"])
    m, M, _, _ = _constants(instance)
    i = int(np.argmax(excess(instance)[0]))
    f = family_normalizer(family, param).F(as_float_array(instance["logits"], "logits"))
    rest = np.delete(f, i)
    return {_alpha: math.exp(log_weights(instance)[i]), _x: float(f[i]), _f: rest, _R: float(rest.sum()),
            _m: m, _M: M, _L: f.shape[-1]}


def _bind_transcribed(instance) -> dict:
    """:func:`_bind_at` the token where |log(L α_i)| is largest (:func:`transcribed_sides`)."""
    return _bind_at(instance, _transcribed_excess)


def _bind_reconstructed(instance) -> dict:
    """:func:`_bind_at` the token where |log α_i − c| is largest (:func:`reconstructed_sides`)."""
    return _bind_at(instance, _reconstructed_excess)


# ------------------------------------------------------------------ hypotheses and drops


#: F's that are not normalizers, used only by the drop demonstrations: F = max(l, 0)
#: (continuous, not positive). (The length-aware drop uses the registry's ``ssmax``.)
_DROP_FAMILIES = {"relu": False}  # name -> depends on L


def _drop_F(family, param, z):
    return np.maximum(z, 0.0)  # relu


def _F_values(instance):
    family, z = instance["family"], as_float_array(instance["logits"], "logits")
    if family in _DROP_FAMILIES:
        return _drop_F(family, float(instance["param"]), z)
    family, param = _check_family(family, instance["param"])
    return family_normalizer(family, param).F(z)


def _positive(instance):
    return np.all(_F_values(instance) > 0, axis=-1)


def _bounded(instance):
    z = as_float_array(instance["logits"], "logits")
    return np.all(np.abs(z) <= float(instance["a"]), axis=-1)


def _length_independent(instance):
    # A ratio family is a fixed F(l); a length-aware map (scalable softmax, logn) is not.
    family = instance["family"]
    if family in _DROP_FAMILIES:
        aware = _DROP_FAMILIES[family]
    else:
        family, _ = _check_family(family, instance["param"])
        aware = _lookup(family).depends_on_length
    z = as_float_array(instance["logits"], "logits")
    return np.full(z.shape[:-1], not aware, dtype=bool)[()]


def drop_bounded_logits() -> Proof:
    """Unbounded logits: softmax (T = 1), candidate C2 = e² (valid for |l| ≤ 1), L = 16,
    logits (10, 0, …, 0): L·α_1 = 16e¹⁰/(e¹⁰ + 15) > e²."""
    L, gap = 16, 10
    exact = sp.Integer(L) * sp.exp(gap) / (sp.exp(gap) + L - 1)
    C2 = sp.exp(2)
    if (exact - C2).is_positive is not True:
        return Proof(None, "the exact comparison did not go through")
    z = np.zeros(L)
    z[0] = gap
    lhs = float(L * softmax(z)[0])
    return Proof(
        False,
        f"logits outside [-a, a]: softmax, a = 1 gives C2 = e^2 = {float(C2):.4f}, but L = {L} with "
        f"logits (10, 0, ..., 0) has L*alpha_1 = 16 e^10/(e^10 + 15) = {lhs:.4f} > C2; as the gap "
        "grows L*alpha_1 -> L, so no constant independent of L bounds it",
        counterexample={"family": "softmax", "param": 1.0, "a": 1.0, "logits": z},
        lhs=lhs,
        rhs=float(C2),
    )


def _ssmax_growth(s_, a_):
    Ls = sp.Symbol("L", positive=True)
    return Ls / (1 + (Ls - 1) * Ls ** (-2 * s_ * a_)), Ls


def drop_length_independent() -> Proof:
    """Scalable softmax F_L(l) = exp(s·log L·l), s = 1, a = 1: C2 = 4 at L = 2, but at L = 64
    with logits (1, −1, …, −1), L·α_1 = 64/(1 + 63/64²) ≈ 63.0; L·α_1 → ∞ (exact limit)."""
    s_, a_, L0, L = 1, 1, 2, 64
    C2 = sp.exp(2 * s_ * a_ * sp.log(L0))  # e^{2a/T} with 1/T = s log L0
    growth, Ls = _ssmax_growth(sp.Integer(s_), sp.Integer(a_))
    if sp.limit(growth, Ls, sp.oo) != sp.oo or sp.limit(_ssmax_growth(sp.Rational(1, 4), 1)[0], Ls, sp.oo) != sp.oo:
        return Proof(None, "the exact limit did not go through")
    exact = growth.subs(Ls, L)
    z = -np.ones(L)
    z[0] = 1.0
    lhs = float(L * softmax(z, T=1.0 / (s_ * math.log(L)))[0])
    return Proof(
        False,
        f"length-aware F (scalable softmax, s = 1) on bounded logits [-1, 1]: its constant at L = 2 is "
        f"C2 = {float(C2):g}, but at L = {L} with logits (1, -1, ..., -1) L*alpha_1 = {float(exact):.4f}; "
        "in general L*alpha_1 = L/(1 + (L-1) L^(-2sa)) -> oo (grows like L^min(1, 2sa))",
        counterexample={"family": "ssmax", "param": float(s_), "s": float(s_), "a": 1.0, "logits": z},
        lhs=lhs,
        rhs=float(C2),
    )


def drop_positive() -> Proof:
    """F = max(l, 0) on [−1, 1] (continuous, not positive): α_2 = 0 < C1/L for any C1 > 0."""
    L = 16
    z = -np.ones(L)
    z[0] = 1.0
    f = np.maximum(z, 0.0)
    alpha = f / f.sum()
    return Proof(
        False,
        "F = max(l, 0) vanishes on [-1, 0]: logits (1, -1, ..., -1), L = 16 give alpha = (1, 0, ..., 0), "
        "so L*alpha_2 = 0 < C1 for every C1 > 0 and L*alpha_1 = L is unbounded in L",
        counterexample={"family": "relu", "param": 1.0, "F": "max(l, 0)", "a": 1.0, "logits": z},
        lhs=float(L * alpha[1:].min()),
        rhs=None,
    )


def _symbolic_form() -> dict:
    lo, hi = thn.tight_bounds()
    C1L, C2L = thn.loose_bounds()
    return {
        "alpha_lower": C1L,
        "alpha_upper": C2L,
        "tight_lower": lo,
        "tight_upper": hi,
        "C1": thn.m / thn.M,
        "C2": thn.M / thn.m,
    }


_BOTH = dict(strategy=instances, sweep=sweep_instances, rtol=1e-9, atol=1e-12)

CLAIM = Claim(
    id="L1",
    order=1,
    title="Lemma 1: the 1/L limit of length-independent normalization",
    source="arXiv 2508.17821, Lemma 1 (as given by the Spanish summary)",
    statement=(
        "If F is positive and continuous on the logit range [-a, a] and does not depend on L, then "
        "m/(m+(L-1)M) <= alpha_i <= M/(M+(L-1)m) (sharp), hence C1/L <= alpha_i <= C2/L with "
        "C1 = m/M, C2 = M/m independent of L (m, M = min, max of F on [-a, a])."
    ),
    transcription=(
        "For normalizations that do not depend explicitly on L, C1/L <= alpha_i <= C2/L with C1, C2 "
        "independent of L."
    ),
    transcription_latex=r"\frac{C_1}{L} \le \alpha_i \le \frac{C_2}{L}",
    hypotheses=(
        Hypothesis(
            "positive",
            "F is positive and continuous on [-a, a] (m > 0)",
            check=_positive,
            drop=drop_positive,
            # a callable without a SymPy F that declares itself positive: not known (None), as in
            # Lemma 2, rather than "not met"
            admits=lambda N: False if N.sparse or N.positive is False else (None if N.sympy_F is None else True),
        ),
        Hypothesis(
            "bounded-logits",
            "every logit lies in a fixed range [-a, a] (omitted by the summary)",
            check=_bounded,
            drop=drop_bounded_logits,
        ),
        Hypothesis(
            "length-independent",
            "F does not depend on L",
            check=_length_independent,
            drop=drop_length_independent,
            admits=lambda N: not N.depends_on_length,
        ),
    ),
    readings=(
        Reading(
            "transcribed",
            "C1/L <= alpha_i <= C2/L with C1 = m/M, C2 = M/m of F on [-a, a], checked as "
            "max_i |log(L alpha_i)| <= log(M/m)",
            r"\max_i \left|\log(L\alpha_i)\right| \le \log\frac{M}{m}",
            symbolic=_symbolic_transcribed,
            certify=certify_box,
            sides=transcribed_sides,
            bind=_bind_transcribed,
            note="true once bounded logits and positivity (both omitted by the summary) are assumed",
            **_BOTH,
        ),
        Reading(
            "reconstructed",
            "m/(m+(L-1)M) <= alpha_i <= M/(M+(L-1)m), checked in log space as "
            "max_i |log alpha_i - c| <= h with [c-h, c+h] the log of the interval",
            r"\frac{m}{m+(L-1)M} \le \alpha_i \le \frac{M}{M+(L-1)m}",
            symbolic=_symbolic_reconstructed,
            sides=reconstructed_sides,
            bind=_bind_reconstructed,
            note="sharp: one logit at argmax F and the rest at argmin F attains the upper bound (argued on the page, not part "
                 "of the verdict)",
            **_BOTH,
        ),
    ),
    proof=__doc__,
    symbolic_form=_symbolic_form,
    derivations=("L1-constants",),
)
