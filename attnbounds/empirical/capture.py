"""Attention capture through transformers' ``AttentionInterface``.

(Contract shared by the capture code and the experiments; the capture functions are
filled in below this dataclass.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class AttentionCapture:
    """Attention from one forward pass over one window, for selected query rows.

    Shapes use: layers (Y), query heads (H), query rows kept (Q), window length (L),
    head dim (dh), model dim (dm). Arrays are float32 numpy on the CPU.
    """

    model: str
    causal: bool
    input_ids: np.ndarray  # (L,)
    query_positions: np.ndarray  # (Q,) positions of the kept query rows
    logits: np.ndarray  # (Y, H, Q, L) pre-softmax logits after scaling and masking (masked = -inf)
    weights: np.ndarray  # (Y, H, Q, L) attention weights (rows sum to 1 over visible keys)
    values: np.ndarray  # (Y, H, L, dh) per-head value vectors (GQA: expanded to query heads)
    keys: np.ndarray  # (Y, H, L, dh) per-head keys (after RoPE where the model has it)
    hidden: np.ndarray  # (Y, L, dm) each layer's input hidden states
