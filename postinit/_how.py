"""How do I get it? The smallest edits of your own inputs that give a field the value you want.

:func:`how` (``Resolution.how(path, value)``, ``postinit how``, ``POST /v1/how``) searches
edits of the request's inputs — add, remove or change a ``vllm serve`` flag, set or unset an
environment variable (a config key, in config mode) — and returns the ones that give
``path == value``, fewest edits first, then fewest side effects. Every answer is verified:
the edited request is resolved (:meth:`Resolution.with_changes`, equal in every respect to
resolving it afresh) and kept only if the path has the value and vLLM accepts the config.
Another platform is a separately marked kind of answer (no flag changes a GPU).

The search is guided, not blind. The inputs worth changing are the ones the rules that write
the path read, and the ones the rules writing those read (a few levels up the rulebook's
field graph), with first the values why-not's failing conditions stopped at; the flag table
gives each input's domain (booleans, choices, enums) and, for numbers, the thresholds the
rules' conditions compare them with (read from the rule bodies). Two edits are tried only
as pairs whose first edit moved the path (its input value, its writers, its final value) or
stopped the resolution with a violation the second edit may fix.

When nothing within the budget works the answer says so, with the rules that block the
value and the conditions no input of yours can change (they rest on the model's config.json
or the platform).

>>> import postinit
>>> r = postinit.resolve(argv=["--no-enable-chunked-prefill"], vllm_version="0.11.1")    # doctest: +SKIP
>>> print(r.how("scheduler_config.enable_chunked_prefill", True).answers[0].line)       # doctest: +SKIP
vllm serve meta-llama/Llama-3.1-8B-Instruct
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import inspect
import json
import shlex
import textwrap
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import TypeAdapter, ValidationError

from postinit._request import DEFAULT_MODEL, Request
from postinit.engine import Source, jsonable
from postinit.engine._rule import GroupKind
from postinit.engine._show import brief, clip, origin
from postinit.engine._show import show as shown
from postinit.errors import InputError, InvalidValueError, did_you_mean, show
from postinit.rules import paths
from postinit.rules import versions as _versions
from postinit.schema.env import known_variables
from postinit.schema.loaders.argv import FLAGS, FlagSpec, strip_invocation

if TYPE_CHECKING:
    from rich.console import RenderableType

    from postinit._api import Resolution
    from postinit.engine import Rule, Rulebook

__all__ = ["HOW_VERSION", "MAX_EDITS", "Answer", "Blocker", "Edit", "HowAnswer", "how", "parse_target"]

HOW_VERSION = 1
"""Version of the ``to_dict()`` shape of :class:`HowAnswer`."""
MAX_EDITS = 3
"""The largest ``max_edits`` accepted (the search grows with the number of inputs to the power of it)."""
MAX_CANDIDATES = 1500
"""No question resolves more edited requests than this, whatever its inputs."""
MAX_ANSWERS = 10
"""The answers kept (the best first)."""

_FACTS = ("platform.", "usage.")
_WIDTH = 120
_WORDS = {1: "one", 2: "two", 3: "three"}
"""The text answer's width (what the CLI prints when stdout is not a terminal)."""
_CONE_DEPTH = 3
"""How far up the field graph (writer → its reads → their writers → ...) inputs are gathered."""
_PLATFORMS = ("h100", "h200", "b200", "a100", "l40s", "t4", "mi300x", "cpu")
"""The platforms tried for the separately marked 'on another platform' answers."""
_SECTIONS = {
    "compilation_config": "-O",
}
"""The JSON-valued flags whose keys are set one at a time with a dotted flag (``-O.cudagraph_mode=FULL``)."""


# --------------------------------------------------------------------------- the answer


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit of the user's inputs.

    ``kind`` is ``add`` / ``remove`` / ``change`` (a ``vllm serve`` flag), ``env`` (set or change a
    variable), ``unset-env``, ``config`` (a key of the config, in config mode) or ``platform``
    (another machine: never mixed with the others).
    """

    kind: Literal["add", "remove", "change", "env", "unset-env", "config", "platform"]
    subject: str
    """The flag (``--enforce-eager``), variable name, config path or ``platform``."""
    before: tuple[str, ...] = ()
    """What the edit replaces or removes: the flag's tokens, the variable's value, the platform."""
    after: tuple[str, ...] = ()
    """What it puts there: the flag's tokens, the variable's value, the platform."""
    path: str | None = None
    """The config path (or ``env.NAME``) the edit sets, when it sets one."""
    value: Any = None
    """The value it sets there."""
    slot: int | None = None
    """(remove/change) the index of the user's flag it edits."""

    @property
    def text(self) -> str:
        """The edit in words: ``add --no-enable-chunked-prefill``, ``remove -dcp 2``, ``set VLLM_X=1``."""
        b, a = " ".join(map(shlex.quote, self.before)), " ".join(map(shlex.quote, self.after))
        if self.kind == "add":
            return f"add {a}"
        if self.kind == "remove":
            return f"remove {b}"
        if self.kind == "change":
            return f"change {b} to {a}"
        if self.kind == "env":
            return f"set {self.subject}={a}" + (f" (was {b})" if self.before else "")
        if self.kind == "unset-env":
            return f"unset {self.subject} (was {b})"
        if self.kind == "config":
            return f"set config {self.subject} = {a}" if self.after else f"remove config {self.subject}"
        return f"on platform {a} (not {b})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "subject": self.subject, "text": self.text}
        if self.before:
            out["before"] = list(self.before)
        if self.after:
            out["after"] = list(self.after)
        if self.path is not None:
            out["path"] = self.path
            out["value"] = jsonable(self.value)
        return out


@dataclass(frozen=True, slots=True)
class FieldChange:
    """A field the edit changes besides the one asked about."""

    path: str
    before: Any
    after: Any

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "before": jsonable(self.before), "after": jsonable(self.after)}


@dataclass(frozen=True, slots=True)
class Answer:
    """A verified set of edits: the edited request resolves with ``path == value`` and vLLM accepts it."""

    edits: tuple[Edit, ...]
    line: str
    """The user's command line with the edits applied (``VLLM_X=1 vllm serve MODEL ...``), pasteable."""
    decided_by: str
    """What sets the value in the edited resolution: a rule id, or the input (``your --x``)."""
    stopped: tuple[str, ...]
    """Rules that wrote another value to the path before the edit and no longer do."""
    fields: tuple[FieldChange, ...]
    """Other fields whose final value changes (the edited inputs' own paths left out)."""
    warnings: tuple[str, ...]
    """Warnings the edited resolution logs that the original did not (``rule: message``)."""
    request: Request = field(repr=False, compare=False)
    """The edited request (resolve it to see everything)."""

    @property
    def platform(self) -> bool:
        """True for an 'on another platform' answer."""
        return any(e.kind == "platform" for e in self.edits)

    @property
    def side_effects(self) -> int:
        return len(self.fields) + len(self.warnings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "edits": [e.to_dict() for e in self.edits], "line": self.line, "decided_by": self.decided_by,
            "stopped": list(self.stopped), "side_effects": self.side_effects,
            "fields": [f.to_dict() for f in self.fields], "warnings": list(self.warnings),
            "request": self.request.model_dump(mode="json", exclude_defaults=True),
        }


@dataclass(frozen=True, slots=True)
class Blocker:
    """A rule that keeps the path from the value, and what it rests on that no input of yours changes."""

    rule: str
    why: str
    """What it did: ``sets PIECEWISE``, or the violation that refuses the closest edits."""
    fixed: tuple[tuple[str, Any, str], ...] = ()
    """``(path, value, origin)`` of the conditions it consulted that rest only on config.json or the platform."""
    owner: str | None = None
    """For a site's rule (``rules=``, ``--rules``): the module or file it came from; None for vLLM's."""

    def to_dict(self) -> dict[str, Any]:
        out = {"rule": self.rule, "why": self.why,
               "fixed": [{"path": p, "value": jsonable(v), "origin": o} for p, v, o in self.fixed]}
        if self.owner:
            out["owner"] = self.owner
        return out


@dataclass(frozen=True, slots=True)
class HowAnswer:
    """How to get ``path == value``: verified edits of the inputs, best first, or why none works.

    ``str(a)`` is the plain text ``postinit how`` prints; ``to_dict()`` the JSON of ``--format json``
    and ``POST /v1/how``.
    """

    path: str
    value: Any
    final: Any
    """The path's value as the inputs stand."""
    holds: bool
    """The value already holds: no edit needed."""
    max_edits: int
    answers: tuple[Answer, ...]
    """Edits of flags, variables or config keys, fewest edits first, then fewest side effects."""
    platforms: tuple[Answer, ...]
    """The same value on another platform (a separate kind: no flag changes the hardware)."""
    blockers: tuple[Blocker, ...]
    """(no answer) the rules that keep the value away, and the conditions that rest on config.json or the platform."""
    tried: int
    """The number of edited requests resolved to find and verify the answers."""
    refused: int
    """Of those, how many reached the value but vLLM refuses the config (a violation)."""
    seconds: float = field(compare=False)
    line: str = ""
    """The user's own line, as the answers print it."""
    vllm_version: str = ""
    tried_by_edits: tuple[tuple[int, int], ...] = ()
    """``(number of edits, candidates of that size tried)``, smallest first."""

    @property
    def reachable(self) -> bool:
        return self.holds or bool(self.answers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": HOW_VERSION, "path": self.path, "value": jsonable(self.value), "final": jsonable(self.final),
            "holds": self.holds, "reachable": self.reachable, "max_edits": self.max_edits, "line": self.line,
            "vllm_version": self.vllm_version,
            "answers": [a.to_dict() for a in self.answers],
            "platforms": [a.to_dict() for a in self.platforms],
            "blockers": [b.to_dict() for b in self.blockers],
            "tried": self.tried, "tried_by_edits": {str(n): k for n, k in self.tried_by_edits},
            "refused": self.refused,
        }

    def text(self, *, verbose: bool = False) -> str:
        """The plain text ``postinit how`` prints (``verbose``: also the number of candidates tried)."""
        want = f"{self.path} = {shown(self.value)}"
        out: list[str] = []
        if self.holds:
            out.append(f"{want} already holds with your inputs; nothing to change.")
        elif self.answers:
            n = len(self.answers[0].edits)
            out.append(f"{want} (now {shown(self.final)}): {len(self.answers)} way(s), the best with "
                       f"{n} edit{'s' if n != 1 else ''}:")
            for i, a in enumerate(self.answers, 1):
                out.extend(_answer_lines(i, a))
        else:
            out.extend(textwrap.wrap(
                f"{want} is not reachable with up to {self.max_edits} edit{'s' if self.max_edits != 1 else ''} "
                f"of your flags and variables (it is {shown(self.final)}).", width=_WIDTH, subsequent_indent="  ",
                break_on_hyphens=False, break_long_words=False))
            for b in self.blockers:
                mark = f" (site rule of {b.owner})" if b.owner else ""
                out.extend(textwrap.wrap(f"blocked by rule {b.rule}{mark}: {b.why}", width=_WIDTH, initial_indent="  ",
                                         subsequent_indent="    ", break_on_hyphens=False, break_long_words=False))
                for p, v, o in b.fixed:
                    tail = "" if o.endswith("which you keep") else " (no flag or variable changes it)"
                    out.extend(textwrap.wrap(f"rests on {p} = {clip(brief(v), 60)} ← {o}{tail}", width=_WIDTH,
                                             initial_indent="    ", subsequent_indent="      ",
                                             break_on_hyphens=False, break_long_words=False))
            if self.refused:
                out.append(f"  {self.refused} edited request(s) reached the value but vLLM refuses the config.")
        if self.platforms:
            out.append("on another platform (not an edit of your command line):")
            for a in self.platforms:
                out.append(f"  {a.edits[0].after[0]}: {a.line}  ← {a.decided_by}")
        if verbose:
            sizes = ", ".join(f"{k} of {_WORDS.get(n, str(n))} edit{'s' if n != 1 else ''}"
                              for n, k in self.tried_by_edits)
            out.append(f"{self.tried} candidate resolution(s) tried{f' ({sizes})' if sizes else ''} in "
                       f"{self.seconds:.3f} s (vLLM {self.vllm_version}; {self.refused} refused by a violation).")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        verdict = "holds" if self.holds else (f"{len(self.answers)} answers" if self.answers else "unreachable")
        return f"<HowAnswer {self.path} = {shown(self.value)}: {verdict} · {self.tried} tried>"

    def __rich__(self) -> RenderableType:
        from rich.text import Text

        return Text(self.text())


def _answer_lines(i: int, a: Answer) -> list[str]:
    def wrapped(text: str) -> list[str]:
        return textwrap.wrap(text, width=_WIDTH, initial_indent="     ", subsequent_indent="       ",
                             break_on_hyphens=False, break_long_words=False)

    lines = [f"{i}. {'; '.join(e.text for e in a.edits)}", f"     {a.line}"]
    why = f"decided by {a.decided_by}"
    if a.stopped:
        why += f"; stops {', '.join(a.stopped)}"
    lines.extend(wrapped(why))
    if a.fields:
        shown_fields = ", ".join(f"{f.path}: {clip(brief(f.before), 40)} → {clip(brief(f.after), 40)}"
                                 for f in a.fields[:3])
        more = f" (+{len(a.fields) - 3} more)" if len(a.fields) > 3 else ""
        lines.extend(wrapped(f"also changes {shown_fields}{more}"))
    for w in a.warnings[:2]:
        lines.extend(wrapped(f"warns {clip(w, 200)}"))
    if len(a.warnings) > 2:
        lines.append(f"     (+{len(a.warnings) - 2} more warnings)")
    if not a.fields and not a.warnings:
        lines.append("     no other field changes, no new warning")
    return lines


# --------------------------------------------------------------------------- the target value


def _choices(annotation: Any) -> list[str]:
    """The values a field's type allows, as a user writes them (enum names, literals, booleans)."""
    import enum

    out: list[str] = []
    union = get_origin(annotation) in (Union, UnionType)
    for t in (get_args(annotation) if union else (annotation,)):  # a bare Literal's args are its values
        if get_origin(t) is Literal:
            out.extend(str(a) for a in get_args(t))
        elif isinstance(t, type) and issubclass(t, enum.Enum):
            out.extend(m.name for m in t)
        elif t is bool:
            out.extend(["true", "false"])
        elif t is type(None):
            out.append("None")
    return out


def parse_target(path: str, value: Any, vllm_version: str = _versions.DEFAULT_VERSION) -> Any:
    """``value`` validated against ``path``'s type: text as a user types it (``FULL``, ``true``, ``8k``, ``None``).

    A bad value is one :class:`~postinit.errors.InvalidValueError` line naming the path, the value and
    what the type allows, with a "did you mean" for a near miss.
    """
    info = paths().require(path)
    if path in _versions.absent_paths(vllm_version):
        raise InvalidValueError(f"{path} is not a field of vLLM {vllm_version}", path=path, value=None)
    adapter: TypeAdapter[Any] = TypeAdapter(info.annotation)
    tries: list[Any] = [value]
    if isinstance(value, str):
        text = value.strip()
        if text in ("None", "null", "~", "none"):
            tries.insert(0, None)
        elif text.lower() in ("true", "false"):
            tries.insert(0, text.lower() == "true")
        else:
            with contextlib.suppress(ValueError):
                tries.append(json.loads(text))
            try:
                from postinit.schema.loaders.argv import human_readable_int

                tries.append(human_readable_int(text))
            except ValueError:
                pass
    for attempt in tries:
        try:
            return adapter.validate_python(attempt, strict=isinstance(attempt, bool) and _has_number(info.annotation))
        except (ValidationError, TypeError, ValueError):
            continue
    allowed = _choices(info.annotation)
    typename = getattr(info.annotation, "__name__", None) or str(info.annotation).replace("typing.", "")
    hint = did_you_mean(str(value), allowed) if allowed else ""
    listing = f" (allowed: {', '.join(allowed)})" if allowed and len(allowed) <= 16 else f" (a {typename})"
    raise InvalidValueError(f"how {path}: {show(value)} is not a valid value{listing}.{hint}".rstrip(),
                            path=path, value=value)


def _has_number(annotation: Any) -> bool:
    return any(t in (int, float) for t in (get_args(annotation) or (annotation,)))


def _eq(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        if a == b and type(a) is type(b):
            return True
    except Exception:  # a value without a usable ==
        return False
    return bool(jsonable(a) == jsonable(b) and isinstance(a, bool) == isinstance(b, bool))


# --------------------------------------------------------------------------- the inputs and their domains


@dataclass(frozen=True, slots=True)
class _Knob:
    """One input worth changing: a path and how a user sets it (a flag, a dotted flag, a variable, a config key)."""

    path: str
    kind: Literal["flag", "dotted", "env", "config"]
    spec: FlagSpec | None = None
    name: str = ""
    """The flag spelling, the dotted flag (``-O.cudagraph_mode``), the variable or the config path."""


def _version_flags(version: str) -> tuple[dict[str, list[FlagSpec]], dict[str, FlagSpec]]:
    """Per config path the flags that set it, and every spelling's spec (the flags ``version`` has)."""
    return _flag_tables(version)


@functools.cache
def _flag_tables(version: str) -> tuple[dict[str, list[FlagSpec]], dict[str, FlagSpec]]:
    absent = _versions.absent_flags(version)
    by_path: dict[str, list[FlagSpec]] = {}
    by_name: dict[str, FlagSpec] = {}
    for spec in FLAGS:
        if spec.dest in absent:
            continue
        for n in spec.names:
            by_name[n] = spec
            if n.startswith("--") and spec.kind == "bool":
                by_name["--no-" + n[2:]] = spec
        if spec.deprecated or spec.target.startswith("extra."):
            continue
        by_path.setdefault(spec.target, []).append(spec)
    return by_path, by_name


@functools.lru_cache(maxsize=16)
def _writers(book: Rulebook) -> dict[str, tuple[str, ...]]:
    """Per path the ids of the rules that may write it."""
    out: dict[str, list[str]] = {}
    for ph in book.phases:
        for rid in book.order[ph]:
            for p in book.rules[rid].writes:
                out.setdefault(p, []).append(rid)
    return {p: tuple(v) for p, v in out.items()}


@functools.lru_cache(maxsize=16)
def _positions(book: Rulebook) -> dict[str, int]:
    """Each rule's place in the run order of ``version``'s rulebook (phases in order)."""
    out: dict[str, int] = {}
    for ph in book.phases:
        for rid in book.order[ph]:
            out[rid] = len(out)
    return out


def _cone(book: Rulebook, start: Iterable[str], depth: int = _CONE_DEPTH) -> dict[str, int]:
    """The paths the writers of ``start`` read, and those their writers read, ... with their distance."""
    writers = _writers(book)
    seen: dict[str, int] = {}
    frontier = [p for p in start]
    for p in frontier:
        seen.setdefault(p, 0)
    for d in range(1, depth + 1):
        nxt: list[str] = []
        for p in frontier:
            for rid in writers.get(p, ()):
                for q in book.rules[rid].reads:
                    if q not in seen:
                        seen[q] = d
                        nxt.append(q)
        frontier = nxt
    return seen


class _Thresholds(Mapping[str, frozenset[float]]):
    """Per path the numbers the rules' conditions compare it with (``c["x"] > 1``, ``n >= 8``).

    Read from the bodies of the rules that read the path, when first asked for (parsing every
    rule's source up front would cost a CLI run a tenth of a second).
    """

    def __init__(self, book: Rulebook) -> None:
        self.book = book
        self.found: dict[str, frozenset[float]] = {}
        self.parsed: dict[Any, dict[str, set[float]]] = {}

    def __getitem__(self, path: str) -> frozenset[float]:
        hit = self.found.get(path)
        if hit is None:
            nums: set[float] = set()
            for r in _readers(self.book).get(path, ()):
                nums.update(self._of(r.fn).get(path, ()))
            hit = self.found[path] = frozenset(nums)
        return hit

    def __iter__(self) -> Any:
        return iter(self.found)

    def __len__(self) -> int:
        return len(self.found)

    def _of(self, fn: Callable[..., Any]) -> dict[str, set[float]]:
        code = getattr(fn, "__code__", None)
        if code is None:
            return {}
        hit = self.parsed.get(code)
        if hit is None:
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
            except (OSError, TypeError, SyntaxError):
                tree = None
            hit = self.parsed[code] = _compared(tree, getattr(fn, "__globals__", {})) if tree is not None else {}
        return hit


@functools.lru_cache(maxsize=16)
def _thresholds(book: Rulebook) -> _Thresholds:
    return _Thresholds(book)


@functools.lru_cache(maxsize=16)
def _readers(book: Rulebook) -> dict[str, tuple[Rule, ...]]:
    """Per path the rules that read it."""
    out: dict[str, list[Rule]] = {}
    for r in book.rules.values():
        for p in r.reads:
            out.setdefault(p, []).append(r)
    return {p: tuple(v) for p, v in out.items()}


def _compared(tree: ast.AST, names: Mapping[str, Any]) -> dict[str, set[float]]:
    def key(node: ast.AST) -> str | None:
        if isinstance(node, ast.Subscript):
            s = node.slice
            if isinstance(s, ast.Constant) and isinstance(s.value, str):
                return s.value
            if isinstance(s, ast.Name) and isinstance(names.get(s.id), str):
                return str(names[s.id])
        if isinstance(node, ast.Name):
            return aliases.get(node.id)
        return None

    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t, v = node.targets[0], node.value
            pairs = (list(zip(t.elts, v.elts, strict=False)) if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple)
                     else [(t, v)])
            for a, b in pairs:
                if isinstance(a, ast.Name) and (k := key(b)) is not None:
                    aliases[a.id] = k
    found: dict[str, set[float]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        nums = {o.value for o in operands if isinstance(o, ast.Constant) and isinstance(o.value, (int, float))
                and not isinstance(o.value, bool)}
        if not nums:
            continue
        for o in operands:
            k = key(o)
            if k is not None:
                found.setdefault(k, set()).update(nums)
    return found


def _domain(path: str, current: Any, target: Any, thresholds: Mapping[str, frozenset[float]],
            spec: FlagSpec | None) -> list[Any]:
    """The values worth trying for ``path``: its type's few values, or numbers around the rules' thresholds."""
    import enum

    info = paths().info[path]
    ann = info.annotation
    kinds = get_args(ann) or (ann,)
    if spec is not None and spec.choices is not None:
        return list(spec.choices)
    for t in kinds:
        if t is bool:
            return [True, False]
        if isinstance(t, type) and issubclass(t, enum.Enum):
            return list(t)
        if get_origin(t) is Literal:
            return list(get_args(t))
    if any(t is int for t in kinds) and not any(t is str for t in kinds):
        values: set[int] = set()
        for n in thresholds.get(path, ()):
            if float(n).is_integer():
                values.update({int(n) - 1, int(n), int(n) + 1})
        if isinstance(current, int) and not isinstance(current, bool) and current > 0:
            values.update({current * 2, current // 2})
        if isinstance(target, int) and not isinstance(target, bool):
            values.add(target)
        return sorted(v for v in values if v >= 0)[:12]
    if any(t is float for t in kinds):
        fl = {float(n) for n in thresholds.get(path, ())}
        return sorted(fl)[:6]
    return []


# --------------------------------------------------------------------------- the user's line


def _slots(argv: Sequence[str], by_name: Mapping[str, FlagSpec]) -> tuple[list[str], list[tuple[str, ...]]]:
    """The user's flags in groups (a flag with its values), after a positional model (kept apart)."""
    args = strip_invocation(list(argv))
    head: list[str] = []
    if args and not args[0].startswith("-"):
        head, args = [args[0]], args[1:]
    groups: list[tuple[str, ...]] = []
    i = 0
    while i < len(args):
        tok = args[i]
        group = [tok]
        i += 1
        if tok.startswith("-") and not _number(tok):
            name, eq, _ = tok.partition("=")
            base = name.split(".", 1)[0]
            spec = by_name.get(base) or by_name.get(base.replace("_", "-"))
            takes = not eq and not (tok.startswith("-O") and len(name) > 2 and "." not in name)
            if spec is not None and spec.kind in ("bool", "store_true") and "." not in name:
                takes = False
            if takes:
                many = spec is not None and spec.kind.startswith("list")
                while i < len(args) and (not args[i].startswith("-") or _number(args[i])):
                    group.append(args[i])
                    i += 1
                    if not many:
                        break
        groups.append(tuple(group))
    return head, groups


def _number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _slot_paths(group: tuple[str, ...], by_name: Mapping[str, FlagSpec]) -> set[str]:
    """The config paths one of the user's flags sets (a JSON flag: every key it names)."""
    tok = group[0]
    name, eq, value = tok.partition("=")
    base, dot, keys = name.partition(".")
    spec = by_name.get(base)
    if spec is None:
        return set()
    if dot:
        return {f"{spec.target}.{keys.rstrip('+')}"}
    if tok.startswith("-O") and tok != "-O" and "." not in tok:
        return {"compilation_config.mode"}
    if spec.kind == "json":
        text = value if eq else (group[1] if len(group) > 1 else "")
        try:
            data = json.loads(text)
        except ValueError:
            return {spec.target}
        if isinstance(data, dict):
            return {spec.target, *(f"{spec.target}.{k}" for k in data)}
        return {spec.target, f"{spec.target}.mode"}
    return {spec.target}


def _tokens(spec: FlagSpec, value: Any) -> tuple[str, ...] | None:
    """The flag's tokens that set ``value`` (None when the flag cannot say it)."""
    import enum

    long = next((n for n in spec.names if n.startswith("--")), spec.names[0])
    if spec.kind == "bool":
        if not isinstance(value, bool):
            return None
        return (long,) if value else ("--no-" + long[2:],)
    if spec.kind == "store_true":
        return (long,) if value is True else None
    if spec.kind in ("json", "json_or_str", "legacy_bool"):
        return None
    if value is None:
        return (long, "None") if spec.optional else None
    if spec.kind == "list_int":
        if not isinstance(value, (list, tuple)) or not value:
            return None
        return (long, *(str(v) for v in value))
    if spec.kind == "list_str":
        if not isinstance(value, (list, tuple)) or not value:
            return None
        return (long, *(str(v) for v in value))
    if isinstance(value, bool):
        return None
    text = value.name if isinstance(value, enum.Enum) and spec.kind == "str" and not spec.choices else (
        str(value.value) if isinstance(value, enum.Enum) else str(value))
    return (long, text)


def _dotted_text(value: Any) -> str:
    import enum

    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, str):
        return value
    return json.dumps(jsonable(value))


# --------------------------------------------------------------------------- the search


@dataclass(slots=True)
class _Tried:
    edits: tuple[Edit, ...]
    resolution: Resolution | None
    hit: bool
    refused: bool
    moved: bool
    """It changed the path's input value, its writers or its final value, or stopped the resolution."""


class _Search:
    def __init__(self, base: Resolution, path: str, target: Any, budget: int, keep: tuple[str, ...] = ()) -> None:
        if base.request is None:
            raise InvalidValueError("how needs a resolution made by postinit.resolve (it keeps the request)")
        self.base = base
        self.request: Request = base.request
        self.path = path
        self.target = target
        self.budget = budget
        self.keep = keep
        self.direct: list[_Tried] = []
        """The edits that set the path itself, tried alone (what overrides them is a blocker)."""
        self.version = base.vllm_version
        self.book: Rulebook = base.engine.rulebook
        """The base's rulebook: the version's, with the site's rules if it has any."""
        self.by_path, self.by_name = _version_flags(self.version)
        self.config_mode = self.request.effective_usage is None
        self.head, self.groups = _slots(self.request.argv or [], self.by_name)
        self.group_paths = [_slot_paths(g, self.by_name) for g in self.groups]
        self.tried = 0
        self.by_size: dict[int, int] = {}
        """Candidates tried per number of edits."""
        self.refused = 0
        self.seen: dict[frozenset[tuple[Any, ...]], _Tried] = {}
        self.history = self._history(base)
        self.base_warnings = {(e.rule, e.message) for e in base.messages("warning")}
        self.base_writers = {e.rule for e, _ in base.trace.changes_to(path)}
        self.env_table = _versions.get(self.version).env_table
        self.position = _positions(self.book)
        self.last_writer = max((self.position.get(w, 0) for w in _writers(self.book).get(path, ())), default=-1)

    # -- the user's line --------------------------------------------------------------

    def line(self, request: Request) -> str:
        """``VLLM_X=1 vllm serve MODEL FLAGS`` of a request (config mode: the config as JSON)."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(request.env.items()) if v is not None)
        if self.config_mode:
            cfg = json.dumps(request.config or {}, sort_keys=True, separators=(",", ":"))
            return (env + " " if env else "") + f"config {cfg}"
        argv = list(request.argv or [])
        head, rest = _slots(argv, self.by_name)
        model = head[0] if head else None
        flagged = any(g[0] == "--model" or g[0].startswith("--model=") for g in rest)
        words = ["vllm", "serve"]
        if model is not None:
            words.append(model)
        elif not flagged:
            words.append(request.model or DEFAULT_MODEL)
        words += [t for g in rest for t in g]
        cmd = " ".join(shlex.quote(w) for w in words)
        return (env + " " if env else "") + cmd

    # -- applying edits ---------------------------------------------------------------

    def apply(self, edits: Sequence[Edit]) -> dict[str, Any]:
        """The request fields the edits change (for ``Resolution.with_changes``)."""
        changes: dict[str, Any] = {}
        groups: list[tuple[str, ...] | None] = list(self.groups)
        added: list[tuple[str, ...]] = []
        env = dict(self.request.env)
        config = json.loads(json.dumps(self.request.config)) if self.request.config is not None else None
        argv_changed = env_changed = config_changed = False
        for e in edits:
            if e.kind in ("remove", "change"):
                assert e.slot is not None
                groups[e.slot] = e.after if e.kind == "change" else None
                argv_changed = True
            elif e.kind == "add":
                added.append(e.after)
                argv_changed = True
            elif e.kind == "env":
                env[e.subject] = e.after[0]
                env_changed = True
            elif e.kind == "unset-env":
                env.pop(e.subject, None)
                env_changed = True
            elif e.kind == "config":
                config = config if config is not None else {}
                _set_nested(config, e.subject, e.value, remove=not e.after)
                config_changed = True
            elif e.kind == "platform":
                changes["platform"] = e.after[0]
        if argv_changed:
            changes["argv"] = [*self.head, *(t for g in groups if g is not None for t in g),
                               *(t for g in added for t in g)]
        if env_changed:
            changes["env"] = env
        if config_changed:
            changes["config"] = config
        return changes

    def run(self, edits: tuple[Edit, ...]) -> _Tried | None:
        key = frozenset(_key(e) for e in edits)
        if key in self.seen:
            return self.seen[key]
        if self.tried >= self.budget:
            return None
        self.tried += 1
        self.by_size[len(edits)] = self.by_size.get(len(edits), 0) + 1
        try:
            r = self.base.with_changes(**self.apply(edits))
        except InputError:
            tried = _Tried(edits, None, False, False, False)
        else:
            reached = _eq(r.state.get(self.path), self.target) and all(
                _eq(r.state.get(k), self.base.state.get(k)) for k in self.keep)
            refused = not r.ok
            # a refusal counts as a near miss only when the path was decided before vLLM refused
            reached = reached and (not refused or self._decided_before(r.violations[0].rule))
            if reached and refused:
                self.refused += 1
            moved = refused or self._history(r) != self.history
            tried = _Tried(edits, r, reached and not refused, reached and refused, moved)
        self.seen[key] = tried
        if len(edits) == 1 and edits[0].path == self.path:
            self.direct.append(tried)
        return tried

    def _decided_before(self, rule_id: str) -> bool:
        """Every rule that may write the path runs before ``rule_id`` (the value was final when it refused)."""
        return self.position.get(rule_id, 1 << 30) > self.last_writer

    def rank(self, t: _Tried) -> int:
        """How promising a tried edit is as part of a bigger one: 0 it sets the path, 1 it changes the
        path's writers or final value, 2 it stops the resolution with a violation, 3 nothing of the path."""
        e = t.edits[-1]
        if e.path == self.path:
            return 0
        r = t.resolution
        if r is None:
            return 9
        if not r.ok:
            return 2
        return 1 if self.outcome(r) != self.history[1:3] else 3

    def outcome(self, r: Resolution) -> tuple[Any, ...]:
        """The path's writers and the values they wrote, and its final value."""
        return self._history(r)[1:3]

    def _history(self, r: Resolution) -> tuple[Any, ...]:
        p = self.path
        writes = tuple((e.rule, jsonable(c.new)) for e, c in r.trace.changes_to(p))
        return (jsonable(r.engine.initial.get(p)), writes, jsonable(r.state.get(p)), r.ok)

    # -- candidate edits --------------------------------------------------------------

    def knobs(self, start: Iterable[str], depth: int = _CONE_DEPTH) -> list[tuple[int, _Knob]]:
        """The inputs the paths in ``start`` depend on, nearest first."""
        cone = _cone(self.book, start, depth)
        absent = _versions.absent_paths(self.version)
        env_vars = known_variables(self.env_table)
        out: list[tuple[int, _Knob]] = []
        for p, d in sorted(cone.items(), key=lambda kv: (kv[1], kv[0])):
            if p in absent or p.startswith(_FACTS):
                continue
            if p.startswith("env."):
                if p[4:] in env_vars:
                    out.append((d, _Knob(p, "env", name=p[4:])))
                continue
            if p not in paths().info:
                continue
            if self.config_mode:
                if not paths().info[p].presence and "." in p:
                    out.append((d, _Knob(p, "config", name=p)))
                continue
            specs = self.by_path.get(p)
            if specs:
                out.append((d, _Knob(p, "flag", specs[0], specs[0].names[0])))
                continue
            section, _, rest = p.partition(".")
            flag = _SECTIONS.get(section)
            if flag is not None and rest and not paths().info[p].presence and p.count(".") == 1:
                out.append((d, _Knob(p, "dotted", self.by_name[flag], f"{flag}.{rest}")))
        return out

    def edits_for(self, knob: _Knob, values: Iterable[Any]) -> list[Edit]:
        out: list[Edit] = []
        if knob.path in self.keep:
            return out
        for v in values:
            e = self._edit(knob, v)
            if e is not None:
                out.append(e)
        return out

    def _edit(self, knob: _Knob, value: Any) -> Edit | None:
        req = self.request
        if knob.kind == "env":
            var = known_variables(self.env_table)[knob.name]
            text = _env_text(var.kind, value)
            if text is None:
                return None
            before = req.env.get(knob.name)
            if before == text:
                return None
            return Edit("env", knob.name, (before,) if before is not None else (), (text,), knob.path, value)
        if knob.kind == "config":
            before_v = _get_nested(req.config or {}, knob.path)
            if before_v is not _MISSING and _eq(before_v, value):
                return None
            return Edit("config", knob.path, () if before_v is _MISSING else (_dotted_text(before_v),),
                        (_dotted_text(value),), knob.path, jsonable(value))
        slot = self._slot_of(knob.path)
        if knob.kind == "flag":
            assert knob.spec is not None
            tokens = _tokens(knob.spec, value)
        else:
            tokens = (f"{knob.name}={_dotted_text(value)}",)
            if slot is not None and not self.groups[slot][0].startswith(knob.name):
                tokens = self._merged_json(slot, knob, value)
        if tokens is None:
            return None
        subject = tokens[0].split("=", 1)[0]
        if slot is not None:
            if self.groups[slot] == tokens:
                return None
            own = self.groups[slot][0].split("=", 1)[0]
            if knob.spec is not None and knob.kind == "flag" and knob.spec.kind != "bool" and own in knob.spec.names:
                tokens = (own, *tokens[1:])  # the user's spelling: -dcp 1, not --decode-context-parallel-size 1
                subject = own
            return Edit("change", subject, self.groups[slot], tokens, knob.path, value, slot)
        return Edit("add", subject, (), tokens, knob.path, value)

    def _merged_json(self, slot: int, knob: _Knob, value: Any) -> tuple[str, ...] | None:
        """The user's JSON-valued flag (``-O '{...}'``, ``-O3``) with one more key: one flag, changed."""
        group = self.groups[slot]
        tok = group[0]
        key = knob.path.split(".", 1)[1]
        name, eq, text = tok.partition("=")
        if tok.startswith("-O") and tok != "-O" and not eq and "." not in tok:
            data: Any = {"mode": int(tok[2:])} if tok[2:].isdigit() else None
            name = "-O"
        else:
            try:
                data = json.loads(text if eq else (group[1] if len(group) > 1 else ""))
            except ValueError:
                data = None
        if not isinstance(data, dict):
            return None
        data = {**data, key: jsonable(value)}
        return (name, json.dumps(data, separators=(",", ":")))

    def _slot_of(self, path: str) -> int | None:
        for i in range(len(self.groups) - 1, -1, -1):
            if path in self.group_paths[i]:
                return i
        return None

    def removals(self) -> list[Edit]:
        out: list[Edit] = []
        for i, g in enumerate(self.groups):
            if not self.group_paths[i] & set(self.keep):
                out.append(Edit("remove", g[0].split("=", 1)[0], g, (), None, None, i))
        for name, v in sorted(self.request.env.items()):
            if v is not None:
                out.append(Edit("unset-env", name, (v,), (), f"env.{name}", None))
        if self.config_mode and self.request.config:
            for p in _leaves(self.request.config):
                out.append(Edit("config", p, (_dotted_text(_get_nested(self.request.config, p)),), (), p, None))
        return out

    def singles(self) -> list[list[Edit]]:
        """Every single edit worth trying, in tiers: setting the path itself, removing the user's flags
        that its writers read, and the inputs its writers read or why-not's conditions stopped at;
        then everything further up the field graph."""
        thresholds = _thresholds(self.book)
        state = self.base.engine.initial
        first: list[Edit] = []
        for _, k in self.knobs([self.path], depth=0):
            first.extend(self.edits_for(k, [self.target]))
        failing = {c.condition.path for c in self._why_not() if c.condition is not None}
        near_paths = self._near()
        removal = self.removals()
        first.extend(e for e in removal if e.slot is not None and self.group_paths[e.slot] & (near_paths | failing))
        rest: list[Edit] = []
        start, depth = self._deciders()
        for d, k in self.knobs(start, depth):
            if k.path == self.path:
                continue
            if k.kind == "env":
                var = known_variables(self.env_table)[k.name]
                values = _env_domain(var.kind, var.choices)
            else:
                values = _domain(k.path, state.get(k.path), self.target, thresholds, k.spec)
            near = d + (_CONE_DEPTH - depth) <= 1  # distance from the path: the deciders' reads are 1
            (first if (near or k.path in failing) else rest).extend(self.edits_for(k, values))
        rest.extend(removal)
        tier1 = _unique(first)
        seen = {_key(e) for e in tier1}
        return [tier1, [e for e in _unique(rest) if _key(e) not in seen]]

    def _deciders(self) -> tuple[list[str], int]:
        """Where a single edit must act: the reads of the rule that wrote the final value, of the members of
        its group, and of the path's writers that run after it (a rule is a pure function of its declared
        reads, so an edit outside their cone leaves the final value as it is). Under consistent semantics,
        or when the resolution stopped, every writer of the path counts."""
        changes = self.base.trace.changes_to(self.path)
        if not changes or not self.base.ok or self.request.semantics != "vllm":
            return [self.path], _CONE_DEPTH
        last = changes[-1][0].rule
        rule = self.book.rules.get(last)
        if rule is None:
            return [self.path], _CONE_DEPTH
        reads: set[str] = set(rule.reads)
        if rule.group is not None and rule.group in self.book.groups:
            # the group's gate decides whether it runs; in a first_match group an earlier member that
            # starts to match takes the decision away from this one
            group = self.book.groups[rule.group]
            reads.update(group.when_reads)
            if group.kind is GroupKind.FIRST_MATCH:
                for m in group.members[:group.members.index(last)] if last in group.members else ():
                    if m in self.book.rules:
                        reads.update(self.book.rules[m].reads)
        pos = self.position.get(last, -1)
        for w in _writers(self.book).get(self.path, ()):
            if self.position.get(w, -1) > pos:
                reads.update(self.book.rules[w].reads)
        reads.discard(self.path)
        return sorted(reads), _CONE_DEPTH - 1

    def next_edits(self, t: _Tried, ranks: Mapping[tuple[Any, ...], int]) -> list[tuple[Edit, int]]:
        """The edits worth adding to ``t``: setting the path, and the inputs of what now blocks the value.

        What blocks it is read from ``t``'s own resolution: the rule that refused the config, or the
        rules that wrote another value to the path (their reads, two levels up, name the inputs).
        """
        r = t.resolution
        out: list[tuple[Edit, int]] = []
        if not any(e.path == self.path for e in t.edits):
            for _, k in self.knobs([self.path], depth=0):
                out.extend((e, 0) for e in self.edits_for(k, [self.target]))
        if r is None:
            return out
        book = self.book
        if r.violations:
            rule_ids = [r.violations[0].rule]
        else:
            rule_ids = [e.rule for e, c in r.trace.changes_to(self.path) if not _eq(c.new, self.target)][-2:]
        reads: list[str] = []
        for rid in rule_ids:
            if rid in book.rules:
                reads.extend(book.rules[rid].reads)
        for e in _fixes(self, reads):
            out.append((e, min(ranks.get(_key(e), 1), 1)))
        return out

    def _near(self) -> set[str]:
        return set(_cone(self.book, [self.path], 1))

    def _why_not(self) -> tuple[Any, ...]:
        try:
            return tuple(self.base.why_not(self.path, self.target).candidates)
        except InputError:
            return ()

    # -- the answer -------------------------------------------------------------------

    def answer(self, t: _Tried) -> Answer:
        assert t.resolution is not None
        r = t.resolution
        prov = r.engine.provenance_of(self.path)
        decided = f"rule {prov.rule}" if prov.source is Source.RULE else origin(prov)
        set_paths = {e.path for e in t.edits if e.path is not None}
        for e in t.edits:
            if e.slot is not None:
                set_paths |= self.group_paths[e.slot]
        sa, sb = self.base.state, r.state
        fields = tuple(
            FieldChange(p, sa.get(p), sb.get(p)) for p in sorted(sa.keys() | sb.keys())
            if p != self.path and not p.startswith(_FACTS) and p not in set_paths
            and not any(p.startswith(s + ".") for s in set_paths)
            and not _eq(sa.get(p), sb.get(p))
        )
        warnings = tuple(f"{e.rule}: {e.message}" for e in r.messages("warning")
                         if (e.rule, e.message) not in self.base_warnings)
        writers = {e.rule for e, _ in r.trace.changes_to(self.path)}
        stopped = tuple(sorted(self.base_writers - writers))
        assert r.request is not None
        return Answer(t.edits, self.line(r.request), decided, stopped, fields, warnings, r.request)

    def blockers(self, near_misses: Sequence[_Tried]) -> tuple[Blocker, ...]:
        out: list[Blocker] = []
        changes = self.base.trace.changes_to(self.path)
        named: set[str] = set()
        fixed = self._fixed()
        if changes and not _eq(changes[-1][1].new, self.target):
            e, c = changes[-1]
            named.add(e.rule)
            out.append(Blocker(e.rule, f"sets {shown(c.new)}", fixed))
        for t in self.direct:
            r = t.resolution
            if r is None or r.violations:
                continue
            over = r.trace.changes_to(self.path)
            if over and not _eq(over[-1][1].new, self.target) and over[-1][0].rule not in named:
                e, c = over[-1]
                named.add(e.rule)
                out.append(Blocker(e.rule, f"overrides {t.edits[0].text.removeprefix('add ')}: sets {shown(c.new)}",
                                   self._fixed(r)))
        for v in self.base.violations:
            if v.rule not in named:
                named.add(v.rule)
                out.append(Blocker(v.rule, f"refuses the config: {v.message}"))
        fewest = min((len(t.edits) for t in near_misses), default=0)
        for t in near_misses:
            if len(t.edits) > fewest:
                continue
            assert t.resolution is not None
            for v in t.resolution.violations[:1]:
                if v.rule not in named:
                    named.add(v.rule)
                    out.append(Blocker(v.rule, f"refuses the config when {'; '.join(e.text for e in t.edits)}: "
                                               f"{v.message}"))
        if not out:
            prov = self.base.engine.provenance_of(self.path)
            for c in self._why_not():
                if c.status in ("not-fired", "not-reached") and c.rule not in named:
                    named.add(c.rule)
                    out.append(Blocker(c.rule, f"could write it but {c.detail}"))
            if not out:
                out.append(Blocker("(no rule)", f"no rule writes {self.path}; it comes from {origin(prov)}", fixed))
        owners = {rid: r.owner for rid, r in self.book.rules.items() if r.owner}
        return tuple(dataclasses.replace(b, owner=owners[b.rule]) if b.rule in owners else b for b in out[:6])

    def _fixed(self, r: Resolution | None = None) -> tuple[tuple[str, Any, str], ...]:
        """The values the path's decision rests on that no flag or variable of the user changes."""
        try:
            node = (r or self.base).why(self.path)
        except InputError:
            return ()
        out: dict[str, tuple[str, Any, str]] = {}
        for leaf in node.leaves():
            p = leaf.provenance
            if leaf.path == self.path:
                continue
            if p.source is Source.LOADER or (p.source is Source.FACT and leaf.path.startswith("platform.")):
                out.setdefault(leaf.path, (leaf.path, leaf.value, origin(p)))
            elif any(k == leaf.path or k.startswith(leaf.path + ".") for k in self.keep) and (
                    not paths().info[leaf.path].presence or (p.detail or "").startswith("-")):
                out.setdefault(leaf.path, (leaf.path, leaf.value, f"{origin(p)}, which you keep"))
        return tuple(out.values())[:8]


_MISSING: Any = object()


def _get_nested(data: Mapping[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _set_nested(data: dict[str, Any], path: str, value: Any, *, remove: bool = False) -> None:
    *head, last = path.split(".")
    node = data
    for part in head:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = node[part] = {}
        node = nxt
    if remove:
        node.pop(last, None)
    else:
        node[last] = value


def _leaves(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for k, v in data.items():
        p = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.extend(_leaves(v, p + "."))
        else:
            out.append(p)
    return out


def _env_text(kind: str, value: Any) -> str | None:
    if kind in ("bool_int", "bool_text"):
        return None if not isinstance(value, bool) else ("1" if value else "0")
    if value is None:
        return None
    return str(value)


def _env_domain(kind: str, choices: tuple[str, ...] | None) -> list[Any]:
    if kind in ("bool_int", "bool_text"):
        return [True, False]
    if kind == "choice" and choices:
        return list(choices)[:12]
    return []


def _unique(edits: Iterable[Edit]) -> list[Edit]:
    seen: set[tuple[Any, ...]] = set()
    out: list[Edit] = []
    for e in edits:
        k = _key(e)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


def _compatible(edits: Sequence[Edit]) -> bool:
    """No two edits touch the same flag, variable, config path or field."""
    slots = [e.slot for e in edits if e.slot is not None]
    subjects = [(e.kind in ("env", "unset-env"), e.subject) for e in edits]
    touched = [e.path for e in edits if e.path is not None]
    return len(set(slots)) == len(slots) and len(set(subjects)) == len(subjects) and len(set(touched)) == len(touched)


def _rank(a: Answer) -> tuple[Any, ...]:
    order = {"change": 0, "remove": 1, "add": 2, "env": 3, "unset-env": 4, "config": 5, "platform": 6}
    return (len(a.edits), a.side_effects, [order[e.kind] for e in a.edits], a.line)


def how(base: Resolution, path: str, value: Any, *, max_edits: int = 2, keep: Sequence[str] = (),
        platforms: bool | None = None, budget: int = MAX_CANDIDATES) -> HowAnswer:
    """The smallest verified edits of ``base``'s inputs that give ``path == value`` (see the module docstring).

    ``value`` is checked against the path's type first (text as a user types it: ``FULL``, ``true``,
    ``8k``); ``max_edits`` is 1 to :data:`MAX_EDITS`. ``keep`` names paths whose final values an answer
    must not change (``parallel_config.decode_context_parallel_size``: "with DCP"). ``platforms`` tries
    the same inputs on other platforms (single edits, listed apart): by default only when no edit of
    the inputs works. At most ``budget`` edited requests are resolved.
    """
    start = time.perf_counter()
    if isinstance(max_edits, bool) or not isinstance(max_edits, int) or not 1 <= max_edits <= MAX_EDITS:
        raise InvalidValueError(f"max_edits must be a whole number from 1 to {MAX_EDITS}, got {show(max_edits)}",
                                path="max_edits", value=None)
    version = base.vllm_version
    target = parse_target(path, value, version)
    kept = _kept(keep, path)
    search = _Search(base, path, target, budget, kept)
    final = base.state.get(path)
    user_line = search.line(search.request)
    holds = _eq(final, target) and base.ok
    hits: list[_Tried] = []
    near_misses: list[_Tried] = []
    if not holds:
        hits, near_misses = _levels(search, max_edits)
    answers = sorted((search.answer(t) for t in hits), key=_rank)[:MAX_ANSWERS]
    elsewhere: list[Answer] = []
    if not holds and (platforms or (platforms is None and not answers)):
        elsewhere = _platforms(search)
    blockers = search.blockers(near_misses) if not holds and not answers else ()
    return HowAnswer(path, target, final, holds, max_edits, tuple(answers), tuple(elsewhere), blockers,
                     search.tried, search.refused, time.perf_counter() - start, user_line, version,
                     tuple(sorted(search.by_size.items())))


def _kept(keep: Sequence[str] | str, path: str) -> tuple[str, ...]:
    if isinstance(keep, str):
        keep = [keep]
    out: list[str] = []
    for p in keep:
        if not isinstance(p, str):
            raise InvalidValueError(f"keep: dotted paths are strings, got {type(p).__name__}", path="keep", value=None)
        paths().require(p)
        if p == path:
            raise InvalidValueError(f"keep {p}: that is the path asked about", path="keep", value=p)
        out.append(p)
    return tuple(dict.fromkeys(out))


def _levels(search: _Search, max_edits: int) -> tuple[list[_Tried], list[_Tried]]:
    """Breadth first: single edits tier by tier, then pairs (triples) grown from the edits that moved the path.

    A level stops at the end of the first tier that has an answer: fewer edits always win, and within a
    level the answers of the most promising tier are ranked by their side effects.
    """
    tried1: list[_Tried] = []
    near: list[_Tried] = []
    for singles in search.singles():
        done = [t for e in singles if (t := search.run((e,))) is not None]
        tried1.extend(done)
        near.extend(t for t in done if t.refused)
        hits = [t for t in done if t.hit]
        if hits:
            return hits, near
    if max_edits == 1:
        return [], near
    ranks = {_key(t.edits[0]): search.rank(t) for t in tried1}
    frontier = _distinct(search, [t for t in tried1 if ranks[_key(t.edits[0])] <= 1])
    frontier += _distinct(search, [t for t in tried1 if ranks[_key(t.edits[0])] == 2])[:12]
    for _ in range(2, max_edits + 1):
        scored: list[tuple[tuple[int, int], tuple[Edit, ...]]] = []
        seen: set[frozenset[tuple[Any, ...]]] = set()
        for t in frontier:
            first_rank = max(ranks.get(_key(e), 3) for e in t.edits)
            for e, second_rank in search.next_edits(t, ranks):
                combo = (*t.edits, e)
                key = frozenset(_key(x) for x in combo)
                if key in seen or not _compatible(combo):
                    continue
                seen.add(key)
                scored.append(((max(first_rank, second_rank), first_rank + second_rank), combo))
        scored.sort(key=lambda sc: sc[0])
        found: list[_Tried] = []
        nxt: list[_Tried] = []
        tier: tuple[int, int] | None = None
        for score, combo in scored:
            if found and score != tier:
                break
            tier = score
            t2 = search.run(combo)
            if t2 is None:
                break
            if t2.hit:
                found.append(t2)
            elif t2.refused:
                near.append(t2)
            elif search.rank(t2) <= 2:
                nxt.append(t2)
        if found:
            return found, near
        frontier = _distinct(search, nxt)[:12]
    return [], near


def _distinct(search: _Search, tried: Iterable[_Tried]) -> list[_Tried]:
    """One edit per outcome for the path (its writers and values, or the rule that refused): what to grow."""
    seen: set[Any] = set()
    out: list[_Tried] = []
    for t in tried:
        r = t.resolution
        if r is None:
            continue
        what = (r.violations[0].rule,) if r.violations else search.outcome(r)
        if what not in seen:
            seen.add(what)
            out.append(t)
    return out


def _key(e: Edit) -> tuple[Any, ...]:
    return (e.kind, e.subject, e.slot, e.after)


def _fixes(search: _Search, reads: Iterable[str]) -> list[Edit]:
    thresholds = _thresholds(search.book)
    state = search.base.engine.initial
    reads = list(reads)
    cone = set(_cone(search.book, reads, 1))
    out: list[Edit] = [e for e in search.removals() if e.slot is not None and search.group_paths[e.slot] & cone]
    for _, k in search.knobs(reads, depth=1):
        if k.kind == "env":
            var = known_variables(search.env_table)[k.name]
            values = _env_domain(var.kind, var.choices)
        else:
            values = _domain(k.path, state.get(k.path), None, thresholds, k.spec)
        out.extend(search.edits_for(k, values))
    return _unique(out)


def _platforms(search: _Search) -> list[Answer]:
    """The same inputs on other platforms: a separate kind of answer."""
    req = search.request
    if not isinstance(req.platform, str):
        return []
    current = req.platform.strip().lower()
    found: list[Answer] = []
    for name in _PLATFORMS:
        if name == current:
            continue
        t = search.run((Edit("platform", "platform", (req.platform,), (name,)),))
        if t is not None and t.hit:
            found.append(search.answer(t))
    return sorted(found, key=lambda a: (a.side_effects, a.line))[:4]
