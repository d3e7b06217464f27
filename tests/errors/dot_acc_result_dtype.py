# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: acc of tl.dot has dtype fp16, but tl.dot of fp32 inputs produces fp32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, acc=tl.zeros((16, 16), tl.float16), out_dtype=tl.float16)
    tl.static_print(c)
