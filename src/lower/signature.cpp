// The specialization signature's canonical text and its parser: `*fp32:16, *fp32, i32:16,
// i64, u64, fp32, i1, 1, None, BLOCK=1024`. The CLI reads it, the cache key and error
// messages print it; print(parse(t)) == t for canonical text.
#include "lower/signature.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>

#include "lower/lower.h"
#include "support/text.h"
#include "tritium/errors.h"

namespace tritium {

bool ParamSig::operator==(const ParamSig& other) const {
  if (kind != other.kind || is_constexpr != other.is_constexpr) return false;
  switch (kind) {
    case Kind::Pointer:
    case Kind::Scalar:
      return dtype == other.dtype && divisibility == other.divisibility;
    case Kind::Constant:
      return value == other.value;
    case Kind::Descriptor:
      return dtype == other.dtype && block_shape == other.block_shape && padding_nan == other.padding_nan &&
             shape_divisibility == other.shape_divisibility;
    case Kind::Tuple:
      return elements == other.elements && tuple_type == other.tuple_type && fields == other.fields;
    case Kind::Function:
      return function_key == other.function_key;
  }
  return false;
}

void ParamSig::leaves(std::vector<const ParamSig*>* out) const {
  for (const ParamSig& e : elements) {
    if (e.kind == Kind::Tuple) {
      e.leaves(out);
    } else {
      out->push_back(&e);
    }
  }
}

namespace {

void append_entry(const ParamSig& p, const std::string& name, std::string& out) {
  switch (p.kind) {
    case ParamSig::Kind::Pointer:
      out += '*';
      out += ir::scalar_name(p.dtype);
      if (p.divisibility == 16) out += ":16";
      break;
    case ParamSig::Kind::Scalar:
      out += ir::scalar_name(p.dtype);
      if (p.divisibility == 16) out += ":16";
      break;
    case ParamSig::Kind::Descriptor:
      out += "tensordesc<";
      out += ir::scalar_name(p.dtype);
      for (size_t d = 0; d < p.block_shape.size(); ++d) {
        out += (d == 0 ? "[" : ", ") + std::to_string(p.block_shape[d]);
      }
      out += "]";
      if (p.padding_nan) out += ",padding=nan";
      if (std::find(p.shape_divisibility.begin(), p.shape_divisibility.end(), 16) != p.shape_divisibility.end()) {
        for (size_t d = 0; d < p.shape_divisibility.size(); ++d) {
          out += (d == 0 ? ",shape_div=[" : ", ") + std::to_string(p.shape_divisibility[d]);
        }
        out += "]";
      }
      out += ">";
      break;
    case ParamSig::Kind::Tuple: {
      // Elements have no names: a constexpr one is `constexpr(value)`. A named tuple is
      // `Type(field=entry, ...)`.
      const bool named = !p.fields.empty() && p.fields.size() == p.elements.size();
      if (named) out += p.tuple_type;
      out += '(';
      for (size_t e = 0; e < p.elements.size(); ++e) {
        if (e > 0) out += ", ";
        if (named) out += p.fields[e] + "=";
        append_entry(p.elements[e], "", out);
      }
      if (p.elements.size() == 1 && !named) out += ',';
      out += ')';
      break;
    }
    case ParamSig::Kind::Function:
      if (p.is_constexpr && !name.empty()) {
        out += name;
        out += '=';
      }
      out += "jit(" + p.function_key + ")";
      break;
    case ParamSig::Kind::Constant:
      if (p.is_constexpr && name.empty()) {
        out += "constexpr(" + p.value.str() + ")";
        break;
      }
      if (p.is_constexpr) {
        out += name;
        out += '=';
      }
      out += p.value.str();
      break;
  }
}

}  // namespace

std::string Signature::str(const std::vector<std::string>& names) const {
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out += ", ";
    append_entry(params[i], i < names.size() ? names[i] : "arg" + std::to_string(i), out);
  }
  return out;
}

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw CompileError("", 0, 0, "bad signature: " + message, "");
}

// Splits at commas outside quotes and outside the brackets of `tensordesc<fp16[64, 64]>`
// (pieces split inside `<...>` are joined back).
std::vector<std::string> split_entries(const std::string& text) {
  bool unterminated = false;
  std::vector<std::string> pieces = split_outside_quotes(text, &unterminated);
  if (unterminated) fail("unterminated string in '" + trim(text) + "'");
  std::vector<std::string> out;
  int depth = 0;
  for (const std::string& piece : pieces) {
    if (depth > 0) {
      out.back() += ", " + piece;
    } else {
      out.push_back(piece);
    }
    // Brackets count outside quotes: a descriptor's `<[...]>`, a tuple's, a named tuple's
    // and `jit(...)`'s parentheses.
    char quote = 0;
    for (char c : piece) {
      if (quote != 0) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (c == '<' || c == '[' || c == '(') ++depth;
      if ((c == '>' || c == ']' || c == ')') && depth > 0) --depth;
    }
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// A scalar dtype name: `fp16`, `float16`, `tl.float16`, `triton.language.float16`.
bool parse_dtype(std::string name, ir::ScalarKind* out) {
  for (const char* prefix : {"triton.language.", "tl."}) {
    std::string p = prefix;
    if (name.compare(0, p.size(), p) == 0) {
      name = name.substr(p.size());
      break;
    }
  }
  return ir::parse_scalar_name(name, out);
}

// A Python int literal with an optional sign: decimal, 0x, 0o, 0b, underscores between
// digits. Returns false when `s` is not one; fails when it does not fit 128 bits.
bool parse_int(const std::string& s, const std::string& entry, __int128* out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  int base = 10;
  if (i + 1 < s.size() && s[i] == '0') {
    char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i + 1])));
    if (p == 'x') base = 16;
    if (p == 'o') base = 8;
    if (p == 'b') base = 2;
    if (base != 10) i += 2;
  }
  if (i >= s.size()) return false;
  unsigned __int128 magnitude = 0;
  const unsigned __int128 limit = static_cast<unsigned __int128>(1) << 127;
  bool any = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_' && any && i + 1 < s.size()) continue;
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    if (digit >= base) return false;
    any = true;
    if (magnitude > (limit - static_cast<unsigned>(digit)) / static_cast<unsigned>(base)) {
      fail("integer out of range in entry '" + entry + "'");
    }
    magnitude = magnitude * static_cast<unsigned>(base) + static_cast<unsigned>(digit);
  }
  if (!any) return false;
  if (!negative && magnitude == limit) fail("integer out of range in entry '" + entry + "'");
  *out = negative ? -static_cast<__int128>(magnitude - 1) - 1 : static_cast<__int128>(magnitude);
  return true;
}

bool parse_float(const std::string& s, double* out) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string body = lower;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body = body.substr(1);
  bool special = body == "inf" || body == "nan";
  if (!special && lower.find_first_of(".e") == std::string::npos) return false;
  if (!special && lower.find_first_not_of("0123456789.e+-_") != std::string::npos) return false;
  std::string cleaned;
  for (char c : s) {
    if (c != '_') cleaned += c;
  }
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(cleaned.c_str(), &end);
  if (end != cleaned.c_str() + cleaned.size() || cleaned.empty()) return false;
  *out = v;
  return true;
}

bool parse_string(const std::string& s, const std::string& entry, std::string* out) {
  if (s.size() < 2 || (s[0] != '\'' && s[0] != '"') || s.back() != s[0]) return false;
  std::string v;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      v += c;
      continue;
    }
    if (i + 2 >= s.size()) fail("bad escape in entry '" + entry + "'");
    char e = s[++i];
    switch (e) {
      case 'n':
        v += '\n';
        break;
      case 't':
        v += '\t';
        break;
      case 'r':
        v += '\r';
        break;
      case 'x': {
        if (i + 3 >= s.size()) fail("bad escape in entry '" + entry + "'");
        v += static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
        i += 2;
        break;
      }
      default:
        v += e;
        break;
    }
  }
  *out = std::move(v);
  return true;
}

// A constant: int, float, True/False, None, a quoted string, a dtype name.
std::optional<ConstValue> parse_value(const std::string& s, const std::string& entry) {
  if (s == "None") return ConstValue::none();
  if (s == "True") return ConstValue::boolean(true);
  if (s == "False") return ConstValue::boolean(false);
  __int128 i = 0;
  if (parse_int(s, entry, &i)) return ConstValue::integer(i);
  double f = 0;
  if (parse_float(s, &f)) return ConstValue::floating(f);
  std::string str;
  if (parse_string(s, entry, &str)) return ConstValue::string(std::move(str));
  ir::ScalarKind k;
  if (parse_dtype(s, &k)) return ConstValue::type(k);
  return std::nullopt;
}

// `tensordesc<DTYPE[B0, B1, ...]>`, then optionally `,padding=nan|zero` and
// `,shape_div=[D0, D1, ...]` (each 1 or 16).
ParamSig parse_descriptor(const std::string& s, const std::string& entry) {
  ParamSig sig;
  sig.kind = ParamSig::Kind::Descriptor;
  const std::string usage = "entry '" + entry + "': a tensor descriptor is written tensordesc<fp16[64, 64]> or "
                            "tensordesc<fp16[64, 64],padding=nan>";
  size_t open = s.find('<');
  if (open == std::string::npos || s.back() != '>') fail(usage);
  std::string inner = trim(s.substr(open + 1, s.size() - open - 2));
  size_t lb = inner.find('[');
  size_t rb = inner.find(']');
  if (lb == std::string::npos || rb == std::string::npos || rb < lb) fail(usage);
  std::string dtype = trim(inner.substr(0, lb));
  if (!parse_dtype(dtype, &sig.dtype)) fail("entry '" + entry + "': unknown element type '" + dtype + "'");
  std::string dims = inner.substr(lb + 1, rb - lb - 1);
  size_t start = 0;
  while (start <= dims.size()) {
    size_t comma = dims.find(',', start);
    std::string d = trim(dims.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    __int128 v = 0;
    if (d.empty() || !parse_int(d, entry, &v) || v <= 0 || v >= (static_cast<__int128>(1) << 31)) {
      fail("entry '" + entry + "': block dimension '" + d + "' is not a positive int32");
    }
    sig.block_shape.push_back(static_cast<int64_t>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (sig.block_shape.size() > 5) fail("entry '" + entry + "': a tensor descriptor has at most 5 dimensions");
  sig.shape_divisibility.assign(sig.block_shape.size(), 1);
  std::string rest = trim(inner.substr(rb + 1));
  while (!rest.empty()) {  // `,padding=...` and `,shape_div=[...]`, in any order
    if (rest[0] != ',') fail(usage);
    rest = trim(rest.substr(1));
    const std::string div_key = "shape_div=[";
    if (rest.compare(0, div_key.size(), div_key) == 0) {
      size_t close = rest.find(']');
      if (close == std::string::npos) fail(usage);
      std::vector<int> divs;
      std::string list = rest.substr(div_key.size(), close - div_key.size()) + ",";
      for (size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
        std::string d = trim(list.substr(at, comma - at));
        if (d != "1" && d != "16") fail("entry '" + entry + "': shape_div entries are 1 or 16, got '" + d + "'");
        divs.push_back(d == "16" ? 16 : 1);
      }
      if (divs.size() != sig.block_shape.size()) {
        fail("entry '" + entry + "': shape_div has " + std::to_string(divs.size()) + " entries for " +
             std::to_string(sig.block_shape.size()) + " dimensions");
      }
      sig.shape_divisibility = divs;
      rest = trim(rest.substr(close + 1));
      continue;
    }
    size_t comma = rest.find(',');
    std::string item = trim(rest.substr(0, comma));
    rest = comma == std::string::npos ? "" : rest.substr(comma);
    if (item == "padding=nan") {
      sig.padding_nan = true;
    } else if (item != "padding=zero") {
      fail("entry '" + entry + "': expected padding=zero or padding=nan after the block shape, got '" + item + "'");
    }
  }
  return sig;
}

ParamSig parse_runtime_entry(const std::string& s, const std::string& entry);

// The resolver of the parse_signature call in progress on this thread (null: none).
thread_local const FunctionResolver* current_resolver = nullptr;

// `jit(KEY)`: a @jit function the kernel's launches were given.
ParamSig parse_function(const std::string& s, const std::string& entry) {
  if (s.back() != ')') fail("entry '" + entry + "': a function is written jit(KEY)");
  ParamSig sig;
  sig.kind = ParamSig::Kind::Function;
  sig.function_key = trim(s.substr(4, s.size() - 5));
  if (current_resolver != nullptr && *current_resolver) sig.function = (*current_resolver)(sig.function_key);
  if (!sig.function) {
    fail("entry '" + entry + "': the @jit function '" + sig.function_key +
         "' is not known to this kernel (pass it as an example argument instead of signature text)");
  }
  return sig;
}

bool is_function_entry(const std::string& s) { return s.rfind("jit(", 0) == 0; }

// `object(REPR)`: a Python object (ConstValue::Kind::Object) the kernel's launches were given
// for a tl.constexpr parameter; only its repr is in the text, so it is looked up like a
// @jit function (the resolver holds it as a Constant binding under this text).
bool is_object_entry(const std::string& s) { return s.rfind("object(", 0) == 0 && s.back() == ')'; }

ParamSig parse_object(const std::string& s, const std::string& entry) {
  std::shared_ptr<const GlobalBinding> known;
  if (current_resolver != nullptr && *current_resolver) known = (*current_resolver)(s);
  if (!known || known->kind != GlobalBinding::Kind::Constant || known->value.kind != ConstValue::Kind::Object) {
    fail("entry '" + entry + "': the object " + s.substr(7, s.size() - 8) +
         " is not known to this kernel (pass it as an example argument instead of signature text)");
  }
  ParamSig sig;
  sig.kind = ParamSig::Kind::Constant;
  sig.value = known->value;
  sig.is_constexpr = true;
  return sig;
}

// `Type(` of a named tuple entry: the length of `Type`, or 0.
size_t named_tuple_prefix(const std::string& s) {
  size_t open = s.find('(');
  if (open == std::string::npos || open == 0 || s.back() != ')') return 0;
  std::string head = s.substr(0, open);
  if (!is_identifier(head) || head == "jit" || head == "constexpr" || head == "object") return 0;
  return open;
}

// `(e0, e1, ...)`: a tuple; each element a runtime entry or `constexpr(value)`.
// `Type(f0=e0, f1=e1, ...)`: a named tuple.
ParamSig parse_tuple(const std::string& text, const std::string& entry) {
  const size_t prefix = named_tuple_prefix(text);
  const std::string s = text.substr(prefix);
  if (s.back() != ')') fail("entry '" + entry + "': a tuple is written (*fp32, i32, constexpr(4))");
  ParamSig sig;
  sig.kind = ParamSig::Kind::Tuple;
  if (prefix > 0) sig.tuple_type = text.substr(0, prefix);
  std::string inner = trim(s.substr(1, s.size() - 2));
  if (inner.empty()) return sig;
  std::vector<std::string> items = split_entries(inner);
  if (!items.empty() && trim(items.back()).empty()) items.pop_back();  // `(x,)`
  for (const std::string& raw : items) {
    std::string item = trim(raw);
    if (item.empty()) fail("entry '" + entry + "': empty tuple element");
    if (prefix > 0) {
      size_t eq = item.find('=');
      if (eq == std::string::npos || !is_identifier(trim(item.substr(0, eq)))) {
        fail("entry '" + entry + "': a named tuple's elements are written field=entry, got '" + item + "'");
      }
      sig.fields.push_back(trim(item.substr(0, eq)));
      item = trim(item.substr(eq + 1));
    }
    if (item.rfind("constexpr(", 0) == 0 && item.back() == ')') {
      std::string value = trim(item.substr(10, item.size() - 11));
      std::optional<ConstValue> v = parse_value(value, entry);
      if (!v) fail("entry '" + entry + "': constexpr(...) needs a value, got '" + value + "'");
      ParamSig e;
      e.kind = ParamSig::Kind::Constant;
      e.value = *v;
      e.is_constexpr = true;
      sig.elements.push_back(e);
      continue;
    }
    sig.elements.push_back(parse_runtime_entry(item, entry));
  }
  return sig;
}

// The entry of a non-constexpr parameter: a type with facts, or a constant it was folded to.
ParamSig parse_runtime_entry(const std::string& s, const std::string& entry) {
  if (s.compare(0, 10, "tensordesc") == 0) return parse_descriptor(s, entry);
  if (is_function_entry(s)) return parse_function(s, entry);
  if (!s.empty() && (s[0] == '(' || named_tuple_prefix(s) > 0)) return parse_tuple(s, entry);
  ParamSig sig;
  std::string body = s;
  if (!body.empty() && body[0] == '*') {
    sig.kind = ParamSig::Kind::Pointer;
    body = trim(body.substr(1));
  }
  std::string facts;
  size_t colon = body.find(':');
  if (colon != std::string::npos) {
    facts = trim(body.substr(colon + 1));
    body = trim(body.substr(0, colon));
  }
  ir::ScalarKind k;
  if (parse_dtype(body, &k)) {
    sig.dtype = k;
    if (!facts.empty()) {
      if (facts != "16") {
        fail("entry '" + entry + "': the only divisibility fact is ':16'");
      }
      if (sig.kind == ParamSig::Kind::Scalar && (!ir::is_integer(k) || k == ir::ScalarKind::I1)) {
        fail("entry '" + entry + "': ':16' applies only to pointers and integers");
      }
      sig.divisibility = 16;
    }
    return sig;
  }
  if (sig.kind == ParamSig::Kind::Pointer) {
    fail("entry '" + entry + "': unknown pointee type '" + body + "'");
  }
  if (colon == std::string::npos) {
    if (std::optional<ConstValue> v = parse_value(s, entry)) {
      sig.kind = ParamSig::Kind::Constant;
      sig.value = *v;
      return sig;
    }
  }
  fail("entry '" + entry + "': expected a type (*fp32, i32:16, fp32, ...) or a constant, got '" +
       s + "'");
}

}  // namespace

Signature parse_signature(const std::string& text, const std::vector<std::string>& names,
                          const std::vector<bool>& is_constexpr, const FunctionResolver* resolve) {
  struct ResolverScope {
    const FunctionResolver* saved = current_resolver;
    explicit ResolverScope(const FunctionResolver* r) { current_resolver = r; }
    ~ResolverScope() { current_resolver = saved; }
  } scope(resolve);
  const size_t n = names.size();
  std::vector<std::string> entries;
  if (!trim(text).empty()) entries = split_entries(text);

  std::vector<bool> assigned(n, false);
  Signature sig;
  sig.params.resize(n);
  size_t cursor = 0;
  for (const std::string& entry : entries) {
    if (entry.empty()) fail("empty entry in '" + trim(text) + "'");
    // `NAME=value` names a parameter; anything else fills the next unassigned one.
    size_t index = n;
    std::string value_text = entry;
    size_t eq = entry.find('=');
    if (eq != std::string::npos && is_identifier(trim(entry.substr(0, eq)))) {
      std::string name = trim(entry.substr(0, eq));
      value_text = trim(entry.substr(eq + 1));
      for (size_t i = 0; i < n; ++i) {
        if (names[i] == name) index = i;
      }
      if (index == n) fail("entry '" + entry + "': the kernel has no parameter '" + name + "'");
      if (assigned[index]) fail("entry '" + entry + "': parameter '" + name + "' given twice");
    } else {
      while (cursor < n && assigned[cursor]) ++cursor;
      if (cursor == n) {
        fail("too many entries: the kernel has " + std::to_string(n) + " parameter" +
             (n == 1 ? "" : "s") + "; '" + entry + "' is one too many");
      }
      index = cursor;
    }
    if (value_text.empty()) fail("entry '" + entry + "' has no value");

    ParamSig p;
    bool constexpr_param = index < is_constexpr.size() && is_constexpr[index];
    if (constexpr_param && is_function_entry(value_text)) {
      p = parse_function(value_text, entry);
      p.is_constexpr = true;
    } else if (constexpr_param && is_object_entry(value_text)) {
      p = parse_object(value_text, entry);
    } else if (constexpr_param && !value_text.empty() &&
               (value_text.front() == '(' || named_tuple_prefix(value_text) > 0)) {
      // A tuple given to a tl.constexpr parameter: every element a constexpr.
      p = parse_runtime_entry(value_text, entry);
      std::function<bool(const ParamSig&)> all_constant = [&](const ParamSig& s) {
        if (s.kind == ParamSig::Kind::Tuple) {
          for (const ParamSig& e : s.elements) {
            if (!all_constant(e)) return false;
          }
          return true;
        }
        return s.kind == ParamSig::Kind::Constant || s.kind == ParamSig::Kind::Function;
      };
      if (p.kind != ParamSig::Kind::Tuple || !all_constant(p)) {
        fail("entry '" + entry + "': a tuple for constexpr parameter '" + names[index] +
             "' must hold constants only, e.g. (constexpr(8), constexpr(8))");
      }
    } else if (constexpr_param) {
      std::optional<ConstValue> v = parse_value(value_text, entry);
      if (!v) {
        fail("entry '" + entry + "': constexpr parameter '" + names[index] +
             "' needs a value (int, float, True/False, None, 'str', dtype), got '" + value_text +
             "'");
      }
      p.kind = ParamSig::Kind::Constant;
      p.value = *v;
      p.is_constexpr = true;
    } else {
      p = parse_runtime_entry(value_text, entry);
    }
    sig.params[index] = p;
    assigned[index] = true;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!assigned[i]) {
      fail("no entry for parameter '" + names[i] + "' (parameter " + std::to_string(i + 1) +
           " of " + std::to_string(n) + ")");
    }
  }
  return sig;
}

}  // namespace tritium
