# tl.range(..., loop_unroll_factor=N) (lower_stmt.cpp; DESIGN.md, "Loop unrolling"), as Triton
# 3.6's TTIR LoopUnroll pass: for N > 1 and a constant positive step, the loop becomes one
# over the first trip - trip % N iterations by N * step whose body is N copies of the body
# (the k-th at i + k * step), then one over the remaining iterations with num_stages = 1
# (not pipelined). N <= 1 (negative included) is the loop as written.
#
# RUN: --kernel scale --signature "*fp32:16, *fp32:16, i32, N=4" --emit ir --check-prefix=IR
# RUN: --kernel scale --signature "*fp32:16, *fp32:16, i32, N=4" --emit ptx --check-prefix=PTX
# RUN: --kernel scale --signature "*fp32:16, *fp32:16, i32, N=-1" --emit ir --check-prefix=NONE
#
# IR-LABEL: func @scale(
# IR: maximum %n, %1 : i32
# IR: rem %{{[0-9]+}}, %{{[0-9]+}} : i32
# IR: %[[END:[0-9]+]] = add %1, %{{[0-9]+}} : i32
# IR: %[[BY:[0-9]+]] = constant {value = 12} : i32
# IR: %[[MAIN:[0-9]+]] = for %1, %[[END]], %[[BY]], %0 -> fp32 {
# IR: load
# IR: load
# IR: load
# IR: load
# IR-NOT: load
# IR: yield
# IR: for %[[END]], %n, %2, %[[MAIN]] {num_stages = 1} -> fp32 {
# IR: load
# IR-NOT: load
# IR: return
#
# PTX-LABEL: .visible .entry scale(
# PTX: ld.global
# PTX: ld.global
# PTX: ld.global
# PTX: ld.global
# PTX: ld.global
# PTX-NOT: ld.global
# PTX: ret;
#
# NONE-LABEL: func @scale(
# NONE: for
# NONE: load
# NONE-NOT: load
# NONE-NOT: for
# NONE: return
import tritium
import tritium.language as tl


@tritium.jit
def scale(x_ptr, out_ptr, n, N: tl.constexpr):
    acc = 0.0
    for i in tl.range(1, n, 3, loop_unroll_factor=N):
        acc = acc * 0.5 + tl.load(x_ptr + i)
    tl.store(out_ptr + tl.program_id(0), acc)
