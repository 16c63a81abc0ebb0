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
  one; a fact (WeightedNorm, BoundedDifferences) cannot be evaluated.

The hypotheses are checked at the instances only: that the reading's own hypotheses give them
is its author's word, and a tied row names them.

A failure is a conflict (the proof is of another statement, or under other hypotheses), and so
is a goal that is one of its own hypotheses: the verdict is never ``proved`` on it. A goal or
hypothesis the values cannot evaluate (a mean of random variables, a symbol ``bind`` leaves
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

from typing import Any

import numpy as np
import sympy as sp

__all__ = ["INSTANCES", "tie"]

#: Instances of the reading's sweep the goal is evaluated at.
INSTANCES = 16

_FLIP = {"<=": ">=", ">=": "<=", "=": "=", "==": "="}


def tie(reading, proof, seed: int = 0, instances: int = INSTANCES) -> dict:
    """``{"status": "tied" | "untied" | "not evaluable", "instances": n, "detail": text}`` for
    ``proof`` (a checked chain) against ``reading`` (with ``bind``, ``sweep`` and ``sides``).

    The statement is the proof's first part (an ``AllOf``'s others are its lemmas). The
    instances are ``instances`` of the sweep and, where the reading has a Hypothesis strategy,
    as many of its examples (a sweep of one fixed instance ties at one point only)."""
    from attnbounds.engine.methods import _instance_text
    from attnbounds.theory.proof import _every_reads

    if reading.bind is None or reading.sweep is None or reading.sides is None or proof.chain is None:
        raise ValueError("tie: needs a reading with bind, sweep and sides, and a proof with a chain")
    part = (getattr(proof.chain, "parts", None) or (proof.chain,))[0]
    picked = [i for i in _instances(reading, seed, instances) if reading.inside(i)]
    if not picked:
        return {"status": "not evaluable", "instances": 0, "detail": "no instance of the sweep meets the reading's hypotheses"}
    lhs, rel, rhs = part.goal
    for name, r in _relations_of(part):
        if _same_statement(r, lhs, rel, rhs):
            return {"status": "untied", "instances": 0,
                    "detail": f"the proof's goal is its own hypothesis {name!r}: it proves nothing of the reading"}
    hyps: set = set()
    every = _every_reads(part.chain)  # the symbols the chain reads for every value
    for inst in picked:
        try:
            got = _at(part, reading, inst, hyps, every)
        except _NotEvaluable as exc:
            return {"status": "not evaluable", "instances": 0, "detail": str(exc)}
        if got is not True:
            return {"status": "untied", "instances": len(picked),
                    "detail": f"the proof does not prove the reading: at {_instance_text(inst)}, {got}"}
    under = (f"; its {len(hyps)} hypothesis(es) {', '.join(sorted(hyps))} hold there (checked there only, in "
             "floats: the reading's own hypotheses must give them)") if hyps else ""
    return {"status": "tied", "instances": len(picked), "hypotheses": sorted(h.strip("'") for h in hyps),
            "detail": f"the proof's goal has the reading's sides at {len(picked)} instance(s){under}"}


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

    got: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(instance):
        got.append(instance)

    try:
        collect()
    except Unsatisfiable:
        pass
    return got[:count]


class _NotEvaluable(ValueError):
    pass


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
    return (isinstance(r, same) and (r.lhs, r.rhs) == (a, b)) or (isinstance(r, flipped) and (r.lhs, r.rhs) == (b, a)) or (
        rel in ("=", "==") and isinstance(r, sp.Eq) and (r.lhs, r.rhs) == (b, a))


def _at(part, reading, instance, hyps: set, every) -> Any:
    """True when the part's goal is the reading's sides at ``instance``, the bound values meet
    their symbols' assumptions and the part's hypotheses hold there (their names go to
    ``hyps``), else the text of what differs. A hypothesis with a symbol ``bind`` leaves out,
    other than an integer read only as a subscript (checked at every index of the tables), makes
    the tie not evaluable: the theorem might not apply to the instance."""
    from attnbounds.engine.refute import NoNumericForm, _eval

    values = reading.bind(instance)
    if not isinstance(values, dict):
        raise TypeError(f"bind: expected a dict (symbol -> value), got {type(values).__name__}")
    env = _env(values)
    broken = _assumptions_broken(values, env)
    if broken:
        return broken
    lhs, rel, rhs = part.goal
    try:
        gl, gr = (_scalar(_eval(sp.sympify(x), env)) for x in (lhs, rhs))
    except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError) as exc:
        raise _NotEvaluable(f"the proof's goal has no value from bind: {exc}") from None
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
    for name, r in _relations_of(part):
        if not isinstance(r, sp.core.relational.Relational):
            raise _NotEvaluable(f"the proof's hypothesis {name!r} is a {type(r).__name__}, which the tie cannot evaluate: "
                                "whether the theorem applies to the reading's instances is not known")
        held = _hypothesis_holds(r, env, every)
        if held is None:
            raise _NotEvaluable(f"the proof's hypothesis {name!r} ({sp.sstr(r)}) has a symbol bind does not give: "
                                "whether the theorem applies to the reading's instances is not known")
        if held is not True:
            return f"the proof's hypothesis {name!r} ({sp.sstr(r)}) fails: {held}"
        hyps.add(repr(name))
    return True


def _hypothesis_holds(r, env, every=frozenset()):
    """True where relation ``r`` holds at the bound values, the text of a failure, or None when
    it cannot be evaluated. One integer symbol ``bind`` leaves out is tried at the integers its
    assumptions allow near the tables' indices: at every one where the chain reads it for every
    value (a term proof's index, ``every``), else at some one (the theorem is about each value:
    it applies where one meets its hypotheses)."""
    from attnbounds.engine.refute import NoNumericForm, _eval, _int_meets, _meets

    labels = {ix.base.label for ix in r.atoms(sp.Indexed)}
    free = [x for x in r.free_symbols if isinstance(x, sp.Symbol) and x not in labels
            and x not in env.ints and x not in env.values]
    if len(free) > 1 or (free and not free[0].is_integer):
        return None
    if not free:
        try:
            a, b = (_scalar(_eval(x, env)) for x in (r.lhs, r.rhs))
        except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError):
            return None
        return True if _relation_holds(r, a, b) else f"{a!r} against {b!r}"
    k = free[0]
    width = max([t.shape[1] - 2 for t in env.values.values() if np.ndim(t) >= 2] + [8])
    ks = [v for v in range(-width, width + 1) if _int_meets(k, v) and bool(_meets(k, np.array([float(v)]))[0])]
    results = []
    for v in ks:
        env.ints[k] = v
        try:
            a, b = (_scalar(_eval(x, env)) for x in (r.lhs, r.rhs))
        except (NoNumericForm, ZeroDivisionError, TypeError, ValueError, IndexError):
            return None
        finally:
            env.ints.pop(k, None)
        if np.isfinite(a) and np.isfinite(b):  # (an index past a table has no value there)
            results.append((v, _relation_holds(r, a, b), a, b))
    if not results:
        return None
    if k in every:
        bad = next((x for x in results if not x[1]), None)
        return True if bad is None else f"{bad[2]!r} against {bad[3]!r} at {k} = {bad[0]}"
    return True if any(x[1] for x in results) else f"it holds at no {k} its assumptions allow (tried {ks[0]} … {ks[-1]})"


def _assumptions_broken(values: dict, env) -> str | None:
    """The first bound value outside its symbol's (or base's, function's) assumptions, as text."""
    from attnbounds.engine.refute import _head_kind, _meets
    from attnbounds.theory.proof import _declared

    for key, given in values.items():
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
            table = np.asarray(env.values[head], dtype=float)
            vals = table[np.isfinite(table)]
            if not np.all(_meets(kind, vals)):
                return f"bind gives {head} values outside its assumptions ({_declared(kind)})"
    return None


def _env(values: dict):
    """A one-draw evaluation environment (:mod:`attnbounds.engine.refute`) holding ``values``:
    an integer symbol's integer, a symbol's number (or vector), a base's or function's sequence
    (read from index 1: ``x[1]`` is the first entry)."""
    from attnbounds.engine.refute import _Env

    env = _Env(1)
    for key, v in values.items():
        head = key.func if isinstance(key, sp.core.function.AppliedUndef) else key
        if isinstance(head, sp.Symbol):
            a = np.asarray(v, dtype=float)
            if head.is_integer and a.ndim == 0 and float(a).is_integer():
                env.ints[head] = int(a)
            else:
                env.values[head] = a.reshape((1,) + a.shape)
        elif isinstance(head, (sp.IndexedBase, sp.core.function.UndefinedFunction)):
            a = np.asarray(v, dtype=float)
            if a.ndim == 0:
                raise TypeError(f"bind: {head} takes a sequence (its values from index 1), got one number")
            table = np.full((1, a.shape[0] + 2) + a.shape[1:], np.nan)
            table[0, 1:a.shape[0] + 1] = a
            env.values[head] = table
        else:
            raise TypeError(f"bind: a key must be a SymPy symbol, IndexedBase or function, got {type(key).__name__}")
    return env


def _scalar(v) -> float:
    a = np.asarray(v, dtype=float)
    if a.size != 1:
        raise ValueError("a vector value")
    return float(a.ravel()[0])


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    return bool(np.isfinite(a) and np.isfinite(b) and abs(a - b) <= atol + rtol * max(abs(a), abs(b)))


def _relation_holds(r, a: float, b: float) -> bool:
    if not (np.isfinite(a) and np.isfinite(b)):
        return False
    slack = 1e-12 + 1e-9 * max(abs(a), abs(b))
    if isinstance(r, sp.Eq):
        return abs(a - b) <= slack
    if isinstance(r, (sp.Le, sp.Lt)):
        return a <= b + slack
    if isinstance(r, (sp.Ge, sp.Gt)):
        return a >= b - slack
    return True  # Ne and others: not read
