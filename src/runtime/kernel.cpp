// tritium::Kernel and jit_launch: parse once, then per call bind -> specialize -> memory
// cache lookup (compile on a miss: lower + pipeline) -> run. Launches on device memory go to
// the GPU (kernel_gpu.cpp); host memory, TRITIUM_INTERPRET=1 and machines without a GPU run
// in the reference interpreter.
#include <strings.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>

#include "frontend/ast_printer.h"
#include "frontend/parser.h"
#include "analysis/written_params.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/axis_oracle.h"
#include "runtime/cuda_driver.h"
#include "runtime/kernel_impl.h"
#include "support/diagnostics.h"
#include "transforms/pipeline.h"

namespace tritium {

namespace {

// register_host_memory's blocks: begin -> (bytes, name).
struct HostMemory {
  std::mutex mutex;
  std::map<uint64_t, std::pair<uint64_t, std::string>> blocks;
};

HostMemory& host_memory() {
  static HostMemory* memory = new HostMemory;  // never destroyed: used until exit
  return *memory;
}

// Accepts whatever parse_module returns (unique_ptr, shared_ptr or a Module by value).
template <typename T>
std::shared_ptr<const ast::Module> share_module(T&& parsed) {
  if constexpr (std::is_same_v<std::decay_t<T>, ast::Module>) {
    return std::make_shared<const ast::Module>(std::forward<T>(parsed));
  } else {
    return std::shared_ptr<const ast::Module>(std::forward<T>(parsed));
  }
}

std::shared_ptr<const ast::Module> parse(const KernelSource& source) {
  auto file = std::make_shared<SourceFile>(source.path, source.text, source.first_line);
  return share_module(parse_module(file));
}

// The function `name` of `module`, or a CompileError that says what the source holds.
const ast::FunctionDef& find_kernel(const ast::Module& module, const std::string& name) {
  if (const ast::FunctionDef* fn = module.find_function(name)) return *fn;
  const std::string& path = module.file ? module.file->path() : std::string("<source>");
  for (const std::string& skipped : module.skipped_functions) {
    if (skipped == name) {
      throw CompileError(
          path, 0, 0,
          "function '" + name + "' is not a @jit function and uses Python that kernels may not",
          "");
    }
  }
  std::string known;
  for (const ast::StmtPtr& stmt : module.statements) {
    if (stmt->kind != ast::StmtKind::FunctionDef || !stmt->function) continue;
    known += (known.empty() ? "" : ", ") + stmt->function->name;
  }
  throw CompileError(path, 0, 0,
                     "no function named '" + name + "'" +
                         (known.empty() ? std::string(" (the source defines no function)")
                                        : " (the source defines: " + known + ")"),
                     "");
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return false;
  return std::strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
         strcasecmp(v, "on") == 0;
}

// Whether the pipeline verifies after every pass: tests and debug builds.
bool verify_each_pass() {
#ifndef NDEBUG
  return true;
#else
  return env_flag("TRITIUM_VERIFY");
#endif
}

std::atomic<bool> g_notice_printed{false};

void notice_once(const char* text) {
  if (!g_notice_printed.exchange(true)) std::fprintf(stderr, "%s\n", text);
}

void check_config(const std::string& kernel, const LaunchConfig& config) {
  int w = config.num_warps;
  if (w <= 0 || w > 64 || (w & (w - 1)) != 0) {
    throw LaunchOptionError("kernel '" + kernel + "': num_warps must be a power of 2 (1 to 64), got " +
                      std::to_string(w));
  }
  if (config.num_stages < 1) {
    throw LaunchOptionError("kernel '" + kernel + "': num_stages must be at least 1, got " +
                      std::to_string(config.num_stages));
  }
  // A cluster has at most 16 CTAs (8 portably); Triton's num_ctas is a power of two.
  int c = config.num_ctas;
  if (c <= 0 || c > 16 || (c & (c - 1)) != 0) {
    throw LaunchOptionError("kernel '" + kernel + "': num_ctas must be a power of 2 (1 to 16), got " +
                      std::to_string(c));
  }
  // PTX's .maxnreg: registers per thread, at most 255 (and a kernel needs some to run).
  if (config.maxnreg != 0 && (config.maxnreg < 16 || config.maxnreg > 255)) {
    throw LaunchError("kernel '" + kernel + "': maxnreg must be None or in [16, 255], got " +
                      std::to_string(config.maxnreg));
  }
}

// An integer scalar's bits as the interpreter wants them: truncated to the type's width,
// then sign- or zero-extended.
int64_t int_bits(ir::ScalarKind kind, const Arg& arg) {
  uint64_t raw = 0;
  switch (arg.kind()) {
    case Arg::Kind::Int:
      raw = arg.uint_value();
      break;
    case Arg::Kind::Bool:
      raw = arg.bool_value() ? 1 : 0;
      break;
    case Arg::Kind::Float: {
      double v = std::trunc(arg.float_value());
      if (std::isfinite(v) && v >= -9.2e18 && v <= 9.2e18) {
        raw = static_cast<uint64_t>(static_cast<int64_t>(v));
      }
      break;
    }
    default:
      break;
  }
  int width = ir::bit_width(kind);
  if (width >= 64) return static_cast<int64_t>(raw);
  uint64_t mask = (uint64_t{1} << width) - 1;
  raw &= mask;
  if (ir::is_signed(kind) && ((raw >> (width - 1)) & 1) != 0) raw |= ~mask;
  return static_cast<int64_t>(raw);
}

double float_arg(ir::ScalarKind kind, const Arg& arg) {
  double v = 0;
  switch (arg.kind()) {
    case Arg::Kind::Float:
      v = arg.float_value();
      break;
    case Arg::Kind::Int:
      v = arg.is_unsigned() ? static_cast<double>(arg.uint_value())
                            : static_cast<double>(arg.int_value());
      break;
    case Arg::Kind::Bool:
      v = arg.bool_value() ? 1 : 0;
      break;
    default:
      break;
  }
  // Python floats reach the kernel as fp32 (pitfall 5); narrower types round in the
  // interpreter when it converts.
  if (kind != ir::ScalarKind::F64) v = static_cast<double>(static_cast<float>(v));
  return v;
}

}  // namespace

void register_host_memory(uint64_t begin, uint64_t bytes, const std::string& name) {
  HostMemory& m = host_memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.blocks[begin] = {bytes, name};
}

void unregister_host_memory(uint64_t begin) {
  HostMemory& m = host_memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.blocks.erase(begin);
}

// ---------------------------------------------------------------------------------------
// Kernel::Impl

Kernel::Impl::Impl(KernelSource source, std::string name, std::vector<CalleeSource> callees,
                   Globals globals)
    : name_(std::move(name)), callee_sources_(std::move(callees)) {
  module_ = parse(source);
  function_ = &find_kernel(*module_, name_);
  for (const CalleeSource& callee : callee_sources_) {
    GlobalBinding binding;
    binding.kind = GlobalBinding::Kind::Function;
    binding.module_ast = parse(callee.source);
    binding.function = callee.function.empty() ? callee.name : callee.function;
    find_kernel(*binding.module_ast, binding.function);  // fails early when it is not there
    binding.function_globals = callee.globals;
    callee_bindings_[callee.name] = std::move(binding);
  }
  set_globals(std::move(globals));
}

void Kernel::Impl::set_globals(Globals globals) {
  globals_ = std::move(globals);
  for (const auto& [callee_name, binding] : callee_bindings_) {
    globals_.emplace(callee_name, binding);  // what Python handed over wins
  }
  read_parameters();
  globals_text_ = globals_text();
  gpu_cache_.clear();
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.clear();
}

void Kernel::Impl::read_parameters() {
  // Before Python has handed the globals over, a default naming one is not an error yet;
  // it is when a launch needs the parameters (check_parameters).
  unresolved_default_.reset();
  params_ = read_params(*function_, globals_, globals_.empty() ? &unresolved_default_ : nullptr);
  if (specialization_given_) {
    params_.do_not_specialize = specialization_given_->first;
    params_.do_not_specialize_on_alignment = specialization_given_->second;
  }
  defaults_ = runtime::default_args(name_, params_);
}

void Kernel::Impl::set_specialization(std::vector<int> do_not_specialize,
                                      std::vector<int> do_not_specialize_on_alignment) {
  for (const std::vector<int>* list : {&do_not_specialize, &do_not_specialize_on_alignment}) {
    for (int index : *list) {
      if (index < 0 || static_cast<size_t>(index) >= params_.names.size()) {
        throw LaunchError("kernel '" + name_ + "': do_not_specialize: no parameter number " +
                          std::to_string(index));
      }
    }
  }
  specialization_given_.emplace(std::move(do_not_specialize),
                                std::move(do_not_specialize_on_alignment));
  params_.do_not_specialize = specialization_given_->first;
  params_.do_not_specialize_on_alignment = specialization_given_->second;
  gpu_cache_.clear();
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.clear();
}

runtime::BoundArgs Kernel::Impl::bind(const std::vector<Arg>& args,
                                      const std::vector<std::pair<std::string, Arg>>& named) const {
  runtime::BoundArgs bound;
  runtime::bind_args(name_, params_, defaults_, args, named, &bound);
  return bound;
}

std::vector<std::pair<std::string, const Arg*>> Kernel::Impl::meta(
    const runtime::BoundArgs& bound) const {
  std::vector<std::pair<std::string, const Arg*>> out;
  out.reserve(bound.size());
  for (size_t i = 0; i < bound.size() && i < params_.names.size(); ++i) {
    out.emplace_back(params_.names[i], bound[i].arg);
  }
  return out;
}

Signature Kernel::Impl::specialize(const runtime::BoundArgs& bound) const {
  Signature signature;
  runtime::specialize(name_, params_, bound, &signature);
  for (const ParamSig& p : signature.params) {
    if (p.kind == ParamSig::Kind::Function || p.kind == ParamSig::Kind::Tuple ||
        (p.kind == ParamSig::Kind::Constant && p.value.kind == ConstValue::Kind::Object)) {
      remember_functions(p);
    }
  }
  return signature;
}

void Kernel::Impl::remember_functions(const ParamSig& sig) const {
  if (sig.kind == ParamSig::Kind::Function) {
    std::lock_guard<std::mutex> lock(function_args_mutex_);
    function_args_[sig.function_key] = sig.function;
  }
  if (sig.kind == ParamSig::Kind::Constant && sig.value.kind == ConstValue::Kind::Object) {
    // An object given to a tl.constexpr parameter: signature text names it by its repr.
    auto binding = std::make_shared<GlobalBinding>();
    binding->kind = GlobalBinding::Kind::Constant;
    binding->value = sig.value;
    std::lock_guard<std::mutex> lock(function_args_mutex_);
    function_args_[sig.value.str()] = std::move(binding);
  }
  for (const ParamSig& e : sig.elements) remember_functions(e);
}

std::string Kernel::Impl::signature_text(const Signature& signature) const {
  return signature.str(params_.names);
}

std::unique_ptr<ir::Function> Kernel::Impl::lower(const Signature& signature, bool debug, int num_warps) const {
  std::unique_ptr<ir::Function> function = lower_kernel(module_, name_, signature, globals_, debug, num_warps);
  ir::verify(*function, "lower");
  return function;
}

void Kernel::Impl::optimize(ir::Function& function) {
  transforms::PipelineOptions options;
  options.verify_each = verify_each_pass();
  transforms::run_pipeline(function, options);
}

bool Kernel::Impl::use_gpu(const runtime::BoundArgs& bound, const LaunchConfig& config) const {
  // Read once: the hot path should not scan the environment at every launch.
  static const bool interpret = env_flag("TRITIUM_INTERPRET");
  if (config.backend == Backend::Interpreter) return false;
  if (config.backend == Backend::Cuda) return true;  // launch_gpu says why it cannot
  if (interpret) return false;
  if (runtime::any_device_pointer(name_, bound)) return true;
  if (!cuda::device_present()) {
    notice_once(
        "tritium: no GPU found; running kernels in the interpreter (set TRITIUM_INTERPRET=1 to "
        "silence)");
    return false;
  }
  bool host_memory_args = false;
  for (const runtime::BoundArg& b : bound) {
    runtime::for_each_memory(*b.arg, [&](const Arg& m) { host_memory_args |= m.address() != 0; });
  }
  if (host_memory_args) {
    notice_once(
        "tritium: the arguments are host memory; running kernels in the interpreter (pass "
        "device memory to run on the GPU, or set TRITIUM_INTERPRET=1 to silence)");
    return false;
  }
  return true;  // no memory arguments at all: the GPU is there
}

std::shared_ptr<const ir::Function> Kernel::Impl::compiled(const Signature& signature,
                                                           const std::string& key, bool debug, int num_warps,
                                                           std::vector<bool>* written) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    std::shared_ptr<Entry>& slot = cache_[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  if (entry->ready.load(std::memory_order_acquire)) {
    if (written) *written = entry->written;
    return entry->function;
  }
  // One compile per key: later callers wait on the entry, not on the whole cache. A failed
  // compile leaves the entry empty, so the next call reports the error again.
  std::lock_guard<std::mutex> lock(entry->mutex);
  if (!entry->ready.load(std::memory_order_acquire)) {
    std::unique_ptr<ir::Function> function = lower(signature, debug, num_warps);
    optimize(*function);
    entry->written = analysis::written_params(*function);
    entry->function = std::move(function);
    entry->ready.store(true, std::memory_order_release);
  }
  if (written) *written = entry->written;
  return entry->function;
}

Grid Kernel::Impl::make_grid(const std::string& kernel, const std::vector<int64_t>& dims) {
  if (dims.empty() || dims.size() > 3) {
    throw LaunchError("kernel '" + kernel + "': the grid needs 1 to 3 dimensions, got " +
                      std::to_string(dims.size()));
  }
  uint32_t out[3] = {1, 1, 1};
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] > INT32_MAX) {
      throw LaunchError("kernel '" + kernel + "': grid dimension " + std::to_string(i) + " is " +
                        std::to_string(dims[i]) + "; it must be in [0, 2^31-1]");
    }
    out[i] = static_cast<uint32_t>(dims[i]);
  }
  return Grid{out[0], out[1], out[2]};
}

Kernel::Impl::Launched Kernel::Impl::launch(const Grid& grid, const runtime::BoundArgs& bound,
                                            const LaunchConfig& config) {
  check_parameters();
  check_config(name_, config);
  const uint32_t dims_in[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    if (dims_in[i] > static_cast<uint32_t>(INT32_MAX)) {
      throw LaunchError("kernel '" + name_ + "': grid dimension " + std::to_string(i) + " is " +
                        std::to_string(dims_in[i]) + "; it must be in [0, 2^31-1]");
    }
  }
  // Before anything runs, on either backend: a kernel that would write into a read-only
  // array does not start. Only a launch with a read-only array pays for the analysis.
  bool any_read_only = false;
  for (const auto& b : bound) {
    runtime::for_each_memory(*b.arg, [&](const Arg& m) { any_read_only |= m.is_read_only(); });
  }
  std::vector<bool> written;
  std::shared_ptr<const ir::Function> function;
  if (any_read_only) {
    Signature signature = specialize(bound);
    function = compiled(signature, interp_key(signature, config), config.debug, config.num_warps, &written);
    const std::vector<ir::Param>& entries = function->params();
    for (size_t j = 0; j < entries.size() && j < written.size(); ++j) {
      size_t i = entries[j].source_index(j);  // written is per entry; a descriptor has several
      if (i >= bound.size() || !written[j]) continue;
      const Arg& a = entries[j].part == ir::ArgPart::TupleLeaf ? runtime::tuple_leaf(*bound[i].arg, entries[j].dim)
                                                               : *bound[i].arg;
      if (a.is_memory() && a.is_read_only()) {
        throw runtime::argument_error(name_, params_.names[i],
                                      "the array is read-only (writeable=False), and the kernel stores or atomically "
                                      "writes through this parameter; pass a writeable array (numpy.array(x) copies)");
      }
    }
  }
  if (use_gpu(bound, config)) {
    const runtime::GpuKernel* gpu = launch_gpu(grid, bound, config);
    return Launched{gpu, gpu};
  }

  if (!function) {
    Signature signature = specialize(bound);
    function = compiled(signature, interp_key(signature, config), config.debug, config.num_warps);
  }
  const Launched launched{function.get(), nullptr};
  // Triton compiles first and skips the launch of an empty grid (pitfall 21).
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return launched;

  std::vector<interp::ArgValue> values(function->body().args().size());
  std::vector<interp::MemoryRange> memory;
  for (size_t i = 0; i < bound.size(); ++i) {
    // Device memory is never registered: the interpreter reports an access to it rather
    // than dereferencing a device address on the host. A tuple's arrays are its own.
    runtime::for_each_memory(*bound[i].arg, [&](const Arg& arg) {
      if (arg.bytes() > 0 && !arg.on_device()) {
        memory.push_back({arg.address() - arg.bytes_before(), arg.bytes() + arg.bytes_before(), params_.names[i]});
      }
    });
  }
  {
    HostMemory& m = host_memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    for (const auto& [begin, block] : m.blocks) {
      if (block.first > 0) memory.push_back({begin, block.first, block.second});
    }
  }
  const std::vector<ir::Param>& fn_params = function->params();
  for (size_t j = 0; j < fn_params.size(); ++j) {
    const ir::Value* entry = fn_params[j].arg;
    if (entry == nullptr) continue;  // folded to a constant
    const size_t i = fn_params[j].source_index(j);
    if (i >= bound.size()) internal_error("runtime", "entry argument of a parameter the call does not have");
    const Arg& arg = fn_params[j].part == ir::ArgPart::TupleLeaf ? runtime::tuple_leaf(*bound[i].arg, fn_params[j].dim)
                                                                  : *bound[i].arg;
    size_t slot = static_cast<size_t>(entry->index());
    if (slot >= values.size()) internal_error("runtime", "entry argument index out of range");
    interp::ArgValue& value = values[slot];
    const ir::Type* type = entry->type();
    if (fn_params[j].part != ir::ArgPart::Whole && fn_params[j].part != ir::ArgPart::TupleLeaf) {
      // A piece of a host tensor descriptor (specialize checked its rank).
      const Arg::Descriptor& d = *arg.descriptor();
      const size_t dim = static_cast<size_t>(fn_params[j].dim);
      switch (fn_params[j].part) {
        case ir::ArgPart::DescBase:
          value.kind = interp::ArgValue::Kind::Pointer;
          value.address = arg.address();
          break;
        case ir::ArgPart::DescShape:
          value.kind = interp::ArgValue::Kind::Int;
          value.int_bits = int_bits(type->scalar_kind(), Arg::integer(d.shape.at(dim)));
          break;
        case ir::ArgPart::DescStride:
          value.kind = interp::ArgValue::Kind::Int;
          value.int_bits = d.strides.at(dim);
          break;
        case ir::ArgPart::Whole:
        case ir::ArgPart::TupleLeaf:
        case ir::ArgPart::DescTensorMap:  // never an IR parameter (only the GPU's entry has one)
          break;
      }
      continue;
    }
    if (type->is_pointer()) {
      if (arg.kind() != Arg::Kind::Pointer && arg.kind() != Arg::Kind::Int) {
        throw runtime::argument_error(name_, params_.names[i], "expected a pointer");
      }
      value.kind = interp::ArgValue::Kind::Pointer;
      value.address = arg.kind() == Arg::Kind::Pointer ? arg.address() : arg.uint_value();
    } else if (type->is_scalar() && ir::is_float(type->scalar_kind())) {
      value.kind = interp::ArgValue::Kind::Float;
      value.float_value = float_arg(type->scalar_kind(), arg);
    } else if (type->is_scalar()) {
      value.kind = interp::ArgValue::Kind::Int;
      value.int_bits = int_bits(type->scalar_kind(), arg);
    } else {
      internal_error("runtime",
                     "entry argument '" + params_.names[i] + "' has type " + type->str());
    }
  }
  interp::Grid dims;
  dims.dims = {grid.x, grid.y, grid.z};
  if (axis_oracle_enabled()) {
    // TRITIUM_CHECK_AXIS=1: every analysis claim is checked against the values computed.
    AxisOracle oracle(*function);
    interp::run(*function, dims, values, memory, &oracle.observer());
    return launched;
  }
  interp::run(*function, dims, values, memory);
  return launched;
}

std::string Kernel::Impl::emit(Stage stage, const std::string& signature_text,
                               const LaunchConfig& config) const {
  check_parameters();
  check_config(name_, config);
  if (stage == Stage::Ast) return dump_ast(*function_);
  FunctionResolver resolve = [this](const std::string& key) -> std::shared_ptr<const GlobalBinding> {
    std::lock_guard<std::mutex> lock(function_args_mutex_);
    auto it = function_args_.find(key);
    return it == function_args_.end() ? nullptr : it->second;
  };
  Signature signature = parse_signature(signature_text, params_.names, params_.is_constexpr, &resolve);
  if (stage == Stage::Llvm || stage == Stage::Ptx || stage == Stage::Cubin || stage == Stage::GpuIr) {
    return emit_gpu(stage, signature, config);
  }
  std::unique_ptr<ir::Function> function = lower(signature, config.debug, config.num_warps);
  if (stage == Stage::IrOpt) optimize(*function);
  return ir::print(*function);
}

// ---------------------------------------------------------------------------------------
// The public API

Kernel::Kernel(std::string source, std::string name, std::string path, int first_line)
    : impl_(std::make_unique<Impl>(KernelSource{std::move(source), std::move(path), first_line},
                                   std::move(name))) {}

Kernel::~Kernel() = default;
Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;

const std::string& Kernel::name() const { return impl_->name(); }

std::vector<std::string> Kernel::param_names() const { return impl_->params().names; }

void Kernel::launch(const Grid& grid, const std::vector<Arg>& args,
                    const std::vector<std::pair<std::string, Arg>>& named,
                    const LaunchConfig& config) {
  // Bound into a buffer this thread reuses (a launch does not re-enter launch): the hot path
  // allocates nothing once warm.
  thread_local runtime::BoundArgs bound;
  runtime::bind_args(impl_->name(), impl_->params(), impl_->defaults(), args, named, &bound);
  impl_->launch(grid, bound, config);
}

void Kernel::warmup(const std::vector<Arg>& args,
                    const std::vector<std::pair<std::string, Arg>>& named,
                    const LaunchConfig& config) {
  // A grid with a zero dimension compiles and loads, and launches nothing.
  impl_->launch(Grid{0, 0, 0}, impl_->bind(args, named), config);
}

std::string Kernel::signature(const std::vector<Arg>& args,
                              const std::vector<std::pair<std::string, Arg>>& named) const {
  return impl_->signature_text(impl_->specialize(impl_->bind(args, named)));
}

std::string Kernel::emit(Stage stage, const std::string& signature_text,
                         const LaunchConfig& config) const {
  return impl_->emit(stage, signature_text, config);
}

void jit_launch(const std::string& source, const std::string& kernel_name, const Grid& grid,
                const std::vector<Arg>& args, const LaunchConfig& config) {
  // Parsed kernels live for the process, keyed by source and name: repeated calls with the
  // same text parse once and share the compiled specializations.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::shared_ptr<Kernel>> kernels;
  std::shared_ptr<Kernel> kernel;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<Kernel>& slot = kernels[{source, kernel_name}];
    if (!slot) {
      try {
        slot = std::make_shared<Kernel>(source, kernel_name);
      } catch (...) {
        kernels.erase({source, kernel_name});
        throw;
      }
    }
    kernel = slot;
  }
  kernel->launch(grid, args, {}, config);
}

}  // namespace tritium
