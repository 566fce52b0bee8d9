"""cudagraph rules (being written)."""
