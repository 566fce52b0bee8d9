"""vLLM's ``compute_hash`` and two ``VllmConfig`` helpers, over a resolved flat state.

Not rules: plain functions of the final flat state (``Resolution.state``).

:func:`compute_hash` rebuilds ``VllmConfig.compute_hash()`` (reference §6):
``md5(str([vllm_factors]))[:10]`` where ``vllm_factors`` is vLLM's version,
``VLLM_USE_V1`` and one hash (or ``"None"``) per sub-config, in vLLM's order;
``kv_events_config`` and ``quant_config`` are not factors. The factor paths
agree with the schema's ``hash`` metadata (``PathSpace.info[path].extra["hash"]``),
which :func:`hash_factor_paths` lists.

Exact parity with real vLLM (checked against the oracle's ``sub_hashes``):

* ``CacheConfig`` md5, ``ParallelConfig`` sha256 (EPLB factors included when
  EPLB is on), ``CompilationConfig`` sha256 (§5.6, including
  ``PassConfig.uuid()``), the constant md5 of the factor-less configs
  (scheduler, device, load, structured outputs, observability, KV transfer),
  ``LoRAConfig`` (``lora_dtype`` rendered as the torch dtype vLLM resolved in
  step 5) and ``SpeculativeConfig``.

The ``ModelConfig`` factor hashes ``hf_config.to_json_string(use_diff=False)``, the
full HuggingFace config with every transformers default:

* with the optional ``hash`` extra (``transformers``, imported on first use and never
  at ``import postinit``), :func:`hf_config_json` rebuilds that JSON exactly as
  vLLM's ``get_config`` and the model hooks leave it, so :func:`model_hash` and
  :func:`compute_hash` are vLLM's values — measured against all 264 golden cases
  whose model is reproducible (``tests/rules/test_hashing.py::
  test_hash_equals_vllms_compute_hash``, transformers 4.57.1 as in the oracle). The
  JSON embeds transformers' version and defaults: the hash is that of a vLLM running
  with the same transformers;
* not reproducible, and a stand-in instead (:func:`model_hash_is_exact` is False),
  without transformers, for model types vLLM builds with its own config class
  (:data:`VLLM_CONFIG_CLASSES`: DeepSeek-V3/V3.2, Qwen3-Next, ...), for remote-code
  configs (``auto_map``) and for dict-valued ``hf_overrides``. The stand-in is a
  sha256 over vLLM's scalar model factors plus the sorted JSON of the ``hf_config``
  facts postinit holds: deterministic, it changes when any of those facts changes,
  but it never equals vLLM's value. Then the top-level hash equals vLLM's only when
  ``model_config`` is None.

Other limits:

* ``CompilationConfig``: vLLM inserts resolved pass *objects* into
  ``inductor_compile_config`` when ``inductor_passes`` is non-empty; their
  reprs are process-specific, here the configured dict is hashed as it is.
* ``additional_config`` objects with their own ``compute_hash`` are not
  modelled (the schema holds a dict).
"""

from __future__ import annotations

import contextlib
import copy
import enum
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from postinit.engine import thaw

__all__ = [
    "cache_hash",
    "compilation_hash",
    "compile_debug_dump_path",
    "compute_hash",
    "hash_factor_paths",
    "hash_inexact_reason",
    "hf_config_json",
    "lora_hash",
    "model_facts",
    "model_hash",
    "model_hash_is_exact",
    "pad_for_cudagraph",
    "parallel_hash",
    "pass_config_uuid",
    "set_disk_cache",
    "speculative_hash",
    "sub_hashes",
]


_CONSTANT = hashlib.md5(b"[]", usedforsecurity=False).hexdigest()
_PASS_FIELDS = (
    "enable_fusion",
    "enable_attn_fusion",
    "enable_noop",
    "enable_sequence_parallelism",
    "enable_async_tp",
    "enable_fi_allreduce_fusion",
    "fi_allreduce_fusion_max_token_num",
)
_MODEL_FACTORS = (
    "model",
    "dtype",
    "quantization",
    "revision",
    "code_revision",
    "max_model_len",
    "max_logprobs",
    "disable_sliding_window",
    "trust_remote_code",
    "generation_config",
    "model_impl",
    "override_generation_config",
    "rope_scaling",
    "rope_theta",
    "video_pruning_rate",
    "enable_prompt_embeds",
)
_TORCH_DTYPE_NAMES = {"half": "float16", "float": "float32"}


def _md5(factors: list[Any]) -> str:
    return hashlib.md5(str(factors).encode(), usedforsecurity=False).hexdigest()


def _sha256(factors: list[Any]) -> str:
    return hashlib.sha256(str(factors).encode()).hexdigest()


def _py(value: Any) -> Any:
    """The plain Python value vLLM would hold: lists and dicts, enums as their values."""
    value = thaw(value)
    if isinstance(value, enum.IntEnum):
        return int(value)
    if isinstance(value, dict):
        return {k: _py(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_py(v) for v in value]
    return value


def _present(state: Mapping[str, Any], sub: str) -> bool:
    return state.get(sub) is not None


def hash_factor_paths(prefix: str) -> tuple[str, ...]:
    """The flat paths under ``prefix`` whose schema metadata marks them as ``compute_hash`` factors."""
    from postinit.rules import paths

    space = paths()
    return tuple(
        p
        for p in sorted(space.paths)
        if p.startswith(prefix + ".") and space.info[p].extra.get("hash") is True
    )


def cache_hash(state: Mapping[str, Any]) -> str:
    """``CacheConfig.compute_hash``: md5 of cache_dtype, mamba_cache_dtype, mamba_ssm_cache_dtype."""
    names = ("cache_dtype", "mamba_cache_dtype", "mamba_ssm_cache_dtype")
    return _md5([state[f"cache_config.{n}"] for n in names])


def parallel_hash(state: Mapping[str, Any]) -> str:
    """``ParallelConfig.compute_hash``: sha256 of pp, tp, EP, dp, all2all backend, EPLB (+ its config)."""
    p = "parallel_config."
    factors: list[Any] = [
        state[p + "pipeline_parallel_size"],
        state[p + "tensor_parallel_size"],
        state[p + "enable_expert_parallel"],
        state[p + "data_parallel_size"],
        state[p + "all2all_backend"],
        state[p + "enable_eplb"],
    ]
    if state[p + "enable_eplb"]:
        e = p + "eplb_config."
        factors += [
            state[e + n]
            for n in ("log_balancedness", "window_size", "step_interval", "num_redundant_experts")
        ]
    return _sha256(factors)


def pass_config_uuid(state: Mapping[str, Any]) -> str:
    """``PassConfig.uuid()``: sha256 of the sorted-key JSON of every PassConfig field."""
    fields = {n: state[f"compilation_config.pass_config.{n}"] for n in _PASS_FIELDS}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()


def compilation_hash(state: Mapping[str, Any]) -> str:
    """``CompilationConfig.compute_hash`` (§5.6): sha256 of ``str`` of the factor list."""
    c = "compilation_config."
    factors = [
        _py(state[c + n])
        for n in (
            "mode",
            "backend",
            "custom_ops",
            "splitting_ops",
            "use_inductor",
            "use_inductor_graph_partition",
            "inductor_compile_config",
            "inductor_passes",
        )
    ]
    factors.append(pass_config_uuid(state))
    return _sha256(factors)


def _torch_dtype(name: str) -> str:
    return "torch." + _TORCH_DTYPE_NAMES.get(name, name)


class _Repr:
    """A factor whose ``repr`` is a fixed text (vLLM hashes a ``torch.dtype``, whose repr is ``torch.bfloat16``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def lora_hash(state: Mapping[str, Any]) -> str:
    """``LoRAConfig.compute_hash``; ``lora_dtype`` is the torch dtype step 5 resolved ("auto" = model dtype)."""
    lc = "lora_config."
    dtype = state[lc + "lora_dtype"]
    if dtype == "auto" and _present(state, "model_config"):
        dtype = state["model_config.dtype"]
    factors = [
        state[lc + "max_lora_rank"],
        state[lc + "max_loras"],
        state[lc + "fully_sharded_loras"],
        _Repr(_torch_dtype(str(dtype))) if dtype != "auto" else "auto",
        state[lc + "lora_extra_vocab_size"],
        state[lc + "lora_vocab_padding_size"],
    ]
    return _md5(factors)


def speculative_hash(state: Mapping[str, Any]) -> str:
    """``SpeculativeConfig.compute_hash``: md5 of ``[method == "eagle3"]``."""
    return _md5([state["speculative_config.method"] == "eagle3"])


@functools.cache
def _hf_paths() -> tuple[tuple[str, str], ...]:
    """(path, config.json key) of every ``model_config.hf_config.*`` path of the schema."""
    from postinit.rules import paths

    return tuple((p, p.removeprefix(_HF)) for p in paths().paths if p.startswith(_HF))


_HF = "model_config.hf_config."
_HT = "model_config.hf_text_config."

VLLM_CONFIG_CLASSES = frozenset({
    "chatglm", "deepseek_vl_v2", "deepseek_v3", "deepseek_v32", "flex_olmo", "kimi_vl", "Llama_Nemotron_Nano_VL",
    "RefinedWeb", "RefinedWebModel", "jais", "mlp_speculator", "medusa", "midashenglm", "eagle", "speculators",
    "nemotron", "olmo3", "ovis", "ultravox", "step3_vl", "step3_text", "qwen3_next", "lfm2_moe",
    "internvl_chat", "NVLM_D",
})
"""Model types whose HF config vLLM builds with its own config class (``_CONFIG_REGISTRY``) or with
special ``AutoConfig`` arguments (``_AUTO_CONFIG_KWARGS_OVERRIDES``) at d7fb10c57: postinit cannot
rebuild their ``to_json_string`` with transformers alone."""

_NOT_HF_ATTRIBUTES = frozenset({
    "st_max_seq_length", "st_do_lower_case", "st_pooling_type", "st_normalize", "tokenizer_model_max_length",
    "weights_dtype", "transformers_backend", "dir_json_files", "dir_checkpoint_has_lm_head",
})
"""Facts postinit keeps under ``hf_config`` that come from other files (sentence-transformers,
tokenizer, weights, the directory's listing), not attributes of vLLM's HF config object."""


def _patch_rope_scaling(config: Any) -> None:
    """vLLM's ``patch_rope_scaling``: legacy ``type`` -> ``rope_type``, ``su`` -> ``longrope``, ``mrope`` -> ``default``."""
    text = config.get_text_config()
    if text is not config:
        _patch_rope_scaling(text)
    rope = getattr(config, "rope_scaling", None)
    if rope is None:
        return
    if "rope_type" in rope and "type" in rope and rope["rope_type"] != rope["type"]:
        raise ValueError("conflicting rope_type and type")
    if "rope_type" not in rope and "type" in rope:
        rope["rope_type"] = rope["type"]
    if "rope_type" not in rope:
        raise ValueError("rope_scaling should have a 'rope_type' key")
    if rope["rope_type"] == "su":
        rope["rope_type"] = "longrope"
    elif rope["rope_type"] == "mrope":
        rope["rope_type"] = "default"


_UNSET: Any = object()
_GIVEN: ContextVar[Any] = ContextVar("postinit_hashing_model", default=_UNSET)
"""The model facts the resolution being hashed was built from (see :func:`model_facts`)."""


_FILES: ContextVar[bool] = ContextVar("postinit_hashing_files", default=True)
"""Whether the hash being computed may use the on-disk HF config JSON cache (see :func:`model_facts`)."""

_GIVEN_INPUT: ContextVar[tuple[frozenset[str], frozenset[str]]] = ContextVar(
    "postinit_hashing_given", default=(frozenset(), frozenset()))
"""The schema paths the request set, and the flags it gave that no schema field holds (see :func:`given`)."""


def given() -> tuple[frozenset[str], frozenset[str]]:
    """``(paths, extra)`` the request being hashed set: schema paths, and flag destinations no field holds.

    Some factors record whether an input was given rather than its value (vLLM 0.34.0's
    ``ParallelConfig._allow_auto_resolve_cp_interleave_size``: EngineArgs passes None for a flag not
    given). Empty outside :func:`model_facts`.
    """
    return _GIVEN_INPUT.get()


@contextlib.contextmanager
def model_facts(loaded: Any, *, allow_files: bool = True, paths: frozenset[str] = frozenset(),
                extra: frozenset[str] = frozenset()) -> Iterator[None]:
    """Hash with ``loaded`` (a :class:`~postinit.schema.loaders.model.LoadedModel`, or None) as the model's facts.

    ``Resolution.hash`` hashes inside this context with the facts its request was resolved from
    (a catalog entry, inline ``config_json``, or a local directory the caller allowed): no model
    file is read again, and a model the facts do not name has the stand-in hash. With
    ``allow_files=False`` (the request's own permission: the HTTP service) the on-disk cache of
    :func:`hf_config_json` is neither read nor written either. ``paths`` / ``extra``: what the request
    set (see :func:`given`). Outside this context the state-level
    functions (``compute_hash(state)``, ...) are library calls on a flat state: they read
    ``model_config.model`` as the library does (a local directory, else the catalog).
    """
    token, files, inputs = _GIVEN.set(loaded), _FILES.set(allow_files), _GIVEN_INPUT.set((paths, extra))
    try:
        yield
    finally:
        _GIVEN.reset(token)
        _FILES.reset(files)
        _GIVEN_INPUT.reset(inputs)


def _loaded(model: str) -> Any:
    """The model's facts: those of :func:`model_facts`, else a local directory (read every time) or a catalog id."""
    given = _GIVEN.get()
    if given is not _UNSET:
        return given if given is not None and given.name == model else None
    try:
        local = Path(model).expanduser().exists()
    except (OSError, ValueError):  # ENAMETOOLONG, a NUL byte, no home directory for ``~user``
        local = False
    if local:
        return _load(model)
    return _load_catalog(model)


def _load(model: str) -> Any:
    from postinit.errors import PostinitError
    from postinit.schema.loaders import load_model

    try:
        return load_model(model)
    except (PostinitError, OSError, ValueError):
        return None


@functools.lru_cache(maxsize=64)
def _load_catalog(model: str) -> Any:
    return _load(model)


def transformers_module() -> Any:
    """The installed ``transformers``, imported quietly (:func:`_transformers`), or None."""
    return _transformers()


def _transformers() -> Any:
    """The ``transformers`` module, imported on first use, or None when the optional extra is absent.

    Its import-time advice that no deep-learning framework is installed (4.x) or that PyTorch was
    not found (5.x) is filtered out (postinit only uses its configuration classes).
    """
    import logging

    quiet = logging.Filter()
    quiet.filter = lambda record: not any(  # type: ignore[method-assign]
        advice in str(record.msg) for advice in ("None of PyTorch, TensorFlow", "PyTorch was not found"))
    root = logging.getLogger("transformers")
    root.addFilter(quiet)
    try:
        import transformers
    except ImportError:
        return None
    finally:
        root.removeFilter(quiet)
    return transformers


@functools.lru_cache(maxsize=32)
def _base_hf_config(model: str, raw_json: str) -> Any:
    """``AutoConfig.from_pretrained(model)`` as vLLM calls it, from the config.json text ``raw_json``.

    Built as ``from_pretrained`` builds it from a local directory — the JSON read as a dict, the
    config class of its ``model_type`` (``CONFIG_MAPPING``), ``from_dict`` — without writing a
    temporary file. transformers' own log lines while building it (unrecognised rope keys, a
    value it cannot set, ...) are silenced.
    """
    transformers = _transformers()
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity(transformers.logging.CRITICAL + 10)
    try:
        config_dict = json.loads(raw_json)
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING

        model_type = config_dict.get("model_type")
        if not isinstance(model_type, str) or model_type not in CONFIG_MAPPING:
            raise ValueError(f"transformers {transformers.__version__} has no config class for model_type "
                             f"{model_type!r}")
        config = CONFIG_MAPPING[model_type].from_dict(config_dict)
    finally:
        transformers.logging.set_verbosity(verbosity)
    config._name_or_path = model
    return config


def _json_leaves(value: Any, transformers: Any) -> Any:
    """vLLM's ``json_map_leaves`` with its fallback leaf function (nested configs as dicts, others as str)."""
    if isinstance(value, dict):
        return {k: _json_leaves(v, transformers) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_leaves(v, transformers) for v in value]
    if isinstance(value, tuple):
        return tuple(_json_leaves(v, transformers) for v in value)
    return value.to_dict() if isinstance(value, transformers.PretrainedConfig) else str(value)


_SAME: dict[tuple[int, int], tuple[Any, Any, bool]] = {}
"""(id(value), id(fact)) -> (value, fact, whether they are the same JSON): the comparisons of
:func:`_same_fact`, kept with both objects so an id is never reused while its entry lives."""


def _same_fact(value: Any, fact: Any) -> bool:
    """Whether a final ``hf_config`` fact is the loaded one (``_py`` equal), remembered per pair of objects.

    A resolution's untouched facts are the loaded objects themselves or, for nested values, the same
    frozen copy in every resolution of the model, so the recursive comparison runs once per process.
    """
    if value is fact:
        return True
    if isinstance(value, (str, int, float)):  # bool and IntEnum are ints
        return bool(value == _py(fact))
    key = (id(value), id(fact))
    hit = _SAME.get(key)
    if hit is not None and hit[0] is value and hit[1] is fact:
        return hit[2]
    same = bool(_py(value) == _py(fact))
    if len(_SAME) >= 4096:
        _SAME.clear()
    _SAME[key] = (value, fact, same)
    return same


def _hf_plan(state: Mapping[str, Any], config_classes: frozenset[str] = VLLM_CONFIG_CLASSES,
             rope: bool = True) -> dict[str, Any] | str:
    """What :func:`hf_config_json` rebuilds, as plain JSON (no transformers needed), or why it cannot.

    ``config_classes``: the model types the version's vLLM builds with a config class of its own;
    ``rope``: whether the version has the ``--rope-scaling`` / ``--rope-theta`` overrides.
    """
    if not state.get("model_config"):
        return "no model_config"
    model = state["model_config.model"]
    loaded = _loaded(model) if isinstance(model, str) else None
    if loaded is None:
        return "the model's config.json is not available to the hash"
    raw = loaded.raw
    overrides = _py(state["model_config.hf_overrides"]) or {}
    model_type = raw.get("model_type")
    if model_type in config_classes:
        return (f"vLLM builds the HF config of model_type {model_type!r} with its own config class "
                "(vllm/transformers_utils/configs), which postinit does not rebuild")
    if "auto_map" in raw:
        return "the config.json names remote code (auto_map), which postinit never runs"
    quant = raw.get("quantization_config")
    if isinstance(quant, dict) and "producer" in quant:
        return ("the config.json's quantization_config is ModelOpt's hf_quant_config form (producer / quantization), "
                "which vLLM's quantization code rewrites and reads in place; postinit does not rebuild that object")
    kw = {k: v for k, v in overrides.items() if not isinstance(v, dict)}
    nested = {k: v for k, v in overrides.items() if isinstance(v, dict)}
    if rope and state["model_config.rope_scaling"]:
        kw["rope_scaling"] = _py(state["model_config.rope_scaling"])
    if rope and state["model_config.rope_theta"] is not None:
        kw["rope_theta"] = state["model_config.rope_theta"]
    # the HF attributes postinit's rules changed: final facts that differ from the loaded ones
    changed: dict[str, dict[str, Any]] = {"config": {}, "text": {}}
    for prefix, facts, target in ((_HF, loaded.hf_config, "config"), (_HT, loaded.hf_text_config, "text")):
        for _path, key in _hf_paths():
            if key in _NOT_HF_ATTRIBUTES or key in nested:  # a dict override is applied as vLLM applies it (above)
                continue
            value = state.get(prefix + key)
            if not _same_fact(value, facts.get(key)):
                changed[target][key] = _py(value)
    if state.get("model_config.disable_sliding_window"):
        # ModelConfig sets hf_text_config.sliding_window = None whether or not the config had one: an attribute
        # the JSON then shows (null) even for a model without a sliding window
        changed["text"]["sliding_window"] = None
    return {"model": model, "raw": raw, "overrides": kw, "nested": nested, "changed": changed}


def _build_hf_json(plan: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """Run ``plan`` through transformers (see :func:`hf_config_json`): ``(json, None)`` or ``(None, why not)``.

    Whatever transformers raises on the content (a value it cannot set, a property without a
    setter, a config class it refuses) means the HF config is not rebuilt: vLLM's own
    ``get_config`` would raise there too.
    """
    transformers = _transformers()
    if transformers is None:
        return None, _NO_TRANSFORMERS
    verbosity = transformers.logging.get_verbosity()
    try:
        config = copy.deepcopy(_base_hf_config(plan["model"], json.dumps(plan["raw"])))
        transformers.logging.set_verbosity(transformers.logging.CRITICAL + 10)
        if not config.architectures:
            from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

            if config.model_type in MODEL_MAPPING_NAMES:
                config.update({"architectures": [MODEL_MAPPING_NAMES[config.model_type]]})
        if plan["overrides"]:
            config.update(dict(plan["overrides"]))
        _patch_rope_scaling(config)
        for key, value in (plan.get("nested") or {}).items():  # ModelConfig._apply_dict_overrides, after the patch
            target = getattr(config, key, None)
            if isinstance(target, transformers.PretrainedConfig):
                _update_nested(target, copy.deepcopy(value))
            else:
                setattr(config, key, copy.deepcopy(value))
        text = config.get_text_config()
        for target, changed in ((config, plan["changed"]["config"]), (text, plan["changed"]["text"])):
            for key, value in changed.items():
                setattr(target, key, copy.deepcopy(value))
        try:
            out: str = config.to_json_string(use_diff=False)
        except TypeError:
            out = json.dumps(_json_leaves(config.to_dict(), transformers), indent=2, sort_keys=True) + "\n"
    except (RecursionError, MemoryError):
        raise
    except Exception as e:
        return None, f"transformers {transformers.__version__} cannot build this HF config ({_short(e)})"
    finally:
        transformers.logging.set_verbosity(verbosity)
    return out, None


def _update_nested(target: Any, updates: Mapping[str, Any]) -> None:
    """``ModelConfig._update_nested``: nested dicts / config objects take the update key by key."""
    for key, value in updates.items():
        if isinstance(value, dict):
            inner = target.get(key) if isinstance(target, dict) else getattr(target, key, None)
            if inner is not None and (isinstance(inner, dict) or hasattr(inner, "__dict__")):
                _update_nested(inner, value)
                continue
        if isinstance(target, dict):
            target[key] = value
        else:
            setattr(target, key, value)


def _short(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text[:160]}" if text else type(error).__name__


_NO_TRANSFORMERS = ("transformers is not installed: vLLM hashes the HF config JSON transformers builds; "
                    "install the hash extra (pip install 'postinit[hash]')")


@functools.cache
def _transformers_version() -> str | None:
    """The installed transformers' version, read from its metadata (no import) once per process, or None.

    Reading the metadata costs ~1.3 ms (an email-header parse of METADATA): per request it was
    most of a service answer's time.
    """
    import importlib.metadata

    try:
        return importlib.metadata.version("transformers")
    except importlib.metadata.PackageNotFoundError:
        return None


def _cache_dir() -> Path:
    # the directory the engine caches phase orders in (engine._rulebook.order_cache_dir)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "postinit" / "hf-json"


MEMO_ENTRIES = 256
"""In-process results kept (least recently used dropped first)."""
MEMO_BYTES = 64 << 20
"""Characters of HF config JSON kept in process altogether."""
DISK_ENTRIES = 512
"""Files kept in the on-disk cache (the oldest are removed when a write goes over)."""
DISK_ENTRY_BYTES = 1 << 20
"""A rebuilt HF config JSON larger than this is never written to disk."""

_MEMO: dict[str, tuple[str | None, str | None]] = {}
_MEMO_SIZE = [0]
_DISK = [True]


def set_disk_cache(enabled: bool) -> bool:
    """Whether :func:`hf_config_json` may use ``$XDG_CACHE_HOME/postinit/hf-json`` at all; returns the old setting.

    On by default: the library and the CLI use it (a warm ``postinit resolve`` then never imports
    transformers). A resolution that may not touch files (``allow_files=False``: every HTTP
    request) never uses it, whatever this setting.
    """
    old, _DISK[0] = _DISK[0], enabled
    return old


def _remember(key: str, entry: tuple[str | None, str | None]) -> None:
    size = len(entry[0] or "")
    if size > MEMO_BYTES:
        return
    _MEMO[key] = entry
    _MEMO_SIZE[0] += size
    while len(_MEMO) > MEMO_ENTRIES or _MEMO_SIZE[0] > MEMO_BYTES:
        oldest = next(iter(_MEMO))
        _MEMO_SIZE[0] -= len(_MEMO.pop(oldest)[0] or "")


def _hf_json(state: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(vLLM's HF config JSON, None)`` or ``(None, why it is not reproducible)``."""
    plan = _hf_plan(state)
    if isinstance(plan, str):
        return None, plan
    unfit = transformers_unfit(state)
    if unfit:
        return None, unfit
    return built(plan, _build_hf_json, _HF_JSON_FORMAT)


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:3])


def fits(requirement: str, version: str) -> bool:
    """Whether ``version`` satisfies ``requirement``, a comma-separated list of ``>=``, ``>``, ``<=``, ``<``, ``==``."""
    have = _release(version)
    for part in requirement.split(","):
        m = re.fullmatch(r"\s*(>=|<=|==|>|<)\s*([\w.]+)\s*", part)
        if m is None:
            raise ValueError(f"not a version requirement: {requirement!r}")
        op, want = m.group(1), _release(m.group(2))
        if not {">=": have >= want, "<=": have <= want, "==": have == want, ">": have > want,
                "<": have < want}[op]:
            return False
    return True


def transformers_unfit(state: Mapping[str, Any]) -> str | None:
    """Why the installed transformers cannot give the modelled vLLM's HF config JSON (None when it can).

    The JSON embeds transformers' version and its defaults: postinit's hash is that of the modelled
    vLLM running beside the installed transformers, which exists only when the version fits the
    wheel's requirement (``version.transformers``).
    """
    version = _transformers_version()
    if version is None:
        return _NO_TRANSFORMERS
    requirement = str(state.get("version.transformers") or "")
    if requirement and not fits(requirement, version):
        return (f"vLLM {state.get('version.vllm_version')} runs with transformers {requirement}; transformers "
                f"{version} is installed, whose HF config JSON (a hash factor) differs")
    return None


def built(plan: Mapping[str, Any], build: Any, fmt: Any) -> tuple[str | None, str | None]:
    """``build(plan)`` (``(text, None)`` or ``(None, why not)``) through the process memo and the disk cache.

    ``fmt`` names the builder and its version in the cache key (a version of vLLM whose HF config
    JSON is built otherwise passes its own), with the installed transformers' version and the plan.
    """
    version = _transformers_version()
    if version is None:
        return None, _NO_TRANSFORMERS
    key = hashlib.sha256(json.dumps([fmt, version, plan], sort_keys=True, default=str).encode()).hexdigest()
    hit = _MEMO.pop(key, None)
    if hit is not None:
        _MEMO[key] = hit  # most recently used last
        return hit
    file = _cache_dir() / f"{key}.json"
    entry: tuple[str | None, str | None] | None = None
    disk = _DISK[0] and _FILES.get()
    if disk:
        try:
            cached = json.loads(file.read_text(encoding="utf-8"))
            if cached["key"] == key and isinstance(cached["json"], str):
                entry = (cached["json"], None)
        except (OSError, ValueError, KeyError, TypeError):  # missing, damaged or foreign: build again
            pass
    if entry is None:
        entry = build(plan)
        if entry[0] is not None and disk and len(entry[0]) <= DISK_ENTRY_BYTES:
            _write_cache(file, key, entry[0])
    _remember(key, entry)
    return entry


def hf_config_json(state: Mapping[str, Any]) -> str | None:
    """vLLM's ``hf_config.to_json_string(use_diff=False)`` for the resolved state, or None when not reproducible.

    Needs the optional ``transformers`` package (imported on first use, never at ``import
    postinit``). Rebuilds the HF config object as vLLM's ``get_config`` does —
    ``AutoConfig.from_pretrained`` on the model's config.json (the facts the request was resolved
    from, see :func:`model_facts`; ``_name_or_path`` is the model as given), the architectures
    default, ``hf_overrides`` (scalar values), the ``--rope-scaling`` / ``--rope-theta`` overrides,
    ``patch_rope_scaling`` — and then sets every HF attribute postinit's rules changed (the final
    ``model_config.hf_config.*`` / ``hf_text_config.*`` facts that differ from the loaded ones: model
    hooks such as rotary_kwargs, is_causal, num_labels, a cleared sliding window).

    None (not reproducible; :func:`hash_inexact_reason` says why) without transformers, without the
    model's config.json, for model types vLLM builds with its own config class
    (:data:`VLLM_CONFIG_CLASSES`), for remote-code configs (``auto_map``: postinit never executes a
    model's code), for dict-valued ``hf_overrides`` and for content transformers refuses.

    The JSON embeds transformers' version and defaults, so it is vLLM's for a vLLM running with the
    same transformers. Results are kept per process (at most :data:`MEMO_ENTRIES` entries and
    :data:`MEMO_BYTES` characters) and, unless :func:`set_disk_cache` turned it off, in
    ``$XDG_CACHE_HOME/postinit/hf-json`` (keyed by that version and everything above; at most
    :data:`DISK_ENTRIES` files of :data:`DISK_ENTRY_BYTES` each), so a warm ``postinit resolve`` does
    not import transformers; deleting the directory is always safe.
    """
    return _hf_json(state)[0]


def hash_inexact_reason(state: Mapping[str, Any]) -> str | None:
    """Why :func:`compute_hash` is not vLLM's value for ``state`` (None when it is).

    The hash is vLLM's exactly when there is no ``model_config`` or when its HF config JSON is
    reproducible (:func:`hf_config_json`); otherwise the ModelConfig factor is postinit's stand-in.
    """
    if not state.get("model_config"):
        return None
    return _hf_json(state)[1]


_HF_JSON_FORMAT = 2
"""Bump when :func:`_build_hf_json` changes: old cache entries are then never read."""


def _write_cache(file: Path, key: str, text: str) -> None:
    import tempfile

    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=file.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps({"key": key, "json": text}))
        os.replace(tmp, file)  # atomic
        _prune(file.parent)
    except OSError:  # an unwritable cache only means building again
        pass


def _prune(directory: Path) -> None:
    """Keep at most :data:`DISK_ENTRIES` cache files: the least recently written go first."""
    entries = [e for e in os.scandir(directory) if e.name.endswith(".json") and e.is_file()]
    if len(entries) <= DISK_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for e in entries[: len(entries) - DISK_ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(e.path)


def model_hash_is_exact(state: Mapping[str, Any]) -> bool:
    """True when :func:`model_hash` is vLLM's ``ModelConfig.compute_hash()`` (see :func:`hf_config_json`)."""
    return bool(state.get("model_config")) and hf_config_json(state) is not None


def model_hash(state: Mapping[str, Any]) -> str:
    """``ModelConfig.compute_hash``: sha256 of vLLM's scalar model factors and the HF config JSON.

    Exact (vLLM's value) when :func:`hf_config_json` can rebuild the HF config JSON (the
    ``transformers`` extra is installed and the model is reproducible); otherwise a
    deterministic stand-in whose last factor is the sorted JSON of the ``hf_config`` facts
    postinit holds: it changes when any of them changes, but never equals vLLM's value.
    """
    factors: list[Any] = [_py(state[f"model_config.{n}"]) for n in _MODEL_FACTORS]
    exact = hf_config_json(state)
    if exact is not None:
        factors[1] = _Repr(_torch_dtype(str(factors[1])))  # vLLM hashes the torch.dtype (repr torch.bfloat16)
        factors.append(exact)
        return _sha256(factors)
    hf = {key: _py(v) for path, key in _hf_paths() if (v := state.get(path)) is not None}
    factors.append(json.dumps(hf, sort_keys=True, default=str))
    return _sha256(factors)


def sub_hashes(state: Mapping[str, Any]) -> dict[str, str | None]:
    """Each sub-config's ``compute_hash()`` (None when absent), keyed like the oracle's ``sub_hashes``."""

    def opt(sub: str, value: str) -> str | None:
        return value if _present(state, sub) else None

    return {
        "model_config": model_hash(state) if _present(state, "model_config") else None,
        "cache_config": cache_hash(state),
        "parallel_config": parallel_hash(state),
        "scheduler_config": _CONSTANT,
        "device_config": _CONSTANT,
        "load_config": _CONSTANT,
        "lora_config": lora_hash(state) if _present(state, "lora_config") else None,
        "speculative_config": speculative_hash(state)
        if _present(state, "speculative_config")
        else None,
        "structured_outputs_config": _CONSTANT,
        "observability_config": opt("observability_config", _CONSTANT),
        "compilation_config": compilation_hash(state),
        "kv_transfer_config": opt("kv_transfer_config", _CONSTANT),
        "kv_events_config": None,  # not a factor; vLLM gives KVEventsConfig no compute_hash
    }


def compute_hash(state: Mapping[str, Any]) -> str:
    """``VllmConfig.compute_hash()``: ``md5(str([vllm_factors]))[:10]`` (§6)."""
    subs = sub_hashes(state)
    factors: list[Any] = [state["version.vllm_version"], state["env.VLLM_USE_V1"]]
    for sub in (
        "model_config",
        "cache_config",
        "parallel_config",
        "scheduler_config",
        "device_config",
        "load_config",
    ):
        factors.append(subs[sub] or "None")
    if subs["lora_config"] is not None:
        factors.append(subs["lora_config"])
        factors.append(str(state["scheduler_config.max_num_batched_tokens"]))
    else:
        factors.append("None")
    for sub in (
        "speculative_config",
        "structured_outputs_config",
        "observability_config",
        "compilation_config",
        "kv_transfer_config",
    ):
        factors.append(subs[sub] or "None")
    extra = _py(state["additional_config"])
    if extra:
        factors.append(
            hashlib.md5(
                json.dumps(extra, sort_keys=True).encode(), usedforsecurity=False
            ).hexdigest()
        )
    else:
        factors.append("None")
    return _md5([factors])[:10]


def pad_for_cudagraph(state: Mapping[str, Any], batch_size: int) -> int:
    """``VllmConfig.pad_for_cudagraph``: the captured size a batch is padded to.

    Raises IndexError above ``max_cudagraph_capture_size`` and TypeError where
    the padding table was never built (non-CUDA/ROCm platforms, I3), as vLLM does.
    """
    table = state["compilation_config.bs_to_padded_graph_size"]
    if table is None:
        raise TypeError("'NoneType' object is not subscriptable")
    size: int = table[batch_size]
    return size


def compile_debug_dump_path(state: Mapping[str, Any]) -> str | None:
    """``VllmConfig.compile_debug_dump_path``: ``<dump>/rank_<rank>`` (``_dp_<dp rank>`` when DP > 1)."""
    dump = state["compilation_config.debug_dump_path"]
    if dump is None:
        return None
    rank = state["parallel_config.rank"]
    if state["parallel_config.data_parallel_size"] == 1:
        leaf = f"rank_{rank}"
    else:
        leaf = f"rank_{rank}_dp_{state['parallel_config.data_parallel_rank']}"
    return f"{str(dump).rstrip('/') or '/'}/{leaf}".replace("//", "/")
