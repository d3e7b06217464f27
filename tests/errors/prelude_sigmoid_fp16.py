# tl.sigmoid is a @jit function of the Triton-language prelude (src/lower/prelude/); the
# error raised by tl.exp inside it is reported at the user's call, not at the prelude's line.
# RUN: --kernel kernel --signature "*fp16" --emit ir
# ERROR: 12:13: tl.exp expects fp32 or fp64, got fp16
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = x + tl.sigmoid(x)
    tl.store(x_ptr + tl.arange(0, 16), y)
