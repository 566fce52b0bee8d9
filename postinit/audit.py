"""Comparing resolutions and auditing the rulebook: ``what_if``, ``diff`` and ``check``.

These are data objects with ``to_dict()``; the CLI only renders them.

>>> import postinit
>>> w = postinit.what_if(model="meta-llama/Llama-3.1-8B-Instruct", platform="h100",
...                      argv=[], set={"model_config.enforce_eager": True})   # doctest: +SKIP
>>> [d.path for d in w.diff.fields]                                           # doctest: +SKIP
['compilation_config.cudagraph_mode', ...]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from postinit._api import Request, Resolution, resolve, resolve_request
from postinit.engine import Provenance, Rulebook, jsonable, rule_of
from postinit.errors import PostinitError, RuleError, show
from postinit.rules import MODULES, PHASES, rulebook
from postinit.schema import Platform, VllmConfig
from postinit.schema.platform import PLATFORM_PRESETS

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = [
    "AUDIT_VERSION",
    "CheckFinding",
    "CheckReport",
    "ConfigDiff",
    "FieldDiff",
    "WhatIf",
    "check",
    "diff",
    "what_if",
]

AUDIT_VERSION = 1
"""Version of the ``to_dict()`` shapes in this module (see docs/trace-format.md)."""

_FACT_PREFIXES = ("platform.", "usage.", "version.")
_KINDS = ("default", "derive", "override", "check")


# --------------------------------------------------------------------------- diff


@dataclass(frozen=True, slots=True)
class FieldDiff:
    """One path whose resolved value differs between two resolutions."""

    path: str
    a: Any
    b: Any
    a_provenance: Provenance
    b_provenance: Provenance

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "a": {"value": jsonable(self.a), **self.a_provenance.to_dict()},
            "b": {"value": jsonable(self.b), **self.b_provenance.to_dict()},
        }


@dataclass(frozen=True, slots=True)
class ConfigDiff:
    """How resolution ``b`` differs from ``a``: resolved values and the rules that fired."""

    a_label: str
    b_label: str
    fields: tuple[FieldDiff, ...]
    started: tuple[str, ...]
    """Rules that fired in ``b`` but not in ``a``."""
    stopped: tuple[str, ...]
    """Rules that fired in ``a`` but not in ``b``."""
    a_ok: bool
    b_ok: bool
    sides: tuple[Resolution, Resolution] = field(repr=False, compare=False)
    """The two resolutions compared (their hashes are computed when first asked for)."""
    a_violations: tuple[str, ...] = ()
    b_violations: tuple[str, ...] = ()

    @property
    def a_hash(self) -> str:
        """Side a's ``compute_hash()``."""
        return self.sides[0].hash

    @property
    def b_hash(self) -> str:
        """Side b's ``compute_hash()``."""
        return self.sides[1].hash

    @property
    def same(self) -> bool:
        return not self.fields and not self.started and not self.stopped and self.a_ok == self.b_ok

    def __str__(self) -> str:
        """The plain text ``postinit diff`` prints."""
        from postinit.engine._show import plain
        from postinit.render import diff_renderable

        return plain(diff_renderable(self))

    def __repr__(self) -> str:
        return (f"<ConfigDiff a={self.a_label!r} b={self.b_label!r}: {len(self.fields)} fields differ · "
                f"{len(self.started)} rules started · {len(self.stopped)} stopped>")

    def __rich__(self) -> RenderableType:
        from postinit.render import diff_renderable

        return diff_renderable(self)

    def _repr_html_(self) -> str:
        from postinit.engine._show import html
        from postinit.render import diff_renderable

        return html(diff_renderable(self))

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": AUDIT_VERSION,
            "a": {"label": self.a_label, "ok": self.a_ok, "hash": self.a_hash,
                  "hash_exact": self.sides[0].hash_exact, "hash_reason": self.sides[0].hash_reason,
                  "violations": list(self.a_violations)},
            "b": {"label": self.b_label, "ok": self.b_ok, "hash": self.b_hash,
                  "hash_exact": self.sides[1].hash_exact, "hash_reason": self.sides[1].hash_reason,
                  "violations": list(self.b_violations)},
            "fields": [f.to_dict() for f in self.fields],
            "rules": {"started": list(self.started), "stopped": list(self.stopped)},
        }


Side = Resolution | Request | Mapping[str, Any] | str | Sequence[str] | VllmConfig | None
"""One side of :func:`diff`: a resolution, a request, a config dict, or ``vllm serve`` flags."""


def _resolved(side: Side, common: Mapping[str, Any]) -> Resolution:
    """A side of ``diff`` resolved: flags (a string or a list) or a config with the common inputs."""
    if isinstance(side, Resolution):
        return side
    if isinstance(side, Request):
        return resolve(side, rules=common.get("rules"))
    if isinstance(side, (str, list, tuple)):
        return resolve(argv=side, **common)
    return resolve(side, **common)  # type: ignore[arg-type]


def _label(side: Side, default: str) -> str:
    if isinstance(side, str):
        return side or "(no flags)"
    if isinstance(side, (list, tuple)):
        return " ".join(side) or "(no flags)"
    return default


def diff(a: Side, b: Side, *, a_label: str | None = None, b_label: str | None = None,
         facts: bool = False, **common: Any) -> ConfigDiff:
    """Compare two resolutions: every differing resolved path and the rules that started/stopped firing.

    Each side is what :func:`postinit.resolve` accepts — a :class:`Resolution` (used as is),
    a :class:`~postinit.Request`, a config dict or ``VllmConfig``, or ``vllm serve`` flags as
    one string or a list — resolved with the keyword arguments ``common`` (``model``,
    ``platform``, ``env``, ...). Platform and usage facts are left out unless ``facts`` is
    true (diff inputs normally share them); ``env.*`` paths are kept, since rules write them.
    """
    ra, rb = _resolved(a, common), _resolved(b, common)
    return _diff(ra, rb, a_label if a_label is not None else _label(a, "a"),
                 b_label if b_label is not None else _label(b, "b"), facts)


def _diff(a: Resolution, b: Resolution, a_label: str, b_label: str, facts: bool = False) -> ConfigDiff:
    from postinit.render import site_mark

    fields: list[FieldDiff] = []
    sa, sb = a.state, b.state
    differ = [
        p for p in sa.keys() | sb.keys()
        if (va := sa.get(p)) is not (vb := sb.get(p)) and (type(va) is not type(vb) or va != vb)
    ]
    for path in sorted(differ):
        if not facts and path.startswith(_FACT_PREFIXES):
            continue
        fields.append(FieldDiff(path, sa.get(path), sb.get(path), a.engine.provenance_of(path),
                                b.engine.provenance_of(path)))
    fa, fb = a.trace.rules_fired(), b.trace.rules_fired()
    return ConfigDiff(
        a_label, b_label, tuple(fields),
        started=tuple(r for r in fb if r not in fa),
        stopped=tuple(r for r in fa if r not in fb),
        a_ok=a.ok, b_ok=b.ok, sides=(a, b),
        a_violations=tuple(f"{v.rule}{site_mark(a, v.rule)}: {v.message}" for v in a.violations),
        b_violations=tuple(f"{v.rule}{site_mark(b, v.rule)}: {v.message}" for v in b.violations),
    )


# --------------------------------------------------------------------------- what-if


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The base resolution, the one with ``set`` applied on top, and their difference."""

    set: dict[str, Any]
    base: Resolution
    changed: Resolution
    diff: ConfigDiff

    def __str__(self) -> str:
        """The plain text ``postinit what-if`` prints."""
        from postinit.engine._show import plain
        from postinit.render import what_if_renderable

        return plain(what_if_renderable(self))

    def __repr__(self) -> str:
        from postinit.engine._show import show as shown

        what = ", ".join(f"{k}={shown(v)}" for k, v in self.set.items())
        d = self.diff
        return (f"<WhatIf {what}: {len(d.fields)} fields differ · {len(d.started)} rules started · "
                f"{len(d.stopped)} stopped · {'ok' if d.b_ok else 'invalid'}>")

    def __rich__(self) -> RenderableType:
        from postinit.render import what_if_renderable

        return what_if_renderable(self)

    def _repr_html_(self) -> str:
        from postinit.engine._show import html
        from postinit.render import what_if_renderable

        return html(what_if_renderable(self))

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": AUDIT_VERSION,
            "set": {k: jsonable(v) for k, v in self.set.items()},
            "diff": self.diff.to_dict(),
        }


def what_if(
    config: Any = None,
    *,
    set: Mapping[str, Any],
    catalog_only: bool = False,
    trace: Literal["minimal", "full", "debug"] = "full",
    rules: Any = None,
    **kwargs: Any,
) -> WhatIf:
    """Resolve the inputs as given and again with ``set`` (dotted path → value) on top.

    ``set`` values win over ``config`` and ``argv`` and count as user input;
    ``env.NAME`` keys change the environment instead. ``config`` may be a ready
    :class:`~postinit.Request`; ``rules`` are site rules resolved with vLLM's (both sides); every other
    keyword is :func:`postinit.resolve`'s.
    """
    base_request = config.plain() if isinstance(config, Request) else Request.build(config, **kwargs)
    base_request.changed(set)  # check the changes before resolving anything
    base = resolve_request(base_request, allow_files=not catalog_only, trace=trace, record=True, rules=rules)
    changed = base.with_changes(set)
    label = ", ".join(f"{k}={show(jsonable(v))}" for k, v in set.items())
    return WhatIf(dict(set), base, changed, _diff(base, changed, "as given", f"with {label}"))


# --------------------------------------------------------------------------- check


@dataclass(frozen=True, slots=True)
class CheckFinding:
    """One thing the static check found: an ``error`` (the rulebook does not compile) or a ``warning``/``info``."""

    level: str
    kind: str
    message: str
    rule: str | None = None
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"level": self.level, "kind": self.kind, "message": self.message}
        if self.rule:
            out["rule"] = self.rule
        if self.path:
            out["path"] = self.path
        return out


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The static analysis of a rulebook: findings plus a per-phase summary."""

    findings: tuple[CheckFinding, ...]
    phases: dict[str, dict[str, int]] = field(default_factory=dict)
    """phase → {"rules": n, "default": n, "derive": n, "override": n, "check": n}."""
    presets: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(f.level == "error" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": AUDIT_VERSION,
            "ok": self.ok,
            "findings": [f.to_dict() for f in self.findings],
            "phases": self.phases,
            "presets": list(self.presets),
        }


def _compile_error_kind(e: RuleError) -> str:
    name = type(e).__name__
    return {
        "UnorderedWritersError": "unordered-writers",
        "CycleError": "undeclared-cycle",
        "UnknownPathError": "unknown-path",
        "RuleDeclarationError": "declaration",
    }.get(name, "compile")


def _declared_counts() -> dict[str, dict[str, int]]:
    """Rules per phase and kind as declared in the rule modules (when the rulebook does not compile)."""
    counts: dict[str, Counter[str]] = {p: Counter() for p in PHASES}
    seen: set[str] = set()
    for module in MODULES:
        for value in vars(module).values():
            r = rule_of(value)
            if r is not None and r.id not in seen and r.phase in counts:
                seen.add(r.id)
                counts[r.phase][r.kind.value] += 1
    return {p: {"rules": sum(c.values()), **{k: c.get(k, 0) for k in _KINDS}} for p, c in counts.items()}


def check(book: Rulebook | None = None, *, probe: bool = True, vllm_version: str | None = None) -> CheckReport:
    """Statically check the vLLM rulebook of ``vllm_version`` (default the seed's; or ``book``) and summarise it.

    Compile errors (unordered writers, undeclared cycles, unknown paths, bad
    headers) are ``error`` findings. Two cheap, honest platform checks follow:

    * ``constant-fact``: a rule reads a platform fact that has the same value
      on every platform preset, so any condition on the other value can only
      be met with a hand-built :class:`~postinit.schema.Platform`;
    * ``never-fired`` (``probe=True``): a platform-phase rule that did not fire
      when the default model was resolved on every preset; this is evidence,
      not proof, since other inputs may fire it.
    """
    presets = tuple(p for p in PLATFORM_PRESETS if p != "auto")
    if book is None:
        try:
            book = rulebook(vllm_version) if vllm_version is not None else rulebook()
        except PostinitError as e:
            kind = _compile_error_kind(e) if isinstance(e, RuleError) else "compile"
            finding = CheckFinding("error", kind, e.message, e.rule, e.path)
            return CheckReport((finding,), _declared_counts(), presets)
    findings: list[CheckFinding] = []
    phases: dict[str, dict[str, int]] = {}
    for phase in book.phases:
        kinds = Counter(book.rules[r].kind.value for r in book.order[phase])
        phases[phase] = {"rules": len(book.order[phase]),
                         **{k: kinds.get(k, 0) for k in _KINDS}}

    facts = {name: Platform.from_spec(name).model_dump() for name in presets}
    for r in book.rules.values():
        for p in r.reads:
            if not p.startswith("platform."):
                continue
            key = p.removeprefix("platform.")
            values = {repr(f.get(key)) for f in facts.values()}
            if len(values) == 1:
                findings.append(CheckFinding(
                    "warning", "constant-fact",
                    f"rule {r.id} reads {p}, which is {values.pop()} on every platform preset; "
                    f"a condition on any other value is met only by a custom Platform",
                    r.id, p,
                ))
    if probe:
        platform_rules = [r.id for r in book.rules.values() if r.phase == "platform"]
        if platform_rules:
            fired: set[str] = set()
            for name in presets:
                try:
                    fired.update(resolve(platform=name, usage="serve",
                                         vllm_version=vllm_version).trace.rules_fired())
                except PostinitError:
                    continue
            for rid in platform_rules:
                if rid not in fired:
                    findings.append(CheckFinding(
                        "info", "never-fired",
                        f"rule {rid} did not fire for the default model on any of {len(presets)} platform presets",
                        rid,
                    ))
    return CheckReport(tuple(findings), phases, presets)
