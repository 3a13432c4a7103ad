#!/usr/bin/env bash
# Ctrl-C in the middle of the overload plateau: the banking scenario must stop, fail as interrupted,
# and leave nothing of its system running: the gateway, its PostgreSQL (run as postgres), Prometheus
# and the node exporter are the suite's descendants, so every process below the suite seen during
# the run must be gone once it has exited. Then the same after a failure (a scenario whose gate is
# red), and the operator halt: a halt file that appears on the plateau stops the run within 5 s
# (measured: breach to the last request sent), and while it exists the next scenario is refused
# before it brings anything up. Processes are found by parent PID, never by name; every wait is bounded.
#
#   interrupt_test.sh <banking_suite> <banking.yaml>
set -euo pipefail
suite="$1"; manifest="$2"
work="$(mktemp -d /tmp/aftershock-banking-interrupt-XXXXXX)"
suite_pid=""
cleanup() {
  if [[ -n "$suite_pid" ]] && kill -0 "$suite_pid" 2>/dev/null; then kill -KILL -- "-$suite_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "banking interrupt_test: FAIL: $*" >&2; exit 1; }
# Every descendant of $1 (by /proc parent links), one PID per line.
descendants() {
  local parent="$1" child
  for child in $(ps -o pid= --ppid "$parent" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}
alive() { kill -0 "$1" 2>/dev/null; }
wait_until() {
  local tries="$1"; shift
  for (( i = 0; i < tries; ++i )); do "$@" && return 0; sleep 0.5; done
  return 1
}
# Runs SCENARIO's test in its own process group and records its descendants while it runs; with
# SIGNAL set, sends it to the group once AT seconds have passed. Sets rc and seen.
run_and_watch() {
  local test="$1" at="$2" signal="$3" log="$work/${4:-$1}.log"
  setsid "$suite" --gtest_also_run_disabled_tests "--gtest_filter=BankingSuite.$test" --aftershock_set=banking \
    "--aftershock_manifest=$manifest" "--aftershock_artifacts_dir=$work/artifacts" > "$log" 2>&1 &
  suite_pid=$!
  seen=""
  local start=$SECONDS sent=0
  while alive "$suite_pid" && (( SECONDS - start < 400 )); do
    seen="$(printf '%s\n%s\n' "$seen" "$(descendants "$suite_pid")" | sort -un | sed '/^$/d')"
    if [[ -n "$signal" && $sent == 0 ]] && (( SECONDS - start >= at )); then
      if [[ "$signal" == HALT ]]; then
        echo "banking interrupt_test: $test: $(wc -l <<< "$seen") descendants seen; creating the halt file"
        touch "$work/halt"
      else
        echo "banking interrupt_test: $test: $(wc -l <<< "$seen") descendants seen; sending SIG$signal to group $suite_pid"
        kill "-$signal" -- "-$suite_pid"
      fi
      sent=1
    fi
    sleep 0.5
  done
  alive "$suite_pid" && fail "$test: still running after 400 s"
  rc=0; wait "$suite_pid" || rc=$?
  suite_pid=""
  if [[ -z "$seen" ]]; then
    [[ "${5:-}" == allow-none ]] || { tail -30 "$log" >&2; fail "$test: no process of its system was ever seen"; }
    return 0
  fi
  local left=""
  for pid in $seen; do
    if wait_until 20 bash -c "! kill -0 $pid 2>/dev/null"; then :; else left="$left $pid($(ps -o comm= -p "$pid"))"; fi
  done
  [[ -z "$left" ]] || fail "$test: left running after the suite exited:$left"
}

# 1. SIGINT on the plateau (the profile: 10 s nominal, then the plateau; the system takes a few
#    seconds to come up first).
run_and_watch DISABLED_OverloadAndRecovery 22 INT
[[ $rc != 0 ]] || fail "an interrupted scenario exited 0"
grep -q "interrupted" "$work/DISABLED_OverloadAndRecovery.log" || { tail -30 "$work/DISABLED_OverloadAndRecovery.log" >&2; fail "the run did not say it was interrupted"; }
echo "banking interrupt_test: SIGINT: exit $rc, nothing left ($(wc -l <<< "$seen") processes seen, all gone)"

# 2. A failed scenario leaves nothing either: the baseline driven at 300/s (past the capacity) with a
#    1 s failure-equivalent budget, so P1 is red.
RESILIENCE_RATE_PER_SECOND=300 RESILIENCE_MAX_IN_FLIGHT=10500 RESILIENCE_MAX_UNAVAILABLE_SECONDS=1 \
  run_and_watch DISABLED_Baseline 0 ""
[[ $rc != 0 ]] || { tail -30 "$work/DISABLED_Baseline.log" >&2; fail "the overdriven baseline passed; it must fail on P1"; }
grep -q "FAIL p1-unavailable-seconds" "$work/DISABLED_Baseline.log" || { tail -30 "$work/DISABLED_Baseline.log" >&2; fail "the overdriven baseline did not fail on P1"; }
echo "banking interrupt_test: a failed scenario: exit $rc, nothing left ($(wc -l <<< "$seen") processes seen)"
# 3. The operator halt (docs/safety.md): the file appears on the plateau -> the run stops within 5 s,
#    red on run-not-aborted naming the halt; nothing left. Then, with the file still there, the next
#    scenario is refused before its system comes up.
export AFTERSHOCK_HALT_FILE="$work/halt"
run_and_watch DISABLED_OverloadAndRecovery 22 HALT halted
log="$work/halted.log"
[[ $rc != 0 ]] || { tail -30 "$log" >&2; fail "a halted scenario exited 0"; }
grep -q "FAIL run-not-aborted: .*by the operator halt" "$log" || { tail -40 "$log" >&2; fail "the halted run does not name the operator halt in run-not-aborted"; }
grep -q "PASS abort-stop-latency" "$log" || { tail -40 "$log" >&2; fail "the halted run did not stop within 5 s (abort-stop-latency)"; }
latency="$(grep -o "abort-stop-latency: [^(]*" "$log" | head -1)"
echo "banking interrupt_test: operator halt: exit $rc, ${latency:-stop latency not printed}, nothing left ($(wc -l <<< "$seen") processes seen)"
run_and_watch DISABLED_Baseline 0 "" refused allow-none
log="$work/refused.log"
[[ $rc != 0 ]] || { tail -30 "$log" >&2; fail "a scenario started while the halt file exists exited 0"; }
grep -q "refused" "$log" || { tail -30 "$log" >&2; fail "the scenario started under a halt was not refused"; }
[[ -z "$seen" ]] || fail "the refused scenario brought processes up: $seen"
echo "banking interrupt_test: halted: the next scenario was refused before anything started"
rm -f "$work/halt"
unset AFTERSHOCK_HALT_FILE
echo "banking interrupt_test: ok"
