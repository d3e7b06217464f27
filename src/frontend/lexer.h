// Python tokenizer, the first stage of the frontend: source text -> tokens with explicit
// NEWLINE / INDENT / DEDENT, as Python's own tokenizer produces them. Malformed input of any
// kind is a located CompileError, never a crash or a hang.
#pragma once

#include <string>
#include <vector>

#include "support/source.h"

namespace tritium {

enum class TokenKind {
  Name,     // identifiers, including the soft keywords `match`, `case`, `type`
  Keyword,  // the hard keywords of Python 3 (`def`, `if`, `True`, `None`, `lambda`, ...)
  Int,      // int_value
  Float,    // float_value; `is_imaginary` for `1j`, which the parser rejects
  String,   // str_value (escapes decoded); flags for bytes / f-strings
  Op,       // operators and delimiters: text is the spelling ("**=", "(", "->", "...")
  Newline,  // end of a logical line
  Indent,
  Dedent,
  End,  // end of input
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;   // the spelling as written (for literals, the raw literal text)
  Loc loc;            // first character; columns count bytes, a tab is one column
  size_t offset = 0;  // byte range [offset, end) in SourceFile::text()
  size_t end = 0;

  unsigned __int128 int_value = 0;
  double float_value = 0;
  std::string str_value;  // String: the contents, escapes decoded (f-string fields as written)
  bool is_bytes = false;
  bool is_fstring = false;
  // f-string: its literal text and replacement fields in turn (literal, field, literal, ...,
  // literal; `{{`/`}}` decoded in the literals, a field's text as written without its
  // braces), and where each field's text starts.
  std::vector<std::string> fstring_pieces;
  std::vector<Loc> fstring_field_locs;
  bool is_imaginary = false;

  bool is_op(const char* op) const { return kind == TokenKind::Op && text == op; }
  bool is_keyword(const char* keyword) const {
    return kind == TokenKind::Keyword && text == keyword;
  }
};

// Tokenizes all of `file`. The indentation of the first non-blank line is level 0, so a
// kernel cut out of a class or function (inspect.getsource) lexes as if it were at the top.
// The token list always ends with NEWLINE (when the last line has tokens), the DEDENTs
// back to level 0, and End. Throws CompileError.
std::vector<Token> tokenize(const SourceFile& file);

// "'x'", "end of line", "end of input", ...: how a token is named in a syntax error.
std::string describe(const Token& token);

}  // namespace tritium
