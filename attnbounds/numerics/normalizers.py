"""Attention normalizers: a zoo of logits → weights maps, user plug-ins, and positive F's.

Two things live here.

**The normalizer zoo** (:func:`get`, :func:`names`, :func:`register`, :func:`load`,
:func:`from_callable`, :func:`from_sympy`). An :class:`Normalizer` maps logits of
shape ``(..., L)`` to weights of the same shape and gives the Jacobian ∂α/∂l of shape
``(..., L, L)`` (``J[..., i, j] = ∂α_i/∂l_j``). Every normalizer takes a temperature ``T``
and is applied to z = l / T, so J(l; T) = J_z(l/T) / T. Length-aware normalizers read
n = L, the number of visible keys (the last axis), or an explicit ``n``.

==================== ================================================ ===========================
name                 weights α(z), z = l/T                             Jacobian ∂α/∂z
==================== ================================================ ===========================
softmax              exp(z_i) / Σ_j exp(z_j)                           diag(α) − ααᵀ
ssmax                softmax(s·log(n)·z)   (Nakanishi 2025)            s·log(n)·(diag(α) − ααᵀ)
logn                 softmax(c(n)·z), c = max(1, log n / log n₀)        c·(diag(α) − ααᵀ)
sparsemax            [z − τ]₊, Σ = 1   (Martins & Astudillo 2016)       diag(s) − ssᵀ/|S|
entmax15             [z/2 − τ]₊², Σ = 1   (Peters et al. 2019)          diag(g) − ggᵀ/Σg, g = √α
entmax               [(a−1)z − τ]₊^{1/(a−1)}, bisection                 diag(g) − ggᵀ/Σg, g = α^{2−a}
sigmoid              σ(z_i − log n)   (rows do not sum to 1)            diag(α(1 − α))
adaptive_temperature softmax(β(H)·z), H = entropy of softmax(z)         chain rule, closed form
==================== ================================================ ===========================

(g is zero off the support S = {i : α_i > 0}.)

``adaptive_temperature`` follows the authors' published listing: H is the Shannon entropy
of softmax(z); when H > 0.5 the inverse temperature is β = max(1, P(H)) with the fitted
quartic P of :data:`ADAPTIVE_POLYNOMIAL`, else β = 1 (it only ever sharpens). One deviation:
H is computed exactly (0·log 0 = 0) instead of with log(p + 1e-9), a difference of O(1e-8).
Its Jacobian includes ∂β/∂z through H (closed form, checked against torch autograd).

>>> w = get("sparsemax").weights([1.0, 0.8, -1.0])
>>> w.round(3)
array([0.6, 0.4, 0. ])
>>> get("softmax").jacobian([0.0, 0.0], T=2.0)
array([[ 0.125, -0.125],
       [-0.125,  0.125]])
>>> get("ssmax").sympy_F
exp(l*s*log(n)/T)

**Ratio-form families** (role ``"family"``): positive F with α_i = F(l_i)/Σ_j F(l_j), built
from the SymPy families of :data:`attnbounds.theory.normalization.FAMILIES` (the single
source of the symbolic forms; same names), used by Lemma 1 / Lemma 2 and
:func:`attnbounds.strategies.normalizer_families`:

============== ============================== =========================================
name           F(l), x = l/T                  searched parameter
============== ============================== =========================================
softmax        exp(x)                         T
softplus       log(1 + e^x)                   (none)
taylor2        1 + x + x²/2                   (none)
even_power     (1 + x²)^p, p > 0              p
sigmoid_ratio  1/(1 + e^{−x})                 (none)
============== ============================== =========================================

Names are unique: ``sigmoid`` is sigmoid *attention* (elementwise, rows do not sum to 1) and
``sigmoid_ratio`` is the ratio form of the same function; ``even_power`` is (1 + l²)^p (the
positive-F catalogue once called it "power", while the theory's "power" was (l + a + c)^p, now
``shifted_power``, positive only on [−a, a] and therefore not a registered normalizer).
:func:`names` filters by role: ``names(role="attention")`` is the matrix's default set,
``names(role="family")`` the ratio families the Lemma 1/2 searches draw.

>>> F = get("taylor2")
>>> F.expr
l**2/2 + l + 1
>>> float(F.F(np.array([-1.0]))[0])
0.5
>>> get("even_power", p=2).expr
(l**2 + 1)**2

References: Martins & Astudillo (2016) sparsemax; Peters, Niculae & Martins (2019) "Sparse
sequence-to-sequence models" (entmax); Nakanishi (2025) "Scalable-Softmax is superior for
attention" (ssmax); Veličković et al. (2024) "softmax is not enough (for sharp
out-of-distribution)", arXiv 2410.01104 (adaptive temperature); Su (2021) / Qwen log-n
attention scaling (logn).
"""

from __future__ import annotations

import importlib.metadata
import math
import numbers
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping

import mpmath
import numpy as np
import sympy as sp
from scipy.special import expit

from attnbounds.numerics.attention import softmax
from attnbounds.numerics.jacobian import finite_difference_jacobian  # the shared central-difference kernel
from attnbounds.numerics.validation import as_float_array, check_temperature, exact_number
from attnbounds.theory import normalization as thn

__all__ = [
    # the one normalizer type and its registry
    "NormalizerNotFound",
    "PluginError",
    "ENTRY_POINT_GROUP",
    "ADAPTIVE_POLYNOMIAL",
    "get",
    "load",
    "resolve",
    "for_argument",
    "names",
    "register",
    "unregister",
    "from_callable",
    "from_sympy",
    "softmax_weights",
    "sparsemax_weights",
    "entmax15_weights",
    "entmax_bisect_weights",
    "Normalizer",
    "ROLES",
    "LOGIT",
]

#: Entry-point group scanned by :func:`load` for third-party normalizers.
ENTRY_POINT_GROUP = "attnbounds.normalizers"

#: Veličković et al. (2024), arXiv 2410.01104, published listing: β = 1/θ is this degree-4
#: polynomial of the Shannon entropy H (highest power first), used when H > 0.5 and
#: clipped below at 1 ("never increase entropy").
ADAPTIVE_POLYNOMIAL: tuple[float, ...] = (-0.037, 0.481, -2.3, 4.917, -1.791)
_ADAPTIVE_ENTROPY_THRESHOLD = 0.5

#: The SymPy symbol every normalizer expression is written in (the theory layer's logit).
LOGIT = thn.l
_T = thn.T
_N = sp.Symbol("n", positive=True)
_S = sp.Symbol("s", positive=True)
_N0 = sp.Symbol("n_0", positive=True)


#: Roles a normalizer can have: ``"attention"`` (an attention map in use; the default set of
#: ``check --matrix`` and the what-if runs) and ``"family"`` (a positive ratio form F whose
#: parameter Lemma 1 / Lemma 2's searches vary).
ROLES: tuple[str, ...] = ("attention", "family")

#: Names that meant different things in different places, and what to use instead.
RENAMED: dict[str, str] = {
    "power": "'even_power' ((1 + l^2)^p); the theory's (l + a + c)^p is FAMILIES['shifted_power']",
    "quadratic": "'taylor2' (1 + l/T + (l/T)^2/2)",
}


class NormalizerNotFound(ValueError, LookupError):
    """No registered name, import path or entry point matches the requested normalizer."""


class PluginError(ValueError):
    """A normalizer (typically a user plug-in) returned invalid weights or Jacobian."""


# --------------------------------------------------------------------------------------
# Kernels (act on z = l / T, last axis = keys; no validation: the public methods validate)
# --------------------------------------------------------------------------------------


def _softmax(z: np.ndarray) -> np.ndarray:
    return softmax(z)  # the one numpy softmax (attnbounds.numerics.attention)


def _softmax_jacobian_from_weights(a: np.ndarray) -> np.ndarray:
    # ∂α_i/∂z_j = α_i (δ_ij − α_j)
    J = -a[..., :, None] * a[..., None, :]  # (..., L, L)
    idx = np.arange(a.shape[-1])
    J[..., idx, idx] += a
    return J


def _support_jacobian(g: np.ndarray) -> np.ndarray:
    # J = diag(g) − g gᵀ / Σ g   (g = 0 off the support)
    J = -g[..., :, None] * g[..., None, :] / g.sum(axis=-1)[..., None, None]  # (..., L, L)
    idx = np.arange(g.shape[-1])
    J[..., idx, idx] += g
    return J


def _sparsemax(z: np.ndarray) -> np.ndarray:
    # Euclidean projection onto the simplex: α = [z − τ]₊ with the sort-based threshold
    # τ = (Σ_{j≤k} z_(j) − 1)/k, k = max{k : 1 + k z_(k) > Σ_{j≤k} z_(j)}.
    z = z - z.max(axis=-1, keepdims=True)
    zs = -np.sort(-z, axis=-1)  # (..., L) descending
    cs = np.cumsum(zs, axis=-1)
    k = np.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    support = 1.0 + k * zs > cs
    kmax = support.sum(axis=-1, keepdims=True)  # ≥ 1 always
    tau = (np.take_along_axis(cs, kmax - 1, axis=-1) - 1.0) / kmax
    return np.maximum(z - tau, 0.0)


def _entmax15(z: np.ndarray) -> np.ndarray:
    # Peters et al. (2019), exact sort-based 1.5-entmax: α = [z/2 − τ]₊², where for the top-k
    # sorted values τ_k = mean_k − sqrt(max(0, (1 − k·var_k)/k)) and k* = #{k : τ_k ≤ z_(k)}.
    x = z / 2.0
    x = x - x.max(axis=-1, keepdims=True)
    xs = -np.sort(-x, axis=-1)  # (..., L)
    rho = np.arange(1, x.shape[-1] + 1, dtype=x.dtype)
    mean = np.cumsum(xs, axis=-1) / rho
    mean_sq = np.cumsum(xs**2, axis=-1) / rho
    ss = rho * (mean_sq - mean**2)
    delta = np.maximum((1.0 - ss) / rho, 0.0)
    tau = mean - np.sqrt(delta)
    kstar = (tau <= xs).sum(axis=-1, keepdims=True)
    tau_star = np.take_along_axis(tau, kstar - 1, axis=-1)
    return np.maximum(x - tau_star, 0.0) ** 2


def _entmax_bisect(z: np.ndarray, alpha: float, n_iter: int = 80) -> np.ndarray:
    # α-entmax: α_i = [(a−1) z_i − τ]₊^{1/(a−1)} with τ chosen so that Σ α_i = 1. After
    # shifting the max to 0 the root lies in [−1, −L^{1−a}] (f ≥ 0 at the left end, ≤ 0 at
    # the right); bisect n_iter times, then renormalize the last iterate. Rows are solved in
    # blocks of ~2^18 entries (cache-sized temporaries).
    L = z.shape[-1]
    flat = z.reshape(-1, L)
    out = np.empty_like(flat)
    block = max(1, 2**18 // L)
    for start in range(0, flat.shape[0], block):
        out[start:start + block] = _entmax_bisect_rows(flat[start:start + block], alpha, n_iter)
    return out.reshape(z.shape)


def _entmax_bisect_rows(z: np.ndarray, alpha: float, n_iter: int) -> np.ndarray:
    x = (alpha - 1.0) * (z - z.max(axis=-1, keepdims=True))  # (rows, L), max is 0
    L = z.shape[-1]
    inv = 1.0 / (alpha - 1.0)
    # Only entries above the left end τ = −1 can ever be in the support: bisect on the top
    # K of each row (K = the largest such count), a small fraction of a long row.
    K = int((x > -1.0).sum(axis=-1).max())
    cand = x if K >= L else -np.partition(-x, K - 1, axis=-1)[..., :K]  # (rows, K)
    lo = np.full((x.shape[0], 1), -1.0)
    width = 1.0 - float(L) ** (1.0 - alpha)
    for _ in range(n_iter):
        width /= 2.0
        mid = lo + width
        f = (np.maximum(cand - mid, 0.0) ** inv).sum(axis=-1, keepdims=True) - 1.0
        lo = np.where(f >= 0, mid, lo)
    p = np.maximum(x - lo, 0.0) ** inv
    return p / p.sum(axis=-1, keepdims=True)


def _length(z: np.ndarray, n) -> np.ndarray | float:
    """n, the number of visible keys: the last axis, or an explicit count per row."""
    if n is None:
        return float(z.shape[-1])
    return np.asarray(n, dtype=float)[..., None] if np.ndim(n) else float(n)


def _ssmax_scale(z, n, s):
    return s * np.log(_length(z, n))  # s · log n


def _logn_scale(z, n, base_length):
    # c(n) = max(1, log n / log n₀): plain softmax up to n₀ keys, sharper beyond
    return np.maximum(1.0, np.log(_length(z, n)) / math.log(base_length))


def _entropy(p: np.ndarray) -> np.ndarray:
    # H = −Σ p log p with 0 log 0 = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0.0).sum(axis=-1)


def _adaptive_beta(z: np.ndarray):
    """β(H) and dβ/dH for the logits z (shape (...,))."""
    p = _softmax(z)
    H = _entropy(p)
    poly = np.polyval(ADAPTIVE_POLYNOMIAL, H)
    dpoly = np.polyval(np.polyder(ADAPTIVE_POLYNOMIAL), H)
    active = (H > _ADAPTIVE_ENTROPY_THRESHOLD) & (poly > 1.0)
    beta = np.where(active, poly, 1.0)
    dbeta = np.where(active, dpoly, 0.0)
    return p, H, beta, dbeta


def _adaptive_weights(z):
    _, _, beta, _ = _adaptive_beta(z)
    return _softmax(beta[..., None] * z)


def _adaptive_jacobian(z):
    # α = softmax(β z), β = β(H(p)), p = softmax(z).
    # ∂α/∂z = J_sm(βz) · (β I + z (∂β/∂z)ᵀ),   ∂β/∂z_j = β'(H) · (−p_j (log p_j + H)).
    p, H, beta, dbeta = _adaptive_beta(z)
    a = _softmax(beta[..., None] * z)
    Js = _softmax_jacobian_from_weights(a)  # (..., L, L)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log(p), 0.0)
    dH = -(plogp + p * H[..., None])  # (..., L)
    dbeta_dz = dbeta[..., None] * dH  # (..., L)
    inner = beta[..., None, None] * np.eye(z.shape[-1]) + z[..., :, None] * dbeta_dz[..., None, :]
    return Js @ inner


# --------------------------------------------------------------------------------------
# Public kernels with validation (thin wrappers)
# --------------------------------------------------------------------------------------


def softmax_weights(logits, T=1.0) -> np.ndarray:
    """Softmax of ``logits / T`` along the last axis.

    >>> softmax_weights([0.0, np.log(3.0)])
    array([0.25, 0.75])
    """
    return get("softmax").weights(logits, T=T)


def sparsemax_weights(logits, T=1.0) -> np.ndarray:
    """Sparsemax of ``logits / T``: the Euclidean projection onto the simplex.

    >>> sparsemax_weights([0.0, 0.5, 3.0])
    array([0., 0., 1.])
    """
    return get("sparsemax").weights(logits, T=T)


def entmax15_weights(logits, T=1.0) -> np.ndarray:
    """Exact 1.5-entmax of ``logits / T``.

    >>> entmax15_weights([0.0, 0.0])
    array([0.5, 0.5])
    """
    return get("entmax15").weights(logits, T=T)


def entmax_bisect_weights(logits, alpha=1.5, T=1.0) -> np.ndarray:
    """α-entmax of ``logits / T`` by bisection (``alpha`` > 1; 2 is sparsemax).

    >>> entmax_bisect_weights([0.0, 0.5, 3.0], alpha=2.0).round(12)
    array([0., 0., 1.])
    """
    return get("entmax").weights(logits, T=T, alpha=alpha)


# --------------------------------------------------------------------------------------
# The normalizer object
# --------------------------------------------------------------------------------------


def _check_real_param(name: str, *, positive=False, minimum=None, exclusive=True, integer=False):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            if np.ndim(value) and name == "n":
                arr = np.asarray(value, dtype=float)
                if not np.all(np.isfinite(arr)) or np.any(arr < 1):
                    raise ValueError(f"{name}: must be >= 1 everywhere")
                return arr
            raise TypeError(f"{name}: must be a real number, got {type(value).__name__}")
        value = float(value)  # a SymPy or Fraction rational too (np.isfinite refused them, unnamed)
        if not np.isfinite(value):
            raise ValueError(f"{name}: must be finite, got {value!r}")
        if positive and value <= 0:
            raise ValueError(f"{name}: must be > 0, got {value!r}")
        if minimum is not None and (value <= minimum if exclusive else value < minimum):
            op = ">" if exclusive else ">="
            raise ValueError(f"{name}: must be {op} {minimum}, got {value!r}")
        if integer and value != int(value):
            raise ValueError(f"{name}: must be an integer, got {value!r}")
        return float(value)

    return check


def _check_n(value):
    if value is None:
        return None
    return _check_real_param("n", minimum=1, exclusive=False)(value)


def _hashable(value):
    return tuple(np.ravel(value).tolist()) if np.ndim(value) else value


def _substitute(sympy_F, values: Mapping[str, Any], length) -> sp.Expr:
    """``sympy_F`` with the parameter ``values`` (exact) and n = ``length`` substituted."""
    subs = {}
    for sym in sympy_F.free_symbols:
        name = sym.name
        if name == "l":
            subs[sym] = LOGIT
        elif name == "n":
            if length is not None:
                subs[sym] = sp.Integer(int(length))
        elif name == "n_0" and values.get("base_length") is not None:
            subs[sym] = exact_number(values["base_length"], "base_length")
        elif values.get(name) is not None:
            subs[sym] = exact_number(values[name], name)
    return sympy_F.subs(subs)


@lru_cache(maxsize=512)
def _lambdified(sympy_F, params: tuple, length, order: int):
    """numpy F (order 0) or F′ (order 1) of ``sympy_F`` at ``params`` (and n = ``length``)."""
    expr = _substitute(sympy_F, dict(params), length)
    return sp.lambdify(LOGIT, sp.diff(expr, LOGIT, order) if order else expr, "numpy")


def _real_values(raw, shape) -> np.ndarray:
    """A lambdified expression's values as float64 of ``shape``, NaN where they are not real: SymPy
    writes log(−e^{l³}) as l³ + iπ, and a cast to float kept l³ (a negative F judged as positive)."""
    a = np.asarray(raw)
    if np.iscomplexobj(a):
        a = np.where(a.imag == 0, a.real, np.nan)
    return np.array(np.broadcast_to(a.astype(float), shape))


def _evaluate_lambdified(fast, slow, z: np.ndarray, args=()) -> np.ndarray:
    """``fast(z, *args)`` (numpy) as real float64 values of z's shape, with each entry numpy
    cannot give (overflow: e^l for l > 709 makes log F = inf) evaluated again by ``slow`` (the
    same expression in mpmath, no exponent range); NaN where it has no real value (the log of a
    non-positive F). ``args``: arrays or numbers broadcast against ``z``."""
    with np.errstate(all="ignore"):
        v = _real_values(fast(z, *args), z.shape)
    bad = ~np.isfinite(v)
    if np.any(bad):
        full = [np.broadcast_to(np.asarray(x, dtype=float), z.shape) for x in args]
        for idx in zip(*np.nonzero(bad)):
            try:
                got = slow(mpmath.mpf(float(z[idx])), *(mpmath.mpf(float(x[idx])) for x in full))
                v[idx] = float(got.real) if isinstance(got, mpmath.mpc) and got.imag == 0 else float(got)
            except (ValueError, TypeError, ZeroDivisionError, OverflowError):
                v[idx] = np.nan
    return v


@lru_cache(maxsize=512)
def _lambdified_log(sympy_F, params: tuple, length, order: int):
    """numpy and mpmath log F (order 0) or (log F)′ (order 1) of ``sympy_F`` at ``params``
    (and n = ``length``): log F rewritten only where SymPy shows it valid for a real logit."""
    expr = _substitute(sympy_F, dict(params), length)
    x = sp.Dummy("l", real=True)
    log_F = sp.expand_log(sp.log(expr.xreplace({LOGIT: x})))
    target = sp.diff(log_F, x) if order else log_F
    return sp.lambdify(x, target, "numpy"), sp.lambdify(x, target, "mpmath")


@dataclass(frozen=True, eq=False)
class Normalizer:
    """A map from logits ``(..., L)`` to attention weights ``(..., L)``, with its Jacobian.

    Parameters
    ----------
    name : str
        Registry name.
    kernel : callable
        ``kernel(z, **params) -> weights`` on z = logits / T (already validated).
    jacobian_kernel : callable or None
        ``jacobian_kernel(z, **params) -> (..., L, L)``, ∂α/∂z; None means central
        finite differences of ``kernel``
        (:func:`attnbounds.numerics.jacobian.finite_difference_jacobian`, ε = 1e-6).
    params : mapping
        Parameter defaults; ``T`` (temperature, default 1) is always present.
    depends_on_length : bool
        The map reads n = L explicitly (breaks Lemma 1's "independent of L").
    sparse : bool
        Weights may be exactly 0 (breaks Lemma 1's "F > 0").
    sums_to_one : bool
        Every row is a probability vector.
    sympy_F : sympy.Expr or None
        F(l, θ) with α_i = F(l_i)/Σ_j F(l_j) where the map has that form, else None; written
        in the raw logit :data:`LOGIT` (the temperature T appears in it).
    ratio_kernels : pair of callables or None
        ``(F(z, **params), F'(z, **params))`` on z = logits / T, numpy, for a ratio form that
        needs care in the tails (softplus); None: lambdified from ``sympy_F``.
    positive : bool or None
        Every weight is > 0 for every finite logit (Lemma 1's "F > 0"); None: ``not sparse``.
    roles : frozenset of str
        Where the normalizer is used by default (see :data:`ROLES`).
    search_param : str or None
        The parameter Lemma 1 / Lemma 2's searches vary (``"T"`` for softmax, ``"p"`` for
        even_power); None: the family has no free parameter.
    checks : mapping
        Parameter name → validator (raises an error naming the parameter).
    validate_output : bool
        Check every output (shape, finite, ≥ 0, rows sum to 1 when declared); on for plug-ins.
    description : str
        One line for listings.
    """

    name: str
    kernel: Callable[..., np.ndarray] = field(repr=False)
    jacobian_kernel: Callable[..., np.ndarray] | None = field(default=None, repr=False)
    params: Mapping[str, Any] = field(default_factory=dict)
    depends_on_length: bool = False
    sparse: bool = False
    sums_to_one: bool = True
    sympy_F: Any = None
    checks: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict, repr=False)
    validate_output: bool = False
    description: str = ""
    ratio_kernels: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]] | None = field(default=None, repr=False)
    positive: bool | None = None
    roles: frozenset = frozenset({"attention"})
    search_param: str | None = None
    #: the parameters it was made with (kept by :meth:`with_params`), so :attr:`spec` can name
    #: the ones set since
    base_params: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    #: where :func:`get` found it when that is not its name: the ``"module:object"``,
    #: ``"path.py:object"`` or entry-point name it was loaded by (None: a registered name, or
    #: an object made in this process), so that :attr:`spec` names what :func:`get` reads back
    source: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name: must be a non-empty string, got {self.name!r}")
        if not callable(self.kernel):
            raise TypeError(f"kernel: must be callable, got {type(self.kernel).__name__}")
        if self.jacobian_kernel is not None and not callable(self.jacobian_kernel):
            raise TypeError(f"jacobian: must be callable or None, got {type(self.jacobian_kernel).__name__}")
        params = dict(self.params)
        params.setdefault("T", 1.0)
        object.__setattr__(self, "params", params)
        if self.base_params is None:
            object.__setattr__(self, "base_params", dict(params))
        checks = dict(self.checks)
        checks.setdefault("T", lambda v: check_temperature(v, "T"))
        object.__setattr__(self, "checks", checks)
        if self.positive is None:
            object.__setattr__(self, "positive", not self.sparse)
        roles = frozenset(self.roles)
        if not roles or not roles <= set(ROLES):
            raise ValueError(f"roles: must be a non-empty subset of {ROLES}, got {sorted(roles)}")
        object.__setattr__(self, "roles", roles)
        if self.search_param is not None and self.search_param not in params:
            raise ValueError(f"search_param: {self.search_param!r} is not a parameter of {self.name!r}")

    # -- parameters ---------------------------------------------------------------------
    def _resolve(self, params: Mapping[str, Any]) -> dict:
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise TypeError(
                f"{unknown[0]}: unknown parameter for normalizer {self.name!r}; "
                f"valid: {', '.join(sorted(self.params))}"
            )
        merged = {**self.params, **params}
        out = {}
        for key, value in merged.items():
            check = self.checks.get(key)
            out[key] = check(value) if check is not None else value
        return out

    def with_params(self, **params) -> "Normalizer":
        """A copy with new parameter defaults (validated).

        >>> get("softmax").with_params(T=0.5).params["T"]
        0.5
        """
        resolved = self._resolve(params)
        return replace(self, params={**self.params, **{k: resolved[k] for k in params}})

    @property
    def spec(self) -> str:
        """The name with the parameters set since it was made, as :func:`get` reads it back
        (the bare name when there are none): rows and counterexamples record it, so that a
        counterexample found under ``ssmax(s=2)`` replays under s = 2.

        A plug-in loaded from ``"module:object"``, ``"path.py:object"`` or an entry point is
        named by that (its :attr:`source`), not by its own ``name``, which :func:`get` does not
        know: ``get("my_norms:softmax1").spec == "my_norms:softmax1"``. An object made in this
        process and never registered (``from_sympy(...)`` passed as itself) has only its name;
        :func:`register` it, or load it by its import path, to make its rows replayable.

        >>> get("ssmax(s=2)").spec, get("ssmax").spec, get("softmax", T=0.5).spec
        ('ssmax(s=2.0)', 'ssmax', 'softmax(T=0.5)')
        >>> get(get("entmax(alpha=2)").spec).params["alpha"]
        2.0
        """
        base = self.base_params or {}
        changed = {k: v for k, v in self.params.items() if k not in base or not _same_value(base[k], v)}
        head = self.source or self.name
        if not changed:
            return head
        return f"{head}({', '.join(f'{k}={v!r}' for k, v in sorted(changed.items()))})"

    def __repr__(self) -> str:
        """The name and the parameters (what a failing Hypothesis example shows), and where
        :func:`get` found it when that is not its name.

        >>> get("even_power", p=0.5)
        Normalizer('even_power', p=0.5, T=1.0)
        """
        params = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if v is not None)
        source = f", source={self.source!r}" if self.source else ""
        return f"Normalizer({self.name!r}{', ' if params else ''}{params}{source})"

    def _repr_pretty_(self, printer, cycle) -> None:  # Hypothesis and IPython: the short repr, not every field
        printer.text(repr(self))

    def _prepare(self, logits, params):
        z = as_float_array(logits, "logits")
        p = self._resolve(params)
        T = p.pop("T")
        if np.ndim(T):
            T = np.asarray(T)[..., None]
        with np.errstate(over="ignore"):
            z = z / T
        if not np.isfinite(z).all():  # every map below would turn inf − inf into NaN
            raise ValueError("logits / T: overflows float64 (|l|/T > 1.8e308); rescale the logits or raise T")
        return z, T, p

    # -- maps ---------------------------------------------------------------------------
    def weights(self, logits, **params) -> np.ndarray:
        """Attention weights for ``logits`` of shape ``(..., L)`` (any leading batch axes).

        >>> get("softmax").weights([[0.0, 0.0], [0.0, np.log(3.0)]])
        array([[0.5 , 0.5 ],
               [0.25, 0.75]])
        >>> get("softmax").weights([0.0, 1.0], T=0)
        Traceback (most recent call last):
        ...
        ValueError: T: must be > 0, got 0
        """
        z, _, p = self._prepare(logits, params)
        w = self.kernel(z, **p)
        if self.validate_output:
            w = self._check_weights(w, z.shape)
        return w

    def jacobian(self, logits, **params) -> np.ndarray:
        """∂α/∂l, shape ``(..., L, L)``, ``J[..., i, j] = ∂α_i/∂l_j`` (n = L held fixed).

        >>> get("sigmoid").jacobian([0.0, 0.0]).round(4)
        array([[0.2222, 0.    ],
               [0.    , 0.2222]])
        """
        z, T, p = self._prepare(logits, params)
        if self.jacobian_kernel is None:
            # n stays the length of the row: the perturbed copies keep the last axis
            J = finite_difference_jacobian(lambda y: self.kernel(y, **p), z)
        else:
            J = np.asarray(self.jacobian_kernel(z, **p), dtype=float)
        if self.validate_output:
            J = self._check_jacobian(J, z.shape)
        if np.ndim(T):
            T = np.asarray(T)[..., None]  # (..., 1, 1)
        return J / T

    __call__ = weights

    # -- the exact ratio form ------------------------------------------------------------
    def ratio_form(self, length: int | None = None) -> sp.Expr | None:
        """F(l) of α_i = F(l_i)/Σ_j F(l_j) with the parameter defaults substituted, in
        :data:`LOGIT`; a length-aware F is read at n = ``length`` (left symbolic if None).
        None when the normalizer has no ratio form.

        >>> get("ssmax").ratio_form(length=4)
        exp(l*log(4))
        """
        if self.sympy_F is None:
            return None
        return _substitute(self.sympy_F, self.params, length)

    @property
    def expr(self) -> sp.Expr | None:
        """The exact ratio form F(l) at the parameter defaults (:meth:`ratio_form`, n symbolic).

        >>> get("softmax", T=0.25).expr
        exp(4*l)
        """
        return self.ratio_form()

    def ratio_derivative(self, length: int | None = None) -> sp.Expr | None:
        """F′(l) as SymPy (see :meth:`ratio_form`); None without a ratio form."""
        F = self.ratio_form(length)
        return None if F is None else sp.diff(F, LOGIT)

    def log_derivative(self, length: int | None = None) -> sp.Expr | None:
        """(log F)′(l) = F′/F as SymPy (see :meth:`ratio_form`); None without a ratio form.

        >>> get("even_power", p=2).log_derivative()
        4*l/(l**2 + 1)
        """
        F = self.ratio_form(length)
        return None if F is None else sp.simplify(sp.diff(F, LOGIT) / F)

    def _ratio_numeric(self, z, order: int) -> np.ndarray:
        z = as_float_array(z, "logits")
        if self.sympy_F is None:
            raise ValueError(f"normalizer: {self.name!r} has no ratio form F(l_i)/sum_j F(l_j)")
        if self.ratio_kernels is not None:
            p = {k: v for k, v in self.params.items() if k != "T"}
            T = float(self.params["T"])
            with np.errstate(over="ignore"):
                out = self.ratio_kernels[order](z / T, **p)
            return np.broadcast_to(np.asarray(out, dtype=float) / T**order, z.shape).copy()
        length = (z.shape[-1] if z.ndim else 1) if "n" in {s.name for s in self.sympy_F.free_symbols} else None
        fn = _lambdified(self.sympy_F, tuple(sorted((k, _hashable(v)) for k, v in self.params.items())), length, order)
        with np.errstate(over="ignore"):
            return np.broadcast_to(np.asarray(fn(z), dtype=float), z.shape).copy()

    def F(self, z) -> np.ndarray:
        """The ratio form F elementwise on logits ``z`` (n = the last axis for a length-aware F)."""
        return self._ratio_numeric(z, 0)

    def dF(self, z) -> np.ndarray:
        """F′ elementwise on logits ``z`` (see :meth:`F`)."""
        return self._ratio_numeric(z, 1)

    def log_ratio(self, z, order: int = 0) -> np.ndarray:
        """log F (``order`` 0) or (log F)′ = F′/F (``order`` 1) elementwise on logits ``z``,
        where F itself leaves float64's range: F = e^{l³} is 0 at l = −10 and ∞ at l = 9, its
        logarithm −1000 and 729. Entries numpy cannot give are evaluated again in mpmath (no
        exponent range); an entry with no real logarithm (F ≤ 0 there) is NaN.

        >>> N = from_sympy(sp.exp(LOGIT**3), LOGIT, name="doctest_cubic")
        >>> N.log_ratio(np.array([-10.0, 9.0])).tolist(), N.log_ratio(np.array([-10.0]), 1).tolist()
        ([-1000.0, 729.0], [300.0])
        """
        if order not in (0, 1):
            raise ValueError(f"order: 0 (log F) or 1 ((log F)′), got {order!r}")
        z = as_float_array(z, "logits")
        if self.sympy_F is None:
            raise ValueError(f"normalizer: {self.name!r} has no ratio form F(l_i)/sum_j F(l_j)")
        length = (z.shape[-1] if z.ndim else 1) if "n" in {s.name for s in self.sympy_F.free_symbols} else None
        fast, slow = _lambdified_log(self.sympy_F, tuple(sorted((k, _hashable(v)) for k, v in self.params.items())),
                                     length, order)
        return _evaluate_lambdified(fast, slow, z)

    # -- output checks (plug-ins) -------------------------------------------------------
    def _check_weights(self, w, shape) -> np.ndarray:
        where = f"normalizer {self.name!r}"
        try:
            w = np.asarray(w, dtype=float)
        except (TypeError, ValueError) as exc:
            raise PluginError(f"{where}: weights are not an array of numbers ({type(w).__name__})") from exc
        if w.shape != tuple(shape):
            raise PluginError(f"{where}: weights have shape {w.shape}, expected {tuple(shape)} (the logits' shape)")
        if not np.all(np.isfinite(w)):
            raise PluginError(f"{where}: weights contain NaN or inf")
        if np.any(w < -1e-12):
            raise PluginError(f"{where}: weights must be non-negative (min {w.min():.3g})")
        if self.sums_to_one:
            sums = w.sum(axis=-1)
            bad = np.abs(sums - 1.0)
            if np.any(bad > 1e-8 * max(1, w.shape[-1])):
                worst = np.ravel(sums)[np.argmax(np.ravel(bad))]
                raise PluginError(
                    f"{where}: rows must sum to 1 (worst row sums to {worst:.6g}); "
                    "declare sums_to_one=False if that is intended"
                )
        return w

    def _check_jacobian(self, J, shape) -> np.ndarray:
        where = f"normalizer {self.name!r}"
        J = np.asarray(J, dtype=float)
        expected = tuple(shape) + (shape[-1],)
        if J.shape != expected:
            raise PluginError(f"{where}: Jacobian has shape {J.shape}, expected {expected}")
        if not np.all(np.isfinite(J)):
            raise PluginError(f"{where}: Jacobian contains NaN or inf")
        return J

    def describe(self) -> dict:
        """A JSON-ready description (no callables).

        >>> get("sparsemax").describe()["sparse"]
        True
        """
        return {
            "name": self.name,
            "description": self.description,
            "params": {k: (v if isinstance(v, (int, float, str, type(None))) else str(v)) for k, v in self.params.items()},
            "depends_on_length": self.depends_on_length,
            "sparse": self.sparse,
            "sums_to_one": self.sums_to_one,
            "sympy_F": None if self.sympy_F is None else str(self.sympy_F),
            "positive": self.positive,
            "roles": sorted(self.roles),
            "search_param": self.search_param,
            "jacobian": "closed form" if self.jacobian_kernel is not None else "finite differences",
        }


# --------------------------------------------------------------------------------------
# Built-in normalizers
# --------------------------------------------------------------------------------------


def _scaled_softmax_jacobian(a, c):
    # α = softmax(c z) ⇒ ∂α/∂z = c (diag α − ααᵀ)
    c = np.asarray(c, dtype=float)
    return _softmax_jacobian_from_weights(a) * (c[..., None] if c.ndim else c)


def _ssmax_weights(z, s, n):
    return _softmax(_ssmax_scale(z, n, s) * z)


def _ssmax_jacobian(z, s, n):
    c = _ssmax_scale(z, n, s)
    return _scaled_softmax_jacobian(_softmax(c * z), c)


def _logn_weights(z, base_length, n):
    return _softmax(_logn_scale(z, n, base_length) * z)


def _logn_jacobian(z, base_length, n):
    c = _logn_scale(z, n, base_length)
    return _scaled_softmax_jacobian(_softmax(c * z), c)


def _sigmoid_weights(z, n):
    # α_i = σ(z_i − log n): the bias −log n keeps the total mass O(1) as n grows
    return expit(z - np.log(_length(z, n)))


def _sigmoid_jacobian(z, n):
    a = _sigmoid_weights(z, n)
    J = np.zeros(a.shape + (a.shape[-1],))
    idx = np.arange(a.shape[-1])
    J[..., idx, idx] = a * (1.0 - a)  # σ' = σ(1 − σ), diagonal
    return J


def _entmax_jacobian(z, alpha):
    a = _entmax_bisect(z, alpha)
    g = np.where(a > 0, np.where(a > 0, a, 1.0) ** (2.0 - alpha), 0.0)  # g_i = α_i^{2−a} on the support
    return _support_jacobian(g)


_REGISTRY: dict[str, Normalizer] = {}
_BUILTIN: tuple[str, ...] = ()


def _builtins() -> list[Normalizer]:
    l = LOGIT
    n_check = {"n": _check_n}
    return [
        Normalizer(
            "softmax",
            _softmax,
            lambda z: _softmax_jacobian_from_weights(_softmax(z)),
            sympy_F=thn.FAMILIES["softmax"].F,
            ratio_kernels=(np.exp, np.exp),
            roles=frozenset(ROLES),
            search_param="T",
            description="softmax with temperature T",
        ),
        Normalizer(
            "ssmax",
            _ssmax_weights,
            _ssmax_jacobian,
            params={"s": 1.0, "n": None},
            checks={"s": _check_real_param("s", positive=True), **n_check},
            depends_on_length=True,
            sympy_F=sp.exp(_S * sp.log(_N) * l / _T),
            description="scalable softmax: softmax(s·log(n)·l/T), n = visible keys",
        ),
        Normalizer(
            "logn",
            _logn_weights,
            _logn_jacobian,
            params={"base_length": 512.0, "n": None},
            checks={"base_length": _check_real_param("base_length", minimum=1.0), **n_check},
            depends_on_length=True,
            sympy_F=sp.exp(sp.Max(1, sp.log(_N) / sp.log(_N0)) * l / _T),
            description="length-dependent temperature T(n) = T / max(1, log n / log n0)",
        ),
        Normalizer(
            "sparsemax",
            _sparsemax,
            lambda z: _support_jacobian((_sparsemax(z) > 0).astype(float)),
            sparse=True,
            description="sparsemax (projection onto the simplex)",
        ),
        Normalizer(
            "entmax15",
            _entmax15,
            lambda z: _support_jacobian(np.sqrt(_entmax15(z))),
            sparse=True,
            description="exact 1.5-entmax",
        ),
        Normalizer(
            "entmax",
            lambda z, alpha: _entmax_bisect(z, alpha),
            _entmax_jacobian,
            params={"alpha": 1.5},
            checks={"alpha": _check_real_param("alpha", minimum=1.0)},
            sparse=True,
            description="alpha-entmax by bisection (alpha > 1)",
        ),
        Normalizer(
            "sigmoid",
            _sigmoid_weights,
            _sigmoid_jacobian,
            params={"n": None},
            checks=n_check,
            depends_on_length=True,
            sums_to_one=False,
            description="sigmoid attention σ(l/T − log n); rows do not sum to 1",
        ),
        Normalizer(
            "adaptive_temperature",
            _adaptive_weights,
            _adaptive_jacobian,
            description="softmax with entropy-adaptive temperature (Veličković et al. 2024)",
        ),
    ]


def names(role: str | None = None) -> tuple[str, ...]:
    """Registered normalizer names (the built-ins, then user registrations), optionally only
    those with ``role`` (see :data:`ROLES`).

    >>> names()[:4]
    ('softmax', 'ssmax', 'logn', 'sparsemax')
    >>> names(role="family")
    ('softmax', 'softplus', 'taylor2', 'even_power', 'sigmoid_ratio')
    """
    if role is None:
        return tuple(_REGISTRY)
    if role not in ROLES:
        raise ValueError(f"role: must be one of {ROLES} or None, got {role!r}")
    return tuple(name for name, N in _REGISTRY.items() if role in N.roles)


def register(name: str, normalizer, *, replace: bool = False) -> Normalizer:
    """Register ``normalizer`` (anything :func:`load` can turn into one) under ``name``.

    >>> _ = register("half_softmax", get("softmax").with_params(T=0.5))
    >>> "half_softmax" in names()
    True
    >>> unregister("half_softmax")
    >>> register("softmax", get("softmax"))
    Traceback (most recent call last):
    ...
    ValueError: name: 'softmax' is already registered (pass replace=True to override)
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w.\-]*", name):
        raise ValueError(f"name: must be an identifier-like string, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"name: {name!r} is already registered (pass replace=True to override)")
    if name in _BUILTIN and replace:
        raise ValueError(f"name: {name!r} is a built-in normalizer and cannot be replaced")
    norm = _coerce(normalizer, name, "normalizer")
    if norm.name != name or norm.source is not None:
        norm = _replace_name(norm, name)
    _REGISTRY[name] = norm
    return norm


def unregister(name: str) -> None:
    """Remove a user registration (built-ins stay).

    >>> unregister("softmax")
    Traceback (most recent call last):
    ...
    ValueError: name: 'softmax' is a built-in normalizer
    """
    if name in _BUILTIN:
        raise ValueError(f"name: {name!r} is a built-in normalizer")
    if name not in _REGISTRY:
        raise NormalizerNotFound(f"name: {name!r} is not registered")
    del _REGISTRY[name]


def _replace_name(norm: Normalizer, name: str) -> Normalizer:
    return replace(norm, name=name, source=None)  # registered: get(name) finds it


_SPEC = re.compile(r"^\s*(?P<base>[^()\s]+)\s*(?:\((?P<args>.*)\))?\s*$")


def _parse_args(text: str, spec: str) -> dict:
    params = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"name_or_spec: cannot parse parameter {part!r} in {spec!r}; write name(key=value, ...)")
        value = value.strip()
        try:
            params[key.strip()] = int(value) if re.fullmatch(r"[+-]?\d+", value) else float(value)
        except ValueError as exc:
            raise ValueError(f"name_or_spec: parameter {key.strip()!r} must be a number, got {value!r}") from exc
    return params


def _entry_point(name: str):
    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for ep in eps:
        if ep.name == name:
            return ep
    return None


def _same_value(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 -- arrays and other values without a plain ==
        return a is b


def get(name_or_spec, **params) -> Normalizer:
    """Resolve a normalizer: a registered name, ``"package.module:object"`` (also found from
    the current directory), ``"path/to/file.py:object"``, an entry point in the group
    ``attnbounds.normalizers``, or an object (a :class:`Normalizer`, a SymPy F in the symbol ``l``, or a numpy callable).
    ``"name(key=value, ...)"`` and keyword arguments set parameter defaults.

    >>> get("entmax(alpha=2)").params["alpha"]
    2.0
    >>> get("softmax", T=0.25).params["T"]
    0.25
    >>> get("nosuch")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    attnbounds.numerics.normalizers.NormalizerNotFound: name_or_spec: unknown normalizer 'nosuch'; ...
    """
    if isinstance(name_or_spec, str):
        m = _SPEC.match(name_or_spec)
        if m is None:
            raise ValueError(f"name_or_spec: cannot parse {name_or_spec!r}")
        base = m.group("base")
        spec_params = _parse_args(m.group("args") or "", name_or_spec)
        norm = _lookup(base)
        params = {**spec_params, **params}
    else:
        norm = _coerce(name_or_spec, getattr(name_or_spec, "name", None) or "plugin", "name_or_spec")
    return norm.with_params(**params) if params else norm


#: :func:`load` is :func:`get`; the name reads better for plug-ins.
load = get

_PROBE_LOGITS = np.array([[0.5, -1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]])


def resolve(spec, *, flag: str = "name_or_spec") -> Normalizer:
    """:func:`get`, then a trial run on two rows of logits; every failure is one
    :class:`ValueError` line that starts with ``flag`` (the option as the user typed it).

    Catches a spec naming a non-normalizer (``os:sep``) or a callable of the wrong kind
    (``numpy:exp``: its rows do not sum to 1) before any heavy work.

    >>> resolve("os:sep", flag="--normalizer")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --normalizer: 'os:sep' is not a normalizer: expected a normalizer, a SymPy expression or a callable, got str
    """
    try:
        norm = get(spec)
    except Exception as exc:  # noqa: BLE001 - a plug-in may raise anything while importing
        text = " ".join(str(exc.args[0] if exc.args else exc).split())
        text = text.removeprefix("name_or_spec: ")
        if isinstance(exc, TypeError) and "unknown parameter" in text:  # "q: unknown parameter for ...": name q
            text = f"{spec!r}: {text.replace(': unknown parameter', ' is an unknown parameter', 1)}"
        elif isinstance(exc, TypeError):
            text = f"{spec!r} is not a normalizer: {text.split(': ', 1)[-1]}"
        raise ValueError(f"{flag}: {text}") from exc
    try:
        norm.weights(_PROBE_LOGITS)
    except Exception as exc:  # noqa: BLE001
        text = " ".join(str(exc).split())
        raise ValueError(f"{flag}: {spec!r} does not work as a normalizer on logits of shape (2, 4): "
                         f"{type(exc).__name__}: {text}") from exc
    return norm


_ARGUMENT = "name_or_spec"


@contextmanager
def for_argument(name: str) -> Iterator[None]:
    """Within it, an error of :func:`get` (or :func:`resolve`) names the argument ``name`` that
    the user passed the normalizer as, instead of :func:`get`'s own ``name_or_spec``, and a
    parameter's error (``"s: must be > 0"``) is put after it; the error keeps its type
    (:class:`NormalizerNotFound`, ``ValueError``, ``TypeError``).

    >>> with for_argument("normalizer"):  # doctest: +ELLIPSIS
    ...     get("nosuch")
    Traceback (most recent call last):
    ...
    attnbounds.numerics.normalizers.NormalizerNotFound: normalizer: unknown normalizer 'nosuch'; ...
    """
    try:
        yield
    except (ValueError, TypeError) as exc:  # NormalizerNotFound and PluginError are ValueErrors
        text = str(exc.args[0]) if len(exc.args) == 1 and isinstance(exc.args[0], str) else None
        if text is None or text.startswith(f"{name}: "):
            raise
        # get's own argument is renamed; any other message (a parameter's, "s: must be > 0") is
        # about the normalizer the user passed as ``name`` too, and says so
        try:
            renamed = type(exc)(f"{name}: {text.removeprefix(f'{_ARGUMENT}: ')}")
        except Exception:  # noqa: BLE001 -- an error type that cannot be rebuilt from its message
            raise exc from exc.__cause__
        raise renamed.with_traceback(exc.__traceback__) from exc.__cause__


def _lookup(base: str) -> Normalizer:
    if base in _REGISTRY:
        return _REGISTRY[base]
    if ":" in base:
        module_name, _, attr = base.rpartition(":")
        module = _import_plugin_module(module_name)
        obj = module
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise NormalizerNotFound(f"name_or_spec: module {module_name!r} has no attribute {attr!r}")
            obj = getattr(obj, part)
        return _with_source(_coerce(obj, base, "name_or_spec"), base)
    ep = _entry_point(base)
    if ep is not None:
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plug-in must not look like a missing one
            raise PluginError(f"entry point {base!r} ({ep.value}) failed to load: {exc}") from exc
        return _with_source(_coerce(obj, base, f"entry point {base!r}"), base)
    if base in RENAMED:
        raise NormalizerNotFound(f"name_or_spec: {base!r} meant two things and was renamed: use {RENAMED[base]}")
    from attnbounds.suggest import did_you_mean

    if base.endswith(".py"):  # trial 51: a file, without the object to take from it
        raise NormalizerNotFound(f"name_or_spec: {base!r} is a file: name the normalizer object in it, as "
                                 f"'{base}:NAME' (NAME: a from_sympy, from_callable or Normalizer object defined there)")
    raise NormalizerNotFound(
        f"name_or_spec: unknown normalizer {base!r}{did_you_mean(base, names(), n=2)}; valid: {', '.join(names())}, "
        f"'module:object', 'path.py:object', or an entry point in group {ENTRY_POINT_GROUP!r}"
    )


def _with_source(norm: Normalizer, source: str) -> Normalizer:
    """``norm`` remembering that :func:`get` found it as ``source`` (so that its :attr:`~Normalizer.spec`,
    which rows and counterexamples record, resolves again), unless that is its name."""
    if norm.name == source or norm.source == source:
        return norm
    return replace(norm, source=source)


def _import_plugin_module(module_name: str):
    """Import ``pkg.module`` or ``path/to/file.py`` through :func:`attnbounds.plugins.import_module_or_file`
    (keyed on the file's content, so an edited plug-in is imported anew), with this module's errors."""
    from attnbounds import plugins

    try:
        return plugins.import_module_or_file(module_name, what="name_or_spec")
    except plugins.PluginNotFound as exc:
        raise NormalizerNotFound(str(exc)) from exc
    except plugins.PluginError as exc:
        raise PluginError(str(exc)) from exc


def _coerce(obj, name: str, what: str) -> Normalizer:
    if isinstance(obj, Normalizer):
        return obj
    if isinstance(obj, sp.Expr):
        ls = [s for s in obj.free_symbols if s.name == "l"]
        if len(ls) != 1:
            raise TypeError(f"{what}: a SymPy expression must contain the logit symbol 'l' (found {sorted(map(str, obj.free_symbols))})")
        return from_sympy(obj, ls[0], name=name)
    if callable(obj):
        return from_callable(obj, name=name)
    raise TypeError(f"{what}: expected a normalizer, a SymPy expression or a callable, got {type(obj).__name__}")


# --------------------------------------------------------------------------------------
# Plug-ins
# --------------------------------------------------------------------------------------


def from_callable(
    func: Callable[..., np.ndarray],
    jacobian: Callable[..., np.ndarray] | None = None,
    *,
    name: str = "plugin",
    params: Mapping[str, Any] | None = None,
    sums_to_one: bool = True,
    sparse: bool = False,
    depends_on_length: bool = False,
    description: str = "",
) -> Normalizer:
    """A normalizer from a numpy callable ``func(z, **params) -> weights`` (z = logits/T).

    ``params`` are ``func``'s own keyword parameters; ``T`` is not one of them: every
    normalizer is applied to logits / T, with T a parameter of its own (``with_params(T=…)``),
    so ``params={"T": …}`` is refused.

    ``jacobian(z, **params)`` returns ∂α/∂z of shape ``(..., L, L)``; without it the
    Jacobian is by central finite differences. Every output is checked (shape, finite,
    non-negative, rows summing to 1 unless ``sums_to_one=False``) and a bad one raises
    :class:`PluginError` naming the normalizer.

    >>> sq = from_callable(lambda z: z**2 / (z**2).sum(-1, keepdims=True), name="square")
    >>> sq.weights([1.0, 1.0])
    array([0.5, 0.5])
    >>> from_callable(lambda z: z, name="identity").weights([1.0, -2.0])
    Traceback (most recent call last):
    ...
    attnbounds.numerics.normalizers.PluginError: normalizer 'identity': weights must be non-negative (min -2)
    """
    if not callable(func):
        raise TypeError(f"func: must be callable, got {type(func).__name__}")
    if jacobian is not None and not callable(jacobian):
        raise TypeError(f"jacobian: must be callable or None, got {type(jacobian).__name__}")
    params = dict(params or {})
    if "T" in params:
        raise ValueError("params: 'T' is reserved (every normalizer is applied to logits / T)")
    return Normalizer(
        name,
        func,
        jacobian,
        params=params,
        depends_on_length=bool(depends_on_length),
        sparse=bool(sparse),
        sums_to_one=bool(sums_to_one),
        validate_output=True,
        description=description or f"plug-in {name}",
    )


def from_sympy(F_expr, l_symbol, *, name: str | None = None, roles=None, search_param: str | None = None,
               **defaults) -> Normalizer:
    """A normalizer α_i = F(l_i) / Σ_j F(l_j) from a positive SymPy expression F.

    Free symbols other than ``l_symbol`` are parameters and need a default in ``defaults``,
    except ``n``, which is the number of visible keys (then the normalizer depends on L).
    ``T`` is reserved. ``roles`` (default ``{"attention"}``) are the places the normalizer is
    used by default once registered (:func:`register`), among :data:`ROLES` (``"family"``: drawn by
    :func:`attnbounds.strategies.normalizer_families` when it is given no ``names``; an object
    passed in its ``names`` is drawn whatever its roles). Weights are computed stably as softmax(log F); the Jacobian is
    J_ij = α_i (δ_ij − α_j) (log F)'(l_j), with (log F)' from ``sympy.diff``.

    ``search_param`` (default None: none) names the parameter that Lemma 1 / Lemma 2's searches
    vary (:attr:`Normalizer.search_param`): ``"T"`` or one of F's own parameters, not ``n``.
    Its default must be > 0 and so must every value it is given later (the searches draw
    positive values and record it as the instance's ``param``).
    :func:`attnbounds.strategies.normalizer_families` draws it from
    :data:`attnbounds.strategies.PARAM_CHOICES` when that lists its default among the values for
    its name (``T`` and ``p``), else as its default times 1/4, 1/2, 1, 2 and 4. A bad
    ``search_param`` is a ``TypeError`` or ``ValueError`` naming it.

    >>> l, b = sp.symbols("l b", real=True)
    >>> N = from_sympy(sp.exp(b * l), l, name="scaled", b=2.0)
    >>> np.allclose(N.weights([0.0, 1.0]), get("softmax").weights([0.0, 2.0]))
    True
    >>> from_sympy(sp.exp(b * l), l)
    Traceback (most recent call last):
    ...
    ValueError: F_expr: free symbol 'b' needs a default value (pass b=...)
    >>> p = sp.Symbol("p", positive=True)
    >>> from_sympy((1 + l**2) ** p, l, name="my_power", p=2.0, search_param="p").search_param
    'p'
    >>> from_sympy((1 + l**2) ** p, l, p=2.0, search_param="q")
    Traceback (most recent call last):
    ...
    ValueError: search_param: 'q' is not a parameter of F = (l**2 + 1)**p; valid: 'T', 'p', or None
    """
    try:
        F = sp.sympify(F_expr)
    except (sp.SympifyError, TypeError) as exc:
        raise TypeError(f"F_expr: expected a SymPy expression, got {type(F_expr).__name__}") from exc
    if not isinstance(l_symbol, sp.Symbol):
        raise TypeError(f"l_symbol: expected a SymPy Symbol, got {type(l_symbol).__name__}")
    if l_symbol not in F.free_symbols:
        raise ValueError(f"l_symbol: {l_symbol} does not occur in F_expr = {F}")
    others = sorted(F.free_symbols - {l_symbol}, key=lambda s: s.name)
    n_sym = next((s for s in others if s.name == "n"), None)
    param_syms = [s for s in others if s is not n_sym]
    for s in param_syms:
        if s.name == "T":
            raise ValueError("F_expr: the symbol 'T' is reserved (every normalizer is applied to logits / T)")
        if s.name not in defaults:
            raise ValueError(f"F_expr: free symbol {s.name!r} needs a default value (pass {s.name}=...)")
    extra = sorted(set(defaults) - {s.name for s in param_syms})
    if extra:
        raise TypeError(f"{extra[0]}: not a free symbol of F_expr = {F}")
    _check_search_param(search_param, [s.name for s in param_syms], defaults, F)
    name = name or f"sympy:{F}"
    # log F is rewritten only where SymPy can show the rewrite is valid for the values the
    # symbols take (a real logit, real parameters, n >= 1): log(e^{b l}) = b l and
    # log((1 + l²)²) = 2 log(1 + l²), but log(u²) stays (2 log u is NaN where u < 0: a
    # forced expand_log rejected F = (sin l - 2)², positive everywhere).
    l_real = sp.Dummy("l", real=True)
    p_real = [sp.Dummy(s.name, real=True) for s in param_syms]
    n_real = sp.Dummy("n", positive=True) if n_sym is not None else None
    args = [l_real, *p_real] + ([n_real] if n_real is not None else [])
    F_real = F.xreplace(dict(zip([l_symbol, *param_syms] + ([n_sym] if n_sym is not None else []), args)))
    log_F = sp.expand_log(sp.log(F_real))
    log_F_num = sp.lambdify(args, log_F, "numpy")
    dlog_F_num = sp.lambdify(args, sp.diff(log_F, l_real), "numpy")
    # Where float64 overflows (e^l for l > 709 makes log F = inf, F'/F = inf/inf), the same
    # expressions are evaluated again, entry by entry, in mpmath (no exponent range limit).
    log_F_mp = sp.lambdify(args, log_F, "mpmath")
    dlog_F_mp = sp.lambdify(args, sp.diff(log_F, l_real), "mpmath")
    F_mp = sp.lambdify(args, F_real, "mpmath")  # F itself: where log F is not finite, is F > 0?
    pnames = [s.name for s in param_syms]

    def _args(z, p):
        vals = [p[k] for k in pnames]
        if n_sym is not None:
            vals.append(_length(z, p["n"]))
        return vals

    def _evaluate(fast, slow, z, p):  # NaN where F <= 0 (log of a non-positive number): reported below
        return _evaluate_lambdified(fast, slow, z, _args(z, p))

    def _F_at(z, p, idx):
        """F itself at entry ``idx`` of ``z`` (mpmath: no overflow), or None where it has no real value."""
        full = [np.broadcast_to(np.asarray(x, dtype=float), z.shape) for x in _args(z, p)]
        try:
            with mpmath.workdps(30):
                value = F_mp(mpmath.mpf(float(z[idx])), *(mpmath.mpf(float(x[idx])) for x in full))
                if isinstance(value, mpmath.mpc):
                    return value.real if value.imag == 0 else None
                return mpmath.mpf(value)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            return None

    def kernel(z, **p):
        v = _evaluate(log_F_num, log_F_mp, z, p)
        for idx in zip(*np.nonzero(~np.isfinite(v))):  # decided by F itself, not by its logarithm
            value = _F_at(z, p, idx)
            if value is not None and mpmath.isfinite(value) and value > 0:
                v[idx] = float(mpmath.log(value))
            else:
                shown = "undefined" if value is None else mpmath.nstr(value, 6)
                raise PluginError(f"normalizer {name!r}: F must be positive and finite, but F(l/T = {z[idx]:.6g}) = "
                                  f"{shown} (F = {F})")
        return _softmax(v)

    def jacobian(z, **p):
        a = kernel(z, **p)
        g = _evaluate(dlog_F_num, dlog_F_mp, z, p)
        return _softmax_jacobian_from_weights(a) * g[..., None, :]  # α_i(δ_ij − α_j)·(log F)'(z_j)

    checks = {k: _check_real_param(k, positive=k == search_param) for k in pnames}
    params = {k: checks[k](defaults[k]) for k in pnames}
    if n_sym is not None:
        params["n"] = None
        checks["n"] = _check_n
    return Normalizer(
        name,
        kernel,
        jacobian,
        params=params,
        checks=checks,
        depends_on_length=n_sym is not None,
        sums_to_one=True,
        sympy_F=F.subs(l_symbol, LOGIT / _T),  # in the raw logit: the kernels act on l/T
        validate_output=True,
        description=f"F = {F}",
        search_param=search_param,
        **({} if roles is None else {"roles": frozenset([roles] if isinstance(roles, str) else roles)}),
    )


def _check_search_param(search_param, pnames: list[str], defaults: Mapping[str, Any], F) -> None:
    """:func:`from_sympy`'s ``search_param``: None, ``"T"`` or a parameter of F with a default > 0."""
    if search_param is None:
        return
    if not isinstance(search_param, str):
        raise TypeError(f"search_param: must be a parameter's name or None, got {type(search_param).__name__}")
    if search_param == "n":
        raise ValueError("search_param: 'n' is the number of visible keys, not a parameter to search")
    if search_param != "T" and search_param not in pnames:
        valid = ", ".join(repr(k) for k in ["T", *pnames])
        raise ValueError(f"search_param: {search_param!r} is not a parameter of F = {F}; valid: {valid}, or None")
    value = defaults.get(search_param, 1.0)  # T's default is 1
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and not value > 0:
        raise ValueError(f"search_param: the searched parameter {search_param!r} must be > 0 (the searches draw "
                         f"positive values), but its default is {value!r}")


def _log_softplus(x):
    # log log(1 + e^x): log(1 + e^x) underflows to 0 for x < -745; there it is x - e^x/2 + O(e^2x)
    with np.errstate(divide="ignore", under="ignore"):
        return np.where(x < -30.0, x - np.exp(np.minimum(x, 0.0)) / 2, np.log(np.logaddexp(0.0, x)))


#: Ratio forms whose numpy F, F′, log F, (log F)′ need care in the tails, on x = l/T (the other
#: families are lambdified from their SymPy F).
_RATIO_NUMPY = {
    "softplus": (
        lambda x: np.logaddexp(0.0, x),  # log(1 + e^x) without overflow
        expit,
        _log_softplus,
        lambda x: np.exp(-np.logaddexp(0.0, -x) - _log_softplus(x)),  # σ(x)/log(1 + e^x); log σ(x) = −log(1 + e^−x) (log of expit underflowed to log 0)
    ),
    "sigmoid_ratio": (
        expit,
        lambda x: expit(x) * expit(-x),
        lambda x: -np.logaddexp(0.0, -x),  # log σ(x)
        lambda x: expit(-x),  # (log σ)′ = 1 − σ
    ),
}


def _ratio_family(name: str) -> Normalizer:
    """The registered normalizer of the theory family ``name`` (F at x = l/T, parameters at 1)."""
    fam = thn.FAMILIES[name]
    extra = {s.name: 1.0 for s in fam.params if s != _T}
    N = from_sympy(fam.F.subs(_T, 1), LOGIT, name=name, **extra)
    numeric = {}
    if name in _RATIO_NUMPY:
        F, dF, logF, dlogF = _RATIO_NUMPY[name]

        def kernel(z):
            return _softmax(logF(z))

        def jacobian(z):
            return _softmax_jacobian_from_weights(kernel(z)) * dlogF(z)[..., None, :]

        numeric = {"kernel": kernel, "jacobian_kernel": jacobian, "ratio_kernels": (F, dF)}
    return replace(
        N,
        checks={**N.checks, **{k: _check_real_param(k, positive=True) for k in extra}},
        validate_output=False,
        roles=frozenset({"family"}),
        search_param=next(iter(extra), None),
        description=f"ratio form F = {fam.description}",
        **numeric,
    )


for _norm in _builtins() + [_ratio_family(k) for k, f in thn.FAMILIES.items() if f.real_line and k != "softmax"]:
    _REGISTRY[_norm.name] = _norm
_BUILTIN = tuple(_REGISTRY)
del _norm
