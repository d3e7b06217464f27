// `tritium aot`: ahead-of-time export of one kernel for C and C++ programs. aot.cpp compiles
// one variant per --signature (PTX, plus a cubin when a GPU is present); aot_codegen.cpp
// writes the C header and source that load and launch them with libcuda alone.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ir/types.h"

namespace tritium::aot {

// A command-line mistake (the CLI prints it with the usage, exit status 2).
struct UsageError {
  std::string message;
};

// The usage lines of `tritium aot` (part of `tritium --help`).
extern const char* const kUsage;

// `tritium aot FILE --kernel K --signature SIG [--signature ...] --grid X[,Y,Z] -o DIR ...`
// (argv[1] is "aot"). Throws UsageError, CompileError, LaunchError.
int main(int argc, char** argv);

// One argument of the generated launch function (a kernel parameter that is not folded
// into every variant).
struct CParam {
  std::string name;
  bool is_pointer = false;
  ir::ScalarKind kind = ir::ScalarKind::I32;  // scalars: the C type is chosen from it
};

// What one variant requires of the arguments to be chosen.
struct Condition {
  enum class Kind { Aligned16, Divisible16, EqualsOne, FitsI32 };
  Kind kind;
  std::string param;
};

// One kernel parameter as the variant's PTX entry takes it, in order.
struct Packed {
  std::string param;
  int size = 0;  // bytes; i1 travels as 4
};

struct Variant {
  std::string signature;  // canonical text
  std::vector<Condition> conditions;
  std::vector<Packed> packed;
  std::string entry;
  std::string ptx;
  std::string cubin;  // empty without a GPU
  int num_warps = 4;
  int shared_bytes = 0;
  int sm = 90;
};

struct Export {
  std::string name;  // prefix of the generated files and functions
  std::string kernel;
  std::string command;  // the command line, recorded in the files
  std::vector<CParam> params;
  // constexpr parameters usable in the grid expressions: (name, C declaration).
  std::vector<std::pair<std::string, std::string>> constants;
  std::array<std::string, 3> grid;  // C expressions over the parameters and constants
  std::vector<Variant> variants;    // the most specialized first: dispatch takes the first fit
};

// The generated files' text.
std::string header_text(const Export& e);
std::string source_text(const Export& e);

}  // namespace tritium::aot
