// eliminate_common_subexpressions. Example:
//   %1 = make_range {end = 128, start = 0} : block<128xi32>
//   %2 = make_range {end = 128, start = 0} : block<128xi32>    =>   uses of %2 use %1
// Scoped: an op inside a region sees the ops of enclosing regions that precede it, never
// the ops of a sibling region.
#include "transforms/eliminate_common_subexpressions.h"

#include <map>
#include <unordered_map>

#include "ir/printer.h"
#include "transforms/rewrite.h"

namespace tritium::transforms {

namespace {

// A key equal for ops that compute the same value.
struct OpKey {
  ir::OpKind kind;
  std::vector<const ir::Value*> operands;
  const ir::Type* type;
  std::string attrs;

  bool operator<(const OpKey& other) const {
    return std::tie(kind, operands, type, attrs) < std::tie(other.kind, other.operands, other.type, other.attrs);
  }
};

class Eliminator {
 public:
  explicit Eliminator(ir::Function& function) : function_(function) {}

  void run() {
    std::map<OpKey, ir::Value*> available;
    visit(function_.body(), available);
    replace_uses(function_, replacements_);
  }

 private:
  void visit(ir::Region& region, std::map<OpKey, ir::Value*> available) {
    for (const auto& op_ptr : region.ops()) {
      ir::Op& op = *op_ptr;
      for (ir::Value*& operand : op.operands()) {
        auto it = replacements_.find(operand);
        if (it != replacements_.end()) operand = it->second;
      }
      for (const auto& nested : op.regions()) visit(*nested, available);
      if (!has_trait(op.kind(), ir::kPure) || op.num_results() != 1 || !op.regions().empty()) continue;
      OpKey key{op.kind(), {op.operands().begin(), op.operands().end()}, op.result()->type(), ""};
      for (const ir::Attr& attr : op.attrs()) key.attrs += attr.name + "=" + ir::format_attr(attr.value) + ";";
      auto [it, inserted] = available.emplace(key, op.result());
      if (!inserted) replacements_[op.result()] = it->second;
    }
  }

  ir::Function& function_;
  std::unordered_map<ir::Value*, ir::Value*> replacements_;
};

}  // namespace

void eliminate_common_subexpressions(ir::Function& function) { Eliminator(function).run(); }

}  // namespace tritium::transforms
