#!/usr/bin/env bash
# Ctrl-C in the middle of a fault, on a cluster that stays up (as when a developer keeps one up):
# the scenario must stop, revert its fault (no link fault left on the cluster) and fail as
# interrupted. SIGKILL in the middle of a fault (a ctest timeout): nothing in the suite can revert
# it, so the supervisor must, once the scenario's fault lease runs out - within 10 s no fault is
# left, and the next scenario passes. A fault left on purpose (the CLI's long --hold): the next
# scenario refuses to start, naming it. Then the cluster is stopped the way a ctest run's fixture
# stops it when ctest goes away (--watch-pid): nothing of it may be left running, and its
# temporary data must be gone.
#
#   interrupt_test.sh <aftershock-cluster> <ha_suite> <interrupt.yaml>
# Every wait is bounded; the cluster uses its own state file, so it never touches a developer's.
set -euo pipefail
cli="$1"; suite="$2"; manifest="$3"
work="$(mktemp -d /tmp/aftershock-interrupt-XXXXXX)"
export AFTERSHOCK_CLUSTER_STATE="$work/state"
suite_pid=""; watched_pid=""
cleanup() {
  if [[ -n "$suite_pid" ]] && kill -0 "$suite_pid" 2>/dev/null; then kill -KILL -- "-$suite_pid" 2>/dev/null || true; fi
  if [[ -f "$AFTERSHOCK_CLUSTER_STATE" ]]; then "$cli" down > /dev/null 2>&1 || true; fi
  if [[ -n "$watched_pid" ]] && kill -0 "$watched_pid" 2>/dev/null; then kill "$watched_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "interrupt_test: FAIL: $*" >&2; exit 1; }
state_value() { sed -n "s/^$1=//p" "$AFTERSHOCK_CLUSTER_STATE" | head -1; }
# Waits up to $1 half-seconds for the command in "${@:2}" to succeed.
wait_until() {
  local tries="$1"; shift
  for (( i = 0; i < tries; ++i )); do "$@" && return 0; sleep 0.5; done
  return 1
}
link_faults_in_force() { "$cli" status 2> /dev/null | grep -q 'link faults {'; }
blackhole_in_force() { "$cli" status 2> /dev/null | grep -q 'link faults {.*blackhole: true'; }
process_gone() { ! kill -0 "$1" 2> /dev/null; }
cluster_clean() { local s; s="$("$cli" status 2> /dev/null)" && grep -q '^faults in force: none (clean)' <<< "$s"; }
# One scenario of the interrupt set in the foreground: run_scenario TEST LOG.
run_scenario() {
  "$suite" --gtest_also_run_disabled_tests "--gtest_filter=HaSuite.$1" --aftershock_set=interrupt \
    "--aftershock_manifest=$manifest" "--aftershock_artifacts_dir=$work/artifacts-$1" > "$2" 2>&1
}

# A stand-in for the ctest process the fixture watches.
sleep 600 &
watched_pid=$!
"$cli" up --lease-minutes=10 "--watch-pid=$watched_pid" > "$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "up failed"; }
supervisor="$(state_value pid)"; data_dir="$(state_value data_dir)"; scratch="$(state_value work_dir)"
[[ -n "$supervisor" && -n "$data_dir" && -n "$scratch" ]] || fail "state file without pid/data_dir/work_dir"
echo "interrupt_test: cluster up (supervisor $supervisor)"

# 1. SIGINT to the scenario's process group (what Ctrl-C sends) while the partition is in force.
setsid "$suite" --gtest_also_run_disabled_tests --gtest_filter=HaSuite.DISABLED_DbPartition \
  --aftershock_set=interrupt "--aftershock_manifest=$manifest" "--aftershock_artifacts_dir=$work/artifacts" \
  > "$work/suite.log" 2>&1 &
suite_pid=$!
wait_until 120 blackhole_in_force || { tail -30 "$work/suite.log" >&2; fail "the partition never showed on the cluster"; }
echo "interrupt_test: partition in force; sending SIGINT to process group $suite_pid"
kill -INT -- "-$suite_pid"
wait_until 120 process_gone "$suite_pid" || fail "the suite was still running 60 s after SIGINT"
rc=0; wait "$suite_pid" || rc=$?
suite_pid=""
(( rc != 0 )) || fail "an interrupted scenario exited 0"
grep -q 'interrupt requested' "$work/suite.log" || fail "no interrupt notice in the suite's output"
grep -q 'interrupted: the run was stopped early' "$work/suite.log" || fail "the scenario did not fail as interrupted"
grep -q "##aftershock BEGIN load-timeline.csv" "$work/suite.log" || fail "no load timeline emitted after the interrupt"
if link_faults_in_force; then "$cli" status >&2; fail "a link fault is still applied after the interrupt"; fi
echo "interrupt_test: suite exited $rc, no fault left applied"

# 2. SIGKILL to the scenario's process group while the partition is in force: the supervisor
#    reverts it once the scenario's fault lease (5 s TTL) is not renewed.
setsid "$suite" --gtest_also_run_disabled_tests --gtest_filter=HaSuite.DISABLED_DbPartition \
  --aftershock_set=interrupt "--aftershock_manifest=$manifest" "--aftershock_artifacts_dir=$work/artifacts-kill" \
  > "$work/suite-kill.log" 2>&1 &
suite_pid=$!
wait_until 120 blackhole_in_force || { tail -30 "$work/suite-kill.log" >&2; fail "the partition never showed on the cluster"; }
echo "interrupt_test: partition in force; sending SIGKILL to process group $suite_pid"
kill -KILL -- "-$suite_pid"
killed_at="$(date +%s%N)"
wait "$suite_pid" 2> /dev/null || true
suite_pid=""
wait_until 20 cluster_clean || { "$cli" status >&2; fail "a fault is still on the cluster 10 s after the suite was SIGKILLed"; }
echo "interrupt_test: no fault left $(( ($(date +%s%N) - killed_at) / 1000000 )) ms after the SIGKILL"
status="$("$cli" status)"
grep -q "^last fault lease expiry .*'ha_suite interrupt/db-partition (pid [0-9]*)' not renewed within its TTL.*reverted database link faults on pg-a" <<< "$status" \
  || { echo "$status" >&2; fail "Status does not report the expiry and what it reverted"; }
grep -q "\[cluster\] fault lease: fault lease of 'ha_suite interrupt/db-partition (pid [0-9]*)' not renewed.*reverted database link faults" \
  "$AFTERSHOCK_CLUSTER_STATE.log" || fail "the supervisor's log does not say what it reverted and why"
# The killed scenario still has the cluster's logs: its fault lease named its artifacts folder, and
# the supervisor copied them there once the lease ran out (no TearDown ran).
evidence="$work/artifacts-kill/interrupt/db-partition/cluster"
has_evidence() { [[ -s "$evidence/supervisor.log" && -s "$evidence/status.txt" && -n "$(ls -A "$evidence/database" 2> /dev/null)" ]]; }
wait_until 20 has_evidence || { ls -lR "$work/artifacts-kill" >&2 || true; fail "the SIGKILLed scenario's artifacts folder has no cluster logs"; }
grep -q "fault lease: fault lease of 'ha_suite interrupt/db-partition" "$evidence/supervisor.log" \
  || fail "the copied supervisor log does not cover the killed scenario"
echo "interrupt_test: the SIGKILLed scenario's artifacts hold the cluster's logs ($(ls "$evidence" | tr '\n' ' '))"

# 3. The next scenario starts on the cluster the supervisor cleaned (a leftover fault would make it
#    refuse) and the cluster serves it: every gate green. One exception: a baseline red on
#    generator-limited alone (the load generator fell behind its own schedule, as on a machine too
#    loaded for it; the gate says the figures describe the generator) still shows what this step is
#    for when every other gate, service gates included, is green and nothing else failed (no chaos
#    error, no interruption). The gate itself stays as strict; the step only says it did not judge it.
baseline_dir="$work/artifacts-DISABLED_Baseline/interrupt/baseline"
# True when the baseline's only red is generator-limited: verdict.txt has PASS lines and one FAIL
# line, that gate's, and failures.txt one line, that gate's.
only_generator_limited() {
  local verdict="$baseline_dir/verdict.txt" failures="$baseline_dir/failures.txt"
  [[ -s "$verdict" && -s "$failures" ]] || return 1
  grep -q '^PASS ' "$verdict" || return 1
  [[ "$(grep -c '^FAIL ' "$verdict" || true)" == 1 ]] || return 1
  grep -q '^FAIL generator-limited: ' "$verdict" || return 1
  [[ "$(grep -c '' "$failures" || true)" == 1 ]] || return 1
  grep -q '^generator-limited: ' "$failures"
}
if run_scenario DISABLED_Baseline "$work/baseline.log"; then
  echo "interrupt_test: the next scenario (baseline) passed"
elif only_generator_limited; then
  echo "interrupt_test: the next scenario (baseline) ran with every gate green but generator-limited, not judged here:"
  sed 's/^/interrupt_test:   /' "$baseline_dir/verdict.txt"
else
  tail -40 "$work/baseline.log" >&2
  fail "the baseline after the SIGKILLed scenario failed"
fi

# 4. A defect left on purpose, held by the CLI's long lease: a scenario refuses to start, names it,
#    and leaves it alone; `release` hands it back to the supervisor, which reverts it.
"$cli" defects b --internal-rate=0.5 --hold=10m > "$work/defects.log" 2>&1 || { cat "$work/defects.log" >&2; fail "defects failed"; }
rc=0; run_scenario DISABLED_Baseline "$work/refused.log" || rc=$?
(( rc != 0 )) || fail "a scenario started on a cluster with a leftover defect"
grep -q "refusing to start scenario baseline: the cluster is not clean: defects on replica b {internal_rate: 0.5}; held by the fault lease of 'aftershock-cli'" \
  "$work/refused.log" || { tail -30 "$work/refused.log" >&2; fail "the refusal does not name the defect and its holder"; }
status="$("$cli" status)"
grep -q '^  defects on replica b {internal_rate: 0.5}' <<< "$status" || fail "the refused scenario touched the leftover defect"
"$cli" release > /dev/null || fail "release failed"
wait_until 20 cluster_clean || { "$cli" status >&2; fail "the defect is still there 10 s after release"; }
echo "interrupt_test: a scenario refused to start on a leftover defect; release reverted it"

# 5. The CLI's faults expire too: a --hold runs out by itself, and a SIGKILLed `partition` (which
#    holds a renewing lease while it waits) leaves nothing behind.
"$cli" defects c --unavailable-rate=0.1 --hold=2s > "$work/defects.log" 2>&1 || { cat "$work/defects.log" >&2; fail "defects failed"; }
wait_until 20 cluster_clean || { "$cli" status >&2; fail "a defect held for 2 s is still there 10 s later"; }
"$cli" partition --seconds=300 > "$work/partition.log" 2>&1 &
cli_pid=$!
wait_until 40 blackhole_in_force || { cat "$work/partition.log" >&2; fail "the CLI's partition never showed on the cluster"; }
kill -KILL "$cli_pid"; wait "$cli_pid" 2> /dev/null || true
wait_until 20 cluster_clean || { "$cli" status >&2; fail "a SIGKILLed CLI's partition is still there 10 s later"; }
echo "interrupt_test: the CLI's held defect and its SIGKILLed partition were reverted by the supervisor"

# 6. The watched process goes away: the supervisor stops everything it started.
kill "$watched_pid"; wait "$watched_pid" 2> /dev/null || true; watched_pid=""
wait_until 120 process_gone "$supervisor" || fail "supervisor $supervisor still running 60 s after its watched process went"
for dir in "$data_dir" "$scratch"; do
  [[ ! -e "$dir" ]] || fail "$dir is left behind"
done
[[ ! -e "$AFTERSHOCK_CLUSTER_STATE" ]] || fail "the state file is left behind"
# No process may still run out of the cluster's data directory (postmasters are started detached).
leftover="$(pgrep -a -f -- "$data_dir" || true)"
[[ -z "$leftover" ]] || fail "processes still running from $data_dir: $leftover"
echo "interrupt_test: PASS"
