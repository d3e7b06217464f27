# The vector add after lowering: the specialization facts sit on the entry arguments, a
# constexpr is folded into the header, and a folded `1` or a missing fact shows.
#
# RUN: --kernel add_kernel --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024" --emit ir
# RUN: --kernel add_kernel --signature "*fp32, *fp16:16, *fp32:16, i32, BLOCK=128" --emit ir --check-prefix=NOFACTS
# RUN: --kernel add_kernel --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024" --emit ir-opt --check-prefix=OPT
#
# CHECK-LABEL: func @add_kernel(
# CHECK-SAME: %x_ptr: ptr<fp32> {divisibility = 16}
# CHECK-SAME: %n_elements: i32 {divisibility = 16}
# CHECK-SAME: [BLOCK = 1024]
# CHECK: program_id {axis = 0}
# CHECK: make_range {{.*}}block<1024xi32>
# CHECK: load
# CHECK: load
# CHECK: store
# CHECK: return
#
# NOFACTS-LABEL: func @add_kernel(%x_ptr: ptr<fp32>,
# NOFACTS-SAME: %y_ptr: ptr<fp16> {divisibility = 16}
# NOFACTS-SAME: %n_elements: i32)
# NOFACTS-SAME: [BLOCK = 128]
# NOFACTS: block<128xi32>
# NOFACTS-NOT: block<1024
#
# OPT-LABEL: func @add_kernel(
# OPT: store
# OPT: return
import tritium
import tritium.language as tl


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
