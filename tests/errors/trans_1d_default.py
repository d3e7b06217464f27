# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: permute dims must be a permutation
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.trans(x)
    tl.store(x_ptr + tl.arange(0, 8), y)
