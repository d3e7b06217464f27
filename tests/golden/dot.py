# tl.dot and `a @ b` become one `dot` op (a, b, acc) {input_precision, max_num_imprecise_acc}:
# without acc the accumulator is a zero splat of the result type; fp16 inputs accumulate in
# fp32 and always store "ieee" (input_precision only means something for fp32 inputs);
# fp32 inputs keep the precision given (default "tf32"); int8 gives i32; a 3-D dot keeps
# its batch dimension; the loop carries the accumulator through the dot.
#
# RUN: --kernel dots --signature "*fp16:16, *fp16:16, *fp32:16, *i8:16, i32, BK=32" --emit ir
# RUN: --kernel dots --signature "*fp16:16, *fp16:16, *fp32:16, *i8:16, i32, BK=32" --emit ir-opt --check-prefix=OPT
#
# CHECK-LABEL: func @dots(
# CHECK: [[Z:%[0-9]+]] = splat {{%[0-9]+}} : block<32x32xfp32>
# CHECK: = for {{.*}} -> block<32x32xfp32> {
# CHECK: [[A:%[0-9]+]] = load {{.*}} : block<32x32xfp16>
# CHECK: [[B:%[0-9]+]] = load {{.*}} : block<32x32xfp16>
# CHECK: [[D:%[0-9]+]] = dot [[A]], [[B]], {{%[0-9]+}} {input_precision = "ieee", max_num_imprecise_acc = 0} : block<32x32xfp32>
# CHECK-NEXT: yield [[D]]
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<32x32xfp32>
# CHECK: dot [[X]], [[X]], {{%[0-9]+}} {input_precision = "tf32", max_num_imprecise_acc = 0} : block<32x32xfp32>
# CHECK: dot [[X]], [[X]], {{%[0-9]+}} {input_precision = "tf32x3", max_num_imprecise_acc = 0} : block<32x32xfp32>
# CHECK: [[I:%[0-9]+]] = load {{.*}} : block<32x32xi8>
# CHECK: dot [[I]], [[I]], {{%[0-9]+}} {input_precision = "ieee", max_num_imprecise_acc = 0} : block<32x32xi32>
# CHECK: [[R:%[0-9]+]] = reshape {{.*}} : block<2x16x32xfp32>
# CHECK: dot [[R]], {{%[0-9]+}}, {{%[0-9]+}} {input_precision = "ieee", max_num_imprecise_acc = 0} : block<2x16x16xfp32>
#
# OPT-LABEL: func @dots(
# OPT: dot {{.*}} {input_precision = "ieee", max_num_imprecise_acc = 0} : block<32x32xfp32>
# OPT: dot {{.*}} {input_precision = "tf32", max_num_imprecise_acc = 0} : block<32x32xfp32>
import tritium
import tritium.language as tl


@tritium.jit
def dots(a_ptr, b_ptr, x_ptr, i_ptr, K, BK: tl.constexpr):
    r = tl.arange(0, 32)
    rk = tl.arange(0, BK)
    acc = tl.zeros((32, 32), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + r[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * 32 + r[None, :])
        acc = tl.dot(a, b, acc)
    x = tl.load(x_ptr + r[:, None] * 32 + r[None, :])
    acc += x @ x
    acc += tl.dot(x, x, input_precision="tf32x3")
    i = tl.load(i_ptr + r[:, None] * 32 + r[None, :])
    acc += tl.dot(i, i, out_dtype=tl.int32).to(tl.float32)
    y = tl.reshape(x, (2, 16, 32))
    z = tl.dot(y, tl.reshape(x, (2, 32, 16)), input_precision="ieee")
    tl.store(x_ptr + r[:, None] * 32 + r[None, :], acc + tl.reshape(z, (32, 16)).sum(1)[:, None])
