"""Config files: JSON and YAML, in ``VllmConfig`` shape or vLLM's ``--config`` shape.

Two shapes are accepted:

* **nested** – every top-level key is a ``VllmConfig`` field
  (``model_config: {max_model_len: 4096}``, ``compilation_config: {...}``);
  returned as it is;
* **flags** – vLLM's ``vllm serve --config`` YAML: flat keys named like CLI
  flags (``tensor-parallel-size: 2``, ``enforce_eager: true``,
  ``compilation-config: {mode: 3}``). They are turned into argv tokens the way
  vLLM does (``true`` → ``--flag``, ``false`` → nothing, a list → the flag and
  its items, a mapping → JSON) and parsed by the same flag table as the command
  line, so the result is the same nested dict.

Errors are one line, name the file, and the line where the parser knows it.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from postinit.errors import InputError, InvalidValueError, show
from postinit.schema.errors import UnknownFlagError
from postinit.schema.limits import MAX_DEPTH, plain_copy

__all__ = ["ConfigFile", "deep_merge", "load_config_file", "read_config_file"]

VLLM_CONFIG_FIELDS = frozenset(
    {
        "model_config", "cache_config", "parallel_config", "scheduler_config",
        "device_config", "load_config", "lora_config", "speculative_config",
        "structured_outputs_config", "observability_config", "quant_config",
        "compilation_config", "kv_transfer_config", "kv_events_config",
        "additional_config", "instance_id",
    }
)  # fmt: skip


@dataclass(frozen=True)
class ConfigFile:
    """A read config file: ``nested`` (VllmConfig shape) or ``argv`` (flags shape)."""

    path: str
    data: dict[str, Any]
    nested: dict[str, Any] | None = None
    argv: list[str] | None = None
    warnings: tuple[str, ...] = ()
    lines: dict[str, int] = field(default_factory=dict)
    """The 1-based line of every mapping key, by dotted path (``scheduler_config.max_num_seqs``)."""

    def source(self, path: str) -> str | None:
        """``serve.yaml:4 (max-num-seqs: 128)``: where the file sets ``path`` (or the nearest key above it)."""
        parts = path.split(".")
        for n in range(len(parts), 0, -1):
            key = ".".join(parts[:n])
            line = self.lines.get(key)
            if line is not None:
                value: Any = self.data
                for k in parts[:n]:
                    value = value.get(k) if isinstance(value, dict) else None
                return f"{self.path}:{line} ({parts[n - 1]}: {_as_written(value)})"
        return None


def _as_written(value: Any) -> str:
    """A file's value as YAML/JSON writes it (``true``, ``null``, ``128``, ``{"a": 1}``), at most 60 characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def _lines_of(text: str) -> dict[str, int]:
    """Dotted path → line of every mapping key (YAML's composer: JSON is YAML too); empty when it cannot tell."""
    import yaml

    try:
        root = yaml.compose(text, Loader=_budget_loader())
    except (yaml.YAMLError, ValueError, RecursionError):
        return {}
    out: dict[str, int] = {}
    seen: set[int] = set()
    stack: list[tuple[Any, str, int]] = [(root, "", 0)]
    while stack:
        node, prefix, depth = stack.pop()
        if not isinstance(node, yaml.MappingNode) or id(node) in seen or depth > MAX_DEPTH:
            continue
        seen.add(id(node))  # an alias is the node it names: walked once
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                path = f"{prefix}.{key.value}" if prefix else str(key.value)
                out.setdefault(path, key.start_mark.line + 1)
                stack.append((value, path, depth + 1))
    return out


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """A new dict: ``override`` merged into ``base`` recursively (override wins)."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _key_line(text: str, key: str) -> int | None:
    """The 1-based line where ``key`` first appears as a mapping key, if found."""
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*:", re.MULTILINE)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _parse_text(path: str, text: str) -> Any:
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidValueError(
                f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}", value=path
            ) from None
        except (RecursionError, ValueError) as exc:
            raise InvalidValueError(f"{path}: invalid JSON: {_why(exc)}", value=path) from None
    if suffix in (".yaml", ".yml"):
        import yaml  # only for YAML files: ~20 ms of start-up otherwise

        try:
            return yaml.load(text, Loader=_budget_loader())
        except ValueError as exc:  # an integer of more than 4300 digits (CPython's int() limit)
            raise InvalidValueError(f"{path}: invalid YAML: {str(exc).split(';')[0]}", value=path) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else path
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise InvalidValueError(f"{where}: invalid YAML: {problem}", value=path) from None
    raise InputError(
        f"{path}: config files must be .json, .yaml or .yml (got '{suffix or 'no extension'}')",
        value=path,
    )


MAX_ALIASES = 64
"""YAML aliases (``*name``) one config file may use: enough for any real file, and an alias
bomb (nested aliases expanding exponentially) is refused before it expands."""
MAX_FILE_BYTES = 1 << 20
"""A config file larger than 1 MiB is refused (a real one is a few kB)."""


def _why(exc: BaseException) -> str:
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)


@functools.cache
def _budget_loader() -> type:
    """A ``yaml.SafeLoader`` that refuses more than :data:`MAX_ALIASES` aliases and nesting beyond
    :data:`~postinit.schema.limits.MAX_DEPTH` levels (PyYAML composes recursively: 400 levels were a
    RecursionError)."""
    import yaml

    class BudgetLoader(yaml.SafeLoader):
        aliases = 0
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                    raise yaml.composer.ComposerError(
                        None, None, f"more than {MAX_ALIASES} aliases (*name): refused, a YAML alias bomb "
                        "expands exponentially", mark)
            if self.depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", mark)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return BudgetLoader


def _to_argv(path: str, data: dict[str, Any], warnings: list[str]) -> list[str]:
    """vLLM's ``load_config_file``: flat keys to flag tokens (dicts become JSON)."""
    tokens: list[str] = []
    for key, value in data.items():
        if not isinstance(key, str) or not key:
            raise InvalidValueError(f"{path}: keys must be flag names, got {show(key)}", value=key)
        flag = key if key.startswith("-") else "--" + key
        if isinstance(value, bool):
            if value:
                tokens.append(flag)
            else:
                warnings.append(
                    f"{path}: '{key}: false' is ignored, as vLLM ignores a false boolean in a --config file; use --no-{flag.lstrip('-')} on the command line"
                )
        elif isinstance(value, list):
            if value:
                tokens.append(flag)
                tokens.extend(json.dumps(v) if isinstance(v, dict) else str(v) for v in value)
        elif isinstance(value, dict):
            tokens += [flag, json.dumps(value)]
        elif value is None:
            tokens += [flag, "None"]
        else:
            tokens += [flag, str(value)]
    return tokens


def read_config_file(path: str | Path) -> ConfigFile:
    """Read a config file and classify its shape; ``argv`` is set for the flags shape."""
    name = str(path)
    file = Path(name)
    try:
        found = file.is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        found = False
    if not found:
        raise InputError(f"config file not found: {show(name)}", value=name if len(name) < 256 else None)
    try:
        with file.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{show(name)}: cannot read the config file: {getattr(exc, 'strerror', None) or exc}",
                         value=None) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"{name}: larger than {MAX_FILE_BYTES >> 20} MiB; not a vLLM config file", value=name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text", value=name) from None
    data = plain_copy(_parse_text(name, text), name)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidValueError(
            f"{name}: the top level must be a mapping of settings, got {type(data).__name__}",
            value=name,
        )
    _not_a_hf_config(name, data)
    lines = _lines_of(text)
    if all(isinstance(k, str) and k in VLLM_CONFIG_FIELDS for k in data):  # an empty file too: no settings
        return ConfigFile(name, data, nested=data, lines=lines)
    warnings: list[str] = []
    argv = _to_argv(name, data, warnings)
    return ConfigFile(name, data, argv=argv, warnings=tuple(warnings), lines=lines)


_HF_KEYS = frozenset({"architectures", "model_type", "transformers_version", "hidden_size", "num_hidden_layers",
                      "num_attention_heads", "vocab_size", "torch_dtype", "max_position_embeddings"})


def _not_a_hf_config(name: str, data: dict[str, Any]) -> None:
    """A model's HuggingFace ``config.json`` given as a vLLM config: say what it is and what to do instead."""
    found = sorted(_HF_KEYS.intersection(data))
    if "architectures" in data or "model_type" in data or len(found) >= 3:
        folder = str(Path(name).parent) if Path(name).name == "config.json" else "its directory"
        raise InputError(
            f"{name} is a model's HuggingFace config.json ({', '.join(found[:3])}), not a vLLM config: pass the "
            f"directory holding it as the model (postinit resolve {folder}); --config takes vLLM's settings "
            "(tensor-parallel-size: 2, ...)", value=name)


def load_config_file(path: str | Path) -> dict[str, Any]:
    """Load a JSON/YAML config file into the nested ``VllmConfig``-shaped input dict."""
    loaded = read_config_file(path)
    if loaded.nested is not None:
        return loaded.nested
    from postinit.schema.loaders.argv import parse_vllm_args

    assert loaded.argv is not None
    text = Path(loaded.path).read_text(encoding="utf-8")
    try:
        return parse_vllm_args(loaded.argv).config
    except UnknownFlagError as exc:
        flag = str(exc.value or "").lstrip("-")
        line = None
        for candidate in (flag, flag.replace("-", "_"), flag.removeprefix("no-")):
            line = line or _key_line(text, candidate)
        where = f"{loaded.path}:{line}" if line else loaded.path
        raise UnknownFlagError(f"{where}: {exc.message}", value=exc.value) from None
    except InputError as exc:
        raise type(exc)(f"{loaded.path}: {exc.message}", path=exc.path, value=exc.value) from None
