// gpu/coalesce.h and gpu/conversion.h: the layouts coalesce chooses hold every element once
// with V consecutive elements per thread along the chosen axis, and a convert_layout's plan
// (register moves, or a round trip through padded shared memory) loses and duplicates no
// element between any pair of the layouts the emitter holds.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "gpu/coalesce.h"
#include "gpu/conversion.h"
#include "gpu/default_layout.h"
#include "gpu/scratch.h"
#include "ir/layout.h"
#include "ir/parser.h"
#include "ir/verifier.h"
#include "tritium/errors.h"

using namespace tritium;
using ir::LinearLayout;

namespace {

const std::vector<std::vector<int64_t>> kShapes = {{64, 64}, {128, 32}, {16, 256}, {32, 4}, {4, 8, 16}, {256, 16}};

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += std::to_string(d) + "x";
  return s;
}

int log2_of(int64_t v) {
  int b = 0;
  while ((int64_t{1} << b) < v) ++b;
  return b;
}

// Checks that reading `to`'s registers after `plan` yields, in every thread, exactly the
// element `to` says, from the element `from` put there: nothing lost, nothing mixed up.
void check_plan(const gpu::ConvertPlan& plan, const LinearLayout& from, const LinearLayout& to, int64_t n,
                int64_t bytes) {
  const int64_t lanes = 32;
  const int64_t threads = lanes * from.in_size(LinearLayout::kWarp);
  switch (plan.kind) {
    case gpu::ConvertPlan::Kind::kIdentity: CHECK(from == to); return;
    case gpu::ConvertPlan::Kind::kRegisters:
      REQUIRE(static_cast<int64_t>(plan.source_reg.size()) == to.in_size(LinearLayout::kRegister));
      for (int64_t t = 0; t < threads; ++t) {
        for (int64_t r = 0; r < to.in_size(LinearLayout::kRegister); ++r) {
          REQUIRE(from.apply(plan.source_reg[r], t % lanes, t / lanes) == to.apply(r, t % lanes, t / lanes));
        }
      }
      return;
    case gpu::ConvertPlan::Kind::kShared: {
      // Every element written lands in its own slot inside the buffer; every slot read holds
      // the element the reader wants.
      std::map<int64_t, int64_t> slot_holds;
      for (int64_t t = 0; t < threads; ++t) {
        for (int64_t r = 0; r < from.in_size(LinearLayout::kRegister); ++r) {
          int64_t e = from.apply(r, t % lanes, t / lanes);
          int64_t s = plan.slot(e);
          REQUIRE((s + 1) * bytes <= plan.bytes);
          auto [it, fresh] = slot_holds.emplace(s, e);
          REQUIRE(it->second == e);  // replicas write the same element, never another
        }
      }
      REQUIRE(static_cast<int64_t>(slot_holds.size()) == n);  // every element written
      for (int64_t t = 0; t < threads; ++t) {
        for (int64_t r = 0; r < to.in_size(LinearLayout::kRegister); ++r) {
          int64_t e = to.apply(r, t % lanes, t / lanes);
          auto it = slot_holds.find(plan.slot(e));
          REQUIRE(it != slot_holds.end());
          REQUIRE(it->second == e);
        }
      }
      return;
    }
    default: FAIL("a load is not recomputable, and the operand is not uniform");
  }
}

}  // namespace

TEST_CASE("coalesced layouts: each element once, V consecutive along the axis, lanes next", "[gpu]") {
  int checked = 0;
  for (const auto& shape : kShapes) {
    const int64_t n = elements(shape);
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (int threads : {32, 64, 128, 256}) {
        for (int vector = 2; vector <= 16 && vector <= shape[axis] && vector * threads <= n; vector *= 2) {
          INFO(shape_text(shape) << " axis " << axis << ", " << threads << " threads, V = " << vector);
          const ir::Layout* l = gpu::coalesced_layout(shape, axis, vector, threads);
          REQUIRE(l != nullptr);
          const LinearLayout& linear = l->linear();
          CHECK(linear.surjective());
          CHECK(linear.injective_up_to_free());
          for (int d = 0; d < LinearLayout::kInDims; ++d) CHECK(linear.free_mask(static_cast<LinearLayout::InDim>(d)) == 0);
          CHECK(l->order()[0] == axis);
          // Register bits 0 .. log2(V) - 1 walk the axis from its lowest bit: one aligned run.
          int64_t below = 1;
          for (size_t d = axis + 1; d < shape.size(); ++d) below *= shape[d];
          for (int b = 0; b < log2_of(vector); ++b) CHECK(linear.basis(LinearLayout::kRegister, b) == below << b);
          // The lanes continue along the axis while it lasts.
          if (shape[axis] > vector) CHECK(linear.basis(LinearLayout::kLane, 0) == below * vector);
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 60);
  // More threads than the block can give V each: no layout (coalesce keeps the flat rule).
  CHECK(gpu::coalesced_layout({16, 16}, 0, 4, 128) == nullptr);
}

TEST_CASE("convert_layout plans lose and duplicate nothing between flat and coalesced layouts", "[gpu]") {
  int checked = 0;
  int shared = 0;
  for (const auto& shape : kShapes) {
    const int64_t n = elements(shape);
    for (int warps : {1, 4}) {
      const int threads = 32 * warps;
      for (const char* element : {"fp32", "i8"}) {
        const int64_t bytes = std::string(element) == "fp32" ? 4 : std::string(element) == "fp16" ? 2 : 1;
        // Layouts to convert between: the flat rule's with V = 1, 2, 4 and coalesced ones.
        std::vector<const ir::Layout*> layouts;
        for (int v = 1; v <= 4 && v * threads <= n; v *= 2) layouts.push_back(gpu::flat_blocked(shape, threads, v));
        for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
          for (int v : {2, 4, 8}) {
            if (v > shape[axis] || v * threads > n) continue;
            if (const ir::Layout* l = gpu::coalesced_layout(shape, axis, v, threads)) layouts.push_back(l);
          }
        }
        for (const ir::Layout* a : layouts) {
          for (const ir::Layout* b : layouts) {
            std::string block = "block<" + shape_text(shape) + element;
            // %2 is held in b's layout when a store in that layout reads it.
            std::string ptrs = "block<" + shape_text(shape) + "ptr<" + element + ">";
            std::string text = "func @k(%p: ptr<" + std::string(element) + ">) {\n  %0 = splat %p : " + ptrs +
                               ">\n  %1 = load %0 : " + block + ", " + a->str() + ">\n  %2 = convert_layout %1 : " +
                               block + ", " + b->str() + ">\n  %3 = convert_layout %0 : " + ptrs + ", " + b->str() +
                               ">\n  store %3, %2\n  return\n}\n";
            INFO(text);
            auto function = ir::parse(text);
            const ir::Op& convert = *function->body().ops()[2];
            gpu::VectorWidths widths;  // V = 1: the flat rule's layouts of V > 1 are held in slots
            gpu::ConvertPlan plan = gpu::plan_convert(convert, widths, threads);
            check_plan(plan, gpu::held_layout(convert.operand(0), widths, threads),
                       gpu::held_layout(convert.result(), widths, threads), n, bytes);
            CHECK((plan.kind == gpu::ConvertPlan::Kind::kIdentity) == (a->linear() == b->linear()));
            shared += plan.kind == gpu::ConvertPlan::Kind::kShared ? 1 : 0;
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked > 150);
  CHECK(shared > 50);
}

TEST_CASE("a transposing round trip is padded off the banks a column would share", "[gpu]") {
  // 64 x 64 fp32, 4 warps: the column layout's 16 lanes walk 16 rows of one column.
  const int threads = 128;
  const ir::Layout* column = gpu::coalesced_layout({64, 64}, 0, 4, threads);
  const ir::Layout* flat = gpu::flat_blocked({64, 64}, threads, 4);
  std::string text = "func @k(%p: ptr<fp32>) {\n  %0 = splat %p : block<64x64xptr<fp32>>\n  %1 = load %0 : block<64x64xfp32, " +
                     column->str() + ">\n  %2 = convert_layout %1 : block<64x64xfp32, " + flat->str() +
                     ">\n  %3 = add %2, %2 : block<64x64xfp32, " + flat->str() + ">\n  return\n}\n";
  auto function = ir::parse(text);
  gpu::VectorWidths widths;
  widths.per_block[4096] = 4;
  gpu::ConvertPlan plan = gpu::plan_convert(*function->body().ops()[2], widths, threads);
  REQUIRE(plan.kind == gpu::ConvertPlan::Kind::kShared);
  CHECK(plan.row == 64);
  CHECK(plan.pad == 1);
  CHECK(plan.bytes == (4096 + 64) * 4);
  // And the pair the other way round (flat into the column layout) is the same buffer.
  check_plan(plan, column->linear(), flat->linear(), 4096, 4);
}

TEST_CASE("convert_layout: the verifier wants the same shape and element, any layouts", "[gpu]") {
  const ir::Layout* flat = gpu::flat_blocked({64, 64}, 128, 4);
  const ir::Layout* column = gpu::coalesced_layout({64, 64}, 0, 4, 128);
  auto problem = [](const std::string& text) -> std::string {
    try {
      ir::verify(*ir::parse(text), "test");
    } catch (const InternalError& e) {
      return e.what();
    }
    return "";
  };
  auto kernel = [](const std::string& from, const std::string& to) {
    return "func @k(%p: ptr<fp32>) {\n  %0 = splat %p : " + from + "\n  %1 = convert_layout %0 : " + to +
           "\n  return\n}\n";
  };
  const std::string ptrs = "block<64x64xptr<fp32>, ";
  CHECK(problem(kernel(ptrs + flat->str() + ">", ptrs + column->str() + ">")) == "");
  CHECK(problem(kernel(ptrs + flat->str() + ">", "block<64x64xptr<fp32>>")) == "");
  CHECK(problem(kernel(ptrs + flat->str() + ">", "block<64x64xptr<fp16>, " + column->str() + ">"))
            .find("convert_layout cannot change") != std::string::npos);
  CHECK(problem(kernel("block<64x64xptr<fp32>>", "block<4096xptr<fp32>>")).find("convert_layout cannot change") !=
        std::string::npos);
}
