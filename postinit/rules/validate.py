"""validate rules (being written)."""
