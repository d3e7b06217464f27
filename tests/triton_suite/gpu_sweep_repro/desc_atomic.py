import tritium as triton
import tritium.language as tl


@triton.jit
def desc_max(out_ptr, a_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    v = tl.load(a_ptr + rm * N + rn)
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    desc.atomic_max([0, 0], v)
