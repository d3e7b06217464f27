// tritium._C.Kernel (see kernel_binding.h): the launch hot path. Per call: convert the
// arguments (arg_convert.cpp), bind them to parameters, evaluate the grid (calling a grid
// callable with META only when there is one), then specialize, look up or compile, and run
// in C++ with the GIL released.
#include "kernel_binding.h"

#include <pybind11/stl.h>
#include <structmember.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "arg_convert.h"
#include "globals_convert.h"
#include "runtime/gpu_kernel.h"
#include "runtime/kernel_impl.h"
#include "support/diagnostics.h"

namespace tritium::python {

namespace {

using NamedArgs = std::vector<std::pair<std::string, Arg>>;

// The tritium.language dtype object for `dtype` (META holds what Python would).
py::object dtype_object(DType dtype) {
  return py::module_::import("tritium.language")
      .attr(ir::scalar_long_name(runtime::to_scalar_kind(dtype)));
}

// The warnings the compile of this call met (support/diagnostics.h), as Python UserWarnings
// at the kernel line they name. A warnings filter set to "error" raises here.
void issue_warnings() {
  std::vector<CompileWarning> warnings = take_warnings();
  if (warnings.empty()) return;
  py::module_ module = py::module_::import("warnings");
  py::handle category(PyExc_UserWarning);
  for (const CompileWarning& w : warnings) {
    if (w.file.empty()) {
      module.attr("warn")(w.message, category, 2);
    } else {
      module.attr("warn_explicit")(w.message, category, w.file, w.line);
    }
  }
}

// A default value (a compile-time constant) as the Python object it was written as.
py::object to_python(const Arg& arg) {
  switch (arg.kind()) {
    case Arg::Kind::None: return py::none();
    case Arg::Kind::Bool: return py::bool_(arg.bool_value());
    case Arg::Kind::Int:
      return arg.is_unsigned() ? py::int_(arg.uint_value()) : py::int_(arg.int_value());
    case Arg::Kind::Float: return py::float_(arg.float_value());
    case Arg::Kind::Str: return py::str(arg.str());
    case Arg::Kind::DType: return dtype_object(arg.dtype_value());
    case Arg::Kind::Pointer:
    case Arg::Kind::TensorDescriptor:
    case Arg::Kind::Function:  // a @jit function default: C++ holds no Python object
    case Arg::Kind::Object: return py::none();  // (never a default: defaults are source constants)
    case Arg::Kind::Tuple: break;  // defaults are constants; never these
  }
  return py::int_(arg.address());
}

py::dict make_meta(const Kernel::Impl& impl, const runtime::BoundArgs& bound, py::handle args,
                   py::handle kwargs) {
  py::dict meta;
  const std::vector<std::string>& names = impl.params().names;
  auto positional = py::reinterpret_borrow<py::tuple>(args);
  for (size_t i = 0; i < bound.size() && i < names.size(); ++i) {
    py::str key(names[i]);
    switch (bound[i].from) {
      case runtime::BoundArg::From::Positional:
        meta[key] = positional[static_cast<size_t>(bound[i].index)];
        break;
      case runtime::BoundArg::From::Named:
        meta[key] = py::reinterpret_borrow<py::dict>(kwargs)[key];
        break;
      case runtime::BoundArg::From::Default:
        meta[key] = to_python(*bound[i].arg);
        break;
    }
  }
  return meta;
}

// A grid value (not a callable): an int, or a tuple/list of 1-3 integer-like values.
Grid to_grid(const std::string& kernel, py::handle grid) {
  std::vector<int64_t> dims;
  auto add = [&](py::handle item) {
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()));
    if (!index) {
      PyErr_Clear();
      throw LaunchError("kernel '" + kernel + "': grid dimensions must be integers, got " +
                        py::repr(item).cast<std::string>());
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    dims.push_back(overflow > 0 ? INT64_MAX : overflow < 0 ? INT64_MIN : v);
  };
  if (PyTuple_Check(grid.ptr()) || PyList_Check(grid.ptr())) {
    for (py::handle item : grid) add(item);
  } else if (PyLong_Check(grid.ptr())) {
    add(grid);
  } else {
    throw LaunchError("kernel '" + kernel +
                      "': the grid must be a tuple of 1 to 3 ints or a callable taking META "
                      "and returning one; got " +
                      py::repr(grid).cast<std::string>());
  }
  return Kernel::Impl::make_grid(kernel, dims);
}

// A CUstream from what Python passed: None, a raw handle, a torch.cuda.Stream-like object
// (`cuda_stream`), or an object with the `__cuda_stream__` protocol.
void* to_stream(const std::string& kernel, py::handle stream) {
  if (stream.is_none()) return nullptr;
  py::object handle;
  if (PyLong_Check(stream.ptr())) {
    handle = py::reinterpret_borrow<py::object>(stream);
  } else if (py::hasattr(stream, "__cuda_stream__")) {
    py::object protocol = stream.attr("__cuda_stream__")();
    handle = py::reinterpret_borrow<py::tuple>(protocol)[1];
  } else if (py::hasattr(stream, "cuda_stream")) {
    handle = stream.attr("cuda_stream");
  } else {
    throw LaunchError("kernel '" + kernel + "': stream must be None, an int handle, or a "
                      "stream object; got " + py::repr(stream).cast<std::string>());
  }
  unsigned long long value = PyLong_AsUnsignedLongLong(handle.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw LaunchError("kernel '" + kernel + "': bad stream handle " +
                      py::repr(handle).cast<std::string>());
  }
  return reinterpret_cast<void*>(static_cast<uintptr_t>(value));
}

// The argument buffers of one launch. A thread reuses its own set, so a launch allocates
// nothing once warm; a launch nested in another on the same thread (from a grid callable)
// gets a fresh set.
struct CallBuffers {
  std::vector<Arg> positional;
  NamedArgs named;
  runtime::BoundArgs bound;
  bool busy = false;
};

class BufferLease {
 public:
  BufferLease() {
    thread_local CallBuffers shared;
    if (!shared.busy) {
      buffers_ = &shared;
    } else {
      own_ = std::make_unique<CallBuffers>();
      buffers_ = own_.get();
    }
    buffers_->busy = true;
    buffers_->positional.clear();
    buffers_->named.clear();
  }
  ~BufferLease() { buffers_->busy = false; }
  BufferLease(const BufferLease&) = delete;
  BufferLease& operator=(const BufferLease&) = delete;
  CallBuffers* operator->() { return buffers_; }

 private:
  CallBuffers* buffers_ = nullptr;
  std::unique_ptr<CallBuffers> own_;
};

// The device of the first torch CUDA tensor among the arguments (only torch tensors carry
// their ordinal), or -1.
int torch_device(const std::vector<Arg>& positional, const NamedArgs& named) {
  for (const Arg& arg : positional) {
    if (arg.on_device() && arg.device() >= 0) return arg.device();
  }
  for (const auto& [name, arg] : named) {
    if (arg.on_device() && arg.device() >= 0) return arg.device();
  }
  return -1;
}

// The stream of a launch: the one given, else torch's current stream of the device when
// torch CUDA tensors are passed (DESIGN: Devices, streams, graphs), else the default stream.
void* launch_stream(const std::string& kernel, py::handle stream,
                    const std::vector<Arg>& positional, const NamedArgs& named) {
  if (!stream.is_none()) return to_stream(kernel, stream);
  int device = torch_device(positional, named);
  if (device < 0) return nullptr;
  // torch._C._cuda_getCurrentRawStream(device), as Triton's launcher asks: an int handle,
  // without building a torch.cuda.Stream object. Looked up once, kept for the process.
  static PyObject* current_stream = [] {
    py::object function =
        py::module_::import("torch._C").attr("_cuda_getCurrentRawStream");
    return function.release().ptr();
  }();
  py::object handle = py::reinterpret_steal<py::object>(
      PyObject_CallOneArg(current_stream, py::int_(device).ptr()));
  if (!handle) throw py::error_already_set();
  unsigned long long value = PyLong_AsUnsignedLongLong(handle.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  return reinterpret_cast<void*>(static_cast<uintptr_t>(value));
}

// Triton's launch options, in the order of OptionNames.
enum class Option : int {
  NumWarps, NumStages, NumCtas, MaxNReg, EnableFpFusion, Cooperative, Pdl, Debug, Stream, ExternLibs, Arch,
  Count
};
constexpr const char* kOptionNames[] = {"num_warps", "num_stages", "num_ctas",
                                        "maxnreg", "enable_fp_fusion",
                                        "launch_cooperative_grid", "launch_pdl", "debug",
                                        "stream", "extern_libs", "arch"};

// The option a keyword names, or Option::Count. Interned names (the usual case) match by
// pointer; others by text.
Option option_of(PyObject* name) {
  static PyObject* const* interned = [] {
    auto* names = new PyObject*[static_cast<int>(Option::Count)];
    for (int i = 0; i < static_cast<int>(Option::Count); ++i) {
      names[i] = PyUnicode_InternFromString(kOptionNames[i]);
    }
    return names;
  }();
  constexpr int count = static_cast<int>(Option::Count);
  for (int i = 0; i < count; ++i) {
    if (name == interned[i]) return static_cast<Option>(i);
  }
  for (int i = 0; i < count; ++i) {
    if (PyUnicode_Compare(name, interned[i]) == 0) return static_cast<Option>(i);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  return Option::Count;
}

int option_int(const std::string& kernel, const char* name, PyObject* value) {
  if (PyBool_Check(value) || !PyLong_Check(value)) {
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value));
    if (!index || PyBool_Check(value)) {
      PyErr_Clear();
      throw LaunchError("kernel '" + kernel + "': launch option " + name +
                        " must be an int, got " +
                        py::repr(py::handle(value)).cast<std::string>());
    }
    return option_int(kernel, name, index.ptr());
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(value, &overflow);
  if (overflow != 0 || v < INT32_MIN || v > INT32_MAX) {
    throw LaunchError("kernel '" + kernel + "': launch option " + name + " is out of range: " +
                      py::repr(py::handle(value)).cast<std::string>());
  }
  return static_cast<int>(v);
}

// Sets one launch option from its Python value; `stream` receives the stream object.
void set_option(const std::string& kernel, Option option, PyObject* value, LaunchConfig* config,
                PyObject** stream) {
  auto truth = [&] {
    int t = PyObject_IsTrue(value);
    if (t < 0) throw py::error_already_set();
    return t == 1;
  };
  switch (option) {
    case Option::NumWarps: config->num_warps = option_int(kernel, "num_warps", value); break;
    case Option::NumStages: config->num_stages = option_int(kernel, "num_stages", value); break;
    case Option::NumCtas: config->num_ctas = option_int(kernel, "num_ctas", value); break;
    case Option::MaxNReg:
      config->maxnreg = value == Py_None ? 0 : option_int(kernel, "maxnreg", value);
      break;
    case Option::EnableFpFusion:
      config->enable_fp_fusion = value == Py_None ? -1 : truth() ? 1 : 0;
      break;
    case Option::Cooperative: config->launch_cooperative_grid = truth(); break;
    case Option::Pdl: config->launch_pdl = truth(); break;
    case Option::Debug: config->debug = value != Py_None && truth(); break;
    case Option::Stream: *stream = value; break;
    case Option::ExternLibs:
      // Triton's {"libdevice": path}: tritium always links the libdevice it was built
      // with (src/target/nvptx/libdevice.cpp), so only the form is checked.
      if (value != Py_None && !PyDict_Check(value)) {
        throw LaunchError("kernel '" + kernel + "': launch option extern_libs must be a dict of library "
                          "name -> path, got " + py::repr(py::handle(value)).cast<std::string>());
      }
      break;
    case Option::Arch: {
      // Triton's CUDA option that sets the compile target ("sm80"; runtime::parse_arch);
      // None (what triton_kernels' matmul passes when it picks none) is the device's own.
      // An older target runs on a newer GPU (the driver compiles its PTX at load); whether
      // the GPU can run it is checked at launch (runtime::launch_target).
      if (value == Py_None) {
        config->arch = 0;
        break;
      }
      const int arch = PyUnicode_Check(value) ? runtime::parse_arch(py::str(value).cast<std::string>()) : 0;
      if (arch == 0) {
        throw LaunchError("kernel '" + kernel + "': launch option arch=" + py::repr(py::handle(value)).cast<std::string>() +
                          " must have the form 'sm<NN>', such as 'sm80' or 'sm90'");
      }
      config->arch = runtime::checked_sm(arch, kernel);
      break;
    }
    case Option::Count: break;
  }
}

// The options of kernel.run / kernel.warmup / kernel.launch: a dict of option -> value
// (None or absent: the default). A name that is not an option is an error naming it.
LaunchConfig config_from(const std::string& kernel, py::handle options, PyObject** stream) {
  LaunchConfig config;
  *stream = Py_None;
  if (options.is_none()) return config;
  if (!PyDict_Check(options.ptr())) throw py::type_error("tritium: options must be a dict");
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(options.ptr(), &pos, &key, &value)) {
    Option option = PyUnicode_Check(key) ? option_of(key) : Option::Count;
    if (option == Option::Count) {
      throw LaunchError("kernel '" + kernel + "': unknown launch option " +
                        py::repr(py::handle(key)).cast<std::string>());
    }
    set_option(kernel, option, value, &config, stream);
  }
  return config;
}

Stage to_stage(const std::string& stage) {
  if (stage == "ast") return Stage::Ast;
  if (stage == "ir") return Stage::Ir;
  if (stage == "ir-opt" || stage == "ir_opt") return Stage::IrOpt;
  if (stage == "llvm" || stage == "llir") return Stage::Llvm;
  if (stage == "ptx") return Stage::Ptx;
  if (stage == "cubin") return Stage::Cubin;
  if (stage == "gpu-ir" || stage == "gpu_ir") return Stage::GpuIr;
  throw py::value_error("unknown stage '" + stage +
                        "' (expected ast, ir, ir-opt, gpu-ir, llvm, ptx or cubin)");
}

std::vector<int> sorted_unique(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

}  // namespace

PyKernel::PyKernel(std::string source, std::string name, std::string path, int first_line)
    : kernel_(std::move(source), std::move(name), std::move(path), first_line) {}

void PyKernel::set_globals(py::handle globals) {
  // The compiled specializations are dropped: so are their handles (the addresses that
  // identify them may be reused).
  handles_.clear();
  last_handle_ = 0;
  kernel_.impl().set_globals(to_globals(globals));
}

void PyKernel::set_specialization(const std::vector<int>& do_not_specialize,
                                  const std::vector<int>& do_not_specialize_on_alignment) {
  const KernelParams& params = kernel_.impl().params();
  auto differs = [](const std::vector<int>& python, const std::vector<int>& cpp) {
    return sorted_unique(python) != sorted_unique(cpp);
  };
  if (differs(do_not_specialize, params.do_not_specialize) ||
      differs(do_not_specialize_on_alignment, params.do_not_specialize_on_alignment)) {
    // The decorator's arguments are an expression the source cannot evaluate
    // (`['T', 'scale'] if IS_HOPPER else ['T']`): Python's values stand.
    handles_.clear();
    last_handle_ = 0;
    kernel_.impl().set_specialization(sorted_unique(do_not_specialize),
                                      sorted_unique(do_not_specialize_on_alignment));
  }
}

py::object PyKernel::handle_for(const Kernel::Impl::Launched& launched,
                                const LaunchConfig& config, const runtime::BoundArgs& bound) {
  auto same = [&](const HandleSlot& slot) {
    const LaunchConfig& c = slot.config;
    return slot.compiled == launched.compiled && c.num_warps == config.num_warps &&
           c.num_stages == config.num_stages && c.num_ctas == config.num_ctas &&
           c.maxnreg == config.maxnreg && c.enable_fp_fusion == config.enable_fp_fusion &&
           c.debug == config.debug && c.arch == config.arch &&
           c.launch_cooperative_grid == config.launch_cooperative_grid &&
           c.launch_pdl == config.launch_pdl;
  };
  if (last_handle_ < handles_.size() && same(handles_[last_handle_])) [[likely]] {
    return handles_[last_handle_].handle;
  }
  for (size_t i = 0; i < handles_.size(); ++i) {
    if (same(handles_[i])) {
      last_handle_ = i;
      return handles_[i].handle;
    }
  }
  // Cold: the first launch of this specialization with these options.
  Kernel::Impl& impl = kernel_.impl();
  py::dict options;
  options["num_warps"] = config.num_warps;
  options["num_stages"] = config.num_stages;
  options["num_ctas"] = config.num_ctas;
  options["maxnreg"] = config.maxnreg;
  options["enable_fp_fusion"] = config.enable_fp_fusion;  // -1: the default (knob)
  options["debug"] = config.debug;
  options["launch_cooperative_grid"] = config.launch_cooperative_grid;
  options["launch_pdl"] = config.launch_pdl;
  py::dict info;
  if (launched.gpu != nullptr) {
    const runtime::GpuKernel& gpu = *launched.gpu;
    runtime::FunctionFacts facts = runtime::function_facts(gpu, impl.name());
    info["backend"] = "cuda";
    info["sm"] = gpu.sm;
    info["device"] = gpu.device;
    info["key"] = gpu.key;
    info["shared"] = gpu.shared_bytes;
    info["n_regs"] = facts.n_regs;
    info["n_spills"] = facts.n_spills;
    info["n_max_threads"] = facts.n_max_threads;
  } else {
    info["backend"] = "interpreter";
    if (config.arch != 0) info["sm"] = config.arch;  // what its asm shows
  }
  std::string signature = impl.signature_text(impl.specialize(bound));
  static PyObject* make = [] {
    return py::object(py::module_::import("tritium.compiled").attr("_make")).release().ptr();
  }();
  py::object handle = py::reinterpret_borrow<py::object>(make)(
      py::cast(this, py::return_value_policy::reference), signature, options, info);
  handles_.push_back(HandleSlot{launched.compiled, config, handle});
  last_handle_ = handles_.size() - 1;
  return handle;
}

py::object PyKernel::launch(py::handle grid, py::handle args, py::handle kwargs,
                            py::handle options) {
  Kernel::Impl& impl = kernel_.impl();
  PyObject* stream = Py_None;
  LaunchConfig config = config_from(impl.name(), options, &stream);
  config.debug = config.debug || debug_;
  BufferLease buffers;
  std::vector<Arg>& positional = buffers->positional;
  NamedArgs& named = buffers->named;
  runtime::BoundArgs& bound = buffers->bound;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  runtime::bind_args(impl.name(), impl.params(), impl.defaults(), positional, named, &bound);

  Grid dims;
  bool callable = PyCallable_Check(grid.ptr()) && !PyTuple_Check(grid.ptr()) &&
                  !PyList_Check(grid.ptr());
  if (callable) {
    py::object result = grid(make_meta(impl, bound, args, kwargs));
    dims = to_grid(impl.name(), result);
  } else {
    dims = to_grid(impl.name(), grid);
  }

  config.stream = launch_stream(impl.name(), stream, positional, named);
  Kernel::Impl::Launched launched;
  take_warnings();  // none of an earlier call's
  {
    py::gil_scoped_release release;
    launched = impl.launch(dims, bound, config);
  }
  issue_warnings();
  return handle_for(launched, config, bound);
}

PyObject* PyKernel::launch_vector(py::handle grid, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames) {
  Kernel::Impl& impl = kernel_.impl();
  LaunchConfig config;
  PyObject* stream = Py_None;
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  // Which keywords are launch options (at most 64 keywords are told apart this way; more
  // is a call no kernel makes, and then each is looked up again below).
  uint64_t option_mask = 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    Option option = option_of(PyTuple_GET_ITEM(kwnames, i));
    if (option == Option::Count) continue;
    if (option == Option::Arch) {
      // `arch` is the kernel's own where it names a parameter (never also an option).
      const char* text = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
      if (text == nullptr) throw py::error_already_set();
      const std::vector<std::string>& names = impl.params().names;
      if (std::find(names.begin(), names.end(), text) != names.end()) continue;
    }
    if (i < 64) option_mask |= uint64_t{1} << i;
    set_option(impl.name(), option, args[nargs + i], &config, &stream);
  }
  auto is_option = [&](Py_ssize_t i) {
    return i < 64 ? (option_mask >> i & 1) != 0
                  : option_of(PyTuple_GET_ITEM(kwnames, i)) != Option::Count;
  };
  // A keyword that is both a launch option and a parameter of the kernel (Triton's
  // softmax tutorial names a constexpr `num_stages`) binds both, as in Triton.
  auto is_param = [&](Py_ssize_t i) {
    if (!is_option(i)) return true;
    const char* text = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    if (text == nullptr) throw py::error_already_set();
    const std::vector<std::string>& names = impl.params().names;
    return std::find(names.begin(), names.end(), text) != names.end();
  };
  bool callable = PyCallable_Check(grid.ptr()) && !PyTuple_Check(grid.ptr()) &&
                  !PyList_Check(grid.ptr());
  if (callable) {
    // META needs the arguments as Python holds them: build the tuple and dict here.
    py::tuple positional_objects(nargs);
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      positional_objects[static_cast<size_t>(i)] = py::reinterpret_borrow<py::object>(args[i]);
    }
    py::dict keywords;
    py::dict options;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, i);
      if (is_option(i)) options[py::handle(name)] = py::handle(args[nargs + i]);
      if (is_param(i)) keywords[py::handle(name)] = py::handle(args[nargs + i]);
    }
    return launch(grid, positional_objects, keywords, options).release().ptr();
  }

  BufferLease buffers;
  positional_args(impl.name(), impl.params().names, args, static_cast<size_t>(nargs),
                  &buffers->positional);
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    if (is_param(i)) {
      named_arg(impl.name(), PyTuple_GET_ITEM(kwnames, i), args[nargs + i], &buffers->named);
    }
  }
  runtime::bind_args(impl.name(), impl.params(), impl.defaults(), buffers->positional,
                     buffers->named, &buffers->bound);
  Grid dims = to_grid(impl.name(), grid);
  config.debug = config.debug || debug_;
  config.stream = launch_stream(impl.name(), stream, buffers->positional, buffers->named);
  Kernel::Impl::Launched launched;
  take_warnings();
  {
    py::gil_scoped_release release;
    launched = impl.launch(dims, buffers->bound, config);
  }
  issue_warnings();
  return handle_for(launched, config, buffers->bound).release().ptr();
}

py::object PyKernel::warmup(py::handle args, py::handle kwargs, py::handle options) {
  Kernel::Impl& impl = kernel_.impl();
  PyObject* stream = Py_None;
  LaunchConfig config = config_from(impl.name(), options, &stream);
  config.debug = config.debug || debug_;
  std::vector<Arg> positional;
  NamedArgs named;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  runtime::BoundArgs bound = impl.bind(positional, named);
  config.stream = launch_stream(impl.name(), stream, positional, named);
  Kernel::Impl::Launched launched;
  take_warnings();
  {
    py::gil_scoped_release release;
    // A zero grid validates the options and compiles, and runs nothing (kernel_impl.h).
    launched = impl.launch(Grid{0, 0, 0}, bound, config);
  }
  issue_warnings();
  return handle_for(launched, config, bound);
}

py::dict PyKernel::bind(py::handle args, py::handle kwargs) {
  Kernel::Impl& impl = kernel_.impl();
  std::vector<Arg> positional;
  NamedArgs named;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  return make_meta(impl, impl.bind(positional, named), args, kwargs);
}

std::string PyKernel::signature(py::handle args, py::handle kwargs) {
  Kernel::Impl& impl = kernel_.impl();
  std::vector<Arg> positional;
  NamedArgs named;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  return impl.signature_text(impl.specialize(impl.bind(positional, named)));
}

py::object PyKernel::emit(const std::string& stage, const std::string& signature_text,
                          int num_warps, int num_stages, int arch, int num_ctas, int maxnreg,
                          int enable_fp_fusion, bool debug) {
  Stage which = to_stage(stage);
  LaunchConfig config;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.arch = arch;
  config.num_ctas = num_ctas;
  config.maxnreg = maxnreg;
  config.enable_fp_fusion = enable_fp_fusion;
  config.debug = debug || debug_;
  std::string text;
  take_warnings();
  {
    py::gil_scoped_release release;
    text = kernel_.emit(which, signature_text, config);
  }
  issue_warnings();
  if (which == Stage::Cubin) return py::bytes(text);
  return py::str(text);
}

// kernel[grid]: the launcher object whose call is the hot path. A CPython type with
// vectorcall: the call's arguments arrive as a C array and the keyword names as a tuple, so
// no argument tuple or keyword dict is built; the launch options num_warps, num_stages and
// stream are taken out of the keywords here.
struct LauncherObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* kernel;  // the _C.Kernel (a strong reference)
  PyKernel* impl;    // inside `kernel`
  PyObject* grid;    // a strong reference
};

PyObject* launcher_call(PyObject* self_object, PyObject* const* args, size_t nargsf,
                        PyObject* kwnames) {
  auto* self = reinterpret_cast<LauncherObject*>(self_object);
  if (self->impl == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "tritium: this launcher was cleared");
    return nullptr;
  }
  try {
    return self->impl->launch_vector(self->grid, args, PyVectorcall_NARGS(nargsf), kwnames);
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    translate_exception(std::current_exception());
    return nullptr;
  }
}

// A launcher takes part in garbage collection: its grid (a callable) may refer back to
// the JITFunction that keeps the launcher.
int launcher_traverse(PyObject* self_object, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<LauncherObject*>(self_object);
  Py_VISIT(self->kernel);
  Py_VISIT(self->grid);
  Py_VISIT(Py_TYPE(self_object));
  return 0;
}

int launcher_clear(PyObject* self_object) {
  auto* self = reinterpret_cast<LauncherObject*>(self_object);
  self->impl = nullptr;
  Py_CLEAR(self->kernel);
  Py_CLEAR(self->grid);
  return 0;
}

void launcher_dealloc(PyObject* self_object) {
  PyTypeObject* type = Py_TYPE(self_object);
  PyObject_GC_UnTrack(self_object);
  launcher_clear(self_object);
  type->tp_free(self_object);
  Py_DECREF(type);  // heap types own a reference from each instance
}

PyTypeObject* launcher_type() {
  static PyTypeObject* type = [] {
    static PyMemberDef members[] = {
        {"__vectorcalloffset__", T_PYSSIZET,
         static_cast<Py_ssize_t>(offsetof(LauncherObject, vectorcall)), READONLY, nullptr},
        {nullptr, 0, 0, 0, nullptr},
    };
    static PyType_Slot slots[] = {
        {Py_tp_dealloc, reinterpret_cast<void*>(&launcher_dealloc)},
        {Py_tp_traverse, reinterpret_cast<void*>(&launcher_traverse)},
        {Py_tp_clear, reinterpret_cast<void*>(&launcher_clear)},
        {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
        {Py_tp_members, members},
        {Py_tp_doc, const_cast<char*>("kernel[grid]: call it with the kernel's arguments")},
        {0, nullptr},
    };
    static PyType_Spec spec = {"tritium._C.Launcher", sizeof(LauncherObject), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL |
                                   Py_TPFLAGS_HAVE_GC,
                               slots};
    PyObject* made = PyType_FromSpec(&spec);
    if (made == nullptr) throw py::error_already_set();
    return reinterpret_cast<PyTypeObject*>(made);  // kept for the process
  }();
  return type;
}

py::object make_launcher(py::object kernel, py::object grid) {
  PyTypeObject* type = launcher_type();
  auto* self = reinterpret_cast<LauncherObject*>(type->tp_alloc(type, 0));
  if (self == nullptr) throw py::error_already_set();
  self->vectorcall = &launcher_call;
  self->impl = kernel.cast<PyKernel*>();
  self->kernel = kernel.release().ptr();
  self->grid = grid.release().ptr();
  return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(self));
}

void register_kernel(py::module_& module) {
  py::class_<PyKernel>(module, "Kernel",
                       "One @tritium.jit kernel: a parsed source and its compiled "
                       "specializations.")
      .def(py::init<std::string, std::string, std::string, int>(), py::arg("source"),
           py::arg("name"), py::arg("path") = "<source>", py::arg("first_line") = 1)
      .def_property_readonly("name", &PyKernel::name)
      .def_property_readonly("param_names", &PyKernel::param_names)
      .def("set_globals", &PyKernel::set_globals, py::arg("globals"))
      .def("set_debug", &PyKernel::set_debug, py::arg("debug"))
      .def("set_specialization", &PyKernel::set_specialization, py::arg("do_not_specialize"),
           py::arg("do_not_specialize_on_alignment"))
      .def("launcher", &make_launcher, py::arg("grid"))
      .def("launch", &PyKernel::launch, py::arg("grid"), py::arg("args"), py::arg("kwargs"),
           py::arg("options") = py::none())
      .def("warmup", &PyKernel::warmup, py::arg("args"), py::arg("kwargs"),
           py::arg("options") = py::none())
      .def("bind", &PyKernel::bind, py::arg("args"), py::arg("kwargs"))
      .def("signature", &PyKernel::signature, py::arg("args"), py::arg("kwargs"))
      .def("emit", &PyKernel::emit, py::arg("stage"), py::arg("signature"),
           py::arg("num_warps") = 4, py::arg("num_stages") = 3, py::arg("arch") = 0,
           py::arg("num_ctas") = 1, py::arg("maxnreg") = 0, py::arg("enable_fp_fusion") = -1,
           py::arg("debug") = false);
}

}  // namespace tritium::python
