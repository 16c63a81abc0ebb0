"""normalizer_constants / function_extremes / real_line_extremes: bad input is a ValueError or
TypeError naming the argument (not a bare SympifyError), and exact extremes over the real line."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from attnbounds.theory import normalization as N

l = N.l


@pytest.mark.parametrize("F, error, message", [
    ("exp(l", ValueError, "F: cannot parse 'exp(l' as a SymPy expression"),
    ("1/0", ValueError, "F: must be finite"),
    (object(), TypeError, "F: expected a SymPy expression or a number, got object"),
    (None, TypeError, "F: expected a SymPy expression or a number, got NoneType"),
    ([1, 2], TypeError, "F: expected a SymPy expression or a number, got list"),
    (sp.Gt(l, 0), TypeError, "F: expected a SymPy expression, got StrictGreaterThan"),
    (sp.nan, ValueError, "F: must be finite, got nan"),
    (sp.exp(l) + sp.oo, ValueError, "F: must be finite"),
])
def test_a_bad_F_names_F(F, error, message):
    with pytest.raises(error) as info:
        N.normalizer_constants(F, l, 1)
    assert type(info.value) is error  # not sympy's SympifyError (a ValueError subclass)
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize("half_width, error, message", [
    ("1/", ValueError, "half_width: cannot parse '1/'"),
    (object(), TypeError, "half_width: expected a SymPy expression or a number, got object"),
    (None, TypeError, "half_width: expected"),
    (sp.oo, ValueError, "half_width: must be finite"),
    (float("nan"), ValueError, "half_width: must be finite"),
    (-1, ValueError, "half_width: must be positive, got -1"),
    (sp.Symbol("b"), ValueError, "half_width: must be positive"),  # not decided positive
])
def test_a_bad_half_width_names_half_width(half_width, error, message):
    with pytest.raises(error) as info:
        N.normalizer_constants(sp.exp(l), l, half_width)
    assert type(info.value) is error
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize("variable", ["l", 1, None, l + 1])
def test_a_bad_variable_names_variable(variable):
    with pytest.raises(TypeError, match="^variable: expected a sympy Symbol"):
        N.normalizer_constants(sp.exp(l), variable, 1)


def test_a_string_is_parsed_in_the_variable():
    k = N.normalizer_constants("exp(l/2)", l, "3/2")
    assert (k.m, k.M, k.argmin, k.argmax) == (sp.exp(-sp.Rational(3, 4)), sp.exp(sp.Rational(3, 4)), -sp.Rational(3, 2),
                                              sp.Rational(3, 2))
    assert k.C1 == sp.exp(-sp.Rational(3, 2))
    x = sp.Symbol("x", real=True)
    assert N.normalizer_constants("1 + x**2", x, 2).m == 1  # another variable's name is bound too


def test_a_symbol_named_like_the_variable_is_the_variable():
    plain = sp.Symbol("l")  # no assumptions: not N.l; was taken as a constant (m = M = exp(l))
    k = N.normalizer_constants(sp.exp(plain), l, 1)
    assert (k.m, k.M, k.method) == (sp.exp(-1), sp.E, "monotone increasing")
    assert N.function_extremes(plain * (1 - plain), l, 1).m == -2


def test_function_extremes_names_its_own_argument():
    with pytest.raises(ValueError, match="^f: cannot parse"):
        N.function_extremes("(", l, 1)
    with pytest.raises(TypeError, match="^g: expected"):
        N.function_extremes(object(), l, 1, name="g")


def test_the_docstring_documents_returns_and_raises():
    doc = N.normalizer_constants.__doc__
    returns = doc[doc.index("Returns\n"):doc.index("Raises\n")]
    raises = doc[doc.index("Raises\n"):doc.index("Examples\n")]
    assert "NormalizerConstants or None" in returns and "undecided" in returns and "C1" in returns
    for word in ("TypeError", "ValueError", "``variable``", "``F``", "``half_width``", "parse", "positive"):
        assert word in raises, word


# ------------------------------------------------------------------ real_line_extremes


@pytest.mark.parametrize("f, m, argmin, M, argmax", [
    (2 * l / (1 + l**2), -1, -1, 1, 1),  # (log F)' of 1 + l^2: attained at -1 and 1
    (4 * l / (1 + l**2), -2, -1, 2, 1),
    (1 / (1 + sp.exp(l)), 0, sp.oo, 1, -sp.oo),  # only approached
    (sp.tanh(l), -1, -sp.oo, 1, sp.oo),
    (2 * l, -sp.oo, -sp.oo, sp.oo, sp.oo),  # unbounded
    (2 * (l + 1) / (l**2 + 2 * l + 2), -1, -2, 1, 0),  # taylor2's g at T = 1: L2-generic's "l = 0 and l = -2T"
    (sp.Integer(3), 3, 0, 3, 0),
])
def test_real_line_extremes_exact(f, m, argmin, M, argmax):
    k = N.real_line_extremes(f)
    assert (k.m, k.argmin, k.M, k.argmax) == (m, argmin, M, argmax)
    if f.has(l) and k.M.is_finite:
        x = np.linspace(-200.0, 200.0, 400_001)
        y = sp.lambdify(l, f, "numpy")(x)
        assert y.min() >= float(k.m) - 1e-12 and y.max() <= float(k.M) + 1e-12
        assert y.min() == pytest.approx(float(k.m), abs=1e-2) and y.max() == pytest.approx(float(k.M), abs=1e-2)


@pytest.mark.parametrize("f", [
    sp.cos(l) / (2 + sp.sin(l)),  # infinitely many critical points
    1 / l,  # not continuous on the real line
    sp.Heaviside(l),
    l / sp.Symbol("T", positive=True),  # another free symbol
    sp.exp(l) / ((1 + sp.exp(l)) * sp.log(1 + sp.exp(l))),  # softplus's g: SymPy finds no critical points
])
def test_real_line_extremes_undecided(f):
    assert N.real_line_extremes(f) is None


def test_real_line_extremes_bad_input():
    with pytest.raises(TypeError, match="^variable:"):
        N.real_line_extremes(l, "l")
    with pytest.raises(ValueError, match="^g: cannot parse"):
        N.real_line_extremes("(l", name="g")
    assert N.real_line_extremes("1/(1 + l**2)").M == 1  # a string, in the variable
