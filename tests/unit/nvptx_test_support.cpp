// The NVPTX unit tests' shared helpers (nvptx_test_support.h).
#include "nvptx_test_support.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "frontend/parser.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "transforms/pipeline.h"

namespace tritium::testing {

std::unique_ptr<ir::Function> lower_source(const std::string& file_name, const std::string& source,
                                           const std::string& kernel, const std::string& signature) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<ast::Module>> modules;  // by file name + text
  std::shared_ptr<ast::Module> module;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<ast::Module>& slot = modules[file_name + "\n" + source];
    if (slot == nullptr) slot = parse_module(std::make_shared<SourceFile>(file_name, source));
    module = slot;
  }
  const ast::FunctionDef* fn = module->find_function(kernel);
  REQUIRE(fn != nullptr);
  KernelParams params = read_params(*fn, {});
  Signature sig = parse_signature(signature, params.names, params.is_constexpr);
  auto function = lower_kernel(module, kernel, sig, {});
  transforms::run_pipeline(*function, {true});
  return function;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string ptxas_errors(const nvptx::CompiledPtx& compiled) {
  static const char* kPtxas = "/usr/local/cuda/bin/ptxas";
  static int skipped = 0;
  if (access(kPtxas, X_OK) != 0) {
    ++skipped;
    WARN("ptxas not found at " << kPtxas << ": PTX not validated (" << skipped << " skipped)");
    return "";
  }
  char path[] = "/tmp/tritium_nvptx_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::string ptx_path = std::string(path) + ".ptx";
  std::string log_path = std::string(path) + ".log";
  { std::ofstream(ptx_path) << compiled.ptx; }
  // An arch-specific target (wgmma: sm_90a) needs ptxas told so.
  std::string arch = "sm_" + std::to_string(compiled.sm);
  if (compiled.ptx.find(".target " + arch + "a") != std::string::npos) arch += "a";
  std::string command = std::string(kPtxas) + " -arch=" + arch + " " + ptx_path +
                        " -o /dev/null > " + log_path + " 2>&1";
  int status = std::system(command.c_str());
  std::stringstream log;
  log << std::ifstream(log_path).rdbuf();
  std::remove(path);
  std::remove(ptx_path.c_str());
  std::remove(log_path.c_str());
  if (status == 0) return "";
  return "ptxas failed (" + std::to_string(status) + "):\n" + log.str() + "\n---- PTX ----\n" + compiled.ptx;
}

void check_entry_params(const nvptx::CompiledPtx& compiled, const std::vector<cache::CachedParam>& want) {
  REQUIRE(compiled.params.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const nvptx::PtxParam& p = compiled.params[i];
    INFO(i);
    CHECK(want[i].name == p.name);
    CHECK(want[i].index == p.index);
    CHECK(want[i].part == static_cast<int>(p.part));
    CHECK(want[i].dim == p.dim);
    CHECK(want[i].dtype == ir::scalar_name(p.kind));
    CHECK(want[i].size == p.size);
  }
}

interp::ArgValue pointer_arg(const void* p) {
  interp::ArgValue a;
  a.kind = interp::ArgValue::Kind::Pointer;
  a.address = reinterpret_cast<uint64_t>(p);
  return a;
}

interp::ArgValue int_arg(int64_t v) {
  interp::ArgValue a;
  a.kind = interp::ArgValue::Kind::Int;
  a.int_bits = v;
  return a;
}

}  // namespace tritium::testing
