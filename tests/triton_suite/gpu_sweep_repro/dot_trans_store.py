import tritium as triton
import tritium.language as tl


@triton.jit
def dot_trans_store(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    # the result stored transposed: c_ptr holds c.T (row-major N x M)
    tl.store(c_ptr + rn[None, :] * M + rm[:, None], c)
