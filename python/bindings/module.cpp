// tritium._C: the pybind11 module behind the `tritium` package. It binds the Kernel class
// (kernel_binding.cpp) and turns tritium's C++ errors into the package's Python exceptions
// (tritium/errors.py): CompileError -> CompilationError (with file, line, col, excerpt),
// LaunchError -> LaunchError (a RuntimeError), InternalError -> InternalError.
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "kernel_binding.h"
#include "tritium/errors.h"

namespace py = pybind11;

namespace {

// Sets the Python error `class_name` of tritium.errors, built by `make` from the class;
// falls back to RuntimeError when the package cannot be imported (a broken install).
template <typename Make>
void raise_package_error(const char* class_name, const std::string& fallback, Make make) {
  try {
    py::object cls = py::module_::import("tritium.errors").attr(class_name);
    py::object error = make(cls);
    PyErr_SetObject(cls.ptr(), error.ptr());
  } catch (py::error_already_set& e) {
    std::string message = fallback + " (and tritium.errors failed: " + e.what() + ")";
    PyErr_SetString(PyExc_RuntimeError, message.c_str());
  }
}

void translate(std::exception_ptr thrown) {
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const tritium::CompileError& e) {
    raise_package_error("CompilationError", e.what(), [&](const py::object& cls) {
      return cls(e.message(), e.file(), e.line(), e.col(), e.excerpt(), std::string(e.what()));
    });
  } catch (const tritium::LaunchError& e) {
    raise_package_error("LaunchError", e.what(),
                        [&](const py::object& cls) { return cls(std::string(e.what())); });
  } catch (const tritium::InternalError& e) {
    raise_package_error("InternalError", e.what(),
                        [&](const py::object& cls) { return cls(std::string(e.what())); });
  }
}

}  // namespace

PYBIND11_MODULE(_C, module) {
  module.doc() = "tritium's C++ core: parsing, specialization, compilation and launching";
  py::register_exception_translator(&translate);
  tritium::python::register_kernel(module);
}
