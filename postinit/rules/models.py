"""models rules (being written)."""
