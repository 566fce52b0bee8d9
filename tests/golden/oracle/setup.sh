#!/usr/bin/env bash
# Builds the venv of the vllm==0.34.0 config oracle, OUTSIDE the repository.
#
#   bash tests/golden/oracle/setup.sh                 # $HOME/oracle-venv-0.34.0
#   ORACLE_VENV=/path/venv bash tests/golden/oracle/setup.sh
#   ORACLE_REBUILD=1 bash tests/golden/oracle/setup.sh  # wipe and recreate
#
# Needs Python 3.11, gcc (installed with apt-get when missing) and the machine's package index.
# Disk: about 7 GB (torch 2.14.0+cu130 and its CUDA 13 runtime wheels).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${ORACLE_VENV:-$HOME/oracle-venv-0.34.0}"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VLLM_VERSION=0.34.0

# The machine's own pip set-up (its index, find-links, constraints and certificate) is used
# as it is: the lock pins every package exactly and --no-deps resolves nothing.
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_DEFAULT_TIMEOUT=180

"$PYTHON" - <<'PY'
import sys
if sys.version_info[:2] != (3, 11):
    sys.exit(f"setup.sh: need Python 3.11, got {sys.version.split()[0]}")
PY

if [ "${ORACLE_REBUILD:-0}" = 1 ] || [ ! -x "$VENV/bin/python" ]; then
    echo "== creating $VENV"
    "$PYTHON" -m venv --clear "$VENV"
fi
PIP=("$VENV/bin/python" -m pip)

echo "== installing the exact pins (--no-deps: pip resolves nothing)"
"${PIP[@]}" install -q --no-deps -r "$HERE/requirements-0.34.0.lock"

echo "== installing vllm==$VLLM_VERSION (official CUDA wheel, --no-deps)"
"${PIP[@]}" install -q --no-deps "vllm==$VLLM_VERSION"

echo "== building the libcuda.so.1 stand-in (this machine has no NVIDIA driver)"
if ! command -v gcc >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq gcc
fi
mkdir -p "$VENV/lib/oracle-stubs"
gcc -shared -fPIC -O2 -Wall -Wl,-soname,libcuda.so.1 \
    -o "$VENV/lib/oracle-stubs/libcuda.so.1" "$HERE/stubs/libcuda_stub.c"

echo "== smoke test"
"$VENV/bin/python" - <<'PY'
import ctypes, os, sys
ctypes.CDLL(os.path.join(sys.prefix, "lib", "oracle-stubs", "libcuda.so.1"),
            mode=ctypes.RTLD_GLOBAL)
import torch, transformers
import vllm, vllm._C_stable_libtorch, vllm._moe_C_stable_libtorch  # noqa: F401
assert vllm.__version__ == "0.34.0", vllm.__version__
assert torch.ops._C.cutlass_scaled_mm_supports_fp8(90)
assert not torch.ops._C.cutlass_scaled_mm_supports_fp8(75)
print("vllm", vllm.__version__, "torch", torch.__version__,
      "transformers", transformers.__version__)
PY
GOLDEN="$(dirname "$HERE")"
if [ -d "$GOLDEN/expected-0.34.0" ] && [ -d "$GOLDEN/cases-0.34.0" ]; then
    smoke=()
    for c in "$GOLDEN"/cases-0.34.0/c001-*.json "$GOLDEN"/cases-0.34.0/a001-*.json; do
        [ -f "$c" ] && smoke+=("$c")
    done
    if [ "${#smoke[@]}" -gt 0 ]; then
        PYTHONHASHSEED=0 "$VENV/bin/python" "$HERE/vllm_oracle.py" --check "$GOLDEN/expected-0.34.0" "${smoke[@]}"
    fi
fi
echo "== done: $VENV ($(du -sh "$VENV" | cut -f1))"
