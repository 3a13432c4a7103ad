#!/usr/bin/env bash
# Appends the Markdown summary of a set's run (aftershock-report summary, docs/report.md) to the CI
# step summary ($GITHUB_STEP_SUMMARY; stdout when it is unset), naming the uploaded artifact.
#   tools/report/step-summary.sh SET [ARTIFACT_URL [ARTIFACT_NAME]]
# ARTIFACT_URL: where the upload is listed (the workflow passes its run's page); ARTIFACT_NAME: the
# upload's name (resilience-artifacts unless given: the banking and upstream workflows name theirs).
set -euo pipefail
cd "$(dirname "$0")/../.."
set_name=${1:?usage: tools/report/step-summary.sh SET [ARTIFACT_URL [ARTIFACT_NAME]]}
args=("build/artifacts/${set_name}" "--artifact-name=${3:-resilience-artifacts}")
[[ -z ${2:-} ]] || args+=("--artifact-url=$2")
out=${GITHUB_STEP_SUMMARY:-/dev/stdout}
build/tools/report/aftershock-report summary "${args[@]}" >>"$out"
