"""Tests for postinit/rules/model_config.py: ModelConfig.__post_init__ derivations (reference §2.1)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules import model_config as mc
from postinit.rules import parallel
from postinit.rules._kit import state
from postinit.schema.loaders import list_catalog, load_model

_GOLDEN_MODELS = Path(__file__).resolve().parents[1] / "golden" / "models"

M = "model_config."
H = "model_config.hf_config."
T = "model_config.hf_text_config."
ORACLE = Path("/work/shared/oracle")


def hf(values: Mapping[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    """A state's values for a present ModelConfig whose hf_config and hf_text_config share ``values``."""
    out: dict[str, Any] = {"model_config": True}
    for key, value in {**(values or {}), **kw}.items():
        out[H + key] = value
        out[T + key] = value
    return out


def changes(result: Any) -> Mapping[str, Any]:
    """The changes of a rule result (mapping or Outcome)."""
    return result.changes if isinstance(result, Outcome) else result


# ---------------------------------------------------------------------------- registry data


def test_model_info_flags() -> None:
    """The registry string decodes into the class's interface flags and default pooling type."""
    info = mc.model_info("BambaForCausalLM")
    assert info is not None and info.generate and info.hybrid and info.mamba_prefix_caching and info.inner_state
    bert = mc.model_info("BertModel")
    assert bert is not None and bert.pooling and not bert.generate and bert.pooling_type == "CLS"
    assert mc.model_info("NoSuchForCausalLM") is None


@pytest.mark.parametrize(
    ("arch", "hybrid", "attention_free", "mamba_prefix"),
    [
        ("JambaForCausalLM", True, False, False),
        ("Qwen3NextForCausalLM", True, False, False),
        ("NemotronHForCausalLM", True, False, True),
        ("Zamba2ForCausalLM", True, False, True),
        ("MambaForCausalLM", False, True, False),
        ("Mamba2ForCausalLM", False, True, True),
        ("LlamaForCausalLM", False, False, False),
    ],
)
def test_registry_hybrid_table(arch: str, hybrid: bool, attention_free: bool, mamba_prefix: bool) -> None:
    """Reference §2.1.1: hybrid / attention-free / mamba-prefix-caching classes at d7fb10c57."""
    info = mc.model_info(arch)
    assert info is not None
    assert (info.hybrid, info.attention_free, info.mamba_prefix_caching) == (hybrid, attention_free, mamba_prefix)


# ---------------------------------------------------------------------------- simple derivations


def test_rules_do_nothing_without_model_config() -> None:
    """With no ModelConfig (presence None) no model_config rule fires."""
    s = state({"model_config": None})
    for fn in (mc.architectures, mc.attention_chunk_size, mc.is_encoder_decoder, mc.runner_type, mc.dtype,
               mc.max_model_len, mc.seed_v1, mc.architecture, mc.head_dtype, mc.config_updated):
        assert fn(s) is None


def test_architectures() -> None:
    """architectures is config.json's list, or empty."""
    assert mc.architectures(state(hf(architectures=["LlamaForCausalLM"]))) == {M + "architectures": ("LlamaForCausalLM",)}
    assert mc.architectures(state(hf())) == {M + "architectures": ()}


@pytest.mark.parametrize(("chunk", "expected"), [(8192, 8192), (None, None)])
def test_attention_chunk_size(chunk: int | None, expected: int | None) -> None:
    """attention_chunk_size comes from the text config (Llama-4) and is None otherwise."""
    assert mc.attention_chunk_size(state(hf(attention_chunk_size=chunk))) == {M + "attention_chunk_size": expected}


@pytest.mark.parametrize(
    ("top", "text", "expected"), [(True, None, True), (None, True, True), (None, None, False), (False, False, False)]
)
def test_is_encoder_decoder(top: bool | None, text: bool | None, expected: bool) -> None:
    """Encoder-decoder when either the config or its text config says so."""
    s = state({"model_config": True, H + "is_encoder_decoder": top, T + "is_encoder_decoder": text})
    assert mc.is_encoder_decoder(s) == {M + "is_encoder_decoder": expected}


@pytest.mark.parametrize(
    ("model_type", "kv_lora_rank", "expected"),
    [
        ("deepseek_v3", 512, True),
        ("deepseek_v2", 512, True),
        ("deepseek_v32", 512, True),
        ("kimi_k2", 512, True),
        ("longcat_flash", 512, True),
        ("deepseek_mtp", 512, True),
        ("deepseek_v3", None, False),
        ("llama", 512, False),
    ],
)
def test_is_deepseek_mla(model_type: str, kv_lora_rank: int | None, expected: bool) -> None:
    """MLA model types with kv_lora_rank are DeepSeek-style MLA models."""
    s = state(hf(model_type=model_type, kv_lora_rank=kv_lora_rank))
    assert mc.is_deepseek_mla(s) == {M + "is_deepseek_mla": expected}


@pytest.mark.parametrize(
    ("is_mla", "disable", "expected"), [(True, "0", True), (True, "1", False), (False, "0", False)]
)
def test_use_mla(is_mla: bool, disable: str, expected: bool) -> None:
    """use_mla is is_deepseek_mla unless VLLM_MLA_DISABLE is set."""
    s = state({"model_config": True, M + "is_deepseek_mla": is_mla}, env={"VLLM_MLA_DISABLE": disable})
    assert mc.use_mla(s) == {M + "use_mla": expected}


@pytest.mark.parametrize(
    ("rope", "expected"),
    [({"rope_type": "default", "mrope_section": [16, 24, 24]}, True), ({"rope_type": "yarn", "factor": 4}, False),
     (None, False)],
)
def test_uses_mrope(rope: dict[str, Any] | None, expected: bool) -> None:
    """M-RoPE is declared by rope_scaling.mrope_section."""
    assert mc.uses_mrope(state(hf(rope_scaling=rope))) == {M + "uses_mrope": expected}


@pytest.mark.parametrize(
    ("dims", "flag", "expected"), [([64, 128], None, True), (None, True, True), (None, None, False), ([], False, False)]
)
def test_is_matryoshka(dims: list[int] | None, flag: bool | None, expected: bool) -> None:
    """Matryoshka from matryoshka_dimensions or is_matryoshka in config.json."""
    s = state({"model_config": True, H + "matryoshka_dimensions": dims, H + "is_matryoshka": flag})
    assert mc.is_matryoshka(s) == {M + "is_matryoshka": expected}


def test_config_updated() -> None:
    """ModelConfig resets config_updated to False (VllmConfig step 2 sets it)."""
    assert mc.config_updated(state({"model_config": True, M + "config_updated": True})) == {M + "config_updated": False}


# ---------------------------------------------------------------------------- seed, eager


@pytest.mark.parametrize(
    ("seed", "env", "expected", "warns"),
    [
        (None, {}, 0, False),
        (None, {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}, 0, True),
        (7, {}, None, False),
        (None, {"VLLM_USE_V1": "0"}, None, False),
    ],
)
def test_seed_v1(seed: int | None, env: dict[str, str], expected: int | None, warns: bool) -> None:
    """V1 defaults an unset seed to 0, warning when workers share the user's process."""
    out = mc.seed_v1(state({"model_config": True, M + "seed": seed}, env=env))
    if expected is None:
        assert out is None
        return
    assert changes(out) == {M + "seed": expected}
    assert isinstance(out, Outcome) == warns
    if warns:
        assert isinstance(out, Outcome) and out.message == mc.SEED_MESSAGE


@pytest.mark.parametrize(("value", "fires"), [("1", True), ("2", True), ("0", False)])
def test_batch_invariant(value: str, fires: bool) -> None:
    """VLLM_BATCH_INVARIANT != 0 forces enforce_eager and disables custom all-reduce."""
    s = state({"model_config": True}, env={"VLLM_BATCH_INVARIANT": value})
    assert mc.batch_invariant_eager(s) == ({M + "enforce_eager": True} if fires else None)
    assert parallel.batch_invariant_custom_allreduce(s) == (
        {"parallel_config.disable_custom_all_reduce": True} if fires else None
    )


@pytest.mark.parametrize(
    ("platform", "enc_dec", "eager", "fires"),
    [("rocm", True, False, True), ("h100", True, False, False), ("rocm", False, False, False), ("rocm", True, True, False)],
)
def test_rocm_encoder_decoder_eager(platform: str, enc_dec: bool, eager: bool, fires: bool) -> None:
    """Encoder-decoder models on ROCm fall back to eager mode with vLLM's warning."""
    s = state({"model_config": True, M + "is_encoder_decoder": enc_dec, M + "enforce_eager": eager,
               H + "model_type": "whisper"}, platform=platform)
    out = mc.rocm_encoder_decoder_eager(s)
    if not fires:
        assert out is None
        return
    assert isinstance(out, Outcome) and out.changes == {M + "enforce_eager": True}
    assert out.message == "CUDA graph is not supported for whisper on ROCm yet, fallback to eager mode."


@pytest.mark.parametrize(
    ("quant", "qc", "fires"),
    [("bitsandbytes", {"load_in_8bit": True}, True), ("bitsandbytes", {"load_in_4bit": True}, False),
     (None, {"load_in_8bit": True}, False), ("bitsandbytes", None, False)],
)
def test_bnb_8bit_eager(quant: str | None, qc: dict[str, Any] | None, fires: bool) -> None:
    """bitsandbytes 8-bit checkpoints run eagerly."""
    s = state({"model_config": True, M + "quantization": quant, H + "quantization_config": qc})
    assert mc.bnb_8bit_eager(s) == ({M + "enforce_eager": True} if fires else None)


# ---------------------------------------------------------------------------- runner / convert / architecture


@pytest.mark.parametrize(
    ("archs", "st_pooling", "runner", "expected"),
    [
        (["LlamaForCausalLM"], None, "auto", "generate"),
        (["BertModel"], None, "auto", "pooling"),
        (["LlamaForCausalLM"], "LAST", "auto", "pooling"),
        (["FooForSequenceClassification"], None, "auto", "pooling"),
        (["FooForRewardModeling"], None, "auto", "pooling"),
        (["FooForCausalLM"], None, "auto", "generate"),
        (["FooLMHeadModel"], None, "auto", "generate"),
        (["NomicBertModel"], None, "auto", "pooling"),
        (["Qwen2ForRewardModel"], None, "auto", "pooling"),
        (["LlamaForCausalLM"], None, "pooling", "pooling"),
        (["BertModel"], None, "draft", "draft"),
    ],
)
def test_runner_type(archs: list[str], st_pooling: str | None, runner: str, expected: str) -> None:
    """Reference §2.1.2: --runner auto from sentence-transformers, the registry, then the suffix table."""
    s = state({**hf(architectures=archs, st_pooling_type=st_pooling), M + "runner": runner})
    out = mc.runner_type(s)
    assert changes(out) == {M + "runner_type": expected}
    if runner == "auto" and expected == "pooling":
        assert isinstance(out, Outcome) and out.message == mc.RUNNER_MESSAGE.format("pooling")


@pytest.mark.parametrize(
    ("archs", "runner_type", "convert", "expected"),
    [
        (["LlamaForCausalLM"], "generate", "auto", "none"),
        (["LlamaForCausalLM"], "pooling", "auto", "embed"),
        (["BertModel"], "pooling", "auto", "none"),
        (["NomicBertModel"], "pooling", "auto", "embed"),
        (["Qwen2ForSequenceClassification"], "pooling", "auto", "classify"),
        (["FooForRewardModeling"], "pooling", "auto", "reward"),
        (["LlamaForCausalLM"], "generate", "embed", "embed"),
    ],
)
def test_convert_type(archs: list[str], runner_type: str, convert: str, expected: str) -> None:
    """Reference §2.1.2: --convert auto is none for native classes, else from the suffix table filtered by runner."""
    s = state({**hf(architectures=archs), M + "runner_type": runner_type, M + "convert": convert})
    out = mc.convert_type(s)
    assert changes(out) == {M + "convert_type": expected}
    if convert == "auto" and expected != "none":
        assert isinstance(out, Outcome) and out.message == mc.CONVERT_MESSAGE.format(expected)


@pytest.mark.parametrize(
    ("archs", "runner_type", "convert_type", "error"),
    [
        (["BertModel"], "generate", "none", "This model does not support `--runner generate`."),
        (["LlamaForCausalLM"], "pooling", "none", "This model does not support `--runner pooling`."),
        (["LlamaForCausalLM"], "pooling", "embed", None),
        (["BertModel"], "pooling", "none", None),
        (["LlamaForCausalLM"], "generate", "none", None),
    ],
)
def test_runner_supported(archs: list[str], runner_type: str, convert_type: str, error: str | None) -> None:
    """A runner the class does not implement needs a converter (none exist for generate)."""
    s = state({**hf(architectures=archs), M + "runner_type": runner_type, M + "convert_type": convert_type})
    out = mc.runner_supported(s)
    if error is None:
        assert out is None
    else:
        assert isinstance(out, Violation) and out.message.startswith(error) and out.error == "ValueError"


@pytest.mark.parametrize(
    ("archs", "impl", "runner", "runner_type", "convert_type", "text_config", "experts", "expected"),
    [
        (["LlamaForCausalLM"], "auto", "auto", "generate", "none", None, None, "LlamaForCausalLM"),
        (["Qwen2ForSequenceClassification"], "auto", "auto", "pooling", "classify", None, None,
         "Qwen2ForSequenceClassification"),
        (["FooForCausalLM", "LlamaForCausalLM"], "auto", "auto", "generate", "none", None, None, "LlamaForCausalLM"),
        (["FooForCausalLM"], "auto", "auto", "generate", "none", None, None, "TransformersForCausalLM"),
        (["FooForCausalLM"], "auto", "auto", "generate", "none", {"hidden_size": 8}, 8,
         "TransformersMultiModalMoEForCausalLM"),
        (["FooModel"], "auto", "auto", "pooling", "none", None, None, "TransformersEmbeddingModel"),
        (["LlamaForCausalLM"], "transformers", "auto", "generate", "none", None, None, "TransformersForCausalLM"),
        (["LlamaForCausalLM"], "terratorch", "auto", "pooling", "none", None, None, "Terratorch"),
    ],
)
def test_architecture(
    archs: list[str], impl: str, runner: str, runner_type: str, convert_type: str,
    text_config: dict[str, Any] | None, experts: int | None, expected: str,
) -> None:
    """Reference §2.1.1: the first raw registered entry wins; unregistered ones use the Transformers backend."""
    s = state({**hf(architectures=archs, num_local_experts=experts), H + "text_config": text_config,
               M + "model_impl": impl, M + "runner": runner, M + "runner_type": runner_type,
               M + "convert_type": convert_type})
    got = decide(mc.architecture, s)
    assert got.changes == {M + "architecture": expected}
    assert got.messages == [f"Resolved architecture: {expected}"]


@pytest.mark.parametrize(
    ("archs", "impl", "convert_type", "error"),
    [
        ([], "auto", "none", "No model architectures are specified"),
        (["FooForCausalLM"], "vllm", "none", "Model architectures ['FooForCausalLM'] are not supported for now."),
        (["LlamaForCausalLM"], "vllm", "none", None),
        (["FooForCausalLM"], "auto", "none", None),
    ],
)
def test_architecture_supported(archs: list[str], impl: str, convert_type: str, error: str | None) -> None:
    """vLLM refuses empty or unsupported architectures (no Transformers fallback with --model-impl vllm)."""
    s = state({**hf(architectures=archs), M + "model_impl": impl, M + "runner_type": "generate",
               M + "convert_type": convert_type})
    out = mc.architecture_supported(s)
    if error is None:
        assert out is None
    else:
        assert isinstance(out, Violation) and out.message.startswith(error)


def test_unsupported_architecture_lists_vllm_registry_in_order() -> None:
    """The error lists ModelRegistry.get_supported_archs() as dict_keys, in vLLM's order (golden t084)."""
    s = state({**hf(architectures=["FooForCausalLM"]), M + "model_impl": "vllm", M + "runner_type": "generate",
               M + "convert_type": "none"})
    out = mc.architecture_supported(s)
    assert isinstance(out, Violation)
    assert out.message.endswith(f"Supported architectures: dict_keys({list(mc.SUPPORTED_ARCHS_ORDER)})")
    assert set(mc.SUPPORTED_ARCHS_ORDER) == set(mc.REGISTRY) and len(mc.SUPPORTED_ARCHS_ORDER) == len(mc.REGISTRY)
    assert mc.SUPPORTED_ARCHS_ORDER[:3] == ("ApertusForCausalLM", "AquilaModel", "AquilaForCausalLM")


@pytest.mark.parametrize(("config", "rule", "not_logged"), [
    ({"model_config": {"runner": "pooling", "convert": "none"}}, "model.runner-supported",
     "Resolved architecture: LlamaForCausalLM"),
    ({"model_config": {"quantization": "fp8"}}, "model.quantization", None),
])
def test_model_config_checks_raise_in_vllms_order(config: dict[str, Any], rule: str, not_logged: str | None) -> None:
    """ModelConfig raises the runner check before logging the architecture (t091), the quantization check after
    the architecture and max-len records (t124)."""
    model = "fixtures/llama" if rule != "model.quantization" else str(_GOLDEN_MODELS / "llama_awq")
    r = postinit.resolve(config, model=model, platform="h100")
    assert r.violations[0].rule == rule
    texts = [e.message for e in r.messages()]
    if not_logged:
        assert not_logged not in texts
    else:
        assert {"Resolved architecture: LlamaForCausalLM", "Using max model len 4096"} <= set(texts)


def test_float16_refusal_comes_before_the_cast_record() -> None:
    """Gemma-3 in float16 fails in _check_valid_dtype before vLLM logs a cast (golden t072-gemma3-fp16)."""
    r = postinit.resolve({"model_config": {"dtype": "float16"}}, model=str(_GOLDEN_MODELS / "gemma3_text"),
                         platform="h100")
    assert r.violations[0].rule == "model.dtype-float16-unsupported"
    assert r.violations[0].stage == "model_config"
    assert [e.message for e in r.messages()] == ["Resolved architecture: Gemma3ForCausalLM"]


@pytest.mark.parametrize(
    ("arch", "hybrid", "attention_free", "inner", "multimodal"),
    [
        ("JambaForCausalLM", True, False, True, False),
        ("MambaForCausalLM", False, True, True, False),
        ("WhisperForConditionalGeneration", False, False, False, True),
        ("Gemma3ForConditionalGeneration", False, False, False, True),
        ("LlamaForCausalLM", False, False, False, False),
    ],
)
def test_class_interfaces_and_multimodal(arch: str, hybrid: bool, attention_free: bool, inner: bool,
                                         multimodal: bool) -> None:
    """The resolved class's markers become is_hybrid / is_attention_free / has_inner_state / is_multimodal_model."""
    s = state({"model_config": True, M + "architecture": arch, M + "runner_type": "generate",
               M + "convert_type": "none"})
    out = mc.class_interfaces(s)
    assert out is not None and changes(out)[M + "is_hybrid"] == hybrid
    assert changes(out)[M + "is_attention_free"] == attention_free
    assert changes(out)[M + "has_inner_state"] == inner
    assert mc.is_multimodal(s) == {M + "is_multimodal_model": multimodal}
    assert mc.class_interfaces(state({"model_config": True})) is None


@pytest.mark.parametrize(
    ("arch", "runner_type", "user", "st", "expected"),
    [
        ("BertModel", "pooling", None, None, "CLS"),
        ("LlamaForCausalLM", "pooling", None, None, "LAST"),
        ("Qwen2ForProcessRewardModel", "pooling", None, None, "STEP"),
        ("BertModel", "pooling", None, "MEAN", "MEAN"),
        ("BertModel", "pooling", "LAST", "MEAN", "LAST"),
        ("LlamaForCausalLM", "generate", None, None, None),
    ],
)
def test_pooler_config(arch: str, runner_type: str, user: str | None, st: str | None, expected: str | None) -> None:
    """Pooling runners get a pooler: user value, then sentence-transformers, then the class default."""
    s = state({"model_config": True, M + "architecture": arch, M + "runner_type": runner_type,
               M + "convert_type": "none", H + "st_pooling_type": st, H + "st_normalize": True if st else None,
               M + "pooler_config.pooling_type": user})
    out = mc.pooler_config(s)
    if expected is None:
        assert out is None
        return
    assert out is not None and changes(out)[M + "pooler_config"] is True
    assert changes(out)[M + "pooler_config.pooling_type"] == expected
    assert changes(out)[M + "pooler_config.normalize"] == (True if st else None)


# ---------------------------------------------------------------------------- dtype


_T4_BF16 = "Your device 'Tesla T4' (with compute capability 7.5) doesn't support torch.bfloat16. "


@pytest.mark.parametrize(
    ("user", "config", "model_type", "runner", "platform", "expected", "messages"),
    [
        ("auto", "bfloat16", "llama", "generate", "h100", "bfloat16", []),
        ("auto", "float32", "llama", "generate", "h100", "bfloat16",
         [("info", "Downcasting torch.float32 to torch.bfloat16.")]),
        ("auto", "float32", "bert", "pooling", "h100", "float16",
         [("info", "Downcasting torch.float32 to torch.float16.")]),
        ("auto", "float32", "gemma3", "pooling", "h100", "bfloat16",
         [("info", "Downcasting torch.float32 to torch.bfloat16.")]),
        ("auto", "bfloat16", "llama", "generate", "t4", "float16",
         [("warning", _T4_BF16 + "Falling back to torch.float16 for compatibility."),
          ("warning", "Casting torch.bfloat16 to torch.float16.")]),
        ("auto", "bfloat16", "gemma2", "generate", "t4", "float32",
         [("warning", _T4_BF16 + "Falling back to torch.float32 for compatibility."),
          ("info", "Upcasting torch.bfloat16 to torch.float32.")]),
        ("auto", None, "llama", "generate", "h100", "bfloat16",
         [("info", "Downcasting torch.float32 to torch.bfloat16.")]),
        ("float32", "bfloat16", "llama", "generate", "h100", "float32",
         [("info", "Upcasting torch.bfloat16 to torch.float32.")]),
        ("half", "bfloat16", "llama", "generate", "h100", "float16",
         [("warning", "Casting torch.bfloat16 to torch.float16.")]),
    ],
)
def test_dtype(user: str, config: str | None, model_type: str, runner: str, platform: str, expected: str,
               messages: list[tuple[str, str]]) -> None:
    """Reference §2.1.3: "auto" keeps a supported config dtype, downcasts float32, drops float16 for gemma & co.

    vLLM logs the device fallback (``model.dtype``) and then, separately and at its own level,
    any cast from the checkpoint's dtype (``model.dtype-cast``): golden case g141-cfg logs both.
    """
    s = state({**hf(torch_dtype=config, model_type=model_type), M + "dtype": user, M + "runner_type": runner},
              platform=platform)
    out = mc.dtype(s)
    assert changes(out) == {M + "dtype": expected}
    logged = [(str(out.level), out.message)] if isinstance(out, Outcome) and out.message else []
    cast = mc.dtype_cast({**s, M + "dtype": expected})
    if cast is not None:
        assert isinstance(cast, Outcome) and cast.message and not cast.changes
        logged.append((str(cast.level), cast.message))
    assert logged == messages


def test_dtype_falls_back_to_vision_and_weights() -> None:
    """Without a top-level dtype, the vision config's then the weights' dtype is the config dtype."""
    s = state({**hf(model_type="x"), H + "vision_config": {"torch_dtype": "float16"}, M + "runner_type": "generate"})
    assert changes(mc.dtype(s)) == {M + "dtype": "float16"}
    s = state({**hf(model_type="x", weights_dtype="float16"), M + "runner_type": "generate"})
    assert changes(mc.dtype(s)) == {M + "dtype": "float16"}


@pytest.mark.parametrize(
    ("model_type", "dtype", "fires"),
    [("gemma2", "float16", True), ("gemma3", "float16", True), ("gemma3_text", "float16", True),
     ("plamo2", "float16", True), ("glm4", "float16", True), ("gemma2", "bfloat16", False), ("llama", "float16", False)],
)
def test_dtype_float16_unsupported(model_type: str, dtype: str, fires: bool) -> None:
    """float16 is refused for the numerically unstable model types, with vLLM's ValueError."""
    out = mc.dtype_float16_unsupported(state({**hf(model_type=model_type), M + "dtype": dtype}))
    if not fires:
        assert out is None
        return
    assert isinstance(out, Violation) and out.error == "ValueError"
    assert out.message == (f"The model type '{model_type}' does not support float16. Reason: Numerical instability. "
                           "Please use bfloat16 or float32 instead.")


@pytest.mark.parametrize(
    ("runner", "dtype", "raw", "platform", "expected"),
    [("pooling", "float16", None, "h100", "float32"), ("generate", "bfloat16", None, "h100", "bfloat16"),
     ("pooling", "float16", "model", "h100", "float16"), ("generate", "bfloat16", "float32", "h100", "bfloat16")],
)
def test_head_dtype(runner: str, dtype: str, raw: str | None, platform: str, expected: str) -> None:
    """Pooling heads run in float32 unless config.json says head_dtype "model"; generation heads use the model dtype."""
    s = state({**hf(head_dtype=raw), M + "runner_type": runner, M + "dtype": dtype}, platform=platform)
    assert changes(mc.head_dtype(s)) == {M + "head_dtype": expected}


# ---------------------------------------------------------------------------- max_model_len


def _len_state(config: Mapping[str, Any], env: Mapping[str, str] | None = None, **model: Any) -> Mapping[str, Any]:
    values = {**hf(config), M + "runner_type": model.pop("runner_type", "generate")}
    values.update({M + k: v for k, v in model.items()})
    return state(values, env=dict(env or {}))


@pytest.mark.parametrize(
    ("config", "model", "expected"),
    [
        ({"max_position_embeddings": 4096}, {}, 4096),
        ({"max_position_embeddings": 4096, "n_positions": 2048}, {}, 2048),
        ({"max_position_embeddings": 4096, "model_max_length": 8192}, {}, 8192),
        ({"max_position_embeddings": 32768, "sliding_window": 4096}, {}, 32768),
        ({"max_position_embeddings": 32768, "sliding_window": 4096}, {"disable_sliding_window": True}, 4096),
        ({"max_position_embeddings": 512, "position_embedding_type": "absolute", "tokenizer_model_max_length": 256},
         {"runner_type": "pooling"}, 256),
        ({"max_position_embeddings": 512, "position_embedding_type": "absolute", "tokenizer_model_max_length": 256},
         {}, 512),
        ({}, {}, 2048),
        ({}, {"spec_target_max_model_len": 8192}, 8192),
        ({}, {"max_model_len": 9999}, 9999),
        ({"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}, {}, 8192),
        ({"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}, {}, 16384),
        ({"max_position_embeddings": 163840,
          "rope_scaling": {"rope_type": "yarn", "factor": 40, "original_max_position_embeddings": 4096}}, {}, 163840),
        ({"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, {}, 131072),
        ({"max_position_embeddings": 131072, "model_type": "gemma3_text",
          "rope_scaling": {"rope_type": "linear", "factor": 8.0}}, {}, 131072),
        ({"max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
          "rope_scaling": {"rope_type": "longrope", "long_factor": [1.0]}}, {}, 4096),
        ({"max_position_embeddings": 8192, "st_max_seq_length": 512, "st_do_lower_case": False}, {}, 512),
        ({"max_position_embeddings": 8192, "st_max_seq_length": 512}, {}, 8192),
        ({"max_position_embeddings": 4096}, {"max_model_len": 1024}, 1024),
        ({"max_position_embeddings": 4096, "model_max_length": 8192}, {"max_model_len": 8192}, 8192),
    ],
)
def test_max_model_len(config: dict[str, Any], model: dict[str, Any], expected: int) -> None:
    """Reference §2.1.4: the smallest length key, replacements and caps, RoPE scaling, user values."""
    config = {"model_type": "llama", **config}
    out = mc.max_model_len(_len_state(config, **model))
    assert isinstance(out, Outcome) and out.changes[M + "max_model_len"] == expected
    assert out.changes[M + "original_max_model_len"] == model.get("max_model_len")
    assert "Using max model len" not in (out.message or "")
    log = decide(mc.max_model_len_log, state({"model_config": True, M + "max_model_len": expected}))
    assert [(d.message, d.level) for d in log.decided] == [(f"Using max model len {expected}", "info")]
    assert mc.max_model_len_log(state({"model_config": None})) is None


def test_max_model_len_no_key_warns() -> None:
    """With none of the keys vLLM assumes 2048 and warns with the key list.

    The warning is a warning record and "Using max model len 2048" a separate info record
    (model.max-model-len-log), as in vLLM (golden t083-mamba).
    """
    out = mc.max_model_len(_len_state({"model_type": "mamba"}))
    assert isinstance(out, Outcome) and out.level == "warning"
    assert out.message is not None and out.message.startswith(
        "The model's config.json does not contain any of the following keys to determine the original maximum "
        "length of the model: ['max_position_embeddings', 'n_positions',"
    )
    assert len(out.message.splitlines()) == 1 and out.changes[M + "max_model_len"] == 2048
    r = postinit.resolve(model="fixtures/llama", platform="h100")
    levels = {e.rule: e.level for e in r.messages() if e.rule.startswith("model.max-model-len")}
    assert levels == {"model.max-model-len-log": "info"}


def test_max_model_len_clears_sliding_window() -> None:
    """disable_sliding_window clears the text config's sliding_window after capping."""
    out = mc.max_model_len(_len_state({"max_position_embeddings": 32768, "sliding_window": 4096},
                                      disable_sliding_window=True))
    assert isinstance(out, Outcome) and out.changes[T + "sliding_window"] is None
    out = mc.max_model_len(_len_state({"max_position_embeddings": 32768, "sliding_window": 4096}))
    assert isinstance(out, Outcome) and T + "sliding_window" not in out.changes


def test_max_model_len_user_too_long() -> None:
    """A user value above the derived length is vLLM's ValueError ..."""
    out = mc.max_model_len(_len_state({"max_position_embeddings": 4096}, max_model_len=8192))
    assert isinstance(out, Violation) and out.error == "ValueError"
    assert out.message.startswith(
        "User-specified max_model_len (8192) is greater than the derived max_model_len (max_position_embeddings=4096 "
        "or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution."
    )


def test_max_model_len_user_too_long_allowed() -> None:
    """... or a warning with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, keeping the user value."""
    out = mc.max_model_len(_len_state({"max_position_embeddings": 4096}, {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
                                      max_model_len=8192))
    assert isinstance(out, Outcome) and out.changes[M + "max_model_len"] == 8192 and out.level == "warning"
    assert out.message is not None and out.message.startswith("User-specified max_model_len (8192) is greater")


@pytest.mark.parametrize(
    ("config", "model", "text"),
    [
        ({"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 2.0}},
         {"disable_sliding_window": True}, "Disabling sliding window is not supported for models with rope_scaling."),
        ({"max_position_embeddings": 4096, "model_max_length": 8192, "sliding_window": 2048},
         {"disable_sliding_window": True, "max_model_len": 4096},
         "Disabling sliding window is not supported for models model_max_length in the config."),
    ],
)
def test_max_model_len_not_implemented(config: dict[str, Any], model: dict[str, Any], text: str) -> None:
    """Disabling the sliding window with rope_scaling or model_max_length is vLLM's NotImplementedError."""
    out = mc.max_model_len(_len_state({"model_type": "llama", **config}, **model))
    assert isinstance(out, Violation) and out.error == "NotImplementedError" and out.message.startswith(text)


@pytest.mark.parametrize(
    ("v1", "backend", "layers", "fires"),
    [("0", "FLASHINFER", ["sliding_attention", "full_attention"], True),
     ("1", "FLASHINFER", ["sliding_attention", "full_attention"], False),
     ("0", "FLASH_ATTN", ["sliding_attention", "full_attention"], False),
     ("0", "XFORMERS", ["full_attention"], False)],
)
def test_v0_interleaved(v1: str, backend: str, layers: list[str], fires: bool) -> None:
    """V0 XFORMERS / FLASHINFER disable the sliding window of interleaved-attention models."""
    s = state({**hf(layer_types=layers, model_type="gemma2", sliding_window=4096)},
              env={"VLLM_USE_V1": v1, "VLLM_ATTENTION_BACKEND": backend})
    out = mc.v0_interleaved_disables_sliding_window(s)
    if not fires:
        assert out is None
        return
    assert isinstance(out, Outcome) and out.changes == {M + "disable_sliding_window": True}
    assert out.message is not None and out.message.startswith("gemma2 has interleaved attention")


# ---------------------------------------------------------------------------- end to end: oracle fixtures

_GOLDEN_KEYS = (
    "architecture", "architectures", "runner_type", "convert_type", "dtype", "max_model_len", "is_encoder_decoder",
    "is_hybrid", "use_mla", "is_deepseek_mla", "attention_chunk_size", "is_multimodal_model", "has_inner_state",
    "is_attention_free", "uses_mrope", "is_matryoshka", "head_dtype", "seed",
)


def _platform(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if spec["kind"] == "cuda":
        return f"cuda:{spec['capability']}"
    return f"rocm:{spec['gcn_arch']}" if spec["kind"] == "rocm" else str(spec["kind"])


def _golden_cases() -> list[Any]:
    out = []
    for file in sorted((ORACLE / "expected-seed").glob("*.json")):
        case = json.loads((ORACLE / "cases" / file.name).read_text())
        expected = json.loads(file.read_text())
        post = (expected.get("post") or {}).get("model_config")
        if post and "model" in case and "argv" not in case:
            out.append(pytest.param(case, post, id=file.stem))
    return out


@pytest.mark.skipif(not (ORACLE / "expected-seed").is_dir(), reason="oracle golden data not available")
@pytest.mark.parametrize(("case", "post"), _golden_cases())
def test_oracle_fixture_model_config(case: dict[str, Any], post: dict[str, Any]) -> None:
    """Our ModelConfig derivations equal real vLLM's for every config-mode oracle case."""
    r = postinit.resolve({"model_config": case.get("model_config") or {}}, model=f"fixtures/{case['model']}",
                         platform=_platform(case["platform"]), env=case.get("env"), strict=True)
    got = {k: r.get(M + k) for k in _GOLDEN_KEYS}
    want = {k: tuple(v) if isinstance(v, list) else v for k, v in post.items() if k in _GOLDEN_KEYS}
    assert {k: got[k] for k in want} == want
    pooler = post.get("pooler_config")
    assert r.get(M + "pooler_config.pooling_type") == (pooler["pooling_type"] if pooler else None)


# ---------------------------------------------------------------------------- end to end: catalog models


def _resolve(model: str, **kw: Any) -> postinit.Resolution:
    return postinit.resolve({}, model=model, strict=True, **kw)


@pytest.mark.parametrize(
    ("model", "key", "expected"),
    [
        ("deepseek-ai/DeepSeek-V3", "max_model_len", 163840),
        ("deepseek-ai/DeepSeek-V3", "use_mla", True),
        ("meta-llama/Llama-3.1-8B-Instruct", "max_model_len", 131072),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "is_hybrid", True),
        ("ibm-ai-platform/Bamba-9B", "supports_mamba_prefix_caching", True),
        ("state-spaces/mamba2-2.7b", "is_attention_free", True),
        ("openai/whisper-large-v3", "is_encoder_decoder", True),
        ("openai/whisper-large-v3", "is_multimodal_model", True),
        ("google/gemma-3-27b-it", "dtype", "bfloat16"),
        ("google/gemma-3-27b-it", "architecture", "Gemma3ForConditionalGeneration"),
        ("openai/gpt-oss-120b", "max_model_len", 131072),
        ("BAAI/bge-base-en-v1.5", "runner_type", "pooling"),
    ],
)
def test_catalog_models(model: str, key: str, expected: Any) -> None:
    """Known values of real models from the built-in catalog."""
    assert _resolve(model).get(M + key) == expected


def test_catalog_gemma3_on_t4_falls_back_to_float32() -> None:
    """Gemma-3 on a T4 (no bfloat16) cannot use float16, so "auto" becomes float32."""
    assert _resolve("google/gemma-3-27b-it", platform="t4").get(M + "dtype") == "float32"


def test_catalog_bge_with_sentence_transformers_facts() -> None:
    """bge with its sentence-transformers facts: pooling runner, CLS pooling, normalize, 512 tokens."""
    loaded = load_model("BAAI/bge-base-en-v1.5")
    st = loaded.sentence_transformers or {}
    facts = {f"st_{k}": v for k, v in st.items()}
    facts["tokenizer_model_max_length"] = (loaded.tokenizer_config or {}).get("model_max_length")
    r = postinit.resolve({"model_config": {"model": loaded.name, "hf_config": {**loaded.hf_config, **facts},
                                           "hf_text_config": {**loaded.hf_text_config, **facts}}}, strict=True)
    assert r.get(M + "runner_type") == "pooling" and r.get(M + "convert_type") == "none"
    assert r.get(M + "pooler_config") is True
    assert r.get(M + "pooler_config.pooling_type") == "CLS" and r.get(M + "pooler_config.normalize") is True
    assert (r.get(M + "max_model_len"), r.get(M + "dtype"), r.get(M + "head_dtype")) == (512, "float16", "float32")


def test_every_catalog_model_resolves() -> None:
    """Every built-in model resolves its ModelConfig without a violation."""
    for entry in list_catalog():
        r = _resolve(entry.id)
        assert r.ok, (entry.id, r.violations)
        assert r.get(M + "architecture") is not None and r.get(M + "max_model_len") >= 1


def test_user_max_model_len_too_long_end_to_end() -> None:
    """The ValueError stops resolution; VLLM_ALLOW_LONG_MAX_MODEL_LEN turns it into a warning."""
    cfg = {"model_config": {"max_model_len": 8192}}
    r = postinit.resolve(cfg, model="fixtures/llama", strict=True)
    assert not r.ok and r.violations[0].rule == "model.max-model-len"
    r = postinit.resolve(cfg, model="fixtures/llama", env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, strict=True)
    assert r.get(M + "max_model_len") == 8192 and r.get(M + "original_max_model_len") == 8192


# ---------------------------------------------------------------------------- quantization


_FP8 = {"quant_method": "fp8", "weight_block_size": [128, 128]}


@pytest.mark.parametrize("user, qc, compression, text, platform, expected", [
    (None, _FP8, None, None, "h100", "fp8"),
    (None, {"quant_method": "FP8"}, None, None, "h100", "fp8"),
    (None, {"quant_method": "compressed_tensors"}, None, None, "h100", "compressed-tensors"),
    (None, None, {"quant_method": "compressed-tensors"}, None, "h100", "compressed-tensors"),
    (None, None, None, {"quantization_config": {"quant_method": "awq"}}, "h100", "awq"),
    (None, {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8"}}, None, None, "h100", "modelopt"),
    (None, {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4"}}, None, None, "h100",
     "modelopt_fp4"),
    (None, {"quant_method": "modelopt", "quant_algo": "NVFP4"}, None, None, "h100", "modelopt_fp4"),
    (None, {"quant_method": "gptq"}, None, None, "cpu", "ipex"),
    (None, {"quant_method": "gptq"}, None, None, "h100", "gptq"),
    ("FP8", _FP8, None, None, "h100", "fp8"),
    ("fp8", None, None, None, "h100", "fp8"),
    (None, None, None, None, "h100", None),
])
def test_quantization(user: str | None, qc: dict[str, Any] | None, compression: dict[str, Any] | None,
                      text: dict[str, Any] | None, platform: str, expected: str | None) -> None:
    """The checkpoint's quant_method (normalised, ModelOpt/IPEX overrides) fills or confirms --quantization."""
    s = state({"model_config": True, M + "quantization": user, H + "quantization_config": qc,
               H + "compression_config": compression, H + "text_config": text}, platform=platform)
    out = mc.quantization(s)
    assert (out or {}).get(M + "quantization", user) == expected


@pytest.mark.parametrize("user, qc, text", [
    ("awq", _FP8, "Quantization method specified in the model config (fp8) does not match the quantization "
                  "method specified in the `quantization` argument (awq)."),
    ("nope", None, "Unknown quantization method: nope."),
    (None, {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "W4A8"}},
     "Unknown ModelOpt quant algo: W4A8"),
])
def test_quantization_errors(user: str | None, qc: dict[str, Any] | None, text: str) -> None:
    """A conflicting or unknown method is vLLM's ValueError."""
    out = mc.quantization(state({"model_config": True, M + "quantization": user, H + "quantization_config": qc}))
    assert isinstance(out, Violation) and out.error == "ValueError" and out.message.startswith(text)


def test_quantization_without_model_config() -> None:
    """No ModelConfig, nothing to verify."""
    assert mc.quantization(state({H + "quantization_config": _FP8})) is None


def test_quantization_fp8_fixture_end_to_end() -> None:
    """The fp8 fixture resolves with quantization fp8 and a matching quant_config."""
    r = postinit.resolve({}, model="fixtures/llama_fp8_block", platform="h100", strict=True)
    assert r.state["model_config.quantization"] == "fp8"
    assert r.state["quant_config.method"] == "fp8"


# ---------------------------------------------------------------------------- multimodal config


@pytest.mark.parametrize("multimodal, given, expected", [
    (True, None, mc.MULTIMODAL_DEFAULTS),
    (True, {"mm_processor_cache_gb": 8}, {**mc.MULTIMODAL_DEFAULTS, "mm_processor_cache_gb": 8}),
    (False, None, None),
])
def test_multimodal_config(multimodal: bool, given: dict[str, Any] | None, expected: dict[str, Any] | None) -> None:
    """Multimodal classes get vLLM's MultiModalConfig defaults; text-only models none."""
    s = state({"model_config": True, M + "is_multimodal_model": multimodal, M + "multimodal_config": given})
    out = mc.multimodal_config(s)
    assert (out[M + "multimodal_config"] if out else None) == expected


def test_multimodal_config_whisper_end_to_end() -> None:
    """Whisper is multimodal (audio): its ModelConfig carries a MultiModalConfig."""
    r = postinit.resolve({"model_config": {"skip_tokenizer_init": True}}, model="fixtures/whisper",
                         platform="h100", strict=True)
    assert r.state["model_config.multimodal_config"]["mm_encoder_tp_mode"] == "weights"
