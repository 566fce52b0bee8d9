"""Platform hooks: ``check_and_update_config`` of CUDA, ROCm and CPU (phase ``platform``, step 17).

One module per platform; what the platforms decide alike is declared here: one platform
applies, so its default block size and worker class are each one ``first_match``.
"""

from __future__ import annotations

from postinit.engine import first_match, sequence
from postinit.rules.platforms import cpu, cuda, rocm

_SRC = "vllm/platforms/*.py check_and_update_config"

BLOCK_SIZE_DEFAULT = first_match(
    "platform.block-size-default", cuda.block_size_default, rocm.block_size_default, cpu.block_size_default,
    title="The platform's default KV cache block size", source=f"{_SRC}; ref step-17",
)
WORKER_CLS = first_match(
    "platform.worker-cls", cuda.worker_cls, rocm.worker_cls, cpu.worker_cls,
    title="The platform's worker class for worker_cls='auto'", source=f"{_SRC}; ref step-17",
)
CUDA_MLA_BLOCK_SIZE = sequence(
    "platform.cuda-mla-block-size",
    BLOCK_SIZE_DEFAULT, cuda.mla_backend_default, cuda.mla_block_size_flashmla, cuda.mla_block_size_cutlass,
    cuda.mla_block_size_flashinfer, cuda.mla_block_size_sparse,
    title="CUDA: the default block size, the Blackwell MLA backend, then each MLA backend's block size",
    source="vllm/platforms/cuda.py CudaPlatformBase.check_and_update_config; ref step-17, 7.4#3",
)

__all__ = ["BLOCK_SIZE_DEFAULT", "CUDA_MLA_BLOCK_SIZE", "WORKER_CLS", "cpu", "cuda", "rocm"]
