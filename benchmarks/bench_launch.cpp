// Launch overhead from C++ on a cache hit: tritium::Kernel::launch against raw cuLaunchKernel
// of the very same cubin (tritium emits it), one-program vector adds in a tight loop, host
// time per call, median of repeats. Prints one JSON line for bench.py (--cpp).
//
//   bench_launch [calls]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "tritium/tritium.h"

namespace {

namespace cuda = tritium::cuda;
using tritium::Arg;
using tritium::DType;

const char* kAdd = R"(import triton.language as tl

def add4(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
)";

// Host time per call of `calls` back-to-back launches (then the device catches up).
template <typename F>
double per_call_us(F&& launch, int calls) {
  const cuda::Api& api = cuda::driver("").api;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) launch();
  auto stop = std::chrono::steady_clock::now();
  cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize", "");
  return std::chrono::duration<double, std::micro>(stop - start).count() / calls;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::stoi(argv[1]) : 100000;
  try {
    const cuda::DeviceInfo& device = cuda::device(0, "");
    cuda::make_current(device.context, "");
    const cuda::Api& api = cuda::driver("").api;
    const int n = 1024;
    cuda::DevicePtr buffers[3];
    for (cuda::DevicePtr& b : buffers) cuda::check(api.cuMemAlloc(&b, n * 4), "cuMemAlloc", "");

    tritium::Kernel add(kAdd, "add4", "<bench>");
    std::vector<Arg> args;
    for (cuda::DevicePtr b : buffers) {
      args.push_back(Arg::device_pointer(reinterpret_cast<const void*>(b), DType::fp32, n * 4, 0));
    }
    args.push_back(Arg::integer(n));
    args.push_back(Arg::integer(1024));
    const tritium::Grid grid{1, 1, 1};
    auto ours_launch = [&] { add.launch(grid, args); };

    // The same cubin through the driver directly.
    std::string cubin = add.emit(tritium::Stage::Cubin, add.signature(args));
    cuda::Module module = nullptr;
    cuda::Function function = nullptr;
    cuda::check(api.cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData", "");
    cuda::check(api.cuModuleGetFunction(&function, module, "add4"), "cuModuleGetFunction", "");
    int n_param = n;
    void* params[4] = {&buffers[0], &buffers[1], &buffers[2], &n_param};
    auto raw_launch = [&] {
      cuda::check(api.cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr),
                  "cuLaunchKernel", "");
    };
    ours_launch();
    raw_launch();
    cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize", "");
    // Interleaved repeats, so that a drift of the machine moves both sides alike.
    std::vector<double> ours_samples, raw_samples;
    for (int r = 0; r < 9; ++r) {
      ours_samples.push_back(per_call_us(ours_launch, calls));
      raw_samples.push_back(per_call_us(raw_launch, calls));
    }
    double ours = median(ours_samples), raw = median(raw_samples);
    std::printf("{\"tritium_us\": %.4f, \"raw_us\": %.4f, \"calls\": %d, \"signature\": \"%s\"}\n",
                ours, raw, calls, add.signature(args).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_launch: %s\n", e.what());
    return 1;
  }
  return 0;
}
