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
#include "runtime/kernel_impl.h"

namespace tritium::python {

namespace {

using NamedArgs = std::vector<std::pair<std::string, Arg>>;

// The tritium.language dtype object for `dtype` (META holds what Python would).
py::object dtype_object(DType dtype) {
  static const char* const names[] = {"int1",   "int8",   "int16",   "int32",    "int64",
                                      "uint8",  "uint16", "uint32",  "uint64",   "float16",
                                      "bfloat16", "float32", "float64"};
  return py::module_::import("tritium.language").attr(names[static_cast<int>(dtype)]);
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
    case Arg::Kind::Pointer: break;
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

Stage to_stage(const std::string& stage) {
  if (stage == "ast") return Stage::Ast;
  if (stage == "ir") return Stage::Ir;
  if (stage == "ir-opt" || stage == "ir_opt") return Stage::IrOpt;
  if (stage == "llvm" || stage == "llir") return Stage::Llvm;
  if (stage == "ptx") return Stage::Ptx;
  if (stage == "cubin") return Stage::Cubin;
  throw py::value_error("unknown stage '" + stage +
                        "' (expected ast, ir, ir-opt, llvm, ptx or cubin)");
}

std::vector<int> sorted_unique(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

}  // namespace

PyKernel::PyKernel(std::string source, std::string name, std::string path, int first_line)
    : kernel_(std::move(source), std::move(name), std::move(path), first_line) {}

void PyKernel::set_globals(py::handle globals) { kernel_.impl().set_globals(to_globals(globals)); }

void PyKernel::set_specialization(const std::vector<int>& do_not_specialize,
                                  const std::vector<int>& do_not_specialize_on_alignment) {
  const KernelParams& params = kernel_.impl().params();
  auto differs = [](const std::vector<int>& python, const std::vector<int>& cpp) {
    return sorted_unique(python) != sorted_unique(cpp);
  };
  if (differs(do_not_specialize, params.do_not_specialize) ||
      differs(do_not_specialize_on_alignment, params.do_not_specialize_on_alignment)) {
    throw LaunchError("kernel '" + name() +
                      "': do_not_specialize / do_not_specialize_on_alignment must be written "
                      "as literal lists in the @jit(...) decorator of the kernel's source, "
                      "where the compiler reads them");
  }
}

void PyKernel::launch(py::handle grid, py::handle args, py::handle kwargs, int num_warps,
                      int num_stages, py::handle stream) {
  Kernel::Impl& impl = kernel_.impl();
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

  LaunchConfig config;
  config.debug = debug_;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.stream = launch_stream(impl.name(), stream, positional, named);
  py::gil_scoped_release release;
  impl.launch(dims, bound, config);
}

void PyKernel::launch_vector(py::handle grid, PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwnames) {
  static PyObject* const num_warps_key = PyUnicode_InternFromString("num_warps");
  static PyObject* const num_stages_key = PyUnicode_InternFromString("num_stages");
  static PyObject* const stream_key = PyUnicode_InternFromString("stream");
  int num_warps = 4, num_stages = 3;
  PyObject* stream = Py_None;
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  auto is_option = [&](PyObject* name) {
    return name == num_warps_key || name == num_stages_key || name == stream_key ||
           PyUnicode_Compare(name, num_warps_key) == 0 ||
           PyUnicode_Compare(name, num_stages_key) == 0 ||
           PyUnicode_Compare(name, stream_key) == 0;
  };
  auto as_int = [](PyObject* value) {
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return static_cast<int>(v);
  };
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    PyObject* value = args[nargs + i];
    if (name == num_warps_key || PyUnicode_Compare(name, num_warps_key) == 0) {
      num_warps = as_int(value);
    } else if (name == num_stages_key || PyUnicode_Compare(name, num_stages_key) == 0) {
      num_stages = as_int(value);
    } else if (name == stream_key || PyUnicode_Compare(name, stream_key) == 0) {
      stream = value;
    }
  }
  bool callable = PyCallable_Check(grid.ptr()) && !PyTuple_Check(grid.ptr()) &&
                  !PyList_Check(grid.ptr());
  if (callable) {
    // META needs the arguments as Python holds them: build the tuple and dict here.
    py::tuple positional_objects(nargs);
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      positional_objects[static_cast<size_t>(i)] = py::reinterpret_borrow<py::object>(args[i]);
    }
    py::dict keywords;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, i);
      if (!is_option(name)) keywords[py::handle(name)] = py::handle(args[nargs + i]);
    }
    launch(grid, positional_objects, keywords, num_warps, num_stages, stream);
    return;
  }

  Kernel::Impl& impl = kernel_.impl();
  BufferLease buffers;
  positional_args(impl.name(), impl.params().names, args, static_cast<size_t>(nargs),
                  &buffers->positional);
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    if (!is_option(name)) named_arg(impl.name(), name, args[nargs + i], &buffers->named);
  }
  runtime::bind_args(impl.name(), impl.params(), impl.defaults(), buffers->positional,
                     buffers->named, &buffers->bound);
  Grid dims = to_grid(impl.name(), grid);
  LaunchConfig config;
  config.debug = debug_;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.stream = launch_stream(impl.name(), stream, buffers->positional, buffers->named);
  py::gil_scoped_release release;
  impl.launch(dims, buffers->bound, config);
}

void PyKernel::warmup(py::handle args, py::handle kwargs, int num_warps, int num_stages,
                      py::handle stream) {
  Kernel::Impl& impl = kernel_.impl();
  std::vector<Arg> positional;
  NamedArgs named;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  runtime::BoundArgs bound = impl.bind(positional, named);
  LaunchConfig config;
  config.debug = debug_;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.stream = launch_stream(impl.name(), stream, positional, named);
  py::gil_scoped_release release;
  // A zero grid validates the options and compiles, and runs nothing (kernel_impl.h).
  impl.launch(Grid{0, 0, 0}, bound, config);
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
                          int num_warps, int num_stages, int arch) {
  Stage which = to_stage(stage);
  LaunchConfig config;
  config.debug = debug_;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.arch = arch;
  std::string text;
  {
    py::gil_scoped_release release;
    text = kernel_.emit(which, signature_text, config);
  }
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
    self->impl->launch_vector(self->grid, args, PyVectorcall_NARGS(nargsf), kwnames);
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    translate_exception(std::current_exception());
    return nullptr;
  }
  Py_RETURN_NONE;
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
           py::arg("num_warps") = 4, py::arg("num_stages") = 3, py::arg("stream") = py::none())
      .def("warmup", &PyKernel::warmup, py::arg("args"), py::arg("kwargs"),
           py::arg("num_warps") = 4, py::arg("num_stages") = 3, py::arg("stream") = py::none())
      .def("bind", &PyKernel::bind, py::arg("args"), py::arg("kwargs"))
      .def("signature", &PyKernel::signature, py::arg("args"), py::arg("kwargs"))
      .def("emit", &PyKernel::emit, py::arg("stage"), py::arg("signature"),
           py::arg("num_warps") = 4, py::arg("num_stages") = 3, py::arg("arch") = 0);
}

}  // namespace tritium::python
