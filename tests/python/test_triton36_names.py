"""Names of Triton 3.6's language and package that tritium lacked (triton.language.__all__
and triton.__all__ compared name by name): tl.add / sub / mul, tl.reduce_or, tl.bitonic_merge,
`while tl.condition(...)`, tl.extra.cuda.convert_custom_float8_sm80 / _sm70 and the gdc /
utils submodules, tl.target_info (constexpr functions kernels call), and the host-side
classes (constexpr_type, slice, must_use_result, MockTensor, KernelInterface); and the tensor
methods Triton's tensor has that tritium's lacked (atomics, store, cdiv, item, logical_and,
logical_or). Run in the interpreter here; the GPU compiles the same IR."""

import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import tritium
import tritium.language as tl


def load(src, name="kernel"):
    path = os.path.join(tempfile.mkdtemp(), "k_names36.py")
    with open(path, "w") as f:
        f.write("import tritium\nimport tritium.language as tl\n" + src)
    spec = importlib.util.spec_from_file_location("k_names36", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_named_arithmetic():
    kernel = load('''
@tritium.jit
def kernel(x_ptr, y_ptr, o_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(o_ptr + i, tl.add(x, y))
    tl.store(o_ptr + N + i, tl.sub(x, y, sanitize_overflow=False))
    tl.store(o_ptr + 2 * N + i, tl.mul(x, 3, True))
''')
    x = np.array([5, -7, 2**30, 0], np.int32)
    y = np.array([1, 2, 2**30, -9], np.int32)
    o = np.zeros(12, np.int32)
    kernel[(1,)](x, y, o, N=4)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(o, np.concatenate([x + y, x - y, x * 3]))  # wrapping, as on the GPU


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64])
def test_reduce_or(rng, dtype):
    kernel = load('''
@tritium.jit
def kernel(x_ptr, o_ptr, r_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(o_ptr + tl.arange(0, M), tl.reduce_or(x, 1))
    tl.store(r_ptr + tl.arange(0, N)[None, :], x.reduce_or(axis=0, keep_dims=True))
''')
    bits = np.iinfo(dtype).bits
    x = (np.int64(1) << rng.integers(0, bits - 1, (4, 8))).astype(dtype)
    o = np.zeros(4, dtype)
    r = np.zeros(8, dtype)
    kernel[(1,)](x, o, r, M=4, N=8)
    np.testing.assert_array_equal(o, np.bitwise_or.reduce(x, axis=1))
    np.testing.assert_array_equal(r, np.bitwise_or.reduce(x, axis=0))


def test_reduce_or_of_floats_is_an_error():
    kernel = load('''
@tritium.jit
def kernel(x_ptr):
    tl.store(x_ptr, tl.reduce_or(tl.load(x_ptr + tl.arange(0, 4)), 0))
''')
    with pytest.raises(tritium.CompilationError, match="reduce_or only supported for integers"):
        kernel[(1,)](np.zeros(4, np.float32))


@pytest.mark.parametrize("descending", [False, True, 0, 1])
@pytest.mark.parametrize("n", [2, 16, 64])
def test_bitonic_merge_sorts_a_bitonic_sequence(rng, descending, n):
    """Each row: its first half ascending, its second descending (a bitonic sequence); one
    merge sorts it, as the last stage of Triton's bitonic sort."""
    kernel = load('''
@tritium.jit
def kernel(x_ptr, o_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, 4)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(o_ptr + offs, tl.bitonic_merge(tl.load(x_ptr + offs), descending=DESCENDING))
''')
    half = rng.standard_normal((4, n // 2)).astype(np.float32)
    other = rng.standard_normal((4, n // 2)).astype(np.float32)
    x = np.ascontiguousarray(np.concatenate([np.sort(half, 1), -np.sort(-other, 1)], axis=1))
    o = np.zeros_like(x)
    kernel[(1,)](x, o, N=n, DESCENDING=descending)
    expected = np.sort(x, axis=1)
    np.testing.assert_array_equal(o, expected[:, ::-1] if descending else expected)


def test_bitonic_merge_only_along_the_last_dim():
    kernel = load('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :], tl.bitonic_merge(x, dim=0))
''')
    with pytest.raises(tritium.CompilationError, match="only minor dimension is currently supported"):
        kernel[(1,)](np.zeros(16, np.float32))


def test_while_condition():
    kernel = load('''
@tritium.jit
def kernel(o_ptr, n):
    i = 0
    total = 0
    while tl.condition(i < n, disable_licm=True):
        total += i * i
        i += 1
    tl.store(o_ptr, total)
''')
    o = np.zeros(1, np.int64)
    kernel[(1,)](o, 9)
    assert o[0] == sum(i * i for i in range(9))


def e4b15_values():
    """Every finite fp8e4b15 value (sign, 4 exponent bits of bias 15, 3 mantissa bits)."""
    out = []
    for e in range(16):
        for m in range(8):
            out.append((m / 8) * 2.0**-14 if e == 0 else (1 + m / 8) * 2.0**(e - 15))
    values = np.array(out)
    return np.concatenate([-values[::-1], values])


def test_convert_custom_float8(rng):
    kernel = load('''
@tritium.jit
def kernel(x_ptr, o_ptr, h_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    down = tl.extra.cuda.convert_custom_float8_sm80(x, tl.float8e4b15)
    tl.static_assert(down.dtype == tl.float8e4b15)
    tl.store(o_ptr + i, tl.extra.cuda.convert_custom_float8_sm80(down, tl.float32))
    half = tl.extra.cuda.utils.convert_custom_float8_sm70(x.to(tl.float16), tl.float8e4b15)
    tl.store(h_ptr + i, tl.extra.cuda.convert_custom_float8_sm70(half, tl.float16))
''')
    grid = e4b15_values()
    # Values exact in fp16 (so fp32 -> fp16 rounds nothing) and never halfway between two
    # e4b15 values: the nearest one is the answer either way.
    mids = (grid[1:] + grid[:-1]) / 2
    x = rng.uniform(-1.8, 1.8, 64).astype(np.float16).astype(np.float32)
    x = x[np.min(np.abs(x[:, None] - mids[None, :]), axis=1) > 1e-3][:32]
    o = np.zeros_like(x)
    h = np.zeros(len(x), np.float16)
    kernel[(1,)](x, o, h, N=len(x))
    nearest = grid[np.argmin(np.abs(x[:, None] - grid[None, :]), axis=1)]
    np.testing.assert_array_equal(o, nearest.astype(np.float32))
    np.testing.assert_array_equal(h, nearest.astype(np.float16))


def test_convert_custom_float8_refuses_other_types():
    kernel = load('''
@tritium.jit
def kernel(x_ptr):
    tl.store(x_ptr, tl.extra.cuda.convert_custom_float8_sm80(tl.load(x_ptr), tl.float8e4b15).to(tl.int32))
''')
    with pytest.raises(tritium.CompilationError, match="converts fp8e4b15 to a wider float"):
        kernel[(1,)](np.zeros(1, np.int32))


def test_gdc_and_utils_submodules():
    kernel = load('''
@tritium.jit
def kernel(o_ptr):
    tl.extra.cuda.gdc.gdc_wait()
    tl.store(o_ptr, tl.extra.cuda.utils.num_threads())
    tl.extra.cuda.gdc.gdc_launch_dependents()
''')
    o = np.zeros(1, np.int32)
    kernel[(1,)](o, num_warps=2)
    assert o[0] == 64


TARGET_INFO = '''
import numpy as np
import tritium
tritium.use_as_triton()
import triton
import triton.language as tl
import triton.language.target_info as ti
from triton.language.target_info import cuda_capability_geq


@triton.jit
def kernel(o_ptr):
    tl.store(o_ptr, 90 if cuda_capability_geq(9, 0) else 1)
    if tl.target_info.is_cuda():
        tl.store(o_ptr + 1, 7)
    if ti.is_hip():
        tl.store(o_ptr + 2, 5)


o = np.zeros(3, np.int32)
kernel[(1,)](o)
target = ti.current_target()
print(" ".join(str(int(v)) for v in o), "|", target.arch)
'''


def test_target_info_in_kernels(tmp_path):
    """The constexpr functions of triton.language.target_info, called through the module
    (`tl.target_info.is_cuda()`, an alias) or imported by name."""
    (tmp_path / "prog.py").write_text(TARGET_INFO)
    env = dict(os.environ, TRITIUM_INTERPRET="1")
    done = subprocess.run([sys.executable, str(tmp_path / "prog.py")], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    values, arch = done.stdout.split("|")
    expected_geq = 90 if int(arch) >= 90 else 1
    assert values.split() == [str(expected_geq), "7", "0"]


def test_host_side_names():
    assert tl.constexpr_type(3) == tl.constexpr_type(3) and repr(tl.constexpr_type(3)) == "constexpr_type[3]"
    s = tl.slice(1, 8, 2)
    assert (s.start, s.stop, s.step) == (1, 8, 2)

    @tritium.must_use_result("the sum is the point")
    def f():
        pass
    assert f._must_use_result == "the sum is the point"
    assert tritium.must_use_result(f, True)._must_use_result is True
    m = tritium.MockTensor("float32", [4, 5])
    assert m.stride() == (5, 1) and m.data_ptr() == 0 and tritium.MockTensor(np.float32).shape == [1]
    assert issubclass(tritium.JITFunction, tritium.KernelInterface)
    assert tritium.InterpreterError is tritium.CompilationError
    assert tritium.tools.__name__ == "tritium.tools"
    with pytest.raises(RuntimeError):
        tl.bitonic_merge(None)


def test_tensor_methods():
    kernel = load('''
@tritium.jit
def kernel(x_ptr, o_ptr, c_ptr):
    i = tl.arange(0, 4)
    x = tl.load(x_ptr + i)
    (o_ptr + i).atomic_add(x)
    (o_ptr + 4 + i).atomic_max(x * 2, mask=i < 3)
    old = (c_ptr + i).atomic_cas(x, x + 10)
    (o_ptr + 8 + i).store(x.cdiv(3) * 100 + old)
    both = (x > 0).logical_and(x < 3).to(tl.int32)
    either = (x == 0).logical_or(x == 3).to(tl.int32)
    tl.store(o_ptr + 12 + i, both * 10 + either)
    tl.store(o_ptr + 16, tl.sum(x, 0).item() + tl.load(x_ptr + 1 + tl.zeros((1, 1), tl.int32)).item())
''')
    x = np.array([0, 1, 2, 3], np.int32)
    o = np.zeros(17, np.int32)
    o[4:8] = 3
    c = np.array([0, 5, 2, 7], np.int32)
    kernel[(1,)](x, o, c)
    np.testing.assert_array_equal(o[:4], x)
    np.testing.assert_array_equal(o[4:8], [3, 3, 4, 3])
    np.testing.assert_array_equal(c, [10, 5, 12, 7])  # swapped where c equalled x
    np.testing.assert_array_equal(o[8:12], (x + 2) // 3 * 100 + np.array([0, 5, 2, 7]))
    np.testing.assert_array_equal(o[12:16], [1, 10, 10, 1])
    assert o[16] == 6 + 1


def test_method_errors():
    kernel = load('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(x_ptr, x.item())
''')
    with pytest.raises(tritium.CompilationError, match="can only unsplat single-element tensors"):
        kernel[(1,)](np.zeros(4, np.int32))
    kernel = load('''
@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(x_ptr + tl.arange(0, 4), x.logical_and(x > 0).to(tl.int32))
''')
    with pytest.raises(tritium.CompilationError, match="Cannot bitcast data-type of size 32 to data-type of size 1"):
        kernel[(1,)](np.zeros(4, np.int32))


def test_device_figures(monkeypatch):
    """triton.testing's roofline helpers from the device's properties (H100-like numbers
    given here: 132 SMs, a 1.98 GHz clock, HBM3 at 2.619 GHz on a 5120-bit bus)."""
    import tritium.testing as testing
    props = {"multiprocessor_count": 132, "mem_clock_rate": 2619000, "mem_bus_width": 5120}
    monkeypatch.setattr(testing, "_properties", lambda device: props)
    monkeypatch.setattr(testing, "_capability", lambda device: (9, 0))
    assert testing.get_dram_gbps() == pytest.approx(2619000 * 5120 * 2 / 1e6 / 8)
    clock = 1980000  # kHz
    assert testing.get_max_tensorcore_tflops(tl.float16, clock) == pytest.approx(132 * 4 * 512 * clock * 1e-9)
    assert testing.get_max_tensorcore_tflops(tl.float8e4nv, clock) == pytest.approx(132 * 4 * 1024 * clock * 1e-9)
    assert testing.get_max_simd_tflops(tl.float32, clock) == pytest.approx(132 * 4 * 32 * clock * 1e-9)
    with pytest.raises(RuntimeError, match="dtype not supported"):
        testing.get_max_tensorcore_tflops(tl.float64, clock)
    monkeypatch.undo()
    if not os.environ.get("CUDA_VISIBLE_DEVICES") and tritium.testing._properties(None)["mem_clock_rate"] == 0:
        assert tritium.testing.get_dram_gbps() == 0  # the interpreter's properties: no DRAM figure


def test_runtime_and_tools_names():
    import tritium.runtime
    from tritium.tools.tensor_descriptor import validate_block_shape
    assert tritium.runtime.errors.CompilationError is tritium.CompilationError
    assert tritium.runtime.InterpreterError is tritium.InterpreterError
    assert validate_block_shape([16, 8]) == 128
    with pytest.raises(ValueError, match="Shape element 1 must be a power of 2"):
        validate_block_shape([16, 12])


MAP_SOURCE = '''
@tritium.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@tritium.jit
def digits(n):
    count = 0
    while n > 0:
        n = n // 10
        count += 1
    return count, n


@tritium.jit
def kernel(x_ptr, n_ptr, o_ptr, d_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    tl.store(o_ptr + rows * N + cols, tl.map_elementwise(selu_scalar, x, 1.5))
    # Inputs of different shapes broadcast: [M, 1] and [1, N].
    count, rest = tl.map_elementwise(digits, tl.load(n_ptr + rows) + cols * 0, )
    tl.store(d_ptr + rows * N + cols, count * 100 + rest + cols)
'''


def test_map_elementwise(rng):
    """Triton 3.6's tl.map_elementwise: a @jit function on each element, with its own
    branches and loops; several results as a tuple; inputs broadcast."""
    kernel = load(MAP_SOURCE)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    n = np.array([0, 7, 12345, 999999], np.int32)
    o = np.zeros_like(x)
    d = np.zeros((4, 8), np.int32)
    kernel[(1,)](x, n, o, d, M=4, N=8)
    np.testing.assert_allclose(o, np.where(x > 0, x, 1.5 * (np.exp(x) - 1)), rtol=1e-6, atol=1e-6)
    counts = np.array([len(str(v)) if v else 0 for v in n])
    np.testing.assert_array_equal(d, counts[:, None] * 100 + np.arange(8)[None, :])


PACK_SOURCE = '''
@tritium.jit
def divmod2(a0, a1, b0, b1):
    # pack=2: both inputs' two elements in turn, both outputs' two values in turn.
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@tritium.jit
def reverse4(x0, x1, x2, x3):
    # Not elementwise: pins which elements share a call (aligned runs of 4, row-major).
    return x3, x2, x1, x0


@tritium.jit
def steps2(n0, n1):
    # A loop per call, on two elements at once: the trip count is the larger one's.
    s0 = 0
    s1 = 0
    while n0 > 0 or n1 > 0:
        if n0 > 0:
            s0 += 1
        if n1 > 0:
            s1 += 1
        n0 = n0 // 2
        n1 = n1 // 2
    return s0, s1


@tritium.jit
def kernel(a_ptr, b_ptr, q_ptr, r_ptr, x_ptr, y_ptr, s_ptr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + i)
    q, r = tl.map_elementwise(divmod2, a, tl.load(b_ptr + i), pack=2)
    tl.store(q_ptr + i, q)
    tl.store(r_ptr + i, r)
    # One output: still a tuple, as Triton's (the function returns `pack` values).
    tl.store(y_ptr + i, tl.map_elementwise(reverse4, tl.load(x_ptr + i), pack=4)[0])
    tl.store(s_ptr + i, tl.map_elementwise(steps2, a, pack=2)[0])
'''


def test_map_elementwise_pack(rng):
    """Triton 3.6's tl.map_elementwise(pack=P): one call on P elements, the function taking P
    values per input and returning P per output; the interpreter groups aligned runs of P in
    row-major order."""
    kernel = load(PACK_SOURCE)
    a = rng.integers(0, 1000, (4, 8)).astype(np.int32)
    b = rng.integers(1, 20, (4, 8)).astype(np.int32)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    q, r, y, s = np.zeros_like(a), np.zeros_like(a), np.zeros_like(x), np.zeros_like(a)
    kernel[(1,)](a, b, q, r, x, y, s, M=4, N=8)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)
    np.testing.assert_array_equal(y, x.reshape(-1, 4)[:, ::-1].reshape(4, 8))
    np.testing.assert_array_equal(s, np.array([int(v).bit_length() for v in a.ravel()]).reshape(4, 8))


@pytest.mark.parametrize("body,match", [
    ("tl.map_elementwise(first, x, pack=2)", "with pack=2 returned 1 values; it returns 2 per output"),
    ("tl.map_elementwise(twice, x, pack=2)", r"twice\(\) takes 1 arguments but 2 were given"),
    ("tl.map_elementwise(mixed, x, pack=2)[0]", "type mismatch in unpacked results"),
    ("tl.map_elementwise(pairwise, x, pack=3)[0]", "pack must be a power of two up to 64"),
    ("tl.map_elementwise(pairwise, x, pack=0)[0]", "pack must be at least 1"),
    ("tl.map_elementwise(twice4, x, pack=8)[0]", "with pack=8 needs at least 8 elements, got a block of 4"),
    ("x + tl.map_elementwise(pairwise, 1.0, 2.0, pack=2)[0]", "with pack=2 needs a block input"),
    ("tl.map_elementwise(stores, x)", "may not have side effects"),
    ("tl.map_elementwise(tl.exp, x)", "must be a @triton.jit function"),
    ("tl.map_elementwise(widen, x)", "returned a block"),
])
def test_map_elementwise_errors(body, match):
    kernel = load(f'''
@tritium.jit
def twice(x):
    return x * 2


@tritium.jit
def stores(x):
    tl.store(tl.full((), 0, tl.int64).to(tl.pointer_type(tl.float32)), x)
    return x


@tritium.jit
def widen(x):
    return tl.zeros((4,), tl.float32) + x


@tritium.jit
def first(x0, x1):
    return x0


@tritium.jit
def mixed(x0, x1):
    return x0, x1.to(tl.int32)


@tritium.jit
def pairwise(x0, x1, y0=0.0, y1=0.0):
    return x0 + y0, x1 + y1


@tritium.jit
def twice4(x0, x1, x2, x3, x4, x5, x6, x7):
    return x0, x1, x2, x3, x4, x5, x6, x7


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(x_ptr + tl.arange(0, 4), {body})
''')
    with pytest.raises(tritium.CompilationError, match=match):
        kernel[(1,)](np.zeros(4, np.float32))


@pytest.mark.parametrize("mark,message", [("@tritium.must_use_result", "The result of total is not being used.\\n"),
                                          ('@tritium.must_use_result("It is the sum.")',
                                           "The result of total is not being used. It is the sum.")])
def test_must_use_result_is_enforced(mark, message):
    src = f'''
{mark}
@tritium.jit
def total(x):
    return tl.sum(x, 0)


@tritium.jit
def dropped(x_ptr):
    total(tl.load(x_ptr + tl.arange(0, 4)))


@tritium.jit
def used(x_ptr):
    tl.store(x_ptr, total(tl.load(x_ptr + tl.arange(0, 4))))
'''
    x = np.ones(4, np.float32)
    load(src, name="used")[(1,)](x)
    assert x[0] == 4
    with pytest.raises(tritium.CompilationError, match=message) as info:
        load(src, name="dropped")[(1,)](x)
    # The call statement's line in the written file (load adds two import lines first).
    assert info.value.line == 2 + src.splitlines().index("    total(tl.load(x_ptr + tl.arange(0, 4)))") + 1
