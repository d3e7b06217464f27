// Unit tests of the Python tokenizer (src/frontend/lexer.h): literals of every base, strings,
// operators, indentation, line joins, locations, and located errors for malformed input.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frontend/lexer.h"
#include "tritium/errors.h"

using tritium::CompileError;
using tritium::SourceFile;
using tritium::Token;
using tritium::TokenKind;

namespace {

// Keeps the SourceFile alive as long as the tokens that point into it.
struct Lexed {
  std::shared_ptr<SourceFile> file;
  std::vector<Token> tokens;
};

Lexed lex(const std::string& text, int first_line = 1) {
  Lexed lexed;
  lexed.file = std::make_shared<SourceFile>("test.py", text, first_line);
  lexed.tokens = tritium::tokenize(*lexed.file);
  return lexed;
}

// One word per token: the spelling of names, keywords and operators, NEWLINE / INDENT /
// DEDENT / END, and INT / FLOAT / STR for literals.
std::string shape(const std::string& text) {
  std::string out;
  for (const Token& token : lex(text).tokens) {
    if (!out.empty()) out += ' ';
    switch (token.kind) {
      case TokenKind::Name:
      case TokenKind::Keyword:
      case TokenKind::Op: out += token.text; break;
      case TokenKind::Int: out += "INT"; break;
      case TokenKind::Float: out += "FLOAT"; break;
      case TokenKind::String: out += "STR"; break;
      case TokenKind::Newline: out += "NEWLINE"; break;
      case TokenKind::Indent: out += "INDENT"; break;
      case TokenKind::Dedent: out += "DEDENT"; break;
      case TokenKind::End: out += "END"; break;
    }
  }
  return out;
}

// The single literal token of `text` (the first token).
Token first_token(const std::string& text) { return lex(text).tokens.at(0); }

unsigned __int128 int_of(const std::string& text) {
  Token token = first_token(text);
  REQUIRE(token.kind == TokenKind::Int);
  return token.int_value;
}

double float_of(const std::string& text) {
  Token token = first_token(text);
  REQUIRE(token.kind == TokenKind::Float);
  return token.float_value;
}

std::string str_of(const std::string& text) {
  Token token = first_token(text);
  REQUIRE(token.kind == TokenKind::String);
  return token.str_value;
}

struct ErrorAt {
  std::string message;
  int line = 0;
  int col = 0;
};

ErrorAt lex_error(const std::string& text, int first_line = 1) {
  try {
    lex(text, first_line);
  } catch (const CompileError& e) {
    return {e.message(), e.line(), e.col()};
  }
  FAIL("no CompileError for: " << text);
  return {};
}

}  // namespace

TEST_CASE("lexer: names, keywords and operators", "[lexer]") {
  CHECK(shape("def f(a, b): return a**b // 2") ==
        "def f ( a , b ) : return a ** b // INT NEWLINE END");
  CHECK(shape("x **= y //= z >>= w <<= v @= u") == "x **= y //= z >>= w <<= v @= u NEWLINE END");
  CHECK(shape("a -> b := c ... d != e == f <= g >= h") ==
        "a -> b := c ... d != e == f <= g >= h NEWLINE END");
  CHECK(shape("a+=1;b-=2;c*=3;d/=4;e%=5;f&=6;g|=7;h^=8") ==
        "a += INT ; b -= INT ; c *= INT ; d /= INT ; e %= INT ; f &= INT ; g |= INT ; h ^= INT "
        "NEWLINE END");
  CHECK(shape("x[1:2, None] @ y.T ~z") == "x [ INT : INT , None ] @ y . T ~ z NEWLINE END");
  auto tokens = lex("if not x is None and lambda_ or match").tokens;
  CHECK(tokens[0].kind == TokenKind::Keyword);
  CHECK(tokens[1].kind == TokenKind::Keyword);
  CHECK(tokens[2].kind == TokenKind::Name);
  CHECK(tokens[4].kind == TokenKind::Keyword);  // None
  CHECK(tokens[6].kind == TokenKind::Name);     // lambda_ is a name
  CHECK(tokens[8].kind == TokenKind::Name);     // match is a soft keyword
}

TEST_CASE("lexer: integer literals of every base", "[lexer]") {
  CHECK(int_of("0") == 0);
  CHECK(int_of("00") == 0);
  CHECK(int_of("0_0") == 0);
  CHECK(int_of("1234567890") == 1234567890);
  CHECK(int_of("1_000_000") == 1000000);
  CHECK(int_of("0x1f") == 31);
  CHECK(int_of("0XFF_ff") == 0xFFFF);
  CHECK(int_of("0x_10") == 16);
  CHECK(int_of("0o17") == 15);
  CHECK(int_of("0O7_7") == 63);
  CHECK(int_of("0b1011") == 11);
  CHECK(int_of("0B1_0") == 2);
  unsigned __int128 max64 = ~static_cast<uint64_t>(0);
  CHECK(int_of("18446744073709551615") == max64);
  CHECK(int_of("0xffff_ffff_ffff_ffff") == max64);
  CHECK(int_of("0b" + std::string(64, '1')) == max64);
  CHECK(int_of("9223372036854775808") == (static_cast<unsigned __int128>(1) << 63));
  // CPython accepts a keyword right after a number.
  CHECK(shape("1if x else 2") == "INT if x else INT NEWLINE END");
}

TEST_CASE("lexer: integer literal errors", "[lexer]") {
  ErrorAt e = lex_error("x = 18446744073709551616");
  CHECK(e.message == "integer literal too large");
  CHECK(e.line == 1);
  CHECK(e.col == 5);
  CHECK(lex_error("y = 0x1_0000_0000_0000_0000").message == "integer literal too large");
  CHECK(lex_error("y = 99999999999999999999999999999999999999999999999").message ==
        "integer literal too large");
  CHECK(lex_error("x = 1__0").message == "invalid decimal literal");
  CHECK(lex_error("x = 1_").message == "invalid decimal literal");
  CHECK(lex_error("x = 1abc").message == "invalid decimal literal");
  CHECK(lex_error("x = 0b12").message == "invalid digit '2' in binary literal");
  CHECK(lex_error("x = 0o8").message == "invalid digit '8' in octal literal");
  CHECK(lex_error("x = 0x").message == "invalid hexadecimal literal");
  CHECK(lex_error("x = 0xg").message == "invalid hexadecimal literal");
  e = lex_error("x = 1\nx = 012");
  CHECK(e.message.find("leading zeros in decimal integer literals") == 0);
  CHECK(e.line == 2);
  CHECK(e.col == 5);
}

TEST_CASE("lexer: float literals", "[lexer]") {
  CHECK(float_of("1.5") == 1.5);
  CHECK(float_of("1.") == 1.0);
  CHECK(float_of(".5") == 0.5);
  CHECK(float_of("1e-3") == 0.001);
  CHECK(float_of("1E+3") == 1000.0);
  CHECK(float_of("2e10") == 2e10);
  CHECK(float_of("1_0.2_5") == 10.25);
  CHECK(float_of("1_0e1_0") == 10e10);
  CHECK(float_of("012.5") == 12.5);  // leading zeros are fine in floats
  CHECK(std::isinf(float_of("1e400")));
  CHECK(float_of("1e-400") == 0.0);
  CHECK(float_of("0." + std::string(400, '0') + "1") == 0.0);
  Token imaginary = first_token("2.5j");
  CHECK(imaginary.kind == TokenKind::Float);
  CHECK(imaginary.is_imaginary);
  CHECK(imaginary.float_value == 2.5);
  CHECK(shape("1..real") == "FLOAT . real NEWLINE END");
  CHECK(lex_error("x = 1._5").message == "invalid decimal literal");
  CHECK(lex_error("x = 1e5x").message == "invalid decimal literal");
}

TEST_CASE("lexer: strings", "[lexer]") {
  CHECK(str_of("'abc'") == "abc");
  CHECK(str_of("\"it's\"") == "it's");
  CHECK(str_of("'a\\'b'") == "a'b");
  CHECK(str_of("'\\n\\t\\\\\\x41\\101\\u00e9'") == "\n\t\\AA\xc3\xa9");
  CHECK(str_of("'\\q'") == "\\q");    // unknown escapes stay as written
  CHECK(str_of("'a\\\nb'") == "ab");  // backslash-newline continues the string
  CHECK(str_of("'''one\ntwo'''") == "one\ntwo");
  CHECK(str_of("\"\"\"a \"quoted\" word\"\"\"") == "a \"quoted\" word");
  CHECK(str_of("r'\\n\\''") == "\\n\\'");
  CHECK(str_of("R\"\\d+\"") == "\\d+");
  CHECK(str_of("u'x'") == "x");

  Token bytes = first_token("Rb'\\x00'");
  CHECK(bytes.is_bytes);
  CHECK(bytes.str_value == "\\x00");
  CHECK(first_token("bR'a'").is_bytes);
  CHECK(first_token("B'\\xff'").str_value == "\xff");

  Token fstring = first_token("f'{x}'");
  CHECK(fstring.kind == TokenKind::String);
  CHECK(fstring.is_fstring);
  CHECK(first_token("rF'{x}'").is_fstring);
  // Fields with nested quotes, format specs and doubled braces lex as one token.
  CHECK(shape("f\"{x['a']}\" + f'{v:>{width}}{{}}' + f\"{d[\"k\"]!r}\"") ==
        "STR + STR + STR NEWLINE END");
  CHECK(shape("f'''{\nx\n}'''") == "STR NEWLINE END");

  // A prefix is a prefix only right before a quote; other words are names.
  CHECK(shape("rb + fr + ub'x'") == "rb + fr + ub STR NEWLINE END");
}

TEST_CASE("lexer: string errors", "[lexer]") {
  ErrorAt e = lex_error("x = 1\ny = 'abc\nz = 2");
  CHECK(e.message == "unterminated string literal");
  CHECK(e.line == 2);
  CHECK(e.col == 5);
  e = lex_error("x = \"\"\"abc\n\n");
  CHECK(e.message == "unterminated triple-quoted string literal");
  CHECK(e.line == 1);
  CHECK(e.col == 5);
  CHECK(lex_error("x = 'abc\\").message == "unterminated string literal");
  CHECK(lex_error("x = '\\x4'").message == "truncated \\xXX escape");
  CHECK(lex_error("x = f'{x'").message.find("f-string") == 0);
  CHECK(lex_error("x = f'a}b'").message == "f-string: single '}' is not allowed");
  CHECK(shape("f'{x:{y:{z}}}'") == "STR NEWLINE END");
  CHECK(lex_error("x = f'{a:{b:{c:{d}}}}'").message == "f-string: expressions nested too deeply");
}

TEST_CASE("lexer: indentation", "[lexer]") {
  CHECK(shape("if x:\n    a\n    b\nc\n") ==
        "if x : NEWLINE INDENT a NEWLINE b NEWLINE DEDENT c NEWLINE END");
  CHECK(shape("if x:\n  if y:\n    a\nb") ==
        "if x : NEWLINE INDENT if y : NEWLINE INDENT a NEWLINE DEDENT DEDENT b NEWLINE END");
  // Blank lines and comment-only lines at any indentation do not count.
  CHECK(shape("if x:\n\n    a  # note\n# left\n        # right\n    b\n") ==
        "if x : NEWLINE INDENT a NEWLINE b NEWLINE DEDENT END");
  // The dedents at the end of input come without a trailing newline too.
  CHECK(shape("def f():\n    return 1") ==
        "def f ( ) : NEWLINE INDENT return INT NEWLINE DEDENT END");
  CHECK(shape("if x:\n\ta\n\tb\n") == "if x : NEWLINE INDENT a NEWLINE b NEWLINE DEDENT END");
  CHECK(shape("") == "END");
  CHECK(shape("\n\n# only a comment\n") == "END");
}

TEST_CASE("lexer: indentation errors", "[lexer]") {
  ErrorAt e = lex_error("if x:\n        a\n    b\n");
  CHECK(e.message == "unindent does not match any outer indentation level");
  CHECK(e.line == 3);
  CHECK(e.col == 5);
  e = lex_error("if x:\n\ta\n        b\n");
  CHECK(e.message == "inconsistent use of tabs and spaces in indentation");
  CHECK(e.line == 3);
  CHECK(e.col == 9);
  e = lex_error("    x = 1\n  y = 2\n", 7);
  CHECK(e.message.find("indented less than the first line") != std::string::npos);
  CHECK(e.line == 8);
  CHECK(e.col == 3);
}

TEST_CASE("lexer: a source indented as a whole starts at level 0", "[lexer]") {
  CHECK(shape("\n    @jit\n    def f():\n        pass\n\n    # end\n") ==
        "@ jit NEWLINE def f ( ) : NEWLINE INDENT pass NEWLINE DEDENT END");
}

TEST_CASE("lexer: implicit and explicit line joins", "[lexer]") {
  CHECK(shape("f(a,\n  b,\n\n    # c\n c)\nd") == "f ( a , b , c ) NEWLINE d NEWLINE END");
  CHECK(shape("x = [1,\n2]\n") == "x = [ INT , INT ] NEWLINE END");
  CHECK(shape("x = a + \\\n    b\ny") == "x = a + b NEWLINE y NEWLINE END");
  CHECK(shape("x = a + \\\r\n    b\r\n") == "x = a + b NEWLINE END");
  ErrorAt e = lex_error("x = a \\ b");
  CHECK(e.message == "unexpected character after line continuation character");
  CHECK(e.col == 7);
  CHECK(lex_error("x = a \\").message.find("unexpected end of input") == 0);
}

TEST_CASE("lexer: locations are real lines and 1-based columns", "[lexer]") {
  Lexed lexed = lex("a = 1\n\n  # c\nbb = (x,\n      y)\n", 40);
  const std::vector<Token>& t = lexed.tokens;
  REQUIRE(t.size() >= 12);
  CHECK(t[0].loc.line == 40);
  CHECK(t[0].loc.col == 1);
  CHECK(t[2].loc.col == 5);  // 1
  CHECK(t[3].kind == TokenKind::Newline);
  CHECK(t[3].loc.col == 6);  // the end of line 40
  CHECK(t[4].text == "bb");
  CHECK(t[4].loc.line == 43);
  CHECK(t[9].text == "y");
  CHECK(t[9].loc.line == 44);
  CHECK(t[9].loc.col == 7);
  CHECK(t[4].loc.file == lexed.file.get());
  // A multi-line string does not disturb the lines after it.
  Lexed after = lex("s = '''a\nb\nc'''\nz\n");
  CHECK(after.tokens[4].text == "z");
  CHECK(after.tokens[4].loc.line == 4);
}

TEST_CASE("lexer: stray characters and brackets are located errors", "[lexer]") {
  ErrorAt e = lex_error("x = 1\ny = a $ b");
  CHECK(e.message == "invalid character '$'");
  CHECK(e.line == 2);
  CHECK(e.col == 7);
  CHECK(lex_error("x = a ? b").message == "invalid character '?'");
  CHECK(lex_error("x = !a").message == "invalid character '!'");
  CHECK(lex_error("x = `a`").message == "invalid character '`'");
  CHECK(lex_error(std::string("x = a\x01")).message == "invalid character (byte 0x01)");
  e = lex_error(std::string("x = 1\0", 6));
  CHECK(e.message == "source contains a null byte");
  CHECK(e.col == 6);
  e = lex_error("x = (1,\n  2]");
  CHECK(e.message == "closing parenthesis ']' does not match opening parenthesis '('");
  CHECK(e.line == 2);
  CHECK(e.col == 4);
  e = lex_error("x = 1)");
  CHECK(e.message == "unmatched ')'");
  CHECK(e.col == 6);
  e = lex_error("x = [(1,\n");
  CHECK(e.message == "'(' was never closed");
  CHECK(e.line == 1);
  CHECK(e.col == 6);
  CHECK(lex_error(std::string(300, '(')).message == "too many nested parentheses");
}

TEST_CASE("lexer: never crashes or hangs on arbitrary bytes", "[lexer]") {
  const std::string kernel =
      "@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n    o = tl.arange(0, B)  # c\n"
      "    s = f'{o!r:>{n}}' + r'\\'' + '''t\n'''\n    if n > 0x1F and 1.5e-3:\n"
      "        tl.store(x_ptr + o, \\\n            o, mask=o < n)\n";
  // Every prefix of a kernel, and random byte soup, either lexes or raises CompileError.
  for (size_t length = 0; length <= kernel.size(); ++length) {
    try {
      lex(kernel.substr(0, length));
    } catch (const CompileError&) {
    }
  }
  std::mt19937 random(12345);
  const std::string alphabet = "\"'\\\n\t ([{}]):#fbrx0123456789._eEjJ+-*/<>=!@~%&|^;,\x80\x01\r";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    int length = static_cast<int>(random() % 40);
    for (int i = 0; i < length; ++i) text += alphabet[random() % alphabet.size()];
    try {
      lex(text);
    } catch (const CompileError&) {
    }
  }
  SUCCEED();
}
