"""The capture-size plan seeds the plan of its own output: that plan must be what computing it gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from postinit.rules import cudagraph
from postinit.schema import CUDAGraphMode

KEYS = st.tuples(
    st.booleans(), st.sampled_from([True, None]), st.booleans(), st.sampled_from(list(CUDAGraphMode)),
    st.none() | st.integers(0, 600),
    st.none() | st.lists(st.integers(1, 600), max_size=20).map(tuple),
    st.integers(1, 1024), st.integers(1, 20_000), st.sampled_from([1, 2, 3, 4, 8]), st.booleans(),
    st.booleans(),  # version.capture_sizes_clip (0.11.1 clips user sizes to the budget)
)


@given(KEYS)
def test_seeded_plan_equals_the_computed_one(key: tuple) -> None:  # type: ignore[type-arg]
    """Whatever ``_plan`` stores for the written (max, sizes) equals ``_plan_of`` on them."""
    view = dict(zip(cudagraph._SIZE_READS, key, strict=True))
    cudagraph._PLANS.clear()
    plan = cudagraph._plan(view)
    assert plan == cudagraph._plan_of(*key)
    stored = key  # the plan's key is the values of _SIZE_READS, the version's clip fact last
    assert stored in cudagraph._PLANS
    seeded = {k: v for k, v in cudagraph._PLANS.items() if k != stored}
    for k, v in seeded.items():
        assert v == cudagraph._plan_of(*k), (key, k)
    if plan is not None and plan.assertion is None and plan.sizes and not plan.inconsistent:
        assert len(seeded) == 1 or key[4:6] == (plan.valid_max, plan.sizes)
    else:
        assert not seeded


def test_plan_cache_is_bounded() -> None:
    cudagraph._PLANS.clear()
    for budget in range(1, 1100):
        key = (True, True, False, CUDAGraphMode.FULL_AND_PIECEWISE, None, None, 256, budget, 1, False, False)
        cudagraph._plan(dict(zip(cudagraph._SIZE_READS, key, strict=True)))
    assert len(cudagraph._PLANS) <= 1024 + 1


def test_clear_caches_empties_every_rule_memo_and_changes_no_result() -> None:
    import postinit
    from postinit.rules import clear_caches, model_config

    before = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", platform="h100")
    assert cudagraph._PLANS and cudagraph._padding.cache_info().currsize
    assert any(f.cache_info().currsize for f in (model_config._match, model_config._normalize))
    clear_caches()
    assert not cudagraph._PLANS
    assert all(f.cache_info().currsize == 0 for f in (
        cudagraph._padding, model_config._match, model_config._normalize))
    after = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", platform="h100")
    assert after.engine.state == before.engine.state and after.trace.to_dict() == before.trace.to_dict()
