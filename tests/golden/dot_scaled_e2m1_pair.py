# tl.dot_scaled with both sides e2m1 packed along K: no interleave. The sum over K runs as two
# dots of K / 2, the low nibbles (even k) of both sides, then the high nibbles (odd k), each
# on the bytes' own shapes; each e8m0 scale (NaN where 0xFF) is spread once over groups of 16
# bytes (32 elements of K, half in each dot) and multiplies both halves.
#
# RUN: --kernel pair --signature "*u8:16, *u8:16, *u8:16, *u8:16, *fp32:16" --emit ir
#
# CHECK-LABEL: func @pair(
# CHECK: [[A:%[0-9]+]] = load {{.*}} : block<16x32xu8>
# CHECK: [[B:%[0-9]+]] = load {{.*}} : block<32x16xu8>
# CHECK: [[FA:%[0-9]+]] = reshape {{%[0-9]+}} : block<16x32xbf16>
# CHECK: trans {{%[0-9]+}} {order = [1, 0]} : block<2x16xbf16>
# CHECK: [[FB:%[0-9]+]] = reshape {{%[0-9]+}} : block<32x16xbf16>
# CHECK-NOT: join
# CHECK: [[ALO:%[0-9]+]] = and [[A]], {{%[0-9]+}} : block<16x32xu8>
# CHECK: [[XLO:%[0-9]+]] = mul {{%[0-9]+}}, [[FA]] : block<16x32xbf16>
# CHECK: [[BLO:%[0-9]+]] = and [[B]], {{%[0-9]+}} : block<32x16xu8>
# CHECK: [[YLO:%[0-9]+]] = mul {{%[0-9]+}}, [[FB]] : block<32x16xbf16>
# CHECK: [[AHI:%[0-9]+]] = shr [[A]], {{%[0-9]+}} : block<16x32xu8>
# CHECK: [[XHI:%[0-9]+]] = mul {{%[0-9]+}}, [[FA]] : block<16x32xbf16>
# CHECK: [[BHI:%[0-9]+]] = shr [[B]], {{%[0-9]+}} : block<32x16xu8>
# CHECK: [[YHI:%[0-9]+]] = mul {{%[0-9]+}}, [[FB]] : block<32x16xbf16>
# CHECK-NEXT: [[D:%[0-9]+]] = dot [[XLO]], [[YLO]], {{%[0-9]+}} {{.*}} : block<16x16xfp32>
# CHECK-NEXT: dot [[XHI]], [[YHI]], [[D]] {{.*}} : block<16x16xfp32>
# CHECK-NOT: join
# CHECK-NOT: dot
import tritium
import tritium.language as tl


@tritium.jit
def pair(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(b_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    sa = tl.load(sa_ptr + tl.arange(0, 16)[:, None] * 2 + tl.arange(0, 2)[None, :])
    sb = tl.load(sb_ptr + tl.arange(0, 16)[:, None] * 2 + tl.arange(0, 2)[None, :])
    c = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")
    tl.store(c_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c)
