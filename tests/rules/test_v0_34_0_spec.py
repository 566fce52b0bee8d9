"""vLLM 0.34.0's MTP drafts (postinit/rules/v0_34_0_spec.py): ``hf_config_override``'s rewrite of the target's
config.json into its MTP head. The golden cases k346-k372 (gen_cov_0340.py, batch 24) are the real answers."""

from __future__ import annotations

import json
from typing import Any

import postinit
from postinit.rules import v0_34_0_spec as mtp

MODELS = "tests/golden/models/"


def _resolve(model: str, **spec: Any) -> postinit.Resolution:
    config = {"method": "mtp", "num_speculative_tokens": 1, **spec}
    return postinit.resolve(model=MODELS + model, argv=["--speculative-config", json.dumps(config)],
                            vllm_version="0.34.0")


def _said(r: postinit.Resolution, rule: str) -> list[str]:
    return [line for e in r.messages() if e.rule == rule for line in e.message.splitlines()]


def test_each_model_type_drafts_with_its_mtp_head() -> None:
    """k346-k372: the draft's ModelConfig resolves the MTP architecture hf_config_override names."""
    expected = {"spec_dots3_note": "Dots3NoteMTPModel", "spec_mimo_v2": "MiMoV2MTPModel",
                "spec_mimo_v2_flash": "MiMoV2MTPModel", "spec_glm4_moe_lite": "Glm4MoeLiteMTPModel",
                "spec_nemotron_h_mtp": "NemotronHMTPModel", "qwen4_exp_text": "Qwen4ExpMTP",
                "spec_bailing_hybrid": "BailingMoeV25MTPModel", "spec_bailing_v3": "BailingMoeV3MTPModel",
                "spec_exaone_moe": "ExaoneMoeMTP", "spec_qwen3_5_mtp": "Qwen3_5MTP",
                "spec_qwen3_5_moe_mtp": "Qwen3_5MoeMTP", "spec_longcat": "LongCatFlashMTPModel",
                "spec_step3p5": "Step3p5MTP", "spec_step5": "Step5MTP", "spec_hy_v3": "HYV3MTPModel",
                "spec_hy_v4": "HYV4MTPModel", "spec_inkling_mtp": "InklingMTPModel",
                "spec_mistral_large3": "EagleMistralLarge3ForCausalLM", "deepseek_v3": "DeepSeekMTPModel"}
    for model, arch in expected.items():
        r = _resolve(model)
        assert r.ok, (model, r.error)
        assert _said(r, "speculative.mtp-draft-architecture") == [f"Resolved architecture: {arch}"], model


def test_a_multimodal_mtp_head_runs_text_only_without_a_warning() -> None:
    """k357: Qwen3.5's MTP head declares SupportsMultiModal; as a draft it has no processor and is not warned about."""
    r = _resolve("spec_qwen3_5_mtp")
    assert _said(r, "speculative.mtp-draft-mm-normalize") == ["mm_device_do_normalize is disabled by default."]
    assert _said(r, "speculative.mtp-draft-text-only")[0].startswith("Disabled mm_prefix attention mode")
    assert not _said(_resolve("spec_exaone_moe"), "speculative.mtp-draft-text-only")


def test_the_rewrite_refuses_what_it_cannot_build() -> None:
    """k347: Dots3Note's MTP layer types must match its MTP layers; k363: an Inkling checkpoint without MTP weights.
    Both are raised while SpeculativeConfig builds the draft's ModelConfig."""
    r = _resolve("spec_dots3_note_types")
    assert r.error is not None and r.error.rule == "speculative.mtp-layer-types"
    assert r.error.message == "mtp_layer_types must have one entry per MTP layer: got 2 for 1 layers"
    assert (r.error.stage, r.error.wrapped_by) == ("model_config", "ValidationError")
    r = _resolve("spec_inkling")
    assert r.error is not None and r.error.message == "The Inkling checkpoint does not contain MTP weights"


def test_single_layer_drafts_are_not_warned_about() -> None:
    """k360, k364: Step-3.5's and Inkling's MTP layer is meant to run repeatedly; DeepSeek's is warned about."""
    for model in ("spec_step3p5", "spec_inkling_mtp"):
        assert not _said(_resolve(model, num_speculative_tokens=2), "speculative.mtp-reused-layer"), model
    assert _said(_resolve("deepseek_v3", num_speculative_tokens=2), "speculative.mtp-reused-layer")
    assert "inkling_mtp" in mtp.SINGLE_LAYER_DRAFTS


def test_a_draft_models_vocabulary_must_be_the_targets() -> None:
    """k376: speculative.draft-vocab-size (draft_vocab_size) compares the draft checkpoint's vocab_size."""
    r = postinit.resolve(model=MODELS + "llama", argv=["--speculative-config", json.dumps(
        {"method": "draft_model", "model": MODELS + "spec_llama_draft_vocab", "num_speculative_tokens": 2})],
        vllm_version="0.34.0")
    assert r.error is not None and r.error.rule == "speculative.draft-vocab-size"
    assert "Target model vocab_size=1024. Draft model vocab_size=2048." in r.error.message


def test_draft_checkpoints_renamed_by_the_override() -> None:
    """k379, k380: a Qwen3 DSpark draft and Ripple's DFlash2 drafter resolve the architectures hf_config_override
    gives them (DRAFT_RENAMES)."""
    for method, draft, arch in (("dspark", "spec_qwen3_dspark", "Qwen3DSparkModel"),
                                ("dflash", "spec_dflash2_nope", "DFlash2RicursiveDraftModel")):
        r = postinit.resolve(model=MODELS + "llama", argv=["--speculative-config", json.dumps(
            {"method": method, "model": MODELS + draft, "num_speculative_tokens": 4})], vllm_version="0.34.0")
        assert f"Resolved architecture: {arch}" in _said(r, "speculative.draft-architecture"), draft
    assert {new for *_, new in mtp.DRAFT_RENAMES} == {"Qwen3DSparkModel", "DFlash2RicursiveDraftModel", "Gemma4MTPModel"}


def _omni(draft: str, k: int = 4) -> postinit.Resolution:
    return postinit.resolve(model=MODELS + "llama", argv=[
        "--hf-overrides", json.dumps({"architectures": ["LlamaForCausalLM", "Qwen3OmniMoeForConditionalGeneration"]}),
        "--speculative-config", json.dumps({"method": "dspark", "model": MODELS + draft, "num_speculative_tokens": k})],
        vllm_version="0.34.0")


def test_a_qwen3_omni_dspark_draft_is_checked_against_its_target() -> None:
    """k384-k402: speculative.qwen3-omni-dspark (qwen3_omni_dspark) on a target that names the Qwen3-Omni
    architecture; the draft's values come from dflash_config, eagle_config or the top level."""
    assert _omni("spec_omni_dspark").ok and _omni("spec_omni_eagle_cfg").ok
    for draft, k, text in (("spec_qwen3_dspark", 4, "requires a standalone draft checkpoint"),
                           ("spec_omni_dspark", 2, "to match the trained block_size (4); got 2."),
                           ("spec_omni_heads", 4, "draft num_attention_heads must match the target thinker value (8)"),
                           ("spec_omni_ids_range", 4, "indices in [0, 1]; got [0, 5]."),
                           ("spec_omni_markov_head", 4, "markov_head_type='vanilla'; got 'gated'.")):
        r = _omni(draft, k)
        assert r.error is not None and r.error.rule == "speculative.qwen3-omni-dspark", draft
        assert text in r.error.message, (draft, r.error.message)
    plain = postinit.resolve(model=MODELS + "llama", argv=["--speculative-config", json.dumps(
        {"method": "dspark", "model": MODELS + "spec_qwen3_dspark", "num_speculative_tokens": 4})],
        vllm_version="0.34.0")
    assert plain.ok  # not a Qwen3-Omni target: no check


def test_an_inkling_checkpoint_without_mtp_weights_is_refused_by_its_own_rule() -> None:
    """k363: speculative.mtp-inkling-weights (mtp_inkling_weights), not Dots3Note's mtp_layer_types."""
    r = _resolve("spec_inkling")
    assert r.error is not None and r.error.rule == "speculative.mtp-inkling-weights"


def test_deepseek_v41_has_no_classic_mtp_draft() -> None:
    """k650/k651: DeepSeek-V4's MTP head; a V4.1 checkpoint is refused by speculative.mtp-deepseek-v41."""
    assert _said(_resolve("deepseek_v4"), "speculative.mtp-draft-architecture") == \
        ["Resolved architecture: DeepSeekV4MTPModel"]
    r = _resolve("spec_dsv41")
    assert r.error is not None and r.error.rule == "speculative.mtp-deepseek-v41"
    assert r.error.message.startswith("DeepSeek V4.1 has no classic-MTP draft")


def test_gemma4_assistant_checkpoint_is_the_gemma4_mtp_draft() -> None:
    """k652: an MTP checkpoint of its own (model_type gemma4_assistant) resolves to Gemma4MTPModel."""
    r = postinit.resolve(model=MODELS + "gemma4_text", argv=["--speculative-config", json.dumps(
        {"method": "mtp", "model": MODELS + "spec_gemma4_assistant", "num_speculative_tokens": 1})],
        vllm_version="0.34.0")
    assert r.ok, r.error
    assert _said(r, "speculative.mtp-draft-architecture") == ["Resolved architecture: Gemma4MTPModel"]


def test_qwen3_omni_dspark_draft_must_not_define_mrope() -> None:
    """k654: the last check of _validate_qwen3_omni_dspark."""
    r = postinit.resolve(model=MODELS + "llama", argv=[
        "--hf-overrides", json.dumps({"architectures": ["LlamaForCausalLM", "Qwen3OmniMoeForConditionalGeneration"]}),
        "--speculative-config", json.dumps({"method": "dspark", "model": MODELS + "spec_omni_mrope",
                                            "num_speculative_tokens": 4})], vllm_version="0.34.0")
    assert r.error is not None and r.error.rule == "speculative.qwen3-omni-dspark"
    assert "must not define mrope_section" in r.error.message


def test_transformers_backend_mtp_draft_is_built_from_the_target() -> None:
    """k660: with --model-impl transformers and num_mtp_layers the draft is the Transformers backend's MTP class."""
    r = postinit.resolve(model=MODELS + "llama", argv=["--model-impl", "transformers", "--hf-overrides",
                                                       json.dumps({"num_mtp_layers": 1}), "--speculative-config",
                                                       json.dumps({"method": "mtp", "num_speculative_tokens": 1})],
                         vllm_version="0.34.0")
    assert r.ok, r.error
    assert _said(r, "speculative.mtp-draft-architecture") == ["Resolved architecture: TransformersForMTP"]
