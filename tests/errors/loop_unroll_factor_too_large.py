# RUN: --kernel kernel --signature "*fp32, *fp32, i32" --emit ir
# ERROR: 11:18: loop_unroll_factor 32 makes 2048 copies of the loop body; tritium unrolls at most 1024
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, out_ptr, n):
    acc = 0.0
    for i in tl.range(0, n, loop_unroll_factor=64):
        for j in tl.range(0, n, loop_unroll_factor=32):  # 64 x 32 copies: more than tritium makes
            acc += tl.load(x_ptr + i + j)
    tl.store(out_ptr, acc)
