"""CompilationConfig: its own ``__post_init__`` (phase ``sub_configs``), steps 7-11 of
``VllmConfig.__post_init__`` (the Turing warning, the default mode and custom ops, sequence
parallelism, phase ``core``), step 18 (splitting ops, §5.5), the deprecated-flag migration of
step 19 and steps 23-24 (the debug dump path, blocked FP8 weights) in phase ``finalize``.
CUDA-graph decisions live in :mod:`postinit.rules.cudagraph`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from postinit.engine import (
    FrozenDict,
    Outcome,
    RuleResult,
    Violation,
    rule,
    sequence,
)
from postinit.schema import CompilationMode, CUDAGraphMode

_CMP = "vllm/config/compilation.py CompilationConfig.__post_init__"

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

# =========================================================================== CompilationConfig

_MODE = "compilation_config.mode"
_CGM = "compilation_config.cudagraph_mode"
_BACKEND = "compilation_config.backend"
_ICC = "compilation_config.inductor_compile_config"
_OPS = "compilation_config.custom_ops"


@rule(
    "compilation.level-to-mode",
    title="The deprecated level fills mode",
    phase="sub_configs",
    kind="default",
    reads=("compilation_config.level", _MODE),
    writes=(_MODE,),
    source=f"{_CMP}; ref 3.1",
    message=("Level is deprecated and will be removed in the next release,either 0.12.0 or 0.11.2 whichever "
             "is soonest.Use mode instead.If both level and mode are given,only mode will be used."),
    level="warning",
)
def level_to_mode(c: Mapping[str, Any]) -> RuleResult:
    """level is the old name of mode; a given mode wins."""
    level = c["compilation_config.level"]
    if level is None:
        return None
    return Outcome.log({_MODE: CompilationMode(level)} if c[_MODE] is None else None)


level_to_mode_msg = ("Level is deprecated and will be removed in the next release,either 0.12.0 or 0.11.2 "
                     "whichever is soonest.Use mode instead.If both level and mode are given,only mode will be used.")


@rule(
    "compilation.custom-ops-all-none-count",
    title="custom_ops holds at most one of 'all' / 'none'",
    phase="sub_configs",
    kind="check",
    reads=(_OPS,),
    source=f"{_CMP}; ref 3.1",
    message="Can only specify 'none' or 'all'",
)
def custom_ops_all_none_count(c: Mapping[str, Any], *, error: str = "AssertionError",
                              text: str = "Can only specify 'none' or 'all'") -> RuleResult:
    """'all' and 'none' are the global default switch; two of them contradict each other.

    ``error`` / ``text``: the exception vLLM raises and its message (0.34.0: a ValueError with its own words).
    """
    ops = list(c[_OPS])
    if ops.count("none") + ops.count("all") > 1:
        return Violation(text, error=error)
    return None


@rule(
    "compilation.inductor-auto-functionalized-v2",
    title="Inductor: enable_auto_functionalized_v2 defaults to False",
    phase="sub_configs",
    kind="default",
    reads=(_ICC,),
    writes=(_ICC,),
    source=f"{_CMP}; ref 3.1",
    level="debug",
)
def inductor_auto_functionalized_v2(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's custom fusion passes rely on auto-functionalization V1 (and torch < 2.7 had a V2 bug)."""
    icc = c[_ICC]
    if "enable_auto_functionalized_v2" in icc:
        return None
    return {_ICC: FrozenDict({**icc, "enable_auto_functionalized_v2": False})}


@rule(
    "compilation.inductor-combo-kernels",
    title="Inductor: combo kernels on (torch >= 2.9)",
    phase="sub_configs",
    kind="default",
    reads=(_ICC,),
    writes=(_ICC,),
    source=f"{_CMP}; ref 3.1",
    level="debug",
)
def inductor_combo_kernels(c: Mapping[str, Any]) -> RuleResult:
    """Horizontal fusion helps fuse qk-norm and qk-rope when query and key shapes differ.

    Skipped when the user set either key. The oracle's torch is 2.9.
    """
    icc = c[_ICC]
    if "combo_kernels" in icc or "benchmark_combo_kernel" in icc:
        return None
    return {_ICC: FrozenDict({**icc, "combo_kernels": True, "benchmark_combo_kernel": True})}


@rule(
    "compilation.inductor-pass-module",
    title="An inductor pass given by name names a module and a function in it",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.inductor_passes",),
    source=f"{_CMP} (its inductor_passes loop: ``__import__(module).__dict__[func_name]``); ref 3.1",
    message="Empty module name",
)
def inductor_pass_module(c: Mapping[str, Any]) -> RuleResult:
    """Each pass is resolved by importing the text before its last dot: a name without a module part makes
    ``__import__("")`` raise. Partial model: whether a named module imports and has the function is the Python
    environment's answer, which postinit does not have (vLLM then raises ImportError or KeyError unwrapped)."""
    for name in (c["compilation_config.inductor_passes"] or {}).values():
        if isinstance(name, str) and not name.rpartition(".")[0]:
            return Violation("Empty module name")
    return None


_USE_CG_MSG = "use_cudagraph is deprecated, use cudagraph_mode=NONE instead."
_FULL_CG_MSG = "full_cuda_graph is deprecated, use cudagraph_mode=FULL instead."


@rule(
    "compilation.use-cudagraph-deprecated",
    title="use_cudagraph=False is deprecated",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.use_cudagraph",),
    source=f"{_CMP}; ref 3.1",
    message=_USE_CG_MSG,
    level="warning",
)
def use_cudagraph_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """vLLM warns about the deprecated switch before it checks it against cudagraph_mode."""
    return None if c["compilation_config.use_cudagraph"] else Outcome.log()


@rule(
    "compilation.use-cudagraph-false",
    title="use_cudagraph=False means cudagraph_mode NONE",
    phase="sub_configs",
    kind="override",
    reads=("compilation_config.use_cudagraph", _CGM),
    writes=(_CGM,),
    source=f"{_CMP}; ref 3.1",
)
def use_cudagraph_false(c: Mapping[str, Any]) -> RuleResult:
    """use_cudagraph is the deprecated switch; a conflicting cudagraph_mode is an error.

    Its deprecation warning is ``compilation.use-cudagraph-deprecated`` (logged first, also
    when this rule then raises).
    """
    if c["compilation_config.use_cudagraph"]:
        return None
    mode = c[_CGM]
    if mode is not None and mode is not CUDAGraphMode.NONE:
        return Violation("use_cudagraph and cudagraph_mode are mutually exclusive, prefer cudagraph_mode "
                         "since use_cudagraph is deprecated.")
    return {_CGM: CUDAGraphMode.NONE}


@rule(
    "compilation.full-cuda-graph-deprecated",
    title="full_cuda_graph=True is deprecated",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.full_cuda_graph",),
    source=f"{_CMP}; ref 3.1",
    message=_FULL_CG_MSG,
    level="warning",
)
def full_cuda_graph_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """vLLM warns about the deprecated switch, also when the mode already is FULL or conflicts with it."""
    return Outcome.log() if c["compilation_config.full_cuda_graph"] else None


@rule(
    "quirk.full-cuda-graph-collapses-mode",
    title="full_cuda_graph collapses FULL_AND_PIECEWISE / FULL_DECODE_ONLY to FULL",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.full_cuda_graph", _CGM),
    source=f"{_CMP}; ref 3.1, 13.2:I11",
    message=("cudagraph_mode={mode} with full_cuda_graph=True: vLLM silently replaces the mode with FULL "
             "(deprecated-flag migration, CompilationConfig.__post_init__)."),
    level="warning",
)
def full_cuda_graph_collapses_mode(c: Mapping[str, Any]) -> RuleResult:
    """A mode with full graphs passes the full_cuda_graph check but is then overwritten with plain FULL.

    This makes re-validating a resolved CompilationConfig (which has full_cuda_graph=True) non-idempotent.
    """
    mode = c[_CGM]
    if c["compilation_config.full_cuda_graph"] and mode is not None and mode.separate_routine():
        return Outcome.log(mode=mode.name)
    return None


@rule(
    "compilation.full-cuda-graph",
    title="full_cuda_graph=True means cudagraph_mode FULL",
    phase="sub_configs",
    kind="override",
    reads=("compilation_config.full_cuda_graph", _CGM),
    writes=(_CGM,),
    source=f"{_CMP}; ref 3.1, 13.2:I11",
)
def full_cuda_graph(c: Mapping[str, Any]) -> RuleResult:
    """full_cuda_graph is the deprecated switch for FULL; a mode without full graphs is an error.

    Its deprecation warning is ``compilation.full-cuda-graph-deprecated`` (logged first).
    """
    if not c["compilation_config.full_cuda_graph"]:
        return None
    mode = c[_CGM]
    if mode is not None and not mode.has_full_cudagraphs():
        return Violation("full_cuda_graph and cudagraph_mode are mutually exclusive, prefer cudagraph_mode "
                         "since full_cuda_graph is deprecated.")
    return None if mode is CUDAGraphMode.FULL else {_CGM: CUDAGraphMode.FULL}


@rule(
    "compilation.custom-op-syntax",
    title="custom_ops entries are 'all', 'none', '+op' or '-op'",
    phase="sub_configs",
    kind="check",
    reads=(_OPS,),
    source=f"{_CMP}; ref 3.1",
    message="Invalid syntax '<op>' for custom op, must be 'all', 'none', '+op' or '-op' (where 'op' is the registered op name)",
)
def custom_op_syntax(c: Mapping[str, Any]) -> RuleResult:
    """A custom-op switch names an op to enable (+) or disable (-), or sets the global default."""
    for op in c[_OPS]:
        if op[:1] not in ("+", "-") and op not in ("all", "none"):
            return Violation(f"Invalid syntax '{op}' for custom op, must be 'all', 'none', '+op' or '-op' "
                             "(where 'op' is the registered op name)")
    return None


@rule(
    "compilation.piecewise-backend",
    title="VLLM_COMPILE supports only the eager and inductor backends",
    phase="sub_configs",
    kind="check",
    reads=(_MODE, _BACKEND),
    source=f"{_CMP}; ref 3.1",
    message="Invalid backend for piecewise compilation: <backend>",
)
def piecewise_backend(c: Mapping[str, Any]) -> RuleResult:
    """Custom backends are not supported for piecewise compilation (checked on the given backend)."""
    if c[_MODE] == CompilationMode.VLLM_COMPILE and c[_BACKEND] not in ("", "eager", "inductor"):
        return Violation(f"Invalid backend for piecewise compilation: {c[_BACKEND]}")
    return None


@rule(
    "compilation.use-inductor-backend",
    title="The deprecated use_inductor chooses the backend",
    phase="sub_configs",
    kind="override",
    reads=("compilation_config.use_inductor",),
    writes=(_BACKEND,),
    source=f"{_CMP}; ref 3.1",
    message=("The 'use_inductor' flag is deprecated and will be removed in the next release (v0.12.0). "
             "Please use the 'backend' option instead."),
    level="warning",
)
def use_inductor_backend(c: Mapping[str, Any]) -> RuleResult:
    """use_inductor True/False is the old spelling of backend inductor/eager."""
    flag = c["compilation_config.use_inductor"]
    if flag is None:
        return None
    return {_BACKEND: "inductor" if flag else "eager"}


@rule(
    "compilation.backend-default",
    title="An empty backend becomes the platform's simple compile backend",
    phase="sub_configs",
    kind="default",
    reads=(_BACKEND, "platform.simple_compile_backend"),
    writes=(_BACKEND,),
    source=f"{_CMP}; ref 3.1",
    level="debug",
)
def backend_default(c: Mapping[str, Any]) -> RuleResult:
    """inductor on CUDA/ROCm/CPU/XPU, openxla on TPU."""
    if c[_BACKEND] == "":
        return {_BACKEND: c["platform.simple_compile_backend"]}
    return None


@rule(
    "compilation.fusion-without-noop",
    title="Fusion passes without no-op elimination may not work",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.pass_config.enable_noop", "compilation_config.pass_config.enable_fusion",
           "compilation_config.pass_config.enable_attn_fusion"),
    source="vllm/config/compilation.py PassConfig.__post_init__; ref 3.2",
    message="Fusion enabled but reshape elimination disabled. ...",
    level="warning",
)
def fusion_without_noop(c: Mapping[str, Any]) -> RuleResult:
    """The fusion patterns expect the reshapes to be eliminated first."""
    if c["compilation_config.pass_config.enable_noop"]:
        return None
    msgs = []
    if c["compilation_config.pass_config.enable_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. RMSNorm/SiluMul + quant (fp8) fusion might not work")
    if c["compilation_config.pass_config.enable_attn_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. Attention + quant (fp8) fusion might not work")
    return Outcome(message="\n".join(msgs)) if msgs else None  # one warning record each


COMPILATION_POST_INIT = sequence(
    "compilation.post-init",
    # vLLM's statement order: the first check that fails is the one raised (golden t182, t183)
    custom_ops_all_none_count, inductor_auto_functionalized_v2, inductor_combo_kernels, inductor_pass_module,
    use_cudagraph_deprecated,
    use_cudagraph_false, full_cuda_graph_deprecated, full_cuda_graph_collapses_mode, full_cuda_graph,
    custom_op_syntax, piecewise_backend, use_inductor_backend, backend_default,
    title="CompilationConfig.__post_init__: custom ops, inductor options, the backend and the deprecated graph flags",
    source=_CMP,
)



_SPLIT_SRC = "vllm/config/compilation.py CompilationConfig.set_splitting_ops_for_v1"
_V1 = "env.VLLM_USE_V1"
_CG = "compilation_config.cudagraph_mode"
_SPLIT = "compilation_config.splitting_ops"
_PARTITION = "compilation_config.use_inductor_graph_partition"
_ATTN_FUSION = "compilation_config.pass_config.enable_attn_fusion"
_DUMP = "compilation_config.debug_dump_path"
_CWD = "usage.cwd"

#: ``CompilationConfig._attention_ops``: the default splitting ops, in vLLM's order
ATTENTION_OPS: tuple[str, ...] = (
    "vllm::unified_attention",
    "vllm::unified_attention_with_output",
    "vllm::unified_mla_attention",
    "vllm::unified_mla_attention_with_output",
    "vllm::mamba_mixer2",
    "vllm::mamba_mixer",
    "vllm::short_conv",
    "vllm::linear_attention",
    "vllm::plamo2_mamba_mixer",
    "vllm::gdn_attention",
    "vllm::sparse_attn_indexer",
)
_SPLIT_GATE = (_V1, _MODE, _PARTITION, _ATTN_FUSION)

_EMPTY_SPLIT_PIECEWISE = (
    "Piecewise compilation with empty splitting_ops do notcontains piecewise cudagraph. "
    "Setting cudagraph_mode to NONE. Hint: If you are using attention backends that support "
    "cudagraph, consider manually setting cudagraph_mode to FULL or FULL_DECODE_ONLY to enable "
    "full cudagraphs."
)
_EMPTY_SPLIT_FAP = (
    "Piecewise compilation with empty splitting_ops do not contains piecewise cudagraph. "
    "Setting cudagraph_mode to FULL."
)


def _splitting(c: Mapping[str, Any]) -> bool:
    """Step 18 runs: V1 and mode VLLM_COMPILE (as the platform hook left it)."""
    return bool(c[_V1]) and c[_MODE] == CompilationMode.VLLM_COMPILE


def _plain_split(c: Mapping[str, Any]) -> bool:
    """Step 18 without inductor graph partition and without attention fusion."""
    return _splitting(c) and not c[_PARTITION] and not c[_ATTN_FUSION]



# --------------------------------------------------------------------------
# step 18: splitting ops (§5.5)
# --------------------------------------------------------------------------


@rule(
    "compilation.splitting-ops",
    title="Splitting ops for piecewise compilation",
    phase="finalize",
    kind="derive",
    reads=(*_SPLIT_GATE, _SPLIT),
    writes=(_SPLIT,),
    source=f"{_SPLIT_SRC}; ref step-18, 5.5, 13.1:O9",
)
def splitting_ops(c: Mapping[str, Any]) -> RuleResult:
    """Piecewise compilation splits the graph at the attention ops unless the user chose the split.

    Inductor graph partition keeps a user list; attention fusion needs the
    attention ops inside the graph (``[]``); an empty user list is kept with
    a warning. Runs only for V1 and VLLM_COMPILE after the platform hook.
    """
    if not _splitting(c):
        return None
    ops = c[_SPLIT]
    if not c[_PARTITION] and c[_ATTN_FUSION]:
        return {_SPLIT: []}
    if ops is None:
        return {_SPLIT: list(ATTENTION_OPS)}
    if len(ops) == 0 and not c[_PARTITION]:
        return Outcome(
            message="Using piecewise compilation with empty splitting_ops", level="warning"
        )
    return None


@rule(
    "compilation.attn-fusion-forces-full",
    title="Attention fusion forces FULL CUDA graphs",
    phase="finalize",
    kind="override",
    reads=(*_SPLIT_GATE, _CG),
    writes=(_CG,),
    source=f"{_SPLIT_SRC}; ref step-18, 5.5, 13.1:O12",
    message="enable_attn_fusion is incompatible with piecewise cudagraph when "
    "use_inductor_graph_partition is off. In this case, splitting_ops will be set to empty "
    "list, and cudagraph_mode will be set to FULL. Please ensure you are using attention "
    "backends that support cudagraph or set cudagraph_mode to NONE explicitly if encountering "
    "any problems.",
    level="warning",
)
def attn_fusion_forces_full(c: Mapping[str, Any]) -> RuleResult:
    """Fused attention cannot be a split point, so piecewise graphs are impossible; FULL graphs remain."""
    mode = c[_CG]
    fusion = _splitting(c) and not c[_PARTITION] and c[_ATTN_FUSION]
    if fusion and mode is not None and mode.has_piecewise_cudagraphs():
        return {_CG: CUDAGraphMode.FULL}
    return None


@rule(
    "compilation.empty-splitting-ops-mode",
    title="Empty splitting ops drop piecewise CUDA graphs",
    phase="finalize",
    kind="override",
    reads=(*_SPLIT_GATE, _SPLIT, _CG),
    writes=(_CG,),
    source=f"{_SPLIT_SRC}; ref step-18, 5.5, 13.1:O12, 13.2:I1",
    level="warning",
)
def empty_splitting_ops_mode(c: Mapping[str, Any]) -> RuleResult:
    """Without split points there are no pieces to capture: PIECEWISE becomes NONE, FULL_AND_PIECEWISE becomes FULL.

    Capture sizes computed in step 12d stay (I1).
    """
    if not _plain_split(c) or c[_SPLIT] is None or len(c[_SPLIT]) != 0:
        return None
    if c[_CG] is CUDAGraphMode.PIECEWISE:
        return Outcome({_CG: CUDAGraphMode.NONE}, message=_EMPTY_SPLIT_PIECEWISE)
    if c[_CG] is CUDAGraphMode.FULL_AND_PIECEWISE:
        return Outcome({_CG: CUDAGraphMode.FULL}, message=_EMPTY_SPLIT_FAP)
    return None



@rule(
    "compilation.migrate-deprecated-flags",
    title="Mirror cudagraph_mode into use_cudagraph / full_cuda_graph",
    phase="finalize",
    kind="derive",
    reads=(_CG,),
    writes=("compilation_config.use_cudagraph", "compilation_config.full_cuda_graph"),
    source=f"{_SRC}; ref step-19, 13.1:O17, 13.2:I10, 13.2:I11",
)
def migrate_deprecated_flags(c: Mapping[str, Any]) -> RuleResult:
    """The deprecated flags are kept in sync with the final mode, on CUDA/ROCm under V1 only."""
    mode = c[_CG]
    if mode is None:
        return None
    return {
        "compilation_config.use_cudagraph": mode is not CUDAGraphMode.NONE,
        "compilation_config.full_cuda_graph": mode.has_full_cudagraphs(),
    }





# --------------------------------------------------------------------------
# step 23: debug dump path
# --------------------------------------------------------------------------


def _absolute(path: str, cwd: str) -> str:
    """``Path(path).absolute().expanduser()``: join to the cwd; ``~`` is never expanded afterwards."""
    return str(PurePosixPath(cwd) / path)


@rule(
    "compilation.debug-dump-path",
    title="Debug dump path made absolute",
    phase="finalize",
    kind="derive",
    reads=(_DUMP, _CWD),
    writes=(_DUMP,),
    source=f"{_SRC}; ref step-23, 13.2:I14",
)
def debug_dump_path(c: Mapping[str, Any]) -> RuleResult:
    """Dump files go to an absolute directory, independent of later working-directory changes.

    vLLM calls ``absolute()`` before ``expanduser()``, so ``~/x`` becomes ``<cwd>/~/x`` (I14).
    """
    path = c[_DUMP]
    if path is None:
        return None
    return {_DUMP: _absolute(path, c[_CWD])}


@rule(
    "compilation.debug-dump-path-env",
    title="VLLM_DEBUG_DUMP_PATH overrides the debug dump path",
    phase="finalize",
    kind="override",
    reads=("env.VLLM_DEBUG_DUMP_PATH", _DUMP, _CWD),
    writes=(_DUMP,),
    source=f"{_SRC}; ref step-23, 13.2:I14",
    message="Config-specified debug dump path is overridden by VLLM_DEBUG_DUMP_PATH to {target}",
    level="warning",
)
def debug_dump_path_env(c: Mapping[str, Any]) -> RuleResult:
    """The environment variable wins over the config value (same absolute-then-expanduser transform)."""
    env = c["env.VLLM_DEBUG_DUMP_PATH"]
    if env is None:
        return None
    target = _absolute(env, c[_CWD])
    if c[_DUMP] is None:
        return {_DUMP: target}
    # vLLM warns whenever a config path is set, also when it equals the variable's (golden t018)
    return Outcome.log({_DUMP: target}, target=target)


@rule(
    "quirk.debug-dump-path-tilde",
    title="A leading ~ in the debug dump path is not expanded",
    phase="finalize",
    kind="check",
    reads=(_DUMP, _CWD),
    source=f"{_SRC}; ref step-23, 13.2:I14",
    level="warning",
)
def debug_dump_path_tilde(c: Mapping[str, Any]) -> RuleResult:
    """vLLM applies ``absolute()`` before ``expanduser()``, so ``~`` becomes a directory named ``~`` under the cwd."""
    path = c[_DUMP]
    if path is None:
        return None
    parts = PurePosixPath(path).parts
    base = PurePosixPath(c[_CWD]).parts
    if parts[: len(base)] == base and parts[len(base) : len(base) + 1] == ("~",):
        return Outcome(
            message=f"quirk I14: debug_dump_path resolved to {path}: the leading '~' was not expanded "
            "because vLLM calls absolute() before expanduser()."
        )
    return None



# --------------------------------------------------------------------------
# step 24: blocked FP8 weights
# --------------------------------------------------------------------------


def _blocked_weights(c: Mapping[str, Any]) -> bool:
    """vLLM's ``has_blocked_weights()`` over the quantization facts."""
    if c["quant_config"] is None:
        return False
    if c["quant_config.weight_block_size"] is not None:
        return True
    hf = c["model_config.hf_config.quantization_config"] or {}
    method = c["quant_config.method"]
    if method in ("fp8", "deepseek_v4_fp8"):  # DeepseekV4FP8Config is an Fp8Config (vLLM 0.34.0)
        return hf.get("weight_block_size") is not None
    if method == "compressed-tensors":
        groups = hf.get("config_groups") or {}
        return any(
            str(((g or {}).get("weights") or {}).get("strategy", "")).lower() == "block"
            for g in groups.values()
        )
    return False


@rule(
    "compilation.blocked-fp8-adds-quant-fp8",
    title="Blocked FP8 weights enable the quant_fp8 custom op",
    phase="finalize",
    kind="override",
    reads=(
        "quant_config",
        "quant_config.weight_block_size",
        "quant_config.method",
        "model_config.hf_config.quantization_config",
        _OPS,
    ),
    writes=(_OPS,),
    source=f"{_SRC}; ref step-24, 13.1:O18",
)
def blocked_fp8_adds_quant_fp8(c: Mapping[str, Any]) -> RuleResult:
    """On H100 the CUDA quant_fp8 kernel is faster than the native implementation for block-quantized FP8.

    Appended without a duplicate check unless the user disabled it with ``-quant_fp8``.
    Fp8Config's ``weight_block_size`` comes from the checkpoint's ``quantization_config``;
    compressed-tensors counts as blocked when a scheme's weights use the ``block`` strategy.
    """
    ops = tuple(c[_OPS])
    if _blocked_weights(c) and "-quant_fp8" not in ops:
        return {_OPS: (*ops, "+quant_fp8")}
    return None


