// How the elements of a block value are spread over the threads of a CTA (DESIGN.md: GPU
// execution model). One mapping, chosen to be simple and provably right; no LLVM here.
//
// A block of N elements (flat row-major index e, 0 <= e < N), a CTA of T = 32 * num_warps
// threads, V contiguous elements per thread:
//
//     thread t owns element e  iff  (e / V) % T == t
//     in register               r  = (e / (V * T)) * V + e % V
//     so register r of thread t is element  e = (r / V) * V * T + t * V + r % V
//
// Every thread has R = ceil(N / (V * T)) * V registers. When N is not a multiple of V * T
// the last registers of some threads hold no element (e >= N): those registers carry
// garbage that is never stored, loaded through or used in an atomic, and no element is
// ever owned twice, so an atomic on a block happens exactly once per element.
//
// All blocks with N elements use the same mapping, whatever their shape, so elementwise
// ops, select, cmp, cast, addptr, loads, stores and atomics stay inside each thread, and
// reshape and expand_dims (which keep the row-major order) move nothing. Broadcasting a
// block changes N; it is free when each result element lives on the thread that owns its
// source (local_broadcast), else it goes through shared memory. Both work for any V on
// either side.
//
// How V is chosen (vector_widths.h), once per N before code generation: every load and
// store on a block of pointers has a width w, the widest vector its axis facts allow:
//     w = min(contiguity, divisibility / sizeof(T), 16 / sizeof(T), mask constancy),
// all along the last dimension, a power of two dividing that dimension (atomics, volatile
// loads and scatters have w = 1). V(N) is the largest w among the accesses on N-element
// blocks, capped at max(1, N / T) (every thread gets at least V elements, Triton's
// sizePerThread cap) and to divide N; N without accesses keeps V = 1, except (kernels
// without dots) an N read or written along another axis only and reduced along its last
// axis only: 16 bytes of the reduced element (vector_widths.cpp). Each access then
// moves min(w, V) registers at a time: registers r .. r + w - 1 with w | r hold elements
// e .. e + w - 1 with w | e, one aligned run of the last dimension, which the axis facts
// say is consecutive in memory, aligned to w * sizeof(T) and under one mask bit. Keying V
// by N rather than by shape keeps reshape and expand_dims free.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace tritium::nvptx {

class Layout {
 public:
  Layout(int64_t num_elements, int threads, int vector = 1);

  int64_t num_elements() const { return num_elements_; }
  int threads() const { return threads_; }
  int vector() const { return vector_; }
  // Registers every thread has for this block (at least 1).
  int num_regs() const { return num_regs_; }
  // Whether every register of every thread holds an element (N is a multiple of V * T).
  bool full() const { return num_elements_ % (int64_t{vector_} * threads_) == 0; }

  // The element held in register `reg` of thread `thread` (>= N when it holds none).
  int64_t element(int thread, int reg) const {
    return int64_t{reg / vector_} * vector_ * threads_ + int64_t{thread} * vector_ + reg % vector_;
  }
  // The thread that owns element `e`, and the register it keeps it in.
  int owner(int64_t e) const { return static_cast<int>((e / vector_) % threads_); }
  int reg_of(int64_t e) const {
    return static_cast<int>((e / (int64_t{vector_} * threads_)) * vector_ + e % vector_);
  }
  // element(thread, reg) = reg_base(reg) + thread * thread_stride().
  int64_t reg_base(int reg) const { return int64_t{reg / vector_} * vector_ * threads_ + reg % vector_; }
  int thread_stride() const { return vector_; }

 private:
  int64_t num_elements_;
  int threads_;
  int vector_;
  int num_regs_;
};

// The flat index of the element of a `from`-shaped block that broadcasting to `to` (equal
// rank; dims of `from` are 1 or equal to those of `to`) puts at flat index `e` of the result.
int64_t broadcast_source(const std::vector<int64_t>& from, const std::vector<int64_t>& to, int64_t e);

// For each register of a broadcast's result, the first register that holds the same source
// element in every thread (itself when none before it does): registers of one class read
// one value, so a thread keeps only as many values as there are classes (a [1, 128] row
// broadcast to [128, 128] with V = 8 at 128 threads: 128 registers, 8 classes).
std::vector<int> broadcast_classes(const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                                   const Layout& result);

// How many classes broadcast_classes finds: the distinct values a thread holds.
int distinct_broadcast_values(const std::vector<int64_t>& from, const std::vector<int64_t>& to, const Layout& result);

// log2 of a power of two (an internal error otherwise).
int log2_exact(int64_t value);

// When every result element comes from a source element on the same thread, in a register
// that does not depend on the thread: for each result register, that source register.
// `source_of` maps a result element to its source element.
std::optional<std::vector<int>> local_moves(const Layout& source, const Layout& result,
                                            const std::function<int64_t(int64_t)>& source_of);

// When every element of the broadcast stays on its thread: for each result register, the
// source register that holds its element in every thread. std::nullopt when some element
// would have to move to another thread (then the broadcast goes through shared memory).
std::optional<std::vector<int>> local_broadcast(const std::vector<int64_t>& from,
                                                const std::vector<int64_t>& to, const Layout& source,
                                                const Layout& result);

}  // namespace tritium::nvptx
