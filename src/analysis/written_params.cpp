// written_params (see written_params.h): a may-derive-from dataflow over the tile IR to a
// fixpoint (loops carry pointers around), then the sources of every written pointer.
//
//   %p = arg 0; %q = addptr %p, %offs; store %q, %v   ->  parameter 0 written
#include "analysis/written_params.h"

#include <cstdint>
#include <unordered_map>

namespace tritium::analysis {

namespace {

// The parameters a value may derive from, as a bit set.
using Sources = std::vector<uint64_t>;

class Provenance {
 public:
  explicit Provenance(size_t params) : words_((params + 63) / 64) {}

  void seed(const ir::Value* value, size_t param) {
    Sources& s = at(value);
    s[param / 64] |= uint64_t{1} << (param % 64);
  }

  // Walks the region until nothing grows; returns the union of its terminators' operands.
  Sources walk(const ir::Region& region) {
    Sources yielded(words_, 0);
    for (const auto& op : region.ops()) {
      Sources in(words_, 0);
      for (const ir::Value* operand : op->operands()) merge(in, at(operand));
      if (!op->regions().empty()) {
        // Region arguments (iteration variables, carried values) and the op's results take
        // what the op is given and what any of its regions yields, until that is stable.
        Sources flowing = in;
        for (bool grew = true; grew;) {
          grew = false;
          for (const auto& inner : op->regions()) {
            for (const auto& arg : inner->args()) grew |= merge(at(arg.get()), flowing);
            grew |= merge(flowing, walk(*inner));
          }
        }
        in = flowing;
      }
      for (const auto& result : op->results()) merge(at(result.get()), in);
      if (has_trait(op->kind(), ir::kTerminator)) merge(yielded, in);
    }
    return yielded;
  }

  Sources& at(const ir::Value* value) {
    auto [it, inserted] = sources_.try_emplace(value);  // node-based: references stay valid
    if (inserted) it->second.assign(words_, 0);
    return it->second;
  }

 private:
  // dst |= src; true when dst grew.
  static bool merge(Sources& dst, const Sources& src) {
    bool grew = false;
    for (size_t i = 0; i < dst.size(); ++i) {
      uint64_t next = dst[i] | src[i];
      grew |= next != dst[i];
      dst[i] = next;
    }
    return grew;
  }

  size_t words_;
  std::unordered_map<const ir::Value*, Sources> sources_;
};

void collect(Provenance& provenance, const ir::Region& region, std::vector<bool>& written) {
  for (const auto& op : region.ops()) {
    ir::OpKind kind = op->kind();
    if (kind == ir::OpKind::Store || kind == ir::OpKind::AtomicRMW || kind == ir::OpKind::AtomicCAS) {
      const Sources& s = provenance.at(op->operand(0));
      for (size_t i = 0; i < written.size(); ++i) {
        if ((s[i / 64] >> (i % 64)) & 1) written[i] = true;
      }
    }
    for (const auto& inner : op->regions()) collect(provenance, *inner, written);
  }
}

}  // namespace

std::vector<bool> written_params(const ir::Function& function) {
  const std::vector<ir::Param>& params = function.params();
  Provenance provenance(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].arg != nullptr) provenance.seed(params[i].arg, i);
  }
  provenance.walk(function.body());
  std::vector<bool> written(params.size(), false);
  collect(provenance, function.body(), written);
  return written;
}

}  // namespace tritium::analysis
