"""Time to first launch of an autotuned kernel in a NEW process, tritium against Triton 3.6
(issue 12). For each library: one process tunes (cold caches), then N fresh processes each
measure, from before `import` to the end of the first launch (synchronized), how long the
first autotuned launch takes. tritium keeps the chosen config on disk, so its second
process times nothing; Triton re-times every config unless `cache_results=True` (3.6) or
TRITON_CACHE_AUTOTUNING=1, which is measured as a third row.

    python3 benchmarks/autotune_first_launch.py [--repeats 5] [--json out.json]

Run on the GPU machine (needs torch, triton, and tritium importable).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

CHILD = textwrap.dedent("""
    import json, sys, time
    start = time.perf_counter()
    import torch
    lib = sys.argv[1]
    if lib == "tritium":
        import tritium as jit_lib
        import tritium.language as tl
    else:
        import triton as jit_lib
        import triton.language as tl
    cache_results = sys.argv[2] == "1"

    def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)

    configs = [jit_lib.Config({"BLOCK": b}, num_warps=w)
               for b, w in ((256, 4), (512, 4), (1024, 4), (2048, 8), (4096, 8))]
    options = {"cache_results": True} if cache_results else {}
    kernel = jit_lib.autotune(configs=configs, key=["n"], **options)(jit_lib.jit(copy))
    x = torch.arange(1 << 24, device="cuda", dtype=torch.float32)
    out = torch.empty_like(x)
    before = time.perf_counter()
    kernel[lambda m: (jit_lib.cdiv(m["n"], m["BLOCK"]),)](x, out, x.numel())
    torch.cuda.synchronize()
    end = time.perf_counter()
    assert torch.equal(out, x * 2)
    print(json.dumps({"total_s": end - start, "launch_s": end - before,
                      "best": str(kernel.best_config)}))
""")


def run_child(script, lib, cache_results, env):
    result = subprocess.run([sys.executable, script, lib, "1" if cache_results else "0"],
                            env=env, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit(f"{lib} child failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    opts = parser.parse_args()
    work = tempfile.mkdtemp(prefix="autotune-bench-")
    script = os.path.join(work, "child.py")
    with open(script, "w") as f:
        f.write(CHILD)
    rows = {}
    for lib, cache_results in (("tritium", False), ("triton", False), ("triton", True)):
        name = lib + (" cache_results=True" if cache_results else "")
        cache = tempfile.mkdtemp(prefix="cache-", dir=work)
        env = {**os.environ, "TRITIUM_CACHE_DIR": os.path.join(cache, "tritium"),
               "TRITON_CACHE_DIR": os.path.join(cache, "triton"), "CUDA_CACHE_DISABLE": "1"}
        env.pop("TRITIUM_INTERPRET", None)
        tuning = run_child(script, lib, cache_results, env)
        warm = [run_child(script, lib, cache_results, env) for _ in range(opts.repeats)]
        rows[name] = {
            "tuning_process_total_s": tuning["total_s"],
            "tuning_process_launch_s": tuning["launch_s"],
            "second_process_total_s": statistics.median(w["total_s"] for w in warm),
            "second_process_launch_s": statistics.median(w["launch_s"] for w in warm),
            "best": tuning["best"],
        }
    print(f"{'':28} {'tuning process':>16} {'new process: total':>20} {'first launch':>14}")
    for name, row in rows.items():
        print(f"{name:28} {row['tuning_process_total_s']:15.3f}s "
              f"{row['second_process_total_s']:19.3f}s {row['second_process_launch_s']:13.3f}s")
    base = rows["tritium"]["second_process_launch_s"]
    for name, row in rows.items():
        if name != "tritium":
            print(f"first autotuned launch in a new process, {name} / tritium: "
                  f"{row['second_process_launch_s'] / base:.1f}x")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
