// Triton 3.6's tl.extra.cuda utilities: num_warps() and num_threads() are constants of the
// launch's num_warps (through Kernel::emit, so the runtime hands num_warps to lowering),
// smid() is PTX %smid read once, globaltimer() %globaltimer read at every call (an asm with
// a side effect: never merged with another read, never removed while its value is used).
#include <catch2/catch.hpp>

#include <string>

#include "tritium/tritium.h"

using namespace tritium;

namespace {

const char* kSource = R"PY(import triton
import triton.language as tl

@triton.jit
def fill_threads(out_ptr):
    n: tl.constexpr = tl.extra.cuda.num_threads()
    tl.store(out_ptr + tl.arange(0, n), tl.extra.cuda.num_warps())

@triton.jit
def sm_ids(out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.extra.cuda.smid())

@triton.jit
def timed(out1, out2):
    start = tl.extra.cuda.globaltimer()
    off = tl.arange(0, 128)
    for i in range(10000):
        tl.store(out1 + off, tl.load(out1 + off) + 1)
    end = tl.extra.cuda.globaltimer()
    tl.store(out2, end - start)
)PY";

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("extra.cuda: num_threads and num_warps are constants of the launch's num_warps", "[nvptx][extra_cuda]") {
  Kernel k(kSource, "fill_threads", "extra.py");
  for (int warps : {1, 4, 8}) {
    LaunchConfig config;
    config.num_warps = warps;
    std::string ir = k.emit(Stage::IrOpt, "*i32:16", config);
    INFO(ir);
    REQUIRE(ir.find("make_range {end = " + std::to_string(32 * warps) + ", start = 0}") != std::string::npos);
    REQUIRE(ir.find("constant {value = " + std::to_string(warps) + "}") != std::string::npos);
  }
}

TEST_CASE("extra.cuda: smid reads %smid, globaltimer reads %globaltimer at each call", "[nvptx][extra_cuda]") {
  LaunchConfig config;
  config.arch = 90;
  std::string smid = Kernel(kSource, "sm_ids", "extra.py").emit(Stage::Ptx, "*i32:16", config);
  INFO(smid);
  REQUIRE(count(smid, "%smid") == 1);
  std::string timer = Kernel(kSource, "timed", "extra.py").emit(Stage::Ptx, "*i64:16, *i64:16", config);
  INFO(timer);
  REQUIRE(count(timer, "%globaltimer") == 2);  // Triton's test_globaltimer counts the same
}
