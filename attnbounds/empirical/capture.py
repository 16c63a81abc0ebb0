"""Attention capture through transformers' ``AttentionInterface``.

How attention is captured, in one place
---------------------------------------
Every attention layer of a transformers model calls
``ALL_ATTENTION_FUNCTIONS[config._attn_implementation](module, query, key, value,
attention_mask, scaling=...)``. :func:`capture_attention` registers
:func:`capturing_attention` under the name :data:`CAPTURE_IMPLEMENTATION` (together with
transformers' eager mask builder, so the layer receives the same additive causal/padding
mask as under ``"eager"``), switches the model to it for one forward pass, and switches
it back. :func:`capturing_attention`

1. runs the model's own eager attention (``eager_attention_forward`` of the model's
   module), so the forward pass is exactly the eager one;
2. recomputes, for the kept query rows only, the logits
   ``l = q kᵀ · scaling + mask`` (masked entries set to ``-inf``), the weights
   ``softmax(l)``, and keeps the per-head keys (after RoPE: the layer applies RoPE
   before calling the interface) and values (grouped-query attention: key/value head
   ``h // (H / H_kv)`` serves query head ``h``, as ``repeat_kv`` does).

The layer's input hidden states come from ``output_hidden_states`` (entry ``i`` is the
input of layer ``i``). Memory is O(Y·H·L·dh + Y·H·Q·L): no L×L map is kept.

Models covered: GPT-2 (Conv1D projections, scaling 1/√dh, causal), Llama-style
(SmolLM2: RoPE, grouped-query attention), BERT (MiniLM: bidirectional), Gemma 2 and 3 (logit
soft-capping where set, sliding windows through the mask). Each layer's last kept row is checked
against the weights the model's own eager attention returns; a model whose attention differs
(something the record does not reproduce) is refused.

Prefix equivalence: in a causal model, row ``P − 1`` of a window depends only on its
first ``P`` tokens, so one capture over L_max tokens with
``query_positions = [P − 1 for P in lengths]`` gives, through
:meth:`AttentionCapture.prefix`, what separate forward passes over each prefix give.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field, replace

import numpy as np

CAPTURE_IMPLEMENTATION = "attnbounds_capture"


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
    logits: np.ndarray | None  # (Y, H, Q, L) pre-softmax logits after scaling and masking (masked = -inf)
    weights: np.ndarray | None  # (Y, H, Q, L) attention weights (rows sum to 1 over visible keys)
    values: np.ndarray  # (Y, H, L, dh) per-head value vectors (GQA: expanded to query heads)
    keys: np.ndarray  # (Y, H, L, dh) per-head keys (after RoPE where the model has it)
    hidden: np.ndarray | None  # (Y, L, dm) each layer's input hidden states (None: not kept)
    queries: np.ndarray | None = None  # (Y, H, Q, dh) kept query vectors (after RoPE)
    scaling: np.ndarray | None = None  # (Y,) factor applied to q·k in each layer
    extra: dict = field(default_factory=dict)  # timings and other run facts

    @property
    def n_layers(self) -> int:
        return int(self.values.shape[0])

    @property
    def n_heads(self) -> int:
        return int(self.values.shape[1])

    @property
    def length(self) -> int:
        return int(self.input_ids.shape[0])

    def prefix(self, length: int) -> "AttentionCapture":
        """The capture a forward pass over the first ``length`` tokens would give.

        Valid for causal models only, and only for a kept row at position
        ``length − 1``; the result keeps that single row and truncates keys, values,
        hidden states and logits to ``length`` positions.
        """
        if not self.causal:
            raise ValueError(f"prefix: model {self.model!r} is bidirectional; a prefix needs its own forward pass")
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or not 1 <= length <= self.length:
            raise ValueError(f"length must be an int in [1, {self.length}], got {length!r}")
        rows = np.flatnonzero(self.query_positions == length - 1)
        if rows.size == 0:
            raise ValueError(
                f"length: no kept query row at position {length - 1} "
                f"(kept: {self.query_positions.tolist()}); pass it in query_positions"
            )
        r = slice(int(rows[0]), int(rows[0]) + 1)
        return replace(
            self,
            input_ids=self.input_ids[:length],
            query_positions=self.query_positions[r],
            logits=None if self.logits is None else self.logits[:, :, r, :length],
            weights=None if self.weights is None else self.weights[:, :, r, :length],
            values=self.values[:, :, :length],
            keys=self.keys[:, :, :length],
            hidden=None if self.hidden is None else self.hidden[:, :length],
            queries=None if self.queries is None else self.queries[:, :, r],
            extra=dict(self.extra),
        )


# --- the capture ---------------------------------------------------------------------


@dataclass
class _Recorder:
    """Per-layer records of one forward pass, appended in layer order."""

    rows: object  # torch.LongTensor (Q,) kept query positions
    layers: list = field(default_factory=list)
    fields: tuple = ("logits", "weights", "queries")  # per-row arrays kept
    on_layer: object = None  # called with (layer index, record) as each layer is recorded
    batch: bool = False  # keep every batch entry (arrays with a leading batch axis), not entry 0 only


_ACTIVE: _Recorder | None = None  # set only inside capture_attention's forward pass


def capturing_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """The ``AttentionInterface`` function: the model's eager attention, plus a record.

    Arguments are those transformers passes to every attention implementation:
    ``query`` (B, H, L, dh), ``key`` and ``value`` (B, H_kv, L, dh), ``attention_mask``
    additive (B, 1, L, L) or None.
    """
    output = _model_eager_attention(module)(
        module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs
    )  # (attn_output (B, L, H, dh), full weights (B, H, L, L)) — used for the forward only
    if _ACTIVE is not None:
        record = _record_rows(query, key, value, attention_mask, scaling, _ACTIVE.rows, _ACTIVE.fields, _ACTIVE.batch,
                              softcap=kwargs.get("softcap"))
        _check_against_eager(module, record, output, _ACTIVE.rows, len(_ACTIVE.layers))
        if _ACTIVE.on_layer is not None:  # streamed: the per-row arrays are used now and not kept
            _ACTIVE.on_layer(len(_ACTIVE.layers), record)
            record = {**record, "logits": None, "weights": None, "queries": None}
        _ACTIVE.layers.append(record)
    return output


def _check_against_eager(module, record, output, rows, layer: int) -> None:
    """The recorded logits of the last kept row must give the weights the model's own eager
    attention returned (``output[1]``): a model whose attention has something the record does not
    reproduce (a trial of a model with logit soft-capping got weights off by 0.8, silently) is
    refused by name. One row per layer: O(H·L)."""
    import torch

    eager = output[1] if isinstance(output, tuple) and len(output) > 1 else None
    got = record.get("logits")
    kind = "logits"
    if got is None:
        got, kind = record.get("weights"), "weights"
    if eager is None or got is None or not isinstance(eager, torch.Tensor) or eager.ndim != 4:
        return
    # (H, L): the last kept row, sliced before the float64 copy (the whole (H, Q, L) array in float64
    # was 100 MB a layer at L = 1024, about 2 s of a full gpt2-random run's forward)
    row = np.asarray((got[0] if got.ndim == 4 else got)[:, -1, :], dtype=np.float64)
    if kind == "logits":
        top = row.max(-1, keepdims=True)
        w = np.exp(row - np.where(np.isfinite(top), top, 0.0))
        w /= w.sum(-1, keepdims=True)
    else:
        w = row
    theirs = eager[0, :, int(rows[-1]), :].detach().to("cpu", torch.float64).numpy()  # (H, L)
    tol = max(1e-4, 16 * float(torch.finfo(eager.dtype).eps))
    gap = float(np.max(np.abs(w - theirs))) if w.shape == theirs.shape else float("inf")
    if not gap <= tol:
        raise RuntimeError(
            f"the attention recorded in layer {layer} ({type(module).__name__}) differs from the weights of the "
            f"model's own eager attention by {gap:.3g} (tolerance {tol:.1g}): this model's attention has something "
            "the capture does not reproduce (softmax(q·kᵀ·scaling + mask), with logit soft-capping where the layer "
            "passes softcap); its results would be wrong, so the run stops")


def _record_rows(query, key, value, attention_mask, scaling, rows, fields=("logits", "weights", "queries"),
                 batch: bool = False, softcap=None) -> dict:
    """Logits, weights, keys, values for the kept query rows of one layer (batch 0, or every
    batch entry with a leading batch axis when ``batch``). ``softcap``: the layer's logit
    soft-capping (Gemma 2: l = c·tanh(l/c) before the mask), as its eager attention applies it.

    ``fields`` names the per-row arrays to keep; the others are recorded as None (all rows
    of a long window: (H, L, L) float32 per array and layer).
    """
    import torch

    first = _every_in_batch if batch else _first_in_batch

    B, H, L, dh = query.shape  # query (B, H, L, dh)
    groups = H // key.shape[1]  # GQA: query heads per key/value head
    if scaling is None:
        scaling = dh**-0.5
    k = torch.repeat_interleave(key, groups, dim=1) if groups > 1 else key  # (B, H, L, dh), as repeat_kv
    v = torch.repeat_interleave(value, groups, dim=1) if groups > 1 else value  # (B, H, L, dh)
    every = rows.numel() == L and bool(torch.equal(rows, torch.arange(L, device=rows.device)))
    q = query if every else query[:, :, rows, :]  # (B, H, Q, dh); every row: no gathered copy
    # in place after the product: the same values as l = (q·k) · scaling, + mask, masked_fill,
    # without three more (B, H, Q, L) arrays (each a fresh mapping at L = 1024: its pages faulted in)
    logits = torch.matmul(q.float(), k.float().transpose(-1, -2))  # (B, H, Q, L)
    logits.mul_(scaling)  # l = q·k · scaling
    if softcap is not None:  # as the eager attention of Gemma 2: l/c, tanh, ·c (before the mask)
        logits.div_(softcap).tanh_().mul_(softcap)
    if attention_mask is not None:
        mask = attention_mask if every else attention_mask[..., rows, :]  # (B, 1, Q, L)
        if mask.dtype == torch.bool:
            visible = mask  # True = attend
        else:
            logits.add_(mask.float())  # additive mask, 0 where visible
            visible = mask > torch.finfo(mask.dtype).min / 2  # min(dtype) where hidden
        logits.masked_fill_(~visible, float("-inf"))  # (B, H, Q, L), hidden = -inf
    weights = torch.softmax(logits, dim=-1) if "weights" in fields else None  # (B, H, Q, L): α = softmax(l)
    return {
        "logits": first(logits) if "logits" in fields else None,  # (H, Q, L)
        "weights": first(weights) if weights is not None else None,  # (H, Q, L)
        "keys": first(k),  # (H, L, dh)
        "values": first(v),  # (H, L, dh)
        "queries": first(q) if "queries" in fields else None,  # (H, Q, dh)
        "scaling": float(scaling),
        "softcap": None if softcap is None else float(softcap),
        "mask_given": attention_mask is not None,
    }


def _every_in_batch(t) -> np.ndarray:
    """Every batch entry of a tensor, as float32 numpy on the CPU."""
    import torch

    return t.detach().to("cpu", torch.float32).numpy()


def _first_in_batch(t) -> np.ndarray:
    """Batch entry 0 of a tensor, as float32 numpy on the CPU."""
    import torch

    return t[0].detach().to("cpu", torch.float32).numpy()


def _model_eager_attention(module):
    """The eager attention function of the module's own model file (generic fallback)."""
    fn = getattr(sys.modules.get(type(module).__module__), "eager_attention_forward", None)
    return fn if fn is not None else _generic_eager_attention


def _generic_eager_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Eager attention as transformers writes it, for models without their own."""
    import torch

    groups = query.shape[1] // key.shape[1]
    key = torch.repeat_interleave(key, groups, dim=1)  # (B, H, L, dh)
    value = torch.repeat_interleave(value, groups, dim=1)  # (B, H, L, dh)
    scaling = query.shape[-1] ** -0.5 if scaling is None else scaling
    w = torch.matmul(query, key.transpose(-1, -2)) * scaling  # (B, H, L, L)
    if attention_mask is not None:
        w = w + attention_mask  # (B, H, L, L)
    w = torch.softmax(w, dim=-1, dtype=torch.float32).to(query.dtype)  # (B, H, L, L)
    w = torch.nn.functional.dropout(w, p=dropout, training=module.training)
    out = torch.matmul(w, value).transpose(1, 2).contiguous()  # (B, L, H, dh)
    return out, w


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(CAPTURE_IMPLEMENTATION, capturing_attention)
    AttentionMaskInterface.register(CAPTURE_IMPLEMENTATION, eager_mask)  # same additive mask as eager


@contextlib.contextmanager
def _capturing(model, rows, fields=("logits", "weights", "queries"), on_layer=None, batch=False):
    """Switch ``model`` to the capturing implementation for the duration of the block."""
    global _ACTIVE
    _register()
    previous = model.config._attn_implementation
    model.set_attn_implementation(CAPTURE_IMPLEMENTATION)
    _ACTIVE = _Recorder(rows=rows, fields=tuple(fields), on_layer=on_layer, batch=batch)
    try:
        yield _ACTIVE
    finally:
        _ACTIVE = None
        model.set_attn_implementation(previous)


def capture_attention(handle, input_ids, query_positions=None, fields=("logits", "weights", "queries"),
                      on_layer=None, hidden: bool = True) -> AttentionCapture:
    """One forward pass over one window; keep the attention of selected query rows.

    Parameters
    ----------
    handle : ModelHandle
        From :func:`attnbounds.empirical.models.load_model`.
    input_ids : array-like of int, shape (L,)
        Token ids of the window, 1 ≤ L ≤ ``handle.max_positions``.
    query_positions : array-like of int, shape (Q,), optional
        Query rows to keep, each in [0, L). Default ``[L - 1]``, the last position. For a
        causal model pass ``[P - 1 for P in lengths]`` to get every prefix length P from
        one pass (see :meth:`AttentionCapture.prefix`); for a bidirectional model a row
        sees the whole window, so each length needs its own pass.
    fields : tuple of str
        Per-row arrays to keep, a subset of ``("logits", "weights", "queries")``; the others
        are None in the result. The paper protocol keeps every row of a window and only the
        logits (weights are their softmax), which halves the memory.
    on_layer : callable, optional
        Streaming: ``on_layer(layer, record)`` is called inside the forward pass as each
        layer is recorded (``record`` holds ``logits``/``weights``/``queries`` (H, Q, L)
        as kept by ``fields``, and ``values``/``keys`` (H, L, dh)); those per-row arrays
        are then dropped, so the result has ``logits``, ``weights`` and ``queries`` None
        and the memory holds one layer's rows at a time.
    hidden : bool
        Keep the layers' input hidden states (``hidden``; default). False: the model does
        not return them and ``hidden`` is None (a streamed pass that reads values or keys
        saves (Y + 1) × L × dm floats twice: about 80 MB for GPT-2 small at L = 1024).

    Returns
    -------
    AttentionCapture
        float32 numpy arrays; logits/weights (Y, H, Q, L), keys/values (Y, H, L, dh),
        hidden (Y, L, dm).
    """
    import time

    import torch

    if not all(hasattr(handle, a) for a in ("model", "causal", "n_layers", "max_positions", "name")):
        raise ValueError(f"handle must be a ModelHandle from load_model, got {type(handle).__name__}")
    ids = _check_input_ids(input_ids, handle)
    L = ids.shape[0]
    positions = _check_query_positions(query_positions, L)
    model = handle.model
    device = next(model.parameters()).device
    fields = tuple(fields)
    if not fields or set(fields) - {"logits", "weights", "queries"}:
        raise ValueError(f"fields: must be a non-empty subset of logits, weights, queries, got {fields!r}")
    rows = torch.as_tensor(positions, dtype=torch.long, device=device)  # (Q,)
    batch = torch.as_tensor(ids, dtype=torch.long, device=device)[None]  # (1, L)
    kwargs = dict(output_hidden_states=bool(hidden), return_dict=True)
    if handle.causal:
        kwargs["use_cache"] = False
    else:
        kwargs["attention_mask"] = torch.ones_like(batch)  # (1, L): no padding
    start = time.perf_counter()
    with torch.no_grad(), _capturing(model, rows, fields, on_layer) as recorder:
        out = model.base_model(batch, **kwargs)  # the transformer without its LM head (L × vocab logits unused)
    seconds = time.perf_counter() - start

    records = recorder.layers
    if len(records) != handle.n_layers:
        raise RuntimeError(
            f"capture saw {len(records)} attention calls for a model with {handle.n_layers} layers; "
            f"{type(model).__name__} does not route all its attention through AttentionInterface"
        )
    if handle.causal and not all(r["mask_given"] for r in records):
        raise RuntimeError("causal model received no attention mask; the capture would not be causal")
    states = out.hidden_states if hidden else None  # tuple of Y + 1 tensors (1, L, dm); entry i is the input of layer i

    def stack(key: str):  # per-layer records → leading layer axis Y (None when not kept)
        return None if records[0][key] is None else np.stack([r[key] for r in records])

    return AttentionCapture(
        model=handle.name,
        causal=handle.causal,
        input_ids=ids,
        query_positions=positions,
        logits=stack("logits"),  # (Y, H, Q, L)
        weights=stack("weights"),  # (Y, H, Q, L)
        values=stack("values"),  # (Y, H, L, dh)
        keys=stack("keys"),  # (Y, H, L, dh)
        hidden=None if states is None else np.stack([_first_in_batch(h) for h in states[: handle.n_layers]]),  # (Y, L, dm)
        queries=stack("queries"),  # (Y, H, Q, dh)
        scaling=np.array([r["scaling"] for r in records], dtype=np.float32),  # (Y,)
        extra={"forward_seconds": seconds},
    )


def capture_batch(handle, input_ids, on_layer, hidden: bool = False):
    """One forward pass over a batch of S windows of L tokens each, every query row kept.

    ``input_ids`` (S, L) int; ``on_layer(layer, record)`` is called as each layer is
    recorded, with ``record["logits"]`` (S, H, L, L) float32 (−inf at hidden keys) and
    ``record["values"]``, ``record["keys"]`` (S, H, L, dh). Used by the paper protocol to
    give short lengths many windows in one cheap forward. Returns the layers' input hidden
    states (Y, S, L, dm) when ``hidden``, else None.
    """
    import torch

    ids = np.asarray(input_ids)
    if ids.ndim != 2 or ids.shape[0] < 1:
        raise ValueError(f"input_ids must be 2-D (S windows of L tokens), got shape {ids.shape}")
    for row in ids:
        _check_input_ids(row, handle)
    model = handle.model
    device = next(model.parameters()).device
    L = ids.shape[1]
    rows = torch.arange(L, dtype=torch.long, device=device)
    batch = torch.as_tensor(ids.astype(np.int64), dtype=torch.long, device=device)  # (S, L)
    kwargs = dict(output_hidden_states=hidden, return_dict=True)
    if handle.causal:
        kwargs["use_cache"] = False
    else:
        kwargs["attention_mask"] = torch.ones_like(batch)  # (S, L): no padding
    with torch.no_grad(), _capturing(model, rows, ("logits",), on_layer, batch=True) as recorder:
        out = model.base_model(batch, **kwargs)
    if len(recorder.layers) != handle.n_layers:
        raise RuntimeError(f"capture saw {len(recorder.layers)} attention calls for a model with {handle.n_layers} layers")
    if handle.causal and not all(r["mask_given"] for r in recorder.layers):
        raise RuntimeError("causal model received no attention mask; the capture would not be causal")
    if not hidden:
        return None
    return np.stack([_every_in_batch(h) for h in out.hidden_states[: handle.n_layers]])  # (Y, S, L, dm)


def _check_input_ids(input_ids, handle) -> np.ndarray:
    if hasattr(input_ids, "detach"):
        input_ids = input_ids.detach().cpu().numpy()
    ids = np.asarray(input_ids)
    if ids.ndim != 1:
        raise ValueError(f"input_ids must be 1-D (one window of L tokens), got shape {ids.shape}")
    if ids.size == 0:
        raise ValueError("input_ids must hold at least one token")
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"input_ids must be integers, got dtype {ids.dtype}")
    if ids.shape[0] > handle.max_positions:
        raise ValueError(f"input_ids has {ids.shape[0]} tokens; {handle.name} accepts at most {handle.max_positions}")
    vocab = handle.model.config.vocab_size
    if ids.min() < 0 or ids.max() >= vocab:
        tok = getattr(handle, "tokenizer", None)
        hint = (f": the tokenizer has {len(tok)} tokens and the model's embedding {vocab}, so the tokenizer is not "
                "the model's" if tok is not None and len(tok) > vocab else "")
        raise ValueError(f"input_ids must lie in [0, {vocab}), got range [{ids.min()}, {ids.max()}]{hint}")
    return ids.astype(np.int64)


def _check_query_positions(query_positions, L: int) -> np.ndarray:
    if query_positions is None:
        return np.array([L - 1], dtype=np.int64)
    pos = np.atleast_1d(np.asarray(query_positions))
    if pos.ndim != 1 or pos.size == 0:
        raise ValueError(f"query_positions must be a non-empty 1-D list of ints, got shape {pos.shape}")
    if not np.issubdtype(pos.dtype, np.integer):
        raise ValueError(f"query_positions must be integers, got dtype {pos.dtype}")
    if pos.min() < 0 or pos.max() >= L:
        raise ValueError(f"query_positions must lie in [0, {L}) for a window of L={L}, got {pos.tolist()}")
    return pos.astype(np.int64)
