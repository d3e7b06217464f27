# A full reduction (axis=None) flattens the block with a reshape and reduces axis 0 to a
# scalar; keep_dims=True gives it back as a 1x1 block. tl.max of bf16 goes through fp32
# (Triton promotes bf16 and widens <32-bit inputs), with `maximum` (NaN-dropping) in the
# region.
#
# RUN: --kernel max_all --signature "*bf16:16, *fp32:16, N=32" --emit ir
#
# CHECK-LABEL: func @max_all(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<32x32xbf16>
# CHECK: [[F:%[0-9]+]] = cast [[X]] : block<32x32xfp32>
# CHECK-NEXT: [[FLAT:%[0-9]+]] = reshape [[F]] : block<1024xfp32>
# CHECK-NEXT: [[M:%[0-9]+]] = reduce [[FLAT]] {axis = 0} -> fp32 {
# CHECK-NEXT: ^([[A:%[0-9]+]]: fp32, [[B:%[0-9]+]]: fp32):
# CHECK-NEXT: [[C:%[0-9]+]] = maximum [[A]], [[B]] : fp32
# CHECK-NEXT: yield [[C]]
# CHECK-NEXT: }
# CHECK-NEXT: [[K:%[0-9]+]] = splat [[M]] : block<1x1xfp32>
# CHECK-NEXT: store {{.*}}, [[K]]
import tritium
import tritium.language as tl


@tritium.jit
def max_all(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, 1)[:, None], tl.max(x, keep_dims=True))
