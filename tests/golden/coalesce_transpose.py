# Accesses contiguous along the first axis (a column-major read, a transposed store) get a
# blocked layout with that axis first (gpu/coalesce.h): V consecutive elements per thread
# along it, one 16-byte vector access each, instead of one 4-byte access per element; the
# change of layout is one convert_layout through a padded shared-memory buffer. A copy of a
# column-major tile into a column-major tile converts nothing.
#
# RUN: --kernel column_read --signature "*fp32:16, *fp32:16, i32:16, BM=64, BN=64" --emit gpu-ir --check-prefix=IR
# RUN: --kernel column_read --signature "*fp32:16, *fp32:16, i32:16, BM=64, BN=64" --emit ptx --check-prefix=F32
# RUN: --kernel column_read --signature "*fp16:16, *fp16:16, i32:16, BM=64, BN=64" --emit ptx --check-prefix=F16
# RUN: --kernel transpose --signature "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, BM=64, BN=64" --emit ptx --check-prefix=T32
# RUN: --kernel column_copy --signature "*fp16:16, *fp16:16, i32:16, i32:16, BM=64, BN=64" --emit gpu-ir --check-prefix=COPY
# RUN: --kernel column_read --signature "*fp32:16, *fp32, i32, BM=64, BN=64" --emit ptx --check-prefix=SCALAR
#
# IR-LABEL: func @column_read(
# IR: convert_layout {{%[0-9]+}} : block<64x64xptr<fp32>, blocked<spt = [4, 1], tpw = [16, 2], wpc = [1, 4], order = [0, 1]>>
# IR: load {{%[0-9]+}} : block<64x64xfp32, blocked<spt = [4, 1], tpw = [16, 2], wpc = [1, 4], order = [0, 1]>>
# IR-NEXT: convert_layout {{%[0-9]+}} {shared_offsets = [0], shared_sizes = [16640]} : block<64x64xfp32, blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
#
# F32-LABEL: .entry column_read(
# F32: ld.global.v4.b32
# F32-NOT: ld.global.b32
# F32: st.shared.b32
# F32: bar.sync
# F32: ld.shared.b32
# F32: st.global.v4.b32
#
# F16-LABEL: .entry column_read(
# F16: ld.global.v4.b32
# F16-NOT: ld.global.b16
# F16: st.global.v4.b32
#
# T32-LABEL: .entry transpose(
# T32: @{{%p[0-9]+}} ld.global.v4.b32
# T32: bar.sync
# T32: @{{%p[0-9]+}} st.global.v4.b32
# T32-NOT: st.global.b32
#
# COPY-LABEL: func @column_copy(
# COPY: load {{%[0-9]+}} : block<64x64xfp16, blocked<spt = [8, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>>
# COPY-NOT: convert_layout {{%[0-9]+}} {shared_offsets
# COPY: store
#
# Without 16-byte facts on the stride the columns are not known aligned: one element each.
# SCALAR-LABEL: .entry column_read(
# SCALAR-NOT: ld.global.v4
import tritium
import tritium.language as tl


@tritium.jit
def column_read(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    # x is column-major (x[m, n] at m + n * stride); out is row-major BM x BN.
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    x = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
    tl.store(out_ptr + m[:, None] * BN + n[None, :], x)


@tritium.jit
def transpose(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    # out[n, m] = x[m, n], both row-major.
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    n = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (m[:, None] < M) & (n[None, :] < N)
    x = tl.load(x_ptr + m[:, None] * stride_x + n[None, :], mask=mask)
    tl.store(out_ptr + n[None, :] * stride_out + m[:, None], x, mask=mask)


@tritium.jit
def column_copy(x_ptr, out_ptr, stride_x, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    x = tl.load(x_ptr + m[:, None] + n[None, :] * stride_x)
    tl.store(out_ptr + m[:, None] + n[None, :] * stride_out, x)
