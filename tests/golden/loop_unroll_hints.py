# LLVM's unrolling of tritium's loops (target/nvptx/loop_hints.h), as FlashInfer's cascade
# merges loop: an outer loop of constant trip count (4 heads) around an inner loop of
# run-time trip count (the index sets), and a plain loop of run-time trip count.
# - Every loop's back edge says `llvm.loop.unroll.runtime.disable`: LLVM's runtime unrolling
#   (which the NVPTX target machine turns on and Triton's target-less O3 does not) would copy
#   the inner body 2 or 4 times, with a remainder loop, before ptxas unrolls it again.
# - The outer loop holds a loop, so LLVM does not unroll it (it fit LLVM's threshold: 4
#   copies of the inner loop); the hint is gone from the PTX (no `.pragma "nounroll"`),
#   leaving ptxas free as with Triton's loops.
# So the PTX loads each of the two inner-loop operands once, and the plain loop's once.
#
# RUN: --kernel merge --signature "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, HEADS=4" --emit llvm --check-prefix=LLVM
# RUN: --kernel merge --signature "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, HEADS=4" --emit ptx --check-prefix=PTX
# RUN: --kernel scale --signature "*fp32:16, *fp32:16, i32" --emit ptx --check-prefix=FLAT
#
# LLVM-LABEL: define ptx_kernel void @merge(
# LLVM: !llvm.loop
# LLVM-NOT: tritium.loop.holds_loop
# LLVM-NOT: !"llvm.loop.unroll.disable"
# LLVM: !"llvm.loop.unroll.runtime.disable"
# LLVM-NOT: tritium.loop.holds_loop
# LLVM-NOT: !"llvm.loop.unroll.disable"
#
# PTX-LABEL: .visible .entry merge(
# PTX-NOT: pragma
# PTX: ld.global
# PTX: ld.global
# PTX-NOT: ld.global
# PTX-NOT: pragma
# PTX: ret;
#
# FLAT-LABEL: .visible .entry scale(
# FLAT: ld.global
# FLAT-NOT: ld.global
# FLAT: ret;
import tritium
import tritium.language as tl


@tritium.jit
def merge(v_ptr, s_ptr, out_ptr, num_sets, num_heads, head_dim, HEADS: tl.constexpr):
    pos = tl.program_id(0)
    for h in tl.range(HEADS):
        o, m, d = 0.0, -5e4, 1.0
        for i in tl.range(num_sets):
            s = tl.load(s_ptr + (pos * num_sets + i) * num_heads + h)
            v = tl.load(v_ptr + ((pos * num_sets + i) * num_heads + h) * head_dim)
            m_max = tl.maximum(m, s)
            d = d * tl.exp2(m - m_max) + tl.exp2(s - m_max)
            o = o * tl.exp2(m - m_max) + v * tl.exp2(s - m_max)
            m = m_max
        tl.store(out_ptr + (pos * num_heads + h) * head_dim, o / d)


@tritium.jit
def scale(x_ptr, out_ptr, n):
    acc = 0.0
    for i in range(n):
        acc = acc * 0.5 + tl.load(x_ptr + i)
    tl.store(out_ptr + tl.program_id(0), acc)
