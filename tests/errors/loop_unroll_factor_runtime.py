# RUN: --kernel kernel --signature "*fp32, i32, i32" --emit ir
# ERROR: 9:51: loop_unroll_factor must be an integer constant, got
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n, u):
    for i in tl.range(0, n, 1, loop_unroll_factor=u):
        tl.store(x_ptr + i, 1.0)
