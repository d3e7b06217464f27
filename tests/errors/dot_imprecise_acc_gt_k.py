# RUN: --kernel kernel --signature "*fp8e4nv, *fp8e5" --emit ir
# ERROR: 11:9: max_num_imprecise_acc (64) must be <= K (32)
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, max_num_imprecise_acc=64)
    tl.static_print(c)
