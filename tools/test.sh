#!/usr/bin/env bash
# The README's test command: installs, configures, builds, then runs the unit and integration tests,
# the example scenario set, aftershock as a package (install + examples/consumer against it) and one
# short real failover on the embedded HA cluster. JUnit files land in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
status=0
ctest --preset tests || status=$?
ctest --preset example || status=$?
bash tools/check-junit.sh example || status=$?
# cmake --install into build/install, examples/consumer built against it, its scenario set run.
consumer_start=$(date +%s)
bash tools/check-consumer.sh || status=$?
echo "test.sh: aftershock as a package (tools/check-consumer.sh) took $(( $(date +%s) - consumer_start )) s"
# One short real failover on the embedded HA cluster (brought up and down by the CTest fixture).
ctest --preset smoke || status=$?
bash tools/check-junit.sh smoke || status=$?
exit $status
