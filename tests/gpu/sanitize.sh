#!/usr/bin/env bash
# compute-sanitizer over a representative sample of the GPU tests (issue 11): reductions,
# scans, element moves, histogram, softmax (shared memory and barriers) and atomics, once
# per tool. Called by run_on_device.sh with SANITIZE="memcheck racecheck ..." (the package
# already on PYTHONPATH); writes $OUT/sanitizer-TOOL.txt (summary), sanitizer-TOOL-PID.log
# (the tool's reports) and sanitizer-TOOL-pytest.log.
#   SANITIZE_TESTS   test files (default: reduce_core, atomics, kernels)
#   SANITIZE_SAMPLE  every N-th test of each file (default 5; 1 runs them all)
#   SANITIZE_TIMEOUT seconds per tool (default 240); a timed-out run still summarizes
#   SANITIZE_K       pytest's -k (e.g. "not triton": tritium's cases of the differential files)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/tritium-out}"
mkdir -p "$OUT"
tools="${SANITIZE:-memcheck racecheck}"
tests="${SANITIZE_TESTS:-tests/gpu/test_gpu_reduce_core.py tests/gpu/test_gpu_atomics.py tests/gpu/test_gpu_kernels.py}"
limit="${SANITIZE_TIMEOUT:-240}"

sanitizer="$(command -v compute-sanitizer || true)"
if [ -z "$sanitizer" ]; then
  for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda*/bin/compute-sanitizer \
                   /usr/local/cuda*/compute-sanitizer/compute-sanitizer /opt/nvidia/*/compute-sanitizer; do
    if [ -x "$candidate" ]; then sanitizer="$candidate"; break; fi
  done
fi
if [ -z "$sanitizer" ]; then
  echo "sanitizer: NOT RUN: compute-sanitizer is not on PATH nor in /usr/local/cuda*/bin," \
       "/usr/local/cuda*/compute-sanitizer or /opt/nvidia" | tee "$OUT/sanitizer.txt"
  exit 0
fi
echo "sanitizer: $sanitizer ($("$sanitizer" --version 2>&1 | grep -i version | head -1))" | tee "$OUT/sanitizer.txt"

# Every tensor its own allocation: torch's caching allocator would hide an access past the
# end of a tensor inside its pool. One cache directory for all tools: compile once.
export PYTORCH_NO_CUDA_MEMORY_CACHING=1 TRITIUM_GPU_SAMPLE="${SANITIZE_SAMPLE:-5}"
export TRITIUM_CACHE_DIR="${TRITIUM_CACHE_DIR:-$(mktemp -d /tmp/tritium-sanitize-cache-XXXX)}"
for tool in $tools; do
  extra=()
  [ "$tool" = "racecheck" ] && extra=(--racecheck-report all)
  start=$(date +%s)
  # SIGINT first: the tool then still writes its summary for what ran.
  timeout -s INT -k 30 "$limit" "$sanitizer" --tool "$tool" "${extra[@]}" --target-processes all \
    --print-limit 100 --log-file "$OUT/sanitizer-$tool-%p.log" \
    python3 -m pytest -q -rs -p no:cacheprovider ${SANITIZE_K:+-k "$SANITIZE_K"} $tests > "$OUT/sanitizer-$tool-pytest.log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - start ))
  {
    echo "== $tool: exit $status in ${seconds} s$([ $status -eq 124 ] || [ $status -eq 137 ] && echo ' (TIMED OUT: partial)')" \
         "(TRITIUM_GPU_SAMPLE=$TRITIUM_GPU_SAMPLE over $tests)"
    grep -E "passed|failed|error|skipped|no tests ran" "$OUT/sanitizer-$tool-pytest.log" | tail -2
    # One summary line per sanitized process; any nonzero count is a finding to read in the logs.
    cat "$OUT"/sanitizer-"$tool"-*.log 2>/dev/null | grep -E "(ERROR|RACECHECK|SYNCCHECK) SUMMARY" \
      | sed 's/^=* *//' | sort | uniq -c
    cat "$OUT"/sanitizer-"$tool"-*.log 2>/dev/null | grep -E "^========= (Invalid|Race|Barrier|Uninitialized|Error|Program hit)" \
      | sed 's/ at 0x[0-9a-f]*//; s/ by thread .*//' | sort | uniq -c | sort -rn | head -10
  } | tee -a "$OUT/sanitizer.txt"
done
