"""The stages vLLM fails in, seen from the front door: what is refused before the rulebook runs.

vLLM meets its checks in one order (``postinit.rules.observed.STEPS``), and raises the
first failure it meets. Inside the rulebook the phases and each rule's rank keep that
order. Two stages come before it:

* **parse** — ``vllm serve``'s argument parser builds the sub-config of a JSON-valued
  flag on the spot (``--compilation-config``/``-O``, ``--kv-transfer-config``, ...;
  ``observed.PARSED_SUB_CONFIGS``): pydantic checks the fields' types
  (``postinit.schema.loaders.argv``), then the class's ``__post_init__`` runs — here the
  rules of that sub-config's stage, alone, on the flag's value (:func:`parse_stage`). A
  refusal is an ``argparse.ArgumentError``: :class:`~postinit.errors.SubConfigError`
  with ``stage="parse"``, vLLM's text and the rule, and ``vllm serve`` exits 2.
* **construction from a dict** — in config mode a sub-config whose field pydantic refuses
  fails where vLLM builds it (:func:`refuse_part`): ``stage`` is the sub-config, the error
  pydantic's ``ValidationError``; the parts are checked in vLLM's construction order
  (:func:`construction_order`).

:class:`RaisedError` is what vLLM raises for a resolution that failed in the rulebook:
the violation's exception, message and stage, and pydantic's wrapper around it.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from postinit.engine import ViolationEvent
from postinit.rules import observed, paths
from postinit.rules.versions import DEFAULT_VERSION, VERSIONS, Version
from postinit.schema.errors import SubConfigError
from postinit.schema.loaders.argv import Construct, FlagSpec
from postinit.schema.loaders.construct import (
    escaping_error,
    one_line,
    refusal,
    schema_class,
    wrapped_text,
)

__all__ = ["RaisedError", "built_before", "construction_order", "parse_stage", "raised", "refuse_engine_args_dicts",
           "refuse_part"]


@functools.cache
def _stage_rules(stage: str, version: Version) -> frozenset[str]:
    """The rules that are the ``__post_init__`` of the sub-config built at ``stage`` (in ``version``'s rulebook)."""
    return frozenset(r.id for r in version.rulebook.rules.values() if r.stage == stage and r.phase == "sub_configs")


@functools.cache
def _nested_rules(cls: str, version: Version) -> frozenset[str]:
    """The rules that are the ``__post_init__`` of the nested class ``cls`` (``observed.NESTED_POST_INITS``)."""
    where = observed.NESTED_POST_INITS[cls][1]
    return frozenset(r.id for r in version.rulebook.rules.values() if r.source.startswith(where))


def parse_stage(base: Mapping[str, Any] | Callable[[], Mapping[str, Any]], version: Version | None = None,
                said: list[tuple[str, str, str]] | None = None) -> Construct:
    """What vLLM's parser runs when a JSON-valued flag builds its sub-config: the class's ``__post_init__``.

    ``base`` is the flat state of a config built directly (defaults, the platform, the environment,
    no EngineArgs): the sub-config sees only its flag's JSON, as ``TypeAdapter(cls).validate_json``
    builds it, with ``version``'s rules (``base`` may be a function returning it: called where a flag builds a
    sub-config, so a command line without one never builds it). The first rule of that sub-config that refuses the value raises a
    :class:`~postinit.errors.SubConfigError` (``stage="parse"``) naming the flag and the rule.
    ``base`` holds ``version``'s ``version.*`` facts (default: the seed commit). ``said`` collects what a
    sub-config built without refusal logged there, ``(rule, level, text)``: vLLM logs it while parsing.
    """
    v_ = version if version is not None else VERSIONS[DEFAULT_VERSION]

    def construct(spec: FlagSpec, value: Any) -> None:
        stage = observed.PARSED_SUB_CONFIGS.get(spec.builds or "")
        kept = spec.target.startswith("extra.")  # a flag postinit keeps as an extra: its stage's sub-config
        nested = observed.NESTED_POST_INITS.get(spec.builds or "")
        if nested is not None and nested[0] == spec.target and stage is None:
            select = _nested_rules(spec.builds or "", v_)
            if not select:
                return  # the version's class has no __post_init__ of its own (before vLLM 0.34.0)
            stage, target = "parse", spec.target
        elif stage is None or ("." in spec.target and not kept):
            return  # a class without a __post_init__ of its own (EPLBConfig; PoolerConfig before 0.34.0)
        else:
            select = _stage_rules(stage, v_)
            target = stage if kept else spec.target
        cls = schema_class(spec.builds or "")
        try:  # vLLM's dataclasses ignore keys they have no field for (postinit refuses them at the door)
            obj = cls.model_validate({k: v for k, v in value.items() if k in cls.model_fields})
        except ValidationError:
            return  # only postinit's own bounds are left: the door reports them
        state = dict(base() if callable(base) else base)
        mount, _, name = target.rpartition(".")
        if mount:
            state[mount] = True
        paths().flatten_fields(types.SimpleNamespace(**{name: obj}), (name,), state, mount)
        result = v_.rulebook.resolve(state, {}, owned=True, select=select, trace="full")
        if result.ok:
            if said is not None:
                said.extend((e.rule, str(e.level), line) for e in result.trace.fired if e.message
                            and not observed.is_explanation(e.rule) for line in e.message.splitlines() if line.strip())
            return
        v = result.violations[0]
        # a nested class is a pydantic dataclass too: wrapped as one of its stage would be
        if observed.wrapped_by("model_config" if stage == "parse" else stage, v.error) is None:
            # vLLM lets it escape argparse as it is
            text = f"{v.error}: {v.message}"
            raise SubConfigError(f"{spec.shown}: {text} (rule {v.rule})", config=cls.__name__, flag=spec.shown,
                                 path=target, value=value, rule=v.rule, stage="parse", error=v.error,
                                 vllm_message=v.message, trace=result.trace)
        vllm = f"argument {spec.shown}: {wrapped_text(cls.__name__, v.error, v.message, value)}"
        raise SubConfigError(f"{one_line(vllm)} (rule {v.rule})", config=cls.__name__, flag=spec.shown,
                             path=target, value=value, rule=v.rule, stage="parse", error="ArgumentError",
                             vllm_message=vllm, trace=result.trace)

    return construct


_BUILT_IN_CONFIG_MODE = ("model_config", "sub_configs")
"""The phases of the rules that are sub-configs' own construction (what a config dict's construction runs)."""


def built_before(state: Mapping[str, Any], stage: str, version: Version | None = None) -> Any:
    """The trace of building, from a config dict, the sub-configs vLLM builds before ``stage`` refuses its part.

    vLLM builds the sub-configs one by one (:func:`construction_order`): those before the one it
    refuses have run their ``__post_init__`` and logged (a SchedulerConfig's "Chunked prefill is
    enabled ..."). ``state`` is the flat state of the parts read so far; the trace is what the
    refusal's :class:`~postinit.errors.SubConfigError` carries.
    """
    index = {s.stage: i for i, s in reversed(list(enumerate(observed.STEPS)))}
    limit = index.get(stage, -1)
    book = (version if version is not None else VERSIONS[DEFAULT_VERSION]).rulebook
    chosen = frozenset(r.id for r in book.rules.values() if r.phase in _BUILT_IN_CONFIG_MODE
                       and r.stage is not None and index.get(r.stage, limit) < limit)
    return book.resolve(dict(state), {}, owned=True, select=chosen, trace="full").trace


def construction_order(keys: Iterable[str]) -> list[str]:
    """A config's top-level keys in the order vLLM builds those sub-configs (others first, as given)."""
    index = _step_index()
    return sorted(keys, key=lambda k: index.get(k, -1))


@functools.cache
def _step_index() -> dict[str, int]:
    """Each stage's first place in ``observed.STEPS`` (vLLM's order)."""
    return {s.stage: i for i, s in reversed(list(enumerate(observed.STEPS)))}


def refuse_part(key: str, value: Any, undeclared: Iterable[str] | None = None, mode_enum: bool = False) -> None:
    """Raise vLLM's refusal to build the sub-config ``key`` from the dict ``value``, if vLLM refuses it.

    Only pydantic's refusals of fields whose types are vLLM's (``schema.loaders.construct``); the
    rest is the door's. The error names the sub-config as the stage and carries pydantic's text.
    ``undeclared`` (``Version.undeclared``: the version's configs forbid a keyword they do not declare)
    makes a key of no field of that version vLLM's refusal too; ``mode_enum`` (``version.compilation_mode_enum``)
    a compilation mode outside 0-3.
    """
    name = observed.CONFIG_CLASSES.get(key)
    if name is None or key == "vllm_config" or not isinstance(value, Mapping):
        return
    below = None if undeclared is None else [p[len(key) + 1:] for p in undeclared if p.startswith(key + ".")]
    escaping = escaping_error(schema_class(name), value) if undeclared is not None else None
    if escaping is not None:  # raised by the class's validator, past pydantic
        raise SubConfigError(f"{key}: {escaping[0]}: {escaping[1]}", config=name, path=key, stage=key,
                             error=escaping[0], vllm_message=escaping[1])
    text = refusal(schema_class(name), data=value, absent=below, mode_enum=mode_enum)
    if text is not None:
        raise SubConfigError(f"{key}: {one_line(text)}", config=name, path=key, stage=key, error="ValidationError",
                             vllm_message=text)


def refuse_engine_args_dicts(config: Mapping[str, Any], version: Version) -> tuple[str, ...]:
    """A Python caller's dict sub-configs as ``EngineArgs.__post_init__`` builds them (``version.engine_args_dicts``:
    path -> vLLM class, in its order): the paths of ``config`` given as dicts, or vLLM's refusal of the first one its
    class refuses, raised there (stage ``engine_args``: pydantic's ``ValidationError``, or the exception that escapes
    the class's validator), before create_engine_config builds anything. The refusal's ``said_before`` holds what
    ``__post_init__`` logged before it (``version.engine_args_dict_rules``, asked about the dicts built so far)."""
    given: list[str] = []
    undeclared = version.undeclared
    for path, name in version.facts.engine_args_dicts.items():
        value: Any = config
        for part in path.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        if not isinstance(value, Mapping):
            continue
        given.append(path)
        cls = schema_class(name)
        escaping = escaping_error(cls, value)
        below = None if undeclared is None else [p[len(path) + 1:] for p in undeclared if p.startswith(path + ".")]
        text = None if escaping is not None else refusal(cls, data=value, absent=below)
        if escaping is None and text is None:
            continue
        error, message = escaping if escaping is not None else ("ValidationError", text or "")
        e = SubConfigError(f"{path}: {error}: {one_line(message)}" if escaping is not None else
                           f"{path}: {one_line(message)}", config=name, path=path, stage="engine_args", error=error,
                           vllm_message=message)
        e.said_before = _said_while_building(config, tuple(given), version)
        raise e
    return tuple(given)


def _said_while_building(config: Mapping[str, Any], given: tuple[str, ...], version: Version) -> tuple[
        tuple[str, str, str], ...]:
    """What ``version.engine_args_dict_rules`` log for the dicts ``given`` so far, ``(rule, level, text)``."""
    parallel = config.get("parallel_config")
    view = {"usage.via_engine_args": True, "usage.dicts": given, "parallel_config.enable_fault_tolerance":
            bool(parallel.get("enable_fault_tolerance")) if isinstance(parallel, Mapping) else False}
    said: list[tuple[str, str, str]] = []
    for rid in version.facts.engine_args_dict_rules:
        r = version.rulebook.rules[rid]
        if set(r.reads) - set(view):  # pragma: no cover - a rule reading more than this view holds
            raise ValueError(f"{rid} reads {sorted(set(r.reads) - set(view))}: not a rule of the dicts alone")
        if r.fn(view) is not None and r.message:
            said.append((rid, str(r.level), r.message))
    return tuple(said)


@dataclass(frozen=True)
class RaisedError:
    """The exception vLLM raises for a config the rulebook refused: as vLLM raises it, and where."""

    type: str
    """The exception (``ValueError``, ``AssertionError``, ...); inside pydantic's wrapper when there is one."""
    message: str
    stage: str | None
    """Where vLLM raises it (``observed.VLLM_STAGES``)."""
    rule: str
    wrapped_by: str | None = None
    """``ValidationError`` when vLLM raises it while building a pydantic dataclass (``observed.wrapped_by``)."""
    wrapper_message: str | None = None
    """pydantic's text of the wrapper (without vLLM's ``input_value``: see :func:`raised`)."""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, "stage": self.stage, "rule": self.rule,
                "wrapped_by": self.wrapped_by, "wrapper_message": self.wrapper_message}


_INPUT = re.compile(r"input_value=.*, input_type=\w+\]")


def raised(v: ViolationEvent, engine_args: bool = False) -> RaisedError:
    """What vLLM raises for the violation ``v``: the exception, and pydantic's wrapper around it if any.

    The wrapper's ``input_value`` (the arguments vLLM built the dataclass from, with their object
    reprs) is not reproduced: it reads ``input_value=…``. ``engine_args``: EngineArgs built the config.
    """
    inside = observed.wrapped_in(v.rule, v.error, v.message)
    wrapper = "ValidationError" if inside is not None else observed.wrapped_by(v.stage, v.error, engine_args)
    text = None
    if wrapper is not None and v.stage is not None:
        field = observed.field_of(v.rule, v.message)
        loc = (field,) if field is not None else ()
        title = inside or observed.CONFIG_CLASSES[observed.BUILT_INSIDE.get(v.rule, v.stage)]
        text = _INPUT.sub("input_value=…, input_type=ArgsKwargs]", wrapped_text(title, v.error, v.message, None, loc))
    return RaisedError(v.error, v.message, v.stage, v.rule, wrapper, text)
