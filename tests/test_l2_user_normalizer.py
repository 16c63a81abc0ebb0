"""L2:reconstructed is stated "for any positive F" (G = sup|(log F)'|): a user's ratio-form F
(``check --normalizer``) is checked with that F's own G, not rejected; where G cannot be
computed, the row says why in one line (not applicable), never an error."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from attnbounds import engine
from attnbounds.claims.lemma2 import ratio_log_derivative_sup
from attnbounds.engine import Budget
from attnbounds.numerics import normalizers as nz

SMALL = Budget(examples=20, sweep=2_000, mc_samples=100, audit=200)
QUAD = nz.from_sympy(nz.LOGIT**2 + 1, nz.LOGIT, name="quad_plus_one_l2")
HARD = nz.from_sympy(sp.log(1 + sp.exp(nz.LOGIT)) + sp.exp(-nz.LOGIT**2), nz.LOGIT, name="hard_one_l2")


def test_the_supremum_of_a_users_log_derivative():
    engine.check(["L2:reconstructed"], budget=SMALL, normalizer=QUAD)  # poses QUAD (the registry learns its name)
    assert ratio_log_derivative_sup("quad_plus_one_l2", 1.0, 3) == 1.0  # (log F)' = 2l/(l²+1): sup 1 at l = ±1
    assert math.isclose(ratio_log_derivative_sup("ssmax", 1.0, 8), math.log(8))  # F_8(l) = 8^l


def test_a_users_positive_ratio_form_is_checked_not_rejected():
    for N in (QUAD, "ssmax"):
        row = engine.check(["L2:reconstructed"], budget=SMALL, normalizer=N)[0]
        assert row.verdict == "holds" and row.error is None, (N, row.evidence)
        assert row.methods == ["strategy", "sweep"]


def test_where_g_cannot_be_computed_the_row_says_why_in_one_line():
    row = engine.check(["L2:reconstructed"], budget=SMALL, normalizer=HARD)[0]
    assert row.verdict == "undecided" and row.error is None
    assert row.evidence.startswith("not applicable under hard_one_l2") and "SymPy cannot find the supremum" in row.evidence
    assert "log(exp(l) + 1)" in row.detail["under"]  # the full reason names F
    assert "\n" not in row.evidence


ELU1 = nz.from_sympy(sp.Piecewise((nz.LOGIT + 1, nz.LOGIT > 0), (sp.exp(nz.LOGIT), True)), nz.LOGIT, name="elu1_l2")
JUMP = nz.from_sympy(sp.Piecewise((sp.exp(nz.LOGIT) + 4, nz.LOGIT < 0), (sp.exp(nz.LOGIT), True)), nz.LOGIT,
                     name="jump_l2")


def test_a_piecewise_f_gets_the_same_g_as_derive():
    """ELU + 1: (log F)' is a product of two Piecewise, which SymPy's maximum refuses; check takes
    G from derive's routine (real_line_extremes), piece by piece: sup 1 (1/(l + 1) for l > 0, 1 below)."""
    row = engine.check(["L2:reconstructed"], budget=SMALL, normalizer=ELU1)[0]
    assert row.verdict == "holds" and row.error is None, row.evidence
    assert ratio_log_derivative_sup("elu1_l2", 1.0, 3) == 1.0


def test_a_normalizer_with_a_jump_is_not_falsified_by_its_own_constants():
    """Trial 50: under F = e^l + 4 for l < 0, e^l beyond, Lemma 1's constants came from a
    "monotone increasing" F (SymPy's derivative of a Piecewise drops the jump), m > M, and check
    reported L1:transcribed and L1:reconstructed falsified by those constants. Now no constants
    and no G: not applicable, with the reason."""
    rows = engine.check(["L1:transcribed", "L1:reconstructed", "L2:reconstructed"], budget=SMALL, normalizer=JUMP)
    for row in rows:
        assert row.verdict == "undecided" and row.error is None, (row.id, row.verdict, row.evidence)
        assert row.evidence.startswith("not applicable under jump_l2"), row.evidence
    assert "not shown continuous" in rows[2].detail["under"]


SOFTPLUS_OWN = nz.from_sympy(sp.log(1 + sp.exp(nz.LOGIT)), nz.LOGIT, name="softplus_own_l2")


def test_a_users_f_that_is_a_family_takes_the_familys_exact_g():
    """Stop 50's lead: a hand-written softplus, log(1 + e^{l/T}), is the family softplus, whose G =
    1/T (approached as l -> -oo, never attained) is in the theory's exact table; SymPy's critical
    points find nothing for it (HARD above stays not applicable). Cross-checked on a grid in the
    routine; here against a wider one."""
    row = engine.check(["L2:reconstructed"], budget=SMALL, normalizer=SOFTPLUS_OWN)[0]
    assert row.verdict == "holds" and row.error is None, row.evidence
    for T in (0.5, 1.0, 2.0):
        G = ratio_log_derivative_sup("softplus_own_l2", T, 3)
        assert G == 1 / T
        x = np.linspace(-40, 40, 800_001)
        g = 1 / (T * (1 + np.exp(-x / T)) * np.log1p(np.exp(x / T)))
        assert g.max() <= G * (1 + 1e-12) and g.max() == pytest.approx(G, rel=1e-6)


CUBIC = nz.from_sympy(3 + nz.LOGIT**3 - 3 * nz.LOGIT, nz.LOGIT, name="cubic_l2")  # < 0 for l < -2.1


def test_a_negative_f_is_not_applicable_in_every_generic_reading():
    """Trial 51: under F = 3 + l^3 - 3l, negative below l = -2.1, L2:log-form-tighter was plainly
    falsified (rhs = max|F'|/(2 min F) < 0), with no hypothesis broken; its sides computed no
    Jacobian, which is where the four other generic readings learned that F must be > 0."""
    ids = ["L2:reconstructed", "L2:generic-paper", "L2:generic-sharpest", "L2:log-form", "L2:log-form-tighter"]
    for row in engine.check(ids, budget=SMALL, normalizer=CUBIC):
        assert row.verdict == "undecided" and row.error is None, (row.id, row.evidence)
        assert row.evidence.startswith("not applicable under cubic_l2") and "F: must be > 0" in row.evidence, row.id
