"""tl.randint / randint4x / rand / rand4x / randn / randn4x and the Philox helpers
(issue 10, item 10): Triton's exact stream for the same seed and offsets. The reference is
an independent Philox-4x32-10 / 4x64-10 in numpy, itself checked against Random123's
published known-answer vectors; rand is also checked against the values Triton's own
tutorial printed on a GPU. The GPU runs these kernels in tests/gpu/test_gpu_random.py."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.language import randn4x

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
PHILOX = {  # bits -> (round multiplier A, B, key bump A, B): Random123's constants
    32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
    64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B),
}


def philox_ref(counters, key, bits=32, rounds=10):
    """Philox-4xW-rounds on python ints (elementwise over equal-length lists)."""
    mask = (1 << bits) - 1
    a, b, ka, kb = PHILOX[bits]
    out = []
    for c0, c1, c2, c3, k0, k1 in zip(*counters, *key):
        for _ in range(rounds):
            p0, p1 = a * c0, b * c2
            c0, c1, c2, c3 = (p1 >> bits) ^ c1 ^ k0, p1 & mask, (p0 >> bits) ^ c3 ^ k1, p0 & mask
            k0, k1 = (k0 + ka) & mask, (k1 + kb) & mask
        out.append((c0, c1, c2, c3))
    return [np.array(col, dtype=np.uint32 if bits == 32 else np.uint64) for col in zip(*out)]


def randint4x_ref(seed, offsets, rounds=10):
    """Triton 3.6's randint4x: Philox-4x32 on the counter (low 32 bits of the offset, its
    high 32 bits for a 64-bit offset else 0, 0, 0), the seed (as uint64) split into the key.
    (Before 3.6 a 64-bit offset ran Philox-4x64 on (offset, 0, 0, 0); tritium followed that
    until the Triton suite's test_randint showed the difference.)"""
    offsets = np.asarray(offsets)
    n = offsets.size
    s = int(seed) & M64
    wide = [int(x) for x in offsets.ravel().view(np.uint64 if offsets.dtype.itemsize == 8 else np.uint32)]
    c0 = [x & M32 for x in wide]
    c1 = [(x >> 32) & M32 for x in wide]
    key = ([s & M32] * n, [s >> 32] * n)
    cols = philox_ref((c0, c1, [0] * n, [0] * n), key, 32, rounds)
    return [c.reshape(offsets.shape) for c in cols]


def uniform_ref(x):
    """uint_to_uniform_float: signed view folded onto [0, 2^(w-1)), times the fp32 scale."""
    if x.dtype.itemsize == 4:
        s, scale = x.view(np.int32).astype(np.int64), np.float32(4.6566127342e-10)
    else:
        s, scale = x.view(np.int64), np.float32(1.0842020432385337e-19)
    s = np.where(s < 0, -s - 1, s)
    return s.astype(np.float32) * scale


def normal_ref(u1, u2):
    u1 = np.maximum(np.float32(1e-7), u1).astype(np.float64)
    th = 6.283185307179586 * u2.astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    return r * np.cos(th), r * np.sin(th)


def test_reference_matches_random123_known_answers():
    # Random123's kat_vectors for philox4x32_10 and philox4x64_10.
    kat32 = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
             ((M32,) * 4, (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
             ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
              (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for ctr, key, want in kat32:
        got = philox_ref([[c] for c in ctr], [[k] for k in key])
        assert [int(g[0]) for g in got] == list(want)
    got = philox_ref([[0]] * 4, [[0], [0]], bits=64)
    assert [int(g[0]) for g in got] == [0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B,
                                        0x7E68B68AEC7BA23B]


@tritium.jit
def randint4x_kernel(seed, offsets_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    offsets = tl.load(offsets_ptr + i)
    r0, r1, r2, r3 = tl.randint4x(seed, offsets)
    tl.store(out_ptr + i, r0)
    tl.store(out_ptr + N + i, r1)
    tl.store(out_ptr + 2 * N + i, r2)
    tl.store(out_ptr + 3 * N + i, r3)


@tritium.jit
def streams_kernel(seed, offsets_ptr, int_ptr, float_ptr, N: tl.constexpr, ROUNDS: tl.constexpr):
    i = tl.arange(0, N)
    offsets = tl.load(offsets_ptr + i)
    tl.store(int_ptr + i, tl.randint(seed, offsets, ROUNDS))
    tl.store(float_ptr + i, tl.rand(seed, offsets, n_rounds=ROUNDS))
    u0, u1, u2, u3 = tl.rand4x(seed, offsets, ROUNDS)
    tl.store(float_ptr + N + i, u0)
    tl.store(float_ptr + 2 * N + i, u1)
    tl.store(float_ptr + 3 * N + i, u2)
    tl.store(float_ptr + 4 * N + i, u3)
    tl.store(float_ptr + 5 * N + i, tl.randn(seed, offsets, ROUNDS))
    n0, n1, n2, n3 = randn4x(seed, offsets, ROUNDS)
    tl.store(float_ptr + 6 * N + i, n0)
    tl.store(float_ptr + 7 * N + i, n1)
    tl.store(float_ptr + 8 * N + i, n2)
    tl.store(float_ptr + 9 * N + i, n3)


SEEDS = [0, 1, 999, 2**31 - 1, 2**31 + 5, 2**40 + 123, -7]


def offsets_of(rng, n, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_randint4x_is_philox(rng, seed, dtype):
    n = 64
    offsets = offsets_of(rng, n, dtype)
    offsets[:4] = [0, 1, 2, 3]
    out_dtype = np.uint32 if np.dtype(dtype).itemsize == 4 else np.uint64
    out = np.zeros(4 * n, dtype=out_dtype)
    randint4x_kernel[(1,)](seed, offsets, out, N=n)
    for j, want in enumerate(randint4x_ref(seed, offsets)):
        np.testing.assert_array_equal(out[j * n:(j + 1) * n], want, err_msg=f"stream {j}")


@pytest.mark.parametrize("seed", [0, 12345, 2**33 + 1, -1])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("rounds", [10, 7])
def test_rand_randn_and_4x_streams(rng, seed, dtype, rounds):
    n = 128
    offsets = offsets_of(rng, n, dtype)
    ints = np.zeros(n, dtype=np.uint32 if np.dtype(dtype).itemsize == 4 else np.uint64)
    floats = np.zeros(10 * n, dtype=np.float32)
    streams_kernel[(1,)](seed, offsets, ints, floats, N=n, ROUNDS=rounds)
    r = randint4x_ref(seed, offsets, rounds)
    np.testing.assert_array_equal(ints, r[0])
    u = [uniform_ref(x) for x in r]
    # rand and rand4x are integer ops and one fp32 multiply: bit-exact.
    np.testing.assert_array_equal(floats[:n], u[0])
    for j in range(4):
        np.testing.assert_array_equal(floats[(1 + j) * n:(2 + j) * n], u[j])
    assert floats[:5 * n].min() >= 0 and floats[:5 * n].max() < 1
    # randn and randn4x go through log/sqrt/cos/sin: to fp32 precision.
    n0, n1 = normal_ref(u[0], u[1])
    n2, n3 = normal_ref(u[2], u[3])
    np.testing.assert_allclose(floats[5 * n:6 * n], n0, rtol=2e-5, atol=2e-5)
    for j, want in enumerate([n0, n1, n2, n3]):
        np.testing.assert_allclose(floats[(6 + j) * n:(7 + j) * n], want, rtol=2e-5, atol=2e-5)


@tritium.jit
def rand_init(out_ptr, n, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.rand(seed, offsets), mask=mask)


def test_rand_matches_the_values_triton_printed():
    # The random-number lesson of a Triton tutorial ran this kernel on a GPU and printed:
    printed = {999: [0.2196, 0.5715, 0.2051, 0.0709, 0.8743, 0.2240, 0.3336, 0.5628, 0.2430, 0.9592],
               777: [0.7059, 0.8081, 0.5869, 0.8980, 0.0776, 0.3504, 0.3932, 0.3695, 0.5784, 0.5037]}
    for seed, values in printed.items():
        out = np.zeros(10, dtype=np.float32)
        rand_init[(5,)](out, 10, seed=seed, BLOCK_SIZE=2)
        np.testing.assert_array_equal(np.round(out, 4), np.array(values, dtype=np.float32).round(4))


@tritium.jit
def philox_kernel(seed, c_ptr, out_ptr, ROUNDS: tl.constexpr):
    i = tl.arange(0, 4)
    c0 = tl.load(c_ptr + i * 4)
    c1 = tl.load(c_ptr + i * 4 + 1)
    c2 = tl.load(c_ptr + i * 4 + 2)
    c3 = tl.load(c_ptr + i * 4 + 3)
    a, b, c, d = tl.philox(seed, c0, c1, c2, c3, ROUNDS)
    tl.store(out_ptr + i * 4, a)
    tl.store(out_ptr + i * 4 + 1, b)
    tl.store(out_ptr + i * 4 + 2, c)
    tl.store(out_ptr + i * 4 + 3, d)


def test_philox_with_full_counters_gives_the_known_answers(rng):
    # Random123's third philox4x32_10 vector: key (0xa4093822, 0x299f31d0) is the seed
    # 0x299f31d0_a4093822 (low word first); other rows are random counters.
    seed = 0x299F31D0A4093822
    counters = rng.integers(0, 2**32, size=(4, 4), dtype=np.uint64).astype(np.uint32)
    counters[0] = [0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344]
    out = np.zeros((4, 4), dtype=np.uint32)
    philox_kernel[(1,)](seed, counters, out, ROUNDS=10)
    assert [int(x) for x in out[0]] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]
    cols = philox_ref([[int(x) for x in counters[:, j]] for j in range(4)],
                      ([seed & M32] * 4, [seed >> 32] * 4), rounds=10)
    np.testing.assert_array_equal(out, np.stack(cols, axis=1))


@tritium.jit
def scalar_and_2d_kernel(seed, out_ptr, i_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.rand(seed, offs))
    tl.store(i_ptr, tl.randint(seed, 5))                 # a constant offset: a scalar
    tl.store(i_ptr + 1, tl.randint(seed, tl.program_id(0) + 6))
    a, b = tl.pair_uniform_to_normal(tl.uint_to_uniform_float(tl.randint(seed, offs)), 0.25)
    tl.static_assert(a.shape == [M, N])


def test_scalar_and_2d_offsets():
    out = np.zeros((4, 8), dtype=np.float32)
    ints = np.zeros(2, dtype=np.uint32)
    scalar_and_2d_kernel[(1,)](77, out, ints, M=4, N=8)
    offs = np.arange(32, dtype=np.int32).reshape(4, 8)
    np.testing.assert_array_equal(out, uniform_ref(randint4x_ref(77, offs)[0]))
    np.testing.assert_array_equal(ints, randint4x_ref(77, np.array([5, 6], dtype=np.int32))[0])


def test_random_ir_uses_no_libdevice_for_32_bit_offsets():
    # The 32-bit high product is (zext * zext) >> 32, so no libdevice call is needed.
    ir = randint4x_kernel.emit("ir-opt", signature="i32, *i32:16, *u32:16, N=64")
    assert "extern" not in ir
    ptx = randint4x_kernel.emit("ptx", signature="i32, *i32:16, *u32:16, N=64", arch=90)
    assert "mul.hi.u32" in ptx and "__nv_" not in ptx


def compile_error(src, match, *args, **kwargs):
    import importlib.util
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "k_random_error.py")
    with open(path, "w") as f:
        f.write("import tritium\nimport tritium.language as tl\n" + src)
    spec = importlib.util.spec_from_file_location("k_random_error", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(tritium.CompilationError, match=match) as info:
        module.kernel[(1,)](*args, **kwargs)
    return str(info.value)


def test_errors_are_located():
    out = np.zeros(8, dtype=np.float32)
    msg = compile_error('''
@tritium.jit
def kernel(out_ptr, seed):
    offs = tl.arange(0, 8).to(tl.float32)
    tl.store(out_ptr + tl.arange(0, 8), tl.rand(seed, offs))
''', "offsets of a Philox generator must be integers", out, 3)
    assert "k_random_error.py:7:41: error" in msg  # the call, in the kernel's file
    compile_error('''
@tritium.jit
def kernel(out_ptr, seed, n):
    tl.store(out_ptr + tl.arange(0, 8), tl.rand(seed, tl.arange(0, 8), n))
''', "n_rounds of tl.rand must be a compile-time constant", out, 3, 5)
    compile_error('''
@tritium.jit
def kernel(out_ptr, seed):
    i = tl.arange(0, 8)
    a, b, c, d = tl.philox_impl(i, i, i, i, i, i)
    tl.store(out_ptr + i, a)
''', "dtype not supported in philox_impl", out, 3)
    compile_error('''
@tritium.jit
def kernel(out_ptr, seed):
    tl.store(out_ptr + tl.arange(0, 8), tl.uint_to_uniform_float(tl.load(out_ptr + tl.arange(0, 8))))
''', "uint_to_uniform_float needs int32, uint32, int64 or uint64", out, 3)


@tritium.jit
def umulhi_kernel(x_ptr, y_ptr, u_ptr, s_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(u_ptr + i, tl.umulhi(x, y))
    tl.store(s_ptr + i, tl.math.mulhi(x, y))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_umulhi_is_unsigned_and_mulhi_signed(rng, dtype):
    # Triton's tl.umulhi is the unsigned high half whatever the operands' signedness
    # (MulhiUIOp); libdevice's mulhi follows the operands' signedness.
    n = 64
    x, y = offsets_of(rng, n, dtype), offsets_of(rng, n, dtype)
    x[0], y[0] = -1, 2
    u, s = np.zeros(n, dtype=dtype), np.zeros(n, dtype=dtype)
    umulhi_kernel[(1,)](x, y, u, s, N=n)
    bits = 8 * np.dtype(dtype).itemsize
    mask = (1 << bits) - 1
    want_u = [((int(a) & mask) * (int(b) & mask)) >> bits for a, b in zip(x, y)]
    want_s = [(int(a) * int(b)) >> bits for a, b in zip(x, y)]
    udtype = np.uint32 if bits == 32 else np.uint64
    np.testing.assert_array_equal(u.view(udtype), np.array(want_u, dtype=udtype))
    np.testing.assert_array_equal(s, np.array(want_s, dtype=dtype))
    assert u[0] == 1 and s[0] == -1


def test_random_through_the_triton_names():
    # `from triton.language.random import ...` and `tl.random.<fn>` inside a kernel, as
    # Triton programs spell them (python -m tritium resolves `triton` to tritium).
    import sys
    from tritium import triton_alias
    if any(n == "triton" or n.startswith("triton.") for n in sys.modules):
        pytest.skip("a real triton is imported in this process")
    assert tritium.use_as_triton() is True
    try:
        import triton
        import triton.language as ttl
        from triton.language.random import philox  # noqa: F401

        @triton.jit
        def k(out_ptr, seed, N: ttl.constexpr):
            offs = ttl.arange(0, N)
            a, b, c, d = philox(seed, offs, offs * 0, offs * 0, offs * 0)
            ttl.store(out_ptr + offs, a ^ ttl.random.randint(seed, offs))  # equal streams: 0
            ttl.store(out_ptr + N + offs, ttl.random.randint(seed, offs))
        out = np.ones(32, dtype=np.uint32)
        k[(1,)](out, 9, N=16)
    finally:
        triton_alias.stop_using_as_triton()
    np.testing.assert_array_equal(out[:16], 0)
    np.testing.assert_array_equal(out[16:], randint4x_ref(9, np.arange(16, dtype=np.int32))[0])
