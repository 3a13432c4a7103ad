#!/usr/bin/env bash
# The README's test command: installs, configures, builds, then runs the unit and integration tests
# and one short real scenario set. JUnit files land in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
status=0
ctest --preset tests || status=$?
ctest --preset example || status=$?
bash tools/check-junit.sh example || status=$?
exit $status
