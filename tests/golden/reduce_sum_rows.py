# tl.sum along the last axis of an int8 block: the input is widened to i32 first (Triton's
# accumulator for <32-bit integers), the reduce op carries its axis (axis=-1 wrapped to 1)
# and a combine region (lhs, rhs) -> add; on the GPU the row is combined by a warp
# butterfly (shfl.sync.bfly, the highest lane bit first: Triton's order) and across warps
# through shared memory.
#
# RUN: --kernel row_sum --signature "*i8:16, *i32:16, N=64" --emit ir
# RUN: --kernel row_sum --signature "*i8:16, *i32:16, N=64" --emit ptx --check-prefix=PTX
#
# CHECK-LABEL: func @row_sum(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<4x64xi8>
# CHECK: [[W:%[0-9]+]] = cast [[X]] : block<4x64xi32>
# CHECK-NEXT: [[R:%[0-9]+]] = reduce [[W]] {axis = 1} -> block<4xi32> {
# CHECK-NEXT: ^([[A:%[0-9]+]]: i32, [[B:%[0-9]+]]: i32):
# CHECK-NEXT: [[S:%[0-9]+]] = add [[A]], [[B]] : i32
# CHECK-NEXT: yield [[S]]
# CHECK-NEXT: }
# CHECK-NEXT: store {{.*}}, [[R]]
#
# PTX-LABEL: .visible .entry row_sum(
# PTX: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
# PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
# PTX: st.shared.b32
# PTX: bar.sync
# PTX: ld.shared.b32
import tritium
import tritium.language as tl


@tritium.jit
def row_sum(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, 4), tl.sum(x, axis=-1))
