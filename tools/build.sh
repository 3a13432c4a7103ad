#!/usr/bin/env bash
# Configures and builds aftershock in build/ as a unity build (the `unity` preset: the `default`
# preset with CMAKE_UNITY_BUILD, batch 8): CI and the README's test command build from clean, where
# unity saves about a third of the compile time (docs/ci.md). For edit-compile loops configure with
# `cmake --preset default` instead (one object per .cc; it switches build/ back).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake --preset unity >/dev/null
# One job per core: cores + 1 was no faster in a fresh clone here (496 s, against 468-597 s at one
# job per core in earlier ones; docs/ci.md).
jobs=$(nproc)
cmake --build --preset unity -j "$jobs"
