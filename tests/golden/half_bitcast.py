# fp16 <-> bf16 bitcasts compared with 0: LLVM 22's InstCombine folds `fcmp oeq/une (bitcast
# half %x to bfloat), 0` into `and half %x, 32767` (invalid IR; "Cannot select: f16 = and" in
# the NVPTX backend) unless the bitcast goes through an opaque 16-bit move. The compare then
# becomes a test of the bits without the sign (+0 and -0 both equal 0), as it should.
# `fuzz_seed7_175005` is the fuzzer's finding (seed 7, iteration 175,005) as minimized.
#
# RUN: --kernel bitcast_is_zero --signature "*fp16:16, *i1:16, *fp16:16, i32, BLOCK=128" --emit ptx
# RUN: --kernel bitcast_is_zero --signature "*bf16:16, *i1:16, *bf16:16, i32, BLOCK=128" --emit ptx --check-prefix=BF16
# RUN: --kernel fuzz_seed7_175005 --signature "*i16, *u64:16, *fp16:16, *fp64:16, i64, i32, BLOCK=32" --emit ptx --check-prefix=FUZZ
#
# CHECK-LABEL: .visible .entry bitcast_is_zero(
# CHECK: and.b16 {{%rs[0-9]+}}, {{%rs[0-9]+}}, 32767;
# CHECK: setp.eq.b16
# CHECK: add.f16
#
# BF16-LABEL: .visible .entry bitcast_is_zero(
# BF16: and.b16 {{%rs[0-9]+}}, {{%rs[0-9]+}}, 32767;
# BF16: setp.eq.b16
#
# FUZZ-LABEL: .visible .entry fuzz_seed7_175005(
# FUZZ: atom.global.{{.*}}.min.u64
import tritium
import tritium.language as tl


@tritium.jit
def bitcast_is_zero(src, is_zero, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src + offs, mask=mask)
    other = tl.bfloat16 if x.dtype == tl.float16 else tl.float16
    tl.store(is_zero + offs, x.to(other, bitcast=True) == 0, mask=mask)
    tl.store(dst + offs, x + 1, mask=mask)  # x is used in its own type too


def helper0(a, b):
    return a - b


def fuzz_seed7_175005(p0, p1, p2, p3, s0, n, BLOCK: tl.constexpr):
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
