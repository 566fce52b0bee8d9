"""Platform hooks: `check_and_update_config` of CUDA, ROCm and CPU."""
