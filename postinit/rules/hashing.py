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

Differences:

* ``ModelConfig`` hashes ``hf_config.to_json_string(use_diff=False)``, the full
  HuggingFace config with every transformers default, which postinit cannot
  reproduce. The stand-in is a sha256 over vLLM's scalar model factors plus the
  sorted JSON of the ``hf_config`` facts postinit holds: deterministic, and it
  changes when any of those facts changes, but it never equals vLLM's value. So
  the top-level hash matches vLLM's only when ``model_config`` is None.
* ``CompilationConfig``: vLLM inserts resolved pass *objects* into
  ``inductor_compile_config`` when ``inductor_passes`` is non-empty; their
  reprs are process-specific, here the configured dict is hashed as it is.
* ``additional_config`` objects with their own ``compute_hash`` are not
  modelled (the schema holds a dict).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from postinit.engine import thaw

__all__ = [
    "VLLM_VERSION",
    "cache_hash",
    "compilation_hash",
    "compile_debug_dump_path",
    "compute_hash",
    "hash_factor_paths",
    "lora_hash",
    "model_hash",
    "pad_for_cudagraph",
    "parallel_hash",
    "pass_config_uuid",
    "speculative_hash",
    "sub_hashes",
]

VLLM_VERSION = "0.11.1"
"""``vllm.__version__`` of the oracle the golden data was produced with (the seed runs on the 0.11.1 wheel)."""

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


def model_hash(state: Mapping[str, Any]) -> str:
    """A deterministic stand-in for ``ModelConfig.compute_hash`` (never vLLM's value; see the module docstring)."""
    factors: list[Any] = [_py(state[f"model_config.{n}"]) for n in _MODEL_FACTORS]
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
    factors: list[Any] = [VLLM_VERSION, state["env.VLLM_USE_V1"]]
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
