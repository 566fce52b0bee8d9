"""Property-testing site rules against vLLM's rulebook: :func:`postinit.testing.check_rules`.

Every example input (drawn by hypothesis from the vLLM factor table, or your own strategy)
is resolved by the combined rulebook (vLLM's version plus your rules) and run through every
invariant (:func:`postinit.rules.invariants.check_vllm`: determinism, termination, a complete
trace, declared reads and writes, postconditions; vLLM's own known quirks tolerated). The
registration-order invariant is a property of the rulebook, not of an input: it is checked
once, on the combined rulebook. Besides failures, the report says what the examples did
*not* exercise: rules that never fired (their ``ensures=`` was then never checked), rules
whose condition was never true or never false, and the pairs of rules — yours × vLLM's —
that write one path or read each other's writes, with how often both fired on one input.

A failure is shrunk to a small input and shown as a ``postinit resolve …`` command line and
as the library call, both of which reproduce it. Once an example fails, shrinking re-checks
only the invariant that failed (a resolution or two per candidate instead of a dozen).
"""

from __future__ import annotations

import json
import random
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from postinit.engine import Evaluated, Fired, Rulebook, ViolationEvent, jsonable
from postinit.errors import PostinitError, RuleError
from postinit.rules.versions import DEFAULT_VERSION, version_name
from postinit.schema import Platform
from postinit.site import RulesSpec, SiteRules, load, site_rulebook

if TYPE_CHECKING:  # pragma: no cover
    from hypothesis import strategies as st

__all__ = ["Counterexample", "Interaction", "RuleCoverage", "RulesCheckError", "RulesReport", "check_rules",
           "command_line", "python_call"]

Inputs = tuple[dict[str, Any], dict[str, Any]]


@dataclass
class RuleCoverage:
    """What one site rule did over the examples."""

    rule: str
    owner: str | None
    phase: str
    has_ensures: bool
    reached: int = 0
    """Examples on which it ran (resolution was not stopped before it)."""
    fired: int = 0
    """Examples on which its condition held: it changed a value, logged or raised."""
    violated: int = 0

    @property
    def never_fired(self) -> bool:
        return self.fired == 0

    @property
    def never_false(self) -> bool:
        """Its condition held on every example that reached it (a default that always applies, a check that
        always refuses)."""
        return self.reached > 0 and self.fired == self.reached

    def notes(self) -> list[str]:
        out = []
        if self.reached == 0:
            out.append("never reached: an earlier violation stopped every example before it ran")
        elif self.never_fired:
            out.append(f"never fired on the {self.reached} examples that reached it: its condition was never true"
                       + ("; its ensures= was never checked" if self.has_ensures else ""))
        elif self.never_false:
            out.append(f"fired on all {self.reached} examples that reached it: its condition was never false")
        return out


@dataclass
class Interaction:
    """A site rule and a vLLM rule that touch one path: both write it, or one reads what the other writes."""

    site: str
    vllm: str
    how: str
    paths: tuple[str, ...]
    together: int = 0
    """Examples on which both fired."""


@dataclass
class Counterexample:
    """The smallest failing input found, as the invariant's message, a command line and a library call."""

    invariant: str
    message: str
    inputs: Inputs
    command: str
    python: str

    @property
    def summary(self) -> str:
        """The invariant's verdict and the rules involved (the message without the input and trace)."""
        return "\n".join(line for line in self.message.splitlines()
                         if not line.startswith(("  input (differs", "  trace", "    ")))

    def __str__(self) -> str:
        return (f"{self.summary}\n\nreproduce it:\n  {self.command}\n\nor from Python:\n"
                + "\n".join(f"  {line}" for line in self.python.splitlines()))


class RulesCheckError(AssertionError):
    """:func:`check_rules` found a problem: a failing invariant, or a rule the examples never fired."""

    def __init__(self, report: RulesReport) -> None:
        self.report = report
        super().__init__(str(report))


@dataclass
class RulesReport:
    """What :func:`check_rules` found over its examples."""

    version: str
    examples: int
    rules: tuple[RuleCoverage, ...]
    interactions: tuple[Interaction, ...]
    failure: Counterexample | None = None
    quirks: dict[str, int] = field(default_factory=dict)
    """vLLM's own known quirks (docs/quirks.md) the examples hit, tolerated: name -> examples."""
    allow_unfired: frozenset[str] = frozenset()

    @property
    def unfired(self) -> tuple[RuleCoverage, ...]:
        """The rules that never fired and are not in ``allow_unfired``."""
        return tuple(c for c in self.rules if c.never_fired and c.rule not in self.allow_unfired)

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.unfired

    def __str__(self) -> str:
        verdict = ("ok" if self.ok else "FAILED" if self.failure is not None
                   else f"{len(self.unfired)} rule(s) never fired")
        lines = [f"check_rules: {verdict} — {self.examples} examples on vLLM {self.version}, "
                 f"{len(self.rules)} site rule(s)"]
        if self.failure is not None:
            lines += ["", str(self.failure)]
        lines += ["", "rules (examples reached / fired / violated)"
                  + (" — before the failing example:" if self.failure is not None else ":")]
        for c in self.rules:
            lines.append(f"  {c.rule}: {c.reached} / {c.fired} / {c.violated}")
            lines += [f"    - {n}" for n in c.notes()] if self.examples else []
        if self.interactions:
            together = [i for i in self.interactions if i.together]
            apart = [i for i in self.interactions if not i.together]
            lines += ["", f"your rules x vLLM's touching one path: {len(self.interactions)} pair(s), "
                          f"{len(together)} exercised together (examples on which both fired):"]
            for i in together:
                lines.append(f"  {i.site} x {i.vllm}: {i.how} {', '.join(i.paths)} — {i.together}")
            if apart:
                names = ", ".join(f"{i.site} x {i.vllm}" for i in apart[:6])
                lines.append(f"  never both fired: {names}" + (f" and {len(apart) - 6} more" if len(apart) > 6 else ""))
        if self.quirks:
            lines += ["", "vLLM's known quirks hit (tolerated): "
                      + ", ".join(f"{k} ({v})" for k, v in sorted(self.quirks.items()))]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "version": self.version, "examples": self.examples,
            "failure": None if self.failure is None else {
                "invariant": self.failure.invariant, "message": self.failure.message,
                "command": self.failure.command, "python": self.failure.python},
            "rules": [{"rule": c.rule, "owner": c.owner, "phase": c.phase, "reached": c.reached, "fired": c.fired,
                       "violated": c.violated, "notes": c.notes()} for c in self.rules],
            "unfired": [c.rule for c in self.unfired],
            "interactions": [{"site": i.site, "vllm": i.vllm, "how": i.how, "paths": list(i.paths),
                              "together": i.together} for i in self.interactions],
            "quirks": dict(sorted(self.quirks.items())),
        }


# --------------------------------------------------------------------------- static: who touches what


def interactions(book: Rulebook, site: SiteRules) -> list[Interaction]:
    """Pairs (site rule, vLLM rule) writing one path, or one reading what the other wrote before it ran."""
    mine = {r.id for r in site.rules}
    position = {rid: (i, j) for i, ph in enumerate(book.phases) for j, rid in enumerate(book.order[ph])}

    def runs(rule_id: str) -> tuple[int, int]:
        return position.get(book.unit_of.get(rule_id, rule_id), (len(book.phases), 0))

    out: list[Interaction] = []
    for s in site.rules:
        for v in book.rules.values():
            if v.id in mine:
                continue
            before = runs(v.id) < runs(s.id)
            for how, found in (("both write", set(s.writes) & set(v.writes)),
                               ("reads what it wrote:", set(s.reads) & set(v.writes) - set(s.writes)
                                if before else set()),
                               ("writes what it then reads:", set(s.writes) & set(v.reads) - set(v.writes)
                                if not before else set())):
                if found:
                    out.append(Interaction(s.id, v.id, how, tuple(sorted(found))))
    return out


# --------------------------------------------------------------------------- counterexamples a person can run


def _platform_spec(plat: Any) -> str:
    if isinstance(plat, str):
        return plat
    from postinit.schema.platform import PLATFORM_PRESETS
    from postinit.testing import PLATFORMS

    for name in (*PLATFORMS, *PLATFORM_PRESETS):  # the kit's own specs first: "cuda" is an H100 too
        if name != "auto" and Platform.from_spec(name) == plat:
            return name
    return f"cuda:{plat.capability}" if getattr(plat, "capability", None) else str(plat.kind)


def _rules_args(site: SiteRules) -> list[str]:
    """``--rules`` options loading exactly ``site``'s rules (a module given by objects only if it holds just them)."""
    specs = list(site.specs)
    for module in dict.fromkeys(m for m, _ in site.refs):
        try:
            if module != "site" and set(load(module).ids) <= set(site.ids):
                specs.append(module)
        except PostinitError:
            pass
    return [a for spec in specs for a in ("--rules", spec)]


def command_line(config: Mapping[str, Any], kwargs: Mapping[str, Any], site: SiteRules | None = None,
                 version: str = DEFAULT_VERSION) -> str:
    """A shell command running ``postinit resolve`` on exactly these inputs (the config via a JSON file)."""
    args = ["postinit", "resolve"]
    prefix = ""
    if config:
        prefix = f"echo {shlex.quote(json.dumps(jsonable(dict(config)), sort_keys=True))} > case.json && "
        args += ["--config", "case.json"]
    if kwargs.get("usage"):
        args += ["--usage", str(kwargs["usage"])]
    args += ["--platform", _platform_spec(kwargs.get("platform") or "h100")]
    for k, v in sorted((kwargs.get("env") or {}).items()):
        args += ["--env", f"{k}={v}"]
    if version != DEFAULT_VERSION:
        args += ["--vllm-version", version]
    note = ""
    if site is not None:
        given = _rules_args(site)
        args += given
        covered = set().union(*(load(spec).ids for spec in given[1::2])) if given else set()
        missing = [rid for rid in site.ids if rid not in covered]
        if missing:
            note = f"  # add --rules FILE.py with your rule(s) {', '.join(missing)}"
    return prefix + shlex.join(args) + note


def python_call(config: Mapping[str, Any], kwargs: Mapping[str, Any], site: SiteRules | None = None,
                version: str = DEFAULT_VERSION) -> str:
    """The library call resolving exactly these inputs."""
    parts = [repr(jsonable(dict(config)))] if config else []
    if kwargs.get("usage"):
        parts.append(f"usage={kwargs['usage']!r}")
    parts.append(f"platform={_platform_spec(kwargs.get('platform') or 'h100')!r}")
    if kwargs.get("env"):
        parts.append(f"env={dict(sorted(kwargs['env'].items()))!r}")
    if version != DEFAULT_VERSION:
        parts.append(f"vllm_version={version!r}")
    head = ["import postinit"]
    if site is not None:
        given = [repr(s) for s in site.specs]
        for module, name in site.refs:
            head.append(f"from {module} import {name}")
            given.append(name)
        parts.append(f"rules=[{', '.join(given)}]")
    return "\n".join(head) + "\nr = postinit.resolve(" + ", ".join(parts) + ")\nprint(r.ok, r.violations)"


# --------------------------------------------------------------------------- the checks


def _focused(invariant: str) -> Callable[[Rulebook, Mapping[str, Any]], Any]:
    """A cheaper re-check of one failed invariant, for shrinking (the full set otherwise)."""
    from postinit.engine import testing as kit
    from postinit.rules import invariants

    def postconditions(book: Rulebook, state: Mapping[str, Any]) -> Any:
        result = book.resolve(state)
        allow = invariants.postcondition_allow()
        for rid, by in kit.check_postconditions(result, allow=allow):
            if by not in allow.get(rid, ()):
                raise kit.InvariantViolation(
                    "postconditions", f"rule {rid}'s postcondition broken by {by}, which no known quirk allows",
                    book=book, state=state, result=result, rules=[rid, by])
        return None

    table: dict[str, Callable[[Rulebook, Mapping[str, Any]], Any]] = {
        "postconditions": postconditions,
        "determinism": kit.check_determinism,
        "declared-writes": kit.check_declared_writes,
        "trace-completeness": lambda b, s: kit.check_trace_completeness(b.resolve(s)),
        "rule-error": lambda b, s: b.resolve(s),
    }
    return table.get(invariant, lambda b, s: invariants.check_vllm(b, s, permutations=0))


def _prepare(case: Inputs, version: str) -> dict[str, Any]:
    from postinit._api import prepare

    config, kwargs = case
    state, _, _ = prepare(dict(config), vllm_version=version, **kwargs)
    return state


def check_rules(
    rules: RulesSpec,
    *,
    version: str = DEFAULT_VERSION,
    inputs: st.SearchStrategy[Inputs] | None = None,
    max_examples: int = 50,
    seed: int | None = 0,
    allow_unfired: Iterable[str] = (),
    raise_on_problems: bool = True,
) -> RulesReport:
    """Property-test your ``rules`` with vLLM ``version``'s rulebook over ``inputs``; return (or raise) the report.

    ``rules`` is what ``postinit.resolve(rules=...)`` takes; ``inputs`` a hypothesis strategy of
    ``(config, resolve_kwargs)`` pairs (default :func:`postinit.testing.resolve_inputs`). Raises
    :class:`RulesCheckError` (an ``AssertionError``) when an invariant fails — with the shrunk input as a
    ``postinit resolve`` command line and a library call — or when one of your rules never fired over the
    examples (its ``ensures=`` then went unchecked; name it in ``allow_unfired`` if that is expected), unless
    ``raise_on_problems`` is false. ``seed`` makes the examples reproducible (None: hypothesis' own).
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from postinit import testing as vs
    from postinit.engine import testing as kit
    from postinit.rules import invariants

    site = load(rules)
    if not site:
        raise ValueError("check_rules: no rules given")
    name = version_name(version)
    book = site_rulebook(name, site)
    strategy = inputs if inputs is not None else vs.resolve_inputs()
    coverage = {r.id: RuleCoverage(r.id, r.owner, r.phase, r.ensures is not None) for r in site.rules}
    pairs = interactions(book, site)
    quirks: dict[str, int] = {}
    examples = [0]
    failing: dict[str, Any] = {}

    # registration order is the rulebook's property: shuffled registrations must compile to the same order
    shuffled = book.rebuilt(random.Random(seed or 0).sample(list(book.rules.values()), len(book.rules)))
    if shuffled.order != book.order:
        bad = next(ph for ph in book.phases if shuffled.order[ph] != book.order[ph])
        raise kit.InvariantViolation("registration-order", f"phase {bad}'s order depends on registration order")

    def record(state: Mapping[str, Any]) -> None:
        fired = _count(book, state, coverage)
        for i in pairs:
            if i.site in fired and i.vllm in fired:
                i.together += 1

    @hypothesis_seed(seed if seed is not None else random.getrandbits(32))
    @settings(max_examples=max_examples, deadline=None, database=None, print_blob=False,
              suppress_health_check=list(HealthCheck),
              # no "explain" phase: it re-ran the shrunk example hundreds of times (9 of 13 s)
              phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
    @given(strategy)
    def run(case: Inputs) -> None:
        state = _prepare(case, name)
        focus = failing.get("invariant")
        try:
            if focus is None:
                hits = invariants.check_vllm(book, state, permutations=0)
            else:
                _focused(focus)(book, state)
                hits = []
        except kit.InvariantViolation as e:
            if focus is None:
                failing["invariant"] = e.invariant
            failing.update(case=case, error=e, invariant=failing["invariant"])
            raise
        except RuleError as e:
            if focus is None:
                failing["invariant"] = "rule-error"
            failing.update(case=case, error=e, invariant=failing["invariant"])
            raise
        if focus is None:  # the generate phase: count what the examples exercised
            examples[0] += 1
            for h in hits:
                quirks[h.quirk] = quirks.get(h.quirk, 0) + 1
            record(state)

    failure = None
    try:
        run()
    except (kit.InvariantViolation, RuleError, PostinitError):
        if "case" not in failing:
            raise
        config, kwargs = failing["case"]
        err = failing["error"]
        failure = Counterexample(failing["invariant"], str(err), failing["case"],
                                 command_line(config, kwargs, site, name), python_call(config, kwargs, site, name))
    report = RulesReport(name, examples[0], tuple(coverage.values()), tuple(pairs), failure, quirks,
                         frozenset(allow_unfired))
    if raise_on_problems and not report.ok:
        raise RulesCheckError(report)
    return report


def _count(book: Rulebook, state: Mapping[str, Any], coverage: Mapping[str, RuleCoverage]) -> set[str]:
    """Count one example into ``coverage`` (each rule once per example); return every rule that fired."""
    debug = book.resolve(state, trace="debug")
    reached: set[str] = set()
    fired: set[str] = set()
    violated: set[str] = set()
    for ev in debug.trace.events:
        if isinstance(ev, (Fired, ViolationEvent, Evaluated)):
            reached.add(ev.rule)
            if not isinstance(ev, Evaluated):
                fired.add(ev.rule)
            if isinstance(ev, ViolationEvent):
                violated.add(ev.rule)
    for rid, c in coverage.items():
        c.reached += rid in reached
        c.fired += rid in fired
        c.violated += rid in violated
    return fired


def site_coverage(book: Rulebook, site: SiteRules, states: Iterable[Mapping[str, Any]]) -> list[RuleCoverage]:
    """Coverage of the site rules over ready flat states (what ``postinit sweep --rules`` reports)."""
    coverage = {r.id: RuleCoverage(r.id, r.owner, r.phase, r.ensures is not None) for r in site.rules}
    for state in states:
        _count(book, state, coverage)
    return list(coverage.values())
