"""Our site's policies for vLLM deployments: checked and explained with vLLM's own rules.

Resolve with them from every face::

    postinit.resolve(model=..., argv=[...], rules="examples/site-policies/policies.py")
    postinit resolve --rules examples/site-policies/policies.py --enforce-eager
    postinit serve --rules examples/site-policies/policies.py

Each is a rule like vLLM's: a pure function of the values it declares it reads. They run in
the phase ``site``, after all of vLLM's rules, on the config vLLM resolved.
"""

from collections.abc import Mapping
from typing import Any

from postinit.engine import Violation
from postinit.site import policy

NODE_GPUS = 8
"""GPUs per node in our clusters."""
A100_MAX_MODEL_LEN = 65536
"""The longest context we serve on A100 nodes (their 80 GB leave too little KV cache beyond it)."""
SITE_GPU_MEMORY_UTILIZATION = 0.85
"""Our default share of GPU memory for vLLM: the node's monitoring agent keeps the rest."""
VLLM_GPU_MEMORY_UTILIZATION = 0.9
"""vLLM's own default for ``gpu_memory_utilization``."""


@policy(
    "mysite.production-never-eager",
    title="Production never runs eager",
    reads=("model_config.enforce_eager",),
    message="enforce_eager is not allowed in production: it disables CUDA graphs and torch.compile",
    ensures=lambda c: not c["model_config.enforce_eager"],
)
def production_never_eager(c: Mapping[str, Any]) -> Violation | None:
    """Eager mode costs our latency SLOs; a debugging run uses the staging cluster."""
    if c["model_config.enforce_eager"]:
        return Violation("enforce_eager is not allowed in production: it disables CUDA graphs and torch.compile",
                         hint="drop --enforce-eager (or use the staging cluster)")
    return None


@policy(
    "mysite.tp-divides-node",
    title="Tensor parallelism divides the 8 GPUs of a node",
    reads=("parallel_config.tensor_parallel_size",),
    ensures=lambda c: NODE_GPUS % c["parallel_config.tensor_parallel_size"] == 0,
)
def tp_divides_node(c: Mapping[str, Any]) -> Violation | None:
    """A replica must not straddle nodes or leave a node's GPUs unusable: TP is 1, 2, 4 or 8."""
    tp = c["parallel_config.tensor_parallel_size"]
    if NODE_GPUS % tp:
        return Violation(f"tensor_parallel_size={tp} does not divide the {NODE_GPUS} GPUs of a node",
                         hint="use -tp 1, 2, 4 or 8")
    return None


@policy(
    "mysite.kv-connector-needs-prefix-caching",
    title="No KV connector without prefix caching",
    reads=("kv_transfer_config", "kv_transfer_config.kv_connector", "cache_config.enable_prefix_caching"),
)
def kv_connector_needs_prefix_caching(c: Mapping[str, Any]) -> Violation | None:
    """Our disaggregated prefill reuses the transferred blocks through the prefix cache."""
    if (c["kv_transfer_config"] is not None and c["kv_transfer_config.kv_connector"] is not None
            and not c["cache_config.enable_prefix_caching"]):
        return Violation(f"kv_connector {c['kv_transfer_config.kv_connector']} needs prefix caching, which is off",
                         hint="add --enable-prefix-caching")
    return None


@policy(
    "mysite.a100-context-limit",
    title="max_model_len is at most 64k on A100 nodes",
    reads=("platform.device_name", "model_config.max_model_len"),
)
def a100_context_limit(c: Mapping[str, Any]) -> Violation | None:
    """A100 nodes leave too little KV cache beyond 64k tokens for our batch sizes."""
    name = c["platform.device_name"] or ""
    if "A100" in name and c["model_config.max_model_len"] > A100_MAX_MODEL_LEN:
        return Violation(f"max_model_len={c['model_config.max_model_len']} is over {A100_MAX_MODEL_LEN} on {name}",
                         hint=f"use --max-model-len {A100_MAX_MODEL_LEN // 1024}k or less on A100 nodes")
    return None


@policy(
    "mysite.gpu-memory-utilization",
    title="Site default gpu_memory_utilization 0.85",
    reads=("cache_config.gpu_memory_utilization",),
    writes=("cache_config.gpu_memory_utilization",),
    message="Site default: gpu_memory_utilization 0.85 (vLLM's default is 0.9)",
    ensures=lambda c: c["cache_config.gpu_memory_utilization"] != VLLM_GPU_MEMORY_UTILIZATION,
)
def gpu_memory_utilization(c: Mapping[str, Any]) -> dict[str, Any] | None:
    """The node's monitoring agent needs the rest of the GPU memory.

    A rule sees values, not who set them: an explicit ``--gpu-memory-utilization 0.9`` reads as vLLM's
    default and becomes 0.85 too (pass 0.91 to keep about as much).
    """
    if c["cache_config.gpu_memory_utilization"] == VLLM_GPU_MEMORY_UTILIZATION:
        return {"cache_config.gpu_memory_utilization": SITE_GPU_MEMORY_UTILIZATION}
    return None
