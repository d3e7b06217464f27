// Python semantics for compile-time values: arithmetic on constexprs folds exactly as
// Python would (floor division, modulo with the divisor's sign, 128-bit ints as the bound).
#include <cmath>

#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

namespace {

using Kind = ConstValue::Kind;

bool is_number(const ConstValue& v) {
  return v.kind == Kind::Int || v.kind == Kind::Bool || v.kind == Kind::Float;
}

// Python's int view of a bool or int.
__int128 as_int(const ConstValue& v) { return v.kind == Kind::Bool ? (v.b ? 1 : 0) : v.i; }

double as_float(const ConstValue& v) {
  return v.kind == Kind::Float ? v.f : static_cast<double>(as_int(v));
}

std::string kind_name(const ConstValue& v) {
  switch (v.kind) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::DType: return "dtype";
    case Kind::Object: return v.object_type();
  }
  return "?";
}

[[noreturn]] void bad_operands(const char* op, const ConstValue& lhs, const ConstValue& rhs,
                               const Loc& loc) {
  error_at(loc, std::string("unsupported operand types for ") + op + ": '" + kind_name(lhs) +
                    "' and '" + kind_name(rhs) + "'");
}

void check_overflow(bool overflow, const Loc& loc) {
  if (overflow) error_at(loc, "integer constant overflows 128 bits");
}

__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

__int128 floor_mod(__int128 a, __int128 b) { return a - floor_div(a, b) * b; }

ConstValue int_binary(ast::BinaryOp op, __int128 a, __int128 b, const Loc& loc) {
  __int128 r = 0;
  switch (op) {
    case ast::BinaryOp::Add: check_overflow(__builtin_add_overflow(a, b, &r), loc); return ConstValue::integer(r);
    case ast::BinaryOp::Sub: check_overflow(__builtin_sub_overflow(a, b, &r), loc); return ConstValue::integer(r);
    case ast::BinaryOp::Mul: check_overflow(__builtin_mul_overflow(a, b, &r), loc); return ConstValue::integer(r);
    case ast::BinaryOp::Div:
      if (b == 0) error_at(loc, "division by zero in a constant expression");
      return ConstValue::floating(static_cast<double>(a) / static_cast<double>(b));
    case ast::BinaryOp::FloorDiv:
      if (b == 0) error_at(loc, "integer division by zero in a constant expression");
      return ConstValue::integer(floor_div(a, b));
    case ast::BinaryOp::Mod:
      if (b == 0) error_at(loc, "integer modulo by zero in a constant expression");
      return ConstValue::integer(floor_mod(a, b));
    case ast::BinaryOp::Pow: {
      if (b < 0) return ConstValue::floating(std::pow(static_cast<double>(a), static_cast<double>(b)));
      __int128 result = 1;
      for (__int128 i = 0; i < b; ++i) {
        check_overflow(__builtin_mul_overflow(result, a, &result), loc);
        if (result == 0 || result == 1) break;
      }
      return ConstValue::integer(result);
    }
    case ast::BinaryOp::LShift:
      if (b < 0) error_at(loc, "negative shift count");
      if (b >= 127 || (a != 0 && (a << b) >> b != a)) error_at(loc, "integer constant overflows 128 bits");
      return ConstValue::integer(a << b);
    case ast::BinaryOp::RShift:
      if (b < 0) error_at(loc, "negative shift count");
      return ConstValue::integer(b >= 127 ? (a < 0 ? -1 : 0) : a >> b);
    case ast::BinaryOp::BitAnd: return ConstValue::integer(a & b);
    case ast::BinaryOp::BitOr: return ConstValue::integer(a | b);
    case ast::BinaryOp::BitXor: return ConstValue::integer(a ^ b);
    case ast::BinaryOp::MatMul: break;
  }
  error_at(loc, std::string("operator ") + ast::spelling(op) + " is not supported on integers");
}

ConstValue float_binary(ast::BinaryOp op, double a, double b, const Loc& loc) {
  switch (op) {
    case ast::BinaryOp::Add: return ConstValue::floating(a + b);
    case ast::BinaryOp::Sub: return ConstValue::floating(a - b);
    case ast::BinaryOp::Mul: return ConstValue::floating(a * b);
    case ast::BinaryOp::Div:
      if (b == 0) error_at(loc, "float division by zero in a constant expression");
      return ConstValue::floating(a / b);
    case ast::BinaryOp::FloorDiv:
      if (b == 0) error_at(loc, "float floor division by zero in a constant expression");
      return ConstValue::floating(std::floor(a / b));
    case ast::BinaryOp::Mod: {
      if (b == 0) error_at(loc, "float modulo by zero in a constant expression");
      double r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;  // Python: the sign of the divisor
      return ConstValue::floating(r);
    }
    case ast::BinaryOp::Pow: return ConstValue::floating(std::pow(a, b));
    default: break;
  }
  error_at(loc, std::string("operator ") + ast::spelling(op) + " is not supported on floats");
}

int three_way(const ConstValue& a, const ConstValue& b) {
  if (a.kind == Kind::Float || b.kind == Kind::Float) {
    double x = as_float(a), y = as_float(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  __int128 x = as_int(a), y = as_int(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace

ConstValue const_binary(ast::BinaryOp op, const ConstValue& lhs, const ConstValue& rhs,
                        const Loc& loc) {
  if (lhs.kind == Kind::Str && rhs.kind == Kind::Str && op == ast::BinaryOp::Add) {
    return ConstValue::string(lhs.s + rhs.s);
  }
  if (!is_number(lhs) || !is_number(rhs)) bad_operands(ast::spelling(op), lhs, rhs, loc);
  bool bitwise = op == ast::BinaryOp::BitAnd || op == ast::BinaryOp::BitOr || op == ast::BinaryOp::BitXor;
  if (bitwise && lhs.kind == Kind::Bool && rhs.kind == Kind::Bool) {
    bool a = lhs.b, b = rhs.b;
    return ConstValue::boolean(op == ast::BinaryOp::BitAnd ? (a && b) : op == ast::BinaryOp::BitOr ? (a || b) : (a != b));
  }
  if (lhs.kind == Kind::Float || rhs.kind == Kind::Float) {
    return float_binary(op, as_float(lhs), as_float(rhs), loc);
  }
  return int_binary(op, as_int(lhs), as_int(rhs), loc);
}

ConstValue const_unary(ast::UnaryOp op, const ConstValue& operand, const Loc& loc) {
  if (op == ast::UnaryOp::Not) {
    switch (operand.kind) {
      case Kind::None: return ConstValue::boolean(true);
      case Kind::Bool: return ConstValue::boolean(!operand.b);
      case Kind::Int: return ConstValue::boolean(operand.i == 0);
      case Kind::Float: return ConstValue::boolean(operand.f == 0);
      case Kind::Str: return ConstValue::boolean(operand.s.empty());
      case Kind::DType: return ConstValue::boolean(false);
      case Kind::Object: return ConstValue::boolean(!operand.object->truth);
    }
  }
  if (!is_number(operand)) {
    error_at(loc, std::string("bad operand type for unary ") + ast::spelling(op) + ": '" +
                      kind_name(operand) + "'");
  }
  switch (op) {
    case ast::UnaryOp::Neg:
      if (operand.kind == Kind::Float) return ConstValue::floating(-operand.f);
      return ConstValue::integer(-as_int(operand));
    case ast::UnaryOp::Pos:
      if (operand.kind == Kind::Float) return operand;
      return ConstValue::integer(as_int(operand));
    case ast::UnaryOp::Invert:
      if (operand.kind == Kind::Float) error_at(loc, "bad operand type for unary ~: 'float'");
      return ConstValue::integer(~as_int(operand));
    case ast::UnaryOp::Not: break;
  }
  internal_error("const_eval", "unknown unary operator", loc);
}

ConstValue const_compare(ast::CompareOp op, const ConstValue& lhs, const ConstValue& rhs,
                         const Loc& loc) {
  switch (op) {
    case ast::CompareOp::Is:
    case ast::CompareOp::IsNot: {
      bool same = lhs.kind == rhs.kind && lhs == rhs;
      if ((lhs.kind == Kind::None) != (rhs.kind == Kind::None)) same = false;
      return ConstValue::boolean(op == ast::CompareOp::Is ? same : !same);
    }
    case ast::CompareOp::Eq:
    case ast::CompareOp::NotEq: {
      bool equal;
      if (is_number(lhs) && is_number(rhs)) {
        equal = three_way(lhs, rhs) == 0 && !(lhs.kind == Kind::Float && std::isnan(lhs.f)) &&
                !(rhs.kind == Kind::Float && std::isnan(rhs.f));
      } else {
        equal = lhs.kind == rhs.kind && lhs == rhs;
      }
      return ConstValue::boolean(op == ast::CompareOp::Eq ? equal : !equal);
    }
    case ast::CompareOp::Lt:
    case ast::CompareOp::LtE:
    case ast::CompareOp::Gt:
    case ast::CompareOp::GtE: {
      if (lhs.kind == Kind::Str && rhs.kind == Kind::Str) {
        int c = lhs.s.compare(rhs.s);
        bool r = op == ast::CompareOp::Lt ? c < 0 : op == ast::CompareOp::LtE ? c <= 0
               : op == ast::CompareOp::Gt ? c > 0 : c >= 0;
        return ConstValue::boolean(r);
      }
      if (!is_number(lhs) || !is_number(rhs)) bad_operands(ast::spelling(op), lhs, rhs, loc);
      if ((lhs.kind == Kind::Float && std::isnan(lhs.f)) || (rhs.kind == Kind::Float && std::isnan(rhs.f))) {
        return ConstValue::boolean(false);
      }
      int c = three_way(lhs, rhs);
      bool r = op == ast::CompareOp::Lt ? c < 0 : op == ast::CompareOp::LtE ? c <= 0
             : op == ast::CompareOp::Gt ? c > 0 : c >= 0;
      return ConstValue::boolean(r);
    }
    case ast::CompareOp::In:
    case ast::CompareOp::NotIn: break;
  }
  error_at(loc, std::string("operator '") + ast::spelling(op) + "' is not supported in kernels");
}

}  // namespace tritium::lower
