# RUN: --kernel kernel --signature "*i32, i32, u64" --emit ir
# ERROR: 9:21: because they have different signedness
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, a, b):
    tl.store(x_ptr, a // b)
