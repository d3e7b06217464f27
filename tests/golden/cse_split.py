# ir-opt: two identical splits are computed once (ops with several results are keyed on
# all their result types, as single-result ones): unsloth's row-ordered sums split x for
# both sides of x * x, and each split was a 16 KiB round trip through shared memory.
#
# RUN: --kernel halves --signature "*fp32:16, *fp32:16, BLOCK=64" --emit ir-opt
#
# CHECK-LABEL: func @halves(
# CHECK: split
# CHECK-NOT: split
# CHECK: store
import tritium
import tritium.language as tl


@tritium.jit
def halves(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 2 * BLOCK))
    a_lo, a_hi = tl.split(tl.reshape(x, (BLOCK, 2)))
    b_lo, b_hi = tl.split(tl.reshape(x, (BLOCK, 2)))
    tl.store(out_ptr + tl.arange(0, BLOCK), a_lo * b_lo + a_hi * b_hi)
