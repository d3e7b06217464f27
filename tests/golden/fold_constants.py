# ir-opt: constants fold, splats of constants become block constants, repeated pure ops
# are computed once, dead ops vanish; the specialization facts stay on the arguments.
#
# RUN: --kernel folded --signature "*fp32:16, i32:16, BLOCK=256" --emit ir-opt
#
# CHECK-LABEL: func @folded(%x_ptr: ptr<fp32> {divisibility = 16}, %n: i32 {divisibility = 16}) [BLOCK = 256] {
# CHECK: constant {value = 512} : i32
# CHECK: make_range
# CHECK-NOT: make_range
# CHECK-NOT: constant {value = 2} : i32
# CHECK: store
# CHECK-NEXT: return
import tritium
import tritium.language as tl


@tritium.jit
def folded(x_ptr, n, BLOCK: tl.constexpr):
    scale = 2
    start = tl.program_id(0) * (BLOCK * scale)
    offs = start + tl.arange(0, BLOCK)
    again = start + tl.arange(0, BLOCK)
    unused = offs * 3
    tl.store(x_ptr + offs, tl.load(x_ptr + again), mask=offs < n)
