"""postinit's benchmarks: ``python -m benchmarks`` runs them all and writes ``benchmarks/RESULTS.md``.

Every figure is a median over many repetitions, reported as a ratio against a
baseline run in the same process (absolute times are context only: the
machine may be shared). ``python -m benchmarks --quick`` runs each once at
tiny size (what ``tests/test_benchmarks_smoke.py`` does).
"""
