// int8_wgmma (int8_wgmma.h): int8 dots on wgmma where their operands' copies allow it.
#include "gpu/int8_wgmma.h"

#include "analysis/axis_info.h"
#include "gpu/prefetch_operands.h"
#include "gpu/vector_widths.h"

namespace tritium::gpu {

namespace {

bool in_loop(const ir::Op& op) {
  for (const ir::Op* owner = op.parent() != nullptr ? op.parent()->parent() : nullptr; owner != nullptr;
       owner = owner->parent() != nullptr ? owner->parent()->parent() : nullptr) {
    if (owner->kind() == ir::OpKind::For || owner->kind() == ir::OpKind::While) return true;
  }
  return false;
}

// Whether `v` is a load whose accesses run 16 bytes (16 int8 elements) along `axis`.
bool runs_along(const ir::Value* v, int axis, const analysis::AxisInfoAnalysis& facts) {
  const ir::Op* load = v->def();
  if (load == nullptr || load->kind() != ir::OpKind::Load || !facts.has(load->operand(0))) return false;
  return access_width_along(*load, axis, facts) >= 16;
}

void choose(const ir::Region& region, const GpuOptions& options, const analysis::AxisInfoAnalysis& facts) {
  for (const auto& op : region.ops()) {
    for (const auto& inner : op->regions()) choose(*inner, options, facts);
    if (op->kind() != ir::OpKind::Dot || !int8_dot(*op) || op->result()->type()->rank() != 2) continue;
    const bool pipelined = options.num_stages >= 2 && in_loop(*op);
    if (pipelined && runs_along(op->operand(0), 0, facts)) continue;
    if (pipelined && runs_along(op->operand(1), 1, facts)) {
      if (options.int8_row_major_wgmma) op->set_attr(kInt8WgmmaAttr, kInt8WgmmaBFromRegisters);
      continue;
    }
    op->set_attr(kInt8WgmmaAttr, int64_t{1});
  }
}

bool has_int8_dot(const ir::Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == ir::OpKind::Dot && int8_dot(*op)) return true;
    for (const auto& inner : op->regions()) {
      if (has_int8_dot(*inner)) return true;
    }
  }
  return false;
}

}  // namespace

bool chooses_int8_wgmma(const ir::Function& function, const GpuOptions& options) {
  return options.sm == 90 && has_int8_dot(function.body());
}

void choose_int8_wgmma(ir::Function& function, const GpuOptions& options) {
  analysis::AxisInfoAnalysis facts(function);
  choose(function.body(), options, facts);
}

bool int8_on_wgmma(const ir::Op& dot) {
  const ir::AttrValue* attr = dot.find_attr(kInt8WgmmaAttr);
  return attr != nullptr && *attr != ir::AttrValue(int64_t{0}) && int8_dot(dot);
}

}  // namespace tritium::gpu
