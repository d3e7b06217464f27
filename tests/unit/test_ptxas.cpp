// runtime::assemble_with_ptxas (TRITIUM_PTXAS): a cubin from a real ptxas when one is found
// (TRITIUM_TEST_PTXAS, TRITON_PTXAS_PATH, or ptxas on PATH / in /usr/local/cuda/bin; a
// SKIPPED warning otherwise), and located errors for a ptxas that cannot run, one that fails
// (its output quoted) and PTX without a .target. The failing ptxas is a shell script here.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/ptxas.h"
#include "tritium/tritium.h"

namespace fs = std::filesystem;
using tritium::LaunchError;
using tritium::runtime::assemble_with_ptxas;

namespace {

const char* kPtx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k(.param .u64 p) {\n  .reg .b64 %rd<2>;\n  .reg .b32 %r<2>;\n"
    "  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, 7;\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";

std::string found_ptxas() {
  for (const char* name : {"TRITIUM_TEST_PTXAS", "TRITON_PTXAS_PATH"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0' && fs::exists(v)) return v;
  }
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      fs::path candidate = fs::path(dirs.substr(start, end - start)) / "ptxas";
      if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      start = end + 1;
    }
  }
  return ::access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : "";
}

// An executable shell script at a fresh path that prints `message` and exits with `status`.
fs::path fake_ptxas(const std::string& message, int status) {
  fs::path path = fs::temp_directory_path() / ("tritium-fake-ptxas-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(status));
  std::ofstream(path) << "#!/bin/sh\necho '" << message << "'\nexit " << status << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

}  // namespace

TEST_CASE("a real ptxas makes a cubin of the PTX's target") {
  const std::string ptxas = found_ptxas();
  if (ptxas.empty()) {
    WARN("SKIPPED: no ptxas found (set TRITIUM_TEST_PTXAS)");
    return;
  }
  const std::string cubin = assemble_with_ptxas(ptxas, kPtx, "k");
  REQUIRE(cubin.size() > 64);
  CHECK(cubin.substr(0, 4) == "\x7f" "ELF");
  // The PTX's error is ptxas's, quoted.
  std::string broken = kPtx;
  broken.replace(broken.find("mov.u32"), 7, "mov.bogus");
  CHECK_THROWS_WITH(assemble_with_ptxas(ptxas, broken, "k"),
                    Catch::Contains("kernel 'k': TRITIUM_PTXAS=") && Catch::Contains("it failed (exit status"));
}

TEST_CASE("a ptxas that fails, cannot run, or PTX without a target is a located error") {
  const fs::path failing = fake_ptxas("ptxas fatal : something is wrong here", 3);
  CHECK_THROWS_AS(assemble_with_ptxas(failing.string(), kPtx, "k"), LaunchError);
  CHECK_THROWS_WITH(assemble_with_ptxas(failing.string(), kPtx, "k"),
                    Catch::Contains("kernel 'k': TRITIUM_PTXAS=" + failing.string()) &&
                        Catch::Contains("it failed (exit status 3): ptxas fatal : something is wrong here"));
  // Exits 0 but writes nothing.
  const fs::path silent = fake_ptxas("", 0);
  CHECK_THROWS_WITH(assemble_with_ptxas(silent.string(), kPtx, "k"), Catch::Contains("it wrote no cubin"));
  CHECK_THROWS_WITH(assemble_with_ptxas("/nonexistent/ptxas", kPtx, "k"), Catch::Contains("cannot run it"));
  CHECK_THROWS_WITH(assemble_with_ptxas(failing.string(), ".version 8.0\n", "k"),
                    Catch::Contains("the PTX names no .target"));
  fs::remove(failing);
  fs::remove(silent);
}
