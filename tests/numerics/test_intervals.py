"""intervals.py: three-valued arb certificates, soundness against sampled values, errors."""

import math
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, fmpq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnbounds.numerics.attention import softmax
from attnbounds.numerics.intervals import (
    arb_softmax,
    as_rational,
    box_to_arbs,
    certify_upper_bound,
)
from attnbounds.strategies import logits, temperatures


def test_tight_bound_needs_concavity():
    f = lambda x: 2 * x[0] * (1 - x[0])  # noqa: E731
    # Plain enclosures cannot reach a bound that is attained: undecided, never rounded up.
    plain = certify_upper_bound(f, [(0, 1)], "1/2", max_depth=10)
    assert plain.status is None
    # with concavity (f'' = -4 <= 0) the attained bound is certified
    concave = certify_upper_bound(f, [(0, 1)], "1/2", max_depth=10, gradient=lambda x: [2 - 4 * x[0]],
                                  hessian=lambda x: [[arb(-4)]])
    assert concave.status is True


def test_concavity_anchors_beyond_the_centre():
    """Trial 48: concavity certified an attained bound only where the maximiser was the centre of a
    box the bisection makes. The tangent plane is now also taken at the vertices and at a Newton
    step rounded to dyadic rationals."""
    neg2 = lambda x: [[arb(-2)]]  # noqa: E731
    # the maximiser 0 is a vertex of [0, 8], never a bisection centre (those are 8 m / 2^k, m odd)
    edge = certify_upper_bound(lambda x: 1 - x[0] * x[0], [(0, 8)], 1, max_depth=12,
                               gradient=lambda x: [-2 * x[0]], hessian=neg2)
    assert edge.status is True and edge.boxes == 1, edge.detail
    # the maximiser 3/8 of x(3/4 - x) on [0, 5] is never a bisection centre (those are 5 m / 2^k)
    off = certify_upper_bound(lambda x: x[0] * (arb(3) / 4 - x[0]), [(0, 5)], "9/64", max_depth=12,
                              gradient=lambda x: [arb(3) / 4 - 2 * x[0]], hessian=neg2)
    assert off.status is True, off.detail
    # in two dimensions, with a cross term: the maximiser (1/4, -3/8)
    shift = lambda z: (z[0] - arb(1) / 4, z[1] + arb(3) / 8)  # noqa: E731

    def f(z):
        u, v = shift(z)
        return -(u * u) - v * v - u * v

    def g(z):
        u, v = shift(z)
        return [-2 * u - v, -2 * v - u]

    two = certify_upper_bound(f, [(-1, 1), (-1, 2)], 0, max_depth=12, gradient=g,
                              hessian=lambda z: [[arb(-2), arb(-1)], [arb(-1), arb(-2)]])
    assert two.status is True, two.detail
    # on a face (review 49): the maximiser (1/4, 0) of -(x - 1/2)^2 - (y + 1)^2 - (x - 1/2)(y + 1)/2
    # on [-1, 2] x [0, 1] has y held at 0 and x from the re-solved step
    def face(z):
        u, v = z[0] - arb(1) / 2, z[1] + 1
        return -(u * u) - v * v - u * v / 2

    def face_g(z):
        u, v = z[0] - arb(1) / 2, z[1] + 1
        return [-2 * u - v / 2, -2 * v - u / 2]

    on_face = certify_upper_bound(face, [(-1, 2), (0, 1)], "-15/16", max_depth=12, gradient=face_g,
                                  hessian=lambda z: [[arb(-2), arb(-0.5)], [arb(-0.5), arb(-2)]])
    assert on_face.status is True, on_face.detail
    # a model beyond floats gives no anchor, not an error (review 49: OverflowError)
    far = certify_upper_bound(lambda x: x[0] - arb("1e-300") * x[0] * x[0], [(0, 1)], "1/2",
                              gradient=lambda x: [1 - 2 * arb("1e-300") * x[0]], hessian=lambda x: [[-2 * arb("1e-300")]])
    assert far.status is False  # f(1) = 1 - 1e-300 > 1/2
    huge = certify_upper_bound(lambda x: -((x[0] - arb(10) ** 400) ** 2), [(0, 3 * 10**400)], 0, max_depth=4,
                               gradient=lambda x: [-2 * (x[0] - arb(10) ** 400)], hessian=lambda x: [[arb(-2)]])
    assert huge.status is None
    # a bound just below the maximum is still refuted, and a maximiser that is not dyadic (1/3)
    # leaves an attained bound undecided: no anchor gives f(y) = 1/6 exactly
    assert certify_upper_bound(lambda x: x[0] * (arb(3) / 4 - x[0]), [(0, 5)], "0.1406", gradient=lambda x:
                               [arb(3) / 4 - 2 * x[0]], hessian=neg2).status is False
    third = certify_upper_bound(lambda x: x[0] - arb(3) / 2 * x[0] * x[0], [(0, 1)], "1/6", max_depth=10,
                                gradient=lambda x: [1 - 3 * x[0]], hessian=lambda x: [[arb(-3)]])
    assert third.status is None, third.detail
    # with a little slack the non-dyadic maximiser is certified
    assert certify_upper_bound(lambda x: x[0] - arb(3) / 2 * x[0] * x[0], [(0, 1)], "166666667/1000000000",
                               max_depth=40, gradient=lambda x: [1 - 3 * x[0]],
                               hessian=lambda x: [[arb(-3)]]).status is True


def test_false_bound_gives_an_exact_counterexample():
    cert = certify_upper_bound(lambda x: 2 * x[0] * (1 - x[0]), [(0, 1)], "0.49")
    assert cert.status is False
    (c,) = cert.counterexample
    assert isinstance(c, fmpq)
    assert 2 * c * (1 - c) > fmpq(49, 100)  # exact rational check of the counterexample


def test_boundary_maximum_is_found_at_a_vertex():
    cert = certify_upper_bound(lambda x: x[0] * x[0] + x[1], [(-1, 1), (0, 2)], 3, strict=True)
    assert cert.status is False
    x, y = cert.counterexample
    assert x * x + y >= 3
    # ≤ 3 is true but attained at the corners (±1, 2): enclosures alone stay undecided ...
    assert certify_upper_bound(lambda x: x[0] * x[0] + x[1], [(-1, 1), (0, 2)], 3, max_depth=12).status is None
    # ... while any slack is certified.
    assert certify_upper_bound(lambda x: x[0] * x[0] + x[1], [(-1, 1), (0, 2)], "3.001").status is True


def test_concavity_needs_a_negative_semidefinite_hessian():
    # f = x(1 − x) + y² is not concave; the Gershgorin test must refuse it.
    f = lambda x: x[0] * (1 - x[0]) + x[1] * x[1]  # noqa: E731
    cert = certify_upper_bound(
        f,
        [(0, 1), (0, "1/10")],
        "1/4",
        max_depth=8,
        gradient=lambda x: [1 - 2 * x[0], 2 * x[1]],
        hessian=lambda x: [[arb(-2), arb(0)], [arb(0), arb(2)]],
    )
    assert cert.status is False  # (1/2, 1/10) gives 1/4 + 1/100


def test_softmax_weight_wrong_constant_is_refuted():
    # e^{−Δ}/L instead of e^{−2Δ}/L: min α_1 = 1/(1 + e^{2}) < e^{−1}/2 for L = 2, Δ = 1.
    c = (-arb(1)).exp() / 2
    cert = certify_upper_bound(lambda x: c - arb_softmax(x)[0], [(-1, 1), (-1, 1)], 0)
    assert cert.status is False
    l1, l2 = (float(v) for v in cert.counterexample)
    assert math.exp(-1) / 2 > softmax(np.array([l1, l2]))[0]


@settings(max_examples=40)
@given(logits(max_size=5, min_value=-20.0, max_value=20.0), temperatures(1e-2, 1e2))
def test_arb_softmax_encloses_numpy(z, T):
    balls = arb_softmax([arb(float(v)) for v in z], T=Fraction(T))
    a = softmax(z, T)
    for ball, v in zip(balls, a):
        assert ball.overlaps(arb(float(v), 1e-15 + 1e-13 * float(v)))
        assert ball.rad() < 1e-12


@settings(max_examples=30)
@given(st.floats(-1, 1), st.floats(0, 1))
@example(0.0, 1.275e-16)
@example(0.0, 3.6859535918714434e-77)
def test_certified_enclosure_is_sound_on_subboxes(a, b):
    lo, hi = sorted((a, a + b))
    (ball,) = box_to_arbs([(lo, hi)])
    f = (ball * ball - 3 * ball).exp()
    for t in np.linspace(lo, hi, 7):
        # the enclosure of f on the box contains f at every point of the box. The point value
        # is enclosed at 2048 bits, far below any float box width (down to 2^-1074): at 53 bits
        # (a=0, b=1.275e-16) and even at 256 bits (a=0, b=3.69e-77) the point's own rounding
        # radius stuck out of a sound enclosure of a tiny box.
        assert f.contains(_point_value_at_high_precision(float(t)))


def _point_value_at_high_precision(t: float):
    from flint import ctx

    old = ctx.prec
    ctx.prec = 2048
    try:
        return (arb(t) ** 2 - 3 * arb(t)).exp()
    finally:
        ctx.prec = old


def test_exact_constant_results_are_accepted():
    assert certify_upper_bound(lambda x: 1, [(0, 1)], 1).status is True
    assert certify_upper_bound(lambda x: Fraction(3, 2), [(0, 1)], 1).status is False


def test_as_rational_accepts_exact_forms():
    assert as_rational("1/3") == fmpq(1, 3)
    assert as_rational(Fraction(2, 7)) == fmpq(2, 7)
    assert as_rational(0.1) == fmpq(*Fraction(0.1).as_integer_ratio())
    assert as_rational(5) == fmpq(5)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: certify_upper_bound(None, [(0, 1)], 1), TypeError, "f: must be callable"),
        (lambda: certify_upper_bound(lambda x: x[0], [], 1), ValueError, "box: must have"),
        (lambda: certify_upper_bound(lambda x: x[0], [(1, 0)], 1), ValueError, "box: coordinate 0 has lo > hi"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0,)], 1), ValueError, "box: coordinate 0 must be"),
        (lambda: certify_upper_bound(lambda x: x[0], 5, 1), TypeError, "box: expected"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0, float("nan"))], 1), ValueError, r"box\[0\].hi"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0, 1)], "abc"), ValueError, "bound:"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0, 1)], 1, max_depth=-1), ValueError, "max_depth:"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0, 1)], 1, max_boxes=0), ValueError, "max_boxes:"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0, 1)], 1, strict=1), TypeError, "strict:"),
        (lambda: certify_upper_bound(lambda x: x[0], [(0, 1)], 1, gradient=lambda x: x), ValueError, "gradient:"),
        (lambda: certify_upper_bound(lambda x: "a", [(0, 1)], 1), TypeError, "f: must return an arb"),
        (lambda: certify_upper_bound(lambda x: 0.5, [(0, 1)], 1), TypeError, "f: must return an arb"),
        (lambda: arb_softmax([]), ValueError, "logits: must not be empty"),
        (lambda: arb_softmax([0, 1], T=0), ValueError, "T: must be > 0"),
        (lambda: arb_softmax([0, None]), TypeError, "logits"),
        (lambda: as_rational(True), TypeError, "value: expected a number"),
    ],
)
def test_error_paths_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_certify_between_on_grid_decides_or_says_undecided():
    from attnbounds.numerics.intervals import certify_between_on_grid

    # p(1 − p) ≤ 1/4 with equality at 1/2: a strict upper bound of 1/4 can never be certified,
    # and a coarse grid must say "cannot decide", never "false".
    status, failure = certify_between_on_grid(lambda z: [z[0] * (1 - z[0])], [(0, 1)], 16, -1, "1/4")
    assert status is None and failure[1] == 0
    status, _ = certify_between_on_grid(lambda z: [z[0] * (1 - z[0])], [(0, 1)], 64, -1, "26/100")
    assert status is True
    with pytest.raises(ValueError, match="pieces"):
        certify_between_on_grid(lambda z: [z[0]], [(0, 1)], 0, 0, 1)
    with pytest.raises(ValueError, match="box"):
        certify_between_on_grid(lambda z: [z[0]], [], 2, 0, 1)


def test_the_derivatives_given_are_checked_against_f():
    """Trial 49: concavity trusted the user's gradient and Hessian; a sign slip in the Hessian
    certified the false x^2 <= 1/2 on [-1, 1], and a forgotten chain-rule factor a false bound
    through the engine. f's own derivatives (automatic differentiation on arb jets) are used, and
    the ones given must agree with them."""
    with pytest.raises(ValueError, match=r"^hessian: entry \[0\]\[0\] is -2\.0+ on the box, but f's own derivative"):
        certify_upper_bound(lambda x: x[0] * x[0], [(-1, 1)], "1/2", gradient=lambda x: [2 * x[0]],
                            hessian=lambda x: [[arb(-2)]])
    with pytest.raises(ValueError, match=r"^gradient: entry \[0\] is .* on the box's centre, but f's own derivative"):
        certify_upper_bound(lambda x: (3 * x[0]).sin(), [(0, 1)], 1, gradient=lambda x: [x[0].cos()],
                            hessian=lambda x: [[-9 * (3 * x[0]).sin()]])
    # correct derivatives, through exp, log, sqrt, atan, division and powers: certified
    f = lambda x: -(x[0] - 1) ** 2 + (x[1] + 2).log() - (1 + x[1] * x[1]).sqrt() / 4 + x[0].atan() / 8  # noqa: E731
    cert = certify_upper_bound(f, [(0, 2), (0, 1)], "1.5", gradient=lambda x: [
        -2 * (x[0] - 1) + 1 / (8 * (1 + x[0] * x[0])), 1 / (x[1] + 2) - x[1] / (4 * (1 + x[1] * x[1]).sqrt())],
        hessian=lambda x: [[-2 - x[0] / (4 * (1 + x[0] * x[0]) ** 2), arb(0)],
                           [arb(0), -1 / (x[1] + 2) ** 2 - 1 / (4 * (1 + x[1] * x[1]).sqrt() ** 3)]])
    assert cert.status is True, cert.detail


def test_concavity_is_not_used_where_f_cannot_be_differentiated():
    # a jet has no tanh (it is an arb whose own value is NaN: the tanh of that): the attained bound
    # stays undecided, and the detail says why
    f = lambda x: -(x[0] * x[0]) + (0 * x[0]).tanh()  # noqa: E731
    cert = certify_upper_bound(f, [(-1, 1)], 0, max_depth=6, gradient=lambda x: [-2 * x[0]],
                               hessian=lambda x: [[arb(-2)]])
    assert cert.status is None and "concavity not used" in cert.detail and "not finite" in cert.detail, cert.detail
    # a comparison of a jet is refused, not answered from its NaN
    g = lambda x: -(x[0] * x[0]) if x[0] < 2 else x[0]  # noqa: E731
    cert = certify_upper_bound(g, [(-1, 1)], 0, max_depth=6, gradient=lambda x: [-2 * x[0]],
                               hessian=lambda x: [[arb(-2)]])
    assert cert.status is None and "a comparison (or truth value) of a jet" in cert.detail, cert.detail


def test_review_49_jets_are_arbs_so_unbound_methods_and_isinstance_cannot_fool_them():
    """Review 49: arb.cos(jet) read a plain object as a ball (garbage, or an abort), and a constant
    from f on jets was taken for f's derivatives: arb.cos(x) <= 0 on [-4, 4] was certified."""
    cos = certify_upper_bound(lambda x: arb.cos(x[0]), [(-4, 4)], 0, gradient=lambda x: [-x[0].sin()],
                              hessian=lambda x: [[-x[0].cos()]])
    assert cos.status is False, cos.detail
    # f that is x^2 on balls and -x^2 elsewhere: the jets' value disagrees with f's, no concavity
    two_faced = lambda x: x[0] * x[0] if type(x[0]) is arb else -(x[0] * x[0])  # noqa: E731
    cert = certify_upper_bound(two_faced, [(-1, 1)], "1/2", max_depth=6, gradient=lambda x: [-2 * x[0]],
                               hessian=lambda x: [[arb(-2)]])  # the jets' function's, which agree with the jets
    assert cert.status is False, cert.detail
    # a closed box where |u| touches 0 at an end only: still differentiated (|x| = x on [0, 1])
    abs_end = certify_upper_bound(lambda x: -(x[0] * x[0]) + abs(x[0]), [(0, 1)], "1/4",
                                  gradient=lambda x: [1 - 2 * x[0]], hessian=lambda x: [[arb(-2)]])
    assert abs_end.status is True, abs_end.detail
    # shapes of the derivatives given are checked
    with pytest.raises(ValueError, match="^gradient: has 1 entries; the box has 2 coordinates"):
        certify_upper_bound(lambda x: -(x[0] * x[0]) - x[1] * x[1], [(-1, 1), (-1, 1)], 0,
                            gradient=lambda x: [-2 * x[0]], hessian=lambda x: [[arb(-2)]])


def test_excess_names_itself_for_a_certificate_that_knows_no_function():
    refuted = certify_upper_bound(lambda x: x[0] * x[0], [(-1, 1)], 1, strict=True)
    assert refuted.excess(("1",)) == 0 and refuted.excess(["1/2"]) < 0  # exact points, as a refutation's
    undecided = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4", max_depth=2)
    with pytest.raises(ValueError, match="^excess: only a certificate or a refutation"):
        undecided.excess(["1/2"])
