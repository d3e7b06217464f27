# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: expand_dims received duplicate axes, normalized axes = [0, 0]
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.expand_dims(x, (0, -3))
    tl.store(x_ptr + tl.arange(0, 8)[None, None, :], y)
