"""A chunked linear-attention state update (the pattern of flash-linear-attention's
chunk_fwd_kernel_h, which it launches at 1 warp): a 16x16 fp32 state accumulates
dot(k^T tile [16, 64], v tile [64, 16]) per chunk, k read transposed (contiguous along the
first dimension); the _gk variant scales the state and k by per-row decays first.

Static registers on sm_90a (ptxas -v), tritium vs Triton 3.6, 1 warp (tests/realk/RESULTS.md):
    state_update     bf16, num_stages 2:  164 vs 52     fp32, num_stages 1: 128 vs 66
    state_update_gk  fp32, num_stages 2:  240 vs 72     bf16, num_stages 2: 168 vs 64
(fla's real kernel with USE_GK: 255 registers and 60 bytes of spills vs 72, none.)

    build/tools/tritium compile tests/triton_suite/gpu_sweep_repro/realk_state_update.py \\
        --kernel state_update_gk --signature "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, BT=64, BK=16, BV=16" \\
        --num-warps 1 --num-stages 2 --emit ptx --arch sm_90 > /tmp/s.ptx && ptxas -arch=sm_90a -v /tmp/s.ptx
"""

import tritium as triton
import tritium.language as tl


@triton.jit
def state_update(k_ptr, v_ptr, h_ptr, T, BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    state = tl.zeros([BK, BV], dtype=tl.float32)
    rows = tl.arange(0, BK)
    cols = tl.arange(0, BV)
    for chunk in range(tl.cdiv(T, BT)):
        t = chunk * BT + tl.arange(0, BT)
        live = t < T
        kt = tl.load(k_ptr + rows[:, None] + t[None, :] * BK, mask=live[None, :], other=0.0)
        vt = tl.load(v_ptr + t[:, None] * BV + cols[None, :], mask=live[:, None], other=0.0)
        state += tl.dot(kt, vt)
    tl.store(h_ptr + rows[:, None] * BV + cols[None, :], state)


@triton.jit
def state_update_gk(k_ptr, v_ptr, gk_ptr, h_ptr, T, BT: tl.constexpr, BK: tl.constexpr,
                    BV: tl.constexpr):
    state = tl.zeros([BK, BV], dtype=tl.float32)
    rows = tl.arange(0, BK)
    cols = tl.arange(0, BV)
    for chunk in range(tl.cdiv(T, BT)):
        t = chunk * BT + tl.arange(0, BT)
        live = t < T
        kt = tl.load(k_ptr + rows[:, None] + t[None, :] * BK, mask=live[None, :], other=0.0)
        vt = tl.load(v_ptr + t[:, None] * BV + cols[None, :], mask=live[:, None], other=0.0)
        last = tl.minimum((chunk + 1) * BT, T) - 1
        decay_last = tl.load(gk_ptr + last * BK + rows)
        decay = tl.load(gk_ptr + rows[:, None] + t[None, :] * BK, mask=live[None, :], other=0.0)
        state *= tl.exp2(decay_last)[:, None]
        kt = (kt * tl.exp2(decay_last[:, None] - decay)).to(kt.dtype)
        state += tl.dot(kt, vt)
    tl.store(h_ptr + rows[:, None] * BV + cols[None, :], state)
