"""The ``vllm serve`` command line, parsed as vLLM at commit d7fb10c57 takes it.

``parse_vllm_args(argv)`` turns the argument list (with or without a leading
``serve``) into a nested input dict in ``VllmConfig`` shape holding only what the
user gave, plus provenance (which flag text set which path) and warnings.

What happens here is what vLLM's ``FlexibleArgumentParser`` and the plain
``EngineArgs`` field copies do: underscores in flag names become dashes,
``-O3``/``-O=3``/``-O 3`` become ``-O.mode=3``, dotted keys (``-O.mode=3``,
``--kv-transfer-config.kv_role=kv_both``) are merged into one JSON dict per flag
(a key ending in ``+`` takes a comma list; lists concatenate; a repeated scalar
warns), ``--config FILE`` inserts the file's flags before the command line (the
command line wins), human-readable ints, ``--x/--no-x`` booleans. What
``EngineArgs.create_engine_config`` *derives* (usage-context defaults, the
chunked-prefill forcing, DP/LB derivation, ...) is left to the rules.

Parsing uses stdlib ``argparse`` with ``exit_on_error=False`` and an ``error()``
that raises :class:`~postinit.errors.UnknownFlagError`; nothing is printed and
nothing exits. Values are taken as text and converted here, so every message
names the flag and the allowed values on one line.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import re
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from postinit.errors import InputError, InvalidValueError, did_you_mean, show
from postinit.schema import configs, online_quant
from postinit.schema.errors import SubConfigError, UnknownFlagError
from postinit.schema.limits import MAX_ARGS, check_text, plain_copy
from postinit.schema.loaders._pyset import PySet
from postinit.schema.loaders.construct import escaping_error, one_line, refusal, schema_class

__all__ = [
    "FLAGS",
    "Construct",
    "FlagSpec",
    "ParsedArgs",
    "as_argv",
    "env_prefix",
    "human_readable_int",
    "known_flags",
    "parse_vllm_args",
    "postinit_options",
    "strip_invocation",
]

# --------------------------------------------------------------------------- values


def human_readable_int(text: str) -> int:
    """Parse ``4096``, ``32k`` (decimal, 32000), ``25.6k`` (25600) or ``4K`` (binary, 4096)."""
    value = text.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if match:
        number, suffix = match.groups()
        decimal = {"k": 10**3, "m": 10**6, "g": 10**9}
        binary = {"K": 2**10, "M": 2**20, "G": 2**30}
        if suffix in decimal:
            return int(float(number) * decimal[suffix])
        if suffix in binary:
            if "." in number:
                raise ValueError(
                    f"decimals are not allowed with binary suffixes like {suffix}; "
                    f"did you mean {number}{suffix.lower()}?"
                )
            return int(number) * binary[suffix]
    return int(value)


@dataclass(frozen=True)
class FlagSpec:
    """One command-line flag: its spellings, its kind and where its value goes.

    ``kind`` is one of ``bool`` (``--x/--no-x``), ``int``, ``hrint``
    (human-readable int), ``float``, ``str``, ``json`` (a JSON object),
    ``json_or_str``, ``list_int``, ``list_str``, ``legacy_bool`` (``type=bool``:
    any non-empty text is True, as in vLLM's deprecated guided-decoding flags).
    ``target`` is the dotted path in ``VllmConfig`` shape, or ``extra.<name>``
    for EngineArgs/server values that have no ``VllmConfig`` field.
    """

    names: tuple[str, ...]
    target: str
    kind: str = "str"
    choices: tuple[Any, ...] | None = None
    optional: bool = False  # accepts "None"/"" as None
    deprecated: bool = False
    """vLLM marks the flag ``deprecated=True``: a parsed value other than the argparse default logs
    "argument '<dest>' is deprecated"."""
    default: Any = None
    """The argparse default (None unless the flag comes from an EngineArgs field); only the deprecation
    warning compares with it."""
    warning: str | None = None
    """What vLLM logs when it applies the flag's value (``create_engine_config``/``create_model_config``): for a
    ``deprecated`` flag when it differs from the default, for another whenever it is given."""
    since: str | None = None
    """The vLLM version that added the flag (the seed commit's parser does not know it)."""
    until: str | None = None
    """The last vLLM version that has the flag (later versions' parsers do not know it)."""
    builds: str | None = None
    """A JSON-valued flag whose sub-config vLLM's parser builds on the spot (argparse type
    ``TypeAdapter(cls).validate_json``): the class. A value it refuses is a parse error."""
    checked_by: str | None = None
    """A JSON-valued flag whose dataclass postinit keeps as decoded JSON: the vLLM class, whose validators
    vLLM's parser runs on the spot (``QuantizationConfigArgs``: :func:`postinit.schema.online_quant.parse_refusal`).
    A value they refuse is a parse error."""
    builds_since: str | None = None
    """The first vLLM version whose sub-config ``builds`` is modelled (0.11.1's ECTransferConfig, whose roles differ
    from 0.34.0's, is not: its flag stays an unchecked extra there)."""
    renamed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """``(version, names)``: the spellings the flag has from that vLLM version on (0.34.0 moved ``-O`` from
    ``--compilation-config`` to ``--optimization-level``: ``--compilation-config/-cc`` there)."""
    choices_from: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """``(version, choices)``: the values the flag accepts from that vLLM version on (vLLM 0.34.0's
    ``--mamba-ssm-cache-dtype`` also takes float16 and bfloat16)."""
    dict_or_str: bool = False
    """vLLM's ``union_dict_and_str``: a value that does not look like ``{...}`` is kept as a string
    (postinit asks for an object); one that does must be JSON."""
    off: tuple[str, ...] = ()
    """The spellings that switch a ``bool`` flag off (``--no-x``; ``--disable-x`` in vLLM 0.34.0), from the
    version's parser table; empty: ``--no-`` + each long name."""
    vllm_type: str | None = None
    """vLLM's argparse ``type`` for the flag, described (``int``, ``optional(int)``, ``human_readable_int``,
    ``parse(loads)``, ...; data/flags-<version>.json): how vLLM's parser converts and refuses a value."""
    vllm_type_name: str | None = None
    """The ``__name__`` argparse shows for that type in "invalid <name> value" (``_optional_type``, ...)."""
    shown_as: tuple[str, ...] = ()
    """The spellings argparse names the flag by in an error, where the version's parser hides some of its
    spellings (0.34.0: ``--no-enable-x`` is accepted, ``--enable-x/--disable-x`` shown); empty: all of them."""
    scope: str = "engine"
    """Which parser has the flag: ``engine`` (EngineArgs), ``async`` (AsyncEngineArgs only: ``vllm serve`` and
    the API server) or ``frontend`` (``vllm serve``'s own server flags)."""

    @property
    def shown(self) -> str:
        """The flag as argparse names it in an error: its spellings joined by ``/`` (``--compilation-config/-O``)."""
        return "/".join(self.shown_as or self.option_strings)

    @property
    def option_strings(self) -> tuple[str, ...]:
        """Every spelling argparse knows the flag by, the ones that switch a ``bool`` off included."""
        if self.kind != "bool":
            return self.names
        if self.off:
            return (*self.names, *(n for n in self.off if n not in self.names))
        out: list[str] = []
        for n in self.names:
            out.append(n)
            if n.startswith("--"):
                out.append(f"--no-{n[2:]}")
        return tuple(out)

    @property
    def dest(self) -> str:
        """The argparse destination: the long name with dashes as underscores."""
        long = next((n for n in self.names if n.startswith("--")), self.names[0])
        return long.lstrip("-").replace("-", "_")


_DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
_MAMBA_DTYPES_0340 = ("auto", "float32", "float16", "bfloat16")
_CACHE_DTYPES = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc")
_ALL2ALL = (
    "naive",
    "pplx",
    "deepep_high_throughput",
    "deepep_low_latency",
    "allgather_reducescatter",
    "flashinfer_all2allv",
)
_QUANTIZATION = (
    "awq", "deepspeedfp", "tpu_int8", "fp8", "ptpc_fp8", "fbgemm_fp8", "fp_quant",
    "modelopt", "modelopt_fp4", "bitblas", "gguf", "gptq_marlin_24", "gptq_marlin",
    "gptq_bitblas", "awq_marlin", "gptq", "compressed-tensors", "bitsandbytes", "hqq",
    "experts_int8", "ipex", "quark", "moe_wna16", "torchao", "auto-round", "rtn", "inc",
    "mxfp4", "petit_nvfp4",
)  # fmt: skip
_TASKS = (
    "auto", "generate", "embedding", "embed", "classify", "score", "reward",
    "transcription", "draft",
)  # fmt: skip
_REASONING_PARSERS = (
    "deepseek_r1", "deepseek_v3", "ernie45", "glm45", "openai_gptoss", "granite",
    "hunyuan_a13b", "minimax_m2", "minimax_m2_append_think", "mistral", "olmo3",
    "qwen3", "seed_oss", "step3",
)  # fmt: skip

_F = FlagSpec

FLAGS: tuple[FlagSpec, ...] = (
    # ---- ModelConfig
    _F(("--model",), "model_config.model"),
    _F(("--runner",), "model_config.runner", choices=("auto", "generate", "pooling", "draft")),
    _F(("--convert",), "model_config.convert",
       choices=("auto", "none", "embed", "classify", "reward")),
    _F(("--task",), "model_config.task", choices=_TASKS, optional=True,
       deprecated=True, until="0.11.1"),
    _F(("--tokenizer",), "model_config.tokenizer", optional=True),
    _F(("--tokenizer-mode",), "model_config.tokenizer_mode",
       choices=("auto", "slow", "mistral", "custom")),
    _F(("--trust-remote-code",), "model_config.trust_remote_code", "bool"),
    _F(("--dtype",), "model_config.dtype", choices=_DTYPES),
    _F(("--seed",), "model_config.seed", "int", optional=True),
    _F(("--hf-config-path",), "model_config.hf_config_path", optional=True),
    _F(("--allowed-local-media-path",), "model_config.allowed_local_media_path"),
    _F(("--allowed-media-domains",), "model_config.allowed_media_domains", "list_str",
       optional=True),
    _F(("--revision",), "model_config.revision", optional=True),
    _F(("--code-revision",), "model_config.code_revision", optional=True),
    _F(("--rope-scaling",), "model_config.rope_scaling", "json", until="d7fb10c57"),
    _F(("--rope-theta",), "model_config.rope_theta", "float", optional=True, until="d7fb10c57"),
    _F(("--tokenizer-revision",), "model_config.tokenizer_revision", optional=True),
    _F(("--max-model-len",), "model_config.max_model_len", "hrint", optional=True),
    _F(("--quantization", "-q"), "model_config.quantization", choices=_QUANTIZATION,
       optional=True),
    _F(("--enforce-eager",), "model_config.enforce_eager", "bool"),
    _F(("--max-logprobs",), "model_config.max_logprobs", "int"),
    _F(("--logprobs-mode",), "model_config.logprobs_mode",
       choices=("raw_logits", "raw_logprobs", "processed_logits", "processed_logprobs")),
    _F(("--disable-sliding-window",), "model_config.disable_sliding_window", "bool"),
    _F(("--disable-cascade-attn",), "model_config.disable_cascade_attn", "bool"),
    _F(("--skip-tokenizer-init",), "model_config.skip_tokenizer_init", "bool"),
    _F(("--enable-prompt-embeds",), "model_config.enable_prompt_embeds", "bool"),
    _F(("--served-model-name",), "model_config.served_model_name", "list_str", optional=True),
    _F(("--config-format",), "model_config.config_format"),
    _F(("--hf-token",), "extra.hf_token", optional=True),
    _F(("--hf-overrides",), "model_config.hf_overrides", "json", dict_or_str=True),
    _F(("--pooler-config",), "model_config.pooler_config", "json", optional=True, builds="PoolerConfig"),
    _F(("--override-pooler-config",), "model_config.override_pooler_config", "json", builds="PoolerConfig",
       optional=True, deprecated=True, until="0.11.1"),
    _F(("--logits-processor-pattern",), "model_config.logits_processor_pattern",
       optional=True, until="0.11.1"),
    _F(("--generation-config",), "model_config.generation_config"),
    _F(("--override-generation-config",), "model_config.override_generation_config", "json"),
    _F(("--enable-sleep-mode",), "model_config.enable_sleep_mode", "bool"),
    _F(("--model-impl",), "model_config.model_impl",
       choices=("auto", "vllm", "transformers", "terratorch")),
    _F(("--override-attention-dtype",), "model_config.override_attention_dtype", optional=True, until="0.11.1"),
    _F(("--logits-processors",), "model_config.logits_processors", "list_str", optional=True),
    _F(("--io-processor-plugin",), "model_config.io_processor_plugin", optional=True),
    # ---- LoadConfig
    _F(("--load-format",), "load_config.load_format"),
    _F(("--download-dir",), "load_config.download_dir", optional=True),
    _F(("--safetensors-load-strategy",), "load_config.safetensors_load_strategy"),
    _F(("--model-loader-extra-config",), "load_config.model_loader_extra_config", "json", dict_or_str=True),
    _F(("--ignore-patterns",), "load_config.ignore_patterns", "list_str"),
    _F(("--use-tqdm-on-load",), "load_config.use_tqdm_on_load", "bool"),
    _F(("--pt-load-map-location",), "load_config.pt_load_map_location"),
    # ---- StructuredOutputsConfig
    _F(("--reasoning-parser",), "structured_outputs_config.reasoning_parser",
       choices=_REASONING_PARSERS),
    _F(("--reasoning-parser-plugin",), "structured_outputs_config.reasoning_parser_plugin", since="0.11.1"),
    # vLLM assigns it to ``StructuredOutputsConfig.guided_decoding_backend``, which nothing reads
    _F(("--guided-decoding-backend",), "extra.guided_decoding_backend", deprecated=True, until="0.11.1"),
    _F(("--guided-decoding-disable-fallback",), "structured_outputs_config.disable_fallback",
       "legacy_bool", deprecated=True, until="0.11.1"),
    _F(("--guided-decoding-disable-any-whitespace",),
       "structured_outputs_config.disable_any_whitespace", "legacy_bool",
       deprecated=True, until="0.11.1"),
    _F(("--guided-decoding-disable-additional-properties",),
       "structured_outputs_config.disable_additional_properties", "legacy_bool",
       deprecated=True, until="0.11.1"),
    # ---- ParallelConfig
    _F(("--distributed-executor-backend",), "parallel_config.distributed_executor_backend",
       optional=True),
    _F(("--pipeline-parallel-size", "-pp"), "parallel_config.pipeline_parallel_size", "int"),
    _F(("--master-addr",), "parallel_config.master_addr", since="0.11.1"),
    _F(("--master-port",), "parallel_config.master_port", "int", since="0.11.1"),
    _F(("--nnodes", "-n"), "parallel_config.nnodes", "int", since="0.11.1"),
    _F(("--node-rank", "-r"), "parallel_config.node_rank", "int", since="0.11.1"),
    _F(("--tensor-parallel-size", "-tp"), "parallel_config.tensor_parallel_size", "int"),
    _F(("--decode-context-parallel-size", "-dcp"),
       "parallel_config.decode_context_parallel_size", "int"),
    _F(("--dcp-kv-cache-interleave-size",), "parallel_config.dcp_kv_cache_interleave_size", "int",
       since="0.11.1"),
    _F(("--data-parallel-size", "-dp"), "parallel_config.data_parallel_size", "int"),
    _F(("--data-parallel-rank", "-dpn"), "parallel_config.data_parallel_rank", "int"),
    _F(("--data-parallel-start-rank", "-dpr"), "extra.data_parallel_start_rank", "int"),
    _F(("--data-parallel-size-local", "-dpl"), "parallel_config.data_parallel_size_local",
       "int"),
    _F(("--data-parallel-address", "-dpa"), "parallel_config.data_parallel_master_ip"),
    _F(("--data-parallel-rpc-port", "-dpp"), "parallel_config.data_parallel_rpc_port", "int"),
    _F(("--data-parallel-backend", "-dpb"), "parallel_config.data_parallel_backend",
       choices=("ray", "mp")),
    _F(("--data-parallel-hybrid-lb",), "parallel_config.data_parallel_hybrid_lb", "bool"),
    _F(("--data-parallel-external-lb", "-dpe"), "parallel_config.data_parallel_external_lb", "bool",
       since="0.11.1"),
    _F(("--enable-fault-tolerance",), "parallel_config.enable_fault_tolerance", "bool", since="0.34.0"),
    # vLLM 0.34.0 parses its value as JSON (parse(loads)): an object, not text (issue 30's coverage cases)
    _F(("--custom-histogram-buckets",), "observability_config.custom_histogram_buckets", "json", optional=True,
       since="0.34.0"),
    # likewise parse(loads): an architecture -> "module:Class" mapping
    _F(("--model-class-overrides",), "model_config.model_class_overrides", "json", since="0.34.0"),
    _F(("--enable-expert-parallel",), "parallel_config.enable_expert_parallel", "bool"),
    _F(("--all2all-backend",), "parallel_config.all2all_backend", choices=_ALL2ALL,
       optional=True),
    _F(("--enable-dbo",), "parallel_config.enable_dbo", "bool"),
    _F(("--dbo-decode-token-threshold",), "parallel_config.dbo_decode_token_threshold", "int"),
    _F(("--dbo-prefill-token-threshold",), "parallel_config.dbo_prefill_token_threshold",
       "int"),
    _F(("--disable-nccl-for-dp-synchronization",),
       "parallel_config.disable_nccl_for_dp_synchronization", "bool"),
    _F(("--enable-eplb",), "parallel_config.enable_eplb", "bool"),
    _F(("--eplb-config",), "parallel_config.eplb_config", "json", builds="EPLBConfig"),
    _F(("--expert-placement-strategy",), "parallel_config.expert_placement_strategy",
       choices=("linear", "round_robin")),
    _F(("--num-redundant-experts",), "parallel_config.eplb_config.num_redundant_experts",
       "int", deprecated=True, until="0.11.1"),
    _F(("--eplb-window-size",), "parallel_config.eplb_config.window_size", "int",
       deprecated=True, until="0.11.1"),
    _F(("--eplb-step-interval",), "parallel_config.eplb_config.step_interval", "int",
       deprecated=True, until="0.11.1"),
    _F(("--eplb-log-balancedness",), "parallel_config.eplb_config.log_balancedness", "bool",
       deprecated=True, until="0.11.1"),
    _F(("--max-parallel-loading-workers",), "parallel_config.max_parallel_loading_workers",
       "int", optional=True),
    _F(("--ray-workers-use-nsight",), "parallel_config.ray_workers_use_nsight", "bool"),
    _F(("--disable-custom-all-reduce",), "parallel_config.disable_custom_all_reduce", "bool"),
    _F(("--worker-cls",), "parallel_config.worker_cls"),
    _F(("--worker-extension-cls",), "parallel_config.worker_extension_cls"),
    _F(("--enable-multimodal-encoder-data-parallel",),
       "extra.enable_multimodal_encoder_data_parallel", "bool",
       deprecated=True, default=False,
       warning=("--enable-multimodal-encoder-data-parallel` is deprecated and will be removed in v0.13. "
                "Please use `--mm-encoder-tp-mode data` instead."), until="0.11.1"),
    _F(("--disable-mm-preprocessor-cache",), "extra.disable_mm_preprocessor_cache", "bool", deprecated=True,
       default=False,
       warning=("`--disable-mm-preprocessor-cache` is deprecated and will be removed in v0.13. "
                "Please use `--mm-processor-cache-gb 0` instead."), until="0.11.1"),
    # ---- CacheConfig
    _F(("--block-size",), "cache_config.block_size", "int",
       choices=(1, 8, 16, 32, 64, 128, 256), optional=True),
    _F(("--gpu-memory-utilization",), "cache_config.gpu_memory_utilization", "float"),
    _F(("--kv-cache-memory-bytes",), "cache_config.kv_cache_memory_bytes", "hrint",
       optional=True),
    _F(("--swap-space",), "cache_config.swap_space", "float", until="0.11.1"),
    _F(("--kv-cache-dtype",), "cache_config.cache_dtype", choices=_CACHE_DTYPES),
    _F(("--num-gpu-blocks-override",), "cache_config.num_gpu_blocks_override", "int",
       optional=True),
    _F(("--enable-prefix-caching",), "cache_config.enable_prefix_caching", "bool"),
    _F(("--prefix-caching-hash-algo",), "cache_config.prefix_caching_hash_algo",
       choices=("sha256", "sha256_cbor")),
    _F(("--cpu-offload-gb",), "cache_config.cpu_offload_gb", "float"),
    _F(("--calculate-kv-scales",), "cache_config.calculate_kv_scales", "bool", until="0.11.1"),
    _F(("--kv-sharing-fast-prefill",), "cache_config.kv_sharing_fast_prefill", "bool"),
    _F(("--mamba-cache-dtype",), "cache_config.mamba_cache_dtype", choices=("auto", "float32"),
       choices_from=(("0.34.0", _MAMBA_DTYPES_0340),)),
    _F(("--mamba-ssm-cache-dtype",), "cache_config.mamba_ssm_cache_dtype",
       choices=("auto", "float32"), choices_from=(("0.34.0", _MAMBA_DTYPES_0340),)),
    _F(("--mamba-block-size",), "cache_config.mamba_block_size", "int", optional=True),
    _F(("--mamba-backend",), "mamba_config.backend", choices=("triton", "flashinfer", "cpu"), since="0.34.0"),
    _F(("--mamba-ssu-algorithm",), "mamba_config.ssu_algorithm", choices=("auto", "simple", "vertical", "horizontal"),
       optional=True, since="0.34.0"),
    _F(("--enable-mamba-cache-stochastic-rounding",), "mamba_config.enable_stochastic_rounding", "bool",
       since="0.34.0"),
    # vLLM 0.34.0's create_engine_config writes these into VllmConfig.additional_config (arg_utils.py:2902-2918)
    _F(("--gdn-prefill-backend",), "additional_config.gdn_prefill_backend", since="0.34.0"),
    _F(("--kda-prefill-backend",), "additional_config.kda_prefill_backend", since="0.34.0"),
    _F(("--kda-decode-backend",), "additional_config.kda_decode_backend", since="0.34.0"),
    _F(("--mamba-cache-philox-rounds",), "mamba_config.stochastic_rounding_philox_rounds", "int", since="0.34.0"),
    _F(("--ir-op-priority",), "extra.ir_op_priority", "json", since="0.34.0"),
    _F(("--mamba-cache-mode",), "extra.mamba_cache_mode", choices=("align", "none"), since="0.34.0",
       warning="--mamba-cache-mode is deprecated and will be removed in v0.34.0. It has no effect: Mamba prefix "
       "caching follows --enable-prefix-caching."),
    _F(("--kv-offloading-size",), "cache_config.kv_offloading_size", "float", optional=True, since="0.11.1"),
    _F(("--kv-offloading-backend",), "cache_config.kv_offloading_backend", choices=("native", "lmcache"),
       optional=True, since="0.11.1"),
    # ---- MultiModalConfig (ModelConfig's InitVars: create_model_config passes them on)
    _F(("--limit-mm-per-prompt",), "model_config.limit_mm_per_prompt", "json"),
    _F(("--enable-mm-embeds",), "model_config.enable_mm_embeds", "bool"),
    _F(("--media-io-kwargs",), "model_config.media_io_kwargs", "json"),
    _F(("--mm-processor-kwargs",), "model_config.mm_processor_kwargs", "json", optional=True),
    _F(("--mm-processor-cache-gb",), "model_config.mm_processor_cache_gb", "float"),
    _F(("--mm-processor-cache-type",), "model_config.mm_processor_cache_type",
       choices=("lru", "shm"), optional=True),
    _F(("--mm-shm-cache-max-object-size-mb",), "model_config.mm_shm_cache_max_object_size_mb", "int"),
    _F(("--mm-encoder-tp-mode",), "model_config.mm_encoder_tp_mode", choices=("weights", "data")),
    _F(("--mm-encoder-attn-backend",), "model_config.mm_encoder_attn_backend", optional=True),
    _F(("--interleave-mm-strings",), "model_config.interleave_mm_strings", "bool"),
    _F(("--skip-mm-profiling",), "model_config.skip_mm_profiling", "bool"),
    _F(("--video-pruning-rate",), "extra.video_pruning_rate", "float"),
    # ---- LoRAConfig (created only with --enable-lora)
    _F(("--enable-lora",), "extra.enable_lora", "bool"),
    _F(("--max-loras",), "lora_config.max_loras", "int"),
    _F(("--max-lora-rank",), "lora_config.max_lora_rank", "int",
       choices=(1, 8, 16, 32, 64, 128, 256, 320, 512)),
    _F(("--lora-extra-vocab-size",), "lora_config.lora_extra_vocab_size", "int",
       choices=(256, 512), until="0.11.1"),
    _F(("--lora-dtype",), "lora_config.lora_dtype", choices=("auto", "float16", "bfloat16")),
    _F(("--max-cpu-loras",), "lora_config.max_cpu_loras", "int", optional=True),
    _F(("--fully-sharded-loras",), "lora_config.fully_sharded_loras", "bool"),
    _F(("--default-mm-loras",), "lora_config.default_mm_loras", "json", optional=True),
    # ---- ObservabilityConfig
    _F(("--show-hidden-metrics-for-version",),
       "observability_config.show_hidden_metrics_for_version", optional=True),
    _F(("--otlp-traces-endpoint",), "observability_config.otlp_traces_endpoint", optional=True),
    _F(("--collect-detailed-traces",), "observability_config.collect_detailed_traces",
       "list_str", choices=("model", "worker", "all"), optional=True),
    # ---- SchedulerConfig
    _F(("--max-num-batched-tokens",), "scheduler_config.max_num_batched_tokens", "hrint",
       optional=True),
    _F(("--max-num-seqs",), "scheduler_config.max_num_seqs", "int", optional=True),
    _F(("--max-num-partial-prefills",), "scheduler_config.max_num_partial_prefills", "int", until="0.11.1"),
    _F(("--max-long-partial-prefills",), "scheduler_config.max_long_partial_prefills", "int", until="0.11.1"),
    _F(("--long-prefill-token-threshold",), "scheduler_config.long_prefill_token_threshold",
       "int"),
    _F(("--num-lookahead-slots",), "scheduler_config.num_lookahead_slots", "int", until="0.11.1"),
    _F(("--scheduling-policy",), "scheduler_config.policy", choices=("fcfs", "priority")),
    _F(("--enable-chunked-prefill",), "scheduler_config.enable_chunked_prefill", "bool"),
    _F(("--disable-chunked-mm-input",), "scheduler_config.disable_chunked_mm_input", "bool"),
    _F(("--scheduler-cls",), "scheduler_config.scheduler_cls"),
    _F(("--disable-hybrid-kv-cache-manager",),
       "scheduler_config.disable_hybrid_kv_cache_manager", "bool"),
    _F(("--async-scheduling",), "scheduler_config.async_scheduling", "bool"),
    _F(("--stream-interval",), "scheduler_config.stream_interval", "int", since="0.11.1"),
    # ---- CompilationConfig overrides
    _F(("--cudagraph-capture-sizes",), "compilation_config.cudagraph_capture_sizes",
       "list_int", optional=True),
    _F(("--cuda-graph-sizes",), "compilation_config.cudagraph_capture_sizes", "list_int",
       optional=True,
       deprecated=True, until="0.11.1"),  # vLLM's own warning: the rule engine-args.cuda-graph-sizes-deprecated
    _F(("--max-cudagraph-capture-size",), "compilation_config.max_cudagraph_capture_size",
       "int", optional=True),
    # ---- VllmConfig
    _F(("--speculative-config",), "speculative_config", "json", optional=True),
    _F(("--kv-transfer-config",), "kv_transfer_config", "json", optional=True, builds="KVTransferConfig"),
    _F(("--kv-events-config",), "kv_events_config", "json", optional=True, builds="KVEventsConfig"),
    _F(("--ec-transfer-config",), "extra.ec_transfer_config", "json", optional=True, since="0.11.1",
       builds="ECTransferConfig", builds_since="0.34.0"),
    _F(("--compilation-config", "-O"), "compilation_config", "json", builds="CompilationConfig",
       renamed=(("0.34.0", ("--compilation-config", "-cc")),)),
    # typed str in vLLM (OptimizationLevel is no builtin): argparse takes any text, VllmConfig refuses a bad one
    _F(("--optimization-level",), "optimization_level", since="0.34.0"),
    _F(("--performance-mode",), "performance_mode", choices=("balanced", "interactivity", "throughput"),
       since="0.34.0"),
    _F(("--additional-config",), "additional_config", "json", dict_or_str=True),
    _F(("--structured-outputs-config",), "structured_outputs_config", "json", builds="StructuredOutputsConfig"),
    # the OpenAI server's own flags (--port, --host, ...) and EngineArgs flags with no VllmConfig field that
    # postinit treats as no other come from vLLM's parser table (data/flags-<version>.json): see flags_for
)  # fmt: skip

_BY_NAME: dict[str, FlagSpec] = {n: s for s in FLAGS for n in s.names}
_BY_DEST: dict[str, FlagSpec] = {s.dest: s for s in FLAGS}


LINEAGE: list[Callable[[str], tuple[str, ...]]] = []
"""How a version name maps to its lineage (itself and its ancestors): set by :mod:`postinit.rules.versions`,
which knows the versions (the schema layer imports nothing of the rules)."""


def _lineage(version: str) -> tuple[str, ...]:
    return LINEAGE[0](version) if version and LINEAGE else ()


DATA = Path(__file__).resolve().parents[1] / "data"


@functools.cache
def vllm_flag_table(version: str) -> dict[str, Any] | None:
    """vLLM ``version``'s own flag table (``data/flags-<version>.json``, read from its parser in the oracle venv by
    ``tests/golden/oracle/flags_dump.py``): ``engine``/``frontend`` dest -> facts, ``async_only``; None if none."""
    path = DATA / f"flags-{version}.json"
    if not version or not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _generic(dest: str, facts: Mapping[str, Any]) -> FlagSpec:
    """A flag vLLM's parser has and postinit's table does not name: accepted as vLLM accepts it, kept as an
    EngineArgs/server extra (``extra.<dest>``) that no rule reads."""
    vtype = str(facts.get("type") or "")
    kind = facts["kind"]
    if kind not in ("bool", "store_true"):
        if facts.get("nargs") in ("+", "*"):
            kind = "list_int" if vtype in ("int", "optional(int)") else "list_str"
        elif "human_readable_int" in vtype:
            kind = "hrint"
        elif vtype in ("int", "optional(int)"):
            kind = "int"
        elif vtype in ("float", "optional(float)"):
            kind = "float"
        else:
            built = _DATACLASS_TYPE.fullmatch(vtype)
            if built is not None and isinstance(getattr(configs, built.group(1), None), type):
                # vLLM's parser builds that dataclass from the JSON text (TypeAdapter(cls).validate_json): a key
                # or value it refuses is a parse error; the object is kept as an extra no rule reads
                return FlagSpec(tuple(facts["names"]), f"extra.{dest}", "json", optional=vtype.startswith("optional("),
                                builds=built.group(1))
            if built is not None and dest in _RAW_SUB_CONFIGS:
                # vLLM's parser builds that dataclass from the JSON text; postinit keeps the decoded JSON, which
                # the rules resolve (postinit/rules/v0_34_0_quant.py)
                return FlagSpec(tuple(facts["names"]), f"extra.{dest}", "json", optional=vtype.startswith("optional("),
                                checked_by=built.group(1))
            if vtype == "optional(loads)" and dest in _LOADED_SUB_CONFIGS:
                # EngineArgs.create_<name>() builds the sub-config from the loaded JSON (vllm/engine/arg_utils.py)
                return FlagSpec(tuple(facts["names"]), f"extra.{dest}", "json", optional=True)
            kind = "str"  # JSON-valued ones too: vLLM's own type refuses bad JSON, and no rule reads the value
    return FlagSpec(tuple(facts["names"]), f"extra.{dest}", kind, optional=vtype.startswith("optional("))


_DATACLASS_TYPE = re.compile(r"(?:optional\()?dataclass\((\w+)\)\)?")
"""vLLM's parser type for a field whose type is one of its config dataclasses (data/flags-<version>.json)."""

_M, _P, _C, _S, _O, _L = ("model_config.", "parallel_config.", "cache_config.", "scheduler_config.",
                          "observability_config.", "lora_config.")
_SUB_CONFIG_FLAGS = ("attention_config", "kernel_config", "engram_config", "reasoning_config", "aux_output_config",
                     "profiler_config", "watchdog_config", "weight_transfer_config", "ec_manager_config",
                     "ec_transfer_config", "diffusion_config", "watermark_config", "logging_config")
_LOADED_SUB_CONFIGS = ("diffusion_config", "watermark_config")
_RAW_SUB_CONFIGS = ("quantization_config",)
"""Dataclass-typed flags without a schema class of postinit's: their JSON is kept decoded (vLLM 0.34.0's
``--quantization-config``, a QuantizationConfigArgs)."""
"""Sub-config flags vLLM's parser loads as plain JSON (``optional(loads)``), built later by EngineArgs."""
TARGETS_FROM: tuple[tuple[str, dict[str, str]], ...] = (
    ("0.34.0", {
        **{d: _M + d for d in (
            "allow_deprecated_quantization", "return_sampling_mask", "use_fp64_gumbel", "enable_trace_replay",
            "sleep_mode_backend", "sleep_mode_offload_cudagraph",
            "sleep_preserve_parameter_names", "enable_cumem_allocator", "enable_nccl_comm_suspend",
            "checkpoint_prepare_on_startup", "renderer_num_workers", "language_model_only", "mm_hasher_algorithm",
            "mm_encoder_only", "mm_encoder_attn_dtype", "mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path",
            "mm_encoder_fp8_scale_save_margin", "video_pruning_rate", "video_pruning_method", "mm_tensor_ipc",
            "mm_processor_device", "mm_ipc_gpu_memory_gb", "mm_device_do_normalize", "quantization_config")},
        **{d: "load_config." + d for d in (
            "safetensors_prefetch_num_threads", "safetensors_prefetch_block_size", "shuffle_safetensors_files")},
        **{d: _P + d for d in (
            "distributed_timeout_seconds", "cpu_distributed_timeout_seconds", "numa_bind", "numa_bind_nodes",
            "numa_bind_cpus", "dcp_comm_backend", "dcp_q_replicate", "prefill_context_parallel_size", "enable_hc_sp",
            "enable_batch_sharded_sampling", "enable_ep_weight_filter", "enable_shm_tensor_arena", "ubatch_size",
            "enable_elastic_ep", "elastic_ep_max_dp_size", "dp_sync_interval")},
        **{d: _C + d for d in (
            "enable_extensible_kv_cache", "prefix_cache_retention_interval", "kv_cache_dtype_skip_layers",
            "swa_bounded_replay", "prefix_match_unit", "enable_mamba_shared_prefix_checkpoint",
            "replayssm_buffer_len", "use_replayssm")},
        **{d: _S + d for d in (
            "max_num_scheduled_tokens", "max_num_active_seqs", "max_num_inflight_kv_loads", "max_num_queued_reqs",
            "max_num_queued_tokens", "long_prefill_token_threshold_adaptive", "scheduler_reserve_full_isl",
            "watermark", "prefill_schedule_interval", "cache_aware_admission_window",
            "cache_aware_admission_threshold")},
        **{d: _O + d for d in (
            "per_request_spec_decode_metrics", "kv_cache_metrics", "kv_cache_metrics_sample",
            "custom_histogram_buckets", "cudagraph_metrics", "enable_layerwise_nvtx_tracing", "enable_mfu_metrics",
            "enable_logging_iteration_details", "jit_monitor_mode", "jit_monitor_verbose")},
        **{d: _L + d for d in (
            "enable_tower_connector_lora", "specialize_active_lora", "enable_mixed_moe_lora_format",
            "enable_moe_shared_loras", "max_lora_cls_labels")},
        "lora_target_modules": _L + "target_modules",
        "log_level": "logging_config.log_level",
        "log_config_file": "logging_config.pylogging_config_file",  # create_logging_config (arg_utils.py:2272-2275)
        "offload_backend": "offload_config.offload_backend",
        "cpu_offload_params": "offload_config.uva.cpu_offload_params",
        "cpu_offload_gb": "offload_config.uva.cpu_offload_gb",
        **{d: "offload_config.prefetch." + d for d in (
            "offload_group_size", "offload_num_in_group", "offload_prefetch_step", "offload_params")},
        **{d: d for d in _SUB_CONFIG_FLAGS},
    }),
)
"""Per version (and its descendants): the EngineArgs fields ``create_engine_config`` copies unchanged into a
config field (vllm/engine/arg_utils.py ``create_model_config``, ``ParallelConfig(...)``, ``CacheConfig(...)``,
``SchedulerConfig(...)``, ... and ``VllmConfig(...)`` of vllm==0.34.0): a flag of the version's parser that
postinit's table does not target elsewhere writes there. The kernel and attention shorthands, which vLLM applies
only when set (``--moe-backend`` other than auto, ...), are :data:`_KERNEL_SHORTHANDS`."""

_MOVED = frozenset({"cpu_offload_gb"})
"""Flags postinit's table targets at a field a later version moved: TARGETS_FROM's target wins where it has one
(0.34.0: ``--cpu-offload-gb`` builds ``OffloadConfig(uva=UVAOffloadConfig(cpu_offload_gb=...))``,
vllm/engine/arg_utils.py:2888-2892; the cache config has no such field any more)."""


def _targets(version: str) -> dict[str, str]:
    lineage = _lineage(version)
    out: dict[str, str] = {}
    for since, table in TARGETS_FROM:
        if since in lineage:
            out.update(table)
    return out


@functools.cache
def flags_for(version: str = "") -> tuple[FlagSpec, ...]:
    """The flag table as vLLM ``version``'s parser has it ("" = postinit's union table, ``renamed`` applied).

    With the version's parser table (:func:`vllm_flag_table`) the flags are exactly that table's, in its order:
    spellings, ``bool`` off-switches, ``choices``, vLLM's type, ``deprecated`` and default are vLLM's, and a flag
    of postinit's table supplies where the value goes (its ``target``) and how postinit reads it; a flag vLLM
    has and postinit's table does not is accepted (:func:`_generic`). A flag of postinit's table that the
    version's parser lacks is not in it (vLLM's argparse refuses it as unrecognized)."""
    table = vllm_flag_table(version)
    if table is None:
        lineage = _lineage(version)
        out = []
        for spec in FLAGS:
            names, choices = spec.names, spec.choices
            for since, renamed in spec.renamed:
                if since in lineage:
                    names = renamed
            for since, later in spec.choices_from:
                if since in lineage:
                    choices = later
            out.append(dataclasses.replace(spec, names=names, choices=choices)
                       if (names, choices) != (spec.names, spec.choices) else spec)
        if not version:  # the union table: every version's parser flags postinit's table does not name, too
            taken = {n for s in out for n in s.option_strings} | {s.dest for s in out}
            for path in sorted(DATA.glob("flags-*.json")):
                other = vllm_flag_table(path.stem.removeprefix("flags-")) or {}
                for part in ("engine", "frontend"):
                    for dest, facts in other.get(part, {}).items():
                        spec = _generic(dest, facts)
                        if dest == "config" or dest in taken or taken & set(spec.option_strings):
                            continue
                        out.append(spec)
                        taken |= {dest, *spec.option_strings}
        return tuple(out)
    rows = [(dest, facts, "frontend" if part == "frontend" else "async" if dest in table["async_only"] else "engine")
            for part in ("engine", "frontend") for dest, facts in table[part].items() if dest != "config"]
    specs = []
    targets = _targets(version)
    for dest, facts, scope in sorted(rows, key=lambda r: int(r[1]["index"])):
        spec = _BY_DEST.get(dest) or _generic(dest, facts)
        if spec.builds_since is not None and spec.builds_since not in _lineage(version):
            spec = dataclasses.replace(spec, builds=None)
        if dest in targets and (spec.target.startswith("extra.") or dest in _MOVED):
            spec = dataclasses.replace(spec, target=targets[dest])
        off = tuple(facts.get("off") or ())
        kind = facts["kind"] if facts["kind"] in ("bool", "store_true") else spec.kind
        if kind != spec.kind and spec.kind in ("bool", "store_true"):
            kind = facts["kind"]
        default = facts.get("default")
        specs.append(dataclasses.replace(
            spec, names=tuple(n for n in facts["names"] if n not in off), off=off, kind=kind,
            choices=None if facts.get("choices") is None else tuple(facts["choices"]),
            deprecated=bool(facts.get("deprecated")),
            default=default if not (isinstance(default, str) and default.startswith("<")) else spec.default,
            vllm_type=facts.get("type"), vllm_type_name=facts.get("type_name"), scope=scope,
            shown_as=tuple(facts.get("shown") or ())))
    return tuple(specs)


@functools.cache
def _by_name(version: str) -> dict[str, FlagSpec]:
    return {n: s for s in flags_for(version) for n in s.names}


@functools.cache
def _by_dest(version: str) -> dict[str, FlagSpec]:
    return {s.dest: s for s in flags_for(version)}


def _level_flag(version: str) -> bool:
    """Whether ``-O`` is the optimization level (vLLM 0.34.0 on) rather than the compilation config."""
    return "optimization_level" in _by_dest(version) and any(
        s.dest == "optimization_level" and (s.since is None or s.since in _lineage(version)) for s in FLAGS)

# sub-config keys whose JSON value is a model itself (provenance recurses into it)
_NESTED_MODELS = {"compilation_config.pass_config", "parallel_config.eplb_config"}
_VLLM_SECTIONS = {
    "model_config", "cache_config", "parallel_config", "scheduler_config", "device_config",
    "load_config", "lora_config", "speculative_config", "structured_outputs_config",
    "observability_config", "compilation_config", "kv_transfer_config", "kv_events_config",
}  # fmt: skip


@functools.cache
def _known_flags() -> tuple[str, ...]:
    names = [n for s in FLAGS for n in s.names]
    names += [f"--no-{n[2:]}" for s in FLAGS if s.kind == "bool" for n in s.names]
    for path in sorted(DATA.glob("flags-*.json")):
        table = vllm_flag_table(path.stem.removeprefix("flags-")) or {}
        names += [n for part in ("engine", "frontend") for facts in table.get(part, {}).values()
                  for n in facts["names"]]
    return tuple(dict.fromkeys(names))


def known_flags() -> list[str]:
    """Every flag spelling postinit knows in any version (long and short), the ``--no-`` forms included."""
    return list(_known_flags())


# --------------------------------------------------------------------------- result


@dataclass
class ParsedArgs:
    """What a ``vllm serve`` command line says.

    ``config`` is the nested input dict in ``VllmConfig`` shape with only the
    keys the user gave; ``flags`` maps each dotted path set to the flag text
    that set it; ``extra`` holds EngineArgs/server values that are no
    ``VllmConfig`` field (``enable_lora``, ``port``, ...).
    """

    model: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    """What vLLM logs while parsing and applying the flags (deprecated flags), in order."""
    quirks: list[str] = field(default_factory=list)
    """Flags vLLM accepts and then ignores: postinit's explanation, not a vLLM log."""
    advice: list[str] = field(default_factory=list)
    """postinit's own advice about the command line (vLLM says nothing): a note, never one of vLLM's records."""
    extra: dict[str, Any] = field(default_factory=dict)
    given_twice: list[str] = field(default_factory=list)
    """EngineArgs fields given both as their own flag and in their sub-config's JSON, where the version's
    create_engine_config refuses that (``_GIVEN_TWICE_AT_CREATE``): a rule raises it in vLLM's order."""


# --------------------------------------------------------------------------- argparse


@dataclass(frozen=True)
class _Given:
    """A raw value as argparse saw it, with the option string the user typed."""

    option: str
    value: Any


def _note(namespace: argparse.Namespace, dest: str, given: _Given) -> None:
    """Record a flag as argparse meets it: its value (the last one wins) and, in order, every time it is given."""
    setattr(namespace, dest, given)
    seen = getattr(namespace, "_seen", None)
    if seen is not None:
        seen.append((dest, given))


class _StoreGiven(argparse.Action):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        _note(namespace, self.dest, _Given(option_string or self.dest, values))


class _BoolGiven(argparse.BooleanOptionalAction):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if option_string in self.option_strings:
            on = not (option_string or "").startswith("--no-")
            _note(namespace, self.dest, _Given(option_string or self.dest, on))


class _SwitchGiven(argparse.Action):
    """A ``bool`` flag with the exact spellings of a version's parser: ``off`` names the ones that switch it off."""

    def __init__(self, option_strings: Sequence[str], dest: str, off: Collection[str] = (), **kwargs: Any) -> None:
        self.off = frozenset(off)
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        _note(namespace, self.dest, _Given(option_string or self.dest, option_string not in self.off))


class _TrueGiven(argparse.Action):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        _note(namespace, self.dest, _Given(option_string or self.dest, True))


# vLLM's argparse types, as the version's parser table describes them (``optional(int)``, ``parse(loads)``, ...):
# each converts the text as vLLM's does and fails as it does, so that argparse itself words the refusal exactly as
# vLLM's parser (``invalid int value: 'x'``, ``Value x cannot be converted to <class 'int'>.``, the choices)

_REPRS = {"int": "<class 'int'>", "float": "<class 'float'>", "str": "<class 'str'>", "bool": "<class 'bool'>",
          "loads": "<function loads at 0x0>", "human_readable_int": "<function human_readable_int at 0x0>"}
"""How vLLM's ``parse_type`` names the callable it wraps ("Value x cannot be converted to <class 'int'>."); the
address of a function is the process's own (0x0 here)."""


def _vllm_hrint(text: str, tera: bool = False, auto: bool = False) -> int:
    """vLLM's ``human_readable_int`` (``_or_auto``: ``-1``/``auto`` is -1); a decimal with a binary suffix is
    refused with vLLM's own text (``argparse.ArgumentTypeError``), anything else not an int with ``ValueError``."""
    value = text.strip()
    if auto and (value == "-1" or value.lower() == "auto"):
        return -1
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
    if match:
        number, suffix = match.groups()
        decimal = {"k": 10**3, "m": 10**6, "g": 10**9, **({"t": 10**12} if tera else {})}
        binary = {"K": 2**10, "M": 2**20, "G": 2**30, **({"T": 2**40} if tera else {})}
        if suffix in decimal:
            return int(float(number) * decimal[suffix])
        if suffix in binary:
            try:
                return int(number) * binary[suffix]
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with binary suffixes like {suffix}. Did you mean to use "
                    f"{number}{suffix.lower()} instead?") from None
    if len(value) > 32:
        raise ValueError(value)
    return int(value)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(text) from None


def _vllm_converter(desc: str, tera: bool = False) -> Callable[[str], Any] | None:
    """The conversion vLLM's parser applies for a type description; None for one postinit does not know (or one
    whose value a sub-config builds: the dataclass parsers, refused by postinit's own construction)."""
    if desc.startswith("optional(") and desc.endswith(")"):
        inner = _vllm_converter(f"parse({desc[9:-1]})" if not desc[9:].startswith("dataclass(") else desc[9:-1], tera)
        if inner is None:
            return None
        return lambda text: None if text in ("", "None") else inner(text)
    if desc.startswith("parse(") and desc.endswith(")"):
        name = desc[6:-1]
        wrapped = _vllm_converter(name, tera)
        if wrapped is None:
            return None
        shown = _REPRS.get(name, "<function parse_type.<locals>._parse_type at 0x0>")

        def parsed(text: str) -> Any:
            try:
                return wrapped(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"Value {text} cannot be converted to {shown}.") from None

        return parsed
    if desc == "union_dict_and_str":
        loads = _vllm_converter("optional(loads)", tera)
        assert loads is not None
        return lambda text: loads(text) if _LOOKS_LIKE_A_DICT.match(text) else text
    simple: dict[str, Callable[[str], Any]] = {
        "str": str, "int": _int_text, "float": float, "bool": bool, "loads": _loads,
        "human_readable_int": functools.partial(_vllm_hrint, tera=tera),
        "human_readable_int_or_auto": functools.partial(_vllm_hrint, tera=tera, auto=True),
    }
    return simple.get(desc)


def _int_text(text: str) -> int:
    if len(text.strip()) > 32:  # int() of a 5000-digit text is slow; vLLM takes it, postinit refuses it later
        return 0
    return int(text)


def _vllm_type(spec: FlagSpec, tera: bool) -> Callable[[str], str] | None:
    """An argparse ``type`` that refuses a value as vLLM's parser does (its type, then its choices) and keeps the
    text (postinit converts it afterwards, into its own types)."""
    convert = _vllm_converter(spec.vllm_type, tera) if spec.vllm_type else (lambda text: text)
    if convert is None and spec.choices is None:
        return None
    choices = spec.choices

    def check(text: str) -> str:
        value = convert(text) if convert is not None else text
        if choices is not None and value not in choices:
            raise argparse.ArgumentTypeError(
                f"invalid choice: {value!r} (choose from {', '.join(repr(c) for c in choices)})")
        return text

    check.__name__ = spec.vllm_type_name or spec.vllm_type or "str"
    return check


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises postinit errors instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        ambiguous = re.search(r"ambiguous option: (\S+?)(?:=\S*)? could match (.+)$", message)
        if ambiguous:
            flag = ambiguous.group(1)
            raise UnknownFlagError(
                f"ambiguous flag '{flag}': it could be {ambiguous.group(2)} (write the flag in full)", value=flag,
                stage="parse", error="ArgumentError", vllm_message=message,
            )
        match = re.search(r"unrecognized arguments: (\S+)", message)
        if match:
            flag = match.group(1).split("=", 1)[0]
            raise UnknownFlagError(
                f"unknown flag '{flag}'.{did_you_mean(flag, known_flags())}", value=flag,
                stage="parse", error="ArgumentError", vllm_message=message,
            )
        raise InputError(message.replace("\n", " "), stage="parse", error="ArgumentError", vllm_message=message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise InputError((message or "argument parsing stopped").strip())


@functools.cache
def _build_parser(version: str = "", scope: str = "frontend") -> _Parser:
    """The flag parser of a version, built once per process (parsing never changes it).

    With the version's parser table its flags are exactly that parser's (``scope``: ``frontend`` = ``vllm serve``,
    ``async`` = AsyncEngineArgs, ``engine`` = EngineArgs: ``LLM(...)`` and the other usage contexts), spelled and
    typed as there; without one, postinit's union table."""
    parser = _Parser(prog="vllm serve", add_help=False, exit_on_error=False)
    table = vllm_flag_table(version)
    tera = table is not None and str(table.get("vllm", "")) >= "0.12"  # 0.34.0's human_readable_int knows T/t
    allowed = {"frontend": {"engine", "async", "frontend"}, "async": {"engine", "async"}, "engine": {"engine"}}[scope]
    for spec in flags_for(version):
        if table is not None and spec.scope not in allowed:
            continue
        # default None: parse_vllm_args fills every destination first (``_unset``), so argparse sets no default
        # either way; its last pass over the ~190 actions then stops at ``default is not None`` for each
        kwargs: dict[str, Any] = {"dest": spec.dest, "default": None}
        if spec.kind == "bool":
            if table is not None:
                parser.add_argument(*spec.option_strings, action=_SwitchGiven, off=spec.off or (), **kwargs)
            else:
                parser.add_argument(*spec.names, action=_BoolGiven, **kwargs)
        elif spec.kind == "store_true":
            parser.add_argument(*spec.names, action=_TrueGiven, nargs=0, **kwargs)
        else:
            check = _vllm_type(spec, tera) if table is not None else None
            if check is not None:
                kwargs["type"] = check
            if spec.kind in ("list_int", "list_str"):
                kwargs["nargs"] = "+"
            parser.add_argument(*spec.names, action=_StoreGiven, **kwargs)
    return parser


_UNSET = object()
"""What a flag not given holds in the namespace :func:`parse_vllm_args` hands argparse (never a ``_Given``)."""


@functools.cache
def _unset(parser: _Parser) -> dict[str, object]:
    """Every destination of ``parser`` mapped to :data:`_UNSET`: the namespace argparse fills starts with them.

    With the destinations present argparse sets no default (each action's is None): its pass over every action
    before parsing finds each at once (``hasattr(namespace, dest)``; ~190 failed attribute lookups a parse without
    them), the one after stops at the None default. The flags given are the ``_Given`` values the actions record
    in ``_seen``.
    """
    return {action.dest: _UNSET for action in parser._actions if action.dest is not argparse.SUPPRESS}


# --------------------------------------------------------------------------- pre-processing


def _normalise(args: list[str], level: bool = False) -> list[str]:
    """Dashes for underscores in ``--`` names (up to a dot) and the ``-O`` shorthands.

    ``level`` (vLLM 0.34.0 on): ``-O<x>`` / ``-O=<x>`` / ``-O <n>`` are ``--optimization-level <x>``,
    whatever ``<x>`` is (``-O.mode=3`` becomes the level ``.mode=3``, which VllmConfig refuses).
    """
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            key, eq, value = arg.partition("=")
            head, dot, tail = key[2:].partition(".")
            out.append("--" + head.replace("_", "-") + dot + tail + eq + value)
        elif level and arg.startswith("-O") and arg != "-O":
            out += ["--optimization-level", arg[3:] if arg[2] == "=" else arg[2:]]
        elif level and arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            out.append("--optimization-level")
        elif arg.startswith("-O") and arg != "-O" and arg[2] != ".":
            mode = arg[3:] if arg[2] == "=" else arg[2:]
            out.append(f"-O.mode={mode}")
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            out.append("-O.mode")
        else:
            out.append(arg)
    return out


def _merge(original: dict[str, Any], update: dict[str, Any]) -> PySet[str]:
    """vLLM's recursive update: dicts merge, lists concatenate, a repeated scalar key is a duplicate.

    The duplicates come back as the ``set`` vLLM builds (its table order is the order of its warning's text)."""
    duplicates: PySet[str] = PySet()
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(original.get(key), dict):
            nested = _merge(original[key], value)
            duplicates.update(PySet(f"{key}.{d}" for d in nested))
        elif isinstance(value, list) and isinstance(original.get(key), list):
            original[key] = original[key] + value
        else:
            if key in original:
                duplicates.add(key)
            original[key] = value
    return duplicates


@dataclass
class _Dotted:
    values: dict[str, Any] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)  # leaf path (below flag) -> text


def _pull_dotted(
    args: list[str], warnings: list[str], version: str = "", track_repeated: bool = False
) -> tuple[list[str], dict[str, _Dotted], list[str]]:
    """Collect ``-X.a.b=v`` / ``-X.a.b v`` arguments per flag; return the rest unchanged.

    ``track_repeated`` (vLLM 0.34.0): a plain ``--name`` / ``--name=value`` given again is a duplicate too, noted
    in the same set as the dotted keys, in command-line order (short flags and values are not counted)."""
    rest: list[str] = []
    dotted: dict[str, _Dotted] = {}
    order: list[str] = []
    duplicates: PySet[str] = PySet()
    plain_seen: set[str] = set()
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if track_repeated and arg.startswith("--") and "." not in arg:
            name = arg.split("=", 1)[0]
            if name in plain_seen:
                duplicates.add(name)
            plain_seen.add(name)
        if not (arg.startswith("-") and "." in arg):
            rest.append(arg)
            continue
        key_text, eq, value_text = arg.partition("=")
        if "." not in key_text:  # the dot was only in the value
            rest.append(arg)
            continue
        text = arg
        if not eq:
            if i + 1 >= len(args):
                raise InvalidValueError(f"{arg}: expected a value after it", value=arg)
            value_text = args[i + 1]
            text = f"{arg} {value_text}"
            skip = True
        if key_text.endswith("+"):
            key_text = key_text[:-1]
            value_text = json.dumps(value_text.split(","))
        flag, *keys = key_text.split(".")
        if not all(keys):
            raise InvalidValueError(f"{text}: empty key in a dotted flag", value=text)
        spec = _by_name(version).get(flag)
        if spec is None:
            raise UnknownFlagError(
                f"unknown flag '{flag}' (in '{text}').{did_you_mean(flag, known_flags())}",
                value=flag,
            )
        if spec.kind != "json":
            raise InvalidValueError(
                f"{text}: {spec.names[0]} takes no dotted keys (only JSON-valued flags do)",
                value=text,
            )
        check_text(value_text, text.split(" ", 1)[0])
        try:
            value: Any = json.loads(value_text)
        except json.JSONDecodeError:
            value = value_text
        except (RecursionError, ValueError):  # too deep, or an integer of more than 4300 digits
            raise InvalidValueError(f"{show(text)}: not a usable JSON value", value=None) from None
        value = plain_copy(value, ".".join([flag.lstrip("-"), *keys]))
        nested: Any = value
        for k in reversed(keys):
            nested = {k: nested}
        slot = dotted.setdefault(spec.dest, _Dotted())
        if spec.dest not in order:
            order.append(spec.dest)
        duplicates.update(PySet(f"{flag}.{d}" for d in _merge(slot.values, nested)))
        slot.texts[".".join(keys)] = text
    if duplicates:
        warnings.append(f"Found duplicate keys {', '.join(duplicates)}")
    return rest, dotted, order


# --------------------------------------------------------------------------- conversion


def _bad(spec: FlagSpec, option: str, raw: Any, why: str) -> InvalidValueError:
    return InvalidValueError(f"{option}: invalid value {show(raw)}: {why}", path=spec.target, value=raw,
                             stage="parse", error="ArgumentError")


def _scalar(spec: FlagSpec, option: str, raw: str) -> Any:
    if spec.optional and raw in ("", "None"):
        return None
    kind = spec.kind
    if kind in ("int", "list_int", "hrint", "float") and len(raw.strip()) > 32:
        raise _bad(spec, option, raw, "a number of more than 32 characters")
    try:
        if kind in ("int", "list_int"):
            value: Any = int(raw)
        elif kind == "hrint" and spec.vllm_type == "human_readable_int_or_auto" and raw.strip().lower() in ("-1", "auto"):
            value = -1  # vLLM 0.34.0's -1 / auto: ModelConfig derives the length (model.py:2686), or keeps it
        elif kind == "hrint":
            value = human_readable_int(raw)
        elif kind == "float":
            value = float(raw)
        elif kind == "legacy_bool":
            value = bool(raw)
        else:
            value = raw
    except ValueError as exc:
        detail = str(exc) if kind == "hrint" and "decimals" in str(exc) else ""
        expected = {
            "int": "expected an integer",
            "list_int": "expected integers",
            "hrint": "expected an integer like 4096, 32k (=32000) or 4K (=4096)",
            "float": "expected a number",
        }[kind]
        raise _bad(spec, option, raw, detail or expected) from None
    if kind == "float" and not math.isfinite(value):
        # vLLM's parser takes float("nan") and float("1e309") == inf; postinit's bound is finite numbers
        # (a NaN is not JSON, and no size, rate or memory amount is infinite)
        raise InvalidValueError(f"{option}: {show(raw)} is not a finite number; postinit takes finite numbers only",
                                path=spec.target, value=raw)
    if spec.choices is not None and value not in spec.choices:
        allowed = ", ".join(str(c) for c in spec.choices)
        raise InvalidValueError(
            f"{option}: {show(raw)} is not allowed; allowed: {allowed}.{did_you_mean(raw, [str(c) for c in spec.choices])}".rstrip("."),
            path=spec.target,
            value=raw,
            stage="parse",
            error="ArgumentError",
            vllm_message=f"argument {spec.shown}: invalid choice: {value!r} (choose from "
                         f"{', '.join(repr(c) for c in spec.choices)})",
        )
    return value


_LOOKS_LIKE_A_DICT = re.compile(r"(?s)^\s*{.*}\s*$")


_STRING_REFUSED: dict[str, tuple[str, str]] = {"model_config.hf_overrides": ("ModelConfig", "hf_overrides")}
"""``union_dict_and_str`` flags whose config field takes no string: (class, field). vLLM's parser keeps a value
that does not look like ``{...}`` as text, and building the config (create_model_config) refuses it."""


def _string_refused(spec: FlagSpec, option: str, raw: str) -> InvalidValueError:
    """pydantic's refusal of a text where the field takes a dict or a callable, worded by pydantic itself."""
    import pydantic

    cls, name = _STRING_REFUSED[spec.target]
    model = pydantic.create_model(cls, **{name: (dict[str, Any] | Callable[..., Any], ...)})  # type: ignore[call-overload]
    try:
        model(**{name: raw})
        text = ""
    except pydantic.ValidationError as exc:
        text = str(exc)
    return InvalidValueError(f"{option}: {show(raw)} is not a JSON object; vLLM keeps it as text and {cls} refuses "
                             f"it ({name} takes an object)", path=spec.target, value=raw,
                             stage="create_engine_config", error="ValidationError", vllm_message=text)


def _json(spec: FlagSpec, option: str, raw: str, undeclared: Collection[str] | None = None,
          mode_enum: bool = False) -> Any:
    if spec.optional and raw in ("", "None"):
        return None
    check_text(raw, option)
    if spec.dict_or_str and spec.target in _STRING_REFUSED and not _LOOKS_LIKE_A_DICT.match(raw):
        raise _string_refused(spec, option, raw)
    if spec.builds is not None:
        # vLLM's parser builds the sub-config from the text on the spot: a field it refuses is an ArgumentError
        below = None if undeclared is None else [p[len(spec.target) + 1:] for p in undeclared
                                                 if p.startswith(spec.target + ".")]
        escaping = None
        if undeclared is not None:
            try:
                escaping = escaping_error(schema_class(spec.builds), json.loads(raw))
            except ValueError:
                escaping = None
        if escaping is not None:  # raised by the class's validator, past pydantic and argparse
            kind, text = escaping
            raise SubConfigError(f"{option}: {kind}: {text}", config=spec.builds, flag=spec.shown, path=spec.target,
                                 value=raw, stage="parse", error=kind, vllm_message=text)
        refused = refusal(schema_class(spec.builds), json_text=raw, absent=below, mode_enum=mode_enum)
        if refused is not None:
            vllm = f"argument {spec.shown}: {refused}"
            raise SubConfigError(one_line(vllm), config=spec.builds, flag=spec.shown, path=spec.target, value=raw,
                                 stage="parse", error="ArgumentError", vllm_message=vllm)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        # vLLM's json.loads type function (for a value that looks like {...} where it also takes a string)
        loads: str | None = (None if spec.builds is not None or (spec.dict_or_str and not _LOOKS_LIKE_A_DICT.match(raw))
                              else f"argument {spec.shown}: Value {raw} cannot be converted to {json.loads!r}.")
        raise InvalidValueError(
            f"{option}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg} (got {show(raw)})",
            path=spec.target,
            value=raw,
            stage="parse" if loads else None,
            error="ArgumentError" if loads else None,
            vllm_message=loads,
        ) from None
    except RecursionError:
        raise InvalidValueError(f"{option}: JSON nested too deeply (got {show(raw)})", path=spec.target,
                                value=None) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise InvalidValueError(f"{option}: invalid JSON value: {exc} (got {show(raw)})", path=spec.target,
                                value=None) from None
    if isinstance(value, str) and spec.target.removeprefix("extra.") in _LOADED_SUB_CONFIGS:
        # EngineArgs.create_diffusion_config / create_watermark_config decode a text once more
        # (vllm/engine/arg_utils.py:2219-2228): a JSON text of a JSON object is that object
        try:
            again = json.loads(value)
        except (ValueError, RecursionError):
            again = None
        if isinstance(again, dict):
            value = again
    if not isinstance(value, dict):
        raise InvalidValueError(
            f"{option}: expected a JSON object like '{{\"key\": value}}', got {show(raw)}",
            path=spec.target,
            value=raw,
        )
    if spec.checked_by == "QuantizationConfigArgs":
        refused = online_quant.parse_refusal(raw, value)
        if refused is not None:
            vllm = f"argument {spec.shown}: {refused}"
            raise SubConfigError(one_line(vllm), config=spec.checked_by, flag=spec.shown, path=spec.target, value=raw,
                                 stage="parse", error="ArgumentError", vllm_message=vllm)
    return plain_copy(value, spec.target)


def _convert(spec: FlagSpec, given: _Given, undeclared: Collection[str] | None = None,
             mode_enum: bool = False) -> tuple[Any, str]:
    """The typed value and the flag text for provenance (``undeclared``, ``mode_enum``: as :func:`parse_vllm_args`
    takes them)."""
    option, raw = given.option, given.value
    if spec.kind in ("bool", "store_true"):
        return bool(raw), option
    if spec.kind in ("list_int", "list_str"):
        items = [str(r) for r in raw]
        text = f"{option} {' '.join(items)}"
        if spec.optional and items in (["None"], [""]):
            return None, text
        if spec.target == "observability_config.collect_detailed_traces":
            items = [p.strip() for item in items for p in item.split(",")]
        return [_scalar(spec, option, item) for item in items], text
    text = f"{option} {raw}"
    if spec.kind == "json":
        return _json(spec, option, str(raw), undeclared, mode_enum), text
    return _scalar(spec, option, str(raw)), text


def _set(config: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = config
    for p in parents:
        child = node.get(p)
        if not isinstance(child, dict):
            child = {}
            node[p] = child
        node = child
    node[last] = value


def _get(config: dict[str, Any], path: str) -> Any:
    node: Any = config
    for p in path.split("."):
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node


def _record(flags: dict[str, str], path: str, value: Any, text: str) -> None:
    """Provenance for ``path`` and, for sub-config dicts, for each key inside."""
    flags[path] = text
    top = path.split(".")[0]
    if (
        isinstance(value, dict)
        and (path in _VLLM_SECTIONS or path in _NESTED_MODELS)
        and (top in _VLLM_SECTIONS)
    ):
        for key, sub in value.items():
            _record(flags, f"{path}.{key}", sub, text)


# --------------------------------------------------------------------------- entry point


_SERVER_MODULES = frozenset({
    "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server", "vllm.entrypoints.cli.main",
})


def strip_invocation(args: Sequence[str]) -> list[str]:
    """The flags of a pasted command line: drop ``vllm serve`` / ``python -m vllm.entrypoints...``.

    ``vllm serve MODEL -tp 2`` and ``python3 -m vllm.entrypoints.openai.api_server --model M``
    give the same flags as ``MODEL -tp 2`` and ``--model M``.
    """
    out = list(args)
    if len(out) >= 3 and out[0].rsplit("/", 1)[-1].startswith("python") and out[1] == "-m":
        if out[2] in _SERVER_MODULES:
            out = out[3:]
    elif out and out[0].rsplit("/", 1)[-1] == "vllm":
        out = out[1:]
    if out and out[0] == "serve":
        out = out[1:]
    return out


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def env_prefix(args: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """A pasted line's leading environment assignments, as a shell reads them, and the rest.

    ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve M --max-model-len 200k`` (or ``env VLLM_X=1 vllm
    serve ...``) gives ``({"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, ["vllm", "serve", "M", ...])``.
    Only words before the first one that is not an assignment count: a flag's value never does.
    """
    rest = list(args)
    if len(rest) > 1 and rest[0] == "env" and _ASSIGNMENT.match(rest[1]):
        rest = rest[1:]
    env: dict[str, str] = {}
    while rest and _ASSIGNMENT.match(rest[0]):
        name, _, value = rest.pop(0).partition("=")
        env[name] = value
    return env, rest


POSTINIT_OPTIONS = {"--platform": "platform", "--env": "env", "--usage": "usage", "--semantics": "semantics",
                    "--vllm-version": "vllm_version"}
"""postinit's own options that may appear inside a pasted ``vllm serve`` line (vLLM has none of them)."""


def postinit_options(args: Sequence[str], where: str = "argv") -> tuple[dict[str, Any], list[str]]:
    """postinit's own options inside a pasted line (``--platform b200``, ``--env K=V``, ...) and the other words.

    ``--env`` may repeat (its ``NAME=VALUE`` pairs are collected); the others give one value each.
    Both ``--platform b200`` and ``--platform=b200`` are read.
    """
    found: dict[str, Any] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, inline = word.partition("=")
        key = POSTINIT_OPTIONS.get(name) if name.startswith("--") else None
        if key is None:
            rest.append(word)
            i += 1
            continue
        if eq:
            value, i = inline, i + 1
        elif i + 1 < len(args):
            value, i = args[i + 1], i + 2
        else:
            raise InvalidValueError(f"{where}: {name} (postinit's option) needs a value", path=where, value=None)
        if key == "env":
            var, eq2, val = value.partition("=")
            if not eq2 or not var:
                raise InvalidValueError(f"{where}: --env {show(value)}: expected NAME=VALUE", path=where, value=value)
            found.setdefault("env", {})[var] = val
        else:
            found[key] = value
    return found, rest


def as_argv(argv: str | Sequence[str], where: str = "argv") -> list[str]:
    """A command line as a list: a string is split as a POSIX shell would (``shlex``)."""
    if isinstance(argv, str):
        check_text(argv, where)
        try:
            return shlex.split(argv)
        except ValueError as e:
            raise InvalidValueError(f"{where}: cannot split {show(argv)} into flags: {e}", path=where,
                                    value=None) from None
    if not isinstance(argv, Sequence):
        raise InvalidValueError(f"{where}: a list of strings or one string is expected, got {type(argv).__name__}",
                                path=where, value=None)
    if len(argv) > MAX_ARGS:
        raise InvalidValueError(f"{where}: {len(argv)} arguments are more than the {MAX_ARGS} allowed", path=where)
    out: list[str] = []
    for i, a in enumerate(argv):
        if not isinstance(a, str):
            raise InvalidValueError(f"{where}[{i}]: arguments are strings, got {type(a).__name__} {show(a)}",
                                    path=where, value=None)
        out.append(check_text(a, f"{where}[{i}]"))
    return out


def _split_model(args: list[str]) -> tuple[str | None, list[str]]:
    args = strip_invocation(args)
    if args and not args[0].startswith("-"):
        return args[0], args[1:]
    return None, args


Construct = Callable[["FlagSpec", Any], None]
"""What building a sub-config runs beyond its fields' types (its ``__post_init__``): called with a
JSON-valued flag that builds one (:attr:`FlagSpec.builds`) and its value, in vLLM's parsing order;
it raises an :class:`~postinit.errors.InputError` when vLLM's parser would refuse the value."""


def parse_vllm_args(
    argv: str | Sequence[str], *, allow_files: bool = True, construct: Construct | None = None,
    absent: Collection[str] = (), version: str = "", scope: str = "frontend",
    undeclared: Collection[str] | None = None, mode_enum: bool = False, model_given: bool = False,
) -> ParsedArgs:
    """Parse a ``vllm serve`` command line into a :class:`ParsedArgs` (nested input dict).

    ``argv`` is a list of arguments or one string (split as a shell would); a pasted
    ``vllm serve MODEL ...`` or ``python -m vllm.entrypoints.openai.api_server ...`` prefix
    is dropped. ``allow_files=False`` refuses ``--config FILE`` (the HTTP service).
    ``absent`` names the flags (argparse destinations) the modelled vLLM ``version`` does
    not have: its parser refuses them as unrecognized. ``scope`` is the parser: ``frontend``
    (``vllm serve``: the server's flags too), ``async`` (AsyncEngineArgs) or ``engine``
    (EngineArgs: ``LLM(...)`` and the other usage contexts). ``undeclared``: where the version's config
    classes refuse a keyword they do not declare (vLLM 0.34.0), the schema paths it lacks; a JSON-valued
    flag's key that names one of them, or no field at all, is then pydantic's refusal while parsing
    (None: vLLM ignores such a key, and the door refuses an unknown one in postinit's words). ``mode_enum``
    (``version.compilation_mode_enum``): the parser's CompilationConfig refuses a mode outside 0-3.
    ``model_given``: the model comes besides the command line (``vllm serve MODEL``'s positional); without it and
    without a leading model, 0.34.0's ``vllm serve`` parser gives its positional ``model_tag`` the first stray value.

    Failures come in vLLM's order: argparse converts every value as it meets it (the dotted
    keys last, as one JSON value per flag), and a JSON-valued flag whose sub-config vLLM builds
    while parsing is built then (its fields' types here, the rest by ``construct``); unknown
    flags are refused only after that. Such a failure carries ``stage="parse"`` and vLLM's
    ``argparse.ArgumentError`` text (``vllm_message``).
    """
    result = ParsedArgs()
    args = as_argv(argv)
    positional, args = _split_model(args)
    args = [x for a in args for x in (("--config", a[9:]) if a.startswith("--config=") else (a,))]

    if args.count("--config") > 1:
        raise InputError("more than one --config file given; vLLM accepts one")
    nested_from_file: dict[str, Any] = {}
    file_name: str | None = None
    from_file: dict[str, str] = {}
    """Flags (argparse destinations) whose value is the config file's: where the file sets them."""
    loaded: Any = None
    if "--config" in args:
        from postinit.schema.loaders.files import read_config_file

        index = args.index("--config")
        if index == len(args) - 1:
            raise InputError("--config: no config file given after it")
        if not allow_files:
            raise InvalidValueError("--config reads a file on the server; send the file's content as 'config' "
                                    "(nested) or its flags in 'argv' instead", path="argv", value=None)
        file_name = args[index + 1]
        loaded = read_config_file(file_name)
        result.advice.extend(loaded.warnings)  # postinit's remarks on the file: vLLM ignores silently
        if loaded.argv is not None:
            # the file's flags go first: the command line wins
            from_file = _file_sources(loaded, args[:index] + args[index + 2 :], version)
            args = loaded.argv + args[:index] + args[index + 2 :]
        else:
            nested_from_file = loaded.nested or {}
            args = args[:index] + args[index + 2 :]

    args = _normalise(args, _level_flag(version))
    args, dotted, dotted_order = _pull_dotted(args, result.warnings, version, track_repeated=_level_flag(version))
    by_dest = _by_dest(version)

    given: dict[str, _Given] = {}
    seen: list[tuple[str, _Given]] = []
    """Every value argparse converts, in the order it converts them (a repeated flag each time)."""
    unknown: list[str] = []
    if version in _DISABLE_LOG_REQUESTS_NOTE and "--disable-log-requests" in args:
        result.warnings.append("argument '--disable-log-requests' is deprecated and replaced with "
                               "'--enable-log-requests'. This will be removed in v0.12.0.")
    if args:  # nothing left to parse gives only the parser's None defaults: skip building it (~7 ms)
        parser = _build_parser(version, scope)
        namespace = argparse.Namespace(_seen=seen)
        namespace.__dict__.update(_unset(parser))
        try:
            namespace, unknown = parser.parse_known_args(args, namespace)
        except argparse.ArgumentError as exc:
            message = str(exc)
            if "ambiguous option" in message or "unrecognized" in message:
                parser.error(message)
            spec = next((f for f in by_dest.values() if f.shown == exc.argument_name), None)
            raise InvalidValueError(f"{message.replace(chr(10), ' ')}", path=spec.target if spec else None,
                                    stage="parse", error="ArgumentError", vllm_message=message) from None
        for dest, noted in seen:  # what argparse set, in the order it first set each (the last value wins)
            given[dest] = noted
    # dotted keys: vLLM appends them as one JSON flag after everything else, so
    # they replace a JSON value given for the same flag.
    for dest in dotted_order:
        spec = by_dest[dest]
        if dest in given:
            result.advice.append(
                f"{spec.names[0]} was given both as JSON and as dotted keys; vLLM keeps only the dotted keys and drops the JSON"
            )
        given[dest] = _Given(
            spec.names[-1] if dest == "compilation_config" else spec.names[0],
            json.dumps(dotted[dest].values),
        )
        seen.append((dest, given[dest]))

    converted: dict[str, tuple[Any, str]] = {}
    missing: list[str] = []
    """Flags of the union table this version's parser does not have: unknown to it."""
    deferred: InputError | None = None
    """A refusal of building a config from a flag's value (after parsing: create_engine_config), kept until the
    parser has refused what it refuses."""
    for dest, item in seen:
        if dest == "model":
            continue
        if dest in absent:
            raw = item.value if isinstance(item.value, list) else [item.value]
            missing += [item.option, *(x for x in raw if isinstance(x, str))]
            continue
        spec = by_dest[dest]
        try:
            value, text = _convert(spec, item, undeclared, mode_enum)
        except InputError as e:
            if e.stage != "create_engine_config":
                raise
            deferred = deferred or e
            continue
        if construct is not None and spec.builds is not None and value is not None:
            construct(spec, value)
        converted[dest] = (value, text)  # a repeated flag: the last value wins, as in argparse
    tag = None
    if positional is None and not model_given and scope == "frontend" and "0.34.0" in _lineage(version):
        # `vllm serve`'s parser has the positional model_tag (0.34.0's make_arg_parser, as the oracle parses serve
        # lines): without a leading model it takes the first stray value, which is then no unrecognized argument
        # (ServeSubcommand.cmd: args.model = args.model_tag)
        # (a flag the version lacks is unknown there: its value is such a stray value too)
        strays = [x for x in [*missing, *unknown] if not x.startswith("-")]
        if strays:
            tag = min(strays, key=lambda x: args.index(x) if x in args else len(args))
            if tag in missing:
                missing.remove(tag)
            else:
                unknown.remove(tag)
    if missing or unknown:
        # vLLM's parser logs its warnings (a deprecated flag given, duplicate keys) in parse_known_args, before
        # parse_args names the arguments left over (golden y202)
        deprecated = [f"argument '{dest}' is deprecated" for dest, (value, _) in converted.items()
                      if by_dest[dest].deprecated and value != by_dest[dest].default]
        said = tuple(("argv", "warning", text) for text in [*result.warnings, *deprecated])
        try:
            if missing:
                flag = missing[0]
                vllm = f"unrecognized arguments: {' '.join([*missing, *unknown])}"
                raise UnknownFlagError(f"unknown flag '{flag}': vLLM {version or 'at this version'} has no such "
                                       "flag", value=flag, stage="parse", error="ArgumentError", vllm_message=vllm)
            _refuse_unknown(unknown, version)
        except InputError as e:
            e.said_before = said
            raise
    if deferred is not None:
        raise deferred

    model = positional
    if "model" in given:
        flag_model = str(given["model"].value)
        if positional is not None and flag_model != positional:
            raise InputError(
                f"the model is given twice: '{positional}' (positional) and '--model {flag_model}'",
                path="model_config.model",
            )
        model = flag_model
    if tag is not None:
        model = tag
    result.model = model

    config: dict[str, Any] = {}
    lora_given: list[str] = []
    later: list[str] = []
    for dest, item in given.items():
        spec = by_dest[dest]
        if dest == "model":
            continue
        value, text = converted[dest] if dest in converted else _convert(spec, item, undeclared, mode_enum)
        if spec.deprecated and value != spec.default:
            result.warnings.append(f"argument '{dest}' is deprecated")
            if spec.warning is not None:
                later.append(spec.warning)
            if dest == "cuda_graph_sizes":
                result.extra["cuda_graph_sizes_given"] = True  # warned where create_engine_config applies it
        elif not spec.deprecated and spec.warning is not None and value is not None:
            later.append(spec.warning)  # deprecated in words only: create_engine_config warns when it is given
        target = spec.target
        if target.startswith("extra."):
            result.extra[target[6:]] = value
            continue
        if target.startswith("lora_config."):
            lora_given.append(item.option)
        if dest == "reasoning_parser" and (not value or str(value).lower() == "none"):
            continue  # 0.34.0's parse_reasoning_parser reads `none` as unset (the earlier parsers' choices refuse it)
        if dest in dotted:
            texts = dotted[dest].texts
            for leaf, leaf_text in texts.items():
                result.flags[f"{target}.{leaf}"] = leaf_text
                # the parent sub-model keys too (e.g. compilation_config.pass_config)
                parts = leaf.split(".")
                for n in range(1, len(parts)):
                    result.flags.setdefault(f"{target}.{'.'.join(parts[:n])}", leaf_text)
        else:
            _record(result.flags, target, value, from_file.get(dest, text))
        existing = _get(config, target)
        if isinstance(existing, dict) and isinstance(value, dict):
            merged = dict(value)
            merged.update(existing)  # individual flags already set win over the JSON
            value = merged
        _set(config, target, value)

    result.warnings.extend(later)
    _apply_engine_args(config, result, given, lora_given, at_create=version in _GIVEN_TWICE_AT_CREATE,
                       cc_at_create=version in _CC_GIVEN_TWICE_AT_CREATE, mode_enum=mode_enum)

    if model is not None:
        _set(config, "model_config.model", model)
        result.flags["model_config.model"] = from_file.get("model") or (
            f"--model {model}" if "model" in given else model)

    if nested_from_file:
        from postinit.schema.loaders.files import deep_merge

        merged_config = deep_merge(nested_from_file, config)
        for path in _leaf_paths(nested_from_file):
            result.flags.setdefault(path, loaded.source(path) or f"--config {file_name}")
        config = merged_config
        if result.model is None:
            file_model = _get(config, "model_config.model")
            result.model = file_model if isinstance(file_model, str) else None
    result.config = config
    return result


_DISABLE_LOG_REQUESTS_NOTE = ("d7fb10c57", "0.11.1")
"""Versions whose parser warns whenever ``--disable-log-requests`` is given (FlexibleArgumentParser.parse_known_args)."""


def _file_sources(loaded: Any, command_line: list[str], version: str) -> dict[str, str]:
    """Argparse destination → where a flag-shaped ``--config`` file sets it (``serve.yaml:3 (tensor-parallel-size:
    4)``), for the flags the command line does not give again (the command line wins)."""
    by_name = _by_name(version)
    typed = {a.split("=", 1)[0] for a in command_line if a.startswith("-")}
    typed |= {"--" + a[5:] for a in typed if a.startswith("--no-")}
    typed |= {a.replace("_", "-") for a in typed}
    out: dict[str, str] = {}
    for key in loaded.data:
        if not isinstance(key, str):
            continue
        flag = key if key.startswith("-") else "--" + key
        spec = by_name.get(flag) or by_name.get(flag.replace("_", "-"))
        where = loaded.source(key)
        if spec is None or where is None or any(n in typed for n in spec.names):
            continue
        out[spec.dest] = where
    return out


def _refuse_unknown(unknown: list[str], version: str = "") -> NoReturn:
    """Arguments no flag takes: vLLM's parser names them all (after converting everything else)."""
    vllm = f"unrecognized arguments: {' '.join(unknown)}"
    first = unknown[0]
    if first.startswith("-"):
        flag = first.split("=", 1)[0]
        if version and flag in known_flags():
            why = f"vLLM {version} has no such flag (another version's parser has it)"
            raise UnknownFlagError(f"unknown flag '{flag}': {why}", value=flag, stage="parse", error="ArgumentError",
                                   vllm_message=vllm)
        raise UnknownFlagError(f"unknown flag '{flag}'.{did_you_mean(flag, known_flags())}", value=flag,
                               stage="parse", error="ArgumentError", vllm_message=vllm)
    raise InputError(
        f"unexpected argument '{first}': the model goes first (vllm serve MODEL ...) or after --model",
        value=first, stage="parse", error="ArgumentError", vllm_message=vllm,
    )


def _leaf_paths(data: dict[str, Any], prefix: str = "") -> list[str]:
    paths: list[str] = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        paths.append(path)
        if isinstance(value, dict) and (not prefix or path in _NESTED_MODELS):
            paths += _leaf_paths(value, path + ".")
    return paths


_GIVEN_TWICE_AT_CREATE = ("0.34.0",)
"""Versions whose create_engine_config itself refuses an EngineArgs field given both as its flag and in its
sub-config's JSON (a ValueError after the sub-configs it builds first; before them postinit refuses it at the door)."""

_CC_GIVEN_TWICE_AT_CREATE = ("d7fb10c57", "0.11.1", "0.34.0")
"""Versions whose create_engine_config refuses the dedicated compilation flags (``_MUTUALLY_EXCLUSIVE``) given
beside the same key in -O itself, after the sub-configs it builds first (vllm/engine/arg_utils.py:1648-1674 at
d7fb10c57): recorded in ``usage.given_twice`` for the rule (engine-args.compilation-flag-given-twice)."""

_GIVEN_TWICE_EXTRA: tuple[tuple[str, str, str], ...] = (
    ("attention_backend", "attention_config", "backend"),
    ("enable_flashinfer_autotune", "kernel_config", "enable_flashinfer_autotune"),
)
"""(flag's destination, the sub-config flag's destination, the key): kept as extras, compared in the JSON."""

_MUTUALLY_EXCLUSIVE: tuple[tuple[str, str, str], ...] = (
    ("cuda_graph_sizes", "cudagraph_capture_sizes", "cuda_graph_sizes"),
    ("cudagraph_capture_sizes", "cudagraph_capture_sizes", "cudagraph_capture_sizes"),
    ("max_cudagraph_capture_size", "max_cudagraph_capture_size", "max_cudagraph_capture_size"),
)


_KERNEL_SHORTHANDS: tuple[tuple[str, Any], ...] = (
    ("enable_flashinfer_autotune", None), ("monokernel", False), ("moe_backend", "auto"), ("linear_backend", "auto"),
    ("sparse_indexer_topk_backend", "auto"),
)
"""EngineArgs fields ``create_engine_config`` writes into its copy of ``--kernel-config`` when they differ from the
value that means "not given" (vllm/engine/arg_utils.py:2825-2845 in 0.34.0), same names in KernelConfig."""


_SPEC_SHORTHANDS: tuple[tuple[str, str], ...] = (
    ("spec_method", "method"), ("spec_model", "model"), ("spec_tokens", "num_speculative_tokens"))
"""``--spec-method`` / ``--spec-model`` / ``--spec-tokens``: keys of ``--speculative-config`` (0.34.0)."""


def _apply_shorthands(config: dict[str, Any], result: ParsedArgs, given: dict[str, _Given]) -> None:
    """``--attention-backend`` and the kernel flags over their sub-config's JSON, as 0.34.0's create_engine_config
    applies them (a value given both ways is refused there: ``result.given_twice``)."""
    backend = result.extra.get("attention_backend")
    if backend is not None and "attention_backend" not in result.given_twice:
        # AttentionConfig.validate_backend_before: "auto" is no choice, a name is the enum member's
        value = None if str(backend).lower() == "auto" else str(backend).upper()
        _set(config, "attention_config.backend", value)
        result.flags["attention_config.backend"] = given["attention_backend"].option
    for dest, unset in _KERNEL_SHORTHANDS:
        value = result.extra.get(dest)
        if dest not in given or value is None or value == unset or dest in result.given_twice:
            continue
        _set(config, f"kernel_config.{dest}", value)
        result.flags[f"kernel_config.{dest}"] = given[dest].option
    if result.extra.get("enable_return_routed_experts"):  # EngineArgs.__post_init__ (arg_utils.py:897)
        _set(config, "aux_output_config.enable_return_routed_experts", True)
        result.flags["aux_output_config.enable_return_routed_experts"] = given["enable_return_routed_experts"].option
    if "reasoning_parser" in given:  # EngineArgs._set_default_reasoning_config_args (arg_utils.py:3148-3153)
        raw = str(given["reasoning_parser"].value)
        parser = "" if raw.lower() == "none" else raw  # parse_reasoning_parser (arg_utils.py:188-190)
        if parser:
            rc = config.get("reasoning_config")
            config["reasoning_config"] = {**(rc if isinstance(rc, dict) else {}), "reasoning_parser": parser}
            result.flags["reasoning_config.reasoning_parser"] = given["reasoning_parser"].option
    for dest, key in _SPEC_SHORTHANDS:  # create_speculative_config (arg_utils.py:2141-2155)
        value = result.extra.get(dest)
        if value is None:
            continue
        spec = config.get("speculative_config")
        if isinstance(spec, dict) and key in spec:
            result.given_twice.append(dest)
            continue
        config["speculative_config"] = {**(spec if isinstance(spec, dict) else {}), key: value}
        result.flags[f"speculative_config.{key}"] = given[dest].option


def _apply_engine_args(
    config: dict[str, Any],
    result: ParsedArgs,
    given: dict[str, _Given],
    lora_given: list[str],
    at_create: bool = False,
    cc_at_create: bool = False,
    mode_enum: bool = False,
) -> None:
    """The plain copies ``EngineArgs.create_engine_config`` makes (no derived defaults).

    ``at_create``: the version's create_engine_config refuses a field given twice (flag and JSON) itself, after
    the sub-configs it builds first (vLLM 0.34.0): recorded in ``result.given_twice`` for its rules. ``mode_enum``:
    as :func:`parse_vllm_args` takes it (the -O value is converted again, as the first pass accepted it).
    """
    if at_create:  # flags 0.34.0 keeps beside their sub-config's JSON (arg_utils.py:2766, 2828)
        for dest, json_dest, key in _GIVEN_TWICE_EXTRA:
            own = result.extra.get(dest)
            whole = result.extra.get(json_dest, _get(config, json_dest))
            if own is not None and isinstance(whole, dict) and whole.get(key) is not None:
                result.given_twice.append(dest)
        _apply_shorthands(config, result, given)
    # -O / --compilation-config against the dedicated compilation flags
    cc_json: dict[str, Any] = {}
    if "compilation_config" in given:
        cc_json = _convert(_BY_DEST["compilation_config"], given["compilation_config"], mode_enum=mode_enum)[0]
    both_sizes = "cuda_graph_sizes" in given and "cudagraph_capture_sizes" in given
    for dest, key, name in _MUTUALLY_EXCLUSIVE:
        if dest not in given:
            continue
        in_json = key in cc_json and cc_json[key] is not None
        if in_json and (at_create or cc_at_create):
            result.given_twice.append(dest)
        elif dest == "cudagraph_capture_sizes" and both_sizes and cc_at_create:
            result.given_twice.append(dest)  # --cuda-graph-sizes wrote the key first
        elif in_json or (dest == "cudagraph_capture_sizes" and both_sizes):
            raise InvalidValueError(
                f"{name} and compilation_config.{key} are mutually exclusive (set by {given[dest].option} and {given['compilation_config'].option if in_json else '--cuda-graph-sizes'})",
                path=f"compilation_config.{key}",
            )
    if "compilation_config" in given:
        # the dedicated flags were written into config before the JSON merge and
        # must win; re-apply them over the JSON value
        for dest, key, _ in _MUTUALLY_EXCLUSIVE:
            if dest in given:
                value, _text = _convert(_BY_DEST[dest], given[dest])
                _set(config, f"compilation_config.{key}", value)

    if "guided_decoding_backend" in given:
        result.quirks.append(
            f"{given['guided_decoding_backend'].option} {result.extra['guided_decoding_backend']} has no effect: "
            "vLLM stores it as StructuredOutputsConfig.guided_decoding_backend, an attribute nothing reads, so "
            "structured_outputs_config.backend keeps its value")
    # create_model_config: the deprecated multimodal flags rewrite their replacements
    if result.extra.get("disable_mm_preprocessor_cache"):
        _set(config, "model_config.mm_processor_cache_gb", 0)
    if result.extra.get("enable_multimodal_encoder_data_parallel"):
        _set(config, "model_config.mm_encoder_tp_mode", "data")

    # LoRA: the config exists only with --enable-lora
    enable_lora = bool(result.extra.get("enable_lora"))
    if enable_lora:
        lora = config.setdefault("lora_config", {})
        cpu = lora.get("max_cpu_loras")
        if "max_cpu_loras" in lora and (cpu is None or cpu <= 0):
            lora["max_cpu_loras"] = None
        result.flags.setdefault("lora_config", given["enable_lora"].option)
    elif "lora_config" in config:
        dropped = config.pop("lora_config")
        if dropped.get("default_mm_loras"):  # still EngineArgs' field: 0.34.0's create_engine_config checks it
            result.extra["default_mm_loras"] = dropped["default_mm_loras"]
        for key in dropped:
            result.flags.pop(f"lora_config.{key}", None)
        result.advice.append(
            f"{', '.join(sorted(set(lora_given)))} without --enable-lora: no LoRA config is created, so these flags have no effect"
        )


def flag_text_table() -> dict[str, str]:
    """``{target path: first flag spelling}`` for every flag (for docs and did-you-mean)."""
    return {s.target: s.names[0] for s in FLAGS}
