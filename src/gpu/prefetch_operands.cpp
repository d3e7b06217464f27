// prefetch_operands (prefetch_operands.h): which loads async_copy.h can copy with cp.async
// once prefetch_loads has made them loop-carried.
#include "gpu/prefetch_operands.h"

#include "analysis/axis_info.h"
#include "gpu/vector_widths.h"
#include "ir/op_views.h"
#include "transforms/prefetch_loads.h"

namespace tritium::gpu {

bool has_dot(const ir::Region& region) {
  for (const auto& op : region.ops()) {
    if (op->kind() == ir::OpKind::Dot) return true;
    for (const auto& inner : op->regions()) {
      if (has_dot(*inner)) return true;
    }
  }
  return false;
}

namespace {

// A load that only feeds a 2-D fp16/bf16 dot operand (or an fp8 one of a dot wgmma may run
// on fp8 inputs), masked-off elements zero. The operand of a tf32 or int8 dot (mma.sync)
// too, when the axis facts prove 16-byte runs along its rows or its columns (then copied
// transposed, async_copy.h): with neither its copies would move an element at a time.
bool copyable_operand_load(const ir::Op& load, int sm, const analysis::AxisInfoAnalysis& facts) {
  const ir::Value* v = load.result();
  if (v->num_uses() != 1 || v->users()[0]->kind() != ir::OpKind::Dot || v->uses()[0].index > 1) return false;
  const ir::Op& dot = *v->users()[0];
  ir::ScalarKind k = v->type()->element()->scalar_kind();
  bool fp8 = sm >= 90 && native_fp8_candidate(dot);
  if (v->type()->rank() != 2) return false;
  if (k == ir::ScalarKind::F16 || k == ir::ScalarKind::BF16 || fp8) return true;
  if (!tf32_dot(dot) && !int8_dot(dot)) return false;
  if (!facts.has(load.operand(0))) return false;
  const int64_t bytes = ir::bit_width(k) / 8;
  return access_width(load, facts) * bytes >= 16 || access_width_along(load, 0, facts) * bytes >= 16;
}

}  // namespace

bool native_fp8_candidate(const ir::Op& dot) {
  using ir::ScalarKind;
  auto wgmma_fp8 = [](ScalarKind k) { return k == ScalarKind::F8E4NV || k == ScalarKind::F8E5; };
  ScalarKind r = dot.result()->type()->element()->scalar_kind();
  return wgmma_fp8(dot.operand(0)->type()->element()->scalar_kind()) &&
         wgmma_fp8(dot.operand(1)->type()->element()->scalar_kind()) && r != ScalarKind::F64 &&
         dot.operand(0)->type()->shape().back() % 32 == 0 && dot.int_attr("max_num_imprecise_acc") == 0;
}

bool tf32_dot(const ir::Op& dot) {
  using ir::ScalarKind;
  const ir::InputPrecision precision = ir::DotOp(dot).input_precision();
  return dot.operand(0)->type()->element()->scalar_kind() == ScalarKind::F32 &&
         dot.operand(1)->type()->element()->scalar_kind() == ScalarKind::F32 &&
         dot.result()->type()->element()->scalar_kind() == ScalarKind::F32 &&
         (precision == ir::InputPrecision::Tf32 || precision == ir::InputPrecision::Tf32x3);
}

bool int8_dot(const ir::Op& dot) {
  using ir::ScalarKind;
  return dot.operand(0)->type()->element()->scalar_kind() == ScalarKind::I8 &&
         dot.operand(1)->type()->element()->scalar_kind() == ScalarKind::I8 &&
         dot.result()->type()->element()->scalar_kind() == ScalarKind::I32 &&
         dot.operand(0)->type()->shape().back() % 32 == 0;
}

bool pipelines_dots(const ir::Function& function, const GpuOptions& options) {
  return options.num_stages >= 2 && has_dot(function.body());
}

void prefetch_operands(ir::Function& function, const GpuOptions& options) {
  if (!pipelines_dots(function, options)) return;
  analysis::AxisInfoAnalysis facts(function);
  transforms::prefetch_loads(function, [&](const ir::Op& load) { return copyable_operand_load(load, options.sm, facts); },
                             options.num_stages);
}

}  // namespace tritium::gpu
