"""Numeric kernels (numpy/scipy), float64 by default, batched over leading dimensions."""

from attnbounds.numerics.attention import (  # noqa: F401
    context_vector,
    cumulative_distance,
    per_token_distance,
    selected_mass,
    softmax,
    softmax_jacobian,
    subset_cumulative_distance,
    top_n,
    top_n_mask,
)
