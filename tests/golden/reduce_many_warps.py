# A row sum spread over every warp (the softmax and norm kernels' shape): each warp's
# partial goes to shared memory once, and is read back by vector loads, not one load per
# warp. 4 warps: one ld.shared.v4 holds all four partials, no shuffle after it. 16 warps:
# each thread reads two partials (ld.shared.v2, the lanes 0-7 of every warp reading the
# eight pairs) and three butterfly shuffles combine the lanes' pairs, the widest stride first
# (Triton's order: a thread's pair is warps w and w + 8, then lanes 4, 2, 1 apart). One barrier
# either way (before: 4 and 16 scalar ld.shared per thread).
#
# RUN: --kernel row_sum --signature "*fp32:16, *fp32:16, BLOCK=1024" --num-warps 4 --emit ptx
# RUN: --kernel row_sum --signature "*fp32:16, *fp32:16, BLOCK=8192" --num-warps 16 --emit ptx --check-prefix=WIDE
#
# CHECK-LABEL: .visible .entry row_sum(
# CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
# CHECK: st.shared.b32
# CHECK: bar.sync
# CHECK-NOT: ld.shared.b32
# CHECK: ld.shared.v4.b32
# CHECK-NOT: shfl.sync
# CHECK-NOT: ld.shared
# CHECK-NOT: bar.sync
# CHECK: st.global.b32
# CHECK: ret;
#
# WIDE-LABEL: .visible .entry row_sum(
# WIDE: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
# WIDE: st.shared.b32
# WIDE: bar.sync
# WIDE-NOT: ld.shared.b32
# WIDE: ld.shared.v2.b32
# WIDE-NOT: ld.shared
# WIDE: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
# WIDE: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
# WIDE: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
# WIDE-NOT: shfl.sync
# WIDE-NOT: ld.shared
# WIDE-NOT: bar.sync
# WIDE: st.global.b32
# WIDE: ret;
import tritium
import tritium.language as tl


@tritium.jit
def row_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * BLOCK + tl.arange(0, BLOCK))
    tl.store(out_ptr + row, tl.sum(x, axis=0))
