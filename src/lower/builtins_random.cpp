// tl.randint/randint4x/rand/rand4x/randn/randn4x and the helpers triton.language exports
// with them (philox, philox_impl, uint_to_uniform_float, pair_uniform_to_normal): Triton's
// Philox-4x32-10 (a 64-bit offset split into two counter words; philox_impl itself also
// takes 64-bit counters, Philox-4x64) composed from existing ops with Triton's
// typing rules step by step, so the interpreter and the GPU produce Triton's exact stream.
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Value;

namespace {

constexpr int64_t kDefaultRounds = 10;  // Triton's N_ROUNDS_DEFAULT
constexpr int64_t kMaxRounds = 1024;    // beyond this the unrolled rounds only hang the compiler

// The Random123 constants of Philox-4xW: key bumps (Weyl) and round multipliers.
struct PhiloxConstants {
  unsigned __int128 key_a, key_b, round_a, round_b;
};
constexpr PhiloxConstants kPhilox32 = {0x9E3779B9u, 0xBB67AE85u, 0xD2511F53u, 0xCD9E8D57u};
constexpr PhiloxConstants kPhilox64 = {0x9E3779B97F4A7C15ull, 0xBB67AE8584CAA73Bull, 0xD2E7470EE14C6C93ull,
                                       0xCA5A826395121157ull};

LValue int_const(unsigned __int128 v) { return LValue::constant(ConstValue::integer(static_cast<__int128>(v))); }
LValue float_const(double v) { return LValue::constant(ConstValue::floating(v)); }

LValue binary(Lowerer& L, ast::BinaryOp op, const LValue& a, const LValue& b, const Loc& loc) {
  return L.binary(op, a, b, loc);
}

LValue call(Lowerer& L, const char* name, std::vector<LValue> args, const Loc& loc) {
  return L.call_builtin(LValue::builtin(std::string("tl.") + name), std::move(args), {}, loc);
}

ScalarKind kind_of(Lowerer& L, const LValue& v, const Loc& loc) {
  const ir::Type* element = L.to_tensor(v, loc)->type()->element();
  return element->is_scalar() ? element->scalar_kind() : ScalarKind::U64;
}

int64_t rounds(const BuiltinArgs& a) {
  if (!a.has("n_rounds")) return kDefaultRounds;
  if (!a.get("n_rounds").is_const()) error_at(a.loc(), "n_rounds of tl." + a.fn() + " must be a compile-time constant");
  __int128 n = a.const_int("n_rounds");
  if (n > kMaxRounds) error_at(a.loc(), "n_rounds of tl." + a.fn() + " is " + int128_to_string(n) + "; tritium unrolls at most " +
                                            std::to_string(kMaxRounds) + " rounds");
  return n < 0 ? 0 : static_cast<int64_t>(n);  // range(n) of a negative n is empty
}

// umulhi(b, x) for a Python int `b` and a tensor `x`, as tl.umulhi types it. When both fit
// 32 bits it is (zext b * zext x) >> 32, which needs no libdevice and which LLVM turns into
// mul.hi.u32; otherwise tl.umulhi (libdevice's __nv_umul64hi on the GPU).
LValue umulhi(Lowerer& L, unsigned __int128 b, const LValue& x_in, const Loc& loc) {
  Value* x = L.to_tensor(x_in, loc);
  const ir::Type* element = x->type()->element();
  bool narrow = element->is_scalar() && ir::is_integer(element->scalar_kind()) &&
                ir::bit_width(element->scalar_kind()) == 32 && b < (static_cast<unsigned __int128>(1) << 32);
  if (!narrow) return call(L, "umulhi", {int_const(b), LValue::tensor(x)}, loc);
  Value* wide = L.cast(L.cast(x, ScalarKind::U32, loc), ScalarKind::U64, loc);
  LValue product = binary(L, ast::BinaryOp::Mul, LValue::tensor(wide), int_const(b), loc);
  LValue high = binary(L, ast::BinaryOp::RShift, product, int_const(32), loc);
  return LValue::tensor(L.cast(L.to_tensor(high, loc), ScalarKind::U32, loc));
}

// philox_impl: n_rounds rounds on the counter (c0..c3) and the key (k0, k1), which the
// counter's type (uint32 or uint64) selects the constants for.
LValue philox_impl(Lowerer& L, LValue c0, LValue c1, LValue c2, LValue c3, LValue k0, LValue k1, int64_t n_rounds,
                   const Loc& loc) {
  ScalarKind kind = kind_of(L, c0, loc);
  if (kind != ScalarKind::U32 && kind != ScalarKind::U64) {
    error_at(loc, "dtype not supported in philox_impl: the counters must be uint32 or uint64, got " +
                      std::string(ir::scalar_name(kind)));
  }
  const PhiloxConstants& k = kind == ScalarKind::U32 ? kPhilox32 : kPhilox64;
  using ast::BinaryOp;
  for (int64_t r = 0; r < n_rounds; ++r) {
    LValue old_c0 = c0, old_c2 = c2;
    c0 = binary(L, BinaryOp::BitXor, binary(L, BinaryOp::BitXor, umulhi(L, k.round_b, old_c2, loc), c1, loc), k0, loc);
    c2 = binary(L, BinaryOp::BitXor, binary(L, BinaryOp::BitXor, umulhi(L, k.round_a, old_c0, loc), c3, loc), k1, loc);
    c1 = binary(L, BinaryOp::Mul, int_const(k.round_b), old_c2, loc);
    c3 = binary(L, BinaryOp::Mul, int_const(k.round_a), old_c0, loc);
    k0 = binary(L, BinaryOp::Add, k0, int_const(k.key_a), loc);
    k1 = binary(L, BinaryOp::Add, k1, int_const(k.key_b), loc);
  }
  return LValue::tuple({c0, c1, c2, c3});
}

// philox: the seed as uint64 split into the key (low and high words for 32-bit counters;
// the whole seed and a zero for 64-bit ones), the counters bitcast to unsigned.
LValue philox(Lowerer& L, const LValue& seed_in, std::vector<LValue> c, int64_t n_rounds, const Loc& loc) {
  Value* seed = L.to_tensor(seed_in, loc);
  // Triton: tl.static_assert(seed.dtype.is_int()); a float seed is an error, not a cast.
  if (seed->type()->is_ptr() || !seed->type()->element()->is_scalar() ||
      !ir::is_integer(seed->type()->element()->scalar_kind())) {
    error_at(loc, "the seed of a Philox generator must be an integer, got " + seed->type()->str());
  }
  for (LValue& ci : c) {
    Value* v = L.to_tensor(ci, loc);
    if (v->type()->is_ptr()) error_at(loc, "the offsets of a Philox generator must be integers, got " + v->type()->str());
    ci = LValue::tensor(v);
  }
  seed = L.cast(seed, ScalarKind::U64, loc);
  int bits = ir::bit_width(kind_of(L, c[0], loc));
  ScalarKind unsigned_kind;
  LValue seed_lo, seed_hi;
  using ast::BinaryOp;
  if (bits == 32) {
    unsigned_kind = ScalarKind::U32;
    LValue shifted = binary(L, BinaryOp::RShift, LValue::tensor(seed), int_const(32), loc);
    LValue hi = binary(L, BinaryOp::BitAnd, shifted, int_const(0xffffffffu), loc);
    LValue lo = binary(L, BinaryOp::BitAnd, LValue::tensor(seed), int_const(0xffffffffu), loc);
    seed_hi = LValue::tensor(L.cast(L.to_tensor(hi, loc), ScalarKind::U32, loc));
    seed_lo = LValue::tensor(L.cast(L.to_tensor(lo, loc), ScalarKind::U32, loc));
  } else if (bits == 64) {
    unsigned_kind = ScalarKind::U64;
    // Triton's tl.full((1,), 0, uint64): a one-element block, which the rounds broadcast.
    seed_hi = call(L, "full", {LValue::tuple({int_const(1)}), int_const(0), LValue::constant(ConstValue::type(ScalarKind::U64))}, loc);
    seed_lo = LValue::tensor(seed);
  } else {
    error_at(loc, "bitwidth not supported in philox: the offsets must be 32- or 64-bit, got " +
                      std::string(ir::scalar_name(kind_of(L, c[0], loc))));
  }
  for (LValue& ci : c) ci = LValue::tensor(L.cast(ci.value, ir::Type::scalar(unsigned_kind), loc, /*bitcast=*/true));
  return philox_impl(L, c[0], c[1], c[2], c[3], seed_lo, seed_hi, n_rounds, loc);
}

// Triton 3.6: the offset's low 32 bits are the first counter word and, for a 64-bit offset,
// its high 32 bits (offset >> 32) the second; the generator is always Philox-4x32, so a
// 64-bit offset below 2**32 gives the same numbers as the 32-bit one.
LValue randint4x(Lowerer& L, const LValue& seed, const LValue& offset_in, int64_t n_rounds, const Loc& loc) {
  Value* offset = L.to_tensor(offset_in, loc);
  if (offset->type()->is_ptr() || !offset->type()->element()->is_scalar() ||
      !ir::is_integer(offset->type()->element()->scalar_kind())) {
    error_at(loc, "the offsets of a Philox generator must be integers, got " + offset->type()->str());
  }
  LValue lo = LValue::tensor(L.cast(offset, ScalarKind::U32, loc));
  LValue zero = binary(L, ast::BinaryOp::Mul, lo, int_const(0), loc);  // Triton's `offset_lo * 0`
  LValue hi = zero;
  if (ir::bit_width(offset->type()->element()->scalar_kind()) > 32) {
    LValue shifted = binary(L, ast::BinaryOp::RShift, LValue::tensor(offset), int_const(32), loc);
    hi = LValue::tensor(L.cast(L.to_tensor(shifted, loc), ScalarKind::U32, loc));
  }
  return philox(L, seed, {lo, hi, zero, zero}, n_rounds, loc);
}

// A random 32- or 64-bit integer to a float in [0, 1): as signed, folded onto the
// non-negative half (x < 0 ? -x - 1 : x), times the largest scale keeping the result < 1.
LValue uint_to_uniform_float(Lowerer& L, const LValue& x_in, const Loc& loc) {
  Value* x = L.to_tensor(x_in, loc);
  ScalarKind kind = x->type()->element()->is_scalar() ? x->type()->element()->scalar_kind() : ScalarKind::I1;
  double scale;
  if (kind == ScalarKind::U32 || kind == ScalarKind::I32) {
    x = L.cast(x, ir::Type::scalar(ScalarKind::I32), loc, /*bitcast=*/true);
    scale = 4.6566127342e-10;
  } else if (kind == ScalarKind::U64 || kind == ScalarKind::I64) {
    x = L.cast(x, ir::Type::scalar(ScalarKind::I64), loc, /*bitcast=*/true);
    scale = 1.0842020432385337e-19;
  } else {
    error_at(loc, "uint_to_uniform_float needs int32, uint32, int64 or uint64 values, got " + x->type()->element()->str());
  }
  LValue v = LValue::tensor(x);
  LValue negative = L.compare(ast::CompareOp::Lt, v, int_const(0), loc);
  LValue folded = binary(L, ast::BinaryOp::Sub, L.unary(ast::UnaryOp::Neg, v, loc), int_const(1), loc);
  LValue nonnegative = LValue::tensor(L.where(negative, folded, v, loc));
  return binary(L, ast::BinaryOp::Mul, nonnegative, float_const(scale), loc);
}

// Box-Muller: two uniforms to two normals.
LValue pair_uniform_to_normal(Lowerer& L, const LValue& u1_in, const LValue& u2, const Loc& loc) {
  using ast::BinaryOp;
  LValue u1 = call(L, "maximum", {float_const(1.0e-7), u1_in}, loc);
  LValue th = binary(L, BinaryOp::Mul, float_const(6.283185307179586), u2, loc);
  LValue r = call(L, "sqrt", {binary(L, BinaryOp::Mul, float_const(-2.0), call(L, "log", {u1}, loc), loc)}, loc);
  return LValue::tuple({binary(L, BinaryOp::Mul, r, call(L, "cos", {th}, loc), loc),
                        binary(L, BinaryOp::Mul, r, call(L, "sin", {th}, loc), loc)});
}

LValue rand4x(Lowerer& L, const LValue& seed, const LValue& offset, int64_t n_rounds, const Loc& loc) {
  LValue ints = randint4x(L, seed, offset, n_rounds, loc);
  std::vector<LValue> out;
  for (const LValue& i : ints.items) out.push_back(uint_to_uniform_float(L, i, loc));
  return LValue::tuple(out);
}

}  // namespace

void register_random_builtins(BuiltinTable& t) {
  t.add("philox_impl", {"c0", "c1", "c2", "c3", "k0", "k1", "n_rounds="}, false,
        [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
          return philox_impl(L, a.get("c0"), a.get("c1"), a.get("c2"), a.get("c3"), a.get("k0"), a.get("k1"), rounds(a), loc);
        });
  t.add("philox", {"seed", "c0", "c1", "c2", "c3", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return philox(L, a.get("seed"), {a.get("c0"), a.get("c1"), a.get("c2"), a.get("c3")}, rounds(a), loc);
  });
  t.add("randint4x", {"seed", "offset", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return randint4x(L, a.get("seed"), a.get("offset"), rounds(a), loc);
  });
  t.add("randint", {"seed", "offset", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return randint4x(L, a.get("seed"), a.get("offset"), rounds(a), loc).items[0];
  });
  t.add("uint_to_uniform_float", {"x"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return uint_to_uniform_float(L, a.get("x"), loc);
  });
  t.add("rand", {"seed", "offset", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return uint_to_uniform_float(L, randint4x(L, a.get("seed"), a.get("offset"), rounds(a), loc).items[0], loc);
  });
  t.add("rand4x", {"seed", "offsets", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return rand4x(L, a.get("seed"), a.get("offsets"), rounds(a), loc);
  });
  t.add("pair_uniform_to_normal", {"u1", "u2"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return pair_uniform_to_normal(L, a.get("u1"), a.get("u2"), loc);
  });
  t.add("randn", {"seed", "offset", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    LValue ints = randint4x(L, a.get("seed"), a.get("offset"), rounds(a), loc);
    LValue u1 = uint_to_uniform_float(L, ints.items[0], loc);
    LValue u2 = uint_to_uniform_float(L, ints.items[1], loc);
    return pair_uniform_to_normal(L, u1, u2, loc).items[0];
  });
  t.add("randn4x", {"seed", "offset", "n_rounds="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    LValue u = rand4x(L, a.get("seed"), a.get("offset"), rounds(a), loc);
    LValue n12 = pair_uniform_to_normal(L, u.items[0], u.items[1], loc);
    LValue n34 = pair_uniform_to_normal(L, u.items[2], u.items[3], loc);
    return LValue::tuple({n12.items[0], n12.items[1], n34.items[0], n34.items[1]});
  });
}

}  // namespace tritium::lower
