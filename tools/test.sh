#!/usr/bin/env bash
# The README's test command: installs, configures, builds, then runs the unit and integration tests
# with one short real failover on the embedded HA cluster (the smoke set), the example scenario set,
# and aftershock as a package (install + examples/consumer against it). JUnit files land in build/.
# Each step's time is printed as it ends, and all of them at the end (docs/ci.md, "Keeping the test
# command short").
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
# The unit and integration tests and the smoke set (one short real failover on the embedded HA
# cluster, brought up and down by the CTest fixture) in one ctest run of three jobs: the cluster
# tests run in two lanes and the scenarios alone (ctest/cluster_lock.cmake, docs/ci.md).
step "tests + smoke set (check preset)" ctest --preset check
step "smoke JUnit check" bash tools/check-junit.sh smoke build/junit-check.xml
# The example set alone: its generator-limited gate holds a 10 ms lag bar, which a busy host misses.
step "example set" ctest --preset example
step "example JUnit check" bash tools/check-junit.sh example
# cmake --install into build/install, examples/consumer built against it, its scenario set run.
step "aftershock as a package (tools/check-consumer.sh)" bash tools/check-consumer.sh
echo "test.sh: times:"
printf '  %s\n' "${timings[@]}"
exit $status
