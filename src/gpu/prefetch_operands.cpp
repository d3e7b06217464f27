// prefetch_operands (prefetch_operands.h): which loads async_copy.h can copy with cp.async
// once prefetch_loads has made them loop-carried.
#include "gpu/prefetch_operands.h"

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
// on fp8 inputs), masked-off elements zero.
bool copyable_operand_load(const ir::Op& load, int sm) {
  const ir::Value* v = load.result();
  if (v->num_uses() != 1 || v->users()[0]->kind() != ir::OpKind::Dot || v->uses()[0].index > 1) return false;
  ir::ScalarKind k = v->type()->element()->scalar_kind();
  bool fp8 = sm >= 90 && native_fp8_candidate(*v->users()[0]);
  return v->type()->rank() == 2 && (k == ir::ScalarKind::F16 || k == ir::ScalarKind::BF16 || fp8);
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

bool pipelines_dots(const ir::Function& function, const GpuOptions& options) {
  return options.num_stages >= 2 && has_dot(function.body());
}

void prefetch_operands(ir::Function& function, const GpuOptions& options) {
  if (!pipelines_dots(function, options)) return;
  transforms::prefetch_loads(function, [&](const ir::Op& load) { return copyable_operand_load(load, options.sm); },
                             options.num_stages);
}

}  // namespace tritium::gpu
