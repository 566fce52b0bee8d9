#!/usr/bin/env bash
# Regenerate the README's pictures from the rulebook (needs Graphviz's dot and the graph extra):
#   bash docs/images/regenerate.sh
set -euo pipefail
cd "$(dirname "$0")"
postinit graph --format svg --output overview.svg
postinit graph --around compilation_config.cudagraph_mode --format svg --output around-cudagraph-mode.svg
