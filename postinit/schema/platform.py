"""Facts about the platform vLLM runs on (vLLM's ``current_platform``).

:class:`Platform` holds the facts (kind, capability, device name, memory, ...)
and, as plain fields filled by a validator, the answers vLLM's platform
methods give (``is_cuda_alike``, ``support_static_graph_mode``, ...), so the
engine can read them as flat paths (``platform.is_cuda_alike``). vLLM's
zero-argument predicates are therefore *attributes* here (``p.is_cuda_alike``,
not ``p.is_cuda_alike()``); the capability checks are methods.

torch is imported only by :meth:`Platform.detect`.
"""

from __future__ import annotations

import platform as _stdlib_platform
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from postinit.errors import did_you_mean, show
from postinit.schema._fields import derived, unhashed
from postinit.schema.errors import PlatformSpecError

__all__ = ["CUDA_PRESETS", "PLATFORM_PRESETS", "ROCM_ARCHS", "Platform", "PlatformKind"]

PlatformKind = Literal["cuda", "rocm", "cpu", "xpu", "tpu", "unspecified"]
CpuArch = Literal["x86_64", "arm", "ppc64le", "s390x", "riscv"]

# Device names and memory by compute capability, matching the oracle's defaults.
CUDA_DEVICE_NAMES: dict[int, str] = {
    70: "Tesla V100-SXM2-32GB",
    75: "Tesla T4",
    80: "NVIDIA A100-SXM4-80GB",
    86: "NVIDIA RTX A6000",
    89: "NVIDIA L40S",
    90: "NVIDIA H100 80GB HBM3",
    100: "NVIDIA B200",
    103: "NVIDIA B300",
    120: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
}
CUDA_DEVICE_MEM_GB: dict[int, float] = {
    70: 32,
    75: 16,
    80: 80,
    86: 48,
    89: 48,
    90: 80,
    100: 180,
    103: 270,
    120: 96,
}
#: gcnArchName -> (capability, device name, memory GiB), matching the oracle.
ROCM_ARCHS: dict[str, tuple[int, str, float]] = {
    "gfx90a": (90, "AMD_Instinct_MI250X", 64),
    "gfx942": (94, "AMD_Instinct_MI300X", 192),
    "gfx950": (95, "AMD_Instinct_MI355X", 288),
    "gfx1100": (110, "AMD_Radeon_RX7900XTX", 24),
}
#: named NVIDIA GPUs -> (capability, device name, memory GiB)
CUDA_PRESETS: dict[str, tuple[int, str, float]] = {
    "v100": (70, "Tesla V100-SXM2-32GB", 32),
    "t4": (75, "Tesla T4", 16),
    "a100": (80, "NVIDIA A100-SXM4-80GB", 80),
    "a100-80gb": (80, "NVIDIA A100-SXM4-80GB", 80),
    "a100-40gb": (80, "NVIDIA A100-SXM4-40GB", 40),
    "a10g": (86, "NVIDIA A10G", 24),
    "a6000": (86, "NVIDIA RTX A6000", 48),
    "l4": (89, "NVIDIA L4", 24),
    "l40s": (89, "NVIDIA L40S", 48),
    "rtx4090": (89, "NVIDIA GeForce RTX 4090", 24),
    "h100": (90, "NVIDIA H100 80GB HBM3", 80),
    "h200": (90, "NVIDIA H200", 141),
    "gh200": (90, "NVIDIA GH200 480GB", 96),
    "b200": (100, "NVIDIA B200", 180),
    "gb200": (100, "NVIDIA GB200", 186),
    "b300": (103, "NVIDIA B300", 270),
    "rtx-pro-6000": (120, "NVIDIA RTX PRO 6000 Blackwell Server Edition", 96),
}
#: named AMD GPUs -> gcnArchName (+ name/memory override)
_ROCM_PRESETS: dict[str, tuple[str, str, float]] = {
    "mi250x": ("gfx90a", "AMD_Instinct_MI250X", 64),
    "mi300x": ("gfx942", "AMD_Instinct_MI300X", 192),
    "mi325x": ("gfx942", "AMD_Instinct_MI325X", 256),
    "mi355x": ("gfx950", "AMD_Instinct_MI355X", 288),
    "rx7900xtx": ("gfx1100", "AMD_Radeon_RX7900XTX", 24),
}
#: every name ``Platform.from_spec`` accepts besides ``cuda:X.Y`` / ``rocm:gfxNNN``
PLATFORM_PRESETS: tuple[str, ...] = tuple(
    sorted({"auto", "cpu", "cuda", "rocm", "xpu", "tpu", *CUDA_PRESETS, *_ROCM_PRESETS})
)

_BF16 = "bfloat16"
_FP16 = "float16"
_FP32 = "float32"


class Platform(BaseModel):
    """The platform facts resolution reads, and the answers vLLM's platform gives."""

    model_config = ConfigDict(extra="forbid")

    # ---- facts ---------------------------------------------------------------
    kind: PlatformKind = unhashed("unspecified")
    capability: int | None = unhashed(
        None, ge=0, description="major*10+minor, e.g. 90 for SM 9.0; None if unknown"
    )
    device_name: str = unhashed("")
    total_memory_gb: float = unhashed(0, ge=0)
    device_count: int = unhashed(1, ge=0)
    fully_connected: bool = unhashed(True)
    gcn_arch: str | None = unhashed(None, description="ROCm gcnArchName, e.g. gfx942")
    cpu_arch: CpuArch = unhashed("x86_64")
    ipex_available: bool = unhashed(True, description="CPU: intel_extension_for_pytorch")
    flashmla_available: bool = unhashed(True, description="CUDA: FlashMLA kernels built")
    host_memory_gb: float = unhashed(1024, ge=0)
    aiter_found: bool = unhashed(False, description="ROCm: the aiter package is importable")
    flashinfer_available: bool = unhashed(
        False, description="CUDA: FlashInfer is installed (vLLM 0.34.0's O2/O3 all-reduce + RMSNorm fusion default)")
    cpu_count: int | None = unhashed(
        None, ge=1, description="CPU: len(os.sched_getaffinity(0)), the NUMEXPR_MAX_THREADS the CPU hook sets; None = unknown"
    )
    triton_available: bool = unhashed(
        True, description="Triton is importable (vLLM's HAS_TRITON): on a GPU host, and triton-cpu on an x86 CPU host")
    cpu_amx: bool = unhashed(True, description="CPU: AMX tiles (torch.cpu._is_amx_tile_supported), e.g. Sapphire Rapids")
    cpu_avx512_bf16: bool = unhashed(True, description="CPU: AVX-512 BF16 (torch.cpu._is_avx512_bf16_supported)")
    torch_num_threads: int | None = unhashed(
        None, ge=1, description="CPU: torch.get_num_threads(), the OMP_NUM_THREADS the CPU hook sets; None = unknown"
    )
    # ---- answers (always recomputed from the facts) ----------------------------
    is_cuda: bool = derived(False)
    is_rocm: bool = derived(False)
    is_cpu: bool = derived(False)
    is_xpu: bool = derived(False)
    is_tpu: bool = derived(False)
    is_cuda_alike: bool = derived(False)
    support_static_graph_mode: bool = derived(False)
    support_hybrid_kv_cache: bool = derived(False)
    simple_compile_backend: str = derived("inductor")
    device_type: str = derived("")
    supported_dtypes: list[str] = derived(default_factory=list)
    use_custom_allreduce: bool = derived(False)
    supports_fp8: bool = derived(False)

    @model_validator(mode="after")
    def _answers(self) -> Platform:
        k = self.kind
        self.is_cuda = k == "cuda"
        self.is_rocm = k == "rocm"
        self.is_cpu = k == "cpu"
        self.is_xpu = k == "xpu"
        self.is_tpu = k == "tpu"
        self.is_cuda_alike = k in ("cuda", "rocm")
        self.support_static_graph_mode = k in ("cuda", "rocm")
        self.support_hybrid_kv_cache = k in ("cuda", "rocm", "cpu", "xpu")
        self.simple_compile_backend = "openxla" if k == "tpu" else "inductor"
        self.device_type = {
            "cuda": "cuda",
            "rocm": "cuda",
            "cpu": "cpu",
            "xpu": "xpu",
            "tpu": "tpu",
        }.get(k, "")
        self.supported_dtypes = self._supported_dtypes()
        arch = self.gcn_arch or ""
        self.use_custom_allreduce = k == "cuda" or (
            k == "rocm" and arch.startswith(("gfx94", "gfx95"))
        )
        if k == "cuda":
            self.supports_fp8 = self.has_device_capability(89)
        elif k == "rocm":
            self.supports_fp8 = arch.startswith(("gfx94", "gfx95", "gfx12"))
        else:
            self.supports_fp8 = False
        return self

    def _supported_dtypes(self) -> list[str]:
        if self.kind == "cuda":
            if self.has_device_capability(80):
                return [_BF16, _FP16, _FP32]
            if self.has_device_capability(60):
                return [_FP16, _FP32]
            return [_FP32]
        if self.kind == "cpu":
            if self.cpu_arch == "ppc64le":
                return [_BF16, _FP32]
            if self.cpu_arch == "riscv":
                return [_FP32]
        return [_BF16, _FP16, _FP32]

    # ---- vLLM's capability questions -----------------------------------------
    def get_device_capability(self) -> tuple[int, int] | None:
        """(major, minor) like vLLM's ``DeviceCapability``, or None when unknown."""
        if self.capability is None or self.kind not in ("cuda", "rocm"):
            return None
        return divmod(self.capability, 10)

    def has_device_capability(self, capability: int | tuple[int, int]) -> bool:
        """vLLM's ``has_device_capability``: current >= capability (False if unknown)."""
        current = self.get_device_capability()
        if current is None:
            return False
        if isinstance(capability, tuple):
            return current >= capability
        return current[0] * 10 + current[1] >= capability

    def is_device_capability(self, capability: int | tuple[int, int]) -> bool:
        """vLLM's ``is_device_capability``: exact match (False if unknown)."""
        current = self.get_device_capability()
        if current is None:
            return False
        if isinstance(capability, tuple):
            return current == capability
        return current[0] * 10 + current[1] == capability

    # ---- construction ---------------------------------------------------------
    @classmethod
    def cuda(cls, capability: int = 90, **facts: Any) -> Platform:
        """A simulated NVIDIA platform with the oracle's defaults for ``capability``."""
        base: dict[str, Any] = {
            "kind": "cuda",
            "capability": capability,
            "device_name": CUDA_DEVICE_NAMES.get(capability, "NVIDIA GPU"),
            "total_memory_gb": CUDA_DEVICE_MEM_GB.get(capability, 80),
            "device_count": 8,
        }
        return cls(**{**base, **facts})

    @classmethod
    def rocm(cls, gcn_arch: str = "gfx942", **facts: Any) -> Platform:
        """A simulated AMD platform with the oracle's defaults for ``gcn_arch``."""
        cap, name, mem = ROCM_ARCHS.get(gcn_arch, (94, "AMD GPU", 192))
        base: dict[str, Any] = {
            "kind": "rocm",
            "gcn_arch": gcn_arch,
            "capability": cap,
            "device_name": name,
            "total_memory_gb": mem,
            "device_count": 8,
        }
        return cls(**{**base, **facts})

    @classmethod
    def cpu(cls, **facts: Any) -> Platform:
        """A CPU platform (device name "cpu", one device)."""
        base: dict[str, Any] = {"kind": "cpu", "device_name": "cpu", "device_count": 1}
        return cls(**{**base, **facts})

    @classmethod
    def from_spec(cls, spec: str) -> Platform:
        """Build a platform from ``cpu``, ``rocm[:gfxNNN]``, ``cuda[:X.Y|:XY]``, a GPU name or ``auto``."""
        text = spec.strip().lower()
        kind, _, arg = text.partition(":")
        if text == "auto":
            return cls.detect()
        if text in CUDA_PRESETS:
            cap, name, mem = CUDA_PRESETS[text]
            return cls.cuda(cap, device_name=name, total_memory_gb=mem)
        if text in _ROCM_PRESETS:
            arch, name, mem = _ROCM_PRESETS[text]
            return cls.rocm(arch, device_name=name, total_memory_gb=mem)
        if kind == "cuda":
            if not arg:
                return cls.cuda()
            m = re.fullmatch(r"(\d+)\.(\d)|(\d{2,3})", arg)
            if m is None:
                raise PlatformSpecError(
                    f"Bad CUDA capability in platform spec {show(spec)}: use cuda:MAJOR.MINOR (e.g. cuda:9.0) or cuda:90.",
                    path="platform",
                    value=spec,
                )
            cap = int(m.group(1)) * 10 + int(m.group(2)) if m.group(1) else int(m.group(3))
            return cls.cuda(cap)
        if kind == "rocm":
            if not arg:
                return cls.rocm()
            if not re.fullmatch(r"gfx[0-9a-f]+", arg):
                raise PlatformSpecError(
                    f"Bad ROCm arch in platform spec {show(spec)}: use rocm:gfxNNN, one of {', '.join(ROCM_ARCHS)}.",
                    path="platform",
                    value=spec,
                )
            return cls.rocm(arg)
        if text == "cpu":
            return cls.cpu()
        if text in ("xpu", "tpu"):
            return cls(kind=text, device_name=text, device_count=1)
        allowed = ", ".join(PLATFORM_PRESETS)
        raise PlatformSpecError(
            f"Unknown platform {show(spec)}; use one of {allowed}, cuda:MAJOR.MINOR or rocm:gfxNNN."
            + did_you_mean(text, PLATFORM_PRESETS),
            path="platform",
            value=spec,
        )

    @classmethod
    def detect(cls) -> Platform:
        """The platform of this machine via torch (imported here only); CPU without torch or GPU."""
        try:
            import torch  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            return cls.cpu(cpu_arch=_host_cpu_arch())
        try:
            if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
                return cls.cpu(cpu_arch=_host_cpu_arch())
            props = torch.cuda.get_device_properties(0)
            major, minor = torch.cuda.get_device_capability(0)
            mem = round(props.total_memory / (1 << 30), 1)
            count = torch.cuda.device_count()
            if getattr(torch.version, "hip", None):
                arch = str(getattr(props, "gcnArchName", "gfx942")).split(":")[0]
                return cls.rocm(
                    arch,
                    capability=major * 10 + minor,
                    device_name=str(props.name),
                    total_memory_gb=mem,
                    device_count=count,
                )
            return cls.cuda(
                major * 10 + minor,
                device_name=str(props.name),
                total_memory_gb=mem,
                device_count=count,
            )
        except Exception:  # a broken driver: behave like a machine without a GPU
            return cls.cpu(cpu_arch=_host_cpu_arch())


def _host_cpu_arch() -> CpuArch:
    machine = _stdlib_platform.machine().lower()
    if machine.startswith(("arm", "aarch64")):
        return "arm"
    if machine.startswith("ppc64"):
        return "ppc64le"
    if machine.startswith("s390"):
        return "s390x"
    if machine.startswith("riscv"):
        return "riscv"
    return "x86_64"
