"""Which rules of the rulebook real vLLM exercised in the golden corpus.

``python -m tests.golden.parity --coverage`` prints, for every rule, the golden
cases (matching the oracle under :func:`tests.golden.parity.compare`) in which
it changed a value, logged or raised, and for every rule no case exercises, the
reason none can (:data:`UNEXERCISABLE`). A rule counts only in a case whose
whole comparison matches: then real vLLM made the same decision, with the same
result and log, as the rule did.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from postinit.rules import rulebook
from tests.golden.parity import Comparison, compare_all

_CPU_ARCH = ("needs a POWER, S390X, ARM or RISC-V CPU; the oracle runs vLLM's unmodified CpuPlatform on an "
             "x86-64 machine (the CPU architecture is not simulated)")
_OFFLINE = ("needs a model on S3 or GCS (model_weights s3:// or gs://); the oracle is offline and loads its "
            "fixtures from a local directory")

UNEXERCISABLE: Mapping[str, str] = {
    "engine-args.cpu-arch-disables-chunked-prefill": _CPU_ARCH,
    "engine-args.cpu-arch-disables-prefix-caching": _CPU_ARCH,
    "model.config-updated": "it writes config_updated=False, which changes only an input that arrives with True; "
    "vLLM's ModelConfig has no such init field (it sets the attribute in __post_init__), so no oracle case can "
    "hand one in",
    "models.runai-load-format": _OFFLINE,
    "quirk.debug-dump-path-tilde": "needs a relative debug_dump_path ('~/x'), which vLLM resolves against the "
    "oracle process's working directory: the golden value would record the machine the oracle ran on",
    "quirk.instance-id-ignored": "needs a user-supplied instance_id; the oracle's case format has no instance_id "
    "key (config mode passes only the sub-configs) and vllm serve has no flag for it",
    "scheduler.hma-off-platform": "needs a platform whose support_hybrid_kv_cache() is False; CUDA, ROCm and CPU "
    "(the platforms the oracle simulates) all return True",
}
"""Rule id -> why no golden case can exercise it with the oracle (platform, environment, inputs it cannot build)."""

NEVER_RAISED: Mapping[str, str] = {
    "models.runai-load-format": _OFFLINE,
    "device.device-type": "raises when the platform reports no device type; CUDA, ROCm and CPU all report one",
    "models.hybrid-mamba-page-padding": "asserts attention page >= mamba page, which "
    "models.hybrid-attention-block-size has just ensured by raising the block size (a larger user block only "
    "makes the page larger)",
    "models.jinavl-ranking": "dereferences pooler_config, which is None only under a generate runner, and vLLM "
    "refuses that runner for JinaVLForRanking first (model.runner-supported)",
}
"""Rule id -> why none of its violations can be raised by real vLLM in a golden case (exercised or not)."""

TARGET = 0.95
"""The share of rules real vLLM must exercise (issue 20)."""


@dataclass(frozen=True)
class Coverage:
    rules: tuple[str, ...]
    """Every rule id of the rulebook, sorted."""
    cases: Mapping[str, tuple[str, ...]]
    """Rule id -> the matching golden cases in which it changed a value, logged or raised."""
    raised: Mapping[str, tuple[str, ...]]
    """Rule id -> the matching golden cases that failed with its violation."""
    violating: frozenset[str]
    """The rules that can return a Violation."""

    @property
    def exercised(self) -> tuple[str, ...]:
        return tuple(r for r in self.rules if self.cases.get(r))

    @property
    def unexercised(self) -> tuple[str, ...]:
        return tuple(r for r in self.rules if not self.cases.get(r))

    @property
    def share(self) -> float:
        return len(self.exercised) / len(self.rules)

    @property
    def never_raised(self) -> tuple[str, ...]:
        """Rules with a violation that no matching golden case fails with."""
        return tuple(r for r in sorted(self.violating) if not self.raised.get(r))


def violating_rules() -> frozenset[str]:
    """The rules whose function can return a ``Violation`` (read from their source)."""
    return frozenset(r.id for r in rulebook().rules.values() if "Violation(" in inspect.getsource(r.fn))


def coverage(comparisons: Iterable[Comparison]) -> Coverage:
    """Collect, over the matching comparisons, which rules fired and which raised."""
    cases: dict[str, list[str]] = {}
    raised: dict[str, list[str]] = {}
    for c in comparisons:
        if not c.matches:
            continue
        for rid in c.fired:
            cases.setdefault(rid, []).append(c.case)
        if c.raised is not None:
            raised.setdefault(c.raised, []).append(c.case)
    return Coverage(
        rules=tuple(sorted(rulebook().rules)),
        cases={k: tuple(v) for k, v in cases.items()},
        raised={k: tuple(v) for k, v in raised.items()},
        violating=violating_rules(),
    )


def report(cov: Coverage) -> list[str]:
    """The ``--coverage`` listing: every rule with its cases (or why none), then the summary."""
    lines = ["rule coverage by real vLLM (matching golden cases in which the rule changed a value, logged or raised)"]
    width = max(map(len, cov.rules))
    for rid in cov.rules:
        hits = cov.cases.get(rid, ())
        if hits:
            raised = cov.raised.get(rid, ())
            extra = f", raised in {len(raised)} ({raised[0]})" if raised else ""
            lines.append(f"  ✓ {rid:{width}}  {len(hits):3d} case(s), e.g. {hits[0]}{extra}")
        else:
            lines.append(f"  ✗ {rid:{width}}  {UNEXERCISABLE.get(rid, 'NO REASON GIVEN')}")
    lines.append("rules with a violation that no golden case raises:")
    for rid in cov.never_raised:
        lines.append(f"  ✗ {rid:{width}}  {NEVER_RAISED.get(rid, 'NO REASON GIVEN')}")
    n, total = len(cov.exercised), len(cov.rules)
    lines.append(f"{n}/{total} rules ({100 * cov.share:.1f}%) exercised by real vLLM; "
                 f"{total - n} not (reasons above); target {100 * TARGET:.0f}%")
    never = cov.never_raised
    lines.append(f"{len(cov.violating) - len(never)}/{len(cov.violating)} rules with a violation raise in a "
                 f"golden case" + (f"; never: {', '.join(never)}" if never else ""))
    return lines


def main(argv: list[str]) -> int:
    pattern = argv[0] if argv else "*.json"
    cov = coverage(compare_all(pattern))
    print("\n".join(report(cov)))
    return 0
