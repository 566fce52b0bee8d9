"""PathSpace: the flat view of a pydantic model and the way back."""

from __future__ import annotations

import pytest

from postinit.engine import FrozenDict, PathSpace, freeze, thaw
from postinit.errors import UnknownFieldError
from tests.engine._synth import PATHS, Cache, Cfg, DCRoot, Extra, Facts


def test_paths_of_nested_models_and_mounts() -> None:
    """Leaves of nested models get dotted paths; an optional sub-model also gets a presence path."""
    assert set(PATHS) == {
        "a", "b", "c", "d", "mode", "sizes", "opts", "cache.block_size", "cache.prefix",
        "extra", "extra.level", "extra.name", "fact.kind", "fact.cap",
    }
    assert PATHS.info["extra"].presence and PATHS.info["extra"].default is None
    assert PATHS.info["extra.level"].under == "extra"
    assert PATHS.info["opts"].extra == {"hash": True}


def test_defaults_are_frozen() -> None:
    """Defaults are frozen: lists become tuples and dicts FrozenDicts."""
    d = PATHS.defaults()
    assert d["sizes"] == (1, 2) and isinstance(d["opts"], FrozenDict)
    assert d["extra"] is None and d["extra.level"] == 0


@pytest.mark.parametrize("extra", [None, Extra(level=3, name="y")], ids=["absent", "present"])
def test_flatten_unflatten_build_round_trip(extra: Extra | None) -> None:
    """Flattening, unflattening and building gives back an equal model, with the presence path True or None."""
    cfg = Cfg(a=1, sizes=[3], opts={"k": 2}, cache=Cache(block_size=16), extra=extra)
    flat = PATHS.flatten({"": cfg, "fact": Facts(cap=90)})
    assert flat["extra"] is (None if extra is None else True)
    assert flat["extra.level"] == (0 if extra is None else 3)
    assert flat["sizes"] == (3,)
    nested = PATHS.unflatten(flat)
    assert nested["sizes"] == [3] and type(nested["opts"]) is dict
    assert (nested["extra"] is None) is (extra is None)
    assert PATHS.build(flat) == cfg
    assert PATHS.build(flat, "fact") == Facts(cap=90)


def test_presence_toggle_builds_sub_model() -> None:
    """Setting the presence path to True builds the optional sub-model from its leaves."""
    flat = PATHS.flatten({"": Cfg(), "fact": Facts()})
    flat.update({"extra": True, "extra.level": 4})
    assert PATHS.build(flat).extra == Extra(level=4)


def test_pydantic_dataclass_root() -> None:
    """A pydantic dataclass root keeps the field name ``model_config`` and round-trips."""
    space = PathSpace.from_model(DCRoot)
    assert {"model_config.block_size", "model_config.prefix", "n", "extra", "extra.name"} <= set(space)
    obj = DCRoot(model_config=Cache(block_size=8), n=2, extra=Extra(name="z"))
    flat = space.flatten({"": obj})
    assert flat["model_config.block_size"] == 8 and flat["extra"] is True
    assert space.build(flat) == obj


def test_flatten_partial_user_paths() -> None:
    """``flatten_partial`` yields only the paths a nested input mentions, with presence paths."""
    assert PATHS.flatten_partial({"a": 1, "cache": {"prefix": False}, "extra": None}) == {
        "a": 1, "cache.prefix": False, "extra": None,
    }
    assert PATHS.flatten_partial({"extra": {"level": 2}}) == {"extra": True, "extra.level": 2}


@pytest.mark.parametrize(("data", "match"), [({"cache": {"blok_size": 1}}, "cache.block_size"), ({"mod": 1}, "'mode'")])
def test_flatten_partial_unknown_key(data: dict, match: str) -> None:
    """An unknown key in nested input raises UnknownFieldError with a suggestion."""
    with pytest.raises(UnknownFieldError, match=f"Did you mean {match}" if match.startswith("'") else match):
        PATHS.flatten_partial(data)


def test_require_unknown_path() -> None:
    """``require`` names the closest path for a typo."""
    with pytest.raises(UnknownFieldError, match=r"Did you mean 'fact\.cap'"):
        PATHS.require("fact.capp")


@pytest.mark.parametrize(
    ("value", "frozen"),
    [([1, [2]], (1, (2,))), ({"a": [1]}, FrozenDict(a=(1,))), ({1, 2}, frozenset({1, 2})), ("s", "s"), (None, None)],
)
def test_freeze_thaw(value: object, frozen: object) -> None:
    """``freeze`` makes values immutable and ``thaw`` turns tuples and FrozenDicts back into lists and dicts."""
    assert freeze(value) == frozen
    assert type(freeze(value)) is type(frozen)
    if not isinstance(value, set):
        assert thaw(freeze(value)) == value


def test_frozen_dict_is_hashable_and_read_only() -> None:
    """A FrozenDict hashes, compares equal to a dict, and refuses every mutation."""
    fd = FrozenDict(a=1)
    assert fd == {"a": 1} and hash(fd) == hash(FrozenDict(a=1))
    for op in (lambda: fd.__setitem__("b", 1), lambda: fd.clear(), lambda: fd.setdefault("b", 1), lambda: fd.__ior__({})):
        with pytest.raises(TypeError, match="read-only"):
            op()
