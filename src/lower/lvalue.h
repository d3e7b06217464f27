// What a Python name or expression denotes while lowering: a compile-time constant, an IR
// value (a "tensor": scalar or block), a module, a @jit function, a tl.* builtin, a tuple, or
// an aggregate of those (a block pointer, a tensor descriptor).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "lower/const_value.h"
#include "lower/lower.h"

namespace tritium::lower {

// A @jit function and where its own global names resolve.
struct FunctionRef {
  std::shared_ptr<const ast::Module> module;
  const ast::FunctionDef* def = nullptr;
  std::shared_ptr<const Globals> globals;  // may be null
  bool jit = true;                         // false: a def of the compiled file without a @jit decorator
  // triton.must_use_result: "1", or the reason given; a call whose result is dropped is an
  // error (Triton's). Empty: no such mark.
  std::string must_use_result;
};

struct LValue {
  enum class Kind {
    Const,     // c: Python value (constexpr, literal, None, dtype, string)
    Tensor,    // value: an IR value of scalar or block type
    Module,    // name: dotted module name ("triton.language")
    Function,  // function: a @jit function to inline
    Builtin,   // name: builtin ("tl.load", "range", "method.to"); items[0]: bound self
    Tuple,     // items (also Python lists; is_list tells)
    Aggregate, // name: "block_ptr" or "tensor_descriptor"; items: its fields (block_ptr.h)
  };

  Kind kind = Kind::Const;
  ConstValue c;
  ir::Value* value = nullptr;
  std::string name;
  std::shared_ptr<const FunctionRef> function;
  std::shared_ptr<const HostCall> host;  // Builtin "host.<name>": a tl.constexpr_function
  bool host_builtin = false;              // ...made with triton.language.core.builtin
  std::vector<LValue> items;
  bool is_list = false;
  // Tuple: a named tuple's field names, one per item (null for a plain tuple); `name` is its
  // type's name. Its items are read by index or by field name (`t.ptr`).
  std::shared_ptr<const std::vector<std::string>> fields;

  static LValue constant(ConstValue c) { LValue v; v.kind = Kind::Const; v.c = std::move(c); return v; }
  static LValue tensor(ir::Value* value) { LValue v; v.kind = Kind::Tensor; v.value = value; return v; }
  static LValue module(std::string name) { LValue v; v.kind = Kind::Module; v.name = std::move(name); return v; }
  static LValue builtin(std::string name) { LValue v; v.kind = Kind::Builtin; v.name = std::move(name); return v; }
  static LValue tuple(std::vector<LValue> items, bool is_list = false) {
    LValue v; v.kind = Kind::Tuple; v.items = std::move(items); v.is_list = is_list; return v;
  }

  static LValue aggregate(std::string name, std::vector<LValue> fields) {
    LValue v; v.kind = Kind::Aggregate; v.name = std::move(name); v.items = std::move(fields); return v;
  }

  bool is_const() const { return kind == Kind::Const; }
  bool is_tensor() const { return kind == Kind::Tensor; }
  bool is_none() const { return kind == Kind::Const && c.kind == ConstValue::Kind::None; }
  const ir::Type* type() const { return value->type(); }

  // For messages: "int32 constant 3", "tensor of type block<128xfp32>", "module triton.language".
  std::string describe() const;
};

}  // namespace tritium::lower
