#!/usr/bin/env python3
"""Print the facts postinit needs to compute vLLM 0.34.0's config hash, as JSON.

vLLM 0.34.0 hashes a config as ``hash_factors(VllmConfig.compile_factors())``:
SHA-256 of the sorted-key JSON of every sub-config's ``compile_factors()``. Most
of that is the resolved values postinit already has; this script reads, from the
wheel in the venv that runs it (introspection only, nothing of vLLM is copied):

* ``factors``: for every config class whose ``compile_factors()`` goes through
  ``get_compile_factors``, the dataclass fields it hashes (its fields minus the
  ``ignored_factors`` it passes, captured by calling it on a stand-in object);
* ``classes``: the fully qualified names of the nested dataclasses and enums
  whose names ``normalize_value`` writes into the hash;
* ``enums``: member name -> value of the (non-int, non-str) enums a factor holds;
* ``float_int_defaults``: fields typed ``float`` whose default is an int literal (JSON writes ``0`` for
  the default and ``0.0`` once pydantic has validated a value passed in);
* ``ir_op_impls``: ``IrOp.registry[op].impls[provider].uuid()`` (a hash of the
  implementation's source file) for every registered IR op implementation;
* ``config_classes``: the model types ``get_config`` builds with a config class of vLLM's own
  (``_CONFIG_REGISTRY``) or with special ``AutoConfig`` arguments (``_AUTO_CONFIG_KWARGS_OVERRIDES``):
  their HF config cannot be rebuilt with transformers alone;
* ``transformers``: the wheel's transformers requirement (``to_json_string`` of
  the HF config is a factor, so the hash is that of a vLLM running with the same
  transformers).

    cd tests/golden && $HOME/oracle-venv-0.34.0/bin/python oracle/hash_facts_0340.py \
        > ../../postinit/rules/data/hash-0.34.0.json
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import json
import os
import sys
from typing import Any

os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")

CLASSES = {
    "ModelConfig": "vllm.config.model",
    "CacheConfig": "vllm.config.cache",
    "ParallelConfig": "vllm.config.parallel",
    "SchedulerConfig": "vllm.config.scheduler",
    "OffloadConfig": "vllm.config.offload",
    "AttentionConfig": "vllm.config.attention",
    "AuxOutputConfig": "vllm.config.aux_output",
    "EngramConfig": "vllm.config.engram",
    "KernelConfig": "vllm.config.kernel",
    "IrOpPriorityConfig": "vllm.config.kernel",
    "LoRAConfig": "vllm.config.lora",
    "SpeculativeConfig": "vllm.config.speculative",
    "CompilationConfig": "vllm.config.compilation",
    "PassConfig": "vllm.config.compilation",
    "DynamicShapesConfig": "vllm.config.compilation",
    "MultiModalConfig": "vllm.config.multimodal",
}
NESTED = {
    "EPLBConfig": "vllm.config.parallel",
    "FaultToleranceConfig": "vllm.config.fault_tolerance",
    "UVAOffloadConfig": "vllm.config.offload",
    "PrefetchOffloadConfig": "vllm.config.offload",
    "HiSparseConfig": "vllm.config.attention",
    "CUDAGraphMode": "vllm.config.compilation",
}


class _Anything:
    """A stand-in ``self``: every attribute is None, so ``compile_factors`` reaches ``get_compile_factors``."""

    def __getattr__(self, name: str) -> Any:
        return None


def ignored_factors(cls: type, module: Any) -> list[str] | None:
    """The ``ignored_factors`` ``cls.compile_factors`` passes to ``get_compile_factors`` (None: it does not call it)."""
    seen: list[set[str]] = []
    original = module.get_compile_factors

    def capture(config: Any, ignored: set[str]) -> dict[str, Any]:
        seen.append(set(ignored))
        raise StopIteration

    module.get_compile_factors = capture
    try:
        cls.compile_factors(_Anything())
    except StopIteration:
        pass
    except Exception:  # noqa: BLE001 - returned before get_compile_factors ({} configs)
        pass
    finally:
        module.get_compile_factors = original
    return sorted(seen[0]) if seen else None


def int_default_floats(cls: type) -> list[str]:
    """Fields typed ``float`` (or ``float | None``) whose default is an int: the value is an int until pydantic
    validates one passed in (EngineArgs passes every field it has), then a float, and JSON tells them apart."""
    import typing

    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        args = set(typing.get_args(hints.get(f.name))) or {hints.get(f.name)}
        default = f.default
        if type(default).__name__ == "FieldInfo":
            default = default.default
        if float in args and int not in args and isinstance(default, int) and not isinstance(default, bool):
            out.append(f.name)
    return out


def main() -> int:
    import vllm
    from vllm.ir.op import IrOp
    from vllm.v1.attention.backends.mla.prefill.registry import MLAPrefillBackendEnum
    from vllm.v1.attention.backends.registry import AttentionBackendEnum

    factors: dict[str, list[str]] = {}
    for name, mod_name in CLASSES.items():
        module = importlib.import_module(mod_name)
        cls = getattr(module, name)
        ignored = ignored_factors(cls, module)
        if ignored is None:
            continue
        factors[name] = [f.name for f in dataclasses.fields(cls) if f.name not in ignored]
    float_ints = {}
    for name, mod_name in {**CLASSES, **NESTED}.items():
        cls = getattr(importlib.import_module(mod_name), name)
        if dataclasses.is_dataclass(cls):
            float_ints[name] = int_default_floats(cls)
    nested = {}
    for name, mod_name in NESTED.items():
        cls = getattr(importlib.import_module(mod_name), name)
        entry: dict[str, Any] = {"fqn": f"{cls.__module__}.{cls.__qualname__}"}
        if dataclasses.is_dataclass(cls):
            entry["fields"] = [f.name for f in dataclasses.fields(cls)]
        nested[name] = entry
    for enum_cls in (AttentionBackendEnum, MLAPrefillBackendEnum):
        nested[enum_cls.__name__] = {"fqn": f"{enum_cls.__module__}.{enum_cls.__qualname__}"}
    import vllm.kernels  # noqa: F401 - registers the built-in IR op implementations

    impls = {op: {provider: impl.uuid() for provider, impl in sorted(ir.impls.items())}
             for op, ir in sorted(IrOp.registry.items())}
    from vllm.transformers_utils import config as tu_config

    config_classes = sorted({*tu_config._CONFIG_REGISTRY, *tu_config._AUTO_CONFIG_KWARGS_OVERRIDES})
    requirement = next((r for r in importlib.metadata.requires("vllm") or []
                        if r.split(";")[0].replace(" ", "").startswith("transformers")), None)
    out = {
        "vllm_version": vllm.__version__,
        "transformers": ",".join(sorted(requirement.split(";")[0].replace(" ", "").removeprefix("transformers")
                                        .split(","), key=lambda c: not c.startswith(">"))) if requirement else None,
        "transformers_used": importlib.metadata.version("transformers"),
        "config_classes": config_classes,
        "factors": factors,
        "float_int_defaults": {k: v for k, v in sorted(float_ints.items()) if v},
        "classes": nested,
        "enums": {
            "AttentionBackendEnum": {m.name: m.value for m in AttentionBackendEnum},
            "MLAPrefillBackendEnum": {m.name: m.value for m in MLAPrefillBackendEnum},
        },
        "ir_op_impls": impls,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
