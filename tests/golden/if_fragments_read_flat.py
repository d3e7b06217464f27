# An `if` whose results are dot results held in fragments and read flat too (stored): each
# result's flat copy (a round trip through shared memory) is made after the phis of all the
# results. Before, the first result's copy came between its phis and the second's, and LLVM
# refused the module ("PHI nodes not grouped at top of basic block"): fla's
# chunk_gated_delta_rule_fwd_kkt_solve_kernel with its loop of one trip written out.
#
# RUN: --kernel branch_dots --signature "*fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, BM=32" --num-warps 1 --arch sm_80 --emit ptx
#
# CHECK-LABEL: .visible .entry branch_dots(
# CHECK: mma.sync.aligned.m16n8k16
# CHECK: ret;
import triton
import triton.language as tl


@triton.jit
def branch_dots(a_ptr, b_ptr, c_ptr, d_ptr, n, BM: tl.constexpr):
    r = tl.arange(0, BM)
    at = r[:, None] * BM + r[None, :]
    a = tl.load(a_ptr + at)
    b = tl.load(b_ptr + at)
    x = tl.zeros((BM, BM), tl.float32)
    y = tl.zeros((BM, BM), tl.float32)
    if n > 0:
        x = tl.dot(a, b)
        y = tl.dot(b, a)
    tl.store(c_ptr + at, x)
    tl.store(d_ptr + at, y)
