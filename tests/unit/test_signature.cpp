// The signature's canonical text and parser (src/lower/signature.h) and the text of
// compile-time values (src/lower/const_value.h).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "lower/const_value.h"
#include "lower/signature.h"
#include "tritium/errors.h"

using tritium::ConstValue;
using tritium::ParamSig;
using tritium::Signature;
using tritium::ir::ScalarKind;

namespace {

std::string roundtrip(const std::string& text, const std::vector<std::string>& names,
                      const std::vector<bool>& is_constexpr) {
  return tritium::parse_signature(text, names, is_constexpr).str(names);
}

std::string parse_error(const std::string& text, const std::vector<std::string>& names,
                        const std::vector<bool>& is_constexpr) {
  try {
    tritium::parse_signature(text, names, is_constexpr);
  } catch (const tritium::CompileError& e) {
    return e.message();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("ConstValue prints like Python's repr", "[signature]") {
  CHECK(ConstValue::none().str() == "None");
  CHECK(ConstValue::boolean(true).str() == "True");
  CHECK(ConstValue::boolean(false).str() == "False");
  CHECK(ConstValue::integer(1024).str() == "1024");
  CHECK(ConstValue::integer(-7).str() == "-7");
  CHECK(ConstValue::type(ScalarKind::F16).str() == "fp16");
  CHECK(ConstValue::type(ScalarKind::BF16).str() == "bf16");
  CHECK(ConstValue::string("relu").str() == "'relu'");
  CHECK(ConstValue::string("it's").str() == "\"it's\"");
  CHECK(ConstValue::string("a\\b").str() == "'a\\\\b'");
}

TEST_CASE("floats print as Python's shortest round-trip repr", "[signature]") {
  CHECK(ConstValue::floating(1.5).str() == "1.5");
  CHECK(ConstValue::floating(2.0).str() == "2.0");
  CHECK(ConstValue::floating(0.1).str() == "0.1");
  CHECK(ConstValue::floating(-0.0).str() == "-0.0");
  CHECK(ConstValue::floating(0.0).str() == "0.0");
  CHECK(ConstValue::floating(1e-5).str() == "1e-05");
  CHECK(ConstValue::floating(0.0001).str() == "0.0001");
  CHECK(ConstValue::floating(1e16).str() == "1e+16");
  CHECK(ConstValue::floating(1e15).str() == "1000000000000000.0");
  CHECK(ConstValue::floating(123456789.125).str() == "123456789.125");
  CHECK(ConstValue::floating(1.5e300).str() == "1.5e+300");
  CHECK(ConstValue::floating(2.5e-300).str() == "2.5e-300");
  CHECK(ConstValue::floating(1.0 / 3).str() == "0.3333333333333333");
  CHECK(ConstValue::floating(std::numeric_limits<double>::infinity()).str() == "inf");
  CHECK(ConstValue::floating(-std::numeric_limits<double>::infinity()).str() == "-inf");
  CHECK(ConstValue::floating(std::numeric_limits<double>::quiet_NaN()).str() == "nan");
}

TEST_CASE("128-bit integers print in decimal", "[signature]") {
  CHECK(tritium::int128_to_string(0) == "0");
  CHECK(tritium::int128_to_string(-1) == "-1");
  __int128 big = static_cast<__int128>(1) << 64;
  CHECK(tritium::int128_to_string(big) == "18446744073709551616");
  __int128 min = -(static_cast<__int128>(1) << 126) * 2;
  CHECK(tritium::int128_to_string(min) == "-170141183460469231731687303715884105728");
  CHECK(ConstValue::integer(big).str() == "18446744073709551616");
}

TEST_CASE("ConstValue equality", "[signature]") {
  CHECK(ConstValue::integer(3) == ConstValue::integer(3));
  CHECK_FALSE(ConstValue::integer(1) == ConstValue::boolean(true));
  CHECK_FALSE(ConstValue::floating(0.0) == ConstValue::floating(-0.0));
  CHECK(ConstValue::floating(std::nan("")) == ConstValue::floating(std::nan("")));
  CHECK(ConstValue::string("a") == ConstValue::string("a"));
  CHECK_FALSE(ConstValue::type(ScalarKind::F16) == ConstValue::type(ScalarKind::BF16));
  CHECK(ConstValue::none() == ConstValue::none());
}

TEST_CASE("the canonical signature text", "[signature]") {
  Signature sig;
  auto ptr = [](ScalarKind k, int div) {
    ParamSig p;
    p.kind = ParamSig::Kind::Pointer;
    p.dtype = k;
    p.divisibility = div;
    return p;
  };
  auto scalar = [](ScalarKind k, int div) {
    ParamSig p;
    p.kind = ParamSig::Kind::Scalar;
    p.dtype = k;
    p.divisibility = div;
    return p;
  };
  auto constant = [](ConstValue v, bool is_constexpr) {
    ParamSig p;
    p.kind = ParamSig::Kind::Constant;
    p.value = v;
    p.is_constexpr = is_constexpr;
    return p;
  };
  sig.params = {ptr(ScalarKind::F32, 16),
                ptr(ScalarKind::F32, 1),
                scalar(ScalarKind::I32, 16),
                scalar(ScalarKind::I64, 1),
                scalar(ScalarKind::U64, 1),
                scalar(ScalarKind::F32, 1),
                scalar(ScalarKind::I1, 1),
                constant(ConstValue::integer(1), false),
                constant(ConstValue::none(), false),
                constant(ConstValue::integer(1024), true)};
  std::vector<std::string> names = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "BLOCK"};
  const std::string text = "*fp32:16, *fp32, i32:16, i64, u64, fp32, i1, 1, None, BLOCK=1024";
  CHECK(sig.str(names) == text);

  std::vector<bool> is_constexpr(10, false);
  is_constexpr[9] = true;
  Signature parsed = tritium::parse_signature(text, names, is_constexpr);
  CHECK(parsed == sig);
  CHECK(parsed.str(names) == text);
}

TEST_CASE("signature parsing: forms, names and order", "[signature]") {
  std::vector<std::string> names = {"x", "y", "n", "BLOCK"};
  std::vector<bool> cx = {false, false, false, true};
  CHECK(roundtrip("*fp16:16,*bf16,i32,BLOCK=128", names, cx) == "*fp16:16, *bf16, i32, BLOCK=128");
  // A bare value for a constexpr parameter; NAME=value anywhere; long dtype names.
  CHECK(roundtrip("*float32, *tl.float16, int64:16, 64", names, cx) ==
        "*fp32, *fp16, i64:16, BLOCK=64");
  CHECK(roundtrip("BLOCK=256, *fp32, *fp32, 1", names, cx) == "*fp32, *fp32, 1, BLOCK=256");
  CHECK(roundtrip("*fp32, y=None, n=i32:16, BLOCK=1024", names, cx) ==
        "*fp32, None, i32:16, BLOCK=1024");

  // Constexpr values of every kind.
  std::vector<std::string> one = {"V"};
  std::vector<bool> yes = {true};
  CHECK(roundtrip("V=1.5", one, yes) == "V=1.5");
  CHECK(roundtrip("V=True", one, yes) == "V=True");
  CHECK(roundtrip("V=None", one, yes) == "V=None");
  CHECK(roundtrip("V='relu'", one, yes) == "V='relu'");
  CHECK(roundtrip("V=\"a,b\"", one, yes) == "V='a,b'");
  CHECK(roundtrip("V=tl.float16", one, yes) == "V=fp16");
  CHECK(roundtrip("V=0x10", one, yes) == "V=16");
  CHECK(roundtrip("V=-3", one, yes) == "V=-3");
  CHECK(roundtrip("V=1e-5", one, yes) == "V=1e-05");
  CHECK(roundtrip("V=18446744073709551616", one, yes) == "V=18446744073709551616");

  // No parameters, empty text.
  CHECK(tritium::parse_signature("", {}, {}).params.empty());
  CHECK(tritium::parse_signature("  ", {}, {}).params.empty());
}

TEST_CASE("signature parsing: errors name the entry", "[signature]") {
  std::vector<std::string> names = {"x", "n", "BLOCK"};
  std::vector<bool> cx = {false, false, true};
  CHECK_THAT(parse_error("*fp32, i32", names, cx),
             Catch::Contains("no entry for parameter 'BLOCK'"));
  CHECK_THAT(parse_error("*fp32, i32, 4, 5", names, cx), Catch::Contains("too many entries"));
  CHECK_THAT(parse_error("*fp32, i32, BLOCK=4, BLOCK=5", names, cx),
             Catch::Contains("given twice"));
  CHECK_THAT(parse_error("*fp32, i32, BLOK=4", names, cx), Catch::Contains("no parameter 'BLOK'"));
  CHECK_THAT(parse_error("*f32, i32, 4", names, cx), Catch::Contains("unknown pointee type 'f32'"));
  CHECK_THAT(parse_error("*fp32, fp32:16, 4", names, cx),
             Catch::Contains("only to pointers and integers"));
  CHECK_THAT(parse_error("*fp32, i32:8, 4", names, cx), Catch::Contains("':16'"));
  CHECK_THAT(parse_error("*fp32, i32, *fp32", names, cx), Catch::Contains("needs a value"));
  CHECK_THAT(parse_error("*fp32, ,i32, 4", names, cx), Catch::Contains("empty entry"));
  CHECK_THAT(parse_error("*fp32, i32, BLOCK='open", names, cx),
             Catch::Contains("unterminated string"));
  CHECK_THAT(parse_error("*fp32, i32, 999999999999999999999999999999999999999999", names, cx),
             Catch::Contains("out of range"));
  CHECK_THAT(parse_error("*fp32, blah, 4", names, cx), Catch::Contains("expected a type"));
  CHECK_THAT(parse_error("*fp32, i32, BLOCK=", names, cx), Catch::Contains("no value"));
  // Errors carry no location: the text is not kernel source.
  try {
    tritium::parse_signature("*fp32", names, cx);
    FAIL("expected an error");
  } catch (const tritium::CompileError& e) {
    CHECK(e.line() == 0);
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("error: bad signature"));
  }
}

TEST_CASE("ParamSig equality ignores fields its kind does not use", "[signature]") {
  ParamSig a, b;
  a.kind = b.kind = ParamSig::Kind::Constant;
  a.value = b.value = ConstValue::integer(1);
  a.dtype = ScalarKind::F32;
  b.dtype = ScalarKind::I64;
  CHECK(a == b);
  b.is_constexpr = true;
  CHECK_FALSE(a == b);
  ParamSig p, q;
  p.kind = q.kind = ParamSig::Kind::Pointer;
  p.dtype = q.dtype = ScalarKind::F16;
  q.divisibility = 16;
  CHECK_FALSE(p == q);
}

TEST_CASE("tuple entries: text, parsing and leaves", "[signature]") {
  const std::vector<std::string> names = {"t", "n"};
  const std::vector<bool> cx = {false, false};
  // Canonical text parses back to itself, nested tuples and constexpr elements included.
  for (const char* text : {"(*fp32:16, i32, 1), i64", "((*fp16, (i32:16, constexpr(3))), constexpr('relu')), 1",
                           "(fp32,), i32", "(), i32", "(None, constexpr(fp16), i1), u64"}) {
    CHECK(roundtrip(text, names, cx) == text);
  }
  Signature sig = tritium::parse_signature("((*fp16, (i32:16, constexpr(3))), 1), n=i32", names, cx);
  REQUIRE(sig.params[0].kind == ParamSig::Kind::Tuple);
  REQUIRE(sig.params[0].elements.size() == 2);
  std::vector<const ParamSig*> leaves;
  sig.params[0].leaves(&leaves);
  REQUIRE(leaves.size() == 4);  // *fp16, i32:16, constexpr(3), 1: folded leaves count too
  CHECK(leaves[0]->kind == ParamSig::Kind::Pointer);
  CHECK(leaves[1]->divisibility == 16);
  CHECK((leaves[2]->kind == ParamSig::Kind::Constant && leaves[2]->is_constexpr));
  CHECK((leaves[3]->kind == ParamSig::Kind::Constant && !leaves[3]->is_constexpr));
  // Equality looks at the elements.
  Signature other = tritium::parse_signature("((*fp16, (i32, constexpr(3))), 1), i32", names, cx);
  CHECK_FALSE(sig == other);
  CHECK(sig == tritium::parse_signature("((*fp16, (i32:16, constexpr(3))), 1), i32", names, cx));
  CHECK_THAT(parse_error("(*fp32, i32, n=i32", names, cx), Catch::Contains("a tuple is written"));
  CHECK_THAT(parse_error("(*fp32, constexpr()), i32", names, cx), Catch::Contains("constexpr(...) needs a value"));
}
