#!/usr/bin/env python3
"""torch.compile (TorchInductor) programs whose generated Triton kernels run unmodified under
tritium, each compared with eager PyTorch; every specialization launched is also compiled to
PTX for sm_90 and assembled by ptxas.

This is a measurement, not one of tritium's tests (those are tests/python/
test_inductor_kernels.py). `import triton` is answered by tritium (tritium.use_as_triton);
Inductor is told to generate Triton for CPU tensors (`torch._inductor.config.cpu_backend =
"triton"`, its CPU-Triton path, which Triton serves with triton-cpu); tritium's registry has
a "cpu" backend whose kernels run in tritium's interpreter (TRITIUM_INTERPRET=1). No
generated kernel is edited.

    PYTHONPATH=python /work/tsuite-venv/bin/python tests/inductor/run_inductor.py \
        [-k SUBSTR ...] [--gpu-compile sm_90] [--save-kernels DIR] [--json OUT] [--dynamic]

--gpu-compile  each specialization a program launched is compiled to PTX for these
               architectures in a forked process and assembled by ptxas
               (tests/triton_suite/gpu_compile.py; ptxas from TRITIUM_SUITE_PTXAS).
--save-kernels the generated kernel sources (one file per kernel) go to DIR.

Exit status 0 even when programs fail: the table is the result.
"""

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]

os.environ["TRITIUM_INTERPRET"] = "1"
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "triton_suite"))

import tritium  # noqa: E402

tritium.use_as_triton(quiet=True)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

PROGRAMS = []


def program(name, tol=None, dynamic=False, train=False, config=None):
    def register(fn):
        PROGRAMS.append({"name": name, "make": fn, "tol": tol, "dynamic": dynamic,
                         "train": train, "config": config or {}})
        return fn
    return register


def rnd(*shape, dtype=torch.float32, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed + 7 * len(shape) + sum(shape))
    return (torch.randn(*shape, generator=g) * scale).to(dtype)


# ------------------------------------------------------------------------------ programs
# Each returns (function, inputs).

@program("pointwise_broadcast")
def _():
    def f(x, y, b):
        return torch.sigmoid(x[:, None] * 2 + y[None, :]) * torch.tanh(b) - x.abs()[:, None]
    return f, (rnd(37), rnd(45), rnd(37, 45))


@program("pointwise_2d_transpose")
def _():
    def f(x, y):
        return (x.t() + y).exp().clamp(max=4.0) + torch.where(y > 0, y, -y)
    return f, (rnd(33, 65), rnd(65, 33))


@program("softmax_persistent")
def _():
    def f(x):
        return torch.softmax(x * 0.5, dim=-1)
    return f, (rnd(16, 100),)


@program("softmax_looped")
def _():
    def f(x):
        return torch.softmax(x, dim=-1)
    return f, (rnd(4, 5000),)


@program("log_softmax_dim0")
def _():
    def f(x):
        return torch.log_softmax(x, dim=0)
    return f, (rnd(70, 24),)


@program("layer_norm")
def _():
    def f(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)
    return f, (rnd(24, 96), rnd(96), rnd(96))


@program("rms_norm")
def _():
    def f(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    return f, (rnd(24, 128), rnd(128))


@program("reductions_sum_max_argmax")
def _():
    def f(x):
        return x.sum(1), x.amax(0), x.argmax(1), x.argmin(0), x.prod(1), (x > 1).any(1)
    return f, (rnd(40, 33),)


@program("var_mean_welford")
def _():
    def f(x):
        v, m = torch.var_mean(x, dim=1, correction=1)
        return v, m, x.std(0)
    return f, (rnd(30, 3000),)


@program("looped_reduction_sum")
def _():
    def f(x):
        return x.sum(-1), (x * x).max(-1).values
    return f, (rnd(3, 20000),)


@program("full_reduction")
def _():
    def f(x):
        return x.sum(), x.max(), x.mean()
    return f, (rnd(4097,),)


@program("cumsum_scan", tol=1e-4)
def _():
    def f(x):
        return torch.cumsum(x, dim=1), torch.cumprod(x[:, :8], dim=1)
    return f, (rnd(8, 300),)


@program("cat_index_gather")
def _():
    def f(x, y, idx, gidx):
        c = torch.cat([x, y * 2], dim=1)
        return c[idx], torch.gather(c, 1, gidx) + 1
    idx = torch.tensor([3, 0, 7, 7, 1])
    gidx = torch.randint(0, 30, (8, 4), generator=torch.Generator().manual_seed(1))
    return f, (rnd(8, 10), rnd(8, 20), idx, gidx)


@program("scatter_add_index_put")
def _():
    def f(x, idx, src, pidx):
        y = torch.zeros(10, 16).scatter_add(0, idx, src)
        z = x.clone()
        z[pidx] = 3.0
        return y, z + 1
    g = torch.Generator().manual_seed(2)
    idx = torch.randint(0, 10, (12, 16), generator=g)
    pidx = torch.tensor([1, 4, 5])
    return f, (rnd(8, 16), idx, rnd(12, 16), pidx)


@program("index_put_accumulate")
def _():
    def f(x, idx, v):
        return torch.index_put(x, (idx,), v, accumulate=True)
    idx = torch.tensor([0, 2, 2, 5, 0])
    return f, (rnd(7, 9), idx, rnd(5, 9))


@program("embedding")
def _():
    def f(w, ids):
        return F.embedding(ids, w) * 2.0
    ids = torch.randint(0, 50, (4, 7), generator=torch.Generator().manual_seed(3))
    return f, (rnd(50, 32), ids)


@program("mlp_gelu", tol=1e-4)
def _():
    def f(x, w1, b1, w2, b2):
        h = F.gelu(x @ w1 + b1)
        h2 = F.gelu(h @ w2 + b2, approximate="tanh")
        return F.silu(h2)
    return f, (rnd(8, 32), rnd(32, 64, scale=0.2), rnd(64), rnd(64, 16, scale=0.2), rnd(16))


@program("attention_pieces", tol=1e-4)
def _():
    def f(q, k, v):
        s = (q @ k.transpose(-1, -2)) / (q.shape[-1] ** 0.5)
        n = s.shape[-1]
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
        return torch.softmax(s, dim=-1) @ v
    return f, (rnd(2, 3, 16, 8), rnd(2, 3, 16, 8), rnd(2, 3, 16, 8))


@program("dtype_fp16_bf16", tol=1e-2)
def _():
    def f(x, y):
        a = (x.half() * 3).float() + y
        b = (x.to(torch.bfloat16) + y.to(torch.bfloat16)).relu()
        return a, b, b.float().sum(1), torch.softmax(x.half(), dim=-1)
    return f, (rnd(12, 40), rnd(12, 40))


@program("int_ops")
def _():
    def f(a, b):
        return (a // 3 + b % 5) * (a >> 1), (a & b) | 3, a.float() / 7, (a.to(torch.int8) * 3)
    g = torch.Generator().manual_seed(4)
    return f, (torch.randint(-50, 50, (64,), generator=g),
               torch.randint(1, 20, (64,), generator=g))


@program("dynamic_shapes", dynamic=True)
def _():
    def f(x, y):
        return (x * y.sum(-1, keepdim=True)).softmax(-1)
    return f, (rnd(13, 29), rnd(13, 7))


@program("layer_norm_backward", tol=1e-4, train=True)
def _():
    def f(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b)
    return f, (rnd(12, 64), rnd(64), rnd(64))


@program("softmax_cross_entropy_backward", tol=1e-4, train=True)
def _():
    def f(logits, target):
        return F.cross_entropy(logits, target)
    tgt = torch.randint(0, 30, (16,), generator=torch.Generator().manual_seed(5))
    return f, (rnd(16, 30), tgt)


@program("sort_topk")
def _():
    def f(x):
        v, i = torch.sort(x, dim=-1)
        t = torch.topk(x, 3, dim=-1)
        return v, i, t.values
    return f, (rnd(6, 16),)


@program("math_unary", tol=1e-5)
def _():
    def f(x):
        return (torch.erf(x) + torch.log1p(x.abs()) + torch.sin(x) * torch.cos(x) +
                torch.atan2(x, x + 2) + torch.expm1(x * 0.1) + x.floor() + x.round() +
                torch.pow(x.abs(), 1.5) + torch.isnan(x.log()).float())
    return f, (rnd(200),)


@program("tiled_2d_pointwise")
def _():
    def f(x):
        return (x.permute(1, 0, 2) * 2).contiguous() + 1
    return f, (rnd(17, 33, 9),)


@program("max_pool_avg_pool")
def _():
    def f(x):
        return F.max_pool2d(x, 3, stride=2, padding=1), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, 3)
    return f, (rnd(2, 3, 11, 13),)


@program("max_pool_with_indices")
def _():
    def f(x):
        return F.max_pool2d(x, 2, return_indices=True)
    return f, (rnd(2, 3, 8, 10),)


@program("upsample_interpolate", tol=1e-5)
def _():
    def f(x):
        return (F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False))
    return f, (rnd(1, 2, 5, 6),)


@program("bucketize_searchsorted")
def _():
    def f(x, b):
        return torch.bucketize(x, b), torch.searchsorted(b, x, right=True)
    return f, (rnd(50), torch.linspace(-2, 2, 9))


@program("nll_loss_argmax_onehot")
def _():
    def f(logp, tgt):
        return F.nll_loss(logp, tgt), F.one_hot(logp.argmax(-1), 12).sum(0)
    tgt = torch.randint(0, 12, (10,), generator=torch.Generator().manual_seed(6))
    return f, (torch.log_softmax(rnd(10, 12), -1), tgt)


@program("split_full_reduction", tol=1e-4)
def _():
    def f(x):
        return x.sum(), x.abs().amax(), (x * x).mean()
    return f, (rnd(300000,),)


@program("multi_output_reduction_fusion", tol=1e-4)
def _():
    def f(x, y):
        s = x.sum(1, keepdim=True)
        m = x.amax(1, keepdim=True)
        return (x - m).exp() / s, (y * x).sum(1), x.min(1).indices
    return f, (rnd(20, 70), rnd(20, 70))


@program("where_masked_scalar_ops")
def _():
    def f(x, m):
        return torch.where(m, x, 0.5) + x.masked_fill(~m, -1).cumsum(0), x.nan_to_num(0, 1, -1)
    x = rnd(40)
    x[3] = float("nan")
    x[5] = float("inf")
    return f, (x, x > 0)


@program("int64_large_strides")
def _():
    def f(x):
        return x[:, ::3].float() * 2, x.to(torch.int32) + 1
    g = torch.Generator().manual_seed(7)
    return f, (torch.randint(-2**40, 2**40, (6, 30), generator=g),)


@program("bool_any_all_reductions")
def _():
    def f(x):
        return (x > 0).all(1), (x > 1).any(0), (x > 0).sum(1), x.count_nonzero(0)
    return f, (rnd(10, 17),)


@program("rand_dropout_stats")
def _():
    # random numbers: Inductor's own Philox streams differ from eager's; compare statistics
    def f(x):
        return F.dropout(x, 0.5, training=True)

    class Stats:
        def __call__(self, x):
            y = f(x)
            keep = (y != 0).float().mean()
            return (keep - 0.5).abs() < 0.05, torch.where(y != 0, y, 2 * x).eq(2 * x).all()
    return Stats(), (rnd(4000).abs() + 0.1,)


@program("gru_like_pointwise_mix", tol=1e-5)
def _():
    def f(x, h, w):
        g = x @ w
        r, z, n = g.chunk(3, dim=-1)
        r, z = torch.sigmoid(r), torch.sigmoid(z)
        n = torch.tanh(n + r * h)
        return (1 - z) * n + z * h
    return f, (rnd(6, 16), rnd(6, 8), rnd(16, 24, scale=0.3))


@program("fp16_reductions_bf16_math", tol=2e-2)
def _():
    def f(x):
        h = x.half()
        b = x.to(torch.bfloat16)
        return h.sum(1), h.amax(0), torch.exp(b).mean(1), F.layer_norm(h, (h.shape[-1],))
    return f, (rnd(16, 64),)


@program("cooperative_reduction", tol=1e-4, config={"triton.cooperative_reductions": True})
def _():
    def f(x):
        return x.sum(-1), x.amax(-1)
    return f, (rnd(2, 40000),)


@program("combo_kernels", config={"combo_kernels": True})
def _():
    def f(a, b, c):
        return a.sin() + 1, b.cos() * 2, c.sum(1)
    return f, (rnd(40), rnd(33, 5), rnd(7, 30))


@program("max_autotune_pointwise", config={"max_autotune_pointwise": True})
def _():
    def f(x, y):
        return (x * y + 1).relu().sum(0)
    return f, (rnd(64, 48), rnd(64, 48))


@program("coordinate_descent_tuning", config={"coordinate_descent_tuning": True})
def _():
    def f(x):
        return torch.softmax(x, -1) * 2
    return f, (rnd(8, 200),)


@program("mm_triton_template", tol=1e-4,
         config={"max_autotune_gemm": True, "max_autotune_gemm_backends": "TRITON",
                 "benchmark_template_fusion": False})
def _():
    def f(a, b, bias):
        return torch.relu(a @ b + bias)
    return f, (rnd(32, 64), rnd(64, 48), rnd(48))


@program("bmm_triton_template", tol=1e-4,
         config={"max_autotune_gemm": True, "max_autotune_gemm_backends": "TRITON",
                 "benchmark_template_fusion": False})
def _():
    def f(a, b):
        return torch.bmm(a, b) * 0.5
    return f, (rnd(2, 16, 32), rnd(2, 32, 16))


@program("transformer_block_train", tol=1e-4, train=True)
def _():
    def f(x, wq, wk, wv, wo, g):
        h = F.rms_norm(x, (x.shape[-1],), g)
        q, k, v = h @ wq, h @ wk, h @ wv
        s = torch.softmax(q @ k.transpose(-1, -2) / 4.0, -1)
        return x + F.silu(s @ v) @ wo
    return f, (rnd(8, 16), rnd(16, 16, scale=0.3), rnd(16, 16, scale=0.3), rnd(16, 16, scale=0.3),
               rnd(16, 16, scale=0.3), rnd(16))


@program("split_scan_cumsum", tol=1e-3)
def _():
    # a long 1-D scan: Inductor splits it over programs chained by a decoupled look-back
    # (triton_helpers.exclusive_scan_decoupled_lookback: atomics and a spin on flags)
    def f(x):
        return torch.cumsum(x, 0)
    return f, (rnd(300000, scale=0.01),)


@program("split_scan_int64")
def _():
    def f(x):
        return torch.cumsum(x, 0)
    g = torch.Generator().manual_seed(8)
    return f, (torch.randint(-1000, 1000, (200000,), generator=g),)


@program("fp8_casts")
def _():
    def f(x):
        a = x.to(torch.float8_e4m3fn)
        b = x.to(torch.float8_e5m2)
        return a.float() * 2, b.float() + 1, a
    return f, (rnd(64, scale=4.0),)


@program("nextafter_fmax_frexp_pow", tol=1e-6)
def _():
    def f(x, y, n):
        m, e = torch.frexp(x)
        return torch.nextafter(x, y), torch.fmax(x, y), m, e, torch.pow(n, 3), n.abs() ** n.clamp(0, 4)
    g = torch.Generator().manual_seed(9)
    x = rnd(50)
    x[2] = float("nan")
    return f, (x, rnd(50), torch.randint(-5, 5, (50,), generator=g))


@program("rand_in_graph")
def _():
    def f(x):
        r = torch.rand_like(x)
        n = torch.randn_like(x)
        i = torch.randint(0, 10, x.shape)
        return ((r >= 0) & (r < 1)).all(), (n.mean().abs() < 0.1), ((i >= 0) & (i < 10)).all()
    return f, (rnd(20000),)


@program("negative_index_wrap")
def _():
    def f(x, idx):
        return x[idx].sum(1) + x[:, idx].sum(0)
    return f, (rnd(9, 9), torch.tensor([-1, 0, -9, 4]))


@program("dynamic_reduction_shapes", dynamic=True, tol=1e-4)
def _():
    def f(x):
        return torch.softmax(x, -1), F.layer_norm(x, (x.shape[-1],)), x.cumsum(-1)
    return f, (rnd(5, 3001),)


@program("conv_bn_relu_pointwise", tol=1e-4)
def _():
    def f(x, w, mean, var, g, b):
        y = F.conv2d(x, w, padding=1)
        return F.relu(F.batch_norm(y, mean, var, g, b, training=False))
    return f, (rnd(2, 3, 8, 8), rnd(4, 3, 3, 3), rnd(4), rnd(4).abs() + 0.5, rnd(4), rnd(4))


@program("batch_norm_train", tol=1e-4, train=True)
def _():
    def f(x, g, b):
        return F.batch_norm(x, None, None, g, b, training=True)
    return f, (rnd(8, 6, 5, 5), rnd(6), rnd(6))


@program("complex_views_stack")
def _():
    def f(x, y):
        return torch.stack([x, y], -1).flatten(-2) * 2, torch.view_as_real(torch.complex(x, y)) + 1
    return f, (rnd(10, 6), rnd(10, 6))


@program("mm_fp16_template", tol=2e-2,
         config={"max_autotune_gemm": True, "max_autotune_gemm_backends": "TRITON",
                 "benchmark_template_fusion": False})
def _():
    def f(a, b):
        return (a @ b).relu()
    return f, (rnd(64, 32, dtype=torch.float16), rnd(32, 64, dtype=torch.float16))


@program("mm_persistent_tma_template", tol=2e-2,
         config={"max_autotune_gemm": True, "max_autotune_gemm_backends": "TRITON",
                 "benchmark_template_fusion": False, "triton.enable_persistent_tma_matmul": True})
def _():
    def f(a, b):
        return a @ b
    return f, (rnd(128, 64, dtype=torch.bfloat16), rnd(64, 128, dtype=torch.bfloat16))


@program("flex_attention", tol=1e-4)
def _():
    from torch.nn.attention.flex_attention import flex_attention

    def causal(score, b, h, q_idx, kv_idx):
        return torch.where(q_idx >= kv_idx, score, -float("inf"))

    def f(q, k, v):
        return flex_attention(q, k, v, score_mod=causal)
    return f, (rnd(1, 2, 128, 16), rnd(1, 2, 128, 16), rnd(1, 2, 128, 16))


import triton  # noqa: E402  (tritium, under the alias)
import triton.language as tl  # noqa: E402


@triton.jit
def _user_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64}, num_warps=2)],
                 key=["n"])
@triton.jit
def _user_scale_kernel(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * s, mask=m)


@program("user_triton_kernels_in_graph")
def _():
    # user @triton.jit and @triton.autotune kernels called inside a compiled function:
    # Inductor wraps them (triton_kernel_wrap) and fuses its own kernels around them
    def f(x, y):
        z = x * 2
        out = torch.empty_like(z)
        n = z.numel()
        _user_add_kernel[(triton.cdiv(n, 64),)](z, y, out, n, BLOCK=64)
        o2 = torch.empty_like(out)
        _user_scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](out, o2, n, 3.0)
        return o2.relu() + 1
    return f, (rnd(100), rnd(100))


# ------------------------------------------------------------------------------ driver

def _compare(got, want, tol):
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return f"structure differs"
        for i, (g, w) in enumerate(zip(got, want)):
            err = _compare(g, w, tol)
            if err:
                return f"[{i}] {err}"
        return None
    if isinstance(want, torch.Tensor):
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"shape/dtype {tuple(got.shape)}/{got.dtype} vs {tuple(want.shape)}/{want.dtype}"
        if want.is_floating_point():
            atol = rtol = tol if tol is not None else (1e-5 if want.dtype == torch.float32 else 1e-2)
            if not torch.allclose(got.float(), want.float(), atol=atol, rtol=rtol, equal_nan=True):
                diff = (got.float() - want.float()).abs().nan_to_num(0).max().item()
                return f"max abs diff {diff:.3g}"
        elif not torch.equal(got, want):
            return f"{(got != want).sum().item()} elements differ"
        return None
    return None if got == want else f"{got!r} != {want!r}"


SOURCES = []  # (kernel name, source), one per triton.compile of a new kernel source


def _record_sources():
    """Wraps tritium's triton.compile: Inductor compiles each kernel there (ASTSource)."""
    import tritium.compiler as compiler
    original = compiler.compile

    def compile(src, target=None, options=None):
        entry = (src.fn.__name__, src.fn.src)
        if entry not in SOURCES:
            SOURCES.append(entry)
        return original(src, target=target, options=options)
    compiler.compile = compile
    tritium.compile = compile


def run_program(p):
    import torch._dynamo
    torch._dynamo.reset()
    fn, inputs = p["make"]()
    before = len(SOURCES)
    if p["train"]:
        def leaf(t):
            return t.detach().clone().requires_grad_(True) if t.is_floating_point() else t
        xs_e = [leaf(t) for t in inputs]
        out_e = fn(*xs_e)
        out_e.sum().backward()
        want = (out_e.detach(), [x.grad for x in xs_e if x.is_floating_point()])
        xs_c = [leaf(t) for t in inputs]
        out_c = torch.compile(fn, dynamic=p["dynamic"])(*xs_c)
        out_c.sum().backward()
        got = (out_c.detach(), [x.grad for x in xs_c if x.is_floating_point()])
    else:
        want = fn(*inputs)
        with torch._inductor.config.patch(p["config"]):
            got = torch.compile(fn, dynamic=p["dynamic"])(*inputs)
    kernels = [name for name, _ in SOURCES[before:]]
    return _compare(got, want, p["tol"]), kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", action="append", default=[])
    ap.add_argument("--gpu-compile", default=None, metavar="ARCHS")
    ap.add_argument("--save-kernels", default=None, metavar="DIR")
    ap.add_argument("--json", default=None)
    ap.add_argument("--dynamic", action="store_true",
                    help="compile every program with dynamic=True (symbolic sizes)")
    args = ap.parse_args()
    if args.dynamic:
        for p in PROGRAMS:
            p["dynamic"] = True

    import torch._inductor.config as cfg
    cfg.cpu_backend = "triton"
    cfg.fx_graph_cache = False
    cfg.compile_threads = 1  # compile in this process, where `triton` is tritium
    cfg.autotune_local_cache = False
    _record_sources()
    if args.gpu_compile:
        import gpu_compile
        gpu_compile.PTXAS = os.environ.get("TRITIUM_SUITE_PTXAS", gpu_compile.PTXAS)
        gpu_compile.install()

    results = []
    for p in PROGRAMS:
        if args.k and not any(k in p["name"] for k in args.k):
            continue
        t0 = time.time()
        rec = {"name": p["name"]}
        try:
            err, kernels = run_program(p)
            rec.update(status="ok" if err is None else "mismatch", reason=err, kernels=kernels)
        except Exception as e:  # noqa: BLE001 - every failure is a result
            tb = traceback.format_exc()
            rec.update(status="error", reason=f"{type(e).__name__}: {str(e).strip()[:400]}",
                       traceback=tb[-3000:])
            rec["kernels"] = []
        rec["seconds"] = round(time.time() - t0, 1)
        if args.gpu_compile:
            import gpu_compile
            comps = []
            with tempfile.TemporaryDirectory(prefix="inductor-gpu-") as wd:
                for h in gpu_compile.take_pending():
                    for arch in args.gpu_compile.split(","):
                        r = gpu_compile.compile_one(h, arch, 180, 6 * 1024, wd)
                        r.update(kernel=h.name, signature=h.signature)
                        comps.append(r)
            rec["gpu"] = comps
        results.append(rec)
        gpu = ""
        if args.gpu_compile:
            ok = sum(r["status"] == "ok" for r in rec["gpu"])
            gpu = f"  ptxas {ok}/{len(rec['gpu'])}"
            for r in rec["gpu"]:
                if r["status"] != "ok":
                    gpu += f"\n      {r['kernel']} {r['arch']}: {r['status']}: {r.get('reason')}"
        print(f"{p['name']:34s} {rec['status']:8s} kernels {len(rec['kernels']):2d} "
              f"{rec['seconds']:6.1f}s{gpu}" + (f"\n      {rec['reason']}" if rec.get("reason") else ""),
              flush=True)
    if args.save_kernels:
        d = pathlib.Path(args.save_kernels)
        d.mkdir(parents=True, exist_ok=True)
        for i, (name, src) in enumerate(SOURCES):
            (d / f"{i:03d}_{name}.py").write_text(src)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    n_ok = sum(r["status"] == "ok" for r in results)
    n_k = sum(len(r["kernels"]) for r in results)
    line = f"\n{n_ok}/{len(results)} programs match eager; {n_k} kernels generated"
    if args.gpu_compile:
        comps = [r for rec in results for r in rec.get("gpu", [])]
        line += (f"; {sum(r['status'] == 'ok' for r in comps)}/{len(comps)} launched "
                 f"specializations compiled and assembled by ptxas ({args.gpu_compile})")
    print(line)


if __name__ == "__main__":
    main()
