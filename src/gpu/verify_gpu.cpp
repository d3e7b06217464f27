// verify_gpu (verify_gpu.h): a walk over every value's type and every op's buffers.
#include "gpu/verify_gpu.h"

#include <algorithm>

#include "gpu/default_layout.h"
#include "ir/layout.h"
#include "ir/printer.h"
#include "support/diagnostics.h"

namespace tritium::gpu {

namespace {

class Checker {
 public:
  Checker(const ir::Function& function, const GpuOptions& options, bool assigned, const std::string& pass)
      : function_(function), options_(options), assigned_(assigned), pass_(pass) {}

  void region(const ir::Region& r, const ir::Op* owner) {
    for (const auto& arg : r.args()) value(*arg, owner);
    for (const auto& op : r.ops()) {
      for (const auto& result : op->results()) value(*result, op.get());
      buffers(*op);
      for (const auto& inner : op->regions()) region(*inner, op.get());
    }
  }

 private:
  [[noreturn]] void fail(const ir::Op* op, const std::string& message) const {
    std::string where = op != nullptr ? " at '" + ir::print(*op, &function_) + "'" : "";
    internal_error("gpu verifier", "after " + pass_ + ": " + message + where, op != nullptr ? op->loc() : function_.loc());
  }

  void value(const ir::Value& v, const ir::Op* op) const {
    const ir::Type* type = v.type();
    const ir::Layout* layout = type->layout();
    if (layout == nullptr) {
      if (assigned_ && type->is_block() && layout_shape(type->shape())) fail(op, "a block without a layout: " + type->str());
      return;
    }
    if (layout->num_warps() != options_.num_warps) {
      fail(op, "a layout for " + std::to_string(layout->num_warps()) + " warps in a kernel of " +
                   std::to_string(options_.num_warps) + ": " + type->str());
    }
    if (!layout->linear().surjective()) fail(op, "a layout that loses elements: " + type->str());
  }

  void buffers(const ir::Op& op) const {
    const ir::AttrValue* offsets = op.find_attr("shared_offsets");
    const ir::AttrValue* sizes = op.find_attr("shared_sizes");
    if (offsets == nullptr && sizes == nullptr) return;
    if (offsets == nullptr || sizes == nullptr || !std::holds_alternative<std::vector<int64_t>>(*offsets) ||
        !std::holds_alternative<std::vector<int64_t>>(*sizes)) {
      fail(&op, "shared_offsets and shared_sizes must be integer lists, given together");
    }
    const auto& o = std::get<std::vector<int64_t>>(*offsets);
    const auto& s = std::get<std::vector<int64_t>>(*sizes);
    if (o.size() != s.size()) fail(&op, "shared_offsets and shared_sizes of different lengths");
    for (size_t i = 0; i < o.size(); ++i) {
      if (o[i] < 0 || s[i] <= 0) fail(&op, "a shared-memory buffer at a negative offset or of no size");
      for (size_t j = i + 1; j < o.size(); ++j) {
        if (o[i] < o[j] + s[j] && o[j] < o[i] + s[i]) fail(&op, "two shared-memory buffers of one op overlap");
      }
    }
  }

  const ir::Function& function_;
  const GpuOptions& options_;
  bool assigned_;
  const std::string& pass_;
};

}  // namespace

void verify_gpu(const ir::Function& function, const GpuOptions& options, bool layouts_assigned,
                const std::string& after_pass) {
  Checker(function, options, layouts_assigned, after_pass).region(function.body(), nullptr);
}

}  // namespace tritium::gpu
