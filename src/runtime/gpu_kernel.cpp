// Building, loading and launching one GPU specialization (see gpu_kernel.h). The build
// path is timed per stage for tritium/cache.h; the launch path packs arguments into a stack
// buffer and calls cuLaunchKernel.
#include "runtime/gpu_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "cache/remote_cache.h"
#include "cache/stats.h"
#include "interp/values.h"
#include "support/diagnostics.h"
#include "runtime/ptxas.h"
#include "runtime/tensor_map.h"
#include "target/nvptx/codegen.h"

namespace tritium::runtime {

namespace {

nvptx::TargetOptions target_options(const GpuBuild& build) {
  nvptx::TargetOptions options;
  const std::string& target = build.inputs.target;
  if (target.rfind("sm_", 0) != 0) internal_error("runtime", "bad target '" + target + "'");
  options.sm = std::stoi(target.substr(3));
  options.num_warps = build.inputs.num_warps;
  options.num_stages = build.inputs.num_stages;
  options.ptx_version = build.inputs.ptx_version;
  options.enable_fp_fusion =
      cache::knob_value(build.inputs, "TRITIUM_DEFAULT_FP_FUSION") != "0";
  options.num_ctas = build.num_ctas;
  options.maxnreg = build.maxnreg;
  if (build.enable_fp_fusion >= 0) options.enable_fp_fusion = build.enable_fp_fusion != 0;
  options.vectorize = cache::knob_value(build.inputs, "TRITIUM_DISABLE_VECTORIZE") != "1";
  options.tma = cache::knob_value(build.inputs, "TRITIUM_DISABLE_TMA") != "1";
  const std::string copies = cache::knob_value(build.inputs, "TRITIUM_INFLIGHT_COPIES");
  for (const char* value : {"before", "after", "pv", "pv-before", "pv-after"}) {
    if (copies == value) options.inflight_copies = copies;
  }
  options.reduce_experiment = cache::knob_value(build.inputs, "TRITIUM_REDUCE_EXPERIMENT");
  const std::string forced = cache::knob_value(build.inputs, "TRITIUM_KSPLIT");
  options.ksplit = build.split_k > 0 ? build.split_k : forced == "4" ? 4 : forced == "8" ? 8 : 2;
  if (build.split_k == 0) {  // the variant without the K loop split over a cluster (GpuBuild::split_k)
    std::string kept;
    const std::string& all = options.reduce_experiment;
    for (size_t at = 0; at <= all.size();) {
      const size_t end = std::min(all.find(',', at), all.size());
      const std::string part = all.substr(at, end - at);
      if (!part.empty() && part != "ksplit") kept += (kept.empty() ? "" : ",") + part;
      at = end + 1;
    }
    options.reduce_experiment = kept;
  }
  options.int8_row_major_wgmma = cache::knob_value(build.inputs, "TRITIUM_INT8_ROWB_WGMMA") == "1";
  options.prefetch_indices = cache::knob_value(build.inputs, "TRITIUM_PREFETCH_INDICES") != "0";
  return options;
}

std::unique_ptr<ir::Function> lowered_and_optimized(const GpuBuild& build) {
  std::unique_ptr<ir::Function> function;
  {
    cache::StageTimer timer(cache::Stage::Lower);
    function = build.lower();
  }
  {
    cache::StageTimer timer(cache::Stage::Optimize);
    build.optimize(*function);
  }
  return function;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f ms", seconds * 1e3);
  return text;
}

// An integer argument's bits for a parameter of `kind`: truncated to its width.
uint64_t int_bits(const Arg& arg, ir::ScalarKind kind) {
  uint64_t raw = 0;
  switch (arg.kind()) {
    case Arg::Kind::Int: raw = arg.uint_value(); break;
    case Arg::Kind::Bool: raw = arg.bool_value() ? 1 : 0; break;
    case Arg::Kind::Float: {
      double v = std::trunc(arg.float_value());
      if (std::isfinite(v) && v >= -9.2e18 && v <= 9.2e18) {
        raw = static_cast<uint64_t>(static_cast<int64_t>(v));
      }
      break;
    }
    default: break;
  }
  if (kind == ir::ScalarKind::I1) return raw != 0 ? 1 : 0;
  return raw;
}

double float_value(const Arg& arg) {
  switch (arg.kind()) {
    case Arg::Kind::Float: return arg.float_value();
    case Arg::Kind::Int:
      return arg.is_unsigned() ? static_cast<double>(arg.uint_value())
                               : static_cast<double>(arg.int_value());
    case Arg::Kind::Bool: return arg.bool_value() ? 1 : 0;
    default: return 0;
  }
}

// The bits of a float argument in the parameter's format (fp16/bf16 rounded to nearest-even
// as the interpreter rounds; Python floats reach fp32 parameters rounded to fp32).
uint64_t float_bits(const Arg& arg, ir::ScalarKind kind) {
  double v = float_value(arg);
  switch (kind) {
    case ir::ScalarKind::F64: {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      return bits;
    }
    case ir::ScalarKind::F32: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
    default: {
      interp::Slot slot;
      slot.f = interp::round_float(v, kind);
      return interp::to_bits(slot, kind, false);
    }
  }
}

}  // namespace

int checked_sm(int sm, const std::string& kernel) {
  if (sm < 70) {
    throw LaunchError("kernel '" + kernel + "': the GPU target sm_" + std::to_string(sm) +
                      " is too old (tritium needs sm_70 or newer)");
  }
  return sm;
}

int parse_arch(std::string_view text) {
  if (text.substr(0, 2) != "sm") return 0;
  text.remove_prefix(2);
  if (!text.empty() && text.front() == '_') text.remove_prefix(1);
  if (!text.empty() && text.back() == 'a') text.remove_suffix(1);
  if (text.empty() || text.size() > 3) return 0;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

int launch_target(int arch, const cuda::DeviceInfo& device, const std::string& kernel) {
  std::string from = "launch option arch";
  if (arch == 0) {
    for (const char* name : {"TRITIUM_OVERRIDE_ARCH", "TRITON_OVERRIDE_ARCH"}) {
      const char* value = std::getenv(name);
      if (value == nullptr || *value == '\0') continue;
      arch = parse_arch(value);
      if (arch == 0) {
        throw LaunchError("kernel '" + kernel + "': " + name + "='" + value +
                          "' must have the form sm<NN>, such as sm80 or sm90");
      }
      from = name;
      break;
    }
  }
  if (arch == 0) return device.sm;
  checked_sm(arch, kernel);
  if (arch > device.sm) {
    throw LaunchError("kernel '" + kernel + "': " + from + " asks for sm_" + std::to_string(arch) +
                      ", newer than device " + std::to_string(device.ordinal) + " (" + device.name +
                      ", sm_" + std::to_string(device.sm) + "), which cannot run its code");
  }
  return arch;
}

PtxResult compile_ptx(const GpuBuild& build, bool want_llvm_ir) {
  std::unique_ptr<ir::Function> function = lowered_and_optimized(build);
  cache::StageTimer timer(cache::Stage::Ptx);
  nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, target_options(build));
  PtxResult out;
  out.ptx = std::move(compiled.ptx);
  if (want_llvm_ir) out.llvm_ir = std::move(compiled.llvm_ir);
  return out;
}

std::string gpu_ir(const GpuBuild& build) {
  std::unique_ptr<ir::Function> function = lowered_and_optimized(build);
  return nvptx::emit_gpu_ir(*function, target_options(build));
}

std::vector<cache::CachedParam> expected_params(const Signature& signature, const std::vector<std::string>& names) {
  std::vector<cache::CachedParam> out;
  for (size_t i = 0; i < signature.params.size() && i < names.size(); ++i) {
    const ParamSig& p = signature.params[i];
    if (p.kind == ParamSig::Kind::Constant || p.kind == ParamSig::Kind::Function) continue;
    if (p.kind == ParamSig::Kind::Descriptor) {
      // Base, shape (i32), strides but the last (i64), as lower_kernel makes them.
      const int index = static_cast<int>(i);
      const int rank = static_cast<int>(p.block_shape.size());
      out.push_back({names[i], index, true, ir::scalar_name(p.dtype), 8, static_cast<int>(ir::ArgPart::DescBase), 0});
      for (int d = 0; d < rank; ++d) {
        out.push_back({names[i] + "_shape" + std::to_string(d), index, false, "i32", 4,
                       static_cast<int>(ir::ArgPart::DescShape), d});
      }
      for (int d = 0; d + 1 < rank; ++d) {
        out.push_back({names[i] + "_stride" + std::to_string(d), index, false, "i64", 8,
                       static_cast<int>(ir::ArgPart::DescStride), d});
      }
      continue;
    }
    if (p.kind == ParamSig::Kind::Tuple) {
      // One entry per runtime leaf, as lower_kernel makes them (folded leaves count in dim).
      std::vector<const ParamSig*> leaves;
      p.leaves(&leaves);
      for (size_t k = 0; k < leaves.size(); ++k) {
        const ParamSig& leaf = *leaves[k];
        if (leaf.kind != ParamSig::Kind::Pointer && leaf.kind != ParamSig::Kind::Scalar) continue;
        bool pointer = leaf.kind == ParamSig::Kind::Pointer;
        int size = pointer ? 8 : leaf.dtype == ir::ScalarKind::I1 ? 4 : ir::bit_width(leaf.dtype) / 8;
        out.push_back({names[i] + "_" + std::to_string(k), static_cast<int>(i), pointer,
                       ir::scalar_name(leaf.dtype), size, static_cast<int>(ir::ArgPart::TupleLeaf), static_cast<int>(k)});
      }
      continue;
    }
    bool pointer = p.kind == ParamSig::Kind::Pointer;
    int size = pointer ? 8 : p.dtype == ir::ScalarKind::I1 ? 4 : ir::bit_width(p.dtype) / 8;
    out.push_back({names[i], static_cast<int>(i), pointer, ir::scalar_name(p.dtype), size});
  }
  return out;
}

std::string check_params(const std::vector<cache::CachedParam>& want, const std::vector<cache::CachedParam>& got) {
  auto text = [](const cache::CachedParam& p) {
    return p.name + "#" + std::to_string(p.index) + (p.is_pointer ? " *" : " ") + p.dtype + "/" + std::to_string(p.size) +
           (p.part != 0 ? " part " + std::to_string(p.part) + "." + std::to_string(p.dim) : "");
  };
  // The code generator may add a CUtensorMap per 2-D descriptor parameter, after the others.
  size_t n = got.size();
  while (n > want.size() && got[n - 1].part == static_cast<int>(ir::ArgPart::DescTensorMap) && got[n - 1].size == 128 &&
         std::any_of(want.begin(), want.end(), [&](const cache::CachedParam& w) {
           return w.index == got[n - 1].index && w.part == static_cast<int>(ir::ArgPart::DescBase) && w.dtype == got[n - 1].dtype;
         })) {
    --n;
  }
  for (size_t i = 0; i < std::max(want.size(), n); ++i) {
    std::string w = i < want.size() ? text(want[i]) : "nothing";
    std::string g = i < n ? text(got[i]) : "nothing";
    if (w != g) return "parameter " + std::to_string(i) + " is " + g + ", the kernel passes " + w;
  }
  return "";
}

namespace {

// One lock per disk key, for the process: the memory cache builds each (device, signature)
// once, but two devices of one target asking at once would both compile; with the lock the
// second waits and reads the first one's disk entry (one compile, two loads). Builds of
// different keys (autotuning's configs) still run in parallel. The locks live for the process.
std::mutex& build_lock(const std::string& key) {
  static std::mutex table_mutex;
  static auto* locks = new std::unordered_map<std::string, std::unique_ptr<std::mutex>>();
  std::lock_guard<std::mutex> lock(table_mutex);
  std::unique_ptr<std::mutex>& slot = (*locks)[key];
  if (!slot) slot = std::make_unique<std::mutex>();
  return *slot;
}

}  // namespace

cache::Entry build_entry(const GpuBuild& build) {
  cache::DiskCache disk = cache::DiskCache::from_env();
  std::string key = cache::key_of(build.inputs);
  std::lock_guard<std::mutex> same_key(build_lock(key));
  auto validate = [&](const cache::Entry& e) { return check_params(build.params, e.params); };
  if (std::optional<cache::Entry> entry = cache::load_shared(disk, build.inputs, validate)) {
    cache::count(cache::Counter::DiskHit);
    if (cache::log_enabled()) {
      cache::log("disk hit " + key + " kernel '" + build.kernel + "' [" +
                 build.inputs.signature + "] " + build.inputs.target);
    }
    return std::move(*entry);
  }
  cache::count(cache::Counter::DiskMiss);
  cache::count(cache::Counter::Compile);
  CacheStats before = cache_stats();

  std::unique_ptr<ir::Function> function = lowered_and_optimized(build);
  nvptx::CompiledPtx compiled;
  {
    cache::StageTimer timer(cache::Stage::Ptx);
    compiled = nvptx::compile_to_ptx(*function, target_options(build));
  }
  // The driver's JIT linker (cuda::link_ptx) makes the cubin the entry keeps, but it compiles
  // PTX as relocatable code, and that costs registers where occupancy decides the speed
  // (statically, layer norm 1024: 40 instead of 32, 12 CTAs per SM instead of 16; RESULTS.md,
  // session 24 helper lnorm; Triton's cubins come from ptxas as whole programs). So the entry
  // is PTX only, which load_entry hands to the driver to compile as a whole program (the
  // driver's JIT cache keeps the result for the next process); TRITIUM_LOAD_PTX=0 keeps the
  // linker's cubin, for comparisons (session 25: norms and cross-entropy 0.97-0.99 -> 1.00-1.08
  // of Triton with 32-bit loop counters, benchmarks/RESULTS.md).
  cache::Entry entry;
  // ("0": the knob unset, as cache::knob_value reports an empty default.)
  if (const std::string ptxas = cache::knob_value(build.inputs, "TRITIUM_PTXAS"); !ptxas.empty() && ptxas != "0") {
    cache::StageTimer timer(cache::Stage::Cubin);
    entry.cubin = assemble_with_ptxas(ptxas, compiled.ptx, build.kernel);
  } else if (cache::knob_value(build.inputs, "TRITIUM_LOAD_PTX") == "0") {
    cache::StageTimer timer(cache::Stage::Cubin);
    entry.cubin = cuda::link_ptx(compiled.ptx, build.kernel);
  }
  entry.key = key;
  entry.inputs = build.inputs;
  entry.entry_name = compiled.kernel_name;
  entry.num_warps = compiled.num_warps;
  entry.shared_bytes = compiled.shared_bytes;
  entry.sm = compiled.sm;
  entry.ptx_version = compiled.ptx_version;
  for (const nvptx::PtxParam& p : compiled.params) {
    entry.params.push_back({p.name, p.index, p.is_pointer, ir::scalar_name(p.kind), p.size, static_cast<int>(p.part), p.dim});
  }
  entry.ptx = std::move(compiled.ptx);
  // The rule the next load checks must hold for what was just compiled.
  if (std::string wrong = check_params(build.params, entry.params); !wrong.empty()) {
    internal_error("runtime", "kernel '" + build.kernel + "': compiled " + wrong, function->loc());
  }
  cache::store_shared(disk, entry);  // and published to TRITIUM_REMOTE_CACHE

  if (cache::log_enabled()) {
    CacheStats after = cache_stats();
    cache::log("disk miss " + key + " kernel '" + build.kernel + "' [" + build.inputs.signature +
               "] " + build.inputs.target + ": compiled (lower " +
               milliseconds(after.lower_seconds - before.lower_seconds) + ", optimize " +
               milliseconds(after.optimize_seconds - before.optimize_seconds) + ", ptx " +
               milliseconds(after.ptx_seconds - before.ptx_seconds) + ", cubin " +
               milliseconds(after.cubin_seconds - before.cubin_seconds) + ") into " + disk.dir());
  }
  return entry;
}

GpuKernel load_entry(const cache::Entry& entry, const cuda::DeviceInfo& device,
                     const std::string& kernel) {
  GpuKernel gpu;
  for (const cache::CachedParam& p : entry.params) {
    GpuParam param;
    param.index = static_cast<uint32_t>(p.index);
    const bool tensor_map = p.part == static_cast<int>(ir::ArgPart::DescTensorMap);
    if (!ir::parse_scalar_name(p.dtype, &param.dtype) || p.size <= 0 || (tensor_map ? p.size != 128 : p.size > 8)) {
      throw LaunchError("kernel '" + kernel + "': cache entry " + entry.key +
                        " describes parameter '" + p.name + "' as " + p.dtype + " of " +
                        std::to_string(p.size) + " bytes");
    }
    param.size = static_cast<uint8_t>(p.size);
    param.part = static_cast<ir::ArgPart>(p.part);
    param.dim = static_cast<uint8_t>(p.dim);
    param.kind = p.is_pointer ? GpuParam::Kind::Pointer
                 : ir::is_float(param.dtype) ? GpuParam::Kind::Float
                                             : GpuParam::Kind::Int;
    gpu.params.push_back(param);
  }
  cache::StageTimer timer(cache::Stage::Load);
  cuda::LoadedFunction loaded =
      entry.cubin.empty()
          ? cuda::load_ptx(entry.ptx, entry.entry_name, entry.shared_bytes, device, kernel)
          : cuda::load_cubin(entry.cubin, entry.entry_name, entry.shared_bytes, device, kernel);
  gpu.function = loaded.function;
  gpu.module = loaded.module;
  gpu.block_x = static_cast<unsigned>(32 * entry.num_warps);
  gpu.sm = entry.sm;
  gpu.device = device.ordinal;
  gpu.shared_bytes = static_cast<unsigned>(entry.shared_bytes);
  gpu.entry = entry.entry_name;
  gpu.key = entry.key;
  return gpu;
}

Placement place_pointers(const std::string& kernel, const std::vector<std::string>& names,
                         const BoundArgs& bound, PointerQuery query) {
  Placement out;
  size_t first = 0;  // the argument that decided the device
  for (size_t i = 0; i < bound.size(); ++i) {
    for_each_memory(*bound[i].arg, [&](const Arg& arg) {  // a tuple's arrays count as its own
      if (arg.address() == 0) return;
      int device = arg.device();
      if (!arg.on_device() || device < 0) {
        cuda::PointerInfo info = query(arg.address(), kernel);
        if (info.memory_type == cuda::kMemoryHost) return;  // page-locked: any device reaches it
        if (!info.device_memory()) {
          throw argument_error(kernel, names[i],
                               "points to host memory, which the GPU cannot access; pass device "
                               "memory (a CUDA tensor, a CuPy array, cuMemAlloc) or run the "
                               "kernel in the interpreter (TRITIUM_INTERPRET=1)");
        }
        device = info.device;
      }
      out.any_device_memory = true;
      if (out.device < 0) {
        out.device = device;
        first = i;
      } else if (device != out.device) {
        throw argument_error(kernel, names[i],
                             "is on device " + std::to_string(device) + " but argument '" +
                                 names[first] + "' is on device " + std::to_string(out.device) +
                                 "; a launch uses the memory of one device");
      }
    });
  }
  return out;
}

bool any_device_pointer(const std::string& kernel, const BoundArgs& bound) {
  bool on_device = false;
  for (const BoundArg& b : bound) for_each_memory(*b.arg, [&](const Arg& arg) { on_device |= arg.on_device(); });
  if (on_device) return true;
  if (!cuda::device_present()) return false;
  for (const BoundArg& b : bound) {
    for_each_memory(*b.arg, [&](const Arg& arg) {
      if (!on_device && arg.address() != 0) on_device = cuda::query_pointer(arg.address(), kernel).device_memory();
    });
  }
  return on_device;
}

void launch(const GpuKernel& gpu, const Grid& grid, const BoundArgs& bound, cuda::Stream stream,
            const std::string& kernel, bool cooperative) {
  constexpr size_t kInline = 64;
  uint64_t inline_values[kInline];
  void* inline_pointers[kInline];
  std::unique_ptr<uint64_t[]> heap_values;
  std::unique_ptr<void*[]> heap_pointers;
  uint64_t* values = inline_values;
  void** pointers = inline_pointers;
  const size_t n = gpu.params.size();
  if (n > kInline) [[unlikely]] {
    heap_values = std::make_unique<uint64_t[]>(n);
    heap_pointers = std::make_unique<void*[]>(n);
    values = heap_values.get();
    pointers = heap_pointers.get();
  }
  for (size_t i = 0; i < n; ++i) {
    const GpuParam& param = gpu.params[i];
    const Arg& arg = param.part == ir::ArgPart::TupleLeaf ? tuple_leaf(*bound[param.index].arg, param.dim)
                                                          : *bound[param.index].arg;
    uint64_t bits = 0;
    if (param.part != ir::ArgPart::Whole && param.part != ir::ArgPart::TupleLeaf) [[unlikely]] {
      // A piece of a host tensor descriptor (specialize checked its rank and shape range).
      if (param.part == ir::ArgPart::DescTensorMap) {
        pointers[i] = const_cast<void*>(tensor_map_for(arg, param.dtype, kernel));
        continue;
      }
      const Arg::Descriptor& d = *arg.descriptor();
      bits = param.part == ir::ArgPart::DescBase    ? arg.address()
             : param.part == ir::ArgPart::DescShape ? static_cast<uint64_t>(static_cast<uint32_t>(d.shape[param.dim]))
                                                    : static_cast<uint64_t>(d.strides[param.dim]);
      values[i] = bits;
      pointers[i] = &values[i];
      continue;
    }
    switch (param.kind) {
      case GpuParam::Kind::Pointer:
        // The signature typed this parameter from a pointer argument (or a raw address
        // passed as an integer to a pointer-annotated parameter).
        bits = arg.kind() == Arg::Kind::Pointer ? arg.address() : arg.uint_value();
        break;
      case GpuParam::Kind::Int:
        bits = int_bits(arg, param.dtype);
        break;
      case GpuParam::Kind::Float:
        bits = float_bits(arg, param.dtype);
        break;
    }
    // Little-endian: the parameter's bytes are the low `size` bytes of the slot, and the
    // driver reads exactly `size` bytes from the pointer.
    values[i] = bits;
    pointers[i] = &values[i];
  }
  const cuda::Api& api = cuda::driver_if_loaded()->api;
  if (gpu.cluster_x == 1 && !cooperative) [[likely]] {
    cuda::check(api.cuLaunchKernel(gpu.function, grid.x, grid.y, grid.z, gpu.block_x, 1, 1,
                                   gpu.shared_bytes, stream, pointers, nullptr),
                "cuLaunchKernel", kernel);
    return;
  }
  // A cluster launch: each program is a cluster of num_ctas CTAs along x (the kernel maps
  // program_id to the cluster's id, nvptx codegen), or a cooperative launch.
  cuda::LaunchAttribute attrs[2];
  cuda::LaunchConfigEx config;
  config.grid_x = grid.x * gpu.cluster_x;
  config.grid_y = grid.y;
  config.grid_z = grid.z;
  config.block_x = gpu.block_x;
  config.shared_bytes = gpu.shared_bytes;
  config.stream = stream;
  config.attrs = attrs;
  if (gpu.cluster_x > 1) {
    cuda::LaunchAttribute& a = attrs[config.num_attrs++];
    a.id = cuda::kLaunchAttributeClusterDimension;
    a.value.cluster_dim[0] = gpu.cluster_x;
    a.value.cluster_dim[1] = 1;
    a.value.cluster_dim[2] = 1;
  }
  if (cooperative) {
    cuda::LaunchAttribute& a = attrs[config.num_attrs++];
    a.id = cuda::kLaunchAttributeCooperative;
    a.value.cooperative = 1;
  }
  cuda::check(api.cuLaunchKernelEx(&config, gpu.function, pointers, nullptr), "cuLaunchKernelEx",
              kernel);
}

uint64_t options_word(const LaunchConfig& config) {
  // num_ctas <= 16 (5 bits), maxnreg <= 255 (8 bits), fp fusion -1/0/1 (2 bits), debug,
  // the arch option (its own 16 bits; 0: the device's).
  return static_cast<uint64_t>(config.num_ctas) |
         static_cast<uint64_t>(config.maxnreg) << 5 |
         static_cast<uint64_t>(config.enable_fp_fusion + 1) << 13 |
         static_cast<uint64_t>(config.debug) << 15 |
         static_cast<uint64_t>(static_cast<uint16_t>(config.arch)) << 16;
}

std::string options_text(const LaunchConfig& config) {
  std::string out;
  if (config.num_ctas != 1) out += "num_ctas=" + std::to_string(config.num_ctas) + ";";
  if (config.maxnreg != 0) out += "maxnreg=" + std::to_string(config.maxnreg) + ";";
  if (config.enable_fp_fusion >= 0) {
    out += "enable_fp_fusion=" + std::to_string(config.enable_fp_fusion) + ";";
  }
  if (config.debug) out += "debug=1;";
  return out;
}

FunctionFacts function_facts(const GpuKernel& gpu, const std::string& kernel) {
  const cuda::Api& api = cuda::driver(kernel).api;
  // Asked in the context of the device the function is loaded on (launches restore the
  // caller's context, which may be another device's).
  cuda::ScopedContext context(cuda::device(gpu.device, kernel).context, kernel);
  FunctionFacts facts;
  int local_bytes = 0;
  cuda::check(api.cuFuncGetAttribute(&facts.n_regs, cuda::kFuncNumRegs, gpu.function),
              "cuFuncGetAttribute(NUM_REGS)", kernel);
  cuda::check(api.cuFuncGetAttribute(&local_bytes, cuda::kFuncLocalSizeBytes, gpu.function),
              "cuFuncGetAttribute(LOCAL_SIZE_BYTES)", kernel);
  cuda::check(api.cuFuncGetAttribute(&facts.n_max_threads, cuda::kFuncMaxThreadsPerBlock,
                                     gpu.function),
              "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)", kernel);
  facts.n_spills = local_bytes / 4;  // as Triton's driver reports spills: 4-byte words
  return facts;
}

}  // namespace tritium::runtime
