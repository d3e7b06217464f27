// Python call arguments -> tritium::Arg, in C++ (DESIGN law 6): arrays and tensors by their
// data pointer, element type and buffer size; Python scalars, None, strings, dtypes and
// tl.constexpr wrappers by value. Errors name the kernel and the argument.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "tritium/tritium.h"

namespace tritium::python {

namespace py = pybind11;

// What error messages say about the argument being converted.
struct ArgContext {
  const std::string& kernel;
  const std::string& param;  // the parameter name, or "#3" past the parameter list
};

// Converts one argument. Raises (as a C++ exception pybind11 turns into Python's):
// OverflowError for ints outside [-2^63, 2^64); tritium.ArgumentTypeError for values of an
// unsupported type or element type.
Arg to_arg(py::handle value, const ArgContext& context);

// Converts a call's positional and keyword arguments. `params` names the positional ones.
void to_args(const std::string& kernel, const std::vector<std::string>& params,
             py::handle args, py::handle kwargs, std::vector<Arg>* positional,
             std::vector<std::pair<std::string, Arg>>* named);

// The same from a vector of positional arguments (a vectorcall's), and one keyword
// argument (`name` a str).
void positional_args(const std::string& kernel, const std::vector<std::string>& params,
                     PyObject* const* items, size_t count, std::vector<Arg>* out);
void named_arg(const std::string& kernel, PyObject* name, PyObject* value,
               std::vector<std::pair<std::string, Arg>>* out);

// A tritium.language dtype object (or anything with a Triton dtype `name`) -> DType.
// Returns false when `value` is not one.
bool to_dtype(py::handle value, DType* out);
// A tritium.language pointer_type of a scalar dtype: its element type.
bool to_pointer_dtype(py::handle value, DType* element);

// The message prefix shared by argument errors: "kernel 'k': argument 'n': ".
std::string argument_prefix(const ArgContext& context);

// Raises tritium.ArgumentTypeError (a LaunchError and a TypeError) with `message`.
[[noreturn]] void raise_argument_type_error(const std::string& message);

}  // namespace tritium::python
