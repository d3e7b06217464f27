"""Arguments from torch and CuPy, where they are installed (the GPU machine has both; CI
has neither, and pytest's summary counts these skips). CPU tensors run in the
interpreter; device memory must never be dereferenced by it: until the CUDA backend
lands, a launch on device memory raises a tritium error, after that it must be right."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask) + tl.load(y_ptr + offsets, mask),
             mask)


def launch_on_device_memory(x, y, out, n, check):
    """Launches on device buffers: either a tritium error (no CUDA backend yet) and `out`
    untouched, or a correct result. Never a crash."""
    try:
        add_kernel[(tritium.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=256)
    except (tritium.CompilationError, tritium.LaunchError):
        return
    check()


class TestTorch:
    @pytest.fixture(autouse=True)
    def _torch(self):
        self.torch = pytest.importorskip("torch")

    @pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32",
                                       "int64", "uint8"])
    def test_cpu_tensors(self, rng, dtype):
        torch = self.torch
        n = 1000
        torch_dtype = getattr(torch, dtype)
        x = torch.from_numpy(rng.standard_normal(n) * 50).to(torch_dtype)
        y = torch.from_numpy(rng.standard_normal(n) * 50).to(torch_dtype)
        out = torch.full((n,), -1, dtype=torch_dtype)
        add_kernel[(tritium.cdiv(n, 128),)](x, y, out, n, BLOCK_SIZE=128)
        assert torch.equal(out, x + y)
        short = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
                 "int32": "i32", "int64": "i64", "uint8": "u8"}[dtype]
        assert add_kernel.signature(x, y, out, n, 128).startswith(f"*{short}")

    def test_views_with_a_storage_offset(self, rng):
        torch = self.torch
        base = torch.from_numpy(rng.standard_normal(1003).astype(np.float32))
        x, y = base[3:], base[:1000]
        out = torch.full((1000,), float("nan"))
        assert add_kernel.signature(x, y, out, 1000, 128).startswith("*fp32, *fp32:16")
        add_kernel[(8,)](x, y, out, 1000, BLOCK_SIZE=128)
        assert torch.equal(out, x + y)

    def test_bool_tensors_are_i1(self):
        torch = self.torch
        flags = torch.zeros(16, dtype=torch.bool)
        assert add_kernel.signature(flags, flags, flags, 16, 16).startswith("*i1")

    def test_cuda_tensors(self, rng):
        torch = self.torch
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device")
        n = 5000
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        out = torch.full((n,), float("nan"), device="cuda")
        assert add_kernel.signature(x, y, out, n, 256) == \
            "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK_SIZE=256"

        def check():
            torch.cuda.synchronize()
            assert torch.equal(out, x + y)

        launch_on_device_memory(x, y, out, n, check)

    def test_streams(self, rng):
        torch = self.torch
        x = torch.ones(64)
        out = torch.zeros(64)
        add_kernel[(1,)](x, x, out, 64, BLOCK_SIZE=64, stream=0)
        if torch.cuda.is_available():
            stream = torch.cuda.Stream()
            add_kernel[(1,)](x, x, out, 64, BLOCK_SIZE=64, stream=stream)
        assert torch.equal(out, x + x)


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device")
    n = 3000
    x = cupy.random.standard_normal(n, dtype=cupy.float32)
    y = cupy.random.standard_normal(n, dtype=cupy.float32)
    out = cupy.full(n, cupy.nan, dtype=cupy.float32)
    assert add_kernel.signature(x, y, out, n, 256) == \
        "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK_SIZE=256"

    def check():
        cupy.cuda.runtime.deviceSynchronize()
        assert bool((out == x + y).all())

    launch_on_device_memory(x, y, out, n, check)
