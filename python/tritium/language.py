"""tritium.language: the names a kernel uses, spelled as in ``triton.language``.

    import tritium.language as tl

Kernels are compiled by tritium's C++ compiler from their source text; nothing here runs
inside a kernel. What this module provides is what Python itself needs:

* ``constexpr``: the annotation of compile-time parameters, and a wrapper for
  compile-time globals (``BLOCK = tl.constexpr(128)``) whose ``.value`` host code can read;
* the dtype objects (``tl.float32``, ``tl.int64``, ``tl.pointer_type(tl.float16)``), which
  may also be passed to a kernel as constexpr arguments;
* every ``tl.*`` function name, as a stub that raises a clear error when called outside a
  kernel: the names resolve for linters and IDEs; the compiler gives them their meaning.
"""

# --------------------------------------------------------------------------------------
# constexpr


def _unwrap(value):
    return value.value if isinstance(value, constexpr) else value


class constexpr:
    """A compile-time value. As an annotation (``BLOCK: tl.constexpr``) it marks a parameter
    whose value is baked into the compiled kernel; as a wrapper (``tl.constexpr(128)``) it
    marks a global a kernel may read."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = _unwrap(value)

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __hash__(self):
        return hash(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)


def _binary(op, reflected=False):
    if reflected:
        return lambda self, other: constexpr(op(_unwrap(other), self.value))
    return lambda self, other: constexpr(op(self.value, _unwrap(other)))


def _install_constexpr_operators():
    import operator

    binary = {
        "add": operator.add, "sub": operator.sub, "mul": operator.mul,
        "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
        "pow": operator.pow, "lshift": operator.lshift, "rshift": operator.rshift,
        "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    }
    for name, op in binary.items():
        setattr(constexpr, f"__{name}__", _binary(op))
        setattr(constexpr, f"__r{name}__", _binary(op, reflected=True))
    comparisons = {
        "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
        "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    }
    for name, op in comparisons.items():
        setattr(constexpr, f"__{name}__", _binary(op))
    constexpr.__neg__ = lambda self: constexpr(-self.value)
    constexpr.__pos__ = lambda self: constexpr(+self.value)
    constexpr.__invert__ = lambda self: constexpr(~self.value)
    constexpr.__abs__ = lambda self: constexpr(abs(self.value))


_install_constexpr_operators()


# --------------------------------------------------------------------------------------
# dtypes


def _dtype_table():
    """The rows of the one dtype table (tritium/dtypes.def, shipped in the package and read
    here, so that this module needs no compiled code): name -> fields."""
    import os
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "dtypes.def"),
                 os.path.join(here, "..", "..", "include", "tritium", "dtypes.def")):
        if os.path.exists(path):
            break
    else:
        raise ImportError("tritium.language: dtypes.def (the dtype table) is missing from the "
                          f"package directory {here}; reinstall tritium")
    rows = {}
    pattern = re.compile(r"^TRITIUM_DTYPE\((.*)\)\s*$")
    with open(path) as f:
        for line in f:
            match = pattern.match(line.strip())
            if not match:
                continue
            fields = [x.strip().strip('"') for x in match.group(1).split(",")]
            (kind, _, short, long, bits, is_float, is_signed, mantissa, exponent, bias, special,
             torch_name, numpy_name) = fields
            rows[short] = {
                "long": long, "bits": int(bits), "float": is_float == "true",
                "signed": is_signed == "true", "mantissa": int(mantissa),
                "exponent": int(exponent), "bias": int(bias), "special": special,
                "torch": torch_name, "numpy": numpy_name,
            }
    return rows


_TABLE = _dtype_table()

# The module dtypes name in repr(): "triton.language" while `import triton` is answered by
# tritium (tritium.use_as_triton()), so eval(repr(tl.int8)) works in the program's terms.
_REPR_MODULE = ["tritium.language"]


class dtype:
    """A scalar element type, as Triton's ``tl.dtype``. ``name`` is Triton's short spelling
    (``fp32``, ``int64``, ``bf16``, ``fp8e4nv``); ``str()`` gives it, ``repr()`` the module
    path (``tritium.language.float32``). Properties and predicates come from the one dtype
    table (tritium/dtypes.def)."""

    SINT_TYPES = tuple(f"int{r['bits']}" for n, r in _TABLE.items()
                       if not r["float"] and r["signed"])
    UINT_TYPES = tuple("int1" if r["bits"] == 1 else f"uint{r['bits']}"
                       for n, r in _TABLE.items() if not r["float"] and not r["signed"])
    FP_TYPES = tuple(n for n, r in _TABLE.items() if r["float"])
    STANDARD_FP_TYPES = ("fp16", "bf16", "fp32", "fp64")
    OTHER_TYPES = ("void",)

    class SIGNEDNESS:
        SIGNED = 0
        UNSIGNED = 1

    class KIND:
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    def __init__(self, name):
        name = _unwrap(name)
        row = _TABLE.get(_SHORT_OF.get(name, name))
        if row is None and name != "void":
            raise ValueError(f"unknown dtype {name!r}")
        self.name = _SHORT_OF.get(name, name)
        self._row = row
        self.primitive_bitwidth = row["bits"] if row else 0
        if row and not row["float"]:
            self.int_signedness = (dtype.SIGNEDNESS.SIGNED if row["signed"]
                                   else dtype.SIGNEDNESS.UNSIGNED)
            self.int_bitwidth = row["bits"]
        elif row:
            self.fp_mantissa_width = row["mantissa"]
            self.exponent_bias = row["bias"]

    @property
    def itemsize(self):
        """Bytes per element (Triton's ``dtype.itemsize``: primitive_bitwidth // 8)."""
        return self.primitive_bitwidth // 8

    # Predicates, as Triton's dtype has them.
    def is_fp8(self):
        return self.is_floating() and self.primitive_bitwidth == 8

    def is_fp8e4nv(self):
        return self.name == "fp8e4nv"

    def is_fp8e4b8(self):
        return self.name == "fp8e4b8"

    def is_fp8e4b15(self):
        return self.name == "fp8e4b15"

    def is_fp8e5(self):
        return self.name == "fp8e5"

    def is_fp8e5b16(self):
        return self.name == "fp8e5b16"

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_int1(self):
        return self.name == "int1"

    def is_int8(self):
        return self.name == "int8"

    def is_int16(self):
        return self.name == "int16"

    def is_int32(self):
        return self.name == "int32"

    def is_int64(self):
        return self.name == "int64"

    def is_uint8(self):
        return self.name == "uint8"

    def is_uint16(self):
        return self.name == "uint16"

    def is_uint32(self):
        return self.name == "uint32"

    def is_uint64(self):
        return self.name == "uint64"

    def is_floating(self):
        return bool(self._row and self._row["float"])

    def is_standard_floating(self):
        return self.name in ("fp16", "bf16", "fp32", "fp64")

    def is_int(self):
        return bool(self._row and not self._row["float"])

    def is_int_signed(self):
        return self.is_int() and self._row["signed"]

    def is_int_unsigned(self):
        return self.is_int() and not self._row["signed"]

    def is_bool(self):
        return self.name == "int1"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    def is_void(self):
        return self.name == "void"

    def is_dtype(self):
        return True

    def kind(self):
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        return dtype.KIND.FLOATING if self.is_floating() else dtype.KIND.INTEGRAL

    def get_int_max_value(self):
        if self.is_int_signed():
            return 2 ** (self.int_bitwidth - 1) - 1
        if self.is_int_unsigned():
            return 2 ** self.int_bitwidth - 1
        raise RuntimeError(f"{self} is not an integer type")

    def get_int_min_value(self):
        if self.is_int_signed():
            return -2 ** (self.int_bitwidth - 1)
        if self.is_int_unsigned():
            return 0
        raise RuntimeError(f"{self} is not an integer type")

    @property
    def scalar(self):
        return self

    def with_element_ty(self, element_ty):
        return element_ty

    def to_torch(self):
        """The torch dtype of the same type (torch imported on first use)."""
        import torch
        name = self._row["torch"] if self._row else ""
        if not name:
            raise TypeError(f"torch has no dtype for {self}")
        return getattr(torch, name)

    def __eq__(self, other):
        return isinstance(other, dtype) and type(other) is type(self) and other.name == self.name

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"{_REPR_MODULE[0]}.{_LONG_OF.get(self.name, self.name)}"

    @property
    def cache_key_part(self):
        return self.name

    def codegen_name(self):
        return self.name

    def __call__(self, *args, **kwargs):
        # `tl.int32(x)` is a cast inside kernels.
        _outside_kernel(_LONG_OF.get(self.name, self.name))


# Short (Triton's str()) and long (tl attribute) spellings of every table row.
_LONG_OF = {short: row["long"] for short, row in _TABLE.items()}
_SHORT_OF = {row["long"]: short for short, row in _TABLE.items()}
# Triton's names for integers: str(tl.int32) is "int32", not the IR's "i32".
for _short, _row in list(_TABLE.items()):
    if not _row["float"]:
        _SHORT_OF[_short] = _row["long"]
        _SHORT_OF[_row["long"]] = _row["long"]
        _TABLE[_row["long"]] = _row
        _LONG_OF[_row["long"]] = _row["long"]


class pointer_type(dtype):
    """A pointer to `element_ty` (``tl.pointer_type(tl.float16)``)."""

    def __init__(self, element_ty, address_space=1, const=False):
        element_ty = _unwrap(element_ty)
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer_type needs a dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty.name}>"
        self._row = None
        self.primitive_bitwidth = 64

    def is_ptr(self):
        return True

    def is_const(self):
        return self.const

    @property
    def scalar(self):
        return self

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty \
            and other.const == self.const

    def __hash__(self):
        return hash(("pointer_type", self.element_ty.name, self.const))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"{_REPR_MODULE[0]}.pointer_type({self.element_ty!r})"


class const_pointer_type(pointer_type):
    def __init__(self, element_ty, address_space=1):
        super().__init__(element_ty, address_space, const=True)



def str_to_ty(name, c=None):
    """The dtype a signature string names (Triton's ``tl.str_to_ty``): ``"fp32"``, ``"i32"``,
    ``"u8"``, ``"bf16"``, ``"fp8e4nv"``, the long names (``"float32"``, ``"int64"``), or a
    pointer ``"*fp16"`` (``"*k..."`` for a pointer to constant memory). `c` (Triton's
    constexpr marker) is accepted and not used."""
    name = _unwrap(name)
    if not isinstance(name, str):
        raise TypeError(f"str_to_ty takes a type string, got {type(name).__name__}")
    if name.startswith("*"):
        inner = name[1:]
        const = inner.startswith("k")
        if const:
            inner = inner[1:]
        element = str_to_ty(inner)
        return const_pointer_type(element) if const else pointer_type(element)
    if name in ("void",):
        return void
    return dtype({"bool": "i1", "int1": "i1"}.get(name, name))

def _unwrap_if_constexpr(o):
    """Triton's ``tl.core._unwrap_if_constexpr``: the value of a constexpr (in lists and
    tuples too), anything else as it is. Kernels call it too (PyTorch's inductor helpers);
    there it is the identity, constants being plain values in tritium's lowering."""
    if isinstance(o, list):
        return [_unwrap_if_constexpr(x) for x in o]
    if isinstance(o, tuple):
        return type(o)(_unwrap_if_constexpr(x) for x in o) if not hasattr(o, "_fields") else \
            type(o)(*(_unwrap_if_constexpr(x) for x in o))
    return _unwrap(o)


def get_int_dtype(bitwidth, signed):
    """The integer dtype of `bitwidth` bits (Triton's ``tl.core.get_int_dtype``, which
    compile-time helpers call: FlagGems' radix sort picks its key type with it): int1 for
    1 bit, else int/uint 8, 16, 32 or 64."""
    bitwidth, signed = _unwrap(bitwidth), _unwrap(signed)
    if bitwidth == 1:
        return dtype("i1")
    if bitwidth not in (8, 16, 32, 64):
        raise ValueError(f"get_int_dtype: unsupported bitwidth {bitwidth} (1, 8, 16, 32 or 64)")
    return dtype(("i" if signed else "u") + str(bitwidth))


class block_type(dtype):
    """A block of `element_ty` with a static `shape` (annotations only)."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(_unwrap(s) for s in shape)
        self.name = f"<{'x'.join(str(s) for s in self.shape)}, {element_ty.name}>"
        self._row = None
        self.primitive_bitwidth = element_ty.primitive_bitwidth
        self.numel = 1
        for s in self.shape:
            self.numel *= s

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty

    def get_block_shapes(self):
        return self.shape

    def __eq__(self, other):
        return isinstance(other, block_type) and other.element_ty == self.element_ty \
            and other.shape == self.shape

    def __hash__(self):
        return hash(("block_type", self.element_ty.name, self.shape))


# One module attribute per table row: tl.int32, tl.float16, tl.float8e4nv, ...
for _short, _row in list(_TABLE.items()):
    if _row["long"] not in globals():
        globals()[_row["long"]] = dtype(_short)
void = dtype("void")

# Pointer types by element, as Triton names them (tl.pi32_t is pointer_type(int32)).
pi32_t = pointer_type(int32)  # noqa: F821  (made by the loop above)

TRITON_MAX_TENSOR_NUMEL = 1048576


class tensor:
    """The type of block and scalar values inside a kernel (``x: tl.tensor`` annotations)."""

    def __init__(self, *args, **kwargs):
        _outside_kernel("tensor")


class tensor_descriptor_base:
    """The type of tensor descriptors inside a kernel, for ``isinstance(x,
    tl.tensor_descriptor)`` (Triton's tutorials pick a host-made descriptor or make one)."""

    def __init__(self, *args, **kwargs):
        _outside_kernel("tensor_descriptor")


class tensor_descriptor(tensor_descriptor_base):
    pass


class const:
    """``in_ptr: tl.const`` marks a pointer parameter as pointing to constant data (Triton's
    annotation). Loads through it and pointers made from it are as usual; a store through
    one is a compile error ("Cannot store to a constant pointer"), and so is merging one with
    a plain pointer in a dynamic if, ternary or return (their types differ, as in Triton)."""


class PropagateNan:
    NONE = 0
    ALL = 0xFFFF


# --------------------------------------------------------------------------------------
# Builtins: stubs so the names resolve; the C++ compiler implements them.


def _outside_kernel(name):
    raise RuntimeError(
        f"tl.{name} can only be used inside a @tritium.jit kernel; "
        "kernels are compiled from their source, not run by Python")


# Program and index space.
def program_id(axis): _outside_kernel("program_id")
def num_programs(axis): _outside_kernel("num_programs")
def arange(start, end): _outside_kernel("arange")


# Creation.
def zeros(shape, dtype): _outside_kernel("zeros")
def full(shape, value, dtype): _outside_kernel("full")
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False): _outside_kernel("cast")


# Memory.
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False): _outside_kernel("load")
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy=""): _outside_kernel("store")
def make_block_ptr(base, shape, strides, offsets, block_shape, order): _outside_kernel("make_block_ptr")
def advance(base, offsets): _outside_kernel("advance")
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    _outside_kernel("make_tensor_descriptor")
def load_tensor_descriptor(desc, offsets): _outside_kernel("load_tensor_descriptor")
def store_tensor_descriptor(desc, offsets, value): _outside_kernel("store_tensor_descriptor")


# Atomics (tl.atomic_add ... tl.atomic_xchg: _add_table_stubs below).
def atomic_cas(pointer, cmp, val, sem=None, scope=None): _outside_kernel("atomic_cas")
def atomic_load(pointer, mask=None, other=None, sem=None, scope=None): _outside_kernel("atomic_load")
def atomic_store(pointer, value, mask=None, sem=None, scope=None): _outside_kernel("atomic_store")


# Shapes.
def reshape(input, *shape, can_reorder=False): _outside_kernel("reshape")
def view(input, *shape): _outside_kernel("view")
def expand_dims(input, axis): _outside_kernel("expand_dims")
def squeeze(input, dim): _outside_kernel("squeeze")
def unsqueeze(input, dim): _outside_kernel("unsqueeze")
def gather(src, index, axis): _outside_kernel("gather")
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    _outside_kernel("inline_asm_elementwise")
def broadcast(input, other): _outside_kernel("broadcast")
def broadcast_to(input, *shape): _outside_kernel("broadcast_to")
def trans(input, *dims): _outside_kernel("trans")
def permute(input, *dims): _outside_kernel("permute")
def join(a, b): _outside_kernel("join")
def split(a): _outside_kernel("split")
def interleave(a, b): _outside_kernel("interleave")
def cat(input, other, can_reorder=False): _outside_kernel("cat")
def flip(x, dim=None): _outside_kernel("flip")


# Elementwise (exp, sqrt, ..., where, fma: _add_table_stubs below).
def minimum(x, y, propagate_nan=PropagateNan.NONE): _outside_kernel("minimum")
def maximum(x, y, propagate_nan=PropagateNan.NONE): _outside_kernel("maximum")
def clamp(x, min, max, propagate_nan=PropagateNan.NONE): _outside_kernel("clamp")
def sqrt_rn(x): _outside_kernel("sqrt_rn")
def erf(x): _outside_kernel("erf")
def fdiv(x, y, ieee_rounding=False): _outside_kernel("fdiv")
def div_rn(x, y): _outside_kernel("div_rn")
def umulhi(x, y): _outside_kernel("umulhi")


# Reductions and scans.
def sum(input, axis=None, keep_dims=False, dtype=None): _outside_kernel("sum")
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False): _outside_kernel("max")
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False): _outside_kernel("min")
def argmax(input, axis, tie_break_left=True, keep_dims=False): _outside_kernel("argmax")
def argmin(input, axis, tie_break_left=True, keep_dims=False): _outside_kernel("argmin")
def xor_sum(input, axis=None, keep_dims=False): _outside_kernel("xor_sum")
def reduce(input, axis, combine_fn, keep_dims=False): _outside_kernel("reduce")
def associative_scan(input, axis, combine_fn, reverse=False): _outside_kernel("associative_scan")
def cumsum(input, axis=0, reverse=False, dtype=None): _outside_kernel("cumsum")
def cumprod(input, axis=0, reverse=False): _outside_kernel("cumprod")
def sort(x, dim=None, descending=False): _outside_kernel("sort")
def topk(x, k, dim=None): _outside_kernel("topk")
def bitonic_merge(x, dim=None, descending=0): _outside_kernel("bitonic_merge")
def item(input): _outside_kernel("item")
def map_elementwise(scalar_fn, *args, pack=1): _outside_kernel("map_elementwise")


class constexpr_type:
    """The type of a compile-time value (Triton's ``tl.constexpr_type``)."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"constexpr_type[{self.value}]"


class slice:  # noqa: A001 (Triton's name)
    """A slice object (start, stop, step), as Triton's ``tl.slice``."""

    def __init__(self, start, stop, step):
        self.start = start
        self.stop = stop
        self.step = step


def must_use_result(x, s=True):
    """Triton's marker for a @jit function whose result must be used (``@must_use_result``
    or ``@must_use_result("why")``): a kernel statement that calls it and drops the result is
    a compile error ("The result of f is not being used. why")."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


def histogram(input, num_bins, mask=None): _outside_kernel("histogram")
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32): _outside_kernel("dot")
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True, rhs_k_pack=True, out_dtype=float32): _outside_kernel("dot_scaled")


# Random numbers.
def rand(seed, offset, n_rounds=10): _outside_kernel("rand")
def randn(seed, offset, n_rounds=10): _outside_kernel("randn")
def randint(seed, offset, n_rounds=10): _outside_kernel("randint")
def randint4x(seed, offset, n_rounds=10): _outside_kernel("randint4x")
def rand4x(seed, offsets, n_rounds=10): _outside_kernel("rand4x")
def randn4x(seed, offset, n_rounds=10): _outside_kernel("randn4x")
def philox(seed, c0, c1, c2, c3, n_rounds=10): _outside_kernel("philox")
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10): _outside_kernel("philox_impl")
def uint_to_uniform_float(x): _outside_kernel("uint_to_uniform_float")
def pair_uniform_to_normal(u1, u2): _outside_kernel("pair_uniform_to_normal")


# Compiler hints, compile-time checks, debugging.
def assume(cond): _outside_kernel("assume")
def multiple_of(input, values): _outside_kernel("multiple_of")
def max_contiguous(input, values): _outside_kernel("max_contiguous")
def max_constancy(input, values): _outside_kernel("max_constancy")
def static_assert(cond, msg=""): _outside_kernel("static_assert")
def static_print(*values, sep=" ", end="\n", file=None, flush=False): _outside_kernel("static_print")
def device_assert(cond, msg="", mask=None): _outside_kernel("device_assert")
def device_print(prefix, *args, hex=False): _outside_kernel("device_print")
def debug_barrier(): _outside_kernel("debug_barrier")


# Loops: `for i in tl.range(...)` / `tl.static_range(...)` inside kernels.
class range:
    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False, disable_licm=False):
        _outside_kernel("range")


class static_range:
    def __init__(self, arg1, arg2=None, step=None):
        _outside_kernel("static_range")


def _add_table_stubs():
    # The builtins made from the compiler's op tables (tl.atomic_<kind> of atomics.def, the
    # elementwise builtins of elementwise.def: exp, sqrt, where, fma, ...) get their stubs,
    # with their signatures, from the registry, so a new row needs nothing here.
    try:
        from ._C import table_builtins
    except ImportError:  # imported without the extension module (tooling): no table names
        return
    import inspect
    for name, params in table_builtins():
        if name in globals():
            continue
        parameters = [inspect.Parameter(p.rstrip("="), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=None if p.endswith("=") else inspect.Parameter.empty)
                      for p in params]

        def stub(*args, _name=name, **kwargs):
            _outside_kernel(_name)
        stub.__name__ = stub.__qualname__ = name
        stub.__signature__ = inspect.Signature(parameters)
        globals()[name] = stub


_add_table_stubs()


def _add_prelude_stubs():
    # The builtins written in the Triton-language prelude (src/lower/prelude/standard.py:
    # cdiv, sigmoid, softmax, zeros_like, ravel, swizzle2d, ...) get their stubs from the list
    # compiled into the extension, so a new one is written in that one file.
    try:
        from ._C import prelude_builtins
    except ImportError:  # imported without the extension module (tooling): no prelude names
        return
    for name in prelude_builtins():
        if name not in globals():
            def stub(*args, _name=name, **kwargs):
                _outside_kernel(_name)
            stub.__name__ = stub.__qualname__ = name
            globals()[name] = stub


_add_prelude_stubs()

# Every public name, so `from tritium.language import *` and the globals scan agree.
__all__ = [_name for _name in list(globals()) if not _name.startswith("_")]
# Host-side: Triton's tl.core.get_int_dtype, not a name of triton.language nor a builtin.
__all__.remove("get_int_dtype")

# Triton's submodules as attributes, for host code that reaches them through `tl`
# (`exp2 = tl.math.exp2`, `tl.extra.cuda.libdevice.tanh`, `x: tl.core.tensor`): `math` and
# `extra` are exported as Triton's are; `core`, `standard` and `random` are this module,
# which holds their names.
import sys as _sys  # noqa: E402
from . import libdevice as math  # noqa: E402
from . import libdevice_extra as extra  # noqa: E402
core = standard = random = _sys.modules[__name__]
from . import target_info  # noqa: E402
__all__ += ["math", "extra", "target_info"]


class _Tuple(tuple):
    """``tl.tuple``: Triton's tuple value. In a kernel, ``tl.tuple(items)`` makes a tuple of
    a tuple's or list's items (compile-time, as a tuple literal is); on the host it is a
    Python tuple. Reached through the module's ``__getattr__`` so this module's own code
    keeps Python's ``tuple``."""

    def __repr__(self):
        return f"tl.tuple({list(self)!r})"


_Tuple.__name__ = _Tuple.__qualname__ = "tuple"


def __getattr__(name):
    if name == "tuple":
        return _Tuple
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ += ["tuple"]


def constexpr_function(fn):
    """``tl.constexpr_function`` (also ``triton.constexpr_function``): a Python function
    kernels call at compile time on constexpr arguments. A decorator, not a kernel builtin,
    so it is left out of ``__all__``."""
    from .jit import constexpr_function as make
    return make(fn)


def builtin(fn):
    """``triton.language.core.builtin``: Triton's decorator for its semantic-level builtins,
    which some programs use to define their own. tritium's frontend is C++, so such a
    function runs in Python at compile time like a ``tl.constexpr_function``, called as
    Triton calls a builtin: every argument wrapped in ``tl.constexpr`` and ``_semantic=None``.
    Its arguments must be compile-time constants (a scalar folded to a constant, such as an
    argument equal to 1, counts); a runtime tensor is a located error. A decorator, so it is
    left out of ``__all__``."""
    from .jit import BuiltinFunction
    return BuiltinFunction(fn)


# Triton's `tl.core.CONSTEXPR_0` (a parameter default in fla: `x: tl.constexpr =
# tl.core.CONSTEXPR_0`); left out of `__all__`, as in Triton.
CONSTEXPR_0 = constexpr(0)


def _aggregate(cls):
    """``triton.language.core._aggregate``: Triton's class decorator for aggregates (a class
    whose instances kernels pass around as one value). tritium does not compile aggregates;
    the decorator is here so that modules which define one for another GPU (vLLM's import
    ``from triton.language.core import _aggregate``) still import: it returns the class
    unchanged and marks it, and a kernel that uses it gets tritium's located error for an
    unsupported call."""
    cls.__tritium_aggregate__ = True
    return cls
