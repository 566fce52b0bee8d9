"""model_config rules (being written)."""
