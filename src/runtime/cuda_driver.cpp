// Loading libcuda at run time and the handful of driver operations the launcher needs:
// devices and their primary contexts, pointer queries, PTX -> cubin through the JIT linker,
// module loading. Every failing call becomes a LaunchError naming the call and the kernel.
#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "tritium/errors.h"

namespace tritium::cuda {

namespace {

// The v1 cuGetProcAddress (4 arguments). cuda.h maps the name to a 5-argument _v2 since
// CUDA 12.5; dlsym of the plain name still returns the v1 symbol.
using GetProcAddress = Result (*)(const char* symbol, void** function, int version,
                                  unsigned long long flags);

struct Loaded {
  std::unique_ptr<Driver> driver;  // null when unavailable
  std::string reason;              // why it is unavailable
};

// Fills `api` by name; false (and `reason`) when an entry point is missing.
bool resolve(GetProcAddress get, Api* api, std::string* reason) {
  struct Entry {
    const char* name;
    void** slot;
  };
  const Entry entries[] = {
#define TRITIUM_ENTRY(name) {#name, reinterpret_cast<void**>(&api->name)}
      TRITIUM_ENTRY(cuInit),
      TRITIUM_ENTRY(cuDriverGetVersion),
      TRITIUM_ENTRY(cuGetErrorName),
      TRITIUM_ENTRY(cuGetErrorString),
      TRITIUM_ENTRY(cuDeviceGetCount),
      TRITIUM_ENTRY(cuDeviceGet),
      TRITIUM_ENTRY(cuDeviceGetName),
      TRITIUM_ENTRY(cuDeviceGetAttribute),
      TRITIUM_ENTRY(cuDevicePrimaryCtxRetain),
      TRITIUM_ENTRY(cuCtxGetCurrent),
      TRITIUM_ENTRY(cuCtxSetCurrent),
      TRITIUM_ENTRY(cuCtxGetDevice),
      TRITIUM_ENTRY(cuCtxSynchronize),
      TRITIUM_ENTRY(cuPointerGetAttributes),
      TRITIUM_ENTRY(cuLinkCreate),
      TRITIUM_ENTRY(cuLinkAddData),
      TRITIUM_ENTRY(cuLinkComplete),
      TRITIUM_ENTRY(cuLinkDestroy),
      TRITIUM_ENTRY(cuModuleLoadData),
      TRITIUM_ENTRY(cuModuleLoadDataEx),
      TRITIUM_ENTRY(cuModuleUnload),
      TRITIUM_ENTRY(cuModuleGetFunction),
      TRITIUM_ENTRY(cuFuncSetAttribute),
      TRITIUM_ENTRY(cuFuncSetCacheConfig),
      TRITIUM_ENTRY(cuLaunchKernel),
      TRITIUM_ENTRY(cuLaunchKernelEx),
      TRITIUM_ENTRY(cuFuncGetAttribute),
      TRITIUM_ENTRY(cuStreamIsCapturing),
      TRITIUM_ENTRY(cuStreamCreate),
      TRITIUM_ENTRY(cuStreamDestroy),
      TRITIUM_ENTRY(cuStreamSynchronize),
      TRITIUM_ENTRY(cuMemAlloc),
      TRITIUM_ENTRY(cuMemFree),
      TRITIUM_ENTRY(cuMemcpyHtoD),
      TRITIUM_ENTRY(cuMemcpyDtoH),
      TRITIUM_ENTRY(cuMemsetD32),
      TRITIUM_ENTRY(cuEventCreate),
      TRITIUM_ENTRY(cuEventRecord),
      TRITIUM_ENTRY(cuEventSynchronize),
      TRITIUM_ENTRY(cuEventElapsedTime),
      TRITIUM_ENTRY(cuEventDestroy),
      TRITIUM_ENTRY(cuTensorMapEncodeTiled),
#undef TRITIUM_ENTRY
  };
  for (const Entry& entry : entries) {
    void* function = nullptr;
    Result result = get(entry.name, &function, kApiVersion, 0 /* CU_GET_PROC_ADDRESS_DEFAULT */);
    if (result != 0 || function == nullptr) {
      *reason = std::string("the CUDA driver has no entry point ") + entry.name +
                " for CUDA " + std::to_string(kApiVersion / 1000) + "." +
                std::to_string(kApiVersion % 1000 / 10) + " (error " + std::to_string(result) +
                "); the driver is too old";
      return false;
    }
    *entry.slot = function;
  }
  return true;
}

Loaded load() {
  Loaded out;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    out.reason = std::string("no CUDA driver: libcuda.so.1 cannot be loaded (") +
                 (error ? error : "unknown error") + ")";
    return out;
  }
  auto get = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress"));
  if (get == nullptr) {
    out.reason = "the CUDA driver is too old: libcuda.so.1 has no cuGetProcAddress (CUDA 11.3+)";
    return out;
  }
  auto driver = std::make_unique<Driver>();
  if (!resolve(get, &driver->api, &out.reason)) return out;
  Result result = driver->api.cuInit(0);
  if (result != 0) {
    const char* name = nullptr;
    driver->api.cuGetErrorName(result, &name);
    out.reason = std::string("the CUDA driver failed to initialize: cuInit returned ") +
                 (name ? name : "an error") + " (" + std::to_string(result) + ")";
    if (result == kErrorNoDevice) out.reason = "no CUDA device: cuInit found none";
    return out;
  }
  driver->api.cuDriverGetVersion(&driver->version);
  if (driver->api.cuDeviceGetCount(&driver->device_count) != 0) driver->device_count = 0;
  if (driver->device_count == 0) out.reason = "no CUDA device: the driver reports none";
  out.driver = std::move(driver);
  // The library stays open for the process.
  return out;
}

const Loaded& loaded() {
  static const Loaded* instance = new Loaded(load());  // leaked: used until exit
  return *instance;
}

// Per device: the facts and the retained primary context, published once.
struct DeviceSlot {
  std::mutex mutex;
  std::atomic<const DeviceInfo*> info{nullptr};
};
constexpr int kMaxDevices = 64;
std::array<DeviceSlot, kMaxDevices>& device_slots() {
  static auto* slots = new std::array<DeviceSlot, kMaxDevices>();
  return *slots;
}

std::string prefix(const std::string& kernel) {
  return kernel.empty() ? std::string("CUDA driver: ") : "kernel '" + kernel + "': ";
}

}  // namespace

const Driver* driver_if_loaded() { return loaded().driver.get(); }

const std::string& driver_unavailable_reason() { return loaded().reason; }

bool device_present() {
  const Driver* d = driver_if_loaded();
  return d != nullptr && d->device_count > 0;
}

const Driver& driver(const std::string& kernel) {
  const Loaded& state = loaded();
  if (!state.driver || state.driver->device_count == 0) {
    throw LaunchError(prefix(kernel) + "cannot run on the GPU: " + state.reason);
  }
  return *state.driver;
}

void throw_driver_error(Result result, const char* call, const std::string& kernel,
                        const std::string& detail) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (const Driver* d = driver_if_loaded()) {
    d->api.cuGetErrorName(result, &name);
    d->api.cuGetErrorString(result, &text);
  }
  std::string message = prefix(kernel) + call + " failed: " + (name ? name : "CUDA error") +
                        " (" + std::to_string(result) + ")";
  if (text != nullptr) message += ": " + std::string(text);
  if (!detail.empty()) message += "\n" + detail;
  throw LaunchError(message);
}

const DeviceInfo& device(int ordinal, const std::string& kernel) {
  const Driver& d = driver(kernel);
  if (ordinal < 0 || ordinal >= d.device_count || ordinal >= kMaxDevices) {
    throw LaunchError(prefix(kernel) + "no CUDA device " + std::to_string(ordinal) + " (the " +
                      "driver reports " + std::to_string(d.device_count) + ")");
  }
  DeviceSlot& slot = device_slots()[static_cast<size_t>(ordinal)];
  if (const DeviceInfo* info = slot.info.load(std::memory_order_acquire)) return *info;
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (const DeviceInfo* info = slot.info.load(std::memory_order_acquire)) return *info;
  auto info = std::make_unique<DeviceInfo>();
  info->ordinal = ordinal;
  int handle = 0;
  check(d.api.cuDeviceGet(&handle, ordinal), "cuDeviceGet", kernel);
  int major = 0, minor = 0;
  check(d.api.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, handle),
        "cuDeviceGetAttribute", kernel);
  check(d.api.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, handle),
        "cuDeviceGetAttribute", kernel);
  info->sm = 10 * major + minor;
  check(d.api.cuDeviceGetAttribute(&info->max_shared_optin, kMaxSharedMemoryPerBlockOptin, handle),
        "cuDeviceGetAttribute", kernel);
  check(d.api.cuDeviceGetAttribute(&info->sm_count, kMultiprocessorCount, handle), "cuDeviceGetAttribute", kernel);
  char name[256] = {};
  if (d.api.cuDeviceGetName(name, sizeof(name) - 1, handle) == 0) info->name = name;
  check(d.api.cuDevicePrimaryCtxRetain(&info->context, handle), "cuDevicePrimaryCtxRetain",
        kernel);
  const DeviceInfo* published = info.release();  // lives for the process, like the context
  slot.info.store(published, std::memory_order_release);
  return *published;
}

Context make_current(Context context, const std::string& kernel) {
  const Api& api = driver_if_loaded()->api;
  Context current = nullptr;
  check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent", kernel);
  if (current != context) check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent", kernel);
  return current;
}

int current_device() {
  const Driver* d = driver_if_loaded();
  if (d == nullptr) return -1;
  Context current = nullptr;
  if (d->api.cuCtxGetCurrent(&current) != 0 || current == nullptr) return -1;
  int ordinal = -1;
  if (d->api.cuCtxGetDevice(&ordinal) != 0) return -1;
  return ordinal;
}

PointerInfo query_pointer(DevicePtr ptr, const std::string& kernel) {
  const Api& api = driver(kernel).api;
  // Some drivers want a context for pointer queries; a thread that never used CUDA has none.
  Context current = nullptr;
  if (api.cuCtxGetCurrent(&current) == 0 && current == nullptr) {
    make_current(device(0, kernel).context, kernel);
  }
  PointerInfo info;
  int attributes[2] = {kPointerMemoryType, kPointerDeviceOrdinal};
  void* data[2] = {&info.memory_type, &info.device};
  // Unlike cuPointerGetAttribute, this does not fail for memory the driver does not know:
  // it leaves memory_type 0, which is what tells a host pointer apart.
  check(api.cuPointerGetAttributes(2, attributes, data, ptr), "cuPointerGetAttributes", kernel);
  return info;
}

bool stream_capturing(Stream stream, const std::string& kernel) {
  int status = kStreamCaptureNone;
  check(driver(kernel).api.cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing", kernel);
  return status != kStreamCaptureNone;
}

std::string link_ptx(const std::string& ptx, const std::string& kernel) {
  const Api& api = driver(kernel).api;
  std::vector<char> error_log(16384, '\0');
  std::vector<char> info_log(4096, '\0');
  int options[4] = {kJitErrorLogBuffer, kJitErrorLogBufferSize, kJitInfoLogBuffer,
                    kJitInfoLogBufferSize};
  // The size options are passed by value in the pointer slot, as the driver API specifies.
  void* values[4] = {error_log.data(), reinterpret_cast<void*>(error_log.size() - 1),
                     info_log.data(), reinterpret_cast<void*>(info_log.size() - 1)};
  LinkState state = nullptr;
  check(api.cuLinkCreate(4, options, values, &state), "cuLinkCreate", kernel);
  struct Destroy {
    const Api& api;
    LinkState state;
    ~Destroy() { api.cuLinkDestroy(state); }
  } destroy{api, state};
  auto fail = [&](Result result, const char* call) {
    std::string log(error_log.data());
    throw_driver_error(result, call, kernel,
                       log.empty() ? std::string() : "the JIT linker said:\n" + log);
  };
  // PTX is passed with its terminating NUL, as the linker expects text input.
  Result result = api.cuLinkAddData(state, kJitInputPtx, const_cast<char*>(ptx.c_str()),
                                    ptx.size() + 1, "kernel.ptx", 0, nullptr, nullptr);
  if (result != 0) fail(result, "cuLinkAddData");
  void* cubin = nullptr;
  size_t size = 0;
  result = api.cuLinkComplete(state, &cubin, &size);
  if (result != 0) fail(result, "cuLinkComplete");
  // The image belongs to the link state: copy it before cuLinkDestroy.
  return std::string(static_cast<const char*>(cubin), size);
}

namespace {

// TRITIUM_SHARED_CARVEOUT (for timing; unset: nothing, the driver's choice): `triton` asks, as
// Triton 3.6's loader does for a kernel over 48 KiB of shared memory, for
// cuFuncSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED); a number 0..100 sets the function's
// CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (percent of the SM's shared memory; 0: the
// most L1). Both are hints; a failure is ignored.
void set_carveout(const Api& api, Function function, int shared_bytes) {
  const char* v = std::getenv("TRITIUM_SHARED_CARVEOUT");
  if (v == nullptr || *v == '\0') return;
  if (std::strcmp(v, "triton") == 0) {
    if (shared_bytes > 48 * 1024 && api.cuFuncSetCacheConfig != nullptr) {
      api.cuFuncSetCacheConfig(function, kFuncCachePreferShared);
    }
    return;
  }
  char* end = nullptr;
  const long percent = std::strtol(v, &end, 10);
  if (*end == '\0' && percent >= 0 && percent <= 100) {
    api.cuFuncSetAttribute(function, kFuncPreferredSharedCarveout, static_cast<int>(percent));
  }
}

// The shared-memory check, the module (made by `load`, which returns the driver's result),
// the entry point and its dynamic shared memory limit: load_cubin and load_ptx.
template <typename Load>
LoadedFunction load_module(Load load, const std::string& entry, int shared_bytes,
                           const DeviceInfo& device, const std::string& kernel) {
  if (shared_bytes > device.max_shared_optin) {  // before the driver: Triton's check at load
    throw OutOfResources(prefix(kernel) + "out of resource: shared memory, Required: " + std::to_string(shared_bytes) +
                             ", Hardware limit: " + std::to_string(device.max_shared_optin) + " (device " +
                             std::to_string(device.ordinal) + ", " + device.name + ")",
                         "shared memory", shared_bytes, device.max_shared_optin);
  }
  const Api& api = driver(kernel).api;
  LoadedFunction out;
  load(&out.module);
  Result result = api.cuModuleGetFunction(&out.function, out.module, entry.c_str());
  if (result == 0 && shared_bytes > 48 * 1024) {
    result = api.cuFuncSetAttribute(out.function, kFuncMaxDynamicSharedSize, shared_bytes);
    if (result != 0) {
      api.cuModuleUnload(out.module);
      throw_driver_error(result, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", kernel);
    }
  }
  if (result != 0) {
    api.cuModuleUnload(out.module);
    throw_driver_error(result, "cuModuleGetFunction", kernel, "entry point: " + entry);
  }
  set_carveout(api, out.function, shared_bytes);
  return out;
}

}  // namespace

LoadedFunction load_cubin(const std::string& cubin, const std::string& entry, int shared_bytes,
                          const DeviceInfo& device, const std::string& kernel) {
  auto load = [&](Module* module) {
    check(driver(kernel).api.cuModuleLoadData(module, cubin.data()), "cuModuleLoadData", kernel);
  };
  return load_module(load, entry, shared_bytes, device, kernel);
}

LoadedFunction load_ptx(const std::string& ptx, const std::string& entry, int shared_bytes,
                        const DeviceInfo& device, const std::string& kernel) {
  auto load = [&](Module* module) {
    std::vector<char> error_log(16384, '\0');
    int options[2] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
    // The size is passed by value in the pointer slot, as the driver API specifies.
    void* values[2] = {error_log.data(), reinterpret_cast<void*>(error_log.size() - 1)};
    // PTX is text: the driver reads it up to its terminating NUL (c_str()).
    Result result = driver(kernel).api.cuModuleLoadDataEx(module, ptx.c_str(), 2, options, values);
    if (result != 0) {
      std::string log(error_log.data());
      throw_driver_error(result, "cuModuleLoadDataEx", kernel,
                         log.empty() ? std::string() : "the PTX JIT said:\n" + log);
    }
  };
  return load_module(load, entry, shared_bytes, device, kernel);
}

}  // namespace tritium::cuda
