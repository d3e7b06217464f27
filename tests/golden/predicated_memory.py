# Masked loads and stores are predicated PTX instructions, not a branch around each vector
# group (issue 8): the `other` value is moved into the destinations first, then one
# `@p ld.global.v4.b32`; a store is `@p st.global.v4.b32`. Cache modifiers, eviction
# policies and volatile stay on the instruction.
#
# RUN: --kernel masked_add --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024" --emit ptx --check-prefix=F32
# RUN: --kernel masked_add --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, BLOCK=1024" --emit ptx --check-prefix=F16
# RUN: --kernel hinted --signature "*fp32:16, *fp32:16, i32:16, BLOCK=512" --emit ptx --check-prefix=HINTS
# RUN: --kernel hinted --signature "*fp32:16, *fp32:16, i32:16, BLOCK=512" --emit ptx --arch sm_80 --check-prefix=SM80
#
# F32-LABEL: .entry masked_add(
# F32-NOT: bra
# F32: mov.b32 [[A:%r[0-9]+]], 0x0;
# F32: @[[P:%p[0-9]+]] ld.global.v4.b32 {[[A]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, [{{%rd[0-9]+}}];
# F32: mov.b32 {{%r[0-9]+}}, 0xff800000;
# F32: @[[P]] ld.global.v4.b32
# F32: @[[P]] st.global.v4.b32 [{{%rd[0-9]+}}], {
# F32-NOT: bra
# F32: ret;
#
# F16-LABEL: .entry masked_add(
# F16-NOT: bra
# F16: mov.b32 [[B:%r[0-9]+]], 0x0;
# F16: @{{%p[0-9]+}} ld.global.v4.b32 {[[B]],
# F16: @{{%p[0-9]+}} ld.global.v4.b32
# F16: @{{%p[0-9]+}} st.global.v4.b32
# F16-NOT: bra
#
# HINTS-LABEL: .entry hinted(
# HINTS: @{{%p[0-9]+}} ld.global.cg.v4.b32
# HINTS: @{{%p[0-9]+}} ld.global.L1::evict_last.v4.b32
# HINTS: @{{%p[0-9]+}} ld.volatile.global.b32
# HINTS: @{{%p[0-9]+}} st.global.cs.v4.b32
#
# The sm_80 PTX (ISA 7.0) has no eviction priorities: that hint is dropped there.
# SM80-LABEL: .entry hinted(
# SM80: @{{%p[0-9]+}} ld.global.cg.v4.b32
# SM80: @{{%p[0-9]+}} ld.global.v4.b32
# SM80-NOT: evict
import tritium
import tritium.language as tl


@tritium.jit
def masked_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask, other=-float("inf"))
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tritium.jit
def hinted(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(x_ptr + offsets, mask=mask, cache_modifier=".cg")
    b = tl.load(x_ptr + n + offsets, mask=mask, eviction_policy="evict_last")
    c = tl.load(x_ptr + 2 * n + offsets, mask=mask, volatile=True)
    tl.store(out_ptr + offsets, a + b + c, mask=mask, cache_modifier=".cs")
