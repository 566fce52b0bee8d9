"""vLLM 0.34.0's online quantization configs, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

``--quantization`` names a checkpoint method or an *online* shorthand (``fp8_per_tensor``, ``mxfp4_hadamard32``,
``online``, ...) that quantizes an unquantized checkpoint at load time; ``--quantization-config`` gives the specs
(``linear``, ``moe``, per-layer ``targets``, ``ignore``). ``EngineArgs.__post_init__`` resolves the two into one
``QuantizationConfigArgs`` (``model_config.quantization_config``), which the oracle prints with every quantization
key spelled out (dtype, scale, group shape). The keys, shorthands and key names below are the facts of the wheel
(``vllm/config/quantization.py``), printed from it in the oracle's venv.

Partial model: the JSON's own refusals (an unknown key name, an online shorthand without a spec for the field, a
bad ``targets`` entry, a Hadamard size that is not a power of two, ``targets`` with ``linear``/``moe``) are
pydantic's at the parse stage in vLLM; here they refuse at the engine-args stage with vLLM's text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules.versions import Delta

__all__ = ["DELTA", "ONLINE_SHORTHAND_NAMES", "QUANT_KEYS", "SHORTHANDS", "resolve_online_config"]

_F8, _F32, _U8 = "float8_e4m3fn", "float32", "uint8"


def _key(dtype: Any, scale: str, static: bool, group: tuple[int, int],
         scale2: dict[str, Any] | None = None) -> dict[str, Any]:
    """A QuantKey as the oracle prints it (dtype, ScaleDesc, second scale, symmetric)."""
    return {"dtype": dtype, "scale": {"dtype": scale, "static": static, "group_shape": list(group)},
            "scale2": scale2, "symmetric": True}


QUANT_KEYS: dict[str, dict[str, Any]] = {
    "fp8_per_tensor_static": _key(_F8, _F32, True, (-1, -1)),
    "fp8_per_tensor_dynamic": _key(_F8, _F32, False, (-1, -1)),
    "fp8_per_token": _key(_F8, _F32, False, (1, -1)),
    "fp8_per_channel_static": _key(_F8, _F32, True, (-1, 1)),
    "fp8_per_block_static": _key(_F8, _F32, True, (128, 128)),
    "fp8_per_block_dynamic": _key(_F8, _F32, False, (1, 128)),
    "mxfp8": _key(_F8, _U8, False, (1, 32)),
    "mxfp4": _key(_U8, _U8, False, (1, 32)),
    "nvfp4_per_token": _key(_U8, _F8, False, (1, 16), {"dtype": _F32, "static": False, "group_shape": [1, -1]}),
    "int8_per_channel_static": _key("int8", _F32, True, (-1, 1)),
    "lut_b": _key(_U8, _F8, True, (8, 64)),
    "int8_per_group_32": _key("int8", _F32, False, (1, 32)),
    "int4_per_group_32": _key({"exponent": 0, "mantissa": 4, "signed": False, "bias": 8, "_finite_values_only": False,
                               "nan_repr": "IEEE_754"}, "float16", True, (1, 32)),
}
"""``QUANT_KEY_NAMES`` (vllm/config/quantization.py:42-61): the names a spec may use, and their keys."""
WEIGHT_KEYS: dict[str, dict[str, Any]] = {
    "mxfp8": _key(_F8, _U8, True, (1, 32)),
    "mxfp4": _key(_U8, _U8, True, (1, 32)),
}
"""``_WEIGHT_QUANT_KEY_NAMES`` (quantization.py:65-68): an ambiguous name is the static key for a weight."""
_NVFP4_STATIC = _key(_U8, _F8, True, (1, 16), {"dtype": _F32, "static": True, "group_shape": [-1, -1]})
_UNNAMED = {json.dumps(_NVFP4_STATIC, sort_keys=True):
            "QuantKey(u8,scale(f8e4m3fn,static,GroupShape(row=1, col=16)),scale2(f32,static,per_tensor),symmetric)"}
"""``str(QuantKey)`` of the keys a shorthand uses that have no name (``kNvfp4Static``)."""

Spec = dict[str, Any]


def _spec(weight: dict[str, Any] | None, hadamard: int | None = None) -> Spec:
    fields = ["weight", *(("hadamard_size",) if hadamard is not None else ())]
    return {"weight": weight, "activation": None, "hadamard_size": hadamard, "fields_set": sorted(fields)}


SHORTHANDS: dict[str, tuple[Spec | None, Spec | None]] = {
    "fp8_per_tensor": (_spec(QUANT_KEYS["fp8_per_tensor_static"]), _spec(QUANT_KEYS["fp8_per_tensor_static"])),
    "fp8_per_block": (_spec(QUANT_KEYS["fp8_per_block_static"]), _spec(QUANT_KEYS["fp8_per_block_static"])),
    "fp8_per_channel": (_spec(QUANT_KEYS["fp8_per_channel_static"]), _spec(QUANT_KEYS["fp8_per_channel_static"])),
    "mxfp8": (_spec(WEIGHT_KEYS["mxfp8"]), _spec(WEIGHT_KEYS["mxfp8"])),
    "mxfp4": (_spec(WEIGHT_KEYS["mxfp4"]), _spec(WEIGHT_KEYS["mxfp4"])),
    "mxfp4_hadamard32": (_spec(WEIGHT_KEYS["mxfp4"], 32), None),
    "int8_per_channel_weight_only": (None, _spec(QUANT_KEYS["int8_per_channel_static"])),
    "nvfp4_per_token": (None, _spec(_NVFP4_STATIC)),
    "lut_b_moe": (None, _spec(QUANT_KEYS["lut_b"])),
}
"""``_ONLINE_SHORTHANDS`` (quantization.py:276-317): shorthand -> its (linear, moe) specs."""
ONLINE_SHORTHAND_NAMES = (*SHORTHANDS, "online")
"""``ONLINE_QUANT_SHORTHAND_NAMES``: the ``--quantization`` values that mean online quantization."""
DEFERRED = ("mxfp4", "mxfp8")
"""``_DEFERRED_ONLINE_SHORTHANDS``: also checkpoint formats, resolved once the checkpoint is known unquantized."""


class _Refused(Exception):
    """A value QuantizationConfigArgs refuses (vLLM's text)."""


def _name(key: dict[str, Any] | None) -> str | None:
    """``quant_key_name``: the first name whose key this is (activation names first), else the key's ``str``."""
    if key is None:
        return None
    for name, known in (*QUANT_KEYS.items(), *WEIGHT_KEYS.items()):
        if known == key:
            return name
    return _UNNAMED.get(json.dumps(key, sort_keys=True), str(key))


def spec_text(spec: Spec) -> str:
    """``str(QuantSpec)``: the weight's name, or weight and activation as JSON, plus ``_hadamard<n>``."""
    if "activation" not in spec["fields_set"]:
        text = str(_name(spec["weight"]))
    else:
        text = json.dumps({"weight": _name(spec["weight"]), "activation": _name(spec["activation"])},
                          separators=(",", ":"))
    return f"{text}_hadamard{spec['hadamard_size']}" if spec["hadamard_size"] is not None else text


def _quant_key(value: Any) -> dict[str, Any] | None:
    """``_coerce_quant_key``: a key name."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Refused(f"expected str or QuantKey, got {type(value).__name__}")
    if value not in QUANT_KEYS:
        raise _Refused(f"unknown quantization name {value!r}; expected one of {sorted(QUANT_KEYS)}")
    return QUANT_KEYS[value]


def _spec_from_dict(value: Mapping[str, Any]) -> Spec:
    """``QuantSpec(**value)``: ambiguous weight names are the static keys; a given field (even null) is set."""
    weight = value.get("weight")
    weight_key = WEIGHT_KEYS[weight] if isinstance(weight, str) and weight in WEIGHT_KEYS else _quant_key(weight)
    activation_key = _quant_key(value.get("activation"))
    size: int | None = value.get("hadamard_size")
    if size is not None and (size <= 0 or size & (size - 1)):
        raise _Refused(f"hadamard_size must be a power of two, got {size}")
    fields = [f for f in ("weight", "activation") if f in value]
    return {"weight": weight_key, "activation": activation_key, "hadamard_size": size,
            "fields_set": sorted([*fields, *(("hadamard_size",) if size is not None else ())])}


def _field_spec(field: str, value: Any) -> Spec | None:
    """``QuantizationConfigArgs._coerce_spec`` then QuantSpec: a shorthand's spec, a key name, or a spec dict."""
    if value is None:
        return None
    if isinstance(value, str):
        if value in SHORTHANDS:
            spec = SHORTHANDS[value][0 if field == "linear" else 1]
            if spec is None:
                raise _Refused(f"online shorthand {value!r} does not define a {field} spec")
            return spec
        return {"weight": _quant_key(value), "activation": None, "hadamard_size": None, "fields_set": ["weight"]}
    return _spec_from_dict(value)


def _targets(value: Any) -> dict[str, Any] | None:
    """``QuantizationConfigArgs._validate_targets``: shorthand names or specs, ``re:`` keys valid regexes."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Refused(f"targets must be a dict, got {type(value).__name__}")
    out: dict[str, Any] = {}
    for pattern, target in value.items():
        if isinstance(target, str):
            if target not in SHORTHANDS:
                raise _Refused(f"targets[{pattern}] = {target} is not a valid online shorthand name; expected one of "
                               f"{sorted(SHORTHANDS)}")
        elif isinstance(target, dict):
            target = _spec_from_dict(target)
        else:
            raise _Refused(f"targets[{pattern}] must be an online shorthand name or a quantization spec, got "
                           f"{type(target).__name__}")
        if pattern.startswith("re:"):
            try:
                re.compile(pattern[3:])
            except re.error as e:
                raise _Refused(f"targets key {pattern} is not a valid regex: {e}") from e
        out[pattern] = target
    return out


def _args(linear: Spec | None, moe: Spec | None, ignore: list[str], targets: dict[str, Any] | None) -> dict[str, Any]:
    """A QuantizationConfigArgs (its model validator: ``targets`` excludes ``linear``/``moe``)."""
    if targets is not None and (linear is not None or moe is not None):
        shown = {p: t if isinstance(t, str) else spec_text(t) for p, t in targets.items()}
        raise _Refused(f"quantization_config.targets is mutually exclusive with quantization_config.linear/moe, got "
                       f"targets={shown}, linear={None if linear is None else spec_text(linear)}, "
                       f"moe={None if moe is None else spec_text(moe)}.")
    return {"linear": linear, "moe": moe, "ignore": ignore, "targets": targets}


def _from_json(value: Mapping[str, Any]) -> dict[str, Any]:
    return _args(_field_spec("linear", value.get("linear")), _field_spec("moe", value.get("moe")),
                 list(value.get("ignore") or []), _targets(value.get("targets")))


def _merge_spec(base: Spec | None, override: Spec | None) -> Spec | None:
    """``merge_quantization_config.merge_spec``: the override's set fields over the base's."""
    if base is None or override is None:
        return override or base
    if base["hadamard_size"] is not None and "weight" in override["fields_set"] \
            and override["weight"] != base["weight"]:
        raise _Refused(f"quantization_config cannot change the weight of a Hadamard-rotated shorthand "
                       f"({spec_text(base)} -> {spec_text(override)}); use --quantization online and set "
                       "`hadamard_size` on the spec instead.")
    merged = {f: base[f] for f in base["fields_set"]} | {f: override[f] for f in override["fields_set"]}
    size = merged.get("hadamard_size")
    fields = [f for f in ("weight", "activation") if f in merged]
    return {"weight": merged.get("weight"), "activation": merged.get("activation"), "hadamard_size": size,
            "fields_set": sorted([*fields, *(("hadamard_size",) if size is not None else ())])}


def resolve_online_config(quantization: str | None, given: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``resolve_quantization_config``: the shorthand's config, the given one, or the given one merged over the
    shorthand's (its set fields win; ``ignore``/``targets`` when non-empty). Raises :class:`_Refused`."""
    if quantization is not None and quantization not in ONLINE_SHORTHAND_NAMES:
        return None if given is None else _from_json(given)  # composed with the checkpoint's method
    base = SHORTHANDS.get(quantization or "")
    base_args = None if base is None else _args(base[0], base[1], [], None)
    if given is None:
        return None if quantization in DEFERRED else base_args
    args = _from_json(given)
    if base_args is None or quantization in DEFERRED:
        return args
    return _args(_merge_spec(base_args["linear"], args["linear"]), _merge_spec(base_args["moe"], args["moe"]),
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
    resolves it before create_engine_config builds ModelConfig. Partial model: see the module."""
    if not c["usage.via_engine_args"]:
        return None
    given = c[_M + "quantization_config"]
    try:
        resolved = resolve_online_config(c[_M + "quantization"], given)
    except _Refused as e:
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
