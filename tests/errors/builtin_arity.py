# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:11: program_id() takes at most 1 arguments
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    pid = tl.program_id(0, 1)
    tl.store(x_ptr, 1.0)
