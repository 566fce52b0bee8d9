"""Platform presets, capability semantics (§7.2), per-platform answers (§7.3) and spec errors."""

from __future__ import annotations

import pytest

from postinit.errors import InputError, PlatformSpecError
from postinit.schema import PLATFORM_PRESETS, Platform


@pytest.mark.parametrize(
    ("spec", "kind", "capability", "name", "memory"),
    [
        ("h100", "cuda", 90, "NVIDIA H100 80GB HBM3", 80),
        ("a100", "cuda", 80, "NVIDIA A100-SXM4-80GB", 80),
        ("a100-40gb", "cuda", 80, "NVIDIA A100-SXM4-40GB", 40),
        ("t4", "cuda", 75, "Tesla T4", 16),
        ("l40s", "cuda", 89, "NVIDIA L40S", 48),
        ("b200", "cuda", 100, "NVIDIA B200", 180),
        ("b300", "cuda", 103, "NVIDIA B300", 270),
        ("cuda:9.0", "cuda", 90, "NVIDIA H100 80GB HBM3", 80),
        ("cuda:90", "cuda", 90, "NVIDIA H100 80GB HBM3", 80),
        ("CUDA:10.0", "cuda", 100, "NVIDIA B200", 180),
        ("rocm", "rocm", 94, "AMD_Instinct_MI300X", 192),
        ("rocm:gfx950", "rocm", 95, "AMD_Instinct_MI355X", 288),
        ("mi325x", "rocm", 94, "AMD_Instinct_MI325X", 256),
        ("cpu", "cpu", None, "cpu", 0),
    ],
)
def test_presets(spec: str, kind: str, capability: int | None, name: str, memory: float) -> None:
    """Each spec yields the oracle's device facts."""
    p = Platform.from_spec(spec)
    assert (p.kind, p.capability, p.device_name, p.total_memory_gb) == (
        kind,
        capability,
        name,
        memory,
    )


def test_every_listed_preset_builds() -> None:
    """Every name in PLATFORM_PRESETS builds a Platform."""
    for name in PLATFORM_PRESETS:
        assert isinstance(Platform.from_spec(name), Platform)


@pytest.mark.parametrize("spec", ["h10", "cuda:x", "rocm:mi300", "gpu", "cuda:9.10"])
def test_bad_specs(spec: str) -> None:
    """A bad spec raises PlatformSpecError (an InputError) with a one-line message."""
    with pytest.raises(PlatformSpecError) as info:
        Platform.from_spec(spec)
    assert isinstance(info.value, InputError)
    assert "\n" not in str(info.value)


def test_bad_spec_did_you_mean() -> None:
    """A near miss suggests the closest preset and lists the allowed names."""
    with pytest.raises(PlatformSpecError, match="Did you mean 'h100'") as info:
        Platform.from_spec("h1000")
    assert "b200" in str(info.value) and info.value.path == "platform"


def test_capability_semantics() -> None:
    """has_ is >= (int or tuple), is_ is exact; unknown capability answers False."""
    b300 = Platform.from_spec("b300")
    assert b300.has_device_capability(100) and b300.has_device_capability((10, 0))
    assert not b300.is_device_capability(100) and b300.is_device_capability((10, 3))
    assert Platform.from_spec("b200").is_device_capability(100)
    cpu = Platform.from_spec("cpu")
    assert not cpu.has_device_capability(0) and not cpu.is_device_capability(0)
    assert cpu.get_device_capability() is None


@pytest.mark.parametrize(
    ("spec", "alike", "static", "hybrid", "backend", "dtypes", "device_type", "allreduce"),
    [
        ("h100", True, True, True, "inductor", ["bfloat16", "float16", "float32"], "cuda", True),
        ("t4", True, True, True, "inductor", ["float16", "float32"], "cuda", True),
        ("rocm", True, True, True, "inductor", ["bfloat16", "float16", "float32"], "cuda", True),
        (
            "rocm:gfx90a",
            True,
            True,
            True,
            "inductor",
            ["bfloat16", "float16", "float32"],
            "cuda",
            False,
        ),
        ("cpu", False, False, True, "inductor", ["bfloat16", "float16", "float32"], "cpu", False),
        ("tpu", False, False, False, "openxla", ["bfloat16", "float16", "float32"], "tpu", False),
    ],
)
def test_platform_answers(
    spec: str,
    alike: bool,
    static: bool,
    hybrid: bool,
    backend: str,
    dtypes: list[str],
    device_type: str,
    allreduce: bool,
) -> None:
    """The derived answer fields follow reference §7.3."""
    p = Platform.from_spec(spec)
    assert p.is_cuda_alike is alike
    assert p.support_static_graph_mode is static
    assert p.support_hybrid_kv_cache is hybrid
    assert p.simple_compile_backend == backend
    assert p.supported_dtypes == dtypes
    assert p.device_type == device_type
    assert p.use_custom_allreduce is allreduce


def test_cpu_arch_dtypes_and_answers_recomputed() -> None:
    """CPU dtypes depend on the arch, and answers cannot be overridden by input."""
    assert Platform(kind="cpu", cpu_arch="ppc64le").supported_dtypes == ["bfloat16", "float32"]
    assert Platform(kind="cpu", cpu_arch="riscv").supported_dtypes == ["float32"]
    assert Platform(kind="cpu", is_cuda_alike=True).is_cuda_alike is False


def test_auto_detect_falls_back() -> None:
    """`auto` always yields a Platform (CPU when torch or a GPU is missing)."""
    p = Platform.from_spec("auto")
    assert p.kind in ("cpu", "cuda", "rocm")


def test_round_trip() -> None:
    """A platform survives a JSON dump and re-validation."""
    p = Platform.from_spec("h200")
    assert Platform.model_validate(p.model_dump(mode="json")) == p
