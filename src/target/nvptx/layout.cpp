// The element-to-thread mapping of layout.h and the broadcast index arithmetic over it.
#include "target/nvptx/layout.h"

#include <map>

#include "support/diagnostics.h"

namespace tritium::nvptx {

Layout::Layout(int64_t num_elements, int threads, int vector)
    : num_elements_(num_elements), threads_(threads), vector_(vector) {
  if (num_elements < 1 || threads < 1 || vector < 1) {
    internal_error("nvptx layout", "a layout of " + std::to_string(num_elements) + " elements over " +
                                       std::to_string(threads) + " threads");
  }
  int64_t per_round = int64_t{vector} * threads;
  num_regs_ = static_cast<int>((num_elements + per_round - 1) / per_round) * vector;
}

int64_t broadcast_source(const std::vector<int64_t>& from, const std::vector<int64_t>& to, int64_t e) {
  // Peel the result's multi-index off `e` from the innermost dimension out; a dimension
  // of size 1 in `from` contributes index 0.
  int64_t source = 0;
  int64_t source_stride = 1;
  for (int d = static_cast<int>(to.size()) - 1; d >= 0; --d) {
    int64_t index = e % to[d];
    e /= to[d];
    if (from[d] != 1) source += index * source_stride;
    source_stride *= from[d];
  }
  return source;
}

std::vector<int> broadcast_classes(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                                   const Layout& result) {
  // Registers keyed by the source element each thread reads there (-1: none held).
  std::map<std::vector<int64_t>, int> first;
  std::vector<int> classes(static_cast<size_t>(result.num_regs()));
  std::vector<int64_t> key(static_cast<size_t>(result.threads()));
  for (int reg = 0; reg < result.num_regs(); ++reg) {
    for (int t = 0; t < result.threads(); ++t) {
      int64_t e = result.element(t, reg);
      key[static_cast<size_t>(t)] = e < result.num_elements() ? broadcast_source(from, to, e) : -1;
    }
    classes[static_cast<size_t>(reg)] = first.emplace(key, reg).first->second;
  }
  return classes;
}

int distinct_broadcast_values(const std::vector<int64_t>& from, const std::vector<int64_t>& to, const Layout& result) {
  std::vector<int> classes = broadcast_classes(from, to, result);
  int count = 0;
  for (size_t r = 0; r < classes.size(); ++r) count += classes[r] == static_cast<int>(r) ? 1 : 0;
  return count;
}

int log2_exact(int64_t value) {
  int bits = 0;
  while ((int64_t{1} << bits) < value) ++bits;
  if ((int64_t{1} << bits) != value) internal_error("nvptx layout", std::to_string(value) + " is not a power of two");
  return bits;
}

std::optional<std::vector<int>> local_broadcast(const std::vector<int64_t>& from,
                                                const std::vector<int64_t>& to, const Layout& source,
                                                const Layout& result) {
  return local_moves(source, result, [&](int64_t e) { return broadcast_source(from, to, e); });
}

std::optional<std::vector<int>> local_moves(const Layout& source, const Layout& result,
                                            const std::function<int64_t(int64_t)>& source_of) {
  // Checked element by element: blocks are at most 2^20 elements or so, and a compile
  // pays this once per op.
  std::vector<int> regs(result.num_regs(), -1);
  for (int reg = 0; reg < result.num_regs(); ++reg) {
    for (int t = 0; t < result.threads(); ++t) {
      int64_t e = result.element(t, reg);
      if (e >= result.num_elements()) continue;  // this thread holds nothing there
      int64_t s = source_of(e);
      if (source.owner(s) != t) return std::nullopt;
      int r = source.reg_of(s);
      if (regs[reg] == -1) regs[reg] = r;
      if (regs[reg] != r) return std::nullopt;  // the register would depend on the thread
    }
    if (regs[reg] == -1) regs[reg] = 0;  // no thread holds an element there: any register
  }
  return regs;
}

}  // namespace tritium::nvptx
