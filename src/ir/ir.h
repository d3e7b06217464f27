// The tile IR: values in SSA form with their users, ops from the op table (ops.def),
// structured regions, and the kernel Function with the facts of its entry arguments.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/types.h"
#include "support/source.h"

namespace tritium::ir {

enum class OpKind : uint16_t {
#define TRITIUM_OP(name, keyword, traits, operands, rule) name,
#include "ir/ops.def"
#undef TRITIUM_OP
};

enum OpTrait : uint32_t {
  kPure = 1u << 0,         // no side effects; removable when unused
  kElementwise = 1u << 1,  // applies per element; operands and result share one shape
  kCommutative = 1u << 2,
  kMemory = 1u << 3,       // reads or writes memory
  kHasRegions = 1u << 4,   // structured control flow
  kTerminator = 1u << 5,   // ends a region
  // Memory effects (ops.def): what a pass may not remove, reorder or hoist.
  kReadsGlobal = 1u << 6,
  kWritesGlobal = 1u << 7,
  kMaySync = 1u << 8,      // may make the threads of a program wait for each other (GPU)
  kSideEffect = 1u << 9,   // output beyond memory (print, assert)
};

// The result-type rule of an op's row in ops.def, checked generically by the verifier.
enum class TypeRule : uint8_t {
  Custom,      // checked by hand in verifier.cpp
  SameInt,     // operands of one integer type; the result has that type
  SameFloat,   // the same with a float type
  SameNumber,  // the same with an integer or float type
};

// An operand's role in ops.def: `x`, `x?` or `x*`.
enum class OperandRole : uint8_t { Required, Optional, Variadic };

struct OperandSpec {
  std::string name;
  OperandRole role;
};

// An op's operand list as ops.def declares it.
struct OpSignature {
  std::vector<OperandSpec> operands;
  int min_operands = 0;
  int max_operands = 0;  // -1: unbounded (a variadic operand)
};

const char* op_name(OpKind kind);  // the printed keyword
// The op whose keyword is `keyword` (the parser's lookup); false when there is none.
bool find_op_kind(std::string_view keyword, OpKind* out);
uint32_t op_traits(OpKind kind);
TypeRule op_type_rule(OpKind kind);
inline bool has_trait(OpKind kind, OpTrait trait) { return (op_traits(kind) & trait) != 0; }
const OpSignature& op_signature(OpKind kind);
// The position of the operand `name` in ops.def's list for `kind`; an InternalError if none.
int operand_index(OpKind kind, std::string_view name);

class Op;
class Region;

// One operand slot that refers to a value: operand `index` of `user`.
struct Use {
  Op* user;
  int index;
};

// An SSA value: the result of an op or an argument of a region. It knows its users: every
// operand change goes through Op (set_operand, add_operand, set_operands, truncate_operands),
// which keeps the list exact.
class Value {
 public:
  Value(const Type* type, Op* def, Region* region, int index)
      : type_(type), def_(def), region_(region), index_(index) {}
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const Type* type() const { return type_; }
  void set_type(const Type* type) { type_ = type; }
  Op* def() const { return def_; }            // null for region arguments
  Region* region() const { return region_; }  // the region a region argument belongs to
  int index() const { return index_; }        // result number or argument number
  bool is_region_arg() const { return def_ == nullptr; }

  // The ops using this value, once per operand slot, in the order the uses were made.
  const std::vector<Op*>& users() const { return users_; }
  // The operand slots using this value, in the order of users().
  std::vector<Use> uses() const;
  int num_uses() const { return static_cast<int>(users_.size()); }
  bool has_uses() const { return !users_.empty(); }
  // Makes every use of this value a use of `other` (same type expected; the verifier checks).
  void replace_all_uses_with(Value* other);

 private:
  friend class Op;
  void add_user(Op* op) { users_.push_back(op); }
  void remove_user(Op* op);

  const Type* type_;
  Op* def_;
  Region* region_;
  int index_;
  std::vector<Op*> users_;
};

// An attribute value: integers (also bools and int constants, as int64 bit patterns),
// floats, strings, and integer lists (shapes, hints).
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;

struct Attr {
  std::string name;
  AttrValue value;
};

// A region: one block of ops with arguments (loop-carried values, iteration variables).
class Region {
 public:
  explicit Region(Op* parent) : parent_(parent) {}
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  Op* parent() const { return parent_; }  // null for the function body
  const std::vector<std::unique_ptr<Value>>& args() const { return args_; }
  Value* arg(int i) const { return args_.at(i).get(); }
  Value* add_arg(const Type* type);

  std::vector<std::unique_ptr<Op>>& ops() { return ops_; }
  const std::vector<std::unique_ptr<Op>>& ops() const { return ops_; }
  Op* terminator() const;  // the last op when it is a terminator, else null

  // Position of `op` in ops(); an InternalError when `op` is not in this region.
  size_t index_of(const Op* op) const;
  // Puts `op` at `index` (0..size) and makes this region its parent.
  Op* insert(size_t index, std::unique_ptr<Op> op);
  // Removes `op` from this region without destroying it (to move it elsewhere).
  std::unique_ptr<Op> take(Op* op);
  // Destroys `op` (and its regions). Its results must have no uses left.
  void erase(Op* op);

 private:
  Op* parent_;
  std::vector<std::unique_ptr<Value>> args_;
  std::vector<std::unique_ptr<Op>> ops_;
};

class Op {
 public:
  Op(OpKind kind, Loc loc) : kind_(kind), loc_(loc) {}
  ~Op();  // drops its uses (and those of the ops in its regions)
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  OpKind kind() const { return kind_; }
  const char* name() const { return op_name(kind_); }
  const Loc& loc() const { return loc_; }
  void set_loc(const Loc& loc) { loc_ = loc; }
  Region* parent() const { return parent_; }
  void set_parent(Region* region) { parent_ = region; }

  // Operands are changed only through these, so each value's users() stays exact.
  const std::vector<Value*>& operands() const { return operands_; }
  Value* operand(int i) const { return operands_.at(i); }
  int num_operands() const { return static_cast<int>(operands_.size()); }
  void set_operand(int i, Value* value);
  void add_operand(Value* value);
  void set_operands(const std::vector<Value*>& values);
  void truncate_operands(int count);  // keeps the first `count` operands
  // Drops every operand of this op and of the ops nested in its regions.
  void drop_all_references();

  const std::vector<std::unique_ptr<Value>>& results() const { return results_; }
  Value* result(int i = 0) const { return results_.at(i).get(); }
  int num_results() const { return static_cast<int>(results_.size()); }
  Value* add_result(const Type* type);

  const std::vector<std::unique_ptr<Region>>& regions() const { return regions_; }
  Region* region(int i) const { return regions_.at(i).get(); }
  Region* add_region();

  // Attributes are kept sorted by name so the printer's output is stable.
  const std::vector<Attr>& attrs() const { return attrs_; }
  void set_attr(const std::string& name, AttrValue value);
  const AttrValue* find_attr(const std::string& name) const;
  bool has_attr(const std::string& name) const { return find_attr(name) != nullptr; }
  // Typed getters; an absent attribute or one of another type is an InternalError.
  int64_t int_attr(const std::string& name) const;
  double float_attr(const std::string& name) const;
  const std::string& str_attr(const std::string& name) const;
  const std::vector<int64_t>& ints_attr(const std::string& name) const;

 private:
  OpKind kind_;
  Loc loc_;
  Region* parent_ = nullptr;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::vector<Attr> attrs_;
};

// Optional operands of memory ops (see ops.def); null when absent. Kept for the NVPTX files
// not yet moved to the typed views of ir/op_views.h (LoadOp(op).mask()).
Value* load_mask(const Op& op);
Value* load_other(const Op& op);
Value* store_mask(const Op& op);
Value* atomic_mask(const Op& op);

// What specialization proved about one entry argument (DESIGN law 2: facts live on the
// values that were passed in, never on names).
struct ArgFacts {
  // Pointers: the byte address is a multiple of this. Integers: the value is. 1 = nothing known.
  int64_t divisibility = 1;
};

// Which piece of its kernel argument an entry argument receives: the whole argument, a
// part of a host tensor descriptor, which enters as several (base, shape[d], strides[d]), or
// an element of a tuple argument (`dim`: its index among the tuple's leaves, depth first;
// folded elements count too).
// DescTensorMap: the CUtensorMap of a 2-D host descriptor (128 bytes), an entry argument
// only the GPU code generator adds, after all others, when it copies the descriptor's
// blocks with the TMA (target/nvptx/async_copy.h); the launcher encodes it.
enum class ArgPart : uint8_t { Whole, DescBase, DescShape, DescStride, TupleLeaf, DescTensorMap };

// One parameter of the kernel as written and what specialization made of it; a host tensor
// descriptor parameter `d` is several entries (`d`, `d_shape0`.., `d_stride0`..), each with
// the same `source`.
struct Param {
  std::string name;
  Value* arg = nullptr;  // the entry argument; null when the parameter was folded to a constant
  ArgFacts facts;        // meaningful only when arg != null
  std::string folded;    // when arg == null: the constant as text ("1", "None", "1024", "fp16")
  int source = -1;       // the kernel parameter's index (-1: this entry's own position)
  ArgPart part = ArgPart::Whole;
  int dim = 0;           // DescShape / DescStride: which dimension

  // The kernel parameter this entry belongs to, given its position `i` in params().
  size_t source_index(size_t i) const { return source >= 0 ? static_cast<size_t>(source) : i; }
};

// A specialized kernel: one function with the callees inlined.
class Function {
 public:
  Function(std::string name, Loc loc) : name_(std::move(name)), loc_(loc), body_(nullptr) {}

  const std::string& name() const { return name_; }
  const Loc& loc() const { return loc_; }
  Region& body() { return body_; }
  const Region& body() const { return body_; }
  std::vector<Param>& params() { return params_; }
  const std::vector<Param>& params() const { return params_; }

  // The facts of an entry argument (a region argument of the body); default facts otherwise.
  ArgFacts facts_of(const Value* value) const;

  // Keeps `file` alive as long as this function: the parser's ops are located in its text.
  void hold_source(std::shared_ptr<const SourceFile> file) { sources_.push_back(std::move(file)); }

  // A deep copy (ops, regions, attributes, locations, parameters); types are shared.
  std::unique_ptr<Function> clone() const;

 private:
  std::vector<std::shared_ptr<const SourceFile>> sources_;  // destroyed after body_
  std::string name_;
  Loc loc_;
  Region body_;  // its args are the entry arguments, in parameter order, folded ones skipped
  std::vector<Param> params_;
};

// Appends a deep copy of `op` (its regions included) to the end of `to`. Operands found in
// `map` become their images there; the others (defined outside what is copied) are kept.
// The copy's results and region arguments are added to `map`.
Op* clone_op(const Op& op, Region& to, std::unordered_map<const Value*, Value*>& map);

}  // namespace tritium::ir
