# An int argument equal to 1 is folded: it leaves the parameter list and shows in the
# header's constants, like None and constexprs.
#
# RUN: --kernel copy --signature "*fp32:16, *fp32:16, 1, None, BLOCK=64" --emit ir
#
# CHECK-LABEL: func @copy(%src: ptr<fp32> {divisibility = 16}, %dst: ptr<fp32> {divisibility = 16})
# CHECK-SAME: stride = 1
# CHECK-SAME: unused = None
# CHECK-SAME: BLOCK = 64
# CHECK-NOT: %stride
# CHECK: load
# CHECK: store
import tritium
import tritium.language as tl


@tritium.jit
def copy(src, dst, stride, unused, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) * stride
    tl.store(dst + offs, tl.load(src + offs))
