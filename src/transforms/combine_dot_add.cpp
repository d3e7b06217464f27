// combine_dot_add (combine_dot_add.h). Folded only where it cannot be observed otherwise:
// the dot's accumulator is a zero constant (a uniform block, or a splat of a scalar zero),
// the dot has no other use, the add has the dot's type, and for floats
// max_num_imprecise_acc is 0 (Triton's conditions). The new dot is created where the add
// stands, so `d` is defined before it; the old dot and add are left to eliminate_dead_code.
#include "transforms/combine_dot_add.h"

#include <cmath>
#include <vector>

#include "ir/builder.h"
#include "ir/op_views.h"
#include "transforms/rewrite.h"

namespace tritium::transforms {

namespace {


// The operand index of the foldable dot among the add's operands, or -1.
int foldable_dot(const ir::Op& add) {
  if (add.kind() != ir::OpKind::Add || !add.result()->type()->is_block()) return -1;
  for (int i = 0; i < 2; ++i) {
    const ir::Value* v = add.operand(i);
    const ir::Op* dot = v->def();
    if (dot == nullptr || dot->kind() != ir::OpKind::Dot || v->num_uses() != 1) continue;
    if (add.operand(0) == add.operand(1)) continue;  // dot + dot: the same value twice
    if (v->type() != add.result()->type() || !ir::is_zero_constant(ir::DotOp(*dot).acc())) continue;
    if (v->type()->is_float() && dot->int_attr("max_num_imprecise_acc") != 0) continue;
    return i;
  }
  return -1;
}

}  // namespace

void combine_dot_add(ir::Function& function) {
  std::vector<std::pair<ir::Op*, int>> found;
  walk(function.body(), [&](ir::Op& op) {
    int i = foldable_dot(op);
    if (i >= 0) found.emplace_back(&op, i);
  });
  for (auto [add, i] : found) {
    ir::Op* dot = add->operand(i)->def();
    ir::Value* acc = add->operand(1 - i);
    ir::DotOp old(*dot);
    ir::Op* fused = ir::Builder::before(add).create(ir::OpKind::Dot, {add->result()->type()},
                                                    {old.a(), old.b(), acc}, dot->loc());
    for (const ir::Attr& attr : dot->attrs()) fused->set_attr(attr.name, attr.value);
    add->result()->replace_all_uses_with(fused->result());
  }
}

}  // namespace tritium::transforms
