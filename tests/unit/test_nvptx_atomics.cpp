// The atomic matrix of the NVPTX code generator: every atomic kind x value form (constant,
// scalar argument, block) x element type x pointer form x mask form compiles to PTX that
// ptxas accepts (issue 11: a constant float max/min crashed the emitter), and every
// combination the language refuses is a located CompileError.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "frontend/parser.h"
#include "ir/attrs.h"
#include "nvptx_test_support.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "target/nvptx/codegen.h"
#include "transforms/pipeline.h"
#include "tritium/errors.h"

using namespace tritium;

namespace {

struct DtypeCase {
  std::string name;        // the pointer's element type
  std::string scalar;      // the signature of the scalar argument `s`
  std::vector<std::string> constants;
  std::vector<std::string> kinds;  // the atomics the language allows on it
};

// Every row of ir/atomics.def (so a new kind is in the matrix with no edit here), and cas.
std::vector<std::string> all_kinds() {
  std::vector<std::string> kinds;
  for (size_t i = 0; i < ir::enum_count<ir::AtomicKind>(); ++i) kinds.push_back(ir::enum_text(static_cast<ir::AtomicKind>(i)));
  kinds.push_back("cas");
  return kinds;
}

// The kinds the rows' rules admit on `element` (test_ir.cpp pins the rules of Triton's kinds).
std::vector<std::string> kinds_on(ir::ScalarKind element) {
  std::vector<std::string> kinds;
  for (size_t i = 0; i < ir::enum_count<ir::AtomicKind>(); ++i) {
    auto k = static_cast<ir::AtomicKind>(i);
    if (ir::atomic_admits(k, element)) kinds.push_back(ir::enum_text(k));
  }
  kinds.push_back("cas");
  return kinds;
}

std::vector<DtypeCase> dtype_cases() {
  using K = ir::ScalarKind;
  return {
      {"i32", "i32", {"1", "-2", "0"}, kinds_on(K::I32)},
      {"u32", "i32", {"3", "0"}, kinds_on(K::U32)},
      {"i64", "i64", {"1", "-2", "0"}, kinds_on(K::I64)},
      {"u64", "i64", {"3", "0"}, kinds_on(K::U64)},
      {"fp16", "fp32", {"1.0", "-2.0", "0.0"}, kinds_on(K::F16)},
      {"bf16", "fp32", {"1.0", "-2.0", "0.0"}, kinds_on(K::BF16)},
      {"fp32", "fp32", {"1.0", "-2.0", "0.0", "-0.0"}, kinds_on(K::F32)},
      {"fp64", "fp32", {"1.0", "-2.0", "0.0", "-0.0"}, kinds_on(K::F64)},
  };
}

// One statement per (kind, pointer form, value form, mask form); half the results are
// used (so the select of a float max/min and the broadcast of a scalar's old value are
// emitted), half are not.
std::string matrix_kernel(const DtypeCase& d) {
  std::ostringstream s;
  s << "import triton\nimport triton.language as tl\n\n@triton.jit\n"
    << "def matrix(p, s, n, BLOCK: tl.constexpr):\n"
    << "    offs = tl.arange(0, BLOCK)\n"
    << "    mask = offs < n\n"
    << "    v = tl.load(p + BLOCK + offs)\n"
    << "    acc = tl.load(p + 2 * BLOCK + offs)\n";
  std::vector<std::string> values = d.constants;
  values.push_back("s");
  int used = 0;
  for (const std::string& kind : d.kinds) {
    for (bool block_ptr : {false, true}) {
      std::vector<std::string> forms = values;
      if (block_ptr) forms.push_back("v");
      std::string ptr = block_ptr ? "p + offs" : "p";
      for (const std::string& value : forms) {
        std::vector<std::string> masks = {"", ", mask=True", ", mask=False"};
        if (block_ptr) masks.push_back(", mask=mask");
        if (kind == "cas") masks = {""};
        for (const std::string& mask : masks) {
          std::string call = kind == "cas" ? "tl.atomic_cas(" + ptr + ", " + value + ", " + value + ")"
                                           : "tl.atomic_" + kind + "(" + ptr + ", " + value + mask + ")";
          if (++used % 2) {
            s << "    acc = acc + " << call << "\n";
          } else {
            s << "    " << call << "\n";
          }
        }
      }
    }
  }
  s << "    tl.store(p + 3 * BLOCK + offs, acc)\n";
  return s.str();
}

nvptx::CompiledPtx compile_source(const std::string& source, const std::string& kernel, const std::string& signature) {
  return nvptx::compile_to_ptx(*testing::lower_source("atomics.py", source, kernel, signature), {});
}

using testing::count;
using testing::ptxas_errors;

}  // namespace

TEST_CASE("nvptx atomics: every kind x value form x dtype assembles", "[nvptx][atomics]") {
  for (const DtypeCase& d : dtype_cases()) {
    for (int block : {64, 512}) {  // fewer elements than threads, and several per thread
      std::string source = matrix_kernel(d);
      std::string signature = "*" + d.name + ":16, " + d.scalar + ", i32, " + std::to_string(block);
      INFO(d.name << " BLOCK=" << block << "\n" << source);
      nvptx::CompiledPtx c = compile_source(source, "matrix", signature);
      REQUIRE(count(c.ptx, "atom.") >= static_cast<int>(d.kinds.size()));
      std::string errors = ptxas_errors(c);
      INFO(errors);
      REQUIRE(errors.empty());
    }
  }
}

TEST_CASE("nvptx atomics: bf16 add is native from sm_90, a compare-and-swap loop before", "[nvptx][atomics]") {
  const char* source = R"PY(import triton
import triton.language as tl

@triton.jit
def k(p, x, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.atomic_add(p + offs % 4, tl.load(x + offs)))
)PY";
  auto fn = testing::lower_source("atomics.py", source, "k", "*bf16:16, *bf16:16, *bf16:16, BLOCK=128");
  nvptx::TargetOptions hopper;
  hopper.sm = 90;
  nvptx::CompiledPtx native = nvptx::compile_to_ptx(*fn, hopper);
  CHECK(count(native.ptx, "atom.global.gpu.acq_rel.add.noftz.bf16") == 1);
  CHECK(count(native.ptx, "cas.b16") == 0);
  CHECK(ptxas_errors(native).empty());
  nvptx::TargetOptions ampere;
  ampere.sm = 80;
  nvptx::CompiledPtx loop = nvptx::compile_to_ptx(*fn, ampere);
  CHECK(count(loop.ptx, "add.noftz.bf16") == 0);
  CHECK(count(loop.ptx, "atom.global.acq_rel.gpu.cas.b16") == 1);
  CHECK(ptxas_errors(loop).empty());
}

TEST_CASE("nvptx atomics: fp16/bf16 descriptor max/min are a compare-and-swap loop of PTX's max/min from sm_90",
          "[nvptx][atomics]") {
  // Triton 3.6 takes desc.atomic_max/min on fp16 and bf16 where the TMA is (sm_90 and newer).
  // PTX has no scalar atom.max.f16/bf16 (only .v2/.v4/.v8 on aligned pairs), so each element
  // is a cas.b16 loop whose new value is PTX's max.f16 / min.bf16; sm_80 is Triton's error.
  const char* source = R"PY(import triton
import triton.language as tl

@triton.jit
def k(out, x, M, N, BM: tl.constexpr, BN: tl.constexpr, MAX: tl.constexpr):
    v = tl.load(x + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    desc = tl.make_tensor_descriptor(out, [M, N], [N, 1], [BM, BN])
    if MAX:
        desc.atomic_max([0, 0], v)
    else:
        desc.atomic_min([0, 0], v)
)PY";
  for (const char* dtype : {"fp16", "bf16"}) {
    for (bool is_max : {true, false}) {
      std::string signature = std::string("*") + dtype + ":16, *" + dtype + ":16, i32, i32:16, BM=8, BN=32, MAX=" +
                              (is_max ? "True" : "False");
      INFO(signature);
      auto fn = testing::lower_source("atomics.py", source, "k", signature);
      nvptx::TargetOptions hopper;
      hopper.sm = 90;
      nvptx::CompiledPtx ptx = nvptx::compile_to_ptx(*fn, hopper);
      std::string arithmetic = std::string(is_max ? "max." : "min.") + (std::string(dtype) == "fp16" ? "f16 " : "bf16 ");
      // 256 elements over 128 threads: two loops per thread, one cas and one max/min each.
      CHECK(count(ptx.ptx, arithmetic) == 2);
      CHECK(count(ptx.ptx, "atom.global.release.gpu.cas.b16") == 2);
      CHECK(count(ptx.ptx, "atom.global.gpu.release.max") == 0);
      CHECK(ptxas_errors(ptx).empty());
      nvptx::TargetOptions ampere;
      ampere.sm = 80;
      try {
        nvptx::compile_to_ptx(*fn, ampere);
        FAIL("compiled for sm_80");
      } catch (const CompileError& e) {
        CHECK(std::string(e.what()).find("16-bit float types require native tma support") != std::string::npos);
        CHECK(e.line() == 9 + (is_max ? 0 : 2));
      }
    }
  }
}

TEST_CASE("nvptx atomics: a constant float max/min picks one atomic by its sign", "[nvptx][atomics]") {
  // The sign test folds: exactly one of the two emulating atomics remains.
  const char* source = R"PY(import triton
import triton.language as tl

@triton.jit
def k(p, out):
    tl.store(out, tl.atomic_max(p, 1.0))
    tl.store(out + 1, tl.atomic_min(p, -2.0))
)PY";
  nvptx::CompiledPtx c = compile_source(source, "k", "*fp32:16, *fp32:16");
  REQUIRE(count(c.ptx, "acq_rel.max.s32") == 1);  // max(1.0): signed max on the bits
  REQUIRE(count(c.ptx, "acq_rel.max.u32") == 1);  // min(-2.0): unsigned max on the bits
  REQUIRE(count(c.ptx, "acq_rel.min.") == 0);
  std::string errors = ptxas_errors(c);
  INFO(errors);
  REQUIRE(errors.empty());
}

TEST_CASE("nvptx atomics: refused element types and kinds are located errors", "[nvptx][atomics]") {
  using K = ir::ScalarKind;
  std::vector<std::pair<std::string, K>> dtypes = {{"i1", K::I1},   {"i8", K::I8},     {"u8", K::U8},
                                                   {"i16", K::I16}, {"u16", K::U16},   {"bf16", K::BF16},
                                                   {"fp16", K::F16}, {"fp32", K::F32}, {"fp64", K::F64}};
  int refused = 0;
  for (const auto& [dtype, element] : dtypes) {
    for (const std::string& kind : all_kinds()) {
      bool is_float = ir::is_float(element);
      std::optional<ir::AtomicKind> k = ir::parse_enum<ir::AtomicKind>(kind);
      // cas: any element of 16, 32 or 64 bits (Triton 3.6 takes bf16 and int16 too; this
      // refused int16 and uint16 until that was found).
      bool allowed = k ? ir::atomic_admits(*k, element) : ir::bit_width(element) >= 16;
      if (allowed) continue;
      std::string value = is_float ? "1.0" : "1";
      std::string call = kind == "cas" ? "tl.atomic_cas(p, " + value + ", " + value + ")"
                                       : "tl.atomic_" + kind + "(p, " + value + ")";
      std::string source = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(p):\n    x = 1\n    " +
                           call + "\n";
      INFO(dtype << " " << kind);
      try {
        compile_source(source, "k", "*" + dtype + ":16");
        FAIL("compiled");
      } catch (const CompileError& e) {
        ++refused;
        REQUIRE(e.line() == 7);
        REQUIRE(e.col() == 5);
      }
    }
  }
  REQUIRE(refused > 40);
}
