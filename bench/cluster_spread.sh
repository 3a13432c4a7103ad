#!/usr/bin/env bash
# The embedded cluster's benchmark: runs a scenario set N times in a row and prints, per run, the
# bring-up to steady state and each scenario's longest outage and failure-equivalent unavailable
# seconds, then min / max per figure: the spread. Figures, not asserts: it fails only when a run
# could not produce them.
#
#   bench/cluster_spread.sh                          # the pr set's HA scenarios, 3 runs
#   bench/cluster_spread.sh --runs=2 --set=smoke
#   SPREAD_RUNS=3 SPREAD_SET=pr SPREAD_TESTS='^pr\.(baseline|replica-kill|primary-kill)$' bench/cluster_spread.sh
#
# Flags (each also read from the environment named in brackets; the flag wins):
#   --runs=N      runs in a row, 1..20 [SPREAD_RUNS, default 3]
#   --set=NAME    a ctest preset of a cluster set: smoke, pr, weekly, verdict [SPREAD_SET, default pr]
#   --tests=RE    ctest -R filter; the cluster fixture is pulled in by ctest itself
#                 [SPREAD_TESTS, default: the set's HA scenarios only, '^SET\.' minus alert-chain]
#   --out=DIR     keeps each run's log and verdicts [SPREAD_OUT, default /tmp/aftershock-spread-<pid>]
# Needs the build (tools/build.sh) and no other cluster run at the same time (one state file).
set -euo pipefail

runs="${SPREAD_RUNS:-3}"
set_name="${SPREAD_SET:-pr}"
tests="${SPREAD_TESTS:-}"
out="${SPREAD_OUT:-/tmp/aftershock-spread-$$}"
for arg in "$@"; do
  case "$arg" in
    --runs=*) runs="${arg#--runs=}" ;;
    --set=*) set_name="${arg#--set=}" ;;
    --tests=*) tests="${arg#--tests=}" ;;
    --out=*) out="${arg#--out=}" ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cluster_spread: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$runs" =~ ^[0-9]+$ ]] || (( runs < 1 || runs > 20 )); then
  echo "cluster_spread: --runs must be a whole number in 1..20, got '$runs'" >&2; exit 2
fi
case "$set_name" in
  smoke|pr|weekly|verdict) ;;
  *) echo "cluster_spread: --set must be smoke, pr, weekly or verdict, got '$set_name'" >&2; exit 2 ;;
esac
repo="$(cd "$(dirname "$0")/.." && pwd)"
artifacts="$repo/build/artifacts/$set_name"
if [[ ! -x "$repo/build/suites/ha/ha_suite" ]]; then
  echo "cluster_spread: $repo/build/suites/ha/ha_suite is missing: build first (tools/build.sh)" >&2; exit 2
fi
if [[ -z "$tests" ]]; then
  tests="^${set_name}\\.(baseline|replica-kill|primary-kill|db-partition|rolling-restart|drain|ack-before-commit|async-lagging-standby|stalled-replicas)\$"
fi
mkdir -p "$out"
cd "$repo"

# One figure from a verdict file: the number after "<gate>: ".
figure() {  # file gate
  sed -n "s/^[A-Z]* $2: \([0-9.]*\) .*/\1/p" "$1" | head -1
}

table="$out/figures.tsv"
printf 'run\tscenario\tfigure\tvalue\n' > "$table"
for (( run = 1; run <= runs; ++run )); do
  log="$out/run-$run.log"
  echo "cluster_spread: run $run of $runs: ctest --preset $set_name -R '$tests' (log $log)" >&2
  started=$(date +%s)
  marker="$out/run-$run.start"
  touch "$marker"
  status=0
  ctest --preset "$set_name" -R "$tests" > "$log" 2>&1 || status=$?
  echo "cluster_spread: run $run finished in $(( $(date +%s) - started )) s, ctest exit $status" >&2
  bringup=$(sed -n 's/.*aftershock_cluster\.up \.*[ ]*Passed[ ]*\([0-9.]*\) sec.*/\1/p' "$log" | head -1)
  if [[ -z "$bringup" ]]; then
    echo "cluster_spread: run $run: no passed bring-up in $log:" >&2; tail -20 "$log" >&2; exit 1
  fi
  printf '%s\tcluster\tbring-up s\t%s\n' "$run" "$bringup" >> "$table"
  found=0
  for verdict in "$artifacts"/*/verdict.txt; do
    [[ -f "$verdict" ]] || continue
    [[ "$verdict" -nt "$marker" ]] || continue  # written by this run
    scenario="$(basename "$(dirname "$verdict")")"
    mkdir -p "$out/run-$run/$scenario"
    cp "$verdict" "$out/run-$run/$scenario/"
    printf '%s\t%s\tlongest outage s\t%s\n' "$run" "$scenario" "$(figure "$verdict" p1-longest-outage)" >> "$table"
    printf '%s\t%s\tunavailable s\t%s\n' "$run" "$scenario" "$(figure "$verdict" p1-unavailable-seconds)" >> "$table"
    found=$((found + 1))
  done
  if (( found == 0 )); then
    echo "cluster_spread: run $run produced no verdict under $artifacts" >&2; tail -20 "$log" >&2; exit 1
  fi
  grep -E 'tests passed|tests failed' "$log" | tail -1 | sed "s/^/cluster_spread: run $run: /" >&2
done

# Rows: scenario / figure; columns: each run, then min and max.
awk -F'\t' -v runs="$runs" '
  NR == 1 { next }
  { key = $2 " | " $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key } value[key, $1] = $4 }
  END {
    printf "%-40s", "scenario | figure"
    for (r = 1; r <= runs; ++r) printf "%10s", "run " r
    printf "%10s%10s\n", "min", "max"
    for (i = 1; i <= n; ++i) {
      key = order[i]; lo = ""; hi = ""
      printf "%-40s", key
      for (r = 1; r <= runs; ++r) {
        v = value[key, r]; printf "%10s", (v == "" ? "-" : v)
        if (v != "") { if (lo == "" || v + 0 < lo + 0) lo = v; if (hi == "" || v + 0 > hi + 0) hi = v }
      }
      printf "%10s%10s\n", (lo == "" ? "-" : lo), (hi == "" ? "-" : hi)
    }
  }' "$table"
echo "cluster_spread: logs, verdicts and figures.tsv in $out" >&2
