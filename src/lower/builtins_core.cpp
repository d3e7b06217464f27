// Core builtins: program ids, block creation (arange, full, zeros), casts,
// compiler hints, compile-time checks (static_assert, static_print) and the loop iterables.
#include "lower/block_shape.h"
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

LValue program_index(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  __int128 axis = a.const_int("axis");
  // Triton's wording (semantic.py), for program_id and num_programs alike.
  if (axis < 0 || axis > 2) {
    error_at(loc, a.fn() + " axis must be 0, 1, or 2 but got " + int128_to_string(axis));
  }
  ir::OpKind kind = a.fn() == "program_id" ? ir::OpKind::ProgramId : ir::OpKind::NumPrograms;
  ir::Op* op = L.builder().create(kind, {Type::scalar(ScalarKind::I32)}, {}, loc);
  op->set_attr("axis", static_cast<int64_t>(axis));
  return LValue::tensor(op->result());
}

LValue arange(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  __int128 start = a.const_int("start"), end = a.const_int("end");
  if (start < 0 || (start >> 32) != 0 || (end >> 32) != 0) error_at(loc, "tl.arange bounds must fit in 32 bits and start must not be negative");
  if (end <= start) error_at(loc, "tl.arange needs end > start, got arange(" + int128_to_string(start) + ", " + int128_to_string(end) + ")");
  __int128 n = end - start;
  if (n > (1 << 20)) error_at(loc, "tl.arange of " + int128_to_string(n) + " elements exceeds the block limit of 1048576");
  if (!is_power_of_two(static_cast<int64_t>(n))) error_at(loc, "tl.arange's range must be a power of two, got " + int128_to_string(n));
  ir::Op* op = L.builder().create(ir::OpKind::MakeRange, {Type::block(Type::scalar(ScalarKind::I32), {static_cast<int64_t>(n)})}, {}, loc);
  op->set_attr("start", static_cast<int64_t>(start));
  op->set_attr("end", static_cast<int64_t>(end));
  return LValue::tensor(op->result());
}

// tl.full's number as Triton's builder takes it (semantic.scalar_constant: 0 is the null value
// of any type, anything else goes to get_<dtype>, whose integer arguments must be integers in
// the type's range): a float for an integer dtype, or a number outside the dtype, is a
// TypeError there ("get_uint16(): incompatible function arguments"; differential seeds 3023,
// 10000), so a located error here rather than a converted value.
void check_full_value(ScalarKind kind, const ConstValue& c, const Loc& loc) {
  if (ir::is_float(kind) || kind == ScalarKind::I1) return;
  bool is_zero = (c.kind == ConstValue::Kind::Float && c.f == 0) || (c.kind == ConstValue::Kind::Int && c.i == 0) ||
                 c.kind == ConstValue::Kind::Bool;
  if (is_zero) return;
  const std::string what = "tl.full: the value " + c.str() + " is not " + (ir::is_signed(kind) ? "an " : "a ") + ir::scalar_long_name(kind);
  if (c.kind == ConstValue::Kind::Float) error_at(loc, what + " (an integer dtype takes an integer)");
  if (c.kind != ConstValue::Kind::Int) return;
  int bits = ir::bit_width(kind);
  __int128 low = ir::is_signed(kind) ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
  __int128 high = ir::is_signed(kind) ? (static_cast<__int128>(1) << (bits - 1)) - 1 : (static_cast<__int128>(1) << bits) - 1;
  if (c.i < low || c.i > high) error_at(loc, what + " (out of its range)");
}

// full, zeros and zeros_like: a scalar broadcast to the shape.
LValue filled(Lowerer& L, [[maybe_unused]] const std::string& fn, std::vector<int64_t> shape, ScalarKind kind, const LValue& value,
              const Loc& loc) {
  check_block_shape(shape, loc);
  if (fn == "full" && value.is_const()) check_full_value(kind, value.c, loc);
  Value* scalar = value.is_const() ? L.constant(kind, value.c, loc) : L.cast(L.to_tensor(value, loc), kind, loc);
  if (scalar->type()->is_block()) error_at(loc, "the value of tl.full must be a scalar");
  if (shape.empty()) return LValue::tensor(scalar);
  return LValue::tensor(L.broadcast_to(scalar, shape, loc));
}

LValue hint(Lowerer&, const BuiltinArgs& a, const Loc& loc) {
  const std::string& fn = a.fn();
  const LValue& input = a.get("input");
  if (!input.is_tensor()) error_at(loc, "tl." + fn + " needs a tensor");
  std::vector<int64_t> values = a.shape("values");
  int rank = std::max(1, input.value->type()->rank());
  if (static_cast<int>(values.size()) != rank) {
    error_at(loc, "tl." + fn + " needs one value per dimension (" + std::to_string(rank) + "), got " + std::to_string(values.size()));
  }
  for (int64_t v : values) {
    if (!is_power_of_two(v)) error_at(loc, "tl." + fn + " values must be powers of two, got " + std::to_string(v));
  }
  // Like Triton, the hint is an attribute of the op that defines the value (a function
  // argument has no defining op, and the hint is dropped).
  if (ir::Op* def = input.value->def()) {
    const char* attr = fn == "multiple_of" ? "hint_divisibility" : fn == "max_contiguous" ? "hint_contiguity" : "hint_constancy";
    def->set_attr(attr, values);
  }
  return input;
}

LValue none() { return LValue::constant(ConstValue::none()); }

}  // namespace

void register_core_builtins(BuiltinTable& t) {
  // Triton wraps whatever the value is, and a constexpr around a run-time value computes as
  // that value (xformers' split-K attention: `tl.constexpr(diag_idx - N + kv_len)`).
  t.add("constexpr", {"value"}, false, [](Lowerer&, const BuiltinArgs& a, const Loc&) { return a.get("value"); });
  t.add("program_id", {"axis"}, false, program_index);
  t.add("num_programs", {"axis"}, false, program_index);
  t.add("arange", {"start", "end"}, false, arange);
  t.add("zeros", {"shape", "dtype"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return filled(L, "zeros", a.shape("shape"), a.dtype("dtype"), LValue::constant(ConstValue::integer(0)), loc);
  });
  t.add("full", {"shape", "value", "dtype"}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    return filled(L, "full", a.shape("shape"), a.dtype("dtype"), a.get("value"), loc);
  });
  auto cast = [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    bool bit = a.const_bool("bitcast", false);
    const LValue* rounding = a.has("fp_downcast_rounding") ? &a.get("fp_downcast_rounding") : nullptr;
    // A pointer dtype too: pointer to pointer is a bitcast, pointer <-> int64 as Triton's cast.
    return LValue::tensor(L.cast_rounded(L.to_tensor(a.get("input"), loc), a.element_type("dtype"), rounding, loc, bit));
  };
  // tl.dtype("uint16"): the dtype of one of Triton's names (int1, int8.., uint8.., fp8e5..,
  // fp16, bf16, fp32, fp64), made at compile time as Triton calls the class (triton_kernels'
  // topk: `tl.dtype(f"uint{x_nbits}")`).
  t.add("dtype", {"name"}, false, [](Lowerer&, const BuiltinArgs& a, const Loc& loc) {
    const LValue& name = a.get("name");
    if (!name.is_const() || name.c.kind != ConstValue::Kind::Str) {
      error_at(loc, "tl.dtype() takes the name of a type as a compile-time string, got " + name.describe());
    }
    ScalarKind kind;
    if (!ir::parse_scalar_name(name.c.s, &kind) || ir::triton_dtype_name(kind) != name.c.s) {
      error_at(loc, "tl.dtype(): '" + name.c.s + "' is not the name of a Triton type (int8, uint16, fp16, bf16, "
                    "fp32, fp8e4nv, ...)");
    }
    return LValue::constant(ConstValue::type(kind));
  });
  // tl.core.get_int_dtype(bitwidth, signed): Triton's plain function in language/core.py,
  // which kernels call through tl.core (PyTorch's inductor sorts with it:
  // `tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)`). Not a name of
  // tl itself, as in Triton: Lowerer::module_attribute gives it for tl.core only.
  t.add(Builtin{"get_int_dtype", {"bitwidth", "signed"}, false,
                [](Lowerer&, const BuiltinArgs& a, const Loc& loc) {
                  __int128 bits = a.const_int("bitwidth");
                  bool is_signed = a.const_bool("signed", true);
                  if (bits == 1) return LValue::constant(ConstValue::type(ScalarKind::I1));
                  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
                    error_at(loc, "get_int_dtype: unsupported bitwidth " + int128_to_string(bits) +
                                      " (1, 8, 16, 32 or 64)");
                  }
                  ScalarKind kind;
                  std::string name = (is_signed ? "int" : "uint") + std::to_string(static_cast<int>(bits));
                  if (!ir::parse_scalar_name(name, &kind)) error_at(loc, "get_int_dtype: no type " + name);
                  return LValue::constant(ConstValue::type(kind));
                },
                /*function=*/false});
  // tl.core._unwrap_if_constexpr(x): Triton's helper that takes the value out of a constexpr
  // (PyTorch's inductor calls it in kernels on dtype parameters). tritium's lowering holds
  // constants as plain values: the argument itself. tl.core only, as get_int_dtype; the
  // registry's name has no leading underscore (the registry's names are public).
  t.add(Builtin{"unwrap_if_constexpr", {"o"}, false,
                [](Lowerer&, const BuiltinArgs& a, const Loc&) { return a.get("o"); }, /*function=*/false});
  t.add("pointer_type", {"element_ty", "address_space=", "const="}, false,
        [](Lowerer&, const BuiltinArgs& a, const Loc&) {
          return LValue::constant(ConstValue::pointer_type(a.dtype("element_ty")));
        });
  t.add("cast", {"input", "dtype", "fp_downcast_rounding=", "bitcast="}, true, cast);  // also x.cast(...)
  t.add(Builtin{"to", {"input", "dtype", "fp_downcast_rounding=", "bitcast="}, true, cast, /*function=*/false});
  // x.logical_and(y) / x.logical_or(y): of booleans (Triton bitcasts other types to int1,
  // which only int1 survives).
  for (const char* name : {"logical_and", "logical_or"}) {
    const bool is_and = std::string(name) == "logical_and";
    t.add(Builtin{name, {"input", "other"}, true,
                  [is_and](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
                    for (const char* which : {"input", "other"}) {
                      Value* v = L.to_tensor(a.get(which), loc);
                      ScalarKind k = v->type()->element()->scalar_kind();
                      if (k != ScalarKind::I1) {
                        error_at(loc, "Cannot bitcast data-type of size " + std::to_string(ir::bit_width(k)) +
                                          " to data-type of size 1");
                      }
                    }
                    return LValue::tensor(
                        L.logical(is_and ? ir::OpKind::And : ir::OpKind::Or, a.get("input"), a.get("other"), loc));
                  },
                  /*function=*/false});
  }
  for (const char* name : {"multiple_of", "max_contiguous", "max_constancy"}) t.add(name, {"input", "values"}, false, hint);
  t.add("static_assert", {"cond", "msg="}, false, [](Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
    const LValue& cond = a.get("cond");
    if (!cond.is_const()) error_at(loc, "tl.static_assert needs a condition known at compile time, got " + cond.describe());
    if (!L.const_truth(cond, loc)) {
      std::string msg = a.has("msg") && a.get("msg").is_const() ? a.get("msg").c.s : "";
      error_at(loc, "static_assert failed" + (msg.empty() ? std::string() : ": " + msg));
    }
    return none();
  });
  // tl.tuple(iterable): Triton's tuple value made from a tuple or list (tl.tuple([a, b]),
  // tl.tuple((1, 2)) + (3,)); tl.tuple() is the empty tuple.
  t.add("tuple", {"args="}, false, [](Lowerer&, const BuiltinArgs& a, const Loc& loc) {
    if (!a.has("args") || a.get("args").is_none()) return LValue::tuple({});
    const LValue& v = a.get("args");
    if (v.kind != LValue::Kind::Tuple) error_at(loc, "tl.tuple takes a tuple or a list, got " + v.describe());
    return LValue::tuple(v.items);
  });
  for (const char* name : {"static_range", "range"}) {
    t.add(name, {"*args", "num_stages=", "loop_unroll_factor=", "disallow_acc_multi_buffer=", "flatten=",
                 "warp_specialize=", "disable_licm="},
          false, [](Lowerer&, const BuiltinArgs& a, const Loc& loc) -> LValue {
      error_at(loc, "tl." + a.fn() + "() can only be used as the iterable of a for loop");
    });
  }
}

}  // namespace tritium::lower
