#!/usr/bin/env bash
# make gpu-check: the checks that need NVIDIA GPUs, ready for the day a GPU
# node is lent. It builds perflab, then on a machine with NVIDIA GPUs runs
#   1. perflab collect --gpu-info (inventory and one second of NVML samples);
#   2. a short mock campaign whose experiments name gpus: 1, so collect
#      samples GPU 0 with NVML while they run, and builds its page (checks:
#      power, memory used, utilization and clocks recorded in every result,
#      energy too, and drawn on the page: tokens per joule in the SLO table,
#      and the telemetry block the skeleton places under the optimized
#      experiment, its summary line and its chart's GPU 0 power, memory
#      used, utilization and SM/memory clock series);
#   3. BenchmarkClientEfficiency (collect/bench): perflab bench's client and
#      the floor reader at 1,024 and 4,096 streams, the client on three
#      quarters of the cores, the paced server on the rest
#      (GPU_CHECK_SERVER_CPUS sets how many);
# and writes a summary a person can read (collect/telemetry/gpucheck) to
# $GPU_CHECK_OUT/summary.txt and stdout.
#
# Exit status: 0 every check passed; 1 a check failed; 2 this machine has no
# NVIDIA GPU (nothing was checked, and the summary says so).
#
# GPU_CHECK_OUT (default .cache/gpu-check) receives everything recorded.
# GPU_CHECK_BENCHTIME (default 3x) is the benchmark's -test.benchtime.
# GPU_CHECK_BIN names a directory of binaries built elsewhere by
# `make gpu-check-bin` (perflab, gpucheck, bench.test): a GPU node without
# a Go toolchain runs the checks with them and builds nothing.
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
OUT=${GPU_CHECK_OUT:-.cache/gpu-check}
export CGO_CFLAGS=${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}
# Emptied first, but only a directory an earlier check made (or an empty one).
if [ -d "$OUT" ] && [ ! -e "$OUT/.gpu-check" ] && [ -n "$(ls -A "$OUT")" ]; then
  echo "gpu-check: $OUT is not empty and not a gpu-check directory; give GPU_CHECK_OUT another" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$OUT"
touch "$OUT/.gpu-check"
OUT=$(cd "$OUT" && pwd)
# go run would turn the summary's exit status into 1: build it, then run it.
BIN=${GPU_CHECK_BIN:-}
if [ -n "$BIN" ]; then
  BIN=$(cd "$BIN" && pwd) || exit 1
  for f in perflab gpucheck bench.test; do
    [ -x "$BIN/$f" ] || { echo "gpu-check: $BIN/$f missing (make gpu-check-bin makes it)" >&2; exit 1; }
  done
fi
# built TARGET PKG [test]: build PKG's binary (or test binary) as
# $OUT/TARGET, or copy it from GPU_CHECK_BIN.
built() {
  if [ -n "$BIN" ]; then
    cp "$BIN/$1" "$OUT/$1"
  elif [ "${3:-}" = test ]; then
    "$GO" test -c -o "$OUT/$1" "$2"
  else
    "$GO" build -o "$OUT/$1" "$2"
  fi
}
summary() {
  built gpucheck ./collect/telemetry/gpucheck || exit 1
  exec "$OUT/gpucheck" -dir "$OUT"
}

echo "== gpu-check: building perflab" >&2
built perflab ./cmd/perflab > "$OUT/build.log" 2>&1
echo $? > "$OUT/build.rc"

echo "== gpu-check: looking for NVIDIA GPUs" >&2
if command -v nvidia-smi > /dev/null 2>&1; then
  nvidia-smi -L > "$OUT/gpu.txt" 2>&1
  echo $? > "$OUT/gpu.rc"
else
  echo "nvidia-smi: not found on PATH" > "$OUT/gpu.txt"
  echo 127 > "$OUT/gpu.rc"
fi
if [ -x "$OUT/perflab" ]; then
  "$OUT/perflab" collect --gpu-info > "$OUT/gpu-info.json" 2> "$OUT/gpu-info.err"
  echo $? > "$OUT/gpu-info.rc"
fi
if [ "$(cat "$OUT/gpu.rc")" != 0 ] || ! grep -q '^GPU ' "$OUT/gpu.txt"; then
  summary # says NOT RUN and exits 2
fi
if [ "$(cat "$OUT/build.rc")" != 0 ]; then
  summary
fi

echo "== gpu-check: mock campaign with the NVML sampler" >&2
mkdir -p "$OUT/content/gpu-check/mock" "$OUT/results"
cat > "$OUT/content/gpu-check/mock/campaign.yaml" <<'YAML'
# make gpu-check's campaign: mock engines given gpus: 1, so that collect
# samples GPU 0 with NVML while they run (the mock computes nothing on it).
id: gpu-check-mock
title: "GPU check: the NVML sampler on a mock campaign"
objective: throughput
model: {id: perflab/mock-8b, name: Mock-8B}
hardware: {vendor: NVIDIA, gpu: GPU, count: 1}
engines: [{name: mock}]
bench: {backend: openai, endpoint: /v1/completions, tokenizer: server}
slo: {ttft_p99: 60000}
profiles:
  - id: short
    name: Short Prompt
    dataset: random
    input_len: 128
    output_len: 64
    num_prompts: 48
    seed: 42
    concurrency: [4, 16]
    args: [--ignore-eos]
steps:
  - id: engine
    title: Engine
    experiments:
      - {id: base, name: Mock vLLM preset, engine: mock, gpus: 1, args: [--preset, vllm]}
      - {id: opt, name: Mock TRT-LLM preset, engine: mock, gpus: 1, args: [--preset, trtllm]}
baseline: base
optimized: opt
YAML
printf -- '---\ntitle: "GPU check"\n---\n\nThe NVML sampler, recorded while mock engines ran.\n' > "$OUT/content/gpu-check/mock/index.md"
"$OUT/perflab" collect "$OUT/content/gpu-check/mock/campaign.yaml" --results "$OUT/results" --sample-interval 200ms > "$OUT/collect.log" 2>&1
echo $? > "$OUT/collect.rc"
"$OUT/perflab" build --content "$OUT/content" --results "$OUT/results" --out "$OUT/site" --no-cache > "$OUT/site.log" 2>&1
echo $? > "$OUT/site.rc"

echo "== gpu-check: client benchmark at 1,024 and 4,096 streams" >&2
ulimit -n 65536 2> /dev/null || ulimit -n "$(ulimit -Hn)" 2> /dev/null
built bench.test ./collect/bench test > "$OUT/bench.txt" 2>&1
cpus=$(nproc)
# The paced server gets the last cores (a quarter of them, at least one):
# on one core it falls seconds behind at 4,096 streams (seen on a 16-core
# H200 node) and its lateness, not the client, sets the TTFT excess.
srv=${GPU_CHECK_SERVER_CPUS:-$(( cpus / 4 > 0 ? cpus / 4 : 1 ))}
pin=()
if [ "$cpus" -gt "$srv" ] && command -v taskset > /dev/null 2>&1; then
  pin=(taskset -c "0-$((cpus - srv - 1))")
fi
(cd collect/bench && PERFLAB_EFF_STREAMS=1024,4096 PERFLAB_EFF_CLIENTS=h1,floor \
  "${pin[@]}" "$OUT/bench.test" -test.run '^$' -test.bench '^BenchmarkClientEfficiency$' \
  -test.benchtime "${GPU_CHECK_BENCHTIME:-3x}" -test.timeout 30m) >> "$OUT/bench.txt" 2>&1
echo $? > "$OUT/bench.rc"

summary
