"""The interpreter suite's reductions, scans, histogram and shape ops (tests/python/
test_reduce.py: Triton's test grid against numpy) on the GPU, through tritium and through
real Triton 3.6 from the same kernel source (tests/python/reduce_kernels.py): every test
of test_reduce.py runs here with its numpy arrays copied to CUDA tensors around each launch,
so both JITs meet the same numpy oracle. Then the kernels users write (row softmax, layer
norm, RMS norm, cross-entropy with an online max/sum over the vocabulary, a while-loop sum,
argmax with ties, cumsum along rows) at realistic sizes against torch, through both JITs.

Triton compiles slowly, so its side runs every TRITON_STRIDE-th test of the grid (default
8; 1 runs all); TRITIUM_STRIDE (default 1) thins tritium's side the same way. Triton's
side is skipped, with the reason printed, where `import triton` fails.

  python3 -m pytest -q tests/gpu/test_gpu_reduce.py           (on the GPU machine)
"""

import os
import zlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import reduce_kernels  # noqa: E402  (tests/python, on sys.path through conftest.py)
import test_reduce as R  # noqa: E402
from test_reduce import *  # noqa: E402,F401,F403  (the interpreter suite's tests, re-run here)

try:
    import triton  # noqa: F401
    TRITON = reduce_kernels.load("triton")
    NO_TRITON = None
except Exception as e:  # noqa: BLE001 (any failure to import means: no Triton here)
    TRITON, NO_TRITON = None, f"import triton failed: {type(e).__name__}: {e}"

TRITIUM = reduce_kernels.load("tritium")
STRIDES = {"tritium": int(os.environ.get("TRITIUM_STRIDE", "1")),
           "triton": int(os.environ.get("TRITON_STRIDE", "8"))}


class OnDevice:
    """A kernel module whose launches take the suite's numpy arrays: each array goes to a
    CUDA tensor before the launch and its contents come back after it."""

    def __init__(self, module, jit_name):
        self.module = module
        self.language = __import__(jit_name + ".language", fromlist=["language"])

    def _arg(self, value):
        if isinstance(value, np.ndarray):
            try:
                return torch.from_numpy(np.ascontiguousarray(value)).cuda()
            except TypeError as e:  # an older torch without uint16/32/64 tensors
                pytest.skip(f"torch cannot hold a numpy {value.dtype} array: {e}")
        if type(value).__name__ == "dtype" and type(value).__module__.startswith("tritium"):
            long = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
                    "fp64": "float64"}.get(value.name, value.name)
            return getattr(self.language, long)
        return value

    def __getattr__(self, name):
        kernel = getattr(self.module, name)
        outer = self

        class Launcher:
            def __getitem__(self, grid):
                def launch(*args, **kwargs):
                    dev_args = [outer._arg(a) for a in args]
                    dev_kwargs = {k: outer._arg(v) for k, v in kwargs.items()}
                    kernel[grid](*dev_args, **dev_kwargs)
                    torch.cuda.synchronize()
                    for host, dev in zip(args, dev_args):
                        if isinstance(host, np.ndarray) and host.flags.writeable:
                            host[...] = dev.cpu().numpy()
                return launch

        return Launcher()


@pytest.fixture(params=["tritium", "triton"], autouse=True)
def jit_on_device(request, monkeypatch):
    """Runs each test once with tritium's kernels on the GPU and once with Triton's."""
    which = request.param
    if zlib.crc32(request.node.nodeid.encode()) % STRIDES[which] != 0:
        pytest.skip(f"{which}: only every {STRIDES[which]}-th test of the grid runs "
                    f"({which.upper()}_STRIDE)")
    if which == "triton" and TRITON is None:
        pytest.skip(NO_TRITON)
    if request.node.name.startswith("test_combine_fn_must_be_jit"):
        pytest.skip("a tritium front-end test: nothing runs on a GPU")
    module = TRITIUM if which == "tritium" else TRITON
    monkeypatch.setattr(R, "K", OnDevice(module, which))
    return which


# ---------------------------------------------------------------------------------------
# The kernels users write, at realistic sizes, against torch.


def kernels_of(which):
    return TRITIUM if which == "tritium" else TRITON


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("cols", [128, 1000, 1024, 4096, 16384])
def test_softmax_rows(gen, jit_on_device, dtype, cols):
    K = kernels_of(jit_on_device)
    rows = 512
    x = (torch.randn(rows, cols, device="cuda", generator=gen) * 3).to(dtype)
    out = torch.full_like(x, float("nan"))
    block = triton_next_power_of_2(cols)
    K.softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=block,
                              num_warps=8 if block >= 4096 else 4)
    torch.cuda.synchronize()
    ref = torch.softmax(x.float(), dim=1).to(dtype)
    tol = 1e-5 if dtype == torch.float32 else 2e-3
    torch.testing.assert_close(out, ref, rtol=tol, atol=tol)


def triton_next_power_of_2(n):
    return 1 << (n - 1).bit_length()


@pytest.mark.parametrize("n", [1024, 4096, 8192, 1000])
def test_layer_norm(gen, jit_on_device, n):
    K = kernels_of(jit_on_device)
    rows = 256
    x = torch.randn(rows, n, device="cuda", generator=gen) * 2 + 1
    w = torch.randn(n, device="cuda", generator=gen)
    b = torch.randn(n, device="cuda", generator=gen)
    y = torch.full_like(x, float("nan"))
    mean = torch.full((rows,), float("nan"), device="cuda")
    rstd = torch.full((rows,), float("nan"), device="cuda")
    K.layer_norm_kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK=1024)
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
    torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mean, x.mean(dim=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1024, 4096, 5000])
def test_rms_norm(gen, jit_on_device, n):
    K = kernels_of(jit_on_device)
    rows = 256
    x = torch.randn(rows, n, device="cuda", generator=gen)
    w = torch.randn(n, device="cuda", generator=gen)
    y = torch.full_like(x, float("nan"))
    K.rms_norm_kernel[(rows,)](x, y, w, x.stride(0), n, 1e-6, BLOCK=triton_next_power_of_2(n))
    torch.cuda.synchronize()
    ref = x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6) * w
    torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("vocab", [32000, 50257, 128256])
def test_cross_entropy(gen, jit_on_device, vocab):
    K = kernels_of(jit_on_device)
    rows = 64
    logits = torch.randn(rows, vocab, device="cuda", generator=gen) * 3
    targets = torch.randint(0, vocab, (rows,), device="cuda", generator=gen)
    loss = torch.full((rows,), float("nan"), device="cuda")
    K.cross_entropy_kernel[(rows,)](logits, targets, loss, logits.stride(0), vocab, BLOCK=4096,
                                    num_warps=8)
    torch.cuda.synchronize()
    ref = torch.nn.functional.cross_entropy(logits, targets, reduction="none")
    torch.testing.assert_close(loss, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [0, 1, 1000, 1 << 20, (1 << 20) + 17])
def test_while_sum(gen, jit_on_device, n):
    K = kernels_of(jit_on_device)
    x = torch.randn(max(n, 1), device="cuda", generator=gen)
    z = torch.full((1,), float("nan"), device="cuda")
    K.while_sum_kernel[(1,)](x, z, n, BLOCK=1024)
    torch.cuda.synchronize()
    torch.testing.assert_close(z[0], x[:n].double().sum().float(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("cols", [7, 100, 1024])
def test_argmax_with_ties(gen, jit_on_device, cols):
    K = kernels_of(jit_on_device)
    rows = 1024
    x = torch.randint(0, 4, (rows, cols), device="cuda", generator=gen).float()  # many ties
    z = torch.full((rows,), -1, dtype=torch.int32, device="cuda")
    K.argmax_rows_kernel[(rows,)](x, z, x.stride(0), cols, BLOCK=triton_next_power_of_2(cols))
    torch.cuda.synchronize()
    # the first index of the maximum, like numpy
    want = np.argmax(x.cpu().numpy(), axis=1)
    np.testing.assert_array_equal(z.cpu().numpy(), want)


@pytest.mark.parametrize("cols", [100, 1024, 4096])
def test_cumsum_rows(gen, jit_on_device, cols):
    K = kernels_of(jit_on_device)
    rows = 512
    x = torch.randn(rows, cols, device="cuda", generator=gen)
    z = torch.full_like(x, float("nan"))
    K.cumsum_rows_kernel[(rows,)](x, z, x.stride(0), cols, BLOCK=triton_next_power_of_2(cols))
    torch.cuda.synchronize()
    torch.testing.assert_close(z, torch.cumsum(x.double(), dim=1).float(), rtol=1e-4, atol=1e-3)


def test_column_sums(gen, jit_on_device):
    K = kernels_of(jit_on_device)
    m, n = 3000, 1000
    x = torch.randn(m, n, device="cuda", generator=gen)
    z = torch.full((n,), float("nan"), device="cuda")
    K.sum_2d_blocks_kernel[((n + 63) // 64,)](x, z, m, n, BLOCK_M=64, BLOCK_N=64)
    torch.cuda.synchronize()
    torch.testing.assert_close(z, x.double().sum(dim=0).float(), rtol=1e-4, atol=1e-3)
