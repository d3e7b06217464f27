# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 11:13: return statements inside while or for
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    for i in range(n):
        if i > 2:
            return
    tl.store(x_ptr, 1.0)
