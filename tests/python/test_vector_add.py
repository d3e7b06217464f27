"""Vector add through the interpreter against numpy: the sizes and blocks of issue 2, other
element types, strided and misaligned views, and tensor-like objects."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


def poisoned_like(x):
    out = np.empty_like(x)
    # NaN, or -1 (its wrapped value for unsigned types)
    out.fill(np.nan if np.issubdtype(x.dtype, np.floating) else np.array(-1).astype(x.dtype))
    return out


def random_array(rng, n, dtype):
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(low, high, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("block", [128, 1024])
@pytest.mark.parametrize("n", [1, 17, 1000, 2**20 + 3])
def test_vector_add(rng, n, block):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = poisoned_like(x)
    add_kernel[(tritium.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.int32, np.int64,
                                   np.uint8, np.uint32])
def test_vector_add_dtypes(rng, dtype):
    n = 300
    x, y = random_array(rng, n, dtype), random_array(rng, n, dtype)
    out = poisoned_like(x)
    add_kernel[(tritium.cdiv(n, 128),)](x, y, out, n, BLOCK_SIZE=128)
    np.testing.assert_array_equal(out, x + y)  # wraps like numpy for the integer types


def test_grid_forms(rng):
    n = 1000
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    for grid in ((8,), [8], 8, (8, 1), (8, 1, 1), lambda meta: (tritium.cdiv(n, 128),)):
        out = poisoned_like(x)
        add_kernel[grid](x, y, out, n, 128)
        np.testing.assert_array_equal(out, x + y)


def test_empty_grid_launches_nothing(rng):
    x, y = rng.standard_normal((2, 64)).astype(np.float32)
    out = poisoned_like(x)
    add_kernel[(0,)](x, y, out, 64, BLOCK_SIZE=64)
    assert np.isnan(out).all()


def test_specializations_are_cached_apart(rng):
    # n = 1 (folded to a constant), divisible by 16, neither; then the first again.
    for n in (1, 1024, 1000, 1):
        x, y = rng.standard_normal((2, n)).astype(np.float32)
        out = poisoned_like(x)
        add_kernel[(tritium.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=256)
        np.testing.assert_array_equal(out, x + y)


@tritium.jit
def strided_copy(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride, mask=mask), mask=mask)


def test_non_contiguous_view_passes_its_extent(rng):
    base = rng.standard_normal(2 * 300).astype(np.float32)
    view = base[::2]  # 300 elements spread over 599: the buffer extent, not nbytes, counts
    out = poisoned_like(view)
    strided_copy[(3,)](view, out, 300, 2, BLOCK=128)
    np.testing.assert_array_equal(out, view)


def test_misaligned_view(rng):
    base = rng.standard_normal(1001).astype(np.float32)
    x = base[1:]  # 4 bytes past an aligned address
    y = rng.standard_normal(1000).astype(np.float32)
    assert add_kernel.signature(x, y, y, 1000, BLOCK_SIZE=128).startswith("*fp32, ")
    out = poisoned_like(y)
    add_kernel[(8,)](x, y, out, 1000, BLOCK_SIZE=128)
    np.testing.assert_array_equal(out, x + y)


class FakeDType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class FakeTensor:
    """What the binding reads of a tensor-like object: data_ptr(), dtype, nbytes."""

    def __init__(self, array):
        self.array = array
        self.dtype = FakeDType(array.dtype.name)
        self.nbytes = array.nbytes

    def data_ptr(self):
        return self.array.__array_interface__["data"][0]


class FakeDevice:
    def __init__(self, type):
        self.type = type


class FakeCudaArray:
    """A CuPy-like object (its pointer is host memory here: only signatures are taken)."""

    def __init__(self, array):
        interface = array.__array_interface__
        self.__cuda_array_interface__ = {"data": interface["data"], "typestr": interface["typestr"],
                                         "shape": interface["shape"], "strides": None,
                                         "version": 3}


def test_tensor_like_objects(rng):
    n = 500
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    out = poisoned_like(x)
    add_kernel[(4,)](FakeTensor(x), FakeTensor(y), FakeTensor(out), n, BLOCK_SIZE=128)
    np.testing.assert_array_equal(out, x + y)
    half = np.zeros(16, np.float16)
    signature = add_kernel.signature(FakeCudaArray(half), FakeTensor(half), half, 16,
                                     BLOCK_SIZE=16)
    assert signature.replace(":16", "").startswith("*fp16, *fp16, *fp16, i32")


def test_device_memory_is_never_dereferenced_by_the_interpreter(rng):
    # Device pointers reach the interpreter without a size, so it reports their use
    # instead of faulting (these fakes point at host memory; real ones would not).
    x, y = rng.standard_normal((2, 64)).astype(np.float32)
    out = np.full(64, np.nan, np.float32)
    on_gpu = FakeTensor(x)
    on_gpu.device = FakeDevice("cuda")
    for device_array in (on_gpu, FakeCudaArray(x)):
        with pytest.raises((tritium.CompilationError, tritium.LaunchError)):
            add_kernel[(1,)](device_array, y, out, 64, BLOCK_SIZE=64)
        assert np.isnan(out).all()
