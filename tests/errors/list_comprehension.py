# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:21: can only be used as the iterable of a for loop
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    v = [i for i in range(4)]  # comprehensions iterate over tuples (as Triton's), not range()
    tl.store(x_ptr, 1.0)
