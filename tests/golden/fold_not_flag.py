# `if not FLAG:` on a flag assigned a Python literal (sglang's extend attention:
# `SKIP_TILE = False`, reassigned only under a constexpr-false `if`, then `if not SKIP_TILE:`
# around the whole loop body) folds: `not` of a constant is a constant, and the `if` on it
# is its taken branch, so the loop body is flat (Triton resolves it in its frontend). The
# integer complement folds too (~5 = -6 in i8 wraps as the type does).
#
# RUN: --kernel skip_tiles --signature "*fp32:16, *i8:16, i32, BLOCK=64, MASKED=False" --emit ir-opt
#
# CHECK-LABEL: func @skip_tiles(
# CHECK: for
# CHECK-NOT: if
# CHECK: load
# CHECK: yield
# CHECK-NOT: not
# CHECK: constant {value = -6} : i8
# CHECK-NOT: not
# CHECK: return
import tritium
import tritium.language as tl


@tritium.jit
def skip_tiles(x_ptr, y_ptr, n, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        SKIP = False
        if MASKED:
            SKIP = tl.max(offs, 0) == 0
        if not SKIP:
            acc += tl.load(x_ptr + start + offs)
    tl.store(x_ptr + offs, acc)
    tl.store(y_ptr, ~tl.full((), 5, tl.int8))
