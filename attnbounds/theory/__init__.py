"""Theory layer: SymPy closed forms and exact proofs, one module per topic.

Importing this package registers every derivation in
:data:`attnbounds.theory.derivation.DERIVATIONS`.
"""

import importlib

from attnbounds.theory.derivation import DERIVATIONS, Result, is_identity  # noqa: F401

# Topic modules, in the order `attnbounds derive` lists them.
_TOPICS = ("normalization", "distance", "separability", "jacobian")
for _name in _TOPICS:
    try:
        importlib.import_module(f"attnbounds.theory.{_name}")
    except ModuleNotFoundError as exc:  # a topic module still being written
        if exc.name != f"attnbounds.theory.{_name}":
            raise
