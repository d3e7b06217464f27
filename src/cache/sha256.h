// SHA-256 for cache keys and entry checksums, computed by LLVM's implementation (the issue
// asks for a proven one, not a hand-written one). The header is free of LLVM types.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tritium::cache {

// Incremental SHA-256: update() any number of times, then hex() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view data);
  // The digest as 64 lowercase hex digits. Ends the computation.
  std::string hex();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace tritium::cache
