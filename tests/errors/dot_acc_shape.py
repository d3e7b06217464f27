# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: acc of tl.dot must have shape [16, 16] and dtype out_dtype=float32, got block<16x32xfp32>
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, acc=tl.zeros((16, 32), tl.float32))
    tl.static_print(c)
