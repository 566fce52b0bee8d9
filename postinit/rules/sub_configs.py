"""sub_configs rules (being written)."""
