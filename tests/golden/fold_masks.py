# ir-opt: a mask proven true everywhere is dropped (`tl.arange(0, B) < B`), one proven
# false everywhere removes the store and turns the load into its `other`; a mask that
# depends on the argument `n` stays.
#
# RUN: --kernel masked --signature "*fp32:16, *fp32:16, i32, BLOCK=128" --emit ir-opt
#
# CHECK-LABEL: func @masked(
# CHECK: [[R:%[0-9]+]] = make_range {end = 128, start = 0}
# CHECK: [[P:%[0-9]+]] = addptr {{.*}}, [[R]]
# CHECK-NEXT: [[V:%[0-9]+]] = load [[P]] : block<128xfp32>
# CHECK-NOT: load
# CHECK: store {{.*}}, {{.*}}, {{%[0-9]+}}
# CHECK-NOT: store
# CHECK: return
import tritium
import tritium.language as tl


@tritium.jit
def masked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + r, mask=r < BLOCK, other=1.0)
    w = tl.load(x_ptr + r, mask=r >= BLOCK, other=2.0)
    tl.store(out_ptr + r, v + w, mask=r < n)
    tl.store(out_ptr + r, w, mask=r > BLOCK + 5)
