"""Gaps found by running more of Triton 3.6's test files (tests/triton_suite/RESULTS.md,
session 14), each pinned here in tritium's own words. Kernels run in the interpreter (numpy
arrays) or compile to text, so they need no GPU."""

import warnings

import numpy as np
import pytest

import tritium
import tritium.language as tl


# ---- tl.where with a non-boolean condition warns as Triton 3.6 does (a UserWarning) ----

@tritium.jit
def where_of_uint32(out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    cond = (i % 3).to(tl.uint32)
    tl.store(out_ptr + i, tl.where(cond, 1.0, 2.0))


@tritium.jit
def where_of_bool(out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.where(i % 3 != 0, 1.0, 2.0))


def test_where_with_a_non_boolean_condition_warns_and_converts():
    out = np.zeros(8, np.float32)
    with pytest.warns(UserWarning, match=r"tl.where with a non-boolean condition is deprecated and will "
                                         r"error out in a future triton release. Got uint32") as record:
        where_of_uint32[(1,)](out, 8)
    # The warning points at the kernel line of the call.
    assert any(w.filename.endswith("test_triton_suite_gaps3.py") for w in record)
    # Non-zero is true, as Triton converts the condition to int1.
    assert out.tolist() == [2.0 if k % 3 == 0 else 1.0 for k in range(8)]


def test_where_with_a_boolean_condition_does_not_warn():
    out = np.zeros(8, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        where_of_bool[(1,)](out, 8)
    assert out.tolist() == [2.0 if k % 3 == 0 else 1.0 for k in range(8)]


@tritium.jit
def where_of_float(out_ptr, x_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.where(tl.load(x_ptr + i), 5, 7))


def test_where_warning_names_the_float_dtype_and_an_error_filter_raises():
    out = np.zeros(4, np.int32)
    x = np.array([0.0, 0.5, -1.0, 0.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="Got fp32"):
            where_of_float[(1,)](out, x, 4)


# ---- triton.language.core.builtin: a user-defined builtin runs at compile time ----

from tritium.errors import CompilationError  # noqa: E402

seen_semantic = []


@tl.builtin
def is_constexpr(v, _semantic=None):
    seen_semantic.append(_semantic)
    return isinstance(v, tl.constexpr)


@tl.builtin
def twice_plus(v, extra=0):
    # Triton's convention: the arguments arrive wrapped in tl.constexpr.
    return v.value * 2 + extra.value


@tritium.jit
def uses_builtins(out_ptr, strides, N: tl.constexpr):
    tl.static_assert(is_constexpr(N))
    tl.static_assert(is_constexpr(strides[1]))  # an argument equal to 1: folded, a constexpr
    M: tl.constexpr = twice_plus(N, extra=8)
    i = tl.arange(0, M)
    tl.store(out_ptr + i * strides[1], i)


def test_builtin_decorator_runs_at_compile_time():
    seen_semantic.clear()
    out = np.full(20, -1, np.int32)
    uses_builtins[(1,)](out, (8, 1), 4)
    assert out[:16].tolist() == list(range(16)) and (out[16:] == -1).all()
    assert seen_semantic == [None, None]  # `_semantic` is given, as None


@tritium.jit
def builtin_on_a_tensor(out_ptr, n):
    tl.static_assert(is_constexpr(n))
    tl.store(out_ptr, n)


def test_builtin_on_a_runtime_tensor_is_a_located_error():
    out = np.zeros(1, np.int32)
    with pytest.raises(CompilationError, match=r"the @builtin is_constexpr\(\) runs in Python at compile time"):
        builtin_on_a_tensor[(1,)](out, 5)


def test_builtin_called_outside_a_kernel_is_an_error():
    with pytest.raises(RuntimeError, match="runs inside @triton.jit functions only"):
        is_constexpr(3)


def test_builtin_is_reachable_under_triton_names():
    import subprocess
    import sys
    code = ("import tritium; tritium.use_as_triton()\n"
            "from triton.language.core import builtin\n"
            "import tritium.language as tl\n"
            "assert builtin is tl.builtin\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# ---- runtime hooks (triton.knobs.runtime): launch, load and JIT hooks ----

from tritium import knobs  # noqa: E402


def hooked_metadata(grid, metadata, args):
    return {"grid": grid, "n": args["n"], "warps": metadata.num_warps}


@tritium.jit(launch_metadata=hooked_metadata)
def hooked(out_ptr, n):
    tl.store(out_ptr + tl.program_id(0), n)


@pytest.fixture
def clean_hooks():
    yield knobs.runtime
    for chain in (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook,
                  knobs.runtime.kernel_load_start_hook, knobs.runtime.kernel_load_end_hook):
        for hook in list(chain.calls):
            chain.remove(hook)
    knobs.runtime.jit_cache_hook = None
    knobs.runtime.jit_post_compile_hook = None
    assert not knobs.runtime._hooks_active  # launches are back on the C++ launcher alone


def test_launch_hooks_see_the_launch_metadata(clean_hooks):
    events = []
    clean_hooks.launch_enter_hook.add(lambda m: events.append(("enter", m.get())))
    clean_hooks.launch_exit_hook.add(lambda m: events.append(("exit", m.get()["name"])))
    out = np.zeros(3, np.int32)
    hooked[(3,)](out, 9, num_warps=2)
    assert out.tolist() == [9, 9, 9]
    assert [e[0] for e in events] == ["enter", "exit"]
    data = events[0][1]
    assert data["name"] == "hooked" and data["grid"] == (3,) and data["n"] == 9 and data["warps"] == 2
    # A grid callable is resolved before the hooks see it.
    events.clear()
    hooked[lambda meta: (meta["n"] - 7,)](out, 9)
    assert events[0][1]["grid"] == (2,)


def test_jit_hooks_count_compiles_and_can_skip(clean_hooks):
    @tritium.jit
    def store_n(out_ptr, n):
        tl.store(out_ptr, n)

    calls = []
    clean_hooks.jit_cache_hook = lambda **kw: calls.append(("cache", kw["compile"]["num_warps"]))
    clean_hooks.jit_post_compile_hook = lambda **kw: calls.append(("post", kw["fn"].name))
    out = np.zeros(1, np.int32)
    store_n[(1,)](out, 5)
    store_n[(1,)](out, 6)             # the same specialization: no new compile
    store_n[(1,)](out, 7, num_warps=1)  # new launch options: a new compile
    assert calls == [("cache", 4), ("post", "test_jit_hooks_count_compiles_and_can_skip.<locals>.store_n"),
                     ("cache", 1), ("post", "test_jit_hooks_count_compiles_and_can_skip.<locals>.store_n")]
    assert out[0] == 7
    # A cache hook returning True skips the compile and the launch (Triton's contract).
    clean_hooks.jit_cache_hook = lambda **kw: True
    store_n[(1,)](out, 8, num_warps=8)
    assert out[0] == 7


def test_load_hooks_once_per_compiled_kernel(clean_hooks):
    @tritium.jit
    def store_one(out_ptr):
        tl.store(out_ptr, 1)

    loads = []
    clean_hooks.kernel_load_start_hook.add(lambda *a: loads.append(("start", a[2], a[4])))
    clean_hooks.kernel_load_end_hook.add(lambda *a: loads.append(("end", a[2], a[4])))
    out = np.zeros(1, np.int32)
    store_one[(1,)](out)
    store_one[(1,)](out)
    assert [(e[0], e[1]) for e in loads] == [("start", "store_one"), ("end", "store_one")]
    assert loads[0][2] == loads[1][2]


def test_hook_chains_add_once_and_exit_runs_in_reverse():
    chain = knobs.HookChain(reversed=True)
    order = []
    first, second = (lambda: order.append(1)), (lambda: order.append(2))
    chain.add(first)
    chain.add(first)
    chain.add(second)
    chain()
    assert order == [2, 1]
    chain.remove(first)
    assert chain.calls == [second]


# ---- a @jit decorator whose arguments are lambdas (repr=, launch_metadata=) ----

@tritium.jit(repr=lambda specialization: "named_by_lambda", do_not_specialize=["n"])
def decorated_with_lambda(out_ptr, n):
    tl.store(out_ptr, n)


def test_jit_decorator_with_lambda_arguments():
    out = np.zeros(1, np.int32)
    handle = decorated_with_lambda[(1,)](out, 16)
    assert out[0] == 16 and handle.name == "named_by_lambda"
    # do_not_specialize, given in the same decorator, still applies (Python hands it over).
    assert decorated_with_lambda.signature(out, 16).endswith("i32")


# ---- triton.tools.mxfp: host-side e2m1 values and e8m0 scales ----

def test_mxfp4_tensor_rounds_packs_and_unpacks():
    torch = pytest.importorskip("torch")
    from tritium.tools.mxfp import MXFP4Tensor
    values = torch.tensor([0.25, 0.75, 1.2, 2.5, 5.0, 7.5, -3.2, -0.0])
    t = MXFP4Tensor(values)
    # nearest e2m1 value, ties to the even code, saturating at 6
    assert t.to(torch.float32).tolist() == [0.0, 1.0, 1.0, 2.0, 4.0, 6.0, -3.0, -0.0]
    codes = MXFP4Tensor(size=(3, 5)).random()
    assert codes.data.dtype == torch.uint8 and int(codes.data.max()) < 16
    packed = codes.to_packed_tensor(dim=1)
    assert packed.shape == (3, 3)
    # the lower index in the low nibble
    assert int(packed[1, 0]) == int(codes.data[1, 0]) | (int(codes.data[1, 1]) << 4)
    assert torch.equal(codes.unpack_packed_tensor(packed, 1, (3, 5)), codes.data)


def test_mx_scale_tensor_is_a_biased_power_of_two():
    torch = pytest.importorskip("torch")
    from tritium.tools.mxfp import MXScaleTensor
    s = MXScaleTensor(size=(64,)).random(low=0.25, high=64.0)
    values = s.to(torch.float32)
    assert float(values.min()) >= 0.25 and float(values.max()) <= 64.0
    assert torch.equal(torch.log2(values), torch.round(torch.log2(values)))
    assert MXScaleTensor(torch.tensor([1.0, 0.5, 3.0, float("nan")])).data.tolist() == [127, 126, 128, 255]


# ---- tl.static_print of a tensor prints Triton's str() of it ----

@tritium.jit
def static_print_tensors(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.static_print("", x)
    tl.static_print("2d:", tl.reshape(x, (2, N // 2)).to(tl.float32), x_ptr, tl.sum(x, 0) > 0)


def test_static_print_of_tensors_uses_tritons_text(capfd):
    static_print_tensors[(1,)](np.zeros(8, np.uint8), 8)
    assert capfd.readouterr().out == (" uint8[constexpr[8]]\n"
                                      "2d: fp32[constexpr[2], constexpr[4]] pointer<uint8>[] int1[]\n")


# ---- any hashable Python object for a tl.constexpr parameter (Triton 3.6 specializes on it;
# test_subprocess's static_print passes uuid.uuid4() so that every launch compiles anew) ----

@tritium.jit
def with_placeholder(x_ptr, y_ptr, BLOCK: tl.constexpr, PLACEHOLDER: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.static_print("placeholder", PLACEHOLDER)
    tl.store(y_ptr + tl.arange(0, BLOCK), x + 1)


def test_an_object_constexpr_keys_the_specialization(capfd):
    import uuid
    x = np.arange(8, dtype=np.int32)
    y = np.zeros(8, np.int32)
    a, b = uuid.uuid4(), uuid.uuid4()
    first = with_placeholder[(1,)](x, y, BLOCK=8, PLACEHOLDER=a)
    np.testing.assert_array_equal(y, x + 1)
    again = with_placeholder[(1,)](x, y, BLOCK=8, PLACEHOLDER=uuid.UUID(str(a)))  # equal repr: reused
    other = with_placeholder[(1,)](x, y, BLOCK=8, PLACEHOLDER=b)
    assert first is again
    assert other is not first
    out = capfd.readouterr().out
    # static_print runs once per compilation and shows str(obj), as Python's print does.
    assert out.count(f"placeholder {a}") == 1
    assert out.count(f"placeholder {b}") == 1
    text = with_placeholder.signature(x, y, BLOCK=8, PLACEHOLDER=a)
    assert f"PLACEHOLDER=object({a!r})" in text
    # The text parses back to the same specialization.
    assert with_placeholder.emit("ir", signature=text) == with_placeholder.emit("ir", x, y, BLOCK=8, PLACEHOLDER=a)
    with pytest.raises(tritium.CompilationError, match="is not known to this kernel"):
        with_placeholder.emit("ir", signature=text.replace(str(a), str(uuid.uuid4())))


class Falsy:
    def __bool__(self):
        return False

    def __hash__(self):
        return 7

    def __eq__(self, other):
        return isinstance(other, Falsy)

    def __repr__(self):
        return "Falsy()"


@tritium.jit
def echo(v):
    return v


@tritium.jit
def object_ops(out_ptr, OBJ: tl.constexpr, OTHER: tl.constexpr):
    same = echo(OBJ)  # passed through a @jit callee, still the constant
    tl.store(out_ptr + 0, 1 if same == OBJ else 0)
    tl.store(out_ptr + 1, 1 if OBJ != OTHER else 0)
    tl.store(out_ptr + 2, 1 if OBJ is None else 0)
    tl.store(out_ptr + 3, 1 if OBJ else 0)
    tl.store(out_ptr + 4, 1 if not OTHER else 0)


def test_an_object_constexpr_compares_and_has_its_truth():
    import uuid
    out = np.full(5, -1, np.int32)
    object_ops[(1,)](out, OBJ=uuid.UUID(int=3), OTHER=Falsy())
    np.testing.assert_array_equal(out, [1, 1, 0, 1, 1])
    object_ops[(1,)](out, OBJ=Falsy(), OTHER=Falsy())
    np.testing.assert_array_equal(out, [1, 0, 0, 0, 1])


@tritium.jit
def object_arith(out_ptr, OBJ: tl.constexpr):
    tl.store(out_ptr, OBJ + 1)  # LINE: object_arith


@tritium.constexpr_function
def one_of(x):
    return 1


@tritium.jit
def object_to_python(out_ptr, OBJ: tl.constexpr):
    tl.store(out_ptr, one_of(OBJ))  # LINE: object_to_python


def test_object_constexpr_misuse_is_an_error():
    import uuid
    from helpers import marked_line
    out = np.zeros(1, np.int32)
    line, _ = marked_line(__file__, "object_arith")
    with pytest.raises(tritium.CompilationError) as info:
        object_arith[(1,)](out, OBJ=uuid.UUID(int=3))
    assert info.value.line == line
    assert "unsupported operand types for +: 'UUID' and 'int'" in info.value.message
    # Only the repr is kept: Python run at compile time cannot be given the object (Triton
    # can; a located error here).
    line, _ = marked_line(__file__, "object_to_python")
    with pytest.raises(tritium.CompilationError) as info:
        object_to_python[(1,)](out, OBJ=uuid.UUID(int=3))
    assert info.value.line == line
    assert "cannot be passed to Python code at compile time" in info.value.message
    # Not a tl.constexpr parameter: Triton's TypeError, naming the argument.
    with pytest.raises(tritium.ArgumentTypeError, match=r"argument 'x_ptr': unsupported type 'UUID'"):
        with_placeholder[(1,)](uuid.UUID(int=3), out, BLOCK=8, PLACEHOLDER=1)
    # Unhashable: no specialization key (Triton's dict lookup fails too).
    with pytest.raises(tritium.ArgumentTypeError, match=r"argument 'OBJ': unsupported type 'dict'"):
        object_arith[(1,)](out, OBJ={})


def test_object_constexpr_compiles_for_the_gpu():
    import uuid
    x = np.arange(8, dtype=np.int32)
    ptx = with_placeholder.emit("ptx", x, x, BLOCK=8, PLACEHOLDER=uuid.UUID(int=5), arch=90)
    assert ".entry with_placeholder" in ptx
