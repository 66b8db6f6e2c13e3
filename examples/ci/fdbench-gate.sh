#!/usr/bin/env bash
# fdbench-gate.sh: measure, save the run in a history kept between CI jobs, keep the HTML
# report, and fail the job when a result got significantly slower than the last saved run.
#   HISTORY    the history file the CI keeps between jobs (default: ./fdbench-history.db)
#   THRESHOLD  the slowdown in percent that fails the job (default: 10)
#   ARTIFACTS  where the report and the run's JSON go (default: ./fdbench-artifacts)
#   FDBENCH    the fdbench to run (default: fdbench on the PATH)
# Exit status: 0 (no significant slowdown, or no baseline yet), 3 (slower), else fdbench's.
#
# The first job (an empty cache: no history yet) saves its run, which becomes the baseline:
#   fdbench: saved as run 1 in fdbench-history.db (4 results)
#   gate: no baseline in fdbench-history.db yet, nothing to compare with: run 1 is the
#   baseline the next run is compared with: pass
# Every later job compares its run with the one saved before it, and ends on a verdict:
#   gate: 0 of 4 results slower by more than 10%: pass
# or, after the rows that are slower (significantly, p < 0.05, by more than THRESHOLD):
#   gate: 1 of 4 results slower by more than 10%: fail          (exit 3)
set -euo pipefail
history=${HISTORY:-fdbench-history.db}
threshold=${THRESHOLD:-10}
artifacts=${ARTIFACTS:-fdbench-artifacts}
fdbench=${FDBENCH:-fdbench}
mkdir -p "$artifacts"

# What to measure: a short socket run, enough repetitions for a 95% interval.
"$fdbench" socket --threads 1,2 --repeat 20 --quiet --save --history "$history" \
  --export-json "$artifacts/socket.json" --export-html "$artifacts/socket.html"

# This run against the last one saved before it; the first job has none and passes.
"$fdbench" compare --baseline last --fail-if-slower "$threshold" --history "$history" |
  tee "$artifacts/compare.txt"
exit "${PIPESTATUS[0]}"
