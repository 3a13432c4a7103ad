#!/usr/bin/env bash
# Builds issue-report.md for a red scheduled or dispatched resilience run: the failures.txt reasons
# of every scenario, then the last 200 lines of the run log.
#   tools/issue-report.sh SET > build/issue-report.md
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:?usage: tools/issue-report.sh SET}
echo "# HA chaos run failed: set ${set_name}"
echo
shopt -s nullglob
any=0
for f in build/artifacts/"${set_name}"/*/failures.txt; do
  [[ -s $f ]] || continue
  any=1
  scenario=$(basename "$(dirname "$f")")
  echo "## ${scenario}"
  echo
  sed 's/^/- /' "$f"
  echo
done
((any)) || { echo "No scenario wrote failures (the run may have failed during set-up)."; echo; }
if [[ -f build/run.log ]]; then
  echo "## Last 200 lines of the run log"
  echo
  echo '```'
  tail -n 200 build/run.log
  echo '```'
fi
