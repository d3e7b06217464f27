// Integer semantics of the IR's binary ops: wrap at the type's width, truncating division,
// remainder with the dividend's sign, arithmetic shift right for signed types.
#include "ir/int_arith.h"

#include <algorithm>

namespace tritium::ir {

bool eval_int_binary(OpKind kind, ScalarKind type, int64_t a, int64_t b, int64_t* out) {
  bool is_signed_type = is_signed(type);
  int bits = bit_width(type);
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (kind) {
    case OpKind::Add: *out = static_cast<int64_t>(ua + ub); break;
    case OpKind::Sub: *out = static_cast<int64_t>(ua - ub); break;
    case OpKind::Mul: *out = static_cast<int64_t>(ua * ub); break;
    case OpKind::Div:
    case OpKind::Rem:
      if (b == 0) return false;
      if (is_signed_type) {
        if (a == (bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1))) && b == -1) return false;
        *out = kind == OpKind::Div ? a / b : a % b;
      } else {
        *out = static_cast<int64_t>(kind == OpKind::Div ? ua / ub : ua % ub);
      }
      break;
    case OpKind::And: *out = a & b; break;
    case OpKind::Or: *out = a | b; break;
    case OpKind::Xor: *out = a ^ b; break;
    case OpKind::Shl:
      if (ub >= static_cast<uint64_t>(bits)) return false;
      *out = static_cast<int64_t>(ua << ub);
      break;
    case OpKind::Shr:
      if (ub >= static_cast<uint64_t>(bits)) return false;
      *out = is_signed_type ? a >> b : static_cast<int64_t>(ua >> ub);
      break;
    case OpKind::Minimum: *out = is_signed_type ? std::min(a, b) : static_cast<int64_t>(std::min(ua, ub)); break;
    case OpKind::Maximum: *out = is_signed_type ? std::max(a, b) : static_cast<int64_t>(std::max(ua, ub)); break;
    default: return false;
  }
  *out = wrap_int(*out, type);
  return true;
}

bool eval_int_compare(CmpPredicate predicate, bool is_signed_type, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (predicate) {
    case CmpPredicate::Eq: return a == b;
    case CmpPredicate::Ne: return a != b;
    case CmpPredicate::Lt: return is_signed_type ? a < b : ua < ub;
    case CmpPredicate::Le: return is_signed_type ? a <= b : ua <= ub;
    case CmpPredicate::Gt: return is_signed_type ? a > b : ua > ub;
    case CmpPredicate::Ge: break;
  }
  return is_signed_type ? a >= b : ua >= ub;
}

}  // namespace tritium::ir
