"""vLLM-side coverage of the golden corpus (issue 30): which of vLLM's config decisions, log calls and
raises the golden cases reach, per version.

Two steps, both outside the repo's data (the coverage data lives in ``/tmp/postinit-coverage/<version>``)::

    python3 tests/golden/oracle/coverage_report.py run 0.34.0      # every golden case of the version in
                                                                   # ONE oracle process under coverage.py
    python3 tests/golden/oracle/coverage_report.py report 0.34.0   # -> docs/coverage-0.34.0.md

``run`` executes the version's oracle (``PYTHONHASHSEED=0``, ``nice -n 10``) under ``coverage run``
with ``tests/golden/oracle/coverage.rc`` (branch coverage; the oracle forks one child per case, the
``fork``/``_exit`` patches keep their data) and combines the per-process files. ``report`` re-executes
itself with the oracle venv's Python (which has ``coverage``) and writes the doc. ``--cases GLOB``
restricts ``run`` to some cases (e.g. new ones); ``--data DIR`` picks another data directory, and
``report --before DATAFILE`` adds a before -> after column (the union of two runs is what the corpus
reaches: ``coverage combine --keep`` of both data files).

Sites (per file of the scope):
- **branch**: every arc out of a line with more than one possible exit (coverage.py's branch arcs);
- **log**: every ``logger.<level>(...)``, ``*_once(...)`` and ``warnings.warn(...)`` call;
- **raise**: every ``raise`` statement.

Scope: ``vllm/config/*.py``, ``vllm/engine/arg_utils.py`` and ``vllm/model_executor/models/config.py``
whole; in ``vllm/platforms/{interface,cuda,rocm,cpu}.py`` only the platform *hooks*: the methods whose
name the other scope files use as an attribute (``current_platform.check_and_update_config(...)``, ...),
and the helpers they call (by name).

Reachability on this CPU machine with simulated platforms is decided by the tables below (first
match wins), never by hand: a site is *unreachable* when its function is never named from the
resolution entry points or from a function they reach and no case runs it (``not-called``; a function of
the config files the corpus ran counts as called, whoever called it), when the oracle answers that
function itself (``probe``), when one of the conditions
it runs under (the positive ``if``/``elif``/``while`` tests around it, and for a branch arc the test it
takes the true side of) matches a pattern of ``UNREACHABLE``, or when one of the tests whose *false* side
it is on (``else``/``elif`` of a test, the body of ``if not test``, the false arc of a test) matches
``UNREACHABLE_ELSE`` (tests that always hold here), or when those tests contradict each other (``dead``: one
test both needed true and false, ``a and b`` needed false with each operand needed true, or ``x in {l1, l2}``
needed true with each ``x == l`` needed false). A branch arc out
of a line that is itself unreachable is unreachable. A site is ``typing`` when its function is a
``typing.overload`` signature or a ``...`` body, and unreachable for the reason a row of ``UNREACHABLE_FUNCS``
gives when its function (from an anchor statement on) is listed there (a condition its caller tests, e.g. the
no-Triton CPU model runner of a non-x86 CPU, or an early return where an optional package is missing). A reached
site is reachable whatever the tables say.
"""

from __future__ import annotations

# ruff: noqa: B023  (the per-file closures below are only called within their loop iteration)

import argparse
import ast
import glob
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
HOME = Path.home()
VERSIONS = {
    # version: (venv, oracle script, cwd, cases glob, extra oracle args)
    "d7fb10c57": (HOME / "oracle-venv-seed-full", Path("/tmp/oracle/vllm_oracle.py"), Path("/tmp/oracle"),
                  str(REPO / "tests/golden/cases/*.json"), []),
    "0.11.1": (HOME / "oracle-venv", Path("/tmp/oracle/vllm_oracle.py"), Path("/tmp/oracle"),
               str(REPO / "tests/golden/cases/*.json"), []),
    "0.34.0": (HOME / "oracle-venv-0.34.0", HERE / "vllm_oracle.py", REPO / "tests/golden",
               str(REPO / "tests/golden/cases-0.34.0/*.json"), ["--compact"]),
}
WHOLE_FILES = ["config/*.py", "engine/arg_utils.py", "model_executor/models/config.py"]
PLATFORM_FILES = ["platforms/interface.py", "platforms/cuda.py", "platforms/rocm.py", "platforms/cpu.py"]
LOG_LEVELS = {"debug", "info", "warning", "warn", "error", "exception", "critical"}
ONCE = {"warning_once", "info_once", "debug_once", "warn_once", "error_once", "print_warning_once"}

# Entry points of config resolution: what the oracle (i.e. `vllm serve` / LLM(...) up to VllmConfig)
# calls; everything named (transitively, by bare name) from them is reachable.
ROOT_NAMES = {"__init__", "__post_init__", "create_engine_config", "add_cli_args", "from_cli_args",
              "compute_hash", "check_and_update_config", "apply_config_platform_defaults",
              "verify_and_update_config", "verify_and_update_model_config", "__setattr__", "get_kwargs",
              "_compute_kwargs"}

# Functions the oracle answers itself (hardware probes of the simulated platform, see make_platform in
# the oracle): their bodies never run here.
PROBES = {"get_device_capability", "has_device_capability", "get_device_name", "get_device_uuid",
          "get_device_total_memory", "is_fully_connected", "device_count", "get_device_numa_node",
          "get_all_device_numa_nodes", "get_all_gpu_pci_bus_ids", "is_integrated_gpu", "num_compute_units",
          "log_warnings", "_get_physical_device_name", "is_confidential_compute", "is_arch_support_pdl"}

# (reason id, regex over a positive guard's source text, explanation). First match wins.
UNREACHABLE: list[tuple[str, str, str]] = [
    ("typing", r"^TYPE_CHECKING$|__name__ == .__main__.",
     "type-checking or script-only block, a typing.overload signature or a body of only `...` (a Protocol's)"),
    ("tpu-xpu", r"\bis_(tpu|xpu|hpu|neuron|out_of_tree)\(\)|\b(tpu|xpu|hpu)\b.*==|==\s*['\"](tpu|xpu|hpu)['\"]"
                r"|\bin \[['\"](tpu|xpu|hpu)['\"]\]|\buses_host_device_handling\(\)",
     "TPU / XPU / HPU / out-of-tree platform (the oracle simulates CUDA, ROCm and CPU; "
     "Platform.uses_host_device_handling() is is_tpu())"),
    # uses_standalone_cpu_model_runner(): the no-Triton CPU model runner, only on a non-x86 CPU (vllm/platforms/cpu.py)
    ("non-x86", r"CpuArchEnum\.(ARM|POWERPC|S390X|RISCV)|\baarch64\b|\bppc64|\bs390x\b|\b[dD]arwin\b|macos|is_arm"
     r"|uses_standalone_cpu_model_runner\(\)|startswith\([\"'](arm|aarch|ppc|riscv)",
     "a non-x86 CPU or macOS (this machine is x86-64 Linux)"),
    ("wsl", r"\bin_wsl\(\)", "Windows Subsystem for Linux (this machine is native Linux)"),
    ("ray", r"\bray\b\.|ray_utils|placement_group|is_ray_initialized|RAY_|\bray_found\b|ray_is_initialized\(\)"
     r"|is_in_ray_actor\(\)", "needs a Ray cluster (Ray is not installed here)"),
    ("remote-storage", r"s3://|gs://|\bis_s3\b|\bis_gcs\b|runai|object_storage|is_runai|MODELSCOPE|^is_cloud_storage\([^()]*\)$",
     "S3 / GCS / RunAI object storage or ModelScope (no network)"),
    ("real-gpu", r"torch\.cuda\.is_available\(\)|pynvml|amdsmi|cuda_is_initialized|is_initialized\(\)",
     "a real GPU probe (torch.cuda.is_available() is False here; the oracle simulates the answers)"),
    ("torch-version", r"\bnot is_torch_equal_or_newer\(\s*['\"]2\.[0-9]+(\.[0-9a-z.]*)?['\"]\s*\)",
     "an older torch than every oracle venv's (2.9.0 for the seed and 0.11.1, 2.14.0 for 0.34.0)"),
    ("field-type", r"\bself\.(kv|ec)_role not in get_args\((KV|EC)Role\)|^self\.num_speculative_tokens <= 0$"
                   r"|\bself\.disable_by_batch_size < 2$|^value not in \(['\"]binary['\"], ['\"]unpacked['\"]\)$"
                   r"|^isinstance\(self\.pass_config, dict\)$|^value is not None and len\(value\) == 1 and ['\"],['\"] in "
                   r"value\[0\]$|not isinstance\(self\.distributed_executor_backend, str\)\s+and not \("
                   r"|\bself\.policy != ['\"]default['\"]$|\bself\.log_balancedness_interval <= 0$"
                   r"|^tokenizer_mode not in get_args\(TokenizerMode\)$|^dtype not in _STR_DTYPE_TO_TORCH_DTYPE$"
                   r"|^self\.ssu_algorithm not in valid_algorithms$"
                   r"|^self\.scheduler_config\.max_num_scheduled_tokens <= 0$",
     "a value the field's own pydantic type refuses (or converts) before this check runs (Literal kv_role / "
     "ec_role / compile_cache_save_format / collect_detailed_traces items, whose 'after' validators see only "
     "valid values; num_speculative_tokens Field(gt=0); disable_by_batch_size Field(ge=2); pass_config arrives as a "
     "PassConfig; distributed_executor_backend is a str or an Executor class; EPLBConfig's policy is "
     "Literal['default'] and its log_balancedness_interval Field(gt=0); ModelConfig's Literal tokenizer_mode and "
     "dtype are lower case already, so lowering them keeps them valid; MambaConfig's ssu_algorithm is "
     "Literal['auto', 'simple', 'vertical', 'horizontal']; SchedulerConfig's max_num_scheduled_tokens and "
     "max_num_batched_tokens are Field(ge=1))"),
    ("missing-package", r"^is_nixl_available\(\)$|^is_otel_available\(\)$",
     "needs an optional package that is not installed here: NIXL (is_nixl_available()), MoRI with its EPv2 modules "
     "(mori_epv2_unavailable_reason() answers first, vllm/utils/import_utils.py), OpenTelemetry "
     "(is_otel_available()), Arctic Inference (0.11.1's suffix "
     "decoding checks, after `if not has_arctic_inference(): raise`), torchcodec (the EPD encoder's NVDEC video "
     "decoding, after check_torchcodec_available() raised ImportError)"),
    # VllmConfig._resolve_extensible_kv_cache (vllm/config/vllm.py:3218, 3240): the KV cache access kinds only the
    # lmcache package's connectors report
    ("lmcache-connector", r"^KVCacheAccess\.LEGACY_IPC in kv_cache_access$"
                          r"|^exports_fd and \(requested is False or unsupported is not None\)$",
     "a KV cache access kind no connector loadable here reports: LEGACY_IPC only LMCacheMPConnector (vllm/distributed/"
     "kv_transfer/kv_connector/v1/lmcache_mp_connector.py:476, and the factory's fallback for lmcache's own "
     "LMCacheMPConnector, kv_connector/factory.py:145), whose module imports lmcache, not installed here (no "
     "dependency of vLLM's); EXPORTS_FD no connector class of the 0.34.0 wheel at all (the lmcache package's "
     "connector with lmcache.mp.use_vmm_api does)"),
    ("installed-package", r"\bfind_spec\(['\"]flashinfer['\"]\) is None",
     "needs an optional package to be missing that every oracle venv of the version has: FlashInfer (installed with "
     "the seed's and 0.11.1's wheels)"),
    ("hub-api", r"^repo_mt and \(files_mt := repo_mt\.files_metadata\)$",
     "an answer from the Hugging Face Hub's API (huggingface_hub.get_safetensors_metadata of a repo id; no network "
     "here, and a local model directory is not a repo id): never any metadata"),
    ("fixed-types", r"^contains_type\(type_hints, tuple\)$",
     "the parser is built from vLLM's own config dataclasses (get_kwargs / _compute_kwargs / literal_to_kwargs), "
     "whose field types are fixed: no field is a tuple, a Literal of mixed types or an unsupported type (these "
     "checks guard vLLM's own code)"),
    ("own-tables", r"^self\.draft_model_config\.hf_config\.model_type in \(\s*['\"]longcat_flash_mtp['\"]\s*\)$"
                   r"|^name in get_args\(me_quant\.QuantizationMethods\)\s+and name not in overrides$"
                   r"|^unknown_ignored$"
                   r"|^self\.kernel_config\.enable_flashinfer_autotune is None$",
     "a check of vLLM's own tables that they satisfy: SpeculativeConfig's `model_type in (\"longcat_flash_mtp\")` "
     "(a substring test) comes after `in MTP_MODEL_TYPES` (0.11.1: MTPModelTypes), which has longcat_flash_mtp, "
     "and no other model type vLLM loads is part of that name; every built-in quantization method that overrides "
     "another is in "
     "_verify_quantization's overrides list; every caller of get_compile_factors (each config class's "
     "compile_factors) passes a constant set of its own class's field names as ignored_factors; every key of the "
     "four OPTIMIZATION_LEVEL_TO_CONFIG tables (vllm/config/vllm.py:283-373) is a field of the config it applies to "
     "(VllmConfig.compilation_config / kernel_config, CompilationConfig, PassConfig), and each table sets "
     "kernel_config.enable_flashinfer_autotune to a bool, which _set_config_default writes wherever it is None "
     "(a given value is a bool: the field's pydantic type refuses null), so it is never None after "
     "_apply_optimization_level_defaults"),
    ("platform-dtypes", r"^torch\.float32 not in current_platform\.supported_dtypes$",
     "a platform without float32: every platform here (CUDA of any capability, ROCm, CPU) supports it"),
    ("runtime-caller", r"\bconfig\.watermarking is True|^custom_sampler$",
     "an argument only a runtime caller passes (a request's SamplingParams from the input processor, "
     "custom_sampler=True from the GPU model runner); config resolution calls the function without them"),
    ("python-values", r"^value is None or isinstance\(value, AttentionBackendEnum\)$"
                      r"|^isinstance\(head_dtype, torch\.dtype\)$|^isinstance\(self\.device, torch\.device\)$"
                      r"|^isinstance\(self\.additional_config, SupportsCompileFactors\)$"
                      r"|^callable\(target_hf_overrides\)$",
     "a Python object no JSON input holds: an AttentionBackendEnum member, or a None given to MultiModalConfig itself "
     "(ModelConfig drops the None keyword arguments before building it, vllm/config/model.py:897-901, and a JSON "
     "mm_encoder_attn_backend is a string); a torch.dtype head_dtype (config.json and hf_overrides give strings); a "
     "torch.device DeviceConfig device (a string in JSON); a quantization_config targets key that is not a string "
     "(JSON object keys are strings, and the targets merge_quantization_config re-validates are keys already "
     "validated); an additional_config object implementing SupportsCompileFactors (--additional-config's JSON is a "
     "dict); a torch.dtype lora_dtype (--lora-dtype is a string); a callable hf_overrides (--hf-overrides' JSON is "
     "a dict). The oracle's caller mode (a Python caller's EngineArgs(**kwargs)) reads its keyword arguments from "
     "JSON: its dicts reach EngineArgs.__post_init__ and resolve_quantization_config, never these objects"),
    ("caller-guard", r"^parallel_config\.all2all_backend != ['\"]mori['\"]$",
     "a guard its only caller has already answered: RocmPlatform.check_and_update_config calls resolve_mori_all2all "
     "only when all2all_backend == 'mori' (vllm/platforms/rocm.py:1232)"),
    ("oracle-stub", r"\bnot current_platform\.is_cumem_allocator_available\(\)",
     "the cumem allocator is available in every oracle run: the oracle loads its libcuda.so.1 stand-in "
     "(tests/golden/oracle/stubs) before vLLM, so vllm.device_allocator.cumem imports and cumem_available is True on "
     "every simulated platform (CUDA, ROCm and CPU alike)"),
    ("help", r"['\"]--help['\"] in sys\.argv|\bNEEDS_HELP\b",
     "only with `--help` on the process's own command line (`vllm serve --help` prints the help and exits; the "
     "oracle's argv is its own)"),
    ("plugin", r"^\(custom_cls := get_custom_speculator_config_class\(self\.method\)\) is not None$",
     "a custom speculative method, which only a vLLM general plugin registers (register_speculative_method); the "
     "oracle venvs install no plugin, so none is ever registered"),
    ("spec-method-validator", r"^self\.method == ['\"]\[ngram\]['\"]$",
     "method '[ngram]': SpeculativeConfig's field validator (_validate_method) refuses a method that is neither "
     "built in (SpeculativeMethod) nor registered by a plugin, and '[ngram]' is neither (only model='[ngram]' "
     "becomes method 'ngram', before this test)"),
    ("draft-len-given", r"^speculative_max_model_len > draft_max_model_len$",
     "the draft's ModelConfig is built with max_model_len=speculative_config.max_model_len "
     "(DraftModelSpeculatorConfig.configure), a positive int (Field(ge=1)) that get_and_verify_max_len keeps or "
     "refuses, so draft_max_model_len equals it whenever it is given"),
    ("text-config-set", r"^target_text_config is None$",
     "ModelConfig.__post_init__ always sets hf_text_config (get_hf_text_config, vllm/config/model.py:710: "
     "transformers' get_text_config returns a text sub-config or the config itself, never None), and "
     "_get_qwen3_omni_text_config (vllm/config/speculative.py:167-172) falls back to it, so the Qwen3-Omni DSpark "
     "check always has a target text config"),
    ("caller-defaults", r"^draft_dcp is None$",
     "_verify_and_get_draft_dcp's only caller (DraftModelSpeculatorConfig.configure) sets an unset draft DCP to "
     "its speculator's default (an int) before calling it"),
    ("called-once", r"^self\._reasoning_start_token_ids is not None\s+and self\._reasoning_end_token_ids is not None"
                    r"\s+and self\._natural_reasoning_end_token_ids is not None$",
     "ReasoningConfig's token IDs are init=False fields that only initialize_token_ids sets, and its one caller, "
     "VllmConfig.__post_init__ (vllm/config/vllm.py:2122), runs once per VllmConfig; a second VllmConfig over the "
     "same ReasoningConfig comes only from VllmConfig.with_hf_config (a dataclasses.replace), which only model code "
     "calls (vllm/model_executor/models/ming_audio.py)"),
    ("reset-before", r"^getattr\(self, ['\"]config_updated['\"], False\)$",
     "ModelConfig._try_verify_and_update_model_config's one caller, ModelConfig.__post_init__, sets "
     "self.config_updated = False on the line before it calls it (vllm/config/model.py:940-941)"),
    ("no-caller-arg", r"^async_args_only$",
     "AsyncEngineArgs.add_cli_args is never called with async_args_only=True: its callers in the wheel "
     "(vllm/entrypoints/common/cli_args.py:484, launchers/run_batch.py:324, launchers/grpc_server.py:308, "
     "benchmarks/throughput.py:1013) pass the parser alone"),
    ("terratorch", r"^self\.model_impl == ['\"]terratorch['\"]$",
     "needs the terratorch package, which is not installed here: model_impl='terratorch' resolves to the Terratorch class (vllm/model_executor/models/registry.py:1463-1466), whose module imports terratorch, so inspection finds no class and asserts before the tokenizer-mode default; Terratorch is also the only model class whose attention type is neither the default 'decoder' nor 'encoder_only' (@attn_type('attention_free'), vllm/model_executor/models/terratorch.py:241), so a pooling model's attn_type is always one of those two"),
    ("layer-index", r"^layer_idx < 0$",
     "ModelArchitectureConfig.__getitem__ is indexed in config resolution only by Gemma4Config."
     "verify_and_update_config, with i in range(...) (vllm/model_executor/models/config.py:551-553); its other "
     "caller is model code (vllm/model_executor/models/transformers/base.py)"),
    ("field-type", r"^current_op_priority is None$",
     "(see `field-type`: IrOpPriorityConfig's fields are list[str] with a default_factory of list, and its "
     "'before' validator (_to_list_str, vllm/config/kernel.py:66-73) asserts every item is a str, so a null is "
     "refused: KernelConfig.set_platform_defaults never finds a None priority)"),
    ("probe-answer", r"^capability is None$",
     "the device capability is a probe the oracle answers (get_device_capability in PROBES: the simulated platform "
     "always reports the case's compute capability, never None); None comes only from a real device query"),
    ("caller-guard", r"^count_all \+ count_none != 1$",
     "CompilationConfig.is_custom_op_enabled runs in config resolution only from the optimization-level fusion "
     "defaults (vllm/config/vllm.py:185-282, evaluated by _apply_optimization_level_defaults at :1786), after "
     "VllmConfig.__post_init__ appended 'none' or 'all' to a custom_ops list without a base mode (:1771-1778); "
     "CompilationConfig.__post_init__ refuses two base modes (compilation.py:1171-1175): exactly one by then"),
    ("runtime-rerun", r"^self\.model_config is not None and self\.model_config\.is_submodel_config$"
                      r"|^getattr\(self\.model_config, ['\"]config_updated['\"], False\)$"
                      r"|^cache_config\._extensible_kv_cache_resolved$",
     "a second VllmConfig.__post_init__ over sub-configs an earlier one already resolved: config resolution builds "
     "one VllmConfig (EngineArgs.create_engine_config); the second comes only at run time, from "
     "VllmConfig.with_hf_config (the sole setter of is_submodel_config besides a Step5 model class; called by model "
     "classes building sub-model views, vllm/model_executor/models/*.py), SpeculativeConfig.apply_draft_overrides "
     "(the spec-decode workers and the weight-cache daemon) and the engine core's re-run after the DP handshake "
     "(vllm/v1/engine/core.py:1522)"),
    ("caller-guard", r"^speculative_config is None$",
     "VllmConfig.num_lookahead_tokens and num_prefill_lookahead_tokens are read in config resolution only with a "
     "speculative config: _set_max_num_scheduled_tokens under `if self.speculative_config is not None` "
     "(vllm/config/vllm.py:2267, 2293) and _resolve_num_hash_lookahead_tokens after returning 0 for none (:636-654); "
     "the other readers are the runtime's (scheduler, warmup, KV cache manager)"),
    ("dead-after-assign", r"^self\.scheduler_config\.disable_hybrid_kv_cache_manager is None$",
     "VllmConfig.__post_init__'s second `if self.scheduler_config.disable_hybrid_kv_cache_manager is None:` "
     "(vllm/config/vllm.py:2213) follows an if/elif whose first branch assigns that field a bool wherever it was None "
     "(:2178-2201), so it never holds there; the pattern's other match, that first test (:2178), has every site of "
     "its body reached by the corpus (a reached site stays reachable)"),
    ("post-init-types", r"^architecture is None$",
     "(see `post-init-types`: ModelConfig.__post_init__ sets _architecture to what registry.inspect_model_cls "
     "returns, a str (or it raises), so model_config.architecture is never None)"),
]

# (reason id, regex over the test of an ``if``/``while`` whose *else* side a site is on, explanation): tests that
# are always true here, so their false side never runs. First match wins; checked after UNREACHABLE.
UNREACHABLE_ELSE: list[tuple[str, str, str]] = [
    ("torch-version", r"^is_torch_equal_or_newer\(\s*['\"]2\.[0-9]+(\.[0-9a-z.]*)?['\"]\s*\)$|^HAS_OPAQUE_TYPE$",
     "(see `torch-version`; HAS_OPAQUE_TYPE is torch >= 2.11.0.dev, vllm/utils/torch_utils.py)"),
    ("x86-linux", r"^machine in \(['\"]x86_64['\"]|^hasattr\(os, ['\"]sched_getaffinity['\"]\)$",
     "the false side of an x86-64 / Linux test (this machine is x86-64 Linux: os.sched_getaffinity exists)"),
    ("field-type", r"^isinstance\(dtype, torch\.dtype\)$|^kv_offloading_backend == ['\"]lmcache['\"]$"
                   r"|^compile_range_end is not None$|^max_token_num is not None$",
     "(see `field-type`: ModelConfig.dtype is a Literal name or a torch.dtype, nothing else reaches "
     "_get_and_verify_dtype; CacheConfig.kv_offloading_backend is Literal['native', 'lmcache']; "
     "VllmConfig._set_compile_ranges' range end is SchedulerConfig.max_num_batched_tokens, an int, and "
     "PassConfig.rope_kvcache_fusion_max_token_num is an int)"),
    ("caller-values", r"^task == ['\"]score['\"]$|^self\.convert_type not in generate_converts$"
                      r"|^self == CUDAGraphMode\.FULL_AND_PIECEWISE$",
     "the false side of a test its inputs always pass: _task_to_convert is only called with a pooling task, each of "
     "which an `if` returns; _RUNNER_CONVERTS['generate'] is an empty list, so no convert type is in it; "
     "CUDAGraphMode.without_piecewise is only called on a mode that requires piecewise compilation (vllm/config/"
     "vllm.py:1059, compilation.py:1635), i.e. PIECEWISE, which returns first, or FULL_AND_PIECEWISE"),
    ("post-init-types", r"^isinstance\(self\.tokenizer, str\)$|^isinstance\(self\.max_model_len, int\)$",
     "ModelConfig.__post_init__ always leaves tokenizer a str (the model's name when unset) and max_model_len an int "
     "(get_and_verify_max_len's int(...), or the int the user or the target model gave)"),
    ("hf-model-type", r"^hasattr\(self\.hf_text_config, ['\"]model_type['\"]\)$",
     "every transformers PretrainedConfig has model_type (a class attribute, '' on the base class)"),
    ("fixed-types", r"^all\(isinstance\(option, option_type\) for option in options\)$"
                    r"|^contains_type\(type_hints, str\) or any\(", "(see `fixed-types`)"),
    ("always-true", r"^is_tracing_available\(\)$",
     "vllm.tracing.is_tracing_available() returns any() of the registered backends' is_available *functions* (not "
     "their results), so it is True whenever a backend is registered, and vllm.tracing registers 'otel' at import"),
    ("python-values", r"^isinstance\(pattern, str\)$", "(see `python-values`: a targets key that is not a string)"),
    ("field-type", r"^pooling_type in TOK_POOLING_TYPES$",
     "(see `field-type`: PoolerConfig.pooling_type is Literal SequencePoolingType | TokenPoolingType, so a value "
     "that is not a sequence pooling type is a token pooling type)"),
    ("offline", r"^huggingface_hub\.constants\.HF_HUB_OFFLINE$",
     "the oracles run offline (HF_HUB_OFFLINE=1: no network here), so the hub's offline mode is always on"),
    ("platform-device-type", r"^self\.device_type$",
     "a platform without a device type: every platform here (cuda, rocm, cpu) names one"),
    ("set-before", r"^self\.instance_id$",
     "VllmConfig.__post_init__ sets instance_id (time.time_ns()) at its start, so it is never empty where it is "
     "tested later"),
    ("platform-hybrid", r"^current_platform\.support_hybrid_kv_cache\(\)$",
     "a platform without the hybrid KV cache manager: every platform here (CUDA, ROCm, CPU) supports it"),
    ("always-set", r"^self\.(cache|parallel|scheduler|device|load|structured_outputs|compilation)_config"
                   r"( is not None)?$",
     "the false side of `if self.<sub>_config:` (VllmConfig.compute_hash) or `if self.cache_config is not None:` "
     "(VllmConfig.__post_init__): those fields are not Optional and have a default factory (pydantic refuses None), "
     "and a config dataclass instance is always truthy"),
    ("plugin", r"^value not in \(registered := registered_speculative_methods\(\)\)$",
     "(see `plugin`: no custom speculative method is ever registered, so a method outside SpeculativeMethod is "
     "always refused)"),
    ("mm-property-only", r"^self\.is_multimodal_model$", "(see `mm-property-only` below)"),
    ("terratorch", r"^attn_type == ['\"]decoder['\"]$", "(see `terratorch`)"),
    ("default-factory", r"^['\"](max_model_len|is_encoder_decoder)['\"] not in kwargs$",
     "SchedulerConfig.default_factory is called only by pydantic, as VllmConfig.scheduler_config's default_factory "
     "(vllm/config/vllm.py:391), with no arguments: neither InitVar is ever in its kwargs"),
    ("runtime-caller", r"^include_version$",
     "(see `runtime-caller`: VllmConfig.compile_factors(include_version=False) is called only by the FlashInfer "
     "autotune cache of the model warmup, vllm/model_executor/warmup/flashinfer_autotune_cache.py:37; config "
     "resolution's compute_hash keeps the default True)"),
    ("python-values", r"^isinstance\(self\.lora_dtype, str\)$",
     "(see `python-values`: a lora_dtype that is neither None, 'auto' nor a string is a torch.dtype)"),
    ("own-tables", r"^hasattr\(config_obj, key\)$", "(see `own-tables`: every key of the optimization-level "
     "tables is a field of the config it applies to)"),
    ("caller-defaults", r"^draft_model_config is not None$",
     "create_draft_parallel_config's only caller (DraftModelSpeculatorConfig.configure) passes the draft "
     "ModelConfig it has just built"),
    ("wheel-kernels", r"^\(?has_deep_gemm_sparse_mqa\(\) and has_deep_select\(\)\)?$",
     "_indexer_sparse_logits_supported (vllm/model_executor/models/config.py:709-747) returns before this test "
     "unless the platform is CUDA SM 10.x, and there both hold: the wheel vendors DeepGEMM with the sparse-MQA "
     "kernels (vllm.third_party.deep_gemm's fp8_fp4_sparse_mqa_logits, fp8_fp4_paged_sparse_mqa_logits and their "
     "metadata functions) and builds the DeepSelect extension (vllm._deepselect_C); golden h070 (cuda:100) takes "
     "the true side"),
]

# reasons that only UNREACHABLE_FUNCS below uses
FUNC_REASONS: dict[str, str] = {
    "runtime-property": "a property only the runtime reads (the model runner, the pooler, the metrics): no config "
                        "code of the scope reads it and the oracle does not either",
    "import-time": "get_field runs only while vLLM's modules are imported, each call with a fixed (dataclass, field) "
                   "pair: a path those calls do not take at import (a refusal, a missing default) is never taken",
    "runtime-only": "named at import (vllm/config/__init__.py re-exports it) but called only by the runtime: "
                    "update_config (and its recursive _update_config) by vllm/v1/worker/gpu_worker.py",
    "uncalled-caller": "called only from a function that nothing calls (vllm/config/utils.py's "
                       "get_from_deprecated_env_if_set, from set_from_deprecated_env_if_set)",
    "runtime-accessor": "an accessor only the runtime calls: get_current_vllm_config() from the model's layers and "
                        "custom ops inside set_current_vllm_config(), CacheConfig.resolved_gpu_memory_utilization "
                        "from the CPU worker (vllm/v1/worker/cpu_worker.py); config resolution calls neither",
    "eplb-default": "EPLB off: ParallelConfig._validate_parallel_config (a model validator) sets "
                    "eplb_config.num_redundant_experts to 0 whenever enable_eplb is false (vllm/config/parallel.py:"
                    "624-633), and nothing in config resolution turns EPLB off or unsets the count afterwards, so "
                    "compute_eplb_num_redundant_experts (vllm/config/vllm.py:1494) returns at its first test then",
    "mm-property-only": "a text model (multimodal_config None, i.e. not is_multimodal_model, vllm/config/model.py:2019) "
                        "in the multimodal-inputs check: config resolution reaches it only through "
                        "_supports_multimodal_for_mm_prefix, which returns first when multimodal_config is None "
                        "(vllm/config/model.py:1035); the supports_multimodal_inputs property, the other way in, is "
                        "read only by the runtime (input processor, scheduler, model runners, renderers)",
    "abstract": "the model hooks' base class method (raises NotImplementedError at the seed and 0.11.1): every class "
                "of MODELS_CONFIG_MAP defines its own and none calls super()",
}

# Whole functions (or their tail from an anchor statement on) that run only under a condition of the table above,
# tested by their caller, not by a guard of their own: (reason id, file regex, qualname regex, anchor regex over a
# stripped source line or None = the whole function). A reached site stays reachable.
UNREACHABLE_FUNCS: list[tuple[str, str, str, str | None]] = [
    # called only under `current_platform.uses_standalone_cpu_model_runner()` (vllm/config/vllm.py _validate_model_runner)
    ("non-x86", r"^vllm/config/vllm\.py$", r"\._get_standalone_cpu_model_runner_unsupported_features$", None),
    # after `if config is None: return True`: the request-time part (vllm/v1/engine/input_processor.py calls it with
    # a request's params); resolution calls it with config=None
    ("runtime-caller", r"^vllm/config/vllm\.py$", r"\._check_supports_watermarking$", r"^if config is None:"),
    # its callers: _check_supports_watermarking (above) and the engine core when it admits a request
    # (vllm/v1/engine/core.py:1284)
    ("runtime-caller", r"^vllm/config/watermarking\.py$", r"^warn_watermarking_override$", None),
    # after the MoRI availability answer: MoRI is not installed, so the function returns there
    ("missing-package", r"^vllm/config/parallel\.py$", r"^_mori_epv2_unsupported_reason$", r"^if not validated_arch"),
    # after `reason = _mori_epv2_unsupported_reason(...)`: its first answer, "this MoRI (MoRI is not installed; ...)",
    # is never None here, so `if reason is None: return True` is never taken
    ("missing-package", r"^vllm/config/parallel\.py$", r"^_resolve_mori_ep_v2$", r"^if reason is None:$"),
    # called only from the tail of _mori_epv2_unsupported_reason above
    ("missing-package", r"^vllm/config/parallel\.py$", r"^(_ep_spans_hosts|_quantizes_activations_per_tensor)$", None),
    # arg_utils calls it only as `get_attr_docs(cls) if NEEDS_HELP else {}` (see `help`)
    ("help", r"^vllm/config/utils\.py$", r"^(get_attr_docs|_get_own_attr_docs)$", None),  # the helper: only from it
    # re-exported by vllm/config/__init__.py (so named at import), called only by the GPU worker's update_config
    ("runtime-only", r"^vllm/config/utils\.py$", r"^_?update_config$", None),
    # named only by set_from_deprecated_env_if_set, which nothing calls
    ("uncalled-caller", r"^vllm/config/utils\.py$", r"^get_from_deprecated_env_if_set$", None),
    ("abstract", r"^vllm/model_executor/models/config\.py$", r"^VerifyAndUpdateConfig\.verify_and_update_config$", None),
    ("import-time", r"^vllm/config/utils\.py$", r"^get_field$", None),
    ("eplb-default", r"^vllm/config/parallel\.py$", r"^ParallelConfig\.compute_eplb_num_redundant_experts$",
     r"^if self\.enable_eplb:$"),
    ("mm-property-only", r"^vllm/config/model\.py$", r"^ModelConfig\._cached_supports_multimodal_inputs$",
     r"^if mm_config is None:$"),
    ("runtime-property", r"^vllm/config/model\.py$", r"^ModelConfig\.(hidden_size|embedding_size|use_sep_token)$",
     None),  # use_sep_token: read by the scoring IO processor (vllm/entrypoints/pooling/scoring/io_processor.py)
    ("runtime-property", r"^vllm/config/observability\.py$", r"^ObservabilityConfig\.show_hidden_metrics$", None),
    # read by the engine core, the scheduler, the model runners and (through max_in_flight_tokens, itself read only
    # by the KV cache specs) the KV cache manager (vllm/v1/...); no config code of the scope reads it
    ("runtime-property", r"^vllm/config/vllm\.py$", r"^VllmConfig\.max_concurrent_batches$", None),
    # after check_torchcodec_available() succeeded: torchcodec is not installed in the oracle venv, so it raises
    ("missing-package", r"^vllm/config/vllm\.py$", r"^VllmConfig\._resolve_mm_video_decode_device$",
     r"^video_kwargs\[['\"]backend['\"]\] = ['\"]torchcodec['\"]$"),
    # read by the executor, the workers and HiSparse (nnodes_within_dp) and by stateless_init_dp_group
    # (effective_cpu_distributed_timeout), all runtime
    ("runtime-property", r"^vllm/config/parallel\.py$",
     r"^ParallelConfig\.(nnodes_within_dp|effective_cpu_distributed_timeout)$", None),
    ("runtime-accessor", r"^vllm/config/vllm\.py$", r"^get_current_vllm_config$", None),
    ("runtime-accessor", r"^vllm/config/cache\.py$", r"^CacheConfig\.resolved_gpu_memory_utilization$", None),
    # after `if not (is_runai_obj_uri(model) or is_runai_obj_uri(tokenizer)): return`: an object-storage URI
    ("remote-storage", r"^vllm/config/model\.py$", r"\.maybe_pull_model_tokenizer_for_runai$",
     r"^if is_runai_obj_uri\(model\):$"),
    # after `if not has_arctic_inference(): raise ImportError(...)` (0.11.1): Arctic Inference is not installed
    ("missing-package", r"^vllm/config/speculative\.py$", r"\._validate_suffix_decoding$",
     r"^if self\.num_speculative_tokens is None:$"),
]


@dataclass
class Site:
    file: str
    line: int
    kind: str  # branch | log | raise
    what: str
    func: str
    reached: bool = False
    reason: str | None = None  # unreachable reason id, or None = reachable


@dataclass
class FileInfo:
    rel: str
    path: str
    funcs: dict[str, tuple[int, int, ast.AST]] = field(default_factory=dict)  # qualname -> (start, end, node)
    guards: dict[int, list[str]] = field(default_factory=dict)  # line -> positive guard texts
    neg: dict[int, list[str]] = field(default_factory=dict)  # line -> tests whose false side the line is on
    ifs: dict[int, tuple[str, bool, int, int]] = field(default_factory=dict)  # if/while line -> (test, pos, body)
    line_func: dict[int, str] = field(default_factory=dict)
    stub_lines: set[int] = field(default_factory=set)  # lines of typing.overload signatures and `...` bodies


def _src(node: ast.AST, text: str) -> str:
    return (ast.get_source_segment(text, node) or "").replace("\n", " ")


def parse_file(rel: str, path: str) -> tuple[FileInfo, ast.Module, str]:
    text = Path(path).read_text()
    tree = ast.parse(text)
    info = FileInfo(rel, path)

    def visit(node: ast.AST, qual: str, guards: list[str], neg: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            cq, cg = qual, guards
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                cq = f"{qual}.{child.name}" if qual else child.name
                if not isinstance(child, ast.ClassDef):
                    info.funcs[cq] = (child.lineno, child.end_lineno or child.lineno, child)
                    if _is_stub(child):  # an overload shares its name with the implementation: by line
                        info.stub_lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
            if isinstance(child, ast.stmt):
                for ln in range(child.lineno, (child.end_lineno or child.lineno) + 1):
                    info.guards[ln] = guards
                    info.neg[ln] = neg
                    info.line_func[ln] = cq if not isinstance(child, ast.ClassDef) else qual
            if isinstance(child, (ast.If, ast.While)):
                test = child.test
                positive = not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
                t = _src(test, text) if positive else _src(test.operand, text)  # type: ignore[attr-defined]
                for ln in range(child.lineno, (child.end_lineno or child.lineno) + 1):
                    info.guards[ln] = guards
                    info.neg[ln] = neg
                    info.line_func[ln] = qual
                info.ifs[child.lineno] = (t, positive, child.body[0].lineno, child.body[-1].end_lineno or 0)
                for sub in child.body:  # t holds (positive) or does not hold (`if not t:`)
                    visit_stmt(sub, cq, guards + [t] if positive else guards, neg if positive else neg + [t])
                for sub in child.orelse:
                    visit_stmt(sub, cq, guards if positive else guards + [t], neg + [t] if positive else neg)
                continue
            visit(child, cq, cg, neg)

    def visit_stmt(stmt: ast.stmt, qual: str, guards: list[str], neg: list[str]) -> None:
        wrapper = ast.Module(body=[stmt], type_ignores=[])
        visit(wrapper, qual, guards, neg)

    visit(tree, "", [], [])
    return info, tree, text


def names_in(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def scope_files(version: str) -> list[tuple[str, str]]:
    venv = VERSIONS[version][0]
    site = sorted(glob.glob(str(venv / "lib/python3*/site-packages/vllm")))[0]
    out = []
    for pat in WHOLE_FILES + PLATFORM_FILES:
        for p in sorted(glob.glob(f"{site}/{pat}")):
            out.append((os.path.relpath(p, os.path.dirname(site)), p))
    return out


def collect_sites(version: str, executed: dict[str, set[int]], arcs_possible: dict[str, list[tuple[int, int]]],
                  arcs_done: dict[str, set[tuple[int, int]]]) -> list[Site]:
    files = [(rel, path, *parse_file(rel, path)) for rel, path in scope_files(version)]
    # which functions are part of config resolution: closure by bare name from the roots
    by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
    bodies: dict[tuple[str, str], ast.AST] = {}
    module_names: set[str] = set()
    hook_names: set[str] = set()
    for rel, _path, info, tree, _text in files:
        for q, (_s, _e, node) in info.funcs.items():
            by_name[q.rsplit(".", 1)[-1]].append((rel, q))
            bodies[(rel, q)] = node
        if not rel.startswith("vllm/platforms/"):
            hook_names |= names_in(tree)
            # module- and class-level code runs at import
            for stmt in tree.body:
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if isinstance(stmt, ast.ClassDef):
                        for s in stmt.body:
                            if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                                module_names |= names_in(s)
                            else:
                                for d in s.decorator_list:
                                    module_names |= names_in(d)
                    else:
                        module_names |= names_in(stmt)
    # names per top-level statement of the non-platform files: a top-level function counts as named in the
    # scope when a statement other than its own definition names it (a recursive call is not a caller)
    top_names: list[tuple[str, ast.AST, set[str]]] = [
        (rel, stmt, names_in(stmt)) for rel, _p, _i, tree, _t in files if not rel.startswith("vllm/platforms/")
        for stmt in tree.body]

    def named_elsewhere(rel: str, name: str) -> bool:
        return any(name in names for r, stmt, names in top_names
                   if not (r == rel and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and stmt.name == name))

    reachable: set[tuple[str, str]] = set()
    todo: list[tuple[str, str]] = []

    def mark(key: tuple[str, str]) -> None:
        if key not in reachable:
            reachable.add(key)
            todo.append(key)

    for rel, _path, info, _tree, _text in files:
        plat = rel.startswith("vllm/platforms/")
        for q, (_s, _e, node) in info.funcs.items():
            short = q.rsplit(".", 1)[-1]
            decos = " ".join(ast.unparse(d) for d in node.decorator_list)  # type: ignore[attr-defined]
            if plat:
                if short in hook_names and short not in PROBES:
                    mark((rel, q))
            elif (short in ROOT_NAMES or short in module_names or "validator" in decos or "property" in decos
                  or (q.count(".") == 0 and named_elsewhere(rel, short))):
                mark((rel, q))
    # a function of the config files the corpus ran is called, whoever calls it (code outside the scope, e.g.
    # the model registry, calls some): it and what it names are reachable (the platform files keep their hook
    # scope: their methods also run at import and in the oracle's own set-up)
    for rel, path, info, _tree, _text in files:
        if rel.startswith("vllm/platforms/"):
            continue
        exe = executed.get(path, set())
        for q, (start, end, node) in info.funcs.items():
            body = getattr(node, "body", [])
            first = body[0].lineno if body else start
            if any(ln in exe for ln in range(first, end + 1)):
                mark((rel, q))
    while todo:
        key = todo.pop()
        for nm in names_in(bodies[key]):
            for cand in by_name.get(nm, []):
                if cand[0].startswith("vllm/platforms/") and nm in PROBES:
                    continue
                mark(cand)

    sites: list[Site] = []
    for rel, path, info, tree, text in files:
        plat = rel.startswith("vllm/platforms/")
        lines = text.splitlines()
        exe = executed.get(path, set())
        done = arcs_done.get(path, set())

        def func_key(ln: int) -> str:
            return info.line_func.get(ln, "")

        def in_scope(q: str) -> bool:
            if not plat:
                return True
            return any((rel, q2) in reachable for q2 in _prefixes(q))

        def classify(ln: int, q: str, pos: tuple[str, ...] = (), neg: tuple[str, ...] = ()) -> str | None:
            if q and not any((rel, q2) in reachable for q2 in _prefixes(q)):
                short = q.split(".")
                if any(s in PROBES for s in short):
                    return "probe"
                return "not-called"
            if ln in info.stub_lines:
                return "typing"
            for rid, file_rx, func_rx, anchor in UNREACHABLE_FUNCS:
                if not re.search(file_rx, rel) or not q:
                    continue
                for q2 in _prefixes(q):
                    if q2 in info.funcs and re.search(func_rx, q2):
                        start, end, _node = info.funcs[q2]
                        if anchor is None:
                            return rid
                        first = next((i for i in range(start, end + 1) if re.search(anchor, lines[i - 1].strip())),
                                     None)
                        if first is not None and ln >= first:
                            return rid
            holds, fails = [*info.guards.get(ln, []), *pos], [*info.neg.get(ln, []), *neg]
            for g in holds:
                for rid, rx, _why in UNREACHABLE:
                    if re.search(rx, g):
                        return rid
            for g in fails:
                for rid, rx, _why in UNREACHABLE_ELSE:
                    if re.search(rx, g):
                        return rid
            return "dead" if _contradicts(holds, fails) else None

        def classify_arc(a: int, b: int, q: str) -> str | None:
            # the arc's own test: its true side (into the body) or false side; then where it lands, then where
            # it leaves from (an arc out of a line that cannot run cannot run either)
            pos: tuple[str, ...] = ()
            neg: tuple[str, ...] = ()
            if a in info.ifs:  # an arc from the test straight out of the function is its false side
                t, positive, b0, b1 = info.ifs[a]
                true_side = b > 0 and b0 <= b <= b1
                pos, neg = ((t,), ()) if true_side == positive else ((), (t,))
            # (and the tests the source line runs under together with the arc's own: e.g. an `elif x == l` whose
            # false side the enclosing `if x in {...}` leaves empty)
            return classify(b if b > 0 else a, q, pos, neg) or classify(a, q) or classify(a, q, pos, neg)

        for node in ast.walk(tree):
            if isinstance(node, ast.Raise):
                ln = node.lineno
                what = _src(node.exc, text)[:70] if node.exc else "raise"
                q = func_key(ln)
                if in_scope(q):
                    sites.append(Site(rel, ln, "raise", what, q, ln in exe, classify(ln, q)))
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                base = _src(f.value, text) if isinstance(f, ast.Attribute) else ""
                is_log = ((name in LOG_LEVELS and "logger" in base.lower()) or name in ONCE
                          or (name == "warn" and base == "warnings"))
                if not is_log:
                    continue
                ln = _stmt_line(info, node.lineno, exe, lines)
                msg = _src(node.args[0], text)[:70] if node.args else ""
                q = func_key(node.lineno)
                if in_scope(q):
                    sites.append(Site(rel, ln, "log", f"{name}: {msg}", q, ln in exe, classify(node.lineno, q)))
        by_src: dict[int, list[int]] = defaultdict(list)
        for a, b in arcs_possible.get(path, []):
            by_src[a].append(b)
        for a, dests in sorted(by_src.items()):
            if len(dests) < 2 or a < 0:
                continue
            q = func_key(a)
            if not in_scope(q):
                continue
            head = lines[a - 1].strip()[:60] if 0 < a <= len(lines) else ""
            for b in sorted(dests):
                where = f"-> {b}" if b > 0 else "-> exit"
                cl = classify_arc(a, b, q)
                sites.append(Site(rel, a, "branch", f"`{head}` {where}", q, (a, b) in done, cl))
    for s in sites:
        if s.reached:
            s.reason = None
    return sites


def _is_stub(node: ast.AST) -> bool:
    """A ``typing.overload`` signature or a body of only ``...`` (a Protocol's method): never runs as code."""
    decos = {ast.unparse(d) for d in getattr(node, "decorator_list", [])}
    if decos & {"overload", "typing.overload"}:
        return True
    body = [b for b in getattr(node, "body", []) if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)
                                                        and isinstance(b.value.value, str))]
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and body[0].value.value is Ellipsis


def _canon(test: str) -> str:
    try:
        return ast.unparse(ast.parse(test.strip(), mode="eval"))
    except SyntaxError:
        return test.strip()


def _contradicts(holds: list[str], fails: list[str]) -> bool:
    """Whether the tests a site runs under cannot all be as required: one test both holds and fails, a
    failing ``a and b`` whose every operand holds, or a holding ``x in {l1, l2}`` (literal members; alone or as
    an operand of a holding ``and``) whose every member a failing ``x == l`` excludes (same text, no other
    reasoning)."""
    pos = {_canon(t) for t in holds}
    neg = {_canon(t) for t in fails}
    for t in pos:
        try:
            node = ast.parse(t, mode="eval").body
        except SyntaxError:
            continue
        parts = node.values if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]
        for part in parts:
            if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.In) \
                    and isinstance(part.comparators[0], (ast.Set, ast.List, ast.Tuple)):
                members = part.comparators[0].elts
                x = ast.unparse(part.left)
                if members and all(isinstance(m, ast.Constant) for m in members) \
                        and all(f"{x} == {ast.unparse(m)}" in neg for m in members):
                    return True
    for t in fails:
        c = _canon(t)
        if c in pos:
            return True
        try:
            node = ast.parse(c, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) \
                and all(ast.unparse(v) in pos for v in node.values):
            return True
    return False


def _prefixes(q: str) -> list[str]:
    parts = q.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _stmt_line(info: FileInfo, ln: int, exe: set[int], lines: list[str]) -> int:
    # a call spanning lines is recorded at its statement's first line; walk up to a known statement start
    while ln > 1 and ln not in exe and lines[ln - 1].lstrip().startswith((")", "f\"", "\"", "'")):
        ln -= 1
    return ln


_DOC_ROW = re.compile(r"^\| (\d+) \| (branch|log|raise) \| (.*) \| `(.*)` \| (\+(?: new)?|-|x [a-z0-9-]+) \|$")


SiteKey = tuple[str, int, str, str, str, int]
"""A site as a doc lists it: (file, line, kind, site text, function, n), n counting the rows before it with the
same five (two exits of one line are two arcs with one text)."""


def _keys(sites: list[Site]) -> dict[int, SiteKey]:
    """Each site's key (by ``id``), numbered in the doc's order."""
    seen: Counter[tuple[str, int, str, str, str]] = Counter()
    out: dict[int, SiteKey] = {}
    for x in sorted(sites, key=lambda x: (x.file, x.line, x.kind, x.what)):
        five = (x.file, x.line, x.kind, x.what, x.func)
        out[id(x)] = (*five, seen[five])
        seen[five] += 1
    return out


def carried_sites(doc: Path) -> set[SiteKey]:
    """The sites a coverage doc of this script marks reached (``+``, ``+ new``)."""
    out: set[SiteKey] = set()
    seen: Counter[tuple[str, int, str, str, str]] = Counter()
    current = ""
    for line in doc.read_text().splitlines():
        if line.startswith("### `") and line.endswith("`"):
            current = line[5:-1]
            continue
        m = _DOC_ROW.match(line)
        if m and current:
            five = (current, int(m.group(1)), m.group(2), m.group(3).replace("\\|", "|"), m.group(4))
            if m.group(5).startswith("+"):
                out.add((*five, seen[five]))
            seen[five] += 1
    return out


def analyse(version: str, data_file: str, carried: set[SiteKey] | None = None) -> list[Site]:
    """The sites of the version's scope, reached or not by the data of ``data_file``, or by ``carried`` (the sites
    an earlier doc measured as reached: their lines count as run, so their functions are called)."""
    import coverage

    cov = coverage.Coverage(data_file=data_file, config_file=str(HERE / "coverage.rc"))
    cov.load()
    executed: dict[str, set[int]] = {}
    possible: dict[str, list[tuple[int, int]]] = {}
    done: dict[str, set[tuple[int, int]]] = {}
    for rel, path in scope_files(version):
        an = cov._analyze(path)
        executed[path] = set(an.executed) | {key[1] for key in carried or () if key[0] == rel}
        possible[path] = list(an.arc_possibilities)
        done[path] = set(an.arcs_executed)
    sites = collect_sites(version, executed, possible, done)
    if carried:
        keys = _keys(sites)
        for x in sites:
            if keys[id(x)] in carried:
                x.reached, x.reason = True, None
    return sites


def _as_carried(sites: list[Site], carried: set[SiteKey]) -> list[Site]:
    """``sites`` reached only where ``carried`` says (the 'before' of a carried doc)."""
    keys = _keys(sites)
    return [Site(x.file, x.line, x.kind, x.what, x.func, keys[id(x)] in carried, x.reason) for x in sites]


def summary(sites: list[Site]) -> dict[str, int]:
    c = Counter()
    for s in sites:
        c["total"] += 1
        if s.reason is None:
            c["reachable"] += 1
            c["reached"] += s.reached
        else:
            c["unreachable"] += 1
    return dict(c)


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "-"


def write_doc(version: str, sites: list[Site], before: list[Site] | None, out: Path, data_file: str,
              note: str | None = None) -> None:
    reasons = {"not-called": "the function is never named from the resolution entry points nor from a function "
                             "they reach, and no golden case runs it (runtime-only: workers, engine, model runner)",
               "dead": "contradictory guards (dead code): a test the site needs true is one it needs false, or it "
                       "needs `a and b` false while needing each of a, b true, or `x in {l1, l2}` true while "
                       "needing each `x == l` false",
               "probe": "a hardware probe the oracle's simulated platform answers itself (never runs here)"}
    for rid, _rx, why in UNREACHABLE + UNREACHABLE_ELSE:
        reasons.setdefault(rid, why)
    reasons.update(FUNC_REASONS)
    s = summary(sites)
    b_reached = {(x.file, x.line, x.kind, x.what) for x in before or [] if x.reached}
    L: list[str] = []
    L.append(f"# vLLM-side coverage of the golden corpus: {version}\n")
    L.append("Generated by `tests/golden/oracle/coverage_report.py` (issue 30); do not edit. Regenerate with:\n")
    L.append("```bash")
    L.append(f"python3 tests/golden/oracle/coverage_report.py run {version}     # all golden cases, one oracle "
             "process under coverage.py --branch (~15 min)")
    L.append(f"python3 tests/golden/oracle/coverage_report.py report {version}  # -> docs/coverage-{version}.md")
    L.append("```\n")
    listed = Path(data_file).parent / "cases.txt"  # written by `run`
    n_cases = len(listed.read_text().split()) if listed.is_file() else 0
    L.append(f"Measured on {n_cases} golden cases of {version}.\n")
    if note:
        L.append(f"{note}\n")
    L.append("Sites: every branch arc (coverage.py's), every `logger.*` / `*_once` / `warnings.warn` call and "
             "every `raise` of the scope (see the script's docstring). *Reachable* = not matched by the "
             "classification table below.\n")
    L.append("| kind | sites | unreachable | reachable | reached | reached / reachable |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for kind in ("branch", "log", "raise", None):
        sub = [x for x in sites if kind is None or x.kind == kind]
        k = summary(sub)
        label = kind or "**all**"
        row = (f"| {label} | {k.get('total', 0)} | {k.get('unreachable', 0)} | {k.get('reachable', 0)} | "
               f"{k.get('reached', 0)} | {pct(k.get('reached', 0), k.get('reachable', 0))} |")
        L.append(row)
    if before is not None:
        bs = summary(before)
        L.append(f"\nBefore -> after (this doc's cases added): reached {bs.get('reached', 0)} -> {s.get('reached', 0)} "
                 f"of {s.get('reachable', 0)} reachable.")
    L.append("\n## Unreachable on this CPU machine, by reason\n")
    L.append("| reason | sites | why | pattern (positive guard text; `false side of:` a test that always holds; "
             "functions: qualified names, from an anchor statement on) |")
    L.append("| --- | ---: | --- | --- |")
    rc = Counter(x.reason for x in sites if x.reason)
    pats: dict[str, str] = {}
    for table, label in ((UNREACHABLE, ""), (UNREACHABLE_ELSE, "false side of: ")):
        for rid, rx, _ in table:
            pats[rid] = f"{pats[rid]}` + `{label}{rx}" if rid in pats else f"{label}{rx}"
    for rid in list(reasons):
        if rc.get(rid):
            rx = pats.get(rid, {"not-called": "(call graph)", "dead": "(guard logic)", "probe": "(PROBES)"}.get(rid, ""))
            cell = f"`{rx}`" if rx else ""
            funcs = [f"`{frx}`" + (f" from `{anchor}`" if anchor else "")
                     for r2, _file_rx, frx, anchor in UNREACHABLE_FUNCS if r2 == rid]
            if funcs:
                cell = "; ".join([cell] if cell else []) + ("; " if cell else "") + "functions " + ", ".join(funcs)
            L.append(f"| `{rid}` | {rc[rid]} | {reasons[rid]} | {cell.replace('|', chr(92) + '|')} |")
    L.append("\n## Per file\n")
    L.append("| file | sites | unreachable | reachable | reached | % |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    per: dict[str, list[Site]] = defaultdict(list)
    for x in sites:
        per[x.file].append(x)
    for f in sorted(per):
        k = summary(per[f])
        L.append(f"| `{f}` | {k.get('total', 0)} | {k.get('unreachable', 0)} | {k.get('reachable', 0)} | "
                 f"{k.get('reached', 0)} | {pct(k.get('reached', 0), k.get('reachable', 0))} |")
    L.append("\n## Every site\n")
    L.append("`+` reached, `-` reachable but not reached, `x` unreachable (reason); `new` = reached only after "
             "the coverage cases. Lines are the version's wheel's.\n")
    for f in sorted(per):
        L.append(f"### `{f}`\n")
        L.append("| line | kind | site | function | |")
        L.append("| ---: | --- | --- | --- | --- |")
        for x in sorted(per[f], key=lambda x: (x.line, x.kind, x.what)):
            mark = "+" if x.reached else ("-" if x.reason is None else f"x {x.reason}")
            if x.reached and before is not None and (x.file, x.line, x.kind, x.what) not in b_reached:
                mark = "+ new"
            what = x.what.replace("|", "\\|")
            L.append(f"| {x.line} | {x.kind} | {what} | `{x.func}` | {mark} |")
        L.append("")
    out.write_text("\n".join(L) + "\n")
    print(f"{out}: {s}")


def run(version: str, data_dir: Path, cases: str | None) -> None:
    venv, oracle, cwd, default_cases, extra = VERSIONS[version]
    data_dir.mkdir(parents=True, exist_ok=True)
    files = sorted(glob.glob(cases or default_cases))
    (data_dir / "cases.txt").write_text("".join(f"{f}\n" for f in files))
    # patch=fork stops coverage in a forked child and restarts it only from COVERAGE_PROCESS_START (coverage.py
    # >= 7.10; without it every child, i.e. every case, records nothing)
    env = {**os.environ, "PYTHONHASHSEED": "0", "COVERAGE_FILE": str(data_dir / ".coverage"),
           "COVERAGE_PROCESS_START": str(HERE / "coverage.rc")}
    py = str(venv / "bin/python")
    cmd = ["nice", "-n", "10", py, "-P", "-m", "coverage", "run", f"--rcfile={HERE / 'coverage.rc'}", str(oracle),
           *files, "-o", str(data_dir / "raw"), *extra]
    with open(data_dir / "log", "w") as log:
        subprocess.run(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    subprocess.run([py, "-P", "-m", "coverage", "combine", f"--rcfile={HERE / 'coverage.rc'}",
                    f"--data-file={data_dir / '.coverage'}", str(data_dir)], check=True, env=env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=["run", "report"])
    ap.add_argument("version", choices=sorted(VERSIONS))
    ap.add_argument("--data", help="coverage data directory (default /tmp/postinit-coverage/<version>)")
    ap.add_argument("--cases", help="run: a glob of case files instead of the version's whole corpus")
    ap.add_argument("--before", help="report: a coverage data file to compare with (before -> after)")
    ap.add_argument("-o", "--out", help="report: output path (default docs/coverage-<version>.md)")
    ap.add_argument("--note", help="report: a paragraph after the 'Measured on' line (how the data was made)")
    ap.add_argument("--carry", help="report: a coverage doc (of this script, measured on an earlier corpus) whose "
                    "reached sites count as reached: the union with --data's runs of the cases added since; "
                    "also the 'before' unless --before is given")
    args = ap.parse_args(argv)
    data_dir = Path(args.data or f"/tmp/postinit-coverage/{args.version}")
    if args.step == "run":
        venv = VERSIONS[args.version][0]
        if subprocess.run([str(venv / "bin/python"), "-c", "import coverage"], capture_output=True).returncode:
            # the oracle locks pin vLLM's own dependencies only; coverage.py is this script's tool
            sys.exit(f"coverage.py is not installed in {venv}: {venv}/bin/pip install coverage")
        run(args.version, data_dir, args.cases)
        return 0
    venv = VERSIONS[args.version][0]
    if Path(sys.prefix).resolve() != venv.resolve():  # coverage's API and the version's sources live there
        os.execv(str(venv / "bin/python"), [str(venv / "bin/python"), "-P", __file__, *sys.argv[1:]])
    carried = carried_sites(Path(args.carry)) if args.carry else None
    sites = analyse(args.version, str(data_dir / ".coverage"), carried)
    before = (analyse(args.version, args.before) if args.before
              else _as_carried(sites, carried) if carried is not None else None)
    write_doc(args.version, sites, before, Path(args.out or REPO / f"docs/coverage-{args.version}.md"),
              str(data_dir / ".coverage"), args.note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
