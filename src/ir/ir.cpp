// The tile IR's data structures: the op table (from ops.def), regions, ops and their
// attributes, the optional operands of memory ops, and the kernel Function.
#include "ir/ir.h"

#include <algorithm>

#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

struct OpInfo {
  const char* keyword;
  uint32_t traits;
};

constexpr OpInfo kOpInfo[] = {
#define TRITIUM_OP(name, keyword, traits) {keyword, traits},
#include "ir/ops.def"
#undef TRITIUM_OP
};

constexpr size_t kNumOps = sizeof(kOpInfo) / sizeof(kOpInfo[0]);

const OpInfo& op_info(OpKind kind) {
  auto i = static_cast<size_t>(kind);
  if (i >= kNumOps) internal_error("ir", "op kind " + std::to_string(i) + " is not in ops.def");
  return kOpInfo[i];
}

const char* attr_type_name(const AttrValue& value) {
  switch (value.index()) {
    case 0: return "integer";
    case 1: return "float";
    case 2: return "string";
    default: return "integer list";
  }
}

template <typename T>
const T& typed_attr(const Op& op, const std::string& name, const char* wanted) {
  const AttrValue* value = op.find_attr(name);
  if (value == nullptr) {
    internal_error("ir", std::string("op '") + op.name() + "' has no attribute '" + name + "'",
                   op.loc());
  }
  if (!std::holds_alternative<T>(*value)) {
    internal_error("ir", std::string("attribute '") + name + "' of op '" + op.name() + "' is " +
                             attr_type_name(*value) + ", not " + wanted,
                   op.loc());
  }
  return std::get<T>(*value);
}

}  // namespace

const char* op_name(OpKind kind) { return op_info(kind).keyword; }
uint32_t op_traits(OpKind kind) { return op_info(kind).traits; }

Value* Region::add_arg(const Type* type) {
  args_.push_back(std::make_unique<Value>(type, nullptr, this, static_cast<int>(args_.size())));
  return args_.back().get();
}

Op* Region::terminator() const {
  if (ops_.empty()) return nullptr;
  Op* last = ops_.back().get();
  return has_trait(last->kind(), kTerminator) ? last : nullptr;
}

Value* Op::add_result(const Type* type) {
  results_.push_back(std::make_unique<Value>(type, this, nullptr, static_cast<int>(results_.size())));
  return results_.back().get();
}

Region* Op::add_region() {
  regions_.push_back(std::make_unique<Region>(this));
  return regions_.back().get();
}

void Op::set_attr(const std::string& name, AttrValue value) {
  auto it = std::lower_bound(attrs_.begin(), attrs_.end(), name,
                             [](const Attr& attr, const std::string& key) { return attr.name < key; });
  if (it != attrs_.end() && it->name == name) {
    it->value = std::move(value);
  } else {
    attrs_.insert(it, Attr{name, std::move(value)});
  }
}

const AttrValue* Op::find_attr(const std::string& name) const {
  auto it = std::lower_bound(attrs_.begin(), attrs_.end(), name,
                             [](const Attr& attr, const std::string& key) { return attr.name < key; });
  return it != attrs_.end() && it->name == name ? &it->value : nullptr;
}

int64_t Op::int_attr(const std::string& name) const { return typed_attr<int64_t>(*this, name, "integer"); }
double Op::float_attr(const std::string& name) const { return typed_attr<double>(*this, name, "float"); }
const std::string& Op::str_attr(const std::string& name) const {
  return typed_attr<std::string>(*this, name, "string");
}
const std::vector<int64_t>& Op::ints_attr(const std::string& name) const {
  return typed_attr<std::vector<int64_t>>(*this, name, "integer list");
}

Value* load_mask(const Op& op) { return op.num_operands() >= 2 ? op.operand(1) : nullptr; }
Value* load_other(const Op& op) { return op.num_operands() >= 3 ? op.operand(2) : nullptr; }
Value* store_mask(const Op& op) { return op.num_operands() >= 3 ? op.operand(2) : nullptr; }
Value* atomic_mask(const Op& op) {
  // atomic_cas has no mask; its third operand is the new value.
  if (op.kind() != OpKind::AtomicRMW) return nullptr;
  return op.num_operands() >= 3 ? op.operand(2) : nullptr;
}

ArgFacts Function::facts_of(const Value* value) const {
  if (value != nullptr) {
    for (const Param& param : params_) {
      if (param.arg == value) return param.facts;
    }
  }
  return ArgFacts{};
}

}  // namespace tritium::ir
