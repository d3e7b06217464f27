// The interpreter's tl.inline_asm_elementwise: an asm text that is one PTX f32 instruction
// (`tanh.approx.f32 $0, $1;`, `fma.rn.ftz.f32 $0, $1, $2, $3;`, `ex2.approx.ftz.f32 $0, $1;`:
// what kernels write to reach an instruction Triton has no function for) is evaluated
// element by element; any other assembly stays a located error naming what was refused.
// Projects' kernels (mamba-ssm's Mamba-3, fla's softplus, Liger's cross entropy, vLLM's
// mamba helpers) use exactly these single instructions.
//
// Semantics, per the PTX ISA: `.approx` functions (ex2, lg2, rcp, rsqrt, sqrt, sin, cos,
// tanh, div) are computed exactly and rounded to nearest (the GPU's approximation is within
// the ISA's stated few ulp of that); add/sub/mul/fma/div/sqrt `.rn` (the default where no
// rounding is written) round to nearest even, `.rz`/`.rm`/`.rp` on add/sub/mul round as
// written; `.ftz` flushes subnormal inputs and results to zero of the same sign; max/min
// return the other operand when one is NaN (.NaN: NaN), .xorsign.abs compares magnitudes and
// gives the result the xor of the operands' signs. Operands are `$k` or f32 literals
// `0fXXXXXXXX`; the asm may be one instruction in braces (`{ max.NaN.xorsign.abs.f32 ...; }`,
// triton_kernels' flexpoint) and its constraints may pass the f32 values as b32 ("=r,r,r").
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "interp/eval_ops.h"
#include "support/diagnostics.h"

namespace tritium::interp {
namespace {

enum class AsmFn { Ex2, Lg2, Rcp, Rsqrt, Sqrt, Sin, Cos, Tanh, Add, Sub, Mul, Div, Fma, Max, Min, Neg, Abs };
enum class AsmRound { Nearest, Zero, Down, Up };

struct AsmInstruction {
  AsmFn fn = AsmFn::Add;
  AsmRound rounding = AsmRound::Nearest;
  bool ftz = false;
  bool nan = false;      // max/min .NaN: a NaN operand gives NaN
  bool xorsign = false;  // max/min .xorsign.abs: of the magnitudes, sign = xor of the signs
  // each source operand: the argument index (>= 0), or -1 with `literal`
  std::vector<int> sources;
  std::vector<float> literals;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    parts.push_back(trim(s.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

// The instruction, or an explanation of why it is not one the interpreter evaluates.
bool parse_instruction(const std::string& text, size_t n_args, AsmInstruction& ins, std::string& why) {
  std::string body = trim(text);
  if (body.size() >= 2 && body.front() == '{' && body.back() == '}') {  // `{ one instruction; }`
    body = trim(body.substr(1, body.size() - 2));
  }
  if (!body.empty() && body.back() == ';') body = trim(body.substr(0, body.size() - 1));
  if (body.find_first_of(";{}\n") != std::string::npos) {
    why = "it is more than one instruction";
    return false;
  }
  size_t space = body.find_first_of(" \t");
  if (space == std::string::npos) {
    why = "it has no operands";
    return false;
  }
  const std::string opcode = body.substr(0, space);
  std::vector<std::string> parts = split(opcode, '.');
  if (parts.size() < 2 || parts.back() != "f32") {
    why = "'" + opcode + "' is not an f32 instruction";
    return false;
  }
  const std::string& name = parts[0];
  bool approx = false;
  bool full = false;
  bool abs = false;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    const std::string& m = parts[i];
    if (m == "ftz") ins.ftz = true;
    else if (m == "NaN" && (name == "max" || name == "min")) ins.nan = true;
    else if (m == "xorsign" && (name == "max" || name == "min")) ins.xorsign = true;
    else if (m == "abs" && ins.xorsign) abs = true;
    else if (m == "approx") approx = true;
    else if (m == "full") full = true;
    else if (m == "rn") ins.rounding = AsmRound::Nearest;
    else if (m == "rz") ins.rounding = AsmRound::Zero;
    else if (m == "rm") ins.rounding = AsmRound::Down;
    else if (m == "rp") ins.rounding = AsmRound::Up;
    else {
      why = "the modifier ." + m + " of '" + opcode + "' is not one the interpreter evaluates";
      return false;
    }
  }
  struct Known { const char* name; AsmFn fn; int arity; bool needs_approx; };
  static const Known known[] = {
      {"ex2", AsmFn::Ex2, 1, true},   {"lg2", AsmFn::Lg2, 1, true},   {"rcp", AsmFn::Rcp, 1, false},
      {"rsqrt", AsmFn::Rsqrt, 1, true}, {"sqrt", AsmFn::Sqrt, 1, false}, {"sin", AsmFn::Sin, 1, true},
      {"cos", AsmFn::Cos, 1, true},   {"tanh", AsmFn::Tanh, 1, true}, {"add", AsmFn::Add, 2, false},
      {"sub", AsmFn::Sub, 2, false},  {"mul", AsmFn::Mul, 2, false},  {"div", AsmFn::Div, 2, false},
      {"fma", AsmFn::Fma, 3, false},  {"max", AsmFn::Max, 2, false},  {"min", AsmFn::Min, 2, false},
      {"neg", AsmFn::Neg, 1, false},  {"abs", AsmFn::Abs, 1, false},
  };
  if (ins.xorsign && !abs) {
    why = "'" + opcode + "': .xorsign needs .abs";
    return false;
  }
  const Known* k = nullptr;
  for (const Known& candidate : known) {
    if (name == candidate.name) k = &candidate;
  }
  if (k == nullptr) {
    why = "'" + opcode + "' is not an instruction the interpreter evaluates";
    return false;
  }
  if (k->needs_approx && !approx) {
    why = "'" + opcode + "' needs .approx";
    return false;
  }
  const bool directed = ins.rounding != AsmRound::Nearest;
  if (directed && k->fn != AsmFn::Add && k->fn != AsmFn::Sub && k->fn != AsmFn::Mul) {
    why = "the interpreter rounds '" + opcode + "' only to nearest";
    return false;
  }
  if ((approx || full) && k->fn == AsmFn::Fma) {
    why = "'" + opcode + "' is not a PTX instruction";
    return false;
  }
  ins.fn = k->fn;
  std::vector<std::string> operands = split(body.substr(space + 1), ',');
  if (static_cast<int>(operands.size()) != k->arity + 1) {
    why = "'" + opcode + "' takes " + std::to_string(k->arity + 1) + " operands";
    return false;
  }
  if (operands[0] != "$0") {
    why = "its result is not $0";
    return false;
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    const std::string& o = operands[i];
    if (o.size() >= 2 && o[0] == '$') {
      size_t used = 0;
      int index = -1;
      try {
        index = std::stoi(o.substr(1), &used);
      } catch (...) {
        used = 0;
      }
      if (used != o.size() - 1 || index < 1 || static_cast<size_t>(index) > n_args) {
        why = "the operand " + o + " names no argument";
        return false;
      }
      ins.sources.push_back(index - 1);
      ins.literals.push_back(0.0f);
    } else if (o.size() == 10 && (o.compare(0, 2, "0f") == 0 || o.compare(0, 2, "0F") == 0) &&
               o.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos) {
      const uint32_t bits = static_cast<uint32_t>(std::stoul(o.substr(2), nullptr, 16));
      float value;
      std::memcpy(&value, &bits, sizeof value);
      ins.sources.push_back(-1);
      ins.literals.push_back(value);
    } else {
      why = "the operand '" + o + "' is neither $k nor an f32 literal 0fXXXXXXXX";
      return false;
    }
  }
  return true;
}

float flush(float x, bool ftz) {
  if (ftz && x != 0.0f && std::fabs(x) < FLT_MIN) return std::copysign(0.0f, x);
  return x;
}

// The double `exact + error` (error from TwoSum, exactly representable) rounded to f32 in
// the directed mode.
float round_directed(double value, double error, AsmRound mode) {
  float f = static_cast<float>(value);
  if (std::isnan(value) || std::isinf(value)) return f;
  const double fd = static_cast<double>(f);
  const bool above = fd > value || (fd == value && error < 0);
  const bool below = fd < value || (fd == value && error > 0);
  if (mode == AsmRound::Down && above) return std::nextafter(f, -INFINITY);
  if (mode == AsmRound::Up && below) return std::nextafter(f, INFINITY);
  if (mode == AsmRound::Zero) {
    if (f > 0 && above) return std::nextafter(f, 0.0f);
    if (f < 0 && below) return std::nextafter(f, 0.0f);
    if (std::isinf(f)) return std::nextafter(f, 0.0f);
  }
  if (mode == AsmRound::Down && std::isinf(f) && f > 0) return FLT_MAX;
  if (mode == AsmRound::Up && std::isinf(f) && f < 0) return -FLT_MAX;
  return f;
}

float evaluate(const AsmInstruction& ins, const float* a) {
  switch (ins.fn) {
    case AsmFn::Ex2: return static_cast<float>(std::exp2(static_cast<double>(a[0])));
    case AsmFn::Lg2: return static_cast<float>(std::log2(static_cast<double>(a[0])));
    case AsmFn::Rcp: return 1.0f / a[0];  // float arithmetic: correctly rounded
    case AsmFn::Rsqrt: return static_cast<float>(1.0 / std::sqrt(static_cast<double>(a[0])));
    case AsmFn::Sqrt: return std::sqrt(a[0]);
    case AsmFn::Sin: return static_cast<float>(std::sin(static_cast<double>(a[0])));
    case AsmFn::Cos: return static_cast<float>(std::cos(static_cast<double>(a[0])));
    case AsmFn::Tanh: return static_cast<float>(std::tanh(static_cast<double>(a[0])));
    case AsmFn::Div: return a[0] / a[1];
    case AsmFn::Fma: return std::fmaf(a[0], a[1], a[2]);
    case AsmFn::Max: case AsmFn::Min: {
      float x = a[0], y = a[1];
      if (ins.nan && (std::isnan(x) || std::isnan(y))) return std::numeric_limits<float>::quiet_NaN();
      const bool negative = std::signbit(x) != std::signbit(y);
      if (ins.xorsign) {
        x = std::fabs(x);
        y = std::fabs(y);
      }
      float r = ins.fn == AsmFn::Max ? std::fmax(x, y) : std::fmin(x, y);
      // -0 and +0 are ordered as the hardware orders them: max(-0, +0) = +0, min = -0
      if (x == 0 && y == 0) r = ins.fn == AsmFn::Max ? (std::signbit(x) && std::signbit(y) ? -0.0f : 0.0f)
                                                     : (std::signbit(x) || std::signbit(y) ? -0.0f : 0.0f);
      return ins.xorsign ? std::copysign(r, negative ? -1.0f : 1.0f) : r;
    }
    case AsmFn::Neg: return -a[0];
    case AsmFn::Abs: return std::fabs(a[0]);
    case AsmFn::Add: case AsmFn::Sub: case AsmFn::Mul: break;
  }
  const double x = a[0];
  const double y = ins.fn == AsmFn::Sub ? -static_cast<double>(a[1]) : static_cast<double>(a[1]);
  if (ins.fn == AsmFn::Mul) {
    const double product = x * y;  // exact: 24 + 24 bits
    return ins.rounding == AsmRound::Nearest ? static_cast<float>(product) : round_directed(product, 0.0, ins.rounding);
  }
  const double sum = x + y;
  if (ins.rounding == AsmRound::Nearest) return static_cast<float>(sum);
  const double yv = sum - x;  // TwoSum: the exact error of the double sum
  const double error = (x - (sum - yv)) + (y - yv);
  return round_directed(sum, std::isfinite(error) ? error : 0.0, ins.rounding);
}

}  // namespace

void eval_inline_asm(const ir::Op& op, const std::vector<const Buffer*>& operands, Buffer& result) {
  const std::string& text = op.str_attr("asm");
  std::string why;
  AsmInstruction ins;
  bool ok = true;
  if (op.has_attr("pack") && op.int_attr("pack") > 1) {
    ok = false;
    why = "it packs several elements into one call";
  } else if (op.str_attr("result_types").find(',') != std::string::npos) {
    ok = false;
    why = "it has several outputs";
  } else if (result.kind != ir::ScalarKind::F32) {
    ok = false;
    why = "its result is not fp32";
  } else {
    for (const Buffer* b : operands) {
      if (b->kind != ir::ScalarKind::F32 || b->is_ptr) {
        ok = false;
        why = "an argument is not fp32";
      }
    }
  }
  if (ok) ok = parse_instruction(text, operands.size(), ins, why);
  if (!ok) {
    error_at(op.loc(), "tl.inline_asm_elementwise runs only on the GPU: the interpreter evaluates one PTX f32 "
                       "instruction ($0 from $1.., e.g. 'tanh.approx.f32 $0, $1;'), and this assembly is not one (" +
                           why + ")");
  }
  const int64_t n = result.size();
  Slot* out = result.data();
  float args[3] = {};
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < ins.sources.size(); ++k) {
      const int s = ins.sources[k];
      args[k] = flush(s >= 0 ? static_cast<float>(operands[static_cast<size_t>(s)]->data()[i].f) : ins.literals[k], ins.ftz);
    }
    out[i].f = static_cast<double>(flush(evaluate(ins, args), ins.ftz));
  }
}

}  // namespace tritium::interp
