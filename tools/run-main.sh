#!/usr/bin/env bash
# The README's main command: installs, configures, builds and runs the main scenario set.
# (Until the embedded cluster lands this is the example set against the in-memory reference target.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
ctest --preset example
