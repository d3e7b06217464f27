// Python tokenizer (lexer.h): indentation, literals of every base, prefixed and triple-quoted
// strings, operators, implicit (bracket) and explicit (backslash) line joins. It follows
// CPython's Parser/tokenizer.c where the two could differ.
#include "frontend/lexer.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include "support/diagnostics.h"

namespace tritium {

namespace {

constexpr size_t kMaxIndentLevels = 100;  // CPython's MAXINDENT
constexpr size_t kMaxBracketDepth = 200;  // CPython's MAXLEVEL
constexpr unsigned __int128 kMaxIntLiteral = std::numeric_limits<uint64_t>::max();

const char* const kKeywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

// Longest spellings first, so the first match is the maximal munch.
const char* const kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "<<", ">>", "<=", ">=", "==",
    "!=",  "->",  ":=",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",
};

// Keywords that may directly follow a number (`1if x else 2`): CPython accepts these.
const char* const kKeywordsAfterNumber[] = {"and", "else", "for", "if", "in", "is", "not", "or"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Bytes >= 0x80 are taken as parts of (UTF-8 encoded) identifiers, as Python allows.
bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

bool is_keyword(std::string_view word) {
  for (const char* keyword : kKeywords) {
    if (word == keyword) return true;
  }
  return false;
}

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The value of a decimal float literal whose digits (underscores removed) from_chars found
// out of range: Python gives inf on overflow and 0.0 on underflow, so only the decimal
// magnitude matters.
double out_of_range_float(std::string_view digits) {
  size_t exponent_at = digits.find_first_of("eE");
  std::string_view mantissa = digits.substr(0, exponent_at);
  long exponent = 0;
  if (exponent_at != std::string_view::npos) {
    size_t i = exponent_at + 1;
    bool negative = i < digits.size() && digits[i] == '-';
    if (i < digits.size() && (digits[i] == '-' || digits[i] == '+')) ++i;
    for (; i < digits.size(); ++i) exponent = std::min(exponent * 10 + (digits[i] - '0'), 100000L);
    if (negative) exponent = -exponent;
  }
  size_t point = mantissa.find('.');
  if (point == std::string_view::npos) point = mantissa.size();
  size_t first_nonzero = mantissa.find_first_of("123456789");
  if (first_nonzero == std::string_view::npos) return 0.0;
  long magnitude = first_nonzero < point ? static_cast<long>(point - first_nonzero)
                                         : -static_cast<long>(first_nonzero - point - 1);
  return magnitude + exponent > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

struct IndentLevel {
  int col;      // tabs advance to the next multiple of 8
  int alt_col;  // tabs count 1: where the two orders disagree, tabs and spaces are mixed
};

struct OpenBracket {
  char bracket;
  Loc loc;
};

class Lexer {
 public:
  explicit Lexer(const SourceFile& file) : file_(file), text_(file.text()) {}

  std::vector<Token> run();

 private:
  // The byte at `i`, or '\0' past the end (the source holds no NUL: run() checks).
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  bool at_end(size_t i) const { return i >= text_.size(); }
  // Length of the line break at `i` ("\n" or "\r\n"), 0 when there is none.
  size_t line_break(size_t i) const {
    if (at(i) == '\n') return 1;
    return at(i) == '\r' && at(i + 1) == '\n' ? 2 : 0;
  }
  // Location of `offset`, which must lie on the current physical line.
  Loc loc_of(size_t offset) const {
    return {&file_, file_.first_line() + line_index_, static_cast<int>(offset - line_start_) + 1};
  }
  // Location of any offset; a scan from the start, for the rare places that need it.
  Loc locate(size_t offset) const;
  // Records that a line break ended just before `next_line_start`.
  void begin_line(size_t next_line_start) {
    ++line_index_;
    line_start_ = next_line_start;
  }

  void emit(TokenKind kind, size_t begin, size_t end, Loc loc);
  void indentation();
  void end_of_line();
  void continuation();
  void name_or_string();
  void number();
  size_t scan_digits(size_t p, int base, const Loc& loc, const char* what);
  void check_number_end(size_t p, const Loc& loc, const char* what);
  void string(size_t begin, bool raw, bool bytes, bool fstring);
  void escape(std::string& value, bool bytes);
  void fstring_field(std::string& value, const Loc& string_loc, int nesting);
  void nested_string(const Loc& string_loc);
  void op();
  void finish();

  const SourceFile& file_;
  std::string_view text_;
  size_t pos_ = 0;
  int line_index_ = 0;     // 0-based physical line of pos_
  size_t line_start_ = 0;  // offset where that line starts
  bool at_line_start_ = true;
  bool line_has_tokens_ = false;      // the current logical line has emitted a token
  std::vector<IndentLevel> indents_;  // empty until the first non-blank line sets level 0
  std::vector<OpenBracket> brackets_;
  std::vector<Token> tokens_;
};

Loc Lexer::locate(size_t offset) const {
  int line = 0;
  size_t start = 0;
  for (size_t i = 0; i < offset && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  return {&file_, file_.first_line() + line, static_cast<int>(offset - start) + 1};
}

void Lexer::emit(TokenKind kind, size_t begin, size_t end, Loc loc) {
  Token token;
  token.kind = kind;
  token.text = std::string(text_.substr(begin, end - begin));
  token.loc = loc;
  token.offset = begin;
  token.end = end;
  tokens_.push_back(std::move(token));
  if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent) {
    line_has_tokens_ = true;
  }
}

std::vector<Token> Lexer::run() {
  size_t nul = text_.find('\0');
  if (nul != std::string_view::npos) error_at(locate(nul), "source contains a null byte");

  while (true) {
    if (at_line_start_) {
      at_line_start_ = false;
      if (brackets_.empty()) indentation();
    }
    if (at_end(pos_)) break;
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\f' || (c == '\r' && !line_break(pos_))) {
      ++pos_;
    } else if (c == '#') {
      while (!at_end(pos_) && !line_break(pos_)) ++pos_;
    } else if (line_break(pos_)) {
      end_of_line();
    } else if (c == '\\') {
      continuation();
    } else if (is_ident_start(c)) {
      name_or_string();
    } else if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) {
      number();
    } else if (c == '\'' || c == '"') {
      string(pos_, false, false, false);
    } else {
      op();
    }
  }
  finish();
  return std::move(tokens_);
}

// At the start of a physical line outside brackets: compare its indentation with the
// stack and emit INDENT / DEDENTs. Blank and comment-only lines do not count.
void Lexer::indentation() {
  size_t p = pos_;
  int col = 0, alt_col = 0;
  for (;; ++p) {
    char c = at(p);
    if (c == ' ') {
      ++col;
      ++alt_col;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt_col;
    } else if (c == '\f') {
      col = alt_col = 0;  // CPython resets the count at a form feed
    } else {
      break;
    }
  }
  pos_ = p;
  if (at_end(p) || at(p) == '#' || line_break(p)) return;

  Loc loc = loc_of(p);
  auto inconsistent = [&] { error_at(loc, "inconsistent use of tabs and spaces in indentation"); };
  if (indents_.empty()) {
    indents_.push_back({col, alt_col});
    return;
  }
  if (col == indents_.back().col) {
    if (alt_col != indents_.back().alt_col) inconsistent();
  } else if (col > indents_.back().col) {
    if (alt_col <= indents_.back().alt_col) inconsistent();
    if (indents_.size() > kMaxIndentLevels) error_at(loc, "too many levels of indentation");
    indents_.push_back({col, alt_col});
    emit(TokenKind::Indent, p, p, loc);
  } else {
    while (indents_.size() > 1 && col < indents_.back().col) {
      indents_.pop_back();
      emit(TokenKind::Dedent, p, p, loc);
    }
    if (col != indents_.back().col) {
      if (indents_.size() == 1 && col < indents_.back().col) {
        error_at(loc,
                 "unexpected unindent: this line is indented less than the first line "
                 "of the source");
      }
      error_at(loc, "unindent does not match any outer indentation level");
    }
    if (alt_col != indents_.back().alt_col) inconsistent();
  }
}

void Lexer::end_of_line() {
  if (brackets_.empty() && line_has_tokens_) {
    emit(TokenKind::Newline, pos_, pos_, loc_of(pos_));
    line_has_tokens_ = false;
  }
  pos_ += line_break(pos_);
  begin_line(pos_);
  at_line_start_ = true;
}

// A backslash joins the next physical line to this logical line; nothing may follow it.
void Lexer::continuation() {
  Loc loc = loc_of(pos_);
  size_t length = line_break(pos_ + 1);
  if (length == 0) {
    if (at_end(pos_ + 1))
      error_at(loc, "unexpected end of input after line continuation character");
    error_at(loc, "unexpected character after line continuation character");
  }
  pos_ += 1 + length;
  begin_line(pos_);
}

void Lexer::name_or_string() {
  size_t begin = pos_;
  size_t p = pos_;
  while (is_ident_char(at(p))) ++p;
  std::string_view word = text_.substr(begin, p - begin);

  // A string prefix is a word of one or two of r/u/b/f right before a quote.
  if ((at(p) == '\'' || at(p) == '"') && word.size() <= 2) {
    bool raw = false, bytes = false, fstring = false, unicode = false, valid = true;
    for (char c : word) {
      bool* flag = nullptr;
      switch (c | 0x20) {  // ASCII lower case
        case 'r': flag = &raw; break;
        case 'b': flag = &bytes; break;
        case 'f': flag = &fstring; break;
        case 'u': flag = &unicode; break;
        default: break;
      }
      if (flag == nullptr || *flag)
        valid = false;
      else
        *flag = true;
    }
    // u combines with nothing; b and f exclude each other.
    if (unicode && word.size() > 1) valid = false;
    if (bytes && fstring) valid = false;
    if (valid) {
      pos_ = p;
      string(begin, raw, bytes, fstring);
      return;
    }
  }
  pos_ = p;
  emit(is_keyword(word) ? TokenKind::Keyword : TokenKind::Name, begin, p, loc_of(begin));
}

// Digits of `base` with single underscores between them (one may follow a base prefix,
// which the caller has already skipped). Returns the offset after the run.
size_t Lexer::scan_digits(size_t p, int base, const Loc& loc, const char* what) {
  while (true) {
    char c = at(p);
    if (c == '_') {
      if (digit_value(at(p + 1)) >= base)
        error_at(loc, std::string("invalid ") + what + " literal");
      ++p;
    } else if (digit_value(c) < base) {
      ++p;
    } else {
      return p;
    }
  }
}

// A number must not run into a name (`1abc`), except for the keywords CPython allows there.
void Lexer::check_number_end(size_t p, const Loc& loc, const char* what) {
  if (!is_ident_char(at(p))) return;
  size_t end = p;
  while (is_ident_char(at(end))) ++end;
  std::string_view word = text_.substr(p, end - p);
  for (const char* keyword : kKeywordsAfterNumber) {
    if (word == keyword) return;
  }
  error_at(loc, std::string("invalid ") + what + " literal");
}

void Lexer::number() {
  size_t begin = pos_;
  Loc loc = loc_of(begin);
  char prefix = static_cast<char>(at(pos_ + 1) | 0x20);
  if (at(pos_) == '0' && (prefix == 'x' || prefix == 'o' || prefix == 'b')) {
    int base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
    const char* what = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    size_t p = pos_ + 2;
    if (at(p) == '_') ++p;
    if (digit_value(at(p)) >= base) {
      if (is_digit(at(p))) {
        error_at(loc, std::string("invalid digit '") + at(p) + "' in " + what + " literal");
      }
      error_at(loc, std::string("invalid ") + what + " literal");
    }
    p = scan_digits(p, base, loc, what);
    if (is_digit(at(p))) {
      error_at(loc, std::string("invalid digit '") + at(p) + "' in " + what + " literal");
    }
    check_number_end(p, loc, what);
    unsigned __int128 value = 0;
    for (size_t i = pos_ + 2; i < p; ++i) {
      if (text_[i] == '_') continue;
      value = value * base + digit_value(text_[i]);
      if (value > kMaxIntLiteral) error_at(loc, "integer literal too large");
    }
    pos_ = p;
    emit(TokenKind::Int, begin, p, loc);
    tokens_.back().int_value = value;
    return;
  }

  size_t p = scan_digits(pos_, 10, loc, "decimal");
  bool is_float = false;
  if (at(p) == '.') {
    is_float = true;
    ++p;
    if (is_digit(at(p))) p = scan_digits(p, 10, loc, "decimal");
  }
  char sign = at(p + 1);
  if ((at(p) | 0x20) == 'e' &&
      (is_digit(sign) || ((sign == '+' || sign == '-') && is_digit(at(p + 2))))) {
    is_float = true;
    p = scan_digits(p + (is_digit(sign) ? 1 : 2), 10, loc, "decimal");
  }
  bool imaginary = (at(p) | 0x20) == 'j';
  if (imaginary) ++p;
  check_number_end(p, loc, imaginary ? "imaginary" : "decimal");

  std::string digits;
  for (size_t i = begin; i < p; ++i) {
    if (text_[i] != '_') digits += text_[i];
  }
  pos_ = p;
  if (!is_float && !imaginary) {
    if (digits.size() > 1 && digits[0] == '0' &&
        digits.find_first_not_of('0') != std::string::npos) {
      error_at(loc,
               "leading zeros in decimal integer literals are not permitted; use an 0o "
               "prefix for octal integers");
    }
    unsigned __int128 value = 0;
    for (char c : digits) {
      value = value * 10 + (c - '0');
      if (value > kMaxIntLiteral) error_at(loc, "integer literal too large");
    }
    emit(TokenKind::Int, begin, p, loc);
    tokens_.back().int_value = value;
    return;
  }
  if (imaginary) digits.pop_back();
  double value = 0;
  auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ec == std::errc::result_out_of_range) {
    value = out_of_range_float(digits);
  } else if (result.ec != std::errc() || result.ptr != digits.data() + digits.size()) {
    error_at(loc, "invalid decimal literal");
  }
  emit(TokenKind::Float, begin, p, loc);
  tokens_.back().float_value = value;
  tokens_.back().is_imaginary = imaginary;
}

// pos_ is at the opening quote; `begin` is where the prefix started.
void Lexer::string(size_t begin, bool raw, bool bytes, bool fstring) {
  Loc loc = loc_of(begin);
  char quote = text_[pos_];
  bool triple = at(pos_ + 1) == quote && at(pos_ + 2) == quote;
  pos_ += triple ? 3 : 1;
  const char* unterminated =
      triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
  std::string value;
  std::vector<std::string> pieces(1);  // f-strings: literal, field, literal, ...
  std::vector<Loc> field_locs;
  while (true) {
    if (at_end(pos_)) error_at(loc, unterminated);
    char c = text_[pos_];
    const size_t value_before = value.size();
    if (c == quote && (!triple || (at(pos_ + 1) == quote && at(pos_ + 2) == quote))) {
      pos_ += triple ? 3 : 1;
      break;
    }
    if (size_t length = line_break(pos_)) {
      if (!triple) error_at(loc, unterminated);
      value += '\n';
      pos_ += length;
      begin_line(pos_);
    } else if (c == '\\' && raw) {
      // In a raw string a backslash still keeps the next character from ending the string.
      value += c;
      ++pos_;
      if (size_t length = line_break(pos_)) {
        value += '\n';
        pos_ += length;
        begin_line(pos_);
      } else if (at(pos_) == quote || at(pos_) == '\\') {
        value += text_[pos_++];
      }
    } else if (c == '\\') {
      escape(value, bytes);
    } else if (fstring && c == '{' && at(pos_ + 1) != '{') {
      value += c;
      ++pos_;
      field_locs.push_back(loc_of(pos_));
      const size_t field_begin = pos_;
      std::string scratch;
      fstring_field(scratch, loc, 0);
      value += text_.substr(field_begin, pos_ - field_begin);
      pieces.emplace_back(text_.substr(field_begin, pos_ - 1 - field_begin));  // without the `}`
      pieces.emplace_back();
      continue;
    } else if (fstring && c == '}' && at(pos_ + 1) != '}') {
      error_at(loc_of(pos_), "f-string: single '}' is not allowed");
    } else {
      value += c;
      pos_ += (fstring && (c == '{' || c == '}')) ? 2 : 1;  // `{{` and `}}` stand for one brace
    }
    if (fstring) pieces.back() += value.substr(value_before);
  }
  emit(TokenKind::String, begin, pos_, loc);
  Token& token = tokens_.back();
  token.str_value = std::move(value);
  token.is_bytes = bytes;
  token.is_fstring = fstring;
  if (fstring) {
    token.fstring_pieces = std::move(pieces);
    token.fstring_field_locs = std::move(field_locs);
  }
}

// pos_ is at a backslash in a non-raw string: decode one escape sequence into `value`.
void Lexer::escape(std::string& value, bool bytes) {
  Loc loc = loc_of(pos_);
  char e = at(pos_ + 1);
  if (size_t length = line_break(pos_ + 1)) {  // backslash-newline continues the string
    pos_ += 1 + length;
    begin_line(pos_);
    return;
  }
  const char* simple = std::strchr("\\'\"abfnrtv", e);
  if (e != '\0' && simple != nullptr) {
    static const char kDecoded[] = "\\'\"\a\b\f\n\r\t\v";
    value += kDecoded[simple - "\\'\"abfnrtv"];
    pos_ += 2;
    return;
  }
  auto hex_escape = [&](int digits, const char* form) -> uint32_t {
    uint32_t code = 0;
    for (int i = 0; i < digits; ++i) {
      int digit = digit_value(at(pos_ + 2 + i));
      if (digit >= 16) error_at(loc, std::string("truncated ") + form + " escape");
      code = code * 16 + digit;
    }
    pos_ += 2 + digits;
    return code;
  };
  uint32_t code = 0;
  if (e >= '0' && e <= '7') {
    size_t p = pos_ + 1;
    for (int i = 0; i < 3 && at(p) >= '0' && at(p) <= '7'; ++i)
      code = code * 8 + (text_[p++] - '0');
    pos_ = p;
  } else if (e == 'x') {
    code = hex_escape(2, "\\xXX");
  } else if (e == 'u' && !bytes) {
    code = hex_escape(4, "\\uXXXX");
  } else if (e == 'U' && !bytes) {
    code = hex_escape(8, "\\UXXXXXXXX");
    if (code > 0x10FFFF) error_at(loc, "illegal Unicode character in \\U escape");
  } else {
    // Unknown escapes (and \N{...}, whose name table we do not carry) stay as written.
    value += '\\';
    ++pos_;
    return;
  }
  if (bytes)
    value += static_cast<char>(code & 0xFF);
  else
    append_utf8(value, code);
}

// pos_ is just after the `{` of an f-string replacement field: skip to its closing `}`.
// Strings inside a field may reuse the outer quote (Python 3.12); a `:` at the field's
// own level starts the format spec, which holds literal text and nested fields.
void Lexer::fstring_field(std::string& value, const Loc& string_loc, int nesting) {
  size_t begin = pos_;
  int depth = 0;
  bool in_spec = false;
  while (true) {
    if (at_end(pos_)) error_at(string_loc, "f-string: expecting '}'");
    char c = text_[pos_];
    if (size_t length = line_break(pos_)) {
      pos_ += length;
      begin_line(pos_);
      continue;
    }
    if (c == '}' && depth == 0) {
      ++pos_;
      break;
    }
    if (in_spec) {
      if (c == '{') {
        ++pos_;
        // Fields nest only inside format specs; CPython allows two levels.
        if (nesting >= 2) error_at(string_loc, "f-string: expressions nested too deeply");
        fstring_field(value, string_loc, nesting + 1);
        continue;
      }
    } else if (c == '\'' || c == '"') {
      nested_string(string_loc);
      continue;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ':' && depth == 0) {
      in_spec = true;
    }
    ++pos_;
  }
  value += text_.substr(begin, pos_ - begin);
}

// Skips a string literal inside an f-string field (its contents do not matter).
void Lexer::nested_string(const Loc& string_loc) {
  Loc loc = loc_of(pos_);
  char quote = text_[pos_];
  bool triple = at(pos_ + 1) == quote && at(pos_ + 2) == quote;
  pos_ += triple ? 3 : 1;
  while (true) {
    if (at_end(pos_)) error_at(string_loc, "f-string: unterminated string");
    char c = text_[pos_];
    if (c == quote && (!triple || (at(pos_ + 1) == quote && at(pos_ + 2) == quote))) {
      pos_ += triple ? 3 : 1;
      return;
    }
    if (c == '\\' && !at_end(pos_ + 1)) ++pos_;
    if (size_t length = line_break(pos_)) {
      if (!triple && text_[pos_ - 1] != '\\') error_at(loc, "unterminated string literal");
      pos_ += length;
      begin_line(pos_);
    } else {
      ++pos_;
    }
  }
}

void Lexer::op() {
  size_t begin = pos_;
  Loc loc = loc_of(begin);
  const char* match = nullptr;
  for (const char* candidate : kOperators) {
    if (text_.compare(pos_, std::strlen(candidate), candidate) == 0) {
      match = candidate;
      break;
    }
  }
  if (match == nullptr) {
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c >= 0x21 && c < 0x7F)
      error_at(loc, std::string("invalid character '") + text_[pos_] + "'");
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", c);
    error_at(loc, std::string("invalid character (byte ") + hex + ")");
  }
  char c = match[0];
  if (match[1] == '\0' && (c == '(' || c == '[' || c == '{')) {
    if (brackets_.size() >= kMaxBracketDepth) error_at(loc, "too many nested parentheses");
    brackets_.push_back({c, loc});
  } else if (match[1] == '\0' && (c == ')' || c == ']' || c == '}')) {
    if (brackets_.empty()) error_at(loc, std::string("unmatched '") + c + "'");
    char open = brackets_.back().bracket;
    char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
    if (c != expected) {
      error_at(loc, std::string("closing parenthesis '") + c +
                        "' does not match opening parenthesis '" + open + "'");
    }
    brackets_.pop_back();
  }
  pos_ += std::strlen(match);
  emit(TokenKind::Op, begin, pos_, loc);
}

void Lexer::finish() {
  if (!brackets_.empty()) {
    error_at(brackets_.back().loc,
             std::string("'") + brackets_.back().bracket + "' was never closed");
  }
  // End-of-input tokens point just past the last character of the last non-empty line.
  size_t end = text_.size();
  if (end > 0 && text_[end - 1] == '\n') --end;
  if (end > 0 && text_[end - 1] == '\r') --end;
  Loc loc = locate(end);
  if (line_has_tokens_) emit(TokenKind::Newline, text_.size(), text_.size(), loc);
  while (indents_.size() > 1) {
    indents_.pop_back();
    emit(TokenKind::Dedent, text_.size(), text_.size(), loc);
  }
  emit(TokenKind::End, text_.size(), text_.size(), loc);
}

}  // namespace

std::vector<Token> tokenize(const SourceFile& file) { return Lexer(file).run(); }

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::Name:
    case TokenKind::Keyword:
    case TokenKind::Op: return "'" + token.text + "'";
    case TokenKind::Int:
    case TokenKind::Float: return "number '" + token.text + "'";
    case TokenKind::String: return "string literal";
    case TokenKind::Newline: return "end of line";
    case TokenKind::Indent: return "indented block";
    case TokenKind::Dedent: return "end of block";
    case TokenKind::End: return "end of input";
  }
  return "token";
}

}  // namespace tritium
