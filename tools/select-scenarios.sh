#!/usr/bin/env bash
# Prints the `ctest -R` regex that selects exactly the named scenarios of a set: their CTest tests are
# named <set>.<scenario> (framework/gtest/manifest_ctest_writer.cc); the cluster fixture tests come along through
# FIXTURES_REQUIRED. Every name must be a scenario of manifests/sets/<set>.yaml.
#
#   regex=$(bash tools/select-scenarios.sh pr "baseline, primary-kill")   # ^(pr\.baseline|pr\.primary-kill)$
#   ctest --test-dir build -L '^pr$' -R "$regex"
#
# Exits 2 with a message naming the bad input (an empty list or item, a character outside [a-z0-9.-],
# a name the manifest does not have).
set -euo pipefail

usage="usage: select-scenarios.sh SET 'name[,name...]'"
if (($# != 2)); then
  echo "select-scenarios: $usage" >&2
  exit 2
fi
set_name=$1
list=$2
if [[ ! $set_name =~ ^[a-z0-9][a-z0-9-]*$ ]]; then
  echo "select-scenarios: set '$set_name' is not a set name (only a-z, 0-9 and -)" >&2
  exit 2
fi
manifest="$(dirname "$0")/../manifests/sets/${set_name}.yaml"
if [[ ! -f $manifest ]]; then
  echo "select-scenarios: set '$set_name' has no manifest (manifests/sets/${set_name}.yaml)" >&2
  exit 2
fi

# The scenario names of the manifest: the `- name:` items of its top-level `scenarios:` list.
known=$(awk '
  /^[^ #]/ { in_scenarios = ($0 ~ /^scenarios:/) }
  in_scenarios && match($0, /^  - (\{ *)?name: *["'\'']?[a-z0-9.-]+/) {
    s = substr($0, RSTART, RLENGTH); sub(/^.*name: *["'\'']?/, "", s); print s
  }' "$manifest")
if [[ -z $known ]]; then
  echo "select-scenarios: found no scenario names in $manifest" >&2
  exit 2
fi

if [[ -z ${list//[[:space:],]/} ]]; then
  echo "select-scenarios: scenarios '$list' names no scenario" >&2
  exit 2
fi
alternatives=()
IFS=',' read -r -a items <<<"$list,"
for item in "${items[@]}"; do
  name=$(echo "$item" | tr -d '[:space:]')
  if [[ -z $name ]]; then
    echo "select-scenarios: scenarios '$list' has an empty item" >&2
    exit 2
  fi
  if [[ ! $name =~ ^[a-z0-9.-]+$ ]]; then
    echo "select-scenarios: '$name' is not a scenario name (only a-z, 0-9, . and -)" >&2
    exit 2
  fi
  if ! grep -qxF -- "$name" <<<"$known"; then
    echo "select-scenarios: set $set_name has no scenario '$name' (it has: $(echo $known | tr ' ' ','))" >&2
    exit 2
  fi
  alternatives+=("${set_name}\\.${name//./\\.}")
done
(IFS='|'; echo "^(${alternatives[*]})\$")
