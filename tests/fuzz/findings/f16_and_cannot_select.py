# Open finding of the long fuzzing run (seed 7, iteration 175005), minimized by deleting lines:
# LLVM 22's InstCombine turns this kernel's valid IR (a half bitcast to bfloat, compared
# with 0) into `and half %x, i16 32767` (invalid IR); instruction selection then fails.
#   build/tools/tritium compile tests/fuzz/findings/f16_and_cannot_select.py --kernel kernel \
#     --signature "*i16, *u64:16, *fp16:16, *fp64:16, i64, i32, BLOCK=32" --emit ptx
import triton
import triton.language as tl
def helper0(a, b):
    return a - b
def kernel(p0, p1, p2, p3, s0, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v0 = tl.load(p0 + offs, mask=offs < n, other=0)
    v2 = tl.load(p2)
    if n > 11:
        k5 = 0
        while k5 < 2:
            v2 = (v2 + pid).to(tl.float16)
        k6 = 0
        while k6 < 4:
            v0 = (v0 + mask).to(tl.int16)
    v7 = (helper0(s0, s0) == (v2).to(tl.bfloat16, bitcast=True))
    k8 = 0
    while k8 < 0:
        v7 = (v7 + v2).to(tl.int1)
    v9 = tl.atomic_min(p1, ((v7).to(tl.uint8)).to(tl.uint64))
    for i10 in range(2, 3, 1):
        v2 = (v2 + 2147483647).to(tl.float16)
