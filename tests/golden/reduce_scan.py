# Scans: tl.cumsum of int16 widens to i32 and records `reverse`; tl.associative_scan over a
# tuple inlines the user's @jit combine function into the region (acc..., x...) -> yield.
#
# RUN: --kernel cumsum_rev --signature "*i16:16, *i32:16, N=256" --emit ir
# RUN: --kernel linear_recurrence_scan --signature "*fp32:16, *fp32:16, *fp32:16, N=128" --emit ir --check-prefix=TUPLE
# RUN: --kernel cumsum_rev --signature "*i16:16, *i32:16, N=256" --emit ptx --check-prefix=PTX
#
# CHECK-LABEL: func @cumsum_rev(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<256xi16>
# CHECK-NEXT: [[W:%[0-9]+]] = cast [[X]] : block<256xi32>
# CHECK-NEXT: [[S:%[0-9]+]] = scan [[W]] {axis = 0, reverse = 1} -> block<256xi32> {
# CHECK-NEXT: ^([[A:%[0-9]+]]: i32, [[B:%[0-9]+]]: i32):
# CHECK-NEXT: [[C:%[0-9]+]] = add [[A]], [[B]] : i32
# CHECK-NEXT: yield [[C]]
# CHECK: store {{.*}}, [[S]]
#
# TUPLE-LABEL: func @linear_recurrence_scan(
# TUPLE: [[P:%[0-9]+]], [[Q:%[0-9]+]] = scan {{%[0-9]+}}, {{%[0-9]+}} {axis = 0, reverse = 0} -> block<128xfp32>, block<128xfp32> {
# TUPLE-NEXT: ^([[A1:%[0-9]+]]: fp32, [[B1:%[0-9]+]]: fp32, [[A2:%[0-9]+]]: fp32, [[B2:%[0-9]+]]: fp32):
# TUPLE-NEXT: [[M:%[0-9]+]] = mul [[A1]], [[A2]] : fp32
# TUPLE-NEXT: [[N:%[0-9]+]] = mul [[B1]], [[A2]] : fp32
# TUPLE-NEXT: [[ADD:%[0-9]+]] = add [[N]], [[B2]] : fp32
# TUPLE-NEXT: yield [[M]], [[ADD]]
# TUPLE: store {{.*}}, [[Q]]
# TUPLE-NOT: store {{.*}}, [[P]]
#
# PTX-LABEL: .visible .entry cumsum_rev(
# PTX: shfl.sync
# PTX: bar.sync
import tritium
import tritium.language as tl


@tritium.jit
def cumsum_rev(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0, reverse=True))


@tritium.jit
def recurrence(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@tritium.jit
def linear_recurrence_scan(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    _, x = tl.associative_scan((tl.load(a_ptr + offs), tl.load(b_ptr + offs)), 0, recurrence)
    tl.store(out_ptr + offs, x)
