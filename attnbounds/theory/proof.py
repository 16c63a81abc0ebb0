r"""The proof kernel: a proof is a chain of checked steps.

A :class:`Chain` starts at an expression and relates it to the next one by ``=``, ``<=``
or ``>=``, step after step. Every step carries a justification ``by.<rule>(...)`` naming one
rule of a small trusted set (:data:`RULES`); the kernel checks the instantiation of the
rule against the step, side conditions included. A step justified by ``by.argued(text)``
is *not* checked: it is prose, and a chain with such a step proves nothing.

:meth:`Chain.prove` also checks the chaining: the first expression is the statement's left
side, the last is its right side, and the relations compose to the statement's relation.
The hypotheses a step may use are those of the chain's :class:`Context`; dropping one makes
every step that needed it fail.

Vectors are non-commutative symbols (:func:`vector`); :class:`Norm` is a norm (it pulls
scalars out, ``Norm(c*u) = |c|*Norm(u)``, and is ``Abs`` on scalars); :class:`Expect`,
:class:`Prob` and :class:`Inner` are the expectation, the probability of an event and an
inner product, as opaque symbols that only the named rules know about; :class:`Cond` is a
random expression on the space conditioned on an event (``Expect(Cond(X, A))`` is E[X | A]).

Example: Lemma 1's upper bound, $\alpha = x/(x+R) \le M/(M+(L-1)m)$ for $x \le M$ and
$R \ge (L-1)m$.

>>> import sympy as sp
>>> x, R, M, m, L = sp.symbols("x R M m L", positive=True)
>>> ctx = Context({"x<=M": x <= M, "R>=(L-1)m": R >= (L - 1) * m, "L>=1": L >= 1})
>>> chain = (Chain(x / (x + R), ctx)
...          .le(M / (M + R), by.monotone(x, x / (x + R), x, M))
...          .le(M / (M + (L - 1) * m), by.monotone(R, M / (M + R), R, (L - 1) * m)))
>>> result = chain.prove(x / (x + R), "<=", M / (M + (L - 1) * m))
>>> result.complete, result.steps, result.checked, result.rules
(True, 2, 2, ('monotone',))

A wrong instantiation is rejected, and so is a chain that does not reach the goal:

>>> bad = Chain(x / (x + R), ctx).le(M / (M + R), by.monotone(x, x / (x + R), M, x))
>>> bad.prove(x / (x + R), "<=", M / (M + R)).complete
False
>>> chain.prove(x / (x + R), "<=", M / (M + L * m)).complete
False
"""

from __future__ import annotations

import itertools
import secrets
import weakref
from contextlib import contextmanager
from functools import lru_cache, wraps
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.function import AppliedUndef

def _equal_apart(x) -> bool:
    """Whether ``x`` (an expression, or a tuple or list of them) holds a ``Subs``: SymPy compares
    and hashes a Subs with its variables renamed to canonical symbols that drop their declarations,
    so Subs(t, t, −1) with t plain equals Subs(t, t, −1) with t positive, though the kernel
    refuses the second (review 68: a kept answer for the first proved √((−1)²) = −1 in the same
    process). The kernel's caches pass such arguments to the function itself."""
    if isinstance(x, sp.Basic):
        return x.has(sp.Subs)
    if isinstance(x, (tuple, list)):
        return any(_equal_apart(a) for a in x)
    if isinstance(x, Context):  # (hashed by its hypotheses: review 69)
        return any(_equal_apart(a) for h in x.hypotheses.values() for a in _sides(h))
    return False


def _kept(fn=None, *, maxsize: int = 8192):
    """``fn`` kept per arguments (an LRU cache of ``maxsize``) where they are hashable: for the
    kernel's pure checks of an expression (its structure, its symbols' declarations and the
    relations given, which SymPy's equality and hash all read, except in a ``Subs``:
    :func:`_equal_apart`), asked again and again of the same sides by the sign prover. A result is
    handed out as a copy where it is a list or a dict, so a caller that changes it changes no
    other caller's. ``@_kept`` or ``@_kept(maxsize=...)``."""
    if fn is None:
        return lambda f: _kept(f, maxsize=maxsize)
    cached = lru_cache(maxsize=maxsize)(fn)

    @wraps(fn)
    def call(*args, **kwargs):
        try:
            hash((args, tuple(sorted(kwargs.items()))))
        except TypeError:
            return fn(*args, **kwargs)
        if _equal_apart(args) or _equal_apart(tuple(kwargs.values())):
            return fn(*args, **kwargs)
        out = cached(*args, **kwargs)
        return out.copy() if isinstance(out, (list, dict)) else out

    call.cache_info = cached.cache_info
    call.cache_clear = cached.cache_clear
    return call


__all__ = [
    "RULES",
    "Rule",
    "Norm",
    "Inner",
    "Expect",
    "Prob",
    "Cup",
    "Cond",
    "Indicator",
    "vector",
    "Context",
    "BoundedDifferences",
    "WeightedNorm",
    "Assumed",
    "Lemma",
    "AllOf",
    "By",
    "by",
    "Step",
    "StepCheck",
    "ChainCheck",
    "Chain",
    "record_steps",
    "accepted_steps",
    "is_identity",
    "prove_nonnegative",
    "certify_nonnegative",
    "is_constant",
    "is_random_atom",
    "undefined_parts",
    "surely_undefined",
]

REL = ("=", "<=", ">=")


# ----------------------------------------------------------------------------- the vocabulary


class _NonnegativeScalar(sp.Function):
    """A function whose value is a finite non-negative real scalar (a norm, a probability, an
    operator norm): the SymPy assumptions the sign oracle reads, in one place."""

    def _eval_is_commutative(self):
        return True

    def _eval_is_extended_real(self):
        return True

    def _eval_is_extended_nonnegative(self):
        return True

    def _eval_is_finite(self):
        return True


class Norm(_NonnegativeScalar):
    """A norm. Scalars come out by homogeneity, ``Norm(c*u) = |c| Norm(u)``; on a scalar
    (commutative) argument it is ``Abs``.

    >>> u = vector("u"); a = sp.Symbol("a", positive=True)
    >>> Norm(-2 * a * u)
    2*a*norm(u)
    """

    nargs = 1

    @classmethod
    def eval(cls, arg):
        if arg.is_commutative:
            return sp.Abs(arg)
        if arg.is_Mul:
            c, nc = arg.args_cnc()
            if c:
                return sp.Abs(sp.Mul(*c)) * cls(sp.Mul(*nc))
        return None

    def _sympystr(self, printer):
        return f"norm({printer._print(self.args[0])})"

    def _latex(self, printer):
        return rf"\left\|{printer._print(self.args[0])}\right\|"


class Inner(sp.Function):
    """An inner product ⟨u, v⟩ (real, symmetric); only Cauchy–Schwarz knows more."""

    nargs = 2

    def _eval_is_commutative(self):
        return True

    def _eval_is_extended_real(self):
        return True


class Expect(sp.Function):
    """The expectation E[X] of a random expression; real when X is, non-negative when X is; a vector (not
    commutative) when X is one."""

    nargs = 1

    def _eval_is_commutative(self):
        return self.args[0].is_commutative is not False  # the expectation of a vector is a vector

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real  # E of a complex (or undeclared) X is not known real

    def _eval_is_extended_nonnegative(self):
        return self.args[0].is_nonnegative


class Prob(_NonnegativeScalar):
    """The probability P[event] of an event written as a relation, e.g. ``Prob(X >= r)``; a
    number in [0, 1], so finite and non-negative.

    >>> Prob(sp.Symbol("x") >= 1).is_nonnegative
    True
    """

    nargs = 1


class Cup(ExprWithLimits):
    r"""The union $\bigcup_{h=lo}^{hi} A_h$ of events (or subsets) $A_h$, written
    ``Cup(A(h), (h, lo, hi))``; ``A(h)`` is an event (a relation such as ``D(h) <= r``, or an
    indicator function). ``h`` is bound. Opaque: only the union rules know about it.

    >>> h, H = sp.symbols("h H", integer=True, positive=True)
    >>> Prob(Cup(sp.Function("A")(h), (h, 1, H))).free_symbols == {H}
    True
    """

    __slots__ = ()

    def _eval_is_commutative(self):
        return True


class Cond(sp.Function):
    r"""``Cond(X, A)``: the random expression X on the probability space conditioned on the
    event A, so that ``Expect(Cond(X, A))`` is $\mathbb{E}[X \mid A]$. An event is a relation
    (``D(i) <= r``), an applied undefined function read as an indicator (``in_S(i)``), or a
    ``Not`` / ``And`` / ``Or`` of these. Only the rules ``total-expectation`` and ``condition``
    know about it; every random atom of one expectation must be conditioned on the same event.

    >>> i = sp.Symbol("i", integer=True)
    >>> s = sp.Function("s", commutative=False)(i)
    >>> Cond(s, sp.Not(sp.Function("in_S")(i))).is_commutative
    False
    """

    nargs = 2

    def _eval_is_commutative(self):
        return self.args[0].is_commutative

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    def _eval_is_extended_nonnegative(self):
        return self.args[0].is_nonnegative


class Indicator(_NonnegativeScalar):
    r"""The indicator $\mathbf 1_A$ of an event A: 1 on the outcomes where A holds, 0 elsewhere.
    A is written as for :class:`Prob` (a relation such as ``D(i) <= r``, an applied undefined
    function read as an indicator event, a :class:`Cup`, or Not / And / Or of these). It is a
    random variable when A has one; only the rules ``indicator-mean``, ``indicator-algebra``
    and ``indicator-order`` know about it.

    >>> i = sp.Symbol("i", integer=True)
    >>> e = Indicator(sp.Not(sp.Function("missed")(i)))
    >>> e.is_nonnegative, e.is_commutative
    (True, True)
    """

    nargs = 1


def vector(names: str):
    """Vector symbols (non-commutative, so that scalars and vectors stay apart).

    >>> u, v = vector("u v")
    >>> u.is_commutative
    False
    """
    if not isinstance(names, str) or not names.strip():
        raise ValueError(f"names: expected a non-empty string of symbol names, got {names!r}")
    return sp.symbols(names, commutative=False)


@dataclass(frozen=True)
class BoundedDifferences:
    """A hypothesis of McDiarmid's inequality: ``f`` is a function of independent variables
    and changing the j-th one changes ``f`` by at most c_j; ``sum_c2`` is Σ_j c_j²."""

    f: Any
    sum_c2: Any

    def __post_init__(self):
        _sympify_fields(self)


@dataclass(frozen=True)
class WeightedNorm:
    """A definition, the setting of a concentration bound: ``f`` = ‖Σ_{j∈J} w_j X_j‖ over a finite
    index set J, the X_j independent random vectors with ‖X_j‖ ≤ ``radius`` surely, the weights
    w_j fixed (not random), ``l1`` = Σ_j |w_j| and ``l2`` = Σ_j w_j².

    Two rules read it: ``mcdiarmid`` (replacing X_j moves f by at most |w_j| ‖X_j − X_j'‖ ≤
    2·radius·|w_j|, so Σ_j c_j² = 4·radius²·l2) and ``weighted-norm`` (0 ≤ f ≤ radius·l1, and
    l2 ≤ l1²), whose bounds on f give ``hoeffding`` its range. Its fields may be numbers
    (``WeightedNorm(f, 1, l1, l2)``): they are sympified.

    >>> D = sp.Function("D")  # random; the radius and the weights' sums are numbers
    >>> a1 = sp.Function("a1", nonnegative=True, deterministic=True)  # R, l1, l2 must be >= 0
    >>> s2 = sp.Function("s2", nonnegative=True, deterministic=True)
    >>> i, M = sp.Symbol("i"), sp.Symbol("M", positive=True)
    >>> ctx = Context({"setting": WeightedNorm(D(i), M, a1(i), s2(i))})
    >>> Chain(D(i), ctx).le(M * a1(i), by.weighted_norm("setting")).prove(D(i), "<=", M * a1(i)).complete
    True
    """

    f: Any
    radius: Any
    l1: Any
    l2: Any

    def __post_init__(self):
        _sympify_fields(self)


def _sympify_fields(fact) -> None:
    """A fact's fields as SymPy expressions (a radius given as the int 1 is Integer(1)), each named
    where it is not one."""
    import dataclasses

    for fld in dataclasses.fields(fact):
        v = getattr(fact, fld.name)
        try:
            object.__setattr__(fact, fld.name, sp.sympify(v, strict=True))
        except (sp.SympifyError, TypeError) as exc:
            raise TypeError(f"{type(fact).__name__}: {fld.name} must be a SymPy expression or a number, got "
                            f"{type(v).__name__} ({exc})") from None


#: The context's facts that are not relations: no sign oracle reads them, named rules do.
FACTS = (BoundedDifferences, WeightedNorm)


def _fact_sides(h) -> list:
    """The expressions a fact speaks of."""
    if isinstance(h, BoundedDifferences):
        return [h.f, h.sum_c2]
    return [h.f, h.radius, h.l1, h.l2]


@dataclass(frozen=True)
class Assumed:
    """A premise argued in prose, not checked: a consequence of the statement's hypotheses (or of
    its definitions) that no checked chain derives yet. It is kept in the context for the record,
    but no rule may use it: the ``hypothesis`` rule and McDiarmid's refuse it, and the sign oracle
    never sees it. A chain that needs it is therefore never complete, and a reading it backs is
    at most ``holds`` (``Proof.from_chain`` marks it argued and names the premise).

    >>> x = sp.Symbol("x")
    >>> ctx = Context({"x<=1": Assumed(sp.Le(x, 1), "argued on the page")})
    >>> ctx.relations(), ctx.assumed()
    ([], {'x<=1': 'argued on the page'})
    """

    fact: Any  # a SymPy relation, a tuple of them, or a fact (BoundedDifferences, WeightedNorm)
    why: str


@dataclass(frozen=True, eq=False)
class Lemma:
    """A hypothesis that is itself proved: ``chain`` must take ``lhs`` to ``rhs`` by
    ``relation`` under the context that uses the lemma (so dropping a hypothesis the lemma
    needs also breaks every step that uses the lemma)."""

    chain: Any
    lhs: Any
    relation: str
    rhs: Any

    def __post_init__(self):
        if self.relation not in ("<=", ">=", "==", "="):  # review 53: '<' made prove() raise later
            raise ValueError(f"relation: must be one of <=, >=, ==, =, got {self.relation!r}")
        # review 58: a chain that is no Chain, or a side SymPy cannot read, made prove() raise later
        if not isinstance(self.chain, Chain):
            raise TypeError(f"chain: expected a Chain, got {type(self.chain).__name__}")
        for name in ("lhs", "rhs"):
            value = getattr(self, name)
            try:
                ok = not isinstance(value, str) and isinstance(sp.sympify(value, strict=True), sp.Basic)
            except sp.SympifyError:
                ok = False
            if not ok:
                raise TypeError(f"{name}: expected a SymPy expression, got {type(value).__name__}")

    def relation_expr(self):
        return {"<=": sp.Le, ">=": sp.Ge, "==": sp.Eq, "=": sp.Eq}[self.relation](self.lhs, self.rhs, evaluate=False)


class _FrozenHypotheses(dict):
    """A context's hypotheses, read-only: a checked chain's record keeps the context it was
    checked under, which no caller may change afterwards (``res.chain.ctx.hypotheses.clear()``)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("hypotheses: a Context is immutable (build a new one: Context({...}), .extended, .without)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self):
        return (_FrozenHypotheses, (dict(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class _Local(str):
    """The name of a hypothesis that a rule adds for its sub-chains, never a stated one. It is
    not equal to the plain name it spells (nor hashed as it): two contexts that differ only in
    whether a hypothesis is local are two contexts, also as keys of the kernel's caches
    (:meth:`Context.without_lemmas` drops the local ones)."""

    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, _Local) and str.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("_Local", str(self)))


@dataclass(frozen=True)
class Context:
    """The named hypotheses a chain may use: relations (``x <= M``, ``a == b``) and facts
    such as :class:`BoundedDifferences` and :class:`WeightedNorm`.

    >>> Context({"pos": sp.Symbol("t") > 0}).without("pos").hypotheses
    {}
    """

    hypotheses: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.hypotheses, Mapping):
            raise TypeError(f"hypotheses: expected a mapping name -> relation, got {type(self.hypotheses).__name__}")
        rel_types = (sp.Eq, sp.Ge, sp.Gt, sp.Le, sp.Lt)
        cleaned = {}
        for name, h in self.hypotheses.items():  # relations SymPy already decides true say nothing
            if isinstance(h, tuple):
                h = tuple(r for r in h if r is not sp.true)
                if not h:
                    continue
            elif h is sp.true:
                continue
            cleaned[name] = h
        object.__setattr__(self, "hypotheses", cleaned)
        for name, h in self.hypotheses.items():
            if h is sp.false or (isinstance(h, tuple) and any(r is sp.false for r in h)):
                raise TypeError(f"hypotheses[{name!r}]: SymPy decides it False from its symbols' assumptions "
                                "(a contradictory hypothesis: check how the symbols were declared)")
            fact = h.fact if isinstance(h, Assumed) else h
            ok = isinstance(fact, FACTS + rel_types) or (not isinstance(h, Assumed) and isinstance(h, Lemma)) or (
                isinstance(fact, tuple) and fact and all(isinstance(r, rel_types) for r in fact))
            if isinstance(h, Assumed) and not (isinstance(h.why, str) and h.why.strip()):
                raise TypeError(f"hypotheses[{name!r}]: an Assumed premise needs a non-empty why")
            if not ok:
                hint = (" (Python's == compares two SymPy expressions as trees and gives a bool: write sp.Eq(a, b))"
                        if isinstance(fact, bool) else "")
                raise TypeError(f"hypotheses[{name!r}]: expected a SymPy relation (or a tuple of them), Lemma, BoundedDifferences, "
                                f"WeightedNorm or Assumed, got {h!r}{hint}")
            if any(_has_float(x) for x in _sides(h)):
                raise TypeError(f"hypotheses[{name!r}]: a floating-point number (the kernel reads exact numbers only: "
                                "write sp.Rational)")
            rels = (fact,) if isinstance(fact, rel_types) else fact if isinstance(fact, tuple) else ()
            if isinstance(fact, Lemma):
                rels = ((fact.lhs, fact.rhs),)
            for r in rels:
                a, b = r if isinstance(r, tuple) else (r.lhs, r.rhs)
                if _mixed_spaces(a, b):
                    # review 59: X = Cond(X, A) holds on A; put in under a mean it moved E[X] to E[X | A];
                    # review 60: so did X − Cond(X, A) = 0, and X − Cond(X, A) >= 0 under markov
                    raise TypeError(f"hypotheses[{name!r}]: {sp.sstr(sp.Eq(a, b, evaluate=False)) if isinstance(r, tuple) else sp.sstr(r)} "
                                    "relates random values on different probability spaces (conditioned on different "
                                    "events, or one conditioned and one not): no rule may put one for the other or "
                                    "take a mean of it, so state it on one space")
            if isinstance(fact, FACTS) and _mixed_spaces(*_fact_sides(fact)):
                # review 64: a fact's forms are relations too (weighted-norm gives 0 <= f and f <= R l1):
                # WeightedNorm(D − Cond(D, A), 1, 1, 1) gave D >= Cond(D, A) in a pointwise sub-chain,
                # and expect-monotone E[D] >= E[1] from "D >= 1 where A holds"
                raise TypeError(f"hypotheses[{name!r}]: {type(fact).__name__}({', '.join(map(sp.sstr, _fact_sides(fact)))}) "
                                "holds random values on different probability spaces (conditioned on different "
                                "events, or one conditioned and one not): state it on one space")
        object.__setattr__(self, "hypotheses", _FrozenHypotheses(self.hypotheses))

    def without(self, name: str) -> "Context":
        """This context with hypothesis ``name`` removed (for the dropped-hypothesis mutant)."""
        if name not in self.hypotheses:
            raise KeyError(f"name: no hypothesis {name!r}; have {sorted(self.hypotheses)}")
        return Context({k: v for k, v in self.hypotheses.items() if k != name})

    def xreplace(self, mapping) -> "Context":
        """This context with symbols replaced (to instantiate a proof, e.g. m = e^(-Delta/T))."""
        return Context({k: _xreplace(v, mapping) for k, v in self.hypotheses.items()})

    def extended(self, extra: Mapping[str, Any]) -> "Context":
        """This context plus ``extra``; relations that SymPy already decides as true are left out.
        A name already used is refused: replacing a hypothesis would drop it."""
        clash = sorted(k for k, h in extra.items() if k in self.hypotheses and self.hypotheses[k] is not h)
        if clash:
            raise ValueError(f"extra: the names {clash} are hypotheses of this context already")
        return Context({**self.hypotheses, **{k: h for k, h in extra.items() if h is not sp.true}})

    def _local(self, extra: Mapping[str, Any]) -> "Context":
        """This context plus the hypotheses a rule adds for its sub-chains (a variable's range, a
        case): named as ``_Local``, so that :meth:`without_lemmas` tells them from the stated
        ones, and renamed where the name is taken (a stated hypothesis, or an outer rule's)."""
        out = dict(self.hypotheses)
        for k, h in extra.items():
            if h is sp.true:
                continue
            name, n = k, 1
            while name in out or _Local(name) in out:  # a stated name, or an outer rule's local one
                n += 1
                name = f"{k}{n}"
            out[_Local(name)] = h
        return Context(out)

    def relations(self) -> list:
        """The relations usable by the sign oracle: plain hypotheses, and every lemma whose
        chain checks under the rest of this context."""
        return [r for k in self.hypotheses for r in self.relation(k)]

    def relation(self, name: str) -> tuple:
        """Hypothesis ``name`` as a tuple of SymPy relations; empty for a fact or a lemma
        whose chain does not check here."""
        h = self.hypotheses[name]
        if isinstance(h, FACTS + (Assumed,)):
            return ()
        if isinstance(h, Lemma):
            base = self.without_lemmas()
            return (h.relation_expr(),) if _lemma_holds(h, base) and _lemma_defined(h, base) else ()
        return h if isinstance(h, tuple) else (h,)

    def assumed(self) -> dict:
        """The premises assumed (argued in prose), which no rule uses: a dict, name to why."""
        return {k: h.why for k, h in self.hypotheses.items() if isinstance(h, Assumed)}

    def without_lemmas(self) -> "Context":
        """The stated hypotheses only: no lemmas, and none of the local ones a rule adds
        (``_Local`` names, such as a variable's range; a stated name may start with ``__`` too)."""
        return Context({k: v for k, v in self.hypotheses.items() if not isinstance(v, Lemma) and not isinstance(k, _Local)})

    def __hash__(self):
        return hash(tuple(sorted(self.hypotheses.items(), key=lambda kv: kv[0])))


# ----------------------------------------------------------------------------- exact helpers


def _lemma_check(lemma: Lemma, ctx: "Context"):
    """The lemma's chain proved against its statement under ``ctx``, cached by what the check
    reads (a Lemma compares by identity, and ``object.__setattr__`` can alter a frozen one: the
    cache is keyed by its statement and its chain's parts too)."""
    ch = lemma.chain
    key = (lemma, lemma.lhs, lemma.relation, lemma.rhs, id(ch), id(getattr(ch, "start", None)),
           id(getattr(ch, "steps", None)), id(getattr(ch, "ctx", None)))
    res = _lemma_check_cached(key, ctx)
    for record in _STEP_RECORDS:  # the lemma's accepted steps, whether checked now or cached
        record.add(_kept_steps(res))
    return res


@_kept(maxsize=512)  # (a key or context holding a Subs is checked afresh: _equal_apart)
def _lemma_check_cached(key, ctx: "Context"):
    lemma = key[0]
    saved = _STEP_RECORDS[:]
    _STEP_RECORDS.clear()  # the records get the lemma's steps from _lemma_check, on a hit as on a miss
    try:
        return lemma.chain.prove(lemma.lhs, lemma.relation, lemma.rhs, ctx=ctx)
    finally:
        _STEP_RECORDS[:] = saved


def _lemma_holds(lemma: Lemma, ctx: "Context") -> bool:
    return _lemma_check(lemma, ctx).complete


def _lemma_defined(lemma: Lemma, ctx: "Context") -> bool:
    """Whether the lemma's sides are defined at every point that meets ``ctx``'s hypotheses: its
    chain proves its relation only where they are, and a rule reading it among the hypotheses
    would use it everywhere."""
    return _lemma_defined_cached(lemma.lhs, lemma.rhs, ctx)


@_kept
def _lemma_defined_cached(lhs, rhs, ctx: "Context") -> bool:
    sides = [sp.sympify(x) for x in (lhs, rhs)]
    if not any(any(undefined_parts(x)) for x in sides):
        return True
    rels = tuple(ctx.relations())
    return all(_newly_undefined(x, (), rels) is None for x in sides)


def _has_float(e) -> bool:
    """Whether ``e`` holds a floating-point number (never trusted: SymPy rounds a difference with
    one to its precision, so sp.Float(0.3125, 1) − 627/2000 is 0)."""
    e = sp.sympify(e) if not isinstance(e, sp.Basic) else e
    return isinstance(e, sp.Basic) and bool(e.atoms(sp.Float))


# SymPy facts that are wrong at some argument: atan, asin (and acos) of an argument known rational
# are "irrational", so non-zero, also where the argument may be 0 (1); Mod, Max and Min of arguments
# not known real are "real" (Mod(i, 2), Max(0, i)), and Heaviside of one is "real" too; C(n, k) for
# an odd k is "negative" where n >= 0 is not known (C(5, 3) = 10). Two of SymPy's core rules read
# "not known" as "no" (review 36): a power b**e of a real b not known positive with e rational, 2e
# an integer and e not known to be one is "imaginary" when b is negative ((-1)**(n/2) at n = 0 is 1),
# and a product with a factor not known real nor imaginary (I*r**n) is "not real", so non-zero, also
# where that factor is 0
_WRONG_AT = ((sp.atan, 0), (sp.asin, 0), (sp.acos, 1))
_REAL_ARGS = (sp.Mod, sp.Max, sp.Min, sp.Heaviside, sp.sign)  # sign(z)**4 is built as 1 for a z not known real
_WRONG_ANYWHERE = (sp.LambertW,)  # W(−y − 1/e) for y >= 0 is "not real"; at y = 0 it is −1


def _range_points(e) -> list:
    """[(body, [{variable: value} for each term])] for each sum or product over a numeric range
    that ``_exact_doit`` writes out (review 37: Σ_{k=2}^{2} re((−1)^{nk/4}) is written out as
    re((−1)^{n/2}), which SymPy builds as 0 from a wrong fact, though it is 1 at n = 0)."""
    out = []
    for n in sp.preorder_traversal(e):
        if isinstance(n, (sp.Sum, sp.Product)):
            for lim in n.limits:
                if len(lim) == 3 and lim[1].is_Integer and lim[2].is_Integer:
                    _, first, last = _karr_range(int(lim[1]), int(lim[2]))
                    if last - first < _TERMS_MAX:
                        out.append((n.function, [{lim[0]: sp.Integer(v)} for v in range(first, last + 1)]))
    return out


def _weak_binders(e) -> tuple[dict, dict]:
    """({bound variable: a symbol with at most what :func:`_alpha` gives it}, {a Subs' variable: its
    point}): a sum's, product's or union's variable is an integer, a MaxOver's, MinOver's or Mat's
    index a positive integer, an integral's real where it was declared real, a Subs' or Lambda's
    variable nothing. A limit's variable keeps its own. ``_alpha`` renames a bound variable so, and
    ``_exact_doit`` puts a Subs' point in, and SymPy rebuilds the body with the weaker facts:
    sign(C(k, 3)) over k declared >= 0 became −1 (review 36)."""
    weak: dict = {}
    points: dict = {}
    for n in sp.preorder_traversal(e):
        if isinstance(n, sp.Subs):
            for v, p in zip(n.variables, n.point):
                points.setdefault(v, p)
    for n in sp.preorder_traversal(e):
        if isinstance(n, (_Extremum, Mat)):
            for v in n.args[0].variables:
                weak.setdefault(v, sp.Dummy(integer=True, positive=True))
        elif isinstance(n, (sp.Sum, sp.Product, Cup)):
            for lim in n.limits:
                weak.setdefault(lim[0], sp.Dummy(integer=True))
        elif isinstance(n, sp.Integral):
            for lim in n.limits:
                weak.setdefault(lim[0], sp.Dummy(**({"real": True} if lim[0].is_extended_real else {})))
        elif isinstance(n, (sp.Subs, sp.Lambda)):
            for v in n.variables:
                weak.setdefault(v, sp.Dummy(commutative=v.is_commutative))
    return weak, points


def _wrong_node(n) -> bool:
    """Whether SymPy's facts about the node ``n`` may be wrong (see ``_WRONG_AT`` above)."""
    if isinstance(n, _WRONG_ANYWHERE):
        return True
    if isinstance(n, (sp.Sum, sp.Product, sp.Integral)) and n.is_commutative:  # review 41: the terms' facts
        # (an empty or reversed range, terms that cancel: Sum(I, (k, 1, n)) "not real" is 0 at n = 0,
        # Product(I, (k, 1, 2)) = -1, the integral of exp(i t) over [0, 2 pi] "non-zero" is 0, and an
        # empty product was "<= 0"); read a sum's or integral's facts only from terms known real, a
        # product's from terms known positive, and only "real" and ">= 0" from terms known real or >= 0
        if isinstance(n, sp.Product):
            if n.function.is_extended_positive is True:
                return False
            safe = {("finite", True)}
            if n.function.is_extended_real is True:  # a product of real terms is real (empty: 1)
                safe |= {("extended_real", True), ("imaginary", False)}
            if n.function.is_extended_nonnegative is True:  # a product of terms >= 0 is >= 0 (empty: 1)
                safe |= {("nonnegative", True), ("extended_real", True), ("negative", False), ("imaginary", False)}
            return bool(_claims(n) - safe)
        return n.function.is_extended_real is not True and bool(_claims(n) - {("finite", True)})
    if isinstance(n, (sp.Add, sp.Mul, sp.Pow)) and n.free_symbols and n.is_irrational is True:
        return True  # arithmetic on a symbol called irrational: (r + sqrt(2))**2 (review 38)
    for f, at in _WRONG_AT:
        if isinstance(n, f):  # (SymPy's rule fires on an argument known rational)
            return n.args[0].is_rational is True and (n.args[0] - at).is_zero is not False
    if isinstance(n, _REAL_ARGS):
        return not all(_fact(a, "extended_real") for a in n.args)
    if isinstance(n, sp.binomial):  # C(n, k), k odd, is "negative" unless n >= 0 is known: C(5, 3) = 10;
        # C(1/2, m + 1/2), k not an integer, is "non-zero" (0 at m = 1: review 38)
        return n.args[1].is_integer is not True or not (
            n.args[0].is_nonnegative is True or n.args[1].is_even is True or n.args[1].is_negative is True)
    if isinstance(n, sp.Pow):  # "imaginary" at a negative base, where e may be an integer
        b, x = n.args
        if x.is_extended_real is False or x.is_imaginary is True:  # b**(i y) is "not imaginary" (review 37):
            return True  # 2**(i y) is i at y = pi/(2 log 2), so 1 + i 2**(i y), "non-zero", is 0 there
        return (b.is_extended_positive is not True and x.is_integer is None and x.is_rational is True
                and (2 * x).is_integer is not False and (n.is_imaginary is True or n.is_extended_real is False))
    if isinstance(n, sp.Mul) and n.is_commutative:  # "not real" (non-zero) though a factor may be 0 (a
        # product with a vector is a vector, which SymPy calls neither zero nor a number)
        if any(a.is_zero is not False for a in n.args) and (n.is_extended_real is False or n.is_zero is False):
            return True
        # "not real" though two factors are not known real, whose product may be real (review 39:
        # sqrt(L - 1) sqrt(L + 1)/L at L = log(-1) = i pi is real)
        if n.is_extended_real is False and sum(a.is_extended_real is not True for a in n.args) >= 2:
            return True
        # a product whose integrality SymPy decides from a factor's symbolic evenness: it weighs only
        # the powers of 2, so 2**p/6 is "an integer" and 6**p/3 "not one" (review 38)
        return (n.is_integer is not None and bool(n.free_symbols)
                and any(a.is_even is True and not a.is_Integer for a in n.args))
    return False


_WRONG_KINDS = (*(f for f, _ in _WRONG_AT), *_REAL_ARGS, *_WRONG_ANYWHERE, sp.binomial, sp.Pow, sp.Mul, sp.Add,
                sp.Sum, sp.Product, sp.Integral)

# SymPy's own operations and functions whose facts the kernel reads (review 35 compared about 550,000 of
# SymPy's facts about 172 of its function classes with their values, and found none wrong in these,
# beyond the cases refused above); any other SymPy function (a Bessel function, divisor_sigma,
# betainc, erf2, rf, ff, genocchi, fresnels, ... : several of them have wrong facts) is untrusted.
# Review 38 struck the functions whose values hang on SymPy's integer and parity reasoning, which is
# wrong for derived facts (2**p/6 "an integer"): floor, ceiling, frac, Mod, gamma and its kin,
# factorial, and atan2 (non-real arguments "non-zero"). Classes outside SymPy (the kernel's own, a
# user's) are not judged here.
_TRUSTED_SYMPY = (
    sp.Add, sp.Mul, sp.Pow, sp.Derivative, sp.Subs, sp.Lambda, sp.Tuple, sp.Sum, sp.Product, sp.Integral, sp.Limit,
    sp.Piecewise, sp.functions.elementary.piecewise.ExprCondPair,
    sp.functions.elementary.miscellaneous.IdentityFunction, sp.Max, sp.Min,
    sp.exp, sp.log, sp.Abs, sp.sign, sp.re, sp.im, sp.arg, sp.conjugate,
    sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.asin, sp.acos, sp.atan, sp.acot, sp.asec, sp.acsc,
    sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch, sp.asinh, sp.acosh, sp.atanh, sp.acoth,
    sp.asech, sp.acsch, sp.LambertW, sp.erf, sp.erfc, sp.binomial,
    sp.KroneckerDelta, sp.Heaviside,
    sp.integrals.transforms.IntegralTransform, sp.Indexed, sp.IndexedBase, sp.Idx,
)
# containers, logic, sets and probability spaces: no numeric facts of their own
_TRUSTED_MODULES = ("sympy.core.relational", "sympy.logic.", "sympy.sets.", "sympy.stats.")
# SymPy derives wrong facts from these declarations (review 35): an even e makes e/3 "not an
# integer", so non-zero, and e/6 "an integer" (1 <= e/6 for every even e >= 2 by algebra); an
# irrational x makes x**2 "irrational" (x = sqrt(2)); an odd o makes gamma(o + 1/2) "non-positive";
# an imaginary y makes floor(y) "non-zero" (floor(i/2) = 0); a prime p makes genocchi(p) "even"
_RISKY_FACTS = ("even", "odd", "prime", "composite", "irrational", "noninteger", "imaginary", "antihermitian",
                "transcendental", "polar")


def _by_an_application(d) -> bool:
    """Whether the derivative ``d`` is by an application f(a) of an undefined function whose
    expression holds f at other arguments: SymPy differentiates f(k) by f(j) as 0, wrong at k = j
    (d/dG(j) (G(k) G(j)) = G(k), which is 2 G(j) there; review 46). An indexed entry is not read
    so: SymPy's derivative of x[k] by x[j] is the delta δ_kj."""
    for v, _ in d.variable_count:
        if isinstance(v, (sp.Symbol, sp.Indexed)):
            continue
        # an application, or any other variable built on one (a derivative G'(x): G'(y) by G'(x)
        # is 0 to SymPy, wrong at y = x; review 47): the expression must hold its functions only there
        mine = set(sp.sympify(v).atoms(AppliedUndef))
        funcs = {f.func for f in mine}
        if any(f.func in funcs and f not in mine for f in d.expr.atoms(AppliedUndef)):
            return True
    return False


def _derivative_variables(d) -> set:
    """The symbols in the variables of the derivative ``d`` (an indexed entry's label and
    subscripts, an application's arguments): the derivative reads its expression near them."""
    return {a for v, _ in d.variable_count for a in sp.sympify(v).free_symbols if isinstance(a, sp.Symbol)}


def _heads(v) -> set:
    """The undefined functions and indexed bases in a derivative's variable ``v``: a value that
    holds one may become the variable once read at a point (G(kk) at kk = 1 is G(1); review 48)."""
    v = sp.sympify(v)
    return {f.func for f in v.atoms(AppliedUndef)} | {i.base for i in v.atoms(sp.Indexed)}


def _variable_heads(d) -> set:
    """:func:`_heads` of every variable of the derivative ``d``."""
    return set().union(*(_heads(v) for v, _ in d.variable_count))


def _touches(d, exprs) -> bool:
    """Whether one of ``exprs`` holds a variable of the derivative ``d``: itself (G(1), which has no
    free symbol; review 47), through one of its symbols, or through its function or indexed base."""
    exprs = [sp.sympify(x) for x in exprs]
    near, heads = _derivative_variables(d), _variable_heads(d)
    return (any(x.has(v) for x in exprs for v, _ in d.variable_count) or any(x.free_symbols & near for x in exprs)
            or any(x.has(h) for x in exprs for h in heads))


def _held(e, touches):
    """``e`` with each derivative ``touches`` picks replaced by a fresh symbol, and the map back:
    a rewrite justified at a point (a definition, a case, a Piecewise branch) is not valid inside a
    derivative by a variable it constrains, which reads its expression near the point (review 46)."""
    if not isinstance(e, sp.Basic):
        return e, {}
    held = {d: sp.Dummy("held") for d in e.atoms(sp.Derivative) if touches(d)}
    return (e.xreplace(held) if held else e), {v: d for d, v in held.items()}


def _untrusted_node(n) -> str | None:
    """Why the kernel reads no fact of the node ``n`` (a sentence), or None: a SymPy function
    outside :data:`_TRUSTED_SYMPY`, or a symbol (indexed base, undefined function) declared with
    one of :data:`_RISKY_FACTS`."""
    if isinstance(n, (sp.Symbol, sp.Indexed, AppliedUndef)):
        try:
            bad = [f for f in _RISKY_FACTS if getattr(n, f"is_{f}", None) is True]
        except Exception as exc:  # noqa: BLE001 -- g(Lambda(j, …)): SymPy's evalf of it raises IndexError (review 67)
            return f"SymPy raises {type(exc).__name__} when it evaluates its facts"
        if isinstance(n, sp.Symbol):  # KroneckerDelta reads these (review 41): delta(i, a) is built as 0
            bad += [f for f in ("below_fermi", "above_fermi") if n.assumptions0.get(f)]
        return f"it is {bad[0]} by its declaration, from which SymPy derives wrong facts" if bad else None
    if isinstance(n, sp.Derivative) and _by_an_application(n):
        return "SymPy differentiates an undefined function at one argument by its value at another as 0"
    if isinstance(n, sp.Pow) and n.free_symbols and n.is_even is True:
        # 2**p is "even", and SymPy's integrality rule for a product weighs only powers of 2: put
        # into (.)/6 by any rule that substitutes (a hypothesis, a definition, a Kronecker delta,
        # an instance), 2**p/6 is "an integer" and (-1)**(2**p/6) real (reviews 38 and 40). An odd
        # power ((-1)**k) is not read so: odd over even is never an integer, which SymPy gets right
        return "SymPy calls it even, from which it derives wrong facts"
    if n.is_Atom or not type(n).__module__.startswith("sympy.") or type(n).__module__.startswith(_TRUSTED_MODULES):
        return None
    if isinstance(n, sp.KroneckerDelta) and len(n.args) != 2:  # review 52
        return ("a Kronecker delta with a range: SymPy builds δ(a, a, R) as 1 whatever R, though "
                "δ(5, 5, (1, 3)) = 0")
    if isinstance(n, _TRUSTED_SYMPY):
        return None
    return f"{type(n).__name__} is not among the SymPy functions whose facts the kernel reads"


def _wrong_facts(e):
    """A node of ``e`` whose SymPy facts may be wrong (``_WRONG_AT``, ``_REAL_ARGS``,
    ``_WRONG_ANYWHERE``, a binomial coefficient C(n, k) with k odd and n not known >= 0, a power
    or product that SymPy's core rules misread; :func:`_wrong_node`), or None: the kernel reads no
    sign from it, so a step whose sides, instantiation or hypotheses hold one is refused, and the
    sign prover proves nothing with one. A node in the scope of a binder is judged as written and
    again with the bound variables as :func:`_alpha` renames them (:func:`_weak_binders`)."""
    e = sp.sympify(e) if not isinstance(e, sp.Basic) else e
    if not isinstance(e, sp.Basic):
        return None
    return _wrong_facts_of(e)


@_kept
def _wrong_facts_of(e):
    """:func:`_wrong_facts` of a SymPy expression: a function of ``e`` alone (its structure and its
    symbols' declarations, which SymPy's equality and hash read), so it is kept per expression
    (the sign prover asks it of each hypothesis side at each call, 524,000 times in one mutation
    run); not for an expression with a ``Subs`` (:func:`_equal_apart`)."""
    for n in sp.preorder_traversal(e):
        if isinstance(n, sp.Basic) and _untrusted_node(n) is not None:
            return n
    nodes = e.atoms(*_WRONG_KINDS)
    if not nodes:
        return None
    nodes = sorted(nodes, key=sp.default_sort_key)
    wrong = next((n for n in nodes if _wrong_node(n)), None)
    if wrong is not None:
        return wrong
    # renamed with the facts its range gives (or at a Subs' point), a node is untrusted where SymPy
    # then claims what it did not claim as written (C(k, 3) "negative" once k is only an integer);
    # the same claims (Max(2, r) "real" as r loses "real") change nothing that SymPy builds
    wrong = _substitution_wrong(e, [m for m in _weak_binders(e) if m], nodes)
    for body, points in _range_points(e):  # the terms _exact_doit writes out, in the body only
        wrong = wrong or _substitution_wrong(body, points)
    return wrong


def _substitution_wrong(e, maps, nodes=None):
    """A node of ``e`` (of ``nodes``, its :data:`_WRONG_KINDS` nodes in order, when given) that,
    with one of ``maps`` put in (a hypothesis c = v, which the ``hypothesis`` rule substitutes; a
    bound variable renamed, a Subs' point, a term's index), holds a node SymPy's facts may be wrong
    about and claims more (review 38: im((−1)^{c/6}) at c := 2^p is built as 0, from 2^p/6 "an
    integer"), or None."""
    if maps and nodes is None:
        nodes = sorted(e.atoms(*_WRONG_KINDS), key=sp.default_sort_key)
    for m in maps:
        keys = set(m)
        for n in nodes or ():
            if keys & n.free_symbols and _claims_more(n, m):
                return n
    return None


def _hypothesis_maps(hyp_sides) -> list:
    """{c: v} and {v: c} for each hypothesis c = v (also inside a tuple of relations): what the
    ``hypothesis`` rule may put in."""
    maps = []
    todo = list(hyp_sides)
    while todo:
        h = todo.pop(0)
        if isinstance(h, (tuple, list)):  # a hypothesis given as several relations (review 40)
            todo += list(h)
        elif isinstance(h, sp.Eq):
            for a, b in (h.args, h.args[::-1]):
                if not a.is_Number:  # a symbol, or an expression the rule replaces (|c| = 2**p)
                    maps.append({a: b})
    return maps


def _claims_more(n, m) -> bool:
    """Whether the node ``n`` rebuilt with ``m`` put in holds a node SymPy's facts may be wrong
    about, and SymPy then claims of it what it did not claim of ``n``; a rebuild SymPy refuses
    counts as one (nothing is known of what it would build)."""
    try:
        w = n.xreplace(m)
    except (ValueError, TypeError):
        return True
    return (w != n and any(_wrong_node(x) for x in ({w} | w.atoms(*_WRONG_KINDS)))
            and bool(_claims(w) - _claims(n)))


def _why_untrusted(n) -> str:
    """``": <why>"`` for a node :func:`_untrusted_node` refuses, else ``""``."""
    why = _untrusted_node(n) if isinstance(n, sp.Basic) else None
    return f": {why}" if why else ""


_CLAIMED = ("positive", "negative", "zero", "nonnegative", "nonpositive", "nonzero", "extended_real", "imaginary",
            "integer", "even", "odd", "rational", "finite")


def _claims(e) -> set:
    """The facts SymPy claims about ``e``: {(name, True or False)}."""
    return {(f, v) for f in _CLAIMED if (v := getattr(e, f"is_{f}", None)) is not None}


def _param_exprs(v):
    """The SymPy expressions among a rule's parameters (not inside sub-chains and cited theorems,
    which are checked step by step on their own)."""
    if isinstance(v, sp.Basic):
        yield v
    elif isinstance(v, Mapping):
        for k, x in v.items():
            yield from _param_exprs(k)
            yield from _param_exprs(x)
    elif isinstance(v, (list, tuple, set, frozenset)):
        for x in v:
            yield from _param_exprs(x)


def _label_parts(exprs) -> tuple[set, set, str | None]:
    """(the symbols standing bare in ``exprs``, the indexed bases' labels, why a label is not a
    plain symbol or None), for :func:`_label_alias`."""
    bare, labels = set(), set()
    for e in exprs:
        todo = [e]
        while todo:
            n = todo.pop()
            if isinstance(n, sp.IndexedBase):
                if not isinstance(n.label, sp.Symbol):
                    return bare, labels, f"the indexed base {sp.sstr(n)} has a label that is not a plain symbol"
                if any(isinstance(a, sp.Basic) and a.free_symbols for a in n.args[1:]):  # its shape (review 36)
                    return bare, labels, (f"the indexed base {sp.sstr(n)} has a shape with symbols in it "
                                          f"({sp.sstr(n.args[1:])}), which a substitution makes another base")
                labels.add(n.label)
            elif isinstance(n, sp.Symbol):
                bare.add(n)
            elif isinstance(n, sp.Basic):
                todo += list(n.args)
    return bare, labels, None


def _label_alias(exprs, also=None) -> str | None:
    """Why ``exprs`` name an indexed base with what else they use (a sentence), or None: a symbol
    that stands bare there and is also a base's label (y beside y[1]), or a label that is not a
    plain symbol ((v + 1)[1]). SymPy's substitutions rename the label with the symbol: y := t makes
    y[1] into t[1], and v := 0 makes (v + 1)[1] into 1[1], which differentiates as a constant.
    ``also``: :func:`_label_parts` of more expressions read with them (a chain's hypotheses,
    gathered once for all its steps)."""
    bare, labels, bad = _label_parts(exprs)
    if also is not None:
        bad = bad or also[2]
        bare, labels = bare | also[0], labels | also[1]
    if bad:
        return bad
    both = sorted(bare & labels, key=str)
    return (f"the symbol {both[0]} is also the label of the indexed base {both[0]} ({both[0]}[...])"
            if both else None)


def _holds_float(v) -> bool:
    """Whether a rule's parameters hold a floating-point number (an instance's values, a bound, a
    weight): sub-chains and cited theorems are checked step by step on their own."""
    if isinstance(v, float):
        return True
    if isinstance(v, sp.Basic):
        return bool(v.atoms(sp.Float))
    if isinstance(v, Mapping):
        return any(_holds_float(k) or _holds_float(x) for k, x in v.items())
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(_holds_float(x) for x in v)
    return False


# unevaluated operations: never evaluated by SymPy here (simplify would take a limit, dropping the
# case a = 0 of lim 1/(ax + 1), or a transform), only by _exact_doit where it can
_OPAQUE = (sp.Sum, sp.Product, sp.Integral, sp.Derivative, sp.Subs, sp.Limit,
           sp.integrals.transforms.IntegralTransform)
_OPAQUE_TAG = secrets.token_hex(8)  # the opaque functions' keyword: a caller cannot forge one by its name
# a derivative is taken only of an expression built from these (and atoms): smooth where defined.
# SymPy differentiates a Piecewise branch by branch (x[x = 0], the zero function, gets derivative 1
# at 0), and reads a kink or a jump as a value (SingularityFunction, atan2, Abs, Max, floor, …)
_SMOOTH = (sp.Add, sp.Mul, sp.Pow, sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.sinh, sp.cosh, sp.tanh, sp.atan,
           sp.asinh, sp.erf, sp.Sum, sp.KroneckerDelta, sp.Derivative, sp.Indexed, sp.Tuple, AppliedUndef)
_TERMS_MAX = 2000  # a sum or product with numeric limits is written out up to this many terms


def _polynomial_in(f, v) -> bool:
    try:
        sp.Poly(f, v)
    except (sp.PolynomialError, sp.GeneratorsError, ValueError, TypeError):
        return False
    return True


def _karr_range(lo, hi):
    """(sign, first, last) of SymPy's (Karr's) reading of lo … hi over the integers: Σ_{lo}^{hi} =
    sign Σ_{first}^{last}, with hi < lo − 1 read as −Σ_{hi+1}^{lo−1}."""
    if hi >= lo - 1:
        return 1, lo, hi
    return -1, hi + 1, lo - 1


def _sum_once(f, k, lo, hi):
    """Σ_{k=lo}^{hi} f evaluated exactly, or None: term by term for numeric limits, (hi − lo + 1) f
    for f free of k, and SymPy's polynomial summation for a polynomial in k (its Faulhaber
    formula F(hi) − F(lo − 1) holds for all integer ends, Karr's reading included)."""
    if k not in f.free_symbols:
        return f * (hi - lo + 1)
    if k in _binder_variables([f]):  # SymPy's subs would replace a Limit's own k too (review 49)
        return None
    if lo.is_Integer and hi.is_Integer:
        sign, a, b = _karr_range(int(lo), int(hi))
        if b - a + 1 > _TERMS_MAX:
            return None
        return sign * sp.Add(*[f.subs(k, v) for v in range(a, b + 1)])
    if _polynomial_in(f, k) and _fact(lo, "integer") and _fact(hi, "integer"):
        g, back = _opaque_map(f)  # its coefficients stay as they are (SymPy's doit would evaluate them)
        return sp.Sum(g, (k, lo, hi)).doit(deep=False).xreplace(back)
    return None


def _product_once(f, k, lo, hi):
    """Π_{k=lo}^{hi} f term by term for numeric limits (Karr's reading: 1/Π_{hi+1}^{lo−1} for
    hi < lo − 1), f^(hi − lo + 1) for f free of k, else None."""
    if k not in f.free_symbols:
        return f ** (hi - lo + 1)
    if not (lo.is_Integer and hi.is_Integer) or k in _binder_variables([f]):  # (a Limit's own k; review 49)
        return None
    sign, a, b = _karr_range(int(lo), int(hi))
    if b - a + 1 > _TERMS_MAX:
        return None
    out = sp.Mul(*[f.subs(k, v) for v in range(a, b + 1)])
    return out if sign > 0 else 1 / out


def _integral_once(f, x, *ends):
    """∫_lo^hi f dx for a polynomial f in x, by its antiderivative F (constant term 0), exactly;
    SymPy's ∫^b f dx is F(b) and the indefinite ∫ f dx is F(x). Else None."""
    if not _polynomial_in(f, x) or x in _binder_variables([f]):  # (a Limit's own x; review 49)
        return None
    g, back = _opaque_map(f)  # the coefficients as atoms (sp.integrate would evaluate a sum among them)
    F = sp.Poly(g, x).integrate().as_expr().xreplace(back)
    if not ends:
        return F
    if len(ends) == 1:
        return F.subs(x, ends[0])
    return F.subs(x, ends[1]) - F.subs(x, ends[0])


def _smooth_node(n) -> bool:
    """Whether the node ``n`` is a :data:`_SMOOTH` piece where it stands: a log of a positive
    argument, a power with an integer exponent or a positive base, atan and asinh of a real one
    (off their branch cuts), or an atom."""
    if n.is_Atom or isinstance(n, (sp.IndexedBase, sp.Idx)):
        return True
    if not isinstance(n, _SMOOTH):
        return False
    if isinstance(n, sp.log):
        return n.args[0].is_positive is True
    if isinstance(n, sp.Pow):
        return n.exp.is_integer is True or n.base.is_positive is True
    if isinstance(n, (sp.atan, sp.asinh)):
        return n.args[0].is_extended_real is True
    return True


def _exact_derivative(e):
    """The derivative ``e`` evaluated where its expression is built from smooth pieces
    (:func:`_smooth_node`) and no binder in it binds a symbol of the variables (SymPy
    differentiates Σ_i X[i]/i by X[i] under the sum, the sum's i taken for the free one); else
    ``e`` itself."""
    if not all(_smooth_node(n) for n in sp.preorder_traversal(e.expr)):
        return e
    if _binder_variables([e.expr]) & set().union(*(sp.sympify(v).free_symbols for v in e.variables)):
        return e
    return e.doit(deep=False)


def _opaque_map(e):
    """(``e`` with each outermost opaque node (a sum, product, integral, derivative or substitution)
    replaced by an undefined function of the node's free symbols, the way back). A function, not a
    symbol: the node stays a function of a variable that a binder around it binds (the same node
    inside Σ_k and outside it are different values)."""
    nodes: list = []

    def walk(a):
        if isinstance(a, _OPAQUE):
            if a not in nodes:
                nodes.append(a)
            return
        for b in a.args if isinstance(a, sp.Basic) else ():
            walk(b)

    walk(e)
    if not nodes:
        return e, {}
    mapping = {}
    for q, a in enumerate(nodes):
        free = sorted(a.free_symbols, key=sp.default_sort_key)
        F = sp.Function(f"_opaque{q}", commutative=a.is_commutative is not False, kernel_opaque=_OPAQUE_TAG)
        mapping[a] = F(*free) if free else F(sp.S.Zero)
    return e.xreplace(mapping), {v: k for k, v in mapping.items()}
def _exact_doit(e):
    """``e`` with the sums, products, integrals, derivatives and substitutions that the kernel
    evaluates exactly (inner ones first): :func:`_sum_once`, :func:`_product_once`,
    :func:`_integral_once`, :func:`_exact_derivative`, a polynomial's ``Limit`` at a finite point,
    and a ``Subs`` into an expression with no binder and nothing opaque left (every variable at
    once). The others stay as they are."""
    if not isinstance(e, sp.Basic) or not e.args or not e.has(*_OPAQUE):
        return e
    args = [_exact_doit(a) for a in e.args]
    if any(a is not b for a, b in zip(args, e.args)):
        e = e.func(*args)
    if isinstance(e, (sp.Sum, sp.Product, sp.Integral)):
        f = e.function
        once = {sp.Sum: _sum_once, sp.Product: _product_once, sp.Integral: _integral_once}[type(e)]
        for lim in e.limits:
            if len(lim) != 3 and not isinstance(e, sp.Integral):
                return e
            f = once(f, *lim)
            if f is None:
                return e
        return f
    if isinstance(e, sp.Derivative):
        return _exact_derivative(e)
    if isinstance(e, sp.Limit):  # a polynomial's limit at a finite point is its value there
        f, z, z0 = e.args[0], e.args[1], e.args[2]
        if z0.is_finite and _polynomial_in(f, z) and not _binder_variables([f]) and not f.has(*_OPAQUE):
            return f.xreplace({z: z0})
        return e
    if isinstance(e, sp.Subs) and not _binder_variables([e.expr]) and not e.expr.has(*_OPAQUE) and not (
            e.expr.has(Expect, Prob, Cond, Indicator) and any(_random_part(v) for v in e.point)):
        # (a random point is not put into a mean or a probability: P(D >= x) at x := D is not P(True))
        # every variable at once (SymPy's doit substitutes one after the other: Subs(x, (x, y), (y, 1))
        # is y, not 1), and only into an expression with no binder left that could capture a point
        return e.expr.xreplace(dict(zip(e.variables, e.point)))
    return e


def _atomized(e):
    """``e`` with each sum, product, integral, derivative and substitution left in it replaced by an
    undefined function of its own (:func:`_opaque_map`): algebra on the rest cannot evaluate them."""
    return _opaque_map(e)[0]


# applications defined wherever their arguments are (no pole of their own); any other function
# (tan, sec, gamma, zeta, …) is a place where an expression may be undefined that the kernel does
# not read, so a chain may pass through it only where its ends have it too (:func:`undefined_parts`)
_TOTAL = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.Abs, sp.re, sp.im, sp.sign, sp.conjugate, sp.Max, sp.Min,
          sp.KroneckerDelta, sp.Heaviside, sp.floor, sp.ceiling, sp.frac, sp.erf, sp.erfc, sp.Piecewise, AppliedUndef)


_NOWHERE = (sp.zoo, sp.nan)  # values that define nothing (x/0 is built as zoo·x)


@_kept
def _zero_factors(b, sure: bool = False) -> frozenset:
    """The factors whose zeros make ``b`` zero: over a common denominator, each factor of the
    product that is not a power with a negative exponent (whose base's zeros are read where the
    power stands), the base of a power with an exponent that may be positive (x^(−y) for y <= 0
    is 0 at x = 0), and the irreducible factors of the rest; a number that is not known non-zero
    (cos² 1 + sin² 1 − 1) is a factor too. With ``sure``, a lower bound: factors at whose zeros
    ``b`` is surely 0, so a power's base only through an exponent known positive (x^y is 1 at
    x = 0 when y = 0) and a number only where it is 0."""

    def zero(n):  # a number that counts as a zero factor
        return n.is_zero is True if sure else n.is_zero is not False

    def through(m):  # a power whose base's zeros are its own
        return m.exp.is_positive is True if sure else m.exp.is_negative is not True

    out = set()
    for m in sp.Mul.make_args(sp.together(b)):
        if m.is_number:
            if zero(m):
                out.add(m)
        elif isinstance(m, sp.Pow):
            if through(m):
                out |= _zero_factors(m.base, sure)
        else:
            try:
                coeff, fs = sp.factor_list(m)
            except (sp.PolynomialError, NotImplementedError, TypeError, ValueError, sp.GeneratorsError):
                out.add(m)
                continue
            if zero(coeff):
                out.add(coeff)
            for f, _ in fs:
                if isinstance(f, sp.Pow):
                    out |= _zero_factors(f, sure)
                elif not f.is_number or zero(f):
                    out.add(f)
    return frozenset(out)


@_kept
def undefined_parts(e) -> tuple[frozenset, frozenset]:
    """Where ``e`` may be undefined, as ``(factors, partial)``: ``e`` is defined wherever no
    expression of ``factors`` is 0 and every application in ``partial`` is.

    ``factors`` are the zero factors (:func:`_zero_factors`) of the base of every power whose
    exponent is not known >= 0, of every log's argument, and of the terms of every product whose
    range may run backwards (Karr's reading divides by them: Π_{k=1}^{-1} y = 1/y); ``partial``
    holds the applications of functions with poles of their own (tan, gamma, …: not among the
    functions defined wherever their arguments are, ``_TOTAL``, logic, nor this package's own
    vocabulary). Inside sums, integrals and arguments too. A conditioned value ``Cond(X, A)``, and
    a mean ``E[Cond(X, A)]``, brings the factor ``P(A)`` (the space given A does not exist where
    it is 0), except under a factor ``P(A)`` (reviews 61 and 64).

    >>> x = sp.Symbol("x", real=True)
    >>> undefined_parts((x**2 - 1) / (x - 1)) == (frozenset({x - 1}), frozenset())
    True
    >>> D = sp.Function("D")(1)
    >>> undefined_parts(Cond(D, D >= 5))[0] == {Prob(D >= 5)}, undefined_parts(Prob(D >= 5) * Cond(D, D >= 5))[0]
    (True, frozenset())
    """
    return _undefined_parts(sp.sympify(e), frozenset(), frozenset())


def _undefined_parts(e, sure, bound) -> tuple[frozenset, frozenset]:
    """:func:`undefined_parts` of ``e`` but for the sub-expressions in ``sure`` (each undefined
    where something else already is), except under a binder of one of their own symbols
    (``bound``: Σ_{k=1}^{1} 1/(x − k) is not the 1/(x − k) of a free k). A covered part's own
    value still counts where the parts around it read it (1/n is undefined where n = 0)."""
    factors, partial = set(), set()
    # outer: the events of the Cond values around n, pointwise (not across a mean or a probability,
    # which is a number): Cond(Cond(W, A), B) is W on the space given A and B, which does not exist
    # where P(A and B) = 0, though P(A) and P(B) may both be positive (review 65)
    todo = [(e, bound, frozenset(), frozenset())]
    while todo:
        n, bd, given, outer = todo.pop()
        if n in _NOWHERE:  # complex infinity and nan are defined nowhere: undefined where 0 = 0
            factors.add(sp.S.Zero)
            continue
        if n.is_Atom or not n.args:
            continue
        if sure and n in sure and not (n.free_symbols & bd):
            continue
        if isinstance(n, sp.Pow):
            if n.exp.is_nonnegative is not True:
                factors |= _zero_factors(n.base)
        elif isinstance(n, sp.log):
            factors |= _zero_factors(n.args[0])
        elif isinstance(n, sp.Product):
            if not all(len(lim) == 3 and _fact(lim[2] - lim[1] + 1, "nonnegative") for lim in n.limits):
                for f in sp.Mul.make_args(n.function):
                    factors |= _zero_factors(f)
        elif isinstance(n, sp.core.function.Application) and not _total_application(n):
            partial.add(n)
        if isinstance(n, Expect):
            # E[X | A] = E[X 1_A]/P(A): undefined where P(A) = 0 (review 61: c >= 1 from "c >= 1 on A"
            # with A impossible), unless a factor P(A) multiplies it, as in the law of total
            # expectation E[X | A] P(A) + E[X | not A] P(not A): E[X 1_A], 0 where P(A) = 0
            factors |= {Prob(a) for a in _given_events(n) - given}
        elif isinstance(n, Cond) and n.args[1] not in given:
            # a conditioned value outside a mean is a value on the space given A, which does not
            # exist where P(A) = 0 (review 64: c = Cond(c, A), "c is c where A holds", and "c >= 1
            # where A holds", both vacuous where A cannot happen, took a chain from c to 1 through
            # Cond(c, A), so c >= 1 at c = 0): undefined there, as E[· | A] is
            factors.add(Prob(n.args[1]))
        if isinstance(n, Cond) and outer and (both := _conjunction({n.args[1], *outer})) not in given:
            factors.add(Prob(both))
        if isinstance(n, sp.Mul):
            given = _given_by(n, given)
        inner = bd | _bound_here(n) if sure else bd
        under = _unbound(given, n)
        if isinstance(n, Cond):
            todo += [(n.args[0], inner, under, outer | {n.args[1]}), (n.args[1], inner, under, frozenset())]
            continue
        within = frozenset() if isinstance(n, (Expect, Prob)) else outer
        todo += [(a, inner, under, within) for a in n.args if isinstance(a, sp.Basic)]
    return frozenset(factors), frozenset(partial)


def _conjunction(events):
    """The event that all of ``events`` hold (And; a tuple of them where SymPy's And cannot hold
    one, an indicator function: a factor no hypothesis states, so never proved non-zero)."""
    events = sorted(events, key=sp.default_sort_key)
    try:
        return sp.And(*events)
    except TypeError:
        return sp.Tuple(*events)


def _total_application(n) -> bool:
    """Whether the application ``n`` has no pole of its own: a :data:`_TOTAL` function, logic,
    the kernel's own vocabulary, C(n, k) with k a fixed integer >= 0 (a polynomial in n), or n! of
    a non-negative integer."""
    if isinstance(n, _TOTAL + (sp.logic.boolalg.Boolean,)) or type(n).__module__ == __name__:
        return True
    if isinstance(n, sp.binomial):  # a polynomial in n for a fixed k = 0, 1, 2, … (C(n, n) is 0 at n = −1)
        return n.args[1].is_Integer and n.args[1] >= 0
    if isinstance(n, sp.factorial):
        return n.args[0].is_integer is True and n.args[0].is_nonnegative is True
    return False


def _nonzero(f, rels=()) -> bool:
    """Whether ``f`` is proved non-zero (from its assumptions, and the relations ``rels``)."""
    return (f.is_nonzero is True or _nonnegative(f, tuple(rels), strict=True)
            or _nonnegative(-f, tuple(rels), strict=True))


# the nodes through which an expression is surely undefined where a part of it is: sums, products
# and powers of it, the functions of one argument that keep an undefined argument undefined, and
# the max and min of several (undefined wherever one of their arguments is)
_SKELETON = (sp.Add, sp.Mul, sp.Pow, sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.Abs, sp.re, sp.im, sp.conjugate,
             sp.log, sp.Max, sp.Min, Norm, Inner)


def _sure_nodes(e) -> set:
    """The sub-expressions of ``e`` reached through ``_SKELETON`` nodes and single-argument
    applications, and into sums and products over ranges that are not empty and integrals over
    segments of positive length (the parts free of their variables): ``e`` is undefined wherever
    one of them is."""
    out, seen, todo = set(), set(), [(sp.sympify(e), frozenset(), frozenset())]
    while todo:
        n, bd, given = todo.pop()
        if n in _NOWHERE:
            out.add(n)
            continue
        if n.is_Atom or (n, bd, given) in seen:
            continue
        seen.add((n, bd, given))
        if isinstance(n, (Expect, Cond, Prob, Indicator)) and given and _held_events(n) & given:
            # E[X | A] under a factor P(A) is E[X 1_A], defined where P(A) = 0 (as _undefined_parts reads
            # it): not surely undefined there (review 62: P(A)·E[c | A] in an end let a bare E[c | A]
            # through the middle of the chain); nor is a conditioned value, or the probability or
            # indicator of an event on the space given A, under that factor (review 65: P(A)·Cond(c, A)
            # and P(A)·P(D >= 1 | A) in the ends let a bare one through the middle, c + T >= 1 + T)
            continue
        if not (n.free_symbols & bd):
            out.add(n)
        if isinstance(n, sp.Mul):
            given = _given_by(n, given)
        if isinstance(n, _SKELETON) or (isinstance(n, sp.core.function.Application) and len(n.args) == 1
                                        and not _bound_here(n)):
            todo += [(a, bd, given) for a in n.args]
        elif isinstance(n, (sp.Sum, sp.Product)) and all(len(lim) == 3 and _nonzero(lim[2] - lim[1] + 1) for lim in n.limits):
            todo.append((n.function, bd | {lim[0] for lim in n.limits}, _unbound(given, n)))
        elif isinstance(n, sp.Integral) and all(len(lim) == 3 and _nonzero(lim[2] - lim[1]) for lim in n.limits):
            # (over a segment of positive length: a part free of the variable is undefined at every point of it)
            todo.append((n.function, bd | {lim[0] for lim in n.limits}, _unbound(given, n)))
    return out


def _held_events(n) -> frozenset:
    """The events of the Cond values in ``n``, itself included."""
    return frozenset(c.args[1] for c in sp.preorder_traversal(n) if isinstance(c, Cond))


def _given_events(n) -> frozenset:
    """The events of the Cond values inside the mean ``n``."""
    return frozenset(c.args[1] for c in sp.preorder_traversal(n.args[0]) if isinstance(c, Cond))


def _given_by(mul, given: frozenset) -> frozenset:
    """``given`` plus the events A of the factors P(A) of the product ``mul``."""
    return given | {f.args[0] for f in mul.args if isinstance(f, Prob)}


def _unbound(given: frozenset, n) -> frozenset:
    """The events of ``given`` that read no variable the binder ``n`` binds (under it, an event
    in that variable is another one: review 62)."""
    here = _bound_here(n)
    return frozenset(a for a in given if not (a.free_symbols & here)) if here else given


def _sure_parts(nodes) -> tuple[frozenset, frozenset]:
    """``(factors, partial)`` of :func:`undefined_parts` read at ``nodes`` alone, not inside them,
    and as a lower bound: a power with a negative exponent is undefined where its base is surely
    0 (:func:`_zero_factors` with ``sure``), and so is a log."""
    factors, partial = set(), set()
    for n in nodes:
        if n in _NOWHERE:
            factors.add(sp.S.Zero)
        elif isinstance(n, sp.Pow) and n.exp.is_negative is True:
            factors |= _zero_factors(n.base, sure=True)
        elif isinstance(n, sp.log):
            factors |= _zero_factors(n.args[0], sure=True)
        elif isinstance(n, sp.core.function.Application) and not _total_application(n):
            partial.add(n)
    return frozenset(factors), frozenset(partial)


@_kept
def surely_undefined(e) -> tuple[frozenset, frozenset]:
    """Where ``e`` is surely undefined, as ``(factors, partial)`` like :func:`undefined_parts`, but
    a lower bound: read only at the sub-expressions through which an undefined part makes ``e``
    undefined (sums, products, negative powers, norms, functions of one argument, and non-empty
    sums and integrals for the parts free of their variables; no ``Piecewise``, no power whose
    exponent may be >= 0), ``e`` is undefined wherever a factor is 0 and wherever an application
    of ``partial`` is undefined.

    >>> x = sp.Symbol("x", real=True); k = sp.Symbol("k", integer=True)
    >>> surely_undefined(1 / (x - 1) + sp.Sum(1 / (x - k), (k, 5, 5)))[0] == {x - 1}
    True
    """
    return _sure_parts(_sure_nodes(e))


def _union(parts) -> tuple[set, set]:
    """The union of several ``(factors, partial)`` pairs."""
    fs, qs = set(), set()
    for f, q in parts:
        fs |= f
        qs |= q
    return fs, qs


def _newly_undefined(e, others, rels=()) -> str | None:
    """Where ``e`` may be undefined and none of ``others`` is (a sentence), or None: every factor
    of ``e``'s :func:`undefined_parts` that is not :func:`surely_undefined` in one of the others
    is proved non-zero from ``rels``, and every partial application of ``e`` is surely undefined
    in one of them. A part of ``e`` with a variable bound in ``e`` is never matched with the
    others' (Σ_{k=1}^{1} 1/(x − k) has a pole at 1, Σ_{k=5}^{5} 1/(x − k) at 5)."""
    e = sp.sympify(e)
    nodes = set().union(*map(_sure_nodes, others)) if others else set()
    fo, po = _sure_parts(nodes)
    # a part that the others surely have is undefined where they are: it is not read
    sure = frozenset(n for n in nodes if any(undefined_parts(n)))
    fe, pe = _undefined_parts(e, sure, frozenset()) if sure else undefined_parts(e)
    bound = _binder_variables([e])

    def covered(part, cover):
        return part in cover and not (part.free_symbols & bound)

    extra = sorted((q for q in pe if not covered(q, po)), key=sp.default_sort_key)
    if extra:
        return f"{sp.sstr(extra[0])} may be undefined there (a function with poles the kernel does not read)"
    for f in sorted((f for f in fe if not covered(f, fo)), key=sp.default_sort_key):
        # (a hypothesis about a free k says nothing of the k a sum binds)
        if not _nonzero(f, () if f.free_symbols & bound else rels):
            return f"it is undefined where {sp.sstr(f)} = 0, which is not proved non-zero"
    return None


@_kept
def _conditioning(e) -> frozenset:
    """The probabilities P(A) at whose zero ``e`` is undefined because it holds a value conditioned
    on A (``Cond(X, A)`` or E[X | A] outside a factor P(A)): the factors P(·) of
    :func:`undefined_parts`, for an expression with a Cond."""
    e = sp.sympify(e)
    if not isinstance(e, sp.Basic) or not e.has(Cond):
        return frozenset()
    return frozenset(f for f in undefined_parts(e)[0] if isinstance(f, Prob))


def _surely_conditioned(sides) -> frozenset:
    """The probabilities P(A) at whose zero one of ``sides`` is surely undefined: it holds a value
    conditioned on A outside every factor P(A), where an undefined part makes it undefined
    (:func:`_sure_nodes`)."""
    out: set = set()
    for side in sides:
        side = sp.sympify(side)
        if isinstance(side, sp.Basic) and side.has(Cond):
            for n in _sure_nodes(side):
                if isinstance(n, (Cond, Expect, Prob, Indicator)):  # (a probability or indicator of an event given A)
                    out |= _conditioning(n)
    return frozenset(out)


def _unread_conditioned(h_sides, step_sides, rels, strict: bool = False):
    """A relation about ``h_sides`` that holds a value conditioned on A says nothing where P(A) = 0
    (review 64: "c >= 1 where A holds" is vacuous when A cannot happen), so a step about
    ``step_sides`` may read it only where that does not matter: P(A) is proved non-zero from
    ``rels``, or a side of the step is itself surely undefined there, or the step holds trivially
    there: its two sides identical with P(A) := 0 (as under a factor P(A), where E[X | A] P(A) is
    E[X 1_A]), or its one side, a sign question ``e >= 0`` (not ``strict``), 0. The first P(A) that
    is none of these, else None (review 65: c >= ‖Cond(u, A)‖ gave c >= 0 by algebra, and
    c + Cond(0, A) >= 1 + Cond(0, A) was the step c >= 1)."""
    need = set().union(*(_conditioning(x) for x in h_sides if isinstance(x, sp.Basic)))
    if not need:
        return None
    step_sides = tuple(sp.sympify(x) for x in step_sides)
    sure = _surely_conditioned(step_sides)
    bound = _binder_variables(list(step_sides))
    for f in sorted(need, key=sp.default_sort_key):
        if f in sure or _nonzero(f, rels):
            continue
        if f.free_symbols & bound:
            return f
        at = [x.xreplace({f: sp.S.Zero}) for x in step_sides]
        if (len(at) == 2 and is_identity(*at)) or (len(at) == 1 and not strict and is_identity(at[0], 0)):
            continue
        return f
    return None


def _readable(hypotheses: tuple, expr, strict: bool = False) -> tuple:
    """``hypotheses`` less the inequalities that hold a value conditioned on an event A and so say
    nothing where P(A) = 0, for a sign question about ``expr`` that may (:func:`_unread_conditioned`,
    with P(A) proved non-zero from the hypotheses that hold no such value)."""
    def conditioned(h):
        return isinstance(h, sp.core.relational.Relational) and not isinstance(h, sp.Eq) and h.has(Cond) and bool(
            _conditioning(h.lhs) | _conditioning(h.rhs))

    if not any(conditioned(h) for h in hypotheses):
        return hypotheses
    plain = tuple(h for h in hypotheses if not conditioned(h))
    return tuple(h for h in hypotheses
                 if not conditioned(h) or _unread_conditioned((h.lhs, h.rhs), (expr,), plain, strict) is None)


def _defined_where_step(sides, ends, ctx, what: str) -> None:
    """Refuse (``_Fail``) a relation a rule uses, about ``sides``, that may be undefined where the
    step's ``ends`` are defined under ``ctx``'s hypotheses. A relation that a sub-chain, a fact
    chain, a cited premise or a case split gives says nothing where its sides are undefined, so
    the step may use it only where they are defined: at a point where the step is defined and
    the relation is not, the step would rest on nothing (the cases tan x > 0 and tan x <= 0
    leave out x = π/2)."""
    rels = None
    for side in sides:
        side = sp.sympify(side)
        if not isinstance(side, sp.Basic) or not any(undefined_parts(side)):
            continue
        if rels is None:
            rels = tuple(ctx.relations())
        why = _newly_undefined(side, tuple(ends), rels)
        _need(why is None, f"{what}: {sp.sstr(side)} may be undefined where this step is defined: {why}")


def _same_poles(lhs, rhs) -> bool:
    """Whether the two sides of an identity are undefined at the same points: every factor of one
    side's :func:`undefined_parts` that the other's lacks is known to be non-zero, and their
    partial applications are the same. Cancelling a removable 0/0 (δ(x, 1) = (x² − 1) δ(x, 1)/((x
    − 1)(x + 1)), or sin x = tan x cos x) would let a chain pass through a point where its middle
    is undefined, and a later substitution of the numerator by 0 would make δ(x, 1) = 0."""
    return _newly_undefined(lhs, (rhs,)) is None and _newly_undefined(rhs, (lhs,)) is None


# the assumptions a variable that runs over a real segment, or tends to a point, may carry: its
# segment (or the side it comes from) gives them where the test holds of the ends
_SEGMENT_PROFILES = (
    ({"real": True, "positive": True}, lambda a, b: _fact(a, "nonnegative") and _fact(b, "nonnegative")),
    ({"real": True, "nonnegative": True}, lambda a, b: _fact(a, "nonnegative") and _fact(b, "nonnegative")),
    ({"real": True, "negative": True}, lambda a, b: _fact(a, "nonpositive") and _fact(b, "nonpositive")),
    ({"real": True, "nonpositive": True}, lambda a, b: _fact(a, "nonpositive") and _fact(b, "nonpositive")),
    ({"real": True}, lambda a, b: _real_end(a) and _real_end(b)),
    ({}, lambda a, b: True),
)


def _fits(v, profile: dict) -> bool:
    """Whether every assumption of the variable ``v`` is one a symbol declared with ``profile`` has."""
    allowed = sp.Dummy("v", **profile).assumptions0
    return all(allowed.get(a) == val for a, val in _profile(v).items())


_PROFILE_FACTS = ("commutative", "complex", "real", "extended_real", "finite", "integer", "rational", "irrational",
                  "algebraic", "transcendental", "positive", "nonnegative", "negative", "nonpositive", "zero", "nonzero",
                  "even", "odd", "prime", "composite", "imaginary", "noninteger", "extended_positive",
                  "extended_negative", "extended_nonnegative", "extended_nonpositive", "extended_nonzero", "infinite")


def _profile(v) -> dict:
    """What SymPy knows of the variable ``v`` (a symbol's assumptions, or an indexed entry's, read
    from its base): fact name -> True/False."""
    if isinstance(v, sp.Symbol):
        return dict(v.assumptions0)
    out = {}
    for a in _PROFILE_FACTS:
        val = getattr(v, f"is_{a}", None)
        if val is not None:
            out[a] = val
    return out


def _holds_at(v, p) -> bool:
    """Whether the point ``p`` has every assumption of the variable ``v`` (p's own binders renamed)."""
    p = _alpha(sp.sympify(p))
    return all(getattr(p, f"is_{a}", None) == val for a, val in _profile(v).items())


_MISDECLARABLE = (sp.Sum, sp.Product, sp.Integral, sp.Subs, sp.Limit, sp.Derivative, Cup, sp.Lambda)  # with _Extremum and Mat (at the end)


def _misdeclared_reason(bad: list) -> str:
    return (f"{bad[0]} is declared with an assumption its range does not give (SymPy reads it as a fact when it "
            "builds the expression: declare the variable with what its range gives)")


def _misdeclared_statement(lhs, rhs, ctx) -> list:
    """:func:`_misdeclared` of a statement: its sides, its context's relations (a hypothesis
    Σ_{k=−1}^{−1} √(k²) z >= z with k declared positive is built as Σ k z >= z) and the fields
    of its facts (review 69: a ``WeightedNorm`` radius Σ_{k=−1}^{−1} (|k| − k + 1), which is 3,
    built as Σ 1 = 1 with k positive, let ``weighted-norm`` prove a bound a third too small)."""
    if not any(isinstance(x, sp.Basic) and x.has(*_MISDECLARABLE) for x in [lhs, rhs] + [
            a for h in ctx.hypotheses.values() for a in _sides(h)]):
        return []
    rels = tuple(ctx.relations())
    out = _misdeclared(lhs, rels) + _misdeclared(rhs, rels)
    for r in rels:
        out += _misdeclared(r.lhs, rels) + _misdeclared(r.rhs, rels)
    for h in ctx.hypotheses.values():
        if isinstance(h, FACTS):
            for a in _fact_sides(h):
                out += _misdeclared(a, rels)
    return out


def _real_end(e) -> bool:
    """Whether the end ``e`` of a segment is known real: by SymPy's facts, or as a sum or integral
    of a real term over real ends (SymPy leaves ∫_0^2 x dt undecided for x real)."""
    if _fact(e, "extended_real"):
        return True
    if isinstance(e, (sp.Integral, sp.Sum)) and all(len(lim) == 3 for lim in e.limits):
        return all(_real_end(b) for lim in e.limits for b in lim[1:]) and _real_end(e.function)
    return False


def _approach_ok(profile: dict, z0, way) -> bool:
    """Whether every point near ``z0`` on the side ``way`` ("+", "-", or "+-" for both) has the
    assumptions of a variable declared with ``profile`` (a :data:`_SEGMENT_PROFILES` one): z → 0⁻
    runs over negative values, which a variable declared non-negative does not take."""
    sign = ("nonnegative" if profile.get("positive") or profile.get("nonnegative") else
            "nonpositive" if profile.get("negative") or profile.get("nonpositive") else None)
    if sign is None:
        return not profile or _real_end(z0)
    toward = {"nonnegative": "+", "nonpositive": "-"}[sign]
    # from the side away from 0 the point itself may be 0; from the other (or both) it must not
    return _fact(z0, sign if str(way) == toward else {"nonnegative": "positive", "nonpositive": "negative"}[sign])


@_kept
def _misdeclared(e, rels=()) -> list:
    """The binders in ``e`` whose variable is declared with an assumption that its range does not
    give (or is not proved to give), as sentences: k positive in Σ_{k=−1}^{−1}, t positive in
    ∫_{−1}^{0}, in ∫^{−1} (the kernel reads it as ∫_0^{−1}) or on a path to i, t positive in a
    substitution t := −1 or a limit t → −1 or t → 0⁻, n declared an integer in a derivative by n,
    any assumption on the variable of another binder (an integral transform). SymPy reads such an
    assumption as a fact when it builds the expression (Σ_{k=−1}^{−1} √(k²) is built as
    Σ_{k=−1}^{−1} k), so no renaming can undo it: a step with one is refused. The relations
    ``rels`` are about free symbols: a range whose ends hold a variable that a binder of ``e``
    binds is read without them."""
    if not isinstance(e, sp.Basic):
        return []
    bound = _binder_variables([e])
    if not bound and not e.has(*_MISDECLARABLE):
        return []

    def rels_for(*ends):  # (Σ_{j=−1}^{−1} Σ_{k=j}^{j}: a hypothesis j >= 1 is about the free j)
        return () if any(sp.sympify(x).free_symbols & bound for x in ends) else rels

    out = []
    for b in e.atoms(sp.Sum, sp.Product, Cup, sp.Integral):
        for lim in b.limits:
            if isinstance(b, sp.Integral):
                # ∫^b f dt and the indefinite ∫ f dt are read as ∫_0^b and ∫_0^t (_integral_once)
                v, lo, hi = lim if len(lim) == 3 else (lim[0], sp.Integer(0), lim[-1])
                if not any(_fits(v, prof) and ok(lo, hi) for prof, ok in _SEGMENT_PROFILES):
                    out.append(f"{v} in the integral over {sp.sstr(lo)} … {sp.sstr(hi)}")
                continue
            if len(lim) != 3:
                continue
            v, lo, hi = lim
            if _index_misfit(v, lo, hi, rels_for(lo, hi)):
                out.append(f"{v} in the {type(b).__name__.lower()} over {sp.sstr(lo)} … {sp.sstr(hi)}")
    for b in e.atoms(_Extremum, Mat):
        lam, n = b.args
        for v in lam.variables:
            if _index_misfit(v, 1, n, rels_for(n)):
                out.append(f"{v} in the {type(b).__name__} over 1 … {sp.sstr(n)}")
    for b in e.atoms(sp.Subs):
        for v, p in zip(b.variables, b.point):
            if not _holds_at(v, p):
                out.append(f"{v} in the substitution {v} := {sp.sstr(p)}")
    for b in e.atoms(sp.Limit):
        f, z, z0, way = b.args
        at_inf = {sp.oo: [{"positive": True}, {"positive": True, "integer": True}, {"integer": True}, {"real": True}],
                  -sp.oo: [{"negative": True}, {"negative": True, "integer": True}, {"integer": True}, {"real": True}]}
        if z0 in at_inf:  # a sequence's limit (n → ∞ over the integers) or a function's
            ok = any(_fits(z, p) for p in at_inf[z0])
        else:  # at a finite point the variable runs over the points near it, on the side it comes from
            ok = any(_fits(z, prof) and _approach_ok(prof, z0, way) for prof, _ in _SEGMENT_PROFILES)
        if not ok:
            out.append(f"{z} in the limit {z} → {sp.sstr(z0)}{'' if str(way) == '+-' else str(way)}")
    for b in e.atoms(sp.Derivative):
        for v, _ in b.variable_count:
            if not any(_fits(v, prof) for prof, _ in _SEGMENT_PROFILES):
                out.append(f"{v} in the derivative by {v} (a derivative needs a variable that runs over a segment)")
    # any other binder (an integral transform, a set builder): the kernel knows no range for its
    # variable, so the variable may carry no assumption SymPy could read as a fact
    # (a Lambda is one, unless it is a MaxOver's, MinOver's or Mat's, whose range 1..n is checked
    # above: j ↦ Σ_{k=j}^{j} b[k] in an ImageSet over the integers, or as a function's argument,
    # runs over every integer whatever j's declaration says; review 67)
    known = tuple(t for t in (sp.Sum, sp.Product, Cup, sp.Integral, sp.Subs, sp.Limit, sp.Derivative) + _MISDECLARABLE
                  if t is not sp.Lambda)
    owned = {b.args[0] for b in e.atoms(_Extremum, Mat)}
    for b in sp.preorder_traversal(e):
        if isinstance(b, known) or not isinstance(b, sp.Basic) or b.is_Atom or b in owned:
            continue
        for v in sorted(_bound_here(b), key=str):
            if not _fits(v, {}):
                out.append(f"{v} bound by {type(b).__name__}, whose range the kernel does not know")
    return out


def is_identity(lhs, rhs=0, *, deep: bool = False) -> bool:
    """Exact check that ``lhs - rhs`` is zero: ``expand``, then ``cancel`` of the difference
    (rational functions), finite sums evaluated by ``doit``; with ``deep``, ``simplify`` as a
    last resort.

    >>> p = sp.Symbol("p")
    >>> is_identity(p / (p + 1), 1 - 1 / (p + 1))
    True
    """
    try:
        if _has_float(lhs) or _has_float(rhs):  # Float − Rational is rounded to the Float's precision
            return False
        if _wrong_facts(lhs) is not None or _wrong_facts(rhs) is not None:  # simplification reads facts
            return False
        lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
        if lhs == rhs:
            return True
        if _unbounded(lhs) or _unbounded(rhs):
            return False
        # a bound variable's own assumptions are no facts about its range: expand splits log(k x)
        # for k declared positive, in Σ_{k=−1}^{−1} too. Where a range does not give them, each
        # side's binders are renamed to kernel symbols that carry only what their ranges give (what
        # SymPy read from them when it built the expression no renaming undoes: a chain's step with
        # such a binder is refused, see Chain.check_steps)
        if _misdeclared(lhs) or _misdeclared(rhs):
            lhs, rhs = _alpha(lhs), _alpha(rhs)
        d = lhs - rhs
        if d == 0 or sp.expand(d) == 0:
            return _same_poles(lhs, rhs)
        if _odd_limits(d):  # doit would evaluate a polynomial formula there, not a sum of terms
            return False
        if d.has(sp.Sum) and sp.expand(_sum_linear(d)) == 0:  # linearity of finite sums (cheap and exact)
            return _same_poles(lhs, rhs)
        if d.has(*_OPAQUE):
            # what the kernel evaluates exactly (:func:`_exact_doit`), not SymPy's doit: its closed
            # forms drop conditions (Σ_{k=0}^{n} (−1)^k C(n, k) = 0 fails at n = 0), its integrals
            # with parameters can be wrong, and it differentiates a Piecewise branch by branch
            d = _exact_doit(_sum_linear(d) if d.has(sp.Sum) else d)
            if d == 0 or sp.expand(d) == 0:
                return _same_poles(lhs, rhs)
            if d.has(Norm) and sp.expand(_norm_canonical(d)) == 0:
                return _same_poles(lhs, rhs)
            d = _atomized(d)  # the rest are atoms to the algebra below (simplify would evaluate them)
        if sp.cancel(sp.together(d)) == 0:
            return _same_poles(lhs, rhs)
        if d.has(Norm) and sp.expand(_norm_canonical(d)) == 0:
            return _same_poles(lhs, rhs)
        # simplify folds a quotient into a Piecewise and cancels there (C/(x − 1) with C = (x − 1)[x = 1]
        # "is" [x = 1], which is 0/0 at x = 1): not for a Piecewise
        return deep and not d.has(sp.Piecewise) and sp.simplify(d) == 0 and _same_poles(lhs, rhs)
    except (sp.PolynomialError, NotImplementedError, TypeError, AttributeError, ValueError, sp.SympifyError, RecursionError):
        # SymPy cannot handle the expression (e.g. a relation inside a Piecewise, or a sum over
        # an empty range with a fractional end, where it recurses without end): not an identity
        return False


def _unbounded(e) -> bool:
    """Whether ``e`` holds a sum, product or integral over a range with an infinite end. The
    kernel reads every quantity as a finite real, and whether such a series or integral
    converges is nothing it checks: SymPy's numeric evaluation of one runs a quadrature of
    ∫_0^∞ 1 dt that does not return, and raises on Σ_{k>=1} 1 (review 50)."""
    if not isinstance(e, sp.Basic) or not e.has(sp.Sum, sp.Product, sp.Integral):
        return False
    return any(isinstance(v, sp.Basic) and v.has(sp.oo, -sp.oo, sp.zoo)
               for b in e.atoms(sp.Sum, sp.Product, sp.Integral) for lim in b.limits for v in lim[1:])


def _odd_limits(e) -> list:
    """The limits of the sums, products and unions in ``e`` not known to be integers: SymPy's
    doit evaluates Σ_{k=1}^{6/5} (k − 1)⁴ by the polynomial formula (−49/15625), while its
    sign is read from the terms, so such a sum is no sum of terms the kernel can reason with."""
    if not isinstance(e, sp.Basic):
        return []
    return [v for b in e.atoms(sp.Sum, sp.Product, Cup) for lim in b.limits for v in lim[1:]
            if not _fact(v, "integer")]


def _norm_canonical(e):
    """``e`` with the argument of every norm written as Σ_v c_v v over its vector monomials v,
    each commutative coefficient c_v put in lowest terms (``cancel``): exact, and it lets
    ``norm(x - Σ w_j y_j)`` meet ``norm(Σ w_j (x - y_j))`` when Σ w_j = 1 cancels."""
    if not isinstance(e, sp.Basic) or not e.args:
        return e
    if isinstance(e, Norm):
        groups: dict = {}
        for term in sp.Add.make_args(sp.expand(e.args[0])):
            c, nc = term.args_cnc()
            key = sp.Mul(*nc)
            groups[key] = groups.get(key, 0) + sp.Mul(*c)
        return Norm(sp.Add(*[sp.cancel(sp.together(c)) * v for v, c in groups.items()]))
    return e.func(*[_norm_canonical(a) for a in e.args])


def _sum_linear(e):
    """``e`` with every one-index sum split by linearity: Σ_i (c f_i + g_i) = c Σ_i f_i + Σ_i g_i
    for c free of i (a vector factor free of i too, on the right), and Σ_{i=lo}^{hi} c = (hi − lo + 1) c
    (both exact for SymPy's sums, whatever the range)."""
    if not isinstance(e, sp.Basic) or not e.args:
        return e
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        i, lo, hi = e.limits[0]
        out = []
        for term in sp.Add.make_args(sp.expand(_sum_linear(e.function))):
            c, nc = term.args_cnc()
            coeff = [f for f in c if i not in f.free_symbols]
            dep = [f for f in c if i in f.free_symbols]
            k = sp.Mul(*coeff)
            right = sp.Mul(*nc)  # Σ_i c_i V = (Σ_i c_i) V for a vector V free of i (c_i scalars)
            if i in right.free_symbols:
                dep, right = dep + nc, sp.S.One
            if not dep:
                out.append(k * (hi - lo + 1) * right)
            else:
                out.append(k * sp.Sum(sp.Mul(*dep), (i, lo, hi)) * right)
        return sp.Add(*out)
    return e.func(*[_sum_linear(a) for a in e.args])


def _nonneg_form(rel) -> tuple[sp.Expr, bool] | None:
    """``g`` and strictness for a relation read as ``g >= 0`` (or ``g > 0``)."""
    if isinstance(rel, (sp.Ge, sp.Gt)):
        return rel.lhs - rel.rhs, isinstance(rel, sp.Gt)
    if isinstance(rel, (sp.Le, sp.Lt)):
        return rel.rhs - rel.lhs, isinstance(rel, sp.Lt)
    return None


def _sign_ok(e, strict: bool) -> bool:
    candidates = [e]
    try:
        t = sp.cancel(sp.together(e))
        candidates.append(t)
        num, den = sp.fraction(t)
        num, den = sp.expand(num), sp.expand(den)
        if (num.is_positive if strict else num.is_nonnegative) and den.is_positive:
            return True
        candidates.append(sp.factor(t))
    except (sp.PolynomialError, NotImplementedError, TypeError):
        pass
    for c in candidates:
        if (c.is_positive if strict else c.is_nonnegative) is True:
            return True
    return False


def prove_nonnegative(expr, hypotheses: Sequence = (), *, strict: bool = False, max_tries: int = 80) -> bool:
    """Prove ``expr >= 0`` (``> 0`` if ``strict``) from the symbols' assumptions and the
    hypotheses, exactly. Never returns True on a guess: a False means "not proved".

    Each hypothesis ``g >= 0`` that is linear in a symbol s with a positive coefficient may
    be used as a *slack substitution* s = (t − rest)/coef with a fresh t >= 0; after that
    SymPy's sign rules must decide (a sum of non-negative terms, a ratio of polynomials with
    non-negative coefficients, ...). All ways of choosing the substituted symbols are tried.

    >>> m, d, x, M = sp.symbols("m d x M", positive=True)
    >>> prove_nonnegative(M * (M - m), [M >= m])
    True
    >>> prove_nonnegative(M - m)
    False
    """
    rels = tuple(h for h in hypotheses if isinstance(h, sp.core.relational.Relational))
    # a binder declared with what its range does not give (Σ_{k=0}^{q} atan k with k positive: SymPy
    # reads k > 0 as a fact and calls the sum positive, 0 at q = 0); a chain checks its steps for
    # it (_misdeclared_statement) before its rules call _nonnegative
    if any(_misdeclared(x, rels) for x in [sp.sympify(expr)] + [a for h in rels for a in (h.lhs, h.rhs)]):
        return False
    return _nonnegative(expr, hypotheses, strict=strict, max_tries=max_tries)


def _nonnegative(expr, hypotheses: Sequence = (), *, strict: bool = False, max_tries: int = 80) -> bool:
    """:func:`prove_nonnegative` for the kernel's rules: the binders' declarations were checked
    against their ranges with the step (:func:`_misdeclared_statement`)."""
    if _odd_limits(sp.sympify(expr)):
        return False
    # a hypothesis about a value conditioned on A says nothing where P(A) = 0 (review 65)
    raw = _readable(tuple(hypotheses), sp.sympify(expr), strict)
    if _unbounded(expr) or any(_unbounded(a) for h in raw if isinstance(h, sp.core.relational.Relational)
                               for a in (h.lhs, h.rhs)):
        return False
    # floats are rounded by SymPy's arithmetic, and some SymPy facts are wrong (_wrong_facts)
    parts = [sp.sympify(expr)] + [a for h in raw if isinstance(h, sp.core.relational.Relational) for a in (h.lhs, h.rhs)]
    if any(_has_float(x) or _wrong_facts(x) is not None for x in parts):
        return False
    # the same relations give a sum in a hypothesis and in the goal the same index
    # (unevaluated: SymPy would decide the relation by evaluating its sides, term by term for
    # Σ_{k=1}^{10^6} k^k, or by a quadrature that does not return: review 51)
    hyps = tuple(type(h)(_alpha(h.lhs, raw), _alpha(h.rhs, raw), evaluate=False) if isinstance(h, sp.core.relational.Relational)
                 else h for h in raw)
    return _prove_nonnegative(_alpha(sp.sympify(expr), raw), hyps, strict, max_tries)


@_kept
def _prove_nonnegative(expr, hypotheses: tuple, strict: bool, max_tries: int) -> bool:
    e = sp.sympify(expr)
    if _sign_ok(e, strict):
        return True
    forms = [f for f in (_nonneg_form(h) for h in hypotheses) if f is not None]
    # a positive integer is >= 1
    forms += [(a - 1, False) for a in sorted(_atoms(e), key=str) if a.is_integer and a.is_positive]
    # a hypothesis g >= 0 used directly, up to a positive constant factor
    for g, s in forms:
        if (not strict or s) and (sp.expand(e - g) == 0 or _positive_multiple(e, g)):
            return True
    # a product (or quotient): every factor non-negative, divisors positive
    if not _depth_guard[0]:
        _depth_guard[0] = True
        try:
            if _factorwise(e, hypotheses, strict):
                return True
        finally:
            _depth_guard[0] = False
    # 1. sign propagation: s >= h with h proved >= 0 (> 0) makes s non-negative (positive);
    #    such an s is replaced by a symbol that carries the sign (sound: the claim is then
    #    proved for every value s can take under the hypotheses)
    rep: dict = {}
    labels = {ix.base.label for x in [e] + [g for g, _ in forms] for ix in sp.sympify(x).atoms(sp.Indexed)}
    # a symbol some sum or other binder binds in e or a hypothesis is neither renamed nor
    # solved for: xreplace does not respect binders (review 55: the kernel's depth-0 index,
    # free in idx >= 1 and bound in L + Σ_{idx=a}^{b} (|idx| - idx) >= n, became a positive
    # symbol inside that sum too, so SymPy made the sum 0 and read the hypothesis as L >= n)
    bound = _binder_variables([e] + [g for g, _ in forms])
    changed = True
    while changed:
        changed = False
        for g, g_strict in forms:
            g = sp.expand(g.xreplace(rep))
            for a in sorted(_atoms(g), key=str):
                # a symbol that is also an indexed base's label (x beside x[1]) is not renamed:
                # xreplace would rename the label too, and x[1] would take the dummy's sign
                if a in rep.values() or a.is_positive or a in labels or a.free_symbols & bound:
                    continue
                coef = _linear_coef(g, a)
                if coef is None:
                    continue
                lower = -(g - coef * a) / coef
                pos = _sign_ok(lower, True) or (g_strict and _sign_ok(lower, False))
                if pos or (_sign_ok(lower, False) and not a.is_nonnegative):
                    # names and indices of its own: a rule's variable (monotone's v_, jensen's phi_var_) is no sign dummy
                    kind = {"positive": True} if pos else {"nonnegative": True}
                    rep[a] = _fixed_dummy(f"sign_{a}", 5000 + len(rep), **kind)
                    changed = True
                    g = sp.expand(g.xreplace(rep))
    if rep:
        e = e.xreplace(rep)
        forms = [(g.xreplace(rep), st) for g, st in forms]
        if _sign_ok(e, strict):
            return True
    # 2. slack substitutions, depth first over the choice of hypothesis and symbol
    tries = [0]
    seen = set()

    def search(e, forms, depth):
        if depth == 0:
            return False
        # hypotheses that share a symbol with the expression first
        order = sorted(range(len(forms)), key=lambda k: not (_atoms(forms[k][0]) & _atoms(e)))
        for k in order:
            g, g_strict = forms[k]
            rest = forms[:k] + forms[k + 1:]
            g = sp.expand(g)
            for a in sorted(_atoms(g), key=str):
                if tries[0] >= max_tries:
                    return False
                if a in labels or a.free_symbols & bound:  # (x beside x[1]: subs would rename the base's label too, x[1] to t[1])
                    continue
                coef = _linear_coef(g, a)
                if coef is None:
                    continue
                t = _fixed_dummy("t", 100 + depth, positive=True) if g_strict else _fixed_dummy("t", 100 + depth, nonnegative=True)
                value = (t - (g - coef * a)) / coef
                if value.free_symbols & bound:  # a binder would capture it
                    continue
                e2 = e.subs(a, value)
                key = sp.srepr(e2)
                if key in seen:
                    continue
                seen.add(key)
                tries[0] += 1
                if _sign_ok(e2, strict):
                    return True
                if search(e2, [(h.subs(a, value), hs) for h, hs in rest], depth - 1):
                    return True
        return False

    return search(e, forms, 3)


_depth_guard = [False]


def _xreplace(value, mapping):
    if isinstance(value, sp.Basic):
        return value.xreplace(mapping)
    if isinstance(value, (tuple, list)):
        return type(value)(_xreplace(v, mapping) for v in value)
    if isinstance(value, dict):
        return {_xreplace(k, mapping): _xreplace(v, mapping) for k, v in value.items()}
    if isinstance(value, Chain):
        return value.xreplace(mapping)
    if isinstance(value, Lemma):
        return Lemma(value.chain.xreplace(mapping), _xreplace(value.lhs, mapping), value.relation, _xreplace(value.rhs, mapping))
    if isinstance(value, Assumed):
        return Assumed(_xreplace(value.fact, mapping), value.why)
    if isinstance(value, FACTS):
        return type(value)(*[_xreplace(v, mapping) for v in _fact_sides(value)])
    return value


def _positive_multiple(e, g) -> bool:
    try:
        q = sp.cancel(e / g)
    except (ZeroDivisionError, sp.PolynomialError):
        return False
    return bool(q.is_number and q.is_positive)


def _factorwise(e, hypotheses, strict) -> bool:
    try:
        f = sp.factor(sp.together(e))
    except (sp.PolynomialError, NotImplementedError):
        return False
    if not f.is_Mul:
        return False
    coeff, factors = f.as_coeff_mul()
    if coeff == 0:
        return not strict

    def sign_ok(factor, flip) -> bool:
        base, ex = factor.as_base_exp()
        if ex.is_Integer and int(ex) < 0:  # a divisor: must be non-zero with a known sign
            if flip and int(ex) % 2 == 0:
                return False  # base^(−2k) is never < 0, whatever the base's sign
            return _prove_nonnegative(-base if flip else base, hypotheses, True, 20)
        if not flip and ex.is_Integer and int(ex) % 2 == 0 and not strict and _fact(base, "extended_real"):
            return True  # an even power of a real base is >= 0
        return _prove_nonnegative(-factor if flip else factor, hypotheses, strict, 20)

    if coeff > 0:
        return all(sign_ok(fc, False) for fc in factors)
    # a negative constant: one odd factor must be <= 0 and the others >= 0
    for k, fc in enumerate(factors):
        if sign_ok(fc, True) and all(sign_ok(o, False) for j, o in enumerate(factors) if j != k):
            return True
    return False


_FIXED_BASE = 10_000_000 * (1 + secrets.randbelow(2 ** 40))  # per process: a caller cannot forge a kernel symbol by its index


def _fixed_dummy(name: str, index: int, **assumptions):
    # deterministic dummies within a process, so that equal sign questions hit the cache
    return sp.Dummy(f"{name}_", dummy_index=_FIXED_BASE + index, **assumptions)


def _atoms(g):
    return {a for a in g.free_symbols | g.atoms(sp.Indexed) if isinstance(a, (sp.Symbol, sp.Indexed)) and a.is_commutative}


def _linear_coef(g, a):
    """The positive numeric coefficient of ``a`` when ``g`` is linear in it, else None."""
    try:
        poly = sp.Poly(g, a)
    except sp.PolynomialError:
        return None
    if poly.degree() != 1:
        return None
    coef = poly.coeff_monomial(a)
    return coef if (not coef.free_symbols and coef.is_positive) else None


def _arb_eval(expr, env):
    """Interval enclosure of a SymPy expression with python-flint ``arb``: exact rationals,
    + − × ÷, powers, exp, log, sqrt, Abs. Raises TypeError on anything else (never a float)."""
    from flint import arb, fmpq

    if isinstance(expr, sp.Symbol):
        return env[expr]
    if expr.is_Integer:
        return arb(int(expr))
    if expr.is_Rational:
        return arb(fmpq(int(expr.p), int(expr.q)))
    if expr is sp.pi:
        return arb.pi()
    if expr is sp.E:
        return arb(1).exp()
    if expr.is_Add:
        out = arb(0)
        for a in expr.args:
            out += _arb_eval(a, env)
        return out
    if expr.is_Mul:
        out = arb(1)
        for a in expr.args:
            out *= _arb_eval(a, env)
        return out
    if expr.is_Pow:
        base, ex = expr.args
        b = _arb_eval(base, env)
        if ex.is_Integer:
            n = int(ex)
            return b**n if n >= 0 else 1 / b ** (-n)
        return b ** _arb_eval(ex, env)
    if isinstance(expr, sp.exp):
        return _arb_eval(expr.args[0], env).exp()
    if isinstance(expr, sp.log):
        return _arb_eval(expr.args[0], env).log()
    if isinstance(expr, sp.Abs):
        return abs(_arb_eval(expr.args[0], env))
    raise TypeError(f"expr: no interval rule for {type(expr).__name__} in {expr}")


def certify_nonnegative(expr, box: Mapping, *, strict: bool = False, max_boxes: int = 20000) -> bool:
    """Certify ``expr >= 0`` (``> 0``) on every point of ``box`` ({symbol: (lo, hi)}, exact
    rational ends) by interval arithmetic with adaptive bisection. False means "not certified".

    >>> x = sp.Symbol("x")
    >>> certify_nonnegative(x * (1 - x) + sp.Rational(1, 100), {x: (0, 1)})
    True
    >>> certify_nonnegative(x - sp.Rational(1, 2), {x: (0, 1)})
    False
    """
    from flint import arb

    e = sp.sympify(expr)
    syms = sorted(e.free_symbols, key=str)
    missing = [s for s in syms if s not in box]
    if missing:
        raise ValueError(f"box: no range for {missing}")
    cells = [{s: (sp.Rational(box[s][0]), sp.Rational(box[s][1])) for s in syms}]
    for s in syms:
        if cells[0][s][0] > cells[0][s][1]:
            raise ValueError(f"box: {s} has lo > hi")
    done = 0
    while cells:
        cell = cells.pop()
        done += 1
        if done > max_boxes:
            return False
        env = {}
        for s, (lo, hi) in cell.items():
            env[s] = arb(_arb_eval(lo, {})).union(_arb_eval(hi, {}))
        try:
            v = _arb_eval(e, env)
        except (ZeroDivisionError, ValueError):
            v = None
        if v is not None and v.is_finite() and ((v > 0) if strict else (v >= 0)):
            continue
        if v is not None and v.is_finite() and v < 0:
            return False
        if not syms:
            return False
        s = max(syms, key=lambda k: cell[k][1] - cell[k][0])
        lo, hi = cell[s]
        if hi - lo < sp.Rational(1, 2**40):
            return False
        mid = (lo + hi) / 2
        cells.append({**cell, s: (lo, mid)})
        cells.append({**cell, s: (mid, hi)})
    return True


# ----------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Rule:
    """A trusted rule: its name, its statement, and one line on why it is trusted."""

    name: str
    statement: str
    why: str
    check: Callable = field(repr=False, compare=False)


RULES: dict[str, Rule] = {}


def _rule(name, statement, why):
    def register(fn):
        RULES[name] = Rule(name, statement, why, fn)
        return fn

    return register


class _Fail(Exception):
    pass


def _need(cond: bool, message: str):
    if not cond:
        raise _Fail(message)


def _not_assumed(ctx: Context, name: str, what: str):
    h = ctx.hypotheses.get(name)
    _need(not isinstance(h, Assumed), f"{what}: {name!r} is assumed, not checked ({h.why if isinstance(h, Assumed) else ''})")


def _assumption_clash(*exprs) -> str:
    """Where expressions print alike but hold different symbols of one name (``Symbol("a",
    positive=True)`` against ``Symbol("a")``): a note naming them, else ""."""
    seen: dict = {}
    for e in exprs:
        if isinstance(e, sp.Basic):
            for x in e.free_symbols:
                seen.setdefault(x.name, set()).add(x)
    clash = {n: xs for n, xs in seen.items() if len(xs) > 1}
    if not clash:
        return ""
    parts = [f"{n!r} ({' / '.join(sorted(_declared(x) for x in xs))})" for n, xs in sorted(clash.items())]
    return " [different symbols share a name, with different assumptions: " + ", ".join(parts) + "]"


def _same(a, b, what: str):
    _need(is_identity(a, b), f"{what}: {sp.sstr(a)} is not {sp.sstr(b)}{_assumption_clash(a, b)}")


def is_constant(e) -> bool:
    """Whether ``e`` is non-random: no random variable outside every E and P
    (:func:`is_random_atom`). A plain symbol, or an entry of a base whose label is not declared
    random, is a constant; an applied function
    (``D(i)``) is a random variable unless its function was declared ``deterministic=True``
    (``sp.Function("t", real=True, deterministic=True)``), as a threshold t_i or a weight's sum is.

    >>> i = sp.Symbol("i")
    >>> D, t = sp.Function("D"), sp.Function("t", deterministic=True)
    >>> is_constant(t(i) + Expect(D(i))), is_constant(D(i)), is_constant(Indicator(sp.Le(D(i), 1)))
    (True, False, False)
    >>> x = sp.IndexedBase(sp.Symbol("x", random=True))  # i.i.d. embeddings x_j, declared random
    >>> is_constant(x[i]), is_constant(sp.IndexedBase("y")[i]), is_constant(sp.Symbol("Y", random=True))
    (False, True, False)
    """
    if not isinstance(e, sp.Basic) or isinstance(e, (Expect, Prob)):
        return True
    if is_random_atom(e):
        return False
    return all(is_constant(a) for a in e.args)


def is_random_atom(e) -> bool:
    """Whether ``e`` is a random variable by itself, not through its arguments. The kernel fails
    closed: a random variable is

    * an applied function not declared ``deterministic=True``: an undefined one
      (``sp.Function("D")(i)``), or any object of a user's own class (a ``Function``, ``Expr`` or
      ``Symbol`` subclass) unless the class says ``deterministic = True``: only SymPy's own
      classes and this kernel's vocabulary (``Norm``, ``Expect``, …) are known;
    * a symbol declared ``random=True`` (``sp.Symbol("Y", random=True)``; for indexed random
      variables, the label of the base: ``sp.IndexedBase(sp.Symbol("x", random=True))``, as
      SymPy drops ``random=True`` given to ``IndexedBase("x", ...)`` itself, silently);
    * a ``sympy.stats`` random symbol (``Normal("X", 0, 1)``).
    """
    from sympy.stats.rv import RandomSymbol

    if not isinstance(e, sp.Basic):
        return False
    if isinstance(e, RandomSymbol):
        return True
    if getattr(type(e), "deterministic", False) is True:
        return False
    if isinstance(e, AppliedUndef):
        return True
    module = type(e).__module__ or ""
    if not (module == __name__ or module == "sympy" or module.startswith("sympy.")):
        return True  # a user's own class (a Function, Expr or Symbol subclass): random unless declared
    return isinstance(e, sp.Symbol) and e.assumptions0.get("random") is True


# the node types a monotone or Jensen map may build its variable's terms from: continuous and
# piecewise C^1 on the reals (where defined), with derivatives SymPy computes exactly, kinks
# included (Abs, Max, Min give sign, Heaviside, DiracDelta, which the sign prover does not
# take as >= 0 unless it can). Anything else (Piecewise, floor, arg, atan2, acot, a user's class)
# is refused: SymPy differentiates a Piecewise branch by branch, and arg or acot to 0 or a
# smooth function, so a jump would pass unseen
_CONTINUOUS = (sp.Symbol, sp.Indexed, sp.IndexedBase, sp.Number, sp.NumberSymbol, sp.Add, sp.Mul, sp.Pow, sp.exp,
               sp.log, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.erf, sp.Abs, sp.Max, sp.Min, sp.Sum,
               sp.Tuple, Expect, Prob, Norm)


def _no_jumps(expr, var, what: str):
    """A map whose derivative's sign is to prove monotonicity (or convexity) must be continuous and
    piecewise C¹ in ``var``: every node that holds ``var`` is one of :data:`_CONTINUOUS`."""
    bad = [a for a in sp.preorder_traversal(sp.sympify(expr)) if a.has(var) and not isinstance(a, _CONTINUOUS)]
    _need(not bad, f"{what}: {sp.sstr(bad[0]) if bad else ''} may jump in {sp.sstr(var)}, so the sign of a derivative "
                   "does not decide it (build the map from +, *, powers, exp, log, sin, cos, Abs, Max, Min, sums)")


def _defined(expr, var, rels, what: str, tries=None):
    """Every power with a negative or fractional exponent, and every log, that holds ``var`` is
    defined where ``rels`` put it: base > 0 (>= 0 for a positive fractional power), log's
    argument > 0. A pole inside an allowed node (atan(1/t) across 0) hides its jump from the
    derivative, which SymPy simplifies (d/dt atan(1/t) = -1/(1 + t^2)).

    ``expr`` is the map as the rule differentiates it, at its own dummy ``var``, which SymPy may
    have rebuilt from the map as written: atan(−tanh(√(−v²))·√(−v²)/|v|) is atan(tan t) at a real t,
    a sawtooth whose derivative SymPy gives as 1. So the pieces are checked again here
    (:func:`_no_jumps`), and every atan and tanh that holds ``var`` must have an argument known real:
    atan has branch cuts and tanh poles off the real line (atan(s + 2i) + atan(s − 2i) is real for
    real s and jumps by 2π where s crosses 0)."""
    _no_jumps(expr, var, what)
    kw = {} if tries is None else {"max_tries": tries}
    for a in sp.preorder_traversal(sp.sympify(expr)):
        if not a.has(var):
            continue
        if isinstance(a, sp.Pow) and not (a.exp.is_Integer and a.exp >= 0):
            strict = not (a.exp.is_Rational and a.exp > 0)
            _need(_nonnegative(a.base, tuple(rels), strict=strict, **kw),
                  f"{what}: {sp.sstr(a)} is defined only where {sp.sstr(a.base)} {'>' if strict else '>='} 0, which is not proved")
        elif isinstance(a, sp.log):
            _need(_nonnegative(a.args[0], tuple(rels), strict=True, **kw),
                  f"{what}: {sp.sstr(a)} is defined only where {sp.sstr(a.args[0])} > 0, which is not proved")
    for a in sp.preorder_traversal(sp.sympify(expr)):
        if isinstance(a, (sp.atan, sp.tanh)) and a.has(var):
            _need(_fact(a.args[0], "extended_real"),
                  f"{what}: {sp.sstr(a)} has an argument not known real, where it may cross a branch cut or a pole")


def _bare(k, e) -> bool:
    """Whether ``k`` occurs in ``e`` outside the subscripts of indexed values and the arguments of
    undefined functions (x[k], D(k): a hypothesis about every entry, read for each k)."""
    if not isinstance(e, sp.Basic) or k not in e.free_symbols:  # absent, or bound by a sum
        return False
    if e == k:
        return True
    if isinstance(e, (sp.Indexed, AppliedUndef)):
        return False
    return any(_bare(k, a) for a in e.args)


def _hypothesis_parts(ctx) -> list:
    """Every hypothesis of ``ctx`` as (relation or fact, the expressions it speaks of): relations,
    lemmas (whether or not they check here), facts, and assumed premises. For the checks that
    read what the hypotheses do not say (an index no hypothesis pins, an event no hypothesis
    uses as a value): a fact, a lemma or an assumed premise says as much as a relation."""
    out = []
    for h in ctx.hypotheses.values():
        h = h.fact if isinstance(h, Assumed) else h
        if isinstance(h, FACTS):
            out.append((h, _fact_sides(h)))
        elif isinstance(h, Lemma):
            out.append((h.relation_expr(), [h.lhs, h.rhs]))
        else:
            out += [(r, [r.lhs, r.rhs]) for r in (h if isinstance(h, tuple) else (h,))]
    return out


def _pinning(k, ctx, skip=None) -> list:
    """The hypotheses of ``ctx`` that hold ``k`` bare (k = 1, k <= 1, a weighted norm with
    l1 = 2 − k): each makes k one value, so a hypothesis about the k-th entries is not about
    every k. ``skip``: a relation left out (a definition f[k] = e(k) itself)."""
    return [_hypothesis_text(r, sides) for r, sides in _hypothesis_parts(ctx)
            if not (skip is not None and not isinstance(r, FACTS) and r == skip) and any(_bare(k, x) for x in sides)]


def _hypothesis_text(r, sides) -> str:
    """A hypothesis part of :func:`_hypothesis_parts` as a reason names it."""
    return sp.sstr(r) if not isinstance(r, FACTS) else f"{type(r).__name__}({sp.sstr(sides[0])}, …)"


_INDEX_PROFILES = (  # (assumptions, what every integer of lo..hi having them needs: gaps to prove >= 0)
    # a range with hi < lo - 1 runs over hi + 1 .. lo - 1 in SymPy's (Karr's) reading, so a bound on
    # one end needs the other end too: min(lo, hi + 1) >= 1 for positive, and so on
    ({"positive": True}, lambda lo, hi: None if lo is None else [lo - 1] + ([] if hi is None else [hi])),
    ({"nonnegative": True}, lambda lo, hi: None if lo is None else [lo] + ([] if hi is None else [hi + 1])),
    ({"negative": True}, lambda lo, hi: None if lo is None or hi is None else [-1 - hi, -lo]),
    ({"nonpositive": True}, lambda lo, hi: None if lo is None or hi is None else [-hi, 1 - lo]),
    ({}, lambda lo, hi: []),
)


@_kept
def _index_misfit(k, lo, hi, rels=()) -> list:
    """The assumptions of the symbol ``k`` (as sorted ``name=value`` strings) that some integer of
    lo … hi lacks, [] when every one has them all (an end that is None is unknown): the profile
    check of a "for every k of the range" reading, whose gaps are proved from ``rels``."""
    lo = None if lo is None else sp.sympify(lo)
    hi = None if hi is None else sp.sympify(hi)
    have = k.assumptions0
    for extra, need in _INDEX_PROFILES:
        allowed = sp.Dummy("k", integer=True, **extra).assumptions0
        if any(allowed.get(a) != v for a, v in have.items()):
            continue
        gaps = need(lo, hi)
        if gaps is not None and all(_nonnegative(g, tuple(rels)) for g in gaps):
            return []
    base = sp.Dummy("k", integer=True).assumptions0
    extra = sorted(f"{a}={v}" for a, v in have.items() if base.get(a) != v)
    given = {f"{a}={v}" for a, v in (getattr(k, "_assumptions_orig", None) or {}).items()}
    return [x for x in extra if x in given] or extra  # those it was declared with, where they say it


def _generic_index(k, what: str, *exprs, ctx=None, lo=1, hi=None):
    """The index of a "for every k" term proof over the integers lo … hi (1 … n where ``hi`` is
    None): a non-random symbol not free in the step's sides or the limits (a number, or a symbol
    the sides also use, would check one term in place of all), with no assumption that some
    integer of the range lacks (odd, prime, or positive over a range that holds 0, would prove
    the term for some k only). With ``ctx``: no hypothesis may constrain k itself (k <= 1 would
    pin "every k" to one value); a hypothesis about the k-th entries (|fp[k]/f[k]| <= G,
    D(k) >= 0) is read for every k."""
    _need(isinstance(k, sp.Symbol), f"{what}: the index {sp.sstr(k)} must be a symbol (the term proof is for every index)")
    _constant(k, f"{what}: the index")
    lo = None if lo is None else sp.sympify(lo)
    hi = None if hi is None else sp.sympify(hi)
    used = set().union(*(sp.sympify(e).free_symbols for e in (*exprs, *(v for v in (lo, hi) if v is not None))))
    _need(k not in used, f"{what}: the index {k} is free in the step's sides or limits, so the term proof would be for that value only")
    rels = () if ctx is None else tuple(ctx.relations())
    extra = _index_misfit(k, lo, hi, rels)
    _need(not extra, f"{what}: the index {k} has assumptions {extra} that not every "
                     f"k in {sp.sstr(lo) if lo is not None else '?'}..{sp.sstr(hi) if hi is not None else 'n'} has")
    if ctx is not None:
        pinned = _pinning(k, ctx)
        _need(not pinned, f"{what}: the hypotheses {pinned} constrain the index {k} itself, so the term proof would "
                          "not be for every k of its range")


def _binder_ranges(e, c) -> list:
    """The ranges of the binders in ``e`` that bind the symbol ``c``: (lo, hi) for a sum, product or
    union (the integers lo … hi), (1, n) for a Mat's or a MaxOver's / MinOver's Lambda, None for
    one whose values are no range of integers (an integral, a bare Lambda, a Subs)."""
    out = []

    def walk(a):
        if not isinstance(a, sp.Basic) or not a.args:
            return
        if isinstance(a, (Mat, _Extremum)):
            lam, n = a.args
            if c in lam.variables:
                out.append((sp.Integer(1), n))
            walk(lam.expr)
            walk(n)
            return
        if isinstance(a, (sp.Sum, sp.Product, Cup)):
            out.extend((lim[1], lim[2]) if len(lim) == 3 else None for lim in a.limits if lim[0] == c)
        elif c in _bound_here(a):  # an integral, a Lambda, a Subs, a Limit, …: no range of integers
            out.append(None)
        for b in a.args:
            walk(b)

    walk(sp.sympify(e))
    return out


def _declared(x) -> str:
    """The assumptions a symbol was made with (not all those SymPy derives), for messages."""
    got = dict(getattr(x, "_assumptions_orig", None) or x.assumptions0)
    if got.get("commutative") is True:
        got.pop("commutative")
    return ", ".join(f"{k}={v}" for k, v in sorted(got.items())) or "none"


def _domain_misfit(c, e, rels) -> str:
    """Where some value that a binder of ``c`` in ``e`` runs over lacks an assumption of ``c``: the
    binder's range, in words ("" when every value has them all). A hypothesis read "for every
    value of c" is about the values c's assumptions allow, so it reaches a sum over c only where
    every integer of the sum's range has them (the profile check of :func:`_generic_index`)."""
    plain = sp.Dummy().assumptions0
    bound = _binder_variables([e])
    for rng in _binder_ranges(e, c):
        if rng is None:  # not a range of integers: only a symbol without assumptions is read there
            if any(plain.get(a) != v for a, v in c.assumptions0.items()):
                return f"an integral, Lambda or Subs over {c}"
        # (the relations are about free symbols: not about a range's end that a binder of e binds)
        elif _index_misfit(c, rng[0], rng[1], () if (rng[0].free_symbols | rng[1].free_symbols) & bound else rels):
            return f"the sum (or other binder) over {c} = {sp.sstr(rng[0])}..{sp.sstr(rng[1])}"
    return ""


def _point(x, term, what: str):
    """A point put into a term that holds a mean or a probability (f(k) at k := x) must be
    non-random: a random x would sit inside its own event (P(D = k) at k := D is P(D = D) = 1)."""
    if sp.sympify(term).has(Expect, Prob, Cond):
        _constant(x, what)


def _fixed_range(what: str, *limits):
    """The limits of a sum or union that a rule reads as a hypothesis on its index (lo <= i <= hi):
    a random limit would make that hypothesis hold on part of the space only."""
    for v in limits:
        _constant(v, f"{what}: the limit {sp.sstr(v)}")


def _constant(e, what: str):
    """A rule's parameter that its statement needs fixed (a threshold, a range, a radius)."""
    _need(is_constant(e), f"{what} must be non-random: {sp.sstr(e)} has a random variable outside E and P "
                          "(random: an applied function not declared deterministic=True, a symbol declared random=True; "
                          "see is_random_atom)")


def _random(X, what: str):
    """A rule's random variable: a step about a non-random X is a random quantity written as a
    constant (a plain symbol or x[j]; declare it random: :func:`is_random_atom`)."""
    _need(not is_constant(X), f"{what} = {sp.sstr(X)} must be a random variable: it has none outside E and P "
                              "(write it as an applied function, or declare a symbol with random=True)")


def _nonneg(e, ctx: Context, what: str, strict=False, max_tries=None):
    kw = {} if max_tries is None else {"max_tries": max_tries}
    _need(_nonnegative(e, ctx.relations(), strict=strict, **kw), f"{what}: cannot prove {sp.sstr(e)} {'>' if strict else '>='} 0")


def _orient(lhs, rel, rhs):
    """(small, big) for '<=' / '>=' steps."""
    return (lhs, rhs) if rel == "<=" else (rhs, lhs)


@_rule("identity", "lhs = rhs when their difference simplifies to 0", "SymPy's expand/cancel/simplify of an explicit difference is exact algebra, and it must return 0")
def _identity(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "identity: only for '=' steps")
    _need(is_identity(lhs, rhs, deep=True), f"identity: {sp.sstr(lhs)} - ({sp.sstr(rhs)}) does not simplify to 0")
    return "the difference simplifies to 0"


@_rule("algebra", "lhs <= rhs when rhs − lhs >= 0 is proved from the symbols' signs and the hypotheses", "the sign is decided exactly by SymPy's assumption rules after slack substitutions from the stated hypotheses; nothing numeric")
def _algebra(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "algebra: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    _nonneg(big - small, ctx, "algebra")
    return "the difference is proved non-negative"


@_rule("hypothesis", "use a named hypothesis: the step is the hypothesis, or substitutes its '=' form", "the hypothesis is part of the statement being proved; the kernel only checks that the step is literally it, or the substitution, which no sum may capture unless the hypothesis has the captured symbol only as a subscript or argument (read for every value of it that its assumptions allow, so the sum's whole range must have them, and no other hypothesis may pin it)")
def _hypothesis(lhs, rel, rhs, p, ctx):
    name = p["name"]
    _need(name in ctx.hypotheses, f"hypothesis: {name!r} is not a hypothesis of this context")
    _not_assumed(ctx, name, "hypothesis")
    hs = ctx.relation(name)
    _need(bool(hs), f"hypothesis: {name!r} is not a relation, or a lemma whose chain does not check here")
    failures = []
    for h in hs:
        if isinstance(h, sp.Eq):
            if rel != "=":
                failures.append(f"{sp.sstr(h)} is an equation; the step must be '='")
                continue
            caught, narrow, derivs, patterns = set(), {}, set(), set()
            for a, b in ((h.lhs, h.rhs), (h.rhs, h.lhs)):
                for x, y in ((lhs, rhs), (rhs, lhs)):
                    # a binder over a value, not a symbol (Subs(L x[k], x[k], 5), which is 5 L): inside
                    # it x[k] is its variable, not the equation's x[k], and SymPy's substitution goes in
                    # (1/L := x[k] made it Subs(1, x[k], 5) = 1); no substitution is read through one
                    if pattern := _value_binders(x):
                        patterns.update(map(sp.sstr, pattern))
                        continue
                    # a symbol the hypothesis has only as a subscript or argument (P(missed(i)) = …)
                    # is read for every value of it; one it has bare (y = k) is one value
                    # (the old side too: SymPy replaces D(i) under a sum over i, the sum's own i)
                    got = {c for c in _captured(x, [a, b]) if _bare(c, h) or _pinning(c, ctx)}
                    # "every value" is every value the symbol's own assumptions allow: a hypothesis
                    # about P(missed(i)) for i declared negative says nothing of the i = 1..N of a sum
                    short = {c: _domain_misfit(c, x, ctx.relations()) for c in _captured(x, [a, b]) - got}
                    short = {c: m for c, m in short.items() if m}
                    caught |= got
                    narrow.update(short)
                    # an equation at a point says nothing of a derivative, which reads its argument
                    # near the point: x² = 9 does not make d/dx x² the derivative of 9
                    # (x[i] = 3 under a derivative by x[j], which is x[i] at i = j; g(i) under one by g(j))
                    moved = sorted({str(v) for dv in sp.preorder_traversal(x) if isinstance(dv, sp.Derivative)
                                    for v in dv.variables if a.has(v) or b.has(v)
                                    or any(a.has(f) or b.has(f) for f in _heads(v))})
                    if moved:
                        derivs.update(moved)
                        continue
                    # (a symbol that is also an indexed base's label, whose subs would rename x[1] with
                    # x, is refused before any rule runs: _label_alias in Chain.check_steps)
                    # (an equation that holds a conditioned value needs no check here: is_identity keeps
                    # its poles, so the step holds that value, which a substitution cannot cancel)
                    # SymPy's subs does not go under a sum that binds a symbol of the equation (x[k] in
                    # Σ_k x[k], P(pick(k)) in Σ_k P(pick(k))): where the checks above read the equation
                    # for every value of each captured symbol, the substitution done structurally
                    # (xreplace) is the same equation at each value the binder runs over
                    if not got and not short and any(is_identity(y, z) for z in _substitutions(x, a, b)):
                        return f"substitutes {name}"
            failures.append(f"the step is not a substitution of {sp.sstr(h)}"
                            + (f" ({sorted(map(str, caught))} would be captured by a sum that binds the same symbol)" if caught else "")
                            + (f" (it would go under a derivative in {sorted(derivs)}, a variable of the equation)" if derivs else "")
                            + (f" (a Subs, Limit or other binder in the step binds {sorted(patterns)}, which is not a "
                               "symbol: a value of the equation there would be read as its variable)" if patterns else "")
                            + "".join(f" (it is about every {c} with {c}'s assumptions ({_declared(c)}), not about every {c} "
                                      f"of {m}, which binds it)" for c, m in sorted(narrow.items(), key=str)))
            continue
        g, strict = _nonneg_form(h)  # g >= 0
        if rel not in ("<=", ">="):
            failures.append(f"{sp.sstr(h)} is an inequality; the step must be '<=' or '>='")
            continue
        small, big = _orient(lhs, rel, rhs)
        if is_identity(big - small, g):
            if (null := _unread_conditioned((h.lhs, h.rhs), (lhs, rhs), ctx.relations())) is not None:
                failures.append(_unread_text(h, null))
                continue
            return f"is hypothesis {name}"
        failures.append(f"the step {sp.sstr(small)} <= {sp.sstr(big)} is not {sp.sstr(h)}{_assumption_clash(small, big, h)}")
    raise _Fail("hypothesis: " + "; ".join(failures))


def _value_binders(e) -> list:
    """The variables of the binders in ``e`` (not its derivatives, whose variables the
    ``hypothesis`` rule checks on their own) that are not symbols: an indexed value or an applied
    function that a Subs, a Limit, a sum or an integral binds (Subs(L x[k], x[k], 5) is 5 L)."""
    out = []
    for n in sp.preorder_traversal(sp.sympify(e)):
        if not isinstance(n, sp.Basic) or not n.args or isinstance(n, (sp.Atom, sp.Derivative, *_NEVER_BINDS)):
            continue
        if isinstance(n, sp.Limit):
            vs = (n.args[1],)
        elif isinstance(n, (ExprWithLimits, sp.Lambda, sp.Subs)):
            vs = n.variables
        else:
            vs = getattr(n, "bound_symbols", ())
        out += [v for v in vs if not isinstance(v, sp.Symbol)]
    return out


def _substitutions(x, a, b):
    """``x`` with ``b`` put for ``a``: SymPy's substitution, then the structural one (xreplace,
    which also goes under a sum that binds a symbol of ``a`` or ``b``); one SymPy refuses to
    build is skipped, and the structural one where it is SymPy's."""
    done = []
    for put in (lambda: x.subs(a, b), lambda: x.xreplace({a: b})):
        try:
            z = put()
        except (ValueError, TypeError):
            continue
        if z not in done:
            done.append(z)
            yield z


def _unread_text(h, null) -> str:
    return (f"{sp.sstr(h)} holds a value conditioned on an event, so it says nothing where {sp.sstr(null)} = 0, "
            "which is not proved non-zero, and this step does not hold its conditioned values there")


@_rule("monotone", "g(a) <= g(b) when a <= b and g' >= 0 between them, or a >= b and g' <= 0 between them", "the mean value theorem; g is built from continuous pieces in its variable (+, ×, powers, exp, log, sin, cos, atan, Abs, Max, Min, sums: an allow-list), and the sign of g' is proved by SymPy or certified by arb interval arithmetic on a box the hypotheses prove")
def _monotone(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "monotone: only for '<=' / '>=' steps")
    var, g, a, b = p["var"], sp.sympify(p["g"]), sp.sympify(p["a"]), sp.sympify(p["b"])
    _no_capture(g, [a, b], "monotone: g at a and b")
    # the mean value theorem is about a real interval: z <= z + 1 for a complex z is no interval
    # (exp(z) <= e·exp(z) would give -1 <= -e at z = iπ)
    _need(_fact(a, "extended_real") and _fact(b, "extended_real"),
          f"monotone: a = {sp.sstr(a)} and b = {sp.sstr(b)} must be known real (declare their symbols real)")
    _same(lhs, g.subs(var, a), "monotone: lhs is not g(a)")
    _same(rhs, g.subs(var, b), "monotone: rhs is not g(b)")
    _no_jumps(g, var, "monotone")
    P, Q = (a, b) if rel == "<=" else (b, a)  # to show: g(P) <= g(Q)
    pa, pb = _alpha(a), _alpha(b)
    kind = dict(positive=True) if (pa.is_positive and pb.is_positive) else (
        dict(nonnegative=True) if (pa.is_nonnegative and pb.is_nonnegative) else dict(real=True))
    t = _fixed_dummy("v", 0, **kind)
    dg = sp.diff(g.subs(var, t), t)
    failures = []
    # a cheap pass (no slack search) in both directions first, then the full search
    for tries in (0, None):
        for increasing in (True, False):
            lo, hi = (P, Q) if increasing else (Q, P)
            sign = dg if increasing else -dg
            try:
                _nonneg(hi - lo, ctx, "monotone: the order of a and b", max_tries=tries)
                _defined(g.subs(var, t), t, ctx._local({"__lo__": sp.Ge(t, lo), "__hi__": sp.Le(t, hi)}).relations(),
                         "monotone", tries)
                return _monotone_sign(var, t, lo, hi, sign, dg, p.get("box"), ctx, tries) + (" (increasing)" if increasing else " (decreasing)")
            except _Fail as exc:
                if tries is None:  # in the caller's variable, not the kernel's dummy
                    way = "increasing (a <= b, g' >= 0)" if increasing else "decreasing (a >= b, g' <= 0)"
                    failures.append(f"as {way}: " + str(exc).replace(sp.sstr(t), sp.sstr(var)))
    raise _Fail(" / ".join(failures))


def _monotone_sign(var, t, lo, hi, sign, dg, box, ctx, tries=None) -> str:
    if box is not None:
        # sound only if the box covers [lo, hi] for the variable and, for every other
        # symbol of g', a range the hypotheses prove
        _need(var in box, f"monotone: the box has no range for {var}")
        blo, bhi = (sp.Rational(v) for v in box[var])
        _nonneg(lo - blo, ctx, "monotone: the box covers the interval")
        _nonneg(bhi - hi, ctx, "monotone: the box covers the interval")
        b2 = {t: (blo, bhi)}
        for s in sign.free_symbols - {t}:
            _need(s in box, f"monotone: the box has no range for {s}")
            slo, shi = (sp.Rational(v) for v in box[s])
            _nonneg(s - slo, ctx, f"monotone: {s} >= {slo}")
            _nonneg(shi - s, ctx, f"monotone: {s} <= {shi}")
            b2[s] = (slo, shi)
        _need(certify_nonnegative(sign, b2), f"monotone: arb cannot certify the sign of g' = {sp.sstr(dg)} on the box")
        return f"g' = {sp.sstr(dg)} has the right sign on the box (arb)"
    rng = ctx._local({"__lo__": sp.Ge(t, lo), "__hi__": sp.Le(t, hi)})
    _nonneg(sign, rng, f"monotone: the sign of g' = {sp.sstr(dg)}", max_tries=tries)
    return f"g' = {sp.sstr(dg)} has the right sign between a and b"


@_rule("triangle", "norm(u_1 + … + u_k) <= norm(u_1) + … + norm(u_k)", "an axiom of every norm (and of Abs)")
def _triangle(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "triangle: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    terms = [sp.sympify(t) for t in p["terms"]]
    _need(len(terms) >= 2, "triangle: needs at least two terms")
    _same(small, Norm(sp.Add(*terms)), "triangle: the small side is not norm(sum of terms)")
    _same(big, sp.Add(*[Norm(t) for t in terms]), "triangle: the big side is not the sum of the norms")
    return "triangle inequality"


@_rule("triangle-sum", "norm(Σ_{i=lo}^{hi} u_i) <= Σ_{i=lo}^{hi} norm(u_i) (and |Σ f_i| <= Σ |f_i|) for hi >= lo - 1", "the triangle inequality, by induction on the number of terms; the range must not be reversed, since SymPy reads a sum with hi < lo - 1 as minus a sum")
def _triangle_sum(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "triangle-sum: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    i, lo, hi = p["index"], sp.sympify(p["lo"]), sp.sympify(p["hi"])
    _need(isinstance(small, (Norm, sp.Abs)) and isinstance(small.args[0], sp.Sum),
          "triangle-sum: the small side is not norm(Sum(...)) or |Sum(...)|")
    inner = small.args[0]
    _need(inner.limits == ((i, lo, hi),), f"triangle-sum: the sum must run over {i} = {lo}..{hi}")
    _need(isinstance(big, sp.Sum) and big.limits == ((i, lo, hi),), f"triangle-sum: the big side must be a sum over {i} = {lo}..{hi}")
    _same(big.function, Norm(inner.function), "triangle-sum: the big side is not the sum of the norms")
    _nonneg(hi - lo + 1, ctx, "triangle-sum: the index range is reversed (need hi >= lo - 1)")
    return "triangle inequality over a finite sum"


@_rule("reverse-triangle", "|norm(u) − norm(v)| <= norm(u − v)", "follows from the triangle inequality applied to u = (u − v) + v and to v = (v − u) + u")
def _reverse_triangle(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "reverse-triangle: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    u, v = sp.sympify(p["u"]), sp.sympify(p["v"])
    ok = is_identity(small, sp.Abs(Norm(u) - Norm(v))) or is_identity(small, Norm(u) - Norm(v))
    _need(ok, "reverse-triangle: the small side is not |norm(u) - norm(v)| (or norm(u) - norm(v))")
    _same(big, Norm(u - v), "reverse-triangle: the big side is not norm(u - v)")
    return "reverse triangle inequality"


@_rule("cauchy-schwarz", "|Σ a_i b_i| <= sqrt(Σ a_i²) sqrt(Σ b_i²), and |<u, v>| <= norm(u) norm(v)", "a classical theorem (the discriminant of the quadratic Σ (a_i t + b_i)² >= 0)")
def _cauchy_schwarz(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "cauchy-schwarz: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    if "u" in p:
        u, v = p["u"], p["v"]
        _need(is_identity(small, sp.Abs(Inner(u, v))) or is_identity(small, Inner(u, v)), "cauchy-schwarz: small side is not |<u, v>|")
        _same(big, Norm(u) * Norm(v), "cauchy-schwarz: big side is not norm(u) norm(v)")
        return "Cauchy-Schwarz (inner product)"
    a, b = [sp.sympify(t) for t in p["a"]], [sp.sympify(t) for t in p["b"]]
    _need(len(a) == len(b) and a, "cauchy-schwarz: a and b must have the same positive length")
    for t in a + b:
        _need(_fact(t, "extended_real"), f"cauchy-schwarz: {t} is not known to be real")
    dot = sp.Add(*[x * y for x, y in zip(a, b)])
    sa, sb = sp.Add(*[x**2 for x in a]), sp.Add(*[y**2 for y in b])
    if p.get("squared"):
        _same(small, dot**2, "cauchy-schwarz: small side is not (Σ a_i b_i)^2")
        _same(big, sa * sb, "cauchy-schwarz: big side is not Σa_i² Σb_i²")
    else:
        _need(is_identity(small, sp.Abs(dot)) or is_identity(small, dot), "cauchy-schwarz: small side is not |Σ a_i b_i|")
        _same(big, sp.sqrt(sa) * sp.sqrt(sb), "cauchy-schwarz: big side is not sqrt(Σa²) sqrt(Σb²)")
    return "Cauchy-Schwarz"


def _convex(phi, ctx, concave=False) -> str:
    if phi in (Norm, sp.Abs):
        _need(not concave, "jensen: a norm is convex, not concave")
        return "a norm is convex"
    _need(isinstance(phi, sp.Lambda) and len(phi.variables) == 1, "jensen: phi must be Norm, Abs or a one-variable sympy Lambda")
    v = phi.variables[0]
    _no_jumps(phi.expr, v, "jensen")
    # phi'' in a fresh variable with v's own domain: the hypotheses are about other symbols,
    # even one that shares v's name (a hypothesis v >= 0 must not make v**3 convex)
    kind = next(({k: True} for k in ("positive", "negative", "nonnegative", "nonpositive") if getattr(v, f"is_{k}")), {"real": True})
    t = _fixed_dummy("phi_var", 0, **kind)
    _defined(phi.expr.xreplace({v: t}), t, ctx.relations(), "jensen")  # on phi's whole domain
    d2 = sp.diff(phi.expr.xreplace({v: t}), t, 2)
    _need(_nonnegative(-d2 if concave else d2, ctx.relations()),
          f"jensen: cannot prove phi'' {'<=' if concave else '>='} 0 for phi'' = {sp.sstr(d2.xreplace({t: v}))}")
    return f"phi'' = {sp.sstr(d2)} has the right sign"


@_rule("jensen", "phi(Σ p_i x_i) <= Σ p_i phi(x_i) for p_i >= 0, Σ p_i = 1, phi convex; phi(E X) <= E phi(X) for a non-random phi", "Jensen's inequality; convexity is the norm axioms or phi'' >= 0 proved by SymPy in a fresh variable with phi's domain (phi is built from the same continuous pieces as monotone's g), the weights are checked to be a probability vector")
def _jensen(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "jensen: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    concave = bool(p.get("concave"))
    phi = p["phi"]
    if isinstance(phi, sp.Lambda):  # φ(v) = E[(v − D)²] at v := D would read E[(D − D)²] = 0, not the
        # mean over another draw (review 52's lead): φ's variable may not stand inside a mean
        _need(not any(a.has(*phi.variables) for a in phi.expr.atoms(Expect, Prob, Cond)),
              "jensen: phi's variable stands inside an expectation or a probability")
    why = _convex(phi, ctx, concave)
    if "X" in p:
        X = p["X"]
        # phi(E X) <= E phi(X) compares a number with a mean: a random phi (Lambda(v, Y)) would make
        # the small side random, Y <= E[Y] at every outcome (the weights form holds outcome by outcome)
        if isinstance(phi, sp.Lambda):
            _constant(phi.expr, "jensen: with X (phi(E X) <= E phi(X)), phi's body")
            # SymPy's call is an xreplace: a binder in phi must not capture X's symbols (Σ_k (a − k) v²
            # at v := D(k) made each term read its own D(k): review 53), as in the weights form
            _no_capture(phi.expr, [X, Expect(X)], "jensen: phi at X", olds=phi.variables)
        inside, outside = phi(Expect(X)), Expect(phi(X))
    else:
        w, xs = [sp.sympify(t) for t in p["weights"]], [sp.sympify(t) for t in p["points"]]
        _need(len(w) == len(xs) and w, "jensen: weights and points must have the same positive length")
        for k, wk in enumerate(w):
            _nonneg(wk, ctx, f"jensen: weight {k}")
        _same(sp.Add(*w), 1, "jensen: the weights do not sum to 1")
        if isinstance(phi, sp.Lambda):  # SymPy's call is an xreplace: no binder in phi may capture a point
            _no_capture(phi.expr, xs + [sp.Add(*[a * b for a, b in zip(w, xs)])], "jensen: phi at the points",
                        olds=phi.variables)
        inside, outside = phi(sp.Add(*[a * b for a, b in zip(w, xs)])), sp.Add(*[a * phi(b) for a, b in zip(w, xs)])
    if isinstance(phi, sp.Lambda):  # phi'' is proved on its variable's domain only: the points must lie in it
        v = phi.variables[0]
        for k, x in enumerate([X] if "X" in p else xs):  # phi'' >= 0 is proved for a real variable (a norm is convex on vectors)
            _need(_fact(x, "extended_real"), f"jensen: point #{k} ({sp.sstr(x)}) is not known to be real")
        for k, x in enumerate([X] if "X" in p else xs):
            if v.is_positive or v.is_negative:
                _nonneg(x if v.is_positive else -x, ctx, f"jensen: point #{k} ({sp.sstr(x)}) in the domain of phi", strict=True)
            elif v.is_nonnegative or v.is_nonpositive:
                _nonneg(x if v.is_nonnegative else -x, ctx, f"jensen: point #{k} ({sp.sstr(x)}) in the domain of phi")
    if concave:
        inside, outside = outside, inside
    _same(small, inside, "jensen: the small side")
    _same(big, outside, "jensen: the big side")
    return f"Jensen ({why})"


@_rule("markov", "P(X >= r) <= E[X]/r for X >= 0 and r > 0", "Markov's inequality; X >= 0 and r > 0 are proved from the hypotheses, X has a random part and r has none")
def _markov(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "markov: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    X, r = sp.sympify(p["X"]), sp.sympify(p["r"])
    ok = any(small == Prob(ev) for ev in (sp.Ge(X, r), sp.Gt(X, r)))
    _need(ok, f"markov: the small side {sp.sstr(small)} is not P(X >= r) or P(X > r)")
    _same(big, Expect(X) / r, "markov: the big side is not E[X]/r")
    _random(X, "markov: X")
    _constant(r, "markov: r")
    _nonneg(X, ctx, "markov: X >= 0")
    _nonneg(r, ctx, "markov: r > 0", strict=True)
    return "Markov"


def _tail_events(f, t) -> tuple:
    """The four one-sided tails of f about its mean at distance t."""
    return (sp.Le(f - Expect(f), -t), sp.Lt(f - Expect(f), -t), sp.Ge(f - Expect(f), t), sp.Gt(f - Expect(f), t))


@_rule("mcdiarmid", "P(f − E f <= −t) <= exp(−2t²/Σc_j²) (and the upper tail) for t > 0 and bounded differences c_j", "McDiarmid's inequality (Hoeffding's for sums); the bounded-difference hypothesis must be in the context with the same f and Σc_j², and t > 0 is proved. A WeightedNorm definition f = ‖Σ_j w_j X_j‖ (independent X_j, ‖X_j‖ <= R) gives c_j = 2R|w_j|: replacing X_j moves f by at most |w_j| ‖X_j − X_j'‖ (reverse triangle inequality), so Σc_j² = 4R²·Σ_j w_j²; f has a random part, t and Σc_j² have none")
def _mcdiarmid(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "mcdiarmid: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    f, t, name = sp.sympify(p["f"]), sp.sympify(p["t"]), p["hypothesis"]
    _not_assumed(ctx, name, "mcdiarmid")
    h = ctx.hypotheses.get(name)
    _need(isinstance(h, FACTS), f"mcdiarmid: no BoundedDifferences or WeightedNorm hypothesis {name!r} in the context")
    _same(h.f, f, "mcdiarmid: the hypothesis is about another function")
    _fact_defined(h, (lhs, rhs), ctx, "mcdiarmid")
    if isinstance(h, WeightedNorm):
        _possible_weighted_norm(h, ctx, "mcdiarmid")
    sum_c2 = h.sum_c2 if isinstance(h, BoundedDifferences) else 4 * h.radius**2 * h.l2
    _random(f, "mcdiarmid: f")
    _constant(t, "mcdiarmid: t")
    _constant(sum_c2, "mcdiarmid: sum c^2 (the bounded differences, or the weighted norm's radius and l2)")
    _need(any(small == Prob(ev) for ev in _tail_events(f, t)), f"mcdiarmid: small side {sp.sstr(small)} is not a tail P(f - E f <= -t)")
    _same(big, sp.exp(-2 * t**2 / sum_c2), f"mcdiarmid: big side is not exp(-2 t^2 / sum c^2) with sum c^2 = {sp.sstr(sum_c2)}")
    _nonneg(t, ctx, "mcdiarmid: t > 0", strict=True)
    _nonneg(sum_c2, ctx, "mcdiarmid: sum c^2 > 0", strict=True)
    return "McDiarmid" if isinstance(h, BoundedDifferences) else "McDiarmid, c_j = 2R|w_j| from the weighted norm"


@_rule("hoeffding", "P(X − E X <= −t) <= exp(−2t²/(b − a)²) (and the upper tail) for t > 0 and a <= X <= b surely", "Hoeffding's inequality for one bounded variable; a <= X and X <= b at every outcome (from the hypotheses, or each by a checked sub-chain under the step's hypotheses), t > 0 and b > a are proved, X has a random part and t, a, b have none")
def _hoeffding(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "hoeffding: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    X, t, a, b = (sp.sympify(p[k]) for k in ("X", "t", "a", "b"))
    _need(not X.has(Expect, Prob, Cond), f"hoeffding: X = {sp.sstr(X)} must be a random variable, not a mean or a probability")
    _random(X, "hoeffding: X")
    for name, v in (("t", t), ("a", a), ("b", b)):
        _constant(v, f"hoeffding: {name}")
    _need(any(small == Prob(ev) for ev in _tail_events(X, t)), f"hoeffding: small side {sp.sstr(small)} is not a tail P(X - E X <= -t)")
    _same(big, sp.exp(-2 * t**2 / (b - a) ** 2), "hoeffding: big side is not exp(-2 t^2 / (b - a)^2)")
    for sub, rel_, end, what in ((p.get("low"), ">=", a, "X >= a"), (p.get("high"), "<=", b, "X <= b")):
        if sub is None:  # from the hypotheses directly
            _nonneg(X - a if rel_ == ">=" else b - X, ctx, f"hoeffding: {what}")
        else:  # by a checked sub-chain under this step's hypotheses
            res = _sub_chain(sub, ctx, X, rel_, end, "hoeffding", (lhs, rhs))
            _need(res.complete, f"hoeffding: the sub-chain for {what} does not check: {res.first_failure}")
    _nonneg(t, ctx, "hoeffding: t > 0", strict=True)
    _nonneg(b - a, ctx, "hoeffding: b > a", strict=True)
    return "Hoeffding, one variable in [a, b]"


def _fact_defined(h, ends, ctx, what: str) -> None:
    """A rule reads a fact only where its fields are proved defined wherever the step is (review
    70: with R = 1/b and l1 = b SymPy builds R·l1 as 1, and with b = E[c | A], P(A) possibly 0,
    weighted-norm proved D(i) <= 1 where the fact says nothing). Stricter than a stated relation,
    which presumes its ordinary poles away: b = (y² − y)/(y − 1) is refused too."""
    _defined_where_step(_fact_sides(h), ends, ctx, f"{what}: the definition's fields")


def _possible_weighted_norm(h, ctx, what: str) -> None:
    """A WeightedNorm definition must describe a setting that can exist: a bound on norms, a sum of
    |w_j| and one of w_j² are constants >= 0 (declared or from the hypotheses), Σw_j² > (Σ|w_j|)²
    is impossible, and so is a norm f < 0. From an impossible one (R = −1 with l1 = 1, or
    f = −1, or f > R l1) every form of the rule would give 0 <= −1."""
    for label, v in (("radius", h.radius), ("l1", h.l1), ("l2", h.l2)):
        _constant(v, f"{what}: the {label}")
    for label, v in (("radius", h.radius), ("l1", h.l1), ("l2", h.l2)):
        _nonneg(v, ctx, f"{what}: the definition's {label} must be >= 0 (declare it non-negative, or state it)")
    _need(not _nonnegative(h.l2 - h.l1**2, ctx.relations(), strict=True),
          f"{what}: the definition is impossible: l2 = {sp.sstr(h.l2)} > l1^2 = {sp.sstr(h.l1**2)}")
    _need(not _nonnegative(-h.f, ctx.relations(), strict=True),
          f"{what}: the definition is impossible: the norm {sp.sstr(h.f)} is negative")
    _need(not _nonnegative(h.f - h.radius * h.l1, ctx.relations(), strict=True),
          f"{what}: the definition is impossible: the norm {sp.sstr(h.f)} > R*l1 = {sp.sstr(h.radius * h.l1)}")


@_rule("weighted-norm", "for f = ‖Σ_j w_j X_j‖ with ‖X_j‖ <= R (a WeightedNorm definition, l1 = Σ|w_j|, l2 = Σw_j²): 0 <= f <= R·l1, l2 <= l1², 0 <= l1 and 0 <= l2; R, l1 and l2 must be proved >= 0 and l2 > l1² must not be provable (a definition that cannot hold)", "the triangle inequality and homogeneity of the norm (‖Σ_j w_j X_j‖ <= Σ_j |w_j| ‖X_j‖ <= R Σ_j |w_j|), Σ_j w_j² <= (Σ_j |w_j|)² (the cross terms are >= 0), and norms, absolute values and squares are >= 0; the definition must be in the context, not assumed")
def _weighted_norm(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "weighted-norm: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    name = p["hypothesis"]
    _not_assumed(ctx, name, "weighted-norm")
    h = ctx.hypotheses.get(name)
    _need(isinstance(h, WeightedNorm), f"weighted-norm: no WeightedNorm hypothesis {name!r} in the context")
    _fact_defined(h, (lhs, rhs), ctx, "weighted-norm")
    _possible_weighted_norm(h, ctx, "weighted-norm")
    forms = {"f <= R*l1": (h.f, h.radius * h.l1), "0 <= f": (0, h.f), "l2 <= l1^2": (h.l2, h.l1**2),
             "0 <= l1": (0, h.l1), "0 <= l2": (0, h.l2)}
    for label, (a, b) in forms.items():
        if is_identity(small, a) and is_identity(big, b):
            return f"weighted norm: {label}"
    _need(False, f"weighted-norm: {sp.sstr(small)} <= {sp.sstr(big)} is none of f <= R*l1 ({sp.sstr(h.f)} <= "
                 f"{sp.sstr(h.radius * h.l1)}), l2 <= l1^2 ({sp.sstr(h.l2)} <= {sp.sstr(h.l1**2)}), 0 <= f, 0 <= l1, 0 <= l2")


@_rule("probability", "0 <= P(event) <= 1", "an axiom of probability")
def _probability(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "probability: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    if isinstance(small, Prob):
        _same(big, 1, "probability: P(event) is bounded by 1")
    else:
        _need(isinstance(big, Prob) and is_identity(small, 0), "probability: step is not P <= 1 or 0 <= P")
    return "probability axiom"


@_rule("gershgorin", "for a symmetric matrix A, |lambda| <= max_i Σ_j |A_ij| for every eigenvalue, so norm_2(A) <= that", "Gershgorin's circle theorem; the norm is opnorm(Mat) with A's entries, symmetry is checked exactly, the row sums are computed from the entries")
def _gershgorin(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "gershgorin: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    A = sp.Matrix(p["A"])
    _need(A.is_square and A.rows >= 1, "gershgorin: A must be square, with at least one row (the max of no row sums is -oo)")
    _need(all(is_identity(A[i, j], A[j, i]) for i in range(A.rows) for j in range(i)), "gershgorin: A is not symmetric")
    norm = sp.sympify(p["norm"])
    _need(isinstance(norm, OpNorm) and isinstance(norm.args[0], Mat), "gershgorin: the norm must be opnorm(Mat(...)) of A")
    M = norm.args[0]
    _same(M.size, A.rows, "gershgorin: the size of the matrix in the norm")
    for i in range(A.rows):
        for j in range(A.cols):
            _same(M.entry(i + 1, j + 1), A[i, j], f"gershgorin: entry ({i + 1}, {j + 1}) of the matrix in the norm")
    _same(small, norm, "gershgorin: the small side is not the spectral norm of A")
    rows = [sp.Add(*[sp.Abs(A[i, j]) for j in range(A.cols)]) for i in range(A.rows)]
    _same(big, sp.Max(*rows), "gershgorin: the big side is not max_i sum_j |A_ij|")
    return "Gershgorin"


@_rule("termwise", "Σ_i f_i <= Σ_i g_i when f_i <= g_i for every i of the index set", "summing inequalities; every term bound is itself a checked chain (or proved by algebra with the index's range as a hypothesis); the index is a non-random symbol that no hypothesis constrains, with only the assumptions every integer of the range has")
def _termwise(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">=", "="), "termwise: bad relation")
    small, big = (lhs, rhs) if rel in ("<=", "=") else (rhs, lhs)
    i = p.get("index")
    term = p.get("term")
    if i is not None:
        lo, hi = sp.sympify(p["lo"]), sp.sympify(p["hi"])
        _need(isinstance(small, sp.Sum) and isinstance(big, sp.Sum), "termwise: both sides must be sums")
        _need(small.limits == ((i, lo, hi),) and big.limits == ((i, lo, hi),), f"termwise: both sums must run over {i} = {lo}..{hi}")
        _fixed_range("termwise", lo, hi)
        _generic_index(i, "termwise", lo=lo, hi=hi, ctx=ctx)
        # SymPy reads a sum with hi < lo - 1 as minus a sum over hi+1..lo-1 (Karr's convention),
        # which flips the inequality: the range must not be reversed
        _nonneg(hi - lo + 1, ctx, "termwise: the index range is reversed (need hi >= lo - 1)")
        f, g = small.function, big.function
        local = ctx._local({"__index_lo__": sp.Ge(i, lo), "__index_hi__": sp.Le(i, hi)})
        pairs = [(f, g)]
    else:
        pairs = [(sp.sympify(a), sp.sympify(b)) for a, b in p["pairs"]]
        _same(small, sp.Add(*[a for a, _ in pairs]), "termwise: small side is not the sum of the terms")
        _same(big, sp.Add(*[b for _, b in pairs]), "termwise: big side is not the sum of the bounds")
        # SymPy's sum of the terms may cancel a pole the terms have (1/x − 1/x is 0): a term's
        # bound says nothing where the term is undefined, so each must be defined where the step is.
        # (A sum over an index range is undefined wherever one of its terms is: no check there.)
        for k, (f, g) in enumerate(pairs):
            _defined_where_step((f, g), (lhs, rhs), ctx, f"termwise: term {k}")
        local = ctx
    for k, (f, g) in enumerate(pairs):
        sub = term[k] if isinstance(term, (list, tuple)) else term
        if sub is None:
            if rel == "=":
                _same(f, g, f"termwise: term {k}")
            else:
                _nonneg(g - f, local, f"termwise: term {k}")
        else:
            _need(isinstance(sub, Chain), "termwise: a term proof must be a Chain")
            # the term chain runs under this step's context only, so that a hypothesis dropped
            # from the proof is dropped from its term proofs too
            res = replace(sub, ctx=local).prove(f, "=" if rel == "=" else "<=", g)
            _need(res.complete, f"termwise: the term chain does not check: {res.first_failure}")
    return "termwise bound summed"


# proofprob (issue 11): unions of events, min/max of bounds, monotone maps of a proved order


def _union_parts(e):
    """(event function, index, lo, hi) of ``Prob(Cup(A(h), (h, lo, hi)))``, else None."""
    if isinstance(e, Prob) and isinstance(e.args[0], Cup) and len(e.args[0].limits) == 1:
        cup = e.args[0]
        h, lo, hi = cup.limits[0]
        return cup.function, h, lo, hi
    return None


@_rule("union-bound", "P(⋃_{h=lo}^{hi} A_h) <= Σ_{h=lo}^{hi} P(A_h) for hi >= lo - 1", "Boole's inequality: finite subadditivity of a probability, by induction from P(A ∪ B) = P(A) + P(B) − P(A ∩ B) <= P(A) + P(B); the union and the sum must run over the same index range, which must not be reversed")
def _union_bound(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "union-bound: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    parts = _union_parts(small)
    _need(parts is not None, f"union-bound: the small side {sp.sstr(small)} is not P(Cup(A(h), (h, lo, hi)))")
    A, h, lo, hi = parts
    _need(isinstance(big, sp.Sum) and big.limits == ((h, lo, hi),), f"union-bound: the big side must be a sum over {h} = {lo}..{hi}")
    _need(big.function == Prob(A), f"union-bound: the big side is not the sum of P({sp.sstr(A)})")
    _fixed_range("union-bound", lo, hi)
    # a reversed range is minus a sum for SymPy (Karr's convention)
    _nonneg(hi - lo + 1, ctx, "union-bound: the index range is reversed (need hi >= lo - 1)")
    return "union bound (Boole)"


@_rule("union-contains", "P(A_k) <= P(⋃_{h=lo}^{hi} A_h) for an integer k with lo <= k <= hi", "monotonicity of a probability: A_k is one of the united events, so it is a subset of the union; k is an integer and lo <= k <= hi is proved from the hypotheses")
def _union_contains(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "union-contains: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    parts = _union_parts(big)
    _need(parts is not None, f"union-contains: the big side {sp.sstr(big)} is not P(Cup(A(h), (h, lo, hi)))")
    A, h, lo, hi = parts
    k = sp.sympify(p["k"])
    _need(_fact(k, "integer"), f"union-contains: k = {sp.sstr(k)} is not known to be an integer")
    _no_capture(A, [k], "union-contains: A at k", olds=[h])
    _need(small == Prob(A.xreplace({h: k})), f"union-contains: the small side is not P(A_k) with k = {sp.sstr(k)}")
    _point(k, A, "union-contains: k")
    _nonneg(k - lo, ctx, f"union-contains: {sp.sstr(k)} >= {sp.sstr(lo)}")
    _nonneg(hi - k, ctx, f"union-contains: {sp.sstr(k)} <= {sp.sstr(hi)}")
    return "an event is contained in the union"


def _sub_chain(sub, ctx, lhs, relation, rhs, what, ends, cover=sp.S.One):
    """``sub`` proved to take ``lhs`` to ``rhs`` by ``relation`` under ``ctx``, for a step whose
    sides are ``ends``: the relation must be defined wherever they are (:func:`_defined_where_step`),
    but where ``cover`` (a product of probabilities P(A) the step multiplies it by) is 0, where
    E[· | A] in it is read as E[· 1_A] = 0."""
    _need(isinstance(sub, Chain), f"{what}: a sub-proof must be a Chain")
    _defined_where_step((cover * lhs, cover * rhs), ends, ctx, what)
    # the sub-chain runs under this step's context, so that a dropped hypothesis is dropped there too
    res = replace(sub, ctx=ctx).prove(lhs, relation, rhs)
    return res


def _case_value(e, split, positive: bool):
    """``e`` with every Max(split, 0) and Min(split, 0) replaced by its value in the case
    split > 0 (``positive``) or split <= 0."""
    def value(m):
        args = m.args
        # two distinct arguments, one 0 and the other the split (review 57: a split identically 0
        # made the literal 0 of Max(x, 0) both, and Max(x, 0) read as 0 where the split is <= 0)
        if len(args) == 2 and any(is_identity(a, 0) and is_identity(b, split) for a, b in (args, args[::-1])):
            big = split if positive else sp.Integer(0)
            small = sp.Integer(0) if positive else split
            return big if isinstance(m, sp.Max) else small
        return m

    if not isinstance(e, sp.Basic):
        return e
    e, back = _held(e, lambda d: _touches(d, [split]))  # the case holds at a point only
    return e.replace(lambda x: isinstance(x, (sp.Max, sp.Min)), value).xreplace(back)


def _sub_chains(step):
    """The sub-chains one step carries: the chains among its parameters (or in a list of them),
    and the chains that discharge a cited theorem's premises (not the theorem's own chain, which
    is checked under its own hypotheses)."""
    values = list(step.by.params.values())
    if step.by.rule == "instance":
        values += list((step.by.params.get("discharge") or {}).values())
    for value in values:
        for sub in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(sub, Chain):
                yield sub


def _chain_exprs(chain) -> list:
    """Every expression a chain and its sub-chains write down."""
    out = [chain.start]
    for step in chain.steps:
        out.append(step.rhs)
        for sub in _sub_chains(step):
            out += _chain_exprs(sub)
    return out


_NEVER_BINDS = (sp.Add, sp.Mul, sp.Pow, sp.Indexed, AppliedUndef, sp.core.relational.Relational)


def _bound_here(b) -> set:
    """The symbols the node ``b`` itself binds: free in its arguments but not in it (a sum's,
    integral's, Lambda's or Subs' variables, and a Limit's, an ImageSet's or any other binder
    SymPy has, whether or not the kernel knows it), plus the variables of every sum, integral,
    Lambda or Subs (an indefinite integral's too, conservatively)."""
    if not isinstance(b, sp.Basic) or not b.args or isinstance(b, (sp.Atom, *_NEVER_BINDS)):
        return set()
    out = set(b.variables) if isinstance(b, (ExprWithLimits, sp.Lambda, sp.Subs)) else set()
    inner = set().union(*(a.free_symbols for a in b.args if isinstance(a, sp.Basic)))
    return out | {x for x in inner - b.free_symbols if isinstance(x, sp.Symbol)}


def _binder_variables(exprs) -> set:
    """The symbols some sum, product, integral, union, Lambda, Limit or other binder binds in ``exprs``."""
    out = set()
    for e in exprs:
        if isinstance(e, sp.Basic):
            for b in sp.preorder_traversal(e):
                out |= _bound_here(b)
    return out


@_rule("cases", "lhs rel rhs when it holds in both cases e > 0 and e <= 0 of a non-random real e, each by a checked sub-chain; in each case the sides' Max(e, 0) and Min(e, 0) take their value there", "excluded middle (a real e is > 0 or <= 0); each sub-chain is checked under the step's hypotheses plus its case, which holds surely because e is non-random; Max(e, 0) = e when e > 0 and 0 when e <= 0 by definition (Min(e, 0) the other way)")
def _cases(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">=", "="), "cases: bad relation")
    e = sp.sympify(p["split"])
    _constant(e, "cases: the split")
    _need(_fact(e, "extended_real"), f"cases: the split {sp.sstr(e)} is not known to be real")
    # the case is about one value of the split's symbols: where a sum (or a sub-chain's termwise)
    # binds one of them, the case would be read for every index, so such a split is refused
    subs = [c for c in (p.get("pos"), p.get("nonpos")) if isinstance(c, Chain)]
    # (the sub-chains' generic indices too: max-bound's k read the case y[k] > 0 for every k, review 57)
    bound = (_binder_variables([lhs, rhs]) | set().union(*(_every_reads(c, ctx) for c in subs))) & e.free_symbols
    _need(not bound, f"cases: the split {sp.sstr(e)} uses {sorted(map(str, bound))}, which a sum or "
                     "sub-chain binds as an index; split inside the sum (termwise) instead")
    for positive, key, case in ((True, "pos", sp.Gt(e, 0)), (False, "nonpos", sp.Le(e, 0))):
        sub = p.get(key)
        _need(sub is not None, f"cases: no sub-chain for the case {sp.sstr(case)} ({key}=)")
        _need(case not in (sp.true, sp.false), f"cases: the case {sp.sstr(case)} is decided by the symbols' assumptions; no split is needed")
        # e > 0 or e <= 0 only where e is defined: the cases tan x > 0 and tan x <= 0 leave out x = π/2
        _defined_where_step((e,), (lhs, rhs), ctx, "cases: the split")
        local = ctx._local({"__case__": case})
        res = _sub_chain(sub, local, _case_value(lhs, e, positive), rel if rel != "=" else "==", _case_value(rhs, e, positive), "cases",
                         (lhs, rhs))
        _need(res.complete, f"cases: the case {sp.sstr(case)} does not check: {res.first_failure}")
    return f"both cases of {sp.sstr(e)} > 0 are checked chains"


@_rule("min-max", "X <= min(b_1, …, b_k) when X <= b_j for every j; max(a_1, …, a_k) <= X when a_j <= X for every j", "the definition of min and max; every bound X <= b_j (a_j <= X) is itself a checked chain under the step's hypotheses")
def _min_max(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "min-max: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    subs = p["term"]
    _need(isinstance(subs, (list, tuple)) and subs, "min-max: term must be a non-empty list of chains")
    if isinstance(big, sp.Min):
        goals = [(small, b) for b in big.args]
    else:
        _need(isinstance(small, sp.Max), "min-max: the big side is not a Min and the small side is not a Max")
        goals = [(a, big) for a in small.args]
    for a, b in goals:
        ok = any(_sub_chain(c, ctx, a, "<=", b, "min-max", (lhs, rhs)).complete for c in subs)
        _need(ok, f"min-max: no sub-chain proves {sp.sstr(a)} <= {sp.sstr(b)}")
    return "every bound of the min (max) is a checked chain"


@_rule("monotone-chain", "g(a) <= g(b) when a <= b is a checked chain and g' >= 0 between them (or b <= a and g' <= 0)", "the monotone rule, with the order of a and b proved by a checked sub-chain under the step's hypotheses instead of from the hypotheses directly")
def _monotone_chain(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "monotone-chain: only for '<=' / '>=' steps")
    a, b = sp.sympify(p["a"]), sp.sympify(p["b"])
    sub = p["term"]
    order = None
    # g(t) = P(A)·h(t) is 0 wherever P(A) = 0, whatever t: there the order of a and b (means given A,
    # undefined) is not needed (T1ii: P(i ∉ S)·‖E[X]‖ <= P(i ∉ S)·E‖X‖ by Jensen given i ∉ S)
    cover = _monotone_cover(p["var"], sp.sympify(p["g"]), a, b)
    for x, y in ((a, b), (b, a)):
        if _sub_chain(sub, ctx, x, "<=", y, "monotone-chain", (lhs, rhs), cover).complete:
            order = sp.Le(x, y, evaluate=False)
            break
    _need(order is not None, "monotone-chain: the sub-chain proves neither a <= b nor b <= a")
    local = ctx._local({"__order__": order})
    return _monotone(lhs, rel, rhs, {k: v for k, v in p.items() if k != "term"}, local) + " (order by a checked chain)"


def _monotone_cover(var, g, a, b):
    """The factors P(A) of g(var) = P(A)·h(var) free of ``var``: where one is 0, g is 0 whatever
    ``var``, so ``monotone-chain`` needs the order of ``a`` and ``b`` only where none is. A factor
    that ``a`` or ``b`` holds is not one (P(A)·(1/P(A)) is 1 where P(A) = 0; review 63).

    >>> D = sp.Function("D")(1); P = Prob(D >= 5); t = sp.Symbol("t")
    >>> _monotone_cover(t, P * t, Expect(Cond(D, D >= 5)), 1), _monotone_cover(t, P * t, 1 / P, 2)
    (Prob(D(1) >= 5), 1)
    """
    return sp.Mul(*[f for f in sp.Mul.make_args(g) if isinstance(f, Prob) and var not in f.free_symbols
                    and not (sp.sympify(a).has(f) or sp.sympify(b).has(f))])


def _random_part(e) -> bool:
    """Whether ``e`` has a random variable outside every E and P: ``not is_constant(e)`` (one
    notion of what is random, so a function declared deterministic is a constant here too)."""
    return not is_constant(e)


def _linear_expect(e):
    """``e`` with every E[X] expanded by linearity: E[Σ_k c_k R_k + d] = Σ_k c_k E[R_k] + d for
    constants c_k (commutative factors without a random variable) and d (terms without one)."""
    if not isinstance(e, sp.Basic) or not e.args:
        return e
    if isinstance(e, Expect):
        out = []
        for term in sp.Add.make_args(sp.expand(_linear_expect(e.args[0]))):
            if not _random_part(term):
                out.append(term)
                continue
            c, nc = term.args_cnc()
            const = [f for f in c if not _random_part(f)]
            rand = [f for f in c if _random_part(f)] + nc
            out.append(sp.Mul(*const) * Expect(sp.Mul(*rand)))
        return sp.Add(*out)
    return e.func(*[_linear_expect(a) for a in e.args])


@_rule("linearity", "E[Σ_k c_k X_k + d] = Σ_k c_k E[X_k] + d for constants c_k and d (also for vectors)", "linearity of expectation; the random variables are those of is_random_atom (applied functions and objects of a user's own class unless declared deterministic, symbols declared random=True and the entries of a base so labelled, sympy.stats variables) outside every E and P, all else is a constant, and the two sides must agree exactly once every expectation is expanded")
def _linearity(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "linearity: only for '=' steps")
    _need(lhs.has(Expect) or rhs.has(Expect), "linearity: the step has no expectation")
    a, b = _linear_expect(lhs), _linear_expect(rhs)
    _need(is_identity(a, b), f"linearity: {sp.sstr(a)} is not {sp.sstr(b)}")
    return "linearity of expectation"


@_rule("expect-monotone", "E[X] <= E[Y] when X <= Y is a checked chain", "monotonicity of expectation: the sub-chain proves X <= Y for every value of the random variables that meets the hypotheses, so for every outcome")
def _expect_monotone(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "expect-monotone: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    _need(isinstance(small, Expect) and isinstance(big, Expect), "expect-monotone: both sides must be expectations")
    # one probability space: E[X | A] <= E[Y] does not follow from X <= Y where A holds (review 57:
    # E[D | D >= 1] <= E[D] for D in {0, 2})
    spaces = _atom_spaces(small.args[0]) | _atom_spaces(big.args[0])
    _need(len(spaces) <= 1 and _VARIES not in spaces, "expect-monotone: the two means are on different probability "
          "spaces (conditioned on different events, or on an event that varies with a summation index); condition "
          "both alike")
    res = _sub_chain(p["term"], ctx, small.args[0], "<=", big.args[0], "expect-monotone", (lhs, rhs))
    _need(res.complete, f"expect-monotone: the sub-chain does not check: {res.first_failure}")
    return "monotonicity of expectation"


#: The space of a Cond whose event reads a variable bound around it (:func:`_atom_spaces`): one per value.
_VARIES = object()


def _atom_spaces(e) -> set:
    """The probability spaces of the random atoms of ``e``: the event of the ``Cond`` an atom sits
    in, or None (the whole space) for one outside every Cond; ``_VARIES`` for one whose event reads
    a variable that a binder around it binds (another space at each of its values)."""
    return _spaces(e, pointwise=False)


def _pointwise_spaces(e) -> set:
    """The probability spaces of the random values ``e`` holds pointwise: as :func:`_atom_spaces`,
    but a mean or probability (E[·], P(·)) is a number, whatever space its argument is on, and a
    conditioned value is on its event's space even when it is constant (review 61: D = Cond(1, A),
    "D is 1 where A holds", moved E[D] to 1)."""
    return _spaces(e, pointwise=True)


def _spaces(e, pointwise: bool) -> set:
    out: set = set()

    def walk(x, event, bound) -> bool:
        """Add the spaces of the random values in ``x``; whether there was one."""
        if pointwise and isinstance(x, (Expect, Prob)):
            return False
        if isinstance(x, Cond):
            # an event that reads a variable an enclosing sum binds is another event at each of its
            # values (review 58: Σ_i (−1)^i Cond(D, D >= i) is E[D | D >= 2] − E[D | D >= 1])
            here = _VARIES if x.args[1].free_symbols & bound else x.args[1]
            if pointwise and event is not None:  # Cond(Cond(W, A), B) is W on one space, A and B
                here = _VARIES if _VARIES in (event, here) else (
                    (event if isinstance(event, frozenset) else frozenset({event})) | {here})
            found = walk(x.args[0], here, bound)
            if pointwise and not found:  # a constant on A is on A (review 61: D = Cond(1, A) gave E[D] = 1)
                out.add(here)
            return True if pointwise else found
        if is_random_atom(x):
            out.add(event)
            return True
        inner = bound | _bound_here(x)
        found = False
        for a in getattr(x, "args", ()):
            if isinstance(a, sp.Basic):
                found = walk(a, event, inner) or found
        return found

    walk(sp.sympify(e), None, frozenset())
    return out


def _mixed_spaces(*exprs) -> bool:
    """Whether ``exprs`` together hold random values on more than one probability space (or on
    an event that varies with a bound variable): X and Cond(X, A), Cond(X, A) and Cond(X, B)."""
    spaces = set().union(*(_pointwise_spaces(e) for e in exprs))
    return len(spaces) > 1 or _VARIES in spaces


def _mixed_means(*exprs) -> str | None:
    """The first mean or probability in ``exprs`` whose argument mixes probability spaces
    (:func:`_mixed_spaces`), as text, or None: E[X + Cond(X, A)] is no mean on any one space."""
    for e in exprs:
        if not isinstance(e, sp.Basic):
            continue
        for x in sp.preorder_traversal(e):
            if isinstance(x, (Expect, Prob)) and x.args and _mixed_spaces(x.args[0]):
                return sp.sstr(x)
    return None


@_rule("moment", "E[Z] <= sqrt(E[Z²]) for every real random Z", "Cauchy–Schwarz for E[Z·1] (equivalently, E[Z²] − E[Z]² is the variance, >= 0); Z must be a real scalar")
def _moment(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "moment: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    Z = sp.sympify(p["Z"])
    _need(Z.is_commutative is True and _fact(Z, "extended_real"), f"moment: Z = {sp.sstr(Z)} is not known to be a real scalar")
    _same(small, Expect(Z), "moment: the small side is not E[Z]")
    _same(big, sp.sqrt(Expect(Z**2)), "moment: the big side is not sqrt(E[Z^2])")
    return "E[Z] <= sqrt(E[Z^2])"


# ----------------------------------------------------------------------------- citing a checked theorem


#: The SymPy assumptions an instantiated symbol must keep (the cited proof may rely on any of them).
_SYMPY_FACTS = frozenset((  # the assumptions SymPy documents ("Assumptions" in its core docs)
    "algebraic", "antihermitian", "commutative", "complex", "composite", "even", "extended_negative",
    "extended_nonnegative", "extended_nonpositive", "extended_nonzero", "extended_positive", "extended_real",
    "finite", "hermitian", "imaginary", "infinite", "integer", "irrational", "negative", "noninteger", "nonnegative",
    "nonpositive", "nonzero", "odd", "polar", "positive", "prime", "rational", "real", "transcendental", "zero"))
_SIGN_FACTS = {"positive": (1, True), "nonnegative": (1, False), "negative": (-1, True), "nonpositive": (-1, False)}


def _plain_symbols(e) -> set:
    """The free Symbols of ``e`` (SymPy also lists Indexed objects, even under a bound index)."""
    return {s for s in sp.sympify(e).free_symbols if isinstance(s, sp.Symbol)}


def _bare_symbols(e) -> set:
    """The free Symbols of ``e`` outside the subscripts of Indexed objects."""
    e = sp.sympify(e)
    return _plain_symbols(e.xreplace({ix: sp.Dummy() for ix in e.atoms(sp.Indexed)}))


def _sides(h) -> list:
    if isinstance(h, Assumed):  # usable by no rule: it speaks of nothing a rule may read
        return []
    if isinstance(h, FACTS):
        return _fact_sides(h)
    if isinstance(h, Lemma):
        return [h.lhs, h.rhs]
    return [a for r in (h if isinstance(h, tuple) else (h,)) for a in (r.lhs, r.rhs)]


class _Instantiation:
    """A simultaneous substitution σ of a cited theorem's symbols (Symbol -> expression) and
    indexed bases (IndexedBase -> Lambda over its subscripts), checked for capture."""

    def __init__(self, subs, bound):
        _need(isinstance(subs, Mapping) and subs, "instance: subs must be a non-empty mapping")
        self.symbols, self.bases = {}, {}
        for k, v in subs.items():
            if isinstance(k, sp.IndexedBase):
                _need(isinstance(v, sp.Lambda), f"instance: the indexed base {k} must map to a Lambda over its subscripts")
                self.bases[k] = v
                free = _plain_symbols(v)
            else:
                _need(isinstance(k, sp.Symbol), f"instance: {k!r} is not a symbol or an indexed base")
                _need(k not in bound, f"instance: {k} is a bound (summation) variable of the theorem")
                v = sp.sympify(v)
                self.symbols[k] = v
                free = _plain_symbols(v)
            captured = free & bound
            _need(not captured, f"instance: the value of {k} would be captured by the theorem's bound variable(s) {sorted(map(str, captured))}")
        self._dummies = {k: sp.Dummy(str(k), commutative=k.is_commutative) for k in self.symbols}
        self._holders = {b: sp.IndexedBase(sp.Dummy(str(b.label))) for b in self.bases}

    def _marked(self, e):
        """``e`` with the symbols substituted and each substituted base replaced by its holder.

        A derivative's variable is not substituted: d/da (a b) = b at a := b is the derivative
        evaluated at b, not d/db (b²), which a plain replacement would build."""
        e = sp.sympify(e)
        labels = {b.label for b in self.bases}
        for d in e.atoms(sp.Derivative):
            for v, _ in d.variable_count:
                hit = (any(sp.sympify(v).has(k) for k in self.symbols) or any(sp.sympify(v).has(b) for b in labels)
                       or any(sp.sympify(v).has(b) for b in self.bases))
                _need(not hit, f"instance: {sp.sstr(v)} is the variable of {sp.sstr(d)}, and a substitution there "
                               "changes what is differentiated (cite the theorem with that symbol left alone)")
            put = [val for k, val in self.symbols.items() if d.expr.has(k)]
            put += [lam for b, lam in self.bases.items() if d.expr.has(b)]
            caught = _captured(d, put, olds=list(self.symbols) + list(self.bases))
            _need(not caught, f"instance: the value of a symbol in {sp.sstr(d)} holds {sorted(map(str, caught))}, "
                              "a variable of that derivative, which would capture it")
        if self.bases:  # mark the substituted bases first, so that their subscripts are renamed below
            e = e.replace(lambda a: isinstance(a, sp.Indexed) and a.base in self._holders,
                          lambda a: self._holders[a.base][a.indices])
        e = e.xreplace(self._dummies)
        return e.xreplace({d: self.symbols[k] for k, d in self._dummies.items()})

    def reads(self, exprs) -> dict:
        """The subscripts at which σ(``exprs``) reads each substituted base, as {base: {indices:
        free}}: the indices with every bound variable renamed to a kernel symbol that carries only
        what its range gives (:func:`_alpha`: an integer for a sum's index, a real for an
        integral's), and ``free`` whether they hold no bound variable at all."""
        out: dict = {b: {} for b in self.bases}
        back = {h.label: b for b, h in self._holders.items()}
        for e in exprs:
            if not isinstance(e, sp.Basic):
                continue
            whole = _alpha(self._marked(e))
            free = whole.free_symbols
            for ix in whole.atoms(sp.Indexed):
                if ix.base.label in back:
                    used = set().union(*(sp.sympify(i).free_symbols for i in ix.indices))
                    out[back[ix.base.label]][tuple(ix.indices)] = used <= free
        return out

    def __call__(self, e):
        e = self._marked(e)
        if self.bases:
            back = {h.label: b for b, h in self._holders.items()}
            e = e.replace(lambda a: isinstance(a, sp.Indexed) and a.base.label in back,
                          lambda a: self._call(self.bases[back[a.base.label]], a.indices))
        return e

    @staticmethod
    def _call(lam, indices):
        _no_capture(lam.expr, indices, f"instance: the value {sp.sstr(lam)} at {sp.sstr(tuple(indices))}", olds=lam.variables)
        return lam(*indices)

    def relation(self, r):
        return type(r)(self(r.lhs), self(r.rhs))


def _keeps_assumptions(key, value, ctx, what: str = "instance"):
    """``value`` has every assumption of ``key`` (SymPy decides it, or the sign is proved from the
    relations of ``ctx``, a Context or a sequence of relations)."""
    rels = tuple(ctx.relations()) if isinstance(ctx, Context) else tuple(ctx)
    plain = _alpha(sp.sympify(value))  # a bound variable's own assumptions are not facts about the value
    signs = [f for f in _SIGN_FACTS if getattr(key, f"is_{f}") is True]
    for fact in signs:  # proved from the hypotheses
        if getattr(plain, f"is_{fact}") is not True:
            sign, strict = _SIGN_FACTS[fact]
            _need(_nonnegative(sign * value, rels, strict=strict),
                  f"{what}: {sp.sstr(value)} must be {fact}, as {sp.sstr(key)} is: cannot prove "
                  f"{sp.sstr(sign * value)} {'>' if strict else '>='} 0")
    follows = sp.Dummy(**{f: True for f in signs}).assumptions0 if signs else {}
    # every other assumption the cited proof may have used (imaginary, prime, even, integer=False, …):
    # each one SymPy derives True for the key, and each the key was declared with, the value must have
    given = dict(getattr(key, "_assumptions_orig", None) or {})
    # SymPy's facts (random=True is the kernel's own, checked above), the declared ones first
    wanted = sorted(given.items()) + sorted((f, v) for f, v in key.assumptions0.items() if v is True and f not in given)
    for fact, v in wanted:
        if fact not in _SYMPY_FACTS:
            continue
        if follows.get(fact) == v or getattr(plain, f"is_{fact}", None) == v:
            continue
        _need(False, f"{what}: {sp.sstr(value)} is not known to be {fact}={v}, as {sp.sstr(key)} is")


def _literal_hypothesis(r, relations) -> bool:
    """``r`` is literally one of ``relations`` (up to exact algebra)."""
    mine = _nonneg_form(r)
    for h in relations:
        if isinstance(r, sp.Eq) and isinstance(h, sp.Eq):
            if (is_identity(r.lhs, h.lhs) and is_identity(r.rhs, h.rhs)) or (is_identity(r.lhs, h.rhs) and is_identity(r.rhs, h.lhs)):
                return True
        elif mine is not None and not isinstance(h, sp.Eq):
            g, strict = _nonneg_form(h)
            if (strict or not mine[1]) and is_identity(g, mine[0]):
                return True
    return False


def _discharge(r, how, ctx, what, ends):
    """Prove the instantiated premise ``r`` under ``ctx``: a literal hypothesis (``how`` a
    name, or None), an identity / the sign oracle (None), or a checked chain. Proved other than
    as a hypothesis, it holds only where its sides are defined, which must be wherever the
    citing step's sides, ``ends``, are (the theorem was proved for points that meet it)."""
    if r is sp.true:
        return
    _need(r is not sp.false, f"{what}: the instantiated premise is false")
    if isinstance(how, str):
        _need(how in ctx.hypotheses and _literal_hypothesis(r, ctx.relation(how)), f"{what}: {sp.sstr(r)} is not hypothesis {how!r}")
        return
    if not (how is None and _literal_hypothesis(r, ctx.relations())):
        _defined_where_step(_sides(r), ends, ctx, what)
    if isinstance(how, Chain):
        _need(not isinstance(r, (sp.Lt, sp.Gt)), f"{what}: a chain cannot prove the strict {sp.sstr(r)}")
        rel = {sp.Le: "<=", sp.Ge: ">=", sp.Eq: "="}[type(r)]
        res = replace(how, ctx=ctx).prove(r.lhs, rel, r.rhs)
        _need(res.complete, f"{what}: the chain for {sp.sstr(r)} does not check: {res.first_failure}")
        return
    _need(how is None, f"{what}: a discharge must be None, a hypothesis name or a Chain")
    if _literal_hypothesis(r, ctx.relations()):
        return
    if isinstance(r, sp.Eq):
        _need(is_identity(r.lhs, r.rhs, deep=True), f"{what}: cannot prove {sp.sstr(r)}")
        return
    g, strict = _nonneg_form(r)
    _nonneg(g, ctx, f"{what}: {sp.sstr(r)}", strict=strict)


def _steps_within(chain):
    """The steps of ``chain`` and, recursively, of the sub-chains they carry."""
    for st in chain.steps:
        yield st
        for sub in _sub_chains(st):
            yield from _steps_within(sub)


def _proofs_within(chain, ctx=None) -> list:
    """``chain`` and, recursively, the chains of its context's lemmas and of the theorems its steps
    cite, each once, as (chain, the sides of the statement it proves; [] for ``chain`` itself, the
    contexts it is written and checked in). ``ctx``: the context ``chain`` is checked under (its
    own by default; a sub-chain's is its step's). A lemma's chain is checked under the stated
    hypotheses of the context that holds it (:meth:`Context.relation`), whatever context it was
    built with, so both are given (review 59); a cited theorem's under its own."""
    out, seen = [], set()
    todo = [(chain, [], (chain.ctx,) if ctx is None or ctx is chain.ctx else (chain.ctx, ctx))]
    while todo:
        c, sides, ctxs = todo.pop()
        key = (id(c), tuple(map(id, ctxs)))
        if key in seen:
            continue
        seen.add(key)
        out.append((c, sides, ctxs))
        todo += [(h.chain, [h.lhs, h.rhs], (h.chain.ctx, k.without_lemmas())) for k in ctxs
                 for h in k.hypotheses.values() if isinstance(h, Lemma)]
        todo += [(t.chain, [t.lhs, t.rhs], (t.chain.ctx,)) for st in _steps_within(c) if st.by.rule == "instance"
                 and isinstance(t := st.by.params.get("theorem"), Lemma)]
    return out


def _statement_exprs(chain) -> list:
    """Every expression a chain's statement and proof write down: its steps and sub-chains, its
    hypotheses, and, recursively, the chains of its lemmas and of the theorems it cites."""
    return [x for c, sides, _ in _proofs_within(chain)
            for x in _chain_exprs(c) + sides + [y for h in c.ctx.hypotheses.values() for y in _sides(h)]]


def _indicator_conflict(chain, goal, ctx) -> list:
    """Why ``condition``'s indicator readings do not stand for this statement, or []: a function
    that the proof (the chain, its lemmas and the theorems it cites) uses as an atomic event must
    be one in the statement itself (the goal or the hypotheses): a proof cannot make E[D(i)] <= 1
    true by splitting on the event D(i); and no function used as an event may have its values
    compared in a relation (a hypothesis D(k) >= 2, or P(D(i) >= 2) anywhere)."""
    parts = _hypothesis_parts(ctx)
    stated = [x for x in list(goal) + [y for _, sides in parts for y in sides] if isinstance(x, sp.Basic)]
    proof = [x for x in _statement_exprs(chain) if isinstance(x, sp.Basic)]
    for h in ctx.hypotheses.values():
        if isinstance(h, Lemma):
            proof += [x for x in _statement_exprs(h.chain) if isinstance(x, sp.Basic)]
    stated_events = {a.func for x in stated for a in _event_atoms(x)}
    events = stated_events | {a.func for x in proof for a in _event_atoms(x)}
    relations = [r for r, _ in parts if not isinstance(r, FACTS)]  # a hypothesis that is itself a relation
    compared = {u.func for x in relations + stated + proof for r in sp.preorder_traversal(x)
                if isinstance(r, sp.core.relational.Relational) for u in _value_uses(r.lhs) | _value_uses(r.rhs)}
    compared |= {u.func for r, sides in parts if isinstance(r, FACTS) for y in sides for u in _value_uses(y)}
    out = [f"{f} is an event of the proof only" for f in sorted(events - stated_events, key=str)]
    out += [f"the values of {f} are compared in a relation" for f in sorted(events & compared, key=str)]
    return out


_GENERIC_INDEX_PARAMS = {"termwise": ("index",), "diag-norm": ("index",), "gershgorin-rows": ("index", "col"),
                         "sum-term": ("index",), "max-bound": ("index",), "rank-one": ("index",)}


def _every_reads(chain, ctx=None) -> set:
    """The symbols that ``chain`` may read "for every value" (a superset): the variables of every
    binder it writes down (a hypothesis substituted under a sum is read at each of the sum's
    values), the indices of its rules' term proofs (termwise, max-bound, …), the indices of its
    definitions (``defs=``), and those of the lemmas of its context and of the theorems it cites
    (whose premises its own hypotheses may discharge at a generic index)."""
    out: set = set()
    for c, sides, ctxs in _proofs_within(chain, ctx):
        out |= _binder_variables(_chain_exprs(c) + sides)
        for st in _steps_within(c):
            params = st.by.params
            out.update(v for key in _GENERIC_INDEX_PARAMS.get(st.by.rule, ()) if isinstance(v := params.get(key), sp.Symbol))
            defs = params.get("defs")
            for name in (defs if isinstance(defs, (tuple, list)) else (defs,)) if defs else ():
                # a name is read in every context the chain is written or checked in (review 59)
                found = [k.hypotheses.get(name) for k in ctxs]
                for r in [r for h in found for r in (h if isinstance(h, tuple) else (h,))]:
                    if isinstance(r, Lemma):  # a proved definition is one too (review 58)
                        r = r.relation_expr()
                    if isinstance(r, sp.Eq) and isinstance(r.lhs, sp.Indexed):
                        out.update(*(sp.sympify(i).free_symbols for i in r.lhs.indices))
    return out


def _instance_poles(sides, sigma, step, rels) -> str | None:
    """Where a cited theorem's ``sides`` may be undefined, under σ, and the ``step``'s sides are
    not surely undefined, unless proved non-zero from ``rels`` (a sentence), else None."""
    fs, qs = _union(map(undefined_parts, sides))
    bound = _binder_variables(list(sides))
    sure_f, sure_q = _union(map(surely_undefined, step))
    for q in sorted(qs, key=sp.default_sort_key):
        if q.free_symbols & bound or sigma(q) not in sure_q:
            return f"the theorem's {sp.sstr(q)} may be undefined where this step is not"
    for f in sorted(fs, key=sp.default_sort_key):
        g = sigma(f)
        if f.free_symbols & bound:
            if not _nonzero(g):
                return f"the theorem's sides are undefined where {sp.sstr(f)} = 0, under a binder; not proved non-zero"
        elif g not in sure_f and not _nonzero(g, rels):
            return (f"the theorem's sides are undefined where {sp.sstr(f)} = 0, i.e. {sp.sstr(g)} = 0 here, "
                    "where this step's are not; not proved non-zero")
    return None


@_rule("instance", "an instance σ(lhs) rel σ(rhs) of a theorem lhs rel rhs whose chain checks, when every premise σ(h) of the theorem is proved", "modus ponens on a universally quantified theorem: the cited chain is re-checked under its own hypotheses, σ is a capture-free substitution that keeps every symbol's assumptions (a base's value at the integers and at every other subscript the theorem reads it at), and each substituted hypothesis is discharged by a checked chain, a literal hypothesis or the sign oracle")
def _instance(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">=", "="), "instance: bad relation")
    thm = p["theorem"]
    _need(isinstance(thm, Lemma), "instance: the theorem must be a Lemma (a chain with its goal)")
    own = thm.chain.ctx
    cited = _lemma_check(thm, own)
    _need(cited.complete, f"instance: the cited theorem's chain does not check: {cited.first_failure}")
    # every stated hypothesis is a premise (local "__" ones too: the cited chain may have used
    # them); lemmas are not, since they are derived from the stated ones by checked chains
    base = Context({n: h for n, h in own.hypotheses.items() if not isinstance(h, Lemma)})
    premises = [(name, k, r) for name in base.hypotheses for k, r in enumerate(base.relation(name))]
    for name, h in base.hypotheses.items():
        _need(not isinstance(h, FACTS), f"instance: premise {name!r} is a fact ({type(h).__name__}), which cannot be instantiated")
    bound = _binder_variables([thm.lhs, thm.rhs] + [a for _, _, r in premises for a in (r.lhs, r.rhs)])
    # a symbol of a premise that the cited chain reads for every value (max-bound's index k in
    # x_k <= B, a definition's index, a sum's variable in one of its steps) is bound by the premise
    # too: the theorem is "x_k <= B for every k => …", so k is neither substituted nor captured,
    # and a hypothesis that pins k cannot discharge the premise
    in_premises = set().union(*(sp.sympify(a).free_symbols for _, _, r in premises for a in (r.lhs, r.rhs)))
    bound |= _every_reads(thm.chain) & in_premises
    for name, k, r in premises:
        bare = (_bare_symbols(r.lhs) | _bare_symbols(r.rhs)) & bound
        _need(not bare, f"instance: premise {name!r} uses the summation index {sorted(map(str, bare))} outside a subscript")
    labels = {ix.base.label for e in [thm.lhs, thm.rhs] + [a for _, _, r in premises for a in (r.lhs, r.rhs)]
              for ix in sp.sympify(e).atoms(sp.Indexed)}
    _need(not (set(p["subs"]) & labels), "instance: a symbol of subs is the label of an indexed base; substitute the base by a Lambda")
    sigma = _Instantiation(p["subs"], bound)
    # a theorem about means and probabilities holds for constant symbols: a random value for one
    # (a threshold t := X) would put the variable inside its own event; a pointwise theorem may
    # take random values, since it holds at every outcome. A symbol (or base) the theorem declares
    # random stands for any random variable, as its proof could not take it out of E or P, so it
    # may take a random value (the theorem's hypotheses about it are checked for that value)
    stated = [thm.lhs, thm.rhs] + [a for _, _, r in premises for a in (r.lhs, r.rhs)] + [
        x for h in own.hypotheses.values() if isinstance(h, FACTS) for x in _fact_sides(h)]
    if any(sp.sympify(e).has(Expect, Prob, Indicator, Cond) for e in stated if isinstance(e, sp.Basic)):
        for k, v in list(sigma.symbols.items()) + [(b, lam.expr) for b, lam in sigma.bases.items()]:
            if is_random_atom(k.label if isinstance(k, sp.IndexedBase) else k):
                # a conditioned variable lives on another probability space (its own P and E)
                _need(not v.has(Cond), f"instance: the value of {k} is conditioned ({sp.sstr(v)}): a random "
                                       "symbol stands for a random variable of the theorem's space only")
            else:
                _constant(v, f"instance: the value of {k} in a theorem about means and probabilities")
    for k, v in sigma.symbols.items():
        _keeps_assumptions(k, v, ctx)
    # the theorem holds for values, not where a value is undefined: σ(a b) with a := 1/x, b := x is
    # built as x/x = 1, which would apply a b = 0 (given b = 0) at x = 0 as 1 = 0
    # (a base's value at a subscript a binder of the theorem runs over: at any integer, so read at
    # one with no other assumption where the Lambda's variables are declared with more, which SymPy
    # used when it built the body: z**(1/i) with i positive has no pole, at i = -1 it is 1/z)
    def _any_integer(lam):
        if all(_fits(v, {"integer": True}) or _fits(v, {}) for v in lam.variables):
            return lam.expr
        return lam(*[sp.Dummy(integer=True) for _ in lam.variables])

    for k, v in list(sigma.symbols.items()) + [(b, _any_integer(lam)) for b, lam in sigma.bases.items()]:
        _defined_where_step((v,), (lhs, rhs), ctx, f"instance: the value of {k}")
    reads = sigma.reads(stated)
    for b, lam in sigma.bases.items():
        dummies = [sp.Dummy(integer=True) for _ in lam.variables]
        _need(len(lam.variables) >= 1, f"instance: the Lambda for {b} takes no subscript")
        _keeps_assumptions(b[tuple(dummies)] if len(dummies) > 1 else b[dummies[0]], lam(*dummies), ctx)
        # that covers the integer subscripts; the theorem may read its base elsewhere too (x[1/2], x[t]
        # under an integral), where the value must keep the base's assumptions at that very subscript
        for idx, free in reads[b].items():
            if free and len(idx) == len(lam.variables):
                # the value at each subscript the theorem reads, as SymPy builds it there (z**(1/i) with
                # i declared positive has no pole, but at -1 it is 1/z), defined wherever the step is
                _defined_where_step((sigma(b[idx]),), (lhs, rhs), ctx, f"instance: the value of {b} at {sp.sstr(idx)}")
            if len(idx) == len(lam.variables) and all(_fact(i, "integer") for i in idx):
                continue
            _need(free, f"instance: the theorem reads {b} at the subscript {sp.sstr(idx if len(idx) > 1 else idx[0])}, "
                        "which is not known to be an integer and is bound by an integral or another binder; "
                        f"the value {sp.sstr(lam)} cannot be checked there")
            _need(len(idx) == len(lam.variables), f"instance: the Lambda for {b} takes {len(lam.variables)} subscripts, "
                                                  f"but the theorem reads {b}{list(idx)}")
            _Instantiation._call(lam, idx)  # capture-free there
            _keeps_assumptions(b[idx], lam(*idx), ctx)
    # condition reads an event that no hypothesis uses as a value as its 0/1 indicator: the cited
    # chain may have read one so under its own hypotheses, which the citing ones must not contradict
    if "condition" in cited.rules:
        for e0 in set().union(*(_event_atoms(sp.sympify(x)) for x in _chain_exprs(thm.chain) + stated)):
            e = sigma(e0)
            _need(not _indicator_like(e0, own) or _indicator_like(e, ctx),
                  f"instance: the cited chain may read the event {sp.sstr(e0)} as its 0/1 indicator, but a "
                  f"hypothesis here uses {sp.sstr(e)} as a value")
    # the step is the instantiated goal, read either way round
    a, b = sigma(thm.lhs), sigma(thm.rhs)
    trel = "=" if thm.relation in ("=", "==") else thm.relation
    flip = {"<=": ">=", ">=": "<=", "=": "="}
    ok = (rel == trel and is_identity(lhs, a) and is_identity(rhs, b)) or (
        rel == flip[trel] and is_identity(lhs, b) and is_identity(rhs, a))
    _need(ok, f"instance: the step is not the theorem's goal under σ, {sp.sstr(a)} {trel} {sp.sstr(b)}")
    # the theorem says nothing where its sides are undefined: σ(a/b) built as z/z = 1 would use it
    # at b = 0. Each place it may be undefined must stay one of the step's, or be proved away here
    poles = _instance_poles((thm.lhs, thm.rhs), sigma, (lhs, rhs), ctx.relations())
    _need(not poles, f"instance: {poles}")
    # premises: a hypothesis of the current context in which a bound index of the theorem
    # occurs outside a subscript speaks of one index, not of every one: it may not be used
    # (nor one about the k-th entries where another hypothesis pins k: y[k] = 0 beside k = 1 is about one k)
    pinned = {c for c in bound if _pinning(c, ctx)}
    dctx = Context({n: h for n, h in ctx.hypotheses.items()
                    if not (set().union(*map(_bare_symbols, _sides(h))) & bound)
                    and not (set().union(*(sp.sympify(a).free_symbols for a in _sides(h))) & pinned)})
    given = p.get("discharge") or {}
    _need(set(given) <= set(base.hypotheses), f"instance: discharge names no premise {sorted(set(given) - set(base.hypotheses))}")
    for name, k, r in premises:
        how = given.get(name)
        if isinstance(how, (list, tuple)):
            _need(len(how) == len(base.relation(name)), f"instance: discharge of {name!r} needs one entry per relation")
            how = how[k]
        _discharge(sigma.relation(r), how, dctx, f"instance: premise {name!r}[{k}]", (lhs, rhs))
    return f"an instance of a checked theorem ({len(premises)} premises discharged)"


# land11 (issue 11): the law of total expectation, conditioning on an event, E of a finite sum


_EVENT_TAG = secrets.token_hex(8)  # the stand-ins of indexed events: a caller cannot forge one by its name


def _event_poly(ev, atoms: dict, indexed: bool = False):
    """The indicator of the event ``ev`` as a polynomial in the indicators of its atomic events
    (fresh symbols in ``atoms``, keyed by the atomic event): Not(A) is 1 − A, And a product, Or
    1 − Π(1 − ·). A strict relation is the complement of the non-strict one (a < b iff not
    b <= a) when a − b is known to be real; otherwise it is an atom of its own (sound, as an
    unrelated event). A union (:class:`Cup`) is an atom of its own too.

    ``indexed``: each atom is a fresh function of the atomic event's free symbols instead of a
    fresh symbol, so that an event under a sum, ``D(i) <= r`` summed over i, keeps its index
    (the same event under another index name is another atom: sound, never more identities)."""

    def atom(key):
        if key not in atoms:
            if indexed:
                free = sorted(key[1].free_symbols, key=sp.default_sort_key)
                # a per-process name: SymPy's undefined functions are equal by name, and a caller's
                # own _e0(i) was taken for the stand-in of an event (review 52)
                atoms[key] = sp.Function(f"_e{len(atoms)}_{_EVENT_TAG}")(*free) if free else sp.Dummy(f"e{len(atoms)}")
            else:
                atoms[key] = sp.Dummy(f"e{len(atoms)}")
        return atoms[key]

    if ev is sp.true:
        return sp.Integer(1)
    if ev is sp.false:
        return sp.Integer(0)
    if isinstance(ev, sp.Not):
        return 1 - _event_poly(ev.args[0], atoms, indexed)
    if isinstance(ev, sp.And):
        return sp.Mul(*[_event_poly(a, atoms, indexed) for a in ev.args])
    if isinstance(ev, sp.Or):
        return 1 - sp.Mul(*[1 - _event_poly(a, atoms, indexed) for a in ev.args])
    if isinstance(ev, AppliedUndef):
        _need(ev.is_commutative is not False, f"an event {sp.sstr(ev)} must be a scalar indicator")
        return atom(("ind", ev))
    if isinstance(ev, Cup):
        return atom(("cup", ev))
    if isinstance(ev, (sp.Le, sp.Ge, sp.Lt, sp.Gt)):
        small, big = (ev.lhs, ev.rhs) if isinstance(ev, (sp.Le, sp.Lt)) else (ev.rhs, ev.lhs)
        d = sp.expand(small - big)  # the event is d <= 0 (d < 0 when strict)
        if isinstance(ev, (sp.Lt, sp.Gt)):
            if _fact(d, "extended_real"):
                return 1 - atom(("le", sp.expand(-d)))  # d < 0 iff not -d <= 0
            return atom(("lt", d))
        return atom(("le", d))
    if isinstance(ev, (sp.Eq, sp.Ne)):
        d = sp.expand(ev.lhs - ev.rhs)
        e = atom(("eq", min(d, sp.expand(-d), key=sp.srepr)))
        return e if isinstance(ev, sp.Eq) else 1 - e
    raise _Fail(f"{sp.sstr(ev)} is not an event (a relation, an indicator function, or Not/And/Or of them)")


def _multilinear(e, atoms: dict):
    """``e`` expanded, with every power x^k (k >= 1) of an atom's indicator reduced to x (x is 0
    or 1)."""
    syms = set(atoms.values())
    return sp.expand(sp.expand(e).replace(
        lambda a: a.is_Pow and a.base in syms and a.exp.is_Integer and a.exp > 1, lambda a: a.base))


def _multilinear_zero(poly, atoms: dict) -> bool:
    """Whether a polynomial in 0/1 indicators vanishes for every value of them: with every power
    x^k (k >= 1) reduced to x it is multilinear, and a multilinear polynomial vanishes on the
    whole cube {0, 1}^n exactly when all its coefficients are 0."""
    return _multilinear(poly, atoms) == 0


def _partition(events) -> None:
    """Check that ``events`` partition the sample space: pairwise disjoint, union everything."""
    _need(isinstance(events, (list, tuple)) and len(events) >= 1, "total-expectation: events must be a non-empty list")
    atoms: dict = {}
    polys = [_event_poly(sp.sympify(ev), atoms) for ev in events]
    _need(_multilinear_zero(sp.Add(*polys) - 1, atoms), "total-expectation: the events do not cover the sample space (the indicators do not sum to 1)")
    for j in range(len(polys)):
        for k in range(j + 1, len(polys)):
            _need(_multilinear_zero(polys[j] * polys[k], atoms), f"total-expectation: events {j} and {k} are not disjoint")


def _has_cond(e) -> bool:
    return isinstance(e, sp.Basic) and bool(e.atoms(Cond))


@_rule("total-expectation", "E[X] = Σ_k P(A_k) E[X | A_k] for events A_1, …, A_n that partition the sample space", "the law of total expectation (E[X] = Σ_k E[X 1_{A_k}] since Σ_k 1_{A_k} = 1, and E[X 1_A] = P(A) E[X | A]); the events are checked to be a partition exactly, as 0/1 polynomials in their atomic events, and neither X nor an event may be conditioned already (events on a space given C partition that space only)")
def _total_expectation(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "total-expectation: only for '=' steps")
    events = [sp.sympify(ev) for ev in p["events"]]
    # the events partition the whole space only if they are events of it: Cond(D, C) >= 2 and
    # Cond(D, C) < 2 partition the space given C (review 64: their sum was read as E[D], and is E[D | C])
    _need(not any(_has_cond(ev) for ev in events), "total-expectation: an event holds a conditioned value "
          "(Cond): the events must partition the whole space, not a space conditioned on another event")
    _partition(events)
    for whole, split in ((lhs, rhs), (rhs, lhs)):
        if isinstance(whole, Expect):
            X = whole.args[0]
            _need(not _has_cond(X), "total-expectation: X is already conditioned on an event")
            parts = sp.Add(*[Prob(ev) * Expect(Cond(X, ev)) for ev in events])
            _same(split, parts, "total-expectation: the other side is not Σ_k P(A_k) E[X | A_k]")
            return f"law of total expectation over {len(events)} events"
    raise _Fail("total-expectation: neither side is an expectation E[X]")


def _admits(e, v) -> bool:
    """Whether the value ``v`` agrees with every assumption SymPy derives for ``e`` (an applied
    function's come from its class, which ``assumptions0`` does not list)."""
    for name in sorted(_SYMPY_FACTS):
        have = getattr(e, f"is_{name}", None)
        if have is not None and getattr(v, f"is_{name}", None) not in (None, have):
            return False
    return True


def _indicator_like(e, ctx) -> bool:
    """Whether an applied function that is an atomic event may be read as its 0/1 indicator where
    it stands as a value: its assumptions admit 0 or 1, and no hypothesis speaks of it as a
    value (D(i) >= 2, or D declared negative, with D also an event, would make E[D | D] = 1)."""
    if not (_admits(e, sp.S.Zero) or _admits(e, sp.S.One)):
        return False
    for _, sides in _hypothesis_parts(ctx):  # facts and lemmas too (a weighted norm of D(i) is about its value)
        # by the function: Σ_j D(j) >= 2n speaks of D(i)'s value too
        if any(u.func == e.func for side in sides for u in _value_uses(side)):
            return False
    return True


def _uses(e, event: bool = False) -> tuple[set, set]:
    """(values, events): the applied functions that ``e`` uses as values and as events. In an event
    (of Prob, Indicator, Cond's second argument, a union) an applied function standing as the
    event itself, or under Not, And or Or, is an event; inside a relation it is a value
    (P(D(i) >= 2) = 1 speaks of D's value)."""
    if not isinstance(e, sp.Basic):
        return set(), set()
    if isinstance(e, (Prob, Indicator)):
        parts = [_uses(a, True) for a in e.args]
    elif isinstance(e, Cond):
        parts = [_uses(e.args[0]), _uses(e.args[1], True)]
    elif isinstance(e, Cup):
        parts = [_uses(e.function, True)] + [_uses(a) for lim in e.limits for a in lim]
    elif event and isinstance(e, (sp.Not, sp.And, sp.Or)):
        parts = [_uses(a, True) for a in e.args]
    elif isinstance(e, AppliedUndef):
        parts = [(set(), {e}) if event else ({e}, set())] + [_uses(a) for a in e.args]
    else:
        parts = [_uses(a) for a in e.args]
    return set().union(*(v for v, _ in parts)), set().union(*(ev for _, ev in parts))


def _value_uses(e, event: bool = False) -> set:
    """The applied functions that ``e`` uses as values (:func:`_uses`)."""
    return _uses(e, event)[0]


def _event_atoms(e) -> set:
    """The applied functions that ``e`` uses as events (:func:`_uses`)."""
    return _uses(e)[1]


def _push_cond(X, A, atoms: dict, ctx=None):
    """``X`` on the space conditioned on ``A``: every random atom R outside E and P
    (:func:`is_random_atom`; an entry x[k] of a random-labelled base whole) becomes Cond(R, A), except an indicator that is an atomic event of
    A's algebra and that A decides: 1 when A implies it, 0 when A excludes it."""
    pa = _event_poly(A, atoms)

    def walk(e):
        if not isinstance(e, sp.Basic) or isinstance(e, (Expect, Prob)) or not _random_part(e):
            return e
        if isinstance(e, sp.Indexed) and is_random_atom(e.base.label):
            return Cond(e, A)
        if is_random_atom(e):
            key = ("ind", e)
            if key in atoms and e.is_commutative is not False and ctx is not None and _indicator_like(e, ctx):
                if _multilinear_zero(pa * atoms[key] - pa, atoms):
                    return sp.Integer(1)
                if _multilinear_zero(pa * atoms[key], atoms):
                    return sp.Integer(0)
            return Cond(e, A)
        _need(not isinstance(e, Cond), "condition: a Cond inside a Cond")
        return e.func(*[walk(a) for a in e.args])

    return walk(X)


def _conditioned(e, ctx=None):
    """``e`` with every E[Cond(X, A)] written as E[X on the space given A] (a constant when no
    random atom is left)."""
    if not isinstance(e, sp.Basic) or not e.args:
        return e
    if isinstance(e, Expect) and isinstance(e.args[0], Cond):
        X, A = e.args[0].args
        _need(not _has_cond(X), "condition: a Cond inside a Cond")
        caught = _binder_variables([X]) & A.free_symbols
        _need(not caught, f"condition: the event {sp.sstr(A)} uses {sorted(map(str, caught))}, which X binds")
        Y = _push_cond(X, A, {}, ctx)
        return Expect(Y) if _random_part(Y) else Y
    if isinstance(e, Expect):
        events = {c.args[1] for c in e.atoms(Cond)}
        _need(len(events) <= 1, "condition: one expectation conditions on two events")
        if events:
            _need(not _random_part(e.args[0].xreplace({c: sp.Dummy() for c in e.atoms(Cond)})),
                  "condition: one expectation mixes conditioned and unconditioned random atoms")
        return e
    return e.func(*[_conditioned(a, ctx) for a in e.args])


@_rule("condition", "E[X | A] = E[X(R_1 | A, …, R_m | A)]: on the space conditioned on A every random atom R is conditioned on A, and an indicator that A implies (excludes) is 1 (0); E[c | A] = c for a constant c", "the definition of the conditional law given an event: X is the same function of its random atoms on the conditioned space, an indicator event is decided exactly by the 0/1 polynomials of A and of the event, and one expectation never mixes two conditioning events (nor conditions on an index that X binds)")
def _condition(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "condition: only for '=' steps")
    _need(_has_cond(lhs) or _has_cond(rhs), "condition: the step has no conditioned expectation")
    a, b = _conditioned(lhs, ctx), _conditioned(rhs, ctx)
    _need(is_identity(a, b), f"condition: {sp.sstr(a)} is not {sp.sstr(b)}")
    return "conditioning on an event"


@_rule("expect-sum", "E[Σ_{i=lo}^{hi} X_i] = Σ_{i=lo}^{hi} E[X_i] when lo and hi are not random", "linearity of expectation over a finite sum (also in SymPy's signed reading of a reversed range, which is minus a sum); the limits must be constants")
def _expect_sum(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "expect-sum: only for '=' steps")
    for whole, split in ((lhs, rhs), (rhs, lhs)):
        if isinstance(whole, Expect) and isinstance(whole.args[0], sp.Sum) and len(whole.args[0].limits) == 1:
            S = whole.args[0]
            i, lo, hi = S.limits[0]
            _need(not (_random_part(lo) or _random_part(hi)), "expect-sum: a limit of the sum is random")
            _need(split == sp.Sum(Expect(S.function), (i, lo, hi)), f"expect-sum: the other side is not Σ_{i} E[{sp.sstr(S.function)}]")
            return "expectation of a finite sum"
    raise _Fail("expect-sum: neither side is E[Σ_i X_i] with one index")


# the indicators of events (T2's counts, H1's coverage): an indicator's mean is its event's
# probability; linear identities and orders between indicators are checked at every 0/1 value
# of the events' atoms


def _indicator_means(e):
    """``e`` with every E[X] expanded by linearity (as the rule ``linearity`` expands it), then
    every E[1_A] written P(A)."""
    return _linear_expect(e).replace(lambda a: isinstance(a, Expect) and isinstance(a.args[0], Indicator),
                                     lambda a: Prob(a.args[0].args[0]))


@_rule("indicator-mean", "E[Σ_k c_k 1_{A_k} + d] = Σ_k c_k P(A_k) + d for constants c_k and d", "linearity of expectation (expanded as the rule linearity expands it) and E[1_A] = P(A), a probability being the mean of its event's indicator; the two sides must agree exactly once every such mean is written as a probability")
def _indicator_mean(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "indicator-mean: only for '=' steps")
    means = [a for a in (lhs.atoms(Expect) | rhs.atoms(Expect)) if a.has(Indicator)]
    _need(bool(means), "indicator-mean: the step has no expectation of an indicator")
    a, b = _indicator_means(lhs), _indicator_means(rhs)
    _need(is_identity(a, b), f"indicator-mean: {sp.sstr(a)} is not {sp.sstr(b)}")
    return "the mean of an indicator is its event's probability"


def _outermost(e, cls) -> list:
    """The subexpressions of ``e`` of type ``cls`` that lie inside no other one."""
    out: list = []

    def walk(x):
        if isinstance(x, cls):
            out.append(x)
        elif isinstance(x, sp.Basic):
            for a in x.args:
                walk(a)

    walk(e)
    return out


def _prob_linear(e) -> bool:
    """Whether ``e`` is linear in its probabilities: a sum of terms, each free of P or a factor
    free of P times one probability (also under a finite sum whose limits are free of P)."""
    if not isinstance(e, sp.Basic) or not e.has(Prob) or isinstance(e, Prob):
        return True
    if e.is_Add:
        return all(_prob_linear(a) for a in e.args)
    if e.is_Mul:
        with_p = [a for a in e.args if a.has(Prob)]
        return len(with_p) == 1 and _prob_linear(with_p[0])
    if isinstance(e, sp.Sum):
        return not any(b.has(Prob) for lim in e.limits for b in lim) and _prob_linear(e.function)
    return False


@_rule("indicator-algebra", "Σ_k c_k P(A_k) + d = Σ_m c'_m P(B_m) + d' when Σ_k c_k 1_{A_k} + d = Σ_m c'_m 1_{B_m} + d' at every outcome (e.g. P(not A) = 1 − P(A))", "P(A) = E[1_A] and linearity of expectation: each side must be linear in its probabilities with non-random coefficients, and the identity of the indicators is checked exactly, as polynomials in the 0/1 indicators of the events' atoms (an atom keeps its event's free indices, so an event under a sum is checked term by term); only the outermost probabilities are rewritten, an event being an atom's key as written")
def _indicator_algebra(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "indicator-algebra: only for '=' steps")
    _need(lhs.has(Prob) or rhs.has(Prob), "indicator-algebra: the step has no probability")
    for side in (lhs, rhs):
        _need(_prob_linear(side), f"indicator-algebra: {sp.sstr(side)} is not linear in its probabilities")
        _need(not _random_part(side), f"indicator-algebra: {sp.sstr(side)} has a random coefficient")
    atoms: dict = {}
    # only the outermost probabilities: an event is an atom's key as written (a probability inside
    # an event is a number there, not an indicator to rewrite)
    a, b = (side.xreplace({q: _event_poly(q.args[0], atoms, indexed=True) for q in _outermost(side, Prob)})
            for side in (lhs, rhs))
    _need(is_identity(_multilinear(a, atoms), _multilinear(b, atoms)),
          "indicator-algebra: the two sides' indicators differ for some value of the events' atoms")
    return f"probabilities as means of indicators ({len(atoms)} atomic events)"


#: Most atomic events the rule indicator-order enumerates (2^n sign checks).
_INDICATOR_ATOMS = 10


@_rule("indicator-order", "X <= Y at every outcome when X and Y are expressions in indicators 1_A of events with non-random coefficients, no indicator under a sum, product or other binder (MaxOver, MinOver, Lambda, Subs) or inside an expectation or probability", "exhaustive: each indicator is written as a 0/1 polynomial in its events' atoms, and Y − X is proved non-negative by the sign oracle, under the hypotheses, at each of the 2^n values of the n atoms (n <= 10); every outcome gives the atoms one of these values (an indicator under a sum would stand for a family of events, one per index, so sums are refused: termwise sums the terms)")
def _indicator_order(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "indicator-order: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    _need(small.has(Indicator) or big.has(Indicator), "indicator-order: the step has no indicator")
    # an outcome fixes the indicators outside every mean; inside E or P they are averaged, not fixed
    _need(not any(a.has(Indicator) for a in (small - big).atoms(Expect, Prob, Cond)),
          "indicator-order: an indicator inside an expectation or a probability is not a value at an outcome")
    # under a sum (a product, a union) one atom would stand for a whole family of events, one per
    # index value: the rule compares single terms, and termwise sums them
    # so under any binder: a MaxOver / MinOver / Mat (their Lambda), a Lambda or a Subs too, whose bound
    # indicator 1_{D(k) >= 0} would share the free 1_{D(k) >= 0}'s atom although it ranges over every k
    _need(not any(_bound_here(a) and a.has(Indicator) for a in sp.preorder_traversal(small - big)),
          "indicator-order: an indicator under a sum, product, maximum, Lambda or other binder (compare the "
          "terms, then sum them with termwise)")
    atoms: dict = {}
    d = (big - small).xreplace({x: _event_poly(x.args[0], atoms) for x in _outermost(big - small, Indicator)})
    _need(not _random_part(d), f"indicator-order: {sp.sstr(big - small)} has a random part besides indicators")
    _need(len(atoms) <= _INDICATOR_ATOMS, f"indicator-order: {len(atoms)} atomic events (at most {_INDICATOR_ATOMS})")
    syms = list(atoms.values())
    d = _multilinear(d, atoms)
    for bits in itertools.product((0, 1), repeat=len(syms)):
        _nonneg(d.xreplace(dict(zip(syms, map(sp.Integer, bits)))), ctx, f"indicator-order: at the atoms' values {bits}")
    return f"indicators compared at all {2 ** len(syms)} values of {len(syms)} atomic events"


# ----------------------------------------------------------------------------- steps and chains


@dataclass(frozen=True)
class By:
    """A justification: a rule name and its instantiation (checked by the rule)."""

    rule: str
    params: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def __post_init__(self):
        if self.rule != "argued" and self.rule not in RULES:
            raise ValueError(f"rule: unknown rule {self.rule!r}; trusted rules: {sorted(RULES)}")


class _ByFactory:
    """``by.<rule>(...)`` builds a :class:`By`; ``by.argued(text)`` an unchecked step."""

    def identity(self, text=""):
        return By("identity", {}, text)

    def algebra(self, text=""):
        return By("algebra", {}, text)

    def hypothesis(self, name, text=""):
        return By("hypothesis", {"name": name}, text)

    def monotone(self, var, g, a, b, *, box=None, text=""):
        return By("monotone", {"var": var, "g": g, "a": a, "b": b, "box": box}, text)

    def triangle(self, *terms, text=""):
        return By("triangle", {"terms": terms}, text)

    def triangle_sum(self, index, lo, hi, text=""):
        return By("triangle-sum", {"index": index, "lo": lo, "hi": hi}, text)

    def reverse_triangle(self, u, v, text=""):
        return By("reverse-triangle", {"u": u, "v": v}, text)

    def cauchy_schwarz(self, a=None, b=None, *, u=None, v=None, squared=False, text=""):
        if u is not None:
            return By("cauchy-schwarz", {"u": u, "v": v}, text)
        return By("cauchy-schwarz", {"a": a, "b": b, "squared": squared}, text)

    def jensen(self, phi, *, X=None, weights=None, points=None, concave=False, text=""):
        p = {"phi": phi, "concave": concave}
        p.update({"X": X} if X is not None else {"weights": weights, "points": points})
        return By("jensen", p, text)

    def markov(self, X, r, text=""):
        return By("markov", {"X": X, "r": r}, text)

    def mcdiarmid(self, f, t, hypothesis, text=""):
        return By("mcdiarmid", {"f": f, "t": t, "hypothesis": hypothesis}, text)

    def cases(self, split, *, pos, nonpos, text=""):
        return By("cases", {"split": split, "pos": pos, "nonpos": nonpos}, text)

    def hoeffding(self, X, t, a, b, *, low=None, high=None, text=""):
        return By("hoeffding", {"X": X, "t": t, "a": a, "b": b, "low": low, "high": high}, text)

    def weighted_norm(self, hypothesis, text=""):
        return By("weighted-norm", {"hypothesis": hypothesis}, text)

    def probability(self, text=""):
        return By("probability", {}, text)

    def gershgorin(self, A, norm, text=""):
        return By("gershgorin", {"A": A, "norm": norm}, text)

    def termwise(self, index=None, lo=None, hi=None, *, term=None, pairs=None, text=""):
        if index is not None:
            return By("termwise", {"index": index, "lo": lo, "hi": hi, "term": term}, text)
        return By("termwise", {"pairs": pairs, "term": term}, text)

    def instance(self, theorem, subs, discharge=None, text=""):
        return By("instance", {"theorem": theorem, "subs": subs, "discharge": discharge}, text)
    def union_bound(self, text=""):
        return By("union-bound", {}, text)

    def union_contains(self, k, text=""):
        return By("union-contains", {"k": k}, text)

    def min_max(self, term, text=""):
        return By("min-max", {"term": list(term)}, text)

    def monotone_chain(self, var, g, a, b, term, text=""):
        return By("monotone-chain", {"var": var, "g": g, "a": a, "b": b, "term": term}, text)

    def linearity(self, text=""):
        return By("linearity", {}, text)

    def expect_monotone(self, term, text=""):
        return By("expect-monotone", {"term": term}, text)

    def moment(self, Z, text=""):
        return By("moment", {"Z": Z}, text)

    def total_expectation(self, events, text=""):
        return By("total-expectation", {"events": list(events)}, text)

    def condition(self, text=""):
        return By("condition", {}, text)

    def expect_sum(self, text=""):
        return By("expect-sum", {}, text)

    def indicator_mean(self, text=""):
        return By("indicator-mean", {}, text)

    def indicator_algebra(self, text=""):
        return By("indicator-algebra", {}, text)

    def indicator_order(self, text=""):
        return By("indicator-order", {}, text)

    def argued(self, text):
        """A step no rule covers, argued in prose (``text``: why it holds): never checked, so a
        chain with one is not complete and its reading is never ``proved``."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("text: an argued step must say why no rule applies")
        return By("argued", {}, text)


by = _ByFactory()


@dataclass(frozen=True)
class Step:
    relation: str
    rhs: Any
    by: By

    def __post_init__(self):
        if self.relation not in REL:
            raise ValueError(f"relation: must be one of {REL}, got {self.relation!r}")
        if not isinstance(self.by, By):
            raise TypeError(f"by: expected a By justification, got {type(self.by).__name__}")


@dataclass(frozen=True)
class StepCheck:
    """The kernel's judgement of one step."""

    lhs: Any
    relation: str
    rhs: Any
    rule: str
    checked: bool
    reason: str

    def to_dict(self) -> dict:
        return {"lhs": sp.sstr(self.lhs), "relation": self.relation, "rhs": sp.sstr(self.rhs),
                "rule": self.rule, "checked": self.checked, "reason": self.reason}


_ISSUED: dict = {}  # id -> (weak reference, fingerprint, accepted steps) of every ChainCheck that Chain.prove returned


def issued(check) -> bool:
    """Whether ``check`` (a ChainCheck, or an AllOf of them) is what :meth:`Chain.prove` returned,
    not an object built or altered by a caller (``dataclasses.replace(res, reaches_goal=True)``)."""
    if isinstance(check, AllOf):
        return all(issued(p) for p in check.parts)
    got = _ISSUED.get(id(check))
    # the object itself, as it was returned (object.__setattr__ can alter a frozen dataclass)
    return got is not None and got[0]() is check and got[1] == _fingerprint(check)


def accepted_steps(check) -> tuple | None:
    """Every step the kernel accepted while :meth:`Chain.prove` checked ``check`` (a ChainCheck),
    as (StepCheck, Context) pairs in the order first accepted, each pair once: sub-chains, term
    chains, cases and lemma chains included (a lemma checked before, from its cache), each with
    the context it was checked under. None for an object :func:`issued` does not recognise (a
    copy or an altered record: check its chain again under :func:`record_steps`)."""
    if not isinstance(check, ChainCheck):
        hint = " (an AllOf: ask for each of its parts)" if isinstance(check, AllOf) else ""
        raise TypeError(f"check: must be a ChainCheck returned by Chain.prove, got {type(check).__name__}{hint}")
    return _kept_steps(check) if issued(check) else None


def _kept_steps(check) -> tuple:
    """The steps Chain.prove kept with ``check`` (empty for an object it did not return)."""
    got = _ISSUED.get(id(check))
    return got[2] if got is not None and got[0]() is check else ()


def _fingerprint(check) -> tuple:
    """What decides whether ``check`` is complete, as values: compared by :func:`issued`."""
    ctx = getattr(check.chain, "ctx", None)  # the context the steps were checked under, which the tie reads
    # (review 46: a context swapped in after prove with object.__setattr__ went unnoticed)
    hyps = tuple(getattr(ctx, "hypotheses", {}).items()) if ctx is not None else ()
    return (check.reaches_goal, check.goal_reason, tuple((s.rule, s.checked, s.reason) for s in check.step_checks),
            len(check.step_checks), check.lemma_rules, check.assumed_premises, check.goal, id(check.chain),
            id(ctx), hyps)


class _StepRecord:
    """(StepCheck, Context) pairs in the order first added, each pair (by identity) once."""

    __slots__ = ("_pairs",)

    def __init__(self):
        self._pairs: dict = {}

    def add(self, pairs) -> None:
        for sc, ctx in pairs:
            self._pairs.setdefault((id(sc), id(ctx)), (sc, ctx))  # the value keeps both alive: ids stay unique

    def __iter__(self):
        return iter(tuple(self._pairs.values()))


_STEP_RECORDS: list = []  # the records of the active record_steps blocks and Chain.prove calls, innermost last


@contextmanager
def _recording():
    record = _StepRecord()
    _STEP_RECORDS.append(record)
    try:
        yield record
    finally:
        _STEP_RECORDS.remove(record)  # a record equals only itself


@contextmanager
def record_steps():
    """Within the block, every step a chain's check accepts (sub-chains, term chains, cases and
    lemma chains included, a lemma checked before from its cache) is recorded in the yielded
    record, an iterable of (StepCheck, Context) pairs: the context it was checked under, with
    the step's local hypotheses (a term's index range, a case's condition). An observer only:
    what the kernel decides does not change. :meth:`Chain.prove` keeps the same record of each
    check it returns (:func:`accepted_steps`); this block serves a check that is not one."""
    with _recording() as got:
        yield got


@dataclass(frozen=True)
class ChainCheck:
    """A checked chain against a goal ``lhs <relation> rhs``.

    ``complete`` is True only when every step is checked *and* the chain reaches the goal.
    """

    goal: tuple
    chain: "Chain"
    step_checks: tuple[StepCheck, ...]
    reaches_goal: bool
    goal_reason: str
    lemma_rules: tuple[str, ...] = ()  # rules of the lemmas of the context that check
    assumed_premises: tuple = ()  # (name, why) of the context's Assumed premises

    @property
    def steps(self) -> int:
        return len(self.step_checks)

    @property
    def checked(self) -> int:
        return sum(1 for s in self.step_checks if s.checked)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules of the steps, of the term chains of termwise steps, and of the lemmas."""
        return tuple(dict.fromkeys([s.rule for s in self.step_checks] + _term_rules(self.chain) + list(self.lemma_rules)))

    @property
    def complete(self) -> bool:
        return self.reaches_goal and self.steps > 0 and self.checked == self.steps

    @property
    def substeps(self) -> int:
        """Steps of the sub-chains that the checked steps carry, counted recursively (term,
        row and fact chains, a cited theorem's chain and the chains that discharge its
        premises): each was checked inside its step, which checks only when they all do."""
        return sum(_carried_steps(st) for st, sc in zip(self.chain.steps, self.step_checks) if sc.checked)

    @property
    def assumed(self) -> dict:
        """The premises its context assumes (:class:`Assumed`), a dict name to why: argued in prose,
        usable by no rule, so a chain that needs one is not complete. Only this chain's own
        context is listed: a lemma or a cited theorem that rests on one does not check at all."""
        return dict(self.assumed_premises)

    @property
    def nonrandom(self) -> tuple[str, ...]:
        """The functions this chain takes as non-random because they were declared so
        (``sp.Function(name, deterministic=True)``): an assumption of its author, like a
        hypothesis, so the summary names them."""
        return _declared_nonrandom(_chain_exprs(self.chain) + [
            x for h in self.chain.ctx.hypotheses.values() for x in _sides(h)])

    @property
    def first_failure(self) -> str:
        for k, s in enumerate(self.step_checks):
            if not s.checked:
                return f"step {k + 1} ({s.rule}): {s.reason}"
        return "" if self.reaches_goal else f"chaining: {self.goal_reason}"

    def summary(self) -> str:
        return f"{self.checked}/{self.steps} steps checked ({', '.join(self.rules)}){_nonrandom_note(self.nonrandom)}"

    def to_dict(self) -> dict:
        return {"steps": self.steps, "checked": self.checked, "substeps": self.substeps, "rules": list(self.rules)}


def _declared_nonrandom(exprs) -> tuple[str, ...]:
    """The names of the functions and classes in ``exprs`` declared ``deterministic=True``."""
    names = set()
    for e in exprs:
        if isinstance(e, sp.Basic):
            names |= {type(a).__name__ for a in sp.preorder_traversal(e) if getattr(type(a), "deterministic", False) is True}
    return tuple(sorted(names))


def _nonrandom_note(names) -> str:
    return f"; non-random by declaration: {', '.join(names)}" if names else ""


def _carried_steps(step) -> int:
    """The number of steps of the sub-chains one step carries, recursively (the chains
    :func:`_term_rules` takes rules from)."""
    n = sum(len(sub.steps) + sum(_carried_steps(t) for t in sub.steps) for sub in _sub_chains(step))
    if step.by.rule == "instance" and isinstance(step.by.params.get("theorem"), Lemma):
        thm = step.by.params["theorem"].chain
        n += len(thm.steps) + sum(_carried_steps(t) for t in thm.steps)
    return n


def _term_rules(chain) -> list:
    out = []
    for st in getattr(chain, "steps", ()):
        if st.by.rule == "instance" and isinstance(st.by.params.get("theorem"), Lemma):
            thm = st.by.params["theorem"]  # the cited theorem's rules
            out += list(_lemma_check(thm, thm.chain.ctx).rules)
        # the sub-chains a step carries (termwise terms, the term / row / fact chains of other
        # rules, the chains that discharge a cited theorem's premises) count among the rules used
        for sub in _sub_chains(st):
            out += [t.by.rule for t in sub.steps] + _term_rules(sub)
    return out


@dataclass(frozen=True)
class AllOf:
    """Several checked chains that together prove one statement (e.g. both sides of
    ``lo <= alpha <= hi``); the same summary interface as :class:`ChainCheck`."""

    parts: tuple[ChainCheck, ...]

    def __post_init__(self):
        if not self.parts or not all(isinstance(p, ChainCheck) for p in self.parts):
            raise TypeError("parts: expected one or more ChainCheck objects")

    @classmethod
    def of(cls, chains, goals, ctx: "Context | None" = None) -> "AllOf":
        """Each chain proved against its goal ``(lhs, relation, rhs)``, in order. As many chains
        as goals: a goal without its chain is not proved (``zip`` would drop it silently)."""
        chains, goals = tuple(chains), tuple(goals)
        if len(chains) != len(goals):
            raise ValueError(f"goals: {len(goals)} goals for {len(chains)} chains; each goal needs its own chain")
        return cls(tuple(c.prove(*goal, ctx=ctx) for c, goal in zip(chains, goals)))

    @property
    def step_checks(self) -> tuple[StepCheck, ...]:
        return tuple(s for p in self.parts for s in p.step_checks)

    @property
    def steps(self) -> int:
        return sum(p.steps for p in self.parts)

    @property
    def checked(self) -> int:
        return sum(p.checked for p in self.parts)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r for p in self.parts for r in p.rules))

    @property
    def complete(self) -> bool:
        return all(p.complete for p in self.parts)

    @property
    def substeps(self) -> int:
        return sum(p.substeps for p in self.parts)

    @property
    def assumed(self) -> dict:
        """The premises the parts' contexts assume, a dict name to why."""
        return {k: v for p in self.parts for k, v in p.assumed.items()}

    @property
    def nonrandom(self) -> tuple[str, ...]:
        """The functions the parts take as non-random by declaration (see :class:`ChainCheck`)."""
        return tuple(sorted({n for p in self.parts for n in p.nonrandom}))

    @property
    def first_failure(self) -> str:
        for k, p in enumerate(self.parts):
            if not p.complete:
                return f"part {k + 1}: {p.first_failure}"
        return ""

    def summary(self) -> str:
        return f"{self.checked}/{self.steps} steps checked ({', '.join(self.rules)}){_nonrandom_note(self.nonrandom)}"

    def to_dict(self) -> dict:
        return {"steps": self.steps, "checked": self.checked, "substeps": self.substeps, "rules": list(self.rules)}


_COMPOSE = {"<=": {"=", "<="}, ">=": {"=", ">="}, "==": {"="}, "=": {"="}}


@dataclass(frozen=True)
class Chain:
    """``start`` related to later expressions by checked steps, under ``ctx``.

    Build with :meth:`eq`, :meth:`le`, :meth:`ge` (each returns a new chain); judge with
    :meth:`prove`.
    """

    start: Any
    ctx: Context = field(default_factory=Context)
    steps: tuple[Step, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "start", sp.sympify(self.start))
        if not isinstance(self.ctx, Context):
            raise TypeError(f"ctx: expected a Context, got {type(self.ctx).__name__}")

    def then(self, relation: str, rhs, justification: By) -> "Chain":
        """This chain with one more step: its last expression ``relation`` (``"="``, ``"<="`` or
        ``">="``) ``rhs``, by ``justification`` (``by.<rule>(...)``). Nothing is checked until
        :meth:`prove`."""
        return replace(self, steps=self.steps + (Step(relation, sp.sympify(rhs), justification),))

    def eq(self, rhs, justification: By) -> "Chain":
        """This chain with a step ``… = rhs`` by ``justification`` (see :meth:`then`)."""
        return self.then("=", rhs, justification)

    def le(self, rhs, justification: By) -> "Chain":
        """This chain with a step ``… <= rhs`` by ``justification`` (see :meth:`then`)."""
        return self.then("<=", rhs, justification)

    def ge(self, rhs, justification: By) -> "Chain":
        """This chain with a step ``… >= rhs`` by ``justification`` (see :meth:`then`)."""
        return self.then(">=", rhs, justification)

    @property
    def end(self):
        return self.steps[-1].rhs if self.steps else self.start

    def xreplace(self, mapping, ctx: "Context | None" = None) -> "Chain":
        """This chain with symbols replaced everywhere (steps, justifications, context), e.g. to
        instantiate a general proof; ``ctx`` replaces the (substituted) context."""
        steps = tuple(Step(s.relation, s.rhs.xreplace(mapping),
                           By(s.by.rule, {k: _xreplace(v, mapping) for k, v in s.by.params.items()}, s.by.text))
                      for s in self.steps)
        return Chain(self.start.xreplace(mapping), self.ctx.xreplace(mapping) if ctx is None else ctx, steps)

    def check_steps(self, ctx: Context | None = None) -> tuple[StepCheck, ...]:
        ctx = self.ctx if ctx is None else ctx
        out, lhs = [], self.start
        hyp_sides = [x for h in ctx.hypotheses.values() if not isinstance(h, Lemma) for x in _sides(h)
                     if isinstance(x, sp.Basic)]
        # the hypotheses' untrusted facts and indexed bases, read once for every step
        hyp_wrong = next((w for x in hyp_sides if (w := _wrong_facts(x)) is not None), None)
        hyp_labels = _label_parts(hyp_sides)
        hyp_maps = _hypothesis_maps([h for h in ctx.hypotheses.values() if isinstance(h, (sp.Basic, tuple, list))])
        for s in self.steps:
            if s.by.rule == "argued":
                out.append(StepCheck(lhs, s.relation, s.rhs, "argued", False, f"argued: {s.by.text}"))
            elif _has_float(lhs) or _has_float(s.rhs) or _holds_float(s.by.params):
                out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False,
                                     f"{s.by.rule}: a floating-point number in the step or its instantiation (SymPy rounds to its precision "
                                     "when it subtracts: write exact rationals, sp.Rational)"))
            elif (wrong := next((w for x in (lhs, s.rhs, *_param_exprs(s.by.params))
                                 if (w := _wrong_facts(x)) is not None), hyp_wrong)
                  or next((w for x in (lhs, s.rhs) if isinstance(x, sp.Basic)
                           and (w := _substitution_wrong(x, hyp_maps)) is not None), None)) is not None:
                out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False,
                                     f"{s.by.rule}: SymPy's facts about {sp.sstr(wrong)} may be wrong (atan, asin or acos "
                                     "of a rational argument that may be 0, or 1 for acos; Mod, Max, Min or Heaviside of an "
                                     "argument not known real; LambertW; C(n, k) for an odd k and n not known >= 0; a "
                                     "power of a base that may be negative to an exponent that may be an integer, called "
                                     "imaginary; a product called non-zero or not real though a factor may be 0; also as "
                                     "the kernel renames a bound variable; a SymPy function outside the kernel's trusted "
                                     "list; a symbol declared even, odd, prime, composite, irrational, non-integer or "
                                     f"imaginary{_why_untrusted(wrong)}): the kernel reads no sign from them, in the "
                                     "step, its instantiation or the hypotheses"))
            elif (alias := _label_alias((lhs, s.rhs, *_param_exprs(s.by.params)), hyp_labels)) is not None:
                out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False,
                                     f"{s.by.rule}: {alias}: SymPy's substitutions rename a base's label with the symbols "
                                     "in it, so give each indexed base a plain symbol of its own as its label"))
            elif (mixed := _mixed_means(lhs, s.rhs, *_param_exprs(s.by.params))) is not None:
                out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False,
                                     f"{s.by.rule}: {mixed} is a mean of random values on different probability spaces "
                                     "(conditioned on different events, or one conditioned and one not): it is none"))
            elif odd := _odd_limits(lhs) + _odd_limits(s.rhs):
                out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False,
                                     f"{s.by.rule}: the limit {sp.sstr(odd[0])} of a sum, product or union is not known to be an integer"))
            else:
                try:
                    reason = RULES[s.by.rule].check(lhs, s.relation, s.rhs, dict(s.by.params), ctx)
                    # a binder declared with what its range does not give: SymPy read the assumption
                    # as a fact when it built the side (Σ_{k=−1}^{−1} √(k²) is built as Σ_{k=−1}^{−1} k);
                    # the hypotheses may give it (i over 1 … L − N given N <= L), so they are read
                    # only where the check without them fails
                    if _misdeclared(lhs) or _misdeclared(s.rhs):
                        rels_ = tuple(ctx.relations())
                        bad = _misdeclared(lhs, rels_) + _misdeclared(s.rhs, rels_)
                        if bad:
                            raise _Fail(f"{s.by.rule}: {_misdeclared_reason(bad)}")
                    out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, True, reason))
                except _Fail as exc:
                    out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False, str(exc)))
                except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError,
                        NotImplementedError, RecursionError, sp.SympifyError, sp.PolynomialError) as exc:
                    # a step a rule cannot even read is refused, never raised out of prove (review 54's
                    # lead: IndexError, NotImplementedError and SymPy's polynomial errors escaped)
                    out.append(StepCheck(lhs, s.relation, s.rhs, s.by.rule, False, f"{s.by.rule}: bad instantiation ({type(exc).__name__}: {exc})"))
            lhs = s.rhs
        # the chain passes only through expressions defined wherever its ends are (under the
        # hypotheses): x + 1 <= (x² − 1)/(x − 1) = 0 given x² = 1 would make 2 <= 0 at x = 1
        ends = (self.start, self.steps[-1].rhs) if self.steps else ()
        rels = None
        for i, s in enumerate(self.steps[:-1]):
            if not out[i].checked:
                continue
            if rels is None:
                rels = tuple(ctx.relations())
            why = _newly_undefined(s.rhs, ends, rels)
            if why:
                out[i] = replace(out[i], checked=False, reason=(
                    f"{s.by.rule}: the chain passes through {sp.sstr(s.rhs)}, where its ends are defined but {why}"))
        for record in _STEP_RECORDS:  # an observer: the accepted steps and their contexts (accepted_steps)
            record.add((c, ctx) for c in out if c.checked)
        return tuple(out)

    def prove(self, lhs, relation: str, rhs, ctx: Context | None = None) -> ChainCheck:
        """Check every step and that the chain goes from ``lhs`` to ``rhs`` by ``relation``
        (``"<="``, ``">="`` or ``"=="``/``"="``). The steps accepted on the way are kept with
        the returned check (:func:`accepted_steps`)."""
        if relation not in _COMPOSE:
            raise ValueError(f"relation: must be one of <=, >=, ==, got {relation!r}")
        with _recording() as record:
            res = self._prove(lhs, relation, rhs, ctx)
        # the callback holds the dict itself: at interpreter exit (a pytest-xdist worker's) the module's
        # globals may already be None when the last checks are collected
        _ISSUED[id(res)] = (weakref.ref(res, lambda _, key=id(res), issued=_ISSUED: issued.pop(key, None)),
                            _fingerprint(res), tuple(record))
        return res

    def _prove(self, lhs, relation: str, rhs, ctx: Context | None) -> ChainCheck:
        lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
        where = self.ctx if ctx is None else ctx
        # the record's chain is the one checked: under ``ctx`` where it replaces the chain's own
        # (its hypotheses are the statement's)
        checked = self if where is self.ctx else replace(self, ctx=where)
        if any(_unbounded(x) for x in [lhs, rhs, self.start] + [st.rhs for st in self.steps]
               + [a for h in where.hypotheses.values() for a in _sides(h)]):
            # before any step is checked: reading a hypothesis with a divergent integral does not return
            return ChainCheck((lhs, relation, rhs), checked, (), False,
                              "a sum, product or integral over an infinite range: the kernel reads only "
                              "finite ranges (whether a series or an integral converges is not checked)",
                              (), tuple(where.assumed().items()))
        checks = self.check_steps(ctx)
        if not self.steps:
            ok, why = False, "the chain has no steps"
        elif bad := _misdeclared_statement(lhs, rhs, where):
            ok, why = False, _misdeclared_reason(bad)
        elif not is_identity(self.start, lhs):
            ok, why = False, (f"the chain starts at {sp.sstr(self.start)}, not at the goal's lhs {sp.sstr(lhs)}"
                              f"{_assumption_clash(self.start, lhs)}")
        elif not is_identity(self.end, rhs):
            ok, why = False, (f"the chain ends at {sp.sstr(self.end)}, not at the goal's rhs {sp.sstr(rhs)}"
                              f"{_assumption_clash(self.end, rhs)}")
        else:
            bad = [s.relation for s in self.steps if s.relation not in _COMPOSE[relation]]
            ok = not bad
            why = "the steps compose to the goal" if ok else f"a '{bad[0]}' step cannot serve a '{relation}' goal"
        base = where.without_lemmas()
        lemma_rules = tuple(
            r for h in where.hypotheses.values() if isinstance(h, Lemma) and _lemma_holds(h, base)
            for r in _lemma_check(h, base).rules
        )
        res = ChainCheck((lhs, relation, rhs), checked, checks, ok, why, lemma_rules, tuple(where.assumed().items()))
        if ok and "condition" in res.rules:
            # condition reads an event's atom as its 0/1 indicator: the statement may not also
            # compare that function's values (P(D(i) >= 2) <= E[D(i)]/2 = P(D(i))/2 is about an
            # indicator D, not about every D >= 0)
            mixed = _indicator_conflict(self, (lhs, rhs), where)
            if mixed:
                res = replace(res, reaches_goal=False, goal_reason=(
                    f"condition reads events' atoms as their 0/1 indicators, which this statement does not allow: "
                    f"{'; '.join(mixed)}"))
        return res


# ----------------------------------------------------------------------------- matrices and indices (proofjac)
#
# A general-L matrix is ``Mat(Lambda((r, c), entry), n)``: the n×n matrix whose entry (r, c),
# r, c = 1..n, is ``entry``. ``OpNorm`` is its spectral norm; ``MaxOver(Lambda(k, e), n)`` and
# ``MinOver`` are max_k e(k) and min_k e(k) over k = 1..n. The rules below check entries with
# *symbolic* indices, so a checked step holds for every n at once.


def _call_check(lam, args, what: str):
    """A Lambda called at ``args`` (SymPy's call is an xreplace): no binder in its body may capture
    them; a ValueError outside a rule (a rule reports it as a bad instantiation)."""
    try:
        _no_capture(lam.expr, args, what, olds=lam.variables)
    except _Fail as exc:
        raise ValueError(str(exc)) from None


class Mat(sp.Function):
    """The n×n matrix ``Mat(Lambda((r, c), entry), n)`` (entries r, c = 1..n; non-commutative).

    >>> r, c = sp.symbols("r c", integer=True, positive=True); n = sp.Symbol("n", integer=True, positive=True)
    >>> Mat(sp.Lambda((r, c), sp.KroneckerDelta(r, c)), n).entry(2, 2)
    1
    """

    nargs = 2

    @classmethod
    def eval(cls, lam, n):
        if not (isinstance(lam, sp.Lambda) and len(lam.variables) == 2):
            raise TypeError(f"lam: expected a two-variable Lambda, got {lam!r}")
        return None

    def _eval_is_commutative(self):
        return False

    def entry(self, r, c):
        _call_check(self.args[0], (r, c), f"Mat: the entry ({sp.sstr(r)}, {sp.sstr(c)})")
        return self.args[0](r, c)

    @property
    def size(self):
        return self.args[1]


class OpNorm(_NonnegativeScalar):
    """The spectral norm (largest singular value) of a :class:`Mat`."""

    nargs = 1

    def _sympystr(self, printer):
        return f"opnorm({printer._print(self.args[0])})"


class _Extremum(sp.Function):
    nargs = 2

    @classmethod
    def eval(cls, lam, n):
        if not (isinstance(lam, sp.Lambda) and len(lam.variables) == 1):
            raise TypeError(f"lam: expected a one-variable Lambda, got {lam!r}")
        return None

    def _eval_is_commutative(self):
        return True

    def _generic_term(self):
        """e(k) at a k that is only a positive integer (k runs over 1..n; the Lambda variable's own
        assumptions are not facts about its range)."""
        # a symbol not free in the extremum: an outer extremum's generic term is free in an inner
        # one, which read its term on the diagonal at the same symbol (review 56: 0 <= min_k min_j
        # (2 δ_kj − 1) passed)
        k = 0
        while _fixed_dummy("k_ext", k, integer=True, positive=True) in self.free_symbols:
            k += 1
        return self.args[0](_fixed_dummy("k_ext", k, integer=True, positive=True))

    def _nonempty(self) -> bool:
        """Whether the range 1..n is known not to be empty (n >= 1 known; n positive is not enough,
        n = 1/2 has no term: review 51): the extremum of no terms is not one of them, so its
        terms' signs say nothing of it (review 50)."""
        return (self.args[1] - 1).is_nonnegative is True

    def _eval_is_extended_real(self):
        return self._generic_term().is_extended_real if self._nonempty() else None

    def _eval_is_extended_nonnegative(self):
        return True if self._nonempty() and self._generic_term().is_extended_nonnegative else None

    def _eval_is_extended_positive(self):
        return True if self._nonempty() and self._generic_term().is_extended_positive else None

    def _eval_is_finite(self):
        return True if self._nonempty() and self._generic_term().is_finite else None

    def term(self, k):
        _call_check(self.args[0], (k,), f"{type(self).__name__}: the term at {sp.sstr(k)}")
        return self.args[0](k)


class MaxOver(_Extremum):
    """max_{k=1..n} e(k), written ``MaxOver(Lambda(k, e), n)``."""


class MinOver(_Extremum):
    """min_{k=1..n} e(k), written ``MinOver(Lambda(k, e), n)``."""


def matmul(A: Mat, B: Mat) -> Mat:
    """The product A·B as a :class:`Mat` with entries Σ_m A_rm B_mc (m = 1..n)."""
    n = A.size
    r, c, m = (_fixed_dummy(s, 700 + k, integer=True, positive=True) for k, s in enumerate("rcm"))
    return Mat(sp.Lambda((r, c), sp.Sum(A.entry(r, m) * B.entry(m, c), (m, 1, n))), n)


def _in_range(x, lo, hi, rels) -> bool:
    """An integer x with lo <= x <= hi (δ(m, 3/2) is 0 for every integer m)."""
    return _fact(x, "integer") and _nonnegative(x - lo, tuple(rels)) and _nonnegative(hi - x, tuple(rels))


def _delta_factors(term) -> list:
    """The Kronecker deltas that multiply the whole of ``term`` (alone or to a positive power)."""
    out = []
    for f in sp.Mul.make_args(term):
        base, ex = f.as_base_exp()
        if isinstance(base, sp.KroneckerDelta) and ex.is_Integer and ex > 0:
            out.append(base)
    return sorted(set(out), key=str)


def _collapse_deltas(e, rels):
    """Σ_{m=lo}^{hi} δ_{m x} f(m) = f(x) when lo <= x <= hi is proved from ``rels`` (exact); every
    other one-index sum is split by linearity."""
    if not isinstance(e, sp.Basic) or not e.args or isinstance(e, sp.Lambda):
        return e
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        m, lo, hi = e.limits[0]
        out = []
        # m is a kernel symbol of its depth (_alpha); a reversed range (Karr) would give contradictory relations
        inner = tuple(rels) + ((sp.Ge(m, lo), sp.Le(m, hi)) if _nonnegative(hi - lo + 1, tuple(rels), max_tries=20) else ())
        for term in sp.Add.make_args(sp.expand(_collapse_deltas(e.function, inner))):
            x = None
            for d in _delta_factors(term):  # only a delta that multiplies the whole term
                a, b = d.args
                other = b if a == m else a if b == m else None
                if (other is not None and m not in other.free_symbols and _in_range(other, lo, hi, rels)
                        and _may_substitute(term, m, other)):
                    x = other
                    break
            out.append(term.subs(m, x) if x is not None else sp.Sum(term, (m, lo, hi)))
        return sp.Add(*out)
    return e.func(*[_collapse_deltas(a, rels) for a in e.args])


def _decide_piecewise(e, rels):
    """Each Piecewise replaced by its first branch whose condition is proved from ``rels`` (all
    earlier ones must be proved false... so only the first branch is taken, and only when its
    condition is proved)."""

    def pick(pw):
        expr, cond = pw.args[0]
        if cond is sp.true:
            return expr
        conds = cond.args if isinstance(cond, sp.And) else (cond,)
        for c_ in conds:
            form = _nonneg_form(c_)
            if form is None or not _nonnegative(form[0], tuple(rels), strict=form[1]):
                return pw
        return expr

    def conditions(d):
        return [c for pw in d.atoms(sp.Piecewise) for _, c in pw.args]

    # a branch chosen at a point is not the expression near it, which a derivative by a variable of
    # the condition reads (Piecewise((0, x**2 <= 0), (x**2, True)) is x**2, whose d²/dx² is 2 at 0)
    e, back = _held(e, lambda d: _touches(d, conditions(d)))
    return e.replace(lambda x: isinstance(x, sp.Piecewise), pick).xreplace(back)


def _definitions(ctx: Context, defs, ends=None) -> list:
    """(pattern, replacement) pairs from the equations of the named hypotheses: ``f[k] = e(k)``
    (for every index) and ``s = e``.

    An indexed definition is read at every index, as the ``hypothesis`` rule reads a hypothesis
    about the k-th entries: so no other hypothesis may hold its index k bare (k = 1 or k <= 1
    would make it a definition at one index only), and it is read only at points that have
    every assumption of k (:func:`_defined_at`: f[k] = 0 for k declared negative says nothing of
    f[2])."""
    out = []
    for name in (defs if isinstance(defs, (tuple, list)) else (defs,)) if defs else ():
        _need(name in ctx.hypotheses, f"definitions: {name!r} is not a hypothesis of this context")
        _not_assumed(ctx, name, "definitions")
        for h in ctx.relation(name):
            if not isinstance(h, sp.Eq):
                continue
            # a definition of a value conditioned on A says nothing where P(A) = 0 (review 65: f[k] =
            # Cond(0, A) made f[1] = f[2])
            null = _unread_conditioned((h.lhs, h.rhs), ends, ctx.relations()) if ends is not None else None
            _need(null is None, f"definitions: {_unread_text(h, null)}" if null is not None else "")
            lhs, rhs = h.lhs, h.rhs
            if isinstance(lhs, sp.Indexed) and len(lhs.indices) == 1 and isinstance(lhs.indices[0], sp.Symbol):
                k = lhs.indices[0]
                pinned = _pinning(k, ctx, skip=h)
                _need(not pinned, f"definitions: the hypotheses {pinned} constrain the index {k} of the definition "
                                  f"{sp.sstr(h)}, so it is not a definition for every {k}")
                out.append(("indexed", lhs.base, k, rhs))
            elif isinstance(lhs, sp.Symbol):
                out.append(("symbol", lhs, None, rhs))
    return out


def _apply_definitions(e, definitions, rels=()):
    for _ in range(3):  # a definition may use another one (S = Σ f[k], f[k] = F(l[k]))
        e = _apply_definitions_once(e, definitions, rels)
    return e


def _defined_at(rhs, k, x, rels=(), head=None):
    """A definition f[k] = rhs read at the index x (a random x is not put into a mean or a
    probability), which must have every assumption of k (proved from ``rels`` for a sign): the
    definition is about the k its assumptions allow."""
    _point(x, rhs, "definitions: the index")
    _no_capture(rhs, [x], f"definitions: the index {sp.sstr(x)}")
    # the index bound in the value (f[k] = Limit(k**2 + 1, k, 0), every f[k] = 1): SymPy's subs
    # replaces a Limit's variable, reading it as 5 at k = 2 (review 48)
    _need(k not in _binder_variables([rhs]), f"definitions: {sp.sstr(head)}[{sp.sstr(k)}] = {sp.sstr(rhs)} binds its "
                                             f"own index {sp.sstr(k)} (rename the bound variable)")
    _keeps_assumptions(k, x, rels, f"definitions: {sp.sstr(head)}[{sp.sstr(k)}] = {sp.sstr(rhs)} read at {sp.sstr(x)}")
    return rhs.subs(k, x)


def _apply_definitions_once(e, definitions, rels=()):
    for kind, head, k, rhs in definitions:
        if kind == "symbol":
            # s := rhs must be exact: no binder in e may capture a symbol of rhs (an integral over x
            # with s = x), as for an indexed definition's point
            if e.has(head):
                _no_capture(e, [rhs], f"definitions: {sp.sstr(head)} = {sp.sstr(rhs)}")
            e = e.subs(head, rhs)
        else:
            # a definition at a point says nothing of a derivative by that entry (d/df[1] (|f[1]| f[2])
            # is not d/df[1] (|f[1]| f[1]) where f[k] = y), as for the rule hypothesis: such a
            # derivative is held opaque, whole, while the definition is put in
            # (and not one by a symbol of the definition's value, d/dy (|f[1]| y) at f[k] = y; review 46)
            e, back = _held(e, lambda d, h=head, rhs=rhs: any(sp.sympify(v).has(h) for v, _ in d.variable_count)
                            or _touches(d, [rhs]))
            e = e.replace(lambda x, h=head: isinstance(x, sp.Indexed) and x.base == h and len(x.indices) == 1,
                          lambda x, k=k, rhs=rhs, h=head: _defined_at(rhs, k, x.indices[0], rels, h))
            e = e.xreplace(back)
        # the sums a definition brings in (S = Σ_k f[k]) are renamed at once, before another definition
        # is read at their index or a hypothesis about a free k reaches it: their own k's assumptions
        # are no facts about their range (k declared positive in Σ_{k=-3}^{-1} f[k])
        e = _alpha(e, rels)
    return e


@_kept
def _range_profile(lo, hi, rels) -> dict:
    """The sign every integer of lo … hi has (in SymPy's reading of a reversed range too), as
    SymPy assumptions, proved from ``rels``."""
    lo, hi = sp.sympify(lo), sp.sympify(hi)
    for extra, need in _INDEX_PROFILES[:-1]:
        gaps = need(lo, hi)
        if all(g.is_number and g.is_nonnegative for g in gaps):
            return extra
    # relations without binders only: proving a limit's sign must not rename the relations' own sums again
    rels = tuple(r for r in rels if not (isinstance(r, sp.Basic) and _binder_variables([r])))
    for extra, need in _INDEX_PROFILES[:-1]:
        gaps = need(lo, hi)
        if all(not _binder_variables([g]) and _nonnegative(g, tuple(rels), max_tries=20) for g in gaps):
            return extra
    return {}


def _bound_dummy(depth: int, position: int, **assumptions):
    """The kernel symbol of the ``position``-th variable bound at nesting ``depth``: one name per
    position, so that no two binders in scope of each other share one (an index 800 + depth + 50·k
    made the second variable at depth 0 the first at depth 50, which an inner sum then captured)."""
    return _fixed_dummy("idx" if position == 0 else f"idx{position}", 800 + depth, **assumptions)


def _unused_dummies(e, depth: int, count: int, **assumptions) -> tuple:
    """``count`` kernel symbols for the variables bound at ``depth`` in ``e`` (positions 0, 1, …),
    none of them free in ``e``: a free kernel symbol of that depth (one a caller left free, as
    ``_collapse_deltas`` leaves a delta's index in the ranges it asks about) would be captured
    (review 56: Σ_{idx1=1}^{idx0} (y[idx1] − y[idx0]) renamed again at depth 0 read Σ 0)."""
    free = e.free_symbols if isinstance(e, sp.Basic) else set()
    off = 0
    while True:
        ds = tuple(_bound_dummy(depth, off + k, **assumptions) for k in range(count))
        if not free & set(ds):
            return ds
        off += count


def _alpha(e, rels=(), depth=0):
    """``e`` with the variable of every sum, product and union (over lo … hi), every MaxOver and
    MinOver (over 1 … n) and every Mat's entry indices (1 … n) renamed, by nesting depth, to a
    kernel symbol that carries only what its range gives: an integer, positive where lo >= 1 is
    proved, and so on. Alpha-equivalent sums become equal; a hypothesis about a free k no longer
    reaches a bound k (Σ_k (a − k) >= 0 from a >= k), and a bound variable's own assumptions are
    not read as facts about its range (k declared positive in Σ_{k=−3}^{−1} k)."""
    if not isinstance(e, sp.Basic) or not e.args or not e.has(sp.Sum, sp.Product, Cup, _Extremum, Mat, sp.Integral, sp.Subs, sp.Lambda, sp.Limit):
        return e
    if isinstance(e, sp.Integral) or (isinstance(e, (sp.Sum, sp.Product, Cup)) and all(len(lim) == 3 for lim in e.limits)):
        # every limit renamed, in one pass (SymPy folds a nested Sum(Sum(f, a), b) back into
        # Sum(f, a, b)): the last limit is the outermost, so it takes the smallest depth, and an
        # inner limit's bounds may use the outer variables; an indefinite integral's variable is free
        lims, ren, new = e.limits, {}, [None] * len(e.limits)
        for pos in range(len(lims) - 1, -1, -1):
            level = depth + len(lims) - 1 - pos
            # a limit's bounds are in scope of the outer limits only, so a binder inside them is
            # renamed at this limit's level, below none of the outer variables' kernel symbols
            var, ends = lims[pos][0], [_alpha(b.xreplace(ren), rels, level) for b in lims[pos][1:]]
            if not ends:  # an indefinite integral: its variable is free, or an outer limit's
                new[pos] = (ren.get(var, var),)
                continue
            if isinstance(e, sp.Integral):
                # a point of a real interval, whatever x was declared, where the ends are real;
                # on a complex path it keeps its own assumptions (re(z) is not z there)
                real = all(_fact(b, "extended_real") for b in ends)
                (d,) = _unused_dummies(e, level, 1, **({"real": True} if real else dict(var.assumptions0)))
            else:
                (d,) = _unused_dummies(e, level, 1, integer=True, **_range_profile(ends[0], ends[1], rels))
            new[pos] = (d, *ends)
            ren[var] = d
        return e.func(_alpha(e.function.xreplace(ren), rels, depth + len(lims)), *new)
    if isinstance(e, sp.Limit):  # lim_{z -> z0}: z is bound; it keeps its own assumptions (the line it runs on)
        f, z, z0, way = e.args
        (d,) = _unused_dummies(e, depth, 1, **{a: v for a, v in z.assumptions0.items()})
        return sp.Limit(_alpha(f.xreplace({z: d}), rels, depth + 1), d, _alpha(z0, rels, depth), str(way))
    if isinstance(e, sp.Subs):
        body, xs, pts = e.args
        ds = tuple(_unused_dummies(e, depth, len(xs), commutative=x.is_commutative)[k] for k, x in enumerate(xs))
        return sp.Subs(_alpha(body.xreplace(dict(zip(xs, ds))), rels, depth + 1), ds, tuple(_alpha(p, rels, depth) for p in pts))
    if isinstance(e, sp.Lambda):
        ds = tuple(_unused_dummies(e, depth, len(e.variables), commutative=x.is_commutative)[k] for k, x in enumerate(e.variables))
        return sp.Lambda(ds if len(ds) > 1 else ds[0], _alpha(e.expr.xreplace(dict(zip(e.variables, ds))), rels, depth + 1))
    if isinstance(e, (_Extremum, Mat)):
        lam, n = e.args
        n = _alpha(n, rels, depth)
        ds = _unused_dummies(e, depth, len(lam.variables), integer=True, positive=True)
        body = lam.expr.xreplace(dict(zip(lam.variables, ds)))
        return e.func(sp.Lambda(ds if len(ds) > 1 else ds[0], _alpha(body, rels, depth + 1)), n)
    return e.func(*[_alpha(a, rels, depth) for a in e.args])


def _captured(e, values, olds=None) -> set:
    """The symbols of ``values`` that a sum, union, Lambda or other binder inside ``e`` binds:
    putting the values into ``e`` (subs, xreplace, a Lambda call) would let the binder capture
    them, since SymPy does not rename bound variables (Σ_k y at y := k is Σ_k k)."""
    free = set()
    for v in values:
        v = sp.sympify(v)
        free |= {a for a in v.free_symbols if isinstance(a, sp.Symbol)}
        free |= {a for i in v.atoms(sp.Indexed) for a in i.free_symbols if isinstance(a, sp.Symbol)}
    caught = free & _binder_variables([e])
    # a derivative whose expression holds one of ``olds`` (the symbols the values replace) binds its
    # variables as well: Derivative(a b, b) at a := b is d/db (b²), not the derivative at b (review
    # 46); a value touches them as _touches says (G(1) itself, review 47; G(i) read at 1, review 48)
    if olds is not None and isinstance(e, sp.Basic):
        for d in e.atoms(sp.Derivative):
            if any(d.expr.has(o) for o in olds) and _touches(d, values):
                caught |= {v for v, _ in d.variable_count}
    return caught


def _fact(e, name: str) -> bool:
    """Whether SymPy derives ``is_<name>`` True for ``e`` with its bound variables renamed
    (:func:`_alpha`): a bound variable's own assumptions are not facts about its range, so
    Σ_{k=−1}^{−1} √k with k declared positive is not "real"."""
    return getattr(_alpha(sp.sympify(e)), f"is_{name}", None) is True


def _no_capture(e, values, what: str, olds=None):
    """Putting ``values`` into ``e`` (for ``olds``, when given) must be exact: no binder inside ``e``
    captures them (:func:`_captured`)."""
    caught = _captured(e, values, olds)
    _need(not caught, f"{what}: {sorted(map(str, caught))} would be captured by a sum or binder in {sp.sstr(e)} "
                      "that binds the same symbol (rename the bound variable)")


def _may_substitute(e, old, new) -> bool:
    """Whether ``e.subs(old, new)`` is exact where old = new: not inside a mean or a probability
    unless both are non-random (a random point would hold at some outcomes only: P(D = m) at
    m := D), and no sum inside ``e`` binds a symbol of ``new`` (SymPy's subs does not rename)."""
    if e.has(Expect, Prob, Cond) and not (is_constant(old) and is_constant(new)):
        return False
    return not _captured(e, [new])


def _delta_normal(e):
    """Each term δ_ab h(a, b) of the expanded ``e`` written δ_ab h(a, a) (exact: both are 0 when
    a != b)."""
    out = []
    for term in sp.Add.make_args(sp.expand(e)):
        for d in _delta_factors(term):  # only a delta that multiplies the whole term
            a, b = sorted(d.args, key=str)
            old, new = (b, a) if b.is_Symbol else (a, b) if a.is_Symbol else (None, None)
            if old is None:
                continue
            rest = sp.Mul(*[f for f in sp.Mul.make_args(term) if not (f == d or (isinstance(f, sp.Pow) and f.base == d))])
            if _may_substitute(rest, old, new):
                term = d * rest.subs(old, new)
        out.append(term)
    return sp.Add(*out)


def _index_reduce(e, rels, definitions=()):
    e = _alpha(sp.sympify(e), rels)  # a hypothesis about a free j does not reach a bound j
    e = e.replace(lambda x: isinstance(x, sp.Derivative), _exact_derivative)  # not of a Piecewise
    e = _apply_definitions(e, definitions, rels)  # renaming the sums the definitions bring in
    e = _decide_piecewise(e, rels)
    e = _collapse_deltas(e, rels)
    e = _delta_normal(e)
    return _alpha(e, rels)


def _index_same(a, b, rels, definitions=()) -> bool:
    ra, rb = _index_reduce(a, rels, definitions), _index_reduce(b, rels, definitions)
    if is_identity(ra, rb):
        return True
    if _odd_limits(ra) or _odd_limits(rb):  # a definition may bring in a sum over 3/2 … 5/2
        return False
    la, lb = _alpha(_sum_linear(ra)), _alpha(_sum_linear(rb))
    return is_identity(la, lb) or is_identity(la, lb, deep=True)


def _ranged(ctx: Context, tag: str, n, *indices) -> Context:
    _fixed_range(tag, n)
    # a size n <= −1 would make every sum over 1..n run backwards (Karr) and the range 1 <= r <= n
    # contradictory: n >= 0 is proved first
    _nonneg(n, ctx, f"{tag}: the size {sp.sstr(n)} >= 0")
    extra = {}
    for k, x in enumerate(indices):
        extra[f"__{tag}{k}_lo__"] = sp.Ge(x, 1)
        extra[f"__{tag}{k}_hi__"] = sp.Le(x, n)
    return ctx._local(extra)


def _entry_symbols():
    return tuple(_fixed_dummy(s, 720 + k, integer=True, positive=True) for k, s in enumerate("rc"))


def _with_facts(ctx: Context, facts, ends) -> Context:
    """``ctx`` plus the relation each fact chain proves (start <= end, >= or =), each chain checked
    under ``ctx`` itself, for a step whose sides are ``ends`` (where the fact's sides must be
    defined: :func:`_defined_where_step`)."""
    extra = {}
    for k, fact in enumerate(facts or ()):
        _need(isinstance(fact, Chain) and fact.steps, "facts: each fact must be a non-empty Chain")
        _defined_where_step((fact.start, fact.end), ends, ctx, f"facts: fact {k + 1}")
        rels = {s.relation for s in fact.steps}
        rel = "=" if rels == {"="} else "<=" if rels <= {"=", "<="} else ">=" if rels <= {"=", ">="} else None
        _need(rel is not None, "facts: a fact chain mixes '<=' and '>=' steps")
        res = replace(fact, ctx=ctx).prove(fact.start, rel, fact.end)
        _need(res.complete, f"facts: fact {k + 1} does not check: {res.first_failure}")
        extra[f"__fact{k}__"] = {"=": sp.Eq, "<=": sp.Le, ">=": sp.Ge}[rel](fact.start, fact.end)
    return ctx._local(extra)


@_rule("index-identity", "lhs = rhs by exact index algebra: Σ_{m=lo}^{hi} δ_{mx} f(m) = f(x) for x proved in [lo, hi], a Piecewise branch whose condition is proved, named definitions f[k] = e(k) substituted (for every k, so no other hypothesis may hold k bare, at points that have k's assumptions), derivatives evaluated, sums split by linearity", "each transformation is an exact identity (the Kronecker sum only when the index is proved in range; no random point is put into a mean or a probability, and no symbol under a sum that binds it); the final difference must cancel to 0")
def _index_identity(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "index-identity: only for '=' steps")
    definitions = _definitions(ctx, p.get("defs"), (lhs, rhs))
    _need(_index_same(lhs, rhs, ctx.relations(), definitions), f"index-identity: {sp.sstr(lhs)} - ({sp.sstr(rhs)}) does not reduce to 0")
    return "the difference reduces to 0"


@_rule("entrywise", "A = B for n×n matrices (the step replaces A by B) when A_rc = B_rc for symbolic 1 <= r, c <= n by index-identity", "two matrices of the same size with equal entries are equal; the entries are compared with symbolic indices, so the check holds for every n")
def _entrywise(lhs, rel, rhs, p, ctx):
    _need(rel == "=", "entrywise: only for '=' steps")
    A, B = p["A"], p["B"]
    _need(isinstance(A, Mat) and isinstance(B, Mat), "entrywise: A and B must be Mat")
    _need(is_identity(A.size, B.size), "entrywise: A and B have different sizes")
    _need(lhs.has(A), "entrywise: the lhs does not contain A")
    _need(rhs == lhs.xreplace({A: B}), "entrywise: the rhs is not the lhs with A replaced by B")
    # the entries are compared with A's symbols free: not where a binder of the step binds one of
    # them (Σ_{j=11}^{12} opnorm(A) with A's entries about j, read under hypotheses about a free j)
    caught = _binder_variables([lhs, rhs]) & (A.free_symbols | B.free_symbols)
    _need(not caught, f"entrywise: A or B stands under a binder of its own symbols {sorted(map(str, caught))}")
    r, c = _entry_symbols()
    local = _ranged(ctx, "entry", A.size, r, c)
    definitions = _definitions(ctx, p.get("defs"), (lhs, rhs))
    _need(_index_same(A.entry(r, c), B.entry(r, c), local.relations(), definitions),
          f"entrywise: entry (r, c) differs: {sp.sstr(A.entry(r, c))} vs {sp.sstr(B.entry(r, c))}")
    return "equal entries for symbolic r, c in 1..n"


@_rule("submultiplicative", "opnorm(A B) <= opnorm(A) opnorm(B), A B the matrix with entries Σ_m A_rm B_mc", "the operator norm is submultiplicative: |ABx| <= opnorm(A)|Bx| <= opnorm(A)opnorm(B)|x|; the product's entries are checked with symbolic indices")
def _submultiplicative(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "submultiplicative: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    A, B = p["A"], p["B"]
    _need(isinstance(A, Mat) and isinstance(B, Mat) and is_identity(A.size, B.size), "submultiplicative: A and B must be Mat of one size")
    _need(isinstance(small, OpNorm) and isinstance(small.args[0], Mat), "submultiplicative: the small side is not opnorm(P)")
    P = small.args[0]
    _need(is_identity(P.size, A.size), "submultiplicative: the product has another size")
    r, c = _entry_symbols()
    m = _fixed_dummy("m", 730, integer=True, positive=True)
    local = _ranged(ctx, "entry", A.size, r, c)
    _need(_index_same(P.entry(r, c), sp.Sum(A.entry(r, m) * B.entry(m, c), (m, 1, A.size)), local.relations()),
          "submultiplicative: the small side's matrix is not A B")
    _same(big, OpNorm(A) * OpNorm(B), "submultiplicative: the big side is not opnorm(A) opnorm(B)")
    return "submultiplicativity of the spectral norm"


def _term_proof(term, start, end, ctx, what):
    _need(isinstance(term, Chain), f"{what}: the term proof must be a Chain")
    res = replace(term, ctx=ctx).prove(start, "<=", end)
    _need(res.complete, f"{what}: the term chain does not check: {res.first_failure}")


@_rule("diag-norm", "c opnorm(M) <= c B (c >= 0) for a diagonal n×n M (M_rc = δ_rc M_cc) when |M_kk| <= B for every k in 1..n (a checked term chain), n >= 1", "the spectral norm of a diagonal matrix is max_k |M_kk|; diagonality is checked with symbolic indices; the index k is a non-random symbol not free in the step's sides, with no assumption some k in 1..n lacks")
def _diag_norm(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "diag-norm: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    scale = sp.sympify(p.get("c", 1))
    _nonneg(scale, ctx, "diag-norm: c >= 0")
    norms = [f for f in sp.Mul.make_args(small) if isinstance(f, OpNorm)]
    _need(len(norms) == 1 and isinstance(norms[0].args[0], Mat), "diag-norm: the small side is not c opnorm(M)")
    _same(small, scale * norms[0], "diag-norm: the small side is not c opnorm(M)")
    M = norms[0].args[0]
    r, c = _entry_symbols()
    local = _ranged(ctx, "entry", M.size, r, c)
    _need(_index_same(M.entry(r, c), sp.KroneckerDelta(r, c) * M.entry(c, c), local.relations()), "diag-norm: M is not diagonal")
    _nonneg(M.size - 1, ctx, "diag-norm: n >= 1")
    k, bound = p["index"], sp.sympify(p["bound"])
    _same(big, scale * bound, "diag-norm: the big side is not c B")
    _generic_index(k, "diag-norm", small, big, ctx=ctx)
    _term_proof(p["term"], sp.Abs(M.entry(k, k)), bound, _ranged(ctx, "diag", M.size, k), "diag-norm")
    return "spectral norm of a diagonal matrix"


@_rule("gershgorin-rows", "opnorm(A) <= B for a real symmetric n×n A when Σ_c |A_rc| <= B for every row r (a checked chain with r symbolic), n >= 1", "Gershgorin's circle theorem: every eigenvalue lies within Σ_c |A_rc| of 0 for some r, and a real symmetric matrix's spectral norm is its largest |eigenvalue|; symmetry and realness are checked with symbolic indices; the row index is a non-random symbol not free in the step's sides, with no assumption some row lacks, and the column index another symbol with no assumption some column lacks, which no hypothesis constrains")
def _gershgorin_rows(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "gershgorin-rows: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    _need(isinstance(small, OpNorm) and isinstance(small.args[0], Mat), "gershgorin-rows: the small side is not opnorm(A)")
    A = small.args[0]
    r, c = _entry_symbols()
    local = _ranged(ctx, "entry", A.size, r, c)
    _need(_fact(A.entry(r, c), "extended_real"), "gershgorin-rows: the entries are not known to be real")
    _need(_index_same(A.entry(r, c), A.entry(c, r), local.relations()), "gershgorin-rows: A is not symmetric")
    _nonneg(A.size - 1, ctx, "gershgorin-rows: n >= 1")
    i, j = p["index"], p["col"]
    _generic_index(i, "gershgorin-rows", small, big, ctx=ctx)
    _need(isinstance(j, sp.Symbol) and j != i, "gershgorin-rows: the column index must be a symbol other than the row index")
    # the row sum's terms A.entry(i, j) are evaluated at the caller's j: its assumptions must hold at
    # every column 1..n (j declared negative would evaluate them elsewhere), and no hypothesis may pin it
    _generic_index(j, "gershgorin-rows: the column index", small, big, ctx=ctx, lo=1, hi=A.size)
    start = sp.Sum(sp.Abs(A.entry(i, j)), (j, 1, A.size))
    _term_proof(p["row"], start, big, _ranged(ctx, "row", A.size, i), "gershgorin-rows")
    return "Gershgorin (real symmetric)"


@_rule("abs-bound", "|x| <= y when y - x >= 0 and y + x >= 0 are proved (a KroneckerDelta(a, b) is split into the cases a = b and a != b; optional facts, each a checked chain)", "-y <= x <= y is |x| <= y; the two cases of a Kronecker delta are exhaustive (its variables are non-random where the step holds a mean or a probability); each fact is proved under the same hypotheses")
def _abs_bound(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "abs-bound: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    # SymPy pulls known-positive factors out of Abs: accept c |x| with c >= 0 proved, as |c x|
    absf = [f for f in sp.Mul.make_args(small) if isinstance(f, sp.Abs)]
    _need(len(absf) == 1, "abs-bound: the small side is not |x| (or c |x|)")
    coef = sp.Mul(*[f for f in sp.Mul.make_args(small) if f is not absf[0]])
    _need(not coef.has(sp.Abs), "abs-bound: the small side is not |x| (or c |x|)")
    ctx2 = _with_facts(ctx, p.get("facts"), (lhs, rhs))
    _nonneg(coef, ctx2, "abs-bound: the factor outside |.|")
    x = coef * absf[0].args[0]
    rels = ctx2.relations()
    cases = [(x, big, rels)]
    if p.get("cases") is not None:
        a, b = p["cases"]
        _need(b.is_Symbol, "abs-bound: the second case variable must be a symbol")
        # the case a = b holds at some outcomes only: b is not replaced inside a mean or a probability
        whole = x + big + sp.Add(*[q.lhs - q.rhs for q in rels if isinstance(q, sp.core.relational.Relational)])
        for v in (a, b):
            _point(v, whole, "abs-bound: the case variable")
        # the cases speak of the free a and b: a sum that binds either would take a case of its own variable
        _no_capture(whole, [a, b], "abs-bound: the case variables")
        zero = {sp.KroneckerDelta(a, b): 0, sp.KroneckerDelta(b, a): 0}
        cases = [(x.subs(b, a), big.subs(b, a), [q.subs(b, a) for q in rels]),
                 (x.xreplace(zero), big.xreplace(zero), rels)]
    for k, (xx, yy, rr) in enumerate(cases):
        for e in (yy - xx, yy + xx):
            _need(_nonnegative(e, tuple(rr)), f"abs-bound: case {k + 1}: cannot prove {sp.sstr(e)} >= 0")
    return "-y <= x <= y" + (" in both Kronecker cases" if len(cases) == 2 else "")


@_rule("sum-term", "c f(x) <= c Σ_{k=lo}^{hi} f(k) when lo <= x <= hi, c >= 0 and f(k) >= 0 for every k of the range", "a sum of non-negative terms is at least any one of its terms; x is an integer put into f without capture, and the index is a non-random symbol that no hypothesis constrains, with only the assumptions every integer of the range has")
def _sum_term(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "sum-term: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    k, lo, hi, x, f = p["index"], sp.sympify(p["lo"]), sp.sympify(p["hi"]), sp.sympify(p["x"]), sp.sympify(p["f"])
    c = sp.sympify(p.get("c", 1))
    _need(_fact(x, "integer"), f"sum-term: x = {sp.sstr(x)} is not known to be an integer")
    _no_capture(f, [x], "sum-term: f at x")
    # SymPy's subs replaces a Limit's own k as well (Limit(t/k, k, oo) at k := t is Limit(1, t, oo))
    _need(k not in _binder_variables([f]), f"sum-term: f binds its own index {sp.sstr(k)} (rename the bound variable)")
    _same(small, c * f.subs(k, x), "sum-term: the small side is not c f(x)")
    _need(big == c * sp.Sum(f, (k, lo, hi)) or is_identity(big, c * sp.Sum(f, (k, lo, hi))), "sum-term: the big side is not c Σ f(k)")
    _fixed_range("sum-term", lo, hi)
    _generic_index(k, "sum-term", small, big, lo=lo, hi=hi, ctx=ctx)
    _point(x, f, "sum-term: the point x")
    _nonneg(c, ctx, "sum-term: c >= 0")
    _nonneg(x - lo, ctx, "sum-term: x >= lo")
    _nonneg(hi - x, ctx, "sum-term: x <= hi")
    _nonneg(f, ctx._local({"__sum_lo__": sp.Ge(k, lo), "__sum_hi__": sp.Le(k, hi)}), "sum-term: f(k) >= 0")
    return "a term of a non-negative sum"


@_rule("extremum", "c e(x) <= c MaxOver(e, n) and c MinOver(e, n) <= c e(x) for 1 <= x <= n, c >= 0", "the definition of max and min over 1..n; x is an integer put into e without capture")
def _extremum(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "extremum: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    x, c = sp.sympify(p["x"]), sp.sympify(p.get("c", 1))
    ext = p["of"]
    _need(isinstance(ext, (MaxOver, MinOver)), "extremum: 'of' must be MaxOver or MinOver")
    _point(x, ext, "extremum: the point x")
    _need(_fact(x, "integer"), f"extremum: x = {sp.sstr(x)} is not known to be an integer")
    if isinstance(ext, MaxOver):
        _same(small, c * ext.term(x), "extremum: the small side is not c e(x)")
        _same(big, c * ext, "extremum: the big side is not c max e")
    else:
        _same(small, c * ext, "extremum: the small side is not c min e")
        _same(big, c * ext.term(x), "extremum: the big side is not c e(x)")
    _nonneg(c, ctx, "extremum: c >= 0")
    _nonneg(x - 1, ctx, "extremum: x >= 1")
    _nonneg(ext.args[1] - x, ctx, "extremum: x <= n")
    return "a term of the max / min"


@_rule("max-bound", "c MaxOver(e, n) <= c B when e(k) <= B for every k in 1..n (a checked term chain), c >= 0", "a max is attained at one of its terms; the index k of the term chain is a non-random symbol not free in the step's sides, with no assumption some k in 1..n lacks")
def _max_bound(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "max-bound: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    ext, B, c, k = p["of"], sp.sympify(p["bound"]), sp.sympify(p.get("c", 1)), p["index"]
    _need(isinstance(ext, MaxOver), "max-bound: 'of' must be MaxOver")
    _same(small, c * ext, "max-bound: the small side is not c max e")
    _same(big, c * B, "max-bound: the big side is not c B")
    _nonneg(c, ctx, "max-bound: c >= 0")
    _nonneg(ext.args[1] - 1, ctx, "max-bound: n >= 1")
    _generic_index(k, "max-bound", small, big, ctx=ctx)
    _term_proof(p["term"], ext.term(k), B, _ranged(ctx, "max", ext.args[1], k), "max-bound")
    return "every term is bounded"


@_rule("algebra-facts", "lhs <= rhs by the algebra rule, with extra facts, each a checked chain under the same hypotheses", "each fact is proved by the kernel before it is used; then the algebra rule's exact sign prover decides")
def _algebra_facts(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "algebra-facts: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    _nonneg(big - small, _with_facts(ctx, p.get("facts"), (lhs, rhs)), "algebra-facts")
    return "the difference is proved non-negative (with checked facts)"



@_rule("opnorm-triangle", "opnorm(M) <= opnorm(A) + opnorm(B) for M_rc = A_rc + B_rc (or A_rc - B_rc)", "the spectral norm is a norm: the triangle inequality, and opnorm(-B) = opnorm(B); the entries are checked with symbolic indices")
def _opnorm_triangle(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "opnorm-triangle: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    A, B, sign = p["A"], p["B"], p.get("sign", 1)
    _need(sign in (1, -1), "opnorm-triangle: sign must be 1 or -1")
    _need(isinstance(small, OpNorm) and isinstance(small.args[0], Mat), "opnorm-triangle: the small side is not opnorm(M)")
    M = small.args[0]
    _need(isinstance(A, Mat) and isinstance(B, Mat) and is_identity(A.size, M.size) and is_identity(B.size, M.size),
          "opnorm-triangle: A and B must be Mat of M's size")
    r, c = _entry_symbols()
    local = _ranged(ctx, "entry", M.size, r, c)
    _need(_index_same(M.entry(r, c), A.entry(r, c) + sign * B.entry(r, c), local.relations()),
          "opnorm-triangle: M is not A + sign B")
    _same(big, OpNorm(A) + OpNorm(B), "opnorm-triangle: the big side is not opnorm(A) + opnorm(B)")
    return "triangle inequality of the spectral norm"


@_rule("rank-one", "opnorm(M) = |c| sqrt(Σ_k x_k²) sqrt(Σ_k y_k²) for M_rc = c x_r y_c (real x, y; k = 1..n)", "M z = c x (y·z), so |M z| <= |c||x||y||z| by Cauchy-Schwarz, with equality at z = y; the norms' index k carries no assumption some k in 1..n lacks (x(k), y(k) are evaluated at it), and x, y do not use it")
def _rank_one(lhs, rel, rhs, p, ctx):
    _need(rel in ("=", "<=", ">="), "rank-one: bad relation")
    small, big = (lhs, rhs) if rel in ("=", "<=") else (rhs, lhs)
    x, y, k = p["x"], p["y"], p["index"]
    scale = sp.sympify(p.get("c", 1))
    _need(isinstance(x, sp.Lambda) and isinstance(y, sp.Lambda), "rank-one: x and y must be one-variable Lambdas")
    _need(isinstance(small, OpNorm) and isinstance(small.args[0], Mat), "rank-one: the norm side is not opnorm(M)")
    M = small.args[0]
    r, c = _entry_symbols()
    local = _ranged(ctx, "entry", M.size, r, c)
    for v in (x, y):
        _no_capture(v.expr, [k], "rank-one: the norms' terms")
    _need(_fact(x(r), "extended_real") and _fact(y(c), "extended_real") and _fact(scale, "extended_real"),
          "rank-one: x, y and c must be known to be real")
    _need(_index_same(M.entry(r, c), scale * x(r) * y(c), local.relations()), "rank-one: M is not c x y^T")
    n = M.size
    # the norms' terms x(k), y(k) are evaluated at the caller's k: its assumptions must hold at every
    # k = 1..n (x(k) = Max(k, 2) - 2 is 0 for k declared negative), and x, y must not use k itself
    _need(not any(k in v.free_symbols for v in (x, y)),
          f"rank-one: x or y uses the norms' index {sp.sstr(k)} itself, which the sums over {sp.sstr(k)} would capture (rename it)")
    _generic_index(k, "rank-one: the norms' index", small, lo=1, hi=n)
    want = sp.Abs(scale) * sp.sqrt(sp.Sum(x(k) ** 2, (k, 1, n))) * sp.sqrt(sp.Sum(y(k) ** 2, (k, 1, n)))
    _same(big, want, "rank-one: the other side is not |c| |x|_2 |y|_2")
    return "spectral norm of a rank-one matrix"


@_rule("l2-l1", "c sqrt(Σ_{k=lo}^{hi} x_k²) <= c Σ_{k=lo}^{hi} |x_k| for c >= 0, hi >= lo - 1", "(Σ|x_k|)² = Σ x_k² + 2 Σ_{k<m} |x_k||x_m| >= Σ x_k², and both roots are >= 0")
def _l2_l1(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "l2-l1: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    k, lo, hi, x = p["index"], sp.sympify(p["lo"]), sp.sympify(p["hi"]), sp.sympify(p["x"])
    scale = sp.sympify(p.get("c", 1))
    _need(_fact(x, "extended_real"), "l2-l1: x_k must be known to be real")
    _same(small, scale * sp.sqrt(sp.Sum(x ** 2, (k, lo, hi))), "l2-l1: the small side is not c |x|_2")
    _same(big, scale * sp.Sum(sp.Abs(x), (k, lo, hi)), "l2-l1: the big side is not c |x|_1")
    _nonneg(scale, ctx, "l2-l1: c >= 0")
    _nonneg(hi - lo + 1, ctx, "l2-l1: the index range is reversed (need hi >= lo - 1)")
    return "|x|_2 <= |x|_1"


def _smooth(e, ctx) -> bool:
    """Whether ``e`` is built from +, ×, integer powers, exp, finite sums, numbers, symbols and
    indexed values only, every negative power of a base proved > 0 (so e is C^1 in its
    real variables)."""
    if e.is_Atom or isinstance(e, sp.Indexed):
        return _fact(e, "extended_real")
    if isinstance(e, (sp.Add, sp.Mul, sp.exp)):
        return all(_smooth(a, ctx) for a in e.args)
    if isinstance(e, sp.Sum):
        return len(e.limits) == 1 and _smooth(e.function, ctx)
    if isinstance(e, sp.Pow):
        base, ex = e.args
        if not (ex.is_Integer or ex.is_Rational) or ex.free_symbols:
            return False
        if ex.is_negative or not ex.is_Integer:
            if not (_fact(base, "positive") or _nonnegative(base, tuple(ctx.relations()), strict=True)):
                return False
        return _smooth(base, ctx)
    return False


def _same_sums(a, b, what):
    """``a`` = ``b`` up to the names of bound summation indices."""
    _need(a == b or is_identity(_alpha(a), _alpha(b)), f"{what}: {sp.sstr(a)} is not {sp.sstr(b)}")


def _at(e, x, point):
    return e.replace(lambda t: isinstance(t, sp.Indexed) and t.base == x and len(t.indices) == 1,
                     lambda t: point(t.indices[0]))


def _reads_in_range(e, x, n, rels, what: str, depth: int = 0):
    """Every x[s] in ``e`` has one subscript s, an integer proved in 1..n from ``rels`` and the
    ranges of the sums around it (their variables renamed to kernel symbols, so that a hypothesis
    about a free symbol of the same name does not reach them); x is in no sum's limits."""
    if not isinstance(e, sp.Basic) or not e.args:
        return
    if isinstance(e, sp.Indexed) and e.base == x:
        _need(len(e.indices) == 1 and _in_range(e.indices[0], 1, n, rels),
              f"{what}: phi reads {sp.sstr(e)}, which is not proved to be one of {sp.sstr(x)}[1..{sp.sstr(n)}] "
              "(the Jacobian and |d|_2 cover those coordinates only)")
        return
    if _bound_here(e):  # a sum, integral, Lambda, Subs, Limit or any other binder
        _need(isinstance(e, sp.Sum) and len(e.limits) == 1 and len(e.limits[0]) == 3,
              f"{what}: phi may bind an index only in a one-limit sum, not in {sp.sstr(e)}")
        m, lo, hi = e.limits[0]
        _need(not (lo.has(x) or hi.has(x)), f"{what}: {sp.sstr(x)} is in the limits of {sp.sstr(e)}")
        t = _fixed_dummy("m_mv", 750 + depth, integer=True)
        inner = tuple(rels)
        if _nonnegative(hi - lo + 1, inner, max_tries=20):  # a reversed range (Karr) runs elsewhere
            inner += (sp.Ge(t, lo), sp.Le(t, hi))
        _reads_in_range(e.function.xreplace({m: t}), x, n, inner, what, depth + 1)
        return
    for a in e.args:
        _reads_in_range(a, x, n, rels, what, depth)


def _kernel_index(k, lambdas, what: str):
    """The rule's own index k must be neither free nor bound in the caller's Lambdas (a Lambda
    that uses k itself would be captured by the rule's sum over k)."""
    for lam in lambdas:
        _need(k not in lam.free_symbols and k not in _binder_variables([lam.expr]),
              f"{what}: {sp.sstr(lam)} uses the rule's index {k}; rename it")
        _no_capture(lam.expr, [k], what)


@_rule("mean-value", "c sqrt(Σ_k (φ_k(a + d) − φ_k(a))²) <= c B sqrt(Σ_k d_k²) for a C¹ map φ of x = (x_1..x_n) when opnorm(∂φ/∂x at z) <= B at a free point z (a checked chain), c >= 0", "the mean value inequality: φ(a + d) − φ(a) = ∫_0^1 Jφ(a + t d) d dt; φ is C¹ because it is built from +, ×, exp, finite sums and powers of bases proved positive; z appears in no hypothesis, so the bound holds on the whole segment; φ reads x_1..x_n only (proved in range), the coordinates the Jacobian and |d|_2 cover; the rule's own indices are kernel symbols, and the Jacobian chain's matrix is matched up to the names of its entry indices")
def _mean_value(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "mean-value: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    phi, x, a, d, z, n = p["phi"], p["x"], p["a"], p["d"], p["z"], sp.sympify(p["n"])
    B, scale = sp.sympify(p["bound"]), sp.sympify(p.get("c", 1))
    # the rule's own indices are kernel symbols: a caller's k_mv, u_mv or w_mv (free in phi, or in a
    # hypothesis) is another symbol, so neither a Lambda call nor the sign oracle can capture it
    k = _fixed_dummy("k_mv", 740, integer=True, positive=True)
    _need(all(isinstance(t, sp.Lambda) and len(t.variables) == 1 for t in (phi, a, d)), "mean-value: phi, a, d must be one-variable Lambdas")
    _need(isinstance(x, sp.IndexedBase) and isinstance(z, sp.IndexedBase) and x != z, "mean-value: x and z must be distinct IndexedBases")
    plain = sp.Dummy("z", real=True)
    _need(all(getattr(z[k], f"is_{q}", None) in (None, getattr(plain, f"is_{q}", None)) for q in _SYMPY_FACTS),
          f"mean-value: the point {z} may carry no assumption beyond real (it is any point of the segment)")
    _kernel_index(k, (phi, a, d), "mean-value")
    moved = _at(phi(k), x, lambda m: a(m) + d(m))
    here = _at(phi(k), x, a)
    _same_sums(small, scale * sp.sqrt(sp.Sum((moved - here) ** 2, (k, 1, n))), "mean-value: the small side is not c |phi(a + d) - phi(a)|_2")
    _same_sums(big, scale * B * sp.sqrt(sp.Sum(d(k) ** 2, (k, 1, n))), "mean-value: the big side is not c B |d|_2")
    _nonneg(scale, ctx, "mean-value: c >= 0")
    for e in (a(k), d(k)):
        _need(_fact(e, "extended_real"), "mean-value: a and d must be real")
    _need(_smooth(_at(phi(k), x, lambda m: z[m]), ctx), "mean-value: phi is not built from smooth parts")
    # phi may read x_1..x_n only: the Jacobian and |d|_2 cover those, so a term in x_0 would move unseen
    _reads_in_range(phi(k), x, n, ctx._local({"__mv_lo__": sp.Ge(k, 1), "__mv_hi__": sp.Le(k, n)}).relations(),
                    "mean-value")
    # every hypothesis, facts and assumed premises included (a weighted norm of z[1] bounds it too: review 50)
    uses_z = [_hypothesis_text(r, sides) for r, sides in _hypothesis_parts(ctx)
              if any(z in sp.sympify(x).atoms(sp.IndexedBase) for x in sides if isinstance(x, sp.Basic))]
    _need(not uses_z and not any(t.base == z for t in (small - big).atoms(sp.Indexed)),
          f"mean-value: the point {z} must be free (it appears in {uses_z or 'the step'})")
    u, w = (_fixed_dummy(s, 741 + j, integer=True, positive=True) for j, s in enumerate(("u_mv", "w_mv")))
    Jz = Mat(sp.Lambda((u, w), sp.Derivative(_at(phi(u), x, lambda m: z[m]), z[w])), n)
    jac = p["jac"]
    _need(isinstance(jac, Chain), "mean-value: the Jacobian bound must be a Chain")
    # the chain starts at the Jacobian up to the names of its entry indices (the Mat's bound variables)
    _same_sums(jac.start, OpNorm(Jz), "mean-value: the Jacobian chain does not start at opnorm(d phi/d z)")
    lemmas = {name: h for name, h in jac.ctx.hypotheses.items() if isinstance(h, Lemma)}
    clash = sorted(k for k in lemmas if k in ctx.hypotheses and ctx.hypotheses[k] is not lemmas[k])
    _need(not clash, f"mean-value: the Jacobian chain's lemmas {clash} take the names of hypotheses of this context")
    res = replace(jac, ctx=ctx.extended(lemmas)).prove(jac.start, "<=", B)
    _need(res.complete, f"mean-value: the Jacobian chain does not check: {res.first_failure}")
    return "mean value inequality"


@_rule("simplex-diameter", "c sqrt(Σ_k (p_k − q_k)²) <= c sqrt(2) for p_k, q_k >= 0 with Σ p_k = Σ q_k = 1 (k = 1..n), c >= 0", "Σ(p − q)² <= Σp² + Σq² <= (Σp)² + (Σq)² = 2 for non-negative p, q; the signs and sums are checked (sums by index-identity) at the rule's own index, a kernel symbol no hypothesis is about")
def _simplex_diameter(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "simplex-diameter: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    P, Q, n, scale = p["p"], p["q"], sp.sympify(p["n"]), sp.sympify(p.get("c", 1))
    k = _fixed_dummy("k_sd", 745, integer=True, positive=True)  # a kernel symbol: no hypothesis is about it
    _kernel_index(k, (P, Q), "simplex-diameter")
    _same_sums(small, scale * sp.sqrt(sp.Sum((P(k) - Q(k)) ** 2, (k, 1, n))), "simplex-diameter: the small side is not c |p - q|_2")
    _same(big, scale * sp.sqrt(2), "simplex-diameter: the big side is not c sqrt(2)")
    _nonneg(scale, ctx, "simplex-diameter: c >= 0")
    local = _ranged(ctx, "simplex", n, k)
    definitions = _definitions(ctx, p.get("defs"), (lhs, rhs))
    for name, vec in (("p", P), ("q", Q)):
        _nonneg(vec(k), local, f"simplex-diameter: {name}_k >= 0")
        _need(_index_same(sp.Sum(vec(k), (k, 1, n)), 1, ctx.relations(), definitions), f"simplex-diameter: the {name}_k do not sum to 1")
    return "the l2 diameter of the simplex"


@_rule("min-bound", "x <= Min(a, b) when x <= a and x <= b (two checked chains)", "the definition of the minimum")
def _min_bound(lhs, rel, rhs, p, ctx):
    _need(rel in ("<=", ">="), "min-bound: only for '<=' / '>=' steps")
    small, big = _orient(lhs, rel, rhs)
    _need(isinstance(big, sp.Min), "min-bound: the big side is not a Min")
    chains = p["chains"]
    _need(len(chains) == len(big.args), "min-bound: one chain per argument of the Min")
    for arg, ch in zip(big.args, chains):
        matching = [c for c in chains if is_identity(c.end, arg)]
        _need(matching, f"min-bound: no chain ends at {sp.sstr(arg)}")
        _term_proof(matching[0], small, arg, ctx, "min-bound")
    return "below every argument of the Min"

def _by_proofjac():
    def index_identity(self, defs=None, text=""):
        return By("index-identity", {"defs": defs}, text)

    def entrywise(self, A, B, defs=None, text=""):
        return By("entrywise", {"A": A, "B": B, "defs": defs}, text)

    def submultiplicative(self, A, B, text=""):
        return By("submultiplicative", {"A": A, "B": B}, text)

    def diag_norm(self, index, bound, term, c=1, text=""):
        return By("diag-norm", {"index": index, "bound": bound, "term": term, "c": c}, text)

    def gershgorin_rows(self, index, col, row, text=""):
        return By("gershgorin-rows", {"index": index, "col": col, "row": row}, text)

    def abs_bound(self, cases=None, facts=(), text=""):
        return By("abs-bound", {"cases": cases, "facts": tuple(facts)}, text)

    def sum_term(self, index, lo, hi, x, f, c=1, text=""):
        return By("sum-term", {"index": index, "lo": lo, "hi": hi, "x": x, "f": f, "c": c}, text)

    def extremum(self, of, x, c=1, text=""):
        return By("extremum", {"of": of, "x": x, "c": c}, text)

    def max_bound(self, of, bound, index, term, c=1, text=""):
        return By("max-bound", {"of": of, "bound": bound, "index": index, "term": term, "c": c}, text)

    def algebra_facts(self, *facts, text=""):
        return By("algebra-facts", {"facts": tuple(facts)}, text)

    def opnorm_triangle(self, A, B, sign=1, text=""):
        return By("opnorm-triangle", {"A": A, "B": B, "sign": sign}, text)

    def rank_one(self, x, y, index, c=1, text=""):
        return By("rank-one", {"x": x, "y": y, "index": index, "c": c}, text)

    def l2_l1(self, index, lo, hi, x, c=1, text=""):
        return By("l2-l1", {"index": index, "lo": lo, "hi": hi, "x": x, "c": c}, text)

    def mean_value(self, phi, x, a, d, z, n, bound, jac, c=1, text=""):
        return By("mean-value", {"phi": phi, "x": x, "a": a, "d": d, "z": z, "n": n, "bound": bound, "jac": jac, "c": c}, text)

    def simplex_diameter(self, p, q, n, c=1, defs=None, text=""):
        return By("simplex-diameter", {"p": p, "q": q, "n": n, "c": c, "defs": defs}, text)

    def min_bound(self, *chains, text=""):
        return By("min-bound", {"chains": tuple(chains)}, text)

    for fn in (index_identity, entrywise, submultiplicative, diag_norm, gershgorin_rows, abs_bound, sum_term,
               extremum, max_bound, algebra_facts, opnorm_triangle, rank_one, l2_l1, mean_value, simplex_diameter, min_bound):
        setattr(_ByFactory, fn.__name__, fn)


_by_proofjac()
__all__ += ["Mat", "OpNorm", "MaxOver", "MinOver", "matmul"]


_MISDECLARABLE += (_Extremum, Mat)  # the binders defined after _misdeclared


def _document_by() -> None:
    """Give every ``by.<rule>`` its rule's statement and reason as a docstring (``help(by.termwise)``):
    the rule table of docs/proof-rules.md, read where the code is."""
    for attr in dir(_ByFactory):
        fn = getattr(_ByFactory, attr)
        rule = RULES.get(attr.replace("_", "-"))
        if attr.startswith("_") or not callable(fn) or rule is None or fn.__doc__:
            continue
        fn.__doc__ = (f"A step by the rule ``{rule.name}``: {rule.statement}\n\n{rule.why}\n\n"
                      "``text``: a note shown with the step.")


_document_by()
