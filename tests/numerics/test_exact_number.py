"""numerics.validation.exact_number: the value written, never nsimplify's guess; bad input named."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from attnbounds.numerics.validation import exact_number


def test_values_are_the_ones_written():
    assert exact_number(0.1) == sp.Rational(1, 10)
    assert exact_number(1e-100) == sp.Rational(1, 10**100)  # nsimplify gave 0
    assert exact_number(0.3333333333) == sp.Rational(3333333333, 10**10)  # nsimplify gave 1/3
    assert exact_number(np.int64(3)) == 3 and exact_number(Fraction(2, 3)) == sp.Rational(2, 3)
    assert exact_number(sp.Float(0.5)) == sp.Rational(1, 2) and exact_number(sp.sqrt(2)) == sp.sqrt(2)


@pytest.mark.parametrize(("value", "error", "message"), [
    (True, TypeError, "^T: expected a number, got bool"),
    ("0.5", TypeError, "^T: expected a number, got str"),
    (float("inf"), ValueError, "^T: must be a finite number"),
    (sp.oo, ValueError, "^T: must be a finite real number"),
    (sp.I, ValueError, "^T: must be a finite real number"),
])
def test_bad_input_names_the_argument(value, error, message):
    with pytest.raises(error, match=message):
        exact_number(value, "T")
