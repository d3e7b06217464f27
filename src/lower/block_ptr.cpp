// Block pointers and tensor descriptors, lowered to pointer tensors and masks (block_ptr.h).
// For a block of shape [B0, B1] at offsets (o0, o1) of a tensor with strides (s0, s1):
//   ptr  = base + ((o0 + arange(0, B0))[:, None] * s0 + (o1 + arange(0, B1))[None, :] * s1)
//   mask = for each checked dim d: 0 <= o_d + arange(0, B_d) < shape_d
// in i64, as Triton's rewrite passes build them, so the axis analysis sees the usual
// make_range/addptr chains and a stride of 1 gives contiguous (vectorizable) accesses.
#include "lower/block_ptr.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

// A Python sequence argument, or one value standing for a sequence of one.
std::vector<LValue> as_list(const LValue& v) {
  if (v.kind == LValue::Kind::Tuple) return v.items;
  return {v};
}

bool const_int(const LValue& v, __int128* out) {
  if (!v.is_const()) return false;
  if (v.c.kind == ConstValue::Kind::Int) { *out = v.c.i; return true; }
  if (v.c.kind == ConstValue::Kind::Bool) { *out = v.c.b ? 1 : 0; return true; }
  return false;
}

std::string py_list(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

// One entry of shape/strides/offsets as an i64 scalar (Triton's _convert_elem_to_ir_value):
// shape and strides may be 64-bit, offsets must fit in 32 bits and are sign-extended.
Value* index_value(Lowerer& L, const LValue& elem, bool wide, const Loc& loc) {
  __int128 c;
  if (const_int(elem, &c)) {
    if (wide && (c < -(static_cast<__int128>(1) << 63) || c >= (static_cast<__int128>(1) << 63))) {
      error_at(loc, "Block pointers only support 64 bit `shape/strides`, got a value " + int128_to_string(c) +
                        " which is out of the range");
    }
    if (!wide && (c < -(static_cast<__int128>(1) << 31) || c >= (static_cast<__int128>(1) << 31))) {
      error_at(loc, "Block pointers only support 32 bit `offsets/block_shape`, got a value " + int128_to_string(c) +
                        " which is out of the range");
    }
    return L.constant(ScalarKind::I64, ConstValue::integer(c), loc);
  }
  if (!elem.is_tensor()) error_at(loc, "Unsupported element type in shape/strides/offsets: " + elem.describe());
  Value* v = elem.value;
  if (v->type()->is_block()) error_at(loc, "Expected a scalar in shape/strides/offsets, got " + v->type()->str());
  if (v->type()->is_ptr() || !ir::is_integer(v->type()->scalar_kind())) {
    error_at(loc, "Expected an integer scalar type in shape/strides/offsets, got " + v->type()->str());
  }
  ScalarKind k = v->type()->scalar_kind();
  if (wide) return L.cast(v, ScalarKind::I64, loc);
  if (k == ScalarKind::I64 || k == ScalarKind::U64) {
    error_at(loc, "Block pointers only support 32 bit `offsets/block_shape`, add a `.to(tl.int32)` or use regular "
                  "indexing for 64 bit support");
  }
  return L.cast(L.cast(v, ScalarKind::I32, loc), ScalarKind::I64, loc);
}

std::vector<LValue> index_values(Lowerer& L, const LValue& list, bool wide, const Loc& loc) {
  std::vector<LValue> out;
  for (const LValue& e : as_list(list)) out.push_back(LValue::tensor(index_value(L, e, wide, loc)));
  return out;
}

// A block shape: compile-time ints the block can have (powers of two, as tl.arange needs).
std::vector<int64_t> block_shape_of(const LValue& list, const std::string& fn, const Loc& loc) {
  std::vector<int64_t> dims;
  int64_t numel = 1;
  for (const LValue& e : as_list(list)) {
    __int128 c;
    if (!const_int(e, &c) || c < -(static_cast<__int128>(1) << 31) || c >= (static_cast<__int128>(1) << 31)) {
      error_at(loc, "Expected a list of constant integers (`int32_t` range) in `block_shape`, got " + e.describe());
    }
    if (c <= 0 || (c & (c - 1)) != 0) {
      error_at(loc, "the block_shape of " + fn + " must hold powers of two, got " + int128_to_string(c));
    }
    dims.push_back(static_cast<int64_t>(c));
    numel *= static_cast<int64_t>(c);
    if (numel > (1 << 20)) error_at(loc, "numel (" + std::to_string(numel) + ") exceeds triton maximum tensor numel (1048576)");
  }
  if (dims.empty()) error_at(loc, fn + " needs a block_shape of at least one dimension");
  return dims;
}

LValue int_tuple(const std::vector<int64_t>& v) {
  std::vector<LValue> items;
  for (int64_t x : v) items.push_back(LValue::constant(ConstValue::integer(x)));
  return LValue::tuple(std::move(items));
}

std::vector<int64_t> ints_of(const LValue& tuple) {
  std::vector<int64_t> out;
  for (const LValue& e : tuple.items) out.push_back(static_cast<int64_t>(e.c.i));
  return out;
}

// The pieces both kinds of descriptor lower to: base pointer, per-dim i64 offsets, strides,
// bounds and the block shape.
struct Access {
  Value* base;
  std::vector<Value*> offsets;  // i64 scalars
  std::vector<Value*> strides;  // i64 scalars
  std::vector<Value*> bounds;   // shape entries (i64 or i32 scalars)
  std::vector<int64_t> block;
};

class AccessBuilder {
 public:
  AccessBuilder(Lowerer& L, const Access& a, const Loc& loc) : L_(L), a_(a), loc_(loc), ranges_(a.block.size()) {}

  // offsets[d] + arange(0, block[d]) in i64, expanded to rank r with 1 in every other dim.
  Value* range(size_t d) {
    if (ranges_[d]) return ranges_[d];
    LValue r = L_.call_builtin(LValue::builtin("tl.arange"),
                               {LValue::constant(ConstValue::integer(0)), LValue::constant(ConstValue::integer(a_.block[d]))},
                               {}, loc_);
    Value* v = L_.add(LValue::tensor(a_.offsets[d]), LValue::tensor(L_.cast(r.value, ScalarKind::I64, loc_)), loc_);
    for (size_t j = 0; j < a_.block.size(); ++j) {
      if (j == d) continue;
      std::vector<int64_t> shape = v->type()->shape();
      shape.insert(shape.begin() + static_cast<long>(j), 1);
      ir::Op* op = L_.builder().create(ir::OpKind::ExpandDims, {Type::block(v->type()->element(), shape)}, {v}, loc_);
      op->set_attr("axis", static_cast<int64_t>(j));
      v = op->result();
    }
    return ranges_[d] = v;
  }

  Value* pointers() {
    LValue ptr = LValue::tensor(a_.base);
    for (size_t d = 0; d < a_.block.size(); ++d) {
      Value* term = L_.arith(ir::OpKind::Mul, LValue::tensor(range(d)), LValue::tensor(a_.strides[d]), loc_);
      ptr = LValue::tensor(L_.add(ptr, LValue::tensor(term), loc_));
    }
    return L_.broadcast_to(ptr.value, a_.block, loc_);
  }

  // Null when no dimension is checked.
  Value* mask(const std::vector<int64_t>& dims) {
    Value* mask = nullptr;
    for (int64_t d : dims) {
      LValue r = LValue::tensor(range(static_cast<size_t>(d)));
      Value* lo = L_.cmp(ir::CmpPredicate::Ge, r, LValue::constant(ConstValue::integer(0)), loc_);
      Value* bound = L_.cast(a_.bounds[static_cast<size_t>(d)], ScalarKind::I64, loc_);
      Value* hi = L_.cmp(ir::CmpPredicate::Lt, r, LValue::tensor(bound), loc_);
      Value* m = L_.logical(ir::OpKind::And, LValue::tensor(lo), LValue::tensor(hi), loc_);
      mask = mask ? L_.logical(ir::OpKind::And, LValue::tensor(mask), LValue::tensor(m), loc_) : m;
    }
    return mask ? L_.broadcast_to(mask, a_.block, loc_) : nullptr;
  }

 private:
  Lowerer& L_;
  const Access& a_;
  Loc loc_;
  std::vector<Value*> ranges_;
};

Access block_ptr_access(const LValue& bp) {
  Access a;
  a.base = bp.items[kBpBase].value;
  for (const LValue& v : bp.items[kBpShape].items) a.bounds.push_back(v.value);
  for (const LValue& v : bp.items[kBpStrides].items) a.strides.push_back(v.value);
  for (const LValue& v : bp.items[kBpOffsets].items) a.offsets.push_back(v.value);
  a.block = ints_of(bp.items[kBpBlockShape]);
  return a;
}

bool is_block_ptr(const LValue& v) { return v.kind == LValue::Kind::Aggregate && v.name == "block_ptr"; }
bool is_descriptor(const LValue& v) { return v.kind == LValue::Kind::Aggregate && v.name == "tensor_descriptor"; }

ScalarKind element_kind(Value* base) { return base->type()->element()->pointee()->scalar_kind(); }

// Triton's _canonicalize_boundary_check: dims sorted, each in range, none twice.
std::vector<int64_t> boundary_dims(const BuiltinArgs& a, size_t rank, const Loc& loc) {
  std::vector<int64_t> dims;
  if (!a.has("boundary_check")) return dims;
  for (const LValue& e : as_list(a.get("boundary_check"))) {
    __int128 c;
    if (!const_int(e, &c)) error_at(loc, "boundary_check needs compile-time integer dimensions, got " + e.describe());
    if (c < 0 || c >= static_cast<__int128>(rank)) {
      error_at(loc, "boundary_check dimension " + int128_to_string(c) + " is out of range for a block pointer of rank " +
                        std::to_string(rank));
    }
    dims.push_back(static_cast<int64_t>(c));
  }
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end()) error_at(loc, "Duplicate dimension in `boundary_check`");
  return dims;
}

// The padding_option argument; nullopt for "" (none given).
std::optional<ir::Padding> padding_of(const LValue& v, const Loc& loc) {
  if (!v.is_const() || v.c.kind != ConstValue::Kind::Str) error_at(loc, "padding_option must be a string, got " + v.describe());
  if (v.c.s.empty()) return std::nullopt;
  std::optional<ir::Padding> padding = ir::parse_enum<ir::Padding>(v.c.s);
  if (!padding) error_at(loc, "Padding option " + v.c.s + " not supported");
  return padding;
}

LValue padding_value(ir::Padding padding) {
  return padding == ir::Padding::Nan ? LValue::constant(ConstValue::floating(std::nan("")))
                                     : LValue::constant(ConstValue::integer(0));
}

// ---- block pointers ----

LValue make_block_ptr(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  std::vector<LValue> shape = index_values(L, a.get("shape"), true, loc);
  std::vector<LValue> strides = index_values(L, a.get("strides"), true, loc);
  std::vector<LValue> offsets = index_values(L, a.get("offsets"), false, loc);
  const LValue& b = a.get("base");
  if (!b.is_tensor() || b.value->type()->is_block() || !b.value->type()->is_ptr()) {
    error_at(loc, "Expected `base` to be a pointer type (but not a block pointer type or others), got " + b.describe());
  }
  Value* base = b.value;
  if (element_kind(base) == ScalarKind::I1) base = L.cast(base, Type::pointer(Type::scalar(ScalarKind::I8)), loc);
  std::vector<int64_t> block = block_shape_of(a.get("block_shape"), "tl.make_block_ptr", loc);
  std::vector<int64_t> order;
  for (const LValue& e : as_list(a.get("order"))) {
    __int128 c;
    if (!const_int(e, &c)) error_at(loc, "Expected a permutation of (0, 1, ..., len(order)-1) in order, got " + e.describe());
    order.push_back(static_cast<int64_t>(c));
  }
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) error_at(loc, "Expected a permutation of (0, 1, ..., len(order)-1) in order");
  }
  for (size_t n : {shape.size(), strides.size(), offsets.size(), order.size()}) {
    if (n != block.size()) error_at(loc, "Expected shape/strides/offsets/block_shape to have the same length");
  }
  std::vector<LValue> fields(kBpNumFields);
  fields[kBpBase] = LValue::tensor(base);
  fields[kBpShape] = LValue::tuple(std::move(shape));
  fields[kBpStrides] = LValue::tuple(std::move(strides));
  fields[kBpOffsets] = LValue::tuple(std::move(offsets));
  fields[kBpBlockShape] = int_tuple(block);
  fields[kBpOrder] = int_tuple(order);
  return LValue::aggregate("block_ptr", std::move(fields));
}

LValue advance(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  LValue bp = a.get("base");
  if (!is_block_ptr(bp)) error_at(loc, "tl.advance needs a block pointer made by tl.make_block_ptr, got " + bp.describe());
  std::vector<LValue> deltas = index_values(L, a.get("offsets"), false, loc);
  LValue& offsets = bp.items[kBpOffsets];
  if (deltas.size() != offsets.items.size()) {
    error_at(loc, "tl.advance got " + std::to_string(deltas.size()) + " offsets for a block pointer of rank " +
                      std::to_string(offsets.items.size()));
  }
  std::vector<LValue> given = as_list(a.get("offsets"));
  for (size_t i = 0; i < deltas.size(); ++i) {
    // A compile-time 0 leaves the offset as it is, so a loop does not carry it.
    __int128 c;
    if (const_int(given[i], &c) && c == 0) continue;
    offsets.items[i] = LValue::tensor(L.add(offsets.items[i], deltas[i], loc));
  }
  return bp;
}

LValue load_block_ptr(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& bp = a.get("pointer");
  std::optional<ir::Padding> padding;
  if (a.has("padding_option")) padding = padding_of(a.get("padding_option"), loc);
  if (a.has("mask") || a.has("other")) error_at(loc, "`mask` and `other` arguments cannot be specified for loading block pointers");
  Access access = block_ptr_access(bp);
  ScalarKind k = element_kind(access.base);
  if (padding.value_or(ir::Padding::Zero) == ir::Padding::Nan && !ir::is_float(k)) {
    error_at(loc, "Padding option `nan` is not supported for integer block pointers");
  }
  std::vector<int64_t> dims = boundary_dims(a, access.block.size(), loc);
  AccessBuilder builder(L, access, loc);
  Value* ptr = builder.pointers();
  Value* mask = builder.mask(dims);
  std::vector<LValue> load_args = {LValue::tensor(ptr)};
  if (mask) {
    load_args.push_back(LValue::tensor(mask));
    // No padding: the masked-off lanes are undefined in Triton (0 in the interpreter).
    if (padding) load_args.push_back(padding_value(*padding));
  }
  std::vector<std::pair<std::string, LValue>> pass;
  for (const char* name : {"cache_modifier", "eviction_policy", "volatile"}) {
    if (a.has(name)) pass.emplace_back(name, a.get(name));
  }
  return L.call_builtin(LValue::builtin("tl.load"), std::move(load_args), std::move(pass), loc);
}

LValue store_block_ptr(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& bp = a.get("pointer");
  Value* value = L.to_tensor(a.get("value"), loc);
  if (a.has("mask")) error_at(loc, "`mask` and `other` arguments cannot be specified for loading block pointers");
  Access access = block_ptr_access(bp);
  if (!value->type()->is_block()) value = L.broadcast_to(value, access.block, loc);
  if (value->type()->shape() != access.block) {
    error_at(loc, "Block shape(" + py_list(access.block) + ") and value shape(" + py_list(value->type()->shape()) + ") mismatch");
  }
  ScalarKind k = element_kind(access.base);
  ScalarKind vk = value->type()->element()->is_pointer() ? ScalarKind::I64 : value->type()->element()->scalar_kind();
  if (value->type()->element()->is_pointer() || vk != k) {
    error_at(loc, "Block element type(" + ir::triton_dtype_name(k) + ") and value element type(" +
                      (value->type()->element()->is_pointer() ? value->type()->element()->str() : ir::triton_dtype_name(vk)) +
                      ") mismatch");
  }
  std::vector<int64_t> dims = boundary_dims(a, access.block.size(), loc);
  AccessBuilder builder(L, access, loc);
  Value* ptr = builder.pointers();
  Value* mask = builder.mask(dims);
  std::vector<std::pair<std::string, LValue>> pass;
  if (mask) pass.emplace_back("mask", LValue::tensor(mask));
  for (const char* name : {"cache_modifier", "eviction_policy"}) {
    if (a.has(name)) pass.emplace_back(name, a.get(name));
  }
  return L.call_builtin(LValue::builtin("tl.store"), {LValue::tensor(ptr), LValue::tensor(value)}, std::move(pass), loc);
}

// ---- tensor descriptors ----

// The aggregate both kinds of descriptor are: `shape` i32 and `strides` i64 scalars.
LValue descriptor_value(Lowerer& L, Value* base, std::vector<LValue> shape, std::vector<LValue> strides,
                        const std::vector<int64_t>& block, ir::Padding padding, const Loc& loc) {
  if (element_kind(base) == ScalarKind::I1) base = L.cast(base, Type::pointer(Type::scalar(ScalarKind::I8)), loc);
  std::vector<LValue> fields(kDescNumFields);
  fields[kDescBase] = LValue::tensor(base);
  fields[kDescShape] = LValue::tuple(std::move(shape));
  fields[kDescStrides] = LValue::tuple(std::move(strides));
  fields[kDescBlockShape] = int_tuple(block);
  fields[kDescBlockShape].is_list = true;  // a list in Triton (block_type.shape)
  fields[kDescPadding] = LValue::constant(ConstValue::string(ir::enum_text(padding)));
  return LValue::aggregate("tensor_descriptor", std::move(fields));
}

LValue make_descriptor(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  std::vector<LValue> shape = as_list(a.get("shape"));
  std::vector<LValue> strides = as_list(a.get("strides"));
  std::vector<LValue> block_list = as_list(a.get("block_shape"));
  size_t ndim = shape.size();
  if (ndim < 1 || ndim > 5) error_at(loc, "Expected 1 <= ndim <= 5 but got " + std::to_string(ndim) + " dimensions");
  if (strides.size() != ndim) {
    error_at(loc, "Expected " + std::to_string(ndim) + " strides but got " + std::to_string(strides.size()));
  }
  if (block_list.size() != ndim) {
    error_at(loc, "Expected block_shape to have " + std::to_string(ndim) + " dimensions but got " +
                      std::to_string(block_list.size()));
  }
  const LValue& b = a.get("base");
  if (!b.is_tensor() || b.value->type()->is_block() || !b.value->type()->is_ptr()) {
    error_at(loc, "the base of tl.make_tensor_descriptor must be a scalar pointer, got " + b.describe());
  }
  Value* base = b.value;
  ScalarKind k = element_kind(base);
  int elem_size = ir::bit_width(k) / 8;
  __int128 contig = 0;
  const_int(block_list.back(), &contig);
  if (contig * elem_size < 16) {
    error_at(loc, "Descriptor block shape must have at least 16 bytes in the last dimension, but got " +
                      int128_to_string(contig) + " * " + std::to_string(elem_size) + " = " +
                      int128_to_string(contig * elem_size) + " bytes");
  }
  // The last stride must be the constant 1 (an argument equal to 1 is specialized to one).
  const LValue& last = strides.back();
  __int128 last_stride = 0;
  bool known = const_int(last, &last_stride);
  if (!known && last.is_tensor() && last.value->def() && last.value->def()->kind() == ir::OpKind::Constant &&
      last.value->type()->is_int()) {
    const ir::AttrValue* attr = last.value->def()->find_attr("value");
    if (attr && std::holds_alternative<int64_t>(*attr)) {
      known = true;
      last_stride = std::get<int64_t>(*attr);
    }
  }
  if (!known) error_at(loc, "Tensor descriptor last dim must be 1 but got a value not known at compile time (" + last.describe() + ")");
  if (last_stride != 1) error_at(loc, "Tensor descriptor last dim must be 1 but got " + int128_to_string(last_stride));
  std::vector<LValue> shape_values, stride_values;
  for (const LValue& s : shape) {
    if (s.is_tensor() && (s.value->type()->is_block() || s.value->type()->is_ptr() || !ir::is_integer(s.value->type()->scalar_kind()))) {
      error_at(loc, "the shape of a tensor descriptor must hold integer scalars, got " + s.describe());
    }
    shape_values.push_back(LValue::tensor(s.is_tensor() ? L.cast(s.value, ScalarKind::I32, loc)
                                                        : L.constant(ScalarKind::I32, s.c, loc)));
  }
  for (const LValue& s : strides) stride_values.push_back(LValue::tensor(index_value(L, s, true, loc)));
  std::vector<int64_t> block = block_shape_of(a.get("block_shape"), "tl.make_tensor_descriptor", loc);
  ir::Padding padding =
      (a.has("padding_option") ? padding_of(a.get("padding_option"), loc) : std::nullopt).value_or(ir::Padding::Zero);
  if (padding == ir::Padding::Nan && !ir::is_float(k)) error_at(loc, "Padding option `nan` is not supported for integer blocks");
  return descriptor_value(L, base, std::move(shape_values), std::move(stride_values), block, padding, loc);
}

Access descriptor_access(Lowerer& L, const LValue& desc, const LValue& offsets, const Loc& loc) {
  Access a;
  a.base = desc.items[kDescBase].value;
  for (const LValue& v : desc.items[kDescShape].items) a.bounds.push_back(v.value);
  for (const LValue& v : desc.items[kDescStrides].items) a.strides.push_back(v.value);
  a.block = ints_of(desc.items[kDescBlockShape]);
  if (offsets.kind != LValue::Kind::Tuple) {
    error_at(loc, "the offsets of a tensor descriptor access must be a list or tuple, got " + offsets.describe());
  }
  if (offsets.items.size() != a.block.size()) {
    error_at(loc, "expected " + std::to_string(a.block.size()) + " offsets, but got " + std::to_string(offsets.items.size()));
  }
  for (const LValue& o : offsets.items) a.offsets.push_back(index_value(L, o, false, loc));
  return a;
}

std::vector<int64_t> all_dims(size_t rank) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < rank; ++i) dims.push_back(static_cast<int64_t>(i));
  return dims;
}

const LValue& descriptor_arg(const BuiltinArgs& a, const Loc& loc) {
  const LValue& desc = a.get("desc");
  if (!is_descriptor(desc)) error_at(loc, a.fn() + "() needs a tensor descriptor (from tl.make_tensor_descriptor), got " + desc.describe());
  return desc;
}

// A 2-D block of a descriptor made on the host (its base is an entry argument) is marked
// for the GPU, which may copy it (loads) or write it (stores) with the TMA (ir/ops.def:
// descriptor_tile); other blocks keep their pointers.
Value* tile_of_host_descriptor(Lowerer& L, const Access& access, Value* ptr, const Loc& loc) {
  if (access.block.size() != 2 || access.base->def() != nullptr) return ptr;
  std::vector<Value*> operands = {ptr, access.base};
  operands.insert(operands.end(), access.offsets.begin(), access.offsets.end());
  return L.builder().create_value(ir::OpKind::DescriptorTile, ptr->type(), operands, loc);
}

LValue load_descriptor(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& desc = descriptor_arg(a, loc);
  Access access = descriptor_access(L, desc, a.get("offsets"), loc);
  AccessBuilder builder(L, access, loc);
  Value* ptr = tile_of_host_descriptor(L, access, builder.pointers(), loc);
  Value* mask = builder.mask(all_dims(access.block.size()));
  // Out of bounds reads the padding (zero unless padding_option="nan"), as Triton's fallback does.
  ir::Padding padding = ir::parse_enum<ir::Padding>(desc.items[kDescPadding].c.s).value_or(ir::Padding::Zero);
  return L.call_builtin(LValue::builtin("tl.load"), {LValue::tensor(ptr), LValue::tensor(mask), padding_value(padding)},
                        {}, loc);
}

LValue store_descriptor(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& desc = descriptor_arg(a, loc);
  Access access = descriptor_access(L, desc, a.get("offsets"), loc);
  const LValue& v = a.get("value");
  if (!v.is_tensor() || v.value->type()->shape() != access.block) {
    error_at(loc, "the value stored through a tensor descriptor must be a block of shape " + py_list(access.block) +
                      ", got " + v.describe());
  }
  AccessBuilder builder(L, access, loc);
  Value* ptr = tile_of_host_descriptor(L, access, builder.pointers(), loc);
  Value* mask = builder.mask(all_dims(access.block.size()));
  // The value is cast implicitly to the descriptor's element type (tl.store does it).
  return L.call_builtin(LValue::builtin("tl.store"), {LValue::tensor(ptr), v}, {{"mask", LValue::tensor(mask)}}, loc);
}

// desc.atomic_<kind>(offsets, value): an atomic read-modify-write of the block, masked to the
// tensor's bounds, with release semantics at GPU scope (Triton's fallback without TMA).
LValue descriptor_atomic(Lowerer& L, const BuiltinArgs& a, const std::string& kind, const Loc& loc) {
  const LValue& desc = descriptor_arg(a, loc);
  Access access = descriptor_access(L, desc, a.get("offsets"), loc);
  ScalarKind k = element_kind(access.base);
  using S = ScalarKind;
  std::set<S> allowed;
  if (kind == "add") allowed = {S::U32, S::I32, S::U64, S::F32, S::F16, S::BF16};
  if (kind == "min" || kind == "max") allowed = {S::U32, S::I32, S::U64, S::I64, S::F16, S::BF16};
  if (kind == "and" || kind == "or" || kind == "xor") allowed = {S::U32, S::I32, S::U64, S::I64};
  if (!allowed.count(k)) error_at(loc, "Unsupported dtype " + ir::triton_dtype_name(k) + " for a tensor descriptor atomic_" + kind);
  const LValue& v = a.get("value");
  if (!v.is_tensor() || v.value->type()->shape() != access.block) {
    error_at(loc, "the value of a tensor descriptor atomic_" + kind + " must be a block of shape " + py_list(access.block) +
                      ", got " + v.describe());
  }
  if (v.value->type()->element() != Type::scalar(k)) {
    error_at(loc, "the value of a tensor descriptor atomic_" + kind + " must have the descriptor's dtype " +
                      ir::triton_dtype_name(k) + ", got " + v.value->type()->element()->str());
  }
  AccessBuilder builder(L, access, loc);
  Value* ptr = builder.pointers();
  Value* mask = builder.mask(all_dims(access.block.size()));
  if ((kind == "min" || kind == "max") && ir::is_float(k)) {
    // fp16/bf16 (Triton: the TMA's reduction, so sm_90 and newer; the GPU code generator
    // refuses older targets with Triton's "16-bit float types require native tma support").
    // tl.atomic_max/min refuse 16-bit floats on pointers, so the op is made here.
    create_atomic_rmw(L, kind == "max" ? ir::AtomicKind::Max : ir::AtomicKind::Min, ptr, v.value, mask,
                      ir::MemSem::Release, ir::MemScope::Gpu, loc);
    return LValue::constant(ConstValue::none());
  }
  L.call_builtin(LValue::builtin("tl.atomic_" + kind), {LValue::tensor(ptr), v},
                 {{"mask", LValue::tensor(mask)}, {"sem", LValue::constant(ConstValue::string("release"))},
                  {"scope", LValue::constant(ConstValue::string("gpu"))}}, loc);
  return LValue::constant(ConstValue::none());
}

// desc.gather(x_offsets, y_offset) and desc.scatter(value, x_offsets, y_offset): the rows
// x_offsets[i] (a 1-D integer block of at least 8) and the columns y_offset + j of a 2-D
// descriptor whose block is [1, BN], as one [len(x_offsets), BN] block. Rows and columns
// out of bounds read the padding and are not written (Triton: TMA gather4 on Blackwell;
// its rules and messages; here pointer code, as the descriptor loads above).
struct Gathered {
  Value* ptr = nullptr;
  Value* mask = nullptr;
  std::vector<int64_t> shape;
};

Gathered gathered(Lowerer& L, const LValue& desc, const LValue& x_offsets, const LValue& y_offset, const char* what,
                  const Loc& loc) {
  std::vector<int64_t> block = ints_of(desc.items[kDescBlockShape]);
  if (block.size() != 2) error_at(loc, "descriptor must be 2D, but got " + py_list(block));
  if (block[0] != 1) error_at(loc, "descriptor block must have 1 row, but got " + py_list(block));
  if (!x_offsets.is_tensor() || !x_offsets.value->type()->is_block() || x_offsets.value->type()->rank() != 1 ||
      !ir::is_integer(x_offsets.value->type()->element()->scalar_kind())) {
    error_at(loc, "x offsets must be a 1D block of integers, but got " + x_offsets.describe());
  }
  const int64_t rows = x_offsets.value->type()->shape()[0];
  if (rows < 8) error_at(loc, std::string("descriptor ") + what + " must have at least 8 rows, but got [" + std::to_string(rows) + "]");
  Value* base = desc.items[kDescBase].value;
  const ScalarKind k = element_kind(base);
  const int64_t min_cols = 32 / std::max(1, ir::bit_width(k)) * 8;
  if (block[1] < min_cols) {
    error_at(loc, std::string("descriptor ") + what + " of " + ir::triton_dtype_name(k) + " must have at least " +
                      std::to_string(min_cols) + " columns, but got " + std::to_string(block[1]));
  }
  Access a;
  a.base = base;
  for (const LValue& v : desc.items[kDescShape].items) a.bounds.push_back(v.value);
  for (const LValue& v : desc.items[kDescStrides].items) a.strides.push_back(v.value);
  a.block = {1, block[1]};
  a.offsets = {L.constant(ScalarKind::I64, ConstValue::integer(0), loc), index_value(L, y_offset, false, loc)};
  AccessBuilder columns(L, a, loc);
  // Rows: x as i64, times the row stride, as a column; its bounds the same way.
  Value* x = L.cast(x_offsets.value, ScalarKind::I64, loc);
  ir::Op* col = L.builder().create(ir::OpKind::ExpandDims, {Type::block(x->type()->element(), {rows, 1})}, {x}, loc);
  col->set_attr("axis", int64_t{1});
  Value* x2 = col->result();
  Value* row_offsets = L.arith(ir::OpKind::Mul, LValue::tensor(x2), LValue::tensor(a.strides[0]), loc);
  Gathered g;
  g.shape = {rows, block[1]};
  Value* row_ptrs = L.add(LValue::tensor(base), LValue::tensor(row_offsets), loc);  // [rows, 1]
  Value* col_offsets = L.arith(ir::OpKind::Mul, LValue::tensor(columns.range(1)), LValue::tensor(a.strides[1]), loc);
  g.ptr = L.broadcast_to(L.add(LValue::tensor(L.broadcast_to(row_ptrs, g.shape, loc)),
                               LValue::tensor(L.broadcast_to(col_offsets, g.shape, loc)), loc),
                         g.shape, loc);
  Value* lo = L.cmp(ir::CmpPredicate::Ge, LValue::tensor(x2), LValue::constant(ConstValue::integer(0)), loc);
  Value* bound = L.cast(a.bounds[0], ScalarKind::I64, loc);
  Value* hi = L.cmp(ir::CmpPredicate::Lt, LValue::tensor(x2), LValue::tensor(bound), loc);
  Value* row_ok = L.logical(ir::OpKind::And, LValue::tensor(lo), LValue::tensor(hi), loc);
  Value* col_ok = columns.mask({1});
  g.mask = L.logical(ir::OpKind::And, LValue::tensor(L.broadcast_to(row_ok, g.shape, loc)),
                     LValue::tensor(L.broadcast_to(col_ok, g.shape, loc)), loc);
  return g;
}

LValue descriptor_gather(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& desc = descriptor_arg(a, loc);
  Gathered g = gathered(L, desc, a.get("x_offsets"), a.get("y_offset"), "gather", loc);
  ir::Padding padding = ir::parse_enum<ir::Padding>(desc.items[kDescPadding].c.s).value_or(ir::Padding::Zero);
  return L.call_builtin(LValue::builtin("tl.load"), {LValue::tensor(g.ptr), LValue::tensor(g.mask), padding_value(padding)},
                        {}, loc);
}

LValue descriptor_scatter(Lowerer& L, const BuiltinArgs& a, const Loc& loc) {
  const LValue& desc = descriptor_arg(a, loc);
  Gathered g = gathered(L, desc, a.get("x_offsets"), a.get("y_offset"), "scatter", loc);
  const LValue& v = a.get("value");
  if (!v.is_tensor() || v.value->type()->shape() != g.shape) {
    error_at(loc, "the value scattered through a tensor descriptor must be a block of shape " + py_list(g.shape) +
                      ", got " + v.describe());
  }
  L.call_builtin(LValue::builtin("tl.store"), {LValue::tensor(g.ptr), v}, {{"mask", LValue::tensor(g.mask)}}, loc);
  return LValue::constant(ConstValue::none());
}

bool given(const BuiltinArgs& a, const char* name) {
  if (!a.has(name)) return false;
  const LValue& v = a.get(name);
  if (v.kind == LValue::Kind::Tuple) return !v.items.empty();
  if (v.is_const() && v.c.kind == ConstValue::Kind::Str) return !v.c.s.empty();
  return true;
}

}  // namespace

LValue host_descriptor(Lowerer& L, Value* base, const std::vector<Value*>& shape, const std::vector<Value*>& strides,
                       const std::vector<int64_t>& block_shape, bool padding_nan, const Loc& loc) {
  if (padding_nan && !ir::is_float(element_kind(base))) {
    error_at(loc, "Padding option `nan` is not supported for integer blocks (a TensorDescriptor with padding=\"nan\" "
                  "over " + ir::triton_dtype_name(element_kind(base)) + " elements)");
  }
  std::vector<LValue> shape_values, stride_values;
  for (Value* v : shape) shape_values.push_back(LValue::tensor(v));
  for (Value* v : strides) stride_values.push_back(LValue::tensor(v));
  return descriptor_value(L, base, std::move(shape_values), std::move(stride_values), block_shape,
                          padding_nan ? ir::Padding::Nan : ir::Padding::Zero, loc);
}

LValue aggregate_attribute(const LValue& base, const std::string& name, const Loc& loc) {
  auto method = [&] {
    LValue m = LValue::builtin("method." + name);
    m.items.push_back(base);
    return m;
  };
  if (is_block_ptr(base)) {
    if (name == "advance") return method();
    // `p.dtype` is Triton's pointer_type(block_type); its `.element_ty` (the block type)
    // converts like the element dtype, which is what kernels use it for (`.to(...)`).
    if (name == "dtype" || name == "type") {  // a block pointer is a scalar: its type is its dtype
      return LValue::aggregate("block_ptr_dtype", {LValue::constant(ConstValue::type(element_kind(base.items[kBpBase].value)))});
    }
    error_at(loc, "a block pointer has no attribute '" + name + "' that kernels can use");
  }
  if (base.name == "block_ptr_dtype") {
    if (name == "element_ty") return base.items[0];
    error_at(loc, "the dtype of a block pointer has no attribute '" + name + "' that kernels can use");
  }
  if (name == "shape") return base.items[kDescShape];
  if (name == "strides") return base.items[kDescStrides];
  if (name == "block_shape") return base.items[kDescBlockShape];
  if (name == "dtype") return LValue::constant(ConstValue::type(element_kind(base.items[kDescBase].value)));
  if (name == "load" || name == "store") {
    LValue m = LValue::builtin("method." + name + "_tensor_descriptor");
    m.items.push_back(base);
    return m;
  }
  static const std::set<std::string> atomics = {"atomic_add", "atomic_min", "atomic_max",
                                                "atomic_and", "atomic_or", "atomic_xor"};
  if (atomics.count(name)) {
    LValue m = LValue::builtin("method.descriptor_" + name);
    m.items.push_back(base);
    return m;
  }
  if (name == "gather" || name == "scatter") {
    LValue m = LValue::builtin("method.descriptor_" + name);
    m.items.push_back(base);
    return m;
  }
  error_at(loc, "a tensor descriptor has no attribute '" + name + "' that kernels can use");
}

bool lower_block_ptr_access(Lowerer& L, const BuiltinArgs& a, bool load, const Loc& loc, LValue* out) {
  const LValue& ptr = a.get("pointer");
  if (is_block_ptr(ptr)) {
    *out = load ? load_block_ptr(L, a, loc) : store_block_ptr(L, a, loc);
    return true;
  }
  if (is_descriptor(ptr)) {
    error_at(loc, std::string("tl.") + (load ? "load" : "store") + " cannot take a tensor descriptor; use desc." +
                      (load ? "load(offsets)" : "store(offsets, value)"));
  }
  // Triton's _load_legacy / _store_legacy: a boundary check needs a block pointer.
  if (load && (given(a, "boundary_check") || given(a, "padding_option"))) {
    error_at(loc, "`padding_option` or `boundary_check` argument is not supported for loading a tensor of "
                  "pointers or loading a scalar. Because the compiler does not know the boundary; please use block "
                  "pointers (defined by `make_block_ptr`) instead");
  }
  if (!load && given(a, "boundary_check")) {
    error_at(loc, "`boundary_check` argument is not supported for storing a tensor of pointers or storing a scalar. "
                  "Because the compiler does not know the boundary; please use block pointers (defined by "
                  "`make_block_ptr`) instead");
  }
  return false;
}

void register_block_ptr_builtins(BuiltinTable& t) {
  t.add("make_block_ptr", {"base", "shape", "strides", "offsets", "block_shape", "order"}, false, make_block_ptr);
  t.add("advance", {"base", "offsets"}, true, advance);
  t.add("make_tensor_descriptor", {"base", "shape", "strides", "block_shape", "padding_option="}, false, make_descriptor);
  // Also desc.load(offsets) and desc.store(offsets, value) (aggregate_attribute binds them).
  t.add("load_tensor_descriptor", {"desc", "offsets"}, true, load_descriptor);
  t.add("store_tensor_descriptor", {"desc", "offsets", "value"}, true, store_descriptor);
  // desc.gather(x_offsets, y_offset) and desc.scatter(value, x_offsets, y_offset): methods only.
  t.add(Builtin{"descriptor_gather", {"desc", "x_offsets", "y_offset"}, true, descriptor_gather, false});
  t.add(Builtin{"descriptor_scatter", {"desc", "value", "x_offsets", "y_offset"}, true, descriptor_scatter, false});
  // desc.atomic_add(offsets, value) and its kin: methods of descriptors only.
  for (const char* kind : {"add", "min", "max", "and", "or", "xor"}) {
    std::string k = kind;
    t.add(Builtin{"descriptor_atomic_" + k, {"desc", "offsets", "value"}, true,
                  [k](Lowerer& L, const BuiltinArgs& a, const Loc& loc) { return descriptor_atomic(L, a, k, loc); },
                  false});
  }
}

}  // namespace tritium::lower
