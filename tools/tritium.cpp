// The `tritium` command-line tool: prints a kernel's stages for a signature (`compile`, up
// to LLVM IR, PTX and cubin), runs passes on IR text (`opt`, in opt.cpp), interprets a
// kernel on generated inputs (`run`), looks inside the disk cache (`cache`), and reports
// versions. It uses the public API of libtritium.so, plus the LLVM version query, the disk
// cache's listing and (for `opt`) the IR parser and pass table.
#include "tritium/tritium.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "aot.h"
#include "cache/disk_cache.h"
#include "ir/float_format.h"
#include "opt.h"
#include "support/text.h"
#include "target/nvptx/llvm_info.h"
#include "tritium/cache.h"

#ifndef TRITIUM_VERSION
#define TRITIUM_VERSION "0.0.0"
#endif

namespace {

using tritium::Arg;
using tritium::DType;
using tritium::split_outside_quotes;
using tritium::trim;

const char* kUsage =
    "usage:\n"
    "  tritium compile FILE --kernel NAME --signature SIG [--num-warps N] [--num-stages N]\n"
    "                  --emit ast|ir|ir-opt|gpu-ir|llvm|ptx|cubin [--arch sm_80|sm_90] [--output F]\n"
    "                  [--debug 0|1]\n"
    "      print a stage of the kernel NAME of FILE specialized on SIG, for example\n"
    "      --signature \"*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024\"; llvm and ptx\n"
    "      target --arch (default: the GPU's, else sm_90); cubin needs the CUDA driver and a\n"
    "      GPU of that architecture, and is written to --output (or stdout); --debug 1\n"
    "      compiles device_assert and assert (Triton's debug option)\n"
    "  tritium opt FILE.ir [--passes a,b,c] [--num-warps N] [--num-stages N] [--prefetch-indices 0|1]\n"
    "              [--ksplit 2|4|8]\n"
    "      parse IR text (as --emit ir prints it; FILE may be - for stdin), verify it, run the\n"
    "      named passes in order, verifying after each, and print the result; an unknown\n"
    "      pass name lists the known ones (fold_constants, fold_masks, ...)\n"
    "  tritium run FILE --kernel NAME --grid X[,Y,Z] --args ARGS [--num-warps N] [--show N]\n"
    "              [--seed N]\n"
    "      interpret the kernel on generated inputs and print the first elements of every\n"
    "      buffer; ARGS is a comma-separated list of [NAME=]VALUE where VALUE is a buffer\n"
    "      rand:DTYPE:N | zeros:DTYPE:N | ones:DTYPE:N | arange:DTYPE:N, or a scalar:\n"
    "      an int, a float, True, False, None, 'text' or a dtype, for example\n"
    "      --args \"x_ptr=rand:fp32:1000, y_ptr=rand:fp32:1000, out_ptr=zeros:fp32:1000,\n"
    "              n_elements=1000, BLOCK=256\"\n"
    "  tritium cache list | show KEY | clear | dir\n"
    "      the disk cache (TRITIUM_CACHE_DIR, else $XDG_CACHE_HOME/tritium, else\n"
    "      ~/.cache/tritium): one line per entry, an entry's header and PTX (KEY may be a\n"
    "      unique prefix), delete every entry, or print the directory\n"
    "  tritium --version\n"
    "  tritium --help\n";

// A command-line mistake: printed with the usage hint, exit status 2.
struct UsageError {
  std::string message;
};


// Parses `--name value` and `--name=value` options after the positional FILE.
struct Options {
  std::string file;
  std::map<std::string, std::string> values;

  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
  std::string require(const std::string& name) const {
    if (!has(name)) throw UsageError{"missing --" + name};
    return get(name);
  }
};

Options parse_options(int argc, char** argv, int first, const std::vector<std::string>& known) {
  Options out;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2), value;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else {
        if (i + 1 >= argc) throw UsageError{"--" + name + " needs a value"};
        value = argv[++i];
      }
      bool ok = false;
      for (const std::string& k : known) ok = ok || k == name;
      if (!ok) throw UsageError{"unknown option --" + name};
      if (out.values.count(name) != 0) throw UsageError{"--" + name + " given twice"};
      out.values[name] = value;
    } else if (out.file.empty()) {
      out.file = a;
    } else {
      throw UsageError{"unexpected argument '" + a + "'"};
    }
  }
  if (out.file.empty()) throw UsageError{"missing FILE"};
  return out;
}

int64_t parse_int(const std::string& text, const std::string& what) {
  std::string t = trim(text);
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 0);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE) {
    throw UsageError{what + " must be an integer, got '" + text + "'"};
  }
  return v;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError{"cannot read " + path + ": it is a directory"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError{"cannot read " + path + ": " + std::strerror(errno)};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int num_warps_option(const Options& options) {
  int64_t w = parse_int(options.get("num-warps", "4"), "--num-warps");
  if (w <= 0 || w > 64 || (w & (w - 1)) != 0) {
    throw UsageError{"--num-warps must be a power of 2 from 1 to 64, got " + std::to_string(w)};
  }
  return static_cast<int>(w);
}

int num_stages_option(const Options& options) {
  int64_t n = parse_int(options.get("num-stages", "3"), "--num-stages");
  if (n < 1 || n > 8) throw UsageError{"--num-stages must be from 1 to 8, got " + std::to_string(n)};
  return static_cast<int>(n);
}

// ---------------------------------------------------------------------------------------
// `tritium compile`

int cmd_compile(int argc, char** argv) {
  Options options = parse_options(argc, argv, 2,
                                  {"kernel", "signature", "num-warps", "num-stages", "emit", "arch", "output", "debug"});
  std::string emit = options.get("emit", "ir");
  static const std::map<std::string, tritium::Stage> stages = {
      {"ast", tritium::Stage::Ast},   {"ir", tritium::Stage::Ir},
      {"ir-opt", tritium::Stage::IrOpt}, {"llvm", tritium::Stage::Llvm},
      {"ptx", tritium::Stage::Ptx},   {"cubin", tritium::Stage::Cubin},
      {"gpu-ir", tritium::Stage::GpuIr},
  };
  auto found = stages.find(emit);
  if (found == stages.end()) {
    throw UsageError{"--emit must be ast, ir, ir-opt, gpu-ir, llvm, ptx or cubin, got '" + emit + "'"};
  }
  tritium::Stage stage = found->second;
  std::string kernel_name = options.require("kernel");
  if (stage != tritium::Stage::Ast && !options.has("signature")) {
    throw UsageError{"missing --signature (needed for --emit " + emit + ")"};
  }
  tritium::LaunchConfig config;
  config.num_warps = num_warps_option(options);
  config.num_stages = num_stages_option(options);
  std::string debug = options.get("debug", "0");
  if (debug != "0" && debug != "1") throw UsageError{"--debug must be 0 or 1, got '" + debug + "'"};
  config.debug = debug == "1";
  if (options.has("arch")) {
    std::string arch = options.get("arch");
    if (arch.rfind("sm_", 0) != 0 || arch.size() < 5 ||
        arch.find_first_not_of("0123456789", 3) != std::string::npos) {
      throw UsageError{"--arch must be sm_XY (sm_80, sm_90), got '" + arch + "'"};
    }
    config.arch = std::stoi(arch.substr(3));
  }
  std::string source = read_file(options.file);
  tritium::Kernel kernel(source, kernel_name, options.file);
  std::string text = kernel.emit(stage, options.get("signature"), config);
  if (options.has("output")) {
    std::ofstream out(options.get("output"), std::ios::binary);
    out << text;
    if (!out) throw UsageError{"cannot write " + options.get("output")};
    return 0;
  }
  if (stage == tritium::Stage::Cubin) {
    std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
    return 0;
  }
  std::cout << text;
  if (!text.empty() && text.back() != '\n') std::cout << '\n';
  return 0;
}

// ---------------------------------------------------------------------------------------
// `tritium opt`

int cmd_opt(int argc, char** argv) {
  Options options = parse_options(argc, argv, 2, {"passes", "num-warps", "num-stages", "prefetch-indices", "ksplit"});
  int64_t num_warps = parse_int(options.get("num-warps", "4"), "--num-warps");
  int num_stages = num_stages_option(options);
  if (num_warps < 1 || num_warps > 32 || (num_warps & (num_warps - 1)) != 0) {
    throw UsageError{"--num-warps must be a power of 2 from 1 to 32, got " + std::to_string(num_warps)};
  }
  std::vector<std::string> passes;
  try {
    passes = tritium::cli::pass_list(options.get("passes"));
  } catch (const std::invalid_argument& e) {
    throw UsageError{e.what()};
  }
  std::string text;
  if (options.file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    text = read_file(options.file);
  }
  std::cout << tritium::cli::run_opt(options.file == "-" ? "<stdin>" : options.file, text, passes, false, static_cast<int>(num_warps),
                                     num_stages, options.get("prefetch-indices", "1") == "1",
                                     static_cast<int>(parse_int(options.get("ksplit", "2"), "--ksplit")));
  return 0;
}

// ---------------------------------------------------------------------------------------
// `tritium run`: generated buffers

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float bf16_to_float(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// The element types the CLI's buffers take: the rows of the one dtype table.
struct DTypeRow {
  const char* name;
  const char* long_name;
  int bits;
  bool is_float;
};
constexpr DTypeRow kDTypes[] = {
#define TRITIUM_DTYPE(kind, dtype, name, long_name, bits, is_float, ...) \
  {name, long_name, bits, is_float},
#include "tritium/dtypes.def"
#undef TRITIUM_DTYPE
};
const DTypeRow& row(DType d) { return kDTypes[static_cast<int>(d)]; }

bool parse_dtype(std::string name, DType* out) {
  if (name.rfind("tl.", 0) == 0) name = name.substr(3);
  if (name == "bool") name = "i1";
  for (size_t i = 0; i < std::size(kDTypes); ++i) {
    if (name == kDTypes[i].name || name == kDTypes[i].long_name) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

const char* dtype_name(DType d) { return row(d).name; }

size_t dtype_size(DType d) { return row(d).bits <= 8 ? 1 : static_cast<size_t>(row(d).bits / 8); }

bool is_float_dtype(DType d) { return row(d).is_float; }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// A host buffer that a kernel argument points into (64-byte aligned, like a fresh tensor).
struct Buffer {
  std::string name;
  DType dtype = DType::fp32;
  size_t count = 0;
  std::unique_ptr<unsigned char, FreeDeleter> data;

  void set(size_t i, double v) {
    unsigned char* p = data.get() + i * dtype_size(dtype);
    auto put = [p](auto x) { std::memcpy(p, &x, sizeof(x)); };
    switch (dtype) {
      case DType::i1:
        put(static_cast<uint8_t>(v != 0));
        break;
      case DType::i8:
        put(static_cast<int8_t>(v));
        break;
      case DType::i16:
        put(static_cast<int16_t>(v));
        break;
      case DType::i32:
        put(static_cast<int32_t>(v));
        break;
      case DType::i64:
        put(static_cast<int64_t>(v));
        break;
      case DType::u8:
        put(static_cast<uint8_t>(v));
        break;
      case DType::u16:
        put(static_cast<uint16_t>(v));
        break;
      case DType::u32:
        put(static_cast<uint32_t>(v));
        break;
      case DType::u64:
        put(static_cast<uint64_t>(v));
        break;
      case DType::fp16:
        put(float_to_half(static_cast<float>(v)));
        break;
      case DType::bf16:
        put(float_to_bf16(static_cast<float>(v)));
        break;
      case DType::fp32:
        put(static_cast<float>(v));
        break;
      case DType::fp64:
        put(v);
        break;
      default:  // fp8: rounded to nearest-even, saturating as Triton's casts do
        put(static_cast<uint8_t>(tritium::ir::encode_float(
            v, static_cast<tritium::ir::ScalarKind>(dtype), tritium::ir::Rounding::NearestEven)));
        break;
    }
  }

  std::string format(size_t i) const {
    const unsigned char* p = data.get() + i * dtype_size(dtype);
    auto get = [p](auto x) {
      std::memcpy(&x, p, sizeof(x));
      return x;
    };
    char buf[64];
    switch (dtype) {
      case DType::i1:
        return get(uint8_t{}) ? "True" : "False";
      case DType::i8:
        return std::to_string(get(int8_t{}));
      case DType::i16:
        return std::to_string(get(int16_t{}));
      case DType::i32:
        return std::to_string(get(int32_t{}));
      case DType::i64:
        return std::to_string(get(int64_t{}));
      case DType::u8:
        return std::to_string(get(uint8_t{}));
      case DType::u16:
        return std::to_string(get(uint16_t{}));
      case DType::u32:
        return std::to_string(get(uint32_t{}));
      case DType::u64:
        return std::to_string(get(uint64_t{}));
      case DType::fp16:
        std::snprintf(buf, sizeof buf, "%.6g", half_to_float(get(uint16_t{})));
        break;
      case DType::bf16:
        std::snprintf(buf, sizeof buf, "%.6g", bf16_to_float(get(uint16_t{})));
        break;
      case DType::fp32:
        std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(get(float{})));
        break;
      case DType::fp64:
        std::snprintf(buf, sizeof buf, "%.10g", get(double{}));
        break;
      default:  // fp8
        std::snprintf(buf, sizeof buf, "%.6g",
                      tritium::ir::decode_float(get(uint8_t{}),
                                                static_cast<tritium::ir::ScalarKind>(dtype)));
        break;
    }
    return buf;
  }
};

std::vector<std::string> split_top_level(const std::string& text) {
  bool unterminated = false;
  std::vector<std::string> out = split_outside_quotes(text, &unterminated);
  if (unterminated) throw UsageError{"--args: unterminated string"};
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

// One --args value: a generated buffer (kept in `buffers`) or a scalar.
Arg parse_run_value(const std::string& name, const std::string& text, std::mt19937_64& rng,
                    std::vector<std::unique_ptr<Buffer>>& buffers) {
  std::string what = "--args entry '" + (name.empty() ? text : name + "=" + text) + "'";
  if (text.empty()) throw UsageError{what + " has no value"};
  size_t colon = text.find(':');
  if (colon != std::string::npos && text[0] != '\'' && text[0] != '"') {
    std::string kind = text.substr(0, colon), rest = text.substr(colon + 1);
    size_t colon2 = rest.find(':');
    if (colon2 == std::string::npos) {
      throw UsageError{what + ": a buffer is KIND:DTYPE:N (rand, zeros, ones, arange)"};
    }
    auto buffer = std::make_unique<Buffer>();
    buffer->name = name.empty() ? "arg" + std::to_string(buffers.size()) : name;
    if (!parse_dtype(trim(rest.substr(0, colon2)), &buffer->dtype)) {
      throw UsageError{what + ": unknown dtype '" + rest.substr(0, colon2) + "'"};
    }
    int64_t count = parse_int(rest.substr(colon2 + 1), what + ": the element count");
    if (count < 0 || count > (int64_t{1} << 31)) {
      throw UsageError{what + ": the element count must be in [0, 2^31]"};
    }
    buffer->count = static_cast<size_t>(count);
    size_t bytes = buffer->count * dtype_size(buffer->dtype);
    size_t padded = (bytes + 63) / 64 * 64 + 64;
    buffer->data.reset(static_cast<unsigned char*>(std::aligned_alloc(64, padded)));
    if (!buffer->data) throw UsageError{what + ": out of memory"};
    std::memset(buffer->data.get(), 0, padded);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::uniform_int_distribution<int> small(0, 99);
    for (size_t i = 0; i < buffer->count; ++i) {
      double v = 0;
      if (kind == "rand") {
        v = buffer->dtype == DType::i1      ? small(rng) % 2
            : is_float_dtype(buffer->dtype) ? uniform(rng)
                                            : small(rng);
      } else if (kind == "zeros") {
        v = 0;
      } else if (kind == "ones") {
        v = 1;
      } else if (kind == "arange") {
        v = static_cast<double>(i);
      } else {
        throw UsageError{what + ": unknown buffer kind '" + kind + "' (rand, zeros, ones, arange)"};
      }
      buffer->set(i, v);
    }
    Arg arg = Arg::pointer(buffer->data.get(), buffer->dtype, bytes);
    buffers.push_back(std::move(buffer));
    return arg;
  }
  if (text == "None") return Arg::none();
  if (text == "True") return Arg::boolean(true);
  if (text == "False") return Arg::boolean(false);
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') && text.back() == text[0]) {
    return Arg::string(text.substr(1, text.size() - 2));
  }
  DType dtype;
  if (parse_dtype(text, &dtype)) return Arg::dtype(dtype);
  errno = 0;
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 0);
  if (end == text.c_str() + text.size() && errno != ERANGE) return Arg::integer(i);
  errno = 0;
  unsigned long long u = std::strtoull(text.c_str(), &end, 0);
  if (text[0] != '-' && end == text.c_str() + text.size() && errno != ERANGE) {
    return Arg::unsigned_integer(u);
  }
  double d = std::strtod(text.c_str(), &end);
  if (end == text.c_str() + text.size()) return Arg::floating(d);
  throw UsageError{what + ": cannot read '" + text +
                   "' (a buffer KIND:DTYPE:N, an int, a float, True, False, None, 'text', or a "
                   "dtype)"};
}

int cmd_run(int argc, char** argv) {
  Options options =
      parse_options(argc, argv, 2, {"kernel", "grid", "args", "num-warps", "show", "seed"});
  std::string kernel_name = options.require("kernel");
  std::vector<std::string> grid_parts = split_top_level(options.require("grid"));
  if (grid_parts.empty() || grid_parts.size() > 3) {
    throw UsageError{"--grid takes 1 to 3 comma-separated dimensions"};
  }
  uint32_t dims[3] = {1, 1, 1};
  for (size_t i = 0; i < grid_parts.size(); ++i) {
    int64_t d = parse_int(grid_parts[i], "--grid dimension");
    if (d < 0 || d > INT32_MAX) throw UsageError{"--grid dimensions must be in [0, 2^31-1]"};
    dims[i] = static_cast<uint32_t>(d);
  }
  int64_t show = parse_int(options.get("show", "8"), "--show");
  if (show < 0) throw UsageError{"--show must not be negative"};
  std::mt19937_64 rng(static_cast<uint64_t>(parse_int(options.get("seed", "0"), "--seed")));

  tritium::LaunchConfig config;
  config.num_warps = num_warps_option(options);
  config.backend = tritium::Backend::Interpreter;

  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<Arg> positional;
  std::vector<std::pair<std::string, Arg>> named;
  for (const std::string& entry : split_top_level(options.get("args"))) {
    if (entry.empty()) throw UsageError{"--args has an empty entry"};
    size_t eq = entry.find('=');
    bool is_named = eq != std::string::npos && entry[0] != '\'' && entry[0] != '"';
    std::string name = is_named ? trim(entry.substr(0, eq)) : "";
    std::string value = is_named ? trim(entry.substr(eq + 1)) : entry;
    Arg arg = parse_run_value(name, value, rng, buffers);
    if (is_named) {
      named.emplace_back(name, std::move(arg));
    } else {
      if (!named.empty()) throw UsageError{"--args: a positional entry follows a named one"};
      positional.push_back(std::move(arg));
    }
  }

  std::string source = read_file(options.file);
  tritium::Kernel kernel(source, kernel_name, options.file);
  std::string signature = kernel.signature(positional, named);
  std::cout << "signature: " << signature << "\n";
  std::cout << "grid: (" << dims[0] << ", " << dims[1] << ", " << dims[2] << ")\n";
  kernel.launch(tritium::Grid{dims[0], dims[1], dims[2]}, positional, named, config);
  for (const auto& buffer : buffers) {
    size_t n = std::min(buffer->count, static_cast<size_t>(show));
    std::cout << buffer->name << ": " << dtype_name(buffer->dtype) << "[" << buffer->count
              << "] = [";
    for (size_t i = 0; i < n; ++i) std::cout << (i ? ", " : "") << buffer->format(i);
    if (n < buffer->count) std::cout << (n ? ", " : "") << "...";
    std::cout << "]\n";
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// `tritium cache`

int cmd_cache(int argc, char** argv) {
  if (argc < 3) throw UsageError{"tritium cache needs list, show KEY, clear or dir"};
  std::string what = argv[2];
  tritium::cache::DiskCache disk = tritium::cache::DiskCache::from_env();
  if (what == "dir" && argc == 3) {
    std::cout << disk.dir() << "\n";
    return 0;
  }
  if (what == "list" && argc == 3) {
    uint64_t total = 0;
    std::vector<tritium::cache::EntryInfo> entries = disk.list();
    for (const tritium::cache::EntryInfo& e : entries) {
      std::cout << e.key << "  " << e.bytes << " B  " << (e.target.empty() ? "?" : e.target)
                << "  " << (e.kernel.empty() ? "(unreadable header)" : e.kernel) << " ["
                << e.signature << "]\n";
      total += e.bytes;
    }
    std::cout << entries.size() << " entr" << (entries.size() == 1 ? "y" : "ies") << ", "
              << total << " bytes in " << disk.dir() << "\n";
    return 0;
  }
  if (what == "show" && argc == 4) {
    std::optional<std::string> text = disk.show(argv[3]);
    if (!text) {
      std::cerr << "tritium: error: no single cache entry matches '" << argv[3] << "' in "
                << disk.dir() << "\n";
      return 1;
    }
    std::cout << *text;
    return 0;
  }
  if (what == "clear" && argc == 3) {
    size_t removed = disk.clear();
    std::cout << "removed " << removed << " entr" << (removed == 1 ? "y" : "ies") << " from "
              << disk.dir() << "\n";
    return 0;
  }
  throw UsageError{"tritium cache needs list, show KEY, clear or dir"};
}

int run_command(int argc, char** argv) {
  if (argc < 2) throw UsageError{"missing command"};
  std::string command = argv[1];
  if (command == "--version" || command == "version") {
    std::cout << "tritium " << TRITIUM_VERSION << " (LLVM " << tritium::nvptx::llvm_version()
              << ")\n";
    return 0;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage << "\n" << tritium::aot::kUsage;
    return 0;
  }
  if (command == "aot") {  // tools/aot.cpp
    try {
      return tritium::aot::main(argc, argv);
    } catch (const tritium::aot::UsageError& e) {
      throw UsageError{e.message};
    }
  }
  if (command == "compile") return cmd_compile(argc, argv);
  if (command == "opt") return cmd_opt(argc, argv);
  if (command == "run") return cmd_run(argc, argv);
  if (command == "cache") return cmd_cache(argc, argv);
  throw UsageError{"unknown command '" + command + "'"};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_command(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "tritium: error: " << e.message << "\n" << kUsage;
    return 2;
  } catch (const tritium::CompileError& e) {
    std::cout.flush();
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const tritium::OutOfResources& e) {  // located when the compiler found it
    std::cout.flush();
    const std::string what = e.what();
    std::cerr << (what.find(": error: ") == std::string::npos ? "tritium: error: " : "") << what << "\n";
    return 1;
  } catch (const tritium::LaunchError& e) {
    std::cout.flush();
    std::cerr << "tritium: error: " << e.what() << "\n";
    return 1;
  } catch (const tritium::InternalError& e) {
    std::cout.flush();
    std::cerr << "tritium: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "tritium: internal error: " << e.what() << "\n";
    return 3;
  }
}
