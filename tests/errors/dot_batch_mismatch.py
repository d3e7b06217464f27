# RUN: --kernel kernel --signature "*fp32, *fp32" --emit ir
# ERROR: 11:9: the batch dimensions of tl.dot's inputs differ: [2, 16, 16] and [4, 16, 16]
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 512)).reshape(2, 16, 16)
    b = tl.load(y_ptr + tl.arange(0, 1024)).reshape(4, 16, 16)
    c = tl.dot(a, b)
    tl.static_print(c)
