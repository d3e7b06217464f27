# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 10:5: initial value for 'v' is of type i32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    v = 0
    if n > 0:
        v = tl.load(x_ptr)
    tl.store(x_ptr, v)
