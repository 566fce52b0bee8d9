"""scheduler rules (being written)."""
