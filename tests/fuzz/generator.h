// The fuzzer's two input sources (tests/fuzz/README.md): a typed random-kernel generator and
// a source-and-signature mutator of corpus kernels. Both are deterministic in their seed, so
// a finding replays from `tritium_fuzz --replay SEED`.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tritium::fuzz {

// One input: a Python source holding `kernel`, and a signature to specialize it on.
struct Input {
  std::string source;
  std::string kernel;
  std::string signature;
  std::string origin;  // "generated", or "mutated:<corpus file>"
  // Generated kernels only: the arguments, one per parameter, in the CLI's `--args` form
  // (rand:fp32:N, 7, 1.5, BLOCK=64), so the differential harness can run them.
  std::string args;
  int grid = 1;
};

using Rng = std::mt19937_64;

// A random, mostly well-typed kernel: loads, arithmetic over every dtype, casts, bitcasts,
// math, where, minimum/maximum, reductions and scans, atomics, if/for/while, @jit helpers,
// stores.
Input generate_kernel(Rng& rng);

// A corpus entry: a source and the (kernel, signature) pairs of its RUN lines.
struct CorpusEntry {
  std::string path;
  std::string source;
  std::vector<std::pair<std::string, std::string>> runs;
};

// Reads the .py files of `dirs` that have `# RUN: --kernel K --signature "S"` lines.
std::vector<CorpusEntry> read_corpus(const std::vector<std::string>& dirs);

// A mutation of `entry`: its source edited (bytes, tokens, numbers, lines, indentation)
// and/or one RUN's signature edited (types, facts, constants, arity), 1 to 4 edits.
Input mutate(const CorpusEntry& entry, Rng& rng);

}  // namespace tritium::fuzz
