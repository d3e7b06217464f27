// tritium._C.Kernel: one @tritium.jit function on the C++ side. Python hands each call's
// arguments over once (DESIGN law 6); binding, specialization, the cache lookup and the
// launch happen here, with the GIL released while the kernel compiles or runs.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <vector>

#include "runtime/kernel_impl.h"
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

  // kernel[grid](*args, **kwargs): `grid` is a tuple/list of 1-3 ints or a callable of META;
  // `options` maps Triton's launch option names (num_warps, num_ctas, stream, ...) to values.
  // Returns the compiled-kernel handle (tritium.compiled.CompiledKernel).
  py::object launch(py::handle grid, py::handle args, py::handle kwargs, py::handle options);
  // kernel[grid](...) through the launcher's vectorcall: `args` holds `nargs` positional
  // arguments, then one value per name of `kwnames` (a tuple, or null). Triton's launch
  // options among the keywords are taken out. Returns a new reference to the handle.
  PyObject* launch_vector(py::handle grid, PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwnames);
  // Compiles (and on the GPU loads) the specialization of these arguments without launching.
  py::object warmup(py::handle args, py::handle kwargs, py::handle options);
  // META: parameter name -> bound value (the objects given, or the defaults).
  py::dict bind(py::handle args, py::handle kwargs);
  // The canonical signature text of a call with these arguments.
  std::string signature(py::handle args, py::handle kwargs);
  // Triton's debug option from the decorator (debug=, else TRITON_DEBUG/TRITIUM_DEBUG): asserts
  // are compiled into every later launch, warmup and emit (a launch's debug= also turns it on).
  void set_debug(bool debug) { debug_ = debug; }
  // A stage ("ast", "ir", "ir-opt", "llvm", "ptx"; "cubin" as bytes) for a signature text;
  // `arch` (80, 90; 0: the GPU's) is the target of the last three.
  py::object emit(const std::string& stage, const std::string& signature_text, int num_warps,
                  int num_stages, int arch, int num_ctas, int maxnreg, int enable_fp_fusion,
                  bool debug);

 private:
  // The handle of what `launched` ran with `config`: made once (cold: a Python object with
  // the signature and driver facts), then the same object for every later launch.
  py::object handle_for(const Kernel::Impl::Launched& launched, const LaunchConfig& config,
                        const runtime::BoundArgs& bound);

  struct HandleSlot {
    const void* compiled = nullptr;
    LaunchConfig config;
    py::object handle;
  };

  Kernel kernel_;
  std::vector<HandleSlot> handles_;  // a few per kernel: one per specialization and options
  size_t last_handle_ = 0;
  bool debug_ = false;
};

// Registers the class on `module`.
void register_kernel(py::module_& module);

// Sets the Python error for a C++ exception thrown by tritium (module.cpp: CompileError ->
// tritium.CompilationError, LaunchError -> tritium.LaunchError, ...), for code that is called
// by CPython directly rather than through pybind11.
void translate_exception(std::exception_ptr thrown);

}  // namespace tritium::python
