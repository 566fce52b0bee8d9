#!/usr/bin/env python3
"""Config oracle for the official vllm==0.34.0 wheel.

Runs vLLM's REAL config resolution -- every sub-config's own __post_init__,
`VllmConfig.__post_init__`, the platform hooks it calls
(`apply_config_platform_defaults`, `check_and_update_config`, ...) and the
model hooks (`MODELS_CONFIG_MAP`) -- for one JSON "case" at a time, on a
CPU-only machine, and prints what vLLM resolved as JSON.

    python vllm_oracle.py < case.json              # one case from stdin
    python vllm_oracle.py case.json                # one case, JSON on stdout
    python vllm_oracle.py cases/*.json -o out/     # many cases, one JSON each
    python vllm_oracle.py cases/*.json --check expected/   # re-run and diff
    python vllm_oracle.py --fresh cases/*.json -o out/     # interpreter per case

A case either gives sub-config keyword arguments (config mode) or a command
line (argv mode: vLLM's own parser, `EngineArgs.from_cli_args` and
`create_engine_config(usage_context)`, as `vllm serve` / `LLM(...)` do).  A
config-mode case that also names `usage_context` (null for none) is a Python
caller (caller mode, `"caller": "EngineArgs"`, the only one so far):
`EngineArgs(**kwargs).create_engine_config(usage_context)`, the keyword
arguments read off the case's sub-config dicts -- a sub-config EngineArgs takes
whole (compilation_config, attention_config, kernel_config, speculative_config,
kv_transfer_config, ...; parallel_config's eplb_config and
fault_tolerance_config are EngineArgs fields too) is passed as the dict, as
given; every other sub-config's fields are EngineArgs fields of the same name
(model_config.max_model_len -> max_model_len; a `lora_config` adds
enable_lora=True); `engine_args` gives EngineArgs keywords that are no
sub-config field (ir_op_priority, quantization_config, ...).  A dict is what
only a Python caller passes: EngineArgs.__post_init__ builds the sub-config from
it (`if isinstance(self.compilation_config, dict)`), where the CLI's parser has
built the object already. The
OPENAI_API_SERVER usage is `vllm serve` itself: its parser (make_arg_parser,
the server's flags too), its validate and its launcher choice
(ServeSubcommand.cmd: api_server_count defaulting, several API servers as
`_api_process_count`, headless) come before the engine config.

Real: everything under vllm.config, vllm.platforms, vllm.engine.arg_utils,
the model registry and model classes, the compiled extensions of the wheel.
Simulated: only the answers to hardware questions (device capability, name,
memory, count, NVLink, gcnArchName, host RAM) -- see README.md.

Design follows the 0.11.1 oracle of the seed work (../shared/oracle): cases
are grouped by (platform kind [+ ROCm arch], env); each group runs in a
worker process that applies the env, installs the simulated platform and
imports vLLM once, then forks one child per case, so per-process state
(warning_once caches, functools caches, env mutations vLLM performs) never
leaks from one case into the next.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import enum
import json
import logging
import math
import os
import re
import sys
import time
import traceback
import types
import warnings
from pathlib import Path
from typing import Any

ORACLE_DIR = Path(__file__).resolve().parent
# Fixtures live beside the oracle's folder (tests/golden/models); case model
# names are resolved there and written as "models/<name>" (the worker chdirs
# to tests/golden), so hashes do not depend on the checkout location.
GOLDEN_DIR = ORACLE_DIR.parent
MODELS_DIR = GOLDEN_DIR / "models"
SCHEMA_VERSION = 1
TARGET_VLLM = "0.34.0"

BASE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # stdout carries the JSON: vLLM must not configure its own handlers.
    "VLLM_CONFIGURE_LOGGING": "0",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    # The torch compile / inductor caches are never touched by config
    # resolution, but keep them out of $HOME anyway.
    "TORCHINDUCTOR_CACHE_DIR": os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                            "vllm-oracle-0.34.0-inductor"),
}
# vLLM caches inspected model-class records here (keyed by the model file's
# hash only): a folder of our own, never shared with another vLLM version.
BASE_ENV_DEFAULTS = {
    "VLLM_CACHE_ROOT": os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                    "vllm-oracle-cache-0.34.0"),
}

CUDA_DEVICE_NAMES = {
    70: "Tesla V100-SXM2-32GB",
    75: "Tesla T4",
    80: "NVIDIA A100-SXM4-80GB",
    86: "NVIDIA RTX A6000",
    89: "NVIDIA L40S",
    90: "NVIDIA H100 80GB HBM3",
    100: "NVIDIA B200",
    103: "NVIDIA B300 SXM6 AC",
    120: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
    121: "NVIDIA GB10",
}
CUDA_DEVICE_MEM_GB = {70: 32, 75: 16, 80: 80, 86: 48, 89: 48, 90: 80,
                      100: 180, 103: 270, 120: 96, 121: 128}
SM_COUNT = {70: 80, 75: 40, 80: 108, 86: 84, 89: 142, 90: 132, 100: 148,
            103: 148, 120: 188, 121: 48}
ROCM_ARCH = {  # gcnArchName -> (capability, device name, memory GiB, CUs)
    "gfx90a": ((9, 0), "AMD Instinct MI250X", 64, 110),
    "gfx942": ((9, 4), "AMD Instinct MI300X", 192, 304),
    "gfx950": ((9, 5), "AMD Instinct MI355X", 288, 256),
    "gfx1100": ((11, 0), "AMD Radeon RX 7900 XTX", 24, 96),
}


# ---------------------------------------------------------------------------
# Case normalisation (no vLLM import)
# ---------------------------------------------------------------------------

def normalize_platform(spec: Any) -> dict:
    """"cuda", "cuda:90", "rocm", "rocm:gfx950", "cpu" or an object."""
    if spec is None:
        spec = "cuda:90"
    if isinstance(spec, str):
        kind, _, cap = spec.partition(":")
        spec = {"kind": kind}
        if cap:
            if kind == "rocm" and cap.startswith("gfx"):
                spec["gcn_arch"] = cap
            else:
                spec["capability"] = int(cap)
    spec = dict(spec)
    kind = spec.setdefault("kind", "cuda").lower()
    spec["kind"] = kind
    if kind == "cuda":
        cap = spec.get("capability", 90)
        if isinstance(cap, (list, tuple)):
            cap = int(cap[0]) * 10 + int(cap[1])
        spec["capability"] = int(cap)
        spec.setdefault("device_name",
                        CUDA_DEVICE_NAMES.get(spec["capability"], "NVIDIA GPU"))
        spec.setdefault("total_memory_gb",
                        CUDA_DEVICE_MEM_GB.get(spec["capability"], 80))
        spec.setdefault("multi_processor_count",
                        SM_COUNT.get(spec["capability"], 132))
        spec.setdefault("device_count", 8)
        spec.setdefault("fully_connected", True)
    elif kind == "rocm":
        arch = spec.setdefault("gcn_arch", "gfx942")
        cap, name, mem, cus = ROCM_ARCH.get(arch, ((9, 4), "AMD GPU", 192, 304))
        c = spec.get("capability")
        if c is None:
            spec["capability"] = cap[0] * 10 + cap[1]
        elif isinstance(c, (list, tuple)):
            spec["capability"] = int(c[0]) * 10 + int(c[1])
        spec.setdefault("device_name", name)
        spec.setdefault("total_memory_gb", mem)
        spec.setdefault("multi_processor_count", cus)
        spec.setdefault("device_count", 8)
        spec.setdefault("fully_connected", True)
        spec.setdefault("aiter_found", False)
    elif kind == "cpu":
        # CPU feature probes (torch.cpu._is_amx_tile_supported /
        # _is_avx512_bf16_supported) that CpuPlatform.check_and_update_config
        # reads: fixed by the spec so that results do not depend on the host.
        # Default: a current x86 server CPU (Sapphire Rapids or newer), which
        # is also what the machine that produced the corpus has.
        spec.setdefault("cpu_amx", True)
        spec.setdefault("cpu_avx512_bf16", True)
    else:
        raise ValueError(f"unknown platform kind {kind!r} (cuda|rocm|cpu)")
    # Host RAM as psutil would report it (fixed: results must not depend on
    # the machine that runs the oracle).
    spec.setdefault("host_memory_gb", 1024)
    # vllm.triton_utils.HAS_TRITON: whether Triton has exactly one active
    # driver -- true on a GPU host (the CUDA/HIP driver) and on an x86 host
    # running vLLM's CPU build (triton-cpu); false here, where no driver is
    # active.  Default true, as on the hosts being simulated.
    spec.setdefault("triton_available", True)
    # vllm.utils.flashinfer.has_flashinfer(): flashinfer-python importable
    # AND (flashinfer-cubin installed OR nvcc + ninja on the host).  vLLM
    # 0.34.0 pins flashinfer-python==0.7.3, which is not on PyPI, and a
    # pip-only host has no nvcc: default false (the real answer here).
    spec.setdefault("flashinfer_available", False)
    return spec


# Config-mode keys besides the sub-config objects.
SCALAR_KEYS = {"optimization_level", "performance_mode", "shutdown_timeout",
               "additional_config"}
META_KEYS = {"name", "description", "comment", "tags", "platform", "env", "model"}
ARGV_CASE_KEYS = {"name", "description", "comment", "tags", "platform", "env",
                  "argv", "usage_context"}
USAGE_CONTEXTS = ("OPENAI_API_SERVER", "LLM_CLASS", "API_SERVER",
                  "OPENAI_BATCH_RUNNER", "ENGINE_CONTEXT", "UNKNOWN_CONTEXT")
# Caller mode (a Python caller): config-mode keys plus these.
CALLERS = ("EngineArgs",)
CALLER_KEYS = {"usage_context", "caller", "engine_args"}

# Every sub-config field of vllm 0.34.0's VllmConfig, in declaration order
# (checked against dataclasses.fields(VllmConfig) at run time).
SUB_KEYS = [
    "model_config", "cache_config", "parallel_config", "scheduler_config",
    "device_config", "load_config", "offload_config", "attention_config",
    "aux_output_config", "engram_config", "mamba_config", "kernel_config",
    "lora_config", "speculative_config", "watermark_config",
    "diffusion_config", "structured_outputs_config", "observability_config",
    "logging_config", "compilation_config", "profiler_config",
    "kv_transfer_config", "kv_events_config", "ec_transfer_config",
    "ec_manager_config", "reasoning_config", "weight_transfer_config",
    "watchdog_config",
]
SUB_CLASSES = {
    "model_config": "ModelConfig", "cache_config": "CacheConfig",
    "parallel_config": "ParallelConfig", "scheduler_config": "SchedulerConfig",
    "device_config": "DeviceConfig", "load_config": "LoadConfig",
    "offload_config": "OffloadConfig", "attention_config": "AttentionConfig",
    "aux_output_config": "AuxOutputConfig", "engram_config": "EngramConfig",
    "mamba_config": "MambaConfig", "kernel_config": "KernelConfig",
    "lora_config": "LoRAConfig", "speculative_config": "SpeculativeConfig",
    "watermark_config": "WatermarkConfig", "diffusion_config": "DiffusionConfig",
    "structured_outputs_config": "StructuredOutputsConfig",
    "observability_config": "ObservabilityConfig",
    "logging_config": "LoggingConfig", "compilation_config": "CompilationConfig",
    "profiler_config": "ProfilerConfig", "kv_transfer_config": "KVTransferConfig",
    "kv_events_config": "KVEventsConfig", "ec_transfer_config": "ECTransferConfig",
    "ec_manager_config": "EncoderCacheManagerConfig",
    "reasoning_config": "ReasoningConfig",
    "weight_transfer_config": "WeightTransferConfig",
    "watchdog_config": "WatchdogConfig",
}
# VllmConfig defaults these to None: built only when the case gives them.
OPTIONAL_SUBS = {"engram_config", "lora_config", "speculative_config",
                 "watermark_config", "diffusion_config", "kv_transfer_config",
                 "kv_events_config", "ec_transfer_config", "reasoning_config",
                 "weight_transfer_config"}
# Construction order in config mode: EngineArgs.create_engine_config's order
# (logging, device, model, cache, parallel, speculative, diffusion, watermark,
# scheduler, lora, attention, mamba, kernel, load, structured outputs,
# observability, compilation, offload), then those it passes through.
BUILD_ORDER = [
    "logging_config", "device_config", "model_config", "cache_config",
    "parallel_config", "speculative_config", "diffusion_config",
    "watermark_config", "scheduler_config", "lora_config", "attention_config",
    "mamba_config", "kernel_config", "load_config", "structured_outputs_config",
    "observability_config", "compilation_config", "offload_config",
    "aux_output_config", "engram_config", "kv_transfer_config",
    "kv_events_config", "ec_transfer_config", "ec_manager_config",
    "reasoning_config", "profiler_config", "weight_transfer_config",
    "watchdog_config",
]
assert sorted(BUILD_ORDER) == sorted(SUB_KEYS)
CASE_KEYS = META_KEYS | SCALAR_KEYS | set(SUB_KEYS)


def normalize_case(case: dict, name: str | None = None) -> dict:
    if not isinstance(case, dict):
        raise ValueError("a case must be a JSON object")
    case = copy.deepcopy(case)
    if "argv" in case:
        unknown = sorted(set(case) - ARGV_CASE_KEYS)
        if unknown:
            raise ValueError(f"unknown keys {unknown} in an argv case; allowed: "
                             f"{sorted(ARGV_CASE_KEYS)}")
        argv = case["argv"]
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv must be a list of strings")
        uc = case.get("usage_context", "OPENAI_API_SERVER")
        if uc is not None and uc not in USAGE_CONTEXTS:
            raise ValueError(f"usage_context {uc!r}: one of {USAGE_CONTEXTS} or null")
        case["usage_context"] = uc
    elif CALLER_KEYS & set(case):
        unknown = sorted(set(case) - CASE_KEYS - CALLER_KEYS)
        if unknown:
            raise ValueError(f"unknown keys {unknown} in a caller-mode case; allowed: "
                             f"{sorted(CASE_KEYS | CALLER_KEYS)}")
        uc = case.setdefault("usage_context", "ENGINE_CONTEXT")
        if uc is not None and uc not in USAGE_CONTEXTS:
            raise ValueError(f"usage_context {uc!r}: one of {USAGE_CONTEXTS} or null")
        caller = case.setdefault("caller", "EngineArgs")
        if caller not in CALLERS:
            raise ValueError(f"caller {caller!r}: one of {CALLERS}")
        if not isinstance(case.get("engine_args", {}), dict):
            raise ValueError("engine_args must be an object (EngineArgs keyword arguments)")
    else:
        unknown = sorted(set(case) - CASE_KEYS)
        if unknown:
            raise ValueError(f"unknown case keys {unknown}; allowed: {sorted(CASE_KEYS)}")
    case.setdefault("name", name or "case")
    case["platform"] = normalize_platform(case.get("platform"))
    case["env"] = {k: (None if v is None else str(v))
                   for k, v in (case.get("env") or {}).items()}
    return case


def group_key(case: dict) -> str:
    plat = case["platform"]
    # vllm.platforms.rocm derives its _ON_GFX* flags from gcnArchName once,
    # at import: one worker per architecture, as on a real host.
    kind = plat["kind"] + (":" + plat["gcn_arch"] if plat["kind"] == "rocm" else "")
    return json.dumps([kind, sorted(case["env"].items())])


# ---------------------------------------------------------------------------
# Env, logging, driver stand-in, simulated platform
# ---------------------------------------------------------------------------

def apply_env(env: dict) -> None:
    for k, v in BASE_ENV.items():
        os.environ[k] = v
    for k, v in BASE_ENV_DEFAULTS.items():
        os.environ.setdefault(k, v)
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


DEBUG_LOGGERS = ("vllm.config", "vllm.platforms", "vllm.model_executor.models.config",
                 "vllm.engine.arg_utils", "vllm.multimodal.registry")
ALL_LOGS = False
_HEX = re.compile(r"0x[0-9a-fA-F]{6,}")
# absolute paths of this checkout / the venv inside messages
_PATHS: list[tuple[str, str]] = []


def _normalize_msg(msg: str) -> str:
    msg = _HEX.sub("0x?", msg)
    for a, b in _PATHS:
        msg = msg.replace(a, b)
    return msg


def _rel(path: str) -> str:
    p = path.replace("\\", "/")
    i = p.rfind("/vllm/")
    return p[i + 1:] if i >= 0 else os.path.basename(p)


class CaptureHandler(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records: list[dict] = []
        self.enabled = True

    def emit(self, record: logging.LogRecord) -> None:
        if not self.enabled:
            return
        if (record.levelno < logging.INFO and not ALL_LOGS
                and not record.name.startswith(DEBUG_LOGGERS)):
            return
        try:
            msg = _normalize_msg(record.getMessage())
        except Exception as e:  # pragma: no cover
            msg = f"<unformattable log message {record.msg!r}: {e}>"
        rec = {"level": record.levelname, "logger": record.name, "msg": msg,
               "where": f"{_rel(record.pathname)}:{record.lineno}"}
        if record.exc_info and record.exc_info[1] is not None:
            e = record.exc_info[1]
            rec["exc"] = _normalize_msg(f"{type(e).__name__}: {e}")[:2000]
        self.records.append(rec)


CAPTURE = CaptureHandler()


def install_logging() -> None:
    vlog = logging.getLogger("vllm")
    vlog.setLevel(logging.DEBUG)
    if CAPTURE not in vlog.handlers:
        vlog.addHandler(CAPTURE)
    vlog.propagate = False


DRIVER_STUB: str | None = None
STUBBED: list[str] = []
# The wheel's compiled extensions that must load for real (they register the
# torch ops that config resolution and model imports query).
EXTENSIONS = ("vllm._C_stable_libtorch", "vllm._moe_C_stable_libtorch")


def preload_driver_stub() -> None:
    """The wheel's extensions need libcuda.so.1 (the NVIDIA driver library),
    absent here: load setup.sh's stand-in RTLD_GLOBAL first."""
    global DRIVER_STUB
    import ctypes

    for c in (os.environ.get("ORACLE_LIBCUDA_STUB"),
              os.path.join(sys.prefix, "lib", "oracle-stubs", "libcuda.so.1")):
        if c and os.path.isfile(c):
            try:
                ctypes.CDLL(c, mode=ctypes.RTLD_GLOBAL)
                DRIVER_STUB = c
                return
            except OSError:
                pass


def import_extensions() -> None:
    """Import the real compiled extensions; an import failure is recorded in
    oracle.stubbed_modules (must stay []), never silently replaced."""
    import importlib

    for name in EXTENSIONS:
        try:
            importlib.import_module(name)
        except ImportError:
            mod = types.ModuleType(name)
            mod.__oracle_stub__ = True
            sys.modules[name] = mod
            STUBBED.append(name)


_REAL_TORCH_CUDA: dict = {}


def patch_torch_cuda_probes(spec: dict) -> None:
    """torch.cuda device queries answer for the simulated device (RocmPlatform
    reads gcnArchName through them; CudaPlatform.num_compute_units and
    is_integrated_gpu read get_device_properties)."""
    import torch

    names = ("get_device_properties", "get_device_capability",
             "get_device_name", "device_count", "is_available")
    if not _REAL_TORCH_CUDA:
        for n in names:
            _REAL_TORCH_CUDA[n] = getattr(torch.cuda, n)
    if spec["kind"] == "cpu":
        for n in names:
            setattr(torch.cuda, n, _REAL_TORCH_CUDA[n])
        amx = bool(spec.get("cpu_amx", True))
        bf16 = bool(spec.get("cpu_avx512_bf16", True))
        torch.cpu._is_amx_tile_supported = lambda: amx
        torch.cpu._is_avx512_bf16_supported = lambda: bf16
        return
    major, minor = divmod(spec["capability"], 10)
    props = types.SimpleNamespace(
        name=spec["device_name"], major=major, minor=minor,
        total_memory=int(spec["total_memory_gb"] * (1 << 30)),
        multi_processor_count=int(spec["multi_processor_count"]),
        gcnArchName=spec.get("gcn_arch", "") if spec["kind"] == "rocm" else "",
        is_integrated=False, warp_size=64 if spec["kind"] == "rocm" else 32,
        L2_cache_size=50 * (1 << 20),
    )
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.get_device_capability = lambda device=None: (major, minor)
    torch.cuda.get_device_name = lambda device=None: spec["device_name"]
    torch.cuda.device_count = lambda: int(spec["device_count"])
    # Left real (False): torch.cuda.is_available() -- it initialises the
    # driver, and config resolution must not depend on it.
    torch.cuda.is_available = _REAL_TORCH_CUDA["is_available"]


def _probe_attrs(spec: dict, Platform, DeviceCapability) -> dict:
    major, minor = divmod(spec["capability"], 10)
    cap = DeviceCapability(major, minor)
    mem = int(spec["total_memory_gb"] * (1 << 30))
    count = int(spec["device_count"])
    name = spec["device_name"]
    fully = bool(spec["fully_connected"])
    return {
        "get_device_capability": classmethod(lambda cls, device_id=0: cap),
        # the generic implementation (reads get_device_capability above)
        "has_device_capability": classmethod(
            lambda cls, c, device_id=0: Platform.has_device_capability.__func__(
                cls, c, device_id)),
        "get_device_name": classmethod(lambda cls, device_id=0: name),
        "get_device_uuid": classmethod(
            lambda cls, device_id=0: f"GPU-oracle-{device_id:08d}"),
        "get_device_total_memory": classmethod(lambda cls, device_id=0: mem),
        "is_fully_connected": classmethod(lambda cls, ids: fully),
        "device_count": classmethod(lambda cls: count),
        "get_device_numa_node": classmethod(lambda cls, device_id=0: 0),
        "get_all_device_numa_nodes": classmethod(lambda cls: [0] * count),
        "get_all_gpu_pci_bus_ids": classmethod(
            lambda cls: {i: f"00000000:{i + 0x10:02X}:00.0" for i in range(count)}),
        "is_integrated_gpu": classmethod(lambda cls, device_id=0: False),
        "num_compute_units": classmethod(
            lambda cls, device_id=0: int(spec["multi_processor_count"])),
        "log_warnings": classmethod(lambda cls: None),
    }


def make_platform(spec: dict):
    """An instance of the real vLLM platform class whose hardware-probing
    classmethods are overridden in a subclass (nothing else)."""
    from vllm.platforms.interface import DeviceCapability, Platform

    kind = spec["kind"]
    if kind == "cuda":
        import vllm.platforms.cuda as cuda_mod

        attrs = _probe_attrs(spec, Platform, DeviceCapability)
        attrs["_get_physical_device_name"] = classmethod(
            lambda cls, device_id=0: spec["device_name"])
        # NVIDIA Confidential Computing: an NVML query on a real host; the
        # simulated host has it off.
        attrs["is_confidential_compute"] = classmethod(lambda cls: False)
        major = spec["capability"] // 10
        attrs["is_arch_support_pdl"] = classmethod(lambda cls: major >= 9)
        return type("OracleSimCudaPlatform", (cuda_mod.NvmlCudaPlatform,), attrs)()
    if kind == "rocm":
        import vllm.platforms.rocm as rocm_mod

        attrs = _probe_attrs(spec, Platform, DeviceCapability)
        return type("OracleSimRocmPlatform", (rocm_mod.RocmPlatform,), attrs)()
    if kind == "cpu":
        import vllm.platforms.cpu as cpu_mod

        # This machine is a CPU: the real class, nothing overridden.
        return cpu_mod.CpuPlatform()
    raise ValueError(kind)


def install_platform(spec: dict):
    import vllm.platforms as platforms_mod

    patch_torch_cuda_probes(spec)
    plat = make_platform(spec)
    platforms_mod._current_platform = plat
    # `from vllm.platforms import current_platform` copies: rebind them all.
    for mod in list(sys.modules.values()):
        mname = getattr(mod, "__name__", "") or ""
        if not mname.startswith("vllm") or mname == "vllm.platforms":
            continue
        d = getattr(mod, "__dict__", None)
        if d is not None and "current_platform" in d:
            d["current_platform"] = plat
    kind = spec["kind"]
    # Host RAM (psutil.virtual_memory().total through get_cpu_memory).
    host_mem = int(spec["host_memory_gb"] * (1 << 30))
    try:
        import vllm.utils.mem_utils as mu

        mu.get_cpu_memory = lambda: host_mem
    except Exception:
        pass
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if (d is not None and d.get("get_cpu_memory") is not None
                and (getattr(mod, "__name__", "") or "").startswith("vllm")):
            d["get_cpu_memory"] = lambda: host_mem
    # GPU counts queried without the platform object.
    count = int(spec.get("device_count", 0)) if kind != "cpu" else 0
    fake_count = (lambda cuda_visible_devices=None: count)
    for modname, attr in (("vllm.utils.torch_utils", "_cuda_device_count_stateless"),
                          ("vllm.utils.torch_utils", "cuda_device_count_stateless"),
                          ("vllm.platforms.cuda", "_cuda_device_count_stateless"),
                          ("vllm.platforms.rocm", "_rocm_device_count_stateless")):
        mod = sys.modules.get(modname)
        if mod is not None and hasattr(mod, attr):
            setattr(mod, attr, fake_count)
    # Triton availability (see normalize_platform): rebind the flag wherever
    # a vllm module holds a copy; readers import it at call time.
    has_triton = bool(spec.get("triton_available", True))
    for mod in list(sys.modules.values()):
        mname = getattr(mod, "__name__", "") or ""
        d = getattr(mod, "__dict__", None)
        if mname.startswith("vllm") and d is not None and "HAS_TRITON" in d:
            d["HAS_TRITON"] = has_triton
    try:
        import vllm.utils.flashinfer as fi

        if not hasattr(fi, "_oracle_real_has_flashinfer"):
            fi._oracle_real_has_flashinfer = fi.has_flashinfer
        if spec.get("flashinfer_available"):
            fi.has_flashinfer = lambda: True
        else:
            fi.has_flashinfer = fi._oracle_real_has_flashinfer
    except Exception:
        pass
    if kind == "rocm":
        try:
            import vllm._aiter_ops as aiter_ops

            # whether the ROCm `aiter` package is importable (never, here)
            aiter_ops.IS_AITER_FOUND = bool(spec.get("aiter_found", False))
        except Exception:
            pass
    return plat


# ---------------------------------------------------------------------------
# Serialisation
# ---------------------------------------------------------------------------

EXTRA_ATTRS = {
    "model_config": [
        "architecture", "architectures", "runner_type", "convert_type",
        "is_encoder_decoder", "is_hybrid", "use_mla", "attention_chunk_size",
        "is_multimodal_model", "is_deepseek_mla", "has_inner_state",
        "is_attention_free", "uses_mrope", "is_matryoshka", "head_dtype",
        "is_moe", "is_mm_prefix_lm", "is_quantized"],
    "scheduler_config": ["chunked_prefill_enabled"],
    "compilation_config": ["use_breakable_cudagraph"],
    "parallel_config": ["world_size", "world_size_across_dp", "use_ray",
                        "use_sequence_parallel_moe", "use_ubatching",
                        "use_all2all"],
    "speculative_config": ["uses_target_hidden_states", "use_eagle"],
    "cache_config": [],
}
# Values that change from run to run: under "volatile" only.
VOLATILE = {
    "vllm_config": {"instance_id"},
    "parallel_config": {"data_parallel_master_port", "_data_parallel_master_port_list",
                        "_api_process_count", "_api_process_rank"},
    "kv_transfer_config": {"engine_id"},
    "ec_transfer_config": {"engine_id"},
}
VOLATILE_BY_CLASS = {"VllmConfig": VOLATILE["vllm_config"],
                     "ParallelConfig": VOLATILE["parallel_config"],
                     "KVTransferConfig": VOLATILE["kv_transfer_config"],
                     "ECTransferConfig": VOLATILE["ec_transfer_config"]}
SKIP_FIELDS = {"model_config": {"hf_config", "hf_text_config", "encoder_config"}}


def ser(v: Any, depth: int = 0) -> Any:
    import torch

    if depth > 8:
        return _normalize_msg(repr(v))
    if v is None or isinstance(v, (bool, str)):
        return _normalize_msg(v) if isinstance(v, str) else v
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return repr(v) if (math.isnan(v) or math.isinf(v)) else v
    if isinstance(v, torch.dtype):
        return str(v).replace("torch.", "")
    if isinstance(v, Path):
        return _normalize_msg(str(v))
    if isinstance(v, type) or isinstance(v, (types.FunctionType,
                                             types.BuiltinFunctionType,
                                             types.MethodType)):
        return (f"<{type(v).__name__} {getattr(v, '__module__', '?')}."
                f"{getattr(v, '__qualname__', repr(v))}>")
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        out = {}
        skip = VOLATILE_BY_CLASS.get(type(v).__name__, ())
        for f in dataclasses.fields(v):
            if f.name in skip:
                continue
            try:
                out[f.name] = ser(getattr(v, f.name), depth + 1)
            except Exception as e:
                out[f.name] = f"<error {type(e).__name__}: {e}>"
        return out
    if isinstance(v, dict):
        return {str(k): ser(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        items = [ser(x, depth + 1) for x in v]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(v, (list, tuple)):
        return [ser(x, depth + 1) for x in v]
    try:
        from transformers import PretrainedConfig

        if isinstance(v, PretrainedConfig):
            return f"<{type(v).__name__}>"
    except Exception:
        pass
    if hasattr(v, "model_dump"):
        try:
            return ser(v.model_dump(), depth + 1)
        except Exception:
            pass
    return _normalize_msg(repr(v))


def _compress_padding(lst: list) -> list:
    runs: list[list[int]] = []
    for i, p in enumerate(lst):
        if runs and runs[-1][2] == p and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i, p])
    return runs


def snapshot(obj: Any, key: str) -> Any:
    """Every dataclass field of a sub-config, plus a few properties."""
    if obj is None:
        return None
    out: dict[str, Any] = {}
    skip = SKIP_FIELDS.get(key, set()) | VOLATILE.get(key, set())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        was = CAPTURE.enabled
        CAPTURE.enabled = False  # reading attributes must not add log records
        try:
            if dataclasses.is_dataclass(obj):
                for f in dataclasses.fields(obj):
                    if f.name in skip:
                        continue
                    try:
                        val = getattr(obj, f.name)
                        if f.name == "bs_to_padded_graph_size" and isinstance(val, list):
                            val = _compress_padding(val)
                        out[f.name] = ser(val)
                    except Exception as e:
                        out[f.name] = f"<error {type(e).__name__}: {e}>"
            else:
                out["repr"] = _normalize_msg(repr(obj))
            for name in EXTRA_ATTRS.get(key, []):
                if name in out:
                    continue
                try:
                    val = getattr(obj, name)
                except AttributeError:
                    out.setdefault("_absent", []).append(name)
                    continue
                except Exception as e:
                    out[name] = f"<error {type(e).__name__}: {e}>"
                    continue
                if callable(val) and not isinstance(val, type):
                    try:
                        val = val()
                    except Exception as e:
                        val = f"<error {type(e).__name__}: {e}>"
                out[name] = ser(val)
            if key == "model_config":
                hf = getattr(obj, "hf_config", None)
                if hf is not None:
                    out["hf_config.model_type"] = getattr(hf, "model_type", None)
                    out["hf_config.is_causal"] = ser(getattr(hf, "is_causal", None))
        finally:
            CAPTURE.enabled = was
    return out


def vllm_scalars(vc) -> dict:
    """VllmConfig's own non-sub-config fields (instance_id is volatile)."""
    import vllm.config as C

    out = {}
    for f in dataclasses.fields(C.VllmConfig):
        if f.name in SUB_KEYS or f.name in VOLATILE["vllm_config"]:
            continue
        v = getattr(vc, f.name, None)
        if f.name == "quant_config":
            out[f.name] = None if v is None else type(v).__name__
        else:
            out[f.name] = ser(v)
    return out


def volatile_of(objs: dict) -> dict:
    out = {}
    for key, names in VOLATILE.items():
        obj = objs.get(key)
        if obj is None:
            continue
        out[key] = {n: ser(getattr(obj, n)) for n in sorted(names) if hasattr(obj, n)}
    return out


def _unwrap_pydantic(e: BaseException) -> BaseException | None:
    """pydantic wraps an exception raised in __post_init__ / a validator in a
    ValidationError: return the original."""
    try:
        from pydantic import ValidationError
    except Exception:  # pragma: no cover
        return None
    if not isinstance(e, ValidationError):
        return None
    try:
        errs = e.errors()
    except Exception:
        return None
    if len(errs) != 1:
        return None
    inner = (errs[0].get("ctx") or {}).get("error")
    return inner if isinstance(inner, BaseException) else None


def err_info(e: BaseException) -> dict:
    inner = _unwrap_pydantic(e)
    src = inner if inner is not None else e
    tb = traceback.extract_tb(src.__traceback__)
    frames = [f for f in tb if "/vllm/" in f.filename.replace("\\", "/")]
    last = frames[-1] if frames else (tb[-1] if tb else None)
    info = {"type": type(src).__name__, "module": type(src).__module__,
            "message": _normalize_msg(str(src))}
    if last is not None:
        info["where"] = f"{_rel(last.filename)}:{last.lineno} in {last.name}"
    if inner is not None:
        info["wrapped_by"] = type(e).__name__
        info["wrapper_message"] = _normalize_msg(str(e))
    return info


# ---------------------------------------------------------------------------
# Config mode
# ---------------------------------------------------------------------------

def resolve_model_path(model: str | None) -> str | None:
    if model is None:
        return None
    if not Path(model).is_absolute() and (MODELS_DIR / model).is_dir():
        return f"models/{model}"
    return model


def build_sub_configs(case: dict, stage: list) -> dict:
    import vllm.config as C

    objs: dict[str, Any] = {}
    mc = None
    for key in BUILD_ORDER:
        cls = getattr(C, SUB_CLASSES[key])
        given = case.get(key)
        stage[0] = key
        if key == "model_config":
            model = case.get("model", "llama")
            if model is None:
                objs[key] = None
                continue
            mkw = dict(given or {})
            mkw.setdefault("skip_tokenizer_init", True)
            objs[key] = mc = cls(model=resolve_model_path(model), **mkw)
            continue
        if key == "device_config" and given is None:
            objs[key] = cls()
            continue
        if key == "speculative_config":
            if not given:
                objs[key] = None
                continue
            skw = dict(given)
            if skw.get("model") is not None:
                skw["model"] = resolve_model_path(skw["model"])
            objs[key] = cls(target_model_config=mc,
                            target_parallel_config=objs["parallel_config"], **skw)
            continue
        if key == "scheduler_config":
            skw = dict(given or {})
            if mc is not None:
                skw.setdefault("max_model_len", mc.max_model_len)
                skw.setdefault("is_encoder_decoder", mc.is_encoder_decoder)
                skw.setdefault("runner_type", mc.runner_type)
                skw.setdefault("is_multimodal_model", mc.is_multimodal_model)
                objs[key] = cls(**skw)
            else:
                objs[key] = cls.default_factory(**skw)
            continue
        if key in OPTIONAL_SUBS:
            if given is None or given is False:
                objs[key] = None
                continue
            objs[key] = cls(**(given if isinstance(given, dict) else {}))
            continue
        objs[key] = cls(**(given or {}))
    return objs


def make_vllm_config(objs: dict, case: dict):
    import vllm.config as C

    kw = {k: v for k, v in objs.items() if v is not None}
    for k in SCALAR_KEYS:
        if case.get(k) is not None:
            kw[k] = case[k]
    return C.VllmConfig(**kw)


def sub_hashes(vc) -> dict:
    out = {}
    for key in SUB_KEYS:
        obj = getattr(vc, key, None)
        if obj is None or not hasattr(obj, "compile_factors"):
            out[key] = None
            continue
        try:
            from vllm.config.utils import hash_config

            out[key] = hash_config(obj)
        except Exception as e:
            out[key] = f"<error {type(e).__name__}: {_normalize_msg(str(e))}>"
    return out


# ---------------------------------------------------------------------------
# Argv mode
# ---------------------------------------------------------------------------

_ARGV_PARSERS: dict[str, Any] = {}


def _engine_args_class(usage_context: str | None):
    import vllm.engine.arg_utils as AU

    return (AU.AsyncEngineArgs if usage_context in ("OPENAI_API_SERVER", "API_SERVER")
            else AU.EngineArgs)


def _argv_parser(cls):
    p = _ARGV_PARSERS.get(cls.__name__)
    if p is None:
        from vllm.utils.argparse_utils import FlexibleArgumentParser

        p = FlexibleArgumentParser(prog="vllm-oracle")
        p = cls.add_cli_args(p) or p
        _ARGV_PARSERS[cls.__name__] = p
    return p


def _serve_parser():
    """`vllm serve`'s own parser (make_arg_parser: FrontendArgs' server flags and
    AsyncEngineArgs'), as the serve subcommand builds it."""
    p = _ARGV_PARSERS.get("serve")
    if p is None:
        from vllm.entrypoints.common.cli_args import make_arg_parser
        from vllm.utils.argparse_utils import FlexibleArgumentParser

        p = make_arg_parser(FlexibleArgumentParser(prog="vllm-oracle"))
        _ARGV_PARSERS["serve"] = p
    return p


_SERVE_LAUNCHERS = ("run_server", "run_headless", "run_multi_api_server",
                    "run_dp_supervisor")


def _serve_launch(args) -> str:
    """`vllm serve`'s own steps before it builds the engine config: the CLI's
    validate (validate_parsed_serve_args) and ServeSubcommand.cmd's choice of
    launcher, with its api_server_count defaulting and logs; the launchers are
    stand-ins that only record which one cmd picked (nothing is started)."""
    import vllm.entrypoints.cli.serve as S
    from vllm.entrypoints.common.cli_args import validate_parsed_serve_args

    args.subparser = "serve"
    validate_parsed_serve_args(args)
    picked: list[str] = []

    def stand_in(name):
        def launcher(_args):
            picked.append(name)
        return launcher

    saved = {n: getattr(S, n) for n in _SERVE_LAUNCHERS}
    saved_uvloop = S.uvloop
    try:
        for n in _SERVE_LAUNCHERS:
            setattr(S, n, stand_in(n))
        S.uvloop = types.SimpleNamespace(run=lambda _coro: None)
        S.ServeSubcommand.cmd(args)
    finally:
        for n, f in saved.items():
            setattr(S, n, f)
        S.uvloop = saved_uvloop
    if not picked:
        raise RuntimeError("oracle: `vllm serve` chose a launcher the oracle does not emulate (--grpc)")
    return picked[0]


def _argv_with_model_flag(argv: list[str]) -> list[str]:
    argv = list(argv)
    if argv and not argv[0].startswith("-"):
        argv = ["--model", argv[0], *argv[1:]]
    return argv


def _argv_model(argv: list[str]) -> str | None:
    argv = _argv_with_model_flag(argv)
    for i, a in enumerate(argv):
        if a == "--model" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--model="):
            return a.split("=", 1)[1]
    return None


def _parse_argv(parser, argv: list[str], positional_model: bool = False):
    """``positional_model``: the parser has `vllm serve`'s positional model_tag,
    which takes a leading model name as given (a stray value later on is then
    an unrecognized argument, as in `vllm serve`)."""
    def _error(message):
        raise argparse.ArgumentError(None, message)

    parser.error = _error
    return parser.parse_args(list(argv) if positional_model else _argv_with_model_flag(argv))


def _dataclass_values(obj) -> dict:
    out = {}
    was = CAPTURE.enabled
    CAPTURE.enabled = False
    try:
        for f in dataclasses.fields(obj):
            try:
                out[f.name] = ser(getattr(obj, f.name))
            except Exception as e:
                out[f.name] = f"<error {type(e).__name__}: {e}>"
    finally:
        CAPTURE.enabled = was
    return out


def _dataclass_defaults(cls) -> dict:
    out = {}
    was = CAPTURE.enabled
    CAPTURE.enabled = False
    try:
        for f in dataclasses.fields(cls):
            try:
                if f.default is not dataclasses.MISSING:
                    out[f.name] = ser(f.default)
                elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                    out[f.name] = ser(f.default_factory())  # type: ignore[misc]
            except Exception as e:  # pragma: no cover
                out[f.name] = f"<error {type(e).__name__}: {e}>"
    finally:
        CAPTURE.enabled = was
    return out


def _delta(a: dict, b: dict, pair: bool = True) -> dict:
    out = {}
    for k, vb in b.items():
        if k in a and a[k] == vb:
            continue
        va = a.get(k)
        if isinstance(va, dict) and isinstance(vb, dict):
            out[k] = _delta(va, vb, pair)
        else:
            out[k] = [va, vb] if pair else vb
    return out


_CONFIG_MODULE_STAGE = {
    "model": "model_config", "cache": "cache_config", "parallel": "parallel_config",
    "scheduler": "scheduler_config", "speculative": "speculative_config",
    "lora": "lora_config", "load": "load_config", "device": "device_config",
    "compilation": "compilation_config", "kv_transfer": "kv_transfer_config",
    "kv_events": "kv_events_config", "observability": "observability_config",
    "structured_outputs": "structured_outputs_config", "multimodal": "model_config",
    "pooler": "model_config", "model_arch": "model_config",
    "offload": "offload_config", "attention": "attention_config",
    "mamba": "mamba_config", "kernel": "kernel_config",
    "profiler": "profiler_config", "logging": "logging_config",
    "watermarking": "watermark_config", "diffusion": "diffusion_config",
    "ec_transfer": "ec_transfer_config", "reasoning": "reasoning_config",
    "engram": "engram_config", "aux_output": "aux_output_config",
    "weight_transfer": "weight_transfer_config", "watchdog_config": "watchdog_config",
    "ec_manager_config": "ec_manager_config",
}


def _config_stage_from_traceback(e: BaseException) -> str | None:
    """Inside create_engine_config: the sub-config whose construction raised
    (outermost vllm/config/<x>.py frame), or None (EngineArgs' own check)."""
    frames = list(traceback.extract_tb(e.__traceback__))
    inner = _unwrap_pydantic(e)
    if inner is not None:
        frames += list(traceback.extract_tb(inner.__traceback__))
    for fr in frames:
        m = re.search(r"/vllm/config/(\w+)\.py$", fr.filename.replace("\\", "/"))
        if m and m.group(1) in _CONFIG_MODULE_STAGE:
            return _CONFIG_MODULE_STAGE[m.group(1)]
    return None


def build_via_engine_args(case: dict, stage: list, state: dict, result: dict):
    import vllm.engine.arg_utils as AU
    from vllm.usage.usage_lib import UsageContext

    uc = case.get("usage_context")
    usage = None if uc is None else UsageContext[uc]
    cls = _engine_args_class(uc)
    serve = uc == "OPENAI_API_SERVER"
    stage[0] = "parse"
    args = _parse_argv(_serve_parser() if serve else _argv_parser(cls), case["argv"], positional_model=serve)
    launcher = None
    if serve:  # `vllm serve`: its own checks and launcher choice come first
        stage[0] = "serve"
        launcher = _serve_launch(args)
        if launcher == "run_dp_supervisor":
            raise RuntimeError("oracle: the multi-port data parallel supervisor is not emulated")
    stage[0] = "engine_args"
    ea = cls.from_cli_args(args)
    if serve:
        from vllm.entrypoints.common.cli_args import propagate_flash_late_interaction

        propagate_flash_late_interaction(args, ea)
        if launcher == "run_multi_api_server":  # vllm/entrypoints/cli/serve.py
            ea._api_process_count = args.api_server_count
            ea._api_process_rank = -1
    return _create_engine_config(ea, cls, usage, stage, state, result, headless=launcher == "run_headless")


def _create_engine_config(ea, cls, usage, stage: list, state: dict, result: dict, headless: bool = False):
    """`ea.create_engine_config(usage_context)`, recording the EngineArgs fields set (against the class
    defaults) and those create_engine_config derived, and the sub-configs as VllmConfig(...) receives them."""
    import vllm.engine.arg_utils as AU

    defaults = _dataclass_defaults(cls)
    before = _dataclass_values(ea)
    result["engine_args"] = {"class": cls.__name__,
                             "set": _delta(defaults, before, pair=False)}
    stage[0] = "create_engine_config"
    real = AU.VllmConfig

    def vllm_config_spy(**kw):
        objs = {k: kw.get(k) for k in SUB_KEYS}
        state["objs"] = objs
        state["scalars_in"] = {k: ser(kw.get(k)) for k in sorted(kw)
                               if k not in SUB_KEYS}
        state["pre"] = {k: snapshot(objs.get(k), k) for k in SUB_KEYS}
        state["n_pre_logs"] = len(CAPTURE.records)
        stage[0] = "vllm_config"
        return real(**kw)

    AU.VllmConfig = vllm_config_spy
    try:
        if headless:
            return ea.create_engine_config(usage_context=usage, headless=True)
        return ea.create_engine_config(usage_context=usage)
    finally:
        AU.VllmConfig = real
        result["engine_args"]["derived"] = _delta(before, _dataclass_values(ea))


# ---------------------------------------------------------------------------
# Caller mode (a Python caller: EngineArgs(**kwargs))
# ---------------------------------------------------------------------------

def caller_kwargs(case: dict, cls) -> dict:
    """The keyword arguments a Python caller gives `cls` (EngineArgs) for a caller-mode case: the model; each
    sub-config EngineArgs has a field for, as the dict given (a speculative draft fixture's name resolved as the
    model's); every other sub-config's keys as the EngineArgs fields of the same name (a `lora_config` also
    sets enable_lora); VllmConfig's scalars; `engine_args` as given.  A key with no EngineArgs field of its
    name, or one given twice, is an error of the case (ValueError, stage setup), never dropped."""
    fields = {f.name for f in dataclasses.fields(cls)}
    kw: dict[str, Any] = {}

    def put(name: str, value: Any, origin: str) -> None:
        if name not in fields:
            raise ValueError(f"oracle: {origin}: {cls.__name__} has no field {name!r}")
        if name in kw:
            raise ValueError(f"oracle: {origin}: {cls.__name__}'s {name!r} given twice")
        kw[name] = value

    model = case.get("model", "llama")
    if model is not None:
        put("model", resolve_model_path(model), "model")
    for key in SUB_KEYS:
        given = case.get(key)
        if given is None or given is False:
            continue
        if key in fields:
            value = copy.deepcopy(given if isinstance(given, dict) else {})
            if key == "speculative_config" and isinstance(value.get("model"), str):
                value["model"] = resolve_model_path(value["model"])
            put(key, value, key)
            continue
        if key == "lora_config":
            put("enable_lora", True, key)
        if not isinstance(given, dict):
            continue
        for name, value in given.items():
            put(name, copy.deepcopy(value), f"{key}.{name}")
    for key in sorted(SCALAR_KEYS):
        if case.get(key) is not None:
            put(key, copy.deepcopy(case[key]), key)
    for name, value in (case.get("engine_args") or {}).items():
        put(name, copy.deepcopy(value), f"engine_args.{name}")
    return kw


def build_via_python_caller(case: dict, stage: list, state: dict, result: dict):
    """`EngineArgs(**kwargs).create_engine_config(usage_context)` (see caller_kwargs): EngineArgs.__post_init__
    builds the sub-configs given as dicts (stage engine_args), then create_engine_config as in argv mode."""
    from vllm.usage.usage_lib import UsageContext

    uc = case.get("usage_context")
    usage = None if uc is None else UsageContext[uc]
    cls = _engine_args_class(uc)
    kwargs = caller_kwargs(case, cls)
    stage[0] = "engine_args"
    ea = cls(**kwargs)
    return _create_engine_config(ea, cls, usage, stage, state, result)


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------

def platform_answers() -> dict:
    import vllm.platforms as P

    plat = P._current_platform
    cls = type(plat)
    out: dict[str, Any] = {"class": (cls.__mro__[1].__qualname__
                                     if cls.__name__.startswith("OracleSim")
                                     else cls.__qualname__)}
    was = CAPTURE.enabled
    CAPTURE.enabled = False
    try:
        for name in ("device_type", "is_cuda", "is_rocm", "is_cpu", "is_cuda_alike",
                     "support_static_graph_mode", "support_hybrid_kv_cache",
                     "get_device_capability", "get_device_name", "device_count",
                     "use_custom_allreduce", "supports_fp8", "support_deep_gemm",
                     "is_arch_support_pdl", "get_compile_backend"):
            try:
                v = getattr(plat, name)
                if callable(v):
                    v = v()
                if hasattr(v, "to_int"):
                    v = v.to_int()
                out[name] = ser(v)
            except Exception as e:
                out[name] = f"<error {type(e).__name__}>"
        try:
            import vllm.triton_utils as tu
            import vllm.utils.flashinfer as fi

            out["HAS_TRITON"] = bool(tu.HAS_TRITON)
            out["has_flashinfer"] = bool(fi.has_flashinfer())
        except Exception as e:
            out["HAS_TRITON"] = f"<error {type(e).__name__}>"
    finally:
        CAPTURE.enabled = was
    return out


def run_case(case: dict) -> dict:
    import torch
    import transformers
    import vllm

    result: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "name": case["name"],
        "description": case.get("description"),
        "oracle": {"vllm": vllm.__version__, "torch": torch.__version__,
                   "transformers": transformers.__version__,
                   "stubbed_modules": list(STUBBED),
                   "driver_stub": DRIVER_STUB is not None},
        "platform": case["platform"],
        "env": case["env"],
    }
    if "tags" in case:
        result["tags"] = case["tags"]
    argv_mode = "argv" in case
    caller_mode = not argv_mode and "caller" in case
    if argv_mode:
        result["argv"] = case["argv"]
        result["usage_context"] = case.get("usage_context")
    elif caller_mode:
        result["caller"] = case["caller"]
        result["usage_context"] = case.get("usage_context")
    CAPTURE.records.clear()
    stage = ["setup"]
    state: dict[str, Any] = {"objs": {}, "pre": {}, "n_pre_logs": None}
    vc = None
    error = None
    with warnings.catch_warnings(record=True) as pywarn:
        warnings.simplefilter("always")
        try:
            if argv_mode:
                vc = build_via_engine_args(case, stage, state, result)
            elif caller_mode:
                vc = build_via_python_caller(case, stage, state, result)
            else:
                objs = build_sub_configs(case, stage)
                state["objs"] = objs
                state["pre"] = {k: snapshot(objs.get(k), k) for k in SUB_KEYS}
                state["n_pre_logs"] = len(CAPTURE.records)
                stage[0] = "vllm_config"
                vc = make_vllm_config(objs, case)
            # 0.34.0 has no compute_hash(): the hash of a config is
            # hash_factors(compile_factors()) (vllm/config/utils.py).
            stage[0] = "compile_factors"
            from vllm.config.utils import hash_factors

            factors = vc.compile_factors()
            result["compile_factors"] = ser(factors)
            result["hash"] = hash_factors(factors)
            result["sub_hashes"] = sub_hashes(vc)
            stage[0] = "done"
        except BaseException as e:  # noqa: BLE001
            error = err_info(e)
            if (argv_mode or caller_mode) and stage[0] == "create_engine_config":
                stage[0] = _config_stage_from_traceback(e) or stage[0]
            error["stage"] = stage[0]
    n_pre = state["n_pre_logs"]
    if n_pre is None:
        n_pre = len(CAPTURE.records)
    logs = list(CAPTURE.records)
    result["ok"] = error is None
    result["error"] = error
    result["stage"] = stage[0]
    result["logs_sub_configs"] = logs[:n_pre]
    result["logs"] = logs[n_pre:]
    result["python_warnings"] = [
        {"category": w.category.__name__, "msg": _normalize_msg(str(w.message)),
         "where": f"{_rel(w.filename)}:{w.lineno}"}
        for w in pywarn
        if "/vllm/" in w.filename.replace("\\", "/")]
    result["platform_answers"] = platform_answers()
    result["pre"] = state["pre"]
    if (argv_mode or caller_mode) and "scalars_in" in state:
        result["pre"]["vllm_config"] = state["scalars_in"]
    post_src = ({k: getattr(vc, k, None) for k in SUB_KEYS} if vc is not None
                else state["objs"])
    result["post"] = {k: snapshot(post_src.get(k), k) for k in SUB_KEYS}
    if vc is not None:
        result["post"]["vllm_config"] = vllm_scalars(vc)
        result["volatile"] = volatile_of({"vllm_config": vc, **post_src})
    return result


# ---------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------

def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        b = os.read(fd, 1 << 16)
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks)


def run_in_fork(fn, *args) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        code = 0
        try:
            data = json.dumps(fn(*args)).encode()
        except BaseException as e:  # noqa: BLE001
            data = json.dumps({"ok": False, "oracle_crash": err_info(e),
                               "traceback": traceback.format_exc()}).encode()
            code = 1
        try:
            _write_all(w, data)
        finally:
            os.close(w)
            os._exit(code)
    os.close(w)
    data = _read_all(r)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if not data:
        return {"ok": False, "oracle_crash": {"type": "ChildDied",
                                              "message": f"wait status {status}"}}
    return json.loads(data)


def worker_setup(plat_spec: dict, env: dict) -> None:
    """Once per group, before any vLLM import."""
    apply_env(env)
    warnings.filterwarnings("ignore", message="CUDA initialization")
    os.chdir(GOLDEN_DIR)
    _PATHS[:] = [(str(GOLDEN_DIR) + "/", ""), (sys.prefix, "<venv>")]
    preload_driver_stub()
    import_extensions()
    import vllm.platforms  # noqa: F401  (does not resolve the platform)
    install_logging()
    install_platform(plat_spec)
    # The registry inspects model classes in a `python -m` subprocess only to
    # keep CUDA out of the parent; that subprocess cannot see the simulated
    # platform, so run the same function in-process.
    import vllm.model_executor.models.registry as reg

    reg._run_in_subprocess = lambda fn: fn()
    import vllm.config  # noqa: F401
    import vllm.engine.arg_utils  # noqa: F401
    import vllm.model_executor.models.config  # noqa: F401
    import vllm.multimodal  # noqa: F401
    import vllm.v1.executor.abstract  # noqa: F401  (VllmConfig asks Executor)
    import vllm.triton_utils  # noqa: F401  (HAS_TRITON, see install_platform)
    import vllm.utils.flashinfer  # noqa: F401
    # Modules that call current_platform.import_kernels() when first
    # imported (some cases import them lazily during VllmConfig).  On the
    # simulated ROCm and CPU platforms that tries vllm._C, which only the
    # ROCm / CPU builds of vLLM ship, and logs "Failed to import from
    # vllm._C" -- an artifact of running those platforms on the CUDA wheel.
    # Importing them here, once per worker, keeps that import-time chatter
    # out of the cases (as the other import-time logs are).
    import importlib

    for name in ("vllm._custom_ops", "vllm.kernels.vllm_c", "vllm._cpu_ops",
                 "vllm.kernels.aiter_ops"):
        try:
            importlib.import_module(name)
        except Exception:
            pass
    install_platform(plat_spec)  # rebind the modules imported just now
    install_logging()
    CAPTURE.records.clear()


def warm_model_classes(cases: list[dict]) -> None:
    """Inspect the fixtures' model classes once per group (pure, cached)."""
    import vllm.model_executor.models.registry as reg

    archs = set()
    for c in cases:
        models = ([_argv_model(c["argv"])] if "argv" in c else
                  [c.get("model", "llama"),
                   (c.get("speculative_config") or {}).get("model")])
        for m in models:
            if not isinstance(m, str):
                continue
            cfg = MODELS_DIR / m / "config.json"
            if not cfg.is_file():
                cfg = GOLDEN_DIR / m / "config.json"
            if cfg.is_file():
                try:
                    archs.update(json.loads(cfg.read_text()).get("architectures") or [])
                except Exception:
                    pass
    for a in sorted(archs):
        m = reg.ModelRegistry.models.get(a)
        if m is not None:
            try:
                reg._try_inspect_model_cls(a, m)
            except Exception:
                pass
    CAPTURE.records.clear()


def clear_log_once_caches() -> None:
    import vllm.logger as vl

    for n in ("_print_debug_once", "_print_info_once", "_print_warning_once",
              "_print_error_once"):
        f = getattr(vl, n, None)
        if f is not None and hasattr(f, "cache_clear"):
            f.cache_clear()


def _case_in_group_worker(case: dict) -> dict:
    install_platform(case["platform"])
    return run_case(case)


def _group_worker(cases: list[dict]) -> list[dict]:
    worker_setup(cases[0]["platform"], cases[0]["env"])
    warm_model_classes(cases)
    for c in cases:
        if "argv" in c:
            if c.get("usage_context") == "OPENAI_API_SERVER":
                _serve_parser()
            else:
                _argv_parser(_engine_args_class(c.get("usage_context")))
    # Building the parser instantiates default configs, whose *_once log
    # calls would then be cached in this worker and go missing in every
    # forked case: every case starts with empty once-caches, as a fresh
    # `vllm serve` process does (and as --fresh does).
    clear_log_once_caches()
    CAPTURE.records.clear()
    out = []
    for c in cases:
        t0 = time.perf_counter()
        res = run_in_fork(_case_in_group_worker, c)
        print(f"  {c['name']}: {'ok' if res.get('ok') else 'ERROR'} "
              f"({time.perf_counter() - t0:.2f}s)", file=sys.stderr, flush=True)
        out.append(res)
    return out


def run_cases(cases: list[dict], fresh: bool = False) -> list[dict]:
    results: dict[int, dict] = {}
    if fresh:
        import subprocess

        for i, c in enumerate(cases):
            p = subprocess.run([sys.executable, __file__, "--single-json"],
                               input=json.dumps(c).encode(), capture_output=True)
            try:
                results[i] = json.loads(p.stdout)
            except Exception:
                results[i] = {"ok": False, "oracle_crash": {
                    "type": "ChildDied", "message": p.stderr.decode()[-4000:]}}
        return [results[i] for i in range(len(cases))]
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        groups.setdefault(group_key(c), []).append(i)
    for key, idxs in groups.items():
        print(f"group {key}: {len(idxs)} case(s)", file=sys.stderr, flush=True)
        out = run_in_fork(lambda gc: {"results": _group_worker(gc)},
                          [cases[i] for i in idxs])
        for j, i in enumerate(idxs):
            results[i] = out["results"][j] if "results" in out else out
    return [results[i] for i in range(len(cases))]


def strip_volatile(res: dict) -> dict:
    res = dict(res)
    res.pop("volatile", None)
    return res


def diff_json(a: Any, b: Any, path: str = "$"):
    if type(a) is not type(b) and not (isinstance(a, (int, float))
                                       and isinstance(b, (int, float))):
        yield f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"
        return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                yield f"{path}.{k}: only in new: {json.dumps(b[k])[:200]}"
            elif k not in b:
                yield f"{path}.{k}: only in expected: {json.dumps(a[k])[:200]}"
            else:
                yield from diff_json(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            yield f"{path}: len {len(a)} != {len(b)}"
            return
        for i, (x, y) in enumerate(zip(a, b)):
            yield from diff_json(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"


def load_case_file(path: str) -> dict:
    with open(path) as f:
        return normalize_case(json.load(f), Path(path).stem)


def _check_against(expected_dir: str, stems: list[str], results: list[dict]) -> int:
    """Compare with EXPECTED_DIR/<stem>.json.  A stripped expected file
    (strip_outputs.py form: no `oracle` key) is compared with the stripped
    form of the new result."""
    strip = None
    bad = 0
    for stem, res in zip(stems, results):
        path = os.path.join(expected_dir, stem + ".json")
        try:
            with open(path) as f:
                exp = json.load(f)
        except FileNotFoundError:
            print(f"{stem}: MISSING {path}", file=sys.stderr)
            bad += 1
            continue
        new = strip_volatile(res)
        if "oracle" not in exp:
            if strip is None:
                sys.path.insert(0, str(ORACLE_DIR))
                from strip_0340 import strip_0340 as strip  # type: ignore
            new = strip(res)
        diffs = list(diff_json(strip_volatile(exp), new))
        if diffs:
            bad += 1
            print(f"{stem}: DIFF ({len(diffs)})", file=sys.stderr)
            for d in diffs[:20]:
                print("   " + d, file=sys.stderr)
    print(f"{len(results) - bad} passed, {bad} failed")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help="case JSON files (default: stdin)")
    ap.add_argument("-o", "--out-dir", help="write <case-file-stem>.json here")
    ap.add_argument("--fresh", action="store_true", help="new interpreter per case")
    ap.add_argument("--compact", action="store_true", help="no indentation")
    ap.add_argument("--all-logs", action="store_true",
                    help="keep DEBUG records of every vllm logger")
    ap.add_argument("--check", metavar="EXPECTED_DIR",
                    help="run and compare with EXPECTED_DIR/<stem>.json (raw or "
                         "stripped); exit 1 on any difference")
    ap.add_argument("--single-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    global ALL_LOGS
    ALL_LOGS = bool(args.all_logs) or os.environ.get("ORACLE_ALL_LOGS") == "1"
    if ALL_LOGS:
        os.environ["ORACLE_ALL_LOGS"] = "1"
    if args.single_json:
        case = normalize_case(json.load(sys.stdin))
        sys.stdout.write(json.dumps(_group_worker([case])[0]))
        return 0
    if args.cases:
        cases = [load_case_file(p) for p in args.cases]
        stems = [Path(p).stem for p in args.cases]
    else:
        cases = [normalize_case(json.load(sys.stdin), "stdin")]
        stems = ["stdin"]
    t0 = time.perf_counter()
    results = run_cases(cases, fresh=args.fresh)
    print(f"{len(results)} case(s) in {time.perf_counter() - t0:.1f}s",
          file=sys.stderr)
    if args.check:
        return _check_against(args.check, stems, results)
    indent = None if args.compact else 1
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
        for stem, res in zip(stems, results):
            with open(os.path.join(args.out_dir, stem + ".json"), "w") as f:
                json.dump(res, f, indent=indent)
                f.write("\n")
    else:
        print(json.dumps(results[0] if len(results) == 1 else results, indent=indent))
    return 0


if __name__ == "__main__":
    # Some vLLM log texts join a set ("Found duplicate keys ..."): their order follows str hashes, so every
    # oracle run hashes with PYTHONHASHSEED=0 (the golden answers were recorded so). Re-run under it if unset.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    sys.exit(main())
