// assign_layouts (assign_layouts.h): one walk over the IR in order, each op's results given
// the layout of its family's rule, region arguments those of the values they carry.
#include "gpu/assign_layouts.h"

#include "gpu/default_layout.h"
#include "gpu/vector_widths.h"
#include "ir/layout.h"

namespace tritium::gpu {

namespace {

using ir::Layout;
using ir::Op;
using ir::OpKind;

const Layout* layout_of(const ir::Value* v) { return v == nullptr ? nullptr : v->type()->layout(); }

class Assigner {
 public:
  Assigner(const ir::Function& function, const GpuOptions& options)
      : threads_(32 * options.num_warps), widths_(choose_vector_widths(function, threads_, options.vectorize)) {}

  void region(ir::Region& r) {
    for (auto& op : r.ops()) assign(*op);
  }

 private:
  // The emitter's layout for a block of this type (target/nvptx/layout.h: V per size).
  const Layout* anchor(const ir::Type* type) const {
    return flat_blocked(type->shape(), threads_, widths_.vector(type->num_elements()));
  }

  static void set(ir::Value* v, const Layout* layout) {
    const ir::Type* type = v->type();
    if (!type->is_block() || layout == nullptr || !layout_shape(type->shape()) || layout->shape() != type->shape()) return;
    v->set_type(type->with_layout(layout));
  }

  // A transformed placement, named as the emitter's when it is the same map.
  const Layout* prefer_anchor(const Layout* layout, const ir::Type* type) const {
    if (layout == nullptr) return nullptr;
    const Layout* a = anchor(type);
    return a->linear() == layout->linear() ? a : layout;
  }

  // Elementwise: the operands' common layout; uniform operands (splats, constants) fit any.
  // Operands that disagree: the emitter's layout, each operand converted to it.
  const Layout* follow_operands(const Op& op) const {
    const Layout* chosen = nullptr;
    const Layout* first = nullptr;
    for (const ir::Value* v : op.operands()) {
      const Layout* l = layout_of(v);
      if (l == nullptr) continue;
      if (first == nullptr) first = l;
      if (is_uniform(v)) continue;
      if (chosen != nullptr && chosen != l) return anchor(op.result()->type());
      chosen = l;
    }
    return chosen != nullptr ? chosen : first != nullptr ? first : anchor(op.result()->type());
  }

  const Layout* rule(const Op& op, int i) const {
    const ir::Type* type = op.result(i)->type();
    if (!type->is_block() || !layout_shape(type->shape())) return nullptr;
    if (has_trait(op.kind(), ir::kElementwise)) return follow_operands(op);
    switch (op.kind()) {
      case OpKind::Reduce: {
        const Layout* in = layout_of(op.operand(i));
        return in == nullptr ? nullptr : Layout::slice(static_cast<int>(op.int_attr("axis")), in);
      }
      case OpKind::MapElementwise:
        // Every result alike; with pack = P the flat layout, whose V >= P registers of a
        // thread are consecutive elements (row-major), its inputs converted to it.
        return op.find_attr("pack") != nullptr ? anchor(type) : follow_operands(op);
      case OpKind::Scan:  // elements stay where they are
      case OpKind::DescriptorTile: return layout_of(op.operand(i));
      case OpKind::ExpandDims:
      case OpKind::Reshape: {
        const Layout* in = layout_of(op.operand(0));
        return in == nullptr ? anchor(type) : prefer_anchor(in->reshape(type->shape()), type);
      }
      case OpKind::Flip: {
        const Layout* in = layout_of(op.operand(0));
        return in == nullptr ? anchor(type) : prefer_anchor(in, type);
      }
      case OpKind::Trans: {
        const Layout* in = layout_of(op.operand(0));
        return in == nullptr ? anchor(type) : prefer_anchor(in->transpose(op.ints_attr("order")), type);
      }
      default:
        // make_range, splat, constant, broadcast, load, atomics, join, split, cat,
        // histogram, dot: the emitter's blocked layout.
        return anchor(type);
    }
  }

  void assign(Op& op) {
    switch (op.kind()) {
      case OpKind::For: {
        ir::Region& body = *op.region(0);
        for (int i = 3; i < op.num_operands(); ++i) set(body.arg(i - 2), layout_of(op.operand(i)));
        region(body);
        for (int i = 0; i < op.num_results(); ++i) set(op.result(i), layout_of(body.arg(i + 1)));
        return;
      }
      case OpKind::If: {
        for (const auto& r : op.regions()) region(*r);
        const Op* yield = op.region(0)->terminator();
        for (int i = 0; i < op.num_results() && yield != nullptr; ++i) set(op.result(i), layout_of(yield->operand(i)));
        return;
      }
      case OpKind::While: {
        ir::Region& before = *op.region(0);
        ir::Region& after = *op.region(1);
        for (int i = 0; i < op.num_operands(); ++i) set(before.arg(i), layout_of(op.operand(i)));
        region(before);
        const Op* condition = before.terminator();
        for (int i = 0; condition != nullptr && i + 1 < condition->num_operands(); ++i) {
          set(after.arg(i), layout_of(condition->operand(i + 1)));
          if (i < op.num_results()) set(op.result(i), layout_of(condition->operand(i + 1)));
        }
        region(after);
        return;
      }
      default:
        for (const auto& r : op.regions()) region(*r);  // combiners: scalars
        for (int i = 0; i < op.num_results(); ++i) set(op.result(i), rule(op, i));
    }
  }

  int threads_;
  VectorWidths widths_;
};

}  // namespace

bool is_uniform(const ir::Value* value) {
  const Op* def = value->def();
  return def != nullptr && (def->kind() == OpKind::Splat || def->kind() == OpKind::Constant);
}

const Layout* wanted_layout(const Op& op, int index) {
  if (has_trait(op.kind(), ir::kElementwise)) return op.num_results() == 1 ? layout_of(op.result()) : nullptr;
  switch (op.kind()) {
    case OpKind::MapElementwise: return layout_of(op.result(0));  // its inputs where its results are
    case OpKind::Load:
    case OpKind::Store:
    case OpKind::AtomicRMW:
    case OpKind::AtomicCAS: return index == 0 ? nullptr : layout_of(op.operand(0));
    case OpKind::Yield: {
      const Op* owner = op.parent() ? op.parent()->parent() : nullptr;
      if (owner == nullptr) return nullptr;
      if (owner->kind() == OpKind::For) return layout_of(op.parent()->arg(index + 1));
      if (owner->kind() == OpKind::If && index < owner->num_results()) return layout_of(owner->result(index));
      if (owner->kind() == OpKind::While) return layout_of(owner->region(0)->arg(index));
      return nullptr;
    }
    case OpKind::Condition: {
      const Op* owner = op.parent() ? op.parent()->parent() : nullptr;
      return owner != nullptr && index > 0 ? layout_of(owner->region(1)->arg(index - 1)) : nullptr;
    }
    default: return nullptr;
  }
}

void assign_layouts(ir::Function& function, const GpuOptions& options) {
  Assigner assigner(function, options);
  assigner.region(function.body());
}

}  // namespace tritium::gpu
