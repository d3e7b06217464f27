# RUN: --kernel kernel --signature "*bf16, *bf16" --emit ir
# ERROR: 11:9: out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast with `.to(tl.bfloat16)`
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, out_dtype=tl.bfloat16)
    tl.static_print(c)
