"""Compilation decisions of ``VllmConfig.__post_init__`` (phase ``core``, steps 7-11).

The Turing float32 warning, the default compilation mode, the custom-op
default, and the sequence-parallel switches. CUDA-graph decisions (step 12)
live in :mod:`postinit.rules.cudagraph`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule, sequence
from postinit.schema import CompilationMode

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"
_TURING = (
    "Turing devices tensor cores do not support float32 matmul. "
    "To workaround this limitation, vLLM will set 'ieee' input "
    "precision for chunked prefill triton kernels."
)
_RMS_BOTH = (
    "compilation_config.custom_ops contains both '-rms_norm' and '+rms_norm' "
    "(the user disabled rms_norm, sequence parallelism re-enabled it); vLLM keeps both and "
    "CustomOp raises an AssertionError when the rms_norm op is instantiated."
)


@rule(
    "compilation.turing-fp32-warning",
    title="Turing GPUs run float32 chunked prefill with 'ieee' precision",
    phase="core",
    kind="check",
    reads=(
        "model_config",
        "scheduler_config.chunked_prefill_enabled",
        "model_config.dtype",
        "platform.capability",
    ),
    source=f"{_SRC}; ref step-7, 13.1:O19",
    message=_TURING,
    level="warning",
)
def turing_fp32_warning(c: Mapping[str, Any]) -> RuleResult:
    """Turing (SM 7.5) tensor cores have no float32 matmul, so the triton kernels fall back to 'ieee'.

    vLLM reads ``chunked_prefill_enabled`` here, before the step-15 off-switch
    may clear it: the warning can name a model that ends up without chunked
    prefill (O19).
    """
    if (
        c["model_config"] is not None
        and c["scheduler_config.chunked_prefill_enabled"]
        and c["model_config.dtype"] == "float32"
        and c["platform.capability"] == 75
    ):
        return Outcome.log()
    return None


@rule(
    "compilation.default-mode",
    title="Default compilation mode",
    phase="core",
    kind="default",
    reads=("compilation_config.mode", "env.VLLM_USE_V1", "model_config", "model_config.enforce_eager"),
    writes=("compilation_config.mode",),
    source=f"{_SRC}; ref step-8, 13.1:O8",
)
def default_mode(c: Mapping[str, Any]) -> RuleResult:
    """An unset mode becomes VLLM_COMPILE under V1 for a model that is not eager, NONE otherwise.

    In V0, passing both --enforce-eager and a compilation mode means the mode wins.
    """
    if c["compilation_config.mode"] is not None:
        return None
    compile_it = c["env.VLLM_USE_V1"] and c["model_config"] is not None and not c["model_config.enforce_eager"]
    mode = CompilationMode.VLLM_COMPILE if compile_it else CompilationMode.NONE
    return {"compilation_config.mode": mode}


@rule(
    "compilation.mode-range",
    title="Compilation mode must be 0..3",
    phase="core",
    kind="check",
    reads=("compilation_config.mode",),
    source=f"{_SRC}; ref step-8'",
    message="",
    level="error",
)
def mode_range(c: Mapping[str, Any]) -> RuleResult:
    """A user-set mode must lie between NONE (0) and VLLM_COMPILE (3); vLLM asserts it bare.

    The default written by ``compilation.default-mode`` is always in range.
    """
    mode = c["compilation_config.mode"]
    if mode is not None and not CompilationMode.NONE <= int(mode) <= CompilationMode.VLLM_COMPILE:
        return Violation(
            "",
            hint=f"compilation_config.mode={int(mode)}; allowed: 0 (NONE) .. 3 (VLLM_COMPILE)",
            error="AssertionError",
        )
    return None


@rule(
    "compilation.default-custom-ops",
    title="Default custom-op switch ('none' under Inductor compilation, else 'all')",
    phase="core",
    kind="default",
    reads=("compilation_config.custom_ops", "compilation_config.backend", "compilation_config.mode"),
    writes=("compilation_config.custom_ops",),
    source=f"{_SRC}; ref step-9, 13.1:O8, 3.3",
)
def default_custom_ops(c: Mapping[str, Any]) -> RuleResult:
    """Inductor generates fused kernels itself, so custom ops default off when it compiles; otherwise on.

    Decided for the mode as it stands now, before any platform hook changes
    it (O8, O9); appended after the user's entries.
    """
    ops = tuple(c["compilation_config.custom_ops"])
    if "all" in ops or "none" in ops:
        return None
    mode = c["compilation_config.mode"]
    inductor = c["compilation_config.backend"] == "inductor" and mode is not None and mode > CompilationMode.NONE
    return {"compilation_config.custom_ops": (*ops, "none" if inductor else "all")}


@rule(
    "compilation.async-tp-implies-sp",
    title="Async tensor parallelism enables sequence parallelism",
    phase="core",
    kind="override",
    reads=("compilation_config.pass_config.enable_async_tp",),
    writes=("compilation_config.pass_config.enable_sequence_parallelism",),
    source=f"{_SRC}; ref step-10, 13.1:O10",
)
def async_tp_implies_sp(c: Mapping[str, Any]) -> RuleResult:
    """Async TP is built on top of sequence parallelism and requires it to be enabled.

    Through SP it also adds '+rms_norm' (step 11) and filters capture sizes by
    the TP size (step 12d) — O10.
    """
    if c["compilation_config.pass_config.enable_async_tp"]:
        return {"compilation_config.pass_config.enable_sequence_parallelism": True}
    return None


@rule(
    "compilation.sp-needs-rms-norm",
    title="Sequence parallelism enables the rms_norm custom op",
    phase="core",
    kind="derive",
    reads=("compilation_config.pass_config.enable_sequence_parallelism", "compilation_config.custom_ops"),
    writes=("compilation_config.custom_ops",),
    source=f"{_SRC}; ref step-11, 13.1:O10, 13.2:I12",
)
def sp_needs_rms_norm(c: Mapping[str, Any]) -> RuleResult:
    """The sequence-parallel pass matches the rms_norm custom op, so '+rms_norm' is appended.

    Appended unconditionally: no check for an existing '+rms_norm' (duplicates)
    or '-rms_norm' (I12).
    """
    if c["compilation_config.pass_config.enable_sequence_parallelism"]:
        return {"compilation_config.custom_ops": (*c["compilation_config.custom_ops"], "+rms_norm")}
    return None


STEPS_8_TO_11 = sequence(
    "compilation.steps-8-to-11", default_mode, mode_range, default_custom_ops, async_tp_implies_sp, sp_needs_rms_norm,
    title="Steps 8-11: the compilation mode, the default custom ops, async TP and sequence parallelism's rms_norm",
    source=_SRC,
)


@rule(
    "quirk.rms-norm-both-signs",
    title="custom_ops both disables and enables rms_norm",
    phase="core",
    kind="check",
    reads=("compilation_config.custom_ops",),
    source=f"{_SRC}; ref 13.2:I12, 3.3",
    message=_RMS_BOTH,
    level="warning",
)
def rms_norm_both_signs(c: Mapping[str, Any]) -> RuleResult:
    """CustomOp asserts that an op is not both enabled and disabled; step 11 never checks for '-rms_norm'."""
    ops = c["compilation_config.custom_ops"]
    return Outcome.log() if "-rms_norm" in ops and "+rms_norm" in ops else None
