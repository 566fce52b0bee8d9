# The corpus generator and the output stripper are scripts, not tests.
collect_ignore = ["gen_cases.py", "strip_outputs.py"]
