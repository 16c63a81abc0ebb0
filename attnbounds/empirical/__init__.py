"""Empirical layer (torch + transformers): models, attention capture, text, experiments.

Importing this package does not import torch; the submodules do. :func:`load_model` is
exported lazily: the first access imports :mod:`attnbounds.empirical.models` (and torch).
"""

from __future__ import annotations

import os

__all__ = ["load_model"]

# torch's OpenMP threads spin-wait after each parallel region (libgomp's default). The
# metric passes alternate short torch calls with compiled numba kernels, whose own threads
# then compete with the spinning ones: measured on this project's 2-core machine, one E3
# pass over a gpt2-random layer at L = 1024 took 0.78 s of wall and CPU time with the
# default and 0.27 s wall (0.42 s CPU) with passive waiting. OpenMP reads the setting when
# torch is first imported, so it is set here, before any submodule imports torch; a value
# the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def __getattr__(name: str):
    if name == "load_model":
        from attnbounds.empirical.models import load_model

        return load_model
    raise AttributeError(f"module 'attnbounds.empirical' has no attribute {name!r}")
