"""What an upgrade changes: the modelled vLLM versions, and one input resolved on two of them.

:func:`versions` lists what postinit models (each version with its parent, the real
vLLM it was checked against and the size of its delta). :func:`upgrade` resolves one
request on two versions and returns the decisions that change: every field whose
final value differs, each with the rule (or input) that decided it on either side,
that rule's reason and log line, and how the rule itself differs between the two
versions (dropped, added or replaced by the newer version's delta).

>>> import postinit
>>> u = postinit.upgrade(model="meta-llama/Llama-3.1-8B-Instruct", argv=["--no-enable-chunked-prefill"],
...                      from_version="d7fb10c57", to_version="0.11.1")           # doctest: +SKIP
>>> [c.path for c in u.changes][:2]                                               # doctest: +SKIP
['scheduler_config.enable_chunked_prefill', 'scheduler_config.max_num_batched_tokens']
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from postinit._api import Request, Resolution, resolve_request
from postinit.engine import Provenance, Rulebook, Source, jsonable
from postinit.engine._show import brief, origin
from postinit.errors import InputError, InvalidValueError
from postinit.rules import paths as _paths
from postinit.rules import versions as _versions

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = [
    "FIELD_ALIASES", "UPGRADE_VERSION", "DecisionChange", "Outcome", "Refused", "Side", "Upgrade", "VersionInfo",
    "compare_versions", "json_schema", "upgrade", "versions",
]

UPGRADE_VERSION = 1
"""Version of the ``to_dict()`` shapes in this module."""

_FACT_PREFIXES = ("platform.", "usage.", "version.")

FIELD_ALIASES: dict[str, dict[str, str]] = {
    "0.11.1": {"scheduler_config.chunked_prefill_enabled": "scheduler_config.enable_chunked_prefill"},
}
"""Per version: a field it has as a property reading another field, not as a field of its own: path -> the
field it reads. vLLM 0.11.1's deprecated ``SchedulerConfig.chunked_prefill_enabled`` returns
``enable_chunked_prefill`` (the seed kept a field of its own; 0.34.0 has neither). An upgrade compares such a
field like any other (seed -> 0.11.1: the seed's field against 0.11.1's property), and so does the golden
comparator (``tests/golden/parity.py``)."""


# --------------------------------------------------------------------------- the modelled versions


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """One modelled vLLM version, for ``postinit versions`` / ``GET /v1/versions``."""

    name: str
    title: str
    parent: str | None
    default: bool
    oracle: str
    """The real vLLM its rulebook was checked against (and the golden corpus holding its answers)."""
    source: str
    rules: int
    added: int
    replaced: int
    dropped: int
    patched: int
    fields_added: int
    fields_removed: int
    env_table: str
    status: str | None = None
    """None for a complete model; a partial one says what is measured (its golden parity)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "title": self.title, "parent": self.parent, "default": self.default,
            "oracle": self.oracle, "source": self.source, "rules": self.rules,
            "delta": {"added": self.added, "replaced": self.replaced, "dropped": self.dropped, "patched": self.patched,
                      "fields_added": self.fields_added, "fields_removed": self.fields_removed},
            "env_table": f"postinit/schema/data/envs-{self.env_table}.json",
            "status": self.status or "complete",
        }


def versions() -> list[VersionInfo]:
    """Every modelled vLLM version, parents first (the default is the seed commit ``d7fb10c57``)."""
    out = []
    for v in _versions.VERSIONS.values():
        d = v.delta
        out.append(VersionInfo(
            name=v.name, title=v.title, parent=v.parent.name if v.parent else None,
            default=v.name == _versions.DEFAULT_VERSION, oracle=v.oracle, source=v.source, rules=len(v.rulebook),
            added=len(d.add), replaced=len(d.replace), dropped=len(d.drop), patched=len(d.patch), fields_added=len(d.fields_added), fields_removed=len(d.fields_removed),
            env_table=v.env_table, status=v.status,
        ))
    return out


def json_schema(version: str | _versions.Version = _versions.DEFAULT_VERSION) -> dict[str, Any]:
    """The JSON Schema of the nested input config for ``version``: the fields that version lacks left out."""
    from pydantic import TypeAdapter

    from postinit.schema import VllmConfig

    doc: dict[str, Any] = TypeAdapter(VllmConfig).json_schema()
    defs = doc.get("$defs", {})

    def target(node: dict[str, Any]) -> dict[str, Any]:
        for option in [node, *node.get("anyOf", ())]:
            ref = option.get("$ref")
            if isinstance(ref, str):
                return dict(defs[ref.rsplit("/", 1)[1]])
        return node

    for path in sorted(_versions.get(version).absent_paths):
        *head, last = path.split(".")
        node = doc
        for part in head:
            node = target(node.get("properties", {}).get(part, {}))
        props = node.get("properties")
        if isinstance(props, dict):
            name = next((n for n, d in defs.items() if d.get("properties") is props), None)
            if name is not None:  # copy on write: a $def other paths share keeps its other fields
                defs[name] = {**defs[name], "properties": {k: v for k, v in props.items() if k != last}}
            else:
                props.pop(last, None)
    return doc


# --------------------------------------------------------------------------- one decision on two versions


@dataclass(frozen=True, slots=True)
class Side:
    """How one version decided one field: the value, who set it and why."""

    version: str
    value: Any
    by: str
    """Where the value came from, in words: ``rule <id>``, ``your --flag``, ``default``, ``config.json:...``."""
    rule: str | None = None
    title: str | None = None
    reason: str | None = None
    """The rule's reason (the first sentence of its docstring): why vLLM decides this way."""
    source: str | None = None
    """The vLLM source the rule mirrors."""
    message: str | None = None
    """What vLLM logged when the rule decided (the rule's message in this resolution)."""
    rule_change: str | None = None
    """How the deciding rule differs in the other version (dropped, added, replaced), with the delta's reason."""
    present: bool = True
    """False when this version has no such field."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": self.version, "present": self.present, "value": jsonable(self.value),
                               "by": self.by}
        for key in ("rule", "title", "reason", "source", "message", "rule_change"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class DecisionChange:
    """A field the two versions resolve differently, with the decision on each side."""

    path: str
    before: Side
    after: Side

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "before": self.before.to_dict(), "after": self.after.to_dict()}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one version answers the input: resolved, or refused with vLLM's exception, its text and its stage."""

    ok: bool
    error: str | None = None
    """The exception vLLM raises (``ArgumentError``, ``ValueError``, ``ValidationError``, ...)."""
    message: str | None = None
    """vLLM's message, exactly."""
    stage: str | None = None
    """Where vLLM raises it: ``parse`` (its argument parser), a sub-config, ``create_engine_config``, ``vllm_config``."""
    rule: str | None = None
    """The rule whose check refuses the input (None: refused before any rule runs, e.g. by the parser)."""

    def to_dict(self) -> dict[str, Any]:
        if self.ok:
            return {"ok": True}
        return {"ok": False, "error": self.error, "message": self.message, "stage": self.stage, "rule": self.rule}

    def __str__(self) -> str:
        if self.ok:
            return "ok"
        return f"refused at {self.stage or '?'}: {self.error or 'error'}: {self.message or ''}".rstrip()


@dataclass(frozen=True)
class Refused:
    """A version that refuses the input before its rulebook runs: its parser (a flag it does not have, a
    value argparse refuses), or a sub-config it cannot build from the input. Stands for the
    :class:`Resolution` that version does not have, in :attr:`Upgrade.before` / :attr:`Upgrade.after`."""

    vllm_version: str
    error: InputError
    """postinit's refusal: ``.stage``, ``.error`` and ``.vllm_message`` say where and how vLLM refuses."""
    inputs: dict[str, Any]

    ok = False
    hash = None
    violations: tuple[Any, ...] = ()
    notes: tuple[Any, ...] = ()

    @property
    def outcome(self) -> Outcome:
        e = self.error
        return Outcome(False, e.error or type(e).__name__, e.vllm_message or e.message, e.stage)


def outcome(r: Resolution | Refused) -> Outcome:
    """How a version answered: resolved, or vLLM's exception (type, message, stage) and the rule that raised it."""
    if isinstance(r, Refused):
        return r.outcome
    e = r.error
    if e is None:
        return Outcome(True)
    return Outcome(False, e.type, e.message, e.stage, e.rule)


@dataclass(frozen=True, slots=True)
class Upgrade:
    """One request resolved on two vLLM versions, and every decision that changes.

    Fields are compared only when both versions resolve the input: a version that refuses it has no
    resolved config (:attr:`before_outcome` / :attr:`after_outcome` say how each answered).
    """

    from_version: str
    to_version: str
    before: Resolution | Refused
    after: Resolution | Refused
    changes: tuple[DecisionChange, ...]
    """Fields both versions have whose final values differ (empty unless both resolve the input)."""
    only_before: tuple[tuple[str, Any], ...]
    """Fields only the ``from`` version has (path, final value)."""
    only_after: tuple[tuple[str, Any], ...]
    """Fields only the ``to`` version has (path, final value)."""
    logs_removed: tuple[str, ...]
    """What vLLM logged on the ``from`` version and no longer logs (rule: text)."""
    logs_added: tuple[str, ...]
    """What vLLM logs on the ``to`` version and did not before (rule: text)."""
    notes: tuple[str, ...]
    """Notes about the input on the ``to`` version that the ``from`` version did not have (ignored fields, the
    flags that set other fields there, ...)."""

    @property
    def before_outcome(self) -> Outcome:
        return outcome(self.before)

    @property
    def after_outcome(self) -> Outcome:
        return outcome(self.after)

    @property
    def compared(self) -> bool:
        """Whether the fields were compared: both versions resolve the input."""
        return self.before.ok and self.after.ok

    @property
    def same(self) -> bool:
        """Nothing the user can observe changes: values, outcome (the error too) and logs."""
        a, b = self.before_outcome, self.after_outcome
        return (not self.changes and (a.ok, a.error, a.stage) == (b.ok, b.error, b.stage) and not self.logs_added
                and not self.logs_removed)

    def __str__(self) -> str:
        """The plain text ``postinit upgrade`` prints."""
        from postinit.engine._show import plain

        return plain(self.__rich__())

    def __repr__(self) -> str:
        return (f"<Upgrade {self.from_version} -> {self.to_version}: {len(self.changes)} decisions change · "
                f"{_state(self.before)} -> {_state(self.after)}>")

    def _repr_html_(self) -> str:
        from postinit.engine._show import html

        return html(self.__rich__())

    def __rich__(self) -> RenderableType:
        from rich.console import Group

        from postinit.render import escape, site_mark

        a, b = self.before, self.after
        out: list[RenderableType] = [
            f"[bold]upgrade[/] vLLM {self.from_version} → {self.to_version} · "
            f"{escape(str(a.inputs.get('model') or 'no model'))} · {escape(str(a.inputs.get('platform')))} · "
            f"usage {a.inputs.get('usage') or 'config'}",
            f"  {self.from_version}: {_state(a, rich=True)}, hash {a.hash or '—'}    "
            f"{self.to_version}: {_state(b, rich=True)}, hash {b.hash or '—'}",
        ]
        refusing = []
        for label, r in ((self.from_version, a), (self.to_version, b)):
            o = outcome(r)
            if o.ok:
                continue
            mark = site_mark(r, o.rule) if o.rule and isinstance(r, Resolution) else ""
            who = f"{label} (your site rules)" if mark else f"vLLM {label}"
            refusing.append(who)
            where = f" in rule {escape(o.rule)}{escape(mark)}" if o.rule else ""
            at = f" at {escape(o.stage)}" if o.stage else ""
            out.append(f"[red]✗ {escape(who)} refuses this input[/]{at}: "
                       f"{escape(o.error or 'error')}{where}: {escape(o.message or '')}")
            if isinstance(r, Refused) and r.error.message != o.message:
                out.append(f"  [dim]postinit: {escape(r.error.message)}[/]")
            for v in r.violations[1:]:
                out.append(f"  [dim]also refused by rule {escape(v.rule)}: {escape(v.error)}: {escape(v.message)}[/]")
        if not self.compared:
            out.append(f"No field is compared: {escape(' and '.join(refusing))} "
                       f"{'refuse' if len(refusing) > 1 else 'refuses'} this input, so there is no resolved config "
                       "to compare.")
        elif self.same:
            out.append("No decision changes: both versions resolve this input the same way.")
        if self.changes:
            out.append(f"\n[bold]{len(self.changes)} decision(s) change[/]")
            for c in self.changes:
                out.append(f"[cyan]{escape(c.path)}[/]: {escape(_change_text(c.before.value, c.after.value))}")
                for side in (c.before, c.after):
                    out.append(_side_text(side))
        for title, items in ((f"only in {self.from_version}", self.only_before),
                             (f"only in {self.to_version}", self.only_after)):
            if items:
                out.append(f"\n[bold]fields {title}[/] ({len(items)}): " + escape(
                    ", ".join(f"{path}={brief(value, 4)}" for path, value in items)))
        for title, lines in ((f"logged only by {self.from_version}", self.logs_removed),
                             (f"logged only by {self.to_version}", self.logs_added)):
            if lines:
                out.append(f"\n[bold]{title}[/]")
                out.extend(f"  {escape(line)}" for line in lines)
        if self.notes:
            out.append(f"\n[bold]notes on your input for {self.to_version}[/]")
            out.extend(f"  • {escape(n)}" for n in self.notes)
        return Group(*out)

    def to_dict(self) -> dict[str, Any]:
        a, b = self.before, self.after
        return {
            "version": UPGRADE_VERSION,
            "from": {"vllm_version": self.from_version, "ok": a.ok, "hash": a.hash,
                     "outcome": self.before_outcome.to_dict(), "violations": [v.to_dict() for v in a.violations]},
            "to": {"vllm_version": self.to_version, "ok": b.ok, "hash": b.hash,
                   "outcome": self.after_outcome.to_dict(), "violations": [v.to_dict() for v in b.violations]},
            "compared": self.compared,
            "same": self.same,
            "changes": [c.to_dict() for c in self.changes],
            "only_from": [{"path": p, "value": jsonable(v)} for p, v in self.only_before],
            "only_to": [{"path": p, "value": jsonable(v)} for p, v in self.only_after],
            "logs": {"removed": list(self.logs_removed), "added": list(self.logs_added)},
            "notes": list(self.notes),
            "inputs": jsonable({k: v for k, v in a.inputs.items() if k != "vllm_version"}),
        }


def _state(r: Resolution | Refused, rich: bool = False) -> str:
    if r.ok:
        return "ok"
    word = "refused" if isinstance(r, Refused) else "invalid"
    return f"[red]{word}[/]" if rich else word


def _change_text(before: Any, after: Any) -> str:
    """``old → new``; for two lists, what was removed and added (a splitting-op list is long)."""
    a, b = jsonable(before), jsonable(after)
    if isinstance(a, list) and isinstance(b, list) and len(a) + len(b) > 8:
        gone = [x for x in a if x not in b]
        new = [x for x in b if x not in a]
        if gone or new:
            parts = ([f"without {brief(gone)}"] if gone else []) + ([f"with {brief(new)}"] if new else [])
            return f"{len(a)} → {len(b)} items, " + ", ".join(parts)
        return f"{brief(before)} → {brief(after)} (reordered)"
    return f"{brief(before)} → {brief(after)}"


def _side_text(side: Side) -> str:
    from postinit.render import escape

    value = jsonable(side.value)
    shown = f"{len(value)} items" if isinstance(value, list) and len(value) > 8 else brief(side.value)
    head = f"  [dim]{escape(side.version)}:[/] {escape(shown)} ← {escape(side.by)}"
    if side.title:
        head += f" [dim]({escape(side.title)})[/]"
    lines = [head]
    if side.reason and side.reason != side.title:
        lines.append(f"      why: {escape(side.reason)}")
    if side.message:
        lines.append(f"      logs: {escape(side.message.splitlines()[0])}")
    if side.rule_change:
        lines.append(f"      [yellow]{escape(side.rule_change)}[/]")
    return "\n".join(lines)


def _message_of(r: Resolution, rule_id: str, path: str) -> str | None:
    """The message of the last firing of ``rule_id`` that changed ``path`` (or logged, if none changed it)."""
    for event in reversed(r.trace.fired):
        if event.rule == rule_id and (any(c.path == path for c in event.changes) or not event.changes):
            return event.message or None
    return None


def _rule_change(rule_id: str, here: Rulebook, there: Rulebook, here_v: str, there_v: str) -> str | None:
    """How ``rule_id`` of version ``here_v`` differs in ``there_v`` (None: the same rule)."""
    if rule_id not in there.rules:
        reason = _drop_reason(rule_id, here_v, there_v)
        return f"vLLM {there_v} no longer makes this decision" + (f": {reason}" if reason else "")
    if rule_id not in here.rules:  # pragma: no cover - a side's rule is in its own rulebook
        return None
    mine, theirs = here.rules[rule_id], there.rules[rule_id]
    if mine.fn is not theirs.fn:
        if inspect.unwrap(mine.fn) is inspect.unwrap(theirs.fn):  # one function, other parameter values
            a, b = dict(mine.params), dict(theirs.params)
            shown = ", ".join(f"{k}={b[k]!r}" for k in b if a.get(k) != b[k])
            return f"vLLM {there_v} decides this with other values (rule {rule_id}: {shown})"
        return f"vLLM {there_v} decides this differently (rule {rule_id} is replaced there)"
    return None


def _drop_reason(rule_id: str, a: str, b: str) -> str | None:
    """The delta's reason why ``rule_id`` is in one of ``a``, ``b`` and not the other (None if undocumented)."""
    for v in (*_versions.VERSIONS[a].chain, *_versions.VERSIONS[b].chain):
        reason = v.delta.drop.get(rule_id)
        if reason:
            return reason
    return None


def _new_rule(rule_id: str, here: Rulebook, there: Rulebook, there_v: str) -> str | None:
    if rule_id not in there.rules:
        return f"new in this version (vLLM {there_v} has no rule {rule_id})"
    return None


def _side(r: Resolution, path: str, other: Resolution, version: str, other_version: str, present: bool,
          read: str | None = None) -> Side:
    """How ``r`` decided ``path`` (``read``: the field it reads there, for a property aliasing another field)."""
    book, other_book = r.engine.rulebook, other.engine.rulebook
    read = read or path
    value = r.state.get(read)
    if not present:
        return Side(version, value, f"no field {path} in vLLM {version}", present=False)
    prov: Provenance = r.engine.provenance_of(read)
    if prov.source is not Source.RULE or prov.rule is None or prov.rule not in book.rules:
        through = f" (through {read}: {path} is a property reading it in vLLM {version})" if read != path else ""
        return Side(version, value, origin(prov) + through)
    rule = book.rules[prov.rule]
    change = _rule_change(rule.id, book, other_book, version, other_version) or _new_rule(
        rule.id, book, other_book, other_version)
    from postinit.rules.observed import is_explanation

    message = None if is_explanation(rule.id) else _message_of(r, rule.id, path)
    by = f"rule {rule.id}" + (f" (site rule of {rule.owner})" if rule.owner else "")
    if read != path:
        by += f" (through {read}: {path} is a property reading it in vLLM {version})"
    return Side(version, value, by, rule=rule.id, title=rule.title, reason=rule.reason,
                source=rule.source.split(";")[0].strip(), message=message, rule_change=change)


def _log_lines(r: Resolution | Refused) -> list[str]:
    """What vLLM logs for the input, one line each (``level: text``): its parser's records (deprecated flags, a
    JSON-valued flag's sub-config), then the rules' messages; for a refused input, what was logged before."""
    from postinit.rules.observed import is_explanation

    out: list[str] = []
    for note in r.notes:
        if note.kind == "flag":  # a deprecated flag: vLLM's parser / create_engine_config warns
            out.append(f"warning: {note.message}")
        elif note.kind == "parse_log":
            out.append(f"{note.level}: {note.message}")
    if isinstance(r, Refused):
        # the JSON-valued flags parsed (and logged) before the refused one
        out.extend(f"{level}: {text}" for _, level, text in getattr(r.error, "said_before", ()))
        trace = getattr(r.error, "trace", None)
        events = [e for e in trace.fired if e.message] if trace is not None else []
    else:
        events = r.messages()
    for event in events:
        if is_explanation(event.rule):
            continue
        for line in event.message.splitlines():
            if line.strip():
                out.append(f"{event.level}: {line}")
    return out


def _differs(va: Any, vb: Any) -> bool:
    return va is not vb and (type(va) is not type(vb) or va != vb)


def upgrade(
    config: Any = None,
    *,
    from_version: str = _versions.DEFAULT_VERSION,
    to_version: str,
    catalog_only: bool = False,
    trace: Literal["minimal", "full", "debug"] = "full",
    rules: Any = None,
    **kwargs: Any,
) -> Upgrade:
    """Resolve one input on vLLM ``from_version`` and ``to_version`` and return the decisions that change.

    The input is what :func:`postinit.resolve` takes (``config`` may be a ready
    :class:`~postinit.Request`, whose own ``vllm_version`` is then ignored); every other
    keyword is :func:`postinit.resolve`'s. Platform and usage facts are left out of the
    comparison; a field one version does not have is listed apart (``only_before`` /
    ``only_after``), as are the log lines only one version prints. ``rules`` (site rules) join both
    versions' rulebooks. A version whose vLLM refuses the input before any rule runs (its parser: a flag
    it does not have, a value its argparse refuses) is a :class:`Refused` side with vLLM's error, not an
    exception; an input no vLLM refuses that way (postinit's own bounds) still raises.
    """
    if "vllm_version" in kwargs:
        raise InvalidValueError("upgrade takes from_version and to_version, not vllm_version", path="vllm_version")
    request = config.plain() if isinstance(config, Request) else Request.build(config, **kwargs)
    a_name, b_name = _versions.version_name(from_version, "from_version"), _versions.version_name(to_version, "to_version")
    a = _answer(request, a_name, allow_files=not catalog_only, trace=trace, rules=rules)
    b = _answer(request, b_name, allow_files=not catalog_only, trace=trace, rules=rules)
    if isinstance(a, Refused) and not isinstance(b, Refused):
        a = Refused(a.vllm_version, a.error, dict(b.inputs, vllm_version=a.vllm_version))
    return compare_versions(a, b)


def _answer(request: Request, version: str, **kw: Any) -> Resolution | Refused:
    """``request`` resolved as ``version``, or that version's vLLM's refusal of it (:class:`Refused`)."""
    try:
        return resolve_request(request.replace(vllm_version=version), **kw)
    except InputError as e:
        if e.stage is None:  # postinit's own refusal, not a vLLM's: the same for every version
            raise
        usage = request.effective_usage
        inputs = {"platform": str(request.platform), "usage": usage, "semantics": request.semantics,
                  "model": request.model, "vllm_version": version}
        return Refused(version, e, inputs)


def _presence_gone(sa: Any, sb: Any, in_a: Any, in_b: Any) -> tuple[str, ...]:
    """The optional sub-configs (presence paths) missing on either side: their fields are not compared."""
    space = _paths()
    return tuple(p for p in space.paths if space.info[p].presence
                 and not (in_a(p) and sa.get(p) and in_b(p) and sb.get(p)))


def compare_versions(a: Resolution | Refused, b: Resolution | Refused) -> Upgrade:
    """The :class:`Upgrade` between two answers to the same input on two versions.

    Fields are compared only when both resolve it. A field a version has as a property reading another
    (:data:`FIELD_ALIASES`) is compared by the value it reads; the fields of an optional sub-config that
    is missing on either side are not compared (the sub-config itself is: present on one side only).
    """
    va, vb = a.vllm_version, b.vllm_version
    changes: list[DecisionChange] = []
    only_a: list[tuple[str, Any]] = []
    only_b: list[tuple[str, Any]] = []
    if isinstance(a, Resolution) and isinstance(b, Resolution) and a.ok and b.ok:
        absent_a, absent_b = a.version.absent_paths, b.version.absent_paths
        alias_a, alias_b = FIELD_ALIASES.get(va, {}), FIELD_ALIASES.get(vb, {})
        sa, sb = a.state, b.state

        def in_a(path: str) -> bool:
            return path in alias_a or path not in absent_a

        def in_b(path: str) -> bool:
            return path in alias_b or path not in absent_b

        gone = _presence_gone(sa, sb, in_a, in_b)
        for path in sorted(sa.keys() | sb.keys() | alias_a.keys() | alias_b.keys()):
            if path.startswith(_FACT_PREFIXES) or any(path.startswith(g + ".") for g in gone):
                continue
            ra, rb = alias_a.get(path, path), alias_b.get(path, path)
            has_a, has_b = in_a(path), in_b(path)
            if has_a and not has_b:
                only_a.append((path, sa.get(ra)))
            elif has_b and not has_a:
                only_b.append((path, sb.get(rb)))
            elif has_a and _differs(sa.get(ra), sb.get(rb)):
                changes.append(DecisionChange(path, _side(a, path, b, va, vb, True, ra),
                                              _side(b, path, a, vb, va, True, rb)))
    la, lb = _log_lines(a), _log_lines(b)
    notes_a = {n.message for n in a.notes}
    notes = [n.message for n in b.notes if n.message not in notes_a]
    if isinstance(a, Resolution) and isinstance(b, Resolution):
        moved = _flags_moved(a, b)
        if moved:
            notes.append(moved)
    return Upgrade(
        from_version=va, to_version=vb, before=a, after=b, changes=tuple(changes),
        only_before=tuple(only_a), only_after=tuple(only_b),
        logs_removed=tuple(line for line in dict.fromkeys(la) if line not in lb),
        logs_added=tuple(line for line in dict.fromkeys(lb) if line not in la),
        notes=tuple(notes),
    )


def _user_fields(r: Resolution) -> dict[str, str]:
    """The fields the user's flags and config set in ``r`` (path -> the flag as the version's parser read it)."""
    space = _paths()
    out = {}
    for path in r.state:
        if path not in space or space.info[path].presence:
            continue
        prov = r.engine.provenance_of(path)
        if prov.source is Source.USER and path != "model_config.model":
            out[path] = prov.detail or "your input"
    return out


def _flags_moved(a: Resolution, b: Resolution) -> str | None:
    """A note when the user's input sets other fields on the two versions (``-O3``: a compilation mode in 0.11.1,
    an optimisation level in 0.34.0), or None."""
    fa, fb = _user_fields(a), _user_fields(b)
    if set(fa) == set(fb):
        return None

    def shown(fields: dict[str, str], other: dict[str, str]) -> str:
        return ", ".join(f"{p} (from {d})" for p, d in sorted(fields.items()) if p not in other) or "nothing else"

    return (f"Your input sets other fields in vLLM {b.vllm_version} than in {a.vllm_version}: "
            f"{a.vllm_version} sets {shown(fa, fb)}; {b.vllm_version} sets {shown(fb, fa)}.")
