"""tl.atomic_load / tl.atomic_store (issue 10, item 11: the newer Triton language): values,
masks and `other`, memory semantics and scopes in the IR, and located errors. They lower to
existing atomics (an `or` with 0 through the pointer viewed as integers, an exchange), so
the GPU runs them with nothing new (tests/gpu/test_gpu_atomic_load_store.py)."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.atomic_load(src_ptr + offs, mask=mask, other=-1, sem=SEM, scope=SCOPE)
    tl.atomic_store(dst_ptr + offs, v, mask=mask, sem="relaxed" if SEM == "relaxed" else "release", scope=SCOPE)
    tl.store(dst_ptr + n + offs, v, mask=offs < BLOCK)  # the loaded block, `other` included


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32, np.int64])
@pytest.mark.parametrize("sem,scope", [("acquire", "gpu"), ("relaxed", "cta"), ("acquire", "sys")])
def test_atomic_load_and_store_copy(rng, dtype, sem, scope):
    n, block = 100, 128
    if np.dtype(dtype).kind == "f":
        src = rng.standard_normal(n).astype(dtype)
        src[:3] = [-0.0, np.inf, np.nan]  # bits survive the integer view
    else:
        info = np.iinfo(dtype)
        src = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    before = src.copy()
    dst = np.zeros(n + block, dtype=dtype)
    copy_kernel[(1,)](src, dst, n, BLOCK=block, SEM=sem, SCOPE=scope)
    assert src.tobytes() == before.tobytes()  # the load wrote nothing new
    assert dst[:n].tobytes() == src.tobytes()
    assert dst[n:2 * n].tobytes() == src.tobytes()
    np.testing.assert_array_equal(dst[2 * n:], np.full(block - n, -1, dtype=np.int64).astype(dtype))


@tritium.jit
def scalar_kernel(flag_ptr, data_ptr, out_ptr):
    tl.store(data_ptr, 42)
    tl.atomic_store(flag_ptr, 1)  # release by default
    seen = tl.atomic_load(flag_ptr)  # acquire by default
    tl.store(out_ptr, seen * 100 + tl.load(data_ptr))


def test_scalar_flag_and_defaults():
    flag = np.zeros(1, dtype=np.int32)
    data = np.zeros(1, dtype=np.int32)
    out = np.zeros(1, dtype=np.int32)
    scalar_kernel[(1,)](flag, data, out)
    assert (flag[0], data[0], out[0]) == (1, 42, 142)
    ir = scalar_kernel.emit("ir", signature="*i32:16, *i32:16, *i32:16")
    assert 'kind = "xchg"' in ir and 'sem = "release"' in ir
    # The release covers the whole program's earlier writes: a CTA barrier comes first.
    assert ir.index("debug_barrier") < ir.index('kind = "xchg"')
    assert 'kind = "or"' in ir and 'sem = "acquire"' in ir and 'scope = "gpu"' in ir


def test_ptx_has_ordered_atomics():
    ptx = scalar_kernel.emit("ptx", signature="*i32:16, *i32:16, *i32:16", arch=90)
    assert "atom" in ptx and ".acquire" in ptx and ".release" in ptx


def compile_error(src, match, *args):
    import importlib.util
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "k_atomic_ls.py")
    with open(path, "w") as f:
        f.write("import tritium\nimport tritium.language as tl\n" + src)
    spec = importlib.util.spec_from_file_location("k_atomic_ls", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(tritium.CompilationError, match=match) as info:
        module.kernel[(1,)](*args)
    assert "k_atomic_ls.py:" in str(info.value)


def test_errors():
    x32 = np.zeros(4, dtype=np.float32)
    compile_error('''
@tritium.jit
def kernel(p):
    tl.atomic_store(p, 1.0, sem="acquire")
''', "tl.atomic_store takes sem='release' or 'relaxed', got 'acquire'", x32)
    compile_error('''
@tritium.jit
def kernel(p):
    tl.store(p, tl.atomic_load(p, sem="release"))
''', "tl.atomic_load takes sem='acquire' or 'relaxed', got 'release'", x32)
    compile_error('''
@tritium.jit
def kernel(p):
    tl.store(p, tl.atomic_load(p))
''', "tl.atomic_load supports 32- and 64-bit elements in tritium, got fp16", np.zeros(4, dtype=np.float16))
    compile_error('''
@tritium.jit
def kernel(p):
    tl.store(p, tl.atomic_load(p, scope="world"))
''', "unknown memory scope 'world'", x32)
    compile_error('''
@tritium.jit
def kernel(p):
    tl.atomic_store(p + tl.arange(0, 4), 1.0, mask=tl.arange(0, 4))
''', "mask", x32)
