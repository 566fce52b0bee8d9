"""VllmConfig JSON round trip and JSON-schema export."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from postinit.schema import (
    CacheConfig,
    CompilationConfig,
    CompilationMode,
    CUDAGraphMode,
    HFConfig,
    KVEventsConfig,
    KVTransferConfig,
    LoRAConfig,
    ModelConfig,
    ParallelConfig,
    PassConfig,
    QuantizationConfig,
    SpeculativeConfig,
    Usage,
    VllmConfig,
)

ADAPTER: TypeAdapter[VllmConfig] = TypeAdapter(VllmConfig)


def _full() -> VllmConfig:
    return VllmConfig(
        model_config=ModelConfig(
            model="meta-llama/Llama-3.1-8B-Instruct",
            dtype="bfloat16",
            max_model_len=8192,
            hf_config=HFConfig(
                model_type="llama",
                architectures=["LlamaForCausalLM"],
                max_position_embeddings=131072,
                rope_scaling={"rope_type": "llama3", "factor": 8.0},
            ),
            architecture="LlamaForCausalLM",
            runner_type="generate",
        ),
        cache_config=CacheConfig(block_size=16, cache_dtype="fp8"),
        parallel_config=ParallelConfig(tensor_parallel_size=2, all2all_backend="pplx"),
        lora_config=LoRAConfig(max_loras=2),
        speculative_config=SpeculativeConfig(method="eagle3", num_speculative_tokens=3),
        quant_config=QuantizationConfig(method="fp8", class_name="Fp8Config"),
        compilation_config=CompilationConfig(
            mode=CompilationMode.VLLM_COMPILE,
            cudagraph_mode=CUDAGraphMode.FULL_AND_PIECEWISE,
            cudagraph_capture_sizes=[1, 2, 4, 8],
            max_cudagraph_capture_size=8,
            bs_to_padded_graph_size=[0, 1, 2, 4, 4, 8, 8, 8, 8],
            compile_sizes=[1, "cudagraph_capture_sizes"],
            pass_config=PassConfig(enable_noop=True),
        ),
        kv_transfer_config=KVTransferConfig(
            kv_connector="SharedStorageConnector", kv_role="kv_both"
        ),
        kv_events_config=KVEventsConfig(enable_kv_cache_events=True),
        additional_config={"a": [1, 2]},
        instance_id="abc",
    )


def test_round_trip_default() -> None:
    """The default VllmConfig survives dump(json) → validate."""
    x = VllmConfig()
    assert ADAPTER.validate_python(ADAPTER.dump_python(x, mode="json")) == x


def test_round_trip_full() -> None:
    """A config using every optional sub-config and both enums survives dump(json) → validate."""
    x = _full()
    dumped = ADAPTER.dump_python(x, mode="json")
    assert dumped["compilation_config"]["mode"] == "VLLM_COMPILE"
    assert dumped["compilation_config"]["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert ADAPTER.validate_python(dumped) == x
    assert ADAPTER.validate_json(json.dumps(dumped)) == x


@settings(max_examples=50, deadline=None)
@given(
    mode=st.sampled_from(list(CompilationMode)) | st.none(),
    graphs=st.sampled_from(list(CUDAGraphMode)) | st.none(),
    sizes=st.lists(st.integers(1, 1024), max_size=8) | st.none(),
    tp=st.integers(1, 16),
)
def test_round_trip_property(
    mode: CompilationMode | None, graphs: CUDAGraphMode | None, sizes: list[int] | None, tp: int
) -> None:
    """Arbitrary enum/size/parallel combinations round-trip through JSON."""
    x = VllmConfig(
        parallel_config=ParallelConfig(tensor_parallel_size=tp),
        compilation_config=CompilationConfig(
            mode=mode, cudagraph_mode=graphs, cudagraph_capture_sizes=sizes
        ),
    )
    assert ADAPTER.validate_python(ADAPTER.dump_python(x, mode="json")) == x


def test_json_schema_export() -> None:
    """The JSON schema exports, keeps `model_config`, lists mode names and hash metadata."""
    schema = ADAPTER.json_schema()
    text = json.dumps(schema)
    assert "model_config" in schema["properties"]
    for name in ("VLLM_COMPILE", "DYNAMO_TRACE_ONCE", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
        assert name in text
    assert schema["additionalProperties"] is False
    cc = schema["$defs"]["CompilationConfig"]["properties"]
    assert cc["mode"]["hash"] is True and cc["cudagraph_mode"]["hash"] is False
    assert cc["bs_to_padded_graph_size"]["derived"] is True
    assert Usage.model_json_schema()["properties"]["usage_context"]
