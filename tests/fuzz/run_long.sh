#!/usr/bin/env bash
# A long fuzzing run: chunks of CHUNK inputs from START on, each a fresh process (a crash
# loses only the rest of its chunk, and is saved under FINDINGS), one core, lowest priority.
#   tests/fuzz/run_long.sh BUILD_DIR [SEED] [START] [CHUNKS] [CHUNK]
# The per-chunk tables go to FINDINGS/summary.txt; tests/fuzz/RESULTS.md records the totals.
# FUZZ_FLAGS adds flags (FUZZ_FLAGS=--no-ptx: the front end and the pipeline only, ~10x faster;
# FUZZ_FLAGS="--ptxas ptxas --ptxas-every 10": every 10th compiled kernel assembled too).
set -u
build="${1:?build directory}"
seed="${2:-7}"
start="${3:-0}"
chunks="${4:-100}"
chunk="${5:-50000}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="${CORPUS:-$root/tests}"  # where golden/ and errors/ are (a copy keeps a long run's corpus fixed)
findings="${FINDINGS:-$build/fuzz-long}"
mkdir -p "$findings"
for ((i = 0; i < chunks; i++)); do
  first=$((start + i * chunk))
  nice -n 19 "$build/tests/tritium_fuzz" --seed "$seed" --start "$first" --iterations "$chunk" \
    --corpus "$corpus/golden" --corpus "$corpus/errors" --findings "$findings" --report-every 1000 ${FUZZ_FLAGS:-} \
    > "$findings/chunk-$first.txt" 2>&1
  echo "chunk $first exit $?" >> "$findings/summary.txt"
  tail -5 "$findings/chunk-$first.txt" >> "$findings/summary.txt"
done
