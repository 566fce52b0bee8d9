"""A config class named like the remote code vLLM checks for (fixture; no weights)."""

from transformers import PretrainedConfig


class NomicBertConfig(PretrainedConfig):
    model_type = "nomic_bert"
