// Probes for a CUDA device through the driver library opened at run time (no CUDA headers:
// the two entry points used have had these C signatures since CUDA 2).
#include "runtime/device_probe.h"

#include <dlfcn.h>

namespace tritium::runtime {

namespace {

bool probe() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  using InitFn = int (*)(unsigned int);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  int devices = 0;
  bool present =
      init != nullptr && count != nullptr && init(0) == 0 && count(&devices) == 0 && devices > 0;
  // The library stays open: the driver does not support being unloaded and reloaded.
  return present;
}

}  // namespace

bool cuda_device_present() {
  static const bool present = probe();
  return present;
}

}  // namespace tritium::runtime
