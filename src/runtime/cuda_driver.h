// The CUDA driver API, loaded at run time (DESIGN law 5): libcuda.so.1 is opened with dlopen
// and every entry point comes from the v1 `cuGetProcAddress`, asking for the ABI of CUDA 12.0
// (GPU.md: dlsym on `_v2` names is a trap). No cuda.h: the few handle types and enum values
// tritium needs are declared here in its own words (values from cuda.h, stable across 12/13).
// Internal to libtritium (tritium::* is exported, so the GPU tests and benchmarks use it too).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace tritium::cuda {

// Driver handles: opaque pointers, as in cuda.h.
using Result = int;  // CUresult; 0 is CUDA_SUCCESS
using DevicePtr = unsigned long long;
using Context = struct OpaqueContext*;
using Module = struct OpaqueModule*;
using Function = struct OpaqueFunction*;
using Stream = struct OpaqueStream*;
using Event = struct OpaqueEvent*;
using LinkState = struct OpaqueLinkState*;

// The driver's enum values tritium uses (cuda.h names in the comments).
enum DeviceAttribute : int {
  kComputeCapabilityMajor = 75,         // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  kComputeCapabilityMinor = 76,         // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
  kMaxSharedMemoryPerBlockOptin = 97,   // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  kMultiprocessorCount = 16,            // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
};
enum PointerAttribute : int {
  kPointerMemoryType = 2,     // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
  kPointerDeviceOrdinal = 9,  // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
};
enum MemoryType : unsigned {
  kMemoryUnknown = 0,  // not memory the driver knows: plain host memory
  kMemoryHost = 1,     // CU_MEMORYTYPE_HOST: page-locked host memory, reachable from devices
  kMemoryDevice = 2,   // CU_MEMORYTYPE_DEVICE
  kMemoryArray = 3,    // CU_MEMORYTYPE_ARRAY
  kMemoryUnified = 4,  // CU_MEMORYTYPE_UNIFIED
};
enum JitOption : int {
  kJitInfoLogBuffer = 3,           // CU_JIT_INFO_LOG_BUFFER
  kJitInfoLogBufferSize = 4,       // CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
  kJitErrorLogBuffer = 5,          // CU_JIT_ERROR_LOG_BUFFER
  kJitErrorLogBufferSize = 6,      // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
};
constexpr int kJitInputPtx = 1;                    // CU_JIT_INPUT_PTX
constexpr int kFuncMaxThreadsPerBlock = 0;         // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int kFuncLocalSizeBytes = 3;             // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
constexpr int kFuncNumRegs = 4;                    // CU_FUNC_ATTRIBUTE_NUM_REGS
constexpr int kLaunchAttributeCooperative = 2;     // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
constexpr int kLaunchAttributeClusterDimension = 4;  // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
constexpr int kFuncMaxDynamicSharedSize = 8;       // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kFuncPreferredSharedCarveout = 9;    // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
constexpr int kFuncCachePreferShared = 1;          // CU_FUNC_CACHE_PREFER_SHARED
constexpr int kStreamCaptureNone = 0;              // CU_STREAM_CAPTURE_STATUS_NONE
constexpr Result kErrorInvalidValue = 1;           // CUDA_ERROR_INVALID_VALUE
constexpr Result kErrorNoDevice = 100;             // CUDA_ERROR_NO_DEVICE
constexpr int kApiVersion = 12000;                 // the ABI asked of cuGetProcAddress

// CUlaunchAttribute and CUlaunchConfig of cuda.h (CUDA 12 ABI): an attribute is a 4-byte
// id, padding to 8, and a 64-byte value union (clusterDim is its first three unsigneds,
// cooperative its first int).
struct LaunchAttribute {
  int id = 0;
  char pad[4] = {};
  union {
    unsigned cluster_dim[3];
    int cooperative;
    char bytes[64];
  } value{};
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute is 72 bytes");
struct LaunchConfigEx {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1, block_y = 1, block_z = 1;
  unsigned shared_bytes = 0;
  Stream stream = nullptr;
  LaunchAttribute* attrs = nullptr;
  unsigned num_attrs = 0;
};

// The entry points, named as in cuda.h; each has the signature of CUDA 12.0's ABI.
struct Api {
  Result (*cuInit)(unsigned flags);
  Result (*cuDriverGetVersion)(int* version);
  Result (*cuGetErrorName)(Result error, const char** name);
  Result (*cuGetErrorString)(Result error, const char** text);
  Result (*cuDeviceGetCount)(int* count);
  Result (*cuDeviceGet)(int* device, int ordinal);
  Result (*cuDeviceGetName)(char* name, int length, int device);
  Result (*cuDeviceGetAttribute)(int* value, int attribute, int device);
  Result (*cuDevicePrimaryCtxRetain)(Context* context, int device);
  Result (*cuCtxGetCurrent)(Context* context);
  Result (*cuCtxSetCurrent)(Context context);
  Result (*cuCtxGetDevice)(int* device);
  Result (*cuCtxSynchronize)();
  Result (*cuPointerGetAttributes)(unsigned count, int* attributes, void** data, DevicePtr ptr);
  Result (*cuLinkCreate)(unsigned count, int* options, void** values, LinkState* state);
  Result (*cuLinkAddData)(LinkState state, int type, void* data, size_t size, const char* name,
                          unsigned count, int* options, void** values);
  Result (*cuLinkComplete)(LinkState state, void** cubin, size_t* size);
  Result (*cuLinkDestroy)(LinkState state);
  Result (*cuModuleLoadData)(Module* module, const void* image);
  Result (*cuModuleLoadDataEx)(Module* module, const void* image, unsigned count, int* options,
                               void** values);
  Result (*cuModuleUnload)(Module module);
  Result (*cuModuleGetFunction)(Function* function, Module module, const char* name);
  Result (*cuFuncSetAttribute)(Function function, int attribute, int value);
  Result (*cuFuncSetCacheConfig)(Function function, int config);
  Result (*cuLaunchKernel)(Function function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                           unsigned block_x, unsigned block_y, unsigned block_z,
                           unsigned shared_bytes, Stream stream, void** params, void** extra);
  Result (*cuLaunchKernelEx)(const LaunchConfigEx* config, Function function, void** params,
                             void** extra);
  Result (*cuFuncGetAttribute)(int* value, int attribute, Function function);
  Result (*cuStreamIsCapturing)(Stream stream, int* status);
  Result (*cuStreamCreate)(Stream* stream, unsigned flags);
  Result (*cuStreamDestroy)(Stream stream);
  Result (*cuStreamSynchronize)(Stream stream);
  Result (*cuMemAlloc)(DevicePtr* ptr, size_t bytes);
  Result (*cuMemFree)(DevicePtr ptr);
  Result (*cuMemcpyHtoD)(DevicePtr dst, const void* src, size_t bytes);
  Result (*cuMemcpyDtoH)(void* dst, DevicePtr src, size_t bytes);
  Result (*cuMemsetD32)(DevicePtr dst, unsigned value, size_t count);
  Result (*cuEventCreate)(Event* event, unsigned flags);
  Result (*cuEventRecord)(Event event, Stream stream);
  Result (*cuEventSynchronize)(Event event);
  Result (*cuEventElapsedTime)(float* milliseconds, Event start, Event end);
  Result (*cuEventDestroy)(Event event);
  // CUDA 12.0: a TMA descriptor (tensor_map.h). The enums are passed as their int values.
  Result (*cuTensorMapEncodeTiled)(void* map, int dtype, unsigned rank, void* address, const uint64_t* dims,
                                   const uint64_t* strides, const unsigned* box, const unsigned* element_strides,
                                   int interleave, int swizzle, int l2_promotion, int oob_fill);
};

// The process's driver: the library opened, cuInit done, the device count known. Loaded on
// first use and never unloaded (the driver does not support being reloaded).
struct Driver {
  Api api{};
  int version = 0;       // cuDriverGetVersion: 13000 for CUDA 13.0
  int device_count = 0;  // 0 when the driver loads but sees no device
};

// The driver, or null when there is none (no libcuda, cuInit failed). Never throws.
const Driver* driver_if_loaded();
// Why driver_if_loaded() is null (or why there is no device): a sentence for messages.
const std::string& driver_unavailable_reason();
// True when the driver loads and reports at least one device.
bool device_present();

// The driver with at least one device, else a LaunchError naming `kernel` and the reason.
const Driver& driver(const std::string& kernel);

// Throws the LaunchError for a failed driver call: "kernel 'k': cuX failed:
// CUDA_ERROR_NAME (code): description" (without the kernel part when `kernel` is empty).
[[noreturn]] void throw_driver_error(Result result, const char* call, const std::string& kernel,
                                     const std::string& detail = "");

// Checks a driver call's result; the hot path pays one compare.
inline void check(Result result, const char* call, const std::string& kernel) {
  if (result != 0) [[unlikely]] throw_driver_error(result, call, kernel);
}

// Per-device facts and the device's primary context (retained once, kept for the process).
struct DeviceInfo {
  int ordinal = -1;
  Context context = nullptr;
  int sm = 0;                  // 10 * major + minor: 90 for an H100/H200
  int max_shared_optin = 0;    // bytes of dynamic shared memory a block may opt in to
  int sm_count = 0;            // streaming multiprocessors (132 on an H100 SXM)
  std::string name;
};

// The device `ordinal` (retaining its primary context on first use). LaunchError when it
// does not exist. Thread-safe; after the first call per device it takes no lock.
const DeviceInfo& device(int ordinal, const std::string& kernel);

// Makes `context` current on this thread when it is not already (a no-op on the hot path),
// and returns the context that was current before (null when none was).
Context make_current(Context context, const std::string& kernel);

// `context` current for a scope (a launch, a query about a loaded function). The caller's
// context, when another one was current (torch's or Triton's current device), is made current
// again afterwards: a launch on cuda:1 must not move the current device, where torch
// allocates next. A thread that had none keeps `context` current (the next launch then costs
// no switch).
class ScopedContext {
 public:
  ScopedContext(Context context, const std::string& kernel)
      : context_(context), previous_(make_current(context, kernel)) {}
  ~ScopedContext() {
    if (previous_ != nullptr && previous_ != context_) [[unlikely]] {
      driver_if_loaded()->api.cuCtxSetCurrent(previous_);  // best effort: a destructor
    }
  }
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  Context context_;
  Context previous_;
};

// The device of the current context, or -1 when no context is current.
int current_device();

// Where the driver says a pointer points.
struct PointerInfo {
  unsigned memory_type = kMemoryUnknown;  // MemoryType
  int device = -1;                        // the device ordinal for device memory
  bool device_memory() const {
    return memory_type == kMemoryDevice || memory_type == kMemoryUnified;
  }
};
// Never fails for host pointers (the driver reports them as unknown); LaunchError when the
// query itself fails.
PointerInfo query_pointer(DevicePtr ptr, const std::string& kernel);

// True when `stream` is capturing a CUDA graph (then compiling or loading is an error).
bool stream_capturing(Stream stream, const std::string& kernel);

// PTX -> cubin through the driver's JIT linker, for the current context's device. On failure
// a LaunchError with the linker's error log. The linker compiles its inputs as relocatable
// code (nvcc -rdc, ptxas -c): more registers than a whole-program compile for some kernels
// (layer norm at 1024: 40 against 32), so kernels that run are loaded by load_ptx instead;
// this one serves `--emit cubin` and the AOT export.
std::string link_ptx(const std::string& ptx, const std::string& kernel);

// A loaded module and its kernel function. The module stays loaded for the process (the
// memory cache keeps it; unloading while launches may be queued is not worth the risk).
struct LoadedFunction {
  Module module = nullptr;
  Function function = nullptr;
};
// Loads `cubin` into the current context and looks up `entry`; raises the function's dynamic
// shared memory limit when `shared_bytes` exceeds the default 48 KiB (OutOfResources when the
// device cannot give that much, checked before the driver is loaded).
LoadedFunction load_cubin(const std::string& cubin, const std::string& entry, int shared_bytes,
                          const DeviceInfo& device, const std::string& kernel);
// The same from PTX text, which the driver compiles for the current context's device as a
// whole program (cuModuleLoadDataEx; ptxas without -c, as Triton's cubins are made; the
// driver's own JIT cache keeps the result across processes). On failure a LaunchError with
// the compiler's error log.
LoadedFunction load_ptx(const std::string& ptx, const std::string& entry, int shared_bytes,
                        const DeviceInfo& device, const std::string& kernel);

}  // namespace tritium::cuda
