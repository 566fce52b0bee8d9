"""vLLM 0.34.0's MTP drafts, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

With ``method="mtp"`` the draft is the target's own checkpoint: ``DraftModelSpeculatorConfig.configure`` builds a
second ModelConfig of it with ``hf_overrides=SpeculativeConfig.hf_config_override``, which rewrites the config into
the model type's MTP head (vllm/config/speculative.py:778-1303): its MTP architecture, its ``n_predict`` (the number
of MTP layers the checkpoint ships) and, for a few types, a refusal. :func:`mtp_draft` is that table for the
checkpoints postinit reads; the rules below are the decisions vLLM takes from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules import model_config as mc
from postinit.rules.versions import Delta

__all__ = ["DELTA", "DRAFT_RENAMES", "READS", "SINGLE_LAYER_DRAFTS", "MtpDraft", "mtp_draft"]

_SC = "speculative_config."
_H = "model_config.hf_config."
_HT = "model_config.hf_text_config."
_REF = "ref v0.34.0"
_OVERRIDE = "vllm/config/speculative.py SpeculativeConfig.hf_config_override"
_DRAFT_MC = ("vllm/config/model.py ModelConfig.__post_init__ (the MTP draft's, built with hf_overrides="
             "SpeculativeConfig.hf_config_override by DraftModelSpeculatorConfig.configure, "
             "vllm/v1/worker/gpu/spec_decode/speculator_config.py:177-210)")


@dataclass(frozen=True)
class MtpDraft:
    """What ``hf_config_override`` makes of the target's config for its MTP draft."""

    architecture: str | None
    """The draft's architecture (the target's own where no rewrite applies)."""
    model_type: str | None
    """The draft config's model type (``deepseek_mtp``, ``qwen3_5_mtp``, ...)."""
    n_predict: int | None = None
    """The checkpoint's number of MTP layers, where the rewrite sets it."""
    refusal: str | None = None
    """The ValueError the rewrite raises instead, if any."""


_BY_TYPE: dict[str, tuple[str, str, str | None]] = {
    # target model type -> (draft model type, draft architecture, where n_predict comes from)
    "pangu_ultra_moe": ("pangu_ultra_moe_mtp", "OpenPanguMTPModel", "num_nextn_predict_layers"),
    "ernie4_5_moe": ("ernie_mtp", "ErnieMTPModel", "num_nextn_predict_layers"),
    "ernie_mtp": ("ernie_mtp", "ErnieMTPModel", "num_nextn_predict_layers"),
    "qwen3_next": ("qwen3_next_mtp", "Qwen3NextMTP", "num_nextn_predict_layers"),
    "qwen3_next_mtp": ("qwen3_next_mtp", "Qwen3NextMTP", "num_nextn_predict_layers"),
    "exaone_moe": ("exaone_moe_mtp", "ExaoneMoeMTP", "num_nextn_predict_layers"),
    "exaone_moe_mtp": ("exaone_moe_mtp", "ExaoneMoeMTP", "num_nextn_predict_layers"),
    "longcat_flash": ("longcat_flash_mtp", "LongCatFlashMTPModel", "num_nextn_predict_layers=1"),
    "hy_v3": ("hy_v3_mtp", "HYV3MTPModel", "num_nextn_predict_layers"),
    "hy_v4": ("hy_v4_mtp", "HYV4MTPModel", "num_nextn_predict_layers"),
}
"""The rewrites decided by the target's model type alone (vllm/config/speculative.py:875-881, 991-998, 1090-1095,
1149-1154, 1190-1202)."""
_BY_ARCH: dict[str, tuple[str, str, str | None]] = {
    "MiMoForCausalLM": ("mimo_mtp", "MiMoMTPModel", "num_nextn_predict_layers"),
    "MiMoV2ForCausalLM": ("mimo_v2_mtp", "MiMoV2MTPModel", "1"),
    "MiMoV2OmniForCausalLM": ("mimo_v2_mtp", "MiMoV2OmniMTPModel", "1"),
    "MiMoV2FlashForCausalLM": ("mimo_v2_mtp", "MiMoV2MTPModel", "1"),
    "Glm4MoeForCausalLM": ("glm4_moe_mtp", "Glm4MoeMTPModel", "num_nextn_predict_layers"),
    "Glm4MoeLiteForCausalLM": ("glm4_moe_lite_mtp", "Glm4MoeLiteMTPModel", "num_nextn_predict_layers"),
    "GlmOcrForConditionalGeneration": ("glm_ocr_mtp", "GlmOcrMTPModel", "num_nextn_predict_layers"),
}
"""The rewrites decided by the target's first architecture (vllm/config/speculative.py:893-969; MiMo-V2's draft
keeps only the first MTP layer: ``_MIMO_V2_*_NUM_MTP_LAYERS`` = 1)."""


def _get(c: Mapping[str, Any], key: str, default: Any = None, *, text: bool = False) -> Any:
    """``getattr(hf_config, key, default)`` on the target's config.json (or its text config, ``text``)."""
    prefix = _HT if text else _H
    value = c[prefix + key] if key in _FIELDS else (c[prefix + "other"] or {}).get(key)
    return default if value is None else value


_FIELDS = frozenset({"model_type", "num_nextn_predict_layers"})
"""The config.json keys :func:`_get` reads that are schema fields (the others are under ``other``)."""


def _n(c: Mapping[str, Any], source: str | None, *, text: bool = False) -> int | None:
    if source is None:
        return None
    if source.isdigit():
        return int(source)
    key, _, default = source.partition("=")
    value = _get(c, key, int(default) if default else None, text=text)
    return value if isinstance(value, int) else None


def mtp_draft(c: Mapping[str, Any]) -> MtpDraft | None:
    """``hf_config_override`` applied to the target's config.json (vllm/config/speculative.py:778-1303), for the
    model types whose MTP heads postinit knows; None where the rewrite needs what postinit does not read (a
    Transformers-backend target, a VL wrapper whose text config is promoted, a DSpark / DFlash draft).
    Mistral Large 3's draft is its EAGLE head whatever the model type made of it (speculative.py:1187-1188)."""
    draft = _rewrite(c)
    archs = c[_H + "architectures"] or ()
    if archs and archs[0] == "MistralLarge3ForCausalLM" and (draft is None or draft.refusal is None):
        model_type = c[_H + "model_type"] if draft is None else draft.model_type
        return MtpDraft("EagleMistralLarge3ForCausalLM", model_type, None if draft is None else draft.n_predict)
    return draft


_NEMOTRON_OMNI = ("NemotronH_Super_Omni_Reasoning_V3", "NemotronH_Omni_Reasoning_V3")
"""The Nemotron-H Omni architectures whose MTP draft is their text config's (vllm/config/speculative.py:986-991)."""


def _rewrite(c: Mapping[str, Any]) -> MtpDraft | None:
    model_type = str(c[_H + "model_type"] or "")
    archs = c[_H + "architectures"] or ()
    arch = archs[0] if archs else None
    if model_type == "dots3_note":
        n = _get(c, "num_nextn_predict_layers", 1)
        layer_types = _get(c, "mtp_layer_types")
        if layer_types is not None and len(layer_types) != n:
            return MtpDraft(None, None, refusal="mtp_layer_types must have one entry per MTP layer: "
                                                f"got {len(layer_types)} for {n} layers")
        return MtpDraft("Dots3NoteMTPModel", "dots3_note_mtp", n)
    if model_type in ("deepseek_v3", "deepseek_v32", "glm_moe_dsa", "deepseek_mtp"):
        v32 = model_type in ("deepseek_v32", "glm_moe_dsa")
        return MtpDraft("DeepseekV32MTPModel" if v32 else "DeepSeekMTPModel", "deepseek_mtp",
                        _n(c, "num_nextn_predict_layers"))
    if model_type in ("deepseek_v4", "deepseek_v41"):
        keep = arch if model_type == "deepseek_v41" else "DeepSeekV4MTPModel"
        return MtpDraft(keep, "deepseek_mtp", _n(c, "num_nextn_predict_layers"))
    if model_type == "kimi_k3":
        return MtpDraft("KimiK3MTPModel", "kimi_k3_mtp", _n(c, "num_nextn_predict_layers", text=True))
    if arch in _NEMOTRON_OMNI:  # the VL wrapper's text config is promoted, then rewritten by its own model type
        text_type = _get(c, "model_type", text=True)
        layers = _get(c, "num_nextn_predict_layers", text=True)
        if text_type == "nemotron_h_mtp" or (text_type in ("nemotron_h", "nemotron_h_puzzle")
                                             and isinstance(layers, int) and layers > 0):
            return MtpDraft("NemotronHMTPModel", "nemotron_h_mtp", _n(c, "num_nextn_predict_layers=1", text=True))
        return None
    if model_type in ("nemotron_h", "nemotron_h_puzzle", "nemotron_h_mtp"):
        layers = _get(c, "num_nextn_predict_layers")
        if model_type == "nemotron_h_mtp" or (isinstance(layers, int) and layers > 0):
            return MtpDraft("NemotronHMTPModel", "nemotron_h_mtp", _n(c, "num_nextn_predict_layers=1"))
    if model_type in ("qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"):
        moe = model_type in ("qwen3_5_moe", "qwen3_5_moe_text")
        n = _get(c, "mtp_num_hidden_layers")
        if n is None:
            n = _get(c, "mtp_num_hidden_layers", text=True)
        return MtpDraft("Qwen3_5MoeMTP" if moe else "Qwen3_5MTP", "qwen3_5_mtp", n if isinstance(n, int) else None)
    if arch in ("BailingMoeV3ForCausalLM",):
        return MtpDraft("BailingMoeV3MTPModel", "bailing_hybrid_v3_mtp", _n(c, "num_nextn_predict_layers"))
    if model_type == "bailing_hybrid" or "BailingMoeV2_5ForCausalLM" in archs:
        return MtpDraft("BailingMoeV25MTPModel", "bailing_hybrid_mtp", _n(c, "num_nextn_predict_layers"))
    if model_type in ("step3p5", "step3p7") or arch in ("Step3p5ForCausalLM", "Step3p7ForConditionalGeneration"):
        return MtpDraft("Step3p5MTP", "step3p5_mtp", _n(c, "num_nextn_predict_layers=1", text=True))
    if model_type in ("step5", "step5_vl") or {"Step5ForCausalLM", "Step5ForConditionalGeneration"} & set(archs):
        return MtpDraft("Step5MTP", "step5_mtp", _n(c, "num_nextn_predict_layers=1", text=True))
    if model_type and model_type in "pangu_ultra_moe":  # vLLM tests `in ("pangu_ultra_moe")`: a substring
        return MtpDraft("OpenPanguMTPModel", "pangu_ultra_moe_mtp", _n(c, "num_nextn_predict_layers"))
    if "exaone4_5" in model_type:
        return MtpDraft("Exaone4_5_MTP", "exaone4_5_mtp", _n(c, "num_nextn_predict_layers"))
    if model_type in ("qwen4_exp", "qwen4_exp_text", "qwen4_exp_mtp"):
        if _get(c, "hc_count", text=True) is None:
            return None  # vLLM reads int(text_config.hc_count): an AttributeError postinit does not model
        n = _get(c, "mtp_num_hidden_layers", text=True)
        n = _get(c, "num_nextn_predict_layers", text=True) if n is None else n
        return MtpDraft("Qwen4ExpMTP", "qwen4_exp_mtp", n if isinstance(n, int) else None)
    if model_type == "glm5_next":
        return MtpDraft("Glm5NextMTPModel", "glm5_next_mtp", _n(c, "num_nextn_predict_layers", text=True))
    if _get(c, "model_type", text=True) == "mistral_large_4" and _get(c, "mtp_config", text=True):
        return None  # its DSpark draft config (get_mistral_large_4_dspark_config)
    found = _BY_TYPE.get(model_type) or (_BY_ARCH.get(arch) if arch else None)
    if found is not None:
        draft_type, draft_arch, n_from = found
        return MtpDraft(draft_arch, draft_type, _n(c, n_from))
    if model_type in ("inkling_mm_model", "inkling_model"):
        mtp_config = _get(c, "mtp_config") or {}
        depths = mtp_config.get("num_nextn_predict_layers", 0)
        if depths < 1:
            return MtpDraft(None, None, refusal="The Inkling checkpoint does not contain MTP weights")
        return MtpDraft("InklingMTPModel", "inkling_mtp", depths)
    return None


DRAFT_RENAMES: tuple[tuple[str | None, str, Any, str], ...] = (
    ("DSparkDraftModel", "model_type", "qwen3", "Qwen3DSparkModel"),
    ("DFlash2DraftModel", "no_rope_layers", True, "DFlash2RicursiveDraftModel"),
    (None, "model_type", "gemma4_assistant", "Gemma4MTPModel"),
    (None, "model_type", "gemma4_unified_assistant", "Gemma4MTPModel"))
"""The architectures ``hf_config_override`` gives a draft checkpoint's own config.json (``speculative.draft-architecture``'s
``renames``): a Qwen3 DSpark draft published under DeepSeek-V4's name, Ripple's DFlash2 drafter with NoPE layers
(vllm/config/speculative.py:788-801), Gemma4's MTP assistant checkpoints whatever their architecture
(speculative.py:1223-1232)."""


def _mtp_target(c: Mapping[str, Any]) -> bool:
    """An MTP draft built from the target checkpoint (the number of tokens given: vLLM names the draft then)."""
    return bool(c["speculative_config"]) and c[_SC + "method"] == "mtp" and bool(c["model_config"]) \
        and c[_SC + "model"] is not None


READS = ("speculative_config", _SC + "method", _SC + "model", "model_config", _H + "model_type",
          _H + "architectures", _H + "other", _H + "num_nextn_predict_layers", _HT + "model_type", _HT + "other",
          _HT + "num_nextn_predict_layers", "draft.loaded", "draft.hf_config", "model_config.architecture",
          "model_config.is_moe", _H + "text_config")
"""What :func:`mtp_draft` reads (the target's config.json facts), with the speculative method and model."""


def _renamed(hf: Mapping[str, Any]) -> str | None:
    """The architecture :data:`DRAFT_RENAMES` gives a draft checkpoint's own config.json, if any."""
    archs = tuple(hf.get("architectures") or ())
    return next((new for first, key, value, new in DRAFT_RENAMES if (first is None or archs[:1] == (first,))
                 and (bool(_draft_value(hf, key)) if value is True else _draft_value(hf, key) == value)), None)


def _draft_arch(c: Mapping[str, Any]) -> str | None:
    if not _mtp_target(c):
        return None
    if c["draft.loaded"] and (renamed := _renamed(c["draft.hf_config"] or {})):
        return renamed  # an MTP checkpoint of its own (Gemma4's assistant), rewritten by its model type
    if str(c["model_config.architecture"] or "").startswith("Transformers") \
            and _get(c, "num_mtp_layers", text=True) is not None and c[_H + "text_config"] is None:
        # the Transformers backend builds the draft from the target's config (MTPSpeculatorConfig.
        # transformers_mtp_overrides, vllm/v1/worker/gpu/spec_decode/mtp/config.py:57-77; a multimodal target is
        # refused there, NotImplementedError, which postinit does not model)
        return f"Transformers{'MoE' if c['model_config.is_moe'] else ''}ForMTP"
    draft = mtp_draft(c)
    return None if draft is None else draft.architecture


@rule(
    "speculative.mtp-draft-architecture",
    title="The MTP draft is the target checkpoint rewritten into its model type's MTP head",
    phase="sub_configs",
    kind="check",
    reads=READS,
    source=f"{_DRAFT_MC}; {_OVERRIDE} (vllm/config/speculative.py:778-1303); {_REF}",
    message="Resolved architecture: {architecture}",
    level="info",
)
def mtp_draft_architecture(c: Mapping[str, Any]) -> RuleResult:
    """The draft's ModelConfig logs the MTP architecture it resolved, as every ModelConfig does."""
    arch = _draft_arch(c)
    return Outcome.log(architecture=arch) if arch else None


_MMREADS = (*READS, "version.model_registry", "env.VLLM_USE_RUST_FRONTEND")


def _draft_multimodal(c: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The interfaces of a multimodal MTP draft class (Qwen3.5's, EXAONE-4.5's, ...), else None."""
    arch = _draft_arch(c)
    info = mc.registry_of(c["version.model_registry"]).classes.get(arch or "")
    return tuple(info.interfaces) if info is not None and "multimodal" in info.interfaces else None


@rule(
    "speculative.mtp-draft-mm-normalize",
    title="A multimodal MTP draft resolves mm_device_do_normalize (debug)",
    phase="sub_configs",
    kind="check",
    reads=_MMREADS,
    after=("speculative.mtp-draft-architecture",),
    source=f"{_DRAFT_MC}: ModelConfig._resolve_mm_device_do_normalize (vllm/config/model.py:1104-1147); {_REF}",
    message="mm_device_do_normalize is (enabled|disabled) by default.",
    level="debug",
)
def mtp_draft_mm_normalize(c: Mapping[str, Any]) -> RuleResult:
    """MTP heads of multimodal targets declare SupportsMultiModal (they take the target's merged embeddings), so
    their ModelConfig builds a MultiModalConfig too."""
    interfaces = _draft_multimodal(c)
    if interfaces is None or c["env.VLLM_USE_RUST_FRONTEND"]:
        return None
    return Outcome(message=f"mm_device_do_normalize is "
                           f"{'enabled' if 'mm_device_do_normalize' in interfaces else 'disabled'} by default.")


@rule(
    "speculative.mtp-draft-text-only",
    title="A multimodal MTP draft has no multimodal processor: it runs text-only (without a warning)",
    phase="sub_configs",
    kind="check",
    reads=_MMREADS,
    after=("speculative.mtp-draft-mm-normalize",),
    source=f"{_DRAFT_MC}: ModelConfig._supports_multimodal_inputs, _supports_multimodal_for_mm_prefix "
    f"(vllm/config/model.py:966-1046; a draft runner is not warned about); {_REF}",
    message="Disabled mm_prefix attention mode because multimodal inputs are configuration-disabled. Attention "
    "backends without mm_prefix support may now be selected.",
    level="info",
)
def mtp_draft_text_only(c: Mapping[str, Any]) -> RuleResult:
    """The multimodal registry has no processor for an MTP head, which is the expected outcome for a draft."""
    return Outcome.log() if _draft_multimodal(c) is not None else None


def _refusal(c: Mapping[str, Any], model_types: tuple[str, ...]) -> RuleResult:
    if not _mtp_target(c) or c[_H + "model_type"] not in model_types:
        return None
    draft = mtp_draft(c)
    return Violation(draft.refusal, error="ValueError") if draft is not None and draft.refusal else None


@rule(
    "speculative.mtp-layer-types",
    title="Dots3Note: one MTP layer type per MTP layer",
    phase="sub_configs",
    kind="check",
    reads=READS,
    source=f"vllm/config/model.py ModelConfig.__post_init__ (the MTP draft's hf_overrides): {_OVERRIDE} "
    f"(vllm/config/speculative.py:832-848); {_REF}",
    message="mtp_layer_types must have one entry per MTP layer: got <n> for <layers> layers",
)
def mtp_layer_types(c: Mapping[str, Any]) -> RuleResult:
    """Dots3Note's MTP layers are appended to its layer types (sliding-window ones unless the checkpoint lists
    them): a list of another length cannot say which layer is which."""
    return _refusal(c, ("dots3_note",))


@rule(
    "speculative.mtp-inkling-weights",
    title="Inkling: MTP needs a checkpoint with MTP layers",
    phase="sub_configs",
    kind="check",
    reads=READS,
    source=f"vllm/config/model.py ModelConfig.__post_init__ (the MTP draft's hf_overrides): {_OVERRIDE} "
    f"(vllm/config/speculative.py:1204-1222); {_REF}",
    message="The Inkling checkpoint does not contain MTP weights",
)
def mtp_inkling_weights(c: Mapping[str, Any]) -> RuleResult:
    """Inkling's MTP depth is its ``mtp_config``'s ``num_nextn_predict_layers``: none means no draft layers."""
    return _refusal(c, ("inkling_model", "inkling_mm_model"))


_VOCAB_READS = ("speculative_config", _SC + "method", "model_config", "draft.loaded", "draft.hf_text_config",
                _HT + "vocab_size")


@rule(
    "speculative.draft-vocab-size",
    title="A draft model with a vocabulary of its own must have the target's vocabulary size",
    phase="sub_configs",
    kind="check",
    reads=_VOCAB_READS,
    after=("speculative.sampling-options",),
    source="vllm/config/speculative.py SpeculativeConfig.verify_equal_vocab_size_if_draft_model (1724-1741, the "
    "end of _verify_args; draft_has_own_vocab: StandaloneARSpeculatorConfig, vllm/v1/worker/gpu/spec_decode/"
    f"standalone_ar/config.py:15); {_REF}",
    message="Target and draft model should have the same vocabulary size. Target model vocab_size=<n>. Draft model "
    "vocab_size=<m>. Using models with different tokenizers can cause out-of-bounds errors during speculative "
    "decoding.",
)
def draft_vocab_size(c: Mapping[str, Any]) -> RuleResult:
    """An independent draft model (method ``draft_model``) proposes token ids from its own vocabulary, which the
    target must be able to index (EAGLE / MTP heads share the target's). Only a size its config.json states is
    compared."""
    if not c["speculative_config"] or c[_SC + "method"] != "draft_model" or not c["model_config"] \
            or not c["draft.loaded"]:
        return None
    target, draft = c[_HT + "vocab_size"], (c["draft.hf_text_config"] or {}).get("vocab_size")
    if not isinstance(target, int) or not isinstance(draft, int) or target == draft:
        return None
    return Violation(f"Target and draft model should have the same vocabulary size. Target model vocab_size={target}. "
                     f"Draft model vocab_size={draft}. Using models with different tokenizers can cause "
                     "out-of-bounds errors during speculative decoding.", error="ValueError")


SINGLE_LAYER_DRAFTS = ("step3p5_mtp", "step5_mtp", "inkling_mtp")
"""MTP drafts meant to run their one layer repeatedly: no warning for more tokens (mtp/config.py:88-98)."""


# ----------------------------------------------------------------- Qwen3-Omni DSpark drafts

_OMNI_TARGETS = frozenset({"Qwen3OmniMoeForConditionalGeneration", "Qwen3OmniMoeThinkerForConditionalGeneration"})
_OMNI_DRAFT = "Qwen3OmniDSparkModel"
_OMNI = "Qwen3-Omni DSpark"
_OMNI_READS = ("speculative_config", _SC + "method", _SC + "num_speculative_tokens", "model_config", _H + "model_type",
               _H + "architectures", "draft.loaded", "draft.hf_config", _HT + "hidden_size",
               _HT + "num_attention_heads", _HT + "num_key_value_heads", _HT + "head_dim", _HT + "num_hidden_layers",
               _HT + "vocab_size")


def _draft_value(hf: Mapping[str, Any], name: str) -> Any:
    """``getattr(draft_hf_config, name, None)``: a field of ``draft.hf_config`` or one of its ``other`` keys."""
    return hf[name] if name in hf and name != "other" else (hf.get("other") or {}).get(name)


def _dspark_value(hf: Mapping[str, Any], name: str) -> Any:
    """``_get_qwen3_dspark_value`` (speculative.py:199-206): dflash_config, then eagle_config, then the top level."""
    for section in ("dflash_config", "eagle_config"):
        nested = _draft_value(hf, section)
        if isinstance(nested, Mapping) and nested.get(name) is not None:
            return nested[name]
    return _draft_value(hf, name)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _head_dim(head_dim: Any, hidden: Any, heads: Any) -> Any:
    """``_get_attention_head_dim`` (speculative.py:175-188)."""
    if head_dim is not None:
        return head_dim
    if isinstance(hidden, int) and isinstance(heads, int) and heads > 0 and hidden % heads == 0:
        return hidden // heads
    return None


_DEFAULT_HEAD_DIM = {"qwen3": 128}
"""transformers' config classes that give ``head_dim`` a default of their own (Qwen3Config: 128)."""


def _omni_refusal(c: Mapping[str, Any]) -> str | None:
    """``_validate_qwen3_omni_dspark`` (vllm/config/speculative.py:211-434), its first refusal."""
    hf = c["draft.hf_config"]
    renamed = _renamed(hf)
    if _OMNI_DRAFT not in ((renamed,) if renamed else tuple(hf.get("architectures") or ())):
        return (f"{_OMNI} requires a standalone draft checkpoint with architectures=['{_OMNI_DRAFT}']; generic "
                "Qwen3DSparkModel checkpoints must be converted first.")
    block = _dspark_value(hf, "block_size")
    block = _dspark_value(hf, "dspark_block_size") if block is None else block
    if not _positive_int(block):
        return f"{_OMNI} requires a positive integer block_size in the draft config."
    k = c[_SC + "num_speculative_tokens"]
    if k != block:
        return f"{_OMNI} requires num_speculative_tokens to match the trained block_size ({block}); got {k}."
    hidden = c[_HT + "hidden_size"]
    if _draft_value(hf, "target_hidden_size") != hidden:
        return (f"{_OMNI} draft target_hidden_size must match the target text hidden size ({hidden}); got "
                f"{_draft_value(hf, 'target_hidden_size')}.")
    if _draft_value(hf, "hidden_size") != hidden:
        return (f"{_OMNI} draft hidden_size must match the target thinker hidden size ({hidden}); got "
                f"{_draft_value(hf, 'hidden_size')}.")
    heads = c[_HT + "num_attention_heads"]
    target = {"num_attention_heads": heads,
              "num_key_value_heads": c[_HT + "num_key_value_heads"] if c[_HT + "num_key_value_heads"] is not None
              else heads,
              "head_dim": _head_dim(c[_HT + "head_dim"], hidden, heads)}
    d_heads = _draft_value(hf, "num_attention_heads")
    d_kv = _draft_value(hf, "num_key_value_heads")
    d_dim = _draft_value(hf, "head_dim")
    draft = {"num_attention_heads": d_heads, "num_key_value_heads": d_heads if d_kv is None else d_kv,
             "head_dim": _head_dim(d_dim if d_dim is not None else _DEFAULT_HEAD_DIM.get(hf.get("model_type") or ""),
                                   _draft_value(hf, "hidden_size"), d_heads)}
    for name, value in target.items():
        if not _positive_int(value):
            return f"{_OMNI} requires a positive integer {name} in the target thinker text_config; got {value}."
        if draft[name] != value:
            return f"{_OMNI} draft {name} must match the target thinker value ({value}); got {draft[name]}."
    dflash = _draft_value(hf, "dflash_config")
    ids = dflash.get("target_layer_ids") if isinstance(dflash, Mapping) else None
    for name in ("dspark_target_layer_ids", "target_layer_ids"):
        ids = _draft_value(hf, name) if ids is None else ids
    if not isinstance(ids, (list, tuple)) or not ids:
        return f"{_OMNI} requires a non-empty target_layer_ids list in the draft config."
    if any(not isinstance(i, int) or isinstance(i, bool) for i in ids):
        return f"{_OMNI} target_layer_ids must contain only integers."
    if list(ids) != sorted(set(ids)):
        return f"{_OMNI} target_layer_ids must be unique and strictly increasing."
    layers = c[_HT + "num_hidden_layers"]
    if ids[0] < 0 or ids[-1] >= layers:
        return (f"{_OMNI} target_layer_ids must be zero-based text-layer indices in [0, {layers - 1}]; got "
                f"{list(ids)}.")
    if _dspark_value(hf, "use_aux_hidden_state") is not True:
        return (f"{_OMNI} requires use_aux_hidden_state=true because Omni conditioning is supplied through thinker "
                "hidden states.")
    if not _positive_int(_draft_value(hf, "markov_rank")):
        return f"{_OMNI} requires a positive integer markov_rank in the draft config."
    head = _draft_value(hf, "markov_head_type")
    if head != "vanilla":
        return f"{_OMNI} currently requires markov_head_type='vanilla'; got {head!r}."
    anchor = _draft_value(hf, "sample_from_anchor")
    bonus = _draft_value(hf, "dspark_bonus_anchor")
    if (True if anchor is None else anchor) is not True or (False if bonus is None else bonus) is not False:
        return f"{_OMNI} requires sample_from_anchor=true and dspark_bonus_anchor=false."
    vocab = c[_HT + "vocab_size"]
    d_vocab = _draft_value(hf, "vocab_size")
    if not _positive_int(d_vocab):
        return f"{_OMNI} input vocab_size must be a positive integer; got {d_vocab}."
    out_vocab = _draft_value(hf, "draft_vocab_size")
    out_vocab = d_vocab if out_vocab is None else out_vocab
    if not _positive_int(out_vocab) or not out_vocab <= vocab:
        return (f"{_OMNI} draft_vocab_size must be a positive integer no larger than target vocab_size ({vocab}); "
                f"got {out_vocab}.")
    noise = dflash.get("mask_token_id") if isinstance(dflash, Mapping) else None
    for name in ("mask_token_id", "dspark_noise_token_id", "pard_token", "ptd_token_id"):
        noise = _draft_value(hf, name) if noise is None else noise
        if noise is not None:
            break
    if not isinstance(noise, int) or isinstance(noise, bool) or not 0 <= noise < d_vocab:
        return f"{_OMNI} requires a valid mask/noise token id within the draft input vocabulary [0, {d_vocab - 1}]."
    ropes = (_draft_value(hf, "rope_parameters"), _draft_value(hf, "rope_scaling"))
    if _draft_value(hf, "mrope_section") is not None \
            or any(isinstance(rope, Mapping) and "mrope_section" in rope for rope in ropes):
        return f"{_OMNI} draft checkpoints must use logical 1-D RoPE and must not define mrope_section."
    return None


@rule(
    "speculative.qwen3-omni-dspark",
    title="A DSpark draft for a Qwen3-Omni target must be a converted Qwen3-Omni DSpark checkpoint that fits it",
    phase="sub_configs",
    kind="check",
    reads=_OMNI_READS,
    after=("speculative.draft-max-model-len-log",),
    source="vllm/config/speculative.py _validate_qwen3_omni_dspark (211-420), called by "
    f"DSparkSpeculatorConfig.adapt_draft_model_config (vllm/v1/worker/gpu/spec_decode/dspark/config.py:125-127); {_REF}",
    message="Qwen3-Omni DSpark requires ... / draft ... must match the target ...",
)
def qwen3_omni_dspark(c: Mapping[str, Any]) -> RuleResult:
    """The Omni drafter is conditioned on the thinker's hidden states at given text layers and drafts exactly its
    trained block: its width, heads, layers, vocabulary and Markov head are checked against the target's thinker
    text config (the target is Qwen3-Omni by model type or by any of its architectures)."""
    if not c["speculative_config"] or c[_SC + "method"] != "dspark" or not c["model_config"] \
            or not c["draft.loaded"]:
        return None
    if c[_H + "model_type"] != "qwen3_omni_moe" and not set(c[_H + "architectures"] or ()) & _OMNI_TARGETS:
        return None
    refusal = _omni_refusal(c)
    return Violation(refusal, error="ValueError") if refusal else None


@rule(
    "speculative.mtp-deepseek-v41",
    title="DeepSeek-V4.1 has no classic MTP draft (its checkpoints ship DSpark stages): method 'mtp' is refused",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SC + "method", "model_config", _H + "model_type"),
    after=("speculative.draft-max-model-len-log",),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (config_cls.configure): "
    f"MTPSpeculatorConfig.adapt_draft_model_config (vllm/v1/worker/gpu/spec_decode/mtp/config.py:80-87); {_REF}",
    message="DeepSeek V4.1 has no classic-MTP draft: ... Use speculative method 'dspark' instead of 'mtp'.",
)
def mtp_deepseek_v41(c: Mapping[str, Any]) -> RuleResult:
    """The draft ModelConfig is built first (its rewrite keeps V4.1's own architecture, speculative.py:863-874);
    then the MTP speculator refuses a V4.1 target."""
    if not c["speculative_config"] or c[_SC + "method"] != "mtp" or not c["model_config"] \
            or c[_H + "model_type"] != "deepseek_v41":
        return None
    return Violation("DeepSeek V4.1 has no classic-MTP draft: its checkpoints ship DSpark stages under mtp.* "
                     "(main_proj/markov_head/confidence_head) and carry no e_proj/h_proj/enorm/hnorm/hc_head weights. "
                     "Use speculative method 'dspark' instead of 'mtp'.", error="ValueError")


DELTA = Delta(
    replace=(mtp_draft_architecture,),
    add=(mtp_layer_types, mtp_inkling_weights, mtp_draft_mm_normalize, mtp_draft_text_only, draft_vocab_size,
         qwen3_omni_dspark, mtp_deepseek_v41),
)
"""The MTP-draft part of vLLM 0.34.0's delta over 0.11.1."""
