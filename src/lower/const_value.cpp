// Compile-time values: their canonical Python-repr-like text (the signature text and the
// cache key use it) and equality.
#include "lower/const_value.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace tritium {

namespace {

// Python's repr of a float: the shortest digits that read back exactly, in fixed notation
// when the decimal exponent is in [-4, 16), else in scientific notation with at least two
// exponent digits ("1e-05", "1e+16", "1.5e+300"); integral values keep a ".0".
std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";

  // Shortest round-trip digits in scientific form: "d[.ddd]e[+-]xx".
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  (void)ec;  // 64 bytes always suffice for a double
  std::string sci(buf, end);
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e_pos = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < e_pos; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  int exponent = std::atoi(sci.c_str() + e_pos + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += exponent < 0 ? "e-" : "e+";
    int magnitude = std::abs(exponent);
    if (magnitude < 10) out += "0";
    out += std::to_string(magnitude);
    return out;
  }
  if (exponent < 0) {
    out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    return out;
  }
  size_t int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    out += digits + std::string(int_digits - digits.size(), '0') + ".0";
  } else {
    out += digits.substr(0, int_digits) + "." + digits.substr(int_digits);
  }
  return out;
}

// Python's repr of a str: single quotes unless the text holds a single quote and no double
// quote; backslashes, the chosen quote and control characters escaped.
std::string str_repr(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

}  // namespace

std::string int128_to_string(__int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  // Work on the magnitude as unsigned so the most negative value does not overflow.
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(value)
               : static_cast<unsigned __int128>(value);
  char buf[48];
  int pos = sizeof(buf);
  while (magnitude != 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  }
  if (negative) buf[--pos] = '-';
  return std::string(buf + pos, buf + sizeof(buf));
}

std::string ConstValue::str() const {
  switch (kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return b ? "True" : "False";
    case Kind::Int:
      return int128_to_string(i);
    case Kind::Float:
      return float_repr(f);
    case Kind::Str:
      return str_repr(s);
    case Kind::DType:
      return pointer ? std::string("pointer<") + ir::scalar_name(dtype) + ">" : ir::scalar_name(dtype);
    case Kind::Object:
      return "object(" + s + ")";  // signature text: parse_signature looks it up by this
  }
  return "?";
}

bool ConstValue::operator==(const ConstValue& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::None:
      return true;
    case Kind::Bool:
      return b == other.b;
    case Kind::Int:
      return i == other.i;
    case Kind::Float:
      // Bitwise, like the text form: every NaN equals every NaN, 0.0 and -0.0 differ (they may
      // compile differently, and the cache key must tell them apart).
      if (std::isnan(f) && std::isnan(other.f)) return true;
      return std::memcmp(&f, &other.f, sizeof(f)) == 0;
    case Kind::Str:
      return s == other.s;
    case Kind::DType:
      return dtype == other.dtype && pointer == other.pointer;
    case Kind::Object:
      // By type and repr: Triton's cache key is the text of the specialization (the repr).
      return s == other.s && object_type() == other.object_type();
  }
  return false;
}

}  // namespace tritium
