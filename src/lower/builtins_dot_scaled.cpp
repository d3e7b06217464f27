// tl.dot_scaled: Triton 3.6's checks in its words, then the decomposition its GPU backend
// uses without native microscaling (sm_90) written in existing tile-IR ops: upcast to bf16
// or fp16, times the scale over groups along K, then one fp32-accumulating dot. A scale is
// an e8m0 byte (2^(scale - 127), groups of 32: OCP MX) or an fp8e4nv value (groups of 16:
// NVFP4), as Triton 3.6's verify_scaled_shape tells them apart.
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ir/attrs.h"
#include "lower/block_shape.h"
#include "lower/builtin_args.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

namespace {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

constexpr int64_t kScaleGroup = 32;    // elements along K per e8m0 scale (the OCP MX block size)
constexpr int64_t kE4M3ScaleGroup = 16;  // elements along K per fp8e4nv scale (NVFP4)

bool is_e4m3_scale(const Value* scale) {
  return scale->type()->element()->is_scalar() && scale->type()->element()->scalar_kind() == ScalarKind::F8E4NV;
}

int64_t scale_group(const Value* scale) { return is_e4m3_scale(scale) ? kE4M3ScaleGroup : kScaleGroup; }

// The format string of `param`, known to Triton's ScaleDotElemType enum (looked up
// upper-cased: another name is "Invalid float format").
std::string known_format(const BuiltinArgs& a, const std::string& param, const Loc& loc) {
  const LValue& v = a.get(param);
  if (!v.is_const() || v.c.kind != ConstValue::Kind::Str) {
    error_at(loc, param + " of dot_scaled must be a string constant such as \"e4m3\", got " + v.describe());
  }
  std::string upper;
  for (char c : v.c.s) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  static const char* const kEnum[] = {"E4M3", "E5M2", "E2M3", "E3M2", "E2M1", "BF16", "FP16"};
  bool known = false;
  for (const char* e : kEnum) known = known || upper == e;
  if (!known) error_at(loc, "Invalid float format: " + v.c.s + ".");
  return v.c.s;
}

// Of the enum's formats, dot_scaled implements five (checked after both lookups, as Triton).
void check_implemented(const std::string& format, const char* side, const Loc& loc) {
  if (format != "e2m1" && format != "e4m3" && format != "e5m2" && format != "bf16" && format != "fp16") {
    error_at(loc, std::string("NYI: ") + side + "_format " + format);
  }
}

// The operand as its format's type: uint8 stays for e2m1 (two values a byte); uint8 and
// uint16 are reinterpreted as the fp8 / 16-bit float they hold.
Value* as_format(Lowerer& L, const LValue& v, const std::string& format, const char* side, const Loc& loc) {
  Value* t = L.to_tensor(v, loc);
  if (!t->type()->is_block()) {
    error_at(loc, std::string("tl.dot_scaled needs blocks; ") + side + " is " + v.describe());
  }
  const Type* e = t->type()->element();
  ScalarKind have = e->is_scalar() ? e->scalar_kind() : ScalarKind::I64;
  if (format == "e2m1") {
    if (e->is_pointer() || have != ScalarKind::U8)
      error_at(loc, "e2m1 format must be packed as uint8. Got " + dtype_text(e));
    return t;
  }
  ScalarKind want = format == "e5m2"   ? ScalarKind::F8E5
                    : format == "e4m3" ? ScalarKind::F8E4NV
                    : format == "bf16" ? ScalarKind::BF16
                                       : ScalarKind::F16;
  if (!e->is_pointer() && have == want) return t;
  ScalarKind raw = ir::bit_width(want) == 8 ? ScalarKind::U8 : ScalarKind::U16;
  if (e->is_pointer() || have != raw) error_at(loc, "Unexpected dtype for " + format + ". Got " + dtype_text(e));
  return L.cast(t, Type::scalar(want), loc, /*bitcast=*/true);
}

Value* splat(Lowerer& L, ScalarKind kind, const ConstValue& value, const std::vector<int64_t>& shape, const Loc& loc) {
  return L.broadcast_to(L.constant(kind, value, loc), shape, loc);
}

Value* binop(Lowerer& L, ir::OpKind kind, Value* x, Value* y, const Loc& loc) {
  return L.emit(kind, x->type(), {x, y}, loc);
}

// Two values of one shape interleaved along `dim`: result[..., 2i, ...] = lo[..., i, ...],
// [..., 2i + 1, ...] = hi[..., i, ...] (join puts the pair last; a transpose moves it next
// to `dim` when `dim` is not the last, and the row-major reshape merges the two).
Value* interleave(Lowerer& L, Value* lo, Value* hi, int dim, const Loc& loc) {
  std::vector<int64_t> shape = lo->type()->shape();
  int rank = static_cast<int>(shape.size());
  const Type* element = lo->type()->element();
  std::vector<int64_t> joined_shape = shape;
  joined_shape.push_back(2);
  Value* joined = L.emit(ir::OpKind::Join, Type::block(element, joined_shape), {lo, hi}, loc);
  if (dim != rank - 1) {
    std::vector<int64_t> order, moved;
    for (int d = 0; d <= dim; ++d) order.push_back(d);
    order.push_back(rank);
    for (int d = dim + 1; d < rank; ++d) order.push_back(d);
    for (int64_t d : order) moved.push_back(joined_shape[d]);
    ir::Op* op = L.builder().create(ir::OpKind::Trans, {Type::block(element, moved)}, {joined}, loc);
    op->set_attr("order", order);
    joined = op->result();
  }
  shape[dim] *= 2;
  return L.emit(ir::OpKind::Reshape, Type::block(element, shape), {joined}, loc);
}

// One e2m1 nibble per element (0..15, in uint8) as fp32: sign bit 3, two exponent bits
// (bias 1), one mantissa bit; exponent 0 is the subnormal 0.5 * m. Built as fp32 bits.
Value* e2m1_to_f32(Lowerer& L, Value* nibble, const Loc& loc) {
  const std::vector<int64_t>& shape = nibble->type()->shape();
  auto u32 = [&](int64_t v) { return splat(L, ScalarKind::U32, ConstValue::integer(v), shape, loc); };
  Value* x = L.cast(nibble, ScalarKind::U32, loc);
  Value* sign = binop(L, ir::OpKind::Shl, binop(L, ir::OpKind::And, x, u32(8), loc), u32(28), loc);
  Value* exp = binop(L, ir::OpKind::Shr, binop(L, ir::OpKind::And, x, u32(6), loc), u32(1), loc);
  Value* man = binop(L, ir::OpKind::And, x, u32(1), loc);
  // Normal: 2^(exp - 1) * (1 + man / 2) = fp32 exponent exp + 126, mantissa bit 22.
  Value* normal =
      binop(L, ir::OpKind::Or, binop(L, ir::OpKind::Shl, binop(L, ir::OpKind::Add, exp, u32(126), loc), u32(23), loc),
            binop(L, ir::OpKind::Shl, man, u32(22), loc), loc);
  // Subnormal (exp 0): 0.5 (fp32 0x3f000000) or 0.
  Value* subnormal = binop(L, ir::OpKind::Mul, man, u32(0x3f000000), loc);
  Value* is_normal =
      L.emit(ir::OpKind::Cmp, nibble->type()->with_element(Type::scalar(ScalarKind::I1)), {exp, u32(0)}, loc);
  ir::set_enum_attr(*is_normal->def(), ir::CmpPredicate::Ne);
  Value* bits = L.emit(ir::OpKind::Select, x->type(), {is_normal, normal, subnormal}, loc);
  bits = binop(L, ir::OpKind::Or, bits, sign, loc);
  return L.cast(bits, Type::scalar(ScalarKind::F32), loc, /*bitcast=*/true);
}

// uint8 bytes holding two e2m1 values (the first in the low bits) -> `compute` values,
// twice as many along `dim`.
Value* unpack_e2m1(Lowerer& L, Value* packed, int dim, ScalarKind compute, const Loc& loc) {
  const std::vector<int64_t>& shape = packed->type()->shape();
  auto u8 = [&](int64_t v) { return splat(L, ScalarKind::U8, ConstValue::integer(v), shape, loc); };
  Value* lo = binop(L, ir::OpKind::And, packed, u8(15), loc);
  Value* hi = binop(L, ir::OpKind::Shr, packed, u8(4), loc);    // logical: uint8
  Value* lo_f = L.cast(e2m1_to_f32(L, lo, loc), compute, loc);  // exact: e2m1 fits bf16 and fp16
  Value* hi_f = L.cast(e2m1_to_f32(L, hi, loc), compute, loc);
  return interleave(L, lo_f, hi_f, dim, loc);
}

// The low (first) or high values of uint8 bytes holding two e2m1 each, as `compute`, in
// the bytes' shape (no interleave).
Value* nibble_e2m1(Lowerer& L, Value* packed, bool high, ScalarKind compute, const Loc& loc) {
  const std::vector<int64_t>& shape = packed->type()->shape();
  Value* n = binop(L, high ? ir::OpKind::Shr : ir::OpKind::And, packed,
                   splat(L, ScalarKind::U8, ConstValue::integer(high ? 4 : 15), shape, loc), loc);  // logical: uint8
  return L.cast(e2m1_to_f32(L, n, loc), compute, loc);
}

// The scale [..., R, K/G] of an operand whose K axis is `k_dim` (last for lhs, rank-2 for
// rhs) spread to the operand's shape: element [.., r, k] (lhs) or [.., k, r] (rhs) takes
// scale[.., r, k / G], G the group size.
Value* spread_scale(Lowerer& L, Value* scale, bool rhs, int64_t group, const std::vector<int64_t>& target,
                    const Loc& loc) {
  std::vector<int64_t> s = scale->type()->shape();
  int rank = static_cast<int>(s.size());
  const Type* element = scale->type()->element();
  if (rhs) {  // [.., N, K/G] -> [.., K/G, N], as Triton reads the rhs scale
    std::vector<int64_t> order;
    for (int d = 0; d < rank - 2; ++d) order.push_back(d);
    order.push_back(rank - 1);
    order.push_back(rank - 2);
    std::swap(s[rank - 1], s[rank - 2]);
    ir::Op* op = L.builder().create(ir::OpKind::Trans, {Type::block(element, s)}, {scale}, loc);
    op->set_attr("order", order);
    scale = op->result();
  }
  // A unit axis right after the K/G axis, broadcast to G, merged into K.
  int k_axis = rhs ? rank - 2 : rank - 1;
  std::vector<int64_t> expanded = s;
  expanded.insert(expanded.begin() + k_axis + 1, 1);
  ir::Op* op = L.builder().create(ir::OpKind::ExpandDims, {Type::block(element, expanded)}, {scale}, loc);
  op->set_attr("axis", int64_t{k_axis + 1});
  std::vector<int64_t> grown = expanded;
  grown[k_axis + 1] = group;
  Value* b = L.emit(ir::OpKind::Broadcast, Type::block(element, grown), {op->result()}, loc);
  return L.emit(ir::OpKind::Reshape, Type::block(element, target), {b}, loc);
}

// 2^(scale - 127) in `compute`, as Triton builds it: the byte shifted into the exponent of a
// bf16 (scale 0 gives 0, 0xFF gives inf), or of an fp32 then rounded to fp16. An fp8e4nv
// scale is its value (exact in bf16 and fp16).
Value* scale_value(Lowerer& L, Value* scale, ScalarKind compute, const Loc& loc) {
  if (is_e4m3_scale(scale)) return L.cast(scale, compute, loc);
  const std::vector<int64_t>& shape = scale->type()->shape();
  if (compute == ScalarKind::BF16) {
    Value* x = L.cast(scale, ScalarKind::U16, loc);
    x = binop(L, ir::OpKind::Shl, x, splat(L, ScalarKind::U16, ConstValue::integer(7), shape, loc), loc);
    return L.cast(x, Type::scalar(ScalarKind::BF16), loc, /*bitcast=*/true);
  }
  Value* x = L.cast(scale, ScalarKind::U32, loc);
  x = binop(L, ir::OpKind::Shl, x, splat(L, ScalarKind::U32, ConstValue::integer(23), shape, loc), loc);
  return L.cast(L.cast(x, Type::scalar(ScalarKind::F32), loc, /*bitcast=*/true), compute, loc);
}

// The scale's factor spread to an operand of shape `shape` whose K axis holds each group
// of the scale as `group` elements. A 0xFF e8m0 scale (its NaN) makes the whole group NaN:
// the factor itself is NaN there, chosen on the scale's own block before the spread (the
// product is then NaN whatever the element; fast_math keeps the shifted exponent, inf). An
// fp8e4nv scale's NaN is already NaN.
Value* scale_factor(Lowerer& L, Value* scale, bool rhs, int64_t group, ScalarKind compute, bool fast_math,
                    const std::vector<int64_t>& shape, const Loc& loc) {
  Value* factor = scale_value(L, scale, compute, loc);
  if (!fast_math && !is_e4m3_scale(scale)) {
    const std::vector<int64_t>& sshape = scale->type()->shape();
    Value* is_nan = L.emit(ir::OpKind::Cmp, scale->type()->with_element(Type::scalar(ScalarKind::I1)),
                           {scale, splat(L, ScalarKind::U8, ConstValue::integer(255), sshape, loc)}, loc);
    ir::set_enum_attr(*is_nan->def(), ir::CmpPredicate::Eq);
    Value* nan = splat(L, compute, ConstValue::floating(std::numeric_limits<double>::quiet_NaN()), sshape, loc);
    factor = L.emit(ir::OpKind::Select, factor->type(), {is_nan, nan, factor}, loc);
  }
  return spread_scale(L, factor, rhs, group, shape, loc);
}

Value* apply_scale(Lowerer& L, Value* v, Value* factor, const Loc& loc) {
  return factor == nullptr ? v : binop(L, ir::OpKind::Mul, v, factor, loc);
}

struct Operand {
  Value* value;  // in the format's type (uint8 for e2m1)
  Value* scale;  // uint8 e8m0, fp8e4nv, or null
  std::string format;
  bool k_pack;
};

// The operand as `compute` values of shape [.., M, K] (lhs) or [.., K, N] (rhs), scaled.
Value* upcast_operand(Lowerer& L, const Operand& op, bool rhs, ScalarKind compute, bool fast_math, const Loc& loc) {
  int rank = static_cast<int>(op.value->type()->shape().size());
  int k_dim = rhs ? rank - 2 : rank - 1;
  Value* v;
  if (op.format == "e2m1" && op.k_pack && op.scale != nullptr) {
    // Packed along K: both nibbles of a byte share its scale group (G / 2 bytes), so the
    // scale multiplies each half on the bytes' own shape, before the interleave.
    Value* f =
        scale_factor(L, op.scale, rhs, scale_group(op.scale) / 2, compute, fast_math, op.value->type()->shape(), loc);
    Value* lo = apply_scale(L, nibble_e2m1(L, op.value, false, compute, loc), f, loc);
    Value* hi = apply_scale(L, nibble_e2m1(L, op.value, true, compute, loc), f, loc);
    return interleave(L, lo, hi, k_dim, loc);
  }
  if (op.format == "e2m1") {
    int packed_dim = op.k_pack ? k_dim : (rhs ? rank - 1 : rank - 2);
    v = unpack_e2m1(L, op.value, packed_dim, compute, loc);
  } else {
    v = L.cast(op.value, compute, loc);
  }
  if (op.scale == nullptr) return v;
  return apply_scale(
      L, v, scale_factor(L, op.scale, rhs, scale_group(op.scale), compute, fast_math, v->type()->shape(), loc), loc);
}

// Both operands e2m1 packed along K: the sum over K is taken as two dots, the low nibbles'
// (even k) then the high nibbles' (odd k), each over K / 2 and on the bytes' own shapes, so
// no interleave moves the upcast values between threads; a scale group of G elements of K
// is G / 2 bytes of each half, and one spread scale serves both.
Value* dot_scaled_by_halves(Lowerer& L, const Operand& lhs, const Operand& rhs, Value* acc, ScalarKind compute,
                            bool fast_math, const Type* result_type, const Loc& loc) {
  Value *fa = nullptr, *fb = nullptr;
  if (lhs.scale != nullptr) {
    fa = scale_factor(L, lhs.scale, false, scale_group(lhs.scale) / 2, compute, fast_math, lhs.value->type()->shape(),
                      loc);
  }
  if (rhs.scale != nullptr) {
    fb = scale_factor(L, rhs.scale, true, scale_group(rhs.scale) / 2, compute, fast_math, rhs.value->type()->shape(),
                      loc);
  }
  // Both halves upcast first, then the dots (the bytes die before the first dot; measured
  // slightly fewer spills than upcasting each half right before its dot).
  Value* a[2];
  Value* b[2];
  for (int high = 0; high < 2; ++high) {
    a[high] = apply_scale(L, nibble_e2m1(L, lhs.value, high != 0, compute, loc), fa, loc);
    b[high] = apply_scale(L, nibble_e2m1(L, rhs.value, high != 0, compute, loc), fb, loc);
  }
  for (int high = 0; high < 2; ++high) {
    ir::Op* op = L.builder().create(ir::OpKind::Dot, {result_type}, {a[high], b[high], acc}, loc);
    ir::set_enum_attr(*op, ir::InputPrecision::Ieee);
    op->set_attr("max_num_imprecise_acc", int64_t{0});
    acc = op->result();
  }
  return acc;
}

// The scale's checks (the DotScaledOp verifier's, in its words, plus type and rank).
Value* checked_scale(Lowerer& L, const BuiltinArgs& a, const std::string& param, int rank, int64_t rows, int64_t k,
                     const char* rows_name, const Loc& loc) {
  if (!a.has(param)) return nullptr;
  const LValue& v = a.get(param);
  Value* s = L.to_tensor(v, loc);
  const Type* e = s->type()->element();
  if (!s->type()->is_block() || e->is_pointer() ||
      (e->scalar_kind() != ScalarKind::U8 && e->scalar_kind() != ScalarKind::I8 &&
       e->scalar_kind() != ScalarKind::F8E4NV)) {
    error_at(loc, param + " must be a block of uint8 (e8m0 exponents) or float8e4nv (e4m3 scales, NVFP4), got " +
                      v.describe());
  }
  // Triton's op takes any 8-bit integer (i8 in its IR): an int8 block is the same bytes.
  if (e->scalar_kind() == ScalarKind::I8) s = L.cast(s, Type::scalar(ScalarKind::U8), loc, /*bitcast=*/true);
  const std::vector<int64_t>& shape = s->type()->shape();
  if (static_cast<int>(shape.size()) != rank) {
    error_at(loc, param + " must have the rank of its operand (" + std::to_string(rank) + "), got shape " +
                      shape_text(shape));
  }
  if (shape[rank - 2] != rows) {
    error_at(loc, std::string("scales ") + rows_name + " dimension must match the operand " + rows_name + " dimension");
  }
  int64_t group = scale_group(s);
  if (k % group != 0 || shape[rank - 1] != k / group) {
    error_at(loc, "scales K dimension must match the operand K divided by the scale factor (" +
                      std::to_string(group) + "): " + param + " has shape " + shape_text(shape) +
                      " for K = " + std::to_string(k));
  }
  return s;
}

// Triton's sources of these facts: language/core.py and semantic.py (dot_scaled), the
// DotScaledOp verifier (scale shapes) and the DecomposeScaledBlocked pattern (the upcast,
// the compute type, the scale as a shifted exponent, the NaN select).
LValue dot_scaled(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  if (a.has("out_dtype") && a.dtype("out_dtype") != ScalarKind::F32) {
    error_at(loc, "Only float32 is supported for out_dtype at the moment");
  }
  Value* lhs_raw = L.to_tensor(a.get("lhs"), loc);
  Value* rhs_raw = L.to_tensor(a.get("rhs"), loc);
  if (!lhs_raw->type()->is_block() || !rhs_raw->type()->is_block()) {
    error_at(loc, "tl.dot_scaled needs blocks; got " + a.get("lhs").describe() + " and " + a.get("rhs").describe());
  }
  const std::vector<int64_t>& ls0 = lhs_raw->type()->shape();
  const std::vector<int64_t>& rs0 = rhs_raw->type()->shape();
  int rank = static_cast<int>(ls0.size());
  if (rank != static_cast<int>(rs0.size()) || (rank != 2 && rank != 3)) {
    error_at(loc,
             "Both inputs must be either 2D or 3D; (lhs: " + shape_text(ls0) + " vs rhs: " + shape_text(rs0) + ")");
  }
  Operand lhs{nullptr, nullptr, known_format(a, "lhs_format", loc), a.const_bool("lhs_k_pack", true)};
  Operand rhs{nullptr, nullptr, known_format(a, "rhs_format", loc), a.const_bool("rhs_k_pack", true)};
  check_implemented(lhs.format, "lhs", loc);
  check_implemented(rhs.format, "rhs", loc);
  lhs.value = as_format(L, a.get("lhs"), lhs.format, "lhs", loc);
  rhs.value = as_format(L, a.get("rhs"), rhs.format, "rhs", loc);
  for (const Operand* op : {&lhs, &rhs}) {
    if (!op->k_pack && op->format != "e2m1") {
      error_at(loc, "only mxfp4 inputs can be packed along a dimension different than K");
    }
  }
  const std::vector<int64_t>& ls = lhs.value->type()->shape();
  const std::vector<int64_t>& rs = rhs.value->type()->shape();
  int64_t m = ls[rank - 2], k_lhs = ls[rank - 1], k_rhs = rs[rank - 2], n = rs[rank - 1];
  int64_t packed_a = lhs.format == "e2m1" ? 2 : 1, packed_b = rhs.format == "e2m1" ? 2 : 1;
  int64_t k_a = lhs.k_pack ? packed_a * k_lhs : k_lhs, k_b = rhs.k_pack ? packed_b * k_rhs : k_rhs;
  if (k_a != k_b) {
    error_at(loc, "Reduction dimension should pack the same number of elements; (lhs: " + shape_text(ls) +
                      " vs rhs: " + shape_text(rs) + ")");
  }
  if (rank == 3 && ls[0] != rs[0]) {
    error_at(loc,
             "the batch dimensions of tl.dot_scaled's inputs differ: " + shape_text(ls) + " and " + shape_text(rs));
  }
  if (!lhs.k_pack) m *= packed_a;
  if (!rhs.k_pack) n *= packed_b;
  int64_t k = k_a;
  // The dot after the upcast needs one tensor-core step along K (tl.dot's minimum for 16-bit).
  if (k < 16) error_at(loc, "Input shapes should have M >= 1, N >= 1 and K >= 16");
  lhs.scale = checked_scale(L, a, "lhs_scale", rank, m, k, "M", loc);
  rhs.scale = checked_scale(L, a, "rhs_scale", rank, n, k, "N", loc);
  if (rank == 3) {
    for (Value* s : {lhs.scale, rhs.scale}) {
      if (s != nullptr && s->type()->shape()[0] != ls[0]) {
        error_at(loc, "the batch dimension of a dot_scaled scale must match the operands', got " +
                          shape_text(s->type()->shape()));
      }
    }
  }

  std::vector<int64_t> shape(ls.begin(), ls.end() - 2);
  shape.push_back(m);
  shape.push_back(n);
  const Type* result_type = Type::block(Type::scalar(ScalarKind::F32), shape);
  Value* acc;
  if (a.has("acc")) {
    acc = L.to_tensor(a.get("acc"), loc);
    if (acc->type() != result_type) {
      error_at(loc, "acc of tl.dot_scaled must have shape " + shape_text(shape) + " and dtype out_dtype=float32, got " +
                        a.get("acc").describe());
    }
  } else {
    acc = splat(L, ScalarKind::F32, ConstValue::integer(0), shape, loc);
  }

  // Triton's compute type on hardware without native microscaling: fp16 when either side
  // is fp16, else bf16 (every e2m1, e4m3 and e5m2 value is exact in both).
  ScalarKind compute = lhs.format == "fp16" || rhs.format == "fp16" ? ScalarKind::F16 : ScalarKind::BF16;
  bool fast_math = a.const_bool("fast_math", false);
  // Two dots of K / 2 when both sides are K-packed e2m1 and each half is still one
  // tensor-core step deep.
  if (lhs.format == "e2m1" && rhs.format == "e2m1" && lhs.k_pack && rhs.k_pack && (k / 2) % 16 == 0) {
    return LValue::tensor(dot_scaled_by_halves(L, lhs, rhs, acc, compute, fast_math, result_type, loc));
  }
  Value* x = upcast_operand(L, lhs, /*rhs=*/false, compute, fast_math, loc);
  Value* y = upcast_operand(L, rhs, /*rhs=*/true, compute, fast_math, loc);
  ir::Op* op = L.builder().create(ir::OpKind::Dot, {result_type}, {x, y, acc}, loc);
  ir::set_enum_attr(*op, ir::InputPrecision::Ieee);
  op->set_attr("max_num_imprecise_acc", int64_t{0});
  return LValue::tensor(op->result());
}

}  // namespace

void register_dot_scaled_builtins(BuiltinTable& t) {
  t.add("dot_scaled",
        {"lhs", "lhs_scale", "lhs_format", "rhs", "rhs_scale", "rhs_format",
         "acc=", "fast_math=", "lhs_k_pack=", "rhs_k_pack=", "out_dtype="},
        false, dot_scaled);
}

}  // namespace tritium::lower
