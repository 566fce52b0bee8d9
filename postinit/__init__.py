"""postinit: vLLM's config resolution as declarative, explainable rules.

>>> import postinit
>>> r = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", platform="b200",
...                      argv=["--max-model-len", "200k"])       # doctest: +SKIP
>>> r.get("compilation_config.cudagraph_mode")                     # doctest: +SKIP
<CUDAGraphMode.PIECEWISE: 1>
>>> print(r.why("compilation_config.cudagraph_mode").rule)         # doctest: +SKIP
cudagraph.blackwell-long-context-forces-piecewise
"""

from typing import TYPE_CHECKING

from postinit._api import (
    DEFAULT_MODEL,
    DEFAULT_PLATFORM,
    Request,
    Resolution,
    resolve,
    resolve_request,
)
from postinit.engine._lazy import lazy_getattr
from postinit.errors import (
    InputError,
    NoFixedPoint,
    PostinitError,
    RuleError,
    ViolationError,
)
from postinit.rules import paths
from postinit.rules.versions import rulebook

if TYPE_CHECKING:
    from postinit._upgrade import Upgrade, VersionInfo, upgrade, versions
    from postinit.audit import ConfigDiff, WhatIf, diff, what_if

__version__ = "0.1.0"

_LAZY = {"ConfigDiff", "WhatIf", "diff", "what_if"}
"""Names of :mod:`postinit.audit`, imported on first use (start-up time)."""
_LAZY_UPGRADE = {"Upgrade", "VersionInfo", "upgrade", "versions"}
"""Names of :mod:`postinit._upgrade`, imported on first use."""

_audit_getattr = lazy_getattr(__name__, globals(), _LAZY, "postinit.audit")
_upgrade_getattr = lazy_getattr(__name__, globals(), _LAZY_UPGRADE, "postinit._upgrade")


def __getattr__(name: str) -> object:
    return _upgrade_getattr(name) if name in _LAZY_UPGRADE else _audit_getattr(name)

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_PLATFORM",
    "ConfigDiff",
    "InputError",
    "NoFixedPoint",
    "PostinitError",
    "Request",
    "Resolution",
    "RuleError",
    "Upgrade",
    "VersionInfo",
    "ViolationError",
    "WhatIf",
    "__version__",
    "diff",
    "paths",
    "resolve",
    "resolve_request",
    "rulebook",
    "upgrade",
    "versions",
    "what_if",
]
