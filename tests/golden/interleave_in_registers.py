# Interleaves (join + reshape) of a loaded block, as vLLM's AWQ dequantization unpacks eight
# nibbles a word (4 warps, [32, 32] int32 into the [32, 256] the store writes): result element
# 2e + s of a join is operand s's element e, so a block of V elements a thread joins into one
# of 2V in the same threads (vector_widths.cpp, follow_joins: the joins' result sizes take V
# = 2, 4 and then the store's 8). No join goes through shared memory and the PTX has no
# barrier; before, each interleave was a round trip with its barriers.
#
# RUN: --kernel unpack --signature "*i32:16, *fp16:16, i32, i32, BY=32, BX=32" --emit gpu-ir
# RUN: --kernel unpack --signature "*i32:16, *fp16:16, i32, i32, BY=32, BX=32" --emit ptx --check-prefix=PTX
#
# CHECK-LABEL: func @unpack(
# CHECK: join {{%[0-9]+}}, {{%[0-9]+}} : block<32x32x2xi32, blocked<spt = [1, 1, 2]
# CHECK: join {{%[0-9]+}}, {{%[0-9]+}} : block<32x64x2xi32, blocked<spt = [1, 2, 2]
# CHECK: join {{%[0-9]+}}, {{%[0-9]+}} : block<32x128x2xi32, blocked<spt = [1, 4, 2]
# CHECK-NOT: shared_offsets
# CHECK: return
#
# PTX-LABEL: .visible .entry unpack(
# PTX-NOT: bar.sync
# PTX: ret;
import tritium
import tritium.language as tl


@tritium.jit
def unpack(q_ptr, out_ptr, n_rows, n_cols, BY: tl.constexpr, BX: tl.constexpr):
    ry = tl.program_id(1) * BY + tl.arange(0, BY)
    rx = tl.program_id(0) * BX + tl.arange(0, BX)
    q = tl.load(q_ptr + ry[:, None] * n_cols + rx[None, :], mask=(ry[:, None] < n_rows) & (rx[None, :] < n_cols), other=0)
    q = tl.interleave(q, q)
    q = tl.interleave(q, q)
    q = tl.interleave(q, q)
    shifts = (tl.arange(0, BX * 8) % 8) * 4
    w = (q >> shifts[None, :]) & 0xF
    ox = tl.program_id(0) * BX * 8 + tl.arange(0, BX * 8)
    tl.store(out_ptr + ry[:, None] * (8 * n_cols) + ox[None, :], w.to(tl.float16),
             mask=(ry[:, None] < n_rows) & (ox[None, :] < 8 * n_cols))
