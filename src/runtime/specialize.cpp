// Binding call arguments to parameters and classifying them into a Signature, following
// Triton 3.6's specializer (triton-spec.md §1.2-1.5 and pitfalls 1-5).
#include "runtime/specialize.h"

#include <algorithm>
#include <cstdint>

#include "lower/const_value.h"

namespace tritium::runtime {

namespace {

const char* kind_name(Arg::Kind kind) {
  switch (kind) {
    case Arg::Kind::Pointer:
      return "pointer";
    case Arg::Kind::Int:
      return "int";
    case Arg::Kind::Float:
      return "float";
    case Arg::Kind::Bool:
      return "bool";
    case Arg::Kind::None:
      return "None";
    case Arg::Kind::Str:
      return "str";
    case Arg::Kind::DType:
      return "dtype";
    case Arg::Kind::TensorDescriptor:
      return "TensorDescriptor";
    case Arg::Kind::Tuple:
      return "tuple";
    case Arg::Kind::Function:
      return "function";
    case Arg::Kind::Object:
      return "Python object";
  }
  return "?";
}

bool contains(const std::vector<int>& list, size_t index) {
  return std::find(list.begin(), list.end(), static_cast<int>(index)) != list.end();
}

LaunchError kernel_error(const std::string& kernel, const std::string& message) {
  return LaunchError("kernel '" + kernel + "': " + message);
}

// An integer argument's facts: divisible by 16 with Python's modulo (0 and negative
// multiples qualify; for two's complement values C's % agrees on "== 0").
bool int_divisible_by_16(const Arg& arg) {
  return arg.is_unsigned() ? arg.uint_value() % 16 == 0 : arg.int_value() % 16 == 0;
}

bool int_equals_one(const Arg& arg) {
  return arg.is_unsigned() ? arg.uint_value() == 1 : arg.int_value() == 1;
}

// A host tensor descriptor, checked as Triton's TensorDescriptor checks itself (its
// assertion texts), with the checks of its launcher (shape entries are i32 there).
void classify_descriptor(const std::string& kernel, const std::string& name, const Arg& arg, ParamSig& sig);
void classify_value(const std::string& kernel, const std::string& name, const Arg& arg, bool no_specialize,
                    bool no_align, ParamSig& sig);
void classify_tuple(const std::string& kernel, const std::string& name, const Arg& arg, bool no_specialize,
                    bool no_align, ParamSig& sig);

}  // namespace

LaunchError argument_error(const std::string& kernel, const std::string& param,
                           const std::string& message) {
  return kernel_error(kernel, "argument '" + param + "': " + message);
}

void throw_int_overflow(const std::string& kernel, const std::string& param,
                        const std::string& value_text) {
  throw argument_error(kernel, param,
                       "OverflowError: int " + value_text +
                           " is out of range for a kernel argument (it must fit in int64 or "
                           "uint64)");
}

Arg int_arg(__int128 value, const std::string& kernel, const std::string& param) {
  const __int128 min_i64 = -(static_cast<__int128>(1) << 63);
  const __int128 max_u64 = (static_cast<__int128>(1) << 64) - 1;
  if (value < min_i64 || value > max_u64) {
    throw_int_overflow(kernel, param, int128_to_string(value));
  }
  if (value >= (static_cast<__int128>(1) << 63)) {
    return Arg::unsigned_integer(static_cast<uint64_t>(value));
  }
  return Arg::integer(static_cast<int64_t>(value));
}

// DType and ir::ScalarKind are both generated from tritium/dtypes.def, in its order.
ir::ScalarKind to_scalar_kind(DType dtype) { return static_cast<ir::ScalarKind>(dtype); }

DType to_dtype(ir::ScalarKind kind) { return static_cast<DType>(kind); }

ConstValue to_const(const Arg& arg, const std::string& kernel, const std::string& param) {
  switch (arg.kind()) {
    case Arg::Kind::None:
      return ConstValue::none();
    case Arg::Kind::Bool:
      return ConstValue::boolean(arg.bool_value());
    case Arg::Kind::Int:
      return ConstValue::integer(arg.is_unsigned() ? static_cast<__int128>(arg.uint_value())
                                                   : static_cast<__int128>(arg.int_value()));
    case Arg::Kind::Float:
      return ConstValue::floating(arg.float_value());
    case Arg::Kind::Str:
      return ConstValue::string(arg.str());
    case Arg::Kind::DType:
      return ConstValue::type(to_scalar_kind(arg.dtype_value()));
    case Arg::Kind::Pointer:
      break;
    case Arg::Kind::TensorDescriptor:
      throw argument_error(kernel, param, "a tensor descriptor cannot be a compile-time constant");
    case Arg::Kind::Tuple:
      // (A tuple for a tl.constexpr parameter is folded element by element before this.)
      throw argument_error(kernel, param, "a tuple cannot be a compile-time constant here");
    case Arg::Kind::Function:
      // (A function is classified as one before this.)
      throw argument_error(kernel, param, "a function cannot be a constant value here");
    case Arg::Kind::Object:
      return ConstValue::python_object(arg.object_type(), arg.str(), arg.object_text(), arg.bool_value());
  }
  throw argument_error(kernel, param, "a pointer cannot be a compile-time constant");
}

std::vector<Arg> default_args(const std::string& kernel, const KernelParams& params) {
  std::vector<Arg> out(params.names.size(), Arg::none());
  for (size_t i = 0; i < params.names.size(); ++i) {
    if (i >= params.has_default.size() || !params.has_default[i]) continue;
    if (i < params.default_functions.size() && params.default_functions[i]) {
      // A @jit function default: the kernel's globals (in its cache key) hold its source, so
      // its name identifies it within this kernel.
      const GlobalBinding& f = *params.default_functions[i];
      out[i] = Arg::function(f.function + ":default", params.default_functions[i]);
      continue;
    }
    const ConstValue& v = params.defaults.at(i);
    switch (v.kind) {
      case ConstValue::Kind::None:
        out[i] = Arg::none();
        break;
      case ConstValue::Kind::Bool:
        out[i] = Arg::boolean(v.b);
        break;
      case ConstValue::Kind::Int:
        out[i] = int_arg(v.i, kernel, params.names[i]);
        break;
      case ConstValue::Kind::Float:
        out[i] = Arg::floating(v.f);
        break;
      case ConstValue::Kind::Str:
        out[i] = Arg::string(v.s);
        break;
      case ConstValue::Kind::DType:
        out[i] = Arg::dtype(to_dtype(v.dtype));
        break;
      case ConstValue::Kind::Object:
        out[i] = Arg::python_object(v.object_type(), v.s, v.object_text(), v.object->truth);
        break;
    }
  }
  return out;
}

void bind_args(const std::string& kernel, const KernelParams& params,
               const std::vector<Arg>& defaults, const std::vector<Arg>& args,
               const std::vector<std::pair<std::string, Arg>>& named, BoundArgs* out) {
  const size_t n = params.names.size();
  if (args.size() > n) {
    throw kernel_error(kernel, "takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                                   " but " + std::to_string(args.size()) + " were given");
  }
  if (args.size() > params.num_positional) {
    const size_t p = params.num_positional;
    throw kernel_error(kernel, "takes " + std::to_string(p) + " positional argument" + (p == 1 ? "" : "s") +
                                   " but " + std::to_string(args.size()) + " were given (parameter '" +
                                   params.names[p] + "' and those after it are keyword-only)");
  }
  out->assign(n, BoundArg{});
  for (size_t i = 0; i < args.size(); ++i) {
    (*out)[i] = BoundArg{&args[i], BoundArg::From::Positional, static_cast<int>(i)};
  }
  for (size_t k = 0; k < named.size(); ++k) {
    const std::string& name = named[k].first;
    size_t index = n;
    for (size_t i = 0; i < n; ++i) {
      if (params.names[i] == name) {
        index = i;
        break;
      }
    }
    if (index == n) {
      throw kernel_error(kernel, "keyword argument '" + name +
                                     "' was specified but is not a parameter of the kernel");
    }
    if ((*out)[index].arg != nullptr) {
      throw argument_error(kernel, name,
                           "given more than once (positionally and by name, or "
                           "twice by name)");
    }
    (*out)[index] = BoundArg{&named[k].second, BoundArg::From::Named, static_cast<int>(k)};
  }
  for (size_t i = 0; i < n; ++i) {
    if ((*out)[i].arg != nullptr) continue;
    if (i < params.has_default.size() && params.has_default[i]) {
      (*out)[i] = BoundArg{&defaults.at(i), BoundArg::From::Default, static_cast<int>(i)};
      continue;
    }
    throw argument_error(kernel, params.names[i],
                         "missing (parameter " + std::to_string(i + 1) + " of " +
                             std::to_string(n) + ", and it has no default)");
  }
}

namespace {

// A @jit function argument: a compile-time value wherever it is passed (Triton specializes
// a JITFunction as a constexpr keyed by its cache key).
void function_sig(const Arg& arg, bool is_constexpr, ParamSig& sig) {
  sig.kind = ParamSig::Kind::Function;
  sig.function_key = arg.str();
  sig.function = arg.function_binding();
  sig.is_constexpr = is_constexpr;
}

// A named tuple's type and field names (cleared for a plain tuple: `sig` may be reused).
void tuple_names(const Arg& arg, ParamSig& sig) {
  const std::vector<std::string>& fields = arg.fields();
  if (fields.empty()) {
    sig.tuple_type.clear();
    sig.fields.clear();
  } else {
    sig.tuple_type = arg.str();
    sig.fields = fields;
  }
}

// A tuple passed to a tl.constexpr parameter: every element (nested tuples too) folded as
// a constexpr; pointers and descriptors cannot be constants.
void constexpr_tuple(const std::string& kernel, const std::string& name, const Arg& arg, ParamSig& sig) {
  sig.kind = ParamSig::Kind::Tuple;
  tuple_names(arg, sig);
  const std::vector<Arg>& items = arg.items();
  sig.elements.assign(items.size(), ParamSig{});
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string element = name + "[" + std::to_string(i) + "]";
    ParamSig& out = sig.elements[i];
    if (items[i].kind() == Arg::Kind::Tuple) {
      constexpr_tuple(kernel, element, items[i], out);
      continue;
    }
    if (items[i].kind() == Arg::Kind::Function) {
      function_sig(items[i], false, out);
      continue;
    }
    if (items[i].kind() == Arg::Kind::Pointer || items[i].kind() == Arg::Kind::TensorDescriptor) {
      throw argument_error(kernel, element, std::string("a ") + kind_name(items[i].kind()) +
                                                " in a tuple passed to a tl.constexpr parameter cannot be a compile-time constant");
    }
    out.kind = ParamSig::Kind::Constant;
    out.value = to_const(items[i], kernel, element);
    out.is_constexpr = true;
  }
}

// classify() into an existing ParamSig (the hot path reuses one signature per thread). The
// constant value is only written for constants: equality and hashing read it only then.
void classify_into(const std::string& kernel, const KernelParams& params, size_t index,
                   const Arg& arg, ParamSig& sig) {
  const std::string& name = params.names[index];
  sig.kind = ParamSig::Kind::Scalar;
  sig.dtype = ir::ScalarKind::I32;
  sig.divisibility = 1;
  sig.is_constexpr = false;

  if (arg.kind() == Arg::Kind::Function) {
    function_sig(arg, index < params.is_constexpr.size() && params.is_constexpr[index], sig);
    return;
  }
  if (index < params.is_constexpr.size() && params.is_constexpr[index]) {
    if (arg.kind() == Arg::Kind::Pointer || arg.kind() == Arg::Kind::TensorDescriptor) {
      throw argument_error(kernel, name,
                           std::string("unsupported type: a ") +
                               (arg.kind() == Arg::Kind::Pointer ? "pointer" : "tensor descriptor") +
                               " cannot be passed to a tl.constexpr parameter");
    }
    if (arg.kind() == Arg::Kind::Tuple) {
      // A tuple given to a tl.constexpr parameter (Triton's `shape: tl.constexpr` taking
      // (8, 8)): a tuple whose every element is a compile-time constant.
      constexpr_tuple(kernel, name, arg, sig);
      return;
    }
    sig.kind = ParamSig::Kind::Constant;
    sig.value = to_const(arg, kernel, name);
    sig.is_constexpr = true;
    return;
  }

  const bool no_specialize = contains(params.do_not_specialize, index);
  const bool no_align = no_specialize || contains(params.do_not_specialize_on_alignment, index);

  if (arg.kind() == Arg::Kind::Tuple) {
    classify_tuple(kernel, name, arg, no_specialize, no_align, sig);
    return;
  }
  if (arg.kind() == Arg::Kind::None) {
    sig.kind = ParamSig::Kind::Constant;
    sig.value = ConstValue::none();
    return;
  }

  // A dtype annotation forces the type; ints keep their divisibility, nothing is folded.
  if (index < params.has_annotated_dtype.size() && params.has_annotated_dtype[index]) {
    ir::ScalarKind forced = params.annotated_dtype.at(index);
    switch (arg.kind()) {
      case Arg::Kind::Int:
      case Arg::Kind::Bool:
      case Arg::Kind::Float:
        sig.kind = ParamSig::Kind::Scalar;
        sig.dtype = forced;
        if (arg.kind() == Arg::Kind::Int && ir::is_integer(forced) &&
            forced != ir::ScalarKind::I1 && !no_align && int_divisible_by_16(arg)) {
          sig.divisibility = 16;
        }
        return;
      default:
        throw argument_error(kernel, name,
                             std::string("unsupported type: a ") + kind_name(arg.kind()) +
                                 " cannot be passed to a parameter annotated " +
                                 ir::scalar_name(forced));
    }
  }

  classify_value(kernel, name, arg, no_specialize, no_align, sig);
}

void classify_value(const std::string& kernel, const std::string& name, const Arg& arg, bool no_specialize,
                    bool no_align, ParamSig& sig) {
  switch (arg.kind()) {
    case Arg::Kind::None:
      sig.kind = ParamSig::Kind::Constant;
      sig.value = ConstValue::none();
      return;
    case Arg::Kind::Tuple:
      classify_tuple(kernel, name, arg, no_specialize, no_align, sig);
      return;
    case Arg::Kind::Bool:
      // Before ints: a bool is never folded and never divisible (pitfall 1).
      sig.kind = ParamSig::Kind::Scalar;
      sig.dtype = ir::ScalarKind::I1;
      return;
    case Arg::Kind::Int: {
      if (!no_specialize && int_equals_one(arg)) {
        sig.kind = ParamSig::Kind::Constant;
        sig.value = ConstValue::integer(1);
        return;
      }
      sig.kind = ParamSig::Kind::Scalar;
      if (arg.is_unsigned() && arg.uint_value() >= (uint64_t{1} << 63)) {
        sig.dtype = ir::ScalarKind::U64;
      } else {
        int64_t v = arg.int_value();  // an unsigned value below 2^63 reads the same
        sig.dtype = v >= INT32_MIN && v <= INT32_MAX ? ir::ScalarKind::I32 : ir::ScalarKind::I64;
      }
      if (!no_align && int_divisible_by_16(arg)) sig.divisibility = 16;
      return;
    }
    case Arg::Kind::Float:
      sig.kind = ParamSig::Kind::Scalar;
      sig.dtype = ir::ScalarKind::F32;
      return;
    case Arg::Kind::Pointer:
      sig.kind = ParamSig::Kind::Pointer;
      sig.dtype = to_scalar_kind(arg.element());
      if (!no_align && arg.address() % 16 == 0) sig.divisibility = 16;
      return;
    case Arg::Kind::DType:
      // A dtype object is a compile-time value wherever it is passed (Triton: constexpr).
      sig.kind = ParamSig::Kind::Constant;
      sig.value = ConstValue::type(to_scalar_kind(arg.dtype_value()));
      return;
    case Arg::Kind::Str:
      throw argument_error(kernel, name,
                           "unsupported type: a str can only be passed to a tl.constexpr "
                           "parameter");
    case Arg::Kind::TensorDescriptor:
      classify_descriptor(kernel, name, arg, sig);
      return;
    case Arg::Kind::Function:
      function_sig(arg, false, sig);
      return;
    case Arg::Kind::Object:
      // Triton's specializer takes any other object only as a constexpr (TypeError else).
      throw ArgumentTypeError("kernel '" + kernel + "': argument '" + name + "': unsupported type '" +
                              arg.object_type() +
                              "' (expected an array or tensor, an int, float, bool, None, str, or a tl dtype; "
                              "other objects only for a tl.constexpr parameter)");
  }
}

// A tuple argument: each element as a parameter would be (the parameter's
// do_not_specialize options apply to all), a tl.constexpr element folded as a constexpr.
void classify_tuple(const std::string& kernel, const std::string& name, const Arg& arg, bool no_specialize,
                    bool no_align, ParamSig& sig) {
  sig.kind = ParamSig::Kind::Tuple;
  tuple_names(arg, sig);
  const std::vector<Arg>& items = arg.items();
  sig.elements.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Arg& item = items[i];
    const std::string element = name + "[" + std::to_string(i) + "]";
    ParamSig& out = sig.elements[i];
    out = ParamSig{};
    if (item.kind() == Arg::Kind::TensorDescriptor) {
      throw argument_error(kernel, element, "a tensor descriptor in a tuple argument is not supported by tritium yet");
    }
    if (item.kind() == Arg::Kind::Function) {
      function_sig(item, false, out);
      continue;
    }
    if (item.is_constexpr()) {
      if (item.kind() == Arg::Kind::Pointer || item.kind() == Arg::Kind::Tuple) {
        throw argument_error(kernel, element, std::string("a tl.constexpr holding a ") + kind_name(item.kind()) +
                                                  " cannot be a compile-time constant");
      }
      out.kind = ParamSig::Kind::Constant;
      out.value = to_const(item, kernel, element);
      out.is_constexpr = true;
      continue;
    }
    if (item.kind() == Arg::Kind::Str) {
      // Triton treats a string as a constexpr wherever it is passed.
      out.kind = ParamSig::Kind::Constant;
      out.value = ConstValue::string(item.str());
      out.is_constexpr = true;
      continue;
    }
    classify_value(kernel, element, item, no_specialize, no_align, out);
  }
}

void classify_descriptor(const std::string& kernel, const std::string& name, const Arg& arg, ParamSig& sig) {
  const Arg::Descriptor& d = *arg.descriptor();
  auto fail = [&](const std::string& message) { throw argument_error(kernel, name, "TensorDescriptor: " + message); };
  if (!d.base_is_pointer) fail("its base must be an array or tensor");
  const size_t rank = d.shape.size();
  if (d.strides.size() != rank || d.block_shape.size() != rank) {
    fail("rank mismatch: shape has " + std::to_string(rank) + " dimensions, strides " +
         std::to_string(d.strides.size()) + ", block_shape " + std::to_string(d.block_shape.size()));
  }
  if (rank == 0) fail("rank must not be zero");
  if (rank > 5) fail("rank cannot be more than 5");
  if (arg.address() % 16 != 0) fail("base must be 16-byte aligned");
  __int128 numel = 1;  // at most 2^20 * 2^62 before the check stops it
  for (size_t i = 0; i < rank; ++i) {
    int64_t b = d.block_shape[i];
    if (b <= 0 || (b & (b - 1)) != 0) fail("Shape element " + std::to_string(i) + " must be a power of 2");
    numel *= b;
    if (numel > (1 << 20)) {
      fail("numel (" + int128_to_string(numel) + ") exceeds triton maximum tensor numel (1048576)");
    }
  }
  const ir::ScalarKind element = to_scalar_kind(arg.element());
  const int64_t elem_bytes = std::max(1, ir::bit_width(element) / 8);
  for (size_t i = 0; i + 1 < rank; ++i) {
    if ((d.strides[i] * elem_bytes) % 16 != 0) {
      fail("strides must be 16-byte aligned (strides[" + std::to_string(i) + "] = " + std::to_string(d.strides[i]) +
           " elements of " + std::to_string(elem_bytes) + " bytes)");
    }
  }
  if (d.strides[rank - 1] != 1) {
    fail("Last dimension must be contiguous (strides[-1] = " + std::to_string(d.strides[rank - 1]) + ")");
  }
  for (size_t i = 0; i < rank; ++i) {
    if (d.shape[i] < INT32_MIN || d.shape[i] > INT32_MAX) {
      fail("shape[" + std::to_string(i) + "] = " + std::to_string(d.shape[i]) + " does not fit in int32");
    }
  }
  sig.kind = ParamSig::Kind::Descriptor;
  sig.dtype = element;
  sig.block_shape.assign(d.block_shape.begin(), d.block_shape.end());
  sig.padding_nan = d.padding_nan;
  sig.shape_divisibility.resize(rank);  // (`sig` may be a reused buffer: assign, never append)
  for (size_t i = 0; i < rank; ++i) sig.shape_divisibility[i] = d.shape[i] % 16 == 0 ? 16 : 1;
}

}  // namespace

namespace {

const Arg* find_leaf(const Arg& arg, int& remaining) {
  for (const Arg& item : arg.items()) {
    if (item.kind() == Arg::Kind::Tuple) {
      if (const Arg* found = find_leaf(item, remaining)) return found;
    } else if (remaining-- == 0) {
      return &item;
    }
  }
  return nullptr;
}

}  // namespace

const Arg& tuple_leaf(const Arg& arg, int index) {
  if (arg.kind() != Arg::Kind::Tuple) return arg;
  int remaining = index;
  const Arg* leaf = find_leaf(arg, remaining);
  if (leaf == nullptr) throw LaunchError("internal: tuple element " + std::to_string(index) + " out of range");
  return *leaf;
}

ParamSig classify(const std::string& kernel, const KernelParams& params, size_t index,
                  const Arg& arg) {
  ParamSig sig;
  classify_into(kernel, params, index, arg, sig);
  return sig;
}

void specialize(const std::string& kernel, const KernelParams& params, const BoundArgs& bound,
                Signature* out) {
  out->params.resize(bound.size());
  for (size_t i = 0; i < bound.size(); ++i) {
    classify_into(kernel, params, i, *bound[i].arg, out->params[i]);
  }
}

}  // namespace tritium::runtime
