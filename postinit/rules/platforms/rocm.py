"""platforms/rocm rules (being written)."""
