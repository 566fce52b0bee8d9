"""The front door: ``postinit.resolve(...)`` and the :class:`Resolution` it returns."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, create_model

from postinit._request import DEFAULT_MODEL, DEFAULT_PLATFORM, Request, Semantics, UsageSpec
from postinit._stages import (
    RaisedError,
    built_before,
    construction_order,
    parse_stage,
    raised,
    refuse_engine_args_dicts,
    refuse_part,
)
from postinit.engine import (
    Change,
    EngineResult,
    Fired,
    Provenance,
    Source,
    StaleRead,
    Trace,
    ViolationEvent,
    freeze,
    jsonable,
    replay,
)
from postinit.errors import InputError, InvalidValueError, ViolationError, did_you_mean, show
from postinit.rules import paths, versions
from postinit.rules.hashing import transformers_module
from postinit.rules.model_config import registry
from postinit.schema import (
    CompilationMode,
    DraftModel,
    Env,
    HFConfig,
    ModelConfig,
    Platform,
    Usage,
    VllmConfig,
)
from postinit.schema.configs import CacheDType, DistributedExecutorBackend, SpeculativeMethod
from postinit.schema.env import EnvReading, defined_variables, read_env
from postinit.schema.errors import ModelNotFoundError, SubConfigError
from postinit.schema.loaders import check_keys, format_validation_error, load_model, parse_vllm_args
from postinit.schema.loaders.construct import (
    one_line,
    refusal,
    refused_fields,
    schema_class,
    split_undeclared,
)
from postinit.schema.loaders.model import (
    LoadedModel,
    catalog_id,
    standardized_rope_override,
    with_hf_overrides,
)
from postinit.schema.usage import (
    ENGINE_ARGS_AS_GIVEN,
    ENGINE_ARGS_NONE_DEFAULTS,
    ENGINE_ARGS_REWRITTEN,
)
from postinit.site import NO_RULES, RulesSpec, SiteRules, site_rulebook
from postinit.site import load as load_rules

if TYPE_CHECKING:
    from rich.console import RenderableType

    from postinit._how import HowAnswer
    from postinit.engine import WhyNode, WhyNot

__all__ = [
    "DEFAULT_MODEL", "DEFAULT_PLATFORM", "RESULT_VERSION", "Note", "Request", "Resolution", "prepare", "resolve",
    "resolve_request",
]

RESULT_VERSION = 1

_USAGE_CONTEXT = {
    "serve": "OPENAI_API_SERVER",
    "llm": "LLM_CLASS",
    "engine": "ENGINE_CONTEXT",
    "api_server": "API_SERVER",
    "batch": "OPENAI_BATCH_RUNNER",
    "unknown": "UNKNOWN_CONTEXT",
    "none": None,
}
_PARSER_SCOPE = {"serve": "frontend", "api_server": "async"}
"""Which of vLLM's parsers reads the flags of a usage: ``vllm serve``'s (the server's flags too), AsyncEngineArgs'
(the API server), else EngineArgs' (``LLM(...)`` and the engines; schema.loaders.argv._build_parser)."""
_CONFIG_ADAPTER: TypeAdapter[VllmConfig] = TypeAdapter(VllmConfig)


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in top.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def _merged_at(base: Mapping[str, Any], parts: list[str], value: Any) -> dict[str, Any]:
    """``_deep_merge(base, _nest(".".join(parts), value))``, copying only the mappings along the path."""
    out = dict(base)
    head = parts[0]
    old = out.get(head)
    if len(parts) == 1:
        out[head] = _deep_merge(old, value) if isinstance(value, Mapping) and isinstance(old, Mapping) else value
    elif isinstance(old, Mapping):
        out[head] = _merged_at(old, parts[1:], value)
    else:
        out[head] = _nest(".".join(parts[1:]), value)
    return out


def _nest(path: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = out
    *head, last = path.split(".")
    for part in head:
        node = node.setdefault(part, {})
    node[last] = value
    return out


@dataclass(frozen=True)
class _FastPaths:
    """Per-process constants of the front door (built once, on first use)."""

    default_flat: dict[str, Any]
    """``VllmConfig()`` (and an empty env) flattened: what every part the input leaves out flattens to."""
    empty_env: dict[str, Any]
    platform_paths: tuple[str, ...]
    usage_paths: tuple[str, ...]
    usages: dict[Any, dict[str, Any]]

    def usage(self, usage: UsageSpec | None) -> dict[str, Any]:
        flat = self.usages.get(usage)
        if flat is None:
            obj = Usage(
                via_engine_args=usage is not None,
                usage_context=_USAGE_CONTEXT.get(usage) if usage is not None else None,
            )
            flat = self.usages[usage] = paths().flatten_model(obj, "usage")
        return flat


SERVICE_CWD = "$PWD"
"""The working directory a relative debug dump path is joined to when files are off (the service, ``catalog_only``):
vLLM's own, which the server does not know; the server's is never shown."""


@functools.cache
def _fast_paths() -> _FastPaths:
    space = paths()
    base = space.defaults()
    base.update(space.flatten({"": VllmConfig()}))
    return _FastPaths(
        default_flat=base,
        empty_env=space.flatten_model(Env(), "env"),
        platform_paths=tuple(p for p in space.paths if p.startswith("platform.")),
        usage_paths=tuple(p for p in space.paths if p.startswith("usage.")),
        usages={},
    )


@functools.lru_cache(maxsize=64)
def _platform_spec(text: str) -> tuple[str, dict[str, Any]]:
    plat = Platform.from_spec(text)
    return f"platform {text}", paths().flatten_model(plat, "platform")


def _platform(spec: Platform | str) -> tuple[str, dict[str, Any]]:
    """The platform's provenance detail and flattened facts (cached per spec string, except ``auto``)."""
    if isinstance(spec, Platform):
        return f"platform {spec.device_name or spec.kind}", paths().flatten_model(spec, "platform")
    if spec.strip().lower() == "auto":
        plat = Platform.detect()
        what = plat.device_name or (f"{plat.kind} {plat.cpu_arch}" if plat.kind == "cpu" else plat.kind)
        return f"platform auto (detected: {what})", paths().flatten_model(plat, "platform")
    return _platform_spec(spec)


@functools.lru_cache(maxsize=256)
def _catalog_model(name: str) -> LoadedModel:
    return load_model(name, allow_files=False)


_PLAIN_PATH = re.compile(r"(?!\.{1,2}(?:/|$))[\w.-]+(?:/(?!\.{1,2}(?:/|$))[\w.-]+)*", re.ASCII)
"""A relative path ``Path`` keeps as it is written: names of letters, digits, ``_.-`` joined by single ``/`` (no
``~`` to expand, no ``.`` or ``..`` part, no leading, trailing or doubled ``/``), so ``Path(name).expanduser()``
names ``name`` and ``os.path.exists`` answers what ``Path.exists`` does."""


def _load(name: str, *, allow_files: bool) -> LoadedModel:
    """A named model's facts: a local directory (read every time) or a catalog id (cached)."""
    if allow_files:
        if _PLAIN_PATH.fullmatch(name):  # the path as written (what ``Path`` would make of it): no Path object
            local = os.path.exists(name)
        else:
            try:
                local = Path(name).expanduser().exists()
            except (OSError, ValueError):
                local = False
        if local:
            return load_model(name)
    return _catalog_model(name) if catalog_id(name) is not None else load_model(name, allow_files=allow_files)


def resolve(
    config: VllmConfig | Mapping[str, Any] | Request | None = None,
    *,
    platform: Platform | str | None = None,
    env: Env | Mapping[str, str | None] | None = None,
    model: str | None = None,
    argv: str | Sequence[str] | None = None,
    usage: UsageSpec | None = None,
    semantics: Semantics = "vllm",
    trace: Literal["minimal", "full", "debug"] = "full",
    strict: bool = False,
    overrides: Mapping[str, Any] | None = None,
    config_json: Mapping[str, Any] | None = None,
    tokenizer_config_json: Mapping[str, Any] | None = None,
    catalog_only: bool = False,
    vllm_version: str | None = None,
    rules: RulesSpec = None,
) -> Resolution:
    """Resolve a vLLM config the way vLLM would, and explain every decision.

    The arguments make a :class:`~postinit.Request` (see it for what each means and
    the defaults): ``model`` and/or ``argv`` (``vllm serve`` flags, a list or one
    string) is what ``vllm serve`` does; a ``config`` dict (vLLM's nested field
    names) or ``VllmConfig`` alone is config mode, as when ``VllmConfig(...)`` is
    built directly; ``usage="llm"`` is ``LLM(...)``. ``config_json`` gives a model's
    config.json content inline. ``platform`` is a spec (``h100``, ``cuda:10.0``,
    ``cpu``, ``auto``) or a :class:`Platform`; ``env`` the environment variables (the
    process environment is never read). ``overrides`` maps dotted paths to values
    set last (``postinit what-if --set``). ``catalog_only`` refuses local files:
    models by catalog id or inline only. ``vllm_version`` is the vLLM to resolve as
    (default ``"d7fb10c57"``, the seed commit; ``"0.11.1"``; see :func:`versions`).
    ``rules`` adds your own rules (site policies) to the version's rulebook: rule functions, a module
    or a module name (``"mysite.policies"``), a ``.py`` file, or a list of these (:mod:`postinit.site`).
    A ready :class:`~postinit.Request` may be passed as ``config``. The input is never mutated.
    """
    if isinstance(config, Request):
        request = config
    else:
        request = Request.build(
            config, model=model, config_json=config_json, tokenizer_config_json=tokenizer_config_json,
            argv=argv, platform=platform, env=env, usage=usage, semantics=semantics, overrides=overrides,
            vllm_version=vllm_version,
        )
    return resolve_request(request, trace=trace, strict=strict, allow_files=not catalog_only, rules=rules)


def resolve_request(
    request: Request,
    *,
    trace: Literal["minimal", "full", "debug"] = "full",
    strict: bool = False,
    allow_files: bool = True,
    record: bool = False,
    rules: RulesSpec = None,
) -> Resolution:
    """Resolve one :class:`~postinit.Request`: the function every face calls.

    ``allow_files=False`` reads no file: models by catalog id or inline content only,
    no ``--config`` flag, no ``platform="auto"`` (the HTTP service). ``record=True`` keeps
    every rule evaluation for :meth:`Resolution.with_changes` (it records one otherwise). ``rules`` are the
    site's rules added to the version's rulebook (:func:`postinit.site.site_rulebook`); they are not part of
    the request: the service loads its own at start and never takes them from a request.
    """
    site = load_rules(rules)
    book = site_rulebook(request.version, site)
    keep: list[_Front] = []
    state, prov, inputs, notes, loaded = _prepare(request, allow_files=allow_files, keep=keep)
    # ``_prepare`` builds a fresh dict of frozen values for this call: the engine takes it over
    result = book.resolve(state, prov, semantics=request.semantics, trace=trace, strict=strict, owned=True,
                          record=record)
    return Resolution(result, inputs=inputs, request=request, notes=_settle(notes, result), allow_files=allow_files,
                      strict=strict, model_facts=loaded, rules=site, front=keep[0] if keep else None)


Part = tuple[dict[str, Any], tuple[str, ...]]
"""One top-level field of the input, validated: its flat values, and the paths the input set."""
_PARTS: dict[tuple[str, str], tuple[Any, Part]] = {}
"""Per top-level field and its canonical JSON (the model part: and its loaded model): the validated part."""
_PARTS_MAX = 1024


def _json_key(value: Any) -> str | None:
    """A canonical key for plain-JSON input (None when it holds anything else: no caching)."""
    def refuse(obj: Any) -> Any:
        raise TypeError(type(obj).__name__)

    try:
        return json.dumps(value, sort_keys=True, default=refuse, allow_nan=True)
    except (TypeError, ValueError):
        return None


@functools.cache
def _field_adapter(name: str) -> TypeAdapter[Any]:
    """The validator of one ``VllmConfig`` field (a sub-config model, or a plain value), its constraints and
    validators (the field's ``Annotated`` metadata) included."""
    info = VllmConfig.__pydantic_fields__[name]  # type: ignore[attr-defined]
    if info.metadata:
        return TypeAdapter(Annotated[(info.annotation, *info.metadata)])  # type: ignore[arg-type]
    return TypeAdapter(info.annotation)


_FACTS = ("hf_config", "hf_text_config")
_MODEL_FIELDS = tuple(n for n in ModelConfig.model_fields if n not in _FACTS)


def _part(key: str, value: Any, whole: Mapping[str, Any]) -> Part:
    """Validate and flatten one top-level field of the input (cached: a change re-validates its part only).

    ``model_config`` is validated without the model's facts (a ``ModelConfig`` has no check
    across its fields): those are flattened once per loaded model (:func:`_facts`).
    """
    patched = _patched_part(key, value)
    if patched is not None:
        return patched
    text = _json_key(value)
    cache_key = (key, text) if text is not None else None
    hit = _PARTS.get(cache_key) if cache_key is not None else None
    if hit is not None:
        return hit[1]
    check_keys({key: value}, VllmConfig)
    try:
        obj = _field_adapter(key).validate_python(value)
    except ValidationError:
        refuse_part(key, value)  # vLLM's own refusal, where vLLM builds that sub-config
        # the whole config's validation names the path from the top, as users write it
        try:
            _CONFIG_ADAPTER.validate_python(whole)
        except ValidationError as e:
            raise format_validation_error(e) from None
        raise  # pragma: no cover - the part failed, so the whole does
    space = paths()
    flat: dict[str, Any] = {}
    if key == "model_config" and obj is not None:
        flat["model_config"] = True
        space.flatten_fields(obj, _MODEL_FIELDS, flat, "model_config")
    else:
        space.flatten_fields(types.SimpleNamespace(**{key: obj}), (key,), flat)
    part = (flat, tuple(space.flatten_partial({key: value})))
    if cache_key is not None:
        if len(_PARTS) >= _PARTS_MAX:
            _PARTS.clear()
        _PARTS[cache_key] = (None, part)
    if type(value) is dict and _SCALARS.issuperset(map(type, value.values())):
        if len(_SHAPES) >= _PARTS_MAX:
            _SHAPES.clear()
        _SHAPES[(key, tuple(value))] = (dict(value), part)
    return part


_SCALARS = frozenset({type(None), bool, int, float, str})
_SHAPES: dict[tuple[str, tuple[str, ...]], tuple[dict[str, Any], Part]] = {}
"""Per top-level field and the keys its value gives, in order (a mapping of scalars): the last such value validated
whole, and its part — what another value of that shape is patched from (:func:`_patched_part`)."""


def _patched_part(key: str, value: Any) -> Part | None:
    """The part of a top-level field's value made from a validated value of the same shape (:data:`_SHAPES`): the
    leaves whose values differ validated on their own (:func:`_leaf_validator`: what the sub-config's validation does
    to each, no validator of its models reading across fields), the rest taken as they are. The paths the input sets
    are the shape's. None when no such value was validated, a differing leaf has no validator of its own or refuses
    the value (the whole part is then validated, and reports it)."""
    if type(value) is not dict:
        return None
    found = _SHAPES.get((key, tuple(value)))
    if found is None:
        return None
    given, (flat, users) = found
    patched: dict[str, Any] | None = None
    for k, v in value.items():
        was = given[k]
        if v is was or (type(v) is type(was) and v == was):
            continue
        if type(v) not in _SCALARS:
            return None
        path = f"{key}.{k}"
        leaf = _leaf_validator(path)
        if leaf is None:
            return None
        try:
            new = freeze(leaf(v))
        except (InputError, ValidationError, ValueError, TypeError):
            return None
        if patched is None:
            patched = dict(flat)
        patched[path] = new
    return (flat if patched is None else patched), users


_FACT_PARTS: dict[int, tuple[LoadedModel, dict[str, Any]]] = {}
_LOADER_PROV: dict[int, tuple[LoadedModel, tuple[dict[str, str], dict[str, Provenance], frozenset[str]]]] = {}


def _loader_provenance(model: LoadedModel) -> tuple[dict[str, str], dict[str, Provenance], frozenset[str]]:
    """The paths the model loader set, with what set them: ``(path -> detail, the provenance of those that are
    paths of the space, the paths)``, once per loaded model (shared: provenance is immutable)."""
    hit = _LOADER_PROV.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    space = paths()
    sources = {f"model_config.{k}": v for k, v in model.sources.items()}
    found = (sources, {p: Provenance(Source.LOADER, d) for p, d in sources.items() if p in space}, frozenset(sources))
    if len(_LOADER_PROV) >= 256:
        _LOADER_PROV.clear()
    _LOADER_PROV[id(model)] = (model, found)
    return found


def _facts(model: LoadedModel, whole: Mapping[str, Any]) -> dict[str, Any]:
    """The model's config.json facts (``hf_config``, ``hf_text_config``) validated and flattened, once per model."""
    hit = _FACT_PARTS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    space = paths()
    flat: dict[str, Any] = {}
    for name, facts in (("hf_config", model.hf_config), ("hf_text_config", model.hf_text_config)):
        try:
            obj = HFConfig.model_validate(facts)
        except ValidationError:
            try:
                _CONFIG_ADAPTER.validate_python(whole)
            except ValidationError as e:
                raise format_validation_error(e) from None
            raise  # pragma: no cover - the part failed, so the whole does
        flat.update(space.flatten_model(obj, f"model_config.{name}"))
    if len(_FACT_PARTS) >= 256:
        _FACT_PARTS.clear()
    _FACT_PARTS[id(model)] = (model, flat)
    return flat


def prepare(
    config: VllmConfig | Mapping[str, Any] | Request | None = None,
    *,
    catalog_only: bool = False,
    **kwargs: Any,
) -> tuple[dict[str, Any], dict[str, Provenance], dict[str, Any]]:
    """The rulebook's input for :func:`resolve`'s arguments: ``(flat_state, provenance, inputs)``.

    Validates and loads exactly as :func:`resolve` does, without resolving
    (``postinit.rules.rulebook().resolve(state, provenance)`` finishes the job).
    """
    request = config if isinstance(config, Request) else Request.build(config, **kwargs)
    state, prov, inputs, _, _ = _prepare(request, allow_files=not catalog_only)
    return state, prov, inputs


@dataclass(frozen=True)
class Note:
    """Something about the input that is no rule's decision: a variable with no effect, a deprecated flag."""

    kind: str
    subject: str
    message: str
    level: str | None = None
    """For a ``parse_log`` note: the level vLLM logs it at."""

    def to_dict(self) -> dict[str, str]:
        out = {"kind": self.kind, "subject": self.subject, "message": self.message}
        if self.level is not None:
            out["level"] = self.level
        return out


def _settle(notes: tuple[Note, ...], result: EngineResult) -> tuple[Note, ...]:
    """The notes of a resolution: a ``parse_log`` note (what a JSON-valued flag's sub-config logged while vLLM
    parsed the command line) only where the resolution's trace does not say it too (it stopped before that
    sub-config's rules ran: an earlier check of ``create_engine_config`` failed)."""
    for n in notes:
        if n.kind == "parse_log":
            break
    else:
        return notes
    said = {line for e in result.trace.fired if e.message for line in e.message.splitlines()}
    return tuple(n for n in notes if n.kind != "parse_log" or n.message not in said)


def _override_model(request: Request) -> Any:
    """The model an override names (``model_config.model``, or a ``model_config`` mapping), if any."""
    for path, value in request.overrides.items():
        if path == "model_config.model":
            return value
        if path == "model_config" and isinstance(value, Mapping) and "model" in value:
            return value["model"]
    return None


def _model_facts(
    request: Request, data: dict[str, Any], flag_model: str | None, allow_files: bool,
) -> tuple[str | None, LoadedModel | None]:
    """The model's name and facts: one loader for a name, ``config_json`` or ``model_config.hf_config``."""
    mc = data.get("model_config")
    if mc is not None and not isinstance(mc, Mapping):
        raise InvalidValueError(f"config.model_config must be a mapping, got {type(mc).__name__} {show(mc)}",
                                path="model_config", value=None)
    if request.model is not None and flag_model is not None and flag_model != request.model:
        raise InvalidValueError(
            f"two models: {show(request.model)} and {show(flag_model)} in the flags; name one",
            path="model_config.model", value=None)
    named = request.model or flag_model or (mc.get("model") if isinstance(mc, Mapping) else None)
    if _override_model(request) is not None:  # overrides are applied last: they win over every other door
        named = mc.get("model") if isinstance(mc, Mapping) else None
    if named is not None and not isinstance(named, str):
        raise InvalidValueError(f"model_config.model must be a string, got {type(named).__name__}",
                                path="model_config.model", value=None)
    inline = request.config_json
    origin = "config_json"
    if isinstance(mc, Mapping) and "hf_config" in mc:
        if inline is not None:
            raise InvalidValueError("the model's config.json is given twice: config_json and "
                                    "config.model_config.hf_config; send it once, as config_json",
                                    path="model_config.hf_config", value=None)
        inline, origin = mc["hf_config"], "config model_config.hf_config"
    elif isinstance(mc, Mapping) and "hf_text_config" in mc:
        raise InvalidValueError("model_config.hf_text_config is derived from the model's config.json "
                                "(vLLM's get_text_config()); send the config.json as config_json",
                                path="model_config.hf_text_config", value=None)
    if inline is not None:
        return named, load_model(named, config_json=inline, tokenizer_config_json=request.tokenizer_config_json,
                                 allow_files=allow_files, origin=origin)
    if named is None and request.effective_usage is not None:
        named = DEFAULT_MODEL
    if named is None:
        return None, None
    return named, _load(named, allow_files=allow_files)


_CHECKPOINT_FREE = ("ngram", "[ngram]", "ngram_gpu", "suffix", "extract_hidden_states")
"""``speculative_config.model`` values that name a speculator without a draft checkpoint, not a checkpoint."""


def _draft_facts(data: Mapping[str, Any], allow_files: bool) -> tuple[dict[str, Any], str | None, Note | None]:
    """The draft checkpoint's config.json facts (``draft.*``), read by the target model's loader with its limits (a
    local directory only where files may be read, else a catalog id): ``(flat facts, where from, note)``."""
    spec = data.get("speculative_config")
    name = spec.get("model") if isinstance(spec, Mapping) else None
    if not isinstance(name, str) or name in _CHECKPOINT_FREE:
        return {}, None, None
    try:
        draft = _load(name, allow_files=allow_files)
    except ModelNotFoundError:
        return {}, None, Note("draft", name, f"the draft checkpoint {show(name)} is neither a local directory with "
                              "config.json nor in the built-in catalog: what vLLM reads from its config.json (the "
                              "draft's architecture and max_model_len) is not modelled for it")
    try:
        hf, text = HFConfig.model_validate(draft.hf_config), HFConfig.model_validate(draft.hf_text_config)
    except ValidationError as e:
        raise InvalidValueError(f"speculative_config.model {show(name)}: its config.json: {one_line(str(e))}",
                                path="speculative_config.model", value=None) from None
    facts = DraftModel(loaded=True, name=draft.name, hf_config=hf.model_dump(), hf_text_config=text.model_dump())
    return paths().flatten_model(facts, "draft"), draft.path or f"catalog {draft.name}", None


def _overridden(loaded: LoadedModel, mc: dict[str, Any], flags: Mapping[str, str], *,
                standardize_rope: bool = False) -> LoadedModel:
    """The model's facts with ``model_config.hf_overrides`` (and the seed's ``rope_scaling``/``rope_theta``)
    applied, as ``ModelConfig`` applies them when it loads the HF config (schema.loaders.model.with_hf_overrides).

    ``standardize_rope`` (the version fact ``rope_override_standardized``): a dict-valued ``rope_scaling``
    override is standardized in place as it is set, so ``mc["hf_overrides"]`` becomes the dict vLLM keeps."""
    overrides = mc.get("hf_overrides")
    if standardize_rope and isinstance(overrides, Mapping) and isinstance(overrides.get("rope_scaling"), Mapping):
        overrides = mc["hf_overrides"] = standardized_rope_override(overrides, loaded.raw)
    scaling, theta = mc.get("rope_scaling"), mc.get("rope_theta")
    if not isinstance(overrides, Mapping):
        overrides = None
    if not overrides and not (isinstance(scaling, Mapping) and scaling) and not isinstance(theta, (int, float)):
        return loaded
    flag = flags.get("model_config.hf_overrides") or flags.get("model_config.rope_scaling") or "hf_overrides"
    try:
        return with_hf_overrides(loaded, overrides, rope_scaling=scaling if isinstance(scaling, Mapping) else None,
                                 rope_theta=theta if isinstance(theta, (int, float)) else None, flag=flag)
    except InputError:
        raise
    except (TypeError, ValueError):
        return loaded  # content the loader refuses is the schema's to report, with its field


class _Front:
    """What the front door built for a request, that a change of a few input paths re-derives from.

    A front made by a change of leaf fields (:func:`_prepare_changes`) derives its nested input and
    flags from its parent's on first use: a resolution that never becomes a base never pays for them.
    """

    __slots__ = ("_changes", "_data", "_flags", "_parent", "extra", "loader")

    def __init__(self, data: dict[str, Any] | None, flags: dict[str, str] | None, loader: frozenset[str],
                 extra: frozenset[str] = frozenset(), *, parent: _Front | None = None,
                 changes: Mapping[str, Any] | None = None) -> None:
        self._data = data
        self._flags = flags
        self.loader = loader
        """The paths the model loader set (their provenance is the loader's)."""
        self.extra = extra
        """The flags given that no ``VllmConfig`` field holds (EngineArgs-only values, by destination)."""
        self._parent = parent
        self._changes = changes

    @property
    def data(self) -> dict[str, Any]:
        """The nested input after flags and overrides (fields the version lacks dropped)."""
        if self._data is None:
            assert self._parent is not None and self._changes is not None
            data = self._parent.data
            for p, v in self._changes.items():
                data = _merged_at(data, p.split("."), v)
            self._data = data
        return self._data

    @property
    def flags(self) -> dict[str, str]:
        """Input path -> the flag (or ``--set``) that set it."""
        if self._flags is None:
            assert self._parent is not None and self._changes is not None
            self._flags = {**self._parent.flags, **{p: f"--set {p}" for p in self._changes}}
        return self._flags


_NOT_INCREMENTAL = ("env", "platform", "usage")
"""Top-level input fields a change of which goes through the whole front door (the environment, the facts)."""
_MODEL_LOADING = ("model_config.model", "speculative_config.model", "model_config.hf_config", "model_config.hf_text_config",
                  "model_config.hf_overrides", "model_config.rope_scaling", "model_config.rope_theta")
"""The fields the model's (and the draft's) facts are loaded from: a change of one goes through the whole door."""


@functools.lru_cache(maxsize=4096)
def _incremental_top(p: str, version: versions.Version) -> str | None:
    """``p``'s top-level field when a change of ``p`` may take the incremental front door as far as the path
    alone tells (see :func:`_prepare_changes`), else None."""
    top = p.split(".", 1)[0]
    if top in _NOT_INCREMENTAL or top == p or any(p == m or p.startswith(m + ".") for m in _MODEL_LOADING):
        return None
    if any(a == p or a.startswith(p + ".") or p.startswith(a + ".") for a in _absent_by_field(version).get(top, ())):
        return None
    if any(g == p or g.startswith(p + ".")
           for g in (*ENGINE_ARGS_NONE_DEFAULTS, *ENGINE_ARGS_REWRITTEN, *ENGINE_ARGS_AS_GIVEN)):
        return None  # usage.given / given_on / given_values follow the input: the whole front door
    info = paths().info.get(p)
    if info is not None and info.extra.get("choices_from"):
        return None  # the values it takes depend on the version (_refuse_later_values): the whole front door
    return top


@functools.lru_cache(maxsize=1024)
def _leaf_validator(path: str) -> Callable[[Any], Any] | None:
    """What validating the input does to one leaf field's value, on its own (``path`` a dotted leaf path).

    The field is validated by a model of that one field, with its model's configuration: what the
    sub-config's validation does to it, as long as no model on the way to it validates across its
    fields (a model or field validator): then None, and the whole part is validated instead.
    """
    space = paths()
    info = space.info.get(path)
    if info is None or info.presence:
        return None
    models = space.models_along(path)
    for cls in models:
        decorators = getattr(cls, "__pydantic_decorators__", None)
        if decorators is None or decorators.model_validators or decorators.field_validators \
                or decorators.root_validators:
            return None
    owner, name = space.owner(path)
    if not (isinstance(owner, type) and issubclass(owner, BaseModel)) or name not in owner.model_fields:
        return None
    found = owner.model_fields[name]
    alone = create_model(f"{owner.__name__}_{name}", __config__=owner.model_config,  # type: ignore[call-overload]
                         **{name: (found.annotation, found)})
    validate = alone.__pydantic_validator__.validate_python

    def leaf(value: Any) -> Any:
        return getattr(validate({name: value}), name)

    return leaf


_MEMO_TYPES = frozenset({type(None), bool, int, str})
"""Values whose validated, frozen form :func:`_prepare_changes` remembers per leaf (the key tells them apart by
type, so ``True`` is not ``1``; floats are left out: ``-0.0 == 0.0``)."""
_LEAF_VALUES: dict[tuple[str, type, Any], Any] = {}
"""(leaf path, the value's type, the value) -> the leaf's value as validating it alone gives it, frozen."""


def _prepare_changes(
    res: Resolution, changed: Request, changes: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Provenance], dict[str, None], _Front] | None:
    """The front door for ``res``'s request with ``set`` applied, re-deriving only what ``set`` touches.

    A changed leaf field is validated on its own (:func:`_leaf_validator`), and only its path's value and
    provenance are set again over the base's input state; a changed sub-model (a dict value) has its
    top-level field validated and flattened again (:func:`_part`, as :func:`_prepare` does). Returns
    ``(the paths set again with their values, the whole provenance, the paths whose value or provenance may
    differ, the new front)``, or None when the
    change needs the whole front door: a path the model's facts are loaded from (``model_config.model``,
    ``hf_config``), an environment, platform or usage path, an override overlapping another, a field the
    version lacks, a leaf under a sub-model the input leaves out, a part the version has defaults in, or a
    value the field refuses (whose error the whole front door reports, in vLLM's order).
    """
    front, base_request = res.front, res.request
    if front is None or base_request is None:
        return None
    space = paths()
    base_state = res.engine.initial
    leaves: dict[str, Callable[[Any], Any]] = {}
    keys: dict[str, None] = {}
    for p in changes:
        top = _incremental_top(p, changed.version)
        if top is None:
            return None
        if (len(changes) > 1 or base_request.overrides) and any(
                q.startswith(p + ".") or p.startswith(q + ".") for q in (*base_request.overrides, *changes)):
            return None  # overlapping overrides merge in their order: the whole front door decides
        info = space.info.get(p)
        leaf = _leaf_validator(p) if info is not None and (info.under is None or base_state[info.under]) else None
        if leaf is not None:
            leaves[p] = leaf
        else:
            keys[top] = None
    new_front = _Front(None, None, front.loader, front.extra, parent=front, changes=dict(changes))
    state: dict[str, Any] = {}  # the paths set again (the replay sets them in a copy of the base's input)
    prov = dict(res.engine.initial_provenance)
    touched: dict[str, None] = {}
    for p, leaf in leaves.items():
        value = changes[p]
        memo = (p, type(value), value) if type(value) in _MEMO_TYPES else None
        found = _LEAF_VALUES.get(memo, _MISSING) if memo is not None else _MISSING
        if found is _MISSING:
            try:
                found = freeze(leaf(value))
            except (InputError, ValidationError):
                return None
            if memo is not None:
                if len(_LEAF_VALUES) >= 4096:
                    _LEAF_VALUES.clear()
                _LEAF_VALUES[memo] = found
        state[p] = found
        touched[p] = None
        if p not in front.loader:  # the loader's paths keep the loader's provenance
            prov[p] = Provenance(Source.USER, f"--set {p}")
    if keys:
        data, flags = new_front.data, new_front.flags
        version_defaults = changed.version.defaults_for(engine_args=changed.effective_usage is not None)
        for key in keys:
            try:
                flat, users = _part(key, data[key], data)
                old = _part(key, front.data[key], front.data)[1] if key in front.data else ()
            except (InputError, ValidationError):
                return None
            if not version_defaults.keys().isdisjoint(flat):
                return None  # the version's defaults fill what the part leaves out: the whole door applies them
            state.update(flat)
            touched.update(dict.fromkeys(flat))
            for q in old:
                if q not in front.loader:
                    prov.pop(q, None)
            touched.update(dict.fromkeys(old))
            for q in users:
                if q not in front.loader:
                    prov[q] = Provenance(Source.USER, flags.get(q, "config"))
    return state, prov, touched, new_front


def _prepare_platform(
    res: Resolution, changed: Request,
) -> tuple[dict[str, Any], dict[str, Provenance], dict[str, None], str] | None:
    """The front door for ``res``'s request on another platform (``changed``), re-deriving the platform's facts only.

    The platform's flattened facts (``platform.*``) are what changes in the base's input state (the replay sets
    them in a copy), and their provenance is set in a copy of its provenance: nothing else the front door derives reads the platform, except
    vLLM's parser building a JSON-valued flag's sub-config (a request with flags takes the whole door), and
    ``auto`` (this machine's hardware, which the door may refuse). Returns ``(the platform's paths with their
    values, the whole provenance, the paths that may differ, the platform's provenance detail)``, or None for the
    whole front door.
    """
    base_request, spec = res.request, changed.platform
    if res.front is None or base_request is None or base_request.argv or not isinstance(spec, str) \
            or spec.strip().lower() == "auto":
        return None
    detail, flat = _platform(spec)
    fast = _fast_paths()
    if flat.keys() != set(fast.platform_paths):
        return None
    prov = dict(res.engine.initial_provenance)
    pv = Provenance(Source.FACT, detail)
    for p in fast.platform_paths:
        prov[p] = pv
    return flat, prov, dict.fromkeys(fast.platform_paths), detail


def _prepare(
    request: Request, *, allow_files: bool = True, keep: list[_Front] | None = None,
) -> tuple[dict[str, Any], dict[str, Provenance], dict[str, Any], tuple[Note, ...], LoadedModel | None]:
    """The engine's input for one request: ``(flat_state, provenance, inputs, notes, model facts)``."""
    data: dict[str, Any] = dict(request.config or {})
    flags: dict[str, str] = {}
    extra: frozenset[str] = frozenset()
    notes: list[Note] = []
    flag_model: str | None = None
    extras: dict[str, Any] = {}
    given_twice: list[str] = []
    usage = request.effective_usage
    version = request.version
    if isinstance(request.platform, str) and request.platform.strip().lower() == "auto" and not allow_files:
        raise InvalidValueError("platform 'auto' would detect this server's hardware; name a platform "
                                "(cpu, rocm, cuda:9.0, h100, ...)", path="platform", value="auto")
    fast = _fast_paths()
    space = paths()
    # the platform and the environment first: vLLM's parser builds sub-configs that read them
    plat_detail, plat_flat = _platform(request.platform)
    reading = read_env(request.env, table=version.env_table) if request.env else _no_env(version.env_table)
    env_flat = fast.empty_env if not reading.env.explicit else space.flatten_model(reading.env, "env")
    if request.argv:
        # vLLM's parser builds the JSON-valued flags' sub-configs as VllmConfig(...) would: no EngineArgs
        def parse_base() -> dict[str, Any]:
            return {**fast.default_flat, **plat_flat, **env_flat, **fast.usage(None), **version.fact_state}

        logged: list[tuple[str, str, str]] = []
        try:
            parsed = parse_vllm_args(request.argv, allow_files=allow_files,
                                     construct=parse_stage(parse_base, version, logged), absent=version.absent_flags,
                                     version=version.name, scope=_PARSER_SCOPE.get(usage or "serve", "engine"),
                                     model_given=request.model is not None,
                                     undeclared=version.undeclared,
                                     mode_enum=version.facts.compilation_mode_enum)
        except SubConfigError as e:
            e.said_before = tuple(logged)  # the flags parsed before the refused one logged as they were built
            raise
        data = _deep_merge(data, parsed.config)
        flags = dict(parsed.flags)
        extra = frozenset(parsed.extra)
        flag_model = parsed.model
        extras = parsed.extra
        given_twice = parsed.given_twice
        notes.extend(Note("flag", "argv", w) for w in parsed.warnings)
        notes.extend(Note("quirk", "argv", q) for q in parsed.quirks)
        notes.extend(Note("advice", "argv", a) for a in parsed.advice)
        notes.extend(Note("parse_log", rule, text, level) for rule, level, text in logged)
    for p, v in request.overrides.items():
        data = _deep_merge(data, _nest(p, v))
        flags[p] = f"--set {p}"
    engine_dicts: tuple[str, ...] = ()
    if usage is not None and request.config and version.facts.engine_args_dicts:
        # a config dict through EngineArgs is a Python caller's keyword arguments (EngineArgs(compilation_config={...})):
        # EngineArgs.__post_init__ builds the sub-configs given as dicts itself, and refuses one there, before the rest
        engine_dicts = refuse_engine_args_dicts(request.config, version)
    # config mode, where the version's config classes refuse a keyword they do not declare: vLLM's refusal where it
    # builds that sub-config (below); otherwise vLLM ignores such a keyword (a flag's target the version lacks)
    refuse_undeclared = version.undeclared if usage is None else None
    speculative_refusal = None
    if usage is not None and version.undeclared is not None and isinstance(data.get("speculative_config"), Mapping):
        # EngineArgs keeps --speculative-config as a dict; create_engine_config builds SpeculativeConfig(**it)
        data, speculative_refusal = _speculative_undeclared(data, version.undeclared)
    if refuse_undeclared is None:
        notes.extend(_drop_absent(data, version))
    data, unheld = _unheld(data, version)
    _refuse_later_values(data, version)
    data, held_len = _max_model_len_below_one(data, version, usage is not None)
    if usage is None:
        notes.append(Note("mode", "config mode", "a nested config without flags is built as VllmConfig(...) builds "
                                                 "it, not through EngineArgs as vllm serve does (EngineArgs' defaults "
                                                 "for max_num_batched_tokens, max_num_seqs, chunked prefill, ... do "
                                                 "not apply); usage 'serve' (--usage serve) resolves it as vllm serve"))
    status = version.status
    if status is not None:
        notes.append(Note("partial_version", version.name, f"vLLM {version} is modelled partially ({status}): "
                                                      f"decisions not yet written for it are its parent's, so "
                                                      f"this answer and its hash may not be vLLM {version}'s."))

    model_name, loaded = _model_facts(request, data, flag_model, allow_files)
    loader_sources: dict[str, str] = {}
    loader_prov: dict[str, Provenance] = {}
    loader_paths: frozenset[str] = frozenset()
    if loaded is not None:
        mc = dict(data.get("model_config") or {})
        loaded = _overridden(loaded, mc, flags, standardize_rope=version.facts.rope_override_standardized)
        mc.pop("hf_config", None)
        mc.pop("hf_text_config", None)
        mc["model"] = model_name = loaded.name  # a catalog id in its catalog spelling
        data["model_config"] = mc
        loader_sources, loader_prov, loader_paths = _loader_provenance(loaded)

    draft_flat, draft_origin, draft_note = _draft_facts(data, allow_files)
    if draft_note is not None:
        notes.append(draft_note)

    # each top-level field is validated and flattened on its own and cached (flags and overrides
    # are merged into ``data``; they only change provenance, which is built below), in the order
    # vLLM builds the sub-configs: the first one vLLM refuses is the one reported
    fields: dict[str, Any] = {}
    user_paths: list[str] = []
    def facts() -> None:
        if loaded is not None:
            fields.update(_facts(loaded, {**data, "model_config": {
                "hf_config": loaded.hf_config, "hf_text_config": loaded.hf_text_config, **data["model_config"]}}))

    refused: dict[str, str] = {}
    held: dict[str, Any] = {}
    for key in construction_order(data):
        value = data[key]
        if usage is not None and version.facts.refused_where_built and key in _BUILT_BY_ENGINE_ARGS \
                and isinstance(value, Mapping):
            # vllm serve: create_engine_config builds this sub-config after the model config (and its logs);
            # pydantic's refusal of a flag's value is raised there (its rule), the value left out until then
            text, bad = refused_fields(schema_class(_BUILT_BY_ENGINE_ARGS[key]), value)
            if text is not None:
                refused[key] = text
                held.update({f"{key}.{k}": value[k] for k in bad})  # EngineArgs computes with them until then
                value = {k: v for k, v in value.items() if k not in bad}
                data = {**data, key: value}
        try:
            if refuse_undeclared is not None:
                refuse_part(key, value, refuse_undeclared)
            elif key == "compilation_config" and version.facts.compilation_mode_enum and _mode_out_of_range(value):
                refuse_part(key, value, mode_enum=True)  # vLLM's IntEnum; the seed's plain int is asserted later
            part = _part(key, value, data)
        except SubConfigError as e:
            if e.trace is None and e.stage == key and usage is None:
                # config mode: the sub-configs vLLM built before this one ran (and logged) first
                facts()
                built = {**fast.default_flat, **fields, **plat_flat, **env_flat, **fast.usage(None),
                         **version.fact_state}
                e.trace = built_before(built, key, version)
            raise
        fields.update(part[0])
        user_paths.extend(part[1])
    notes.extend(Note(f"env_{n.kind}", n.name, n.message) for n in reading.notes)
    # start from VllmConfig()'s flattened defaults and flatten only what can differ: the
    # sub-configs the input names, the model's facts (once per model), the platform (cached per spec),
    # the env and the usage facts
    state = _base_state(fast.default_flat, _facts(loaded, {**data, "model_config": {
        "hf_config": loaded.hf_config, "hf_text_config": loaded.hf_text_config, **data["model_config"]}})
        if loaded is not None else _NO_FACTS, plat_flat, env_flat)
    state.update(fields)
    if held_len is not None:  # as given: the version's ModelConfig derives it (-1) or refuses it after logging
        state[_MML] = held_len
        user_paths.append(_MML)
    version_defaults = version.defaults_for(engine_args=usage is not None)
    if version_defaults:  # the version's own dataclass / envs.py defaults, where the input sets nothing
        given = {*user_paths, *(f"env.{n}" for n in reading.env.explicit)}
        for p, v in version_defaults.items():
            under = space.info[p].under
            if p not in given and (under is None or state.get(under) is not None):
                state[p] = freeze(v)
    # usage.config_updated_on_input stays False: the input's model_config.config_updated never
    # reaches step 2, because ModelConfig.__post_init__ resets it (vllm/config/model.py)
    state.update(fast.usage(usage))
    if not allow_files:  # the server's own working directory is not the answer's business
        state["usage.cwd"] = SERVICE_CWD
    if usage is not None:  # what EngineArgs was given, where its None default tells "unset" apart
        ea_given = tuple(p for p in ENGINE_ARGS_NONE_DEFAULTS if p in user_paths)
        if ea_given:
            state["usage.given"] = ea_given
        ea_on = tuple(p for p in ENGINE_ARGS_REWRITTEN if state.get(p))
        if ea_on:  # the flags as given, before create_engine_config's rules rewrite them
            state["usage.given_on"] = ea_on
        state["usage.given_values"] = freeze({p: state[p] for p in ENGINE_ARGS_AS_GIVEN})
        if extras.get("data_parallel_start_rank"):
            state["usage.data_parallel_start_rank"] = int(extras["data_parallel_start_rank"])
        if extras.get("headless"):
            state["usage.headless"] = True
        if extras.get("tokens_only"):
            state["usage.tokens_only"] = True
        if extras.get("api_server_count") is not None:
            state["usage.api_server_count"] = int(extras["api_server_count"])
        if extras.get("device_ids"):
            state["usage.device_ids"] = str(extras["device_ids"])
        if engine_dicts:
            state["usage.dicts"] = engine_dicts
        if isinstance(extras.get("ir_op_priority"), Mapping):
            state["usage.ir_op_priority"] = freeze(dict(extras["ir_op_priority"]))
        if extras.get("default_mm_loras"):
            state["usage.default_mm_loras"] = True
        if extras.get("cuda_graph_sizes_given"):
            state["usage.cuda_graph_sizes"] = True
        if extras.get("disable_mm_preprocessor_cache"):
            state["usage.disable_mm_preprocessor_cache"] = True
        if extras.get("fail_on_environ_validation"):
            state["usage.fail_on_environ_validation"] = True
        if refused:
            state["usage.refused_where_built"] = freeze(refused)
            state.update(held)
        unknown = _unknown_env(request.env, version)
        if unknown:
            state["usage.environ"] = freeze(unknown)
        if given_twice:
            state["usage.given_twice"] = tuple(given_twice)
        if speculative_refusal is not None:
            state["usage.speculative_refusal"] = speculative_refusal
    if unheld:
        state["usage.unheld"] = freeze(unheld)
        # a field whose vLLM type takes any text keeps the text: vLLM's rules compare it with their names
        state.update({p: v for p, v in unheld.items() if p in _ANY_TEXT})
    state.update(version.fact_state)
    state.update(draft_flat)
    if loaded is not None:
        found = _transformers_backend(state, version)
        if found is not None:
            state["model_config.hf_config.transformers_backend"] = found
    prov: dict[str, Provenance] = {}
    for p in user_paths:
        if p not in flags:
            where = request.source_of(p)  # a config read from a file: its line
            if where is not None:
                flags[p] = where
        if p in loader_sources:
            continue
        prov[p] = Provenance(Source.USER, flags.get(p, "config"))
    prov.update(loader_prov)
    for p in version_defaults:
        if p not in prov and state[p] != fast.default_flat[p]:
            prov[p] = Provenance(Source.DEFAULT, f"vLLM {version}'s default")
    prov.update(_fact_provenance(plat_detail, usage, version))
    if draft_flat:
        prov.update(dict.fromkeys(draft_flat, Provenance(Source.LOADER, f"the draft's config.json ({draft_origin})")))
    for name in reading.env.explicit:
        prov[f"env.{name}"] = Provenance(Source.FACT, f"env {name}")
    inputs = {"platform": plat_detail, "usage": usage, "semantics": request.semantics,
              "model": model_name, "vllm_version": version.name}
    if keep is not None:
        keep.append(_Front(data, flags, loader_paths, extra))
    return state, prov, inputs, tuple(notes), loaded


@functools.lru_cache(maxsize=256)
def _fact_provenance(plat_detail: str, usage: UsageSpec | None, version: versions.Version) -> dict[str, Provenance]:
    """The provenance of the platform's, the usage's and the version's fact paths, in that order (one dict per
    platform detail, usage and version: provenance is immutable, the caller copies it into its own)."""
    fast = _fast_paths()
    out = dict.fromkeys(fast.platform_paths, Provenance(Source.FACT, plat_detail))
    out.update(dict.fromkeys(
        fast.usage_paths, Provenance(Source.FACT, f"usage {usage}" if usage else "VllmConfig(...) built directly")))
    out.update(dict.fromkeys(version.fact_state, Provenance(Source.FACT, f"vLLM {version.name}")))
    return out


_NO_FACTS: dict[str, Any] = {}
_BASES: dict[tuple[int, int, int], tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]] = {}
"""Per model facts, platform facts and env facts (their flat dicts, by identity): the defaults with them applied."""


def _base_state(defaults: dict[str, Any], facts: dict[str, Any], platform: dict[str, Any],
                env: dict[str, Any]) -> dict[str, Any]:
    """A fresh state of ``defaults`` updated with the model's ``facts``, then the ``platform``'s and the ``env``'s
    (each a cached flat dict: one dict copy per request instead of four updates).

    The input's parts (top-level fields of ``VllmConfig``: never a fact, platform or env path) are applied on top
    by the caller; where every key already is a default's (the path space's), the order of the keys is the
    defaults' either way. A set of dicts that would add a key is not cached (that order is the caller's business).
    """
    key = (id(facts), id(platform), id(env))
    hit = _BASES.get(key)
    if hit is not None and hit[0] is facts and hit[1] is platform and hit[2] is env:
        return dict(hit[3])
    state = dict(defaults)
    state.update(facts)
    state.update(platform)
    state.update(env)
    if len(state) == len(defaults):  # no key of their own: the key order is the defaults'
        if len(_BASES) >= 64:
            _BASES.clear()
        _BASES[key] = (facts, platform, env, dict(state))
    return state


def _mark_site(book: Any, trace: dict[str, Any]) -> None:
    """Mark a trace's events of site rules (``to_dict`` form) with their owner, in place."""
    for event in trace.get("events", ()):
        rule = book.rules.get(event.get("rule")) if isinstance(event, dict) else None
        if rule is not None and rule.owner:
            event["owner"] = rule.owner


def _transformers_backend(state: Mapping[str, Any], version: versions.Version) -> bool | None:
    """Whether the Transformers backend can load the model's first architecture, where vLLM asks (the backend
    asked for, or no architecture registered): transformers has the class, or remote code maps an AutoModel.
    None where vLLM does not ask or transformers is not installed (the rules then assume it can)."""
    archs = state.get("model_config.hf_config.architectures") or ()
    if not archs:
        return None
    impl = state.get("model_config.model_impl")
    if impl != "transformers" and (impl != "auto" or any(a in registry(version.facts.model_registry) for a in archs)):
        return None
    auto_map = (state.get("model_config.hf_config.other") or {}).get("auto_map") or {}
    if isinstance(auto_map, Mapping) and any(str(k).startswith("AutoModel") for k in auto_map):
        return True
    return _transformers_has(str(archs[0]))


@functools.cache
def _transformers_has(name: str) -> bool | None:
    """Whether the installed transformers has the class ``name`` (None: transformers is not installed)."""
    transformers = transformers_module()
    if transformers is None:
        return None
    try:
        return getattr(transformers, name, None) is not None
    except Exception:  # a lazy attribute whose backend is missing: the class exists
        return True


_ANY_TEXT = frozenset({"parallel_config.distributed_executor_backend"})
"""Checked paths (``version.checked_by_rules``) whose vLLM type is any text (ParallelConfig's executor backend: a
class's qualified name): a value the schema cannot hold stays in the state, as vLLM keeps it until it is used."""

_BUILT_BY_ENGINE_ARGS = {"cache_config": "CacheConfig", "scheduler_config": "SchedulerConfig"}
"""The sub-configs create_engine_config builds from EngineArgs' fields whose pydantic refusals
``version.refused_where_built`` defers to that place (``engine-args.*-config-fields`` rules)."""


def _unknown_env(env: Mapping[str, Any], version: versions.Version) -> dict[str, str]:
    """The ``VLLM_*`` variables of ``env`` (set, in the order given) that ``version``'s envs.py does not define."""
    known = defined_variables(version.env_table)
    return {k: v for k, v in env.items()
            if isinstance(k, str) and k.startswith("VLLM_") and k not in known and isinstance(v, str)}


def _mode_out_of_range(value: Any) -> bool:
    """Whether a compilation_config input holds a mode the schema keeps as a plain int (outside 0-3)."""
    return isinstance(value, Mapping) and CompilationMode.out_of_range(value.get("mode"))


def _unheld(data: dict[str, Any], version: versions.Version) -> tuple[dict[str, Any], dict[str, Any]]:
    """The input without the values of ``version.checked_by_rules`` paths the schema cannot hold, and those values
    by path: the version's config class checks them itself, and its rule raises vLLM's error where it does."""
    unheld: dict[str, Any] = {}
    for path in version.facts.checked_by_rules:
        top, *rest = path.split(".")
        node = data.get(top)
        if not rest or not isinstance(node, Mapping) or rest[0] not in node:
            continue
        info = _MODEL_FIELD_TYPES.get(path)
        if info is None or node[rest[0]] in version.facts.unmodelled_values.get(path, ()):
            continue  # a value the version accepts that postinit does not model: the door's refusal
        try:
            info.validate_python(node[rest[0]])
            if node[rest[0]] in version.facts.refused_values.get(path, ()):
                raise ValueError(path)
        except (ValidationError, ValueError):
            unheld[path] = node[rest[0]]
            data = {**data, top: {k: v for k, v in node.items() if k != rest[0]}}
    return data, unheld


_MODEL_FIELD_TYPES: dict[str, TypeAdapter[Any]] = {
    "cache_config.cache_dtype": TypeAdapter(CacheDType),
    "speculative_config.method": TypeAdapter(SpeculativeMethod | None),
    "parallel_config.distributed_executor_backend": TypeAdapter(DistributedExecutorBackend | None),
}
"""The schema's type of each path a version may check in its rules (``version.checked_by_rules``)."""


def _speculative_undeclared(data: dict[str, Any], undeclared: frozenset[str]) -> tuple[dict[str, Any], str | None]:
    """The input without the --speculative-config keys SpeculativeConfig does not declare, and pydantic's refusal
    of them (None if none): vLLM raises it in create_engine_config (a rule), not while parsing."""
    spec = data["speculative_config"]
    below = [p[len("speculative_config."):] for p in undeclared if p.startswith("speculative_config.")]
    kept, extras = split_undeclared(schema_class("SpeculativeConfig"), spec, below)
    if not extras:
        return data, None
    return {**data, "speculative_config": kept}, refusal(schema_class("SpeculativeConfig"), data=spec, absent=below)


@functools.cache
def _absent_set(version: versions.Version) -> frozenset[str]:
    return frozenset(version.absent_paths)


def _key_paths(node: Any, prefix: str, out: list[str]) -> None:
    """Every dotted path of a key in the nested mappings under ``node`` (at ``prefix``), into ``out``."""
    if isinstance(node, Mapping):
        for k, v in node.items():
            if isinstance(k, str):
                path = f"{prefix}.{k}"
                out.append(path)
                _key_paths(v, path, out)


@functools.cache
def _absent_by_field(version: versions.Version) -> dict[str, tuple[str, ...]]:
    """The paths vLLM ``version`` lacks, by top-level field, each group sorted."""
    out: dict[str, list[str]] = {}
    for path in sorted(version.absent_paths):
        out.setdefault(path.split(".", 1)[0], []).append(path)
    return {k: tuple(v) for k, v in out.items()}


def _drop_absent(data: dict[str, Any], version: versions.Version) -> list[Note]:
    """Take the fields vLLM ``version`` does not have out of the nested input ``data``, one note each.

    vLLM's configs are pydantic dataclasses, which ignore a keyword they do not declare: such an
    input has no effect on that version, and the note says so.
    """
    by_field = _absent_by_field(version)
    if not by_field:
        return []
    notes = []
    # only the paths the input names under the top-level fields it names (in sorted order, as the paths sort:
    # ``.`` sorts before every character of a field name), found by walking the input, not the version's list
    absent = _absent_set(version)
    named: list[str] = []
    for key in by_field.keys() & data.keys():
        _key_paths(data[key], key, named)
    for path in sorted(p for p in named if p in absent):
        *head, last = path.split(".")
        node: Any = data
        for part in head:
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, Mapping) or last not in node:
            continue
        node = data  # copy the dicts on the way down: the request's own config is never changed
        for part in head:
            node[part] = dict(node[part])
            node = node[part]
        del node[last]
        notes.append(Note("absent_field", path, f"{path} is not a field of vLLM {version}: vLLM ignores it "
                                                    f"({_absent_why(path, version)})."))
    return notes


@functools.cache
def _version_choices(version: versions.Version) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """The fields whose allowed values depend on the version (schema extra ``choices_from``), with ``version``'s."""
    lineage = [v.name for v in version.chain]
    out = []
    for path, info in paths().info.items():
        steps = info.extra.get("choices_from")
        if steps:
            allowed = next((c for v, c in reversed(steps) if v in lineage), steps[0][1])
            if allowed is not None:  # None: the version takes any value of the field's type
                out.append((path, tuple(allowed)))
    return tuple(out)


@functools.cache
def _no_env(table: str) -> EnvReading:
    """What reading an empty environment gives at ``table`` (the door only reads it: made once per table)."""
    return read_env({}, table=table)


def _refuse_later_values(data: Mapping[str, Any], version: versions.Version) -> None:
    """A value the schema allows because a later (or earlier) vLLM takes it, given to a version whose config class
    refuses it: vLLM's pydantic literal error, as the door reports one."""
    for path, allowed in _version_choices(version):
        if path.partition(".")[0] not in data:
            continue
        node: Any = data
        for part in path.split("."):
            node = node.get(part, _MISSING) if isinstance(node, Mapping) else _MISSING
        if node is not _MISSING and node not in allowed:
            raise InvalidValueError(f"{path}: {show(node)} is not allowed; allowed: {', '.join(map(str, allowed))}",
                                    path=path, value=node)


_MISSING = object()
_MML = "model_config.max_model_len"


@functools.cache
def _model_config_bound() -> type[BaseModel]:
    """ModelConfig's max_model_len field as vLLM 0.34.0 bounds it (``Field(ge=-1)``), for pydantic's refusal."""
    return create_model("ModelConfig", max_model_len=(int, Field(ge=-1)))


def _max_model_len_below_one(data: dict[str, Any], version: versions.Version,
                             engine_args: bool) -> tuple[dict[str, Any], int | None]:
    """A max_model_len below 1, which every modelled version's ModelConfig takes: held out of the schema's
    validation (whose bound is 1) and returned, to be put in the state as given.

    The seed and 0.11.1 declare the field ``SkipValidation[int]``: any int reaches _get_and_verify_max_len, which
    keeps a value below the model's length, so -1 or 0 flows on into the scheduler's arithmetic (golden y039).
    vLLM 0.34.0 (``version.max_model_len_auto``) bounds it ``Field(ge=-1)``: -1 is "auto"; 0 is derived and logged,
    then refused by its model validator; one below -1 is pydantic's refusal of the field, where
    create_engine_config builds the ModelConfig (before it logs anything)."""
    mc = data.get("model_config")
    if not isinstance(mc, Mapping):
        return data, None
    value = mc.get("max_model_len")
    if not isinstance(value, int) or isinstance(value, bool) or value >= 1:
        return data, None
    if version.facts.max_model_len_auto and value < -1:
        try:
            _model_config_bound().model_validate({"max_model_len": value})
        except ValidationError as e:
            text = str(e)
        raise SubConfigError(f"{_MML}: {one_line(text)}", config="ModelConfig", path=_MML,
                             stage="create_engine_config" if engine_args else "model_config",
                             error="ValidationError", vllm_message=text)
    return {**data, "model_config": {k: v for k, v in mc.items() if k != "max_model_len"}}, value


def _absent_why(path: str, version: versions.Version) -> str:
    info = paths().info[path].extra
    if info.get("since"):
        return f"added in vLLM {info['since']}"
    return f"removed after vLLM {info.get('until')}"


def _strip_absent(config: dict[str, Any], version: versions.Version) -> None:
    """Remove from a nested config dict the fields vLLM ``version`` does not have (in place)."""
    config.pop("version", None)  # the version's facts: no config field (the inputs name the version)
    for path in version.absent_paths:
        *head, last = path.split(".")
        node: Any = config
        for part in head:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)


@dataclass(eq=False)
class Resolution:
    """A resolved vLLM config with its trace; everything else is derived on demand."""

    engine: EngineResult
    inputs: dict[str, Any] = field(default_factory=dict)
    request: Request | None = None
    """The request this answers (None for a resolution built from a flat state)."""
    notes: tuple[Note, ...] = ()
    """What the input loaders noticed that no rule decides: variables with no effect, unknown names, ..."""
    allow_files: bool = True
    strict: bool = False
    model_facts: LoadedModel | None = field(default=None, repr=False)
    """The model facts the request was resolved from (what the hash reads: never a file again)."""
    rules: SiteRules = NO_RULES
    """The site's rules resolved with vLLM's (:mod:`postinit.site`); empty for vLLM's rulebook alone."""
    front: _Front | None = field(default=None, repr=False, compare=False)
    """What the front door built for the request (what :meth:`with_changes` re-derives a change from)."""

    def with_changes(self, set: Mapping[str, Any] | None = None, **request: Any) -> Resolution:
        """The resolution of this request with ``set`` applied last (dotted path → value; ``env.NAME`` too).

        Other request fields change by keyword (``platform="b200"``, ``model=...``, ``argv=[...]``).
        Equal in every respect — config, hash, changes, trace, violations, stale reads — to
        ``resolve(request)`` of the changed request, and computed from this one: the changed
        resolution reuses every rule evaluation whose consulted reads the change did not reach
        (:func:`postinit.engine.replay`). The first call on a resolution that was not
        recorded records it once (so a resolution made by ``with_changes`` is recorded only if it
        becomes a base in turn).
        """
        if self.request is None:
            raise InvalidValueError("with_changes needs a resolution made by postinit.resolve (it keeps the request)")
        changed = self.request.replace(**request) if request else self.request
        if set:
            changed = changed.changed(set)
        fast = _prepare_changes(self, changed, set) if set and not request else None
        touched: Mapping[str, None] | None = None
        front: _Front | None
        platform = _prepare_platform(self, changed) if not set and request.keys() == {"platform"} else None
        state: dict[str, Any] | None = None
        updates: dict[str, Any] | None = None
        if fast is not None:  # only the fields ``set`` names are validated, flattened and given provenance again
            updates, prov, touched, front = fast
            inputs, notes, loaded = dict(self.inputs), self.notes, self.model_facts
        elif platform is not None:  # only the platform's facts and their provenance are derived again
            updates, prov, touched, detail = platform
            inputs, notes, loaded, front = {**self.inputs, "platform": detail}, self.notes, self.model_facts, self.front
        else:
            keep: list[_Front] = []
            state, prov, inputs, notes, loaded = _prepare(changed, allow_files=self.allow_files, keep=keep)
            front = keep[0] if keep else None
        base = self.engine
        same_book = changed.version is self.version
        same_semantics = base.rulebook.semantics_of(changed.semantics) == base.semantics
        if base.recording is None and same_semantics and same_book:
            # recorded once, on first use: the schedule to follow
            base = self.engine = base.rulebook.resolve(
                dict(base.initial), base.initial_provenance, semantics=base.semantics, trace=base.trace.level,
                strict=self.strict, record=True)
        if not same_semantics or not same_book:
            if state is None:
                state = {**base.initial, **(updates or {})}
            book = base.rulebook if same_book else site_rulebook(changed.version, self.rules)
            result = book.resolve(state, prov, semantics=changed.semantics, trace=self.trace.level, owned=True,
                                  strict=self.strict)
        else:  # the incremental door's updates are set in a copy of the base's input by the replay
            result = replay(base, state, prov, strict=self.strict, changed=touched, updates=updates)
        return Resolution(result, inputs=inputs, request=changed, notes=_settle(notes, result),
                          allow_files=self.allow_files, strict=self.strict, model_facts=loaded, rules=self.rules,
                          front=front)

    def __repr__(self) -> str:
        model = self.inputs.get("model") or "no model"
        return (f"<Resolution {model} · vLLM {self.version.name} · {self.inputs.get('platform', 'platform ?')} · "
                f"{'ok' if self.ok else 'invalid'} · hash {self.hash} · {len(self.engine.changes)} changes>")

    def __rich__(self) -> RenderableType:
        """What ``postinit resolve`` prints: changes by phase with rule and reason, warnings, violations."""
        from postinit.render import resolution_renderable

        return resolution_renderable(self)

    def _repr_html_(self) -> str:
        from postinit.engine._show import html
        from postinit.render import resolution_renderable

        return html(resolution_renderable(self))

    @property
    def vllm_version(self) -> str:
        """The vLLM version this resolution models (``"d7fb10c57"``, ``"0.11.1"``)."""
        return self.version.name

    @cached_property
    def version(self) -> versions.Version:
        """The vLLM version this resolution models: the request's (resolved at the door)."""
        if self.request is not None:
            return self.request.version
        return versions.get(str(self.inputs.get("vllm_version") or versions.DEFAULT_VERSION))

    @property
    def ok(self) -> bool:
        """False when a rule found the config invalid (vLLM would have raised)."""
        return self.engine.ok

    @property
    def trace(self) -> Trace:
        return self.engine.trace

    @property
    def state(self) -> Mapping[str, Any]:
        """The final flat state: every path, facts included."""
        return self.engine.state

    @property
    def violations(self) -> tuple[ViolationEvent, ...]:
        return self.engine.violations

    @property
    def error(self) -> RaisedError | None:
        """What vLLM raises for this config (None when it resolves): the first violation as vLLM raises it.

        Its exception type, message and stage, and pydantic's ``ValidationError`` around it when vLLM
        raises it while building a config (config mode and the sub-configs: the wrapper's text too).
        """
        return raised(self.violations[0], self.inputs.get("usage") is not None) if self.violations else None

    @property
    def stale_reads(self) -> tuple[StaleRead, ...]:
        return self.engine.trace.stale_reads

    @cached_property
    def config(self) -> VllmConfig:
        """The resolved config as a validated :class:`VllmConfig`.

        A config vLLM refused (``not ok``) is the state at the violation, as vLLM leaves
        its objects when it raises; values that would fail validation are kept as they are.
        So is a value vLLM derives without validating it (``max_model_len`` is ``SkipValidation``
        in vLLM: a config.json whose ``max_position_embeddings`` is 0 gives 0 at the seed).
        """
        try:
            cfg: VllmConfig = paths().build(self.engine.state)
        except ValidationError:
            cfg = paths().construct(self.engine.state)
        return cfg

    @cached_property
    def platform(self) -> Platform:
        plat: Platform = paths().build(self.engine.state, "platform")
        return plat

    @cached_property
    def env(self) -> Env:
        """The environment after resolution (vLLM's process-env side effects included)."""
        e: Env = paths().build(self.engine.state, "env")
        return e

    @property
    def changes(self) -> list[Change]:
        """Every path whose final value differs from its input, with the rule that set it last."""
        out = []
        for path, (old, new) in self.engine.changes.items():
            prov = self.engine.initial_provenance.get(path)
            out.append(Change(path, old, new, prov.source if prov else Source.DEFAULT))
        return sorted(out, key=lambda c: c.path)

    def get(self, path: str) -> Any:
        """The final value of one dotted path (``"compilation_config.cudagraph_mode"``)."""
        paths().require(path)
        return self.engine.state[path]

    def provenance(self, path: str) -> Provenance:
        paths().require(path)
        return self.engine.provenance_of(path)

    def why(self, path: str, *, verbose: bool = False, depth: int | None = None) -> WhyNode:
        """The causal tree of ``path``'s final value back to flags, config.json keys and facts.

        Under each decision: the values the rule actually consulted. Defaults that decided
        nothing fold into one line unless ``verbose``; ``depth`` cuts the tree (default 12).
        ``print()`` it for the tree ``postinit why`` shows.
        """
        from postinit.engine._explain import why

        paths().require(path)
        return why(self.engine, path, verbose=verbose, depth=depth)

    def why_not(self, path: str, value: Any) -> WhyNot:
        """Which rules could have set ``path`` to ``value`` and what stopped each of them.

        ``value`` must be one the field can hold (an enum member or its name, a number, ...): a value
        it can never hold (``FULLL``) is an :class:`~postinit.errors.InvalidValueError`.
        """
        return self.engine.why_not(path, _target(path, value))

    def how(self, path: str, value: Any, *, max_edits: int = 2, keep: Sequence[str] = ()) -> HowAnswer:
        """The smallest verified edits of this request's inputs that give ``path == value``.

        Edits of the flags, the environment variables (config keys, in config mode), fewest edits
        first, then fewest side effects; each one resolved to check it gives the value and vLLM
        accepts the config. ``keep`` names paths an answer must leave as they are (``"with DCP"``).
        Another platform is listed apart (``platforms``). When nothing within ``max_edits`` works, the
        answer names the rules that block it. See :mod:`postinit._how`.
        """
        from postinit._how import how

        return how(self, path, value, max_edits=max_edits, keep=keep)

    @cached_property
    def hash(self) -> str:
        """``VllmConfig.compute_hash()`` of the resolved config (see :mod:`postinit.rules.hashing`).

        vLLM's exact value when there is no model, or when the optional ``hash`` extra
        (transformers) is installed and the model's HF config is reproducible
        (``postinit.rules.hashing.model_hash_is_exact(r.state)``); otherwise the model
        factor is a deterministic stand-in and the hash is postinit's own.
        """
        from postinit.rules import hashing

        with self._hash_context(hashing):
            return self.version.hash(self.engine.state)

    def _hash_context(self, hashing: Any) -> Any:
        # a resolution built from a flat state (no request): the state names its model
        if self.request is None:
            return contextlib.nullcontext()
        front = self.front
        return hashing.model_facts(self.model_facts, allow_files=self.allow_files,
                                   paths=frozenset(front.flags) if front else frozenset(),
                                   extra=front.extra if front else frozenset())

    @property
    def hash_exact(self) -> bool:
        """True when :attr:`hash` is vLLM's own ``compute_hash()``; :attr:`hash_reason` says why not otherwise."""
        return self.hash_reason is None

    @cached_property
    def hash_reason(self) -> str | None:
        """Why :attr:`hash` is postinit's stand-in rather than vLLM's value (None when it is vLLM's).

        The ModelConfig factor hashes the HF config JSON transformers builds: without the ``hash``
        extra, for models vLLM builds with its own config class (DeepSeek-V3, Qwen3-Next, ...), for
        remote code and for content transformers refuses it cannot be rebuilt.
        """
        from postinit.rules import hashing

        with self._hash_context(hashing):
            return self.version.hash_reason(self.engine.state)

    def raise_for_violations(self) -> None:
        """Raise :class:`ViolationError` if the config is invalid."""
        if self.violations:
            v = self.violations[0]
            raise ViolationError(f"{v.error} in rule {v.rule}: {v.message}", rule=v.rule)

    def messages(self, level: str | None = None) -> list[Fired]:
        """The fired events that carry a message (vLLM's log lines), optionally of one level."""
        return [e for e in self.trace.fired if e.message and (level is None or e.level == level)]

    def to_dict(self) -> dict[str, Any]:
        """``{"version", "ok", "config", "changes", "trace", "violations", "error", "hash", ...}``, JSON-ready."""
        config = _CONFIG_ADAPTER.dump_python(self.config, mode="json") if self.ok else paths().unflatten(
            {k: jsonable(v) for k, v in self.engine.state.items()}
        )
        _strip_absent(config, self.version)
        trace = self.trace.to_dict()
        if self.rules:
            _mark_site(self.engine.rulebook, trace)
        return {
            "version": RESULT_VERSION,
            "ok": self.ok,
            "config": config,
            "changes": [c.to_dict() for c in self.changes],
            "trace": trace,
            "violations": [self._violation_dict(v) for v in self.violations],
            "error": self.error.to_dict() if self.error is not None else None,
            "hash": self.hash,
            "hash_exact": self.hash_exact,
            "hash_reason": self.hash_reason,
            "inputs": jsonable(self.inputs),
            "notes": [n.to_dict() for n in self.notes],
            **({"site_rules": [{"id": r.id, "owner": r.owner, "phase": r.phase, "title": r.title}
                               for r in self.rules.rules],
                "hash_covers": "vLLM's VllmConfig.compute_hash() of the resolved values; the site rules are "
                               "not part of it"} if self.rules else {}),
        }

    def _violation_dict(self, v: ViolationEvent) -> dict[str, Any]:
        out = v.to_dict()
        owner = getattr(self.engine.rulebook.rules.get(v.rule), "owner", None)
        if owner:
            out["owner"] = owner
        return out


def _target(path: str, value: Any) -> Any:
    """``value`` as the field at ``path`` holds it, or an error naming the field, the value and what is allowed."""
    from postinit._how import _choices

    annotation = paths().require(path).annotation
    try:
        return TypeAdapter(annotation).validate_python(value)
    except (ValidationError, TypeError, ValueError):
        pass
    allowed = _choices(annotation)  # an enum's names, a Literal's values (and None): listed; plain types are named
    allowed = allowed if any(a not in ("None", "true", "false") for a in allowed) else []
    hint = did_you_mean(str(value), allowed) if isinstance(value, str) else ""
    typename = getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
    what = f"one of {', '.join(allowed)}" if allowed else f"a value of type {typename}"
    raise InvalidValueError(f"{path} can never be {show(value)}: it is {what}.{hint}", value=value, path=path)
