#!/usr/bin/env bash
# tools/select-scenarios.sh: bad input is refused with a message naming it, and a selection of two
# scenarios of the pr set makes `ctest -L ^pr$ -R <regex>` list exactly those two scenario tests plus
# the cluster fixture's up/down (needs ha_suite and stages_suite built: their scenario tests are
# registered after the build).
#   select_scenarios_test.sh BUILD_DIR
set -euo pipefail
build=$1
cd "$(dirname "$0")/.."
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

refused() {  # refused SET LIST EXPECTED-MESSAGE
  local out rc=0
  out=$(bash tools/select-scenarios.sh "$1" "$2" 2>&1) || rc=$?
  if ((rc == 0)); then
    fail "select-scenarios.sh $1 '$2' exited 0 ($out)"
  elif [[ $out != *"$3"* ]]; then
    fail "select-scenarios.sh $1 '$2': '$out' does not say '$3'"
  else
    echo "ok: $1 '$2' refused: $out"
  fi
}
refused pr "" "names no scenario"
refused pr "baseline,,primary-kill" "has an empty item"
refused pr "baseline," "has an empty item"
refused pr "Primary_Kill" "'Primary_Kill' is not a scenario name"
refused pr "baseline|.*" "'baseline|.*' is not a scenario name"
refused pr "db-partition" "set pr has no scenario 'db-partition'"
refused nosuch "baseline" "set 'nosuch' has no manifest"

regex=$(bash tools/select-scenarios.sh pr " primary-kill, baseline ")
[[ $regex == '^(pr\.primary-kill|pr\.baseline)$' ]] || fail "regex for 'primary-kill, baseline' is '$regex'"

# What ctest would run (-N lists without running). -N still writes Testing/Temporary/LastTest.log in
# the directory it is given, which the ctest running this test is writing too: read the build dir
# through a scratch directory that only adds it.
proxy=$(mktemp -d)
trap 'rm -rf "$proxy"' EXIT
echo "subdirs([==[$(cd "$build" && pwd)]==])" >"$proxy/CTestTestfile.cmake"
listed=$(ctest --test-dir "$proxy" -N -L '^pr$' -R "$regex" | sed -n 's/^ *Test *#[0-9]*: //p' | sort)
expected=$(printf '%s\n' aftershock_cluster.down aftershock_cluster.up pr.baseline pr.primary-kill | sort)
if [[ $listed != "$expected" ]]; then
  fail "ctest -N -L ^pr\$ -R '$regex' lists:"$'\n'"$listed"$'\n'"expected:"$'\n'"$expected"
else
  echo "ok: ctest -L ^pr\$ -R '$regex' selects exactly:" $listed
fi
# The whole set, for contrast: the selection really narrowed it.
all=$(ctest --test-dir "$proxy" -N -L '^pr$' | sed -n 's/^ *Test *#[0-9]*: //p' | wc -l)
((all > 4)) || fail "the whole pr set lists only $all tests; is ha_suite built?"

if ((failures > 0)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "select-scenarios: all checks passed"
