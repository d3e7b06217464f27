# RUN: --kernel kernel --signature "*fp16, *fp16" --emit ir
# ERROR: 11:9: out_dtype of tl.dot on fp16 inputs must be tl.float32 or tl.float16, got int32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, out_dtype=tl.int32)
    tl.static_print(c)
