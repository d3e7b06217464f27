// The public Arg factories (include/tritium/tritium.h): one kernel argument as a Python
// caller could pass it.
#include "tritium/tritium.h"

namespace tritium {

Arg Arg::pointer(const void* address, DType element, size_t bytes) {
  Arg a;
  a.kind_ = Kind::Pointer;
  a.address_ = reinterpret_cast<uint64_t>(address);
  a.dtype_ = element;
  a.bytes_ = bytes;
  return a;
}

Arg Arg::as_read_only() const {
  Arg a = *this;
  a.read_only_ = true;
  return a;
}

Arg Arg::with_bytes_before(size_t before) const {
  Arg a = *this;
  a.bytes_before_ = before <= address_ ? before : 0;
  return a;
}

Arg Arg::device_pointer(const void* address, DType element, size_t bytes, int device) {
  Arg a = pointer(address, element, bytes);
  a.on_device_ = true;
  a.device_ = device < 0 ? -1 : device;
  return a;
}

Arg Arg::tensor_descriptor(const Arg& base, std::vector<int64_t> shape, std::vector<int64_t> strides,
                           std::vector<int64_t> block_shape, bool padding_nan) {
  Arg a = base.kind_ == Kind::Pointer ? base : Arg();
  a.kind_ = Kind::TensorDescriptor;
  auto d = std::make_shared<Descriptor>();
  d->base_is_pointer = base.kind_ == Kind::Pointer;
  d->shape = std::move(shape);
  d->strides = std::move(strides);
  d->block_shape = std::move(block_shape);
  d->padding_nan = padding_nan;
  a.descriptor_ = std::move(d);
  return a;
}

Arg Arg::tuple(std::vector<Arg> items) {
  Arg a;
  a.kind_ = Kind::Tuple;
  a.items_ = std::make_shared<const std::vector<Arg>>(std::move(items));
  return a;
}

Arg Arg::named_tuple(std::string type_name, std::vector<std::string> fields, std::vector<Arg> items) {
  Arg a = tuple(std::move(items));
  a.str_ = std::move(type_name);
  a.fields_ = std::make_shared<const std::vector<std::string>>(std::move(fields));
  return a;
}

Arg Arg::function(std::string key, std::shared_ptr<const GlobalBinding> binding) {
  Arg a;
  a.kind_ = Kind::Function;
  a.str_ = std::move(key);
  a.function_ = std::move(binding);
  return a;
}

Arg Arg::python_object(std::string type_name, std::string repr, std::string text, bool truth) {
  Arg a;
  a.kind_ = Kind::Object;
  a.str_ = std::move(repr);
  a.fields_ = std::make_shared<const std::vector<std::string>>(std::vector<std::string>{std::move(type_name), std::move(text)});
  a.bits_ = truth ? 1 : 0;
  return a;
}

const std::string& Arg::object_type() const {
  static const std::string empty;
  return kind_ == Kind::Object ? (*fields_)[0] : empty;
}

const std::string& Arg::object_text() const {
  static const std::string empty;
  return kind_ == Kind::Object ? (*fields_)[1] : empty;
}

const std::vector<std::string>& Arg::fields() const {
  static const std::vector<std::string> empty;
  return fields_ && kind_ == Kind::Tuple ? *fields_ : empty;
}

Arg Arg::as_constexpr() const {
  Arg a = *this;
  a.constexpr_ = true;
  return a;
}

const std::vector<Arg>& Arg::items() const {
  static const std::vector<Arg> empty;
  return items_ ? *items_ : empty;
}

Arg Arg::integer(int64_t value) {
  Arg a;
  a.kind_ = Kind::Int;
  a.bits_ = static_cast<uint64_t>(value);
  return a;
}

Arg Arg::unsigned_integer(uint64_t value) {
  Arg a;
  a.kind_ = Kind::Int;
  a.bits_ = value;
  a.unsigned_ = true;
  return a;
}

Arg Arg::floating(double value) {
  Arg a;
  a.kind_ = Kind::Float;
  a.float_ = value;
  return a;
}

Arg Arg::boolean(bool value) {
  Arg a;
  a.kind_ = Kind::Bool;
  a.bits_ = value ? 1 : 0;
  return a;
}

Arg Arg::none() { return Arg(); }

Arg Arg::string(std::string value) {
  Arg a;
  a.kind_ = Kind::Str;
  a.str_ = std::move(value);
  return a;
}

Arg Arg::dtype(DType value) {
  Arg a;
  a.kind_ = Kind::DType;
  a.dtype_ = value;
  return a;
}

}  // namespace tritium
