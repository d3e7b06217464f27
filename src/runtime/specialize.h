// Call arguments -> specialization signature (DESIGN: Specialization; triton-spec.md §1.2-1.5).
// Binding puts one argument on each parameter (positional, named, defaults); classifying
// turns each bound argument into a ParamSig exactly as Triton 3.6 does.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lower/lower.h"
#include "lower/signature.h"
#include "tritium/tritium.h"

namespace tritium::runtime {

// One parameter's argument after binding, and where it came from (the Python binding maps
// positional and named ones back to the objects it was given, e.g. for META).
struct BoundArg {
  enum class From : uint8_t { Positional, Named, Default };
  const Arg* arg = nullptr;  // points into the caller's vectors or the kernel's defaults
  From from = From::Positional;
  int index = 0;  // Positional: index into args; Named: index into named; Default: parameter
};

// One BoundArg per parameter, in parameter order.
using BoundArgs = std::vector<BoundArg>;

// The defaults of `params` as Args (index i is meaningful when params.has_default[i]).
// Throws LaunchError when a default cannot be an argument (an int beyond 64 bits).
std::vector<Arg> default_args(const std::string& kernel, const KernelParams& params);

// Binds like Python's inspect.Signature.bind + apply_defaults. Throws LaunchError naming the
// kernel and the argument: too many positional arguments, an unknown keyword, a parameter
// given twice, a missing argument with no default.
void bind_args(const std::string& kernel, const KernelParams& params,
               const std::vector<Arg>& defaults, const std::vector<Arg>& args,
               const std::vector<std::pair<std::string, Arg>>& named, BoundArgs* out);

// Classifies the argument of parameter `index` (triton-spec.md §1.2): None -> constant None;
// bool -> i1 (before ints, never folded); int -> constant 1 when equal to 1, else i32 /
// u64 / i64 by range, `:16` when divisible by 16; float -> fp32; pointer -> *dtype, `:16`
// when the byte address is a multiple of 16; constexpr parameters -> their value.
// do_not_specialize drops the ==1 and :16 facts, do_not_specialize_on_alignment only :16; a
// dtype annotation forces the type (and then nothing is folded). Throws LaunchError.
ParamSig classify(const std::string& kernel, const KernelParams& params, size_t index,
                  const Arg& arg);

// classify() for every bound argument.
void specialize(const std::string& kernel, const KernelParams& params, const BoundArgs& bound,
                Signature* out);

// The LaunchError for argument `param` of `kernel`: "kernel 'k': argument 'n': message".
LaunchError argument_error(const std::string& kernel, const std::string& param,
                           const std::string& message);

// An int argument from a wide integer, checked like Triton's native specializer: values in
// [-2^63, 2^63) are signed, [2^63, 2^64) unsigned, anything else an OverflowError-like
// LaunchError naming the argument.
Arg int_arg(__int128 value, const std::string& kernel, const std::string& param);
// The same error for a value the caller could not even hold in 128 bits (`value_text` is
// its decimal text).
[[noreturn]] void throw_int_overflow(const std::string& kernel, const std::string& param,
                                     const std::string& value_text);

// The public DType and the IR's ScalarKind name the same thirteen types.
ir::ScalarKind to_scalar_kind(DType dtype);
DType to_dtype(ir::ScalarKind kind);

// Element `index` of a tuple argument's leaves (its non-tuple elements, depth first: the
// order of ir::Param::dim for ArgPart::TupleLeaf); `arg` itself when it is not a tuple.
const Arg& tuple_leaf(const Arg& arg, int index);
// Calls `f(memory)` for the memory an argument holds: itself when it is memory, a tuple's
// memory leaves, or nothing (no allocation: the launch path uses it).
template <typename F>
void for_each_memory(const Arg& arg, F&& f) {
  if (arg.is_memory()) {
    f(arg);
  } else if (arg.kind() == Arg::Kind::Tuple) {
    for (const Arg& item : arg.items()) for_each_memory(item, f);
  }
}

// The constant an argument stands for (constexpr values, folded arguments). Pointers have
// none: LaunchError.
ConstValue to_const(const Arg& arg, const std::string& kernel, const std::string& param);

}  // namespace tritium::runtime
