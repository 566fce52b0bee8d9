"""SpeculativeConfig's own ``__post_init__`` (phase ``sub_configs``): the method, the draft model,
the prompt-lookup defaults, the token tree, the draft's parallel settings and checks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from postinit.engine import (
    Outcome,
    RuleResult,
    Violation,
    rule,
    rule_of,
    sequence,
)
from postinit.rules import model_config as mc
from postinit.rules import verify
from postinit.schema.configs import SPECULATIVE_METHODS_SEED
from postinit.schema.loaders.construct import literal_refusal

_MTP_TYPES = ("deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp", "longcat_flash_mtp")
_SM = "speculative_config.method"


@rule(
    "speculative.method-literal",
    title="The method is one of the version's SpeculativeConfig (a config built directly)",
    phase="sub_configs",
    kind="check",
    reads=("usage.via_engine_args", "usage.unheld"),
    source="vllm/config/speculative.py SpeculativeConfig (method: SpeculativeMethod | None, a Literal pydantic checks "
    "before __post_init__); ref 2.8",
    message="1 validation error for SpeculativeConfig / method / Input should be <the version's methods> "
    "[type=literal_error, ...]",
)
def method_literal(c: Mapping[str, Any], *, methods: tuple[str, ...] = SPECULATIVE_METHODS_SEED) -> RuleResult:
    """SpeculativeConfig types the method as the version's Literal (``methods``, in declaration order): pydantic
    refuses any other, a method of a later version included (the door hands it over: ``version.refused_values``).
    Through EngineArgs the same refusal is ``engine-args.speculative-method-literal``."""
    method = (c["usage.unheld"] or {}).get(_SM)
    if c["usage.via_engine_args"] or method is None:
        return None
    return Violation(literal_refusal("SpeculativeConfig", ("method",), method, methods), error="ValidationError")


@rule(
    "speculative.mtp-method-normalized",
    title="Model-specific MTP method names become 'mtp'",
    phase="sub_configs",
    kind="override",
    reads=("speculative_config", _SM),
    writes=(_SM,),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    message="method `{method}` is deprecated and replaced with mtp.",
    level="warning",
)
def mtp_method_normalized(c: Mapping[str, Any]) -> RuleResult:
    """The per-model MTP spellings are deprecated aliases of the generic mtp method."""
    method = c[_SM]
    if c["speculative_config"] and method in _MTP_TYPES:
        return Outcome.log({_SM: "mtp"}, method=method)
    return None


@rule(
    "speculative.draft-model-from-method",
    title="mtp uses the target model as draft; ngram needs no model",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.num_speculative_tokens",
           "model_config", "model_config.model", "speculative_config.quantization", "model_config.quantization",
           "model_config.hf_text_config.model_type"),
    writes=("speculative_config.model", "speculative_config.quantization", "speculative_config.enforce_eager"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    message="",
    level="debug",
)
def draft_model_from_method(c: Mapping[str, Any]) -> RuleResult:
    """MTP layers live in the target checkpoint (quantized like it unless the draft's quantization is given;
    DeepSeek-V3.2's run eager); n-gram lookup has no model; anything else must name one."""
    if not c["speculative_config"] or c["speculative_config.model"] is not None \
            or c["speculative_config.num_speculative_tokens"] is None:
        return None
    if c[_SM] == "mtp":
        if not c["model_config"]:  # VllmConfig(...) built without a model: no target to take the layers from
            return Violation("target_model_config must be present for mtp")
        out: dict[str, Any] = {"speculative_config.model": c["model_config.model"]}
        if c["model_config.hf_text_config.model_type"] == "deepseek_v32":
            out["speculative_config.enforce_eager"] = True  # vLLM: CUDA graphs with V3.2's MTP are not supported
        if not c["speculative_config.quantization"] and c["model_config.quantization"]:
            out["speculative_config.quantization"] = c["model_config.quantization"]
        return out
    if c[_SM] in ("ngram", "[ngram]"):
        return {"speculative_config.model": "ngram"}
    if c[_SM] == "suffix":  # vLLM 0.11.1's (the seed's SpeculativeConfig refuses the method)
        return {"speculative_config.model": "suffix"}
    return Violation("num_speculative_tokens was provided but without speculative model.")


_MTP_DRAFT_BY_TYPE = {
    "deepseek_v3": "DeepSeekMTPModel", "deepseek_v32": "DeepSeekMTPModel", "deepseek_mtp": "DeepSeekMTPModel",
    "ernie4_5_moe": "ErnieMTPModel", "ernie_mtp": "ErnieMTPModel",
    "qwen3_next": "Qwen3NextMTP", "qwen3_next_mtp": "Qwen3NextMTP",
    "longcat_flash": "LongCatFlashMTPModel",
}
_MTP_DRAFT_BY_ARCH = {"MiMoForCausalLM": "MiMoMTPModel", "Glm4MoeForCausalLM": "Glm4MoeMTPModel"}


def _mtp_head(c: Mapping[str, Any]) -> str | None:
    """The MTP architecture ``hf_config_override`` turns the target checkpoint into (by its model type, else its
    first architecture), or None when the target has no MTP layer."""
    archs = c["model_config.hf_config.architectures"] or ()
    return _MTP_DRAFT_BY_TYPE.get(c["model_config.hf_config.model_type"]) or (
        _MTP_DRAFT_BY_ARCH.get(archs[0]) if archs else None)


@rule(
    "speculative.mtp-draft-architecture",
    title="The MTP draft is the target checkpoint loaded as its MTP architecture",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "model_config", "model_config.hf_config.model_type",
           "model_config.hf_config.architectures", "speculative_config.model"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__, hf_config_override; ref 2.8",
    message="Resolved architecture: {architecture}",
    level="info",
)
def mtp_draft_architecture(c: Mapping[str, Any]) -> RuleResult:
    """SpeculativeConfig builds the draft's ModelConfig from the target checkpoint with ``hf_config_override``.

    The override renames the model type and architecture to the MTP head's, and the
    draft's ModelConfig logs the resolved architecture as every ModelConfig does.
    """
    if not c["speculative_config"] or c[_SM] != "mtp" or not c["model_config"] \
            or c["speculative_config.model"] is None:  # no draft model: no draft ModelConfig
        return None
    arch = _mtp_head(c)
    return Outcome.log(architecture=arch) if arch else None


# ----------------------------------------------------------------- the draft checkpoint's ModelConfig (draft.*)

_D = "draft."
_SC = "speculative_config."
_SEED_DRAFT_METHODS: tuple[str | None, ...] = ("eagle", "eagle3", "medusa", "mlp_speculator", "draft_model", None)
"""The methods whose draft checkpoint SpeculativeConfig builds a ModelConfig for: every one but n-gram and MTP
(None: to be detected from the draft; a plain draft model is refused right after its ModelConfig is built,
``speculative.draft-model-unsupported``)."""
_CACHE_ONLY_ROPE = ("default", "linear", "llama3", "ntk", "proportional")
"""vLLM 0.34.0's ``_CACHE_ONLY_ROPE_TYPES`` (vllm/config/speculative.py:121-123): RoPE types whose
max_position_embeddings only sizes the cos/sin cache."""
_LEN_FACTS = tuple(p for p in mc._LEN_READS if p.startswith((mc.T, mc.H)))
DRAFT_READS = ("speculative_config", "model_config", _SM, _D + "loaded", _D + "hf_config", _D + "hf_text_config",
               *_LEN_FACTS, mc.H + "max_position_embeddings", mc.H + "rope_scaling")
"""What the draft rules read to know whose config.json the draft's ModelConfig is built from (:func:`draft_of`)."""


def draft_of(c: Mapping[str, Any], *, methods: tuple[str | None, ...] = _SEED_DRAFT_METHODS, mtp: bool = False) -> str | None:
    """Whose config.json the draft's ModelConfig is built from: ``checkpoint`` (a draft checkpoint of its own whose
    config.json postinit read, ``draft.*``), ``target`` (MTP, with ``mtp``: the target checkpoint), or None."""
    if not c["speculative_config"] or not c["model_config"]:
        return None
    method = c[_SM]
    if method == "mtp":
        return "target" if mtp else None
    return "checkpoint" if method in methods and c[_D + "loaded"] else None


def draft_hf(c: Mapping[str, Any], key: str, **kw: Any) -> Any:
    """A config.json fact of the draft (``draft.hf_config``, or for MTP the target's)."""
    return c[_D + "hf_config"].get(key) if draft_of(c, **kw) == "checkpoint" else c[mc.H + key]


def rope_only_sizes_cache(rope: Any) -> bool:
    """vLLM 0.34.0's ``_rope_only_sizes_cache``: every RoPE of the config (one, or one per layer type) is of a
    cache-only type (no scaling at all: the default RoPE, or none)."""
    if not isinstance(rope, Mapping):
        return True
    per_layer = [v for v in rope.values() if isinstance(v, Mapping)]
    return all((mc._rope_type(r) or "default") in _CACHE_ONLY_ROPE for r in (per_layer or [rope]))


_CLASS_SETS: Mapping[str, Mapping[str, Any]] = {"medusa": {"max_seq_len": 2**20}}
"""Attributes vLLM's own config class of a draft model type sets whatever config.json says (MedusaConfig.__init__,
vllm/transformers_utils/configs/medusa.py: ``max_seq_len = int(2**20)``)."""


class _DraftView(Mapping[str, Any]):
    """The draft's ModelConfig as ``model.max-model-len`` reads a ModelConfig: its config.json (``draft.*``, or for
    MTP the target's), ``max_model_len`` (the speculative one with ``user_len``, else none), the target's as
    ``spec_target_max_model_len``, runner ``draft``."""

    def __init__(self, c: Mapping[str, Any], *, user_len: bool, target: bool) -> None:
        self._c, self._target = c, target
        self._own = {"model_config": True, mc.M + "max_model_len": c[_SC + "max_model_len"] if user_len else None,
                     mc.M + "disable_sliding_window": False, mc.M + "runner_type": "draft",
                     mc.M + "spec_target_max_model_len": c["model_config.max_model_len"]}
        fixed = {} if target else _CLASS_SETS.get(c[_D + "hf_config"].get("model_type"), {})
        self._hf, self._text = {**c[_D + "hf_config"], **fixed}, {**c[_D + "hf_text_config"], **fixed}

    def __getitem__(self, path: str) -> Any:
        if path in self._own:
            return self._own[path]
        if self._target:
            return self._c[path]
        if path.startswith(mc.T):
            return self._text.get(path[len(mc.T):])
        if path.startswith(mc.H):
            return self._hf.get(path[len(mc.H):])
        return self._c[path]  # the environment

    def __iter__(self) -> Iterator[str]:
        return iter(self._own)

    def __len__(self) -> int:
        return len(self._own)


_DRAFT_SRC = "the draft's ModelConfig, built by SpeculativeConfig.__post_init__"


@rule(
    "speculative.draft-architecture",
    title="The draft checkpoint's ModelConfig resolves its architecture",
    phase="sub_configs",
    kind="check",
    reads=(*DRAFT_READS, "version.model_registry"),
    source=f"vllm/config/model.py ModelConfig.__post_init__ ({_DRAFT_SRC}); ref 2.8",
    message="Resolved architecture: {architecture}",
    level="info",
)
def draft_architecture(c: Mapping[str, Any], *, methods: tuple[str | None, ...] = _SEED_DRAFT_METHODS,
                       renames: tuple[tuple[str | None, str, Any, str], ...] = ()) -> RuleResult:
    """Every ModelConfig logs the architecture it resolved; the draft's is its checkpoint's first registered one
    (EAGLE's wrapping into its EAGLE class comes after, silently). ``methods``: those with a draft checkpoint;
    ``renames``: the version's ``hf_overrides`` of the draft, ``(first architecture, config.json key, value, new
    architecture)`` (first architecture ``None``: whichever; value ``True``: any truthy one)."""
    if draft_of(c, methods=methods) != "checkpoint":
        return None
    registered = mc.registry_of(c["version.model_registry"]).classes
    hf = c[_D + "hf_config"]
    archs = tuple(hf.get("architectures") or ())
    for first, key, value, new in renames:
        given = hf[key] if key in hf else (hf.get("other") or {}).get(key)
        if (first is None or archs[:1] == (first,)) and (bool(given) if value is True else given == value):
            archs = (new,)
            break
    arch = next((a for a in archs if a in registered), None)
    return Outcome.log(architecture=arch) if arch else None


@rule(
    "speculative.draft-max-model-len",
    title="The draft's max_model_len from its config.json, as the target's (the target's when it has no length key)",
    phase="sub_configs",
    kind="derive",
    reads=(*DRAFT_READS, _SC + "max_model_len", "model_config.max_model_len", "env.VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
    writes=(_D + "built_max_model_len",),
    after=("speculative.draft-architecture",),
    source=f"vllm/config/model.py _get_and_verify_max_len for {_DRAFT_SRC} (spec_target_max_model_len=the "
    "target's); ref 2.8",
    message="<the draft ModelConfig's max-length warnings, if any>",
    level="warning",
)
def draft_max_model_len(c: Mapping[str, Any], *, methods: tuple[str | None, ...] = _SEED_DRAFT_METHODS, mtp: bool = False,
                        user_len: bool = False, options: Mapping[str, Any] | None = None) -> RuleResult:
    """The draft's ModelConfig derives its length as every ModelConfig does (``model.max-model-len``, with the
    version's ``options``). ``user_len``: the speculative max_model_len is its max_model_len (vLLM 0.34.0; a value
    above the draft's own limit is refused there), else it gets none and SpeculativeConfig checks it after.
    ``mtp``: an MTP draft (the target checkpoint) is derived too."""
    kind = draft_of(c, methods=methods, mtp=mtp)
    if kind is None:
        return None
    found = mc.max_model_len(_DraftView(c, user_len=user_len, target=kind == "target"), **(options or {}))
    if not isinstance(found, Outcome):
        return found
    return Outcome({_D + "built_max_model_len": found.changes[mc.M + "max_model_len"]}, message=found.message,
                   level="warning")


@rule(
    "speculative.draft-max-model-len-log",
    title="The draft's ModelConfig logs its max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(*DRAFT_READS, _D + "built_max_model_len"),
    source=f"vllm/config/model.py ModelConfig.get_and_verify_max_len ({_DRAFT_SRC}); ref 2.8",
    message="Using max model len {n}",
    level="info",
)
def draft_max_model_len_log(c: Mapping[str, Any], *, methods: tuple[str | None, ...] = _SEED_DRAFT_METHODS,
                            mtp: bool = False) -> RuleResult:
    """As every ModelConfig does."""
    n = c[_D + "built_max_model_len"]
    return Outcome.log(n=n) if draft_of(c, methods=methods, mtp=mtp) is not None and n is not None else None


@rule(
    "speculative.draft-max-model-len-override",
    title="The draft's max_model_len is capped by the target's, or is speculative_config.max_model_len",
    phase="sub_configs",
    kind="derive",
    reads=(*DRAFT_READS, _D + "built_max_model_len", _SC + "max_model_len", "model_config.max_model_len"),
    writes=(_D + "max_model_len",),
    after=("speculative.draft-max-model-len-log", "speculative.draft-model-unsupported"),
    source="vllm/config/speculative.py SpeculativeConfig._maybe_override_draft_max_model_len; ref 2.8",
    message="",
    level="debug",
)
def draft_max_model_len_override(c: Mapping[str, Any], *, methods: tuple[str | None, ...] = _SEED_DRAFT_METHODS,
                                 mtp: bool = False, log: bool = False) -> RuleResult:
    """Sequences must fit both models: the shorter length wins (``log``: vLLM 0.34.0 logs it when it is the
    target's); a speculative max_model_len (for testing that sequences can skip speculation) may exceed neither."""
    draft = c[_D + "built_max_model_len"]
    if draft_of(c, methods=methods, mtp=mtp) is None or draft is None:
        return None
    given, target = c[_SC + "max_model_len"], c["model_config.max_model_len"]
    if given is not None:
        if given > draft:
            return Violation(f"speculative_max_model_len={given} cannot be larger than draft_max_model_len={draft}")
        if given > target:
            return Violation(f"speculative_max_model_len={given} cannot be larger than target_max_model_len={target}")
        return {_D + "max_model_len": given}
    result = min(draft, target)
    if log and result != draft:
        return Outcome.log({_D + "max_model_len": result}, draft=draft, result=result)
    return {_D + "max_model_len": result}


_EAGLE3_TARGETS = ("llama", "qwen", "minicpm", "gpt_oss")


@rule(
    "speculative.eagle3-target-type",
    title="EAGLE-3 needs a Llama, Qwen, MiniCPM or gpt-oss target",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", "model_config", _SM, mc.T + "model_type"),
    after=("speculative.draft-max-model-len-override",),
    source="vllm/config/speculative.py SpeculativeConfig._verify_args; ref 2.8",
    message="Eagle3 is only supported for ['llama', 'qwen', 'minicpm', 'gpt_oss'] models. Got "
    "self.target_model_config.hf_text_config.model_type=<type>",
)
def eagle3_target_type(c: Mapping[str, Any]) -> RuleResult:
    """The EAGLE-3 heads read the auxiliary hidden states only these model families expose."""
    if not c["speculative_config"] or not c["model_config"] or c[_SM] != "eagle3":
        return None
    model_type = c[mc.T + "model_type"] or ""
    if any(t in model_type for t in _EAGLE3_TARGETS):
        return None
    return Violation(f"Eagle3 is only supported for {list(_EAGLE3_TARGETS)} models. Got "
                     f"self.target_model_config.hf_text_config.model_type={model_type!r}",
                     hint="use an EAGLE-3 draft with a Llama, Qwen, MiniCPM or gpt-oss target")


@rule(
    "speculative.method-from-model-name",
    title="The method is detected from the draft model's name (ngram, EAGLE, EAGLE-3)",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.model", "model_config.model",
           "model_config.hf_config.model_type", "model_config.hf_config.architectures", "draft.loaded",
           "draft.hf_config"),
    writes=(_SM,),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    level="debug",
)
def method_from_model_name(c: Mapping[str, Any]) -> RuleResult:
    """Without a method, "ngram" as model means n-gram lookup and EAGLE heads are recognised by name; a draft that
    is the target's own checkpoint with MTP layers (its model type after ``hf_config_override``) means MTP; a
    draft checkpoint whose config.json says ``medusa`` or ``mlp_speculator`` is that method.

    Detection of MTP from another draft checkpoint's config.json model_type is not modelled.
    """
    model = c["speculative_config.model"]
    if not c["speculative_config"] or c[_SM] is not None or model is None:
        return None
    name = model.lower()
    if model in ("ngram", "[ngram]"):
        return {_SM: "ngram"}
    if "eagle-" in name:
        return {_SM: "eagle"}
    if "eagle3" in name:
        return {_SM: "eagle3"}
    if model == c["model_config.model"] and _mtp_head(c) is not None:
        return {_SM: "mtp"}
    draft_type = c["draft.hf_config"].get("model_type") if c["draft.loaded"] else None
    if draft_type in ("medusa", "mlp_speculator"):
        return {_SM: draft_type}
    return None



_DRAFT_MODEL_MESSAGE = ("Speculative decoding with draft model is not supported yet. Please consider using other "
                        "speculative decoding methods such as ngram, medusa, eagle, or mtp.")


@rule(
    "speculative.draft-model-unsupported",
    title="A draft model that is no EAGLE head, MTP layer, Medusa or MLP speculator is refused",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.model", "model_config.hf_config.model_type",
           "model_config.hf_config.architectures"),
    after=("speculative.draft-max-model-len-log",),  # the draft's ModelConfig is built (and logs) first
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    message=_DRAFT_MODEL_MESSAGE,
)
def plain_draft_model_refused(c: Mapping[str, Any]) -> RuleResult:
    """With a draft model named, vLLM keeps an explicit eagle/eagle3 and otherwise detects the method from the
    draft (EAGLE by name, Medusa / MLP speculator / MTP by its config.json's model_type); what is left is a
    plain draft model ("draft_model"), which this version's SpeculativeConfig refuses (NotImplementedError).

    ``mtp`` is an MTP layer of the target when the target has one (as vLLM's ``hf_config_override`` makes it); a
    Medusa or MLP-speculator checkpoint is recognised by its config.json (``speculative.method-from-model-name``);
    any other draft counts as a plain model."""
    model = c["speculative_config.model"]
    method = c[_SM]
    if not c["speculative_config"] or model is None or method in ("ngram", "[ngram]", "eagle", "eagle3", "suffix",
                                                                   "medusa", "mlp_speculator"):
        return None
    if model in ("ngram", "[ngram]"):
        return None
    if method == "mtp" and _mtp_head(c) is not None:
        return None
    return Violation(_DRAFT_MODEL_MESSAGE, error="NotImplementedError",
                     hint="use an EAGLE head (method eagle), MTP or n-gram speculation")


@rule(
    "speculative.eagle-v0-chunked-prefill",
    title="EAGLE under V0 does not take chunked prefill",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.enable_chunked_prefill",
           "env.VLLM_USE_V1"),
    after=("speculative.draft-max-model-len-log",),  # the draft's ModelConfig is built (and logs) first
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (a draft model named); ref 2.8",
    message="Chunked prefill and EAGLE are not compatible when using V0.",
)
def eagle_v0_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """The seed's V0 engine cannot chunk prefills for an EAGLE drafter: a named EAGLE draft with chunked prefill
    (EngineArgs' flag, which it hands to SpeculativeConfig) under VLLM_USE_V1=0 is refused."""
    if c["speculative_config"] and c["speculative_config.model"] is not None and c[_SM] in ("eagle", "eagle3") \
            and c["speculative_config.enable_chunked_prefill"] and not c["env.VLLM_USE_V1"]:
        return Violation("Chunked prefill and EAGLE are not compatible when using V0.")
    return None


SPECULATIVE_METHOD = sequence(
    "speculative.method", mtp_method_normalized, draft_model_from_method, method_from_model_name,
    plain_draft_model_refused, mtp_draft_architecture,
    title="SpeculativeConfig.__post_init__: MTP names normalised, the draft model, the method, the MTP architecture",
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__",
)

@rule(
    "speculative.prompt-lookup-defaults",
    title="n-gram lookup window defaults (5/5, or mirrored); 0/0 for other methods",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.prompt_lookup_min", "speculative_config.prompt_lookup_max"),
    writes=("speculative_config.prompt_lookup_min", "speculative_config.prompt_lookup_max"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    level="debug",
)
def prompt_lookup_defaults(c: Mapping[str, Any]) -> RuleResult:
    """n-gram matching needs a window; a single given bound is used for both; other methods do no lookup."""
    lo, hi = c["speculative_config.prompt_lookup_min"], c["speculative_config.prompt_lookup_max"]
    if not c["speculative_config"]:
        return None
    if c[_SM] != "ngram":
        new = (0, 0)
    elif lo is None and hi is None:
        new = (5, 5)
    else:
        new = (lo if lo is not None else hi, hi if hi is not None else lo)
        if new[0] > new[1]:
            return Violation(f"prompt_lookup_min={new[0]} must be <= prompt_lookup_max={new[1]}")
    return {"speculative_config.prompt_lookup_min": new[0], "speculative_config.prompt_lookup_max": new[1]}


def _model_based(c: Mapping[str, Any]) -> bool:
    """vLLM's ``else`` branch with a draft model: not n-gram, and a model (or MTP's target) to draft with."""
    return bool(c["speculative_config"]) and c[_SM] not in ("ngram", "[ngram]") \
        and c["speculative_config.model"] is not None


@rule(
    "speculative.token-tree",
    title="Speculative token tree: a chain of num_speculative_tokens, or the user's tree sorted breadth-first",
    phase="sub_configs",
    kind="derive",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.num_speculative_tokens",
           "speculative_config.speculative_token_tree"),
    writes=("speculative_config.speculative_token_tree",),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    level="debug",
)
def token_tree(c: Mapping[str, Any]) -> RuleResult:
    """Model-based drafters propose a tree of tokens; without one they propose a single chain.

    Not for n-gram lookup. The draft's ``n_predict`` default for an unset
    num_speculative_tokens is not modelled (the rule then does not fire).
    """
    if not _model_based(c):
        return None
    tree = c["speculative_config.speculative_token_tree"]
    if tree is None:
        n = c["speculative_config.num_speculative_tokens"]
        if n is None:
            return None
        return {"speculative_config.speculative_token_tree": str([(i + 1) * (0,) for i in range(n)])}
    try:
        choices = ast.literal_eval(tree)
        ordered = sorted(choices, key=lambda t: (len(t), t))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        # vLLM's SpeculativeConfig.__post_init__ raises the same: a SyntaxError/TypeError is not
        # wrapped by pydantic (only ValueError and AssertionError are)
        return Violation(str(e), error=type(e).__name__,
                         hint="speculative_token_tree is a Python literal: a list of tuples of ints")
    return {"speculative_config.speculative_token_tree": str(ordered)}


@rule(
    "speculative.draft-tensor-parallel-size",
    title="The draft model runs with the target's TP size (or 1)",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.draft_tensor_parallel_size",
           "parallel_config.tensor_parallel_size"),
    writes=("speculative_config.draft_tensor_parallel_size",),
    source="vllm/config/speculative.py SpeculativeConfig._verify_and_get_draft_tp; ref 2.8",
    level="debug",
)
def draft_tensor_parallel_size(c: Mapping[str, Any]) -> RuleResult:
    """A draft shards like its target unless told to run unsharded; any other size is refused.

    ``mlp_speculator`` drafts (always TP 1) are not modelled: postinit has no
    facts about the draft's config.json.
    """
    if not _model_based(c):
        return None
    draft, tp = c["speculative_config.draft_tensor_parallel_size"], c["parallel_config.tensor_parallel_size"]
    if draft is None:
        return {"speculative_config.draft_tensor_parallel_size": tp}
    if draft not in (1, tp):
        return Violation(f"speculative_draft_tensor_parallel_size={draft} cannot be other value than 1 or "
                         "target model tensor_parallel_size", error="ValueError",
                         hint=f"use draft_tensor_parallel_size 1 or {tp}")
    return None


def _reads(fn: Callable[..., Any]) -> tuple[str, ...]:
    spec = rule_of(fn)
    assert spec is not None, fn
    return spec.reads


class _Overlay(Mapping[str, Any]):
    """A read-only view of a state with a few paths replaced (reads go through, key by key)."""

    def __init__(self, base: Mapping[str, Any], top: Mapping[str, Any]) -> None:
        self.base, self.top = base, top

    def __getitem__(self, key: str) -> Any:
        return self.top[key] if key in self.top else self.base[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)


_DRAFT_CHECKS: tuple[Callable[[Mapping[str, Any]], RuleResult], ...] = (
    verify.external_launcher_seed,
    verify.heads_divisible_by_tp,
    verify.expert_parallel_needs_experts,
    verify.pipeline_parallel_supported,
    verify.dcp_kv_heads,
)
_DRAFT_CHECK_READS = tuple(dict.fromkeys(p for fn in _DRAFT_CHECKS for p in _reads(fn)))


@rule(
    "speculative.draft-verify-with-parallel-config",
    title="The draft model is verified against its parallel config while SpeculativeConfig is built",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.draft_tensor_parallel_size", *_DRAFT_CHECK_READS),
    source="vllm/config/speculative.py SpeculativeConfig._verify_args "
    "(draft_model_config.verify_with_parallel_config); ref 2.8, 9",
)
def draft_verify_with_parallel_config(c: Mapping[str, Any]) -> RuleResult:
    """vLLM runs ``ModelConfig.verify_with_parallel_config`` on the draft before ``VllmConfig`` exists.

    For n-gram speculation the draft configs *are* the target's, so the checks of
    step 3 (``verify.*``) raise here, at the ``speculative_config`` stage, before any
    model hook of step 2 ran. An MTP draft is the target checkpoint on a fresh
    ParallelConfig (the draft TP size; no DCP, no expert parallelism). EAGLE and
    draft-model drafts are other checkpoints, whose config.json postinit does not
    hold: they are not checked here.
    """
    if not c["speculative_config"]:
        return None
    method = c[_SM]
    if method == "ngram":
        view: Mapping[str, Any] = c
        checks = _DRAFT_CHECKS
    elif method == "mtp":
        tp = c["speculative_config.draft_tensor_parallel_size"] or c["parallel_config.tensor_parallel_size"]
        view = _Overlay(c, {"parallel_config.tensor_parallel_size": tp,
                            "parallel_config.decode_context_parallel_size": 1,
                            "parallel_config.enable_expert_parallel": False})
        # the MTP head's own class decides SupportsPP, which postinit does not know
        checks = tuple(fn for fn in _DRAFT_CHECKS if fn is not verify.pipeline_parallel_supported)
    else:
        return None
    for check in checks:
        out = check(view)
        if isinstance(out, Violation):
            return out
    return None




@rule(
    "speculative.mtp-n-predict-divides",
    title="MTP: more speculative tokens than the checkpoint's MTP layers must be a multiple of them",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.num_speculative_tokens",
           "model_config", "model_config.model", "model_config.hf_config.model_type",
           "model_config.hf_config.num_nextn_predict_layers"),
    after=("speculative.mtp-draft-architecture", "speculative.mtp-several-tokens-warning"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (n_predict from hf_config_override); ref 2.8",
    message="num_speculative_tokens:<k> must be divisible by n_predict=<n>",
)
def mtp_n_predict_divides(c: Mapping[str, Any]) -> RuleResult:
    """The MTP draft (the target's own checkpoint) reuses its ``num_nextn_predict_layers`` layers in turn
    (``hf_config_override`` makes that its ``n_predict``): more tokens must use every layer equally often."""
    if not c["speculative_config"] or c[_SM] != "mtp" or not c["model_config"] \
            or c["speculative_config.model"] != c["model_config.model"] \
            or c["model_config.hf_config.model_type"] not in _MTP_DRAFT_BY_TYPE:
        return None
    n, k = c["model_config.hf_config.num_nextn_predict_layers"], c["speculative_config.num_speculative_tokens"]
    if isinstance(n, int) and n > 0 and isinstance(k, int) and k > n and k % n != 0:
        return Violation(f"num_speculative_tokens:{k} must be divisible by n_predict={n}")
    return None


@rule(
    "speculative.mtp-several-tokens-warning",
    title="MTP with more than one speculative token reruns the same layer (warning)",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.num_speculative_tokens", "speculative_config.model",
           "model_config", "model_config.hf_config.model_type"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    message="Enabling num_speculative_tokens > 1 will runmultiple times of forward on same MTP layer,which may "
    "result in lower acceptance rate",
    level="warning",
)
def mtp_several_tokens_warning(c: Mapping[str, Any]) -> RuleResult:
    """An MTP checkpoint has one (or few) prediction layers: more tokens run the same layer again.

    vLLM warns where it recognises the draft's model type as an MTP type (the target's checkpoint under its MTP
    name); LongCat's MTP type has its own message and is not modelled here.
    """
    if not c["speculative_config"] or c[_SM] != "mtp" or not c["model_config"]:
        return None
    if c["model_config.hf_config.model_type"] not in _MTP_DRAFT_BY_TYPE:
        return None
    tokens = c["speculative_config.num_speculative_tokens"]
    if tokens is None and c["speculative_config.model"] is not None:
        # the draft named without a number of tokens: vLLM compares None with 1 as it detects MTP from the draft
        return Violation("'>' not supported between instances of 'NoneType' and 'int'", error="TypeError",
                         hint="give num_speculative_tokens")
    return Outcome.log() if isinstance(tokens, int) and tokens > 1 else None


@rule(
    "speculative.num-tokens-required",
    title="n-gram lookup needs num_speculative_tokens",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.num_speculative_tokens", "speculative_config.model"),
    source="vllm/config/speculative.py SpeculativeConfig._verify_args (a model_validator); ref 2.8",
    message="num_speculative_tokens must be provided with speculative model unless the draft model config contains "
    "an n_predict parameter.",
)
def num_tokens_required(c: Mapping[str, Any]) -> RuleResult:
    """N-gram lookup has no draft config whose n_predict could stand for a missing number of tokens; neither has
    a method without a draft model (MTP names its draft, the target, only when the number of tokens is given)."""
    if c["speculative_config"] and (c[_SM] in ("ngram", "[ngram]") or c["speculative_config.model"] is None) \
            and c["speculative_config.num_speculative_tokens"] is None:
        return Violation("num_speculative_tokens must be provided with speculative model unless the draft model "
                         "config contains an n_predict parameter.")
    return None


def _bound_errors(c: Mapping[str, Any], bounds: tuple[tuple[str, str, int], ...]) -> list[str]:
    """pydantic's text for each out-of-bounds speculative-config number (``(field, "gt" | "ge", bound)``)."""
    errors: list[str] = []
    for name, op, bound in bounds:
        value = c[f"speculative_config.{name}"]
        if not isinstance(value, int) or (value > bound if op == "gt" else value >= bound):
            continue
        kind, words = ("greater_than", "greater than") if op == "gt" else ("greater_than_equal",
                                                                          "greater than or equal to")
        errors.append(f"{name}\n  Input should be {words} {bound} [type={kind}, input_value={value}, "
                      f"input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/{kind}")
    return errors


def _refusal(errors: list[str]) -> Violation | None:
    if not errors:
        return None
    head = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''} for SpeculativeConfig"
    return Violation("\n".join([head, *errors]), error="ValidationError")


_SPEC_BOUNDS: tuple[tuple[str, str, int], ...] = (("num_speculative_tokens", "gt", 0),
                                                  ("draft_tensor_parallel_size", "ge", 1))
"""SpeculativeConfig's ``Field(gt=...)`` / ``Field(ge=...)`` bounds on the fields no rule of postinit fills in
before (``max_model_len`` and the prompt-lookup bounds are defaulted by rules, so a refused input value of theirs
is not told from a default here), in the class's field order."""
_BATCH_BOUND = (("disable_by_batch_size", "ge", 2),)
_SPEC_SRC = ("vllm/engine/arg_utils.py EngineArgs.create_speculative_config (SpeculativeConfig's Field bounds, "
             "vllm/config/speculative.py); ref 2.8")


@rule(
    "speculative.field-bounds",
    title="The speculative config's numbers within their pydantic bounds",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", *(f"speculative_config.{name}" for name, _, _ in _SPEC_BOUNDS)),
    source=_SPEC_SRC,
    message="<n> validation error(s) for SpeculativeConfig ...",
)
def field_bounds(c: Mapping[str, Any]) -> RuleResult:
    """pydantic refuses every out-of-bounds number at once, before any of SpeculativeConfig's own code runs;
    create_engine_config lets its ValidationError through unwrapped."""
    if not c["speculative_config"]:
        return None
    return _refusal(_bound_errors(c, _SPEC_BOUNDS))


@rule(
    "speculative.disable-by-batch-size-bound",
    title="disable_by_batch_size is at least 2",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", "speculative_config.disable_by_batch_size"),
    source=_SPEC_SRC,
    message="1 validation error for SpeculativeConfig ... greater than or equal to 2 ...",
)
def disable_by_batch_size_bound(c: Mapping[str, Any]) -> RuleResult:
    """Speculation switched off above one request would never run: pydantic refuses a threshold below 2."""
    if not c["speculative_config"]:
        return None
    return _refusal(_bound_errors(c, _BATCH_BOUND))
