"""Steps 18-24 of ``VllmConfig.__post_init__`` (phase ``finalize``), after the platform hook.

18 splitting ops (``CompilationConfig.set_splitting_ops_for_v1``, §5.5) — V1
and ``mode == VLLM_COMPILE`` re-read after the hook; 19 final CUDA-graph
checks and the deprecated-flag migration (CUDA/ROCm, V1); 20 dual batch
overlap; 22 the hybrid KV cache manager switches; 23 the debug dump path;
24 blocked FP8 weights. Step 21 (the ``instance_id`` fallback) is dead code:
step 1 always sets a clock value, which a deterministic resolution leaves empty
(``vllm.instance-id`` says so; ``quirk.instance-id-ignored`` flags a user value).

Ordering: the steps are one ``sequence`` (:data:`FINALIZE`). Step 22's gate (``not
disable_hybrid_kv_cache_manager``) is evaluated once, before any reason turns the
manager off, and every applicable warning is logged: an ``all_of`` group under that
gate. The cascade-attention warning of step 19 reads ``disable_cascade_attn`` before
step 20 sets it (O16): the sequence's declared order.

Step 23: ``Path.absolute()`` depends on the working directory; here it is the
``usage.cwd`` fact (``os.getcwd()`` when the Usage is built). ``expanduser()``
runs after ``absolute()`` and so never expands a leading ``~`` (I14).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, all_of, rule, sequence
from postinit.schema import CompilationMode, CUDAGraphMode

__all__ = [
    "ATTENTION_OPS",
    "attn_fusion_forces_full",
    "blocked_fp8_adds_quant_fp8",
    "cascade_attn_warning",
    "cudagraph_flags_not_migrated",
    "cudagraph_none_with_capture_sizes",
    "dbo_disables_cascade_attn",
    "dbo_requires_deepep",
    "debug_dump_path",
    "debug_dump_path_env",
    "debug_dump_path_tilde",
    "empty_splitting_ops_mode",
    "full_cuda_graph_not_idempotent",
    "hma_kv_events_disabled",
    "hma_off_chunked_local",
    "hma_off_chunked_local_eagle",
    "hma_off_kv_connector",
    "hma_off_kv_events",
    "hma_off_platform",
    "instance_id",
    "instance_id_ignored",
    "migrate_deprecated_flags",
    "piecewise_needs_vllm_compile",
    "splitting_ops",
]

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"
_SPLIT_SRC = "vllm/config/compilation.py CompilationConfig.set_splitting_ops_for_v1"
_V1 = "env.VLLM_USE_V1"
_MODE = "compilation_config.mode"
_CG = "compilation_config.cudagraph_mode"
_SPLIT = "compilation_config.splitting_ops"
_PARTITION = "compilation_config.use_inductor_graph_partition"
_ATTN_FUSION = "compilation_config.pass_config.enable_attn_fusion"
_OPS = "compilation_config.custom_ops"
_CASCADE = "model_config.disable_cascade_attn"
_HMA = "scheduler_config.disable_hybrid_kv_cache_manager"
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
_DEEPEP = ("deepep_low_latency", "deepep_high_throughput")
_EAGLE_METHODS = ("eagle", "eagle3", "mtp")
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
_KV_CONNECTOR_WARNING = (
    "Turning off hybrid kv cache manager because `--kv-transfer-config` is set. This will reduce "
    "the performance of vLLM on LLMs with sliding window attention or Mamba attention. If you are "
    "a developer of kv connector, please consider supporting hybrid kv cache manager for your "
    "connector by making sure your connector is a subclass of `SupportsHMA` defined in "
    "kv_connector/v1/base.py."
)
_CHUNKED_LOCAL_WARNING = (
    "There is a latency regression when using chunked local attention with the hybrid KV cache "
    "manager. Disabling it, by default. To enable it, set the environment "
    "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1."
)
_CASCADE_WARNING = (
    "No piecewise cudagraph for executing cascade attention. Will fall back to eager "
    "execution if a batch runs into cascade attentions"
)
_DBO_MESSAGE = (
    "Microbatching currently only supports the deepep_low_latency and deepep_high_throughput "
    "all2all backend. {backend} is not supported. To fix use --all2all-backend=deepep_low_latency "
    "or --all2all-backend=deepep_high_throughput and install the DeepEP kernels."
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


# --------------------------------------------------------------------------
# step 19: final CUDA graph checks (V1, CUDA/ROCm)
# --------------------------------------------------------------------------

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
    reads=(_CG, _MODE),
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
    if c[_MODE] != CompilationMode.VLLM_COMPILE:
        return Violation(
            "Compilation mode should be CompilationMode.VLLM_COMPILE when cudagraph_mode "
            f"piecewise cudagraphs is used, cudagraph_mode={mode}",
            hint="use -O3 (mode VLLM_COMPILE), or a cudagraph_mode without piecewise graphs "
            "(FULL, FULL_DECODE_ONLY, NONE)",
            error="AssertionError",
        )
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


STEP_19 = all_of(
    "cudagraph.final-check", cascade_attn_warning, piecewise_needs_vllm_compile, migrate_deprecated_flags,
    title="Step 19 on CUDA/ROCm under V1: the cascade warning, the piecewise assertion, the flag migration",
    when=_final, reads=_FINAL_GATE, source=f"{_SRC}; ref step-19",
)


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


# --------------------------------------------------------------------------
# step 20: dual batch overlap
# --------------------------------------------------------------------------


@rule(
    "parallel.dbo-requires-deepep",
    title="Dual batch overlap requires a DeepEP all2all backend",
    phase="finalize",
    kind="check",
    reads=("parallel_config.all2all_backend",),
    source=f"{_SRC}; ref step-20",
    message=_DBO_MESSAGE.format(backend="<backend>"),
    level="error",
)
def dbo_requires_deepep(c: Mapping[str, Any]) -> RuleResult:
    """Microbatching is only implemented for the DeepEP all2all kernels."""
    backend = c["parallel_config.all2all_backend"]
    if backend not in _DEEPEP:
        return Violation(
            _DBO_MESSAGE.format(backend=backend),
            hint="--all2all-backend=deepep_low_latency or deepep_high_throughput",
            error="AssertionError",
        )
    return None


@rule(
    "parallel.dbo-disables-cascade-attn",
    title="Dual batch overlap disables cascade attention",
    phase="finalize",
    kind="override",
    reads=("model_config", _CASCADE),
    writes=(_CASCADE,),
    source=f"{_SRC}; ref step-20, 13.1:O16",
    message="Disabling cascade attention when DBO is enabled.",
    level="warning",
)
def dbo_disables_cascade_attn(c: Mapping[str, Any]) -> RuleResult:
    """Cascade attention is not supported with microbatching.

    Without a model vLLM fails with an AttributeError here.
    """
    if c["model_config"] is None:
        return Violation(
            "'NoneType' object has no attribute 'disable_cascade_attn'",
            hint="enable_dbo needs a model_config",
            error="AttributeError",
        )
    if not c[_CASCADE]:
        return {_CASCADE: True}
    return None


def _dbo(c: Mapping[str, Any]) -> bool:
    """Dual batch overlap is on."""
    return bool(c["parallel_config.enable_dbo"])


STEP_20 = all_of(
    "parallel.dbo", dbo_requires_deepep, dbo_disables_cascade_attn,
    title="Step 20, dual batch overlap: a DeepEP all2all backend, no cascade attention",
    when=_dbo, reads=("parallel_config.enable_dbo",), source=f"{_SRC}; ref step-20",
)


# --------------------------------------------------------------------------
# steps 1 and 21: instance id
# --------------------------------------------------------------------------


@rule(
    "vllm.instance-id",
    title="instance_id is drawn at run time",
    phase="finalize",
    kind="check",
    reads=("instance_id",),
    source=f"{_SRC}; ref step-1, step-21",
    message="instance_id is left empty: vLLM sets it to str(time.time_ns()) in step 1; the "
    "random_uuid()[:5] fallback of step 21 never runs.",
    level="debug",
)
def instance_id(c: Mapping[str, Any]) -> RuleResult:
    """Every VllmConfig gets a fresh id; a deterministic resolution cannot reproduce a clock value."""
    return Outcome.log() if c["instance_id"] == "" else None


@rule(
    "quirk.instance-id-ignored",
    title="A user-supplied instance_id is discarded",
    phase="finalize",
    kind="check",
    reads=("instance_id",),
    source=f"{_SRC}; ref step-1, 13.2:I14",
    level="warning",
)
def instance_id_ignored(c: Mapping[str, Any]) -> RuleResult:
    """Step 1 overwrites ``instance_id`` unconditionally, so the value given is never used."""
    if c["instance_id"] != "":
        return Outcome(
            message=f"quirk I14: instance_id {c['instance_id']!r} is discarded; vLLM always sets "
            "str(time.time_ns()) in step 1."
        )
    return None


# --------------------------------------------------------------------------
# step 22: hybrid KV cache manager switches
# --------------------------------------------------------------------------

_CHUNKED = ("model_config", "model_config.attention_chunk_size")
_EAGLE = ("speculative_config", "speculative_config.method")


def _hma_open(c: Mapping[str, Any]) -> bool:
    """Step 22's gate: V1 and the hybrid KV cache manager not (yet) disabled."""
    return bool(c[_V1]) and not c[_HMA]


def _chunked_local(c: Mapping[str, Any]) -> bool:
    return c["model_config"] is not None and c["model_config.attention_chunk_size"] is not None


def _eagle(c: Mapping[str, Any]) -> bool:
    return c["speculative_config"] is not None and c["speculative_config.method"] in _EAGLE_METHODS


_HMA_OFF: dict[str, Any] = dict(phase="finalize", kind="override", writes=(_HMA,),
                                ensures=lambda c: c[_HMA] is True)
"""The header every reason to turn the hybrid KV cache manager off shares."""


@rule(
    "scheduler.hma-off-platform",
    title="Hybrid KV cache manager off: platform without support",
    reads=("platform.support_hybrid_kv_cache",),
    source=f"{_SRC}; ref step-22",
    **_HMA_OFF,
)
def hma_off_platform(c: Mapping[str, Any]) -> RuleResult:
    """The hybrid KV cache manager is not supported on this (non-GPU) platform."""
    return None if c["platform.support_hybrid_kv_cache"] else {_HMA: True}


@rule(
    "scheduler.hma-off-kv-connector",
    title="Hybrid KV cache manager off: KV connector configured",
    reads=("kv_transfer_config",),
    source=f"{_SRC}; ref step-22",
    message=_KV_CONNECTOR_WARNING,
    level="warning",
    **_HMA_OFF,
)
def hma_off_kv_connector(c: Mapping[str, Any]) -> RuleResult:
    """KV connectors do not support the hybrid KV cache manager yet (unless they implement SupportsHMA).

    Warned about even when an earlier reason turned the manager off already.
    """
    return Outcome.log({_HMA: True}) if c["kv_transfer_config"] is not None else None


@rule(
    "scheduler.hma-off-kv-events",
    title="Hybrid KV cache manager off: KV events config present",
    reads=("kv_events_config",),
    source=f"{_SRC}; ref step-22, 13.2:I13",
    **_HMA_OFF,
)
def hma_off_kv_events(c: Mapping[str, Any]) -> RuleResult:
    """The hybrid KV cache manager is not compatible with KV cache events.

    vLLM tests only that a ``kv_events_config`` exists, even with events disabled (I13).
    """
    return {_HMA: True} if c["kv_events_config"] is not None else None


@rule(
    "scheduler.hma-off-chunked-local-eagle",
    title="Hybrid KV cache manager off: chunked local attention with EAGLE",
    reads=(*_CHUNKED, *_EAGLE),
    source=f"{_SRC}; ref step-22",
    **_HMA_OFF,
)
def hma_off_chunked_local_eagle(c: Mapping[str, Any]) -> RuleResult:
    """The hybrid KV cache manager does not yet support chunked local attention with EAGLE."""
    return {_HMA: True} if _chunked_local(c) and _eagle(c) else None


@rule(
    "scheduler.hma-off-chunked-local",
    title="Hybrid KV cache manager off: chunked local attention",
    reads=(*_CHUNKED, *_EAGLE, "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"),
    source=f"{_SRC}; ref step-22",
    message=_CHUNKED_LOCAL_WARNING,
    level="warning",
    **_HMA_OFF,
)
def hma_off_chunked_local(c: Mapping[str, Any]) -> RuleResult:
    """Chunked local attention regresses latency with the hybrid KV cache manager unless explicitly allowed."""
    allowed = c["env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"]
    if _chunked_local(c) and not _eagle(c) and not allowed:
        return Outcome.log({_HMA: True})
    return None


STEP_22 = all_of(
    "scheduler.hma-off", hma_off_platform, hma_off_kv_connector, hma_off_kv_events, hma_off_chunked_local_eagle,
    hma_off_chunked_local,
    title="Step 22: every reason that turns the hybrid KV cache manager off (gate tested once)",
    when=_hma_open, reads=(_V1, _HMA), source=f"{_SRC}; ref step-22",
)


@rule(
    "quirk.hma-off-by-disabled-kv-events",
    title="A disabled kv_events_config still turns the hybrid KV cache manager off",
    phase="finalize",
    kind="check",
    reads=(_V1, _HMA, "kv_events_config", "kv_events_config.enable_kv_cache_events"),
    source=f"{_SRC}; ref step-22, 6, 13.2:I13",
    level="warning",
)
def hma_kv_events_disabled(c: Mapping[str, Any]) -> RuleResult:
    """vLLM checks that the object exists, not that events are enabled; the config is also not a hash factor."""
    present = c["kv_events_config"] is not None
    if c[_V1] and present and not c["kv_events_config.enable_kv_cache_events"] and c[_HMA]:
        return Outcome(
            message="quirk I13: kv_events_config is set with enable_kv_cache_events=False, yet vLLM "
            "disables the hybrid KV cache manager for its mere presence (and does not hash it)."
        )
    return None


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
    if method == "fp8":
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


FINALIZE = sequence(
    "vllm.finalize",
    splitting_ops, attn_fusion_forces_full, empty_splitting_ops_mode, STEP_19, STEP_20, STEP_22, debug_dump_path,
    debug_dump_path_env, blocked_fp8_adds_quant_fp8,
    title="Steps 18-24 in vLLM's order: splitting ops, the final CUDA-graph check, DBO, HMA, dump path, FP8",
    source=_SRC,
)
