# A dot in a loop that runs zero times, found by the fuzzer (seed 1, iteration 7,832 of the
# CTest smoke run, minimized): prefetch_loads issues the first iteration's loads before the
# loop under the mask `2 < 0`, which folds to false when emitted; the loads then had no value
# ("invalid LLVM IR: Operand is null" in a phi). Masked-off loads without `other` read 0.
# Since main prefetches only fp16/bf16 dot operands (through cp.async) this kernel no longer
# reaches that load; tests/unit/test_nvptx.cpp "a load whose mask folds to false" does.
#
# RUN: --kernel kernel --signature "*u8:16, *fp64, fp32, i32" --emit ptx
#
# CHECK-LABEL: .visible .entry kernel(
# CHECK: ret;
import tritium
import tritium.language as tl


@tritium.jit
def kernel(p0, p1, s0, n):
    k1 = 0
    while k1 < 3:
        k1 += 1
    v5 = s0
    v6 = tl.full((), 7, tl.int32)
    for i7 in range(2, 0, 3):
        offs = (tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :]) % (n + 1)
        v8 = (tl.load(p0 + offs).to(tl.int8) % 4).to(tl.float16)
        v9 = (tl.load(p0 + offs).to(tl.int8) % 4).to(tl.float16)
        v10 = tl.dot(v8, v9, acc=tl.zeros((32, 32), tl.float32))
        if tl.sum(tl.sum(v10, 1), 0) > 0:
            v5 = (v5 + v6).to(tl.float32)
    tl.store(p1, v5)
