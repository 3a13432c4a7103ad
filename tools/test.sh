#!/usr/bin/env bash
# The README's test command: installs, configures, builds, then runs the unit and integration tests,
# the example scenario set, aftershock as a package (install + examples/consumer against it) and one
# short real failover on the embedded HA cluster. JUnit files land in build/. Each step's time is
# printed as it ends, and all of them at the end (docs/ci.md, "Keeping the test command short").
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
timings=()
# step NAME COMMAND...: runs it, keeps its status in $status (the first failure does not stop the
# rest), and records how long it took.
step() {
  local name=$1 started code=0
  shift
  started=$(date +%s)
  "$@" || code=$?
  ((code == 0)) || status=$code
  timings+=("$name $(($(date +%s) - started)) s$( ((code == 0)) || echo " (exit $code)")")
  echo "test.sh: $name took $(($(date +%s) - started)) s"
}
step "setup + build (tools/build.sh)" bash tools/build.sh
# Without a build there is nothing to test.
((status == 0)) || exit $status
step "tests preset" ctest --preset tests
step "example set" ctest --preset example
step "example JUnit check" bash tools/check-junit.sh example
# cmake --install into build/install, examples/consumer built against it, its scenario set run.
step "aftershock as a package (tools/check-consumer.sh)" bash tools/check-consumer.sh
# One short real failover on the embedded HA cluster (brought up and down by the CTest fixture).
step "smoke set" ctest --preset smoke
step "smoke JUnit check" bash tools/check-junit.sh smoke
echo "test.sh: times:"
printf '  %s\n' "${timings[@]}"
exit $status
