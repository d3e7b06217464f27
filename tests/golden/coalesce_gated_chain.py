# A dot operand computed in a loop from two loads of its shape (flash-linear-attention's
# gated state update, chunk_fwd_kernel_h with USE_GK: `b_k * exp2(b_gk_last[:, None] - b_gk)`,
# k and its gate gk both [BK, BT] and contiguous along BK).
#
# Not pipelined (num_stages 1): gpu/coalesce.cpp's chain_to_dots takes gk as the chain's
# other load: both are made along BK in 16-byte runs (bf16 k eight elements a run, fp32 gk
# the same eight, two 16-byte loads), the chain computed there (in_slot) and staged by the
# dot. Before, a second load in the chain refused it, and k and gk were loaded an element at
# a time (fla's 1-warp kernel: 64 scalar loads, 145 registers; now 12 16-byte loads, 107).
# RUN: --kernel gated --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, i32, BT=64, BK=16, BV=16, GATE_ALONG_K=True" --num-warps 1 --num-stages 1 --emit gpu-ir --arch sm_90 --check-prefix=IR
# RUN: --kernel gated --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, i32, BT=64, BK=16, BV=16, GATE_ALONG_K=True" --num-warps 1 --num-stages 1 --emit ptx --arch sm_90 --check-prefix=PTX
#
# Pipelined on wgmma (num_stages 2, 4 warps along BK = 64; session 32): both are read-back
# operands copied by cp.async in 16-byte runs down their columns into stage buffers held
# transposed (gpu/prefetch_operands.h, async_copy.h), the chain computed in A's fragments,
# each thread reading its positions of both buffers (k by ldmatrix.trans), the last row
# loaded again at its rows, and wgmma reads A from registers: no ld.global of k or gk in the
# loop, no staging of A. (At 1 warp, mma.sync, they stay as above: prefetch_operands copies
# them only where the chain goes to A's fragments on wgmma.) Since session 33 the last row
# (`decay_last`, a line) is copied too, 4 bytes an element (AsyncOperand::line), and read at
# A's rows from its stage buffer: no ld.global left in the kernel, the barriers as before (4).
# (LLVM places the loop's blocks so that its wgmma comes before the ldmatrix in the text.)
# RUN: --kernel gated --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, i32, BT=64, BK=64, BV=64, GATE_ALONG_K=True" --num-warps 4 --num-stages 2 --emit gpu-ir --arch sm_90 --check-prefix=PIPE
# RUN: --kernel gated --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, i32, BT=64, BK=64, BV=64, GATE_ALONG_K=True" --num-warps 4 --num-stages 2 --emit ptx --arch sm_90 --check-prefix=PIPEPTX
#
# The gate stored the other way (contiguous along BT, the flat rule's axis): made along BK it
# would be read an element at a time, so the chain stays as it was (k in the flat rule too).
# RUN: --kernel gated --signature "*bf16:16, *bf16:16, *fp32:16, *fp32:16, i32, BT=64, BK=16, BV=16, GATE_ALONG_K=False" --num-warps 1 --num-stages 1 --emit gpu-ir --arch sm_90 --check-prefix=ACROSS
#
# PIPE-LABEL: func @gated(
# PIPE: = load {{.*}} {read_back = 1} : block<64x64xbf16, {{.*}} 16-byte copies down the columns, held transposed, dealt out evenly, read back at the fragment positions
# PIPE: = load {{.*}} {read_back = 1} : block<64x64xfp32, {{.*}} 16-byte copies down the columns, held transposed, dealt out evenly, read back at the fragment positions
# PIPE: = for
# PIPE: = sub {{.*}} a copied operand read at the fragment positions from its stage buffer
# PIPE: = cast {{.*}} a copied operand read at the fragment positions from its stage buffer
# PIPE: = dot {{.*}} A read from its fragments' registers
#
# PIPEPTX-LABEL: .entry gated(
# PIPEPTX-NOT: ld.global
# PIPEPTX: cp.async.cg.shared.global
# PIPEPTX-NOT: ld.global
# PIPEPTX: cp.async.ca.shared.global {{.*}}, 4,
# PIPEPTX-NOT: ld.global
# PIPEPTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
# PIPEPTX-NOT: ld.global
# PIPEPTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# PIPEPTX-NOT: ld.global
# PIPEPTX: ret;
#
# IR-LABEL: func @gated(
# IR: = for
# IR: [[K:%[0-9]+]] = load {{.*}} : block<16x64xbf16, blocked<spt = [8, 1], tpw = [2, 16], wpc = [1, 1], order = [0, 1]>>
# IR: [[G:%[0-9]+]] = load {{.*}} : block<16x64xfp32, blocked<spt = [8, 1], tpw = [2, 16], wpc = [1, 1], order = [0, 1]>>
# IR: = sub {{%[0-9]+}}, [[G]] {in_slot = 1}
# IR: = exp2 {{%[0-9]+}} {in_slot = 1}
# IR: = cast [[K]] {in_slot = 1}
# IR: = mul {{%[0-9]+}}, {{%[0-9]+}} {in_slot = 1}
# IR: [[A:%[0-9]+]] = cast {{%[0-9]+}} {in_slot = 1} : block<16x64xbf16, blocked<spt = [8, 1]
# IR: [[BACK:%[0-9]+]] = convert_layout [[A]] : block<16x64xbf16, blocked<spt = [1, 8]
# IR: = dot [[BACK]],
#
# PTX-LABEL: .entry gated(
# PTX-NOT: ld.global.b16
# PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# PTX-NOT: ld.global.b16
# PTX: ld.global.v4.b32
# PTX-NOT: ld.global.b16
# PTX: ret;
#
# ACROSS-LABEL: func @gated(
# ACROSS: = for
# ACROSS-NOT: in_slot
# ACROSS: = dot
import triton
import triton.language as tl


@triton.jit
def gated(k_ptr, v_ptr, gk_ptr, h_ptr, T, BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr,
          GATE_ALONG_K: tl.constexpr):
    state = tl.zeros([BK, BV], dtype=tl.float32)
    rows = tl.arange(0, BK)
    cols = tl.arange(0, BV)
    for chunk in range(tl.cdiv(T, BT)):
        t = chunk * BT + tl.arange(0, BT)
        live = t < T
        kt = tl.load(k_ptr + rows[:, None] + t[None, :] * BK, mask=live[None, :], other=0.0)
        vt = tl.load(v_ptr + t[:, None] * BV + cols[None, :], mask=live[:, None], other=0.0)
        last = tl.minimum((chunk + 1) * BT, T) - 1
        if GATE_ALONG_K:
            decay_last = tl.load(gk_ptr + last * BK + rows)
            decay = tl.load(gk_ptr + rows[:, None] + t[None, :] * BK, mask=live[None, :], other=0.0)
        else:
            decay_last = tl.load(gk_ptr + rows * T + last)
            decay = tl.load(gk_ptr + rows[:, None] * T + t[None, :], mask=live[None, :], other=0.0)
        state *= tl.exp2(decay_last)[:, None]
        kt = (kt * tl.exp2(decay_last[:, None] - decay)).to(kt.dtype)
        state += tl.dot(kt, vt)
        # fla stores the state of every chunk
        tl.store(h_ptr + chunk * BK * BV + rows[:, None] * BV + cols[None, :], state)
