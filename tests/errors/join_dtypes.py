# Found by the fuzzer (seed 7, iteration 334,504): join of an i1 and an i32 block reached the
# verifier as an internal error ("the second operand has type block<64xi32>").
# RUN: --kernel kernel --signature "*i1, *fp32, N=64" --emit ir
# ERROR: 12:9: join: both operands must have the same dtype, got i1 and i32
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    j = tl.join(x, x + 1)
    a, b = tl.split(j)
    tl.store(out_ptr + tl.arange(0, N), a + b)
