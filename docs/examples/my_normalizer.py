"""A user normalizer plugged into attnbounds, in the two supported forms.

Load either one by import path, e.g. ``attnbounds check --normalizer
docs.examples.my_normalizer:polynomial`` (from the repository root), or in Python::

    from attnbounds.numerics import normalizers
    N = normalizers.load("docs.examples.my_normalizer:polynomial")
    N.weights([0.0, 1.0, 2.0])

A package can also publish a normalizer as an entry point, in its ``pyproject.toml``::

    [project.entry-points."attnbounds.normalizers"]
    polynomial = "my_package.my_normalizer:polynomial"

and users load it by name: ``normalizers.load("polynomial")``.
"""

import numpy as np
import sympy as sp

from attnbounds.numerics import normalizers

# --- Form 1: a positive F(l) in SymPy -------------------------------------------------
# α_i = F(l_i) / Σ_j F(l_j). The Jacobian comes from sympy.diff; parameters (here p) are
# free symbols with defaults; the symbol ``n`` (if used) is the number of visible keys.
l, p = sp.symbols("l p", real=True)

polynomial = normalizers.from_sympy((1 + l**2) ** p + sp.exp(l), l, name="polynomial", p=2)


# --- Form 2: a numpy callable ---------------------------------------------------------
# Any function of z = logits / T (batched over leading axes) returning weights of the same
# shape. Without a Jacobian, attnbounds uses central finite differences; every output is
# checked (shape, finite, non-negative, rows summing to 1).
def relu_squared(z, eps=1e-3):
    """α ∝ max(z − max z + 1, 0)² + eps: a sparse-ish, always-positive weighting."""
    g = np.maximum(z - z.max(axis=-1, keepdims=True) + 1.0, 0.0) ** 2 + eps
    return g / g.sum(axis=-1, keepdims=True)


relu_squared_normalizer = normalizers.from_callable(relu_squared, name="relu_squared", params={"eps": 1e-3})
