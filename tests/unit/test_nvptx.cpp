// Unit tests of the NVPTX code generator (src/target/nvptx): the layout's ownership laws,
// then kernels parsed, lowered and compiled to PTX, checked for the instructions that
// matter and, where /usr/local/cuda/bin/ptxas exists, assembled by ptxas for the target.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "frontend/parser.h"
#include "nvptx_test_support.h"
#include "ir/parser.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/layout.h"
#include "target/nvptx/libdevice.h"
#include "target/nvptx/vector_widths.h"
#include "transforms/pipeline.h"
#include "tritium/errors.h"

using namespace tritium;
using nvptx::CompiledPtx;
using nvptx::Layout;
using nvptx::TargetOptions;

namespace {

const char* kKernels = R"PY(import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + y, mask=mask)

@triton.jit
def issue741(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)

@triton.jit
def loops(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, n, BLOCK):
        v = tl.load(x_ptr + i + tl.arange(0, BLOCK))
        if i > 3:
            acc += v
        else:
            acc = acc * 2
    i = 0
    while i < n:
        i += 1
    for j in range(n, 0, -3):
        acc = acc - j
    tl.store(x_ptr + tl.arange(0, BLOCK), acc)

@triton.jit
def atomics(counter_ptr, out_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    old = tl.atomic_add(counter_ptr, 1)
    tl.store(out_ptr + pid, old)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    prev = tl.atomic_add(x_ptr + offs, 1.0, mask=mask, sem="relaxed", scope="cta")
    m = tl.atomic_max(x_ptr + offs, prev, mask=mask, sem="acquire", scope="sys")
    c = tl.atomic_cas(counter_ptr + 1, 0, pid)
    x = tl.atomic_xchg(x_ptr + offs, m, mask=mask, sem="release")
    tl.store(x_ptr + offs, x + c, mask=mask)

@triton.jit
def atomic_unused(counter_ptr):
    tl.atomic_add(counter_ptr, 1)

@triton.jit
def abs_any(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs)))

@triton.jit
def halfs(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    c = a * b + a - b
    d = c.to(tl.bfloat16) * 2.0
    e = tl.maximum(d.to(tl.float32), 1.0) / a.to(tl.float32)
    tl.store(out_ptr + offs, e.to(tl.float16), mask=mask)
    tl.store(c_ptr + offs, (c > a).to(tl.int8) + (a.to(tl.int32) // 3).to(tl.int8), mask=mask)

@triton.jit
def bcast(x_ptr, y_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BM))
    y = tl.load(y_ptr + tl.arange(0, BN))
    z = x[:, None] + y[None, :]
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, z)

@triton.jit
def spin(flag_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr):
    n = tl.load(flag_ptr)
    i = 0
    while i < n:
        v = tl.load(x_ptr + tl.arange(0, BLOCK))
        w = tl.broadcast_to(v[:, None], [BLOCK, BLOCK])
        tl.store(out_ptr + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], w)
        i += 1

@triton.jit
def math32(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.exp(x) + tl.log(x) + tl.sqrt(x) + tl.rsqrt(x) + tl.sin(x) + tl.cos(x)
    y = y + tl.exp2(x) + tl.log2(x) + tl.abs(x) + tl.floor(x) + tl.ceil(x) + x % 3.0
    tl.store(y_ptr + offs, y)

@triton.jit
def math64(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.exp(x))

@triton.jit
def ints(x_ptr, y_ptr, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = x // y + x % y + (x << y) + (x >> y) + tl.minimum(x, y) + (x ^ y)
    tl.store(x_ptr + offs, z, mask=x > s)
    tl.store(x_ptr, s)

@triton.jit
def atom_types(h_ptr, d_ptr, l_ptr, c_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(h_ptr + offs % 8, 0.5, mask=mask)
    tl.atomic_add(d_ptr + offs % 8, 0.25, mask=mask)
    tl.atomic_max(l_ptr + offs % 8, offs.to(tl.int64) * 1000000000, mask=mask)
    tl.atomic_store(x_ptr + offs, offs.to(tl.float16), mask=mask, sem="relaxed")
    tl.atomic_cas(c_ptr + offs % 8, offs % 8, offs % 8 + 100)

@triton.jit
def one_elem(x_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, 1))
    w = tl.broadcast_to(v, [BLOCK])
    if flag:
        w = w + 1.0
    tl.store(out_ptr + tl.program_id(1) * BLOCK + tl.arange(0, BLOCK), w)

@triton.jit
def wait_flag(flag_ptr, out_ptr):
    while tl.load(flag_ptr, volatile=True) == 0:
        pass
    tl.store(out_ptr + tl.program_id(0), 1)

@triton.jit
def loop64(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.int64)
    for i in range(0, n, 3):
        acc += i
    tl.store(x_ptr + tl.arange(0, BLOCK), acc)

@triton.jit
def copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))

@triton.jit
def masked_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=-1.0), mask=mask)

@triton.jit
def copy2d(x_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)

@triton.jit
def gather(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.load(x_ptr + i))

@triton.jit
def row_cumsum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), 0))

@triton.jit
def masked_where(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
    tl.store(out_ptr + offs, tl.where(offs < n, x - 1., 0.))

@triton.jit
def volatile_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, volatile=True))

@triton.jit
def carried_bytes(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # An int8 block loaded one iteration ahead: the loop carries it.
    offs = tl.arange(0, BLOCK)
    held = tl.load(x_ptr + offs)
    for i in range(n):
        ahead = tl.load(x_ptr + (i + 1) * BLOCK + offs)
        tl.store(y_ptr + i * BLOCK + offs, held)
        held = ahead
)PY";

// Lowers `kernel` of kKernels for `signature` and runs the pass pipeline.
std::unique_ptr<ir::Function> lower(const std::string& kernel, const std::string& signature) {
  return testing::lower_source("kernels.py", kKernels, kernel, signature);
}

// Lowers `kernel` of kKernels for `signature` and compiles it.
CompiledPtx compile(const std::string& kernel, const std::string& signature, TargetOptions options = {}) {
  return nvptx::compile_to_ptx(*lower(kernel, signature), options);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

using testing::count;
using testing::ptxas_errors;

#define REQUIRE_PTXAS_ACCEPTS(compiled)         \
  do {                                          \
    std::string errors = ptxas_errors(compiled); \
    INFO(errors);                               \
    REQUIRE(errors.empty());                    \
  } while (0)

}  // namespace

TEST_CASE("layout: every element has exactly one owner", "[nvptx][layout]") {
  for (int threads : {32, 128, 256}) {
    for (int vector : {1, 2, 4}) {
      for (int64_t n : {1, 7, 32, 100, 128, 1000, 1024, 4096}) {
        Layout layout(n, threads, vector);
        std::map<int64_t, int> owners;
        for (int t = 0; t < threads; ++t) {
          for (int r = 0; r < layout.num_regs(); ++r) {
            int64_t e = layout.element(t, r);
            if (e >= n) continue;
            ++owners[e];
            REQUIRE(layout.owner(e) == t);
            REQUIRE(layout.reg_of(e) == r);
            REQUIRE(e == layout.reg_base(r) + int64_t{t} * layout.thread_stride());
          }
        }
        REQUIRE(static_cast<int64_t>(owners.size()) == n);
        for (auto& [e, k] : owners) REQUIRE(k == 1);
        REQUIRE(layout.full() == (n % (int64_t{threads} * vector) == 0));
      }
    }
  }
}

TEST_CASE("layout: broadcasts that stay in their threads", "[nvptx][layout]") {
  REQUIRE(nvptx::broadcast_source({1, 4}, {3, 4}, 6) == 2);
  REQUIRE(nvptx::broadcast_source({3, 1}, {3, 4}, 6) == 1);
  // [1, 256] -> [4, 256] over 128 threads: column j lives on thread j % 128 in both.
  auto local = nvptx::local_broadcast({1, 256}, {4, 256}, Layout(256, 128), Layout(1024, 128));
  REQUIRE(local.has_value());
  REQUIRE(*local == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
  // [32, 1] -> [32, 64] moves elements between threads.
  REQUIRE_FALSE(nvptx::local_broadcast({32, 1}, {32, 64}, Layout(32, 128), Layout(2048, 128)).has_value());
}

TEST_CASE("layout: vector groups are aligned runs with one owner", "[nvptx][layout]") {
  // What vectorized loads and stores rely on (vector_widths.cpp): registers r .. r + w - 1
  // with w | r, w | V hold elements e .. e + w - 1 with w | e, all owned or none.
  for (int threads : {32, 128}) {
    for (int vector : {1, 2, 4, 8, 16}) {
      for (int64_t n : {16, 48, 64, 256, 1024, 4096, 6144}) {
        if (n % vector != 0) continue;
        Layout layout(n, threads, vector);
        for (int w = 1; w <= vector; w *= 2) {
          for (int t = 0; t < threads; ++t) {
            for (int r = 0; r < layout.num_regs(); r += w) {
              int64_t first = layout.element(t, r);
              REQUIRE(first % w == 0);
              for (int i = 1; i < w; ++i) {
                REQUIRE(layout.element(t, r + i) == first + i);
                REQUIRE((layout.element(t, r + i) < n) == (first < n));
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("layout: broadcasts between layouts of any V", "[nvptx][layout]") {
  // With V = 2 on both sides, column j of [1, 256] and of [4, 256] lives on thread (j / 2) % 128.
  auto local = nvptx::local_broadcast({1, 256}, {4, 256}, Layout(256, 128, 2), Layout(1024, 128, 2));
  REQUIRE(local.has_value());
  REQUIRE(*local == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
  // V = 1 to V = 2 moves column j from thread j % 128 to thread (j / 2) % 128.
  REQUIRE_FALSE(nvptx::local_broadcast({1, 256}, {4, 256}, Layout(256, 128, 1), Layout(1024, 128, 2)).has_value());
  // Whenever a broadcast is found local, each register reads the right source element.
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1, 64}, {32, 64}}, {{32, 1}, {32, 64}}, {{1, 256}, {8, 256}}, {{16, 1}, {16, 16}},
      {{1, 1}, {8, 128}}, {{4, 1, 8}, {4, 16, 8}}, {{1, 512}, {2, 512}}};
  int found = 0;
  for (auto& [from, to] : cases) {
    int64_t from_n = 1, to_n = 1;
    for (int64_t d : from) from_n *= d;
    for (int64_t d : to) to_n *= d;
    for (int threads : {32, 128}) {
      for (int vs : {1, 2, 4, 8}) {
        for (int vr : {1, 2, 4, 8}) {
          if (from_n % vs != 0 || to_n % vr != 0) continue;
          Layout source(from_n, threads, vs), result(to_n, threads, vr);
          auto regs = nvptx::local_broadcast(from, to, source, result);
          if (!regs) continue;
          ++found;
          for (int t = 0; t < threads; ++t) {
            for (int r = 0; r < result.num_regs(); ++r) {
              int64_t e = result.element(t, r);
              if (e >= to_n) continue;
              REQUIRE(source.element(t, (*regs)[r]) == nvptx::broadcast_source(from, to, e));
            }
          }
        }
      }
    }
  }
  REQUIRE(found > 10);
}

TEST_CASE("layout: registers of a broadcast that read one source element", "[nvptx][layout]") {
  // [1, 128] -> [128, 128] over 128 threads with V = 8: thread t holds columns 8t % 128 ..
  // + 7 in every round of 1024 elements, so its 128 registers hold 8 values.
  Layout result(128 * 128, 128, 8);
  std::vector<int> classes = nvptx::broadcast_classes({1, 128}, {128, 128}, result);
  REQUIRE(classes.size() == 128);
  for (int r = 0; r < 128; ++r) REQUIRE(classes[r] == r % 8);
  REQUIRE(nvptx::distinct_broadcast_values({1, 128}, {128, 128}, result) == 8);
  // A column broadcast [128, 1] -> [128, 128]: one row a round, so one value a round.
  REQUIRE(nvptx::distinct_broadcast_values({128, 1}, {128, 128}, result) == 16);
  // Whatever the shapes and V, registers of one class read one source element in every
  // thread, and each class's first register is itself.
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1, 64}, {32, 64}}, {{32, 1}, {32, 64}}, {{1, 1}, {8, 128}}, {{4, 1, 8}, {4, 16, 8}}, {{1, 48}, {5, 48}}};
  for (auto& [from, to] : cases) {
    int64_t n = 1;
    for (int64_t d : to) n *= d;
    for (int threads : {32, 128}) {
      for (int v : {1, 2, 4, 8}) {
        if (n % v != 0) continue;
        Layout layout(n, threads, v);
        std::vector<int> c = nvptx::broadcast_classes(from, to, layout);
        REQUIRE(static_cast<int>(c.size()) == layout.num_regs());
        for (int r = 0; r < layout.num_regs(); ++r) {
          REQUIRE(c[c[r]] == c[r]);
          REQUIRE(c[r] <= r);
          for (int t = 0; t < threads; ++t) {
            int64_t e = layout.element(t, r), f = layout.element(t, c[r]);
            REQUIRE((e < n) == (f < n));
            if (e < n) REQUIRE(nvptx::broadcast_source(from, to, e) == nvptx::broadcast_source(from, to, f));
          }
        }
      }
    }
  }
}

TEST_CASE("nvptx: vector add", "[nvptx]") {
  CompiledPtx c = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024");
  REQUIRE(c.kernel_name == "add_kernel");
  REQUIRE(count(c.ptx, ".visible .entry") == 1);
  REQUIRE(has(c.ptx, ".visible .entry add_kernel("));
  REQUIRE(has(c.ptx, ".target sm_90"));
  REQUIRE(has(c.ptx, ".maxntid 128"));
  REQUIRE(has(c.ptx, "ld.global"));
  REQUIRE(has(c.ptx, "st.global"));
  REQUIRE(has(c.ptx, "%ctaid.x"));
  REQUIRE_FALSE(has(c.ptx, "bar.sync"));
  REQUIRE(c.shared_bytes == 0);
  REQUIRE(c.num_warps == 4);
  REQUIRE(has(c.llvm_ir, "ptx_kernel"));
  REQUIRE_FALSE(has(c.llvm_ir, "noalias"));  // kernels update buffers in place
  REQUIRE(c.params.size() == 4);
  REQUIRE(c.params[0].is_pointer);
  REQUIRE(c.params[0].size == 8);
  REQUIRE(c.params[3].name == "n");
  REQUIRE(c.params[3].size == 4);
  REQUIRE(c.params[3].index == 3);
  REQUIRE_PTXAS_ACCEPTS(c);
}

TEST_CASE("nvptx: num_warps and targets", "[nvptx]") {
  for (int sm : {80, 90}) {
    for (int warps : {1, 4, 8}) {
      TargetOptions options;
      options.sm = sm;
      options.num_warps = warps;
      CompiledPtx c = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", options);
      INFO("sm_" << sm << ", num_warps " << warps);
      REQUIRE(has(c.ptx, ".target sm_" + std::to_string(sm)));
      REQUIRE(has(c.ptx, ".maxntid " + std::to_string(32 * warps)));
      REQUIRE(c.ptx_version == (sm == 90 ? 80 : 70));
      REQUIRE(has(c.ptx, sm == 90 ? ".version 8.0" : ".version 7.0"));
      REQUIRE_PTXAS_ACCEPTS(c);
    }
  }
}

TEST_CASE("nvptx: issue 741 kernel", "[nvptx]") {
  for (int warps : {1, 4}) {
    TargetOptions options;
    options.num_warps = warps;
    CompiledPtx c = compile("issue741", "*i64:16, *fp32:16, *fp32:16, i32:16, 1024", options);
    REQUIRE(has(c.ptx, "ld.global"));
    REQUIRE(has(c.ptx, "st.global"));
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("nvptx: loops, branches and while", "[nvptx]") {
  CompiledPtx c = compile("loops", "*fp32:16, i32, 64");
  REQUIRE(has(c.ptx, "bra"));
  REQUIRE_PTXAS_ACCEPTS(c);
  TargetOptions sm80;
  sm80.sm = 80;
  REQUIRE_PTXAS_ACCEPTS(compile("loops", "*fp32:16, i64, 256", sm80));
}

TEST_CASE("nvptx: atomics on scalars and blocks", "[nvptx]") {
  CompiledPtx c = compile("atomics", "*i32:16, *i32:16, *fp32:16, i32:16, 256");
  // The scalar add: thread 0, default acq_rel at gpu scope, its old value broadcast.
  REQUIRE(has(c.ptx, "atom.global.gpu.acq_rel.add.u32"));
  REQUIRE(has(c.ptx, "atom.global.cta.relaxed.add.f32"));
  // Float max on the bits: a signed max for non-negative values, an unsigned min otherwise.
  REQUIRE(has(c.ptx, "atom.global.sys.acquire.max.s32"));
  REQUIRE(has(c.ptx, "atom.global.sys.acquire.min.u32"));
  REQUIRE(has(c.ptx, "atom.global.acq_rel.gpu.cas.b32"));
  REQUIRE(has(c.ptx, "atom.global.gpu.release.exch.b32"));
  REQUIRE(has(c.ptx, "bar.sync"));
  REQUIRE(c.shared_bytes >= 4);
  REQUIRE_PTXAS_ACCEPTS(c);
  TargetOptions sm80;
  sm80.sm = 80;
  REQUIRE_PTXAS_ACCEPTS(compile("atomics", "*i32:16, *i32:16, *fp32:16, i32:16, 256", sm80));
  // An atomic whose old value nobody reads needs no barrier.
  CompiledPtx unused = compile("atomic_unused", "*i32:16");
  REQUIRE(has(unused.ptx, "atom.global.gpu.acq_rel.add.u32"));
  REQUIRE_FALSE(has(unused.ptx, "bar.sync"));
  REQUIRE(unused.shared_bytes == 0);
  REQUIRE_PTXAS_ACCEPTS(unused);
}

TEST_CASE("nvptx: abs of fp8 clears the sign bit of its code", "[nvptx]") {
  // fp8 lives as its bits (an i8): LLVM's fabs has no such type (Triton's test_abs_fp8 hit it).
  for (const char* dtype : {"fp8e5", "fp8e4nv", "fp8e4b15"}) {
    CAPTURE(dtype);
    CompiledPtx c = compile("abs_any", std::string("*") + dtype + ":16, *" + dtype + ":16, 256");
    REQUIRE(has(c.ptx, "and.b16"));
    REQUIRE_FALSE(has(c.ptx, "abs.f"));
    REQUIRE_PTXAS_ACCEPTS(c);
  }
  REQUIRE(has(compile("abs_any", "*fp16:16, *fp16:16, 256").ptx, "abs.f16"));
}

TEST_CASE("nvptx: atomics on fp16, fp64 and i64; cas on a block", "[nvptx]") {
  // 64 elements over 128 threads: half the threads own nothing and must not touch memory.
  CompiledPtx c = compile("atom_types", "*fp16:16, *fp64:16, *i64:16, *i32:16, *fp16:16, i32, 64");
  REQUIRE(has(c.ptx, "atom.global.gpu.acq_rel.add.noftz.f16"));
  REQUIRE(has(c.ptx, "atom.global.gpu.acq_rel.add.f64"));
  REQUIRE(has(c.ptx, "atom.global.gpu.acq_rel.max.s64"));
  REQUIRE(has(c.ptx, ".gpu.cas.b16"));  // an fp16 atomic_store: an exchange, a cas loop
  REQUIRE(has(c.ptx, "atom.global.acq_rel.gpu.cas.b32"));
  REQUIRE(has(c.ptx, "%tid.x"));
  REQUIRE_PTXAS_ACCEPTS(c);
}

TEST_CASE("nvptx: bool parameters, one-element broadcasts, 64-bit loops, volatile loads", "[nvptx]") {
  CompiledPtx c = compile("one_elem", "*fp32:16, *fp32:16, i1, 256");
  REQUIRE(c.params.size() == 3);
  REQUIRE(c.params[2].kind == ir::ScalarKind::I1);
  REQUIRE(c.params[2].size == 4);  // a bool travels as a 4-byte integer
  REQUIRE(has(c.ptx, ".param .u32"));
  REQUIRE(has(c.ptx, "%ctaid.y"));
  REQUIRE(has(c.ptx, "bar.sync"));  // element 0 lives in thread 0 only
  REQUIRE_PTXAS_ACCEPTS(c);
  CompiledPtx l = compile("loop64", "*i64:16, i64, 32");
  REQUIRE_PTXAS_ACCEPTS(l);
  // A volatile load stays in the loop (LLVM would hoist a plain one and spin forever).
  CompiledPtx w = compile("wait_flag", "*i32:16, *i32:16");
  REQUIRE(has(w.ptx, "ld.volatile.global"));
  REQUIRE_PTXAS_ACCEPTS(w);
}

TEST_CASE("nvptx: fp16 and bf16 arithmetic and casts", "[nvptx]") {
  for (int sm : {80, 90}) {
    TargetOptions options;
    options.sm = sm;
    CompiledPtx c = compile("halfs", "*fp16:16, *fp16:16, *i8:16, *fp16:16, i32, 128", options);
    REQUIRE(has(c.ptx, ".f16"));
    REQUIRE(has(c.ptx, "bf16"));
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("nvptx: 2-D broadcast goes through shared memory", "[nvptx]") {
  for (int warps : {1, 4, 8}) {
    TargetOptions options;
    options.num_warps = warps;
    CompiledPtx c = compile("bcast", "*fp32:16, *fp32:16, *fp32:16, 32, 64", options);
    INFO("num_warps " << warps);
    REQUIRE(has(c.ptx, "bar.sync"));
    REQUIRE(has(c.ptx, "st.shared"));
    REQUIRE(has(c.ptx, "ld.shared"));
    REQUIRE(has(c.ptx, ".extern .shared"));
    REQUIRE(c.shared_bytes >= 32 * 4);
    // The result has V = 4 (its store is 16-byte wide), the sources V = 1 or 2.
    REQUIRE(count(c.ptx, "st.global.v4.") == 2048 / (32 * warps * 4));
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("nvptx: a scan combines each partner total once per run, across warps in one round", "[nvptx]") {
  // 16 fp32 per thread (4 runs of 4 along the row): each run scanned in order, the totals
  // taken from other lanes and warps gathered once per run and joined to each register's
  // prefix at the end
  // (84 and 100 adds; one combine per register and level was 168 and 188). The levels
  // across warps share one round through shared memory: one barrier (one per level was 3
  // and 5), every warp's 4 run totals read back 4 to a vector load.
  for (int warps : {4, 8}) {
    TargetOptions options;
    options.num_warps = warps;
    CompiledPtx c = compile("row_cumsum", "*fp32:16, *fp32:16, " + std::to_string(warps * 512), options);
    INFO("num_warps " << warps);
    REQUIRE(count(c.ptx, "ld.global.v4.") == 4);
    REQUIRE(count(c.ptx, "add.f32") <= 7 * 16);
    REQUIRE(count(c.ptx, "bar.sync") == 1);
    REQUIRE(count(c.ptx, "ld.shared.v4.") == 4 * warps / 4);
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("nvptx: a mask constant over runs of the row is compared once per run", "[nvptx]") {
  // n divisible by 16: `offs < n` is the same over each thread's 4 consecutive elements, so
  // tl.where's 16 selects per thread share 4 compares (16 before, one per element).
  CompiledPtx c = compile("masked_where", "*fp32:16, *fp32:16, i32:16, 2048");
  REQUIRE(count(c.ptx, "selp.f32") == 16);
  REQUIRE(count(c.ptx, "setp.lt.s32") == 4);
  REQUIRE_PTXAS_ACCEPTS(c);
  // Without the fact, one compare per element.
  CompiledPtx d = compile("masked_where", "*fp32:16, *fp32:16, i32, 2048");
  REQUIRE(count(d.ptx, "setp.lt.s32") >= 16);
}

TEST_CASE("nvptx: a loaded scalar deciding a loop with barriers is made uniform", "[nvptx]") {
  CompiledPtx c = compile("spin", "*i32:16, *fp32:16, *fp32:16, 64");
  REQUIRE(has(c.ptx, "bar.sync"));
  REQUIRE_PTXAS_ACCEPTS(c);
}

TEST_CASE("nvptx: math and integer ops", "[nvptx]") {
  // What Triton 3.6 emits for sm_90: exp is ex2.approx.f32 of x * log2(e), exp2, sqrt and
  // rsqrt the flush-to-zero approximations, floor and ceil cvt.rmi/rpi.ftz, and log, log2,
  // sin and cos libdevice's functions (inlined: no approximate instruction left) where
  // libdevice is installed, else the hardware's approximations.
  CompiledPtx m = compile("math32", "*fp32:16, *fp32:16, 128");
  REQUIRE(has(m.ptx, "ex2.approx.f32"));
  REQUIRE(has(m.ptx, "ex2.approx.ftz.f32"));
  REQUIRE(has(m.ptx, "sqrt.approx.ftz.f32"));  // tl.sqrt_rn: sqrt.rn
  REQUIRE(has(m.ptx, "rsqrt.approx.ftz.f32"));
  REQUIRE(has(m.ptx, "cvt.rmi.ftz.f32.f32"));
  REQUIRE(has(m.ptx, "cvt.rpi.ftz.f32.f32"));
  const bool libdevice = !nvptx::libdevice_path().empty();
  INFO("libdevice: " << (libdevice ? nvptx::libdevice_path() : std::string("not installed")));
  REQUIRE(has(m.ptx, "lg2.approx") != libdevice);
  REQUIRE(has(m.ptx, "sin.approx") != libdevice);
  REQUIRE(has(m.ptx, "cos.approx") != libdevice);
  REQUIRE_PTXAS_ACCEPTS(m);
  for (const char* type : {"i32", "u32", "i64", "i8", "u16"}) {
    std::string t = type;
    CompiledPtx c = compile("ints", "*" + t + ":16, *" + t + ":16, " + t + ", 128");
    INFO(t);
    REQUIRE(has(c.ptx, "div."));
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("nvptx: LLVM IR before and after optimization", "[nvptx]") {
  auto file = std::make_shared<SourceFile>("kernels.py", kKernels);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("add_kernel"), {});
  Signature sig = parse_signature("*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", params.names, params.is_constexpr);
  auto function = lower_kernel(module, "add_kernel", sig, {});
  transforms::run_pipeline(*function, {true});
  std::string raw = nvptx::emit_llvm_ir(*function, {}, false);
  REQUIRE(has(raw, "define ptx_kernel void @add_kernel(ptr addrspace(1)"));
  REQUIRE(has(raw, "\"nvvm.maxntid\"=\"128\""));
  REQUIRE(has(raw, "target triple = \"nvptx64-nvidia-cuda\""));
  std::string optimized = nvptx::emit_llvm_ir(*function, {});
  REQUIRE(has(optimized, "define ptx_kernel void @add_kernel("));
}

TEST_CASE("nvptx: compiles from several threads at once, deterministically", "[nvptx]") {
  auto file = std::make_shared<SourceFile>("kernels.py", kKernels);
  auto module = parse_module(file);
  KernelParams params = read_params(*module->find_function("bcast"), {});
  Signature sig = parse_signature("*fp32:16, *fp32:16, *fp32:16, 32, 64", params.names, params.is_constexpr);
  auto function = lower_kernel(module, "bcast", sig, {});
  transforms::run_pipeline(*function, {true});
  std::string expected = nvptx::compile_to_ptx(*function, {}).ptx;
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { got[i] = nvptx::compile_to_ptx(*function, {}).ptx; });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& ptx : got) REQUIRE(ptx == expected);
}

TEST_CASE("nvptx: fp64 exp calls libdevice, as Triton's does", "[nvptx]") {
  // It was a located "not supported on the GPU yet" error (75 'GPU refused' seeds of the
  // 2026-12-02 differential run). Without libdevice: a located error naming it.
  if (nvptx::libdevice_path().empty()) {
    try {
      compile("math64", "*fp64:16, 64");
      FAIL("fp64 exp compiled without libdevice");
    } catch (const CompileError& e) {
      REQUIRE(e.line() == 100);
      REQUIRE(has(e.message(), "fp64"));
      REQUIRE(has(e.message(), "libdevice"));
    }
  } else {
    CompiledPtx exp64 = compile("math64", "*fp64:16, 64");
    REQUIRE(has(exp64.ptx, ".entry math64"));
    REQUIRE(has(exp64.ptx, "fma.rn.f64"));
    REQUIRE_FALSE(has(exp64.ptx, "ex2.approx"));  // not the fp32 approximation
    REQUIRE_FALSE(has(exp64.ptx, "__nv_exp"));    // linked and inlined
    REQUIRE_PTXAS_ACCEPTS(exp64);
  }
}

TEST_CASE("nvptx: what the GPU cannot do is a located compile error", "[nvptx]") {
  // Options the target cannot take: errors, never an LLVM abort or warning.
  TargetOptions bad;
  bad.num_warps = 3;
  REQUIRE_THROWS_AS(compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", bad), CompileError);
  TargetOptions old_ptx;
  old_ptx.ptx_version = 70;  // sm_90 needs 7.8
  REQUIRE_THROWS_WITH(compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", old_ptx),
                      Catch::Contains("cannot target sm_90"));
  TargetOptions unknown_ptx;
  unknown_ptx.ptx_version = 99;
  REQUIRE_THROWS_AS(compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", unknown_ptx), CompileError);
  TargetOptions unknown_sm;
  unknown_sm.sm = 91;
  REQUIRE_THROWS_AS(compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", unknown_sm), CompileError);
}

// ---- vectorization (vector_widths.h): the widest access the axis facts allow ----

namespace {

// The widths chosen for the loads and stores of `function`'s body, in program order.
std::vector<int> access_widths(const ir::Function& function, const nvptx::VectorWidths& widths) {
  std::vector<int> out;
  for (const auto& op : function.body().ops()) {
    if (op->kind() == ir::OpKind::Load || op->kind() == ir::OpKind::Store) out.push_back(widths.width(*op));
  }
  return out;
}

// Global loads and stores of the PTX that move more than one element.
int vector_accesses(const std::string& ptx) {
  return count(ptx, "ld.global.v") + count(ptx, "st.global.v") + count(ptx, "ld.volatile.global.v");
}

}  // namespace

TEST_CASE("vectorize: widths and V from the axis facts", "[nvptx][vectorize]") {
  auto plan = [](const std::string& kernel, const std::string& signature, int threads = 128) {
    return nvptx::choose_vector_widths(*lower(kernel, signature), threads);
  };
  REQUIRE(plan("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024").vector(1024) == 4);
  REQUIRE(plan("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024").vector(1024) == 1);  // mask constancy 1
  REQUIRE(plan("add_kernel", "*fp32, *fp32, *fp32, i32:16, 1024").vector(1024) == 1);        // 4-byte aligned
  REQUIRE(plan("copy", "*fp32:16, *fp32:16, 1024").vector(1024) == 4);
  REQUIRE(plan("copy", "*fp32:16, *fp32:16, 256").vector(256) == 2);  // at least V per thread: 256 / 128
  REQUIRE(plan("copy", "*fp32:16, *fp32:16, 64").vector(64) == 1);
  REQUIRE(plan("copy", "*fp32:16, *fp32:16, 64", 32).vector(64) == 2);
  REQUIRE(plan("copy", "*fp16:16, *fp16:16, 1024").vector(1024) == 8);
  REQUIRE(plan("copy", "*i8:16, *i8:16, 4096").vector(4096) == 16);
  REQUIRE(plan("copy", "*i64:16, *i64:16, 1024").vector(1024) == 2);
  REQUIRE(plan("copy2d", "*fp32:16, *fp32:16, 32, 64").vector(2048) == 4);
  REQUIRE(plan("copy2d", "*fp32:16, *fp32:16, 256, 2").vector(512) == 2);  // rows of 2
  REQUIRE(plan("copy2d", "*fp32:16, *fp32:16, 64, 1").vector(64) == 1);    // rows of 1: a column
  // Issue 741: the int64 loads move 2, the fp32 load 4, the scatter store 1 element at a time.
  auto f741 = lower("issue741", "*i64:16, *fp32:16, *fp32:16, i32:16, 1024");
  auto w741 = nvptx::choose_vector_widths(*f741, 128);
  REQUIRE(w741.vector(1024) == 4);
  REQUIRE(access_widths(*f741, w741) == std::vector<int>{2, 4, 1});
  // A gather: the index load is contiguous, the gathered load not.
  auto fg = lower("gather", "*fp32:16, *i32:16, *fp32:16, 512");
  REQUIRE(access_widths(*fg, nvptx::choose_vector_widths(*fg, 128)) == std::vector<int>{4, 1, 4});
  auto fv = lower("volatile_copy", "*fp32:16, *fp32:16, 512");
  REQUIRE(access_widths(*fv, nvptx::choose_vector_widths(*fv, 128)) == std::vector<int>{1, 4});
}

TEST_CASE("vectorize: vector add issues 128-bit loads and stores", "[nvptx][vectorize]") {
  CompiledPtx c = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024");
  // 1024 elements over 128 threads: 8 per thread, two groups of 4 per pointer.
  REQUIRE(count(c.ptx, "ld.global.v4.") == 4);
  REQUIRE(count(c.ptx, "st.global.v4.") == 2);
  REQUIRE(count(c.ptx, "ld.global") == 4);
  REQUIRE(count(c.ptx, "st.global") == 2);
  REQUIRE_PTXAS_ACCEPTS(c);
  // The cap V <= N / threads: 256 elements over 128 threads move 2 at a time, 64 one.
  CompiledPtx c256 = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 256");
  REQUIRE(count(c256.ptx, "ld.global.v2.") == 2);
  REQUIRE(count(c256.ptx, "st.global.v2.") == 1);
  REQUIRE_PTXAS_ACCEPTS(c256);
  CompiledPtx c64 = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 64");
  REQUIRE(vector_accesses(c64.ptx) == 0);
  REQUIRE_PTXAS_ACCEPTS(c64);
  // Vectorization off (the benchmark's "before"): one element per access.
  TargetOptions scalar;
  scalar.vectorize = false;
  CompiledPtx off = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", scalar);
  REQUIRE(vector_accesses(off.ptx) == 0);
  REQUIRE(count(off.ptx, "ld.global.b32") + count(off.ptx, "ld.global.f32") == 16);
  REQUIRE_PTXAS_ACCEPTS(off);
}

TEST_CASE("vectorize: masks of unknown constancy and unaligned pointers stay scalar", "[nvptx][vectorize]") {
  // n not known divisible by 16: `offs < n` may change at any element.
  CompiledPtx odd = compile("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  REQUIRE(vector_accesses(odd.ptx) == 0);
  REQUIRE(count(odd.ptx, "ld.global") == 16);
  REQUIRE(count(odd.ptx, "st.global") == 8);
  REQUIRE_PTXAS_ACCEPTS(odd);
  // ... while an unmasked copy stays 128-bit.
  CompiledPtx copy = compile("copy", "*fp32:16, *fp32:16, 1024");
  REQUIRE(count(copy.ptx, "ld.global.v4.") == 2);
  REQUIRE(count(copy.ptx, "st.global.v4.") == 2);
  REQUIRE_PTXAS_ACCEPTS(copy);
  // A masked copy with n divisible by 16: vectors, masked-off groups take `other` (-1.0).
  CompiledPtx masked = compile("masked_copy", "*fp32:16, *fp32:16, i32:16, 1024");
  REQUIRE(count(masked.ptx, "ld.global.v4.") == 2);
  REQUIRE(count(masked.ptx, "st.global.v4.") == 2);
  // -1.0 moved into the destinations of the predicated load (its bits in the inline PTX).
  REQUIRE(has(masked.ptx, "0xbf800000;"));
  REQUIRE_PTXAS_ACCEPTS(masked);
  // Pointers only known 4-byte aligned (no `:16`): no vector access anywhere.
  for (const char* signature : {"*fp32, *fp32, *fp32, i32:16, 1024", "*fp32, *fp32, *fp32, i32, 1024"}) {
    CompiledPtx c = compile("add_kernel", signature);
    INFO(signature);
    REQUIRE(vector_accesses(c.ptx) == 0);
    REQUIRE_PTXAS_ACCEPTS(c);
  }
  CompiledPtx unaligned = compile("copy", "*fp32, *fp32, 1024");
  REQUIRE(vector_accesses(unaligned.ptx) == 0);
  REQUIRE_PTXAS_ACCEPTS(unaligned);
  // An aligned load and an unaligned store: the load moves 4, the store 1 at a time.
  CompiledPtx half = compile("copy", "*fp32:16, *fp32, 1024");
  REQUIRE(count(half.ptx, "ld.global.v4.") == 2);
  REQUIRE(count(half.ptx, "st.global.v") == 0);
  REQUIRE(count(half.ptx, "st.global") == 8);
  REQUIRE_PTXAS_ACCEPTS(half);
}

TEST_CASE("vectorize: issue 741 loads are vectors, its scatter store is per element", "[nvptx][vectorize]") {
  struct Config {
    int warps;
    int block;
  };
  for (Config config : {Config{4, 1024}, Config{1, 128}, Config{8, 2048}}) {
    TargetOptions options;
    options.num_warps = config.warps;
    CompiledPtx c = compile("issue741", "*i64:16, *fp32:16, *fp32:16, i32:16, " + std::to_string(config.block), options);
    INFO("num_warps " << config.warps << ", XBLOCK " << config.block);
    int per_thread = config.block / (32 * config.warps);  // V = 4
    REQUIRE(count(c.ptx, "ld.global.v2.b64") + count(c.ptx, "ld.global.v2.u64") == per_thread / 2);
    REQUIRE(count(c.ptx, "ld.global.v4.") == per_thread / 4);
    REQUIRE(count(c.ptx, "ld.global") == per_thread / 2 + per_thread / 4);
    REQUIRE(count(c.ptx, "st.global.v") == 0);
    REQUIRE(count(c.ptx, "st.global") == per_thread);
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("vectorize: 16-bit, 8-bit, bool and 64-bit elements; 2-D blocks", "[nvptx][vectorize]") {
  // 16 bytes per access whatever the element: LLVM packs halves and bytes into b32 lanes.
  for (const char* type : {"fp16", "bf16", "i8", "i1", "i64", "fp64", "i16"}) {
    for (int sm : {80, 90}) {
      TargetOptions options;
      options.sm = sm;
      std::string t = type;
      CompiledPtx c = compile("copy", "*" + t + ":16, *" + t + ":16, 4096", options);
      INFO(t << " sm_" << sm);
      bool wide = t == "i64" || t == "fp64";
      int accesses = 4096 * (wide ? 8 : t == "i8" || t == "i1" ? 1 : 2) / 16 / 128;  // per thread
      REQUIRE(count(c.ptx, wide ? "ld.global.v2." : "ld.global.v4.b32") + count(c.ptx, "ld.global.v8.") == accesses);
      REQUIRE(count(c.ptx, wide ? "st.global.v2." : "st.global.v4.b32") + count(c.ptx, "st.global.v8.") == accesses);
      REQUIRE(count(c.ptx, "ld.global") == accesses);
      REQUIRE_PTXAS_ACCEPTS(c);
    }
  }
  CompiledPtx rows = compile("copy2d", "*fp32:16, *fp32:16, 32, 64");
  REQUIRE(count(rows.ptx, "ld.global.v4.") == 4);
  REQUIRE(count(rows.ptx, "st.global.v4.") == 4);
  REQUIRE_PTXAS_ACCEPTS(rows);
  CompiledPtx narrow = compile("copy2d", "*fp32:16, *fp32:16, 256, 2");
  REQUIRE(count(narrow.ptx, "ld.global.v2.") == 2);
  REQUIRE(count(narrow.ptx, "st.global.v2.") == 2);
  REQUIRE_PTXAS_ACCEPTS(narrow);
}

TEST_CASE("vectorize: gathers test contiguity at run time; volatile loads and atomics stay per element",
          "[nvptx][vectorize]") {
  CompiledPtx g = compile("gather", "*fp32:16, *i32:16, *fp32:16, 512");
  // The indices, then the gather: one vector load where the four addresses turn out
  // consecutive and aligned, else four loads (the facts cannot prove it; the run can).
  REQUIRE(count(g.ptx, "ld.global.v4.") == 2);
  REQUIRE(count(g.ptx, "ld.global") == 6);
  REQUIRE(count(g.ptx, "st.global.v4.") == 1);
  REQUIRE_PTXAS_ACCEPTS(g);
  CompiledPtx v = compile("volatile_copy", "*fp32:16, *fp32:16, 512");
  REQUIRE(count(v.ptx, "ld.volatile.global.v") == 0);
  REQUIRE(count(v.ptx, "ld.volatile.global") == 4);
  REQUIRE(count(v.ptx, "st.global.v4.") == 1);
  REQUIRE_PTXAS_ACCEPTS(v);
  // 256 elements with V = 2 (the final store): every atomic still once per element.
  CompiledPtx a = compile("atomics", "*i32:16, *i32:16, *fp32:16, i32:16, 256");
  REQUIRE(count(a.ptx, "atom.global.cta.relaxed.add.f32") == 2);
  REQUIRE(count(a.ptx, "atom.global.gpu.release.exch.b32") == 2);
  REQUIRE(count(a.ptx, "st.global.v2.") == 1);
  REQUIRE_PTXAS_ACCEPTS(a);
  // Block loads inside a loop vectorize too (the iv is a multiple of BLOCK).
  CompiledPtx l = compile("loops", "*fp32:16, i64, 256");
  REQUIRE(has(l.ptx, "ld.global.v2."));
  REQUIRE_PTXAS_ACCEPTS(l);
}

TEST_CASE("nvptx: a load whose mask folds to false at emission reads 0", "[nvptx]") {
  // fold_masks removes such loads from kernels; prefetch_loads made them after it (the first
  // iteration's loads of a loop that runs zero times), and the load had no value (a null
  // phi operand, "invalid LLVM IR"). Per element, as a vector, and uniform.
  for (const char* ptr : {"ptr<fp32>", "ptr<fp32> {divisibility = 16}"}) {
    INFO(ptr);
    auto function = ir::parse(std::string("func @k(%p: ") + ptr + ", %q: " + ptr + R"() {
  %0 = make_range {end = 128, start = 0} : block<128xi32>
  %1 = splat %p : block<128xptr<fp32>>
  %2 = addptr %1, %0 : block<128xptr<fp32>>
  %3 = constant {value = 2} : i32
  %4 = constant {value = 0} : i32
  %5 = cmp %3, %4 {predicate = "lt"} : i1
  %6 = splat %5 : block<128xi1>
  %7 = load %2, %6 : block<128xfp32>
  %8 = splat %q : block<128xptr<fp32>>
  %9 = addptr %8, %0 : block<128xptr<fp32>>
  store %9, %7
  %10 = load %p, %5 : fp32
  store %q, %10
  return
})");
    CompiledPtx c = nvptx::compile_to_ptx(*function, {});
    REQUIRE(has(c.ptx, "st.global"));
    REQUIRE_PTXAS_ACCEPTS(c);
  }
}

TEST_CASE("nvptx: a loop carries 8-bit blocks four bytes to a 32-bit register", "[nvptx]") {
  // 4096 int8 at 4 warps: 32 bytes a thread, carried as 8 words (as loaded and stored), not
  // as 32 bytes each in a 16-bit register of its own (48 registers instead of 32 then).
  TargetOptions options;
  options.num_warps = 4;
  CompiledPtx c = compile("carried_bytes", "*i8:16, *i8:16, i32, BLOCK=4096", options);
  CHECK(count(c.ptx, ".reg .b16") == 0);
  CHECK(count(c.ptx, "ld.global.v4.b32") == 4);
  CHECK(count(c.ptx, "st.global.v4.b32") == 2);
  REQUIRE_PTXAS_ACCEPTS(c);
}
