# A tuple reassigned in a loop is carried as its tensor leaves (src/lower/aggregate.h);
# leaves the body never changes (`t[1]`) and compile-time leaves ("tag") are not carried.
# In a dynamic `if`, only the leaves that differ between the branches become results.
#
# RUN: --kernel carried --signature "*fp32:16, *fp32:16, i32, BLOCK=128" --emit ir
#
# CHECK-LABEL: func @carried(
# CHECK: [[X:%[0-9]+]] = load {{.*}} : block<128xfp32>
# CHECK: [[LOOP:%[0-9]+]], [[COUNT:%[0-9]+]] = for {{.*}} -> block<128xfp32>, i32 {
# CHECK-NEXT: ^({{%[0-9]+}}: i32, [[ACC:%[0-9]+]]: block<128xfp32>, [[N:%[0-9]+]]: i32):
# CHECK: [[IF:%[0-9]+]] = if {{.*}} -> i32 {
# CHECK: add [[N]],
# CHECK: yield
# CHECK: } else {
# CHECK: yield [[N]]
# CHECK: [[SUM:%[0-9]+]] = add [[ACC]], [[X]] : block<128xfp32>
# CHECK: yield [[SUM]], [[IF]]
# CHECK: store {{.*}}, [[LOOP]]
# The `while` carries the counters but not the block `u[0]`, which it never changes:
# CHECK: while {{.*}} -> i32, i32 {
# CHECK-NEXT: ^({{%[0-9]+}}: i32, {{%[0-9]+}}: i32):
# CHECK: } do {
# CHECK: store {{.*}}, [[LOOP]]
import tritium
import tritium.language as tl


@tritium.jit
def carried(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    zero = 0
    t = (tl.zeros([BLOCK], tl.float32), tl.load(x_ptr + offs), "tag", zero)
    for i in range(n):
        count = t[3]
        if i % 2 == 0:
            count = count + 1
        t = (t[0] + t[1], t[1], "tag", count)
    tl.store(out_ptr + offs, t[0])
    tl.store(out_ptr, t[3].to(tl.float32))
    j = 0
    u = (t[0], j)
    while j < n:
        u = (u[0], u[1] + 1)
        j = u[1]
    tl.store(out_ptr + offs, u[0])
