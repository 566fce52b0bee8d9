"""Model facts: a local ``config.json`` (directory or file) or the built-in catalog.

Nothing is ever downloaded. A catalog entry is one JSON file in
``postinit/schema/catalog/`` named after the model id with ``/`` → ``--``::

    {"id": "...", "note": "one line", "config": {...config.json...},
     "tokenizer_config": {"model_max_length": ...},          # optional
     "sentence_transformers": {"pooling_type": "CLS", ...}}  # optional

``hf_config`` is the config filtered to the keys the schema's ``HFConfig``
declares (all keys while that model is not importable); ``raw`` is the whole
config; ``hf_text_config`` is the text view (``text_config`` merged over the top
level, as vLLM's ``get_text_config()`` sees a multimodal config).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from postinit.errors import InvalidValueError, ModelNotFoundError, did_you_mean

__all__ = [
    "CATALOG_DIR",
    "CatalogEntry",
    "LoadedModel",
    "catalog_file_name",
    "list_catalog",
    "load_model",
]

CATALOG_DIR = Path(__file__).resolve().parent.parent / "catalog"
_TOKENIZER_KEYS = ("model_max_length", "tokenizer_class", "do_lower_case")
_ST_FACTS = {
    "pooling_type": "st_pooling_type",
    "normalize": "st_normalize",
    "max_seq_length": "st_max_seq_length",
    "do_lower_case": "st_do_lower_case",
}
"""sentence-transformers facts (modules.json, sentence_bert_config.json) -> HFConfig fields."""
_TEXT_CONFIG_KEYS = ("text_config", "thinker_config", "llm_config", "language_config")


@dataclass(frozen=True)
class CatalogEntry:
    """One built-in model: id, architecture, model type, context length and a note."""

    id: str
    architecture: str | None
    model_type: str | None
    max_position_embeddings: int | None
    note: str


@dataclass
class LoadedModel:
    """The facts of one model, with where each came from."""

    name: str
    hf_config: dict[str, Any]
    raw: dict[str, Any]
    hf_text_config: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    path: str | None = None
    tokenizer_config: dict[str, Any] | None = None
    sentence_transformers: dict[str, Any] | None = None
    note: str = ""

    @property
    def architecture(self) -> str | None:
        """The first entry of ``architectures``, if any."""
        archs = self.raw.get("architectures") or []
        return str(archs[0]) if archs else None


def catalog_file_name(model_id: str) -> str:
    """``meta-llama/Llama-3.1-8B-Instruct`` → ``meta-llama--Llama-3.1-8B-Instruct.json``."""
    return model_id.replace("/", "--") + ".json"


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidValueError(f"{path}: cannot read: {exc}", value=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidValueError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}", value=str(path)
        ) from None


def _read_object(path: Path) -> dict[str, Any]:
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InvalidValueError(
            f"{path}: expected a JSON object, got {type(data).__name__}", value=str(path)
        )
    return data


@cache
def _hf_fields() -> frozenset[str] | None:
    """Field names and aliases of the schema's ``HFConfig``, or None if it is not there yet."""
    try:
        module = importlib.import_module("postinit.schema.configs")
    except ImportError:
        return None
    cls = getattr(module, "HFConfig", None)
    fields = getattr(cls, "__pydantic_fields__", None)
    if not isinstance(fields, dict):
        return None
    names = set(fields)
    names |= {a for info in fields.values() if isinstance(a := getattr(info, "alias", None), str)}
    return frozenset(names)


def _filter(config: dict[str, Any]) -> dict[str, Any]:
    keep = _hf_fields()
    return dict(config) if keep is None else {k: v for k, v in config.items() if k in keep}


ATTRIBUTE_MAPS: dict[str, dict[str, str]] = {
    "whisper": {"num_key_value_heads": "encoder_attention_heads", "num_attention_heads": "encoder_attention_heads",
                "hidden_size": "d_model"},
}
"""Transformers config classes' ``attribute_map`` (alias -> config.json key) for model types without the
standard names; vLLM reads e.g. ``hf_text_config.num_attention_heads`` through it (transformers 4.57.1)."""


def _aliases(config: dict[str, Any]) -> dict[str, str]:
    """alias -> config.json key for the aliases of ``config``'s model type that config.json does not set."""
    amap = ATTRIBUTE_MAPS.get(str(config.get("model_type")), {})
    return {alias: key for alias, key in amap.items() if alias not in config and key in config}


def _with_aliases(config: dict[str, Any]) -> dict[str, Any]:
    return {**config, **{alias: config[key] for alias, key in _aliases(config).items()}}


def _text_view(raw: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    for key in _TEXT_CONFIG_KEYS:
        sub = raw.get(key)
        if isinstance(sub, dict):
            top = {k: v for k, v in raw.items() if k != key}
            return {**top, **sub}, key
    return dict(raw), None


def _build(
    name: str,
    raw: dict[str, Any],
    origin: str,
    path: str | None,
    tokenizer: dict[str, Any] | None,
    st: dict[str, Any] | None,
    tokenizer_origin: str | None,
    st_origin: str | None,
    note: str = "",
) -> LoadedModel:
    text, text_key = _text_view(raw)
    aliases, text_aliases = _aliases(raw), _aliases(text)
    hf = _filter(_with_aliases(raw))
    text = _with_aliases(text)
    sources = {f"hf_config.{k}": f"{origin}:{aliases.get(k, k)}" for k in hf}
    # facts of the model directory beside config.json, which vLLM reads from its own files
    beside: dict[str, tuple[Any, str]] = {}
    for key, field_name in _ST_FACTS.items():
        if st and key in st:
            beside[field_name] = (st[key], f"{st_origin}:{key}")
    if tokenizer and "model_max_length" in tokenizer:
        beside["tokenizer_model_max_length"] = (tokenizer["model_max_length"], f"{tokenizer_origin}:model_max_length")
    for field_name, (value, where) in _filter({k: v for k, v in beside.items()}).items():
        hf[field_name] = value
        sources[f"hf_config.{field_name}"] = where
    nested = raw.get(text_key, {}) if text_key else {}
    for key in _filter(text):
        real = text_aliases.get(key, key)
        where = f"{text_key}.{real}" if real in nested else real
        sources[f"hf_text_config.{key}"] = f"{origin}:{where}"
    for key in tokenizer or {}:
        sources[f"tokenizer_config.{key}"] = f"{tokenizer_origin}:{key}"
    for key in st or {}:
        sources[f"sentence_transformers.{key}"] = f"{st_origin}:{key}"
    return LoadedModel(
        name=name,
        hf_config=hf,
        raw=raw,
        hf_text_config=_filter(text),
        sources=sources,
        path=path,
        tokenizer_config=tokenizer,
        sentence_transformers=st,
        note=note,
    )


# --------------------------------------------------------------------------- local


_POOLING_MODES = (
    ("pooling_mode_cls_token", "CLS"),
    ("pooling_mode_mean_tokens", "MEAN"),
    ("pooling_mode_lasttoken", "LAST"),
    ("pooling_mode_max_tokens", "MAX"),
)


def _sentence_transformers(directory: Path) -> tuple[dict[str, Any] | None, str | None]:
    """Pooling type / normalize from ``modules.json``, max_seq_length from ``sentence_bert_config.json``."""
    facts: dict[str, Any] = {}
    origin: str | None = None
    modules_file = directory / "modules.json"
    if modules_file.is_file():
        modules = _read_json(modules_file)
        origin = str(modules_file)
        if isinstance(modules, list):
            for module in modules:
                if not isinstance(module, dict):
                    continue
                kind = str(module.get("type", ""))
                if kind.endswith("Normalize"):
                    facts["normalize"] = True
                if kind.endswith("Pooling"):
                    pooling_file = directory / str(module.get("path", "")) / "config.json"
                    if pooling_file.is_file():
                        pooling = _read_object(pooling_file)
                        for key, mode in _POOLING_MODES:
                            if pooling.get(key):
                                facts["pooling_type"] = mode
                                break
            facts.setdefault("normalize", False)
    bert_file = directory / "sentence_bert_config.json"
    if bert_file.is_file():
        bert = _read_object(bert_file)
        origin = origin or str(bert_file)
        for key in ("max_seq_length", "do_lower_case"):
            if key in bert:
                facts[key] = bert[key]
    return (facts or None), origin


def _load_local(name: str, config_file: Path) -> LoadedModel:
    raw = _read_object(config_file)
    directory = config_file.parent
    tokenizer: dict[str, Any] | None = None
    tokenizer_file = directory / "tokenizer_config.json"
    if tokenizer_file.is_file():
        tok = _read_object(tokenizer_file)
        tokenizer = {k: tok[k] for k in _TOKENIZER_KEYS if k in tok}
    st, st_origin = _sentence_transformers(directory)
    return _build(
        name,
        raw,
        str(config_file),
        str(directory),
        tokenizer,
        st,
        str(tokenizer_file),
        st_origin,
    )


# --------------------------------------------------------------------------- catalog


@cache
def _catalog_ids() -> dict[str, Path]:
    ids: dict[str, Path] = {}
    for file in sorted(CATALOG_DIR.glob("*.json")):
        ids[file.stem.replace("--", "/")] = file
    return ids


def _load_catalog(model_id: str, file: Path) -> LoadedModel:
    entry = _read_object(file)
    config = entry.get("config")
    if not isinstance(config, dict):
        raise InvalidValueError(f"{file}: a catalog entry needs a 'config' object", value=str(file))
    origin = f"catalog/{file.name}"
    tokenizer = entry.get("tokenizer_config")
    st = entry.get("sentence_transformers")
    return _build(
        model_id,
        config,
        origin,
        None,
        tokenizer if isinstance(tokenizer, dict) else None,
        st if isinstance(st, dict) else None,
        f"{origin}:tokenizer_config",
        f"{origin}:sentence_transformers",
        note=str(entry.get("note", "")),
    )


def load_model(name_or_path: str, *, catalog_only: bool = False) -> LoadedModel:
    """Load a model's facts from a local dir/``config.json`` or the built-in catalog.

    ``catalog_only=True`` never touches the file system (the HTTP service uses it).
    """
    candidate = Path(name_or_path).expanduser()
    if catalog_only:
        return _load_catalog_id(name_or_path)
    if candidate.is_dir():
        config_file = candidate / "config.json"
        if config_file.is_file():
            return _load_local(name_or_path, config_file)
        raise ModelNotFoundError(
            f"model directory '{name_or_path}' has no config.json", value=name_or_path
        )
    if candidate.is_file():
        if candidate.suffix != ".json":
            raise ModelNotFoundError(
                f"model path '{name_or_path}' is a file but not a config.json", value=name_or_path
            )
        return _load_local(name_or_path, candidate)
    return _load_catalog_id(name_or_path)


def _load_catalog_id(name_or_path: str) -> LoadedModel:
    ids = _catalog_ids()
    file = ids.get(name_or_path)
    if file is None:
        # case-insensitive match of the id
        lower = {k.lower(): k for k in ids}
        hit = lower.get(name_or_path.lower())
        file = ids[hit] if hit else None
        if hit:
            name_or_path = hit
    if file is None:
        hint = did_you_mean(name_or_path, ids)
        raise ModelNotFoundError(
            f"model '{name_or_path}' is neither a local directory with config.json nor in the built-in catalog.{hint} See `list_catalog()` for the ids; postinit never downloads.",
            value=name_or_path,
        )
    return _load_catalog(name_or_path, file)


def list_catalog() -> list[CatalogEntry]:
    """Every built-in model, sorted by id."""
    entries: list[CatalogEntry] = []
    for model_id, file in _catalog_ids().items():
        model = _load_catalog(model_id, file)
        text = model.hf_text_config if _hf_fields() is None else _text_view(model.raw)[0]
        archs = model.raw.get("architectures") or []
        mpe = text.get("max_position_embeddings")
        entries.append(
            CatalogEntry(
                id=model_id,
                architecture=str(archs[0]) if archs else None,
                model_type=model.raw.get("model_type"),
                max_position_embeddings=mpe if isinstance(mpe, int) else None,
                note=model.note,
            )
        )
    return entries
