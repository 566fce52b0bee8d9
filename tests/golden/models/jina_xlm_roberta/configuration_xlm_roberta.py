"""A config class named like the remote code vLLM checks for (fixture; no weights)."""

from transformers import PretrainedConfig


class XLMRobertaFlashConfig(PretrainedConfig):
    model_type = "xlm-roberta"
