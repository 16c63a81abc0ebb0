"""Theory layer: SymPy closed forms and exact proofs, one module per topic.

Importing this package registers every derivation in
:data:`attnbounds.theory.derivation.DERIVATIONS`, in the order `attnbounds derive` lists
them.
"""

# Import order is the listing order: L1/C1, T1/C2, T2, L2, H1.
from attnbounds.theory import normalization  # noqa: F401, I001
from attnbounds.theory import distance  # noqa: F401
from attnbounds.theory import separability  # noqa: F401
from attnbounds.theory import jacobian  # noqa: F401
from attnbounds.theory import coverage  # noqa: F401
from attnbounds.theory.derivation import DERIVATIONS, Result, is_identity  # noqa: F401
