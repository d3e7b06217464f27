// The launch device's choice (runtime::place_pointers): from the arguments' devices, as the
// caller stated them or a fake driver reports them, to one device or an error naming the
// kernel and both arguments; and a mixed-device launch failing before the driver is needed.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/gpu_kernel.h"
#include "runtime/specialize.h"

using tritium::Arg;
using tritium::DType;
using tritium::LaunchError;
namespace rt = tritium::runtime;
namespace cuda = tritium::cuda;

namespace {

// What the fake driver says about each address, and how often it was asked.
std::map<cuda::DevicePtr, cuda::PointerInfo>& fake_memory() {
  static std::map<cuda::DevicePtr, cuda::PointerInfo> memory;
  return memory;
}
int fake_queries = 0;

cuda::PointerInfo fake_query(cuda::DevicePtr ptr, const std::string&) {
  ++fake_queries;
  auto it = fake_memory().find(ptr);
  return it == fake_memory().end() ? cuda::PointerInfo{} : it->second;
}

cuda::PointerInfo on(unsigned memory_type, int device) {
  cuda::PointerInfo info;
  info.memory_type = memory_type;
  info.device = device;
  return info;
}

const void* address(uintptr_t a) { return reinterpret_cast<const void*>(a); }

// place_pointers over `args`, bound positionally to parameters named "a", "b", ...
rt::Placement place(const std::vector<Arg>& args) {
  std::vector<std::string> names;
  rt::BoundArgs bound;
  for (size_t i = 0; i < args.size(); ++i) {
    names.push_back(std::string(1, static_cast<char>('a' + i)));
    bound.push_back({&args[i], rt::BoundArg::From::Positional, static_cast<int>(i)});
  }
  return rt::place_pointers("k", names, bound, &fake_query);
}

std::string place_error(const std::vector<Arg>& args) {
  try {
    place(args);
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("placement: the arguments' stated device, never the current one", "[placement]") {
  fake_queries = 0;
  std::vector<Arg> args = {Arg::device_pointer(address(0x1000), DType::fp32, 0, 1),
                           Arg::integer(7),
                           Arg::device_pointer(address(0x2000), DType::fp32, 0, 1)};
  rt::Placement p = place(args);
  CHECK(p.device == 1);
  CHECK(p.any_device_memory);
  CHECK(fake_queries == 0);  // stated devices are not asked about

  // No pointers, or only null ones: no device said (the launch uses the current one).
  std::vector<Arg> none = {Arg::integer(3), Arg::device_pointer(nullptr, DType::fp32, 0, 1),
                           Arg::pointer(nullptr, DType::fp32, 0)};
  rt::Placement q = place(none);
  CHECK(q.device == -1);
  CHECK_FALSE(q.any_device_memory);
  CHECK(fake_queries == 0);
}

TEST_CASE("placement: two stated devices are an error naming the kernel and both arguments",
          "[placement]") {
  std::vector<Arg> args = {Arg::device_pointer(address(0x1000), DType::fp32, 0, 0),
                           Arg::integer(7),
                           Arg::device_pointer(address(0x2000), DType::fp32, 0, 1)};
  std::string error = place_error(args);
  CHECK_THAT(error, Catch::Contains("kernel 'k'") && Catch::Contains("argument 'c'") &&
                        Catch::Contains("is on device 1") &&
                        Catch::Contains("argument 'a' is on device 0"));
}

TEST_CASE("placement: devices the driver tells", "[placement]") {
  fake_memory().clear();
  fake_memory()[0x1000] = on(cuda::kMemoryDevice, 1);
  fake_memory()[0x2000] = on(cuda::kMemoryUnified, 1);
  fake_memory()[0x3000] = on(cuda::kMemoryHost, -1);  // page-locked host memory
  fake_memory()[0x4000] = on(cuda::kMemoryDevice, 0);
  fake_queries = 0;

  // Device left for the driver (-1), a plain pointer, page-locked memory: device 1.
  std::vector<Arg> args = {Arg::device_pointer(address(0x1000), DType::fp32, 0, -1),
                           Arg::pointer(address(0x2000), DType::fp32, 16),
                           Arg::pointer(address(0x3000), DType::fp32, 16)};
  rt::Placement p = place(args);
  CHECK(p.device == 1);
  CHECK(p.any_device_memory);
  CHECK(fake_queries == 3);

  // A stated device 1 and one the driver puts on device 0.
  std::vector<Arg> mixed = {Arg::device_pointer(address(0x1000), DType::fp32, 0, 1),
                            Arg::device_pointer(address(0x4000), DType::fp32, 0, -1)};
  CHECK_THAT(place_error(mixed), Catch::Contains("argument 'b'") &&
                                     Catch::Contains("is on device 0") &&
                                     Catch::Contains("argument 'a' is on device 1"));

  // Only page-locked memory: no device said, and no device memory.
  std::vector<Arg> pinned = {Arg::pointer(address(0x3000), DType::fp32, 16)};
  rt::Placement q = place(pinned);
  CHECK(q.device == -1);
  CHECK_FALSE(q.any_device_memory);

  // Memory the driver does not know: host memory, refused by name.
  std::vector<Arg> host = {Arg::device_pointer(address(0x1000), DType::fp32, 0, 1),
                           Arg::pointer(address(0x9000), DType::fp32, 16)};
  CHECK_THAT(place_error(host), Catch::Contains("kernel 'k'") &&
                                    Catch::Contains("argument 'b'") &&
                                    Catch::Contains("host memory"));
}

TEST_CASE("Kernel: arguments on two devices fail before the driver is needed", "[placement]") {
  const char* source = R"(import triton
import triton.language as tl

@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)
)";
  tritium::Kernel kernel(source, "copy_kernel", "copy.py");
  // Addresses never dereferenced: the launch must stop at placement, with or without a GPU.
  std::vector<Arg> args = {Arg::device_pointer(address(0x10000), DType::fp32, 0, 0),
                           Arg::device_pointer(address(0x20000), DType::fp32, 0, 1),
                           Arg::integer(4), Arg::integer(16)};
  for (tritium::Backend backend : {tritium::Backend::Auto, tritium::Backend::Cuda}) {
    tritium::LaunchConfig config;
    config.backend = backend;
    for (tritium::Grid grid : {tritium::Grid{1, 1, 1}, tritium::Grid{0, 1, 1}}) {  // and warmup
      std::string error = "<no error>";
      try {
        kernel.launch(grid, args, {}, config);
      } catch (const LaunchError& e) {
        error = e.what();
      }
      CHECK_THAT(error, Catch::Contains("kernel 'copy_kernel'") &&
                            Catch::Contains("argument 'dst'") &&
                            Catch::Contains("argument 'src' is on device 0"));
    }
  }
}
