"""The front door: ``postinit.resolve(...)`` and the :class:`Resolution` it returns."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from postinit.engine import (
    Change,
    EngineResult,
    Fired,
    Provenance,
    Source,
    StaleRead,
    Trace,
    ViolationEvent,
    jsonable,
)
from postinit.errors import InputError, ViolationError
from postinit.rules import paths, rulebook
from postinit.schema import Env, Platform, Usage, VllmConfig
from postinit.schema.loaders import check_keys, format_validation_error, load_model, parse_vllm_args

if TYPE_CHECKING:
    from postinit.engine import WhyNode, WhyNot

__all__ = ["DEFAULT_MODEL", "DEFAULT_PLATFORM", "RESULT_VERSION", "Resolution", "resolve"]

RESULT_VERSION = 1
DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
"""The model used when the input names none but goes through EngineArgs (flags)."""
DEFAULT_PLATFORM = "h100"

UsageSpec = Literal["serve", "llm", "engine"] | None
_USAGE = {
    "serve": "OPENAI_API_SERVER",
    "llm": "LLM_CLASS",
    "engine": None,
}
_CONFIG_ADAPTER: TypeAdapter[VllmConfig] = TypeAdapter(VllmConfig)


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in top.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def _as_input_dict(config: VllmConfig | Mapping[str, Any] | None) -> dict[str, Any]:
    if config is None:
        return {}
    if isinstance(config, Mapping):
        copied: dict[str, Any] = _copy(config) if _plain(config) else json.loads(json.dumps(config, default=str))
        return copied
    if isinstance(config, VllmConfig):
        # an object: the fields its sub-models were given explicitly count as user input
        out: dict[str, Any] = {}
        defaults = {f.name: f for f in dataclasses.fields(VllmConfig)}
        for name, f in defaults.items():
            sub = getattr(config, name)
            if isinstance(sub, BaseModel):
                out[name] = sub.model_dump(mode="python", exclude_unset=True)
            elif sub is not None and f.default is not dataclasses.MISSING and sub != f.default:
                out[name] = sub
        return out
    raise InputError(
        f"config must be a VllmConfig, a mapping or None, got {type(config).__name__}", value=config
    )


def _nest(path: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = out
    *head, last = path.split(".")
    for part in head:
        node = node.setdefault(part, {})
    node[last] = value
    return out


def _plain(obj: Any) -> bool:
    if isinstance(obj, Mapping):
        return all(isinstance(k, str) and _plain(v) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return all(_plain(v) for v in obj)
    return obj is None or isinstance(obj, (str, int, float, bool))


def _copy(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {k: _copy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_copy(v) for v in obj]
    return obj


def _platform(spec: Platform | str | None) -> tuple[Platform, str]:
    if isinstance(spec, Platform):
        return spec, f"platform {spec.device_name or spec.kind}"
    text = spec or DEFAULT_PLATFORM
    plat = Platform.detect() if text == "auto" else Platform.from_spec(text)
    return plat, f"platform {text}"


@dataclass(frozen=True)
class _FastPaths:
    """Per-process constants of the front door (built once, on first use)."""

    default_flat: dict[str, Any]
    """``VllmConfig()`` (and an empty env) flattened: what every part the input leaves out flattens to."""
    empty_env: dict[str, Any]
    platform_paths: tuple[str, ...]
    usage_paths: tuple[str, ...]
    usages: dict[Any, dict[str, Any]]

    def usage(self, usage: UsageSpec) -> dict[str, Any]:
        flat = self.usages.get(usage)
        if flat is None:
            obj = Usage(
                via_engine_args=usage is not None,
                usage_context=_USAGE.get(usage) if usage is not None else None,
            )
            flat = self.usages[usage] = paths().flatten_model(obj, "usage")
        return flat


@functools.cache
def _fast_paths() -> _FastPaths:
    space = paths()
    base = space.defaults()
    base.update(space.flatten({"": VllmConfig()}))
    return _FastPaths(
        default_flat=base,
        empty_env=space.flatten_model(Env.from_mapping({}), "env"),
        platform_paths=tuple(p for p in space.paths if p.startswith("platform.")),
        usage_paths=tuple(p for p in space.paths if p.startswith("usage.")),
        usages={},
    )


@functools.lru_cache(maxsize=64)
def _platform_spec(text: str) -> tuple[Platform, dict[str, Any]]:
    plat = Platform.from_spec(text)
    return plat, paths().flatten_model(plat, "platform")


def _platform_cached(spec: Platform | str | None) -> tuple[str, dict[str, Any]]:
    """The platform's provenance detail and flattened facts (cached per spec string, except ``auto``)."""
    text = (spec or DEFAULT_PLATFORM) if isinstance(spec, str) or spec is None else None
    if text is not None and text != "auto":
        return f"platform {text}", _platform_spec(text)[1]
    plat, detail = _platform(spec)
    return detail, paths().flatten_model(plat, "platform")


@functools.lru_cache(maxsize=128)
def _catalog_model(name: str) -> Any:
    return load_model(name)


def _load(name: str, catalog_only: bool = False) -> Any:
    """``load_model``, cached for built-in catalog ids (a local path is read every time)."""
    if not catalog_only and Path(name).expanduser().exists():
        return load_model(name)
    return _catalog_model(name)


def _env(env: Env | Mapping[str, str | None] | None) -> tuple[Env, set[str]]:
    if isinstance(env, Env):
        return env, set(env.model_fields_set)
    mapping = dict(env or {})
    return Env.from_mapping(mapping), {k for k in mapping if k in Env.model_fields}


def resolve(
    config: VllmConfig | Mapping[str, Any] | None = None,
    *,
    platform: Platform | str | None = DEFAULT_PLATFORM,
    env: Env | Mapping[str, str | None] | None = None,
    model: str | None = None,
    argv: Sequence[str] | None = None,
    usage: UsageSpec = None,
    semantics: Literal["vllm", "consistent"] = "vllm",
    trace: Literal["minimal", "full", "debug"] = "full",
    strict: bool = False,
    overrides: Mapping[str, Any] | None = None,
    catalog_only: bool = False,
) -> Resolution:
    """Resolve a vLLM config the way vLLM would, and explain every decision.

    ``config`` is a :class:`VllmConfig` or a plain dict with vLLM's nested field
    names (``{"compilation_config": {"mode": 3}}``). ``model`` names a catalog
    model or a local directory holding a ``config.json``. ``argv`` takes
    ``vllm serve`` flags; with flags (or ``usage``) the config is built as
    EngineArgs builds it (``usage="serve"`` for ``vllm serve``, ``"llm"`` for
    ``LLM(...)``). ``platform`` is a spec (``h100``, ``cuda:10.0``, ``cpu``,
    ``auto``) or a :class:`Platform`; ``env`` the ``VLLM_*`` variables (the
    process environment is never read implicitly). ``overrides`` maps dotted
    paths to values set last, over ``config`` and ``argv`` (``postinit what-if
    --set``); they count as user input. ``catalog_only`` refuses local model
    directories (only catalog ids). The input is never mutated.
    """
    state, prov, inputs = prepare(
        config, platform=platform, env=env, model=model, argv=argv, usage=usage, semantics=semantics,
        overrides=overrides, catalog_only=catalog_only,
    )
    # ``prepare`` builds a fresh dict of frozen values for this call: the engine takes it over
    result = rulebook().resolve(state, prov, semantics=semantics, trace=trace, strict=strict, owned=True)
    return Resolution(result, inputs=inputs)


_VALIDATED: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {}
"""Per input (its canonical JSON): the flattened validated sub-configs it names and the paths it sets."""
_VALIDATED_MAX = 256


def _input_key(data: Mapping[str, Any]) -> str | None:
    """A canonical key for a plain-JSON input dict (None when it holds anything else)."""
    def refuse(obj: Any) -> Any:
        raise TypeError(type(obj).__name__)

    try:
        return json.dumps(data, sort_keys=True, default=refuse, allow_nan=True)
    except (TypeError, ValueError):
        return None


def prepare(
    config: VllmConfig | Mapping[str, Any] | None = None,
    *,
    platform: Platform | str | None = DEFAULT_PLATFORM,
    env: Env | Mapping[str, str | None] | None = None,
    model: str | None = None,
    argv: Sequence[str] | None = None,
    usage: UsageSpec = None,
    semantics: Literal["vllm", "consistent"] = "vllm",
    overrides: Mapping[str, Any] | None = None,
    catalog_only: bool = False,
) -> tuple[dict[str, Any], dict[str, Provenance], dict[str, Any]]:
    """The rulebook's input for :func:`resolve`'s arguments: ``(flat_state, provenance, inputs)``.

    Validates and loads exactly as :func:`resolve` does, without resolving
    (``postinit.rules.rulebook().resolve(state, provenance)`` finishes the job).
    """
    data = _as_input_dict(config)
    flags: dict[str, str] = {}
    if argv is not None:
        parsed = parse_vllm_args(list(argv))
        data = _deep_merge(data, parsed.config)
        flags = dict(parsed.flags)
        model = model or parsed.model
        usage = usage or "serve"
    for p, v in (overrides or {}).items():
        data = _deep_merge(data, _nest(p, v))
        flags[p] = f"--set {p}"
    if usage is not None and usage not in _USAGE:
        raise InputError(f"usage: {usage!r} is not allowed; allowed: serve, llm, engine", path="usage", value=usage)
    via_engine_args = usage is not None

    mc = data.get("model_config")
    model_name = model or (mc.get("model") if isinstance(mc, Mapping) else None)
    if model_name is None and via_engine_args:
        model_name = DEFAULT_MODEL
    loader_sources: dict[str, str] = {}
    if model_name is not None and not (isinstance(mc, Mapping) and "hf_config" in mc):
        loaded = _load(model_name, catalog_only)
        facts: dict[str, Any] = {"hf_config": loaded.hf_config, "hf_text_config": loaded.hf_text_config}
        data["model_config"] = _deep_merge(facts, {**(mc or {}), "model": model_name})
        loader_sources = {f"model_config.{k}": v for k, v in loaded.sources.items()}

    space = paths()
    # the validated, flattened config depends on ``data`` alone (flags and overrides are merged
    # into it; they only change provenance, which is built below): cached per plain-JSON input
    # (not for VllmConfig objects; a value JSON cannot represent disables the cache)
    key = _input_key(data) if config is None or isinstance(config, Mapping) else None
    hit = _VALIDATED.get(key) if key is not None else None
    if hit is None:
        check_keys(data, VllmConfig)
        try:
            cfg = _CONFIG_ADAPTER.validate_python(data)
        except ValidationError as e:
            raise format_validation_error(e) from None
        fields: dict[str, Any] = {}
        space.flatten_fields(cfg, data.keys(), fields)
        hit = (fields, tuple(space.flatten_partial(data)))
        if key is not None:
            if len(_VALIDATED) >= _VALIDATED_MAX:
                _VALIDATED.clear()
            _VALIDATED[key] = hit
    plat_detail, plat_flat = _platform_cached(platform)
    env_obj, env_set = _env(env)
    # start from VllmConfig()'s flattened defaults and flatten only what can differ: the
    # sub-configs the input names, the platform (cached per spec), the env and the usage facts
    fast = _fast_paths()
    state = dict(fast.default_flat)
    state.update(hit[0])
    state.update(plat_flat)
    state.update(fast.empty_env if env is None else space.flatten_model(env_obj, "env"))
    # usage.config_updated_on_input stays False: the input's model_config.config_updated never
    # reaches step 2, because ModelConfig.__post_init__ resets it (vllm/config/model.py)
    state.update(fast.usage(usage))
    prov: dict[str, Provenance] = {}
    for p in hit[1]:
        if p in loader_sources:
            continue
        prov[p] = Provenance(Source.USER, flags.get(p, "config"))
    for p, detail in loader_sources.items():
        if p in space:
            prov[p] = Provenance(Source.LOADER, detail)
    prov.update(dict.fromkeys(fast.platform_paths, Provenance(Source.FACT, plat_detail)))
    prov.update(dict.fromkeys(
        fast.usage_paths,
        Provenance(Source.FACT, f"usage {usage}" if usage else "VllmConfig(...) built directly"),
    ))
    for name in env_set:
        prov[f"env.{name}"] = Provenance(Source.FACT, f"env {name}")
    return state, prov, {"platform": plat_detail, "usage": usage, "semantics": semantics}


@dataclass(eq=False)
class Resolution:
    """A resolved vLLM config with its trace; everything else is derived on demand."""

    engine: EngineResult
    inputs: dict[str, Any] = field(default_factory=dict)

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
    def stale_reads(self) -> tuple[StaleRead, ...]:
        return self.engine.trace.stale_reads

    @cached_property
    def config(self) -> VllmConfig:
        """The resolved config as a validated :class:`VllmConfig`."""
        cfg: VllmConfig = paths().build(self.engine.state)
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

    def why(self, path: str) -> WhyNode:
        """The causal tree of ``path``'s final value back to flags, config.json keys and facts."""
        return self.engine.why(path)

    def why_not(self, path: str, value: Any) -> WhyNot:
        """Which rules could have set ``path`` to ``value`` and what stopped each of them."""
        return self.engine.why_not(path, value)

    @cached_property
    def hash(self) -> str:
        """``VllmConfig.compute_hash()`` of the resolved config (see :mod:`postinit.rules.hashing`).

        vLLM's exact value when there is no model, or when the optional ``hash`` extra
        (transformers) is installed and the model's HF config is reproducible
        (``postinit.rules.hashing.model_hash_is_exact(r.state)``); otherwise the model
        factor is a deterministic stand-in and the hash is postinit's own.
        """
        try:
            hashing = importlib.import_module("postinit.rules.hashing")
        except ImportError:  # pragma: no cover - until the hashing module exists
            blob = json.dumps({k: jsonable(v) for k, v in sorted(self.engine.state.items())}, sort_keys=True)
            return hashlib.md5(blob.encode(), usedforsecurity=False).hexdigest()[:10]
        return str(hashing.compute_hash(self.engine.state))

    def raise_for_violations(self) -> None:
        """Raise :class:`ViolationError` if the config is invalid."""
        if self.violations:
            v = self.violations[0]
            raise ViolationError(f"{v.error} in rule {v.rule}: {v.message}", rule=v.rule)

    def messages(self, level: str | None = None) -> list[Fired]:
        """The fired events that carry a message (vLLM's log lines), optionally of one level."""
        return [e for e in self.trace.fired if e.message and (level is None or e.level == level)]

    def to_dict(self) -> dict[str, Any]:
        """``{"version", "ok", "config", "changes", "trace", "violations", "hash"}``, JSON-ready."""
        config = _CONFIG_ADAPTER.dump_python(self.config, mode="json") if self.ok else paths().unflatten(
            {k: jsonable(v) for k, v in self.engine.state.items()}
        )
        return {
            "version": RESULT_VERSION,
            "ok": self.ok,
            "config": config,
            "changes": [c.to_dict() for c in self.changes],
            "trace": self.trace.to_dict(),
            "violations": [v.to_dict() for v in self.violations],
            "hash": self.hash,
            "inputs": jsonable(self.inputs),
        }
