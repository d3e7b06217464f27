// tritium._C.Kernel: one @tritium.jit function on the C++ side. Python hands each call's
// arguments over once (DESIGN law 6); binding, specialization, the cache lookup and the
// launch happen here, with the GIL released while the kernel compiles or runs.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <vector>

#include "tritium/tritium.h"

namespace tritium::python {

namespace py = pybind11;

class PyKernel {
 public:
  // Parses `source` (CompileError on bad syntax or when `name` is not defined in it).
  PyKernel(std::string source, std::string name, std::string path, int first_line);

  const std::string& name() const { return kernel_.name(); }
  std::vector<std::string> param_names() const { return kernel_.param_names(); }

  // The globals the kernel reads (see globals_convert.h); drops compiled specializations.
  void set_globals(py::handle globals);
  // The do_not_specialize options as jit.py normalized them (parameter indices). C++ reads
  // them from the decorator in the source; a disagreement is an error, not silently lost.
  void set_specialization(const std::vector<int>& do_not_specialize,
                          const std::vector<int>& do_not_specialize_on_alignment);

  // Triton's debug option (the decorator's debug=, else TRITON_DEBUG/TRITIUM_DEBUG): asserts
  // are compiled into every later launch, warmup and emit.
  void set_debug(bool debug) { debug_ = debug; }

  // kernel[grid](*args, **kwargs): `grid` is a tuple/list of 1-3 ints or a callable of META.
  void launch(py::handle grid, py::handle args, py::handle kwargs, int num_warps,
              int num_stages, py::handle stream);
  // kernel[grid](...) through the launcher's vectorcall: `args` holds `nargs` positional
  // arguments, then one value per name of `kwnames` (a tuple, or null). num_warps,
  // num_stages and stream among the keywords are launch options.
  void launch_vector(py::handle grid, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames);
  // Compiles (and on the GPU loads) the specialization of these arguments without launching.
  void warmup(py::handle args, py::handle kwargs, int num_warps, int num_stages,
              py::handle stream);
  // META: parameter name -> bound value (the objects given, or the defaults).
  py::dict bind(py::handle args, py::handle kwargs);
  // The canonical signature text of a call with these arguments.
  std::string signature(py::handle args, py::handle kwargs);
  // A stage ("ast", "ir", "ir-opt", "llvm", "ptx"; "cubin" as bytes) for a signature text;
  // `arch` (80, 90; 0: the GPU's) is the target of the last three.
  py::object emit(const std::string& stage, const std::string& signature_text, int num_warps,
                  int num_stages, int arch);

 private:
  Kernel kernel_;
  bool debug_ = false;
};

// Registers the class on `module`.
void register_kernel(py::module_& module);

// Sets the Python error for a C++ exception thrown by tritium (module.cpp: CompileError ->
// tritium.CompilationError, LaunchError -> tritium.LaunchError, ...), for code that is called
// by CPython directly rather than through pybind11.
void translate_exception(std::exception_ptr thrown);

}  // namespace tritium::python
