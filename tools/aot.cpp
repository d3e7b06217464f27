// `tritium aot` (see aot.h): parses the command line, compiles each --signature of the kernel
// to PTX (and to a cubin when a GPU of the target architecture is present), works out the
// launch function's typed arguments and each variant's dispatch conditions, and writes
// DIR/NAME.h, DIR/NAME.c and DIR/NAME_v<i>.ptx (.cubin).
#include "aot.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cache/key.h"
#include "lower/signature.h"
#include "runtime/cuda_driver.h"
#include "runtime/kernel_impl.h"
#include "support/text.h"
#include "target/nvptx/codegen.h"
#include "tritium/tritium.h"

namespace tritium::aot {

const char* const kUsage =
    "  tritium aot FILE --kernel NAME --signature SIG [--signature SIG ...]\n"
    "              --grid X[,Y,Z] -o DIR [--name PREFIX] [--num-warps N] [--arch sm_90]\n"
    "      export the kernel for C/C++ programs: DIR/PREFIX.h and PREFIX.c (default PREFIX:\n"
    "      NAME) hold PREFIX_launch(CUstream, args...), which picks at run time the first\n"
    "      variant whose signature the arguments fit (pointers aligned to 16, ints divisible\n"
    "      by 16 or equal to 1) and launches it with libcuda alone (dlopen'd); the grid is C\n"
    "      expressions over the parameters, constexprs and cdiv(a, b), for example\n"
    "      --grid \"cdiv(n_elements, BLOCK)\"; PTX (and cubins when a GPU is present) is\n"
    "      embedded and also written to DIR\n";

namespace {

struct Options {
  std::string file, kernel, output, name, grid, arch;
  std::vector<std::string> signatures;
  int num_warps = 4;
  std::string command;
};

Options parse(int argc, char** argv) {
  Options out;
  std::map<std::string, std::string*> single = {
      {"kernel", &out.kernel}, {"output", &out.output}, {"o", &out.output},
      {"name", &out.name},     {"grid", &out.grid},     {"arch", &out.arch}};
  std::string num_warps;
  single["num-warps"] = &num_warps;
  std::set<std::string> seen;
  for (int i = 0; i < argc; ++i) {
    // Recorded in a C comment of the generated files: quoted when needed, and never "*/".
    std::string arg = argv[i];
    for (size_t at; (at = arg.find("*/")) != std::string::npos;) arg.replace(at, 2, "* /");
    bool plain = !arg.empty() && arg.find_first_of(" \t\"'*$;&|()<>") == std::string::npos;
    out.command += (i ? " " : "") + (plain ? arg : "'" + arg + "'");
  }
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-", 0) != 0) {
      if (!out.file.empty()) throw UsageError{"unexpected argument '" + a + "'"};
      out.file = a;
      continue;
    }
    std::string name = a.substr(a.rfind("--", 0) == 0 ? 2 : 1), value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= argc) throw UsageError{a + " needs a value"};
      value = argv[++i];
    }
    if (name == "signature") {
      out.signatures.push_back(value);
      continue;
    }
    auto it = single.find(name);
    if (it == single.end()) throw UsageError{"unknown option " + a};
    std::string canonical = name == "o" ? "output" : name;
    if (!seen.insert(canonical).second) throw UsageError{"--" + canonical + " given twice"};
    *it->second = value;
  }
  if (out.file.empty()) throw UsageError{"missing FILE"};
  if (out.kernel.empty()) throw UsageError{"missing --kernel"};
  if (out.signatures.empty()) throw UsageError{"missing --signature"};
  if (out.grid.empty()) throw UsageError{"missing --grid"};
  if (out.output.empty()) throw UsageError{"missing -o DIR"};
  if (out.name.empty()) out.name = out.kernel;
  if (out.name.empty() || std::isdigit(static_cast<unsigned char>(out.name[0])) ||
      !std::all_of(out.name.begin(), out.name.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; })) {
    throw UsageError{"--name must be a C identifier, got '" + out.name + "'"};
  }
  if (!num_warps.empty()) {
    char* end = nullptr;
    long w = std::strtol(num_warps.c_str(), &end, 10);
    if (end == num_warps.c_str() || *end != '\0' || w <= 0 || w > 32 || (w & (w - 1)) != 0) {
      throw UsageError{"--num-warps must be a power of 2 from 1 to 32, got '" + num_warps + "'"};
    }
    out.num_warps = static_cast<int>(w);
  }
  return out;
}

int parse_arch(const std::string& arch) {
  if (arch.empty()) return 0;
  std::string digits = arch.rfind("sm_", 0) == 0 ? arch.substr(3) : arch;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit)) {
    throw UsageError{"--arch must look like sm_90, got '" + arch + "'"};
  }
  return std::stoi(digits);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    throw UsageError{"cannot read " + path + ": " + std::strerror(errno ? errno : EISDIR)};
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw UsageError{"cannot write " + path.string() + ": " + std::strerror(errno)};
}

// Splits "X, Y, Z" at the commas outside parentheses.
std::vector<std::string> split_grid(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  for (std::string& p : parts) p = trim(p);
  return parts;
}

// A grid expression may use numbers, the arithmetic and comparison operators, parentheses,
// the launch function's parameters, the constexprs and cdiv: checked here, so a typo is
// reported by tritium rather than by the C compiler of whoever builds the export.
void check_grid_expression(const std::string& expr, const std::set<std::string>& names) {
  if (expr.empty()) throw UsageError{"--grid: an empty dimension"};
  int depth = 0;
  for (size_t i = 0; i < expr.size();) {
    char c = expr[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) || expr[j] == '_')) ++j;
      std::string word = expr.substr(i, j - i);
      if (word != "cdiv" && names.count(word) == 0) {
        throw UsageError{"--grid: '" + word + "' in '" + expr +
                         "' is not a parameter or constexpr of the kernel (or cdiv)"};
      }
      i = j;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) break;
    if (!(std::isdigit(static_cast<unsigned char>(c)) || std::isspace(static_cast<unsigned char>(c)) ||
          std::strchr("+-*/%()<>=!&|?:,", c) != nullptr)) {
      throw UsageError{"--grid: unexpected character '" + std::string(1, c) + "' in '" + expr + "'"};
    }
    ++i;
  }
  if (depth != 0) throw UsageError{"--grid: unbalanced parentheses in '" + expr + "'"};
}

std::string c_constant(const ConstValue& value) {
  switch (value.kind) {
    case ConstValue::Kind::Int: return "const long long NAME = " + int128_to_string(value.i) + "LL;";
    case ConstValue::Kind::Bool: return std::string("const int NAME = ") + (value.b ? "1;" : "0;");
    case ConstValue::Kind::Float: {
      std::ostringstream s;
      s.precision(17);
      s << "const double NAME = " << value.f << ";";
      return s.str();
    }
    default: return "";  // strings, dtypes, None: not usable in a grid expression
  }
}

bool is_one(const ParamSig& p) {
  return p.kind == ParamSig::Kind::Constant && !p.is_constexpr &&
         p.value.kind == ConstValue::Kind::Int && p.value.i == 1;
}

bool is_none(const ParamSig& p) {
  return p.kind == ParamSig::Kind::Constant && !p.is_constexpr &&
         p.value.kind == ConstValue::Kind::None;
}

nvptx::TargetOptions target_options(const runtime::GpuBuild& build, int sm) {
  // As the runtime builds them (runtime/gpu_kernel.cpp): the codegen knobs come from the key.
  nvptx::TargetOptions options;
  options.sm = sm;
  options.num_warps = build.inputs.num_warps;
  options.ptx_version = build.inputs.ptx_version;
  options.enable_fp_fusion = cache::knob_value(build.inputs, "TRITIUM_DEFAULT_FP_FUSION") != "0";
  options.vectorize = cache::knob_value(build.inputs, "TRITIUM_DISABLE_VECTORIZE") != "1";
  options.reduce_experiment = cache::knob_value(build.inputs, "TRITIUM_REDUCE_EXPERIMENT");
  // Not "ksplit" (gpu/split_k_cluster.h): the exported launcher launches one CTA a program.
  std::string kept;
  for (size_t at = 0; at <= options.reduce_experiment.size();) {
    size_t end = std::min(options.reduce_experiment.find(',', at), options.reduce_experiment.size());
    const std::string part = options.reduce_experiment.substr(at, end - at);
    if (!part.empty() && part != "ksplit") kept += (kept.empty() ? "" : ",") + part;
    at = end + 1;
  }
  options.reduce_experiment = kept;
  options.int8_row_major_wgmma = cache::knob_value(build.inputs, "TRITIUM_INT8_ROWB_WGMMA") == "1";
  options.prefetch_indices = cache::knob_value(build.inputs, "TRITIUM_PREFETCH_INDICES") != "0";
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse(argc, argv);
  Kernel kernel(read_file(options.file), options.kernel, options.file);
  Kernel::Impl& impl = kernel.impl();
  const std::vector<std::string>& names = impl.params().names;

  int sm = parse_arch(options.arch);
  bool gpu = cuda::device_present();
  int gpu_sm = gpu ? cuda::device(0, options.kernel).sm : 0;
  if (sm == 0) sm = gpu ? gpu_sm : 90;
  runtime::checked_sm(sm, options.kernel);
  LaunchConfig config;
  config.num_warps = options.num_warps;
  config.arch = sm;

  std::vector<Signature> signatures;
  for (const std::string& text : options.signatures) {
    signatures.push_back(parse_signature(text, names, impl.params().is_constexpr));
  }

  Export out;
  out.name = options.name;
  out.kernel = options.kernel;
  out.command = options.command;
  std::set<std::string> grid_names;
  for (size_t p = 0; p < names.size(); ++p) {
    // Every variant must agree on what the parameter is: a constexpr value, None, or an
    // argument (of one pointer type, or integers that may differ only as i32 vs i64).
    const ParamSig& first = signatures[0].params[p];
    bool constant = first.kind == ParamSig::Kind::Constant && !is_one(first);
    std::set<ir::ScalarKind> kinds;
    bool pointer = false, scalar = false;
    for (size_t v = 0; v < signatures.size(); ++v) {
      const ParamSig& s = signatures[v].params[p];
      auto disagree = [&](const std::string& why) {
        throw UsageError{"parameter '" + names[p] + "' " + why + " (signature " +
                         std::to_string(v + 1) + ": " + options.signatures[v] + ")"};
      };
      if (constant) {
        if (!(s == first)) {
          disagree("must have the same constant value in every --signature: one export "
                   "has one value per constexpr");
        }
        continue;
      }
      if (s.kind == ParamSig::Kind::Tuple) {
        disagree("is a tuple, which tritium aot does not export yet (pass its elements as "
                 "separate parameters)");
      }
      if (s.kind == ParamSig::Kind::Descriptor) {
        disagree("is a tensor descriptor, which tritium aot does not export yet (pass its base "
                 "pointer, shape and strides as separate parameters)");
      }
      if (s.kind == ParamSig::Kind::Constant && !is_one(s)) {
        disagree("is a constant in one --signature and an argument in another");
      }
      if (is_one(s)) continue;
      (s.kind == ParamSig::Kind::Pointer ? pointer : scalar) = true;
      if (pointer && scalar) disagree("is a pointer in one --signature and a scalar in another");
      kinds.insert(s.dtype);
    }
    // One C type per argument: i32 and i64 variants share an int64_t (the i32 ones are
    // chosen only for values that fit); any other disagreement is an error.
    ir::ScalarKind kind = kinds.empty() ? ir::ScalarKind::I32 : *kinds.begin();
    if (kinds.size() > 1) {
      if (scalar && kinds == std::set<ir::ScalarKind>{ir::ScalarKind::I32, ir::ScalarKind::I64}) {
        kind = ir::ScalarKind::I64;
      } else {
        throw UsageError{"parameter '" + names[p] + "' has different types in different "
                         "--signatures (only i32 and i64 may be mixed)"};
      }
    }
    if (constant) {
      if (is_none(first)) continue;
      std::string declaration = c_constant(first.value);
      if (!declaration.empty()) {
        declaration.replace(declaration.find("NAME"), 4, names[p]);
        out.constants.emplace_back(names[p], declaration);
        grid_names.insert(names[p]);
      }
      continue;
    }
    CParam param{names[p], pointer, kind};
    if (!pointer && (param.kind == ir::ScalarKind::F16 || param.kind == ir::ScalarKind::BF16)) {
      throw UsageError{"parameter '" + names[p] + "': fp16/bf16 scalar arguments are not "
                       "supported by tritium aot (pass fp32)"};
    }
    out.params.push_back(param);
    grid_names.insert(names[p]);
  }

  std::vector<std::string> grid = split_grid(options.grid);
  if (grid.size() > 3) throw UsageError{"--grid has more than 3 dimensions"};
  for (const std::string& g : grid) check_grid_expression(g, grid_names);
  for (size_t i = 0; i < 3; ++i) out.grid[i] = i < grid.size() ? grid[i] : "1";

  for (size_t v = 0; v < signatures.size(); ++v) {
    const Signature& signature = signatures[v];
    Variant variant;
    variant.signature = impl.signature_text(signature);
    variant.sm = sm;
    for (size_t p = 0; p < names.size(); ++p) {
      const ParamSig& s = signature.params[p];
      if (is_one(s)) {
        variant.conditions.push_back({Condition::Kind::EqualsOne, names[p]});
      } else if (s.kind == ParamSig::Kind::Pointer && s.divisibility == 16) {
        variant.conditions.push_back({Condition::Kind::Aligned16, names[p]});
      } else if (s.kind == ParamSig::Kind::Scalar && s.divisibility == 16) {
        variant.conditions.push_back({Condition::Kind::Divisible16, names[p]});
      }
      auto it = std::find_if(out.params.begin(), out.params.end(),
                             [&](const CParam& c) { return c.name == names[p]; });
      if (s.kind == ParamSig::Kind::Scalar && s.dtype == ir::ScalarKind::I32 &&
          it != out.params.end() && it->kind == ir::ScalarKind::I64) {
        variant.conditions.push_back({Condition::Kind::FitsI32, names[p]});
      }
    }
    runtime::GpuBuild build = impl.gpu_build(signature, config, sm);
    std::unique_ptr<ir::Function> function = build.lower();
    build.optimize(*function);
    nvptx::CompiledPtx compiled = nvptx::compile_to_ptx(*function, target_options(build, sm));
    variant.ptx = compiled.ptx;
    variant.entry = compiled.kernel_name;
    variant.num_warps = compiled.num_warps;
    variant.shared_bytes = compiled.shared_bytes;
    for (const nvptx::PtxParam& param : compiled.params) {
      variant.packed.push_back({param.name, param.size});
    }
    if (gpu && gpu_sm == sm) {
      variant.cubin = kernel.emit(Stage::Cubin, options.signatures[v], config);
    }
    out.variants.push_back(std::move(variant));
  }
  // Dispatch takes the first variant that fits: the most specialized first (stable).
  std::stable_sort(out.variants.begin(), out.variants.end(), [](const Variant& a, const Variant& b) {
    return a.conditions.size() > b.conditions.size();
  });

  std::filesystem::path dir(options.output);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError{"cannot create " + dir.string() + ": " + ec.message()};
  write_file(dir / (out.name + ".h"), header_text(out));
  write_file(dir / (out.name + ".c"), source_text(out));
  for (size_t v = 0; v < out.variants.size(); ++v) {
    std::string stem = out.name + "_v" + std::to_string(v);
    write_file(dir / (stem + ".ptx"), out.variants[v].ptx);
    if (!out.variants[v].cubin.empty()) write_file(dir / (stem + ".cubin"), out.variants[v].cubin);
    std::cout << stem << ": [" << out.variants[v].signature << "] sm_" << sm
              << (out.variants[v].cubin.empty() ? " (PTX; no GPU for a cubin)" : " (cubin + PTX)")
              << "\n";
  }
  std::cout << "wrote " << (dir / (out.name + ".h")).string() << " and "
            << (dir / (out.name + ".c")).string() << "\n";
  return 0;
}

}  // namespace tritium::aot
