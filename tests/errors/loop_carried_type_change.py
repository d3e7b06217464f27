# RUN: --kernel kernel --signature "*fp32, i32" --emit ir
# ERROR: 10:5: loop-carried variable 'acc' has initial type i32 but is reassigned to fp32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n):
    acc = 0
    for i in range(n):
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)
