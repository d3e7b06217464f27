# RUN: --kernel kernel --signature "*fp32:16, i32, BLOCK=16" --emit ir
# ERROR: 11:5: loop-carried variable 'p' is block_ptr<block<16xfp32>> before the loop and (i32, i32) after an iteration
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    zero = 0
    for i in range(n):
        x = tl.load(p, boundary_check=(0,))
        p = (zero, zero)
