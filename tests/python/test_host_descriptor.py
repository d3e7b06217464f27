"""Tensor descriptors made on the host (tritium.tools.tensor_descriptor.TensorDescriptor, the
same class as Triton's triton.tools.tensor_descriptor) passed as kernel arguments, through
the interpreter on numpy arrays: tiles loaded and stored through them, edge tiles padded
with zero or NaN, a matmul whose K loop loads through descriptors, what desc.shape/strides
read, the specialization they select, and the errors (Triton's checks, naming the argument)."""

import dataclasses

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.tools.tensor_descriptor import TensorDescriptor

import host_desc_kernels as k
from helpers import marked_line


def _random(rng, shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("M, N, BM, BN", [(32, 64, 16, 32), (40, 72, 16, 32), (7, 5, 8, 16), (64, 64, 64, 64)])
def test_tile_copy(rng, dtype, M, N, BM, BN):
    # The row stride must be a multiple of 16 bytes: pad the rows of a bigger array.
    row = -(-N * np.dtype(dtype).itemsize // 16) * 16 // np.dtype(dtype).itemsize
    src = _random(rng, (M, row), dtype)[:, :N]
    dst = np.zeros((M, row), dtype)[:, :N]
    a = TensorDescriptor.from_tensor(src, [BM, BN])
    b = TensorDescriptor(dst, [M, N], [row, 1], [BM, BN])
    k.tile_copy_kernel[(tritium.cdiv(M, BM), tritium.cdiv(N, BN))](a, b)
    np.testing.assert_array_equal(dst, src)


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("off_m, off_n", [(0, 0), (16, 48), (-8, -16), (40, 0), (100, 100)])
def test_edge_tiles_are_padded(rng, padding, off_m, off_n):
    M, N, BM, BN = 48, 64, 16, 32
    src = _random(rng, (M, N), np.float32)
    out = np.full((BM, BN), 7.0, np.float32)
    desc = TensorDescriptor.from_tensor(src, [BM, BN], padding=padding)
    k.load_tile_kernel[(1,)](desc, out, off_m, off_n, BM=BM, BN=BN)
    expected = np.full((BM, BN), np.nan if padding == "nan" else 0.0, np.float32)
    rows = np.arange(off_m, off_m + BM)
    cols = np.arange(off_n, off_n + BN)
    inside = ((rows >= 0) & (rows < M))[:, None] & ((cols >= 0) & (cols < N))[None, :]
    r, c = np.nonzero(inside)
    expected[r, c] = src[rows[r], cols[c]]
    np.testing.assert_array_equal(out, expected)  # NaN == NaN for assert_array_equal


def test_store_masks_edges(rng):
    M, N, BM, BN = 20, 24, 16, 16
    src = _random(rng, (32, 32), np.float32)
    dst_full = np.full((32, 32), -1.0, np.float32)
    a = TensorDescriptor(src, [M, N], [32, 1], [BM, BN])
    b = TensorDescriptor(dst_full, [M, N], [32, 1], [BM, BN])
    k.tile_copy_kernel[(2, 2)](a, b)
    np.testing.assert_array_equal(dst_full[:M, :N], src[:M, :N])
    assert np.all(dst_full[M:, :] == -1) and np.all(dst_full[:, N:] == -1)


def test_rank_3_and_scalar_argument(rng):
    src = _random(rng, (6, 4, 8), np.float32)
    dst = np.zeros_like(src)
    a = TensorDescriptor.from_tensor(src, [2, 4, 8])
    b = TensorDescriptor.from_tensor(dst, [2, 4, 8])
    k.scale_3d_kernel[(3,)](a, b, 2.5)
    np.testing.assert_array_equal(dst, src * np.float32(2.5))


def test_shape_and_strides_in_the_kernel():
    base = np.zeros((12, 40), np.float32)
    out = np.zeros(4, np.int32)
    desc = TensorDescriptor(base, [10, 36], [40, 1], [8, 16])
    k.desc_facts_kernel[(1,)](desc, out)
    np.testing.assert_array_equal(out, [10, 36, 40, 1])


@pytest.mark.parametrize("M, N, K", [(32, 32, 32), (40, 24, 56), (17, 33, 9)])
def test_matmul_loop_over_k(rng, M, N, K):
    BM, BN, BK = 16, 16, 16
    # Rows padded to 16 bytes (8 fp16 elements, 4 fp32 ones).
    a = rng.standard_normal((M, -(-K // 8) * 8)).astype(np.float16)[:, :K]
    b = rng.standard_normal((K, -(-N // 8) * 8)).astype(np.float16)[:, :N]
    c = np.zeros((M, -(-N // 4) * 4), np.float32)[:, :N]
    a_desc = TensorDescriptor(a, [M, K], [a.strides[0] // 2, 1], [BM, BK])
    b_desc = TensorDescriptor(b, [K, N], [b.strides[0] // 2, 1], [BK, BN])
    c_desc = TensorDescriptor(c, [M, N], [c.strides[0] // 4, 1], [BM, BN])
    k.matmul_desc_kernel[(tritium.cdiv(M, BM), tritium.cdiv(N, BN))](a_desc, b_desc, c_desc, K, BLOCK_M=BM,
                                                                      BLOCK_N=BN, BLOCK_K=BK)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-3)


def test_block_shape_and_padding_select_the_specialization(rng):
    src = _random(rng, (32, 32), np.float32)
    out = np.zeros((16, 16), np.float32)
    for padding in ["zero", "nan", "zero"]:
        desc = TensorDescriptor.from_tensor(src, [16, 16], padding=padding)
        k.load_tile_kernel[(1,)](desc, out, 24, 0, BM=16, BN=16)
        expected = np.nan if padding == "nan" else 0.0
        np.testing.assert_array_equal(out[8:], np.full((8, 16), expected, np.float32))
        np.testing.assert_array_equal(out[:8], src[24:, :16])


# ---- errors ----

def test_wrong_number_of_offsets_is_located():
    line, _ = marked_line(k.__file__, "bad_rank")
    desc = TensorDescriptor(np.zeros((16, 16), np.float32), [16, 16], [16, 1], [16, 16])
    with pytest.raises(tritium.CompilationError) as info:
        k.bad_rank_kernel[(1,)](desc, np.zeros(16, np.float32))
    assert info.value.line == line, info.value
    assert "expected 2 offsets, but got 1" in str(info.value)


@pytest.mark.parametrize("make, message", [
    (lambda a: TensorDescriptor(a, [8, 16], [16, 1], [8, 12]), "Shape element 1 must be a power of 2"),
    (lambda a: TensorDescriptor(a, [8, 16], [16, 1], [1024, 2048]), "exceeds triton maximum tensor numel"),
    (lambda a: TensorDescriptor(a[:, 1:], [8, 15], [16, 1], [8, 16]), "base must be 16-byte aligned"),
    (lambda a: TensorDescriptor(a, [8, 5], [5, 1], [8, 8]), "strides must be 16-byte aligned"),
    (lambda a: TensorDescriptor(a, [8, 16], [16, 2], [8, 8]), "Last dimension must be contiguous"),
    (lambda a: TensorDescriptor(a, [8, 16], [16], [8, 8]), "rank mismatch"),
    (lambda a: TensorDescriptor(a, [8, 16], [16, 1], [8, 8], padding="one"), "Illegal value for padding"),
])
def test_constructor_checks(make, message):
    with pytest.raises((AssertionError, ValueError)) as info:
        make(np.zeros((8, 16), np.float32))
    assert message in str(info.value)


@pytest.mark.parametrize("field, value, message", [
    ("block_shape", [8, 12], "Shape element 1 must be a power of 2"),
    ("block_shape", [2048, 1024], "numel (2097152) exceeds triton maximum tensor numel (1048576)"),
    ("strides", [5, 1], "strides must be 16-byte aligned"),
    ("strides", [16, 2], "Last dimension must be contiguous"),
    ("shape", [8], "rank mismatch"),
    ("shape", [8, 2 ** 31], "does not fit in int32"),
])
def test_launch_checks_name_the_argument(field, value, message):
    # A descriptor changed after it was made (its fields are plain attributes, as in Triton)
    # is checked again at launch.
    desc = TensorDescriptor(np.zeros((8, 16), np.float32), [8, 16], [16, 1], [8, 16])
    setattr(desc, field, value)
    with pytest.raises(tritium.LaunchError) as info:
        k.load_tile_kernel[(1,)](desc, np.zeros(256, np.float32), 0, 0, BM=8, BN=16)
    assert "argument 'desc'" in str(info.value) and message in str(info.value), info.value


def test_launch_checks_base_alignment():
    data = np.zeros((9, 16), np.float32)
    desc = TensorDescriptor(data, [8, 16], [16, 1], [8, 16])
    desc.base = data.reshape(-1)[1:]  # 4 bytes past a 16-byte boundary
    with pytest.raises(tritium.LaunchError, match=r"argument 'desc'.*base must be 16-byte aligned"):
        k.load_tile_kernel[(1,)](desc, np.zeros(128, np.float32), 0, 0, BM=8, BN=16)


def test_padding_checked_at_launch():
    desc = TensorDescriptor(np.zeros((8, 16), np.float32), [8, 16], [16, 1], [8, 16])
    desc.padding = "inf"
    with pytest.raises(TypeError, match=r"argument 'desc'.*Illegal value for padding"):
        k.load_tile_kernel[(1,)](desc, np.zeros(128, np.float32), 0, 0, BM=8, BN=16)


def test_nan_padding_of_integers_is_an_error():
    desc = TensorDescriptor(np.zeros((8, 16), np.int32), [8, 16], [16, 1], [8, 16], padding="nan")
    with pytest.raises(tritium.CompilationError, match="nan"):
        k.load_tile_kernel[(1,)](desc, np.zeros(128, np.int32), 0, 0, BM=8, BN=16)


def test_descriptor_for_a_constexpr_parameter_is_an_error():
    desc = TensorDescriptor(np.zeros((8, 16), np.float32), [8, 16], [16, 1], [8, 16])
    with pytest.raises(tritium.LaunchError, match=r"argument 'BM'.*tensor descriptor"):
        k.load_tile_kernel[(1,)](desc, np.zeros(128, np.float32), 0, 0, BM=desc, BN=16)


def test_read_only_base_is_refused_for_stores():
    src = np.zeros((16, 16), np.float32)
    dst = np.zeros((16, 16), np.float32)
    dst.setflags(write=False)
    with pytest.raises(tritium.LaunchError, match=r"argument 'out_desc'.*read-only"):
        k.tile_copy_kernel[(1, 1)](TensorDescriptor.from_tensor(src, [16, 16]),
                                   TensorDescriptor.from_tensor(dst, [16, 16]))


def test_triton_import_path_under_use_as_triton():
    # `from triton.tools.tensor_descriptor import TensorDescriptor` resolves to this class.
    from tritium import triton_alias
    assert triton_alias.TRITON_MODULES["triton.tools.tensor_descriptor"] == "tritium.tools.tensor_descriptor"
    import importlib
    assert importlib.import_module("tritium.tools.tensor_descriptor").TensorDescriptor is TensorDescriptor


def test_any_dataclass_named_tensor_descriptor_is_accepted(rng):
    # Triton's own class (triton.tools.tensor_descriptor) is recognised by its shape, without
    # importing Triton: a look-alike stands in for it here.
    @dataclasses.dataclass
    class TensorDescriptor:  # noqa: F811 (same name on purpose)
        base: object
        shape: list
        strides: list
        block_shape: list
        padding: str = "zero"

    src = _random(rng, (16, 32), np.float32)
    out = np.zeros((8, 32), np.float32)
    k.load_tile_kernel[(1,)](TensorDescriptor(src, [16, 32], [32, 1], [8, 32]), out, 8, 0, BM=8, BN=32)
    np.testing.assert_array_equal(out, src[8:])


def test_signature_text_names_dtype_block_shape_and_padding():
    src = np.zeros((32, 32), np.float32)
    out = np.zeros((16, 16), np.float32)
    zero = TensorDescriptor.from_tensor(src, [16, 16])
    nan = TensorDescriptor.from_tensor(src, [16, 16], padding="nan")
    sig = k.load_tile_kernel.signature(zero, out, 24, 0, BM=16, BN=16)
    # (shape_div: the shapes 32 and 32 are multiples of 16; added in session 10)
    assert sig.startswith("tensordesc<fp32[16, 16],shape_div=[16, 16]>, *fp32:16, "), sig
    sig_nan = k.load_tile_kernel.signature(nan, out, 24, 0, BM=16, BN=16)
    assert sig_nan.startswith("tensordesc<fp32[16, 16],padding=nan,shape_div=[16, 16]>, "), sig_nan
    odd = TensorDescriptor(np.zeros((24, 36), np.float32), [24, 36], [36, 1], [16, 16])
    assert k.load_tile_kernel.signature(odd, out, 24, 0, BM=16, BN=16).startswith("tensordesc<fp32[16, 16]>, ")
    # The text form compiles as the arguments do: base, shape and strides but the last are
    # the kernel's entry arguments, with the facts the launcher guarantees.
    ir = k.load_tile_kernel.emit("ir", signature=sig_nan)
    assert "%desc: ptr<fp32> {divisibility = 16}" in ir, ir
    assert "%desc_shape0: i32 {divisibility = 16}, %desc_shape1: i32 {divisibility = 16}, " \
           "%desc_stride0: i64 {divisibility = 4}" in ir, ir
    assert "desc_stride1" not in ir


def test_bad_signature_text():
    with pytest.raises(tritium.CompilationError, match="Shape element 1 must be a power of 2"):
        k.load_tile_kernel.emit("ir", signature="tensordesc<fp32[16, 12]>, *fp32, i32, i32, BM=16, BN=16")
    with pytest.raises(tritium.CompilationError, match="padding=zero or padding=nan"):
        k.load_tile_kernel.emit("ir", signature="tensordesc<fp32[16, 16],padding=inf>, *fp32, i32, i32, BM=16, BN=16")


@pytest.mark.parametrize("host", [True, False])
def test_isinstance_tensor_descriptor_picks_host_or_device_descriptors(rng, host):
    M, N, BM, BN = 24, 32, 8, 32
    src = _random(rng, (M, N), np.float32)
    dst = np.zeros((M, N), np.float32)
    if host:
        args = (TensorDescriptor.from_tensor(src, [BM, BN]), TensorDescriptor.from_tensor(dst, [BM, BN]))
    else:
        args = (src, dst)
    k.maybe_desc_copy_kernel[(M // BM,)](*args, M, N, BM=BM, BN=BN)
    np.testing.assert_array_equal(dst, src)


@tritium.jit
def misused_type_kernel(x, CASE: tl.constexpr):
    if CASE == 0:
        tl.tensor_descriptor(x)  # LINE: call_type
    else:
        isinstance(x, 3)  # LINE: bad_isinstance


@pytest.mark.parametrize("case, marker, message", [(0, "call_type", "is a type"),
                                                   (1, "bad_isinstance", r"isinstance\(\) in a kernel takes")])
def test_type_misuse_is_located(case, marker, message):
    line, _ = marked_line(__file__, marker)
    with pytest.raises(tritium.CompilationError, match=message) as info:
        misused_type_kernel[(1,)](np.zeros(4, np.float32), CASE=case)
    assert info.value.line == line


def _set_block_shapes(nargs):
    # Triton's fused-attention tutorial: descriptors made with a dummy block shape, which a
    # config's pre_hook sets to the config's blocks before each launch.
    for name in ("src", "dst"):
        nargs[name].block_shape = [nargs["BM"], nargs["BN"]]


@tritium.autotune(configs=[tritium.Config({"BM": 8}, pre_hook=_set_block_shapes),
                           tritium.Config({"BM": 16}, pre_hook=_set_block_shapes)], key=["M"])
@tritium.jit
def autotuned_copy(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    dst.store([off_m, 0], src.load([off_m, 0]))


def test_autotune_pre_hook_sets_the_block_shape(rng):
    M, N = 32, 16
    src = _random(rng, (M, N), np.float32)
    dst = np.zeros((M, N), np.float32)
    a = TensorDescriptor(src, [M, N], [N, 1], [1, 1])
    b = TensorDescriptor(dst, [M, N], [N, 1], [1, 1])
    autotuned_copy[lambda meta: (tritium.cdiv(M, meta["BM"]),)](a, b, M, N, BN=16)
    np.testing.assert_array_equal(dst, src)
    assert a.block_shape == [autotuned_copy.best_config.kwargs["BM"], 16]
