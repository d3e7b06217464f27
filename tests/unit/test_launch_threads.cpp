// Launches from many threads at once through the public API (interpreter backend): one
// Kernel shared by 8 threads, each launching many times over its own buffers with several
// specializations, first launches (compiles) racing each other. Every result must be exact.
// tests/fuzz/RESULTS.md records this suite under ThreadSanitizer.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tritium/tritium.h"

using namespace tritium;

namespace {

const char* kSource = R"PY(import triton
import triton.language as tl

@triton.jit
def axpy(x_ptr, out_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * a + offs, mask=mask)

@triton.jit
def count(counter_ptr, BLOCK: tl.constexpr):
    tl.atomic_add(counter_ptr + tl.arange(0, BLOCK) * 0, 1)
)PY";

}  // namespace

TEST_CASE("launches from 8 threads at once are exact", "[threads]") {
  Kernel axpy(kSource, "axpy");
  Kernel count(kSource, "count");
  constexpr int kThreads = 8;
  constexpr int kLaunches = 40;
  std::atomic<int> wrong{0};
  std::atomic<int> errors{0};
  std::atomic<int> shared_counter{0};
  std::mutex mutex;
  std::string first_error;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < kLaunches; ++i) {
          // Sizes and blocks vary per thread and launch: several specializations race to
          // be compiled (n equal to 1, divisible by 16, neither; blocks 32, 64, 128).
          int n = (t * 37 + i * 11) % 300 + 1;
          int block = 32 << ((t + i) % 3);
          std::vector<float> x(static_cast<size_t>(n)), out(static_cast<size_t>(n), -1.0f);
          for (int k = 0; k < n; ++k) x[static_cast<size_t>(k)] = static_cast<float>(k % 7) - 3.0f;
          int a = t + 1;
          axpy.launch({cdiv(n, block)},
                      {Arg::pointer(x.data(), DType::fp32, x.size() * 4),
                       Arg::pointer(out.data(), DType::fp32, out.size() * 4), Arg::integer(n), Arg::integer(a),
                       Arg::integer(block)});
          for (int k = 0; k < n; ++k) {
            float want = x[static_cast<size_t>(k)] * static_cast<float>(a) + static_cast<float>(k);
            if (out[static_cast<size_t>(k)] != want) ++wrong;
          }
          int counter = 0;
          count.launch({3}, {Arg::pointer(&counter, DType::i32, 4), Arg::integer(16)});
          if (counter != 3 * 16) ++wrong;
          shared_counter += counter;
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);  // Catch2's macros are not thread-safe
        if (errors++ == 0) first_error = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  INFO(first_error);
  CHECK(errors == 0);
  CHECK(wrong == 0);
  CHECK(shared_counter == kThreads * kLaunches * 48);
}
