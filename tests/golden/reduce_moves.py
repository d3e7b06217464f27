# The ops that move elements: join adds a trailing dim of 2, split takes it apart, trans
# records its order, cat concatenates along dim 0, reshape/ravel keep row-major order;
# histogram takes its mask as a second operand and the bin count as an attribute and
# is computed with shared-memory atomics on the GPU.
#
# RUN: --kernel moves --signature "*fp32:16, *fp32:16, N=64" --emit ir
# RUN: --kernel hist --signature "*i32:16, *i32:16, i32, N=1024" --emit ir --check-prefix=HIST
# RUN: --kernel hist --signature "*i32:16, *i32:16, i32, N=1024" --emit ptx --check-prefix=HISTPTX
#
# CHECK-LABEL: func @moves(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<64xfp32>
# CHECK: [[Y:%[0-9]+]] = add [[X]], {{.*}} : block<64xfp32>
# CHECK-NEXT: [[J:%[0-9]+]] = join [[X]], [[Y]] : block<64x2xfp32>
# CHECK-NEXT: [[A:%[0-9]+]], [[B:%[0-9]+]] = split [[J]] : block<64xfp32>, block<64xfp32>
# CHECK-NEXT: [[R:%[0-9]+]] = reshape [[A]] : block<2x32xfp32>
# CHECK-NEXT: [[T:%[0-9]+]] = trans [[R]] {order = [1, 0]} : block<32x2xfp32>
# CHECK-NEXT: [[F:%[0-9]+]] = reshape [[T]] : block<64xfp32>
# CHECK-NEXT: [[C:%[0-9]+]] = cat [[B]], [[F]] : block<128xfp32>
# CHECK: store {{.*}}, [[C]]
#
# HIST-LABEL: func @hist(
# HIST: [[V:%[0-9]+]] = load {{.*}} : block<1024xi32>
# HIST: [[M:%[0-9]+]] = cmp {{.*}}, {{.*}} {predicate = "lt"} : block<1024xi1>
# HIST-NEXT: [[H:%[0-9]+]] = histogram [[V]], [[M]] {num_bins = 16} : block<16xi32>
# HIST: store {{.*}}, [[H]]
#
# HISTPTX-LABEL: .visible .entry hist(
# HISTPTX: atom.shared.add.u32
# HISTPTX: bar.sync
import tritium
import tritium.language as tl


@tritium.jit
def moves(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    j = tl.join(x, x + 1)
    a, b = tl.split(j)
    t = tl.trans(tl.reshape(a, (2, N // 2)))
    c = tl.cat(b, tl.ravel(t), can_reorder=True)
    tl.store(out_ptr + tl.arange(0, 2 * N), c)


@tritium.jit
def hist(x_ptr, out_ptr, n, N: tl.constexpr):
    offs = tl.arange(0, N)
    h = tl.histogram(tl.load(x_ptr + offs), 16, mask=offs < n)
    tl.store(out_ptr + tl.arange(0, 16), h)
