# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:21: Unexpected dtype for e4m3. Got fp32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    tl.store(x_ptr, tl.dot_scaled(v, None, "e4m3", v, None, "e4m3"))
