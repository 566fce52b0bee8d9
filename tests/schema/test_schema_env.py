"""Env parsing: vLLM's defaults, bool/int parsing, unknown variables and bad values."""

from __future__ import annotations

from typing import Any

import pytest

from postinit.errors import InvalidValueError
from postinit.schema import Env
from postinit.schema.env import known_variables, read_env


def test_defaults() -> None:
    """An empty environment gives vLLM's defaults."""
    e = Env.from_mapping({})
    assert e.VLLM_USE_V1 is True and e.VLLM_ENABLE_V1_MULTIPROCESSING is True
    assert e.VLLM_ALL2ALL_BACKEND == "allgather_reducescatter" and not e.all2all_backend_set
    assert e.VLLM_WORKER_MULTIPROC_METHOD is None and e.VLLM_ATTENTION_BACKEND is None
    assert e.VLLM_CPU_KVCACHE_SPACE is None and e.VLLM_CPU_CI_ENV == "0"
    assert e.VLLM_ROCM_USE_AITER is False and e.VLLM_ROCM_USE_AITER_RMSNORM is True
    assert e.VLLM_BATCH_INVARIANT == 0 and e.VLLM_DP_SIZE == 1 and e.VLLM_DP_RANK_LOCAL == 0
    assert e.explicit == [] and e.OMP_NUM_THREADS is None


@pytest.mark.parametrize(("raw", "expected"), [("0", False), ("1", True), (" 2", True), ("-1", True)])
def test_bool_int_parsing(raw: str, expected: bool) -> None:
    """bool(int(...)) variables take what int() takes, as vLLM's envs.py parses them."""
    assert Env.from_mapping({"VLLM_MLA_DISABLE": raw}).VLLM_MLA_DISABLE is expected


@pytest.mark.parametrize("raw", ["true", "False", "yes", ""])
def test_bool_int_refuses_words(raw: str) -> None:
    """vLLM's bool(int("true")) raises: postinit refuses the value with one line that says so."""
    with pytest.raises(InvalidValueError, match=r"VLLM_MLA_DISABLE: vLLM reads it with bool\(int\(...\)\): use 0 or 1"):
        Env.from_mapping({"VLLM_MLA_DISABLE": raw})


@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [
        ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", " TRUE ", True),  # .strip().lower() in ("1", "true")
        ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "yes", False),
        ("VLLM_ROCM_USE_AITER", " 1", False),  # .lower() in ("true", "1"), no strip
        ("VLLM_ROCM_USE_AITER", "True", True),
        ("VLLM_BATCH_INVARIANT", "abc", 0),  # vllm_is_batch_invariant(): a ValueError counts as 0
    ],
)
def test_text_bools_and_lenient_ints_as_vllm(name: str, raw: str, expected: Any) -> None:
    """Variables parsed with .lower() comparisons take any text, exactly as vLLM compares it."""
    assert getattr(Env.from_mapping({name: raw}), name) == expected


def test_typed_values_and_explicit() -> None:
    """Ints parse, DP local rank defaults to the rank, and set variables are recorded."""
    e = Env.from_mapping(
        {
            "VLLM_CPU_KVCACHE_SPACE": "8",
            "VLLM_DP_RANK": "3",
            "VLLM_ALL2ALL_BACKEND": "deepep_low_latency",
            "VLLM_USE_V1": "0",
            "PATH": "/usr/bin",
            "OMP_NUM_THREADS": "4",
            "VLLM_LOGGING_LEVEL": "DEBUG",
        }
    )
    assert e.VLLM_CPU_KVCACHE_SPACE == 8 and e.VLLM_DP_RANK_LOCAL == 3
    assert e.all2all_backend_set and e.use_v1_set and e.VLLM_USE_V1 is False
    assert e.OMP_NUM_THREADS == "4"
    assert e.explicit == sorted(
        [
            "VLLM_CPU_KVCACHE_SPACE",
            "VLLM_DP_RANK",
            "VLLM_ALL2ALL_BACKEND",
            "VLLM_USE_V1",
            "OMP_NUM_THREADS",
        ]
    )


def test_none_means_unset() -> None:
    """A None value is skipped as if the variable were unset."""
    assert Env.from_mapping({"VLLM_USE_V1": None, "VLLM_FOO": None}) == Env.from_mapping({})


def test_unknown_vllm_variable_is_a_note() -> None:
    """An unknown VLLM_* name is accepted (vLLM ignores it) with a note that suggests the likely one."""
    reading = read_env({"VLLM_MLA_DISABLED": "1"})
    assert reading.env == Env.from_mapping({})
    assert [(n.name, n.kind) for n in reading.notes] == [("VLLM_MLA_DISABLED", "unknown")]
    assert "Did you mean 'VLLM_MLA_DISABLE'" in reading.notes[0].message


def test_every_vllm_variable_is_accepted() -> None:
    """Every variable of vLLM's envs.py at the commit is accepted; those resolution never reads get a note."""
    names = [n for n in known_variables() if n not in Env.variable_names()]
    assert len(names) >= 177  # 0.34.0's VLLM_LORA_ENABLE_DUAL_STREAM and VLLM_ROCM_USE_AITER_MHA are Env fields
    reading = read_env({"VLLM_USE_STANDALONE_COMPILE": "0", "VLLM_LOGGING_LEVEL": "DEBUG", "HF_TOKEN": "x"})
    assert {(n.name, n.kind) for n in reading.notes} == {
        ("VLLM_USE_STANDALONE_COMPILE", "no_effect"), ("VLLM_LOGGING_LEVEL", "no_effect")}
    assert "no effect on config resolution" in reading.notes[0].message


@pytest.mark.parametrize(("name", "raw"), [("VLLM_RPC_TIMEOUT", "soon"), ("VLLM_KV_CACHE_LAYOUT", "XYZ"),
                                           ("VLLM_LOG_STATS_INTERVAL", "often")])
def test_known_unread_variable_with_a_bad_value(name: str, raw: str) -> None:
    """A variable vLLM parses with int()/float()/choices refuses a value vLLM would refuse, though no rule reads it."""
    with pytest.raises(InvalidValueError, match=f"Bad value '{raw}' for environment variable {name}") as info:
        read_env({name: raw})
    assert info.value.path == f"env.{name}"


@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("VLLM_USE_V1", "maybe"),
        ("VLLM_ALL2ALL_BACKEND", "nccl"),
        ("VLLM_WORKER_MULTIPROC_METHOD", "forkserver"),
        ("VLLM_DP_SIZE", "0"),
        ("VLLM_CPU_KVCACHE_SPACE", "four"),
    ],
)
def test_bad_values(key: str, raw: str) -> None:
    """A bad value is an InvalidValueError naming env.<VAR>."""
    with pytest.raises(InvalidValueError) as info:
        Env.from_mapping({key: raw})
    assert info.value.path == f"env.{key}"


def test_from_os(monkeypatch: pytest.MonkeyPatch) -> None:
    """from_os reads the process environment."""
    monkeypatch.setenv("VLLM_BATCH_INVARIANT", "1")
    assert Env.from_os().VLLM_BATCH_INVARIANT == 1


def _valid_text(var: Any) -> str:
    if var.choices:
        return str(var.choices[0])
    return {"bool_int": "1", "int": "1", "int_or_zero": "1", "float": "1.5"}.get(var.kind, "x")


def test_the_whole_vllm_environment_at_once_resolves() -> None:
    """Every variable vLLM defines at the commit, set to a value vLLM accepts, in one resolution."""
    import postinit

    env = {name: _valid_text(var) for name, var in known_variables().items()}
    env["VLLM_DP_SIZE"] = "1"
    r = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", env=env)
    assert len(env) > 200
    noted = {n.subject for n in r.notes if n.kind == "env_no_effect"}
    assert noted == {k for k in env if k not in Env.variable_names()}
