# Triton issue 741: `xnumel = 2000` inside the kernel rebinds the name to a new value; the
# facts proved about the argument `xnumel` (divisible by 16) stay on the entry argument and
# nothing refers to it afterwards (DESIGN law 2).
#
# RUN: --kernel kernel --signature "*i64:16, *fp32:16, *fp32:16, i32:16, XBLOCK=1024" --emit ir
#
# CHECK-LABEL: func @kernel(
# CHECK-SAME: %in_ptr0: ptr<i64> {divisibility = 16}
# CHECK-SAME: %xnumel: i32 {divisibility = 16}
# CHECK-SAME: [XBLOCK = 1024]
# CHECK-NOT: %xnumel
# CHECK: 2000
# CHECK-NOT: %xnumel
# CHECK: cmp
# CHECK-NOT: %xnumel
# CHECK: store
# CHECK-NOT: %xnumel
# CHECK: return
import triton
import triton.language as tl


@triton.jit
def kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)
