"""vLLM 0.34.0's config hash: ``hash_factors(VllmConfig.compile_factors())``, over a resolved flat state.

0.34.0 has no ``compute_hash()``: a config's hash is the SHA-256 of the sorted-key JSON of its
``compile_factors()`` (``vllm/config/utils.py hash_factors``), and ``VllmConfig.compile_factors()``
(``vllm/config/vllm.py``) is a dict of every sub-config's own factors, the vLLM version, the
multimodal encoder's factors when it is compiled and ``additional_config``. A sub-config's factors
are, for most classes, every dataclass field but those its ``compile_factors`` ignores
(``get_compile_factors``), each through ``normalize_value``: enums that are not ints or strings as
``(qualified name, value)``, nested dataclasses as ``(qualified name, sorted (field, value))`` unless
they have factors of their own, mappings as sorted ``(key, value)`` pairs, a torch dtype as
``"torch.bfloat16"``, an HF config as its ``to_json_string()``.

What differs from the seed's and 0.11.1's ``compute_hash`` is data and a few functions here: the
factor fields of each class, the qualified names, the enum values and the IR-op implementation
hashes come from the wheel (``postinit/rules/data/hash-0.34.0.json``, written by
``tests/golden/oracle/hash_facts_0340.py``); :func:`compile_factors` assembles them from the flat
state. Every case of the 0.34.0 golden corpus that resolves carries the oracle's
``compile_factors``: ``tests/rules/test_hashing.py`` compares them key by key.

Exactness (:func:`inexact_reason` says why not, and every face shows it):

* the ModelConfig factor holds ``hf_config.to_json_string()`` and ``hf_text_config.to_json_string()``
  (transformers' diff against its defaults, with its version inside). 0.34.0 requires transformers
  ``>=5.16.1,<5.23.0``; postinit rebuilds the JSON exactly when such a transformers is installed
  (the hash is then that of a vLLM 0.34.0 running with it), and otherwise says so: the ``dev``
  extra pins transformers 4.57.1 for the seed's and 0.11.1's hashes, whose JSON 4.x writes
  differently (``torch_dtype`` for ``dtype``, every default, another version string);
* a speculative method with a draft model (EAGLE, MTP, draft models, ...) hashes the draft's own
  ModelConfig, which postinit does not model (n-gram and suffix decoding hash the target's);
* a ``quantization_config`` with the ``int4_per_group_32`` key, multimodal options postinit does not hold
  (``--limit-mm-per-prompt``, ...) and model types vLLM builds with its own config class.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from postinit.engine import thaw
from postinit.rules import hashing
from postinit.schema import online_quant

__all__ = [
    "FACTS",
    "compile_factors",
    "compute_hash",
    "hash_factors",
    "hf_config_jsons",
    "inexact_reason",
    "norm",
    "sub_hashes",
    "transformers_fits",
]

FACTS: Mapping[str, Any] = json.loads((Path(__file__).parent / "data" / "hash-0.34.0.json").read_text())
"""The wheel's facts (see the module docstring): factor fields, qualified names, enum values, IR-op uuids."""

_SUBS = (
    ("model", "model_config", "ModelConfig"),
    ("cache", "cache_config", "CacheConfig"),
    ("parallel", "parallel_config", "ParallelConfig"),
    ("scheduler", "scheduler_config", "SchedulerConfig"),
    ("device", "device_config", None),
    ("load", "load_config", None),
    ("offload", "offload_config", None),
    ("attention", "attention_config", "AttentionConfig"),
    ("engram", "engram_config", "EngramConfig"),
    ("lora", "lora_config", "LoRAConfig"),
    ("speculative", "speculative_config", "SpeculativeConfig"),
    ("structured_outputs", "structured_outputs_config", None),
    ("profiler", "profiler_config", None),
    ("observability", "observability_config", None),
    ("compilation", "compilation_config", "CompilationConfig"),
    ("kernel", "kernel_config", "KernelConfig"),
    ("kv_transfer", "kv_transfer_config", None),
    ("ec_transfer", "ec_transfer_config", None),
    ("aux_output", "aux_output_config", "AuxOutputConfig"),
)
"""``VllmConfig.compile_factors()``'s keys in its order: (key, sub-config, class whose fields are hashed;
None for the configs whose ``compile_factors()`` is ``{}``)."""

ALWAYS_PRESENT = frozenset({"cache_config", "parallel_config", "scheduler_config", "device_config", "load_config",
                            "offload_config", "attention_config", "structured_outputs_config", "profiler_config",
                            "observability_config", "compilation_config", "kernel_config", "aux_output_config"})
"""Sub-configs every 0.34.0 ``VllmConfig`` has (a default instance); the others are None unless given."""

SUB_HASH_KEYS = (
    "attention_config", "aux_output_config", "cache_config", "compilation_config", "device_config",
    "diffusion_config", "ec_manager_config", "ec_transfer_config", "engram_config", "kernel_config",
    "kv_events_config", "kv_transfer_config", "load_config", "logging_config", "lora_config", "mamba_config",
    "model_config", "observability_config", "offload_config", "parallel_config", "profiler_config",
    "reasoning_config", "scheduler_config", "speculative_config", "structured_outputs_config", "watchdog_config",
    "watermark_config", "weight_transfer_config",
)
"""The oracle's ``sub_hashes`` keys: every sub-config of 0.34.0's ``VllmConfig`` (None without ``compile_factors``)."""

_NESTED = {
    "parallel_config.eplb_config": "EPLBConfig",
    "parallel_config.fault_tolerance_config": "FaultToleranceConfig",
    "offload_config.uva": "UVAOffloadConfig",
    "offload_config.prefetch": "PrefetchOffloadConfig",
    "attention_config.hisparse_config": "HiSparseConfig",
}
"""Nested dataclasses without factors of their own: ``normalize_value`` hashes them as (qualified name, fields)."""

_ENUMS = {
    "compilation_config.cudagraph_mode": "CUDAGraphMode",
    "attention_config.backend": "AttentionBackendEnum",
    "attention_config.mla_prefill_backend": "MLAPrefillBackendEnum",
}
"""Factor fields holding an enum that is neither an int nor a str: hashed as (qualified name, value)."""

_DTYPES = frozenset({"model_config.dtype", "lora_config.lora_dtype"})
"""Factor fields holding a ``torch.dtype`` (hashed as its ``str``: ``torch.bfloat16``)."""

_NO_DRAFT = frozenset({"ngram", "ngram_gpu"})
"""Speculative methods without a draft model whose configure makes the target's ModelConfig the draft's
(``NgramSpeculatorConfig.configure``): no auxiliary hidden states, no speculator factors. Suffix decoding's
configure sets no draft config (None)."""

_SPECIAL_MODEL_TYPES = frozenset({"qwen3_asr", "moss_transcribe_diarize", "longcat_flash", "vlm", "speculators"})
"""Model types ``HFConfigParser.parse`` builds by a path of its own (vllm/transformers_utils/config.py)."""

_MULTIMODAL_NOT_HELD = ("limit_mm_per_prompt", "enable_mm_embeds", "language_model_only", "video_pruning_rate",
                        "mm_encoder_attn_backend", "mm_encoder_tp_mode", "mm_encoder_attn_dtype",
                        "mm_encoder_fp8_scale_path", "mm_device_do_normalize")
"""Multimodal options the ModelConfig factor reads (``language_model_only``, ``video_pruning``,
``mm_limit_per_prompt``, ``mm_enable_mm_embeds``; the encoder's factors) that postinit's
``multimodal_config`` may not hold when given as flags."""


def _fqn(name: str) -> str:
    return str(FACTS["classes"][name]["fqn"])


def _torch_dtype(name: Any) -> str:
    return "torch." + {"half": "float16", "float": "float32"}.get(str(name), str(name))


def norm(value: Any) -> Any:
    """``normalize_value`` of a flat-state value, as the JSON ``hash_factors`` dumps it.

    Mappings become sorted ``[key, value]`` pairs, sequences lists, sets the sorted ``repr`` of
    their items; an int or str enum is its value (``normalize_value`` returns ints and strings as
    they are, and JSON writes the value). Plain enums are tagged by the caller, which knows vLLM's
    class (:data:`_ENUMS`).
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return [[str(k), norm(v)] for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(_py_tuple(norm(v))) for v in value)
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    value = thaw(value)
    if isinstance(value, (list, dict)):
        return norm(value)
    raise TypeError(f"no JSON form for {type(value).__name__} {value!r}")


def _py_tuple(value: Any) -> Any:
    """The Python value ``normalize_value`` would hold (lists as tuples), for ``repr``."""
    return tuple(_py_tuple(v) for v in value) if isinstance(value, list) else value


def _enum(path: str, value: Any) -> Any:
    """A plain enum factor: ``[qualified name, value]`` (None stays None)."""
    if value is None:
        return None
    cls = _ENUMS[path]
    if cls == "CUDAGraphMode":
        raw = value.value if hasattr(value, "value") else value
        return [_fqn(cls), norm(raw)]
    name = getattr(value, "name", value)
    table = FACTS["enums"][cls]
    return [_fqn(cls), table.get(str(name).upper(), name)]


_SETS = frozenset({"offload_config.uva.cpu_offload_params", "offload_config.prefetch.offload_params"})
"""Fields vLLM types ``set[str]`` (vllm/config/offload.py) that postinit holds as lists: hashed as sets."""


def _as_held(path: str, value: Any) -> Any:
    """The value as vLLM's config holds it (a set for :data:`_SETS`)."""
    return frozenset(value or ()) if path in _SETS else value


def _value(state: Mapping[str, Any], path: str) -> Any:
    """The factor of one field: its value as ``normalize_value`` gives it."""
    if path in _NESTED:
        if state.get(path) is None and path == "attention_config.hisparse_config":
            return None
        cls = _NESTED[path]
        return [_fqn(cls), [[f, _number(state, f"{path}.{f}", cls, norm(_as_held(f"{path}.{f}", state[f"{path}.{f}"])))]
                            for f in sorted(FACTS["classes"][cls]["fields"])]]
    value = state.get(path)
    if path in _ENUMS:
        return _enum(path, value)
    if path in _DTYPES and value is not None and value != "auto":
        return _torch_dtype(value)
    if path == "attention_config.backend_per_kind":
        return [[str(k), _enum("attention_config.backend", v)] for k, v in sorted((value or {}).items())]
    return norm(value)


def _number(state: Mapping[str, Any], path: str, cls: str, value: Any) -> Any:
    """A ``float`` field whose default is an int literal holds the int until pydantic validates a value passed in:
    EngineArgs passes every field it has (argv mode), a config dict the fields it names. JSON tells 0 from 0.0."""
    if isinstance(value, int) and not isinstance(value, bool) and path.rsplit(".", 1)[1] in \
            FACTS["float_int_defaults"].get(cls, ()) and (state.get("usage.via_engine_args")
                                                         or path in hashing.given()[0]):
        return float(value)
    return value


def _fields(state: Mapping[str, Any], sub: str, cls: str) -> dict[str, Any]:
    return {f: _number(state, f"{sub}.{f}", cls, _value(state, f"{sub}.{f}")) for f in FACTS["factors"][cls]}


# --------------------------------------------------------------------------- per sub-config


def _model(state: Mapping[str, Any], hf: tuple[str, str] | None, prefix: str = "model_config") -> dict[str, Any]:
    out = _fields(state, prefix, "ModelConfig")
    out["dtype"] = _torch_dtype(state[f"{prefix}.dtype"])
    out["quantization_config"] = online_quant.config_factor(thaw(state.get(f"{prefix}.quantization_config")))
    hf_json, text_json = hf if hf is not None else _stand_in_hf(state)
    out["hf_config"], out["hf_text_config"] = hf_json, text_json
    mm = state.get(f"{prefix}.multimodal_config")
    if mm:
        mm = thaw(mm)
        limits = mm.get("limit_per_prompt") or {}
        out["language_model_only"] = bool(mm.get("language_model_only", False))
        rate = mm.get("video_pruning_rate")
        out["video_pruning"] = rate is not None and rate > 0
        # added after get_compile_factors: a plain dict, not normalize_value's pairs
        out["mm_limit_per_prompt"] = {str(k): v if isinstance(v, int) else v.get("count") for k, v in limits.items()}
        out["mm_enable_mm_embeds"] = bool(mm.get("enable_mm_embeds", False))
    return out


def _stand_in_hf(state: Mapping[str, Any]) -> tuple[str, str]:
    """postinit's stand-in for the two HF config JSONs: the sorted JSON of the facts it holds (never vLLM's)."""
    out = []
    for prefix in ("model_config.hf_config.", "model_config.hf_text_config."):
        facts = {p.removeprefix(prefix): hashing._py(v) for p, v in state.items()
                 if p.startswith(prefix) and v is not None}
        out.append("postinit stand-in " + json.dumps(facts, sort_keys=True, default=str))
    return out[0], out[1]


def _parallel(state: Mapping[str, Any]) -> dict[str, Any]:
    out = {f: _value(state, f"parallel_config.{f}") for f in FACTS["factors"]["ParallelConfig"]
           if not f.startswith("_")}
    out["_allow_auto_resolve_cp_interleave_size"] = not _given(state, "parallel_config.cp_kv_cache_interleave_size")
    return out


def _given(state: Mapping[str, Any], path: str) -> bool:
    """Whether ``vllm serve``/``LLM(...)`` set ``path`` from a flag (EngineArgs passes None for an unset one)."""
    return bool(state.get("usage.via_engine_args")) and path in hashing.given()[0]


def _lora(state: Mapping[str, Any]) -> dict[str, Any]:
    out = _fields(state, "lora_config", "LoRAConfig")
    dtype = state["lora_config.lora_dtype"]
    if dtype in (None, "auto") and state.get("model_config"):
        dtype = state["model_config.dtype"]  # LoRAConfig.verify_with_model_config: the model's torch dtype
    out["lora_dtype"] = _torch_dtype(dtype) if dtype not in (None, "auto") else dtype
    modules = state["lora_config.target_modules"]
    if modules is not None:
        out["target_modules"] = sorted(modules)
    return out


def _speculative(state: Mapping[str, Any], model: dict[str, Any]) -> dict[str, Any]:
    out = {f: _value(state, f"speculative_config.{f}") for f in FACTS["factors"]["SpeculativeConfig"]
           if f != "draft_model_config"}
    method = state["speculative_config.method"]
    out["draft_model_config"] = model if method in _NO_DRAFT else None
    # Eagle3SpeculatorConfig: the draft's eagle_config.use_aux_hidden_state, True unless a draft says otherwise
    # (postinit has no draft config); DFlash and its DSpark subclass always; hidden-state extraction
    out["uses_aux_hidden_states"] = method in ("extract_hidden_states", "eagle3", "dflash", "dspark")
    out["speculator"] = _speculator(state, method)
    # SpeculativeConfig.compile_factors (vllm/config/speculative.py:767-775): the auxiliary layers a draft checkpoint
    # names change the graph too
    draft = state.get("draft.hf_config") if state.get("draft.loaded") and method not in _NO_DRAFT else None
    layer_ids = (draft.get("other") or {}).get("eagle_aux_hidden_state_layer_ids") if draft else None
    if layer_ids is not None and out["uses_aux_hidden_states"]:
        out["aux_hidden_state_layer_ids"] = list(layer_ids)
    return out


def _speculator(state: Mapping[str, Any], method: Any) -> list[Any]:
    """``SpeculatorConfig.hash_factors()`` of the method's speculator class (vllm/v1/worker/gpu/spec_decode).

    MTP: the draft config's ``index_share_for_mtp_iteration`` (set from the speculative option, else
    False); DSpark: ``enable_adaptive_verification``; the others: none.
    """
    if method == "mtp":
        share = state.get("speculative_config.index_share_for_mtp_iteration")
        return [bool(share) if share is not None else False]
    if method == "dspark":
        return [state.get("speculative_config.enable_adaptive_verification")]
    return []


def _compilation(state: Mapping[str, Any]) -> dict[str, Any]:
    c = "compilation_config"
    out = _fields(state, c, "CompilationConfig")
    mode = state[f"{c}.mode"]
    out["mode"] = None if mode is None else int(mode)
    out["pass_config"] = _fields(state, f"{c}.pass_config", "PassConfig")
    out["dynamic_shapes_config"] = _fields(state, f"{c}.dynamic_shapes_config", "DynamicShapesConfig")
    return out


def _kernel(state: Mapping[str, Any]) -> dict[str, Any]:
    k = "kernel_config"
    out = _fields(state, k, "KernelConfig")
    priority = {op: norm(state[f"{k}.ir_op_priority.{op}"]) for op in FACTS["factors"]["IrOpPriorityConfig"]}
    impls = FACTS["ir_op_impls"]
    priority["_impls"] = {op: {p: impls.get(op, {}).get(p, f"<unknown provider {p}>") for p in providers}
                          for op, providers in priority.items()}
    out["ir_op_priority"] = priority
    per_quant = state.get(f"{k}.linear_backend_per_quant")
    if per_quant is not None:
        out["linear_backend_per_quant"] = norm(per_quant)
    return out


def _multimodal(state: Mapping[str, Any]) -> dict[str, Any]:
    mm = thaw(state["model_config.multimodal_config"]) or {}
    out = {f: norm(mm.get(f)) for f in FACTS["factors"]["MultiModalConfig"]}
    backend = mm.get("mm_encoder_attn_backend")
    if backend is not None:
        out["mm_encoder_attn_backend"] = [_fqn("AttentionBackendEnum"),
                                          FACTS["enums"]["AttentionBackendEnum"].get(str(backend).upper(), backend)]
    return out


# --------------------------------------------------------------------------- the hash


def _present(state: Mapping[str, Any], sub: str) -> bool:
    return sub in ALWAYS_PRESENT or state.get(sub) is not None


def compile_factors(state: Mapping[str, Any], hf: tuple[str, str] | None = None) -> dict[str, Any]:
    """``VllmConfig.compile_factors()`` of a resolved 0.34.0 state, as plain JSON values.

    ``hf``: the two HF config JSONs (``hf_config``, ``hf_text_config``) to hash; by default
    :func:`hf_config_jsons` (transformers in 0.34.0's range), else postinit's stand-in.
    """
    if hf is None and state.get("model_config"):
        hf = hf_config_jsons(state)
    factors: dict[str, Any] = {}
    model: dict[str, Any] = {}
    for key, sub, _cls in _SUBS:
        if not _present(state, sub):
            factors[key] = {}
            continue
        if key == "model":
            model = factors[key] = _model(state, hf)
        elif key == "parallel":
            factors[key] = _parallel(state)
        elif key == "lora":
            factors[key] = _lora(state)
        elif key == "speculative":
            factors[key] = _speculative(state, model)
        elif key == "compilation":
            factors[key] = _compilation(state)
        elif key == "kernel":
            factors[key] = _kernel(state)
        elif key == "offload":
            factors[key] = {"offload_backend": norm(state["offload_config.offload_backend"]),
                            "prefetch": _value(state, "offload_config.prefetch"),
                            "uva": _value(state, "offload_config.uva")}
        elif _cls is None:
            factors[key] = {}
        else:
            factors[key] = _fields(state, sub, _cls)
    factors["version"] = state["version.vllm_version"]
    if state.get("model_config") and state.get("model_config.multimodal_config") \
            and state["compilation_config.compile_mm_encoder"]:
        factors["multimodal"] = _multimodal(state)
    extra = hashing._py(state.get("additional_config"))
    if extra:
        factors["additional"] = extra
    return factors


def hash_factors(factors: Any) -> str:
    """``hash_factors``: the SHA-256 hex digest of the sorted-key JSON of a factor structure (vllm/config/utils.py)."""
    return hashlib.sha256(json.dumps(factors, sort_keys=True).encode()).hexdigest()


def compute_hash(state: Mapping[str, Any]) -> str:
    """``hash_factors(VllmConfig.compile_factors())``: the SHA-256 hex digest vLLM 0.34.0 gives the config."""
    return hash_factors(compile_factors(state))


def sub_hashes(state: Mapping[str, Any], hf: tuple[str, str] | None = None) -> dict[str, str | None]:
    """Each sub-config's ``hash_config`` (``hash_factors(compile_factors())``), keyed like the oracle's ``sub_hashes``:
    None for a sub-config that is absent or has no ``compile_factors``."""
    factors = compile_factors(state, hf)
    out: dict[str, str | None] = dict.fromkeys(SUB_HASH_KEYS)
    for key, sub, _cls in _SUBS:
        if _present(state, sub):
            out[sub] = hash_factors(factors[key])
    return out


# --------------------------------------------------------------------------- the HF config JSON


def transformers_fits(version: str | None = None) -> bool:
    """Whether the installed transformers (or ``version``) is one vLLM 0.34.0 runs with (``FACTS["transformers"]``)."""
    version = version or hashing._transformers_version()
    return version is not None and hashing.fits(FACTS["transformers"], version)


@functools.cache
def config_classes() -> frozenset[str]:
    """Model types 0.34.0 builds with a config class of its own or special ``AutoConfig`` arguments."""
    return frozenset(FACTS["config_classes"]) | _SPECIAL_MODEL_TYPES


def _plan(state: Mapping[str, Any]) -> dict[str, Any] | str:
    plan = hashing._hf_plan(state, config_classes(), rope=False)
    if isinstance(plan, str):
        return plan
    raw = plan["raw"]
    if raw.get("model_type") is None:
        return "the config.json has no model_type (vLLM 0.34.0 infers it from the architecture or speculators config)"
    rope = raw.get("rope_parameters") or {}
    if raw.get("model_type") == "gemma4_text" and "full_attention" in rope:
        return "vLLM 0.34.0 rebuilds gemma4_text's nested rope_parameters by a path of its own"
    return plan


def _patch_legacy_rope_type(params: Any) -> None:
    """vLLM 0.34.0's ``patch_legacy_rope_type``: legacy ``type`` -> ``rope_type``, ``su``/``mrope`` renamed."""
    if not isinstance(params, dict):
        return
    if "rope_type" not in params and "type" in params:
        params["rope_type"] = params["type"]
    if params.get("rope_type") == "su":
        params["rope_type"] = "longrope"
    elif params.get("rope_type") == "mrope" and "mrope_section" in params:
        params["rope_type"] = "default"


def _patch_rope_parameters(config: Any) -> None:
    """vLLM 0.34.0's ``patch_rope_parameters``: standardise and validate the RoPE parameters."""
    theta = next((getattr(config, n) for n in ("rope_theta", "rotary_emb_base") if getattr(config, n, None)
                  is not None), None)
    factor = next((getattr(config, n) for n in ("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction")
                   if getattr(config, n, None) is not None), None)
    if theta is None and not getattr(config, "rope_parameters", None):
        return
    if theta is not None:
        config.rope_theta = theta
    if factor is not None:
        config.partial_rotary_factor = factor
    params = getattr(config, "rope_parameters", None)
    if isinstance(params, dict) and params and set(params) <= _LAYER_TYPES:
        for p in params.values():
            _patch_legacy_rope_type(p)
    else:
        _patch_legacy_rope_type(params)
    config.standardize_rope_params()
    config.validate_rope()


_LAYER_TYPES = frozenset({"full_attention", "sliding_attention", "chunked_attention", "linear_attention",
                          "compressed_sparse_attention", "heavily_compressed_attention", "main", "compress"})


def _build(plan: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``get_config`` of 0.34.0 on the plan, then both JSONs: ``(json.dumps([hf, text]), None)`` or ``(None, why)``."""
    transformers = hashing._transformers()
    if transformers is None:
        return None, hashing._NO_TRANSFORMERS
    verbosity = transformers.logging.get_verbosity()
    try:
        config = copy.deepcopy(hashing._base_hf_config(plan["model"], json.dumps(plan["raw"])))
        transformers.logging.set_verbosity(transformers.logging.CRITICAL + 10)
        if not config.architectures:
            from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

            if config.model_type in MODEL_MAPPING_NAMES:
                config.update({"architectures": [MODEL_MAPPING_NAMES[config.model_type]]})
        if plan["raw"].get("quantization_config") is not None:
            config.quantization_config = copy.deepcopy(plan["raw"]["quantization_config"])
        if plan["overrides"]:
            config.update(dict(plan["overrides"]))
        _patch_rope_parameters(config)
        _patch_rope_parameters(config.get_text_config())
        for name in getattr(config, "sub_configs", None) or {}:
            sub = getattr(config, name, None)
            if sub is not None:
                _patch_rope_parameters(sub)
        text = config.get_text_config()
        for target, changed in ((config, plan["changed"]["config"]), (text, plan["changed"]["text"])):
            for key, value in changed.items():
                setattr(target, key, copy.deepcopy(value))
        out = json.dumps([config.to_json_string(), text.to_json_string()])
    except (RecursionError, MemoryError):
        raise
    except Exception as e:
        return None, f"transformers {transformers.__version__} cannot build this HF config ({hashing._short(e)})"
    finally:
        transformers.logging.set_verbosity(verbosity)
    return out, None


_FORMAT = ("vLLM 0.34.0 get_config", 1)
"""The builder's name and version in the HF JSON cache key (bump when :func:`_build` changes)."""


def _hf(state: Mapping[str, Any]) -> tuple[tuple[str, str] | None, str | None]:
    if not state.get("model_config"):
        return None, None
    unfit = hashing.transformers_unfit(state)
    if unfit:
        return None, unfit
    plan = _plan(state)
    if isinstance(plan, str):
        return None, plan
    text, why = hashing.built(plan, _build, _FORMAT)
    if text is None:
        return None, why
    hf_json, text_json = json.loads(text)
    return (hf_json, text_json), None


def hf_config_jsons(state: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(hf_config.to_json_string(), hf_text_config.to_json_string())`` as vLLM 0.34.0 hashes them, or None.

    None (not reproducible; :func:`inexact_reason` says why) without a transformers of 0.34.0's range, and
    where the seed's :func:`~postinit.rules.hashing.hf_config_json` is not reproducible either.
    """
    return _hf(state)[0]


def inexact_reason(state: Mapping[str, Any]) -> str | None:
    """Why :func:`compute_hash` is not vLLM 0.34.0's value for ``state`` (None when it is)."""
    reasons = []
    if state.get("model_config"):
        why = _hf(state)[1]
        if why:
            reasons.append(why)
        if not online_quant.hashed_exactly(thaw(state.get("model_config.quantization_config"))):
            reasons.append("a quantization_config with the int4_per_group_32 key is not hashed as vLLM 0.34.0 "
                           "normalises it")
        if state.get("model_config.multimodal_config"):
            mm = thaw(state["model_config.multimodal_config"]) or {}
            extra = hashing.given()[1]
            missing = [k for k in _MULTIMODAL_NOT_HELD if k in extra and k not in mm]
            if missing:
                reasons.append(f"multimodal option(s) {', '.join(missing)} are not held by postinit's "
                               "multimodal_config")
    if state.get("speculative_config"):
        method = state["speculative_config.method"]
        if method not in _NO_DRAFT:
            reasons.append(f"the speculative method {method!r} hashes its draft model's own ModelConfig, which "
                           "postinit does not model")
    return "; ".join(reasons) or None
