# vLLM's unified attention pipelined: each tile's pages are block-table entries loaded in the
# loop body, so gpu/prefetch_operands.h prefetches the entries an iteration further ahead than
# the tiles (in registers) and K and V are copied by cp.async. K ([D, BN], contiguous along
# the head dimension through the loaded entries: not recomputable from the element index) is
# made in its slot (gpu/coalesce.h: runs of 8 fp16 along D, the block numbers broadcast into
# it), before the loop for iterations 0 and 1 and in the body for i + 2, each load converted
# back to the layout the loop carries by a conversion that passes the stage buffer's offset;
# each thread copies its own 16-byte runs. Before, the flat layout's threads holding each
# run's first element copied them all (4 lanes a warp, 32 copies each, every address of the
# tile computed: vLLM's kernel 106 -> 158 registers; now 96).
#
# RUN: --kernel unified --signature "*fp16:16, *fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, BM=16, D=64, BN=32, PBS=16" --num-warps 4 --num-stages 3 --emit gpu-ir --arch sm_90 --check-prefix=IR
# RUN: --kernel unified --signature "*fp16:16, *fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, BM=16, D=64, BN=32, PBS=16" --num-warps 4 --num-stages 3 --emit ptx --arch sm_90 --check-prefix=PTX
#
# IR-LABEL: func @unified(
# IR: [[K0:%[0-9]+]] = load {{.*}} : block<64x32xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>  // cp.async {{.*}}stage 0, {{.*}}each thread its own runs
# IR-NEXT: [[C0:%[0-9]+]] = convert_layout [[K0]] : block<64x32xfp16, blocked<spt = [1, 8], tpw = [8, 4], wpc = [4, 1], order = [1, 0]>>{{$}}
# IR: [[K1:%[0-9]+]] = load {{.*}} : block<64x32xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>  // cp.async {{.*}}stage 1, {{.*}}each thread its own runs
# IR-NEXT: [[C1:%[0-9]+]] = convert_layout [[K1]] : block<64x32xfp16, blocked<spt = [1, 8], tpw = [8, 4], wpc = [4, 1], order = [1, 0]>>{{$}}
# IR: = for {{.*}}[[C0]], [[C1]]{{.*}} {slot_carried = [1, 2, 3]}
# IR: = load {{%[0-9]+}}, {{%[0-9]+}} : block<32xi32, linear<reg = [16], lane = [0, 0, 0, 1, 2], warp = [4, 8]>>
# IR: = broadcast {{%[0-9]+}} {in_slot = 1} : block<64x32xptr<fp16>, blocked<spt = [8, 1]
# IR: = broadcast {{%[0-9]+}} : block<32x64xptr<fp16>, blocked<spt = [1, 8]
# IR: [[K2:%[0-9]+]] = load {{.*}} : block<64x32xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>  // cp.async {{.*}}after the dot's barrier, {{.*}}each thread its own runs
# IR-NEXT: [[C2:%[0-9]+]] = convert_layout [[K2]] : block<64x32xfp16, blocked<spt = [1, 8], tpw = [8, 4], wpc = [4, 1], order = [1, 0]>>{{$}}
# IR: yield {{.*}}[[C2]]
#
# The block-table entries (session 32, coalesce.cpp's lines_in_slot) are loaded, carried and
# computed in the layout both broadcasts read (lanes 3-4 and the warps hold the tokens, 2 a
# thread: K's slot and V's layout alike), so neither broadcast has a buffer (was 256 bytes,
# a round trip and 2 barriers each).
#
# The conversions move nothing (no buffer: the lines end at their type). In the body, after
# the wait for iteration i's copies and the barrier, each thread's 2 runs of K (64 x 32 over
# 128 threads) and then of V, one 16-byte cp.async each, the second at the first's address
# plus a constant (16 rows of the K-major tile, 72 elements each).
# PTX-LABEL: .entry unified(
# PTX: cp.async.wait_group 2;
# PTX: bar.sync 0;
# PTX: cp.async.cg.shared.global {{\[}}[[D:%r[0-9]+]]{{\]}}, [{{%rd[0-9]+}}], 16, {{%p[0-9]+}};
# PTX: add.s32 [[D2:%r[0-9]+]], [[D]], 2304;
# PTX: cp.async.cg.shared.global {{\[}}[[D2]]{{\]}}, [{{%rd[0-9]+}}], 16, {{%p[0-9]+}};
# PTX: cp.async.commit_group;
# PTX-COUNT-2: cp.async.cg.shared.global
# PTX: cp.async.commit_group;

import triton
import triton.language as tl


@triton.jit
def unified(q_ptr, k_cache, v_cache, block_table, out_ptr, ctx_len, stride_kb, stride_kt, stride_vb, stride_vt,
            BM: tl.constexpr, D: tl.constexpr, BN: tl.constexpr, PBS: tl.constexpr):
    rm = tl.arange(0, BM)
    rd = tl.arange(0, D)
    rn = tl.arange(0, BN)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, D), tl.float32)
    for j in range(0, tl.cdiv(ctx_len, BN)):
        token = j * BN + rn
        block = tl.load(block_table + token // PBS).to(tl.int64)
        live = token < ctx_len
        k = tl.load(k_cache + block[None, :] * stride_kb + (token % PBS)[None, :] * stride_kt + rd[:, None],
                    mask=live[None, :], other=0.0)
        v = tl.load(v_cache + block[:, None] * stride_vb + (token % PBS)[:, None] * stride_vt + rd[None, :],
                    mask=live[:, None], other=0.0)
        s = tl.dot(q, k).to(tl.float16)
        acc = tl.dot(s, v, acc)
    tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc)
