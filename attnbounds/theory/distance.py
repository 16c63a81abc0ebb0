"""Distance bounds of Theorem 1 and Corollary 2: closed forms, exact identities, witnesses.

Notation (``shared/paper/CLAIMS.md``): weights α over L tokens, I_N the top-N set,
ᾱ_N = Σ_{j∈I_N} α_j, s = Σ_{j∈I_N} α_j x_j, D_i = ‖α_i x_i − s‖₂ and
d̃ = Σ_{i∉I_N} D_i; d_1 = max_{i∉I_N, j∈I_N}‖x_i − x_j‖ (the paper's definition) and
R = max_{j∈I_N}‖x_j‖.

Three derivations are registered:

``T1i``
    the fixed top-N bound. Writing α_i x_i − s as a convex combination of
    α_i(x_i − x_j) − (ᾱ_N − α_i)x_j over j ∈ I_N gives D_i ≤ α_i d_1 + (ᾱ_N − α_i) R, whose
    sum is B = (1 − ᾱ_N) d_1 + R((L − N) ᾱ_N − (1 − ᾱ_N)). It is attained
    (:func:`sharpness_witness`); the transcription is B + (R − 1)(1 − ᾱ_N).
``T1ii``
    the random top-N expectation: P(i ∉ S) = (L − N)/L, E[s_S | i ∉ S] = N/(L − 1)·Σ_{j≠i} α_j x_j,
    the main term M, the Jensen gap ε = E − M ≥ 0 and a variance bound on ε.
``C2``
    the asymptotics: the sandwich |d̃ − (L − N)‖s‖| ≤ (1 − ᾱ_N) d_1, boundedness under
    Lemma 1 with N fixed, and the collapse of per-token distances onto ‖s‖.

>>> from attnbounds.theory.distance import t1_fixed_bounds, L, N, alpha_N, d_1, R
>>> t1_fixed_bounds()["reconstructed"]
R*(alpha_N*(L - N) + alpha_N - 1) + d_1*(1 - alpha_N)
>>> sp.factor(t1_fixed_bounds()["transcribed"] - t1_fixed_bounds()["reconstructed"])
-(R - 1)*(alpha_N - 1)
"""

from __future__ import annotations

import functools
import itertools
import numbers

import numpy as np
import sympy as sp

from attnbounds.theory.derivation import Result, is_identity, register

__all__ = [
    "L",
    "N",
    "alpha_N",
    "d_1",
    "R",
    "C_2",
    "rho",
    "t1_fixed_bounds",
    "sharpness_witness",
    "sharpness_witness_d1_norm",
    "transcription_counterexample_t1i",
    "transcription_counterexample_d1_norm",
    "any_subset_counterexample_t1i",
    "inclusion_probabilities",
    "main_term_coefficients",
    "sampling_variance_factor",
    "corollary2_forms",
    "derive_t1_fixed",
    "t1i_chains",
    "derive_t1_random",
    "derive_corollary2",
]

L, N = sp.symbols("L N", positive=True, integer=True)
alpha_N = sp.Symbol("alpha_N", nonnegative=True)
d_1 = sp.Symbol("d_1", nonnegative=True)
R = sp.Symbol("R", nonnegative=True)
C_2 = sp.Symbol("C_2", positive=True)
rho = sp.Symbol("rho", positive=True)


# ----------------------------------------------------------------------------- Theorem 1 (i)


def t1_fixed_bounds() -> dict[str, sp.Expr]:
    """The fixed top-N bounds of Theorem 1 (i) as SymPy expressions in L, N, ᾱ_N, d_1, R.

    Here d_1 is the paper's: the largest distance between a non-selected and a selected
    embedding, and R = max_{j∈I_N}‖x_j‖.

    ``"reconstructed"`` is (1 − ᾱ_N) d_1 + R((L − N) ᾱ_N − (1 − ᾱ_N)) (proved and sharp);
    ``"transcribed"`` is the summary's formula (1 − ᾱ_N) d_1 + R ᾱ_N (L − N) − (1 − ᾱ_N);
    ``"per_token"`` is the bound α_i d_1 + (ᾱ_N − α_i) R on one D_i (``alpha_i`` a symbol);
    ``"d1_norm"`` is the bound (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R that holds with the *old*
    reading d_1 = max_{i∉I_N}‖x_i‖ (then ``"d1_norm_transcribed"`` is it minus 1 − ᾱ_N).

    >>> b = t1_fixed_bounds()
    >>> sp.factor(b["transcribed"] - b["reconstructed"])
    -(R - 1)*(alpha_N - 1)
    >>> b["transcribed"].subs({L: 2, N: 1, alpha_N: sp.Rational(1, 2), d_1: 1, R: sp.Rational(1, 2)})
    1/4
    """
    alpha_i = sp.Symbol("alpha_i", nonnegative=True)
    reconstructed = (1 - alpha_N) * d_1 + R * ((L - N) * alpha_N - (1 - alpha_N))
    transcribed = (1 - alpha_N) * d_1 + R * alpha_N * (L - N) - (1 - alpha_N)
    d1_norm = (1 - alpha_N) * d_1 + R * alpha_N * (L - N)
    return {
        "reconstructed": reconstructed,
        "transcribed": transcribed,
        "per_token": alpha_i * d_1 + (alpha_N - alpha_i) * R,
        "d1_norm": d1_norm,
        "d1_norm_transcribed": d1_norm - (1 - alpha_N),
    }


def _check_weights(weights) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 2:
        raise ValueError(f"weights: expected a 1-D probability vector with L >= 2, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or abs(w.sum() - 1.0) > 1e-9 * w.size:
        raise ValueError("weights: must be finite, non-negative and sum to 1")
    return w


def _check_n(n, L_: int) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n: must be an integer, got {type(n).__name__}")
    if not 1 <= n < L_:
        raise ValueError(f"n: must satisfy 1 <= n < L = {L_}, got {n}")
    return int(n)


def _check_norm(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name}: must be a finite real >= 0, got {value!r}")
    return float(value)


def _witness(weights, n, selected_value: float, other_value: float, dim) -> dict:
    w = _check_weights(weights)
    n = _check_n(n, w.size)
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1:
        raise ValueError(f"dim: must be an integer >= 1, got {dim!r}")
    selected = np.zeros(w.size, dtype=bool)
    selected[np.argsort(-w, kind="stable")[:n]] = True  # I_N, ties to the lower index
    x = np.zeros((w.size, int(dim)))
    x[:, 0] = np.where(selected, selected_value, other_value)
    return {"weights": w, "x": x, "n": n}


def sharpness_witness(weights, n: int, d1: float = 2.0, radius: float = 1.0, dim: int = 1) -> dict:
    """Embeddings at which Theorem 1 (i)'s reconstructed bound (paper's d_1) holds with equality.

    Every selected token (top-``n`` of ``weights``, ties to the lower index) gets
    x_j = ``radius``·e_1 and every other token x_i = (``radius`` − ``d1``)·e_1. Then every
    selected–non-selected distance is d_1, the largest selected norm is R, s = ᾱ_N R e_1 and
    α_i x_i − s = −(α_i d_1 + (ᾱ_N − α_i) R) e_1, so every D_i equals its bound and
    d̃ = (1 − ᾱ_N) d_1 + R((L − N) ᾱ_N − (1 − ᾱ_N)). The defaults (d_1 = 2, R = 1) put every
    embedding on the unit sphere (x_i = −e_1).

    Returns ``{"weights", "x", "n"}``.

    >>> sharpness_witness([0.5, 0.25, 0.25], 1)["x"].ravel()
    array([ 1., -1., -1.])
    >>> sharpness_witness([0.5, 0.5], 1, d1=0.5, radius=2.0)["x"].ravel()
    array([2. , 1.5])
    """
    d1 = _check_norm(d1, "d1")
    radius = _check_norm(radius, "radius")
    return _witness(weights, n, radius, radius - d1, dim)


def sharpness_witness_d1_norm(weights, n: int, d1: float = 1.0, radius: float = 1.0, dim: int = 1) -> dict:
    """The witness for the *old* reading d_1 = max_{i∉I_N}‖x_i‖: x_j = R e_1 on I_N, x_i = −d_1 e_1.

    It attains (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R, the sharp bound under that reading.

    >>> sharpness_witness_d1_norm([0.5, 0.25, 0.25], 1, d1=3.0)["x"].ravel()
    array([ 1., -3., -3.])
    """
    d1 = _check_norm(d1, "d1")
    radius = _check_norm(radius, "radius")
    return _witness(weights, n, radius, -d1, dim)


def transcription_counterexample_t1i() -> dict:
    """The minimal violation of the transcribed Theorem 1 (i) with the paper's d_1: L = 2, N = 1, d = 1.

    α = (1/2, 1/2), x = (1/2, −1/2): I_N = {0}, d_1 = 1, R = 1/2, s = 1/4,
    d̃ = |−1/4 − 1/4| = 1/2 (the sharp bound), while the transcribed right side is
    (1/2)·1 + (1/2)·(1/2)·1 − 1/2 = 1/4.

    >>> transcription_counterexample_t1i()["x"].ravel()
    array([ 0.5, -0.5])
    """
    return sharpness_witness([0.5, 0.5], 1, 1.0, 0.5, 1)


def transcription_counterexample_d1_norm() -> dict:
    """The minimal violation of the transcription under the old reading of d_1 (L = 2, N = 1).

    α = (1/2, 1/2), x = (1, −1): d̃ = 1 while (1/2)·1 + (1/2)·1 − 1/2 = 1/2 (old d_1 = 1).
    With the paper's d_1 = 2 the same instance gives equality, 1 = 1.

    >>> transcription_counterexample_d1_norm()["x"].ravel()
    array([ 1., -1.])
    """
    return sharpness_witness_d1_norm([0.5, 0.5], 1, 1.0, 1.0, 1)


def any_subset_counterexample_t1i() -> dict:
    """Why the trailing −R(1 − ᾱ_N) needs I_N to hold the largest weights.

    Weights (1/4, 3/4) with the *smaller* weight selected (S = {0}), x = (1, 1): d_1 = 0, R = 1,
    ᾱ = 1/4, D_1 = |3/4 − 1/4| = 1/2, while (1 − ᾱ)d_1 + R((L − N)ᾱ − (1 − ᾱ)) = −1/2.

    >>> any_subset_counterexample_t1i()["selected"]
    [0]
    """
    return {"weights": np.array([0.25, 0.75]), "x": np.array([[1.0], [1.0]]), "selected": [0]}


def summed_t1_bound_checks(bound=None) -> bool:
    """Check, for every number K = L − N of non-selected tokens (K symbolic), that summing the
    per-token bounds α_i d_1 + ᾱ_N R over them gives ``bound`` (default: the reconstructed
    bound (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R), using Σ_{i∉I_N} α_i = 1 − ᾱ_N.

    >>> summed_t1_bound_checks(), summed_t1_bound_checks((1 - alpha_N) * d_1 + 3 * alpha_N * R)
    (True, False)
    """
    from attnbounds.theory.proof import Chain, Context, by

    i = sp.Symbol("i", integer=True)  # K = L − N may be any integer (Karr's reading): no sign
    a = sp.IndexedBase("alpha", nonnegative=True)
    K = L - N
    mass = sp.Sum(a[i], (i, 1, K))
    ctx = Context({"weights sum to 1": sp.Eq(mass, 1 - alpha_N)})
    target = (1 - alpha_N) * d_1 + K * alpha_N * R if bound is None else bound
    start = sp.Sum(a[i] * d_1 + alpha_N * R, (i, 1, K))
    chain = (Chain(start, ctx)
             .eq(d_1 * mass + K * alpha_N * R, by.identity())
             .eq((1 - alpha_N) * d_1 + K * alpha_N * R, by.hypothesis("weights sum to 1")))
    return chain.prove(start, "==", target).complete


@register("T1i", "Theorem 1 (i): fixed top-N distance bound with the paper's d_1, transcription vs sharp bound")
def derive_t1_fixed() -> dict[str, Result]:
    """Closed forms of Theorem 1 (i) (paper's d_1) and the exact facts behind the verdicts.

    * the convex decomposition α_i x_i − s = Σ_{j∈I_N} (α_j/ᾱ_N)[α_i(x_i − x_j) − (ᾱ_N − α_i)x_j]
      (checked coordinatewise with three symbolic selected weights and embeddings);
    * the per-token bound α_i d_1 + (ᾱ_N − α_i) R summed over three symbolic non-selected
      weights gives the reconstructed bound (identity);
    * the witness x_j = R e, x_i = (R − d_1) e: |x_i − x_j| = d_1 and
      D_i = |α_i(R − d_1) − ᾱ_N R| equals the per-token bound when ᾱ_N = α_i + δ, δ ≥ 0;
    * transcribed − reconstructed = (R − 1)(1 − ᾱ_N): the transcription is the sharp bound
      exactly on the unit sphere (R = 1), weaker when R ≥ 1, false when R < 1 and ᾱ_N < 1;
    * the counterexample values d̃ = 1/2 > 1/4, and under the old d_1 reading d̃ = 1 > 1/2.
    """
    b = t1_fixed_bounds()
    # (1) the convex decomposition, N = 3 selected, scalar coordinates (the identity is linear).
    aj = sp.symbols("b1:4", positive=True)
    xj = sp.symbols("y1:4")
    a_i, x_i = sp.symbols("a_i x_i")
    abar = sum(aj)
    s = sum(a * y for a, y in zip(aj, xj))
    decomposition = sum((a / abar) * (a_i * (x_i - y) - (abar - a_i) * y) for a, y in zip(aj, xj))
    if not is_identity(sp.together(decomposition - (a_i * x_i - s)).as_numer_denom()[0]):
        raise AssertionError("T1i: the convex decomposition of alpha_i x_i - s")
    # (2) the sum of the per-token bounds over three non-selected tokens.
    a = sp.symbols("a1:4", nonnegative=True)
    abar_nonsel = 1 - sum(a)
    summed = sum(ai * d_1 + (abar_nonsel - ai) * R for ai in a)
    if not is_identity(summed, b["reconstructed"].subs({alpha_N: abar_nonsel, L: N + 3})):
        raise AssertionError("T1i: the summed per-token bounds do not give the reconstructed bound")
    # (3) the witness attains the per-token bound.
    alpha_i = sp.Symbol("alpha_i", nonnegative=True)
    delta = sp.Symbol("delta", nonnegative=True)  # ᾱ_N − α_i >= 0 for the top-N set
    witness_D = sp.Abs(alpha_i * (R - d_1) - (alpha_i + delta) * R)
    if not is_identity(witness_D, b["per_token"].subs(alpha_N, alpha_i + delta)):
        raise AssertionError("T1i: the witness does not attain the per-token bound")
    if not is_identity(sp.Abs((R - d_1) - R), d_1):
        raise AssertionError("T1i: the witness's selected/non-selected distance is not d_1")
    # (4) the transcription gap and the sphere.
    gap = sp.factor(b["transcribed"] - b["reconstructed"])
    if not is_identity(gap, (R - 1) * (1 - alpha_N)):
        raise AssertionError("T1i: transcription gap")
    if not is_identity(b["transcribed"].subs(R, 1), b["reconstructed"].subs(R, 1)):
        raise AssertionError("T1i: on the unit sphere the transcription is not the sharp bound")
    cx = {L: 2, N: 1, alpha_N: sp.Rational(1, 2), d_1: 1, R: sp.Rational(1, 2)}
    cx_old = {L: 2, N: 1, alpha_N: sp.Rational(1, 2), d_1: 1, R: 1}
    return {
        "bound_reconstructed": Result(b["reconstructed"], note="sharp: attained by sharpness_witness"),
        "bound_transcribed": Result(b["transcribed"], note="= reconstructed + (R - 1)(1 - alpha_N)"),
        "per_token_bound": Result(b["per_token"], note="convex combination of |a_i(x_i - x_j) - (alpha_N - a_i) x_j|"),
        "witness_per_token_distance": Result(
            witness_D, maximizer={"x_selected": "R*e", "x_other": "(R - d_1)*e"},
            note="delta = alpha_N - alpha_i >= 0 (i not selected); equals per_token_bound",
        ),
        "transcription_gap": Result(gap, note="transcribed - reconstructed; >= 0 iff R >= 1 (or alpha_N = 1)"),
        "transcription_on_sphere": Result(sp.expand(b["transcribed"].subs(R, 1)), note="R = 1: equals the sharp bound"),
        "counterexample_d_tilde": Result(
            sp.Rational(1, 2), maximizer={"weights": [0.5, 0.5], "x": [0.5, -0.5], "n": 1}
        ),
        "counterexample_transcribed_rhs": Result(b["transcribed"].subs(cx)),
        "bound_d1_norm": Result(b["d1_norm"], note="old reading d_1 = max_{i not in I_N} |x_i|; sharp there"),
        "counterexample_d1_norm_d_tilde": Result(sp.Integer(1), maximizer={"weights": [0.5, 0.5], "x": [1, -1], "n": 1}),
        "counterexample_d1_norm_rhs": Result(b["d1_norm_transcribed"].subs(cx_old)),
    }


# ----------------------------------------------------------------------------- Theorem 1 (ii)


def inclusion_probabilities() -> dict[str, sp.Expr]:
    """Exact probabilities for a uniform random N-subset S of {1..L}.

    ``"p_excluded"`` = P(i ∉ S) = C(L−1, N)/C(L, N) and ``"p_in_given_excluded"`` =
    P(j ∈ S | i ∉ S) = C(L−2, N−1)/C(L−1, N), both as SymPy ratios of binomials; their
    simplified values are (L − N)/L and N/(L − 1).

    >>> p = inclusion_probabilities()
    >>> p["p_excluded"].subs({L: 7, N: 3}), p["p_in_given_excluded"].subs({L: 7, N: 3})
    (4/7, 1/2)
    """
    return {
        "p_excluded": sp.binomial(L - 1, N) / sp.binomial(L, N),
        "p_in_given_excluded": sp.binomial(L - 2, N - 1) / sp.binomial(L - 1, N),
    }


def main_term_coefficients() -> dict[str, sp.Expr]:
    """Coefficients of the main term M = (L−N)/L · Σ_i ‖(1 + k) α_i x_i − k Σ_j α_j x_j‖, k = N/(L−1).

    >>> main_term_coefficients()["k"]
    N/(L - 1)
    """
    k = N / (L - 1)
    return {"prefactor": (L - N) / L, "k": k, "own": 1 + k}


def sampling_variance_factor(m: int, n: int) -> sp.Rational:
    """f(m, n) with E‖T − E T‖² = f(m, n) · Σ_j ‖y_j − ȳ‖² for T the sum of a uniform n-subset of m vectors.

    f(m, n) = n (m − n) / (m (m − 1)) for m ≥ 2, and 0 when n = m (T is then fixed).

    >>> sampling_variance_factor(4, 2)
    1/3
    >>> sampling_variance_factor(1, 1)
    0
    """
    for value, name in ((m, "m"), (n, "n")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name}: must be an integer, got {type(value).__name__}")
    if not 1 <= n <= m:
        raise ValueError(f"n: must satisfy 1 <= n <= m = {m}, got {n}")
    if n == m:
        return sp.Integer(0)
    return sp.Rational(n * (m - n), m * (m - 1))


m_sym = sp.Symbol("m", integer=True, positive=True)
n_sym = sp.Symbol("n", integer=True, positive=True)


def _verify_variance_factor(m: int, n: int) -> bool:
    # Exact check over all C(m, n) subsets with symbolic scalars y_1..y_m (vectors act coordinatewise).
    y = sp.symbols(f"y1:{m + 1}")
    subsets = list(itertools.combinations(range(m), n))
    mean_T = sp.Rational(n, m) * sum(y)
    second = sum((sum(y[j] for j in S) - mean_T) ** 2 for S in subsets) / len(subsets)
    ybar = sum(y) / m
    return is_identity(second, sampling_variance_factor(m, n) * sum((yj - ybar) ** 2 for yj in y))


def variance_factor_checks(factor=None) -> bool:
    """Prove for all m ≥ 2 and 1 ≤ n ≤ m (symbolic) that a uniform n-subset sum T = Σ_j I_j y_j
    of m scalars has E(T − ET)² = f(m, n) Σ_j (y_j − ȳ)² with f = n(m − n)/(m(m − 1))
    (or the given ``factor``).

    With p = P(j ∈ S) = C(m−1, n−1)/C(m, n) and q = P(j, k ∈ S) = C(m−2, n−2)/C(m, n):
    E(T − ET)² = (p − p²) Σ y_j² + (q − p²) Σ_{j≠k} y_j y_k, and Σ_{j≠k} y_j y_k = Y² − Q with
    Y = Σ y_j, Q = Σ y_j²; Σ (y_j − ȳ)² = Q − Y²/m. Both sides are then identities in
    (m, n, Y, Q), which the kernel checks (vectors act coordinatewise).

    >>> variance_factor_checks(), variance_factor_checks(n_sym * (m_sym - n_sym) / m_sym**2)
    (True, False)
    """
    from attnbounds.theory.proof import Chain, Context, by

    m, n, Y, Q = m_sym, n_sym, sp.Symbol("Y"), sp.Symbol("Q")
    f = n * (m - n) / (m * (m - 1)) if factor is None else factor
    p = sp.combsimp(sp.binomial(m - 1, n - 1) / sp.binomial(m, n))
    q = sp.combsimp(sp.binomial(m - 2, n - 2) / sp.binomial(m, n))
    if not (is_identity(p, n / m) and is_identity(q, n * (n - 1) / (m * (m - 1)))):
        return False
    variance = (p - p**2) * Q + (q - p**2) * (Y**2 - Q)
    chain = Chain(variance, Context()).eq(f * (Q - Y**2 / m), by.identity())
    return chain.prove(variance, "==", f * (Q - Y**2 / m)).complete


@register("T1ii", "Theorem 1 (ii): random N-subset expectation, main term and Jensen gap")
def derive_t1_random() -> dict[str, Result]:
    """Exact pieces of E_S[d̃] for a uniform random N-subset S.

    E_S[d̃] = Σ_i P(i∉S)·E[‖α_i x_i − s_S‖ | i∉S]. Proved exactly here:

    * P(i∉S) = (L − N)/L and P(j∈S | i∉S) = N/(L − 1) (binomial ratios, after ``combsimp``,
      confirmed by ``expand``);
    * y_i − k(Σ_j y_j − y_i) = (1 + k) y_i − k Σ_j y_j, the algebra turning the conditional
      mean into the main term's vector;
    * the sampling-without-replacement variance factor, by enumeration for m ≤ 5.

    Jensen (the norm is convex) then gives E ≥ M, and the triangle inequality plus
    Cauchy–Schwarz give ε ≤ (L−N)/L Σ_i √(f(L−1, N) Σ_{j≠i} ‖α_j x_j − ȳ_{−i}‖²).
    """
    p = inclusion_probabilities()
    excl = sp.combsimp(p["p_excluded"])
    cond = sp.combsimp(p["p_in_given_excluded"])
    if not is_identity(excl, (L - N) / L) or not is_identity(cond, N / (L - 1)):
        raise AssertionError("T1ii: inclusion probabilities")
    y_i, total, k = sp.symbols("y_i Y k")
    if not is_identity(y_i - k * (total - y_i), (1 + k) * y_i - k * total):
        raise AssertionError("T1ii: main-term algebra")
    if not variance_factor_checks():
        raise AssertionError("T1ii: variance factor (all m, n)")
    for m in range(2, 6):  # and, independently, by enumerating every subset
        for n in range(1, m + 1):
            if not _verify_variance_factor(m, n):
                raise AssertionError(f"T1ii: variance factor m={m}, n={n}")
    c = main_term_coefficients()
    m_, n_ = sp.symbols("m n", positive=True, integer=True)
    return {
        "p_excluded": Result(excl, note="P(i not in S) = C(L-1,N)/C(L,N)"),
        "p_in_given_excluded": Result(cond, note="P(j in S | i not in S) = C(L-2,N-1)/C(L-1,N)"),
        "main_term_prefactor": Result(c["prefactor"]),
        "main_term_own_coefficient": Result(c["own"], note="coefficient of alpha_i x_i"),
        "main_term_context_coefficient": Result(-c["k"], note="coefficient of sum_j alpha_j x_j"),
        "variance_factor": Result(n_ * (m_ - n_) / (m_ * (m_ - 1)), note="proved for all m >= 2; enumerated for m <= 5"),
        "transcription_counterexample_E": Result(
            sp.Integer(0), maximizer={"weights": [0.5, 0.5], "x": [1, 1], "n": 1}, note="E_S[d~] at L=2, N=1"
        ),
        "transcription_counterexample_main": Result(
            sp.Rational(1, 2) * 2 * sp.Abs(sp.Rational(1, 2) + 1 - 1), note="transcribed main term, any x-bar"
        ),
    }


# ----------------------------------------------------------------------------- Corollary 2


def corollary2_forms() -> dict[str, sp.Expr]:
    """Asymptotic forms behind Corollary 2 (symbols L, N, C_2, R, d_1, rho).

    * ``"bound_L1"``: the T1 bound with ᾱ_N ≤ N C_2 / L (Lemma 1) and d_1 ≤ R,
      R + (L − N) N C_2 R / L, bounded in L;
    * ``"family_equal"``: d̃ for uniform weights and x_i = e for all i, (L − N)|N − 1|/L;
    * ``"family_equal_proportional"``: the same with N = ρL;
    * ``"spread_fixed"`` and ``"spread_proportional"``: the relative spread
      max_i |D_i/‖s‖ − 1| for uniform weights and the antiparallel witness (x_j = e on I_N,
      x_i = −e off it), 1/N with N fixed and 1/(ρL) with N = ρL.

    >>> sp.limit(corollary2_forms()["bound_L1"] / L, L, sp.oo)
    0
    """
    bound_L1 = R + (L - N) * N * C_2 * R / L
    return {
        "bound_L1": bound_L1,
        "family_equal": (L - N) * sp.Abs(N - 1) / L,
        "family_equal_proportional": (L - rho * L) * (rho * L - 1) / L,
        "spread_fixed": 1 / N,
        "spread_proportional": 1 / (rho * L),
    }


@register("C2", "Corollary 2: orders in L under Lemma 1 (fixed N) and with N = rho*L")
def derive_corollary2() -> dict[str, Result]:
    """Limits and orders that decide Corollary 2.

    * With N fixed and Lemma 1 (α_i ≤ C_2/L), d̃ ≤ R + (L−N) N C_2 R / L → R (1 + N C_2):
      d̃ = O(1), so d̃ / L → 0 and no linear growth follows (nor can occur).
    * With N = ρL, uniform weights and equal embeddings give d̃ / L → ρ(1 − ρ) > 0: the total
      distance does not collapse.
    * With N = L − 1 (N/L → 1), the same family gives d̃ = (L − 2)/L → 1: the distance does
      not go to 0 as N/L → 1.
    * What collapses with N = ρL is the spread of the per-token distances around ‖s‖:
      |D_i − ‖s‖| ≤ α_i ‖x_i‖ ≤ C_2 R / L, so max_i |D_i/‖s‖ − 1| → 0 whenever L‖s‖ → ∞;
      for the antiparallel family it is 1/(ρL) → 0, versus 1/N with N fixed.
    """
    f = corollary2_forms()
    lim_bound = sp.limit(f["bound_L1"], L, sp.oo)
    lim_bound_over_L = sp.limit(f["bound_L1"] / L, L, sp.oo)
    lim_prop_over_L = sp.limit(f["family_equal_proportional"] / L, L, sp.oo)
    lim_spread_prop = sp.limit(f["spread_proportional"], L, sp.oo)
    last_out = sp.simplify(f["family_equal"].subs(N, L - 1).subs(sp.Abs(L - 2), L - 2))  # L >= 2
    T1_prop = t1_fixed_bounds()["d1_norm"].subs({N: rho * L, alpha_N: rho * C_2, d_1: R})
    return {
        "sandwich": Result(
            sp.Abs(sp.Symbol("d_tilde") - (L - N) * sp.Symbol("norm_s")) - (1 - alpha_N) * d_1,
            note="<= 0 always: | |a_i x_i - s| - |s| | <= a_i |x_i|",
        ),
        "bound_L1": Result(f["bound_L1"], note="T1 with alpha_N <= N C_2/L, d_1 <= R"),
        "limit_bound_L1": Result(lim_bound, note="d~ = O(1) for fixed N under Lemma 1"),
        "limit_bound_L1_over_L": Result(lim_bound_over_L, note="no linear growth under Lemma 1"),
        "family_equal_fixed_N1": Result(f["family_equal"].subs(N, 1), note="d~ = 0 for every L"),
        "limit_family_proportional_over_L": Result(lim_prop_over_L, note="d~/L -> rho(1-rho): no collapse"),
        "family_last_out": Result(last_out, note="d~ with N = L - 1 (one token left out), uniform weights, x_i = e"),
        "limit_family_last_out": Result(sp.limit(last_out, L, sp.oo), note="N/L -> 1 but d~ -> 1, not 0"),
        "T1_bound_proportional_over_L": Result(
            sp.limit(T1_prop / L, L, sp.oo), note="T1 bound with N = rho L, alpha_N = rho C_2: linear"
        ),
        "spread_fixed": Result(f["spread_fixed"]),
        "limit_spread_proportional": Result(lim_spread_prop, note="per-token distances collapse onto |s|"),
    }


# ----------------------------------------------------------------------------- checked chains (Theorem 1 (i))


def _selected():
    """The selected tokens of Theorem 1 (i)'s chains, for any N: their index t = 1..N, weights
    w_t ≥ 0 normalized among them (w_t = α_t/ᾱ_N, Σ_t w_t = 1) and embeddings y_t, the weighted
    mean c = Σ_t w_t y_t (so s = ᾱ_N c), and the stated bounds ‖y_t‖ ≤ R (R's definition) and
    ‖x − y_t‖ ≤ d_1 for a non-selected x (d_1's definition)."""
    from attnbounds.theory.proof import Norm, vector

    t = sp.Symbol("t", integer=True, positive=True)
    N = sp.Symbol("N", integer=True, positive=True)
    w = sp.IndexedBase("w", nonnegative=True)
    y = sp.IndexedBase("y", commutative=False)
    xi, c = vector("x_i c")
    mean = sp.Sum(w[t] * y[t], (t, 1, N))
    hyps = {"mean": sp.Eq(c, mean), "normalized-selected": sp.Eq(sp.Sum(w[t], (t, 1, N)), 1),
            "R": sp.Le(Norm(y[t]), R), "d_1": sp.Le(Norm(xi - y[t]), d_1)}
    return {"t": t, "N": N, "w": w, "y": y, "x_i": xi, "c": c, "mean": mean, "hyps": hyps}


def _centroid_chains():
    """The ball lemma for any N: ‖c‖ ≤ R and ‖x_i − c‖ ≤ d_1 for the weighted mean
    c = Σ_t w_t y_t of the selected embeddings (triangle inequality over the N terms, then
    ‖y_t‖ ≤ R and ‖x_i − y_t‖ ≤ d_1 term by term, and Σ_t w_t = 1)."""
    from attnbounds.theory.proof import Chain, Context, Norm, by

    S = _selected()
    t, N, w, y, xi, c, mean = (S[k] for k in ("t", "N", "w", "y", "x_i", "c", "mean"))
    ctx = Context(S["hyps"])
    total = sp.Sum(w[t], (t, 1, N))
    norm_c = (
        Chain(Norm(c), Context({k: v for k, v in S["hyps"].items() if k != "d_1"}))  # (it needs no d_1)
        .eq(Norm(mean), by.hypothesis("mean"))
        .le(sp.Sum(Norm(w[t] * y[t]), (t, 1, N)), by.triangle_sum(t, 1, N))
        .le(sp.Sum(w[t] * R, (t, 1, N)), by.termwise(t, 1, N))
        .eq(R * total, by.identity())
        .eq(R, by.hypothesis("normalized-selected"))
    ).prove(Norm(c), "<=", R)
    dist = (
        Chain(Norm(xi - c), ctx)
        .eq(Norm(xi - mean), by.hypothesis("mean"))
        .eq(Norm(total * xi - mean), by.hypothesis("normalized-selected"))
        .eq(Norm(sp.Sum(w[t] * (xi - y[t]), (t, 1, N))), by.identity())
        .le(sp.Sum(Norm(w[t] * (xi - y[t])), (t, 1, N)), by.triangle_sum(t, 1, N))
        .le(sp.Sum(w[t] * d_1, (t, 1, N)), by.termwise(t, 1, N))
        .eq(d_1 * total, by.identity())
        .eq(d_1, by.hypothesis("normalized-selected"))
    ).prove(Norm(xi - c), "<=", d_1)
    return norm_c, dist


@functools.lru_cache(maxsize=1)
def t1i_chains() -> dict:
    """Checked chains (:mod:`attnbounds.theory.proof`) behind Theorem 1 (i).

    * ``"per_token"``: for a non-selected token with weight α_i and δ ≥ 0, with
      c = Σ_t w_t y_t the weighted mean of the selected embeddings (w_t = α_t/ᾱ_N):
      ‖α_i x_i − (α_i + δ) c‖ ≤ α_i d_1 + δ R, from the lemmas ‖x_i − c‖ ≤ d_1 and ‖c‖ ≤ R;
    * ``"centroid_norm"``, ``"centroid_distance"``: those two lemmas for any N (the triangle
      inequality over the N terms, ‖y_t‖ ≤ R and ‖x_i − y_t‖ ≤ d_1 term by term, Σ_t w_t = 1);
    * ``"sum"``: d̃ = Σ_{i=1}^{K} D(i) ≤ (1 − ᾱ_N) d_1 + R(K ᾱ_N − (1 − ᾱ_N)), K = L − N, each
      D(i) = ‖a(i) X(i) − ᾱ_N c‖ an instance of ``"per_token"`` (δ = ᾱ_N − a(i) ≥ 0 by the lemma
      a(i) ≤ N a(i) = Σ_t a(i) ≤ Σ_t ᾱ_N w_t = ᾱ_N from top-N, a(i) ≤ α_t for every selected t),
      and Σ a(i) = 1 − ᾱ_N (any K and N);
    * ``"sphere"``: with R = 1 the same sum is the transcribed formula;
    * ``"R_ge_1"``: the sharp bound is at most the transcribed formula when R ≥ 1 (with the
      non-selected mass m = 1 − ᾱ_N ≥ 0, the gap is (R − 1) m);
    * ``"witness"``: x_i = (R − d_1) e, c = R e, ‖e‖ = 1 give ‖α_i x_i − ᾱ_N c‖ = α_i d_1 + δ R exactly;
    * ``"witness_R"``, ``"witness_d1"``: the witness has the stated R and d_1 (‖R e‖ = R,
      ‖(R − d_1)e − R e‖ = d_1);
    * ``"witness_sum"``: every D(i) equal to its bound (an instance of ``"witness"``) makes d̃
      equal to the sharp bound (Σ α(i) = 1 − ᾱ_N);
    * ``"d1_norm"``: the old reading, ‖α_i x_i − ᾱ_N c‖ ≤ α_i‖x_i‖ + ᾱ_N‖c‖ ≤ α_i d_1 + ᾱ_N R;
    * ``"d1_norm_sum"``: summed (each term an instance), d̃ ≤ (1 − ᾱ_N) d_1 + K ᾱ_N R.

    Every value is a :class:`~attnbounds.theory.proof.ChainCheck`.

    >>> all(c.complete for c in t1i_chains().values())
    True
    """
    from attnbounds.theory.proof import Chain, Context, Lemma, Norm, by, vector

    S = _selected()
    xi, c = S["x_i"], S["c"]
    a_i, delta = sp.symbols("alpha_i delta", nonnegative=True)
    e = vector("e")
    B = a_i + delta  # ᾱ_N = α_i + δ with δ ≥ 0: I_N holds the largest weights
    norm_c, dist = _centroid_chains()
    ctx = Context({**S["hyps"], "centroid-distance": Lemma(dist.chain, Norm(xi - c), "<=", d_1),
                   "centroid-norm": Lemma(norm_c.chain, Norm(c), "<=", R)})
    lhs = Norm(a_i * xi - B * c)
    per_token_chain = (
        Chain(lhs, ctx)
        .eq(Norm(a_i * (xi - c) - delta * c), by.identity())
        .le(Norm(a_i * (xi - c)) + Norm(-delta * c), by.triangle(a_i * (xi - c), -delta * c))
        .eq(a_i * Norm(xi - c) + delta * Norm(c), by.identity())
        .le(a_i * d_1 + delta * R, by.algebra())
    )
    per_token = per_token_chain.prove(lhs, "<=", a_i * d_1 + delta * R)

    # summed over the K = L − N non-selected tokens i, each an instance of the per-token theorem
    # (rule instance: α_i → a(i), δ → ᾱ_N − a(i) ≥ 0 by top-N, x_i → X(i)), D(i) = ‖a(i) X(i) − ᾱ_N c‖
    i = sp.Symbol("i", integer=True, positive=True)
    K = sp.Symbol("K", integer=True, positive=True)  # K = L − N non-selected tokens
    a, D = sp.Function("a", real=True), sp.Function("D")
    X = sp.Function("X", commutative=False)  # the non-selected embeddings
    m = sp.Symbol("m", nonnegative=True)  # the non-selected mass 1 − ᾱ_N
    Bs = alpha_N
    sigma = {a_i: a(i), delta: Bs - a(i), xi: X(i)}
    hyps = S["hyps"]
    t, N, w = S["t"], S["N"], S["w"]
    # top-N: every non-selected weight is at most every selected one, α_i ≤ α_t = ᾱ_N w_t; so
    # α_i ≤ N α_i = Σ_t α_i ≤ Σ_t ᾱ_N w_t = ᾱ_N (N ≥ 1, α_i ≥ 0): the lemma δ = ᾱ_N − α_i ≥ 0
    top_n = {"weights": sp.Ge(a(i), 0), "top-N": sp.Le(a(i), Bs * w[t]),
             "normalized-selected": hyps["normalized-selected"]}
    below = (Chain(a(i), Context(top_n))
             .le(N * a(i), by.algebra())
             .eq(sp.Sum(a(i), (t, 1, N)), by.identity())
             .le(sp.Sum(Bs * w[t], (t, 1, N)), by.termwise(t, 1, N))
             .eq(Bs * sp.Sum(w[t], (t, 1, N)), by.identity())
             .eq(Bs, by.hypothesis("normalized-selected")))
    delta_lemma = Lemma(below, a(i), "<=", Bs)
    sum_ctx = Context(
        {
            "distance": sp.Eq(D(i), Norm(a(i) * X(i) - Bs * c)),  # D_i = ‖α_i x_i − s‖, s = ᾱ_N c
            **top_n,
            "top-N-mass": delta_lemma,
            "mean": hyps["mean"], "normalized-selected": hyps["normalized-selected"], "R": hyps["R"],
            "d_1": sp.Le(Norm(X(i) - S["y"][S["t"]]), d_1),
            "normalized": sp.Eq(sp.Sum(a(i), (i, 1, K)), 1 - Bs),
        }
    )
    per_token_thm = Lemma(per_token_chain, lhs, "<=", a_i * d_1 + delta * R)
    bound_i = a(i) * d_1 + (Bs - a(i)) * R
    term = (Chain(D(i), sum_ctx).eq(Norm(a(i) * X(i) - Bs * c), by.hypothesis("distance"))
            .le(bound_i, by.instance(per_token_thm, sigma)))
    goal = (1 - Bs) * d_1 + R * (K * Bs - (1 - Bs))
    summed = (
        Chain(sp.Sum(D(i), (i, 1, K)), sum_ctx)
        .le(sp.Sum(bound_i, (i, 1, K)), by.termwise(i, 1, K, term=term))
        .eq(d_1 * sp.Sum(a(i), (i, 1, K)) + R * (K * Bs - sp.Sum(a(i), (i, 1, K))), by.identity())
        .eq(d_1 * (1 - Bs) + R * (K * Bs - (1 - Bs)), by.hypothesis("normalized"))
    )
    sum_check = summed.prove(sp.Sum(D(i), (i, 1, K)), "<=", goal)
    transcribed = (1 - Bs) * d_1 + R * Bs * K - (1 - Bs)
    sphere_ctx = Context({**sum_ctx.hypotheses, "unit-sphere": sp.Eq(R, 1)})
    sphere = type(summed)(summed.start, sphere_ctx, summed.steps).eq(
        (1 - Bs) * d_1 + 1 * (K * Bs - (1 - Bs)), by.hypothesis("unit-sphere")
    ).eq(transcribed.subs(R, 1), by.identity())
    sphere_check = sphere.prove(sp.Sum(D(i), (i, 1, K)), "<=", transcribed.subs(R, 1))
    r_ctx = Context({**sum_ctx.hypotheses, "R>=1": sp.Ge(R, 1), "mass": sp.Eq(alpha_N, 1 - m)})
    r_chain = (
        type(summed)(summed.start, r_ctx, summed.steps)
        .eq(goal.subs(alpha_N, 1 - m), by.hypothesis("mass"))
        .le(transcribed.subs(alpha_N, 1 - m), by.algebra())
        .eq(transcribed, by.hypothesis("mass"))
    )
    r_check = r_chain.prove(sp.Sum(D(i), (i, 1, K)), "<=", transcribed)

    w_ctx = Context({"unit": sp.Eq(Norm(e), 1)})
    w_lhs = Norm((a_i * (R - d_1) - B * R) * e)  # α_i x_i − s with x_i = (R − d_1)e, s = ᾱ_N R e
    witness_chain = (
        Chain(w_lhs, w_ctx)
        .eq((a_i * d_1 + delta * R) * Norm(e), by.identity())
        .eq(a_i * d_1 + delta * R, by.hypothesis("unit"))
    )
    witness = witness_chain.prove(w_lhs, "==", a_i * d_1 + delta * R)
    # the witness has the stated R and d_1: ‖x_j‖ = ‖R e‖ = R on I_N and ‖x_i − x_j‖ = ‖(R − d_1)e − R e‖ = d_1
    witness_R = (Chain(Norm(R * e), w_ctx).eq(R * Norm(e), by.identity()).eq(R, by.hypothesis("unit"))
                 ).prove(Norm(R * e), "==", R)
    witness_d1 = (Chain(Norm((R - d_1) * e - R * e), w_ctx).eq(d_1 * Norm(e), by.identity())
                  .eq(d_1, by.hypothesis("unit"))).prove(Norm((R - d_1) * e - R * e), "==", d_1)

    # the witness summed: every D(i) equals its bound (an instance of the witness), so d~ equals
    # B (needs sum alpha = 1 - alpha_N)
    witness_thm = Lemma(witness_chain, w_lhs, "==", a_i * d_1 + delta * R)
    ws_ctx = Context({"witness": sp.Eq(D(i), Norm((a(i) * (R - d_1) - Bs * R) * e)),  # x_i = (R − d_1)e, s = ᾱ_N R e
                      **top_n, "top-N-mass": delta_lemma, "unit": sp.Eq(Norm(e), 1),
                      "normalized": sp.Eq(sp.Sum(a(i), (i, 1, K)), 1 - Bs)})
    ws_term = (Chain(D(i), ws_ctx).eq(Norm((a(i) * (R - d_1) - Bs * R) * e), by.hypothesis("witness"))
               .eq(bound_i, by.instance(witness_thm, {a_i: a(i), delta: Bs - a(i)})))
    witness_sum = (
        Chain(sp.Sum(D(i), (i, 1, K)), ws_ctx)
        .eq(sp.Sum(bound_i, (i, 1, K)), by.termwise(i, 1, K, term=ws_term))
        .eq(d_1 * sp.Sum(a(i), (i, 1, K)) + R * (K * Bs - sp.Sum(a(i), (i, 1, K))), by.identity())
        .eq(d_1 * (1 - Bs) + R * (K * Bs - (1 - Bs)), by.hypothesis("normalized"))
    ).prove(sp.Sum(D(i), (i, 1, K)), "==", goal)

    # the old reading d_1 = max_{i∉I_N} ‖x_i‖ (not the pairwise distance): with s = ᾱ_N c,
    # ‖α_i x_i − s‖ ≤ α_i‖x_i‖ + ᾱ_N‖c‖ ≤ α_i d_1 + ᾱ_N R (‖c‖ ≤ R: the ball lemma's centroid-norm)
    old_hyps = {k: v for k, v in hyps.items() if k != "d_1"}
    old_ctx = Context({**old_hyps, "d1-norm": sp.Le(Norm(xi), d_1),
                       "centroid-norm": Lemma(norm_c.chain, Norm(c), "<=", R)})
    old_lhs = Norm(a_i * xi - Bs * c)
    old_chain = (
        Chain(old_lhs, old_ctx)
        .le(Norm(a_i * xi) + Norm(-Bs * c), by.triangle(a_i * xi, -Bs * c))
        .eq(a_i * Norm(xi) + Bs * Norm(c), by.identity())
        .le(a_i * d_1 + Bs * R, by.termwise(pairs=[(a_i * Norm(xi), a_i * d_1), (Bs * Norm(c), Bs * R)]))
    )
    old = old_chain.prove(old_lhs, "<=", a_i * d_1 + Bs * R)
    # the old reading summed over the K non-selected tokens, each an instance (α_i → a(i), x_i → X(i))
    old_thm = Lemma(old_chain, old_lhs, "<=", a_i * d_1 + Bs * R)
    os_ctx = Context({"distance": sp.Eq(D(i), Norm(a(i) * X(i) - Bs * c)), "weights": sp.Ge(a(i), 0), **old_hyps,
                      "d1-norm": sp.Le(Norm(X(i)), d_1), "normalized": sp.Eq(sp.Sum(a(i), (i, 1, K)), 1 - Bs)})
    os_term = (Chain(D(i), os_ctx).eq(Norm(a(i) * X(i) - Bs * c), by.hypothesis("distance"))
               .le(a(i) * d_1 + Bs * R, by.instance(old_thm, {a_i: a(i), xi: X(i)})))
    old_goal = (1 - Bs) * d_1 + K * Bs * R
    old_sum = (
        Chain(sp.Sum(D(i), (i, 1, K)), os_ctx)
        .le(sp.Sum(a(i) * d_1 + Bs * R, (i, 1, K)), by.termwise(i, 1, K, term=os_term))
        .eq(d_1 * sp.Sum(a(i), (i, 1, K)) + K * Bs * R, by.identity())
        .eq(d_1 * (1 - Bs) + K * Bs * R, by.hypothesis("normalized"))
    ).prove(sp.Sum(D(i), (i, 1, K)), "<=", old_goal)
    return {
        "per_token": per_token,
        "centroid_norm": norm_c,
        "centroid_distance": dist,
        "sum": sum_check,
        "sphere": sphere_check,
        "R_ge_1": r_check,
        "witness": witness,
        "witness_R": witness_R,
        "witness_d1": witness_d1,
        "witness_sum": witness_sum,
        "d1_norm": old,
        "d1_norm_sum": old_sum,
    }
