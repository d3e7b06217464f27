// Block pointers (tl.make_block_ptr, tl.advance, tl.load/tl.store with boundary_check) and
// tensor descriptors (tl.make_tensor_descriptor, desc.load/store), desugared during lowering
// into ordinary pointer arithmetic, as Triton's rewrite_tensor_pointer and
// rewrite_tensor_descriptor_to_pointer passes do: no new IR ops, no interpreter or GPU work.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lower/lvalue.h"

namespace tritium::lower {

class Lowerer;
class BuiltinArgs;

// The fields of a block pointer: an aggregate LValue named "block_ptr" whose leaves are the
// base pointer and i64 scalars (loops carry those that change: advance changes offsets).
enum BlockPtrField { kBpBase = 0, kBpShape, kBpStrides, kBpOffsets, kBpBlockShape, kBpOrder, kBpNumFields };
// The fields of a tensor descriptor ("tensor_descriptor").
enum DescField { kDescBase = 0, kDescShape, kDescStrides, kDescBlockShape, kDescPadding, kDescNumFields };

// tl.load / tl.store (`load` tells which) whose pointer is a block pointer: lowered, true.
// Otherwise false, after Triton's errors for boundary_check/padding_option without one.
bool lower_block_ptr_access(Lowerer& lowerer, const BuiltinArgs& args, bool load, const Loc& loc, LValue* out);

// The descriptor a host-made TensorDescriptor argument stands for (the kernel's entry
// arguments: base pointer, shape as i32 scalars, strides as i64 scalars with the last one
// the constant 1), built as tl.make_tensor_descriptor builds one, so desc.load/store lower
// the same way whichever side made it.
LValue host_descriptor(Lowerer& lowerer, ir::Value* base, const std::vector<ir::Value*>& shape,
                       const std::vector<ir::Value*>& strides, const std::vector<int64_t>& block_shape,
                       bool padding_nan, const Loc& loc);

// Attribute `name` of a block pointer or descriptor (desc.shape, desc.load, ...).
LValue aggregate_attribute(const LValue& base, const std::string& name, const Loc& loc);

}  // namespace tritium::lower
