#!/usr/bin/env bash
# Re-runs the living-lab demo's six rounds into RESULTS/demo-mock-rounds/
# (RESULTS defaults to results): round 1 in the campaign's results
# directory itself (as results collected before rounds existed), rounds
# 2–6 in rounds/2 … rounds/6. Each round runs campaign.yaml as it stood
# then: the simulated engines of rounds 1–3 are undone from this file's
# round-6 commands with sed. The rounds are dated a week apart
# (2026-10-05 … 2026-11-09), as a weekly job would have dated them: round
# 2–6 by their records, round 1 (no record) by its results' start.
#
#   PERFLAB=./perflab content/demo/mock-rounds/rounds.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
perflab=${PERFLAB:-perflab}
results=${RESULTS:-results}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$results/demo-mock-rounds"
for r in 1 2 3 4 5 6; do
  sed_args=()
  if [ "$r" -lt 4 ]; then # large-batch's decode step before the regression
    sed_args+=(-e 's/--decode-step 11.2ms --decode-step-per-seq 22.4us/--decode-step 10ms --decode-step-per-seq 20us/')
  fi
  if [ "$r" -lt 5 ]; then # small-batch's prefill before the improvement
    sed_args+=(-e 's/--prefill-tok-per-s 23000/--prefill-tok-per-s 20000/')
  fi
  if [ ${#sed_args[@]} -gt 0 ]; then
    sed "${sed_args[@]}" "$here/campaign.yaml" > "$tmp/campaign.yaml"
  else
    cp "$here/campaign.yaml" "$tmp/campaign.yaml"
  fi
  "$perflab" collect "$tmp/campaign.yaml" --results "$results" --round "$r"
  if [ "$r" -eq 1 ]; then
    # Round 1 has no record: it is dated by its results' start, so they
    # take the first week's date (the time of day kept).
    sed -i -E 's/"(start|end)": "[0-9]{4}-[0-9]{2}-[0-9]{2}T/"\1": "2026-10-05T/' "$results"/demo-mock-rounds/*.json
  else
    rec="$results/demo-mock-rounds/rounds/$r/round.json"
    day=$(date -u -d "2026-10-05 +$(( (r - 1) * 7 )) days" +%Y-%m-%d)
    sed -i -e "s/\"start\": \"[^\"]*\"/\"start\": \"${day}T02:00:00Z\"/" -e '/"git_commit"/d' "$rec"
  fi
done
