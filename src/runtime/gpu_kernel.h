// One specialization of a kernel on the GPU: building it (disk cache, else lower -> optimize
// -> PTX -> cubin, timed per stage), loading it on a device, and the launch hot path
// (argument packing and cuLaunchKernel). Kernel::Impl (kernel_gpu.cpp) drives these; they
// know nothing about Python.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cache/disk_cache.h"
#include "cache/key.h"
#include "ir/ir.h"
#include "runtime/cuda_driver.h"
#include "runtime/specialize.h"
#include "tritium/tritium.h"

namespace tritium::runtime {

// How one kernel parameter is packed for cuLaunchKernel.
struct GpuParam {
  enum class Kind : uint8_t { Pointer, Int, Float };
  uint32_t index = 0;  // into the bound arguments (the kernel's full parameter list)
  Kind kind = Kind::Int;
  ir::ScalarKind dtype = ir::ScalarKind::I32;  // the scalar type (pointers: the pointee)
  uint8_t size = 0;                            // bytes: 8 for pointers, i1 travels as 4
  ir::ArgPart part = ir::ArgPart::Whole;       // a piece of a host tensor descriptor
  uint8_t dim = 0;
};

// A specialization loaded on one device: everything a launch needs, nothing it must compute.
struct GpuKernel {
  cuda::Function function = nullptr;
  cuda::Module module = nullptr;
  unsigned block_x = 128;  // 32 * num_warps
  unsigned shared_bytes = 0;
  std::vector<GpuParam> params;
  std::string entry;  // the PTX entry's name
  std::string key;    // the disk cache key it was built under
  unsigned cluster_x = 1;  // num_ctas: CTAs per thread-block cluster (1: no cluster)
  // The compiler made each program a cluster of cluster_x CTAs on its own (a K loop split
  // over the cluster, gpu/split_k_cluster.h): a grid that fills the SMs without it launches
  // the variant built without the split (Kernel::Impl::launch_gpu).
  bool split_k = false;
  int split_k_forced = 0;  // TRITIUM_KSPLIT's size (2, 4, 8) when it was set, else 0
  // The split loop's trip count from the arguments (gpu/split_k_cluster.h's trip formula,
  // read from the PTX's "// tritium.ksplit.trips" comment): trips_param < 0 when unknown.
  int trips_param = -1;
  int64_t trips_lower = 0, trips_step = 1;
  std::vector<int64_t> trips_ops;  // (opcode, constant) pairs
  int sm = 0;              // the target it was compiled for
  int device = -1;         // the ordinal of the device it is loaded on
};

// The launch options besides num_warps/num_stages that change the compiled code, packed
// for the memory cache's key, and as canonical text for the disk cache key ("" when all are
// defaults).
uint64_t options_word(const LaunchConfig& config);
std::string options_text(const LaunchConfig& config);

// Register and thread facts of a loaded kernel (cuFuncGetAttribute).
struct FunctionFacts {
  int n_regs = 0;
  int n_spills = 0;        // local memory bytes per thread (Triton reports this as n_spills)
  int n_max_threads = 0;
};
FunctionFacts function_facts(const GpuKernel& gpu, const std::string& kernel);

// What building a specialization needs from its kernel.
struct GpuBuild {
  std::string kernel;       // for messages
  cache::KeyInputs inputs;  // complete: the disk cache key is computed from them
  std::function<std::unique_ptr<ir::Function>()> lower;  // AST -> tile IR for the signature
  std::function<void(ir::Function&)> optimize;           // the tile-IR pipeline
  // The code-changing launch options (also in inputs.options, which the key hashes).
  int num_ctas = 1;
  int maxnreg = 0;
  int enable_fp_fusion = -1;  // -1: the TRITIUM_DEFAULT_FP_FUSION knob decides
  // -1: the experiment "ksplit" splits over TRITIUM_KSPLIT's CTAs, else 2; 0: "ksplit" is
  // dropped (the variant for grids that fill the SMs); 2, 4, 8: it splits over that many.
  int split_k = -1;
  // The parameters the compiled entry takes (expected_params): a disk entry that lists
  // others is bad, whatever its checksum says.
  std::vector<cache::CachedParam> params;
};

// The parameters the entry compiled for `signature` takes, as the cache records them: each
// one not folded to a constant, packed as nvptx::PtxParam says (pointers 8 bytes, i1 as 4).
std::vector<cache::CachedParam> expected_params(const Signature& signature, const std::vector<std::string>& names);
// What is wrong with a compiled entry's parameters `got` for a build expecting `want`, or
// "": equal, but for the CUtensorMaps of 2-D descriptors the code generator may append.
std::string check_params(const std::vector<cache::CachedParam>& want, const std::vector<cache::CachedParam>& got);

// The PTX, cubin and launch facts for `build`: read from the disk cache when a verified
// entry exists, else compiled (lower, optimize, PTX, cubin) and stored. Needs a current
// context on the target device (the JIT linker compiles for it).
cache::Entry build_entry(const GpuBuild& build);

// The tile IR -> PTX part of a build, without the driver (the CLI's --emit llvm|ptx).
struct PtxResult {
  std::string ptx;
  std::string llvm_ir;
};
PtxResult compile_ptx(const GpuBuild& build, bool want_llvm_ir);
// The kernel after the GPU passes, annotated (nvptx::emit_gpu_ir).
std::string gpu_ir(const GpuBuild& build);

// Loads an entry's cubin on `device` (its context current) and prepares the packing table.
GpuKernel load_entry(const cache::Entry& entry, const cuda::DeviceInfo& device,
                     const std::string& kernel);

// Where a launch's pointer arguments live. `device` is -1 when no argument says (no
// pointers, or only null ones). Errors name the kernel and the argument: host memory, or
// pointers on two different devices (naming both arguments). Nothing is launched or loaded
// here; the driver is asked (`query`, cuda::query_pointer unless a test passes a fake) only
// about pointers whose device the caller did not state.
struct Placement {
  int device = -1;
  bool any_device_memory = false;
};
using PointerQuery = cuda::PointerInfo (*)(cuda::DevicePtr ptr, const std::string& kernel);
Placement place_pointers(const std::string& kernel, const std::vector<std::string>& names,
                         const BoundArgs& bound, PointerQuery query = &cuda::query_pointer);
// Whether any pointer argument is device memory (Backend::Auto's question). Asks the driver
// only about pointers whose memory the caller did not state; never throws for host memory.
bool any_device_pointer(const std::string& kernel, const BoundArgs& bound);

// The hot path: packs the bound arguments as `kernel` declares its parameters and launches
// it on `stream` (the device's context must be current). No allocation for up to 64
// parameters, no string building unless the driver reports an error.
void launch(const GpuKernel& gpu, const Grid& grid, const BoundArgs& bound, cuda::Stream stream,
            const std::string& kernel, bool cooperative = false);

// The GPU target for a device (sm) or an --arch value; checks that tritium can compile it.
int checked_sm(int sm, const std::string& kernel);

// Triton's `arch` launch option and TRITON_OVERRIDE_ARCH: "sm<NN>" ("sm80", "sm90"; tritium
// also reads "sm_<NN>" and a trailing "a", "sm_90a") -> NN; 0 when `text` is not of that form.
int parse_arch(std::string_view text);

// The compile target of a launch on `device`: `arch` (the launch option) when given, else
// TRITON_OVERRIDE_ARCH (or TRITIUM_OVERRIDE_ARCH), else the device's own. An older target's
// PTX is compiled for the device by the driver when it is loaded; a newer one is refused
// (its code cannot run there), as is text not of parse_arch's form.
int launch_target(int arch, const cuda::DeviceInfo& device, const std::string& kernel);

}  // namespace tritium::runtime
