# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: unexpected keyword argument 'mask_'
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = tl.load(x_ptr, mask_=True)
    tl.store(x_ptr, v)
