"""vLLM 0.34.0's online quantization configs, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

``--quantization`` names a checkpoint method or an *online* shorthand (``fp8_per_tensor``, ``mxfp4_hadamard32``,
``online``, ...) that quantizes an unquantized checkpoint at load time; ``--quantization-config`` gives the specs
(``linear``, ``moe``, per-layer ``targets``, ``ignore``). ``EngineArgs.__post_init__`` resolves the two into one
``QuantizationConfigArgs`` (``model_config.quantization_config``), which the oracle prints with every quantization
key spelled out (dtype, scale, group shape). The keys, shorthands and the class's validators are
:mod:`postinit.schema.online_quant` (facts of the wheel): the JSON's own refusals are the parser's, at the door.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules.versions import Delta
from postinit.schema.online_quant import (
    DEFERRED,
    ONLINE_SHORTHAND_NAMES,
    SHORTHANDS,
    QuantRefusal,
    config_args,
    from_json,
    merge_spec,
)

__all__ = ["DELTA", "resolve_online_config"]


def resolve_online_config(quantization: str | None, given: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``resolve_quantization_config``: the shorthand's config, the given one, or the given one merged over the
    shorthand's (its set fields win; ``ignore``/``targets`` when non-empty). Raises :class:`QuantRefusal`."""
    if quantization is not None and quantization not in ONLINE_SHORTHAND_NAMES:
        return None if given is None else from_json(given)  # composed with the checkpoint's method
    base = SHORTHANDS.get(quantization or "")
    base_args = None if base is None else config_args(base[0], base[1], [], None)
    if given is None:
        return None if quantization in DEFERRED else base_args
    args = from_json(given)
    if base_args is None or quantization in DEFERRED:
        return args
    return config_args(merge_spec(base_args["linear"], args["linear"]), merge_spec(base_args["moe"], args["moe"]),
                 args["ignore"] or base_args["ignore"], args["targets"] or base_args["targets"])


_M = "model_config."


@rule(
    "engine-args.quantization-config",
    title="--quantization and --quantization-config resolve to one online quantization config",
    phase="model_config",
    kind="derive",
    reads=("usage.via_engine_args", _M + "quantization", _M + "quantization_config"),
    writes=(_M + "quantization_config",),
    feedback=("model.quantization",),  # EngineArgs reads --quantization as given, before ModelConfig checks it
    source="vllm/engine/arg_utils.py EngineArgs.__post_init__ (929-933), resolve_quantization_config, "
    "merge_quantization_config (vllm/config/quantization.py:322-400); ref v0.34.0",
)
def quantization_config(c: Mapping[str, Any]) -> RuleResult:
    """A shorthand alone is its config; a given config is merged over the shorthand's (a deferred shorthand,
    ``mxfp4``/``mxfp8``, keeps the given one: the checkpoint decides later). Phase ``model_config``: EngineArgs
    resolves it before create_engine_config builds ModelConfig. Merging can refuse (a Hadamard-rotated shorthand's
    weight changed; ``targets`` with a shorthand's ``linear``/``moe``); the given JSON's own refusals are the
    parser's (postinit.schema.online_quant.parse_refusal), so a given config is valid here."""
    if not c["usage.via_engine_args"]:
        return None
    given = c[_M + "quantization_config"]
    try:
        resolved = resolve_online_config(c[_M + "quantization"], given)
    except QuantRefusal as e:
        return Violation(str(e))
    return None if resolved == given else {_M + "quantization_config": resolved}


_SC = "speculative_config."


@rule(
    "speculative.draft-lm-head-dtype",
    title="EAGLE with a quantized draft lm-head reads the draft's head dtype",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SC + "method", _SC + "draft_lm_head_quantization", _M + "dtype"),
    after=("speculative.sampling-options",),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (1403: the speculator's apply_options, "
    "check_draft_lm_head_quantization in vllm/v1/worker/gpu/spec_decode/eagle/config.py:21-31; ModelConfig.head_dtype "
    "logs it, vllm/config/model.py:2169); ref v0.34.0",
    message="head dtype: {dtype}",
    level="debug",
)
def draft_lm_head_dtype(c: Mapping[str, Any]) -> RuleResult:
    """The quantized lm-head must run in the model dtype; the draft's head dtype is its model dtype (the target's:
    a generative draft without a ``head_dtype`` override), so the check passes and only the property's record
    shows. Partial model: a draft ``head_dtype`` override and DSpark's drafter check are not modelled."""
    if c["speculative_config"] is None or c[_SC + "method"] not in ("eagle", "eagle3") \
            or c[_SC + "draft_lm_head_quantization"] is None:
        return None
    return Outcome.log(dtype=f"torch.{c[_M + 'dtype']}")


DELTA = Delta(add=(quantization_config, draft_lm_head_dtype))
"""The online quantization part of vLLM 0.34.0's delta over 0.11.1."""
