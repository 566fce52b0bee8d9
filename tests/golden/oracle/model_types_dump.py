"""Print the ``model_type`` values a vLLM installation's ``get_config`` can load without remote code, as postinit's
data (``postinit/rules/data/config-model-types-<version>.json``): transformers' ``CONFIG_MAPPING_NAMES`` keys and
vLLM's own ``_CONFIG_REGISTRY`` keys (vllm/transformers_utils/config.py). Run it with each oracle venv's python:

    $HOME/oracle-venv-seed-full/bin/python oracle/model_types_dump.py d7fb10c57 > ../../postinit/rules/data/config-model-types-d7fb10c57.json
    $HOME/oracle-venv/bin/python           oracle/model_types_dump.py 0.11.1    > ../../postinit/rules/data/config-model-types-0.11.1.json
    $HOME/oracle-venv-0.34.0/bin/python    oracle/model_types_dump.py 0.34.0    > ../../postinit/rules/data/config-model-types-0.34.0.json
"""

from __future__ import annotations

import json
import logging
import sys


def main() -> int:
    logging.disable(logging.CRITICAL)
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from vllm.transformers_utils import config as vllm_config

    registry = vllm_config._CONFIG_REGISTRY
    out = {"vllm": sys.argv[1], "transformers": transformers.__version__,
           "source": "transformers CONFIG_MAPPING_NAMES | vllm/transformers_utils/config.py _CONFIG_REGISTRY",
           "transformers_model_types": sorted(CONFIG_MAPPING_NAMES), "vllm_model_types": sorted(registry)}
    print(json.dumps(out, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
