"""The claim model.

One claim of a paper is one :class:`Claim` object, defined in one module of
:mod:`attnbounds.claims` whose docstring is the claim's proof. A claim has named
:class:`Hypothesis` predicates and several :class:`Reading` objects: the transcription of
the source formula, our reconstruction, and any other reading of an ambiguous statement.

A reading carries every method that can judge it; the engine (:mod:`attnbounds.engine`)
runs each method that is set and keeps the strongest verdict the evidence supports:

``symbolic``
    exact SymPy proof or disproof → :class:`Proof` (three-valued ``status``);
``certify``
    interval arithmetic (python-flint ``arb``) on the stated domain → :class:`Proof`;
``strategy`` + ``sides``
    Hypothesis searches instances for ``not (lhs <relation> rhs)`` and shrinks them;
``sweep`` + ``sides``
    a batched numpy sweep of many random instances;
``montecarlo``
    an :class:`Estimate` with a confidence interval, for probabilistic statements.

An *instance* is a ``dict`` of named numbers and numpy arrays (``{"logits": ..., "T": ...}``).
In a batch from ``sweep`` every array value has a leading batch axis; ``sides`` must accept
both a single instance and a batch.

A reading stated under a condition of its own (``T1i:transcribed-if-R-ge-1``: R >= 1) says so
with ``assume``: a predicate on an instance (True where the instance meets the reading's
stated hypotheses; on a batch, one truth value per instance). The engine judges only the
instances inside: Hypothesis rejects the others, the sweep masks them, and both count them
(the row's ``discarded``). An instance outside a reading's hypotheses is never a
counterexample and never an error. This matters where instances are transformed after they
are drawn, e.g. when the weights are drawn through another normalizer (``check
--normalizer``), so that the top-N set, and with it R, changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

import numpy as np

__all__ = [
    "VERDICTS",
    "Verdict",
    "Instance",
    "Sides",
    "Proof",
    "Estimate",
    "Hypothesis",
    "Reading",
    "SPACE",
    "WITNESSES",
    "NoFiniteSpace",
    "chain_symbols",
    "Claim",
    "holds_relation",
    "subset_instances",
]

#: The key of a ``bind``'s finite probability space (:class:`Reading`): the probabilities of its
#: atoms, (atoms,). A random function's value is then a table (K, atoms) (or (K, atoms, d) for a
#: random vector), its values at each atom, read from index 1 as a sequence.
SPACE = "probabilities"

#: The key of a ``bind``'s witnesses of the facts a proof's context states (not relations, so not
#: evaluated as one): ``{hypothesis name: witness}``. A ``WeightedNorm`` fact f = ‖Σ_j w_j X_j‖
#: takes ``(weights, vectors)``: the weights w_j, (J,), or (I, J) where the fact has a free index i
#: (row i − 1 is i's), and the vectors X_j at each atom of the space, (J, atoms) or (J, atoms, d).
#: The tie checks f, the radius and the weights' sums against them, and the X_j's independence.
WITNESSES = "witnesses"


class NoFiniteSpace(Exception):
    """Raised by a ``bind`` at an instance whose setting it cannot build as a finite probability
    space (a continuous law): the tie passes over the instance and says how many it passed over.

    >>> raise NoFiniteSpace("d = 3: the uniform law on the sphere is continuous")
    Traceback (most recent call last):
    ...
    attnbounds.claims.base.NoFiniteSpace: d = 3: the uniform law on the sphere is continuous
    """


def chain_symbols(part) -> dict:
    """The symbols, indexed bases and undefined functions of a checked chain's goal and of its
    context's hypotheses (a lemma's statement, a fact's expressions), by name: what a reading's
    ``bind`` gives values to. ``part`` is a checked chain, or an ``AllOf`` (its first part, the
    statement). A base is named for itself, not for its label symbol.

    >>> import sympy as sp
    >>> from attnbounds.theory.proof import Chain, Context, by
    >>> a, L = sp.IndexedBase("a"), sp.Symbol("L", positive=True)
    >>> part = Chain(a[1] / L, Context({"h": sp.Le(a[1], 1)})).le(1 / L, by.hypothesis("h")).prove(a[1] / L, "<=", 1 / L)
    >>> {name: type(v).__name__ for name, v in sorted(chain_symbols(part).items())}
    {'L': 'Symbol', 'a': 'IndexedBase'}
    >>> chain_symbols(Chain(L))  # not checked: no goal yet
    Traceback (most recent call last):
    ...
    TypeError: part: expected a checked chain (Chain.prove) or an AllOf, got Chain
    """
    import sympy as sp
    from sympy.core.function import AppliedUndef

    from attnbounds.theory.proof import FACTS, Lemma, _fact_sides

    part = (getattr(part, "parts", None) or (part,))[0]
    if not (hasattr(part, "goal") and hasattr(part, "chain")):
        raise TypeError(f"part: expected a checked chain (Chain.prove) or an AllOf, got {type(part).__name__}")
    exprs = [sp.sympify(part.goal[0]), sp.sympify(part.goal[2])]
    for h in part.chain.ctx.hypotheses.values():
        for r in h if isinstance(h, tuple) else (h,):
            r = r.relation_expr() if isinstance(r, Lemma) else r
            if isinstance(r, FACTS):  # a fact's own expressions (the weights' sums of a WeightedNorm)
                exprs += [sp.sympify(x) for x in _fact_sides(r)]
            elif isinstance(r, sp.Basic):
                exprs.append(r)
    bases = {ix.base for e in exprs for ix in e.atoms(sp.Indexed)}
    labels = {b.label for b in bases}
    out = {str(x): x for e in exprs for x in e.free_symbols if isinstance(x, sp.Symbol) and x not in labels}
    out.update({str(f.func): f.func for e in exprs for f in e.atoms(AppliedUndef)})
    out.update({str(b): b for b in bases})
    return out


Verdict = Literal["proved", "certified", "holds", "falsified", "undecided"]
#: Verdicts from strongest to weakest; "falsified" is a finding, "undecided" is never a pass.
VERDICTS: tuple[str, ...] = ("proved", "certified", "holds", "falsified", "undecided")

Instance = dict[str, Any]

RELATIONS = ("<=", ">=", "==")


@dataclass(frozen=True)
class Sides:
    """Numeric values of both sides of ``lhs <relation> rhs`` (floats or batch arrays)."""

    lhs: Any
    rhs: Any


@dataclass(frozen=True)
class Proof:
    """Outcome of an exact method: ``status`` is True (proved/certified), False (refuted,
    with a ``counterexample`` instance and both sides' values) or None (cannot decide).

    A symbolic proof carries its ``chain``: a :class:`attnbounds.theory.proof.ChainCheck`,
    every step of which the kernel checked. A certify method's ``status=True`` carries its
    ``certificate``, issued by an interval routine of :mod:`attnbounds.numerics.intervals`
    (without one it is no certificate: the engine does not count it). ``steps``, ``checked``
    and ``rules`` summarise
    it; a chain with an unchecked (argued) step can not back ``status=True``; use
    :meth:`from_chain`, which sets the status from the check.
    """

    status: bool | None
    detail: str
    counterexample: Instance | None = None
    lhs: float | None = None
    rhs: float | None = None
    chain: Any = None
    certificate: Any = None  # a certify method's interval certificate (attnbounds.numerics.intervals)

    def __post_init__(self):
        self.validate()

    def validate(self) -> "Proof":
        """Raise unless the proof is what it says: a chain that is a ChainCheck or an AllOf,
        complete and as :meth:`Chain.prove` returned it where the status is True. Run when the
        proof is built, and again by the verdict layer when it reads the proof (a frozen
        dataclass can still be altered with ``object.__setattr__``)."""
        if self.chain is not None:
            from attnbounds.theory.proof import AllOf, ChainCheck, issued

            if not isinstance(self.chain, (ChainCheck, AllOf)):
                raise TypeError(f"chain: expected a ChainCheck or AllOf, got {type(self.chain).__name__}")
            if self.status is True and not self.chain.complete:
                raise ValueError(f"status: True needs a complete chain; {self.chain.first_failure}")
            if self.status is True and not issued(self.chain):
                raise ValueError("chain: not what Chain.prove returned (a ChainCheck built or altered by hand proves nothing)")
        return self

    @classmethod
    def from_chain(cls, chain, detail: str) -> "Proof":
        """``status=True`` when every step is checked and the chain reaches the goal, else
        None with the detail marked "argued", the premises its context assumes
        (:class:`~attnbounds.theory.proof.Assumed`, argued in prose) and the first unchecked
        step named."""
        if chain.complete:
            return cls(True, f"{detail} [{chain.summary()}]", chain=chain)
        assumed = getattr(chain, "assumed", {})
        premises = f"; assumed, not checked: {', '.join(assumed)}" if assumed else ""
        return cls(None, f"argued: {detail} [{chain.summary()}{premises}; {chain.first_failure}]", chain=chain)

    @property
    def steps(self) -> int:
        """Number of steps of the chain (0 without one)."""
        return self.chain.steps if self.chain is not None else 0

    @property
    def checked(self) -> int:
        """Number of steps the kernel checked (0 without a chain)."""
        return self.chain.checked if self.chain is not None else 0

    @property
    def substeps(self) -> int:
        """The count of checked sub-steps (the steps of the sub-chains carried by the
        checked steps, each checked inside its step; 0 without a chain)."""
        return self.chain.substeps if self.chain is not None else 0

    @property
    def rules(self) -> tuple[str, ...]:
        """Names of the rules the chain's steps use, in order of first use."""
        return self.chain.rules if self.chain is not None else ()

    @property
    def argued(self) -> bool:
        """True when the proof has a chain that is not completely checked."""
        return self.chain is not None and not self.chain.complete


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo judgement of a probabilistic statement ``lhs <relation> rhs``.

    ``lhs_ci``/``rhs_ci`` are confidence intervals at level ``confidence``; a side that is
    computed exactly has a degenerate interval ``(v, v)``. ``instance`` describes what was
    simulated, so that a violation can be reported as a counterexample.
    """

    lhs: float
    lhs_ci: tuple[float, float]
    rhs: float
    rhs_ci: tuple[float, float]
    samples: int
    confidence: float
    instance: Instance = field(default_factory=dict)
    detail: str = ""


@dataclass(frozen=True)
class Hypothesis:
    """A named hypothesis of a claim.

    ``check`` decides it on an instance (or returns a boolean array on a batch). It is used
    under ``--normalizer`` and for the drop rows; it does not filter the instances a
    reading's methods draw (``Reading.assume`` does).
    ``drop`` exhibits why it is needed: a counterexample to the claim's conclusion in a
    setting where only this hypothesis fails (a :class:`Proof` with ``status=False``).
    ``admits`` decides it for a whole normalizer (see :meth:`holds_for`).
    ``names`` are the names this hypothesis has in the contexts of the proof chains (e.g.
    ``"r<=xi"`` for Theorem 2's r <= ξ_i), so that the mutation tests judge dropping it there by ``drop``.
    ``readings`` are the readings it is a hypothesis of (empty: every reading of the claim);
    a row under a normalizer reports it broken only for those.
    """

    name: str
    statement: str
    check: Callable[[Instance], Any] | None = None
    drop: Callable[[], Proof] | None = None
    admits: Callable[[Any], bool | None] | None = None
    names: tuple[str, ...] = ()
    readings: tuple[str, ...] = ()

    def applies_to(self, reading: str) -> bool:
        """Whether this is a hypothesis of ``reading`` (every reading when ``readings`` is empty)."""
        return not self.readings or reading in self.readings

    def holds_for(self, normalizer) -> bool | None:
        """Whether every output of ``normalizer`` satisfies this hypothesis (None: unknown).

        Decided by ``admits(normalizer)``, a predicate on the normalizer's metadata
        (``sums_to_one``, ``depends_on_length``, ``sparse``, ``positive``, ...).
        """
        if self.admits is None:
            return None
        got = self.admits(normalizer)
        return None if got is None else bool(got)


class MissingKeyError(KeyError):
    """An instance given to ``Reading.sides`` lacks a key; the message names the expected keys."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class _NamedSides:
    """A reading's ``sides``, unchanged except that a missing instance key is reported with
    the keys the reading's instances have (a bare ``KeyError: 'T'`` says neither)."""

    def __init__(self, func, reading: str, sweep=None):
        self.__wrapped__ = func
        self._reading = reading
        self._sweep = sweep

    def __call__(self, instance):
        try:
            return self.__wrapped__(instance)
        except KeyError as exc:
            key = exc.args[0] if len(exc.args) == 1 else None
            if isinstance(exc, MissingKeyError) or not isinstance(instance, Mapping) or key in instance:
                raise
            raise MissingKeyError(
                f"reading {self._reading!r}: the instance has no key {key!r}; {self._expected()} "
                f"(given: {', '.join(map(repr, instance)) or 'none'})"
            ) from None

    def _expected(self) -> str:
        if self._sweep is not None:
            try:
                keys = list(self._sweep(np.random.default_rng(0), 1))
            except Exception:  # noqa: BLE001 -- only the message depends on it
                keys = []
            if keys:
                return f"its instances have the keys {', '.join(map(repr, keys))}"
        return "see the reading's strategy for the keys of its instances"

    def __getattr__(self, name):  # markers set on the function (e.g. draws_weights) stay visible
        if name == "__wrapped__":
            raise AttributeError(name)
        return getattr(self.__wrapped__, name)

    def __eq__(self, other):
        return isinstance(other, _NamedSides) and self.__wrapped__ == other.__wrapped__

    def __hash__(self):
        return hash(self.__wrapped__)

    def __repr__(self) -> str:
        return f"<sides of reading {self._reading!r}: {self.__wrapped__!r}>"


_INFINITE = {"oo": "oo", "+oo": "oo", "inf": "oo", "+inf": "oo", "-oo": "-oo", "-inf": "-oo"}


def _domain_end(reading: str, k: int, value) -> str:
    """One end of a ``domain`` coordinate as a string: an exact rational (``"1/3"``) or ``"oo"`` /
    ``"-oo"`` for an unbounded end (a float infinity, SymPy's ``oo``, or the strings)."""
    from attnbounds.numerics.intervals import as_rational

    text = str(value).strip().lower() if isinstance(value, str) or type(value).__name__ in (
        "Infinity", "NegativeInfinity") else None
    if text in _INFINITE:
        return _INFINITE[text]
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "oo" if value > 0 else "-oo"
    try:
        return str(as_rational(value, "end"))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"reading {reading!r}: domain: coordinate {k}'s end {value!r} is neither an exact "
                         f"number ({exc}) nor 'oo' / '-oo'") from None


def _domain_box(reading: str, domain) -> tuple:
    """``domain`` as a tuple of ``(lo, hi)`` strings (:attr:`Reading.domain`), checked."""
    if isinstance(domain, (str, bytes)) or not hasattr(domain, "__iter__"):
        raise TypeError(f"reading {reading!r}: domain: expected a sequence of (lo, hi) pairs, one per coordinate of "
                        f"the certificate's box, got {type(domain).__name__}")
    box = []
    for k, pair in enumerate(domain):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"reading {reading!r}: domain: coordinate {k} must be a pair (lo, hi), got {pair!r}")
        lo, hi = (_domain_end(reading, k, v) for v in pair)
        if lo == "oo" or hi == "-oo" or (_end_value(lo) > _end_value(hi)):
            raise ValueError(f"reading {reading!r}: domain: coordinate {k} is empty ([{lo}, {hi}])")
        box.append((lo, hi))
    if not box:
        raise ValueError(f"reading {reading!r}: domain: needs at least one coordinate")
    return tuple(box)


def _end_value(end: str):
    """A domain end as a number for ordering: a Fraction, or ±inf."""
    from fractions import Fraction

    return {"oo": float("inf"), "-oo": float("-inf")}.get(end) or Fraction(end)


def _domain_text(domain) -> str:
    """A domain (or a certificate's box) as text: ``[0, 4] x [1/2, oo)``."""
    return " x ".join(f"{'(' if lo == '-oo' else '['}{lo}, {hi}{')' if hi == 'oo' else ']'}" for lo, hi in domain)


def _domain_within(domain, box) -> bool:
    """Whether ``domain`` (ends as :attr:`Reading.domain` keeps them) lies in ``box`` (exact ends, a
    certificate's), coordinate by coordinate, compared exactly."""
    return len(domain) == len(box) and all(
        _end_value(str(blo)) <= _end_value(lo) and _end_value(hi) <= _end_value(str(bhi))
        for (lo, hi), (blo, bhi) in zip(domain, box))


def _normalizer_spec(reading: str, normalizer) -> str:
    """The spec of ``Reading.normalizer`` (a name, a spec or a normalizer object), checked: an
    error naming ``normalizer`` otherwise (``NormalizerNotFound``, a ``ValueError``, for a name
    that does not resolve; ``TypeError`` for a value of the wrong kind)."""
    from attnbounds.claims.normalized import lookup, resolve
    from attnbounds.numerics import normalizers as nz

    where = f"reading {reading!r}: normalizer"
    if isinstance(normalizer, str):
        with nz.for_argument(where):  # NormalizerNotFound (a ValueError) for a name that does not resolve
            return lookup(normalizer).spec  # a spec a reading was posed under, or one get resolves
    if isinstance(normalizer, nz.Normalizer):
        return resolve(normalizer).spec  # remembered by its spec, so that instances naming it resolve
    raise TypeError(f"{where}: expected a normalizer name or spec (str) or a Normalizer, got {type(normalizer).__name__}")


@dataclass(frozen=True)
class Reading:
    """One precise reading of a claim, with every method that can judge it.

    ``name``, ``statement`` (plain text) and ``latex`` say what it claims: ``lhs <relation>
    rhs`` (``relation``: ``"<="``, ``">="`` or ``"=="``) for every instance, an instance being
    a dict of named numbers and arrays. The methods, each optional:

    * ``sides(instance) -> Sides(lhs, rhs)``: the two sides, numerically (also on a batch,
      with the batch axis first); every search below needs it;
    * ``strategy()``: a Hypothesis strategy of instances, for the counterexample search;
    * ``sweep(rng, count)``: a seeded batch of ``count`` instances;
    * ``montecarlo(rng, samples) -> Estimate``: for a statement about a mean or probability;
    * ``symbolic() -> Proof``: a proof, ``Proof.from_chain(chain.prove(...), text)`` with the
      kernel of :mod:`attnbounds.theory.proof`; ``certify() -> Proof``: interval arithmetic;
    * ``bind(instance) -> {symbol: value}``: the values of the proof's goal symbols at an
      instance (a number per symbol, a sequence per indexed base or function, read from index
      1; a function the goal applies to real arguments, numpy callables ``(F, F')``; a goal
      about means and probabilities is evaluated on a finite space the bind builds, under the
      key :data:`SPACE`, with witnesses of the context's facts under :data:`WITNESSES`), so that
      the engine checks that the chain proves this reading's sides (:mod:`attnbounds.engine.tie`);
      needs ``symbolic`` and ``sweep``. At an instance whose setting has no finite space (a
      continuous law), it raises :class:`NoFiniteSpace` and the tie passes the instance over;
    * ``locate(instance) -> point``: the point of a ``certify`` method's certificate box that an
      instance is (one number per coordinate of the box, in its order), so that the engine
      checks at the reading's instances that each lies in its domain and that the certified
      f(x) − bound is the reading's lhs − rhs there (:func:`attnbounds.engine.tie.certificate_tie`);
      needs ``certify``, ``sweep`` and ``domain``. Without it a certificate ties to nothing, and
      the verdict is never ``certified``;
    * ``domain``: the reading's stated domain in ``locate``'s coordinates, a sequence of
      ``(lo, hi)`` pairs, one per coordinate of the certificate's box, each end an exact number
      (an int, a ``Fraction``, a string like ``"1/3"``, a float at its exact binary value) or
      ``"-oo"`` / ``"oo"`` (a float infinity or SymPy's ``oo`` too) for an unbounded end;
      needs ``locate``. It is what the statement is about, not what the sweep draws: a
      certificate is ``certified`` only when its box contains the whole domain (compared
      exactly), and every instance the sweep and strategy draw inside the reading's hypotheses
      must lie in it (else the tie raises: the reading draws outside its own statement) and,
      together, spread over it (near both ends of each coordinate, with no wide gap: else the
      tie is ``undersampled``). Kept as ``(lo, hi)`` strings (``"oo"`` for an unbounded end);
    * ``assume(instance) -> bool``: the reading's own hypotheses (instances outside are not
      judged).

    ``rtol``/``atol`` are the rounding slack of a numeric comparison (never a tolerance on the
    mathematics); ``note`` is shown with the row; ``normalizer`` names the normalizer the
    reading is about, when it is one other than softmax: anything
    :func:`attnbounds.numerics.normalizers.get` resolves (a registered name, ``"name(key=value)"``,
    ``"module:object"``, an entry point, or a normalizer object). It is checked when the reading
    is made (a name that does not resolve raises a ``ValueError`` naming ``normalizer``), kept as
    the normalizer's :attr:`~attnbounds.numerics.normalizers.Normalizer.spec`, and recorded in
    the reading's row (``row.normalizer``). Sides marked with
    :func:`~attnbounds.claims.normalized.draws_weights` are judged under it: every instance of
    ``strategy`` and ``sweep`` names this one (in place of any it names itself), so
    :func:`~attnbounds.claims.normalized.weights_of` and
    :func:`~attnbounds.claims.normalized.jacobian_of` compute its weights
    (:func:`~attnbounds.claims.normalized.own_normalizer`). Other sides compute their weights
    themselves, and the name labels the reading. :meth:`under` sets it to the normalizer the
    reading is posed under.
    """

    name: str
    statement: str
    latex: str
    relation: str = "<="
    symbolic: Callable[[], Proof] | None = None
    certify: Callable[[], Proof] | None = None
    strategy: Callable[[], Any] | None = None
    sides: Callable[[Instance], Sides] | None = None
    sweep: Callable[[np.random.Generator, int], Instance] | None = None
    montecarlo: Callable[[np.random.Generator, int], Estimate] | None = None
    rtol: float = 1e-9
    atol: float = 1e-12
    note: str = ""
    normalizer: Any = None  # str | Normalizer | None; a str (its spec) once made
    assume: Callable[[Instance], Any] | None = None
    bind: Callable[[Instance], dict] | None = None
    locate: Callable[[Instance], Any] | None = None
    domain: Any = None  # a sequence of (lo, hi) pairs; a tuple of (str, str) once made

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ValueError(f"relation: must be one of {RELATIONS}, got {self.relation!r}")
        if (self.strategy is not None or self.sweep is not None) and self.sides is None:
            raise ValueError(f"reading {self.name!r}: strategy/sweep need a `sides` evaluator")
        if self.bind is not None and (self.symbolic is None or self.sweep is None):
            raise ValueError(f"reading {self.name!r}: bind ties a symbolic proof's goal to the sides at the sweep's "
                             "instances; it needs both `symbolic` and `sweep`")
        if self.locate is not None and (self.certify is None or self.sweep is None):
            raise ValueError(f"reading {self.name!r}: locate ties a certificate's box to the sides at the sweep's "
                             "instances; it needs both `certify` and `sweep`")
        if (self.locate is None) != (self.domain is None):
            raise ValueError(f"reading {self.name!r}: locate and domain go together: domain states, in locate's "
                             "coordinates, the box of points the reading is about (a certificate must contain it)")
        if self.domain is not None:
            object.__setattr__(self, "domain", _domain_box(self.name, self.domain))
        for name, cap in (("rtol", MAX_RTOL), ("atol", MAX_ATOL)):  # rounding slack, not a tolerance on the
            # mathematics: an rtol of 1 made x <= 1/2 `hold` on [0, 1] (review 46); the tie caps them alike
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= cap:
                raise ValueError(f"reading {self.name!r}: {name}: the rounding slack of a numeric comparison, a number "
                                 f"in [0, {cap:g}], got {value!r}; a tolerance the statement allows belongs in its sides")
        if self.assume is not None and not callable(self.assume):
            raise TypeError(f"assume: expected a callable (instance -> bool), got {type(self.assume).__name__}")
        for name, shape in (("symbolic", "() -> Proof"), ("certify", "() -> Proof"), ("strategy", "() -> a Hypothesis strategy"),
                            ("sides", "instance -> Sides"), ("sweep", "(rng, count) -> instances"),
                            ("montecarlo", "(rng, samples) -> Estimate"), ("bind", "instance -> {symbol: value}"),
                            ("locate", "instance -> a point of the certificate's box")):
            got = getattr(self, name)
            if got is not None and not callable(got):
                hint = " (pass a function returning the strategy, not the strategy itself)" if name == "strategy" else ""
                raise TypeError(f"reading {self.name!r}: {name}: expected a callable {shape}, got "
                                f"{type(got).__name__}{hint}")
        if self.normalizer is not None:
            object.__setattr__(self, "normalizer", _normalizer_spec(self.name, self.normalizer))
        if self.sides is not None and not isinstance(self.sides, _NamedSides):
            object.__setattr__(self, "sides", _NamedSides(self.sides, self.name, self.sweep))
        if self.sides is not None:  # sides that draw their weights compute the named normalizer's
            from attnbounds.claims.normalized import own_normalizer

            strategy, sweep = own_normalizer(self.strategy, self.sweep, self.sides, self.normalizer)
            object.__setattr__(self, "strategy", strategy)
            object.__setattr__(self, "sweep", sweep)

    @property
    def methods(self) -> tuple[str, ...]:
        names = ("symbolic", "certify", "strategy", "sweep", "montecarlo")
        return tuple(n for n in names if getattr(self, n) is not None)

    def inside(self, instance: Instance, size: int | None = None):
        """Whether ``instance`` meets this reading's own hypotheses (``assume``; True without
        one): one bool, or for a batch of ``size`` instances one bool per instance.

        >>> r = Reading("r", "-", "-", assume=lambda i: np.asarray(i["R"]) >= 1)
        >>> r.inside({"R": 2.0}), r.inside({"R": np.array([0.5, 3.0])}, size=2).tolist()
        (True, [False, True])
        """
        if self.assume is None:
            return True if size is None else np.ones(size, dtype=bool)
        ok = np.asarray(self.assume(instance), dtype=bool)
        if size is None:
            return bool(np.all(ok))
        if ok.ndim == 0:
            return np.full(size, bool(ok))
        if ok.shape[0] != size:
            raise ValueError(f"assume: returned shape {ok.shape} for a batch of {size} instance(s)")
        return ok.reshape(size, -1).all(axis=1)

    def under(self, normalizer) -> "Reading":
        """This reading with its attention weights drawn through ``normalizer``.

        ``normalizer`` is anything :func:`attnbounds.numerics.normalizers.get` resolves (a
        name, ``"module:object"``, an entry point or a normalizer object). The instances of
        ``strategy`` and ``sweep`` are mapped by
        :func:`attnbounds.claims.normalized.reweigh`; the same ``sides`` then judge them.
        The exact methods and Monte Carlo are dropped: they are about the claim's own
        normalizer. Raises :class:`~attnbounds.claims.normalized.NotApplicable` when the
        reading's instances do not say where the weights come from.

        ``sides`` itself evaluates an instance as given: one made by hand, which names no
        normalizer, is judged under softmax. Map it first with
        :func:`attnbounds.claims.normalized.reweigh` (as ``strategy`` and ``sweep`` do).
        """
        from attnbounds.claims.normalized import under

        return under(self, normalizer)


def subset_instances(batch: Instance, keep) -> Instance:
    """The instances of a ``sweep`` batch where ``keep`` is True (every array value masked
    along its batch axis; scalars shared).

    >>> subset_instances({"x": np.array([1.0, 2.0, 3.0]), "n": 1}, np.array([True, False, True]))
    {'x': array([1., 3.]), 'n': 1}
    """
    keep = np.asarray(keep, dtype=bool)
    return {k: (v[keep] if isinstance(v, np.ndarray) and v.ndim >= 1 else v) for k, v in batch.items()}


MAX_RTOL = 1e-6  # the largest rounding slack a reading may give (relative, and absolute below)
MAX_ATOL = 1e-9


def holds_relation(sides: Sides, relation: str, rtol: float = 1e-9, atol: float = 1e-12):
    """Elementwise truth of ``lhs <relation> rhs`` up to floating-point slack.

    The slack ``atol + rtol·max(|lhs|, |rhs|)`` only absorbs rounding of the evaluator; it
    is never a tolerance on the mathematics.

    >>> bool(holds_relation(Sides(1.0, 1.0 + 1e-15), "<="))
    True
    >>> bool(holds_relation(Sides(1.1, 1.0), "<="))
    False
    """
    lhs = np.asarray(sides.lhs, dtype=float)
    rhs = np.asarray(sides.rhs, dtype=float)
    slack = atol + rtol * np.maximum(np.abs(lhs), np.abs(rhs))
    if relation == "<=":
        return lhs <= rhs + slack
    if relation == ">=":
        return lhs >= rhs - slack
    if relation == "==":
        return np.abs(lhs - rhs) <= slack
    raise ValueError(f"relation: must be one of {RELATIONS}, got {relation!r}")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper: statement, hypotheses, readings, symbolic form and proof.

    ``symbolic_form`` returns the claim's formulas as SymPy expressions (keyed by name);
    ``derivations`` names entries of :data:`attnbounds.theory.DERIVATIONS`; ``proof`` is the
    proof text (the defining module's docstring, in MyST Markdown with ``$...$`` math).
    ``paper`` is the namespace of the
    qualified id ``"<paper>:<id>"`` (default: the package's paper for claims of
    :mod:`attnbounds.claims`, ``"user"`` elsewhere; see :mod:`attnbounds.claims.registry`);
    ``order`` is the claim's place in its paper, which sets the listing order.
    """

    id: str
    title: str
    source: str
    statement: str
    transcription: str
    transcription_latex: str
    hypotheses: tuple[Hypothesis, ...]
    readings: tuple[Reading, ...]
    proof: str
    symbolic_form: Callable[[], Mapping[str, Any]] | None = None
    derivations: tuple[str, ...] = ()
    paper: str | None = None
    order: float | None = None

    def __post_init__(self):
        names = [r.name for r in self.readings]
        for needed in ("transcribed", "reconstructed"):
            if needed not in names:
                raise ValueError(f"claim {self.id}: missing the {needed!r} reading")
        if len(set(names)) != len(names):
            raise ValueError(f"claim {self.id}: duplicate reading names {names}")
        for h in self.hypotheses:
            unknown = sorted(set(h.readings) - set(names))
            if unknown:
                raise ValueError(f"claim {self.id}: hypothesis {h.name!r} names no reading {unknown}; readings: {names}")
        if not isinstance(self.id, str) or not self.id or ":" in self.id:
            raise ValueError(f"id: a claim id is a non-empty string without ':', got {self.id!r}")
        if self.paper is not None and (not isinstance(self.paper, str) or not self.paper or ":" in self.paper):
            raise ValueError(f"paper: a paper id is a non-empty string without ':', got {self.paper!r}")

    def reading(self, name: str) -> Reading:
        for r in self.readings:
            if r.name == name:
                return r
        valid = ", ".join(f"{self.id}:{r.name}" for r in self.readings)
        raise KeyError(f"unknown reading {self.id}:{name}; valid: {valid}")

    @property
    def reading_ids(self) -> tuple[str, ...]:
        return tuple(f"{self.id}:{r.name}" for r in self.readings)

    def to_dict(self) -> dict:
        """A JSON-ready description (no callables)."""
        return {
            "id": self.id,
            "paper": self.paper,
            "title": self.title,
            "source": self.source,
            "statement": self.statement,
            "transcription": self.transcription,
            "transcription_latex": self.transcription_latex,
            "hypotheses": [{"name": h.name, "statement": h.statement} for h in self.hypotheses],
            "readings": [
                {
                    "id": f"{self.id}:{r.name}",
                    "name": r.name,
                    "statement": r.statement,
                    "latex": r.latex,
                    "relation": r.relation,
                    "methods": list(r.methods),
                    **({"domain": [list(pair) for pair in r.domain]} if r.domain is not None else {}),
                }
                for r in self.readings
            ],
            "derivations": list(self.derivations),
        }
