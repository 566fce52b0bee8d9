"""Bad values are rejected by the schema, and the error names the full field path."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from postinit.schema import VllmConfig

ADAPTER: TypeAdapter[VllmConfig] = TypeAdapter(VllmConfig)

BAD = [
    ({"compilation_config": {"cudagraph_mode": "FULLY"}}, "compilation_config.cudagraph_mode"),
    ({"compilation_config": {"mode": "VLLM"}}, "compilation_config.mode"),
    ({"compilation_config": {"custom_ops": "all"}}, "compilation_config.custom_ops"),
    (
        {"compilation_config": {"pass_config": {"enable_fusoin": True}}},
        "compilation_config.pass_config.enable_fusoin",
    ),
    (
        {"compilation_config": {"cudagraph_capture_sizes": ["x"]}},
        "compilation_config.cudagraph_capture_sizes.0",
    ),
    ({"cache_config": {"gpu_memory_utilization": 1.5}}, "cache_config.gpu_memory_utilization"),
    ({"cache_config": {"cache_dtype": "fp4"}}, "cache_config.cache_dtype"),
    ({"cache_config": {"swap_space": -1}}, "cache_config.swap_space"),
    ({"cache_config": {"mamba_block_size": 0}}, "cache_config.mamba_block_size"),
    ({"parallel_config": {"tensor_parallel_size": "two"}}, "parallel_config.tensor_parallel_size"),
    ({"parallel_config": {"all2all_backend": "nccl"}}, "parallel_config.all2all_backend"),
    ({"parallel_config": {"tensor_paralel_size": 2}}, "parallel_config.tensor_paralel_size"),
    (
        {"parallel_config": {"eplb_config": {"window_size": "big"}}},
        "parallel_config.eplb_config.window_size",
    ),
    ({"scheduler_config": {"policy": "lifo"}}, "scheduler_config.policy"),
    ({"scheduler_config": {"max_num_seqs": 0}}, "scheduler_config.max_num_seqs"),
    ({"model_config": {"dtype": "int8"}}, "model_config.dtype"),
    ({"model_config": {"runner": "chat"}}, "model_config.runner"),
    (
        {"model_config": {"hf_config": {"max_position_embeddings": "long"}}},
        "model_config.hf_config.max_position_embeddings",
    ),
    ({"model_config": {"hf_config": {"not_a_key": 1}}}, "model_config.hf_config.not_a_key"),
    ({"lora_config": {"max_lora_rank": 17}}, "lora_config.max_lora_rank"),
    ({"lora_config": {"max_loras": 0}}, "lora_config.max_loras"),
    ({"speculative_config": {"method": "medusa2"}}, "speculative_config.method"),
    ({"kv_transfer_config": {"kv_role": "kv_sender"}}, "kv_transfer_config.kv_role"),
    ({"kv_events_config": {"publisher": "kafka"}}, "kv_events_config.publisher"),
    ({"structured_outputs_config": {"backend": "regex"}}, "structured_outputs_config.backend"),
    (
        {"observability_config": {"collect_detailed_traces": ["gpu"]}},
        "observability_config.collect_detailed_traces.0",
    ),
    ({"quant_config": {"method": ""}}, "quant_config.method"),
    ({"compilaton_config": {}}, "compilaton_config"),
]


@pytest.mark.parametrize(("data", "path"), BAD, ids=[p for _, p in BAD])
def test_bad_value_names_full_path(data: dict[str, Any], path: str) -> None:
    """Validation fails and one error's location is the dotted path of the bad field."""
    with pytest.raises(ValidationError) as info:
        ADAPTER.validate_python(data)
    locs = {".".join(str(part) for part in err["loc"]) for err in info.value.errors()}
    assert path in locs, locs


def test_unknown_key_is_extra_forbidden() -> None:
    """An unknown key is rejected with pydantic's extra_forbidden error type."""
    with pytest.raises(ValidationError) as info:
        ADAPTER.validate_python({"cache_config": {"blocksize": 16}})
    assert info.value.errors()[0]["type"] == "extra_forbidden"
