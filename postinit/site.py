"""Your own rules on top of vLLM's: site policies, resolved and explained with vLLM's.

A site policy is a rule like vLLM's (:func:`postinit.engine.rule`, or :func:`policy`, which
fills in the defaults of a policy): a pure function with declared reads and writes. Give
them to any face — ``postinit.resolve(..., rules=[my_rule])`` or ``rules="mysite.policies"``
(a module name) or ``rules="policies.py"`` (a file); ``--rules FILE.py|MODULE`` on the
command line; ``postinit serve --rules ...`` for the service, which loads them at start and
never from a request.

Site rules join the chosen vLLM version's rulebook: by default in the phase ``site``, after
all of vLLM's (a check or a site default on the resolved config); a rule may name one of
vLLM's phases instead and is then ordered with vLLM's rules of that phase by its reads,
writes and ``after=``. The combined rulebook passes the same static checks as vLLM's own
(unknown paths, unordered writers of one path in one phase, undeclared cycles), and an
error names both rules, the site's marked as such. Every site rule carries
:attr:`~postinit.engine.Rule.owner` (the module or file it came from): the trace, ``why``,
``why-not``, ``what-if``, ``upgrade`` and the HTML report mark its decisions as the site's.

The config hash stays vLLM's: ``VllmConfig.compute_hash()`` of the resolved values (what a
site rule changed included, as if the value had been passed as a flag); the site's rules
themselves are not hashed.

Combined rulebooks are compiled and checked once per ``(version, rules)`` and cached, like
vLLM's own (in the process, and their phase orders on disk).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import os
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from postinit.engine import Group, Rule, Rulebook, rule, rule_of
from postinit.engine._rule import Kind, Level
from postinit.errors import InputError, RuleDeclarationError, RuleError, UnknownPathError
from postinit.rules import versions

__all__ = ["SITE_PHASE", "RulesSpec", "SiteRules", "load", "policy", "site_rulebook"]

SITE_PHASE = "site"
"""The phase site rules join by default: after every phase of vLLM's."""

F = TypeVar("F", bound=Callable[..., Any])

RulesSpec = Any
"""What ``rules=`` takes: a rule function, a :class:`~postinit.engine.Rule` or a group; a module or a module
name (``"mysite.policies"``); a ``.py`` file path; a list of these; or a loaded :class:`SiteRules`."""


def policy(
    id: str,
    *,
    title: str,
    reads: Iterable[str] | str,
    writes: Iterable[str] | str = (),
    kind: Kind | str | None = None,
    phase: str = SITE_PHASE,
    after: Iterable[str] | str = (),
    source: str = "site policy",
    message: str = "",
    level: Level | str = Level.INFO,
    ensures: Callable[[Mapping[str, Any]], bool] | None = None,
) -> Callable[[F], F]:
    """:func:`postinit.engine.rule` with a policy's defaults: phase ``site``; a ``check`` without writes, else an
    ``override``; source ``"site policy"``."""
    chosen = kind if kind is not None else (Kind.OVERRIDE if tuple([writes] if isinstance(writes, str) else writes)
                                            else Kind.CHECK)
    return rule(id, title=title, phase=phase, kind=chosen, reads=reads, writes=writes, after=after, source=source,
                message=message, level=level, ensures=ensures)


@dataclasses.dataclass(frozen=True)
class SiteRules:
    """Site rules, loaded and marked with their owner: what every face hands the rulebook."""

    rules: tuple[Rule, ...] = ()
    groups: tuple[Group, ...] = ()
    sources: tuple[str, ...] = ()
    """Where they came from, as given (module names, file paths, ``python`` for objects)."""
    specs: tuple[str, ...] = ()
    """The module names and file paths among the sources: what a worker process loads again (the sweep)."""
    refs: tuple[tuple[str, str], ...] = ()
    """``(module, name)`` of the rules given as objects (what a reproduction imports)."""

    def __bool__(self) -> bool:
        return bool(self.rules)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.rules)

    def __add__(self, other: SiteRules) -> SiteRules:
        return _merge([self, other])


NO_RULES = SiteRules()


def _fail(spec: str, text: str) -> InputError:
    return InputError(f"--rules {spec}: {text}", path="rules", value=spec)


def _is_file(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or "/" in spec


@functools.lru_cache(maxsize=64)
def _file_module(path: str, mtime: int, size: int) -> types.ModuleType:
    """A policy file imported as a module of its own (once per file version)."""
    digest = hashlib.sha256(path.encode()).hexdigest()[:12]
    name = f"postinit_site_{Path(path).stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _fail(path, "cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # rules defined there pickle by reference (the sweep's worker processes)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        sys.modules.pop(name, None)
        raise _fail(path, f"importing it raised {type(e).__name__}: {e}") from e
    return module


def _module(spec: str) -> tuple[types.ModuleType, str]:
    if _is_file(spec):
        p = Path(spec).expanduser()
        try:
            st = p.resolve().stat()
        except OSError:
            raise _fail(spec, "no such file") from None
        if not p.is_file():
            raise _fail(spec, "not a file")
        return _file_module(str(p.resolve()), st.st_mtime_ns, st.st_size), spec
    try:
        try:
            return importlib.import_module(spec), spec
        except ModuleNotFoundError as e:
            here = os.getcwd()
            if e.name != spec.split(".")[0] or here in sys.path:
                raise
            sys.path.append(here)  # as `python -m` does: a module of the current directory
            return importlib.import_module(spec), spec
    except ModuleNotFoundError as e:
        raise _fail(spec, f"no module named {e.name!r} (give a module on sys.path or a .py file)") from None
    except Exception as e:
        raise _fail(spec, f"importing it raised {type(e).__name__}: {e}") from e


def _from_module(module: types.ModuleType, label: str) -> tuple[list[Rule], list[Group]]:
    """A module's rules: its ``RULES`` list if it has one, else every rule and group defined in it."""
    declared = getattr(module, "RULES", None)
    if declared is not None:
        if not isinstance(declared, (list, tuple)):
            raise _fail(label, "RULES must be a list of rules and groups")
        items: Iterable[Any] = declared
    else:
        items = [v for v in vars(module).values()
                 if isinstance(v, Group) or (rule_of(v) is not None and not isinstance(v, Rule)
                                             and getattr(v, "__module__", None) == module.__name__)]
    rules: list[Rule] = []
    groups: list[Group] = []
    for v in items:
        _collect(v, rules, groups, label)
    if not rules:
        raise _fail(label, "defines no rule (decorate functions with @postinit.site.policy or "
                           "@postinit.engine.rule, or list them in RULES)")
    return rules, groups


def _collect(obj: Any, rules: list[Rule], groups: list[Group], label: str) -> None:
    if isinstance(obj, Group):
        groups.append(obj)
        rules.extend(obj.rules)
        return
    r = rule_of(obj)
    if r is None:
        raise _fail(label, f"{obj!r} is not a rule (decorate it with @postinit.site.policy or @postinit.engine.rule)")
    rules.append(r)


def _merge(parts: Sequence[SiteRules]) -> SiteRules:
    rules: dict[str, Rule] = {}
    groups: dict[str, Group] = {}
    for part in parts:
        for r in part.rules:
            if r.id in rules and rules[r.id].fn is not r.fn:
                raise RuleDeclarationError(
                    f"site rule id '{r.id}' is declared twice: {rules[r.id].owner} ({rules[r.id].location}) and "
                    f"{r.owner} ({r.location})", rule=r.id)
            rules.setdefault(r.id, r)
        for g in part.groups:
            groups.setdefault(g.id, g)
    return SiteRules(tuple(rules.values()), tuple(groups.values()),
                     tuple(dict.fromkeys(s for p in parts for s in p.sources)),
                     tuple(dict.fromkeys(s for p in parts for s in p.specs)),
                     tuple(dict.fromkeys(s for p in parts for s in p.refs)))


def _owned(rules: Iterable[Rule], owner: str) -> list[Rule]:
    return [r if r.owner is not None else dataclasses.replace(r, owner=owner) for r in rules]


def load(spec: RulesSpec) -> SiteRules:
    """Site rules from what ``rules=`` takes (see :data:`RulesSpec`); ``None`` or ``[]`` is no rules.

    A module or file contributes its ``RULES`` list, or else every rule function and group it defines
    (rules it imports from elsewhere are not its own). A bad name or file is one
    :class:`~postinit.errors.InputError` line naming it.
    """
    if spec is None:
        return NO_RULES
    if isinstance(spec, SiteRules):
        return spec
    if isinstance(spec, (str, os.PathLike)):
        text = os.fspath(spec)
        if not isinstance(text, str) or not text.strip():
            raise InputError("rules: name a module (mysite.policies) or a .py file", path="rules", value=spec)
        module, label = _module(text.strip())
        rules, groups = _from_module(module, label)
        return SiteRules(tuple(_owned(rules, label)), tuple(groups), (label,), (text.strip(),))
    if isinstance(spec, types.ModuleType):
        rules, groups = _from_module(spec, spec.__name__)
        return SiteRules(tuple(_owned(rules, spec.__name__)), tuple(groups), (spec.__name__,), (spec.__name__,))
    if isinstance(spec, (list, tuple)):
        return _merge([load(s) for s in spec])
    rules, groups = [], []
    _collect(spec, rules, groups, "rules")
    fn = getattr(rules[0], "fn", None)
    owner = getattr(fn, "__module__", None) or "python"
    owner = "site" if owner == "__main__" else owner
    name = getattr(spec, "__name__", None) or getattr(spec, "id", None)
    refs = ((owner, name),) if isinstance(name, str) and name.isidentifier() else ()
    return SiteRules(tuple(_owned(rules, owner)), tuple(groups), (owner,), (), refs)


def site_rulebook(version: str | versions.Version = versions.DEFAULT_VERSION, rules: RulesSpec = None) -> Rulebook:
    """vLLM ``version``'s rulebook with the site ``rules`` added (vLLM's own, the very object, when there are none).

    The combined rulebook is compiled and checked once per ``(version, rules)``. A rule id of vLLM's, a path
    the version does not have, two unordered writers, a cycle: a :class:`~postinit.errors.RuleError` naming
    the rules (the site's marked with their owner).
    """
    site = load(rules)
    v = version if isinstance(version, versions.Version) else versions.get(version)
    if not site:
        return v.rulebook
    return _combined(v, site.rules, site.groups)


@functools.lru_cache(maxsize=32)
def _combined(version: versions.Version, rules: tuple[Rule, ...], groups: tuple[Group, ...]) -> Rulebook:
    base = version.rulebook
    absent = version.absent_paths
    for r in rules:
        if r.id in base.rules:
            theirs = base.rules[r.id]
            raise RuleDeclarationError(
                f"site rule {r.id} (rule of {r.owner}, {r.location}) has the id of vLLM's rule {r.id} "
                f"({theirs.location}); give it an id of your own (e.g. 'mysite.{r.id.split('.')[-1]}')", rule=r.id)
        for what, used in (("reads", r.reads), ("writes", r.writes)):
            for p in used:
                if p in absent:
                    raise UnknownPathError(f"site rule {r.id} (rule of {r.owner}) {what} '{p}', a field vLLM "
                                           f"{version} does not have", rule=r.id, path=p)
    phases = (*base.phases, SITE_PHASE)
    digest = hashlib.sha256("|".join(sorted(r.id for r in rules)).encode()).hexdigest()[:10]
    try:
        return Rulebook([*base.rules.values(), *rules], paths=base.paths, phases=phases,
                        name=f"{base.name}+site-{digest}", cache=True, groups=[*base.groups.values(), *groups],
                        semantics_aliases=base.semantics_aliases)
    except RuleError as e:
        raise type(e)(f"with the site rules: {e.message}", rule=e.rule, path=e.path, value=e.value) from None


def is_site_rule(book: Rulebook, rule_id: str) -> bool:
    """Whether ``rule_id`` is a site's rule in ``book`` (not vLLM's)."""
    r = book.rules.get(rule_id)
    return r is not None and r.owner is not None


def owner_of(book: Rulebook, rule_id: str) -> str | None:
    """The owner of a site rule (its module or file), None for vLLM's rules."""
    r = book.rules.get(rule_id)
    return r.owner if r is not None else None
