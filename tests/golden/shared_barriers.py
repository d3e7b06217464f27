# Row softmax over row blocks in a loop (4 warps, 4 x 256 fp32 blocks): four round trips
# per iteration, each with its own buffer from allocate_shared (the reductions' exchange
# across warps, from which the threads that own the row results read them: no placement;
# the broadcasts of the row max and sum back over the row).
# Neighbours are kept apart (the reductions reuse bytes with each other, never with the op
# before), and the body's last round trip stays live from its first one (the back edge):
# the second broadcast's bytes [32, 48) are apart from every other, the first broadcast
# takes [48, 64). (A reduction's exchange has only its writers' slots: 2 row keys x 2
# warps of the group x 2 other warps x 4 bytes = 32; a slot per thread took 1024 before,
# and a placement 16 more.) So insert_barriers marks none, and the PTX has exactly the
# round trips' own barriers, between their writes and their reads: 1 per reduction and 1
# per broadcast, 4 (12 before the barriers were computed, 6 with the placements).
#
# RUN: --kernel softmax_rows --signature "*fp32:16, *fp32:16, i32, BM=4, N=256" --emit gpu-ir
# RUN: --kernel softmax_rows --signature "*fp32:16, *fp32:16, i32, BM=4, N=256" --emit ptx --check-prefix=PTX
#
# CHECK-LABEL: func @softmax_rows(
# CHECK: for
# CHECK: reduce {{%[0-9]+}} {axis = 1, shared_offsets = [0], shared_sizes = [32]}
# CHECK: broadcast {{%[0-9]+}} {shared_offsets = [48], shared_sizes = [16]}
# CHECK: reduce {{%[0-9]+}} {axis = 1, shared_offsets = [0], shared_sizes = [32]}
# CHECK: broadcast {{%[0-9]+}} {shared_offsets = [32], shared_sizes = [16]}
# CHECK-NOT: barrier
# CHECK: return
#
# PTX-LABEL: .visible .entry softmax_rows(
# PTX: bar.sync
# PTX: bar.sync
# PTX: bar.sync
# PTX: bar.sync
# PTX-NOT: bar.sync
# PTX: ret;
import tritium
import tritium.language as tl


@tritium.jit
def softmax_rows(x_ptr, out_ptr, rows, BM: tl.constexpr, N: tl.constexpr):
    rn = tl.arange(0, N)
    for start in range(tl.program_id(0) * BM, rows, BM * tl.num_programs(0)):
        rm = start + tl.arange(0, BM)
        mask = rm[:, None] < rows
        x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
        m = tl.max(x, axis=1)
        e = tl.exp(x - m[:, None])
        s = tl.sum(e, axis=1)
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], e / s[:, None], mask=mask)
