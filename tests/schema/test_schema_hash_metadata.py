"""Every schema field declares its compute_hash status, and the factors match reference §6."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel

from postinit.schema import (
    CacheConfig,
    CompilationConfig,
    DeviceConfig,
    Env,
    EPLBConfig,
    HFConfig,
    KVEventsConfig,
    KVTransferConfig,
    LoadConfig,
    LoRAConfig,
    ModelConfig,
    ObservabilityConfig,
    ParallelConfig,
    PassConfig,
    Platform,
    PoolerConfig,
    QuantizationConfig,
    SchedulerConfig,
    SpeculativeConfig,
    StructuredOutputsConfig,
    Usage,
    VllmConfig,
)

MODELS: list[type[BaseModel]] = [
    CacheConfig,
    CompilationConfig,
    DeviceConfig,
    EPLBConfig,
    Env,
    HFConfig,
    KVEventsConfig,
    KVTransferConfig,
    LoadConfig,
    LoRAConfig,
    ModelConfig,
    ObservabilityConfig,
    ParallelConfig,
    PassConfig,
    Platform,
    PoolerConfig,
    QuantizationConfig,
    SchedulerConfig,
    SpeculativeConfig,
    StructuredOutputsConfig,
    Usage,
]

# reference §6 (VllmConfig: kv_events_config and quant_config are not factors)
HASH_FACTORS: dict[Any, set[str]] = {
    ModelConfig: {
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
        "hf_config",
    },
    CacheConfig: {"cache_dtype", "mamba_cache_dtype", "mamba_ssm_cache_dtype"},
    ParallelConfig: {
        "pipeline_parallel_size",
        "tensor_parallel_size",
        "enable_expert_parallel",
        "data_parallel_size",
        "all2all_backend",
        "enable_eplb",
        "eplb_config",
    },
    EPLBConfig: {"log_balancedness", "window_size", "step_interval", "num_redundant_experts"},
    SchedulerConfig: set(),
    DeviceConfig: set(),
    LoadConfig: set(),
    LoRAConfig: {
        "max_lora_rank",
        "max_loras",
        "fully_sharded_loras",
        "lora_dtype",
        "lora_extra_vocab_size",
        "lora_vocab_padding_size",
    },
    SpeculativeConfig: {"method"},
    StructuredOutputsConfig: set(),
    ObservabilityConfig: set(),
    KVTransferConfig: set(),
    KVEventsConfig: set(),
    PoolerConfig: set(),
    HFConfig: set(),
    CompilationConfig: {
        "mode",
        "backend",
        "custom_ops",
        "splitting_ops",
        "use_inductor",
        "use_inductor_graph_partition",
        "inductor_compile_config",
        "inductor_passes",
        "pass_config",
    },
    PassConfig: {name for name, f in PassConfig.model_fields.items()
                 if not (f.json_schema_extra or {}).get("since")},  # type: ignore[union-attr]
    VllmConfig: {
        "model_config",
        "cache_config",
        "parallel_config",
        "scheduler_config",
        "device_config",
        "load_config",
        "lora_config",
        "speculative_config",
        "structured_outputs_config",
        "observability_config",
        "compilation_config",
        "kv_transfer_config",
        "additional_config",
    },
}


def _extras(cls: Any) -> dict[str, dict[str, Any]]:
    fields = cls.__pydantic_fields__ if dataclasses.is_dataclass(cls) else cls.model_fields
    return {name: dict(info.json_schema_extra or {}) for name, info in fields.items()}


@pytest.mark.parametrize("cls", [*MODELS, VllmConfig], ids=lambda c: c.__name__)
def test_every_field_declares_hash(cls: Any) -> None:
    """Each field carries a boolean "hash" flag (and "derived" only as True)."""
    for name, extra in _extras(cls).items():
        assert isinstance(extra.get("hash"), bool), f"{cls.__name__}.{name}"
        assert extra.get("derived", True) is True, f"{cls.__name__}.{name}"


@pytest.mark.parametrize("cls", list(HASH_FACTORS), ids=lambda c: c.__name__)
def test_hash_factors_match_reference(cls: Any) -> None:
    """The fields flagged as hash factors are exactly reference §6's factors."""
    flagged = {name for name, extra in _extras(cls).items() if extra["hash"]}
    assert flagged == HASH_FACTORS[cls]


def test_derived_attributes_are_flagged() -> None:
    """Attributes vLLM computes carry derived=True."""
    expected = {
        ModelConfig: {"architecture", "runner_type", "convert_type", "use_mla", "is_hybrid"},
        SchedulerConfig: {
            "chunked_prefill_enabled",
            "max_num_encoder_input_tokens",
            "encoder_cache_size",
        },
        CompilationConfig: {"bs_to_padded_graph_size", "local_cache_dir"},
        ParallelConfig: {"world_size"},
        VllmConfig: {"instance_id", "quant_config"},
    }
    for cls, names in expected.items():
        extras = _extras(cls)
        assert all(extras[n].get("derived") for n in names), cls.__name__
