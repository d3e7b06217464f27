"""Errors point at the kernel (DESIGN law 1): compile errors carry the real file, line,
column and excerpt; call errors name the kernel and the argument; an out-of-bounds access
in the interpreter is reported at the kernel line, not a segfault."""

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line


@tritium.jit
def uses_undefined_name(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, undefined_scale * offs)  # noqa: F821  # LINE: undefined


def test_undefined_name_is_located():
    line, text = marked_line(__file__, "undefined")
    x = np.zeros(16, np.float32)
    with pytest.raises(tritium.CompilationError) as info:
        uses_undefined_name[(1,)](x, BLOCK=16)
    error = info.value
    assert error.file == __file__
    assert error.line == line
    assert error.col == text.index("undefined_scale") + 1
    assert "undefined_scale" in error.message
    assert text.strip() in error.excerpt
    caret_line = error.excerpt.splitlines()[-1]
    assert caret_line.rstrip().endswith("^")
    assert str(error).startswith(f"{__file__}:{line}:{error.col}: error: ")
    assert np.all(x == 0)


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask) + tl.load(y_ptr + offsets, mask),
             mask)


@pytest.fixture
def arrays():
    return [np.zeros(64, np.float32) for _ in range(3)]


def test_missing_argument(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*n_elements"):
        add_kernel[(1,)](*arrays)


def test_too_many_arguments(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*takes 5 arguments but 6"):
        add_kernel[(1,)](*arrays, 64, 64, 64)


def test_unknown_keyword(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*'BLOCK'"):
        add_kernel[(1,)](*arrays, 64, BLOCK=64)


def test_argument_given_twice(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*'x_ptr'"):
        add_kernel[(1,)](*arrays, 64, 64, x_ptr=arrays[0])


def test_unsupported_argument_type(arrays):
    with pytest.raises(TypeError, match=r"kernel 'add_kernel': argument 'y_ptr': unsupported "
                                        r"type 'list'") as info:
        add_kernel[(1,)](arrays[0], [1.0, 2.0], arrays[2], 64, BLOCK_SIZE=64)
    assert isinstance(info.value, tritium.LaunchError)


def test_unsupported_element_type(arrays):
    complex_array = np.zeros(64, np.complex64)
    with pytest.raises(tritium.ArgumentTypeError, match=r"'x_ptr'.*element type"):
        add_kernel[(1,)](complex_array, arrays[1], arrays[2], 64, BLOCK_SIZE=64)


def test_string_for_a_runtime_parameter(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*'n_elements'"):
        add_kernel[(1,)](*arrays, "64", BLOCK_SIZE=64)


def test_pointer_for_a_constexpr(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*'BLOCK_SIZE'"):
        add_kernel[(1,)](*arrays, 64, BLOCK_SIZE=arrays[0])


@pytest.mark.parametrize("value", [2**64, -2**63 - 1, 10**30])
def test_integer_overflow(arrays, value):
    with pytest.raises(OverflowError, match=r"kernel 'add_kernel': argument 'n_elements'"):
        add_kernel[(1,)](*arrays, value, BLOCK_SIZE=64)


def test_integer_range_edges(arrays):
    assert add_kernel.signature(*arrays, 2**64 - 1, 64).split(", ")[3] == "u64"
    assert add_kernel.signature(*arrays, 2**63, 64).split(", ")[3] == "u64:16"
    assert add_kernel.signature(*arrays, -2**63, 64).split(", ")[3] == "i64:16"
    assert add_kernel.signature(*arrays, 2**31, 64).split(", ")[3] == "i64:16"
    assert add_kernel.signature(*arrays, 2**31 - 1, 64).split(", ")[3] == "i32"


@pytest.mark.parametrize("grid", [(-1,), (1, 2, 3, 4), (), "abc", (2**31,), (1.5,),
                                  lambda meta: "x"])
def test_bad_grid(arrays, grid):
    with pytest.raises(tritium.LaunchError, match="add_kernel"):
        add_kernel[grid](*arrays, 64, BLOCK_SIZE=64)


def test_bad_num_warps(arrays):
    with pytest.raises(tritium.LaunchError, match=r"add_kernel.*num_warps"):
        add_kernel[(1,)](*arrays, 64, BLOCK_SIZE=64, num_warps=3)


def test_grid_callable_error_propagates(arrays):
    def grid(meta):
        raise ZeroDivisionError("from the grid")

    with pytest.raises(ZeroDivisionError, match="from the grid"):
        add_kernel[grid](*arrays, 64, BLOCK_SIZE=64)


@tritium.jit
def load_out_of_bounds(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # LINE: out of bounds
    tl.store(out_ptr + offs, x, mask=offs < 1)


def test_out_of_bounds_load_is_reported_at_the_kernel_line():
    line, _ = marked_line(__file__, "out of bounds")
    x = np.ones(10, np.float32)
    out = np.full(1, np.nan, np.float32)
    with pytest.raises((tritium.CompilationError, tritium.LaunchError)) as info:
        load_out_of_bounds[(1,)](x, out, BLOCK=128)
    report = str(info.value)
    assert f"{__file__}:{line}:" in report, report
    assert "x_ptr" in report or "bounds" in report, report
    assert np.isnan(out).all()


@pytest.mark.parametrize("dtype", [">f4", ">i8", "M8[s]", "U3"])
def test_unsupported_array_layouts(arrays, dtype):
    odd = np.zeros(64, dtype)
    with pytest.raises(tritium.ArgumentTypeError, match=r"'x_ptr'.*element type"):
        add_kernel[(1,)](odd, arrays[1], arrays[2], 64, BLOCK_SIZE=64)


def test_array_element_types_in_the_signature():
    def first(array):
        return add_kernel.signature(array, array, array, 64, 64).split(", ")[0].split(":")[0]

    expected = {np.bool_: "*i1", np.int8: "*i8", np.int16: "*i16", np.int32: "*i32",
                np.int64: "*i64", np.uint8: "*u8", np.uint16: "*u16", np.uint32: "*u32",
                np.uint64: "*u64", np.float16: "*fp16", np.float32: "*fp32",
                np.float64: "*fp64", np.longlong: "*i64", np.ulonglong: "*u64"}
    for dtype, text in expected.items():
        assert first(np.zeros(4, dtype)) == text, dtype
    assert first(np.zeros((3, 4), np.float32)[:, 1]) == "*fp32"  # strided
    assert first(np.zeros((), np.float32)) == "*fp32"  # 0-d


# ---- read-only arrays (issue 11): refused for a parameter the kernel writes through ----

@tritium.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


@tritium.jit
def count_kernel(src_ptr, counter_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(counter_ptr + offs * 0, tl.load(src_ptr + offs) * 0 + 1)


@tritium.jit
def carried_pointer_kernel(a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    # The written pointer is b_ptr's, reached through a loop-carried value and a branch.
    offs = tl.arange(0, BLOCK)
    p = a_ptr + 0
    for i in range(n):
        if i > 0:
            p = b_ptr + 0
    tl.store(p + offs, tl.load(a_ptr + offs))


def read_only(values):
    array = np.array(values, np.float32)
    array.setflags(write=False)
    return array


def test_read_only_array_written_is_refused():
    src = np.arange(16, dtype=np.float32)
    frozen = np.frombuffer(bytes(64), np.float32)  # read-only: backed by bytes
    assert not frozen.flags.writeable
    with pytest.raises(tritium.LaunchError, match=r"copy_kernel.*'dst_ptr'.*read-only"):
        copy_kernel[(1,)](src, frozen, 16, BLOCK=16)
    assert np.all(frozen == 0)
    dst = np.zeros(16, np.float32)
    locked = read_only(np.zeros(16))
    with pytest.raises(tritium.LaunchError, match=r"'dst_ptr'.*read-only"):
        copy_kernel[(1,)](src, locked, 16, BLOCK=16)
    # Reading from a read-only array is fine.
    copy_kernel[(1,)](read_only(np.arange(16)), dst, 16, BLOCK=16)
    assert np.array_equal(dst, np.arange(16, dtype=np.float32))


def test_read_only_array_atomically_written_is_refused():
    counter = np.zeros(1, np.int32)
    counter.setflags(write=False)
    with pytest.raises(tritium.LaunchError, match=r"'counter_ptr'.*read-only"):
        count_kernel[(1,)](np.zeros(16, np.int32), counter, BLOCK=16)


def test_read_only_array_written_through_a_carried_pointer_is_refused():
    a = np.arange(16, dtype=np.float32)
    b = np.zeros(16, np.float32)
    carried_pointer_kernel[(1,)](a, b, 2, BLOCK=16)
    assert np.array_equal(b, a)
    with pytest.raises(tritium.LaunchError, match=r"'b_ptr'.*read-only"):
        carried_pointer_kernel[(1,)](a, read_only(np.zeros(16)), 2, BLOCK=16)
    # With n == 0 the store goes through a_ptr: it may be written too.
    with pytest.raises(tritium.LaunchError, match=r"'a_ptr'.*read-only"):
        carried_pointer_kernel[(1,)](read_only(np.arange(16)), b, 2, BLOCK=16)


# ---- recursion (issue 11): located at the call, also across @jit functions ----

@tritium.jit
def recursive_a(x):
    return recursive_b(x)


@tritium.jit
def recursive_b(x):
    return recursive_a(x)  # LINE: mutual call


@tritium.jit
def calls_mutual(x_ptr):
    tl.store(x_ptr, recursive_a(1))


@tritium.jit
def calls_itself(x_ptr):
    calls_itself(x_ptr)  # LINE: self call


@pytest.mark.parametrize("kernel, marker", [(calls_mutual, "mutual call"), (calls_itself, "self call")])
def test_recursion_is_located_at_the_call(kernel, marker):
    line, text = marked_line(__file__, marker)
    with pytest.raises(tritium.CompilationError) as info:
        kernel[(1,)](np.zeros(1, np.int32))
    assert "recursion is not supported" in info.value.message
    assert info.value.line == line
    assert info.value.col == len(text) - len(text.lstrip()) + 1 + (len("return ") if "return" in text else 0)


@tritium.jit
def oversized_dot(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 256)
    k = tl.arange(0, 128)
    a = tl.load(a_ptr + r[:, None] * 128 + k[None, :])
    b = tl.load(b_ptr + k[:, None] * 256 + r[None, :])
    c = tl.dot(a, b, input_precision="ieee")  # LINE: oversized
    tl.store(c_ptr + r[:, None] * 256 + r[None, :], c)


@pytest.mark.parametrize("arch, limit", [(90, 232448), (80, 166912)])
def test_a_use_over_the_architectures_shared_memory_is_out_of_resources(arch, limit):
    """Staging a 256x128 by 128x256 fp32 dot needs 262 KiB at once: Triton's OutOfResources
    (caught by projects' own autotuners, `except triton.runtime.errors.OutOfResources`),
    located at the dot, with the architecture's limit; a LaunchError, not a CompilationError."""
    with pytest.raises(tritium.OutOfResources) as e:
        oversized_dot.emit("ptx", signature="*fp32:16, *fp32:16, *fp32:16", num_warps=8, arch=arch)
    assert e.value.required == 268288 and e.value.limit == limit
    line, _ = marked_line(__file__, "oversized")
    assert f":{line}:9: error: staging this dot's operands: out of resource: shared memory, " \
           f"Required: 268288, Hardware limit: {limit} (sm_{arch})" in str(e.value)
    assert isinstance(e.value, tritium.LaunchError) and not isinstance(e.value, tritium.CompilationError)
