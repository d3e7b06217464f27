#!/usr/bin/env bash
# One call on the GPU machine (docs: ../shared/docs/GPU.md): builds the thin pieces there
# (the pybind11 module for its Python 3.12, the CLI, the C++ API test, the C++ benchmark)
# against a stripped libtritium.so built here, then runs the GPU tests, the C++ API test,
# the interpreter suite and the benchmarks, logging under $OUT and printing a summary last.
#
# Here:  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
#          "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" && ninja -C build-gpu tritium
#        mkdir -p build-gpu/dist && cp build-gpu/src/runtime/libtritium.so build-gpu/dist/ &&
#        strip --strip-unneeded build-gpu/dist/libtritium.so
# There: bash tests/gpu/run_on_device.sh   (carrying build-gpu/dist)
#   SKIP_BENCH=1 skips the benchmarks; QUICK_BENCH=1 runs them small; GPU_TESTS="files..."
#   (paths, or bare names such as test_gpu_dot) picks the GPU test files (default: every tests/gpu/test_*.py, which no longer fits the 420 s
#   pytest limit in one process: run it in parts, or GPU_JOBS=5 to run the files in 5 pytest
#   processes at once; GPU_JOB_TIMEOUT=S changes each process's limit, 420 s; at 4 jobs the
#   one with test_gpu_dot reached it in session 27), GPU_TESTS_K="expr" pytest's -k; SKIP_INTERP=1 skips the
#   interpreter suite; SKIP_GPU_TESTS=1 skips the GPU tests; BENCH_REDUCE=1 runs
#   benchmarks/bench_reduce.py (reductions and scans against Triton; QUICK_BENCH=1: small;
#   REDUCE_ARGS: its arguments, REDUCE_LIMIT: its time limit in seconds, default 480);
#   BENCH_TRANSPOSE=1 runs benchmarks/bench_transpose.py (4096^2 transposes and column-major
#   reads, fp32/fp16, against Triton; ~1 min);
#   BENCH_PROJECTS=1 runs benchmarks/bench_projects.py (real kernels of popular projects at their
#   users' sizes, under both JITs; carry build-gpu/realk/src.tar.xz and build-gpu/realk/deps too;
#   PROJECTS_ARGS: its arguments, e.g. '--only cce,liger --kernels'; PROJECTS_LIMIT seconds, 560).
#   BENCH_TUTORIAL_ATTENTION=1 runs benchmarks/bench_tutorial_attention.py (Triton's attention tutorial
#   with host tensor descriptors, unmodified, under both JITs; ~3 min, QUICK_BENCH=1 ~1).
#   BENCH_TUTORIAL_MATMUL=1 runs benchmarks/bench_tutorial_matmul.py (tutorial 09's three fp16
#   persistent matmuls, unmodified, under both JITs, with cuBLAS; ~4 min, QUICK_BENCH=1 ~1.5).
#   BENCH_MATMUL=1 runs benchmarks/bench_matmul.py (tl.dot: a correctness sweep, then matmul
#   TFLOP/s against Triton and torch, fp16/bf16 512-8192 and fp8 e4m3 4096/8192; ~6 min,
#   QUICK_BENCH=1 ~2; MATMUL_ARGS=--skip-check skips the sweep; the *_ARGS are split on spaces
#   without quote removal: `MATMUL_ARGS='--blocks 128,128,64,8;64,128,64,4'`, no inner quotes).
#   BENCH_FP8_IMPRECISE=1 runs benchmarks/bench_fp8_imprecise.py (fp8 matmul with tl.dot's
#   max_num_imprecise_acc, both JITs, ~1 min; QUICK_BENCH=1: one block, two values).
#   BENCH_DEQUANT=1 runs benchmarks/bench_dequant.py (a weight-only int8 matmul, both JITs,
#   ~2 min; QUICK_BENCH=1: 4096 only). BENCH_ATTENTION=1 runs
#   benchmarks/bench_attention.py (flash-attention forward against Triton and torch SDPA, a
#   check first; ~5 min, QUICK_BENCH=1 ~1.5; ATTENTION_ARGS=--skip-check; ATTENTION_ARGS=
#   '--experiments default;nofence --rounds 2' times settings against each other, each in its own
#   process, as REDUCE_ARGS' --experiments does: benchmarks/experiments.py). BENCH_COMPILE=1
#   runs benchmarks/bench_compile.py (cold first-call compile time of the matmul and
#   attention kernels, fresh cache folders, a new process each; ~1.5 min, QUICK_BENCH=1 ~0.5).
#   Each benchmark prints "skipped, no GPU: ..." and exits 0 on a machine without one.
#   DIFFERENTIAL=N also runs N generated kernels through tests/fuzz/differential.py
#   (interpreter, GPU, Triton; DIFFERENTIAL_FIRST=S starts at seed S, DIFFERENTIAL_SECONDS
#   caps its time, default 450; DIFFERENTIAL_WORKERS processes, default CPUs - 1 up to 15;
#   DIFFERENTIAL_TRITON_EVERY=K runs Triton on the seeds divisible by K only, default 1: all).
#   It leaves $OUT/differential/{summary.md,findings.txt,kernels.txt}; the summary's "every
#   seed below S done" is the next command's DIFFERENTIAL_FIRST. SANITIZE="memcheck racecheck"
#   runs tests/gpu/sanitize.sh (compute-sanitizer over a sample of the GPU tests; see there).
#   PROFILE_ATTENTION=1 runs Nsight Compute on one launch of tritium's and Triton's attention
#   kernels (benchmarks/profile_attention.py; CSVs under $OUT); PROFILE_MATMUL=1 the same for
#   the tutorial matmul (benchmarks/profile_matmul.py, fp16 4096^3 and 8192^3);
#   PROFILE_PROJECTS="ROW:KERNEL ..." the same for a kernel of a bench_projects.py row
#   (benchmarks/profile_projects.py; BENCH_PROJECTS' carried sources).
#   One command each (10 minutes a command):
#     SKIP_GPU_TESTS=1 SKIP_INTERP=1 SKIP_BENCH=1 SANITIZE="memcheck racecheck" bash tests/gpu/run_on_device.sh
#     SKIP_GPU_TESTS=1 SKIP_INTERP=1 SKIP_BENCH=1 DIFFERENTIAL=100000 bash tests/gpu/run_on_device.sh
#       then again with DIFFERENTIAL_FIRST=S (and DIFFERENTIAL_TRITON_EVERY=2 if the first
#       ran below ~115 kernels/s: 100,000 kernels in two commands)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/tritium-out}"
mkdir -p "$OUT"
DIST="$(pwd)/build-gpu/dist"
PKG=/tmp/tritium-pkg
BIN=/tmp/tritium-bin
mkdir -p "$PKG/tritium" "$BIN"
cp python/tritium/*.py include/tritium/dtypes.def "$PKG/tritium/"
mkdir -p "$PKG/tritium/tools" && cp python/tritium/tools/*.py "$PKG/tritium/tools/"  # subpackages too
cp "$DIST/libtritium.so" "$PKG/tritium/"
LIB="$PKG/tritium"
CXX="g++ -O2 -DNDEBUG -std=gnu++20 -Iinclude -Isrc"

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__)"
} 2>&1 | tee "$OUT/machine.txt"

echo "== build the Python module, the CLI, the C++ test and the C++ benchmark (here)"
start=$(date +%s)
EXT="$(python3-config --extension-suffix)"
pids=()
for f in python/bindings/*.cpp; do
  $CXX -fPIC -fvisibility=hidden $(python3 -m pybind11 --includes) -Ipython/bindings -c "$f" \
    -o "/tmp/$(basename "$f" .cpp).o" & pids+=($!)
done
VERSION="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' python/tritium/__init__.py)"  # = tritium --version
$CXX tools/tritium.cpp tools/aot.cpp tools/aot_codegen.cpp tools/opt.cpp -DTRITIUM_VERSION="\"$VERSION\"" -L"$LIB" -ltritium -Wl,-rpath,"$LIB" \
  -o "$BIN/tritium" & pids+=($!)
$CXX tests/gpu/cpp/gpu_api_test.cpp -L"$LIB" -ltritium -Wl,-rpath,"$LIB" \
  -o "$BIN/gpu_api_test" & pids+=($!)
$CXX benchmarks/bench_launch.cpp -L"$LIB" -ltritium -Wl,-rpath,"$LIB" \
  -o "$BIN/bench_launch" & pids+=($!)

if [ "${DIFFERENTIAL:-0}" != "0" ]; then  # the fuzzer's kernel generator, for tests/fuzz/differential.py
  $CXX tests/fuzz/fuzz_main.cpp tests/fuzz/generator.cpp tests/fuzz/mutator.cpp -L"$LIB" -ltritium \
    -Wl,-rpath,"$LIB" -o "$BIN/tritium_fuzz" & pids+=($!)
fi
build_ok=1
for p in "${pids[@]}"; do wait "$p" || build_ok=0; done
g++ -shared /tmp/arg_convert.o /tmp/globals_convert.o /tmp/kernel_binding.o /tmp/module.o \
  -L"$LIB" -ltritium -Wl,-rpath,'$ORIGIN' -o "$PKG/tritium/_C$EXT" || build_ok=0
echo "build: ok=$build_ok in $(( $(date +%s) - start )) s" | tee "$OUT/build.txt"
export PYTHONPATH="$PKG" PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -c "import tritium, tritium._C; print('tritium from', tritium.__file__)" 2>&1 | tee -a "$OUT/build.txt"

echo "== GPU tests"
export TRITIUM_CLI="$BIN/tritium" TRITIUM_GPU_CPP_TEST="$BIN/gpu_api_test"
# GPU_JOBS=N runs the files in N pytest processes at once (the tests are mostly compiling, on
# the host's cores; the GPU is shared), the largest files first, each job taking the next
# file of the list in turn; their logs follow each other in gpu_tests.log.
if [ "${SKIP_GPU_TESTS:-0}" != "1" ]; then
  jobs="${GPU_JOBS:-1}"
  picked=()
  for f in ${GPU_TESTS:-tests/gpu/test_*.py}; do  # a bare name (test_gpu_dot) means tests/gpu/test_gpu_dot.py
    case "$f" in */*|*.py) picked+=("$f") ;; *) picked+=("tests/gpu/$f.py") ;; esac
  done
  files=$(ls -S "${picked[@]}")
  job_pids=()
  for ((j = 0; j < jobs; j++)); do
    mine=$(echo "$files" | awk -v n="$jobs" -v j="$j" 'NR % n == j')
    [ -z "$mine" ] && continue
    timeout "${GPU_JOB_TIMEOUT:-420}" python3 -m pytest -q -rfEs -p no:cacheprovider ${GPU_TESTS_K:+-k "$GPU_TESTS_K"} $mine \
      > "$OUT/gpu_tests.$j.log" 2>&1 & job_pids+=($!)
  done
  for p in "${job_pids[@]}"; do wait "$p"; done
  cat "$OUT"/gpu_tests.*.log > "$OUT/gpu_tests.log" && rm -f "$OUT"/gpu_tests.*.log
  tail -5 "$OUT/gpu_tests.log"
  grep -hE "^[0-9]+ [a-z]+.* in [0-9.]+s" "$OUT/gpu_tests.log" |
    awk '{for (i = 1; i < NF; ++i) if ($(i + 1) ~ /^(passed|failed|skipped|deselected|errors?)/) { k = $(i + 1); sub(/,$/, "", k); t[k] += $i }}
         END {printf "tests/gpu, all jobs:"; for (k in t) printf " %d %s", t[k], k; print ""}' |
    tee "$OUT/gpu_tests_total.txt"
fi
[ -n "${SANITIZE:-}" ] && { echo "== compute-sanitizer: $SANITIZE"; bash tests/gpu/sanitize.sh; }
echo "== the C++ API test"
timeout 120 "$BIN/gpu_api_test" 2>&1 | tee "$OUT/cpp_api.log"
if [ "${SKIP_INTERP:-0}" != "1" ]; then
  echo "== the interpreter suite (tests/python)"
  timeout 120 python3 -m pytest -q -p no:cacheprovider tests/python 2>&1 | tail -3 | tee "$OUT/python_tests.log"
fi

# Nsight Compute on one warm launch of each JIT's kernel: speed of light, occupancy, warp
# stalls, launch statistics, compute and memory workload as CSV under $OUT. Arguments: the CSV's
# name, the kernel-name regex, then the profiling script and its arguments (--jit is added).
run_ncu() {
  local name=$1 kernel=$2
  shift 2
  local ncu
  ncu="$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
  if [ -z "$ncu" ]; then echo "no ncu found"; return; fi
  for jit in tritium triton; do
    timeout 240 "$ncu" --clock-control none --kernel-name "regex:$kernel" --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio" \
      --csv python3 "$@" --jit "$jit" \
      > "$OUT/ncu_${name}_$jit.csv" 2> "$OUT/ncu_${name}_$jit.err"
    echo "$name $jit: rc $? $(grep -c . "$OUT/ncu_${name}_$jit.csv") lines"
  done
}

if [ "${PROFILE_ATTENTION:-0}" = "1" ]; then
  # d 64 and 128 by default; PROFILE_ARGS adds --causal, --seq, --block.
  echo "== ncu: attention, tritium and Triton"
  for d in ${PROFILE_HEAD_DIMS:-64 128}; do
    # shellcheck disable=SC2086
    run_ncu "attention_d$d" attn_fwd benchmarks/profile_attention.py --head-dim "$d" ${PROFILE_ARGS:-}
  done
fi

if [ "${PROFILE_MATMUL:-0}" = "1" ]; then
  # fp16 at 4096 and 8192 by default (PROFILE_MATMUL_SIZES); PROFILE_MATMUL_ARGS adds --dtype,
  # --block, --stages.
  echo "== ncu: matmul, tritium and Triton"
  for n in ${PROFILE_MATMUL_SIZES:-4096 8192}; do
    # shellcheck disable=SC2086
    run_ncu "matmul_$n" matmul benchmarks/profile_matmul.py --size "$n" ${PROFILE_MATMUL_ARGS:-}
  done
fi

if [ -n "${PROFILE_PROJECTS:-}" ]; then
  # "ROW:KERNEL ...": one warm launch of the kernel named by the regex KERNEL in the
  # bench_projects.py row ROW (benchmarks/profile_projects.py), e.g. "delta_rule:fwd_kernel_h".
  # shellcheck source=tests/realk/device_env.sh
  source tests/realk/device_env.sh
  echo "== ncu: kernels of real projects, tritium and Triton"
  for pair in $PROFILE_PROJECTS; do
    run_ncu "${pair//[^A-Za-z0-9_]/_}" "${pair#*:}" benchmarks/profile_projects.py --only "${pair%%:*}"
  done
fi

if [ "${DIFFERENTIAL:-0}" != "0" ]; then
  echo "== differential: $DIFFERENTIAL generated kernels, interpreter vs GPU vs Triton"
  # It stops itself after DIFFERENTIAL_SECONDS (+20 s for the kernels in flight) and keeps
  # $OUT/differential/summary.md and findings.txt current.
  timeout -k 10 "$(( ${DIFFERENTIAL_SECONDS:-450} + 60 ))" python3 tests/fuzz/differential.py \
    --fuzz "$BIN/tritium_fuzz" --count "$DIFFERENTIAL" --first "${DIFFERENTIAL_FIRST:-0}" \
    --max-seconds "${DIFFERENTIAL_SECONDS:-450}" --triton --triton-every "${DIFFERENTIAL_TRITON_EVERY:-1}" \
    ${DIFFERENTIAL_WORKERS:+--workers "$DIFFERENTIAL_WORKERS"} --out "$OUT/differential" 2>&1 \
    | tail -30 | tee "$OUT/differential.log"
fi

if [ "${SKIP_BENCH:-0}" != "1" ]; then
  echo "== benchmarks"
  timeout 60 "$BIN/bench_launch" 2>&1 | tail -1 | tee "$OUT/cpp_launch.json"
  quick=""
  [ "${QUICK_BENCH:-0}" = "1" ] && quick="--quick"
  timeout 300 python3 benchmarks/bench.py $quick --cpp "$OUT/cpp_launch.json" \
    --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"
fi

# One benchmark script: its title, file (benchmarks/NAME.py), time limit and extra arguments;
# --quick under QUICK_BENCH=1; its JSON and log under $OUT.
run_benchmark() {
  local title=$1 name=$2 limit=$3
  shift 3
  echo "== $title"
  local quick=""
  [ "${QUICK_BENCH:-0}" = "1" ] && quick="--quick"
  timeout "$limit" python3 "benchmarks/$name.py" $quick "$@" --json "$OUT/$name.json" 2>&1 | tee "$OUT/$name.log"
}

# shellcheck disable=SC2086  # REDUCE_ARGS: e.g. --experiments "default;chain" --rounds 2
[ "${BENCH_REDUCE:-0}" = "1" ] && run_benchmark "reduction benchmarks" bench_reduce "${REDUCE_LIMIT:-480}" ${REDUCE_ARGS:-}
# (bench_transpose has no quick pass: QUICK_BENCH=1 leaves it whole)
[ "${BENCH_TRANSPOSE:-0}" = "1" ] && QUICK_BENCH=0 run_benchmark "transpose benchmarks" bench_transpose 300
# shellcheck disable=SC2086  # the *_ARGS are word lists
[ "${BENCH_MATMUL:-0}" = "1" ] && run_benchmark "matmul benchmarks" bench_matmul 480 ${MATMUL_ARGS:-}
[ "${BENCH_DEQUANT:-0}" = "1" ] && run_benchmark "weight-only int8 matmul (w8a16) benchmarks" bench_dequant 300
[ "${BENCH_FP8_IMPRECISE:-0}" = "1" ] && run_benchmark "fp8 matmul with max_num_imprecise_acc" bench_fp8_imprecise 240
# shellcheck disable=SC2086
[ "${BENCH_ATTENTION:-0}" = "1" ] && run_benchmark "attention benchmarks" bench_attention 480 ${ATTENTION_ARGS:-}
# shellcheck disable=SC2086
[ "${BENCH_TUTORIAL_MATMUL:-0}" = "1" ] && run_benchmark "the persistent-matmul tutorial (pointers, host and device descriptors) under both JITs" \
  bench_tutorial_matmul 420
[ "${BENCH_TUTORIAL_ATTENTION:-0}" = "1" ] && run_benchmark "the attention tutorial (host descriptors) under both JITs" \
  bench_tutorial_attention 540 ${TUTORIAL_ATTENTION_ARGS:-}
if [ "${BENCH_PROJECTS:-0}" = "1" ]; then  # the fetched projects' sources and wheels are carried
  # shellcheck source=tests/realk/device_env.sh
  source tests/realk/device_env.sh
  # shellcheck disable=SC2086
  run_benchmark "real kernels of popular projects under both JITs" bench_projects "${PROJECTS_LIMIT:-560}" ${PROJECTS_ARGS:-}
fi

if [ "${BENCH_COMPILE:-0}" = "1" ]; then
  echo "== cold compile time of the dot kernels"
  repeats=3
  [ "${QUICK_BENCH:-0}" = "1" ] && repeats=1
  timeout 480 python3 benchmarks/bench_compile.py --repeats "$repeats" --json "$OUT/bench_compile.json" 2>&1 \
    | tee "$OUT/bench_compile.log"
fi

echo "================ summary"
cat "$OUT/machine.txt" "$OUT/build.txt"
if [ -f "$OUT/gpu_tests.log" ]; then
  if [ -f "$OUT/gpu_tests_total.txt" ]; then cat "$OUT/gpu_tests_total.txt"
  else grep -E "passed|failed|error" "$OUT/gpu_tests.log" | tail -3; fi
  grep -E "^(FAILED|ERROR) " "$OUT/gpu_tests.log" | head -20
fi
tail -2 "$OUT/cpp_api.log"
[ -f "$OUT/python_tests.log" ] && tail -1 "$OUT/python_tests.log"
[ -f "$OUT/bench.log" ] && grep -E "^\||torch.add" "$OUT/bench.log"
[ -f "$OUT/bench_reduce.log" ] && grep -E "^\|" "$OUT/bench_reduce.log"
[ -f "$OUT/bench_projects.log" ] && grep -E "^\||worker exited" "$OUT/bench_projects.log"
[ -f "$OUT/bench_matmul.log" ] && grep -E "^\||check|FAIL" "$OUT/bench_matmul.log" | head -60
[ -f "$OUT/bench_dequant.log" ] && grep -E "^\||WRONG|Error" "$OUT/bench_dequant.log" | head -20
[ -f "$OUT/bench_attention.log" ] && grep -E "^\||check|FAIL|skipped" "$OUT/bench_attention.log" | head -60
[ -f "$OUT/bench_compile.log" ] && grep -E "^\||skipped" "$OUT/bench_compile.log"
[ -f "$OUT/sanitizer.txt" ] && cat "$OUT/sanitizer.txt"
[ -f "$OUT/differential/summary.md" ] && cat "$OUT/differential/summary.md" && \
  grep -v "^#" "$OUT/differential/findings.txt" | grep -P "\tunclassified\t" | head -30
true  # the summary above is the result; a missing optional log is no failure
