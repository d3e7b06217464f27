// insert_barriers (gpu/insert_barriers.h) against its model: random kernels of round trips
// on random bytes inside ifs and loops, many random paths through each (loops 0 to 3
// times) run with the emitter's order of accesses, and no read of one op followed by an overlapping
// write of another without a barrier between. Also: the pass keeps no barrier a straight
// line does not need, and allocate_shared + insert_barriers on real kernels.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "gpu/allocate_shared.h"
#include "gpu/insert_barriers.h"
#include "gpu/pipeline.h"
#include "ir/parser.h"

using namespace tritium;

namespace {

// A random program as IR text: round trips (trans of %4 with hand-placed buffers), ifs,
// fors, whiles and debug barriers, nested at most `depth` deep.
class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  std::string kernel() {
    std::ostringstream out;
    out << "func @k(%x_ptr: ptr<fp32> {divisibility = 16}, %n: i32, %c: i1) {\n"
        << "  %v0 = make_range {end = 128, start = 0} : block<128xi32>\n"
        << "  %v1 = splat %x_ptr : block<128xptr<fp32>>\n"
        << "  %v2 = addptr %v1, %v0 : block<128xptr<fp32>>\n"
        << "  %v3 = load %v2 : block<128xfp32>\n"
        << "  %v4 = reshape %v3 : block<8x16xfp32>\n"
        << "  %zero = constant {value = 0} : i32\n"
        << "  %one = constant {value = 1} : i32\n";
    region(out, "  ", 2);
    out << "  return\n}\n";
    return out.str();
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string name() { return "%t" + std::to_string(next_++); }

  void region(std::ostringstream& out, const std::string& indent, int depth) {
    int ops = 1 + pick(4);
    for (int i = 0; i < ops; ++i) {
      int kind = depth > 0 ? pick(8) : pick(5);
      if (kind <= 3) {
        // Offsets and sizes in 64-byte steps over 512 bytes: overlaps are frequent.
        int offset = 64 * pick(7), size = 64 * (1 + pick(3));
        out << indent << name() << " = trans %v4 {order = [1, 0], shared_offsets = [" << offset
            << "], shared_sizes = [" << size << "]} : block<16x8xfp32>\n";
      } else if (kind == 4) {
        out << indent << "debug_barrier\n";
      } else if (kind == 5) {
        out << indent << "if %c {\n";
        region(out, indent + "  ", depth - 1);
        out << indent << "  yield\n" << indent << "} else {\n";
        region(out, indent + "  ", depth - 1);
        out << indent << "  yield\n" << indent << "}\n";
      } else if (kind == 6) {
        std::string iv = name();
        out << indent << "for %zero, %n, %one {\n" << indent << "^(" << iv << ": i32):\n";
        region(out, indent + "  ", depth - 1);
        out << indent << "  yield\n" << indent << "}\n";
      } else {
        std::string a = name(), b = name(), cond = name();
        out << indent << name() << " = while %zero -> i32 {\n" << indent << "^(" << a << ": i32):\n";
        region(out, indent + "  ", depth - 1);
        out << indent << "  " << cond << " = cmp " << a << ", %n {predicate = \"lt\"} : i1\n"
            << indent << "  condition " << cond << ", " << a << "\n"
            << indent << "} do {\n" << indent << "^(" << b << ": i32):\n";
        region(out, indent + "  ", depth - 1);
        out << indent << "  yield " << b << "\n" << indent << "}\n";
      }
    }
  }

  std::mt19937 rng_;
  int next_ = 0;
};

// One access in a run: a barrier, or an op's writes (before its inside barrier) or reads
// (after it) of its bytes.
struct Event {
  enum Kind { Barrier, Write, Read } kind;
  const ir::Op* op = nullptr;
  int64_t first = 0, last = 0;  // [first, last)
};
using Run = std::vector<Event>;

// One random run of `region`: each if takes a random side, each for runs 0 to 3 times,
// each while's condition region 1 to 3 times.
void run(const ir::Region& region, std::mt19937& rng, Run& out);

void run_op(const ir::Op& op, std::mt19937& rng, Run& out) {
  switch (op.kind()) {
    case ir::OpKind::DebugBarrier: out.push_back(Event{Event::Barrier}); return;
    case ir::OpKind::If: run(*op.region(rng() % 2), rng, out); return;
    case ir::OpKind::For:
      for (int i = static_cast<int>(rng() % 4); i > 0; --i) run(*op.region(0), rng, out);
      return;
    case ir::OpKind::While:
      run(*op.region(0), rng, out);
      for (int i = static_cast<int>(rng() % 3); i > 0; --i) {
        run(*op.region(1), rng, out);
        run(*op.region(0), rng, out);
      }
      return;
    default: break;
  }
  if (!op.has_attr("shared_offsets")) return;
  int64_t first = op.ints_attr("shared_offsets")[0];
  int64_t last = first + op.ints_attr("shared_sizes")[0];
  if (gpu::barrier_before(op)) out.push_back(Event{Event::Barrier});
  out.push_back(Event{Event::Write, &op, first, last});
  out.push_back(Event{Event::Barrier});
  out.push_back(Event{Event::Read, &op, first, last});
}

void run(const ir::Region& region, std::mt19937& rng, Run& out) {
  for (const auto& op : region.ops()) run_op(*op, rng, out);
}

Run random_run(const ir::Function& function, std::mt19937& rng) {
  Run out;
  run(function.body(), rng, out);
  return out;
}

// The first read followed by an overlapping write of another op with no barrier between.
std::string race(const Run& run) {
  std::vector<const Event*> since;  // accesses since the last barrier
  for (const Event& e : run) {
    if (e.kind == Event::Barrier) {
      since.clear();
      continue;
    }
    for (const Event* p : since) {
      bool overlap = p->first < e.last && e.first < p->last;
      if (overlap && p->op != e.op && (p->kind == Event::Write || e.kind == Event::Write)) {
        return "[" + std::to_string(p->first) + ", " + std::to_string(p->last) + ") then [" +
               std::to_string(e.first) + ", " + std::to_string(e.last) + ")";
      }
    }
    since.push_back(&e);
  }
  return "";
}

int marked(const ir::Region& region) {
  int n = 0;
  for (const auto& op : region.ops()) {
    n += gpu::barrier_before(*op) ? 1 : 0;
    for (const auto& inner : op->regions()) n += marked(*inner);
  }
  return n;
}

}  // namespace

TEST_CASE("insert_barriers: no run of a random kernel has a race its barriers miss", "[gpu]") {
  int with_barriers = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::string text = Generator(seed).kernel();
    INFO("seed " << seed << "\n" << text);
    auto function = ir::parse(text);
    gpu::insert_barriers(*function, gpu::GpuOptions{});
    with_barriers += marked(function->body()) > 0 ? 1 : 0;
    std::mt19937 rng(seed);
    for (int sample = 0; sample < 300; ++sample) REQUIRE(race(random_run(*function, rng)) == "");
  }
  CHECK(with_barriers > 100);  // the kernels do exercise the pass
}

TEST_CASE("insert_barriers: the race check finds a missing barrier", "[gpu]") {
  // The checker itself must be able to fail: two overlapping round trips, no barrier.
  auto function = ir::parse(R"(func @k(%x_ptr: ptr<fp32> {divisibility = 16}) {
  %0 = make_range {end = 128, start = 0} : block<128xi32>
  %1 = splat %x_ptr : block<128xptr<fp32>>
  %2 = addptr %1, %0 : block<128xptr<fp32>>
  %3 = load %2 : block<128xfp32>
  %4 = reshape %3 : block<8x16xfp32>
  %5 = trans %4 {order = [1, 0], shared_offsets = [0], shared_sizes = [128]} : block<16x8xfp32>
  %6 = trans %4 {order = [1, 0], shared_offsets = [64], shared_sizes = [128]} : block<16x8xfp32>
  return
}
)");
  std::mt19937 rng(1);
  CHECK(race(random_run(*function, rng)) != "");
  gpu::insert_barriers(*function, gpu::GpuOptions{});
  CHECK(race(random_run(*function, rng)) == "");
  CHECK(marked(function->body()) == 1);
  // Run again: the same decision (a second run starts afresh).
  gpu::insert_barriers(*function, gpu::GpuOptions{});
  CHECK(marked(function->body()) == 1);
}

TEST_CASE("insert_barriers: a straight line gets a barrier only before an overlap with the op before", "[gpu]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::ostringstream text;
    text << "func @k(%x_ptr: ptr<fp32> {divisibility = 16}) {\n"
         << "  %a = make_range {end = 128, start = 0} : block<128xi32>\n"
         << "  %b = splat %x_ptr : block<128xptr<fp32>>\n  %c = addptr %b, %a : block<128xptr<fp32>>\n"
         << "  %d = load %c : block<128xfp32>\n  %e = reshape %d : block<8x16xfp32>\n";
    std::vector<std::pair<int64_t, int64_t>> bytes;
    for (int i = 0; i < 6; ++i) {
      int64_t offset = 64 * static_cast<int64_t>(rng() % 6), size = 64 * (1 + static_cast<int64_t>(rng() % 3));
      bytes.emplace_back(offset, offset + size);
      text << "  %r" << i << " = trans %e {order = [1, 0], shared_offsets = [" << offset << "], shared_sizes = ["
           << size << "]} : block<16x8xfp32>\n";
    }
    text << "  return\n}\n";
    auto function = ir::parse(text.str());
    gpu::insert_barriers(*function, gpu::GpuOptions{});
    int i = 0;
    for (const auto& op : function->body().ops()) {
      if (op->kind() != ir::OpKind::Trans) continue;
      bool overlap = i > 0 && bytes[i - 1].first < bytes[i].second && bytes[i].first < bytes[i - 1].second;
      INFO(text.str() << "op " << i);
      CHECK(gpu::barrier_before(*op) == overlap);
      ++i;
    }
  }
}

TEST_CASE("allocate_shared keeps neighbouring round trips apart: back-to-back reductions need no barrier", "[gpu]") {
  // Softmax's two reductions of a row (max, then sum of exp) and a loop that reduces every
  // iteration: its reduction reuses its own bytes across the back edge, so it needs one.
  const char* text = R"(func @k(%p: ptr<fp32> {divisibility = 16}, %n: i32) {
  %0 = make_range {end = 1024, start = 0} : block<1024xi32>
  %1 = splat %p : block<1024xptr<fp32>>
  %2 = addptr %1, %0 : block<1024xptr<fp32>>
  %3 = load %2 : block<1024xfp32>
  %4 = reduce %3 {axis = 0} -> fp32 {
  ^(%5: fp32, %6: fp32):
    %7 = maximum %5, %6 : fp32
    yield %7
  }
  %8 = splat %4 : block<1024xfp32>
  %9 = sub %3, %8 : block<1024xfp32>
  %10 = exp %9 : block<1024xfp32>
  %11 = reduce %10 {axis = 0} -> fp32 {
  ^(%12: fp32, %13: fp32):
    %14 = add %12, %13 : fp32
    yield %14
  }
  %15 = constant {value = 0} : i32
  %16 = constant {value = 1} : i32
  %17 = for %15, %n, %16, %11 -> fp32 {
  ^(%18: i32, %19: fp32):
    %20 = reduce %3 {axis = 0} -> fp32 {
    ^(%21: fp32, %22: fp32):
      %23 = add %21, %22 : fp32
      yield %23
    }
    %24 = add %19, %20 : fp32
    yield %24
  }
  %25 = splat %17 : block<1024xfp32>
  store %2, %25
  return
}
)";
  for (int warps : {2, 4, 8}) {
    gpu::GpuOptions options;
    options.num_warps = warps;
    auto kernel = gpu::run_gpu_passes(*ir::parse(text), options, true);
    const auto& ops = kernel->body().ops();
    const ir::Op* max = ops[4].get();
    const ir::Op* sum = ops[8].get();
    const ir::Op* loop = ops[11].get();
    const ir::Op* inner = loop->region(0)->ops()[0].get();
    INFO("num_warps " << warps);
    REQUIRE(max->kind() == ir::OpKind::Reduce);
    REQUIRE(sum->kind() == ir::OpKind::Reduce);
    REQUIRE(inner->kind() == ir::OpKind::Reduce);
    // Across warps: one slot per warp and key, per thread of the CTA.
    REQUIRE(max->has_attr("shared_offsets"));
    CHECK(max->ints_attr("shared_offsets") != sum->ints_attr("shared_offsets"));
    CHECK_FALSE(gpu::barrier_before(*max));
    CHECK_FALSE(gpu::barrier_before(*sum));
    CHECK(gpu::barrier_before(*inner));
  }
}
