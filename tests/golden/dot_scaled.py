# tl.dot_scaled is no op of its own. The lhs's e8m0 scale becomes a bf16 power of two (the
# byte shifted left by 7), NaN where the byte is 0xFF (selected on the scale's own block),
# spread over the 16 bytes of each group of 32 values along K (expand_dims, broadcast,
# reshape); the e2m1 lhs (uint8, two values a byte along K) is unpacked nibble by nibble into
# fp32 bits, cast to bf16 and multiplied by that factor on the bytes' shape, then interleaved
# (join + reshape, low nibble first); the bf16 rhs needs nothing; then one fp32-accumulating
# dot.
#
# RUN: --kernel scaled --signature "*u8:16, *u8:16, *bf16:16, *fp32:16" --emit ir
#
# CHECK-LABEL: func @scaled(
# CHECK: [[A:%[0-9]+]] = load {{.*}} : block<16x32xu8>
# CHECK: [[B:%[0-9]+]] = load {{.*}} : block<64x16xbf16>
# CHECK: [[S:%[0-9]+]] = load {{.*}} : block<16x2xu8>
# CHECK: [[SW:%[0-9]+]] = cast [[S]] : block<16x2xu16>
# CHECK: [[SH:%[0-9]+]] = shl [[SW]], {{%[0-9]+}} : block<16x2xu16>
# CHECK-NEXT: [[SF:%[0-9]+]] = cast [[SH]] {bitcast = 1} : block<16x2xbf16>
# CHECK: [[ISNAN:%[0-9]+]] = cmp [[S]], {{%[0-9]+}} {predicate = "eq"} : block<16x2xi1>
# CHECK: [[SN:%[0-9]+]] = select [[ISNAN]], {{%[0-9]+}}, [[SF]] : block<16x2xbf16>
# CHECK-NEXT: [[SE:%[0-9]+]] = expand_dims [[SN]] {axis = 2} : block<16x2x1xbf16>
# CHECK-NEXT: [[SB:%[0-9]+]] = broadcast [[SE]] : block<16x2x16xbf16>
# CHECK-NEXT: [[SR:%[0-9]+]] = reshape [[SB]] : block<16x32xbf16>
# CHECK: [[LO:%[0-9]+]] = and [[A]], {{%[0-9]+}} : block<16x32xu8>
# CHECK: cast {{%[0-9]+}} {bitcast = 1} : block<16x32xfp32>
# CHECK: [[LOF:%[0-9]+]] = cast {{%[0-9]+}} : block<16x32xbf16>
# CHECK-NEXT: [[LOS:%[0-9]+]] = mul [[LOF]], [[SR]] : block<16x32xbf16>
# CHECK: [[HI:%[0-9]+]] = shr [[A]], {{%[0-9]+}} : block<16x32xu8>
# CHECK: [[HIF:%[0-9]+]] = cast {{%[0-9]+}} : block<16x32xbf16>
# CHECK-NEXT: [[HIS:%[0-9]+]] = mul [[HIF]], [[SR]] : block<16x32xbf16>
# CHECK-NEXT: [[J:%[0-9]+]] = join [[LOS]], [[HIS]] : block<16x32x2xbf16>
# CHECK-NEXT: [[X:%[0-9]+]] = reshape [[J]] : block<16x64xbf16>
# CHECK-NEXT: dot [[X]], [[B]], {{%[0-9]+}} {input_precision = "ieee", max_num_imprecise_acc = 0} : block<16x16xfp32>
import tritium
import tritium.language as tl


@tritium.jit
def scaled(a_ptr, sa_ptr, b_ptr, c_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(b_ptr + tl.arange(0, 64)[:, None] * 16 + tl.arange(0, 16)[None, :])
    sa = tl.load(sa_ptr + tl.arange(0, 16)[:, None] * 2 + tl.arange(0, 2)[None, :])
    c = tl.dot_scaled(a, sa, "e2m1", b, None, "bf16")
    tl.store(c_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c)
