# Names rebound inside control flow become structured values: an `if` yields what its
# branches assign, a `for`/`while` carries what its body reassigns; names first defined
# inside a branch or a loop are not visible after it.
#
# RUN: --kernel flow --signature "*fp32:16, i32" --emit ir
#
# CHECK-LABEL: func @flow(%x_ptr: ptr<fp32> {divisibility = 16}, %n: i32)
# CHECK: [[ACC0:%[0-9]+]] = splat {{.*}} : block<128xfp32>
# CHECK: [[LOOP:%[0-9]+]] = for {{.*}}, %n, {{.*}}, [[ACC0]] -> block<128xfp32> {
# CHECK-NEXT: ^([[IV:%[0-9]+]]: i32, [[ACC:%[0-9]+]]: block<128xfp32>):
# CHECK: [[IF:%[0-9]+]] = if {{.*}} -> block<128xfp32> {
# CHECK: add [[ACC]],
# CHECK: yield
# CHECK: } else {
# CHECK: mul [[ACC]],
# CHECK: yield
# CHECK: yield [[IF]]
# CHECK: while {{.*}} -> i32 {
# CHECK: condition
# CHECK: } do {
# CHECK: yield
# CHECK: store {{.*}}, [[LOOP]]
import tritium
import tritium.language as tl


@tritium.jit
def flow(x_ptr, n):
    acc = tl.zeros([128], tl.float32)
    for i in range(0, n, 128):
        v = tl.load(x_ptr + i + tl.arange(0, 128))
        if i > 3:
            acc += v
        else:
            acc = acc * 2
    i = 0
    while i < n:
        i += 1
    tl.store(x_ptr + tl.arange(0, 128), acc)
