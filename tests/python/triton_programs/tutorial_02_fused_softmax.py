"""Tutorial 02 (fused softmax): a persistent kernel whose programs step over the rows with
tl.range(..., num_stages=num_stages) (num_stages is also a constexpr parameter of the
kernel), compiled first with kernel.warmup(...) to read its registers and shared memory,
then launched as compiled[grid](every argument) with as many programs as the device's
occupancy allows (get_device_properties)."""

import triton
import triton.language as tl

import tutorial_host as host


@triton.jit
def softmax_rows_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, rows, cols,
                        BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    step = tl.num_programs(0)
    for row in tl.range(tl.program_id(0), rows, step, num_stages=num_stages):
        col = tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_ptr + row * in_row_stride + col, mask=col < cols, other=-float("inf"))
        shifted = x - tl.max(x, axis=0)
        e = tl.exp(shifted)
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + row * out_row_stride + col, y, mask=col < cols)


_compiled = {}


def softmax(x, num_stages=None):
    rows, cols = x.shape
    y = host.empty_like(x)
    props = triton.runtime.driver.active.utils.get_device_properties(0)
    block = triton.next_power_of_2(cols)
    num_warps = 8 if block >= 2048 else 4
    stages = num_stages or (4 if props["max_shared_mem"] > 200000 else 2)
    key = (block, stages, num_warps, host.is_torch(x))
    compiled = _compiled.get(key)
    if compiled is None:
        compiled = softmax_rows_kernel.warmup(y, x, host.stride(x, 0), host.stride(y, 0), rows, cols,
                                              BLOCK_SIZE=block, num_stages=stages,
                                              num_warps=num_warps, grid=(1,))
        compiled._init_handles()
        _compiled[key] = compiled
    # Programs per SM from the registers (unknown in the interpreter: one warp's worth) and
    # the shared memory the compiled kernel uses.
    regs = compiled.n_regs or 32
    per_sm = props["max_num_regs"] // (regs * props["warpSize"] * num_warps)
    if compiled.metadata.shared:
        per_sm = min(per_sm, props["max_shared_mem"] // compiled.metadata.shared)
    programs = min(max(1, per_sm) * props["multiprocessor_count"], rows)
    compiled[(programs, 1, 1)](y, x, host.stride(x, 0), host.stride(y, 0), rows, cols, block, stages)
    return y, programs
