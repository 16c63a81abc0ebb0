"""attnbounds: a checker for theorems about attention.

Layers, each depending only on those before it:

* :mod:`attnbounds.theory` -- SymPy: closed forms and exact proofs;
* :mod:`attnbounds.numerics` -- numpy/scipy kernels, Monte Carlo, interval certificates;
* :mod:`attnbounds.empirical` -- torch/transformers: attention captured from real models.

On top sit :mod:`attnbounds.strategies` (public Hypothesis strategies),
:mod:`attnbounds.claims` (one object per claim of the paper), :mod:`attnbounds.engine`
(the verdicts) and :mod:`attnbounds.cli`.
"""

__version__ = "0.1.0"
