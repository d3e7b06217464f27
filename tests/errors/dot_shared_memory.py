# RUN: --kernel kernel --signature "*fp32:16, *fp32:16, *fp32:16" --emit ptx --num-warps 8
# ERROR: 13:9: staging this dot's operands: out of resource: shared memory, Required: 268288, Hardware limit: 232448 (sm_90)
import tritium
import tritium.language as tl


@tritium.jit
def kernel(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 256)
    k = tl.arange(0, 128)
    a = tl.load(a_ptr + r[:, None] * 128 + k[None, :])
    b = tl.load(b_ptr + k[:, None] * 256 + r[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + r[:, None] * 256 + r[None, :], c)
