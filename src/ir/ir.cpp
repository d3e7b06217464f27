// The tile IR's data structures: the op table (from ops.def), values and their users,
// regions, ops and their attributes, the optional operands of memory ops, the Function.
#include "ir/ir.h"

#include <algorithm>
#include <unordered_map>

#include "ir/op_views.h"
#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

struct OpInfo {
  const char* keyword;
  uint32_t traits;
  const char* operands;
  TypeRule rule;
};

constexpr OpInfo kOpInfo[] = {
#define TRITIUM_OP(name, keyword, traits, operands, rule) {keyword, traits, operands, TypeRule::rule},
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

// "ptr, mask?, other?" -> the signature; the roles' order is checked once, at first use.
OpSignature parse_signature(const char* keyword, std::string_view text) {
  OpSignature sig;
  bool optional_seen = false;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    OperandRole role = OperandRole::Required;
    if (!item.empty() && item.back() == '?') role = OperandRole::Optional;
    if (!item.empty() && item.back() == '*') role = OperandRole::Variadic;
    if (role != OperandRole::Required) item.remove_suffix(1);
    bool bad = item.empty() || (!sig.operands.empty() && sig.operands.back().role == OperandRole::Variadic) ||
               (role == OperandRole::Required && optional_seen);
    if (bad) internal_error("ir", std::string("ops.def: bad operand list of '") + keyword + "'");
    optional_seen = optional_seen || role == OperandRole::Optional;
    sig.operands.push_back({std::string(item), role});
    if (role == OperandRole::Required) ++sig.min_operands;
    sig.max_operands = role == OperandRole::Variadic ? -1 : sig.max_operands + 1;
  }
  return sig;
}

const std::vector<OpSignature>& signatures() {
  static const std::vector<OpSignature> all = [] {
    std::vector<OpSignature> out;
    for (const OpInfo& info : kOpInfo) out.push_back(parse_signature(info.keyword, info.operands));
    return out;
  }();
  return all;
}

}  // namespace

const OpSignature& op_signature(OpKind kind) {
  op_info(kind);  // range check
  return signatures()[static_cast<size_t>(kind)];
}

int operand_index(OpKind kind, std::string_view name) {
  const OpSignature& sig = op_signature(kind);
  for (size_t i = 0; i < sig.operands.size(); ++i) {
    if (sig.operands[i].name == name) return static_cast<int>(i);
  }
  internal_error("ir", std::string("op '") + op_name(kind) + "' has no operand '" + std::string(name) + "' in ops.def");
}

const char* op_name(OpKind kind) { return op_info(kind).keyword; }
uint32_t op_traits(OpKind kind) { return op_info(kind).traits; }

TypeRule op_type_rule(OpKind kind) { return op_info(kind).rule; }

bool find_op_kind(std::string_view keyword, OpKind* out) {
  for (size_t i = 0; i < kNumOps; ++i) {
    if (keyword == kOpInfo[i].keyword) {
      *out = static_cast<OpKind>(i);
      return true;
    }
  }
  return false;
}

std::vector<Use> Value::uses() const {
  std::vector<Use> out;
  // An op using this value in k slots appears k times in users_: list its slots once.
  std::vector<const Op*> seen;
  for (Op* user : users_) {
    if (std::find(seen.begin(), seen.end(), user) != seen.end()) continue;
    seen.push_back(user);
    for (int i = 0; i < user->num_operands(); ++i) {
      if (user->operand(i) == this) out.push_back(Use{user, i});
    }
  }
  return out;
}

void Value::replace_all_uses_with(Value* other) {
  if (other == this) return;
  if (other == nullptr) internal_error("ir", "replacing the uses of a value with null");
  for (const Use& use : uses()) use.user->set_operand(use.index, other);
}

void Value::remove_user(Op* op) {
  auto it = std::find(users_.begin(), users_.end(), op);
  if (it == users_.end())
    internal_error("ir", std::string("'") + op->name() + "' is not a user of its operand", op->loc());
  users_.erase(it);
}

Value* Region::add_arg(const Type* type) {
  args_.push_back(std::make_unique<Value>(type, nullptr, this, static_cast<int>(args_.size())));
  return args_.back().get();
}

Op* Region::terminator() const {
  if (ops_.empty()) return nullptr;
  Op* last = ops_.back().get();
  return has_trait(last->kind(), kTerminator) ? last : nullptr;
}

Region::~Region() {
  // Ops may use values of ops destroyed before them (and the body's arguments): drop every
  // use first, so no destructor touches a destroyed value.
  for (auto& op : ops_) op->drop_all_references();
}

size_t Region::index_of(const Op* op) const {
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (ops_[i].get() == op) return i;
  }
  internal_error("ir", std::string("'") + (op ? op->name() : "null") + "' is not in this region");
}

Op* Region::insert(size_t index, std::unique_ptr<Op> op) {
  if (index > ops_.size()) internal_error("ir", "inserting past the end of a region", op->loc());
  op->set_parent(this);
  return ops_.insert(ops_.begin() + static_cast<std::ptrdiff_t>(index), std::move(op))->get();
}

std::unique_ptr<Op> Region::take(Op* op) {
  auto at = ops_.begin() + static_cast<std::ptrdiff_t>(index_of(op));
  std::unique_ptr<Op> out = std::move(*at);
  ops_.erase(at);
  out->set_parent(nullptr);
  return out;
}

void Region::erase(Op* op) {
  for (const auto& result : op->results()) {
    if (result->has_uses()) {
      internal_error("ir",
                     std::string("erasing '") + op->name() + "' whose result " + std::to_string(result->index()) +
                         " is still used by '" + result->users().front()->name() + "'",
                     op->loc());
    }
  }
  take(op);  // destroyed here
}

Op::~Op() { drop_all_references(); }

void Op::set_operand(int i, Value* value) {
  Value*& slot = operands_.at(i);
  if (slot == value) return;
  if (slot != nullptr) slot->remove_user(this);
  slot = value;
  if (value != nullptr) value->add_user(this);
}

void Op::add_operand(Value* value) {
  operands_.push_back(value);
  if (value != nullptr) value->add_user(this);
}

void Op::set_operands(const std::vector<Value*>& values) {
  truncate_operands(0);
  for (Value* value : values) add_operand(value);
}

void Op::truncate_operands(int count) {
  while (num_operands() > count) {
    if (operands_.back() != nullptr) operands_.back()->remove_user(this);
    operands_.pop_back();
  }
}

void Op::drop_all_references() {
  truncate_operands(0);
  for (auto& region : regions_) {
    for (auto& op : region->ops()) op->drop_all_references();
  }
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

Value* load_mask(const Op& op) { return LoadOp(op).mask(); }
Value* load_other(const Op& op) { return LoadOp(op).other(); }
Value* store_mask(const Op& op) { return StoreOp(op).mask(); }
Value* atomic_mask(const Op& op) {
  // atomic_cas has no mask; its third operand is the new value.
  if (op.kind() != OpKind::AtomicRMW) return nullptr;
  return AtomicRMWOp(op).mask();
}

ArgFacts Function::facts_of(const Value* value) const {
  if (value != nullptr) {
    for (const Param& param : params_) {
      if (param.arg == value) return param.facts;
    }
  }
  return ArgFacts{};
}

namespace {

void clone_region(const Region& from, Region& to, std::unordered_map<const Value*, Value*>& map, bool strict);

Op* clone_op(const Op& op, Region& to, std::unordered_map<const Value*, Value*>& map, bool strict) {
  auto copy = std::make_unique<Op>(op.kind(), op.loc());
  for (Value* v : op.operands()) {
    auto it = map.find(v);
    if (it != map.end()) {
      copy->add_operand(it->second);
    } else if (strict) {
      internal_error("ir", "clone: an operand defined outside the function");
    } else {
      copy->add_operand(v);
    }
  }
  for (const auto& r : op.results()) map[r.get()] = copy->add_result(r->type());
  for (const Attr& a : op.attrs()) copy->set_attr(a.name, a.value);
  for (const auto& region : op.regions()) clone_region(*region, *copy->add_region(), map, strict);
  return to.insert(to.ops().size(), std::move(copy));
}

void clone_region(const Region& from, Region& to, std::unordered_map<const Value*, Value*>& map, bool strict) {
  for (const auto& arg : from.args()) map[arg.get()] = to.add_arg(arg->type());
  for (const auto& op : from.ops()) clone_op(*op, to, map, strict);
}

}  // namespace

Op* clone_op(const Op& op, Region& to, std::unordered_map<const Value*, Value*>& map) {
  return clone_op(op, to, map, /*strict=*/false);
}

std::unique_ptr<Function> Function::clone() const {
  auto out = std::make_unique<Function>(name_, loc_);
  out->sources_ = sources_;
  std::unordered_map<const Value*, Value*> map;
  clone_region(body_, out->body_, map, /*strict=*/true);
  out->params_ = params_;
  for (Param& p : out->params_) {
    if (p.arg != nullptr) p.arg = map.at(p.arg);
  }
  return out;
}

}  // namespace tritium::ir
