"""Piecewise F (ELU + 1, e^{min(l, 3)}, max(l, 0)² + 1): Lemma 1's m and M with a symbolic a, and
sup |(log F)'| over the real line, split piece by piece; checked against grids, and a
discontinuous F (a jump, or one wrong value at a point) is never called monotone."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from attnbounds.theory import normalization as thn
from attnbounds.theory.derivation import latex

l, a = thn.l, thn.a
ELU1 = sp.Piecewise((l + 1, l > 0), (sp.exp(l), True))  # ELU(l) + 1
EXP_MIN = sp.exp(sp.Min(l, 3))
RELU2 = sp.Max(l, 0) ** 2 + 1
HARDTANH2 = sp.Max(-1, sp.Min(1, l)) + 2  # m = Max(-1, -a) + 2: decided > 0 by monotonicity in the Max


def _grid(F, half):
    x = np.linspace(-half, half, 200_001)
    return np.asarray(sp.lambdify(l, F, "numpy")(x), dtype=float) * np.ones_like(x)


@pytest.mark.parametrize("F", [ELU1, EXP_MIN, RELU2, HARDTANH2], ids=["elu1", "exp_min", "relu2", "hardtanh2"])
def test_symbolic_a_constants_match_a_grid(F):
    k = thn.normalizer_constants(F)
    assert k is not None and k.method.startswith("monotone"), k
    assert (k.argmin, k.argmax) == (-a, a)
    for half in (0.5, 1.0, 2.0, 3.0, 5.5):  # e^{min(l, 3)}: below, at and beyond the kink; hardtanh's at 1
        values = _grid(F, half)
        at = {a: sp.Rational(str(half))}
        assert float(k.m.subs(at)) == pytest.approx(values.min(), rel=1e-12), (F, half)
        assert float(k.M.subs(at)) == pytest.approx(values.max(), rel=1e-12), (F, half)


def test_the_decided_forms():
    assert thn.normalizer_constants(EXP_MIN) == thn.NormalizerConstants(
        sp.exp(-a), sp.exp(sp.Min(3, a)), -a, a, "monotone non-decreasing (piecewise)")
    k = thn.normalizer_constants(RELU2)
    assert (k.m, k.M) == (1, a**2 + 1)
    # a decreasing piecewise F
    k = thn.normalizer_constants(sp.exp(-sp.Min(l, 1)))
    assert (k.m, k.M, k.argmin, k.argmax) == (sp.exp(-sp.Min(1, a)), sp.exp(a), a, -a)


@pytest.mark.parametrize("F", [
    sp.Piecewise((l + 10, l < 0), (l + 1, True)),  # increasing pieces, a jump down at 0: min is 1, at 0
    sp.Piecewise((5, sp.Eq(l, 0)), (sp.exp(l), True)),  # one wrong value at 0: max is 5 for a < log 5
    sp.Piecewise((1 + l**2, l < 1), (2, True)),  # continuous, not monotone
    sp.Piecewise((sp.exp(l) + 4, l < 0), (sp.exp(l), True)),  # trial 50: increasing pieces, a jump down
    sp.Piecewise((2, l > 0), (1, True)),  # a step: its derivative is 0 off 0
], ids=["jump", "point", "not_monotone", "exp_jump", "step"])
def test_a_piecewise_f_that_is_not_shown_monotone_is_undecided(F):
    """The first route trusted the sign of SymPy's derivative of a Piecewise, which drops its
    jumps: e^l + 4 for l < 0, e^l beyond was "monotone increasing" with m = 4 + e^{-a} > M
    (trial 50), also at a numeric a, which made check report Lemma 1 falsified under it."""
    assert thn.normalizer_constants(F) is None
    assert thn.normalizer_constants(F, l, sp.Rational(1, 2)) is None
    if F.args[0][0] != 1 + l**2:
        assert not thn.continuous_on_reals(F)


def test_real_line_extremes_of_a_piecewise_log_derivative():
    g = sp.diff(sp.log(ELU1), l)  # a product of two Piecewise: sympy.limit and continuous_domain refuse it
    k = thn.real_line_extremes(g)
    assert (k.m, k.argmin, k.M, k.argmax) == (0, sp.oo, 1, 0)  # 1/(l + 1) for l > 0, 1 for l <= 0
    g2 = sp.diff(sp.log(ELU1 + 1), l)  # ELU + 2: 1/(l + 2) and e^l/(e^l + 1), sup 1/2 at 0
    k = thn.real_line_extremes(g2)
    assert (k.m, k.argmin, k.M, k.argmax) == (0, -sp.oo, sp.Rational(1, 2), 0)
    k = thn.real_line_extremes(sp.diff(sp.log(RELU2), l))
    assert (k.m, k.M, k.argmax) == (0, 1, 1)
    x = np.linspace(-40, 40, 400_001)
    for F, M in ((ELU1, 1.0), (ELU1 + 1, 0.5), (RELU2, 1.0)):
        with np.errstate(divide="ignore", invalid="ignore"):
            gv = np.asarray(sp.lambdify(l, sp.diff(sp.log(F), l), "numpy")(x), dtype=float)
        assert gv.max() <= M * (1 + 1e-12) and gv.max() == pytest.approx(M, rel=1e-6)
    # g = Heaviside(3 - l) jumps: not continuous, so undecided (Lemma 2 wants F differentiable)
    assert thn.real_line_extremes(sp.diff(sp.log(EXP_MIN), l)) is None


def test_latex_of_a_min_that_sympys_printer_refuses():
    T = sp.Symbol("T", positive=True)
    expr = sp.exp(-a / T) * sp.exp(-sp.Min(3, a / T))
    with pytest.raises(ValueError):
        sp.latex(expr)  # SymPy's own printer (if this starts to pass, the fallback is no longer needed)
    assert latex(expr) == r"e^{- \frac{a}{T}} e^{- \min{\left(3,\frac{a}{T} \right)}}"
    assert latex(sp.exp(a)) == sp.latex(sp.exp(a))


@pytest.mark.parametrize("F", [1 + l**2, sp.exp(l**2), (1 + l**2) ** sp.Rational(3, 2), 1 / (1 + l**2),
                               sp.Abs(l) + 1, sp.exp(-(l**2)), 1 + sp.exp(-(l**2)), sp.cosh(l), 2 + sp.tanh(l)],
                         ids=["quad", "gauss", "power", "cauchy", "abs", "bump", "bump_plus_one", "cosh", "tanh2"])
def test_critical_points_with_a_symbolic_a_match_a_grid(F):
    """Stop 50: a non-monotone F whose critical point 0 lies in [-a, a] for every a > 0 is decided
    with a symbolic a (it was undecided: the critical points needed a number). Stop 51: the values
    are ordered by monotonicity in a bounded term too (1 + e^{-a^2} <= 2 as e^{-a^2} <= 1; cosh a
    >= 1; 2 - tanh a <= 2 + tanh a), which SymPy's assumptions leave open."""
    k = thn.normalizer_constants(F)
    assert k is not None and k.method == "critical points", k
    for half in (0.1, 1.0, 2.5, 6.0):
        values = _grid(F, half)
        at = {a: sp.Rational(str(half))}
        assert float(k.m.subs(at)) == pytest.approx(values.min(), rel=1e-12), (F, half)
        assert float(k.M.subs(at)) == pytest.approx(values.max(), rel=1e-12), (F, half)
        assert float(F.subs(l, k.argmin.subs(at))) == pytest.approx(values.min(), rel=1e-12)
        assert float(F.subs(l, k.argmax.subs(at))) == pytest.approx(values.max(), rel=1e-12)


@pytest.mark.parametrize("F", [1 + l + l**2 / 2, l**4 - l**2 + 1], ids=["taylor2", "double_well"])
def test_a_critical_point_inside_only_for_some_a_is_undecided(F):
    # -1 (and ±1/sqrt(2)) lie in [-a, a] only for a large enough: m depends on a piecewise
    assert thn.normalizer_constants(F) is None
    assert thn.normalizer_constants(F, l, 2) is not None  # a number decides it


def test_the_same_f_written_with_max_and_min_gets_the_same_answers():
    """Trial 50: Max(l, 0) + exp(Min(l, 0)) is ELU + 1, but its G was undecided: the rewrite's
    leftover True branch 1/(l + e^l), which applies nowhere, was solved too (its derivative is not
    continuous at l = -W(1)). Each piece is now solved on its own interval only."""
    other = sp.Max(l, 0) + sp.exp(sp.Min(l, 0))
    assert thn.normalizer_constants(other) == thn.normalizer_constants(ELU1).__class__(
        sp.exp(-a), a + 1, -a, a, "monotone non-decreasing (piecewise)")
    g1 = thn.real_line_extremes(sp.simplify(sp.diff(ELU1, l) / ELU1))
    g2 = thn.real_line_extremes(sp.simplify(sp.diff(other, l) / other))
    assert (g1.m, g1.M) == (g2.m, g2.M) == (0, 1)
    for half in (sp.Rational(1, 2), 2):  # the numeric route agrees
        k = thn.normalizer_constants(other, l, half)
        assert (k.m, k.M) == (sp.exp(-half), half + 1)


def test_arg_jumps_and_is_not_called_monotone():
    """Review 50: e^l + arg(l) + 1 has SymPy derivative e^l (arg's is 0), but arg jumps by pi at
    0: it was "monotone increasing" with m = 1 + pi + e^{-a} > M = e^a + 1. continuous_domain
    cannot judge arg, and arg is not among the functions trusted without it."""
    F = sp.exp(l) + sp.arg(l) + 1
    assert not thn.continuous_on_reals(F, unless_elementary=True)
    assert thn.normalizer_constants(F) is None
    assert thn.normalizer_constants(F, l, 2) is None


def test_large_or_transcendental_piecewise_forms_are_not_split():
    """Review 50: SymPy's set algebra ran for minutes on Max(e^l, 1 + l^2) (a transcendental
    crossing) and on the derivative of the maximum of three shifted |l|. Such forms are not
    split (undecided, or the old route); the answers are unchanged."""
    assert thn.normalizer_constants(sp.Max(sp.exp(l), 1 + l**2)) is None
    F = sp.Max(sp.exp(l), 1 + l**2)
    assert thn.real_line_extremes(sp.simplify(sp.diff(F, l) / F)) is None
    k = thn.normalizer_constants(sp.Max(sp.Abs(l), sp.Abs(l - 1), sp.Abs(l + 1)) + 1, l, 2)
    assert (k.m, k.M) == (2, 4)


def test_continuous_on_reals_names_its_bad_arguments():
    with pytest.raises(TypeError, match="^variable: expected a sympy Symbol"):
        thn.continuous_on_reals(l + 1, "l")
    with pytest.raises(ValueError, match="^f: cannot parse"):
        thn.continuous_on_reals("exp(l")
    with pytest.raises(TypeError, match="^f: expected a SymPy expression"):
        thn.continuous_on_reals([l])
    assert thn.continuous_on_reals("exp(l) + l**2") is True  # a string is parsed, its l the variable


@pytest.mark.parametrize(("x", "strict", "decided"), [
    (sp.Max(-1, -a) + 2, True, True),  # >= -1 + 2
    (sp.Max(-1, -a) + 1, True, False),  # >= 0 only: 0 at a >= 1
    (sp.Max(-1, -a) + 1, False, True),
    (2 - sp.Max(1, a), False, False),  # < 0 for a > 2
    (1 - sp.exp(-a**2), False, True),
    (sp.exp(-a**2) - 1, False, False),  # < 0 for every a > 0
    (1 - sp.exp(a), False, False),
    (sp.cosh(a) - 1, False, True),
    (1 - sp.cosh(a), False, False),
    (2 * sp.tanh(a), True, True),
    (1 - sp.tanh(-a), False, True),  # tanh(-a) <= 0 < 1
    (sp.tanh(l) + 1, True, False),  # > 0 indeed, but the bound -1 gives only >= 0
    (sp.tanh(l) + 1, False, True),
])
def test_bounded_below_is_sound_on_a_grid(x, strict, decided):
    """The monotone-in-a-bounded-term rule (Max, Min, exp, cosh, tanh) never decides a sign that
    a grid of a (and l) contradicts, and decides the ones it should."""
    assert thn._bounded_below(x, strict=strict) is decided
    if decided:
        f = sp.lambdify((a, l), x, "numpy")
        A, Lg = np.meshgrid(np.linspace(1e-3, 20, 401), np.linspace(-20, 20, 401))
        values = np.asarray(f(A, Lg), dtype=float) * np.ones_like(A)
        assert (values > 0).all() if strict else (values >= -1e-12).all()


def test_the_new_entry_points_name_their_bad_arguments():
    """family_of, log_derivative_extremes and sampled_values (stop 51): bad input is an error naming it."""
    with pytest.raises(ValueError, match=r"^F: cannot parse"):
        thn.family_of("exp(l")
    with pytest.raises(TypeError, match=r"^F: expected a SymPy expression"):
        thn.family_of([l])
    with pytest.raises(TypeError, match=r"^values: expected a dict"):
        thn.family_of(sp.exp(l / thn.T), values=[1.0])
    with pytest.raises(ValueError, match=r"^g: cannot parse"):
        thn.log_derivative_extremes("cos(l", l)
    with pytest.raises(TypeError, match=r"^variable: expected a sympy Symbol"):
        thn.log_derivative_extremes(l, "l")
    with pytest.raises(TypeError, match=r"^f: expected a SymPy expression"):
        thn.sampled_values(None)
    with pytest.raises(TypeError, match=r"^variable: expected a sympy Symbol"):
        thn.sampled_values(l, "l")


def test_sympys_route_is_dropped_where_a_grid_contradicts_it(monkeypatch):
    """log_derivative_extremes keeps SymPy's minimum and maximum only where the grid agrees."""
    import sympy.calculus.util as scu

    g = sp.cos(l) / (2 + sp.sin(l))
    assert thn.log_derivative_extremes(g) is not None
    monkeypatch.setattr(scu, "maximum", lambda *args: sp.Rational(1, 2))  # below 1/sqrt(3), which the grid samples
    assert thn.log_derivative_extremes(g) is None
