// tritium._C: the pybind11 module behind the `tritium` package. It binds the Kernel class
// (kernel_binding.cpp) and turns tritium's C++ errors into the package's Python exceptions
// (tritium/errors.py): CompileError -> CompilationError (with file, line, col, excerpt),
// LaunchError -> LaunchError (a RuntimeError), OutOfResources -> OutOfResources (a
// LaunchError), InternalError -> InternalError.
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "interp/interpreter.h"
#include "interp/values.h"
#include "lower/builtin_registry.h"
#include "lower/prelude.h"
#include "kernel_binding.h"
#include "tritium/cache.h"
#include "tritium/errors.h"
#include "tritium/tritium.h"

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

// Sets the Python error for tritium's three error types; anything else propagates (pybind11
// then translates it its own way).
void translate(std::exception_ptr thrown) {
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const tritium::CompileError& e) {
    // A failed tl.static_assert is Triton's CompileTimeAssertionFailure (a CompilationError).
    bool assertion = e.message().rfind("static_assert failed", 0) == 0;
    raise_package_error(assertion ? "CompileTimeAssertionFailure" : "CompilationError", e.what(), [&](const py::object& cls) {
      return cls(e.message(), e.file(), e.line(), e.col(), e.excerpt(), std::string(e.what()));
    });
  } catch (const tritium::ArgumentTypeError& e) {
    raise_package_error("ArgumentTypeError", e.what(),
                        [&](const py::object& cls) { return cls(std::string(e.what())); });
  } catch (const tritium::OutOfResources& e) {
    raise_package_error("OutOfResources", e.what(), [&](const py::object& cls) {
      return cls(e.required(), e.limit(), e.resource(), std::string(e.what()));
    });
  } catch (const tritium::LaunchOptionError& e) {
    raise_package_error("LaunchOptionError", e.what(),
                        [&](const py::object& cls) { return cls(std::string(e.what())); });
  } catch (const tritium::LaunchError& e) {
    raise_package_error("LaunchError", e.what(),
                        [&](const py::object& cls) { return cls(std::string(e.what())); });
  } catch (const tritium::InternalError& e) {
    raise_package_error("InternalError", e.what(),
                        [&](const py::object& cls) { return cls(std::string(e.what())); });
  }
}

// Ctrl-C while the interpreter runs a kernel (it runs without the GIL, so Python's signal
// handler waits): the interpreter calls this every few hundred steps (issue 11).
void check_python_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

}  // namespace

void tritium::python::translate_exception(std::exception_ptr thrown) {
  try {
    translate(thrown);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "tritium: unknown C++ exception");
  }
}

PYBIND11_MODULE(_C, module) {
  module.doc() = "tritium's C++ core: parsing, specialization, compilation and launching";
  py::register_exception_translator(&translate);
  tritium::interp::set_interrupt_check(&check_python_signals);
  tritium::python::register_kernel(module);
  module.def(
      "cache_stats",
      [] {
        tritium::CacheStats s = tritium::cache_stats();
        py::dict out;
        out["memory_hits"] = s.memory_hits;
        out["memory_misses"] = s.memory_misses;
        out["disk_hits"] = s.disk_hits;
        out["disk_misses"] = s.disk_misses;
        out["bad_entries"] = s.bad_entries;
        out["compiles"] = s.compiles;
        out["disk_writes"] = s.disk_writes;
        out["evictions"] = s.evictions;
        out["lower_seconds"] = s.lower_seconds;
        out["optimize_seconds"] = s.optimize_seconds;
        out["ptx_seconds"] = s.ptx_seconds;
        out["cubin_seconds"] = s.cubin_seconds;
        out["load_seconds"] = s.load_seconds;
        out["disk_seconds"] = s.disk_seconds;
        return out;
      },
      "The process's cache counters and per-stage compile seconds.");
  module.def("_saturated_conversions", &tritium::interp::saturated_conversions,
             "How many float -> int conversions the interpreter saturated in this process (out of "
             "range or NaN, where Triton's result is undefined): read by tests/fuzz/differential.py.");
  module.def("_wide_shifts", &tritium::interp::wide_shifts,
             "How many shifts by >= the bit width the interpreter evaluated in this process (0 or "
             "the sign fill here, undefined in Triton): read by tests/fuzz/differential.py.");
  module.def("_register_host_memory", &tritium::register_host_memory, py::arg("begin"), py::arg("bytes"),
             py::arg("name"), "Host memory the interpreter may touch besides a launch's arguments.");
  module.def("_unregister_host_memory", &tritium::unregister_host_memory, py::arg("begin"));
  module.def("reset_cache_stats", &tritium::reset_cache_stats, "Zeroes the cache counters.");
  module.def("cache_dir", &tritium::cache_dir, "The disk cache directory of this process.");
  module.def(
      "builtins",
      [] {
        // name -> (callable as tl.<name>, also a tensor method); planned names are (False, False).
        py::dict out;
        for (const auto& [name, b] : tritium::lower::builtin_table().entries()) out[name.c_str()] = py::make_tuple(b.function, b.method);
        for (const std::string& name : tritium::lower::planned_builtins()) {
          if (!out.contains(name.c_str())) out[name.c_str()] = py::make_tuple(false, false);
        }
        return out;
      },
      "The tl.* builtins the compiler knows (for tests comparing them with tritium.language).");
  module.def(
      "prelude_builtins",
      [] {
        py::list out;
        for (const auto& p : tritium::lower::prelude_builtins()) out.append(p.name);
        return out;
      },
      "The tl.* builtins written in the Triton-language prelude (src/lower/prelude/).");
  module.def(
      "table_builtins",
      [] {
        // (name, parameters) of the builtins made from table rows (atomics.def,
        // elementwise.def): "x" required, "x=" optional.
        py::list out;
        for (const auto& [name, b] : tritium::lower::builtin_table().entries()) {
          if (!b.table) continue;
          py::list params;
          for (const std::string& p : b.params) params.append(p);
          out.append(py::make_tuple(name, params));
        }
        return out;
      },
      "The tl.* builtins made from the compiler's op tables, with their parameters.");
}
