"""finalize rules (being written)."""
