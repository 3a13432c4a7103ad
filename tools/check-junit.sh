#!/usr/bin/env bash
# Checks what CI reads from a scenario set's run: the ctest JUnit file must carry the timelines in
# system-out (the passed-output limit is raised for that), and every scenario's gtest XML must carry
# the gate figures as properties. Fails naming what is missing.
#
#   tools/check-junit.sh example                       # build/junit-example.xml (the set's preset)
#   tools/check-junit.sh smoke build/junit-check.xml    # a JUnit file of a run that held the set
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:?usage: tools/check-junit.sh SET [JUNIT]}
junit=${2:-build/junit-${set_name}.xml}
status=0
[[ -f $junit ]] || { echo "check-junit: $junit is missing"; exit 1; }
for marker in "##aftershock BEGIN load-timeline.csv set=${set_name}" "##aftershock END load-timeline.csv rows=" \
              "##aftershock BEGIN chaos-timeline.csv set=${set_name}"; do
  grep -qF "$marker" "$junit" || { echo "check-junit: $junit lacks '$marker'"; status=1; }
done
shopt -s nullglob
xmls=(build/suites/*/gtest-xml/"${set_name}".*.xml)
((${#xmls[@]} > 0)) || { echo "check-junit: no gtest XML for set ${set_name}"; exit 1; }
for xml in "${xmls[@]}"; do
  for property in gate_p1-longest-outage longest_outage_seconds unavailable_seconds gate_p2-promise-stability \
                  gate_p3-reverse-lookup offered_rate dispatch_lag_p99_ms; do
    grep -q "<property name=\"${property}\"" "$xml" || { echo "check-junit: $xml lacks property ${property}"; status=1; }
  done
done
((status == 0)) && echo "check-junit: ${set_name}: timelines in $junit, gate figures in ${#xmls[@]} gtest XML file(s)"
exit $status
