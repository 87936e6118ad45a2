#!/usr/bin/env bash
# Re-creates the bundled seed reports' results from their sources:
#   results/<campaign id>/src/seed.md   the GPUStack page (shared/seeds/*), verbatim,
#                                       plus "# perflab: experiment=… profile=…" lines
#                                       naming the run of each raw output
#   content/<model>/<gpu>/campaign.yaml the campaign the results belong to
# Each campaign's *.json results are replaced by a fresh import, so the
# committed results are exactly what `perflab import` makes of the sources.
# Run from anywhere: `make seeds` or `bash .ci/import-seeds.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/perflab
$GO build -o "$bin" ./cmd/perflab
for bundle in qwen3-32b/h100 qwen3-235b-a22b/h100 qwen3.5-35b-a3b/h200; do
  campaign=content/$bundle/campaign.yaml
  id=$(sed -n 's/^id: *//p' "$campaign")
  # Import beside, then replace: a failed import leaves the results as they were.
  "$bin" import --campaign-file "$campaign" --into "$tmp/$id" results/"$id"/src/seed.md
  rm -f results/"$id"/*.json
  mv "$tmp/$id"/*.json results/"$id"/
done
