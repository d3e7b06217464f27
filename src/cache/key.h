// The disk cache key (DESIGN law 4): a full SHA-256 over a canonical serialization of
// everything that can change a compiled kernel — tritium's version and a hash of its
// compiler library, the LLVM version, the kernel source and every callee's source, the
// constexpr globals, the signature, the target, the PTX ISA, the options, and the
// environment knobs that affect code generation (unset and default serialize the same).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tritium::cache {

struct KeyInputs {
  // The toolchain; KeyInputs::current() fills these three.
  std::string tritium_version;  // "0.1.0"
  std::string compiler_hash;    // the build ID (or content hash) of libtritium
  std::string llvm_version;     // "22.1.8"

  std::string kernel;        // the kernel's name
  std::string source;        // the text the kernel was parsed from
  std::string source_path;   // where it came from (diagnostics and line info name it)
  int first_line = 1;
  // The callees' sources and the constexpr globals the kernel reads, serialized
  // canonically by the runtime (it knows their structure; the cache only hashes them).
  std::string globals;
  std::string signature;     // canonical specialization text, constexpr values included
  std::string target;        // "sm_90"
  int ptx_version = 0;       // 10 * major + minor
  int num_warps = 4;
  int num_stages = 3;
  // The other options that change code (num_ctas, maxnreg, fp fusion, debug) as canonical
  // text, "" when all are their defaults.
  std::string options;
  // Code-generation knobs whose value differs from the default, sorted by name.
  std::vector<std::pair<std::string, std::string>> env;

  // Inputs with the toolchain fields and the environment knobs of this process filled in.
  static KeyInputs current();
};

// The canonical serialization: every field, in a fixed order, length-prefixed so that no two
// different inputs serialize alike (arbitrary bytes in sources included).
std::string canonical(const KeyInputs& inputs);

// The key: SHA-256 of canonical(inputs), 64 hex digits.
std::string key_of(const KeyInputs& inputs);

// The same inputs as JSON text (for the disk entry's header and `tritium cache show`).
// Bytes that are not UTF-8 are replaced, so this is for display and comparison only.
std::string inputs_json(const KeyInputs& inputs);

// tritium's version string.
const std::string& tritium_version();
// A hash of the compiler library this code is linked into: its GNU build ID when it has one
// (the linker derives it from the whole output; strip keeps it), else the SHA-256 of the file.
// Computed once per process.
const std::string& compiler_hash();
// The version of LLVM linked into tritium.
std::string llvm_version();

// The environment knobs that change code generation, with their defaults.
struct Knob {
  const char* name;
  const char* default_value;
  const char* meaning;
};
const std::vector<Knob>& codegen_knobs();
// The knobs of this process whose (normalized) value differs from the default, sorted.
// Booleans normalize "1/true/yes/on" to "1" and "0/false/no/off" to "0".
std::vector<std::pair<std::string, std::string>> codegen_env();
// The value of the codegen knob `name` that `inputs` were made with (its default when
// unset): code generation reads knobs through this, so it sees exactly what the key hashed.
std::string knob_value(const KeyInputs& inputs, const std::string& name);

}  // namespace tritium::cache
