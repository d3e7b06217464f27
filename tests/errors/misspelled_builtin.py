# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: module 'triton.language' (tl) has no attribute 'lod' that kernels can use; did you mean `tl.load`?
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    offs = tl.arange(0, 16)
    x = tl.lod(x_ptr + offs)
    tl.store(x_ptr + offs, x)
