// tritium's public C++ API: launch a Triton kernel from C++ alone.
//
//   tritium::Kernel add(source, "add_kernel");
//   add.launch({cdiv(n, 1024)}, {Arg::pointer(x, DType::fp32, n * 4), ..., Arg::integer(n),
//                                Arg::integer(1024)});
//
// Arguments are given for every parameter of the kernel, in order (constexpr ones too);
// named arguments may follow. No LLVM or CUDA types appear here (DESIGN law 7).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tritium/errors.h"

namespace tritium {

// Element types, from the one dtype table (tritium/dtypes.def): i1, i8..i64, u8..u64, fp16,
// bf16, fp32, fp64, and the fp8 types fp8e4nv, fp8e5, fp8e4b15, fp8e4b8, fp8e5b16.
enum class DType {
#define TRITIUM_DTYPE(kind, dtype, ...) dtype,
#include "tritium/dtypes.def"
#undef TRITIUM_DTYPE
};

// What a global name or a function argument of a kernel denotes (src/lower/lower.h); the
// Python binding makes the ones Arg::function holds.
struct GlobalBinding;

// One kernel argument: what a Python caller could pass.
class Arg {
 public:
  enum class Kind { Pointer, Int, Float, Bool, None, Str, DType, TensorDescriptor, Tuple, Function, Object };

  // A pointer to elements of `element`. `bytes` is the size of the buffer it points into
  // (the interpreter checks every access against it); 0 means unknown. Host memory, or
  // memory whose place the caller does not state: with a GPU present, the launcher asks the
  // driver where it lives.
  static Arg pointer(const void* address, DType element, size_t bytes = 0);
  // A pointer into device memory (cuMemAlloc, a CUDA tensor): the launch runs on the GPU
  // that holds it (DESIGN: Devices). `device` is its ordinal when the caller knows it (then
  // the driver is not asked at each launch), -1 to let the driver say.
  static Arg device_pointer(const void* address, DType element, size_t bytes = 0,
                            int device = -1);
  static Arg integer(int64_t value);
  static Arg unsigned_integer(uint64_t value);  // for values in [2^63, 2^64)
  static Arg floating(double value);
  static Arg boolean(bool value);
  static Arg none();
  static Arg string(std::string value);  // constexpr strings
  static Arg dtype(DType value);         // constexpr dtypes
  // The same pointer marked read-only (a numpy array with writeable=False): a launch whose
  // kernel stores or atomically writes through its parameter is an error naming it.
  Arg as_read_only() const;
  // The same pointer into a buffer that also holds `bytes` bytes before it (a view with
  // negative strides whose pointer is its first element, FlagGems' flip): the interpreter's
  // checks allow [address - before, address + bytes()).
  Arg with_bytes_before(size_t before) const;
  // A tensor descriptor made on the host (Triton's triton.tools.tensor_descriptor.
  // TensorDescriptor): `base` is a pointer Arg (pointer or device_pointer; its address,
  // element type, size and place are the descriptor's), `shape` and `strides` in elements
  // (runtime values), `block_shape` the tile a desc.load/store moves (compile time), and
  // `padding_nan` whether out-of-bounds elements read as NaN instead of zero. Checked at
  // launch as Triton checks it (rank 1 to 5, block dims powers of two, a 16-byte-aligned
  // base, strides but the last multiples of 16 bytes, the last stride 1), naming the argument.
  static Arg tensor_descriptor(const Arg& base, std::vector<int64_t> shape,
                               std::vector<int64_t> strides, std::vector<int64_t> block_shape,
                               bool padding_nan = false);

  // A tuple of arguments passed as one parameter (Triton 3.x: `k[grid]((a, b), n)`); its
  // elements may be tuples again. Each element is specialized as a parameter would be.
  static Arg tuple(std::vector<Arg> items);
  // A named tuple (Python's NamedTuple: `type_name` and one field name per item): as a
  // tuple, and a kernel may also read its items by field name (`t.ptr`).
  static Arg named_tuple(std::string type_name, std::vector<std::string> fields, std::vector<Arg> items);
  // A @jit function (or a tl.constexpr_function) passed as an argument (Triton 3.x: a
  // `tl.constexpr` parameter given a @jit function, which the kernel then calls). It is a
  // compile-time value wherever it is passed. `key` identifies it in the specialization
  // (its name and a digest of its source and globals: two functions give two compilations);
  // `binding` is what the kernel calls (a Function or HostFunction GlobalBinding).
  static Arg function(std::string key, std::shared_ptr<const GlobalBinding> binding);
  // Any other (hashable) Python object, for a tl.constexpr parameter only (Triton 3.6
  // specializes on it: e.g. a uuid.uuid4() that makes every launch compile anew). `repr`
  // keys the specialization (two objects of one type and repr share a compilation, as in
  // Triton's cache key text); the kernel can pass it on, compare it (==, !=, is None), test
  // its truth (`truth`: bool(obj)) and tl.static_print it (`text`: str(obj)).
  static Arg python_object(std::string type_name, std::string repr, std::string text, bool truth);
  // The same value marked as a compile-time constant (a tl.constexpr element of a tuple):
  // folded into the kernel wherever it is passed.
  Arg as_constexpr() const;

  Kind kind() const { return kind_; }
  bool is_constexpr() const { return constexpr_; }
  // Tuple only (empty otherwise).
  const std::vector<Arg>& items() const;
  // Tuple only: a named tuple's field names (empty for a plain tuple); its type name is str().
  const std::vector<std::string>& fields() const;
  // Object only: the type name and str() (its repr is str(), its truth bool_value()).
  const std::string& object_type() const;
  const std::string& object_text() const;
  // Function only: the binding (its key is str()).
  const std::shared_ptr<const GlobalBinding>& function_binding() const { return function_; }
  uint64_t address() const { return address_; }
  DType element() const { return dtype_; }
  size_t bytes() const { return bytes_; }
  size_t bytes_before() const { return bytes_before_; }
  bool on_device() const { return on_device_; }  // made by device_pointer
  bool is_read_only() const { return read_only_; }
  int device() const { return device_; }         // device_pointer's ordinal, or -1
  int64_t int_value() const { return static_cast<int64_t>(bits_); }
  uint64_t uint_value() const { return bits_; }
  bool is_unsigned() const { return unsigned_; }
  double float_value() const { return float_; }
  bool bool_value() const { return bits_ != 0; }
  const std::string& str() const { return str_; }
  DType dtype_value() const { return dtype_; }
  // TensorDescriptor only (empty otherwise); address(), element(), bytes(), on_device() and
  // device() describe its base.
  struct Descriptor {
    std::vector<int64_t> shape, strides, block_shape;
    bool padding_nan = false;
    bool base_is_pointer = true;  // false: `base` was not a pointer (an error at launch)
  };
  const Descriptor* descriptor() const { return descriptor_.get(); }
  // Whether the argument is memory (a pointer, or a descriptor's base).
  bool is_memory() const { return kind_ == Kind::Pointer || kind_ == Kind::TensorDescriptor; }

 private:
  Kind kind_ = Kind::None;
  uint64_t address_ = 0;
  DType dtype_ = DType::i32;
  size_t bytes_ = 0;
  size_t bytes_before_ = 0;
  uint64_t bits_ = 0;
  bool unsigned_ = false;
  bool on_device_ = false;
  bool read_only_ = false;
  int device_ = -1;
  double float_ = 0;
  std::string str_;
  bool constexpr_ = false;
  std::shared_ptr<const Descriptor> descriptor_;  // shared: copying an Arg stays cheap
  std::shared_ptr<const std::vector<Arg>> items_;  // Tuple
  std::shared_ptr<const std::vector<std::string>> fields_;  // a named Tuple's field names
  std::shared_ptr<const GlobalBinding> function_;  // Function
};

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

enum class Backend {
  Auto,         // the GPU when one is present, else the interpreter (with a one-line notice)
  Interpreter,  // the CPU reference interpreter (also chosen by TRITIUM_INTERPRET=1)
  Cuda,         // the GPU; an error when none is present
};

struct LaunchConfig {
  int num_warps = 4;
  int num_stages = 3;
  Backend backend = Backend::Auto;
  void* stream = nullptr;  // a CUstream; null is the default stream
  // The GPU target as 10 * major + minor (80, 90): of Kernel::emit's Llvm, Ptx and Cubin
  // stages (0: the first GPU's, or sm_90 without one), and of launches (Triton's `arch`
  // option; 0: TRITON_OVERRIDE_ARCH or TRITIUM_OVERRIDE_ARCH when set, else the device's).
  // A launch may target an older architecture than its device's (the driver compiles that
  // PTX for the device when it loads it), not a newer one (a LaunchError).
  int arch = 0;
  // Triton's other launch options. num_ctas > 1 launches each program as a thread-block
  // cluster of that many CTAs (sm_90+; results identical to num_ctas=1). maxnreg caps the
  // registers per thread (0: no cap). enable_fp_fusion: -1 follows TRITIUM_DEFAULT_FP_FUSION
  // (on by default), 0/1 turn contraction of a * b + c into fma off/on. debug compiles
  // tl.device_assert. launch_cooperative_grid launches through the cooperative path (all
  // programs co-resident); launch_pdl is Triton's programmatic-dependent-launch hint.
  int num_ctas = 1;
  int maxnreg = 0;
  int enable_fp_fusion = -1;
  bool debug = false;
  bool launch_cooperative_grid = false;
  bool launch_pdl = false;
};

// The stages `Kernel::emit` can print. Cubin needs the CUDA driver (its JIT linker) and
// returns the binary image. GpuIr is the kernel after the GPU passes with the code
// generator's decisions (layouts, tensor-core instructions, shared-memory stages).
enum class Stage { Ast, Ir, IrOpt, Llvm, Ptx, Cubin, GpuIr };

// A parsed kernel source that can be launched many times; specializations are cached.
class Kernel {
 public:
  // `source` is Python text holding a @jit function named `name` (and whatever it calls);
  // `path` and `first_line` are what diagnostics print.
  Kernel(std::string source, std::string name, std::string path = "<source>", int first_line = 1);
  ~Kernel();
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;

  const std::string& name() const;
  // Parameter names in order.
  std::vector<std::string> param_names() const;

  void launch(const Grid& grid, const std::vector<Arg>& args,
              const std::vector<std::pair<std::string, Arg>>& named = {},
              const LaunchConfig& config = {});

  // Compiles and loads the specialization these arguments select, on the device their
  // pointers live on, without launching: call it before capturing a CUDA graph, which must
  // see only launches.
  void warmup(const std::vector<Arg>& args,
              const std::vector<std::pair<std::string, Arg>>& named = {},
              const LaunchConfig& config = {});

  // The canonical specialization signature these arguments produce.
  std::string signature(const std::vector<Arg>& args,
                        const std::vector<std::pair<std::string, Arg>>& named = {}) const;

  // A stage printed for a signature given in text form (`*fp32:16, i32, BLOCK=128`).
  std::string emit(Stage stage, const std::string& signature_text,
                   const LaunchConfig& config = {}) const;

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Parses `source`, specializes `kernel_name` on `args` and launches it on `grid`.
void jit_launch(const std::string& source, const std::string& kernel_name, const Grid& grid,
                const std::vector<Arg>& args, const LaunchConfig& config = {});

// Host memory the interpreter may touch besides the launch's arguments: blocks a kernel
// reaches through pointers made from integers (an int64 array of addresses cast with
// `.to(tl.pointer_type(...))`, as Triton's grouped-GEMM tutorial does). Process-wide; a
// block is known until unregistered (registering the same begin again replaces it).
void register_host_memory(uint64_t begin, uint64_t bytes, const std::string& name);
void unregister_host_memory(uint64_t begin);

// (x + y - 1) / y for positive y.
inline uint32_t cdiv(int64_t x, int64_t y) { return static_cast<uint32_t>((x + y - 1) / y); }

}  // namespace tritium
