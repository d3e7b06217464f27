"""Real kernels of popular projects at the sizes their users run, timed under tritium and under
Triton 3.6 in one run: each project's own Python entry point (the same code the corpus of
tests/realk/run_realk.py runs at small sizes for correctness), unmodified, once in a process
where `import triton` is answered by tritium and once under Triton, on the same inputs.

Each row times what a user calls (forward and backward through autograd where the project has
one): the first call autotunes and compiles, three more warm up, then `reps` calls between two
CUDA events, five times (--quick: three), and the median per call is reported (host work included, as a user
sees it; torch's own kernels inside the call are the same under both). The outputs of the two
JITs are compared with each other (largest difference, relative to the largest value), and
with --kernels each Triton-language kernel's GPU time in one call (torch.profiler) is listed per
JIT, so a row's ratio can be traced to its kernels.

One command on the GPU machine (carry build-gpu/dist, build-gpu/realk/src.tar.xz and
build-gpu/realk/deps; tests/realk/fetch_corpus.sh fetches and packs the projects):
    BENCH_PROJECTS=1 SKIP_GPU_TESTS=1 SKIP_BENCH=1 SKIP_INTERP=1 bash tests/gpu/run_on_device.sh
or, with tritium, Triton and torch importable and the projects unpacked:
    python3 benchmarks/bench_projects.py [--src build-gpu/realk/src] [--only cce,liger] [--kernels] [--json F]
A/B of tritium's settings (each setting a run of both JITs in its own process, as
benchmarks/experiments.py does for bench_reduce.py; a table of tritium / Triton per row, and
per kernel with --kernels):
    python3 benchmarks/bench_projects.py --only vllm.unified --kernels \
        --experiments "default;TRITIUM_PREFETCH_INDICES=0" [--rounds 2]
"""

import argparse
import itertools
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import types

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "realk"))

ENTRIES = []


def entry(name):
    """Registers setup(torch) -> call, where call() runs the project's code once and returns
    the tensors to compare between the two JITs."""
    def register(fn):
        ENTRIES.append((name, fn))
        return fn
    return register


def randn(torch, *shape, dtype, scale=1.0, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(*shape, device="cuda", dtype=torch.float32, generator=g) * scale).to(dtype)


def fwd_bwd(torch, fn, inputs, seed=99):
    """call() for fn(*inputs) and its backward with a fixed upstream gradient: returns the
    output and the gradients of the floating-point inputs."""
    xs = [x.detach().requires_grad_(True) if x.is_floating_point() else x for x in inputs]
    wrt = [x for x in xs if x.requires_grad]
    grad_out = [None]

    def call():
        out = fn(*xs)
        if grad_out[0] is None:
            grad_out[0] = randn(torch, *out.shape, dtype=out.dtype, seed=seed) if out.dim() else torch.ones_like(out)
        grads = torch.autograd.grad(out, wrt, grad_out[0])
        return [out.detach()] + list(grads)
    return call


# ------------------------------------------------------------------ the projects' entry points

def _cce(torch, **kw):
    from cut_cross_entropy.cce import cce_linear_cross_entropy
    n, d, v = 4096, 2048, 128256
    e = randn(torch, n, d, dtype=torch.bfloat16, seed=1)
    c = randn(torch, v, d, dtype=torch.bfloat16, scale=0.05, seed=2)
    t = torch.randint(0, v, (n,), device="cuda", generator=torch.Generator(device="cuda").manual_seed(3))
    return fwd_bwd(torch, lambda e, c: cce_linear_cross_entropy(e, c, t, **kw), [e, c])


@entry("cce.linear_cross_entropy bf16 4096x2048, vocab 128256")
def _(torch):
    return _cce(torch)


@entry("cce.linear_cross_entropy softcap 30")
def _(torch):
    return _cce(torch, softcap=30.0)


@entry("liger.cross_entropy bf16 4096 x vocab 128256")
def _(torch):
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    x = randn(torch, 4096, 128256, dtype=torch.bfloat16, scale=2.0, seed=1)
    t = torch.randint(0, 128256, (4096,), device="cuda", generator=torch.Generator(device="cuda").manual_seed(2))
    return fwd_bwd(torch, lambda x: LigerCrossEntropyFunction.apply(x, t, None)[0], [x])


@entry("liger.rms_norm bf16 16384x4096")
def _(torch):
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    x, w = randn(torch, 16384, 4096, dtype=torch.bfloat16, seed=1), randn(torch, 4096, dtype=torch.bfloat16, seed=2)
    return fwd_bwd(torch, lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False), [x, w])


@entry("liger.layer_norm bf16 16384x4096")
def _(torch):
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    x = randn(torch, 16384, 4096, dtype=torch.bfloat16, seed=1)
    w, b = randn(torch, 4096, dtype=torch.bfloat16, seed=2), randn(torch, 4096, dtype=torch.bfloat16, seed=3)
    return fwd_bwd(torch, lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-5), [x, w, b])


@entry("liger.swiglu bf16 8192x14336")
def _(torch):
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    a, b = randn(torch, 8192, 14336, dtype=torch.bfloat16, seed=1), randn(torch, 8192, 14336, dtype=torch.bfloat16, seed=2)
    return fwd_bwd(torch, LigerSiLUMulFunction.apply, [a, b])


@entry("liger.rope bf16 q 4x32x4096x128, k 4x8x4096x128")
def _(torch):
    from liger_kernel.ops.rope import LigerRopeFunction
    q = randn(torch, 4, 32, 4096, 128, dtype=torch.bfloat16, seed=1)
    k = randn(torch, 4, 8, 4096, 128, dtype=torch.bfloat16, seed=2)
    ang = torch.arange(4096, device="cuda", dtype=torch.float32)[:, None] * torch.arange(64, device="cuda") * 1e-3
    ang = torch.cat([ang, ang], -1)[None]
    cos, sin = ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)
    return fwd_bwd(torch, lambda q, k: torch.cat([o.flatten() for o in LigerRopeFunction.apply(q, k, cos, sin)]), [q, k])


def _mamba_scan(torch, dtype):
    sc = project_module("mamba_ssm.ops.triton.ssd_combined")
    b, L, h, p, g, n = 4, 4096, 32, 64, 1, 128
    x = randn(torch, b, L, h, p, dtype=dtype, scale=0.5, seed=1)
    dt = torch.nn.functional.softplus(randn(torch, b, L, h, dtype=torch.float32, seed=2) - 2)
    A = -torch.rand(h, device="cuda", generator=torch.Generator(device="cuda").manual_seed(3)) - 0.5
    B, C = randn(torch, b, L, g, n, dtype=dtype, scale=0.5, seed=4), randn(torch, b, L, g, n, dtype=dtype, scale=0.5, seed=5)
    D = randn(torch, h, dtype=torch.float32, seed=6)
    return fwd_bwd(torch, lambda x, B, C: sc.mamba_chunk_scan_combined(x, dt, A, B, C, 256, D=D), [x, B, C])


@entry("mamba.chunk_scan_combined bf16 4x4096, 32 heads of 64, state 128")
def _(torch):
    return _mamba_scan(torch, torch.bfloat16)


@entry("fla.chunk_gla forward bf16 4x4096, 16 heads, K=V=128")
def _(torch):
    # forward only: fla refuses the gated backward under Triton 3.4-3.7.0 on Hopper
    from fla.ops.gla import chunk_gla
    q, k, v = (randn(torch, 4, 4096, 16, 128, dtype=torch.bfloat16, scale=0.3, seed=s) for s in (1, 2, 3))
    g = torch.nn.functional.logsigmoid(randn(torch, 4, 4096, 16, 128, dtype=torch.float32, seed=4)) * 0.1

    def call():
        with torch.no_grad():
            return [chunk_gla(q, k, v, g, scale=128 ** -0.5)[0]]
    return call


@entry("fla.chunk_delta_rule bf16 4x4096, 16 heads, K=V=128")
def _(torch):
    from fla.ops import chunk_delta_rule
    q, k, v = (randn(torch, 4, 4096, 16, 128, dtype=torch.bfloat16, scale=0.3, seed=s) for s in (1, 2, 3))
    q, k = (torch.nn.functional.normalize(x.float(), dim=-1).to(torch.bfloat16) for x in (q, k))
    beta = torch.sigmoid(randn(torch, 4, 4096, 16, dtype=torch.bfloat16, seed=4))
    return fwd_bwd(torch, lambda q, k, v, beta: chunk_delta_rule(q, k, v, beta, scale=128 ** -0.5)[0], [q, k, v, beta])


def project_module(name):
    """A fetched project's module, imported with the corpus harness's stand-ins for what its
    package imports around the kernels (vLLM's compiled ops and config, mamba's extensions)."""
    import run_realk
    return run_realk.import_project_module(name)


def _unified_attention(torch, q_lens, kv_lens):
    ua = project_module("vllm.v1.attention.ops.triton_unified_attention")
    h, hk, d, page = 32, 8, 128, 16
    t = sum(q_lens)
    pages = [-(-n // page) for n in kv_lens]
    q = randn(torch, t, h, d, dtype=torch.bfloat16, seed=1)
    kc, vc = (randn(torch, sum(pages) + 1, page, hk, d, dtype=torch.bfloat16, seed=s) for s in (2, 3))
    order = torch.randperm(sum(pages), generator=torch.Generator().manual_seed(4)).to(torch.int32) + 1
    table = torch.zeros(len(pages), max(pages), dtype=torch.int32)
    first = 0
    for i, n in enumerate(pages):  # each sequence's pages scattered over the cache
        table[i, :n] = order[first:first + n]
        first += n
    table = table.cuda()
    cu = torch.tensor([0] + list(itertools.accumulate(q_lens)), device="cuda", dtype=torch.int32)
    used = torch.tensor(kv_lens, device="cuda", dtype=torch.int32)
    o = torch.empty_like(q)

    def call():
        ua.unified_attention(q=q, k=kc, v=vc, out=o, cu_seqlens_q=cu, max_seqlen_q=max(q_lens), seqused_k=used,
                             max_seqlen_k=max(kv_lens), softmax_scale=d ** -0.5, causal=True, window_size=(-1, -1),
                             block_table=table, softcap=0, q_descale=None, k_descale=None, v_descale=None)
        return [o]
    return call


@entry("vllm.unified_attention decode bf16, 128 sequences of 4096, 32/8 heads of 128")
def _(torch):
    return _unified_attention(torch, [1] * 128, [4096] * 128)


@entry("vllm.unified_attention prefill bf16, 4 sequences of 4096, 32/8 heads of 128")
def _(torch):
    return _unified_attention(torch, [4096] * 4, [4096] * 4)


@entry("vllm.fused_moe kernel bf16, 2048 tokens top-2 of 8 experts, 4096 -> 14336")
def _(torch):
    fm = project_module("vllm.model_executor.layers.fused_moe.fused_moe")
    import triton.language as tl
    os.environ["REALK_MOE_TD"] = "0"  # the pointer path (VLLM_TRITON_USE_TD off, vLLM's default)
    m, k, n, e, topk = 2048, 4096, 14336, 8, 2
    a = randn(torch, m, k, dtype=torch.bfloat16, scale=0.5, seed=1)
    w = randn(torch, e, n, k, dtype=torch.bfloat16, scale=0.02, seed=2)
    ids = torch.rand(m, e, device="cuda", generator=torch.Generator(device="cuda").manual_seed(3)).topk(topk, -1).indices
    config = fm.get_default_config(m, e, n, k, topk, None)
    bm = config["BLOCK_SIZE_M"]
    flat = ids.flatten().cpu()
    sorted_ids, expert_ids = [], []
    for x in range(e):  # the block alignment vLLM's moe_align_block_size (a CUDA op there) computes
        idx = (flat == x).nonzero().flatten().tolist()
        for first in range(0, len(idx), bm):
            chunk = idx[first:first + bm]
            sorted_ids += chunk + [flat.numel()] * (bm - len(chunk))
            expert_ids.append(x)
    sorted_ids = torch.tensor(sorted_ids, device="cuda", dtype=torch.int32)
    expert_ids = torch.tensor(expert_ids, device="cuda", dtype=torch.int32)
    ntp = torch.tensor([sorted_ids.numel()], device="cuda", dtype=torch.int32)
    c = torch.empty(m, topk, n, device="cuda", dtype=torch.bfloat16)

    def call():
        fm.invoke_fused_moe_triton_kernel(a, w, c, None, None, None, sorted_ids, expert_ids, ntp, False, topk,
                                          config, compute_type=tl.bfloat16, use_fp8_w8a8=False,
                                          use_int8_w8a8=False, use_int8_w8a16=False, use_int4_w4a16=False,
                                          per_channel_quant=False, block_shape=None)
        return [c]
    return call


# ------------------------------------------------------------------------------- the workers

def prepare(src, jit):
    """Imports as run_realk.py does: the fetched folder first on the path, `triton` answered by
    tritium in tritium's worker, the projects' unrelated imports stubbed."""
    import run_realk
    run_realk.ARGS = types.SimpleNamespace(src=src, device="cuda", impl=jit)
    run_realk._prepare(src, "cuda", jit)


def kernel_times(torch, call, calls=5):
    """GPU time per Triton-language kernel in one call (torch.profiler), in microseconds: the
    mean over `calls` calls (one call's kernel times move by 2-3 % from call to call).
    Kernels torch launches itself (names with "::" or torch's prefixes) are left out."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
    out = {}
    for ev in prof.key_averages():
        name = ev.key
        if "::" in name or name.startswith(("void ", "Memcpy", "Memset", "cutlass", "sm90_", "sm80_", "nvjet", "ampere_")):
            continue
        t = getattr(ev, "device_time_total", None)
        if t is None:
            t = ev.cuda_time_total
        if t:
            out[name] = out.get(name, 0.0) + t / calls
    return out


def autotune_choices():
    """The config each autotuned kernel of this process chose, per tuning key (both JITs'
    Autotuner keep `fn` and `cache`: key -> Config), as text."""
    import gc
    out = {}
    for obj in gc.get_objects():
        if type(obj).__name__ == "Autotuner" and isinstance(getattr(obj, "cache", None), dict) and obj.cache:
            name = getattr(getattr(obj, "fn", None), "__name__", None) or str(getattr(obj, "fn", "?"))
            out.setdefault(name, {}).update({str(k): str(v) for k, v in obj.cache.items()})
    return out


def worker(jit, src, only, want_kernels, save_dir, rounds, want_specs):
    prepare(src, jit)
    import torch
    if want_specs and jit == "tritium":  # every specialization tritium compiles, by kernel
        sys.path.insert(0, str(ROOT / "tests" / "triton_suite"))
        import gpu_compile
        gpu_compile.install()
    for index, (name, setup) in enumerate(ENTRIES):
        if only and not any(o in name for o in only):
            continue
        row = {"name": name}
        try:
            call = setup(torch)
            outs = call()  # autotunes and compiles
            row["outputs"] = os.path.join(save_dir, f"{jit}-{index}.pt")
            torch.save([o.float().cpu() for o in outs], row["outputs"])
            for _ in range(3):
                call()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            end.synchronize()
            reps = max(3, min(50, int(200 / max(start.elapsed_time(end), 1e-3))))
            times = []
            for _ in range(rounds):
                start.record()
                for _ in range(reps):
                    call()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / reps)
            row["ms"] = statistics.median(times)
            row["spread"] = [min(times), max(times)]
            if want_kernels:
                row["kernels"] = kernel_times(torch, call)
            if want_specs:
                row["autotuned"] = autotune_choices()
                if jit == "tritium":
                    row["specializations"] = [{"kernel": h.name, "signature": h.signature, "options": h._options}
                                              for h in gpu_compile.take_pending()]
        except Exception as e:  # noqa: BLE001 - the row says what went wrong
            text = " / ".join(line.strip() for line in str(e).splitlines() if line.strip())
            row["error"] = f"{type(e).__name__}: {text[:400]}"
        print(json.dumps(row, default=str), flush=True)


def difference(a_path, b_path):
    """Largest |a - b| over the largest |b|, across the outputs of one row."""
    import torch
    a, b = torch.load(a_path), torch.load(b_path)
    worst = 0.0
    for x, y in zip(a, b):
        scale = max(y.abs().max().item(), 1e-30)
        worst = max(worst, (x - y).abs().max().item() / scale)
    return worst


def experiment_ratios(rows):
    """(label, tritium / Triton speed) of each row of a child's --json, and of each kernel
    both JITs ran in it (GPU time, with --kernels)."""
    for name, both in rows.items():
        a, b = both.get("tritium", {}), both.get("triton", {})
        if "ms" in a and "ms" in b:
            yield name, b["ms"] / a["ms"]
        ka, kb = a.get("kernels", {}), b.get("kernels", {})
        for kernel in ka:
            if ka[kernel] and kb.get(kernel):
                yield f"{name}: {kernel}", kb[kernel] / ka[kernel]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=str(ROOT / "build-gpu" / "realk" / "src"))
    ap.add_argument("--only", default="", help="comma-separated substrings of the rows to run")
    ap.add_argument("--kernels", action="store_true", help="each Triton kernel's GPU time per call, per JIT")
    ap.add_argument("--specs", action="store_true",
                    help="record tritium's specializations (signature, options) and both JITs' autotune choices in --json")
    ap.add_argument("--json")
    ap.add_argument("--worker-timeout", type=float, default=270.0, help="seconds each JIT's process may take")
    ap.add_argument("--quick", action="store_true", help="three timed rounds instead of five")
    ap.add_argument("--experiments", help="settings timed against each other, each run of both JITs in a process "
                    "of its own (benchmarks/experiments.py): 'default;TRITIUM_PREFETCH_INDICES=0'")
    ap.add_argument("--rounds", type=int, default=1, help="(with --experiments) rounds over the settings")
    ap.add_argument("--worker", choices=["tritium", "triton"])
    ap.add_argument("--save-dir")
    args = ap.parse_args()
    only = [o for o in args.only.split(",") if o]
    if args.worker:
        worker(args.worker, args.src, only, args.kernels, args.save_dir, 3 if args.quick else 5, args.specs)
        return 0
    from bench_attention import no_gpu_reason
    reason = no_gpu_reason()
    if reason:
        print(f"skipped, no GPU: {reason}")
        return 0
    if not pathlib.Path(args.src).is_dir():
        print(f"skipped: the fetched projects are not in {args.src} (tests/realk/fetch_corpus.sh)")
        return 0
    if args.experiments:
        import experiments
        child = ["--src", args.src, "--only", args.only, "--worker-timeout", str(args.worker_timeout)] + \
            (["--kernels"] if args.kernels else []) + (["--quick"] if args.quick else [])
        experiments.compare(__file__, child, args.experiments, args.rounds, experiment_ratios, args.json)
        return 0
    rows = {}
    with tempfile.TemporaryDirectory(prefix="bench-projects-") as save_dir:
        for jit in ("tritium", "triton"):
            cmd = [sys.executable, __file__, "--worker", jit, "--src", args.src, "--only", args.only,
                   "--save-dir", save_dir] + (["--kernels"] if args.kernels else []) + (["--quick"] if args.quick else []) \
                + (["--specs"] if args.specs else [])
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.worker_timeout)
                stdout, failed = done.stdout, done.returncode != 0 and f"exited {done.returncode}: " \
                    f"{done.stderr.strip().splitlines()[-3:]}"
            except subprocess.TimeoutExpired as e:  # the rows it finished still count
                stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                failed = f"stopped after {args.worker_timeout} s"
            for line in stdout.splitlines():
                if line.startswith("{"):
                    row = json.loads(line)
                    rows.setdefault(row["name"], {})[jit] = row
            if failed:
                print(f"{jit} worker {failed}")
        for both in rows.values():
            a, b = both.get("tritium", {}), both.get("triton", {})
            if "outputs" in a and "outputs" in b:
                both["difference"] = difference(a["outputs"], b["outputs"])
    print("| entry | tritium ms | Triton ms | tritium / Triton (speed) | outputs differ by |")
    print("|---|---|---|---|---|")
    for name, both in rows.items():
        a, b = both.get("tritium", {}), both.get("triton", {})
        cell = lambda r: r.get("error") or (f"{r['ms']:.3f} ({r['spread'][0]:.3f}-{r['spread'][1]:.3f})" if "ms" in r else "not run")  # noqa: E731
        ratio = f"{b['ms'] / a['ms']:.3f}" if "ms" in a and "ms" in b else "-"
        diff = f"{both['difference']:.1e}" if "difference" in both else "-"
        print(f"| {name} | {cell(a)} | {cell(b)} | {ratio} | {diff} |")
    if args.kernels:
        for name, both in rows.items():
            ka, kb = both.get("tritium", {}).get("kernels", {}), both.get("triton", {}).get("kernels", {})
            if not ka and not kb:
                continue
            print(f"\n{name}: GPU time per kernel in one call (us), tritium / Triton")
            for k in sorted(set(ka) | set(kb), key=lambda k: -max(ka.get(k, 0), kb.get(k, 0))):
                x, y = ka.get(k), kb.get(k)
                r = f"{y / x:.3f}" if x and y else "-"
                print(f"  {k[:70]:70s} {x or 0:10.1f} {y or 0:10.1f}  {r}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
