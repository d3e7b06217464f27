# RUN: --kernel kernel --signature "*i8, *i8" --emit ir
# ERROR: 11:9: acc of tl.dot must have shape [32, 32] and dtype out_dtype=float32, got block<32x32xi32> (pass out_dtype=tl.int32)
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    c = tl.dot(a, b, acc=tl.zeros((32, 32), tl.int32))
    tl.static_print(c)
