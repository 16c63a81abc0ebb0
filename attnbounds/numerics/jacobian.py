"""Jacobians ∂α/∂l of normalized attention weights, and fast norms of the softmax Jacobian.

For a positive normalizer F and Σ = Σ_k F(l_k), the weights α_i = F(l_i)/Σ have

    ∂α_i/∂l_j = (δ_ij F'(l_i) Σ − F(l_i) F'(l_j)) / Σ²,   i.e.  J = (diag F' − α F'ᵀ) / Σ.

For softmax with temperature T (F = e^{l/T}, F' = F/T) this is J = (diag α − α αᵀ)/T, and
its norms have closed forms that avoid forming J (S₂ = Σ α², S₃ = Σ α³):

* max entry      max(max_i α_i(1 − α_i), α_(1) α_(2)) / T   (diagonal vs off-diagonal);
* row i          ‖J_i‖₂² = α_i² ((1 − α_i)² + S₂ − α_i²) / T²;
* Frobenius      ‖J‖_F² = (S₂ − 2 S₃ + S₂²) / T²;
* spectral       λ_max(diag α − α αᵀ) / T, the largest root of the secular equation
  1 = Σ_j α_j² / (α_j − λ), which lies in [α_(2), α_(1)] (α_(1) ≥ α_(2) the two largest).

The secular equation: det(D − λ − a aᵀ) = det(D − λ)·(1 − aᵀ(D − λ)⁻¹a) with D = diag α,
a = α; diag α − α αᵀ is positive semidefinite (a covariance), so its spectral norm is its
largest eigenvalue, which interlaces as α_(2) ≤ λ_max ≤ α_(1).

>>> nrm = softmax_jacobian_norms([0.0, 0.0])
>>> float(nrm.max_entry), float(nrm.spectral), float(nrm.frobenius)
(0.25, 0.5, 0.5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from attnbounds.numerics.attention import softmax, softmax_jacobian  # noqa: F401  (softmax_jacobian: doctests)
from attnbounds.numerics.validation import as_float_array, check_distribution, check_temperature

__all__ = [
    "FD_SCHEMES",
    "SoftmaxJacobianNorms",
    "normalizer_weights",
    "normalizer_jacobian",
    "finite_difference_jacobian",
    "softmax_jacobian_norms",
    "dense_jacobian_norms",
    "largest_eigenvalue_diag_minus_outer",
]

#: Schemes accepted by :func:`finite_difference_jacobian`.
FD_SCHEMES: tuple[str, ...] = ("central", "forward", "backward")

# Rows × L elements processed at once by the row solvers (keeps temporaries in cache).
_CHUNK_ELEMENTS = 1 << 16


def _apply(F, z: np.ndarray, name: str) -> np.ndarray:
    if not callable(F):
        raise TypeError(f"{name}: must be callable, got {type(F).__name__}")
    out = np.asarray(F(z), dtype=np.float64)
    if out.shape != z.shape:
        raise ValueError(f"{name}: must act elementwise; returned shape {out.shape} for logits of shape {z.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name}: returned NaN or inf on the given logits")
    return out


def _normalizer_values(F, logits):
    z = as_float_array(logits, "logits")
    f = _apply(F, z, "F")
    if np.any(f <= 0):
        raise ValueError(f"F: must be > 0 on the given logits (min {f.min():.3g})")
    return z, f


def normalizer_weights(F: Callable, logits) -> np.ndarray:
    """α_i = F(l_i) / Σ_j F(l_j) along the last axis, batched.

    >>> normalizer_weights(np.exp, [0.0, 0.0])
    array([0.5, 0.5])
    >>> normalizer_weights(lambda z: z, [1.0, -1.0])
    Traceback (most recent call last):
    ...
    ValueError: F: must be > 0 on the given logits (min -1)
    """
    _, f = _normalizer_values(F, logits)
    return f / f.sum(axis=-1, keepdims=True)


def normalizer_jacobian(F: Callable, dF: Callable, logits) -> np.ndarray:
    """J_ij = ∂α_i/∂l_j = (δ_ij F'(l_i) Σ − F(l_i) F'(l_j)) / Σ², shape ``(..., L, L)``.

    >>> normalizer_jacobian(np.exp, np.exp, [0.0, 0.0])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    """
    z, f = _normalizer_values(F, logits)
    df = _apply(dF, z, "dF")
    S = f.sum(axis=-1)[..., None, None]  # Σ, (..., 1, 1)
    J = -f[..., :, None] * df[..., None, :]  # −F(l_i) F'(l_j), (..., L, L)
    idx = np.arange(z.shape[-1])
    J[..., idx, idx] += df * S[..., 0]  # + δ_ij F'(l_i) Σ
    return J / S**2


def finite_difference_jacobian(func: Callable, logits, eps: float = 1e-6, scheme: str = "central") -> np.ndarray:
    """Finite-difference Jacobian ∂func_i/∂l_j of a batched function, shape ``(..., M, L)``.

    ``func`` maps ``(..., L)`` to ``(..., M)`` and must accept extra leading dimensions: all
    L perturbed copies are evaluated in one call on an array of shape ``(..., L, L)``.
    ``scheme`` is ``"central"`` ((f(l + εe_j) − f(l − εe_j))/2ε, error O(ε²)),
    ``"forward"`` or ``"backward"`` (error O(ε)).

    >>> J = finite_difference_jacobian(softmax, [0.0, 0.0])
    >>> np.allclose(J, [[0.25, -0.25], [-0.25, 0.25]])
    True
    """
    z = as_float_array(logits, "logits")
    if not callable(func):
        raise TypeError(f"func: must be callable, got {type(func).__name__}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)) or not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps: must be a finite number > 0, got {eps!r}")
    if scheme not in FD_SCHEMES:
        raise ValueError(f"scheme: must be one of {FD_SCHEMES}, got {scheme!r}")
    L = z.shape[-1]
    step = eps * np.eye(L)  # row j is ε e_j, (L, L)
    base = z[..., None, :]  # (..., 1, L)

    def call(arg):
        out = np.asarray(func(arg), dtype=np.float64)
        if out.shape[:-1] != arg.shape[:-1]:
            raise ValueError(f"func: must map (..., L) to (..., M); got shape {out.shape} for input {arg.shape}")
        return out  # (..., L, M): row j is func at the j-th perturbation

    # divide by the steps as represented, not by ε: at |l_j| = 1e4 a step of 1e-6 is stored to
    # about 1.8e-12, a relative error of 1e-6 that ε alone would pass on to the derivative
    plus, minus = (base + step, base - step) if scheme != "forward" else (base + step, base + 0 * step)
    if scheme == "backward":
        plus = base + 0 * step
    width = np.diagonal(plus - minus, axis1=-2, axis2=-1)[..., :, None]  # (..., L, 1): 2ε or ε, as stored
    diff = (call(plus) - call(minus)) / width
    return np.swapaxes(diff, -1, -2)  # (..., M, L)


@dataclass(frozen=True)
class SoftmaxJacobianNorms:
    """Norms of a Jacobian (J = (diag α − α αᵀ)/T for softmax) for each batch element (arrays
    of the batch shape): max |J_ij|, max_i ‖J_i,:‖₂, ‖J‖₂ and ‖J‖_F."""

    max_entry: np.ndarray
    max_row: np.ndarray
    spectral: np.ndarray
    frobenius: np.ndarray

    def as_dict(self) -> dict[str, np.ndarray]:
        return {"max_entry": self.max_entry, "max_row": self.max_row, "spectral": self.spectral, "frobenius": self.frobenius}


def dense_jacobian_norms(J) -> SoftmaxJacobianNorms:
    """The four norms of any Jacobians ``J`` of shape ``(..., L, L)`` (any normalizer's
    :meth:`~attnbounds.numerics.normalizers.Normalizer.jacobian`), from the dense matrices; for
    softmax :func:`softmax_jacobian_norms` gets them without forming J.

    >>> n = dense_jacobian_norms([[0.25, -0.25], [-0.25, 0.25]])
    >>> float(n.max_entry), float(n.spectral), float(n.frobenius)
    (0.25, 0.5, 0.5)
    """
    J = as_float_array(J, "J", min_ndim=2)
    if J.shape[-1] != J.shape[-2]:
        raise ValueError(f"J: expected square matrices (..., L, L), got shape {J.shape}")
    return SoftmaxJacobianNorms(
        np.abs(J).max(axis=(-2, -1)),
        np.linalg.norm(J, axis=-1).max(axis=-1),
        np.linalg.norm(J, ord=2, axis=(-2, -1)),
        np.linalg.norm(J, axis=(-2, -1)),
    )


def _top_two_and_rest(a: np.ndarray):
    """α_(1), α_(2) and 1 − α_(1) computed as the sum of the other weights (no cancellation)."""
    L = a.shape[-1]
    if L == 1:
        zero = np.zeros(a.shape[:-1])
        return a[..., 0], zero, zero
    imax = np.argmax(a, axis=-1)[..., None]
    a1 = np.take_along_axis(a, imax, axis=-1)[..., 0]
    others = np.where(np.arange(L) == imax, -np.inf, a)
    a2 = others.max(axis=-1)
    rest = np.where(np.arange(L) == imax, 0.0, a).sum(axis=-1)  # 1 − α_(1) = Σ_{j≠(1)} α_j
    return a1, a2, rest


def largest_eigenvalue_diag_minus_outer(weights, *, max_iter: int = 100) -> np.ndarray:
    """λ_max(diag α − α αᵀ) for probability vectors α along the last axis, batched.

    Write α_(1) for the largest weight and p(λ) = Σ_{j≠(1)} α_j/(λ − α_j). The secular
    equation 1 = Σ_j α_j²/(α_j − λ) reduces (using α_j² = α_j(α_j − λ) + λα_j and Σα_j = 1)
    to λ·(α_(1)/(α_(1) − λ) − p(λ)) = 0, so λ_max > 0 is the root of

        φ(λ) = α_(1) − λ − α_(1)/p(λ),

    which decreases from α_(1) − α_(2) > 0 to −α_(1)/p(α_(1)) < 0 on (α_(2), α_(1)) and has no
    pole there. Rayleigh quotients (e_i) and Gershgorin discs give m ≤ λ_max ≤ 2m with
    m = max_i α_i(1 − α_i), so the root is bracketed in [max(α_(2), m), min(α_(1), 2m)] and
    found by Newton steps safeguarded by geometric bisection. Special cases: α_(1) = α_(2)
    gives λ_max = α_(1) (eigenvector e_(1) − e_(2)); a vertex (α_(2) = 0) gives 0.

    >>> float(largest_eigenvalue_diag_minus_outer([0.5, 0.5]))
    0.5
    >>> float(largest_eigenvalue_diag_minus_outer([1.0, 0.0]))
    0.0
    >>> a = np.array([0.7, 0.2, 0.1])
    >>> bool(np.isclose(largest_eigenvalue_diag_minus_outer(a), np.linalg.eigvalsh(np.diag(a) - np.outer(a, a))[-1], rtol=1e-14))
    True
    """
    a = check_distribution(weights)  # the reduction to φ uses Σ_j α_j = 1
    flat = a.reshape(-1, a.shape[-1])  # (B, L)
    out = np.empty(flat.shape[0])
    step = max(1, _CHUNK_ELEMENTS // flat.shape[1])
    for start in range(0, flat.shape[0], step):  # chunks of rows stay in cache
        out[start : start + step] = _largest_eigenvalue_rows(flat[start : start + step], max_iter)
    return out.reshape(a.shape[:-1])


def _largest_eigenvalue_rows(a: np.ndarray, max_iter: int) -> np.ndarray:
    # a: (B, L) probability vectors; see largest_eigenvalue_diag_minus_outer.
    a1, a2, rest = _top_two_and_rest(a)
    not_top = np.arange(a.shape[-1]) != np.argmax(a, axis=-1)[:, None]
    one_minus = np.where(a == a1[:, None], rest[:, None], 1.0 - a)  # stable 1 − α_i
    m = (a * one_minus).max(axis=-1)  # max_i α_i(1 − α_i), the largest diagonal entry
    result = np.where(a1 == a2, a1, 0.0)  # ties give α_(1); a vertex (α_(2) = 0) gives 0
    idx = np.flatnonzero((a1 > a2) & (a2 > 0))  # rows still being solved
    b = np.where(not_top, a, 0.0)[idx]  # the weights other than α_(1)
    a1 = a1[idx]
    lo = np.maximum(a2[idx], m[idx])
    hi = np.minimum(a1, 2.0 * m[idx])
    lam = hi.copy()
    tol = 4 * np.finfo(np.float64).eps
    tiny = np.finfo(np.float64).tiny
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(max_iter):
            if idx.size == 0:
                break
            diff = lam[:, None] - b  # λ − α_j > 0 for j ≠ (1) inside the bracket
            diff = np.where(diff > 0, diff, tiny)
            ratio = b / diff
            p = ratio.sum(axis=-1)  # p(λ) > 0, decreasing
            dp = -(ratio / diff).sum(axis=-1)  # p'(λ); dividing twice avoids underflow of diff²
            phi = a1 - lam - a1 / p  # φ(λ)
            dphi = -1.0 + a1 * dp / (p * p)  # φ'(λ) < 0
            lo = np.where(phi > 0, lam, lo)
            hi = np.where(phi < 0, lam, hi)
            newton = lam - phi / dphi
            done = (phi == 0) | (np.abs(newton - lam) <= tol * lam) | (hi - lo <= tol * hi)
            result[idx[done]] = np.where(phi == 0, lam, np.clip(newton, lo, hi))[done]
            inside = (newton > lo) & (newton < hi)
            lam = np.where(inside, newton, np.sqrt(lo) * np.sqrt(hi))  # Newton or geometric bisection
            keep = ~done
            idx, b, a1, lo, hi, lam = idx[keep], b[keep], a1[keep], lo[keep], hi[keep], lam[keep]
    result[idx] = lam  # not converged within max_iter: the last iterate
    return result


def softmax_jacobian_norms(logits, T=1.0) -> SoftmaxJacobianNorms:
    """Max entry, max row 2-norm, spectral and Frobenius norms of ∂softmax(l/T)/∂l, batched.

    ``logits`` is ``(..., L)``; ``T`` is a number or an array of the batch shape ``(...)``
    (or ``(..., 1)``), one temperature per row.

    Uses the closed forms in the module docstring; J itself is never formed.

    >>> nrm = softmax_jacobian_norms([[0.0, 0.0, 0.0], [5.0, 0.0, 0.0]], T=2.0)
    >>> np.allclose(nrm.spectral, [np.linalg.norm(softmax_jacobian(r, 2.0), 2) for r in ([0., 0, 0], [5., 0, 0])])
    True
    """
    z = as_float_array(logits, "logits")
    T = check_temperature(T)
    Tb = np.asarray(T, dtype=np.float64)
    if Tb.ndim:
        # One temperature per batch element: T has the batch shape (...) or (..., 1).
        batch = z.shape[:-1]
        if Tb.ndim == z.ndim and Tb.shape[-1] == 1:
            Tb = Tb[..., 0]
        try:
            ok = np.broadcast_shapes(Tb.shape, batch) == batch
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"T: shape {np.shape(T)} does not broadcast to the batch shape {batch} (one T per row)")
        z = z / Tb[..., None]
    a = softmax(z, 1.0 if Tb.ndim else T)
    flat = a.reshape(-1, a.shape[-1])  # (B, L)
    out = np.empty((4, flat.shape[0]))
    step = max(1, _CHUNK_ELEMENTS // flat.shape[1])
    for start in range(0, flat.shape[0], step):  # chunks of rows stay in cache
        out[:, start : start + step] = _softmax_jacobian_norm_rows(flat[start : start + step], max_iter=100)
    max_entry, max_row, spectral, frob = (v.reshape(a.shape[:-1]) / Tb for v in out)
    return SoftmaxJacobianNorms(max_entry, max_row, spectral, frob)


def _softmax_jacobian_norm_rows(a: np.ndarray, max_iter: int):
    # a: (B, L) probability vectors; returns T·(max entry, max row, spectral, Frobenius).
    a1, a2, rest = _top_two_and_rest(a)
    is_max = a == a1[:, None]
    one_minus = np.where(is_max, rest[:, None], 1.0 - a)  # 1 − α_i, accurate also near a vertex
    not_top = np.arange(a.shape[-1]) != np.argmax(a, axis=-1)[:, None]
    s2 = (a * a).sum(axis=-1)  # S₂ ≥ 1/L², no underflow
    # ‖α_{−(1)}‖₂ = sqrt(Σ_{j≠(1)} α_j²), scaled by α_(2) so that tiny weights do not underflow.
    scale = np.where(a2 > 0, a2, 1.0)
    top_others = scale * np.sqrt(((np.where(not_top, a, 0.0) / scale[:, None]) ** 2).sum(axis=-1))
    # sqrt(Σ_{j≠i} α_j²): S₂ − α_i² cancels only at the largest weight, which uses top_others.
    others = np.where(is_max, top_others[:, None], np.sqrt(np.maximum(s2[:, None] - a * a, 0.0)))
    rows = a * np.hypot(one_minus, others)  # ‖J_i‖₂·T = α_i·sqrt((1 − α_i)² + Σ_{j≠i} α_j²)
    max_entry = np.maximum((a * one_minus).max(axis=-1), a1 * a2)  # diagonal vs α_(1)α_(2)
    rmax = rows.max(axis=-1)
    # ‖J‖_F² = Σ_i ‖J_i‖² = (S₂ − 2S₃ + S₂²)/T², summed row by row (scaled) to avoid cancellation.
    rscale = np.where(rmax > 0, rmax, 1.0)
    frob = rscale * np.sqrt(((rows / rscale[:, None]) ** 2).sum(axis=-1))
    spectral = _largest_eigenvalue_rows(a, max_iter)
    return max_entry, rmax, spectral, frob

