# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: module 'triton.language' (tl) has no attribute 'frobnicate_everything' that kernels can use
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    tl.frobnicate_everything(x_ptr)
