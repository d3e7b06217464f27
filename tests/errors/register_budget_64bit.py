# RUN: --kernel kernel --signature "*i64:16, 262144" --num-warps 2 --emit ptx
# ERROR: 10:17: needs 8192 registers per thread with 2 warps
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, x * 2)
