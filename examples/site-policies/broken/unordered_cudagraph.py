"""A policy written into vLLM's ``core`` phase without saying where it runs: the rulebook refuses it.

``postinit resolve --rules examples/site-policies/broken/unordered_cudagraph.py`` fails with one line
naming this rule and the vLLM rule it is unordered with. Fixed either way:

* ``phase="site"`` (the default of ``@policy``): it runs after all of vLLM's rules, on the resolved mode;
* ``after=("cudagraph.default-mode", ...)``: it runs inside ``core``, after the vLLM rules it names.
"""

from collections.abc import Mapping
from typing import Any

from postinit.schema import CUDAGraphMode
from postinit.site import policy


@policy(
    "mysite.lora-piecewise",
    title="LoRA serving keeps FULL cudagraphs off",
    phase="core",
    reads=("lora_config", "compilation_config.cudagraph_mode"),
    writes=("compilation_config.cudagraph_mode",),
)
def lora_piecewise(c: Mapping[str, Any]) -> dict[str, Any] | None:
    """Our LoRA kernels are not captured in full graphs."""
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is not None and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    return None
