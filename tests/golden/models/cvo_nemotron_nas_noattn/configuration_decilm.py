"""A minimal DeciLM (Nemotron-NAS) config class for the golden fixture: per-block configs read by attribute."""

from transformers import PretrainedConfig


class _Block(dict):
    """A block config read by attribute (``block.attention.no_op``), serialised as the dict it is."""

    def __getattr__(self, name):
        try:
            value = self[name]
        except KeyError:
            raise AttributeError(name) from None
        return _Block(value) if isinstance(value, dict) else value


class DeciLMConfig(PretrainedConfig):
    model_type = "nemotron-nas"

    def __init__(self, block_configs=None, **kwargs):
        self.block_configs = [_Block(b) for b in (block_configs or [])]
        super().__init__(**kwargs)
