// Entry points of lowering: reading a kernel's parameters and decorator options, and
// lowering one kernel for one specialization signature (facts go on entry arguments).
#include "lower/lower.h"

#include <algorithm>
#include <functional>

#include "lower/block_ptr.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium {

namespace {

bool annotation_is_constexpr(const ast::Expr* ann) {
  if (!ann) return false;
  if (ann->kind == ast::ExprKind::Name || ann->kind == ast::ExprKind::Attribute) return ann->name == "constexpr";
  if (ann->kind == ast::ExprKind::Str) return ann->str_value.find("constexpr") != std::string::npos;
  return false;
}

// `tl.const` (Triton's mark of a pointer to constant data).
bool annotation_is_const(const ast::Expr* ann) {
  if (!ann) return false;
  if (ann->kind == ast::ExprKind::Name || ann->kind == ast::ExprKind::Attribute) return ann->name == "const";
  return false;
}

// `tl.int64`, `"i64"`, `"int64"` force a parameter's scalar type.
bool annotation_dtype(const ast::Expr* ann, ir::ScalarKind* out) {
  if (!ann) return false;
  if (ann->kind == ast::ExprKind::Attribute) return lower::dtype_from_name(ann->name, out);
  if (ann->kind == ast::ExprKind::Str) return ir::parse_scalar_name(ann->str_value, out);
  return false;
}

// A default value: literals, negated numbers, tl dtypes, constant globals; any other
// expression (`FP8_MIN: tl.constexpr = finfo.min`) takes the value Python gave the
// parameter, which the frontend passes as the global "<default>.NAME" when it is a constant.
ConstValue eval_default_expr(const ast::Expr& e, const Globals& globals);

ConstValue eval_default(const ast::Expr& e, const Globals& globals, const std::string& param) {
  auto given = globals.find("<default>." + param);
  if (given != globals.end() && given->second.kind == GlobalBinding::Kind::Constant) {
    switch (e.kind) {
      case ast::ExprKind::Int: case ast::ExprKind::Float: case ast::ExprKind::Bool:
      case ast::ExprKind::None: case ast::ExprKind::Str: break;
      default: return given->second.value;
    }
  }
  return eval_default_expr(e, globals);
}

ConstValue eval_default_expr(const ast::Expr& e, const Globals& globals) {
  switch (e.kind) {
    case ast::ExprKind::Int: return ConstValue::integer(static_cast<__int128>(e.int_value));
    case ast::ExprKind::Float: return ConstValue::floating(e.float_value);
    case ast::ExprKind::Bool: return ConstValue::boolean(e.bool_value);
    case ast::ExprKind::None: return ConstValue::none();
    case ast::ExprKind::Str: return ConstValue::string(e.str_value);
    case ast::ExprKind::Unary:
      if (e.unary_op == ast::UnaryOp::Neg) return lower::const_unary(ast::UnaryOp::Neg, eval_default_expr(*e.lhs, globals), e.loc);
      break;
    case ast::ExprKind::Attribute: {
      ir::ScalarKind k;
      if (lower::dtype_from_name(e.name, &k)) return ConstValue::type(k);
      break;
    }
    case ast::ExprKind::Name: {
      auto it = globals.find(e.name);
      if (it != globals.end() && it->second.kind == GlobalBinding::Kind::Constant) return it->second.value;
      break;
    }
    default: break;
  }
  error_at(e.loc, "the default value of a kernel parameter must be a constant");
}

std::vector<int> parameter_indices(const ast::Expr& list, const ast::FunctionDef& fn, const char* option) {
  std::vector<int> out;
  if (list.kind != ast::ExprKind::List && list.kind != ast::ExprKind::Tuple) {
    error_at(list.loc, std::string(option) + " must be a list of parameter indices or names");
  }
  // An entry that names no parameter is ignored, as Triton ignores it (FlagGems declares a
  // placeholder kernel without parameters under do_not_specialize=["seqlen_q", "seqlen_k"]).
  for (const auto& item : list.items) {
    if (item->kind == ast::ExprKind::Int) {
      if (item->int_value < fn.params.size()) out.push_back(static_cast<int>(item->int_value));
    } else if (item->kind == ast::ExprKind::Str) {
      auto it = std::find_if(fn.params.begin(), fn.params.end(), [&](const ast::Param& p) { return p.name == item->str_value; });
      if (it != fn.params.end()) out.push_back(static_cast<int>(it - fn.params.begin()));
    } else {
      error_at(item->loc, std::string(option) + " entries must be parameter indices or names");
    }
  }
  return out;
}

}  // namespace

KernelParams read_params(const ast::FunctionDef& fn, const Globals& globals,
                         std::optional<CompileError>* unresolved) {
  KernelParams params;
  for (const ast::Param& p : fn.params) {
    if (p.keyword_only && params.num_positional == SIZE_MAX) params.num_positional = params.names.size();
    params.names.push_back(p.name);
    params.is_constexpr.push_back(annotation_is_constexpr(p.annotation.get()));
    ir::ScalarKind k = ir::ScalarKind::I32;
    bool forced = !params.is_constexpr.back() && annotation_dtype(p.annotation.get(), &k);
    params.has_annotated_dtype.push_back(forced);
    params.annotated_dtype.push_back(k);
    params.has_default.push_back(p.default_value != nullptr);
    ConstValue value = ConstValue::none();
    std::shared_ptr<const GlobalBinding> function;
    if (p.default_value && p.default_value->kind == ast::ExprKind::Name) {
      // `fn: tl.constexpr = relu`: a @jit function as the default (Triton binds it in Python).
      auto it = globals.find(p.default_value->name);
      if (it != globals.end() && (it->second.kind == GlobalBinding::Kind::Function ||
                                  it->second.kind == GlobalBinding::Kind::HostFunction)) {
        function = std::make_shared<const GlobalBinding>(it->second);
      }
    }
    params.default_functions.push_back(function);
    if (p.default_value && !function) {
      try {
        value = eval_default(*p.default_value, globals, p.name);
      } catch (const CompileError& e) {
        // Before the globals are given (a Name, or an expression Python evaluates and
        // passes as "<default>.NAME"), the error waits for a launch that needs it.
        if (unresolved == nullptr) throw;
        if (!*unresolved) *unresolved = e;
      }
    }
    params.defaults.push_back(value);
  }
  for (const auto& decorator : fn.decorators) {
    if (decorator->kind != ast::ExprKind::Call) continue;
    for (const auto& kw : decorator->keywords) {
      // An expression other than a literal (`['T', 'scale'] if HOPPER else ['T']`) is
      // Python's to evaluate: the Python frontend passes the result (set_specialization).
      switch (kw.value->kind) {
        case ast::ExprKind::List: case ast::ExprKind::Tuple: case ast::ExprKind::Int:
        case ast::ExprKind::Float: case ast::ExprKind::Bool: case ast::ExprKind::None:
        case ast::ExprKind::Str: break;
        default: continue;
      }
      if (kw.name == "do_not_specialize") {
        params.do_not_specialize = parameter_indices(*kw.value, fn, "do_not_specialize");
      } else if (kw.name == "do_not_specialize_on_alignment") {
        params.do_not_specialize_on_alignment = parameter_indices(*kw.value, fn, "do_not_specialize_on_alignment");
      }
    }
  }
  return params;
}

namespace {

// A host descriptor's block shape as Triton's validate_block_shape checks it (the launcher
// checks it too; a signature written by hand reaches only this).
void check_descriptor_block(const std::vector<int64_t>& block, const std::string& name, const Loc& loc) {
  if (block.empty() || block.size() > 5) {
    error_at(loc, "tensor descriptor parameter '" + name + "': the rank must be 1 to 5, got " +
                      std::to_string(block.size()));
  }
  int64_t numel = 1;
  for (size_t d = 0; d < block.size(); ++d) {
    if (block[d] <= 0 || (block[d] & (block[d] - 1)) != 0) {
      error_at(loc, "tensor descriptor parameter '" + name + "': Shape element " + std::to_string(d) +
                        " must be a power of 2");
    }
    numel *= block[d];
    if (numel > (1 << 20)) {
      error_at(loc, "tensor descriptor parameter '" + name + "': numel (" + std::to_string(numel) +
                        ") exceeds triton maximum tensor numel (1048576)");
    }
  }
}

}  // namespace

std::unique_ptr<ir::Function> lower_kernel(std::shared_ptr<const ast::Module> module, const std::string& kernel,
                                           const Signature& signature, const Globals& globals, bool debug,
                                           int num_warps) {
  const ast::FunctionDef* def = module->find_function(kernel);
  if (!def) {
    throw CompileError(module->file ? module->file->path() : "", 0, 0,
                       "no @jit function named '" + kernel + "' in this source", "");
  }
  if (signature.params.size() != def->params.size()) {
    error_at(def->loc, "the signature has " + std::to_string(signature.params.size()) + " entries but '" + kernel +
                           "' has " + std::to_string(def->params.size()) + " parameters");
  }
  auto function = std::make_unique<ir::Function>(def->name, def->loc);
  lower::Lowerer lowerer(*function, globals);
  lowerer.debug = debug;
  lowerer.num_warps = num_warps;
  auto kernel_globals = std::make_shared<const Globals>(globals);
  auto context = std::make_unique<lower::FunctionContext>();
  context->module = module;
  context->globals = kernel_globals;
  context->name = def->name;
  lowerer.context_ = context.get();
  context->module_scope = &lowerer.module_scope(module, kernel_globals);

  for (size_t i = 0; i < def->params.size(); ++i) {
    const ParamSig& sig = signature.params[i];
    const ast::Param& p = def->params[i];
    ir::Param param;
    param.name = p.name;
    param.source = static_cast<int>(i);
    switch (sig.kind) {
      case ParamSig::Kind::Pointer:
      case ParamSig::Kind::Scalar: {
        const ir::Type* type = ir::Type::scalar(sig.dtype);
        if (sig.kind == ParamSig::Kind::Pointer) type = ir::Type::pointer(type);
        param.arg = function->body().add_arg(type);
        param.facts.divisibility = sig.divisibility;
        if (sig.kind == ParamSig::Kind::Pointer && annotation_is_const(p.annotation.get())) {
          lowerer.mark_const_pointer(param.arg);
        }
        lowerer.bind(p.name, lower::LValue::tensor(param.arg));
        break;
      }
      case ParamSig::Kind::Descriptor: {
        // Several entry arguments (Triton passes a host descriptor as base, shape, strides):
        // the base is 16-byte aligned and every stride but the last a multiple of 16 bytes
        // (the launcher checked both), and the last stride is 1, so it is not passed.
        const size_t rank = sig.block_shape.size();
        check_descriptor_block(sig.block_shape, p.name, p.loc);
        const int64_t elem_bytes = std::max(1, ir::bit_width(sig.dtype) / 8);
        auto entry = [&](const std::string& name, const ir::Type* type, int64_t divisibility, ir::ArgPart part,
                         int dim) {
          ir::Param piece;
          piece.name = name;
          piece.arg = function->body().add_arg(type);
          piece.facts.divisibility = divisibility;
          piece.source = static_cast<int>(i);
          piece.part = part;
          piece.dim = dim;
          function->params().push_back(piece);
          return piece.arg;
        };
        ir::Value* base =
            entry(p.name, ir::Type::pointer(ir::Type::scalar(sig.dtype)), 16, ir::ArgPart::DescBase, 0);
        std::vector<ir::Value*> shape, strides;
        for (size_t d = 0; d < rank; ++d) {
          const int divisibility = d < sig.shape_divisibility.size() ? sig.shape_divisibility[d] : 1;
          shape.push_back(entry(p.name + "_shape" + std::to_string(d), ir::Type::scalar(ir::ScalarKind::I32), divisibility,
                                ir::ArgPart::DescShape, static_cast<int>(d)));
        }
        for (size_t d = 0; d + 1 < rank; ++d) {
          strides.push_back(entry(p.name + "_stride" + std::to_string(d), ir::Type::scalar(ir::ScalarKind::I64),
                                  16 / elem_bytes, ir::ArgPart::DescStride, static_cast<int>(d)));
        }
        strides.push_back(lowerer.constant(ir::ScalarKind::I64, ConstValue::integer(1), p.loc));
        lowerer.bind(p.name, lower::host_descriptor(lowerer, base, shape, strides, sig.block_shape,
                                                     sig.padding_nan, p.loc));
        continue;
      }
      case ParamSig::Kind::Tuple: {
        // One entry argument per runtime element (each an ir::Param of this parameter with
        // part TupleLeaf and its leaf index); folded elements are constants. The parameter
        // is bound as the tuple of them (nested tuples as tuples).
        int leaf = 0;
        std::function<lower::LValue(const ParamSig&)> bind_tuple = [&](const ParamSig& tuple) {
              std::vector<lower::LValue> items;
              for (size_t e = 0; e < tuple.elements.size(); ++e) {
                const ParamSig& el = tuple.elements[e];
                if (el.kind == ParamSig::Kind::Tuple) {
                  items.push_back(bind_tuple(el));
                  continue;
                }
                const int index = leaf++;
                if (el.kind == ParamSig::Kind::Constant) {
                  if (!el.is_constexpr && el.value.kind == ConstValue::Kind::Int) {
                    items.push_back(lower::LValue::tensor(lowerer.constant(ir::ScalarKind::I32, el.value, p.loc)));
                  } else {
                    items.push_back(lower::LValue::constant(el.value));
                  }
                  continue;
                }
                if (el.kind == ParamSig::Kind::Function) {
                  items.push_back(lower::function_value(el, p.loc));
                  continue;
                }
                if (el.kind != ParamSig::Kind::Pointer && el.kind != ParamSig::Kind::Scalar) {
                  error_at(p.loc, "parameter '" + p.name + "': a tensor descriptor in a tuple is not supported yet");
                }
                const ir::Type* type = ir::Type::scalar(el.dtype);
                if (el.kind == ParamSig::Kind::Pointer) type = ir::Type::pointer(type);
                ir::Param piece;
                piece.name = p.name + "_" + std::to_string(index);  // as gpu_kernel's expected_params
                piece.arg = function->body().add_arg(type);
                piece.facts.divisibility = el.divisibility;
                piece.source = static_cast<int>(i);
                piece.part = ir::ArgPart::TupleLeaf;
                piece.dim = index;
                function->params().push_back(piece);
                items.push_back(lower::LValue::tensor(piece.arg));
              }
              lower::LValue value = lower::LValue::tuple(std::move(items));
              lower::name_tuple(value, tuple.tuple_type, tuple.fields);
              return value;
            };
        lowerer.bind(p.name, bind_tuple(sig));
        continue;
      }
      case ParamSig::Kind::Function:
        param.folded = "jit(" + sig.function_key + ")";
        lowerer.bind(p.name, lower::function_value(sig, p.loc));
        break;
      case ParamSig::Kind::Constant: {
        param.folded = sig.value.str();
        if (!sig.is_constexpr && sig.value.kind == ConstValue::Kind::Int) {
          // An integer equal to 1 is folded but stays a runtime-typed i32, so arithmetic on it
          // keeps C semantics: specialization must never change a result (DESIGN).
          ir::Value* one = lowerer.constant(ir::ScalarKind::I32, sig.value, p.loc);
          lowerer.bind(p.name, lower::LValue::tensor(one));
        } else {
          lowerer.bind(p.name, lower::LValue::constant(sig.value));
        }
        break;
      }
    }
    function->params().push_back(std::move(param));
  }
  lower::LValue result = lowerer.lower_function_body(def->body);
  if (!result.is_none()) error_at(def->loc, "a kernel cannot return a value");
  lowerer.builder().set_region(&function->body());
  lowerer.builder().create(ir::OpKind::Return, {}, {}, def->loc);
  return function;
}

}  // namespace tritium
