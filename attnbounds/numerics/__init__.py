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
from attnbounds.numerics.jacobian import (  # noqa: F401
    SoftmaxJacobianNorms,
    finite_difference_jacobian,
    largest_eigenvalue_diag_minus_outer,
    normalizer_jacobian,
    normalizer_weights,
    softmax_jacobian_norms,
)
from attnbounds.numerics.montecarlo import mean_ci, proportion_ci  # noqa: F401
from attnbounds.numerics.normalizers import Normalizer  # noqa: F401
from attnbounds.numerics.selection import (  # noqa: F401
    SelectionExpectation,
    random_selection_expectation,
    random_selection_main_term,
    separability,
)
from attnbounds.numerics.sampling import (  # noqa: F401
    gaussian_points,
    random_logits,
    random_simplex,
    sphere_points,
)
