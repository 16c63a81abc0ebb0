"""Empirical layer (torch + transformers): models, attention capture, text, experiments.

Importing this package does not import torch; the submodules do. :func:`load_model` is
exported lazily: the first access imports :mod:`attnbounds.empirical.models` (and torch).
"""

from __future__ import annotations

__all__ = ["load_model"]


def __getattr__(name: str):
    if name == "load_model":
        from attnbounds.empirical.models import load_model

        return load_model
    raise AttributeError(f"module 'attnbounds.empirical' has no attribute {name!r}")
