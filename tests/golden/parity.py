"""Differential comparison of postinit against real vLLM's resolved configs.

``python -m tests.golden.parity [PATTERN]`` prints, per golden case, every way
postinit's resolution differs from the exact-seed oracle's;
``python -m tests.golden.parity --vllm-version 0.11.1 [PATTERN]`` compares postinit's
0.11.1 rulebook with the vllm==0.11.1 wheel's answers (``expected-0.11.1``);
``python -m tests.golden.parity --coverage`` lists, for every rule of the
rulebook, whether real vLLM exercised it (see :mod:`tests.golden.coverage`).
The test module asserts on the same comparison.

What :func:`compare` holds postinit to, for every case:

* **the outcome**: resolved, or failed; for a failure the exception type, the
  message (numbers and addresses normalised, :func:`norm_log`) and the **stage**
  where vLLM failed (``parse``, ``engine_args``, a sub-config such as
  ``scheduler_config``, ``create_engine_config``, ``vllm_config``): postinit's
  is the first violation as vLLM raises it (``Resolution.error``: its stage from
  :mod:`postinit.rules.observed`, and pydantic's ``ValidationError`` around it,
  ``wrapped_by``, whose text is compared without the input it shows), or, for
  an input refused before the rulebook runs (a flag vLLM's parser refuses, a
  sub-config pydantic cannot build), the :class:`~postinit.errors.InputError`'s
  ``stage``, ``error`` and ``vllm_message``;
* **every field** of every sub-config of a resolved case, nested objects
  (``compilation_config.pass_config``, ``parallel_config.eplb_config``, the
  speculative config's target configs) included: an oracle key is either a
  schema path of postinit's, an alias of one (:data:`ALIASES`), or listed with
  its reason in :data:`NOT_COMPARED` / :data:`NOT_MODELLED`; any other key is a
  mismatch, so nothing is skipped silently;
* **the logs, both ways**: every record vLLM logged while building the
  sub-configs (``logs_sub_configs``) and in ``VllmConfig(...)`` (``logs``) is
  a postinit message of the same text (numbers normalised) at vLLM's level,
  and every postinit message that stands for a vLLM log record (all but the
  explanations of :data:`postinit.rules.observed.EXPLANATIONS` and
  ``quirk.*``) is one of vLLM's records; the flag parser's warnings (notes of
  kind ``flag``: deprecated flags) count as messages, as vLLM logs them while
  parsing and in ``create_engine_config``. :data:`KNOWN_MISSING_LOGS` lists the
  accepted gaps (documented in docs/divergences.md).

Per version: an oracle key that is a field the version does not have but an alias
of one (:data:`VERSION_ALIASES`, e.g. 0.11.1's deprecated
``SchedulerConfig.chunked_prefill_enabled`` property) is compared with the field it
aliases; the oracle's ``_absent`` list (fields it probed and the version lacks)
must name fields postinit's version lacks too.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import postinit
from postinit._upgrade import FIELD_ALIASES
from postinit.engine import Fired, Trace, jsonable
from postinit.errors import InputError
from postinit.rules import versions
from postinit.rules.observed import is_explanation
from postinit.schema import Platform
from tests.golden.corpus import GOLDEN_DIR, MODELS_DIR, GoldenCase, decompress_padding, load_cases

SUB_CONFIGS = (
    "model_config", "cache_config", "parallel_config", "scheduler_config", "device_config",
    "load_config", "lora_config", "speculative_config", "structured_outputs_config",
    "observability_config", "compilation_config", "kv_transfer_config", "kv_events_config",
)
SUB_CONFIGS_0340 = (
    *SUB_CONFIGS, "attention_config", "aux_output_config", "engram_config", "mamba_config", "kernel_config",
    "watermark_config", "diffusion_config", "logging_config", "profiler_config", "ec_transfer_config",
    "ec_manager_config", "reasoning_config", "weight_transfer_config", "watchdog_config", "offload_config",
)
"""vLLM 0.34.0's 28 sub-configs (``VllmConfig``'s fields in vllm/config/vllm.py)."""
VLLM_SCALARS_0340 = ("optimization_level", "performance_mode", "shutdown_timeout")
"""``VllmConfig``'s own scalar arguments a 0.34.0 config-mode case may give."""


def sub_configs(version: str) -> tuple[str, ...]:
    """The sub-configs a version's ``VllmConfig`` has (the ones compared field by field)."""
    return SUB_CONFIGS_0340 if version == "0.34.0" else SUB_CONFIGS


USAGE = {"OPENAI_API_SERVER": "serve", "LLM_CLASS": "llm", "ENGINE_CONTEXT": "engine", "API_SERVER": "api_server",
         "OPENAI_BATCH_RUNNER": "batch", "UNKNOWN_CONTEXT": "unknown", None: "none"}
"""The oracle's usage context -> postinit's ``usage`` (``postinit._request.UsageSpec``)."""

NOT_COMPARED: Mapping[str, str] = {
    "model_config.model": "the fixture's path in the oracle's checkout (models/x; here the fixture's directory)",
    "model_config.tokenizer": "the fixture's path in the oracle's checkout",
    "model_config.hf_config_path": "the fixture's path in the oracle's checkout (--hf-config-path models/x)",
    "model_config.served_model_name": "the fixture's path in the oracle's checkout",
    "speculative_config.model": "the draft fixture's path in the oracle's checkout",
}
"""Oracle keys that are identifiers or paths, not decisions of config resolution: path -> why.

(``kv_transfer_config.engine_id``, a random UUID, is dropped by the oracle's ``volatile`` handling.)"""

NOT_MODELLED: Mapping[str, str] = {
    "parallel_config.use_ray": "a ParallelConfig @property (backend == 'ray' or a Ray placement group); "
    "postinit's schema holds the fields it is computed from",
    "parallel_config.use_sequence_parallel_moe": "a ParallelConfig @property (VLLM_USE_SEQUENCE_PARALLEL_MOE "
    "and the all2all backend); not a field",
    "parallel_config.world_size_across_dp": "a ParallelConfig @property (world_size * data_parallel_size); not a field",
    "speculative_config.use_eagle": "a SpeculativeConfig method (method in eagle/eagle3/mtp); not a field",
    "speculative_config.target_model_config.hf_config": "the repr of transformers' config object "
    "(postinit holds its keys as model_config.hf_config.* facts)",
    "speculative_config.target_model_config.hf_text_config": "the repr of transformers' config object",
    "speculative_config.draft_model_config": "the draft's own ModelConfig (EAGLE / draft-model / MTP); postinit "
    "reads the draft's config.json (draft.*) and derives its max_model_len, but builds no whole ModelConfig for it "
    "(for n-gram it is the target's and is compared, see ALIASES)",
    "speculative_config.draft_parallel_config": "the draft's ParallelConfig built by create_draft_parallel_config "
    "(for n-gram it is the target's and is compared, see ALIASES)",
    # 0.34.0
    "parallel_config.use_all2all": "a ParallelConfig @property (0.34.0: ep and the all2all backend); not a field",
    "parallel_config.use_ubatching": "a ParallelConfig @property (0.34.0: DBO or ubatch_size > 1); not a field",
    "speculative_config.uses_target_hidden_states": "a SpeculativeConfig method (0.34.0); not a field",
    "cache_config._block_size_resolved": "a private attribute (0.34.0: worker start-up bookkeeping); pydantic "
    "models hold no leading-underscore fields",
    "cache_config._extensible_kv_cache_resolved": "a private attribute (0.34.0 bookkeeping)",
    "parallel_config._allow_auto_resolve_cp_interleave_size": "a private attribute (0.34.0 bookkeeping)",
    "parallel_config._coord_store_port": "a private attribute (0.34.0: a random free port)",
    "parallel_config._numa_bind_auto": "a private attribute (0.34.0 bookkeeping)",
    "reasoning_config._reasoning_start_token_ids": "private (0.34.0): the tokenizer's ids of reasoning_start_str "
    "(ReasoningConfig.initialize_token_ids); postinit loads no tokenizer",
    "reasoning_config._reasoning_end_token_ids": "private (0.34.0): the tokenizer's ids of reasoning_end_str; "
    "postinit loads no tokenizer",
    "reasoning_config._natural_reasoning_end_token_ids": "private (0.34.0): the tokenizer's ids of the parser's end "
    "string; postinit loads no tokenizer",
    "reasoning_config._enabled": "private (0.34.0): whether initialize_token_ids got non-empty ids from the "
    "tokenizer; postinit models only the warning when it cannot start (reasoning.token-ids-not-initialized)",
    "speculative_config.draft_load_config": "the draft's LoadConfig (0.34.0); postinit has no draft configs",
    "speculative_config.target_parallel_config._allow_auto_resolve_cp_interleave_size": "a private attribute "
    "(0.34.0 bookkeeping; the target's ParallelConfig is parallel_config)",
    "speculative_config.target_parallel_config._coord_store_port": "a private attribute (0.34.0: a random free port)",
    "speculative_config.target_parallel_config._numa_bind_auto": "a private attribute (0.34.0 bookkeeping)",
}
"""Oracle keys (a path, or a prefix of paths) postinit's schema has no field for: path -> why."""

ALIASES: Mapping[str, str] = {
    "speculative_config.target_model_config": "model_config",
    "speculative_config.target_parallel_config": "parallel_config",
}
"""Nested oracle objects that are the same vLLM object as a sub-config: compared field by field with it."""
VERSION_ALIASES: Mapping[str, Mapping[str, str]] = FIELD_ALIASES
"""Per version: oracle keys that are properties aliasing another field there (not fields of their own):
postinit's own table (``postinit._upgrade.FIELD_ALIASES``), which ``postinit upgrade`` compares by too."""
VARIANTS = {"d7fb10c57": "seed", "0.11.1": "0.11.1", "0.34.0": "0.34.0"}
"""The golden corpus variant (``corpus.EXPECTED_DIRS``) holding each version's real-vLLM answers."""
NGRAM_ALIASES: Mapping[str, str] = {
    "speculative_config.draft_model_config": "model_config",
    "speculative_config.draft_parallel_config": "parallel_config",
}
"""For n-gram speculation vLLM's draft configs *are* the target's (``draft_model_config = target_model_config``)."""

VLLM_CONFIG_FIELDS: Mapping[str, str] = {
    "vllm_config.quant_config": "quant_config.class_name",
    "vllm_config.additional_config": "additional_config",
    "vllm_config.optimization_level": "optimization_level",
    "vllm_config.performance_mode": "performance_mode",
    "vllm_config.shutdown_timeout": "shutdown_timeout",
    "vllm_config.num_hash_lookahead_tokens": "num_hash_lookahead_tokens",
}
"""``VllmConfig``'s own attributes in the oracle dump (``post.vllm_config``) -> postinit's path."""

KNOWN_MISSING_LOGS: Mapping[str, str] = {
    "HF_HUB_OFFLINE is True, replace model_id [models/X] to model_path [models/X]": (
        "the oracle process runs with HF_HUB_OFFLINE=1 (set by vllm_oracle.py, not by the case), and "
        "EngineArgs.__post_init__ logs this for every argv case; postinit's env facts are VLLM_* "
        "variables and do not include huggingface_hub's offline switch"
    ),
    "Error retrieving safetensors: Cannot reach https://huggingface.co/models/X/resolve/main/model.safetensors: "
    "offline mode is enabled. To disable it, please unset the `HF_HUB_OFFLINE` environment variable., retrying N "
    "of N": (
        "a config.json without torch_dtype makes vLLM read the checkpoint's safetensors metadata; the fixture "
        "directory has no weights, so it asks the Hub, which the oracle's HF_HUB_OFFLINE=1 refuses (n283); "
        "postinit does not read weights' metadata and knows nothing of the Hub"
    ),
    "Error retrieving safetensors: Cannot reach https://huggingface.co/models/X/resolve/main/model.safetensors: "
    "offline mode is enabled. To disable it, please unset the `HF_HUB_OFFLINE` environment variable.": (
        "the same lookup's last retry (n283)"
    ),
    **dict.fromkeys([f"The model (<class '{cls}'>) is missing the `{method}` method." for cls in (
        "vllm.model_executor.models.medusa.Medusa", "vllm.model_executor.models.longcat_flash_mtp.LongCatFlashMTP")
        for method in ("get_input_embeddings", "embed_input_ids")], (
        "vLLM inspects a model class the first time a machine resolves it and caches what it found "
        "(VLLM_CACHE_ROOT/modelinfos; the oracle's is /tmp/vllm-oracle-cache*): a class without the input-embeddings "
        "method warns then, three times, and never again on that machine (n352, n353: the golden answers have no "
        "such record); not a decision of config resolution")),
}
"""vLLM log texts (``norm_log``, fixture names as ``X``) postinit does not produce -> why. In docs/divergences.md."""


CALLER_FLAGS: Mapping[str, str] = {"ir_op_priority": "--ir-op-priority"}
"""A caller-mode case's ``engine_args`` (EngineArgs keywords no sub-config has a field for) -> the flag postinit
takes it as: the flag's parse type builds the same object from the JSON that EngineArgs.__post_init__ builds from
the dict (for a value both accept; a refused one would be refused at a different stage, so none is written)."""


def fixture_path(name: str, models: str | None = None) -> str:
    """postinit's model for an oracle fixture name (``llama``, ``models/llama``): the fixture's local directory.

    ``models`` names that directory's parent as a (relative) path instead of ``MODELS_DIR``: with the
    working directory at ``tests/golden``, ``models="models"`` gives the very strings the oracle used,
    which vLLM hashes (``ModelConfig.compute_hash`` includes the model path).
    """
    if "/" in name and not name.startswith("models/"):
        return name
    bare = name.removeprefix("models/")
    return f"{models}/{bare}" if models is not None else str(MODELS_DIR / bare)


def platform_of(gc: GoldenCase) -> Platform:
    spec = dict(gc.expected["platform"])
    fields = set(Platform.model_fields)
    if spec.get("kind") == "cpu":
        spec.setdefault("cpu_arch", "x86_64")
    return Platform(**{k: v for k, v in spec.items() if k in fields})


def divergences(version: str = versions.DEFAULT_VERSION) -> dict[str, str]:
    """The documented divergences of a version: case -> reason (``divergences.json``, ``divergences-<v>.json``)."""
    name = "divergences.json" if version == versions.DEFAULT_VERSION else f"divergences-{version}.json"
    path = GOLDEN_DIR / name
    return json.loads(path.read_text()) if path.exists() else {}


def inputs_of(gc: GoldenCase, models: str | None = None, version: str = versions.DEFAULT_VERSION,
              ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """postinit's input for a golden case, the way the oracle built it in vLLM: ``(config, keywords)`` of
    :func:`postinit.resolve` (and :func:`postinit.upgrade`), the version left out (``models``: see ``fixture_path``)."""
    case = gc.case

    plat = platform_of(gc)
    env = {k: v for k, v in (case.get("env") or {}).items()}
    if gc.argv_mode:
        argv = [fixture_path(a, models) if a.startswith("models/") else a for a in case["argv"]]
        for i, a in enumerate(argv[:-1]):  # a draft fixture in --speculative-config's JSON, like the target's
            if a == "--speculative-config" and argv[i + 1].startswith("{"):
                try:
                    spec = json.loads(argv[i + 1])
                except ValueError:
                    continue
                if isinstance(spec, dict) and isinstance(spec.get("model"), str) \
                        and spec["model"].startswith("models/") and (MODELS_DIR / spec["model"][7:]).is_dir():
                    argv[i + 1] = json.dumps({**spec, "model": fixture_path(spec["model"], models)})
        return None, {"argv": argv, "usage": USAGE[case.get("usage_context", "OPENAI_API_SERVER")],
                      "platform": plat, "env": env}
    caller = gc.caller_mode
    config: dict[str, Any] = {}
    for scalar in VLLM_SCALARS_0340:
        if case.get(scalar) is not None:
            config[scalar] = case[scalar]
    for sub in sub_configs(version):
        if sub in case and case[sub] is not None and sub != "model_config":
            value = case[sub]
            config[sub] = {} if value is True else dict(value)
    if config.get("lora_config") is False:
        del config["lora_config"]
    spec = config.get("speculative_config")
    if spec and isinstance(spec.get("model"), str) and (MODELS_DIR / spec["model"]).is_dir():
        spec["model"] = fixture_path(spec["model"], models)
    if case.get("additional_config") is not None:
        config["additional_config"] = case["additional_config"]
    model = case.get("model", "llama")
    if isinstance(model, dict):
        mc = dict(model)
        model = mc.pop("model", mc.pop("fixture", None))
        config["model_config"] = {**mc, **(case.get("model_config") or {})}
    elif case.get("model_config"):
        config["model_config"] = dict(case["model_config"])
    if model is not None:
        config.setdefault("model_config", {})["model"] = fixture_path(model, models)
        if not caller:  # the oracle's config mode skips the tokenizer unless told (caller mode passes what it is given)
            config["model_config"].setdefault("skip_tokenizer_init", True)
    keywords: dict[str, Any] = {"model": fixture_path(model, models) if model else None, "platform": plat, "env": env}
    if caller:  # a Python caller: the same nested dict through EngineArgs(**kwargs) (vllm_oracle.caller_kwargs)
        keywords["usage"] = USAGE[case.get("usage_context", "ENGINE_CONTEXT")]
        extra = dict(case.get("engine_args") or {})
        argv = [a for name in sorted(extra) for a in (CALLER_FLAGS[name], json.dumps(extra[name]))]
        if argv:
            keywords["argv"] = argv
    return config, keywords


def run(gc: GoldenCase, models: str | None = None, **kw: Any) -> postinit.Resolution:
    """Resolve a golden case with postinit, the way the oracle built it in vLLM (``models``: see ``fixture_path``)."""
    config, inputs = inputs_of(gc, models, str(kw.get("vllm_version") or versions.DEFAULT_VERSION))
    if config is None:
        return postinit.resolve(**inputs, **kw)
    return postinit.resolve(config, **inputs, **kw)


def _norm(path: str, value: Any) -> Any:
    if isinstance(value, str) and _ABS_FIXTURE.fullmatch(value):
        return "models/" + value.rsplit("/", 1)[1]  # a fixture directory postinit was given (vLLM: models/x)
    if isinstance(value, dict):
        return {k: _norm(f"{path}.{k}", v) for k, v in value.items()}
    if path == "optimization_level" and isinstance(value, str) and value[:1] == "O":
        return int(value[1:])  # 0.34.0's OptimizationLevel enum, reported by name (O0..O3)
    if isinstance(value, str) and value.startswith("device(type='"):
        return value[len("device(type='"):-2]  # torch.device's repr; postinit keeps the type string
    padded = path.endswith("compilation_config.bs_to_padded_graph_size")
    if padded and isinstance(value, list) and value and isinstance(value[0], list):
        return decompress_padding(value)
    return value


@dataclass
class Comparison:
    case: str
    expected_ok: bool
    ok: bool | None
    error: str | None = None
    """A crash of postinit's, or an input error where vLLM did not fail while parsing."""
    mismatches: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """path (or ``<error.type>``/``<error.message>``/``<error.stage>``) -> (postinit's value, vLLM's value)."""
    missing_logs: list[tuple[str, str]] = field(default_factory=list)
    """vLLM's log records (level, msg) with no postinit message of the same text (numbers normalised)."""
    log_level_mismatches: list[tuple[str, str, str]] = field(default_factory=list)
    """vLLM's records postinit has with another level: (vLLM level, postinit level, msg)."""
    extra_logs: list[tuple[str, str, str]] = field(default_factory=list)
    """postinit messages standing for vLLM log records that vLLM did not log: (rule, level, msg)."""
    fired: tuple[str, ...] = ()
    """The rules that changed a value, logged or raised in postinit's resolution of this case."""
    raised: str | None = None
    """The rule whose violation stopped postinit's resolution (None when it resolved)."""
    version: str = versions.DEFAULT_VERSION
    """The vLLM version postinit resolved the case as."""

    @property
    def matches(self) -> bool:
        """Outcome, error, every field and the logs both ways all agree with real vLLM."""
        return (self.error is None and not self.mismatches and self.ok == self.expected_ok
                and not self.missing_logs and not self.log_level_mismatches and not self.extra_logs)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ABS_FIXTURE = re.compile(r"/\S*/tests/golden/models/[\w.-]+")
_FIXTURE_PATH = re.compile(r"(?:models|fixtures)/[\w.-]+|/\S*/tests/golden/models/[\w.-]+")


def norm_log(msg: str) -> str:
    """A log text with every number replaced by N and hex addresses by 0x?, whitespace-trimmed."""
    # the 0.34.0 oracle writes an address as 0x? already (its _normalize_msg)
    return _NUMBER.sub("N", re.sub(r"0x(?:[0-9a-fA-F]+|\?)", "\0", msg)).replace("\0", "0x?").strip()


def _norm_known(msg: str) -> str:
    """``norm_log`` with fixture paths written as ``models/X`` (the key form of KNOWN_MISSING_LOGS)."""
    return norm_log(_FIXTURE_PATH.sub("models/X", msg))


def vllm_logs(gc: GoldenCase) -> list[tuple[str, str]]:
    """vLLM's log records for a case, sub-config construction first: (level lower-cased, msg)."""
    records = [*(gc.expected.get("logs_sub_configs") or []), *(gc.expected.get("logs") or [])]
    return [(str(rec.get("level", "")).lower(), str(rec.get("msg", ""))) for rec in records]


@dataclass(frozen=True)
class _ParseLog:
    """A record a sub-config built while parsing logged before a later flag was refused (a ``parse_log`` note)."""

    subject: str
    level: str
    message: str
    kind: str = "parse_log"


@dataclass(frozen=True)
class Refused:
    """What postinit said before it refused an input: the trace of the parse stage (``SubConfigError.trace``)."""

    trace: Trace | None = None
    notes: tuple[Any, ...] = ()

    def messages(self) -> list[Fired]:
        return [e for e in self.trace.fired if e.message] if self.trace is not None else []


Said = postinit.Resolution | Refused | None
"""A resolution, or what an input error's trace holds, or nothing: whose messages the log comparison reads."""


def _messages(r: Said) -> list[tuple[str, str, str]]:
    """postinit's fired messages standing for vLLM log records, one per line: (rule, level, text)."""
    out = []
    # the flag parser's warnings (deprecated flags) are vLLM's argparse / create_engine_config records
    for note in (r.notes if r is not None else ()):
        if note.kind == "flag":
            out.append(("argv", "warning", note.message))
        elif note.kind == "parse_log":  # a JSON-valued flag's sub-config logged it while vLLM parsed
            out.append((note.subject, str(note.level), note.message))
    for event in (r.messages() if r is not None else []):
        if is_explanation(event.rule):
            continue
        for line in event.message.splitlines():
            if line.strip():
                out.append((event.rule, str(event.level), line))
    return out


def _our_logs(r: Said) -> dict[str, set[str]]:
    """postinit's normalised log texts (one per message line; a fixture's path as ``models/X``: each side put it
    where its checkout has it) -> their levels."""
    ours: dict[str, set[str]] = {}
    for _, level, text in _messages(r):
        ours.setdefault(_norm_known(text), set()).add(level)
    return ours


def missing_logs(gc: GoldenCase, r: Said) -> list[tuple[str, str]]:
    """vLLM's records whose normalised text no postinit message line has (known gaps left out)."""
    ours = _our_logs(r)
    return [(level, msg) for level, msg in vllm_logs(gc)
            if _norm_known(msg) not in ours and _norm_known(msg) not in KNOWN_MISSING_LOGS]


def log_level_mismatches(gc: GoldenCase, r: Said) -> list[tuple[str, str, str]]:
    """vLLM's records postinit has only at another level: (vLLM level, postinit levels, msg)."""
    ours = _our_logs(r)
    return [(level, "/".join(sorted(ours[_norm_known(msg)])), msg) for level, msg in vllm_logs(gc)
            if _norm_known(msg) in ours and level not in ours[_norm_known(msg)]]


def extra_logs(gc: GoldenCase, r: Said) -> list[tuple[str, str, str]]:
    """postinit message lines (vLLM log records by claim) with no vLLM record of the same text."""
    theirs = {_norm_known(msg) for _, msg in vllm_logs(gc)}
    return [(rule, level, text) for rule, level, text in _messages(r) if _norm_known(text) not in theirs]


def _fired_before(said: Refused, rule: str | None) -> tuple[str, ...]:
    ids = [e.rule for e in said.messages()] + ([rule] if rule else [])
    return tuple(dict.fromkeys(ids))


def _fired(r: postinit.Resolution) -> tuple[str, ...]:
    ids = [e.rule for e in r.trace.fired if e.changes or e.message]
    ids += [v.rule for v in r.violations]
    return tuple(dict.fromkeys(ids))


def compare(gc: GoldenCase, version: str = versions.DEFAULT_VERSION) -> Comparison:
    """Compare postinit's resolution of ``gc`` (as vLLM ``version``) with real vLLM's (see the module docstring)."""
    exp_ok = gc.ok
    err = gc.expected.get("error") or {}
    try:
        r = run(gc, strict=True, vllm_version=version)
    except InputError as e:
        # refused before the rulebook runs: vLLM's parser (stage parse), or a sub-config vLLM cannot build
        # from the dict (stage: that sub-config); the error must be vLLM's, where vLLM raises it
        said = Refused(getattr(e, "trace", None), tuple(_ParseLog(rule, level, text)
                                                          for rule, level, text in getattr(e, "said_before", ())))
        cmp = Comparison(gc.name, exp_ok, False, None if not exp_ok and e.stage is not None else f"InputError: {e}",
                         missing_logs=missing_logs(gc, said), log_level_mismatches=log_level_mismatches(gc, said),
                         extra_logs=extra_logs(gc, said), fired=_fired_before(said, e.rule), raised=e.rule,
                         version=version)
        if not exp_ok and e.stage is not None:
            _compare_error(cmp, gc, e.error, e.vllm_message, e.stage, f"{e.stage} ({type(e).__name__})")
        return cmp
    except Exception as e:  # a crash is a finding, not a test error
        return Comparison(gc.name, exp_ok, None, f"{type(e).__name__}: {e}", version=version,
                          missing_logs=missing_logs(gc, None))
    cmp = Comparison(gc.name, exp_ok, r.ok, version=version, missing_logs=missing_logs(gc, r),
                     log_level_mismatches=log_level_mismatches(gc, r), extra_logs=extra_logs(gc, r),
                     fired=_fired(r), raised=r.violations[0].rule if r.violations else None)
    if not exp_ok:
        if r.ok:
            cmp.mismatches["<error>"] = (None, f"{gc.expected.get('stage')}: {err.get('type')}: {err.get('message')}")
        else:
            raised = r.error
            assert raised is not None
            _compare_error(cmp, gc, raised.type, raised.message, raised.stage, f"{raised.stage} ({raised.rule})")
            if raised.wrapped_by != err.get("wrapped_by"):
                cmp.mismatches["<error.wrapped_by>"] = (raised.wrapped_by, err.get("wrapped_by"))
            elif raised.wrapper_message is not None and _norm_wrapper(raised.wrapper_message) != _norm_wrapper(
                    str(err.get("wrapper_message"))):
                cmp.mismatches["<error.wrapper_message>"] = (raised.wrapper_message, err.get("wrapper_message"))
        return cmp
    if not r.ok:
        v = r.violations[0]
        cmp.mismatches["<error>"] = (f"{v.stage}: {v.error}: {v.message} ({v.rule})", None)
        return cmp
    state = r.state
    space = _space()
    post = gc.expected.get("post") or {}
    ngram = isinstance(post.get("speculative_config"), dict) and post["speculative_config"].get("method") == "ngram"
    for sub in sub_configs(version):
        value = post.get(sub)
        present = sub in space and space.info[sub].presence
        if value is None:
            if present and state.get(sub):
                cmp.mismatches[sub] = (True, None)
            continue
        if present and not state.get(sub):
            cmp.mismatches[sub] = (None, "present")
            continue
        _compare_fields(cmp, state, sub, value, ngram)
    for key, exp in (post.get("vllm_config") or {}).items():
        path = f"vllm_config.{key}"
        if path not in VLLM_CONFIG_FIELDS:
            cmp.mismatches[path] = ("<not in postinit's schema>", exp)
        elif jsonable(state[VLLM_CONFIG_FIELDS[path]]) != _norm(VLLM_CONFIG_FIELDS[path], exp):
            cmp.mismatches[path] = (jsonable(state[VLLM_CONFIG_FIELDS[path]]), exp)
    return cmp


def _compare_error(cmp: Comparison, gc: GoldenCase, error: str | None, message: str | None, stage: str | None,
                   where: str) -> None:
    """postinit's account of vLLM's exception against the oracle's: type, message (normalised) and stage."""
    err = gc.expected.get("error") or {}
    if error != err.get("type"):
        cmp.mismatches["<error.type>"] = (error, err.get("type"))
    # a fixture's path is where each side put it (the oracle's models/X, postinit's checkout path)
    if message is None or _norm_known(message) != _norm_known(str(err.get("message"))):
        cmp.mismatches["<error.message>"] = (message, err.get("message"))
    if stage != gc.expected.get("stage"):
        cmp.mismatches["<error.stage>"] = (where, gc.expected.get("stage"))


_INPUT_VALUE = re.compile(r"input_value=.*, input_type=\w+\]")


def _norm_wrapper(text: str) -> str:
    """pydantic's wrapper text without the input it shows (vLLM's constructor arguments, object reprs and all)."""
    return _norm_known(_INPUT_VALUE.sub("input_value=?]", text))


def _space() -> Any:
    return postinit.paths()


def _not_modelled(path: str, ngram: bool) -> bool:
    if ngram and path in NGRAM_ALIASES:
        return False
    return any(path == p or path.startswith(p + ".") for p in NOT_MODELLED)


@dataclass(frozen=True)
class OracleField:
    """One key of an oracle dump as the comparator reads it (:func:`oracle_fields`)."""

    kind: str
    """``leaf`` (a value), ``presence`` (an optional object: compared by being there), or a key the comparator
    counts as a mismatch: ``absent`` (the ``_absent`` list names fields postinit's version has),
    ``not_a_field`` (a field postinit's version lacks), ``unknown`` (no schema path)."""
    opath: str
    """The oracle's key (``speculative_config.target_model_config.max_model_len``)."""
    name: str
    """postinit's path for it, as both versions call it (``model_config.max_model_len``; a version's property
    keeps its own name, ``scheduler_config.chunked_prefill_enabled``)."""
    path: str
    """postinit's path whose value it is in this version (the field a property reads)."""
    value: Any
    """The oracle's value (``leaf``: normalised as the comparator compares it)."""


def oracle_fields(version: str, oracle_prefix: str, post: Mapping[str, Any], ngram: bool,
                  ours_prefix: str | None = None) -> list[OracleField]:
    """Every key of the oracle object ``post`` (at ``oracle_prefix``) the comparator holds postinit to, in order.

    The one walk of the field set :func:`compare` compares (and the upgrade check, ``upgrade_check.py``):
    keys not compared or not modelled are left out, aliases and nested objects followed.
    """
    space = _space()
    ours_prefix = ours_prefix or oracle_prefix
    absent = versions.get(version).absent_paths
    out: list[OracleField] = []
    for key, exp in post.items():
        opath = f"{oracle_prefix}.{key}"
        name = f"{ours_prefix}.{key}"
        if opath in NOT_COMPARED or name in NOT_COMPARED or _not_modelled(opath, ngram):
            continue
        if key == "_absent":  # fields the oracle probed for and the version lacks: postinit's lacks them too
            missing = [n for n in exp if f"{ours_prefix}.{n}" not in absent]
            if missing:
                out.append(OracleField("absent", opath, name, name, (f"postinit's {version} has {missing}", exp)))
            continue
        path = VERSION_ALIASES.get(version, {}).get(name, name)
        if path in absent:
            out.append(OracleField("not_a_field", opath, name, path, exp))
            continue
        alias = ALIASES.get(opath) or (NGRAM_ALIASES.get(opath) if ngram else None)
        if alias is not None and isinstance(exp, Mapping):
            out += oracle_fields(version, opath, exp, ngram, alias)
            continue
        if path not in space:
            if isinstance(exp, Mapping) and any(p.startswith(path + ".") for p in space.paths):
                out += oracle_fields(version, opath, exp, ngram, path)  # a nested object: every key of it
            else:
                out.append(OracleField("unknown", opath, name, path, exp))
            continue
        if space.info[path].presence:
            out.append(OracleField("presence", opath, name, path, exp))
            if exp is not None and isinstance(exp, Mapping):
                out += oracle_fields(version, opath, exp, ngram, path)
            continue
        out.append(OracleField("leaf", opath, name, path, _norm(path, exp)))
    return out


def _compare_fields(cmp: Comparison, state: Mapping[str, Any], oracle_prefix: str, post: Mapping[str, Any],
                    ngram: bool, ours_prefix: str | None = None) -> None:
    """Compare every key of the oracle object ``post`` (at ``oracle_prefix``) with postinit's paths."""
    skip: list[str] = []  # an optional object postinit has not: its keys are not compared one by one
    for f in oracle_fields(cmp.version, oracle_prefix, post, ngram, ours_prefix):
        if any(f.opath.startswith(s + ".") for s in skip):
            continue
        if f.kind == "absent":
            cmp.mismatches[f.opath] = f.value
        elif f.kind == "not_a_field":
            cmp.mismatches[f.opath] = (f"<not a field of {cmp.version} in postinit>", f.value)
        elif f.kind == "unknown":
            cmp.mismatches[f.opath] = ("<not in postinit's schema>", f.value)
        elif f.kind == "presence":
            if (f.value is None) != (state[f.path] is None):
                cmp.mismatches[f.opath] = (state[f.path], "present" if f.value is not None else None)
                skip.append(f.opath)
        else:
            ours = jsonable(state[f.path])
            if ours != f.value and _norm(f.path, ours) != f.value:  # a fixture path postinit was given
                cmp.mismatches[f.opath] = (ours, f.value)


def log_report(comparisons: list[Comparison], limit: int = 25) -> list[str]:
    """Log disagreements by text and number of cases (every one also fails its case's comparison)."""
    cases: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    for c in comparisons:
        for level, msg in dict.fromkeys(c.missing_logs):
            key = (level, norm_log(msg))
            cases[key] += 1
            example.setdefault(key, f"{c.case}: {msg}")
    records = sum(len(c.missing_logs) for c in comparisons)
    lines = [f"=== vLLM log records without a postinit message of the same text: {len(cases)} distinct, "
             f"{records} records"]
    for (level, _), n in cases.most_common(limit):
        lines.append(f"  {n:4d} {level:7s} {example[(level, _)][:150]}")
    levels = Counter((v, o, norm_log(m)) for c in comparisons for v, o, m in dict.fromkeys(c.log_level_mismatches))
    lines.append(f"=== same text, other level: {len(levels)} distinct")
    for (v, o, m), n in levels.most_common(limit):
        lines.append(f"  {n:4d} vllm={v} postinit={o} {m[:130]}")
    extra = Counter((rule, lv, norm_log(m)) for c in comparisons for rule, lv, m in dict.fromkeys(c.extra_logs))
    lines.append(f"=== postinit messages vLLM did not log: {len(extra)} distinct")
    for (rule, lv, m), n in extra.most_common(limit):
        lines.append(f"  {n:4d} {rule} {lv} {m[:120]}")
    return lines


def compare_all(pattern: str = "*.json", version: str = versions.DEFAULT_VERSION) -> list[Comparison]:
    return [compare(gc, version) for gc in load_cases(VARIANTS[version], pattern=pattern, missing_ok=True)]


def partial_reason(c: Comparison) -> str:
    """Why a case of a partially modelled version does not match yet: the kinds of difference it shows."""
    what = [*c.mismatches][:4]
    if c.error:
        what.insert(0, c.error.split(":", 1)[0])
    if c.missing_logs:
        what.append(f"{len(c.missing_logs)} vLLM log record(s) not produced")
    if c.extra_logs:
        what.append(f"{len(c.extra_logs)} postinit message(s) vLLM does not log")
    return f"{c.version} is modelled partially; differs in: " + "; ".join(what)


def record_partial(comparisons: list[Comparison], version: str) -> int:
    """Write ``divergences-<version>.json`` for a partially modelled version: every case that does not match yet."""
    if versions.get(version).status is None:
        print(f"{version} is modelled completely: its divergences are written by hand, with their reasons")
        return 2
    out = {c.case: partial_reason(c) for c in comparisons if not c.matches}
    path = GOLDEN_DIR / f"divergences-{version}.json"
    path.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    good = sum(c.matches for c in comparisons)
    print(f"{good}/{len(comparisons)} match; wrote {len(out)} case(s) to {path.name}")
    return 0


def main(argv: list[str]) -> int:
    if "--coverage" in argv:
        from tests.golden.coverage import main as coverage_main

        return coverage_main([a for a in argv if a != "--coverage"])
    version = versions.DEFAULT_VERSION
    if "--vllm-version" in argv:
        i = argv.index("--vllm-version")
        version = versions.version_name(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    record = "--record" in argv
    argv = [a for a in argv if a != "--record"]
    pattern = argv[0] if argv else "*.json"
    comparisons = compare_all(pattern, version)
    if record:
        return record_partial(comparisons, version)
    for c in comparisons:
        if c.matches:
            continue
        print(f"--- {c.case}: ok={c.ok} expected_ok={c.expected_ok} {c.error or ''}")
        for p, (ours, theirs) in list(c.mismatches.items())[:12]:
            print(f"    {p}: postinit={str(ours)[:90]!s}  vllm={str(theirs)[:90]!s}")
        if len(c.mismatches) > 12:
            print(f"    ... {len(c.mismatches) - 12} more")
        for level, msg in c.missing_logs[:6]:
            print(f"    log missing: {level}: {msg[:110]}")
        for rule, level, msg in c.extra_logs[:6]:
            print(f"    log extra: {rule} {level}: {msg[:110]}")
    print("\n".join(log_report(comparisons)))
    good = sum(c.matches for c in comparisons)
    known = divergences(version)
    unexpected = [c.case for c in comparisons if not c.matches and c.case not in known]
    where = "divergences.json" if version == versions.DEFAULT_VERSION else f"divergences-{version}.json"
    label = "" if version == versions.DEFAULT_VERSION else f" {version}"
    print(f"{good}/{len(comparisons)} cases match real vLLM{label} exactly; "
          f"{len(comparisons) - good - len(unexpected)} documented divergence(s) ({where}), "
          f"{len(unexpected)} unexpected")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
