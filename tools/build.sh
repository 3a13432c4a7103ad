#!/usr/bin/env bash
# Configures and builds aftershock with the default preset (build/ in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake --preset default >/dev/null
jobs=$(nproc)
cmake --build --preset default -j "$jobs"
