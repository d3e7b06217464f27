# Calls to other @jit functions are inlined; a `return` inside a dynamic `if` becomes the
# result of that `if` (the rest of the callee moves into the other branch).
#
# RUN: --kernel caller --signature "*i32:16, i32" --emit ir
#
# CHECK-LABEL: func @caller(
# CHECK: [[C:%[0-9]+]] = cmp %n, {{.*}} {predicate = "gt"} : i1
# CHECK-NEXT: [[R:%[0-9]+]] = if [[C]] -> i32 {
# CHECK: yield %n
# CHECK: } else {
# CHECK: [[NEG:%[0-9]+]] = sub {{.*}}, %n : i32
# CHECK-NEXT: yield [[NEG]]
# CHECK: store %out, [[R]]
import tritium
import tritium.language as tl


@tritium.jit
def absolute(v):
    if v > 0:
        return v
    return -v


@tritium.jit
def caller(out, n):
    tl.store(out, absolute(n))
