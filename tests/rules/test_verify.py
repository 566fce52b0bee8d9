"""Steps 3-6 checks and the quantization config (postinit.rules.verify)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules import verify as v
from postinit.rules._kit import state

_MC = {"model_config": True}


@pytest.mark.parametrize("backend, seed, fails", [("external_launcher", None, True), ("external_launcher", 0, False), ("mp", None, False)])
def test_external_launcher_seed(backend: str, seed: Any, fails: bool) -> None:
    """external_launcher without a seed is an AssertionError."""
    s = state({**_MC, "parallel_config.distributed_executor_backend": backend, "model_config.seed": seed})
    assert isinstance(v.external_launcher_seed(s), Violation) is fails


@pytest.mark.parametrize("heads, tp, fails", [(32, 4, False), (32, 3, True), (None, 2, False)])
def test_heads_divisible_by_tp(heads: Any, tp: int, fails: bool) -> None:
    """Attention heads must divide by TP (missing heads count as 0)."""
    s = state({**_MC, "model_config.hf_text_config.num_attention_heads": heads, "parallel_config.tensor_parallel_size": tp})
    out = v.heads_divisible_by_tp(s)
    assert isinstance(out, Violation) is fails
    if fails:
        assert out.message == "Total number of attention heads (32) must be divisible by tensor parallel size (3)."


@pytest.mark.parametrize("experts, ep, fails", [(None, True, True), (8, True, False), ([4, 4], True, False), (None, False, False)])
def test_expert_parallel_needs_experts(experts: Any, ep: bool, fails: bool) -> None:
    """Expert parallelism on a dense model is a ValueError."""
    s = state({**_MC, "model_config.hf_text_config.num_experts": experts, "parallel_config.enable_expert_parallel": ep})
    assert isinstance(v.expert_parallel_needs_experts(s), Violation) is fails


@pytest.mark.parametrize("arch, pp, fails", [("BertModel", 2, True), ("LlamaForCausalLM", 2, False), ("BertModel", 1, False)])
def test_pipeline_parallel_supported(arch: str, pp: int, fails: bool) -> None:
    """PP > 1 on a model without SupportsPP is a NotImplementedError."""
    s = state({**_MC, "model_config.architecture": arch, "parallel_config.pipeline_parallel_size": pp})
    out = v.pipeline_parallel_supported(s)
    assert isinstance(out, Violation) is fails
    if fails:
        assert out.error == "NotImplementedError"


@pytest.mark.parametrize("tp, dcp, kv, mla, fails", [
    (2, 2, 8, False, True), (8, 2, 4, False, False), (8, 4, 4, False, True), (2, 2, 8, True, False)])
def test_dcp_kv_heads(tp: int, dcp: int, kv: int, mla: bool, fails: bool) -> None:
    """DCP needs TP > KV heads and DCP <= TP // KV heads (not for MLA)."""
    s = state({**_MC, "parallel_config.tensor_parallel_size": tp, "parallel_config.decode_context_parallel_size": dcp,
               "model_config.hf_text_config.num_key_value_heads": kv, "model_config.use_mla": mla})
    out = v.dcp_kv_heads(s)
    assert isinstance(out, Violation) is fails
    if fails:
        assert out.error == "AssertionError"


def test_dual_chunk_attention_sparse_config() -> None:
    """A dual chunk attention model's sparse_attention_config.json is merged in, sparse attention enabled unless the
    config says otherwise (n340, n341); without the file nothing changes."""
    dca = {"chunk_size": 8192}
    s = state({**_MC, "model_config.model": "m", "model_config.hf_config.dual_chunk_attention_config": dca,
               "model_config.hf_config.dir_sparse_attention_config": {"0": {}}})
    out = v.dual_chunk_attention(s)
    assert isinstance(out, Outcome) and out.args == {"file": "m/sparse_attention_config.json"}
    assert out.changes == {"model_config.hf_config.dual_chunk_attention_config": {
        "chunk_size": 8192, "sparse_attention_config": {"0": {}}, "sparse_attention_enabled": True}}
    off = state({**_MC, "model_config.model": "m", "model_config.hf_config.dir_sparse_attention_config": {"0": {}},
                 "model_config.hf_config.dual_chunk_attention_config": {**dca, "sparse_attention_enabled": False}})
    merged = v.dual_chunk_attention(off)
    assert isinstance(merged, Outcome)
    assert merged.changes["model_config.hf_config.dual_chunk_attention_config"]["sparse_attention_enabled"] is False
    assert v.dual_chunk_attention(state({**_MC, "model_config.hf_config.dual_chunk_attention_config": dca})) is None


def test_dcp_kv_heads_nemotron_nas() -> None:
    """Nemotron-NAS: the KV heads of the first block with attention (n338); none at all is vLLM's RuntimeError
    (n339)."""
    blocks = [{"attention": {"no_op": True}}, {"attention": {"no_op": False, "n_heads_in_group": 4}}]
    base = {**_MC, "parallel_config.tensor_parallel_size": 4, "parallel_config.decode_context_parallel_size": 2,
            "model_config.hf_config.model_type": "nemotron-nas", "model_config.hf_config.num_attention_heads": 8,
            "model_config.hf_text_config.num_attention_heads": 8}
    assert v.dcp_kv_heads(state({**base, "model_config.hf_config.block_configs": blocks})) is None
    out = v.dcp_kv_heads(state({**base, "model_config.hf_config.block_configs": blocks[:1]}))
    assert isinstance(out, Violation) and out.error == "RuntimeError"
    assert out.message == "Couldn't determine number of kv heads"


@pytest.mark.parametrize("swap, tp, host, expect", [(4, 1, 1024, None), (4, 8, 64, "warn"), (40, 2, 100, "error")])
def test_swap_space(swap: float, tp: int, host: float, expect: Any) -> None:
    """Swap space above 40% of host RAM warns, above 70% is a ValueError."""
    from postinit.schema import Platform

    s = state({"cache_config.swap_space": swap, "parallel_config.tensor_parallel_size": tp},
              platform=Platform.cuda(90, host_memory_gb=host))
    got = decide(v.swap_space, s)
    if expect is None:
        assert not got
    elif expect == "warn":
        assert got.messages == [
            "Possibly too large swap space. 32.00 GiB out of the 64.00 GiB total CPU memory is allocated for the swap space."]
    else:
        assert got.violation is not None and got.violation.message.startswith("Too large swap space. 80.00 GiB")


@pytest.mark.parametrize("v1, offload, fails", [("0", 4, True), ("1", 4, False), ("0", 0, False)])
def test_lora_cpu_offload_v0(v1: str, offload: float, fails: bool) -> None:
    """CPU offload with LoRA is refused under V0 only."""
    s = state({"lora_config": True, "cache_config.cpu_offload_gb": offload}, env={"VLLM_USE_V1": v1})
    assert isinstance(v.lora_cpu_offload_v0(s), Violation) is fails


@pytest.mark.parametrize("lora, mc, expect", [("auto", True, "bfloat16"), ("float16", True, None), ("auto", None, "violation")])
def test_lora_dtype(lora: str, mc: Any, expect: Any) -> None:
    """lora_dtype auto follows the model dtype; without a model it is vLLM's AttributeError."""
    s = state({"lora_config": True, "lora_config.lora_dtype": lora, "model_config": mc, "model_config.dtype": "bfloat16"})
    out = v.lora_dtype(s)
    if expect == "violation":
        assert isinstance(out, Violation) and out.error == "AttributeError"
    else:
        assert (out and out["lora_config.lora_dtype"]) == expect


@pytest.mark.parametrize("cfg, user, method", [
    ({"quant_method": "fp8"}, None, "fp8"), ({"quant_method": "compressed_tensors"}, None, "compressed-tensors"),
    ({"quant_method": "modelopt", "quantization": {"quant_algo": "FP8"}}, None, "modelopt"),
    ({"quant_method": "modelopt", "quantization": {"quant_algo": "NVFP4"}}, None, "modelopt_fp4"),
    (None, "awq", "awq"), (None, None, None)])
def test_quant_method(cfg: Any, user: Any, method: Any) -> None:
    """Method detection from quant_method, with the compressed-tensors and ModelOpt mappings."""
    s = state({**_MC, "model_config.hf_config.quantization_config": cfg, "model_config.quantization": user})
    assert v.quant_method(s) == method


def test_quant_config_fp8_block() -> None:
    """Golden 26: an FP8 block checkpoint yields Fp8Config with weight_block_size."""
    s = state({**_MC, "model_config.hf_config.quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})
    assert v.quant_config(s) == {"quant_config": True, "quant_config.method": "fp8", "quant_config.class_name": "Fp8Config",
                                 "quant_config.min_capability": 80, "quant_config.weight_block_size": (128, 128)}


def test_quant_config_unquantized() -> None:
    """No quantization: no quant_config."""
    assert v.quant_config(state(_MC)) is None


@pytest.mark.parametrize("platform, fails", [("t4", True), ("a100", False), ("cpu", False)])
def test_quant_capability(platform: str, fails: bool) -> None:
    """fp8 needs SM 8.0; CPU reports no capability and is not checked."""
    s = state({"quant_config": True, "quant_config.method": "fp8", "quant_config.min_capability": 80}, platform=platform)
    out = v.quant_capability(s)
    assert isinstance(out, Violation) is fails
    if fails:
        assert out.message == ("The quantization method fp8 is not supported for the current GPU. "
                               "Minimum capability: 80. Current capability: 75.")


@pytest.mark.parametrize("method, dtype, fails", [("awq", "bfloat16", True), ("awq", "float16", False), ("mxfp4", "float16", True)])
def test_quant_act_dtype(method: str, dtype: str, fails: bool) -> None:
    """Each method supports only some activation dtypes."""
    s = state({"quant_config": True, "quant_config.method": method, "model_config.dtype": dtype})
    out = v.quant_act_dtype(s)
    assert isinstance(out, Violation) is fails
    if method == "awq" and fails:
        assert out.message == ("torch.bfloat16 is not supported for quantization method awq. "
                               "Supported dtypes: [torch.float16]")


@pytest.mark.parametrize("method, fails", [("bitsandbytes", True), ("awq", False)])
def test_rocm_quant_allowlist(method: str, fails: bool) -> None:
    """ROCm refuses methods outside its list."""
    s = state({**_MC, "model_config.quantization": method}, platform="mi300x")
    assert isinstance(v.rocm_quant_allowlist(s), Violation) is fails
    assert v.rocm_quant_allowlist(state({**_MC, "model_config.quantization": method})) is None


@pytest.mark.parametrize("method, warns", [("awq", True), ("fp8", False)])
def test_rocm_triton_awq(method: str, warns: bool) -> None:
    """Every quantized model on ROCm sets VLLM_USE_TRITON_AWQ=1; AWQ also warns."""
    s = state({**_MC, "model_config.quantization": method}, platform="mi300x")
    out = v.rocm_triton_awq(s)
    assert isinstance(out, Outcome) and out.changes == {"env.VLLM_USE_TRITON_AWQ": "1"}
    assert (out.message is None) is warns
    assert v.rocm_triton_awq(state({**_MC, "model_config.quantization": method})) is None


def test_fp8_block_end_to_end() -> None:
    """Golden 26 end to end: quant_config Fp8Config with its block size."""
    r = postinit.resolve({"model_config": {"model": "fixtures/llama_fp8_block"}}, platform="cuda:90", strict=True)
    assert r.get("quant_config.class_name") == "Fp8Config"
    assert r.get("quant_config.weight_block_size") == (128, 128)


def test_dcp_kv_heads_without_head_count() -> None:
    """No head count at all: vLLM's tp // 0 is a ZeroDivisionError, reported as such (not a crash)."""
    s = state({**_MC, "parallel_config.tensor_parallel_size": 4, "parallel_config.decode_context_parallel_size": 2})
    out = v.dcp_kv_heads(s)
    assert isinstance(out, Violation) and out.error == "ZeroDivisionError"


def test_whisper_heads_not_divisible_by_tp() -> None:
    """Whisper's num_attention_heads is encoder_attention_heads (4): TP 8 is vLLM's ValueError."""
    r = postinit.resolve({"parallel_config": {"tensor_parallel_size": 8}}, model="fixtures/whisper",
                         platform="h100", strict=True)
    assert not r.ok
    assert r.violations[0].message == ("Total number of attention heads (4) must be divisible by tensor parallel "
                                       "size (8).")


def test_rocm_quantization_checked_while_building_model_config() -> None:
    """ROCm's verify_quantization runs inside ModelConfig: stage model_config, before the bitsandbytes warning (t037)."""
    from pathlib import Path

    import postinit

    model = Path(__file__).resolve().parents[1] / "golden" / "models" / "llama_bnb8"
    r = postinit.resolve(model=str(model), platform="rocm")
    v = r.violations[0]
    assert (v.rule, v.phase, v.stage) == ("verify.rocm-quant-allowlist", "model_config", "model_config")
    assert v.message == "bitsandbytes quantization is currently not supported in rocm."
    assert not [e for e in r.messages() if "BitsAndBytes" in e.message]
