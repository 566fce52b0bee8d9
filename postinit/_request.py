"""One question to postinit: the typed request every face builds.

The library (:func:`postinit.resolve`), the CLI and the HTTP service all build a
:class:`Request` and hand it to :func:`postinit._api.resolve_request`; they add
only parsing and rendering. The defaults live here, in one place:

* **Mode.** A config dict (or a ``VllmConfig``) without flags and without
  ``usage`` is *config mode*: the sub-configs are built directly, as
  ``VllmConfig(...)`` is. Everything else — a model and/or flags, or nothing at
  all — goes through EngineArgs as ``vllm serve`` does (``usage="serve"``);
  ``usage="llm"`` is ``LLM(...)``, ``usage="engine"`` an engine built from EngineArgs
  (usage context ENGINE_CONTEXT), ``usage="none"`` ``create_engine_config()`` with no usage
  context (:data:`UsageSpec` lists them all). A config dict with a ``usage`` is what a Python caller
  gives EngineArgs (``EngineArgs(compilation_config={...}, max_model_len=...)``: the sub-configs
  EngineArgs takes whole as dicts, the others' keys as its fields of the same name); vLLM 0.34.0's
  ``EngineArgs.__post_init__`` builds those dicts itself and refuses one there (stage ``engine_args``,
  ``version.engine_args_dicts``). ``LLM(...)``'s own steps before EngineArgs are not modelled.
* **Model.** ``model`` (a catalog id or a local directory), a positional or
  ``--model`` flag, or ``config.model_config.model``; ``config_json`` (a
  config.json's content) gives the model's facts inline and wins over a name.
  EngineArgs mode with no model at all uses :data:`DEFAULT_MODEL`.
* **Platform** :data:`DEFAULT_PLATFORM`; **env** empty (``os.environ`` is never
  read); **semantics** ``"vllm"``.
* **vLLM version** :data:`~postinit.rules.versions.DEFAULT_VERSION` (the seed
  commit ``d7fb10c57``); ``"0.11.1"`` resolves as vLLM 0.11.1 does
  (``postinit versions`` lists what is modelled).

Every bound of :mod:`postinit.schema.limits` is checked when the request is built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from postinit.errors import InvalidValueError, show
from postinit.rules import paths, versions
from postinit.rules.versions import DEFAULT_VERSION, Version
from postinit.schema import Env, Platform, VllmConfig
from postinit.schema.env import known_variables
from postinit.schema.limits import (
    MAX_ARGS,
    MAX_ENV,
    MAX_KEYS,
    MAX_NAME,
    MAX_STRING,
    check_text,
    plain_copy,
)
from postinit.schema.loaders.argv import as_argv, env_prefix, postinit_options
from postinit.schema.loaders.nested import format_validation_error

__all__ = ["DEFAULT_MODEL", "DEFAULT_PLATFORM", "Request", "Semantics", "UsageSpec"]

DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
"""The model of an EngineArgs request that names none (what ``postinit resolve`` shows)."""
DEFAULT_PLATFORM = "h100"
"""The platform of a request that names none."""

UsageSpec = Literal["serve", "llm", "engine", "api_server", "batch", "unknown", "none"]
"""How EngineArgs builds the config, by vLLM's usage context: ``serve`` ``vllm serve`` (OPENAI_API_SERVER),
``llm`` ``LLM(...)`` (LLM_CLASS), ``engine`` an engine built from EngineArgs with no context of its own
(``LLMEngine``/``AsyncLLM.from_engine_args``: ENGINE_CONTEXT), ``api_server`` the demo API server (API_SERVER),
``batch`` ``run_batch`` (OPENAI_BATCH_RUNNER), ``unknown`` UNKNOWN_CONTEXT, ``none``
``EngineArgs.create_engine_config()`` called with no usage context at all."""
Semantics = Literal["vllm", "consistent"]

Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]
Arg = Annotated[str, StringConstraints(max_length=MAX_STRING)]
EnvName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]
EnvValue = Annotated[str, StringConstraints(max_length=MAX_STRING)] | None
DottedPath = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$"),
]
JsonObject = Annotated[dict[str, Any], Field(max_length=MAX_KEYS)]
_OVERRIDES: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[DottedPath, Any])
"""The validation of overrides a changed request adds (the rest of the request was validated already)."""
_CHECKED_PATHS: set[str] = set()
"""Override paths :data:`_OVERRIDES` took (its values are ``Any``: a path it took once, it takes again)."""

_LIMITS = (
    f"Bounds: nesting ≤ 24 levels, strings ≤ {MAX_STRING} characters, lists ≤ 4096 items, "
    "integers within ±2**127, floats finite, valid UTF-8."
)


class Request(BaseModel):
    """What one question to postinit is made of: the inputs of a resolution.

    Build it with :meth:`Request.build` from library objects, or validate it from
    JSON (the HTTP body). Every field is optional; see the module docstring for
    what the defaults mean.
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={
            "examples": [
                {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "b200",
                 "argv": ["--max-model-len", "200k"], "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}},
                {"config": {"compilation_config": {"mode": 3}}, "model": "Qwen/Qwen3-8B", "platform": "h100"},
                {"config_json": {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                 "max_position_embeddings": 4096, "num_attention_heads": 32,
                                 "num_key_value_heads": 8, "hidden_size": 4096, "num_hidden_layers": 32,
                                 "vocab_size": 32000, "torch_dtype": "bfloat16"},
                 "model": "my-org/my-model", "argv": ["-tp", "2"]},
            ]
        },
    )

    config: JsonObject | None = Field(
        None,
        description="A nested VllmConfig dict (vLLM's field names; GET /v1/schema). Without argv and usage this is "
        "config mode: the sub-configs are built directly, as VllmConfig(...) is. " + _LIMITS,
    )
    model: Name | None = Field(
        None, description="A built-in catalog id (GET /v1/models) or, in the library and CLI, a local directory "
        "holding config.json.",
    )
    config_json: JsonObject | None = Field(
        None, description="The model's config.json content, inline; wins over the model's catalog entry "
        "(model then only names it).",
    )
    tokenizer_config_json: JsonObject | None = Field(
        None, description="The model's tokenizer_config.json content (model_max_length), with config_json.",
    )
    argv: Annotated[list[Arg], WithJsonSchema({"anyOf": [
        {"type": "array", "items": {"type": "string", "maxLength": MAX_STRING}, "maxItems": MAX_ARGS},
        {"type": "string", "maxLength": MAX_STRING}]})] | None = Field(
        None, max_length=MAX_ARGS,
        description="`vllm serve` flags as a list, e.g. [\"--max-model-len\", \"32k\"], or as one string split as a "
        "shell splits it (\"--max-model-len 32k\"). A pasted line is taken as typed: a leading `vllm serve MODEL` "
        "or `python -m vllm.entrypoints.openai.api_server` is dropped and leading NAME=VALUE words go to env "
        "(they win over env). With flags the config is built as EngineArgs builds it.",
    )
    platform: Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)] | Platform = Field(
        DEFAULT_PLATFORM,
        description="cpu, rocm[:gfxNNN], cuda:MAJOR.MINOR, a GPU name (h100, b200, mi300x, ...), or the platform "
        "facts as an object.",
    )
    env: dict[EnvName, EnvValue] = Field(
        default_factory=dict, max_length=MAX_ENV,
        description="Environment variables (VLLM_* and the process variables vLLM reads), as strings; null = "
        "unset. Every variable of vLLM's envs.py is accepted.",
    )
    usage: UsageSpec | None = Field(
        None, description="serve (vllm serve), llm (LLM(...)), engine (an engine from EngineArgs: ENGINE_CONTEXT), "
        "api_server, batch, unknown (vLLM's other usage contexts) or none (create_engine_config() without one). "
        "Default: config mode for a config without argv, serve otherwise.",
    )
    semantics: Semantics = Field(
        "vllm", description="vllm reproduces vLLM's final values; consistent re-runs stale rules to one fixed point.",
    )
    overrides: dict[DottedPath, Any] = Field(
        default_factory=dict, max_length=MAX_KEYS,
        description="Dotted path → value, applied last over config and argv (what `postinit what-if --set` does).",
    )
    vllm_version: Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)] = Field(
        DEFAULT_VERSION, description=f"The vLLM version to resolve as: {versions.listed()} (GET /v1/versions).",
    )
    _version: Version = PrivateAttr()
    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        # the door: ``_known_version`` looked the spelling up (or kept the version of the request this one
        # changes); everything after takes ``self.version``, never a string
        kept = context.get("version") if isinstance(context, dict) else None
        if isinstance(kept, Version) and kept.name == self.vllm_version:
            self._version = kept
        else:
            found = versions.VERSIONS.get(self.vllm_version)
            self._version = found if found is not None else versions.get(self.vllm_version)

    def source_of(self, path: str) -> str | None:
        """Where the user's file sets ``path`` (``serve.yaml:4 (max_num_seqs: 64)``), for a ``config`` read from
        a file (the CLI's ``--config``); None otherwise."""
        sources: dict[str, str] = self.__pydantic_private__["_sources"]  # type: ignore[index]  # not __getattr__'s
        if not sources:
            return None
        parts = path.split(".")
        for n in range(len(parts), 0, -1):
            found = sources.get(".".join(parts[:n]))
            if found is not None:
                return found
        return None

    @property
    def version(self) -> Version:
        """The vLLM version this request resolves as: its rulebook, facts, env table, flags, paths and hash."""
        # read from the private store directly: ``self._version`` goes through pydantic's ``__getattr__`` (~6 us)
        found: Version = self.__pydantic_private__["_version"]  # type: ignore[index]
        return found

    # -- validation at the door ------------------------------------------------------

    @model_validator(mode="before")
    @classmethod
    def _pasted_line(cls, data: Any) -> Any:
        """``argv`` as one string is split as a shell splits it; a pasted line's ``NAME=VALUE`` prefix is env,
        and postinit's own options in it (``--platform``, ``--env``, ``--usage``, ``--semantics``,
        ``--vllm-version``) are the request's: the line wins over the request's other fields."""
        if not isinstance(data, Mapping) or data.get("argv") is None:
            return data
        argv = data["argv"]
        if not isinstance(argv, (str, list, tuple)):
            return data  # refused by the field's own type, with its path
        args = as_argv(argv)
        assigned, args = env_prefix(args)
        options, args = postinit_options(args)
        assigned.update(options.pop("env", {}))
        out = {**data, **options, "argv": args}
        if assigned:
            env = data.get("env")
            if env is None or isinstance(env, Mapping):
                out["env"] = {**(env or {}), **assigned}
        return out

    @field_validator("config", "config_json", "tokenizer_config_json", mode="after")
    @classmethod
    def _bounded(cls, value: dict[str, Any] | None, info: Any) -> dict[str, Any] | None:
        if value is None:
            return None
        if info.context is not None and info.field_name in info.context.get("copied", ()):
            return value  # Request.build made it with plain_copy already: every bound checked, the copy its own
        copied: dict[str, Any] = plain_copy(value, info.field_name)
        return copied

    @field_validator("overrides", mode="after")
    @classmethod
    def _bounded_overrides(cls, value: dict[str, Any]) -> dict[str, Any]:
        return {k: plain_copy(v, k) for k, v in value.items()}

    @field_validator("model", "argv", mode="after")
    @classmethod
    def _utf8(cls, value: Any, info: Any) -> Any:
        for text in ([value] if isinstance(value, str) else value or ()):
            check_text(text, info.field_name)
        return value

    @field_validator("env", mode="after")
    @classmethod
    def _utf8_env(cls, value: dict[str, str | None]) -> dict[str, str | None]:
        for k, v in value.items():
            check_text(k, "env")
            if v is not None:
                check_text(v, f"env {k}")
        return value

    @field_validator("vllm_version", mode="after")
    @classmethod
    def _known_version(cls, value: str, info: Any) -> str:
        kept = info.context.get("version") if isinstance(info.context, dict) else None
        if isinstance(kept, Version) and value == kept.name:  # a changed request keeps its version
            return value
        return versions.version_name(check_text(value, "vllm_version", MAX_NAME))

    @field_validator("platform", mode="after")
    @classmethod
    def _platform_text(cls, value: str | Platform) -> str | Platform:
        return check_text(value, "platform", MAX_NAME) if isinstance(value, str) else value

    # -- building from library objects -----------------------------------------------

    @classmethod
    def build(
        cls,
        config: VllmConfig | Mapping[str, Any] | None = None,
        *,
        model: str | None = None,
        config_json: Mapping[str, Any] | None = None,
        tokenizer_config_json: Mapping[str, Any] | None = None,
        argv: str | Sequence[str] | None = None,
        platform: Platform | str | None = None,
        env: Env | Mapping[str, str | None] | None = None,
        usage: UsageSpec | None = None,
        semantics: Semantics = "vllm",
        overrides: Mapping[str, Any] | None = None,
        vllm_version: str | None = None,
        sources: Mapping[str, str] | None = None,
    ) -> Request:
        """A request from the library's arguments: objects become plain data, every bound is checked.

        ``config`` is a ``VllmConfig`` (the fields its sub-configs were given count as
        input) or a nested dict; ``argv`` a list of flags or one string (split as a
        shell would); ``env`` a mapping or an :class:`Env`. Errors are one-line
        :class:`~postinit.errors.InputError`\\ s naming the field.
        """
        data: dict[str, Any] = {"semantics": semantics}
        if config is not None:
            data["config"] = _config_dict(config)
        if model is not None:
            data["model"] = model
        if config_json is not None:
            data["config_json"] = config_json
        if tokenizer_config_json is not None:
            data["tokenizer_config_json"] = tokenizer_config_json
        if argv is not None:
            data["argv"] = as_argv(argv)
        if platform is not None:
            data["platform"] = platform
        if env is not None:
            data["env"] = _env_mapping(env)
        if usage is not None:
            data["usage"] = usage
        if vllm_version is not None:
            data["vllm_version"] = vllm_version
        if overrides:
            if not isinstance(overrides, Mapping):
                raise InvalidValueError(f"overrides: a mapping of dotted paths to values is expected, got "
                                        f"{type(overrides).__name__}", path="overrides")
            data["overrides"] = dict(overrides)
        request = cls.parse(data, copied=("config",) if config is not None else ())
        if sources:
            request._sources = dict(sources)
        return request

    @classmethod
    def parse(cls, data: Any, *, keep: Version | None = None, copied: tuple[str, ...] = ()) -> Request:
        """Validate a JSON-like request; a bad field is one :class:`InvalidValueError` line naming it.

        ``keep``: the version of the request this one changes (not looked up again when it names it).
        ``copied``: the fields of ``data`` that are already the caller's own ``plain_copy`` (not copied again).
        """
        context: dict[str, Any] | None = None
        if keep is not None or copied:
            context = {"version": keep, "copied": copied}
        try:
            return cls.model_validate(data, context=context)
        except InvalidValueError:
            raise
        except ValidationError as e:
            raise _one_line(e) from None

    def replace(self, **changes: Any) -> Request:
        """A plain :class:`Request` with ``changes`` (validated) over this request's fields."""
        out = Request.parse({**{k: getattr(self, k) for k in Request.model_fields}, **changes}, keep=self.version)
        out._sources = self._sources
        return out

    def changed(self, set: Mapping[str, Any]) -> Request:
        """This request with ``set`` applied last: dotted paths to values (``env.NAME`` sets a variable).

        Platform and usage facts are not settable this way (``platform``/``usage`` are).
        """
        if not isinstance(set, Mapping):
            raise InvalidValueError(f"set: a mapping of dotted paths to values is expected, got {type(set).__name__}",
                                    path="set")
        if not set:
            raise InvalidValueError("set: name at least one path, e.g. {'model_config.enforce_eager': True}",
                                    path="set")
        space = paths()
        overrides: dict[str, Any] = dict(self.overrides)
        env: dict[str, str | None] = dict(self.env)
        for path, value in set.items():
            if not isinstance(path, str):
                raise InvalidValueError(f"set: paths are dotted strings, got {type(path).__name__}", path="set")
            if path.startswith("env."):
                if path[4:] not in known_variables():
                    space.require(path)
                env[path[4:]] = None if value is None else str(value)
                continue
            if path.startswith(("platform.", "usage.")):
                raise InvalidValueError(
                    f"--set {path}: platform and usage facts are not settable here; use --platform/--usage",
                    path=path, value=None)
            space.require(path)
            overrides[path] = value
        if env == self.env and type(self) is Request:
            # only overrides change: the new ones are validated here, the rest of the request already was
            try:
                added = {p: v for p, v in set.items() if not p.startswith("env.")}
                if not _CHECKED_PATHS.issuperset(added):  # a path validated once validates the same again
                    added = _OVERRIDES.validate_python(added)
                    if len(_CHECKED_PATHS) < 65_536:
                        _CHECKED_PATHS.update(added)
                if len(overrides) <= MAX_KEYS:
                    overrides.update({p: plain_copy(v, p) for p, v in added.items()})
                    return self._with_overrides(overrides)
            except (ValidationError, InvalidValueError):
                pass  # the whole validation below reports it as it reports any request
        return self.replace(overrides=overrides, env=env)

    def _with_overrides(self, overrides: dict[str, Any]) -> Request:
        """This request with ``overrides`` (validated) in place of its own: ``model_copy(update=...)`` without
        its generic machinery (the hot path of ``with_changes``); every field counts as set, as in :meth:`replace`."""
        new = _object_new(Request)
        _setattr(new, "__dict__", {**self.__dict__, "overrides": overrides})
        _setattr(new, "__pydantic_extra__", None)  # extra="forbid"
        _setattr(new, "__pydantic_fields_set__", set(_FIELD_NAMES))
        private = self.__pydantic_private__
        _setattr(new, "__pydantic_private__", None if private is None else dict(private))
        return new

    def plain(self) -> Request:
        """This request as a plain :class:`Request` (an HTTP body subclass carries more fields)."""
        if type(self) is Request:
            return self
        out = Request.model_construct(**{k: getattr(self, k) for k in Request.model_fields})
        out._version = self._version
        return out

    # -- what the request means ------------------------------------------------------

    @property
    def flags(self) -> bool:
        """True when the request has command-line flags (an empty list is none)."""
        return bool(self.argv)

    @property
    def effective_usage(self) -> UsageSpec | None:
        """``None`` for config mode; otherwise how EngineArgs builds the config (default ``serve``)."""
        if self.usage is not None:
            return self.usage
        if self.config is not None and not self.flags:
            return None
        return "serve"


def _config_dict(config: Any) -> dict[str, Any]:
    if isinstance(config, VllmConfig):
        # an object: the fields its sub-models were given explicitly count as user input
        out: dict[str, Any] = {}
        for f in dataclasses.fields(VllmConfig):
            sub = getattr(config, f.name)
            if isinstance(sub, BaseModel):
                out[f.name] = {k: getattr(sub, k) for k in sub.model_fields_set}
            elif sub is not None and f.default is not dataclasses.MISSING and sub != f.default:
                out[f.name] = sub
        copied: dict[str, Any] = plain_copy(out, "config")
        return copied
    if isinstance(config, Mapping):
        copied = plain_copy(config, "config")
        return copied
    raise InvalidValueError(f"config must be a VllmConfig, a mapping or None, got {type(config).__name__}",
                            path="config", value=None)


def _env_mapping(env: Any) -> dict[str, Any]:
    if isinstance(env, Env):
        return {name: _env_text(getattr(env, name)) for name in env.explicit}
    if not isinstance(env, Mapping):
        raise InvalidValueError(f"env must be a mapping of variable names to strings, got {type(env).__name__}",
                                path="env", value=None)
    out: dict[str, Any] = {}
    for k, v in env.items():
        if not isinstance(k, str):
            raise InvalidValueError(f"env: variable names are strings, got {type(k).__name__} {show(k)}",
                                    path="env", value=None)
        if v is not None and not isinstance(v, str):
            raise InvalidValueError(
                f"env {k}: values are strings, as in a shell environment (got {type(v).__name__} {show(v)}; "
                f"write {show(str(v))})", path=f"env.{k}", value=None)
        out[k] = v
    return out


def _env_text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _one_line(error: ValidationError) -> InvalidValueError:
    """A request's validation error as one line: the field, the bad value and what is allowed."""
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, InvalidValueError):  # raised by a bound check inside a validator: its own words
        return cause
    return format_validation_error(error)


_object_new = object.__new__
_setattr = object.__setattr__
_FIELD_NAMES: frozenset[str] = frozenset(Request.model_fields)
