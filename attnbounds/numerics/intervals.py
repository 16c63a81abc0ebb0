"""Interval-arithmetic certificates with python-flint ``arb`` balls.

Domain and box semantics
------------------------
A *box* is a sequence of closed intervals ``[(lo_1, hi_1), …, (lo_k, hi_k)]`` with
``lo_i <= hi_i``. Endpoints are exact rationals: ints, ``fractions.Fraction``,
``flint.fmpq``, strings such as ``"1/3"``, or floats (taken at their exact binary value).
Bisection halves boxes at exact rational midpoints, so no point of the box is lost.

The function ``f`` under test receives a list of ``arb`` balls (one per coordinate) and must
return an ``arb`` ball that contains every value of f on the product of those balls (any
composition of ``arb`` arithmetic and elementary functions does). The verdict is
three-valued, like SymPy's logic:

* ``True``  -- f(x) ≤ bound (or < bound with ``strict=True``) is proved for every x in the box;
* ``False`` -- a point c of the box is found with f(c) > bound proved (≥ for ``strict``);
  the point is returned as exact rationals (candidates are box centres and, in up to four
  dimensions, box vertices);
* ``None``  -- undecided within ``max_depth`` bisections.

A bound that f attains (a tight bound) cannot be certified from enclosures alone, since
every ball around the maximiser overshoots. If ``gradient`` and ``hessian`` are given and a
box's Hessian enclosure is negative semidefinite (Gershgorin: H_ii + Σ_{j≠i}|H_ij| ≤ 0 for
every i), f is concave on the box, so for any anchor y of the box f lies below its tangent
plane there: f(x) ≤ f(y) + Σ_i max(∂_i f(y)·(lo_i − y_i), ∂_i f(y)·(hi_i − y_i)). At a
maximiser y (∇f(y) = 0 inside, or pointing out of the box at its edge) this is exactly f(y).
The anchors tried are the box's centre, its vertices (up to four dimensions), and the
maximiser of f's quadratic model at the centre on the box (Newton's step y = c − H(c)⁻¹∇f(c)
in floats; a coordinate it puts outside the box is held at that end and the step re-solved
for the others), its free coordinates rounded to the nearest multiples of 2^−k for
k = 0 … 52. So an attained bound is certified where the maximiser is a dyadic rational (1/2,
3/8, 0, …) that this model reaches from some box of the bisection: inside the box, at a
vertex or on a face. That is exact for a quadratic f; for another f the model's maximiser
is only near f's, and the bisection's smaller boxes bring it nearer. A maximiser that is not
dyadic (1/3, √2) has no anchor at which f(y) = bound is exact, and an attained bound there
stays undecided (give it a little slack).

The gradient and Hessian used are f's own, by forward-mode automatic differentiation of f on
``arb`` jets (jets: enclosures of f, ∇f and ∇²f over the balls f is given); the
``gradient`` and ``hessian`` passed ask for concavity and are compared with them at the box's
centre and on the whole box, and one that disagrees raises a ``ValueError`` naming it (a
trial's Hessian of the wrong sign had certified the false x² ≤ 1/2 on [−1, 1]). Where f uses
an operation a jet does not support, concavity is not used and an undecided certificate says
so.

A refutation (status False) keeps ``f``, ``bound`` and ``box`` as a certificate does, so that
the engine can tie it to a reading.

>>> cert = certify_upper_bound(lambda x: 2 * x[0] * (1 - x[0]), [(0, 1)], "1/2",
...                            gradient=lambda x: [2 - 4 * x[0]], hessian=lambda x: [[arb(-4)]])
>>> cert.status
True
>>> certify_upper_bound(lambda x: 2 * x[0] * (1 - x[0]), [(0, 1)], "0.49").status
False
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field
import weakref
from fractions import Fraction
from typing import Callable, Sequence

from flint import arb, fmpq, fmpz

from attnbounds.numerics.validation import check_count

__all__ = [
    "Certificate",
    "IntervalCertificate",
    "issued_certificate",
    "as_rational",
    "box_to_arbs",
    "certify_between_on_grid",
    "certify_upper_bound",
    "arb_softmax",
]

# Boxes of at most this dimension also probe their 2^k vertices for counterexamples.
_MAX_VERTEX_DIM = 4


@dataclass(frozen=True)
class Certificate:
    """What an interval routine of this module proved: ``statement`` for every x in ``box``
    (exact rational ends, as strings), by ``routine``. Only this module's routines issue one
    (:func:`issued_certificate`): a ``certify`` method's ``Proof(True, ...)`` is a certificate only
    when it carries one (``Proof.certificate``), and the verdict quotes its box."""

    routine: str
    statement: str
    box: tuple[tuple[str, str], ...]

    def text(self) -> str:
        box = " x ".join(f"[{lo}, {hi}]" for lo, hi in self.box)
        return f"{self.routine} on {box}: {self.statement}"


_ISSUED: "weakref.WeakSet" = weakref.WeakSet()


def _issue(cert):
    _ISSUED.add(cert)
    return cert


def issued_certificate(obj) -> bool:
    """Whether ``obj`` is a certificate this module's routines issued (a :class:`Certificate`, or
    an :class:`IntervalCertificate` with status True), or one equal to it field by field: the
    same statement on the same box. One altered after it was issued (``object.__setattr__``)
    no longer is.

    >>> issued_certificate(Certificate("made by hand", "f <= 0", (("0", "1"),)))
    False
    >>> issued_certificate(certify_between_on_grid(lambda z: [z[0]], [(0, 1)], 4, -1, 2)[1])
    True
    """
    return isinstance(obj, (Certificate, IntervalCertificate)) and obj in _ISSUED


@dataclass(frozen=True)
class IntervalCertificate:
    """Outcome of :func:`certify_upper_bound`.

    ``status`` is True (certified), False (refuted at ``counterexample``, a tuple of exact
    rationals, where f is enclosed by ``value``) or None (undecided). ``boxes`` counts the
    boxes examined and ``depth`` the deepest bisection level reached.

    A certificate (status True), and a refutation (False), also keeps what it is about, so that
    it can be tied to a reading (:func:`attnbounds.engine.tie.certificate_tie`): ``f`` (the function bounded),
    ``bound`` (exact, as a string), ``strict`` and ``box`` (exact rational ends, as strings).
    :meth:`covers` says whether a point lies in the box, :meth:`margin` is f(x) − bound there.
    ``f`` is kept by reference (any callable, hashable or not) and is not part of the
    certificate's equality; ``fingerprint``, f's enclosures at the box's centre and corners
    when it was issued, is, and :meth:`margin` refuses an f that no longer gives them (a
    closure whose state changed after the certificate was issued).

    >>> cert = certify_upper_bound(lambda x: x[0] * x[0], [(0, 1)], 2)
    >>> cert.covers([0.5]), cert.covers([1.5]), cert.margin([0.5])
    (True, False, -1.75)
    """

    status: bool | None
    detail: str
    counterexample: tuple[fmpq, ...] | None = None
    value: arb | None = None
    boxes: int = 0
    depth: int = 0
    box: tuple[tuple[str, str], ...] = ()
    f: Callable | None = field(default=None, compare=False)
    bound: str | None = None
    strict: bool = False
    fingerprint: tuple[str, ...] = ()

    def covers(self, point) -> bool:
        """Whether ``point`` (one number per coordinate, floats at their exact binary value) lies
        in the certified box, ends included."""
        if len(point) != len(self.box):
            raise ValueError(f"point: the box has {len(self.box)} coordinate(s), got {len(point)}")
        ends = [(as_rational(lo), as_rational(hi)) for lo, hi in self.box]
        return all(lo <= as_rational(float(v), "point") <= hi for v, (lo, hi) in zip(point, ends))

    def margin(self, point) -> float:
        """f(x) − bound at ``point`` (exact rationals of the floats given), the midpoint of its
        ``arb`` enclosure as a float: at most 0 (below 0 if strict) wherever :meth:`covers` holds."""
        return float(self._excess([float(v) for v in point], "margin").mid())

    def excess(self, point) -> arb:
        """f(x) − bound at ``point`` (exact rationals: a refutation's ``counterexample``), enclosed by
        ``arb``, after the fingerprint check of :meth:`margin`: a refutation of a non-strict
        reading must show it > 0."""
        return self._excess(point, "excess")

    def _excess(self, point, name: str) -> arb:
        if self.f is None or self.bound is None:
            raise ValueError(f"{name}: only a certificate or a refutation (status True or False) knows its function "
                             "and bound")
        if _fingerprint(self.f, self.box) != self.fingerprint:
            raise ValueError("f: the certificate's function no longer gives the values it gave when the certificate "
                             "was issued (altered since): it certifies nothing")
        return _eval(self.f, [arb(as_rational(v, "point")) for v in point]) - arb(as_rational(self.bound))


def _fingerprint(f, box) -> tuple[str, ...]:
    """f's enclosures (full precision) at the centre and, up to 4 dimensions, the corners of ``box``."""
    ends = [(as_rational(lo), as_rational(hi)) for lo, hi in box]
    centre = tuple((lo + hi) / 2 for lo, hi in ends)
    return tuple(_eval(f, [arb(v) for v in point]).str(radius=True, more=True)
                 for point in _probe_points(ends, centre))


def as_rational(value, name: str = "value") -> fmpq:
    """An exact rational from an int, Fraction, fmpq, a string like ``"1/3"``, or a float.

    >>> as_rational("1/3")
    1/3
    >>> as_rational(0.5)
    1/2
    >>> as_rational(float("inf"), "bound")
    Traceback (most recent call last):
    ...
    ValueError: bound: must be a finite number, got inf
    """
    if isinstance(value, fmpq):
        return value
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise TypeError(f"{name}: expected a number, got bool")
    try:
        if isinstance(value, str):
            frac = Fraction(value.strip())
        elif isinstance(value, numbers.Integral):  # numpy and SymPy integers too
            frac = Fraction(int(value))
        elif isinstance(value, numbers.Rational):
            frac = Fraction(int(value.numerator), int(value.denominator))
        elif isinstance(value, numbers.Real) or _is_sympy_float(value):  # np.float32, sympy Float: its float
            frac = Fraction(float(value))
        else:
            raise TypeError
    except (OverflowError, ValueError, ZeroDivisionError):
        raise ValueError(f"{name}: must be a finite number, got {value!r}") from None
    except TypeError:
        raise TypeError(f"{name}: expected a number or a string like '1/3', got {type(value).__name__}") from None
    return fmpq(frac.numerator, frac.denominator)


def _is_sympy_float(value) -> bool:
    """Whether ``value`` is a SymPy Float (not registered as a ``numbers.Real``)."""
    return type(value).__module__.startswith("sympy") and getattr(value, "is_Float", False)


def _check_box(box) -> list[tuple[fmpq, fmpq]]:
    try:
        items = list(box)
    except TypeError:
        raise TypeError(f"box: expected a sequence of (lo, hi) pairs, got {type(box).__name__}") from None
    if not items:
        raise ValueError("box: must have at least one coordinate")
    out = []
    for k, pair in enumerate(items):
        try:
            lo, hi = pair
        except (TypeError, ValueError):
            raise ValueError(f"box: coordinate {k} must be a (lo, hi) pair, got {pair!r}") from None
        lo, hi = as_rational(lo, f"box[{k}].lo"), as_rational(hi, f"box[{k}].hi")
        if lo > hi:
            raise ValueError(f"box: coordinate {k} has lo > hi ({lo} > {hi})")
        out.append((lo, hi))
    return out


def box_to_arbs(box) -> list[arb]:
    """One ``arb`` ball enclosing each closed interval of ``box``.

    >>> [b.contains(arb("1/3")) for b in box_to_arbs([(0, 1), ("1/3", "1/3")])]
    [True, True]
    """
    return [arb(lo).union(arb(hi)) for lo, hi in _check_box(box)]


def certify_between_on_grid(f, box, pieces: int, lower, upper):
    """Certify ``lower < f(x)_k < upper`` for every x in ``box`` and every output k, on a grid.

    Each coordinate interval of ``box`` is cut into ``pieces`` equal closed cells with exact
    rational ends; ``lower``/``upper`` are rationals or ``arb`` enclosures; ``f`` maps a list of ``arb`` balls (one cell per coordinate) to a sequence
    of ``arb`` enclosures. Returns ``(True, certificate)`` (a :class:`Certificate`) when every
    enclosure lies strictly inside, else ``(None, (cell, k, value))`` for the first one that does
    not: a coarse grid can only give "cannot decide", never a refutation.

    >>> certify_between_on_grid(lambda z: [z[0] * (1 - z[0])], [(0, 1)], 64, "-1/100", "26/100")[0]
    True
    """
    pieces = check_count(pieces, "pieces")
    # Bounds may be arb enclosures themselves (e.g. e^2/3), or exact rationals.
    lo_b = lower if isinstance(lower, arb) else arb(as_rational(lower, "lower"))
    hi_b = upper if isinstance(upper, arb) else arb(as_rational(upper, "upper"))
    # cells[c][k]: the k-th of `pieces` equal sub-intervals of coordinate c, as an arb ball
    cells = [
        box_to_arbs([(lo + (hi - lo) * k / pieces, lo + (hi - lo) * (k + 1) / pieces) for k in range(pieces)])
        for lo, hi in _check_box(box)
    ]
    root = _check_box(box)
    for index in itertools.product(range(pieces), repeat=len(cells)):
        values = f([cells[c][k] for c, k in enumerate(index)])
        for k, value in enumerate(values):
            if not (value > lo_b and value < hi_b):
                return None, (index, k, value)
    def shown(bound):
        return bound.str(6, radius=False) if isinstance(bound, arb) else str(as_rational(bound))

    return True, _issue(Certificate(f"arb, {pieces} cells a side", f"{shown(lower)} < f(x)_k < {shown(upper)}",
                                    tuple((str(lo), str(hi)) for lo, hi in root)))


def _eval(f, args) -> arb:
    value = f(args)
    if isinstance(value, arb):
        return value
    # Exact constants are fine; a float result would have lost the enclosure (unsound).
    if isinstance(value, (int, fmpq, Fraction)) and not isinstance(value, bool):
        return arb(as_rational(value, "f"))
    raise TypeError(f"f: must return an arb ball (or an exact int/rational), got {type(value).__name__}")


class _NotDifferentiable(ArithmeticError):
    """f is not differentiated by jets on the ball (an unsupported operation, a comparison, a
    log or sqrt of a ball not > 0, abs of a ball with both signs)."""


class _Jet(arb):
    """A value with its gradient and Hessian, each an ``arb`` enclosure (forward-mode automatic
    differentiation in interval arithmetic): f evaluated on jets seeded with the coordinates'
    balls gives enclosures of f, ∇f and ∇²f over those balls, from f itself (trial 49: a
    user's gradient or Hessian with a slip certified a false bound). Supports +, −, ×, ÷,
    integer, rational and ball powers, ``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``atan``
    and ``abs`` (of a ball of one sign). A jet is an ``arb`` whose own value is NaN (review 49:
    ``arb.cos(jet)``, an unbound method, read a plain object's memory as a ball and gave a
    garbage value or aborted the process), so an operation it does not support gives NaN, and
    a comparison raises: either way concavity is not used there."""

    __slots__ = ("v", "g", "h")

    def __init__(self, v, g, h):
        arb.__init__(self, "nan")
        self.v, self.g, self.h = v, g, h

    @staticmethod
    def _lift(c, k):
        if isinstance(c, _Jet):
            return c
        if isinstance(c, bool) or not isinstance(c, (arb, fmpq, fmpz, float, numbers.Rational)):
            raise _NotDifferentiable(f"a jet cannot combine with {type(c).__name__}")
        c = arb(c) if isinstance(c, (arb, float)) else arb(as_rational(c, "f's constant"))
        return _Jet(c, [arb(0)] * k, [[arb(0)] * k for _ in range(k)])

    def _chain(self, f0, f1, f2):  # φ(u) with φ(v) = f0, φ'(v) = f1, φ''(v) = f2
        k = len(self.g)
        return _Jet(f0, [f1 * gi for gi in self.g],
                    [[f2 * self.g[i] * self.g[j] + f1 * self.h[i][j] for j in range(k)] for i in range(k)])

    def __add__(self, o):
        o = self._lift(o, len(self.g))
        k = len(self.g)
        return _Jet(self.v + o.v, [a + b for a, b in zip(self.g, o.g)],
                    [[self.h[i][j] + o.h[i][j] for j in range(k)] for i in range(k)])

    __radd__ = __add__

    def __neg__(self):
        k = len(self.g)
        return _Jet(-self.v, [-a for a in self.g], [[-self.h[i][j] for j in range(k)] for i in range(k)])

    def __pos__(self):
        return self

    def __sub__(self, o):
        return self + (-self._lift(o, len(self.g)))

    def __rsub__(self, o):
        return self._lift(o, len(self.g)) + (-self)

    def __mul__(self, o):
        o = self._lift(o, len(self.g))
        k = len(self.g)
        return _Jet(self.v * o.v, [a * o.v + self.v * b for a, b in zip(self.g, o.g)],
                    [[self.h[i][j] * o.v + self.g[i] * o.g[j] + self.g[j] * o.g[i] + self.v * o.h[i][j]
                      for j in range(k)] for i in range(k)])

    __rmul__ = __mul__

    def _inverse(self):
        if self.v.contains(0):
            raise _NotDifferentiable("a division by a ball holding 0")
        r = 1 / self.v
        return self._chain(r, -r * r, 2 * r * r * r)

    def __truediv__(self, o):
        return self * self._lift(o, len(self.g))._inverse()

    def __rtruediv__(self, o):
        return self._lift(o, len(self.g)) * self._inverse()

    def __pow__(self, p):
        if isinstance(p, (int, fmpz, numbers.Integral)) and not isinstance(p, bool):
            p = int(p)
            if p == 0:
                return self._lift(1, len(self.g))
            if p < 0:
                return (self ** -p)._inverse()
            v = self.v
            return self._chain(v ** p, p * v ** (p - 1), p * (p - 1) * (v ** (p - 2) if p >= 2 else arb(0)))
        if isinstance(p, _Jet) or isinstance(p, bool) or not isinstance(p, (arb, fmpq, float, numbers.Rational)):
            raise _NotDifferentiable(f"a power with exponent {type(p).__name__}")
        p = arb(p) if isinstance(p, (arb, float)) else arb(as_rational(p, "f's exponent"))
        if not self.v > 0:
            raise _NotDifferentiable("a power of a ball not > 0")
        v = self.v
        return self._chain(v ** p, p * v ** (p - 1), p * (p - 1) * v ** (p - 2))

    def __rpow__(self, base):
        raise _NotDifferentiable("a power with a jet exponent")

    def _refuse(self, *_):
        raise _NotDifferentiable("a comparison (or truth value) of a jet")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __bool__ = _refuse
    __hash__ = None

    def exp(self):
        e = self.v.exp()
        return self._chain(e, e, e)

    def log(self):
        if not self.v > 0:
            raise _NotDifferentiable("log of a ball not > 0")
        r = 1 / self.v
        return self._chain(self.v.log(), r, -r * r)

    def sqrt(self):
        if not self.v > 0:
            raise _NotDifferentiable("sqrt of a ball not > 0")
        q = self.v.sqrt()
        return self._chain(q, 1 / (2 * q), -1 / (4 * q * self.v))

    def sin(self):
        return self._chain(self.v.sin(), self.v.cos(), -self.v.sin())

    def cos(self):
        return self._chain(self.v.cos(), -self.v.sin(), -self.v.cos())

    def atan(self):
        d = 1 / (1 + self.v * self.v)
        return self._chain(self.v.atan(), d, -2 * self.v * d * d)

    def __abs__(self):
        if self.v >= 0:  # |u| is u on the whole ball (0 at an end only): its derivatives are u's
            return self
        if self.v <= 0:
            return -self
        raise _NotDifferentiable("abs of a ball with both signs")


def _derivatives(f, balls) -> tuple:
    """(f, ∇f, ∇²f) enclosed over ``balls`` by evaluating f on jets (:class:`_Jet`); raises
    :class:`_NotDifferentiable` where f uses an operation a jet does not support, or does not
    return a jet (a constant f needs no concavity), and where the value is not finite."""
    k = len(balls)
    zero = [[arb(0)] * k for _ in range(k)]
    xs = [_Jet(b, [arb(1) if j == i else arb(0) for j in range(k)], zero) for i, b in enumerate(balls)]
    try:
        out = f(xs)
    except _NotDifferentiable:
        raise
    except Exception as exc:  # noqa: BLE001 -- any operation a jet does not support
        raise _NotDifferentiable(f"{type(exc).__name__}: {exc}") from None
    if not isinstance(out, _Jet):
        raise _NotDifferentiable(f"f returned {type(out).__name__} on jets, not a jet")
    if not (out.v.is_finite() and all(a.is_finite() for a in out.g) and all(a.is_finite() for r in out.h for a in r)):
        raise _NotDifferentiable("f's value or derivatives on jets are not finite (an operation a jet does not "
                                 "support gives NaN)")
    return out.v, out.g, out.h


def _check_given_derivatives(f, gradient, hessian, root) -> None:
    """Compare the caller's ``gradient`` and ``hessian`` with f's own (jets) at the box's centre and
    on the whole box: each entry's enclosure must meet f's, and their shapes must be f's
    (``ValueError`` naming the argument otherwise). Where the jets cannot differentiate f on
    the whole box, nothing is compared (the caller's derivatives are never used anyway)."""
    k = len(root)
    centre = [arb((lo + hi) / 2) for lo, hi in root]
    whole = [arb(lo).union(arb(hi)) for lo, hi in root]
    try:
        _, g_c, _ = _derivatives(f, centre)
        _, _, H_box = _derivatives(f, whole)
    except _NotDifferentiable:
        return
    g_given, H_given = list(gradient(centre)), [list(row) for row in hessian(whole)]
    if len(g_given) != k:
        raise ValueError(f"gradient: has {len(g_given)} entries; the box has {k} coordinates")
    if len(H_given) != k or any(len(row) != k for row in H_given):
        raise ValueError(f"hessian: must be {k} x {k} (the box has {k} coordinates)")
    for name, given, own, at in (("gradient", [g_given], [g_c], "the box's centre"),
                                 ("hessian", H_given, H_box, "the box")):
        for i, (row_given, row_own) in enumerate(zip(given, own)):
            for j, (u, a) in enumerate(zip(row_given, row_own)):
                if not arb(u).overlaps(a):
                    where = f"[{i}][{j}]" if name == "hessian" else f"[{j}]"
                    raise ValueError(f"{name}: entry {where} is {arb(u).str(8)} on {at}, but f's own derivative "
                                     f"(automatic differentiation of f) is {a.str(8)} there: the {name} given does "
                                     "not belong to f")


def _agrees(jet_value: arb, value: arb) -> bool:
    """Whether f's value on jets and on plain balls agree (finite, overlapping): f must compute the
    same function on both, or its jets' derivatives are of another function."""
    return jet_value.is_finite() and value.is_finite() and jet_value.overlaps(value)


def _concave_below(f, box, centre, below) -> tuple:
    """(settled, why not): whether concavity settles the box: its Hessian enclosure (from f's
    jets, :class:`_Jet`) is negative semidefinite (Gershgorin) and, at some anchor y
    (:func:`_anchors`), f's tangent plane at y stays ``below`` the bound on the box (module
    docstring). f's value on jets must agree with its value on balls, on the box, at its
    vertices (up to :data:`_MAX_VERTEX_DIM` dimensions) and at y: f must compute the same
    function on both, which these comparisons check at those points only (a function that
    branches on its arguments' type is outside what they guard)."""
    balls = [arb(lo).union(arb(hi)) for lo, hi in box]
    try:
        v_box, _, H = _derivatives(f, balls)
    except _NotDifferentiable as exc:
        return False, str(exc)
    if not _agrees(v_box, _eval(f, balls)):
        return False, "f's value on jets is not its value on balls"
    k = len(box)
    for i in range(k):  # Gershgorin row i: H_ii + Σ_{j≠i} |H_ij| ≤ 0
        row = H[i][i] + sum((H[i][j].abs_upper() for j in range(k) if j != i), arb(0))
        if not row <= 0:
            return False, None
    if k <= _MAX_VERTEX_DIM:  # the same function on jets and on balls, at the vertices too (review 49)
        for vertex in itertools.product(*box):
            vs = [arb(v) for v in vertex]
            try:
                same = _agrees(_derivatives(f, vs)[0], _eval(f, vs))
            except _NotDifferentiable:
                same = True  # no jet there: nothing to compare (the box's own jets were compared above)
            if not same:
                return False, "f's value on jets is not its value on balls"
    for y in _anchors(f, box, centre):
        ys = [arb(v) for v in y]
        try:
            v_y, g, _ = _derivatives(f, ys)
        except _NotDifferentiable:
            continue
        fy = _eval(f, ys)
        if not _agrees(v_y, fy):
            continue
        rise = sum(((g[i] * arb(lo - y[i])).max(g[i] * arb(hi - y[i])) for i, (lo, hi) in enumerate(box)), arb(0))
        if below(fy + rise):
            return True, None
    return False, None


def _anchors(f, box, centre):
    """Anchors of the concavity bound, exact rationals in the box: the centre, the vertices (up to
    :data:`_MAX_VERTEX_DIM` dimensions), then the maximiser of the quadratic model at the centre
    on the box (:func:`_model_maximiser`) with its free coordinates rounded to the nearest
    multiples of 2^-k (k = 0 … 52), each tried once."""
    seen = set()

    def once(point):
        point = tuple(point)
        if point not in seen:
            seen.add(point)
            yield point

    yield from once(centre)
    if len(box) <= _MAX_VERTEX_DIM:
        for vertex in itertools.product(*box):
            yield from once(vertex)
    for point in _model_maximiser(f, box, centre):
        yield from once(point)


def _model_maximiser(f, box, centre) -> list:
    """Candidate maximisers of f on the box from its quadratic model at the centre c (in floats):
    Newton's step y = c − H⁻¹∇f(c), then, for each coordinate it puts outside the box, that
    coordinate fixed at the end it crossed and the step re-solved for the others (an active set:
    a maximiser on a face), until no coordinate leaves. A fixed coordinate is its exact end; a
    free one is rounded to the nearest multiple of 2^-k, k = 0 … 52, within the box. Empty where
    the model has no finite step (a singular Hessian, values beyond floats)."""
    import numpy as np

    k = len(box)
    try:
        lo = np.array([int(a.p) / int(a.q) for a, _ in box])
        hi = np.array([int(b.p) / int(b.q) for _, b in box])
        c = np.array([int(v.p) / int(v.q) for v in centre])
        _, g_c, H_c = _derivatives(f, [arb(v) for v in centre])
        g = np.array([float(v.mid()) for v in g_c])
        H = np.array([[float(v.mid()) for v in row] for row in H_c])
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(np.isfinite(g))
                and np.all(np.isfinite(H))):
            return []
        fixed: dict = {}  # coordinate -> the exact end it is held at
        y = c.copy()
        for _ in range(k + 1):
            free = [i for i in range(k) if i not in fixed]
            if not free:
                break
            held = np.array([float(int(fixed[i].p) / int(fixed[i].q)) if i in fixed else c[i] for i in range(k)])
            rhs = -(g[free] + H[np.ix_(free, list(fixed))] @ (held[list(fixed)] - c[list(fixed)]) if fixed else
                    g[free])
            step = np.linalg.solve(H[np.ix_(free, free)], rhs)
            y = held.copy()
            y[free] = c[free] + step
            if not np.all(np.isfinite(y)):
                return []
            out = [i for i in free if y[i] < lo[i] or y[i] > hi[i]]
            if not out:
                break
            for i in out:
                fixed[i] = box[i][0] if y[i] < lo[i] else box[i][1]
        y = np.clip(y, lo, hi)
        points = []
        for bits in range(53):
            scale = 2**bits
            points.append([fixed[i] if i in fixed else min(max(fmpq(round(float(y[i]) * scale), scale), box[i][0]),
                                                             box[i][1]) for i in range(k)])
        return points
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):  # overflow, a singular or huge model, no jets
        return []


def _probe_points(box, centre):
    """The centre, then (in up to 4 dimensions) the vertices of the box: candidate counterexamples."""
    yield centre
    if len(box) <= _MAX_VERTEX_DIM:
        yield from itertools.product(*box)


def certify_upper_bound(
    f: Callable[[list[arb]], arb],
    box: Sequence,
    bound,
    *,
    strict: bool = False,
    max_depth: int = 30,
    max_boxes: int = 20_000,
    gradient: Callable[[list[arb]], Sequence] | None = None,
    hessian: Callable[[list[arb]], Sequence[Sequence]] | None = None,
) -> IntervalCertificate:
    """Certify ``f(x) <= bound`` (``< bound`` if ``strict``) for all x in ``box``, by bisection.

    Each box is first enclosed; if ``f(box)`` lies below ``bound`` it is done. Otherwise, with
    ``gradient``/``hessian`` given, a concavity certificate is tried (module docstring). Then
    f is evaluated at the box centre (and, up to 4 dimensions, its vertices): a point where
    f > bound (≥ if strict) is proved is a counterexample and ends the search. Otherwise the box is halved along its widest
    coordinate, down to ``max_depth`` levels and ``max_boxes`` boxes in all; a box still
    open at that depth makes the verdict ``None`` unless a counterexample turns up elsewhere.

    >>> certify_upper_bound(lambda x: x[0] * x[0], [(-1, 1)], 1, strict=True).status
    False
    >>> certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4", max_depth=8).status is None
    True
    """
    if not callable(f):
        raise TypeError(f"f: must be callable, got {type(f).__name__}")
    root = _check_box(box)
    b = arb(as_rational(bound, "bound"))
    if not isinstance(strict, bool):
        raise TypeError(f"strict: must be a bool, got {type(strict).__name__}")
    max_depth = check_count(max_depth, "max_depth", minimum=0)
    max_boxes = check_count(max_boxes, "max_boxes")
    if (gradient is None) != (hessian is None):
        raise ValueError("gradient: gradient and hessian must be given together")
    for fn, name in ((gradient, "gradient"), (hessian, "hessian")):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name}: must be callable, got {type(fn).__name__}")

    def below(v: arb) -> bool:
        return bool(v < b) if strict else bool(v <= b)

    def violates(v: arb) -> bool:
        return bool(v >= b) if strict else bool(v > b)

    relation = "<" if strict else "<="
    concave = gradient is not None  # concavity asked for: with f's own derivatives, the caller's only compared
    not_differentiable = None
    if concave:
        _check_given_derivatives(f, gradient, hessian, root)
    stack = [(root, 0)]
    boxes = 0
    deepest = 0
    undecided = 0
    while stack:
        current, depth = stack.pop()
        boxes += 1
        deepest = max(deepest, depth)
        if below(_eval(f, [arb(lo).union(arb(hi)) for lo, hi in current])):
            continue
        centre = tuple((lo + hi) / 2 for lo, hi in current)
        if concave:
            settled, why = _concave_below(f, current, centre, below)
            if settled:
                continue
            not_differentiable = why or not_differentiable
        for point in _probe_points(current, centre):
            fc = _eval(f, [arb(v) for v in point])
            if violates(fc):
                return (IntervalCertificate(  # a refutation keeps f too: it can be tied to a reading
                    False,
                    f"f(c) = {fc.str(10)} violates f {relation} {bound} at c = {tuple(str(v) for v in point)}",
                    point,
                    fc,
                    boxes,
                    deepest,
                    box=tuple((str(lo), str(hi)) for lo, hi in root), f=f, bound=str(as_rational(bound, "bound")),
                    strict=strict, fingerprint=_fingerprint(f, root),
                ))
        if depth >= max_depth or boxes + len(stack) >= max_boxes:
            undecided += 1
            continue
        widths = [hi - lo for lo, hi in current]
        k = max(range(len(widths)), key=lambda i: widths[i])
        lo, hi = current[k]
        mid = (lo + hi) / 2
        left = list(current)
        right = list(current)
        left[k] = (lo, mid)
        right[k] = (mid, hi)
        stack.append((right, depth + 1))
        stack.append((left, depth + 1))
    if undecided:
        why = (f"; concavity not used on some boxes: f is not differentiated there by attnbounds' automatic "
               f"differentiation ({not_differentiable})") if not_differentiable else ""
        return IntervalCertificate(
            None,
            f"undecided: {undecided} box(es) still open at depth {max_depth} / {max_boxes} boxes{why}",
            boxes=boxes,
            depth=deepest,
        )
    return _issue(IntervalCertificate(True, f"f {relation} {bound} certified on {boxes} box(es) of "
                                      + " x ".join(f"[{lo}, {hi}]" for lo, hi in root), boxes=boxes, depth=deepest,
                                      box=tuple((str(lo), str(hi)) for lo, hi in root), f=f,
                                      bound=str(as_rational(bound, "bound")), strict=strict,
                                      fingerprint=_fingerprint(f, root)))


def arb_softmax(logits: Sequence, T=1) -> list[arb]:
    """Enclosures of α_i = 1/(1 + Σ_{j≠i} exp((l_j − l_i)/T)) for balls ``logits`` (this form
    keeps the dependency between numerator and denominator, and the j = i term is exactly 1,
    so enclosures stay tight).

    >>> [a.contains(arb("1/2")) for a in arb_softmax([arb(0), arb(0)])]
    [True, True]
    """
    try:
        ls = [v if isinstance(v, arb) else arb(as_rational(v, "logits")) for v in logits]
    except TypeError:
        raise TypeError(f"logits: expected a sequence of numbers or arb balls, got {type(logits).__name__}") from None
    if not ls:
        raise ValueError("logits: must not be empty")
    t = T if isinstance(T, arb) else arb(as_rational(T, "T"))
    if not t > 0:
        raise ValueError(f"T: must be > 0, got {T!r}")
    one = arb(1)
    return [one / (one + sum(((lj - li) / t).exp() for j, lj in enumerate(ls) if j != i)) for i, li in enumerate(ls)]
