r"""# Lemma 2: the Jacobian of a normalizer, and what "$1/(4T)$" bounds

**Setting.** Weights $\alpha_i = F(l_i)/\sum_k F(l_k)$, with $F > 0$ differentiable. Write
$g = F'/F = (\log F)'$ for the log-derivative and $G = \sup |g|$ over the logit range.
Softmax with temperature $T$ is $F = e^{l/T}$, for which $g \equiv 1/T$.

## The Jacobian in closed form

Let $S = \sum_k F(l_k)$. Differentiate $\alpha_i = F(l_i)/S$ with respect to $l_j$, using
$\partial S/\partial l_j = F'(l_j)$:

$$\frac{\partial \alpha_i}{\partial l_j}
  = \frac{\delta_{ij}F'(l_i)}{S} - \frac{F(l_i)F'(l_j)}{S^2}
  = \alpha_i\,\delta_{ij}\,g(l_j) - \alpha_i\alpha_j\,g(l_j)
  = \alpha_i(\delta_{ij} - \alpha_j)\,g(l_j).$$

In matrix form this is $J = \Sigma(\alpha)\,D_g$, with
$\Sigma(\alpha) = \operatorname{diag}\alpha - \alpha\alpha^\top$ and
$D_g = \operatorname{diag}(g(l_1),\dots,g(l_L))$. The code checks this against SymPy's own
derivative for an undefined $F$ and $L = 2, 3, 4$. For softmax, $J = \Sigma(\alpha)/T$.

## Four sharp suprema of $\Sigma$ on the simplex

$\Sigma$ is symmetric. It is positive semi-definite because
$x^\top\Sigma x = \sum_i\alpha_i x_i^2 - (\sum_i \alpha_i x_i)^2$ is the variance of $x_I$
with $I \sim \alpha$. Write $p = \alpha_i$.

1. **Entry.** The diagonal gives $\tfrac14 - p(1-p) = (p - \tfrac12)^2 \ge 0$. Off the
   diagonal, $|\Sigma_{ij}| = \alpha_i\alpha_j =: pq$ with $p + q \le 1$, and
   $\tfrac14 - pq = \tfrac14\bigl(1 - (p+q)^2\bigr) + \tfrac14 (p-q)^2 \ge 0$.
   So $\max|\Sigma_{ij}| \le 1/4$.
2. **Row.** The other weights sum to $1-p$. Hence
   $\sum_{j\ne i}\alpha_j^2 = (1-p)^2 - 2e$, with
   $e = \sum_{j<k;\ j,k\ne i}\alpha_j\alpha_k \ge 0$. Then
   $\|\Sigma_{i,:}\|^2 = p^2(1-p)^2 + p^2\sum_{j \ne i}\alpha_j^2$, and

   $$\tfrac18 - \|\Sigma_{i,:}\|^2 = 2\,(p - \tfrac12)^2\,\bigl(\tfrac14 + p(1-p)\bigr) + 2p^2 e \;\ge\; 0 .$$

   So $\|\Sigma_{i,:}\|_2 \le \sqrt2/4$.
3. **Spectral.** $\Sigma$ is symmetric, so by Gershgorin $\|\Sigma\|_2$ is at most the largest
   absolute row sum. Row $i$ sums to $p(1-p) + p\sum_{j\ne i}\alpha_j = 2p(1-p)$, and
   $\tfrac12 - 2p(1-p) = 2(p - \tfrac12)^2$. So $\|\Sigma\|_2 \le 1/2$.
4. **Frobenius.** Let $s_k = \sum_i \alpha_i^k$, with $s_1 = 1$. Then
   $\|\Sigma\|_F^2 = s_2 - 2s_3 + s_2^2$ (diagonal terms $(\alpha_i - \alpha_i^2)^2$,
   off-diagonal terms $\alpha_i^2\alpha_j^2$). Moreover

   $$\tfrac14 - \|\Sigma\|_F^2 = (s_2 - \tfrac12)^2 + 2\,(s_3 - s_2^2),
   \qquad s_3 - s_2^2 = s_1 s_3 - s_2^2 = \sum_{i<j}\alpha_i\alpha_j(\alpha_i-\alpha_j)^2 \ge 0,$$

   so $\|\Sigma\|_F \le 1/2$. Equality needs $s_2 = 1/2$ and all non-zero weights equal,
   that is, $\alpha = (1/2, 1/2)$.

Every identity above is checked by `expand(lhs - rhs) == 0`: once in symbols ($p, e$ or
$s_2, s_3$) and once for $L = 2..5$ with all the weights written out. **Attainment:** at
logits $(0, 0)$ we have $\alpha = (1/2, 1/2)$ and
$\Sigma = \tfrac14\begin{pmatrix}1 & -1\\ -1 & 1\end{pmatrix}$. Its largest entry is
$1/4$, each row has norm $\sqrt2/4$, the spectral norm is $1/2$ (eigenvector $(1,-1)$), and
the Frobenius norm is $1/2$. For any $L \ge 2$ the same values are approached with logits
$(0, 0, -t, \dots, -t)$ as $t \to \infty$. The entry value is even attained there, for
example at $\alpha_1 = 1/2$.

## Consequences

* **Generic normalizer (reconstructed Lemma 2).** Since $\|D_g\|_2 \le G$:
  $|J_{ij}| \le G/4$, $\|J_{i,:}\|_2 \le \sqrt2\,G/4$, $\|J\|_2 \le \|\Sigma\|_2\|D_g\|_2 \le G/2$
  and $\|J\|_F \le \|\Sigma\|_F\|D_g\|_2 \le G/2$. Softmax attains all four with $G = 1/T$,
  so no better constants in terms of $G$ exist. Examples: $G = 1/T$ for softmax, and
  $G = 1$ for softplus, sigmoid and $1 + l + l^2/2$. For the last one,
  $g = 2u/(u^2+1)$ with $u = 1 + l$, and $1 \mp 2u/(u^2+1) = (u \mp 1)^2/(u^2+1)$. For
  $(1 + l^2)^p$, $G = p$, because $p(1+l^2) \mp 2pl = p(l\mp1)^2$.
* **Softmax.** The sharp suprema over all logits and all $L$ are
  $\sup|J_{ij}| = \dfrac{1}{4T}$, $\sup\|J_{i,:}\|_2 = \dfrac{\sqrt2}{4T}$,
  $\sup\|J\|_2 = \dfrac{1}{2T}$ and $\sup\|J\|_F = \dfrac{1}{2T}$.

## Verdict on "recovers the classic $1/(4T)$"

The summary does not say which quantity $1/(4T)$ bounds.

* **entry**, $|\partial\alpha_i/\partial l_j| \le 1/(4T)$: **true and sharp**.
* **row** (the gradient of one weight), **spectral** (the Jacobian norm, which is also our
  reading of the literal transcription) and **frobenius**: **false**. At logits $(0,0)$ with
  $T = 1$ the values are $\sqrt2/4 \approx 0.354$, $1/2$ and $1/2$, all above $1/4$. The
  true constants are $\sqrt2/(4T)$, $1/(2T)$ and $1/(2T)$.

The secondary source's form $\min\{1/(4T), \sqrt2\}$ is the paper's own Corollary 3; it is
judged on its own page, {ref}`Corollary 3 <claim-C3>`.

## The paper's generic form: $1/\min_j F(l_j)$

The paper writes its generic bound with two terms in parentheses, both growing like
$1/\min_j F(l_j, \theta)$. Splitting $J = \operatorname{diag}(F')/S - F\,F'^\top/S^2$ and using
$S \ge L\min_j F$ and $\|F\|_2 \le \|F\|_1 = S$ gives (reading `generic-paper`)

$$\|J\|_2 \le \frac{1}{L\,\min_j F(l_j)}\Big(\max_k|F'(l_k)| + \|F'(l)\|_2\Big).$$

The sharpest bound of the form $c\,\max_k|F'(l_k)|/\min_j F(l_j)$ valid for every $L$ has
$c = \tfrac12$ (reading `generic-sharpest`): $\|J\|_2 \le \|\Sigma\|_2\,\max_k|g(l_k)| \le
\tfrac12\max_k|F'(l_k)|/\min_j F(l_j)$, and softmax at logits $(0,0)$ attains it.

**Which is tighter.** Our $(\log F)'$ form $\tfrac12\max_k|F'(l_k)/F(l_k)|$ (reading
`log-form`) is never larger than the sharpest paper form, because
$|F'(l_k)|/F(l_k) \le \max|F'|/\min F$ for each $k$ (reading `log-form-tighter`). They are
equal exactly when one token attains both $\max_k|F'(l_k)|$ and $\min_j F(l_j)$. For softmax
the paper form is larger by the factor $e^{(l_{\max} - l_{\min})/T}$: exponentially looser in
the logit spread, and the same only at equal logits. Against the two-term form the comparison
depends on $L$: at equal logits the two-term form is $(1 + \sqrt L)/L$ times $|g|$, smaller
than $\tfrac12|g|$ once $L \ge 8$, while the $(\log F)'$ form wins as soon as the $F(l_j)$ are
spread. What the paper's form does show correctly is its point: a normalizer whose $F$ can
approach $0$ on the logit range has no finite $\sup|(\log F)'|$ either, and inherits the
instability.

## What the full text changed

* The full text files $\min\{1/(4T), \sqrt2\}$ as Corollary 3. The readings
  `L2:secondary-entry`, `-row`, `-spectral`, `-frobenius` (all falsified) moved to
  {ref}`C3 <claim-C3>` as `C3:entry`, `C3:row`, `C3:spectral`, `C3:frobenius`, verdicts unchanged.
* New readings for the paper's generic form: `generic-paper`, `generic-sharpest`, `log-form`
  and `log-form-tighter`.
* No verdict of an existing L2 reading changed.

## The checked chains, for every $L$

`reconstructed`, `generic-paper`, `generic-sharpest`, `log-form` and `log-form-tighter` are
*proved*: each is a chain of steps that the proof kernel checks (see {doc}`/proof-rules`),
for a symbolic number of tokens $L$ and an undefined positive differentiable $F$. The values
$f_k = F(l_k)$, $f'_k = F'(l_k)$ and $S = \sum_k f_k$ are named by definitions.

1. **The Jacobian** (`entrywise`). The start is the matrix of derivatives
   $\partial/\partial l_j$ of $F(l_i)/\sum_k F(l_k)$, computed by SymPy with symbolic
   indices $i, j$ (a Kronecker delta for $\partial l_i/\partial l_j$). Its entries equal
   those of $\Sigma D$, with $\Sigma = \operatorname{diag}\alpha - \alpha\alpha^\top$ and
   $D = \operatorname{diag}(f'/f)$. For `generic-paper` they equal those of
   $\operatorname{diag}(f')/S - f f'^\top/S^2$. A Kronecker sum $\sum_m \delta_{mx} g(m)$ is
   replaced by $g(x)$ only when $x$ is proved to lie in $1..L$.
2. **Submultiplicativity**: $\|\Sigma D\|_2 \le \|\Sigma\|_2\|D\|_2$. The product's entries
   $\sum_m \Sigma_{im}D_{mj}$ are checked.
3. **Gershgorin on the rows** (`gershgorin-rows`, a lemma): $\Sigma$ is real and symmetric,
   and every row has $\sum_j|\Sigma_{ij}| \le 1/2$. The row chain bounds each term by
   $(2\delta_{ij} - 1)\Sigma_{ij}$ (`abs-bound`). The two Kronecker cases are checked
   separately. The diagonal case uses $f_i \le \sum_k f_k$ (`sum-term`). The signed sum is
   $2\alpha_i(1-\alpha_i)$ (`index-identity`), and $\tfrac12 - 2p(1-p) = 2(p-\tfrac12)^2$.
4. **The diagonal factor** (`diag-norm`): $\|D\|_2 \le B$ when $|f'_k/f_k| \le B$ at every
   $k$. $B$ is $G$ (the hypothesis $|F'/F| \le G$ at every token), $\max_k|f'_k/f_k|$
   (`extremum`), or $\max_k|f'_k|/\min_k f_k$.
5. **The two-term form**: the triangle inequality of the spectral norm; the rank-one identity
   $\|f f'^\top\|_2 = \|f\|_2\|f'\|_2$; $\|f\|_2 \le \|f\|_1 = S$ (`l2-l1`); and
   $S \ge L\min_k f_k$ (`termwise`).

`log-form-tighter` is one `max-bound` step: each term satisfies
$|f'_k|/f_k \le \max|f'|/f_k \le \max|f'|/\min f$.
"""

from __future__ import annotations

import math  # noqa: F401 (the doctests below use it)
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from attnbounds import strategies as abst
from attnbounds.theory.proof import AllOf, Chain, Context, by
from attnbounds.claims.base import Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.claims.normalized import draws_weights, is_softmax, jacobian_of
from attnbounds.claims.lemma1 import FAMILY_NAMES, PARAM_CHOICES, family_normalizer
from attnbounds.numerics.attention import softmax
from attnbounds.numerics.jacobian import dense_jacobian_norms, normalizer_jacobian, softmax_jacobian_norms
from attnbounds.numerics.validation import as_float_array, check_count, check_rng, check_temperature, exact_number
from attnbounds.theory import jacobian as thj
from attnbounds.theory.normalization import continuous_on_reals, family_of, log_derivative_extremes, sampled_values

__all__ = [
    "CLAIM",
    "NORMS",
    "softmax_norm",
    "log_derivative_sup",
    "norm_sides",
    "paper_form_sides",
    "generic_sides",
    "softmax_instances",
    "softmax_sweep",
    "generic_instances",
    "generic_sweep",
    "certify_counterexample",
]

#: The four readings of "1/(4T)" and the field of SoftmaxJacobianNorms each one reads.
NORMS: dict[str, str] = {"entry": "max_entry", "row": "max_row", "spectral": "spectral", "frobenius": "frobenius"}

def _softmax_parts(instance):
    z = as_float_array(instance["logits"], "logits")
    T = np.asarray(check_temperature(instance["T"]), dtype=float)
    return z, T


def softmax_norm(instance, kind: str) -> np.ndarray:
    """The ``kind`` norm of J = (diag α − ααᵀ)/T for ``{"logits", "T"}`` (batched); of the
    Jacobian of ``instance["normalizer"]`` when the instance names one.

    >>> float(softmax_norm({"logits": [0.0, 0.0], "T": 1.0}, "row")) == math.sqrt(2) / 4
    True
    """
    if kind not in NORMS:
        raise ValueError(f"kind: must be one of {tuple(NORMS)}, got {kind!r}")
    z, T = _softmax_parts(instance)
    if instance.get("normalizer") is not None:  # drawn through another normalizer: its dense Jacobian
        return getattr(dense_jacobian_norms(jacobian_of(instance, z, T)), NORMS[kind])
    return getattr(softmax_jacobian_norms(z, T if T.ndim else float(T)), NORMS[kind])


def norm_sides(kind: str):
    """``sides`` for "‖·‖_kind ≤ 1/(4T)".

    >>> s = norm_sides("spectral")({"logits": [0.0, 0.0], "T": 1.0})
    >>> float(s.lhs), float(s.rhs)
    (0.5, 0.25)
    """
    if kind not in NORMS:
        raise ValueError(f"kind: must be one of {tuple(NORMS)}, got {kind!r}")

    @draws_weights
    def sides(instance) -> Sides:
        _, T = _softmax_parts(instance)
        return Sides(softmax_norm(instance, kind), 1.0 / (4.0 * T))

    return sides


@lru_cache(maxsize=1)
def _log_derivative_table():
    return thj.family_log_derivative_sup()


@lru_cache(maxsize=256)
def log_derivative_sup(family: str, param: float) -> float:
    """G = sup over the real line of |(log F)'| for a ratio family (exact, see
    :func:`attnbounds.theory.jacobian.family_log_derivative_sup`; the registry's families and
    the theory's share their names).

    >>> log_derivative_sup("softmax", 0.5), log_derivative_sup("even_power", 1.5), log_derivative_sup("taylor2", 1.0)
    (2.0, 1.5, 1.0)
    """
    if family not in FAMILY_NAMES:
        raise ValueError(f"family: must be one of {FAMILY_NAMES}, got {family!r}")
    expr, _ = _log_derivative_table()[family]
    values = family_normalizer(family, float(param)).params
    return float(expr.subs({s: exact_number(values[s.name], s.name) for s in expr.free_symbols if s.name in values}))


@lru_cache(maxsize=256)
def ratio_log_derivative_sup(family: str, param: float, length: int) -> float:
    """G = sup over the real line of |(log F)'| for a ratio-form normalizer outside the exact
    table of :func:`log_derivative_sup`: a user's F (``check --normalizer``), or a length-aware
    F read at n = ``length`` (the statement holds at each length with that length's F).

    Where F is a family of the theory under another name (a hand-written softplus,
    :func:`attnbounds.theory.normalization.family_of`), G is that family's exact table entry, as
    ``derive --normalizer`` takes it. Else SymPy finds the extremes of (log F)' exactly by the
    routine ``derive --normalizer`` uses
    (:func:`attnbounds.theory.normalization.log_derivative_extremes`: critical points and limits
    at ±∞, a piecewise (log F)' piece by piece, else SymPy's ``minimum`` and ``maximum``). The
    result is cross-checked on a grid of logits
    (:func:`attnbounds.theory.normalization.sampled_values`), and a ``ValueError`` (one line,
    naming F) says when it cannot be computed, so the reading is then *not applicable* with that
    reason, never in error.

    >>> ratio_log_derivative_sup("ssmax", 1.0, 4) == math.log(4)  # F_4(l) = 4^l: (log F)' = log 4
    True
    """
    F = family_normalizer(family, float(param))
    g = F.log_derivative(int(length))
    if g is None:
        raise ValueError(f"family: {family!r} has no ratio form F(l_i)/sum_j F(l_j)")
    from attnbounds.numerics.normalizers import LOGIT

    form = F.ratio_form(int(length))
    what = f"G = sup|(log F)'| for F = {sp.sstr(form)}"
    if g.free_symbols - {LOGIT}:
        raise ValueError(f"family: {what}: (log F)' = {sp.sstr(g)} has free symbols besides the logit")
    if not continuous_on_reals(form, LOGIT, unless_elementary=True):  # SymPy's (log F)' drops F's jumps
        raise ValueError(f"family: {what}: F is not shown continuous on the real line, so (log F)' = {sp.sstr(g)} "
                         "is not its derivative everywhere")
    G = None if F.depends_on_length else _family_table_sup(F)
    if G is None:
        exact = log_derivative_extremes(g, LOGIT)  # derive's routine
        try:
            G = None if exact is None else max(abs(float(exact.M)), abs(float(exact.m)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"family: SymPy cannot find the supremum {what} ({type(exc).__name__})") from None
        if G is None:
            raise ValueError(f"family: SymPy cannot find the supremum {what}")
    sampled = np.abs(np.asarray(sampled_values(g, LOGIT), dtype=float))
    if sampled.size and sampled.max() > G * (1 + 1e-9) + 1e-12:
        raise ValueError(f"family: {what}: SymPy's supremum {G:.6g} is below a sampled value {sampled.max():.6g}")
    return G


def _family_table_sup(N) -> float | None:
    """G of normalizer N from the exact table of
    :func:`attnbounds.theory.jacobian.family_log_derivative_sup` where N's F is a family's F (or
    its F at l/T: the table's G over T) at N's parameter values, whatever N is called; else None."""
    match = family_of(N.sympy_F, values=N.params, first=N.name)
    if match is None:
        return None
    name, scaled = match
    expr = _log_derivative_table()[name][0] / (thj.T if scaled else 1)
    values = {s: exact_number(N.params[s.name], s.name) for s in expr.free_symbols if N.params.get(s.name) is not None}
    G = expr.xreplace(values)
    return float(G) if G.is_number else None


def generic_sides(instance) -> Sides:
    """‖J‖₂ ≤ G/2 for α_i = F(l_i)/Σ F(l_k), F a ratio family, G = sup |(log F)'|.

    For any other positive ratio form F (a user's normalizer, ``check --normalizer``), G is
    that F's own (:func:`ratio_log_derivative_sup`; at the instance's L for a length-aware F).

    >>> s = generic_sides({"family": "taylor2", "param": 1.0, "logits": [0.0, 0.0]})
    >>> float(s.lhs), float(s.rhs)  # g(0) = 1 = G: equality
    (0.5, 0.5)
    """
    family = instance["family"]
    param = float(instance["param"])
    F = family_normalizer(family, param)
    z = as_float_array(instance["logits"], "logits")
    J = _ratio_jacobian(F, z)  # (..., L, L)
    lhs = np.linalg.norm(J, ord=2, axis=(-2, -1))
    return Sides(lhs, np.full(z.shape[:-1], _sup_log_derivative(family, param, int(z.shape[-1])) / 2)[()])


def _direct_terms(F, z):
    """``(F(z), F′(z))`` where they, and the ratio form's Jacobian from them, are normal float64
    numbers (F ≠ 0 and not subnormal: a subnormal min F made 'sharpest' 123.25 instead of 123.125;
    Σ² finite and normal: 0/0 at F = e^{l³}, l = -8), or where F < 0 (the direct path refuses it:
    the hypothesis F > 0); else None, and the terms come from log F (:func:`_log_space_sides`)."""
    with np.errstate(all="ignore"):
        f, fp = F.F(z), F.dF(z)
        if not (np.all(np.isfinite(f)) and np.all(np.isfinite(fp))) or np.any(f == 0):
            return None
        if np.any(f < 0):
            return f, fp
        if np.any(f < np.finfo(float).tiny):
            return None
        S = f.sum(axis=-1)
        S2 = S * S
        ok = np.all(np.isfinite(S2)) and np.all(S2 >= np.finfo(float).tiny) and np.all(np.isfinite(fp * S[..., None]))
    return (f, fp) if ok else None


def _ratio_jacobian(F, z) -> np.ndarray:
    """J of α_i = F(l_i)/Σ F(l_k) from F and F′ (:func:`~attnbounds.numerics.jacobian.normalizer_jacobian`),
    or, where those leave float64's range, the normalizer's own (softmax of log F times (log F)′)."""
    terms = _direct_terms(F, z)
    if terms is not None:
        return normalizer_jacobian(lambda _: terms[0], lambda _: terms[1], z)
    if not np.all(np.isfinite(F.log_ratio(z, 0))):
        raise ValueError("F: must be > 0 on the given logits (log F undefined there)")
    return F.jacobian(z)


def _sup_log_derivative(family: str, param: float, length: int) -> float:
    """G = sup|(log F)'| of :func:`generic_sides`: the exact table's for a ratio family, else
    that F's own at L = ``length``."""
    if family in FAMILY_NAMES:
        return log_derivative_sup(family, param)
    return ratio_log_derivative_sup(family, param, length)


def _norm2(x) -> np.ndarray:
    """‖x‖₂ over the last axis, scaled by max |x_i| where the squares would leave float64's range
    (F′ = 3l²e^{l³} at l = -9.05: its square underflowed, and 'two_term' was half its value);
    numpy's own elsewhere (the same digits as before)."""
    x = np.asarray(x, dtype=float)
    m = np.abs(x).max(axis=-1)
    if np.all((m == 0) | ((m > 1e-150) & (m < 1e150))):
        return np.linalg.norm(x, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where((m > 0) & np.isfinite(m), m, 1.0)
        out = safe * np.linalg.norm(x / safe[..., None], axis=-1)
    return np.where(np.isfinite(m), out, np.inf)


def _log_space_sides(kind: str, F, z) -> Sides:
    """:func:`paper_form_sides` where F or F′ leaves float64's range: every term from log F and
    g = (log F)′ = F′/F (:meth:`~attnbounds.numerics.normalizers.Normalizer.log_ratio`),
    F′_i / min F = g_i e^{log F_i − min log F}, and J from the normalizer's own Jacobian
    (softmax of log F). A right side beyond float64 is ∞, which the left side (finite) meets,
    as it meets the finite number it stands for. A trial's F = e^{l³} was reported as "F must be
    > 0 (min 0)" where F underflows, and as an SVD that did not converge where it overflows."""
    lf, g = F.log_ratio(z, 0), F.log_ratio(z, 1)
    if not np.all(np.isfinite(lf)):  # no real logarithm: F <= 0 there (or F = 0 exactly)
        raise ValueError(f"F: must be > 0 on the given logits (log F undefined at l = {z[~np.isfinite(lf)][0]:.6g})")
    if not np.all(np.isfinite(g)):
        raise ValueError(f"F'/F: not finite at l = {z[~np.isfinite(g)][0]:.6g}")
    with np.errstate(over="ignore", invalid="ignore"):
        ratio = np.exp(lf - lf.min(axis=-1, keepdims=True))  # F_i / min F >= 1, ∞ beyond float64
        q = np.where(g == 0, 0.0, g * ratio)  # F′_i / min F
        fp_inf = np.abs(q).max(axis=-1)  # ‖F′‖_∞ / min F
        sharpest = fp_inf / 2
        log_form = np.abs(g).max(axis=-1) / 2
        if kind == "compare":
            return Sides(log_form, sharpest)
        lhs = np.linalg.norm(F.jacobian(z), ord=2, axis=(-2, -1))
        if kind == "two_term":
            return Sides(lhs, (fp_inf + _norm2(q)) / z.shape[-1])
    return Sides(lhs, sharpest if kind == "sharpest" else log_form)


def paper_form_sides(kind: str):
    """``sides`` for the paper-form readings of the generic bound (``kind`` in two_term, sharpest,
    log_form, compare) on ``{"family", "param", "logits"}`` (batched).

    >>> s = paper_form_sides("sharpest")({"family": "softmax", "param": 1.0, "logits": [0.0, 0.0]})
    >>> float(s.lhs), float(s.rhs)  # attained
    (0.5, 0.5)
    >>> s = paper_form_sides("compare")({"family": "softmax", "param": 1.0, "logits": [0.0, 2.0]})
    >>> round(float(s.rhs / s.lhs), 6) == round(math.exp(2.0), 6)
    True
    """
    if kind not in ("two_term", "sharpest", "log_form", "compare"):
        raise ValueError(f"kind: must be one of two_term, sharpest, log_form, compare; got {kind!r}")

    def sides(instance) -> Sides:
        F = family_normalizer(instance["family"], float(instance["param"]))
        z = as_float_array(instance["logits"], "logits")
        terms = _direct_terms(F, z)
        if terms is None:
            return _log_space_sides(kind, F, z)  # F leaves float64's range (F = e^{l³} at l = -10 or 9)
        f, fp = terms  # (..., L)
        if np.any(f <= 0):  # the hypothesis F > 0 (trial 51: 'compare' has no Jacobian to say so)
            raise ValueError(f"F: must be > 0 on the given logits (min {f.min():.3g})")
        fp_inf = np.abs(fp).max(axis=-1)
        f_min = f.min(axis=-1)
        with np.errstate(over="ignore"):  # beyond float64: ∞, which the finite left side meets
            sharpest = fp_inf / (2 * f_min)
        if kind == "compare":
            return Sides(np.abs(fp / f).max(axis=-1) / 2, sharpest)
        J = normalizer_jacobian(lambda _: f, lambda _: fp, z)  # (..., L, L)
        lhs = np.linalg.norm(J, ord=2, axis=(-2, -1))
        if kind == "two_term":
            with np.errstate(over="ignore"):
                rhs = (fp_inf + _norm2(fp)) / (z.shape[-1] * f_min)
        elif kind == "sharpest":
            rhs = sharpest
        else:
            rhs = np.abs(fp / f).max(axis=-1) / 2
        return Sides(lhs, rhs)

    return sides


# ------------------------------------------------------------------ instances

_MAXIMIZERS = [
    {"logits": np.array([0.0, 0.0]), "T": 1.0},
    {"logits": np.array([0.0, 0.0]), "T": 0.1},
    {"logits": np.array([3.0, 3.0, -30.0]), "T": 1.0},
]


@st.composite
def _softmax_instances(draw):
    z = draw(abst.logits(min_size=1, max_size=8, min_value=-10.0, max_value=10.0))
    T = draw(abst.temperatures(1e-3, 1e3))
    return {"logits": z, "T": T}


def softmax_instances():
    """Hypothesis strategy of ``{"logits": (L,), "T": float}``, with the maximizers as examples."""
    return st.one_of(st.sampled_from(_MAXIMIZERS), _softmax_instances())


def softmax_sweep(rng: np.random.Generator, n: int) -> dict:
    """n instances with one L per call; T log-uniform in [1e-3, 1e3] per row; a quarter of the
    rows have two tied top logits and the rest far below (near the maximizer α = (1/2, 1/2))."""
    _check_rng(rng, n)
    L = int(rng.choice([1, 2, 3, 4, 8, 16, 32]))
    z = float(rng.choice([0.3, 3.0, 10.0])) * rng.standard_normal((n, L))
    k = n // 4
    if k and L >= 2:
        z[:k] = -rng.uniform(5.0, 40.0, size=(k, 1))
        z[:k, :2] = 0.0
    T = 10.0 ** rng.uniform(-3, 3, size=n)
    return {"logits": z, "T": T}


@st.composite
def _generic_instances(draw):
    F = draw(abst.normalizer_families())
    z = draw(abst.logits(min_size=1, max_size=8, min_value=-10.0, max_value=10.0))
    param = float(F.params[F.search_param]) if F.search_param else 1.0
    return {"family": F.name, "param": param, "logits": z}


def generic_instances():
    """Hypothesis strategy of ``{"family", "param", "logits"}`` over the ratio-form families."""
    return _generic_instances()


def generic_sweep(rng: np.random.Generator, n: int) -> dict:
    """n instances sharing family, parameter and L (drawn per call); logits N(0, s²) per row."""
    _check_rng(rng, n)
    family = str(rng.choice(FAMILY_NAMES))
    param = float(rng.choice(PARAM_CHOICES.get(family, (1.0,))))
    L = int(rng.choice([1, 2, 3, 4, 8, 16]))
    z = float(rng.choice([0.5, 2.0, 8.0])) * rng.standard_normal((n, L))
    return {"family": family, "param": param, "logits": z}


def _check_rng(rng, n):
    check_rng(rng, "rng")
    check_count(n, "n")


# ------------------------------------------------------------------ exact methods


def _arb_norms(T):
    """The four norms of J at logits (0, 0), temperature T, in arb interval arithmetic."""
    from flint import arb

    e = arb(0).exp()
    a1 = e / (e + e)  # α = (1/2, 1/2)
    a2 = 1 - a1
    d, o = a1 * (1 - a1) / T, -a1 * a2 / T  # J = [[d, o], [o, d']]
    d2 = a2 * (1 - a2) / T
    lam = (d + d2) / 2 + (((d - d2) / 2) ** 2 + o * o).sqrt()  # largest eigenvalue, J ⪰ 0
    return {
        "entry": max(d, d2, abs(o), key=lambda x: x.mid()),
        "row": (d * d + o * o).sqrt(),
        "spectral": lam,
        "frobenius": (d * d + 2 * o * o + d2 * d2).sqrt(),
    }


def certify_counterexample(kind: str, secondary: bool = False) -> Proof:
    """Certify the violation at the maximizer with python-flint ``arb``: at logits (0, 0), the
    ``kind`` norm's enclosure lies strictly above the enclosure of the bound.

    >>> certify_counterexample("row").status
    False
    """
    from flint import arb

    if kind not in NORMS:
        raise ValueError(f"kind: must be one of {tuple(NORMS)}, got {kind!r}")
    T_num = 0.1 if (secondary and kind == "entry") else 1.0
    T = arb(1) / 10 if T_num == 0.1 else arb(1)
    lhs = _arb_norms(T)[kind]
    rhs = 1 / (4 * T)
    if secondary:
        rhs = rhs if rhs < arb(2).sqrt() else arb(2).sqrt()
    if lhs > rhs:
        return Proof(
            False,
            f"arb: at logits (0, 0), T = {T_num:g}: {kind} norm in {lhs} > bound in {rhs}",
            counterexample={"logits": np.array([0.0, 0.0]), "T": T_num},
            lhs=float(lhs.mid()),
            rhs=float(rhs.mid()),
        )
    return Proof(None, f"arb could not separate {lhs} from {rhs}")


@lru_cache(maxsize=1)
def _softmax_certificates() -> dict:
    """Every exact certificate the softmax readings use, computed once per process."""
    return {
        "jacobian": thj.check_softmax_jacobian(2) and thj.check_softmax_jacobian(3),
        "entry": thj.prove_entry_bound(),
        "row": thj.prove_row_bound(),
        "spectral": thj.prove_spectral_bound(),
        "frobenius": thj.prove_frobenius_bound(),
        "at_max": thj.maximizer_values(),
        "secondary": thj.secondary_form_judgement(),
    }


def _entry_symbols() -> dict:
    """The symbols of :func:`entry_bound_check`, by name (:func:`_bind_entry` gives them values)."""
    return {
        "T": sp.Symbol("T", real=True),
        "l_i": sp.Symbol("l_i", real=True),
        "l_j": sp.Symbol("l_j", real=True),
        "R": sp.Symbol("R", nonnegative=True),  # a sum of exponentials (0 when L = 2)
        "alpha_i": sp.Symbol("alpha_i", real=True),
        "alpha_j": sp.Symbol("alpha_j", real=True),
    }


def entry_bound_check(bound=None):
    """The checked chains of L2:entry: |∂α_i/∂l_i| ≤ 1/(4T) and |∂α_i/∂l_j| ≤ 1/(4T), j ≠ i,
    for softmax with temperature T > 0 and any number of tokens (or for another ``bound``).

    With E_i = e^{l_i/T} and R the sum of the exponentials not involved, α_i = E_i/(E_i + R)
    (diagonal) and α_i = E_i/(E_i + E_j + R) (off-diagonal); the derivatives are computed by
    SymPy, and the identity steps rewrite them as α_i(1 − α_i)/T and −α_i α_j/T.
    """
    s = _entry_symbols()
    T, li, lj, R, p, q = (s[n] for n in ("T", "l_i", "l_j", "R", "alpha_i", "alpha_j"))
    bound = 1 / (4 * T) if bound is None else bound
    Ei, Ej = sp.exp(li / T), sp.exp(lj / T)
    ctx = Context({
        "temperature": (T > 0,),
        "weights": (p >= 0, q >= 0, p + q <= 1),
        "definition": (sp.Eq(p, Ei / (Ei + R)),),
    })
    d_ii = sp.diff(Ei / (Ei + R), li)
    diag = (Chain(d_ii, ctx).eq(Ei / (Ei + R) * (1 - Ei / (Ei + R)) / T, by.identity())
            .eq(p * (1 - p) / T, by.hypothesis("definition"))
            .eq((sp.Rational(1, 4) - (p - sp.Rational(1, 2)) ** 2) / T, by.identity())
            .le(bound, by.algebra()))
    ctx2 = Context({**{k: v for k, v in ctx.hypotheses.items() if k != "definition"},
                    "definition": (sp.Eq(p, Ei / (Ei + Ej + R)), sp.Eq(q, Ej / (Ei + Ej + R)))})
    d_ij = -sp.diff(Ei / (Ei + Ej + R), lj)  # |d alpha_i / d l_j| = -d alpha_i / d l_j >= 0
    off = (Chain(d_ij, ctx2).eq(Ei / (Ei + Ej + R) * (Ej / (Ei + Ej + R)) / T, by.identity())
           .eq(p * (Ej / (Ei + Ej + R)) / T, by.hypothesis("definition"))
           .eq(p * q / T, by.hypothesis("definition"))
           .eq(((p + q) ** 2 - (p - q) ** 2) / (4 * T), by.identity())
           .le((p + q) ** 2 / (4 * T), by.algebra())
           .le(bound, by.algebra()))
    return AllOf((diag.prove(d_ii, "<=", bound), off.prove(d_ij, "<=", bound)))


def _bind_entry(instance: dict) -> dict:
    """The values of the symbols of L2:entry's first chain, ∂α_i/∂l_i = α_i(1 − α_i)/T ≤ 1/(4T)
    (:func:`entry_bound_check`), at the token i of the largest entry, for the tie of the goal to
    the sides (:mod:`attnbounds.engine.tie`). The sides are the largest |∂α_i/∂l_j| over all
    entries. That is a diagonal one (α_i α_j ≤ α_i(1 − α_i), as α_j ≤ 1 − α_i), and α_i(1 − α_i) is
    largest at the weight nearest 1/2, which is the largest weight α_m (if α_m ≤ 1/2, every weight
    is at most α_m; if not, every other is at most 1 − α_m < 1/2). So the goal's value at the
    token of the largest logit is the sides'. The off-diagonal chain (the second part) is not tied.

    The logits are measured from their maximum, as the stable softmax computes them (the weights
    are unchanged, and no exponential overflows): l_i = 0 and R = Σ_{k≠i} e^{(l_k − l_i)/T}. α_j,
    which only the hypotheses shared with the off-diagonal chain read (α_j ≥ 0, α_i + α_j ≤ 1), is
    the second largest weight (0 for one token).

    >>> v = _bind_entry({"logits": np.array([0.0, -1.0, -30.0]), "T": 1.0})
    >>> {str(k): round(float(x), 6) for k, x in v.items()}
    {'T': 1.0, 'l_i': 0.0, 'R': 0.367879, 'alpha_i': 0.731059, 'alpha_j': 0.268941}
    """
    z, T = _softmax_parts(instance)
    T = float(T)
    i = int(np.argmax(z))
    a = softmax(z, T)
    rest = np.delete(a, i)
    s = _entry_symbols()
    return {s["T"]: T, s["l_i"]: 0.0, s["R"]: float(np.exp((np.delete(z, i) - z[i]) / T).sum()),
            s["alpha_i"]: float(a[i]), s["alpha_j"]: float(rest.max()) if rest.size else 0.0}


def _bind_generic(instance: dict) -> dict:
    """The values of the symbols of the general-L chains (:func:`attnbounds.theory.jacobian.
    ratio_setting`) at one instance ``{"family", "param", "logits"}``, for the tie of their goals
    to the sides (:mod:`attnbounds.engine.tie`): L and the logits l; F and F' as the family's own
    callables (``F.F``, ``F.dF``: the functions :func:`paper_form_sides` and
    :func:`generic_sides` differentiate the weights with), so the goal's ‖J‖₂ is SymPy's
    derivative of F(l_u)/Σ_k F(l_k) evaluated with them; f = F(l), fp = F'(l) and S = Σ f as the
    definitions name them; and G = sup|(log F)'| as :func:`generic_sides` takes it. The goals are
    about the whole matrix and all the tokens, as the sides: no token is picked.

    >>> v = _bind_generic({"family": "softmax", "param": 0.5, "logits": np.array([0.0, 1.0])})
    >>> {str(k): np.round(x, 4).tolist() for k, x in v.items() if not isinstance(x, tuple)}
    {'L': 2, 'l': [0.0, 1.0], 'f': [1.0, 7.3891], 'fp': [2.0, 14.7781], 'S': 8.3891, 'G': 2.0}
    """
    family, param = instance["family"], float(instance["param"])
    N = family_normalizer(family, param)
    z = as_float_array(instance["logits"], "logits")
    f = N.F(z)
    s = thj.ratio_setting()
    return {s["L"]: int(z.shape[-1]), s["l"]: z, s["F"]: (N.F, N.dF), s["f"]: f, s["fp"]: N.dF(z),
            s["S"]: float(f.sum()), s["G"]: _sup_log_derivative(family, param, int(z.shape[-1]))}


def _symbolic_norm(kind: str, secondary: bool = False):
    def symbolic() -> Proof:
        cert = _softmax_certificates()
        if not cert["jacobian"]:
            return Proof(None, "the softmax Jacobian check did not go through")
        if not cert[kind]:
            return Proof(None, f"the {kind} certificate did not go through")
        sup = thj.SOFTMAX_SUPREMA[kind]
        at_max = cert["at_max"][kind]
        if not thj.is_identity(at_max, sup):
            return Proof(None, f"the {kind} maximizer does not attain {sup}")
        T_sym = sp.Symbol("T", positive=True)
        if secondary:
            judgement = cert["secondary"][kind]
            T_num = sp.Rational(1, 10) if kind == "entry" else sp.Integer(1)
            bound = thj.SECONDARY_BOUND.subs(T_sym, T_num)
            where = f"violated for {judgement['violated_for']}"
        else:
            T_num = sp.Integer(1)
            bound = 1 / (4 * T_num)
            where = ""
        gap = sup.subs(T_sym, T_num) - bound
        if gap.is_positive:
            return Proof(
                False,
                f"exact: sup of the {kind} norm is {sp.sstr(sup)}, attained at logits (0, 0); at T = "
                f"{T_num}: {sp.sstr(sup.subs(T_sym, T_num))} > {sp.sstr(bound)} {where}".rstrip(),
                counterexample={"logits": np.array([0.0, 0.0]), "T": float(T_num)},
                lhs=float(sup.subs(T_sym, T_num)),
                rhs=float(bound),
            )
        if not secondary and kind == "entry" and sp.simplify(sup - 1 / (4 * T_sym)) == 0:
            return Proof.from_chain(
                entry_bound_check(),
                "every Jacobian entry: d alpha_i/d l_i = alpha_i(1 - alpha_i)/T and d alpha_i/d l_j = "
                "-alpha_i alpha_j/T (differentiated exactly, R = the other exponentials), each <= 1/(4T); "
                "sharp at logits (0, 0)",
            )
        return Proof(None, f"{kind}: neither proved nor refuted")

    return symbolic


@lru_cache(maxsize=1)  # exact and deterministic: compute once
def _symbolic_generic() -> Proof:
    return Proof.from_chain(
        thj.generic_spectral_chain("G"),
        "|J|_2 <= G/2 for any L: J = (diag a - a a^T) diag(F'/F) entrywise (derivatives by SymPy, symbolic i, j); "
        "|A B|_2 <= |A|_2 |B|_2; |diag a - a a^T|_2 <= 1/2 (Gershgorin: row sums 2a_i(1 - a_i)); "
        "|diag(F'/F)|_2 <= G (|F'/F| <= G at every token)",
    )


#: The checked chain behind each paper-form reading (None: still argued).
_PAPER_CHAINS = {
    "two_term": thj.two_term_chain,
    "sharpest": lambda: thj.generic_spectral_chain("sharpest"),
    "log_form": lambda: thj.generic_spectral_chain("log_form"),
    "compare": thj.log_form_tighter_chain,
}


def _symbolic_paper(kind: str):
    text = {
        "two_term": "J = diag(F')/S - F F'^T/S^2 entrywise for any L; triangle inequality; |diag(F')|_2 = max|F'|; "
        "|F F'^T|_2 = |F|_2 |F'|_2 (rank one); |F|_2 <= |F|_1 = S; S >= L min F",
        "sharpest": "|J|_2 <= |diag a - a a^T|_2 |diag(F'/F)|_2 <= (1/2) max|F'|/min F for any L (Gershgorin; "
        "|F'_k|/F_k <= max|F'|/min F); attained by softmax at logits (0, 0)",
        "log_form": "|J|_2 <= |diag a - a a^T|_2 |diag(F'/F)|_2 <= (1/2) max_k |F'(l_k)/F(l_k)| for any L "
        "(Gershgorin; the spectral norm of a diagonal matrix)",
        "compare": "max_k |F'(l_k)|/F(l_k) <= max|F'|/min F: every term is, since |F'(l_k)| <= max|F'| and F(l_k) >= min F",
    }[kind]

    @lru_cache(maxsize=1)
    def symbolic() -> Proof:
        make = _PAPER_CHAINS[kind]
        if make is not None:
            return Proof.from_chain(make(), text)
        ok = thj.check_generic_jacobian(2) and thj.check_generic_jacobian(3) and thj.prove_spectral_bound()
        thj.prove_paper_form_bounds()  # raises if an identity fails
        if not ok:
            return Proof(None, "an exact certificate did not go through")
        return Proof(None, "argued (no checked chain yet): exact: " + text)

    return symbolic


def _symbolic_form() -> dict:
    T_sym = sp.Symbol("T", positive=True)
    out = {f"sup_{k}": v for k, v in thj.SOFTMAX_SUPREMA.items()}
    out["classic"] = 1 / (4 * T_sym)
    out["secondary"] = thj.SECONDARY_BOUND
    out["generic_spectral"] = thj.G / 2
    return out


def _generic_reading(name, form, statement, latex):
    """A reading of the generic-F bound in the paper's ``form`` (see :func:`paper_form_sides`)."""
    return Reading(
        name,
        statement,
        latex,
        symbolic=_symbolic_paper(form),
        strategy=generic_instances,
        sides=paper_form_sides(form),
        sweep=generic_sweep,
        bind=_bind_generic,
    )


def _softmax_reading(name, kind, statement, latex, note, secondary=False, bind=None):
    certify = None
    if not (kind == "entry" and not secondary):
        certify = lambda: certify_counterexample(kind, secondary)  # noqa: E731
    return Reading(
        name,
        statement,
        latex,
        symbolic=_symbolic_norm(kind, secondary),
        certify=certify,
        strategy=softmax_instances,
        sides=norm_sides(kind),
        sweep=softmax_sweep,
        rtol=1e-9,
        atol=1e-12,
        note=note,
        bind=bind,
    )


def _temperature_positive(instance):
    T = np.asarray(instance.get("T", 1.0), dtype=float)
    return T > 0


CLAIM = Claim(
    id="L2",
    order=7,
    title="Lemma 2: gradient sensitivity of normalized attention",
    source="arXiv 2508.17821, Lemma 2 (summary: 'recovers the classic 1/(4T)'; secondary: min{1/(4T), sqrt 2})",
    statement=(
        "J = (diag a - a a^T) diag(F'/F); |J_ij| <= G/4, |J_i,:|_2 <= sqrt(2)G/4, |J|_2 <= G/2, |J|_F <= G/2 "
        "with G = sup|(log F)'|; for softmax the sharp suprema are 1/(4T), sqrt(2)/(4T), 1/(2T), 1/(2T)."
    ),
    transcription="the Jacobian norm of softmax with temperature T is bounded by the classic 1/(4T)",
    transcription_latex=r"\left\|\frac{\partial\alpha}{\partial l}\right\| \le \frac{1}{4T}",
    hypotheses=(
        Hypothesis("positive-temperature", "T > 0", check=_temperature_positive),
        Hypothesis(
            "differentiable-positive-F",
            "F > 0 and differentiable, G = sup|(log F)'| finite",
            # a callable without a SymPy F: not known (None), rather than "not met"
            admits=lambda N: None if N.sympy_F is None else bool(N.positive),
        ),
        Hypothesis(
            "softmax",
            "the 1/(4T) readings (transcribed, entry, row, spectral, frobenius) take F = exp(l/T), so G = 1/T; "
            "the generic readings need only the hypothesis above",
            admits=is_softmax,
            readings=("transcribed", "entry", "row", "spectral", "frobenius"),
        ),
    ),
    readings=(
        _softmax_reading(
            "transcribed",
            "spectral",
            "|d alpha/d l|_2 <= 1/(4T) (the summary's 'Jacobian norm', which names no norm, read as the operator "
            "2-norm: the secondary source's |grad_l alpha|_2, CLAIMS.md)",
            r"\left\|\frac{\partial\alpha}{\partial l}\right\|_2 \le \frac{1}{4T}",
            "false: the sharp sup is 1/(2T) (same quantity as the spectral reading); read entrywise, the same words "
            "hold (L2:entry)",
        ),
        Reading(
            "reconstructed",
            "|J|_2 <= G/2 for any positive F, G = sup|(log F)'| (softmax: 1/(2T))",
            r"\|J\|_2 \le \tfrac12 \sup|(\log F)'|",
            symbolic=_symbolic_generic,
            strategy=generic_instances,
            sides=generic_sides,
            sweep=generic_sweep,
            rtol=1e-9,
            atol=1e-12,
            bind=_bind_generic,
            note="sharp in G: softmax at logits (0, 0) attains it (argued on the page, not part of the verdict)",
        ),
        _softmax_reading(
            "entry",
            "entry",
            "max_ij |d alpha_i/d l_j| <= 1/(4T)",
            r"\max_{i,j}\left|\frac{\partial\alpha_i}{\partial l_j}\right| \le \frac{1}{4T}",
            "true and sharp (alpha_i = 1/2)",
            bind=_bind_entry,
        ),
        _softmax_reading(
            "row",
            "row",
            "max_i |grad_l alpha_i|_2 <= 1/(4T)",
            r"\max_i \|\nabla_l \alpha_i\|_2 \le \frac{1}{4T}",
            "false: sharp sup sqrt(2)/(4T) at alpha = (1/2, 1/2)",
        ),
        _softmax_reading(
            "spectral",
            "spectral",
            "|J|_2 <= 1/(4T)",
            r"\|J\|_2 \le \frac{1}{4T}",
            "false: sharp sup 1/(2T) at alpha = (1/2, 1/2)",
        ),
        _softmax_reading(
            "frobenius",
            "frobenius",
            "|J|_F <= 1/(4T)",
            r"\|J\|_F \le \frac{1}{4T}",
            "false: sharp sup 1/(2T) at alpha = (1/2, 1/2)",
        ),
        _generic_reading(
            "generic-paper",
            "two_term",
            "|J|_2 <= (max_k |F'(l_k)| + |F'(l)|_2) / (L min_j F(l_j)) (the paper's two-term form)",
            r"\|J\|_2 \le \frac{\max_k|F'(l_k)| + \|F'(l)\|_2}{L\,\min_j F(l_j)}",
        ),
        _generic_reading(
            "generic-sharpest",
            "sharpest",
            "|J|_2 <= max_k |F'(l_k)| / (2 min_j F(l_j)) (the constant 1/2 is the best of that form: argued on the page, "
            "not part of the verdict)",
            r"\|J\|_2 \le \frac{\max_k|F'(l_k)|}{2\min_j F(l_j)}",
        ),
        _generic_reading(
            "log-form",
            "log_form",
            "|J|_2 <= max_k |(log F)'(l_k)| / 2 (instance-wise (log F)' form)",
            r"\|J\|_2 \le \tfrac12\max_k|(\log F)'(l_k)|",
        ),
        _generic_reading(
            "log-form-tighter",
            "compare",
            "max_k |(log F)'(l_k)| / 2 <= max_k |F'(l_k)| / (2 min_j F(l_j)): our form is never looser",
            r"\tfrac12\max_k\frac{|F'(l_k)|}{F(l_k)} \le \frac{\max_k|F'(l_k)|}{2\min_j F(l_j)}",
        ),
    ),
    proof=__doc__,
    symbolic_form=_symbolic_form,
    derivations=("L2-generic", "L2-softmax"),
)
