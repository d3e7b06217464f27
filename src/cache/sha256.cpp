// Sha256 over llvm::SHA256. LLVM's implementation counts bytes in 32 bits, so inputs are
// limited to 4 GiB; cache inputs and entries are far smaller.
#include "cache/sha256.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA256.h>

namespace tritium::cache {

struct Sha256::State {
  llvm::SHA256 hasher;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {}
Sha256::~Sha256() = default;

void Sha256::update(std::string_view data) {
  state_->hasher.update(llvm::StringRef(data.data(), data.size()));
}

std::string Sha256::hex() {
  std::array<uint8_t, 32> digest = state_->hasher.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest), /*LowerCase=*/true);
}

std::string sha256_hex(std::string_view data) {
  Sha256 hasher;
  hasher.update(data);
  return hasher.hex();
}

}  // namespace tritium::cache
