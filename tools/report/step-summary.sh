#!/usr/bin/env bash
# Appends the Markdown summary of a set's run (aftershock-report summary, docs/report.md) to the CI
# step summary ($GITHUB_STEP_SUMMARY; stdout when it is unset), naming the uploaded artifact.
#   tools/report/step-summary.sh SET [ARTIFACT_URL]
# ARTIFACT_URL: where the upload is listed (the workflow passes its run's page).
set -euo pipefail
cd "$(dirname "$0")/../.."
set_name=${1:?usage: tools/report/step-summary.sh SET [ARTIFACT_URL]}
args=("build/artifacts/${set_name}" --artifact-name=resilience-artifacts)
[[ -z ${2:-} ]] || args+=("--artifact-url=$2")
out=${GITHUB_STEP_SUMMARY:-/dev/stdout}
build/tools/report/aftershock-report summary "${args[@]}" >>"$out"
