#!/usr/bin/env bash
# Run one campaign on several GPU nodes with a Slurm job array.
#
# Each array task is one shard: `perflab collect --shard I/N` takes the runs
# whose rendezvous hash picks shard I (whole experiments by default, so an
# engine is launched once per shard) and writes one JSON file per run into
# the shared results directory. Shards never write the same file, so results
# merge by being in the same directory; resubmitting the array (or a single
# task: sbatch --array=2 slurm-array.sh) skips the runs already done.
#
# Submit from the repository root on a shared file system:
#   sbatch collect/examples/slurm-array.sh
# Keep --array=0-(N-1) and SHARDS=N equal.
#
#SBATCH --job-name=perflab-qwen3-32b-h100
#SBATCH --array=0-3
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --gres=gpu:1
# A whole node per task: tasks sharing a node would share its network, and
# engines listen on fixed ports (vllm serve: 8000), so the second would find
# the port taken (perflab then stops rather than measure the wrong server);
# and a neighbour's load skews the numbers.
#SBATCH --exclusive
#SBATCH --cpus-per-task=16
#SBATCH --time=12:00:00
#SBATCH --output=perflab-%A_%a.out
#SBATCH --signal=B:INT@300
# (--signal: Slurm sends SIGINT 5 minutes before the time limit; perflab then
# stops the engine, keeps what finished and marks the run in flight as
# interrupted, so the next submission resumes it.)
set -euo pipefail

SHARDS=4
CAMPAIGN=${CAMPAIGN:-content/qwen3-32b/h100/campaign.yaml}
RESULTS=${RESULTS:-results}
PERFLAB=${PERFLAB:-perflab}
# ROUND: the round every task of the array joins (slurm-scrontab passes
# weekly-<date>); empty: the campaign's latest round, resumed, or under a campaign's
# rounds: daily|weekly|monthly the array's own round, slurm-$SLURM_ARRAY_JOB_ID.
# A resubmitted task is another job: to resume such a round, pass it
# (sbatch --array=2 --export=ALL,ROUND=slurm-81234 slurm-array.sh), as the
# interrupted run's message says.
ROUND=${ROUND:-}
round_args=()
if [ -n "$ROUND" ]; then
  round_args=(--round "$ROUND")
fi

# The datasets the campaign's profiles read must be in the submission
# directory (or beside the campaign): ShareGPT_V3_unfiltered_cleaned_split.json
# for this one (perflab checks before it launches an engine and prints the
# wget command when it is missing).
# Engines (vllm, python3 -m sglang…, trtllm-serve) must be on PATH, e.g.
# from a virtual environment or a container (srun --container-image=…).
# HF_TOKEN, if set, is passed to the engines and redacted in everything written.

# Run perflab in the background and wait, so that bash forwards the
# --signal SIGINT to it instead of dying first.
# (${a[@]+"${a[@]}"}: an empty array under set -u, also in bash < 4.4 as on
# RHEL 7, where "${round_args[@]}" alone is an unbound variable.)
"$PERFLAB" collect "$CAMPAIGN" --results "$RESULTS" ${round_args[@]+"${round_args[@]}"} --shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}" &
pid=$!
trap 'kill -INT "$pid" 2>/dev/null' INT TERM
status=0
wait "$pid" || status=$?
# A signal interrupts wait: wait again while perflab stops the engine.
while kill -0 "$pid" 2>/dev/null; do
  wait "$pid" || status=$?
done
exit "$status"
