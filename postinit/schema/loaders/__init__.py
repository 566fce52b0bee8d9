"""Every way a user hands in a config: argv, config files, nested dicts, model facts."""

from __future__ import annotations

from postinit.schema.loaders.argv import (
    FLAGS,
    FlagSpec,
    ParsedArgs,
    human_readable_int,
    known_flags,
    parse_vllm_args,
)
from postinit.schema.loaders.files import ConfigFile, deep_merge, load_config_file, read_config_file
from postinit.schema.loaders.model import (
    CATALOG_DIR,
    CatalogEntry,
    LoadedModel,
    catalog_file_name,
    list_catalog,
    load_model,
)
from postinit.schema.loaders.nested import check_keys, format_validation_error

__all__ = [
    "CATALOG_DIR",
    "FLAGS",
    "CatalogEntry",
    "ConfigFile",
    "FlagSpec",
    "LoadedModel",
    "ParsedArgs",
    "catalog_file_name",
    "check_keys",
    "deep_merge",
    "format_validation_error",
    "human_readable_int",
    "known_flags",
    "list_catalog",
    "load_config_file",
    "load_model",
    "parse_vllm_args",
    "read_config_file",
]
