"""How much work each method of the engine gets: :class:`Budget` and its two presets.

A budget is counted in work (Hypothesis examples, sweep instances, Monte Carlo samples; an
exact method runs to completion), so a verdict is a function of the budget and the seed,
whatever the machine's load. Its only clock is ``time_limit``, a safety net whose firing
every row reports (``timed_out``).

>>> budget_for(quick=True).sweep
10000
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from attnbounds.numerics.validation import check_count, check_seed

__all__ = [
    "Budget", "DEFAULT_BUDGET", "QUICK_BUDGET", "HANG_GUARD_SECONDS", "PRESET", "budget_for", "resolve_budget",
    "check_seed",
]


@dataclass(frozen=True)
class Budget:
    """How much work each method gets, counted in work, never in seconds.

    The verdict is a function of the budget (and the seed): the same budget gives the same
    rows on a quiet machine and on a loaded one, apart from the timings.

    Parameters
    ----------
    examples : int
        Hypothesis ``max_examples`` per reading (>= 1).
    sweep : int
        Random instances the numpy sweep must evaluate before a reading can hold (>= 1).
    mc_samples : int
        Samples passed to ``reading.montecarlo(rng, samples)`` (>= 1).
    audit : int
        Random assignments per step of the step audit (>= 1): every step of a proof the kernel
        accepted is searched for a numeric counterexample under the context it was checked in
        (:mod:`attnbounds.engine.audit`); one found makes the symbolic method a conflict.
    time_limit : float or None
        A wall-clock **safety net** per method, in seconds (> 0), or None for none. It is
        not part of the budget of work: Hypothesis runs all its examples, the sweep all its
        instances, Monte Carlo all its samples, and an exact method (``symbolic``,
        ``certify``; SymPy's work cannot be counted) runs to completion, unless the method
        is still running after ``time_limit`` seconds. Then it is interrupted, and its row
        says so: ``timed_out`` lists the method, the evidence line starts with
        ``TIME LIMIT``, and the verdict is only what the finished methods support (a search
        cut short can never hold). Enforced by ``SIGALRM`` on the main thread of a POSIX
        process; elsewhere it is not enforced. The presets use a generous hang guard
        (:data:`HANG_GUARD_SECONDS`) that no method comes near on a working machine.
    """

    examples: int = 200
    sweep: int = 100_000
    mc_samples: int = 20_000
    audit: int = 1_200
    time_limit: float | None = None

    def __post_init__(self):
        for name in ("examples", "sweep", "mc_samples", "audit"):
            value = getattr(self, name)
            check_count(value, name)
        s = self.time_limit
        if s is not None and (
            isinstance(s, bool) or not isinstance(s, (int, float)) or not (s > 0 and math.isfinite(s))
        ):
            raise ValueError(f"time_limit: must be a finite number of seconds > 0, or None for no limit, got {s!r}")


#: The presets' wall-clock safety net per method: a hang guard, not a budget. The slowest
#: method of the default run takes about 26 s on a quiet machine (C2:bounded's sweep).
HANG_GUARD_SECONDS = 900.0
#: The default run: 200 Hypothesis examples, 1e5 sweep instances, 2e4 Monte Carlo samples.
DEFAULT_BUDGET = Budget(time_limit=HANG_GUARD_SECONDS)
#: ``--quick``: enough to find the paper's counterexamples, with less work to stay fast.
QUICK_BUDGET = Budget(examples=30, sweep=10_000, mc_samples=2_000, audit=400, time_limit=HANG_GUARD_SECONDS)


#: ``budget_for(time_limit=PRESET)``: keep the preset's safety net.
PRESET = "preset"


def budget_for(quick: bool = False, examples: int | None = None, time_limit: float | None | str = PRESET) -> Budget:
    """The default or quick budget, with ``examples`` overriding the Hypothesis count and
    ``time_limit`` the safety net (seconds, or None for none; default: the preset's).

    >>> budget_for(quick=True, examples=5).examples
    5
    >>> budget_for(time_limit=None).time_limit is None
    True
    >>> budget_for(examples=0)
    Traceback (most recent call last):
    ...
    ValueError: examples: must be an integer >= 1, got 0
    """
    base = QUICK_BUDGET if quick else DEFAULT_BUDGET
    if examples is not None:
        base = replace(base, examples=examples)
    if time_limit != PRESET:
        base = replace(base, time_limit=time_limit)
    return base


def resolve_budget(budget: Budget | None, quick: bool, examples: int | None) -> Budget:
    """``budget`` (with ``examples`` overriding its Hypothesis count), or the preset for ``quick``."""
    if budget is not None:
        if not isinstance(budget, Budget):
            raise TypeError(f"budget: expected a Budget, got {type(budget).__name__}")
        if examples is not None:
            budget = replace(budget, examples=examples)
        return budget
    return budget_for(quick=quick, examples=examples)


