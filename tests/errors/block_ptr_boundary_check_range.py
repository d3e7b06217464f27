# RUN: --kernel kernel --signature "*fp32:16, i32, BLOCK=16" --emit ir
# ERROR: 10:9: boundary_check dimension 1 is out of range for a block pointer of rank 1
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    x = tl.load(p, boundary_check=(1,))
    tl.store(p, x)
