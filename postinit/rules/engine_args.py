"""engine_args rules (being written)."""
