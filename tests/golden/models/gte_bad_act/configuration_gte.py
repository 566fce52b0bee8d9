"""A config class named like the remote code vLLM checks for (fixture; no weights)."""

from transformers import PretrainedConfig


class GteConfig(PretrainedConfig):
    model_type = "gte"
