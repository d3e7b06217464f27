# RUN: --kernel kernel --signature "*i32" --emit ir
# ERROR: 19:12: recursion is not supported
import tritium
import tritium.language as tl


@tritium.jit
def kernel(p):
    tl.store(p, rec_a(1))


@tritium.jit
def rec_a(x):
    return rec_b(x)


@tritium.jit
def rec_b(x):
    return rec_a(x)
