# Dot operands that are `tl.trans` of a block, as fla's chunk_bwd_kernel_dqkwg has them:
# `tl.dot(b_do, tl.trans(b_v))` (B the transpose of a loaded block that is also another
# dot's A) and `tl.dot(tl.trans(b_ds), b_q)` (A the transpose of an earlier dot's result,
# held in fragments). Each trans moves nothing (no shared memory of its own): every dot
# reading it stages the trans's source into its tile, held the other way round (B K-major,
# A M-major on mma.sync: ldmatrix reads it with .trans flipped), the fragments a pair of
# registers at a time (gpu::trans_staged_by_dots). Before, the fragments went to the flat
# layout through shared memory, then through the trans's round trip, then into the tile.
# The masked dot result (`ds`, bf16) is not read flat at all.
#
# RUN: --kernel dqk --signature "*bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, BT=64, BK=32" --emit gpu-ir --arch sm_90 --num-warps 2
# RUN: --kernel dqk --signature "*bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, BT=64, BK=32" --emit gpu-ir --arch sm_80 --num-warps 4 --check-prefix=SM80
#
# CHECK-LABEL: func @dqk(
# CHECK: trans {{%[0-9]+}} {order = [1, 0]} : block<32x64xbf16, {{.*}}  // moves nothing: its dots stage the source
# CHECK: dot
# CHECK: select
# CHECK-NOT: also read flat
# CHECK: trans {{%[0-9]+}} {order = [1, 0]} : block<64x64xbf16, {{.*}}  // moves nothing: its dots stage the source from its fragments
# CHECK: return
#
# SM80-LABEL: func @dqk(
# SM80: trans {{%[0-9]+}} {order = [1, 0]} : block<32x64xbf16, {{.*}}  // moves nothing: its dots stage the source
# SM80: trans {{%[0-9]+}} {order = [1, 0]} : block<64x64xbf16, {{.*}}  // moves nothing: its dots stage the source from its fragments
import triton
import triton.language as tl


@triton.jit
def dqk(do_ptr, v_ptr, q_ptr, k_ptr, w_ptr, dq_ptr, dk_ptr, BT: tl.constexpr, BK: tl.constexpr):
    rt = tl.arange(0, BT)
    rk = tl.arange(0, BK)
    at = rt[:, None] * BK + rk[None, :]
    do = tl.load(do_ptr + at)
    v = tl.load(v_ptr + at)
    q = tl.load(q_ptr + at)
    k = tl.load(k_ptr + at)
    ds = tl.dot(do, tl.trans(v))
    ds = tl.where(rt[:, None] >= rt[None, :], ds, 0).to(q.dtype)
    dq = tl.dot(ds, k)
    dk = tl.dot(tl.trans(ds), q) + tl.dot(v, tl.load(w_ptr + rk[:, None] * BK + rk[None, :]))
    tl.store(dq_ptr + at, dq.to(dq_ptr.dtype.element_ty))
    tl.store(dk_ptr + at, dk.to(dk_ptr.dtype.element_ty))
