// Where the elements of a 2-D tile lie in shared memory, for the tensor cores. No LLVM here.
//
// Two arrangements of a rows x cols tile (cols contiguous in the block):
// - padded: row-major, each row padded by 16 bytes, so that ldmatrix and the fragment loads
//   of mma.sync hit distinct banks (32 bytes for the 4-byte tiles tf32 reads down the rows:
//   mma_tile_pad);
// - swizzled: Hopper's wgmma layout. The tile is cut into column blocks as wide as the
//   swizzle (32, 64 or 128 bytes, the widest the row allows); a block holds its rows one after
//   another, and within each group of 8 rows the 16-byte chunks of a row are permuted: chunk
//   c of the row at byte offset o goes to c ^ ((o >> 7) & (swizzle / 16 - 1)). wgmma reads the
//   same arrangement through a matrix descriptor (K-major for A, M/N-major for B: both are
//   "rows x cols with cols contiguous"), and 8 threads writing one row's chunks, or 8 rows'
//   first chunks, hit distinct banks. The permutation acts on address bits 4-9, so a swizzled
//   tile starts on a 1024-byte boundary.
//
// `evens_first` permutes the columns within each group of 8: column c is stored as column
// (c & ~7) | (c & 1) << 2 | (c & 7) >> 1, the group's even columns first, then its odd
// ones. A K-major B of a tf32 dot whose A comes from a previous dot's accumulators
// (fragment_layout.h, a_in_registers) is held so: the accumulators hold columns 2t and 2t + 1
// of each 8 where the tf32 A fragment reads k = t and t + 4, so the dot reads its K in that
// order, A's and B's alike (emit_wgmma_registers.cpp). The permutation rotates the column's
// three low bits, so the offset stays linear over the index bits (stage_slot relies on it)
// and a group of 8 starts where it did (the descriptors of k-steps are unchanged).
#pragma once

#include <cstdint>

namespace tritium::nvptx {

struct SharedTile {
  int64_t rows = 0, cols = 0, element_bytes = 2;
  int swizzle = 0;  // 0: padded rows; 32, 64 or 128: the swizzle width in bytes
  int64_t pad_bytes = 16;  // padded rows: the bytes after each row
  bool evens_first = false;  // columns permuted within groups of 8 (above; swizzled tiles only)

  static constexpr int64_t kSwizzleAlign = 1024;

  static SharedTile padded(int64_t rows, int64_t cols, int64_t element_bytes, int64_t pad_bytes = 16) {
    return SharedTile{rows, cols, element_bytes, 0, pad_bytes};
  }
  // The widest swizzle that divides a row (a row of fewer than 32 bytes cannot be swizzled).
  static SharedTile swizzled(int64_t rows, int64_t cols, int64_t element_bytes) {
    int64_t row_bytes = cols * element_bytes;
    int swizzle = row_bytes % 128 == 0 ? 128 : row_bytes % 64 == 0 ? 64 : 32;
    return SharedTile{rows, cols, element_bytes, swizzle};
  }
  static bool can_swizzle(int64_t cols, int64_t element_bytes) { return cols * element_bytes % 32 == 0; }

  // Elements per padded row.
  int64_t stride() const { return cols + pad_bytes / element_bytes; }
  // Elements per swizzled column block.
  int64_t block_cols() const { return swizzle / element_bytes; }
  int64_t bytes() const {
    int64_t b = swizzle == 0 ? rows * stride() * element_bytes : rows * cols * element_bytes;
    return (b + 15) / 16 * 16;
  }
  // Where column `col` is stored (evens_first's permutation, else col itself).
  int64_t stored_column(int64_t col) const {
    return evens_first ? (col & ~int64_t{7}) | (col & 1) << 2 | (col & 7) >> 1 : col;
  }
  // The byte offset of element (row, col) from the tile's start.
  int64_t offset(int64_t row, int64_t col) const {
    col = stored_column(col);
    if (swizzle == 0) return (row * stride() + col) * element_bytes;
    int64_t linear = col / block_cols() * rows * swizzle + row * swizzle + col % block_cols() * element_bytes;
    return linear ^ (((linear >> 7) & (swizzle / 16 - 1)) << 4);
  }

  // wgmma's matrix descriptor fields (bytes; the descriptor holds them >> 4). K-major (A):
  // the leading offset is unused with a swizzle; M/N-major (B): it is the distance between
  // column blocks. The stride offset is the distance between groups of 8 rows.
  int64_t stride_byte_offset() const { return 8 * int64_t{swizzle}; }
  int64_t leading_byte_offset(bool k_major) const { return k_major ? 16 : rows * swizzle; }
  // The descriptor's 2-bit layout code: 1 = 128-byte, 2 = 64-byte, 3 = 32-byte swizzle.
  int descriptor_mode() const { return swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3; }
  // The byte offset (before the permutation) where the descriptor of the sub-tile starting
  // at (row, col) begins: the permutation is the hardware's, on the address it computes.
  int64_t descriptor_start(int64_t row, int64_t col) const {
    return col / block_cols() * rows * swizzle + row * swizzle + col % block_cols() * element_bytes;
  }
};

// The padding of a padded mma.sync tile. tf32's fragments read a 4-byte tile either along
// the rows (lane 4g + t at row g, column t: A, a K-major B) or down them (row t, column g: a
// row-major B, an M-major A held transposed). With 16 bytes of padding a row of 32c + 4 words
// puts the second kind on 4t + g: two lanes a bank; with 32 bytes (8t + g) each lane has its own.
inline int64_t mma_tile_pad(int64_t element_bytes, bool read_down_rows) {
  return element_bytes == 4 && read_down_rows ? 32 : 16;
}

// The TMA box that fills one column block of the swizzled tile of a rows x cols block (a 2-D
// host descriptor's block_shape): block_cols() elements wide, all rows tall, the tensor map's
// swizzle being the tile's (CU_TENSOR_MAP_SWIZZLE_128B's pattern is SharedTile's on a
// 1024-byte boundary). The launcher encodes the map with it (runtime/tensor_map.h), the
// emitter issues cols / inner copies per block (emit_async.cpp).
struct TmaBox {
  int64_t inner = 0, outer = 0;
  int swizzle = 0;
};
inline TmaBox tma_box(int64_t rows, int64_t cols, int64_t element_bytes) {
  const SharedTile tile = SharedTile::swizzled(rows, cols, element_bytes);
  return {tile.block_cols(), rows, tile.swizzle};
}
// Whether a TMA box can copy that block: both box sides at most 256, a row at least 32 bytes.
inline bool tma_box_fits(int64_t rows, int64_t cols, int64_t element_bytes) {
  return SharedTile::can_swizzle(cols, element_bytes) && rows >= 1 && rows <= 256 &&
         tma_box(rows, cols, element_bytes).inner <= 256;
}

}  // namespace tritium::nvptx
