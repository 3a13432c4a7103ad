#!/usr/bin/env bash
# Builds issue-report.md for a red scheduled or dispatched run: for every scenario that wrote
# failures, its p99 latency and success ratio over the whole run (stage-report.json's "total" row)
# and its failures.txt reasons; then the last 200 lines of the run log.
#   tools/issue-report.sh SET [TITLE] > build/issue-report.md
#   TITLE defaults to "HA chaos run failed"; the heading is "# TITLE: set SET".
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:?usage: tools/issue-report.sh SET [TITLE]}
title=${2:-HA chaos run failed}
echo "# ${title}: set ${set_name}"
echo
shopt -s nullglob
any=0
for f in build/artifacts/"${set_name}"/*/failures.txt; do
  [[ -s $f ]] || continue
  any=1
  dir=$(dirname "$f")
  scenario=$(basename "$dir")
  echo "## ${scenario}"
  echo
  if [[ -f $dir/stage-report.json ]]; then
    python3 - "$dir/stage-report.json" <<'PY' || echo "(stage-report.json could not be read)"
import json, sys
rows = json.load(open(sys.argv[1]))
total = next((r for r in rows if r.get("stage") == "total"), None)
if total is None:
    print("(no total row in stage-report.json)")
else:
    print("p99 %.1f ms, success %.2f %% (%d of %d requests ok)" % (
        total["p99_ms"], total["success_ratio"] * 100, total["ok"], total["requests"]))
PY
    echo
  fi
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
