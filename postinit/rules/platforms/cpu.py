"""platforms/cpu rules (being written)."""
