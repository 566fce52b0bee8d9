"""Model facts: a local ``config.json`` (directory or file), the built-in catalog, or inline content.

All three go through one builder (:func:`load_model`), so the same config.json
gives the same facts however it arrives. Nothing is ever downloaded, and with
``allow_files=False`` (the HTTP service) nothing is read from the file system
but the built-in catalog: a catalog id is matched exactly, or case-insensitively
normalised to the catalog's spelling. A catalog entry is one JSON file in
``postinit/schema/catalog/`` named after the model id with ``/`` → ``--``::

    {"id": "...", "note": "one line", "config": {...config.json...},
     "tokenizer_config": {"model_max_length": ...},          # optional
     "sentence_transformers": {"pooling_type": "CLS", ...}}  # optional

``hf_config`` is the config with the keys the schema's ``HFConfig`` declares
and every other key under ``other`` (kept as given, as transformers keeps
unknown keys as attributes); ``raw`` is the whole config; ``hf_text_config`` is the text view (``text_config`` merged over the top
level, as vLLM's ``get_text_config()`` sees a multimodal config).
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from postinit.errors import InvalidValueError, did_you_mean, show
from postinit.schema.configs import hf_size_problem
from postinit.schema.errors import ModelNotFoundError
from postinit.schema.limits import plain_copy

__all__ = [
    "CATALOG_DIR",
    "CatalogEntry",
    "LoadedModel",
    "catalog_file_name",
    "catalog_id",
    "list_catalog",
    "load_model",
    "standardized_rope_override",
    "with_hf_overrides",
]

CATALOG_DIR = Path(__file__).resolve().parent.parent / "catalog"
_TOKENIZER_KEYS = ("model_max_length", "tokenizer_class", "do_lower_case")
_SPARSE_ATTENTION_FILE = "sparse_attention_config.json"
"""The file beside config.json that vLLM's dual-chunk attention reads (weight_utils.get_sparse_attention_config)."""
MAX_DIR_JSON_FILES = 1000
"""How many *.json names a model directory may hold (a request's cost stays bounded; a larger directory is refused
rather than listed in part, since which names a partial listing keeps is the file system's order)."""
MAX_DIR_SAFETENSORS_FILES = 1000
"""How many *.safetensors files a model directory may hold for postinit to read their headers
(``dir_checkpoint_has_lm_head``; a larger directory is refused, like one of too many *.json files)."""
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


MAX_FILE_BYTES = 8 << 20
"""A model file (config.json, tokenizer_config.json, ...) larger than this is refused."""


def _read_json(path: Path) -> Any:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidValueError(f"{path}: cannot read: {_reason(exc)}", value=str(path)) from None
    if len(data) > MAX_FILE_BYTES:
        raise InvalidValueError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB; not a config.json",
                                value=str(path))
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidValueError(f"{path}: not UTF-8 text", value=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InvalidValueError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}", value=str(path)
        ) from None
    except RecursionError:
        raise InvalidValueError(f"{path}: JSON nested too deeply", value=str(path)) from None


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
    """The declared keys of ``config`` (all keys while the schema is not importable)."""
    keep = _hf_fields()
    return dict(config) if keep is None else {k: v for k, v in config.items() if k in keep}


def _with_other(config: dict[str, Any]) -> dict[str, Any]:
    """The declared keys of ``config``, plus every other key under ``other``."""
    keep = _hf_fields()
    if keep is None:
        return dict(config)
    out = {k: v for k, v in config.items() if k in keep and k != "other"}
    other = {k: v for k, v in config.items() if k not in keep or k == "other"}
    if other:
        out["other"] = other
    return out


ATTRIBUTE_MAPS: dict[str, dict[str, str]] = {
    "whisper": {"num_key_value_heads": "encoder_attention_heads", "num_attention_heads": "encoder_attention_heads",
                "hidden_size": "d_model"},
    "mpt": {"num_attention_heads": "n_heads", "hidden_size": "d_model", "num_hidden_layers": "n_layers"},
    "dbrx": {"num_attention_heads": "n_heads", "hidden_size": "d_model", "num_hidden_layers": "n_layers",
             "max_position_embeddings": "max_seq_len"},
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
    patch: bool = True,
    sparse: tuple[dict[str, Any], str] | None = None,
    json_files: list[str] | None = None,
    lm_head: bool | None = None,
) -> LoadedModel:
    raw = plain_copy(raw, origin)
    if patch:
        _patch_rope(raw)  # get_config patches rope scaling as it loads config.json
    problem = hf_size_problem(raw, origin)
    if problem is not None:
        raise InvalidValueError(problem[1], path=problem[0], value=None)
    tokenizer = plain_copy(tokenizer, "tokenizer_config") if tokenizer is not None else None
    text, text_key = _text_view(raw)
    aliases, text_aliases = _aliases(raw), _aliases(text)
    hf = _with_other(_with_aliases(raw))
    text = _with_aliases(text)
    sources = {f"hf_config.{k}": f"{origin}:{aliases.get(k, k)}" for k in hf if k != "other"}
    if "other" in hf:
        sources["hf_config.other"] = f"{origin}:(the keys resolution does not read)"
    # facts of the model directory beside config.json, which vLLM reads from its own files
    beside: dict[str, tuple[Any, str]] = {}
    for key, field_name in _ST_FACTS.items():
        if st and key in st:
            beside[field_name] = (st[key], f"{st_origin}:{key}")
    if tokenizer and "model_max_length" in tokenizer:
        beside["tokenizer_model_max_length"] = (tokenizer["model_max_length"], f"{tokenizer_origin}:model_max_length")
    if sparse is not None:
        beside["dir_sparse_attention_config"] = (plain_copy(sparse[0], "sparse_attention_config"), sparse[1])
    if json_files is not None and path is not None:
        beside["dir_json_files"] = (json_files, f"{path}/*.json")
    if lm_head is not None and path is not None:
        beside["dir_checkpoint_has_lm_head"] = (lm_head, f"{path}/*.safetensors")
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
        hf_text_config=_with_other(text),
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


def _sentence_transformers(directory: Path, consulted: list[tuple[Path, _Stat]] | None = None) -> tuple[
        dict[str, Any] | None, str | None]:
    """Pooling type / normalize from ``modules.json``, max_seq_length from ``sentence_bert_config.json``.

    ``consulted`` gets the pooling modules' config files this looked for (which ``modules.json`` names), each with
    its :func:`_stat` taken before it is read."""
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
                    if consulted is not None:
                        consulted.append((pooling_file, _stat(pooling_file)))
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


_Stat = tuple[int, int, int, int] | None
"""A file's identity and version as the local cache compares it: inode, size, mtime and ctime (ns); None: absent."""
_LOCAL: dict[tuple[str, str], tuple[tuple[tuple[Path, _Stat], ...], LoadedModel]] = {}
"""Models loaded from local files, by the name given and the config file: the files the load consulted (each
with its :func:`_stat` when it was read) and the facts. A hit is checked against the files every time."""
_LOCAL_MAX = 64


def _stat(path: Path) -> _Stat:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _fixed_files(config_file: Path) -> tuple[Path, ...]:
    """The files a local load reads or looks for whatever their content says (the additions are reported by the
    readers: modules.json's pooling modules by :func:`_sentence_transformers`, the *.safetensors files whose headers
    :func:`_checkpoint_has_lm_head` reads), and the directory itself, whose *.json and *.safetensors names the load
    lists: a file added or removed there changes its mtime."""
    directory = config_file.parent
    return (config_file, directory, directory / "tokenizer_config.json", directory / "modules.json",
            directory / "sentence_bert_config.json", directory / _SPARSE_ATTENTION_FILE)


def _load_local(name: str, config_file: Path) -> LoadedModel:
    """A local model's facts, read again only when a file the last read consulted changed (by inode, size,
    mtime or ctime) or appeared or vanished: vLLM reads the files at every start; a library answering many
    requests for one model directory parses them once (a bounded cache; callers copy before changing anything,
    as with the catalog's entries)."""
    key = (name, str(config_file))
    hit = _LOCAL.get(key)
    if hit is not None and all(_stat(p) == st for p, st in hit[0]):
        return hit[1]
    fixed = _fixed_files(config_file)
    before = [(p, _stat(p)) for p in fixed]  # before reading: a change while reading is seen next time
    consulted: list[tuple[Path, _Stat]] = []
    model = _read_local(name, config_file, consulted)
    seen = (*before, *consulted)
    if len(_LOCAL) >= _LOCAL_MAX:
        _LOCAL.clear()
    _LOCAL[key] = (seen, model)
    return model


def _listed(directory: Path, pattern: str, limit: int, why: str) -> list[Path]:
    """The directory's files matching ``pattern``, sorted; more than ``limit`` of them is refused in one line
    (which ones a capped listing kept would be the file system's order), ``why`` saying what vLLM looks for."""
    files = sorted(itertools.islice(directory.glob(pattern), limit + 1))
    if len(files) > limit:
        raise InvalidValueError(f"{directory}: more than {limit} {pattern} files; postinit {why}", value=str(directory))
    return files


def _checkpoint_has_lm_head(directory: Path, consulted: list[tuple[Path, _Stat]] | None = None) -> bool | None:
    """Whether a tensor of the directory's ``*.safetensors`` files is named ``*lm_head.weight``, from their headers
    (vLLM's checkpoint_has_lm_head over _read_safetensors_metadata_in_dir, vllm/transformers_utils/config.py);
    None: no safetensors file, or a header that cannot be read. ``consulted`` gets each file read, with its stat
    (a header rewritten in place leaves the directory's mtime as it was)."""
    files = _listed(directory, "*.safetensors", MAX_DIR_SAFETENSORS_FILES,
                    f"reads the headers of at most {MAX_DIR_SAFETENSORS_FILES} (vLLM looks among them for an "
                    "lm_head.weight)")
    names: list[str] = []
    for file in files:
        if consulted is not None:
            consulted.append((file, _stat(file)))  # before reading: a change while reading is seen next time
        try:
            with open(file, "rb") as f:
                size = struct.unpack("<Q", f.read(8))[0]
                if size > MAX_FILE_BYTES:
                    return None
                header = json.loads(f.read(size).decode("utf-8"))
        except (OSError, ValueError, struct.error):
            return None
        if not isinstance(header, dict):
            return None
        names.extend(str(k) for k in header)
    if not names:
        return None
    return any(n.endswith("lm_head.weight") for n in names)


def _read_local(name: str, config_file: Path, consulted: list[tuple[Path, _Stat]] | None = None) -> LoadedModel:
    raw = _read_object(config_file)
    directory = config_file.parent
    tokenizer: dict[str, Any] | None = None
    tokenizer_file = directory / "tokenizer_config.json"
    if tokenizer_file.is_file():
        tok = _read_object(tokenizer_file)
        tokenizer = {k: tok[k] for k in _TOKENIZER_KEYS if k in tok}
    st, st_origin = _sentence_transformers(directory, consulted)
    sparse_file = directory / _SPARSE_ATTENTION_FILE
    sparse = (_read_object(sparse_file), str(sparse_file)) if sparse_file.is_file() else None
    json_files = [p.name for p in _listed(directory, "*.json", MAX_DIR_JSON_FILES,
                                          f"lists at most {MAX_DIR_JSON_FILES} (vLLM looks among them for a "
                                          "quantization method's config file)")]
    return _build(
        name,
        raw,
        str(config_file),
        str(directory),
        tokenizer,
        st,
        str(tokenizer_file),
        st_origin,
        sparse=sparse,
        json_files=json_files,
        lm_head=_checkpoint_has_lm_head(directory, consulted),
    )


# --------------------------------------------------------------------------- catalog


@cache
def _catalog_ids() -> dict[str, Path]:
    ids: dict[str, Path] = {}
    for file in sorted(CATALOG_DIR.glob("*.json")):
        ids[file.stem.replace("--", "/")] = file
    return ids


@cache
def _load_catalog(model_id: str, file: Path) -> LoadedModel:
    """A catalog entry's facts, read once per process (callers copy before changing anything)."""
    return _read_catalog(model_id, file)


def _read_catalog(model_id: str, file: Path) -> LoadedModel:
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


def load_model(
    name: str | None = None,
    *,
    config_json: Mapping[str, Any] | None = None,
    tokenizer_config_json: Mapping[str, Any] | None = None,
    allow_files: bool = True,
    origin: str = "config_json",
) -> LoadedModel:
    """A model's facts from inline content, a local dir/``config.json``, or the built-in catalog.

    ``config_json`` (a config.json's content, optionally with ``tokenizer_config_json``)
    wins over ``name``, which then only names the model. ``allow_files=False`` never
    touches the file system: ``name`` must be a catalog id (the HTTP service).
    """
    if config_json is not None:
        if not isinstance(config_json, Mapping):
            raise InvalidValueError(f"{origin}: a config.json is a JSON object, got {type(config_json).__name__}",
                                    path=origin, value=None)
        tokenizer = None
        if tokenizer_config_json is not None:
            if not isinstance(tokenizer_config_json, Mapping):
                raise InvalidValueError("tokenizer_config_json: a JSON object is expected, got "
                                        f"{type(tokenizer_config_json).__name__}", path="tokenizer_config_json")
            tokenizer = {k: tokenizer_config_json[k] for k in _TOKENIZER_KEYS if k in tokenizer_config_json}
        raw = dict(config_json)
        label = name or str(raw.get("_name_or_path") or "") or "inline-config"
        return _build(label, raw, origin, None, tokenizer, None, "tokenizer_config_json", None)
    if name is None:
        raise ModelNotFoundError("no model given: name a catalog id or a directory, or send config_json",
                                 advice=CATALOG_ADVICE)
    if allow_files:
        candidate = Path(name).expanduser()
        try:
            is_dir, is_file = candidate.is_dir(), candidate.is_file()
        except (OSError, ValueError) as e:  # ENAMETOOLONG, a NUL byte, ...
            raise ModelNotFoundError(f"model {show(name)} is not a readable path ({_reason(e)}) "
                                     "nor a catalog id", value=None, advice=CATALOG_ADVICE) from None
        if is_dir:
            config_file = candidate / "config.json"
            if config_file.is_file():
                return _load_local(name, config_file)
            raise ModelNotFoundError(f"model directory {show(name)} has no config.json", value=name)
        if is_file:
            if candidate.suffix != ".json":
                raise ModelNotFoundError(f"model path {show(name)} is a file but not a config.json", value=name)
            return _load_local(name, candidate)
    return _load_catalog_id(name)


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or type(error).__name__


CATALOG_ADVICE = {
    "library": "The catalog ids: postinit.schema.loaders.list_catalog(); postinit never downloads.",
    "cli": "The catalog ids: `postinit models`; or pass a directory holding config.json. postinit never downloads.",
    "http": "The catalog ids: GET /v1/models; or send the model's config.json as config_json.",
}
"""What to do about a model postinit cannot find, per face (:meth:`PostinitError.for_face`)."""


def catalog_id(name: str) -> str | None:
    """The catalog's spelling of ``name`` (matched exactly, else case-insensitively), or None."""
    ids = _catalog_ids()
    if name in ids:
        return name
    return _lower_ids().get(name.lower())


@cache
def _lower_ids() -> dict[str, str]:
    return {k.lower(): k for k in _catalog_ids()}


def _load_catalog_id(name: str) -> LoadedModel:
    found = catalog_id(name)
    if found is None:
        hint = did_you_mean(name, _catalog_ids()) if len(name) <= 256 else ""
        raise ModelNotFoundError(
            f"model {show(name)} is neither a local directory with config.json nor in the built-in catalog.{hint}",
            value=name if len(name) <= 256 else None, advice=CATALOG_ADVICE,
        )
    return _load_catalog(found, _catalog_ids()[found])


def list_catalog() -> list[CatalogEntry]:
    """Every built-in model, sorted by id (the files are read once per process)."""
    return list(_catalog_entries())


@cache
def _catalog_entries() -> tuple[CatalogEntry, ...]:
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
    return tuple(entries)


# --------------------------------------------------------------------------- hf_overrides


_PLAIN_DICT_KEYS = frozenset({"quantization_config", "compression_config", "rope_scaling"})
"""config.json objects transformers keeps as plain dicts (not nested ``PretrainedConfig`` objects)."""


def _patch_rope(config: dict[str, Any]) -> None:
    """vLLM's ``patch_rope_scaling`` on config.json's content: a legacy ``type`` also becomes ``rope_type``, ``su``
    is ``longrope``, ``mrope`` is ``default`` (the text sub-config too)."""
    for key in _TEXT_CONFIG_KEYS:
        if isinstance(config.get(key), dict):
            _patch_rope(config[key])
    rope = config.get("rope_scaling")
    if not isinstance(rope, dict):
        return
    if "rope_type" not in rope and "type" in rope:
        rope["rope_type"] = rope["type"]
    kind = rope.get("rope_type")
    if kind == "su":
        rope["rope_type"] = "longrope"
    elif kind == "mrope" and "mrope_section" in rope:
        rope["rope_type"] = "default"


_ROPE_ORIGINAL_LEN_TYPES = ("llama3", "yarn", "longrope")
"""Rope types whose parameters carry the pretraining length (transformers' ``standardize_rope_params``)."""


def standardized_rope_override(overrides: Mapping[str, Any], raw: Mapping[str, Any]) -> dict[str, Any]:
    """``hf_overrides`` with a dict-valued ``rope_scaling`` as transformers 5 leaves it once set on the config.

    vLLM 0.34.0 sets a dict-valued override with ``setattr`` after loading (``ModelConfig._apply_dict_overrides``,
    vllm/config/model.py:570-585); transformers' ``rope_scaling`` setter (transformers/configuration_utils.py:
    721-728) makes the very dict the config's ``rope_parameters`` and standardizes it in place
    (``standardize_rope_params``, transformers/modeling_rope_utils.py:805-858): ``rope_type`` from a legacy
    ``type`` (else ``default``), ``rope_theta`` (the config's attribute, which transformers 5 configs no longer
    keep: None), and for llama3 / yarn / longrope the pretraining length (the config's
    ``original_max_position_embeddings`` if it has one, else a given one, else ``max_position_embeddings``).
    Parameters nested by layer type get the same per layer. The legacy ``su`` / ``mrope`` names are not patched
    here (vLLM patches them before the dict overrides). Not modelled: a model class whose config keeps
    ``rope_theta`` or ``partial_rotary_factor`` as attributes (remote code) or has another default rope type."""
    rope = overrides.get("rope_scaling")
    if not isinstance(rope, Mapping) or not rope:
        return dict(overrides)
    params: dict[str, Any] = json.loads(json.dumps(rope))
    layer_types = raw.get("layer_types")
    labels: list[Any] = layer_types if isinstance(layer_types, list) else []
    nested = [k for k in params if k in labels]
    original = raw.get("original_max_position_embeddings")

    def one(p: dict[str, Any], *, overwrite: bool) -> None:
        p.setdefault("rope_type", p.get("type", "default"))
        p.setdefault("rope_theta", None)
        if p["rope_type"] in _ROPE_ORIGINAL_LEN_TYPES:
            if overwrite and "original_max_position_embeddings" in raw:
                p["original_max_position_embeddings"] = original
            else:
                p.setdefault("original_max_position_embeddings", raw.get("max_position_embeddings"))

    if nested:
        for key in nested:
            if isinstance(params[key], dict):
                one(params[key], overwrite=False)
    else:
        one(params, overwrite=True)
    return {**overrides, "rope_scaling": params}


def _update_nested(target: dict[str, Any], updates: Mapping[str, Any]) -> None:
    """``ModelConfig._update_nested``: dicts merge key by key, any other value replaces."""
    for key, value in updates.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _update_nested(target[key], value)
        else:
            target[key] = value


def _origin(sources: Mapping[str, str], prefix: str) -> str | None:
    for key, where in sources.items():
        if key.startswith(prefix):
            return where.rsplit(":", 1)[0]
    return None


def with_hf_overrides(model: LoadedModel, overrides: Mapping[str, Any] | None, *, rope_scaling: Any = None,
                      rope_theta: Any = None, flag: str = "hf_overrides") -> LoadedModel:
    """The model's facts with ``hf_overrides`` applied as ``ModelConfig.__post_init__`` applies them.

    Flat values (and the seed's ``--rope-scaling`` / ``--rope-theta``) go through ``config.update`` before vLLM
    patches rope scaling; dict values after it, unpatched: into a nested config (``text_config``, ...) key by
    key, otherwise set as they are (a ``rope_scaling`` with only the legacy ``type`` key stays without
    ``rope_type``, which vLLM's max-length check then indexes). ``flag`` names the input in the facts'
    provenance."""
    overrides = dict(overrides or {})
    if not overrides and not rope_scaling and rope_theta is None:
        return model
    raw = json.loads(json.dumps(model.raw))
    flat = {k: v for k, v in overrides.items() if not isinstance(v, Mapping)}
    nested = {k: v for k, v in overrides.items() if isinstance(v, Mapping)}
    if rope_scaling:
        flat["rope_scaling"] = dict(rope_scaling)
    if rope_theta is not None:
        flat["rope_theta"] = rope_theta
    raw.update(json.loads(json.dumps(flat)))
    _patch_rope(raw)
    for key, value in json.loads(json.dumps(nested)).items():
        target = raw.get(key)
        if isinstance(target, dict) and key.endswith("_config") and key not in _PLAIN_DICT_KEYS:
            _update_nested(target, value)
        else:
            raw[key] = value
    origin = _origin(model.sources, "hf_config.") or "config.json"
    built = _build(model.name, raw, origin, model.path, model.tokenizer_config, model.sentence_transformers,
                   _origin(model.sources, "tokenizer_config.") or "tokenizer_config.json",
                   _origin(model.sources, "sentence_transformers."), note=model.note, patch=False)
    changed = {*flat, *nested}
    sources = dict(built.sources)
    for key in sources:
        head = key.split(".", 2)
        if len(head) > 1 and head[0] in ("hf_config", "hf_text_config") and head[1] in changed:
            sources[key] = flag
    return LoadedModel(name=built.name, hf_config=built.hf_config, raw=built.raw, hf_text_config=built.hf_text_config,
                       sources=sources, path=built.path, tokenizer_config=built.tokenizer_config,
                       sentence_transformers=built.sentence_transformers, note=built.note)
