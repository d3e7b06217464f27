// The globals dict of tritium/jit.py -> tritium::Globals (see globals_convert.h). Runs once
// per kernel, at its first call; callee sources are parsed here, each into its own module.
#include "globals_convert.h"

#include <cstdint>
#include <memory>
#include <string>

#include "arg_convert.h"
#include "frontend/parser.h"
#include "runtime/specialize.h"

namespace tritium::python {

namespace {

[[noreturn]] void malformed(const std::string& name, const std::string& what) {
  throw py::value_error("tritium: global '" + name + "': " + what +
                        " (the description jit.py built is malformed)");
}

py::object field(py::handle entry, const char* key, const std::string& name) {
  auto dict = py::reinterpret_borrow<py::dict>(entry);
  if (!dict.contains(key)) malformed(name, std::string("no '") + key + "'");
  return dict[key];
}

// A Python int of any size as a 128-bit integer: high and low 64-bit halves.
bool to_int128(py::handle value, __int128* out) {
  int overflow = 0;
  long long small = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0) {
    if (small == -1 && PyErr_Occurred()) throw py::error_already_set();
    *out = small;
    return true;
  }
  py::int_ shift(64);
  py::int_ mask(py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(~0ULL)));
  auto high = py::reinterpret_steal<py::object>(PyNumber_Rshift(value.ptr(), shift.ptr()));
  auto low = py::reinterpret_steal<py::object>(PyNumber_And(value.ptr(), mask.ptr()));
  if (!high || !low) throw py::error_already_set();
  long long high_bits = PyLong_AsLongLongAndOverflow(high.ptr(), &overflow);
  if (overflow != 0) return false;
  unsigned long long low_bits = PyLong_AsUnsignedLongLong(low.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  *out = static_cast<__int128>(static_cast<unsigned __int128>(high_bits) << 64 | low_bits);
  return true;
}

GlobalBinding function_binding(const std::string& name, py::handle entry) {
  GlobalBinding binding;
  binding.kind = GlobalBinding::Kind::Function;
  binding.function = field(entry, "name", name).cast<std::string>();
  auto file = std::make_shared<SourceFile>(field(entry, "path", name).cast<std::string>(),
                                           field(entry, "source", name).cast<std::string>(),
                                           field(entry, "first_line", name).cast<int>());
  binding.module_ast = parse_module(std::move(file));
  auto dict = py::reinterpret_borrow<py::dict>(entry);
  if (dict.contains("globals")) {
    binding.function_globals = std::make_shared<const Globals>(to_globals(dict["globals"]));
  }
  if (dict.contains("must_use_result") && !dict["must_use_result"].is_none()) {
    py::object mark = dict["must_use_result"];
    if (py::isinstance<py::str>(mark)) binding.must_use_result = mark.cast<std::string>();
    else if (py::bool_(mark)) binding.must_use_result = "1";
  }
  return binding;
}

// A compile-time constant as Python sees it: None, bool, int, float, str or a
// tritium.language dtype (tl.pointer_type for a pointer).
py::object from_const_value(const ConstValue& value) {
  switch (value.kind) {
    case ConstValue::Kind::None: return py::none();
    case ConstValue::Kind::Bool: return py::bool_(value.b);
    case ConstValue::Kind::Int: {
      if (value.i >= INT64_MIN && value.i <= INT64_MAX) return py::int_(static_cast<long long>(value.i));
      std::string digits = value.str();
      auto object = py::reinterpret_steal<py::object>(PyLong_FromString(digits.c_str(), nullptr, 10));
      if (!object) throw py::error_already_set();
      return object;
    }
    case ConstValue::Kind::Float: return py::float_(value.f);
    case ConstValue::Kind::Str: return py::str(value.s);
    case ConstValue::Kind::DType: {
      py::module_ language = py::module_::import("tritium.language");
      py::object element = language.attr("dtype")(ir::scalar_name(value.dtype));
      return value.pointer ? language.attr("pointer_type")(element) : element;
    }
    case ConstValue::Kind::Object:
      // Only its type, repr, str() and truth came in (runtime::classify); the object itself
      // is not kept, so Python code run at compile time cannot be given it.
      PyErr_SetString(PyExc_TypeError, ("the " + value.object_type() + " constant " + value.s +
                                        " cannot be passed to Python code at compile time in tritium (only its "
                                        "repr is kept)").c_str());
      throw py::error_already_set();
  }
  return py::none();
}

// A tl.constexpr_function: the Python callable, called with the GIL held (compiles run with
// it released) and released with it held (the binding may die on a compile thread).
GlobalBinding host_function_binding(const std::string& name, py::handle entry) {
  GlobalBinding binding;
  binding.kind = GlobalBinding::Kind::HostFunction;
  binding.function = field(entry, "name", name).cast<std::string>();
  binding.host_source = field(entry, "source", name).cast<std::string>();
  auto entry_dict = py::reinterpret_borrow<py::dict>(entry);
  binding.host_builtin = entry_dict.contains("builtin") && entry_dict["builtin"].cast<bool>();
  auto release_with_gil = [](py::object* p) {
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      delete p;
    } else {
      p->release();  // the interpreter is gone: nothing to decrement
      delete p;
    }
  };
  std::shared_ptr<py::object> callable(new py::object(field(entry, "callable", name)), release_with_gil);
  // The @jit functions the host function names (jit.py found them in its code; their sources
  // are in host_source, so in the cache key): the ones it may return, as Function bindings.
  auto dict = py::reinterpret_borrow<py::dict>(entry);
  py::list jit_objects;
  auto jit_bindings = std::make_shared<std::vector<std::shared_ptr<const GlobalBinding>>>();
  if (dict.contains("functions")) {
    for (auto item : py::reinterpret_borrow<py::list>(dict["functions"])) {
      auto pair = py::reinterpret_borrow<py::tuple>(item);
      jit_objects.append(pair[0]);
      jit_bindings->push_back(std::make_shared<const GlobalBinding>(function_binding(name, pair[1])));
    }
  }
  std::shared_ptr<py::object> jit_functions(new py::object(std::move(jit_objects)), release_with_gil);
  std::string function = binding.function;
  binding.host = std::make_shared<const HostCall>(
      [callable, function, jit_functions, jit_bindings](
          const std::vector<ConstValue>& args, const std::vector<std::pair<std::string, ConstValue>>& kwargs,
          ConstValue* result, std::shared_ptr<const GlobalBinding>* function_result, std::string* error) {
        py::gil_scoped_acquire gil;
        try {
          py::tuple positional(args.size());
          for (size_t i = 0; i < args.size(); ++i) positional[i] = from_const_value(args[i]);
          py::dict named;
          for (const auto& [key, value] : kwargs) named[py::str(key)] = from_const_value(value);
          py::object value = (*callable)(*positional, **named);
          py::module_ language = py::module_::import("tritium.language");
          if (py::isinstance(value, language.attr("constexpr"))) value = value.attr("value");
          py::object jit_class = py::module_::import("tritium.jit").attr("JITFunction");
          if (py::isinstance(value, jit_class)) {
            auto known = py::reinterpret_borrow<py::list>(*jit_functions);
            for (size_t i = 0; i < known.size(); ++i) {
              if (value.is(known[i])) {
                *function_result = (*jit_bindings)[i];
                return true;
              }
            }
            *error = "returned the @jit function " + py::str(value.attr("__name__")).cast<std::string>() +
                     ", which its body does not name (a kernel can use a @jit function a "
                     "constexpr_function returns only when the constexpr_function reads it as a "
                     "global or closure variable)";
            return false;
          }
          if (!to_const_value(value, result)) {
            *error = "returned " + py::repr(value).cast<std::string>() +
                     ", which is not a compile-time constant a kernel can use (None, bool, int, "
                     "float, str, a dtype or a @jit function)";
            return false;
          }
          return true;
        } catch (py::error_already_set& e) {
          *error = "raised " + std::string(e.what());
          return false;
        }
      });
  return binding;
}

}  // namespace

bool to_const_value(py::handle value, ConstValue* out) {
  PyObject* object = value.ptr();
  if (object == Py_None) {
    *out = ConstValue::none();
  } else if (PyBool_Check(object)) {
    *out = ConstValue::boolean(object == Py_True);
  } else if (PyLong_Check(object)) {
    __int128 v = 0;
    if (!to_int128(value, &v)) {
      PyErr_SetString(PyExc_OverflowError,
                      ("tritium: the integer " + py::str(value).cast<std::string>() +
                       " is too large for a compile-time constant (128 bits)")
                          .c_str());
      throw py::error_already_set();
    }
    *out = ConstValue::integer(v);
  } else if (PyFloat_Check(object)) {
    *out = ConstValue::floating(PyFloat_AS_DOUBLE(object));
  } else if (PyUnicode_Check(object)) {
    *out = ConstValue::string(value.cast<std::string>());
  } else {
    DType dtype;
    if (to_pointer_dtype(value, &dtype)) {  // tl.pointer_type(tl.int32) as a constant
      *out = ConstValue::pointer_type(runtime::to_scalar_kind(dtype));
      return true;
    }
    if (!to_dtype(value, &dtype)) return false;
    *out = ConstValue::type(runtime::to_scalar_kind(dtype));
  }
  return true;
}

GlobalBinding to_binding(const std::string& name, py::handle entry) {
  if (!py::isinstance<py::dict>(entry)) malformed(name, "not a dict");
  std::string kind = field(entry, "kind", name).cast<std::string>();
  GlobalBinding binding;
  if (kind == "module") {
    binding.kind = GlobalBinding::Kind::Module;
    binding.module = field(entry, "module", name).cast<std::string>();
  } else if (kind == "constant") {
    binding.kind = GlobalBinding::Kind::Constant;
    if (!to_const_value(field(entry, "value", name), &binding.value)) {
      malformed(name, "a constant of an unsupported type");
    }
  } else if (kind == "function") {
    binding = function_binding(name, entry);
  } else if (kind == "host_function") {
    binding = host_function_binding(name, entry);
  } else if (kind == "tuple_type") {
    binding.kind = GlobalBinding::Kind::TupleType;
    binding.function = field(entry, "name", name).cast<std::string>();
    for (auto f : field(entry, "fields", name)) binding.fields.push_back(py::str(f));
    for (auto d : field(entry, "defaults", name)) {
      ConstValue value;
      if (!to_const_value(d, &value)) malformed(name, "a NamedTuple default that is not a constant");
      binding.field_defaults.push_back(value);
    }
  } else {
    malformed(name, "unknown kind '" + kind + "'");
  }
  return binding;
}

Globals to_globals(py::handle globals) {
  Globals out;
  if (globals.is_none()) return out;
  if (!py::isinstance<py::dict>(globals)) throw py::type_error("tritium: globals must be a dict");
  for (auto item : py::reinterpret_borrow<py::dict>(globals)) {
    std::string name = py::str(item.first);
    out.emplace(name, to_binding(name, item.second));
  }
  return out;
}

}  // namespace tritium::python
