// Reduction and scan builtins: tl.reduce / tl.associative_scan with a user @jit combine
// function, and the ones Triton defines through them (sum, max, min, argmax, argmin,
// xor_sum, cumsum, cumprod) with Triton 3.6's accumulation types; tl.histogram.
#include <functional>

#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// Fills a combine region: (lhs..., rhs...) scalars in, the combined scalars out.
using CombineBody = std::function<std::vector<Value*>(Lowerer&, const std::vector<Value*>& lhs,
                                                      const std::vector<Value*>& rhs, const Loc&)>;

// The axis as a dimension of a `rank`-dimensional block, with Triton's error.
int64_t wrap_axis(__int128 axis, int rank, const Loc& loc) {
  if (axis < -rank || axis >= rank) {
    error_at(loc, "invalid axis " + int128_to_string(axis) + ". Expected " + std::to_string(-rank) + " <= axis < " +
                      std::to_string(rank));
  }
  return static_cast<int64_t>(axis < 0 ? axis + rank : axis);
}

// The block inputs of a reduce or scan: one tensor or a tuple of tensors of one shape.
std::vector<Value*> block_inputs(Lowerer& L, const LValue& input, const std::string& fn, const Loc& loc) {
  std::vector<Value*> inputs;
  if (input.kind == LValue::Kind::Tuple) {
    for (const LValue& item : input.items) inputs.push_back(L.to_tensor(item, loc));
  } else {
    inputs.push_back(L.to_tensor(input, loc));
  }
  if (inputs.empty()) error_at(loc, "tl." + fn + " needs at least one input");
  for (Value* v : inputs) {
    if (v->type()->is_ptr()) error_at(loc, "tl." + fn + " of a pointer block is not supported");
    if (v->type()->shape() != inputs[0]->type()->shape()) {
      error_at(loc, "the inputs of tl." + fn + " have different shapes: " + inputs[0]->type()->str() + " and " + v->type()->str());
    }
  }
  return inputs;
}

// Builds the reduce (or scan) op; a scalar input is already reduced and comes back as is.
std::vector<Value*> combine_op(Lowerer& L, ir::OpKind kind, std::vector<Value*> inputs, int64_t axis, bool reverse,
                               const CombineBody& body, const Loc& loc) {
  if (!inputs[0]->type()->is_block()) return inputs;
  std::vector<const Type*> result_types;
  std::vector<Value*> lhs, rhs;
  for (Value* v : inputs) {
    std::vector<int64_t> shape = v->type()->shape();
    const Type* result = v->type();
    if (kind == ir::OpKind::Reduce) {
      shape.erase(shape.begin() + axis);
      result = shape.empty() ? v->type()->element() : Type::block(v->type()->element(), shape);
    }
    result_types.push_back(result);
  }
  ir::Op* op = L.builder().create(kind, result_types, inputs, loc);
  op->set_attr("axis", axis);
  if (kind == ir::OpKind::Scan) op->set_attr("reverse", int64_t{reverse});
  ir::Region* region = op->add_region();
  for (Value* v : inputs) lhs.push_back(region->add_arg(v->type()->element()));
  for (Value* v : inputs) rhs.push_back(region->add_arg(v->type()->element()));
  ir::Region* outer = L.builder().region();
  L.builder().set_region(region);
  std::vector<Value*> combined = body(L, lhs, rhs, loc);
  if (combined.size() != inputs.size()) {
    error_at(loc, "the combine function returned " + std::to_string(combined.size()) + " values for " +
                      std::to_string(inputs.size()) + " inputs");
  }
  for (size_t i = 0; i < combined.size(); ++i) {
    if (combined[i]->type() != lhs[i]->type()) {
      error_at(loc, "the combine function returned " + combined[i]->type()->str() + " where " + lhs[i]->type()->str() +
                        " was expected");
    }
  }
  L.builder().create(ir::OpKind::Yield, {}, combined, loc);
  L.builder().set_region(outer);
  std::vector<Value*> results;
  for (int i = 0; i < op->num_results(); ++i) results.push_back(op->result(i));
  return results;
}

// A user's @jit combine function, inlined into the region; constants it returns take the
// element type.
CombineBody user_combine(const LValue& fn, const std::string& builtin, const Loc& loc) {
  if (fn.kind != LValue::Kind::Function || !fn.function->jit) {
    error_at(loc, "the combine_fn of tl." + builtin + " must be a @triton.jit function, got " + fn.describe() +
                      (fn.kind == LValue::Kind::Function ? " (not decorated with @jit)" : ""));
  }
  return [fn](Lowerer& L, const std::vector<Value*>& lhs, const std::vector<Value*>& rhs, const Loc& at) {
    std::vector<LValue> args;
    for (Value* v : lhs) args.push_back(LValue::tensor(v));
    for (Value* v : rhs) args.push_back(LValue::tensor(v));
    LValue out = L.inline_call(*fn.function, std::move(args), {}, at);
    std::vector<LValue> items = out.kind == LValue::Kind::Tuple ? out.items : std::vector<LValue>{out};
    std::vector<Value*> values;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].is_const() && i < lhs.size()) values.push_back(L.constant(lhs[i]->type()->scalar_kind(), items[i].c, at));
      else values.push_back(L.to_tensor(items[i], at));
    }
    return values;
  };
}

CombineBody elementwise_combine(ir::OpKind op) {
  return [op](Lowerer& L, const std::vector<Value*>& lhs, const std::vector<Value*>& rhs, const Loc& loc) {
    return std::vector<Value*>{L.emit(op, lhs[0]->type(), {lhs[0], rhs[0]}, loc)};
  };
}

// Triton's _argmax_combine / _argmin_combine over (value, index) pairs.
CombineBody arg_combine(bool is_max, bool tie_break_left) {
  return [is_max, tie_break_left](Lowerer& L, const std::vector<Value*>& lhs, const std::vector<Value*>& rhs, const Loc& loc) {
    LValue v1 = LValue::tensor(lhs[0]), i1 = LValue::tensor(lhs[1]);
    LValue v2 = LValue::tensor(rhs[0]), i2 = LValue::tensor(rhs[1]);
    Value* better = L.cmp(is_max ? ir::CmpPredicate::Gt : ir::CmpPredicate::Lt, v1, v2, loc);
    if (tie_break_left) {
      Value* tie = L.logical(ir::OpKind::And, LValue::tensor(L.cmp(ir::CmpPredicate::Eq, v1, v2, loc)),
                             LValue::tensor(L.cmp(ir::CmpPredicate::Lt, i1, i2, loc)), loc);
      better = L.logical(ir::OpKind::Or, LValue::tensor(better), LValue::tensor(tie), loc);
    }
    return std::vector<Value*>{L.where(LValue::tensor(better), v1, v2, loc), L.where(LValue::tensor(better), i1, i2, loc)};
  };
}

struct ReduceRequest {
  std::vector<Value*> inputs;
  bool all_axes = false;  // axis=None: every element
  int64_t axis = 0;
  bool keep_dims = false;
};

ReduceRequest reduce_request(Lowerer& L, const BuiltinArgs& a, std::vector<Value*> inputs, const Loc& loc) {
  ReduceRequest r;
  r.keep_dims = a.const_bool("keep_dims", false);
  int rank = inputs[0]->type()->rank();
  if (!a.has("axis")) {
    r.all_axes = true;
    if (rank > 1) {
      int64_t n = inputs[0]->type()->num_elements();
      for (Value*& v : inputs) v = L.emit(ir::OpKind::Reshape, Type::block(v->type()->element(), {n}), {v}, loc);
    }
  } else {
    // An axis of a scalar is out of range, as in Triton (found by the differential run).
    r.axis = wrap_axis(a.const_int("axis"), rank, loc);
  }
  r.inputs = std::move(inputs);
  return r;
}

// The reduce op for `request`, with keep_dims applied to each result.
std::vector<Value*> reduce(Lowerer& L, const ReduceRequest& request, int original_rank, const CombineBody& body,
                           const Loc& loc) {
  std::vector<Value*> results = combine_op(L, ir::OpKind::Reduce, request.inputs, request.axis, false, body, loc);
  if (request.keep_dims && original_rank > 0) {
    for (Value*& v : results) {
      if (request.all_axes) {
        v = L.broadcast_to(v, std::vector<int64_t>(original_rank, 1), loc);
      } else {
        std::vector<int64_t> shape = v->type()->shape();
        shape.insert(shape.begin() + request.axis, 1);
        v = v->type()->is_block() ? L.emit(ir::OpKind::Reshape, Type::block(v->type()->element(), shape), {v}, loc)
                                  : L.broadcast_to(v, shape, loc);
      }
    }
  }
  return results;
}

// The results of a reduce or scan: a tuple when there are several, or when the input was a
// tuple (Triton's tl.reduce((x,), ...) and tl.associative_scan((x,), ...) give a 1-tuple back).
LValue tuple_or_single(const std::vector<Value*>& values, bool tuple_input = false) {
  if (values.size() == 1 && !tuple_input) return LValue::tensor(values[0]);
  std::vector<LValue> items;
  for (Value* v : values) items.push_back(LValue::tensor(v));
  return LValue::tuple(std::move(items));
}

// Triton's _pick_sum_dtype: integers narrower than 32 bits sum as (u)int32.
Value* sum_input(Lowerer& L, const BuiltinArgs& a, Value* x, const Loc& loc) {
  if (a.has("dtype")) return L.cast(x, a.dtype("dtype"), loc);
  ScalarKind k = x->type()->element()->scalar_kind();
  if (ir::is_integer(k) && ir::bit_width(k) < 32) return L.cast(x, ir::is_signed(k) ? ScalarKind::I32 : ScalarKind::U32, loc);
  return x;
}

// Triton's _promote_bfloat16_to_float32.
Value* bf16_to_f32(Lowerer& L, Value* x, const Loc& loc) {
  return x->type()->element()->scalar_kind() == ScalarKind::BF16 ? L.cast(x, ScalarKind::F32, loc) : x;
}

Value* single_input(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  return block_inputs(L, a.get("input"), a.fn(), loc)[0];
}

// max and min, with or without indices; argmax and argmin.
LValue min_max(Lowerer& L, const BuiltinArgs& a, bool is_max, bool indices, bool tie_break_left, const Loc& loc) {
  Value* x = single_input(L, a, loc);
  ScalarKind k = x->type()->element()->scalar_kind();
  x = bf16_to_f32(L, x, loc);
  if (!indices && ir::bit_width(k) < 32) x = L.cast(x, ir::is_float(k) ? ScalarKind::F32 : ScalarKind::I32, loc);
  int rank = x->type()->rank();
  if (!indices) {
    ReduceRequest r = reduce_request(L, a, {x}, loc);
    return LValue::tensor(reduce(L, r, rank, elementwise_combine(is_max ? ir::OpKind::Maximum : ir::OpKind::Minimum), loc)[0]);
  }
  // Triton reduces with indices along one given axis (_reduce_with_indices indexes the shape
  // with it): no axis is an error, and a scalar has no axis at all.
  if (!a.has("axis")) {
    error_at(loc, "tl." + a.fn() + (a.fn() == "argmax" || a.fn() == "argmin" ? "" : " with return_indices=True") +
                      " needs an integer axis, got None");
  }
  ReduceRequest r = reduce_request(L, a, {x}, loc);
  Value* input = r.inputs[0];
  // The index of each element along the axis, broadcast to the input's shape.
  int64_t n = input->type()->shape()[r.axis];
  Value* range = L.call_builtin(LValue::builtin("tl.arange"), {LValue::constant(ConstValue::integer(0)),
                                                               LValue::constant(ConstValue::integer(n))}, {}, loc).value;
  std::vector<int64_t> shape(input->type()->rank(), 1);
  shape[r.axis] = n;
  if (input->type()->rank() > 1) range = L.emit(ir::OpKind::Reshape, Type::block(range->type()->element(), shape), {range}, loc);
  r.inputs.push_back(L.broadcast_to(range, input->type()->shape(), loc));
  std::vector<Value*> out = reduce(L, r, rank, arg_combine(is_max, tie_break_left), loc);
  return LValue::tuple({LValue::tensor(out[0]), LValue::tensor(out[1])});
}

LValue scan(Lowerer& L, const BuiltinArgs& a, std::vector<Value*> inputs, const CombineBody& body, const Loc& loc,
            bool tuple_input = false) {
  // A scalar has no axis 0 to scan along, as in Triton (found by the differential run).
  int rank = inputs[0]->type()->rank();
  int64_t axis = wrap_axis(a.has("axis") ? a.const_int("axis") : 0, rank, loc);
  return tuple_or_single(combine_op(L, ir::OpKind::Scan, inputs, axis, a.const_bool("reverse", false), body, loc),
                         tuple_input);
}

}  // namespace

// tl.map_elementwise(scalar_fn, *args, pack=1): the inputs broadcast to one shape, the
// @jit function inlined once into the op's region (its branches and loops run per call),
// its scalars (or tuple of scalars) the elements of the results. With pack = P > 1 (an
// attribute of the op) one call takes P elements, as Triton 3.6: the region's arguments are
// each input's P elements in turn (input i's j-th at i * P + j) and it returns P values per
// output (output r's j-th at r * P + j), of one type per output. Which elements make a
// group is the target's (interp: aligned runs of P in row-major order; nvptx: P registers
// of a thread, consecutive elements, vector_widths asking for V >= P).
LValue map_elementwise(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& fn = a.get("scalar_fn");
  if (fn.kind != LValue::Kind::Function || !fn.function->jit) {
    error_at(loc, "the scalar_fn of tl.map_elementwise must be a @triton.jit function, got " + fn.describe());
  }
  const __int128 pack_value = a.has("pack") ? a.const_int("pack") : 1;
  if (pack_value < 1) error_at(loc, "tl.map_elementwise: pack must be at least 1");
  if (pack_value > 64 || !is_power_of_two(static_cast<int64_t>(pack_value))) {
    error_at(loc, "tl.map_elementwise: pack must be a power of two up to 64 (the elements a thread holds are "
                  "grouped by it), got " + int128_to_string(pack_value));
  }
  const int pack = static_cast<int>(pack_value);
  const std::string pack_text = "tl.map_elementwise with pack=" + std::to_string(pack);
  std::vector<Value*> inputs;
  for (const LValue& item : a.get("args").items) inputs.push_back(L.to_tensor(item, loc));
  if (inputs.empty()) error_at(loc, "tl.map_elementwise needs at least one input");
  std::vector<int64_t> shape;
  for (Value* v : inputs) {
    if (v->type()->is_ptr()) error_at(loc, "tl.map_elementwise of a pointer block is not supported");
    if (!v->type()->is_block()) continue;
    if (shape.empty()) {
      shape = v->type()->shape();
    } else if (v->type()->shape() != shape) {
      shape = L.broadcast(L.broadcast_to(inputs[0], shape, loc), v, loc).first->type()->shape();
    }
  }
  std::vector<LValue> scalar_args;
  if (shape.empty()) {  // all scalars: the function on them, once
    if (pack > 1) error_at(loc, pack_text + " needs a block input: scalars have no elements to group");
    for (Value* v : inputs) scalar_args.push_back(LValue::tensor(v));
    return L.inline_call(*fn.function, std::move(scalar_args), {}, loc);
  }
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  if (count < pack) {
    error_at(loc, pack_text + " needs at least " + std::to_string(pack) + " elements, got a block of " +
                      std::to_string(count));
  }
  for (Value*& v : inputs) v = L.broadcast_to(v, shape, loc);
  ir::Op* op = L.builder().create(ir::OpKind::MapElementwise, {}, inputs, loc);
  if (pack > 1) op->set_attr("pack", static_cast<int64_t>(pack));
  ir::Region* region = op->add_region();
  for (Value* v : inputs) {
    for (int j = 0; j < pack; ++j) scalar_args.push_back(LValue::tensor(region->add_arg(v->type()->element())));
  }
  ir::Region* outer = L.builder().region();
  L.builder().set_region(region);
  LValue out = L.inline_call(*fn.function, std::move(scalar_args), {}, loc);
  const bool single = out.kind != LValue::Kind::Tuple;
  std::vector<LValue> items = single ? std::vector<LValue>{out} : out.items;
  std::vector<Value*> values;
  for (const LValue& item : items) {
    if (item.is_none()) error_at(loc, "the scalar_fn of tl.map_elementwise must return a value for each element");
    Value* v = L.to_tensor(item, loc);
    if (v->type()->is_block()) {
      error_at(loc, "the scalar_fn of tl.map_elementwise returned a block " + v->type()->str() + "; it takes and "
                    "returns one element");
    }
    values.push_back(v);
  }
  if (values.empty()) error_at(loc, "the scalar_fn of tl.map_elementwise returned nothing");
  if (values.size() % static_cast<size_t>(pack) != 0) {
    error_at(loc, "the scalar_fn of " + pack_text + " returned " + std::to_string(values.size()) +
                      " values; it returns " + std::to_string(pack) + " per output (each output's in turn)");
  }
  for (size_t r = 0; r < values.size(); r += static_cast<size_t>(pack)) {
    for (size_t j = 1; j < static_cast<size_t>(pack); ++j) {
      if (values[r + j]->type() != values[r]->type()) {
        error_at(loc, "type mismatch in unpacked results: the scalar_fn of " + pack_text + " returned " +
                          values[r]->type()->str() + " and " + values[r + j]->type()->str() + " for output " +
                          std::to_string(r / static_cast<size_t>(pack)));
      }
    }
  }
  L.builder().create(ir::OpKind::Yield, {}, values, loc);
  L.builder().set_region(outer);
  // No memory effects inside: each element's call may run in any order, or not at all.
  std::function<void(const ir::Region&)> check = [&](const ir::Region& r) {
    for (const auto& inner : r.ops()) {
      for (const auto& nested : inner->regions()) check(*nested);
      const ir::OpKind k = inner->kind();
      const bool control = k == ir::OpKind::If || k == ir::OpKind::For || k == ir::OpKind::While ||
                           k == ir::OpKind::Yield || k == ir::OpKind::Condition;
      if (!control && !ir::has_trait(k, ir::kPure)) {
        error_at(inner->loc(), std::string("tl.map_elementwise's function may not have side effects ('") +
                                   inner->name() + "')");
      }
    }
  };
  check(*region);
  std::vector<LValue> results;
  for (size_t r = 0; r < values.size(); r += static_cast<size_t>(pack)) {
    results.push_back(LValue::tensor(op->add_result(Type::block(values[r]->type(), shape))));
  }
  return single ? results[0] : LValue::tuple(std::move(results));
}

void register_reduce_builtins(BuiltinTable& t) {
  t.add("map_elementwise", {"scalar_fn", "*args", "pack="}, false, map_elementwise);
  // x.item(): a one-element block as a scalar (Triton's _unsplat: a reduce keeping the first
  // element, of any type).
  t.add("item", {"input"}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = L.to_tensor(a.get("input"), loc);
    if (!x->type()->is_block()) return LValue::tensor(x);
    if (x->type()->num_elements() != 1) {
      error_at(loc, "can only unsplat single-element tensors, got " + x->type()->str());
    }
    if (x->type()->rank() > 1) x = L.emit(ir::OpKind::Reshape, Type::block(x->type()->element(), {1}), {x}, loc);
    CombineBody first = [](Lowerer&, const std::vector<Value*>& lhs, const std::vector<Value*>&, const Loc&) {
      return lhs;
    };
    return LValue::tensor(combine_op(L, ir::OpKind::Reduce, {x}, 0, false, first, loc)[0]);
  });
  t.add("reduce", {"input", "axis", "combine_fn", "keep_dims="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    std::vector<Value*> inputs = block_inputs(L, a.get("input"), "reduce", loc);
    int rank = inputs[0]->type()->rank();
    ReduceRequest r = reduce_request(L, a, inputs, loc);
    return tuple_or_single(reduce(L, r, rank, user_combine(a.get("combine_fn"), "reduce", loc), loc),
                           a.get("input").kind == LValue::Kind::Tuple);
  });
  t.add("sum", {"input", "axis=", "keep_dims=", "dtype="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = sum_input(L, a, single_input(L, a, loc), loc);
    ReduceRequest r = reduce_request(L, a, {x}, loc);
    return LValue::tensor(reduce(L, r, x->type()->rank(), elementwise_combine(ir::OpKind::Add), loc)[0]);
  });
  t.add("xor_sum", {"input", "axis=", "keep_dims="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = single_input(L, a, loc);
    if (!x->type()->is_int()) error_at(loc, "xor_sum only supported for integers");
    ReduceRequest r = reduce_request(L, a, {x}, loc);
    return LValue::tensor(reduce(L, r, x->type()->rank(), elementwise_combine(ir::OpKind::Xor), loc)[0]);
  });
  for (bool is_max : {true, false}) {
    t.add(is_max ? "max" : "min", {"input", "axis=", "return_indices=", "return_indices_tie_break_left=", "keep_dims="}, true,
          [is_max](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
            return min_max(L, a, is_max, a.const_bool("return_indices", false),
                           a.const_bool("return_indices_tie_break_left", true), loc);
          });
    t.add(is_max ? "argmax" : "argmin", {"input", "axis", "tie_break_left=", "keep_dims="}, true,
          [is_max](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
            return min_max(L, a, is_max, true, a.const_bool("tie_break_left", true), loc).items[1];
          });
  }
  t.add("associative_scan", {"input", "axis", "combine_fn", "reverse="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return scan(L, a, block_inputs(L, a.get("input"), "associative_scan", loc),
                user_combine(a.get("combine_fn"), "associative_scan", loc), loc,
                a.get("input").kind == LValue::Kind::Tuple);
  });
  // Unlike sum, Triton's cumsum and cumprod first promote bf16 to fp32.
  t.add("cumsum", {"input", "axis=", "reverse=", "dtype="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = bf16_to_f32(L, single_input(L, a, loc), loc);
    return scan(L, a, {sum_input(L, a, x, loc)}, elementwise_combine(ir::OpKind::Add), loc);
  });
  t.add("cumprod", {"input", "axis=", "reverse="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return scan(L, a, {bf16_to_f32(L, single_input(L, a, loc), loc)}, elementwise_combine(ir::OpKind::Mul), loc);
  });
  t.add("histogram", {"input", "num_bins", "mask="}, true, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    Value* x = L.to_tensor(a.get("input"), loc);
    if (!x->type()->is_block() || x->type()->rank() != 1 || !x->type()->is_int()) {
      error_at(loc, "tl.histogram needs a 1-D block of integers, got " + x->type()->str());
    }
    __int128 bins = a.const_int("num_bins");
    if (bins <= 0 || bins > (1 << 20) || !is_power_of_two(static_cast<int64_t>(bins))) {
      error_at(loc, "the number of bins of tl.histogram must be a power of two, got " + int128_to_string(bins));
    }
    std::vector<Value*> operands = {x};
    if (a.has("mask")) {
      Value* mask = L.to_tensor(a.get("mask"), loc);
      if (!mask->type()->is_bool()) error_at(loc, "the mask of tl.histogram must be boolean (int1), got " + mask->type()->str());
      operands.push_back(L.broadcast_to(mask, x->type()->shape(), loc));
    }
    ir::Op* op = L.builder().create(ir::OpKind::Histogram, {Type::block(Type::scalar(ScalarKind::I32), {static_cast<int64_t>(bins)})},
                                    operands, loc);
    op->set_attr("num_bins", static_cast<int64_t>(bins));
    return LValue::tensor(op->result());
  });
}

}  // namespace tritium::lower
