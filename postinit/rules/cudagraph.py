"""CUDA-graph decisions of ``VllmConfig.__post_init__`` (phase ``core``, step 12).

Only platforms with ``support_static_graph_mode`` (CUDA, ROCm) run the block:
the default mode (12a), the full-graph downgrades (12b, first match wins), the
eager override and warm-ups (12c), the capture sizes (12d, §5.3) and
``post_init_cudagraph_sizes`` (§5.4). Every other platform only gets
``cudagraph_mode = NONE`` (12-else) and never computes sizes (I3).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from operator import itemgetter
from typing import Any, NamedTuple

from postinit.engine import (
    Outcome,
    RuleResult,
    Violation,
    all_of,
    first_match,
    rule,
    sequence,
)
from postinit.rules.compilation import migrate_deprecated_flags
from postinit.schema import CompilationMode, CUDAGraphMode
from postinit.schema.loaders._pyset import PySet

_V1 = "env.VLLM_USE_V1"
_CG = "compilation_config.cudagraph_mode"
_CASCADE = "model_config.disable_cascade_attn"
_CASCADE_WARNING = (
    "No piecewise cudagraph for executing cascade attention. Will fall back to eager "
    "execution if a batch runs into cascade attentions"
)

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"
_SIZES_SRC = "vllm/config/vllm.py VllmConfig._set_cudagraph_sizes"
_POST_SRC = "vllm/config/compilation.py CompilationConfig.post_init_cudagraph_sizes"
_STATIC = "platform.support_static_graph_mode"
_MODE = "compilation_config.cudagraph_mode"
_MAX = "compilation_config.max_cudagraph_capture_size"
_SIZES = "compilation_config.cudagraph_capture_sizes"
_PIECEWISE_TAIL = "Overriding cudagraph_mode to PIECEWISE."


def _full(c: Mapping[str, Any]) -> bool:
    """Full CUDA graphs on a static-graph platform (the platform first: why-not names what decided)."""
    if not c[_STATIC]:
        return False
    mode = c[_MODE]
    return mode is not None and mode.has_full_cudagraphs()


@rule(
    "cudagraph.default-mode",
    title="Default CUDA graph mode",
    phase="core",
    kind="default",
    reads=(_STATIC, _MODE, "env.VLLM_USE_V1", "compilation_config.mode"),
    writes=(_MODE,),
    source=f"{_SRC}; ref step-12a, 13.1:O8",
)
def default_mode(c: Mapping[str, Any]) -> RuleResult:
    """Full and piecewise graphs suit most models; they need V1 and piecewise compilation (VLLM_COMPILE).

    Only on platforms with static graph support; elsewhere step 12-else applies.
    """
    if not c[_STATIC] or c[_MODE] is not None:
        return None
    compiled = c["env.VLLM_USE_V1"] and c["compilation_config.mode"] == CompilationMode.VLLM_COMPILE
    return {_MODE: CUDAGraphMode.FULL_AND_PIECEWISE if compiled else CUDAGraphMode.NONE}


_FORCES: dict[str, Any] = dict(phase="core", kind="override", writes=(_MODE,), level="warning",
                               ensures=lambda c: c[_MODE] is None or not c[_MODE].has_full_cudagraphs())
"""The header every full-graph downgrade shares."""


@rule(
    "cudagraph.dcp-forces-piecewise",
    title="Decode context parallel forces PIECEWISE",
    reads=("parallel_config.decode_context_parallel_size",),
    source=f"{_SRC}; ref step-12b, 13.1:O11",
    message="Decode context parallel (DCP) is enabled, which is incompatible with full CUDA graphs. " + _PIECEWISE_TAIL,
    **_FORCES,
)
def dcp_forces_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """Decode context parallel does not support full CUDA graphs.

    Applies to a mode the user set, too (with a user mode below VLLM_COMPILE
    this leads to step 19's assertion, O11).
    """
    return {_MODE: CUDAGraphMode.PIECEWISE} if c["parallel_config.decode_context_parallel_size"] > 1 else None


@rule(
    "cudagraph.pooling-forces-piecewise",
    title="Pooling models force PIECEWISE",
    reads=("model_config", "model_config.pooler_config"),
    source=f"{_SRC}; ref step-12b, 13.1:O11, 13.2:I8",
    message="Pooling models do not support full cudagraphs. " + _PIECEWISE_TAIL,
    **_FORCES,
)
def pooling_forces_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """Pooling models do not support full CUDA graphs.

    vLLM tests ``pooler_config is not None``, not the runner type (I8).
    """
    if c["model_config"] is not None and c["model_config.pooler_config"] is not None:
        return {_MODE: CUDAGraphMode.PIECEWISE}
    return None


@rule(
    "cudagraph.encoder-decoder-forces-piecewise",
    title="Encoder-decoder models force PIECEWISE",
    reads=("model_config", "model_config.is_encoder_decoder"),
    source=f"{_SRC}; ref step-12b, 13.1:O11",
    message="Encoder-decoder models do not support full cudagraphs. " + _PIECEWISE_TAIL,
    **_FORCES,
)
def encoder_decoder_forces_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """Encoder-decoder models do not support full CUDA graphs."""
    if c["model_config"] is not None and c["model_config.is_encoder_decoder"]:
        return {_MODE: CUDAGraphMode.PIECEWISE}
    return None


@rule(
    "cudagraph.blackwell-long-context-forces-piecewise",
    title="SM 10.0 with max_model_len > 131072 (non-MLA) forces PIECEWISE",
    reads=("model_config", "model_config.max_model_len", "model_config.use_mla", "platform.is_cuda",
           "platform.capability"),
    source=f"{_SRC}; ref step-12b, 13.1:O1, 13.1:O11",
    message=(
        "NVIDIA Blackwell TRTLLM attention cannot support max_model_len >= 131072 (found {max_model_len}), "
        "causing dynamic dispatching that breaks full cudagraphs. " + _PIECEWISE_TAIL
    ),
    **_FORCES,
)
def blackwell_long_context_forces_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """Blackwell TRTLLM attention dispatches dynamically beyond 128K tokens, which breaks full CUDA graphs.

    Exactly SM 10.0 (``is_device_capability(100)``), CUDA only, not for MLA models.
    """
    n = c["model_config.max_model_len"]
    if (
        c["model_config"] is not None and c["platform.is_cuda"] and c["platform.capability"] == 100
        and n is not None and n > 131072 and not c["model_config.use_mla"]
    ):
        return Outcome.log({_MODE: CUDAGraphMode.PIECEWISE}, max_model_len=n)
    return None


FULL_GRAPH_SUPPORT = first_match(
    "cudagraph.full-graph-support",
    dcp_forces_piecewise, pooling_forces_piecewise, encoder_decoder_forces_piecewise,
    blackwell_long_context_forces_piecewise,
    title="The first reason full CUDA graphs are unsupported forces PIECEWISE",
    when=_full, reads=(_STATIC, _MODE), source=f"{_SRC}; ref step-12b",
)


@rule(
    "cudagraph.eager-disables",
    title="enforce_eager disables CUDA graphs",
    phase="core",
    kind="override",
    reads=(_STATIC, "model_config", "model_config.enforce_eager"),
    writes=(_MODE, _MAX, _SIZES),
    source=f"{_SRC}; ref step-12c",
    message="Cudagraph is disabled under eager mode",
    level="info",
    ensures=lambda c: c[_MODE] == CUDAGraphMode.NONE and c[_MAX] == 0 and not c[_SIZES],
)
def eager_disables(c: Mapping[str, Any]) -> RuleResult:
    """Eager execution captures no CUDA graphs: mode NONE, no capture sizes.

    Overrides a mode and sizes the user set; logged even when nothing changes.
    """
    if c[_STATIC] and c["model_config"] is not None and c["model_config.enforce_eager"]:
        return Outcome.log({_MODE: CUDAGraphMode.NONE, _MAX: 0, _SIZES: ()})
    return None


@rule(
    "cudagraph.warmups",
    title="One CUDA graph warm-up run under V1",
    phase="core",
    kind="derive",
    reads=(_STATIC, "model_config", "model_config.enforce_eager", "env.VLLM_USE_V1"),
    writes=("compilation_config.cudagraph_num_of_warmups",),
    source=f"{_SRC}; ref step-12c, 13.1:O13",
)
def warmups(c: Mapping[str, Any]) -> RuleResult:
    """V1 warms each graph up once before capture unless the model runs eagerly.

    Set even when the mode is NONE or later becomes NONE (O13, I1).
    """
    eager = c["model_config"] is not None and c["model_config.enforce_eager"]
    if c[_STATIC] and not eager and c["env.VLLM_USE_V1"]:
        return {"compilation_config.cudagraph_num_of_warmups": 1}
    return None


# ---- step 12d: _set_cudagraph_sizes (§5.3) ------------------------------------------------


class _Plan(NamedTuple):
    """What ``_set_cudagraph_sizes`` computes from the current values (its active branch)."""

    sizes: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()
    tp: int = 1
    valid_max: int = 0
    assertion: str | None = None
    """A bare-assert failure before any warning (max < 1, empty user list)."""
    inconsistent: bool = False
    """User max and user list disagree: ValueError (after the SP warning)."""
    truncated: bool = False
    overridden: bool = False


_SIZE_READS = (
    _STATIC, "model_config", "model_config.enforce_eager", _MODE, _MAX, _SIZES,
    "scheduler_config.max_num_seqs", "scheduler_config.max_num_batched_tokens",
    "parallel_config.tensor_parallel_size", "compilation_config.pass_config.enable_sequence_parallelism",
    "version.capture_sizes_clip",
)
"""What the capture-size plan depends on (the last: whether the version drops user sizes above the budget)."""


_size_reads = itemgetter(*_SIZE_READS)


def _default_sizes(m: int) -> list[int]:
    sizes = [i for i in (1, 2, 4) if i <= m]
    if m >= 8:
        sizes += range(8, min(m + 1, 256), 8)
    if m >= 256:
        sizes += range(256, m + 1, 16)
    return sizes


def _plan(c: Mapping[str, Any]) -> _Plan | None:
    """The active branch's result, or None when vLLM takes the no-cudagraph branch (or skips 12).

    Four rules ask for the same plan, each up to twice per resolution: it is a pure
    function of ``_SIZE_READS``, computed once per distinct set of values (the fact
    ``version.capture_sizes_clip`` drops user sizes above the token budget: vLLM 0.11.1).
    """
    key: tuple[Any, ...] = _size_reads(c)
    if key in _PLANS:
        return _PLANS[key]
    if len(_PLANS) >= 1024:
        _PLANS.clear()
    plan = _PLANS[key] = _plan_of(*key)
    if plan is not None and plan.assertion is None and plan.sizes and not plan.inconsistent:
        # ``cudagraph.capture-sizes`` writes (valid_max, sizes), which wakes the four rules that
        # ask for the plan: the plan of that output is known (a fixed point, checked by
        # tests/rules/test_cudagraph_plan.py), so it is stored now instead of computed again then
        static, model, eager, mode, _, _, seqs, budget, tp, sp, clip = key
        _PLANS[(static, model, eager, mode, plan.valid_max, plan.sizes, seqs, budget, tp, sp, clip)] = _Plan(
            sizes=plan.sizes, tp=tp, valid_max=plan.valid_max)
    return plan


_PLANS: dict[tuple[Any, ...], _Plan | None] = {}
"""Plans by the values of ``_SIZE_READS`` (pure: see :func:`_plan`); cleared when it grows past 1024."""


def _plan_of(
    static: bool, model: Any, eager: bool, mode: Any, user_max: int | None, user_sizes: tuple[int, ...] | None,
    max_num_seqs: int, max_num_batched_tokens: int, tp: int, sp: bool, clip: bool = False,
) -> _Plan | None:
    if not static or model is None or eager:
        return None
    if mode == CUDAGraphMode.NONE:
        return None
    m = user_max if user_max is not None else min(max_num_seqs * 2, 512)
    m = min(max_num_batched_tokens, m)
    if m < 1:
        return _Plan(assertion="Maximum cudagraph size should be greater than or equal to 1 when using cuda graph.")
    if user_sizes is not None and len(user_sizes) == 0:
        return _Plan(assertion="cudagraph_capture_sizes should contain at least one element when using cuda graph.")
    if user_sizes is not None:
        sizes = sorted(s for s in set(user_sizes) if not clip or s <= max_num_batched_tokens)
    else:
        sizes = _default_sizes(m)
    removed: list[int] = []
    if tp > 1 and sp:
        removed = [s for s in sizes if s % tp != 0]
        sizes = [s for s in sizes if s % tp == 0]
    valid = sizes[-1] if sizes else 0
    mismatch = user_max is not None and user_max != valid
    return _Plan(
        sizes=tuple(sizes), removed=tuple(removed), tp=tp, valid_max=valid,
        inconsistent=mismatch and user_sizes is not None, truncated=mismatch and user_sizes is None,
        overridden=user_sizes is not None and len(sizes) < len(user_sizes),
    )


@rule(
    "cudagraph.sp-filters-capture-sizes",
    title="Sequence parallelism drops capture sizes not divisible by TP",
    phase="core",
    kind="check",
    reads=_SIZE_READS,
    source=f"{_SIZES_SRC}, VllmConfig.update_sizes_for_sequence_parallelism; ref step-12d, 5.3, 13.1:O10",
    message=(
        "Batch sizes {removed} are removed because they are not multiple of tp_size {tp} "
        "when sequence parallelism is enabled"
    ),
    level="warning",
)
def sp_filters_capture_sizes(c: Mapping[str, Any]) -> RuleResult:
    """Sequence parallelism splits each batch across TP ranks, so a captured batch size must divide by TP.

    Decided with ``cudagraph.capture-sizes``, on the sizes before it writes them.
    """
    plan = _plan(c)
    if plan is None or plan.assertion is not None or not plan.removed:
        return None
    return Outcome.log(removed=list(plan.removed), tp=plan.tp)


@rule(
    "cudagraph.truncate-max-capture-size",
    title="A user max capture size is truncated to the largest capture size",
    phase="core",
    kind="check",
    reads=_SIZE_READS,
    source=f"{_SIZES_SRC}; ref step-12d, 5.3, 13.1:O5",
    message="Truncating max_cudagraph_capture_size to {valid_max}",
    level="warning",
)
def truncate_max_capture_size(c: Mapping[str, Any]) -> RuleResult:
    """A max capture size that no generated size reaches is cut to the largest size actually captured.

    Also hits the GptOss default of 992 (O5), which vLLM treats as a user value.
    """
    plan = _plan(c)
    if plan is None or plan.assertion is not None or not plan.truncated:
        return None
    return Outcome.log(valid_max=plan.valid_max)


@rule(
    "cudagraph.user-capture-sizes-overridden",
    title="The user's capture-size list got shorter",
    phase="core",
    kind="check",
    reads=_SIZE_READS,
    source=f"{_SIZES_SRC}; ref step-12d, 5.3",
    message="cudagraph_capture_sizes specified in compilation_config {user} is overridden by config {sizes}",
    level="warning",
)
def user_capture_sizes_overridden(c: Mapping[str, Any]) -> RuleResult:
    """De-duplication and the sequence-parallel filter can only shorten a user list, so a length drop means a change.

    Not logged when the inconsistent-max ValueError is raised first.
    """
    plan = _plan(c)
    if plan is None or plan.assertion is not None or plan.inconsistent or not plan.overridden:
        return None
    return Outcome.log(user=list(c[_SIZES]), sizes=list(plan.sizes))


@rule(
    "cudagraph.capture-sizes",
    title="CUDA graph capture sizes and their maximum",
    phase="core",
    kind="derive",
    reads=_SIZE_READS,
    writes=(_MAX, _SIZES),
    source=f"{_SIZES_SRC}; ref step-12d, 5.3, 13.1:O5, 13.1:O10, 13.2:I2",
)
def capture_sizes(c: Mapping[str, Any]) -> RuleResult:
    """Capture 1, 2, 4, then every 8 below 256 and every 16 up to the max (min(2*max_num_seqs, 512, token budget)).

    A user list is de-duplicated and sorted, and clipped to the budget where the version does so
    (``version.capture_sizes_clip``);
    sequence parallelism keeps only multiples of TP. Without a model, under
    eager or with mode NONE both become empty (max 0).
    """
    if not c[_STATIC]:
        return None
    plan = _plan(c)
    if plan is None:
        return {_MAX: 0, _SIZES: ()}
    if plan.assertion is not None:
        return Violation(plan.assertion, error="AssertionError")
    if plan.inconsistent:
        return Violation(
            f"customized max_cudagraph_capture_size(={c[_MAX]}) should be consistent with the max value "
            f"of cudagraph_capture_sizes(={plan.valid_max})",
            error="ValueError",
        )
    return {_MAX: plan.valid_max, _SIZES: plan.sizes}


SET_CUDAGRAPH_SIZES = all_of(
    "cudagraph.set-sizes",
    sp_filters_capture_sizes, truncate_max_capture_size, user_capture_sizes_overridden, capture_sizes,
    title="_set_cudagraph_sizes: its warnings, then the sizes (or its error)",
    source=_SIZES_SRC,
)


# ---- §5.4: post_init_cudagraph_sizes ------------------------------------------------------


@rule(
    "cudagraph.compile-sizes",
    title="Expand compile_sizes",
    phase="core",
    kind="derive",
    reads=(_STATIC, "compilation_config.compile_sizes", _SIZES),
    writes=("compilation_config.compile_sizes",),
    source=f"{_POST_SRC}; ref step-12d, 5.4, 13.2:I3",
)
def compile_sizes(c: Mapping[str, Any]) -> RuleResult:
    """Inductor compiles the listed batch sizes; 'cudagraph_capture_sizes' stands for the whole capture list.

    De-duplicated through a set: vLLM walks ``list(set(compile_sizes))``, whose order for a mix of ints and the
    string follows their hashes (the string's with ``PYTHONHASHSEED=0``, as the oracle ran: :class:`PySet`).
    Not run off static-graph platforms (I3).
    """
    if not c[_STATIC]:
        return None
    given = c["compilation_config.compile_sizes"]
    out: list[int] = []
    if given is not None:
        for x in PySet[str | int](given):
            if isinstance(x, str):
                if x != "cudagraph_capture_sizes":
                    msg = f"Unrecognized size type in compile_sizes, expect 'cudagraph_capture_sizes', got {x}"
                    return Violation(msg, error="AssertionError")
                out.extend(c[_SIZES])
            else:
                out.append(x)
    return {"compilation_config.compile_sizes": tuple(out)}


@rule(
    "cudagraph.padding-table",
    title="Batch size to padded graph size table",
    phase="core",
    kind="derive",
    reads=(_STATIC, _SIZES, _MAX),
    writes=("compilation_config.bs_to_padded_graph_size",),
    source=f"{_POST_SRC}; ref step-12d, 5.4, 13.2:I1, 13.2:I3",
)
def padding_table(c: Mapping[str, Any]) -> RuleResult:
    """Each batch size runs in the smallest captured graph that fits it: list index = batch size, value = graph size.

    A plain list of length max+1; index 0 maps to 0. Not built off
    static-graph platforms (stays None, I3).
    """
    if not c[_STATIC]:
        return None
    sizes, mx = sorted(c[_SIZES]), c[_MAX]
    if sizes and sizes[-1] != mx:
        return Violation("", hint=f"cudagraph_capture_sizes[-1]={sizes[-1]} != max_cudagraph_capture_size={mx}",
                         error="AssertionError")
    if (sizes and sizes[0] < 0) or mx < 0:
        # vLLM fills its list by index, so a negative size writes from the end (Python's negative
        # indexing) or past the start: replay its loop as written, IndexError included
        table = _padding_as_vllm_loops(tuple(sizes), mx)
        if isinstance(table, str):
            return Violation(table, error="IndexError", hint="capture sizes are batch sizes: use positive integers")
        return {"compilation_config.bs_to_padded_graph_size": table}
    return {"compilation_config.bs_to_padded_graph_size": _padding(tuple(sizes), mx)}


def _padding_as_vllm_loops(sizes: tuple[int, ...], mx: int) -> tuple[int, ...] | str:
    """vLLM's padding loop statement by statement (the IndexError's message where it raises one).

    Bounded: an index below ``-len(table)`` raises on the first write, so the loop
    writes at most about twice the table's length before it ends or raises. vLLM builds
    the table with ``[0 for _ in range(max + 1)]`` (empty for a negative max); an index
    beyond 64 bits is CPython's IndexError "cannot fit 'int' into an index-sized integer".
    """
    table = [0] * max(mx + 1, 0)
    try:
        for end, start in zip([*sizes, mx + 1], [0, *sizes], strict=True):
            for bs in range(start, end):
                table[bs] = start if bs == start else end
    except IndexError as e:
        return str(e)
    return tuple(table)


@functools.lru_cache(maxsize=64)
def _padding(sizes: tuple[int, ...], mx: int) -> tuple[int, ...]:
    """Index = batch size, value = the smallest captured size that holds it (0 for 0); pure: cached."""
    table = [0] * (mx + 1)
    for end, start in zip([*sizes, mx + 1], [0, *sizes], strict=True):
        if start < end:
            table[start] = start
            table[start + 1:end] = [end] * (end - start - 1)
    return tuple(table)


@rule(
    "cudagraph.no-static-graph-support",
    title="No static graph support: CUDA graphs off",
    phase="core",
    kind="override",
    reads=(_STATIC,),
    writes=(_MODE,),
    source=f"{_SRC}; ref step-12-else, 13.2:I3",
)
def no_static_graph_support(c: Mapping[str, Any]) -> RuleResult:
    """Platforms without static graph mode (CPU, XPU, TPU) cannot capture CUDA graphs.

    No capture sizes and no padding table are computed there (I3).
    """
    if not c[_STATIC]:
        return {_MODE: CUDAGraphMode.NONE}
    return None


STEP_12 = sequence(
    "cudagraph.step-12", default_mode, FULL_GRAPH_SUPPORT, eager_disables, SET_CUDAGRAPH_SIZES,
    no_static_graph_support,
    title="Step 12: the default mode, full-graph support, eager mode, the capture sizes; no static graphs: NONE",
    source=_SRC,
)


@rule(
    "quirk.cudagraph-without-capture-sizes",
    title="CUDA graphs on but nothing to capture",
    phase="core",
    kind="check",
    reads=(_STATIC, _MODE, _SIZES),
    source=f"{_SIZES_SRC}; ref 13.2:I2",
    message=("cudagraph_mode is {mode} but cudagraph_capture_sizes is empty and max_cudagraph_capture_size "
             "is 0 (no capture size survived, or there is no model); vLLM keeps the mode and captures no "
             "CUDA graph, so every batch runs without one."),
    level="warning",
)
def cudagraph_without_capture_sizes(c: Mapping[str, Any]) -> RuleResult:
    """A graph mode with an empty size list captures nothing (every size filtered out by SP, or no model).

    vLLM keeps the mode (and later ``use_cudagraph=True``) but runs every batch without a graph.
    """
    mode, sizes = c[_MODE], c[_SIZES]
    if c[_STATIC] and mode is not None and mode != CUDAGraphMode.NONE and sizes is not None and not sizes:
        return Outcome.log(mode=mode)
    return None


# --------------------------------------------------------------------------
# step 19: final CUDA graph checks (V1, CUDA/ROCm)
# --------------------------------------------------------------------------

_COMPILE_MODE = "compilation_config.mode"
_FINAL_GATE = (_V1, "platform.is_cuda_alike")


def _final(c: Mapping[str, Any]) -> bool:
    return bool(c[_V1]) and bool(c["platform.is_cuda_alike"])


@rule(
    "cudagraph.cascade-attn-warning",
    title="Full CUDA graphs without piecewise fall back to eager for cascade attention",
    phase="finalize",
    kind="check",
    reads=(_CG, "model_config", _CASCADE),
    source=f"{_SRC}; ref step-19, 13.1:O16",
    message=_CASCADE_WARNING,
    level="warning",
)
def cascade_attn_warning(c: Mapping[str, Any]) -> RuleResult:
    """Cascade attention cannot run inside a full CUDA graph; without piecewise graphs such batches run eagerly.

    Read before step 20 disables cascade attention for DBO (O16).
    """
    mode = c[_CG]
    if mode is None or c["model_config"] is None or c[_CASCADE]:
        return None
    return Outcome.log() if mode.has_full_cudagraphs() and not mode.has_piecewise_cudagraphs() else None


@rule(
    "cudagraph.piecewise-needs-vllm-compile",
    title="Piecewise CUDA graphs require VLLM_COMPILE",
    phase="finalize",
    kind="check",
    reads=(_CG, _COMPILE_MODE),
    source=f"{_SRC}; ref step-19, 13.1:O11",
    message="Compilation mode should be CompilationMode.VLLM_COMPILE when cudagraph_mode "
    "piecewise cudagraphs is used, cudagraph_mode=<mode>",
    level="error",
)
def piecewise_needs_vllm_compile(c: Mapping[str, Any]) -> RuleResult:
    """Piecewise CUDA graphs are captured per piece of vLLM's split graph, which only VLLM_COMPILE builds."""
    mode = c[_CG]
    if mode is None or not mode.requires_piecewise_compilation():
        return None
    if c[_COMPILE_MODE] != CompilationMode.VLLM_COMPILE:
        return Violation(
            "Compilation mode should be CompilationMode.VLLM_COMPILE when cudagraph_mode "
            f"piecewise cudagraphs is used, cudagraph_mode={mode}",
            hint="use -O3 (mode VLLM_COMPILE), or a cudagraph_mode without piecewise graphs "
            "(FULL, FULL_DECODE_ONLY, NONE)",
            error="AssertionError",
        )
    return None


@rule(
    "quirk.cudagraph-none-with-capture-sizes",
    title="cudagraph_mode NONE with capture sizes left from step 12d",
    phase="finalize",
    kind="check",
    reads=(
        _CG,
        "compilation_config.cudagraph_capture_sizes",
        "compilation_config.max_cudagraph_capture_size",
        "compilation_config.cudagraph_num_of_warmups",
    ),
    source=f"{_SRC}; ref 7.4#4, 5.5, 13.1:O12, 13.1:O13, 13.2:I1",
    level="warning",
)
def cudagraph_none_with_capture_sizes(c: Mapping[str, Any]) -> RuleResult:
    """Sizes are computed once in step 12d; later switches to NONE (DeepEP HT, empty splitting ops) never clear them."""
    sizes = c["compilation_config.cudagraph_capture_sizes"] or ()
    top = c["compilation_config.max_cudagraph_capture_size"] or 0
    if c[_CG] is not CUDAGraphMode.NONE or not (sizes or top > 0):
        return None
    warmups = c["compilation_config.cudagraph_num_of_warmups"]
    return Outcome(
        message=f"quirk I1: cudagraph_mode is NONE but {len(sizes)} capture sizes "
        f"(max_cudagraph_capture_size={top}, cudagraph_num_of_warmups={warmups}) "
        "remain from step 12d; vLLM captures no graphs."
    )


@rule(
    "quirk.cudagraph-flags-not-migrated",
    title="use_cudagraph / full_cuda_graph disagree with cudagraph_mode",
    phase="finalize",
    kind="check",
    reads=(
        *_FINAL_GATE,
        _CG,
        "compilation_config.use_cudagraph",
        "compilation_config.full_cuda_graph",
    ),
    source=f"{_SRC}; ref step-19, 13.1:O17, 13.2:I3, 13.2:I10",
    level="warning",
)
def cudagraph_flags_not_migrated(c: Mapping[str, Any]) -> RuleResult:
    """Step 19 migrates the deprecated flags only on CUDA/ROCm under V1; elsewhere they keep their input values."""
    mode = c[_CG]
    if _final(c) or mode is None:
        return None
    use, full = c["compilation_config.use_cudagraph"], c["compilation_config.full_cuda_graph"]
    if bool(use) == (mode is not CUDAGraphMode.NONE) and bool(full) == mode.has_full_cudagraphs():
        return None
    return Outcome(
        message=f"quirk I3/I10: use_cudagraph={use} and full_cuda_graph={full} disagree with "
        f"cudagraph_mode={mode}: vLLM migrates the deprecated flags only on CUDA/ROCm under V1."
    )


@rule(
    "quirk.full-cuda-graph-not-idempotent",
    title="Resolved full_cuda_graph=True would collapse FULL_AND_PIECEWISE on re-validation",
    phase="finalize",
    kind="check",
    reads=(_CG, "compilation_config.full_cuda_graph"),
    source=f"{_SRC}; ref step-19, 13.2:I11",
    level="warning",
)
def full_cuda_graph_not_idempotent(c: Mapping[str, Any]) -> RuleResult:
    """``CompilationConfig.__post_init__`` turns ``full_cuda_graph=True`` into FULL, so the resolved config does not round-trip."""
    if c[_CG] is CUDAGraphMode.FULL_AND_PIECEWISE and c["compilation_config.full_cuda_graph"]:
        return Outcome(
            message="quirk I11: full_cuda_graph=True with cudagraph_mode=FULL_AND_PIECEWISE; "
            "re-validating this CompilationConfig collapses the mode to FULL."
        )
    return None


STEP_19 = all_of(
    "cudagraph.final-check", cascade_attn_warning, piecewise_needs_vllm_compile, migrate_deprecated_flags,
    title="Step 19 on CUDA/ROCm under V1: the cascade warning, the piecewise assertion, the flag migration",
    when=_final, reads=_FINAL_GATE, source=f"{_SRC}; ref step-19",
)
