// How many elements each global memory access moves at once, and how many contiguous
// elements of a block each thread owns (target/nvptx/layout.h's V), chosen from the axis
// facts (analysis/axis_info.h) before any LLVM IR is emitted: a GPU decision, read by
// assign_layouts (the blocked layouts it gives) and by the NVPTX emitter.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/axis_info.h"
#include "ir/ir.h"

namespace tritium::gpu {

struct VectorWidths {
  // V per block size N (number of elements); sizes not listed have V = 1.
  std::map<int64_t, int> per_block;
  // The least V per block size N that an op needs whatever the block's size (a
  // tl.map_elementwise with pack = P takes P consecutive registers of a thread): raises V
  // past the N / threads cap, threads then holding copies (choose_vector_widths).
  std::map<int64_t, int> at_least;
  // w per load/store on a block of pointers; w divides the V of its block. Others: 1.
  std::unordered_map<const ir::Op*, int> per_access;

  // w per cmp on blocks whose result the facts say is constant over aligned runs of w
  // along the last dimension (w > 1, a power of two dividing it and the result's V): the
  // emitter compares the first register of each run only. Others: 1.
  std::unordered_map<const ir::Op*, int> per_constant;

  // Per load whose pointer (and mask) the facts say is constant over aligned runs of w > 1
  // along the last dimension: w (a power of two dividing it; not capped by the block's V).
  // A load made in a slot layout whose registers fall in one such run loads once for them
  // (a block-table line: 16 tokens a page, nvptx emit_convert.cpp's emit_slot_load).
  std::unordered_map<const ir::Op*, int> load_constancy;

  // Scalar loads and stores (w = 1) whose pointer the facts prove contiguous along another
  // axis (a column of a row-major block: k^T in flash-linear-attention's chunk kernels): the
  // emitter makes no run-time contiguity test of their groups (which would keep every
  // element's 64-bit address live for the test and both paths); one access per element.
  std::unordered_set<const ir::Op*> untested;

  int vector(int64_t num_elements) const;
  int width(const ir::Op& op) const;
  bool tests_at_run_time(const ir::Op& op) const { return untested.count(&op) == 0; }
  int constant_width(const ir::Op& op) const;
  int constant_load_width(const ir::Op& op) const;
};

// Whether `region` (or a region nested in it) holds a dot.
bool has_dot(const ir::Region& region);

// The widest access the facts allow for one memory op, before the layout caps it: for a
// load or store on a block of pointers, min(axis.vector_width(ptr), the mask's constancy
// along the last dimension), a power of two that divides the last dimension. 1 for
// atomics (once per element), volatile loads and scalar pointers.
int access_width(const ir::Op& op, const analysis::AxisInfoAnalysis& axis);

// The same along `axis` of a load or store on a block of pointers (coalesce.h's choice of
// axis): contiguity, alignment, 16 bytes and the mask's constancy along it, a power of two
// dividing that dimension.
int64_t access_width_along(const ir::Op& op, int axis, const analysis::AxisInfoAnalysis& facts);

// The widest group a run-time test may make one vector access when the facts leave an
// access scalar: the block's V, at most 16 bytes of `element_bytes` each, dividing the last
// dimension (the registers of a group are then consecutive elements of one row).
int tested_width(const ir::Type* type, int vector, int64_t element_bytes);

// V for each block size: the largest access width among the accesses on blocks of that
// size, capped at max(1, N / threads) (Triton's sizePerThread cap) and to divide N; each
// access then moves min(its width, V) elements at a time. In a kernel without dots, a size
// whose blocks are read or written along another axis only (coalesce.h) and reduced along
// their last axis only takes V of 16 bytes of the reduced element (capped by that axis).
// With `vectorize` false every block keeps V = 1 and every access one element.
VectorWidths choose_vector_widths(const ir::Function& function, int threads, bool vectorize = true);

}  // namespace tritium::gpu
