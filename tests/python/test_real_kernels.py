"""Patterns from real Triton projects (Liger-Kernel, vLLM, flash-linear-attention) that
tritium refused or mishandled, each reduced to a small kernel of its own. The measurement
that found them is tests/realk/run_realk.py (tests/realk/RESULTS.md)."""

import importlib
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tritium
import tritium.language as tl


def ptx_of(kernel, *args, arch=90, **kwargs):
    try:
        return kernel.emit("ptx", *args, arch=arch, **kwargs)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e):
            pytest.skip("built without the NVPTX backend")
        raise


# -- `if ptr:` on an optional pointer argument (vLLM's scaled_mm: `if bias_ptr:`) ----------

@tritium.jit
def double_plus_optional(x_ptr, bias_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    y = tl.load(x_ptr + offs, mask=m) * 2.0
    if bias_ptr:
        y += tl.load(bias_ptr + offs, mask=m)
    tl.store(out_ptr + offs, y, mask=m)


def test_if_on_a_pointer_is_true_when_it_is_given(rng):
    x = rng.standard_normal(50).astype(np.float32)
    b = rng.standard_normal(50).astype(np.float32)
    out = np.zeros(50, np.float32)
    double_plus_optional[(1,)](x, b, out, 50, BLOCK=64)
    np.testing.assert_allclose(out, 2 * x + b, rtol=1e-6)
    double_plus_optional[(1,)](x, None, out, 50, BLOCK=64)
    np.testing.assert_allclose(out, 2 * x, rtol=1e-6)


@pytest.mark.parametrize("arch", [90, 80])
def test_if_on_a_pointer_compiles_to_a_null_test(arch):
    x = np.zeros(64, np.float32)
    ptx = ptx_of(double_plus_optional, x, x, x, 64, BLOCK=64, arch=arch)
    # the pointer compared with 0 as a 64-bit integer, then a branch on it
    assert "setp.ne.s64" in ptx or "setp.eq.s64" in ptx or "setp.ne.b64" in ptx or \
        "setp.eq.b64" in ptx, ptx


# -- parameter defaults Python evaluates (vLLM: `FP8_MIN: tl.constexpr = finfo.min`) ------

class _Limits:
    lo = -448.0
    hi = 448.0


_LIMITS = _Limits()


@tritium.jit
def clamp_to_limits(x_ptr, out_ptr, n, LO: tl.constexpr = _LIMITS.lo, HI: tl.constexpr = _LIMITS.hi,
                    BLOCK: tl.constexpr = 64):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    y = tl.minimum(tl.maximum(tl.load(x_ptr + offs, mask=m), LO), HI)
    tl.store(out_ptr + offs, y, mask=m)


def test_default_given_by_an_attribute_expression():
    x = np.linspace(-1000, 1000, 50).astype(np.float32)
    out = np.zeros(50, np.float32)
    clamp_to_limits[(1,)](x, out, 50)
    np.testing.assert_array_equal(out, np.clip(x, -448.0, 448.0))
    clamp_to_limits[(1,)](x, out, 50, LO=-1.0)
    np.testing.assert_array_equal(out, np.clip(x, -1.0, 448.0))


def test_default_is_tl_core_constexpr_0():
    @tritium.jit
    def negate_if(x_ptr, out_ptr, DESC: tl.constexpr = tl.core.CONSTEXPR_0):
        offs = tl.arange(0, 8)
        y = tl.load(x_ptr + offs)
        if DESC:
            y = -y
        tl.store(out_ptr + offs, y)

    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    negate_if[(1,)](x, out)
    np.testing.assert_array_equal(out, x)
    negate_if[(1,)](x, out, DESC=1)
    np.testing.assert_array_equal(out, -x)


_NOT_A_CONSTANT = [1, 2]


@tritium.jit
def default_is_a_list(out_ptr, K: tl.constexpr = _NOT_A_CONSTANT[0:2]):
    tl.store(out_ptr, 1)


def test_default_that_is_no_constant_is_a_located_error():
    with pytest.raises(tritium.CompilationError) as e:
        default_is_a_list[(1,)](np.zeros(1, np.int32))
    assert "default value of a kernel parameter must be a constant" in str(e.value)
    assert e.value.line is not None


# -- do_not_specialize given by an expression (fla: `[...] if IS_HOPPER else [...]`) -------

_HOPPER = False


@tritium.jit(do_not_specialize=["n", "scale"] if _HOPPER else ["n"])
def scaled_copy(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * scale, mask=m)


def test_do_not_specialize_from_an_expression():
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    handle = scaled_copy[(1,)](x, out, 1, 1, BLOCK=16)
    np.testing.assert_array_equal(out[:1], x[:1])
    # `n` is not specialized on being 1, `scale` is (it is not in the evaluated list)
    names = scaled_copy.arg_names
    sig = dict(zip(names, handle.signature.split(",")))
    assert sig["n"].strip() == "i32", handle.signature
    assert sig["scale"].strip() == "1", handle.signature


# -- the autotuner's attributes subclasses use (fla's CachedAutotuner) --------------------

@tritium.jit
def store_block(out_ptr, n, BLOCK: tl.constexpr):
    tl.store(out_ptr, BLOCK)


CONFIGS = [tritium.Config({"BLOCK": 16}), tritium.Config({"BLOCK": 32})]


def test_autotuner_cache_takes_a_triton_style_key():
    """A subclass that puts a saved choice into `cache` under Triton's key (the key
    arguments' values, then each tensor argument's dtype) gets it used."""
    tuner = tritium.autotune(configs=CONFIGS, key=["n"])(store_block)
    out = np.zeros(1, np.int32)
    tuner.cache[(7, str(out.dtype))] = CONFIGS[1]
    tuner[(1,)](out, 7)
    assert out[0] == 32
    tuner[(1,)](out, 8)  # not in the cache: the interpreter takes the first config
    assert out[0] == 16


def test_autotune_key_that_names_no_parameter_is_ignored():
    """flash-attn's ROCm backward tunes three kernels with one key list; its preprocess
    kernel lacks IS_CAUSAL and others. Triton keys by the names that are parameters."""
    tuner = tritium.autotune(configs=CONFIGS, key=["IS_CAUSAL", "n", "HQ"])(store_block)
    out = np.zeros(1, np.int32)
    tuner.cache[(7, str(out.dtype))] = CONFIGS[1]
    tuner[(1,)](out, 7)
    assert out[0] == 32
    with pytest.raises(ValueError, match="'IS_CAUSAL' is not a parameter"):
        tritium.autotune(configs=CONFIGS, key=["n"], reset_to_zero=["IS_CAUSAL"])(store_block)


def test_autotuner_hooks_are_attributes_a_subclass_replaces():
    calls = []

    class Remembering(tritium.Autotuner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            assert self.user_defined_pre_hook is False and self.user_defined_post_hook is False
            self.pre_hook = lambda nargs, reset_only=False: calls.append(("pre", reset_only))
            self.post_hook = lambda nargs, exception: calls.append(("post", exception))

    tuner = Remembering(store_block, store_block.arg_names, CONFIGS, ["n"], None, ["out_ptr"],
                        do_bench=lambda fn, quantiles=None: (fn(), [1.0, 1.0, 1.0])[1],
                        cache_results=False)
    out = np.zeros(1, np.int32)
    tuner[(1,)](out, 3)
    assert ("pre", False) in calls and ("post", None) in calls and ("pre", True) in calls
    given = tritium.Autotuner(store_block, store_block.arg_names, CONFIGS, ["n"],
                              pre_hook=lambda nargs, reset_only=False: None)
    assert given.user_defined_pre_hook is True and given.restore_copies == {}


# -- a tensor look-alike whose data_ptr() is no address names the argument ------------------

class _NotATensor:
    dtype = "float32"

    def data_ptr(self):
        return "not an address"


@tritium.jit
def add_one(out_ptr, x):
    tl.store(out_ptr, tl.load(out_ptr) + 1)


def test_data_ptr_that_is_not_an_int_names_the_argument():
    with pytest.raises(tritium.ArgumentTypeError, match=r"argument 'x': data_ptr\(\) returned 'str'"):
        add_one[(1,)](np.zeros(1, np.float32), _NotATensor())


def test_a_tensor_class_instead_of_a_tensor_names_the_argument():
    torch = pytest.importorskip("torch")
    with pytest.raises(tritium.ArgumentTypeError, match=r"argument 'x': its data_ptr\(\) failed"):
        add_one[(1,)](np.zeros(1, np.float32), torch.Tensor)


# -- the Triton modules other libraries import ---------------------------------------------

def test_modules_torch_and_vllm_import(as_triton):
    import triton
    from triton.backends import backends
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.compiler.compiler import triton_key
    from triton.language.core import _aggregate
    from triton.runtime.autotuner import OutOfResources
    from triton.runtime.jit import JITFunction, KernelInterface

    assert GPUTarget is tritium.GPUTarget if hasattr(tritium, "GPUTarget") else True
    # vLLM counts the registered backends whose driver is active: exactly one
    active = [b for b in backends.values() if b.driver and b.driver.is_active()]
    assert len(active) == 1
    with pytest.raises(NotImplementedError):
        BaseBackend(GPUTarget("cuda", 90, 32))
    assert isinstance(triton_key(), str) and "3.6" in triton_key()
    assert OutOfResources is tritium.OutOfResources
    assert issubclass(JITFunction, KernelInterface)  # Triton's base class (FlagGems subclasses it)
    assert triton.language.core.CONSTEXPR_0.value == 0

    @_aggregate
    class Pair:
        pass
    assert Pair.__tritium_aggregate__ is True


def test_gluon_imports_but_does_not_launch(as_triton):
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def gluon_kernel(x, BLOCK: gl.constexpr):
        pass

    assert gl.float16 is tl.float16 and gl.constexpr is tl.constexpr
    assert gluon_kernel.arg_names == ["x", "BLOCK"]  # read by decorators (fla's autotuner)
    with pytest.raises(AttributeError, match="Gluon"):
        gl.no_such_name
    # Its names and submodules may be read at a module's top (fla on an NVIDIA GPU: `exp =
    # gl.exp`), and its submodules imported, but none used.
    exp = gl.exp
    with pytest.raises(NotImplementedError, match=r"gluon\.language\.exp"):
        exp(1.0)
    with pytest.raises(NotImplementedError, match="Gluon"):
        gl.BlockedLayout([1], [32], [4], [0])
    from triton.experimental.gluon.language import extra
    from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp
    tanh = extra.libdevice.tanh
    with pytest.raises(NotImplementedError, match=r"gluon\.language\.extra\.libdevice\.tanh"):
        tanh(1.0)
    with pytest.raises(NotImplementedError, match="Gluon"):
        cp.async_copy_global_to_shared(None, None)
    with pytest.raises(ImportError):
        from triton.experimental.gluon.language import no_such_module  # noqa: F401
    with pytest.raises(NotImplementedError, match="gluon_kernel"):
        gluon_kernel[(1,)](np.zeros(1), BLOCK=1)


def test_torch_dynamo_imports_under_the_alias(tmp_path):
    """PyTorch imports triton.backends.compiler and triton.compiler.compiler with
    torch._dynamo (torch.compiler.disable, which Liger-Kernel applies at import)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    script = tmp_path / "uses_dynamo.py"
    script.write_text("import triton\nimport torch._dynamo\n"
                      "@torch.compiler.disable\ndef f():\n    return 1\n"
                      "print('dynamo', f(), triton.__version__)\n")
    env = dict(os.environ, TRITIUM_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(tritium.__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-m", "tritium", str(script)], capture_output=True,
                            text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "dynamo 1 3.6" in result.stdout


# -- a masked load at a negative constant distance from another (sglang's causal_conv1d
# reads the tokens before its window: `x_ptrs - stride`) -------------------------------

@tritium.jit
def window_and_before(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + BLOCK + offs
    here = tl.load(p, mask=offs < n, cache_modifier=".ca")
    before = tl.load(p - BLOCK, mask=offs < n, cache_modifier=".ca")
    tl.store(out_ptr + offs, here + before, mask=offs < n)


@pytest.mark.parametrize("arch", [90, 80])
def test_a_negative_address_offset_is_written_as_ptx_takes_it(arch, tmp_path):
    import re
    ptx = ptx_of(window_and_before, signature="*fp32:16, *fp32:16, i32, BLOCK=256", arch=arch)
    offsets = re.findall(r"\[%\w+([-+][^\]]*)\]", ptx)
    assert "+-1024" in offsets  # the earlier load shares the later one's base register
    assert not [o for o in offsets if o.startswith("-")]  # `[%rd1-1024]` is a syntax error to ptxas
    from helpers import ptxas
    tool = ptxas()
    if tool is not None:
        (tmp_path / "k.ptx").write_text(ptx)
        result = subprocess.run([tool, f"-arch=sm_{arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr


# -- f-strings (flash-attn's Triton backward: `if DEBUG_TRITON: print(f"iter {i}: {m}")`) --

DEBUG_PRINTS = tl.constexpr(False)


@tritium.jit
def scaled_rows(x_ptr, out_ptr, BLOCK: tl.constexpr, SCALE: tl.constexpr, DEBUG: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, f"BLOCK={BLOCK} must be a multiple of {16!r} ({SCALE=})")
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs) * SCALE
    tl.static_assert(x.dtype == tl.float32, f"{x.dtype=} and {x_ptr.dtype.element_ty}")
    if DEBUG_PRINTS:
        print(f"x = {x}")  # a tensor: only an error where this code is compiled
    if DEBUG:
        print(f"x = {x}")
    tl.store(out_ptr + offs, x)


def test_f_string_formats_constexprs_and_is_lowered_only_where_reached():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    scaled_rows[(1,)](x, out, BLOCK=32, SCALE=2.0, DEBUG=False)
    np.testing.assert_array_equal(out, 2 * x)
    with pytest.raises(tritium.CompilationError, match=r"BLOCK=24 must be a multiple of 16 \(SCALE=2.0\)"):
        scaled_rows[(1,)](x, out, BLOCK=24, SCALE=2.0, DEBUG=False)
    with pytest.raises(tritium.CompilationError, match="formats compile-time .constexpr. values only") as info:
        scaled_rows[(1,)](x, out, BLOCK=32, SCALE=2.0, DEBUG=True)
    assert info.value.line == scaled_rows.fn.__code__.co_firstlineno + 9  # the field in `if DEBUG:`
    assert 'print(f"x = {x}")' in str(info.value)  # the real line


# -- tuple slices and ragged descriptors (vLLM's triton_kernels: triton.tools.ragged_tma) ----

@tritium.jit
def tuple_slices(out_ptr, BLOCK: tl.constexpr):
    t = (1, 2, 3, 4, 5)
    offs = tl.arange(0, BLOCK)
    picks = t[1:3] + t[:-4] + t[::2] + t[::-2] + t[-2:] + t[10:] + t[:None:3]
    tl.static_assert(len(picks) == 13, f"{len(picks)=}")
    acc = tl.zeros((BLOCK,), tl.int32)
    for i in tl.static_range(len(picks)):
        acc = tl.where(offs == i, picks[i], acc)
    tl.store(out_ptr + offs, acc)


def test_tuple_slices_with_compile_time_bounds():
    out = np.zeros(16, np.int32)
    tuple_slices[(1,)](out, BLOCK=16)
    t = (1, 2, 3, 4, 5)
    expected = t[1:3] + t[:-4] + t[::2] + t[::-2] + t[-2:] + t[10:] + t[:None:3]
    np.testing.assert_array_equal(out[:13], expected)


from tritium.tools.ragged_tma import load_ragged, store_ragged  # noqa: E402


@tritium.jit
def copy_batches_plus_one(src, dst, starts_ptr, sizes_ptr, BLOCK_M: tl.constexpr):
    b = tl.program_id(0)
    m = tl.program_id(1)
    start = tl.load(starts_ptr + b)
    size = tl.load(sizes_ptr + b)
    x = load_ragged(src, start, size, [m * BLOCK_M, 0])
    store_ragged(dst, start, size, [m * BLOCK_M, 0], x + 1.0)


def test_ragged_descriptor_reads_and_writes_one_batch(as_triton):
    torch = pytest.importorskip("torch")
    from triton.tools.ragged_tma import create_ragged_descriptor  # the alias's module
    src = torch.arange(20 * 16, dtype=torch.float32).view(20, 16)
    dst = torch.full_like(src, -1.0)
    starts = torch.tensor([0, 5, 12], dtype=torch.int32)
    sizes = torch.tensor([5, 7, 8], dtype=torch.int32)  # batches of 5, 7, 8 rows; blocks of 4
    copy_batches_plus_one[(3, 2)](create_ragged_descriptor(src, [4, 16]), create_ragged_descriptor(dst, [4, 16]),
                                  starts, sizes, BLOCK_M=4)
    # every row written once, by its own batch: a block reaching past its batch reads zeros
    # there and writes nothing there
    assert torch.equal(dst, src + 1)
    dst2 = torch.full_like(src, -1.0)
    copy_batches_plus_one[(1, 2)](create_ragged_descriptor(src, [4, 16]), create_ragged_descriptor(dst2, [4, 16]),
                                  starts[1:], sizes[1:], BLOCK_M=4)
    assert torch.equal(dst2[5:12], src[5:12] + 1) and bool((dst2[:5] == -1).all()) and bool((dst2[12:] == -1).all())


# -- what vLLM's vendored triton_kernels (topk, matmul_ogs) needed --------------------------

@tritium.jit
def keys_of_floats(x_ptr, out_ptr, BLOCK: tl.constexpr):
    nbits: tl.constexpr = x_ptr.dtype.element_ty.primitive_bitwidth
    utype: tl.constexpr = tl.dtype(f"uint{nbits}")  # a dtype made from its name
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(utype, bitcast=True)
    tl.store(out_ptr + offs, x)


def test_dtype_from_its_name():
    x = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    out = np.zeros(4, np.uint32)
    keys_of_floats[(1,)](x, out, BLOCK=4)
    np.testing.assert_array_equal(out, x.view(np.uint32))
    y = np.array([1.0, -2.0, 0.5, 3.0], np.float16)
    out16 = np.zeros(4, np.uint16)
    keys_of_floats[(1,)](y, out16, BLOCK=4)
    np.testing.assert_array_equal(out16, y.view(np.uint16))


@tritium.jit
def bad_dtype_name(out_ptr):
    tl.store(out_ptr, tl.zeros((1,), tl.dtype("uint12")))


def test_dtype_from_an_unknown_name_is_a_located_error():
    with pytest.raises(tritium.CompilationError, match="'uint12' is not the name of a Triton type"):
        bad_dtype_name[(1,)](np.zeros(1, np.int32))


class _WrappedTensor:
    """A tensor wrapper as triton_kernels' Tensor: data_ptr, dtype, numel and element_size
    of the array it holds, no storage or nbytes of its own."""

    def __init__(self, array):
        self._a = array
        self.dtype = array.dtype

    def data_ptr(self):
        return self._a.ctypes.data

    def numel(self):
        return self._a.size

    def element_size(self):
        return self._a.itemsize


@tritium.jit
def sum_rows(x_ptr, out_ptr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    tl.store(out_ptr + r, tl.sum(tl.load(x_ptr + r * BLOCK + tl.arange(0, BLOCK)), 0))


def test_a_tensor_wrapper_is_readable_in_the_interpreter():
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    out = np.zeros(4, np.float32)
    sum_rows[(4,)](_WrappedTensor(x), out, BLOCK=16)
    np.testing.assert_array_equal(out, x.sum(1))


def test_jit_function_rebuilt_from_its_attributes():
    """triton_kernels' `specialize`: the kernel's text with constants substituted, a new
    JITFunction made with the old one's attributes (do_not_specialize as given, by name),
    and its globals from get_capture_scope()."""
    import inspect as _inspect
    scope = scaled_copy.get_capture_scope()
    assert scope["tl"] is tl and scope["tritium"] is tritium
    assert scaled_copy.do_not_specialize == (["n", "scale"] if _HOPPER else ["n"])
    names = list(_inspect.signature(tritium.JITFunction.__init__).parameters)[2:]
    attrs = {name: getattr(scaled_copy, name) for name in names}

    def rebuilt(x_ptr, out_ptr, BLOCK: tl.constexpr, n=0, scale=1.0):  # n moved: its index changed
        pass
    kernel = tritium.JITFunction(rebuilt, **attrs)
    assert [p.name for p in kernel.params if p.do_not_specialize] == (["n", "scale"] if _HOPPER else ["n"])


def test_arch_none_is_the_default_target():
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    out = np.zeros(4, np.float32)
    sum_rows[(4,)](x, out, BLOCK=16, arch=None)  # triton_kernels' matmul passes its choice, None
    np.testing.assert_array_equal(out, x.sum(1))
    # Another target is compiled for (test_launch_options.py); a name not of Triton's form is
    # an error naming the option.
    with pytest.raises(tritium.LaunchError, match="arch='blackwell' must have the form 'sm<NN>'"):
        sum_rows[(4,)](x, out, BLOCK=16, arch="blackwell")


@tritium.jit
def static_index_inside_a_loop(x_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    first = 0
    for i in tl.static_range(K - 1, -1, -1):  # after it, i is 0
        first = i
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in tl.range(0, n, BLOCK):
        for i in tl.static_range(0, K):  # rebinds i inside the dynamic loop: not carried
            acc += tl.load(x_ptr + i * n + start + offs, mask=start + offs < n, other=0.0)
    tl.store(out_ptr + offs, acc + i + first)  # i is 0 again after the loop, as in Triton


def test_a_static_range_variable_inside_a_dynamic_loop_is_not_carried():
    x = np.arange(3 * 32, dtype=np.float32).reshape(3, 32)
    out = np.zeros(16, np.float32)
    static_index_inside_a_loop[(1,)](x, out, 32, K=3, BLOCK=16)
    np.testing.assert_array_equal(out, x.sum(0).reshape(2, 16).sum(0))


def test_repr_function_sees_a_descriptor_argument_as_one_entry():
    """triton_kernels names its matmul kernels from the specialization (`repr=`): a
    descriptor's type text holds commas, and is one parameter's entry."""
    from tritium.jit import Specialization
    spec = Specialization(["Y", "X", "n", "BLOCK"],
                          "*bf16:16, tensordesc<bf16[1, 1, 64, 32],shape_div=[16, 16, 16, 16]>, i32, BLOCK=64")
    assert spec.signature == {"Y": "*bf16", "X": "tensordesc<bf16[1, 1, 64, 32],shape_div=[16, 16, 16, 16]>",
                              "n": "i32", "BLOCK": "constexpr"}
    assert spec.constants == {"BLOCK": 64}


# -- `tensor and CONSTEXPR` (Mamba-3's forward: `if chunk == last and RETURN_FINAL_STATES:`,
# the pointer it stores through defined only under `if RETURN_FINAL_STATES:`) --------------

@tritium.jit
def last_chunk_copy(x_ptr, out_ptr, last_ptr, n, KEEP_LAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if KEEP_LAST:
        last_at = last_ptr + offs
    num_chunks = tl.cdiv(n, BLOCK)
    for c in range(num_chunks):
        x = tl.load(x_ptr + c * BLOCK + offs)
        tl.store(out_ptr + c * BLOCK + offs, x)
        if c == num_chunks - 1 and KEEP_LAST:  # False when KEEP_LAST is: a compile-time if
            tl.store(last_at, x)
        if KEEP_LAST or c >= 0:  # True: the tensor operand is not evaluated into the result
            tl.store(out_ptr + c * BLOCK + offs, x + 1)


def test_and_with_a_false_constexpr_after_a_tensor_is_false():
    x = np.arange(64, dtype=np.float32)
    for keep in (False, True):
        out, last = np.zeros_like(x), np.zeros(16, np.float32)
        last_chunk_copy[(1,)](x, out, last, 64, KEEP_LAST=keep, BLOCK=16)
        np.testing.assert_array_equal(out, x + 1)
        np.testing.assert_array_equal(last, x[48:] if keep else np.zeros(16, np.float32))


@tritium.jit
def named_arch(out_ptr, arch: tl.constexpr):
    tl.store(out_ptr, arch)


def test_a_parameter_named_arch_is_the_kernels():
    out = np.zeros(1, np.int32)
    named_arch[(1,)](out, arch=90)
    assert out[0] == 90


# -- FlagGems (session 18, branch realk3) -------------------------------------------------

def test_autotuner_subclass_assigns_name_and_base_fn_and_benches():
    """FlagGems' LibTuner subclasses Autotuner: it assigns `self.base_fn` and `self.__name__`
    (plain attributes in Triton) and times configs itself through Triton's `_bench`."""
    class Tuner(tritium.Autotuner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.base_fn = self.fn.fn
            self.__name__ = "tuned_" + self.base_fn.__name__
            self.chosen = []

        def run(self, *args, **kwargs):
            self.nargs = dict(zip(self.arg_names, args))
            timings = {c: self._bench(*args, config=c, **kwargs) for c in self.configs}
            best = min(timings, key=timings.get)
            self.chosen.append(best)
            return self.fn.run(*args, **kwargs, **best.all_kwargs())

    configs = [tritium.Config({"BLOCK": 64}), tritium.Config({"BLOCK": 32})]
    tuner = Tuner(store_block, store_block.arg_names, configs, key=["n"])
    assert tuner.__name__ == "tuned_store_block" and tuner.base_fn is store_block.fn
    out = np.zeros(1, np.int32)
    tuner[(1,)](out, 7)
    # In the interpreter nothing is timed: every config times the same, the first is chosen.
    assert tuner.chosen == [configs[0]] and out[0] == 64
    assert tuner._bench(out, 7, config=configs[1]) == [0.0, 0.0, 0.0]


@tritium.jit
def store_small_block(out_ptr, n, BLOCK: tl.constexpr, LIMIT: tl.constexpr):
    tl.static_assert(BLOCK <= LIMIT)
    tl.store(out_ptr, BLOCK)


def test_interpreter_autotuning_skips_configs_failing_a_static_assert():
    """Triton's autotuner times a config that fails a static_assert as infinite, so it is
    never chosen; FlagGems' attention lists configs with BLOCK_N above a small HEAD_DIM and
    asserts BLOCK_N <= HEAD_DIM. In the interpreter (nothing timed) the first config whose
    asserts hold is used, and `_bench` answers infinity for a failing one."""
    configs = [tritium.Config({"BLOCK": 64}), tritium.Config({"BLOCK": 32}), tritium.Config({"BLOCK": 16})]
    tuner = tritium.autotune(configs=configs, key=["n"])(store_small_block)
    out = np.zeros(1, np.int32)
    tuner[(1,)](out, 7, LIMIT=32)
    assert out[0] == 32
    tuner.nargs = None
    assert tuner._bench(out, 7, config=configs[0], LIMIT=32) == [float("inf")] * 3
    assert tuner._bench(out, 7, config=configs[2], LIMIT=32) == [0.0] * 3
    # no config passes: the first one's failure is reported
    with pytest.raises(tritium.errors.CompileTimeAssertionFailure, match="static_assert"):
        tuner[(1,)](out, 8, LIMIT=8)


def test_kernel_interface_is_a_base_class_with_a_launching_getitem():
    """Triton's KernelInterface is the base of JITFunction, Autotuner and Heuristics;
    FlagGems' LibEntry subclasses it with its own `run` and is launched as kernel[grid]()."""
    from tritium.runtime import KernelInterface

    assert issubclass(tritium.JITFunction, KernelInterface)
    assert isinstance(tritium.autotune(configs=CONFIGS, key=["n"])(store_block), KernelInterface)
    assert isinstance(tritium.heuristics({"BLOCK": lambda a: 16})(store_block), KernelInterface)

    class Entry(KernelInterface):
        def __init__(self, fn):
            self.fn = fn
            self.calls = []

        def run(self, *args, grid, warmup, **kwargs):
            self.calls.append((grid, warmup))
            return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)

    entry = Entry(store_block)
    out = np.zeros(1, np.int32)
    entry[(1,)](out, 7, BLOCK=16)
    assert entry.calls == [((1,), False)] and out[0] == 16


@tritium.jit(do_not_specialize=["seqlen_q", "seqlen_k"])
def placeholder_kernel():
    pass


def test_do_not_specialize_entries_naming_no_parameter_are_ignored():
    """Triton ignores them; FlagGems declares a placeholder kernel without parameters so."""
    assert placeholder_kernel.do_not_specialize == ["seqlen_q", "seqlen_k"]
    assert [p.do_not_specialize for p in store_block.params] == [False, False, False]
    placeholder_kernel[(1,)]()


def test_src_is_the_text_from_def_on():
    """Triton's JITFunction.src has no decorators; FlagGems' pointwise_dynamic pastes it into
    generated modules, where `@pointwise_dynamic(...)` would be undefined."""
    assert placeholder_kernel.src.startswith("def placeholder_kernel():")
    assert "@tritium.jit" not in placeholder_kernel.src


@tl.constexpr
def _accumulator_type(dtype):
    if dtype.is_fp16() or dtype.is_bf16():
        return tl.float32
    return tl.int64 if dtype.is_int() else dtype


@tritium.jit
def _dtype_min(dtype):
    dtype_ = dtype.value  # Triton passes a non-tensor argument of a callee as a constexpr
    if dtype_.is_floating():
        value: tl.constexpr = float("-inf")
        return value
    if dtype_.is_int_signed():
        width: tl.constexpr = dtype_.int_bitwidth
        value: tl.constexpr = -1 * 2 ** (width - 1)
        return value


@tritium.jit
def constexpr_helpers_kernel(x_ptr, out_ptr, acc_ptr, n, tiles, TILE: tl.constexpr):
    acc_dtype: tl.constexpr = _accumulator_type(x_ptr.type.element_ty)
    # a tl.constexpr annotation on a run-time value: the value, as in Triton
    span: tl.constexpr = TILE * tiles
    offs = tl.arange(0, TILE)
    x = tl.load(x_ptr + offs, mask=offs < n, other=_dtype_min(x_ptr.type.element_ty))
    tl.store(out_ptr + offs, x)
    tl.store(acc_ptr, tl.sum(x.to(acc_dtype), 0) + span)


def test_constexpr_function_global_dtype_value_and_runtime_constexpr_annotation():
    """FlagGems: `@tl.constexpr` over a Python function called at compile time (cumsum's
    get_scan_accum_type), `dtype.value` in a callee (limits.get_dtype_min), and
    `CTA_TILE_N: tl.constexpr = TILE_N * tiles_n_per_cta` with an int argument (sort)."""
    x = np.array([3, -5, 7], np.int32)
    out = np.zeros(8, np.int32)
    acc = np.zeros(1, np.int64)
    constexpr_helpers_kernel[(1,)](x, out, acc, 3, 5, TILE=8)
    assert list(out) == [3, -5, 7] + [-2**31] * 5
    assert acc[0] == 5 - 5 * 2**31 + 40
    xf = np.array([1.5, 2.0], np.float16)
    outf = np.zeros(8, np.float16)
    accf = np.zeros(1, np.float32)
    constexpr_helpers_kernel[(1,)](xf, outf, accf, 2, 5, TILE=8)
    assert list(outf[:2]) == [1.5, 2.0] and np.isneginf(outf[2:]).all() and accf[0] == -np.inf


def test_standard_compile_time_helpers(as_triton):
    """`from triton.language.standard import _log2` (FlagGems' topk) and
    `tl.core.get_int_dtype` (its sort's key type)."""
    import triton.language as ttl
    from triton.language.standard import _is_power_of_two, _log2

    assert ttl.core.get_int_dtype(16, False) == tl.uint16
    assert ttl.core.get_int_dtype(64, True) == tl.int64
    assert ttl.core.get_int_dtype(1, True) == tl.int1

    @tritium.jit
    def log2_kernel(out_ptr, N: tl.constexpr):
        n: tl.constexpr = _log2(N)
        p: tl.constexpr = _is_power_of_two(N)
        tl.store(out_ptr, n * 10 + p)

    out = np.zeros(1, np.int32)
    for n, want in ((1, 1), (8, 31), (12, 30), (1024, 101)):
        log2_kernel[(1,)](out, n)
        assert out[0] == want, n


class _Storage:
    def __init__(self, array):
        self.array = array

    def data_ptr(self):
        return self.array.ctypes.data

    def nbytes(self):
        return self.array.nbytes


class _StridedBuffer:
    """FlagGems' StridedBuffer: data_ptr() inside a base tensor's storage (here at an
    offset), untyped_storage() the base's, no storage_offset()."""

    def __init__(self, base, offset):
        self.base, self.offset, self.dtype = base, offset, base.dtype

    def data_ptr(self):
        return self.base.ctypes.data + self.offset * self.base.itemsize

    def untyped_storage(self):
        return _Storage(self.base)


@tritium.jit
def copy_block(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n))


def test_a_storage_view_look_alike_is_readable_in_the_interpreter():
    base = np.arange(12, dtype=np.float32)
    out = np.zeros(8, np.float32)
    copy_block[(1,)](_StridedBuffer(base, 3), out, 8, BLOCK=8)
    assert list(out) == list(range(3, 11))
    with pytest.raises(tritium.CompilationError, match="out-of-bounds"):
        copy_block[(1,)](_StridedBuffer(base, 6), out, 8, BLOCK=8)  # past the storage's end


@tritium.jit
def copy_reversed(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr - offs))


def test_a_storage_view_look_alike_reads_below_its_pointer():
    """FlagGems' flip: a StridedBuffer whose pointer is its base's last element, stride -1."""
    base = np.arange(12, dtype=np.float32)
    out = np.zeros(8, np.float32)
    copy_reversed[(1,)](_StridedBuffer(base, 11), out, BLOCK=8)
    assert list(out) == list(range(11, 3, -1))
    with pytest.raises(tritium.CompilationError, match="out-of-bounds"):
        copy_reversed[(1,)](_StridedBuffer(base, 5), out, BLOCK=8)  # before the storage


@tritium.jit
def masked_by_scalar_index(x_ptr, out_ptr, limit, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # a scalar indexed with `:` before `None` (FlagGems' paged attention): a block of one
    keep = offs[:, None] < limit[:, None]
    keep_t = offs[None, :] < limit[None, :]
    x = tl.load(x_ptr + offs[:, None] + offs[None, :] * 0, mask=keep & keep_t, other=0.0)
    tl.store(out_ptr + offs[:, None] + offs[None, :] * 0, x, mask=offs[None, :] == 0)


def test_a_scalar_indexed_with_a_slice_then_none_is_a_block_of_one():
    """Triton's `tensor[..]` inserts each None axis through expand_dims, which splats a
    scalar to a block of one whatever the position, and skips `:`; so `s[:, None]` of a
    scalar is a one-element block (it was "invalid axis 1 for None")."""
    x = np.arange(8, dtype=np.float32) + 1
    out = np.full(8, -1, np.float32)
    masked_by_scalar_index[(1,)](x, out, 5, BLOCK=8)
    assert out.tolist() == [1, 2, 3, 4, 5, 0, 0, 0]


# -- tl.constexpr() around a run-time value (xformers' split-K attention: -------------------
# `diag_idx_shifted = tl.constexpr(diag_idx - NUM_QUERIES_CAUSAL + kv_len)`, a tensor used in
# the loop's causal mask)

@tritium.jit
def causal_rows(out_ptr, kv_len, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    shifted = tl.constexpr(rows - cols + kv_len)
    for start in range(0, 2):
        tl.store(out_ptr + start * BLOCK * BLOCK + rows * BLOCK + cols, tl.where(shifted >= start + kv_len, 1, 0))


def test_constexpr_around_a_run_time_value_computes_as_that_value():
    out = np.zeros((2, 4, 4), np.int32)
    causal_rows[(1,)](out, 5, BLOCK=4)
    r, c = np.indices((4, 4))
    np.testing.assert_array_equal(out[0], (r - c >= 0).astype(np.int32))
    np.testing.assert_array_equal(out[1], (r - c >= 1).astype(np.int32))


# -- an attribute of a module's submodule (xformers' split-K dequantization:
# `fp8_type = tl.float8e4b8 if torch.version.hip is not None else tl.float8e4nv`) ----------

import types as _types  # noqa: E402

host_pkg = _types.ModuleType("realk_host_pkg")
host_pkg.version = _types.ModuleType("realk_host_pkg.version")
host_pkg.version.hip = None
host_pkg.version.build = _types.ModuleType("realk_host_pkg.version.build")
host_pkg.version.build.scale = 3.0


@tritium.jit
def scaled_by_nested_module_attributes(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    dt = tl.float16 if host_pkg.version.hip is not None else tl.float32
    y = tl.load(x_ptr + offs).to(dt) * host_pkg.version.build.scale
    tl.store(out_ptr + offs, y)


def test_attribute_of_a_submodule_of_a_module_is_a_global():
    x = np.arange(8, dtype=np.float32) / np.float32(3.0)  # (not exact in fp16: hip is None, so fp32)
    out = np.zeros(8, np.float32)
    scaled_by_nested_module_attributes[(1,)](x, out, BLOCK=8)
    np.testing.assert_array_equal(out, x * np.float32(3.0))


# -- the launch's CompiledKernel as FlashInfer's b12x uses it: no implicit scratch memory
# (`metadata.global_scratch_size` / `profile_scratch_size`), then `compiled[grid](*args)` ----

@tritium.jit
def scaled_block_copy(x_ptr, out_ptr, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)


def test_compiled_kernel_reports_no_scratch_and_relaunches():
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    compiled = scaled_block_copy[(4,)](x, out, 100, SCALE=2.0, BLOCK=32, enable_fp_fusion=False)
    meta = compiled.metadata
    assert (meta.global_scratch_size, meta.profile_scratch_size) == (0, 0)
    assert meta.global_scratch_align >= 1 and meta.profile_scratch_align >= 1
    np.testing.assert_array_equal(out, 2 * x)
    y = np.arange(100, dtype=np.float32) + 1
    compiled[(4, 1, 1)](y, out, 100, 2.0, 32)
    np.testing.assert_array_equal(out, 2 * y)


# -- warmup's handle checked as b12x's checkpoint loader checks it (`m.num_warps *
# m.warp_size != 128`, no scratch, no cluster or cooperative launch) -------------------------

class _BytePointer:
    dtype = np.dtype(np.uint8)

    def data_ptr(self):
        return 1


def test_warmup_metadata_has_the_warp_size():
    handle = scaled_block_copy.warmup(_BytePointer(), _BytePointer(), 1 << 32, SCALE=1.0, BLOCK=1024, num_warps=4,
                                      grid=(1,))
    handle._init_handles()
    m = handle.metadata
    assert m.warp_size == 32 and m.num_warps * m.warp_size == 128
    assert not (m.global_scratch_size or m.profile_scratch_size or m.num_ctas != 1 or
                m.launch_cooperative_grid or m.launch_pdl)
