# A prelude builtin binds its arguments with Python's wording, located at the call.
# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 11:40: softmax() got an unexpected keyword argument 'axis'
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x.softmax(axis=0))
