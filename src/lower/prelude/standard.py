# tritium's Triton-language prelude: the builtins that Triton itself writes in its own
# language (triton/language/standard.py), written once here as @jit functions. CMake embeds
# this file in the library (src/lower/CMakeLists.txt); tritium's frontend parses it on the
# first call of one of these builtins and inlines the call like a user's @jit function, so
# the interpreter and the GPU run them with nothing of their own. Each top-level @jit
# function is the builtin tl.<name> (a leading _ keeps a helper private); @_tensor_member_fn
# also makes it a tensor method.
# Errors raised in here are reported at the user's call, and the ops made here are located
# there too (lower/prelude.cpp).
import triton
import triton.language as tl


@_tensor_member_fn
@triton.jit
def cdiv(x, div):
    return (x + div - 1) // div


@_tensor_member_fn
@triton.jit
def sigmoid(x):
    return 1 / (1 + tl.exp(-x))


# dim None is 0, so without keep_dims only dim 0 of a 2-D block broadcasts back. As
# Triton: math.fdiv(num, den, ieee_rounding), the fast division unless asked.
@_tensor_member_fn
@triton.jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    _dim: tl.constexpr = 0 if dim is None else dim
    z = x - tl.max(x, _dim, keep_dims=keep_dims)
    num = tl.exp(z)
    den = tl.sum(num, _dim, keep_dims=keep_dims)
    return tl.fdiv(num, den, ieee_rounding)


@triton.jit
def zeros_like(input, dtype=None):
    tl.static_assert(not input.dtype.is_ptr(), "zeros_like of a pointer tensor is not supported")
    return tl.zeros(input.shape, input.dtype if dtype is None else dtype)


@_tensor_member_fn
@triton.jit
def ravel(x, can_reorder=False):
    return tl.reshape(x, [x.numel], can_reorder=can_reorder)


# The row-major index (i, j) of a size_i x size_j grid renumbered column-major within
# groups of size_g rows (the last group may be shorter). The steps are parameters of helper
# functions rather than assigned names, which would turn constant arguments into runtime
# values: tl.swizzle2d of constants stays a constant.
@triton.jit
def swizzle2d(i, j, size_i, size_j, size_g):
    return _swizzle2d_group(i * size_j + j, size_i, size_g * size_j, size_g)


@triton.jit
def _swizzle2d_group(ij, size_i, size_gj, size_g):
    return _swizzle2d_rows(ij, size_i, size_gj, size_g, ij // size_gj * size_g)


@triton.jit
def _swizzle2d_rows(ij, size_i, size_gj, size_g, off_i):
    return _swizzle2d_place(off_i, tl.minimum(size_i - off_i, size_g), ij % size_gj)


@triton.jit
def _swizzle2d_place(off_i, size_g, ij):
    return off_i + ij % size_g, ij // size_g


# Triton's named arithmetic (x + y, x - y, x * y). sanitize_overflow asks Triton's debug mode
# to check integer overflow; tritium's debug checks do not cover arithmetic, so it is taken
# and has no effect.
@triton.jit
def add(x, y, sanitize_overflow: tl.constexpr = True):
    return x + y


@triton.jit
def sub(x, y, sanitize_overflow: tl.constexpr = True):
    return x - y


@triton.jit
def mul(x, y, sanitize_overflow: tl.constexpr = True):
    return x * y


@triton.jit
def _or_combine(x, y):
    return x | y


# The bitwise or of the elements along `axis` (integers only), as tl.xor_sum is their xor.
@_tensor_member_fn
@triton.jit
def reduce_or(input, axis, keep_dims=False):
    tl.static_assert(input.dtype.is_int(), "reduce_or only supported for integers")
    return tl.reduce(input, axis, _or_combine, keep_dims=keep_dims)


# `while tl.condition(c, disable_licm=True):` is `while c:`. disable_licm asks Triton not to
# hoist loop-invariant code out of the loop; tritium's own passes hoist nothing out of a
# while (LLVM's may), so it is taken and has no effect.
@triton.jit
def condition(arg1, disable_licm=False):
    return arg1
