# Builtins of the Triton-language prelude (src/lower/prelude/standard.py) inline to the ops
# their C++ handlers made: sigmoid is 1 / (1 + exp(-x)), softmax a max and a sum reduce
# around exp, cdiv of constants folds, ravel is one reshape, zeros_like a zero splat.
#
# RUN: --kernel prelude --signature "*fp32:16, *fp32:16, N=64" --emit ir
#
# CHECK-LABEL: func @prelude(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<64xfp32>
# CHECK: [[N:%[0-9]+]] = sub {{.*}}, [[X]] : block<64xfp32>
# CHECK-NEXT: [[E:%[0-9]+]] = exp [[N]] : block<64xfp32>
# CHECK: [[A:%[0-9]+]] = add {{.*}}, [[E]] : block<64xfp32>
# CHECK: [[S:%[0-9]+]] = div {{.*}}, [[A]] : block<64xfp32>
# CHECK-NEXT: [[MAX:%[0-9]+]] = reduce [[X]] {axis = 0} -> fp32 {
# CHECK: maximum
# CHECK: [[Z:%[0-9]+]] = sub [[X]], {{.*}} : block<64xfp32>
# CHECK-NEXT: [[EZ:%[0-9]+]] = exp [[Z]] : block<64xfp32>
# CHECK-NEXT: {{%[0-9]+}} = reduce [[EZ]] {axis = 0} -> fp32 {
# CHECK: add
# CHECK: div [[EZ]], {{.*}} : block<64xfp32>
# CHECK: [[R:%[0-9]+]] = reshape [[X]] : block<8x8xfp32>
# CHECK-NEXT: reshape [[R]] : block<64xfp32>
# CHECK-NEXT: constant {value = 3} : i32
# CHECK-NOT: div
# CHECK: store
import tritium
import tritium.language as tl


@tritium.jit
def prelude(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    s = tl.sigmoid(x)
    m = x.softmax()
    flat = tl.ravel(tl.reshape(x, (8, N // 8)))
    blocks = tl.cdiv(N, 24)
    out = s + m + flat + tl.zeros_like(x) + blocks
    tl.store(out_ptr + tl.arange(0, N), out)
