# ir-opt: a constant added and taken away again cancels ((x + c) - c, (x - c) + c), so
# tl.cdiv(n, 1) is n: the store's mask then keeps n's divisibility (16-byte vectors), as
# MLIR's canonicalization gives Triton. (c - x) + c and c - (x + c) are not x and stay.
#
# RUN: --kernel cancelled --signature "*fp32:16, i32:16, i32, BLOCK=256" --emit ir-opt
#
# CHECK-LABEL: func @cancelled(
# CHECK: %1 = splat %n
# CHECK-NEXT: %2 = cmp %0, %1
# CHECK: sub %3, %m
# CHECK-NEXT: add %4, %3
# CHECK: sub %6, %7
# CHECK: and %2, %2
# CHECK: store
import tritium
import tritium.language as tl


@tritium.jit
def cancelled(x_ptr, n, m, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = offs < tl.cdiv(n, 1)
    b = offs < (n - 5) + 5
    c = (7 - m) + 7
    d = 3 - (m + 3)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs), mask=a & b & (offs < c + d))
