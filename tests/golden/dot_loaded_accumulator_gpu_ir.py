# `--emit gpu-ir` of a GEMM's `C += A @ B`: the K loop's accumulator is loaded from C before it.
# The loop carries it in the dot's fragments (#0 fragments) as it does a zero accumulator, the
# loaded block copied into the fragments once, where it is loaded (before the loop's prologue
# copies; fragment_layout.h's FragmentOptions::any_inits, experiment "accfrag"); on sm_90 the
# wgmma then stays in flight into the next iteration. Until session 38 the loop carried the
# loaded block flat (no "fragments" on the loop, the dot's fragments "also read flat"),
# converted to the fragments before each dot and back after it, and the wgmma waited for
# itself (TRITIUM_REDUCE_EXPERIMENT=noaccfrag still does). On sm_90 (experiment "accload", the
# default there since session 39; tests/emulate/test_emulated_loaded_accumulator.py) the load
# loads each thread's fragment elements from global memory (FragmentPlan::loads_fragment); on
# sm_80 (and under noaccload) it is flat and "also copied into fragments here" through shared
# memory (st.shared, 2 bar.sync, ld.shared), as Triton 3.6 converts C to its mma layout.
#
# RUN: --kernel gemm_accumulate --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32" --emit gpu-ir --arch sm_90
# RUN: --kernel gemm_accumulate --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, BM=64, BN=64, BK=32" --emit gpu-ir --arch sm_80 --check-prefix=SM80
#
# CHECK: // gpu-ir: sm_90, 4 warps, num_stages 3
# CHECK-LABEL: func @gemm_accumulate(
# CHECK: = load {{.*}} : block<64x64xfp32, blocked<{{[^>]*}}>>  // fragments: 4x1 warps, 1x8 tiles of 16x8 each, each thread's loaded from global memory
# CHECK: stage 0
# CHECK: = for {{.*}}  // #0 fragments: 4x1 warps, 1x8 tiles of 16x8 each, also read flat; carried #1
# CHECK: = dot {{.*}}  // wgmma m64n64k16 f16, operands in swizzled shared memory; fragments: 4x1 warps, 1x8 tiles of 16x8 each; in flight until the next iteration's dot is issued
# CHECK: store
# CHECK: return
#
# SM80: // gpu-ir: sm_80, 4 warps, num_stages 3
# SM80-LABEL: func @gemm_accumulate(
# SM80: = load {{.*}} : block<64x64xfp32, blocked<{{[^>]*}}>>  // also copied into fragments here, once, for the loop that reads it so (2x2 warps)
# SM80: stage 0
# SM80: = for {{.*}}  // #0 fragments: 2x2 warps, 2x4 tiles of 16x8 each, also read flat; carried #1
# SM80: = dot {{.*}}  // mma.sync m16n8k16 f16; fragments: 2x2 warps, 2x4 tiles of 16x8 each{{$}}
# SM80: store
# SM80: return
import triton
import triton.language as tl


@triton.jit
def gemm_accumulate(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    c_ptrs = c_ptr + rm[:, None] * BN + rn[None, :]
    acc = tl.load(c_ptrs)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptrs, acc)
