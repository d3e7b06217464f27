"""Atomics on the caller's memory, in place. The first test is the atomic at `tile.begin`
of Helion's Pallas bug (../shared/seeds/000_5a25fc39ae0caf46.txt) written as a Triton
kernel: there a copy-in erased earlier programs' updates; here kernels work on the
caller's buffer, so every program sees the others' writes."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def atomic_add_w_tile_attr(y, BLOCK: tl.constexpr):
    tl.atomic_add(y + tl.program_id(0) * BLOCK, 1)


def test_atomic_add_at_tile_begin():
    y = np.zeros(20, dtype=np.int32)
    atomic_add_w_tile_attr[(tritium.cdiv(20, 2),)](y, BLOCK=2)
    np.testing.assert_array_equal(y, np.array([1, 0] * 10, dtype=np.int32))


def test_atomic_add_at_tile_begin_keeps_existing_values(rng):
    start = rng.integers(-1000, 1000, 20, dtype=np.int32)
    y = start.copy()
    atomic_add_w_tile_attr[(10,)](y, BLOCK=2)
    np.testing.assert_array_equal(y, start + np.array([1, 0] * 10, dtype=np.int32))


@tritium.jit
def count_programs(counter, old_values):
    previous = tl.atomic_add(counter, 1)
    tl.store(old_values + tl.program_id(0), previous)


def test_every_program_sees_earlier_updates(rng):
    programs = 37
    start = int(rng.integers(-100, 100))
    counter = np.array([start], dtype=np.int32)
    old = np.full(programs, -1, dtype=np.int32)
    count_programs[(programs,)](counter, old)
    assert counter[0] == start + programs
    np.testing.assert_array_equal(np.sort(old), start + np.arange(programs, dtype=np.int32))


@tritium.jit
def block_atomics(x_ptr, y_ptr, max_ptr, min_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_add(y_ptr + offs % 4, x, mask=mask)
    tl.atomic_max(max_ptr + offs % 4, x, mask=mask)
    tl.atomic_min(min_ptr + offs % 4, x, mask=mask)


def test_block_atomics_with_mask(rng):
    n = 1000
    x = rng.integers(-50, 50, n, dtype=np.int32)
    y = np.zeros(4, np.int32)
    high = np.full(4, np.iinfo(np.int32).min, np.int32)
    low = np.full(4, np.iinfo(np.int32).max, np.int32)
    block_atomics[(tritium.cdiv(n, 128),)](x, y, high, low, n, BLOCK=128)
    groups = x.reshape(-1, 4)
    np.testing.assert_array_equal(y, groups.sum(axis=0))
    np.testing.assert_array_equal(high, groups.max(axis=0))
    np.testing.assert_array_equal(low, groups.min(axis=0))


# The numpy meaning of each atomic kind, for the test below: a new row of src/ir/atomics.def
# is reached as tl.atomic_<name> with no edit elsewhere, and this test asks for its meaning.
ATOMIC_REFERENCE = {
    "add": lambda old, v: old + v,
    "max": np.maximum,
    "min": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "xchg": lambda old, v: v,
}

ATOMIC_KERNEL = '''
import tritium
import tritium.language as tl


@tritium.jit
def kernel(p, v, old, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(v + offs, mask=mask)
    tl.store(old + offs, tl.atomic_KIND(p + offs, x, mask=mask), mask=mask)
'''


def test_every_atomic_kind_is_a_builtin_with_semantics(tmp_path, rng):
    import importlib.util
    C = __import__("tritium._C", fromlist=["table_builtins"])
    kinds = sorted(name[len("atomic_"):] for name, _ in C.table_builtins() if name.startswith("atomic_"))
    assert sorted(ATOMIC_REFERENCE) == kinds
    n, block = 37, 64
    for kind in kinds:
        path = tmp_path / f"atomic_{kind}.py"
        path.write_text(ATOMIC_KERNEL.replace("KIND", kind))
        spec = importlib.util.spec_from_file_location(f"atomic_{kind}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        accepted = []
        for dtype in (np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64):
            if np.issubdtype(dtype, np.integer):
                info = np.iinfo(dtype)
                start = rng.integers(max(info.min, -1000), 1000, n).astype(dtype)
                values = rng.integers(max(info.min, -1000), 1000, n).astype(dtype)
            else:
                start = rng.uniform(-8, 8, n).astype(dtype)
                values = rng.uniform(-8, 8, n).astype(dtype)
            p, old = start.copy(), np.zeros(n, dtype)
            try:
                module.kernel[(1,)](p, values, old, n, BLOCK=block)
            except tritium.CompilationError as e:
                # The row's rule refused the element type, with Triton's wording.
                assert np.issubdtype(dtype, np.floating), (kind, dtype, e)
                assert "does not support" in str(e) or "needs integer elements" in str(e)
                continue
            accepted.append(dtype)
            np.testing.assert_array_equal(old, start, err_msg=f"{kind} {dtype}")
            expected = ATOMIC_REFERENCE[kind](start, values).astype(dtype)
            np.testing.assert_array_equal(p, expected, err_msg=f"{kind} {dtype}")
        assert len(accepted) >= 4, kind  # every kind takes 32- and 64-bit integers


BF16_ADD = '''
import tritium
import tritium.language as tl


@tritium.jit
def kernel(p, values, old, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(old + offs, tl.atomic_add(p + offs, tl.load(values + offs)))
'''


def test_bf16_atomic_add(tmp_path, rng):
    """tl.atomic_add on bf16 (Triton 3.6 allows add alone on bf16): the sum rounded to bf16,
    the old values returned; max on bf16 stays Triton's located error."""
    import importlib.util
    path = tmp_path / "bf16_add.py"
    path.write_text(BF16_ADD)
    spec = importlib.util.spec_from_file_location("bf16_add", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bf16 = tritium.language.bfloat16

    def to_bf16(x):  # fp32 -> bf16 bits, rounding to nearest even
        u = x.astype(np.float32).view(np.uint32)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    def from_bf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32)

    n = 64
    start = to_bf16(rng.uniform(-8, 8, n))
    values = to_bf16(rng.uniform(-8, 8, n))
    p, old = start.copy(), np.zeros(n, np.uint16)
    module.kernel[(1,)](tritium.reinterpret(p, bf16), tritium.reinterpret(values, bf16),
                        tritium.reinterpret(old, bf16), BLOCK=n)
    np.testing.assert_array_equal(old, start)
    np.testing.assert_array_equal(p, to_bf16(from_bf16(start) + from_bf16(values)))
    path.write_text(BF16_ADD.replace("atomic_add", "atomic_max"))
    spec = importlib.util.spec_from_file_location("bf16_max", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(tritium.CompilationError, match="does not support bf16"):
        module.kernel[(1,)](tritium.reinterpret(p, bf16), tritium.reinterpret(values, bf16),
                            tritium.reinterpret(old, bf16), BLOCK=n)


XCHG_HALF = '''
import tritium
import tritium.language as tl


@tritium.jit
def kernel(p, values, old, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(old + offs, tl.atomic_xchg(p + offs, tl.load(values + offs)))
'''


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_atomic_xchg_refuses_16_bit_floats(tmp_path, dtype):
    """Triton 3.6's atomics on pointers take fp16 and bf16 for add alone ("atomic_xchg does
    not support fp16"); tritium exchanged them. A located error now, at the call's line."""
    import importlib.util
    path = tmp_path / f"xchg_{dtype}.py"
    path.write_text(XCHG_HALF)
    spec = importlib.util.spec_from_file_location(f"xchg_{dtype}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    buf = np.zeros(8, np.uint16)
    typed = (lambda a: a.view(np.float16)) if dtype == "fp16" else (lambda a: tritium.reinterpret(a, tl.bfloat16))
    with pytest.raises(tritium.CompilationError, match=f"tl.atomic_xchg does not support {dtype} elements") as e:
        module.kernel[(1,)](typed(buf.copy()), typed(buf.copy()), typed(buf.copy()), BLOCK=8)
    assert "xchg_" + dtype + ".py:9:" in str(e.value), str(e.value)


@tritium.jit
def store_half(p, values, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_store(p + offs, tl.load(values + offs), mask=offs < BLOCK - 1)


def test_atomic_store_still_takes_fp16(rng):
    """tl.atomic_store is an exchange underneath: fp16 stays accepted there (the IR takes an
    fp16 exchange; only tl.atomic_xchg refuses it)."""
    values = rng.uniform(-4, 4, 16).astype(np.float16)
    p = np.full(16, 7, np.float16)
    store_half[(1,)](p, values, BLOCK=16)
    np.testing.assert_array_equal(p, np.concatenate([values[:15], [np.float16(7)]]))


@tritium.jit
def cas_16(p, old, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # Swap in offs + 100 where the element equals its index.
    seen = tl.atomic_cas(p + offs, offs.to(p.dtype.element_ty), (offs + 100).to(p.dtype.element_ty))
    tl.store(old + offs, seen)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
def test_atomic_cas_takes_16_bit_integers(dtype):
    """Triton 3.6's atomic_cas takes any element of 16, 32 or 64 bits (int16 and uint16 too;
    the other atomics refuse them); tritium refused them."""
    start = np.array([0, 5, 2, 7, 4, 4, 6, 0], dtype)
    p, old = start.copy(), np.zeros(8, dtype)
    cas_16[(1,)](p, old, BLOCK=8)
    np.testing.assert_array_equal(old, start)
    np.testing.assert_array_equal(p, np.where(start == np.arange(8), np.arange(8) + 100, start).astype(dtype))


def test_atomic_cas_refuses_8_bit_elements():
    with pytest.raises(tritium.CompilationError, match=r"tl.atomic_cas only supports elements with width \{16, 32, 64\}, "
                                                       "got int8"):
        cas_16[(1,)](np.zeros(8, np.int8), np.zeros(8, np.int8), BLOCK=8)
