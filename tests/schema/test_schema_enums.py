"""CUDAGraphMode predicates (reference §4.2) and CompilationMode parsing (§4.1)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from postinit.schema import CompilationConfig, CompilationMode, CUDAGraphMode

M = CUDAGraphMode

# mode: has_full, has_piecewise/requires_piecewise, separate_routine, decode, mixed, valid_runtime
TRUTH = [
    (M.NONE, False, False, False, M.NONE, M.NONE, True),
    (M.PIECEWISE, False, True, False, M.PIECEWISE, M.PIECEWISE, True),
    (M.FULL, True, False, False, M.FULL, M.FULL, True),
    (M.FULL_DECODE_ONLY, True, False, True, M.FULL, M.NONE, False),
    (M.FULL_AND_PIECEWISE, True, True, True, M.FULL, M.PIECEWISE, False),
]


@pytest.mark.parametrize(
    ("mode", "full", "piecewise", "separate", "decode", "mixed", "valid"),
    TRUTH,
    ids=[row[0].name for row in TRUTH],
)
def test_cudagraph_mode_truth_table(
    mode: CUDAGraphMode,
    full: bool,
    piecewise: bool,
    separate: bool,
    decode: CUDAGraphMode,
    mixed: CUDAGraphMode,
    valid: bool,
) -> None:
    """Each mode answers vLLM's predicates as the §4.2 truth table says."""
    assert mode.has_full_cudagraphs() is full
    assert mode.has_piecewise_cudagraphs() is piecewise
    assert mode.requires_piecewise_compilation() is piecewise
    assert mode.separate_routine() is separate
    assert mode.decode_mode() is decode
    assert mode.mixed_mode() is mixed
    assert mode.valid_runtime_modes() is valid
    assert str(mode) == mode.name


def test_cudagraph_mode_values_and_max() -> None:
    """Members keep vLLM's values; max_cudagraph_mode and has_mode follow the tuples."""
    assert [m.value for m in M] == [0, 1, 2, (2, 0), (2, 1)]
    assert M.FULL_DECODE_ONLY.max_cudagraph_mode() is M.FULL
    assert M.FULL_AND_PIECEWISE.has_mode(M.NONE) is False
    assert M.FULL_DECODE_ONLY.has_mode(M.NONE) is True
    with pytest.raises(ValueError):
        M.FULL.has_mode(M.FULL_AND_PIECEWISE)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("full_and_piecewise", M.FULL_AND_PIECEWISE),
        ("Piecewise", M.PIECEWISE),
        ("NONE", M.NONE),
        (M.FULL_DECODE_ONLY, M.FULL_DECODE_ONLY),
    ],
)
def test_cudagraph_mode_parsing(raw: Any, expected: CUDAGraphMode) -> None:
    """Names are accepted case-insensitively and serialise back as names."""
    cc = CompilationConfig(cudagraph_mode=raw)
    assert cc.cudagraph_mode is expected
    assert cc.model_dump(mode="json")["cudagraph_mode"] == expected.name


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (0, CompilationMode.NONE),
        (3, CompilationMode.VLLM_COMPILE),
        ("2", CompilationMode.DYNAMO_TRACE_ONCE),
        ("vllm_compile", CompilationMode.VLLM_COMPILE),
        ("Stock_Torch_Compile", CompilationMode.STOCK_TORCH_COMPILE),
        (CompilationMode.NONE, CompilationMode.NONE),
    ],
)
def test_compilation_mode_parsing(raw: Any, expected: CompilationMode) -> None:
    """An int 0-3 or a name (any case) parses; JSON gives the name; comparisons are ints."""
    cc = CompilationConfig(mode=raw)
    assert cc.mode is expected
    assert cc.model_dump(mode="json")["mode"] == expected.name
    assert cc.mode == int(expected)


@pytest.mark.parametrize("raw", ["VLLM", True, 2.5, "FULL", "4"])
def test_compilation_mode_rejects(raw: Any) -> None:
    """Unknown names, bools, floats and digit strings outside 0-3 are rejected."""
    with pytest.raises(ValidationError):
        CompilationConfig(mode=raw)


@pytest.mark.parametrize("raw", [4, 5, -1])
def test_compilation_mode_keeps_an_out_of_range_int(raw: int) -> None:
    """An int outside 0-3 is kept as that int (the seed's plain int field; JSON gives the int): the version's rules
    or its door refuse it where vLLM does (golden t009, x122-x125)."""
    cc = CompilationConfig(mode=raw)
    assert type(cc.mode) is int and cc.mode == raw
    assert cc.model_dump(mode="json")["mode"] == raw


@pytest.mark.parametrize(("version", "stage", "error"), [
    ("d7fb10c57", "vllm_config", "AssertionError"), ("0.11.1", "parse", "ArgumentError")])
def test_an_out_of_range_mode_is_refused_where_the_version_refuses_it(version: str, stage: str, error: str) -> None:
    """The seed asserts the mode at VllmConfig's step 8 (a failed resolution); 0.11.1's IntEnum is refused by the
    parser, with pydantic's text."""
    import postinit
    from postinit.errors import InputError

    try:
        r = postinit.resolve(argv=["-O.mode=4"], vllm_version=version)
    except InputError as e:
        assert (e.stage, e.error) == (stage, error)
        assert "Input should be 0, 1, 2 or 3" in (e.vllm_message or "")
    else:
        assert not r.ok and r.error is not None
        assert (r.error.stage, r.error.type, r.error.rule) == (stage, error, "compilation.mode-range")


@pytest.mark.parametrize("raw", ["FULLY", 3, -1, True, 2.0, None.__class__])
def test_cudagraph_mode_rejects(raw: Any) -> None:
    """Unknown names, other types and ints that are no member's value are rejected."""
    with pytest.raises(ValidationError):
        CompilationConfig(cudagraph_mode=raw)


def test_cudagraph_mode_by_value() -> None:
    """A member's int value is that member, as pydantic's enum validation in vLLM takes it (golden n251)."""
    assert CompilationConfig(cudagraph_mode=1).cudagraph_mode is CUDAGraphMode.PIECEWISE
    assert CompilationConfig(cudagraph_mode=0).cudagraph_mode is CUDAGraphMode.NONE


def test_enums_in_plain_models() -> None:
    """Both enums work as field types in any pydantic model."""

    class Holder(BaseModel):
        mode: CompilationMode = CompilationMode.NONE
        graphs: CUDAGraphMode = CUDAGraphMode.NONE

    h = Holder.model_validate({"mode": "dynamo_trace_once", "graphs": "full"})
    assert h.model_dump_json() == '{"mode":"DYNAMO_TRACE_ONCE","graphs":"FULL"}'
