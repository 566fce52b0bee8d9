"""platforms/cuda rules (being written)."""
