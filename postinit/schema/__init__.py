"""The typed config graph postinit resolves: vLLM's configs, enums and the facts they read.

Imports nothing of postinit except :mod:`postinit.errors`.
"""

from postinit.schema.configs import (
    CacheConfig,
    CompilationConfig,
    DeviceConfig,
    EPLBConfig,
    HFConfig,
    KVEventsConfig,
    KVTransferConfig,
    LoadConfig,
    LoRAConfig,
    ModelConfig,
    ObservabilityConfig,
    ParallelConfig,
    PassConfig,
    PoolerConfig,
    QuantizationConfig,
    SchedulerConfig,
    SpeculativeConfig,
    StructuredOutputsConfig,
    VllmConfig,
)
from postinit.schema.draft import DraftModel
from postinit.schema.enums import CompilationMode, CUDAGraphMode
from postinit.schema.env import Env
from postinit.schema.platform import PLATFORM_PRESETS, Platform
from postinit.schema.usage import Usage
from postinit.schema.version import VersionFacts

# loaders: the loaders engineer adds `from postinit.schema.loaders import ...` here.

__all__ = [
    "PLATFORM_PRESETS",
    "CUDAGraphMode",
    "CacheConfig",
    "CompilationConfig",
    "CompilationMode",
    "DeviceConfig",
    "DraftModel",
    "EPLBConfig",
    "Env",
    "HFConfig",
    "KVEventsConfig",
    "KVTransferConfig",
    "LoRAConfig",
    "LoadConfig",
    "ModelConfig",
    "ObservabilityConfig",
    "ParallelConfig",
    "PassConfig",
    "Platform",
    "PoolerConfig",
    "QuantizationConfig",
    "SchedulerConfig",
    "SpeculativeConfig",
    "StructuredOutputsConfig",
    "Usage",
    "VersionFacts",
    "VllmConfig",
]
