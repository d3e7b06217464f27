// eliminate_common_subexpressions. Example:
//   %1 = make_range {end = 128, start = 0} : block<128xi32>
//   %2 = make_range {end = 128, start = 0} : block<128xi32>    =>   uses of %2 use %1
// Scoped: an op inside a region sees the ops of enclosing regions that precede it, never
// the ops of a sibling region.
#include "transforms/eliminate_common_subexpressions.h"

#include <map>

#include "ir/attrs.h"
#include "ir/printer.h"

namespace tritium::transforms {

namespace {

// A key equal for ops that compute the same value.
struct OpKey {
  ir::OpKind kind;
  std::vector<const ir::Value*> operands;
  std::vector<const ir::Type*> types;  // of every result (tl.split has two)
  std::string attrs;

  bool operator<(const OpKey& other) const {
    return std::tie(kind, operands, types, attrs) < std::tie(other.kind, other.operands, other.types, other.attrs);
  }
};

// Walks `region` with the values `available` from enclosing regions (copied: a sibling
// region never sees another's ops). A duplicate's uses move to the first op at once, so the
// ops after it are keyed on the surviving value; the duplicate is left to eliminate_dead_code.
void visit(ir::Region& region, std::map<OpKey, const ir::Op*> available) {
  for (const auto& op_ptr : region.ops()) {
    ir::Op& op = *op_ptr;
    for (const auto& nested : op.regions()) visit(*nested, available);
    if (!ir::is_pure(op) || op.num_results() == 0 || !op.regions().empty()) continue;
    OpKey key{op.kind(), {op.operands().begin(), op.operands().end()}, {}, ""};
    for (const auto& r : op.results()) key.types.push_back(r->type());
    for (const ir::Attr& attr : op.attrs()) key.attrs += attr.name + "=" + ir::format_attr(attr.value) + ";";
    auto [it, inserted] = available.emplace(key, &op);
    if (inserted) continue;
    for (int r = 0; r < op.num_results(); ++r) op.result(r)->replace_all_uses_with(it->second->result(r));
  }
}

}  // namespace

void eliminate_common_subexpressions(ir::Function& function) { visit(function.body(), {}); }

}  // namespace tritium::transforms
