# RUN: --kernel kernel --signature "*i32, i32" --emit ir
# ERROR: 10:9: argument 'num_bins' of histogram() must be a tl.constexpr integer
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 64))
    h = tl.histogram(x, n)
    tl.store(x_ptr + tl.arange(0, 8), h)
