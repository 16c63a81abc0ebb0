"""How much work each method of the engine gets: :class:`Budget` and its two presets.

>>> budget_for(quick=True).sweep
10000
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from attnbounds.numerics.validation import check_count, check_seed

__all__ = ["Budget", "DEFAULT_BUDGET", "QUICK_BUDGET", "budget_for", "resolve_budget", "check_seed"]


@dataclass(frozen=True)
class Budget:
    """How much work each method gets.

    Parameters
    ----------
    examples : int
        Hypothesis ``max_examples`` per reading (>= 1).
    sweep : int
        Random instances the numpy sweep must evaluate before a reading can hold (>= 1).
    mc_samples : int
        Samples passed to ``reading.montecarlo(rng, samples)`` (>= 1).
    method_seconds : float
        Time limit per method (> 0). Hypothesis and the sweep stop drawing new instances
        when it is reached (the row then says the search was cut short and the reading
        cannot hold); exact methods and Monte Carlo are interrupted at ``method_seconds``
        (on the main thread of a POSIX process; elsewhere the limit is not enforced).
    """

    examples: int = 200
    sweep: int = 100_000
    mc_samples: int = 20_000
    method_seconds: float = 120.0

    def __post_init__(self):
        for name in ("examples", "sweep", "mc_samples"):
            value = getattr(self, name)
            check_count(value, name)
        s = self.method_seconds
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not (s > 0 and math.isfinite(s)):
            raise ValueError(f"method_seconds: must be a finite number > 0, got {s!r}")


#: The default run: 200 Hypothesis examples, 1e5 sweep instances, 2e4 Monte Carlo samples.
DEFAULT_BUDGET = Budget()
#: ``--quick``: enough to find the paper's counterexamples, bounded to stay fast.
QUICK_BUDGET = Budget(examples=30, sweep=10_000, mc_samples=2_000, method_seconds=8.0)


def budget_for(quick: bool = False, examples: int | None = None) -> Budget:
    """The default or quick budget, with ``examples`` overriding the Hypothesis count.

    >>> budget_for(quick=True, examples=5).examples
    5
    >>> budget_for(examples=0)
    Traceback (most recent call last):
    ...
    ValueError: examples: must be an integer >= 1, got 0
    """
    base = QUICK_BUDGET if quick else DEFAULT_BUDGET
    if examples is None:
        return base
    return replace(base, examples=examples)


def resolve_budget(budget: Budget | None, quick: bool, examples: int | None) -> Budget:
    """``budget`` (with ``examples`` overriding its Hypothesis count), or the preset for ``quick``."""
    if budget is not None:
        if not isinstance(budget, Budget):
            raise TypeError(f"budget: expected a Budget, got {type(budget).__name__}")
        if examples is not None:
            budget = replace(budget, examples=examples)
        return budget
    return budget_for(quick=quick, examples=examples)


