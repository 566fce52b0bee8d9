"""compilation rules (being written)."""
