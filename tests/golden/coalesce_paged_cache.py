# vLLM's prefix prefill reads K from a paged cache, [blocks, D / X, PBS, X], through a block
# table: `block[None, :] * stride + (d // X) * stride_d + slot * X + d % X`, contiguous along
# the head dimension (axis 0 of the [D, N] tile) in runs of X = 8 fp16. The offsets read a
# loaded block number, so they are not recomputable from the element index: gpu/coalesce.cpp
# computes them again in the access's layout (in_slot; the block numbers broadcast into it),
# and the `if` around the last tile's masked load yields both branches' loads in that layout,
# converted back once for the dot, which stages from it. Before, K was read an element at a
# time (16 loads a thread in each branch; vLLM's kernel spilled 160 bytes, now 12).
#
# RUN: --kernel paged --signature "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32:16, i32:16, i32, X=8, BM=64, D=64, BN=32, PBS=16" --num-warps 4 --num-stages 1 --emit gpu-ir --arch sm_90 --check-prefix=IR
# RUN: --kernel paged --signature "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32:16, i32:16, i32, X=8, BM=64, D=64, BN=32, PBS=16" --num-warps 4 --num-stages 1 --emit ptx --arch sm_90 --check-prefix=PTX
#
# IR-LABEL: func @paged(
# IR: = for
# IR: [[TABLE:%[0-9]+]] = load {{.*}} : block<32xi32,
# IR: = broadcast {{%[0-9]+}} {in_slot = 1{{.*}}} : block<64x32xi64, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>
# IR: = add {{%[0-9]+}}, {{%[0-9]+}} {in_slot = 1} : block<64x32xi64, blocked<spt = [8, 1]
# IR: [[K:%[0-9]+]] = if {{%[0-9]+}} {in_slot = 1} -> block<64x32xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>> {
# IR: = addptr {{%[0-9]+}}, [[OFF:%[0-9]+]] {in_slot = 1}
# IR: = load {{.*}} : block<64x32xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>
# IR: } else {
# IR: = addptr {{%[0-9]+}}, [[OFF]] {in_slot = 1}
# IR: = load {{.*}} : block<64x32xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>
# IR: }
# IR-NEXT: [[BACK:%[0-9]+]] = convert_layout [[K]] : block<64x32xfp16, blocked<spt = [1, 4]
# IR: = dot {{%[0-9]+}}, [[BACK]],
#
# The fp16 loads of K: 16-byte vectors only (q's and K's), the block table's i32 scalar.
# PTX-LABEL: .entry paged(
# PTX-NOT: ld.global.b16
# PTX-NOT: ld.global.nc.b16
# PTX: ld.global{{.*}}.v4.b32
# PTX-NOT: ld.global.b16

import triton
import triton.language as tl


@triton.jit
def paged(q_ptr, k_cache, block_table, out_ptr, stride_kb, stride_kd, ctx_len, X: tl.constexpr,
          BM: tl.constexpr, D: tl.constexpr, BN: tl.constexpr, PBS: tl.constexpr):
    rm = tl.arange(0, BM)
    rd = tl.arange(0, D)
    rn = tl.arange(0, BN)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, BN), tl.float32)
    for start in range(0, ctx_len, BN):
        token = start + rn
        block = tl.load(block_table + token // PBS).to(tl.int64)
        off_k = (block[None, :] * stride_kb + (rd[:, None] // X) * stride_kd + (token % PBS)[None, :] * X
                 + rd[:, None] % X)
        if start + BN > ctx_len:
            k = tl.load(k_cache + off_k, mask=token[None, :] < ctx_len, other=0.0)
        else:
            k = tl.load(k_cache + off_k)
        acc += tl.dot(q, k)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)
