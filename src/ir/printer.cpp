// Prints the tile IR as stable text. Example:
//   func @add(%x_ptr: ptr<fp32> {divisibility = 16}, %n: i32) [BLOCK = 1024] {
//     %0 = program_id {axis = 0} : i32
//     %1 = for %lb, %ub, %step, %init -> fp32 {
//     ^(%2: i32, %3: fp32):
//       yield %3
//     }
//     return
//   }
#include "ir/printer.h"

#include <charconv>
#include <cmath>
#include <unordered_map>

namespace tritium::ir {

namespace {

class Printer {
 public:
  Printer(const Function* function, bool with_locs) : function_(function), with_locs_(with_locs) {}
  void set_note(std::function<std::string(const Op&)> note) { note_ = std::move(note); }

  // Numbers every value under `root` in definition order; entry arguments take their
  // parameter names when the function is known.
  void number(const Region& root) {
    if (function_ != nullptr) {
      for (const Param& param : function_->params()) {
        if (param.arg != nullptr) names_[param.arg] = "%" + param.name;
      }
    }
    for (const auto& arg : root.args()) {
      if (names_.count(arg.get()) == 0) names_[arg.get()] = "%arg" + std::to_string(arg->index());
    }
    number_ops(root);
  }

  std::string function_text(const Function& function) {
    std::string out = "func @" + function.name() + "(";
    bool first = true;
    for (const Param& param : function.params()) {
      if (param.arg == nullptr) continue;
      if (!first) out += ", ";
      first = false;
      out += "%" + param.name + ": " + param.arg->type()->str();
      if (param.facts.divisibility != 1) {
        out += " {divisibility = " + std::to_string(param.facts.divisibility) + "}";
      }
    }
    // Entry arguments without a parameter should not exist; print them rather than hide them.
    for (const auto& arg : function.body().args()) {
      bool has_param = false;
      for (const Param& param : function.params()) has_param = has_param || param.arg == arg.get();
      if (has_param) continue;
      if (!first) out += ", ";
      first = false;
      out += names_[arg.get()] + ": " + arg->type()->str();
    }
    out += ")";
    std::string folded;
    for (const Param& param : function.params()) {
      if (param.arg != nullptr) continue;
      if (!folded.empty()) folded += ", ";
      folded += param.name + " = " + param.folded;
    }
    if (!folded.empty()) out += " [" + folded + "]";
    out += " {\n";
    region_body(function.body(), 1, &out);
    out += "}\n";
    return out;
  }

  // The first line of `op` (up to and including the `{` of its first region).
  std::string op_header(const Op& op) {
    std::string out;
    for (int i = 0; i < op.num_results(); ++i) {
      out += (i ? ", " : "") + name(op.result(i));
    }
    if (op.num_results() > 0) out += " = ";
    out += op.name();
    for (int i = 0; i < op.num_operands(); ++i) {
      out += (i ? ", " : " ") + name(op.operand(i));
    }
    if (!op.attrs().empty()) {
      out += " {";
      for (size_t i = 0; i < op.attrs().size(); ++i) {
        if (i) out += ", ";
        out += op.attrs()[i].name + " = " + format_attr(op.attrs()[i].value);
      }
      out += "}";
    }
    bool regions = !op.regions().empty();
    if (op.num_results() > 0) {
      out += regions ? " -> " : " : ";
      for (int i = 0; i < op.num_results(); ++i) {
        out += (i ? ", " : "") + op.result(i)->type()->str();
      }
    }
    if (regions) out += " {";
    return out;
  }

  std::string loc_suffix(const Op& op) const {
    if (!with_locs_) return "";
    if (!op.loc().known()) return "  loc(unknown)";
    return "  loc(" + std::to_string(op.loc().line) + ":" + std::to_string(op.loc().col) + ")";
  }

 private:
  void number_ops(const Region& region) {
    for (const auto& op : region.ops()) {
      for (const auto& result : op->results()) assign(result.get());
      for (const auto& inner : op->regions()) {
        for (const auto& arg : inner->args()) assign(arg.get());
        number_ops(*inner);
      }
    }
  }

  void assign(const Value* value) { names_[value] = "%" + std::to_string(next_++); }

  std::string name(const Value* value) const {
    if (value == nullptr) return "%<null>";
    auto it = names_.find(value);
    return it == names_.end() ? "%<undefined>" : it->second;
  }

  void region_body(const Region& region, int depth, std::string* out) {
    std::string indent(2 * depth, ' ');
    for (const auto& op : region.ops()) {
      *out += indent + op_header(*op) + loc_suffix(*op);
      std::string note = note_ ? note_(*op) : "";
      if (!note.empty()) *out += "  // " + note;
      *out += "\n";
      for (size_t r = 0; r < op->regions().size(); ++r) {
        const Region& inner = *op->regions()[r];
        if (r > 0) {
          const char* joint = op->kind() == OpKind::If ? "} else {" : op->kind() == OpKind::While ? "} do {" : "}, {";
          *out += indent + joint + "\n";
        }
        if (!inner.args().empty()) {
          *out += indent + "^(";
          for (size_t i = 0; i < inner.args().size(); ++i) {
            if (i) *out += ", ";
            *out += name(inner.args()[i].get()) + ": " + inner.args()[i]->type()->str();
          }
          *out += "):\n";
        }
        region_body(inner, depth + 1, out);
      }
      if (!op->regions().empty()) *out += indent + "}\n";
    }
  }

  const Function* function_;
  bool with_locs_;
  std::function<std::string(const Op&)> note_;  // a comment after an op's line, when not empty
  int next_ = 0;
  // Looked up only, never iterated: the output does not depend on pointer order.
  std::unordered_map<const Value*, std::string> names_;
};

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string format_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  // "2" would read back as an integer attribute.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string format_attr(const AttrValue& value) {
  switch (value.index()) {
    case 0: return std::to_string(std::get<int64_t>(value));
    case 1: return format_float(std::get<double>(value));
    case 2: return quote(std::get<std::string>(value));
    default: {
      std::string out = "[";
      const auto& list = std::get<std::vector<int64_t>>(value);
      for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + std::to_string(list[i]);
      return out + "]";
    }
  }
}

std::string print(const Function& function, bool with_locs) {
  Printer printer(&function, with_locs);
  printer.number(function.body());
  return printer.function_text(function);
}

std::string print(const Function& function, const std::function<std::string(const Op&)>& note) {
  Printer printer(&function, false);
  printer.set_note(note);
  printer.number(function.body());
  return printer.function_text(function);
}

std::string print(const Op& op, const Function* function) {
  // Number from the outermost region so the names match print(function).
  const Region* root = nullptr;
  if (function != nullptr) {
    root = &function->body();
  } else {
    for (const Region* region = op.parent(); region != nullptr;
         region = region->parent() ? region->parent()->parent() : nullptr) {
      root = region;
    }
  }
  Printer printer(function, false);
  if (root != nullptr) printer.number(*root);
  std::string text = printer.op_header(op);
  if (!op.regions().empty()) text += "...}";
  return text;
}

}  // namespace tritium::ir
