"""postinit: vLLM's config resolution as declarative, explainable rules."""

__version__ = "0.1.0"
