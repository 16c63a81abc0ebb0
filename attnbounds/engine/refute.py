r"""Numeric refutation of a proof's statement: search concrete values of a checked chain's
symbols that satisfy its hypotheses and break its goal.

The mutants of :mod:`attnbounds.engine.mutants` change a proof's statement (a goal
``lhs <relation> rhs`` under a :class:`~attnbounds.theory.proof.Context`): a hypothesis is
dropped, or a term of the goal's right side. The kernel must reject the mutated chain; this
module shows, where it can, that the mutated *statement* is false, by exhibiting an
assignment of every symbol of the statement (scalars, vectors, index functions ``a(i)``,
indexed values ``F[j]``) that

* respects each symbol's SymPy assumptions (positive, non-negative, integer),
* satisfies every hypothesis that the mutant keeps (equations are solved for one symbol,
  inequalities are checked at every index of the goal's sums; lemmas count as their proved
  relation),
* and violates the goal by more than rounding.

Such an assignment is a counterexample to the mutated statement. Nothing here can make a
statement stronger: a search that finds nothing says "no counterexample", never "true". The
step audit (:mod:`attnbounds.engine.audit`) uses the same search on every step the kernel
accepted.

The evaluator is numpy's, independent of SymPy's symbolic facts: arithmetic, sums and
products over integer ranges (several limits, and backward ranges by Karr's convention, as
SymPy reads them), norms, exp, log, the trigonometric and hyperbolic functions,
sign, floor and ceiling; any other SymPy function of scalar arguments (KroneckerDelta,
binomial, gamma, ...) is evaluated numerically at each draw; a derivative of order 1 or 2 by
one variable (a symbol, or one value G(1) or x[2] of an index function or base) by finite
differences (Ridders' extrapolation, kept only where it is sure: :func:`_derivative`), not by
SymPy's rules; ``Expect`` and ``Prob`` on a finite probability space (below); ``Piecewise``,
``KroneckerDelta``, ``MaxOver``/``MinOver`` and the operator norm of a ``Mat``. Other parts
(``Inner``, limits, integrals, ``Subs``) have no numeric form, and
:func:`refute` says so. (The tie, :mod:`attnbounds.engine.tie`, may also bind an undefined
function to callables F and F': then F(x) and F'(x), SymPy's ``Subs`` form included, are
theirs, and a derivative of an expression in F is taken by SymPy's rules; the refuter's own
draws never do.)

>>> import sympy as sp
>>> from attnbounds.theory.proof import Context, Norm, vector
>>> c = vector("c"); R = sp.Symbol("R", nonnegative=True)
>>> found = refute(Norm(c), "<=", R, Context({}), seed=0)  # no hypothesis: ||c|| <= R is false
>>> found.assignment is not None and found.lhs > found.rhs
True
>>> refute(Norm(c), "<=", R, Context({"h": Norm(c) <= R}), seed=0).assignment is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

__all__ = ["Refutation", "refute", "NoNumericForm"]

#: Vector dimension of the search (2 holds every planar configuration the chains speak of).
DIM = 2
#: Largest value of an integer symbol (index bounds such as K = L − N).
INT_MAX = 5
#: Batches searched after the first counterexample, for a smaller one.
EXTRA_BATCHES = 3
#: Atoms of the finite probability space on which random variables are drawn.
ATOMS = 3
#: Relative and absolute margin by which the goal must fail (well above float rounding).
RTOL, ATOL = 1e-6, 1e-9
#: A derivative is evaluated by finite differences only where two extrapolations agree, each
#: within its error estimate, to this share of the margin a counterexample needs.
DERIVATIVE_SHARE = 0.01


class NoNumericForm(ValueError):
    """The statement has a part the numeric evaluator does not know (e.g. ``Expect``)."""


@dataclass(frozen=True)
class Refutation:
    """The result of a search: ``assignment`` (symbol name -> value) and both sides of the
    goal there, or ``assignment=None`` with ``tried`` assignments that met the hypotheses."""

    assignment: dict | None
    lhs: float | None = None
    rhs: float | None = None
    tried: int = 0
    dropped_violated: bool | None = None

    def text(self, digits: int = 4) -> str:
        if self.assignment is None:
            return f"no counterexample among {self.tried} assignment(s) that meet the hypotheses"
        vals = ", ".join(f"{k}={_fmt(v, digits)}" for k, v in sorted(self.assignment.items()))
        return f"lhs={_fmt(self.lhs, digits)}, rhs={_fmt(self.rhs, digits)} at {vals}"


def _stable_key(x):
    """A sort key for symbols, index functions and indexed bases that is the same in every
    process: sets of SymPy objects iterate in an order set by Python's salted ``hash()``
    (``PYTHONHASHSEED``), so iterating one while drawing random values made the search, and
    a mutant's verdict, depend on the process. Ties of the name are broken by the assumptions."""
    if isinstance(x, type):  # an undefined function (a class): its name and its assumptions
        return (str(x), "function", str(sorted((getattr(x, "_kwargs", None) or {}).items())))
    return (str(x), type(x).__name__, sp.srepr(x) if isinstance(x, sp.Basic) else repr(x))


def _ordered(items) -> list:
    """``items`` (a set) in the process-independent order of :func:`_stable_key`."""
    return sorted(items, key=_stable_key)


def _fmt(v, digits):
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return f"{float(a) + 0.0:.{digits}g}"  # + 0.0: a negative zero prints as 0
    return "[" + ", ".join(_fmt(t, digits) for t in a) + "]"


# ----------------------------------------------------------------------------- evaluation


def _is_vector(e) -> bool:
    return isinstance(e, sp.Basic) and e.is_commutative is False


class _Env:
    """Values for one batch: scalars (n,), vectors (n, DIM), index functions and indexed
    bases (n, INT_MAX + 2), integers (python ints, one per batch)."""

    def __init__(self, n):
        self.n = n
        self.values: dict = {}
        self.ints: dict = {}
        self.random: dict = {}  # random head -> (n, INT_MAX + 2, ATOMS) values on a finite space
        self.prob = None  # (n, ATOMS) probabilities of the atoms of that space
        self.atom: int | None = None  # the atom being evaluated (inside Expect / Prob)
        self.beyond: list | None = None  # when a list: the exponentials and powers that left the floats' range
        # undefined function -> (F, F' or None): numpy callables a tie's bind gives (the refuter's
        # own draws give none; its functions are tables); and head -> [(order, points, values)]
        # of their calls, for the tie to check
        self.functions: dict = {}
        self.calls: dict = {}
        # the tie's: a table (index function, base) read at a number that is no integer has no value
        # (NoNumericForm), rather than the value at the nearest integer, which the refuter's own
        # search reads (a function of a real argument drawn as a table)
        self.integer_reads = False
        # the tie's: the means and probabilities already evaluated, by (expression, integers): a mean
        # inside a probability (P(X − E[X] <= −t)) is otherwise evaluated again at every atom. Only
        # where the values, the space and the functions stay fixed (the tie's environments), and
        # not while over- and underflows are noted (env.beyond)
        self.means: dict | None = None


def _note_beyond(env, e, arg, out, nonzero_base) -> None:
    """Note ``e`` in ``env.beyond`` where its value is infinite (overflow) or 0 (underflow: e^x
    and b^x with b != 0 are never 0) at a finite argument: a float artifact, not a value."""
    a = np.asarray(arg, dtype=float)
    v = np.asarray(out, dtype=float)
    if np.all(np.isfinite(a)) and np.all(nonzero_base) and (np.any(np.isinf(v)) or np.any(v == 0)):
        env.beyond.append(e)


def _eval(e, env: _Env):
    from attnbounds.theory.proof import Cond, Cup, Expect, Indicator, Inner, Norm, Prob

    if isinstance(e, Inner):
        raise NoNumericForm("Inner has no numeric form")
    if isinstance(e, (Expect, Prob)):
        if env.prob is None:
            raise NoNumericForm(f"{type(e).__name__} over no random variable")
        arg = e.args[0]
        cache = env.means if env.beyond is None else None
        key = (e, tuple(sorted(env.ints.items(), key=lambda kv: str(kv[0])))) if cache is not None else None
        if cache is not None and key in cache:
            return cache[key]
        given = {c.args[1] for c in arg.atoms(Cond)} if isinstance(e, Expect) else set()
        if len(given) > 1:
            raise NoNumericForm("an expectation conditioned on two events")
        given = next(iter(given), None)  # E[X | A]: the atoms reweighted by A's indicator
        saved, out, mass = env.atom, 0.0, 0.0
        for a in range(env.prob.shape[1]):
            env.atom = a
            v = _eval(arg, env) if isinstance(e, Expect) else _event_value(arg, env)
            w = env.prob[:, a]
            if given is not None:
                w = w * _event_value(given, env)
                mass = mass + w
            # An atom of probability 0 (or outside the conditioning event) contributes nothing,
            # even where X is infinite or undefined there: 0 * inf would make the mean nan.
            # Where it has mass, an infinite or undefined X makes the mean so (never a
            # counterexample: _violated needs finite sides), and the products may overflow.
            live = w > 0
            with np.errstate(over="ignore", invalid="ignore"):
                if np.ndim(v) == 2:  # a random vector has a vector mean
                    out = out + np.where(live[:, None], w[:, None] * v, 0.0)
                else:
                    out = out + np.where(live, w * v, 0.0)
        env.atom = saved
        out = out if np.ndim(out) else np.zeros(env.n)
        if given is not None:
            with np.errstate(all="ignore"):  # P(A) = 0: E[X | A] is undefined (nan, never a counterexample)
                mass = np.where(mass > 0, mass, np.nan)
                out = out / (mass[:, None] if out.ndim == 2 else mass)
        if cache is not None:
            cache[key] = out
        return out
    if isinstance(e, Indicator):  # 1_A at the current atom
        if env.atom is None:
            raise NoNumericForm(f"indicator {e} outside an expectation")
        return _event_value(e.args[0], env)
    if isinstance(e, Cond):  # inside an expectation that is reweighted by the event
        if env.atom is None:
            raise NoNumericForm(f"conditioned {e} outside an expectation")
        return _eval(e.args[0], env)
    if isinstance(e, sp.Symbol):
        if e in env.ints:
            return np.full(env.n, float(env.ints[e]))
        if e not in env.values:
            raise NoNumericForm(f"no value for {e}")
        return env.values[e]
    if e.is_Number:
        return np.full(env.n, float(e))
    if e is sp.pi or e is sp.E:
        return np.full(env.n, float(e))
    if isinstance(e, AppliedUndef) and e.func in env.functions:
        return _call(e.func, 0, e.args, env)
    if isinstance(e, AppliedUndef) or isinstance(e, sp.Indexed):
        head = e.func if isinstance(e, AppliedUndef) else e.base
        args = e.args if isinstance(e, AppliedUndef) else e.indices
        if len(args) > 1 and head in env.values and env.values[head].ndim == 1 + len(args):
            return _multi_indexed(e, env)  # a scalar with several subscripts, w[t, j]
        if len(args) != 1 or (head not in env.values and head not in env.random):
            raise NoNumericForm(f"no value for {e}")
        k = float(_eval(args[0], env)[0])
        if head in env.random:
            if env.atom is None:
                raise NoNumericForm(f"random {e} outside an expectation")
            table = env.random[head][:, :, env.atom]
        else:
            table = env.values[head]
        if env.integer_reads and np.isfinite(k) and abs(k - round(k)) > 1e-9:
            raise NoNumericForm(f"no value for {e}: a table read at {k:g}, which is no integer")
        # an index that is no number (log 0) has no value either
        if not np.isfinite(k) or not 1 <= int(round(k)) <= table.shape[1] - 1:  # no value drawn there (a range that runs backwards
            # by Karr's convention reaches index 0 where a hypothesis fails): nan, so the draws of
            # this batch meet no hypothesis that reads it and break no goal; a dropped hypothesis
            # that reads it is neither met nor failed there (_undetermined); a vector's value is
            # a vector of nan
            return np.full((env.n,) + table.shape[2:], np.nan)
        return table[:, int(round(k))]
    if isinstance(e, Cup):  # the indicator of a union of events: the max of theirs
        if env.atom is None or len(e.limits) != 1:
            raise NoNumericForm("a union of events outside a probability")
        i, lo, hi = e.limits[0]
        lo_v, hi_v = (int(round(float(_eval(b, env)[0]))) for b in (lo, hi))
        out, saved = np.zeros(env.n), env.ints.get(i)
        for k in range(lo_v, hi_v + 1):
            env.ints[i] = k
            f = e.function
            v = _eval(f, env) if isinstance(f, AppliedUndef) and f.func in env.random else _holds_here(f, env).astype(float)
            out = np.maximum(out, v)
        if saved is None:
            env.ints.pop(i, None)
        else:
            env.ints[i] = saved
        return out
    if isinstance(e, (sp.Sum, sp.Product)):
        return _sum_or_product(type(e), e.function, e.limits, env)
    if isinstance(e, Norm):
        v = _eval(e.args[0], env)
        return np.linalg.norm(v, axis=-1) if v.ndim == 2 else np.abs(v)
    if e.is_Add:
        vals = [_eval(a, env) for a in e.args]
        vec = [v for v in vals if v.ndim == 2]
        sca = [v for v in vals if v.ndim == 1]
        if vec and sca:
            raise NoNumericForm("a sum of a vector and a scalar")
        with np.errstate(all="ignore"):
            return sum(vals[1:], vals[0])
    if e.is_Mul:
        out = np.ones(env.n)
        for a in e.args:
            v = _eval(a, env)
            if v.ndim == 2 and out.ndim == 2:
                raise NoNumericForm("a product of two vectors")
            with np.errstate(all="ignore"):  # inf * 0 gives nan, which never counts as a counterexample
                out = (out[:, None] * v) if (v.ndim == 2 and out.ndim == 1) else (out * v[:, None] if out.ndim == 2 else out * v)
        return out
    if e.is_Pow:
        b, x = (_eval(a, e_env) for a, e_env in ((e.args[0], env), (e.args[1], env)))
        if b.ndim == 2:
            raise NoNumericForm("a power of a vector")
        with np.errstate(all="ignore"):
            out = np.power(b, x)
        if env.beyond is not None:
            _note_beyond(env, e, b, out, b != 0)
        return out
    matrix = _eval_matrix_parts(e, env)
    if matrix is not None:
        return matrix
    fns = {sp.exp: np.exp, sp.log: np.log, sp.Abs: np.abs,  # (sqrt is a Pow; sp.sqrt is no class)
           sp.sin: np.sin, sp.cos: np.cos, sp.tan: np.tan, sp.atan: np.arctan, sp.asin: np.arcsin,
           sp.acos: np.arccos, sp.sinh: np.sinh, sp.cosh: np.cosh, sp.tanh: np.tanh, sp.asinh: np.arcsinh,
           sp.sign: np.sign, sp.floor: np.floor, sp.ceiling: np.ceil}  # the rest: _function_value
    for f, g in fns.items():
        if isinstance(e, f):
            arg = _eval(e.args[0], env)
            with np.errstate(all="ignore"):
                out = g(arg)
            if env.beyond is not None and f is sp.exp:
                _note_beyond(env, e, arg, out, True)
            return out
    if isinstance(e, (sp.Max, sp.Min)):
        vals = [_eval(a, env) for a in e.args]
        return (np.maximum if isinstance(e, sp.Max) else np.minimum).reduce(vals)
    if isinstance(e, sp.Derivative):
        if env.functions and any(f.func in env.functions for f in e.expr.atoms(AppliedUndef)):
            return _derivative_of_bound(e, env)
        return _derivative(e, env)
    if isinstance(e, sp.Subs) and env.functions:
        return _slope_at(e, env)
    if isinstance(e, sp.Function) and e.args and not isinstance(e, (sp.Piecewise, sp.Subs)):
        return _function_value(e, env)
    raise NoNumericForm(f"no numeric rule for {type(e).__name__}")


def _sum_or_product(cls, function, limits, env) -> np.ndarray:
    """Σ or Π of ``function`` over ``limits`` (SymPy's order: the first is the innermost), by
    Karr's convention as SymPy reads it: from a to b < a − 1, minus the sum from b + 1 to a − 1
    (a product: its reciprocal); from a to a − 1, empty."""
    i, lo, hi = limits[-1]
    inner = cls(function, *limits[:-1]) if len(limits) > 1 else function  # (building Sum(inner, (i, ..)) folds back)
    lo_a, hi_a = (np.broadcast_to(np.asarray(_eval(b, env), dtype=float), (env.n,)) for b in (lo, hi))
    if not (np.all(lo_a == lo_a[0]) and np.all(hi_a == hi_a[0])):
        return _sum_per_draw(cls, inner, i, lo_a, hi_a, env)  # limits drawn per draw (a sum to K[1])
    lo_v, hi_v = int(round(float(lo_a[0]))), int(round(float(hi_a[0])))
    if hi_v < lo_v - 1:
        flipped = _sum_or_product(cls, function, (*limits[:-1], (i, hi + 1, lo - 1)), env)
        with np.errstate(all="ignore"):
            return -flipped if cls is sp.Sum else 1.0 / flipped
    out = None
    saved = env.ints.get(i)
    for k in range(lo_v, hi_v + 1):
        env.ints[i] = k
        v = _eval(inner, env)
        # sampled magnitudes reach e^5 and more: a sum or product may overflow to inf (or be
        # inf - inf = nan), which is never a counterexample (_violated needs finite sides)
        with np.errstate(over="ignore", invalid="ignore"):
            out = v if out is None else (out + v if cls is sp.Sum else out * v)
    if saved is None:
        env.ints.pop(i, None)
    else:
        env.ints[i] = saved
    if out is None:
        return np.zeros(env.n) if cls is sp.Sum else np.ones(env.n)
    return out


def _sum_per_draw(cls, inner, i, lo_a, hi_a, env) -> np.ndarray:
    """Σ or Π of ``inner`` over i from lo_a to hi_a, limits that differ from draw to draw: each
    draw takes the terms in its own range (nan where a limit is not a finite integer; a
    reversed range, which Karr's convention reads as minus another sum, has no form here)."""
    finite = np.isfinite(lo_a) & np.isfinite(hi_a)
    lo_i = np.where(finite, np.round(lo_a), 0).astype(np.int64)
    hi_i = np.where(finite, np.round(hi_a), -1).astype(np.int64)
    finite &= (lo_i == lo_a) & (hi_i == hi_a)
    if np.any(finite & (hi_i < lo_i - 1)):
        raise NoNumericForm("a sum whose limits vary by draw and run backwards in some")
    out = np.zeros(env.n) if cls is sp.Sum else np.ones(env.n)
    if not finite.any():
        return np.full(env.n, np.nan)
    saved = env.ints.get(i)
    try:
        for k in range(int(lo_i[finite].min()), int(hi_i[finite].max()) + 1):
            env.ints[i] = k
            v = np.asarray(_eval(inner, env), dtype=float)
            if out.ndim < v.ndim:  # a vector's terms: (n, d)
                out = np.broadcast_to(out.reshape(out.shape + (1,) * (v.ndim - out.ndim)), v.shape).copy()
            take = finite & (lo_i <= k) & (k <= hi_i)
            take = take.reshape(take.shape + (1,) * (v.ndim - 1))
            with np.errstate(over="ignore", invalid="ignore"):
                out = np.where(take, out + v, out) if cls is sp.Sum else np.where(take, out * v, out)
    finally:
        if saved is None:
            env.ints.pop(i, None)
        else:
            env.ints[i] = saved
    return np.where(finite.reshape(finite.shape + (1,) * (out.ndim - 1)), out, np.nan)


def _function_value(e, env) -> np.ndarray:
    """Any other SymPy function of scalar arguments (KroneckerDelta, binomial, gamma, erf, ...;
    the elementary ones are numpy's, in :func:`_eval`), at each draw: the function built at the arguments' values as
    exact numbers (integers stay integers) and evaluated numerically by SymPy (mpmath). A
    value that is not a finite real number is nan (never a counterexample). Values are
    cached per call by their arguments (integer arguments repeat)."""
    args = [_eval(a, env) for a in e.args]
    if any(np.ndim(a) != 1 for a in args):
        raise NoNumericForm(f"{type(e).__name__} of a vector")
    out = np.full(env.n, np.nan)
    seen: dict = {}
    for k in range(env.n):
        key = tuple(float(a[k]) for a in args)
        if key not in seen:
            seen[key] = _real_value(e.func, key)
        out[k] = seen[key]
    return out


def _real_value(func, values) -> float:
    if not all(np.isfinite(values)):
        return np.nan
    exact = [sp.Integer(int(v)) if float(v).is_integer() else sp.Float(v, 30) for v in values]
    try:
        v = complex(sp.N(func(*exact), 20))
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return np.nan
    if not np.isfinite(v.real) or abs(v.imag) > 1e-12 * max(1.0, abs(v.real)):
        return np.nan
    return v.real


def _derivative(e, env) -> np.ndarray:
    """d^n f / dv^n (n = 1 or 2) at each draw by central differences, not by SymPy: the
    variable is a scalar symbol or one value of an index function or indexed base (G(1),
    x[2]). Ridders' extrapolation over steps h, h/1.4, h/1.4², ... gives each value with an
    error estimate; it is run from two first steps, and where the two values or their
    estimates are not within :data:`DERIVATIVE_SHARE` of the margin a counterexample needs
    (a pole, a scale the steps do not reach), or the one-sided slopes differ (a kink), the
    value is nan, never a counterexample."""
    if len(e.variable_count) != 1:
        raise NoNumericForm("a derivative by several variables")
    v, n = e.variable_count[0]
    if n not in (1, 2):
        raise NoNumericForm(f"a derivative of order {n}")
    get, put = _variable_slot(v, env)
    base = get().copy()

    def at(x):
        put(x)
        try:
            return np.asarray(_eval(e.expr, env), dtype=float)
        finally:
            put(base)

    f0 = at(base)  # the second difference's centre, and the kink test's
    if f0.ndim != 1:
        raise NoNumericForm("a derivative of a vector")

    def difference(step):
        fp, fm = at(base + step), at(base - step)
        return (fp - fm) / (2 * step) if n == 1 else (fp - 2 * f0 + fm) / step**2

    def ridders(h0):
        con, ntab = 1.4, 12
        hh = h0
        table = [[difference(hh)]]
        best, err = table[0][0], np.full(env.n, np.inf)
        live = np.ones(env.n, dtype=bool)
        for i in range(1, ntab):
            hh = hh / con
            row = [difference(hh)]
            fac = con * con
            for j in range(1, i + 1):
                row.append((row[j - 1] * fac - table[i - 1][j - 1]) / (fac - 1))
                fac *= con * con
                errt = np.maximum(np.abs(row[j] - row[j - 1]), np.abs(row[j] - table[i - 1][j - 1]))
                better = live & (errt <= err)
                err = np.where(better, errt, err)
                best = np.where(better, row[j], best)
            table.append(row)
            live &= ~(np.abs(row[i] - table[i - 1][i - 1]) >= 2 * err)  # the table went bad: stop there
            if not live.any():
                break
        return best, err

    scale = np.maximum(1.0, np.abs(base))
    with np.errstate(all="ignore"):
        # two extrapolations from different first steps must agree, each within its own error
        # estimate, to a hundredth of the margin a counterexample needs (ATOL + RTOL |value|)
        (b1, e1), (b2, e2) = ridders(0.1 * scale), ridders(0.027 * scale)
        tol = DERIVATIVE_SHARE * (ATOL + RTOL * np.abs(b1))
        good = np.isfinite(b1) & np.isfinite(b2) & (e1 <= tol) & (e2 <= tol) & (np.abs(b1 - b2) <= tol)
        best = b1
        if n == 1:  # a kink the central differences do not see (|t| at 0 gives 0 at every step)
            h1 = 1e-3 * np.maximum(1.0, np.abs(base))
            gaps = [np.abs(at(base + h) - 2 * f0 + at(base - h)) / h for h in (h1, h1 / 2)]
            noise = 1e-10 * (1.0 + np.abs(f0)) / h1
            good &= gaps[1] <= 0.75 * gaps[0] + noise  # one-sided slopes: their gap halves with h where f is smooth
        return np.where(good, best, np.nan)


def _call(head, order: int, args, env) -> np.ndarray:
    """The callable ``env.functions[head]`` gives (F for ``order`` 0, F' for 1) at the value of
    its one argument; the call is noted in ``env.calls``, and an infinite value, or a 0 of a
    positive F, at a finite argument in ``env.beyond`` (a float artifact, as e^x's)."""
    fn = env.functions[head][order]
    if len(args) != 1:
        raise NoNumericForm(f"{head} of {len(args)} arguments")
    x = np.asarray(_eval(args[0], env), dtype=float)
    if x.ndim != 1:
        raise NoNumericForm(f"{head} of a vector")
    with np.errstate(all="ignore"):
        out = np.broadcast_to(np.asarray(fn(x), dtype=float), x.shape).copy()
    env.calls.setdefault(head, []).append((order, x, out))
    if env.beyond is not None and np.all(np.isfinite(x)):
        underflow = out == 0 if order == 0 and head(*args).is_positive else False
        if np.any(np.isinf(out) | underflow):
            env.beyond.append(head(*args))
    return out


_DONE: dict = {}


def _derivative_of_bound(e, env) -> np.ndarray:
    """A derivative of an expression in functions bound to callables: F'(x) for dF(x)/dx (the
    bound F' where there is one, else F's central differences, :func:`_derivative`); any
    other, with the integers of ``env`` put in, by SymPy's rules (``doit``: a sum over
    1..L written out, the chain rule) and evaluated."""
    f = e.expr
    if isinstance(f, AppliedUndef) and len(f.args) == 1 and e.variable_count == ((f.args[0], 1),):
        if f.func in env.functions and env.functions[f.func][1] is not None:
            return _call(f.func, 1, f.args, env)
        return _derivative(e, env)
    ints = tuple(sorted(((s, env.ints[s]) for s in e.free_symbols if s in env.ints), key=lambda t: _stable_key(t[0])))
    key = (e, ints)
    if key not in _DONE:
        if len(_DONE) > 20000:
            _DONE.clear()
        _DONE[key] = e.subs({s: sp.Integer(v) for s, v in ints}).doit()
    done = _DONE[key]
    if done == e or done.has(e):  # SymPy's rules leave it: central differences
        return _derivative(e, env)
    return _eval(done, env)


def _slope_at(e, env) -> np.ndarray:
    """``Subs(Derivative(F(x), x), x, a)`` (SymPy's F'(a) for an argument a that is no variable)
    with F bound to a callable: F' at the value of a."""
    d = e.expr
    if not (isinstance(d, sp.Derivative) and isinstance(d.expr, AppliedUndef) and d.expr.func in env.functions
            and len(e.variables) == 1 and d.expr.args == e.variables and d.variable_count == ((e.variables[0], 1),)):
        raise NoNumericForm(f"no numeric rule for {sp.sstr(e)}")
    x = sp.Dummy("x", real=True)
    env.values[x] = np.asarray(_eval(e.point[0], env), dtype=float)
    try:
        return _derivative_of_bound(sp.Derivative(d.expr.func(x), x), env)
    finally:
        del env.values[x]


def _variable_slot(v, env):
    """(get, put) of a derivative's variable's values in ``env``: a scalar symbol's (n,) array,
    or the column of an index function or indexed base at a fixed integer index."""
    if isinstance(v, sp.Symbol) and v in env.values and np.ndim(env.values[v]) == 1:
        def get():
            return env.values[v]

        def put(x):
            env.values[v] = x
        return get, put
    if isinstance(v, (AppliedUndef, sp.Indexed)):
        head = v.func if isinstance(v, AppliedUndef) else v.base
        args = v.args if isinstance(v, AppliedUndef) else v.indices
        table = env.values.get(head)
        if len(args) == 1 and table is not None and table.ndim == 2:
            k = int(round(float(_eval(args[0], env)[0])))
            if 1 <= k <= table.shape[1] - 1:
                def get():
                    return table[:, k]

                def put(x):
                    table[:, k] = x
                return get, put
    raise NoNumericForm(f"a derivative by {v}")


def _event_value(ev, env) -> np.ndarray:
    """The indicator of an event at the current atom: an indicator function, a union, a
    relation, or Not / And / Or of events."""
    from attnbounds.theory.proof import Cup

    if isinstance(ev, sp.Not):
        return 1.0 - _event_value(ev.args[0], env)
    if isinstance(ev, sp.And):
        return np.minimum.reduce([_event_value(a, env) for a in ev.args])
    if isinstance(ev, sp.Or):
        return np.maximum.reduce([_event_value(a, env) for a in ev.args])
    if isinstance(ev, AppliedUndef):
        if ev.func not in env.random:  # (the refuter draws every event; a tie's bind may leave one out)
            raise NoNumericForm(f"no value for the event {ev}")
        return _eval(ev, env)  # an indicator event
    if isinstance(ev, Cup):
        return _eval(ev, env)  # a union of events: its indicator
    return _holds_here(ev, env).astype(float)


def _event_heads(ev) -> set:
    """The indicator functions an event is built from (directly, or under Not / And / Or)."""
    if isinstance(ev, (sp.Not, sp.And, sp.Or)):
        return set().union(*[_event_heads(a) for a in ev.args])
    return {ev.func} if isinstance(ev, AppliedUndef) else set()


def _bare_random(e, env) -> bool:
    """Whether a random head occurs in ``e`` outside every Expect / Prob."""
    from attnbounds.theory.proof import Expect, Prob

    if isinstance(e, (Expect, Prob)):
        return False
    if isinstance(e, AppliedUndef) and e.func in env.random:
        return True
    return any(_bare_random(a, env) for a in e.args)


def _at_every_index(rel, env: _Env, indices, i, test=None, every: bool = True) -> np.ndarray:
    """Where ``test(rel, env, indices)`` (default :func:`_holds`) is true at every integer value
    of the summation index ``i`` in its range (``every``), or at some value of it."""
    test = _holds if test is None else test
    lo, hi = indices[i]
    out = np.full(env.n, every)
    for k in range(int(round(float(_eval(lo, env)[0]))), int(round(float(_eval(hi, env)[0]))) + 1):
        env.ints[i] = k
        out = out & test(rel, env, indices) if every else out | test(rel, env, indices)
    env.ints.pop(i, None)
    return out


def _holds(rel, env: _Env, indices) -> np.ndarray:
    """Where relation ``rel`` holds (exactly, in floats); a relation with a free summation
    index must hold at every value of it, and one about a random variable (outside
    Expect / Prob) at every atom of its space (almost surely)."""
    from attnbounds.theory.proof import FACTS, BoundedDifferences

    if isinstance(rel, FACTS):
        # BoundedDifferences: realised by f = X, a function of the one variable X, whose c_1 is
        # X's range: (max X - min X)^2 <= sum c^2 (McDiarmid's hypothesis then holds exactly).
        # WeightedNorm(f, R, l1, l2): when l2 > 0 and l1 >= sqrt(l2), take one random X_1 with
        # weight a and k equal weights (l1 - a)/k on constant vectors (constants are
        # independent), with k so large that a^2 + (l1 - a)^2/k = l2 has a root a in
        # [sqrt(l2)/2, sqrt(l2)]; the constants sum to a vector v of norm R (sqrt(l2) - a)
        # <= R (l1 - a), and X_1 = s v/|v| with s in [-R, R] makes f = |a s + |v||, which takes
        # every value in [0, R sqrt(l2)] (a >= |v|/R); l2 = 0 forces every weight, l1 and f to 0
        f = rel.f
        if not (isinstance(f, AppliedUndef) and f.func in env.random):
            raise NoNumericForm(f"a {type(rel).__name__} fact about a non-random function")
        free = [i for i in indices if i in sp.Tuple(*_sides_of(rel)).free_symbols and i not in env.ints]
        if free:
            return _at_every_index(rel, env, indices, free[0])
        vals = []
        for a in range(env.prob.shape[1]):
            env.atom = a
            vals.append(_eval(f, env))
        env.atom = None
        vals = np.stack(vals, axis=-1)
        if isinstance(rel, BoundedDifferences):
            return (vals.max(-1) - vals.min(-1)) ** 2 <= _eval(rel.sum_c2, env)
        R, l1, l2 = (_eval(x, env) for x in (rel.radius, rel.l1, rel.l2))
        with np.errstate(invalid="ignore"):
            root = np.sqrt(np.maximum(l2, 0.0))
            weights = (l2 >= 0) & (l1 >= root) & ((l2 > 0) | (l1 == 0))
            return (R >= 0) & weights & (vals.min(-1) >= 0) & (vals.max(-1) <= R * root)
    free = [i for i in indices if i in rel.free_symbols and i not in env.ints]
    if free:
        return _at_every_index(rel, env, indices, free[0])
    if env.atom is None and env.random and _bare_random(rel, env):
        from attnbounds.theory.proof import Cond

        given = {c.args[1] for c in rel.atoms(Cond)}  # a relation between conditioned variables
        given = next(iter(given)) if len(given) == 1 else None  # holds almost surely given that event
        ok = np.ones(env.n, dtype=bool)
        for a in range(env.prob.shape[1]):
            env.atom = a
            here = _holds_here(rel, env)
            ok &= here if given is None else (here | (_event_value(given, env) == 0))
        env.atom = None
        return ok
    return _holds_here(rel, env)


def _holds_here(rel, env: _Env) -> np.ndarray:
    a, b = _eval(rel.lhs, env), _eval(rel.rhs, env)
    with np.errstate(invalid="ignore"):
        if isinstance(rel, sp.Le):
            r = a <= b
        elif isinstance(rel, sp.Lt):
            r = a < b
        elif isinstance(rel, sp.Ge):
            r = a >= b
        elif isinstance(rel, sp.Gt):
            r = a > b
        elif isinstance(rel, sp.Eq):  # to rounding of the terms the sides were summed from (_violated)
            r = np.abs(a - b) <= 1e-12 + 1e-12 * _magnitude(a, b, _terms_scale(env, rel.lhs, rel.rhs))
            if r.ndim == 2:
                r = r.all(axis=-1)
        else:
            raise NoNumericForm(f"relation {rel}")
    with np.errstate(invalid="ignore"):  # inf - inf in a vector's sum is nan: not finite, as wanted
        return np.asarray(r) & np.isfinite(a if a.ndim == 1 else a.sum(-1)) & np.isfinite(b if b.ndim == 1 else b.sum(-1))


def _violated(lhs, rel, rhs, scale=None):
    """Where ``lhs rel rhs`` fails by more than rounding: ATOL + RTOL · the larger of |lhs|,
    |rhs| and ``scale``, the size of the terms the sides were summed from (cosh²x − sinh²x = 1
    is 1 to within 2e-6 at x = 12, from terms of 10¹⁰: an exact identity is not broken by
    rounding). A vector side (n, d) breaks where any entry does."""
    with np.errstate(invalid="ignore"):
        margin = ATOL + RTOL * _magnitude(lhs, rhs, scale)
        if rel == "<=":
            bad = lhs > rhs + margin
        elif rel == ">=":
            bad = lhs < rhs - margin
        else:
            bad = np.abs(lhs - rhs) > margin
    bad = bad & np.isfinite(lhs) & np.isfinite(rhs)
    return bad.reshape(bad.shape[0], -1).any(axis=1) if bad.ndim > 1 else bad


def _magnitude(a, b, scale=None):
    """The size rounding is relative to: the larger of |a|, |b| and ``scale`` (per draw; a vector
    side's entries each against its draw's scale)."""
    with np.errstate(invalid="ignore"):
        big = np.maximum(np.abs(a), np.abs(b))
        if scale is not None:
            big = np.maximum(big, scale if np.ndim(scale) == np.ndim(big) else np.asarray(scale)[..., None])
    return big


def _terms_scale(env, *exprs):
    """Per draw, the size rounding is relative to (None when no expression has a sum, or one
    cannot be evaluated): the expression evaluated with every sum taken as Σ |term| and every
    product and integer power of those, so that a cancelling sum inside a product counts at the
    size of its terms (y·(cosh²x − sinh²x) = y at x = 20 is computed from terms of 10¹⁷)."""
    out = None
    for e in exprs:
        if not (isinstance(e, sp.Basic) and e.has(sp.Add)):
            continue
        try:
            tot = _abs_scale(e, env)
        except (NoNumericForm, ZeroDivisionError, TypeError, ValueError):
            continue
        out = tot if out is None else np.maximum(out, tot)
    return out


def _abs_scale(e, env) -> np.ndarray:
    """|e| with sums as Σ |term| (and products, integer powers of them): per draw (a vector
    value's largest entry)."""
    if isinstance(e, (sp.Add, sp.Mul, sp.Pow)):
        with np.errstate(invalid="ignore", over="ignore"):  # inf · 0 is nan: no scale there, as no value
            if isinstance(e, sp.Add):
                return sum(_abs_scale(a, env) for a in e.args)
            if isinstance(e, sp.Mul) and e.is_commutative:
                out = 1.0
                for a in e.args:
                    out = out * _abs_scale(a, env)
                return out
            if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0 and e.base.has(sp.Add):
                return _abs_scale(e.base, env) ** int(e.exp)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.abs(np.asarray(_eval(e, env), dtype=float))
    return v.reshape(v.shape[0], -1).max(axis=1) if v.ndim > 1 else v


# ----------------------------------------------------------------------------- sampling


def _scalar(rng, n, sym):
    """Values of a scalar symbol under its assumptions: a mixture of 0, 1, small, large and
    moderate values (both signs unless non-negative)."""
    kind = rng.integers(0, 5, size=n)
    mag = np.select([kind == 0, kind == 1, kind == 2, kind == 3],
                    [np.zeros(n), np.ones(n), rng.uniform(0, 1, n), np.exp(rng.uniform(0, 5, n))],
                    np.exp(rng.uniform(-3, 3, n)))
    sign = rng.choice([-1.0, 1.0], size=n)
    if sym is not None and (sym.is_extended_positive or sym.is_extended_negative or sym.is_zero is False):
        mag = np.where(mag > 0, mag, 0.5)
    if sym is not None and (sym.is_extended_nonnegative or sym.is_extended_nonpositive):
        sign = np.full(n, 1.0 if sym.is_extended_nonnegative else -1.0)
    if sym is not None and sym.is_integer:  # an integer-valued function or base: small integers
        mag = np.where(mag > 0, np.maximum(np.round(mag), 1.0), 0.0)
    if sym is not None and (sym.is_prime or sym.is_composite):  # drawn among the first of them
        pool = np.array(_PRIMES if sym.is_prime else _COMPOSITES, dtype=float)
        return pool[rng.integers(0, pool.size, size=n)]
    if sym is not None and sym.is_even:
        mag = 2.0 * np.round(mag / 2.0)
        if sym.is_zero is False or sym.is_extended_positive or sym.is_extended_negative:
            mag = np.maximum(mag, 2.0)
    elif sym is not None and sym.is_odd:
        mag = 2.0 * np.floor(mag / 2.0) + 1.0
    return mag * sign


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29)
_COMPOSITES = (4, 6, 8, 9, 10, 12, 14, 15, 16, 18)


def _respects(sym, values) -> np.ndarray:
    """Per batch element, whether every value in ``values`` (batch first) meets the
    assumptions of ``sym`` (:func:`_meets`): a value placed to meet a hypothesis (tightened,
    assigned, shifted) may break them, and such a draw is not one the statement speaks of."""
    return _meets(sym, np.asarray(values, dtype=float).reshape(np.shape(values)[0], -1)).all(axis=1)


def _meets(sym, v) -> np.ndarray:
    """Elementwise, whether the values ``v`` meet the assumptions of ``sym`` (positive,
    nonnegative, negative, nonpositive, nonzero, integer, even, odd, prime, composite)."""
    ok = np.ones(np.shape(v), dtype=bool)
    with np.errstate(invalid="ignore"):
        if sym.is_extended_positive:
            ok &= v > 0
        elif sym.is_extended_nonnegative:
            ok &= v >= 0
        if sym.is_extended_negative:
            ok &= v < 0
        elif sym.is_extended_nonpositive:
            ok &= v <= 0
        if sym.is_zero is False:
            ok &= v != 0
        if sym.is_integer:
            ok &= v == np.round(v)
        if sym.is_even:
            ok &= np.mod(v, 2) == 0
        if sym.is_odd:
            ok &= np.mod(v, 2) == 1
        if sym.is_prime or sym.is_composite:
            from sympy import isprime

            whole = np.isfinite(v) & (v == np.round(v)) & (v >= 2)
            prime = np.zeros(np.shape(v), dtype=bool)
            prime[whole] = [isprime(int(x)) for x in np.asarray(v)[whole]]
            ok &= prime if sym.is_prime else whole & ~prime & (np.asarray(v) > 3)
    return ok


def _vector(rng, n, common):
    kind = rng.integers(0, 4, size=n)
    scale = np.exp(rng.uniform(-2, 2, (n, 1)))
    gauss = rng.standard_normal((n, DIM)) * scale
    line = common * (rng.standard_normal((n, 1)) * scale)  # all on one line through 0
    return np.where((kind == 0)[:, None], 0.0, np.where((kind == 1)[:, None], line, gauss))


def _atoms(exprs):
    from attnbounds.theory.proof import Cup

    syms, heads, idx, labels = set(), set(), set(), set()
    for e in exprs:
        for a in e.atoms(sp.Symbol):
            syms.add(a)
        for f in e.atoms(AppliedUndef):
            heads.add(f.func)
        for f in e.atoms(sp.Indexed):
            heads.add(f.base)
            labels.add(f.base.label)
        for s in e.atoms(sp.Sum, sp.Product, Cup):
            for lim in s.limits:
                idx.add(lim[0])
    return syms - labels, heads, idx


def _sides_of(r):
    from attnbounds.theory.proof import FACTS, _fact_sides

    return tuple(_fact_sides(r)) if isinstance(r, FACTS) else (r.lhs, r.rhs)


def _random_heads(exprs, rels):
    """The index functions that are random variables (they are averaged by Expect, are the
    functions of bounded differences, or are events ``Prob(g(i))``), and the events."""
    from attnbounds.theory.proof import FACTS, Cond, Cup, Expect, Indicator, Prob

    random, indicators = set(), set()
    for e in exprs:  # inside an event, a function that is never averaged is a threshold (t(i))
        for atom in e.atoms(Expect):
            for f in atom.args[0].atoms(AppliedUndef):
                if getattr(f.func, "deterministic", False) is not True:  # a(i) declared non-random is a constant, as the kernel reads it
                    random.add(f.func)
        for atom in e.atoms(Prob, Indicator):  # the event of a probability or of an indicator (inside a mean)
            heads = _event_heads(atom.args[0])  # an indicator event, or Not / And / Or of them
            random |= heads
            indicators |= heads
        for atom in e.atoms(Cond):  # the event an expectation is conditioned on
            heads = _event_heads(atom.args[1])
            random |= heads
            indicators |= heads
        for atom in e.atoms(Cup):  # a union of indicator events
            if isinstance(atom.function, AppliedUndef):
                random.add(atom.function.func)
                indicators.add(atom.function.func)
    for r in rels:
        if isinstance(r, FACTS):  # the function a fact speaks of is random (its constants are not)
            for f in sp.sympify(r.f).atoms(AppliedUndef):
                random.add(f.func)
    fixed = {f for f in random if getattr(f, "deterministic", False) is True}
    return random - fixed, indicators - fixed


def _random_heads_in(rel, env) -> set:
    """The random index functions (drawn in ``env.random``) that ``rel`` reads."""
    return {f.func for f in rel.atoms(AppliedUndef) if f.func in env.random}


def _relations(ctx, drop):
    from attnbounds.theory.proof import FACTS, Assumed, Lemma

    kept = ctx.without(drop) if drop is not None and drop in ctx.hypotheses else ctx
    rels = []
    for name, h in kept.hypotheses.items():
        if isinstance(h, Assumed):
            # argued, not checked: a chain resting on it is not proved, so there is no statement
            # of the kernel to refute with it; the search does not pretend to know it
            raise NoNumericForm(f"hypothesis {name!r} is assumed, not checked")
        if isinstance(h, FACTS):
            rels.append(h)
        elif isinstance(h, Lemma):
            # a lemma is a fact only where its chain checks without the dropped hypothesis
            rels.extend(kept.relation(name))
        else:
            rels.extend(h if isinstance(h, tuple) else (h,))
    return rels


def _solve_equations(eqs, sampled_syms, idx=frozenset()):
    """Turn equations into assignments ``symbol -> expression`` (in order); the rest stay
    as filters (so do equations with a summation index: they hold per index)."""
    derived: list = []
    filters: list = []
    for eq in eqs:
        e = eq
        for s, v in derived:
            e = e.xreplace({s: v})
        if e is sp.true:
            continue
        if e.free_symbols & set(idx):
            filters.append(eq)
            continue
        target = None
        for side, other in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            # not an integer symbol (it is drawn among the integers: m = n/2 solved for m gave m = 1/2)
            if (isinstance(side, sp.Symbol) and side not in dict(derived) and side not in other.free_symbols
                    and not side.is_integer):
                target = (side, other)
                break
        if target is None and _defines_a_value(e):
            # β[t] = e^{u[t]/T}/(e^{u[t]/T} + S[t]) defines β's value at t (assigned in β's table,
            # per index): solved for T instead, T = u[t]/log(…β[t]…) was read from values drawn
            # at random, and the definition of S[t], which reads T, never held with it
            filters.append(eq)
            continue
        if target is None:
            # a scalar symbol only: not a value x[t] at a drawn index (it is read from x's table,
            # which the solved value would not reach) nor the label of an indexed base
            labels = {x.base.label for x in e.atoms(sp.Indexed)}
            for s in _ordered(e.free_symbols):
                if (not isinstance(s, sp.Symbol) or s in labels or not s.is_commutative or s.is_integer
                        or s in dict(derived)):
                    continue
                try:
                    sol = sp.solve(e.lhs - e.rhs, s, dict=False)
                except (NotImplementedError, TypeError, ValueError):
                    continue
                # an implicit "solution" (T = u/log(Σ_j e^{w_j/T} ...), SymPy's answer when T is
                # also inside a sum) is none: s would be read before it has a value
                if isinstance(sol, list) and len(sol) == 1 and s not in sp.sympify(sol[0]).free_symbols:
                    target = (s, sol[0])
                    break
        if target is None:
            filters.append(eq)
            continue
        s, v = target
        derived = [(t, w.xreplace({s: v})) for t, w in derived] + [(s, v)]
    return derived, filters


def _universal_indices(rels, dropped):
    """(rels, dropped, {k': (lo, hi)}): each integer symbol k, not declared negative or non-positive, that some
    relation defines a value at (f[k] = k²), and every relation holding it either defines a value
    at or holds only inside subscripts and arguments (a(k) >= 0), is renamed in its definitions
    (the others keep k: drawn, or a sum's index) to a symbol k' of their own, which ranges over
    every index of the tables that its reads stay within (1 - min shift … INT_MAX + 1 - max
    shift: x[k + 1] reads up to k' = INT_MAX). The kernel reads such a hypothesis for every value
    of k its assumptions allow; held at one drawn k only, a definition f[k] = k² left f[1] free, a
    false counterexample to f[1] + f[2] = 5, and so did f[k + 1] = (k + 1)² in the goal. An
    integer with parity or primality assumptions stays drawn (a range has every value)."""
    from attnbounds.theory.proof import FACTS

    every = rels + dropped
    syms = set().union(*(sp.Tuple(*_sides_of(r)).free_symbols for r in every)) if every else set()
    ranges: dict = {}
    for k in _ordered(syms):
        # an integer without a sign is read at every integer, the tables' 1 … INT_MAX + 1 among them
        # (review 3 of the refuter: a(i) = 2 held on the first sum's range only); one that may
        # only be negative or zero says nothing of those
        if not (isinstance(k, sp.Symbol) and k.is_integer and not (k.is_negative or k.is_nonpositive)) or any(
                getattr(k, f"is_{fact}") for fact in ("even", "odd", "prime", "composite")):
            continue
        where = [r for r in every if k in sp.Tuple(*_sides_of(r)).free_symbols]
        if any(isinstance(r, FACTS) for r in where) or not any(_defines_at(r, k) for r in where) or not all(
                _defines_at(r, k) or all(_only_subscript(e, k) for e in _sides_of(r)) for r in where):
            continue
        where = [r for r in where if _defines_at(r, k)]  # the definitions: the others keep k as it is
        shifts = set()
        for r in where:
            for e in _sides_of(r):
                for x in sp.sympify(e).atoms(sp.Indexed, AppliedUndef):
                    for a in (x.indices if isinstance(x, sp.Indexed) else x.args):
                        if k in sp.sympify(a).free_symbols:
                            shifts.add(sp.expand(a - k))
        if not all(c.is_Integer for c in shifts):  # x[2k]: not a range of indices
            continue
        lo = 1 - min([int(c) for c in shifts] + [0])
        hi = INT_MAX + 1 - max([int(c) for c in shifts] + [0])
        if lo > hi:
            continue
        fresh = sp.Dummy(k.name, **k.assumptions0)
        rels = [r.xreplace({k: fresh}) if r in where else r for r in rels]
        dropped = [r.xreplace({k: fresh}) if r in where else r for r in dropped]
        every = rels + dropped
        ranges[fresh] = (sp.Integer(lo), sp.Integer(hi))
    return rels, dropped, ranges


def _defines_at(r, k) -> bool:
    """Whether ``r`` is a definition f[k] = e(k) (or f(k) = e(k)) of a value at the index k."""
    if not isinstance(r, sp.Eq):
        return False
    return any((isinstance(side, sp.Indexed) and side.indices == (k,)) or
               (isinstance(side, AppliedUndef) and side.args == (k,)) for side in (r.lhs, r.rhs))


def _only_subscript(e, k) -> bool:
    """Whether ``k`` is free in ``e`` only inside a subscript x[..k..] or an argument f(..k..)."""
    e = sp.sympify(e)
    hold = sp.Dummy()
    stripped = e.replace(lambda x: isinstance(x, (sp.Indexed, AppliedUndef)) and k in x.free_symbols, lambda x: hold)
    return k not in stripped.free_symbols


def _defines_a_value(eq) -> bool:
    """Whether ``eq`` is f(i) = expr or x[i] = expr with f (x) not in expr: a definition of a
    value, made to hold in the table it is read from (:func:`_assign`)."""
    for side, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        if isinstance(side, sp.Indexed) and len(side.indices) == 1 and side.base not in other.atoms(sp.IndexedBase):
            return True
        if isinstance(side, AppliedUndef) and len(side.args) == 1 and not other.has(side.func):
            return True
    return False


def _norm_rescales(filters):
    """``Eq(Norm(v), c)`` with a vector symbol v: rescale v after sampling."""
    from attnbounds.theory.proof import Norm

    out, rest = [], []
    for eq in filters:
        for a, b in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
            if isinstance(a, Norm) and isinstance(a.args[0], sp.Symbol) and not a.args[0].is_commutative:
                out.append((a.args[0], b))
                break
        else:
            rest.append(eq)
    return out, rest


def refute(lhs, relation: str, rhs, ctx, *, drop: str | None = None, seed: int | Sequence[int] = 0,
           batches: int = 24, batch: int = 400) -> Refutation:
    """Search an assignment of the symbols of ``lhs <relation> rhs`` that satisfies the
    hypotheses of ``ctx`` (all but ``drop``) and violates the goal.

    ``seed`` is a non-negative integer or a sequence of them (the entropy of numpy's
    ``SeedSequence``; the mutants pass the run seed and a stable hash of the mutant's id).
    The same seed gives the same search in every process: the symbols are drawn in an order
    that does not depend on Python's salted ``hash()``.

    Raises :class:`NoNumericForm` when a part of the statement cannot be evaluated.
    ``dropped_violated`` says whether the dropped hypothesis fails at the counterexample
    (it must: otherwise the original statement is false, a conflict the caller reports);
    None where it reads a value the search did not draw (whether it holds is not known).
    """
    from attnbounds.theory.proof import FACTS

    if relation not in ("<=", ">=", "==", "="):
        raise ValueError(f"relation: must be <=, >= or ==, got {relation!r}")
    rel = "==" if relation == "=" else relation
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    rels = _relations(ctx, drop)
    lhs, rhs, rels = _name_function_values(lhs, rhs, rels)
    dropped = []
    if drop is not None and drop in ctx.hypotheses:
        dropped = _relations(type(ctx)({drop: ctx.hypotheses[drop]}), None)
    # a definition of a value at an integer k (f[k] = k², every other hypothesis holding k only as
    # a subscript) is read for every value, as the kernel reads a definition (`index-identity`'s
    # defs): the definitions take a symbol of their own that ranges over the tables' indices like a
    # summation index, whatever the goal does with k
    rels, dropped, universal = _universal_indices(rels, dropped)
    eqs = [r for r in rels if isinstance(r, sp.Eq)]
    ineqs = [r for r in rels if not isinstance(r, sp.Eq)]
    exprs = [lhs, rhs] + [a for r in rels + dropped for a in _sides_of(r)]
    syms, heads, idx = _atoms(exprs)
    # a symbol free in the goal is one value (a term chain's step about term i, given
    # 1 <= i <= n), even where a sum elsewhere uses it as its index: it is drawn
    idx -= lhs.free_symbols | rhs.free_symbols
    idx |= set(universal)
    arity = {f.base: len(f.indices) for e in exprs for f in e.atoms(sp.Indexed)}
    random, indicators = _random_heads(exprs, rels + dropped)
    heads -= random
    ineqs = [r for r in ineqs if not isinstance(r, FACTS)] + [r for r in ineqs if isinstance(r, FACTS)]
    derived, filters = _solve_equations(eqs, syms, idx)
    rescale, filters = _norm_rescales(filters)
    derived_syms = {s for s, _ in derived}
    ints = _ordered(s for s in syms if s.is_integer and s not in idx and s not in derived_syms)
    free = _ordered(s for s in syms if s not in idx and s not in derived_syms and not s.is_integer)
    # the summation ranges of the goal (and of the hypotheses), for hypotheses with a free index
    from attnbounds.theory.proof import Cup

    ranges = {}
    for e in exprs:
        for s in sorted(e.atoms(sp.Sum, sp.Product, Cup), key=sp.default_sort_key):
            i, lo, hi = s.limits[0]
            ranges.setdefault(i, (lo, hi))
    ranges.update(universal)
    # (the solved equations too: x = 1/(L − 2) needs L != 2 as much as a filter does)
    int_rels = _integer_relations(ineqs + filters + [r for r in eqs if r not in filters], ints)
    int_prefs = _integer_preferences(eqs, ints)
    rng = np.random.default_rng(seed)
    tried, best, first_bad = 0, None, None
    for b in range(batches):
        env = _Env(batch)
        # two batches in three prefer integers at which no equation loses a value's coefficient; the
        # first batch never does (a search of one or two batches, --quick's, still draws them as before)
        env.ints.update(_draw_ints(rng, ints, int_rels, int_prefs if b % 3 else ()))
        # the steps below bind summation indices in env.ints (and may pop them again): a free
        # integer symbol that is also an index somewhere (i in P(D(i) <= r) given i <= N) gets
        # its own value back after them
        sampled_ints = {s_: env.ints[s_] for s_ in ints}
        common = rng.standard_normal(DIM)
        common /= np.linalg.norm(common)
        for s in free:
            if s.is_commutative and s.is_extended_real is False:  # z imaginary: no real value is one of its
                raise NoNumericForm(f"{s} is not real")
            env.values[s] = _vector(rng, batch, common) if not s.is_commutative else _scalar(rng, batch, s)
        # index functions carry no assumptions; the first half of the batches keeps their
        # values non-negative (weights, distances), so that a counterexample found there
        # lies in the setting the chains speak of; the second half lets them take any sign
        nonneg = sp.Dummy(nonnegative=True) if b < batches // 2 else None
        for h in _ordered(heads):  # a function's own assumptions (e.g. sigma2 positive) come first
            if (h.label.is_commutative is False if isinstance(h, sp.IndexedBase) else _is_vector_head(h)):  # indexed vectors
                env.values[h] = np.stack([_vector(rng, batch, common) for _ in range(INT_MAX + 2)], axis=1)
                continue
            kind = _head_kind(h)
            if arity.get(h, 1) > 1:  # a scalar with several subscripts: one axis per subscript
                shape = (batch,) + (INT_MAX + 2,) * arity[h]
                env.values[h] = _scalar(rng, int(np.prod(shape)), kind if kind is not None else nonneg).reshape(shape)
                continue
            env.values[h] = _scalar(rng, batch * (INT_MAX + 2), kind if kind is not None else nonneg).reshape(batch, INT_MAX + 2)
        if random:  # random variables on a finite probability space of ATOMS atoms
            env.prob = rng.dirichlet(np.ones(ATOMS), size=batch)
            for h in _ordered(random):
                shape = (batch, INT_MAX + 2, ATOMS)
                if _is_vector_head(h):  # a random vector: Gaussian values at each atom
                    env.random[h] = rng.standard_normal(shape + (DIM,)) * np.exp(rng.uniform(-2, 2, (batch, 1, 1, 1)))
                    continue
                kind = _head_kind(h)  # a random variable's own sign assumptions hold at every atom
                env.random[h] = (rng.integers(0, 2, size=shape).astype(float) if h in indicators
                                 else _scalar(rng, batch * (INT_MAX + 2) * ATOMS, kind if kind is not None else nonneg).reshape(shape))
        # tight mode (two batches in three): an inequality between a sampled atom (a scalar
        # symbol or an index function's value) and an expression puts the atom on its bound
        # or strictly inside; the hypotheses are checked afterwards all the same
        if b % 3:  # each hypothesis is tightened in some of these batches, not all at once
            chosen = [r for r in ineqs if rng.uniform() >= 0.3]
            widened = set()
            for r in chosen:  # the facts come last (ineqs puts them there)
                if not isinstance(r, FACTS):
                    _tighten(r, env, rng, free, heads, ranges)
                elif _widen(r, env, ranges):
                    widened.add(r.f.func)
            # a fact's widening changed its variable's values: a hypothesis that reads that
            # variable (r <= E[D(i)]) is tightened again, on the values it now has
            for r in chosen:
                if not isinstance(r, FACTS) and widened & set(_random_heads_in(r, env)):
                    _tighten(r, env, rng, free, heads, ranges)
        # P(A(i)) = p for an indicator event A(i): the law is reweighted first, as the means below depend on it
        rest = [r for r in filters if not _fix_probability(r, env, rng, ranges)]
        # the solved symbols first, as far as they can be (expr may read one: Σ_i α_i = 1 − α_N,
        # α_N = Σ_t β_t); they are placed again below, and every equation is checked at the end
        _place(derived, rescale, env, common, tolerant=True)
        rest = [r for r in rest if not _normalize_sum(r, env, heads)]  # Σ_t w[t] = expr: rescale w
        # the solved symbols and rescaled vectors before the equations that read them (D(i) = |a(i) c − e|)
        _place(derived, rescale, env, common, tolerant=True)
        for r in rest:  # an equation per index, f(i) = expr: assign f at every index
            if not (_center(r, env, ranges) or _assign_given(r, env, ranges)):  # E[X(i)] = expr: shift X(i)
                _assign(r, env, heads, ranges)
        env.ints.clear()  # no summation index may stay bound from the steps above
        env.ints.update(sampled_ints)
        env.atom = None
        try:
            _place(derived, rescale, env, common)
            ok = np.ones(batch, dtype=bool)
            # a rescaled vector may be one a solved symbol depends on (c = 2e with |e| = 1):
            # every solved equation and every rescaling must still hold at the final values
            for s, v in derived:
                ok &= _close(env.values[s], _eval(v, env))
            # and every equation solved for them, as written: SymPy's solutions may be spurious
            # (sqrt(a) = 2b solved as a = 4b², which also holds at b < 0)
            for r in eqs:
                if r not in filters:
                    ok &= _holds(r, env, ranges)
            for s, v in rescale:
                ok &= _close(np.linalg.norm(env.values[s], axis=-1), _eval(v, env))
            # every scalar, solved or drawn, and every index function's value must still respect
            # its assumptions after the values were placed (a tightened r <= S with r positive
            # must not take r < 0; an assigned f(i) = expr or a shifted E[X(i)] = expr must not
            # take a non-negative f or X below 0)
            for s_ in _ordered(set(free) | derived_syms):
                if s_.is_commutative and np.ndim(env.values.get(s_)) == 1:
                    ok &= _respects(s_, env.values[s_])
            for h in _ordered(heads | random):
                kind = _head_kind(h)
                table = env.random.get(h) if h in random else env.values.get(h)
                if kind is not None and table is not None and not _is_vector_head(h) and \
                        not (isinstance(h, sp.IndexedBase) and h.label.is_commutative is False):
                    ok &= _respects(kind, table)
            for r in ineqs + filters:
                ok &= _holds(r, env, ranges)
            for s, v in rescale:
                ok &= _eval(v, env) >= 0
            lv, rv, broken, judged = _goal(lhs, rel, rhs, env)
        except (NoNumericForm, ZeroDivisionError) as exc:
            raise NoNumericForm(str(exc)) from None
        tried += int((ok & judged).sum())  # a draw whose goal has no value (a(0) out of the table) judged nothing
        bad = ok & broken
        if bad.any():
            # the smallest counterexample of this batch (the largest scalar magnitude is least)
            size = np.zeros(batch)
            for sym in free:
                if sym.is_commutative:
                    size = np.maximum(size, np.abs(np.nan_to_num(env.values[sym], nan=np.inf)))
            for h in heads:
                if env.values[h].ndim == 2:
                    size = np.maximum(size, np.abs(env.values[h][:, 1:]).max(axis=-1))
                elif arity.get(h, 1) > 1:
                    size = np.maximum(size, np.abs(env.values[h][:, 1:]).reshape(batch, -1).max(axis=-1))
            k = int(np.flatnonzero(bad)[np.argmin(size[bad])])
            found = (_snapshot(env, k, heads, dropped, ranges, lv, rv), float(size[k]))
            if best is None or found[1] < best[1]:
                best = found
        if best is not None and first_bad is None:
            first_bad = b
        if best is not None and b >= first_bad + EXTRA_BATCHES:
            break
    if best is not None:
        assignment, lhs_v, rhs_v, viol = best[0]
        return Refutation(assignment, lhs_v, rhs_v, tried, viol)
    return Refutation(None, tried=tried)


#: Tries per batch to draw the integer symbols so that the hypotheses about them alone hold.
INT_TRIES = 64


def _integer_relations(rels, ints) -> list:
    """What the drawn integers ``ints`` alone decide, before anything else is drawn: the
    hypotheses about them only (N <= L, i <= L - N), and what any hypothesis needs of them to
    be met at all: a divisor in them alone is not 0 (… V[i]/((L − 2)(L − 1)) is undefined at
    L = 2), and a probability equal to an expression in them alone lies in [0, 1]
    (P(not in S) = (L − N)/L needs N <= L)."""
    from attnbounds.theory.proof import Prob

    pool = set(ints)

    def alone(e) -> bool:
        return bool(e.free_symbols) and e.free_symbols <= pool and not e.atoms(sp.Indexed, AppliedUndef, sp.Sum, sp.Product)

    out = []
    for r in rels:
        if not isinstance(r, sp.Basic):
            continue
        if alone(r):
            out.append(r)
            continue
        out += [sp.Ne(p.base, 0) for p in r.atoms(sp.Pow) if p.exp.is_negative and alone(p.base)]
        if isinstance(r, sp.Eq):
            for side, other in ((r.lhs, r.rhs), (r.rhs, r.lhs)):
                if isinstance(side, Prob) and alone(other):
                    out += [sp.Le(0, other), sp.Le(other, 1)]
    return out


def _integer_preferences(eqs, ints) -> list:
    """Relations the integers ``ints`` had better meet, though a hypothesis does not need them:
    the coefficient, an expression in the integers alone, of a drawn value that an equation is
    linear in is not 0. At N = L − 1 the definition E[‖s − E s‖²] = N(L − N − 1)V[i]/((L − 2)(L − 1))
    loses V[i] and asks the mean itself to be 0, which the draws almost never meet: T1ii's steps
    judged nothing in every batch that drew it, and at some seeds in all six."""
    pool = set(ints)
    out = []
    for r in eqs:
        if not isinstance(r, sp.Eq):
            continue
        e = r.lhs - r.rhs
        for atom in sorted(e.atoms(sp.Indexed, AppliedUndef), key=sp.default_sort_key):
            try:
                c = sp.diff(e, atom)
            except Exception:  # noqa: BLE001 - SymPy cannot differentiate every node (an event's Not)
                continue
            if (c.free_symbols and c.free_symbols <= pool and not c.atoms(sp.Indexed, AppliedUndef, sp.Sum, sp.Product)
                    and not sp.diff(c, atom).free_symbols & {atom}):
                rel = sp.Ne(c, 0)
                if isinstance(rel, sp.Ne) and rel not in out:
                    out.append(rel)
    return out


def _draw_ints(rng, ints, rels, prefer=()) -> dict:
    """One value in 1 … INT_MAX for each integer symbol of a batch (one value per batch): the
    first of ``INT_TRIES`` draws that meets every hypothesis about the integers alone (and the
    relations in ``prefer``, where a draw does: else the first that meets the hypotheses), or
    the last draw when none does (the batch's draws then fail those hypotheses and judge
    nothing). With three integers and i <= L - N, N <= L, a uniform draw met both one time in
    six, and a search of six batches often had no batch that did."""
    got, first = {}, None
    for _ in range(INT_TRIES):
        got = {s: int(rng.integers(*_int_span(s))) for s in ints}
        if all(_int_meets(s, v) for s, v in got.items()) and all(_int_holds(r, got) for r in rels):
            if all(_int_holds(r, got) for r in prefer):
                return got
            first = got if first is None else first
    return got if first is None else first


def _int_span(s) -> tuple[int, int]:
    """The values an integer symbol is drawn from, as numpy's (low, high): 1 … INT_MAX
    (positive), 0 … INT_MAX (nonnegative), −INT_MAX … −1 (negative), −INT_MAX … 0
    (nonpositive), 0 (zero), and −2 … INT_MAX for an integer with no sign (review 3 of the
    refuter: n >= 1 for a nonnegative n, or m >= 1 for any m, was never refuted)."""
    if s.is_zero:
        return 0, 1
    if s.is_extended_negative:
        return -INT_MAX, 0
    if s.is_extended_nonpositive:
        return -INT_MAX, 1
    if s.is_extended_positive:
        return 1, INT_MAX + 1
    if s.is_extended_nonnegative:
        return 0, INT_MAX + 1
    return -2, INT_MAX + 1


def _int_meets(s, v: int) -> bool:
    """Whether the integer v has the assumptions of symbol ``s`` that its span does not give:
    even, odd, prime, composite, nonzero (a draw without them is not one the statement speaks of)."""
    from sympy import isprime

    checks = (("even", v % 2 == 0), ("odd", v % 2 == 1), ("prime", v > 1 and isprime(v)),
              ("composite", v > 3 and not isprime(v)))
    return all(ok for fact, ok in checks if getattr(s, f"is_{fact}") is True) and (v != 0 or s.is_zero is not False)


def _int_holds(rel, values) -> bool:
    """Whether ``rel`` holds at the integers ``values`` (a relation SymPy cannot decide there, as
    1/(L − 2) <= 3 at L = 2, does not)."""
    try:
        v = rel.subs(values)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return v is sp.true or v == True  # noqa: E712 - a SymPy boolean


def _goal(lhs, rel, rhs, env):
    """The goal's two sides at each draw and where they break it. A goal about a random
    variable outside every Expect / Prob (D(i) >= 0, 1_{A and B} <= 1_A) states it almost
    surely: it breaks where it fails at an atom of positive probability (for conditioned
    variables, Cond(X, A), at an atom where A holds), and the sides are those at the first
    such atom."""
    if not (env.random and env.prob is not None and (_bare_random(lhs, env) or _bare_random(rhs, env))):
        lv, rv = _eval(lhs, env), _eval(rhs, env)
        return lv, rv, _violated(lv, rel, rv, _terms_scale(env, lhs, rhs)), _finite(lv) & _finite(rv)
    from attnbounds.theory.proof import Cond

    given = {c.args[1] for e in (lhs, rhs) for c in e.atoms(Cond)}
    if len(given) > 1:
        raise NoNumericForm("conditioned variables given different events")
    given = next(iter(given), None)
    lv, rv = np.full(env.n, np.nan), np.full(env.n, np.nan)
    broken = np.zeros(env.n, dtype=bool)
    judged = np.ones(env.n, dtype=bool)
    try:
        for a in range(env.prob.shape[1]):
            env.atom = a
            la, ra = _eval(lhs, env), _eval(rhs, env)
            if la.ndim != 1 or ra.ndim != 1:
                raise NoNumericForm("a vector goal about a random variable")
            here = _violated(la, rel, ra, _terms_scale(env, lhs, rhs)) & (env.prob[:, a] > 0)
            read = env.prob[:, a] > 0
            if given is not None:
                here &= _event_value(given, env) != 0
                read &= _event_value(given, env) != 0
            judged &= ~read | (_finite(la) & _finite(ra))
            first = here & ~broken
            lv, rv = np.where(first, la, lv), np.where(first, ra, rv)
            broken |= here
    finally:
        env.atom = None
    return lv, rv, broken, judged


def _finite(v) -> np.ndarray:
    """Per draw, whether a side's value is finite (a vector's every entry): a side out of its
    table (a(0), x[7]) is nan, and a draw where it is judges nothing."""
    v = np.asarray(v, dtype=float)
    with np.errstate(invalid="ignore"):
        f = np.isfinite(v)
    return f.reshape(f.shape[0], -1).all(axis=1) if f.ndim > 1 else f


def _undetermined(rel, env: _Env, indices) -> np.ndarray:
    """Where relation ``rel`` reads a value the search did not draw (nan: a value at an index
    nothing was drawn for), at some value of a free summation index: it neither holds nor fails
    there. A fact, or a side that cannot be evaluated here, counts as determined."""
    from attnbounds.theory.proof import FACTS

    out = np.zeros(env.n, dtype=bool)
    if isinstance(rel, FACTS):
        return out
    free = [i for i in indices if i in rel.free_symbols and i not in env.ints]
    if free:
        return _at_every_index(rel, env, indices, free[0], _undetermined, every=False)
    try:
        for side in (rel.lhs, rel.rhs):
            v = np.asarray(_eval(side, env), dtype=float)
            out |= np.isnan(v).reshape(env.n, -1).any(axis=1) if v.ndim else np.full(env.n, bool(np.isnan(v)))
    except (NoNumericForm, ValueError, TypeError, ZeroDivisionError, IndexError):
        return np.zeros(env.n, dtype=bool)
    return out


def _snapshot(env, k, heads, dropped, ranges, lv, rv):
    viol = None
    if dropped:
        # None where a dropped hypothesis reads a value the search did not draw: whether it holds
        # there is not known (it was counted as failing, so a counterexample to the statement
        # itself could not be reported as a conflict)
        fails = [not bool(_holds(r, env, ranges)[k]) for r in dropped]
        unknown = [bool(_undetermined(r, env, ranges)[k]) for r in dropped]
        viol = True if any(f and not u for f, u in zip(fails, unknown)) else None if any(unknown) else False
    assignment = {str(s): float(v) for s, v in env.ints.items()}
    for s, v in env.values.items():
        if s in heads:  # an index function: its values at 1, 2, ...
            assignment[f"{s}(1..)"] = v[k, 1:].tolist()
        else:
            assignment[str(s)] = v[k].tolist() if np.ndim(v[k]) else float(v[k])
    for s, v in env.random.items():  # a random variable: its value at each atom, per index
        assignment[f"{s}(1..)[atoms]"] = v[k, 1:].tolist()
    if env.prob is not None:
        assignment["P(atoms)"] = env.prob[k].tolist()
    return assignment, float(lv[k]), float(rv[k]), viol


def _index_range(i, env, ranges):
    lo, hi = (int(round(float(_eval(t, env)[0]))) for t in ranges[i])
    return range(max(lo, 1), min(hi, INT_MAX + 1) + 1)


def _assigned_at(i, env, ranges):
    """The values of the index i at which an equation about f(i) is made to hold: the one drawn
    for a free integer i (a term chain's step about term i, given i <= L), else every value of
    its summation range; None when it has neither."""
    if i in env.ints:
        return [env.ints[i]]
    if isinstance(i, sp.Integer):  # a literal index, a(1) = 5: its table's column, when there is one
        return [int(i)] if 0 <= int(i) <= INT_MAX + 1 else None
    return list(_index_range(i, env, ranges)) if i in ranges else None


def _at_each(i, ks, env, put) -> None:
    """``put(k)`` with env.ints[i] = k for each k in ``ks``; afterwards env.ints[i] is as it was.
    A value that cannot be computed stops it: the equation stays unmet, and the hypotheses are
    checked afterwards all the same."""
    saved = env.ints.get(i)
    try:
        for k in ks:
            env.ints[i] = k
            put(k)
    except (NoNumericForm, ValueError, ZeroDivisionError, IndexError):
        pass
    finally:
        if saved is None:
            env.ints.pop(i, None)
        else:
            env.ints[i] = saved


def _assign(eq, env, heads, ranges):
    """Make an equation ``f(i) = expr`` (or ``x[i] = expr``) hold at every index of its range."""
    for atom, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        if isinstance(atom, AppliedUndef):
            head, args = atom.func, atom.args
        elif isinstance(atom, sp.Indexed):
            head, args = atom.base, atom.indices
        else:
            continue
        if head not in heads or len(args) != 1 or atom in other.atoms(type(atom)):
            continue
        i = args[0]
        ks = _assigned_at(i, env, ranges)
        if ks is None:
            continue

        def put(k, head=head, other=other):
            env.values[head][:, k] = _eval(other, env)

        _at_each(i, ks, env, put)
        return
    # otherwise an equation linear in one head's value, e.g. E[...] = c V[i]: solve for it
    diff = eq.lhs - eq.rhs
    for atom in sorted(diff.atoms(AppliedUndef, sp.Indexed), key=sp.default_sort_key):
        head, args = (atom.func, atom.args) if isinstance(atom, AppliedUndef) else (atom.base, atom.indices)
        if head not in heads or len(args) != 1 or atom.is_commutative is False:
            continue
        ks = _assigned_at(args[0], env, ranges)
        if ks is None:
            continue
        try:
            sol = sp.solve(diff, atom, dict=False)
        except (NotImplementedError, TypeError, ValueError, AttributeError):
            continue
        if not (isinstance(sol, list) and len(sol) == 1) or sol[0].has(atom):
            continue
        def put(k, head=head, value=sol[0]):
            env.values[head][:, k] = _eval(value, env)

        _at_each(args[0], ks, env, put)
        return


def _place(derived, rescale, env, common, tolerant: bool = False) -> None:
    """Set the solved symbols (c = Σ_t w_t y_t), then rescale the vectors of ``Eq(Norm(v), c)``
    (|e| = 1), then the solved symbols again (one may depend on a rescaled vector: c = 2e).
    ``tolerant``: a value that cannot be computed yet is left as it is."""
    for stage in (derived, rescale, derived):
        for s, v in stage:
            try:
                value = _eval(v, env)
            except (NoNumericForm, ZeroDivisionError):
                if tolerant:
                    continue
                raise
            if stage is rescale:
                cur = np.linalg.norm(env.values[s], axis=-1)
                unit = np.where(cur[:, None] > 0, env.values[s] / np.where(cur > 0, cur, 1)[:, None], common)
                value = unit * value[:, None]
            env.values[s] = value


def _close(a, b) -> np.ndarray:
    """Per batch element, whether two values (scalars (n,) or vectors (n, DIM)) agree to rounding."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(all="ignore"):
        same = np.isclose(a, b, rtol=1e-9, atol=1e-12)
    return same.reshape(same.shape[0], -1).all(axis=1) if same.ndim > 1 else same


def _normalize_sum(eq, env, heads) -> bool:
    """Make ``Σ_{t=lo}^{hi} f(t) = expr`` hold by rescaling the sampled values f(lo..hi) of an
    index head f (a function or an indexed base) by expr / (their sum), where both are
    non-negative (weights); True when ``eq`` has that form."""
    if not isinstance(eq, sp.Eq):
        return False
    for side, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        if not (isinstance(side, sp.Sum) and len(side.limits) == 1):
            continue
        t, lo, hi = side.limits[0]
        f = side.function
        if isinstance(f, AppliedUndef) and f.args == (t,):
            head = f.func
        elif isinstance(f, sp.Indexed) and f.indices == (t,):
            head = f.base
        else:
            continue
        if head not in heads or head not in env.values or np.ndim(env.values[head]) != 2 or other.has(head):
            continue
        try:
            lo_v, hi_v = (int(round(float(_eval(b, env)[0]))) for b in (lo, hi))
            target = _eval(other, env)
        except (NoNumericForm, ZeroDivisionError):
            return False
        table = env.values[head]
        cols = list(range(max(lo_v, 1), min(hi_v, table.shape[1] - 1) + 1))
        if not cols:
            return False
        total = table[:, cols].sum(axis=1)
        good = (total > 0) & (target >= 0) & np.all(table[:, cols] >= 0, axis=1)
        with np.errstate(all="ignore"):
            table[:, cols] *= np.where(good, target / np.where(total > 0, total, 1.0), 1.0)[:, None]
        return True
    return False


def _is_vector_head(h) -> bool:
    try:
        return h(sp.Symbol("k", integer=True)).is_commutative is False
    except TypeError:
        return False


def _fix_probability(eq, env, rng, ranges) -> bool:
    """Make an equation ``P(A(i)) = p`` hold, for an event built from one indicator function
    f(i) and a p in (0, 1) that is the same at every index: f(i) is put on one random set of
    atoms for every i (at least one atom in, one out), and the atoms' probabilities are
    reweighted inside and outside A so that P(A) = p; True when ``eq`` has that form."""
    from attnbounds.theory.proof import Prob

    for side, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        if not isinstance(side, Prob):
            continue
        heads = _event_heads(side.args[0])
        fs = side.args[0].atoms(AppliedUndef)
        if len(heads) != 1 or len(fs) != 1:
            continue
        f = next(iter(fs))
        if f.func not in env.random or len(f.args) != 1:
            continue
        i = f.args[0]
        ks = _assigned_at(i, env, ranges)  # a sampled integer, a literal (A(1)) or every index of a sum
        if ks is None:
            continue
        fixed = i in env.ints
        try:
            targets = []
            for k in ks:
                env.ints[i] = k
                targets.append(_eval(other, env))
        except (NoNumericForm, ValueError):
            return True  # the equation stays unmet; the hypotheses are checked afterwards
        finally:
            if not fixed:
                env.ints.pop(i, None)
        if not targets:
            return True
        n, atoms = env.prob.shape
        p = np.broadcast_to(np.asarray(targets[0], dtype=float), (n,))
        # world by world: where p lies in (0, 1) and is the same at every index (elsewhere the
        # equation stays unmet, and the hypotheses, checked afterwards, reject the world)
        ok = (p > 0) & (p < 1)
        for t in targets[1:]:
            ok &= np.broadcast_to(np.asarray(t, dtype=float), (n,)) == p
        if not ok.any():
            return True
        mask = rng.integers(0, 2, size=(n, atoms)).astype(float)
        mask[:, 0], mask[:, 1] = 1.0, 0.0
        env.random[f.func][:] = mask[:, None, :]
        env.ints[i] = ks[0]  # f(i) is the same set at every i
        saved = env.atom
        inside = np.empty((n, atoms))
        for a in range(atoms):
            env.atom = a
            inside[:, a] = _event_value(side.args[0], env)
        env.atom = saved
        if not fixed:
            env.ints.pop(i, None)
        q = env.prob
        pin = (q * inside).sum(axis=1)
        pp = np.where(ok, p, pin)  # a world left as it was keeps its law (the ratios are 1)
        env.prob = np.where(inside > 0, q * (pp / pin)[:, None], q * ((1 - pp) / (1 - pin))[:, None])
        return True
    return False


def _assign_given(eq, env, ranges) -> bool:
    """Make an equation ``Cond(X(i), A) = expr`` (X random, expr not) hold: X(i) is put on
    expr at every atom, so in particular given A; True when ``eq`` has that form."""
    from attnbounds.theory.proof import Cond

    for side, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        if not (isinstance(side, Cond) and isinstance(side.args[0], AppliedUndef)):
            continue
        f = side.args[0]
        if f.func not in env.random or len(f.args) != 1 or _bare_random(other, env):
            continue
        i, table = f.args[0], env.random[f.func]
        ks = _assigned_at(i, env, ranges)
        if ks is None:
            continue

        def put(k, table=table, other=other):
            v = _eval(other, env)
            table[:, k] = v[:, None, :] if table.ndim == 4 else v[:, None]

        _at_each(i, ks, env, put)
        return True
    return False


def _center(eq, env, ranges) -> bool:
    """Make an equation ``E[X(i)] = expr`` (X random, scalar or vector) hold at every index of
    its range by shifting X(i)'s values at every atom; True when ``eq`` has that form. For a
    conditional expectation ``E[Cond(X(i), A)]`` the shift makes the mean given A right."""
    from attnbounds.theory.proof import Cond, Expect

    for side, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        given = None
        if isinstance(side, Expect) and isinstance(side.args[0], Cond) and isinstance(side.args[0].args[0], AppliedUndef):
            atom, given = side.args[0].args
        elif isinstance(side, Expect) and isinstance(side.args[0], AppliedUndef):
            atom = side.args[0]
        else:
            continue
        if atom.func not in env.random or len(atom.args) != 1:
            continue
        i = atom.args[0]
        table = env.random[atom.func]
        ks = _assigned_at(i, env, ranges)
        if ks is None:
            continue
        def put(k, table=table, other=other, given=given):
            target = _eval(other, env)
            vals = table[:, k]  # (n, ATOMS) or (n, ATOMS, DIM)
            w = env.prob
            if given is not None:  # the mean given A: atoms weighted by P and A's indicator
                w = w * np.stack([_event_at(given, env, a) for a in range(w.shape[1])], axis=1)
                with np.errstate(all="ignore"):
                    w = w / w.sum(axis=1, keepdims=True)
            w = w if vals.ndim == 2 else w[:, :, None]
            shift = target - (w * vals).sum(axis=1)
            table[:, k] = vals + (shift[:, None] if vals.ndim == 2 else shift[:, None, :])

        _at_each(i, ks, env, put)
        return True
    return False


def _event_at(ev, env, atom) -> np.ndarray:
    saved, env.atom = env.atom, atom
    try:
        return _event_value(ev, env)
    finally:
        env.atom = saved


def _widen(bd, env, ranges):
    """Give the random variable of a fact the largest range it allows (the heaviest tails), at
    every index (at the drawn value of a free integer i): width √Σc² for bounded differences,
    [0, R√l2] for a weighted norm."""
    from attnbounds.theory.proof import WeightedNorm

    norm = isinstance(bd, WeightedNorm)
    f = bd.f
    if not (isinstance(f, AppliedUndef) and f.func in env.random and len(f.args) == 1):
        return False
    i = f.args[0]
    idx = [int(i)] if i.is_Integer else (_assigned_at(i, env, ranges) or [])

    def put(k):
        if norm:
            _meet_weights(bd, env)
            c = np.maximum(_eval(bd.radius, env), 0.0) * np.sqrt(np.maximum(_eval(bd.l2, env), 0.0))
        else:
            c = np.sqrt(np.maximum(_eval(bd.sum_c2, env), 0.0))
        v = env.random[f.func][:, k, :]
        lo, width = v.min(axis=-1, keepdims=True), np.ptp(v, axis=-1, keepdims=True)
        base = 0.0 if norm else lo  # a norm's range starts at 0
        env.random[f.func][:, k, :] = base + np.where(width > 0, (v - lo) / np.where(width > 0, width, 1), 0.0) * c[:, None]

    _at_each(i, idx, env, put)
    return True


def _meet_weights(bd, env) -> None:
    """A weighted norm's condition on its weights, l1 >= sqrt(l2) >= 0, made to hold where
    l2 (else l1) is a sampled value (:func:`_variable_slot`): l2 moved into [0, l1^2] (onto l1^2
    when above it), or l1 raised to sqrt(l2). The facts are checked afterwards all the same."""
    with np.errstate(invalid="ignore"):
        for side in (bd.l2, bd.l1):
            try:
                get, put = _variable_slot(side, env)
            except (NoNumericForm, TypeError, ValueError):
                continue
            if side is bd.l2:
                put(np.clip(get(), 0.0, np.maximum(_eval(bd.l1, env), 0.0) ** 2))
            else:
                put(np.maximum(get(), np.sqrt(np.maximum(_eval(bd.l2, env), 0.0))))
            return


def _head_kind(h):
    """A symbol that carries the sign assumptions of index function (or indexed base) ``h``,
    or None when it has none."""
    try:
        probe = h(sp.Symbol("k", integer=True)) if not isinstance(h, sp.IndexedBase) else h[sp.Symbol("k", integer=True)]
    except TypeError:
        return None
    kind = {}
    for sign in ("positive", "nonnegative", "negative", "nonpositive", "nonzero"):
        if getattr(probe, f"is_extended_{sign}" if sign != "nonzero" else "is_nonzero"):
            kind[sign] = True
            break
    if probe.is_integer:
        kind["integer"] = True
    for fact in ("even", "odd", "prime", "composite"):  # review 3 of the refuter: they were dropped
        if getattr(probe, f"is_{fact}"):
            kind[fact] = True
    return sp.Dummy(**kind) if kind else None


def _tighten(r, env, rng, free, heads, ranges):
    from attnbounds.theory.proof import Norm

    for atom, other in ((r.lhs, r.rhs), (r.rhs, r.lhs)):
        below = (atom is r.lhs) == isinstance(r, (sp.Le, sp.Lt))  # the hypothesis says atom <= other
        if below and isinstance(atom, Norm) and _indexed_vector(atom.args[0], env, ranges):
            _tighten_norm(atom.args[0], other, env, rng, ranges)
            return
        if isinstance(atom, sp.Symbol) and atom in free and atom.is_commutative:
            cols = [None]
        elif (isinstance(atom, AppliedUndef) and atom.func in heads and len(atom.args) == 1
              and atom.args[0] in env.ints and np.ndim(env.values.get(atom.func)) == 2):
            cols = "drawn"  # a(i) at the integer drawn for i (a free i may also index a sum elsewhere)
        elif isinstance(atom, AppliedUndef) and atom.func in heads and len(atom.args) == 1 and atom.args[0] in ranges:
            cols = "index"
        elif (isinstance(atom, sp.Indexed) and atom.base in heads and atom.base.label.is_commutative is not False
              and len(set(atom.indices)) == len(atom.indices) and all(k in ranges for k in atom.indices)):
            _tighten_indexed(atom, other, below, env, rng, ranges)
            return
        else:
            continue
        try:
            if cols == "index":
                i = atom.args[0]
                lo, hi = (int(round(float(_eval(t, env)[0]))) for t in ranges[i])
                table = env.values[atom.func]
                kind = _head_kind(atom.func)
                for k in range(max(lo, 1), min(hi, table.shape[1] - 1) + 1):
                    env.ints[i] = k  # on other's bound over the indices it has free (a(i) <= alpha_N w[t] at every t)
                    _place_within(table, (slice(None), k), _extreme(other, below, env, ranges), below, rng, kind)
            elif cols == "drawn":
                table = env.values[atom.func]
                k = env.ints[atom.args[0]]
                if 0 <= k < table.shape[1]:
                    _place_within(table, (slice(None), k), _extreme(other, below, env, ranges), below, rng,
                                  _head_kind(atom.func))
            else:
                _place_within(env.values, atom, _extreme(other, below, env, ranges), below, rng, atom)
        except NoNumericForm:
            pass
        finally:
            if cols == "index":
                env.ints.pop(atom.args[0], None)
        return


def _place_within(table, where, bound, below, rng, kind) -> None:
    """``table[where]`` put on ``bound`` or strictly inside (:func:`_near`), except where that
    value breaks the assumptions of ``kind`` (a symbol; None: none): a positive r is not put on
    a negative bound, it keeps its value there."""
    cur = table[where]
    got = _near(bound, below, rng, cur)
    table[where] = got if kind is None else np.where(_meets(kind, got), got, cur)


def _extreme(e, below, env, ranges):
    """``e``'s value; with free summation indices, its minimum (``below``: a symbol <= e at
    every index) or maximum over every combination of their values."""
    import itertools

    free = sorted((i for i in sp.sympify(e).free_symbols if i in ranges and i not in env.ints), key=str)
    if not free:
        return _eval(e, env)
    out = None
    try:
        for ks in itertools.product(*(_index_range(i, env, ranges) for i in free)):
            env.ints.update(zip(free, ks))
            v = _eval(e, env)
            out = v if out is None else (np.minimum(out, v) if below else np.maximum(out, v))
    finally:
        for i in free:
            env.ints.pop(i, None)
    if out is None:
        raise NoNumericForm(f"an empty index range in {e}")
    return out


def _indexed_vector(v, env, ranges) -> bool:
    """Whether ``v`` is a sampled indexed vector y[t] with t a summation index of the goal."""
    return (isinstance(v, sp.Indexed) and len(v.indices) == 1 and v.indices[0] in ranges
            and v.base in env.values and np.ndim(env.values[v.base]) == 3)


def _tighten_norm(v, other, env, rng, ranges):
    """Rescale an indexed vector y[t] so that ‖y[k]‖ lies on its bound ``other`` or strictly
    inside, at every k of t's range (for ``Norm(y[t]) <= other``); checked afterwards all the same."""
    table = env.values[v.base]
    (i,) = v.indices
    try:
        for k in _index_range(i, env, ranges):
            if k > table.shape[1] - 1:
                continue
            env.ints[i] = k
            norm = np.linalg.norm(table[:, k], axis=-1)
            target = np.maximum(_near(_eval(other, env), True, rng, norm), 0.0)
            with np.errstate(all="ignore"):
                table[:, k] *= np.where(norm > 0, target / norm, 0.0)[:, None]
    except NoNumericForm:
        pass
    finally:
        env.ints.pop(i, None)


def _multi_indexed(e, env):
    """The value of a scalar ``w[t, j]`` with several subscripts (a table with one axis each)."""
    table = env.values[e.base]
    ks = tuple(int(round(float(_eval(a, env)[0]))) for a in e.indices)
    if not all(1 <= k <= table.shape[1 + a] - 1 for a, k in enumerate(ks)):
        raise NoNumericForm(f"index {ks} of {e} out of range")
    return table[(slice(None),) + ks]


def _tighten_indexed(atom, other, below, env, rng, ranges):
    """Put an indexed scalar ``x[i]`` or ``w[t, j]`` on its bound ``other`` (or strictly
    inside) at every index of its subscripts' ranges; the hypothesis is checked afterwards."""
    import itertools

    table = env.values[atom.base]
    if table.ndim != 1 + len(atom.indices):
        return
    kind = _head_kind(atom.base)
    try:
        spans = [_index_range(i, env, ranges) for i in atom.indices]
        for ks in itertools.product(*spans):
            if any(k > table.shape[1] - 1 for k in ks):
                continue
            env.ints.update(zip(atom.indices, ks))
            _place_within(table, (slice(None),) + ks, _eval(other, env), below, rng, kind)
    except NoNumericForm:
        pass
    finally:
        for i in atom.indices:
            env.ints.pop(i, None)


def _near(bound, below, rng, current):
    n = bound.shape[0]
    slack = rng.uniform(0, 1, n) * (1 + np.abs(bound))
    inside = bound - slack if below else bound + slack
    pick = rng.uniform(size=n)
    return np.where(pick < 0.4, bound, np.where(pick < 0.8, inside, current))


# ----------------------------------------------------------------------------- matrices, extrema and
# the values of an undefined function (the general-L chains of Lemma 2)


def _int_value(e, env) -> int:
    return int(round(float(_eval(sp.sympify(e), env)[0])))


_ENTRY_CACHE: dict = {}


def _entry(M, r, c):
    key = (M, r, c)
    if key not in _ENTRY_CACHE:
        if len(_ENTRY_CACHE) > 20000:
            _ENTRY_CACHE.clear()
        _ENTRY_CACHE[key] = M.entry(r, c)
    return _ENTRY_CACHE[key]


def _eval_matrix_parts(e, env):
    """OpNorm of a Mat (the largest singular value of each batch row's matrix), MaxOver /
    MinOver, KroneckerDelta and Piecewise; None for anything else."""
    from attnbounds.theory.proof import Mat, MaxOver, MinOver, OpNorm

    if isinstance(e, OpNorm):
        M = e.args[0]
        if not isinstance(M, Mat):
            raise NoNumericForm("opnorm of a non-Mat")
        n = _int_value(M.size, env)
        if n < 1:
            raise NoNumericForm(f"a {n}x{n} matrix")
        A = np.empty((env.n, n, n))
        for r in range(1, n + 1):
            for c in range(1, n + 1):
                A[:, r - 1, c - 1] = _eval(_entry(M, sp.Integer(r), sp.Integer(c)), env)
        good = np.isfinite(A).all(axis=(1, 2))
        out = np.full(env.n, np.nan)
        if good.any():
            out[good] = np.linalg.norm(A[good], ord=2, axis=(1, 2))
        return out
    if isinstance(e, (MaxOver, MinOver)):
        n = _int_value(e.args[1], env)
        if n < 1:
            raise NoNumericForm(f"an extremum over {n} terms")
        vals = np.stack([_eval(e.term(sp.Integer(q)), env) for q in range(1, n + 1)])
        return vals.max(axis=0) if isinstance(e, MaxOver) else vals.min(axis=0)
    if isinstance(e, sp.KroneckerDelta):
        a, b = (_eval(x, env) for x in e.args)
        return (a == b).astype(float)
    if isinstance(e, sp.Piecewise):
        out = np.full(env.n, np.nan)
        done = np.zeros(env.n, dtype=bool)
        for expr, cond in e.args:
            if cond is sp.true:
                here = ~done
            else:
                here = ~done & _holds_here(cond, env) if isinstance(cond, sp.core.relational.Relational) else None
                if here is None:
                    raise NoNumericForm(f"Piecewise condition {cond}")
            out = np.where(here, _eval(expr, env), out)
            done |= here
        return out
    return None


def _name_function_values(lhs, rhs, rels):
    """Definitions ``f[k] = F(b[k])`` and ``fp[k] = Derivative(F(b[k]), b[k])`` of an undefined
    function F name its values and derivatives at the points b[k]: the statement and the other
    hypotheses are rewritten with f[x] and fp[x] in place of F(b[x]) and F'(b[x]) (derivatives
    evaluated first), and these definitions dropped. Sound because values and slopes at
    distinct points can be prescribed at will by a smooth F (positive where F is declared
    positive: then f must be declared positive too), and the points b[k] themselves must
    then appear nowhere else."""
    value, slope, keep, alias = {}, {}, [], {}
    # a definition at an index an equation fixes (k = 2) is about that k only: it names nothing
    # (read at every k, p[1] = G(b[1]) would hold where only p[2] = G(b[2]) is given); a range
    # 1 <= k <= L leaves it a definition at every k of the range
    pinned = {k for r in rels if isinstance(r, sp.Eq) for k in r.free_symbols
              if isinstance(k, sp.Symbol) and not all(_only_subscript(e, k) for e in _sides_of(r))}
    for r in rels:
        if (isinstance(r, sp.Eq) and isinstance(r.lhs, sp.Indexed) and len(r.lhs.indices) == 1
                and r.lhs.indices[0] not in pinned):
            k, v = r.lhs.indices[0], r.rhs
            if isinstance(v, AppliedUndef) and len(v.args) == 1 and isinstance(v.args[0], sp.Indexed) and v.args[0].indices == (k,):
                for fact in ("positive", "nonnegative", "negative", "nonpositive", "extended_positive",
                             "extended_nonnegative", "extended_negative", "extended_nonpositive", "nonzero",
                             "integer", "even", "odd", "prime"):
                    if getattr(v, f"is_{fact}") and not getattr(r.lhs, f"is_{fact}"):
                        raise NoNumericForm(f"{r.lhs.base} names the values of a {fact} function but is not {fact}")
                key = (v.func, v.args[0].base)
                if key in value and value[key] != r.lhs.base:  # a second name of the same values (p[k] = q[k] = G(b[k]))
                    if value[key].assumptions0 != r.lhs.base.assumptions0:
                        raise NoNumericForm(f"{value[key]} and {r.lhs.base} name the same values with other assumptions")
                    alias[r.lhs.base] = value[key]
                    continue
                value[key] = r.lhs.base
                continue
            if (isinstance(v, sp.Derivative) and isinstance(v.expr, AppliedUndef) and len(v.expr.args) == 1
                    and isinstance(v.expr.args[0], sp.Indexed) and v.expr.args[0].indices == (k,)
                    and v.variable_count == ((v.expr.args[0], 1),)):
                slope[(v.expr.func, v.expr.args[0].base)] = r.lhs.base
                continue
        keep.append(r)
    if not value and not slope:
        return lhs, rhs, rels
    for F, b in slope:  # a non-negative F at a zero has slope 0: values and slopes are not free there
        probe = F(b[sp.Symbol("k", integer=True)])
        if probe.is_nonnegative and not probe.is_positive:
            raise NoNumericForm(f"the slopes of {F}, which is non-negative but may be 0, are not free")

    def is_slope(x):
        return (isinstance(x, sp.Derivative) and isinstance(x.expr, AppliedUndef) and len(x.expr.args) == 1
                and isinstance(x.expr.args[0], sp.Indexed) and (x.expr.func, x.expr.args[0].base) in slope
                and x.variable_count == ((x.expr.args[0], 1),))

    def is_value(x):
        return (isinstance(x, AppliedUndef) and len(x.args) == 1 and isinstance(x.args[0], sp.Indexed)
                and (x.func, x.args[0].base) in value)

    def rewrite(e):
        if not isinstance(e, sp.Basic):
            return e
        if alias:
            e = e.replace(lambda x: isinstance(x, sp.Indexed) and x.base in alias, lambda x: alias[x.base][x.indices])
        e = e.replace(lambda x: isinstance(x, sp.Derivative) and not is_slope(x), lambda x: x.doit())
        e = e.replace(is_slope, lambda x: slope[(x.expr.func, x.expr.args[0].base)][x.expr.args[0].indices[0]])
        e = e.replace(is_value, lambda x: value[(x.func, x.args[0].base)][x.args[0].indices[0]])
        return e

    def rewrite_rel(r):
        from attnbounds.theory.proof import FACTS

        if isinstance(r, FACTS):
            return r
        return r.func(rewrite(r.lhs), rewrite(r.rhs))

    lhs, rhs = rewrite(lhs), rewrite(rhs)
    keep = [rewrite_rel(r) for r in keep]
    if any(r is sp.false for r in keep):  # p[1] < q[1] with p and q two names of one value
        raise NoNumericForm("a hypothesis is false once a function's values are named")
    keep = [r for r in keep if r is not sp.true]  # p[1] <= q[1]: met by every draw
    points = {b for _, b in list(value) + list(slope)}
    for e in [lhs, rhs] + [a for r in keep for a in _sides_of(r)]:
        if any(x.base in points for x in sp.sympify(e).atoms(sp.Indexed)) or e.has(sp.Derivative):
            raise NoNumericForm("the points of a named function appear elsewhere, or a derivative is left")
    return lhs, rhs, keep
