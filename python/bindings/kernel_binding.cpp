// tritium._C.Kernel (see kernel_binding.h): the launch hot path. Per call: convert the
// arguments (arg_convert.cpp), bind them to parameters, evaluate the grid (calling a grid
// callable with META only when there is one), then specialize, look up or compile, and run
// in C++ with the GIL released.
#include "kernel_binding.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
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

Stage to_stage(const std::string& stage) {
  if (stage == "ast") return Stage::Ast;
  if (stage == "ir") return Stage::Ir;
  if (stage == "ir-opt" || stage == "ir_opt") return Stage::IrOpt;
  throw py::value_error("unknown stage '" + stage + "' (expected ast, ir or ir-opt)");
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
  std::vector<Arg> positional;
  NamedArgs named;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  runtime::BoundArgs bound = impl.bind(positional, named);

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
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  config.stream = to_stream(impl.name(), stream);
  py::gil_scoped_release release;
  impl.launch(dims, bound, config);
}

void PyKernel::warmup(py::handle args, py::handle kwargs, int num_warps, int num_stages) {
  Kernel::Impl& impl = kernel_.impl();
  std::vector<Arg> positional;
  NamedArgs named;
  to_args(impl.name(), impl.params().names, args, kwargs, &positional, &named);
  runtime::BoundArgs bound = impl.bind(positional, named);
  LaunchConfig config;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
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

std::string PyKernel::emit(const std::string& stage, const std::string& signature_text,
                           int num_warps, int num_stages) {
  Stage which = to_stage(stage);
  LaunchConfig config;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  py::gil_scoped_release release;
  return kernel_.emit(which, signature_text, config);
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
      .def("set_specialization", &PyKernel::set_specialization, py::arg("do_not_specialize"),
           py::arg("do_not_specialize_on_alignment"))
      .def("launch", &PyKernel::launch, py::arg("grid"), py::arg("args"), py::arg("kwargs"),
           py::arg("num_warps") = 4, py::arg("num_stages") = 3, py::arg("stream") = py::none())
      .def("warmup", &PyKernel::warmup, py::arg("args"), py::arg("kwargs"),
           py::arg("num_warps") = 4, py::arg("num_stages") = 3)
      .def("bind", &PyKernel::bind, py::arg("args"), py::arg("kwargs"))
      .def("signature", &PyKernel::signature, py::arg("args"), py::arg("kwargs"))
      .def("emit", &PyKernel::emit, py::arg("stage"), py::arg("signature"),
           py::arg("num_warps") = 4, py::arg("num_stages") = 3);
}

}  // namespace tritium::python
