"""Lemma 1 and Corollary 1: a length-independent normalizer gives weights of order 1/L.

Setting (``shared/paper/CLAIMS.md``): weights α_i = F(l_i) / Σ_j F(l_j) over L logits, with
F positive and continuous on the logit range [−a, a] and independent of L. Let

    m = min_{[−a, a]} F,   M = max_{[−a, a]} F   (0 < m ≤ M; both attained, F is continuous).

Write α_i = F(l_i) / (F(l_i) + R_i) with R_i = Σ_{j≠i} F(l_j) ∈ [(L−1)m, (L−1)M]. The map
(x, R) ↦ x / (x + R) increases in x and decreases in R, hence the **tight** bounds

    m / (m + (L−1)M)  ≤  α_i  ≤  M / (M + (L−1)m),

attained by one logit at an extreme of F and all others at the other extreme. They lie inside
the **loose** bounds C1/L ≤ α_i ≤ C2/L with C1 = m/M and C2 = M/m, which are the best constants
independent of L (L·M/(M + (L−1)m) increases to M/m as L → ∞).

Softmax with temperature T (F = exp(l/T)) has C1 = e^{−2a/T}, C2 = e^{2a/T}. With
a = Δ = ‖q‖·max_j‖k_j‖ (Cauchy–Schwarz: |q·k_j| ≤ Δ) this is Corollary 1.

Every inequality here is proved exactly: a difference is brought to one fraction whose numerator
and denominator become polynomials with non-negative coefficients after substituting
non-negative variables (M = m + d, L = 1 + n), see :func:`nonnegative_polynomial`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp
from sympy.calculus.util import continuous_domain

from attnbounds.theory.derivation import Result, is_identity, register

__all__ = [
    "l",
    "a",
    "L",
    "T",
    "m",
    "M",
    "Delta",
    "NormalizerFamily",
    "FAMILIES",
    "family_of",
    "NormalizerConstants",
    "function_extremes",
    "real_line_extremes",
    "log_derivative_extremes",
    "sampled_values",
    "continuous_on_reals",
    "normalizer_constants",
    "prove_tight_bounds",
    "tight_bounds",
    "loose_bounds",
    "nonnegative_polynomial",
    "prove_tight_within_loose",
    "prove_softmax_tight_within_loose",
    "upper_constant_is_best",
    "derive_lemma1_constants",
    "derive_corollary1",
]

#: A logit.
l = sp.Symbol("l", real=True)
#: Half-width of the logit range [−a, a].
a = sp.Symbol("a", positive=True)
#: Number of tokens.
L = sp.Symbol("L", positive=True, integer=True)
#: Temperature.
T = sp.Symbol("T", positive=True)
#: min and max of F on [−a, a].
m = sp.Symbol("m", positive=True)
M = sp.Symbol("M", positive=True)
#: Δ = ‖q‖·max_j‖k_j‖, the logit bound of Corollary 1.
Delta = sp.Symbol("Delta", positive=True)
#: Offset and exponent of the power family.
c = sp.Symbol("c", positive=True)
p = sp.Symbol("p", positive=True)


@dataclass(frozen=True)
class NormalizerFamily:
    """A positive normalizer F(l) with its parameters (all positive symbols).

    ``real_line`` says whether F is positive on the whole real line (then it is a normalizer
    α_i = F(l_i)/Σ_j F(l_j) for every logit, and :mod:`attnbounds.numerics.normalizers`
    registers it under the same name) or only on the logit range [−a, a].
    """

    name: str
    F: sp.Expr
    params: tuple[sp.Symbol, ...]
    description: str
    real_line: bool = True


#: Positive normalizer families used by Lemma 1 and Lemma 2: the single source of the
#: symbolic families (F independent of L). The numeric registry
#: (:mod:`attnbounds.numerics.normalizers`) builds its ratio-form normalizers from these, under
#: the same names. Names are unique across both layers: ``sigmoid_ratio`` is the ratio form
#: σ(l/T)/Σσ (the registry's ``sigmoid`` is sigmoid *attention*, σ(l/T − log n) elementwise);
#: ``even_power`` is (1 + l²)^p and ``shifted_power`` is (l + a + c)^p (both were once
#: called "power", in different layers); ``taylor2`` was once called "quadratic" here.
FAMILIES: dict[str, NormalizerFamily] = {
    "softmax": NormalizerFamily("softmax", sp.exp(l / T), (T,), "exp(l/T)"),
    "softplus": NormalizerFamily("softplus", sp.log(1 + sp.exp(l / T)), (T,), "log(1 + exp(l/T))"),
    "taylor2": NormalizerFamily(
        "taylor2",
        1 + l / T + (l / T) ** 2 / 2,
        (T,),
        "1 + x + x²/2 with x = l/T (second-order Taylor polynomial of exp; positive, not monotone)",
    ),
    "even_power": NormalizerFamily(
        "even_power", (1 + l**2) ** p, (p,), "(1 + l²)^p with p > 0 (positive, not monotone)"
    ),
    "sigmoid_ratio": NormalizerFamily(
        "sigmoid_ratio", 1 / (1 + sp.exp(-l / T)), (T,), "1/(1 + exp(-l/T)), as the ratio F(l_i)/sum_j F(l_j)"
    ),
    "shifted_power": NormalizerFamily(
        "shifted_power",
        (l + a + c) ** p,
        (c, p),
        "(l + a + c)^p with c > 0, p > 0 (positive on [−a, a] only)",
        real_line=False,
    ),
}


def family_of(F, *, values=None, first: str | None = None) -> tuple[str, bool] | None:
    """Which family of :data:`FAMILIES` on the real line F is, whatever it is called: ``(name,
    False)`` where F is the family's F exactly (:func:`is_identity`), ``(name, True)`` where it
    is the family's F at l/T (a family without T: a ``from_sympy`` plug-in reads l/T), else None.
    F's free symbols are taken by name: ``l``, ``T``, ``p``, ``c`` as the theory's (a symbol of
    another name makes it no family). A family's parameters are positive: each must have a value
    in ``values`` (``{name: number}``, the normalizer's parameters) decided > 0, or, without
    one, be a symbol of F declared positive; else the family's table does not apply ((1 + l²)^p
    with p = −1 is not even_power, whose G = p is for p > 0). The family named ``first`` is tried
    first. A hand-written softplus, log(1 + e^{l/T}), is the family softplus, so the exact
    tables of its constants apply to it (stop 50's lead: derive left its G undecided). A bad
    ``F`` (see :func:`normalizer_constants`) or ``values`` is an error naming it.

    >>> family_of(sp.log(sp.exp(sp.Symbol("l") / sp.Symbol("T", positive=True)) + 1))
    ('softplus', False)
    >>> family_of((1 + (l / T) ** 2) ** p), family_of(sp.exp(2 * l)), family_of(sp.exp(l / T) + 1)
    (('even_power', True), None, None)
    >>> family_of((1 + (l / T) ** 2) ** p, values={"p": -1.0, "T": 1.0})  # p must be > 0
    >>> family_of("exp(l/T", first="softmax")
    Traceback (most recent call last):
    ...
    ValueError: F: cannot parse 'exp(l/T' as a SymPy expression (SympifyError)
    """
    theirs = {"l": l, "T": T, "p": p, "c": c}
    F = _as_expr(F, "F", l)
    if values is not None and not isinstance(values, dict):
        raise TypeError(f"values: expected a dict of parameter values, got {type(values).__name__}")
    if any(s.name not in theirs for s in F.free_symbols):
        return None
    values = dict(values or {})
    for s in F.free_symbols:
        if s.name == "l":
            continue
        v = values.get(s.name)
        if not (s.is_positive if v is None else sp.sympify(v).is_positive):
            return None
    F = F.xreplace({s: theirs[s.name] for s in F.free_symbols})
    names = sorted(FAMILIES, key=lambda name: name != first)
    for name in names:
        fam = FAMILIES[name]
        if not fam.real_line or F.free_symbols - {l, T} != set(fam.params) - {T}:
            continue
        if is_identity(F, fam.F):
            return name, False
        if T not in fam.params and is_identity(F, fam.F.xreplace({l: l / T})):
            return name, True
    return None


@dataclass(frozen=True)
class NormalizerConstants:
    """min/max of F on [−a, a], where they are attained, and the Lemma 1 constants."""

    m: sp.Expr
    M: sp.Expr
    argmin: sp.Expr
    argmax: sp.Expr
    method: str

    @property
    def C1(self) -> sp.Expr:
        return self.m / self.M

    @property
    def C2(self) -> sp.Expr:
        return self.M / self.m


def _check_symbol(variable, name: str) -> sp.Symbol:
    if not isinstance(variable, sp.Symbol):
        raise TypeError(f"{name}: expected a sympy Symbol, got {type(variable).__name__}")
    return variable


def _as_expr(value, name: str, variable: sp.Symbol | None = None) -> sp.Expr:
    """``value`` as a SymPy expression, or an error naming the argument ``name``: a string is
    parsed (with ``variable``'s name bound to ``variable``) and one that does not parse is a
    ``ValueError``; anything else must be a SymPy expression or a number (``TypeError``)."""
    if isinstance(value, str):
        try:
            expr = sp.sympify(value, locals=None if variable is None else {variable.name: variable})
        except Exception as exc:  # noqa: BLE001 -- sympify's parser raises SympifyError, TokenError, SyntaxError, ...
            raise ValueError(f"{name}: cannot parse {value!r} as a SymPy expression ({type(exc).__name__})") from None
    else:
        try:
            expr = sp.sympify(value, strict=True)
        except sp.SympifyError:
            raise TypeError(f"{name}: expected a SymPy expression or a number, got {type(value).__name__}") from None
    if not isinstance(expr, sp.Expr):
        raise TypeError(f"{name}: expected a SymPy expression, got {type(expr).__name__} ({expr})")
    if expr.has(sp.S.NaN, sp.S.ComplexInfinity, sp.S.Infinity, sp.S.NegativeInfinity):
        raise ValueError(f"{name}: must be finite, got {expr}")
    return expr


def _function_in(f, variable: sp.Symbol, name: str) -> sp.Expr:
    """``f`` as a SymPy expression in ``variable`` (see :func:`_as_expr`); a free symbol with
    ``variable``'s name but other assumptions (``Symbol("l")`` for the real :data:`l`) is taken
    as ``variable``: without this, F would be a constant in the variable."""
    f = _as_expr(f, name, variable)
    same_name = {s: variable for s in f.free_symbols if s.name == variable.name and s != variable}
    return f.xreplace(same_name) if same_name else f


def _half_width(half_width) -> sp.Expr:
    aa = _as_expr(half_width, "half_width")
    if aa.is_positive is not True:
        raise ValueError(f"half_width: must be positive, got {half_width!r}")
    return aa


_PIECEWISE = (sp.Min, sp.Max, sp.Abs, sp.Heaviside, sp.Piecewise)  # what a Piecewise rewrite takes apart


@lru_cache(maxsize=256)
def _pieces_on_reals(f, variable):
    """f's pieces over ℝ as ((expression, set), ...), each set an Interval or a finite set of
    numbers, disjoint and covering ℝ (``Piecewise.as_expr_set_pairs`` of f's ``Piecewise``
    form, which rewrites Min, Max, Abs and Heaviside); None for f without such parts, or where
    SymPy cannot split it so (a condition in another symbol, a piece that is still piecewise)."""
    if not f.has(*_PIECEWISE):
        return None
    if _branchings(f) > _MAX_BRANCHINGS:  # piecewise_fold's work grows with their product
        return None
    try:
        pw = sp.piecewise_fold(f.rewrite(sp.Piecewise))
        if not isinstance(pw, sp.Piecewise):
            return None
        if not _splittable(pw, variable):
            return None
        pairs = pw.as_expr_set_pairs(sp.S.Reals)
    except (NotImplementedError, ValueError, TypeError, AttributeError):
        return None
    out = []
    for e, got in pairs:
        if e.has(*_PIECEWISE):
            return None
        for part in got.args if isinstance(got, sp.Union) else (got,):
            if part == sp.S.EmptySet:
                continue
            if not (isinstance(part, sp.Interval)
                    or (isinstance(part, sp.FiniteSet) and all(x.is_number and x.is_finite for x in part))):
                return None
            out.append((e, part))
    return tuple(out)


def _branchings(f) -> int:
    """How many branch points f's parts make: a Min or Max of k arguments k − 1, a Piecewise of k
    pieces k − 1, an Abs or a Heaviside 1."""
    count = 0
    for node in sp.preorder_traversal(f):
        if isinstance(node, (sp.Min, sp.Max, sp.Piecewise)):
            count += len(node.args) - 1
        elif isinstance(node, (sp.Abs, sp.Heaviside)):
            count += 1
    return count


def _splittable(pw, variable) -> bool:
    """Whether SymPy's set algebra can split ``pw`` quickly: at most :data:`_MAX_PIECES` pieces
    and :data:`_MAX_RELATIONS` relations, each a polynomial of degree at most 2 in the variable
    with numeric coefficients (a transcendental crossing, e^l ≥ 1 + l², hung
    ``as_expr_set_pairs``: review 50)."""
    rels = set().union(*(cond.atoms(sp.core.relational.Relational) for _, cond in pw.args))
    if len(pw.args) > _MAX_PIECES or len(rels) > _MAX_RELATIONS:
        return False
    for rel in rels:
        diff = rel.lhs - rel.rhs
        if diff.free_symbols - {variable}:
            return False
        try:
            poly = sp.Poly(diff, variable)
        except sp.PolynomialError:
            return False
        if poly.degree() > 2 or not all(c.is_number for c in poly.coeffs()):
            return False
    return True


def _same(x, y) -> bool:
    """x = y decided exactly (equal, or a difference that simplifies to 0)."""
    return x == y or sp.simplify(x - y) == 0


#: Functions that are continuous wherever their arguments are and defined on all the reals they
#: take there: where ``continuous_domain`` cannot tell, an f built from these (and +, ×, powers)
#: with a derivative SymPy decides finite on an interval is continuous on it.
_SMOOTH = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.asinh, sp.erf, sp.erfc)

#: The largest ``Piecewise`` that :func:`_pieces_on_reals` splits (pieces, distinct relations in
#: their conditions): SymPy's set algebra on larger ones ran for minutes (review 50: the maximum
#: of three shifted |l|).
_MAX_PIECES, _MAX_RELATIONS = 16, 8
#: The most branch points (:func:`_branchings`) of an f that :func:`_pieces_on_reals` folds: the
#: maximum of three shifted |l| has 5 (folded in about a second); its derivative, 9, took minutes.
_MAX_BRANCHINGS = 6


def continuous_on_reals(f, variable=l, *, unless_elementary: bool = False) -> bool:
    """Whether ``f`` is decided continuous on ℝ: by ``continuous_domain``, or, where that cannot
    tell (a ``Piecewise`` form), piece by piece: each piece continuous on its interval's
    closure, and equal to f's own value at each finite end of it (so at a point where pieces
    meet, every side's limit is f's value there; a piece that is a finite set of points lies
    between interval pieces, whose ends are checked). False also where undecided.

    With ``unless_elementary``, an f that ``continuous_domain`` cannot judge but that is built
    from exp, sin, cos, sinh, cosh, tanh, atan, asinh, erf and erfc alone is taken as
    continuous: there a derivative that SymPy decides finite (positive, negative) on an interval
    makes f continuous on it, which is what the callers ask. (Not for arg, atan2, sign, floor
    or a Piecewise, whose SymPy derivative hides their jumps: review 50, e^l + arg(l) + 1.)

    >>> continuous_on_reals(sp.Piecewise((l + 2, l > 0), (sp.exp(l) + 1, True)))
    True
    >>> continuous_on_reals(sp.Piecewise((sp.exp(l) + 4, l < 0), (sp.exp(l), True)))  # a jump at 0
    False
    >>> continuous_on_reals(sp.exp(l) + sp.arg(l) + 1, unless_elementary=True)  # arg jumps by pi at 0
    False
    """
    variable = _check_symbol(variable, "variable")
    f = _function_in(f, variable, "f")
    box = sp.S.Reals
    try:
        return continuous_domain(f, variable, box) == box
    except (NotImplementedError, ValueError, TypeError):
        pass
    if unless_elementary and all(isinstance(g, _SMOOTH) for g in f.atoms(sp.Function)):
        return True
    pairs = _pieces_on_reals(f, variable)
    if pairs is None:
        return False
    for e, part in pairs:
        if isinstance(part, sp.FiniteSet):
            continue
        closure = part.closure
        try:
            if continuous_domain(e, variable, closure) != closure:
                return False
        except (NotImplementedError, ValueError, TypeError):
            return False
        for end in (part.start, part.end):
            if end.is_finite and not _same(e.subs(variable, end), f.subs(variable, end)):
                return False
    return True


def _limit_at(f, variable, end):
    """The limit of f at ``end`` (``oo`` or ``-oo``); for a piecewise f, that of its piece
    which reaches ``end`` (``sympy.limit`` does not take a product of ``Piecewise``)."""
    pairs = _pieces_on_reals(f, variable)
    if pairs is not None:
        for e, part in pairs:
            if isinstance(part, sp.Interval) and (part.end if end is sp.S.Infinity else part.start) == end:
                return sp.limit(e, variable, end)
        raise ValueError(f"no piece of {f} reaches {end}")
    return sp.limit(f, variable, end)


def _piecewise_monotone(f, variable) -> int | None:
    """+1 (non-decreasing on ℝ) or −1 (non-increasing) for a piecewise f (:func:`_pieces_on_reals`;
    inside an interval piece, f' is the piece's derivative) that is continuous on ℝ, when SymPy decides the sign of the derivative on
    each interval piece: substituting l = c + u, l = c − u (u ≥ 0) for a half-line from c, and
    l = c1 + (c2 − c1)·u/(1 + u) on [c1, c2); a continuous f whose derivative keeps one sign
    off finitely many points is monotone. None otherwise."""
    pairs = _pieces_on_reals(f, variable)  # f' is each interval piece's own derivative inside it
    if pairs is None or not continuous_on_reals(f, variable):
        return None
    pairs = [(sp.diff(e, variable), part) for e, part in pairs]
    u = sp.Dummy("u", nonnegative=True)
    signs = set()
    for e, part in pairs:
        if isinstance(part, sp.FiniteSet):
            continue
        lo, hi = part.start, part.end
        if lo.is_infinite and hi.is_infinite:
            here = e
        elif lo.is_infinite:
            here = e.subs(variable, hi - u)
        elif hi.is_infinite:
            here = e.subs(variable, lo + u)
        else:
            here = e.subs(variable, lo + (hi - lo) * u / (1 + u))
        if here.is_zero:
            continue  # flat: either way
        if here.is_nonnegative:
            signs.add(1)
        elif here.is_nonpositive:
            signs.add(-1)
        else:
            return None
    return signs.pop() if len(signs) == 1 else (1 if not signs else None)


def function_extremes(f, variable=l, half_width=a, *, name: str = "f") -> NormalizerConstants | None:
    """Exact min and max of a real function ``f`` on [−a, a] (no positivity required).

    Same exact routes, arguments and errors as :func:`normalizer_constants` (``name`` is the
    argument named in ``f``'s errors); ``None`` when undecided.

    >>> k = function_extremes(l * (1 - l), l, 1)
    >>> k.m, k.argmin, k.M, k.argmax
    (-2, -1, 1/4, 1/2)
    """
    variable = _check_symbol(variable, "variable")
    f = _function_in(f, variable, name)
    aa = _half_width(half_width)
    if not f.has(variable):
        return NormalizerConstants(f, f, -aa, aa, "constant")
    df = sp.diff(f, variable)
    u = sp.Dummy("u", nonnegative=True)
    lo_val, hi_val = f.subs(variable, -aa), f.subs(variable, aa)
    # the sign of f' says f is monotone only where f is continuous: SymPy differentiates a
    # Piecewise piece by piece and drops its jumps (trial 50: F = e^l + 4 for l < 0, e^l beyond,
    # was "monotone increasing", with m = 4 + e^{-a} > M)
    if continuous_on_reals(f, variable, unless_elementary=True):
        if df.subs(variable, -aa + u).is_positive or df.subs(variable, aa - u).is_positive:
            return NormalizerConstants(lo_val, hi_val, -aa, aa, "monotone increasing")
        if df.subs(variable, -aa + u).is_negative or df.subs(variable, aa - u).is_negative:
            return NormalizerConstants(hi_val, lo_val, aa, -aa, "monotone decreasing")
    sign = _piecewise_monotone(f, variable)
    if sign == 1:
        return NormalizerConstants(lo_val, hi_val, -aa, aa, "monotone non-decreasing (piecewise)")
    if sign == -1:
        return NormalizerConstants(hi_val, lo_val, aa, -aa, "monotone non-increasing (piecewise)")
    if not aa.is_number:
        return _symbolic_critical_points(f, variable, aa)
    box = sp.Interval(-aa, aa)
    try:
        domain = continuous_domain(f, variable, box)
    except NotImplementedError:  # SymPy cannot tell where f is continuous: undecided
        return None
    if domain != box:
        raise ValueError(f"{name}: must be continuous on [{-aa}, {aa}]")
    points = _candidate_points(f, variable, box)
    if points is None:
        return None
    values = [f.subs(variable, x) for x in points]
    order = _exact_order(values)
    if order is None:
        return None
    i_min, i_max = order
    return NormalizerConstants(values[i_min], values[i_max], points[i_min], points[i_max], "critical points")


def _symbolic_critical_points(f, variable, aa) -> NormalizerConstants | None:
    """The critical-points route for a symbolic half-width ``aa``: f continuous on ℝ
    (:func:`continuous_on_reals`), its candidate points over ℝ (:func:`_candidate_points`),
    each decided inside [−a, a] (a − |c| ≥ 0) or outside (|c| − a > 0) by SymPy's assumptions,
    and the values at the ends and at the points inside ordered by :func:`_symbolic_order`.
    1 + l² gives m = 1 at 0 and M = 1 + a² at −a; 1 + l + l²/2, whose critical point −1 is
    inside only for a ≥ 1, is undecided (None)."""
    if not continuous_on_reals(f, variable):
        return None
    found = _candidate_points(f, variable, sp.S.Reals)
    if found is None:
        return None
    points = [-aa, aa]
    for c in found:
        if c.is_infinite:
            continue
        if c.free_symbols:
            return None
        if (aa - sp.Abs(c)).is_nonnegative:
            points.append(c)
        elif not (sp.Abs(c) - aa).is_positive:
            return None  # inside for some a, outside for others
    values = [f.subs(variable, x) for x in points]
    order = _symbolic_order(values)
    if order is None:
        return None
    i_min, i_max = order
    return NormalizerConstants(values[i_min], values[i_max], points[i_min], points[i_max], "critical points")


def _at_most(x, y) -> bool:
    """x ≤ y decided by SymPy's assumptions: y − x ≥ 0 (as it is, or simplified), or, for x and y
    decided positive, log y − log x ≥ 0 (``expand_log``: e^{a²} ≥ 1 as a² ≥ 0), or y − x ≥ 0 by
    its monotonicity in a bounded term (:func:`_bounded_below`: 1 + e^{−a²} ≤ 2)."""
    if x == y:
        return True
    diff = y - x
    if diff.is_nonnegative or sp.simplify(diff).is_nonnegative:
        return True
    if x.is_positive and y.is_positive and sp.expand_log(sp.log(y) - sp.log(x)).is_nonnegative is True:
        return True
    return _bounded_below(diff, strict=False)


def _symbolic_order(values) -> tuple[int, int] | None:
    """The indices of a least and a greatest of ``values`` (expressions in positive symbols), the
    first such; None unless SymPy decides every comparison with it (:func:`_at_most`)."""
    n = len(values)
    i_min = next((i for i in range(n) if all(_at_most(values[i], v) for v in values)), None)
    i_max = next((i for i in range(n) if all(_at_most(v, values[i]) for v in values)), None)
    return None if i_min is None or i_max is None else (i_min, i_max)


def _exact_order(values) -> tuple[int, int] | None:
    """The indices of the least and the greatest of finitely many real numbers (``oo`` and
    ``-oo`` allowed), the first of equal ones; None unless SymPy decides every comparison."""
    if not all(v.is_number and v.is_extended_real for v in values):
        return None
    # Pick by a 50-digit value, then confirm with exact sign decisions (None from SymPy ->
    # undecided); equal values (two -oo) are equal without a subtraction.
    i_min = min(range(len(values)), key=lambda k: sp.N(values[k], 50))
    i_max = max(range(len(values)), key=lambda k: sp.N(values[k], 50))

    def below(x, y) -> bool:
        return x == y or (y - x).is_extended_nonnegative is True

    if not all(below(values[i_min], v) and below(v, values[i_max]) for v in values):
        return None
    return i_min, i_max


def real_line_extremes(f, variable=l, *, name: str = "f") -> NormalizerConstants | None:
    """Exact infimum and supremum of a real function ``f`` over the whole real line, or
    ``None`` when undecided (never a guess).

    ``f`` must be continuous on ℝ (``continuous_domain``, or piece by piece for a ``Piecewise``
    form, whose limits at ±∞ are those of the pieces that reach them) and, unless constant in
    the variable, free of other symbols. The
    candidates are the critical points of :func:`normalizer_constants`' second route, taken on ℝ
    (the zeros of each smooth piece's derivative and the points where that derivative is not
    continuous, and where a piece's condition changes; SymPy must find each set finite), and the
    limits at −∞ and +∞ (``sympy.limit``; each a real number, ``oo`` or ``-oo``). Between two
    consecutive candidates the derivative is continuous and not zero, so ``f`` is monotone there
    and its infimum and supremum are the least and the greatest candidate value.

    Returns
    -------
    NormalizerConstants or None
        ``m`` = inf f and ``M`` = sup f (possibly ``-oo``, ``oo``); ``argmin`` / ``argmax``
        is a point where it is attained (0 for a constant f, attained everywhere), or ``-oo`` /
        ``oo`` where it is only approached as the variable goes there. ``method`` is
        ``"constant"`` or ``"critical points and limits"``.

    Raises
    ------
    TypeError
        ``variable`` is not a SymPy Symbol, or ``f`` is neither a SymPy expression nor a
        number (nor a string).
    ValueError
        ``f`` is a string that does not parse, or is not finite (``nan``, ``zoo``, ``oo``).

    Examples
    --------
    >>> k = real_line_extremes(2 * l / (1 + l**2))  # (log F)' of F = 1 + l**2
    >>> k.m, k.argmin, k.M, k.argmax
    (-1, -1, 1, 1)
    >>> k = real_line_extremes(1 / (1 + sp.exp(l)))  # approached at -oo and oo, never attained
    >>> k.m, k.argmin, k.M, k.argmax
    (0, oo, 1, -oo)
    >>> real_line_extremes(sp.cos(l) / (2 + sp.sin(l))) is None  # infinitely many critical points
    True
    """
    variable = _check_symbol(variable, "variable")
    f = _function_in(f, variable, name)
    if not f.has(variable):
        return NormalizerConstants(f, f, sp.S.Zero, sp.S.Zero, "constant")
    if f.free_symbols != {variable}:
        return None
    box = sp.S.Reals
    if not continuous_on_reals(f, variable):  # or SymPy cannot tell
        return None
    found = _candidate_points(f, variable, box)
    if found is None:
        return None
    points = [x for x in found if x.is_finite] + [sp.S.NegativeInfinity, sp.S.Infinity]  # attained first
    try:
        values = [_limit_at(f, variable, x) if x.is_infinite else f.subs(variable, x) for x in points]
    except (NotImplementedError, ValueError, TypeError):
        return None
    order = _exact_order(values)
    if order is None:
        return None
    i_min, i_max = order
    return NormalizerConstants(values[i_min], values[i_max], points[i_min], points[i_max], "critical points and limits")


def log_derivative_extremes(g, variable=l) -> NormalizerConstants | None:
    """Exact infimum and supremum over ℝ of g = (log F)' for Lemma 2's G = sup |g|, the one
    routine of ``derive --normalizer`` and ``check --normalizer``: :func:`real_line_extremes`
    (with the points where they are attained), else SymPy's ``minimum`` and ``maximum`` over
    ℝ (``method`` ``"SymPy's minimum and maximum over the reals"``, no points: ``argmin`` and
    ``argmax`` are None), kept only where a grid of logits (:func:`sampled_values`) does not
    contradict them, as SymPy's maximum is not a proof; None where neither decides. 2 + sin l:
    g = cos l/(2 + sin l), whose critical points are infinitely many, has extremes ±1/√3 by
    SymPy's maximum (trial 51: check used them and derive did not). A bad ``g`` or
    ``variable`` is an error naming it, as for :func:`real_line_extremes`.

    >>> k = log_derivative_extremes(sp.cos(l) / (2 + sp.sin(l)))
    >>> k.m, k.M, k.argmax, k.method
    (-sqrt(3)/3, sqrt(3)/3, None, "SymPy's minimum and maximum over the reals")
    >>> log_derivative_extremes("cos(l", l)
    Traceback (most recent call last):
    ...
    ValueError: g: cannot parse 'cos(l' as a SymPy expression (SympifyError)
    """
    from sympy.calculus.util import maximum, minimum

    k = real_line_extremes(g, variable, name="g")
    if k is not None:
        return k
    g = _function_in(g, _check_symbol(variable, "variable"), "g")
    if g.free_symbols != {variable}:
        return None
    try:
        lo, hi = minimum(g, variable, sp.S.Reals), maximum(g, variable, sp.S.Reals)
        if not all(v.is_number and v.is_extended_real for v in (lo, hi)):
            return None
        flo, fhi = float(lo), float(hi)
    except (NotImplementedError, TypeError, ValueError):
        return None
    if any(v > fhi + 1e-9 * abs(fhi) + 1e-12 or v < flo - 1e-9 * abs(flo) - 1e-12 for v in sampled_values(g, variable)):
        return None
    return NormalizerConstants(lo, hi, None, None, "SymPy's minimum and maximum over the reals")


def sampled_values(f, variable=l):
    """f on a grid of the real line (0, ±10⁻³ … ±10³, 801 points) as floats, for a cross-check
    of exact extremes: evaluated by mpmath at 30 and at 60 digits, keeping the points where the
    two agree to 1e-15 relative (and are finite). Floats are not enough: log(1 + e^l) at l = −30
    loses three digits to cancellation, and a hand-written softplus's (log F)' sampled there was
    1.037, above its supremum 1 (stop 51).

    >>> float(max(sampled_values(2 * l / (1 + l**2))))
    1.0
    >>> sampled_values(l, "l")
    Traceback (most recent call last):
    ...
    TypeError: variable: expected a sympy Symbol, got str
    """
    import mpmath

    variable = _check_symbol(variable, "variable")
    f = _function_in(f, variable, "f")
    grid = [0.0] + [sign * 10.0 ** (-3 + 6 * i / 399) for sign in (-1.0, 1.0) for i in range(400)]
    fn = sp.lambdify(variable, f, "mpmath")
    out = []
    for x in grid:
        values = []
        for dps in (30, 60):
            with mpmath.workdps(dps):
                try:
                    v = fn(mpmath.mpf(x))
                    values.append(mpmath.mpf(v.real if isinstance(v, mpmath.mpc) and v.imag == 0 else v))
                except (ZeroDivisionError, ValueError, TypeError, OverflowError, NameError, AttributeError):
                    break
        if len(values) == 2 and mpmath.isfinite(values[1]) and abs(values[0] - values[1]) <= 1e-15 * abs(values[1]):
            out.append(float(values[1]))
    return out


def _finite_points(expr, variable, box, what):
    """The points of ``box`` where ``what`` of ``expr`` happens, as a list, or None unless SymPy
    returns a finite set: ``"zero"`` (solveset), ``"kink"`` (where ``expr`` is not continuous)."""
    try:
        got = sp.solveset(expr, variable, box) if what == "zero" else box - continuous_domain(expr, variable, box)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if got == sp.S.EmptySet:
        return []
    return list(got) if isinstance(got, sp.FiniteSet) else None


def _candidate_points(f, variable, box):
    """Where a function continuous on ``box`` = [−a, a] can have its extremes, or None: the ends;
    and for each smooth piece of f (f itself, or the pieces of its ``Piecewise`` form, which
    rewrites Min, Max, Abs and Heaviside) the zeros of its derivative and the points where the
    derivative is not continuous (a cusp: |l|^{2/3} at 0); and the points where a piece's condition
    changes. A piece constant in the variable has no zero to find. Each list must be finite.

    Where SymPy splits f over ℝ into disjoint pieces (:func:`_pieces_on_reals`), each piece's
    zeros and kinks are sought on its own interval only (a piece that applies nowhere, such as
    the ``True`` branch left over from ``Max(l, 0) + exp(Min(l, 0))``'s rewrite, is not solved)."""
    points = [box.start, box.end]
    pairs = _pieces_on_reals(f, variable)
    if pairs is not None:
        return _candidate_points_of_pieces(pairs, variable, box, points)
    pw = sp.piecewise_fold(f.rewrite(sp.Piecewise)) if f.has(sp.Min, sp.Max, sp.Abs, sp.Heaviside, sp.Piecewise) else f
    if isinstance(pw, sp.Piecewise):
        pieces = [e for e, _ in pw.args]
        for _, cond in pw.args:
            for rel in cond.atoms(sp.core.relational.Relational):
                got = _finite_points(rel.lhs - rel.rhs, variable, box, "zero")
                if got is None:
                    return None
                points += got
        if any(e.has(sp.Piecewise, sp.Min, sp.Max, sp.Abs, sp.Heaviside) for e in pieces):
            return None
    else:
        pieces = [pw]
    for e in pieces:
        got = _critical_points(e, variable, box)
        if got is None:
            return None
        points += got
    return list(dict.fromkeys(points))


def _critical_points(e, variable, region):
    """The zeros of a smooth piece's derivative in ``region`` and the points there where that
    derivative is not continuous (none for a piece constant in the variable), or None unless
    SymPy finds each set finite."""
    d = sp.diff(e, variable)
    if d == 0:
        return []
    points = []
    for what in ("zero", "kink"):
        got = _finite_points(d, variable, region, what)
        if got is None:
            return None
        points += got
    return points


def _candidate_points_of_pieces(pairs, variable, box, points):
    """:func:`_candidate_points` from f's disjoint pieces over ℝ: the points of a finite-set piece
    and the finite ends of an interval piece inside ``box``, and the zeros and kinks of each
    interval piece's derivative on its part of ``box``; None unless each is a finite set."""
    for e, part in pairs:
        region = part.intersect(box)
        if region == sp.S.EmptySet:
            continue
        if isinstance(part, sp.FiniteSet) or isinstance(region, sp.FiniteSet):
            points += list(region)
            continue
        if not isinstance(region, sp.Interval):
            return None
        points += [end for end in (part.start, part.end) if end.is_finite and end in box]
        got = _critical_points(e, variable, region)
        if got is None:
            return None
        points += got
    return list(dict.fromkeys(points))


def normalizer_constants(F, variable=l, half_width=a) -> NormalizerConstants | None:
    """Exact m = min F and M = max F on [−a, a], with C1 = m/M and C2 = M/m.

    Three exact routes, in order:

    1. *monotone*: the derivative F' is decided positive (or negative) by SymPy's assumptions
       on [−a, ∞) or (−∞, a] after substituting l = −a + u or l = a − u with u ≥ 0; then
       the extremes sit at the endpoints. A derivative decided positive is finite, so F is
       also continuous there.
    2. *piecewise monotone*: for F with a ``Piecewise`` form (Min, Max, Abs, Heaviside), split
       into its pieces over ℝ (:func:`_pieces_on_reals`): F continuous on ℝ, checked piece by
       piece, and the sign of each piece of F' decided on its interval; then F is monotone
       (non-decreasing or non-increasing) and the extremes sit at the endpoints, whatever a.
    3. *critical points*: for a numeric ``half_width`` only, F must be continuous on [−a, a]
       (``continuous_domain``); the extremes are then among the endpoints and the critical
       points of each smooth piece of F (F itself, or the pieces of its ``Piecewise`` form,
       which rewrites Min, Max, Abs and Heaviside): the zeros of its derivative and the points
       where the derivative is not continuous, and the points where a piece's condition
       changes. SymPy must find each of these sets finite. With a symbolic ``half_width``, F
       must be continuous on ℝ, each critical point decided inside [−a, a] (a − |c| ≥ 0) or
       outside (|c| − a > 0), and the values ordered by sign decisions
       (:func:`_symbolic_order`): 1 + l² gives m = 1 at 0 and M = 1 + a².

    Anything else (a critical point inside for some a and outside for others, as −1 of
    1 + l + l²/2; a derivative SymPy cannot solve; values SymPy cannot order) returns ``None``:
    undecided, never a guess.

    Parameters
    ----------
    F : sympy expression in ``variable``, a number, or a string
        A string is parsed by ``sympy.sympify`` with ``variable``'s name bound to ``variable``
        (other names become plain symbols, with no assumptions). A free symbol of ``F`` with
        ``variable``'s name but other assumptions (``Symbol("l")``) is taken as ``variable``.
    variable : sympy.Symbol
        The logit; default :data:`l` (real).
    half_width : sympy expression, number or string
        The a of the range [−a, a], positive; default :data:`a` (a positive symbol); a string
        is parsed.

    Returns
    -------
    NormalizerConstants or None
        ``m``, ``M``, where they are attained (``argmin``, ``argmax``), how they were found
        (``method``: ``"monotone increasing"``, ``"monotone decreasing"``, ``"monotone
        non-decreasing (piecewise)"``, ``"monotone non-increasing (piecewise)"``, ``"critical
        points"`` or ``"constant"``), and the properties ``C1`` = m/M and ``C2`` = M/m; ``None``
        when undecided (also when m > 0 is not decided, by SymPy's assumptions or by m's
        monotonicity in a Max or Min term: hardtanh + 2 has m = Max(−1, −a) + 2 ≥ 1).

    Raises
    ------
    TypeError
        ``variable`` is not a SymPy Symbol, or ``F`` or ``half_width`` is neither a SymPy
        expression nor a number nor a string (a list, ``None``, a relation such as ``l > 0``).
    ValueError
        ``F`` or ``half_width`` is a string that does not parse, or is not finite (``nan``,
        ``oo``); ``half_width`` is not decided positive; ``F`` is not positive on the range
        (its minimum is ≤ 0), or, with a numeric ``half_width``, not continuous on it. Each
        message starts with the argument's name (``F: ...``).

    Examples
    --------
    >>> k = normalizer_constants(sp.exp(l / T))
    >>> k.C1, k.C2
    (exp(-2*a/T), exp(2*a/T))
    >>> normalizer_constants(1 + l + l**2 / 2, l, 2).m
    1/2
    >>> normalizer_constants(1 + l + l**2 / 2) is None  # is the critical point -1 in [-a, a]?
    True
    >>> normalizer_constants("exp(l/2)", l, 1).C2  # a string: its l is the variable
    E
    >>> normalizer_constants(l, l, 1)
    Traceback (most recent call last):
    ...
    ValueError: F: must be positive on [-a, a]; its minimum is -1
    >>> normalizer_constants("exp(l", l, 1)
    Traceback (most recent call last):
    ...
    ValueError: F: cannot parse 'exp(l' as a SymPy expression (SympifyError)
    """
    k = function_extremes(F, variable, half_width, name="F")
    if k is None:
        return None
    if k.m.is_positive is False or k.m.is_zero:
        raise ValueError(f"F: must be positive on [-a, a]; its minimum is {k.m}")
    return k if _positive(k.m) else None


def _positive(x) -> bool:
    """Whether ``x`` is decided > 0: by SymPy's assumptions, or by :func:`_bounded_below`.
    hardtanh + 2 on [−a, a] has m = Max(−1, −a) + 2 ≥ −1 + 2 = 1 (stop 50's lead: SymPy's
    ``is_positive`` is None).

    >>> _positive(sp.Max(-1, -a) + 2), _positive(sp.Max(-1, -a) + 1), _positive(2 - sp.Max(1, a))
    (True, False, False)
    """
    return bool(x.is_positive) or _bounded_below(x, strict=True)


def _atom_bounds(term):
    """(z, lower bounds, upper bounds) of a term whose range SymPy's assumptions do not use: z a
    dummy for it, with the term's sign; each bound holds for every value of the term's
    arguments. Max(u_i) ≥ u_i, Min(u_i) ≤ u_i; e^u > 0, and ≤ 1 for u ≤ 0, ≥ 1 for u ≥ 0;
    cosh u ≥ 1; −1 < tanh u < 1, ≥ 0 for u ≥ 0, ≤ 0 for u ≤ 0 (u real)."""
    if isinstance(term, sp.Max):
        return sp.Dummy("z", real=True), list(term.args), []
    if isinstance(term, sp.Min):
        return sp.Dummy("z", real=True), [], list(term.args)
    (u,) = term.args
    if not u.is_extended_real or u.is_infinite:
        return None
    if isinstance(term, sp.exp):
        return (sp.Dummy("z", positive=True), [sp.S.One] if u.is_nonnegative else [sp.S.Zero],
                [sp.S.One] if u.is_nonpositive else [])
    if isinstance(term, sp.cosh):
        return sp.Dummy("z", positive=True), [sp.S.One], []
    if isinstance(term, sp.tanh):
        return (sp.Dummy("z", real=True), [sp.S.Zero] if u.is_nonnegative else [sp.S.NegativeOne],
                [sp.S.Zero] if u.is_nonpositive else [sp.S.One])
    return None


def _bounded_below(x, *, strict: bool, depth: int = 3) -> bool:
    """Whether x > 0 (``strict``) or x ≥ 0 is decided by x's monotonicity in one of its terms
    of :func:`_atom_bounds` (Max, Min, exp, cosh, tanh), applied up to ``depth`` times. With z
    in place of the term, x = e(z), a polynomial in z (continuous: SymPy's derivative of a
    ``Piecewise`` in z drops its jumps, review 51): where ∂e/∂z ≥ 0 is decided for every z of the term's sign,
    x ≥ e(b) for each lower bound b of the term; where ∂e/∂z ≤ 0, x ≥ e(b) for each upper
    bound. So one e(b) decided > 0 (≥ 0) decides x. 1 − e^{−a²} ≥ 1 − 1 = 0, as e^{−a²} ≤ 1
    and x falls as it rises; cosh a − 1 ≥ 0.

    >>> _bounded_below(1 - sp.exp(-a**2), strict=False), _bounded_below(sp.cosh(a) - 1, strict=False)
    (True, True)
    >>> _bounded_below(sp.exp(-a**2) - 1, strict=False), _bounded_below(1 - sp.exp(a), strict=False)
    (False, False)
    """
    if (x.is_positive if strict else x.is_nonnegative) or depth == 0:
        return bool(x.is_positive if strict else x.is_nonnegative)
    for term in sorted(x.atoms(sp.Max, sp.Min, sp.exp, sp.cosh, sp.tanh), key=sp.default_sort_key):
        found = _atom_bounds(term)
        if found is None:
            continue
        z, lower, upper = found
        e = x.xreplace({term: z})
        if e.has(term) or not e.has(z) or not e.is_polynomial(z):  # continuous in z: a sign of ∂e/∂z is monotonicity
            continue
        slope = sp.diff(e, z)
        bounds = lower if slope.is_nonnegative else upper if slope.is_nonpositive else []
        if any(_bounded_below(e.xreplace({z: b}), strict=strict, depth=depth - 1) for b in bounds):
            return True
    return False


def tight_bounds(m_=m, M_=M, L_=L) -> tuple[sp.Expr, sp.Expr]:
    """The sharp bounds of Lemma 1: (m/(m + (L−1)M), M/(M + (L−1)m)).

    >>> tight_bounds()
    (m/(M*(L - 1) + m), M/(M + m*(L - 1)))
    """
    return m_ / (m_ + (L_ - 1) * M_), M_ / (M_ + (L_ - 1) * m_)


def loose_bounds(m_=m, M_=M, L_=L) -> tuple[sp.Expr, sp.Expr]:
    """The loose bounds of Lemma 1: (C1/L, C2/L) with C1 = m/M, C2 = M/m.

    >>> loose_bounds()
    (m/(L*M), M/(L*m))
    """
    return m_ / (M_ * L_), M_ / (m_ * L_)


def nonnegative_polynomial(expr, variables) -> bool:
    """True when ``expr`` expands to a polynomial in ``variables`` whose coefficients are all
    decided non-negative; such a polynomial is ≥ 0 whenever every variable is ≥ 0.

    ``False`` means "not shown", not "negative".

    >>> x, y = sp.symbols("x y", nonnegative=True)
    >>> nonnegative_polynomial((x + y) ** 2, [x, y]), nonnegative_polynomial((x - y) ** 2, [x, y])
    (True, False)
    """
    try:
        poly = sp.Poly(sp.expand(expr), *variables)
    except sp.PolynomialError:
        return False
    return all(coef.is_nonnegative is True for coef in poly.coeffs())


def _positive_fraction(expr, variables) -> bool:
    # expr = num/den with num, den polynomials with non-negative coefficients and den ≠ 0 at the
    # origin of the shifted variables, so den > 0 and expr ≥ 0 on the non-negative orthant.
    num, den = sp.fraction(sp.together(expr))
    den0 = sp.expand(den).subs({v: 0 for v in variables if v.is_nonnegative and not v.is_positive})
    return (
        nonnegative_polynomial(num, variables)
        and nonnegative_polynomial(den, variables)
        and den0.is_positive is True
    )


def prove_tight_within_loose() -> bool:
    """Exact proof that C1/L ≤ m/(m+(L−1)M) and M/(M+(L−1)m) ≤ C2/L for 0 < m ≤ M, L ≥ 1.

    With M = m + d (d ≥ 0) and L = 1 + n (n ≥ 0) both differences are fractions of
    polynomials with non-negative coefficients; their closed forms are
    C2/L − upper = M(M − m) / (mL(M + (L−1)m)) and lower − C1/L = m(M − m) / (ML(m + (L−1)M)).

    >>> prove_tight_within_loose()
    True
    """
    lo, hi = tight_bounds()
    C1L, C2L = loose_bounds()
    gap_hi = C2L - hi
    gap_lo = lo - C1L
    ok_forms = is_identity(
        sp.fraction(sp.together(gap_hi))[0] * (m * L * (M + (L - 1) * m)),
        M * (M - m) * sp.fraction(sp.together(gap_hi))[1],
    ) and is_identity(
        sp.fraction(sp.together(gap_lo))[0] * (M * L * (m + (L - 1) * M)),
        m * (M - m) * sp.fraction(sp.together(gap_lo))[1],
    )
    d, n = sp.symbols("d n", nonnegative=True)
    shift = {M: m + d, L: 1 + n}
    return ok_forms and all(_positive_fraction(g.subs(shift), [m, d, n]) for g in (gap_hi, gap_lo))


def prove_tight_bounds() -> bool:
    """Exact proof of the tight bounds: α_i = x/(x + R) with x = F(l_i) ∈ [m, M] and
    R = Σ_{j≠i} F(l_j) ∈ [(L−1)m, (L−1)M]; ∂/∂x = R/(x+R)² ≥ 0 and ∂/∂R = −x/(x+R)² ≤ 0,
    so the extremes are (x, R) = (M, (L−1)m) and (m, (L−1)M), which give the tight bounds.

    >>> prove_tight_bounds()
    True
    """
    x, R = sp.symbols("x R", positive=True)
    f = x / (x + R)
    lo, hi = tight_bounds()
    return (
        is_identity(sp.together(sp.diff(f, x) - R / (x + R) ** 2))
        and is_identity(sp.together(sp.diff(f, R) + x / (x + R) ** 2))
        and is_identity(f.subs({x: M, R: (L - 1) * m}), hi)
        and is_identity(f.subs({x: m, R: (L - 1) * M}), lo)
    )


def upper_constant_is_best() -> bool:
    """Exact proof that C2 = M/m is the least L-independent constant: L·M/(M + (L−1)m) is
    non-decreasing in L (derivative M(M − m)/(M + (L−1)m)²) and tends to M/m as L → ∞;
    symmetrically L·m/(m + (L−1)M) is non-increasing with limit m/M.

    >>> upper_constant_is_best()
    True
    """
    lo, hi = tight_bounds()
    d, n = sp.symbols("d n", nonnegative=True)
    shift = {M: m + d, L: 1 + n}
    up_deriv = sp.diff(L * hi, L)
    lo_deriv = sp.diff(L * lo, L)
    return (
        _positive_fraction(up_deriv.subs(shift), [m, d, n])
        and _positive_fraction((-lo_deriv).subs(shift), [m, d, n])
        and sp.limit(L * hi, L, sp.oo) == M / m
        and sp.limit(L * lo, L, sp.oo) == m / M
    )


def _softmax_bounds(E) -> dict[str, sp.Expr]:
    # With E = exp(2Δ/T): m/M = 1/E, M/m = E.
    return {
        "loose_lower": 1 / (E * L),
        "loose_upper": E / L,
        "tight_lower": 1 / (1 + (L - 1) * E),
        "tight_upper": 1 / (1 + (L - 1) / E),
    }


def prove_softmax_tight_within_loose() -> bool:
    """Exact proof of Corollary 1's inclusions with x = e^{Δ/T} ≥ 1 as a symbol:
    L1's tight bounds with m = 1/x, M = x equal 1/(1 + (L−1)x²) and 1/(1 + (L−1)x⁻²), and these
    lie inside [x⁻²/L, x²/L] (substitute x² = 1 + d, L = 1 + n).

    >>> prove_softmax_tight_within_loose()
    True
    """
    x = sp.Symbol("x", positive=True)
    b = _softmax_bounds(x**2)
    lo, hi = tight_bounds(1 / x, x)
    same = is_identity(sp.fraction(sp.together(lo - b["tight_lower"]))[0]) and is_identity(
        sp.fraction(sp.together(hi - b["tight_upper"]))[0]
    )
    d, n = sp.symbols("d n", nonnegative=True)
    E = sp.Symbol("E", positive=True)
    bE = _softmax_bounds(E)
    shift = {E: 1 + d, L: 1 + n}
    inside = _positive_fraction((bE["loose_upper"] - bE["tight_upper"]).subs(shift), [d, n]) and (
        _positive_fraction((bE["tight_lower"] - bE["loose_lower"]).subs(shift), [d, n])
    )
    return same and inside


def _taylor2_constants() -> tuple[sp.Expr, sp.Expr]:
    # F = 1 + x + x²/2, x = l/T: F' = (1 + x)/T vanishes at l = −T with F = 1/2; F(a) − F(−a) = 2a/T > 0.
    F = FAMILIES["taylor2"].F
    assert is_identity(F.subs(l, a) - F.subs(l, -a), 2 * a / T)
    assert is_identity(F - sp.Rational(1, 2), (1 + l / T) ** 2 / 2)
    m_q = sp.Piecewise((sp.Rational(1, 2), a >= T), (F.subs(l, -a), True))
    return m_q, F.subs(l, a)


@register("L1-constants", "Lemma 1: tight and loose bounds of a length-independent normalizer")
def derive_lemma1_constants() -> dict[str, Result]:
    """Tight bounds, C1 = m/M, C2 = M/m, their gaps, and the constants of four families."""
    if not (prove_tight_bounds() and prove_tight_within_loose() and upper_constant_is_best()):
        raise AssertionError("Lemma 1: the exact inclusion proof failed")
    lo, hi = tight_bounds()
    C1L, C2L = loose_bounds()
    extreme = {"F(l_i)": "M", "F(l_j), j != i": "m"}
    out = {
        "tight_lower": Result(lo, {"F(l_i)": "m", "F(l_j), j != i": "M"}, "sharp for every L"),
        "tight_upper": Result(hi, extreme, "sharp for every L"),
        "C1": Result(m / M, note="largest L-independent lower constant (limit of L*tight_lower)"),
        "C2": Result(M / m, note="least L-independent upper constant (limit of L*tight_upper)"),
        "loose_lower": Result(C1L),
        "loose_upper": Result(C2L),
        "gap_upper": Result(
            M * (M - m) / (m * L * (M + (L - 1) * m)), note="C2/L - tight_upper >= 0 (exact)"
        ),
        "gap_lower": Result(
            m * (M - m) / (M * L * (m + (L - 1) * M)), note="tight_lower - C1/L >= 0 (exact)"
        ),
    }
    for name in ("softmax", "softplus", "shifted_power", "sigmoid_ratio"):
        k = normalizer_constants(FAMILIES[name].F)
        out[f"{name}_m"] = Result(k.m, {"l": k.argmin}, f"F = {FAMILIES[name].description}")
        out[f"{name}_M"] = Result(k.M, {"l": k.argmax})
        out[f"{name}_C1"] = Result(k.C1)
        out[f"{name}_C2"] = Result(k.C2)
    m_q, M_q = _taylor2_constants()
    out["taylor2_m"] = Result(m_q, note="minimum at l = -T if a >= T, else at l = -a")
    out["taylor2_M"] = Result(M_q, {"l": a})
    out["taylor2_C1"] = Result(m_q / M_q)
    out["taylor2_C2"] = Result(M_q / m_q)
    # (1 + l²)^p: F' = 2pl(1 + l²)^(p−1) has the sign of l, so m = F(0) = 1, M = F(±a).
    Fe = FAMILIES["even_power"].F
    if not is_identity(sp.diff(Fe, l), 2 * p * l * (1 + l**2) ** (p - 1)):
        raise AssertionError("even_power derivative")
    out["even_power_m"] = Result(sp.Integer(1), {"l": 0})
    out["even_power_M"] = Result(Fe.subs(l, a), {"l": "+-a"})
    out["even_power_C1"] = Result(1 / Fe.subs(l, a))
    out["even_power_C2"] = Result(Fe.subs(l, a))
    return out


@register("C1", "Corollary 1: softmax weights with logits bounded by Δ = |q| max_j |k_j|")
def derive_corollary1() -> dict[str, Result]:
    """Lemma 1 for F = exp(l/T) on [−Δ, Δ]: loose (1/L)e^{∓2Δ/T} and tight forms."""
    if not prove_softmax_tight_within_loose():
        raise AssertionError("Corollary 1: the exact inclusion proof failed")
    k = normalizer_constants(FAMILIES["softmax"].F, l, Delta)
    E = sp.exp(2 * Delta / T)
    if not (k.C2 == E and k.C1 == 1 / E):
        raise AssertionError(f"Corollary 1: unexpected constants {k.C1}, {k.C2}")
    b = _softmax_bounds(E)
    top = {"l_i": "Delta", "l_j, j != i": "-Delta", "k_i": "|k| q/|q|", "k_j": "-|k| q/|q|"}
    bottom = {"l_i": "-Delta", "l_j, j != i": "Delta"}
    return {
        "logit_bound": Result(Delta, note="|l_i| = |q.k_i| <= |q| |k_i| <= Delta (Cauchy-Schwarz)"),
        "C1": Result(k.C1),
        "C2": Result(k.C2),
        "loose_lower": Result(b["loose_lower"], note="summary form"),
        "loose_upper": Result(b["loose_upper"], note="summary form"),
        "tight_lower": Result(b["tight_lower"], bottom, "sharp: logits at -Delta / +Delta"),
        "tight_upper": Result(b["tight_upper"], top, "sharp: keys aligned / anti-aligned with q"),
    }
