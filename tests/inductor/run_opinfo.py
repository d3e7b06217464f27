#!/usr/bin/env python3
"""PyTorch's OpInfo database (torch.testing._internal.common_methods_invocations.op_db, the
ops and sample inputs PyTorch's own inductor tests sweep) through torch.compile with
Inductor's CPU-Triton backend, every generated kernel run by tritium's interpreter, each
result compared with eager. A measurement, like run_inductor.py (tests/inductor/RESULTS.md).

    PYTHONPATH=python /work/tsuite-venv/bin/python tests/inductor/run_opinfo.py \
        [--dtype float32] [--samples 2] [-k SUBSTR ...] [--json OUT] [--batch 25]

Ops run in batches, each batch in a child process (a crash loses one op, recorded as
"crash"). Needs `expecttest` (PyTorch's testing module imports it). Per op and sample:
  ok        compiled and equal to eager (within the OpInfo's float tolerance)
  mismatch  compiled, different from eager
  error     torch.compile raised; `tritium` when the exception came from tritium (its
            modules in the traceback or its error classes), else `torch`
  nokernel  compiled and equal, but no Triton kernel was launched (Inductor called an
            extern/ATen op, or the result needed no kernel: a view, a constant)
  skip      eager itself raised on the sample
  random    a mismatch of an op whose result is random or uninitialized (empty*, rand*,
            dropout, bernoulli, ...): not compared
  precision (fp16/bf16) differs from eager by more than 1e-4 but is as close to the float64
            result as eager is (within_eager_error)
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def within_eager_error(op, s, got, want):
    """A low-precision result that differs from eager: is it as close to the float64 result
    as eager's (Inductor computes fp16/bf16 in fp32 and rounds once; eager rounds each op)?
    Every element: |got - ref| <= 2 |eager - ref| + 1e-3 + 1e-3 |ref|."""
    import torch
    from torch.utils._pytree import tree_flatten, tree_map

    def up(x):
        return x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
    try:
        ref = op(up(s.input), *tree_map(up, s.args), **tree_map(up, s.kwargs))
    except Exception:  # noqa: BLE001
        return False
    gs, ws, rs = tree_flatten(got)[0], tree_flatten(want)[0], tree_flatten(ref)[0]
    if not (len(gs) == len(ws) == len(rs)):
        return False
    for g, w, r in zip(gs, ws, rs):
        if not isinstance(g, torch.Tensor):
            g, w, r = torch.tensor(g), torch.tensor(w), torch.tensor(r)
        if not g.is_floating_point():
            if not torch.equal(g, w):
                return False
            continue
        g, w, r = g.double(), w.double(), r.double().to(g.device)
        finite = torch.isfinite(r)
        if not torch.equal(torch.isnan(g), torch.isnan(w)):
            return False
        bound = 2 * (w - r).abs() + 1e-3 + 1e-3 * r.abs()
        if ((g - r).abs() > bound)[finite].any():
            return False
    return True


def child(names, dtype_name, nsamples, out_path, timeout):
    os.environ["TRITIUM_INTERPRET"] = "1"
    sys.path.insert(0, str(ROOT / "python"))
    import tritium
    tritium.use_as_triton(quiet=True)
    import signal
    import torch
    import torch._dynamo
    import torch._inductor.config as cfg
    import tritium.compiler as compiler
    from torch.testing._internal.common_methods_invocations import op_db
    cfg.cpu_backend = "triton"
    cfg.compile_threads = 1
    cfg.fx_graph_cache = False
    cfg.autotune_local_cache = False
    torch._dynamo.config.cache_size_limit = 64
    dtype = getattr(torch, dtype_name)
    compiled = []
    original = compiler.compile

    def counting(src, target=None, options=None):
        compiled.append(src.fn.__name__)
        return original(src, target=target, options=options)
    compiler.compile = tritium.compile = counting
    launched = []
    run = tritium.compiled.CompiledKernel.run

    def counting_run(self, *args):
        launched.append(self.name)
        return run(self, *args)
    tritium.compiled.CompiledKernel.run = counting_run

    class Timeout(Exception):
        pass

    def alarm(signum, frame):
        raise Timeout(f"ran past {timeout} s")
    signal.signal(signal.SIGALRM, alarm)
    ops = {f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name: op for op in op_db}
    out = open(out_path, "a")
    for name in names:
        op = ops[name]
        print(json.dumps({"op": name, "started": True}), file=out, flush=True)
        try:
            samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:nsamples]
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"op": name, "status": "skip", "reason": f"samples: {e}"[:200]}),
                  file=out, flush=True)
            continue
        for i, s in enumerate(samples):
            rec = {"op": name, "sample": i}
            torch._dynamo.reset()
            try:
                want = op(s.input, *s.args, **s.kwargs)
            except Exception as e:  # noqa: BLE001
                rec.update(status="skip", reason=f"eager: {type(e).__name__}")
                print(json.dumps(rec), file=out, flush=True)
                continue
            before = len(compiled)
            launches_before = len(launched)
            signal.alarm(timeout)
            try:
                fn = torch.compile(lambda: op(s.input, *s.args, **s.kwargs), fullgraph=False)
                got = fn()
                signal.alarm(0)
                try:
                    torch.testing.assert_close(got, want, equal_nan=True, check_dtype=True,
                                               atol=1e-4, rtol=1e-4)
                    rec["status"] = "ok" if len(launched) > launches_before else "nokernel"
                except Exception as e:  # noqa: BLE001
                    status = "random" if name.startswith(RANDOM_PREFIXES) else "mismatch"
                    if status == "mismatch" and dtype in (torch.float16, torch.bfloat16) and \
                            within_eager_error(op, s, got, want):
                        status = "precision"
                    rec.update(status=status, reason=str(e).strip().splitlines()[0][:200]
                               if str(e).strip() else type(e).__name__)
            except Exception as e:  # noqa: BLE001
                signal.alarm(0)
                tb = traceback.format_exc()
                from_tritium = "tritium" in type(e).__module__ or "/python/tritium/" in tb or \
                    "tritium.errors" in tb
                rec.update(status="error", side="tritium" if from_tritium else "torch",
                           reason=f"{type(e).__name__}: {str(e).strip()[:300]}",
                           traceback=tb[-1500:])
            rec["kernels"] = len(compiled) - before
            rec["launches"] = len(launched) - launches_before
            print(json.dumps(rec), file=out, flush=True)
    out.close()


# Ops whose results are random or uninitialized memory: a mismatch is not a finding.
RANDOM_PREFIXES = ("empty", "new_empty", "rand", "normal", "bernoulli", "multinomial", "uniform",
                   "exponential", "geometric", "cauchy", "log_normal", "nn.functional.dropout",
                   "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
                   "nn.functional.rrelu", "nn.functional.fractional_max_pool")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", action="append", default=[])
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json", default="/tmp/inductor_opinfo.jsonl")
    ap.add_argument("--child", nargs="*", default=None)
    ap.add_argument("--summarize", action="store_true", help="only print the summary of --json")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.json)
        return
    if args.child is not None:
        child(args.child, args.dtype, args.samples, args.json, args.timeout)
        return
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    dtype = getattr(torch, args.dtype)
    names = []
    for op in op_db:
        name = f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name
        if args.k and not any(k in name for k in args.k):
            continue
        if dtype in op.supported_dtypes("cpu"):
            names.append(name)
    pathlib.Path(args.json).write_text("")
    t0 = time.time()
    todo = list(names)
    while todo:
        batch = todo[:args.batch]
        cmd = [sys.executable, __file__, "--dtype", args.dtype, "--samples", str(args.samples),
               "--timeout", str(args.timeout), "--json", args.json, "--child", *batch]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        done = set()
        last_started = None
        for line in pathlib.Path(args.json).read_text().splitlines():
            r = json.loads(line)
            if r.get("started"):
                last_started = r["op"]
            done.add(r["op"])
        if proc.returncode != 0 and last_started in batch:
            with open(args.json, "a") as f:
                f.write(json.dumps({"op": last_started, "status": "crash",
                                    "reason": (proc.stderr or "")[-300:]}) + "\n")
        todo = [n for n in todo if n not in done]
        print(f"{len(names) - len(todo)}/{len(names)} ops, {time.time() - t0:.0f}s", flush=True)
    summarize(args.json)


def summarize(path):
    recs = [json.loads(l) for l in pathlib.Path(path).read_text().splitlines()]
    recs = [r for r in recs if not r.get("started")]
    for r in recs:
        if r["status"] == "mismatch" and r["op"].startswith(RANDOM_PREFIXES):
            r["status"] = "random"
    from collections import Counter
    status = Counter(r["status"] if r["status"] != "error" else f"error ({r.get('side')})" for r in recs)
    ops = {r["op"] for r in recs}
    print(f"{len(ops)} ops, {len(recs)} samples: " + ", ".join(f"{k} {v}" for k, v in sorted(status.items())))
    print(f"Triton kernels compiled: {sum(r.get('kernels', 0) for r in recs)}, launches: "
          f"{sum(r.get('launches', 0) for r in recs)}")
    for r in recs:
        if r["status"] == "mismatch" or (r["status"] in ("error", "crash") and
                                         r.get("side", "tritium") == "tritium"):
            print(f"  {r['op']} [{r.get('sample')}]: {r['status']}: {r['reason'][:250]}")


if __name__ == "__main__":
    main()
