# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: permute dims must be a permutation of 0, 1, ..., n-1
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    z = tl.permute(x, (0, 0))
    tl.store(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], z)
