"""The order in which tl.sum combines a row across lanes and warps (unsloth's narrow-row
RMSNorm kernels replay Triton's order with explicit tl.split/tl.sum steps and check the
result bit for bit against its one-row kernel at run time; on a mismatch unsloth disables
them with a warning and keeps the one-row kernels: correct, slower for narrow rows).

One row of 128 fp32 at 4 warps (one element a thread), sum of x*x, sm_90 PTX:
    Triton 3.6: fma with lane xor 16, then add xor 8, 4, 2, 1; across warps, after shared
                memory, xor 2 then 1: (w0 + w2) + (w1 + w3)
    tritium before session 17's change to emit_reduce.cpp: fma with lane xor 1, then add xor
                2, 4, 8, 16; across warps one v4 load, (w0 + w1) + (w2 + w3)
    tritium now: Triton's order (registers left to right as well; CPU emulation checks it,
                tests/cli/test_cpu_emulation.py::test_row_sums_in_tritons_order)
The interpreter's order differs (there unsloth falls back, tests/realk/RESULTS.md, session 17).

    build/tools/tritium compile tests/triton_suite/gpu_sweep_repro/realk_reduce_order.py \\
        --kernel rowsum --signature "*fp32, *fp32, BLOCK=128" --num-warps 4 --emit ptx --arch sm_90 \\
        | grep -E "shfl|add.f32|fma|shared"
"""

import tritium as triton
import tritium.language as tl


@triton.jit
def rowsum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x * x, 0))
