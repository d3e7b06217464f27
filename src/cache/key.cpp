// Cache keys: the canonical serialization of KeyInputs and its SHA-256, the toolchain
// fields (version, compiler library hash, LLVM version) and the codegen knobs.
#include "cache/key.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <llvm/Config/llvm-config.h>
#include <nlohmann/json.hpp>

#include "cache/sha256.h"

#ifndef TRITIUM_VERSION
#define TRITIUM_VERSION "0.0.0"
#endif

namespace tritium::cache {

namespace {

void field(std::string* out, const char* name, const std::string& value) {
  *out += name;
  *out += ':';
  *out += std::to_string(value.size());
  *out += ':';
  *out += value;
  *out += '\n';
}

void field(std::string* out, const char* name, int value) {
  field(out, name, std::to_string(value));
}

// The GNU build ID of the loaded object that contains `address`, as hex; empty when none.
struct BuildIdSearch {
  uintptr_t address;
  std::string id;
  std::string path;
};

int find_build_id(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (search->address >= start && search->address < start + segment.p_memsz) contains = true;
  }
  if (!contains) return 0;
  search->path = info->dlpi_name ? info->dlpi_name : "";
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const char* note = reinterpret_cast<const char*>(info->dlpi_addr + segment.p_vaddr);
    const char* end = note + segment.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
      const char* name = note + sizeof(ElfW(Nhdr));
      const char* desc = name + ((header->n_namesz + 3) & ~3u);
      if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned j = 0; j < header->n_descsz; ++j) {
          auto byte = static_cast<unsigned char>(desc[j]);
          search->id += digits[byte >> 4];
          search->id += digits[byte & 15];
        }
        return 1;
      }
      note = desc + ((header->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // found the object, but it has no build ID
}

std::string compute_compiler_hash() {
  BuildIdSearch search{reinterpret_cast<uintptr_t>(&compute_compiler_hash), {}, {}};
  dl_iterate_phdr(find_build_id, &search);
  if (!search.id.empty()) return "build-id:" + search.id;
  // No build ID: hash the file itself (the main program has an empty dlpi_name).
  std::string path = search.path;
  if (path.empty()) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&compute_compiler_hash), &info) != 0 && info.dli_fname) {
      path = info.dli_fname;
    }
  }
  std::ifstream file(path.empty() ? "/proc/self/exe" : path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return "sha256:" + sha256_hex(bytes.str());
}

std::string normalize_bool(const std::string& value) {
  const char* v = value.c_str();
  if (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
      !strcasecmp(v, "on")) {
    return "1";
  }
  if (!strcasecmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
      !strcasecmp(v, "off") || value.empty()) {
    return "0";
  }
  return value;  // not a boolean: kept as written, so it still changes the key
}

}  // namespace

KeyInputs KeyInputs::current() {
  KeyInputs inputs;
  inputs.tritium_version = cache::tritium_version();
  inputs.compiler_hash = cache::compiler_hash();
  inputs.llvm_version = cache::llvm_version();
  inputs.env = codegen_env();
  return inputs;
}

std::string canonical(const KeyInputs& in) {
  std::string out = "tritium-cache-key 1\n";
  field(&out, "tritium", in.tritium_version);
  field(&out, "compiler", in.compiler_hash);
  field(&out, "llvm", in.llvm_version);
  field(&out, "kernel", in.kernel);
  field(&out, "source", in.source);
  field(&out, "path", in.source_path);
  field(&out, "first_line", in.first_line);
  field(&out, "globals", in.globals);
  field(&out, "signature", in.signature);
  field(&out, "target", in.target);
  field(&out, "ptx_version", in.ptx_version);
  field(&out, "num_warps", in.num_warps);
  field(&out, "num_stages", in.num_stages);
  field(&out, "options", in.options);
  field(&out, "env", static_cast<int>(in.env.size()));
  for (const auto& [name, value] : in.env) field(&out, name.c_str(), value);
  return out;
}

std::string key_of(const KeyInputs& inputs) { return sha256_hex(canonical(inputs)); }

std::string inputs_json(const KeyInputs& in) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : in.env) env[name] = value;
  nlohmann::json j = {
      {"tritium", in.tritium_version}, {"compiler", in.compiler_hash},
      {"llvm", in.llvm_version},       {"kernel", in.kernel},
      {"source", in.source},           {"path", in.source_path},
      {"first_line", in.first_line},   {"globals", in.globals},
      {"signature", in.signature},     {"target", in.target},
      {"ptx_version", in.ptx_version}, {"num_warps", in.num_warps},
      {"num_stages", in.num_stages},   {"options", in.options},
      {"env", env},
  };
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const std::string& tritium_version() {
  static const std::string version = TRITIUM_VERSION;
  return version;
}

const std::string& compiler_hash() {
  static const std::string hash = compute_compiler_hash();
  return hash;
}

std::string llvm_version() { return LLVM_VERSION_STRING; }

const std::vector<Knob>& codegen_knobs() {
  static const std::vector<Knob> knobs = {
      {"TRITIUM_DEFAULT_FP_FUSION", "1",
       "contract a * b + c into fma (when unset, Triton's TRITON_DEFAULT_FP_FUSION is read)"},
      {"TRITIUM_DISABLE_VECTORIZE", "0",
       "one element per load and store (the 'before' of the vectorization benchmark)"},
      {"TRITIUM_DISABLE_TMA", "0",
       "host-descriptor blocks moved by cp.async and pointer code instead of the TMA (for comparisons)"},
      {"TRITIUM_INFLIGHT_COPIES", "",
       "before|after: where a wgmma kept in flight has the next copies issued (default: by occupancy); "
       "pv|pv-before|pv-after: the same, and the last of a loop's several wgmma dots (attention's P.V) "
       "stays in flight into the next iteration too (opt-in until timed on a GPU)"},
      {"TRITIUM_REDUCE_EXPERIMENT", "",
       "reduction and scan emission variants for one A/B timing (comma-separated names; "
       "nvptx/codegen.h ReduceExperiments)"},
      {"TRITIUM_KSPLIT", "",
       "2|4|8: with TRITIUM_REDUCE_EXPERIMENT=ksplit, a K loop split over a cluster of that many "
       "CTAs wherever programs * it <= the SM count (for timing the sizes; default: the launch "
       "takes the largest of 8, 4, 2 that fits)"},
      {"TRITIUM_INT8_ROWB_WGMMA", "0",
       "1: int8 dots of pipelined loops with a row-major B on wgmma, B staged from registers "
       "(default: mma.sync; for timing the two)"},
      {"TRITIUM_PREFETCH_INDICES", "1",
       "1: pipelined loops whose dot operands' pointers read a block-table entry loaded in the "
       "body prefetch that entry into registers one iteration further ahead and copy the operands "
       "by cp.async (the default); 0: those loads stay synchronous (for timing the two)"},
      {"TRITIUM_LOAD_PTX", "1",
       "1: the cache entry keeps PTX only and the driver compiles it as a whole program at load "
       "(cuModuleLoadDataEx; fewer registers than the JIT linker's relocatable code); 0: the "
       "entry keeps the JIT linker's cubin (for comparisons)"},
      {"TRITIUM_PTXAS", "",
       "a ptxas to make the cache entry's cubin with (whole program, the PTX's .target) instead "
       "of the driver compiling the PTX at load: the path is part of the key, not its version "
       "(for comparing compilers on the same PTX; runtime/ptxas.h)"},
      {"TRITIUM_F32_DEFAULT", "",
       "the input_precision of tl.dot on fp32 inputs when none is given (tf32, tf32x3, ieee)"},
      {"TRITON_F32_DEFAULT", "", "Triton's name for TRITIUM_F32_DEFAULT (read when that is unset)"},
  };
  return knobs;
}

std::vector<std::pair<std::string, std::string>> codegen_env() {
  std::vector<std::pair<std::string, std::string>> out;
  // Triton's names of knobs tritium reads under its own: used when tritium's is unset.
  static const std::pair<const char*, const char*> kTritonNames[] = {
      {"TRITIUM_DEFAULT_FP_FUSION", "TRITON_DEFAULT_FP_FUSION"},
  };
  for (const Knob& knob : codegen_knobs()) {
    const char* raw = std::getenv(knob.name);
    for (const auto& [ours, theirs] : kTritonNames) {
      if (raw == nullptr && std::strcmp(knob.name, ours) == 0) raw = std::getenv(theirs);
    }
    if (raw == nullptr) continue;
    std::string value = normalize_bool(raw);
    if (value != normalize_bool(knob.default_value)) out.emplace_back(knob.name, value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string knob_value(const KeyInputs& inputs, const std::string& name) {
  for (const auto& [knob, value] : inputs.env) {
    if (knob == name) return value;
  }
  for (const Knob& knob : codegen_knobs()) {
    if (name == knob.name) return normalize_bool(knob.default_value);
  }
  return "";
}

}  // namespace tritium::cache
