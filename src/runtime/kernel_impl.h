// The inside of tritium::Kernel (internal; the Python binding uses it directly): a parsed
// source, the kernel's parameters, the globals it reads, and the memory cache of compiled
// specializations. Launch path: bind -> specialize -> key -> lookup/compile -> run, on the
// GPU (kernel_gpu.cpp) or in the interpreter (kernel.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cache/once_map.h"
#include "frontend/ast.h"
#include "ir/ir.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "runtime/cuda_driver.h"
#include "runtime/gpu_kernel.h"
#include "runtime/specialize.h"
#include "support/source.h"
#include "tritium/tritium.h"

namespace tritium {

// Python source text and where it came from (diagnostics print `path:line`).
struct KernelSource {
  std::string text;
  std::string path = "<source>";
  int first_line = 1;  // the real line of the text's first line (inspect.getsourcelines)
};

// A @jit function the kernel calls that lives in another source text (the Python side
// hands these over). It becomes the global `name`, a Function binding whose own globals are
// `globals` (null: resolve in its source's top-level statements only).
struct CalleeSource {
  std::string name;      // the global name the kernel calls it by
  std::string function;  // its name in `source`; empty: the same as `name`
  KernelSource source;
  std::shared_ptr<const Globals> globals;
};

struct Kernel::Impl {
  // Parses `source` (and each callee) once. Throws CompileError for a syntax error or when
  // `name` is not a function of `source`.
  Impl(KernelSource source, std::string name, std::vector<CalleeSource> callees = {},
       Globals globals = {});

  const std::string& name() const { return name_; }
  const KernelParams& params() const { return params_; }
  const std::vector<Arg>& defaults() const { return defaults_; }  // params().defaults as Args
  const std::shared_ptr<const ast::Module>& module() const { return module_; }
  const ast::FunctionDef& function() const { return *function_; }

  // The globals the kernel reads (Python hands them over). Re-reads the parameters
  // (decorator options and defaults may use them) and drops every compiled specialization.
  // Not safe while another thread launches this kernel.
  void set_globals(Globals globals);
  const Globals& globals() const { return globals_; }

  // do_not_specialize / do_not_specialize_on_alignment (parameter indices) as Python
  // evaluated the decorator's arguments, which may be any expression (`['T'] if X else
  // []`) where the source gives only literal lists: replaces what the decorator's source
  // said, now and after a later set_globals, and drops every compiled specialization.
  // Not safe while another thread launches this kernel.
  void set_specialization(std::vector<int> do_not_specialize,
                          std::vector<int> do_not_specialize_on_alignment);

  // One argument per parameter (Python's bind + apply_defaults). The result points into
  // `args`, `named` and the kernel's defaults: keep them alive while using it.
  // Throws the located error of a parameter default that names an undefined global.
  void check_parameters() const {
    if (unresolved_default_) throw *unresolved_default_;
  }
  runtime::BoundArgs bind(const std::vector<Arg>& args,
                          const std::vector<std::pair<std::string, Arg>>& named) const;
  // META for grid callables: every parameter's name and bound value, constexprs and
  // defaults included, in parameter order.
  std::vector<std::pair<std::string, const Arg*>> meta(const runtime::BoundArgs& bound) const;

  // The specialization of bound arguments, and its canonical text (the memory cache key).
  Signature specialize(const runtime::BoundArgs& bound) const;
  std::string signature_text(const Signature& signature) const;

  // Validates `config` and `grid` (LaunchError), then specializes, compiles on a miss, and
  // runs the kernel on the GPU or in the interpreter. A grid with a zero dimension compiles
  // (and on the GPU loads) and returns without running: that is warmup.
  // Returns what ran: `compiled` identifies the specialization (stable until set_globals),
  // `gpu` is its loaded GPU kernel, null in the interpreter.
  struct Launched {
    const void* compiled = nullptr;
    const runtime::GpuKernel* gpu = nullptr;
  };
  Launched launch(const Grid& grid, const runtime::BoundArgs& bound, const LaunchConfig& config);

  // Whether a launch with these arguments runs on the GPU (Backend, TRITIUM_INTERPRET, where
  // the pointers live). Prints the one-line interpreter notice when it falls back.
  bool use_gpu(const runtime::BoundArgs& bound, const LaunchConfig& config) const;
  // The GPU launch path (kernel_gpu.cpp): device of the pointers, its context, the memory
  // cache (building on a miss), then the launch unless `grid` has a zero dimension.
  const runtime::GpuKernel* launch_gpu(const Grid& grid, const runtime::BoundArgs& bound,
                                       const LaunchConfig& config);
  // What building a GPU specialization for `sm` needs: the complete cache key inputs and the
  // lowering and optimization of this kernel.
  // split_k: GpuBuild::split_k (-1: as the knobs say; 0: the variant without the
  // experiment "ksplit"; 2, 4, 8: the split over that many CTAs).
  runtime::GpuBuild gpu_build(const Signature& signature, const LaunchConfig& config,
                              int sm, int split_k = -1) const;

  // The compiled (lowered + optimized) function for a signature; compiled once per key even
  // when several threads ask at the same time. `written` (if given) receives which
  // parameters it may write through (analysis::written_params).
  std::shared_ptr<const ir::Function> compiled(const Signature& signature, const std::string& key, bool debug,
                                               int num_warps, std::vector<bool>* written = nullptr);
  // compiled()'s key: the signature, debug, and num_warps (tl.extra.cuda.num_warps() is a
  // constant of the launch's).
  std::string interp_key(const Signature& signature, const LaunchConfig& config) const {
    return signature_text(signature) + (config.debug ? " debug" : "") + " warps=" + std::to_string(config.num_warps);
  }

  // Kernel::emit: the AST, the lowered IR or the optimized IR for a signature text; LLVM IR,
  // PTX or the cubin (kernel_gpu.cpp) for config.arch.
  std::string emit(Stage stage, const std::string& signature_text,
                   const LaunchConfig& config) const;
  std::string emit_gpu(Stage stage, const Signature& signature, const LaunchConfig& config) const;

  // A launch grid from Python-sized dimensions (1-3 of them; missing ones are 1): each must
  // be in [0, 2^31-1], else a LaunchError naming the kernel.
  static Grid make_grid(const std::string& kernel, const std::vector<int64_t>& dims);

 private:
  struct Entry {
    std::mutex mutex;  // held while this key compiles
    std::atomic<bool> ready{false};
    std::shared_ptr<const ir::Function> function;
    std::vector<bool> written;  // analysis::written_params of `function`
  };

  // The memory cache of GPU specializations: one entry per device, options and signature.
  // A hit looks up a GpuKeyView of the launch's signature: no key is built or copied.
  struct GpuKey {
    int device = 0;
    int num_warps = 4;
    int num_stages = 3;
    uint64_t options = 0;  // options_word(config): the other options that change code
    Signature signature;
    bool debug = false;
  };
  struct GpuKeyView {
    int device = 0;
    int num_warps = 4;
    int num_stages = 3;
    uint64_t options = 0;
    const Signature* signature = nullptr;
    bool debug = false;
  };
  static GpuKeyView view_of(const GpuKey& key) {
    return {key.device, key.num_warps, key.num_stages, key.options, &key.signature};
  }
  struct GpuKeyHash {
    using is_transparent = void;
    size_t operator()(const GpuKeyView& key) const;
    size_t operator()(const GpuKey& key) const { return (*this)(view_of(key)); }
  };
  struct GpuKeyEqual {
    using is_transparent = void;
    static bool same(const GpuKeyView& a, const GpuKeyView& b) {
      return a.device == b.device && a.num_warps == b.num_warps &&
             a.num_stages == b.num_stages && a.options == b.options &&
             *a.signature == *b.signature;
    }
    bool operator()(const GpuKey& a, const GpuKey& b) const { return same(view_of(a), view_of(b)); }
    bool operator()(const GpuKeyView& a, const GpuKey& b) const { return same(a, view_of(b)); }
    bool operator()(const GpuKey& a, const GpuKeyView& b) const { return same(view_of(a), b); }
  };

  void read_parameters();
  std::unique_ptr<ir::Function> lower(const Signature& signature, bool debug, int num_warps) const;
  // The tile-IR pipeline (verifying after every pass in tests and debug builds).
  static void optimize(ir::Function& function);
  // The canonical text of the globals and callee sources the kernel reads (cache key input).
  std::string globals_text() const;
  runtime::GpuKernel build_gpu(const Signature& signature, const LaunchConfig& config,
                               const cuda::DeviceInfo& device, cuda::Stream stream,
                               int split_k = -1) const;

  std::string name_;
  std::shared_ptr<const ast::Module> module_;
  const ast::FunctionDef* function_ = nullptr;
  std::vector<CalleeSource> callee_sources_;
  std::map<std::string, GlobalBinding> callee_bindings_;  // from callee_sources_
  Globals globals_;  // what Python handed over, plus callee_bindings_
  KernelParams params_;
  std::vector<Arg> defaults_;  // params_.defaults as Args
  std::optional<CompileError> unresolved_default_;  // a default naming an unknown global
  // set_specialization's lists, applied over the decorator's by read_parameters.
  std::optional<std::pair<std::vector<int>, std::vector<int>>> specialization_given_;

  std::mutex cache_mutex_;  // guards cache_ (never held while compiling)
  std::unordered_map<std::string, std::shared_ptr<Entry>> cache_;

  // The @jit functions specialize() has seen as arguments, by key, and the Python objects
  // given to tl.constexpr parameters (Constant bindings, by their `object(REPR)` text):
  // emit() resolves those entries of signature text with them.
  mutable std::mutex function_args_mutex_;
  mutable std::map<std::string, std::shared_ptr<const GlobalBinding>> function_args_;
  void remember_functions(const ParamSig& sig) const;  // into function_args_

  std::string globals_text_;  // globals_text(), computed when the globals are set
  cache::OnceMap<GpuKey, runtime::GpuKernel, GpuKeyHash, GpuKeyEqual> gpu_cache_;
};

}  // namespace tritium
