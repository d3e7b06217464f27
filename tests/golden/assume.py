# tl.assume(cond) of a run-time scalar is an `assume` op that stays in place (ir-opt keeps
# it: nothing uses its result, but it is a promise for the back end), and LLVM's
# llvm.assume on the GPU, which lets LLVM drop the branch the promise rules out (Triton's
# test_assume: `current_size >= 128` always holds, so the `+ 101024` store is gone from the
# PTX; LLVM drops the promise about `n`, which nothing else reads). A non-bool scalar is
# its truth value; a block or a constant condition is checked and dropped.
#
# RUN: --kernel promise --signature "*i32:16, i32, N=1024, BLOCK_N=128" --emit ir
# RUN: --kernel promise --signature "*i32:16, i32, N=1024, BLOCK_N=128" --emit ir-opt --check-prefix=OPT
# RUN: --kernel promise --signature "*i32:16, i32, N=1024, BLOCK_N=128" --emit llvm --arch sm_90 --check-prefix=LLVM
# RUN: --kernel promise --signature "*i32:16, i32, N=1024, BLOCK_N=128" --emit ptx --arch sm_90 --check-prefix=PTX
#
# CHECK-LABEL: func @promise(
# CHECK: [[GE:%[0-9]+]] = cmp {{%[0-9]+}}, {{%[0-9]+}} {predicate = "ge"} : i1
# CHECK-NEXT: assume [[GE]]
# CHECK: [[NZ:%[0-9]+]] = cmp %n, {{%[0-9]+}} {predicate = "ne"} : i1
# CHECK-NEXT: assume [[NZ]]
# CHECK-NOT: assume
# CHECK: return
#
# OPT-LABEL: func @promise(
# OPT: assume
# OPT: assume
#
# LLVM: [[C:%[0-9]+]] = icmp sgt i32 {{%[0-9]+}}, 127
# LLVM-NEXT: call void @llvm.assume(i1 [[C]])
#
# PTX-NOT: 101024
import tritium
import tritium.language as tl


@tritium.jit
def promise(out_ptr, n, N: tl.constexpr, BLOCK_N: tl.constexpr):
    current_size = N - tl.program_id(0) * BLOCK_N
    tl.assume(current_size >= BLOCK_N)
    tl.assume(n)
    tl.assume(tl.arange(0, 4) < 8)
    tl.assume(True)
    if current_size >= 128:
        tl.store(out_ptr + tl.program_id(0), current_size)
    else:
        tl.store(out_ptr + tl.program_id(0), current_size + 101024)
