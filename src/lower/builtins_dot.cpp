// tl.dot (and the `@` operator): Triton 3.6's checks and result types (language/core.py
// dot, semantic.py dot, the NVIDIA backend's min_dot_size) in Triton's words, then one
// `dot` op with the operand convention of ir/ops.def.
#include <cctype>
#include <cstdlib>
#include <optional>

#include "ir/attrs.h"
#include "ir/op_views.h"
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

// The fp8 formats with tensor-core support (OCP e4m3 and e5m2); the others are widened to
// fp16 first, as Triton does for fp8e4b15 (and the AMD-only fnuz formats).
bool is_ocp_fp8(ScalarKind k) { return k == ScalarKind::F8E4NV || k == ScalarKind::F8E5; }

// The default input_precision: TRITIUM_F32_DEFAULT, else Triton's TRITON_F32_DEFAULT (both
// codegen knobs in the cache key), else "tf32" unless allow_tf32=False says "ieee".
std::string default_precision(const BuiltinArgs& a) {
  for (const char* name : {"TRITIUM_F32_DEFAULT", "TRITON_F32_DEFAULT"}) {
    const char* env = std::getenv(name);
    if (env != nullptr && *env != '\0') return env;
  }
  return a.has("allow_tf32") && !a.const_bool("allow_tf32", true) ? "ieee" : "tf32";
}

// The precision to store: Triton's check (case-insensitive), then "ieee" for anything
// but fp32 inputs, where the option means nothing.
ir::InputPrecision checked_precision(const std::string& given, ScalarKind input, const Loc& loc) {
  std::string lower;
  for (char c : given) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "bf16x3" || lower == "bf16x6") {
    error_at(loc, "input_precision='" + lower + "' is not supported by tritium yet (use 'tf32', 'tf32x3' or 'ieee')");
  }
  std::optional<ir::InputPrecision> precision = ir::parse_enum<ir::InputPrecision>(lower);
  if (!precision) error_at(loc, "input_precision must be one of ('tf32', 'tf32x3', 'ieee'). Got " + given);
  return input == ScalarKind::F32 ? *precision : ir::InputPrecision::Ieee;
}

Value* block_operand(Lowerer& L, const LValue& v, const char* side, const Loc& loc) {
  Value* t = L.to_tensor(v, loc);
  if (!t->type()->is_block()) {
    error_at(loc, std::string("tl.dot needs blocks; the ") + side + " operand is " + v.describe());
  }
  return t;
}

LValue dot(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  if (a.has("input_precision") && a.has("allow_tf32")) {
    error_at(loc, "Only one of input_precision and allow_tf32 can be specified");
  }
  std::string precision = a.has("input_precision") ? a.const_str("input_precision", "") : default_precision(a);
  Value* lhs = block_operand(L, a.get("input"), "first", loc);
  Value* rhs = block_operand(L, a.get("other"), "second", loc);
  const Type* le = lhs->type()->element();
  const Type* re = rhs->type()->element();
  bool both_fp8 = le->is_scalar() && re->is_scalar() && ir::is_fp8(le->scalar_kind()) && ir::is_fp8(re->scalar_kind());
  if (!both_fp8) {
    auto supported = [](const Type* e) {
      if (!e->is_scalar()) return false;
      switch (e->scalar_kind()) {
        case ScalarKind::I8: case ScalarKind::U8: case ScalarKind::F16: case ScalarKind::BF16:
        case ScalarKind::F32: case ScalarKind::F64:
          return true;
        default: return false;
      }
    };
    if (!supported(le)) error_at(loc, "Unsupported lhs dtype " + dtype_text(le));
    if (!supported(re)) error_at(loc, "Unsupported rhs dtype " + dtype_text(re));
    if (le != re) error_at(loc, "Both operands must be same dtype. Got " + dtype_text(le) + " and " + dtype_text(re));
  } else if (!is_ocp_fp8(le->scalar_kind()) || !is_ocp_fp8(re->scalar_kind())) {
    // Exact: every value of these formats is an fp16 value.
    lhs = L.cast(lhs, ScalarKind::F16, loc);
    rhs = L.cast(rhs, ScalarKind::F16, loc);
  }
  ScalarKind in = lhs->type()->element()->scalar_kind();
  ir::InputPrecision input_precision = checked_precision(precision, in, loc);

  const std::vector<int64_t>& ls = lhs->type()->shape();
  const std::vector<int64_t>& rs = rhs->type()->shape();
  int rank = static_cast<int>(ls.size());
  if (rank != static_cast<int>(rs.size()) || (rank != 2 && rank != 3)) {
    error_at(loc, "Both inputs must be either 2D or 3D; (lhs: " + shape_text(ls) + " vs rhs: " + shape_text(rs) + ")");
  }
  int64_t k = ls[rank - 1], n = rs[rank - 1];
  if (k != rs[rank - 2]) {
    error_at(loc, "First input shape (" + shape_text(ls) + ") and second input shape " + shape_text(rs) +
                      " are not compatible for matmul (second index of first shape (" + std::to_string(k) +
                      ") must be equal to first index of second shape (" + std::to_string(rs[rank - 2]) + "))");
  }
  if (rank == 3 && ls[0] != rs[0]) {
    error_at(loc, "the batch dimensions of tl.dot's inputs differ: " + shape_text(ls) + " and " + shape_text(rs));
  }
  // The NVIDIA backend's min_dot_size: small M and N are padded; K needs one tensor-core step.
  int64_t min_k = ir::bit_width(in) == 8 ? 32 : 16;
  if (k < min_k) {
    error_at(loc, "Input shapes should have M >= 1, N >= 1 and K >= " + std::to_string(min_k));
  }

  ScalarKind out_dtype = a.has("out_dtype") ? a.dtype("out_dtype") : ScalarKind::F32;
  ScalarKind result;
  if (ir::is_integer(in)) {
    if (in != ScalarKind::I8) error_at(loc, "only int8 supported!");
    result = ScalarKind::I32;
  } else if (out_dtype == ScalarKind::BF16) {
    error_at(loc, "out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast with "
                  "`.to(tl.bfloat16)`");
  } else if (in == ScalarKind::F32 || in == ScalarKind::BF16) {
    result = ScalarKind::F32;
  } else if (in == ScalarKind::F64) {
    result = ScalarKind::F64;
  } else {
    if (out_dtype != ScalarKind::F32 && out_dtype != ScalarKind::F16) {
      error_at(loc, "out_dtype of tl.dot on " + dtype_text(lhs->type()->element()) +
                        " inputs must be tl.float32 or tl.float16, got " + ir::scalar_long_name(out_dtype));
    }
    result = out_dtype;
  }
  std::vector<int64_t> shape(ls.begin(), ls.end() - 1);
  shape.push_back(n);
  const Type* result_type = Type::block(Type::scalar(result), shape);

  Value* acc;
  if (a.has("acc")) {
    acc = L.to_tensor(a.get("acc"), loc);
    const Type* at = acc->type();
    // Triton: the accumulator has the result's shape and the element type out_dtype.
    if (at->shape() != shape || at->element() != Type::scalar(out_dtype)) {
      std::string hint = at->shape() == shape && at->element()->is_scalar()
                             ? " (pass out_dtype=tl." + std::string(ir::scalar_long_name(at->element()->scalar_kind())) + ")"
                             : "";
      error_at(loc, "acc of tl.dot must have shape " + shape_text(shape) + " and dtype out_dtype=" +
                        ir::scalar_long_name(out_dtype) + ", got " + at->str() + hint);
    }
    if (at != result_type) {
      error_at(loc, "acc of tl.dot has dtype " + dtype_text(at->element()) + ", but tl.dot of " +
                        dtype_text(lhs->type()->element()) + " inputs produces " + ir::scalar_name(result));
    }
  } else {
    acc = L.broadcast_to(L.constant(result, ConstValue::integer(0), loc), shape, loc);
  }

  // Not given: Triton's sm_90 default for fp8 x fp8 (2^30, more than any K: the tensor cores
  // accumulate all of K in their own precision), 0 otherwise.
  int64_t imprecise = both_fp8 ? ir::kImpreciseAccAll : 0;
  if (a.has("max_num_imprecise_acc")) {
    __int128 given = a.const_int("max_num_imprecise_acc");
    if (given < 0 || given > (int64_t{1} << 40)) {
      error_at(loc, "max_num_imprecise_acc must be a non-negative integer, got " + int128_to_string(given));
    }
    imprecise = static_cast<int64_t>(given);
    if (both_fp8 && imprecise > k) {
      error_at(loc, "max_num_imprecise_acc (" + std::to_string(imprecise) + ") must be <= K (" + std::to_string(k) + ")");
    }
  }

  ir::Op* op = L.builder().create(ir::OpKind::Dot, {result_type}, {lhs, rhs, acc}, loc);
  ir::set_enum_attr(*op, input_precision);
  op->set_attr("max_num_imprecise_acc", imprecise);
  return LValue::tensor(op->result());
}

}  // namespace

void register_dot_builtins(BuiltinTable& t) {
  t.add("dot", {"input", "other", "acc=", "input_precision=", "allow_tf32=", "max_num_imprecise_acc=", "out_dtype="},
        false, dot);
}

}  // namespace tritium::lower
