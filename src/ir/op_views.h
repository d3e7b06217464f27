// Typed views of ops: LoadOp(op).mask(), DotOp(op).acc(). Operands are found by their names
// in ops.def (an optional one is null when absent), attributes through ir/attrs.h's enums.
// A view holds a reference to its op and is made on the spot; it checks the op's kind.
#pragma once

#include <span>

#include "ir/attrs.h"
#include "ir/ir.h"

namespace tritium::ir {

[[noreturn]] void wrong_op_view(const Op& op, OpKind wanted);

template <OpKind K>
class OpView {
 public:
  static constexpr OpKind kKind = K;
  explicit OpView(const Op& op) : op_(op) {
    if (op.kind() != K) wrong_op_view(op, K);
  }
  const Op& op() const { return op_; }
  Value* result() const { return op_.result(); }

 protected:
  Value* at(int index) const { return index < op_.num_operands() ? op_.operand(index) : nullptr; }
  std::span<Value* const> from(int index) const {
    const std::vector<Value*>& all = op_.operands();
    return index < op_.num_operands() ? std::span<Value* const>(all).subspan(index) : std::span<Value* const>();
  }

  const Op& op_;
};

// An accessor for the operand `name` of ops.def; its index is looked up once per accessor.
#define TRITIUM_OPERAND(fn, name)                              \
  Value* fn() const {                                          \
    static const int index = operand_index(kKind, name);       \
    return at(index);                                          \
  }
#define TRITIUM_VARIADIC(fn, name)                             \
  std::span<Value* const> fn() const {                         \
    static const int index = operand_index(kKind, name);       \
    return from(index);                                        \
  }

class LoadOp : public OpView<OpKind::Load> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(ptr, "ptr")
  TRITIUM_OPERAND(mask, "mask")
  TRITIUM_OPERAND(other, "other")
  bool is_volatile() const { return ir::is_volatile(op_); }
};

class StoreOp : public OpView<OpKind::Store> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(ptr, "ptr")
  TRITIUM_OPERAND(value, "value")
  TRITIUM_OPERAND(mask, "mask")
};

// Atomics order acq_rel at gpu scope unless told otherwise.
class AtomicRMWOp : public OpView<OpKind::AtomicRMW> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(ptr, "ptr")
  TRITIUM_OPERAND(value, "value")
  TRITIUM_OPERAND(mask, "mask")
  AtomicKind kind() const { return enum_attr<AtomicKind>(op_); }
  MemSem sem() const { return find_enum_attr<MemSem>(op_).value_or(MemSem::AcqRel); }
  MemScope scope() const { return find_enum_attr<MemScope>(op_).value_or(MemScope::Gpu); }
};

class AtomicCASOp : public OpView<OpKind::AtomicCAS> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(ptr, "ptr")
  TRITIUM_OPERAND(compare, "compare")
  TRITIUM_OPERAND(value, "value")
  MemSem sem() const { return find_enum_attr<MemSem>(op_).value_or(MemSem::AcqRel); }
  MemScope scope() const { return find_enum_attr<MemScope>(op_).value_or(MemScope::Gpu); }
};

// A dot's max_num_imprecise_acc when the kernel does not give one for fp8 inputs: Triton's
// sm_90 default, more than any K (wgmma accumulates all of K in its own precision).
inline constexpr int64_t kImpreciseAccAll = int64_t{1} << 30;

class DotOp : public OpView<OpKind::Dot> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(a, "a")
  TRITIUM_OPERAND(b, "b")
  TRITIUM_OPERAND(acc, "acc")
  InputPrecision input_precision() const { return enum_attr<InputPrecision>(op_); }
  int64_t max_num_imprecise_acc() const { return op_.int_attr("max_num_imprecise_acc"); }
  // fp8 on wgmma, as Triton's: an fp8 A, an f32 result and 0 < max_num_imprecise_acc <= K
  // accumulate each run of max_num_imprecise_acc elements of K (one instruction at least) in
  // a partial accumulator of their own, added into the result in f32. (0 is exact f32
  // accumulation: such a dot is widened to f16, gpu::native_fp8_candidate.)
  bool needs_partial_accumulator() const {
    return is_fp8(a()->type()->element()->scalar_kind()) &&
           result()->type()->element()->scalar_kind() == ScalarKind::F32 && max_num_imprecise_acc() > 0 &&
           max_num_imprecise_acc() <= a()->type()->shape().back();
  }
};

class CmpOp : public OpView<OpKind::Cmp> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(lhs, "lhs")
  TRITIUM_OPERAND(rhs, "rhs")
  CmpPredicate predicate() const { return enum_attr<CmpPredicate>(op_); }
};

class SelectOp : public OpView<OpKind::Select> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(cond, "cond")
  TRITIUM_OPERAND(if_true, "if_true")
  TRITIUM_OPERAND(if_false, "if_false")
};

class ForOp : public OpView<OpKind::For> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(lower, "lower")
  TRITIUM_OPERAND(upper, "upper")
  TRITIUM_OPERAND(step, "step")
  TRITIUM_VARIADIC(init, "init")
};

class HistogramOp : public OpView<OpKind::Histogram> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(x, "x")
  TRITIUM_OPERAND(mask, "mask")
};

class GatherOp : public OpView<OpKind::Gather> {
 public:
  using OpView::OpView;
  TRITIUM_OPERAND(src, "src")
  TRITIUM_OPERAND(index, "index")
};

#undef TRITIUM_OPERAND
#undef TRITIUM_VARIADIC

}  // namespace tritium::ir
