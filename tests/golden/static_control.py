# A constexpr condition lowers only the branch taken (the other may not even type-check),
# and tl.static_range unrolls with a constexpr induction variable.
#
# RUN: --kernel unrolled --signature "*fp32:16, MODE='relu', N=3" --emit ir
#
# CHECK-LABEL: func @unrolled(
# CHECK-SAME: [MODE = 'relu', N = 3]
# CHECK-NOT: if
# CHECK: maximum
# CHECK-NOT: undefined_function
# CHECK: constant {value = 0} : i32
# CHECK: constant {value = 1} : i32
# CHECK: constant {value = 2} : i32
# CHECK-NOT: for
import tritium
import tritium.language as tl


@tritium.jit
def unrolled(x_ptr, MODE: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr)
    if MODE == "relu":
        x = tl.maximum(x, 0.0)
    else:
        x = undefined_function(x)
    for k in tl.static_range(N):
        tl.store(x_ptr + k, x)
