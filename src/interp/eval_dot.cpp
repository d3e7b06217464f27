// tl.dot in the interpreter (eval_dot.h): operands gathered into dense fp32/fp64/i32 rows
// and columns once, then one loop nest in the documented order.
#include "interp/eval_dot.h"

#include <cmath>
#include <cstring>
#include <string>

#include "interp/poison.h"
#include "ir/attrs.h"

namespace tritium::interp {

float round_to_tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7F800000u) == 0x7F800000u) return x;  // infinities and NaN pass unchanged
  // Add half of the dropped range to the magnitude, then truncate: nearest, ties away.
  bits = (bits + 0x1000u) & ~0x1FFFu;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

namespace {

using Precision = ir::InputPrecision;  // ir/attr_enums.def

struct Dims {
  int64_t batch = 1, m = 0, n = 0, k = 0;
};

Dims dims_of(const Buffer& a, const Buffer& b) {
  const auto& as = a.type->shape();
  const auto& bs = b.type->shape();
  Dims d;
  size_t r = as.size();
  if (r == 3) d.batch = as[0];
  d.m = as[r - 2];
  d.k = as[r - 1];
  d.n = bs[r - 1];
  return d;
}

// Poison of the result: acc's lane, or any lane of the row of a / the column of b.
void poison_result(const Buffer& a, const Buffer& b, const Buffer& acc, const Dims& d, Buffer& result) {
  result.poison_origin = nullptr;
  if (!a.poisoned() && !b.poisoned() && !acc.poisoned()) return;
  for (int64_t bt = 0; bt < d.batch; ++bt) {
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t j = 0; j < d.n; ++j) {
        int64_t lane = (bt * d.m + i) * d.n + j;
        const Buffer* bad = acc.poisoned() && acc.poison[lane] ? &acc : nullptr;
        for (int64_t k = 0; bad == nullptr && k < d.k; ++k) {
          if (a.poisoned() && a.poison[(bt * d.m + i) * d.k + k]) bad = &a;
          else if (b.poisoned() && b.poison[(bt * d.k + k) * d.n + j]) bad = &b;
        }
        if (bad) poison_lane(result, lane, *bad->poison_origin, bad->poison_reason);
      }
    }
  }
}

// A's rows (m x k) and B's columns (n x k, transposed so k is contiguous) of one batch.
template <typename T, typename Convert>
void gather(const Buffer& a, const Buffer& b, const Dims& d, int64_t bt, std::vector<T>& rows, std::vector<T>& cols,
            Convert convert) {
  const Slot* pa = a.data() + bt * d.m * d.k;
  const Slot* pb = b.data() + bt * d.k * d.n;
  for (int64_t i = 0; i < d.m * d.k; ++i) rows[i] = convert(pa[i]);
  for (int64_t k = 0; k < d.k; ++k) {
    for (int64_t j = 0; j < d.n; ++j) cols[j * d.k + k] = convert(pb[k * d.n + j]);
  }
}

// For every result element (lane) of every batch: `element(lane, row, col)` with A's row and
// B's column (k contiguous in both) converted by `convert`.
template <typename T, typename Convert, typename Element>
void for_each_element(const Buffer& a, const Buffer& b, const Dims& d, Convert convert, Element element) {
  std::vector<T> rows(d.m * d.k), cols(d.n * d.k);
  for (int64_t bt = 0; bt < d.batch; ++bt) {
    gather(a, b, d, bt, rows, cols, convert);
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t j = 0; j < d.n; ++j) element((bt * d.m + i) * d.n + j, &rows[i * d.k], &cols[j * d.k]);
    }
  }
}

void dot_int(const Buffer& a, const Buffer& b, const Buffer& acc, const Dims& d, Buffer& result) {
  for_each_element<int64_t>(a, b, d, [](Slot s) { return s.i; },
                            [&](int64_t lane, const int64_t* row, const int64_t* col) {
                              uint32_t sum = static_cast<uint32_t>(acc.data()[lane].i);  // wraps modulo 2^32
                              for (int64_t k = 0; k < d.k; ++k) sum += static_cast<uint32_t>(row[k] * col[k]);
                              result.data()[lane].i = static_cast<int32_t>(sum);
                            });
}

void dot_f64(const Buffer& a, const Buffer& b, const Buffer& acc, const Dims& d, Buffer& result) {
  for_each_element<double>(a, b, d, [](Slot s) { return s.f; }, [&](int64_t lane, const double* row, const double* col) {
    double sum = acc.data()[lane].f;
    for (int64_t k = 0; k < d.k; ++k) sum = std::fma(row[k], col[k], sum);
    result.data()[lane].f = sum;
  });
}

// fp32 accumulation for fp32/fp16/bf16/fp8 inputs; tf32x3 keeps the big and small halves.
void dot_f32(const Buffer& a, const Buffer& b, const Buffer& acc, const Dims& d, Precision precision,
             Buffer& result) {
  std::vector<float> rows(d.m * d.k), cols(d.n * d.k), rows_small, cols_small;
  auto big = [precision](Slot s) {
    float x = static_cast<float>(s.f);
    return precision == Precision::Ieee ? x : round_to_tf32(x);
  };
  if (precision == Precision::Tf32x3) {
    rows_small.resize(rows.size());
    cols_small.resize(cols.size());
  }
  for (int64_t bt = 0; bt < d.batch; ++bt) {
    gather(a, b, d, bt, rows, cols, big);
    if (precision == Precision::Tf32x3) {
      auto small = [](Slot s) {
        float x = static_cast<float>(s.f);
        return round_to_tf32(x - round_to_tf32(x));
      };
      gather(a, b, d, bt, rows_small, cols_small, small);
    }
    for (int64_t i = 0; i < d.m; ++i) {
      const float* row = &rows[i * d.k];
      for (int64_t j = 0; j < d.n; ++j) {
        const float* col = &cols[j * d.k];
        int64_t lane = (bt * d.m + i) * d.n + j;
        float sum = static_cast<float>(acc.data()[lane].f);
        if (precision == Precision::Tf32x3) {
          const float* row_s = &rows_small[i * d.k];
          const float* col_s = &cols_small[j * d.k];
          for (int64_t k = 0; k < d.k; ++k) {
            sum = std::fma(row_s[k], col[k], sum);
            sum = std::fma(row[k], col_s[k], sum);
            sum = std::fma(row[k], col[k], sum);
          }
        } else {
          for (int64_t k = 0; k < d.k; ++k) sum = std::fma(row[k], col[k], sum);
        }
        result.data()[lane].f = sum;
      }
    }
  }
  if (result.kind != ir::ScalarKind::F32) round_all(result.data(), result.size(), result.kind);
}

}  // namespace

void eval_dot(const ir::Op& op, const Buffer& a, const Buffer& b, const Buffer& acc, Buffer& result) {
  Dims d = dims_of(a, b);
  Precision precision = ir::enum_attr<Precision>(op);
  if (!result.is_float) {
    dot_int(a, b, acc, d, result);
  } else if (result.kind == ir::ScalarKind::F64) {
    dot_f64(a, b, acc, d, result);
  } else {
    dot_f32(a, b, acc, d, precision, result);
  }
  poison_result(a, b, acc, d, result);
}

}  // namespace tritium::interp
