"""Baselines the benchmarks compare postinit against (run in the same process).

* :mod:`.imperative` — the practical floor: a hand-written function making the
  same step-7..12 decisions of ``VllmConfig.__post_init__`` on a plain dict;
* :mod:`.naive` — a "loop over all rules until nothing changes" engine.
"""
