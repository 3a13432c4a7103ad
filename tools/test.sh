#!/usr/bin/env bash
# The README's test command: installs, configures, builds, then runs the unit and integration tests
# then the example scenario set and one short real failover on the embedded HA cluster. JUnit files land in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
status=0
ctest --preset tests || status=$?
ctest --preset example || status=$?
bash tools/check-junit.sh example || status=$?
# One short real failover on the embedded HA cluster (brought up and down by the CTest fixture).
ctest --preset smoke || status=$?
bash tools/check-junit.sh smoke || status=$?
exit $status
