"""Empirical layer (torch + transformers): models, attention capture, text, experiments.

Importing this package does not import torch; the submodules do.
"""
