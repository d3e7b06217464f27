// The IR text parser (src/ir/parser.h): print(parse(print(ir))) == print(ir) over every golden
// kernel at the `ir` and `ir-opt` stages and over hand-written text, and located errors
// (line:col of the IR text) for bad text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu/pipeline.h"
#include "ir/layout.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tritium/errors.h"
#include "tritium/tritium.h"

using namespace tritium;

namespace {

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The words of a RUN line, split as a POSIX shell would (quotes, no escapes inside '').
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size()) word += line[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::string option(const std::vector<std::string>& words, const std::string& name) {
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == name && i + 1 < words.size()) return words[i + 1];
    if (words[i].rfind(name + "=", 0) == 0) return words[i].substr(name.size() + 1);
  }
  return "";
}

// print(parse(text)), with the parsed function verified on the way.
std::string reprint(const std::string& text, bool with_locs = false) {
  auto function = ir::parse(text, "test.ir");
  ir::verify(*function, "parse");
  return ir::print(*function, with_locs);
}

// The error parse(text) throws: "line:col: message".
std::string parse_error(const std::string& text) {
  try {
    ir::parse(text, "bad.ir");
  } catch (const CompileError& e) {
    if (e.file() != "bad.ir") return "wrong file '" + e.file() + "'";
    return std::to_string(e.line()) + ":" + std::to_string(e.col()) + ": " + e.message();
  }
  return "<no error>";
}

const char* kControlFlow = R"(func @flow(%x_ptr: ptr<fp32> {divisibility = 16}, %n: i32, %m: i64) [BLOCK = 128, name = 'a, b]', shape = (1, [2])] {
  %0 = program_id {axis = 0} : i32
  %1 = constant {value = 0.0} : block<128xfp32>
  %2 = constant {value = 0} : i32
  %3 = constant {value = 128} : i32
  %4 = for %2, %n, %3, %1 -> block<128xfp32> {
  ^(%5: i32, %6: block<128xfp32>):
    %7 = make_range {end = 128, start = 0} : block<128xi32>
    %8 = splat %x_ptr : block<128xptr<fp32>>
    %9 = addptr %8, %7 : block<128xptr<fp32>>
    %10 = load %9 : block<128xfp32>
    %11 = cmp %5, %3 {predicate = "gt"} : i1
    %12 = if %11 -> block<128xfp32> {
      %13 = add %6, %10 : block<128xfp32>
      yield %13
    } else {
      %14 = mul %6, %6 : block<128xfp32>
      yield %14
    }
    yield %12
  }
  %15, %16 = while %2, %m -> i32, i64 {
  ^(%17: i32, %18: i64):
    %19 = cmp %17, %n {predicate = "lt"} : i1
    condition %19, %17, %18
  } do {
  ^(%20: i32, %21: i64):
    %22 = constant {value = 1} : i32
    %23 = add %20, %22 : i32
    yield %23, %21
  }
  %24 = make_range {end = 128, start = 0} : block<128xi32>
  %25 = splat %x_ptr : block<128xptr<fp32>>
  %26 = addptr %25, %24 : block<128xptr<fp32>>
  store %26, %4
  return
}
)";

// Ops with combine regions and several results (reduce, scan, split) parse with no
// knowledge of them beyond their ops.def keyword.
const char* kCombine = R"(func @k(%x_ptr: ptr<fp32>) {
  %0 = make_range {end = 16, start = 0} : block<16xi32>
  %1 = splat %x_ptr : block<16xptr<fp32>>
  %2 = addptr %1, %0 : block<16xptr<fp32>>
  %3 = load %2 : block<16xfp32>
  %4, %5 = reduce %3, %0 {axis = 0} -> fp32, i32 {
  ^(%6: fp32, %7: i32, %8: fp32, %9: i32):
    %10 = cmp %6, %8 {predicate = "gt"} : i1
    %11 = select %10, %6, %8 : fp32
    %12 = select %10, %7, %9 : i32
    yield %11, %12
  }
  %13 = scan %3 {axis = 0, reverse = 1} -> block<16xfp32> {
  ^(%14: fp32, %15: fp32):
    %16 = add %14, %15 : fp32
    yield %16
  }
  %17 = reshape %13 : block<8x2xfp32>
  %18, %19 = split %17 : block<8xfp32>, block<8xfp32>
  %20 = join %19, %18 : block<8x2xfp32>
  %21 = trans %20 {order = [1, 0]} : block<2x8xfp32>
  %22 = splat %4 : block<16xfp32>
  store %2, %22
  return
}
)";

}  // namespace

TEST_CASE("every golden kernel prints, parses and prints the same at ir and ir-opt", "[parser]") {
  int checked = 0;
  std::filesystem::path dir = std::filesystem::path(TRITIUM_SOURCE_DIR) / "tests" / "golden";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".py" && name.rfind("run_", 0) != 0 && name.rfind("test_", 0) != 0) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 9);
  for (const auto& path : files) {
    std::string source = read(path);
    std::istringstream lines(source);
    std::string line;
    while (std::getline(lines, line)) {
      size_t at = line.find("# RUN:");
      if (at == std::string::npos) continue;
      auto words = shell_words(line.substr(at + 6));
      std::string kernel = option(words, "--kernel");
      std::string signature = option(words, "--signature");
      if (kernel.empty() || signature.empty()) continue;
      Kernel compiled(source, kernel, path.string());
      LaunchConfig config;
      config.debug = option(words, "--debug") == "1";
      for (Stage stage : {Stage::Ir, Stage::IrOpt}) {
        INFO(path.filename().string() << " " << kernel << " [" << signature << "] stage "
                                      << (stage == Stage::Ir ? "ir" : "ir-opt"));
        std::string text = compiled.emit(stage, signature, config);
        CHECK(reprint(text) == text);
        ++checked;
        if (stage != Stage::IrOpt) continue;
        // After the GPU passes every block type has a layout, and ops have shared offsets (a
        // loop that never runs goes with its blocks: inline_one_trip_loops).
        std::unique_ptr<ir::Function> gpu = gpu::run_gpu_passes(*ir::parse(text), gpu::GpuOptions{}, true);
        std::string laid = ir::print(*gpu);
        if (laid.find("block<") != std::string::npos) CHECK(laid.find(", blocked<") != std::string::npos);
        CHECK(reprint(laid) == laid);
        ++checked;
      }
    }
  }
  CHECK(checked >= 27);
}

TEST_CASE("block types with layouts round-trip: blocked, slice, linear", "[parser]") {
  const std::string text = R"(func @k(%x: block<8x128xfp32, blocked<spt = [1, 4], tpw = [1, 32], wpc = [4, 1], order = [1, 0]>>) {
  %0 = reduce %x {axis = 1} -> block<8xfp32, slice<dim = 1, size = 128, parent = blocked<spt = [1, 4], tpw = [1, 32], wpc = [4, 1], order = [1, 0]>>> {
  ^(%1: fp32, %2: fp32):
    %3 = add %1, %2 : fp32
    yield %3
  }
  %4 = expand_dims %0 {axis = 1} : block<8x1xfp32, linear<reg = [0, 0, 4], lane = [0, 0, 0, 0, 0], warp = [1, 2]>>
  %5 = broadcast %4 {shared_offsets = [0], shared_sizes = [32]} : block<8x128xfp32>
  return
}
)";
  CHECK(reprint(text) == text);
  auto function = ir::parse(text);
  const ir::Type* x = function->body().arg(0)->type();
  REQUIRE(x->layout() != nullptr);
  CHECK(x->layout()->kind() == ir::Layout::Kind::Blocked);
  CHECK(x->layout()->linear() == ir::LinearLayout::blocked({8, 128}, {1, 4}, {1, 32}, {4, 1}, {1, 0}));
  const ir::Type* sum = function->body().ops()[0]->result()->type();
  REQUIRE(sum->layout() != nullptr);
  CHECK(sum->layout()->kind() == ir::Layout::Kind::Slice);
  CHECK(sum->layout()->parent() == x->layout());
  CHECK(function->body().ops()[1]->result()->type()->layout()->kind() == ir::Layout::Kind::Linear);
  CHECK(function->body().ops()[2]->result()->type()->layout() == nullptr);
}

TEST_CASE("bad layouts in IR text are located errors", "[parser]") {
  auto with = [](const std::string& type) { return "func @k(%x: " + type + ") {\n  return\n}\n"; };
  CHECK(parse_error(with("block<8xfp32, blocked<spt = [1], tpw = [16], wpc = [4], order = [0]>>")) ==
        "1:27: tpw must multiply to 32 lanes, got 16");
  CHECK(parse_error(with("block<8xfp32, blocked<spt = [1], tpw = [32], wpc = [4], order = [1]>>")) ==
        "1:27: order must be a permutation of the dimensions, got [1]");
  CHECK(parse_error(with("block<8xfp32, blocked<spt = [1, 1], tpw = [32], wpc = [4], order = [0]>>")) ==
        "1:27: a blocked layout of a rank-1 block needs 1 entries in spt, tpw, wpc and order");
  CHECK(parse_error(with("block<6xfp32, blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>")) ==
        "1:27: a layout needs power-of-two dimensions, got 6");
  CHECK(parse_error(with("block<8xfp32, linear<reg = [1], lane = [2, 4], warp = []>>")) ==
        "1:27: a layout has 5 lane bits (32 lanes), got 2");
  CHECK(parse_error(with("block<8xfp32, linear<reg = [8], lane = [1, 2, 4, 0, 0], warp = []>>")) ==
        "1:27: a basis 8 outside the block's 8 elements");
  CHECK(parse_error(with("block<8xfp32, linear<reg = [], lane = [1, 2, 0, 0, 0], warp = []>>")) ==
        "1:27: the layout does not hold every element of the block");
  CHECK(parse_error(with("block<8xfp32, mma<>>")) == "1:27: the layout kind 'mma' is not built yet");
  CHECK(parse_error(with("block<8xfp32, swizzled<>>")) == "1:27: unknown layout 'swizzled' (blocked, slice or linear)");
  CHECK(parse_error(with("block<8xfp32, slice<dim = 3, size = 4, parent = blocked<>>>")) ==
        "1:39: slice dimension 3 out of range");
}

TEST_CASE("hand-written IR round-trips: control flow, multiple results, folded parameters", "[parser]") {
  CHECK(reprint(kControlFlow) == kControlFlow);
}

TEST_CASE("ops with combine regions and several results round-trip", "[parser]") {
  CHECK(reprint(kCombine) == kCombine);
  auto function = ir::parse(kCombine);
  const ir::Op& reduce = *function->body().ops()[4];
  CHECK(reduce.kind() == ir::OpKind::Reduce);
  CHECK(reduce.num_results() == 2);
  CHECK(reduce.region(0)->args().size() == 4);
  CHECK(reduce.result(0)->num_uses() == 1);
  CHECK_FALSE(reduce.result(1)->has_uses());
}

TEST_CASE("the per-pass golden inputs print as they parse, and print again the same", "[parser]") {
  std::filesystem::path dir = std::filesystem::path(TRITIUM_SOURCE_DIR) / "tests" / "golden" / "passes";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".ir") continue;
    INFO(entry.path().filename().string());
    std::string once = reprint(read(entry.path()));
    CHECK(reprint(once) == once);
    ++checked;
  }
  CHECK(checked >= 4);
}

TEST_CASE("every attribute form reads back as the same value", "[parser]") {
  const std::string text = R"(func @attrs(%p: ptr<i8>) {
  %0 = constant {value = -9223372036854775808} : i64
  %1 = constant {value = 1e-06} : fp32
  %2 = constant {value = -inf} : fp64
  %3 = constant {value = nan} : fp16
  %4 = constant {value = 0.1} : bf16
  %5 = reshape %0 {a = "q\"uote\\ and\nnewline", b = [], c = [-1, 2, 3], d = inf, e = 2.0} : i64
  return
}
)";
  auto function = ir::parse(text);
  CHECK(ir::print(*function) == text);
  const ir::Op& reshape = *function->body().ops()[5];
  CHECK(reshape.str_attr("a") == "q\"uote\\ and\nnewline");
  CHECK(reshape.ints_attr("b").empty());
  CHECK(reshape.ints_attr("c") == std::vector<int64_t>{-1, 2, 3});
  CHECK(reshape.float_attr("e") == 2.0);
  CHECK(function->body().ops()[1]->float_attr("value") == 1e-06);
  CHECK(function->body().ops()[0]->int_attr("value") == INT64_MIN);
}

TEST_CASE("parsed IR is wired: users, parents, parameters and facts", "[parser]") {
  auto function = ir::parse(kControlFlow, "flow.ir");
  const ir::Region& body = function->body();
  REQUIRE(function->params().size() == 6);
  CHECK(function->params()[0].name == "x_ptr");
  CHECK(function->params()[0].facts.divisibility == 16);
  CHECK(function->params()[1].facts.divisibility == 1);
  CHECK(function->params()[3].name == "BLOCK");
  CHECK(function->params()[3].arg == nullptr);
  CHECK(function->params()[3].folded == "128");
  CHECK(function->params()[4].folded == "'a, b]'");
  CHECK(function->params()[5].folded == "(1, [2])");
  // %x_ptr is used by two splats, one of them inside the loop.
  CHECK(body.arg(0)->num_uses() == 2);
  const ir::Op& loop = *body.ops()[4];
  CHECK(loop.kind() == ir::OpKind::For);
  CHECK(loop.region(0)->parent() == &loop);
  CHECK(loop.region(0)->ops()[0]->parent() == loop.region(0));
  CHECK(loop.result()->users().size() == 1);
  CHECK(loop.result()->users()[0]->kind() == ir::OpKind::Store);
  // Ops are located at their line:col in the text.
  CHECK(loop.loc().line == 6);
  CHECK(loop.loc().col == 3);
  CHECK(loop.loc().file->path() == "flow.ir");
}

TEST_CASE("comments, blank lines and loc suffixes", "[parser]") {
  const std::string text = R"(# a comment line
// another
func @k(%n: i32) {

  # inside the body
  %0 = cmp %n, %n {predicate = "eq"} : i1  loc(4:7)
  %1 = if %0 -> i32 {  loc(5:3)
    yield %n  loc(unknown)
  } else {
    yield %n  loc(6:5)
  }
  return  loc(7:3)
}
)";
  auto function = ir::parse(text);
  const ir::Op& cmp = *function->body().ops()[0];
  CHECK(cmp.loc().line == 4);
  CHECK(cmp.loc().col == 7);
  CHECK_FALSE(function->body().ops()[1]->region(0)->ops()[0]->loc().known());
  const std::string canonical = R"(func @k(%n: i32) {
  %0 = cmp %n, %n {predicate = "eq"} : i1  loc(4:7)
  %1 = if %0 -> i32 {  loc(5:3)
    yield %n  loc(unknown)
  } else {
    yield %n  loc(6:5)
  }
  return  loc(7:3)
}
)";
  CHECK(ir::print(*function, true) == canonical);
  CHECK(reprint(canonical, true) == canonical);
}

TEST_CASE("bad IR text is a located CompileError", "[parser]") {
  CHECK(parse_error("fn @k() {\n}\n") == "1:1: expected 'func', found 'fn'");
  CHECK(parse_error("func @k() {\n  %0 = frobnicate : i32\n  return\n}\n") == "2:8: unknown op 'frobnicate'");
  CHECK(parse_error("func @k(%n: i32) {\n  %0 = add %n, %m : i32\n}\n") == "2:16: use of undefined value %m");
  CHECK(parse_error("func @k(%n: i33) {\n}\n") == "1:13: unknown type 'i33'");
  CHECK(parse_error("func @k(%n: block<4xi32) {\n}\n") == "1:24: expected '>' closing 'block<', found ')'");
  CHECK(parse_error("func @k(%n: block<0xi32>) {\n}\n") == "1:19: a block dimension must be positive, got 0");
  CHECK(parse_error("func @k(%n: block<4x>) {\n}\n") == "1:21: expected a type, found '>'");
  CHECK(parse_error("func @k(%n: ptr<block<4xi32>>) {\n}\n") == "1:17: unknown type 'block'");
  CHECK(parse_error("func @k(%n: i32 {alignment = 16}) {\n}\n") == "1:9: unknown entry-argument fact 'alignment'");
  CHECK(parse_error("func @k(%n: i32) {\n  %0 = add %n, %n\n  return\n}\n") ==
        "2:3: 'add' names 1 results but gives 0 result types");
  CHECK(parse_error("func @k(%n: i32) {\n  %n = add %n, %n : i32\n}\n") == "2:3: value %n is defined twice");
  CHECK(parse_error("func @k(%n: i32) {\n  %0 = constant {value = \"abc} : i32\n}\n") ==
        "2:26: unterminated string");
  CHECK(parse_error("func @k(%n: i32) {\n  %0 = constant {value = 1, value = 2} : i32\n}\n") ==
        "2:29: attribute 'value' given twice");
  CHECK(parse_error("func @k(%n: i32) {\n  return\n}\nextra\n") ==
        "4:1: expected the end of the text after the function's closing '}'");
  CHECK(parse_error("func @k(%n: i32) {\n  return\n") == "3:1: expected '}' closing a region, found the end of the text");
  CHECK(parse_error("func @k(%n: i32) {\n  return %n %n\n}\n") ==
        "2:13: expected the end of the line after 'return', found '%'");
  CHECK(parse_error("func @k(%n: i32) {\n  %0 = constant {value = 1.2.3} : fp32\n}\n") == "2:26: bad float '1.2.3'");
  // A value defined in a region is not visible after it.
  CHECK(parse_error("func @k(%c: i1) {\n  if %c {\n    %0 = add %c, %c : i1\n    yield\n  }\n"
                    "  %1 = add %0, %0 : i1\n  return\n}\n") == "6:12: use of undefined value %0");
}
