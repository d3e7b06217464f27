import tritium as triton
import tritium.language as tl


@triton.jit
def fp4_scaled_loop(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    K_PACKED: tl.constexpr):
    # e2m1 x e2m1 with one e8m0 scale per 32 elements of K, fp32 accumulation over a K loop;
    # two e2m1 values a byte, along K (K_PACKED) or along M / N.
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    if K_PACKED:
        a_offs = rows[:, None] * (K // 2) + tl.arange(0, BK // 2)[None, :]
        b_offs = tl.arange(0, BK // 2)[:, None] * BN + cols[None, :]
        a_step = BK // 2
        b_step = (BK // 2) * BN
    else:
        a_offs = tl.arange(0, BM // 2)[:, None] * K + tl.arange(0, BK)[None, :]
        b_offs = tl.arange(0, BK)[:, None] * (BN // 2) + tl.arange(0, BN // 2)[None, :]
        a_step = BK
        b_step = BK * (BN // 2)
    sa_offs = rows[:, None] * (K // 32) + tl.arange(0, BK // 32)[None, :]
    sb_offs = cols[:, None] * (K // 32) + tl.arange(0, BK // 32)[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + a_offs)
        b = tl.load(b_ptr + b_offs)
        sa = tl.load(sa_ptr + sa_offs)
        sb = tl.load(sb_ptr + sb_offs)
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", acc, lhs_k_pack=K_PACKED, rhs_k_pack=K_PACKED)
        a_offs += a_step
        b_offs += b_step
        sa_offs += BK // 32
        sb_offs += BK // 32
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)
