"""PyTorch's inductor (torch.compile) generating Triton kernels that run under tritium.

Inductor's CPU-Triton path (`torch._inductor.config.cpu_backend = "triton"`) compiles each
kernel with `triton.compile(ASTSource(...), target=GPUTarget("cpu", ...), options=...)`,
launches it through `CompiledKernel.run(grid, stream, function, metadata, ...)` and reads
Triton's registry of backends and drivers (`triton.backends.backends["cpu"]`,
`triton.runtime.driver.set_active`, `triton.compiler.compiler.make_backend`). The first
tests pin those pieces and the language defects Inductor's kernels found, with numpy (no
torch needed); the last run torch.compile end to end in a subprocess, skipped visibly when
no Python with torch is at hand (set TRITIUM_TORCH_PYTHON to one). The measurement over
many programs is tests/inductor/run_inductor.py (tests/inductor/RESULTS.md).
"""

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tritium
import tritium.language as tl


# -- tl.associative_scan / tl.reduce of a 1-tuple give a 1-tuple back (Inductor's scans:
# `tmp3, = tl.associative_scan((tmp2,), 1, _triton_helper_fn_add0)`) ------------------------

@tritium.jit
def _add(a, b):
    return a + b


@tritium.jit
def scan_one_tuple(x_ptr, out_ptr, sum_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))[None, :]
    c, = tl.associative_scan((x,), 1, _add)
    s, = tl.reduce((x,), 1, _add)
    tl.store(out_ptr + tl.arange(0, N)[None, :], c)
    tl.store(sum_ptr + tl.arange(0, 1), s)


def test_scan_and_reduce_of_a_one_tuple_unpack():
    x = np.arange(1, 9, dtype=np.float32)
    out = np.zeros(8, np.float32)
    total = np.zeros(1, np.float32)
    scan_one_tuple[(1,)](x, out, total, N=8)
    np.testing.assert_array_equal(out, np.cumsum(x))
    assert total[0] == x.sum()


@tritium.jit
def scan_one_tuple_as_value(x_ptr, out_ptr, N: tl.constexpr):
    # a 1-tuple stays a tuple: indexing it gives the tensor
    r = tl.associative_scan((tl.load(x_ptr + tl.arange(0, N)),), 0, _add)
    tl.static_assert(len(r) == 1)
    tl.store(out_ptr + tl.arange(0, N), r[0])


def test_scan_of_a_one_tuple_is_indexable():
    x = np.arange(4, dtype=np.int32)
    out = np.zeros(4, np.int32)
    scan_one_tuple_as_value[(1,)](x, out, N=4)
    np.testing.assert_array_equal(out, np.cumsum(x))


@tritium.jit
def scan_single(x_ptr, out_ptr, N: tl.constexpr):
    # a tensor (not a tuple) still gives a tensor
    tl.store(out_ptr + tl.arange(0, N), tl.associative_scan(tl.load(x_ptr + tl.arange(0, N)), 0, _add))


def test_scan_of_a_tensor_is_a_tensor():
    x = np.arange(4, dtype=np.int32)
    out = np.zeros(4, np.int32)
    scan_single[(1,)](x, out, N=4)
    np.testing.assert_array_equal(out, np.cumsum(x))


# -- tl.core.get_int_dtype in a kernel (Inductor's sort_with_index: `idtype =
# tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)`) ----------------

@tritium.jit
def bits_of(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    idtype = tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
    tl.store(out_ptr + tl.arange(0, N), x.to(idtype, bitcast=True))


@tritium.jit
def unsigned_of(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), x.to(tl.core.get_int_dtype(16, False), bitcast=True))


def test_get_int_dtype_in_a_kernel():
    x = np.array([1.0, -2.5, 0.0, 3.0], np.float32)
    out = np.zeros(4, np.int32)
    bits_of[(1,)](x, out, N=4)
    np.testing.assert_array_equal(out, x.view(np.int32))
    h = np.array([1.0, -2.0], np.float16)
    u = np.zeros(2, np.uint16)
    unsigned_of[(1,)](h, u, N=2)
    np.testing.assert_array_equal(u, h.view(np.uint16))


@tritium.jit
def bad_bits(out_ptr):
    tl.store(out_ptr, tl.zeros([1], tl.core.get_int_dtype(12, True)))


@tritium.jit
def not_in_tl(out_ptr):
    tl.store(out_ptr, tl.zeros([1], tl.get_int_dtype(32, True)))


def test_get_int_dtype_errors_are_located():
    with pytest.raises(tritium.CompilationError, match="unsupported bitwidth 12"):
        bad_bits[(1,)](np.zeros(1, np.int32))
    # As in Triton, a name of tl.core only (not of triton.language)
    with pytest.raises(tritium.CompilationError, match="get_int_dtype"):
        not_in_tl[(1,)](np.zeros(1, np.int32))


# -- tl.core._unwrap_if_constexpr in a kernel (Inductor's split scan: pack_value_flag /
# unpack_value take dtypes as plain parameters and unwrap them) -----------------------------

@tritium.jit
def _unpack(pack, DTYPE_VALUE, DTYPE_VALUE_AS_UINT):
    DTYPE_VALUE = tl.core._unwrap_if_constexpr(DTYPE_VALUE)
    DTYPE_VALUE_AS_UINT = tl.core._unwrap_if_constexpr(DTYPE_VALUE_AS_UINT)
    bitwidth = DTYPE_VALUE_AS_UINT.primitive_bitwidth
    return (pack >> bitwidth).to(DTYPE_VALUE_AS_UINT).to(DTYPE_VALUE, bitcast=True)


@tritium.jit
def pack_unpack(x_ptr, out_ptr, N: tl.constexpr, AS_UINT: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    AS = tl.core._unwrap_if_constexpr(AS_UINT)
    pack = (x.to(AS, bitcast=True).to(tl.uint64) << AS.primitive_bitwidth) | 1
    tl.store(out_ptr + tl.arange(0, N), _unpack(pack, x.dtype, AS_UINT))


def test_unwrap_if_constexpr_in_a_kernel_and_on_the_host():
    x = np.array([1.5, -2.0, 0.25, 7.0], np.float32)
    out = np.zeros(4, np.float32)
    pack_unpack[(1,)](x, out, N=4, AS_UINT=tl.uint32)
    np.testing.assert_array_equal(out, x)
    assert tl.core._unwrap_if_constexpr(tl.constexpr(3)) == 3
    assert tl.core._unwrap_if_constexpr([tl.constexpr(1), (tl.constexpr(2), 5)]) == [1, (2, 5)]
    assert tl.core._unwrap_if_constexpr(tl.float16) is tl.float16


# -- Triton's registry and compile entry points as Inductor uses them ------------------------

def test_make_backend_and_cpu_backend(as_triton):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import ASTSource, make_backend, triton_key
    assert ASTSource is tritium.compiler.ASTSource
    assert triton.compiler.make_backend is make_backend
    backend = make_backend(GPUTarget("cpu", "", 32))
    assert isinstance(backend.hash(), str) and backend.hash()
    opts = backend.parse_options({"num_warps": 2, "unknown_option": 1})
    assert opts.num_warps == 2 and opts.num_stages == 3 and opts.extern_libs is None
    assert "unknown_option" not in opts.__dict__
    assert "fp8e4nv" in opts.supported_fp8_dtypes
    assert "fp8e4nv" not in make_backend(GPUTarget("cuda", 80, 32)).parse_options({}).supported_fp8_dtypes
    assert "fp8e4nv" in make_backend(GPUTarget("cuda", 90, 32)).parse_options({}).supported_fp8_dtypes
    with pytest.raises(RuntimeError, match="No backend"):
        make_backend(GPUTarget("hip", "gfx942", 64))
    assert isinstance(triton_key(), str)

    # the CPU backend: registered, inactive until made active, then the one active driver
    backends = triton.backends.backends
    assert "cpu" in backends
    cpu = backends["cpu"]
    assert not cpu.driver.is_active()
    active = [b for b in backends.values() if b.driver.is_active()]
    assert len(active) == 1
    driver = triton.runtime.driver
    driver.set_active(cpu.driver())
    try:
        assert isinstance(driver.active, cpu.driver) and cpu.driver.is_active()
        target = driver.active.get_current_target()
        assert (target.backend, target.arch) == ("cpu", 0)
    finally:
        driver.reset_active()
    assert not cpu.driver.is_active()


def test_runtime_driver_module_answers_as_the_driver_object(as_triton):
    # `import triton.runtime.driver` binds the module where Triton has the `driver` object:
    # the module must still answer .active / .set_active / .reset_active
    import triton.runtime.driver  # noqa: F401
    import triton
    from triton.backends import backends
    driver = triton.runtime.driver
    made = backends["cpu"].driver()
    driver.set_active(made)
    try:
        assert driver.active is made
    finally:
        driver.reset_active()
    assert driver.active is not made


def test_nvidia_driver_instance_made_active_does_not_recurse(as_triton):
    # PyTorch's set_driver_to_gpu makes an instance of the registry's driver class active
    import triton
    from triton.backends import backends
    driver = triton.runtime.driver
    driver.set_active(backends["nvidia"].driver())
    try:
        assert driver.active.get_current_target().backend == "cuda"
        assert isinstance(driver.active.utils.get_device_properties(0), dict)
        assert backends["nvidia"].driver.is_active()
    finally:
        driver.reset_active()


@tritium.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 3.0, mask=m)


def test_compiled_kernel_run_as_inductor_launches(as_triton):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import ASTSource
    src = ASTSource(scale_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                   "BLOCK": "constexpr"}, {"BLOCK": 16},
                    {(0,): [["tt.divisibility", 16]]})
    binary = triton.compile(src, target=GPUTarget("cpu", "", 32),
                            options={"num_warps": 2, "num_stages": 1, "debug": True,
                                     "sanitize_overflow": False, "enable_fp_fusion": True})
    assert binary.src is src and binary.src.fn is scale_kernel
    assert isinstance(binary.hash, str) and len(binary.hash) == 64
    assert binary.metadata.num_warps == 2 and binary.function is None
    # an equal compile has the same hash; another specialization another
    again = triton.compile(ASTSource(scale_kernel, dict(src.signature), {"BLOCK": 16},
                                     {(0,): [["tt.divisibility", 16]]}),
                           target=GPUTarget("cpu", "", 32),
                           options={"num_warps": 2, "num_stages": 1, "debug": True})
    assert again.hash == binary.hash
    other = triton.compile(ASTSource(scale_kernel, dict(src.signature), {"BLOCK": 32}),
                           target=GPUTarget("cpu", "", 32), options={"num_warps": 2, "num_stages": 1,
                                                                     "debug": True})
    assert other.hash != binary.hash
    assert binary.launch_metadata((3, 1, 1), 0, None) is None  # no hook set
    x = np.arange(40, dtype=np.float32)
    out = np.zeros(40, np.float32)
    # Inductor's generated launcher: grid, stream, function, metadata, launch metadata, the
    # hooks, then every argument (constexprs included)
    binary.run(3, 1, 1, 0, binary.function, binary.metadata, None, None, None, x, out, 40, 16)
    np.testing.assert_array_equal(out, x * 3)


def test_ast_source_attrs_give_divisibility(as_triton):
    # Inductor passes Triton's alignment hints as attrs: {(0,): [["tt.divisibility", 16]]}
    from triton.compiler.compiler import ASTSource
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    hints = {(0,): [["tt.divisibility", 16]], (2,): [["tt.divisibility", 16]],
             (1,): [["tt.pointer_range", 32]]}
    assert ASTSource(scale_kernel, sig, {"BLOCK": 64}, hints).signature_text() == \
        "*fp32:16, *fp32, i32:16, BLOCK=64"
    assert ASTSource(scale_kernel, sig, {"BLOCK": 64}, {"out_ptr": [["tt.divisibility", 16]]}) \
        .signature_text() == "*fp32, *fp32:16, i32, BLOCK=64"
    assert ASTSource(scale_kernel, sig, {"BLOCK": 64}).signature_text() == "*fp32, *fp32, i32, BLOCK=64"


def test_compiled_kernel_run_calls_the_launch_hooks(as_triton):
    import triton
    from triton.compiler.compiler import ASTSource
    seen = []
    triton.knobs.runtime.launch_enter_hook.add(lambda md: seen.append(("enter", md.get()["name"])))
    try:
        binary = triton.compile(ASTSource(scale_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                                         "n": "i32"}, {"BLOCK": 8}))
        md = binary.launch_metadata((1, 1, 1), 0, None, None, 8, 8)
        x = np.ones(8, np.float32)
        out = np.zeros(8, np.float32)
        binary.run(1, 1, 1, 0, None, binary.metadata, md, triton.knobs.runtime.launch_enter_hook,
                   None, x, out, 8, 8)
    finally:
        triton.knobs.runtime.launch_enter_hook.calls.clear()
    assert seen == [("enter", "scale_kernel")]
    np.testing.assert_array_equal(out, 3 * x)


# -- torch.compile end to end ----------------------------------------------------------------

def _torch_python():
    """A Python with torch (and inductor): TRITIUM_TORCH_PYTHON, else this one."""
    candidate = os.environ.get("TRITIUM_TORCH_PYTHON")
    if candidate:
        return candidate
    if importlib.util.find_spec("torch") is not None:
        return sys.executable
    return None


def _run_with_torch(tmp_path, body):
    python = _torch_python()
    if python is None:
        pytest.skip("no Python with torch here: set TRITIUM_TORCH_PYTHON to run torch.compile")
    script = tmp_path / "inductor_program.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        os.environ["TRITIUM_INTERPRET"] = "1"
        import tritium
        tritium.use_as_triton(quiet=True)
        try:
            import torch
            import torch._inductor.config as cfg
        except ImportError as e:
            print("NO-INDUCTOR", e)
            sys.exit(0)
        cfg.cpu_backend = "triton"
        cfg.compile_threads = 1
        cfg.fx_graph_cache = False
        import triton
        assert triton.__tritium__
        """) + textwrap.dedent(body))
    env = dict(os.environ, TRITIUM_INTERPRET="1", TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(tritium.__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
    result = subprocess.run([python, str(script)], capture_output=True, text=True, env=env,
                            timeout=900)
    if "NO-INDUCTOR" in result.stdout:
        pytest.skip(f"torch without inductor: {result.stdout.strip()}")
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_torch_compile_runs_inductor_kernels_in_the_interpreter(tmp_path):
    out = _run_with_torch(tmp_path, """
        import torch.nn.functional as F
        import tritium.compiler
        compiled_kernels = []
        original = tritium.compiler.compile
        def counting(src, target=None, options=None):
            compiled_kernels.append(src.fn.__name__)
            return original(src, target=target, options=options)
        tritium.compiler.compile = tritium.compile = counting

        g = torch.Generator().manual_seed(0)
        def check(fn, *inputs, tol=1e-5):
            torch._dynamo.reset()
            before = len(compiled_kernels)
            want = fn(*inputs)
            got = torch.compile(fn)(*inputs)
            want = want if isinstance(want, tuple) else (want,)
            got = got if isinstance(got, tuple) else (got,)
            for w, r in zip(want, got):
                assert w.dtype == r.dtype and w.shape == r.shape, (fn.__name__, w.dtype, r.dtype)
                if w.is_floating_point():
                    torch.testing.assert_close(r, w, atol=tol, rtol=tol)
                else:
                    assert torch.equal(r, w), fn.__name__
            assert len(compiled_kernels) > before, f"{fn.__name__}: no Triton kernel compiled"
            print("ok", fn.__name__)

        def pointwise(x, y):
            return torch.sigmoid(x[:, None] + y[None, :]) * 2
        def layer_norm(x, w, b):
            return F.layer_norm(x, (x.shape[-1],), w, b)
        def softmax_looped(x):
            return torch.softmax(x, -1)
        def var_mean(x):
            return torch.var_mean(x, 1)
        def cumsum(x):
            return torch.cumsum(x, 1)
        def sort(x):
            return torch.sort(x, -1)
        def gather_embedding(w, ids):
            return F.embedding(ids, w).sum(1), w[ids[0]].amax(0)

        check(pointwise, torch.randn(9, generator=g), torch.randn(13, generator=g))
        check(layer_norm, torch.randn(6, 40, generator=g), torch.randn(40, generator=g),
              torch.randn(40, generator=g), tol=1e-4)
        check(softmax_looped, torch.randn(2, 3000, generator=g))
        check(var_mean, torch.randn(5, 700, generator=g), tol=1e-4)
        check(cumsum, torch.randn(3, 50, generator=g), tol=1e-4)
        check(sort, torch.randn(4, 16, generator=g))
        check(gather_embedding, torch.randn(20, 8, generator=g),
              torch.randint(0, 20, (3, 5), generator=g))
        print("kernels", len(compiled_kernels))
    """)
    for name in ("pointwise", "layer_norm", "softmax_looped", "var_mean", "cumsum", "sort",
                 "gather_embedding"):
        assert f"ok {name}" in out


def test_torch_compile_with_user_triton_kernels(tmp_path):
    # user @triton.jit / @triton.autotune kernels inside a compiled function: Inductor wraps
    # them (reading JITFunction and Autotuner attributes) and launches them with its kernels
    out = _run_with_torch(tmp_path, """
        import triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),
                     mask=m)

        @triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})],
                         key=["n"])
        @triton.jit
        def scale_kernel(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * s, mask=m)

        def f(x, y):
            z = x * 2
            out = torch.empty_like(z)
            n = z.numel()
            add_kernel[(triton.cdiv(n, 64),)](z, y, out, n, BLOCK=64)
            o2 = torch.empty_like(out)
            scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](out, o2, n, 3.0)
            return o2.relu() + 1

        g = torch.Generator().manual_seed(1)
        x, y = torch.randn(100, generator=g), torch.randn(100, generator=g)
        torch.testing.assert_close(torch.compile(f)(x, y), f(x, y))
        print("user kernels ok")
    """)
    assert "user kernels ok" in out
