// Unit tests of the reference interpreter: small kernels built with the Builder and run on
// host buffers (arithmetic to the bit, fp16/bf16 rounding, casts, control flow, atomics,
// bounds checks located at the kernel line).
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

#include "interp/eval_ops.h"
#include "interp/interpreter.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "tritium/errors.h"

using namespace tritium;
using namespace tritium::ir;
using interp::ArgValue;
using interp::Grid;
using interp::MemoryRange;

namespace {

const Type* sc(ScalarKind k) { return Type::scalar(k); }
const Type* i1() { return sc(ScalarKind::I1); }
const Type* i32() { return sc(ScalarKind::I32); }
const Type* f32() { return sc(ScalarKind::F32); }
const Type* ptr(const Type* t) { return Type::pointer(t); }
const Type* block(const Type* t, int64_t n) { return Type::block(t, {n}); }

// A kernel under construction, with a fake source file so ops have real lines.
struct Kernel {
  SourceFile file{"kernel.py", "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"};
  Function fn{"kernel", Loc{&file, 1, 1}};
  Builder b{&fn.body()};

  Loc at(int line) { return Loc{&file, line, 5}; }

  Value* param(const std::string& name, const Type* type) {
    Value* arg = fn.body().add_arg(type);
    Param p;
    p.name = name;
    p.arg = arg;
    fn.params().push_back(p);
    return arg;
  }

  Value* op(OpKind kind, const Type* type, std::vector<Value*> operands,
            std::vector<std::pair<std::string, AttrValue>> attrs = {}, int line = 2) {
    Value* v = b.create_value(kind, type, operands, at(line));
    for (auto& [name, value] : attrs) v->def()->set_attr(name, value);
    return v;
  }
  Value* c(const Type* type, int64_t v) { return b.int_constant(type, v, at(2)); }
  Value* cf(const Type* type, double v) { return b.float_constant(type, v, at(2)); }
  Value* pid() { return op(OpKind::ProgramId, i32(), {}, {{"axis", int64_t{0}}}); }
  Value* range(int64_t n) {
    return op(OpKind::MakeRange, block(i32(), n), {}, {{"start", int64_t{0}}, {"end", n}});
  }
  Value* splat(Value* v, int64_t n) { return op(OpKind::Splat, block(v->type(), n), {v}); }
  Value* cmp(const char* pred, Value* a, Value* b) {
    return op(OpKind::Cmp, a->type()->with_element(i1()), {a, b}, {{"predicate", std::string(pred)}});
  }
  // &base[offsets] for a pointer argument and a block of offsets.
  Value* at_offsets(Value* base, Value* offsets) {
    int64_t n = offsets->type()->num_elements();
    return op(OpKind::AddPtr, block(base->type(), n), {splat(base, n), offsets});
  }
  Value* load(Value* p, Value* mask = nullptr, int line = 2) {
    std::vector<Value*> operands = {p};
    if (mask) operands.push_back(mask);
    return op(OpKind::Load, p->type()->with_element(p->type()->element()->pointee()), operands, {}, line);
  }
  void store(Value* p, Value* v, Value* mask = nullptr, int line = 2) {
    std::vector<Value*> operands = {p, v};
    if (mask) operands.push_back(mask);
    b.create(OpKind::Store, {}, operands, at(line));
  }
  void ret() { b.create(OpKind::Return, {}, {}, at(8)); }
};

template <typename T>
ArgValue ptr_arg(std::vector<T>& v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Pointer;
  a.address = reinterpret_cast<uint64_t>(v.data());
  return a;
}

ArgValue int_arg(int64_t v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Int;
  a.int_bits = v;
  return a;
}

template <typename T>
MemoryRange range_of(std::vector<T>& v, const std::string& name) {
  return MemoryRange{reinterpret_cast<uint64_t>(v.data()), v.size() * sizeof(T), name};
}

Grid grid(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
  Grid g;
  g.dims = {x, y, z};
  return g;
}

// Loads a[i], b[i] for i < 16 (blocks of 16), applies `kind`, stores out[i]. Element type
// `t` throughout.
template <typename T>
std::vector<T> binary_kernel(OpKind kind, ScalarKind t, std::vector<T> a, std::vector<T> b) {
  Kernel k;
  const Type* et = sc(t);
  Value* pa = k.param("a", ptr(et));
  Value* pb = k.param("b", ptr(et));
  Value* po = k.param("out", ptr(et));
  Value* offs = k.range(16);
  Value* mask = k.cmp("lt", offs, k.splat(k.c(i32(), static_cast<int64_t>(a.size())), 16));
  Value* x = k.load(k.at_offsets(pa, offs), mask);
  Value* y = k.load(k.at_offsets(pb, offs), mask);
  Value* r = k.op(kind, x->type(), {x, y}, {}, 3);
  k.store(k.at_offsets(po, offs), r, mask);
  k.ret();
  std::vector<T> out(a.size(), T(99));
  interp::run(k.fn, grid(1), {ptr_arg(a), ptr_arg(b), ptr_arg(out)},
              {range_of(a, "a"), range_of(b, "b"), range_of(out, "out")});
  return out;
}

// Casts each of `in` (type `from`) to `to` through memory.
template <typename From, typename To>
std::vector<To> cast_kernel(ScalarKind from, ScalarKind to, std::vector<From> in, bool bitcast = false) {
  Kernel k;
  Value* pa = k.param("a", ptr(sc(from)));
  Value* po = k.param("out", ptr(sc(to)));
  int64_t n = static_cast<int64_t>(in.size());
  Value* offs = k.range(n);
  Value* x = k.load(k.at_offsets(pa, offs));
  std::vector<std::pair<std::string, AttrValue>> attrs;
  if (bitcast) attrs.push_back({"bitcast", int64_t{1}});
  Value* r = k.op(OpKind::Cast, block(sc(to), n), {x}, attrs);
  k.store(k.at_offsets(po, offs), r);
  k.ret();
  std::vector<To> out(in.size());
  interp::run(k.fn, grid(1), {ptr_arg(in), ptr_arg(out)}, {range_of(in, "a"), range_of(out, "out")});
  return out;
}

uint16_t f32_to_f16_bits(float v) {
  return cast_kernel<float, uint16_t>(ScalarKind::F32, ScalarKind::F16, {v, v})[0];
}

double half_value(uint16_t bits) {
  int e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m | 0x400, e - 25);
  return bits & 0x8000 ? -v : v;
}

}  // namespace

TEST_CASE("vector add with a mask", "[interp]") {
  Kernel k;
  Value* px = k.param("x_ptr", ptr(f32()));
  Value* py = k.param("y_ptr", ptr(f32()));
  Value* po = k.param("out_ptr", ptr(f32()));
  Value* n = k.param("n", i32());
  Value* offs = k.op(OpKind::Add, block(i32(), 128),
                     {k.splat(k.op(OpKind::Mul, i32(), {k.pid(), k.c(i32(), 128)}), 128), k.range(128)});
  Value* mask = k.cmp("lt", offs, k.splat(n, 128));
  Value* sum = k.op(OpKind::Add, block(f32(), 128), {k.load(k.at_offsets(px, offs), mask), k.load(k.at_offsets(py, offs), mask)});
  k.store(k.at_offsets(po, offs), sum, mask);
  k.ret();

  const int size = 1000;  // not a multiple of 128: the last program is masked
  std::vector<float> x(size), y(size), out(size, NAN);
  for (int i = 0; i < size; ++i) {
    x[i] = 0.1f * static_cast<float>(i) - 7.3f;
    y[i] = 1.0f / static_cast<float>(i + 3);
  }
  interp::run(k.fn, grid(8), {ptr_arg(x), ptr_arg(y), ptr_arg(out), int_arg(size)},
              {range_of(x, "x_ptr"), range_of(y, "y_ptr"), range_of(out, "out_ptr")});
  for (int i = 0; i < size; ++i) {
    INFO(i);
    REQUIRE(out[i] == x[i] + y[i]);  // fp32 rounding after the add: bit-exact
  }
}

TEST_CASE("a 2^20-element vector add interprets quickly", "[interp][perf]") {
  Kernel k;
  const int64_t block_size = 1024;
  Value* px = k.param("x_ptr", ptr(f32()));
  Value* py = k.param("y_ptr", ptr(f32()));
  Value* po = k.param("out_ptr", ptr(f32()));
  Value* n = k.param("n", i32());
  Value* offs = k.op(OpKind::Add, block(i32(), block_size),
                     {k.splat(k.op(OpKind::Mul, i32(), {k.pid(), k.c(i32(), block_size)}), block_size), k.range(block_size)});
  Value* mask = k.cmp("lt", offs, k.splat(n, block_size));
  Value* sum = k.op(OpKind::Add, block(f32(), block_size),
                    {k.load(k.at_offsets(px, offs), mask), k.load(k.at_offsets(py, offs), mask)});
  k.store(k.at_offsets(po, offs), sum, mask);
  k.ret();
  const int size = 1 << 20;
  std::vector<float> x(size), y(size), out(size, NAN);
  for (int i = 0; i < size; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.5f;
  }
  auto start = std::chrono::steady_clock::now();
  interp::run(k.fn, grid(size / block_size), {ptr_arg(x), ptr_arg(y), ptr_arg(out), int_arg(size)},
              {range_of(x, "x_ptr"), range_of(y, "y_ptr"), range_of(out, "out_ptr")});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("2^20-element vector add: " << seconds * 1000 << " ms");
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  CHECK(seconds < 1.0);
#else
  CHECK(seconds < 10.0);  // unoptimized or sanitized builds
#endif
  CHECK(out[size - 1] == static_cast<float>(size - 1) + 0.5f);
  CHECK(out[12345] == 12345.5f);
}

TEST_CASE("integer division truncates toward zero, remainder takes the dividend's sign", "[interp]") {
  std::vector<int32_t> a = {-7, 7, -7, 7, INT32_MIN, 5, 0};
  std::vector<int32_t> b = {2, -2, -2, 2, 2, 7, -3};
  CHECK(binary_kernel<int32_t>(OpKind::Div, ScalarKind::I32, a, b) == std::vector<int32_t>{-3, -3, 3, 3, -1073741824, 0, 0});
  CHECK(binary_kernel<int32_t>(OpKind::Rem, ScalarKind::I32, a, b) == std::vector<int32_t>{-1, 1, -1, 1, 0, 5, 0});
  // Unsigned: the same bits read as large values.
  std::vector<uint32_t> ua = {0xFFFFFFF9u, 7};
  std::vector<uint32_t> ub = {2, 0xFFFFFFFEu};
  CHECK(binary_kernel<uint32_t>(OpKind::Div, ScalarKind::U32, ua, ub) == std::vector<uint32_t>{0x7FFFFFFCu, 0});
  CHECK(binary_kernel<uint32_t>(OpKind::Rem, ScalarKind::U32, ua, ub) == std::vector<uint32_t>{1, 7});
  // Narrow types wrap at their width.
  std::vector<int8_t> c = {100, -100};
  CHECK(binary_kernel<int8_t>(OpKind::Add, ScalarKind::I8, c, c) == std::vector<int8_t>{-56, 56});
  std::vector<uint16_t> d = {0, 65535};
  std::vector<uint16_t> e = {1, 2};
  CHECK(binary_kernel<uint16_t>(OpKind::Sub, ScalarKind::U16, d, e) == std::vector<uint16_t>{65535, 65533});
  std::vector<uint64_t> f = {~uint64_t{0}, 3};
  std::vector<uint64_t> g = {2, 5};
  CHECK(binary_kernel<uint64_t>(OpKind::Maximum, ScalarKind::U64, f, g) == std::vector<uint64_t>{~uint64_t{0}, 5});
  CHECK(binary_kernel<uint64_t>(OpKind::Div, ScalarKind::U64, f, g) == std::vector<uint64_t>{~uint64_t{0} / 2, 0});
}

TEST_CASE("integer division by zero and INT_MIN / -1 are located errors once observed", "[interp]") {
  // binary_kernel's masked-off lanes divide 0 by 0 and never store it: no error there.
  try {
    binary_kernel<int32_t>(OpKind::Div, ScalarKind::I32, {1, 2}, {1, 0});
    FAIL("no error");
  } catch (const CompileError& e) {
    CHECK(e.message() == "integer division by zero (the result reaches the stored value of 'store' at line 2)");
    CHECK(e.line() == 3);  // the division's line
    CHECK(e.file() == "kernel.py");
  }
  try {
    binary_kernel<int32_t>(OpKind::Rem, ScalarKind::I32, {INT32_MIN}, {-1});
    FAIL("no error");
  } catch (const CompileError& e) {
    CHECK(e.message().find("integer division overflow") != std::string::npos);
    CHECK(e.line() == 3);
  }
  CHECK_THROWS_AS(binary_kernel<uint8_t>(OpKind::Rem, ScalarKind::U8, {1}, {0}), CompileError);
}

TEST_CASE("a division by zero that no stored lane selects is fine", "[interp]") {
  // out = tl.where(y != 0, x // y, -1); then the quotient also decides a branch.
  Kernel k;
  Value* px = k.param("x", ptr(i32()));
  Value* py = k.param("y", ptr(i32()));
  Value* po = k.param("out", ptr(i32()));
  Value* offs = k.range(4);
  Value* x = k.load(k.at_offsets(px, offs));
  Value* y = k.load(k.at_offsets(py, offs));
  Value* q = k.op(OpKind::Div, block(i32(), 4), {x, y}, {}, 4);
  Value* nonzero = k.cmp("ne", y, k.splat(k.c(i32(), 0), 4));
  Value* safe = k.op(OpKind::Select, block(i32(), 4), {nonzero, q, k.splat(k.c(i32(), -1), 4)});
  k.store(k.at_offsets(po, offs), safe);
  // A poisoned lane reaching control flow is an error: the scalar 1 / y[0] decides an if.
  Value* q0 = k.op(OpKind::Div, i32(), {k.c(i32(), 1), k.load(py)}, {}, 6);
  Op* branch = k.b.create(OpKind::If, {}, {k.cmp("gt", q0, k.c(i32(), 0))}, k.at(7));
  Builder(branch->add_region()).create(OpKind::Yield, {}, {}, k.at(7));
  Builder(branch->add_region()).create(OpKind::Yield, {}, {}, k.at(7));
  k.ret();
  std::vector<int32_t> xs = {7, 8, -9, 10}, ys = {2, 0, 3, 0}, out(4, 0);
  auto memory = std::vector<MemoryRange>{range_of(xs, "x"), range_of(ys, "y"), range_of(out, "out")};
  interp::run(k.fn, grid(1), {ptr_arg(xs), ptr_arg(ys), ptr_arg(out)}, memory);
  CHECK(out == std::vector<int32_t>{3, -1, -3, -1});
  ys[0] = 0;
  try {
    interp::run(k.fn, grid(1), {ptr_arg(xs), ptr_arg(ys), ptr_arg(out)}, memory);
    FAIL("no error");
  } catch (const CompileError& e) {
    CHECK(e.line() == 6);
    CHECK(e.message() == "integer division by zero (the result reaches the condition of 'if' at line 7)");
  }
}

TEST_CASE("every op with a type rule in ops.def has lane semantics in ir/elementwise.def", "[interp]") {
  // The interpreter dispatches on the table: an op added to ops.def with a rule but no
  // entry in elementwise.def would reach "no semantics" only when a kernel runs it.
  int checked = 0;
#define TRITIUM_OP(name, keyword, traits, operands, rule)                               \
  if (ir::TypeRule::rule != ir::TypeRule::Custom) {                                    \
    INFO(keyword);                                                                     \
    CHECK(((traits) & ir::kElementwise) != 0);                                          \
    CHECK(interp::elementwise_fn(ir::OpKind::name) != nullptr);                         \
    ++checked;                                                                         \
  }
#include "ir/ops.def"
#undef TRITIUM_OP
  CHECK(checked >= 26);
  CHECK(interp::elementwise_fn(ir::OpKind::Cmp) == nullptr);  // its own evaluator (a predicate)
}

TEST_CASE("shifts: arithmetic for signed, logical for unsigned, defined past the width", "[interp]") {
  std::vector<int32_t> a = {-16, 1, 1, -1, 5, 12345, -8};
  std::vector<int32_t> b = {2, 31, 32, 40, -1, 0, 1};
  CHECK(binary_kernel<int32_t>(OpKind::Shr, ScalarKind::I32, a, b) == std::vector<int32_t>{-4, 0, 0, -1, 0, 12345, -4});
  CHECK(binary_kernel<int32_t>(OpKind::Shl, ScalarKind::I32, a, b) ==
        std::vector<int32_t>{-64, INT32_MIN, 0, 0, 0, 12345, -16});
  std::vector<uint32_t> ua = {0xFFFFFFF0u, 1, 0x80000000u};
  std::vector<uint32_t> ub = {4, 32, 31};
  CHECK(binary_kernel<uint32_t>(OpKind::Shr, ScalarKind::U32, ua, ub) == std::vector<uint32_t>{0x0FFFFFFFu, 0, 1});
  std::vector<int8_t> c = {1, -128};
  std::vector<int8_t> d = {7, 7};
  CHECK(binary_kernel<int8_t>(OpKind::Shl, ScalarKind::I8, c, d) == std::vector<int8_t>{-128, 0});
  CHECK(binary_kernel<int8_t>(OpKind::Shr, ScalarKind::I8, c, d) == std::vector<int8_t>{0, -1});
}

TEST_CASE("fp16 and bf16 results round to nearest even after every op", "[interp]") {
  // 1/3 in fp16 is 0x3555 = 0.333251953125; in bf16 0x3eab = 0.333984375.
  std::vector<uint16_t> one_h = {0x3c00}, three_h = {0x4200};
  std::vector<uint16_t> q = binary_kernel<uint16_t>(OpKind::Div, ScalarKind::F16, one_h, three_h);
  CHECK(q[0] == 0x3555);
  CHECK(half_value(q[0]) == 0.333251953125);
  std::vector<uint16_t> one_b = {0x3f80}, three_b = {0x4040};
  CHECK(binary_kernel<uint16_t>(OpKind::Div, ScalarKind::BF16, one_b, three_b)[0] == 0x3eab);
  // 65504 + 16 is a tie between 65504 (odd mantissa) and 65536: to even -> overflow to inf.
  CHECK(binary_kernel<uint16_t>(OpKind::Add, ScalarKind::F16, {0x7bff, 0x7bff}, {0x4c00, 0x4800}) ==
        std::vector<uint16_t>{0x7c00, 0x7bff});  // +16 -> inf, +8 -> 65504
  // fp32 -> fp16 casts: normal, subnormal ties and halfway cases, overflow, NaN, -0.
  CHECK(f32_to_f16_bits(1.0f) == 0x3c00);
  CHECK(f32_to_f16_bits(0.1f) == 0x2e66);
  CHECK(f32_to_f16_bits(std::ldexp(1.0f, -24)) == 0x0001);   // smallest subnormal
  CHECK(f32_to_f16_bits(std::ldexp(1.0f, -25)) == 0x0000);   // tie to even: 0
  CHECK(f32_to_f16_bits(std::ldexp(3.0f, -26)) == 0x0001);   // 0.75 ulp rounds up
  CHECK(f32_to_f16_bits(std::ldexp(3.0f, -25)) == 0x0002);   // 1.5 ulp tie: to even 2
  CHECK(f32_to_f16_bits(std::ldexp(1023.5f, -24)) == 0x0400);  // rounds up into the normals
  CHECK(f32_to_f16_bits(65520.0f) == 0x7c00);
  CHECK(f32_to_f16_bits(65519.0f) == 0x7bff);
  CHECK(f32_to_f16_bits(-0.0f) == 0x8000);
  CHECK((f32_to_f16_bits(NAN) & 0x7c00) == 0x7c00);
  CHECK((f32_to_f16_bits(NAN) & 0x3ff) != 0);
  CHECK(f32_to_f16_bits(-INFINITY) == 0xfc00);
  // fp32 -> bf16: 1 + 2^-8 is a tie (to even: 1.0); 1 + 3 * 2^-9 rounds up.
  auto bf = cast_kernel<float, uint16_t>(ScalarKind::F32, ScalarKind::BF16,
                                         {1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -9), 3.0e38f, 1e-40f});
  CHECK(bf[0] == 0x3f80);
  CHECK(bf[1] == 0x3f81);
  CHECK(bf[2] == 0x7f62);
  CHECK(bf[3] == 0x0001);  // 1e-40 is 1.09 times bf16's smallest subnormal, 2^-133
  // fp16 -> fp32 is exact.
  auto back = cast_kernel<uint16_t, float>(ScalarKind::F16, ScalarKind::F32, {0x3555, 0x0001, 0xfbff});
  CHECK(back == std::vector<float>{0.333251953125f, std::ldexp(1.0f, -24), -65504.0f});
}

TEST_CASE("fp32 arithmetic rounds to fp32 after every op", "[interp]") {
  std::vector<float> a = {0.1f, 1e30f, 16777216.0f};
  std::vector<float> b = {0.2f, 1e30f, 1.0f};
  auto sum = binary_kernel<float>(OpKind::Add, ScalarKind::F32, a, b);
  CHECK(sum[0] == 0.1f + 0.2f);
  CHECK(sum[1] == 2e30f);
  CHECK(sum[2] == 16777216.0f);  // 2^24 + 1 is not an fp32
  auto mn = binary_kernel<float>(OpKind::Minimum, ScalarKind::F32, {NAN, 1.0f, -2.0f}, {3.0f, NAN, 2.0f});
  CHECK(mn == std::vector<float>{3.0f, 1.0f, -2.0f});  // NaN dropped
  auto rem = binary_kernel<float>(OpKind::Rem, ScalarKind::F32, {-7.0f, 7.5f}, {2.0f, -2.0f});
  CHECK(rem == std::vector<float>{-1.0f, 1.5f});  // fmod: the dividend's sign
}

TEST_CASE("casts", "[interp]") {
  // float -> int: toward zero, saturating out of range, NaN -> 0 (documented choice).
  auto to_i32 = cast_kernel<float, int32_t>(ScalarKind::F32, ScalarKind::I32, {-1.5f, 2.99f, 3e9f, -3e9f, NAN});
  CHECK(to_i32 == std::vector<int32_t>{-1, 2, INT32_MAX, INT32_MIN, 0});
  auto to_u8 = cast_kernel<float, uint8_t>(ScalarKind::F32, ScalarKind::U8, {300.0f, -5.0f, 254.9f});
  CHECK(to_u8 == std::vector<uint8_t>{255, 0, 254});
  // int -> int: truncation, sign extension by the source's signedness, != 0 for i1.
  auto to_i8 = cast_kernel<int32_t, int8_t>(ScalarKind::I32, ScalarKind::I8, {300, -129, 127});
  CHECK(to_i8 == std::vector<int8_t>{44, 127, 127});
  auto to_u32 = cast_kernel<int8_t, uint32_t>(ScalarKind::I8, ScalarKind::U32, {-1, 5});
  CHECK(to_u32 == std::vector<uint32_t>{0xFFFFFFFFu, 5});
  auto from_u8 = cast_kernel<uint8_t, int32_t>(ScalarKind::U8, ScalarKind::I32, {255, 1});
  CHECK(from_u8 == std::vector<int32_t>{255, 1});
  auto to_bool = cast_kernel<int32_t, uint8_t>(ScalarKind::I32, ScalarKind::I1, {2, 0, -1, 256});
  CHECK(to_bool == std::vector<uint8_t>{1, 0, 1, 1});  // != 0, not truncation; one byte each
  // int -> float: unsigned sources read as unsigned; one correct rounding.
  auto u_to_f = cast_kernel<uint32_t, float>(ScalarKind::U32, ScalarKind::F32, {0xFFFFFFFFu, 16777217u});
  CHECK(u_to_f == std::vector<float>{4294967296.0f, 16777216.0f});
  int64_t big = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;  // just above a bf16 tie
  auto i_to_bf = cast_kernel<int64_t, uint16_t>(ScalarKind::I64, ScalarKind::BF16, {big, -3});
  // 2^60 * (1 + 2^-8 + 2^-60) is just above a tie: up to 2^60 * (1 + 2^-7). Through fp64
  // the 2^-60 would be lost and the tie would round to even (0x5d80).
  CHECK(i_to_bf == std::vector<uint16_t>{0x5d81, 0xc040});
  // bitcast keeps the bits.
  auto bits = cast_kernel<float, int32_t>(ScalarKind::F32, ScalarKind::I32, {1.0f, -0.0f}, true);
  CHECK(bits == std::vector<int32_t>{0x3f800000, INT32_MIN});
}

TEST_CASE("a for loop carries values", "[interp]") {
  Kernel k;
  Value* po = k.param("out", ptr(i32()));
  Value* n = k.param("n", i32());
  Value* zero = k.c(i32(), 0);
  Value* one = k.c(i32(), 1);
  // for i in range(0, n): acc += i; (a, b) = (b, a)  -- the swap checks yields go through
  Op* loop = k.b.create(OpKind::For, {i32(), i32(), i32()}, {zero, n, one, zero, zero, one}, k.at(3));
  Region* body = loop->add_region();
  Value* iv = body->add_arg(i32());
  Value* acc = body->add_arg(i32());
  Value* a = body->add_arg(i32());
  Value* b = body->add_arg(i32());
  Builder inner(body);
  Value* next = inner.create_value(OpKind::Add, i32(), {acc, iv}, k.at(4));
  inner.create(OpKind::Yield, {}, {next, b, a}, k.at(4));
  k.store(po, loop->result(0));
  k.store(k.op(OpKind::AddPtr, ptr(i32()), {po, one}), loop->result(1));
  k.store(k.op(OpKind::AddPtr, ptr(i32()), {po, k.c(i32(), 2)}), loop->result(2));
  // A loop that runs zero times passes its initial values through.
  Value* neg = k.op(OpKind::Sub, i32(), {zero, n});
  Op* empty = k.b.create(OpKind::For, {i32()}, {zero, neg, one, n}, k.at(5));
  Builder(empty->add_region()).create(OpKind::Yield, {}, {zero}, k.at(5));
  empty->region(0)->add_arg(i32());
  empty->region(0)->add_arg(i32());
  k.store(k.op(OpKind::AddPtr, ptr(i32()), {po, k.c(i32(), 3)}), empty->result());
  k.ret();
  std::vector<int32_t> out(4, -1);
  interp::run(k.fn, grid(1), {ptr_arg(out), int_arg(10)}, {range_of(out, "out")});
  CHECK(out == std::vector<int32_t>{45, 0, 1, 10});
  interp::run(k.fn, grid(1), {ptr_arg(out), int_arg(7)}, {range_of(out, "out")});
  CHECK(out == std::vector<int32_t>{21, 1, 0, 7});
}

TEST_CASE("if and while", "[interp]") {
  Kernel k;
  Value* po = k.param("out", ptr(i32()));
  Value* pid = k.pid();
  Value* zero = k.c(i32(), 0);
  Value* one = k.c(i32(), 1);
  // steps = 0; x = 27 + pid; while x != 1: x = x / 2 if x % 2 == 0 else 3x + 1; steps += 1
  Value* x0 = k.op(OpKind::Add, i32(), {k.c(i32(), 27), pid});
  Op* loop = k.b.create(OpKind::While, {i32(), i32()}, {x0, zero}, k.at(3));
  Region* before = loop->add_region();
  Value* x = before->add_arg(i32());
  Value* steps = before->add_arg(i32());
  Builder bb(before);
  Value* more = bb.create_value(OpKind::Cmp, i1(), {x, one}, k.at(3));
  more->def()->set_attr("predicate", std::string("ne"));
  bb.create(OpKind::Condition, {}, {more, x, steps}, k.at(3));
  Region* after = loop->add_region();
  Value* ax = after->add_arg(i32());
  Value* asteps = after->add_arg(i32());
  Builder ab(after);
  Value* two = ab.int_constant(i32(), 2, k.at(4));
  Value* parity = ab.create_value(OpKind::Rem, i32(), {ax, two}, k.at(4));
  Value* even = ab.create_value(OpKind::Cmp, i1(), {parity, zero}, k.at(4));
  even->def()->set_attr("predicate", std::string("eq"));
  Op* branch = ab.create(OpKind::If, {i32()}, {even}, k.at(4));
  Builder tb(branch->add_region());
  tb.create(OpKind::Yield, {}, {tb.create_value(OpKind::Div, i32(), {ax, two}, k.at(4))}, k.at(4));
  Builder eb(branch->add_region());
  Value* three = eb.int_constant(i32(), 3, k.at(4));
  Value* triple = eb.create_value(OpKind::Mul, i32(), {ax, three}, k.at(4));
  eb.create(OpKind::Yield, {}, {eb.create_value(OpKind::Add, i32(), {triple, one}, k.at(4))}, k.at(4));
  Value* counted = ab.create_value(OpKind::Add, i32(), {asteps, one}, k.at(4));
  ab.create(OpKind::Yield, {}, {branch->result(), counted}, k.at(4));
  k.store(k.op(OpKind::AddPtr, ptr(i32()), {po, pid}), loop->result(1));
  k.ret();
  std::vector<int32_t> out(3, -1);
  interp::run(k.fn, grid(3), {ptr_arg(out)}, {range_of(out, "out")});
  CHECK(out == std::vector<int32_t>{111, 18, 18});  // Collatz steps of 27, 28, 29
}

TEST_CASE("return ends the program", "[interp]") {
  Kernel k;
  Value* po = k.param("out", ptr(i32()));
  k.store(po, k.c(i32(), 7));
  k.ret();
  std::vector<int32_t> out(1, 0);
  interp::run(k.fn, grid(2, 2, 2), {ptr_arg(out)}, {range_of(out, "out")});
  CHECK(out[0] == 7);
  interp::run(k.fn, grid(0), {ptr_arg(out)}, {});  // an empty grid runs nothing
}

TEST_CASE("atomics from many programs", "[interp]") {
  Kernel k;
  Value* counter = k.param("counter", ptr(i32()));
  Value* olds = k.param("olds", ptr(i32()));
  Value* bins = k.param("bins", ptr(f32()));
  Value* fmax = k.param("fmax", ptr(f32()));
  Value* pid = k.pid();
  // Scalar: one add per program; the old values come back in program order.
  Op* add = k.b.create(OpKind::AtomicRMW, {i32()}, {counter, k.c(i32(), 1)}, k.at(3));
  add->set_attr("kind", std::string("add"));
  add->set_attr("sem", std::string("acq_rel"));
  k.store(k.op(OpKind::AddPtr, ptr(i32()), {olds, pid}), add->result());
  // Block: 16 addresses, every program adds 0.5 to the even ones (mask).
  Value* offs = k.range(16);
  Value* parity = k.op(OpKind::And, block(i32(), 16), {offs, k.splat(k.c(i32(), 1), 16)});
  Value* even = k.cmp("eq", parity, k.splat(k.c(i32(), 0), 16));
  Op* badd = k.b.create(OpKind::AtomicRMW, {block(f32(), 16)},
                        {k.at_offsets(bins, offs), k.splat(k.cf(f32(), 0.5), 16), even}, k.at(4));
  badd->set_attr("kind", std::string("add"));
  // Float max with negative values (the integer emulation): max of -pid - 1 and pid - 50.
  Value* pf = k.op(OpKind::Cast, f32(), {pid});
  Value* candidate = k.op(OpKind::Sub, f32(), {pf, k.cf(f32(), 50)});
  Op* mx = k.b.create(OpKind::AtomicRMW, {f32()}, {fmax, candidate}, k.at(5));
  mx->set_attr("kind", std::string("max"));
  Op* mn = k.b.create(OpKind::AtomicRMW, {f32()}, {k.op(OpKind::AddPtr, ptr(f32()), {fmax, k.c(i32(), 1)}), candidate}, k.at(5));
  mn->set_attr("kind", std::string("min"));
  // CAS: only program 0 sees 0 and swaps in 100.
  Op* cas = k.b.create(OpKind::AtomicCAS, {i32()},
                       {k.op(OpKind::AddPtr, ptr(i32()), {counter, k.c(i32(), 1)}), k.c(i32(), 0), k.c(i32(), 100)}, k.at(6));
  (void)cas;
  k.ret();
  const int programs = 100;
  std::vector<int32_t> count = {0, 0};
  std::vector<int32_t> old(programs, -1);
  std::vector<float> hist(16, 0.0f);
  std::vector<float> extremes = {-1000.0f, 1000.0f};
  interp::run(k.fn, grid(programs), {ptr_arg(count), ptr_arg(old), ptr_arg(hist), ptr_arg(extremes)},
              {range_of(count, "counter"), range_of(old, "olds"), range_of(hist, "bins"), range_of(extremes, "fmax")});
  CHECK(count[0] == programs);
  CHECK(count[1] == 100);
  std::vector<int32_t> expected(programs);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(old == expected);
  for (int i = 0; i < 16; ++i) CHECK(hist[i] == (i % 2 == 0 ? 50.0f : 0.0f));
  CHECK(extremes[0] == 49.0f);
  CHECK(extremes[1] == -50.0f);
}

TEST_CASE("i1 goes through memory as one byte; masked-off lanes take other", "[interp]") {
  Kernel k;
  Value* pin = k.param("in", ptr(i32()));
  Value* pflags = k.param("flags", ptr(i1()));
  Value* pout = k.param("out", ptr(i32()));
  Value* offs = k.range(8);
  Value* v = k.load(k.at_offsets(pin, offs));
  Value* positive = k.cmp("gt", v, k.splat(k.c(i32(), 0), 8));
  k.store(k.at_offsets(pflags, offs), positive);
  Value* flags = k.load(k.at_offsets(pflags, offs));
  Value* other = k.splat(k.c(i32(), -7), 8);
  // The masked-off lanes point far outside every buffer and are never touched.
  Value* wild = k.op(OpKind::AddPtr, block(ptr(i32()), 8), {k.at_offsets(pin, offs), k.splat(k.c(i32(), 1 << 30), 8)});
  Value* chosen = k.op(OpKind::Select, block(ptr(i32()), 8), {flags, k.at_offsets(pin, offs), wild});
  Value* loaded = k.op(OpKind::Load, block(i32(), 8), {chosen, flags, other});
  k.store(k.at_offsets(pout, offs), loaded);
  k.ret();
  std::vector<int32_t> in = {3, -1, 0, 9, -5, 2, 0, 1};
  std::vector<uint8_t> bytes(8, 0xAA);
  std::vector<int32_t> out(8, 0);
  interp::run(k.fn, grid(1), {ptr_arg(in), ptr_arg(bytes), ptr_arg(out)},
              {range_of(in, "in"), range_of(bytes, "flags"), range_of(out, "out")});
  CHECK(bytes == std::vector<uint8_t>{1, 0, 0, 1, 0, 1, 0, 1});
  CHECK(out == std::vector<int32_t>{3, -7, -7, 9, -7, 2, -7, 1});
}

TEST_CASE("an out-of-bounds load is a CompileError at the op's line", "[interp]") {
  Kernel k;
  Value* px = k.param("x_ptr", ptr(f32()));
  Value* po = k.param("out_ptr", ptr(f32()));
  Value* offs = k.op(OpKind::Add, block(i32(), 16), {k.splat(k.op(OpKind::Mul, i32(), {k.pid(), k.c(i32(), 16)}), 16), k.range(16)});
  Value* v = k.load(k.at_offsets(px, offs), nullptr, /*line=*/6);
  k.store(k.at_offsets(po, offs), v, nullptr, 7);
  k.ret();
  std::vector<float> x(20, 1.0f), out(32, 0.0f);  // program 1 reads x[16..31]: past x's end
  try {
    interp::run(k.fn, grid(2), {ptr_arg(x), ptr_arg(out)}, {range_of(x, "x_ptr"), range_of(out, "out_ptr")});
    FAIL("no error");
  } catch (const CompileError& e) {
    INFO(e.what());
    CHECK(e.line() == 6);
    CHECK(e.file() == "kernel.py");
    CHECK(e.message().find("out-of-bounds load of fp32 at address 0x") == 0);
    CHECK(e.message().find("0 bytes past the end of argument 'x_ptr', which is 80 bytes long") != std::string::npos);
    CHECK(e.message().find("element 4 of the block, program (1, 0, 0)") != std::string::npos);
    CHECK(std::string(e.what()).find("line 6\n    ^") != std::string::npos);
  }
  // The stores before the fault happened (program 0), and nothing of program 1.
  CHECK(out[15] == 1.0f);
  CHECK(out[16] == 0.0f);
}

TEST_CASE("wrong arguments are LaunchErrors", "[interp]") {
  Kernel k;
  Value* po = k.param("out", ptr(i32()));
  k.store(po, k.c(i32(), 7));
  k.ret();
  std::vector<int32_t> out(1, 0);
  CHECK_THROWS_AS(interp::run(k.fn, grid(1), {}, {range_of(out, "out")}), LaunchError);
  CHECK_THROWS_WITH(interp::run(k.fn, grid(1), {int_arg(3)}, {range_of(out, "out")}),
                    Catch::Contains("argument 'out'"));
}

TEST_CASE("shape ops: expand_dims, broadcast, reshape", "[interp]") {
  Kernel k;
  Value* po = k.param("out", ptr(i32()));
  Value* pt = k.param("t", ptr(i32()));
  const Type* b48 = Type::block(i32(), {4, 8});
  Value* rows = k.op(OpKind::ExpandDims, Type::block(i32(), {4, 1}), {k.range(4)}, {{"axis", int64_t{1}}});
  Value* cols = k.op(OpKind::ExpandDims, Type::block(i32(), {1, 8}), {k.range(8)}, {{"axis", int64_t{0}}});
  Value* r = k.op(OpKind::Broadcast, b48, {rows});
  Value* c = k.op(OpKind::Broadcast, b48, {cols});
  Value* value = k.op(OpKind::Add, b48, {k.op(OpKind::Mul, b48, {r, k.op(OpKind::Splat, b48, {k.c(i32(), 100)})}), c});
  // Stored transposed: out[c * 4 + r] = 100 r + c.
  Value* offsets = k.op(OpKind::Add, b48, {k.op(OpKind::Mul, b48, {c, k.op(OpKind::Splat, b48, {k.c(i32(), 4)})}), r});
  k.store(k.op(OpKind::AddPtr, Type::block(ptr(i32()), {4, 8}), {k.op(OpKind::Splat, Type::block(ptr(i32()), {4, 8}), {po}), offsets}), value);
  // A middle dimension growing: [2, 1, 3] -> [2, 4, 3].
  Value* small = k.op(OpKind::Reshape, Type::block(i32(), {2, 1, 3}), {k.range(6)});
  Value* grown = k.op(OpKind::Broadcast, Type::block(i32(), {2, 4, 3}), {small});
  k.store(k.at_offsets(pt, k.range(24)), k.op(OpKind::Reshape, block(i32(), 24), {grown}));
  k.ret();
  std::vector<int32_t> out(32, -1), t(24, -1);
  interp::run(k.fn, grid(1), {ptr_arg(out), ptr_arg(t)}, {range_of(out, "out"), range_of(t, "t")});
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 8; ++col) CHECK(out[col * 4 + row] == 100 * row + col);
  }
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int l = 0; l < 3; ++l) CHECK(t[i * 12 + j * 3 + l] == i * 3 + l);
    }
  }
}

TEST_CASE("bitwise atomics, exchange, and a zero loop step", "[interp]") {
  Kernel k;
  Value* pw = k.param("words", ptr(sc(ScalarKind::U32)));
  Value* step = k.param("step", i32());
  Value* pid = k.pid();
  Value* bit = k.op(OpKind::Shl, sc(ScalarKind::U32), {k.c(sc(ScalarKind::U32), 1), k.op(OpKind::Cast, sc(ScalarKind::U32), {pid})});
  Op* orr = k.b.create(OpKind::AtomicRMW, {sc(ScalarKind::U32)}, {pw, bit}, k.at(3));
  orr->set_attr("kind", std::string("or"));
  Value* second = k.op(OpKind::AddPtr, ptr(sc(ScalarKind::U32)), {pw, k.c(i32(), 1)});
  Op* xchg = k.b.create(OpKind::AtomicRMW, {sc(ScalarKind::U32)}, {second, bit}, k.at(3));
  xchg->set_attr("kind", std::string("xchg"));
  // The old value each program swapped out goes to words[2 + pid].
  Value* slot = k.op(OpKind::AddPtr, ptr(sc(ScalarKind::U32)), {pw, k.op(OpKind::Add, i32(), {pid, k.c(i32(), 2)})});
  k.store(slot, xchg->result());
  Value* zero = k.c(i32(), 0);
  Op* loop = k.b.create(OpKind::For, {}, {zero, k.c(i32(), 10), step}, k.at(5));
  loop->add_region()->add_arg(i32());
  Builder(loop->region(0)).create(OpKind::Yield, {}, {}, k.at(5));
  k.ret();
  std::vector<uint32_t> words(7, 0);
  interp::run(k.fn, grid(5), {ptr_arg(words), int_arg(3)}, {range_of(words, "words")});
  CHECK(words == std::vector<uint32_t>{0x1f, 16, 0, 1, 2, 4, 8});
  try {
    interp::run(k.fn, grid(1), {ptr_arg(words), int_arg(0)}, {range_of(words, "words")});
    FAIL("no error");
  } catch (const CompileError& e) {
    CHECK(e.line() == 5);
    CHECK(e.message() == "for loop with a step of 0");
  }
}
