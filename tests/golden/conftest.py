# The corpus generator and the output stripper are scripts, not tests.
collect_ignore = ["gen_cases.py", "gen_targeted.py", "strip_outputs.py"]
