"""Triton's eleven tutorials, as tritium runs them in the interpreter: the programs of
tests/python/triton_programs/tutorial_*.py (tritium's own kernels using the language and
host features each tutorial uses, written against `import triton`) on small shapes,
checked against numpy. The second half pins the features the tutorials needed one by one.
tests/gpu/test_gpu_tutorials.py runs the same programs on the GPU."""

import importlib
import math
import pathlib
import sys

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium import triton_alias

PROGRAMS = pathlib.Path(__file__).resolve().parent / "triton_programs"
NAMES = ["tutorial_01_vector_add", "tutorial_02_fused_softmax", "tutorial_03_matmul", "tutorial_04_dropout",
         "tutorial_05_layer_norm", "tutorial_06_fused_attention", "tutorial_07_libdevice",
         "tutorial_08_grouped_gemm", "tutorial_09_persistent_matmul", "tutorial_10_block_scaled_matmul",
         "tutorial_11_pdl"]


def load_programs():
    """The tutorial modules, imported with `triton` resolving to tritium; the alias is
    removed again afterwards (the modules keep what they imported)."""
    if any(n == "triton" or n.startswith("triton.") for n in sys.modules
           if not getattr(sys.modules[n], "__tritium__", False)
           and not sys.modules[n].__name__.startswith("tritium")):
        pytest.skip("a real triton is imported in this process", allow_module_level=True)
    tritium.use_as_triton()
    sys.path.insert(0, str(PROGRAMS))
    try:
        return {name.split("_", 2)[1]: importlib.import_module(name) for name in NAMES}
    finally:
        sys.path.remove(str(PROGRAMS))
        triton_alias.stop_using_as_triton()


T = load_programs()


def close(got, want, atol, rtol):
    np.testing.assert_allclose(np.asarray(got, np.float64), want, atol=atol, rtol=rtol)


# -- the tutorials -----------------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 1000, 4099])
def test_01_vector_add(rng, size):
    a = rng.random(size, dtype=np.float32)
    b = rng.random(size, dtype=np.float32)
    np.testing.assert_array_equal(T["01"].vector_add(a, b), a + b)


@pytest.mark.parametrize("rows,cols", [(300, 181), (5, 1024), (70, 33)])
def test_02_fused_softmax(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32) * 3
    y, programs = T["02"].softmax(x)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    close(y, e / e.sum(1, keepdims=True), 1e-6, 1e-5)
    # The interpreter's nominal device: 4 SMs x 16 programs, so 300 rows loop.
    assert programs == min(rows, 64)


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
@pytest.mark.parametrize("M,N,K", [(64, 192, 50), (128, 64, 96)])
def test_03_matmul(rng, M, N, K, activation):
    """M and N are multiples of every config's block: the tutorial's tl.max_contiguous hint
    on `offsets % M` is true only then (TRITIUM_CHECK_AXIS, set for this suite, checks
    every hint against the values); K is ragged."""
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    if activation:
        want = np.where(want >= 0, want, 0.01 * want)
    c = T["03"].matmul(a, b, activation)
    assert c.dtype == np.float16
    close(c, want, 2e-2, 2e-3)


def test_04_dropout_with_mask(rng):
    x = rng.standard_normal(1500).astype(np.float32)
    keep = (rng.random(1500) > 0.3).astype(np.int8)
    close(T["04"].masked_dropout(x, keep, 0.3), np.where(keep != 0, x / 0.7, 0.0), 1e-6, 1e-6)


def test_04_seeded_dropout(rng):
    x = rng.random(5000).astype(np.float32) + 0.5  # never 0: a zero output means dropped
    first = T["04"].seeded_dropout(x, 0.25, seed=1234)
    np.testing.assert_array_equal(first, T["04"].seeded_dropout(x, 0.25, seed=1234))
    other = T["04"].seeded_dropout(x, 0.25, seed=99)
    assert not np.array_equal(first != 0, other != 0)
    kept = first != 0
    assert 0.2 < 1 - kept.mean() < 0.3
    close(first[kept], x[kept] / 0.75, 1e-6, 1e-6)


@pytest.mark.parametrize("rows,cols", [(17, 300), (64, 1024), (3, 70)])
def test_05_layer_norm_forward_and_backward(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    dy = rng.standard_normal((rows, cols)).astype(np.float32)
    y, mean, rstd, block, warps = T["05"].forward(x, w, b)
    x64 = x.astype(np.float64)
    mu = x64.mean(1, keepdims=True)
    inv = 1 / np.sqrt(x64.var(1, keepdims=True) + 1e-5)
    xhat = (x64 - mu) * inv
    close(y, xhat * w + b, 1e-5, 1e-5)
    close(mean, mu[:, 0], 1e-6, 1e-6)
    close(rstd, inv[:, 0], 1e-5, 1e-5)
    dx, dw, db = T["05"].backward(dy, x, w, mean, rstd, block, warps)
    wdy = w * dy.astype(np.float64)
    want_dx = inv * (wdy - xhat * (wdy * xhat).mean(1, keepdims=True) - wdy.mean(1, keepdims=True))
    close(dx, want_dx, 1e-4, 1e-4)
    close(dw, (dy * xhat).sum(0), 1e-4, 1e-4)
    close(db, dy.sum(0, dtype=np.float64), 1e-4, 1e-4)


def attention_reference(q, k, v, do, causal, scale):
    q, k, v, do = (t.astype(np.float64) for t in (q, k, v, do))
    s = scale * q @ k.swapaxes(-1, -2)
    n = s.shape[-1]
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    dp = do @ v.swapaxes(-1, -2)
    ds = p * (dp - (do * o).sum(-1, keepdims=True))
    return o, scale * ds @ k, scale * ds.swapaxes(-1, -2) @ q, p.swapaxes(-1, -2) @ do


@pytest.mark.parametrize("host_descriptors", [True, False])
@pytest.mark.parametrize("causal", [False, True])
def test_06_fused_attention(rng, causal, host_descriptors):
    Z, H, n, d = 1, 2, 64, 32
    q, k, v = (rng.standard_normal((Z, H, n, d)).astype(np.float16) * 0.5 for _ in range(3))
    do = rng.standard_normal((Z, H, n, d)).astype(np.float16)
    scale = 0.35
    want_o, want_dq, want_dk, want_dv = attention_reference(q, k, v, do, causal, scale)
    o, lse = T["06"].forward(q, k, v, causal, scale, host_descriptors=host_descriptors,
                             warp_specialize=not host_descriptors)
    close(o, want_o, 2e-3, 1e-2)
    dq, dk, dv = T["06"].backward(q, k, v, o, lse, do, causal, scale)
    close(dq, want_dq, 5e-3, 2e-2)
    close(dk, want_dk, 5e-3, 2e-2)
    close(dv, want_dv, 5e-3, 2e-2)


def test_07_libdevice(rng):
    x = rng.random(3000).astype(np.float32) * 2 - 1
    close(T["07"].asin(x), np.arcsin(x.astype(np.float64)), 1e-6, 1e-6)
    close(T["07"].asin(x, extern_libs={"libdevice": "/any/libdevice.10.bc"}), np.arcsin(x.astype(np.float64)),
          1e-6, 1e-6)
    close(T["07"].asin_plus_acos(x), np.full(x.shape, np.pi / 2), 1e-6, 1e-6)


def test_08_grouped_gemm(rng):
    shapes = [(64, 96, 32), (32, 32, 64), (128, 64, 96), (32, 64, 32)]
    a = [rng.standard_normal((m, k)).astype(np.float16) for m, n, k in shapes]
    b = [rng.standard_normal((k, n)).astype(np.float16) for m, n, k in shapes]
    for x, y, c in zip(a, b, T["08"].grouped_matmul(a, b)):
        close(c, x.astype(np.float64) @ y.astype(np.float64), 2e-2, 2e-3)


@pytest.mark.parametrize("form", ["pointers", "host descriptors", "device descriptors"])
@pytest.mark.parametrize("subtile", [False, True])
def test_09_persistent_matmul(rng, form, subtile):
    if form == "pointers" and subtile:
        pytest.skip("the pointer form has no epilogue subtiling (as in the tutorial)")
    M, N, K = 96, 160, 80
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    t = T["09"]
    if form == "pointers":
        c = t.matmul(a, b, flatten=True)
    elif form == "host descriptors":
        c = t.matmul_tma(a, np.ascontiguousarray(b.T), epilogue_subtile=subtile)
    else:
        c = t.matmul_descriptor(a, np.ascontiguousarray(b.T), epilogue_subtile=subtile, warp_specialize=True)
    close(c, a.astype(np.float64) @ b.astype(np.float64), 2e-2, 2e-3)


@pytest.mark.parametrize("formats", [("e4m3", "e4m3"), ("e2m1", "e2m1"), ("e4m3", "e2m1")])
def test_10_block_scaled_matmul(rng, formats):
    t = T["10"]
    M, N, K = 128, 256, 256
    a, a_values = t.random_operand(rng, M, K, formats[0])
    b, b_values = t.random_operand(rng, N, K, formats[1])
    sa, sa_values = t.random_scales(rng, M, K)
    sb, sb_values = t.random_scales(rng, N, K)
    out = t.block_scaled_matmul(a, sa, b, sb, M, N, K, *formats)
    close(out, t.reference(a_values, sa_values, b_values, sb_values), 1e-2, 1e-3)


@pytest.mark.parametrize("pdl", [True, False])
def test_11_programmatic_dependent_launch(rng, pdl):
    """In the interpreter gdc_wait / gdc_launch_dependents are no-ops (kernels run one after
    the other); the overlap itself needs a GPU (tests/gpu/test_gpu_tutorials.py)."""
    a = rng.random(5000, dtype=np.float32)
    b = rng.random(5000, dtype=np.float32)
    np.testing.assert_array_equal(T["11"].chained(a, b, launch_pdl=pdl), (a + b) + b)


# -- the features the tutorials needed ---------------------------------------------------------

@tritium.jit
def stage_count_kernel(out_ptr, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    total = tl.zeros([BLOCK], dtype=tl.int32)
    for _ in tl.range(0, 3, num_stages=num_stages):
        total += num_stages
    tl.store(out_ptr + tl.arange(0, BLOCK), total)


@pytest.mark.parametrize("how", ["launch", "warmup", "run"])
def test_num_stages_is_both_a_parameter_and_the_launch_option(how):
    out = np.zeros(8, np.int32)
    if how == "launch":
        handle = stage_count_kernel[(1,)](out, BLOCK=8, num_stages=2)
    elif how == "run":
        handle = stage_count_kernel.run(out, BLOCK=8, num_stages=2, grid=(1,))
    else:
        handle = stage_count_kernel.warmup(out, BLOCK=8, num_stages=2, grid=(1,))
        handle[(1,)](out, 8, 2)
    np.testing.assert_array_equal(out, 6)
    assert handle.metadata.num_stages == 2
    assert "num_stages=2" in handle.signature


def test_compiled_kernel_launches_with_its_options():
    out = np.zeros(8, np.int32)
    compiled = stage_count_kernel.warmup(out, BLOCK=8, num_stages=4, num_warps=2, grid=(1,))
    compiled._init_handles()
    compiled._init_handles()
    assert compiled.metadata.num_warps == 2 and compiled.n_regs is None  # no registers here
    returned = compiled[(1, 1, 1)](out, 8, 4)
    np.testing.assert_array_equal(out, 12)
    assert returned is compiled
    with pytest.raises(tritium.TritonError, match="num_stages"):
        compiled[(1,)](out, 8)


@tritium.jit
def _offset_by(values, SHIFT: tl.constexpr):
    return values + SHIFT


@tritium.jit
def helper_constexpr_kernel(out_ptr):
    i = tl.arange(0, 16)
    tl.store(out_ptr + i, _offset_by(i, i * 2) + _offset_by(i, 100))


def test_helper_constexpr_parameter_takes_a_tensor():
    out = np.zeros(16, np.int32)
    helper_constexpr_kernel[(1,)](out)
    i = np.arange(16)
    np.testing.assert_array_equal(out, (i + 2 * i) + (i + 100))


@tritium.jit
def gdc_kernel(x_ptr, y_ptr, USE: tl.constexpr):
    i = tl.arange(0, 128)
    if USE:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + i)
    if USE:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(y_ptr + i, x * 2)


def test_gdc_lowers_to_griddepcontrol():
    ptx = gdc_kernel.emit("ptx", signature="*fp32:16, *fp32:16, USE=1", arch=90)
    lines = [line.strip() for line in ptx.splitlines()]
    wait = lines.index("griddepcontrol.wait;")
    launch = lines.index("griddepcontrol.launch_dependents;")
    load = next(n for n, line in enumerate(lines) if line.startswith("ld.global"))
    assert wait < load < launch
    assert "griddepcontrol" not in gdc_kernel.emit("ptx", signature="*fp32:16, *fp32:16, USE=0", arch=90)
    # No programmatic dependent launch before sm_90: nothing to wait for.
    assert "griddepcontrol" not in gdc_kernel.emit("ptx", signature="*fp32:16, *fp32:16, USE=1", arch=80)
    x = np.arange(128, dtype=np.float32)
    y = np.zeros_like(x)
    gdc_kernel[(1,)](x, y, USE=True, launch_pdl=True)
    np.testing.assert_array_equal(y, 2 * x)


def test_gdc_takes_no_arguments():
    @tritium.jit
    def bad(x_ptr):
        tl.extra.cuda.gdc_wait(1)

    with pytest.raises(tritium.CompilationError, match=r"gdc_wait\(\) takes no arguments"):
        bad[(1,)](np.zeros(1, np.float32))


def test_set_allocator():
    calls = []
    tritium.set_allocator(lambda size, alignment, stream: calls.append(size))
    from tritium import driver
    assert driver.get_allocator() is not None
    with pytest.raises(TypeError, match="callable"):
        tritium.set_allocator(42)
    tritium.set_allocator(None)
    assert driver.get_allocator() is None
    assert tritium.runtime.set_allocator is tritium.set_allocator


def test_driver_answers_the_tutorials_questions():
    from tritium.driver import INTERPRETER_PROPERTIES
    props = tritium.runtime.driver.active.utils.get_device_properties(0)
    assert props == INTERPRETER_PROPERTIES
    for key in ("max_shared_mem", "max_num_regs", "multiprocessor_count", "warpSize"):
        assert props[key] > 0
    target = tritium.runtime.driver.active.get_current_target()
    assert (target.backend, target.arch, target.warp_size) == ("cuda", 0, 32)


def test_triton_runtime_driver_module_and_object_agree():
    had = [n for n in sys.modules if n == "triton" or n.startswith("triton.")]
    if had:
        pytest.skip("triton modules are imported in this process")
    tritium.use_as_triton()
    try:
        import triton
        import triton.runtime.driver
        from triton.runtime.driver import driver
        assert triton.runtime.driver.active.get_current_target().backend == "cuda"
        assert driver.active.utils.get_device_properties(0)["warpSize"] == 32
    finally:
        triton_alias.stop_using_as_triton()


def test_numpy_strides_and_itemsize():
    x = np.zeros((3, 5, 4), np.float16)[:, ::2]
    wrapped = tritium.TensorWrapper(x, tl.float16)
    assert wrapped.stride() == (20, 8, 1)
    assert wrapped.stride(1) == 8
    assert (tl.float16.itemsize, tl.float32.itemsize, tl.int64.itemsize, tl.float8e4nv.itemsize) == (2, 4, 8, 1)


@tritium.jit
def gather_through_addresses(addresses, out_ptr, BLOCK: tl.constexpr):
    which = tl.program_id(0)
    source = tl.load(addresses + which).to(tl.pointer_type(tl.float32))
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + which * BLOCK + i, tl.load(source + i) * 10)


def test_pointers_made_from_registered_host_addresses(rng):
    blocks = [rng.random(16, dtype=np.float32) for _ in range(3)]
    addresses = np.array(tritium.register_host_memory(*blocks), np.int64)
    assert addresses[1] == blocks[1].ctypes.data
    out = np.zeros(48, np.float32)
    gather_through_addresses[(3,)](addresses, out, BLOCK=16)
    np.testing.assert_array_equal(out, np.concatenate(blocks) * 10)


def test_unregistered_host_address_is_a_clear_error():
    # Large enough to be mapped on its own, far from the arguments: the hint is given for an
    # address at least 64 KiB away from every known block.
    hidden = np.ones(1 << 20, np.float32)
    addresses = np.array([hidden.ctypes.data], np.int64)
    with pytest.raises(tritium.CompilationError, match="tritium.register_host_memory"):
        gather_through_addresses[(1,)](addresses, np.zeros(16, np.float32), BLOCK=16)


def test_registration_ends_with_the_array():
    import gc
    block = np.ones(1 << 20, np.float32)
    address = tritium.register_host_memory(block)[0]
    del block
    gc.collect()
    with pytest.raises(tritium.CompilationError, match="out-of-bounds load"):
        gather_through_addresses[(1,)](np.array([address], np.int64), np.zeros(16, np.float32), BLOCK=16)


def test_extern_libs_launch_option():
    @tritium.jit
    def copy(x_ptr, y_ptr):
        tl.store(y_ptr + tl.arange(0, 4), tl.load(x_ptr + tl.arange(0, 4)))

    x = np.arange(4, dtype=np.float32)
    y = np.zeros_like(x)
    copy[(1,)](x, y, extern_libs={"libdevice": "/elsewhere/libdevice.10.bc"})
    np.testing.assert_array_equal(x, y)
    with pytest.raises(tritium.TritonError, match="extern_libs must be a dict"):
        copy[(1,)](x, y, extern_libs="libdevice")


def test_gdc_imported_by_name():
    from tritium.libdevice_extra import gdc_launch_dependents, gdc_wait

    @tritium.jit
    def by_name(x_ptr):
        gdc_wait()
        i = tl.arange(0, 8)
        tl.store(x_ptr + i, tl.load(x_ptr + i) + 1)
        gdc_launch_dependents()

    x = np.zeros(8, np.float32)
    by_name[(1,)](x)
    np.testing.assert_array_equal(x, 1)
    ptx = by_name.emit("ptx", x, arch=90)
    assert "griddepcontrol.wait;" in ptx and "griddepcontrol.launch_dependents;" in ptx
    with pytest.raises(RuntimeError, match="inside a @tritium.jit kernel"):
        gdc_wait()
