# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: invalid axis 2. Expected -2 <= axis < 2
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    s = tl.sum(x, axis=2)
    tl.store(x_ptr, tl.sum(s))
