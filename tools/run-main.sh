#!/usr/bin/env bash
# The README's main command: installs, configures, builds and runs the PR scenario set on the
# embedded local cluster (brought up once for the run by the CTest fixture, and down at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
ctest --preset pr
