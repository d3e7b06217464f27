# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:9: undefined name 'helper'
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = helper(1)
    tl.store(x_ptr, v)
