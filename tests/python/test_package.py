"""The package surface: imports, tritium.language, host helpers, @jit forms, the globals a
kernel hands to C++, and the C++ extension's basic contract (parse on creation, errors as
the package's exception classes)."""

import inspect
import pathlib

import pytest

import tritium
import tritium.language as tl
from helpers import marked_line

BLOCK_GLOBAL = tl.constexpr(64)
PLAIN_GLOBAL = 7
HALF = tl.float16
NOT_A_CONSTANT = [1, 2, 3]


def test_import_and_version():
    assert tritium.__version__.count(".") == 2
    assert tritium.language is tl
    for name in ("jit", "cdiv", "next_power_of_2", "CompilationError", "LaunchError",
                 "InternalError", "JITFunction"):
        assert hasattr(tritium, name), name


def test_extension_loads():
    from tritium import _C

    assert hasattr(_C, "Kernel")


def test_exception_classes():
    assert issubclass(tritium.LaunchError, RuntimeError)
    assert issubclass(tritium.ArgumentTypeError, tritium.LaunchError)
    assert issubclass(tritium.ArgumentTypeError, TypeError)
    assert issubclass(tritium.InternalError, Exception)
    e = tritium.CompilationError("undefined name 'x'", "k.py", 3, 5, "    y = x\n        ^")
    assert (e.file, e.line, e.col, e.message) == ("k.py", 3, 5, "undefined name 'x'")
    assert str(e).startswith("k.py:3:5: error: undefined name 'x'")
    assert e.excerpt in str(e)


def test_cdiv_and_next_power_of_2():
    assert [tritium.cdiv(n, 4) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]
    assert tritium.cdiv(2000, tl.constexpr(1024)) == 2
    assert [tritium.next_power_of_2(n) for n in (1, 2, 3, 5, 64, 65, 1000)] == \
        [1, 2, 4, 8, 64, 128, 1024]
    assert tritium.next_power_of_2(2**40 + 1) == 2**41


def test_dtypes():
    names = {"int1": "int1", "int8": "int8", "int16": "int16", "int32": "int32",
             "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
             "uint64": "uint64", "float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
             "float64": "fp64"}
    for attribute, name in names.items():
        dtype = getattr(tl, attribute)
        assert isinstance(dtype, tl.dtype)
        assert dtype.name == name and str(dtype) == name
        assert repr(dtype) == f"tritium.language.{attribute}"
    assert tl.float32.is_floating() and tl.int8.is_int_signed() and tl.uint8.is_int_unsigned()
    assert tl.int1.primitive_bitwidth == 1 and tl.bfloat16.primitive_bitwidth == 16
    ptr = tl.pointer_type(tl.float16)
    assert ptr.element_ty == tl.float16 and ptr.is_ptr() and ptr != tl.float16
    assert ptr == tl.pointer_type(tl.float16)
    assert not hasattr(tl, "bool")  # Triton spells it int1


def test_constexpr():
    c = tl.constexpr(5)
    assert c.value == 5 and tl.constexpr(c).value == 5
    assert (c + 1).value == 6 and (2 * c).value == 10 and (c // 2).value == 2
    assert int(c) == 5 and bool(tl.constexpr(0)) is False
    assert list(range(tl.constexpr(3))) == [0, 1, 2]  # __index__
    assert repr(c) == "constexpr[5]"


@pytest.mark.parametrize("name", ["program_id", "num_programs", "arange", "zeros", "full",
                                  "load", "store", "where", "minimum", "maximum", "cdiv",
                                  "cast", "reshape", "expand_dims", "broadcast_to",
                                  "multiple_of", "max_contiguous", "static_assert",
                                  "static_range", "range", "atomic_add", "atomic_max",
                                  "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
                                  "atomic_xchg", "atomic_cas", "exp", "log", "sqrt", "abs",
                                  "sum", "max", "min", "dot", "trans", "sigmoid",
                                  "make_block_ptr", "advance", "make_tensor_descriptor",
                                  "load_tensor_descriptor", "store_tensor_descriptor"])
def test_language_stubs_raise_outside_kernels(name):
    stub = getattr(tl, name)
    target = stub.__init__ if isinstance(stub, type) else stub
    required = [p for p in inspect.signature(target).parameters.values()
                if p.default is p.empty and p.kind == p.POSITIONAL_OR_KEYWORD
                and p.name != "self"]
    with pytest.raises(RuntimeError, match=f"tl.{name} can only be used inside"):
        stub(*([0] * len(required)))


@tritium.jit
def plain_kernel(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), n)


@tritium.jit(do_not_specialize=["n", 0], do_not_specialize_on_alignment=[1])
def configured_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), n)


def test_jit_forms():
    assert isinstance(plain_kernel, tritium.JITFunction)
    assert plain_kernel.__name__ == "plain_kernel"
    assert plain_kernel.arg_names == ["x_ptr", "n", "BLOCK"]
    assert configured_kernel.do_not_specialize == ["n", 0]  # as given, as Triton keeps it
    assert configured_kernel.do_not_specialize_on_alignment == [1]
    assert [p.do_not_specialize for p in configured_kernel.params] == [True, False, True, False]
    # A name or index that is no parameter is ignored, as Triton ignores it (FlagGems).
    assert not any(p.do_not_specialize for p in tritium.jit(do_not_specialize=["m", 9])(plain_kernel.fn).params)
    with pytest.raises(RuntimeError, match=r"plain_kernel\[grid\]"):
        plain_kernel(1, 2, 3)


def test_source_and_first_line():
    number, _ = marked_line(__file__, "source of helper_kernel")
    assert helper_kernel.starting_line_number == number - 1  # the decorator's line
    assert helper_kernel._source.startswith("@tritium.jit\ndef helper_kernel(")
    assert helper_kernel.src.startswith("def helper_kernel(")  # Triton's: from `def` on
    assert pathlib.Path(helper_kernel.path).resolve() == pathlib.Path(__file__).resolve()


@tritium.jit
def helper_kernel(x, y):  # LINE: source of helper_kernel
    return x * PLAIN_GLOBAL + y


@tritium.jit
def kernel_reading_globals(x_ptr, out_ptr, n):
    offs = tl.arange(0, BLOCK_GLOBAL)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(HALF)
    local_name = helper_kernel(x, 1)
    tl.store(out_ptr + offs, local_name + NOT_A_CONSTANT, mask=mask)


def test_globals_gathered_for_cpp():
    found = kernel_reading_globals.globals_used()
    assert found["tl"] == {"kind": "module", "module": "triton.language"}
    assert found["tritium"] == {"kind": "module", "module": "triton"}  # the decorator
    assert found["BLOCK_GLOBAL"] == {"kind": "constant", "value": 64}
    assert found["HALF"] == {"kind": "constant", "value": tl.float16}
    callee = found["helper_kernel"]
    assert callee["kind"] == "function" and callee["name"] == "helper_kernel"
    assert callee["source"] == helper_kernel._source
    assert callee["first_line"] == helper_kernel.starting_line_number
    assert callee["globals"]["PLAIN_GLOBAL"] == {"kind": "constant", "value": 7}
    # Parameters, locals and builtins are not globals; unsupported values are left out
    # (C++ reports an undefined name, located, if the kernel really uses one).
    for name in ("x_ptr", "offs", "local_name", "NOT_A_CONSTANT", "range"):
        assert name not in found
    assert kernel_reading_globals.globals_used() is found  # gathered once


def test_nested_kernel_and_closure():
    scale = 3

    @tritium.jit
    def nested(x_ptr):
        tl.store(x_ptr, scale)

    assert nested._source.startswith("@tritium.jit\ndef nested(")  # dedented
    assert nested.globals_used()["scale"] == {"kind": "constant", "value": 3}


def test_cpp_kernel_object():
    from tritium import _C

    kernel = _C.Kernel("def k(a, b, C: tl.constexpr = 4):\n    pass\n", "k", "inline.py", 10)
    kernel.set_globals({"tl": {"kind": "module", "module": "triton.language"}})
    assert kernel.name == "k"
    assert kernel.param_names == ["a", "b", "C"]
    assert plain_kernel.kernel.param_names == ["x_ptr", "n", "BLOCK"]


def test_cpp_parse_error_is_located():
    from tritium import _C

    with pytest.raises(tritium.CompilationError) as info:
        _C.Kernel("def k(a):\n    x = (a +\n", "k", "broken.py", 20)
    assert info.value.file == "broken.py"
    assert info.value.line >= 21
    assert str(info.value).startswith(f"broken.py:{info.value.line}:")


def test_cpp_missing_function():
    from tritium import _C

    with pytest.raises(tritium.CompilationError, match="no function named 'other'"):
        _C.Kernel("def k(a):\n    pass\n", "other")


POINTER_GLOBAL = tl.pointer_type(tl.float32)
BLOCK_TYPE_GLOBAL = tl.block_type(tl.float32, [4])


@tritium.jit
def kernel_reading_a_pointer_type(x_ptr):
    tl.store(x_ptr.to(POINTER_GLOBAL), 1)
    _ = BLOCK_TYPE_GLOBAL


def test_scalar_and_pointer_dtypes_are_constants():
    # A pointer type is a constant as in Triton (test_compile_errors' global type alias);
    # this test pinned the opposite before. Block types are not constants kernels use.
    used = kernel_reading_a_pointer_type.globals_used()
    assert used["POINTER_GLOBAL"]["kind"] == "constant"
    assert "BLOCK_TYPE_GLOBAL" not in used
