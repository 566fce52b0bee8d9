"""vLLM 0.34.0's ``QuantizationConfigArgs`` (``--quantization-config``): its quantization keys, online shorthands and
validators, as facts of the wheel (``vllm/config/quantization.py``, printed from it in the oracle's venv).

vLLM's parser builds the class from the flag's JSON (``TypeAdapter(QuantizationConfigArgs).validate_json``), so a
value its validators refuse is an ``argparse.ArgumentError`` (:func:`parse_refusal`); postinit keeps the decoded
JSON, which ``postinit.rules.v0_34_0_quant`` resolves. A resolved config is a dict the way the oracle prints one:
``linear``/``moe`` specs (``weight``/``activation`` keys spelled out, ``hadamard_size``, ``fields_set``), ``ignore``,
``targets``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

__all__ = ["DEFERRED", "ONLINE_SHORTHAND_NAMES", "QUANT_KEYS", "SHORTHANDS", "WEIGHT_KEYS", "QuantRefusal", "Spec",
           "config_args", "config_factor", "from_json", "hashed_exactly", "merge_spec", "parse_refusal", "spec_repr",
           "spec_text"]

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


class QuantRefusal(Exception):
    """A value QuantizationConfigArgs refuses: vLLM's text, the field pydantic names (``loc``) and its input; a
    ``TypeError`` (``type_error``) escapes pydantic, and argparse reports the flag's text as an invalid value."""

    def __init__(self, message: str, loc: tuple[str, ...] = (), value: Any = None, *, type_error: bool = False):
        super().__init__(message)
        self.message, self.loc, self.value, self.type_error = message, loc, value, type_error


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


def _scale_repr(scale: Mapping[str, Any]) -> str:
    row, col = scale["group_shape"]
    return (f"ScaleDesc(dtype=torch.{scale['dtype']}, static={scale['static']}, "
            f"group_shape=GroupShape(row={row}, col={col}))")


def _key_repr(key: Mapping[str, Any] | None) -> str:
    """``repr(QuantKey)`` (a dataclass; its dtype a torch dtype); a key whose dtype is a ScalarType (int4) is shown
    as postinit holds it."""
    if key is None:
        return "None"
    if not isinstance(key["dtype"], str):
        return str(key)
    scale2 = "None" if key["scale2"] is None else _scale_repr(key["scale2"])
    return (f"QuantKey(dtype=torch.{key['dtype']}, scale={_scale_repr(key['scale'])}, scale2={scale2}, "
            f"symmetric={key['symmetric']})")


class _Repr(str):
    """A text shown as itself inside a container's ``str`` (a dict's values are shown by ``repr``)."""

    def __repr__(self) -> str:
        return str(self)


def spec_repr(spec: Spec) -> str:
    """``repr(QuantSpec)`` (a pydantic model): how a dict's ``str`` shows a spec, e.g. the targets of a refusal."""
    return (f"QuantSpec(weight={_key_repr(spec['weight'])}, activation={_key_repr(spec['activation'])}, "
            f"hadamard_size={spec['hadamard_size']})")


def _quant_key(value: Any, loc: tuple[str, ...]) -> dict[str, Any] | None:
    """``_coerce_quant_key``: a key name."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise QuantRefusal(f"expected str or QuantKey, got {type(value).__name__}", loc, value, type_error=True)
    if value not in QUANT_KEYS:
        raise QuantRefusal(f"unknown quantization name {value!r}; expected one of {sorted(QUANT_KEYS)}", loc, value)
    return QUANT_KEYS[value]


def _spec_from_dict(value: Mapping[str, Any], loc: tuple[str, ...]) -> Spec:
    """``QuantSpec(**value)``: ambiguous weight names are the static keys; a given field (even null) is set."""
    weight = value.get("weight")
    weight_key = WEIGHT_KEYS[weight] if isinstance(weight, str) and weight in WEIGHT_KEYS \
        else _quant_key(weight, (*loc, "weight"))
    activation_key = _quant_key(value.get("activation"), (*loc, "activation"))
    size: int | None = value.get("hadamard_size")
    if size is not None and (size <= 0 or size & (size - 1)):
        raise QuantRefusal(f"hadamard_size must be a power of two, got {size}", (*loc, "hadamard_size"), size)
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
                raise QuantRefusal(f"online shorthand {value!r} does not define a {field} spec", (field,), value)
            return spec
        return {"weight": _quant_key(value, (field,)), "activation": None, "hadamard_size": None,
                "fields_set": ["weight"]}
    return _spec_from_dict(value, (field,))


def _targets(value: Any) -> dict[str, Any] | None:
    """``QuantizationConfigArgs._validate_targets``: shorthand names or specs, ``re:`` keys valid regexes."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise QuantRefusal(f"targets must be a dict, got {type(value).__name__}", ("targets",), value, type_error=True)
    out: dict[str, Any] = {}
    for pattern, target in value.items():
        if isinstance(target, str):
            if target not in SHORTHANDS:
                raise QuantRefusal(f"targets[{pattern}] = {target} is not a valid online shorthand name; expected one "
                                   f"of {sorted(SHORTHANDS)}", ("targets",), value)
        elif isinstance(target, dict):
            target = _spec_from_dict(target, ("targets",))
        else:
            raise QuantRefusal(f"targets[{pattern}] must be an online shorthand name or a quantization spec, got "
                               f"{type(target).__name__}", ("targets",), value)
        if pattern.startswith("re:"):
            try:
                re.compile(pattern[3:])
            except re.error as e:
                raise QuantRefusal(f"targets key {pattern} is not a valid regex: {e}", ("targets",), value) from e
        out[pattern] = target
    return out


def config_args(linear: Spec | None, moe: Spec | None, ignore: list[str], targets: dict[str, Any] | None) -> dict[str, Any]:
    """A QuantizationConfigArgs (its model validator: ``targets`` excludes ``linear``/``moe``)."""
    if targets is not None and (linear is not None or moe is not None):
        shown = {p: t if isinstance(t, str) else _Repr(spec_repr(t)) for p, t in targets.items()}
        raise QuantRefusal(f"quantization_config.targets is mutually exclusive with quantization_config.linear/moe, got "
                       f"targets={shown}, linear={None if linear is None else spec_text(linear)}, "
                       f"moe={None if moe is None else spec_text(moe)}.")
    return {"linear": linear, "moe": moe, "ignore": ignore, "targets": targets}


def from_json(value: Mapping[str, Any]) -> dict[str, Any]:
    return config_args(_field_spec("linear", value.get("linear")), _field_spec("moe", value.get("moe")),
                 list(value.get("ignore") or []), _targets(value.get("targets")))


def merge_spec(base: Spec | None, override: Spec | None) -> Spec | None:
    """``merge_quantization_config.merge_spec``: the override's set fields over the base's."""
    if base is None or override is None:
        return override or base
    if base["hadamard_size"] is not None and "weight" in override["fields_set"] \
            and override["weight"] != base["weight"]:
        raise QuantRefusal(f"quantization_config cannot change the weight of a Hadamard-rotated shorthand "
                       f"({spec_text(base)} -> {spec_text(override)}); use --quantization online and set "
                       "`hadamard_size` on the spec instead.")
    merged = {f: base[f] for f in base["fields_set"]} | {f: override[f] for f in override["fields_set"]}
    size = merged.get("hadamard_size")
    fields = [f for f in ("weight", "activation") if f in merged]
    return {"weight": merged.get("weight"), "activation": merged.get("activation"), "hadamard_size": size,
            "fields_set": sorted([*fields, *(("hadamard_size",) if size is not None else ())])}


def parse_refusal(raw: str, value: Mapping[str, Any]) -> str | None:
    """What vLLM's parser says of ``--quantization-config`` text it refuses (after ``argument <flag>: ``): pydantic's
    text for the validator that raised (the field it names, that field's input; the whole value for the model
    validator), or argparse's for a ``TypeError``; None when the config is valid."""
    try:
        from_json(value)
    except QuantRefusal as e:
        if e.type_error:
            return f"invalid _optional_type value: {raw!r}"
        shown = e.value if e.loc else dict(value)
        error = ValueError(e.message)
        return str(ValidationError.from_exception_data("QuantizationConfigArgs", [
            {"type": "value_error", "loc": e.loc, "input": shown, "ctx": {"error": error}}]))
    return None


_QUANT_UTILS = "vllm.model_executor.layers.quantization.utils.quant_utils"


def _scale_factor(scale: Mapping[str, Any]) -> list[Any]:
    return [f"{_QUANT_UTILS}.ScaleDesc", [["dtype", f"torch.{scale['dtype']}"],
                                          ["group_shape", list(scale["group_shape"])], ["static", scale["static"]]]]


def _key_factor(key: Mapping[str, Any] | None) -> list[Any] | None:
    if key is None:
        return None
    scale2 = key["scale2"]
    return [f"{_QUANT_UTILS}.QuantKey", [["dtype", f"torch.{key['dtype']}"], ["scale", _scale_factor(key["scale"])],
                                         ["scale2", None if scale2 is None else _scale_factor(scale2)],
                                         ["symmetric", key["symmetric"]]]]


def _spec_factor(spec: Mapping[str, Any] | None) -> list[Any] | None:
    if spec is None:
        return None
    return ["vllm.config.quantization.QuantSpec", [
        ["activation", _key_factor(spec["activation"])], ["fields_set", sorted(repr(f) for f in spec["fields_set"])],
        ["hadamard_size", spec["hadamard_size"]], ["weight", _key_factor(spec["weight"])]]]


def config_factor(args: Mapping[str, Any] | None) -> list[Any] | None:
    """``normalize_value`` of a resolved QuantizationConfigArgs (a ModelConfig compile factor), as JSON writes it:
    each dataclass its qualified name and its fields sorted by name, dtypes ``torch.<name>``, ``fields_set`` the
    sorted ``repr`` of its names, ``targets`` sorted pairs."""
    if args is None:
        return None
    targets = args["targets"]
    return ["vllm.config.quantization.QuantizationConfigArgs", [
        ["ignore", list(args["ignore"])], ["linear", _spec_factor(args["linear"])], ["moe", _spec_factor(args["moe"])],
        ["targets", None if targets is None else [[str(k), v if isinstance(v, str) else _spec_factor(v)]
                                                  for k, v in sorted(targets.items())]]]]


def hashed_exactly(args: Mapping[str, Any] | None) -> bool:
    """Whether :func:`config_factor` is vLLM's factor: every key's dtype a torch dtype (not ``int4_per_group_32``'s
    scalar type)."""
    if args is None:
        return True
    specs = [args["linear"], args["moe"], *(t for t in (args["targets"] or {}).values() if not isinstance(t, str))]
    keys = [s[k] for s in specs if s is not None for k in ("weight", "activation") if s[k] is not None]
    return all(isinstance(k["dtype"], str) for k in keys)
