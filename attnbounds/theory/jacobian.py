"""Lemma 2: the Jacobian of a normalizer, its bounds, and the sharp softmax constants.

For α_i = F(l_i) / Σ_k F(l_k) with F > 0 differentiable, write g = F'/F = (log F)'. Then

    ∂α_i/∂l_j = α_i (δ_ij − α_j) g(l_j),   i.e.   J = (diag α − α αᵀ) · diag g = Σ(α) · D_g.

Σ(α) = diag α − α αᵀ is the covariance matrix of the one-hot vector drawn with probabilities α:
symmetric, positive semi-definite (xᵀΣx = Σα_i x_i² − (Σα_i x_i)² is a variance) with trace
1 − Σα_i². On the simplex its sharp suprema (over all α and all L) are

* entry       max |Σ_ij|     = 1/4      at α = (1/2, 1/2), any entry of the 2×2 block;
* row         max ‖Σ_i,:‖₂   = √2/4     at α = (1/2, 1/2);
* spectral    ‖Σ‖₂           = 1/2      at α = (1/2, 1/2) (eigenvector (1, −1));
* frobenius   ‖Σ‖_F          = 1/2      at α = (1/2, 1/2).

With G = sup |g| on the logit range, |J_ij| ≤ G/4, ‖J_i,:‖₂ ≤ √2 G/4, ‖J‖₂ ≤ G/2, ‖J‖_F ≤ G/2
(J = Σ D_g and ‖D_g‖₂ ≤ G); softmax has g ≡ 1/T, so J = Σ/T and the four suprema are
1/(4T), √2/(4T), 1/(2T), 1/(2T), which also shows the generic constants are the best possible
in terms of G alone.

Each inequality is certified by an exact identity (``expand(lhs − rhs) == 0``) that writes the
gap as a sum of terms that are visibly non-negative on the simplex.
"""

from __future__ import annotations

import sympy as sp

from attnbounds.theory.derivation import Result, is_identity, register
from attnbounds.theory.normalization import FAMILIES, T, a, c, l, p

__all__ = [
    "G",
    "SECONDARY_BOUND",
    "SECONDARY_THRESHOLD",
    "SOFTMAX_SUPREMA",
    "normalized_weights",
    "jacobian_closed_form",
    "check_generic_jacobian",
    "check_softmax_jacobian",
    "covariance_matrix",
    "prove_entry_bound",
    "prove_row_bound",
    "prove_spectral_bound",
    "prove_frobenius_bound",
    "check_power_sum_identities",
    "maximizer_values",
    "family_log_derivative_sup",
    "secondary_form_judgement",
    "FINITE_DIFFERENCE_BOUND",
    "prove_simplex_diameter",
    "paper_form_bounds",
    "prove_paper_form_bounds",
    "derive_generic",
    "derive_softmax",
]

#: G = sup |(log F)'| on the logit range.
G = sp.Symbol("G", positive=True)
#: The secondary source's form ‖∇_l α‖₂ ≤ min{1/(4T), √2}.
SECONDARY_BOUND = sp.Min(1 / (4 * T), sp.sqrt(2))
#: 1/(4T) = √2 exactly at T = √2/8; below it the min is √2.
SECONDARY_THRESHOLD = sp.sqrt(2) / 8

#: Corollary 3, finite-difference reading: ‖α(l + εv) − α(l)‖₂/ε ≤ min{1/(2T), √2/ε} (unit v).
EPS = sp.Symbol("epsilon", positive=True)
FINITE_DIFFERENCE_BOUND = sp.Min(1 / (2 * T), sp.sqrt(2) / EPS)

#: Sharp suprema over all logits and all L of the four readings, for J = (diag α − ααᵀ)/T.
SOFTMAX_SUPREMA: dict[str, sp.Expr] = {
    "entry": 1 / (4 * T),
    "row": sp.sqrt(2) / (4 * T),
    "spectral": 1 / (2 * T),
    "frobenius": 1 / (2 * T),
}


def _check_length(L) -> int:
    if isinstance(L, bool) or not isinstance(L, int) or L < 1:
        raise ValueError(f"L: must be an integer >= 1, got {L!r}")
    return L


def normalized_weights(F, L: int):
    """Logit symbols l_1..l_L and weights α_i = F(l_i)/Σ_k F(l_k) for a callable ``F``.

    >>> ls, al = normalized_weights(sp.exp, 2)
    >>> al[0]
    exp(l_1)/(exp(l_1) + exp(l_2))
    """
    L = _check_length(L)
    if not callable(F):
        raise TypeError(f"F: expected a callable building a sympy expression, got {type(F).__name__}")
    ls = sp.symbols(f"l_1:{L + 1}", real=True)
    Fs = [F(x) for x in ls]
    S = sum(Fs)
    return ls, [f / S for f in Fs]


def jacobian_closed_form(alphas, gs) -> sp.Matrix:
    """J_ij = α_i (δ_ij − α_j) g_j for weights ``alphas`` and log-derivatives ``gs``.

    >>> p_ = sp.Symbol("p")
    >>> jacobian_closed_form([p_, 1 - p_], [1, 1])
    Matrix([
    [ p*(1 - p), p*(p - 1)],
    [-p*(1 - p), p*(1 - p)]])
    """
    if len(alphas) != len(gs):
        raise ValueError(f"gs: length {len(gs)} does not match alphas length {len(alphas)}")
    n = len(alphas)
    return sp.Matrix(n, n, lambda i, j: alphas[i] * (sp.KroneckerDelta(i, j) - alphas[j]) * gs[j])


def check_generic_jacobian(L: int) -> bool:
    """SymPy's own derivative of α_i = F(l_i)/Σ F(l_k), F an undefined function, equals the
    closed form with g_j = F'(l_j)/F(l_j): every entry of the difference cancels to 0.

    >>> all(check_generic_jacobian(L) for L in (2, 3))
    True
    """
    Ff = sp.Function("F")
    ls, al = normalized_weights(Ff, L)
    gs = [sp.diff(Ff(x), x) / Ff(x) for x in ls]
    closed = jacobian_closed_form(al, gs)
    return all(
        sp.cancel(sp.together(sp.diff(al[i], ls[j]) - closed[i, j])) == 0 for i in range(L) for j in range(L)
    )


def check_softmax_jacobian(L: int) -> bool:
    """For F = exp(l/T), g ≡ 1/T and SymPy's derivative equals (diag α − ααᵀ)/T exactly.

    >>> check_softmax_jacobian(3)
    True
    """
    ls, al = normalized_weights(lambda x: sp.exp(x / T), L)
    gF = sp.diff(sp.exp(l / T), l) / sp.exp(l / T)
    if not is_identity(gF, 1 / T):
        return False
    closed = jacobian_closed_form(al, [1 / T] * L)
    return all(
        sp.cancel(sp.together(sp.diff(al[i], ls[j]) - closed[i, j])) == 0 for i in range(L) for j in range(L)
    )


def covariance_matrix(alphas) -> sp.Matrix:
    """Σ(α) = diag α − α αᵀ (the softmax Jacobian at T = 1).

    >>> covariance_matrix([sp.Rational(1, 2), sp.Rational(1, 2)])
    Matrix([
    [ 1/4, -1/4],
    [-1/4,  1/4]])
    """
    return jacobian_closed_form(list(alphas), [1] * len(alphas))


def _simplex(L: int):
    # α_1..α_{L−1} free, α_L = 1 − Σ others.
    free = sp.symbols(f"alpha_1:{L}", nonnegative=True)
    return free, [*free, 1 - sum(free)]


def prove_entry_bound() -> bool:
    """|Σ_ij| ≤ 1/4 on the simplex, exactly:

    * diagonal: 1/4 − p(1 − p) = (p − 1/2)²;
    * off-diagonal |Σ_ij| = α_i α_j and 1/4 − pq = (1 − (p+q)²)/4 + (p − q)²/4 with p + q ≤ 1.

    >>> prove_entry_bound()
    True
    """
    x, y = sp.symbols("x y")
    return is_identity(sp.Rational(1, 4) - x * (1 - x), (x - sp.Rational(1, 2)) ** 2) and is_identity(
        sp.Rational(1, 4) - x * y, (1 - (x + y) ** 2) / 4 + (x - y) ** 2 / 4
    )


def prove_row_bound() -> bool:
    """‖Σ_i,:‖₂² ≤ 1/8 on the simplex for every L, exactly.

    With p = α_i, the other weights sum to 1 − p, so Σ_{j≠i} α_j² = (1 − p)² − 2e where
    e = Σ_{j<k; j,k≠i} α_j α_k ≥ 0; then ‖Σ_i‖² = p²(1−p)² + p²((1−p)² − 2e) and

        1/8 − ‖Σ_i‖² = 2 (p − 1/2)² (1/4 + p(1 − p)) + 2 p² e ≥ 0.

    The identity is checked in the symbols (p, e), and the bookkeeping for L = 2..5 on the
    simplex with all weights explicit.

    >>> prove_row_bound()
    True
    """
    x, e = sp.symbols("p e")
    rowsq = x**2 * (1 - x) ** 2 + x**2 * ((1 - x) ** 2 - 2 * e)
    general = is_identity(
        sp.Rational(1, 8) - rowsq, 2 * (x - sp.Rational(1, 2)) ** 2 * (sp.Rational(1, 4) + x * (1 - x)) + 2 * x**2 * e
    )
    concrete = True
    for L in range(2, 6):
        _, al = _simplex(L)
        S = covariance_matrix(al)
        e_L = sum(al[j] * al[k] for j in range(1, L) for k in range(j + 1, L))
        row = sum(S[0, j] ** 2 for j in range(L))
        concrete &= is_identity(
            sp.Rational(1, 8) - row,
            2 * (al[0] - sp.Rational(1, 2)) ** 2 * (sp.Rational(1, 4) + al[0] * (1 - al[0])) + 2 * al[0] ** 2 * e_L,
        )
    return general and concrete


def prove_spectral_bound() -> bool:
    """‖Σ‖₂ ≤ 1/2 on the simplex for every L, exactly.

    Σ is symmetric, so ‖Σ‖₂ = max |eigenvalue| ≤ max_i Σ_j |Σ_ij| (Gershgorin). Row i sums to
    α_i(1 − α_i) + α_i Σ_{j≠i} α_j = 2α_i(1 − α_i), and 1/2 − 2p(1 − p) = 2(p − 1/2)².
    Checked for L = 2..5 with all weights explicit.

    >>> prove_spectral_bound()
    True
    """
    x = sp.Symbol("p")
    ok = is_identity(sp.Rational(1, 2) - 2 * x * (1 - x), 2 * (x - sp.Rational(1, 2)) ** 2)
    for L in range(2, 6):
        _, al = _simplex(L)
        S = covariance_matrix(al)
        ok &= S.is_symmetric()
        # |Σ_ii| + Σ_{j≠i} |Σ_ij| with Σ_ii = α_i(1−α_i) ≥ 0 and Σ_ij = −α_iα_j ≤ 0
        ok &= all(is_identity(S[i, i] - sum(S[i, j] for j in range(L) if j != i), 2 * al[i] * (1 - al[i])) for i in range(L))
    return bool(ok)


def check_power_sum_identities(L: int) -> bool:
    """For explicit weights on the simplex of size L:

    * ‖Σ‖_F² = s₂ − 2s₃ + s₂² (s_k = Σ α_i^k; holds without the simplex constraint);
    * s₁s₃ − s₂² = Σ_{i<j} α_iα_j(α_i − α_j)² (Lagrange), so s₃ ≥ s₂² when s₁ = 1.

    >>> check_power_sum_identities(3)
    True
    """
    L = _check_length(L)
    al = sp.symbols(f"alpha_1:{L + 1}", nonnegative=True)
    S = covariance_matrix(al)
    s1, s2, s3 = (sum(x**k for x in al) for k in (1, 2, 3))
    fro = sum(S[i, j] ** 2 for i in range(L) for j in range(L))
    lagrange = sum(al[i] * al[j] * (al[i] - al[j]) ** 2 for i in range(L) for j in range(i + 1, L))
    return is_identity(fro, s2 - 2 * s3 + s2**2) and is_identity(s1 * s3 - s2**2, lagrange)


def prove_frobenius_bound() -> bool:
    """‖Σ‖_F ≤ 1/2 on the simplex for every L, exactly.

    With s₁ = 1: 1/4 − ‖Σ‖_F² = 1/4 − (s₂ − 2s₃ + s₂²) = (s₂ − 1/2)² + 2(s₃ − s₂²), and
    s₃ − s₂² = Σ_{i<j} α_iα_j(α_i − α_j)² ≥ 0. Equality needs s₂ = 1/2 and all non-zero weights
    equal, i.e. α = (1/2, 1/2) up to zeros and order.

    >>> prove_frobenius_bound()
    True
    """
    s2, s3 = sp.symbols("s2 s3")
    general = is_identity(
        sp.Rational(1, 4) - (s2 - 2 * s3 + s2**2), (s2 - sp.Rational(1, 2)) ** 2 + 2 * (s3 - s2**2)
    )
    return general and all(check_power_sum_identities(L) for L in range(2, 6))


def maximizer_values(T_=T) -> dict[str, sp.Expr]:
    """The four quantities at α = (1/2, 1/2) (logits (0, 0)), computed exactly from J = Σ/T.

    >>> maximizer_values(1)
    {'entry': 1/4, 'row': sqrt(2)/4, 'spectral': 1/2, 'frobenius': 1/2}
    """
    half = sp.Rational(1, 2)
    J = covariance_matrix([half, half]) / T_
    return {
        "entry": max(abs(x) for x in J),
        "row": sp.sqrt(sum(J[0, j] ** 2 for j in range(2))),
        "spectral": max(abs(ev) for ev in J.eigenvals()),
        "frobenius": sp.sqrt(sum(x**2 for x in J)),
    }


def family_log_derivative_sup() -> dict[str, tuple[sp.Expr, str]]:
    """G = sup |(log F)'| for the families of :data:`normalization.FAMILIES`, with exact checks.

    * softmax: (log F)' = 1/T.
    * softplus: T·g = σ(x)/softplus(x) with x = l/T; log(1+y) ≥ y/(1+y) for y = eˣ > 0
      (h(y) = log(1+y) − y/(1+y) has h(0) = 0, h'(y) = y/(1+y)² ≥ 0), so 0 < T·g < 1, and
      T·g → 1 as x → −∞: G = 1/T over the real line (not attained).
    * taylor2: T·g = 2u/(u² + 1) with u = 1 + x, and 1 ∓ 2u/(u²+1) = (u ∓ 1)²/(u²+1):
      G = 1/T, attained at l = 0 and l = −2T.
    * shifted_power on [−a, a]: g = p/(l + a + c) is positive and decreasing: G = p/c at l = −a.
    * sigmoid_ratio: T·g = 1/(1 + e^{l/T}) ∈ (0, 1), → 1 as l → −∞: G = 1/T (not attained).
    * even_power (1 + l²)^p: g = 2pl/(1 + l²) and p(1 + l²) ∓ 2pl = p(l ∓ 1)²: G = p at l = ±1.

    >>> {k: v[0] for k, v in family_log_derivative_sup().items()}
    {'softmax': 1/T, 'softplus': 1/T, 'taylor2': 1/T, 'shifted_power': p/c, 'sigmoid_ratio': 1/T, 'even_power': p}
    """
    x, y, u = sp.Symbol("x", real=True), sp.Symbol("y", positive=True), sp.Symbol("u", real=True)
    logd = {k: sp.diff(f.F, l) / f.F for k, f in FAMILIES.items()}
    if not is_identity(logd["softmax"], 1 / T):
        raise AssertionError("softmax log-derivative")
    sp_g = sp.simplify(T * logd["softplus"].subs(l, T * x))
    h = sp.log(1 + y) - y / (1 + y)
    if not (
        is_identity(sp.diff(h, y), y / (1 + y) ** 2)
        and h.subs(y, 0) == 0
        and sp.limit(sp_g, x, -sp.oo) == 1
        and is_identity(sp.together(sp_g - sp.exp(x) / ((1 + sp.exp(x)) * sp.log(1 + sp.exp(x)))), 0)
    ):
        raise AssertionError("softplus log-derivative")
    q_g = sp.together(T * logd["taylor2"].subs(l, T * (u - 1)))
    if not (
        is_identity(sp.fraction(q_g)[0] * (u**2 + 1), 2 * u * sp.fraction(q_g)[1])
        # (1 ∓ 2u/(u²+1))·(u²+1) = (u ∓ 1)²
        and is_identity(u**2 + 1 - 2 * u, (u - 1) ** 2)
        and is_identity(u**2 + 1 + 2 * u, (u + 1) ** 2)
    ):
        raise AssertionError("taylor2 log-derivative")
    sg = sp.together(T * logd["sigmoid_ratio"])
    if not (is_identity(sp.fraction(sg)[0] * (1 + sp.exp(l / T)), sp.fraction(sg)[1]) and sp.limit(sg, l, -sp.oo) == 1):
        raise AssertionError("sigmoid_ratio log-derivative")
    ev = sp.together(logd["even_power"])
    if not (
        is_identity(sp.fraction(ev)[0] * (1 + l**2), 2 * p * l * sp.fraction(ev)[1])
        and is_identity(p * (1 + l**2) - 2 * p * l, p * (l - 1) ** 2)
        and is_identity(p * (1 + l**2) + 2 * p * l, p * (l + 1) ** 2)
    ):
        raise AssertionError("even_power log-derivative")
    pw = sp.simplify(logd["shifted_power"])
    if not (is_identity(pw * (l + a + c), p) and pw.subs(l, -a) == p / c):
        raise AssertionError("shifted_power log-derivative")
    return {
        "softmax": (1 / T, "g = 1/T everywhere"),
        "softplus": (1 / T, "sup over the real line, approached as l -> -oo"),
        "taylor2": (1 / T, "attained at l = 0 and l = -2T"),
        "shifted_power": (p / c, "on [-a, a], attained at l = -a"),
        "sigmoid_ratio": (1 / T, "T g = 1/(1 + exp(l/T)); sup over the real line, approached as l -> -oo"),
        "even_power": (p, "g = 2pl/(1 + l^2); attained at l = +-1"),
    }


def _positive_for_positive(expr, s) -> bool:
    # A polynomial in s > 0 with non-negative coefficients, not identically zero, is > 0.
    coeffs = sp.Poly(sp.expand(expr), s).all_coeffs()
    return all(k.is_nonnegative is True for k in coeffs) and any(k.is_positive is True for k in coeffs)


def secondary_form_judgement() -> dict[str, dict]:
    """Judge ‖·‖ ≤ min{1/(4T), √2} for each reading, exactly.

    For T ≥ √2/8 the min is 1/(4T); for T < √2/8 write T = √2/(8(1 + s)), s > 0, so the
    min is √2. A reading is violated at T when its sharp supremum exceeds the min there.

    Returns ``{reading: {"violated_for": str, "gap_high_T": expr, "gap_low_T": expr}}`` with
    the gaps sup − min in both regimes (positive = violated).

    >>> {k: v["violated_for"] for k, v in secondary_form_judgement().items()}
    {'entry': 'T < sqrt(2)/8', 'row': 'all T > 0', 'spectral': 'all T > 0', 'frobenius': 'all T > 0'}
    """
    s = sp.Symbol("s", positive=True)
    out = {}
    for k, sup in SOFTMAX_SUPREMA.items():
        high = sp.simplify(sup - 1 / (4 * T))  # regime T >= sqrt(2)/8
        low = sp.expand(sup.subs(T, SECONDARY_THRESHOLD / (1 + s)) - sp.sqrt(2))  # regime T < sqrt(2)/8
        if high.is_positive and _positive_for_positive(low, s):
            verdict = "all T > 0"
        elif high == 0 and _positive_for_positive(low, s):
            verdict = "T < sqrt(2)/8"
        else:
            raise AssertionError(f"secondary form, {k}: undecided ({high}, {low})")
        out[k] = {"violated_for": verdict, "gap_high_T": high, "gap_low_T": low}
    return out


def prove_simplex_diameter() -> bool:
    """‖p − q‖₂ ≤ √2 for probability vectors p, q, exactly.

    2 − ‖p − q‖² = Σ p_i(1 − p_i) + Σ q_i(1 − q_i) + 2 Σ p_i q_i when Σp = Σq = 1, and every
    term is ≥ 0 on the simplex. Checked for L = 2..5 with the last weight eliminated.

    >>> prove_simplex_diameter()
    True
    """
    ok = True
    for L in range(2, 6):
        p = list(sp.symbols(f"p1:{L}", nonnegative=True))
        q = list(sp.symbols(f"q1:{L}", nonnegative=True))
        p.append(1 - sum(p))
        q.append(1 - sum(q))
        lhs = 2 - sum((a - b) ** 2 for a, b in zip(p, q))
        rhs = sum(a * (1 - a) for a in p) + sum(b * (1 - b) for b in q) + 2 * sum(a * b for a, b in zip(p, q))
        ok &= is_identity(lhs, rhs)
    return bool(ok)


def paper_form_bounds() -> dict[str, sp.Expr]:
    """Bounds on ‖J‖₂ of the paper's generic form, scaling with 1/min_j F(l_j).

    Symbols: ``Fp_inf`` = max_k |F'(l_k)|, ``Fp_2`` = ‖F'(l)‖₂, ``F_min`` = min_j F(l_j),
    ``g_inf`` = max_k |(log F)'(l_k)|, and L.

    * ``"two_term"``: (Fp_inf + Fp_2)/(L F_min), from J = diag(F')/S − F F'ᵀ/S², S ≥ L F_min
      and ‖F‖₂ ≤ S;
    * ``"sharpest"``: Fp_inf/(2 F_min), the best constant c in c·max|F'|/min F valid for all L
      (softmax at logits (0, 0) attains it);
    * ``"log_form"``: g_inf/2, our (log F)′ form, never larger than ``"sharpest"`` since
      |F'_k|/F_k ≤ max|F'|/min F.

    >>> sorted(paper_form_bounds())
    ['log_form', 'sharpest', 'two_term']
    """
    Fp_inf, Fp_2, F_min, g_inf = sp.symbols("Fp_inf Fp_2 F_min g_inf", positive=True)
    Ls = sp.Symbol("L", positive=True, integer=True)
    return {
        "two_term": (Fp_inf + Fp_2) / (Ls * F_min),
        "sharpest": Fp_inf / (2 * F_min),
        "log_form": g_inf / 2,
    }


def prove_paper_form_bounds() -> dict[str, sp.Expr]:
    """Exact steps behind :func:`paper_form_bounds`; returns the softmax comparison ratio.

    * J = diag(F')/S − F F'ᵀ/S² (checked entrywise against the closed form for L = 2, 3);
    * for softmax, F = e^{l/T}: sharpest / log_form = e^{(l_max − l_min)/T} (identity), so
      the paper's form is exponentially looser in the logit spread;
    * at uniform logits the two-term form equals (1 + √L)/L times |g| while ‖J‖₂ = |g|/L.

    >>> r = prove_paper_form_bounds()
    >>> r["softmax_ratio"]
    exp((l_max - l_min)/T)
    """
    for L in (2, 3):
        ls = sp.symbols(f"l1:{L + 1}", real=True)
        Ff = sp.Function("F")
        F = [Ff(x) for x in ls]
        Fp = [sp.diff(f, x) for f, x in zip(F, ls)]
        S = sum(F)
        al = [f / S for f in F]
        for i in range(L):
            for j in range(L):
                split = (Fp[i] / S if i == j else 0) - F[i] * Fp[j] / S**2
                if not is_identity(sp.together(sp.diff(al[i], ls[j]) - split)):
                    raise AssertionError("paper form: J = diag(F')/S - F F'^T/S^2")
    l_max, l_min = sp.symbols("l_max l_min", real=True)
    sharpest = (sp.exp(l_max / T) / T) / (2 * sp.exp(l_min / T))  # max|F'| at l_max, min F at l_min
    log_form = (1 / T) / 2
    ratio = sp.simplify(sharpest / log_form)
    if not is_identity(ratio, sp.exp((l_max - l_min) / T)):
        raise AssertionError("paper form: softmax ratio")
    return {"softmax_ratio": sp.exp((l_max - l_min) / T)}


@register("L2-generic", "Lemma 2: Jacobian of a generic normalizer and bounds in G = sup|(log F)'|")
def derive_generic() -> dict[str, Result]:
    """Closed-form Jacobian J = (diag α − ααᵀ) diag g, and |J_ij| ≤ G/4, rows ≤ √2G/4,
    ‖J‖₂ ≤ G/2, ‖J‖_F ≤ G/2 (sharp in G: softmax attains them)."""
    if not all(check_generic_jacobian(L) for L in (2, 3, 4)):
        raise AssertionError("generic Jacobian: closed form disagrees with sympy.diff")
    if not (prove_entry_bound() and prove_row_bound() and prove_spectral_bound() and prove_frobenius_bound()):
        raise AssertionError("Lemma 2: an exact certificate failed")
    i, j = sp.symbols("i j", integer=True)
    al_i, al_j, g_j = sp.symbols("alpha_i alpha_j g_j", real=True)
    Ff = sp.Function("F")
    top = {"alpha": "(1/2, 1/2)", "L": 2, "g": "G at both logits (softmax with T = 1/G)"}
    out = {
        "jacobian": Result(
            al_i * (sp.KroneckerDelta(i, j) - al_j) * g_j,
            note="d alpha_i / d l_j; checked against sympy.diff for L = 2, 3, 4",
        ),
        "log_derivative": Result(sp.diff(Ff(l), l) / Ff(l), note="g = F'/F = (log F)'"),
        "entry": Result(G / 4, top, "|J_ij| = |Sigma_ij| |g_j| <= G/4"),
        "row": Result(sp.sqrt(2) * G / 4, top, "|J_i,:| <= G |Sigma_i,:| <= sqrt(2) G/4"),
        "spectral": Result(G / 2, top, "|J|_2 <= |Sigma|_2 |D_g|_2 <= G/2"),
        "frobenius": Result(G / 2, top, "|J|_F <= |Sigma|_F |D_g|_2 <= G/2"),
    }
    for name, (expr, note) in family_log_derivative_sup().items():
        out[f"G_{name}"] = Result(expr, note=f"F = {FAMILIES[name].description}: {note}")
    paper = paper_form_bounds()
    cmp_ = prove_paper_form_bounds()
    out["paper_two_term"] = Result(paper["two_term"], note="|J|_2 <= (max|F'| + |F'|_2)/(L min F): the paper's form")
    out["paper_sharpest"] = Result(
        paper["sharpest"], top, "best c in |J|_2 <= c max|F'|/min F for all L: c = 1/2"
    )
    out["log_form_instance"] = Result(paper["log_form"], top, "|J|_2 <= max_k |(log F)'(l_k)|/2 <= paper_sharpest")
    out["softmax_paper_over_log"] = Result(cmp_["softmax_ratio"], note="paper_sharpest / log_form for softmax")
    return out


@register("L2-softmax", "Lemma 2 for softmax: sharp suprema of the Jacobian J = (diag a - a a^T)/T")
def derive_softmax() -> dict[str, Result]:
    """Sharp suprema over all logits and all L of |J_ij|, ‖J_i,:‖₂, ‖J‖₂, ‖J‖_F."""
    if not all(check_softmax_jacobian(L) for L in (2, 3, 4)):
        raise AssertionError("softmax Jacobian: closed form disagrees with sympy.diff")
    proofs = {
        "entry": prove_entry_bound(),
        "row": prove_row_bound(),
        "spectral": prove_spectral_bound(),
        "frobenius": prove_frobenius_bound(),
    }
    at_max = maximizer_values()
    secondary = secondary_form_judgement()
    out = {}
    for k, sup in SOFTMAX_SUPREMA.items():
        if not proofs[k] or not is_identity(at_max[k], sup):
            raise AssertionError(f"L2-softmax {k}: bound not proved or not attained")
        ratio = sp.nsimplify(sup * 4 * T)
        vs = "equals 1/(4T)" if ratio == 1 else f"= {sp.sstr(ratio)} x 1/(4T) > 1/(4T)"
        where = (
            "attained for every L >= 2 (any alpha_i = 1/2)"
            if k == "entry"
            else "attained for L = 2, approached for every L >= 2"
        )
        out[k] = Result(
            sup,
            {"alpha": "(1/2, 1/2)", "L": 2, "logits": "(0, 0)"},
            f"sharp sup over all logits and L; {vs}; {where}; "
            f"secondary form min(1/(4T), sqrt(2)) violated for {secondary[k]['violated_for']}",
        )
    return out


# ----------------------------------------------------------------------------- checked chains (general L)


def ratio_setting() -> dict:
    """The symbols of the general-L chains: L tokens, logits l[k], a positive differentiable F,
    its values f[k] = F(l[k]) and derivatives fp[k] = F'(l[k]), S = Σ_k f[k], the Jacobian
    J = (∂α_i/∂l_j) of α_i = F(l_i)/Σ_k F(l_k) (as derivatives, not a closed form), and
    Σ = diag α − ααᵀ, D = diag(f'/f) written in f, fp and S.

    >>> sorted(ratio_setting())[:4]
    ['D', 'F', 'G', 'J']
    """
    from attnbounds.theory.proof import Mat

    L_ = sp.Symbol("L", integer=True, positive=True)
    i, j, k = sp.symbols("i j k", integer=True, positive=True)
    lg = sp.IndexedBase("l", real=True)
    F = sp.Function("F", positive=True)
    f = sp.IndexedBase("f", positive=True)
    fp = sp.IndexedBase("fp", real=True)
    S = sp.Symbol("S", positive=True)
    u, v = sp.symbols("u v", integer=True, positive=True)  # bound entry indices, apart from i, j, k
    J = Mat(sp.Lambda((u, v), sp.Derivative(F(lg[u]) / sp.Sum(F(lg[k]), (k, 1, L_)), lg[v])), L_)
    Sig = Mat(sp.Lambda((u, v), f[u] / S * (sp.KroneckerDelta(u, v) - f[v] / S)), L_)
    D = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v) * fp[v] / f[v]), L_)
    definition = (sp.Eq(f[k], F(lg[k])), sp.Eq(fp[k], sp.Derivative(F(lg[k]), lg[k])), sp.Eq(S, sp.Sum(f[k], (k, 1, L_))))
    return {"L": L_, "i": i, "j": j, "k": k, "l": lg, "F": F, "f": f, "fp": fp, "S": S, "J": J, "Sigma": Sig, "D": D,
            "G": G, "definition": definition}


def sigma_spectral_lemma(ctx, fv=None, S_expr=None, L_=None, defs="definition"):
    """The checked lemma ‖diag α − ααᵀ‖₂ ≤ 1/2 for α_u = fv(u)/S, any L (Gershgorin on the rows:
    Σ_j |Σ_ij| = Σ_j (2δ_ij − 1)Σ_ij = 2α_i(1 − α_i) ≤ 1/2). By default fv(u) = f[u] and S is
    the symbol defined in ``defs``; with ``S_expr`` the sum Σ_k fv(k) written out (``defs=None``).
    Returns the :class:`Lemma` (its lhs is ``OpNorm(Σ)``)."""
    from attnbounds.theory.proof import Chain, Lemma, Mat, OpNorm, by

    s = ratio_setting()
    i, j, k = s["i"], s["j"], s["k"]
    if fv is None:
        fv, S_expr, L_ = sp.Lambda(k, s["f"][k]), s["S"], s["L"]
    u, v = sp.symbols("u v", integer=True, positive=True)
    Sig = Mat(sp.Lambda((u, v), fv(u) / S_expr * (sp.KroneckerDelta(u, v) - fv(v) / S_expr)), L_)
    half = sp.Rational(1, 2)
    entry = Sig.entry(i, j)
    signed = (2 * sp.KroneckerDelta(i, j) - 1) * entry
    dominates = Chain(fv(i), ctx).le(sp.Sum(fv(k), (k, 1, L_)), by.sum_term(k, 1, L_, i, fv(k)))
    if dominates.end != S_expr:
        dominates = dominates.eq(S_expr, by.index_identity(defs=defs))
    term = Chain(sp.Abs(entry), ctx).le(signed, by.abs_bound(cases=(i, j), facts=(dominates,)))
    row = (Chain(sp.Sum(sp.Abs(entry), (j, 1, L_)), ctx)
           .le(sp.Sum(signed, (j, 1, L_)), by.termwise(j, 1, L_, term=term))
           .eq(2 * fv(i) / S_expr * (1 - fv(i) / S_expr), by.index_identity(defs=defs))
           .le(half, by.algebra()))
    chain = Chain(OpNorm(Sig), ctx).le(half, by.gershgorin_rows(i, j, row))
    return Lemma(chain, OpNorm(Sig), "<=", half)


#: The bounds on ‖J‖₂ that the general-L chains prove, by reading form.
GENERIC_FORMS = ("G", "log_form", "sharpest")


def _extrema(s):
    from attnbounds.theory.proof import MaxOver, MinOver

    L_, f, fp = s["L"], s["f"], s["fp"]
    q = sp.Symbol("q", integer=True, positive=True)  # bound, apart from the range index k
    return {
        "g_max": MaxOver(sp.Lambda(q, sp.Abs(fp[q] / f[q])), L_),  # max_k |F'(l_k)/F(l_k)|
        "fp_max": MaxOver(sp.Lambda(q, sp.Abs(fp[q])), L_),  # max_k |F'(l_k)|
        "f_min": MinOver(sp.Lambda(q, f[q]), L_),  # min_k F(l_k)
    }


def _diag_term(form, s, ctx):
    """A checked chain |f'_k/f_k| <= bound (the bound on every entry of D = diag(f'/f))."""
    from attnbounds.theory.proof import Chain, by

    k, f, fp = s["k"], s["f"], s["fp"]
    ex = _extrema(s)
    start = sp.Abs(fp[k] / f[k])
    if form == "G":
        return Chain(start, ctx).le(G, by.hypothesis("log-derivative")), G
    if form == "log_form":
        return Chain(start, ctx).le(ex["g_max"], by.extremum(ex["g_max"], k)), ex["g_max"]
    bound = ex["fp_max"] / ex["f_min"]
    min_le = Chain(ex["f_min"], ctx).le(f[k], by.extremum(ex["f_min"], k))
    chain = (Chain(start, ctx).le(ex["fp_max"] / f[k], by.extremum(ex["fp_max"], k, c=1 / f[k]))
             .le(bound, by.algebra_facts(min_le)))
    return chain, bound


def generic_context(form: str):
    """The hypotheses of the general-L chains: the definitions of f, fp and S, and for the G form
    |f'_k/f_k| <= G at every token (G = sup |(log F)'| bounds it)."""
    from attnbounds.theory.proof import Context

    if form not in GENERIC_FORMS:
        raise ValueError(f"form: must be one of {GENERIC_FORMS}, got {form!r}")
    s = ratio_setting()
    hyps = {"definition": s["definition"]}
    if form == "G":
        hyps["log-derivative"] = sp.Le(sp.Abs(s["fp"][s["k"]] / s["f"][s["k"]]), G)
    return Context(hyps)


def generic_spectral_chain(form: str):
    """The checked chain ‖J‖₂ <= B/2 for J the Jacobian of α_i = F(l_i)/Σ_k F(l_k), any L and
    any positive differentiable F, with B = G (``"G"``), max_k |(log F)'(l_k)| (``"log_form"``)
    or max_k |F'(l_k)|/min_k F(l_k) (``"sharpest"``):

    J = Σ D (entrywise, derivatives by SymPy) ; ‖Σ D‖₂ <= ‖Σ‖₂‖D‖₂ ; ‖D‖₂ <= B (diagonal) ;
    ‖Σ‖₂ <= 1/2 (Gershgorin). Returns the :class:`ChainCheck`.
    """
    from attnbounds.theory.proof import Chain, OpNorm, by, matmul

    ctx = generic_context(form)
    s = ratio_setting()
    Sig, D, J, k = s["Sigma"], s["D"], s["J"], s["k"]
    term, bound = _diag_term(form, s, ctx)
    ctx = ctx.extended({"sigma-lemma": sigma_spectral_lemma(ctx)})
    P = matmul(Sig, D)
    half = sp.Rational(1, 2)
    chain = (Chain(OpNorm(J), ctx)
             .eq(OpNorm(P), by.entrywise(J, P, defs="definition"))
             .le(OpNorm(Sig) * OpNorm(D), by.submultiplicative(Sig, D))
             .le(half * OpNorm(D), by.algebra())
             .le(half * bound, by.diag_norm(k, bound, term, c=half)))
    return chain.prove(OpNorm(J), "<=", half * bound)


def log_form_tighter_chain():
    """The checked chain max_k |(log F)'(l_k)|/2 <= max_k |F'(l_k)| / (2 min_k F(l_k)), any L."""
    from attnbounds.theory.proof import Chain, by

    ctx = generic_context("sharpest")
    s = ratio_setting()
    ex = _extrema(s)
    term, bound = _diag_term("sharpest", s, ctx)
    half = sp.Rational(1, 2)
    chain = Chain(half * ex["g_max"], ctx).le(half * bound, by.max_bound(ex["g_max"], bound, s["k"], term, c=half))
    return chain.prove(half * ex["g_max"], "<=", half * bound)


def two_term_chain():
    """The checked chain of the paper's two-term form, any L:
    ‖J‖₂ <= (max_k |F'(l_k)| + ‖F'(l)‖₂) / (L min_k F(l_k)).

    J = diag(F')/S − F F'ᵀ/S² (entrywise) ; triangle inequality ; ‖diag(F')/S‖₂ <= max|F'|/S ;
    ‖F F'ᵀ‖₂ = ‖F‖₂‖F'‖₂ (rank one) with ‖F‖₂ <= ‖F‖₁ = S ; S >= L min F.
    """
    from attnbounds.theory.proof import Chain, Lemma, Mat, OpNorm, by

    s = ratio_setting()
    L_, k, f, fp, S, J = s["L"], s["k"], s["f"], s["fp"], s["S"], s["J"]
    ex = _extrema(s)
    ctx = generic_context("sharpest")
    u, v = sp.symbols("u v", integer=True, positive=True)
    A = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v) * fp[v] / S), L_)
    B = Mat(sp.Lambda((u, v), f[u] * fp[v] / S**2), L_)
    M = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v) * fp[v] / S - f[u] * fp[v] / S**2), L_)
    mx, mn = ex["fp_max"], ex["f_min"]
    V = sp.sqrt(sp.Sum(fp[k] ** 2, (k, 1, L_)))  # ‖F'(l)‖₂
    norm_f = sp.sqrt(sp.Sum(f[k] ** 2, (k, 1, L_)))
    a_term = Chain(sp.Abs(fp[k] / S), ctx).le(mx / S, by.extremum(mx, k, c=1 / S))
    lemma_a = Lemma(Chain(OpNorm(A), ctx).le(mx / S, by.diag_norm(k, mx / S, a_term)), OpNorm(A), "<=", mx / S)
    q = sp.Symbol("q", integer=True, positive=True)
    chain_b = (Chain(OpNorm(B), ctx)
               .eq(norm_f * V / S**2, by.rank_one(sp.Lambda(q, f[q]), sp.Lambda(q, fp[q]), k, c=1 / S**2))
               .le(sp.Sum(f[k], (k, 1, L_)) * V / S**2, by.l2_l1(k, 1, L_, f[k], c=V / S**2))
               .eq(V / S, by.index_identity(defs="definition")))
    lemma_b = Lemma(chain_b, OpNorm(B), "<=", V / S)
    min_term = Chain(mn, ctx).le(f[k], by.extremum(mn, k))
    chain_s = (Chain(L_ * mn, ctx)
               .eq(sp.Sum(mn, (k, 1, L_)), by.index_identity())
               .le(sp.Sum(f[k], (k, 1, L_)), by.termwise(k, 1, L_, term=min_term))
               .eq(S, by.index_identity(defs="definition")))
    lemma_s = Lemma(chain_s, L_ * mn, "<=", S)
    ctx = ctx.extended({"diag-lemma": lemma_a, "rank-one-lemma": lemma_b, "sum-lemma": lemma_s})
    goal = (mx + V) / (L_ * mn)
    chain = (Chain(OpNorm(J), ctx)
             .eq(OpNorm(M), by.entrywise(J, M, defs="definition"))
             .le(OpNorm(A) + OpNorm(B), by.opnorm_triangle(A, B, sign=-1))
             .le(mx / S + OpNorm(B), by.algebra())
             .le(mx / S + V / S, by.algebra())
             .le(goal, by.algebra()))
    return chain.prove(OpNorm(J), "<=", goal)


def _at(e, x, point):
    """``e`` with every x[m] replaced by ``point(m)``."""
    return e.replace(lambda t: isinstance(t, sp.Indexed) and t.base == x and len(t.indices) == 1,
                     lambda t: point(t.indices[0]))


def finite_difference_setting() -> dict:
    """The symbols of Corollary 3's finite-difference chain: softmax φ(x)_q = e^{x_q/T}/Σ_k e^{x_k/T}
    on L tokens, logits l, a direction v with Σ v_k² = 1, a step ε > 0, and
    g = ‖φ(l + εv) − φ(l)‖₂/ε."""
    L_ = sp.Symbol("L", integer=True, positive=True)
    eps = sp.Symbol("epsilon", positive=True)
    k, q = sp.symbols("k q", integer=True, positive=True)
    lg, v, x, z = (sp.IndexedBase(n, real=True) for n in ("l", "v", "x", "zeta"))
    phi = sp.Lambda(q, sp.exp(x[q] / T) / sp.Sum(sp.exp(x[k] / T), (k, 1, L_)))
    a, d = sp.Lambda(q, lg[q]), sp.Lambda(q, eps * v[q])
    km = sp.Symbol("k_mv", integer=True, positive=True)
    g = sp.sqrt(sp.Sum((_at(phi(km), x, lambda m: a(m) + d(m)) - _at(phi(km), x, a)) ** 2, (km, 1, L_))) / eps
    return {"L": L_, "eps": eps, "k": k, "q": q, "l": lg, "v": v, "x": x, "z": z, "phi": phi, "a": a, "d": d, "g": g,
            "unit": sp.Eq(sp.Sum(v[k] ** 2, (k, 1, L_)), 1)}


def finite_difference_chain():
    """The checked chain of Corollary 3's finite-difference bound, any L, unit v, ε > 0, T > 0:
    ‖φ(l + εv) − φ(l)‖₂/ε <= min{1/(2T), √2/ε}.

    * ≤ 1/(2T): the mean value inequality, with ‖∂φ/∂x‖₂ <= 1/(2T) at every point ζ (the
      Jacobian is (diag α − ααᵀ) diag(1/T) entrywise; submultiplicativity; Gershgorin);
      then ‖εv‖₂/ε = 1 (the hypothesis Σ v_k² = 1);
    * ≤ √2/ε: the ℓ₂ diameter of the simplex (both weight vectors are non-negative and sum to 1).
    """
    from attnbounds.theory.proof import Chain, Context, Mat, OpNorm, by, matmul

    s = finite_difference_setting()
    L_, eps, k, q, v, x, z, phi, a, d, g = (s[n] for n in ("L", "eps", "k", "q", "v", "x", "z", "phi", "a", "d", "g"))
    ctx = Context({"unit": s["unit"]})
    half_T = 1 / (2 * T)
    # the Jacobian of softmax(x/T) at a free point zeta: (diag a - a a^T) diag(1/T), norm <= 1/(2T)
    fz = sp.Lambda(q, sp.exp(z[q] / T))
    lemma = sigma_spectral_lemma(ctx, fz, sp.Sum(sp.exp(z[k] / T), (k, 1, L_)), L_, defs=None)
    Sig = lemma.lhs.args[0]
    u, w = sp.symbols("u_mv w_mv", integer=True, positive=True)  # the names the rule uses
    Jz = Mat(sp.Lambda((u, w), sp.Derivative(_at(phi(u), x, lambda m: z[m]), z[w])), L_)
    uu, ww = sp.symbols("u v", integer=True, positive=True)
    D = Mat(sp.Lambda((uu, ww), sp.KroneckerDelta(uu, ww) / T), L_)
    P = matmul(Sig, D)
    jctx = ctx.extended({"sigma-lemma": lemma})
    jac = (Chain(OpNorm(Jz), jctx)
           .eq(OpNorm(P), by.entrywise(Jz, P))
           .le(OpNorm(Sig) * OpNorm(D), by.submultiplicative(Sig, D))
           .le(OpNorm(D) / 2, by.algebra())
           .le(half_T, by.diag_norm(k, 1 / T, Chain(sp.Abs(1 / T), jctx).le(1 / T, by.algebra()), c=sp.Rational(1, 2))))
    km = sp.Symbol("k_mv", integer=True, positive=True)
    part_a = (Chain(g, ctx)
              .le(half_T * sp.sqrt(sp.Sum(d(km) ** 2, (km, 1, L_))) / eps,
                  by.mean_value(phi, x, a, d, z, L_, half_T, jac, c=1 / eps))
              .eq(half_T * sp.sqrt(sp.Sum(v[k] ** 2, (k, 1, L_))), by.index_identity())
              .eq(half_T, by.hypothesis("unit")))
    p_ = sp.Lambda(q, _at(phi(q), x, lambda m: a(m) + d(m)))
    q_ = sp.Lambda(q, _at(phi(q), x, a))
    part_b = Chain(g, ctx).le(sp.sqrt(2) / eps, by.simplex_diameter(p_, q_, L_, c=1 / eps))
    goal = sp.Min(half_T, sp.sqrt(2) / eps)
    return Chain(g, ctx).le(goal, by.min_bound(part_a, part_b)).prove(g, "<=", goal)
