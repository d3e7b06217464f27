#!/usr/bin/env python3
"""Inductor's kernels as it generates them for a CUDA GPU (sm_90, H100 properties), on a
machine without one: each compiled by tritium for sm_90 (triton.compile of Inductor's
ASTSource with GPUTarget("cuda", 90, 32), as Inductor's precompile calls it) and assembled
by ptxas. Nothing runs: the inputs are fake tensors on "cuda" and only code generation and
compilation happen.

run_inductor.py runs Inductor's CPU-Triton kernels in tritium's interpreter; the kernels it
makes for a GPU differ (block sizes, num_warps, persistent-reduction thresholds, the GEMM
templates for sm_90), so they are compiled here.

The harness pretends a device exists for Inductor's code generation: torch.cuda's queries
(is_available, properties, capability, rng state, device switching) are patched, the
joint-graph pattern registration (which makes real CUDA tensors) is skipped, and graphs are
compiled with compile_fx on FakeTensorMode inputs. None of this touches the kernels.

    PYTHONPATH=python /work/tsuite-venv/bin/python tests/inductor/cuda_codegen.py \
        [-k SUBSTR ...] [--arch sm_90] [--save-kernels DIR] [--json OUT]
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_inductor  # noqa: E402  (the alias and the programs)
import torch  # noqa: E402

PTXAS = os.environ.get("TRITIUM_SUITE_PTXAS", "/usr/local/cuda/bin/ptxas")


def pretend_cuda(major=9, minor=0):
    class Props:
        name = "NVIDIA H100 80GB HBM3"
        multi_processor_count = 132
        regs_per_multiprocessor = 65536
        max_threads_per_multi_processor = 2048
        max_threads_per_block = 1024
        warp_size = 32
        total_memory = 80 * 2**30
        shared_memory_per_block_optin = 232448
        shared_memory_per_multiprocessor = 233472
        L2_cache_size = 50 * 2**20
        gcnArchName = ""
        clock_rate = 1980000
    Props.major, Props.minor = major, minor
    c = torch.cuda
    c.is_available = lambda: True
    c.device_count = lambda: 1
    c.current_device = lambda: 0
    c.get_device_properties = lambda *a, **k: Props()
    c.get_device_capability = lambda *a, **k: (major, minor)
    c.get_device_name = lambda *a, **k: Props.name
    c.get_rng_state = lambda *a, **k: torch.zeros(16, dtype=torch.uint8)
    c.set_rng_state = lambda *a, **k: None
    c.synchronize = lambda *a, **k: None
    c._lazy_init = lambda: None
    c.is_initialized = lambda: True
    c._exchange_device = lambda idx: 0
    c._maybe_exchange_device = lambda idx: 0
    c.set_device = lambda *a: None
    import torch._inductor.fx_passes.joint_graph as joint_graph
    joint_graph.lazy_init = lambda *a, **k: None  # its patterns are traced on real tensors
    # GEMM templates (max_autotune): every choice is generated and compiled (precompile), but
    # not timed: each gets the same time, so Inductor keeps its first.
    from torch._inductor.select_algorithm import AlgorithmSelectorCache

    def make_benchmark_fn(cls, choices, *args, **kwargs):
        def precompile_only(choices):
            for c in choices:
                if hasattr(c, "precompile"):
                    c.precompile()
            return {c: 1.0 for c in choices}
        return precompile_only
    AlgorithmSelectorCache.make_benchmark_fn = classmethod(make_benchmark_fn)


CALLS = []


def record_compiles():
    import tritium
    import tritium.compiler as compiler
    original = compiler.compile

    def compile(src, target=None, options=None):
        t0 = time.time()
        rec = {"kernel": src.fn.__name__, "target": repr(target), "options": dict(options or {}),
               "source": src.fn.src}
        try:
            handle = original(src, target=target, options=options)
            rec.update(status="ptx", signature=handle.signature, ptx=handle.asm["ptx"])
        except Exception as e:  # noqa: BLE001 - recorded, and raised to Inductor as Triton would
            rec.update(status="compile", reason=f"{type(e).__name__}: {str(e).strip()[:500]}")
            raise
        finally:
            rec["compile_s"] = round(time.time() - t0, 2)
            CALLS.append(rec)
        return handle
    compiler.compile = tritium.compile = compile


def assemble(rec, workdir):
    m = re.search(r"^\s*\.target\s+(\w+)", rec["ptx"], re.M)
    path = os.path.join(workdir, "k.ptx")
    with open(path, "w") as f:
        f.write(rec["ptx"])
    proc = subprocess.run([PTXAS, f"-arch={m.group(1)}", "-o", os.path.join(workdir, "k.cubin"), path],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode == 0:
        rec["status"] = "ok"
    else:
        lines = [l for l in (proc.stderr + proc.stdout).splitlines() if "error" in l.lower()]
        rec.update(status="ptxas", reason=(lines or [proc.stderr])[0][:300])


def codegen(p):
    from torch._inductor.compile_fx import compile_fx
    from torch._subclasses.fake_tensor import FakeTensorMode
    import torch._dynamo
    torch._dynamo.reset()
    fn, inputs = p["make"]()
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    with mode:
        fake = [torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cuda") for t in inputs]
    gm = torch.fx.symbolic_trace(fn)
    with torch._inductor.config.patch(p["config"]):
        compile_fx(gm, fake)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", action="append", default=[])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--save-kernels", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.environ.pop("TRITIUM_INTERPRET", None)
    sm = int(args.arch.replace("sm_", ""))
    pretend_cuda(sm // 10, sm % 10)
    import torch._inductor.config as cfg
    cfg.compile_threads = 1
    cfg.fx_graph_cache = False
    cfg.autotune_local_cache = False
    cfg.pattern_matcher = False
    record_compiles()
    results = []
    for p in run_inductor.PROGRAMS:
        if args.k and not any(k in p["name"] for k in args.k):
            continue
        before = len(CALLS)
        rec = {"name": p["name"]}
        if p["train"]:
            # autograd on fake CUDA tensors asks the CUDA runtime for streams
            rec.update(status="skipped", reason="training (autograd needs the CUDA runtime)",
                       compiles=[])
            results.append(rec)
            print(f"{p['name']:34s} skipped   (training: autograd needs the CUDA runtime)")
            continue
        t0 = time.time()
        try:
            codegen(p)
            rec["status"] = "generated"
        except Exception as e:  # noqa: BLE001
            rec.update(status="error", reason=f"{type(e).__name__}: {str(e).strip()[:300]}",
                       traceback=traceback.format_exc()[-2500:])
        calls = CALLS[before:]
        with tempfile.TemporaryDirectory(prefix="inductor-cuda-") as wd:
            for c in calls:
                if c["status"] == "ptx":
                    assemble(c, wd)
        rec["compiles"] = [{k: v for k, v in c.items() if k not in ("ptx", "source")} for c in calls]
        rec["seconds"] = round(time.time() - t0, 1)
        results.append(rec)
        ok = sum(c["status"] == "ok" for c in calls)
        line = f"{p['name']:34s} {rec['status']:9s} compiles {ok}/{len(calls)} ok  {rec['seconds']:5.1f}s"
        for c in calls:
            if c["status"] != "ok":
                line += f"\n      {c['kernel']}: {c['status']}: {c.get('reason')}"
        if rec["status"] == "error":
            line += f"\n      {rec['reason']}"
        print(line, flush=True)
    if args.save_kernels:
        d = pathlib.Path(args.save_kernels)
        d.mkdir(parents=True, exist_ok=True)
        seen = set()
        for i, c in enumerate(CALLS):
            if (c["kernel"], c["source"]) in seen:
                continue
            seen.add((c["kernel"], c["source"]))
            (d / f"{i:03d}_{c['kernel']}.py").write_text(c["source"])
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    comps = [c for r in results for c in r["compiles"]]
    kernels = {(c["kernel"], c["source"]) for c in CALLS}
    print(f"\n{sum(r['status'] == 'generated' for r in results)}/{len(results)} programs generated; "
          f"{len(kernels)} kernels, {len(comps)} compiles for {args.arch}: "
          f"{sum(c['status'] == 'ok' for c in comps)} assembled by ptxas")


if __name__ == "__main__":
    main()
