#!/usr/bin/env bash
# Measures how often `perflab diff --fail-on regression` fails on two
# rounds of an unchanged configuration, on the mock: ROUNDS rounds
# (default 16) of this demo's campaign as it stood in rounds 1–3, with
# 5 repeats at concurrency 16 (to keep it short), then every pair of
# rounds diffed. Prints the share of pairs that fail the gate; the docs'
# figure comes from here.
#
#   PERFLAB=./perflab ROUNDS=16 content/demo/mock-rounds/gate-false-alarms.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
perflab=${PERFLAB:-perflab}
rounds=${ROUNDS:-16}
tmp=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then # KEEP=1 keeps the rounds (the directory is printed)
  trap 'rm -rf "$tmp"' EXIT
else
  echo "rounds in $tmp/results"
fi
sed -e 's/--decode-step 11.2ms --decode-step-per-seq 22.4us/--decode-step 10ms --decode-step-per-seq 20us/' \
    -e 's/--prefill-tok-per-s 23000/--prefill-tok-per-s 20000/' \
    -e 's/concurrency: \[4, 16\]/concurrency: [16]/' -e 's/repeats: 6/repeats: 5/' \
    "$here/campaign.yaml" > "$tmp/campaign.yaml"
for r in $(seq 1 "$rounds"); do
  "$perflab" collect "$tmp/campaign.yaml" --results "$tmp/results" --round "r$r" 2>/dev/null
done
pairs=0 fails=0
for i in $(seq 1 "$rounds"); do
  for j in $(seq $((i + 1)) "$rounds"); do
    pairs=$((pairs + 1))
    # 1: the gate failed; anything else but 0 is a broken measurement.
    rc=0
    "$perflab" diff "$tmp/results/demo-mock-rounds@r$i" "$tmp/results/demo-mock-rounds@r$j" --fail-on regression >/dev/null 2>"$tmp/err" || rc=$?
    case $rc in
      0) ;;
      1) fails=$((fails + 1)) ;;
      *) cat "$tmp/err" >&2; echo "diff r$i r$j: exit status $rc" >&2; exit "$rc" ;;
    esac
  done
done
echo "gate failed on $fails of $pairs pairs of unchanged rounds ($rounds rounds)"
