# RUN: --kernel kernel --signature "*fp32, *fp16" --emit ir
# ERROR: 12:21: cannot cast fp32 to a pointer
# A pointer dtype is a cast target (pointer to pointer, int64 to pointer, as Triton's cast),
# but a float is not converted to a pointer.
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(y_ptr, x.to(y_ptr.dtype))
