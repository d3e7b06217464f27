// The GPU tests' kernels through the C++ API alone (include/tritium/tritium.h), with device
// memory from cuMemAlloc through tritium's driver wrapper (runtime/cuda_driver.h): vector
// add at the issue's sizes, jit_launch, atomics into one address and at tile.begin, the
// issue-741 seed kernel against a scatter reference, streams and warmup, and launch errors
// that name the kernel and the argument, and with two GPUs launches on device 1 while
// device 0 is current. Prints one line per check and a summary; exit 1 on
// any failure. Built and run on the GPU machine (tests/gpu/run_on_device.sh).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "tritium/cache.h"
#include "tritium/tritium.h"

namespace {

using tritium::Arg;
using tritium::DType;
namespace cuda = tritium::cuda;

const char* kAdd = R"(import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
)";

const char* kAtomics = R"(import triton
import triton.language as tl

@triton.jit
def count_programs(counter, old_values):
    previous = tl.atomic_add(counter, 1)
    tl.store(old_values + tl.program_id(0), previous)

@triton.jit
def atomic_add_w_tile_attr(y, BLOCK: tl.constexpr):
    tl.atomic_add(y + tl.program_id(0) * BLOCK, 1)
)";

// kernel2 of ../shared/seeds/004_6c6e82fa47940810.txt, as written there.
const char* kSeed = R"(import triton
import triton.language as tl

@triton.jit
def kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)
)";

void check(cuda::Result r, const char* call) { cuda::check(r, call, ""); }

const cuda::Api& api() { return cuda::driver("").api; }

// A device buffer of T, freed at scope exit.
template <typename T>
struct DeviceBuffer {
  cuda::DevicePtr ptr = 0;
  size_t count = 0;
  explicit DeviceBuffer(size_t n) : count(n) {
    check(api().cuMemAlloc(&ptr, std::max<size_t>(n, 1) * sizeof(T)), "cuMemAlloc");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { api().cuMemFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  void upload(const std::vector<T>& host) {
    check(api().cuMemcpyHtoD(ptr, host.data(), host.size() * sizeof(T)), "cuMemcpyHtoD");
  }
  std::vector<T> download() const {
    std::vector<T> host(count);
    check(api().cuCtxSynchronize(), "cuCtxSynchronize");
    check(api().cuMemcpyDtoH(host.data(), ptr, count * sizeof(T)), "cuMemcpyDtoH");
    return host;
  }
  Arg arg(DType dtype, int device = -1) const {
    return Arg::device_pointer(reinterpret_cast<const void*>(ptr), dtype, count * sizeof(T),
                               device);
  }
};

int passed = 0, failed = 0;

void run(const std::string& name, const std::function<void()>& body) {
  try {
    body();
    ++passed;
    std::printf("PASS %s\n", name.c_str());
  } catch (const std::exception& e) {
    ++failed;
    std::printf("FAILED %s: %s\n", name.c_str(), e.what());
  }
  std::fflush(stdout);
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

// Runs `body`, which must throw a LaunchError whose message holds every one of `parts`.
void expect_launch_error(const std::function<void()>& body, std::vector<std::string> parts) {
  try {
    body();
  } catch (const tritium::LaunchError& e) {
    std::string message = e.what();
    for (const std::string& part : parts) {
      expect(message.find(part) != std::string::npos,
             "the error '" + message + "' does not mention '" + part + "'");
    }
    return;
  }
  throw std::runtime_error("no LaunchError");
}

std::vector<float> random_floats(std::mt19937& gen, size_t n) {
  std::normal_distribution<float> dist;
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

}  // namespace

int main() {
  try {
    const cuda::DeviceInfo& device = cuda::device(0, "");
    cuda::make_current(device.context, "");
    std::printf("device 0: %s (sm_%d), driver %d\n", device.name.c_str(), device.sm,
                cuda::driver("").version);
  } catch (const std::exception& e) {
    std::printf("no GPU: %s\n", e.what());
    return 1;
  }
  std::mt19937 gen(12345);
  tritium::Kernel add(kAdd, "add_kernel", "<add>");

  for (int64_t n : {int64_t{1}, int64_t{17}, int64_t{1000}, int64_t{(1 << 20) + 3}}) {
    for (int64_t block : {int64_t{128}, int64_t{1024}}) {
      run("vector add n=" + std::to_string(n) + " BLOCK=" + std::to_string(block), [&] {
        std::vector<float> x = random_floats(gen, n), y = random_floats(gen, n);
        DeviceBuffer<float> dx(x), dy(y), dout(std::vector<float>(n, NAN));
        // The device stated for some buffers, asked of the driver for others.
        add.launch({tritium::cdiv(n, block)},
                   {dx.arg(DType::fp32, 0), dy.arg(DType::fp32), dout.arg(DType::fp32),
                    Arg::integer(n), Arg::integer(block)});
        std::vector<float> out = dout.download();
        for (int64_t i = 0; i < n; ++i) {
          expect(out[i] == x[i] + y[i], "mismatch at " + std::to_string(i));
        }
      });
    }
  }

  run("jit_launch, Backend::Cuda, a stream, warmup", [&] {
    const int64_t n = 5000;
    std::vector<float> x = random_floats(gen, n), y = random_floats(gen, n);
    DeviceBuffer<float> dx(x), dy(y), dout(std::vector<float>(n, NAN));
    std::vector<Arg> args = {dx.arg(DType::fp32), dy.arg(DType::fp32), dout.arg(DType::fp32),
                             Arg::integer(n), Arg::integer(256)};
    cuda::Stream stream = nullptr;
    check(api().cuStreamCreate(&stream, 0), "cuStreamCreate");
    tritium::LaunchConfig config;
    config.backend = tritium::Backend::Cuda;
    config.stream = stream;
    config.num_warps = 8;
    add.warmup(args, {}, config);
    expect(std::isnan(dout.download()[0]), "warmup launched");
    tritium::jit_launch(kAdd, "add_kernel", {tritium::cdiv(n, 256)}, args, config);
    check(api().cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<float> out = dout.download();
    for (int64_t i = 0; i < n; ++i) expect(out[i] == x[i] + y[i], "mismatch");
    api().cuStreamDestroy(stream);
  });

  run("atomics: 5000 programs into one address; old values a permutation", [&] {
    tritium::Kernel count(kAtomics, "count_programs", "<atomics>");
    const int programs = 5000;
    DeviceBuffer<int32_t> counter(std::vector<int32_t>{-17});
    DeviceBuffer<int32_t> old(std::vector<int32_t>(programs, -1));
    count.launch({programs}, {counter.arg(DType::i32), old.arg(DType::i32)});
    expect(counter.download()[0] == -17 + programs, "wrong count");
    std::vector<int32_t> values = old.download();
    std::sort(values.begin(), values.end());
    for (int i = 0; i < programs; ++i) expect(values[i] == -17 + i, "not a permutation");
  });

  run("atomic at tile.begin -> [1, 0] * 10", [&] {
    tritium::Kernel tile(kAtomics, "atomic_add_w_tile_attr", "<atomics>");
    DeviceBuffer<int32_t> y(std::vector<int32_t>(20, 0));
    tile.launch({10}, {y.arg(DType::i32), Arg::integer(2)});
    std::vector<int32_t> out = y.download();
    for (int i = 0; i < 20; ++i) expect(out[i] == (i % 2 == 0 ? 1 : 0), "wrong pattern");
  });

  run("issue 741 kernel2 on the seed's inputs", [&] {
    tritium::Kernel seed(kSeed, "kernel", "<seed>");
    std::vector<int64_t> index(2000);
    std::vector<float> src(2000);
    for (int i = 0; i < 2000; ++i) {
      index[i] = i % 196;
      src[i] = static_cast<float>(i + 1);
    }
    DeviceBuffer<int64_t> dindex(index);
    DeviceBuffer<float> dsrc(src), dout(std::vector<float>(2 * 196 * 1000, 0.0f));
    seed.launch({2}, {dindex.arg(DType::i64), dsrc.arg(DType::fp32), dout.arg(DType::fp32),
                      Arg::integer(2000), Arg::integer(1024)});
    std::vector<float> ref(2 * 196 * 1000, 0.0f);
    for (int b = 0; b < 2; ++b) {
      for (int j = 0; j < 1000; ++j) {
        ref[b * 196000 + index[b * 1000 + j] * 1000 + j] = src[b * 1000 + j];
      }
    }
    expect(dout.download() == ref, "differs from the scatter reference");
  });

  run("errors name the kernel and the argument; nothing is launched", [&] {
    const int64_t n = 64;
    std::vector<float> host(n, 1.0f);
    DeviceBuffer<float> dx(random_floats(gen, n)), dout(std::vector<float>(n, NAN));
    tritium::LaunchConfig cuda_only;
    cuda_only.backend = tritium::Backend::Cuda;
    expect_launch_error(
        [&] {
          add.launch({1}, {dx.arg(DType::fp32), Arg::pointer(host.data(), DType::fp32, n * 4),
                           dout.arg(DType::fp32), Arg::integer(n), Arg::integer(64)},
                     {}, cuda_only);
        },
        {"add_kernel", "y_ptr", "host memory"});
    expect_launch_error(
        [&] { add.launch({1}, {dx.arg(DType::fp32), dx.arg(DType::fp32)}); },
        {"add_kernel", "missing"});
    expect_launch_error(
        [&] {
          add.launch({1, 65536}, {dx.arg(DType::fp32), dx.arg(DType::fp32),
                                  dout.arg(DType::fp32), Arg::integer(n), Arg::integer(64)});
        },
        {"add_kernel", "grid dimension 1", "65535"});
    std::vector<float> out = dout.download();
    for (float v : out) expect(std::isnan(v), "something was launched");
  });

  run("Backend::Auto runs host memory in the interpreter", [&] {
    const int64_t n = 100;
    std::vector<float> x = random_floats(gen, n), y = random_floats(gen, n), out(n, NAN);
    add.launch({1}, {Arg::pointer(x.data(), DType::fp32, n * 4),
                     Arg::pointer(y.data(), DType::fp32, n * 4),
                     Arg::pointer(out.data(), DType::fp32, n * 4), Arg::integer(n),
                     Arg::integer(128)});
    for (int64_t i = 0; i < n; ++i) expect(out[i] == x[i] + y[i], "mismatch");
  });

  // Two devices (issue 13): launched with device 0 current, the kernel runs where its
  // buffers are, whether the device is stated (Arg::device_pointer(..., 1)) or left for the
  // driver (-1); device 0 stays current; one compile serves both devices.
  const int devices = cuda::driver("").device_count;
  if (devices < 2) {
    std::printf("SKIPPED two devices: the driver reports %d device\n", devices);
  } else {
    const cuda::DeviceInfo& d0 = cuda::device(0, "");
    const cuda::DeviceInfo& d1 = cuda::device(1, "");
    tritium::Kernel add2(std::string(kAdd) + "\n# two devices\n", "add_kernel", "<add2>");
    run("two devices: device_pointer(..., 1) and the driver's answer run on device 1", [&] {
      const int64_t n = 3000;
      std::vector<float> x = random_floats(gen, n), y = random_floats(gen, n);
      cuda::make_current(d1.context, "");
      {
        DeviceBuffer<float> dx(x), dy(y), dout(std::vector<float>(n, NAN));
        cuda::make_current(d0.context, "");
        tritium::CacheStats before = tritium::cache_stats();
        for (int device : {1, -1}) {
          add2.launch({tritium::cdiv(n, 256)},
                      {dx.arg(DType::fp32, device), dy.arg(DType::fp32, device),
                       dout.arg(DType::fp32, device), Arg::integer(n), Arg::integer(256)});
          expect(cuda::current_device() == 0, "the launch left device " +
                                                  std::to_string(cuda::current_device()) +
                                                  " current, not device 0");
          cuda::make_current(d1.context, "");
          std::vector<float> out = dout.download();
          for (int64_t i = 0; i < n; ++i) expect(out[i] == x[i] + y[i], "mismatch");
          dout.upload(std::vector<float>(n, NAN));
          cuda::make_current(d0.context, "");
        }
        tritium::CacheStats after = tritium::cache_stats();
        expect(after.memory_misses - before.memory_misses == 1, "not one load on device 1");
        cuda::make_current(d1.context, "");
      }
      cuda::make_current(d0.context, "");
    });
    run("two devices: the same kernel on device 0 and device 1, one compile", [&] {
      const int64_t n = 777;
      tritium::Kernel fresh(std::string(kAdd) + "\n# two devices, fresh\n", "add_kernel",
                            "<add3>");
      tritium::CacheStats before = tritium::cache_stats();
      for (int device : {0, 1, 0, 1}) {
        const cuda::DeviceInfo& d = device == 0 ? d0 : d1;
        std::vector<float> x = random_floats(gen, n), y = random_floats(gen, n);
        cuda::make_current(d.context, "");
        {
          DeviceBuffer<float> dx(x), dy(y), dout(std::vector<float>(n, NAN));
          cuda::make_current(d0.context, "");
          fresh.launch({tritium::cdiv(n, 128)},
                       {dx.arg(DType::fp32), dy.arg(DType::fp32), dout.arg(DType::fp32),
                        Arg::integer(n), Arg::integer(128)});
          cuda::make_current(d.context, "");
          std::vector<float> out = dout.download();
          for (int64_t i = 0; i < n; ++i) expect(out[i] == x[i] + y[i], "mismatch");
        }
      }
      cuda::make_current(d0.context, "");
      tritium::CacheStats after = tritium::cache_stats();
      uint64_t compiles = after.compiles - before.compiles;
      uint64_t disk_hits = after.disk_hits - before.disk_hits;
      expect(after.memory_misses - before.memory_misses == 2, "not one load per device");
      expect(after.memory_hits - before.memory_hits == 2, "not two memory hits");
      // One compile, the other device reading its disk entry (both read it when an earlier
      // run left the entry in TRITIUM_CACHE_DIR).
      expect(compiles <= 1 && compiles + disk_hits == 2,
             std::to_string(compiles) + " compiles, " + std::to_string(disk_hits) +
                 " disk hits");
    });
    run("two devices: buffers on devices 0 and 1 are refused by name, nothing launched", [&] {
      const int64_t n = 64;
      cuda::make_current(d1.context, "");
      {
        DeviceBuffer<float> on1(random_floats(gen, n)), out1(std::vector<float>(n, NAN));
        cuda::make_current(d0.context, "");
        DeviceBuffer<float> on0(random_floats(gen, n));
        tritium::CacheStats before = tritium::cache_stats();
        expect_launch_error(
            [&] {
              add2.launch({1}, {on0.arg(DType::fp32), on1.arg(DType::fp32, 1),
                                out1.arg(DType::fp32), Arg::integer(n), Arg::integer(64)});
            },
            {"kernel 'add_kernel'", "argument 'y_ptr': is on device 1",
             "argument 'x_ptr' is on device 0"});
        tritium::CacheStats after = tritium::cache_stats();
        expect(after.memory_misses == before.memory_misses &&
                   after.memory_hits == before.memory_hits,
               "the cache was consulted");
        cuda::make_current(d1.context, "");
        for (float v : out1.download()) expect(std::isnan(v), "something was launched");
      }
      cuda::make_current(d0.context, "");
    });
  }

  tritium::CacheStats stats = tritium::cache_stats();
  std::printf("cache: %llu compiles, %llu memory hits, %llu disk hits; lower %.1f ms, optimize "
              "%.1f ms, ptx %.1f ms, cubin %.1f ms, load %.1f ms\n",
              static_cast<unsigned long long>(stats.compiles),
              static_cast<unsigned long long>(stats.memory_hits),
              static_cast<unsigned long long>(stats.disk_hits), stats.lower_seconds * 1e3,
              stats.optimize_seconds * 1e3, stats.ptx_seconds * 1e3, stats.cubin_seconds * 1e3,
              stats.load_seconds * 1e3);
  if (failed > 0) {
    std::printf("C++ API: %d FAILED, %d passed\n", failed, passed);
    return 1;
  }
  std::printf("C++ API: all %d passed\n", passed);
  return 0;
}
