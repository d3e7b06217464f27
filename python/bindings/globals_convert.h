// The globals a kernel reads, as gathered by tritium/jit.py, -> tritium::Globals. Each
// entry is a dict: {"kind": "module", "module": "triton.language"}, {"kind": "constant",
// "value": v} (None, bool, int, float, str or a tl dtype), or {"kind": "function", "name",
// "source", "path", "first_line", "globals": {...}} for a @jit callee (parsed here),
// {"kind": "host_function", ...} for a tl.constexpr_function, {"kind": "tuple_type", "name",
// "fields": [...], "defaults": [...]} for a NamedTuple class.
#pragma once

#include <pybind11/pybind11.h>

#include "lower/lower.h"

namespace tritium::python {

namespace py = pybind11;

// Converts the dict of one function's globals. Raises CompileError for a callee that does
// not parse, OverflowError for an int constant beyond 128 bits, ValueError for an entry of
// another shape (a bug in jit.py).
Globals to_globals(py::handle globals);

// One entry of that dict (`name` is for messages): the binding of a @jit function passed as
// a kernel argument (Arg::function).
GlobalBinding to_binding(const std::string& name, py::handle entry);

// A Python value as a compile-time constant; false when it is none of the kinds above.
bool to_const_value(py::handle value, ConstValue* out);

}  // namespace tritium::python
