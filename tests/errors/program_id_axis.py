# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:11: program_id axis must be 0, 1, or 2 but got
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    pid = tl.program_id(3)
    tl.store(x_ptr, 1.0)
