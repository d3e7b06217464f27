# tl.argmax is a reduce over (value, index) pairs: the index block is an arange along the
# axis broadcast to the input's shape, and the combine region is Triton's tie-break-left
# rule (greater, or equal with the smaller index) selecting both value and index; only
# the index result is stored. fp16 values are compared as fp16 (no widening with indices).
#
# RUN: --kernel argmax_rows --signature "*fp16:16, *i32:16, M=8, N=128" --emit ir-opt
# RUN: --kernel argmax_rows --signature "*fp16:16, *i32:16, M=8, N=128" --emit ptx --check-prefix=PTX
#
# CHECK-LABEL: func @argmax_rows(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<8x128xfp16>
# CHECK: [[I:%[0-9]+]] = broadcast {{.*}} : block<8x128xi32>
# CHECK: [[V:%[0-9]+]], [[J:%[0-9]+]] = reduce [[X]], [[I]] {axis = 1} -> block<8xfp16>, block<8xi32> {
# CHECK-NEXT: ^([[V1:%[0-9]+]]: fp16, [[I1:%[0-9]+]]: i32, [[V2:%[0-9]+]]: fp16, [[I2:%[0-9]+]]: i32):
# CHECK-NEXT: [[GT:%[0-9]+]] = cmp [[V1]], [[V2]] {predicate = "gt"} : i1
# CHECK-NEXT: [[LT:%[0-9]+]] = cmp [[I1]], [[I2]] {predicate = "lt"} : i1
# CHECK-NEXT: [[EQ:%[0-9]+]] = cmp [[V1]], [[V2]] {predicate = "eq"} : i1
# CHECK-NEXT: [[TIE:%[0-9]+]] = and [[EQ]], [[LT]] : i1
# CHECK-NEXT: [[BETTER:%[0-9]+]] = or [[GT]], [[TIE]] : i1
# CHECK-NEXT: [[SV:%[0-9]+]] = select [[BETTER]], [[V1]], [[V2]] : fp16
# CHECK-NEXT: [[SI:%[0-9]+]] = select [[BETTER]], [[I1]], [[I2]] : i32
# CHECK-NEXT: yield [[SV]], [[SI]]
# CHECK: store {{.*}}, [[J]]
#
# PTX-LABEL: .visible .entry argmax_rows(
# PTX: shfl.sync.bfly.b32
# PTX: setp.gt.f16
import tritium
import tritium.language as tl


@tritium.jit
def argmax_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, M), tl.argmax(x, axis=1))
