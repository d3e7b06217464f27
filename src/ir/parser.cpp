// The IR text parser: a recursive descent over the printer's grammar (printer.cpp shows an
// example). Ops are found by their ops.def keyword and read generically (results, operands,
// attributes, result types, regions), so a new op needs no change here.
//   function := 'func' '@' NAME '(' [entry (',' entry)*] ')' ['[' folded (',' folded)* ']'] '{' body '}'
//   entry    := '%' NAME ':' type ['{' fact '=' INT (',' ...)* '}']
//   body     := ['^' '(' '%' NAME ':' type (',' ...)* ')' ':'] op*
//   op       := [results '='] KEYWORD [operands] ['{' attrs '}'] [(':' | '->') types]
//               ['{' [loc] body ('}' (',' | 'else' | 'do' | ...) '{' body)* '}'] [loc]
// Comments: a line whose first non-blank characters are '#' or '//'.
#include "ir/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/layout.h"
#include "support/diagnostics.h"

namespace tritium::ir {

namespace {

// Entry-argument facts by their printed name (printer.cpp: `{divisibility = 16}`).
struct FactField {
  const char* name;
  int64_t ArgFacts::*field;
};
constexpr FactField kFactFields[] = {{"divisibility", &ArgFacts::divisibility}};

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

class Parser {
 public:
  Parser(std::shared_ptr<const SourceFile> file, std::shared_ptr<const SourceFile> kernel)
      : file_(std::move(file)), kernel_(std::move(kernel)), text_(file_->text()) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  std::unique_ptr<Function> parse_function() {
    skip_space();
    Loc loc = here();
    expect_word("func");
    skip_space();
    expect('@');
    auto function = std::make_unique<Function>(name("a function name"), loc);
    function->hold_source(file_);
    function->hold_source(kernel_);
    function_ = function.get();
    size_t mark = scope_.size();
    entry_args();
    folded_params();
    expect('{');
    region_body(function->body());
    expect('}');
    skip_space();
    if (pos_ < text_.size()) fail("expected the end of the text after the function's closing '}'");
    pop_scope(mark);
    return function;
  }

 private:
  // ---- characters, positions, errors

  Loc loc_at(size_t pos) const {
    auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    int line = static_cast<int>(next - line_starts_.begin());
    return Loc{file_.get(), line, static_cast<int>(pos - *(next - 1)) + 1};
  }
  Loc here() const { return loc_at(pos_); }

  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }
  [[noreturn]] void fail_at(size_t pos, const std::string& message) const { error_at(loc_at(pos), message); }

  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool at_line_start() const {
    for (size_t i = pos_; i > 0; --i) {
      char c = text_[i - 1];
      if (c == '\n') return true;
      if (c != ' ' && c != '\t') return false;
    }
    return true;
  }

  // Skips blanks, newlines and comment lines.
  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos_;
      } else if ((c == '#' || (c == '/' && peek(1) == '/')) && at_line_start()) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  // Skips blanks on the current line only.
  void skip_blanks() {
    while (peek() == ' ' || peek() == '\t' || peek() == '\r') ++pos_;
  }

  std::string describe_next() const {
    if (pos_ >= text_.size()) return "the end of the text";
    if (text_[pos_] == '\n') return "the end of the line";
    size_t end = pos_;
    while (end < text_.size() && is_name_char(text_[end])) ++end;
    return "'" + text_.substr(pos_, std::max<size_t>(end - pos_, 1)) + "'";
  }

  // accept*: consume `c` (or `word`) after blanks and newlines; on a mismatch the cursor
  // stays where it was, so an op's line is not left early.
  bool accept(char c) {
    size_t save = pos_;
    skip_space();
    if (peek() != c) {
      pos_ = save;
      return false;
    }
    ++pos_;
    return true;
  }
  void expect(char c, const char* context = nullptr) {
    if (accept(c)) return;
    std::string message = std::string("expected '") + c + "'";
    if (context != nullptr) message += std::string(" ") + context;
    fail(message + ", found " + describe_next());
  }
  bool accept_word(const std::string& word) {
    size_t save = pos_;
    skip_space();
    if (text_.compare(pos_, word.size(), word) != 0 ||
        (pos_ + word.size() < text_.size() && is_name_char(text_[pos_ + word.size()]))) {
      pos_ = save;
      return false;
    }
    pos_ += word.size();
    return true;
  }
  void expect_word(const std::string& word) {
    if (!accept_word(word)) fail("expected '" + word + "', found " + describe_next());
  }
  // A name: letters, digits and '_' (and any non-ASCII byte, for Python identifiers).
  std::string name(const char* what) {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    if (pos_ == start) fail(std::string("expected ") + what + ", found " + describe_next());
    return text_.substr(start, pos_ - start);
  }
  // '%' NAME, returned with the '%'.
  std::string value_name() {
    skip_space();
    if (peek() != '%') fail("expected a value name (%name), found " + describe_next());
    ++pos_;
    return "%" + name("a value name after '%'");
  }

  // ---- values and their scopes (a value is visible after its definition in its region
  // and in the regions nested there, as the verifier requires)

  void define(const std::string& name, Value* value, size_t pos) {
    if (values_.count(name) != 0) fail_at(pos, "value " + name + " is defined twice");
    values_[name] = value;
    scope_.push_back(name);
  }
  void pop_scope(size_t mark) {
    while (scope_.size() > mark) {
      values_.erase(scope_.back());
      scope_.pop_back();
    }
  }
  Value* use(const std::string& name, size_t pos) {
    auto it = values_.find(name);
    if (it == values_.end()) fail_at(pos, "use of undefined value " + name);
    return it->second;
  }

  // ---- types

  const Type* scalar_type() {
    size_t start = pos_;
    std::string word = name("a type");
    ScalarKind kind;
    if (!parse_scalar_name(word, &kind)) fail_at(start, "unknown type '" + word + "'");
    return Type::scalar(kind);
  }

  // A scalar or pointer: what a block may hold.
  const Type* element_type() {
    skip_space();
    if (accept_word("ptr")) {
      expect('<', "after 'ptr'");
      const Type* pointee = scalar_type();
      expect('>', "closing 'ptr<'");
      return Type::pointer(pointee);
    }
    return scalar_type();
  }

  // i32 | ptr<fp32> | block<128x64xfp16> | block<128xfp32, LAYOUT>. Shapes are read digit
  // by digit: `128x64xfp16` is not a sequence of names.
  const Type* type() {
    skip_space();
    if (!accept_word("block")) return element_type();
    expect('<', "after 'block'");
    std::vector<int64_t> shape;
    skip_space();
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      size_t start = pos_;
      int64_t dim = integer("a dimension");
      if (dim <= 0) fail_at(start, "a block dimension must be positive, got " + std::to_string(dim));
      shape.push_back(dim);
      if (peek() != 'x') fail("expected 'x' after the dimension " + std::to_string(dim) + ", found " + describe_next());
      ++pos_;
    }
    if (shape.empty()) fail("expected the shape of the block (128x...), found " + describe_next());
    const Type* element = element_type();
    const Layout* layout = accept(',') ? parse_layout(shape) : nullptr;
    expect('>', "closing 'block<'");
    return Type::block(element, shape, layout);
  }

  // ---- layouts (layout.h prints them)

  // `[1, 2, 3]`, possibly empty.
  std::vector<int64_t> int_list(const char* what) {
    expect('[', what);
    std::vector<int64_t> list;
    if (accept(']')) return list;
    do {
      list.push_back(integer("an integer in the list"));
    } while (accept(','));
    expect(']', "closing the list");
    return list;
  }
  // `KEY = ` before a layout parameter.
  void key(const char* name) {
    expect_word(name);
    expect('=', (std::string("after '") + name + "'").c_str());
  }
  std::vector<int> small_list(const char* name) {
    key(name);
    std::vector<int> out;
    for (int64_t v : int_list("opening the list")) {
      if (v < 0 || v > (int64_t{1} << 30)) fail(std::string("a value of '") + name + "' out of range: " + std::to_string(v));
      out.push_back(static_cast<int>(v));
    }
    return out;
  }

  // The layout of a block of `shape`: blocked<...> | slice<...> | linear<...>.
  const Layout* parse_layout(const std::vector<int64_t>& shape) {
    skip_space();
    size_t start = pos_;
    std::string kind = name("a layout (blocked, slice or linear)");
    for (int64_t d : shape) {
      if ((d & (d - 1)) != 0) fail_at(start, "a layout needs power-of-two dimensions, got " + std::to_string(d));
    }
    expect('<', ("after '" + kind + "'").c_str());
    const Layout* layout = nullptr;
    if (kind == "blocked") {
      std::vector<int> spt = small_list("spt");
      expect(',');
      std::vector<int> tpw = small_list("tpw");
      expect(',');
      std::vector<int> wpc = small_list("wpc");
      expect(',');
      std::vector<int> order = small_list("order");
      std::string problem = Layout::blocked_problem(shape, spt, tpw, wpc, order);
      if (!problem.empty()) fail_at(start, problem);
      layout = Layout::blocked(shape, spt, tpw, wpc, order);
    } else if (kind == "slice") {
      key("dim");
      size_t dim_at = (skip_space(), pos_);
      int64_t dim = integer("a dimension");
      expect(',');
      key("size");
      size_t size_at = (skip_space(), pos_);
      int64_t size = integer("the dropped dimension's size");
      expect(',');
      key("parent");
      if (dim < 0 || dim > static_cast<int64_t>(shape.size())) fail_at(dim_at, "slice dimension " + std::to_string(dim) + " out of range");
      if (size < 1 || (size & (size - 1)) != 0) fail_at(size_at, "the dropped dimension must be a power of two, got " + std::to_string(size));
      std::vector<int64_t> parent_shape = shape;
      parent_shape.insert(parent_shape.begin() + dim, size);
      layout = Layout::slice(static_cast<int>(dim), parse_layout(parent_shape));
    } else if (kind == "linear") {
      std::array<std::vector<int64_t>, LinearLayout::kInDims> bases;
      key("reg");
      bases[LinearLayout::kRegister] = int_list("opening the register bases");
      expect(',');
      key("lane");
      bases[LinearLayout::kLane] = int_list("opening the lane bases");
      expect(',');
      key("warp");
      bases[LinearLayout::kWarp] = int_list("opening the warp bases");
      std::string problem = Layout::linear_problem(shape, bases);
      if (!problem.empty()) fail_at(start, problem);
      layout = Layout::from_linear(LinearLayout(shape, bases));
    } else if (kind == "mma" || kind == "dot_operand" || kind == "shared") {
      fail_at(start, "the layout kind '" + kind + "' is not built yet");
    } else {
      fail_at(start, "unknown layout '" + kind + "' (blocked, slice or linear)");
    }
    expect('>', ("closing '" + kind + "<'").c_str());
    return layout;
  }

  std::vector<const Type*> type_list() {
    std::vector<const Type*> types{type()};
    while (accept(',')) types.push_back(type());
    return types;
  }

  // ---- numbers and attributes

  int64_t integer(const char* what) {
    skip_space();
    size_t start = pos_;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec == std::errc::result_out_of_range) fail_at(start, std::string(what) + " does not fit in 64 bits");
    if (ec != std::errc()) fail(std::string("expected ") + what + ", found " + describe_next());
    pos_ = static_cast<size_t>(end - text_.data());
    return value;
  }

  // 42, -3 (integers); 1.5, 1e-06, -inf, nan (floats: a '.', an exponent or a name).
  AttrValue number() {
    size_t start = pos_;
    bool negative = peek() == '-';
    if (negative) ++pos_;
    if (accept_word("inf"))
      return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (!negative && accept_word("nan")) return std::numeric_limits<double>::quiet_NaN();
    size_t end = pos_;
    bool is_float = false;
    while (end < text_.size()) {
      char c = text_[end];
      bool sign_of_exponent = (c == '-' || c == '+') && (text_[end - 1] == 'e' || text_[end - 1] == 'E');
      if (c == '.' || c == 'e' || c == 'E') is_float = true;
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' && !sign_of_exponent) break;
      ++end;
    }
    pos_ = start;
    const char* first = text_.data() + start;
    const char* last = text_.data() + end;
    if (is_float) {
      double value = 0;
      auto [stop, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || stop != last) fail("bad float '" + std::string(first, last) + "'");
      pos_ = end;
      return value;
    }
    int64_t value = integer("a number");
    if (pos_ != end) fail("bad number '" + std::string(first, last) + "'");
    return value;
  }

  std::string string_literal() {
    size_t start = pos_;
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') fail_at(start, "unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (c == '\\') {
        char e = peek();
        if (e == 'n')
          out += '\n';
        else if (e == '"' || e == '\\')
          out += e;
        else
          fail("unknown escape '\\" + std::string(1, e) + "' in a string");
        ++pos_;
        continue;
      }
      out += c;
    }
  }

  AttrValue attr_value() {
    skip_space();
    char c = peek();
    if (c == '"') return string_literal();
    if (c == '[') {
      ++pos_;
      std::vector<int64_t> list;
      if (accept(']')) return list;
      do {
        list.push_back(integer("an integer in the list"));
      } while (accept(','));
      expect(']', "closing the integer list");
      return list;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c)) || c == 'i' || c == 'n') return number();
    fail("expected an attribute value (integer, float, \"string\" or [list]), found " + describe_next());
  }

  // `{name = value, ...}` after the opening '{' has been consumed.
  std::vector<std::pair<std::string, AttrValue>> attr_dict() {
    std::vector<std::pair<std::string, AttrValue>> attrs;
    do {
      size_t start = (skip_space(), pos_);
      std::string key = name("an attribute name");
      for (const auto& [existing, value] : attrs) {
        if (existing == key) fail_at(start, "attribute '" + key + "' given twice");
      }
      expect('=', ("after the attribute name '" + key + "'").c_str());
      attrs.emplace_back(key, attr_value());
    } while (accept(','));
    expect('}', "closing the attributes");
    return attrs;
  }

  // Whether the '{' at the cursor opens attributes (`{name = ...`) rather than a region.
  bool attrs_follow() const {
    size_t i = pos_ + 1;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    size_t start = i;
    while (i < text_.size() && is_name_char(text_[i])) ++i;
    if (i == start) return false;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    return i < text_.size() && text_[i] == '=';
  }

  // ---- the function header

  void entry_args() {
    expect('(', "after the function name");
    if (accept(')')) return;
    do {
      size_t start = (skip_space(), pos_);
      std::string arg_name = value_name();
      expect(':', ("after the entry argument " + arg_name).c_str());
      Param param;
      param.name = arg_name.substr(1);
      param.arg = function_->body().add_arg(type());
      if (accept('{')) {
        for (const auto& [key, value] : attr_dict()) set_fact(&param.facts, key, value, start);
      }
      define(arg_name, param.arg, start);
      function_->params().push_back(std::move(param));
    } while (accept(','));
    expect(')', "closing the entry arguments");
  }

  void set_fact(ArgFacts* facts, const std::string& key, const AttrValue& value, size_t pos) {
    for (const FactField& field : kFactFields) {
      if (key != field.name) continue;
      if (!std::holds_alternative<int64_t>(value) || std::get<int64_t>(value) < 1) {
        fail_at(pos, "entry-argument fact '" + key + "' must be a positive integer");
      }
      facts->*field.field = std::get<int64_t>(value);
      return;
    }
    fail_at(pos, "unknown entry-argument fact '" + key + "'");
  }

  // `[NAME = TEXT, ...]`: parameters folded to constants, their text kept verbatim (it may
  // hold quotes, brackets and commas: 'a, b', (1, 2)).
  void folded_params() {
    if (!accept('[')) return;
    do {
      Param param;
      param.name = name("a folded parameter name");
      expect('=', ("after the folded parameter " + param.name).c_str());
      skip_space();
      size_t start = pos_;
      int depth = 0;
      char quote = 0;
      for (; pos_ < text_.size() && text_[pos_] != '\n'; ++pos_) {
        char c = text_[pos_];
        if (quote != 0) {
          if (c == '\\')
            ++pos_;
          else if (c == quote)
            quote = 0;
        } else if (c == '\'' || c == '"') {
          quote = c;
        } else if (c == '(' || c == '[') {
          ++depth;
        } else if (c == ')' || (c == ']' && depth > 0)) {
          --depth;
        } else if (depth == 0 && (c == ',' || c == ']')) {
          break;
        }
      }
      size_t end = pos_;
      while (end > start && (text_[end - 1] == ' ' || text_[end - 1] == '\t')) --end;
      if (end == start) fail_at(start, "expected the value of the folded parameter " + param.name);
      param.folded = text_.substr(start, end - start);
      function_->params().push_back(std::move(param));
    } while (accept(','));
    expect(']', "closing the folded parameters");
  }

  // ---- regions and ops

  // The ops of `region` up to (not including) its closing '}'.
  void region_body(Region& region) {
    size_t mark = scope_.size();
    skip_space();
    if (accept('^')) {
      expect('(', "after '^'");
      do {
        size_t start = (skip_space(), pos_);
        std::string arg_name = value_name();
        expect(':', ("after the region argument " + arg_name).c_str());
        define(arg_name, region.add_arg(type()), start);
      } while (accept(','));
      expect(')', "closing the region arguments");
      expect(':', "after the region arguments");
    }
    while (true) {
      skip_space();
      if (peek() == '}') break;
      if (pos_ >= text_.size()) fail("expected '}' closing a region, found the end of the text");
      parse_op(region);
    }
    pop_scope(mark);
  }

  // A `loc(line:col)` or `loc(unknown)` suffix, when there is one on this line.
  bool loc_suffix(Loc* loc) {
    skip_blanks();
    if (text_.compare(pos_, 4, "loc(") != 0) return false;
    pos_ += 4;
    if (accept_word("unknown")) {
      *loc = Loc{};
    } else {
      int64_t line = integer("a line number");
      expect(':', "in loc(line:col)");
      int64_t col = integer("a column number");
      *loc = Loc{kernel_.get(), static_cast<int>(line), static_cast<int>(col)};
    }
    expect(')', "closing loc(");
    return true;
  }

  void parse_op(Region& region) {
    size_t start = pos_;
    Loc loc = here();
    std::vector<std::pair<std::string, size_t>> result_names;
    if (peek() == '%') {
      do {
        size_t at = (skip_space(), pos_);
        result_names.emplace_back(value_name(), at);
      } while (accept(','));
      expect('=', "after the result names");
    }
    skip_space();
    size_t keyword_at = pos_;
    std::string keyword = name("an op name");
    OpKind kind;
    if (!find_op_kind(keyword, &kind)) fail_at(keyword_at, "unknown op '" + keyword + "'");

    std::vector<Value*> operands;
    skip_blanks();
    if (peek() == '%') {
      do {
        size_t at = (skip_space(), pos_);
        operands.push_back(use(value_name(), at));
      } while (accept(','));
    }
    std::vector<std::pair<std::string, AttrValue>> attrs;
    skip_blanks();
    if (peek() == '{' && attrs_follow()) {
      ++pos_;
      attrs = attr_dict();
    }
    std::vector<const Type*> result_types;
    skip_blanks();
    bool arrow = false;
    if (peek() == ':' || (peek() == '-' && peek(1) == '>')) {
      arrow = peek() == '-';
      pos_ += arrow ? 2 : 1;
      result_types = type_list();
    }
    if (result_types.size() != result_names.size()) {
      fail_at(start, "'" + keyword + "' names " + std::to_string(result_names.size()) + " results but gives " +
                         std::to_string(result_types.size()) + " result types");
    }

    Builder builder(&region);
    Op* op = builder.create(kind, result_types, operands, loc);
    for (auto& [key, value] : attrs) op->set_attr(key, std::move(value));
    skip_blanks();
    if (peek() == '{') {
      ++pos_;
      loc_suffix(&loc);
      do {
        region_body(*op->add_region());
        expect('}', "closing a region");
      } while (region_joint());
    } else if (arrow) {
      fail("expected '{' opening the regions of '" + keyword + "' after '->'");
    }
    loc_suffix(&loc);  // a suffix names the kernel's line, kept instead of the place in this text
    op->set_loc(loc);
    // Results are visible after the op, not inside its regions.
    for (size_t i = 0; i < result_names.size(); ++i)
      define(result_names[i].first, op->result(static_cast<int>(i)), result_names[i].second);
    skip_blanks();
    if (pos_ < text_.size() && peek() != '\n')
      fail("expected the end of the line after '" + keyword + "', found " + describe_next());
  }

  // After a region's '}': `, {`, `else {`, `do {` (any word) opens the next region.
  bool region_joint() {
    skip_blanks();
    size_t save = pos_;
    if (peek() == ',') {
      ++pos_;
    } else if (is_name_char(peek()) && text_.compare(pos_, 4, "loc(") != 0) {
      while (is_name_char(peek())) ++pos_;
    } else {
      return false;
    }
    skip_blanks();
    if (peek() != '{') {
      pos_ = save;
      return false;
    }
    ++pos_;
    return true;
  }

  std::shared_ptr<const SourceFile> file_;
  std::shared_ptr<const SourceFile> kernel_;
  const std::string& text_;
  std::vector<size_t> line_starts_;
  size_t pos_ = 0;
  Function* function_ = nullptr;
  std::unordered_map<std::string, Value*> values_;
  std::vector<std::string> scope_;
};

}  // namespace

std::unique_ptr<Function> parse(const std::string& text, const std::string& path) {
  auto file = std::make_shared<const SourceFile>(path, text);
  // `loc(line:col)` suffixes point into the kernel the IR came from, which is not at hand.
  auto kernel = std::make_shared<const SourceFile>("<kernel of " + path + ">", "");
  return Parser(file, kernel).parse_function();
}

}  // namespace tritium::ir
