"""``ModelConfig.__post_init__``: what vLLM derives from the model's config.json (phase ``model_config``).

Every value here is computed from ``model_config.hf_config.*`` /
``model_config.hf_text_config.*`` facts (the loader records the config.json key
each came from), the user's ModelConfig fields, and ``platform.*`` / ``env.*``
facts. vLLM's model registry is data (``data/model-registry-d7fb10c57.json``:
vllm/model_executor/models/registry.py at d7fb10c57 and the model classes'
interface markers), loaded into :data:`REGISTRY` and :data:`SUFFIX_DEFAULTS`.

Not modelled (facts postinit does not have): the Transformers library's own
class list and ``is_backend_compatible()`` (an unregistered architecture is
assumed to be Transformers-compatible), ``auto_map`` remote code, the FLASHINFER
import check, TPU's ``check_max_model_len``, EAGLE configs' inner ``model``,
and HF config classes' own defaults for keys absent from config.json.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from postinit.engine import Outcome, Rule, RuleResult, Violation, make_rule, rule, sequence

__all__ = ["HEAD_DTYPE_READS", "INFO_READS", "REGISTRY", "SEED_POOLER_FIELDS", "SUFFIX_DEFAULTS", "SUPPORTED_ARCHS_ORDER",
           "ModelInfo", "dtype_name", "head_dtype_for", "model_info", "override_pooler_rule", "registry", "registry_of",
           "resolved_info"]

M = "model_config."
H = "model_config.hf_config."
T = "model_config.hf_text_config."
PHASE = "model_config"
SRC = "vllm/config/model.py ModelConfig"

_REGISTRY_FILE = "model-registry-d7fb10c57.json"
"""vLLM's model registry as data (``postinit/rules/data/``): every registered architecture in registration
order with the interfaces of the class it loads, and the architecture-suffix defaults."""


@dataclass(frozen=True)
class ModelInfo:
    """The ``_ModelInfo`` facts of one registered class (the interfaces a version's registry lists)."""

    generate: bool
    pooling: bool
    multimodal: bool
    hybrid: bool
    attention_free: bool
    inner_state: bool
    mamba_prefix_caching: bool
    pooling_type: str
    """The class's default pooling type (up to 0.11.1: one; 0.34.0: its ``seq_pooling_type``, STEP for a
    class whose token pooling is STEP)."""
    interfaces: frozenset[str] = frozenset()
    """Every interface the registry lists for the class (0.34.0 adds ``pp``, ``lora``, ``replayssm``, ...)."""
    attn_type: str = "decoder"
    """``_ModelInfo.attn_type`` (vLLM 0.34.0): ``decoder`` or ``encoder_only``."""
    seq_pooling_type: str | None = None
    """``_ModelInfo.default_seq_pooling_type`` (vLLM 0.34.0)."""
    tok_pooling_type: str | None = None
    """``_ModelInfo.default_tok_pooling_type`` (vLLM 0.34.0)."""
    error: str | None = None
    """Why the class could not be inspected where the registry was read (its module does not import):
    vLLM logs "Error in loading model architecture" and finds no class for it."""
    video_pruning_methods: tuple[str, ...] = ()
    """``_ModelInfo.supported_video_pruning_methods`` (vLLM 0.34.0): the video pruning methods the class
    implements (none: it checks none)."""
    class_name: str | None = None
    """``_ModelInfo.architecture`` where it is not the registered name: the class's own ``__name__`` (vLLM
    0.34.0's errors name it)."""


_INTERFACES = ("generate", "pooling", "multimodal", "hybrid", "attention_free", "inner_state",
               "mamba_prefix_caching")
_MORE_INTERFACES = ("pp", "lora", "replayssm", "transcription", "multimodal_encoder_tp_data", "noops",
                    "kv_cache_grouping", "raw_input_only", "mm_device_do_normalize", "hc_sp")
"""Interfaces a registry may list beyond the seed's seven (vLLM 0.34.0's ``_ModelInfo``)."""
_DEFAULT_CONVERTS: dict[str, tuple[str, ...]] = {"generate": (), "pooling": ("embed", "classify", "reward"),
                                                  "draft": ()}
"""vLLM's ``_RUNNER_CONVERTS`` up to 0.11.1 (a registry file may give its version's)."""


@dataclass(frozen=True)
class Registry:
    """A version's model registry (``version.model_registry``: a file of ``postinit/rules/data/``)."""

    classes: Mapping[str, ModelInfo]
    """Registered architecture -> its class's facts, in registration order."""
    suffixes: tuple[tuple[str, str, str], ...]
    """vLLM's ``_SUFFIX_TO_DEFAULTS``: ``(suffix, runner_type, convert_type)``, first match wins."""
    runner_converts: Mapping[str, tuple[str, ...]]
    """vLLM's ``_RUNNER_CONVERTS``: the converters that adapt a class to each runner."""


def _data(file: str) -> Any:
    """A JSON file of ``postinit/rules/data/`` (a version's registry, its config model types)."""
    return json.loads(resources.files("postinit.rules").joinpath("data", file).read_text("utf-8"))


def _load_registry(file: str = _REGISTRY_FILE) -> Registry:
    """Read and check a registry file (another version's: ``file``): known interfaces, runner and convert
    types, no duplicates."""
    raw = _data(file)
    classes: dict[str, ModelInfo] = {}
    known = set(_INTERFACES) | set(_MORE_INTERFACES)
    for entry in raw["architectures"]:
        name, interfaces = entry["architecture"], set(entry["interfaces"])
        if name in classes or not interfaces <= known:
            raise ValueError(f"{file}: {name}: duplicate, or unknown interfaces {sorted(interfaces - known)}")
        flags = {i: i in interfaces for i in _INTERFACES}
        seq, tok = entry.get("seq_pooling_type"), entry.get("tok_pooling_type")
        pooling_type = entry.get("pooling_type") or ("STEP" if tok == "STEP" else seq) or "LAST"
        classes[name] = ModelInfo(**flags, pooling_type=pooling_type, interfaces=frozenset(interfaces),
                                  attn_type=entry.get("attn_type", "decoder"), seq_pooling_type=seq,
                                  tok_pooling_type=tok, error=entry.get("error"),
                                  video_pruning_methods=tuple(entry.get("video_pruning_methods") or ()),
                                  class_name=entry.get("class"))
    converts = {k: tuple(v) for k, v in raw.get("runner_converts", _DEFAULT_CONVERTS).items()}
    suffixes = tuple((e["suffix"], e["runner_type"], e["convert_type"]) for e in raw["suffix_defaults"])
    all_converts = {cv for cvs in converts.values() for cv in cvs}
    if any(r not in ("generate", "pooling") or cv not in ("none", *all_converts) for _, r, cv in suffixes):
        raise ValueError(f"{file}: a suffix default names an unknown runner or convert type")
    return Registry(classes, suffixes, converts)


POOLING_CONVERTS = _DEFAULT_CONVERTS["pooling"]
_SEED = _load_registry()
REGISTRY, SUFFIX_DEFAULTS = _SEED.classes, _SEED.suffixes
"""Registered architecture -> :class:`ModelInfo` (in vLLM's registration order); vLLM's ``_SUFFIX_TO_DEFAULTS``:
``(suffix, runner_type, convert_type)``, first match wins (the seed's; a version's: :func:`registry_of`)."""
SUPPORTED_ARCHS_ORDER: tuple[str, ...] = tuple(REGISTRY)
"""``ModelRegistry.get_supported_archs()`` in registration order (vLLM's unsupported-architecture error lists
them so, golden t084-unknown-arch)."""
FLOAT16_UNSUPPORTED = frozenset({"gemma2", "gemma3", "gemma3_text", "plamo2", "glm4"})
DEEPSEEK_MLA_TYPES = frozenset(
    {"deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_mtp", "kimi_k2", "longcat_flash"}
)
MAX_LEN_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
NUM_EXPERT_KEYS = ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts")
_DTYPE_NAMES = {"half": "float16", "float16": "float16", "float": "float32", "float32": "float32",
                "bfloat16": "bfloat16"}


def model_info(arch: str) -> ModelInfo | None:
    """The registry flags of a registered architecture name, or None."""
    return REGISTRY.get(arch)


@functools.cache
def registry_of(file: str) -> Registry:
    """The registry a version names (``version.model_registry``: a file of ``postinit/rules/data/``)."""
    return _SEED if file == _REGISTRY_FILE else _load_registry(file)


def registry(file: str) -> Mapping[str, ModelInfo]:
    """The classes of the registry a version names, in registration order (the seed's is :data:`REGISTRY`)."""
    return registry_of(file).classes


_REG = "version.model_registry"


# ---------------------------------------------------------------------------- helpers


def _present(c: Mapping[str, Any]) -> bool:
    return c["model_config"] is True


def _archs(c: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(c[H + "architectures"] or ())


@functools.cache
def _match(arch: str, runner: str | None = None, convert: str | None = None,
           file: str = _REGISTRY_FILE) -> tuple[str, str, str] | None:
    """vLLM's ``try_match_architecture_defaults`` (pure over the version's suffix table: cached)."""
    for suffix, r, cv in registry_of(file).suffixes:
        if (runner is None or runner == r) and (convert is None or convert == cv) and arch.endswith(suffix):
            return suffix, r, cv
    return None


@functools.cache
def _normalize(arch: str, runner: str | None, convert: str | None, file: str = _REGISTRY_FILE) -> str:
    """vLLM's ``_normalize_arch``: an unregistered ``XFor<Task>`` maps to a registered ``XFor<Other>`` (cached)."""
    reg = registry_of(file)
    if arch in reg.classes:
        return arch
    hit = _match(arch, runner, convert, file)
    if hit:
        for repl, _, _ in reg.suffixes:
            base = arch.replace(hit[0], repl)
            if base in reg.classes:
                return base
    return arch


_BACKEND_READS = (M + "runner", H + "architectures", H + "text_config", *(T + k for k in NUM_EXPERT_KEYS), _REG)


def _num_experts(c: Mapping[str, Any]) -> int:
    for key in NUM_EXPERT_KEYS:
        value = c[T + key]
        if value is not None:
            return int(value[0]) if isinstance(value, (list, tuple)) else int(value)
    return 0


def _backend_cls(c: Mapping[str, Any]) -> str:
    """vLLM's ``_get_transformers_backend_cls``."""
    name = "Transformers" + ("MultiModal" if c[H + "text_config"] is not None else "")
    name += "MoE" if _num_experts(c) > 1 else ""
    hit = _match(_archs(c)[0], file=c[_REG])
    runner, task = (hit[1], hit[2]) if hit else (None, None)
    if c[M + "runner"] != "auto":
        runner = c[M + "runner"]
    if runner == "pooling" and task == "embed":
        return name + "EmbeddingModel"
    if runner == "pooling" and task == "classify":
        return name + "ForSequenceClassification"
    return name + "ForCausalLM"


_INSPECT_READS = (*_BACKEND_READS, M + "model_impl", H + "transformers_backend")


def _transformers_loadable(c: Mapping[str, Any]) -> bool:
    """The Transformers backend can load the first architecture: transformers has the class, or remote code
    provides an AutoModel (registry.py _try_resolve_transformers). Not looked up (None): assumed it can."""
    return c[H + "transformers_backend"] is not False


def _inspect(c: Mapping[str, Any], runner: str | None, convert: str | None) -> tuple[str, str] | None:
    """vLLM's ``inspect_model_cls``: (registered class name, architecture), None if unsupported."""
    archs = _archs(c)
    impl = c[M + "model_impl"]
    if not archs:
        return None
    if impl == "transformers":
        return (_backend_cls(c), _backend_cls(c)) if _transformers_loadable(c) else None
    if impl == "terratorch":
        return "Terratorch", "Terratorch"
    classes = registry(c[_REG])
    unregistered = all(a not in classes for a in archs)
    if unregistered and impl == "auto" and (convert or "none") == "none" and _transformers_loadable(c):
        return _backend_cls(c), _backend_cls(c)
    for arch in archs:
        name = _normalize(arch, runner, convert, c[_REG])
        if name in classes:
            return name, arch
    if unregistered and impl == "auto" and _transformers_loadable(c):
        return _backend_cls(c), _backend_cls(c)
    return None


def _info_of(c: Mapping[str, Any], runner: str | None, convert: str | None) -> ModelInfo | None:
    hit = _inspect(c, runner, convert)
    return registry(c[_REG]).get(hit[0]) if hit else None


def _st_pooling(c: Mapping[str, Any]) -> bool:
    """A sentence-transformers pooling config exists (vLLM's ``get_pooling_config``)."""
    return c[H + "st_pooling_type"] is not None


def dtype_name(text: str) -> str:
    """A dtype's canonical name (``half`` -> ``float16``), as vLLM's ``_STR_DTYPE_TO_TORCH_DTYPE`` maps it."""
    return _DTYPE_NAMES.get(text.lower(), text.lower())


def _torch(dtype: str) -> str:
    return f"torch.{dtype}"


def _config_dtype(c: Mapping[str, Any]) -> str:
    """vLLM's ``_find_dtype``: config dtype, text config, vision config, weights, else float32."""
    for path in (H + "dtype", H + "torch_dtype", T + "dtype", T + "torch_dtype"):
        if c[path]:
            return _DTYPE_NAMES.get(str(c[path]), str(c[path]))
    vision = c[H + "vision_config"] or {}
    found = vision.get("dtype") or vision.get("torch_dtype") or c[H + "weights_dtype"]
    return _DTYPE_NAMES.get(str(found), str(found)) if found else "float32"


_DTYPE_READS = (H + "dtype", H + "torch_dtype", T + "dtype", T + "torch_dtype", H + "vision_config",
                H + "weights_dtype")


# ---------------------------------------------------------------------------- config.json's model type


def config_model_types(file: str) -> frozenset[str]:
    """The model types a version's ``get_config`` loads without remote code (a file of ``postinit/rules/data/``,
    tests/golden/oracle/model_types_dump.py): transformers' config classes and vLLM's own."""
    raw = _data(file)
    return frozenset(raw["transformers_model_types"]) | frozenset(raw["vllm_model_types"])


UNKNOWN_MODEL_TYPE = (
    "The checkpoint you are trying to load has model type `{t}` but Transformers does not recognize this "
    "architecture. This could be because of an issue with the checkpoint, or because your version of Transformers "
    "is out of date.\n\nYou can update Transformers with the command `pip install --upgrade transformers`. If this "
    "does not work, and the checkpoint is very new, then there may not be a release version that supports this "
    "model yet. In this case, you can get the most up-to-date code by installing Transformers from source with the "
    "command `pip install git+https://github.com/huggingface/transformers.git`")
"""transformers' AutoConfig refusal of a model type it has no config class for (4.57 and 5.22 alike)."""


@rule(
    "model.model-type-known",
    title="config.json's model_type must be one transformers or vLLM has a config class for",
    phase=PHASE,
    kind="check",
    reads=("model_config", H + "model_type", H + "other"),
    source="vllm/transformers_utils/config.py get_config (vLLM's _CONFIG_REGISTRY, else "
    "AutoConfig.from_pretrained), called first in ModelConfig.__post_init__; ref 2.1",
    message="The checkpoint you are trying to load has model type `<t>` but Transformers does not recognize this "
    "architecture. ...",
)
def model_type_known(c: Mapping[str, Any], *,
                     known: frozenset[str] = config_model_types("config-model-types-d7fb10c57.json")) -> RuleResult:
    """A checkpoint newer than the installation's transformers (a Nemotron-H config at the seed, whose
    transformers 4.57 has no NemotronHConfig: golden y017) is refused before anything is derived; ``auto_map``
    remote code is loaded instead (when trusted)."""
    if not _present(c):
        return None
    model_type = c[H + "model_type"]
    if not isinstance(model_type, str) or not model_type or model_type in known or "auto_map" in (c[H + "other"] or {}):
        return None
    return Violation(UNKNOWN_MODEL_TYPE.format(t=model_type), error="ValueError",
                     hint="this vLLM's transformers has no config class for it: upgrade, or use a model it knows")


# ---------------------------------------------------------------------------- batch invariance, seed


@rule(
    "model.batch-invariant-eager",
    title="VLLM_BATCH_INVARIANT forces eager mode",
    phase=PHASE,
    kind="override",
    reads=("model_config", "env.VLLM_BATCH_INVARIANT"),
    writes=(M + "enforce_eager",),
    source=f"{SRC}.__post_init__ (vllm_is_batch_invariant); ref 2.1",
)
def batch_invariant_eager(c: Mapping[str, Any]) -> RuleResult:
    """Batch-invariant kernels do not run under CUDA graphs, so vLLM enables eager mode."""
    if _present(c) and c["env.VLLM_BATCH_INVARIANT"] != 0:
        return {M + "enforce_eager": True}
    return None


SEED_MESSAGE = (
    "The global random seed is set to 0. Since VLLM_ENABLE_V1_MULTIPROCESSING is set to False, "
    "this may affect the random state of the Python process that launched vLLM."
)


@rule(
    "model.seed-v1",
    title="V1 defaults the seed to 0",
    phase=PHASE,
    kind="default",
    reads=("model_config", M + "seed", "env.VLLM_USE_V1", "env.VLLM_ENABLE_V1_MULTIPROCESSING"),
    writes=(M + "seed",),
    source=f"{SRC}.__post_init__; ref 2.1",
)
def seed_v1(c: Mapping[str, Any]) -> RuleResult:
    """Without a common seed, tensor-parallel workers would sample different tokens.

    V1 runs workers in separate processes, so seeding there does not touch the user's process
    (unless VLLM_ENABLE_V1_MULTIPROCESSING=0, which vLLM warns about).
    """
    if not (_present(c) and c["env.VLLM_USE_V1"] and c[M + "seed"] is None):
        return None
    if not c["env.VLLM_ENABLE_V1_MULTIPROCESSING"]:
        return Outcome({M + "seed": 0}, message=SEED_MESSAGE, level="warning")
    return {M + "seed": 0}


# ---------------------------------------------------------------------------- simple HF-derived facts


def _fact(field: str, title: str, reads: tuple[str, ...], source: str, doc: str,
          value: Callable[[Mapping[str, Any]], Any]) -> Rule:
    """``model.<field>``: one ModelConfig value vLLM derives from config.json when it builds a model's config."""

    def derive(c: Mapping[str, Any]) -> RuleResult:
        return {M + field: value(c)} if _present(c) else None

    derive.__doc__ = doc
    return make_rule(derive, "model." + field.replace("_", "-"), title=title, phase=PHASE, kind="derive",
                     reads=("model_config", *reads), writes=(M + field,), source=source)


architectures = _fact(
    "architectures", "architectures from config.json", (H + "architectures",), f"{SRC}.architectures; ref 2.1.1",
    "The model's ``architectures`` list (empty when config.json has none).", _archs)

attention_chunk_size = _fact(
    "attention_chunk_size", "attention_chunk_size from the text config", (T + "attention_chunk_size",),
    f"{SRC}.__post_init__; ref 2.1.1",
    "Chunked local attention (e.g. Llama-4) is declared by the text config's attention_chunk_size.",
    lambda c: c[T + "attention_chunk_size"])

is_encoder_decoder = _fact(
    "is_encoder_decoder", "encoder-decoder flag from config.json", (H + "is_encoder_decoder", T + "is_encoder_decoder"),
    "vllm/transformers_utils/config.py is_encoder_decoder; ref 2.1.1",
    "A model is encoder-decoder when its config or its text config says so (Whisper).",
    lambda c: bool(c[H + "is_encoder_decoder"] or c[T + "is_encoder_decoder"]))

is_deepseek_mla = _fact(
    "is_deepseek_mla", "DeepSeek-style multi-head latent attention", (T + "model_type", T + "kv_lora_rank"),
    f"{SRC}.is_deepseek_mla; ref 2.1.1",
    "DeepSeek-V2/V3/V3.2, MTP, Kimi-K2 and LongCat-Flash use MLA when the text config has kv_lora_rank.",
    lambda c: c[T + "model_type"] in DEEPSEEK_MLA_TYPES and c[T + "kv_lora_rank"] is not None)

use_mla = _fact(
    "use_mla", "MLA unless VLLM_MLA_DISABLE", (M + "is_deepseek_mla", "env.VLLM_MLA_DISABLE"),
    f"{SRC}.use_mla; ref 2.1.1",
    "MLA models use the MLA attention path unless VLLM_MLA_DISABLE turns it off.",
    lambda c: bool(c[M + "is_deepseek_mla"] and not c["env.VLLM_MLA_DISABLE"]))

uses_mrope = _fact(
    "uses_mrope", "M-RoPE from rope_scaling.mrope_section", (H + "rope_scaling", T + "rope_scaling"),
    "vllm/transformers_utils/config.py uses_mrope; ref 2.1.1",
    "Multimodal rotary embeddings are declared by an ``mrope_section`` in rope_scaling.",
    lambda c: any("mrope_section" in (c[p] or {}) for p in (H + "rope_scaling", T + "rope_scaling")))

is_matryoshka = _fact(
    "is_matryoshka", "Matryoshka embeddings from config.json", (H + "matryoshka_dimensions", H + "is_matryoshka"),
    f"{SRC}.is_matryoshka; ref 2.1.1",
    "Matryoshka models declare their truncatable embedding dimensions in config.json.",
    lambda c: bool(c[H + "matryoshka_dimensions"]) or bool(c[H + "is_matryoshka"]))

config_updated = _fact(
    "config_updated", "try_verify_and_update_config has not run yet", (), f"{SRC}.__post_init__; ref 2.1",
    "ModelConfig starts with config_updated False so VllmConfig step 2 runs the model rules once.",
    lambda c: False)


# ---------------------------------------------------------------------------- runner, convert, architecture


#: vLLM's ``_RUNNER_TASKS`` (the deprecated ``--task`` values of each runner).
RUNNER_TASKS: Mapping[str, tuple[str, ...]] = {
    "generate": ("generate", "transcription"),
    "pooling": ("embedding", "embed", "classify", "score", "reward"),
}
_TASK_CONVERTS: Mapping[str, str] = {"embedding": "embed", "embed": "embed", "classify": "classify",
                                     "reward": "reward"}


def _default_pooling_task(c: Mapping[str, Any]) -> str:
    """vLLM's ``_get_default_pooling_task``: classify for a cross-encoder, else the suffix table's converter.

    vLLM asks the class for ``SupportsCrossEncoding``; every class that has it is a
    ``*ForSequenceClassification`` (native or ``as_seq_cls_model``), which is what this checks.
    """
    archs = _archs(c)
    if any(arch.endswith("ForSequenceClassification") for arch in archs):
        return "classify"
    for arch in archs:
        hit = _match(arch, "pooling", file=c[_REG])
        if hit:
            return hit[2]
    return "embed"


@rule(
    "model.task",
    title="the deprecated --task picks --runner and --convert",
    phase=PHASE,
    kind="override",
    reads=("model_config", M + "task", *_INSPECT_READS),
    writes=(M + "runner", M + "convert"),
    source=f"{SRC}.__post_init__ (self.task); ref 2.1.2",
    level="warning",
)
def task(c: Mapping[str, Any]) -> RuleResult:
    """A task names a runner (and for pooling tasks a converter); it replaces both options, whatever they said."""
    value = c[M + "task"]
    info = _info_of(c, None, None) if _present(c) and value is not None else None
    if info is None:
        return None
    generative, pooling = value in RUNNER_TASKS["generate"], value in RUNNER_TASKS["pooling"]
    runner, convert, hint = "auto", "auto", "Please remove this option."
    if info.generate and info.pooling:
        if generative or pooling:
            runner = "generate" if generative else "pooling"
            hint = (f"Please replace this option with `--runner {runner}` to continue using this model "
                    f"as a {'generative' if generative else 'pooling'} model.")
    elif info.generate or info.pooling:
        if generative:
            runner, hint = "generate", "Please remove this option"
        elif pooling:
            runner = "pooling"
            convert = _TASK_CONVERTS.get(value) or ("classify" if _default_pooling_task(c) == "classify" else "embed")
            hint = (f"Please replace this option with `--convert {convert}` to continue using this model "
                    "as a pooling model.")
    else:
        found = {"architectures": list(_archs(c)), "is_generative_model": False, "is_pooling_model": False}
        return Violation(f"The model should be a generative or pooling model when task is set to {value!r}. "
                         f"Found: {found}", error="AssertionError")
    message = ("The 'task' option has been deprecated and will be removed in v0.13.0 or v1.0, whichever comes "
               f"first. {hint}")
    return Outcome({M + "runner": runner, M + "convert": convert}, message=message)


def _default_runner(c: Mapping[str, Any]) -> str:
    """vLLM's ``_get_default_runner_type``."""
    if _st_pooling(c):
        return "pooling"
    info = _info_of(c, None, None)
    for arch in _archs(c):
        if arch in registry(c[_REG]) and info is not None:
            if info.pooling:
                return "pooling"
            if info.generate:
                return "generate"
        hit = _match(arch, file=c[_REG])
        if hit:
            return hit[1]
    return "generate"


RUNNER_MESSAGE = "Resolved `--runner auto` to `--runner {}`. Pass the value explicitly to silence this message."
CONVERT_MESSAGE = "Resolved `--convert auto` to `--convert {}`. Pass the value explicitly to silence this message."


@rule(
    "model.sentence-transformers-modules-found",
    title="A sentence-transformers checkpoint's modules.json is found (runner auto or pooling)",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "runner", M + "runner_type", H + "st_normalize"),
    source="vllm/transformers_utils/config.py get_pooling_config (cached), called by "
    f"{SRC}._get_default_runner_type and the pooler config init; ref 2.1.2",
    message="Found sentence-transformers modules configuration.",
    level="info",
)
def st_modules_found(c: Mapping[str, Any]) -> RuleResult:
    """vLLM looks for modules.json when it picks the runner (``--runner auto``) and when it builds the pooler
    config; postinit's loader records the file's ``normalize`` fact exactly when it was found."""
    if not _present(c) or c[H + "st_normalize"] is None:
        return None
    return Outcome.log() if c[M + "runner"] == "auto" or c[M + "runner_type"] == "pooling" else None


@rule(
    "model.sentence-transformers-pooling-found",
    title="... and its Pooling module's config",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "runner", M + "runner_type", H + "st_pooling_type"),
    after=("model.sentence-transformers-modules-found",),
    source="vllm/transformers_utils/config.py get_pooling_config; ref 2.1.2",
    message="Found pooling configuration.",
    level="info",
)
def st_pooling_found(c: Mapping[str, Any]) -> RuleResult:
    """A Pooling module whose config names a pooling mode (postinit's ``st_pooling_type``)."""
    if not _present(c) or c[H + "st_pooling_type"] is None:
        return None
    return Outcome.log() if c[M + "runner"] == "auto" or c[M + "runner_type"] == "pooling" else None


@rule(
    "model.sentence-transformers-tokenize-found",
    title="A sentence-transformers tokenize config (sentence_bert_config.json) is found",
    phase=PHASE,
    kind="check",
    reads=("model_config", H + "st_max_seq_length", H + "st_do_lower_case"),
    source="vllm/transformers_utils/config.py get_sentence_transformer_tokenizer_config (cached), read for the "
    f"max model len ({SRC}._get_encoder_config); ref 2.1.2",
    message="Found sentence-transformers tokenize configuration.",
    level="info",
)
def st_tokenize_found(c: Mapping[str, Any]) -> RuleResult:
    """The encoder config's ``max_seq_length`` caps the max model len (with ``do_lower_case`` beside it)."""
    if not _present(c) or (c[H + "st_max_seq_length"] is None and c[H + "st_do_lower_case"] is None):
        return None
    return Outcome.log()


@rule(
    "model.runner-type",
    title="runner_type from --runner or the architecture",
    phase=PHASE,
    kind="derive",
    reads=("model_config", H + "st_pooling_type", M + "convert", *_INSPECT_READS),
    writes=(M + "runner_type",),
    source=f"{SRC}._get_runner_type; ref 2.1.2",
    level="info",
)
def runner_type(c: Mapping[str, Any], *, convert_means_pooling: bool = False) -> RuleResult:
    """`--runner auto` picks pooling for sentence-transformers and pooling classes, else by suffix.

    ``convert_means_pooling``: a ``--convert`` other than auto/none asks for the pooling runner (vLLM 0.34.0).
    """
    if not _present(c):
        return None
    if c[M + "runner"] != "auto":
        return {M + "runner_type": c[M + "runner"]}
    if convert_means_pooling and c[M + "convert"] not in ("auto", "none"):
        value = "pooling"
    else:
        value = _default_runner(c)
    message = RUNNER_MESSAGE.format(value) if value != "generate" else None
    return Outcome({M + "runner_type": value}, message=message)


def _default_convert(c: Mapping[str, Any], runner: str) -> str:
    """vLLM's ``_get_default_convert_type``."""
    info = _info_of(c, runner, None)
    for arch in _archs(c):
        native = info is not None and ((runner == "generate" and info.generate) or (runner == "pooling" and info.pooling))
        if arch in registry(c[_REG]) and native:
            return "none"
        hit = _match(arch, runner, file=c[_REG])
        if hit:
            return hit[2]
    return "embed" if runner == "pooling" else "none"


@rule(
    "model.convert-type",
    title="convert_type from --convert or the architecture",
    phase=PHASE,
    kind="derive",
    reads=("model_config", M + "convert", M + "runner_type", *_INSPECT_READS),
    writes=(M + "convert_type",),
    source=f"{SRC}._get_convert_type; ref 2.1.2",
    level="info",
)
def convert_type(c: Mapping[str, Any]) -> RuleResult:
    """`--convert auto` keeps a class that natively fits the runner, else adapts it by suffix."""
    if not _present(c) or c[M + "runner_type"] is None:
        return None
    if c[M + "convert"] != "auto":
        return {M + "convert_type": c[M + "convert"]}
    value = _default_convert(c, c[M + "runner_type"])
    message = CONVERT_MESSAGE.format(value) if value != "none" else None
    return Outcome({M + "convert_type": value}, message=message)


@rule(
    "model.runner-supported",
    title="the model supports the runner (natively or by conversion)",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "runner_type", M + "convert_type", *_INSPECT_READS),
    source=f"{SRC}.__post_init__; ref 2.1.2",
)
def runner_supported(c: Mapping[str, Any], *, pooling_only: str | None = None) -> RuleResult:
    """A runner needs a class that implements it or a converter that adapts the class to it.

    ``pooling_only``: the text of the check vLLM 0.34.0 makes first, a pooling-only class asked to generate or
    draft (``{runner}``: the runner); None where vLLM does not make it.
    """
    info = _info_of(c, None, None) if _present(c) else None
    if info is None:
        return None
    runner, convert = c[M + "runner_type"], c[M + "convert_type"]
    if pooling_only is not None and info.pooling and not info.generate and runner in ("draft", "generate"):
        return Violation(pooling_only.format(runner=runner))
    converts = registry_of(c[_REG]).runner_converts
    if runner == "generate" and not info.generate and convert not in converts["generate"]:
        return Violation("This model does not support `--runner generate`.")
    if runner == "pooling" and not info.pooling and convert not in converts["pooling"]:
        return Violation(
            "This model does not support `--runner pooling`. You can pass "
            f"`--convert <{'|'.join(converts['pooling'])}> to adapt it into a pooling model."
        )
    return None


@rule(
    "model.architecture",
    title="the architecture vLLM loads",
    phase=PHASE,
    kind="derive",
    reads=("model_config", M + "runner_type", M + "convert_type", *_INSPECT_READS),
    writes=(M + "architecture",),
    source="vllm/model_executor/models/registry.py inspect_model_cls; ref 2.1.1",
    message="Resolved architecture: {architecture}",
    level="info",
)
def architecture(c: Mapping[str, Any]) -> RuleResult:
    """The first architecture whose (normalized) name is registered; the Transformers backend otherwise.

    Logged after the runner and architecture checks, which raise before vLLM logs it (golden t091).
    """
    if not _present(c):
        return None
    hit = _inspect(c, c[M + "runner_type"], c[M + "convert_type"])
    if hit is None:
        return None
    return Outcome.log({M + "architecture": hit[1]}, architecture=hit[1])


@rule(
    "model.architecture-supported",
    title="some architecture is supported",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "runner_type", M + "convert_type", *_INSPECT_READS),
    source="vllm/model_executor/models/registry.py _raise_for_unsupported; ref 2.1.1",
)
def architecture_supported(c: Mapping[str, Any]) -> RuleResult:
    """vLLM refuses a config.json whose architectures it cannot load.

    The error lists the version's registry (``version.model_registry``) in registration order.
    """
    if not _present(c):
        return None
    archs = list(_archs(c))
    if not archs:
        return Violation("No model architectures are specified")
    known = registry(c[_REG])
    if _inspect(c, c[M + "runner_type"], c[M + "convert_type"]) is not None:
        return None
    if c[M + "model_impl"] == "transformers":  # the backend was asked for and cannot load the class
        return Violation(
            f"Cannot find model module. {archs[0]!r} is not a registered model in the Transformers library (only "
            "relevant if the model is meant to be in Transformers) and 'AutoModel' is not present in the model "
            "config's 'auto_map' (relevant if the model is custom).",
            hint="use a registered architecture, or a checkpoint whose config.json maps an AutoModel")
    return Violation(
        f"Model architectures {archs} are not supported for now. Supported architectures: "
        f"dict_keys({list(known)})",
        hint="pass --model-impl auto (Transformers backend) or use a registered architecture",
    )


def resolved_info(c: Mapping[str, Any]) -> ModelInfo | None:
    """The registry facts of the class of the resolved architecture (None before it is resolved)."""
    arch = c[M + "architecture"]
    if arch is None:
        return None
    return registry(c[_REG]).get(_normalize(arch, c[M + "runner_type"], c[M + "convert_type"], c[_REG]))


_INFO_READS = ("model_config", M + "architecture", M + "runner_type", M + "convert_type", _REG)
INFO_READS = _INFO_READS
"""What :func:`resolved_info` reads."""


@rule(
    "model.class-interfaces",
    title="hybrid / attention-free / inner-state flags of the model class",
    phase=PHASE,
    kind="derive",
    reads=_INFO_READS,
    writes=(M + "is_hybrid", M + "is_attention_free", M + "has_inner_state", M + "supports_mamba_prefix_caching"),
    source="vllm/model_executor/models/registry.py _ModelInfo; ref 2.1.1",
)
def class_interfaces(c: Mapping[str, Any]) -> RuleResult:
    """The model class's IsHybrid, IsAttentionFree, HasInnerState and SupportsMambaPrefixCaching markers
    (in the version's registry, ``version.model_registry``)."""
    if not _present(c) or c[M + "architecture"] is None:
        return None
    known, name = registry(c[_REG]), c[M + "architecture"]
    info = known.get(name if name in known else _normalize(name, c[M + "runner_type"], c[M + "convert_type"], c[_REG]))
    if info is None:
        return None
    return {
        M + "is_hybrid": info.hybrid,
        M + "is_attention_free": info.attention_free,
        M + "has_inner_state": info.inner_state,
        M + "supports_mamba_prefix_caching": info.mamba_prefix_caching,
    }


@rule(
    "model.is-multimodal",
    title="multimodal when the class supports multimodal inputs",
    phase=PHASE,
    kind="derive",
    reads=_INFO_READS,
    writes=(M + "is_multimodal_model",),
    source=f"{SRC}.__post_init__ (multimodal_config); ref 2.1.1",
)
def is_multimodal(c: Mapping[str, Any]) -> RuleResult:
    """vLLM creates a MultiModalConfig exactly when the class implements SupportsMultiModal (Whisper too)."""
    info = resolved_info(c) if _present(c) else None
    if info is None:
        return None
    return {M + "is_multimodal_model": info.multimodal}


MULTIMODAL_DEFAULTS: dict[str, Any] = {
    "limit_per_prompt": {}, "enable_mm_embeds": False, "media_io_kwargs": {}, "mm_processor_kwargs": None,
    "mm_processor_cache_gb": 4, "mm_processor_cache_type": "lru", "mm_shm_cache_max_object_size_mb": 128,
    "mm_encoder_tp_mode": "weights", "mm_encoder_attn_backend": None, "interleave_mm_strings": False,
    "skip_mm_profiling": False, "video_pruning_rate": None,
}
"""``vllm/config/multimodal.py MultiModalConfig`` field defaults at d7fb10c57."""


MULTIMODAL_ARGS: dict[str, str] = {
    "limit_mm_per_prompt": "limit_per_prompt", "enable_mm_embeds": "enable_mm_embeds",
    "media_io_kwargs": "media_io_kwargs", "mm_processor_kwargs": "mm_processor_kwargs",
    "mm_processor_cache_gb": "mm_processor_cache_gb", "mm_processor_cache_type": "mm_processor_cache_type",
    "mm_shm_cache_max_object_size_mb": "mm_shm_cache_max_object_size_mb", "mm_encoder_tp_mode": "mm_encoder_tp_mode",
    "mm_encoder_attn_backend": "mm_encoder_attn_backend", "interleave_mm_strings": "interleave_mm_strings",
    "skip_mm_profiling": "skip_mm_profiling",
}
"""ModelConfig's multimodal InitVars -> the MultiModalConfig field each is passed as (when not None);
``video_pruning_rate`` (a field of postinit's schema until 0.11.1, for its hash factor) stays its default."""


@rule(
    "model.mm-encoder-tp-mode",
    title="--mm-encoder-tp-mode data only where the model's encoder supports it",
    phase=PHASE,
    kind="override",
    reads=(M + "is_multimodal_model", *INFO_READS, M + "mm_encoder_tp_mode"),
    writes=(M + "mm_encoder_tp_mode",),
    source=f"{SRC}.__post_init__ (Init multimodal config if needed); ref 2.1.1",
    message="This model does not support `--mm-encoder-tp-mode data`. Falling back to `--mm-encoder-tp-mode weights`.",
    level="warning",
)
def mm_encoder_tp_mode(c: Mapping[str, Any]) -> RuleResult:
    """A data-parallel vision encoder needs the class's SupportsMultiModal ``supports_encoder_tp_data`` (the
    registry's ``multimodal_encoder_tp_data``); other multimodal classes shard its weights."""
    if not _present(c) or not c[M + "is_multimodal_model"] or c[M + "mm_encoder_tp_mode"] != "data":
        return None
    info = resolved_info(c)
    if info is None or "multimodal_encoder_tp_data" in info.interfaces:
        return None
    return {M + "mm_encoder_tp_mode": "weights"}


@rule(
    "model.mm-input-cache-env",
    title="The deprecated VLLM_MM_INPUT_CACHE_GIB sizes the multimodal processor cache",
    phase=PHASE,
    kind="override",
    reads=("usage.via_engine_args", "usage.disable_mm_preprocessor_cache", "env.VLLM_MM_INPUT_CACHE_GIB"),
    writes=(M + "mm_processor_cache_gb",),
    source="vllm/engine/arg_utils.py EngineArgs.create_model_config (before ModelConfig is built); ref 2.1.1",
    message="VLLM_MM_INPUT_CACHE_GIB` is deprecated and will be removed in v0.13. Please use "
    "`--mm-processor-cache-gb {gib}` instead.",
    level="warning",
)
def mm_input_cache_env(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs still honours the old variable: a value other than its default 4 replaces
    ``--mm-processor-cache-gb`` (given or not), unless ``--disable-mm-preprocessor-cache`` asked for no cache.

    Whatever the model: a text model keeps the value on its ModelConfig and builds no MultiModalConfig.
    """
    gib = c["env.VLLM_MM_INPUT_CACHE_GIB"]
    if not c["usage.via_engine_args"] or c["usage.disable_mm_preprocessor_cache"] or gib == 4:
        return None
    return Outcome.log({M + "mm_processor_cache_gb": gib}, gib=gib)


@rule(
    "model.multimodal-config",
    title="MultiModalConfig for multimodal model classes",
    phase=PHASE,
    kind="derive",
    reads=("model_config", M + "is_multimodal_model", M + "multimodal_config", *(M + a for a in MULTIMODAL_ARGS)),
    writes=(M + "multimodal_config",),
    source=f"{SRC}.__post_init__ (Init multimodal config if needed); ref 2.1.1",
)
def multimodal_config(c: Mapping[str, Any]) -> RuleResult:
    """A model class implementing SupportsMultiModal gets a MultiModalConfig: vLLM's defaults, the multimodal
    arguments the input sets (``limit_mm_per_prompt`` as ``limit_per_prompt``, ...), a given dict over both.

    Other models ignore those arguments. The encoder attention backend's name is not checked against vLLM's
    backend list (its MultiModalConfig validator refuses an unknown one).
    """
    if not _present(c) or not c[M + "is_multimodal_model"]:
        return None
    given = {field: c[M + arg] for arg, field in MULTIMODAL_ARGS.items() if c[M + arg] is not None}
    mm = {**MULTIMODAL_DEFAULTS, **given, **(c[M + "multimodal_config"] or {})}
    limits = mm.get("limit_per_prompt")
    if isinstance(limits, Mapping):
        mm["limit_per_prompt"] = {k: dummy_options(k, v) for k, v in limits.items()}
    backend = mm.get("mm_encoder_attn_backend")
    if isinstance(backend, str) and backend.upper() in _ATTENTION_BACKENDS:
        mm["mm_encoder_attn_backend"] = backend.upper()
    return {M + "multimodal_config": mm}


_DUMMY_OPTION_FIELDS = {"video": ("num_frames", "width", "height"), "image": ("width", "height"), "audio": ("length",)}
"""``vllm/config/multimodal.py`` VideoDummyOptions / ImageDummyOptions / AudioDummyOptions fields beyond ``count``
(BaseDummyOptions: ``count`` only, default 999)."""

_ATTENTION_BACKENDS = (
    "CUTLASS_MLA", "FLASHINFER", "FLASHINFER_MLA", "FLASHMLA", "FLASHMLA_SPARSE", "FLASH_ATTN", "FLASH_ATTN_MLA",
    "FLEX_ATTENTION", "IPEX", "NO_ATTENTION", "PALLAS", "ROCM_AITER_FA", "ROCM_AITER_MLA", "ROCM_AITER_UNIFIED_ATTN",
    "ROCM_ATTN", "TORCH_SDPA", "TREE_ATTN", "TRITON_ATTN", "TRITON_MLA", "XFORMERS")
"""``vllm/attention/backends/registry.py`` ``_Backend`` member names at d7fb10c57, sorted (0.11.1 adds CPU_ATTN)."""


def dummy_options(modality: str, value: Any) -> Any:
    """MultiModalConfig._validate_limit_per_prompt: a bare count becomes ``{"count": n}``, then the modality's
    DummyOptions dataclass fills its other fields with None (other modalities: the count alone)."""
    opts = {"count": value} if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(opts, Mapping):
        return value
    return {"count": 999, **{f: None for f in _DUMMY_OPTION_FIELDS.get(modality, ())}, **opts}


@rule(
    "model.multimodal-config-validators",
    title="MultiModalConfig refuses an unknown encoder attention backend, and a shm object size without the shm "
    "cache",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "is_multimodal_model", M + "multimodal_config"),
    after=("model.max-model-len-log",),
    source="vllm/config/multimodal.py MultiModalConfig._validate_mm_encoder_attn_backend, "
    "_validate_multimodal_config (validators), built at the end of ModelConfig.__post_init__; ref 2.1.1",
    message="Invalid mm encoder attention backend. Expected one of: ... / 'mm_shm_cache_max_object_size_mb' should "
    "only be set when 'mm_processor_cache_type' is 'shm'.",
)
def multimodal_config_validators(c: Mapping[str, Any], *, backends: tuple[str, ...] = _ATTENTION_BACKENDS,
                                 refusal: str = "Invalid mm encoder attention backend. Expected one of: {sorted}.",
                                 ) -> RuleResult:
    """The encoder backend is a name of vLLM's attention backend enum (any case); the shm cache's object size
    only means something for the shm cache (a value other than its default 128 is refused otherwise)."""
    if not _present(c) or not c[M + "is_multimodal_model"]:
        return None
    mm = c[M + "multimodal_config"] or {}
    backend = mm.get("mm_encoder_attn_backend")
    if isinstance(backend, str) and backend.upper() not in backends:
        return Violation(refusal.format(sorted=", ".join(sorted(backends)), ordered=", ".join(backends),
                                        name=backend.upper()))
    if mm.get("mm_processor_cache_type") != "shm" and mm.get("mm_shm_cache_max_object_size_mb") != 128:
        return Violation("'mm_shm_cache_max_object_size_mb' should only be set when 'mm_processor_cache_type' is "
                         "'shm'.")
    return None


SEED_POOLER_FIELDS = ("pooling_type", "normalize", "dimensions", "enable_chunked_processing", "max_embed_len",
                      "activation", "logit_bias", "softmax", "step_tag_id", "returned_token_ids")
"""PoolerConfig's fields at the seed (0.11.1 adds ``use_activation``)."""


def override_pooler_rule(fields: tuple[str, ...]) -> Rule:
    """``model.override-pooler-config`` for a version whose PoolerConfig has ``fields``."""

    def override_pooler_config(c: Mapping[str, Any]) -> RuleResult:
        """On the pooling runner the old option's PoolerConfig (a dict in a config built directly,
        ``--override-pooler-config``'s PoolerConfig) takes the place of ``pooler_config`` whole: a ``--pooler-config``
        given too is dropped. The model's own defaults then fill what it leaves unset (``model.pooler-config``)."""
        if not _present(c) or c[M + "runner_type"] != "pooling" or not c[M + "override_pooler_config"]:
            return None
        return Outcome.log({M + "pooler_config": True, **{M + "pooler_config." + f: c[M + "override_pooler_config." + f]
                                                            for f in fields}})

    return make_rule(
        override_pooler_config, "model.override-pooler-config",
        title="The deprecated override_pooler_config replaces the pooler config", phase=PHASE, kind="override",
        reads=(*_INFO_READS, M + "override_pooler_config", *(M + "override_pooler_config." + f for f in fields)),
        writes=(M + "pooler_config", *(M + "pooler_config." + f for f in fields)),
        source=f"{SRC}.__post_init__ (Init pooler config if needed); ref 2.1.2",
        message="`override_pooler_config` is deprecated and will be removed in v0.12.0 or v1.0.0, whichever is "
        "sooner. Please use `pooler_config` instead.",
        level="warning",
    )


override_pooler_config = override_pooler_rule(SEED_POOLER_FIELDS)


@rule(
    "model.pooler-config",
    title="pooler config for the pooling runner",
    phase=PHASE,
    kind="derive",
    reads=(*_INFO_READS, M + "pooler_config", M + "pooler_config.pooling_type", M + "pooler_config.normalize",
           H + "st_pooling_type", H + "st_normalize"),
    writes=(M + "pooler_config", M + "pooler_config.pooling_type", M + "pooler_config.normalize"),
    after=("model.override-pooler-config",),
    source=f"{SRC}.__post_init__; ref 2.1.2",
)
def pooler_config(c: Mapping[str, Any]) -> RuleResult:
    """Pooling runners need a pooler: user values first, then sentence-transformers, then the class default."""
    if not _present(c) or c[M + "runner_type"] != "pooling":
        return None
    info = resolved_info(c)
    pooling_type, normalize = c[M + "pooler_config.pooling_type"], c[M + "pooler_config.normalize"]
    if _st_pooling(c):
        pooling_type = pooling_type if pooling_type is not None else c[H + "st_pooling_type"]
        normalize = normalize if normalize is not None else c[H + "st_normalize"]
    if pooling_type is None and info is not None:
        pooling_type = info.pooling_type
    return {M + "pooler_config": True, M + "pooler_config.pooling_type": pooling_type,
            M + "pooler_config.normalize": normalize}


# ---------------------------------------------------------------------------- dtype


def _device_str(c: Mapping[str, Any]) -> str:
    """The device in vLLM's dtype fallback warning: its name (the CPU platform's get_device_name() is 'cpu') and,
    on a GPU, its compute capability."""
    cap = c["platform.capability"] if c["platform.kind"] in ("cuda", "rocm") else None
    name = repr("cpu" if c["platform.kind"] == "cpu" else c["platform.device_name"])
    return name if cap is None else f"{name} (with compute capability {cap // 10}.{cap % 10})"


def _auto_dtype(c: Mapping[str, Any], config_dtype: str) -> tuple[str, str | None]:
    """vLLM's ``_resolve_auto_dtype``: (dtype, fallback warning or None)."""
    fp16_ok = c[H + "model_type"] not in FLOAT16_UNSUPPORTED
    candidates = [d for d in c["platform.supported_dtypes"] if fp16_ok or d != "float16"]
    pooling = c[M + "runner_type"] == "pooling"
    preferred = "float16" if pooling and "float16" in candidates else candidates[0]
    wanted = preferred if config_dtype == "float32" else config_dtype
    if wanted in candidates:
        return wanted, None
    return preferred, (
        f"Your device {_device_str(c)} doesn't support {_torch(wanted)}. "
        f"Falling back to {_torch(preferred)} for compatibility."
    )


def _cast_message(config_dtype: str, dtype: str) -> tuple[str, str] | None:
    if dtype == config_dtype:
        return None
    if dtype == "float32":
        return f"Upcasting {_torch(config_dtype)} to {_torch(dtype)}.", "info"
    if config_dtype == "float32":
        return f"Downcasting {_torch(config_dtype)} to {_torch(dtype)}.", "info"
    return f"Casting {_torch(config_dtype)} to {_torch(dtype)}.", "warning"


@rule(
    "model.dtype",
    title="model dtype from --dtype, config.json and the platform",
    phase=PHASE,
    kind="derive",
    reads=("model_config", M + "dtype", M + "runner_type", H + "model_type", *_DTYPE_READS,
           "platform.supported_dtypes", "platform.kind", "platform.capability", "platform.device_name"),
    writes=(M + "dtype",),
    source=f"{SRC} _get_and_verify_dtype; ref 2.1.3",
    level="info",
)
def dtype(c: Mapping[str, Any]) -> RuleResult:
    """"auto" keeps the checkpoint dtype when the device supports it (float32 checkpoints are downcast)."""
    if not _present(c):
        return None
    config_dtype = _config_dtype(c)
    warning = None
    if c[M + "dtype"] == "auto":
        value, warning = _auto_dtype(c, config_dtype)
    else:
        value = _DTYPE_NAMES[c[M + "dtype"]]
    if warning is not None:
        return Outcome({M + "dtype": value}, message=warning, level="warning")
    return {M + "dtype": value}


@rule(
    "model.dtype-cast",
    title="vLLM logs a dtype that differs from the checkpoint's",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "dtype", *_DTYPE_READS),
    source=f"{SRC} _get_and_verify_dtype; ref 2.1.3",
    message="<Upcasting|Downcasting|Casting> torch.<config dtype> to torch.<dtype>.",
    level="info",
)
def dtype_cast(c: Mapping[str, Any]) -> RuleResult:
    """Upcasting to float32 and downcasting from it are routine; casting between float16 and bfloat16 is worth a warning.

    vLLM logs this after the dtype is chosen, also after the fallback warning of
    ``model.dtype`` (a T4 that lacks bfloat16 logs both); the two have their own levels.
    """
    if not _present(c) or c[M + "dtype"] not in _DTYPE_NAMES.values():
        return None
    cast = _cast_message(_config_dtype(c), c[M + "dtype"])
    return Outcome(message=cast[0], level=cast[1]) if cast else None


@rule(
    "model.dtype-float16-unsupported",
    title="float16 is refused for numerically unstable model types",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "dtype", H + "model_type"),
    source=f"{SRC} _check_valid_dtype; ref 2.1.3",
)
def dtype_float16_unsupported(c: Mapping[str, Any]) -> RuleResult:
    """Gemma-2/3, PLaMo-2 and GLM-4 are numerically unstable in float16."""
    model_type = c[H + "model_type"]
    if _present(c) and model_type in FLOAT16_UNSUPPORTED and c[M + "dtype"] in ("float16", "half"):
        return Violation(
            f"The model type {model_type!r} does not support float16. Reason: "
            "Numerical instability. Please use bfloat16 or float32 instead.",
            hint="use --dtype bfloat16 or --dtype float32",
        )
    return None


HEAD_DTYPE_READS = (M + "dtype", M + "runner_type", H + "head_dtype", "platform.supported_dtypes")
"""What :func:`head_dtype_for` reads (a rule that calls it declares these)."""


def head_dtype_for(c: Mapping[str, Any], dtype: str) -> str:
    """vLLM's ``ModelConfig.head_dtype`` property for model dtype ``dtype`` (it follows later dtype changes)."""
    return _head_dtype(c, dtype)[0]


def _head_dtype(c: Mapping[str, Any], dtype: str | None = None) -> tuple[str, str | None]:
    """vLLM's ``head_dtype``: (dtype, warning or None)."""
    dtype, supported = dtype or c[M + "dtype"], c["platform.supported_dtypes"]
    raw = c[H + "head_dtype"]
    if raw == "model":
        head = dtype
    elif raw is not None:
        head = _DTYPE_NAMES.get(str(raw).lower(), str(raw).lower())
    else:
        head = "float32" if "float32" in supported and c[M + "runner_type"] == "pooling" else dtype
    if c[M + "runner_type"] != "pooling" and head != dtype:
        return dtype, f"`head_dtype` currently only supports pooling models.fallback to model dtype [{_torch(dtype)}]."
    if head not in supported:
        return dtype, (f"The current platform does not support [{_torch(head)}] head dtype, "
                       f"fallback to model dtype [{_torch(dtype)}].")
    return head, None


@rule(
    "model.head-dtype",
    title="dtype of the lm_head / classifier",
    phase=PHASE,
    kind="derive",
    reads=("model_config", M + "dtype", M + "runner_type", H + "head_dtype", "platform.supported_dtypes"),
    writes=(M + "head_dtype",),
    source=f"{SRC}.head_dtype; ref 2.1.1",
)
def head_dtype(c: Mapping[str, Any]) -> RuleResult:
    """Pooling models compute their head in float32 for accuracy; generation heads use the model dtype.

    ``head_dtype`` is a property vLLM reads when it builds the model, not while it resolves the config: its
    warnings (a head dtype for a generative model, one the platform lacks) are not among the resolution's log
    records (golden case n042-head-dtype-generate), so the value is derived silently.
    """
    if not _present(c):
        return None
    value, _warning = _head_dtype(c)
    return {M + "head_dtype": value}


# ---------------------------------------------------------------------------- quantization

QUANTIZATION_METHODS: tuple[str, ...] = (
    "awq", "deepspeedfp", "tpu_int8", "fp8", "ptpc_fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4",
    "bitblas", "gguf", "gptq_marlin_24", "gptq_marlin", "gptq_bitblas", "awq_marlin", "gptq",
    "compressed-tensors", "bitsandbytes", "hqq", "experts_int8", "ipex", "quark", "moe_wna16", "torchao",
    "auto-round", "rtn", "inc", "mxfp4", "petit_nvfp4",
)
"""``vllm.model_executor.layers.quantization.QUANTIZATION_METHODS`` at d7fb10c57."""


def _parse_quant_cfg(cfg: Mapping[str, Any] | None, compression: Mapping[str, Any] | None) -> (
        tuple[dict[str, Any] | None, Violation | None]):
    """vLLM's ``_parse_quant_hf_config``: quantization_config (ModelOpt producer mapped) or compression_config."""
    if cfg is None:
        return (dict(compression) if compression is not None else None), None
    out = dict(cfg)
    producer = out.get("producer") or {}
    if isinstance(producer, Mapping) and producer.get("name") == "modelopt":
        algo = (out.get("quantization") or {}).get("quant_algo")
        if algo == "FP8":
            out["quant_method"] = "modelopt"
        elif algo == "NVFP4":
            out["quant_method"] = "modelopt_fp4"
        elif algo is not None:
            return None, Violation(f"Unknown ModelOpt quant algo: {algo}", error="ValueError")
    return out, None


_MARLIN_GROUP_SIZES = (-1, 32, 64, 128)
"""``MARLIN_SUPPORTED_GROUP_SIZES`` (quantization/utils/marlin_utils.py)."""


def _awq_marlin_compatible(cfg: Mapping[str, Any], c: Mapping[str, Any]) -> bool:
    """``AWQMarlinConfig.is_awq_marlin_compatible``: an AWQ checkpoint Marlin runs on a CUDA GPU of sm80 or newer
    (4-bit weights with zero points: uint4 is the only AWQ-style type Marlin has; a group size it supports)."""
    if c["platform.kind"] != "cuda" or str(cfg.get("quant_method", "")).lower() != "awq":
        return False
    bits, group, zp = cfg.get("bits"), cfg.get("group_size"), cfg.get("zero_point")
    if bits is None or group is None or zp is None or bits not in (4, 8):
        return False
    capability = c["platform.capability"]
    if capability is None or capability < 80:
        return False
    return bool(zp) and bits == 4 and group in _MARLIN_GROUP_SIZES


def _override_method(cfg: Mapping[str, Any], c: Mapping[str, Any], user: str | None, auto: bool,
                     cpu_override: str | None) -> str | None:
    """The override probes vLLM runs in order (AWQ Marlin before 0.34.0, ModelOpt, IPEX and vLLM 0.34.0's
    AutoGPTQ / AutoAWQ are modelled). ``auto``: GPTQ checkpoints become ``auto_gptq`` and AWQ ones ``auto_awq`` (not on CPU) unless the
    user asked for another method; ``cpu_override``: what AWQ/GPTQ become on CPU (the seed: ``ipex``)."""
    method = str(cfg.get("quant_method", "")).lower()
    if auto and user == "humming":  # 0.34.0 probes HummingConfig first when it is asked for (model.py:1437-1439)
        return "humming"
    if not auto and _awq_marlin_compatible(cfg, c) and user in (None, "marlin", "awq_marlin"):
        return "awq_marlin"
    if auto and method == "gptq" and user in (None, "gptq", "gptq_marlin", "auto_gptq", "marlin"):
        return "auto_gptq"
    if c["platform.kind"] == "cpu" and method in ("awq", "gptq") and cpu_override is not None:
        return cpu_override
    if auto and method == "awq" and c["platform.kind"] != "cpu" \
            and user in (None, "awq", "awq_marlin", "auto_awq", "marlin"):
        return "auto_awq"
    if method != "modelopt":
        return None
    inner = cfg.get("quantization")
    if "quantization" in cfg:
        algo = inner.get("quant_algo", "") if isinstance(inner, Mapping) else ""
        return "modelopt" if "FP8" in algo else "modelopt_fp4" if "NVFP4" in algo else None
    algo = cfg.get("quant_algo", "")
    if isinstance(algo, str) and "FP8" in algo:
        return "modelopt"
    if auto and algo == "MIXED_PRECISION":  # 0.34.0's ModelOptMixedPrecisionConfig.override_quantization_method
        return "modelopt_mixed"
    return "modelopt_fp4" if isinstance(algo, str) and "FP4" in algo.upper() else None


@rule(
    "model.quantization",
    title="quantization method from the checkpoint's quantization_config",
    phase=PHASE,
    kind="derive",
    reads=("model_config", M + "quantization", H + "quantization_config", H + "compression_config",
           H + "text_config", H + "model_type", "platform.kind", "platform.capability"),
    writes=(M + "quantization",),
    source=f"{SRC}._verify_quantization, _parse_quant_hf_config; ref 2.1, 10",
    level="info",
)
def quantization(c: Mapping[str, Any], *, methods: tuple[str, ...] = QUANTIZATION_METHODS, auto: bool = False,
                 cpu_override: str | None = "ipex") -> RuleResult:
    """A quantized checkpoint says how it was quantized; a conflicting --quantization is refused.

    ``methods``: the version's ``QUANTIZATION_METHODS``; ``auto`` / ``cpu_override``: see ``_override_method``.

    ``quant_method`` is lower-cased (compressed_tensors -> compressed-tensors);
    the text config is consulted for multimodal models; ModelOpt checkpoints are
    recognised by their producer. Of vLLM's override probes AWQ Marlin (an AWQ
    checkpoint on sm80+ CUDA), ModelOpt (FP8/NVFP4) and IPEX (AWQ/GPTQ on CPU) are
    modelled: GPTQ Marlin, BitBLAS, MoE-WNA16, Petit and MXFP4 upgrades are not.
    """
    if not _present(c):
        return None
    user = c[M + "quantization"]
    user = str(user).lower() if user is not None else None
    cfg, problem = _parse_quant_cfg(c[H + "quantization_config"], c[H + "compression_config"])
    text = c[H + "text_config"]
    if problem is None and cfg is None and text:
        cfg, problem = _parse_quant_cfg(text.get("quantization_config"), text.get("compression_config"))
    if problem is not None:
        return problem
    value = user
    said = ""
    if cfg is not None:
        method: str | None = str(cfg.get("quant_method", "")).lower().replace("compressed_tensors", "compressed-tensors")
        cfg["quant_method"] = method
        # HummingConfig.override_quantization_method reads the checkpoint's quant_method as it was before the
        # GPT-OSS hook renamed it (models.gptoss-mxfp4): model_arch_config holds its own copy
        if auto and user == "humming" and c[H + "model_type"] == "gpt_oss" and method in ("mxfp4", "gpt_oss_mxfp4"):
            return Violation("For gpt-oss model, use '--moe-backend humming' instead of '--quantization humming'.",
                             hint="give --moe-backend humming instead", error="ValueError")
        override = _override_method(cfg, c, user, auto, cpu_override)
        if override == "awq_marlin":
            said = "The model is convertible to awq_marlin during runtime. Using awq_marlin kernel."
        elif user == "awq" and not auto and _awq_marlin_compatible(cfg, c):
            said = ("Detected that the model can run with awq_marlin, however you specified quantization=awq "
                    "explicitly, so forcing awq. Use quantization=awq_marlin for faster inference")
        if override is not None:
            method = value = override
        method = method or None
        if value is None:
            value = method
        elif value != method:
            return Violation(
                f"Quantization method specified in the model config ({method}) does not match the quantization "
                f"method specified in the `quantization` argument ({value}).",
                hint="drop --quantization or use the checkpoint's method", error="ValueError")
    if value is not None and value not in methods:
        return Violation(f"Unknown quantization method: {value}. Must be one of {list(methods)}.",
                         error="ValueError")
    changes = {M + "quantization": value} if value != c[M + "quantization"] else {}
    if said:
        return Outcome(changes, message=said)
    return changes or None


# ---------------------------------------------------------------------------- eager mode


@rule(
    "model.rocm-encoder-decoder-eager",
    title="encoder-decoder models run eagerly on ROCm",
    phase=PHASE,
    kind="override",
    reads=("model_config", M + "is_encoder_decoder", M + "enforce_eager", "platform.is_rocm", H + "model_type"),
    writes=(M + "enforce_eager",),
    source=f"{SRC}._verify_cuda_graph; ref 2.1",
    level="warning",
)
def rocm_encoder_decoder_eager(c: Mapping[str, Any]) -> RuleResult:
    """CUDA graph capture is not supported for encoder-decoder models on ROCm."""
    if _present(c) and c[M + "is_encoder_decoder"] and not c[M + "enforce_eager"] and c["platform.is_rocm"]:
        message = f"CUDA graph is not supported for {c[H + 'model_type']} on ROCm yet, fallback to eager mode."
        return Outcome({M + "enforce_eager": True}, message=message)
    return None


@rule(
    "model.bnb-8bit-eager",
    title="bitsandbytes 8-bit checkpoints run eagerly",
    phase=PHASE,
    kind="override",
    reads=("model_config", M + "quantization", H + "quantization_config", M + "enforce_eager"),
    writes=(M + "enforce_eager",),
    source=f"{SRC}._verify_bnb_config; ref 2.1",
    message="CUDA graph is not supported on BitsAndBytes 8bit yet, fallback to the eager mode.",
    level="warning",
)
def bnb_8bit_eager(c: Mapping[str, Any]) -> RuleResult:
    """bitsandbytes 8-bit kernels do not support CUDA graphs yet."""
    qc = c[H + "quantization_config"]
    if (_present(c) and c[M + "quantization"] == "bitsandbytes" and qc is not None
            and qc.get("load_in_8bit", False) and not c[M + "enforce_eager"]):
        return {M + "enforce_eager": True}
    return None


# ---------------------------------------------------------------------------- max_model_len


@rule(
    "model.v0-interleaved-disables-sliding-window",
    title="V0 XFORMERS/FLASHINFER cannot do interleaved attention",
    phase=PHASE,
    kind="override",
    reads=("model_config", M + "disable_sliding_window", T + "layer_types", T + "model_type",
           T + "sliding_window", "env.VLLM_USE_V1", "env.VLLM_ATTENTION_BACKEND"),
    writes=(M + "disable_sliding_window",),
    source=f"{SRC}.__post_init__; ref 2.1.4",
    level="warning",
)
def v0_interleaved_disables_sliding_window(c: Mapping[str, Any]) -> RuleResult:
    """Interleaved (sliding + full) attention is not supported by some V0 backends."""
    backend = c["env.VLLM_ATTENTION_BACKEND"]
    interleaved = {"full_attention", "sliding_attention"}.issubset(c[T + "layer_types"] or ())
    if (not _present(c) or c[M + "disable_sliding_window"] or not interleaved or c["env.VLLM_USE_V1"]
            or backend not in ("XFORMERS", "FLASHINFER")):
        return None
    message = (
        f"{c[T + 'model_type']} has interleaved attention, which is currently not supported by the {backend} "
        f"backend. Disabling sliding window and capping the max length to the sliding window size "
        f"({c[T + 'sliding_window']})."
    )
    return Outcome({M + "disable_sliding_window": True}, message=message)


def _rope_type(rope: Mapping[str, Any]) -> str | None:
    """rope_scaling's type after vLLM's ``patch_rope_scaling`` (legacy ``type``, su -> longrope, mrope -> default)."""
    value = rope.get("rope_type", rope.get("type"))
    return {"su": "longrope", "mrope": "default"}.get(value, value) if value is not None else None


def _config_len(c: Mapping[str, Any]) -> tuple[float, str | None]:
    """Steps 1-3: the smallest length key, model_max_length replacing it, sliding window, tokenizer limit."""
    derived: float = float("inf")
    key = None
    for name in MAX_LEN_KEYS:
        value = c[T + name]
        if value is not None and value < derived:
            derived, key = value, name
    if c[T + "model_max_length"]:
        derived, key = c[T + "model_max_length"], "model_max_length"
    window = c[T + "sliding_window"]
    if c[M + "disable_sliding_window"] and window is not None and window < derived:
        derived, key = window, "sliding_window"
    tokenizer_len = c[H + "tokenizer_model_max_length"]
    absolute = c[H + "position_embedding_type"] == "absolute"
    if c[M + "runner_type"] == "pooling" and absolute and tokenizer_len is not None:
        derived = min(derived, tokenizer_len)
    return derived, key


UNSCALED_ROPE = ("su", "longrope", "llama3")
"""Rope types whose max_position_embeddings is already the scaled length (the seed's list)."""


def _scaled_len(c: Mapping[str, Any], derived: float, unscaled: tuple[str, ...] = UNSCALED_ROPE) -> float:
    """Steps 5-6: RoPE scaling (not for gemma3, nor the ``unscaled`` types) and sentence-transformers
    max_seq_length. A yarn scaling that is scaled starts from its original_max_position_embeddings."""
    rope = c[T + "rope_scaling"]
    if rope is not None and "gemma3" not in (c[T + "model_type"] or ""):
        rope_type = _rope_type(rope)
        if rope_type not in unscaled:
            if rope_type == "yarn":
                derived = rope["original_max_position_embeddings"]
            factor = rope.get("factor", 1.0)
            derived *= 1.0 if factor is None else factor  # null: 0.34.0 falls back to 1.0 (NULL_FACTOR_WARNING)
    if c[H + "st_max_seq_length"] is not None and c[H + "st_do_lower_case"] is not None:
        derived = c[H + "st_max_seq_length"]
    return derived


_LEN_READS = (
    "model_config", M + "max_model_len", M + "disable_sliding_window", M + "runner_type",
    M + "spec_target_max_model_len", *(T + k for k in MAX_LEN_KEYS), T + "sliding_window", T + "rope_scaling",
    T + "model_type", T + "original_max_position_embeddings", H + "tokenizer_model_max_length",
    H + "position_embedding_type", H + "st_max_seq_length", H + "st_do_lower_case", "env.VLLM_ALLOW_LONG_MAX_MODEL_LEN",
    T + "rope_theta",
)
NO_LEN_KEY_MESSAGE = (
    "The model's config.json does not contain any of the following keys to determine the original maximum "
    "length of the model: {}. Assuming the model's maximum length is 2048."
)
NULL_FACTOR_WARNING = (
    "The model's RoPE configuration has a null scaling factor which is unexpected. This likely indicates a bug in "
    "the model's HuggingFace config.json. Please notify the model vendor. Falling back the value to 1.0. "
)
"""vLLM 0.34.0's warning for a scaled RoPE whose ``factor`` is null (vllm/config/model.py:2668-2675)."""
LONG_LEN_WARNING = (
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position "
    "encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute position "
    "encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds error."
)


def _user_len_problem(c: Mapping[str, Any], user: int, derived: float, key: str | None,
                      sliding_check: bool = True, as_float: bool = False) -> Violation | str | None:
    """Step 8: a user value above the derived length (a violation, or the VLLM_ALLOW_LONG_MAX_MODEL_LEN warning)."""
    model_max_length = c[T + "model_max_length"]
    if user <= derived:
        return None
    if model_max_length is not None and user <= model_max_length:
        if c[M + "disable_sliding_window"] and sliding_check:
            return Violation(
                "Disabling sliding window is not supported for models model_max_length in the config. "
                "Please raise an issue so we can investigate.", error="NotImplementedError")
        return None
    shown = float(derived) if as_float else (int(derived) if float(derived).is_integer() else derived)
    msg = (f"User-specified max_model_len ({user}) is greater than the derived max_model_len ({key}={shown} "
           f"or model_max_length={model_max_length} in model's config.json).")
    if c["env.VLLM_ALLOW_LONG_MAX_MODEL_LEN"]:
        return f"{msg} {LONG_LEN_WARNING}"
    return Violation(f"{msg} To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. "
                     f"{LONG_LEN_WARNING}", hint="lower --max-model-len or set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")


def _rope_blocks_sliding_off(c: Mapping[str, Any], derived: float) -> Violation | None:
    rope = c[T + "rope_scaling"]
    if (derived != float("inf") and rope is not None and c[M + "disable_sliding_window"]
            and "gemma3" not in (c[T + "model_type"] or "") and _rope_type(rope) not in UNSCALED_ROPE):
        return Violation("Disabling sliding window is not supported for models with rope_scaling. Please raise "
                         "an issue so we can investigate.", error="NotImplementedError")
    return None


def _final_len(c: Mapping[str, Any], user: int | None, derived: float) -> int:
    """Step 7: the default when the user gave none (longrope keeps original_max_position_embeddings)."""
    if user is not None:
        return int(user)
    rope = c[T + "rope_scaling"]
    if rope is not None and _rope_type(rope) == "longrope":
        original = c[T + "original_max_position_embeddings"]
        return int(original if original is not None else derived)
    return int(derived)


@rule(
    "model.max-model-len",
    title="max_model_len from config.json and --max-model-len",
    phase=PHASE,
    kind="derive",
    reads=_LEN_READS,
    writes=(M + "max_model_len", M + "original_max_model_len", T + "sliding_window"),
    source=f"{SRC} _get_and_verify_max_len; ref 2.1.4",
    message="<the no-length-key warning or the VLLM_ALLOW_LONG_MAX_MODEL_LEN warning, if any>",
    level="warning",
)
def max_model_len(c: Mapping[str, Any], *, no_key_message: str = NO_LEN_KEY_MESSAGE,
                  unscaled_rope: tuple[str, ...] = UNSCALED_ROPE, sliding_window_checks: bool = True,
                  legacy_type_key_error: bool = True, rope_float: bool = False, auto_fit: bool = False,
                  null_factor_warning: bool = False) -> RuleResult:
    """The model's context length caps max_model_len; a larger user value is refused unless explicitly allowed.

    ``no_key_message``: the warning when config.json has no length key (``{}``: the keys vLLM looked for).
    ``unscaled_rope``: the rope types whose factor is not applied (their max_position_embeddings is already
    scaled). ``sliding_window_checks``: whether disable_sliding_window is refused with rope scaling or a
    model_max_length the user's value stays within (NotImplementedError).
    ``legacy_type_key_error``: a dict-valued hf_overrides rope scaling that names its kind ``type`` (not
    ``rope_type``) is a KeyError (transformers 4 left it as given; transformers 5 standardizes it).
    ``rope_float``: every RoPE model multiplies the derived length by its (float) scaling factor, 1.0 by default,
    so the refusal / warning shows it as a float (vLLM 0.34.0, transformers 5's rope_parameters; golden s-n035).
    ``auto_fit``: a user value of -1 ("auto") is derived as if unset (vLLM 0.34.0; the engine fits it to the KV
    cache later, which postinit does not model).
    ``null_factor_warning``: a scaled RoPE with a null ``factor`` warns and counts as 1.0 (vLLM 0.34.0; before it,
    multiplying by None is a TypeError).

    Runs once: it reads the user's value (kept as original_max_model_len) and replaces it. With
    disable_sliding_window vLLM then clears the text config's sliding_window. Its message is
    vLLM's warnings on the way (at warning level); the resulting "Using max model len" record
    (info) is ``model.max-model-len-log``'s.
    """
    if not _present(c):
        return None
    user = c[M + "max_model_len"]
    derived, key = _config_len(c)
    changes: dict[str, Any] = {M + "original_max_model_len": user}
    if c[M + "disable_sliding_window"]:
        changes[T + "sliding_window"] = None
    if derived == float("inf") and (user is not None or c[M + "spec_target_max_model_len"] is not None):
        # a config.json without a length key: a user value is kept as given, -1 too (the model validator then
        # refuses it, vLLM 0.34.0: golden s-y124)
        value = user if user is not None else c[M + "spec_target_max_model_len"]
        return Outcome({**changes, M + "max_model_len": value}, message="")
    if auto_fit and user == -1:
        user = None
    warnings = [no_key_message.format(list(MAX_LEN_KEYS))] if derived == float("inf") else []
    derived = 2048 if derived == float("inf") else derived
    rope = c[T + "rope_scaling"]
    if rope is not None and "gemma3" not in (c[T + "model_type"] or "") and "rope_type" not in rope \
            and legacy_type_key_error:
        # config.json's rope scaling is patched as it loads; a dict-valued hf_overrides one is not
        return Violation("'rope_type'", error="KeyError", hint="name the scaling as rope_type, not type")
    if (null_factor_warning and rope is not None and "gemma3" not in (c[T + "model_type"] or "")
            and _rope_type(rope) not in unscaled_rope and "factor" in rope and rope["factor"] is None):
        warnings.append(NULL_FACTOR_WARNING)
    scaled = _scaled_len(c, derived, unscaled_rope)
    problem = (_rope_blocks_sliding_off(c, derived) if sliding_window_checks else None) or (
        _user_len_problem(c, user, scaled, key, sliding_window_checks,
                          rope_float and "gemma3" not in (c[T + "model_type"] or "")
                          and (c[T + "rope_theta"] is not None or rope is not None)) if user is not None else None)
    if isinstance(problem, Violation):
        return problem
    value = _final_len(c, user, scaled)
    message = "\n".join([*warnings, *([problem] if problem else [])])
    return Outcome({**changes, M + "max_model_len": value}, message=message, level="warning")


@rule(
    "model.max-model-len-log",
    title="vLLM logs the max_model_len it settled on",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "max_model_len"),
    source=f"{SRC}.get_and_verify_max_len; ref 2.1.4",
    message="Using max model len {n}",
    level="info",
)
def max_model_len_log(c: Mapping[str, Any]) -> RuleResult:
    """Every ModelConfig logs its max_model_len at info, after any warning of ``model.max-model-len``."""
    if not _present(c):
        return None
    return Outcome.log(n=c[M + "max_model_len"])


POST_INIT = sequence(
    "model.post-init",
    model_type_known, batch_invariant_eager, architecture_supported, runner_supported, architecture, dtype,
    dtype_float16_unsupported,
    dtype_cast, v0_interleaved_disables_sliding_window, max_model_len, max_model_len_log, quantization,
    "verify.rocm-quant-allowlist", "verify.rocm-triton-awq", rocm_encoder_decoder_eager, bnb_8bit_eager,
    title="ModelConfig.__post_init__'s order: the architecture, the dtype, max_model_len, the quantization "
    "(with the platform's verify_quantization), then the eager-mode switches",
    source=f"{SRC}.__post_init__",
)


@rule(
    "model.sleep-mode-platform",
    title="Sleep mode needs a platform that has it (CUDA)",
    phase=PHASE,
    kind="check",
    reads=("model_config", M + "enable_sleep_mode", "platform.kind"),
    source=f"{SRC}.__post_init__, vllm/platforms/interface.py Platform.is_sleep_mode_available; ref 2.1",
    message="Sleep mode is not supported on current platform.",
)
def sleep_mode_platform(c: Mapping[str, Any], *, platforms: tuple[str, ...] = ("cuda",)) -> RuleResult:
    """Sleep mode offloads weights through CUDA's virtual memory allocator; vLLM refuses it elsewhere before it
    reads the model's config.json. ``platforms``: the platform kinds that have it (0.11.1 adds ROCm)."""
    if _present(c) and c[M + "enable_sleep_mode"] and c["platform.kind"] not in platforms:
        return Violation("Sleep mode is not supported on current platform.")
    return None
