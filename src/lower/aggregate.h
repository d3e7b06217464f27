// Values made of several parts (tuples, block pointers, tensor descriptors) crossing control
// flow: flattened into their tensor leaves, which loops carry and `if`s yield, and rebuilt
// after; their compile-time leaves must not change (Triton's rule for constexprs in loops).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"
#include "lower/lvalue.h"

namespace tritium::lower {

// True for values that flatten into leaves (tuples, lists, aggregates).
inline bool is_compound(const LValue& v) { return v.kind == LValue::Kind::Tuple || v.kind == LValue::Kind::Aggregate; }

// Appends the IR values among the leaves of `v`, depth first.
void flatten_leaves(const LValue& v, std::vector<ir::Value*>* leaves);

// `like` with its tensor leaves replaced, in flatten order, by leaves[*cursor...].
LValue rebuild_leaves(const LValue& like, const std::vector<ir::Value*>& leaves, size_t* cursor);

// The type of `v` for messages: "i32", "(i32, block<4xfp32>)", "block_ptr<block<16x16xfp32>>".
std::string type_string(const LValue& v);

// Empty when `now` (after a loop iteration) has the structure of `init` (before the loop):
// same kinds and lengths, tensor leaves of the same types, equal compile-time leaves. Else
// what differs, worded to follow "loop-carried variable 'x' ".
std::string structure_difference(const LValue& init, const LValue& now);

// A `for`/`while` carried every leaf of its carried names; those that each iteration passes
// through unchanged (yield operand == region argument) are loop-invariant. Rebuilds the loop
// without them: their uses inside read `inits[i]` directly, so analyses see the values
// themselves (a block pointer's stride of 1 stays a constant inside the loop). The loop must
// have no results yet. Returns the new loop and, through `kept`, which carried
// indices it still carries.
ir::Op* drop_invariant_carried(ir::Op* loop, const std::vector<ir::Value*>& inits, std::vector<bool>* kept);

}  // namespace tritium::lower
