"""Language and API gaps found by running Triton 3.6's other language test files (test_random,
test_tuple, test_compile_errors, test_conversions, test_tensor_descriptor, test_decorator;
tests/triton_suite/RESULTS.md, session 13), each pinned here in tritium's own words. They run
in the interpreter (numpy arrays), so they need no GPU."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from tritium.errors import CompilationError, CompileTimeAssertionFailure

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


# ---- Philox of 64-bit offsets: Triton 3.6 splits the offset into two 32-bit counter words ----

def philox4x32(c0, c1, seed, rounds=10):
    """Philox-4x32 of one counter (c0, c1, 0, 0) and key = the seed's two words (python ints)."""
    c = [c0 & M32, c1 & M32, 0, 0]
    k0, k1 = seed & M32, (seed >> 32) & M32
    for _ in range(rounds):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return c[0]


@tritium.jit
def randint_of(seed, offs_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.randint(seed, tl.load(offs_ptr + i)))


@pytest.mark.parametrize("seed", [7, 0xFCAFEB0BA])
def test_randint_of_int64_offsets_splits_the_offset(seed):
    offs = np.array([0, 1, 5, (3 << 32) + 9, -2, 1 << 40, 123456789, -(1 << 35)], dtype=np.int64)
    out = np.zeros(8, dtype=np.int64)
    randint_of[(1,)](seed, offs, out, N=8)
    want = [philox4x32(int(o) & M32, (int(o) & M64) >> 32, seed) for o in offs]
    # the results are uint32 (stored into int64 they are zero-extended)
    assert out.tolist() == want


def test_randint_of_small_int64_offsets_equals_int32_stream():
    offs32 = np.arange(16, dtype=np.int32) * 1000
    a = np.zeros(16, dtype=np.int64)
    b = np.zeros(16, dtype=np.int64)
    randint_of[(1,)](42, offs32, a, N=16)
    randint_of[(1,)](42, offs32.astype(np.int64), b, N=16)
    np.testing.assert_array_equal(a, b)
    c = np.zeros(16, dtype=np.int64)
    randint_of[(1,)](42, (offs32 // 1000).astype(np.int16), c, N=16)   # 16-bit offsets work too
    d = np.zeros(16, dtype=np.int64)
    randint_of[(1,)](42, offs32 // 1000, d, N=16)
    np.testing.assert_array_equal(c, d)


@tritium.jit
def rand_with_seed(out_ptr, seed):
    tl.store(out_ptr + tl.arange(0, 4), tl.rand(seed, tl.arange(0, 4)))


def test_float_seed_is_a_compile_error():
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(CompilationError, match="seed of a Philox generator must be an integer"):
        rand_with_seed[(1,)](out, 2.5)


# ---- triton.compile(ASTSource(...)) and triton.compiler ----

@tritium.jit
def fill_kernel(X, value, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 4, "BLOCK is too small")
    tl.store(X + tl.arange(0, BLOCK), value)


def test_compile_ast_source_gives_a_launchable_handle():
    src = tritium.compiler.ASTSource(fn=fill_kernel, signature={"X": "*fp32", "value": "fp32", "BLOCK": "constexpr"},
                                     constexprs={"BLOCK": 8})
    handle = tritium.compile(src)
    assert "BLOCK = 8" in handle.asm["ir"]
    x = np.zeros(8, dtype=np.float32)
    handle[(1,)](x, 2.5, 8)
    assert (x == 2.5).all()


def test_compile_ast_source_raises_the_kernels_error():
    src = tritium.compiler.ASTSource(fn=fill_kernel, signature={"X": "*fp32", "value": "fp32", "BLOCK": "constexpr"},
                                     constexprs={"BLOCK": 2})
    with pytest.raises(CompileTimeAssertionFailure, match="BLOCK is too small") as info:
        tritium.compile(src)
    assert isinstance(info.value, CompilationError)
    assert info.value.__cause__ is None  # the assertion is the error itself


def test_compile_ast_source_checks_its_parameters():
    with pytest.raises(TypeError, match="no parameter 'Y'"):
        tritium.compiler.ASTSource(fn=fill_kernel, signature={"Y": "i32"})
    with pytest.raises(TypeError, match="no type for parameter 'value'"):
        tritium.compile(tritium.compiler.ASTSource(fn=fill_kernel, signature={"X": "*fp32"}, constexprs={"BLOCK": 8}))
    with pytest.raises(NotImplementedError, match="not supported by tritium"):
        tritium.compile("kernel.ttir")


def test_triton_compiler_names_under_the_alias():
    import subprocess
    import sys
    code = ("import tritium; tritium.use_as_triton()\n"
            "import triton\n"
            "from triton.compiler.errors import CompileTimeAssertionFailure, CompilationError\n"
            "assert triton.compiler.errors.CompilationError is CompilationError\n"
            "assert issubclass(CompileTimeAssertionFailure, CompilationError)\n"
            "assert triton.compiler.ASTSource is tritium.compiler.ASTSource\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# ---- tuples: tl.tuple, and/or, repetition, comprehensions, star arguments ----

@tritium.jit
def bump_all(values):
    return tl.tuple([v + 1 for v in values])


@tritium.jit
def weigh3(a, b, c):
    return a + b * 10 + c * 100


@tritium.jit
def tuple_kernel(out, vals):
    t = bump_all(vals)
    tl.store(out + 0, weigh3(*t))                          # star argument
    evens = [x * 2 for x in (1, 2, 3, 4) if x % 2 == 0]    # filter; constants stay constants
    tl.store(out + 1, evens[0] + evens[1] * 10)
    pairs = [a * b for a, b in ((1, 2), (3, 4))]           # unpacking target
    tl.store(out + 2, pairs[0] + pairs[1] * 100)
    z = (0, ) * 3 + (5, )                                  # repetition
    tl.store(out + 3, len(z) * 10 + z[3])
    tl.store(out + 4, tl.tuple((1, 2)) == (1, 2))
    tl.store(out + 5, (tl.tuple([4, 5]) + (6, ))[2])
    tl.static_assert(((3, 4) or (5, 6)) == (3, 4))
    tl.static_assert(((3, 4) and ()) == ())
    tl.static_assert((() and tl.program_id(0)) == ())
    tl.store(out + 6, (1, 2) and tl.program_id(0) + 9)     # a non-empty tuple does not decide `and`


def test_tuple_language_surface():
    out = np.zeros(7, dtype=np.int32)
    tuple_kernel[(1,)](out, (1, 2, 3))
    assert out.tolist() == [2 + 30 + 400, 4 + 80, 2 + 1200, 45, 1, 6, 9]


def test_tl_tuple_is_a_python_tuple_on_the_host():
    t = tl.tuple([1, 2])
    assert t == (1, 2) and isinstance(t, tuple)
    assert "tuple" in tl.__all__


@pytest.mark.parametrize("body, message", [
    ("    t = [i for i in tl.arange(0, 4)]\n", "iterates over a tuple or list"),
    ("    t = [i for i in (1, 2) if tl.program_id(0) == 0]\n", "must be known at compile time"),
    ("    t = tl.maximum(*tl.arange(0, 4))\n", "star argument .* must be a tuple"),
    ("    t = (1, 2) * tl.program_id(0)\n", "repeated by a compile-time integer"),
])
def test_tuple_forms_report_located_errors(tmp_path, body, message):
    import importlib.util
    path = tmp_path / "k_gaps2.py"
    path.write_text("import tritium\nimport tritium.language as tl\n\n@tritium.jit\ndef kernel(out):\n" + body)
    spec = importlib.util.spec_from_file_location("k_gaps2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(CompilationError, match=message) as info:
        module.kernel[(1,)](np.zeros(1, dtype=np.int32))
    assert "k_gaps2.py:6:" in str(info.value)


# ---- raise in a branch a compile-time condition skips ----

@tritium.jit
def pick(out, MODE: tl.constexpr):
    if MODE == "one":
        v = 1
    elif MODE == "two":
        v = 2
    else:
        raise ValueError("unknown MODE")
    tl.store(out, v)


def test_raise_in_a_skipped_branch_compiles():
    out = np.zeros(1, dtype=np.int32)
    pick[(1,)](out, "two")
    assert out[0] == 2


def test_raise_that_is_reached_is_a_located_error():
    out = np.zeros(1, dtype=np.int32)
    with pytest.raises(CompilationError, match="raise statements are not supported") as info:
        pick[(1,)](out, "three")
    assert "raise ValueError" in str(info.value)  # the excerpt shows the statement


# ---- Autotuner / Heuristics .base_fn ----

def test_base_fn_is_the_python_function():
    @tritium.autotune(configs=[tritium.Config({"B": 4})], key=["n"])
    @tritium.heuristics({"EVEN": lambda a: a["n"] % 2 == 0})
    @tritium.jit
    def scaled(x, n, B: tl.constexpr, EVEN: tl.constexpr):
        tl.store(x + tl.arange(0, B), EVEN)

    assert scaled.base_fn.__name__ == "scaled"
    assert scaled.fn.base_fn is scaled.base_fn
    assert not isinstance(scaled.base_fn, tritium.JITFunction)


# ---- a pointer type as a global constant ----

BYTE_POINTER = tl.pointer_type(tl.int8)


@tritium.jit
def second_byte(out, x):
    p = x.to(BYTE_POINTER)
    tl.static_assert(p.dtype == BYTE_POINTER)
    tl.store(out, tl.load(p + 1))


def test_pointer_type_global():
    x = np.array([0x0102, 0], dtype=np.int16)  # bytes 02 01 (little-endian)
    out = np.zeros(1, dtype=np.int8)
    second_byte[(1,)](out, x)
    assert out[0] == 1
