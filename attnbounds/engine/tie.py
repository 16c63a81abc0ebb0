"""The tie between a checked proof and its reading: the chain's goal evaluated at the reading's
own instances.

The proof kernel checks that a chain proves the statement its author passed to
:meth:`~attnbounds.theory.proof.Chain.prove`; it cannot see the reading's sides, which are
Python functions. A reading that gives ``bind`` (:class:`~attnbounds.claims.base.Reading`), a
map from one instance to values of the goal's symbols, lets the engine close that gap: at
:data:`INSTANCES` instances of the reading's sweep, and as many examples of its Hypothesis
strategy, the proof's statement (its first part; an ``AllOf``'s others are its lemmas) is
evaluated with the bound values (by the refuter's evaluator, :mod:`attnbounds.engine.refute`),
and at each

* the goal must have the reading's sides, to the reading's own slack, in the reading's
  relation (or flipped: ``a >= b`` for a reading ``b <= a``; an equation serves any relation);
* the bound values must meet their symbols' assumptions (and a base's or function's values its
  own), since the theorem says nothing of a value outside them;
* every hypothesis of the chain must hold: one with an integer ``bind`` does not give, at
  every integer its assumptions allow where the chain reads it for every value, else at some
  one (with several, some choice of the others at every choice of those); an equation between
  vectors entry by entry; a relation between random values outside a mean at every atom of the
  space where it speaks (``_surely``); a ``WeightedNorm`` fact against the witness ``bind``
  gives it (:data:`~attnbounds.claims.base.WITNESSES`: the weights, and the vectors at each
  atom), at every index its assumptions allow where its values are given: the norm at every
  atom is the weighted sum's, each vector's length is at most the radius, the weights' sums
  are the fact's (to a relative slack), and the vectors are independent (the values they take
  together are every combination of each one's, with the product of their probabilities). A
  ``BoundedDifferences`` fact cannot be evaluated. ``bind`` may not give a value to a symbol
  the chain reads for every value (a sum's index): its hypotheses are checked at each value.

An undefined function F the goal applies to real arguments (a normalizer F(l_k), and its
derivatives, as in Lemma 2's chains) is bound to numpy callables: ``{F: (F, F')}``, or ``{F: F}``
where no derivative of F is read (one is then F's central differences, where they are sure).
F(x) is F at x's value, and dF(x)/dx (after SymPy's rules, which a derivative of a larger
expression is put through with the bound integers in: ``Derivative(F(l[2]), l[2])`` or
``Subs(Derivative(F(_x), _x), _x, a)``) is F' at it. Where F is called, its values must meet
F's assumptions, and F' must be F's slope (against F's central differences). F bound as a
table is read at integers only: read at a logit, it has no value (not evaluable).

Means and probabilities are evaluated on a finite probability space that ``bind`` builds from
the reading's setting (:data:`~attnbounds.claims.base.SPACE`). An instance whose setting has no
finite space (a continuous law) the bind declines (:class:`~attnbounds.claims.base.NoFiniteSpace`):
it is passed over, and the tie says how many were, the reasons the bind gave and which of the
instance's values it had read (by item) when it declined; at least half of :data:`INSTANCES`
must then be evaluated. An instance where the goal has no
finite value because a float over- or underflowed (e^{l/T}) is passed over, and said so; the
goal must have a value at half the instances at least, or the tie is not evaluable. A goal with
no value there without that (0/0) is a conflict: the proof does not speak of an instance the
reading covers.

The hypotheses are checked at the instances only: that the reading's own hypotheses give them
is its author's word, and a tied row names them.

A failure is a conflict (the proof is of another statement, or under other hypotheses), and so
is a goal that is one of its own hypotheses: the verdict is never ``proved`` on it. A goal or
hypothesis the values cannot evaluate (a mean with no space given, a symbol ``bind`` leaves
out) leaves the tie "not evaluable", with the reason.

>>> import numpy as np, sympy as sp
>>> from attnbounds.claims.base import Proof, Reading, Sides
>>> from attnbounds.theory.proof import Chain, by
>>> p = sp.Symbol("p", positive=True)
>>> chain = Chain(p * (1 - p)).le(sp.Rational(1, 4), by.algebra()).prove(p * (1 - p), "<=", sp.Rational(1, 4))
>>> proof = Proof.from_chain(chain, "p(1 - p) = 1/4 - (p - 1/2)^2")
>>> r = Reading("r", "p(1 - p) <= 1/4", "-", sides=lambda i: Sides(i["p"] * (1 - i["p"]), 0.25 + 0 * i["p"]),
...             sweep=lambda rng, n: {"p": rng.uniform(0, 1, n)}, bind=lambda i: {p: i["p"]}, symbolic=lambda: proof)
>>> tie(r, proof)["status"]
'tied'
>>> wrong = Reading("w", "p(1 - p) <= 1/3", "-", sides=lambda i: Sides(i["p"] * (1 - i["p"]), 1 / 3 + 0 * i["p"]),
...                 sweep=r.sweep, bind=r.bind, symbolic=r.symbolic)
>>> tie(wrong, proof)["status"]
'untied'
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from attnbounds.claims.base import SPACE, WITNESSES, NoFiniteSpace

__all__ = ["INSTANCES", "ROUNDS", "END_REACH", "MAX_GAP", "tie", "certificate_tie"]

#: Instances of the reading's sweep the goal is evaluated at.
INSTANCES = 16
#: Rounds of instances at most (each with its own seeds) while fewer than ``INSTANCES`` are
#: evaluated because the reading's hypotheses or ``bind`` passed instances over.
ROUNDS = 8

_FLIP = {"<=": ">=", ">=": "<=", "=": "=", "==": "="}


def tie(reading, proof, seed: int = 0, instances: int = INSTANCES) -> dict:
    """``{"status": "tied" | "untied" | "not evaluable", "instances": n, "detail": text}`` for
    ``proof`` (a checked chain) against ``reading`` (with ``bind``, ``sweep`` and ``sides``).

    The statement is the proof's first part (an ``AllOf``'s others are its lemmas). The
    instances are ``instances`` of the sweep and, where the reading has a Hypothesis strategy,
    as many of its examples (a sweep of one fixed instance ties at one point only); where
    fewer than ``instances`` are evaluated because some lie outside the reading's hypotheses or
    bind has no finite space there, another round with new seeds, :data:`ROUNDS` at most."""
    from attnbounds.engine.methods import _instance_text
    from attnbounds.theory.proof import _every_reads

    if reading.bind is None or reading.sweep is None or reading.sides is None or proof.chain is None:
        raise ValueError("tie: needs a reading with bind, sweep and sides, and a proof with a chain")
    part = (getattr(proof.chain, "parts", None) or (proof.chain,))[0]
    lhs, rel, rhs = part.goal
    for name, r in _relations_of(part):
        if _same_statement(r, lhs, rel, rhs):
            return {"status": "untied", "instances": 0,
                    "detail": f"the proof's goal is its own hypothesis {name!r} (up to algebra): it proves nothing of "
                              "the reading"}
    hyps: set = set()
    every = _every_reads(part.chain)  # the symbols the chain reads for every value
    picked, overflowed, declined = [], [], []
    unevaluable = None
    for k in range(ROUNDS):
        raw = _instances(reading, seed + k, instances)
        here = [i for i in raw if reading.inside(i)]
        picked += here
        passed_over = len(raw) - len(here)
        for inst in here:
            try:
                got = _at(part, reading, inst, hyps, every)
            except _Declined as exc:  # a continuous law at this instance: no finite space to tie on
                declined.append((inst, str(exc)))
                passed_over += 1
                continue
            except _NotEvaluable as exc:  # the other instances may still show the proof untied
                unevaluable = unevaluable or str(exc)
                continue
            if got is _NO_VALUE:
                overflowed.append(inst)
            elif got is not True:
                return {"status": "untied", "instances": len(picked),
                        "detail": f"the proof does not prove the reading: at {_instance_text(inst)}, {got}"}
        if unevaluable is not None:
            break
        # another round (new seeds) only where the reading's hypotheses or bind passed instances over
        if len(picked) - len(declined) - len(overflowed) >= instances or not passed_over:
            break
    if unevaluable is not None:
        return {"status": "not evaluable", "instances": 0, "detail": unevaluable}
    if not picked:
        return {"status": "not evaluable", "instances": 0, "detail": "no instance of the sweep meets the reading's hypotheses"}
    why = sorted({m for _, m in declined})
    passed = (f"; {len(declined)} of {len(picked)} instance(s) passed over, where bind builds no finite space "
              f"({len(why)} reason(s): {'; '.join(repr(m) for m in why[:3])}{' …' if len(why) > 3 else ''}; e.g. at "
              f"{_instance_text(declined[0][0])})") if declined else ""
    tried = len(picked) - len(declined)
    done = tried - len(overflowed)
    if tried == 0:
        return {"status": "not evaluable", "instances": 0,
                "detail": f"bind builds no finite space at any of the {len(picked)} instance(s){passed}"}
    if declined and done < instances // 2:  # too few points left to tie at
        return {"status": "not evaluable", "instances": done,
                "detail": f"the goal is evaluated at {done} instance(s) only, fewer than {instances // 2}{passed}"}
    if 2 * done < tried:  # most instances beyond floats: too few points to tie at
        return {"status": "not evaluable", "instances": done,
                "detail": f"the proof's goal has no finite value in floats at {len(overflowed)} of {tried} "
                          f"instance(s) (e.g. {_instance_text(overflowed[0])}){passed}"}
    under = (f"; its {len(hyps)} hypothesis(es) {', '.join(sorted(hyps))} hold there (checked there only, in "
             "floats: the reading's own hypotheses must give them)") if hyps else ""
    skipped = (f" ({len(overflowed)} more skipped: the goal has no finite value there in floats, e.g. at "
               f"{_instance_text(overflowed[0])})") if overflowed else ""
    return {"status": "tied", "instances": done, "hypotheses": sorted(h.strip("'") for h in hyps),
            "detail": f"the proof's goal has the reading's sides at {done} instance(s){skipped}{passed}{under}"}


def certificate_tie(reading, certificate, seed: int = 0, instances: int = INSTANCES) -> dict:
    """``{"status": "tied" | "uncovered" | "untied" | "not evaluable", "instances": n, "detail":
    text}`` for an interval certificate (:class:`~attnbounds.numerics.intervals.IntervalCertificate`
    of ``f(x) <= bound`` on a box) against ``reading`` (with ``locate``, ``sweep`` and ``sides``).

    The reading's stated ``domain`` (in ``locate``'s coordinates) must lie in the certificate's box,
    compared exactly, else the status is ``uncovered``: the certificate speaks of part of the
    reading's domain only (no conflict: the verdict is then the numeric evidence's). Then at the
    same instances as :func:`tie` (the sweep's, then as many Hypothesis examples), inside the
    reading's own hypotheses, ``locate`` gives the point of the box the instance is, and

    * the point must lie in the reading's domain (else a ``ValueError``: the reading draws outside
      its own statement, or ``locate`` is wrong), and so in the box; a coordinate beyond a
      domain end by at most two ulps of it (the float 0.1 drawn at the end 1/10) or the
      reading's slack (``rtol`` · |end| + ``atol``: a ``locate`` that computes rounds) is moved
      to the nearest float inside;
    * the certificate's margin f(x) − bound must be the reading's, lhs − rhs for ``<=`` (rhs −
      lhs for ``>=``), to the reading's slack, else ``untied``: a certificate of another function,
      which the engine reports as a conflict.

    The margins are compared at the drawn instances only, so the drawn points must spread over
    the domain: in each coordinate (of positive width) they must come within :data:`END_REACH`
    of the width of both ends, and leave no gap wider than :data:`MAX_GAP` of it, else the
    status is ``undersampled`` (no conflict: the certificate is named in a ``holds``). A sweep
    that draws part of the domain would otherwise tie a certificate of a function that is the
    reading's margin there only (review 49: −|1 − x| ≤ 1/2 on [0, 2] certified "x − 1 ≤ 1/2 on
    [0, 2]", false beyond 3/2, whose sweep drew [0, 1]). The check is per coordinate: a sweep of
    a 2-D domain's diagonal passes it.

    A grid certificate (``lower < f(x)_k < upper`` for every k) has no one margin, and a reading
    ``==`` is no upper bound: both are ``not evaluable``.

    >>> import numpy as np
    >>> from attnbounds.claims.base import Proof, Reading, Sides
    >>> from attnbounds.numerics.intervals import certify_upper_bound
    >>> cert = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/2")
    >>> r = Reading("r", "x(1 - x) <= 1/2 on [0, 1]", "-", sides=lambda i: Sides(i["x"] * (1 - i["x"]), 0.5 + 0 * i["x"]),
    ...             sweep=lambda rng, n: {"x": np.linspace(0, 1, n)}, locate=lambda i: [i["x"]], domain=[(0, 1)],
    ...             certify=lambda: Proof(True, "arb", certificate=cert))
    >>> certificate_tie(r, cert)["status"]
    'tied'
    >>> wide = Reading("w", "x(1 - x) <= 1/2 for x >= 0", "-", sides=r.sides, sweep=r.sweep, locate=r.locate,
    ...                domain=[(0, "oo")], certify=r.certify)
    >>> certificate_tie(wide, cert)["status"]
    'uncovered'
    >>> other = Reading("o", "x <= 1/2 + x/2 on [0, 1]", "-", sides=lambda i: Sides(i["x"], 0.5 + i["x"] / 2),
    ...                 sweep=r.sweep, locate=r.locate, domain=r.domain, certify=r.certify)
    >>> certificate_tie(other, cert)["status"]
    'untied'
    """
    from attnbounds.claims.base import _domain_text, _domain_within
    from attnbounds.engine.methods import _instance_text

    if reading.locate is None or reading.domain is None or reading.sweep is None or reading.sides is None:
        raise ValueError("certificate_tie: needs a reading with locate, domain, sweep and sides")
    box = tuple(getattr(certificate, "box", ()) or ())
    if getattr(certificate, "f", None) is None or not box:
        return {"status": "not evaluable", "instances": 0,
                "detail": "the certificate bounds no one function it can be evaluated by (a grid certificate of "
                          "lower < f(x)_k < upper): only an upper bound's (certify_upper_bound) ties to a reading"}
    if reading.relation not in ("<=", ">="):
        return {"status": "not evaluable", "instances": 0,
                "detail": f"a certificate bounds f above; the reading is an equation ({reading.relation})"}
    shown, stated = _domain_text(box), _domain_text(reading.domain)
    if len(reading.domain) != len(box):
        raise ValueError(f"domain: the reading's domain {stated} has {len(reading.domain)} coordinate(s); the "
                         f"certificate's box {shown} has {len(box)}")
    refuted = getattr(certificate, "status", True) is False
    if refuted:  # a refutation at a point p: p must lie in the domain; the box need not contain it
        from fractions import Fraction

        from attnbounds.claims.base import _end_value

        p = [Fraction(int(v.p), int(v.q)) for v in certificate.counterexample]
        if len(p) != len(box) or not all(_end_value(lo) <= v <= _end_value(hi) for v, (lo, hi) in zip(p, reading.domain)):
            return {"status": "uncovered", "instances": 0,
                    "detail": f"the refuting point ({', '.join(map(str, p))}) is outside the reading's domain {stated}"}
        excess = certificate.excess([str(v) for v in p])  # re-checked, not taken from the refutation (review 49)
        if not excess > 0:  # f(p) >= bound refutes f < bound only; the reading's relation is not strict
            return {"status": "no violation", "instances": 0,
                    "detail": f"at the refuting point ({', '.join(map(str, p))}) f - bound = {excess.str(8)}, not > 0: "
                              "it refutes a strict bound only, and the reading's relation is not strict"}
    elif not _domain_within(reading.domain, box):
        return {"status": "uncovered", "instances": 0,
                "detail": f"the reading's domain {stated} is not within the certificate's box {shown}: it certifies "
                          "part of the reading's domain only"}
    picked = [i for i in _instances(reading, seed, instances) if reading.inside(i)]
    if not picked:
        return {"status": "not evaluable", "instances": 0, "detail": "no instance of the sweep meets the reading's hypotheses"}
    drawn: list = []
    for inst in picked:
        try:
            point = np.asarray(reading.locate(inst), dtype=float).ravel()
        except Exception as exc:
            raise ValueError(f"locate raised at {_instance_text(inst)}: {type(exc).__name__}: {exc}") from exc
        if point.size != len(box):
            raise ValueError(f"locate: gave {point.size} coordinate(s) at {_instance_text(inst)}; the certificate's "
                             f"box {shown} has {len(box)}")
        if not np.all(np.isfinite(point)):
            return {"status": "not evaluable", "instances": 0,
                    "detail": f"locate gave a point that is not finite ({point.tolist()}) at {_instance_text(inst)}"}
        inside = _into_domain(point, reading.domain, reading.rtol, reading.atol)
        if inside is None:
            raise ValueError(f"domain: the reading's instance {_instance_text(inst)} is the point {point.tolist()}, "
                             f"outside its stated domain {stated}{_decimal(reading.domain)} by more than the reading's "
                             "rounding slack (rtol, atol): its sweep or strategy draws outside its statement, or its "
                             "locate is wrong")
        point = inside
        drawn.append(point)
        if not refuted and not certificate.covers(point.tolist()):  # not with the domain within the box: a guard
            return {"status": "uncovered", "instances": len(picked),
                    "detail": f"the reading's instance {_instance_text(inst)} is the point {point.tolist()}, outside the "
                              f"certificate's box {shown}: it certifies part of the reading's domain only"}
        sides = reading.sides(inst)
        lhs, rhs = np.asarray(sides.lhs, dtype=float), np.asarray(sides.rhs, dtype=float)
        if lhs.size != 1 or rhs.size != 1:
            raise ValueError(f"sides: gave {lhs.size} and {rhs.size} values at one instance "
                             f"({_instance_text(inst)}); a certificate ties to a reading of one number a side")
        lhs, rhs = float(lhs.reshape(())), float(rhs.reshape(()))
        if not (math.isfinite(lhs) and math.isfinite(rhs)):
            return {"status": "not evaluable", "instances": 0,
                    "detail": f"the reading's sides are not finite at {_instance_text(inst)}"}
        want = lhs - rhs if reading.relation == "<=" else rhs - lhs
        got = certificate.margin(point.tolist())
        # the rounding of the float sides only: f(x) - bound is exact (arb), and the bound is the
        # certificate author's choice (a bound of 1e12 made a slack of 1000: review 48)
        slack = reading.atol + reading.rtol * max(abs(lhs), abs(rhs))
        if not abs(got - want) <= slack:
            return {"status": "untied", "instances": len(picked),
                    "detail": f"the certificate is not of the reading's sides: at {_instance_text(inst)} (the point "
                              f"{point.tolist()}), f(x) - bound = {got:.6g} but the reading's "
                              f"{'lhs - rhs' if reading.relation == '<=' else 'rhs - lhs'} = {want:.6g} (a "
                              "certificate ties where f(x) - bound is the reading's margin: certify the reading's "
                              "own function and bound)"}
    short = _undersampled(np.array(drawn), reading.domain)
    held = "" if refuted else f"the box {shown} contains the reading's domain {stated}, "
    if refuted:
        stated = f"{stated} (where the refuting point lies)"
    if short is not None:
        return {"status": "undersampled", "instances": len(picked),
                "detail": f"{held}{'but ' if held else ''}the {len(picked)} drawn "
                          f"instance(s) where f(x) - bound is compared with the reading's margin {short}: the tie "
                          "speaks of part of the domain only (draw all of it, its ends included)"}
    return {"status": "tied", "instances": len(picked), "domain": _domain_text(reading.domain),
            "detail": f"{held}{'and ' if held else ''}f(x) - bound is the reading's margin at {len(picked)} drawn "
                      f"instance(s), which spread over each coordinate of the domain {stated}"}


#: How near each end of a domain coordinate the drawn points must come, as a fraction of its width.
END_REACH = 0.01
#: The widest gap the drawn points may leave in a domain coordinate, as a fraction of its width.
MAX_GAP = 0.25


def _decimal(domain) -> str:
    """`` (≈ [0.1, 0.3])``: the domain's ends as decimals, where one is a long fraction (a float end
    is its exact binary value); else empty."""
    from attnbounds.claims.base import _end_value

    if all(len(e) <= 12 for pair in domain for e in pair):
        return ""
    return " (≈ " + " x ".join(f"[{float(_end_value(lo)):.17g}, {float(_end_value(hi)):.17g}]" for lo, hi in domain) + ")"


def _into_domain(point: np.ndarray, domain, rtol: float = 0.0, atol: float = 0.0) -> np.ndarray | None:
    """``point`` with each coordinate that lies beyond its domain end by at most the rounding of a
    float (two ulps of the end: the float 0.1 is 1/10 + 5.6e-18) or the reading's slack
    (``rtol`` · |end| + ``atol``: a ``locate`` that computes, (l1 − l2)/T, rounds by more; trial
    49) moved to the nearest float inside; None if a coordinate lies further out."""
    from fractions import Fraction

    from attnbounds.claims.base import _end_value

    out = point.astype(float).copy()
    for k, (v, (lo, hi)) in enumerate(zip(point, domain)):
        for end, side in ((_end_value(lo), -1), (_end_value(hi), 1)):
            if isinstance(end, float):  # an unbounded end
                continue
            beyond = (Fraction(float(v)) - end) * side
            if beyond <= 0:
                continue
            slack = max(2 * Fraction(float(np.spacing(abs(float(end))))), Fraction(rtol * abs(float(end)) + atol))
            if beyond > slack:
                return None
            inner = float(end)
            if (Fraction(inner) - end) * side > 0:
                inner = float(np.nextafter(inner, -side * np.inf))
            out[k] = inner
    return out


def _undersampled(points: np.ndarray, domain) -> str | None:
    """Why the drawn ``points`` (n, k) do not spread over ``domain`` (:data:`END_REACH`,
    :data:`MAX_GAP`), or None."""
    from attnbounds.claims.base import _end_value

    for k, (lo, hi) in enumerate(domain):
        a, b = float(_end_value(lo)), float(_end_value(hi))
        width = b - a
        if not width > 0 or not math.isfinite(width):
            continue
        values = np.sort(points[:, k])
        if values[0] - a > END_REACH * width or b - values[-1] > END_REACH * width:
            return (f"reach coordinate {k} of the domain only from {values[0]:.6g} to {values[-1]:.6g}, not within "
                    f"{END_REACH:.0%} of its width of both ends {lo} and {hi}")
        gaps = np.diff(values)
        g = int(np.argmax(gaps)) if gaps.size else 0
        if gaps.size and gaps[g] > MAX_GAP * width:
            return (f"leave a gap from {values[g]:.6g} to {values[g + 1]:.6g} in coordinate {k}, wider than "
                    f"{MAX_GAP:.0%} of its width")
    return None


def _instances(reading, seed: int, count: int) -> list:
    """``count`` instances of the reading's sweep (one, if it returns a fixed instance), then as
    many examples of its Hypothesis strategy, if it has one."""
    from attnbounds.engine.methods import _slice_instance, _stream_seed

    rng = np.random.default_rng(_stream_seed(seed, reading.name, "tie"))
    batch = reading.sweep(rng, count)
    size = next((int(v.shape[0]) for v in batch.values() if isinstance(v, np.ndarray) and v.ndim >= 1), None)
    out = [batch] if size is None else [_slice_instance(batch, k) for k in range(size)]
    if reading.strategy is not None:
        out += _examples(reading.strategy(), count, seed)
    return out


def _examples(strategy, count: int, seed: int) -> list:
    """Up to ``count`` examples of a Hypothesis strategy, drawn as a test draws them (seeded)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis.errors import Unsatisfiable

    from attnbounds.engine.methods import seeded_draws

    got: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(instance):
        got.append(instance)

    try:
        with seeded_draws():
            collect()
    except Unsatisfiable:
        pass
    return got[:count]


class _NotEvaluable(ValueError):
    pass


class _Declined(Exception):
    """bind raised NoFiniteSpace at the instance (its setting has no finite space there)."""


class _Reads(dict):
    """An instance that notes which of its keys are read: a bind that declines an instance says
    which values it had read by then (a decline should rest on the setting, d = 3, not on the
    values the sides are computed from)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.read: set = set()

    def __getitem__(self, key):
        self.read.add(str(key))
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(str(key))
        return super().get(key, default)


_NO_VALUE = object()  # _at: the goal has no finite value at the instance (a float over- or underflowed)


def _relations_of(part) -> list:
    """(name, relation) of the part's hypotheses (a tuple's each; a lemma's statement; a fact
    such as WeightedNorm as itself)."""
    from attnbounds.theory.proof import Assumed, Lemma

    from attnbounds.theory.proof import FACTS

    out = []
    for name, h in part.chain.ctx.hypotheses.items():
        if isinstance(h, Assumed):
            continue
        if isinstance(h, FACTS):
            out.append((name, h))
        elif isinstance(h, Lemma):
            out.append((name, h.relation_expr()))
        elif isinstance(h, tuple):
            out += [(name, r) for r in h]
        elif isinstance(h, sp.core.relational.Relational):
            out.append((name, h))
    return out


def _same_statement(r, lhs, rel, rhs) -> bool:
    """Whether hypothesis ``r`` is the goal itself (either way round)."""
    if not isinstance(r, sp.core.relational.Relational):
        return False
    pairs = {"<=": (sp.Le, sp.Ge), ">=": (sp.Ge, sp.Le), "=": (sp.Eq, sp.Eq), "==": (sp.Eq, sp.Eq)}.get(rel)
    if pairs is None:
        return False
    same, flipped = pairs
    a, b = sp.sympify(lhs), sp.sympify(rhs)
    if (isinstance(r, same) and (r.lhs, r.rhs) == (a, b)) or (isinstance(r, flipped) and (r.lhs, r.rhs) == (b, a)) or (
            rel in ("=", "==") and isinstance(r, sp.Eq) and (r.lhs, r.rhs) == (b, a)):
        return True
    return _rescaled_goal(r, a, rel, b)


def _rescaled_goal(r, a, rel, b) -> bool:
    """Whether hypothesis ``r`` gives the goal ``a rel b`` by algebra alone: its two sides' difference
    is a positive constant times the goal's (a strict one included: a - b < 0 gives a <= b). Review
    46: the hypothesis a - b <= 0 proved a <= b, tied to a false reading where its sweep held."""
    if rel in ("=", "=="):
        if not isinstance(r, sp.Eq):
            return False
        g, h = a - b, r.lhs - r.rhs
    else:
        down = {sp.Le: 1, sp.Lt: 1, sp.Ge: -1, sp.Gt: -1}.get(type(r))  # h <= 0 after moving its terms
        if down is None:
            return False
        g = a - b if rel == "<=" else b - a
        h = (r.lhs - r.rhs) * down
    try:
        if h == 0 or g == 0:
            return False
        # a cheap check, not simplify (0.8 s a call on the package's hypotheses): the common factors
        # of each side pulled out, SymPy cancels what the two share (2(a - b) over a - b is 2)
        q = sp.factor_terms(g) / sp.factor_terms(h)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    if not q.is_number:
        return False
    return bool(q.is_positive) if rel not in ("=", "==") else bool(q.is_nonzero)


def _at(part, reading, instance, hyps: set, every) -> Any:
    """True when the part's goal is the reading's sides at ``instance``, the bound values meet
    their symbols' assumptions and the part's hypotheses hold there (their names go to
    ``hyps``), else the text of what differs. A hypothesis with a symbol ``bind`` leaves out,
    other than an integer read only as a subscript (checked at every index of the tables), makes
    the tie not evaluable: the theorem might not apply to the instance."""
    from attnbounds.engine.refute import NoNumericForm, _eval
    from attnbounds.theory.proof import WeightedNorm

    seen = _Reads(instance) if isinstance(instance, dict) else instance
    try:
        values = reading.bind(seen)
    except NoFiniteSpace as exc:  # (from bind only: the same exception from the sides is an error)
        read = sorted(seen.read) if isinstance(seen, _Reads) else []
        raise _Declined(f"{exc} [bind had read {', '.join(read) or 'none of its keys by item'} of the instance]") from None
    if not isinstance(values, dict):
        raise TypeError(f"bind: expected a dict (symbol -> value), got {type(values).__name__}")
    fixed = sorted(str(k) for k in values if isinstance(k, sp.Symbol) and k in every)
    if fixed:  # a hypothesis read at each value of i would then be checked at the one value bind gives
        raise _NotEvaluable(f"bind gives a value to {', '.join(fixed)}, which the chain reads for every value (a sum's "
                            "or a term proof's index): leave it out, and the tie checks the hypotheses at every value")
    env = _env(values, _arity(part), _random(part))
    broken = _assumptions_broken(values, env)
    if broken:
        return broken
    lhs, rel, rhs = part.goal
    try:
        with np.errstate(all="ignore"):
            gl, gr = (_scalar(_eval(sp.sympify(x), env)) for x in (lhs, rhs))
    except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError) as exc:
        why = (f"the bind gives no {SPACE!r} (attnbounds.claims.base.SPACE), the probabilities of a finite "
               "space to take it on" if env.prob is None and "over no random variable" in str(exc) else str(exc))
        raise _NotEvaluable(f"the proof's goal has no value from bind: {why}") from None
    broken = _calls_broken(env)
    if broken:
        return broken
    if not (np.isfinite(gl) and np.isfinite(gr)):
        if _overflows((lhs, rhs), env):  # beyond floats here (e^{l/T} over- or underflows): no point to tie at
            return _NO_VALUE
        return (f"the goal {sp.sstr(lhs)} {rel} {sp.sstr(rhs)} has no value here ({gl!r} {rel} {gr!r}, with no "
                "overflow or underflow: 0/0, a division by 0, or a sum that reads past a sequence bind gives), where "
                "the reading's sides have one: the proof does not speak of this instance, or bind gives a wrong value")
    sides = reading.sides(instance)
    sl, sr = (np.asarray(x, dtype=float) for x in (sides.lhs, sides.rhs))
    if sl.size != 1 or sr.size != 1:
        raise _NotEvaluable(f"the reading's sides have {max(sl.size, sr.size)} elements per instance, the goal one")
    sl, sr = float(sl.ravel()[0]), float(sr.ravel()[0])
    rel = "=" if rel in ("=", "==") else rel
    want = "=" if reading.relation == "==" else reading.relation
    # the reading's own slack, at least rounding and at most 1e-6 relative (a reading's rtol of 0.05
    # would tie p(1 - p) <= 1/4 to p(1 - p) <= 0.24)
    tol = (min(max(reading.rtol, 1e-12), 1e-6), min(max(reading.atol, 1e-15), 1e-9))
    same = _close(gl, sl, *tol) and _close(gr, sr, *tol)
    flipped = _close(gl, sr, *tol) and _close(gr, sl, *tol)
    ok = (same or flipped) if rel == "=" else (same and rel == want) or (flipped and _FLIP[rel] == want)
    if not ok:
        return (f"the goal {sp.sstr(lhs)} {rel} {sp.sstr(rhs)} is {gl!r} {rel} {gr!r}, the reading's sides "
                f"{sl!r} {reading.relation} {sr!r}")
    unknown = None  # the first hypothesis with no value here: raised only once every other one held
    # (review 46: an unused hypothesis with no value hid one that fails)
    for name, r in _relations_of(part):
        if isinstance(r, WeightedNorm):
            try:
                held = _weighted_norm_holds(name, r, env, values)
            except _NotEvaluable as exc:
                unknown = unknown or exc
                continue
            if held is not True:
                return f"the proof's hypothesis {name!r} (a WeightedNorm fact) fails against bind's witness: {held}"
            hyps.add(repr(name))
            continue
        if not isinstance(r, sp.core.relational.Relational):
            unknown = unknown or _NotEvaluable(
                f"the proof's hypothesis {name!r} is a {type(r).__name__}, which the tie cannot evaluate: whether the "
                "theorem applies to the reading's instances is not known")
            continue
        held = _hypothesis_holds(r, env, every)
        if held is None:
            missing = _unbound(r, env)
            why = (f"bind gives no value for {', '.join(missing)}" if missing else
                   "an inequality between vectors, an event of probability 0, or no index with a value")
            unknown = unknown or _NotEvaluable(
                f"the proof's hypothesis {name!r} ({sp.sstr(r)}) has no value at the bound values ({why}): whether the "
                "theorem applies to the reading's instances is not known")
            continue
        if held is not True:
            return f"the proof's hypothesis {name!r} ({sp.sstr(r)}) fails: {held}"
        hyps.add(repr(name))
    broken = _calls_broken(env)
    if broken:
        return broken
    if unknown is not None:
        raise unknown
    return True


def _weighted_norm_holds(name, h, env, values):
    """True where the ``WeightedNorm`` fact ``h`` (f = ‖Σ_j w_j X_j‖, the X_j independent with
    ‖X_j‖ ≤ radius, l1 = Σ_j |w_j|, l2 = Σ_j w_j²) holds on the bound space against the witness
    ``values[WITNESSES][name]`` = (weights, vectors), else the text of what fails. With a free
    integer i in the fact (D(i)), at every i its assumptions allow where any of f, the radius,
    l1 and l2 has a value, with the weights' row for i: row i − 1 of an (I, J) table, or a dict
    {i: row}. The comparisons are relative (a value near 0 is not "close" to another by an
    absolute slack), f's to the largest the norm can be, radius · l1. No witness, no space, a
    witness of the wrong shape or an index where some of the fact's values are given and others
    not: not evaluable."""
    from attnbounds.engine.refute import NoNumericForm, _eval

    given = values.get(WITNESSES) or {}
    if not isinstance(given, dict):
        raise _NotEvaluable(f"bind: the key WITNESSES must hold a dict {{hypothesis name: (weights, vectors)}}, got "
                            f"{type(given).__name__}")
    witness = given.get(name)
    if env.prob is None or witness is None:
        others = f" (it gives witnesses for {', '.join(map(repr, given))} only)" if given else ""
        raise _NotEvaluable(f"the proof's hypothesis {name!r} is a WeightedNorm fact ({sp.sstr(h.f)} = ‖Σ_j w_j X_j‖, "
                            "the X_j independent): bind gives " + ("no space (key SPACE) to check it on" if env.prob is None
                            else f"no witness for it (key WITNESSES: {{{name!r}: (weights, vectors)}}){others}"))
    if not (isinstance(witness, tuple) and len(witness) == 2):
        raise _NotEvaluable(f"bind: the witness of {name!r} must be a pair (weights, vectors), got {type(witness).__name__}")
    prob = env.prob[0]
    rows = witness[0]
    X = np.asarray(witness[1], dtype=float)
    X = X[..., None] if X.ndim == 2 else X
    if isinstance(rows, dict):
        rows = {int(k): np.asarray(v, dtype=float) for k, v in rows.items()}
        W = None
        as_given = "{" + ", ".join(f"{k}: {r.shape}" for k, r in rows.items()) + "}"
    else:
        W = np.asarray(rows, dtype=float)
        rows = {k + 1: W[k] for k in range(W.shape[0])} if W.ndim == 2 else None
        as_given = str(W.shape)
    shapes = [r.shape for r in rows.values()] if rows is not None else [W.shape]
    if X.ndim != 3 or X.shape[1] != prob.size or any(sh != X.shape[:1] for sh in shapes) or (W is not None and W.ndim not in (1, 2)):
        raise _NotEvaluable(f"bind: the witness of {name!r} must be weights (J,), (I, J) or {{i: (J,)}} and vectors (J, atoms) "
                            f"or (J, atoms, d) on the {prob.size} atoms; got weights {as_given} and vectors {np.shape(witness[1])}")
    if not all(np.all(np.isfinite(r)) for r in (rows.values() if rows is not None else [W])) or not np.all(np.isfinite(X)):
        return "the witness holds a value that is not a finite number"
    live = np.flatnonzero(prob > 0)
    parts = (h.f, h.radius, h.l1, h.l2)
    labels = {ix.base.label for e in parts for ix in sp.sympify(e).atoms(sp.Indexed)}
    free = sorted({x for e in parts for x in sp.sympify(e).free_symbols
                   if isinstance(x, sp.Symbol) and x.is_integer and x not in labels and x not in env.ints
                   and x not in env.values}, key=sp.default_sort_key)
    if len(free) > 1:
        raise _NotEvaluable(f"the WeightedNorm fact {name!r} has {len(free)} free indices ({', '.join(map(str, free))}); "
                            "the tie checks a fact with one at most")
    if free and rows is None:
        raise _NotEvaluable(f"bind: the WeightedNorm fact {name!r} has a free index {free[0]}: its witness's weights must "
                            f"be one row per value of {free[0]}, (I, J) (row {free[0]} − 1) or {{{free[0]}: (J,)}}, got {as_given}")
    if not free and rows is not None:
        raise _NotEvaluable(f"bind: the WeightedNorm fact {name!r} has no free index: its witness's weights must be one "
                            f"row, (J,), got {as_given}")
    bad = _independence_fails(X[:, live], prob[live])
    if bad:
        return bad

    def number(e):
        try:
            v = np.asarray(_eval(sp.sympify(e), env), dtype=float)
        except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError):
            return None
        return float(v.ravel()[0]) if v.size == 1 and np.isfinite(v.ravel()[0]) else None

    def at_index(row, where):
        """True, the text of a failure, or None where none of the fact's values is given here
        (past every table); not evaluable where some are and others are not."""
        radius, l1, l2 = (number(e) for e in (h.radius, h.l1, h.l2))
        saved, f = env.atom, []
        try:
            for a in live:
                env.atom = int(a)
                f.append(number(h.f))
        finally:
            env.atom = saved
        given = {"f": all(v is not None for v in f), "radius": radius is not None, "l1": l1 is not None, "l2": l2 is not None}
        some = {"f": any(v is not None for v in f), "radius": given["radius"], "l1": given["l1"], "l2": given["l2"]}
        indexed = [k for k in given if free and sp.sympify(getattr(h, k)).has(free[0])]  # the values i reads
        if not any(some[k] for k in (indexed or given)):  # past every table of the index
            return None
        if not all(given.values()):
            missing = [sp.sstr(getattr(h, k)) for k, v in given.items() if not v]
            raise _NotEvaluable(f"the WeightedNorm fact {name!r}{where}: bind gives no value for {', '.join(missing)}, where "
                                "it gives one for the fact's other values: the fact cannot be checked there")
        if row is None:
            return f"the witness has no weights{where}, where {sp.sstr(h.f)} has a value"
        f = np.asarray(f)
        norm = _norms(np.einsum("j,jad->ad", row, X[:, live]))
        scale = 1e-12 * radius * l1  # f is at most radius · l1: rounding relative to that
        if not np.all(np.abs(f - norm) <= scale + 1e-9 * np.maximum(np.abs(f), np.abs(norm))):
            k = int(np.argmax(np.abs(f - norm)))
            return (f"{sp.sstr(h.f)} is {float(f[k])!r} at atom {int(live[k])}{where}, the witness's ‖Σ_j w_j X_j‖ "
                    f"{float(norm[k])!r}")
        longest = float(_norms(X[:, live]).max(initial=0.0))
        if longest > radius * (1 + 1e-12):
            return f"a vector of the witness has length {longest!r}, over the radius {sp.sstr(h.radius)} = {radius!r}{where}"
        for what, want, got in (("l1", l1, float(np.abs(row).sum())), ("l2", l2, float((row**2).sum()))):
            if not _close(want, got, 1e-9, 0.0):
                return (f"the fact's {what}, {sp.sstr(getattr(h, what))}, is {float(want)!r}{where}; the witness's weights "
                        f"give {float(got)!r}")
        return True

    if not free:
        got = at_index(W, "")
        if got is None:
            raise _NotEvaluable(f"the WeightedNorm fact {name!r}: bind gives none of its values "
                                f"({', '.join(sp.sstr(e) for e in parts)})")
        return got
    i = free[0]
    width = max([t.shape[1] - 2 for t in list(env.values.values()) + list(env.random.values()) if np.ndim(t) >= 2]
                + [max(rows) + 1 if rows else 1, 8])
    checked = 0
    for k in _allowed(i, width):
        env.ints[i] = k
        try:
            got = at_index(rows.get(k), f" at {i} = {k}")
        finally:
            env.ints.pop(i, None)
        if got is None:
            if k in rows:
                return f"the witness has weights for {i} = {k}, where the fact has no value"
            continue
        if got is not True:
            return got
        checked += 1
    if not checked:
        raise _NotEvaluable(f"the WeightedNorm fact {name!r} has no value at any {i} from bind")
    return True


def _norms(v) -> np.ndarray:
    """The Euclidean norms along the last axis, scaled so that tiny (1e-170) or huge entries do not
    under- or overflow in their squares."""
    v = np.asarray(v, dtype=float)
    big = np.abs(v).max(axis=-1, initial=0.0)
    safe = np.where(big > 0, big, 1.0)
    return big * np.sqrt(((v / safe[..., None]) ** 2).sum(axis=-1))


def _independence_fails(X, prob) -> str | None:
    """None where the vectors X (J, atoms, d) are independent under the atoms' probabilities
    ``prob`` (all positive), else the text of a failure: the values the J vectors take together
    must be every combination of the values each takes (the support of the law of them all is the
    product of each one's), each with the product of the J probabilities (to a relative 1e-9)."""
    J = X.shape[0]
    keys = [tuple(map(tuple, X[:, a].tolist())) for a in range(X.shape[1])]
    joint: dict = {}
    margins = [dict() for _ in range(J)]
    for a, key in enumerate(keys):
        joint[key] = joint.get(key, 0.0) + prob[a]
        for j in range(J):
            margins[j][key[j]] = margins[j].get(key[j], 0.0) + prob[a]
    combos = float(np.prod([float(len(m)) for m in margins]))
    if len(joint) != combos:
        return (f"the witness's vectors are not independent: they take {len(joint)} combinations of values together, "
                f"not every one of the {combos:.0f} combinations of each one's values")
    for key, p in joint.items():
        prod = float(np.prod([margins[j][key[j]] for j in range(J)]))
        if not _close(p, prod, 1e-9, 0.0):
            return (f"the witness's vectors are not independent: their values {[list(v) for v in key]} together have "
                    f"probability {p!r}, the product of each one's {prod!r}")
    return None


def _overflows(exprs, env) -> bool:
    """Whether evaluating ``exprs`` leaves the range of floats: an exponential, or a power of a
    non-zero finite base, that is infinite (overflow) or 0 (underflow: e^{-800} is not 0, and a
    sum of such terms divided by another is 0/0 only in floats). A power of 0 is not (0^{-1} is
    a division by 0). The refuter's evaluator notes them (``env.beyond``) for one evaluation."""
    from attnbounds.engine.refute import NoNumericForm, _eval

    env.beyond = []
    try:
        for x in exprs:
            _eval(sp.sympify(x), env)
    except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError):
        return False
    finally:
        beyond, env.beyond = env.beyond, None
    return bool(beyond)


def _hypothesis_holds(r, env, every=frozenset()):
    """True where relation ``r`` holds at the bound values, the text of a failure, or None when
    it cannot be evaluated. An integer symbol ``bind`` leaves out is tried at the integers its
    assumptions allow near the tables' indices: at every one where the chain reads it for every
    value (a term proof's index, ``every``), else at some one (the theorem is about each value:
    it applies where one meets its hypotheses). With several such symbols, some choice of those
    outside ``every`` must hold at every choice of those in it. An assignment at which ``r`` has
    no value (an index past a table) is passed over; none with a value is None, unless ``r`` is
    read for every index of sequences ``bind`` gives empty (then it holds of none: vacuous)."""
    import itertools

    from attnbounds.engine.refute import NoNumericForm, _bare_random, _eval

    labels = {ix.base.label for ix in r.atoms(sp.Indexed)}
    free = sorted((x for x in r.free_symbols if isinstance(x, sp.Symbol) and x not in labels
                   and x not in env.ints and x not in env.values), key=sp.default_sort_key)
    if any(not x.is_integer for x in free):
        return None

    def value():  # (a, b): two numbers, or two vectors of an equation (compared entry by entry)
        try:
            if env.prob is not None and _bare_random(r, env):
                return _surely(r, env)
            a, b = (np.asarray(_eval(x, env), dtype=float)[0] for x in (r.lhs, r.rhs))
            if a.size == 1 and b.size == 1:
                a, b = float(a.ravel()[0]), float(b.ravel()[0])
            elif not isinstance(r, sp.Eq) or a.shape != b.shape:
                return None
        except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError):
            return None
        return (a, b) if np.all(np.isfinite(a)) and np.all(np.isfinite(b)) else None

    if not free:
        got = value()
        if got is None:
            return None
        return True if _relation_holds(r, *got) else f"{_txt(got[0])} against {_txt(got[1])}"
    width = max([t.shape[1] - 2 for t in env.values.values() if np.ndim(t) >= 2] + [8])
    spans = {k: _allowed(k, width) for k in free}
    inner = [k for k in free if k in every]
    outer = [k for k in free if k not in every]
    failure = None
    for pick in itertools.product(*(spans[k] for k in outer)):
        bad = None
        count = 0
        for each in itertools.product(*(spans[k] for k in inner)):
            env.ints.update(zip(outer + inner, pick + each))
            try:
                got = value()
            finally:
                for k in free:
                    env.ints.pop(k, None)
            if got is None:  # (an index past a table has no value there)
                continue
            count += 1
            if not _relation_holds(r, *got):
                bad = (dict(zip(outer + inner, pick + each)), got)
                break
        if count and bad is None:
            return True
        if bad is not None and failure is None:
            failure = bad
    if failure is None:  # no choice had a value: vacuous where r is read for every index of sequences bound empty
        return True if not outer and _over_empty(r, set(free), env) else None
    at, (a, b) = failure
    where = ", ".join(f"{k} = {v}" for k, v in at.items())
    if not outer:
        return f"{_txt(a)} against {_txt(b)} at {where}"
    tried = "; ".join(f"{k}: {spans[k][0]} … {spans[k][-1]}" for k in outer)
    return f"it holds at no {', '.join(map(str, outer))} its assumptions allow (tried {tried}); e.g. {_txt(a)} against {_txt(b)} at {where}"


def _allowed(k, width: int) -> list:
    """The integers in −width … width that the integer symbol ``k``'s assumptions allow."""
    from attnbounds.engine.refute import _int_meets, _meets

    return [v for v in range(-width, width + 1) if _int_meets(k, v) and bool(_meets(k, np.array([float(v)]))[0])]


def _unbound(r, env) -> list:
    """The names of the symbols (other than integers, which are tried), bases and functions of
    ``r`` that ``env`` holds no value for."""
    labels = {ix.base.label for ix in r.atoms(sp.Indexed)}
    names = [x for x in r.free_symbols if isinstance(x, sp.Symbol) and x not in labels and not x.is_integer
             and x not in env.values and x not in env.ints]
    names += [ix.base for ix in r.atoms(sp.Indexed) if ix.base not in env.values and ix.base not in env.random]
    names += [f.func for f in r.atoms(sp.core.function.AppliedUndef)
              if f.func not in env.values and f.func not in env.random and f.func not in env.functions]
    return sorted({str(x) for x in names})


def _over_empty(r, free: set, env) -> bool:
    """Whether every sequence ``r`` reads at a free index is bound, and bound empty (L = 1 leaves
    no other token: "F_j >= m for every j" is then true of no j, and vacuous)."""
    heads = [ix.base for ix in r.atoms(sp.Indexed) if set(ix.free_symbols) & free]
    heads += [f.func for f in r.atoms(sp.core.function.AppliedUndef) if set(f.free_symbols) & free]
    tables = [env.values.get(h, env.random.get(h)) for h in heads]
    return bool(heads) and all(t is not None and t.shape[1] == 2 for t in tables)


def _assumptions_broken(values: dict, env) -> str | None:
    """The first bound value outside its symbol's (or base's, function's) assumptions, as text.
    A function bound to callables is checked where it is called (:func:`_calls_broken`)."""
    from attnbounds.engine.refute import _head_kind, _meets
    from attnbounds.theory.proof import _declared

    for key, given in values.items():
        if key in (SPACE, WITNESSES) or _callables(given) is not None:  # (checked in _env; with the facts; where called)
            continue
        head = key.func if isinstance(key, sp.core.function.AppliedUndef) else key
        if not np.all(np.isfinite(np.asarray(given, dtype=float))):
            return f"bind gives {head} a value that is not a finite number"
        if isinstance(head, sp.Symbol):
            if head.is_commutative is False:  # a vector: SymPy calls it "not zero", "not real"; no facts about entries
                continue
            v = env.ints[head] if head in env.ints else env.values[head]
            if not np.all(_meets(head, np.asarray(v, dtype=float))):
                return f"bind gives {head} = {np.asarray(v).ravel().tolist()}, outside its assumptions ({_declared(head)})"
            continue
        kind = _head_kind(head)
        if kind is not None:
            table = np.asarray(env.random[head] if head in env.random else env.values[head], dtype=float)
            vals = table[np.isfinite(table)]
            if not np.all(_meets(kind, vals)):
                return f"bind gives {head} values outside its assumptions ({_declared(kind)})"
    return None


def _callables(v) -> tuple | None:
    """(F, F' or None) where ``bind`` gives a function a callable F or a pair (F, F') of
    callables, else None."""
    if callable(v):
        return (v, None)
    if isinstance(v, tuple) and len(v) == 2 and all(callable(x) for x in v):
        return v
    return None


def _calls_broken(env) -> str | None:
    """For each function ``bind`` gives callables, at the points it was called at since the last
    check: a value of F outside F's assumptions (F positive: F(x) > 0), or a value of F' that is
    not F's derivative (against F's central differences, where they are sure: :func:`attnbounds.
    engine.refute._derivative`), as text; None when all hold."""
    from attnbounds.engine.refute import _Env, _eval, _head_kind, _meets
    from attnbounds.theory.proof import _declared

    calls, env.calls = env.calls, {}
    for head, made in calls.items():
        kind = _head_kind(head)
        for order, x, out in made:
            bad = np.isfinite(out) & ~_meets(kind, out) if order == 0 and kind is not None else np.zeros(out.shape, bool)
            if np.any(bad):
                return (f"bind gives {head} the value {float(out[bad][0])!r} at {float(x[bad][0])!r}, outside its assumptions "
                        f"({_declared(kind)})")
        points = np.unique(np.concatenate([x for order, x, _ in made if order == 1] + [np.empty(0)]))
        points = points[np.isfinite(points)]
        if not points.size:
            continue
        probe, x = _Env(points.size), sp.Dummy("x", real=True)
        probe.values[x], probe.functions[head] = points, (env.functions[head][0], None)
        with np.errstate(all="ignore"):
            slope = np.asarray(_eval(sp.Derivative(head(x), x), probe), dtype=float)
            given = np.broadcast_to(np.asarray(env.functions[head][1](points), dtype=float), points.shape)
        for at, d, g in zip(points.tolist(), slope.tolist(), given.tolist()):
            if np.isfinite(d) and not _close(g, d, 1e-6, 1e-9):
                return f"bind gives {head} a derivative that is not its own: {g!r} at {at!r}, where {head}'s slope is {d!r}"
    return None


def _env(values: dict, arity: dict | None = None, random: set | None = None):
    """A one-draw evaluation environment (:mod:`attnbounds.engine.refute`) holding ``values``:
    an integer symbol's integer, a symbol's number (or vector), a base's or function's sequence
    (read from index 1: ``x[1]`` is the first entry). A base that ``arity`` says takes k > 1
    subscripts (``w[t, j]``) is a table read from index 1 on each of its first k axes; where
    ``values`` has a space (``SPACE``), a function in ``random`` is a random variable on it.

    >>> w = sp.IndexedBase("w")
    >>> from attnbounds.engine.refute import _eval
    >>> env = _env({w: [[10, 11, 12], [20, 21, 22]]}, {w: 2})
    >>> [float(_eval(w[t, j], env)[0]) for t, j in ((1, 1), (1, 3), (2, 1))]
    [10.0, 12.0, 20.0]
    """
    from attnbounds.engine.refute import _Env
    from attnbounds.theory.proof import is_random_atom

    env = _Env(1)
    env.means = {}  # (the values below stay fixed: a mean is evaluated once, not again at each atom)
    env.integer_reads = True  # a table is read at integers only (F given as a table, read at a logit: no value)
    random = (random or set()) if SPACE in values else set()  # without a space: values as given
    for key, v in values.items():
        if key == WITNESSES:  # (checked with the facts they witness)
            continue
        if key == SPACE:
            p = np.asarray(v, dtype=float)
            if p.ndim != 1 or not np.all(p >= 0) or abs(p.sum() - 1) > 1e-9:
                raise ValueError(f"bind: {SPACE!r} must be the probabilities of the atoms, one axis, non-negative and "
                                 f"summing to 1 (to 1e-9); got shape {p.shape}, least "
                                 f"{float(p.min()) if p.size else None}, sum {float(p.sum())!r}")
            env.prob = p[None, :]
            continue
        head = key.func if isinstance(key, sp.core.function.AppliedUndef) else key
        if isinstance(head, sp.core.function.UndefinedFunction) and _callables(v) is not None:
            env.functions[head] = _callables(v)
            continue
        if head in random:
            a = np.asarray(v, dtype=float)
            if a.ndim < 2 or a.shape[1] != len(values[SPACE]):
                raise TypeError(f"bind: the random {head} takes a table (K, atoms) of its values at each atom of "
                                f"{SPACE!r}, got shape {a.shape}")
            table = np.full((1, a.shape[0] + 2) + a.shape[1:], np.nan)
            table[0, 1:a.shape[0] + 1] = a
            env.random[head] = table
            continue
        if isinstance(head, sp.Symbol):
            a = np.asarray(v, dtype=float)
            if SPACE in values and is_random_atom(head) and a.ndim >= 1:
                raise TypeError(f"bind: {head} is a random symbol, given values at the atoms; the tie reads a random "
                                f"variable on the space as an applied function: write {head} as F(1) with "
                                f"F = sp.Function({str(head)!r}) and bind F to a table (1, atoms)")
            if head.is_integer and a.ndim == 0 and float(a).is_integer():
                env.ints[head] = int(a)
            else:
                env.values[head] = a.reshape((1,) + a.shape)
        elif isinstance(head, (sp.IndexedBase, sp.core.function.UndefinedFunction)):
            a = np.asarray(v, dtype=float)
            k = max(1, (arity or {}).get(head, 1))
            if a.ndim < k:
                raise TypeError(f"bind: {head} takes {'a sequence' if k == 1 else f'a table of {k} axes'} "
                                f"(its values from index 1), got {a.ndim} axis(es)")
            table = np.full((1,) + tuple(n + 2 for n in a.shape[:k]) + a.shape[k:], np.nan)
            table[(0,) + tuple(slice(1, n + 1) for n in a.shape[:k])] = a
            env.values[head] = table
        else:
            raise TypeError(f"bind: a key must be a SymPy symbol, IndexedBase or function, got {type(key).__name__}")
    return env


def _random(part) -> set:
    """The functions of the part's goal and hypotheses that are random variables (as the
    refuter reads them: averaged by a mean, events of a probability)."""
    from attnbounds.engine.refute import _random_heads

    exprs = [sp.sympify(x) for x in (part.goal[0], part.goal[2])]
    rels = [r for _, r in _relations_of(part)]
    exprs += [x for r in rels if isinstance(r, sp.core.relational.Relational) for x in (r.lhs, r.rhs)]
    return _random_heads(exprs, rels)[0]


def _arity(part) -> dict:
    """The number of subscripts each indexed base takes in the part's goal and hypotheses."""
    exprs = [sp.sympify(x) for x in (part.goal[0], part.goal[2])] + [r for _, r in _relations_of(part)
                                                                      if isinstance(r, sp.Basic)]
    out: dict = {}
    for e in exprs:
        for ix in e.atoms(sp.Indexed):
            out[ix.base] = max(out.get(ix.base, 1), len(ix.indices))
    return out


def _scalar(v) -> float:
    a = np.asarray(v, dtype=float)
    if a.size != 1:
        raise ValueError("a vector value")
    return float(a.ravel()[0])


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    return bool(np.isfinite(a) and np.isfinite(b) and abs(a - b) <= atol + rtol * max(abs(a), abs(b)))


def _txt(v) -> str:
    """A number as repr gives it, a vector as a list."""
    return repr(v) if np.ndim(v) == 0 else repr(np.asarray(v).tolist())


def _surely(r, env):
    """(a, b): the sides of ``r``, a relation between random values outside a mean, at each atom
    of the space where it speaks (stacked; compared atom by atom): every atom of positive
    probability, and where ``r`` holds values given events, only the atoms in every one of
    them. None where such an event has probability 0 (a value given it is undefined there)."""
    from attnbounds.engine.refute import _eval, _event_value
    from attnbounds.theory.proof import Cond, Expect, Prob

    def bare_conds(e):
        if isinstance(e, (Expect, Prob)):
            return set()
        own = {e} if isinstance(e, Cond) else set()
        return own.union(*[bare_conds(a) for a in e.args])

    events = [c.args[1] for c in bare_conds(r.lhs) | bare_conds(r.rhs)]
    prob = env.prob[0]
    saved, la, lb = env.atom, [], []
    try:
        live = []
        for a in range(prob.shape[0]):
            env.atom = a
            live.append(prob[a] > 0 and all(float(_event_value(ev, env)[0]) > 0 for ev in events))
        if events and not any(live):
            return None
        for a in np.flatnonzero(live):
            env.atom = int(a)
            la.append(np.asarray(_eval(r.lhs, env), dtype=float)[0])
            lb.append(np.asarray(_eval(r.rhs, env), dtype=float)[0])
    finally:
        env.atom = saved
    a, b = np.asarray(la), np.asarray(lb)
    if a.shape != b.shape or (a.ndim > 1 and not isinstance(r, sp.Eq)):
        return None
    return (a, b) if np.all(np.isfinite(a)) and np.all(np.isfinite(b)) else None


def _relation_holds(r, a, b) -> bool:
    """Whether ``r`` holds at the numbers a and b (or the vectors of an equation, entry by entry;
    or arrays of values at the atoms of a space, atom by atom), to rounding."""
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return False
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if isinstance(r, sp.Eq):
        slack = 1e-12 + 1e-9 * max(float(np.max(np.abs(a), initial=0)), float(np.max(np.abs(b), initial=0)))
        return bool(np.all(np.abs(a - b) <= slack))
    slack = 1e-12 + 1e-9 * np.maximum(np.abs(a), np.abs(b))
    if isinstance(r, (sp.Le, sp.Lt)):
        return bool(np.all(a <= b + slack))
    if isinstance(r, (sp.Ge, sp.Gt)):
        return bool(np.all(a >= b - slack))
    return True  # Ne and others: not read
