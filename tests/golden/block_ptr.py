# Block pointers lower to ordinary pointer arithmetic (src/lower/block_ptr.cpp): the
# pointer tile is base + (offset + arange) * stride per dimension (i64, expanded and
# broadcast), the boundary mask 0 <= offset + arange < shape for the checked dimensions,
# and the padding is the load's `other`. A loop carries only the offsets tl.advance
# changes (here the column offsets), so the strides stay visible to the axis analysis
# (tests/unit/test_block_ptr_codegen.cpp checks the resulting 128-bit vector accesses).
#
# RUN: --kernel bp_copy --signature "*fp32:16, *fp32:16, i32, i32:16, i32:16, BLOCK_M=32, BLOCK_N=64" --emit ir
#
# CHECK-LABEL: func @bp_copy(
# CHECK: [[STRIDE:%[0-9]+]] = cast %stride_m : i64
# CHECK: for {{.*}} -> i64, i64 {
# CHECK-NEXT: ^({{%[0-9]+}}: i32, [[COL_D:%[0-9]+]]: i64, [[COL_S:%[0-9]+]]: i64):
# CHECK: make_range {end = 32, start = 0} : block<32xi32>
# CHECK: expand_dims {{.*}} {axis = 1} : block<32x1xi64>
# CHECK: splat [[STRIDE]] : block<32x1xi64>
# CHECK: mul
# CHECK: make_range {end = 64, start = 0} : block<64xi32>
# CHECK: splat [[COL_S]] : block<64xi64>
# CHECK: expand_dims {{.*}} {axis = 0} : block<1x64xi64>
# CHECK: addptr {{.*}} : block<32x64xptr<fp32>>
# CHECK: cmp {{.*}} {predicate = "ge"} : block<32x1xi1>
# CHECK: cmp {{.*}} {predicate = "lt"} : block<32x1xi1>
# CHECK: cmp {{.*}} {predicate = "ge"} : block<1x64xi1>
# CHECK: cmp {{.*}} {predicate = "lt"} : block<1x64xi1>
# CHECK: [[ZERO:%[0-9]+]] = splat {{.*}} : block<32x64xfp32>
# CHECK: load {{.*}}, {{.*}}, [[ZERO]] : block<32x64xfp32>
# CHECK: splat [[COL_D]] : block<64xi64>
# CHECK: store
# CHECK: yield
# CHECK-NOT: yield
import tritium
import tritium.language as tl


@tritium.jit
def bp_copy(src, dst, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    s = tl.make_block_ptr(src, (M, N), (stride_m, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    d = tl.make_block_ptr(dst, (M, N), (stride_m, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    for k in range(0, N, BLOCK_N):
        tl.store(d, tl.load(s, boundary_check=(0, 1), padding_option="zero"), boundary_check=(0, 1))
        s = tl.advance(s, (0, BLOCK_N))
        d = tl.advance(d, (0, BLOCK_N))
