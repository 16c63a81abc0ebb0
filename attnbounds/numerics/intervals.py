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

from flint import arb, fmpq

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

    A certificate (status True) also keeps what it proved, so that it can be tied to a
    reading (:func:`attnbounds.engine.tie.certificate_tie`): ``f`` (the function bounded),
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
        if self.f is None or self.bound is None:
            raise ValueError("margin: only a certificate (status True) knows its function and bound")
        if _fingerprint(self.f, self.box) != self.fingerprint:
            raise ValueError("f: the certificate's function no longer gives the values it gave when the certificate "
                             "was issued (altered since): it certifies nothing")
        value = _eval(self.f, [arb(as_rational(float(v), "point")) for v in point]) - arb(as_rational(self.bound))
        return float(value.mid())


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


def _concave_below(f, gradient, hessian, box, centre, below) -> bool:
    """Whether concavity settles the box: its Hessian enclosure is negative semidefinite
    (Gershgorin) and, at some anchor y (:func:`_anchors`), f's tangent plane at y stays
    ``below`` the bound on the box (module docstring)."""
    balls = [arb(lo).union(arb(hi)) for lo, hi in box]
    H = hessian(balls)
    k = len(box)
    for i in range(k):  # Gershgorin row i: H_ii + Σ_{j≠i} |H_ij| ≤ 0
        row = arb(H[i][i]) + sum((arb(H[i][j]).abs_upper() for j in range(k) if j != i), arb(0))
        if not row <= 0:
            return False
    for y in _anchors(gradient, hessian, box, centre):
        ys = [arb(v) for v in y]
        g = gradient(ys)
        rise = sum(((arb(g[i]) * arb(lo - y[i])).max(arb(g[i]) * arb(hi - y[i])) for i, (lo, hi) in enumerate(box)),
                   arb(0))
        if below(_eval(f, ys) + rise):
            return True
    return False


def _anchors(gradient, hessian, box, centre):
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
    for point in _model_maximiser(gradient, hessian, box, centre):
        yield from once(point)


def _model_maximiser(gradient, hessian, box, centre) -> list:
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
        balls = [arb(v) for v in centre]
        g = np.array([float(arb(v).mid()) for v in gradient(balls)])
        H = np.array([[float(arb(v).mid()) for v in row] for row in hessian(balls)])
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
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):  # overflow, a singular or huge model
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
        if gradient is not None and _concave_below(f, gradient, hessian, current, centre, below):
            continue
        for point in _probe_points(current, centre):
            fc = _eval(f, [arb(v) for v in point])
            if violates(fc):
                return IntervalCertificate(
                    False,
                    f"f(c) = {fc.str(10)} violates f {relation} {bound} at c = {tuple(str(v) for v in point)}",
                    point,
                    fc,
                    boxes,
                    deepest,
                )
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
        return IntervalCertificate(
            None,
            f"undecided: {undecided} box(es) still open at depth {max_depth} / {max_boxes} boxes",
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
