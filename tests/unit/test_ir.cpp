// Unit tests of the tile IR: type interning and names, the printer's exact text, and the
// verifier accepting good IR and rejecting each kind of bad IR with a message naming the op.
#include <catch2/catch.hpp>

#include <set>
#include <thread>

#include "ir/attrs.h"
#include "ir/builder.h"
#include "ir/op_views.h"
#include "ir/ir.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tritium/errors.h"

using namespace tritium;
using namespace tritium::ir;

namespace {

const Type* i1() { return Type::scalar(ScalarKind::I1); }
const Type* i32() { return Type::scalar(ScalarKind::I32); }
const Type* i64() { return Type::scalar(ScalarKind::I64); }
const Type* f32() { return Type::scalar(ScalarKind::F32); }
const Type* ptr(const Type* t) { return Type::pointer(t); }
const Type* block(const Type* t, std::vector<int64_t> shape) { return Type::block(t, shape); }

Value* add_param(Function& fn, const std::string& name, const Type* type, int64_t divisibility = 1) {
  Value* arg = fn.body().add_arg(type);
  Param param;
  param.name = name;
  param.arg = arg;
  param.facts.divisibility = divisibility;
  fn.params().push_back(param);
  return arg;
}

void add_folded(Function& fn, const std::string& name, const std::string& value) {
  Param param;
  param.name = name;
  param.folded = value;
  fn.params().push_back(param);
}

Value* op_with(Builder& b, OpKind kind, const Type* type, std::vector<Value*> operands,
               std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
  Value* v = b.create_value(kind, type, operands, Loc{});
  for (auto& [name, value] : attrs) v->def()->set_attr(name, value);
  return v;
}

// The triton tutorial's vector add, specialized: x, y, out pointers aligned, n % 16 == 0,
// BLOCK folded to 1024.
struct VectorAdd {
  Function fn{"add_kernel", Loc{}};
  Value* x;
  Value* y;
  Value* out;
  Value* n;

  VectorAdd() {
    x = add_param(fn, "x_ptr", ptr(f32()), 16);
    y = add_param(fn, "y_ptr", ptr(f32()), 16);
    out = add_param(fn, "out_ptr", ptr(f32()), 16);
    n = add_param(fn, "n", i32());
    add_folded(fn, "BLOCK", "1024");
    Builder b(&fn.body());
    const Type* bi32 = block(i32(), {1024});
    Value* pid = op_with(b, OpKind::ProgramId, i32(), {}, {{"axis", int64_t{0}}});
    Value* c = b.int_constant(i32(), 1024, Loc{});
    Value* start = op_with(b, OpKind::Mul, i32(), {pid, c});
    Value* range = op_with(b, OpKind::MakeRange, bi32, {}, {{"start", int64_t{0}}, {"end", int64_t{1024}}});
    Value* offs = op_with(b, OpKind::Add, bi32, {op_with(b, OpKind::Splat, bi32, {start}), range});
    Value* mask = op_with(b, OpKind::Cmp, block(i1(), {1024}), {offs, op_with(b, OpKind::Splat, bi32, {n})},
                          {{"predicate", std::string("lt")}});
    const Type* bptr = block(ptr(f32()), {1024});
    Value* xp = op_with(b, OpKind::AddPtr, bptr, {op_with(b, OpKind::Splat, bptr, {x}), offs});
    Value* yp = op_with(b, OpKind::AddPtr, bptr, {op_with(b, OpKind::Splat, bptr, {y}), offs});
    Value* xv = op_with(b, OpKind::Load, block(f32(), {1024}), {xp, mask});
    Value* yv = op_with(b, OpKind::Load, block(f32(), {1024}), {yp, mask});
    Value* sum = op_with(b, OpKind::Add, block(f32(), {1024}), {xv, yv});
    Value* op = op_with(b, OpKind::AddPtr, bptr, {op_with(b, OpKind::Splat, bptr, {out}), offs});
    b.create(OpKind::Store, {}, {op, sum, mask}, Loc{});
    b.create(OpKind::Return, {}, {}, Loc{});
  }
};

// Expects verify() to throw an InternalError whose message has every one of `parts`.
void expect_rejected(const Function& fn, const std::vector<std::string>& parts) {
  try {
    verify(fn, "test_pass");
    FAIL("verifier accepted bad IR:\n" << print(fn));
  } catch (const InternalError& e) {
    std::string message = e.what();
    INFO(message);
    CHECK(message.find("after test_pass") != std::string::npos);
    for (const std::string& part : parts) CHECK(message.find(part) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("types are interned", "[ir][types]") {
  CHECK(Type::scalar(ScalarKind::I32) == Type::scalar(ScalarKind::I32));
  CHECK(Type::scalar(ScalarKind::I32) != Type::scalar(ScalarKind::U32));
  CHECK(ptr(f32()) == ptr(f32()));
  CHECK(ptr(f32()) != ptr(i32()));
  CHECK(block(f32(), {128, 64}) == block(f32(), {128, 64}));
  CHECK(block(f32(), {128, 64}) != block(f32(), {64, 128}));
  CHECK(block(ptr(f32()), {8}) == block(ptr(f32()), {8}));
  CHECK(block(f32(), {4, 8})->with_element(i1()) == block(i1(), {4, 8}));
  CHECK(f32()->with_element(i1()) == i1());
  CHECK(block(f32(), {4, 8})->num_elements() == 32);
  CHECK(block(ptr(f32()), {8})->is_ptr());
  CHECK(block(i1(), {8})->is_bool());
  CHECK(block(i1(), {8})->is_int());
  CHECK(block(f32(), {8})->element() == f32());
}

TEST_CASE("types are interned consistently across threads", "[ir][types]") {
  std::vector<std::vector<const Type*>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &seen] {
      for (int64_t d = 1; d <= 200; ++d) seen[t].push_back(Type::block(Type::pointer(Type::scalar(ScalarKind::F16)), {d, 3}));
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 1; t < 4; ++t) CHECK(seen[t] == seen[0]);
  CHECK(std::set<const Type*>(seen[0].begin(), seen[0].end()).size() == 200);
}

TEST_CASE("scalar names and type strings", "[ir][types]") {
  CHECK(std::string(scalar_name(ScalarKind::BF16)) == "bf16");
  CHECK(bit_width(ScalarKind::I1) == 1);
  CHECK(bit_width(ScalarKind::F16) == 16);
  CHECK(is_integer(ScalarKind::I1));
  CHECK_FALSE(is_signed(ScalarKind::I1));
  CHECK_FALSE(is_signed(ScalarKind::U32));
  CHECK(is_signed(ScalarKind::I8));
  CHECK(is_float(ScalarKind::BF16));
  CHECK_FALSE(is_signed(ScalarKind::F32));

  const std::vector<std::pair<std::string, ScalarKind>> names = {
      {"i1", ScalarKind::I1},       {"int1", ScalarKind::I1},      {"bool", ScalarKind::I1},
      {"i8", ScalarKind::I8},       {"int8", ScalarKind::I8},      {"i16", ScalarKind::I16},
      {"int32", ScalarKind::I32},   {"i64", ScalarKind::I64},      {"int64", ScalarKind::I64},
      {"u8", ScalarKind::U8},       {"uint8", ScalarKind::U8},     {"uint16", ScalarKind::U16},
      {"u32", ScalarKind::U32},     {"uint64", ScalarKind::U64},   {"fp16", ScalarKind::F16},
      {"float16", ScalarKind::F16}, {"bf16", ScalarKind::BF16},    {"bfloat16", ScalarKind::BF16},
      {"fp32", ScalarKind::F32},    {"float32", ScalarKind::F32},  {"fp64", ScalarKind::F64},
      {"float64", ScalarKind::F64},
  };
  for (const auto& [name, kind] : names) {
    ScalarKind parsed = ScalarKind::I64;
    INFO(name);
    CHECK(parse_scalar_name(name, &parsed));
    CHECK(parsed == kind);
  }
  ScalarKind unused;
  CHECK_FALSE(parse_scalar_name("float", &unused));
  CHECK_FALSE(parse_scalar_name("i128", &unused));

  CHECK(i32()->str() == "i32");
  CHECK(ptr(f32())->str() == "ptr<fp32>");
  CHECK(block(Type::scalar(ScalarKind::F16), {128, 64})->str() == "block<128x64xfp16>");
  CHECK(block(ptr(f32()), {128})->str() == "block<128xptr<fp32>>");
}

TEST_CASE("attributes stay sorted and typed", "[ir]") {
  Op op(OpKind::MakeRange, Loc{});
  op.set_attr("start", int64_t{0});
  op.set_attr("end", int64_t{8});
  op.set_attr("start", int64_t{2});
  REQUIRE(op.attrs().size() == 2);
  CHECK(op.attrs()[0].name == "end");
  CHECK(op.int_attr("start") == 2);
  CHECK_THROWS_AS(op.float_attr("start"), InternalError);
  CHECK_THROWS_AS(op.int_attr("missing"), InternalError);
  CHECK(std::string(op_name(OpKind::AtomicRMW)) == "atomic_rmw");
  CHECK(has_trait(OpKind::Add, kCommutative));
  CHECK_FALSE(has_trait(OpKind::Sub, kCommutative));
  CHECK(has_trait(OpKind::Yield, kTerminator));
}

TEST_CASE("floats print shortest and round-trip", "[ir][printer]") {
  CHECK(format_float(1.5) == "1.5");
  CHECK(format_float(1e-6) == "1e-06");
  CHECK(format_float(2.0) == "2.0");
  CHECK(format_float(0.1) == "0.1");
  CHECK(format_float(INFINITY) == "inf");
  CHECK(format_float(-INFINITY) == "-inf");
  CHECK(format_float(NAN) == "nan");
  CHECK(std::stod(format_float(0.1f)) == static_cast<double>(0.1f));
  CHECK(format_attr(AttrValue(std::vector<int64_t>{1, 2})) == "[1, 2]");
  CHECK(format_attr(AttrValue(std::string("lt"))) == "\"lt\"");
}

TEST_CASE("the printer's text is exact", "[ir][printer]") {
  VectorAdd k;
  const char* expected =
      "func @add_kernel(%x_ptr: ptr<fp32> {divisibility = 16}, %y_ptr: ptr<fp32> {divisibility = 16}, "
      "%out_ptr: ptr<fp32> {divisibility = 16}, %n: i32) [BLOCK = 1024] {\n"
      "  %0 = program_id {axis = 0} : i32\n"
      "  %1 = constant {value = 1024} : i32\n"
      "  %2 = mul %0, %1 : i32\n"
      "  %3 = make_range {end = 1024, start = 0} : block<1024xi32>\n"
      "  %4 = splat %2 : block<1024xi32>\n"
      "  %5 = add %4, %3 : block<1024xi32>\n"
      "  %6 = splat %n : block<1024xi32>\n"
      "  %7 = cmp %5, %6 {predicate = \"lt\"} : block<1024xi1>\n"
      "  %8 = splat %x_ptr : block<1024xptr<fp32>>\n"
      "  %9 = addptr %8, %5 : block<1024xptr<fp32>>\n"
      "  %10 = splat %y_ptr : block<1024xptr<fp32>>\n"
      "  %11 = addptr %10, %5 : block<1024xptr<fp32>>\n"
      "  %12 = load %9, %7 : block<1024xfp32>\n"
      "  %13 = load %11, %7 : block<1024xfp32>\n"
      "  %14 = add %12, %13 : block<1024xfp32>\n"
      "  %15 = splat %out_ptr : block<1024xptr<fp32>>\n"
      "  %16 = addptr %15, %5 : block<1024xptr<fp32>>\n"
      "  store %16, %14, %7\n"
      "  return\n"
      "}\n";
  CHECK(print(k.fn) == expected);
  CHECK_NOTHROW(verify(k.fn, "test_pass"));
  // One op for messages, numbered as in the function.
  const Op& store = *k.fn.body().ops()[17];
  CHECK(print(store, &k.fn) == "store %16, %14, %7");
  CHECK(print(*k.fn.body().ops()[6], &k.fn) == "%6 = splat %n : block<1024xi32>");
}

TEST_CASE("regions print their arguments and bodies", "[ir][printer]") {
  SourceFile file("k.py", "a\nb\nc\n");
  Function fn("loop", Loc{&file, 1, 1});
  Value* n = add_param(fn, "n", i32());
  Builder b(&fn.body());
  Value* zero = b.int_constant(i32(), 0, Loc{&file, 2, 5});
  Value* one = b.int_constant(i32(), 1, Loc{&file, 2, 9});
  Value* acc = b.float_constant(f32(), 0.5, Loc{&file, 2, 13});
  Op* loop = b.create(OpKind::For, {f32()}, {zero, n, one, acc}, Loc{&file, 3, 3});
  Region* body = loop->add_region();
  Value* iv = body->add_arg(i32());
  Value* carried = body->add_arg(f32());
  Builder inner(body);
  Value* f = op_with(inner, OpKind::Cast, f32(), {iv});
  Value* next = op_with(inner, OpKind::Add, f32(), {carried, f});
  inner.create(OpKind::Yield, {}, {next}, Loc{&file, 3, 3});
  Value* cond = op_with(b, OpKind::Cmp, i1(), {n, zero}, {{"predicate", std::string("gt")}});
  Op* branch = b.create(OpKind::If, {f32()}, {cond}, Loc{&file, 3, 3});
  Builder then_b(branch->add_region());
  then_b.create(OpKind::Yield, {}, {loop->result()}, Loc{});
  Builder else_b(branch->add_region());
  Value* tiny = else_b.float_constant(f32(), 1e-6, Loc{});
  else_b.create(OpKind::Yield, {}, {tiny}, Loc{});
  b.create(OpKind::Return, {}, {}, Loc{&file, 3, 3});
  const char* expected =
      "func @loop(%n: i32) {\n"
      "  %0 = constant {value = 0} : i32\n"
      "  %1 = constant {value = 1} : i32\n"
      "  %2 = constant {value = 0.5} : fp32\n"
      "  %3 = for %0, %n, %1, %2 -> fp32 {\n"
      "  ^(%4: i32, %5: fp32):\n"
      "    %6 = cast %4 : fp32\n"
      "    %7 = add %5, %6 : fp32\n"
      "    yield %7\n"
      "  }\n"
      "  %8 = cmp %n, %0 {predicate = \"gt\"} : i1\n"
      "  %9 = if %8 -> fp32 {\n"
      "    yield %3\n"
      "  } else {\n"
      "    %10 = constant {value = 1e-06} : fp32\n"
      "    yield %10\n"
      "  }\n"
      "  return\n"
      "}\n";
  CHECK(print(fn) == expected);
  CHECK_NOTHROW(verify(fn, "test_pass"));
  std::string with_locs = print(fn, true);
  CHECK(with_locs.find("  %0 = constant {value = 0} : i32  loc(2:5)\n") != std::string::npos);
  CHECK(with_locs.find("  %3 = for %0, %n, %1, %2 -> fp32 {  loc(3:3)\n") != std::string::npos);
  CHECK(print(*loop, &fn) == "%3 = for %0, %n, %1, %2 -> fp32 {...}");
}

TEST_CASE("builder normalizes constants", "[ir][builder]") {
  Function fn("k", Loc{});
  Builder b(&fn.body());
  Value* u8 = b.int_constant(Type::scalar(ScalarKind::U8), -1, Loc{});
  CHECK(u8->def()->int_attr("value") == 255);
  Value* i8 = b.int_constant(Type::scalar(ScalarKind::I8), 200, Loc{});
  CHECK(i8->def()->int_attr("value") == -56);
  Value* f = b.int_constant(block(f32(), {4}), 3, Loc{});
  CHECK(f->def()->float_attr("value") == 3.0);
  CHECK_THROWS_AS(b.float_constant(i32(), 1.0, Loc{}), InternalError);
}

TEST_CASE("the verifier accepts the while loop form", "[ir][verifier]") {
  Function fn("k", Loc{});
  Value* n = add_param(fn, "n", i32());
  Builder b(&fn.body());
  Op* loop = b.create(OpKind::While, {i32()}, {n}, Loc{});
  Region* before = loop->add_region();
  Value* x = before->add_arg(i32());
  Builder bb(before);
  Value* zero = bb.int_constant(i32(), 0, Loc{});
  Value* cond = op_with(bb, OpKind::Cmp, i1(), {x, zero}, {{"predicate", std::string("gt")}});
  bb.create(OpKind::Condition, {}, {cond, x}, Loc{});
  Region* after = loop->add_region();
  Value* y = after->add_arg(i32());
  Builder ab(after);
  Value* one = ab.int_constant(i32(), 1, Loc{});
  ab.create(OpKind::Yield, {}, {op_with(ab, OpKind::Sub, i32(), {y, one})}, Loc{});
  CHECK_NOTHROW(verify(fn, "test_pass"));
  CHECK(print(fn).find("} do {\n  ^(%4: i32):\n") != std::string::npos);

  // The after region cannot see the before region's values.
  ab.region()->ops().pop_back();
  ab.create(OpKind::Yield, {}, {x}, Loc{});
  expect_rejected(fn, {"'yield'", "before its definition or outside its region"});
}

TEST_CASE("the verifier rejects bad IR, naming the op", "[ir][verifier]") {
  // Each case breaks one op of the vector add; the message must name it.
  SECTION("binary operands of different types") {
    VectorAdd k;
    Op& add = *k.fn.body().ops()[14];
    add.set_operand(1, k.fn.body().ops()[5]->result());
    expect_rejected(k.fn, {"'add'", "different types", "%14 = add %12, %5"});
  }
  SECTION("cmp result not i1") {
    VectorAdd k;
    k.fn.body().ops()[7]->result()->set_type(block(i32(), {1024}));
    expect_rejected(k.fn, {"'cmp'", "the result"});
  }
  SECTION("unknown predicate") {
    VectorAdd k;
    k.fn.body().ops()[7]->set_attr("predicate", std::string("less"));
    expect_rejected(k.fn, {"'cmp'", "predicate"});
  }
  SECTION("addptr offset of pointers") {
    VectorAdd k;
    k.fn.body().ops()[9]->set_operand(1, k.fn.body().ops()[8]->result());
    expect_rejected(k.fn, {"'addptr'", "offset"});
  }
  SECTION("load result not the pointee") {
    VectorAdd k;
    k.fn.body().ops()[12]->result()->set_type(block(i32(), {1024}));
    expect_rejected(k.fn, {"'load'", "the result"});
  }
  SECTION("mask not i1 of the pointer's shape") {
    VectorAdd k;
    k.fn.body().ops()[12]->set_operand(1, k.fn.body().ops()[5]->result());
    expect_rejected(k.fn, {"'load'", "the mask"});
  }
  SECTION("store of the wrong value type") {
    VectorAdd k;
    k.fn.body().ops()[17]->set_operand(1, k.fn.body().ops()[5]->result());
    expect_rejected(k.fn, {"'store'", "stored value"});
  }
  SECTION("make_range of the wrong length") {
    VectorAdd k;
    k.fn.body().ops()[3]->set_attr("end", int64_t{512});
    expect_rejected(k.fn, {"'make_range'"});
  }
  SECTION("splat to the wrong element type") {
    VectorAdd k;
    k.fn.body().ops()[4]->result()->set_type(block(i64(), {1024}));
    expect_rejected(k.fn, {"'splat'"});
  }
  SECTION("use before definition") {
    VectorAdd k;
    k.fn.body().ops()[2]->set_operand(0, k.fn.body().ops()[14]->result());
    expect_rejected(k.fn, {"'mul'", "before its definition"});
  }
  SECTION("terminator not last") {
    VectorAdd k;
    Builder b(&k.fn.body());
    b.int_constant(i32(), 3, Loc{});
    expect_rejected(k.fn, {"'return'", "not the last op"});
  }
  SECTION("wrong operand count") {
    VectorAdd k;
    k.fn.body().ops()[14]->truncate_operands(k.fn.body().ops()[14]->num_operands() - 1);
    expect_rejected(k.fn, {"'add'", "expected 2 operands, got 1"});
  }
  SECTION("ints-only op on floats") {
    VectorAdd k;
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();  // the return
    Value* sum = k.fn.body().ops()[14]->result();
    op_with(b, OpKind::Shl, sum->type(), {sum, sum});
    expect_rejected(k.fn, {"'shl'", "expected integers"});
  }
  SECTION("ops.def's type rules, checked generically") {
    VectorAdd k;
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    Value* sum = k.fn.body().ops()[14]->result();   // block<1024xfp32>
    Value* offs = k.fn.body().ops()[5]->result();   // block<1024xi32>
    op_with(b, OpKind::Fma, sum->type(), {sum, sum, sum});
    CHECK_NOTHROW(verify(k.fn, "test_pass"));
    k.fn.body().ops().pop_back();
    op_with(b, OpKind::Fma, sum->type(), {sum, sum, offs});
    expect_rejected(k.fn, {"'fma'", "operands have different types (block<1024xfp32>, block<1024xfp32>, block<1024xi32>)"});
    k.fn.body().ops().pop_back();
    op_with(b, OpKind::Exp, offs->type(), {offs});
    expect_rejected(k.fn, {"'exp'", "operand of type block<1024xi32> (expected a float)"});
    k.fn.body().ops().pop_back();
    op_with(b, OpKind::Neg, offs->type(), {sum});
    expect_rejected(k.fn, {"'neg'", "the result has type block<1024xi32>, expected block<1024xfp32>"});
  }
  SECTION("select condition not i1") {
    VectorAdd k;
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    Value* sum = k.fn.body().ops()[14]->result();
    op_with(b, OpKind::Select, sum->type(), {sum, sum, sum});
    expect_rejected(k.fn, {"'select'", "the condition"});
  }
  SECTION("cast changing the shape") {
    VectorAdd k;
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    op_with(b, OpKind::Cast, block(i32(), {512}), {k.fn.body().ops()[14]->result()});
    expect_rejected(k.fn, {"'cast'", "shape"});
  }
  SECTION("broadcast and expand_dims shape rules") {
    VectorAdd k;
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    Value* offs = k.fn.body().ops()[5]->result();
    Value* col = op_with(b, OpKind::ExpandDims, block(i32(), {1024, 1}), {offs}, {{"axis", int64_t{1}}});
    op_with(b, OpKind::Broadcast, block(i32(), {1024, 4}), {col});
    CHECK_NOTHROW(verify(k.fn, "test_pass"));
    op_with(b, OpKind::Broadcast, block(i32(), {512, 4}), {col});
    expect_rejected(k.fn, {"'broadcast'", "cannot broadcast"});
    k.fn.body().ops().pop_back();
    op_with(b, OpKind::ExpandDims, block(i32(), {1, 1024}), {offs}, {{"axis", int64_t{1}}});
    expect_rejected(k.fn, {"'expand_dims'"});
    k.fn.body().ops().pop_back();
    op_with(b, OpKind::Reshape, block(i32(), {32, 32}), {offs});
    CHECK_NOTHROW(verify(k.fn, "test_pass"));
    op_with(b, OpKind::Reshape, block(i32(), {32, 16}), {offs});
    expect_rejected(k.fn, {"'reshape'"});
  }
  SECTION("for: carried types, region arguments, yield") {
    Function fn("k", Loc{});
    Value* n = add_param(fn, "n", i32());
    Builder b(&fn.body());
    Value* zero = b.int_constant(i32(), 0, Loc{});
    Value* acc = b.float_constant(f32(), 0, Loc{});
    Op* loop = b.create(OpKind::For, {f32()}, {zero, n, n, acc}, Loc{});
    Region* body = loop->add_region();
    body->add_arg(i32());
    Value* carried = body->add_arg(f32());
    Builder inner(body);
    Op* yield = inner.create(OpKind::Yield, {}, {carried}, Loc{});
    CHECK_NOTHROW(verify(fn, "test_pass"));
    yield->set_operand(0, body->arg(0));
    expect_rejected(fn, {"'for'", "yielded values (i32) do not match (fp32)"});
    yield->set_operand(0, carried);
    carried->set_type(i32());
    expect_rejected(fn, {"'for'", "body arguments"});
    carried->set_type(f32());
    body->ops().clear();
    expect_rejected(fn, {"'for'", "does not end with 'yield'"});
    Builder again(body);
    again.create(OpKind::Yield, {}, {carried}, Loc{});
    // The loop's values are not visible after it.
    b.create(OpKind::Add, {f32()}, {carried, carried}, Loc{});
    expect_rejected(fn, {"'add'", "outside its region"});
  }
  SECTION("if: condition and branch values") {
    Function fn("k", Loc{});
    Value* n = add_param(fn, "n", i32());
    Builder b(&fn.body());
    Op* branch = b.create(OpKind::If, {i32()}, {n}, Loc{});
    Builder(branch->add_region()).create(OpKind::Yield, {}, {n}, Loc{});
    Builder(branch->add_region()).create(OpKind::Yield, {}, {n}, Loc{});
    expect_rejected(fn, {"'if'", "the condition"});
    branch->set_operand(0, op_with(b, OpKind::Cmp, i1(), {n, n}, {{"predicate", std::string("eq")}}));
    // The cmp was appended after the if: used before its definition.
    expect_rejected(fn, {"'if'", "before its definition"});
  }
  SECTION("yield and return in the wrong places") {
    Function fn("k", Loc{});
    Builder b(&fn.body());
    b.create(OpKind::Yield, {}, {}, Loc{});
    expect_rejected(fn, {"'yield'"});
  }
  SECTION("atomic kinds") {
    VectorAdd k;
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    Value* p = k.fn.body().ops()[9]->result();
    Value* v = k.fn.body().ops()[12]->result();
    Value* m = k.fn.body().ops()[7]->result();
    Op* atomic = b.create(OpKind::AtomicRMW, {v->type()}, {p, v, m}, Loc{});
    atomic->set_attr("kind", std::string("add"));
    CHECK_NOTHROW(verify(k.fn, "test_pass"));
    atomic->set_attr("kind", std::string("xor"));
    expect_rejected(k.fn, {"'atomic_rmw'", "atomic 'xor'"});
  }
  SECTION("parameters match the entry arguments") {
    VectorAdd k;
    std::swap(k.fn.params()[0], k.fn.params()[1]);
    expect_rejected(k.fn, {"parameter 'y_ptr'"});
  }
}

// Every spelling of every vocabulary (attr_enums.def) parses back to its enumerator.
template <class E>
void check_round_trip(size_t expected_count) {
  CHECK(enum_count<E>() == expected_count);
  for (size_t i = 0; i < enum_count<E>(); ++i) {
    E e = static_cast<E>(i);
    std::optional<E> back = parse_enum<E>(enum_text(e));
    REQUIRE(back.has_value());
    CHECK(*back == e);
  }
  CHECK_FALSE(parse_enum<E>("").has_value());
  CHECK_FALSE(parse_enum<E>("bogus").has_value());
}

TEST_CASE("attribute vocabularies parse and print", "[ir]") {
  check_round_trip<CmpPredicate>(6);
  check_round_trip<AtomicKind>(7);
  check_round_trip<MemSem>(4);
  check_round_trip<MemScope>(3);
  check_round_trip<CacheModifier>(6);
  check_round_trip<EvictionPolicy>(2);
  check_round_trip<Padding>(2);
  check_round_trip<InputPrecision>(3);
  CHECK(std::string(enum_text(MemSem::AcqRel)) == "acq_rel");
  CHECK(std::string(EnumInfo<CmpPredicate>::attr) == "predicate");
  CHECK(enum_choices<CmpPredicate>() == "eq, ne, lt, le, gt, ge");
  CHECK(is_load_cache(CacheModifier::Cv));
  CHECK_FALSE(is_store_cache(CacheModifier::Cv));
}

TEST_CASE("the element rules of atomics.def are Triton's", "[ir]") {
  // Triton's rules for its seven kinds: 32- and 64-bit integers always; fp32/fp64 except for
  // and/or/xor; fp16 and bf16 for add only (Triton 3.6: "atomic_xchg does not support fp16";
  // this pinned xchg's too until that was found); never 8/16-bit integers or i1. The IR
  // takes an fp16 exchange still (tl.atomic_store's) and 16-bit max/min (descriptors').
  using K = ScalarKind;
  for (AtomicKind k : {AtomicKind::Add, AtomicKind::Max, AtomicKind::Min, AtomicKind::And, AtomicKind::Or,
                       AtomicKind::Xor, AtomicKind::Xchg}) {
    INFO(enum_text(k));
    bool bitwise = k == AtomicKind::And || k == AtomicKind::Or || k == AtomicKind::Xor;
    for (K e : {K::I32, K::U32, K::I64, K::U64}) CHECK(atomic_admits(k, e));
    for (K e : {K::I1, K::I8, K::U8, K::I16, K::U16}) CHECK_FALSE(atomic_admits(k, e));
    CHECK(atomic_admits(k, K::F32) == !bitwise);
    CHECK(atomic_admits(k, K::F64) == !bitwise);
    CHECK(atomic_admits(k, K::F16) == (k == AtomicKind::Add));
    CHECK(atomic_admits(k, K::BF16) == (k == AtomicKind::Add));
    CHECK(atomic_ir_admits(k, K::F16) == !bitwise);
  }
}

TEST_CASE("typed attribute getters and the verifier's vocabulary checks", "[ir]") {
  VectorAdd k;
  Op* cmp = k.fn.body().ops()[7].get();
  Op* load = k.fn.body().ops()[12].get();
  Op* store = k.fn.body().ops()[17].get();
  REQUIRE(cmp->kind() == OpKind::Cmp);
  REQUIRE(load->kind() == OpKind::Load);
  REQUIRE(store->kind() == OpKind::Store);
  CHECK(enum_attr<CmpPredicate>(*cmp) == CmpPredicate::Lt);
  set_enum_attr(*cmp, CmpPredicate::Ge);
  CHECK(cmp->str_attr("predicate") == "ge");
  CHECK_FALSE(find_enum_attr<CacheModifier>(*load).has_value());

  SECTION("hints from the vocabularies are accepted and printed as before") {
    set_enum_attr(*load, CacheModifier::Cg);
    set_enum_attr(*load, EvictionPolicy::EvictLast);
    set_enum_attr(*store, CacheModifier::Wt);
    CHECK_NOTHROW(verify(k.fn, "test_pass"));
    CHECK(print(k.fn).find("{cache_modifier = \".cg\", eviction_policy = \"evict_last\"}") != std::string::npos);
    CHECK(find_enum_attr<CacheModifier>(*load) == CacheModifier::Cg);
  }
  SECTION("a store's cache modifier on a load") {
    set_enum_attr(*load, CacheModifier::Wb);
    expect_rejected(k.fn, {"'load'", "cache modifier '.wb'"});
  }
  SECTION("an unknown eviction policy") {
    load->set_attr("eviction_policy", std::string("evict_never"));
    expect_rejected(k.fn, {"'load'", "unknown eviction_policy 'evict_never'", "evict_first, evict_last"});
  }
  SECTION("an unknown memory scope on an atomic") {
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    Value* v = k.fn.body().ops()[12]->result();
    Op* atomic = b.create(OpKind::AtomicRMW, {v->type()}, {load->operand(0), v}, Loc{});
    set_enum_attr(*atomic, AtomicKind::Max);
    set_enum_attr(*atomic, MemSem::Relaxed);
    CHECK_NOTHROW(verify(k.fn, "test_pass"));
    atomic->set_attr("scope", std::string("world"));
    expect_rejected(k.fn, {"'atomic_rmw'", "unknown scope 'world'", "cta, gpu, sys"});
  }
  SECTION("a predicate that is not a string") {
    cmp->set_attr("predicate", int64_t{1});
    expect_rejected(k.fn, {"'cmp'", "'predicate' is not a string"});
  }
}

TEST_CASE("the op table's operand lists and memory effects", "[ir]") {
  const OpSignature& load = op_signature(OpKind::Load);
  REQUIRE(load.operands.size() == 3);
  CHECK(load.operands[0].name == "ptr");
  CHECK(load.operands[1].role == OperandRole::Optional);
  CHECK(load.min_operands == 1);
  CHECK(load.max_operands == 3);
  const OpSignature& loop = op_signature(OpKind::For);
  CHECK(loop.min_operands == 3);
  CHECK(loop.max_operands == -1);
  CHECK(loop.operands.back().role == OperandRole::Variadic);
  CHECK(op_signature(OpKind::Add).min_operands == 2);
  CHECK(op_signature(OpKind::Add).max_operands == 2);
  CHECK(operand_index(OpKind::Dot, "acc") == 2);
  CHECK_THROWS_AS(operand_index(OpKind::Dot, "mask"), InternalError);
  // Every op's list parses, and an op with regions has the trait.
  for (int i = 0; i <= static_cast<int>(OpKind::Fma); ++i) {
    const OpSignature& sig = op_signature(static_cast<OpKind>(i));
    CHECK(sig.min_operands <= static_cast<int>(sig.operands.size()));
  }
  CHECK(has_trait(OpKind::Load, kReadsGlobal));
  CHECK_FALSE(has_trait(OpKind::Load, kWritesGlobal));
  CHECK(has_trait(OpKind::AtomicCAS, kWritesGlobal));
  CHECK(has_trait(OpKind::DebugBarrier, kMaySync));
  CHECK(has_trait(OpKind::Print, kSideEffect));
  CHECK_FALSE(has_trait(OpKind::Add, kMaySync));
}

TEST_CASE("typed op views find operands by their ops.def names", "[ir]") {
  VectorAdd k;
  const Op& cmp = *k.fn.body().ops()[7];
  const Op& load = *k.fn.body().ops()[12];
  const Op& store = *k.fn.body().ops()[17];
  CHECK(LoadOp(load).ptr() == load.operand(0));
  CHECK(LoadOp(load).mask() == load.operand(1));
  CHECK(LoadOp(load).other() == nullptr);
  CHECK(StoreOp(store).value() == store.operand(1));
  CHECK(StoreOp(store).mask() == cmp.result());
  CHECK(CmpOp(cmp).predicate() == CmpPredicate::Lt);
  CHECK(CmpOp(cmp).rhs() == cmp.operand(1));
  CHECK_THROWS_AS(StoreOp(load), InternalError);

  SECTION("the verifier's operand counts come from the table") {
    k.fn.body().ops()[12]->add_operand(k.fn.body().ops()[5]->result());  // other
    k.fn.body().ops()[12]->add_operand(k.fn.body().ops()[5]->result());  // one too many
    expect_rejected(k.fn, {"'load'", "expected 1 to 3 operands, got 4"});
  }
  SECTION("a for loop without its bounds") {
    Builder b(&k.fn.body());
    k.fn.body().ops().pop_back();
    Op* loop = b.create(OpKind::For, {}, {k.n, k.n}, Loc{});
    loop->add_region();
    expect_rejected(k.fn, {"'for'", "expected at least 3 operands, got 2"});
  }
}
