// Python call arguments -> tritium::Arg (see arg_convert.h). Runs on every launch: Python
// scalars are recognised with CPython's own type checks, and for any other object the way
// to read it is decided once per Python type and cached.
#include "arg_convert.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "globals_convert.h"
#include "ir/types.h"
#include "runtime/specialize.h"

namespace tritium::python {

namespace {

// How an object of one Python type becomes an Arg.
enum class Handler : uint8_t {
  Tensor,       // data_ptr() and dtype: torch tensors and look-alikes
  CudaArray,    // __cuda_array_interface__: CuPy, Numba, ...
  HostArray,    // __array_interface__: numpy arrays (read through the buffer protocol)
  Constexpr,    // tritium.language.constexpr: its .value
  DTypeObject,  // tritium.language.dtype (not pointer or block types)
  Index,        // integer-like (numpy integers): operator.index
  Float,        // float-like (numpy floats)
  Bool,         // numpy.bool_
  Descriptor,   // a host tensor descriptor (triton.tools / tritium.tools TensorDescriptor)
  Function,     // a @jit function or tl.constexpr_function (tritium.jit's classes)
  ByInstance,   // none of the above on the type: look at the object's own attributes
  Unsupported,
};

// Element type names as Triton canonicalizes them (triton-spec.md §1.2: torch's and
// numpy's long names, `str(torch.float32)` minus "torch.") and Triton's short ones.
bool dtype_from_name(std::string_view name, DType* out) {
  // Every spelling the one dtype table knows: Triton's short and long names, torch's and
  // numpy's (ml_dtypes') names; `str(torch.float8_e4m3fn)` minus "torch." included.
  ir::ScalarKind kind;
  if (!ir::parse_scalar_name(std::string(name), &kind)) return false;
  *out = runtime::to_dtype(kind);
  return true;
}

// An __array_interface__ typestr (`<f4`, `|b1`, `<i8`) -> DType; false when unsupported
// (complex, structured, big-endian on this little-endian host).
bool dtype_from_typestr(std::string_view typestr, DType* out) {
  if (typestr.size() < 3) return false;
  char order = typestr[0];
  char kind = typestr[1];
  std::string_view size = typestr.substr(2);
  if (order == '>' && size != "1") return false;
  static const std::unordered_map<std::string_view, DType> kinds = {
      {"b1", DType::i1},  {"i1", DType::i8},  {"i2", DType::i16},  {"i4", DType::i32},
      {"i8", DType::i64}, {"u1", DType::u8},  {"u2", DType::u16},  {"u4", DType::u32},
      {"u8", DType::u64}, {"f2", DType::fp16}, {"f4", DType::fp32}, {"f8", DType::fp64},
  };
  auto it = kinds.find(std::string(1, kind) + std::string(size));
  if (it == kinds.end()) return false;
  *out = it->second;
  return true;
}

// The classes of tritium.language a kernel argument may be an instance of. Leaked on
// purpose: Python objects must not be destroyed after the interpreter finalizes.
struct LanguageTypes {
  py::object constexpr_class;
  py::object dtype_class;
  py::object pointer_type_class;
  py::object block_type_class;
};

const LanguageTypes& language_types() {
  static const LanguageTypes* types = [] {
    py::module_ language = py::module_::import("tritium.language");
    return new LanguageTypes{language.attr("constexpr"), language.attr("dtype"),
                             language.attr("pointer_type"), language.attr("block_type")};
  }();
  return *types;
}

bool is_instance(py::handle value, const py::object& cls) {
  int result = PyObject_IsInstance(value.ptr(), cls.ptr());
  if (result < 0) throw py::error_already_set();
  return result == 1;
}

// A numpy scalar (np.int64(3), np.float32(1.5), np.bool_(True)); numpy is only looked at
// when the program already imported it.
Handler numpy_scalar_handler(py::handle value) {
  PyObject* modules = PyImport_GetModuleDict();
  PyObject* numpy = PyDict_GetItemString(modules, "numpy");
  if (numpy == nullptr) return Handler::Unsupported;
  py::handle np(numpy);
  if (!is_instance(value, np.attr("generic"))) return Handler::Unsupported;
  if (is_instance(value, np.attr("bool_"))) return Handler::Bool;
  if (is_instance(value, np.attr("integer"))) return Handler::Index;
  if (is_instance(value, np.attr("floating"))) return Handler::Float;
  return Handler::Unsupported;
}

// The array protocols, looked up on a type or on one object.
Handler array_handler(py::handle holder) {
  if (py::hasattr(holder, "data_ptr")) return Handler::Tensor;
  if (py::hasattr(holder, "__cuda_array_interface__")) return Handler::CudaArray;
  if (py::hasattr(holder, "__array_interface__")) return Handler::HostArray;
  return Handler::Unsupported;
}

// Triton's and tritium's TensorDescriptor: a dataclass of that name with its fields (both
// classes, without importing Triton). Gluon's, which adds a shared-memory layout, is not one.
bool is_descriptor_type(py::handle type) {
  if (std::string_view(reinterpret_cast<PyTypeObject*>(type.ptr())->tp_name) != "TensorDescriptor") return false;
  py::object fields = py::getattr(type, "__dataclass_fields__", py::none());
  if (!py::isinstance<py::dict>(fields)) return false;
  auto dict = py::reinterpret_borrow<py::dict>(fields);
  for (const char* name : {"base", "shape", "strides", "block_shape"}) {
    if (!dict.contains(name)) return false;
  }
  return !dict.contains("layout");
}

// tritium.jit's JITFunction and ConstexprFunction (leaked as language_types is).
bool is_jit_callable(py::handle value) {
  static const std::pair<py::object, py::object>* classes = [] {
    py::module_ jit = py::module_::import("tritium.jit");
    return new std::pair<py::object, py::object>(jit.attr("JITFunction"), jit.attr("ConstexprFunction"));
  }();
  return is_instance(value, classes->first) || is_instance(value, classes->second);
}

Handler classify_type(py::handle value) {
  const LanguageTypes& language = language_types();
  if (is_jit_callable(value)) return Handler::Function;
  if (is_descriptor_type(py::handle(reinterpret_cast<PyObject*>(Py_TYPE(value.ptr()))))) return Handler::Descriptor;
  if (is_instance(value, language.constexpr_class)) return Handler::Constexpr;
  if (is_instance(value, language.dtype_class)) {
    bool composite = is_instance(value, language.pointer_type_class) ||
                     is_instance(value, language.block_type_class);
    return composite ? Handler::Unsupported : Handler::DTypeObject;
  }
  // numpy scalars also carry __array_interface__: look at them first.
  if (Handler scalar = numpy_scalar_handler(value); scalar != Handler::Unsupported) {
    return scalar;
  }
  py::handle type(reinterpret_cast<PyObject*>(Py_TYPE(value.ptr())));
  if (Handler array = array_handler(type); array != Handler::Unsupported) return array;
  // Plain Python scalars never get here; a type with an instance __dict__ may carry the
  // protocols per object.
  return Py_TYPE(value.ptr())->tp_dictoffset != 0 ? Handler::ByInstance : Handler::Unsupported;
}

// Decided once per type; the GIL guards the map, and the types it holds are kept alive.
Handler handler_for(py::handle value) {
  static auto* handlers = new std::unordered_map<PyTypeObject*, Handler>();
  PyTypeObject* type = Py_TYPE(value.ptr());
  auto it = handlers->find(type);
  if (it != handlers->end()) return it->second;
  Handler handler = classify_type(value);
  Py_INCREF(type);
  handlers->emplace(type, handler);
  return handler;
}

std::string type_name(py::handle value) {
  py::handle type(reinterpret_cast<PyObject*>(Py_TYPE(value.ptr())));
  return py::str(type.attr("__name__"));
}

Arg int_from_pylong(PyObject* value, const ArgContext& context) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return Arg::integer(v);
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (!PyErr_Occurred()) return Arg::unsigned_integer(u);
    PyErr_Clear();
  }
  std::string message = argument_prefix(context) + "the integer " +
                        py::str(value).cast<std::string>() +
                        " does not fit a kernel argument (the range is [-2**63, 2**64))";
  PyErr_SetString(PyExc_OverflowError, message.c_str());
  throw py::error_already_set();
}

// Bytes from the first element to the end of the last one, for the array interfaces'
// shape/strides (strides None: C-contiguous). Negative strides reach below the data
// pointer; that part is not counted, so the interpreter reports accesses there.
size_t buffer_extent(py::handle shape, py::handle strides, size_t item_size) {
  auto dims = py::reinterpret_borrow<py::tuple>(shape);
  size_t elements = 1;
  for (py::handle dim : dims) elements *= dim.cast<size_t>();
  if (elements == 0) return 0;
  if (strides.is_none()) return elements * item_size;
  auto steps = py::reinterpret_borrow<py::tuple>(strides);
  size_t extent = item_size;
  for (size_t i = 0; i < dims.size() && i < steps.size(); ++i) {
    int64_t step = steps[i].cast<int64_t>();
    if (step > 0) extent += (dims[i].cast<size_t>() - 1) * static_cast<size_t>(step);
  }
  return extent;
}

size_t dtype_size(DType dtype) {
  int bits = ir::bit_width(runtime::to_scalar_kind(dtype));
  return bits <= 8 ? 1 : static_cast<size_t>(bits / 8);
}

// Device memory (a CUDA tensor, anything with __cuda_array_interface__) becomes a device
// pointer: the launch goes to the GPU that holds it, and the interpreter, which cannot read
// it, never registers it. `device` is the ordinal when the object says (torch), else -1 and
// the launcher asks the driver.
Arg pointer_arg(uint64_t address, DType dtype, size_t bytes, bool device_memory,
                int device = -1) {
  if (device_memory) return Arg::device_pointer(reinterpret_cast<const void*>(address), dtype, 0, device);
  return Arg::pointer(reinterpret_cast<const void*>(address), dtype, bytes);
}

// Whether a tensor-like object lives in device memory: torch's `device.type`.
bool on_device(py::handle value) {
  py::object device = py::getattr(value, "device", py::none());
  if (device.is_none()) return false;
  py::object type = py::getattr(device, "type", py::none());
  return py::isinstance<py::str>(type) && type.cast<std::string>() != "cpu";
}

// Attribute names looked up at every launch, made once (leaked with the interpreter).
struct Names {
  PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  PyObject* dtype = PyUnicode_InternFromString("dtype");
  PyObject* get_device = PyUnicode_InternFromString("get_device");
  PyObject* is_cuda = PyUnicode_InternFromString("is_cuda");
};
const Names& names() {
  static const Names* instance = new Names();
  return *instance;
}

// A tensor's CUDA device ordinal: torch's `get_device()` (-1 for CPU tensors; other
// accelerators also have ordinals, so `is_cuda` confirms), or -2 when the object has no
// `get_device` (then `device.type` decides).
int cuda_device_of(py::handle value) {
  PyObject* index = PyObject_CallMethodNoArgs(value.ptr(), names().get_device);
  if (index == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
    PyErr_Clear();
    return -2;
  }
  long device = PyLong_AsLong(index);
  Py_DECREF(index);
  if (device == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (device < 0) return -1;
  PyObject* is_cuda = PyObject_GetAttr(value.ptr(), names().is_cuda);
  if (is_cuda == nullptr) {
    PyErr_Clear();
    return -2;
  }
  bool cuda = is_cuda == Py_True;
  Py_DECREF(is_cuda);
  return cuda ? static_cast<int>(device) : -2;
}

Arg array_interface_arg(py::handle value, const char* attribute, const ArgContext& context) {
  py::object interface = value.attr(attribute);
  if (!py::isinstance<py::dict>(interface)) {
    raise_argument_type_error(argument_prefix(context) + attribute + " is not a dict");
  }
  auto dict = py::reinterpret_borrow<py::dict>(interface);
  py::object data = dict["data"];
  if (!py::isinstance<py::tuple>(data)) {
    raise_argument_type_error(argument_prefix(context) + attribute +
                              " gives no data pointer (an array exposing only a buffer)");
  }
  uint64_t address = py::reinterpret_borrow<py::tuple>(data)[0].cast<uint64_t>();
  bool read_only = py::len(data) > 1 && py::reinterpret_borrow<py::tuple>(data)[1].cast<bool>();
  std::string typestr = dict["typestr"].cast<std::string>();
  DType dtype;
  bool known = dtype_from_typestr(typestr, &dtype);
  if (!known && typestr.size() > 1 && typestr[1] == 'V' && py::hasattr(value, "dtype")) {
    // Types numpy has no typestr for (ml_dtypes' bfloat16 is `<V2`) go by name.
    py::object name = py::getattr(value.attr("dtype"), "name", py::none());
    known = !name.is_none() && dtype_from_name(name.cast<std::string>(), &dtype);
  }
  if (!known) {
    raise_argument_type_error(argument_prefix(context) + "element type '" + typestr +
                              "' is not supported");
  }
  py::object strides = dict.contains("strides") ? py::object(dict["strides"]) : py::none();
  size_t bytes = buffer_extent(dict["shape"], strides, dtype_size(dtype));
  bool device = std::string_view(attribute) == "__cuda_array_interface__";
  Arg arg = pointer_arg(address, dtype, bytes, device);
  return read_only ? arg.as_read_only() : arg;
}

// A buffer-protocol format (`f`, `<i8`, `?`) of `item_size` bytes -> DType; false for
// anything else (big-endian, structured, types without a format like bfloat16).
bool dtype_from_format(const char* format, Py_ssize_t item_size, DType* out) {
  if (format == nullptr) format = "B";
  if (*format == '@' || *format == '=' || *format == '<' || *format == '|') ++format;
  if (format[0] == '\0' || format[1] != '\0') return false;
  const std::string_view signed_codes = "bhilqn", unsigned_codes = "BHILQN";
  const DType signed_types[] = {DType::i8, DType::i16, DType::i32, DType::i64};
  const DType unsigned_types[] = {DType::u8, DType::u16, DType::u32, DType::u64};
  int width = item_size == 1 ? 0 : item_size == 2 ? 1 : item_size == 4 ? 2 : item_size == 8 ? 3 : -1;
  char code = format[0];
  if (code == '?' && item_size == 1) {
    *out = DType::i1;
  } else if (signed_codes.find(code) != std::string_view::npos && width >= 0) {
    *out = signed_types[width];
  } else if (unsigned_codes.find(code) != std::string_view::npos && width >= 0) {
    *out = unsigned_types[width];
  } else if (code == 'e' && item_size == 2) {
    *out = DType::fp16;
  } else if (code == 'f' && item_size == 4) {
    *out = DType::fp32;
  } else if (code == 'd' && item_size == 8) {
    *out = DType::fp64;
  } else {
    return false;
  }
  return true;
}

// A host array (numpy): through the buffer protocol, which reads pointer, element type,
// shape and strides without building __array_interface__'s dict (4 us per array); element
// types the protocol cannot express (ml_dtypes' bfloat16) go through the dict.
Arg host_array_arg(py::handle value, const ArgContext& context) {
  Py_buffer view;
  if (PyObject_GetBuffer(value.ptr(), &view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return array_interface_arg(value, "__array_interface__", context);
  }
  DType dtype;
  bool known = dtype_from_format(view.format, view.itemsize, &dtype);
  auto address = reinterpret_cast<uint64_t>(view.buf);
  size_t bytes = 0;
  if (known && view.len > 0) {
    // From the first element to the end of the last; negative strides are not counted
    // (as in buffer_extent).
    bytes = static_cast<size_t>(view.itemsize);
    for (int i = 0; i < view.ndim; ++i) {
      Py_ssize_t step = view.strides != nullptr ? view.strides[i] : 0;
      if (step > 0) bytes += static_cast<size_t>((view.shape[i] - 1) * step);
    }
    if (view.strides == nullptr) bytes = static_cast<size_t>(view.len);
  }
  bool read_only = view.readonly != 0;
  PyBuffer_Release(&view);
  if (!known) return array_interface_arg(value, "__array_interface__", context);
  Arg arg = pointer_arg(address, dtype, bytes, false);
  return read_only ? arg.as_read_only() : arg;
}

// A tensor's element type. torch.dtype objects are singletons: their DType is remembered
// by identity, so a launch does not build the dtype's string each time.
DType tensor_dtype(py::handle value, const ArgContext& context) {
  py::object dtype = py::reinterpret_steal<py::object>(PyObject_GetAttr(value.ptr(), names().dtype));
  if (!dtype) throw py::error_already_set();
  static auto* known = new std::unordered_map<PyObject*, DType>();  // guarded by the GIL
  auto it = known->find(dtype.ptr());
  if (it != known->end()) return it->second;
  std::string dtype_text = py::str(dtype);
  std::string_view name = dtype_text;
  if (size_t dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  DType out;
  if (!dtype_from_name(name, &out)) {
    raise_argument_type_error(argument_prefix(context) + "element type '" + dtype_text +
                              "' is not supported");
  }
  if (std::string_view(Py_TYPE(dtype.ptr())->tp_name) == "torch.dtype") {
    known->emplace(dtype.release().ptr(), out);  // the reference is kept
  }
  return out;
}

Arg tensor_arg(py::handle value, const ArgContext& context) {
  py::object pointer = py::reinterpret_steal<py::object>(
      PyObject_CallMethodNoArgs(value.ptr(), names().data_ptr));
  if (!pointer) {
    // A tensor class rather than a tensor (`torch.Tensor`), or a look-alike whose data_ptr
    // fails: say which argument, with Python's reason.
    py::error_already_set raised;
    std::string why = raised.what();
    raise_argument_type_error(argument_prefix(context) + "its data_ptr() failed (" +
                              why.substr(0, why.find('\n')) + "); expected an array or tensor");
  }
  if (!PyLong_Check(pointer.ptr())) {
    raise_argument_type_error(argument_prefix(context) + "data_ptr() returned '" +
                              Py_TYPE(pointer.ptr())->tp_name + "', not an int; expected an "
                              "array or tensor");
  }
  uint64_t address = PyLong_AsUnsignedLongLong(pointer.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  DType dtype = tensor_dtype(value, context);
  int device = cuda_device_of(value);
  if (device >= 0) return pointer_arg(address, dtype, 0, true, device);
  if (device == -2 && on_device(value)) return pointer_arg(address, dtype, 0, true);
  // The storage from this tensor's first element on (torch: a view's whole extent), else
  // the object's `nbytes`, else numel() * element_size() (a wrapper around a tensor that
  // answers as one: triton_kernels' Tensor); 0 (unknown: the interpreter cannot read it)
  // when none exists.
  size_t bytes = 0;
  size_t before = 0;  // bytes of the buffer below the pointer (see Arg::with_bytes_before)
  try {
    if (py::hasattr(value, "untyped_storage") && py::hasattr(value, "storage_offset")) {
      auto total = value.attr("untyped_storage")().attr("nbytes")().cast<int64_t>();
      auto offset = value.attr("storage_offset")().cast<int64_t>() *
                    value.attr("element_size")().cast<int64_t>();
      bytes = total > offset ? static_cast<size_t>(total - offset) : 0;
    } else if (py::hasattr(value, "untyped_storage")) {
      // A look-alike that hands out its base tensor's storage but no storage_offset
      // (FlagGems' StridedBuffer, whose data_ptr() is its base's plus an offset, and whose
      // negative strides reach below it): the whole storage, when the pointer lies inside.
      py::object storage = value.attr("untyped_storage")();
      auto total = storage.attr("nbytes")().cast<uint64_t>();
      auto begin = storage.attr("data_ptr")().cast<uint64_t>();
      if (address >= begin && address - begin < total) {
        bytes = static_cast<size_t>(total - (address - begin));
        before = static_cast<size_t>(address - begin);
      }
    } else if (py::hasattr(value, "nbytes")) {
      bytes = value.attr("nbytes").cast<size_t>();
    } else if (py::hasattr(value, "numel") && py::hasattr(value, "element_size")) {
      auto n = value.attr("numel")().cast<int64_t>() * value.attr("element_size")().cast<int64_t>();
      bytes = n > 0 ? static_cast<size_t>(n) : 0;
    }
  } catch (py::error_already_set&) {
    bytes = before = 0;
  } catch (py::cast_error&) {
    bytes = before = 0;
  }
  if (before > 0) return pointer_arg(address, dtype, bytes, false).with_bytes_before(before);
  return pointer_arg(address, dtype, bytes, false);
}

std::vector<int64_t> int_list(py::handle value, const char* field, const ArgContext& context) {
  py::object items = py::getattr(value, field);
  std::vector<int64_t> out;
  PyObject* seq = PySequence_Fast(items.ptr(), "");
  if (seq == nullptr) {
    PyErr_Clear();
    raise_argument_type_error(argument_prefix(context) + "TensorDescriptor." + field + " must be a sequence of ints");
  }
  py::object owner = py::reinterpret_steal<py::object>(seq);
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i)));
    if (!index) {
      PyErr_Clear();
      raise_argument_type_error(argument_prefix(context) + "TensorDescriptor." + field + " must hold ints");
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow != 0) {
      PyErr_SetString(PyExc_OverflowError, (argument_prefix(context) + "TensorDescriptor." + field + "[" +
                                            std::to_string(i) + "] does not fit in int64").c_str());
      throw py::error_already_set();
    }
    out.push_back(v);
  }
  return out;
}

// A host tensor descriptor: its base as any other array argument, then shape, strides,
// block shape and padding (checked at launch, runtime::classify, naming the argument).
Arg descriptor_arg(py::handle value, const ArgContext& context) {
  Arg base = to_arg(value.attr("base"), context);
  py::object padding = py::getattr(value, "padding", py::str("zero"));
  std::string pad = py::isinstance<py::str>(padding) ? padding.cast<std::string>() : "";
  if (pad != "zero" && pad != "nan") {
    raise_argument_type_error(argument_prefix(context) + "TensorDescriptor: Illegal value for padding: " +
                              py::repr(padding).cast<std::string>() + " (\"zero\" or \"nan\")");
  }
  return Arg::tensor_descriptor(base, int_list(value, "shape", context), int_list(value, "strides", context),
                                int_list(value, "block_shape", context), pad == "nan");
}

// What a function argument becomes, made once per function object and kept on it (as
// `_tritium_argument`; jit.py drops it when the source changes).
struct FunctionArgument {
  std::string key;
  std::shared_ptr<const GlobalBinding> binding;
};

// A @jit function (or tl.constexpr_function): compile-time, keyed by its name and the
// digest of its source and globals (jit.py's _argument_description).
Arg function_arg(py::handle value, const ArgContext& context) {
  py::object cached = py::getattr(value, "_tritium_argument", py::none());
  if (py::isinstance<py::capsule>(cached)) {
    auto* argument = static_cast<FunctionArgument*>(py::reinterpret_borrow<py::capsule>(cached).get_pointer());
    return Arg::function(argument->key, argument->binding);
  }
  py::tuple description = py::module_::import("tritium.jit").attr("_argument_description")(value);
  auto argument = std::make_unique<FunctionArgument>();
  argument->key = description[0].cast<std::string>();
  argument->binding = std::make_shared<const GlobalBinding>(to_binding(context.param, description[1]));
  Arg arg = Arg::function(argument->key, argument->binding);
  py::capsule capsule(argument.release(), [](void* p) { delete static_cast<FunctionArgument*>(p); });
  py::setattr(value, "_tritium_argument", capsule);
  return arg;
}

}  // namespace

std::string argument_prefix(const ArgContext& context) {
  return "kernel '" + context.kernel + "': argument '" + context.param + "': ";
}

void raise_argument_type_error(const std::string& message) {
  py::object cls = py::module_::import("tritium.errors").attr("ArgumentTypeError");
  PyErr_SetString(cls.ptr(), message.c_str());
  throw py::error_already_set();
}

bool to_dtype(py::handle value, DType* out) {
  if (!is_instance(value, language_types().dtype_class)) return false;
  py::object name = value.attr("name");
  return py::isinstance<py::str>(name) && dtype_from_name(name.cast<std::string>(), out);
}

bool to_pointer_dtype(py::handle value, DType* element) {
  if (!is_instance(value, language_types().pointer_type_class)) return false;
  return to_dtype(value.attr("element_ty"), element);
}

Arg to_arg(py::handle value, const ArgContext& context) {
  PyObject* object = value.ptr();
  // Exact Python scalars first; bool before int (bool is an int subclass).
  if (object == Py_None) return Arg::none();
  if (PyBool_Check(object)) return Arg::boolean(object == Py_True);
  if (PyLong_Check(object)) return int_from_pylong(object, context);
  if (PyFloat_Check(object)) return Arg::floating(PyFloat_AS_DOUBLE(object));
  if (PyUnicode_Check(object)) return Arg::string(value.cast<std::string>());

  if (PyTuple_Check(object)) {
    // Triton 3.x: a tuple (nested tuples too) of tensors, ints and constexprs is one
    // parameter; its elements are named `t[0]`, `t[1][2]` in messages (`t.field` for a
    // NamedTuple's, whose field names the kernel may use).
    const Py_ssize_t n = PyTuple_GET_SIZE(object);
    std::vector<std::string> fields;
    if (!PyTuple_CheckExact(object)) {
      py::handle type(reinterpret_cast<PyObject*>(Py_TYPE(object)));
      py::object names = py::getattr(type, "_fields", py::none());
      if (PyTuple_Check(names.ptr()) && PyTuple_GET_SIZE(names.ptr()) == n) {
        for (auto name : py::reinterpret_borrow<py::tuple>(names)) fields.push_back(py::str(name));
      }
    }
    std::vector<Arg> items;
    items.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      std::string element = fields.empty() ? context.param + "[" + std::to_string(i) + "]"
                                           : context.param + "." + fields[static_cast<size_t>(i)];
      py::handle item(PyTuple_GET_ITEM(object, i));
      bool is_constexpr = is_instance(item, language_types().constexpr_class);
      Arg converted = to_arg(item, ArgContext{context.kernel, element});
      items.push_back(is_constexpr ? converted.as_constexpr() : std::move(converted));
    }
    if (!fields.empty()) {
      return Arg::named_tuple(Py_TYPE(object)->tp_name, std::move(fields),
                              std::move(items));
    }
    return Arg::tuple(std::move(items));
  }
  if (PyFunction_Check(object) || PyCFunction_Check(object) || PyMethod_Check(object)) {
    // Triton takes @jit functions (JITCallable) only: a kernel cannot run Python code.
    py::object name = py::getattr(value, "__name__", py::str("?"));
    raise_argument_type_error(argument_prefix(context) + "the Python function '" + py::str(name).cast<std::string>() +
                              "' is not a @triton.jit function; a kernel can only be given @jit functions "
                              "(or @triton.constexpr_function ones) to call: decorate it with @triton.jit");
  }
  Handler handler = handler_for(value);
  if (handler == Handler::ByInstance) handler = array_handler(value);
  switch (handler) {
    case Handler::Tensor: return tensor_arg(value, context);
    case Handler::CudaArray: return array_interface_arg(value, "__cuda_array_interface__", context);
    case Handler::HostArray: return host_array_arg(value, context);
    case Handler::Constexpr: return to_arg(value.attr("value"), context);
    case Handler::DTypeObject: {
      DType dtype;
      if (!to_dtype(value, &dtype)) {
        raise_argument_type_error(argument_prefix(context) + "dtype " +
                                  py::repr(value).cast<std::string>() +
                                  " cannot be a kernel argument");
      }
      return Arg::dtype(dtype);
    }
    case Handler::Index: {
      py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(object));
      if (!index) throw py::error_already_set();
      return int_from_pylong(index.ptr(), context);
    }
    case Handler::Float: return Arg::floating(value.cast<double>());
    case Handler::Bool: return Arg::boolean(PyObject_IsTrue(object) == 1);
    case Handler::Descriptor: return descriptor_arg(value, context);
    case Handler::Function: return function_arg(value, context);
    case Handler::ByInstance:
    case Handler::Unsupported: break;
  }
  // Any other hashable object: Triton takes it for a tl.constexpr parameter (specialization
  // keyed by it; runtime::classify refuses it for other parameters). Its repr keys it.
  if (PyObject_Hash(object) != -1) {
    py::object repr = py::reinterpret_steal<py::object>(PyObject_Repr(object));
    py::object text = repr ? py::reinterpret_steal<py::object>(PyObject_Str(object)) : py::object();
    if (repr && text) {
      int truth = PyObject_IsTrue(object);
      if (truth < 0) throw py::error_already_set();
      return Arg::python_object(type_name(value), repr.cast<std::string>(), text.cast<std::string>(), truth == 1);
    }
    throw py::error_already_set();
  }
  PyErr_Clear();
  raise_argument_type_error(
      argument_prefix(context) + "unsupported type '" + type_name(value) +
      "' (expected an array or tensor, an int, float, bool, None, str, or a tl dtype)");
}

void positional_args(const std::string& kernel, const std::vector<std::string>& params,
                     PyObject* const* items, size_t count, std::vector<Arg>* out) {
  out->reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (i < params.size()) {
      out->push_back(to_arg(items[i], ArgContext{kernel, params[i]}));
    } else {
      std::string extra = "#" + std::to_string(i);
      out->push_back(to_arg(items[i], ArgContext{kernel, extra}));
    }
  }
}

void named_arg(const std::string& kernel, PyObject* name, PyObject* value,
               std::vector<std::pair<std::string, Arg>>* out) {
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(name, &size);
  if (text == nullptr) throw py::error_already_set();
  std::string key(text, static_cast<size_t>(size));
  Arg arg = to_arg(value, ArgContext{kernel, key});
  out->emplace_back(std::move(key), std::move(arg));
}

void to_args(const std::string& kernel, const std::vector<std::string>& params,
             py::handle args, py::handle kwargs, std::vector<Arg>* positional,
             std::vector<std::pair<std::string, Arg>>* named) {
  if (!PyTuple_Check(args.ptr())) throw py::type_error("tritium: args must be a tuple");
  if (!kwargs.is_none() && !PyDict_Check(kwargs.ptr())) {
    throw py::type_error("tritium: kwargs must be a dict");
  }
  positional_args(kernel, params, reinterpret_cast<PyTupleObject*>(args.ptr())->ob_item,
                  static_cast<size_t>(PyTuple_GET_SIZE(args.ptr())), positional);
  if (kwargs.is_none()) return;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kwargs.ptr(), &pos, &key, &value)) {
    if (!PyUnicode_Check(key)) throw py::type_error("tritium: keyword names must be strings");
    named_arg(kernel, key, value, named);
  }
}

}  // namespace tritium::python
