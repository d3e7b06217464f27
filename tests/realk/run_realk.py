#!/usr/bin/env python3
"""Runs real Triton kernels of popular projects (Liger-Kernel, vLLM, flash-linear-attention,
mamba-ssm, flash-attn, sglang, unsloth, FlagGems, bitsandbytes, torchao, xformers, FlashInfer,
cut-cross-entropy, SageAttention, GemLite, DeepSpeed, Transformer Engine) unmodified under
tritium, each against a torch reference written here, and compiles every specialization they
launched for sm_90 and sm_80 (PTX, then ptxas).

This is a measurement, not one of tritium's tests: the projects' files are fetched into an
ignored folder (default build-gpu/realk/src, by tests/realk/fetch_corpus.sh) and never
committed. `import triton` is answered by tritium (tritium.use_as_triton); no kernel body is
edited. What the harness adds around the projects' code (their package imports that pull in
unrelated modules, the CPU target) is in `_prepare_*` below.

    PYTHONPATH=python /work/tsuite-venv/bin/python tests/realk/run_realk.py \
        [--src build-gpu/realk/src] [--device cpu|cuda] [-k SUBSTR ...] \
        [--gpu-compile sm_90,sm_80] [--json OUT] [--save DIR] [--compare DIR] [--skip-done FILE ...]

--device cpu   torch CPU tensors, kernels in tritium's interpreter (TRITIUM_INTERPRET=1);
               the driver names the target "cpu" (as run_triton_suite.py does), so code that
               asks Triton's driver for the GPU (fla) takes its CPU path.
--device cuda  torch CUDA tensors on the GPU. With --impl triton, the real Triton runs the
               same cases (no alias): the baseline for tritium's results.
--gpu-compile  (cpu) each specialization a case launched is compiled to PTX for these
               architectures and assembled by ptxas, in a forked process each
               (tests/triton_suite/gpu_compile.py: status ok / user / internal / ptxas /
               crash / timeout / memory).
--emulate sm_90|sm_80
               (cpu) every launch runs tritium's GPU code instead of the interpreter: the
               kernel's LLVM IR for that architecture, retargeted to the host, each CTA's
               threads host threads (tests/emulate/emulated_gpu.py), so the case's comparison
               checks the GPU code path. fla is imported as on an H100 (sm_90) or A100 (sm_80)
               (_emulate_fla_device), so its autotune lists are the GPU's. A kernel the
               emulator cannot run fails its case with "not emulated: ..."; autotuned
               kernels pass over a config needing more shared memory than that GPU has
               (the launch raises OutOfResources there), as the GPU's autotuner would.
--emulate-check  (with --emulate) each launch also runs in the interpreter first, on the same
               inputs; the launches whose float outputs differ are listed under the case.
--emulate-config N|all
               (with --emulate) autotuned kernels launch their config N (modulo the count of
               their configs, after pruning) instead of the interpreter's first; `all` runs
               each case once per N, 0 .. the largest config count it met - 1.
--skip-done FILE
               skips the cases an earlier run printed (its table, or its --json): a run cut
               by a device's time limit goes on in the next command. --json is rewritten
               after each case, so a run cut short leaves the cases it finished.
--save DIR     writes each case's outputs (torch.save) to DIR/<case>.pt; --compare DIR
               compares this run's outputs with a saved run's (e.g. tritium vs Triton).

Exit status 0 even when cases fail: the table is the result.
"""

import argparse
import collections
import contextlib
import importlib
import importlib.machinery
import importlib.util
import itertools
import json
import math
import os
import pathlib
import sys
import time
import traceback
import types

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]

CASES = []


def case(name, project):
    def register(fn):
        CASES.append((name, project, fn))
        return fn
    return register


class Skip(Exception):
    """The case cannot run here (e.g. it needs CUDA); not a failure."""


# ----------------------------------------------------------------------------- environment

def _prepare(src, device, impl):
    sys.path.insert(0, str(src))
    if device == "cpu":
        os.environ["TRITIUM_INTERPRET"] = "1"
    if impl == "tritium":
        import tritium
        tritium.use_as_triton(quiet=True)
        if device == "cpu":
            # No GPU: the driver names the target "cpu" (run_triton_suite.py does the same),
            # as Triton's driver on a machine without one has no CUDA target. fla asks it.
            from tritium import driver
            driver.driver.active.get_current_target = lambda: driver.GPUTarget("cpu", 0, 32)


def _package_without_init(name, src):
    """Registers package `name` (a folder of src) without running its __init__.py: vLLM's
    package __init__ files import its distributed runtime (zmq, ...), which no kernel here
    needs. The package's modules import from the folder as usual."""
    if name in sys.modules:
        return
    parent, _, leaf = name.rpartition(".")
    if parent:
        _package_without_init(parent, src) if parent not in sys.modules else None
    mod = types.ModuleType(name)
    mod.__path__ = [str(pathlib.Path(src, *name.split(".")))]
    mod.__package__ = name
    # a spec, so importlib.util.find_spec(name) answers (unsloth_zoo asks for "unsloth")
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    mod.__spec__.submodule_search_locations = mod.__path__
    sys.modules[name] = mod
    if parent:
        setattr(sys.modules[parent], leaf, mod)


# ------------------------------------------------------------------------------- helpers

def torch_mod():
    import torch
    return torch


def rnd(*shape, dtype=None, dev="cpu", scale=1.0, seed=None):
    torch = torch_mod()
    g = torch.Generator().manual_seed(seed if seed is not None else hash(shape) % 10007)
    t = torch.randn(*shape, generator=g, dtype=torch.float32) * scale
    return t.to(dtype or torch.float32).to(dev)


def fwd_bwd(fn, inputs, grad_seed=7):
    """Runs fn(*inputs) and backward with a fixed upstream gradient; returns (out, grads of
    the inputs that require grad)."""
    torch = torch_mod()
    xs = [x.detach().clone().requires_grad_(True) if isinstance(x, torch.Tensor) and
          x.is_floating_point() else x for x in inputs]
    out = fn(*xs)
    o = out[0] if isinstance(out, tuple) else out
    if o.dim() == 0:
        go = torch.ones_like(o)
    else:
        go = rnd(*o.shape, dtype=o.dtype, dev=o.device, seed=grad_seed)
    o.backward(go)
    return o.detach(), [x.grad for x in xs if isinstance(x, torch.Tensor) and x.is_floating_point()]


def close(label, got, ref, atol=1e-4, rtol=1e-4):
    """One comparison: (label, ok, max abs error)."""
    torch = torch_mod()
    if got is None or ref is None:
        return (label, got is None and ref is None, 0.0)
    got = got.detach().float().cpu()
    ref = ref.detach().float().cpu()
    if got.shape != ref.shape:
        return (label + f" shape {tuple(got.shape)} vs {tuple(ref.shape)}", False, float("inf"))
    err = (got - ref).abs()
    finite = torch.isfinite(ref)
    bad = ~torch.isclose(got, ref, atol=atol, rtol=rtol, equal_nan=True)
    return (label, not bool(bad.any()), float(err[finite].max()) if finite.any() else 0.0)


def compare_fwd_bwd(fn, ref, inputs, atol=1e-4, rtol=1e-4, names=None):
    o, gs = fwd_bwd(fn, inputs)
    ro, rgs = fwd_bwd(ref, inputs)
    res = [close("out", o, ro, atol, rtol)]
    for i, (g, rg) in enumerate(zip(gs, rgs)):
        res.append(close(f"grad{i}" if names is None else f"d{names[i]}", g, rg, atol, rtol))
    return res, [o] + gs


# ------------------------------------------------------------------------------ Liger cases

@case("liger.rms_norm", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    x, w = rnd(4, 3, 96, dev=dev), rnd(96, dev=dev, seed=2)

    def ref(x, w):
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        return x * r * w
    res, outs = compare_fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False),
                                ref, [x, w], names=["X", "W"])
    # the block (row_mode=False with many rows) kernel
    x2 = rnd(300, 64, dev=dev, seed=3)
    r2, o2 = compare_fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 1.0, "gemma", False, False),
                             lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * (w + 1.0),
                             [x2, rnd(64, dev=dev, seed=4)], names=["X(gemma,block)", "W(gemma,block)"])
    return res + [("block " + r[0], r[1], r[2]) for r in r2], outs + o2


@case("liger.layer_norm", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    x, w, b = rnd(5, 80, dev=dev), rnd(80, dev=dev, seed=2), rnd(80, dev=dev, seed=3)
    return compare_fwd_bwd(lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-5),
                           lambda x, w, b: torch.nn.functional.layer_norm(x, (80,), w, b, 1e-5),
                           [x, w, b], names=["X", "W", "B"])


@case("liger.cross_entropy", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    x = rnd(6, 200, dev=dev, scale=3.0)
    t = torch.tensor([3, 199, -100, 0, 57, 100], device=dev)

    def mine(x):
        return LigerCrossEntropyFunction.apply(x, t, None, -100, 0.0, 0.1, "mean")[0]

    def ref(x):
        return torch.nn.functional.cross_entropy(x, t, ignore_index=-100, label_smoothing=0.1)
    return compare_fwd_bwd(mine, ref, [x], names=["input"])


@case("liger.cross_entropy_softcap_zloss", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    x = rnd(5, 130, dev=dev, scale=4.0)
    t = torch.tensor([1, 2, 129, 64, -100], device=dev)

    def mine(x):
        return LigerCrossEntropyFunction.apply(x, t, None, -100, 1e-3, 0.0, "sum", 30.0)[0]

    def ref(x):
        s = 30.0 * torch.tanh(x / 30.0)
        valid = t != -100
        lse = torch.logsumexp(s[valid], -1)
        ce = torch.nn.functional.cross_entropy(s, t, ignore_index=-100, reduction="sum")
        return ce + 1e-3 * (lse ** 2).sum()
    return compare_fwd_bwd(mine, ref, [x], atol=1e-3, names=["input"])


@case("liger.fused_linear_cross_entropy", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction
    h, w = rnd(8, 32, dev=dev), rnd(100, 32, dev=dev, seed=2, scale=0.2)
    t = torch.tensor([1, 5, 99, -100, 0, 42, 7, 8], device=dev)

    def mine(h, w):
        return LigerFusedLinearCrossEntropyFunction.apply(h, w, t)[0]

    def ref(h, w):
        return torch.nn.functional.cross_entropy(h @ w.T, t, ignore_index=-100)
    return compare_fwd_bwd(mine, ref, [h, w], atol=1e-4, names=["input", "weight"])


def _rotate_half(x):
    torch = torch_mod()
    a, b = x.chunk(2, -1)
    return torch.cat((-b, a), -1)


@case("liger.rope", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.rope import LigerRopeFunction
    bsz, hq, hk, s, d = 2, 4, 2, 5, 16
    q, k = rnd(bsz, hq, s, d, dev=dev), rnd(bsz, hk, s, d, dev=dev, seed=2)
    ang = torch.arange(s, dtype=torch.float32)[:, None] * torch.arange(d // 2)[None] * 0.1
    ang = torch.cat([ang, ang], -1)
    cos, sin = ang.cos()[None].to(dev), ang.sin()[None].to(dev)

    def mine(q, k):
        qo, ko = LigerRopeFunction.apply(q, k, cos, sin)
        return torch.cat([qo.flatten(), ko.flatten()])

    def ref(q, k):
        c, s_ = cos[:, None], sin[:, None]
        return torch.cat([(q * c + _rotate_half(q) * s_).flatten(), (k * c + _rotate_half(k) * s_).flatten()])
    return compare_fwd_bwd(mine, ref, [q, k], names=["q", "k"])


@case("liger.qwen2vl_mrope", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.qwen2vl_mrope import LigerQwen2VLMRopeFunction
    bsz, hq, hk, s, d = 1, 2, 1, 4, 16
    section = [2, 3, 3]
    q, k = rnd(bsz, hq, s, d, dev=dev), rnd(bsz, hk, s, d, dev=dev, seed=2)
    # cos/sin repeat their first half (rotary tables do; the kernel reads only that half)
    cos, sin = (torch.cat([h, h], -1) for h in (rnd(3, bsz, s, d // 2, dev=dev, seed=3),
                                                rnd(3, bsz, s, d // 2, dev=dev, seed=4)))

    def ref(q, k):
        sec = section * 2
        c = torch.cat([m[i % 3] for i, m in enumerate(cos.split(sec, -1))], -1)[:, None]
        sn = torch.cat([m[i % 3] for i, m in enumerate(sin.split(sec, -1))], -1)[:, None]
        return torch.cat([(q * c + _rotate_half(q) * sn).flatten(), (k * c + _rotate_half(k) * sn).flatten()])

    def mine(q, k):
        qo, ko = LigerQwen2VLMRopeFunction.apply(q, k, cos, sin, section)
        return torch.cat([qo.flatten(), ko.flatten()])
    return compare_fwd_bwd(mine, ref, [q, k], names=["q", "k"])


@case("liger.swiglu", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    a, b = rnd(3, 70, dev=dev), rnd(3, 70, dev=dev, seed=2)
    return compare_fwd_bwd(lambda a, b: LigerSiLUMulFunction.apply(a, b),
                           lambda a, b: torch.nn.functional.silu(a) * b, [a, b], names=["a", "b"])


@case("liger.geglu", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.geglu import LigerGELUMulFunction
    a, b = rnd(3, 70, dev=dev), rnd(3, 70, dev=dev, seed=2)
    return compare_fwd_bwd(lambda a, b: LigerGELUMulFunction.apply(a, b),
                           lambda a, b: torch.nn.functional.gelu(a, approximate="tanh") * b, [a, b],
                           atol=1e-4, names=["a", "b"])


@case("liger.kl_div", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.kl_div import LigerKLDivLossFunction
    p = torch.log_softmax(rnd(4, 50, dev=dev), -1)
    q = torch.softmax(rnd(4, 50, dev=dev, seed=2), -1)
    return compare_fwd_bwd(lambda p: LigerKLDivLossFunction.apply(p, q, "batchmean", False),
                           lambda p: torch.nn.functional.kl_div(p, q, reduction="batchmean"), [p],
                           names=["y_pred"])


@case("liger.jsd", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.jsd import LigerJSDFunction
    x = torch.log_softmax(rnd(4, 40, dev=dev), -1)
    y = torch.log_softmax(rnd(4, 40, dev=dev, seed=2), -1)
    beta = 0.3

    def ref(x):
        p, q = y.exp(), x.exp()  # liger: input is the student (Q), target the teacher (P)
        m = beta * p + (1 - beta) * q
        loss = beta * (p * (y - m.log())).sum() + (1 - beta) * (q * (x - m.log())).sum()
        return loss / x.shape[0]
    return compare_fwd_bwd(lambda x: LigerJSDFunction.apply(x, y, None, beta), ref, [x],
                           names=["input"])


@case("liger.tvd", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.tvd import LigerTVDLossFunction
    p = torch.softmax(rnd(4, 40, dev=dev), -1)
    q = torch.softmax(rnd(4, 40, dev=dev, seed=2), -1)
    return compare_fwd_bwd(lambda p: LigerTVDLossFunction.apply(p, q, None, "batchmean"),
                           lambda p: 0.5 * (p - q).abs().sum() / p.shape[0], [p], names=["p"])


@case("liger.group_norm", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.group_norm import LigerGroupNormFunction
    x = rnd(2, 8, 12, dev=dev)
    w, b = rnd(8, dev=dev, seed=2), rnd(8, dev=dev, seed=3)
    return compare_fwd_bwd(lambda x, w, b: LigerGroupNormFunction.apply(x, w, b, 8, 4, 1e-5),
                           lambda x, w, b: torch.nn.functional.group_norm(x, 4, w, b, 1e-5),
                           [x, w, b], atol=1e-4, names=["X", "W", "B"])


@case("liger.softmax", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.softmax import LigerSoftmaxFunction
    x = rnd(3, 5, 77, dev=dev, scale=3.0)
    return compare_fwd_bwd(lambda x: LigerSoftmaxFunction.apply(x), lambda x: torch.softmax(x, -1), [x],
                           names=["x"])


@case("liger.dyt", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.dyt import LigerDyTFunction
    x = rnd(6, 48, dev=dev)
    alpha = torch.tensor([0.7], device=dev)
    g, b = rnd(48, dev=dev, seed=2), rnd(48, dev=dev, seed=3)
    if dev == "cpu":
        # the backward sizes its partial sums by torch.cuda's SM count: forward only here
        from liger_kernel.ops.dyt import liger_dyt_fwd
        y = liger_dyt_fwd(x, alpha, g, b)
        return [close("out (backward needs CUDA)", y, g * torch.tanh(alpha * x) + b)], [y]
    return compare_fwd_bwd(lambda x, a, g, b: LigerDyTFunction.apply(x, a, g, b),
                           lambda x, a, g, b: g * torch.tanh(a * x) + b, [x, alpha, g, b],
                           atol=1e-4, names=["x", "alpha", "gamma", "beta"])


@case("liger.fused_add_rms_norm", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
    x, r, w = rnd(5, 64, dev=dev), rnd(5, 64, dev=dev, seed=2), rnd(64, dev=dev, seed=3)

    def mine(x, r, w):
        y, s = LigerFusedAddRMSNormFunction.apply(x, r, w, 1e-6)
        return torch.cat([y.flatten(), s.flatten()])

    def ref(x, r, w):
        s = x + r
        y = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        return torch.cat([y.flatten(), s.flatten()])
    return compare_fwd_bwd(mine, ref, [x, r, w], names=["X", "R", "W"])


@case("liger.poly_norm", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.poly_norm import LigerPolyNormFunction
    x, w, b = rnd(4, 32, dev=dev), rnd(3, dev=dev, seed=2), rnd(1, dev=dev, seed=3)[0]

    def norm(v):
        return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6)

    def ref(x, w, b):
        return w[0] * norm(x ** 3) + w[1] * norm(x ** 2) + w[2] * norm(x) + b
    return compare_fwd_bwd(lambda x, w, b: LigerPolyNormFunction.apply(x, w, b, 1e-6, False), ref,
                           [x, w, b], atol=1e-3, names=["X", "W", "B"])


@case("liger.relu_squared", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.relu_squared import LigerReLUSquaredFunction
    x = rnd(7, 33, dev=dev)
    return compare_fwd_bwd(lambda x: LigerReLUSquaredFunction.apply(x), lambda x: torch.relu(x) ** 2, [x],
                           names=["x"])


@case("liger.sparsemax", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.sparsemax import LigerSparsemaxFunction
    x = rnd(4, 20, dev=dev, scale=2.0)

    def ref(x):
        z, _ = torch.sort(x, -1, descending=True)
        k = torch.arange(1, x.shape[-1] + 1, device=x.device, dtype=x.dtype)
        cs = z.cumsum(-1)
        support = (1 + k * z) > cs
        kz = support.sum(-1, keepdim=True)
        tau = (cs.gather(-1, kz - 1) - 1) / kz.to(x.dtype)
        return torch.clamp(x - tau, min=0)
    return compare_fwd_bwd(lambda x: LigerSparsemaxFunction.apply(x, -1), ref, [x], names=["x"])


@case("liger.llama4_rope", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.llama4_rope import LigerLlama4RopeFunction
    b, s, h, d = 1, 4, 2, 16
    q, k = rnd(b, s, h, d, dev=dev), rnd(b, s, h, d, dev=dev, seed=2)
    ang = torch.arange(s)[:, None] * torch.arange(d // 2)[None] * 0.1
    freqs = torch.polar(torch.ones_like(ang, dtype=torch.float32), ang.float()).to(dev)

    def rot(x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs[None, :, None]).flatten(3)

    def mine(q, k):
        qo, ko = LigerLlama4RopeFunction.apply(q, k, freqs)
        return torch.cat([qo.flatten(), ko.flatten()])
    return compare_fwd_bwd(mine, lambda q, k: torch.cat([rot(q).flatten(), rot(k).flatten()]), [q, k],
                           names=["q", "k"])


@case("liger.multi_token_attention", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.multi_token_attention import LigerMultiTokenAttentionFunction
    B, C, L = 1, 2, 8
    scores = rnd(B, C, L, L, dev=dev)
    w = rnd(C, C, 3, 3, dev=dev, seed=2, scale=0.3)

    def ref(s, w):
        mask = torch.tril(torch.ones(L, L, dtype=torch.bool, device=s.device))
        p = torch.softmax(s.masked_fill(~mask, float("-inf")), -1)
        o = torch.nn.functional.conv2d(p, w, padding=1)
        return o.masked_fill(~mask, 0.0)
    return compare_fwd_bwd(lambda s, w: LigerMultiTokenAttentionFunction.apply(s, w, None, 1, 1),
                           ref, [scores, w], atol=1e-4, names=["scores", "weight"])


@case("liger.fused_neighborhood_attention", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.fused_neighborhood_attention import LigerFusedNeighborhoodAttentionFunction
    b, h, s, d, ks = 1, 2, 16, 16, 7
    q, k, v = (rnd(b, h, s, d, dev=dev, seed=i) for i in (1, 2, 3))

    def ref(q, k, v):
        i = torch.arange(s, device=q.device)
        # each position sees those within kernel_size // 2 of it, clipped at the ends
        mask = (i[None] - i[:, None]).abs() <= ks // 2
        a = (q @ k.transpose(-1, -2)) / math.sqrt(d)
        return torch.softmax(a.masked_fill(~mask, float("-inf")), -1) @ v
    return compare_fwd_bwd(lambda q, k, v: LigerFusedNeighborhoodAttentionFunction.apply(q, k, v, ks, 1),
                           ref, [q, k, v], atol=3e-3, rtol=3e-3, names=["q", "k", "v"])  # tf32 dots


@case("liger.fused_moe", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.fused_moe import LigerFusedMoEFunction
    T, H, I, E, K = 6, 32, 16, 4, 2
    x = rnd(T, H, dev=dev, scale=0.5)
    gu = rnd(E, 2 * I, H, dev=dev, seed=2, scale=0.3)
    dn = rnd(E, H, I, dev=dev, seed=3, scale=0.3)
    idx = torch.tensor([[0, 1], [2, 3], [1, 0], [3, 2], [0, 3], [1, 2]], device=dev, dtype=torch.int32)
    wts = torch.softmax(rnd(T, K, dev=dev, seed=4), -1)

    def ref(x, gu, dn):
        out = torch.zeros_like(x)
        for t in range(T):
            for j in range(K):
                e = int(idx[t, j])
                h = gu[e] @ x[t]
                a = torch.nn.functional.silu(h[:I]) * h[I:]
                out[t] = out[t] + wts[t, j] * (dn[e] @ a)
        return out
    return compare_fwd_bwd(lambda x, gu, dn: LigerFusedMoEFunction.apply(x, gu, dn, idx, wts), ref,
                           [x, gu, dn], atol=3e-3, rtol=3e-3, names=["x", "gate_up", "down"])  # tf32 dots


@case("liger.modulated_rms_norm", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.modulated_rms_norm import LigerModulatedRMSNormFunction
    x, w = rnd(2, 3, 64, dev=dev), rnd(64, dev=dev, seed=2)
    sc, sh = rnd(2, 64, dev=dev, seed=3) * 0.2, rnd(2, 64, dev=dev, seed=4)

    def ref(x, w, sc, sh):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        return (1 + sc[:, None]) * y + sh[:, None]
    return compare_fwd_bwd(lambda x, w, sc, sh: LigerModulatedRMSNormFunction.apply(x, w, sc, sh, 1e-6, 0.0, "llama", False),
                           ref, [x, w, sc, sh], atol=1e-4, names=["X", "W", "scale", "shift"])


@case("liger.embedding", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.experimental.embedding import LigerEmbeddingFunction
    emb = rnd(50, 24, dev=dev)
    idx = torch.tensor([[1, 7, 7], [49, 0, 1]], device=dev)
    return compare_fwd_bwd(lambda e: LigerEmbeddingFunction.apply(e, idx), lambda e: e[idx], [emb],
                           names=["embeddings"])


@case("liger.fused_linear_jsd", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.fused_linear_jsd import LigerFusedLinearJSDFunction
    hs, ws = rnd(6, 32, dev=dev), rnd(80, 32, dev=dev, seed=2, scale=0.3)
    ht, wt = rnd(6, 16, dev=dev, seed=3), rnd(80, 16, dev=dev, seed=4, scale=0.3)
    beta, temp = 0.4, 2.0

    def ref(hs, ws):
        x = torch.log_softmax(hs @ ws.T / temp, -1)  # student (Q)
        y = torch.log_softmax(ht @ wt.T / temp, -1)  # teacher (P)
        p, q = y.exp(), x.exp()
        m = beta * p + (1 - beta) * q
        loss = beta * (p * (y - m.log())).sum() + (1 - beta) * (q * (x - m.log())).sum()
        return loss / x.shape[0]
    return compare_fwd_bwd(lambda hs, ws: LigerFusedLinearJSDFunction.apply(hs, ws, ht, wt, None, beta, -100, temp),
                           ref, [hs, ws], atol=1e-4, names=["student_input", "student_weight"])


# --------------------------------------------------------------------------------- fla cases

@case("fla.utils.cumsum", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops.utils.cumsum import chunk_local_cumsum
    g = rnd(2, 100, 3, dev=dev)
    got = chunk_local_cumsum(g, chunk_size=16)
    ref = torch.cat([c.cumsum(1) for c in g.split(16, 1)], 1)
    rev = chunk_local_cumsum(g, chunk_size=16, reverse=True)
    rref = torch.cat([c.flip(1).cumsum(1).flip(1) for c in g.split(16, 1)], 1)
    return [close("cumsum", got, ref), close("reverse cumsum", rev, rref)], [got, rev]


@case("fla.utils.solve_tril", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops.utils.solve_tril import solve_tril
    B, T, H, BT = 1, 64, 2, 64
    A = rnd(B, T, H, BT, dev=dev, scale=0.1)
    mask = torch.tril(torch.ones(BT, BT, dtype=torch.bool, device=dev), -1)
    Ab = A.view(B, T // BT, BT, H, BT).permute(0, 1, 3, 2, 4)
    Ab = Ab.masked_fill(~mask, 0)
    got = solve_tril(A.view(B, T, H, BT).masked_fill(
        ~mask.repeat(T // BT, 1)[None, :, None, :], 0), output_dtype=torch.float32)
    eye = torch.eye(BT, device=dev)
    ref = torch.linalg.inv(eye + Ab).permute(0, 1, 3, 2, 4).reshape(B, T, H, BT)
    return [close("inverse", got, ref, atol=1e-3, rtol=1e-3)], [got]


@case("fla.simple_gla.chunk", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops.simple_gla import chunk_simple_gla
    B, T, H, K, V = 1, 40, 2, 16, 16
    q, k, v = (rnd(B, T, H, D, dev=dev, seed=s, scale=0.5) for s, D in ((1, K), (2, K), (3, V)))
    g = -torch.rand(B, T, H, generator=torch.Generator().manual_seed(4)).to(dev) * 0.2
    scale = K ** -0.5

    def ref(q, k, v, g):
        o = torch.zeros(B, T, H, V, device=q.device)
        S = torch.zeros(B, H, K, V, device=q.device)
        outs = []
        for t in range(T):
            S = S * g[:, t, :, None, None].exp() + k[:, t, :, :, None] * v[:, t, :, None, :]
            outs.append((q[:, t, :, :, None] * S).sum(-2) * scale)
        return torch.stack(outs, 1)

    def mine(q, k, v, g):
        return chunk_simple_gla(q, k, v, g, scale=scale)[0]
    return compare_fwd_bwd(mine, ref, [q, k, v, g], atol=5e-3, rtol=5e-3, names=["q", "k", "v", "g"])  # tf32 dots


@case("fla.gla.chunk", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops.gla import chunk_gla
    B, T, H, K, V = 1, 40, 2, 16, 16
    q, k, v = (rnd(B, T, H, D, dev=dev, seed=s, scale=0.5) for s, D in ((1, K), (2, K), (3, V)))
    g = torch.nn.functional.logsigmoid(rnd(B, T, H, K, dev=dev, seed=5)) * 0.2
    scale = K ** -0.5

    def ref(q, k, v, g):
        S = torch.zeros(B, H, K, V, device=q.device)
        outs = []
        for t in range(T):
            S = S * g[:, t, :, :, None].exp() + k[:, t, :, :, None] * v[:, t, :, None, :]
            outs.append((q[:, t, :, :, None] * S).sum(-2) * scale)
        return torch.stack(outs, 1)

    def mine(q, k, v, g):
        return chunk_gla(q, k, v, g, scale=scale)[0]
    return compare_fwd_bwd(mine, ref, [q, k, v, g], atol=5e-3, rtol=5e-3, names=["q", "k", "v", "g"])  # tf32 dots


@case("fla.gla.chunk_initial_state", "fla")
def _(dev):
    # the state recurrence started from a given state (`b_h += tl.load(h0)`: a K loop's
    # accumulator loaded before it) and its final state returned; backward into h0 too
    torch = torch_mod()
    from fla.ops.gla import chunk_gla
    B, T, H, K, V = 1, 150, 2, 16, 16  # three chunks of 64
    q, k, v = (rnd(B, T, H, D, dev=dev, seed=s, scale=0.5) for s, D in ((1, K), (2, K), (3, V)))
    g = torch.nn.functional.logsigmoid(rnd(B, T, H, K, dev=dev, seed=5)) * 0.2
    h0 = rnd(B, H, K, V, dev=dev, seed=6, scale=0.5)
    scale = K ** -0.5

    def ref(q, k, v, g, h0):
        S, outs = h0, []
        for t in range(T):
            S = S * g[:, t, :, :, None].exp() + k[:, t, :, :, None] * v[:, t, :, None, :]
            outs.append((q[:, t, :, :, None] * S).sum(-2) * scale)
        return torch.cat([torch.stack(outs, 1).flatten(), S.flatten()])

    def mine(q, k, v, g, h0):
        o, hT = chunk_gla(q, k, v, g, scale=scale, initial_state=h0, output_final_state=True)
        return torch.cat([o.flatten(), hT.flatten()])
    return compare_fwd_bwd(mine, ref, [q, k, v, g, h0], atol=5e-3, rtol=5e-3,  # tf32 dots
                           names=["q", "k", "v", "g", "h0"])


# fla's other ops, each against the project's own naive (recurrent or parallel) version

def _first(x):
    return x[0] if isinstance(x, tuple) else x


def _fla_qkv(T=50, H=2, K=32, V=32, dev="cpu", dtype=None, l2k=False):
    torch = torch_mod()
    q, k, v = (rnd(1, T, H, D, dev=dev, seed=s, scale=0.5) for s, D in ((1, K), (2, K), (3, V)))
    if l2k:  # the delta rules want unit keys
        q, k = (torch.nn.functional.normalize(x, dim=-1) for x in (q, k))
    if dtype is not None:
        q, k, v = (x.to(dtype) for x in (q, k, v))
    return q, k, v


def _fla_case(mine, ref, inputs, names, atol=3e-3):
    return compare_fwd_bwd(lambda *a: _first(mine(*a)).float(), lambda *a: _first(ref(*a)).float(),
                           inputs, atol=atol, rtol=atol, names=names)


@case("fla.gated_delta_rule.chunk", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import chunk_gated_delta_rule
    from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule
    q, k, v = _fla_qkv(dev=dev, l2k=True)
    beta = torch.sigmoid(rnd(1, 50, 2, dev=dev, seed=4))
    g = torch.nn.functional.logsigmoid(rnd(1, 50, 2, dev=dev, seed=5)) * 0.3
    return _fla_case(lambda q, k, v, g, b: chunk_gated_delta_rule(q, k, v, g, b, scale=0.2),
                     lambda q, k, v, g, b: naive_recurrent_gated_delta_rule(q, k, v, b, g, scale=0.2),
                     [q, k, v, g, beta], ["q", "k", "v", "g", "beta"])


@case("fla.gated_delta_rule.fused_recurrent", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import fused_recurrent_gated_delta_rule
    from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule
    q, k, v = _fla_qkv(dev=dev, l2k=True)
    beta = torch.sigmoid(rnd(1, 50, 2, dev=dev, seed=4))
    g = torch.nn.functional.logsigmoid(rnd(1, 50, 2, dev=dev, seed=5)) * 0.3
    o = fused_recurrent_gated_delta_rule(q, k, v, g=g, beta=beta, scale=0.2)[0]
    r = naive_recurrent_gated_delta_rule(q, k, v, beta, g, scale=0.2)[0]
    return [close("o (forward only)", o, r, atol=1e-4)], [o]


@case("fla.delta_rule.chunk", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import chunk_delta_rule
    from fla.ops.delta_rule.naive import delta_rule_recurrence
    # the chunked delta rule takes bf16 only
    q, k, v = _fla_qkv(dev=dev, l2k=True, dtype=torch.bfloat16)
    beta = torch.sigmoid(rnd(1, 50, 2, dev=dev, seed=4)).to(torch.bfloat16)
    t = lambda x: x.transpose(1, 2)  # noqa: E731 - the naive version is [B, H, T, D]
    return _fla_case(lambda q, k, v, b: chunk_delta_rule(q, k, v, b),
                     lambda q, k, v, b: t(delta_rule_recurrence(t(q), t(k), t(v), t(b))[0]),
                     [q, k, v, beta], ["q", "k", "v", "beta"], atol=2e-2)


@case("fla.delta_rule.chunk_initial_state", "fla")
def _(dev):
    # from a given state to the final one (fwd_h's `b_h += tl.load(h0)`: a K loop's
    # accumulator loaded before it; dhu's final-state gradient `b_dh += tl.load(dht)`)
    torch = torch_mod()
    from fla.ops import chunk_delta_rule
    from fla.ops.delta_rule.naive import delta_rule_recurrence
    q, k, v = _fla_qkv(T=150, dev=dev, l2k=True, dtype=torch.bfloat16)  # three chunks of 64
    beta = torch.sigmoid(rnd(1, 150, 2, dev=dev, seed=4)).to(torch.bfloat16)
    h0 = rnd(1, 2, 32, 32, dev=dev, seed=6, scale=0.3)
    t = lambda x: x.transpose(1, 2)  # noqa: E731 - the naive version is [B, H, T, D]

    def both(o, hT):
        return torch.cat([o.float().flatten(), hT.float().flatten()])
    return _fla_case(
        lambda q, k, v, b, h0: both(*chunk_delta_rule(q, k, v, b, initial_state=h0, output_final_state=True)),
        lambda q, k, v, b, h0: both(*(lambda o, hT: (t(o), hT))(
            *delta_rule_recurrence(t(q), t(k), t(v), t(b), initial_state=h0, output_final_state=True))),
        # the final state's gradient reaches dk through dh stored in bf16 (k's dtype): 6e-2
        [q, k, v, beta, h0], ["q", "k", "v", "beta", "h0"], atol=8e-2)


@case("fla.kda.chunk", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import chunk_kda
    from fla.ops.kda.naive import naive_recurrent_kda
    q, k, v = _fla_qkv(dev=dev, l2k=True)
    beta = torch.sigmoid(rnd(1, 50, 2, dev=dev, seed=4))
    g = torch.nn.functional.logsigmoid(rnd(1, 50, 2, 32, dev=dev, seed=5)) * 0.3
    return _fla_case(lambda q, k, v, g, b: chunk_kda(q, k, v, g, b, scale=0.2),
                     lambda q, k, v, g, b: naive_recurrent_kda(q, k, v, g, b, scale=0.2),
                     [q, k, v, g, beta], ["q", "k", "v", "g", "beta"])


@case("fla.linear_attn", "fla")
def _(dev):
    from fla.ops import chunk_linear_attn, fused_chunk_linear_attn, fused_recurrent_linear_attn
    from fla.ops.linear_attn.naive import naive_recurrent_linear_attn
    q, k, v = _fla_qkv(dev=dev)
    res, outs = [], []
    for label, fn in (("chunk", chunk_linear_attn), ("fused_chunk", fused_chunk_linear_attn),
                      ("fused_recurrent", fused_recurrent_linear_attn)):
        r, o = _fla_case(lambda q, k, v: fn(q, k, v, normalize=False),
                         lambda q, k, v: naive_recurrent_linear_attn(q, k, v), [q, k, v], ["q", "k", "v"])
        res += [(f"{label} {c[0]}", c[1], c[2]) for c in r]
        outs += o
    return res, outs


@case("fla.retention", "fla")
def _(dev):
    from fla.ops import chunk_retention, fused_recurrent_retention, parallel_retention
    from fla.ops.retention.naive import naive_retention
    q, k, v = _fla_qkv(dev=dev)
    t = lambda x: x.transpose(1, 2)  # noqa: E731
    res, outs = [], []
    for label, fn in (("chunk", chunk_retention), ("parallel", parallel_retention),
                      ("fused_recurrent", fused_recurrent_retention)):
        r, o = _fla_case(lambda q, k, v: fn(q, k, v), lambda q, k, v: t(naive_retention(t(q), t(k), t(v))),
                         [q, k, v], ["q", "k", "v"])
        res += [(f"{label} {c[0]}", c[1], c[2]) for c in r]
        outs += o
    return res, outs


@case("fla.attn.parallel", "fla")
def _(dev):
    from fla.ops import parallel_attn
    from fla.ops.attn.naive import naive_parallel_attn
    q, k, v = _fla_qkv(T=70, H=2, K=32, V=32, dev=dev)
    return _fla_case(lambda q, k, v: parallel_attn(q, k, v, scale=0.3),
                     lambda q, k, v: naive_parallel_attn(q, k, v, scale=0.3), [q, k, v], ["q", "k", "v"])


@case("fla.forgetting_attn", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import parallel_forgetting_attn
    from fla.ops.forgetting_attn.naive import naive_forgetting_attn
    q, k, v = _fla_qkv(T=70, dev=dev)
    g = torch.nn.functional.logsigmoid(rnd(1, 70, 2, dev=dev, seed=5))
    return _fla_case(lambda q, k, v, g: parallel_forgetting_attn(q, k, v, g, scale=0.3),
                     lambda q, k, v, g: naive_forgetting_attn(q, k, v, g, scale=0.3),
                     [q, k, v, g], ["q", "k", "v", "g"])


@case("fla.hgrn.fused_recurrent", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import fused_recurrent_hgrn
    from fla.ops.hgrn.naive import naive_recurrent_hgrn
    x = rnd(2, 40, 48, dev=dev)
    g = torch.nn.functional.logsigmoid(rnd(2, 40, 48, dev=dev, seed=2))
    return _fla_case(fused_recurrent_hgrn, naive_recurrent_hgrn, [x, g], ["x", "g"], atol=1e-4)


@case("fla.gla.fused_recurrent", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops import fused_recurrent_gla, fused_recurrent_simple_gla
    from fla.ops.gla.naive import naive_recurrent_gla
    from fla.ops.simple_gla.naive import naive_recurrent_simple_gla
    q, k, v = _fla_qkv(dev=dev)
    gk = torch.nn.functional.logsigmoid(rnd(1, 50, 2, 32, dev=dev, seed=5)) * 0.3
    g = torch.nn.functional.logsigmoid(rnd(1, 50, 2, dev=dev, seed=6)) * 0.3
    r1, o1 = _fla_case(lambda q, k, v, gk: fused_recurrent_gla(q, k, v, gk=gk),
                       lambda q, k, v, gk: naive_recurrent_gla(q, k, v, gk), [q, k, v, gk],
                       ["q", "k", "v", "gk"], atol=1e-3)
    r2, o2 = _fla_case(lambda q, k, v, g: fused_recurrent_simple_gla(q, k, v, g=g, scale=0.2),
                       lambda q, k, v, g: naive_recurrent_simple_gla(q, k, v, g, scale=0.2), [q, k, v, g],
                       ["q", "k", "v", "g"], atol=1e-3)
    return [("gla " + c[0], c[1], c[2]) for c in r1] + [("simple_gla " + c[0], c[1], c[2]) for c in r2], o1 + o2


# -------------------------------------------------------------------------------- vLLM cases

def _vllm_custom_ops():
    """What vLLM's Python asks of its compiled ops (`torch.ops._C`, which the corpus lacks) on
    a CUDA machine before it runs a Triton kernel: whether CUTLASS kernels exist (no: the
    cases test the Triton paths) and the device's shared memory per block."""
    torch = torch_mod()
    return dict(cutlass_scaled_mm_supports_fp8=lambda capability: False,
                cutlass_scaled_mm_supports_block_fp8=lambda capability: False,
                cutlass_group_gemm_supported=lambda capability: False,
                get_max_shared_memory_per_block_device_attribute=(
                    lambda gpu=0: torch.cuda.get_device_properties(gpu).shared_memory_per_block_optin))


def _vllm_packages(src):
    if "vllm._C_stable_libtorch" not in sys.modules and not any((pathlib.Path(src) / "vllm").glob("_C_stable_libtorch*.so")):
        # On a CUDA machine vLLM's platform module imports its compiled ops at its top; the
        # corpus holds the Python files only, and no case calls those ops: an empty module
        # (a name looked up in it raises, so a case that needs one fails visibly).
        sys.modules["vllm._C_stable_libtorch"] = types.ModuleType("vllm._C_stable_libtorch")
    if ARGS.device == "cuda" and "vllm._custom_ops" not in sys.modules:
        # its functions call torch.ops._C; those asked before a Triton kernel answer here
        _stub_modules(["vllm._custom_ops"], **_vllm_custom_ops())
    if ARGS.device == "cpu":
        # vLLM's platform without a GPU ("unspecified") names no device and counts no SMs;
        # its kernels' wrappers ask for both (config-file names, persistent grids)
        from vllm.platforms import current_platform
        for attr, value in (("get_device_name", lambda *a, **k: "cpu"),
                            ("num_compute_units", lambda *a, **k: 4)):
            try:
                getattr(current_platform, attr)(0)
            except NotImplementedError:
                setattr(current_platform, attr, value)
    for p in ("vllm.model_executor", "vllm.model_executor.layers",
              "vllm.model_executor.layers.fused_moe", "vllm.model_executor.layers.quantization",
              "vllm.model_executor.layers.quantization.utils",
              "vllm.model_executor.layers.quantization.compressed_tensors"):
        _package_without_init(p, src)


class _AnythingMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


class _Anything(metaclass=_AnythingMeta):
    """What a stubbed module hands out for any name: a class that can be called,
    subclassed, used as a decorator and read for any attribute."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return args[0] if len(args) == 1 and callable(args[0]) and not kwargs else _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __class_getitem__(cls, item):
        return cls


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything


def _stub_modules(names, **given):
    """Stands in for vLLM modules that the file under test imports at its top but whose
    import needs vLLM's whole runtime (transformers, huggingface_hub, its C++ ops): the
    names the test path calls are `given`, any other name is a stand-in never called."""
    saved = {}
    for name in names:
        saved[name] = sys.modules.get(name)
        mod = _StubModule(name)
        for k, v in given.items():
            setattr(mod, k, v)
        sys.modules[name] = mod
    return saved


def import_project_module(name):
    """Imports a fetched project's module with the stand-ins the cases use (static_compare.py
    imports the kernels the same way under the real Triton)."""
    dev = getattr(ARGS, "device", "cpu")
    if name.startswith("mamba_ssm."):
        return _mamba(name)
    if name.startswith("flash_attn."):
        with _cuda_host(dev):  # flash-attn's layer_norm asks the device's warp size at import
            return _flash(name)
    if name.startswith("sglang."):
        if name.startswith("sglang.kernels.ops.mamba.") and "sglang.kernels.jit.utils" not in sys.modules:
            _package_without_init("sglang.kernels.jit", ARGS.src)
            _stub_modules(["sglang.kernels.jit.utils"], is_arch_support_pdl=lambda *a, **k: False)
        if name.startswith("sglang.kernels.ops.lora.") and "sglang.srt.lora.utils" not in sys.modules:
            _package_without_init("sglang.srt.lora", ARGS.src)
            _stub_modules(["sglang.srt.lora.utils"])
        return _sglang(name)
    if name.startswith("unsloth."):
        return _unsloth(name, dev)
    if name.startswith("triton_kernels."):
        return _triton_kernels(name)
    if name.startswith("xformers."):
        return _xformers(name)
    if name.startswith("flashinfer.fused_moe."):
        return _flashinfer_sm12x(name)
    if name.startswith(("flashinfer.experimental.", "flashinfer.kda_kernels.")):
        return _flashinfer_sub(name)
    if name.startswith("flashinfer."):
        return _flashinfer(name)
    if name.startswith("deepspeed."):
        return _deepspeed(name)
    if name.startswith("flag_gems."):
        _flag_gems(dev)
        return importlib.import_module(name)
    if name.startswith("hopper."):  # FlagGems' per-architecture ops, imported by that name
        # (the cases import them through flag_gems on an sm_90 device; here the one file
        # is loaded under its name, without the package's other ops)
        if name in sys.modules:
            return sys.modules[name]
        _flag_gems(dev)
        path = os.path.join(ARGS.src, "flag_gems", "runtime", "backend", "_nvidia", *name.split("."))
        for i, pkg in enumerate(name.split(".")[:-1]):
            pkg_name = ".".join(name.split(".")[:i + 1])
            if pkg_name not in sys.modules:
                sys.modules[pkg_name] = types.ModuleType(pkg_name)
                sys.modules[pkg_name].__path__ = []
        spec = importlib.util.spec_from_file_location(name, path + ".py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod
    if name.startswith("gemlite."):
        _gemlite(dev)
        return importlib.import_module(name)
    if name.startswith("transformer_engine."):
        return _te(name)
    if name.startswith("vllm."):
        _vllm_packages(ARGS.src)
    fmoe = "vllm.model_executor.layers.fused_moe."
    if name == fmoe + "fused_moe" and name not in sys.modules:
        # fused_moe.py's top imports vLLM's config (transformers, huggingface_hub) through
        # these; the kernel's launch path calls only the three functions given
        _stub_modules([fmoe + "modular_kernel", fmoe + "activation", fmoe + "config",
                       fmoe + "moe_align_block_size", fmoe + "utils", "vllm._custom_ops"],
                      enable_swap_ab=lambda bm, bn: False,
                      warn_if_moe_use_td_ineffective=lambda *a, **k: None,
                      resolve_moe_use_td=lambda: bool(int(os.environ.get("REALK_MOE_TD", "0"))),
                      **(_vllm_custom_ops() if ARGS.device == "cuda" else {}))
    if name in ("vllm.model_executor.layers.lightning_attn",
                "vllm.model_executor.layers.mamba.ops.mamba_ssm") and \
            "vllm.v1.attention.backends.utils" not in sys.modules:
        # the attention backends' utils (vLLM's config again): two constants are read
        _stub_modules(["vllm.v1.attention.backends.utils"], PAD_SLOT_ID=-1, NULL_BLOCK_ID=0)
    return importlib.import_module(name)


def _ref_attention(q, k, v, scale, causal):
    torch = torch_mod()
    a = (q.float() @ k.float().transpose(-1, -2)) * scale
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        m = torch.ones(L, S, dtype=torch.bool, device=q.device).tril(S - L)
        a = a.masked_fill(~m, float("-inf"))
    return torch.softmax(a, -1) @ v.float()


@case("vllm.fused_moe_kernel", "vllm")
def _(dev):
    return _fused_moe(dev, td=False)


@case("vllm.fused_moe_kernel_tensor_descriptor", "vllm")
def _(dev):
    # VLLM_TRITON_USE_TD's path: the kernel makes tensor descriptors and gathers rows
    return _fused_moe(dev, td=True)


def _fused_moe(dev, td):
    torch = torch_mod()
    os.environ["REALK_MOE_TD"] = "1" if td else "0"
    fm = import_project_module("vllm.model_executor.layers.fused_moe.fused_moe")
    M, K, N, E, topk = 5, 64, 32, 4, 2
    A = rnd(M, K, dev=dev, dtype=torch.float16, scale=0.5)
    W = rnd(E, N, K, dev=dev, dtype=torch.float16, seed=2, scale=0.2)
    topk_ids = torch.tensor([[0, 1], [2, 3], [1, 1], [3, 0], [2, 2]], device=dev, dtype=torch.int32)
    topk_w = torch.rand(M, topk, generator=torch.Generator().manual_seed(3)).to(dev)
    BM = 16
    # the block alignment vLLM's moe_align_block_size computes (a CUDA op there), made here
    flat = topk_ids.flatten()
    sorted_ids, expert_ids = [], []
    for e in range(E):
        idx = (flat == e).nonzero().flatten().tolist()
        for s in range(0, max(len(idx), 1) if idx else 0, BM):
            chunk = idx[s:s + BM]
            sorted_ids += chunk + [flat.numel()] * (BM - len(chunk))
            expert_ids.append(e)
    sorted_ids = torch.tensor(sorted_ids, device=dev, dtype=torch.int32)
    expert_ids = torch.tensor(expert_ids, device=dev, dtype=torch.int32)
    ntp = torch.tensor([sorted_ids.numel()], device=dev, dtype=torch.int32)
    C = torch.zeros(M, topk, N, device=dev, dtype=torch.float16)
    config = {"BLOCK_SIZE_M": BM, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}
    fm.invoke_fused_moe_triton_kernel(A, W, C, None, None, topk_w, sorted_ids, expert_ids, ntp,
                                      True, topk, config, compute_type=tl_dtype("float16"),
                                      use_fp8_w8a8=False, use_int8_w8a8=False,
                                      use_int8_w8a16=False, use_int4_w4a16=False,
                                      per_channel_quant=False, block_shape=None)
    ref = torch.stack([(A.float() @ W[topk_ids[:, j]].float().transpose(-1, -2).diagonal(dim1=0, dim2=0).T
                        if False else torch.einsum("mk,mnk->mn", A.float(), W[topk_ids[:, j].long()].float()))
                       * topk_w[:, j:j + 1] for j in range(topk)], 1)
    return [close("C", C, ref, atol=2e-2, rtol=2e-2)], [C]


def tl_dtype(name):
    import triton.language as tl
    return getattr(tl, name)


@case("vllm.triton_decode_attention", "vllm")
def _(dev):
    torch = torch_mod()
    from vllm.v1.attention.ops import triton_decode_attention as da
    B, H, Hk, D, page, seq = 2, 4, 2, 32, 16, [20, 37]
    nblocks = 8
    q = rnd(B, H, D, dev=dev)
    kv = rnd(nblocks * page, Hk, D, dev=dev, seed=2)
    vv = rnd(nblocks * page, Hk, D, dev=dev, seed=3)
    k_buf, v_buf = kv.view(nblocks, page, Hk, D), vv.view(nblocks, page, Hk, D)
    req_to_token = torch.tensor([[3, 1, 0, 0], [2, 5, 7, 4]], device=dev, dtype=torch.int32)
    seqlens = torch.tensor(seq, device=dev, dtype=torch.int32)
    o = torch.zeros(B, H, D, device=dev)
    lse = torch.zeros(B, H, device=dev)
    splits = 4
    attn_logits = torch.empty(B, H, splits, D + 1, device=dev)
    scale = D ** -0.5
    da.decode_attention_fwd(q, k_buf, v_buf, o, lse, req_to_token, seqlens, attn_logits, splits,
                            scale, page_size=page)
    refs = []
    for b in range(B):
        blocks = req_to_token[b].long()
        kk = k_buf[blocks].reshape(-1, Hk, D)[:seq[b]].transpose(0, 1).repeat_interleave(H // Hk, 0)
        vvv = v_buf[blocks].reshape(-1, Hk, D)[:seq[b]].transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(q[b][:, None], kk, vvv, scale, False)[:, 0])
    return [close("o", o, torch.stack(refs), atol=3e-3, rtol=3e-3)], [o]  # tf32 dots


@case("vllm.triton_prefill_attention", "vllm")
def _(dev):
    torch = torch_mod()
    from vllm.v1.attention.ops import triton_prefill_attention as pa
    H, Hk, D, lens = 4, 2, 32, [7, 19]
    T = sum(lens)
    q, k, v = rnd(T, H, D, dev=dev), rnd(T, Hk, D, dev=dev, seed=2), rnd(T, Hk, D, dev=dev, seed=3)
    o = torch.zeros_like(q)
    starts = torch.tensor([0, lens[0]], device=dev, dtype=torch.int32)
    blens = torch.tensor(lens, device=dev, dtype=torch.int32)
    pa.context_attention_fwd(q, k, v, o, starts, blens, max(lens), is_causal=True)
    refs = []
    for s, n in zip([0, lens[0]], lens):
        qq = q[s:s + n].transpose(0, 1)
        kk = k[s:s + n].transpose(0, 1).repeat_interleave(H // Hk, 0)
        vv = v[s:s + n].transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(qq, kk, vv, D ** -0.5, True).transpose(0, 1))
    return [close("o", o, torch.cat(refs), atol=3e-3, rtol=3e-3)], [o]  # tf32 dots


@case("vllm.prefix_prefill", "vllm")
def _(dev):
    # Prefill over a paged KV cache (the context) plus the new tokens, causal: _fwd_kernel's
    # context loop is tl.range(..., loop_unroll_factor=4) over BLOCK_SIZE (32) tokens a step;
    # contexts of 37 and 150 tokens give 2 and 5 steps (none and one unrolled group).
    torch = torch_mod()
    from vllm.v1.attention.ops import prefix_prefill as pp
    H, Hk, D, page, x = 4, 2, 64, 16, 8
    ctx, new = [37, 150], [5, 20]
    B = len(ctx)
    pages = [(c + page - 1) // page for c in ctx]
    nblocks = sum(pages) + 1
    perm = torch.randperm(nblocks, generator=torch.Generator().manual_seed(5))
    b_loc = torch.zeros(B, max(pages), dtype=torch.int32)
    k_cache = torch.zeros(nblocks, Hk, D // x, page, x, dtype=torch.float16)
    v_cache = torch.zeros(nblocks, Hk, D, page, dtype=torch.float16)
    T = sum(new)
    q = rnd(T, H, D, seed=1).half()
    k, v = rnd(T, Hk, D, seed=2).half(), rnd(T, Hk, D, seed=3).half()
    used, keys, values = 0, [], []
    for b in range(B):
        kc, vc = rnd(ctx[b], Hk, D, seed=10 + b).half(), rnd(ctx[b], Hk, D, seed=20 + b).half()
        for t in range(ctx[b]):
            if t % page == 0:
                b_loc[b, t // page] = perm[used]
                used += 1
            blk, slot = int(b_loc[b, t // page]), t % page
            k_cache[blk, :, :, slot, :] = kc[t].view(Hk, D // x, x)
            v_cache[blk, :, :, slot] = vc[t]
        keys.append(kc)
        values.append(vc)
    starts = torch.tensor([0, new[0], T], dtype=torch.int32)
    seq = torch.tensor([c + n for c, n in zip(ctx, new)], dtype=torch.int32)
    o = torch.zeros(T, H, D, dtype=torch.float16, device=dev)
    one = torch.ones(1, dtype=torch.float32, device=dev)
    pp.context_attention_fwd(q.to(dev), k.to(dev), v.to(dev), o, "auto", k_cache.to(dev), v_cache.to(dev),
                             b_loc.to(dev), starts.to(dev), seq.to(dev), int(seq.max()), max(new), one, one)
    refs = []
    for b in range(B):
        s = int(starts[b])
        kk = torch.cat([keys[b], k[s:s + new[b]]]).transpose(0, 1).repeat_interleave(H // Hk, 0)
        vv = torch.cat([values[b], v[s:s + new[b]]]).transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(q[s:s + new[b]].transpose(0, 1), kk, vv, D ** -0.5, True).transpose(0, 1))
    return [close("o", o, torch.cat(refs), atol=2e-2, rtol=2e-2)], [o]


@case("vllm.triton_unified_attention", "vllm")
def _(dev):
    torch = torch_mod()
    from vllm.v1.attention.ops import triton_unified_attention as ua
    H, Hk, D, page = 4, 2, 32, 16
    q_lens, kv_lens = [1, 5], [23, 30]
    T = sum(q_lens)
    nblocks = 8
    q = rnd(T, H, D, dev=dev, dtype=torch.float16)
    kc = rnd(nblocks, page, Hk, D, dev=dev, seed=2, dtype=torch.float16)
    vc = rnd(nblocks, page, Hk, D, dev=dev, seed=3, dtype=torch.float16)
    o = torch.zeros_like(q)
    cu = torch.tensor([0, q_lens[0], T], device=dev, dtype=torch.int32)
    seqused = torch.tensor(kv_lens, device=dev, dtype=torch.int32)
    bt = torch.tensor([[1, 2, 0, 0], [3, 4, 6, 0]], device=dev, dtype=torch.int32)
    scale = D ** -0.5
    ua.unified_attention(q=q, k=kc, v=vc, out=o, cu_seqlens_q=cu, max_seqlen_q=max(q_lens),
                         seqused_k=seqused, max_seqlen_k=max(kv_lens), softmax_scale=scale,
                         causal=True, window_size=(-1, -1), block_table=bt, softcap=0,
                         q_descale=None, k_descale=None, v_descale=None)
    refs = []
    for b, (ql, kl) in enumerate(zip(q_lens, kv_lens)):
        s = sum(q_lens[:b])
        kk = kc[bt[b].long()].reshape(-1, Hk, D)[:kl].transpose(0, 1).repeat_interleave(H // Hk, 0)
        vv = vc[bt[b].long()].reshape(-1, Hk, D)[:kl].transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(q[s:s + ql].transpose(0, 1), kk, vv, scale, True).transpose(0, 1))
    return [close("o", o, torch.cat(refs), atol=2e-3, rtol=2e-3)], [o]


@case("vllm.triton_unified_attention_3d_decode", "vllm")
def _(dev):
    # decode (one query per sequence) with split-K scratch: the 3D kernel and its reduction
    torch = torch_mod()
    from vllm.v1.attention.ops import triton_unified_attention as ua
    H, Hk, D, page, segs = 4, 2, 64, 16, 16
    kv_lens = [23, 50]
    T = len(kv_lens)
    q = rnd(T, H, D, dev=dev, dtype=torch.float16)
    kc = rnd(8, page, Hk, D, dev=dev, seed=2, dtype=torch.float16)
    vc = rnd(8, page, Hk, D, dev=dev, seed=3, dtype=torch.float16)
    o = torch.zeros_like(q)
    cu = torch.arange(T + 1, device=dev, dtype=torch.int32)
    bt = torch.tensor([[1, 2, 0, 0, 0, 0, 0, 0], [3, 4, 6, 7, 0, 0, 0, 0]], device=dev, dtype=torch.int32)
    scale = D ** -0.5
    ua.unified_attention(q=q, k=kc, v=vc, out=o, cu_seqlens_q=cu, max_seqlen_q=1,
                         seqused_k=torch.tensor(kv_lens, device=dev, dtype=torch.int32),
                         max_seqlen_k=max(kv_lens), softmax_scale=scale, causal=True,
                         window_size=(-1, -1), block_table=bt, softcap=0,
                         q_descale=None, k_descale=None, v_descale=None,
                         seq_threshold_3D=128, num_par_softmax_segments=segs,
                         softmax_segm_output=torch.empty(T, H, segs, D, device=dev),
                         softmax_segm_max=torch.empty(T, H, segs, device=dev),
                         softmax_segm_expsum=torch.empty(T, H, segs, device=dev))
    refs = []
    for b, kl in enumerate(kv_lens):
        kk = kc[bt[b].long()].reshape(-1, Hk, D)[:kl].transpose(0, 1).repeat_interleave(H // Hk, 0)
        vv = vc[bt[b].long()].reshape(-1, Hk, D)[:kl].transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(q[b:b + 1].transpose(0, 1), kk, vv, scale, True).transpose(0, 1))
    return [close("o", o, torch.cat(refs), atol=2e-3, rtol=2e-3)], [o]


@case("vllm.triton_scaled_mm", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.quantization.compressed_tensors import triton_scaled_mm as sm
    M, K, N = 33, 64, 48
    a = torch.randint(-8, 8, (M, K), generator=torch.Generator().manual_seed(1), dtype=torch.int8).to(dev)
    b = torch.randint(-8, 8, (K, N), generator=torch.Generator().manual_seed(2), dtype=torch.int8).to(dev)
    sa = torch.rand(M, 1, generator=torch.Generator().manual_seed(3)).to(dev)
    sb = torch.rand(N, 1, generator=torch.Generator().manual_seed(4)).to(dev)
    bias = rnd(N, dev=dev, seed=5)
    out = sm.triton_scaled_mm(a, b, sa, sb, torch.float32, bias)
    ref = (a.float() @ b.float()) * sa * sb.T + bias
    return [close("out", out, ref, atol=1e-3, rtol=1e-4)], [out]


@case("vllm.int8_per_token_quant", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.quantization.utils import int8_utils as iu
    x = rnd(6, 64, dev=dev, scale=3.0)
    q, s = iu.per_token_quant_int8(x)
    rs = x.abs().amax(-1, keepdim=True) / 127.0
    rq = torch.round(x / rs).clamp(-128, 127)
    # rounding of .5 may differ by one step between implementations
    return [close("scale", s.reshape(rs.shape), rs, atol=1e-6),
            close("q", q.float(), rq, atol=1.0, rtol=0)], [q, s]


@case("vllm.fp8_per_token_group_quant", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.quantization.utils import fp8_utils as fu
    # (rows of a wider tensor: vLLM calls its compiled op for contiguous inputs on a CUDA
    # machine and its Triton kernel otherwise)
    x = rnd(4, 384, dev=dev, scale=3.0)[:, :256]
    q, s = fu.per_token_group_quant_fp8(x, 128)
    fmax = torch.finfo(torch.float8_e4m3fn).max
    xs = x.reshape(4, 2, 128)
    rs = (xs.abs().amax(-1, keepdim=True).clamp(min=1e-10) / fmax)
    rq = (xs / rs).clamp(-fmax, fmax).to(torch.float8_e4m3fn).float().view(4, 256)
    return [close("scale", s.reshape(4, 2), rs.reshape(4, 2), rtol=1e-5),
            close("q", q.float(), rq, atol=0, rtol=0.07)], [q.float(), s]


@case("vllm.awq_dequantize", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.quantization import awq_triton as awq
    qw, sc, zr, ref = _awq_weights(dev, K=64, N=64, G=32)
    got = awq.awq_dequantize_triton(qw, sc, zr)
    return [close("w", got, ref, atol=1e-3, rtol=1e-3)], [got]


def _awq_weights(dev, K, N, G):
    torch = torch_mod()
    gen = torch.Generator().manual_seed(11)
    nib = torch.randint(0, 16, (K, N), generator=gen, dtype=torch.int64)
    znib = torch.randint(0, 16, (K // G, N), generator=gen, dtype=torch.int64)
    scales = (torch.rand(K // G, N, generator=gen) * 0.1 + 0.01).to(torch.float16)
    order = [0, 4, 1, 5, 2, 6, 3, 7]  # column j of a group of 8 sits in nibble order[j]

    def pack(v):
        out = torch.zeros(v.shape[0], v.shape[1] // 8, dtype=torch.int64)
        for j in range(8):
            out |= v[:, j::8] << (4 * order[j])
        return out.to(torch.int32)  # wraps to int32 as the packed format does
    w = (nib - znib.repeat_interleave(G, 0)).float() * scales.float().repeat_interleave(G, 0)
    return pack(nib).to(dev), scales.to(dev), pack(znib).to(dev), w.to(torch.float16).to(dev)


@case("vllm.awq_gemm", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.quantization import awq_triton as awq
    qw, sc, zr, w = _awq_weights(dev, K=64, N=64, G=32)
    x = rnd(5, 64, dev=dev, dtype=torch.float16, scale=0.5)
    got = awq.awq_gemm_triton(x, qw, sc, zr, split_k_iters=2)
    ref = x.float() @ w.float()
    return [close("out", got, ref, atol=3e-2, rtol=3e-2)], [got]


@case("vllm.rms_norm_gated", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.mamba.ops.layernorm_gated import rms_norm_gated
    x, z = rnd(6, 64, dev=dev), rnd(6, 64, dev=dev, seed=2)
    w = rnd(64, dev=dev, seed=3)
    got = rms_norm_gated(x, w, None, z=z, eps=1e-6, group_size=32, norm_before_gate=False)
    g = (x * torch.nn.functional.silu(z)).view(6, 2, 32)
    ref = (g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + 1e-6)).view(6, 64) * w
    return [close("y", got, ref, atol=1e-5)], [got]


@case("vllm.lightning_attention", "vllm")
def _(dev):
    torch = torch_mod()
    lightning_attention = import_project_module("vllm.model_executor.layers.lightning_attn").lightning_attention
    b, h, n, d, e = 1, 2, 80, 64, 64
    q, k, v = (rnd(b, h, n, d, dev=dev, seed=s, scale=0.3) for s in (1, 2, 3))
    ed = torch.tensor([0.05, 0.2], device=dev)
    out, kv = lightning_attention(q, k, v, ed, block_size=32)
    t = torch.arange(n, device=dev, dtype=torch.float32)
    diff = t[:, None] - t[None]
    decay = torch.exp(-ed.view(h, 1, 1) * diff) * (diff >= 0)
    ref = ((q @ k.transpose(-1, -2)) * decay) @ v
    return [close("o", out, ref, atol=2e-3, rtol=2e-3)], [out]


@case("vllm.batch_invariant", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.determinism import batch_invariant as bi
    x = rnd(5, 70, dev=dev, scale=3.0)
    res, outs = [], []
    ls = bi.log_softmax(x, -1)
    res.append(close("log_softmax", ls, torch.log_softmax(x, -1), atol=1e-5))
    mn = bi.mean_dim(x, 1, keepdim=True)
    res.append(close("mean_dim", mn, x.mean(1, keepdim=True), atol=1e-5))
    outs += [ls, mn]
    if dev == "cuda":
        a, bm = rnd(40, 64, dev=dev, dtype=torch.bfloat16), rnd(64, 48, dev=dev, dtype=torch.bfloat16, seed=2)
        mm = bi.matmul_persistent(a, bm)
        res.append(close("matmul_persistent", mm, a.float() @ bm.float(), atol=5e-2, rtol=2e-2))
        outs.append(mm)
    return res, outs


@case("vllm.w8a8_block_fp8_matmul", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.model_executor.layers.quantization.utils import fp8_utils as fu
    M, K, N, blk = 5, 256, 256, 128
    f8 = torch.float8_e4m3fn
    A = (rnd(M, K, dev=dev) * 4).to(f8)
    B = (rnd(N, K, dev=dev, seed=2) * 4).to(f8)
    As = torch.rand(M, K // blk, generator=torch.Generator().manual_seed(3)).to(dev) + 0.5
    Bs = torch.rand(N // blk, K // blk, generator=torch.Generator().manual_seed(4)).to(dev) + 0.5
    out = fu.w8a8_triton_block_scaled_mm(A, B, As, Bs, [blk, blk], output_dtype=torch.float32)
    a = A.float() * As.repeat_interleave(blk, 1)
    b = B.float() * Bs.repeat_interleave(blk, 0).repeat_interleave(blk, 1)
    ref = a @ b.T
    # On a GPU, sm_90's fp8 wgmma adds its products in reduced precision: the error follows
    # the partial sums' magnitude, not each output's (both JITs' kernels, the real Triton's
    # too, missed atol 1e-2 by the same 0.15 on an H200, session 24).
    atol = 2e-3 * float(ref.abs().max()) if dev == "cuda" else 1e-2
    return [close("out", out, ref, atol=atol, rtol=1e-3)], [out]


@case("vllm.merge_attn_states", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.v1.attention.ops.triton_merge_attn_states import merge_attn_states
    T, H, D = 6, 4, 40
    po, so = rnd(T, H, D, dev=dev), rnd(T, H, D, dev=dev, seed=2)
    pl, sl = rnd(H, T, dev=dev, seed=3), rnd(H, T, dev=dev, seed=4)
    pl[1, 2] = float("inf")  # a prefix with nothing to attend to gives lse inf: treated as -inf
    out, lse = torch.empty_like(po), torch.empty(H, T, device=dev)
    merge_attn_states(out, po, pl, so, sl, lse)
    plr = torch.where(torch.isinf(pl), torch.full_like(pl, float("-inf")), pl)
    m = torch.maximum(plr, sl)
    wp, ws = torch.exp(plr - m), torch.exp(sl - m)
    ref = (po * wp.T[..., None] + so * ws.T[..., None]) / (wp + ws).T[..., None]
    return [close("out", out, ref, atol=1e-5), close("lse", lse, m + torch.log(wp + ws), atol=1e-5)], [out, lse]


@case("vllm.topk_topp", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.v1.sample.ops import topk_topp_triton as tt
    B, V = 4, 300
    logits = torch.randperm(B * V, generator=torch.Generator().manual_seed(1)).float().view(B, V) / 50.0
    logits = logits.to(dev)
    k = torch.tensor([1, 5, 300, 50], device=dev, dtype=torch.int32)
    p = torch.tensor([1.0, 0.9, 0.5, 0.3], device=dev)
    got = tt.apply_top_k_top_p_triton(logits.clone(), k, p)
    ref = logits.clone()
    for i in range(B):
        kth = ref[i].topk(int(k[i])).values[-1]
        ref[i][ref[i] < kth] = float("-inf")
        probs = torch.softmax(ref[i], -1)
        sp, idx = probs.sort(descending=True)
        keep = (sp.cumsum(0) - sp) < p[i]  # the smallest prefix whose mass reaches p
        drop = idx[~keep]
        ref[i][drop] = float("-inf")
    return [close("masked logits", got, ref, atol=0)], [got]


@case("vllm.selective_state_update", "vllm")
def _(dev):
    torch = torch_mod()
    selective_state_update = import_project_module(
        "vllm.model_executor.layers.mamba.ops.mamba_ssm").selective_state_update
    b, h, d, n = 3, 2, 16, 8
    state = rnd(b, h, d, n, dev=dev)
    x, dt, z = rnd(b, h, d, dev=dev, seed=2), rnd(b, h, d, dev=dev, seed=3) * 0.2, rnd(b, h, d, dev=dev, seed=8)
    A = -torch.rand(h, d, n, generator=torch.Generator().manual_seed(4)).to(dev)
    Bm, Cm = rnd(b, 1, n, dev=dev, seed=5), rnd(b, 1, n, dev=dev, seed=6)
    D, dtb = rnd(h, d, dev=dev, seed=7), rnd(h, d, dev=dev, seed=9) * 0.1
    st = state.clone()
    out = torch.empty_like(x)
    selective_state_update(st, x, dt, A, Bm, Cm, D, dtb, z=z, dt_softplus=True, out=out)
    dts = torch.nn.functional.softplus(dt + dtb)
    new = state * torch.exp(dts[..., None] * A) + (dts * x)[..., None] * Bm[:, :, None, :]
    ref = (new * Cm[:, :, None, :]).sum(-1) + D * x
    ref = ref * torch.nn.functional.silu(z)
    return [close("out", out, ref, atol=1e-4), close("state", st, new, atol=1e-5)], [out, st]


@case("vllm.reshape_and_cache_flash", "vllm")
def _(dev):
    torch = torch_mod()
    _vllm_packages(ARGS.src)
    from vllm.v1.attention.ops import triton_reshape_and_cache_flash as rc
    from vllm.v1.attention.ops.triton_reshape_and_cache_flash import triton_reshape_and_cache_flash
    # its dtype check reads vLLM's config package (transformers): "auto" is not quantized
    rc.is_quantized_kv_cache = lambda dtype: dtype != "auto"
    T, H, D, nb, bs = 5, 2, 64, 4, 16
    key, val = rnd(T, H, D, dev=dev, dtype=torch.float16), rnd(T, H, D, dev=dev, seed=2, dtype=torch.float16)
    kc = torch.zeros(nb, bs, H, D, device=dev, dtype=torch.float16)
    vc = torch.zeros_like(kc)
    slots = torch.tensor([3, 17, 18, 63, -1], device=dev, dtype=torch.int64)  # -1: a padded token
    one = torch.ones(1, device=dev)
    saved = torch.cuda.get_device_capability
    if dev == "cpu":  # the wrapper sizes its launch by torch.cuda's capability: say sm_90
        torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    try:
        triton_reshape_and_cache_flash(key, val, kc, vc, slots, "auto", one, one)
    finally:
        torch.cuda.get_device_capability = saved
    rk, rv = torch.zeros_like(kc), torch.zeros_like(vc)
    for t, sl in enumerate(slots.tolist()):
        if sl >= 0:
            rk[sl // bs, sl % bs], rv[sl // bs, sl % bs] = key[t], val[t]
    return [close("key_cache", kc, rk, atol=0), close("value_cache", vc, rv, atol=0)], [kc, vc]


def _triton_kernels(name):
    """vLLM's vendored copy of Triton's triton_kernels package (vllm/third_party), imported
    as vLLM imports it: `import_triton_kernels()` registers it as `triton_kernels`."""
    _vllm_packages(ARGS.src)
    from vllm.utils.import_utils import import_triton_kernels
    import_triton_kernels()
    return importlib.import_module(name)


@case("vllm.triton_kernels.mxfp", "vllm")
def _(dev):
    # MX quantization (a shared power-of-two scale per 32 values): to mxfp4 (two e2m1 a byte)
    # and mxfp8 along either axis, and back, against the package's torch versions, exactly
    torch = torch_mod()
    mx = _triton_kernels("triton_kernels.numerics_details.mxfp")
    res, outs = [], []
    x = rnd(64, 96, dev=dev, scale=3.0, dtype=torch.bfloat16)
    for qtype, label in ((torch.uint8, "fp4"), (torch.float8_e4m3fn, "e4m3"), (torch.float8_e5m2, "e5m2")):
        for axis in (1, 0):
            q, sc = mx.downcast_to_mxfp(x, qtype, axis)
            rq, rsc = mx.downcast_to_mxfp_torch(x, qtype, axis)
            y = mx.upcast_from_mxfp(q, sc, torch.bfloat16, axis)
            ry = mx.upcast_from_mxfp_torch(rq, rsc, torch.bfloat16, axis)
            tag = f"{label} axis{axis}"
            res += [close(f"{tag} quant", q.view(torch.uint8).float(), rq.view(torch.uint8).float(), atol=0),
                    close(f"{tag} scale", sc.float(), rsc.float(), atol=0),
                    close(f"{tag} upcast", y, ry, atol=0)]
            outs += [q.view(torch.uint8), sc, y]
    return res, outs


@case("vllm.triton_kernels.swiglu", "vllm")
def _(dev):
    torch = torch_mod()
    sw = _triton_kernels("triton_kernels.swiglu")
    a = rnd(40, 2 * 300, dev=dev, scale=4.0, dtype=torch.bfloat16)
    cfg = sw.PrecisionConfig(limit=7.0)
    with _cuda_host(dev):
        out = sw.swiglu(a, 1.702, cfg)
    ref = sw.swiglu_torch(a.float(), 1.702, cfg)
    return [close("out", out, ref, atol=3e-2, rtol=2e-2)], [out]


@contextlib.contextmanager
def _cuda_target(dev):
    """On the CPU only: the driver names the target "cuda" sm_90 while the case runs (the
    harness names it "cpu" otherwise, see _prepare): triton_kernels' matmul picks its tile
    and stage options by the target's backend and asserts it is hip or cuda."""
    if dev != "cpu" or ARGS.impl != "tritium":
        yield
        return
    from tritium import driver
    active = driver.driver.active
    saved = active.get_current_target
    active.get_current_target = lambda: driver.GPUTarget("cuda", 90, 32)
    try:
        yield
    finally:
        active.get_current_target = saved


@case("vllm.triton_kernels.routing_topk", "vllm")
def _(dev):
    # MoE routing: top-k of each token's logits (its bitonic top-k kernel), the expert
    # histogram and the gather/scatter orders, against torch
    torch = torch_mod()
    rt = _triton_kernels("triton_kernels.routing")
    T, E, K = 37, 8, 2
    logits = rnd(T, E, dev=dev)
    rd, gi, si = rt.routing(logits, K)
    top = logits.topk(K, -1)
    ref_scal = torch.softmax(top.values, -1)
    # each token's (expert, weight) pairs, sorted by expert, as the kernel orders them
    order = top.indices.sort(-1)
    ref_e, ref_w = order.values, ref_scal.gather(-1, order.indices)
    got_e = torch.empty(T, K, dtype=torch.long, device=dev)
    got_w = torch.empty(T, K, device=dev)
    # gather_indx: for the n-th routed row (grouped by expert), the (token * K + slot) it is
    src = gi.src_indx.long()
    expert_of_row = torch.repeat_interleave(torch.arange(E, device=dev), rd.expt_hist.long())
    got_e.view(-1)[src] = expert_of_row
    got_w.view(-1)[src] = rd.gate_scal.float()
    hist = torch.bincount(top.indices.flatten(), minlength=E)
    return [close("experts", got_e, ref_e, atol=0), close("gates", got_w, ref_w, atol=1e-6),
            close("histogram", rd.expt_hist, hist, atol=0),
            close("gather's inverse", gi.dst_indx[gi.src_indx.long()].float(),
                  torch.arange(T * K, device=dev).float(), atol=0),
            close("scatter is gather's inverse", si.dst_indx, gi.src_indx, atol=0)], [got_w, rd.expt_hist]


@case("vllm.triton_kernels.matmul_ogs", "vllm")
def _(dev):
    # triton_kernels' matmul: dense with bias, then the MoE form (rows gathered by expert,
    # scattered back, per-expert weights and bias) against its torch version, bf16
    torch = torch_mod()
    rt = _triton_kernels("triton_kernels.routing")
    mm = _triton_kernels("triton_kernels.matmul_ogs")
    xd, wd, bd = (rnd(33, 64, dev=dev, dtype=torch.bfloat16), rnd(64, 48, dev=dev, seed=2, dtype=torch.bfloat16, scale=0.1),
                  rnd(48, dev=dev, seed=3))
    T, E, K = 10, 8, 2
    logits = rnd(T, E, dev=dev, seed=4)
    rd, gi, si = rt.routing(logits, K)
    x, w, b = (rnd(T, 64, dev=dev, seed=5, dtype=torch.bfloat16), rnd(E, 64, 32, dev=dev, seed=6, dtype=torch.bfloat16, scale=0.1),
               rnd(E, 32, dev=dev, seed=7))
    with _cuda_host(dev), _cuda_target(dev):
        yd = mm.matmul_ogs(xd, wd, bd)
        y = mm.matmul_ogs(x, w, b, rd, gather_indx=gi, scatter_indx=si)
    # each token's rows through its K experts, summed (matmul_ogs_torch makes its index
    # ranges on "cuda", so written here)
    experts = logits.topk(K, -1).indices
    ry = torch.stack([sum(x[t].float() @ w[int(e)].float() + b[int(e)] for e in experts[t]) for t in range(T)])
    return [close("dense", yd, xd.float() @ wd.float() + bd, atol=3e-2, rtol=2e-2),
            close("moe", y, ry, atol=3e-2, rtol=2e-2)], [yd, y]


# bf16 variants: the dtype these projects train and serve in

@case("liger.rms_norm_bf16", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    x, w = rnd(4, 1024, dev=dev, dtype=torch.bfloat16), rnd(1024, dev=dev, seed=2, dtype=torch.bfloat16)

    def ref(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
    return compare_fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False),
                           ref, [x, w], atol=3e-2, rtol=2e-2, names=["X", "W"])


@case("liger.cross_entropy_bf16_vocab8k", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    x = rnd(3, 8192, dev=dev, scale=2.0, dtype=torch.bfloat16)
    t = torch.tensor([5, 8191, 100], device=dev)
    return compare_fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, t, None)[0],
                           lambda x: torch.nn.functional.cross_entropy(x.float(), t), [x],
                           atol=2e-3, rtol=2e-2, names=["input"])


@case("liger.fused_linear_cross_entropy_bf16", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction
    h = rnd(8, 64, dev=dev, dtype=torch.bfloat16)
    w = rnd(256, 64, dev=dev, seed=2, scale=0.2, dtype=torch.bfloat16)
    t = torch.tensor([1, 5, 255, -100, 0, 42, 7, 8], device=dev)
    return compare_fwd_bwd(lambda h, w: LigerFusedLinearCrossEntropyFunction.apply(h, w, t)[0],
                           lambda h, w: torch.nn.functional.cross_entropy((h @ w.T).float(), t),
                           [h, w], atol=2e-2, rtol=2e-2, names=["input", "weight"])


@case("liger.swiglu_bf16", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    a, b = rnd(4, 512, dev=dev, dtype=torch.bfloat16), rnd(4, 512, dev=dev, seed=2, dtype=torch.bfloat16)
    return compare_fwd_bwd(lambda a, b: LigerSiLUMulFunction.apply(a, b),
                           lambda a, b: (torch.nn.functional.silu(a.float()) * b.float()).to(a.dtype),
                           [a, b], atol=2e-2, rtol=2e-2, names=["a", "b"])


@case("fla.simple_gla.chunk_varlen_bf16", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops.simple_gla import chunk_simple_gla
    lens = [23, 50]
    T, H, K, V = sum(lens), 2, 32, 32
    q, k, v = (rnd(1, T, H, D, dev=dev, seed=s, scale=0.5, dtype=torch.bfloat16)
               for s, D in ((1, K), (2, K), (3, V)))
    g = (-torch.rand(1, T, H, generator=torch.Generator().manual_seed(4)) * 0.2).to(dev)
    cu = torch.tensor([0, lens[0], T], device=dev, dtype=torch.int32)
    scale = K ** -0.5

    def ref(q, k, v, g):
        outs = []
        for s0, n in zip([0, lens[0]], lens):
            S = torch.zeros(H, K, V, device=q.device)
            for t in range(s0, s0 + n):
                S = S * g[0, t, :, None, None].exp() + k[0, t, :, :, None].float() * v[0, t, :, None, :].float()
                outs.append((q[0, t, :, :, None].float() * S).sum(-2) * scale)
        return torch.stack(outs, 0)[None]

    def mine(q, k, v, g):
        return chunk_simple_gla(q, k, v, g, scale=scale, cu_seqlens=cu)[0].float()
    return compare_fwd_bwd(mine, ref, [q, k, v, g], atol=3e-2, rtol=3e-2, names=["q", "k", "v", "g"])


# Production-sized tiles (few rows, full hidden/vocab/head sizes): the block sizes, warps and
# dot shapes these projects launch with, for the compile sweep above all.

@case("big.liger.rms_norm_h8192_bf16", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    x, w = rnd(2, 8192, dev=dev, dtype=torch.bfloat16), rnd(8192, dev=dev, seed=2, dtype=torch.bfloat16)

    def ref(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
    return compare_fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False),
                           ref, [x, w], atol=6e-2, rtol=2e-2, names=["X", "W"])


@case("big.liger.cross_entropy_vocab128k_bf16", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    x = rnd(2, 131072, dev=dev, scale=2.0, dtype=torch.bfloat16)
    t = torch.tensor([5, 131071], device=dev)
    return compare_fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, t, None)[0],
                           lambda x: torch.nn.functional.cross_entropy(x.float(), t), [x],
                           atol=2e-3, rtol=2e-2, names=["input"])


@case("big.liger.layer_norm_h4096_bf16", "liger")
def _(dev):
    torch = torch_mod()
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    x = rnd(2, 4096, dev=dev, dtype=torch.bfloat16)
    w, b = rnd(4096, dev=dev, seed=2, dtype=torch.bfloat16), rnd(4096, dev=dev, seed=3, dtype=torch.bfloat16)
    return compare_fwd_bwd(lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-5),
                           lambda x, w, b: torch.nn.functional.layer_norm(x.float(), (4096,), w.float(), b.float(), 1e-5),
                           [x, w, b], atol=6e-2, rtol=3e-2, names=["X", "W", "B"])


@case("big.vllm.fused_moe_bf16_default_tiles", "vllm")
def _(dev):
    torch = torch_mod()
    os.environ["REALK_MOE_TD"] = "0"
    _fused_moe(dev, td=False)  # imports and stubs
    from vllm.model_executor.layers.fused_moe import fused_moe as fm
    M, K, N, E, topk, BM = 3, 256, 256, 2, 1, 64
    A = rnd(M, K, dev=dev, dtype=torch.bfloat16, scale=0.5)
    W = rnd(E, N, K, dev=dev, dtype=torch.bfloat16, seed=2, scale=0.1)
    ids = torch.tensor([[0], [1], [0]], device=dev, dtype=torch.int32)
    sorted_ids = torch.tensor([0, 2] + [3] * (BM - 2) + [1] + [3] * (BM - 1), device=dev, dtype=torch.int32)
    expert_ids = torch.tensor([0, 1], device=dev, dtype=torch.int32)
    ntp = torch.tensor([2 * BM], device=dev, dtype=torch.int32)
    C = torch.zeros(M, topk, N, device=dev, dtype=torch.bfloat16)
    config = {"BLOCK_SIZE_M": BM, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
              "num_warps": 4, "num_stages": 3}
    fm.invoke_fused_moe_triton_kernel(A, W, C, None, None, None, sorted_ids, expert_ids, ntp,
                                      False, topk, config, compute_type=tl_dtype("bfloat16"),
                                      use_fp8_w8a8=False, use_int8_w8a8=False,
                                      use_int8_w8a16=False, use_int4_w4a16=False,
                                      per_channel_quant=False, block_shape=None)
    ref = torch.einsum("mk,mnk->mn", A.float(), W[ids[:, 0].long()].float())[:, None]
    return [close("C", C, ref, atol=3e-2, rtol=3e-2)], [C]


@case("big.vllm.unified_attention_d128_bf16", "vllm")
def _(dev):
    torch = torch_mod()
    from vllm.v1.attention.ops import triton_unified_attention as ua
    H, Hk, D, page = 8, 2, 128, 16
    q_lens, kv_lens = [1, 17], [40, 33]
    T = sum(q_lens)
    q = rnd(T, H, D, dev=dev, dtype=torch.bfloat16)
    kc = rnd(6, page, Hk, D, dev=dev, seed=2, dtype=torch.bfloat16)
    vc = rnd(6, page, Hk, D, dev=dev, seed=3, dtype=torch.bfloat16)
    o = torch.zeros_like(q)
    cu = torch.tensor([0, q_lens[0], T], device=dev, dtype=torch.int32)
    # vLLM's block tables are as wide as the longest sequence the model allows; the kernel
    # reads a whole tile's entries unmasked, past the blocks a short sequence uses
    bt = torch.tensor([[1, 2, 0] + [0] * 13, [3, 4, 5] + [0] * 13], device=dev, dtype=torch.int32)
    scale = D ** -0.5
    ua.unified_attention(q=q, k=kc, v=vc, out=o, cu_seqlens_q=cu, max_seqlen_q=max(q_lens),
                         seqused_k=torch.tensor(kv_lens, device=dev, dtype=torch.int32),
                         max_seqlen_k=max(kv_lens), softmax_scale=scale, causal=True,
                         window_size=(-1, -1), block_table=bt, softcap=0,
                         q_descale=None, k_descale=None, v_descale=None)
    refs = []
    for b, (ql, kl) in enumerate(zip(q_lens, kv_lens)):
        s0 = sum(q_lens[:b])
        kk = kc[bt[b].long()].reshape(-1, Hk, D)[:kl].transpose(0, 1).repeat_interleave(H // Hk, 0)
        vv = vc[bt[b].long()].reshape(-1, Hk, D)[:kl].transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(q[s0:s0 + ql].transpose(0, 1), kk, vv, scale, True).transpose(0, 1))
    return [close("o", o, torch.cat(refs), atol=2e-2, rtol=2e-2)], [o]


@case("big.fla.gla.chunk_k128_bf16", "fla")
def _(dev):
    torch = torch_mod()
    from fla.ops.gla import chunk_gla
    B, T, H, K, V = 1, 70, 1, 128, 128
    q, k, v = (rnd(B, T, H, D, dev=dev, seed=s, scale=0.3, dtype=torch.bfloat16)
               for s, D in ((1, K), (2, K), (3, V)))
    g = torch.nn.functional.logsigmoid(rnd(B, T, H, K, dev=dev, seed=5)) * 0.1
    scale = K ** -0.5

    def ref(q, k, v, g):
        S = torch.zeros(B, H, K, V, device=q.device)
        outs = []
        for t in range(T):
            S = S * g[:, t, :, :, None].exp() + k[:, t, :, :, None].float() * v[:, t, :, None, :].float()
            outs.append((q[:, t, :, :, None].float() * S).sum(-2) * scale)
        return torch.stack(outs, 1)
    return compare_fwd_bwd(lambda q, k, v, g: chunk_gla(q, k, v, g, scale=scale)[0].float(), ref,
                           [q, k, v, g], atol=5e-2, rtol=5e-2, names=["q", "k", "v", "g"])


# ------------------------------------------------------------------ session 17: more projects
# mamba-ssm, flash-attn, sglang and unsloth (tests/realk/RESULTS.md, "Session 17").


@contextlib.contextmanager
def _cuda_host(dev, sms=4):
    """On the CPU only: the projects' host code around the kernels asks torch.cuda about the
    GPU (`with torch.cuda.device(x.device.index)` before a launch, the SM count that sizes a
    persistent grid or a partial-sum buffer, the capability, the warp size). Those calls
    answer as for one sm_90 GPU with `sms` SMs while the case runs; no kernel is changed."""
    torch = torch_mod()
    if dev != "cpu":
        yield
        return
    props = types.SimpleNamespace(multi_processor_count=sms, name="NVIDIA H100 80GB HBM3",
                                  major=9, minor=0, warp_size=32, gcnArchName="",
                                  total_memory=80 << 30, L2_cache_size=50 << 20,
                                  max_shared_memory_per_block_optin=227 << 10,
                                  shared_memory_per_block_optin=227 << 10,
                                  shared_memory_per_multiprocessor=228 << 10,
                                  max_threads_per_multi_processor=2048, clock_rate=1980000,
                                  memory_clock_rate=2619000, memory_bus_width=5120)
    cuda = torch.cuda
    saved = {k: getattr(cuda, k) for k in ("device", "get_device_properties", "current_device",
                                           "get_device_capability", "get_device_name",
                                           "is_current_stream_capturing")}
    cuda.device = lambda *a, **k: contextlib.nullcontext()
    cuda.get_device_properties = lambda *a, **k: props
    cuda.current_device = lambda: 0
    cuda.get_device_capability = lambda *a, **k: (9, 0)
    cuda.get_device_name = lambda *a, **k: props.name
    cuda.is_current_stream_capturing = lambda: False  # (session 19: b12x, gemlite)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(cuda, k, v)


def _cat(*xs):
    torch = torch_mod()
    return torch.cat([x.float().flatten() for x in xs if x is not None])


# ------------------------------------------------------------------------------- mamba-ssm

def _mamba(name):
    """mamba_ssm's package __init__ imports its CUDA extensions (selective_scan_cuda,
    causal_conv1d); the Triton ops need none of them."""
    if importlib.util.find_spec("einops") is None:
        raise Skip("mamba_ssm imports einops, which is not installed")
    for p in ("mamba_ssm", "mamba_ssm.ops", "mamba_ssm.ops.triton", "mamba_ssm.utils"):
        _package_without_init(p, ARGS.src)
    return importlib.import_module(name)


@case("mamba.layernorm_gated", "mamba_ssm")
def _(dev):
    torch = torch_mod()
    F = torch.nn.functional
    lg = _mamba("mamba_ssm.ops.triton.layernorm_gated")
    x, z = rnd(6, 64, dev=dev), rnd(6, 64, dev=dev, seed=2)
    w, b = rnd(64, dev=dev, seed=3), rnd(64, dev=dev, seed=4)

    def ln_group_ref(x, z, w, b):  # layer norm of each group of 32, then the gate
        xg = x.view(6, 2, 32)
        y = ((xg - xg.mean(-1, keepdim=True)) * torch.rsqrt(xg.var(-1, unbiased=False, keepdim=True) + 1e-5)).view(6, 64)
        return (y * w + b) * F.silu(z)
    with _cuda_host(dev):
        r1, o1 = compare_fwd_bwd(
            lambda x, z, w: lg.rmsnorm_fn(x, w, None, z=z, eps=1e-6, group_size=32, norm_before_gate=False),
            lambda x, z, w: lg.rms_norm_ref(x, w, None, z=z, eps=1e-6, group_size=32, norm_before_gate=False),
            [x, z, w], atol=1e-4, names=["x", "z", "w"])
        r2, o2 = compare_fwd_bwd(
            lambda x, z, w, b: lg.layernorm_fn(x, w, b, z=z, eps=1e-5, group_size=32, norm_before_gate=True),
            ln_group_ref, [x, z, w, b], atol=1e-4, names=["x", "z", "w", "b"])
    return [("rms " + c[0], c[1], c[2]) for c in r1] + [("ln " + c[0], c[1], c[2]) for c in r2], o1 + o2


@case("mamba.layer_norm", "mamba_ssm")
def _(dev):
    torch = torch_mod()
    with _cuda_host(dev):
        ln = _mamba("mamba_ssm.ops.triton.layer_norm")
        x, r = rnd(7, 96, dev=dev), rnd(7, 96, dev=dev, seed=2)
        w, b = rnd(96, dev=dev, seed=3), rnd(96, dev=dev, seed=4)
        rs = torch.rand(7, generator=torch.Generator().manual_seed(5)).to(dev) + 0.5
        r1, o1 = compare_fwd_bwd(
            lambda x, r, w, b: _cat(*ln.layer_norm_fn(x, w, b, residual=r, eps=1e-5, prenorm=True,
                                                      residual_in_fp32=True)),
            lambda x, r, w, b: _cat(*ln.layer_norm_ref(x, w, b, residual=r, eps=1e-5, prenorm=True, upcast=True)),
            [x, r, w, b], atol=1e-4, names=["x", "residual", "w", "b"])
        r2, o2 = compare_fwd_bwd(
            lambda x, w: ln.rms_norm_fn(x, w, None, eps=1e-6, rowscale=rs),
            lambda x, w: ln.rms_norm_ref(x, w, None, eps=1e-6, rowscale=rs, upcast=True),
            [x, w], atol=1e-4, names=["x", "w"])
    return [("ln " + c[0], c[1], c[2]) for c in r1] + [("rms " + c[0], c[1], c[2]) for c in r2], o1 + o2


@case("mamba.selective_state_update", "mamba_ssm")
def _(dev):
    torch = torch_mod()
    ssu = _mamba("mamba_ssm.ops.triton.selective_state_update")
    b, h, d, n, g = 3, 4, 16, 16, 2
    state = rnd(b, h, d, n, dev=dev)
    x, dt, z = rnd(b, h, d, dev=dev, seed=2), rnd(b, h, d, dev=dev, seed=3) * 0.3, rnd(b, h, d, dev=dev, seed=4)
    A = -torch.rand(h, d, n, generator=torch.Generator().manual_seed(5)).to(dev)
    B, C = rnd(b, g, n, dev=dev, seed=6), rnd(b, g, n, dev=dev, seed=7)
    D, dtb = rnd(h, d, dev=dev, seed=8), rnd(h, d, dev=dev, seed=9) * 0.1
    st, rst = state.clone(), state.clone()
    with _cuda_host(dev):
        out = ssu.selective_state_update(st, x, dt, A, B, C, D, z=z, dt_bias=dtb, dt_softplus=True)
    ref = ssu.selective_state_update_ref(rst, x, dt, A, B, C, D, z=z, dt_bias=dtb, dt_softplus=True)
    return [close("out", out, ref, atol=1e-4), close("state", st, rst, atol=1e-5)], [out, st]


def _ssd_inputs(dev, batch=1, seqlen=100, nheads=4, headdim=16, ngroups=2, dstate=16, dtype=None):
    torch = torch_mod()
    x = rnd(batch, seqlen, nheads, headdim, dev=dev, scale=0.5)
    dt = torch.nn.functional.softplus(rnd(batch, seqlen, nheads, dev=dev, seed=2) - 2)
    A = -torch.rand(nheads, generator=torch.Generator().manual_seed(3)).to(dev) - 0.5
    B, C = rnd(batch, seqlen, ngroups, dstate, dev=dev, seed=4, scale=0.5), rnd(batch, seqlen, ngroups, dstate, dev=dev, seed=5, scale=0.5)
    D, z = rnd(nheads, dev=dev, seed=6), rnd(batch, seqlen, nheads, headdim, dev=dev, seed=7)
    if dtype is not None:
        x, B, C, z = (t.to(dtype) for t in (x, B, C, z))
    return x, dt, A, B, C, D, z


@case("mamba.ssd_combined", "mamba_ssm")
def _(dev):
    # mamba2's chunked scan: chunk cumsum, chunk state, state passing, bmm, chunk scan, and
    # every backward kernel, against the project's own reference (which wants whole chunks)
    sc = _mamba("mamba_ssm.ops.triton.ssd_combined")
    x, dt, A, B, C, D, z = _ssd_inputs(dev, seqlen=96)
    dtb = rnd(4, dev=dev, seed=8) * 0.1
    with _cuda_host(dev):
        return compare_fwd_bwd(
            lambda x, dt, A, B, C, D, z, dtb: sc.mamba_chunk_scan_combined(x, dt, A, B, C, 32, D=D, z=z, dt_bias=dtb, dt_softplus=True),
            lambda x, dt, A, B, C, D, z, dtb: sc.ssd_chunk_scan_combined_ref(x, dt, A, B, C, 32, D=D, z=z, dt_bias=dtb, dt_softplus=True),
            # tf32 dots: dx's largest error is 2.0-2.2e-2 under every config of mamba's lists
            # (the interpreter's own; the H100's 2.0e-2), at elements near 0 for some configs
            [x, dt, A, B, C, D, z, dtb], atol=3e-2, rtol=5e-3,
            names=["x", "dt", "A", "B", "C", "D", "z", "dt_bias"])


@case("mamba.ssd_chunk_scan_bf16", "mamba_ssm")
def _(dev):
    # the three steps as separate autograd functions (chunk_state, state_passing,
    # chunk_scan: their own backward kernels) in bf16
    torch = torch_mod()
    sc = _mamba("mamba_ssm.ops.triton.ssd_combined")
    x, dt, A, B, C, D, z = _ssd_inputs(dev, seqlen=64, headdim=32, dtype=torch.bfloat16)
    with _cuda_host(dev):
        return compare_fwd_bwd(
            lambda x, B, C: sc.mamba_chunk_scan(x, dt, A, B, C, 32, D=D, z=z).float(),
            lambda x, B, C: sc.ssd_chunk_scan_combined_ref(x, dt, A, B, C, 32, D=D, z=z).float(),
            [x, B, C], atol=5e-2, rtol=5e-2, names=["x", "B", "C"])


@case("mamba.ssd_initial_final_states", "mamba_ssm")
def _(dev):
    # the chunked scan started from given states, returning the final ones (state passing
    # with initial states; backward into them), against the recurrence written out
    torch = torch_mod()
    sc = _mamba("mamba_ssm.ops.triton.ssd_combined")
    x, dt, A, B, C, D, z = _ssd_inputs(dev, seqlen=80, headdim=16, dstate=16)
    h0 = rnd(1, 4, 16, 16, dev=dev, seed=9, scale=0.5)

    def ref(x, dt, B, C, h0):
        dts = torch.nn.functional.softplus(dt)
        h, ys = h0, []
        Bh, Ch = B.repeat_interleave(2, 2), C.repeat_interleave(2, 2)  # 2 groups for 4 heads
        for t in range(x.shape[1]):
            dA = torch.exp(dts[:, t] * A)  # (b, h)
            h = h * dA[..., None, None] + (dts[:, t, :, None] * x[:, t])[..., None] * Bh[:, t, :, None, :]
            ys.append((h * Ch[:, t, :, None, :]).sum(-1) + D[:, None] * x[:, t])
        return _cat(torch.stack(ys, 1), h)

    def mine(x, dt, B, C, h0):
        y, final = sc.mamba_chunk_scan_combined(x, dt, A, B, C, 32, D=D, initial_states=h0, dt_softplus=True,
                                                return_final_states=True)
        return _cat(y, final)
    with _cuda_host(dev):
        return compare_fwd_bwd(mine, ref, [x, dt, B, C, h0], atol=5e-3, rtol=5e-3,  # tf32 dots
                               names=["x", "dt", "B", "C", "initial_states"])


@case("mamba.swiglu", "mamba_ssm")
def _(dev):
    torch = torch_mod()
    ka = _mamba("mamba_ssm.ops.triton.k_activations")
    xy = rnd(5, 2 * 96, dev=dev)
    with _cuda_host(dev):
        return compare_fwd_bwd(lambda xy: ka.swiglu(xy),
                               lambda xy: torch.nn.functional.silu(xy[:, :96]) * xy[:, 96:], [xy],
                               atol=1e-5, names=["xy"])


@case("mamba.mamba3_angle_dt", "mamba_ssm")
def _(dev):
    # Mamba-3's rotary angle cumsum: its kernel computes tanh with `tanh.approx.f32` inline
    # assembly (the interpreter evaluates such single PTX instructions); the angles wrap at
    # 2 pi, so they are compared by their cosine and sine
    torch = torch_mod()
    ad = _mamba("mamba_ssm.ops.triton.mamba3.angle_dt")
    B, T, H, Dm = 2, 100, 3, 12
    angle, dt = rnd(B, T, H, Dm, dev=dev), torch.nn.functional.softplus(rnd(B, H, T, dev=dev, seed=2))
    init = rnd(B, H, Dm, dev=dev, seed=3)
    out, state = ad.angle_dt_fwd(angle, dt, init_state=init, chunk_size=32, return_output_state=True)
    ref = init[:, None] + torch.cumsum(torch.tanh(angle.double()) * math.pi * dt.double().transpose(1, 2)[..., None], 1)
    return [close("cos out", out.cos(), ref.cos(), atol=2e-4), close("sin out", out.sin(), ref.sin(), atol=2e-4),
            close("cos state", state.cos(), ref[:, -1].cos(), atol=2e-4),
            close("sin state", state.sin(), ref[:, -1].sin(), atol=2e-4)], [out, state]


@case("mamba.mamba3_siso_chunked", "mamba_ssm")
def _(dev):
    # Mamba-3's chunked SISO forward (in-kernel tensor descriptors, cos/sin/tanh/sigmoid by
    # PTX .approx asm, rotary, trapezoidal discretisation): the project has no reference for
    # it, so the check is its own state passing: the whole sequence against its two halves,
    # the second started from the first's returned states. Its backward asserts CUDA tensors
    # in host code: forward only on the CPU.
    torch = torch_mod()
    m3 = _mamba("mamba_ssm.ops.triton.mamba3.mamba3_siso_combined")
    B, T, Hq, H, Dq, Dv, Da = 1, 64, 1, 2, 32, 16, 8
    Q, K = rnd(B, T, Hq, Dq, dev=dev, scale=0.5), rnd(B, T, Hq, Dq, dev=dev, seed=2, scale=0.5)
    V = rnd(B, T, H, Dv, dev=dev, seed=3)
    DT = torch.nn.functional.softplus(rnd(B, H, T, dev=dev, seed=4) - 1)
    ADT = -DT * 0.5
    Trap = torch.rand(B, H, T, generator=torch.Generator().manual_seed(5)).to(dev)
    Qb, Kb = rnd(H, Dq, dev=dev, seed=6, scale=0.1), rnd(H, Dq, dev=dev, seed=7, scale=0.1)
    Ang = rnd(B, T, H, Da, dev=dev, seed=8)
    h = T // 2

    def part(sl, states=None, final=False):
        return m3.mamba3_siso_combined(Q[:, sl], K[:, sl], V[:, sl], ADT[..., sl], DT[..., sl], Trap[..., sl],
                                       Qb, Kb, Ang[:, sl], Input_States=states, chunk_size=32,
                                       return_final_states=final)
    with _cuda_host(dev):
        whole = part(slice(0, T))
        first, *states = part(slice(0, h), final=True)
        second = part(slice(h, T), states=tuple(states))
    both = torch.cat([first, second], 1)
    return [close("halves vs whole (bf16)", both, whole, atol=6e-2, rtol=2e-2)], [whole, both]


# ------------------------------------------------------------------------------- flash-attn

def _flash(name):
    """flash_attn's package __init__ imports its CUDA extension (flash_attn_2_cuda)."""
    for p in ("flash_attn", "flash_attn.ops", "flash_attn.ops.triton", "flash_attn.utils"):
        _package_without_init(p, ARGS.src)
    return importlib.import_module(name)


@case("flash_attn.layer_norm", "flash_attn")
def _(dev):
    torch = torch_mod()
    with _cuda_host(dev):  # its autotune configs ask the device's warp size at import
        ln = _flash("flash_attn.ops.triton.layer_norm")
        x, r = rnd(7, 96, dev=dev), rnd(7, 96, dev=dev, seed=2)
        w, b = rnd(96, dev=dev, seed=3), rnd(96, dev=dev, seed=4)
        x1, w1, b1 = rnd(7, 96, dev=dev, seed=5), rnd(96, dev=dev, seed=6), rnd(96, dev=dev, seed=7)
        r1, o1 = compare_fwd_bwd(
            lambda x, r, w, b: _cat(*ln.layer_norm_fn(x, w, b, residual=r, eps=1e-5, prenorm=True,
                                                      residual_in_fp32=True)),
            lambda x, r, w, b: _cat(*ln.layer_norm_ref(x, w, b, residual=r, eps=1e-5, prenorm=True, upcast=True)),
            [x, r, w, b], atol=1e-4, names=["x", "residual", "w", "b"])
        # parallel norms (x + x1, two weights), rms
        r2, o2 = compare_fwd_bwd(
            lambda x, x1, w, w1: _cat(*ln.rms_norm_fn(x, w, None, x1=x1, weight1=w1, eps=1e-6)),
            lambda x, x1, w, w1: _cat(*ln.rms_norm_ref(x, w, None, x1=x1, weight1=w1, eps=1e-6, upcast=True)),
            [x, x1, w, w1], atol=1e-4, names=["x", "x1", "w", "w1"])
    return [("ln " + c[0], c[1], c[2]) for c in r1] + [("rms " + c[0], c[1], c[2]) for c in r2], o1 + o2


@case("flash_attn.rotary", "flash_attn")
def _(dev):
    torch = torch_mod()
    ro = _flash("flash_attn.ops.triton.rotary")
    B, S, H, D, rd = 2, 9, 3, 32, 24
    x = rnd(B, S, H, D, dev=dev)
    ang = torch.arange(16, dtype=torch.float32)[:, None] * torch.arange(rd // 2)[None] * 0.1
    cos, sin = ang.cos().to(dev), ang.sin().to(dev)

    def ref(x, offsets, interleaved):
        outs = []
        for bi in range(B):
            o = int(offsets[bi]) if not isinstance(offsets, int) else offsets
            c, s_ = cos[o:o + S, None], sin[o:o + S, None]
            xr = x[bi, ..., :rd]
            if interleaved:
                x1, x2 = xr[..., 0::2], xr[..., 1::2]
                y = torch.stack([x1 * c - x2 * s_, x1 * s_ + x2 * c], -1).flatten(-2)
            else:
                x1, x2 = xr[..., :rd // 2], xr[..., rd // 2:]
                y = torch.cat([x1 * c - x2 * s_, x1 * s_ + x2 * c], -1)
            outs.append(torch.cat([y, x[bi, ..., rd:]], -1))
        return torch.stack(outs)
    res, outs = [], []
    offs = torch.tensor([0, 5], device=dev, dtype=torch.int32)
    with _cuda_host(dev):
        for label, off, il in (("half", 0, False), ("interleaved", 0, True), ("offsets", offs, False)):
            y = ro.apply_rotary(x, cos, sin, seqlen_offsets=off, interleaved=il)
            res.append(close(label, y, ref(x, off, il), atol=1e-5))
            outs.append(y)
        # varlen: two sequences packed along the tokens
        cu = torch.tensor([0, 4, 13], device=dev, dtype=torch.int32)
        xv = rnd(13, H, D, dev=dev, seed=9)
        yv = ro.apply_rotary(xv, cos, sin, cu_seqlens=cu, max_seqlen=9)
        rv = torch.cat([_rot_varlen(xv[a:b_], cos, sin, rd) for a, b_ in ((0, 4), (4, 13))])
        res.append(close("varlen", yv, rv, atol=1e-5))
        outs.append(yv)
    return res, outs


def _rot_varlen(x, cos, sin, rd):
    torch = torch_mod()
    n = x.shape[0]
    c, s_ = cos[:n, None], sin[:n, None]
    x1, x2 = x[..., :rd // 2], x[..., rd // 2:rd]
    return torch.cat([x1 * c - x2 * s_, x1 * s_ + x2 * c, x[..., rd:]], -1)


@case("flash_attn.cross_entropy", "flash_attn")
def _(dev):
    torch = torch_mod()
    ce = _flash("flash_attn.ops.triton.cross_entropy")
    x = rnd(6, 300, dev=dev, scale=3.0)
    t = torch.tensor([3, 299, -100, 0, 57, 100], device=dev)
    res, outs = [], []
    with _cuda_host(dev):
        r1, o1 = compare_fwd_bwd(
            lambda x: ce.cross_entropy_loss(x, t, label_smoothing=0.1, lse_square_scale=1e-3)[0].sum(),
            lambda x: (torch.nn.functional.cross_entropy(x, t, ignore_index=-100, label_smoothing=0.1, reduction="none")
                       + 1e-3 * torch.logsumexp(x, -1) ** 2 * (t != -100)).sum(),
            [x], atol=1e-4, names=["logits"])
        r2, o2 = compare_fwd_bwd(
            lambda x: ce.cross_entropy_loss(x, t, logit_scale=0.5)[0].sum(),
            lambda x: torch.nn.functional.cross_entropy(0.5 * x, t, ignore_index=-100, reduction="sum"),
            [x], atol=1e-4, names=["logits"])
    return [("smooth+z " + c[0], c[1], c[2]) for c in r1] + [("scaled " + c[0], c[1], c[2]) for c in r2], o1 + o2


@case("flash_attn.triton_attention", "flash_attn")
def _(dev):
    # flash-attn's Triton FlashAttention (flash_attn_triton_amd: written for ROCm, plain
    # Triton), the forward, causal and not. Its backward launches pass `waves_per_eu=` (an
    # AMD compile option) as a launch keyword, which Triton's CUDA backend refuses
    # ("Keyword argument waves_per_eu was specified but unrecognised") as tritium does: AMD only.
    torch = torch_mod()
    fa = _flash("flash_attn.flash_attn_triton_amd.interface_fa")
    # The forward's config carries `waves_per_eu` too: removed from the configs' kwargs here
    # (host code; the kernels are as fetched)
    for mod in [m for n, m in sys.modules.items() if n.startswith("flash_attn.flash_attn_triton_amd.")]:
        for value in list(vars(mod).values()):
            for config in getattr(value, "configs", None) or []:
                if isinstance(getattr(config, "kwargs", None), dict):
                    config.kwargs.pop("waves_per_eu", None)
    B, S, H, D = 1, 40, 2, 32
    q, k, v = (rnd(B, S, H, D, dev=dev, seed=s, dtype=torch.float16) for s in (1, 2, 3))
    scale = D ** -0.5
    res, outs = [], []
    for causal in (False, True):
        ref_o = _ref_attention(*(t.float().transpose(1, 2) for t in (q, k, v)), scale, causal).transpose(1, 2)
        with _cuda_host(dev):
            o = torch.empty_like(q)
            o, lse, _, _ = fa.fwd(q, k, v, o, None, 0.0, scale, causal, -1, -1, 0.0, False)
        res.append(close("causal out" if causal else "out", o, ref_o, atol=2e-3, rtol=2e-3))
        outs.append(o)
    return res, outs


# ---------------------------------------------------------------------------------- sglang

def _sglang(name, triton_only=False):
    """sglang's package __init__ starts its runtime (transformers, FlashInfer), its kernel
    groups' __init__s a registry (msgspec), and
    `sglang.srt.utils` imports its server stack (orjson, PIL, starlette, msgspec...); the
    attention kernels read five of its functions, given here (not HIP, no gfx; the CPU's
    "core count" 4), and `sglang.srt.environ` (no heavy imports) as it is. triton_only: the
    module is imported as off CUDA (is_cuda() False while it imports), for modules that
    route a function to sglang's own CUDA kernels there (built by nvcc at run time) instead
    of the Triton kernel the case tests."""
    torch = torch_mod()
    parts = name.split(".")
    for p in ["sglang.srt"] + [".".join(parts[:i]) for i in range(1, len(parts))]:
        _package_without_init(p, ARGS.src)  # (the kernels' group packages import a registry)
    if "sglang.srt.utils" not in sys.modules or not isinstance(sys.modules["sglang.srt.utils"], _StubModule):
        _stub_modules(["sglang.srt.utils"], is_hip=lambda: False, is_cuda=lambda: torch.cuda.is_available(),
                      is_gfx95_supported=lambda: False, is_gfx1250_supported=lambda: False,
                      get_device_core_count=lambda *a, **k: 4)
    if not triton_only or name in sys.modules:
        return importlib.import_module(name)
    utils = sys.modules["sglang.srt.utils"]
    is_cuda = utils.is_cuda
    utils.is_cuda = lambda: False
    try:
        return importlib.import_module(name)
    finally:
        utils.is_cuda = is_cuda


def _paged_kv(dev, ntok, Hk, D, dtype, seed):
    return rnd(ntok, Hk, D, dev=dev, seed=seed, dtype=dtype)


@case("sglang.decode_attention", "sglang")
def _(dev):
    # both stage-1 kernels (MHA "normal" and grouped GQA) and the split-KV reduction
    torch = torch_mod()
    da = _sglang("sglang.kernels.ops.attention.decode_attention")
    res, outs = [], []
    for label, H, Hk in (("mha", 4, 4), ("gqa", 8, 2)):
        B, D, ntok, splits = 2, 64, 200, 4
        seq = [37, 90]
        q = rnd(B, H, D, dev=dev)
        kb, vb = _paged_kv(dev, ntok, Hk, D, None, 2), _paged_kv(dev, ntok, Hk, D, None, 3)
        perm = torch.randperm(ntok, generator=torch.Generator().manual_seed(4))
        kv_indices = perm[:sum(seq)].to(torch.int32).to(dev)
        kv_indptr = torch.tensor([0, seq[0], sum(seq)], device=dev, dtype=torch.int32)
        o = torch.zeros(B, H, D, device=dev)
        logits = torch.empty(B, H, splits, D, device=dev)
        lse = torch.empty(B, H, splits, device=dev)
        nsplits = torch.tensor([2, 4], device=dev, dtype=torch.int32)
        scale = D ** -0.5
        with _cuda_host(dev):
            da.decode_attention_fwd(q, kb, vb, o, kv_indptr, kv_indices, logits, lse, nsplits, splits,
                                    scale, 1.0, 1.0)
        refs = []
        for b in range(B):
            idx = kv_indices[kv_indptr[b]:kv_indptr[b + 1]].long()
            kk = kb[idx].transpose(0, 1).repeat_interleave(H // Hk, 0)
            vv = vb[idx].transpose(0, 1).repeat_interleave(H // Hk, 0)
            refs.append(_ref_attention(q[b][:, None], kk, vv, scale, False)[:, 0])
        res.append(close(label, o, torch.stack(refs), atol=3e-3, rtol=3e-3))  # tf32 dots
        outs.append(o)
    return res, outs


@case("sglang.extend_attention", "sglang")
def _(dev):
    # a prefix in the paged KV buffer plus causal attention within the new tokens
    torch = torch_mod()
    ea = _sglang("sglang.kernels.ops.attention.extend_attention")
    H, Hk, D, ntok = 4, 2, 64, 300
    prefix, extend = [10, 33], [7, 20]
    qe = rnd(sum(extend), H, D, dev=dev)
    ke, ve = rnd(sum(extend), Hk, D, dev=dev, seed=2), rnd(sum(extend), Hk, D, dev=dev, seed=3)
    kb, vb = _paged_kv(dev, ntok, Hk, D, None, 4), _paged_kv(dev, ntok, Hk, D, None, 5)
    perm = torch.randperm(ntok, generator=torch.Generator().manual_seed(6))
    kv_indices = perm[:sum(prefix)].to(torch.int32).to(dev)
    kv_indptr = torch.tensor([0, prefix[0], sum(prefix)], device=dev, dtype=torch.int32)
    qo_indptr = torch.tensor([0, extend[0], sum(extend)], device=dev, dtype=torch.int32)
    o = torch.zeros_like(qe)
    scale = D ** -0.5
    with _cuda_host(dev):
        ea.extend_attention_fwd(qe, ke, ve, o, kb, vb, qo_indptr, kv_indptr, kv_indices, None, True,
                                None, max(extend), 1.0, 1.0, sm_scale=scale)
    refs = []
    for b in range(2):
        idx = kv_indices[kv_indptr[b]:kv_indptr[b + 1]].long()
        s0, s1 = int(qo_indptr[b]), int(qo_indptr[b + 1])
        kk = torch.cat([kb[idx], ke[s0:s1]]).transpose(0, 1).repeat_interleave(H // Hk, 0)
        vv = torch.cat([vb[idx], ve[s0:s1]]).transpose(0, 1).repeat_interleave(H // Hk, 0)
        refs.append(_ref_attention(qe[s0:s1].transpose(0, 1), kk, vv, scale, True).transpose(0, 1))
    return [close("o", o, torch.cat(refs), atol=3e-3, rtol=3e-3)], [o]  # tf32 dots


@case("sglang.prefill_attention", "sglang")
def _(dev):
    torch = torch_mod()
    pa = _sglang("sglang.kernels.ops.attention.prefill_attention")
    H, Hk, D, lens = 4, 2, 64, [9, 40]
    T = sum(lens)
    q, k, v = rnd(T, H, D, dev=dev), rnd(T, Hk, D, dev=dev, seed=2), rnd(T, Hk, D, dev=dev, seed=3)
    res, outs = [], []
    for causal in (True, False):
        o = torch.zeros_like(q)
        with _cuda_host(dev):
            pa.context_attention_fwd(q, k, v, o, torch.tensor([0, lens[0]], device=dev, dtype=torch.int32),
                                     torch.tensor(lens, device=dev, dtype=torch.int32), max(lens),
                                     is_causal=causal)
        refs = []
        for s0, n in zip([0, lens[0]], lens):
            kk = k[s0:s0 + n].transpose(0, 1).repeat_interleave(H // Hk, 0)
            vv = v[s0:s0 + n].transpose(0, 1).repeat_interleave(H // Hk, 0)
            refs.append(_ref_attention(q[s0:s0 + n].transpose(0, 1), kk, vv, D ** -0.5, causal).transpose(0, 1))
        res.append(close("causal" if causal else "full", o, torch.cat(refs), atol=3e-3, rtol=3e-3))
        outs.append(o)
    return res, outs


@case("sglang.merge_state", "sglang")
def _(dev):
    torch = torch_mod()
    ms = _sglang("sglang.kernels.ops.attention.merge_state")
    T, H, D = 5, 4, 48
    po, so = rnd(T, H, D, dev=dev), rnd(T, H, D, dev=dev, seed=2)
    pl, sl = rnd(T, H, dev=dev, seed=3), rnd(T, H, dev=dev, seed=4)
    out, lse = ms.merge_state_triton(po, pl, so, sl)
    m = torch.maximum(pl, sl)
    wp, ws = torch.exp(pl - m), torch.exp(sl - m)
    ref = (po * wp[..., None] + so * ws[..., None]) / (wp + ws)[..., None]
    return [close("out", out, ref, atol=1e-5), close("lse", lse, m + torch.log(wp + ws), atol=1e-5)], [out, lse]


@case("sglang.activations", "sglang")
def _(dev):
    torch = torch_mod()
    ga = _sglang("sglang.kernels.ops.activation.gelu_and_mul_triton")
    sc = _sglang("sglang.kernels.ops.activation.softcap")
    h = rnd(6, 2 * 200, dev=dev)
    g = ga.gelu_and_mul_triton(h)
    g = g[0] if isinstance(g, tuple) else g
    ref_g = torch.nn.functional.gelu(h[:, :200]) * h[:, 200:]  # erf
    logits = rnd(3, 1000, dev=dev, scale=40.0)
    capped = torch.empty(3, 1000, device=dev)
    sc.softcap_to_float32_logits(logits, 30.0, capped)
    gathered = rnd(2, 3, 512, dev=dev, seed=5, scale=40.0)
    gout = torch.empty(3, 1000, device=dev)
    sc.gathered_softcap_logits(gathered, 30.0, gout)
    ref_gather = torch.cat([gathered[0], gathered[1]], -1)[:, :1000]
    return [close("gelu_and_mul", g, ref_g, atol=1e-5),
            close("softcap", capped, 30.0 * torch.tanh(logits / 30.0), atol=1e-4),
            close("gathered softcap", gout, 30.0 * torch.tanh(ref_gather / 30.0), atol=1e-4)], [g, capped, gout]


@case("sglang.rmsnorms", "sglang")
def _(dev):
    torch = torch_mod()
    fr = _sglang("sglang.kernels.ops.layernorm.fused_rmsnorm")
    r32 = _sglang("sglang.kernels.ops.layernorm.rmsnorm_fp32")
    x, r = rnd(5, 192, dev=dev), rnd(5, 192, dev=dev, seed=2)
    w1, w2 = rnd(192, dev=dev, seed=3), rnd(192, dev=dev, seed=4)

    def rms(v, w):
        return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    o1, o2 = fr.fused_dual_residual_rmsnorm(x.clone(), r.clone(), w1, w2, 1e-6)
    s_ = rms(x, w1) + r  # the first norm's output joins the residual, which the second normalises
    y = fr.fused_rmsnorm(x.clone(), w1, 1e-6)
    res = [close("dual out", o1, rms(s_, w2), atol=1e-4), close("dual residual", o2, s_, atol=1e-5),
           close("fused_rmsnorm", y, rms(x, w1), atol=1e-5)]
    if dev == "cuda":  # its wrapper asserts x.is_cuda
        z = r32.rmsnorm_fp32(x, w2, 1e-6)
        res.append(close("rmsnorm_fp32", z, rms(x, w2), atol=1e-5))
    return res, [o1, o2, y]


@case("sglang.causal_conv1d", "sglang")
def _(dev):
    # mamba's causal depthwise conv over packed sequences with cached states (prefill), and
    # the one-token update (decode)
    torch = torch_mod()
    if "sglang.kernels.jit.utils" not in sys.modules:
        # sglang's JIT-kernel package (tvm-ffi, CUDA builds): one function is read
        _package_without_init("sglang.kernels.jit", ARGS.src)
        _stub_modules(["sglang.kernels.jit.utils"], is_arch_support_pdl=lambda *a, **k: False)
    cc = _sglang("sglang.kernels.ops.mamba.causal_conv1d_triton")
    dim, width, lens = 64, 4, [10, 3, 17]
    T = sum(lens)
    x = rnd(T, dim, dev=dev).T  # channel-last: (dim, tokens) with stride 1 along dim
    w, b = rnd(dim, width, dev=dev, seed=2), rnd(dim, dev=dev, seed=3)
    states = rnd(5, dim, width - 1, dev=dev, seed=4)
    cache_idx = torch.tensor([3, 0, 1], device=dev, dtype=torch.int32)
    has_init = torch.tensor([True, False, True], device=dev)
    qsl = torch.tensor([0, 10, 13, 30], device=dev, dtype=torch.int32)
    st = states.clone()
    with _cuda_host(dev):
        out = cc.causal_conv1d_fn(x, w, b, st, qsl, lens, cache_indices=cache_idx,
                                  has_initial_state=has_init, activation="silu")
    ref_out, ref_st = torch.empty(dim, T, device=dev), states.clone()
    for i, (a, n) in enumerate(zip([0, 10, 13], lens)):
        init = states[int(cache_idx[i])] if bool(has_init[i]) else torch.zeros(dim, width - 1, device=dev)
        padded = torch.cat([init, x[:, a:a + n]], 1)
        y = sum(w[:, k:k + 1] * padded[:, k:k + n] for k in range(width)) + b[:, None]
        ref_out[:, a:a + n] = torch.nn.functional.silu(y)
        ref_st[int(cache_idx[i])] = padded[:, -(width - 1):]
    # decode: one token per sequence against the states just written
    xt = rnd(3, dim, dev=dev, seed=6)
    st2 = ref_st.clone()
    with _cuda_host(dev):
        out2 = cc.causal_conv1d_update(xt, st2, w, b, activation="silu", conv_state_indices=cache_idx)
    ref2, ref_st2 = [], ref_st.clone()
    for i in range(3):
        win = torch.cat([ref_st[int(cache_idx[i])], xt[i][:, None]], 1)
        ref2.append(torch.nn.functional.silu((w * win).sum(1) + b))
        ref_st2[int(cache_idx[i])] = win[:, 1:]
    return [close("prefill out", out, ref_out, atol=1e-5), close("prefill states", st, ref_st, atol=0),
            close("decode out", out2, torch.stack(ref2), atol=1e-5),
            close("decode states", st2, ref_st2, atol=0)], [out, st, out2, st2]


@case("sglang.lora_sgemm", "sglang")
def _(dev):
    # segmented LoRA matmuls: A (x @ A_e^T, rank per adapter, 0 = none) and B (scaled,
    # added to the base output), with tokens in adapter order and permuted
    torch = torch_mod()
    if "sglang.srt.lora.utils" not in sys.modules:
        _package_without_init("sglang.srt.lora", ARGS.src)
        _stub_modules(["sglang.srt.lora.utils"])  # LoRABatchInfo: a type annotation only
    la = _sglang("sglang.kernels.ops.lora.dense.sgemm_lora_a")
    lb = _sglang("sglang.kernels.ops.lora.dense.sgemm_lora_b")
    K, R, N, L = 300, 16, 96, 3
    lens = [5, 20, 0, 9]
    S = sum(lens)
    x = rnd(S, K, dev=dev, dtype=torch.float16, scale=0.5)
    A = rnd(L, R, K, dev=dev, seed=2, dtype=torch.float16, scale=0.1)
    Bw = rnd(L, N, R, dev=dev, seed=3, dtype=torch.float16, scale=0.1)
    ranks = torch.tensor([16, 8, 0], device=dev, dtype=torch.int32)  # adapter 2: no LoRA
    widx = torch.tensor([1, 0, 2, 2], device=dev, dtype=torch.int32)
    scal = torch.tensor([0.5, 2.0, 1.0], device=dev, dtype=torch.float32)
    indptr = torch.tensor([0, 5, 25, 25, 34], device=dev, dtype=torch.int32)
    res, outs = [], []
    for label, perm in (("contiguous", None), ("permuted", torch.randperm(S, generator=torch.Generator().manual_seed(4)).to(torch.int32).to(dev))):
        info = types.SimpleNamespace(bs=len(lens), max_len=max(lens), seg_lens=torch.tensor(lens, device=dev, dtype=torch.int32),
                                     seg_indptr=indptr, weight_indices=widx, lora_ranks=ranks, scalings=scal,
                                     permutation=perm)
        base = rnd(S, N, dev=dev, seed=5, dtype=torch.float16)
        a_out = la.sgemm_lora_a_fwd(x, A, info)
        b_out = lb.sgemm_lora_b_fwd(a_out, Bw, info, base_output=base.clone())
        rows = perm.long() if perm is not None else torch.arange(S, device=dev)
        ref_a, ref_b = torch.zeros(S, R, device=dev), base.float().clone()
        for b in range(len(lens)):
            e, r = int(widx[b]), int(ranks[int(widx[b])])
            for j in range(int(indptr[b]), int(indptr[b + 1])):
                t = int(rows[j])
                if r == 0:
                    continue
                ref_a[t, :r] = x[t].float() @ A[e, :r].float().T
                ref_b[t] += float(scal[e]) * (ref_a[t, :r].half().float() @ Bw[e, :, :r].float().T)
        # A's output is written for each row's adapter rank only (the rest is left as it was)
        mask = torch.zeros(S, R, dtype=torch.bool, device=dev)
        for j in range(S):
            b = int((indptr[1:] <= j).sum())
            mask[int(rows[j]), :int(ranks[int(widx[b])])] = True
        res += [close(f"{label} A", a_out.float().masked_fill(~mask, 0), ref_a, atol=2e-2, rtol=2e-2),
                close(f"{label} B", b_out, ref_b, atol=3e-2, rtol=2e-2)]
        outs += [a_out.masked_fill(~mask, 0), b_out]
    return res, outs


@case("sglang.sampling_renorm", "sglang")
def _(dev):
    torch = torch_mod()
    rn = _sglang("sglang.kernels.ops.sampling.renorm_triton")
    if dev == "cpu":
        # its input check refuses a tensor that is not on a GPU: on the CPU, the same check
        # without that condition (host code; the kernels are as fetched)
        rn._prepare_probs = lambda p: p.float().contiguous()
    probs = torch.softmax(rnd(4, 500, dev=dev, scale=3.0), -1)
    top_p = torch.tensor([0.9, 0.5, 1.0, 0.1], device=dev)
    top_k = torch.tensor([1, 10, 500, 37], device=dev)
    pp = rn.top_p_renorm_probs_triton(probs, top_p)
    pk = rn.top_k_renorm_probs_triton(probs, top_k)
    ref_p, ref_k = torch.zeros_like(probs), torch.zeros_like(probs)
    for i in range(4):
        sp, idx = probs[i].sort(descending=True)
        keep = (sp.cumsum(0) - sp) < top_p[i]  # the smallest prefix reaching p
        pivot = sp[keep].min()
        kept = torch.where(probs[i] >= pivot, probs[i], torch.zeros_like(probs[i]))
        ref_p[i] = kept / kept.sum()
        pivot_k = sp[int(top_k[i]) - 1]
        kept = torch.where(probs[i] >= pivot_k, probs[i], torch.zeros_like(probs[i]))
        ref_k[i] = kept / kept.sum()
    return [close("top_p", pp, ref_p, atol=1e-6), close("top_k", pk, ref_k, atol=1e-6)], [pp, pk]


@case("sglang.int8_quant", "sglang")
def _(dev):
    torch = torch_mod()
    q8 = _sglang("sglang.kernels.ops.quantization.int8_kernel", triton_only=True)  # group quant: Triton's
    x = rnd(6, 256, dev=dev, scale=3.0)
    q, s_ = q8.per_token_quant_int8(x)
    rs = x.abs().amax(-1, keepdim=True) / 127.0
    qg, sg = q8.per_token_group_quant_int8(x, 64)
    xg = x.view(6, 4, 64)
    rsg = xg.abs().amax(-1).clamp(min=1e-10) / 127.0
    # rounding of .5 may differ by one step between implementations
    return [close("scale", s_, rs, atol=1e-6), close("q", q.float(), torch.round(x / rs).clamp(-128, 127), atol=1.0, rtol=0),
            close("group scale", sg, rsg, atol=1e-6),
            close("group q", qg.float().view(6, 4, 64), torch.round(xg / rsg[..., None]).clamp(-128, 127), atol=1.0, rtol=0)], [q, s_, qg, sg]


# --------------------------------------------------------------------------------- unsloth


@contextlib.contextmanager
def _flash_attn_hidden():
    """`flash_attn` hidden while a project imports (transformers would find the fetched
    flash_attn, whose CUDA extension is not built), restored afterwards."""
    hidden = sys.modules.get("flash_attn", "absent")
    sys.modules["flash_attn"] = None
    try:
        yield
    finally:
        if hidden == "absent":
            del sys.modules["flash_attn"]
        else:
            sys.modules["flash_attn"] = hidden


def _unsloth(name, dev):
    """unsloth's package __init__ patches transformers and needs a GPU; its kernels' modules
    import unsloth.device_type, unsloth_zoo (fetched with it, same release) and transformers.
    UNSLOTH_ALLOW_CPU=1 is unsloth's own test switch (device type "cuda" without a GPU).
    While they import, `flash_attn` is hidden: transformers finds the fetched flash_attn
    folder and would import its CUDA extension."""
    if name in sys.modules:
        return sys.modules[name]
    if importlib.util.find_spec("transformers") is None:
        raise Skip("unsloth imports transformers, which is not installed")
    if dev == "cpu":
        os.environ["UNSLOTH_ALLOW_CPU"] = "1"
    os.environ["UNSLOTH_IS_PRESENT"] = "1"  # what `import unsloth` sets before unsloth_zoo runs
    # unsloth_zoo's compiler writes a cache folder, by default in the working directory
    os.environ.setdefault("UNSLOTH_COMPILE_LOCATION", os.path.join(
        os.environ.get("TMPDIR", "/tmp"), "realk-unsloth-compiled-cache"))
    for p in ("unsloth", "unsloth.kernels"):
        _package_without_init(p, ARGS.src)
    with _flash_attn_hidden(), _cuda_host(dev):
        return importlib.import_module(name)


@case("unsloth.swiglu", "unsloth")
def _(dev):
    torch = torch_mod()
    sw = _unsloth("unsloth.kernels.swiglu", dev)
    e, g, dw = rnd(2, 3, 200, dev=dev), rnd(2, 3, 200, dev=dev, seed=2), rnd(6, 200, dev=dev, seed=3)
    with _cuda_host(dev):
        h = sw.swiglu_fg_kernel(e, g)
        # backward in place: DW <- h, e <- DW * f (dg), g <- de
        DW, de_buf, dg_buf = sw.swiglu_DWf_DW_dfg_kernel(dw.clone(), e.view(6, 200).clone(), g.view(6, 200).clone())
    ef, gf = e.view(6, 200), g.view(6, 200)
    f = torch.nn.functional.silu(ef)
    se = torch.sigmoid(ef)
    return [close("h", h, torch.nn.functional.silu(e) * g, atol=1e-5),
            close("bwd h", DW, f * gf, atol=1e-5), close("bwd df", de_buf, dw * f, atol=1e-5),
            close("bwd de", dg_buf, dw * gf * se * (1 + ef * (1 - se)), atol=1e-5)], [h, DW, de_buf, dg_buf]


@case("unsloth.geglu", "unsloth")
def _(dev):
    torch = torch_mod()
    gg = _unsloth("unsloth.kernels.geglu", dev)
    e, g, dw = rnd(2, 3, 130, dev=dev), rnd(2, 3, 130, dev=dev, seed=2), rnd(6, 130, dev=dev, seed=3)
    res, outs = [], []
    for approx in (False, True):
        mode = "tanh" if approx else "none"
        with _cuda_host(dev):
            fwd = gg.geglu_approx_forward_kernel if approx else gg.geglu_exact_forward_kernel
            bwd = gg.geglu_approx_backward_kernel if approx else gg.geglu_exact_backward_kernel
            h = fwd(e, g)
            DW, df, de = bwd(dw.clone(), e.view(6, 130).clone(), g.view(6, 130).clone())
        ef = e.view(6, 130).clone().requires_grad_(True)
        f = torch.nn.functional.gelu(ef, approximate=mode)
        (dfe,) = torch.autograd.grad(f, ef, dw * g.view(6, 130))
        res += [close(f"{mode} h", h, torch.nn.functional.gelu(e, approximate=mode) * g, atol=1e-5),
                close(f"{mode} bwd h", DW, f * g.view(6, 130), atol=1e-5),
                close(f"{mode} bwd df", df, dw * f, atol=1e-5),
                close(f"{mode} bwd de", de, dfe, atol=1e-5)]
        outs += [h, DW, df, de]
    return res, outs


@case("unsloth.rms_layernorm", "unsloth")
def _(dev):
    torch = torch_mod()
    rl = _unsloth("unsloth.kernels.rms_layernorm", dev)
    res, outs = [], []
    for label, shape, gemma, dtype in (("llama", (3, 5, 96), False, None), ("gemma", (4, 200), True, None),
                                       ("llama many rows bf16", (300, 256), False, torch.bfloat16)):
        x = rnd(*shape, dev=dev, dtype=dtype)
        w = rnd(shape[-1], dev=dev, seed=2, dtype=dtype)

        def ref(x, w, gemma=gemma):
            # in fp32 but for the rounding the forward does (normed to W's dtype, llama)
            xf = x.float()
            y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
            return (y * (w.float() + 1.0) if gemma else y.to(x.dtype).float() * w.float()).to(x.dtype)
        tol = 3e-2 if dtype is not None else 1e-4
        with _cuda_host(dev):
            r, o = compare_fwd_bwd(lambda x, w: rl.Fast_RMS_Layernorm.apply(x, w, 1e-6, gemma), ref, [x, w],
                                   atol=tol, rtol=tol, names=["X", "W"])
        res += [(f"{label} {c[0]}", c[1], c[2]) for c in r]
        outs += o
    # The narrow-row kernels (ROWS rows a program, 33..128 columns) replay the one-row
    # kernels' GPU reduction order; unsloth self-checks them bit for bit against the one-row
    # kernels and falls back to those on a mismatch, which the interpreter's summation
    # order always gives. Forced here, against torch.
    for label, gemma in (("multirow llama", False), ("multirow gemma", True)):
        x, w, dy = rnd(70, 96, dev=dev, seed=5), rnd(96, dev=dev, seed=6), rnd(70, 96, dev=dev, seed=7)
        settings = rl._multirow_settings(96)
        with _cuda_host(dev):
            y, rr = rl._rms_forward(x, w, 1e-6, gemma, rl._eager_kernel, settings)
            dx = torch.empty_like(dy)
            rl._rms_backward(dy, dx, x, w, rr, 1e-6, gemma, rl._eager_kernel, settings)
        xr = x.clone().requires_grad_(True)
        ry = xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-6) * (w + 1.0 if gemma else w)
        (rdx,) = torch.autograd.grad(ry, xr, dy)
        res += [close(f"{label} out", y, ry, atol=1e-5), close(f"{label} dX", dx, rdx, atol=1e-5)]
        outs += [y, dx]
    return res, outs


@case("unsloth.layernorm", "unsloth")
def _(dev):
    torch = torch_mod()
    ln = _unsloth("unsloth.kernels.layernorm", dev)
    x, w, b = rnd(2, 7, 160, dev=dev), rnd(160, dev=dev, seed=2), rnd(160, dev=dev, seed=3)
    with _cuda_host(dev):
        return compare_fwd_bwd(lambda x, w, b: ln.Fast_Layernorm.apply(x, w, b, 1e-5),
                               lambda x, w, b: torch.nn.functional.layer_norm(x, (160,), w, b, 1e-5),
                               [x, w, b], atol=1e-4, names=["X", "W", "b"])


@case("unsloth.rope", "unsloth")
def _(dev):
    torch = torch_mod()
    ro = _unsloth("unsloth.kernels.rope_embedding", dev)
    bsz, hq, hk, s, d = 2, 4, 2, 7, 32
    q, k = rnd(bsz, hq, s, d, dev=dev), rnd(bsz, hk, s, d, dev=dev, seed=2)
    ang = torch.arange(16, dtype=torch.float32)[:, None] * torch.arange(d // 2)[None] * 0.1
    ang = torch.cat([ang, ang], -1)
    cos, sin = ang.cos().to(dev), ang.sin().to(dev)

    def rot(x, c, s_):
        return x * c + _rotate_half(x) * s_

    def ref(q, k):
        c, s_ = cos[:s], sin[:s]
        return torch.cat([rot(q, c, s_).flatten(), rot(k, c, s_).flatten()])

    def mine(q, k):
        qo, ko = ro.fast_rope_embedding(q, k, cos, sin)
        return torch.cat([qo.flatten(), ko.flatten()])
    with _cuda_host(dev):
        r1, o1 = compare_fwd_bwd(mine, ref, [q, k], atol=1e-5, names=["q", "k"])
        # explicit positions per token (TRL's packed sequences): the indexed kernel
        pos = torch.tensor([[3, 4, 5, 6, 7, 8, 9], [0, 1, 2, 0, 1, 2, 3]], device=dev, dtype=torch.int32)

        def ref_idx(q, k):
            c, s_ = cos[pos.long()][:, None], sin[pos.long()][:, None]
            return torch.cat([rot(q, c, s_).flatten(), rot(k, c, s_).flatten()])

        def mine_idx(q, k):
            qo, ko = ro.fast_rope_embedding(q, k, cos, sin, pos)
            return torch.cat([qo.flatten(), ko.flatten()])
        r2, o2 = compare_fwd_bwd(mine_idx, ref_idx, [q, k], atol=1e-5, names=["q", "k"])
    return r1 + [("indexed " + c[0], c[1], c[2]) for c in r2], o1 + o2


@case("unsloth.cross_entropy", "unsloth")
def _(dev):
    torch = torch_mod()
    ce = _unsloth("unsloth.kernels.cross_entropy_loss", dev)
    res, outs = [], []
    for label, V, cap, scl in (("plain", 300, 0, 0), ("softcap+scale", 300, 30.0, 0.5),
                               ("chunked V=70000", 70000, 0, 0)):
        x = rnd(2, 3, V, dev=dev, scale=2.0)
        t = torch.tensor([[3, V - 1, -100], [0, 57, 100]], device=dev)

        def ref(x):
            z = x.float() * (scl if scl else 1.0)
            if cap:
                z = cap * torch.tanh(z / cap)
            return torch.nn.functional.cross_entropy(z.view(-1, V), t.view(-1), ignore_index=-100)
        with _cuda_host(dev):
            r, o = compare_fwd_bwd(lambda x: ce.fast_cross_entropy_loss(x, t, cap, scl), ref, [x],
                                   atol=1e-5, rtol=1e-4, names=["logits"])
        res += [(f"{label} {c[0]}", c[1], c[2]) for c in r]
        outs += o
    return res, outs


@case("unsloth.fused_add_rms_layernorm", "unsloth")
def _(dev):
    torch = torch_mod()
    fa = _unsloth("unsloth.kernels.fused_add_rms_layernorm", dev)
    x, r, w = rnd(1, 3, 128, dev=dev), rnd(1, 3, 128, dev=dev, seed=2), rnd(128, dev=dev, seed=3)
    X, R = x.clone(), r.clone()
    with _cuda_host(dev):
        out = fa.fast_add_rms_layernorm_inference(X, R, w, 1e-6)
    s_ = x + r
    ref = s_ * torch.rsqrt(s_.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    return [close("out", out, ref, atol=1e-5), close("residual", R, s_, atol=1e-6)], [out, R]


# ------------------------------------------------------------------------------- FlagGems

class _FlagGemsConfigs:
    """FlagGems' LibTuner keeps its tuned configs in an SQLite file through SQLAlchemy
    (flag_gems.utils.models.sql), which is not installed here: this in-memory model stands
    for it, for the process (in the interpreter tritium's Autotuner._bench gives every
    config the same time, so the first config is chosen)."""

    def __init__(self, *args, **kwargs):
        self.configs, self.benchmarks = {}, {}

    def get_config(self, name, key):
        return self.configs.get((name, tuple(key)))

    def put_config(self, name, key, config):
        self.configs[(name, tuple(key))] = config

    def get_benchmark(self, name, key, config=None):
        return self.benchmarks.get((name, tuple(key), str(config)))

    def put_benchmark(self, name, key, config, benchmark):
        self.benchmarks[(name, tuple(key), str(config))] = benchmark


def _flag_gems(dev):
    """Imports flag_gems for NVIDIA (GEMS_VENDOR; it would otherwise probe the machine's
    vendor tools). Its import asks torch.cuda for the device count (one cache of launched
    kernels per device) and the device name (the tuning database's file name): on the CPU
    those answer as for one GPU (_cuda_host, device_count 1 while it imports). Generated
    code (pointwise_dynamic) goes to a temporary FLAGGEMS_CACHE_DIR."""
    if "flag_gems" in sys.modules:
        return sys.modules["flag_gems"]
    import tempfile
    torch = torch_mod()
    os.environ.setdefault("GEMS_VENDOR", "nvidia")
    os.environ.setdefault("FLAGGEMS_CACHE_DIR", tempfile.mkdtemp(prefix="realk-flaggems-"))
    sql = types.ModuleType("flag_gems.utils.models.sql")
    sql.SQLPersistantModel = _FlagGemsConfigs
    sys.modules[sql.__name__] = sql
    saved = torch.cuda.device_count
    if dev == "cpu":
        torch.cuda.device_count = lambda: 1
    try:
        with _cuda_host(dev):
            return importlib.import_module("flag_gems")
    finally:
        torch.cuda.device_count = saved


def _fg_case(name, body):
    """A FlagGems case: body(fg, dev, torch) returns [(label, got, ref, atol)], run with the
    GPU questions answered (_cuda_host)."""
    @case("flag_gems." + name, "flag_gems")
    def _(dev):
        torch = torch_mod()
        fg = _flag_gems(dev)
        with _cuda_host(dev):
            checks = body(fg, dev, torch)
        res = [close(label, got, ref, atol=atol, rtol=atol) for label, got, ref, atol in checks]
        return res, [c[1] for c in checks]
    return body


def _fg_dtypes(torch):
    return (("fp32", torch.float32, 1e-5), ("fp16", torch.float16, 2e-3), ("bf16", torch.bfloat16, 1.6e-2))


def _fg_softmax(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(6, 300, dev=dev, dtype=dt, scale=2.0)
        out.append((f"{label} dim-1", fg.softmax(x, -1), torch.softmax(x.float(), -1), tol))
        x3 = rnd(4, 37, 5, dev=dev, dtype=dt, seed=3)
        out.append((f"{label} dim1 (non-inner)", fg.softmax(x3, 1), torch.softmax(x3.float(), 1), tol))
    x = rnd(5, 130, dev=dev).requires_grad_(True)
    y = torch.softmax(x, -1)
    g = rnd(5, 130, dev=dev, seed=9)
    (dx,) = torch.autograd.grad(y, x, g)
    out.append(("bwd", fg.softmax_backward(g, y.detach(), -1, torch.float32), dx, 1e-5))
    x3 = rnd(3, 20, 6, dev=dev, seed=4).requires_grad_(True)
    y3 = torch.softmax(x3, 1)
    g3 = rnd(3, 20, 6, dev=dev, seed=5)
    (dx3,) = torch.autograd.grad(y3, x3, g3)
    out.append(("bwd dim1", fg.softmax_backward(g3, y3.detach(), 1, torch.float32), dx3, 1e-5))
    return out


def _fg_log_softmax(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(7, 257, dev=dev, dtype=dt, scale=3.0)
        out.append((label, fg.log_softmax(x, -1), torch.log_softmax(x.float(), -1), tol * 4))
    x = rnd(5, 90, dev=dev).requires_grad_(True)
    y = torch.log_softmax(x, -1)
    g = rnd(5, 90, dev=dev, seed=9)
    (dx,) = torch.autograd.grad(y, x, g)
    out.append(("bwd", fg.log_softmax_backward(g, y.detach(), -1, torch.float32), dx, 1e-5))
    return out


def _fg_layer_norm(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(6, 200, dev=dev, dtype=dt)
        w, b = rnd(200, dev=dev, dtype=dt, seed=2), rnd(200, dev=dev, dtype=dt, seed=3)
        y = fg.layer_norm(x, [200], w, b, 1e-5)[0]
        ref = torch.nn.functional.layer_norm(x.float(), (200,), w.float(), b.float(), 1e-5)
        out.append((label, y, ref, tol * 2))
    x = rnd(9, 64, dev=dev)
    w, b = rnd(64, dev=dev, seed=2), rnd(64, dev=dev, seed=3)
    y, mean, rstd = fg.layer_norm(x, [64], w, b, 1e-5)
    g = rnd(9, 64, dev=dev, seed=4)
    xr, wr, br = (t.clone().requires_grad_(True) for t in (x, w, b))
    dx, dw, db = torch.autograd.grad(torch.nn.functional.layer_norm(xr, (64,), wr, br, 1e-5), (xr, wr, br), g)
    gx, gw, gb = fg.layer_norm_backward(g, x, [64], mean, rstd, w, b, [True, True, True])
    return out + [("bwd dX", gx, dx, 1e-4), ("bwd dW", gw, dw, 1e-4), ("bwd dB", gb, db, 1e-4)]


def _fg_rms_norm(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(3, 5, 128, dev=dev, dtype=dt)
        w = rnd(128, dev=dev, dtype=dt, seed=2)
        xf = x.float()
        ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
        out.append((label, fg.rms_norm(x, [128], w, 1e-6), ref, tol * 2))
    x, w = rnd(6, 96, dev=dev), rnd(96, dev=dev, seed=2)

    def ref(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    o, gs = fwd_bwd(lambda x, w: fg.rms_norm(x, [96], w, 1e-6), [x, w])
    ro, rgs = fwd_bwd(ref, [x, w])
    return out + [("autograd out", o, ro, 1e-5), ("autograd dX", gs[0], rgs[0], 1e-4),
                  ("autograd dW", gs[1], rgs[1], 1e-4)]


def _fg_fused_norms(fg, dev, torch):
    x, r = rnd(5, 160, dev=dev, seed=1), rnd(5, 160, dev=dev, seed=2)
    w, b = rnd(160, dev=dev, seed=3), rnd(160, dev=dev, seed=4)
    X, R = x.clone(), r.clone()
    s_ = x + r
    y = fg.fused_add_rms_norm(X, R, [160], w, 1e-6)
    y = y[0] if isinstance(y, (tuple, list)) else y
    ref = s_ * torch.rsqrt(s_.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    sk = fg.skip_layer_norm(x, r, [160], w, b, 1e-5)
    return [("fused_add_rms_norm out", y, ref, 1e-5), ("fused_add_rms_norm residual", R, s_, 1e-6),
            ("skip_layer_norm", sk, torch.nn.functional.layer_norm(s_, (160,), w, b, 1e-5), 1e-5)]


def _fg_group_norm(fg, dev, torch):
    x = rnd(2, 8, 5, 7, dev=dev)
    w, b = rnd(8, dev=dev, seed=2), rnd(8, dev=dev, seed=3)
    y = fg.group_norm(x, w, b, 2, 8, 35, 4, 1e-5)[0]
    return [("out", y, torch.nn.functional.group_norm(x, 4, w, b, 1e-5), 1e-5)]


def _fg_batch_norm(fg, dev, torch):
    x = rnd(4, 6, 9, dev=dev)
    w, b = rnd(6, dev=dev, seed=2), rnd(6, dev=dev, seed=3)
    rm, rv = torch.zeros(6, device=dev), torch.ones(6, device=dev)
    rm2, rv2 = rm.clone(), rv.clone()
    y = fg.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)[0]
    ref = torch.nn.functional.batch_norm(x, rm2, rv2, w, b, True, 0.1, 1e-5)
    return [("train out", y, ref, 1e-5), ("running_mean", rm, rm2, 1e-6), ("running_var", rv, rv2, 1e-5)]


def _fg_cumsum(fg, dev, torch):
    x = rnd(4, 1000, dev=dev)
    xi = (rnd(3, 700, dev=dev, seed=2) * 10).to(torch.int32)
    x3 = rnd(3, 33, 5, dev=dev, seed=3)
    xh = rnd(2, 300, dev=dev, dtype=torch.float16, seed=4)
    return [("fp32 dim1", fg.cumsum(x, 1), torch.cumsum(x, 1), 1e-4),
            ("int32", fg.cumsum(xi, 1), torch.cumsum(xi, 1), 0),
            ("dim1 of 3", fg.cumsum(x3, 1), torch.cumsum(x3, 1), 1e-5),
            ("fp16", fg.cumsum(xh, 1), torch.cumsum(xh.float(), 1), 2e-2)]


def _fg_cummax(fg, dev, torch):
    x = rnd(3, 300, dev=dev)
    v, i = fg.cummax(x, 1)
    rv, ri = torch.cummax(x, 1)
    return [("values", v, rv, 0), ("indices", i, ri, 0)]


def _fg_sort(fg, dev, torch):
    out = []
    x = rnd(4, 200, dev=dev)
    for desc in (False, True):
        v, i = fg.sort(x, -1, desc)
        rv, ri = torch.sort(x, -1, desc)
        out += [(f"desc={desc} values", v, rv, 0), (f"desc={desc} gathered", x.gather(-1, i), rv, 0)]
    xi = (rnd(3, 77, dev=dev, seed=2) * 100).to(torch.int64)
    v, i = fg.sort(xi, -1, False)
    out.append(("int64 values", v, torch.sort(xi, -1)[0], 0))
    return out


def _fg_topk(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch)[:2]:
        x = rnd(5, 300, dev=dev, dtype=dt)
        for largest in (True, False):
            v, i = fg.topk(x, 7, -1, largest, True)
            rv, _ = torch.topk(x.float(), 7, -1, largest, True)
            out += [(f"{label} largest={largest} values", v, rv, 0),
                    (f"{label} largest={largest} gathered", x.gather(-1, i), rv, 0)]
    return out


def _fg_argmax_max(fg, dev, torch):
    x = rnd(6, 333, dev=dev)
    # (64: FlagGems' non-inner argmax takes TILE_N = N for N <= 128, so an N that is not a
    # power of two fails tl.arange, on Triton as here: its bug, see RESULTS.md)
    x3 = rnd(4, 64, 3, dev=dev, seed=2)
    m, mi = fg.max_dim(x, 1)
    return [("argmax dim1", fg.argmax(x, 1), torch.argmax(x, 1), 0),
            ("argmax all", fg.argmax(x), torch.argmax(x), 0),
            ("argmax dim1 of 3", fg.argmax(x3, 1), torch.argmax(x3, 1), 0),
            ("max_dim values", m, x.max(1)[0], 0), ("max_dim indices", mi, x.max(1)[1], 0),
            ("amax dim0", fg.amax(x, [0]), x.amax(0), 0)]


def _fg_reductions(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(7, 513, dev=dev, dtype=dt)
        out += [(f"{label} sum", fg.sum(x), x.float().sum(), tol * 50),
                (f"{label} sum_dim1", fg.sum_dim(x, [1]), x.float().sum(1), tol * 20),
                (f"{label} mean_dim0", fg.mean_dim(x, [0]), x.float().mean(0), tol * 2)]
    x = rnd(4, 30, dev=dev, scale=0.5) + 1.0
    out += [("prod_dim1", fg.prod_dim(x, 1), x.prod(1), 1e-4), ("mean all", fg.mean(x), x.mean(), 1e-5)]
    return out


def _fg_var_norm(fg, dev, torch):
    x = rnd(6, 400, dev=dev)
    v, m = fg.var_mean(x, [1], correction=1)
    rv, rm = torch.var_mean(x, 1, correction=1)
    return [("var_mean var", v, rv, 1e-5), ("var_mean mean", m, rm, 1e-5),
            ("std dim0", fg.std(x, [0], correction=1), x.std(0), 1e-5),
            ("vector_norm 2 dim1", fg.vector_norm(x, 2, [1]), torch.linalg.vector_norm(x, 2, 1), 1e-4),
            ("vector_norm inf all", fg.vector_norm(x, float("inf")), torch.linalg.vector_norm(x, float("inf")), 0),
            ("vector_norm 1 all", fg.vector_norm(x, 1), torch.linalg.vector_norm(x, 1), 1e-3)]


def _fg_mm(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        a, b = rnd(37, 70, dev=dev, dtype=dt), rnd(70, 45, dev=dev, dtype=dt, seed=2)
        ref = a.float() @ b.float()
        out.append((f"mm {label}", fg.mm(a, b), ref, 1e-4 if dt == torch.float32 else tol * 8))
    a, b = rnd(3, 20, 33, dev=dev), rnd(3, 33, 18, dev=dev, seed=2)
    out.append(("bmm fp32", fg.bmm(a, b), a @ b, 1e-4))
    m1, m2, bias = rnd(16, 40, dev=dev), rnd(40, 24, dev=dev, seed=2), rnd(24, dev=dev, seed=3)
    out.append(("addmm", fg.addmm(bias, m1, m2, beta=0.5, alpha=2.0), 0.5 * bias + 2.0 * (m1 @ m2), 1e-4))
    v = rnd(40, dev=dev, seed=4)
    out.append(("mv", fg.mv(m1, v), m1 @ v, 1e-4))
    return out


def _fg_index(fg, dev, torch):
    x = rnd(10, 37, dev=dev)
    idx = torch.tensor([3, 0, 9, 3, 5], device=dev)
    gi = torch.randint(0, 37, (10, 12), generator=torch.Generator().manual_seed(1)).to(dev)
    src = rnd(10, 12, dev=dev, seed=2)
    si = torch.stack([torch.randperm(37, generator=torch.Generator().manual_seed(r))[:12] for r in range(10)]).to(dev)
    add_src = rnd(5, 37, dev=dev, seed=3)
    return [("index_select dim0", fg.index_select(x, 0, idx), x.index_select(0, idx), 0),
            ("index_select dim1", fg.index_select(x, 1, idx), x.index_select(1, idx), 0),
            ("gather dim1", fg.gather(x, 1, gi), x.gather(1, gi), 0),
            ("scatter dim1", fg.scatter(x, 1, si, src), x.scatter(1, si, src), 0),
            ("scatter add", fg.scatter(x, 1, gi, src, reduce="add"), x.scatter(1, gi, src, reduce="add"), 1e-5),
            ("index_add dim0", fg.index_add(x, 0, idx, add_src), x.index_add(0, idx, add_src), 1e-5)]


def _fg_index_put(fg, dev, torch):
    x = rnd(8, 6, dev=dev)
    rows = torch.tensor([1, 4, 4, 7], device=dev)
    cols = torch.tensor([0, 5, 2, 3], device=dev)
    vals = rnd(4, dev=dev, seed=2)
    return [("index_put", fg.index_put(x, [rows, cols], vals), x.index_put([rows, cols], vals), 0),
            ("index_put accumulate", fg.index_put(x, [rows, cols], vals, True),
             x.index_put([rows, cols], vals, True), 1e-6)]


def _fg_embedding(fg, dev, torch):
    w = rnd(50, 48, dev=dev)
    idx = torch.tensor([[3, 49, 0], [7, 7, 12]], device=dev)
    return [("embedding", fg.embedding(w, idx), torch.nn.functional.embedding(idx, w), 0)]


def _fg_activations(fg, dev, torch):
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(3, 257, dev=dev, dtype=dt, scale=2.0)
        xf = x.float()
        out += [(f"{label} gelu", fg.gelu(x), torch.nn.functional.gelu(xf), tol),
                (f"{label} gelu tanh", fg.gelu(x, approximate="tanh"),
                 torch.nn.functional.gelu(xf, approximate="tanh"), tol),
                (f"{label} silu", fg.silu(x), torch.nn.functional.silu(xf), tol),
                (f"{label} tanh", fg.tanh(x), torch.tanh(xf), tol),
                (f"{label} exp", fg.exp(x), torch.exp(xf), tol),
                (f"{label} glu", fg.glu(x[:, :256], -1), torch.nn.functional.glu(xf[:, :256], -1), tol)]
    x = rnd(4, 100, dev=dev).requires_grad_(True)
    g = rnd(4, 100, dev=dev, seed=3)
    for approx in ("none", "tanh"):
        (dx,) = torch.autograd.grad(torch.nn.functional.gelu(x, approximate=approx), x, g)
        out.append((f"gelu_backward {approx}", fg.gelu_backward(g, x.detach(), approximate=approx), dx, 1e-5))
    return out


def _fg_binary(fg, dev, torch):
    a, b = rnd(5, 1, 70, dev=dev), rnd(3, 70, dev=dev, seed=2)
    c = rnd(5, 3, 70, dev=dev, seed=3) > 0
    ah = a.half()
    return [("add broadcast alpha", fg.add(a, b, alpha=0.5), a + 0.5 * b, 1e-6),
            ("add fp16+scalar", fg.add(ah, 2.5), ah.float() + 2.5, 2e-3),
            ("masked_fill", fg.masked_fill(b, b > 0.5, -1.0), b.masked_fill(b > 0.5, -1.0), 0)]


def _fg_where(fg, dev, torch):
    # FlagGems' where_self asserts that some operand is not on the CPU (its CPU tensors are
    # meant for torch's own kernels): it errors here before any kernel runs.
    a, b = rnd(5, 1, 70, dev=dev), rnd(3, 70, dev=dev, seed=2)
    c = rnd(5, 3, 70, dev=dev, seed=3) > 0
    return [("where", fg.where_self(c, a, b), torch.where(c, a, b), 0)]


def _fg_losses(fg, dev, torch):
    x = torch.log_softmax(rnd(6, 30, dev=dev, scale=2.0), -1)
    t = torch.tensor([3, 29, -100, 0, 17, 5], device=dev)
    w = rnd(30, dev=dev, seed=2).abs() + 0.1
    p, q = rnd(6, 30, dev=dev, seed=3), rnd(6, 30, dev=dev, seed=4)
    out = []
    for red, name in ((0, "none"), (1, "mean"), (2, "sum")):
        got = fg.nll_loss_forward(x, t, w, red, -100)
        got = got[0] if isinstance(got, tuple) else got
        out.append((f"nll {name}", got, torch.nn.functional.nll_loss(x, t, w, reduction=name), 1e-5))
        out.append((f"mse {name}", fg.mse_loss(p, q, red), torch.nn.functional.mse_loss(p, q, reduction=name), 1e-5))
    return out


def _fg_shape_ops(fg, dev, torch):
    a, b = rnd(3, 5, 7, dev=dev), rnd(3, 2, 7, dev=dev, seed=2)
    x = rnd(6, 9, dev=dev, seed=3)
    r = torch.tensor([1, 0, 3, 2, 1, 1], device=dev)
    return [("cat dim1", fg.cat([a, b], 1), torch.cat([a, b], 1), 0),
            ("triu", fg.triu(x, 1), x.triu(1), 0),
            ("repeat_interleave", fg.repeat_interleave_self_int(x, 3, 0), x.repeat_interleave(3, 0), 0),
            ("pad constant", fg.pad(x, [2, 1, 0, 3], "constant", 0.5),
             torch.nn.functional.pad(x, [2, 1, 0, 3], "constant", 0.5), 0),
            ("pad reflect", fg.pad(x[None], [2, 3], "reflect"), torch.nn.functional.pad(x[None], [2, 3], "reflect"), 0),
            ("kron", fg.kron(x[:2, :3], x[:3, :2]), torch.kron(x[:2, :3], x[:3, :2]), 1e-6),
            ("repeat_interleave tensor", fg.repeat_interleave_self_int(x, 2, 1), x.repeat_interleave(2, 1), 0),
            ("one_hot", fg.one_hot(r, 5), torch.nn.functional.one_hot(r, 5), 0)]


def _fg_flip(fg, dev, torch):
    a = rnd(3, 5, 7, dev=dev)
    return [("flip dims 0,2", fg.flip(a, [0, 2]), a.flip([0, 2]), 0), ("flip dim1", fg.flip(a, [1]), a.flip([1]), 0)]


def _fg_select(fg, dev, torch):
    x = rnd(7, 40, dev=dev)
    xi = (rnd(200, dev=dev, seed=2) * 5).to(torch.int64)
    test = torch.tensor([0, 3, -2, 7, 1], device=dev)
    return [("nonzero", fg.nonzero(x > 0.5), torch.nonzero(x > 0.5), 0),
            ("isin", fg.isin(xi, test), torch.isin(xi, test), 0),
            ("isin invert", fg.isin(xi, test, invert=True), torch.isin(xi, test, invert=True), 0)]


def _fg_weight_norm(fg, dev, torch):
    v, g = rnd(8, 30, dev=dev), rnd(8, 1, dev=dev, seed=2)
    got = fg.weight_norm_interface(v, g, 0)
    got = got[0] if isinstance(got, tuple) else got
    return [("weight_norm dim0", got, torch._weight_norm(v, g, 0), 1e-5)]


def _fg_quantile(fg, dev, torch):
    x = rnd(5, 64, dev=dev)
    q = torch.tensor([0.1, 0.5, 0.93], device=dev)
    return [("quantile dim1 linear", fg.quantile(x, q, 1), torch.quantile(x, q, 1), 1e-5)]


def _fg_conv2d(fg, dev, torch):
    x, w, b = rnd(2, 3, 9, 10, dev=dev), rnd(4, 3, 3, 3, dev=dev, seed=2), rnd(4, dev=dev, seed=3)
    return [("conv2d pad1", fg.conv2d(x, w, b, 1, 1), torch.nn.functional.conv2d(x, w, b, 1, 1), 1e-4),
            ("conv2d stride2", fg.conv2d(x, w, None, 2, 0), torch.nn.functional.conv2d(x, w, None, 2, 0), 1e-4)]


for _name, _body in (("softmax", _fg_softmax), ("log_softmax", _fg_log_softmax),
                     ("layer_norm", _fg_layer_norm), ("rms_norm", _fg_rms_norm),
                     ("fused_add_rms_norm_skip_layer_norm", _fg_fused_norms),
                     ("group_norm", _fg_group_norm), ("batch_norm", _fg_batch_norm),
                     ("cumsum", _fg_cumsum), ("cummax", _fg_cummax), ("sort", _fg_sort),
                     ("topk", _fg_topk), ("argmax_max", _fg_argmax_max),
                     ("reductions", _fg_reductions), ("var_std_norm", _fg_var_norm),
                     ("mm_bmm_addmm_mv", _fg_mm), ("index_gather_scatter", _fg_index),
                     ("index_put", _fg_index_put), ("embedding", _fg_embedding),
                     ("activations", _fg_activations), ("binary", _fg_binary), ("where", _fg_where),
                     ("nll_mse_loss", _fg_losses), ("shape_ops", _fg_shape_ops), ("flip", _fg_flip),
                     ("nonzero_isin", _fg_select), ("weight_norm", _fg_weight_norm),
                     ("quantile", _fg_quantile), ("conv2d", _fg_conv2d)):
    _fg_case(_name, _body)


def _fg_sdpa(fg, dev, torch):
    """Flash attention forward (causal and not, GQA) and its backward."""
    out = []
    F = torch.nn.functional
    for label, dt, tol in _fg_dtypes(torch):
        q, k, v = (rnd(2, 3, 40, 64, dev=dev, dtype=dt, seed=s) for s in (1, 2, 3))
        for causal in (False, True):
            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
            out.append((f"{label} causal={causal}", fg.scaled_dot_product_attention(q, k, v, is_causal=causal),
                        ref, max(tol * 4, 1e-4)))
    q = rnd(1, 4, 33, 32, dev=dev, seed=4)
    k, v = rnd(1, 2, 33, 32, dev=dev, seed=5), rnd(1, 2, 33, 32, dev=dev, seed=6)
    ref = F.scaled_dot_product_attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), scale=0.3)
    out.append(("gqa scale", fg.scaled_dot_product_attention(q, k, v, scale=0.3, enable_gqa=True), ref, 1e-4))
    # The backward (causal only: its kernel always masks) loads dO unmasked, so the sequence
    # is a multiple of its blocks (128), and sizes its grid by BLOCK_N1 while dQ's tile is
    # BLOCK_M2: only the configs with BLOCK_M2 == BLOCK_N1 write all of dQ (the project's).
    tuner = fg.ops.attention._attn_bwd.fn
    saved = tuner.configs
    tuner.configs = [c for c in saved if c.kwargs["BLOCK_M2"] == c.kwargs["BLOCK_N1"]]
    try:
        q, k, v = (rnd(1, 2, 128, 32, dev=dev, seed=s).requires_grad_(True) for s in (7, 8, 9))
        g = rnd(1, 2, 128, 32, dev=dev, seed=10)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        ref = torch.autograd.grad(o, (q, k, v), g)
        o2 = fg.scaled_dot_product_attention(q, k, v, is_causal=True)
        got = torch.autograd.grad(o2, (q, k, v), g)
    finally:
        tuner.configs = saved
    # (tf32 dots in the backward)
    out += [(f"bwd causal d{n}", a, b, 1e-2) for n, a, b in zip("qkv", got, ref)]
    return out


def _fg_fused_moe(fg, dev, torch):
    """fused_experts (silu): the routed tokens through gate/up, silu-and-mul, down, the
    top-k weighted sum; unquantized in three dtypes and with int8 weights (w8a16)."""
    out = []
    T, H, I, E, topk = 10, 64, 48, 4, 2
    gen = torch.Generator().manual_seed(3)
    ids = torch.stack([torch.randperm(E, generator=gen)[:topk] for _ in range(T)]).to(dev).to(torch.int32)
    wts = torch.softmax(rnd(T, topk, dev=dev, seed=9), -1)

    def ref_moe(x, w1, w2):
        y = torch.zeros(T, H, device=x.device)
        for t in range(T):
            for j in range(topk):
                e = int(ids[t, j])
                h = w1[e].float() @ x[t].float()
                a = F.silu(h[:I]) * h[I:]
                y[t] += wts[t, j] * (w2[e].float() @ a)
        return y
    F = torch.nn.functional
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(T, H, dev=dev, dtype=dt, seed=1)
        w1 = rnd(E, 2 * I, H, dev=dev, dtype=dt, seed=2, scale=0.2)
        w2 = rnd(E, H, I, dev=dev, dtype=dt, seed=3, scale=0.2)
        got = fg.outplace_fused_experts(x, w1, w2, wts, ids)
        # (fp32: the kernel's tl.dot takes Triton's default tf32 inputs)
        out.append((label, got, ref_moe(x, w1, w2), max(tol * 8, 1e-2 if dt == torch.float32 else 0)))
    x = rnd(T, H, dev=dev, dtype=torch.bfloat16, seed=1)
    w1q = torch.randint(-127, 128, (E, 2 * I, H), generator=gen, dtype=torch.int8).to(dev)
    w2q = torch.randint(-127, 128, (E, H, I), generator=gen, dtype=torch.int8).to(dev)
    s1, s2 = rnd(E, 2 * I, dev=dev, seed=4).abs() * 2e-3 + 1e-3, rnd(E, H, dev=dev, seed=5).abs() * 2e-3 + 1e-3
    got = fg.outplace_fused_experts(x, w1q, w2q, wts, ids, use_int8_w8a16=True, per_channel_quant=True,
                                    w1_scale=s1, w2_scale=s2)
    ref = ref_moe(x, w1q.float() * s1[..., None], w2q.float() * s2[..., None])
    out.append(("int8 w8a16 bf16", got, ref, 3e-2))
    return out


def _fg_moe_routing(fg, dev, torch):
    """topk_softmax (router), moe_align_block_size (tokens sorted by expert, padded to the
    block), moe_sum."""
    out = []
    T, E, topk = 13, 8, 2
    logits = rnd(T, E, dev=dev, seed=2)
    tw = torch.empty(T, topk, device=dev)
    ti = torch.empty(T, topk, dtype=torch.int32, device=dev)
    tei = torch.empty(T, topk, dtype=torch.int32, device=dev)
    fg.topk_softmax(tw, ti, tei, logits, False)
    rv, ri = torch.softmax(logits, -1).topk(topk, -1)
    out += [("topk_softmax weights", tw, rv, 1e-6), ("topk_softmax ids", ti, ri.to(torch.int32), 0)]
    ids = ri.to(torch.int32)
    bs = 4
    sorted_ids, expert_ids, npad = fg.moe_align_block_size(ids, bs, E)
    n = int(npad[0])
    flat = ids.flatten()
    counts = torch.bincount(flat.long(), minlength=E)
    padded = (counts + bs - 1) // bs * bs
    out.append(("align num_tokens_post_pad", npad[:1], padded.sum().reshape(1).to(torch.int32), 0))
    # each block holds one expert's tokens: the real ones and padding (numel)
    exp_blocks = torch.repeat_interleave(torch.arange(E, device=dev), padded // bs).to(torch.int32)
    out.append(("align expert_ids", expert_ids[:n // bs], exp_blocks, 0))
    s = sorted_ids[:n].long()
    real = s < flat.numel()
    out.append(("align sorted experts", flat[s[real]], exp_blocks.repeat_interleave(bs)[real], 0))
    out.append(("align a permutation", torch.sort(s[real]).values, torch.arange(flat.numel()), 0))
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(T, 3, 40, dev=dev, dtype=dt, seed=5)
        o = torch.empty(T, 40, device=dev, dtype=dt)
        fg.moe_sum(x, o)
        out.append((f"moe_sum {label}", o, x.float().sum(1), tol * 2))
    return out


def _fp8_quant_ref(x, group, torch):
    """Per-group absmax / 448 scale, values rounded to e4m3."""
    g = x.float().view(*x.shape[:-1], -1, group)
    s = g.abs().amax(-1, keepdim=True).clamp_min(1e-10) / 448.0
    q = (g / s).clamp(-448, 448).to(torch.float8_e4m3fn)
    return q.view(x.shape), s.squeeze(-1)


def _fg_fp8(fg, dev, torch):
    """per_token_group_quant_fp8 (fp32/fp16/bf16) and w8a8_block_fp8_matmul."""
    out = []
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(6, 256, dev=dev, dtype=dt, seed=3)
        # (its default dtype is e4m3 only where torch saw a GPU of sm_90 at import)
        q, s = fg.per_token_group_quant_fp8(x, 64, dtype=torch.float8_e4m3fn)
        rq, rs = _fp8_quant_ref(x, 64, torch)
        out += [(f"quant {label} scales", s, rs, 1e-6),
                (f"quant {label} values", q.float(), rq.float(), 0)]
    M, N, K, bn, bk = 9, 96, 256, 64, 128
    a = rnd(M, K, dev=dev, seed=1)
    aq, as_ = _fp8_quant_ref(a, bk, torch)
    b = rnd(N, K, dev=dev, seed=2)
    bq = (b * 100).clamp(-448, 448).to(torch.float8_e4m3fn)
    bs_ = rnd((N + bn - 1) // bn, K // bk, dev=dev, seed=3).abs() * 0.01 + 0.001
    for odt in (torch.bfloat16, torch.float16):
        got = fg.w8a8_block_fp8_matmul(aq, bq, as_, bs_, [bn, bk], odt)
        A = aq.float() * as_.repeat_interleave(bk, 1)
        B = bq.float() * bs_.repeat_interleave(bn, 0)[:N].repeat_interleave(bk, 1)
        out.append((f"w8a8 block fp8 -> {str(odt)[6:]}", got, A @ B.T, 1e-2))
    return out


def _fg_gated_acts(fg, dev, torch):
    """silu_and_mul, gelu_and_mul (erf and tanh), geglu (tanh GELU), reglu (swiglu refuses CPU
    tensors)."""
    out = []
    F = torch.nn.functional
    for label, dt, tol in _fg_dtypes(torch):
        x, y = rnd(5, 70, dev=dev, dtype=dt, seed=1), rnd(5, 70, dev=dev, dtype=dt, seed=2)
        xf, yf = x.float(), y.float()
        out += [(f"silu_and_mul {label}", fg.silu_and_mul(x, y), F.silu(xf) * yf, tol * 2),
                (f"gelu_and_mul {label}", fg.gelu_and_mul(x, y), F.gelu(xf) * yf, tol * 2),
                (f"gelu_and_mul tanh {label}", fg.gelu_and_mul(x, y, "tanh"), F.gelu(xf, approximate="tanh") * yf,
                 tol * 2)]
        z = rnd(3, 4, 96, dev=dev, dtype=dt, seed=3)
        a, b = z.float().chunk(2, -1)
        out += [(f"geglu {label}", fg.geglu(z), F.gelu(a, approximate="tanh") * b, tol * 2),
                (f"reglu {label}", fg.reglu(z), F.relu(a) * b, tol * 2)]
    return out


def _fg_rope(fg, dev, torch):
    out = []
    S, Hq, Hk, D = 7, 4, 2, 64
    for label, dt, tol in _fg_dtypes(torch):
        q, k = rnd(2, S, Hq, D, dev=dev, dtype=dt, seed=1), rnd(2, S, Hk, D, dev=dev, dtype=dt, seed=2)
        ang = torch.arange(S)[:, None] * (10000 ** (-torch.arange(0, D, 2) / D))[None]
        cos, sin = ang.cos().to(dev).to(dt), ang.sin().to(dev).to(dt)
        for inter in (False, True):
            qo, ko = fg.apply_rotary_pos_emb(q, k, cos, sin, rotary_interleaved=inter)

            def rot(t):
                t = t.float()
                c, s_ = cos.float()[:, None], sin.float()[:, None]
                if inter:
                    x1, x2 = t[..., 0::2], t[..., 1::2]
                    return torch.stack([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).flatten(-2)
                x1, x2 = t[..., :D // 2], t[..., D // 2:]
                return torch.cat([x1 * c - x2 * s_, x2 * c + x1 * s_], -1)
            out += [(f"{label} interleaved={inter} q", qo, rot(q), tol * 2),
                    (f"{label} interleaved={inter} k", ko, rot(k), tol * 2)]
    return out


def _fg_cross_entropy(fg, dev, torch):
    out = []
    F = torch.nn.functional
    x = rnd(9, 50, dev=dev, scale=2.0)
    t = torch.randint(0, 50, (9,), generator=torch.Generator().manual_seed(2)).to(dev)
    t[3] = -100
    w = rnd(50, dev=dev, seed=3).abs() + 0.5
    for red in ("mean", "sum", "none"):
        out.append((f"indices {red}", fg.cross_entropy_loss(x, t, reduction=red), F.cross_entropy(x, t, reduction=red),
                    1e-5))
    out.append(("weighted", fg.cross_entropy_loss(x, t, w), F.cross_entropy(x, t, w), 1e-5))
    out.append(("smoothing", fg.cross_entropy_loss(x, t, label_smoothing=0.1),
                F.cross_entropy(x, t, label_smoothing=0.1), 1e-5))
    p = torch.softmax(rnd(9, 50, dev=dev, seed=4), -1)
    out.append(("probabilities", fg.cross_entropy_loss(x, p), F.cross_entropy(x, p), 1e-5))
    xg = x.clone().requires_grad_(True)
    (ref,) = torch.autograd.grad(F.cross_entropy(xg, t, label_smoothing=0.1), xg)
    (got,) = torch.autograd.grad(fg.cross_entropy_loss(xg, t, label_smoothing=0.1), xg)
    out.append(("bwd smoothing", got, ref, 1e-5))
    for label, dt, tol in _fg_dtypes(torch)[1:]:
        xh = x.to(dt)
        out.append((f"indices {label}", fg.cross_entropy_loss(xh, t), F.cross_entropy(xh.float(), t), tol * 4))
    return out


def _fg_instance_norm_outer(fg, dev, torch):
    out = []
    F = torch.nn.functional
    for label, dt, tol in _fg_dtypes(torch):
        x = rnd(3, 5, 7, 9, dev=dev, dtype=dt, seed=1)
        w, b = rnd(5, dev=dev, dtype=dt, seed=2), rnd(5, dev=dev, dtype=dt, seed=3)
        out.append((f"instance_norm {label}", fg.instance_norm(x, w, b),
                    F.instance_norm(x.float(), weight=w.float(), bias=b.float()), tol * 4))
    a, c = rnd(17, dev=dev), rnd(23, dev=dev, seed=2)
    out.append(("outer", fg.outer(a, c), torch.outer(a, c), 1e-6))
    return out


def _fg_reshape_and_cache(fg, dev, torch):
    """vLLM's paged KV cache write: key [T, H, D] into [blocks, H, D/x, block, x], value into
    [blocks, H, D, block], at slot_mapping (negative: skipped)."""
    T, H, D, blocks, bsz, x = 6, 2, 32, 4, 8, 8
    key, value = rnd(T, H, D, dev=dev, seed=1), rnd(T, H, D, dev=dev, seed=2)
    kc = torch.zeros(blocks, H, D // x, bsz, x, device=dev)
    vc = torch.zeros(blocks, H, D, bsz, device=dev)
    slots = torch.tensor([3, 17, 9, -1, 30, 0], device=dev)
    one = torch.tensor(1.0, device=dev)  # (k_scale, v_scale: device memory, as vLLM passes them)
    fg.reshape_and_cache(key, value, kc, vc, slots, "auto", one, one)
    rk, rv = torch.zeros_like(kc), torch.zeros_like(vc)
    for t, s in enumerate(slots.tolist()):
        if s < 0:
            continue
        rk[s // bsz, :, :, s % bsz, :] = key[t].view(H, D // x, x)
        rv[s // bsz, :, :, s % bsz] = value[t]
    return [("key cache", kc, rk, 0), ("value cache", vc, rv, 0)]


def _fg_scaled_mm(fg, dev, torch):
    """cutlass_scaled_mm's Triton paths (int8 and fp8, per-token and per-channel scales,
    bias), act_quant (block fp8 with power-of-two scales) and fp8_matmul (block-scaled)."""
    out = []
    gen = torch.Generator().manual_seed(4)
    M, N, K = 11, 48, 128
    ai = torch.randint(-127, 128, (M, K), generator=gen, dtype=torch.int8).to(dev)
    bi = torch.randint(-127, 128, (N, K), generator=gen, dtype=torch.int8).to(dev).t()  # column-major
    sa, sb = rnd(M, 1, dev=dev, seed=1).abs() * 1e-2 + 1e-3, rnd(N, dev=dev, seed=2).abs() * 1e-2 + 1e-3
    bias = rnd(N, dev=dev, seed=3, dtype=torch.bfloat16)
    for odt in (torch.bfloat16, torch.float16):
        c = torch.empty(M, N, device=dev, dtype=odt)
        fg.cutlass_scaled_mm(c, ai, bi, sa, sb, bias.to(odt))
        ref = (ai.float() @ bi.float()) * sa * sb + bias.float()
        out.append((f"int8 per-token/channel + bias -> {str(odt)[6:]}", c, ref, 1e-2))
    af = (rnd(M, K, dev=dev, seed=5) * 50).to(torch.float8_e4m3fn)
    bf = (rnd(N, K, dev=dev, seed=6) * 50).to(torch.float8_e4m3fn).t()
    s1, s2 = torch.tensor([0.01], device=dev), torch.tensor([0.02], device=dev)
    c = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
    fg.cutlass_scaled_mm(c, af, bf, s1, s2)
    out.append(("fp8 per-tensor -> bf16", c, (af.float() @ bf.float()) * 0.01 * 0.02, 1e-2))
    x = rnd(4, 256, dev=dev, seed=7, dtype=torch.bfloat16)
    for fmt in (None, "ue8m0"):
        q, s = fg.act_quant_triton(x, 128, fmt)
        g = x.float().view(4, 2, 128)
        amax = g.abs().amax(-1).clamp_min(1e-4)
        rs = amax / 448.0 if fmt is None else torch.exp2(torch.ceil(torch.log2(amax / 448.0)))
        rq = (g / rs[..., None]).clamp(-448, 448).to(torch.float8_e4m3fn).float().view(4, 256)
        out += [(f"act_quant {fmt} scales", s, rs, 1e-6), (f"act_quant {fmt} values", q.float(), rq, 0)]
    a = rnd(M, 256, dev=dev, seed=8)
    aq, as_ = _fp8_quant_ref(a, 128, torch)
    b = (rnd(N + 80, 256, dev=dev, seed=9) * 100).to(torch.float8_e4m3fn)
    bs_ = rnd(1, 2, dev=dev, seed=10).abs() * 0.01 + 0.001
    got = fg.fp8_matmul(aq, as_.contiguous(), b, bs_)
    A = aq.float() * as_.repeat_interleave(128, 1)
    B = b.float() * bs_.repeat_interleave(128, 0)[:N + 80].repeat_interleave(128, 1)
    out.append(("fp8_matmul block-scaled -> bf16", got, A @ B.T, 1e-2))
    return out


def _varlen_attn_ref(q, k, v, cu_q, cu_k, causal, window, softcap, torch):
    """Per sequence: softmax(q kᵀ · scale) v with the causal mask and window aligned to the
    bottom right (flash-attn's rule), GQA by repeating KV heads, optional tanh softcap."""
    q, k, v = q.float().cpu(), k.float().cpu(), v.float().cpu()  # (on the host, as the masks are)
    out = torch.zeros(q.shape, dtype=torch.float32)
    rep = q.shape[1] // k.shape[1]
    scale = q.shape[-1] ** -0.5
    for b in range(len(cu_q) - 1):
        qs, qe, ks, ke = int(cu_q[b]), int(cu_q[b + 1]), int(cu_k[b]), int(cu_k[b + 1])
        qq = q[qs:qe].float().transpose(0, 1)
        kk = k[ks:ke].float().repeat_interleave(rep, 1).transpose(0, 1)
        vv = v[ks:ke].float().repeat_interleave(rep, 1).transpose(0, 1)
        s = qq @ kk.transpose(1, 2) * scale
        if softcap > 0:
            s = softcap * torch.tanh(s / softcap)
        i = torch.arange(qe - qs)[:, None] + (ke - ks) - (qe - qs)
        j = torch.arange(ke - ks)[None]
        keep = torch.ones_like(s[0], dtype=torch.bool)
        if causal:
            keep &= j <= i
        if window is not None:
            keep &= (j >= i - window[0]) & (j <= i + window[1])
        s = s.masked_fill(~keep, float("-inf"))
        p = torch.softmax(s, -1).nan_to_num(0.0)
        out[qs:qe] = (p @ vv).transpose(0, 1)
    return out


def _fg_flash_varlen(fg, dev, torch):
    """flash_attn_varlen_func (FA2, non-paged): packed sequences of different lengths,
    causal (bottom-right aligned), GQA, a sliding window and softcapping."""
    out = []
    # (its host code asserts each tensor is on flag_gems.device, "cuda": that answers the
    # case's device while it runs)
    saved_device, fg.device = fg.device, dev
    try:
        return _fg_flash_varlen_body(fg, dev, torch, out)
    finally:
        fg.device = saved_device


def _fg_flash_varlen_body(fg, dev, torch, out):
    lq, lk = [5, 17, 9], [12, 17, 30]
    cu_q = torch.tensor([0] + list(itertools.accumulate(lq)), dtype=torch.int32)
    cu_k = torch.tensor([0] + list(itertools.accumulate(lk)), dtype=torch.int32)
    for label, dt, tol in _fg_dtypes(torch)[1:]:  # (fp16 and bf16 only)
        q = rnd(sum(lq), 4, 64, dev=dev, dtype=dt, seed=1)
        k, v = rnd(sum(lk), 2, 64, dev=dev, dtype=dt, seed=2), rnd(sum(lk), 2, 64, dev=dev, dtype=dt, seed=3)
        for name, kw in (("causal", dict(causal=True)), ("full", dict()),
                         ("window (8, 0)", dict(causal=True, window_size=(8, 0))),
                         ("softcap 5", dict(softcap=5.0))):
            got = fg.flash_attn_varlen_func(q, k, v, max(lq), cu_q.to(dev), max(lk), cu_k.to(dev), **kw)
            ref = _varlen_attn_ref(q, k, v, cu_q, cu_k, kw.get("causal", False), kw.get("window_size"),
                                   kw.get("softcap", 0.0), torch)
            out.append((f"{label} {name}", got, ref, max(tol * 4, 1e-4)))
    # paged KV (block_table, seqused_k): the keys of sequence b are its table's blocks in order
    bsz, nblk = 16, 8
    kc = rnd(nblk, bsz, 2, 64, dev=dev, dtype=torch.float16, seed=6)
    vc = rnd(nblk, bsz, 2, 64, dev=dev, dtype=torch.float16, seed=7)
    table = torch.tensor([[5, 2, 0], [7, 1, 3]], dtype=torch.int32)
    used = torch.tensor([40, 21], dtype=torch.int32)
    lq2 = [3, 1]
    cu_q2 = torch.tensor([0, 3, 4], dtype=torch.int32)
    q = rnd(4, 4, 64, dev=dev, dtype=torch.float16, seed=8)
    got = fg.flash_attn_varlen_func(q, kc, vc, max(lq2), cu_q2.to(dev), 48, seqused_k=used.to(dev),
                                    block_table=table.to(dev), causal=True)
    ks = [kc[table[b]].flatten(0, 1)[:int(used[b])] for b in range(2)]
    vs = [vc[table[b]].flatten(0, 1)[:int(used[b])] for b in range(2)]
    cu_k2 = torch.tensor([0, 40, 61], dtype=torch.int32)
    ref = _varlen_attn_ref(q, torch.cat(ks), torch.cat(vs), cu_q2, cu_k2, True, None, 0.0, torch)
    out.append(("fp16 paged KV causal", got, ref, 8e-3))
    return out


def _fg_sampling_misc(fg, dev, torch):
    """apply_repetition_penalties (vLLM's sampler op) and bincount (plain, fp32 and fp64
    weights, minlength)."""
    out = []
    gen = torch.Generator().manual_seed(6)
    for label, dt, tol in _fg_dtypes(torch):
        logits = rnd(3, 1000, dev=dev, dtype=dt, seed=4)
        pm = (torch.rand(3, 1000, generator=gen) < 0.1).to(dev)
        om = (torch.rand(3, 1000, generator=gen) < 0.05).to(dev)
        pen = torch.tensor([1.2, 1.0, 2.0], device=dev, dtype=dt)
        ref = logits.float().clone()
        rep = pm | om
        pf = pen.float()[:, None].expand_as(ref)
        ref = torch.where(rep & (ref > 0), ref / pf, torch.where(rep & (ref <= 0), ref * pf, ref))
        got = logits.clone()
        fg.apply_repetition_penalties(got, pm, om, pen)
        out.append((f"repetition penalties {label}", got, ref, tol))
    idx = torch.randint(0, 50, (700,), generator=gen).to(dev)
    w = rnd(700, dev=dev, seed=5)
    out += [("bincount", fg.bincount(idx), torch.bincount(idx), 0),
            ("bincount minlength", fg.bincount(idx, minlength=64), torch.bincount(idx, minlength=64), 0),
            ("bincount fp32 weights", fg.bincount(idx, w), torch.bincount(idx, w), 1e-5),
            ("bincount fp64 weights", fg.bincount(idx, w.double()), torch.bincount(idx, w.double()), 1e-12)]
    return out


for _name, _body in (("sdpa", _fg_sdpa), ("fused_moe", _fg_fused_moe), ("moe_routing", _fg_moe_routing),
                     ("fp8_quant_w8a8", _fg_fp8), ("gated_acts", _fg_gated_acts), ("rope", _fg_rope),
                     ("cross_entropy", _fg_cross_entropy), ("instance_norm_outer", _fg_instance_norm_outer),
                     ("reshape_and_cache", _fg_reshape_and_cache), ("scaled_mm_fp8_int8", _fg_scaled_mm),
                     ("flash_attn_varlen", _fg_flash_varlen), ("sampling_misc", _fg_sampling_misc)):
    _fg_case(_name, _body)


# ----------------------------------------------------------------------------- bitsandbytes

def _bnb():
    """bitsandbytes' Triton backend (bitsandbytes/backends/triton: 4-bit and 8-bit blockwise
    quantization, the 32-bit and 8-bit blockwise optimizers). Its package __init__ loads the
    CUDA library and registers every backend; the Triton ops need none of that."""
    for p in ("bitsandbytes", "bitsandbytes.backends", "bitsandbytes.backends.triton"):
        _package_without_init(p, ARGS.src)
    return importlib.import_module("bitsandbytes.backends.triton.ops")


_NF4 = (-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
        -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
        0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
        0.7229568362236023, 1.0)
# bitsandbytes' FP4 (e2m1 with its own code order): bit 3 the sign, bits 0-2 the magnitude
_FP4 = tuple(s * m for s in (1.0, -1.0) for m in (0.0, 0.005208333333, 0.66666667, 1.0, 0.33333333, 0.5,
                                                  0.16666667, 0.25))


def _bnb_4bit_table(quant_type):
    torch = torch_mod()
    return torch.tensor(_NF4 if quant_type == "nf4" else _FP4)


def _bnb_4bit_ref(A, blocksize, quant_type):
    """Blockwise absmax, each value to its nearest code: the dequantized values."""
    torch = torch_mod()
    table = _bnb_4bit_table(quant_type)
    flat = A.float().flatten().cpu()  # (on the host, as the code table is)
    n = flat.numel()
    pad = (-n) % blocksize
    blocks = torch.nn.functional.pad(flat, (0, pad)).view(-1, blocksize)
    absmax = blocks.abs().amax(1, keepdim=True)
    normed = (blocks / absmax).clamp(-1, 1)
    idx = (normed[..., None] - table).abs().argmin(-1)
    return (table[idx] * absmax).flatten()[:n].view(A.shape), absmax.flatten()


def _bnb_4bit_unpack(packed, absmax, blocksize, quant_type, n):
    torch = torch_mod()
    b = packed.flatten().cpu().to(torch.int64)  # (on the host, as the code table is)
    codes = torch.stack([b >> 4, b & 15], 1).flatten()[:n]
    return _bnb_4bit_table(quant_type)[codes] * absmax.float().cpu().repeat_interleave(blocksize)[:n]


@case("bnb.quantize_4bit", "bitsandbytes")
def _(dev):
    torch = torch_mod()
    ops = _bnb()
    res, outs = [], []
    for quant_type in ("nf4", "fp4"):
        for label, dt, shape in (("fp32", torch.float32, (4, 96)), ("fp16", torch.float16, (3, 64)),
                                 ("bf16 padded", torch.bfloat16, (200,))):
            A = rnd(*shape, dev=dev, dtype=dt, seed=len(label))
            with _cuda_host(dev):
                packed, absmax = ops.quantize_4bit(A, 64, quant_type, torch.uint8)
            ref, ref_absmax = _bnb_4bit_ref(A, 64, quant_type)
            got = _bnb_4bit_unpack(packed, absmax, 64, quant_type, A.numel()).view(A.shape)
            # (absmax is allocated for pairs of blocks: an odd count leaves one unused slot)
            res += [close(f"{quant_type} {label} absmax", absmax[:ref_absmax.numel()], ref_absmax, atol=0, rtol=0),
                    close(f"{quant_type} {label} values", got, ref, atol=1e-6, rtol=1e-6)]
            outs += [packed, absmax]
    return res, outs


@case("bnb.dequantize_4bit", "bitsandbytes")
def _(dev):
    torch = torch_mod()
    ops = _bnb()
    res, outs = [], []
    g = torch.Generator().manual_seed(3)
    for quant_type in ("nf4", "fp4"):
        for label, dt in (("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)):
            n, blocksize = 6 * 128, 128
            packed = torch.randint(0, 256, (n // 2, 1), generator=g, dtype=torch.uint8).to(dev)
            absmax = (rnd(n // blocksize, dev=dev, seed=4).abs() + 0.5)
            with _cuda_host(dev):
                out = ops.dequantize_4bit(packed, absmax, blocksize, quant_type, (6, 128), dt)
            ref = _bnb_4bit_unpack(packed, absmax, blocksize, quant_type, n).view(6, 128).to(dt)
            res.append(close(f"{quant_type} {label}", out, ref, atol=1e-6, rtol=1e-6))
            outs.append(out)
    return res, outs


@case("bnb.gemv_4bit", "bitsandbytes")
def _(dev):
    torch = torch_mod()
    ops = _bnb()
    W = rnd(48, 64, dev=dev, seed=2)
    A = rnd(3, 64, dev=dev, seed=3)
    code = _bnb_4bit_table("nf4").to(dev)
    with _cuda_host(dev):
        packed, absmax = ops.quantize_4bit(W, 64, "nf4", torch.uint8)
        out = ops.gemv_4bit(A, packed, (48, 64), absmax, code, 64)
    Wd = _bnb_4bit_unpack(packed, absmax, 64, "nf4", W.numel()).view(48, 64)
    return [close("out", out, A.cpu() @ Wd.T, atol=1e-5)], [out]


def _bnb_code8():
    """A signed 8-bit code: 256 sorted values in [-1, 1] (bitsandbytes' dynamic map is one such
    table; the kernels need only that it is sorted)."""
    torch = torch_mod()
    x = torch.linspace(-1, 1, 256)
    return x.sign() * x.abs() ** 2


@case("bnb.quantize_blockwise_8bit", "bitsandbytes")
def _(dev):
    torch = torch_mod()
    ops = _bnb()
    code = _bnb_code8().to(dev)
    res, outs = [], []
    for label, shape, bs in (("256 blocks", (8, 128), 256), ("64 blocks, tail", (5, 100), 64)):
        A = rnd(*shape, dev=dev, seed=bs)
        with _cuda_host(dev):
            q, absmax = ops.quantize_blockwise(A, code, bs)
            back = ops.dequantize_blockwise(q, absmax, code, bs, torch.float32)
        flat = A.flatten()
        n = flat.numel()
        blocks = torch.nn.functional.pad(flat, (0, (-n) % bs)).view(-1, bs)
        ref_absmax = blocks.abs().amax(1)
        normed = blocks / ref_absmax[:, None]
        idx = (normed[..., None] - code).abs().argmin(-1).flatten()[:n]
        res += [close(f"{label} absmax", absmax, ref_absmax, atol=0, rtol=0),
                close(f"{label} dequantized", back.flatten(), code[idx] * ref_absmax.repeat_interleave(bs)[:n],
                      atol=1e-6, rtol=1e-6)]
        outs += [q, absmax, back]
    return res, outs


def _bnb_optim_ref(name, g, p, s1, s2, step, lr, beta1, beta2, eps, wd):
    """The update rules of bitsandbytes' 32-bit optimizers (its docs and CUDA kernels)."""
    torch = torch_mod()
    g, p = g.float(), p.float().clone()
    s1 = s1.clone()
    s2 = None if s2 is None else s2.clone()
    if name == "adam":
        s1 = s1 * beta1 + (1 - beta1) * g
        s2 = s2 * beta2 + (1 - beta2) * g * g
        c1, c2 = 1 - beta1 ** step, math.sqrt(1 - beta2 ** step)
        if wd > 0:
            p = p * (1 - lr * wd)
        p = p + (-lr * c2 / c1) * (s1 / (s2.sqrt() + eps * c2))
    elif name == "lion":
        if wd > 0:
            p = p * (1 - lr * wd)
        p = p - lr * torch.sign(s1 * beta1 + (1 - beta1) * g)
        s1 = s1 * beta2 + (1 - beta2) * g
    else:
        if wd > 0:
            g = g + p * wd
        if name == "momentum":
            s1 = g if step == 1 else s1 * beta1 + g
            p = p - lr * s1
        elif name == "rmsprop":
            s1 = s1 * beta1 + (1 - beta1) * g * g
            p = p - lr * g / (s1.sqrt() + eps)
        elif name == "adagrad":
            s1 = s1 + g * g
            p = p - lr * g / (s1.sqrt() + eps)
    return p, s1, s2


@case("bnb.optimizer_32bit", "bitsandbytes")
def _(dev):
    torch = torch_mod()
    ops = _bnb()
    res, outs = [], []
    for name, step, wd, dt in (("adam", 3, 0.01, torch.float32), ("adam", 1, 0.0, torch.bfloat16),
                               ("momentum", 2, 0.0, torch.float32), ("rmsprop", 4, 0.1, torch.float32),
                               ("adagrad", 2, 0.0, torch.float16), ("lion", 5, 0.02, torch.float32)):
        n = 700
        g, p = rnd(n, dev=dev, seed=1, dtype=dt), rnd(n, dev=dev, seed=2, dtype=dt)
        s1 = rnd(n, dev=dev, seed=3, scale=0.1)
        s2 = rnd(n, dev=dev, seed=4).abs() * 0.1 if name == "adam" else None
        beta1, beta2, eps, lr = 0.9, 0.99, 1e-8, 1e-2
        rp, rs1, rs2 = _bnb_optim_ref(name, g, p, s1, s2, step, lr, beta1, beta2, eps, wd)
        P, S1, S2 = p.clone(), s1.clone(), None if s2 is None else s2.clone()
        with _cuda_host(dev):
            ops.optimizer_update_32bit(name, g, P, S1, S2, None, 0.0, 0.0, beta1, beta2, 0.0, 0.0, eps, wd,
                                       step, lr, 1.0)
        tol = 1e-5 if dt == torch.float32 else 1e-2
        label = f"{name} step{step} {str(dt)[6:]}"
        res += [close(f"{label} p", P, rp.to(dt), atol=tol, rtol=tol), close(f"{label} state1", S1, rs1, atol=1e-5)]
        if S2 is not None:
            res.append(close(f"{label} state2", S2, rs2, atol=1e-6))
        outs += [P, S1]
    return res, outs


@case("bnb.optimizer_8bit_blockwise", "bitsandbytes")
def _(dev):
    """Adam and momentum with 8-bit blockwise states: dequantize, update, requantize."""
    torch = torch_mod()
    ops = _bnb()
    res, outs = [], []
    n, bs = 600, 256
    qs = _bnb_code8().to(dev)
    qu = (torch.linspace(0, 1, 256) ** 2).to(dev)
    gen = torch.Generator().manual_seed(5)

    def deq(codes, absmax, q):
        return q[codes.long()] * absmax.repeat_interleave(bs)[:n]

    def req(s, q):
        blocks = torch.nn.functional.pad(s, (0, (-n) % bs)).view(-1, bs)
        am = blocks.abs().amax(1)
        idx = ((blocks / am[:, None])[..., None] - q).abs().argmin(-1).flatten()[:n]
        return q[idx] * am.repeat_interleave(bs)[:n], am
    for name, step, wd in (("adam", 3, 0.01), ("momentum", 2, 0.0)):
        g, p = rnd(n, dev=dev, seed=1), rnd(n, dev=dev, seed=2)
        c1 = torch.randint(0, 256, (n,), generator=gen, dtype=torch.uint8).to(dev)
        a1 = rnd(3, dev=dev, seed=3).abs() * 0.1 + 0.01
        two = name == "adam"
        c2 = torch.randint(0, 256, (n,), generator=gen, dtype=torch.uint8).to(dev) if two else None
        a2 = rnd(3, dev=dev, seed=4).abs() * 0.01 + 0.001 if two else None
        beta1, beta2, eps, lr = 0.9, 0.99, 1e-8, 1e-2
        s1 = deq(c1, a1, qs)
        if two:
            s2 = deq(c2, a2, qu)
            s1 = s1 * beta1 + (1 - beta1) * g
            s2 = s2 * beta2 + (1 - beta2) * g * g
            rp = p * (1 - lr * wd) if wd > 0 else p.clone()
            rp = rp - (lr / (1 - beta1 ** step)) * (s1 / (s2.sqrt() / math.sqrt(1 - beta2 ** step) + eps))
        else:
            s1 = g.clone() if step == 1 else s1 * beta1 + g
            rp = p - lr * s1
        P, C1, A1 = p.clone(), c1.clone(), a1.clone()
        C2, A2 = (c2.clone(), a2.clone()) if two else (None, None)
        with _cuda_host(dev):
            ops.optimizer_update_8bit_blockwise(name, g, P, C1, C2, beta1, beta2, 0.0, 0.0, eps, step, lr,
                                                qs, qu if two else None, A1, A2, wd)
        r1, ra1 = req(s1, qs)
        res += [close(f"{name} p", P, rp, atol=1e-5), close(f"{name} absmax1", A1, ra1, atol=1e-6),
                close(f"{name} state1", deq(C1, A1, qs), r1, atol=1e-6)]
        outs += [P, C1, A1]
        if two:
            r2, ra2 = req(s2, qu)
            res += [close(f"{name} absmax2", A2, ra2, atol=1e-7), close(f"{name} state2", deq(C2, A2, qu), r2, atol=1e-7)]
            outs += [C2, A2]
    return res, outs


@case("bnb.optimizer_32bit_ademamix_unorm", "bitsandbytes")
def _(dev):
    """AdEMAMix (state1 stacks m1 and the slow m2), and Adam and momentum with update-norm
    clipping (max_unorm: a preprocess kernel sums the update's squares with atomic_add)."""
    torch = torch_mod()
    ops = _bnb()
    res, outs = [], []
    n, beta1, beta2, beta3, alpha, eps, lr = 900, 0.9, 0.99, 0.999, 5.0, 1e-8, 1e-2
    for label, dt, step, wd in (("fp32", torch.float32, 3, 0.01), ("bf16", torch.bfloat16, 1, 0.0)):
        g, p = rnd(n, dev=dev, seed=1, dtype=dt), rnd(n, dev=dev, seed=2, dtype=dt)
        s1 = rnd(2, n, dev=dev, seed=3, scale=0.1)
        s2 = rnd(n, dev=dev, seed=4).abs() * 0.1
        gf = g.float()
        m1 = s1[0] * beta1 + (1 - beta1) * gf
        m2 = s1[1] * beta3 + (1 - beta3) * gf
        nu = s2 * beta2 + (1 - beta2) * gf * gf
        rp = p.float() * (1 - lr * wd) if wd > 0 else p.float()
        rp = rp - lr * (m1 / (1 - beta1 ** step) + alpha * m2) / (nu.sqrt() / math.sqrt(1 - beta2 ** step) + eps)
        P, S1, S2 = p.clone(), s1.clone(), s2.clone()
        with _cuda_host(dev):
            ops.optimizer_update_32bit("ademamix", g, P, S1, S2, None, 0.0, 0.0, beta1, beta2, beta3, alpha, eps,
                                       wd, step, lr, 1.0)
        tol = 1e-5 if dt == torch.float32 else 1e-2
        res += [close(f"ademamix {label} p", P, rp.to(dt), atol=tol, rtol=tol),
                close(f"ademamix {label} m1", S1[0], m1, atol=1e-6), close(f"ademamix {label} m2", S1[1], m2, atol=1e-6),
                close(f"ademamix {label} nu", S2, nu, atol=1e-6)]
        outs += [P, S1, S2]
    for name in ("adam", "momentum"):
        g, p = rnd(n, dev=dev, seed=5), rnd(n, dev=dev, seed=6)
        s1 = rnd(n, dev=dev, seed=7, scale=0.1)
        s2 = rnd(n, dev=dev, seed=8).abs() * 0.1 if name == "adam" else None
        step, max_unorm, pnorm = 2, 0.01, float(p.norm())
        rp, rs1, rs2 = _bnb_optim_ref(name, g, p, s1, s2, step, lr, beta1, beta2, eps, 0.0)
        if name == "adam":
            c1, c2 = 1 - beta1 ** step, 1 - beta2 ** step
            unorm = ((rs1 / c1) / ((rs2 / c2).sqrt() + eps)).square().sum()
            limit = max_unorm * pnorm
        else:
            unorm = rs1.square().sum()
            limit = max_unorm * pnorm + eps
        scale = limit / unorm.sqrt() if unorm.sqrt() > limit else 1.0
        rp = p + (rp - p) * scale
        P, S1, S2 = p.clone(), s1.clone(), None if s2 is None else s2.clone()
        U = torch.zeros(1, device=dev)
        with _cuda_host(dev):
            ops.optimizer_update_32bit(name, g, P, S1, S2, U, max_unorm, pnorm, beta1, beta2, 0.0, 0.0, eps, 0.0,
                                       step, lr, 1.0)
        res += [close(f"{name} max_unorm unorm", U, unorm.reshape(1), atol=1e-3, rtol=1e-5),
                close(f"{name} max_unorm p", P, rp, atol=1e-5), close(f"{name} max_unorm state1", S1, rs1, atol=1e-6)]
        outs += [P, S1, U]
    return res, outs


@case("bnb.optimizer_8bit_blockwise_more", "bitsandbytes")
def _(dev):
    """The one-state 8-bit blockwise optimizers bitsandbytes' Triton backend has besides
    momentum (rmsprop, adagrad, lion) and AdEMAMix with its stacked 8-bit m1/m2 states."""
    torch = torch_mod()
    ops = _bnb()
    res, outs = [], []
    bs = 256
    qs = _bnb_code8().to(dev)
    qu = (torch.linspace(0, 1, 256) ** 2).to(dev)
    gen = torch.Generator().manual_seed(11)
    beta1, beta2, beta3, alpha, eps, lr = 0.9, 0.99, 0.999, 5.0, 1e-8, 1e-2

    def deq(codes, absmax, q, n):
        return q[codes.long()] * absmax.repeat_interleave(bs)[:n]

    def req(st, q, n):
        blocks = torch.nn.functional.pad(st, (0, (-n) % bs)).view(-1, bs)
        am = blocks.abs().amax(1)
        idx = ((blocks / am[:, None])[..., None] - q).abs().argmin(-1).flatten()[:n]
        return q[idx] * am.repeat_interleave(bs)[:n], am
    # (the kernel applies decoupled weight decay to the optimizer with id 2, adagrad, and
    # folds it into the gradient for lion, against its comment: decay only for rmsprop here)
    for name, step, wd, q in (("rmsprop", 3, 0.05, qu), ("adagrad", 2, 0.0, qu), ("lion", 4, 0.0, qs)):
        n = 600
        g, p = rnd(n, dev=dev, seed=21), rnd(n, dev=dev, seed=22)
        c1 = torch.randint(0, 256, (n,), generator=gen, dtype=torch.uint8).to(dev)
        a1 = rnd(3, dev=dev, seed=23).abs() * 0.1 + 0.01
        s1 = deq(c1, a1, q, n)
        gg = g + p * wd if wd > 0 else g
        if name == "rmsprop":
            s1 = s1 * beta1 + (1 - beta1) * gg * gg
            rp = p - lr * gg / (s1.sqrt() + eps)
        elif name == "adagrad":
            s1 = s1 + gg * gg
            rp = p - lr * gg / (s1.sqrt() + eps)
        else:
            rp = p - lr * torch.sign(s1 * beta1 + (1 - beta1) * gg)
            s1 = s1 * beta2 + (1 - beta2) * gg
        P, C1, A1 = p.clone(), c1.clone(), a1.clone()
        with _cuda_host(dev):
            ops.optimizer_update_8bit_blockwise(name, g, P, C1, None, beta1, beta2, 0.0, 0.0, eps, step, lr,
                                                q, None, A1, None, wd)
        r1, ra1 = req(s1, q, n)
        res += [close(f"{name} p", P, rp, atol=1e-5), close(f"{name} absmax", A1, ra1, atol=1e-6),
                close(f"{name} state", deq(C1, A1, q, n), r1, atol=1e-6)]
        outs += [P, C1, A1]
    n, step, wd = 768, 3, 0.01  # (the m2 absmax sits at n // 256: whole blocks)
    g, p = rnd(n, dev=dev, seed=31), rnd(n, dev=dev, seed=32)
    c1 = torch.randint(0, 256, (2, n), generator=gen, dtype=torch.uint8).to(dev)
    a1 = rnd(2, n // bs, dev=dev, seed=33).abs() * 0.1 + 0.01
    c2 = torch.randint(0, 256, (n,), generator=gen, dtype=torch.uint8).to(dev)
    a2 = rnd(n // bs, dev=dev, seed=34).abs() * 0.01 + 0.001
    m1 = deq(c1[0], a1[0], qs, n) * beta1 + (1 - beta1) * g
    m2 = deq(c1[1], a1[1], qs, n) * beta3 + (1 - beta3) * g
    nu = deq(c2, a2, qu, n) * beta2 + (1 - beta2) * g * g
    upd = (m1 / (1 - beta1 ** step) + alpha * m2) / (nu.sqrt() / math.sqrt(1 - beta2 ** step) + eps)
    rp = p * (1 - lr * wd) - lr * upd
    P, C1, A1, C2, A2 = p.clone(), c1.clone(), a1.clone(), c2.clone(), a2.clone()
    with _cuda_host(dev):
        ops.optimizer_update_8bit_blockwise("ademamix", g, P, C1, C2, beta1, beta2, beta3, alpha, eps, step, lr,
                                            qs, qu, A1, A2, wd)
    res.append(close("ademamix p", P, rp, atol=1e-5))
    for label, st, codes, am, q in (("m1", m1, C1[0], A1[0], qs), ("m2", m2, C1[1], A1[1], qs), ("nu", nu, C2, A2, qu)):
        r, ra = req(st, q, n)
        res += [close(f"ademamix {label} absmax", am, ra, atol=1e-7), close(f"ademamix {label}", deq(codes, am, q, n), r,
                                                                            atol=1e-7)]
    outs += [P, C1, A1, C2, A2]
    return res, outs


# ---------------------------------------------------------------------------------- torchao

def _torchao(module):
    """A torchao module without the package __init__ (it loads torchao's C++ extensions,
    not fetched). torch's has_triton() answers for a GPU (on the CPU it says no, and
    torchao's blockwise fp8 then refuses to build its kernels)."""
    for p in ("torchao", "torchao.kernel", "torchao.prototype", "torchao.prototype.quantized_training"):
        _package_without_init(p, ARGS.src)
    import torch.utils._triton as tt
    saved = tt.has_triton
    tt.has_triton = lambda: True
    try:
        mod = importlib.import_module(module)
        if hasattr(mod, "_get_triton_impls"):
            mod._get_triton_impls()  # (built once, on first use)
        return mod
    finally:
        tt.has_triton = saved


@case("torchao.blockwise_fp8", "torchao")
def _(dev):
    """DeepSeek-V3's blockwise fp8 kernels as torchao ships them: activation quantization
    (1 x 128 groups), weight quantization and dequantization (128 x 128 blocks), and the
    block-scaled fp8 GEMM (autotuned; bf16 out)."""
    torch = torch_mod()
    bq = _torchao("torchao.kernel.blockwise_quantization")
    res, outs = [], []
    for label, dt in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        x = rnd(5, 256, dev=dev, dtype=dt, seed=1)
        with _cuda_host(dev):
            y, s_ = bq.fp8_blockwise_act_quant(x, 128)
        g = x.float().view(5, 2, 128)
        rs = g.abs().amax(-1) / 448.0
        ry = (g / rs[..., None]).to(torch.float8_e4m3fn).float().view(5, 256)
        res += [close(f"act_quant {label} scales", s_, rs, atol=0, rtol=0),
                close(f"act_quant {label} values", y.float(), ry, atol=0, rtol=0)]
        outs += [y.float(), s_]
    w = rnd(256, 384, dev=dev, seed=2)
    with _cuda_host(dev):
        wq, ws = bq.fp8_blockwise_weight_quant(w, 128)
        wd = bq.fp8_blockwise_weight_dequant(wq, ws, 128)
    blocks = w.view(2, 128, 3, 128).permute(0, 2, 1, 3)
    rws = blocks.abs().amax((-1, -2)) / 448.0
    rwq = (blocks / rws[..., None, None]).to(torch.float8_e4m3fn).float()
    res += [close("weight_quant scales", ws, rws, atol=0, rtol=0),
            close("weight_quant values", wq.float(), rwq.permute(0, 2, 1, 3).reshape(256, 384), atol=0, rtol=0),
            close("weight_dequant", wd, (rwq * rws[..., None, None]).permute(0, 2, 1, 3).reshape(256, 384),
                  atol=0, rtol=1e-6)]
    a = rnd(9, 256, dev=dev, seed=3)
    with _cuda_host(dev):
        aq, as_ = bq.fp8_blockwise_act_quant(a, 128)
        c = bq.blockwise_fp8_gemm(aq, as_, wq.t().contiguous(), ws.t().contiguous(), 128)
    A = aq.float() * as_.repeat_interleave(128, 1)
    B = wq.float().t() * ws.t().repeat_interleave(128, 0).repeat_interleave(128, 1)
    res.append(close("gemm -> bf16", c, A @ B.T, atol=2e-2, rtol=1e-2))
    outs += [wq.float(), ws, wd, c]
    return res, outs


@case("torchao.int8_mm", "torchao")
def _(dev):
    """torchao's int8 GEMMs: scaled_int8_mm (quantized training: row and column scales, fp32,
    bf16 and fp16), and intmm's int_matmul / int_scaled_matmul (block pointers, int32 out)."""
    torch = torch_mod()
    mm = _torchao("torchao.prototype.quantized_training.int8_mm")
    im = _torchao("torchao.kernel.intmm_triton")
    gen = torch.Generator().manual_seed(8)
    res, outs = [], []
    M, K, N = 40, 96, 72
    A = torch.randint(-128, 128, (M, K), generator=gen, dtype=torch.int8).to(dev)
    B = torch.randint(-128, 128, (K, N), generator=gen, dtype=torch.int8).to(dev)
    exact = A.cpu().long() @ B.cpu().long()  # (int64 matmuls run on the host only)
    for label, dt, tol in (("fp32", torch.float32, 1e-6), ("bf16", torch.bfloat16, 8e-3),
                           ("fp16", torch.float16, 1e-3)):
        rs = (rnd(M, dev=dev, seed=1).abs() * 1e-3 + 1e-4).to(dt)
        cs = (rnd(N, dev=dev, seed=2).abs() * 1e-3 + 1e-4).to(dt)
        with _cuda_host(dev):
            got = mm.scaled_int8_mm_cuda(A, B, rs, cs)
        ref = exact.double() * rs.double().cpu()[:, None] * cs.double().cpu()[None]
        res.append(close(f"scaled_int8_mm {label}", got, ref.float(), atol=1e-6, rtol=tol))
        outs.append(got)
    cfg = im.triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=2, num_warps=4)
    c = torch.empty(M, N, dtype=torch.int32, device=dev)
    with _cuda_host(dev):
        im.int_matmul_kernel(A, B, c, cfg)
    res.append(close("int_matmul int32", c, exact.int(), atol=0, rtol=0))
    sc = rnd(M, 1, dev=dev, seed=3).abs() * 1e-3
    c2 = torch.empty(M, N, dtype=torch.float32, device=dev)
    with _cuda_host(dev):
        im.int_scaled_matmul_kernel(A, B, sc, c2, cfg)
    res.append(close("int_scaled_matmul", c2, exact.float() * sc.cpu(), atol=1e-6, rtol=1e-6))
    outs += [c, c2]
    return res, outs


# ------------------------------------------------------------------ session 19: more projects
# cut-cross-entropy, SageAttention, FlashInfer's Triton kernels, xformers, GemLite, DeepSpeed
# (tests/realk/RESULTS.md, "Session 19 (branch realk5)").


@contextlib.contextmanager
def _patched(obj, **attrs):
    """Sets attributes of a module or class while a case runs (each use says why)."""
    saved = {k: getattr(obj, k) for k in attrs}
    for k, v in attrs.items():
        setattr(obj, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(obj, k, v)


def _attention_ref(q, k, v, causal=False, scale=None, bottom_right=False):
    """softmax(q k^T * scale) v over [B, H, L, D] in fp32 (GQA: k/v heads repeated)."""
    torch = torch_mod()
    q, k, v = q.float(), k.float(), v.float()
    if k.shape[1] != q.shape[1]:
        k = k.repeat_interleave(q.shape[1] // k.shape[1], 1)
        v = v.repeat_interleave(q.shape[1] // v.shape[1], 1)
    s = (q @ k.transpose(-1, -2)) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if causal:
        Lq, Lk = q.shape[2], k.shape[2]
        off = Lk - Lq if bottom_right else 0
        m = torch.ones(Lq, Lk, dtype=torch.bool, device=q.device).tril(off)
        s = s.masked_fill(~m, float("-inf"))
    return torch.softmax(s, -1) @ v


# ------------------------------------------------------------------------- cut-cross-entropy

@case("cce.linear_cross_entropy", "cut_cross_entropy")
def _(dev):
    """Apple's Cut Cross-Entropy: the logits never materialized (the LSE forward over
    vocabulary blocks, the indexed dot of the targets, the fused backward for dE and dC),
    with ignore_index, softcap, sum reduction and shift; fp16 and bf16 (its backward
    refuses fp32: "Backwards requires embeddings to be bf16 or fp16")."""
    torch = torch_mod()
    from cut_cross_entropy.cce import cce_linear_cross_entropy
    res, outs = [], []
    for label, dt, tol, kw in (("fp16", torch.float16, 1e-2, {}),
                               ("fp16 softcap sum", torch.float16, 1e-2, {"softcap": 20.0, "reduction": "sum"}),
                               ("bf16 shift", torch.bfloat16, 3e-2, {"shift": True})):
        B, T, D, V = 2, 13, 64, 500
        e = rnd(B, T, D, dev=dev, dtype=dt, seed=1)
        c = rnd(V, D, dev=dev, dtype=dt, seed=2, scale=0.3)
        gen = torch.Generator().manual_seed(3)
        t = torch.randint(0, V, (B, T), generator=gen).to(dev)
        t[0, 3] = t[1, 7] = -100

        def mine(e, c):
            return cce_linear_cross_entropy(e, c, t, filter_eps=None, **kw)

        def ref(e, c):
            logits = (e.float() @ c.float().T)
            if "softcap" in kw:
                logits = kw["softcap"] * torch.tanh(logits / kw["softcap"])
            tt = t
            if kw.get("shift"):
                logits, tt = logits[:, :-1], t[:, 1:]
            return torch.nn.functional.cross_entropy(logits.flatten(0, 1), tt.flatten(), ignore_index=-100,
                                                     reduction=kw.get("reduction", "mean"))
        r, o = compare_fwd_bwd(mine, ref, [e, c], atol=tol, rtol=tol, names=["E", "C"])
        res += [(f"{label} {x[0]}", x[1], x[2]) for x in r]
        outs += o
    return res, outs


@case("cce.filtered_grad", "cut_cross_entropy")
def _(dev):
    """CCE's default gradient filtering (filter_eps "auto": eps/32 of the dtype): backward
    blocks whose softmax gradient is below it everywhere are skipped (`tl.reduce` of a
    boolean block with an and-combine); peaked logits over a 4096 vocabulary, bf16 and fp16,
    against the unfiltered torch gradient (what is skipped is below the threshold)."""
    torch = torch_mod()
    from cut_cross_entropy.cce import cce_linear_cross_entropy
    res, outs = [], []
    for label, dt, tol in (("bf16", torch.bfloat16, 3e-2), ("fp16", torch.float16, 1e-2)):
        e = rnd(24, 64, dev=dev, dtype=dt, seed=1)
        c = rnd(4096, 64, dev=dev, dtype=dt, seed=2, scale=0.6)
        t = torch.randint(0, 4096, (24,), generator=torch.Generator().manual_seed(3)).to(dev)

        def ref(e, c):
            return torch.nn.functional.cross_entropy(e.float() @ c.float().T, t)
        r, o = compare_fwd_bwd(lambda e, c: cce_linear_cross_entropy(e, c, t), ref, [e, c], atol=tol, rtol=tol,
                               names=["E", "C"])
        res += [(f"{label} {x[0]}", x[1], x[2]) for x in r]
        outs += o
    return res, outs


# ------------------------------------------------------------------------------ SageAttention

def _sage_dequant(x8, scale, blk):
    torch = torch_mod()
    s = scale[..., 0].repeat_interleave(blk, -1)[..., :x8.shape[2]]
    return x8.float() * s[..., None]


@case("sage.attention", "sageattention")
def _(dev):
    """SageAttention 1: per-block int8 quantization of q and k, then the int8 q k^T attention
    with fp16 P V (plain, causal; head dim 64 and 128; GQA; the head-dim-96 variant).
    `sageattn` asserts CUDA tensors: its two steps are called as it calls them. Checked
    against the quantization rule and against attention over the dequantized q and k."""
    torch = torch_mod()
    sa = importlib.import_module("sageattention.core")
    res, outs = [], []
    # (causal: L a multiple of its BLOCK_M 128, see RESULTS.md "Not tritium's")
    for label, H, Hk, L, D, causal in (("d64", 2, 2, 200, 64, False), ("d64 causal", 2, 1, 256, 64, True),
                                       ("d128 gqa", 4, 2, 130, 128, False), ("d128 causal", 2, 2, 128, 128, True),
                                       ("d96", 2, 2, 100, 96, False), ("d96 causal", 2, 2, 128, 96, True)):
        q = rnd(1, H, L, D, dev=dev, dtype=torch.float16, seed=1)
        k = rnd(1, Hk, L, D, dev=dev, dtype=torch.float16, seed=2)
        v = rnd(1, Hk, L, D, dev=dev, dtype=torch.float16, seed=3)
        k = k - k.mean(dim=2, keepdim=True)  # (sageattn's smooth_k)
        if D == 96:
            q8, qs, k8, ks = sa.per_block_int8_hd96(q, k)
            o = (sa.attn_h96_true if causal else sa.attn_h96_false)(q8, k8, v, qs, ks, output_dtype=torch.float16)
        else:
            q8, qs, k8, ks = sa.per_block_int8(q, k)
            o = (sa.attn_true if causal else sa.attn_false)(q8, k8, v, qs, ks, output_dtype=torch.float16)
        qd, kd = _sage_dequant(q8, qs, 128), _sage_dequant(k8, ks, 64)  # (its BLKQ, BLKK)
        # the quantization: scale = absmax / 127 per block (q also scaled by sm_scale * log2 e)
        qq = q.float() * (D ** -0.5 * 1.44269504)
        res += [close(f"{label} q quant", qd, qq, atol=float(qs.max()) * 0.51, rtol=0),
                close(f"{label} k quant", kd, k.float(), atol=float(ks.max()) * 0.51, rtol=0)]
        # attention over the dequantized operands (exp2 base: the scores are already in log2 units).
        # The non-causal kernel does not mask the keys past kv_len in its last block: they are
        # loaded as zeros (a masked load without `other`) and each adds exp2(0 - max) to the
        # softmax's sum, as on the GPU; the reference pads the keys and values with zeros alike.
        pad = 0 if causal else (-L) % 64
        kp = torch.nn.functional.pad(kd, (0, 0, 0, pad))
        vp = torch.nn.functional.pad(v.float(), (0, 0, 0, pad))
        ref = _attention_ref(qd, kp, vp, causal=causal, scale=math.log(2.0))
        res.append(close(f"{label} out", o, ref, atol=1e-2, rtol=1e-2))
        outs += [q8, k8, o]
    return res, outs


@case("sage.attention_varlen", "sageattention")
def _(dev):
    """SageAttention's packed variable-length path: per-block int8 quantization of each
    sequence (its own scale blocks, cu_seqlens of the scales) and the varlen attention
    kernels, causal and not, head dims 64 and 128, GQA; `sageattn_varlen` itself (it asserts
    CUDA tensors: `_tensors_say_cuda`) against the same steps."""
    torch = torch_mod()
    sa = importlib.import_module("sageattention.core")
    res, outs = [], []
    # (causal: the last sequence a multiple of 128, whose scales the last block would read past)
    for label, lens, H, Hk, D, causal in (("d64", [100, 64, 37], 2, 2, 64, False),
                                          ("d128 gqa causal", [100, 37, 128], 4, 2, 128, True)):
        cu = torch.tensor([0] + list(itertools.accumulate(lens)), dtype=torch.int32, device=dev)
        T = sum(lens)
        q = rnd(T, H, D, dev=dev, dtype=torch.float16, seed=1)
        k = rnd(T, Hk, D, dev=dev, dtype=torch.float16, seed=2)
        v = rnd(T, Hk, D, dev=dev, dtype=torch.float16, seed=3)
        k = k - k.mean(0, keepdim=True)
        q8, qs, k8, ks, cqs, cks = sa.per_block_int8_varlen(q, k, cu, cu, max(lens), max(lens))
        o = (sa.attn_true_varlen if causal else sa.attn_false_varlen)(q8, k8, v, cu, cu, max(lens), qs, ks, cqs, cks,
                                                                      output_dtype=torch.float16)
        with _tensors_say_cuda(dev):
            o2 = sa.sageattn_varlen(q, k.clone(), v, cu, cu, max(lens), max(lens), is_causal=causal, smooth_k=False)
        res.append(close(f"{label} sageattn_varlen", o2, o, atol=0, rtol=0))
        for b, L in enumerate(lens):
            s0 = int(cu[b])
            qd = (q8[s0:s0 + L].float() * qs[int(cqs[b]):int(cqs[b + 1])].repeat_interleave(128, 0)[:L])
            kd = (k8[s0:s0 + L].float() * ks[int(cks[b]):int(cks[b + 1])].repeat_interleave(64, 0)[:L])
            qq = q[s0:s0 + L].float() * (D ** -0.5 * 1.44269504)
            res.append(close(f"{label} seq{b} q quant", qd, qq, atol=float(qs.max()) * 0.51, rtol=0))
            pad = 0 if causal else (-L) % 64  # (the padding keys of the last block, as in sage.attention)
            kp = torch.nn.functional.pad(kd, (0, 0, 0, 0, 0, pad)).transpose(0, 1)[None]
            vp = torch.nn.functional.pad(v[s0:s0 + L].float(), (0, 0, 0, 0, 0, pad)).transpose(0, 1)[None]
            ref = _attention_ref(qd.transpose(0, 1)[None], kp, vp, causal=causal, scale=math.log(2.0))[0].transpose(0, 1)
            res.append(close(f"{label} seq{b} out", o[s0:s0 + L], ref, atol=1e-2, rtol=1e-2))
        outs += [q8, k8, o]
    return res, outs


# --------------------------------------------------------------------------------- FlashInfer

class _GPUArchitectureError(Exception):
    pass


def _flashinfer(name):
    """FlashInfer's Triton kernels (flashinfer/triton). The package __init__ loads its JIT
    runtime (tvm_ffi) and CUDA modules, and `flashinfer.utils` imports pynvml and the JIT;
    flashinfer.triton reads two of its names, given here (the capability from torch.cuda)."""
    torch = torch_mod()
    _package_without_init("flashinfer", ARGS.src)
    if "flashinfer.utils" not in sys.modules:
        _stub_modules(["flashinfer.utils"], GPUArchitectureError=_GPUArchitectureError,
                      get_compute_capability=lambda d: torch.cuda.get_device_capability(d),
                      ceil_div=lambda a, b: (a + b - 1) // b, round_up=lambda a, b: (a + b - 1) // b * b)
    return importlib.import_module(name)


@contextlib.contextmanager
def _flashinfer_host(dev):
    """flashinfer.triton's wrappers assert `x.is_cuda` (check_input): on the CPU that check
    is skipped while the case runs, and torch.cuda answers as for an sm_90 GPU (_cuda_host)."""
    if dev != "cpu":
        yield
        return
    mods = [importlib.import_module(m) for m in ("flashinfer.triton.cascade", "flashinfer.triton.sm_constraint_gemm")]
    with contextlib.ExitStack() as st:
        for m in mods:
            st.enter_context(_patched(m, check_input=lambda x: None))
        st.enter_context(_cuda_host(dev, sms=4))
        yield


def _merge_ref(va, sa, vb, sb):
    """Merges two attention states (values and log2-sum-exp) as FlashInfer defines them."""
    torch = torch_mod()
    m = torch.maximum(sa, sb)
    wa, wb = torch.exp2(sa - m), torch.exp2(sb - m)
    v = (va.float() * wa[..., None] + vb.float() * wb[..., None]) / (wa + wb)[..., None]
    return v, m + torch.log2(wa + wb)


@case("flashinfer.cascade", "flashinfer")
def _(dev):
    """Attention-state merging (cascade inference): merge_state, merge_state_in_place (with
    a mask), merge_states over index sets, variable_length_merge_states; fp32 and fp16."""
    torch = torch_mod()
    fc = _flashinfer("flashinfer.triton.cascade")
    res, outs = [], []
    for label, dt in (("fp32", torch.float32), ("fp16", torch.float16)):
        tol = 1e-5 if dt == torch.float32 else 2e-3
        S, H, D = 7, 4, 64
        va, vb = rnd(S, H, D, dev=dev, dtype=dt, seed=1), rnd(S, H, D, dev=dev, dtype=dt, seed=2)
        sa, sb = rnd(S, H, dev=dev, seed=3, scale=3), rnd(S, H, dev=dev, seed=4, scale=3)
        with _flashinfer_host(dev):
            vm, sm = fc.merge_state(va, sa, vb, sb)
        rv, rs = _merge_ref(va, sa, vb, sb)
        res += [close(f"merge_state {label} v", vm, rv, atol=tol, rtol=tol),
                close(f"merge_state {label} s", sm, rs, atol=1e-5, rtol=1e-5)]
        v, s = va.clone(), sa.clone()
        mask = torch.tensor([1, 0, 1, 1, 0, 1, 1], dtype=torch.bool, device=dev)
        with _flashinfer_host(dev):
            fc.merge_state_in_place(v, s, vb, sb, mask)
        rv2 = torch.where(mask[:, None, None], rv.to(dt).float(), va.float())
        rs2 = torch.where(mask[:, None], rs, sa)
        res += [close(f"in_place {label} v", v, rv2, atol=tol, rtol=tol),
                close(f"in_place {label} s", s, rs2, atol=1e-5, rtol=1e-5)]
        N = 5
        vs, ss = rnd(S, N, H, D, dev=dev, dtype=dt, seed=5), rnd(S, N, H, dev=dev, seed=6, scale=3)
        with _flashinfer_host(dev):
            vm3, sm3 = fc.merge_states(vs, ss)
        w = torch.softmax(ss * math.log(2.0), 1)
        res += [close(f"merge_states {label} v", vm3, (vs.float() * w[..., None]).sum(1), atol=tol, rtol=tol),
                close(f"merge_states {label} s", sm3, torch.logsumexp(ss * math.log(2.0), 1) / math.log(2.0),
                      atol=1e-5, rtol=1e-5)]
        indptr = torch.tensor([0, 3, 3, 4, 9], dtype=torch.int32, device=dev)
        vv, sv = rnd(9, H, D, dev=dev, dtype=dt, seed=7), rnd(9, H, dev=dev, seed=8, scale=3)
        with _flashinfer_host(dev):
            vm4, sm4 = fc.variable_length_merge_states(vv, sv, indptr)
        for i in range(4):
            a, b = int(indptr[i]), int(indptr[i + 1])
            if a == b:
                continue  # (an empty set: the kernel writes zeros and -inf)
            w = torch.softmax(sv[a:b] * math.log(2.0), 0)
            res += [close(f"varlen {label} v[{i}]", vm4[i], (vv[a:b].float() * w[..., None]).sum(0), atol=tol,
                          rtol=tol),
                    close(f"varlen {label} s[{i}]", sm4[i], torch.logsumexp(sv[a:b] * math.log(2.0), 0) / math.log(2.0),
                          atol=1e-5, rtol=1e-5)]
        outs += [vm, sm, v, s, vm3, sm3, vm4, sm4]
    return res, outs


@case("flashinfer.norm_activation", "flashinfer")
def _(dev):
    """rms_norm (with input and fp8 output scales), rms_norm_add_residual (in place, with and
    without a separate output), silu_and_mul (fp16; scaled to fp8 e4m3)."""
    torch = torch_mod()
    fn = _flashinfer("flashinfer.triton.norm")
    fa = _flashinfer("flashinfer.triton.activation")
    res, outs = [], []
    x, w = rnd(6, 300, dev=dev, seed=1), rnd(300, dev=dev, seed=2)

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    out = torch.empty_like(x)
    fn.rms_norm(x, w, out, 1e-6)
    res.append(close("rms_norm fp32", out, rms(x, w), atol=1e-5))
    xh, wh = x.half(), w.half()
    o8 = torch.empty(6, 300, dtype=torch.float8_e4m3fn, device=dev)
    isc, osc = torch.tensor([0.5], device=dev), torch.tensor([4.0], device=dev)
    fn.rms_norm(xh, wh, o8, 1e-6, in_scale=isc, out_scale=osc)
    r8 = (rms(xh.float() * 0.5, wh.float()) * 4.0).clamp(-448, 448).to(torch.float8_e4m3fn)
    res.append(close("rms_norm fp16 -> fp8 scaled", o8.float(), r8.float(), atol=0.0, rtol=0.13))
    xr, r = rnd(5, 96, dev=dev, seed=3), rnd(5, 96, dev=dev, seed=4)
    w2 = rnd(96, dev=dev, seed=5)
    X, Rr, O = xr.clone(), r.clone(), torch.empty_like(xr)
    fn.rms_norm_add_residual(X, Rr, w2, 1e-6, x_out=O)
    res += [close("add_residual r", Rr, r + xr, atol=1e-6), close("add_residual out", O, rms(r + xr, w2), atol=1e-5)]
    X2, R2 = xr.clone(), r.clone()
    fn.rms_norm_add_residual(X2, R2, w2, 1e-6)
    res.append(close("add_residual r (no out)", R2, r + xr, atol=1e-6))
    a = rnd(4, 2 * 1500, dev=dev, dtype=torch.float16, seed=6)
    o = fa.silu_and_mul(a)
    d = 1500
    ra = torch.nn.functional.silu(a[:, :d].float()) * a[:, d:].float()
    res.append(close("silu_and_mul fp16", o, ra, atol=2e-3, rtol=2e-3))
    o8 = fa.silu_and_mul(a, o_scale=torch.tensor([2.0], device=dev), dtype=torch.float8_e4m3fn)
    res.append(close("silu_and_mul -> fp8", o8.float(), (ra * 2).to(torch.float8_e4m3fn).float(), atol=0, rtol=0.13))
    outs += [out, o8.float(), Rr, O, o]
    return res, outs


@case("flashinfer.gemm", "flashinfer")
def _(dev):
    """The SM-constrained GEMMs: gemm (grouped tiles), gemm_persistent (a grid of at most
    num_sms programs looping over tiles; alpha/beta epilogue into C), fp16 and bf16."""
    torch = torch_mod()
    fg = _flashinfer("flashinfer.triton.sm_constraint_gemm")
    res, outs = [], []
    for label, dt, tol in (("fp16", torch.float16, 2e-2), ("bf16", torch.bfloat16, 5e-2)):
        M, K, N = 150, 96, 200
        a, b = rnd(M, K, dev=dev, dtype=dt, seed=1), rnd(K, N, dev=dev, dtype=dt, seed=2)
        c0 = rnd(M, N, dev=dev, dtype=dt, seed=3)
        ref = a.float() @ b.float()
        # (beta = 0 still reads C: `fma(c, alpha, beta * load(C))`, so C given zeroed, not empty)
        z = torch.zeros(M, N, device=dev, dtype=dt)
        with _flashinfer_host(dev):
            c1 = fg.gemm(a, b, c=z.clone())
            c2 = fg.gemm_persistent(a, b, c=z.clone(), num_sms=3)
            c3 = fg.gemm_persistent(a, b, c=c0.clone(), alpha=0.5, beta=2.0)
        res += [close(f"gemm {label}", c1, ref, atol=tol, rtol=tol),
                close(f"persistent {label}", c2, ref, atol=tol, rtol=tol),
                close(f"persistent alpha/beta {label}", c3, 0.5 * ref + 2.0 * c0.float(), atol=2 * tol, rtol=tol)]
        outs += [c1, c2, c3]
    return res, outs


@case("flashinfer.ssd_cumsum_page", "flashinfer")
def _(dev):
    """Mamba-2's SSD chunk cumsum as FlashInfer ships it (dt with bias, softplus, clamped;
    dA cumulative sums per chunk, a partial last chunk), and the paged-KV append positions
    kernel launched as flashinfer/page.py's get_batch_indices_positions launches it (its
    docstring's example and a second batch)."""
    torch = torch_mod()
    ssd = _flashinfer("flashinfer.triton.kernels.ssd_chunk_state")
    pg = _flashinfer("flashinfer.triton.page")
    F = torch.nn.functional
    res, outs = [], []
    B, L, H, C = 2, 100, 5, 32
    dt = rnd(B, L, H, dev=dev, seed=1)
    A = -rnd(H, dev=dev, seed=2).abs()
    bias = rnd(H, dev=dev, seed=3) * 0.5
    for label, kw in (("softplus bias limit", dict(dt_bias=bias, dt_softplus=True, dt_limit=(0.05, 2.0))),
                      ("plain", {})):
        with _cuda_host(dev):
            dA_cs, dt_out = ssd.chunk_cumsum_fwd(dt, A, C, **kw)
        d = dt + (kw["dt_bias"] if "dt_bias" in kw else 0)
        if kw.get("dt_softplus"):
            d = F.softplus(d)
        lo, hi = kw.get("dt_limit", (0.0, float("inf")))
        d = d.clamp(lo, hi)
        nch = -(-L // C)
        dpad = F.pad(d, (0, 0, 0, nch * C - L)).view(B, nch, C, H).permute(0, 3, 1, 2)
        valid = (torch.arange(nch * C, device=dev) < L).view(nch, C)
        ref_dt = torch.where(valid, dpad, torch.zeros(()))
        ref_cs = (ref_dt * A[None, :, None, None]).cumsum(-1)
        res += [close(f"{label} dt_out", torch.where(valid, dt_out, torch.zeros(())), ref_dt, atol=1e-6, rtol=1e-5),
                close(f"{label} dA_cumsum", torch.where(valid, dA_cs, torch.zeros(())),
                      torch.where(valid, ref_cs, torch.zeros(())), atol=1e-5, rtol=1e-5)]
        outs += [dt_out, dA_cs]
    for label, indptr, lens in (("docstring", [0, 1, 3, 6, 10], [5, 5, 5, 5]), ("long", [0, 200, 203, 340], [250, 3, 400])):
        ip = torch.tensor(indptr, dtype=torch.int32, device=dev)
        sl = torch.tensor(lens, dtype=torch.int32, device=dev)
        nnz = indptr[-1]
        bi = torch.full((nnz,), -1, dtype=torch.int32, device=dev)
        pos = torch.zeros((nnz,), dtype=torch.int32, device=dev)
        pg.get_batch_indices_positions_kernel[(len(lens),)](ip, sl, bi, pos, num_stages=2)
        rb = torch.cat([torch.full((indptr[i + 1] - indptr[i],), i) for i in range(len(lens))])
        rp = torch.cat([torch.arange(lens[i] - (indptr[i + 1] - indptr[i]), lens[i]) for i in range(len(lens))])
        res += [close(f"page {label} batch_indices", bi, rb, atol=0, rtol=0),
                close(f"page {label} positions", pos, rp, atol=0, rtol=0)]
        outs += [bi, pos]
    return res, outs


def _flashinfer_sub(name):
    """A FlashInfer module below packages whose __init__s load CuTe DSL or CUDA modules
    (flashinfer.experimental.b12x, flashinfer.kda_kernels): those packages registered
    without their __init__. b12x's modules import themselves as the top-level `b12x`
    (its __init__ aliases the installed b12x): `b12x` is the same folder, without __init__."""
    parts = name.split(".")
    for i in range(2, len(parts)):
        _package_without_init(".".join(parts[:i]), ARGS.src)
    if "b12x" not in sys.modules:
        mod = types.ModuleType("b12x")
        mod.__path__ = [str(pathlib.Path(ARGS.src, "flashinfer", "experimental", "b12x"))]
        mod.__package__ = "b12x"
        mod.__spec__ = importlib.machinery.ModuleSpec("b12x", None, is_package=True)
        mod.__spec__.submodule_search_locations = mod.__path__
        sys.modules["b12x"] = mod
    return _flashinfer(name)


@case("flashinfer.route_topk_kda", "flashinfer")
def _(dev):
    """b12x's MoE router top-k (softmax with a correction bias that steers selection only,
    per-token image bias, sqrt-softplus with renormalization; ties to the larger expert id;
    tl.gather of the selected logits) and the exact recurrent KDA kernel (gated delta rule
    with per-key decay, varlen, initial and final states; `num_seqs: tl.int64`)."""
    torch = torch_mod()
    rt = _flashinfer_sub("flashinfer.experimental.b12x.moe._shared.routing")
    kda = _flashinfer_sub("flashinfer.kda_kernels.ptx.recurrent_kernel")
    F = torch.nn.functional
    res, outs = [], []
    T, E, K = 6, 40, 4
    logits = rnd(T, E, dev=dev, seed=1, scale=2)
    logits[2, 7] = logits[2, 9] = logits[2].max() + 1  # a tie: the larger id is taken first
    cbias = rnd(E, dev=dev, seed=2) * 0.1
    ibias = rnd(E, dev=dev, seed=3) * 0.1
    imask = torch.tensor([True, False, True, False, False, True], device=dev)
    for label, kw in (("softmax bias", dict(renormalize=True, correction_bias=cbias)),
                      ("softmax image bias", dict(renormalize=False, correction_bias=cbias,
                                                  image_correction_bias=ibias, image_mask=imask,
                                                  routed_scaling_factor=2.5)),
                      ("sqrtsoftplus", dict(renormalize=True, score_func="sqrtsoftplus"))):
        tlg = torch.empty(T, K, device=dev)
        tid = torch.empty(T, K, dtype=torch.int32, device=dev)
        tw = torch.empty(T, K, device=dev)
        with _tensors_say_cuda(dev):
            rt.route_topk(logits, tlg, tid, tw, **kw)
        sqrt_sp = kw.get("score_func") == "sqrtsoftplus"
        scores = torch.sqrt(F.softplus(logits)) if sqrt_sp else torch.softmax(logits, -1)
        sel = scores.clone()
        if "correction_bias" in kw:
            sel = sel + cbias
        if "image_mask" in kw:
            sel = torch.where(imask[:, None], scores + ibias, sel)
        # top-k with ties broken toward the larger id: sort by (score, id) descending
        key = sel.double() * 1e6 + torch.arange(E, device=dev).double() * 1e-3
        rid = key.argsort(-1, descending=True)[:, :K]
        rl = logits.gather(1, rid)
        if sqrt_sp:
            rw = scores.gather(1, rid)
            rw = rw / (rw.sum(-1, keepdim=True) + 1e-20)
        elif kw["renormalize"]:
            rw = torch.softmax(rl, -1)
        else:
            rw = rl
        rw = rw * kw.get("routed_scaling_factor", 1.0)
        res += [close(f"{label} ids", tid, rid, atol=0, rtol=0), close(f"{label} logits", tlg, rl, atol=0, rtol=0),
                close(f"{label} weights", tw, rw, atol=1e-6, rtol=1e-5)]
        outs += [tid, tlg, tw]
    # KDA: two sequences of 5 and 9 tokens, 2 heads of 128
    lens, H, D = [5, 9], 2, 128
    Tt = sum(lens)
    cu = torch.tensor([0, 5, 14], dtype=torch.int32, device=dev)
    q, k, v, g = (rnd(Tt, H, D, dev=dev, seed=s_) for s_ in (4, 5, 6, 7))
    beta = rnd(Tt, H, dev=dev, seed=8)
    a_log, dt_bias = rnd(H, dev=dev, seed=9) * 0.1, rnd(H, D, dev=dev, seed=10) * 0.1
    h0 = rnd(2, H, D, D, dev=dev, seed=11) * 0.1
    out = torch.empty(Tt, H, D, device=dev)
    hT = torch.empty(2, H, D, D, device=dev)
    kda.launch_recurrent(q=q, k=k, v=v, g=g, beta=beta, a_log=a_log, dt_bias=dt_bias, out=out, initial_state=h0,
                         final_state=hT, cu_seqlens=cu, scale=D ** -0.5, lower_bound=-5.0)
    ro, rh = torch.empty_like(out), torch.empty_like(hT)
    for b in range(2):
        for h in range(H):
            S = h0[b, h].double().clone()  # [value, key]
            for t in range(int(cu[b]), int(cu[b + 1])):
                qq, kk = q[t, h].double(), k[t, h].double()
                qq = qq * torch.rsqrt((qq * qq).sum() + 1e-6) * D ** -0.5
                kk = kk * torch.rsqrt((kk * kk).sum() + 1e-6)
                decay = -5.0 * torch.sigmoid(torch.exp(a_log[h].double()) * (g[t, h].double() + dt_bias[h].double()))
                S = S * torch.exp(decay)[None, :]
                r = (v[t, h].double() - S @ kk) * torch.sigmoid(beta[t, h].double())
                S = S + r[:, None] * kk[None, :]
                ro[t, h] = (S @ qq).float()
            rh[b, h] = S.float()
    res += [close("kda out", out, ro, atol=1e-5, rtol=1e-4), close("kda final state", hT, rh, atol=1e-5, rtol=1e-4)]
    outs += [out, hT]
    return res, outs


def _b12x_scale_offset(row, group, groups):
    """b12x's F8_128x4 swizzled scale layout (byte offset of a row's scale group)."""
    return (row // 128 * ((groups + 3) // 4) + group // 4) * 512 + row % 32 * 16 + row // 32 % 4 * 4 + group % 4


@case("flashinfer.b12x_blockscaled_quantize", "flashinfer")
def _(dev):
    """b12x's activation packer for its block-scaled dense GEMM, launched by its own
    `launch`: the first call resolves the kernel through `kernel[grid](...)` (with
    enable_fp_fusion=False) and checks the returned CompiledKernel's
    `metadata.global_scratch_size` / `profile_scratch_size`; later calls launch that
    CompiledKernel directly, `compiled[grid](*args)`. NVFP4 (e4m3 scales per 16 under a
    global scale, E2M1 codes by thresholds, pairs packed with tl.split; alpha from the
    weight's global scale, reciprocal or not) and MXFP8 (power-of-two scales per 32), the
    scales written into the 128x4-swizzled layout with the padding rows filled."""
    torch = torch_mod()
    qz = _flashinfer_sub("flashinfer.experimental.b12x.gemm.blockscaled._quantize")
    res, outs = [], []
    e2m1 = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6])
    for label, fp4, group, recip in (("nvfp4", True, 16, False), ("nvfp4 reciprocal", True, 16, True),
                                     ("mxfp8", False, 32, False)):
        for M in (37, 130):  # (a second launch of the same geometry: the CompiledKernel path)
            K = 256
            x = rnd(M, K, dev=dev, dtype=torch.bfloat16, seed=M, scale=2)
            groups = K // group
            Q = torch.zeros(M, K // 2 if fp4 else K, dtype=torch.uint8 if fp4 else torch.float8_e4m3fn, device=dev)
            S = torch.full(((M + 127) // 128 * 128 * ((groups + 3) // 4) * 4,), 255, dtype=torch.uint8, device=dev)
            ag = torch.tensor([3.0], device=dev)
            wg = torch.tensor([0.5], device=dev)
            alpha = torch.zeros(1, device=dev)
            chunks = 4
            with _cuda_host(dev):
                qz.launch(qz._quantize, (x, Q, S, ag, wg, alpha, M),
                          dict(INPUT_K=K, K=K, FP4=fp4, RECIPROCAL=recip, GROUP=group, CHUNKS=chunks),
                          (M, triton_cdiv(groups, chunks)), device=torch.device(dev))
            xf = x.float().cpu().view(M, groups, group)
            amax = xf.abs().amax(-1)
            rows = torch.arange(M)[:, None].expand(M, groups)
            gidx = torch.arange(groups)[None, :].expand(M, groups)
            offs = _b12x_scale_offset(rows, gidx, groups)
            if fp4:
                sf = (amax * (1.0 / 6.0) * 3.0).to(torch.float8_e4m3fn)
                eff = sf.float() * (1.0 / 3.0)
                inv = torch.where(eff == 0, torch.zeros(()), 1.0 / eff)
                z = (xf * inv[..., None]).abs().clamp(max=6.0)
                th = [(0.25, False), (0.75, True), (1.25, False), (1.75, True), (2.5, False), (3.5, True), (5.0, False)]
                code = sum(((z >= t) if ge else (z > t)).to(torch.int64) for t, ge in th)
                val = torch.where(xf < 0, -1.0, 1.0) * e2m1[code]
                p = Q.cpu().to(torch.int64).view(M, groups, group // 2)
                codes = torch.stack([p & 15, p >> 4], -1).flatten(-2)
                got = torch.where(codes >= 8, -1.0, 1.0) * e2m1[codes & 7]
                res += [close(f"{label} M={M} values", got, val, atol=0, rtol=0),
                        close(f"{label} M={M} scales", S.cpu()[offs], sf.view(torch.uint8), atol=0, rtol=0),
                        close(f"{label} M={M} alpha", alpha, torch.tensor([(1 / 0.5 if recip else 0.5) / 3.0]),
                              atol=0, rtol=1e-6)]
            else:
                ratio = torch.where(amax > 0, amax / 448.0, torch.ones(()))
                ex = torch.ceil(torch.log2(ratio)).clamp(-127, 127)
                vals = (xf / torch.exp2(ex)[..., None]).to(torch.float8_e4m3fn).float()
                res += [close(f"{label} M={M} values", Q.float().cpu().view(M, groups, group), vals, atol=0, rtol=0),
                        close(f"{label} M={M} scales", S.cpu()[offs], (ex + 127).to(torch.uint8), atol=0, rtol=0)]
            # the padding rows' scales up to the next multiple of 128 rows
            pad_rows = torch.arange(M, (M + 127) // 128 * 128)[:, None].expand(-1, groups)
            poffs = _b12x_scale_offset(pad_rows, torch.arange(groups)[None, :].expand_as(pad_rows), groups)
            res.append(close(f"{label} M={M} padding scales", S.cpu()[poffs].float(),
                             torch.full(poffs.shape, 0.0 if fp4 else 127.0), atol=0, rtol=0))
            outs += [Q.view(torch.uint8), S]
    return res, outs


def triton_cdiv(a, b):
    return (a + b - 1) // b


@case("flashinfer.b12x_loader_schedule", "flashinfer")
def _(dev):
    """b12x's checkpoint-loader copies: `compile_copies` warms the kernel up on a pointer
    stand-in with 2^32 scalars and checks the handles' metadata (scratch, ctas, cooperative,
    PDL, shared memory, num_warps * warp_size == 128); the kernel (its runtime launches it
    from native code) then copies strided byte rows and widens bf16 into fp32 bit patterns.
    And the paged-MQA schedule metadata kernel (cumsum, a [SMs x batch] comparison and
    masked sums) against the module's own torch version."""
    torch = torch_mod()
    gds = _flashinfer_sub("flashinfer.experimental.b12x.loader._gds_kernels")
    sch = _flashinfer_sub("flashinfer.experimental.b12x.attention.dsa_indexer.schedule_metadata")
    res, outs = [], []
    with _cuda_host(dev):
        programs = gds.compile_copies(torch.device(dev))
    res.append(close("compile_copies handles", torch.tensor(float(len(programs))), torch.tensor(2.0), atol=0))
    rows, width = 7, 300
    gen = torch.Generator().manual_seed(1)
    src = torch.randint(0, 256, (rows, 320), generator=gen, dtype=torch.uint8).to(dev)
    dst = torch.zeros(rows, 310, dtype=torch.uint8, device=dev)
    gds._copy_rows[(triton_cdiv(rows * width, 1024),)](src, dst, width, rows, 320, 310, EXPAND=False, BLOCK=1024,
                                                         num_warps=4)
    want = torch.zeros_like(dst)
    want[:, :width] = src[:, :width]
    res.append(close("copy rows", dst, want, atol=0, rtol=0))
    bf = rnd(rows, 150, dev=dev, dtype=torch.bfloat16, seed=2)
    wide = torch.zeros(rows, 150, dtype=torch.float32, device=dev)
    gds._copy_rows[(triton_cdiv(rows * 300, 1024),)](bf.view(torch.uint8), wide.view(torch.uint8), 300, rows, 300,
                                                       600, EXPAND=True, BLOCK=1024, num_warps=4)
    res.append(close("bf16 -> fp32 bits", wide, bf.float(), atol=0, rtol=0))
    outs += [dst, wide]
    for label, lens, sms in (("1d", torch.tensor([100, 0, 37, 900, 64], dtype=torch.int32), 6),
                             ("2d", torch.tensor([[5, 300], [1, 40], [2, 2000]], dtype=torch.int32), 8)):
        lens = lens.to(dev)
        out = torch.full((sms + 1, 2), -7, dtype=torch.int32, device=dev)
        ref = torch.full((sms + 1, 2), -7, dtype=torch.int32)
        # (it takes its torch version for non-CUDA tensors: on the CPU its support test is
        # answered without the device check)
        cpu = dict(supports_triton_paged_mqa_schedule_metadata=lambda c, num_sms: 0 < num_sms <= 512) \
            if dev == "cpu" else {}
        with _patched(sch, **cpu):
            sch.build_paged_mqa_schedule_metadata_triton(lens, block_kv=16, num_sms=sms, pages_per_split=2, out=out)
        sch.build_paged_mqa_schedule_metadata_torch(lens.cpu(), block_kv=16, num_sms=sms, pages_per_split=2, out=ref)
        res.append(close(f"paged mqa schedule {label}", out, ref, atol=0, rtol=0))
        outs.append(out)
    return res, outs


def _mix64(v):
    """b12x calibration's 64-bit mixer (splitmix64's finalizer) on Python ints mod 2^64."""
    m = (1 << 64) - 1
    v ^= v >> 30
    v = (v * 0xBF58476D1CE4E5B9) & m
    v ^= v >> 27
    v = (v * 0x94D049BB133111EB) & m
    return v ^ (v >> 31)


@case("flashinfer.moe_calibration", "flashinfer")
def _(dev):
    """b12x's MoE quantization-calibration sidecars: epoch advance, routing statistics
    (int and fp64 atomics), gate-weighted input moments, hashed subsampling (uint64
    splitmix arithmetic with constants above 2^63, `% rate`, shifts) into ring buffers
    claimed by atomic cursor with a capacity and drop count, sample copies, in-place
    unscaling of route rows, and the mid (w2-input) moments and samples. Sample slots are
    claimed in the order the programs run (on a GPU not the token order: with more samples
    than slots, which of them are kept varies), so the kept tokens are read from the kernel's
    slots, checked to be as many as the slots allow and among the sampled ones, and the
    samples are compared sorted by their observation id (exactly, as offsets from the
    epoch's: `close` compares in fp32)."""
    torch = torch_mod()
    cal = _flashinfer_sub("flashinfer.experimental.b12x.moe.calibration")
    res, outs = [], []
    T, W, K, E = 7, 200, 2, 6
    x = rnd(T, W, dev=dev, seed=1)
    gen = torch.Generator().manual_seed(4)
    ids = torch.stack([torch.randperm(E, generator=gen)[:K] for _ in range(T)]).to(torch.int32).to(dev)
    ids[3, 1] = -1  # an empty route
    wts = rnd(T, K, dev=dev, seed=2).softmax(-1)
    pad = torch.tensor([False, False, True, False, False, False, False], device=dev)
    cap, rate_h, modulus, eb, ee = 3, 2, 3, 1, 5
    z = lambda *shape, dt=torch.float32: torch.zeros(*shape, dtype=dt, device=dev)  # noqa: E731
    buf = cal.RouteInputBuffers(
        enabled=torch.ones(1, dtype=torch.int32, device=dev), epoch_counter=torch.full((1,), 5, dtype=torch.int64,
                                                                                      device=dev),
        epoch=z(1, dt=torch.int64), tokens_routed=z(E, dt=torch.int32), gate_sum=z(E, dt=torch.float64),
        gate_sq_sum=z(E, dt=torch.float64), input_sq_sum=z(ee - eb, W), input_weight_sum=z(ee - eb, dt=torch.float64),
        input_count=z(ee - eb, dt=torch.int32), sample_cursor=z(1, dt=torch.int32), sample_dropped=z(1, dt=torch.int32),
        sample_slots=z(T, dt=torch.int32), sample_values=z(cap, W), sample_weight=z(cap),
        sample_observation=z(cap, dt=torch.int64), sample_experts=z(cap, K, dt=torch.int32), sample_gates=z(cap, K),
        sample_split=z(cap, dt=torch.int8))
    cal.collect_route_input(x, wts, ids, pad, buf, num_experts=E, expert_begin=eb, expert_end=ee, moment_sample_rate=1,
                            hessian_sample_rate=rate_h, validation_modulus=modulus, collect_routing=True)
    epoch = 5
    live = [not bool(pad[t]) for t in range(T)]
    r_tokens, r_gs, r_gsq = [0] * E, [0.0] * E, [0.0] * E
    r_sq, r_ws, r_cnt = torch.zeros(ee - eb, W), [0.0] * (ee - eb), [0] * (ee - eb)
    samples = []
    for t in range(T):
        if not live[t]:
            continue
        for j in range(K):
            e, w = int(ids[t, j]), float(wts[t, j])
            if 0 <= e < E:
                r_tokens[e] += 1
                r_gs[e] += w
                r_gsq[e] += w * w
            if eb <= e < ee:
                r_sq[e - eb] += x[t].cpu() ** 2 * wts[t, j].cpu() ** 2
                r_ws[e - eb] += w * w
                r_cnt[e - eb] += 1
        if _mix64(epoch ^ t) % rate_h == 0:
            samples.append(t)
    slots = buf.sample_slots.cpu()
    acc = [t for t in range(T) if int(slots[t]) >= 0]  # the kept samples, in token order
    dropped = max(0, len(samples) - cap)
    res += [close("epoch", buf.epoch, torch.tensor([5]), atol=0, rtol=0),
            close("epoch_counter", buf.epoch_counter, torch.tensor([6]), atol=0, rtol=0),
            close("tokens_routed", buf.tokens_routed, torch.tensor(r_tokens), atol=0, rtol=0),
            close("gate_sum", buf.gate_sum, torch.tensor(r_gs, dtype=torch.float64), atol=1e-6),
            close("gate_sq_sum", buf.gate_sq_sum, torch.tensor(r_gsq, dtype=torch.float64), atol=1e-6),
            close("input_sq_sum", buf.input_sq_sum, r_sq, atol=1e-5, rtol=1e-5),
            close("input_weight_sum", buf.input_weight_sum, torch.tensor(r_ws, dtype=torch.float64), atol=1e-6),
            close("input_count", buf.input_count, torch.tensor(r_cnt), atol=0, rtol=0),
            close("sample_cursor", buf.sample_cursor, torch.tensor([len(samples)]), atol=0, rtol=0),
            close("sample_dropped", buf.sample_dropped, torch.tensor([dropped]), atol=0, rtol=0)]
    order = buf.sample_observation.cpu().argsort()
    obs = [(epoch << 32) | t for t in acc]
    split = [int(_mix64(o ^ 0x6A09E667F3BCC909) % modulus == 0) for o in obs]
    res += [("sample slots kept", len(acc) == min(cap, len(samples)) and set(acc) <= set(samples), 0.0),
            close("sample observations", buf.sample_observation.cpu()[order] - (epoch << 32),
                  torch.tensor(sorted(obs)) - (epoch << 32), atol=0, rtol=0),
            close("sample split", buf.sample_split.cpu()[order], torch.tensor(split), atol=0, rtol=0),
            close("sample values", buf.sample_values.cpu()[order], x.cpu()[acc], atol=0, rtol=0),
            close("sample experts", buf.sample_experts.cpu()[order], ids.cpu()[acc], atol=0, rtol=0),
            close("sample gates", buf.sample_gates.cpu()[order], wts.cpu()[acc], atol=0, rtol=0),
            close("sample weight", buf.sample_weight.cpu()[order], (wts.cpu()[acc] ** 2).sum(-1), atol=1e-7),
            close("sample slots", torch.sort(slots[torch.tensor(acc, dtype=torch.long)]).values,
                  torch.arange(len(acc), dtype=torch.int32), atol=0, rtol=0)]
    outs += [buf.tokens_routed, buf.gate_sum, buf.input_sq_sum, buf.sample_values]
    # unscale route rows in place (an expert map with one expert not local)
    vals = rnd(T * K, W, dev=dev, seed=5)
    emap = torch.tensor([0, -1, 1, 2, 3, 4], dtype=torch.int32, device=dev)
    scales = rnd(5, W + 16, dev=dev, seed=6).abs() + 0.5
    V = vals.clone()
    cal.unscale_route_rows_(V, ids, emap, scales, num_experts=E, scale_stride=W + 16, scale_offset=8)
    rv = vals.clone()
    for r in range(T * K):
        e = int(ids.flatten()[r])
        if 0 <= e < E and int(emap[e]) >= 0:
            rv[r] = vals[r] / scales[int(emap[e]), 8:8 + W]
    res.append(close("unscale_route_rows_", V, rv, atol=1e-6, rtol=1e-6))
    # mid moments and samples
    mbuf = cal.MidBuffers(enabled=torch.ones(1, dtype=torch.int32, device=dev), epoch=buf.epoch.clone(),
                          mid_sq_sum=z(E, W), mid_weight_sum=z(E, dt=torch.float64), mid_count=z(E, dt=torch.int32),
                          sample_cursor=z(1, dt=torch.int32), sample_dropped=z(1, dt=torch.int32),
                          sample_slots=z(T * K, dt=torch.int32), sample_values=z(4, W), sample_weight=z(4),
                          sample_observation=z(4, dt=torch.int64), sample_expert=z(4, dt=torch.int32),
                          sample_split=z(4, dt=torch.int8))
    src = rnd(T * K, W, dev=dev, seed=7)
    cal.collect_mid(src, wts, ids, None, pad, mbuf, num_experts=E, width=W, source_stride=W, moment_sample_rate=1,
                    hessian_sample_rate=2, validation_modulus=modulus)
    r_msq, r_mws, r_mcnt, msamples = torch.zeros(E, W), [0.0] * E, [0] * E, []
    for t in range(T):
        for j in range(K):
            r, e = t * K + j, int(ids[t, j])
            if not live[t] or not 0 <= e < E:
                continue
            r_msq[e] += src[r].cpu() ** 2 * wts[t, j].cpu() ** 2
            r_mws[e] += float(wts[t, j]) ** 2
            r_mcnt[e] += 1
            if _mix64(epoch ^ r ^ (e << 20)) % 2 == 0:
                msamples.append((t, j))
    res += [close("mid_sq_sum", mbuf.mid_sq_sum, r_msq, atol=1e-5, rtol=1e-5),
            close("mid_weight_sum", mbuf.mid_weight_sum, torch.tensor(r_mws, dtype=torch.float64), atol=1e-6),
            close("mid_count", mbuf.mid_count, torch.tensor(r_mcnt), atol=0, rtol=0),
            close("mid sample_cursor", mbuf.sample_cursor, torch.tensor([len(msamples)]), atol=0, rtol=0)]
    mslots = mbuf.sample_slots.cpu()
    macc = [(t, j) for t in range(T) for j in range(K) if int(mslots[t * K + j]) >= 0]  # the kept samples
    mobs = sorted((t << 8) | j for t, j in macc)
    morder = mbuf.sample_observation.cpu()[:len(macc)].argsort()
    res += [("mid sample slots kept", len(macc) == min(4, len(msamples)) and set(macc) <= set(msamples), 0.0),
            close("mid sample observations", mbuf.sample_observation.cpu()[:len(macc)][morder] - (epoch << 32),
                  torch.tensor(mobs), atol=0, rtol=0)]
    outs += [V, mbuf.mid_sq_sum, mbuf.sample_observation]
    return res, outs


def _flashinfer_sm12x(name):
    """A module of FlashInfer's SM12x fused MoE (fused_moe/cute_dsl/blackwell_sm12x): its
    packages without their __init__s (CuTe DSL), and its layout module (which imports
    cutlass) standing in with the three constants and the function the Triton route reads."""
    base = "flashinfer.fused_moe.cute_dsl.blackwell_sm12x"
    _flashinfer("flashinfer.triton")
    for p_ in ("flashinfer.fused_moe", "flashinfer.fused_moe.cute_dsl", base, base + "._moe_utils"):
        _package_without_init(p_, ARGS.src)
    lay = base + "._moe_utils.sm12x_blockscaled_layout"
    if lay not in sys.modules:
        _stub_modules([lay], SF_M_ALIGN=4, UE8M0_PACK_NUM=4,
                      compute_padded_offset=lambda o, e, a: (o + e * (a - 1)) // a * a)
    return importlib.import_module(name)


@case("flashinfer.mxfp8_q0_route", "flashinfer")
def _(dev):
    """The SM12x MoE's MXFP8 route-and-quantize step (fused_moe/cute_dsl/blackwell_sm12x,
    its Triton part): expert counts and prefix offsets (atomic counts and a cumsum; the
    per-expert count kernel for many experts), row assignment through atomic cursors (the
    decode path: one program per expert and pair, ranks by tl.sum; the prefill path), token
    map and weights, TMA-aligned scale rows, and the direct MXFP8 quantizer (e8m0 exponents
    per 128 columns packed four per int32; with programmatic-dependent-launch signalling,
    `tl.extra.cuda.gdc_launch_dependents`, and a `launch_pdl` parameter). Its CuTe layout
    module (which imports cutlass) gives three constants and a function, stood in for here.
    Rows within an expert are claimed by atomics in any order: checked as a bijection."""
    torch = torch_mod()
    mr = _flashinfer_sm12x("flashinfer.fused_moe.cute_dsl.blackwell_sm12x.moe_mxfp8_q0_route_triton")
    res, outs = [], []
    H = 1024 + 512  # (two 1024-column blocks, the second partly out of range)
    for label, T, K, E, pdl in (("decode", 20, 4, 8, True), ("prefill", 90, 4, 16, False),
                                ("prefill many experts", 80, 4, 1100, False)):
        x = rnd(T, H, dev=dev, dtype=torch.bfloat16, seed=T, scale=2)
        gen = torch.Generator().manual_seed(E)
        ids = torch.stack([torch.randperm(E, generator=gen)[:K] for _ in range(T)]).to(torch.int32).to(dev)
        ids[1, 2] = -1  # an unrouted pair
        wts = rnd(T, K, dev=dev, seed=3).softmax(-1)
        if E > 1024:
            mr.PREFILL_FUSED_PREFIX_MAX_EXPERTS = 1024
        # (on the CPU: its input check refuses non-CUDA tensors, and it records the workspace
        # on the current CUDA stream; both skipped)
        skip = dict(_record_workspace_stream=lambda w: None, _validate=lambda *a: None) if dev == "cpu" else {}
        with _cuda_host(dev), _patched(mr, **skip):
            offsets, token_map, token_w, q_out, scale_out = mr.mxfp8_q0_route_triton(x, ids, wts, E, enable_pdl=pdl)
        flat = ids.flatten().long()
        routed = flat >= 0
        counts = torch.bincount(flat[routed], minlength=E)
        ref_off = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0).cpu()])
        res.append(close(f"{label} offsets", offsets, ref_off, atol=0, rtol=0))
        # each routed pair has a row of its expert's segment, one pair per row
        rows_ok, maps_ok, q_ok = True, True, True
        tm, tw = token_map.cpu(), token_w.cpu()
        # dst rows are not returned: recover them from the token map (pair p of token t in expert e)
        for e in range(E):
            seg = range(int(ref_off[e]), int(ref_off[e + 1]))
            want = sorted(int(p_) // K for p_ in (flat == e).nonzero().flatten())
            got = sorted(int(tm[r]) for r in seg)
            rows_ok &= got == want
            for r in seg:
                t = int(tm[r])
                j = int((ids[t].cpu() == e).nonzero()[0])
                maps_ok &= bool(tw[r] == wts[t, j].cpu())
        res += [close(f"{label} token_map per expert", torch.tensor(float(rows_ok)), torch.tensor(1.0), atol=0),
                close(f"{label} token_weights", torch.tensor(float(maps_ok)), torch.tensor(1.0), atol=0)]
        # the quantized rows: x of the row's token in MXFP8 (per 128 columns: e8m0 of amax/448
        # rounded up, values x / 2^(e-127) in e4m3)
        xf = x.float().cpu().view(T, H // 128, 128)
        amax = xf.abs().amax(-1).clamp(min=1e-4)
        bits = (amax / 448.0).view(torch.int32)
        ex = (((bits >> 23) & 0xFF) + ((bits & 0x7FFFFF) != 0).int()).clamp(1, 254)
        sf = (ex << 23).view(torch.float32)
        qref = (xf * (1.0 / sf[..., None])).to(torch.float8_e4m3fn).float().view(T, H)
        qo = q_out.float().cpu()
        for r in range(int(ref_off[-1])):
            q_ok &= bool((qo[r] == qref[int(tm[r])]).all())
        res.append(close(f"{label} q_out rows", torch.tensor(float(q_ok)), torch.tensor(1.0), atol=0))
        # packed scales: for each routed row, its scale row holds the four exponents of each
        # 512 columns (byte i: tile i)
        so = scale_out.cpu().to(torch.int64) & 0xFFFFFFFF
        sc_ok = True
        for e in range(E):
            b0 = int(ref_off[e])
            sb = (b0 + e * 3) & -4
            for r in range(b0, int(ref_off[e + 1])):
                t = int(tm[r])
                for kb in range(so.shape[0]):
                    want = sum(int(ex[t, kb * 4 + i]) << (8 * i) for i in range(4) if kb * 4 + i < H // 128)
                    sc_ok &= int(so[kb, sb + r - b0]) == want
        res.append(close(f"{label} scale_out", torch.tensor(float(sc_ok)), torch.tensor(1.0), atol=0))
        outs += [offsets, q_out.float()]
    return res, outs


# ---------------------------------------------------------------------------------- xformers

def _xformers(name):
    """xformers' Triton kernels. XFORMERS_ENABLE_TRITON=1 is its own switch (without it
    Triton counts as available only where torch sees a GPU); `flash_attn` is hidden while it
    imports (xformers' fmha imports the fetched flash_attn folder, whose CUDA extension is
    not built). Its C++ library is absent: xformers warns and runs without it."""
    os.environ["XFORMERS_ENABLE_TRITON"] = "1"
    if name in sys.modules:
        return sys.modules[name]
    with _flash_attn_hidden():
        return importlib.import_module(name)


@contextlib.contextmanager
def _tensors_say_cuda(dev):
    """On the CPU only: `Tensor.is_cuda` answers True while the case runs (xformers' host
    code refuses other tensors: "The index tensor and the source tensor must be of type
    CUDA!"), and torch.cuda answers as for an sm_90 GPU (_cuda_host)."""
    torch = torch_mod()
    if dev != "cpu":
        yield
        return
    with _patched(torch.Tensor, is_cuda=property(lambda self: True)), _cuda_host(dev):
        yield


@contextlib.contextmanager
def _xformers_perf_model(dev):
    """On the CPU only: xformers' matmul performance model (its autotuner's prune_configs_by)
    reads the SM clock through nvidia-smi or pynvml, and the DRAM bandwidth from the driver's
    device properties, which in tritium's interpreter have no memory clock (0: the model
    divides by it). Both answer an H100's figures while the case runs."""
    if dev != "cpu":
        yield
        return
    pm = _xformers("xformers.ops._triton.matmul_perf_model")
    from tritium import driver
    props = driver.INTERPRETER_PROPERTIES
    saved = dict(props)
    props.update(sm_clock_rate=1980000, mem_clock_rate=2619000, mem_bus_width=5120)
    try:
        with _patched(pm, get_clock_rate_in_khz=lambda: 1980 * 1000):
            yield
    finally:
        props.update(saved)


@case("xformers.rmsnorm", "xformers")
def _(dev):
    """rms_norm (with and without weight; fp32, bf16) and rms_norm_add (x += y in place)."""
    torch = torch_mod()
    rn = _xformers("xformers.ops.rmsnorm")
    res, outs = [], []

    def ref(x, w):
        y = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)
        return y if w is None else y * w.float()
    with torch.no_grad(), _cuda_host(dev):
        for label, dt, tol, n in (("fp32", torch.float32, 1e-5, 300), ("bf16", torch.bfloat16, 2e-2, 1000),
                                  ("fp32 wide", torch.float32, 1e-5, 9000)):
            x, w = rnd(2, 5, n, dev=dev, dtype=dt, seed=1), rnd(n, dev=dev, dtype=dt, seed=2)
            o1, o2 = rn.rms_norm(x, w), rn.rms_norm(x, None)
            res += [close(f"{label} weight", o1, ref(x, w), atol=tol, rtol=tol),
                    close(f"{label} no weight", o2, ref(x, None), atol=tol, rtol=tol)]
            y = rnd(2, 5, n, dev=dev, dtype=dt, seed=3)
            X = x.clone()
            o3 = rn.rms_norm_add(X, y, w)
            res += [close(f"{label} add: x", X, (x.float() + y.float()), atol=tol, rtol=tol),
                    close(f"{label} add: out", o3, ref(x.float() + y.float(), w), atol=tol, rtol=tol)]
            outs += [o1, o2, X, o3]
    return res, outs


@case("xformers.indexing", "xformers")
def _(dev):
    """index_select_cat (rows of several sources gathered into one flat output; backward
    scatters the gradient) and scaled_index_add (in place `x[index] += alpha * scaling *
    source`, backward dsource and dscaling), fp32 and fp16."""
    torch = torch_mod()
    ix = _xformers("xformers.ops.indexing")
    res, outs = [], []
    gen = torch.Generator().manual_seed(5)
    for label, dt, tol in (("fp32", torch.float32, 1e-5), ("fp16", torch.float16, 2e-3)):
        srcs = [rnd(20, 96, dev=dev, dtype=dt, seed=1), rnd(33, 700, dev=dev, dtype=dt, seed=2)]
        idxs = [torch.randperm(20, generator=gen)[:7].to(dev), torch.randperm(33, generator=gen)[:30].to(dev)]
        ins = [s.clone().requires_grad_(True) for s in srcs]
        with _tensors_say_cuda(dev):
            out = ix.index_select_cat(ins, idxs)
            g = rnd(*out.shape, dev=dev, dtype=dt, seed=9)
            out.backward(g)
        ref = torch.cat([s[i].flatten() for s, i in zip(srcs, idxs)])
        res.append(close(f"index_select_cat {label}", out, ref, atol=0, rtol=0))
        off = 0
        for j, (s, i) in enumerate(zip(srcs, idxs)):
            n = i.numel() * s.shape[1]
            rg = torch.zeros(s.shape, dtype=torch.float32).index_add(0, i.cpu(), g[off:off + n].view(-1, s.shape[1]).float().cpu())
            off += n
            res.append(close(f"index_select_cat {label} grad{j}", ins[j].grad, rg, atol=tol, rtol=tol))
        x = rnd(12, 5, 64, dev=dev, dtype=dt, seed=3)
        src = rnd(6, 5, 64, dev=dev, dtype=dt, seed=4)
        sc = rnd(64, dev=dev, dtype=dt, seed=5)
        index = torch.randperm(12, generator=gen)[:6].to(dev)
        X = x.clone().requires_grad_(True)
        S, C = src.clone().requires_grad_(True), sc.clone().requires_grad_(True)
        with _tensors_say_cuda(dev):
            y = ix.scaled_index_add(X.clone(), index, S, C, 0.5)
            gy = rnd(*y.shape, dev=dev, dtype=dt, seed=8)
            y.backward(gy)
        ry = torch.index_add(x.float(), 0, index, sc.float() * src.float(), alpha=0.5)
        res += [close(f"scaled_index_add {label}", y, ry, atol=tol, rtol=tol),
                close(f"scaled_index_add {label} dsource", S.grad, 0.5 * sc.float() * gy.float()[index], atol=tol,
                      rtol=tol),
                close(f"scaled_index_add {label} dscaling", C.grad,
                      0.5 * (src.float() * gy.float()[index]).sum((0, 1)), atol=4 * tol, rtol=tol)]
        outs += [out, y, S.grad, C.grad]
    return res, outs


@case("xformers.tiled_matmul", "xformers")
def _(dev):
    """tiled_matmul_out: a matmul of grids of tiles (up to 3 x 3 x 3, e.g. fused wq/wk/wv) in
    one kernel, and its backward's dA (the same on the transposed grid of B, strided tiles);
    fp32 and bf16. (`tiled_matmul` itself is a torch custom op registered for CUDA only.)"""
    torch = torch_mod()
    tm = _xformers("xformers.ops.tiled_matmul")
    res, outs = [], []
    for label, dt, tol in (("fp32", torch.float32, 5e-3), ("bf16", torch.bfloat16, 5e-2)):
        ms, ks, ns = [40, 24], [32, 64, 16], [48, 16, 80]
        a = [[rnd(m, k, dev=dev, dtype=dt, seed=10 * i + j) for j, k in enumerate(ks)] for i, m in enumerate(ms)]
        b = [[rnd(k, n, dev=dev, dtype=dt, seed=100 + 10 * i + j) for j, n in enumerate(ns)] for i, k in enumerate(ks)]
        c = [[torch.empty(m, n, dtype=dt, device=dev) for n in ns] for m in ms]
        # the backward's dA = dC B^T: tiled_matmul_out over the transposed grid of B's tiles
        g = [[rnd(m, n, dev=dev, dtype=dt, seed=200 + 10 * i + j) for j, n in enumerate(ns)] for i, m in enumerate(ms)]
        bt = [[b[i][j].t() for i in range(len(ks))] for j in range(len(ns))]
        da = [[torch.empty(m, k, dtype=dt, device=dev) for k in ks] for m in ms]
        with _tensors_say_cuda(dev), _xformers_perf_model(dev):
            tm.tiled_matmul_out(a, b, out=c)
            tm.tiled_matmul_out(g, bt, out=da)
        A, B, Gm = (torch.cat([torch.cat([t.float() for t in row], 1) for row in x], 0) for x in (a, b, g))
        C, dA = A @ B, Gm @ B.T
        for name, got, full, rows, cols in (("c", c, C, ms, ns), ("dA", da, dA, ms, ks)):
            r0 = 0
            for i, m in enumerate(rows):
                c0 = 0
                for j, n in enumerate(cols):
                    res.append(close(f"{label} {name}[{i}][{j}]", got[i][j], full[r0:r0 + m, c0:c0 + n], atol=tol,
                                     rtol=tol))
                    c0 += n
                r0 += m
        outs += [c[0][0], c[1][2], da[1][2]]
    return res, outs


@case("xformers.rope_padded", "xformers")
def _(dev):
    """rope_padded: RoPE of q and k for a heterogeneous decoding batch, k and v written into
    a padded KV cache (BlockDiagonalCausalWithOffsetPaddedKeysMask); adjacent pairs and
    split halves, linear scaling, GQA; fp32 and bf16."""
    torch = torch_mod()
    rp = _xformers("xformers.ops.rope_padded")
    ab = _xformers("xformers.ops.fmha.attn_bias")
    res, outs = [], []
    q_lens, kv_lens, pad = [3, 1, 4], [10, 5, 16], 16
    nq, Hq, Hk, D = sum(q_lens), 4, 2, 64
    bias = ab.BlockDiagonalCausalWithOffsetPaddedKeysMask.from_seqlens(q_lens, pad, kv_lens, device=torch.device(dev))
    pos = torch.tensor([kl - ql + j for ql, kl in zip(q_lens, kv_lens) for j in range(ql)], dtype=torch.float64)
    slot = torch.tensor([b * pad + kl - ql + j for b, (ql, kl) in enumerate(zip(q_lens, kv_lens)) for j in range(ql)])

    def rope(x, adjacents, scale):
        x = x.double().cpu()
        inv = 10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
        ang = (pos / scale)[:, None] * inv[None]
        cos, sin = ang.cos()[None, :, None], ang.sin()[None, :, None]
        if adjacents:
            a, b = x[..., 0::2], x[..., 1::2]
            return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)
        a, b = x[..., :D // 2], x[..., D // 2:]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)
    for label, dt, tol, adj, scale in (("fp32 adjacent", torch.float32, 1e-4, True, 1.0),
                                       ("fp32 halves scaled", torch.float32, 1e-4, False, 4.0),
                                       ("bf16 adjacent", torch.bfloat16, 3e-2, True, 1.0)):
        xq, xk, xv = (rnd(1, nq, h, D, dev=dev, dtype=dt, seed=s) for s, h in ((1, Hq), (2, Hk), (3, Hk)))
        ck = torch.zeros(1, 3 * pad, Hk, D, dtype=dt, device=dev)
        cv = torch.zeros_like(ck)
        with torch.no_grad(), _cuda_host(dev):
            oq = rp.rope_padded(xq, xk, xv, ck, cv, bias, adjacents=adj, linear_scale=scale)
        rk = torch.zeros(1, 3 * pad, Hk, D, dtype=torch.float64)
        rv = torch.zeros_like(rk)
        rk[0, slot] = rope(xk, adj, scale)[0]
        rv[0, slot] = xv.double().cpu()[0]
        res += [close(f"{label} q", oq, rope(xq, adj, scale), atol=tol, rtol=tol),
                close(f"{label} cache_k", ck, rk, atol=tol, rtol=tol),
                close(f"{label} cache_v", cv, rv, atol=0, rtol=0)]
        outs += [oq, ck, cv]
    return res, outs


@case("xformers.splitk_attention", "xformers")
def _(dev):
    """The split-K decoding attention (fmha/triton_splitk FwOp): dense decode (B x Mq
    queries over one KV each), GQA in the 5-d BMGHK layout, and a heterogeneous batch with a
    padded KV cache (BlockDiagonalCausalWithOffsetPaddedKeysMask: causal with offset);
    fp16 and bf16; the split-K partial results merged by its reduce kernel."""
    torch = torch_mod()
    sk = _xformers("xformers.ops.fmha.triton_splitk")
    fc = _xformers("xformers.ops.fmha.common")
    ab = _xformers("xformers.ops.fmha.attn_bias")
    res, outs = [], []
    for label, dt, tol in (("fp16", torch.float16, 2e-3), ("bf16", torch.bfloat16, 1e-2)):
        B, Mq, Mk, H, D = 2, 2, 300, 3, 64
        q, k, v = (rnd(B, m, H, D, dev=dev, dtype=dt, seed=s) for s, m in ((1, Mq), (2, Mk), (3, Mk)))
        with torch.no_grad(), _tensors_say_cuda(dev):
            o, _ = sk.FwOp.apply(fc.Inputs(q, k, v), needs_gradient=False)
        ref = _attention_ref(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)
        res.append(close(f"dense {label}", o, ref, atol=tol, rtol=tol))
        # GQA: 2 groups of kv heads, 4 query heads each (k/v expanded over the heads)
        G, Hq = 2, 4
        q5 = rnd(B, 1, G, Hq, D, dev=dev, dtype=dt, seed=4)
        k5 = rnd(B, Mk, G, 1, D, dev=dev, dtype=dt, seed=5).expand(B, Mk, G, Hq, D)
        v5 = rnd(B, Mk, G, 1, D, dev=dev, dtype=dt, seed=6).expand(B, Mk, G, Hq, D)
        with torch.no_grad(), _tensors_say_cuda(dev):
            o5, _ = sk.FwOp.apply(fc.Inputs(q5, k5, v5), needs_gradient=False)
        ref5 = _attention_ref(q5.flatten(2, 3).transpose(1, 2), k5.flatten(2, 3).transpose(1, 2),
                              v5.flatten(2, 3).transpose(1, 2)).transpose(1, 2).view(B, 1, G, Hq, D)
        res.append(close(f"gqa bmghk {label}", o5, ref5, atol=tol, rtol=tol))
        # a padded KV cache: causal with offset (each sequence the same number of queries, as
        # the causal path requires), and without causality for queries of different counts
        pad = 160
        for name, mask, q_lens, kv_lens in (
                ("padded causal", ab.BlockDiagonalCausalWithOffsetPaddedKeysMask, [3, 3], [70, 129]),
                ("padded varlen q", ab.BlockDiagonalPaddedKeysMask, [1, 3], [70, 129])):
            bias = mask.from_seqlens(q_lens, pad, kv_lens, device=torch.device(dev))
            qb = rnd(1, sum(q_lens), H, D, dev=dev, dtype=dt, seed=7)
            kb, vb = rnd(1, 2 * pad, H, D, dev=dev, dtype=dt, seed=8), rnd(1, 2 * pad, H, D, dev=dev, dtype=dt, seed=9)
            with torch.no_grad(), _tensors_say_cuda(dev):
                ob, _ = sk.FwOp.apply(fc.Inputs(qb, kb, vb, attn_bias=bias), needs_gradient=False)
            ob = ob.reshape(1, -1, H, D)
            q0 = 0
            for b, (ql, kl) in enumerate(zip(q_lens, kv_lens)):
                qs = qb[:, q0:q0 + ql].transpose(1, 2)
                ks, vs = kb[:, b * pad:b * pad + kl].transpose(1, 2), vb[:, b * pad:b * pad + kl].transpose(1, 2)
                r = _attention_ref(qs, ks, vs, causal="causal" in name, bottom_right=True).transpose(1, 2)
                res.append(close(f"{name} {label} seq{b}", ob[:, q0:q0 + ql], r, atol=tol, rtol=tol))
                q0 += ql
            outs.append(ob)
        outs += [o, o5]
    return res, outs


@case("gemlite.activation_quant", "gemlite")
def _(dev):
    """GemLite's dynamic activation quantizers, every Triton version against the project's
    own torch version (torch.compile'd there; called uncompiled here): per token (int8,
    fp8; v1-v4), per 128 x 128 block (v1, v2), MXFP8 (e8m0 scales per 32; v1-v4), MXFP4
    (v1, v2, v3, v5: fp4 codes by thresholds, packed two per byte) and NVFP4 (fp8 scales per
    16 under a meta scale; v1, v2, v3, v5)."""
    torch = torch_mod()
    _gemlite(dev)
    qu = importlib.import_module("gemlite.quant_utils")
    res, outs = [], []

    def eager(f):
        return getattr(f, "_torchdynamo_orig_callable", f)
    e2m1 = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6, 0, -0.5, -1, -1.5, -2, -3, -4, -6])

    def fp4(packed):  # the values of packed fp4 codes (the torch version codes a small
        # negative as +0, the kernels as -0: equal values, different codes)
        p = packed.cpu().to(torch.int64)
        return e2m1[torch.stack([p & 15, p >> 4], -1).flatten(-2)]
    x = rnd(40, 256, dev=dev, dtype=torch.bfloat16, seed=1, scale=3)
    for wd in (torch.int8, torch.float8_e4m3fn):
        rq, rs = eager(qu.scale_activations_per_token_torch)(x, wd)
        for v in (1, 2, 3, 4):
            with _cuda_host(dev):
                q, s_ = getattr(qu, f"scale_activations_per_token_triton_v{v}")(x, wd)
            res += [close(f"per_token {str(wd)[6:]} v{v} scales", s_.view(-1), rs.view(-1), atol=0, rtol=1e-6),
                    close(f"per_token {str(wd)[6:]} v{v} values", q.float(), rq.float(), atol=1.0 if wd == torch.int8
                          else 0, rtol=0.13)]
            outs += [q.float(), s_]
    xb = rnd(256, 384, dev=dev, dtype=torch.bfloat16, seed=2)
    rq, rs = eager(qu.scale_activations_per_block_torch)(xb, torch.float8_e4m3fn)
    for v in (1, 2):
        with _cuda_host(dev):
            q, s_ = getattr(qu, f"scale_activations_per_block_triton_v{v}")(xb, torch.float8_e4m3fn)
        res += [close(f"per_block v{v} scales", s_, rs, atol=0, rtol=1e-6),
                close(f"per_block v{v} values", q.float(), rq.float(), atol=0, rtol=0.13)]
    rq, rs = eager(qu.scale_activations_mxfp8_torch)(x)
    for v in (1, 2, 3, 4):
        with _cuda_host(dev):
            q, s_ = getattr(qu, f"scale_activations_mxfp8_triton_v{v}")(x)
        # (scales: the rows of x only; the kernels leave the padding rows' scales unwritten)
        res += [close(f"mxfp8 v{v} scales", s_[:40].float(), rs[:40].float(), atol=0, rtol=0),
                close(f"mxfp8 v{v} values", q.float(), rq.float(), atol=0, rtol=0)]
        outs += [q.float(), s_.float()]
    rq, rs = eager(qu.scale_activations_mxfp4_torch)(x)
    for v in ("", "_v2", "_v3", "_v5"):
        with _cuda_host(dev):
            q, s_ = getattr(qu, f"scale_activations_mxfp4_triton{v}")(x)
        res += [close(f"mxfp4{v or '_v1'} scales", s_[:40].float(), rs[:40].float(), atol=0, rtol=0),
                close(f"mxfp4{v or '_v1'} values", fp4(q), fp4(rq), atol=0, rtol=0)]
        outs += [q.float(), s_.float()]
    ms = torch.tensor([448.0 / 2.0], device=dev)
    rq, rs, rm = eager(qu.scale_activations_nvfp4_torch)(x, meta_scale=ms)
    for v in ("", "_v2", "_v3", "_v5"):
        with _cuda_host(dev):
            q, s_, m_ = getattr(qu, f"scale_activations_nvfp4_triton{v}")(x, meta_scale=ms)
        res += [close(f"nvfp4{v or '_v1'} scales", s_[:40].float(), rs[:40].float(), atol=0, rtol=0),
                close(f"nvfp4{v or '_v1'} values", fp4(q), fp4(rq), atol=0, rtol=0)]
        outs += [q.float(), s_.float()]
    return res, outs


# --------------------------------------------------------------------------------- DeepSpeed

def _deepspeed(name):
    """DeepSpeed's Triton kernels. Its package __init__s import its runtime (hjson, the comm
    backends, the op builders); the kernel modules import deepspeed.utils and
    deepspeed.accelerator as they are. `deepspeed.HAS_TRITON` (set by its __init__) is True;
    its inference matmul pickles its autotune table (Config objects of whichever Triton runs)
    under TRITON_CACHE_DIR at exit and reads it at import: a fresh temporary folder for each
    process unless one is set, so a Triton run and a tritium run never read each other's."""
    for p in ("deepspeed", "deepspeed.ops", "deepspeed.ops.transformer", "deepspeed.ops.transformer.inference",
              "deepspeed.ops.fp_quantizer", "deepspeed.runtime", "deepspeed.moe"):
        _package_without_init(p, ARGS.src)
    sys.modules["deepspeed"].HAS_TRITON = True
    if "TRITON_CACHE_DIR" not in os.environ:
        import tempfile
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="realk-ds-autotune-")
    with _cuda_host(getattr(ARGS, "device", "cpu")):
        return importlib.import_module(name)


@case("deepspeed.rms_norm_rope_swiglu", "deepspeed")
def _(dev):
    """deepspeed/ops/triton_ops: fused RMSNorm (forward, dX, the dW partial sums), fused
    rotary embedding (HF split halves; forward and backward, unsqueeze_dim 1 and 2) and
    SwiGLU (separate and packed gate/up; forward and backward); fp16 and bf16 (fp32 too for
    SwiGLU). The public entry points refuse CPU tensors: `_run_kernels` (what they call after
    their checks) is called; the RoPE reference is the module's own eager version."""
    torch = torch_mod()
    rn = _deepspeed("deepspeed.ops.triton_ops.fused_rms_norm")
    rp = _deepspeed("deepspeed.ops.triton_ops.fused_rotary_pos_emb")
    sw = _deepspeed("deepspeed.ops.triton_ops.swiglu_triton")
    res, outs = [], []
    for label, dt, tol in (("fp16", torch.float16, 2e-3), ("bf16", torch.bfloat16, 2e-2)):
        x, w = rnd(3, 7, 300, dev=dev, dtype=dt, seed=1), rnd(300, dev=dev, dtype=dt, seed=2)

        def ref(x, w):
            xf = x.float()
            return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype)
        r, o = compare_fwd_bwd(lambda x, w: rn._run_kernels(x, w, 1e-6), ref, [x, w], atol=tol, rtol=tol,
                               names=["x", "w"])
        res += [(f"rms {label} {c[0]}", c[1], c[2]) for c in r]
        outs += o
        for ud in (1, 2):
            shape = (2, 3, 10, 64) if ud == 1 else (2, 10, 3, 64)
            q, k = rnd(*shape, dev=dev, dtype=dt, seed=3), rnd(*shape, dev=dev, dtype=dt, seed=4)
            ang = rnd(2, 10, 32, dev=dev, seed=5)
            cos, sin = (torch.cat([f(ang), f(ang)], -1).to(dt) for f in (torch.cos, torch.sin))
            with _cuda_host(dev):  # (its launch: `with torch.cuda.device(x.device)`)
                r, o = compare_fwd_bwd(lambda q, k: torch.cat([t.flatten() for t in rp._run_kernels(q, k, cos, sin, ud)]),
                                       lambda q, k: torch.cat([t.flatten() for t in rp._reference_apply_rotary_pos_emb(
                                           q, k, cos, sin, ud)]), [q, k], atol=tol, rtol=tol,
                                       names=["q", "k"])
            res += [(f"rope{ud} {label} {c[0]}", c[1], c[2]) for c in r]
            outs += o
    for label, dt, tol in (("fp32", torch.float32, 1e-5), ("bf16", torch.bfloat16, 2e-2)):
        g, u = rnd(5, 300, dev=dev, dtype=dt, seed=6), rnd(5, 300, dev=dev, dtype=dt, seed=7)
        r, o = compare_fwd_bwd(sw.swiglu, lambda g, u: torch.nn.functional.silu(g) * u, [g, u], atol=tol, rtol=tol,
                               names=["gate", "up"])
        res += [(f"swiglu {label} {c[0]}", c[1], c[2]) for c in r]
        gu = rnd(4, 2, 520, dev=dev, dtype=dt, seed=8)
        with _cuda_host(dev):
            r, o2 = compare_fwd_bwd(sw.swiglu_packed, lambda x: torch.nn.functional.silu(x[..., :260]) * x[..., 260:],
                                    [gu], atol=tol, rtol=tol, names=["gate_up"])
        res += [(f"swiglu_packed {label} {c[0]}", c[1], c[2]) for c in r]
        outs += o + o2
    return res, outs


@case("deepspeed.group_gemm_moe_tokens", "deepspeed")
def _(dev):
    """MoE: the grouped GEMM (2-D x 3-D, `torch._grouped_mm`'s drop-in; b as [E,K,N] and as
    [E,N,K] with trans_b, an empty group; forward, dA and the per-expert dW), AutoEP's fused
    row weighting and weighted top-k restore (forward and backward), and the expert-parallel
    permutation kernels (fill_indices against the module's own CPU version, gather_rows)."""
    torch = torch_mod()
    gg = _deepspeed("deepspeed.ops.triton_ops.group_gemm_triton")
    ae = _deepspeed("deepspeed.ops.triton_ops.autoep_fused_token_ops")
    ep = _deepspeed("deepspeed.moe.ep_kernels")
    res, outs = [], []
    sizes = [5, 0, 17, 9]
    offs = torch.tensor(sizes, device=dev).cumsum(0).to(torch.int32)
    M, K, N, E = sum(sizes), 64, 48, len(sizes)
    for label, dt, tol in (("fp32", torch.float32, 1e-2), ("bf16", torch.bfloat16, 5e-2)):  # (fp32: tf32 dots)
        for tb in (False, True):
            a = rnd(M, K, dev=dev, dtype=dt, seed=1)
            b = rnd(E, N, K, dev=dev, dtype=dt, seed=2) if tb else rnd(E, K, N, dev=dev, dtype=dt, seed=2)

            def ref(a, b):
                parts, s0 = [], 0
                for e, m in enumerate(sizes):
                    be = b[e].float().T if tb else b[e].float()
                    parts.append(a[s0:s0 + m].float() @ be)
                    s0 += m
                return torch.cat(parts).to(a.dtype)
            with _cuda_host(dev):
                r, o = compare_fwd_bwd(lambda a, b: gg.group_gemm_triton(a, b, offs, trans_b=tb), ref, [a, b],
                                       atol=tol, rtol=tol, names=["A", "B"])
            res += [(f"group_gemm {label}{' trans_b' if tb else ''} {c[0]}", c[1], c[2]) for c in r]
            outs += o
    T, Kt, H = 6, 3, 200
    for label, dt, tol in (("fp32", torch.float32, 1e-5), ("bf16", torch.bfloat16, 1e-2)):
        rows, wts = rnd(T * Kt, H, dev=dev, dtype=dt, seed=3), rnd(T * Kt, dev=dev, seed=4)
        r, o = compare_fwd_bwd(lambda x, w: ae._FusedRowWeighting.apply(x, w),
                               lambda x, w: (x.float() * w[:, None]).to(x.dtype), [rows, wts], atol=tol, rtol=tol,
                               names=["rows", "weights"])
        res += [(f"row_weighting {label} {c[0]}", c[1], c[2]) for c in r]
        gen = torch.Generator().manual_seed(6)
        perm = torch.randperm(T * Kt, generator=gen).to(dev)
        scores = rnd(T, Kt, dev=dev, seed=5).softmax(-1)

        def restore_ref(x, sc):
            full = torch.zeros_like(x.float()).index_copy(0, perm, x.float())
            return (full.view(T, Kt, H) * sc[..., None]).sum(1).to(x.dtype).view(2, 3, H)
        r, o2 = compare_fwd_bwd(lambda x, sc: ae.fused_weighted_restore(x, sc, perm, Kt, (2, 3, H)), restore_ref,
                                [rows, scores], atol=tol, rtol=tol, names=["rows", "scores"])
        res += [(f"weighted_restore {label} {c[0]}", c[1], c[2]) for c in r]
        outs += o + o2
    tokens = torch.tensor([3, 0, 5, 2, 4, 1], dtype=torch.int32, device=dev)  # 2 ranks x 3 experts
    got = ep.generate_permute_indices(tokens, 3, 2, 64, 8)
    want = ep.generate_permute_indices(tokens.cpu(), 3, 2, 64, 8, use_cpu=True)
    for i, (g_, w_) in enumerate(zip(got, want)):
        res.append(close(f"permute_indices[{i}]", g_, w_, atol=0, rtol=0))
    src = rnd(15, 96, dev=dev, seed=7)
    idx = torch.tensor([3, -1, 14, 0, 7, 15, 2], dtype=torch.int64, device=dev)
    rows_g = ep.gather_rows(src, idx)
    ref = torch.where(((idx >= 0) & (idx < 15))[:, None], src[idx.clamp(0, 14)], torch.zeros(()))
    res.append(close("gather_rows", rows_g, ref, atol=0, rtol=0))
    outs += list(got) + [rows_g]
    return res, outs


@case("deepspeed.inference_ops", "deepspeed")
def _(dev):
    """deepspeed/ops/transformer/inference/triton: layer_norm, layer_norm_residual (with and
    without the input bias), softmax (plain; with a broadcast and a per-row additive mask),
    erf GELU, residual_add_bias (its three modes); fp16 and fp32."""
    torch = torch_mod()
    ln = _deepspeed("deepspeed.ops.transformer.inference.triton.layer_norm")
    sm = _deepspeed("deepspeed.ops.transformer.inference.triton.softmax")
    ge = _deepspeed("deepspeed.ops.transformer.inference.triton.gelu")
    ra = _deepspeed("deepspeed.ops.transformer.inference.triton.residual_add")
    F = torch.nn.functional
    res, outs = [], []
    for label, dt, tol in (("fp32", torch.float32, 1e-5), ("fp16", torch.float16, 2e-3)):
        x, w, b = rnd(2, 5, 320, dev=dev, dtype=dt, seed=1), rnd(320, dev=dev, dtype=dt, seed=2), rnd(320, dev=dev,
                                                                                                        dtype=dt, seed=3)
        r_, ib = rnd(2, 5, 320, dev=dev, dtype=dt, seed=4), rnd(320, dev=dev, dtype=dt, seed=5)
        with _cuda_host(dev):
            o1 = ln.layer_norm(x, w, b, 1e-5)
            o2 = ln.layer_norm_residual(x, None, r_, w, b, 1e-5)
            o3 = ln.layer_norm_residual(x, ib, r_, w, b, 1e-5)
        def lnr(v):
            return F.layer_norm(v.float(), (320,), w.float(), b.float(), 1e-5)
        res += [close(f"layer_norm {label}", o1, lnr(x), atol=tol, rtol=tol),
                close(f"layer_norm_residual {label}", o2, lnr(x.float() + r_.float()), atol=tol, rtol=tol),
                close(f"layer_norm_residual bias {label}", o3, lnr(x.float() + r_.float() + ib.float()), atol=2 * tol,
                      rtol=tol)]
        s = rnd(2, 3, 6, 77, dev=dev, dtype=dt, seed=6, scale=3)
        # (a mask of one row broadcasts; the kernel reads any other as one row per score row)
        m1 = torch.where(rnd(1, 1, 1, 77, dev=dev, seed=7) > 1, -10000.0, 0.0).to(dt)
        m2 = torch.where(rnd(2, 3, 6, 77, dev=dev, seed=8) > 1, -10000.0, 0.0).to(dt)
        with _cuda_host(dev):
            p0, p1, p2 = sm.softmax(s), sm.softmax(s, m1), sm.softmax(s, m2)
        res += [close(f"softmax {label}", p0, torch.softmax(s.float(), -1), atol=tol, rtol=tol),
                close(f"softmax mask {label}", p1, torch.softmax(s.float() + m1.float(), -1), atol=tol, rtol=tol),
                close(f"softmax row mask {label}", p2, torch.softmax(s.float() + m2.float(), -1), atol=tol, rtol=tol)]
        a = rnd(3, 1000, dev=dev, dtype=dt, seed=9)
        with _cuda_host(dev):
            g = ge.gelu(a)
        res.append(close(f"gelu {label}", g, F.gelu(a.float()), atol=tol, rtol=tol))
        hs, rs, ao = (rnd(2, 4, 160, dev=dev, dtype=dt, seed=s_) for s_ in (10, 11, 12))
        ab, fb = rnd(160, dev=dev, dtype=dt, seed=13), rnd(160, dev=dev, dtype=dt, seed=14)
        h, r2, o_, a_, f_ = (t.float() for t in (hs, rs, ao, ab, fb))
        for mode, (mlp, pre, add) in (("mlp pre-norm", (True, True, True)), ("mlp", (True, False, True)),
                                      ("attn bias", (False, False, True))):
            with _cuda_host(dev):
                got = ra.residual_add_bias(hs, rs, ao, ab, fb, 2, mlp, add, pre)
            if mlp and pre:
                want = h + (r2 + f_ + o_ + a_) / 2
            elif mlp:
                want = h + r2 + f_
            else:
                want = h + o_ + (r2 + f_) / 2 + a_ / 2
            res.append(close(f"residual_add {mode} {label}", got, want, atol=2 * tol, rtol=tol))
            outs.append(got)
        outs += [o1, o2, o3, p0, p1, p2, g]
    return res, outs


@case("deepspeed.inference_attention_matmul", "deepspeed")
def _(dev):
    """DeepSpeed inference's Triton matmuls (fp16: the 2-D GEMM with bias and each of its
    activations, the 4-D batched matmul, the attention score and context matmuls over a
    packed qkv) and its packed flash attention (causal and with an additive key mask)."""
    torch = torch_mod()
    mm = _deepspeed("deepspeed.ops.transformer.inference.triton.matmul_ext")
    at = _deepspeed("deepspeed.ops.transformer.inference.triton.attention")
    F = torch.nn.functional
    res, outs = [], []
    dt = torch.float16
    A, Bm, bias = rnd(70, 96, dev=dev, dtype=dt, seed=1), rnd(96, 130, dev=dev, dtype=dt, seed=2, scale=0.2), \
        rnd(130, dev=dev, dtype=dt, seed=3)
    ref = A.float() @ Bm.float()
    with _cuda_host(dev):
        for act, fn in (("", lambda v: v), ("relu", F.relu), ("gelu", F.gelu), ("sigmoid", torch.sigmoid),
                        ("leaky_relu", lambda v: F.leaky_relu(v, 0.01))):
            c = mm.fp16_matmul.forward(A, Bm, bias=bias if act != "sigmoid" else None, activation=act)
            want = fn(ref + (bias.float() if act != "sigmoid" else 0))
            res.append(close(f"matmul {act or 'bias'}", c, want, atol=1e-2, rtol=1e-2))
            outs.append(c)
        a4, b4 = rnd(2, 3, 40, 64, dev=dev, dtype=dt, seed=4), rnd(2, 3, 64, 72, dev=dev, dtype=dt, seed=5)
        c4 = mm.matmul_4d(a4, b4)
        res.append(close("matmul_4d", c4, a4.float() @ b4.float(), atol=1e-2, rtol=1e-2))
        Bq, S, Hh, D = 2, 50, 4, 32
        qkv = rnd(Bq, S, 3 * Hh * D, dev=dev, dtype=dt, seed=6)
        q, k, v = (qkv[..., i * Hh * D:(i + 1) * Hh * D].view(Bq, S, Hh, D).transpose(1, 2).float() for i in range(3))
        sc = mm.score_4d_matmul(qkv, D, None, 0.125)
        res.append(close("score_4d (scaled)", sc, (q @ k.transpose(-1, -2)) * 0.125, atol=1e-2, rtol=1e-2))
        prob = torch.softmax(sc.float(), -1).to(dt)
        ctx = mm.context_4d_matmul(prob, qkv, D)
        res.append(close("context_4d", ctx, (prob.float() @ v).transpose(1, 2).reshape(Bq, S, Hh * D), atol=1e-2,
                         rtol=1e-2))
        outs += [c4, sc, ctx]
        # (the key mask is read unmasked in blocks of BLOCK_N 64: its length a multiple of 64)
        for label, causal, use_mask, S in (("causal", True, False, 50), ("key mask", False, True, 128)):
            qkv = rnd(Bq, S, 3 * Hh * D, dev=dev, dtype=dt, seed=6)
            q, k, v = (qkv[..., i * Hh * D:(i + 1) * Hh * D].view(Bq, S, Hh, D).transpose(1, 2).float()
                       for i in range(3))
            mask = torch.where(rnd(Bq, 1, 1, S, dev=dev, seed=7) > 1, -10000.0, 0.0).to(dt)
            o = at._triton_packed_flash(qkv, D, mask if use_mask else None, D ** -0.5, causal=causal, add_mask=use_mask)
            s_ = (q @ k.transpose(-1, -2)) * D ** -0.5
            if use_mask:
                s_ = s_ + mask.float()
            if causal:
                s_ = s_.masked_fill(~torch.ones(S, S, dtype=torch.bool, device=dev).tril(), float("-inf"))
            want = (torch.softmax(s_, -1) @ v).transpose(1, 2).reshape(Bq, S, Hh * D)
            res.append(close(f"flash packed {label}", o, want, atol=1e-2, rtol=1e-2))
            outs.append(o)
    return res, outs


@case("deepspeed.fp8_gemm_chunked_ce", "deepspeed")
def _(dev):
    """The FP quantizer's fp8 (e4m3 bits widened to bf16 by integer ops) x bf16/fp16 GEMM
    with per-group scales (small and large M tiles), and the chunked cross-entropy's Triton
    backend (its autograd function: the entry point picks Triton only for CUDA logits)."""
    torch = torch_mod()
    fq = _deepspeed("deepspeed.ops.fp_quantizer.fp8_gemm_triton")
    ce = _deepspeed("deepspeed.runtime.chunked_cross_entropy")
    res, outs = [], []
    K, N = 256, 128
    gen = torch.Generator().manual_seed(3)
    wbits = torch.randint(0, 256, (K, N), generator=gen, dtype=torch.int32)
    wbits = torch.where((wbits & 0x78) == 0x78, wbits & 0xB7, wbits).to(torch.uint8)  # (no exponent 15)

    def widen(bits):  # as the kernel: sign, exponent and mantissa moved into bf16, bias 7 -> 127
        b = bits.to(torch.int32)
        w = ((b & 0x80) << 8) | ((b & 0x7F) << 4)
        return ((w + 0x3C00) & 0xFFFF).to(torch.int16).view(torch.bfloat16).float()
    def widen16(bits):
        # the fp16 kernel shifts the uint8 bits before widening them: with Triton's typing of
        # Python scalars (the tensor's type, uint8) `(w & 0x80) << 8` is 0 and
        # `(w & 0x7f) << 7` keeps bit 0 only, so its weights are +-2^-7 * (1 or 1.125)
        b = bits.to(torch.int32)
        w = ((((b & 0x80) << 8) & 0xFF) | (((b & 0x7F) << 7) & 0xFF)) + 0x2000
        return w.to(torch.int16).view(torch.float16).float()
    # (M >= 256 takes 128-wide N tiles, whose scales the kernel reads from one group: the group
    # size must cover a tile there)
    for label, dt, M, q in (("bf16 M=20", torch.bfloat16, 20, 64), ("fp16 M=20", torch.float16, 20, 64),
                            ("bf16 M=300", torch.bfloat16, 300, 128), ("fp16 M=300", torch.float16, 300, 128)):
        scale = (rnd(K * N // q, dev=dev, seed=4).abs() + 0.5)
        # (the fp16 kernel loads the next K block's scales before the loop's test, past the last
        # block: the scales are given with one block of padding after them)
        scale_padded = torch.cat([scale, torch.ones(128 * N // q, device=dev)])
        a = rnd(M, K, dev=dev, dtype=dt, seed=5)
        with _cuda_host(dev):
            o = fq.matmul_fp8_triton(a, wbits.to(dev), scale_padded, q)
        Wr = ((widen(wbits) if dt == torch.bfloat16 else widen16(wbits)) *
              scale.view(K, N // q).repeat_interleave(q, 1).cpu()).to(dt).float()
        ref = a.float() @ Wr.to(dev)
        res.append(close(f"fp8 gemm {label}", o, ref, atol=float(ref.abs().max()) * 1e-2, rtol=1e-2))
        outs.append(o)
    for label, dt, tol in (("fp32", torch.float32, 1e-5), ("bf16", torch.bfloat16, 2e-2)):
        logits = rnd(9, 3000, dev=dev, dtype=dt, seed=6, scale=2)
        t = torch.tensor([5, 2999, -100, 0, 17, 1234, -100, 8, 2000], device=dev)
        r, o = compare_fwd_bwd(lambda x: ce._TritonCrossEntropy.apply(x, t, -100),
                               lambda x: F_ce(x.float(), t).to(torch.float32), [logits], atol=tol, rtol=tol,
                               names=["logits"])
        res += [(f"chunked_ce {label} {c[0]}", c[1], c[2]) for c in r]
        outs += o
    return res, outs


def F_ce(x, t):
    torch = torch_mod()
    return torch.nn.functional.cross_entropy(x, t, ignore_index=-100, reduction="none")


def _int4_rows(x):
    """Row-wise int4 quantization in xformers' split-K layout: per row, one int32 holding
    (scale, shift) as two fp16 (scale in the low half), then the 4-bit codes of D values,
    eight per int32, lowest nibble first. Returns (packed int32 rows, dequantized values)."""
    torch = torch_mod()
    x = x.float().cpu()
    lo, hi = x.amin(-1, keepdim=True), x.amax(-1, keepdim=True)
    scale, shift = ((hi - lo) / 15).half(), lo.half()
    codes = ((x - shift.float()) / scale.float() + 0.5).clamp(0, 15).to(torch.int64)
    words = torch.zeros(*x.shape[:-1], x.shape[-1] // 8, dtype=torch.int64)
    for j in range(8):
        words |= codes[..., j::8] << (4 * j)
    head = scale.view(torch.int16).to(torch.int64) & 0xFFFF | ((shift.view(torch.int16).to(torch.int64) & 0xFFFF) << 16)
    packed = torch.cat([head, words], -1)
    packed = torch.where(packed >= 1 << 31, packed - (1 << 32), packed).to(torch.int32)
    return packed, codes.float() * scale.float() + shift.float()


def _fp8_rows(x):
    """Row-wise fp8 (e4m3) in xformers' split-K layout: the values four per int32 and a
    separate int32 per row holding (scale, shift) as two fp16. Returns (values, scale_shift,
    dequantized values)."""
    torch = torch_mod()
    x = x.float().cpu()
    shift = x.mean(-1, keepdim=True).half()
    scale = ((x - shift.float()).abs().amax(-1, keepdim=True) / 448).half()
    q = ((x - shift.float()) / scale.float()).to(torch.float8_e4m3fn)
    vals = q.view(torch.uint8).view(*x.shape[:-1], x.shape[-1] // 4, 4).to(torch.int64)
    words = vals[..., 0] | vals[..., 1] << 8 | vals[..., 2] << 16 | vals[..., 3] << 24
    words = torch.where(words >= 1 << 31, words - (1 << 32), words).to(torch.int32)
    ss = scale.view(torch.int16).to(torch.int64) & 0xFFFF | ((shift.view(torch.int16).to(torch.int64) & 0xFFFF) << 16)
    ss = torch.where(ss >= 1 << 31, ss - (1 << 32), ss).to(torch.int32)[..., 0]
    return words, ss, q.float() * scale.float() + shift.float()


@case("xformers.splitk_quantized_paged", "xformers")
def _(dev):
    """The split-K decoding attention over quantized and paged KV caches: int4 row-wise K/V
    (scale and shift packed in the row's first int32, codes eight per int32; the kernel's
    fp16-bitcast dequantization), fp8 e4m3 K/V with separate per-row scale/shift words
    (InputsFp8) under a padded causal bias, and a paged cache (block tables over shuffled
    64-token pages); checked against attention over the dequantized K/V."""
    torch = torch_mod()
    sk = _xformers("xformers.ops.fmha.triton_splitk")
    fc = _xformers("xformers.ops.fmha.common")
    ab = _xformers("xformers.ops.fmha.attn_bias")
    res, outs = [], []
    B, Mq, Mk, H, D = 2, 1, 200, 2, 128
    q = rnd(B, Mq, H, D, dev=dev, dtype=torch.float16, seed=1)
    k, v = rnd(B, Mk, H, D, dev=dev, seed=2), rnd(B, Mk, H, D, dev=dev, seed=3)
    kq, kd = _int4_rows(k)
    vq, vd = _int4_rows(v)
    with torch.no_grad(), _tensors_say_cuda(dev):
        o, _ = sk.FwOp.apply(fc.Inputs(q, kq.to(dev), vq.to(dev)), needs_gradient=False)
    ref = _attention_ref(q.transpose(1, 2), kd.transpose(1, 2).to(dev), vd.transpose(1, 2).to(dev)).transpose(1, 2)
    res.append(close("int4 dense", o, ref, atol=2e-3, rtol=2e-3))
    outs.append(o)
    # fp8 K/V with a padded causal bias
    q_lens, kv_lens, pad = [2, 2], [70, 129], 160
    bias = ab.BlockDiagonalCausalWithOffsetPaddedKeysMask.from_seqlens(q_lens, pad, kv_lens, device=torch.device(dev))
    qb = rnd(1, sum(q_lens), H, D, dev=dev, dtype=torch.float16, seed=4)
    kb, vb = rnd(1, 2 * pad, H, D, dev=dev, seed=5), rnd(1, 2 * pad, H, D, dev=dev, seed=6)
    kw, kss, kbd = _fp8_rows(kb)
    vw, vss, vbd = _fp8_rows(vb)
    inp = sk.InputsFp8(qb, kw.to(dev), vw.to(dev), attn_bias=bias, k_fp8_scale_shift=kss.to(dev),
                       v_fp8_scale_shift=vss.to(dev))
    with torch.no_grad(), _tensors_say_cuda(dev):
        ob, _ = sk.FwOp.apply(inp, needs_gradient=False)
    ob = ob.reshape(1, -1, H, D)
    q0 = 0
    for b, (ql, kl) in enumerate(zip(q_lens, kv_lens)):
        r = _attention_ref(qb[:, q0:q0 + ql].transpose(1, 2), kbd[:, b * pad:b * pad + kl].transpose(1, 2).to(dev),
                           vbd[:, b * pad:b * pad + kl].transpose(1, 2).to(dev), causal=True,
                           bottom_right=True).transpose(1, 2)
        res.append(close(f"fp8 padded causal seq{b}", ob[:, q0:q0 + ql], r, atol=2e-3, rtol=2e-3))
        q0 += ql
    outs.append(ob)
    # a paged fp16 cache: 6 pages of 64 tokens, shuffled, 3 per sequence
    page, kv_lens = 64, [70, 150]
    tables = torch.tensor([[4, 1, 5], [0, 3, 2]], dtype=torch.int32, device=dev)
    kp, vp = rnd(1, 6 * page, H, D, dev=dev, dtype=torch.float16, seed=7), rnd(1, 6 * page, H, D, dev=dev,
                                                                             dtype=torch.float16, seed=8)
    pbias = ab.BlockDiagonalCausalWithOffsetPaddedKeysMask.from_seqlens(q_lens, 3 * page, kv_lens,
                                                                        device=torch.device(dev)).make_paged(
        tables, page, paged_type=ab.PagedBlockDiagonalCausalWithOffsetPaddedKeysMask)
    with torch.no_grad(), _tensors_say_cuda(dev):
        op, _ = sk.FwOp.apply(fc.Inputs(qb, kp, vp, attn_bias=pbias), needs_gradient=False)
    op = op.reshape(1, -1, H, D)
    q0 = 0
    for b, (ql, kl) in enumerate(zip(q_lens, kv_lens)):
        idx = torch.cat([torch.arange(int(p_) * page, (int(p_) + 1) * page) for p_ in tables[b]])[:kl].to(dev)
        r = _attention_ref(qb[:, q0:q0 + ql].transpose(1, 2), kp[:, idx].transpose(1, 2), vp[:, idx].transpose(1, 2),
                           causal=True, bottom_right=True).transpose(1, 2)
        res.append(close(f"paged causal seq{b}", op[:, q0:q0 + ql], r, atol=2e-3, rtol=2e-3))
        q0 += ql
    outs.append(op)
    return res, outs


# ---------------------------------------------------------------------------------- GemLite

def _gemlite(dev):
    """GemLite (Mobius Labs' low-bit GEMM/GEMV kernels). Its package __init__ asks
    torch.cuda for the device's name (the autotune cache it loads: configs/h100.json here)
    and capability, answered by _cuda_host on the CPU."""
    torch = torch_mod()
    with _cuda_host(dev):
        gl, helper = importlib.import_module("gemlite"), importlib.import_module("gemlite.helper")
    if dev == "cpu":
        # The GEMV kernels' fp4 code table is made per CUDA device at import and indexed by
        # `W_q.device.index` (None for the CPU): given for the CPU here.
        table = torch.tensor([0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12], dtype=torch.int8)
        for m in ("gemlite.triton_kernels.gemv_kernels", "gemlite.triton_kernels.gemv_splitK_kernels"):
            mod = importlib.import_module(m)
            if isinstance(getattr(mod, "fp4_mapping", None), list) and not mod.fp4_mapping:
                mod.fp4_mapping = {None: table}
        # quant_utils' fp4 tables likewise (values, positive values, thresholds, thresholds
        # padded to 8), as it builds them for each CUDA device
        qu = importlib.import_module("gemlite.quant_utils")
        if isinstance(qu.fp4_values, list) and not qu.fp4_values:
            f = lambda *v: {None: torch.tensor(v, dtype=torch.float32)}  # noqa: E731
            qu.fp4_values = f(0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6)
            qu.fp4_p_vals = f(0, 0.5, 1, 1.5, 2, 3, 4, 6)
            qu.fp4_thresholds = f(0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0)
            qu.thr_pos = f(0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0)
    return gl, helper


_GEMLITE_TYPES = ("GEMM", "GEMM_SPLITK", "GEMV", "GEMV_REVSPLITK", "GEMV_SPLITK")


@case("gemlite.a16wn", "gemlite")
def _(dev):
    """Weight-only grouped asymmetric quantization (HQQ style: W = (W_q - zero) * scale per
    group of 64 or 128), W_q packed into int32 words (4-, 2- and 8-bit): every matmul kernel
    (GEMM, split-K GEMM, GEMV, reverse split-K GEMV, split-K GEMV) for batches of 1, 3 and
    70 rows; fp16 and bf16 activations."""
    torch = torch_mod()
    gl, helper = _gemlite(dev)
    res, outs = [], []
    N, K = 256, 512  # (the kernels read scales and zeros unmasked across N: N a multiple of their tiles)
    gen = torch.Generator().manual_seed(2)
    for nbits, group, dt in ((4, 64, torch.float16), (2, 128, torch.float16), (8, 128, torch.bfloat16),
                             (4, 128, torch.bfloat16)):
        W_q = torch.randint(0, 2 ** nbits, (N, K), generator=gen, dtype=torch.uint8).to(dev)
        scales = (rnd(N, K // group, dev=dev, seed=nbits).abs() * 0.05 + 0.01).to(dt)
        zeros = torch.full((N, K // group), (2 ** nbits - 1) / 2, dtype=dt, device=dev)
        with _cuda_host(dev):
            lin = helper.A16Wn(device=dev, dtype=dt).from_weights(W_q, scales, zeros, nbits, group)
        W = ((W_q.float().view(N, K // group, group) - zeros.float()[..., None]) * scales.float()[..., None]).view(N, K)
        for M in (1, 3, 70):
            x = rnd(M, K, dev=dev, dtype=dt, seed=M)
            ref = x.float() @ W.T
            for mt in _GEMLITE_TYPES:
                if mt.startswith("GEMV") and M > 1:
                    continue
                with _cuda_host(dev):
                    y = lin.forward_manual(x, matmul_type=mt)
                # (the GEMVs accumulate in the activations' dtype: GEMLITE_FAST_GEMV_ACC)
                tol = 3e-2 if mt.startswith("GEMV") else 1e-2
                res.append(close(f"W{nbits} g{group} {str(dt)[6:]} M={M} {mt}", y, ref, atol=float(ref.abs().max()) * tol,
                                 rtol=tol))
                outs.append(y)
    return res, outs


@case("gemlite.a8w8_a16w8", "gemlite")
def _(dev):
    """8-bit: A16W8 (int8 and fp8 e4m3 weights with per-channel scales, fp16/bf16
    activations) and A8W8 dynamic (activations quantized per token, or per 128-column block
    against 128 x 128 weight blocks, by GemLite's Triton quantizers; int8 and fp8), through
    the GEMM, split-K GEMM and GEMV kernels. Checked against the unquantized product within
    the quantization's error (2% of the largest output for int8, 5% for fp8)."""
    torch = torch_mod()
    gl, helper = _gemlite(dev)
    res, outs = [], []
    N, K = 256, 512
    W = rnd(N, K, dev=dev, seed=1, scale=0.1)
    for label, make, dt in (
            ("A16W8 int8", lambda d: helper.A16W8_INT8(device=dev, dtype=d), torch.float16),
            ("A16W8 fp8", lambda d: helper.A16W8_FP8(device=dev, dtype=d), torch.bfloat16),
            ("A8W8 int8", lambda d: helper.A8W8_dynamic(device=dev, dtype=d), torch.float16),
            ("A8W8 fp8", lambda d: helper.A8W8_dynamic(device=dev, dtype=d, fp8=torch.float8_e4m3fn), torch.bfloat16),
            ("A8W8 int8 block", lambda d: helper.A8W8_dynamic(device=dev, dtype=d, block_quant=True), torch.bfloat16),
            ("A8W8 fp8 block", lambda d: helper.A8W8_dynamic(device=dev, dtype=d, fp8=torch.float8_e4m3fn,
                                                             block_quant=True), torch.float16)):
        with _cuda_host(dev):
            lin = make(dt).from_weights(W.to(dt))
        for M in (1, 70):
            x = rnd(M, K, dev=dev, dtype=dt, seed=M)
            ref = x.float() @ W.T
            for mt in ("GEMM", "GEMM_SPLITK", "GEMV") if M == 1 else ("GEMM", "GEMM_SPLITK"):
                with _cuda_host(dev):
                    y = lin.forward_manual(x, matmul_type=mt)
                tol = 5e-2 if "fp8" in label else 2e-2  # (e4m3: 3 mantissa bits)
                res.append(close(f"{label} M={M} {mt}", y, ref, atol=float(ref.abs().max()) * tol, rtol=tol))
                outs.append(y)
    return res, outs


# ------------------------------------------------------------------------- Transformer Engine

def _te(name):
    """Transformer Engine's Triton kernels (transformer_engine/common/triton, wrapped in
    transformer_engine/pytorch/triton). The package __init__s load its C++ libraries
    (transformer_engine_torch); these modules need none of them."""
    for p_ in ("transformer_engine", "transformer_engine.common", "transformer_engine.common.triton",
               "transformer_engine.pytorch", "transformer_engine.pytorch.triton"):
        _package_without_init(p_, ARGS.src)
    gemm = "transformer_engine.pytorch.cpp_extensions.gemm"
    if name.endswith(".mhc") and gemm not in sys.modules:
        # mhc.py imports the C++ GEMM (general_gemm) for its projection's backward, which no
        # case runs: a stand-in that is never called
        _package_without_init("transformer_engine.pytorch.cpp_extensions", ARGS.src)
        _stub_modules([gemm])
    return importlib.import_module(name)


@case("te.cross_entropy_pad_dbias", "transformer_engine")
def _(dev):
    """Transformer Engine: the fused cross entropy (forward saving the input and softmax
    statistics, backward rebuilding the gradient in place; label smoothing, ignore index,
    mean and per-token losses; fp32 and bf16, 32 warps), the columnwise-scale zero padding
    (to 128 x 4), and the grouped dbias / dscales reductions (fp32 atomics over row splits)."""
    torch = torch_mod()
    ce = _te("transformer_engine.pytorch.triton.cross_entropy")
    pad = _te("transformer_engine.pytorch.triton.pad")
    gd = _te("transformer_engine.pytorch.triton.grouped_dbias_dscales")
    F = torch.nn.functional
    res, outs = [], []
    for label, dt, tol, smooth, reduce in (("fp32 mean smooth", torch.float32, 1e-5, 0.1, True),
                                           ("fp32 per-token", torch.float32, 1e-5, 0.0, False),
                                           ("bf16 mean", torch.bfloat16, 2e-2, 0.0, True)):
        B, SQ, V = 2, 5, 3000
        x = rnd(B, SQ, V, dev=dev, dtype=dt, seed=1, scale=2)
        t = torch.randint(0, V, (B, SQ), generator=torch.Generator().manual_seed(2)).to(dev)
        t[0, 3] = -100
        loss, saved, stats, tgt, nni, rank, ws = ce.cross_entropy_forward(x, t, smooth, reduce, None, -100, False)
        ref = F.cross_entropy(x.float().view(-1, V), t.view(-1), ignore_index=-100, label_smoothing=smooth,
                              reduction="mean" if reduce else "none")
        res.append(close(f"{label} loss", loss.reshape(ref.shape) if reduce else loss, ref if reduce else
                         ref.view(B, SQ), atol=tol, rtol=tol))  # (the mean comes back as a 1-element tensor)
        xr = x.float().detach().clone().requires_grad_(True)
        rl = F.cross_entropy(xr.view(-1, V), t.view(-1), ignore_index=-100, label_smoothing=smooth,
                             reduction="mean" if reduce else "none")
        go = torch.tensor(1.5, device=dev) if reduce else rnd(B, SQ, dev=dev, seed=3)
        rl.backward(go if reduce else go.view(-1))
        grad = ce.cross_entropy_backward(saved, stats, tgt, nni, go, smooth, reduce, rank, ws, -100)
        res.append(close(f"{label} grad", grad, xr.grad, atol=tol, rtol=tol))
        outs += [loss, grad]
    s_ = rnd(130, 7, dev=dev, seed=4)
    out = pad.pad_columnwise_scale_inv(s_)
    want = torch.zeros(256, 8)
    want[:130, :7] = s_.cpu()
    res.append(close("pad_columnwise_scale_inv", out, want, atol=0, rtol=0))
    offs = torch.tensor([0, 100, 100, 333, 400], dtype=torch.int64, device=dev)
    dy = rnd(400, 300, dev=dev, dtype=torch.bfloat16, seed=5)
    sc, bias = rnd(400, dev=dev, seed=6), rnd(4, 300, dev=dev, dtype=torch.bfloat16, seed=7)
    db = gd.compute_grouped_dbias(dy, offs, 4)
    db2, dsc = gd.compute_grouped_dbias_dscales(dy, sc, bias, offs)
    groups = [(int(offs[g]), int(offs[g + 1])) for g in range(4)]
    rdb = torch.stack([dy[a:b].float().sum(0) for a, b in groups])
    rdb2 = torch.stack([(dy[a:b].float() * sc[a:b, None]).sum(0) for a, b in groups])
    gid = torch.bucketize(torch.arange(400, device=dev), offs[1:], right=True)
    rdsc = (dy.float() * bias.float()[gid]).sum(1)
    res += [close("grouped_dbias", db, rdb, atol=1e-3, rtol=1e-4),
            close("grouped_dbias_dscales dbias", db2, rdb2, atol=1e-3, rtol=1e-4),
            close("grouped_dbias_dscales dscales", dsc, rdsc, atol=1e-3, rtol=1e-4)]
    outs += [out, db, db2, dsc]
    return res, outs


@case("te.mhc", "transformer_engine")
def _(dev):
    """Transformer Engine's manifold-constrained hyper-connections (DeepSeek mHC): the
    log-space Sinkhorn normalization (20 iterations; with the history saved and recomputed
    for backward; `tl.assume(M > 0 and iters > 0)`), the fused H scaling (sigmoid heads),
    the n-stream aggregate and the expand-combine (f + bias) H_post + x H_res (ieee dots);
    forward and backward against torch autograd, fp32; and the projection's forward. On sm_90 its wrappers choose their
    tensor-descriptor (TMA) paths."""
    torch = torch_mod()
    mhc = _te("transformer_engine.pytorch.triton.mhc")
    res, outs = [], []
    n, S, B, C = 4, 3, 2, 64

    def sinkhorn_ref(h):
        f = torch.zeros(*h.shape[:-1], device=h.device)
        g = torch.zeros_like(f)
        for _ in range(20):
            f = -torch.logsumexp(h + g[..., None, :], -1)
            g = -torch.logsumexp(h + f[..., :, None], -2)
        return torch.exp(f[..., :, None] + h + g[..., None, :])
    with _cuda_host(dev):
        for recompute in (True, False):
            r, o = compare_fwd_bwd(lambda h: mhc.mhc_fused_sinkhorn(h, n, recompute_hist=recompute), sinkhorn_ref,
                                   [rnd(S, B, n, n, dev=dev, seed=1)], atol=1e-5, rtol=1e-4, names=["H_res"])
            res += [(f"sinkhorn recompute={recompute} {c[0]}", c[1], c[2]) for c in r]
            outs += o
        M = S * B
        H = rnd(M, 32, dev=dev, seed=2)
        alpha, beta = rnd(3, dev=dev, seed=3), rnd(1, 2 * n + n * n, dev=dev, seed=4)
        ms = rnd(M, dev=dev, seed=5).abs() + 0.5

        def scale_ref(H, alpha, beta):
            r_ = torch.rsqrt(ms)[:, None]
            pre = torch.sigmoid(H[:, :n] * alpha[0] * r_ + beta[0, :n])
            post = 2 * torch.sigmoid(H[:, n:2 * n] * alpha[1] * r_ + beta[0, n:2 * n])
            resm = H[:, 2 * n:2 * n + n * n] * alpha[2] * r_ + beta[0, 2 * n:]
            return torch.cat([pre, post, resm], -1)
        r, o = compare_fwd_bwd(lambda H, a, b: torch.cat(mhc.mhc_fused_scale(H, a, b, ms, n), -1), scale_ref,
                               [H, alpha, beta], atol=1e-5, rtol=1e-4, names=["H", "alpha", "beta"])
        res += [(f"scale {c[0]}", c[1], c[2]) for c in r]
        outs += o
        x = rnd(S, B, C, n, dev=dev, seed=6)
        hp = rnd(S, B, n, dev=dev, seed=7)
        r, o = compare_fwd_bwd(lambda x, h: mhc.mhc_fused_aggregate(x, h, n, use_tf32=False),
                               lambda x, h: (x @ h[..., None])[..., 0], [x, hp], atol=1e-5, rtol=1e-4,
                               names=["x", "H_pre"])
        res += [(f"aggregate {c[0]}", c[1], c[2]) for c in r]
        outs += o
        f_, bias = rnd(S, B, C, dev=dev, seed=8), rnd(C, dev=dev, seed=9)
        hpost, hres = rnd(S, B, n, dev=dev, seed=10), rnd(S, B, n, n, dev=dev, seed=11)
        r, o = compare_fwd_bwd(
            lambda f_, b_, hq, x, hr: mhc.mhc_fused_expand_combine(f_, b_, hq, x, hr, n, use_tf32=False),
            lambda f_, b_, hq, x, hr: (f_ + b_)[..., None] * hq[..., None, :] + x @ hr,
            [f_, bias, hpost, x, hres], atol=1e-4, rtol=1e-4, names=["f", "bias", "H_post", "x", "H_res"])
        res += [(f"expand_combine {c[0]}", c[1], c[2]) for c in r]
        outs += o
        # the projection's forward (its backward calls TE's C++ GEMM): H = x phi^T (padded to
        # 32 columns) and the mean square; plain and split-K, with an RMSNorm weight absorbed
        xp, phi, nw = rnd(M, n * C, dev=dev, seed=12), rnd(24, n * C, dev=dev, seed=13), rnd(n * C, dev=dev, seed=14)
        for label, kw in (("", {}), (" split-K", {"use_split_k": True}), (" norm weight", {"norm_weight": nw})):
            with torch.no_grad():
                Hp, msq = mhc.mhc_fused_projection(xp, phi, use_tf32=False, **kw)
            w = phi * (nw if "norm_weight" in kw else 1.0)
            res += [close(f"projection{label} H", Hp[:, :24], xp @ w.T, atol=1e-4, rtol=1e-4),
                    close(f"projection{label} ms", msq, xp.pow(2).mean(-1), atol=1e-5, rtol=1e-5)]
            outs += [Hp, msq]
    return res, outs


# ------------------------------------------------------------------------------------ runner

def run_case(name, fn, dev):
    t0 = time.time()
    try:
        if name.startswith(("vllm.", "big.vllm.")):
            _vllm_packages(ARGS.src)  # also for cases importing vLLM's modules directly
        comps, outs = fn(dev)
        ok = all(c[1] for c in comps)
        return {"case": name, "status": "ok" if ok else "wrong", "compare": comps,
                "seconds": round(time.time() - t0, 2)}, outs
    except Skip as e:
        return {"case": name, "status": "skip", "reason": str(e)}, None
    except BaseException as e:  # noqa: BLE001 - every failure is a result
        tb = traceback.format_exc()
        return {"case": name, "status": "error", "reason": f"{type(e).__name__}: "
                f"{str(e).strip().splitlines()[0][:400] if str(e).strip() else ''}",
                "traceback": tb[-3000:], "seconds": round(time.time() - t0, 2)}, None


# ------------------------------------------------------------------ emulated GPU (--emulate)

def _emulate_fla_device(sm):
    """fla reads the device when its modules are imported (fla/utils/hardware.py): the
    backend from Triton's driver (the harness's "cpu" would make IS_NVIDIA and
    IS_NVIDIA_HOPPER false, IS_TF32_SUPPORTED false: 'ieee' dots), the capability and name
    from torch.cuda, the shared memory per block from the driver, which sizes BK_LIST /
    BV_LIST / NUM_WARPS. Under --emulate fla is imported answering as an H100 (sm 90) or an
    A100 (sm 80), so its configs and dot precisions are the ones that GPU gets; afterwards the
    driver names the "cpu" target again. check_shared_mem(arch, tensor.device.index), called
    at launch time with a CPU tensor's index None, answers for device 0."""
    if not (pathlib.Path(ARGS.src) / "fla").exists():
        return
    torch = torch_mod()
    from tritium import driver
    smem = {90: 232448, 80: 166912}[sm]
    name = {90: "NVIDIA H100 80GB HBM3", 80: "NVIDIA A100-SXM4-80GB"}[sm]
    active = driver.driver.active
    cuda = torch.cuda
    saved = {k: getattr(cuda, k) for k in ("get_device_capability", "get_device_name", "device_count",
                                           "current_device")}
    saved_target, saved_props = active.get_current_target, active.utils.get_device_properties
    active.get_current_target = lambda: driver.GPUTarget("cuda", sm, 32)
    active.utils.get_device_properties = lambda *a, **k: dict(saved_props(*a, **k), max_shared_mem=smem)
    cuda.get_device_capability = lambda *a, **k: (sm // 10, sm % 10)
    cuda.get_device_name = lambda *a, **k: name
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    try:
        importlib.import_module("fla")
        # (its Gluon backends: Triton's Gluon dialect, which tritium has no kernels of)
        importlib.import_module("fla.backends").GluonBackend.is_available = classmethod(lambda cls: False)
        importlib.import_module("fla.ops")
        hw = importlib.import_module("fla.utils.hardware")
        assert hw.IS_NVIDIA and hw.IS_NVIDIA_HOPPER == (sm == 90) and hw.IS_TF32_SUPPORTED, "fla's flags"
        hw.get_all_max_shared_mem = lambda: collections.defaultdict(lambda: smem)
    finally:
        active.get_current_target = saved_target
        active.utils.get_device_properties = saved_props
        for k, v in saved.items():
            setattr(cuda, k, v)


AUTOTUNE_SEEN = {}  # autotuned kernel name -> its config count (after pruning)
_AUTOTUNERS = []


def _install_config_choice():
    """tritium's Autotuner picks config ARGS.emulate_config_index (modulo the count) instead of
    the interpreter's first; a config that fails a static_assert, or (emulated) needs more
    shared memory than the device has, is passed over, as a GPU autotuner times it infinite."""
    from tritium.autotuner import Autotuner

    def runs(self, args, kwargs, config):
        if self._asserts_in_interpreter(args, kwargs, config):
            return False
        if not ARGS.emulate:
            return True
        import emulated_gpu
        call_kwargs = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        handle = self.fn.warmup(*args, **call_kwargs, **config.kwargs, **config.launch_options())
        return emulated_gpu.fits(handle, int(ARGS.emulate[3:]))

    def choose(self, args, kwargs, tuning_key):
        configs = self.prune_configs(kwargs)
        AUTOTUNE_SEEN[self.__name__] = max(AUTOTUNE_SEEN.get(self.__name__, 0), len(configs))
        if self not in _AUTOTUNERS:
            _AUTOTUNERS.append(self)
        if len(configs) == 1:
            return configs[0], "only"
        start = ARGS.emulate_config_index % len(configs)
        for j in range(len(configs)):
            config = configs[(start + j) % len(configs)]
            if runs(self, args, kwargs, config):
                return config, "chosen"
        return configs[start], "chosen"

    Autotuner._choose = choose


def _emulation_notes(first_log):
    """Lines for the launches of this case (emulated_gpu.LOG[first_log:]): those not emulated
    or failed, and (--emulate-check) those whose outputs differ from the interpreter's."""
    import emulated_gpu
    lines, seen = [], set()
    for rec in emulated_gpu.LOG[first_log:]:
        key = (rec["kernel"], rec["config"], rec["status"], tuple((d[0], round(d[1], 6)) for d in rec.get("diffs", [])))
        if key in seen:
            continue
        seen.add(key)
        if rec["status"] != "ok":
            lines.append(f"    {rec['kernel']} [{rec['config']}]: {rec['status'][:400]}")
        elif ARGS.v and not rec.get("diffs"):
            lines.append(f"    same {rec['kernel']} [{rec['config']}] grid {rec['grid']}")
        elif rec.get("diffs"):
            d = ", ".join(f"{n} {w:.1e} (of {s:.1e}){' NaN' if nan else ''}" for n, w, s, nan in rec["diffs"])
            lines.append(f"    DIFF {rec['kernel']} [{rec['config']}] grid {rec['grid']}: {d}")
    return lines


def _run_case_configs(name, fn):
    """--emulate-config: the case with config N of every autotuned kernel, or (all) once per
    N until every kernel's configs were all launched; the record of the worst run."""
    import emulated_gpu
    if ARGS.emulate_config != "all":
        ARGS.emulate_config_index = int(ARGS.emulate_config)
        indices = [ARGS.emulate_config_index]
    else:
        indices = [0]
    runs, i = [], 0
    while i < len(indices) or (ARGS.emulate_config == "all" and i < max(AUTOTUNE_SEEN.values(), default=1)):
        ARGS.emulate_config_index = indices[i] if i < len(indices) else i
        for tuner in _AUTOTUNERS:
            tuner.cache.clear()
        AUTOTUNE_SEEN.clear() if i == 0 else None
        first_log = len(emulated_gpu.LOG)
        rec, outs = run_case(name, fn, ARGS.device)
        rec["emulation"] = [f"  config #{ARGS.emulate_config_index}: {rec['status']} " +
                            ", ".join(f"{c[0]}{'' if c[1] else ' BAD'} {c[2]:.1e}" for c in rec.get("compare", []))
                            + (rec.get("reason", "") if rec["status"] == "error" else "")]
        rec["emulation"] += _emulation_notes(first_log)
        runs.append((rec, outs))
        i += 1
    order = {"error": 0, "wrong": 1, "ok": 2, "skip": 3}
    rec, outs = min(runs, key=lambda r: order.get(r[0]["status"], 0))
    rec = dict(rec, emulation=[line for r, _ in runs for line in r["emulation"]])
    return rec, outs


def _locate(kernel):
    """(module, attribute) of the @jit function whose C++ kernel is `kernel`, looked up in the
    fetched projects' modules (autotune/heuristics wrappers unwrapped), or (None, None)."""
    src = str(pathlib.Path(ARGS.src).resolve())
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None) or ""
        if not f.startswith(src):
            continue
        for attr, value in list(vars(mod).items()):
            seen = 0
            while value is not None and seen < 8:
                try:  # (some attributes answer any name by trying: ctypes' cdll, vLLM's platform)
                    if getattr(value, "_kernel", None) is kernel:
                        return mod.__name__, attr
                    value = getattr(value, "fn", None)
                except Exception:  # noqa: BLE001
                    break
                seen += 1
    return None, None


def _keep_ptx(handle, rec, case_name, ptx_path):
    import shutil
    os.makedirs(ARGS.keep_ptx, exist_ok=True)
    index_path = os.path.join(ARGS.keep_ptx, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else []
    module, attr = _locate(handle._kernel)
    name = f"{len(index):04d}_{handle.name}_{rec['arch']}.ptx"
    shutil.copy(ptx_path, os.path.join(ARGS.keep_ptx, name))
    index.append({"case": case_name, "kernel": handle.name, "module": module, "attr": attr,
                  "signature": handle.signature, "arch": rec["arch"], "ptx": name,
                  "options": {k: v for k, v in handle._options.items()
                              if k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}})
    with open(index_path, "w") as f:
        json.dump(index, f, indent=1)


PROJECT_DIRS = ("liger_kernel", "vllm", "fla", "mamba_ssm", "flash_attn", "sglang", "unsloth", "flag_gems", "bitsandbytes",
                "torchao", "cut_cross_entropy", "sageattention", "flashinfer", "xformers", "gemlite", "deepspeed",
                "transformer_engine")


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=str(ROOT / "build-gpu" / "realk" / "src"))
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--impl", default="tritium", choices=["tritium", "triton"])
    ap.add_argument("-k", action="append", default=[], help="run cases whose name has this")
    ap.add_argument("--gpu-compile", default=None, metavar="ARCHS")
    ap.add_argument("--gpu-compile-timeout", type=float, default=180.0)
    ap.add_argument("--gpu-compile-mem", type=float, default=6.0)
    ap.add_argument("--keep-ptx", default=None, metavar="DIR",
                    help="(with --gpu-compile) keep each PTX and an index.json for static_compare.py")
    ap.add_argument("--json", default=None)
    ap.add_argument("--save", default=None)
    ap.add_argument("--compare", default=None)
    ap.add_argument("--emulate", default=None, choices=["sm_90", "sm_80"])
    ap.add_argument("--emulate-check", action="store_true")
    ap.add_argument("--emulate-config", default=None, metavar="N|all")
    ap.add_argument("--skip-done", action="append", default=[], metavar="FILE")
    ap.add_argument("-v", action="store_true", help="print tracebacks")
    ARGS = ap.parse_args()
    ARGS.emulate_config_index = 0
    src = pathlib.Path(ARGS.src)
    if not any((src / p).is_dir() for p in PROJECT_DIRS):
        print(f"SKIPPED: the fetched projects are not in {src} (see tests/realk/RESULTS.md)")
        return 0
    if ARGS.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            print("SKIPPED: --device cuda and torch sees no GPU")
            return 0
    _prepare(src, ARGS.device, ARGS.impl)
    sys.path.insert(0, str(ROOT / "tests" / "triton_suite"))
    if ARGS.gpu_compile:
        import gpu_compile
        gpu_compile.install()
    if ARGS.emulate:
        if ARGS.device != "cpu" or ARGS.impl != "tritium":
            ap.error("--emulate runs tritium on the CPU")
        sys.path.insert(0, str(ROOT / "tests" / "emulate"))
        import emulated_gpu
        if not emulated_gpu.available():
            print("SKIPPED: --emulate needs llc (LLVM) and a C compiler")
            return 0
        sm = int(ARGS.emulate[3:])
        emulated_gpu.install(sm, check=ARGS.emulate_check)
        _emulate_fla_device(sm)
        _install_config_choice()  # config 0 unless --emulate-config: the first that runs
    results = []
    done = _cases_done(ARGS.skip_done)
    for name, project, fn in CASES:
        if ARGS.k and not any(k in name for k in ARGS.k):
            continue
        if name in done:
            continue
        if not (src / {"liger": "liger_kernel"}.get(project, project)).exists():
            results.append({"case": name, "status": "skip", "reason": "project not fetched"})
            continue
        if ARGS.emulate and ARGS.emulate_config is not None:
            rec, outs = _run_case_configs(name, fn)
        else:
            first_log = len(emulated_gpu.LOG) if ARGS.emulate else 0
            rec, outs = run_case(name, fn, ARGS.device)
            if ARGS.emulate:
                rec["emulation"] = _emulation_notes(first_log)
        if ARGS.save and outs is not None:
            import torch
            os.makedirs(ARGS.save, exist_ok=True)
            torch.save([o.detach().cpu() for o in outs if o is not None], os.path.join(ARGS.save, name + ".pt"))
        if ARGS.compare and outs is not None:
            import torch
            p = os.path.join(ARGS.compare, name + ".pt")
            if os.path.exists(p):
                other = torch.load(p)
                rec["vs_saved"] = [close(f"saved{i}", a, b, atol=1e-3, rtol=1e-3)
                                   for i, (a, b) in enumerate(zip([o for o in outs if o is not None], other))]
        if ARGS.gpu_compile:
            import gpu_compile
            import tempfile
            handles = gpu_compile.take_pending()
            seen, comp = set(), []
            with tempfile.TemporaryDirectory(prefix="realk-") as wd:
                for h in handles:
                    key = (h.name, h.signature, tuple(sorted(h._options.items())))
                    if key in seen:
                        continue
                    seen.add(key)
                    for arch in ARGS.gpu_compile.split(","):
                        r = gpu_compile.compile_one(h, arch, ARGS.gpu_compile_timeout,
                                                    int(ARGS.gpu_compile_mem * 1024), wd)
                        r.update(kernel=h.name, signature=h.signature,
                                 num_warps=h._options.get("num_warps"),
                                 num_stages=h._options.get("num_stages"))
                        if ARGS.keep_ptx and r["status"] == "ok":
                            _keep_ptx(h, r, name, os.path.join(wd, "k.ptx"))
                        comp.append(r)
            rec["compile"] = comp
        results.append(rec)
        line = f"{name:42s} {rec['status']:6s}"
        if rec["status"] == "ok" or rec["status"] == "wrong":
            line += " " + ", ".join(f"{c[0]}{'' if c[1] else ' BAD'} {c[2]:.1e}" for c in rec["compare"])
        elif "reason" in rec:
            line += " " + rec["reason"]
        if "compile" in rec:
            bad = [c for c in rec["compile"] if c["status"] != "ok"]
            line += f"\n    compile: {len(rec['compile']) - len(bad)}/{len(rec['compile'])} ok"
            for c in bad:
                line += f"\n    {c['arch']} {c['kernel']} [{c['signature'][:80]}]: {c['status']}: {c.get('reason', '')}"
        for note in rec.get("emulation", []):
            line += "\n" + note
        if "vs_saved" in rec:
            line += "\n    vs saved: " + ", ".join(f"{c[0]}{'' if c[1] else ' BAD'} {c[2]:.1e}" for c in rec["vs_saved"])
        print(line, flush=True)
        if ARGS.v and rec["status"] == "error":
            print(rec["traceback"])
        if ARGS.json:
            _write_json(results)
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    ncomp = sum(len(r.get("compile", [])) for r in results)
    nok = sum(1 for r in results for c in r.get("compile", []) if c["status"] == "ok")
    print("cases: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) +
          (f"; compiles: {nok}/{ncomp} ok" if ARGS.gpu_compile else ""))
    if ARGS.json:
        _write_json(results)
    return 0


def _write_json(results):
    with open(ARGS.json + ".part", "w") as f:
        json.dump(results, f, indent=1, default=str)
    os.replace(ARGS.json + ".part", ARGS.json)


def _cases_done(files):
    """The case names in earlier runs' outputs (--skip-done): a --json list of records, or
    the printed table (a case's line starts with its name and its status)."""
    names = {c[0] for c in CASES}
    done = set()
    for path in files:
        text = pathlib.Path(path).read_text()
        if text.lstrip().startswith("["):
            done |= {r["case"] for r in json.loads(text)}
            continue
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in names and parts[1] in ("ok", "wrong", "error", "skip"):
                done.add(parts[0])
    return done


ARGS = None

if __name__ == "__main__":
    sys.exit(main())
