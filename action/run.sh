#!/usr/bin/env bash
# The action's run step: `payconf run` with the action's inputs, every
# report written into INPUT_REPORTS. payconf itself, seeing
# GITHUB_ACTIONS=true, writes an annotation on the feature file and line of
# each scenario that failed, and appends the job's step summary to
# GITHUB_STEP_SUMMARY. The verdict and the exit code go to GITHUB_OUTPUT;
# the step ends with payconf's exit code, so the job gates on it.
set -uo pipefail
reports=${INPUT_REPORTS:-payconf-reports}
mkdir -p "$reports"
args=(run
  --junit "$reports/junit.xml"
  --html "$reports/report.html"
  --results "$reports/results.json"
  --cucumber-json "$reports/cucumber.json")
[[ -n ${INPUT_TARGET:-} ]] && args+=(--target "$INPUT_TARGET")
[[ -n ${INPUT_TAGS:-} ]] && args+=(--tags "$INPUT_TAGS")
if [[ -n ${INPUT_ARGS:-} ]]; then
  read -r -a more <<<"$INPUT_ARGS"
  args+=("${more[@]}")
fi
payconf "${args[@]}"
code=$?
case $code in
  0) verdict=passed ;;
  1) verdict=failed ;;
  *) verdict=not-run ;;
esac
{
  echo "verdict=$verdict"
  echo "exit-code=$code"
} >>"${GITHUB_OUTPUT:-/dev/null}"
exit "$code"
