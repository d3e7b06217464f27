# RUN: --kernel kernel --signature "*fp32, *fp16" --emit ir
# ERROR: 10:21: must be a scalar dtype, got the dtype pointer<fp16>
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(y_ptr, x.to(y_ptr.dtype))
