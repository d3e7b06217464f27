"""Kernels taking tensor descriptors made on the host (TensorDescriptor arguments), shared by
the interpreter suite (test_host_descriptor.py) and the GPU suite (tests/gpu/
test_gpu_host_descriptor.py). `load("triton")` gives the same kernels under real Triton 3.6,
with Triton's own TensorDescriptor class as `module.TensorDescriptor`."""

import importlib
import importlib.util

JIT = globals().get("JIT", "tritium")
jit = importlib.import_module(JIT).jit
tl = importlib.import_module(JIT + ".language")
TensorDescriptor = importlib.import_module(JIT + ".tools.tensor_descriptor").TensorDescriptor


def load(jit_module):
    """This file as a module whose kernels are decorated by `jit_module` ("tritium"/"triton")."""
    spec = importlib.util.spec_from_file_location(f"host_desc_kernels_{jit_module}", __file__)
    module = importlib.util.module_from_spec(spec)
    module.JIT = jit_module
    spec.loader.exec_module(module)
    return module


@jit
def tile_copy_kernel(in_desc, out_desc):
    """Each program copies one block; the block shape comes from the descriptor."""
    BM: tl.constexpr = in_desc.block_shape[0]
    BN: tl.constexpr = in_desc.block_shape[1]
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    tile = in_desc.load([off_m, off_n])
    out_desc.store([off_m, off_n], tile)


@jit
def load_tile_kernel(desc, out_ptr, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    """One block at (off_m, off_n), written row-major into out[BM, BN] by pointers (the
    elements past the tensor's edge are the descriptor's padding)."""
    tile = desc.load([off_m, off_n])
    idx = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + idx, tile)


@jit
def scale_3d_kernel(in_desc, out_desc, factor):
    """A rank-3 block at (pid, 0, 0), scaled: out = in * factor."""
    B0: tl.constexpr = in_desc.block_shape[0]
    tile = in_desc.load([tl.program_id(0) * B0, 0, 0])
    out_desc.store([tl.program_id(0) * B0, 0, 0], tile * factor)


@jit
def desc_facts_kernel(desc, out_ptr):
    """desc.shape and desc.strides as the kernel sees them."""
    tl.store(out_ptr + 0, desc.shape[0])
    tl.store(out_ptr + 1, desc.shape[1])
    tl.store(out_ptr + 2, desc.strides[0].to(tl.int32))
    tl.store(out_ptr + 3, desc.strides[1].to(tl.int32))


@jit
def matmul_desc_kernel(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    """c = a @ b with the K loop reading through descriptors (Triton's tutorial 09 shape):
    the edges past M, N and K read as zero, so they add nothing."""
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@jit
def bad_rank_kernel(desc, out_ptr):
    tile = desc.load([0])  # LINE: bad_rank
    tl.store(out_ptr + tl.arange(0, 16), tile)


@jit
def _maybe_make_tensor_desc(desc_or_ptr, shape, strides, block_shape):
    # Triton's fused-attention tutorial: a host-made descriptor as is, else one made here.
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@jit
def maybe_desc_copy_kernel(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """The same kernel for host descriptors and for plain pointers."""
    src = _maybe_make_tensor_desc(src, [M, N], [N, 1], [BM, BN])
    dst = _maybe_make_tensor_desc(dst, [M, N], [N, 1], [BM, BN])
    off_m = tl.program_id(0) * BM
    dst.store([off_m, 0], src.load([off_m, 0]))
