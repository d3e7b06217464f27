# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 10:9: argument 'axis' of sum() must be a tl.constexpr integer
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, a):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    s = tl.sum(x, axis=a)
    tl.store(x_ptr + tl.arange(0, 8), s)
