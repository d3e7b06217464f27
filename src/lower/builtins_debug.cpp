// The debug family of builtins: device_print (and Python's print in a kernel), device_assert
// (and the assert statement) with debug=True, debug_barrier, static_print. Triton's rules:
// semantic.device_print/device_assert.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

namespace {

LValue none() { return LValue::constant(ConstValue::none()); }

std::string const_string(const LValue& value, const std::string& what, const Loc& loc) {
  if (!value.is_const() || value.c.kind != ConstValue::Kind::Str) {
    error_at(loc, what + " must be a string known at compile time, got " + value.describe());
  }
  return value.c.s;
}

// Triton's normalization: with values to print the prefix ends in ": ", and a non-empty
// prefix starts with a space (`pid (0, 0, 0) idx (3) x: 7`).
std::string normalize_prefix(std::string prefix, bool has_args) {
  if (has_args && (prefix.empty() || prefix.back() != ' ')) prefix += " ";
  if (has_args && (prefix.size() < 2 || prefix.compare(prefix.size() - 2, 2, ": ") != 0)) {
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  }
  if (prefix.size() > 2 && prefix[0] != ' ') prefix = " " + prefix;
  return prefix;
}

// A scalar or pointer type as Triton names it: int32, uint8, int1, fp32, bf16, pointer<fp16>.
std::string triton_type_name(const ir::Type* type) {
  if (type->is_pointer()) return "pointer<" + triton_type_name(type->pointee()) + ">";
  const ir::ScalarKind k = type->scalar_kind();
  return ir::is_integer(k) ? ir::scalar_long_name(k) : ir::scalar_name(k);
}

// What static_print shows for one value: a constant as Python prints it, a tensor as
// Triton's str() of it (`int32[constexpr[128]]`, a scalar `fp32[]`), else its description.
std::string static_text(const LValue& value) {
  if (value.is_const()) {
    if (value.c.kind == ConstValue::Kind::Str) return value.c.s;
    if (value.c.kind == ConstValue::Kind::Object) return value.c.object_text();  // Python's print: str()
    return value.c.str();
  }
  if (value.is_tensor()) {
    const ir::Type* type = value.value->type();
    std::string out = triton_type_name(type->element()) + "[";
    if (type->is_block()) {
      const std::vector<int64_t>& shape = type->shape();
      for (size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + ("constexpr[" + std::to_string(shape[d]) + "]");
    }
    return out + "]";
  }
  return value.describe();
}

LValue device_print(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  std::string prefix = const_string(a.get("prefix"), "the prefix of tl.device_print", loc);
  std::vector<ir::Value*> values;
  for (const LValue& item : a.get("args").items) values.push_back(L.to_tensor(item, loc));
  ir::Op* op = L.builder().create(ir::OpKind::Print, {}, values, loc);
  op->set_attr("prefix", normalize_prefix(prefix, !values.empty()));
  op->set_attr("hex", int64_t{a.const_bool("hex", false) ? 1 : 0});
  return none();
}

LValue device_assert(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  std::string msg = a.has("msg") ? const_string(a.get("msg"), "the message of tl.device_assert", loc) : "";
  lower_device_assert(L, a.get("cond"), a.has("mask") ? &a.get("mask") : nullptr, msg, loc);
  return none();
}

}  // namespace

void lower_device_assert(Lowerer& L, const LValue& cond, const LValue* mask, const std::string& msg, const Loc& loc) {
  if (!L.debug) return;  // Triton compiles asserts only with debug=True
  LValue zero = LValue::constant(ConstValue::integer(0));
  ir::Value* c = L.to_tensor(cond, loc);
  if (!c->type()->is_bool()) c = L.cmp(ir::CmpPredicate::Ne, LValue::tensor(c), zero, loc);
  if (mask != nullptr && !mask->is_none()) {
    // Masked-off lanes pass: cond or not mask.
    ir::Value* m = L.to_tensor(*mask, loc);
    if (!m->type()->is_bool()) m = L.cmp(ir::CmpPredicate::Ne, LValue::tensor(m), zero, loc);
    LValue off = L.unary(ast::UnaryOp::Not, LValue::tensor(m), loc);
    c = L.bitwise(ir::OpKind::Or, LValue::tensor(c), off, loc);
  }
  ir::Op* op = L.builder().create(ir::OpKind::Assert, {}, {c}, loc);
  op->set_attr("msg", msg);
}

void register_debug_builtins(BuiltinTable& t) {
  t.add("device_print", {"prefix", "*args", "hex="}, false, device_print);
  t.add("device_assert", {"cond", "msg=", "mask="}, false, device_assert);
  t.add("debug_barrier", {}, false, [](Lowerer& L, const BuiltinArgs&, const Loc& loc) {
    L.builder().create(ir::OpKind::DebugBarrier, {}, {}, loc);
    return none();
  });
  t.add("static_print", {"*values", "sep=", "end=", "file=", "flush="}, false,
        [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
          if (L.checking()) return none();  // printed by the lowering that follows the check
          std::string sep = a.has("sep") ? const_string(a.get("sep"), "sep", loc) : " ";
          std::string end = a.has("end") ? const_string(a.get("end"), "end", loc) : "\n";
          std::string out;
          const auto& values = a.get("values").items;
          for (size_t i = 0; i < values.size(); ++i) out += (i ? sep : "") + static_text(values[i]);
          out += end;
          // At compile time, as Triton does: a cached kernel prints nothing.
          std::fwrite(out.data(), 1, out.size(), stdout);
          std::fflush(stdout);
          return none();
        });
}

}  // namespace tritium::lower
