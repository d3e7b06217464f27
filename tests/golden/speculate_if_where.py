# An `if` on a scalar around a `tl.where` on a block (unsloth's chunked cross entropy:
# `if has_label: exp_logits = tl.where(cols == label, 0.0, exp_logits)`) is computed
# without a branch: the comparison and the select run on every element, and a select on
# the condition takes the result (gpu/speculate_ifs.h), so the sum after it reads each
# exponential where it is computed. Before, the exponentials were all live at a branch
# and merged by a phi per element (32 warps at BLOCK 65536: 212 bytes of spills).
# The `if` that loads stays a branch.
#
# RUN: --kernel chunk_lse --signature "*fp32:16, *fp32:16, *i64:16, BLOCK=1024" --num-warps 4 --emit gpu-ir
# RUN: --kernel chunk_lse --signature "*fp32:16, *fp32:16, *i64:16, BLOCK=1024" --num-warps 4 --emit ptx --check-prefix=PTX
#
# CHECK-LABEL: func @chunk_lse(
# CHECK: exp
# CHECK-NOT: if
# CHECK: [[T:%[0-9]+]] = select %{{[0-9]+}}, %{{[0-9]+}}, [[X:%[0-9]+]] : block<1024xfp32
# CHECK-NEXT: [[C:%[0-9]+]] = splat %{{[0-9]+}} : block<1024xi1
# CHECK-NEXT: [[R:%[0-9]+]] = select [[C]], [[T]], [[X]] : block<1024xfp32
# CHECK-NEXT: reduce [[R]]
# CHECK: if %{{[0-9]+}} -> fp32 {
# CHECK: load
#
# PTX-LABEL: .visible .entry chunk_lse(
# PTX: ex2.approx.f32
# PTX-NOT: bra
# PTX: shfl.sync.bfly.b32
# PTX: bar.sync
# PTX: ret;
import tritium
import tritium.language as tl


@tritium.jit
def chunk_lse(logits_ptr, out_ptr, labels_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    logits_ptr += row * 2 * BLOCK
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    label = tl.load(labels_ptr + row).to(tl.int32)
    logits = tl.load(logits_ptr + cols)
    c = tl.max(logits, 0)
    e = tl.exp(logits - c)
    has_label = (label >= chunk * BLOCK) & (label < (chunk + 1) * BLOCK)
    if has_label:
        e = tl.where(cols == label, 0.0, e)
    s = tl.sum(e, 0)
    lse = c + tl.log(s)
    if has_label:
        lse = c + tl.log(s + tl.exp(tl.load(logits_ptr + label) - c))
    tl.store(out_ptr + row * 2 + chunk, lse)
