"""vLLM-specific input generators: factor tables, hypothesis strategies and the engine view.

The decision-relevant input space of the vLLM rulebook is described by a
*factor table* (:data:`FACTORS`): for each decision-relevant input one short
tuple of levels, exactly the values the rules' conditions distinguish
(capabilities 7.5/8.0/8.9/9.0/10.0/10.3, ROCm and CPU; ``max_model_len``
around the 131072 Blackwell boundary; DCP 1/2/4; every cudagraph and
compilation mode; every all2all backend; ...), the first level of each being
the neutral one (the shrink target). A *factor assignment* (``{factor:
level}``) becomes resolve inputs with :func:`build_inputs`; the sweep
(:mod:`postinit.sweep`) enumerates assignments, the hypothesis strategies
draw them::

    from hypothesis import given
    from postinit.engine import testing
    from postinit import testing as vs

    @given(vs.engine_states())
    def test_my_invariant(case):
        book, state, provenance = case
        testing.check_all(book, state)

hypothesis is imported only inside the strategy functions (it is the
optional ``testing`` extra); the factor table and :func:`build_inputs` need
nothing but postinit.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from postinit.engine import Provenance, Rulebook
from postinit.schema import Platform

if TYPE_CHECKING:  # pragma: no cover - typing only
    from hypothesis import strategies as st

__all__ = [
    "ALL2ALL",
    "CAPTURE",
    "CUSTOM_OPS",
    "ENVS",
    "FACTORS",
    "FIXTURE_MAX_LEN",
    "KV_EVENTS",
    "MAIN_MODELS",
    "PLATFORMS",
    "SPECS",
    "Inputs",
    "assignments",
    "avoid_errors",
    "base_assignment",
    "build_inputs",
    "check_rules",
    "engine_inputs",
    "engine_states",
    "models",
    "platform_of",
    "platforms",
    "repair",
    "resolve_inputs",
]

Inputs = tuple[dict[str, Any], dict[str, Any]]
"""``(config_dict, resolve_kwargs)``: ``postinit.resolve(config_dict, **resolve_kwargs)``."""

#: platform specs by what the rules distinguish: SM 7.5/8.0/8.9/9.0/10.0/10.3, ROCm, CPU
PLATFORMS: tuple[str, ...] = ("h100", "t4", "a100", "l40s", "b200", "b300", "mi300x", "cpu")

#: catalog models the rules tell apart (the oracle fixtures first, then the main real models)
MAIN_MODELS: tuple[str, ...] = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "deepseek-ai/DeepSeek-V3",
    "deepseek-ai/DeepSeek-V3.2-Exp",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "Qwen/Qwen3-8B-FP8",
    "openai/gpt-oss-120b",
    "google/gemma-3-27b-it",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "ibm-ai-platform/Bamba-9B",
    "state-spaces/mamba2-2.7b",
    "openai/whisper-large-v3",
    "BAAI/bge-base-en-v1.5",
    "intfloat/e5-mistral-7b-instruct",
)

#: max_position_embeddings of the fixtures (a longer max_model_len is a hard input error for them)
FIXTURE_MAX_LEN: dict[str, int] = {
    "fixtures/llama": 4096, "fixtures/llama_draft": 4096, "fixtures/llama_long": 262144,
    "fixtures/llama_fp8_block": 4096, "fixtures/bert": 512, "fixtures/whisper": 448,
    "fixtures/deepseek_v3": 16384, "fixtures/jamba": 8192, "fixtures/qwen3_next": 262144,
    "fixtures/llama4": 32768,
}
_LLAMA_FAMILY = ("fixtures/llama", "fixtures/llama_long", "fixtures/llama_fp8_block",
                 "meta-llama/Llama-3.1-8B-Instruct")
_DEEPSEEK = ("fixtures/deepseek_v3", "deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3.2-Exp")
_MOE = (*_DEEPSEEK, "fixtures/qwen3_next", "Qwen/Qwen3-Next-80B-A3B-Instruct", "openai/gpt-oss-120b",
        "fixtures/jamba", "meta-llama/Llama-4-Scout-17B-16E-Instruct")
_ENCODERS = ("fixtures/bert", "fixtures/whisper", "openai/whisper-large-v3", "BAAI/bge-base-en-v1.5",
             "intfloat/e5-mistral-7b-instruct")
_WHISPER = ("fixtures/whisper", "openai/whisper-large-v3")

CUSTOM_OPS: dict[str, list[str] | None] = {
    "default": None, "all": ["all"], "none": ["none"], "+rms_norm": ["+rms_norm"],
    "-rms_norm": ["-rms_norm"], "none,+quant_fp8": ["none", "+quant_fp8"],
    "+rms_norm,-rms_norm": ["+rms_norm", "-rms_norm"],
}
CAPTURE: dict[str, dict[str, Any]] = {
    "unset": {},
    "1-8": {"cudagraph_capture_sizes": [1, 2, 4, 8]},
    "odd": {"cudagraph_capture_sizes": [1, 3, 5, 7, 9, 12]},
    "sizes+max16": {"cudagraph_capture_sizes": [1, 2, 4, 8, 16], "max_cudagraph_capture_size": 16},
    "inconsistent": {"cudagraph_capture_sizes": [1, 2, 4, 8], "max_cudagraph_capture_size": 16},
    "max100": {"max_cudagraph_capture_size": 100},
    "4,3000": {"cudagraph_capture_sizes": [4, 3000]},
    "empty": {"cudagraph_capture_sizes": []},
}
ALL2ALL: tuple[str | None, ...] = (
    None, "naive", "pplx", "deepep_high_throughput", "deepep_low_latency",
    "allgather_reducescatter", "flashinfer_all2allv",
)
ENVS: dict[str, dict[str, str]] = {
    "unset": {},
    "v1=0": {"VLLM_USE_V1": "0"},
    "v1=1": {"VLLM_USE_V1": "1"},
    "chunked_local=1": {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1"},
    "chunked_local=0": {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"},
    "mla_disable=1": {"VLLM_MLA_DISABLE": "1"},
    "cpu_kv=8": {"VLLM_CPU_KVCACHE_SPACE": "8"},
    "all2all=deepep_ht": {"VLLM_ALL2ALL_BACKEND": "deepep_high_throughput"},
    "batch_invariant=1": {"VLLM_BATCH_INVARIANT": "1"},
}
KV_EVENTS: dict[str, dict[str, Any] | None] = {
    "absent": None,
    "enabled": {"enable_kv_cache_events": True, "publisher": "zmq"},
    "disabled": {"enable_kv_cache_events": False},
}
_KV_TRANSFER = {"kv_connector": "SharedStorageConnector", "kv_role": "kv_both",
                "kv_connector_extra_config": {"shared_storage_path": "local_storage"}}
SPECS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "ngram": {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
    "eagle": {"method": "eagle", "model": "fixtures/llama_draft", "num_speculative_tokens": 2},
    "mtp": {"method": "deepseek_mtp", "num_speculative_tokens": 1},
}


@functools.cache
def _models() -> tuple[str, ...]:
    from postinit.schema.loaders import list_catalog

    ids = [e.id for e in list_catalog()]
    fixtures = sorted(i for i in ids if i.startswith("fixtures/") and i != "fixtures/llama_draft")
    fixtures.remove("fixtures/llama")
    main = [m for m in MAIN_MODELS if m in ids]
    rest = sorted(i for i in ids if i not in fixtures and i not in main and i.rsplit("/", 1)[-1] != "llama_draft"
                  and i != "fixtures/llama")
    return ("fixtures/llama", *fixtures, *main, *rest)


def _factors() -> dict[str, tuple[Any, ...]]:
    return {
        "platform": PLATFORMS,
        "model": _models(),
        "usage": (None, "serve", "llm"),
        "env": tuple(ENVS),
        "enforce_eager": (None, True, False),
        "max_model_len": (None, 4096, 131072, 131073, 200000),
        "dtype": ("auto", "float16", "float32"),
        "mode": (None, 0, 1, 2, 3),
        "cudagraph_mode": (None, "NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"),
        "custom_ops": tuple(CUSTOM_OPS),
        "pass_config": ("none", "sp", "async_tp"),
        "capture_sizes": tuple(CAPTURE),
        "tp": (1, 2, 4, 8, 3),
        "dcp": (1, 2, 4),
        "dp": (1, 2),
        "dbo": (False, True),
        "all2all": ALL2ALL,
        "chunked_prefill": (None, True, False),
        "prefix_caching": (None, True, False),
        "budget": (None, 128, 16384),
        "kv_transfer": (False, True),
        "kv_events": tuple(KV_EVENTS),
        "spec": tuple(SPECS),
        "lora": (False, True),
        "fast_prefill": (False, True),
        "pooling": (None, "LAST", "CLS", "MEAN", "native"),
    }


FACTORS: Mapping[str, tuple[Any, ...]] = _factors()
"""Factor -> its levels; the first level is the neutral one (nothing set)."""


def base_assignment(**levels: Any) -> dict[str, Any]:
    """The neutral assignment (every factor at its first level), with ``levels`` set."""
    unknown = sorted(set(levels) - set(FACTORS))
    if unknown:
        raise KeyError(f"unknown factors {unknown}; factors: {', '.join(FACTORS)}")
    out = {k: v[0] for k, v in FACTORS.items()}
    out.update(levels)
    return out


@functools.cache
def _max_len(model: str) -> int | None:
    from postinit.schema.loaders import list_catalog

    for e in list_catalog():
        if e.id == model:
            return FIXTURE_MAX_LEN.get(model, e.max_position_embeddings)
    return None


def avoid_errors(f: Mapping[str, Any]) -> dict[str, Any]:
    """Steer an assignment away from the combinations vLLM rejects early (the golden corpus' soft constraints).

    Uniformly drawn assignments mostly end in one of a handful of early
    violations (TP not divisible by DCP, DCP on a GQA model, a budget below
    max_model_len without chunked prefill, DBO without DeepEP, PIECEWISE
    below VLLM_COMPILE, ...); the strategies apply this to most draws so that
    the later phases are exercised too.
    """
    f = dict(f)
    m = f["model"]
    limit = _max_len(m)
    if limit is not None and f["max_model_len"] is not None and f["max_model_len"] > limit:
        f["max_model_len"] = None
    if f["tp"] not in (1, 2, 4, 8):
        f["tp"] = 2
    if f["dcp"] > 1 and (m not in _DEEPSEEK or f["tp"] % f["dcp"]):
        f["dcp"] = 1
    if f["dbo"] and f["all2all"] not in ("deepep_high_throughput", "deepep_low_latency"):
        f["all2all"] = "deepep_low_latency"
    if f["cudagraph_mode"] in ("PIECEWISE", "FULL_AND_PIECEWISE") and f["mode"] in (0, 1, 2):
        f["cudagraph_mode"] = "FULL"
    if f["pass_config"] != "none" and (f["mode"] not in (None, 3) or f["enforce_eager"] or f["platform"] == "cpu"
                                       or f["env"] == "v1=0"):
        f["pass_config"] = "none"
    if f["capture_sizes"] == "inconsistent":
        f["capture_sizes"] = "sizes+max16"
    if f["dtype"] != "auto" and (m in ("fixtures/llama_fp8_block", "Qwen/Qwen3-8B-FP8", *_DEEPSEEK)
                                 or f["platform"] == "cpu" or m in _ENCODERS):
        f["dtype"] = "auto"
    if m in ("fixtures/llama_fp8_block", "Qwen/Qwen3-8B-FP8", *_DEEPSEEK) and f["platform"] in ("t4", "a100", "cpu"):
        f["platform"] = "h100"
    if f["fast_prefill"] and f["spec"] == "eagle":
        f["fast_prefill"] = False
    if f["budget"] is not None and f["chunked_prefill"] is not True:
        f["chunked_prefill"] = True
    if f["budget"] == 128 and f["usage"] is None:
        f["budget"] = 16384
    return f


def repair(f: Mapping[str, Any]) -> dict[str, Any]:
    """Apply the hard constraints, so that every assignment is a *valid resolve input*.

    Only inputs vLLM cannot even be asked are changed (the golden corpus'
    hard constraints): an EAGLE draft for a non-LLaMA target, MTP for a
    non-DeepSeek target, a max_model_len above a fixture's limit, pooling on
    Whisper, speculative decoding or LoRA on pooling/encoder models, more
    than 8 GPUs. Combinations vLLM rejects with an error stay: they are
    resolutions that end in a violation, and the invariants hold for them too.
    """
    f = dict(f)
    m = f["model"]
    limit = FIXTURE_MAX_LEN.get(m)
    if limit is not None and f["max_model_len"] is not None and f["max_model_len"] > limit:
        f["max_model_len"] = 4096 if limit >= 4096 else None
    if m in _WHISPER:
        f["pooling"] = None
    if f["pooling"] == "native" and m not in ("fixtures/bert", "BAAI/bge-base-en-v1.5"):
        f["pooling"] = "LAST"
    if f["pooling"] is not None or m in _ENCODERS:
        f["spec"] = "none"
        f["lora"] = False
    if f["spec"] == "eagle" and m not in _LLAMA_FAMILY:
        f["spec"] = "ngram"
    if f["spec"] == "eagle" and (f["max_model_len"] or 0) > 4096:
        f["max_model_len"] = 4096
    if f["spec"] == "mtp" and m not in _DEEPSEEK:
        f["spec"] = "ngram"
    if f["spec"] != "none" and m == "fixtures/llama_long" and f["max_model_len"] is None:
        f["max_model_len"] = 4096
    if f["tp"] * f["dp"] > 8:
        f["dp"] = 1
    return f


def platform_of(spec: str | Platform) -> Platform:
    """A platform preset (``h100``, ``b200``, ``mi300x``, ``cpu``, ``cuda:10.3`` ...) as a :class:`Platform`."""
    return spec if isinstance(spec, Platform) else _platform(spec)


@functools.cache
def _platform(spec: str) -> Platform:
    return Platform.from_spec(spec)


def build_inputs(assignment: Mapping[str, Any]) -> Inputs:
    """``(config_dict, resolve_kwargs)`` for one factor assignment (hard constraints applied)."""
    f = repair(base_assignment(**assignment))
    m = f["model"]
    mc: dict[str, Any] = {"model": m}
    if f["enforce_eager"] is not None:
        mc["enforce_eager"] = f["enforce_eager"]
    if f["max_model_len"] is not None:
        mc["max_model_len"] = f["max_model_len"]
    if f["dtype"] != "auto":
        mc["dtype"] = f["dtype"]
    if f["pooling"] == "native":
        mc["runner"] = "pooling"
    elif f["pooling"] is not None:
        mc["runner"] = "pooling"
        if m not in ("fixtures/bert", "BAAI/bge-base-en-v1.5"):
            mc["convert"] = "embed"
        mc["pooler_config"] = {"pooling_type": f["pooling"]}
    config: dict[str, Any] = {"model_config": mc}
    cache: dict[str, Any] = {}
    if f["prefix_caching"] is not None:
        cache["enable_prefix_caching"] = f["prefix_caching"]
    if f["fast_prefill"]:
        cache["kv_sharing_fast_prefill"] = True
    if cache:
        config["cache_config"] = cache
    par: dict[str, Any] = {}
    if f["tp"] > 1:
        par["tensor_parallel_size"] = f["tp"]
    if f["dcp"] > 1:
        par["decode_context_parallel_size"] = f["dcp"]
    if f["dp"] > 1:
        par["data_parallel_size"] = f["dp"]
    if f["dbo"]:
        par["enable_dbo"] = True
    if f["all2all"] is not None:
        par["all2all_backend"] = f["all2all"]
    if m in _MOE and (f["dp"] > 1 or f["all2all"] is not None):
        par["enable_expert_parallel"] = True
    if par:
        config["parallel_config"] = par
    sched: dict[str, Any] = {}
    if f["chunked_prefill"] is not None:
        sched["enable_chunked_prefill"] = f["chunked_prefill"]
    if f["budget"] is not None:
        sched["max_num_batched_tokens"] = f["budget"]
    if sched:
        config["scheduler_config"] = sched
    cc: dict[str, Any] = {}
    if f["mode"] is not None:
        cc["mode"] = f["mode"]
    if f["cudagraph_mode"] is not None:
        cc["cudagraph_mode"] = f["cudagraph_mode"]
    if CUSTOM_OPS[f["custom_ops"]] is not None:
        cc["custom_ops"] = list(CUSTOM_OPS[f["custom_ops"]] or ())
    cc.update({k: list(v) if isinstance(v, list) else v for k, v in CAPTURE[f["capture_sizes"]].items()})
    if f["pass_config"] == "sp":
        cc["pass_config"] = {"enable_sequence_parallelism": True}
    elif f["pass_config"] == "async_tp":
        cc["pass_config"] = {"enable_async_tp": True}
    if cc:
        config["compilation_config"] = cc
    if f["kv_transfer"]:
        config["kv_transfer_config"] = {**_KV_TRANSFER, "kv_connector_extra_config": dict(
            _KV_TRANSFER["kv_connector_extra_config"])}  # type: ignore[arg-type]
    if KV_EVENTS[f["kv_events"]] is not None:
        config["kv_events_config"] = dict(KV_EVENTS[f["kv_events"]] or {})
    spec = SPECS[f["spec"]]
    if spec is not None:
        config["speculative_config"] = dict(spec)
    if f["lora"]:
        config["lora_config"] = {"max_lora_rank": 16, "max_loras": 2}
    plat = platform_of(f["platform"])
    env = dict(ENVS[f["env"]])
    if plat.is_cpu and "VLLM_CPU_KVCACHE_SPACE" not in env:
        env["VLLM_CPU_KVCACHE_SPACE"] = "4"
    kwargs: dict[str, Any] = {"platform": plat, "env": env, "usage": f["usage"]}
    return config, kwargs


def engine_inputs(config: Mapping[str, Any], kwargs: Mapping[str, Any]) -> tuple[Rulebook, dict[str, Any], dict[str, Provenance]]:
    """The engine-level view of resolve inputs: ``(rulebook, flat_state, provenance)``.

    ``flat_state`` is the initial flat state ``postinit.resolve`` hands the
    rulebook (config, loaded model facts, ``platform.*``/``env.*``/``usage.*``
    facts), so every generic invariant of :mod:`postinit.engine.testing`
    applies: ``testing.check_all(book, state)``.
    """
    from postinit._api import prepare
    from postinit.rules import rulebook

    state, provenance, _ = prepare(dict(config), **kwargs)
    return rulebook(), state, provenance


# -- hypothesis strategies -----------------------------------------------------------------


def _weighted(levels: Sequence[Any]) -> st.SearchStrategy[Any]:
    from hypothesis import strategies as st

    return st.sampled_from(list(levels))


def platforms(specs: Sequence[str] = PLATFORMS) -> st.SearchStrategy[Platform]:
    """Platforms the rules tell apart (presets), as :class:`Platform` objects."""
    from hypothesis import strategies as st

    return st.sampled_from(list(specs)).map(platform_of)


def models(*, fixtures_weight: int = 3) -> st.SearchStrategy[str]:
    """Catalog model ids; the oracle fixtures ``fixtures_weight`` times as likely as the others."""
    from hypothesis import strategies as st

    ids = _models()
    fixtures = [m for m in ids if m.startswith("fixtures/")]
    return st.sampled_from([*fixtures * fixtures_weight, *[m for m in ids if m not in fixtures]])


def assignments(
    *, platform: str | Sequence[str] | None = None, **fixed: Any
) -> st.SearchStrategy[dict[str, Any]]:
    """Factor assignments (hard constraints applied); ``fixed`` pins factors to one level.

    Each factor is drawn from its levels (:data:`FACTORS`), the neutral level
    first so that a counterexample shrinks to the factors that matter. TP
    also draws the odd sizes 5-7 now and then.
    """
    from hypothesis import strategies as st

    strategies: dict[str, st.SearchStrategy[Any]] = {k: _weighted(v) for k, v in FACTORS.items()}
    strategies["model"] = models()
    strategies["avoid_errors"] = st.sampled_from([True, True, True, False])
    strategies["tp"] = st.sampled_from([1, 2, 4, 8, 1, 2, 4, 3, 5, 6, 7])
    if platform is not None:
        strategies["platform"] = st.sampled_from([platform] if isinstance(platform, str) else list(platform))
    for k, v in fixed.items():
        if k not in FACTORS:
            raise KeyError(f"unknown factor {k!r}; factors: {', '.join(FACTORS)}")
        strategies[k] = st.just(v)
    return st.fixed_dictionaries(strategies).map(_finish)


def _finish(f: dict[str, Any]) -> dict[str, Any]:
    avoid = f.pop("avoid_errors")
    return repair(avoid_errors(repair(f)) if avoid else f)


def resolve_inputs(*, platform: str | Sequence[str] | None = None, **fixed: Any) -> st.SearchStrategy[Inputs]:
    """``(config_dict, resolve_kwargs)`` pairs: ``postinit.resolve(config, **kwargs)`` never raises an input error."""
    return assignments(platform=platform, **fixed).map(build_inputs)


def engine_states(
    *, platform: str | Sequence[str] | None = None, **fixed: Any
) -> st.SearchStrategy[tuple[Rulebook, dict[str, Any], dict[str, Provenance]]]:
    """``(rulebook, flat_state, provenance)`` triples for the generic invariants of ``postinit.engine.testing``."""
    return resolve_inputs(platform=platform, **fixed).map(lambda ck: engine_inputs(*ck))


def check_rules(rules: Any, **kwargs: Any) -> Any:
    """Property-test your own rules with vLLM's rulebook: see :func:`postinit._checkrules.check_rules`.

    ``check_rules(my_rules, version=..., inputs=resolve_inputs(...), max_examples=50)`` runs every
    invariant over the combined rulebook and returns a report of what the examples exercised (rules that
    never fired, conditions never true or never false, your rules x vLLM's touching one path); it raises
    ``RulesCheckError`` with the shrunk failing input as a ``postinit resolve`` command line.
    """
    from postinit._checkrules import check_rules as run

    return run(rules, **kwargs)
