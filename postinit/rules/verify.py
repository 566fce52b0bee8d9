"""verify rules (being written)."""
