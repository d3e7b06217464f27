// Kernel::Impl on the GPU: the launch path (device of the pointers, its primary context,
// the per-device memory cache, packing, cuLaunchKernel), building a specialization on a
// miss (disk cache, else compile), the cache key inputs, and emitting LLVM IR, PTX or cubin.
// On a hit the path is: specialize -> hash -> lookup -> pack -> launch; no strings are built.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>

#include "cache/sha256.h"
#include "cache/stats.h"
#include "gpu/split_k_cluster.h"
#include "gpu/target_types.h"
#include "runtime/kernel_impl.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/libdevice.h"

namespace tritium {

namespace {

// The trip count of a split K loop from the launch's arguments (GpuKernel::trips_param), -1
// where it is not known (no formula, an argument that is no integer, a product past 2^62).
int64_t split_trips(const runtime::GpuKernel& gpu, const runtime::BoundArgs& bound) {
  if (gpu.trips_param < 0 || static_cast<size_t>(gpu.trips_param) >= bound.size()) return -1;
  const Arg* arg = bound[static_cast<size_t>(gpu.trips_param)].arg;
  if (arg == nullptr || arg->kind() != Arg::Kind::Int) return -1;
  constexpr int64_t kLimit = int64_t{1} << 62;
  const std::optional<int64_t> bound_value = gpu::apply_trip_formula(arg->int_value(), gpu.trips_ops);
  if (!bound_value) return -1;
  const int64_t x = *bound_value;
  const int64_t span = x - gpu.trips_lower;
  if (span > kLimit) return -1;
  return span <= 0 ? 0 : (span + gpu.trips_step - 1) / gpu.trips_step;
}

void hash_combine(size_t* seed, size_t value) {
  *seed ^= value + 0x9e3779b97f4a7c15ULL + (*seed << 6) + (*seed >> 2);
}

size_t hash_const(const ConstValue& value) {
  size_t h = static_cast<size_t>(value.kind);
  switch (value.kind) {
    case ConstValue::Kind::None: break;
    case ConstValue::Kind::Bool: hash_combine(&h, value.b); break;
    case ConstValue::Kind::Int:
      hash_combine(&h, static_cast<size_t>(static_cast<uint64_t>(value.i)));
      hash_combine(&h, static_cast<size_t>(static_cast<uint64_t>(value.i >> 64)));
      break;
    case ConstValue::Kind::Float: {
      uint64_t bits;
      std::memcpy(&bits, &value.f, 8);
      hash_combine(&h, bits);
      break;
    }
    case ConstValue::Kind::Str: hash_combine(&h, std::hash<std::string>()(value.s)); break;
    case ConstValue::Kind::DType: hash_combine(&h, static_cast<size_t>(value.dtype)); break;
    case ConstValue::Kind::Object: hash_combine(&h, std::hash<std::string>()(value.s)); break;
  }
  return h;
}

// One length-prefixed field of the globals text (no two different inputs read alike).
void field(std::string* out, const std::string& text) {
  *out += std::to_string(text.size());
  *out += ':';
  *out += text;
  *out += ';';
}

// A constant as the key needs it: floats by their bits (printing may round), the rest as
// ConstValue::str() writes them canonically.
std::string const_text(const ConstValue& value) {
  if (value.kind != ConstValue::Kind::Float) return value.str();
  uint64_t bits;
  std::memcpy(&bits, &value.f, 8);
  return "float:" + std::to_string(bits);
}

// Globals (name-sorted, as std::map keeps them), recursing into callees' own globals.
// `seen` stops shared or deep callee graphs from being serialized more than once.
void globals_into(const Globals& globals, std::set<const Globals*>* seen, std::string* out) {
  *out += "{";
  for (const auto& [name, binding] : globals) {
    field(out, name);
    switch (binding.kind) {
      case GlobalBinding::Kind::Module:
        field(out, "module");
        field(out, binding.module);
        break;
      case GlobalBinding::Kind::Constant:
        field(out, "constant");
        field(out, const_text(binding.value));
        break;
      case GlobalBinding::Kind::Function: {
        field(out, "function");
        field(out, binding.function);
        const SourceFile* file = binding.module_ast ? binding.module_ast->file.get() : nullptr;
        field(out, file ? file->path() : "");
        field(out, file ? std::to_string(file->first_line()) : "");
        field(out, file ? file->text() : "");
        const Globals* inner = binding.function_globals.get();
        if (inner == nullptr) {
          field(out, "module-scope");
        } else if (!seen->insert(inner).second) {
          field(out, "seen");
        } else {
          globals_into(*inner, seen, out);
        }
        break;
      }
      case GlobalBinding::Kind::HostFunction:
        field(out, binding.host_builtin ? "host-builtin" : "host-function");
        field(out, binding.function);
        field(out, binding.host_source);
        break;
      case GlobalBinding::Kind::TupleType:
        field(out, "tuple-type");
        field(out, binding.function);
        for (const std::string& f : binding.fields) field(out, f);
        field(out, std::to_string(binding.field_defaults.size()));
        for (const ConstValue& d : binding.field_defaults) field(out, const_text(d));
        break;
    }
  }
  *out += "}";
}

bool grid_empty(const Grid& grid) { return grid.x == 0 || grid.y == 0 || grid.z == 0; }

}  // namespace

size_t Kernel::Impl::GpuKeyHash::operator()(const GpuKeyView& key) const {
  size_t h = static_cast<size_t>(key.device);
  hash_combine(&h, static_cast<size_t>(key.num_warps));
  hash_combine(&h, static_cast<size_t>(key.num_stages));
  hash_combine(&h, static_cast<size_t>(key.options));
  for (const ParamSig& p : key.signature->params) {
    hash_combine(&h, static_cast<size_t>(p.kind) * 31 + static_cast<size_t>(p.dtype));
    hash_combine(&h, static_cast<size_t>(p.divisibility));
    if (p.kind == ParamSig::Kind::Constant) hash_combine(&h, hash_const(p.value));
  }
  return h;
}

std::string Kernel::Impl::globals_text() const {
  std::string out;
  std::set<const Globals*> seen;
  globals_into(globals_, &seen, &out);
  return out;
}

runtime::GpuBuild Kernel::Impl::gpu_build(const Signature& signature, const LaunchConfig& config,
                                          int sm, int split_k) const {
  runtime::GpuBuild build;
  build.kernel = name_;
  cache::KeyInputs& in = build.inputs;
  in = cache::KeyInputs::current();
  in.kernel = name_;
  const SourceFile* file = module_->file.get();
  in.source = file ? file->text() : "";
  in.source_path = file ? file->path() : "";
  in.first_line = file ? file->first_line() : 1;
  in.globals = globals_text_;
  // The libdevice that math functions link (its content hash; "none" when not installed),
  // read once per process: a toolkit upgrade changes the key.
  static const std::string libdevice = [] {
    std::string path = nvptx::libdevice_path();
    if (path.empty()) return std::string("none");
    std::ifstream file(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    return cache::sha256_hex(bytes);
  }();
  in.env.emplace_back("libdevice", libdevice);
  std::sort(in.env.begin(), in.env.end());
  in.signature = signature_text(signature);
  in.target = "sm_" + std::to_string(runtime::checked_sm(sm, name_));
  if (config.num_ctas > 1 && sm < 90) {
    throw LaunchError("kernel '" + name_ + "': num_ctas=" + std::to_string(config.num_ctas) +
                      " needs thread-block clusters, which sm_" + std::to_string(sm) +
                      " does not have (sm_90 or newer)");
  }
  nvptx::TargetOptions target;
  target.sm = sm;
  target.num_warps = config.num_warps;
  in.ptx_version = nvptx::ptx_version_for(target);
  in.num_warps = config.num_warps;
  in.num_stages = config.num_stages;
  in.options = runtime::options_text(config);
  build.split_k = split_k;
  if (split_k >= 0) in.options += "ksplit=" + std::to_string(split_k) + ";";
  build.num_ctas = config.num_ctas;
  build.maxnreg = config.maxnreg;
  build.enable_fp_fusion = config.enable_fp_fusion;
  build.lower = [this, signature, debug = config.debug, warps = config.num_warps, sm] {
    std::unique_ptr<ir::Function> function = lower(signature, debug, warps);
    gpu::check_target_types(*function, sm);  // before the passes: an unused value still counts
    return function;
  };
  build.optimize = [](ir::Function& function) { optimize(function); };
  build.params = runtime::expected_params(signature, params_.names);
  return build;
}

runtime::GpuKernel Kernel::Impl::build_gpu(const Signature& signature, const LaunchConfig& config,
                                           const cuda::DeviceInfo& device,
                                           cuda::Stream stream, int split_k) const {
  // Compiling or loading would put non-launch work into a graph being captured (and the
  // driver forbids some of it there): the user must warm up first.
  if (cuda::stream_capturing(stream, name_)) {
    throw LaunchError("kernel '" + name_ + "': the specialization [" + signature_text(signature) +
                      "] is not compiled and loaded yet, and the stream is capturing a CUDA "
                      "graph; call warmup(...) with the same arguments before capturing");
  }
  const int sm = runtime::launch_target(config.arch, device, name_);
  runtime::GpuBuild build = gpu_build(signature, config, sm, split_k);
  // An older target's entry is its PTX, which the driver compiles for the device at load;
  // TRITIUM_LOAD_PTX=0's entry is the device's cubin, so the device is part of its key.
  if (sm != device.sm) build.inputs.options += "device=sm_" + std::to_string(device.sm) + ";";
  cache::Entry entry = runtime::build_entry(build);
  runtime::GpuKernel gpu = runtime::load_entry(entry, device, name_);
  gpu.cluster_x = static_cast<unsigned>(config.num_ctas);
  // A kernel the compiler made a cluster of CTAs on its own (a K loop split over the cluster,
  // gpu/split_k_cluster.h) says so in its PTX: each program is launched as that cluster.
  const size_t at = entry.ptx.find(".reqnctapercluster ");
  if (at != std::string::npos) {
    const unsigned n = static_cast<unsigned>(std::strtoul(entry.ptx.c_str() + at + 19, nullptr, 10));
    if (n > gpu.cluster_x && n <= 16) {
      gpu.cluster_x = n;
      gpu.split_k = true;
      const std::string forced = cache::knob_value(build.inputs, "TRITIUM_KSPLIT");
      gpu.split_k_forced = forced == "2" || forced == "4" || forced == "8" ? std::stoi(forced) : 0;
      const size_t trips = entry.ptx.find("// tritium.ksplit.trips ");
      if (trips != std::string::npos) {
        std::istringstream in(entry.ptx.substr(trips + 24, entry.ptx.find('\n', trips) - trips - 24));
        std::vector<int64_t> ops;
        int64_t param = -1, v = 0;
        if (in >> param >> gpu.trips_lower >> gpu.trips_step) {
          while (in >> v) ops.push_back(v);
          if (ops.size() % 2 == 0 && param >= 0 && gpu.trips_step > 0) {
            gpu.trips_param = static_cast<int>(param);
            gpu.trips_ops = std::move(ops);
          }
        }
      }
    }
  }
  return gpu;
}

const runtime::GpuKernel* Kernel::Impl::launch_gpu(const Grid& grid,
                                                   const runtime::BoundArgs& bound,
                                                   const LaunchConfig& config) {
  if (grid.y > 65535 || grid.z > 65535) {
    throw LaunchError("kernel '" + name_ + "': grid dimension " + (grid.y > 65535 ? "1" : "2") +
                      " is " + std::to_string(grid.y > 65535 ? grid.y : grid.z) +
                      "; on the GPU it must be at most 65535");
  }
  // The device comes from the arguments (not the current context), and arguments on two
  // devices are an error before any context, compile or load is touched. The driver is
  // needed only for pointers whose device the caller did not state.
  runtime::Placement placement = runtime::place_pointers(name_, params_.names, bound);
  cuda::driver(name_);  // a clear error when there is no driver or no device
  int ordinal = placement.device;
  if (ordinal < 0) ordinal = std::max(cuda::current_device(), 0);  // no memory arguments
  const cuda::DeviceInfo& device = cuda::device(ordinal, name_);
  cuda::ScopedContext context(device.context, name_);
  auto stream = static_cast<cuda::Stream>(config.stream);

  // The signature is specialized into a buffer this thread reuses, and looked up through a
  // view of it: a hit allocates nothing.
  thread_local Signature signature;
  runtime::specialize(name_, params_, bound, &signature);
  const uint64_t options = runtime::options_word(config);
  const GpuKeyView view{ordinal, config.num_warps, config.num_stages, options, &signature};
  bool hit = true;
  const runtime::GpuKernel* gpu = gpu_cache_.peek(view);
  if (gpu == nullptr) {
    GpuKey key{ordinal, config.num_warps, config.num_stages, options, signature};
    gpu = &gpu_cache_.get(
        key, [&] { return build_gpu(key.signature, config, device, stream); }, &hit);
  }
  cache::count(hit ? cache::Counter::MemoryHit : cache::Counter::MemoryMiss);
  if (cache::log_enabled()) [[unlikely]] {
    cache::log(std::string(hit ? "memory hit" : "memory miss") + " kernel '" + name_ + "' [" +
               signature_text(signature) + "] device " + std::to_string(ordinal) +
               " num_warps=" + std::to_string(config.num_warps) + " key " + gpu->key);
  }
  if (gpu->split_k) [[unlikely]] {
    // A K loop split over a cluster (gpu/split_k_cluster.h) pays off where the grid leaves
    // SMs idle: the launch takes the largest split s of 8, 4 and 2 (TRITIUM_KSPLIT=s: that
    // one only) with programs * s <= the SM count, and the variant built without the split
    // where none fits. Each is its own compiled variant: options bits 40-42 (1: no split,
    // 2/3/4: s = 2/4/8) and "ksplit=s;" in the disk key; the first build (bits 0) split as
    // TRITIUM_KSPLIT says, else over 2, and told whether the kernel is eligible at all. (A
    // constant trip count may have made the variant's cluster smaller: split_k_cluster.h.)
    const uint64_t programs = static_cast<uint64_t>(grid.x) * grid.y * grid.z;
    const auto sms = static_cast<uint64_t>(device.sm_count);
    const int64_t trips = split_trips(*gpu, bound);  // -1: not known from the arguments
    int size = 0;
    for (int s : {8, 4, 2}) {
      const bool fits = programs * s <= sms && (trips < 0 || trips >= int64_t{s} * gpu::kMinTripsPerRank);
      if (size == 0 && (gpu->split_k_forced == 0 ? fits : gpu->split_k_forced == s && programs * s <= sms)) size = s;
    }
    const int first = gpu->split_k_forced != 0 ? gpu->split_k_forced : 2;
    if (size != first) {
      const uint64_t code = size == 0 ? 1 : size == 2 ? 2 : size == 4 ? 3 : 4;
      const uint64_t variant = options | code << 40;
      const GpuKeyView view_of{ordinal, config.num_warps, config.num_stages, variant, &signature};
      gpu = gpu_cache_.peek(view_of);
      if (gpu == nullptr) {
        GpuKey key{ordinal, config.num_warps, config.num_stages, variant, signature};
        gpu = &gpu_cache_.get(key, [&] { return build_gpu(key.signature, config, device, stream, size); });
      }
    }
  }
  if (grid_empty(grid)) return gpu;  // warmup, or Triton's skipped empty launch
  if (grid.x * static_cast<uint64_t>(gpu->cluster_x) > INT32_MAX) [[unlikely]] {
    throw LaunchError("kernel '" + name_ + "': grid dimension 0 is " + std::to_string(grid.x) +
                      "; with num_ctas=" + std::to_string(gpu->cluster_x) +
                      " it must be at most " + std::to_string(INT32_MAX / gpu->cluster_x));
  }
  runtime::launch(*gpu, grid, bound, stream, name_, config.launch_cooperative_grid);
  return gpu;
}

std::string Kernel::Impl::emit_gpu(Stage stage, const Signature& signature,
                                   const LaunchConfig& config) const {
  int sm = config.arch;
  const cuda::DeviceInfo* device = nullptr;
  if (stage == Stage::Cubin || (sm == 0 && cuda::device_present())) {
    device = &cuda::device(0, name_);  // a LaunchError without a driver or device
    if (sm == 0) sm = device->sm;
  }
  if (sm == 0) sm = 90;
  runtime::GpuBuild build = gpu_build(signature, config, sm);
  if (stage == Stage::GpuIr) return runtime::gpu_ir(build);
  if (stage != Stage::Cubin) {
    runtime::PtxResult result = runtime::compile_ptx(build, stage == Stage::Llvm);
    return stage == Stage::Llvm ? result.llvm_ir : result.ptx;
  }
  // The JIT linker compiles for the device of the current context.
  if (device->sm != sm) {
    throw LaunchError("kernel '" + name_ + "': a cubin for sm_" + std::to_string(sm) +
                      " needs a device of that architecture; device 0 (" + device->name +
                      ") is sm_" + std::to_string(device->sm));
  }
  cuda::make_current(device->context, name_);
  // The driver's JIT linker's cubin (relocatable code), also where TRITIUM_LOAD_PTX=1 runs
  // the PTX compiled as a whole program at load (whose cubin the driver does not give).
  cache::Entry entry = runtime::build_entry(build);
  return entry.cubin.empty() ? cuda::link_ptx(entry.ptx, name_) : entry.cubin;
}

}  // namespace tritium
