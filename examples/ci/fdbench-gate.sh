#!/usr/bin/env bash
# fdbench-gate.sh: measure, save the run in a history kept between CI jobs, keep the HTML
# report, and fail the job when a result got significantly slower than the last saved run.
#   HISTORY    the history file the CI keeps between jobs (default: ./fdbench-history.db)
#   THRESHOLD  the slowdown in percent that fails the job (default: 10)
#   ARTIFACTS  where the report and the run's JSON go (default: ./fdbench-artifacts)
# Exit status: 0 (no significant slowdown, or no baseline yet), 3 (slower), else fdbench's.
set -euo pipefail
history=${HISTORY:-fdbench-history.db}
threshold=${THRESHOLD:-10}
artifacts=${ARTIFACTS:-fdbench-artifacts}
mkdir -p "$artifacts"

# What to measure: a short socket run and an open run, enough repetitions for a 95% interval.
fdbench socket --threads 1,2 --repeat 20 --quiet --save --history "$history" \
  --export-json "$artifacts/socket.json" --export-html "$artifacts/socket.html"

runs=$(fdbench history list --history "$history" | tail -n +2 | wc -l)
if [[ "$runs" -lt 2 ]]; then
  echo "fdbench-gate: the first run in $history: nothing to compare with yet"
  exit 0
fi
# The run just made (its file) against the last run saved before it.
fdbench compare --baseline last --fail-if-slower "$threshold" --history "$history" \
  "$artifacts/socket.json" | tee "$artifacts/compare.txt"
