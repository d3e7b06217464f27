# A select whose two sides are the same value is that value, whatever its condition: xformers'
# tiled matmul picks each stride among three arguments (`tl.where(pid_m < grid_m1, stride_ak1,
# tl.where(pid_m < grid_m1 + grid_m2, stride_ak2, stride_ak3))`), and where all three are
# specialized to 1 the stride is the constant 1 (MLIR folds the select in Triton). The rows
# are then runs the loads read 8 fp16 at a time; before, the select stayed, the stride was
# unknown, and every element was copied alone (2-byte copies: 80 registers, twice Triton's
# SASS).
#
# RUN: --kernel pick_stride --signature "*fp16:16, *fp16:16, i32, i32, 1, 1, 1, BLOCK=1024" --emit ir-opt
# RUN: --kernel pick_stride --signature "*fp16:16, *fp16:16, i32, i32, 1, 1, 1, BLOCK=1024" --emit ptx --arch sm_90 --check-prefix=PTX
# RUN: --kernel pick_stride --signature "*fp16:16, *fp16:16, i32, i32, i32, i32, i32, BLOCK=1024" --emit ir-opt --check-prefix=KEPT
#
# CHECK-LABEL: func @pick_stride(
# CHECK-NOT: select
# CHECK: [[RANGE:%[0-9]+]] = make_range
# CHECK-NOT: select
# CHECK: = addptr {{%[0-9]+}}, [[RANGE]] : block<1024xptr<fp16>>
# CHECK-NEXT: = load
# CHECK: return
#
# PTX-NOT: ld.global.b16
# PTX: ld.global.v4.b32
# PTX-NOT: ld.global
#
# KEPT-LABEL: func @pick_stride(
# KEPT: select
# KEPT: select
# KEPT: load
import triton
import triton.language as tl


@triton.jit
def pick_stride(x_ptr, out_ptr, g1, g2, s1, s2, s3, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    stride = tl.where(pid < g1, s1, tl.where(pid < g1 + g2, s2, s3))
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + offs * stride)
    tl.store(out_ptr + pid * BLOCK + offs, x)
