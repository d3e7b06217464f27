# RUN: --kernel kernel --signature "*fp32:16, *fp32:16, i32, 1048576" --emit ptx
# ERROR: 9:39: needs 8192 registers per thread with 4 warps, more than the budget of 4096
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x + 1.0, mask=offs < n)
