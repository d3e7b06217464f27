"""``triton.language.extra.libdevice`` and ``triton.language.math`` under tritium: the
names of the math functions a kernel may call (``libdevice.tanh(x)``, ``tl.math.erf(x)``).
As in tritium.language, each is a stub that says so when called outside a kernel; the
compiler gives them their meaning."""

from .language import _outside_kernel

# The functions of Triton's libdevice module (NVIDIA's libdevice, by Triton's names) and of
# triton.language.math; a kernel may call each on the types Triton's libdevice accepts.
NAMES = (
    # triton.language.math
    "abs", "cdiv", "ceil", "clamp", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor",
    "fma", "log", "log2", "maximum", "minimum", "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi",
    # libdevice
    "acos", "acosh", "add_rd", "add_rn", "add_ru", "add_rz", "asin", "asinh", "atan", "atan2",
    "atanh", "brev", "byte_perm", "cbrt", "clz", "copysign", "cos", "cosh", "cospi",
    "cyl_bessel_i0", "cyl_bessel_i1", "div_rd", "div_ru", "div_rz", "double2float_rd",
    "double2float_rn", "double2float_ru", "double2float_rz", "erfc", "erfcinv", "erfcx",
    "erfinv", "exp10", "expm1", "fast_cosf", "fast_dividef", "fast_exp10f", "fast_expf",
    "fast_log10f", "fast_log2f", "fast_logf", "fast_powf", "fast_sinf", "fast_tanf", "fdim",
    "ffs", "finitef", "float2int_rn", "float2int_rz", "fma_rd", "fma_rn", "fma_ru", "fma_rz",
    "fmax", "fmin", "fmod", "hadd", "hypot", "ilogb", "isfinited", "isinf", "isnan", "j0",
    "j1", "jn", "ldexp", "lgamma", "llrint", "llround", "log10", "log1p", "logb", "mul24",
    "mul_rd", "mul_rn", "mul_ru", "mul_rz", "mulhi", "nearbyint", "nextafter", "norm3d",
    "norm4d", "normcdf", "normcdfinv", "popc", "pow", "rcbrt", "rcp_rd", "rcp_rn", "rcp_ru",
    "rcp_rz", "remainder", "rhypot", "rint", "rnorm3d", "rnorm4d", "round", "sad",
    "saturatef", "scalbn", "signbit", "sinh", "sinpi", "sqrt_rd", "sqrt_ru", "sqrt_rz",
    "tan", "tanh", "tgamma", "trunc", "y0", "y1", "yn",
    # libdevice: conversions, directed rounding and bit moves
    "double2hiint", "double2int_rd", "double2int_rn", "double2int_ru", "double2int_rz",
    "double2ll_rd", "double2ll_rn", "double2ll_ru", "double2ll_rz", "double2loint",
    "double2uint_rd", "double2uint_rn", "double2uint_ru", "double2uint_rz", "double2ull_rd",
    "double2ull_rn", "double2ull_ru", "double2ull_rz", "double_as_longlong", "float2int_rd",
    "float2int_ru", "float2ll_rd", "float2ll_rn", "float2ll_ru", "float2ll_rz",
    "float2uint_rd", "float2uint_rn", "float2uint_ru", "float2uint_rz", "float2ull_rd",
    "float2ull_rn", "float2ull_ru", "float2ull_rz", "float_as_int", "float_as_uint",
    "hiloint2double", "int2double_rn", "int2float_rd", "int2float_rn", "int2float_ru",
    "int2float_rz", "int_as_float", "ll2double_rd", "ll2double_rn", "ll2double_ru",
    "ll2double_rz", "ll2float_rd", "ll2float_rn", "ll2float_ru", "ll2float_rz",
    "longlong_as_double", "rcp64h", "rhadd", "rsqrt_rn", "sub_rd", "sub_rn", "sub_ru",
    "sub_rz", "uint2double_rn", "uint2float_rd", "uint2float_rn", "uint2float_ru",
    "uint2float_rz", "uint_as_float", "ull2double_rd", "ull2double_rn", "ull2double_ru",
    "ull2double_rz", "ull2float_rd", "ull2float_rn", "ull2float_ru", "ull2float_rz",
)


def _stub(name):
    def stub(*args, **kwargs):
        _outside_kernel(f"math.{name}")
    stub.__name__ = stub.__qualname__ = name
    return stub


for _name in NAMES:
    globals()[_name] = _stub(_name)

__all__ = sorted(set(NAMES))
