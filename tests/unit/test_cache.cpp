// The cache without a GPU (src/cache): every key input changes the key and identical inputs
// give the identical key (DESIGN law 4), at the KeyInputs level and through a Kernel's own
// inputs (sources, callees, globals, options, target); the disk format round-trips, a
// truncated or corrupted entry is detected and deleted, and the size cap evicts the least
// recently used entries.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cache/disk_cache.h"
#include "cache/key.h"
#include "cache/once_map.h"
#include "cache/sha256.h"
#include "cache/stats.h"
#include "runtime/kernel_impl.h"
#include "tritium/cache.h"

namespace cache = tritium::cache;
namespace fs = std::filesystem;

namespace {

cache::KeyInputs sample_inputs() {
  cache::KeyInputs in;
  in.tritium_version = "0.1.0";
  in.compiler_hash = "build-id:00ff";
  in.llvm_version = "22.1.8";
  in.kernel = "add_kernel";
  in.source = "@triton.jit\ndef add_kernel(x, n):\n    pass\n";
  in.source_path = "/tmp/k.py";
  in.first_line = 3;
  in.globals = "{}";
  in.signature = "*fp32:16, i32:16";
  in.target = "sm_90";
  in.ptx_version = 80;
  in.num_warps = 4;
  in.num_stages = 3;
  return in;
}

// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("tritium-cache-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

cache::Entry sample_entry(const cache::KeyInputs& inputs) {
  cache::Entry e;
  e.inputs = inputs;
  e.key = cache::key_of(inputs);
  e.entry_name = "add_kernel";
  e.num_warps = 4;
  e.shared_bytes = 0;
  e.sm = 90;
  e.ptx_version = 80;
  e.params = {{"x", 0, true, "fp32", 8}, {"n", 1, false, "i32", 4}};
  e.ptx = ".version 8.0\n.target sm_90\n.visible .entry add_kernel() { ret; }\n";
  e.cubin = std::string("\x7f" "ELF\0\1\2 binary cubin bytes", 27);
  return e;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

void set_mtime(const fs::path& path, int seconds_ago) {
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
}

}  // namespace

TEST_CASE("sha256 is the standard one", "[cache]") {
  CHECK(cache::sha256_hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(cache::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("identical inputs give the identical full-length key", "[cache]") {
  cache::KeyInputs a = sample_inputs(), b = sample_inputs();
  std::string key = cache::key_of(a);
  CHECK(key.size() == 64);
  CHECK(key.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(cache::key_of(b) == key);
  CHECK(cache::canonical(a) == cache::canonical(b));
}

TEST_CASE("every key input changes the key", "[cache]") {
  using Mutate = std::function<void(cache::KeyInputs&)>;
  const std::vector<std::pair<const char*, Mutate>> mutations = {
      {"tritium version", [](auto& in) { in.tritium_version = "0.1.1"; }},
      {"compiler hash", [](auto& in) { in.compiler_hash = "build-id:00fe"; }},
      {"llvm version", [](auto& in) { in.llvm_version = "22.1.9"; }},
      {"kernel name", [](auto& in) { in.kernel = "add_kernel2"; }},
      {"source", [](auto& in) { in.source += " "; }},
      {"source path", [](auto& in) { in.source_path = "/tmp/j.py"; }},
      {"first line", [](auto& in) { in.first_line = 4; }},
      {"globals", [](auto& in) { in.globals = "{1:X;8:constant;1:3;}"; }},
      {"signature", [](auto& in) { in.signature = "*fp32:16, i32"; }},
      {"target", [](auto& in) { in.target = "sm_80"; }},
      {"ptx version", [](auto& in) { in.ptx_version = 81; }},
      {"num_warps", [](auto& in) { in.num_warps = 8; }},
      {"num_stages", [](auto& in) { in.num_stages = 2; }},
      {"env knob", [](auto& in) { in.env = {{"TRITIUM_DEFAULT_FP_FUSION", "0"}}; }},
  };
  std::set<std::string> keys = {cache::key_of(sample_inputs())};
  for (const auto& [what, mutate] : mutations) {
    cache::KeyInputs in = sample_inputs();
    mutate(in);
    INFO(what);
    CHECK(keys.insert(cache::key_of(in)).second);
  }
}

TEST_CASE("the serialization is injective across field boundaries", "[cache]") {
  cache::KeyInputs a = sample_inputs(), b = sample_inputs();
  a.source = "ab";
  a.source_path = "c";
  b.source = "a";
  b.source_path = "bc";
  CHECK(cache::key_of(a) != cache::key_of(b));
  a = b = sample_inputs();
  a.source = std::string("x\0y", 3);  // bytes that are not text still count
  b.source = std::string("x\0z", 3);
  CHECK(cache::key_of(a) != cache::key_of(b));
}

TEST_CASE("codegen knobs: unset and default hash the same", "[cache]") {
  ::unsetenv("TRITIUM_DEFAULT_FP_FUSION");
  std::string unset = cache::key_of(cache::KeyInputs::current());
  ::setenv("TRITIUM_DEFAULT_FP_FUSION", "true", 1);  // the default, spelled otherwise
  CHECK(cache::key_of(cache::KeyInputs::current()) == unset);
  ::setenv("TRITIUM_DEFAULT_FP_FUSION", "0", 1);
  cache::KeyInputs off = cache::KeyInputs::current();
  CHECK(cache::key_of(off) != unset);
  CHECK(cache::knob_value(off, "TRITIUM_DEFAULT_FP_FUSION") == "0");
  ::unsetenv("TRITIUM_DEFAULT_FP_FUSION");
  CHECK(cache::knob_value(cache::KeyInputs::current(), "TRITIUM_DEFAULT_FP_FUSION") == "1");
}

TEST_CASE("codegen knobs: Triton's TRITON_DEFAULT_FP_FUSION when tritium's is unset", "[cache]") {
  ::unsetenv("TRITIUM_DEFAULT_FP_FUSION");
  ::setenv("TRITON_DEFAULT_FP_FUSION", "0", 1);
  cache::KeyInputs off = cache::KeyInputs::current();
  CHECK(cache::knob_value(off, "TRITIUM_DEFAULT_FP_FUSION") == "0");
  ::setenv("TRITIUM_DEFAULT_FP_FUSION", "1", 1);  // tritium's own name wins
  CHECK(cache::knob_value(cache::KeyInputs::current(), "TRITIUM_DEFAULT_FP_FUSION") == "1");
  ::unsetenv("TRITIUM_DEFAULT_FP_FUSION");
  ::unsetenv("TRITON_DEFAULT_FP_FUSION");
  CHECK(cache::knob_value(cache::KeyInputs::current(), "TRITIUM_DEFAULT_FP_FUSION") == "1");
}

TEST_CASE("the toolchain fields are filled in", "[cache]") {
  cache::KeyInputs in = cache::KeyInputs::current();
  CHECK(in.tritium_version == cache::tritium_version());
  CHECK(in.compiler_hash.size() > 10);
  CHECK(in.compiler_hash == cache::compiler_hash());  // computed once, stable
  CHECK(in.llvm_version.rfind("22.", 0) == 0);
}

namespace {

const char* kAddSource = R"(import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)
)";

const char* kCalleeSource = R"(import triton
import triton.language as tl

@triton.jit
def helper(x):
    return x + 1
)";

// The key a Kernel computes for a signature, as the GPU path would.
std::string kernel_key(tritium::Kernel::Impl& impl, const std::string& signature_text,
                       int num_warps = 4, int sm = 90) {
  const tritium::KernelParams& params = impl.params();
  tritium::Signature signature =
      tritium::parse_signature(signature_text, params.names, params.is_constexpr);
  tritium::LaunchConfig config;
  config.num_warps = num_warps;
  return cache::key_of(impl.gpu_build(signature, config, sm).inputs);
}

tritium::Globals scale_global(int value) {
  tritium::Globals globals;
  tritium::GlobalBinding binding;
  binding.kind = tritium::GlobalBinding::Kind::Constant;
  binding.value = tritium::ConstValue::integer(value);
  globals["SCALE"] = binding;
  return globals;
}

}  // namespace

TEST_CASE("a kernel's key covers its source, callees, globals, options and target", "[cache]") {
  const std::string sig = "*fp32:16, *fp32:16, i32:16, BLOCK=128";
  auto make = [](const std::string& source, int scale, const std::string& callee) {
    std::vector<tritium::CalleeSource> callees;
    if (!callee.empty()) callees.push_back({"helper", "", {callee, "helper.py", 1}, nullptr});
    return std::make_unique<tritium::Kernel::Impl>(tritium::KernelSource{source, "k.py", 1},
                                                   "add_kernel", callees, scale_global(scale));
  };
  auto base = make(kAddSource, 2, kCalleeSource);
  std::string key = kernel_key(*base, sig);
  CHECK(kernel_key(*make(kAddSource, 2, kCalleeSource), sig) == key);  // identical inputs

  CHECK(kernel_key(*make(std::string(kAddSource) + "\n", 2, kCalleeSource), sig) != key);
  CHECK(kernel_key(*make(kAddSource, 3, kCalleeSource), sig) != key);  // a constexpr global
  std::string other_callee = std::string(kCalleeSource);
  other_callee.replace(other_callee.find("x + 1"), 5, "x + 2");
  CHECK(kernel_key(*make(kAddSource, 2, other_callee), sig) != key);  // a callee's source
  CHECK(kernel_key(*base, "*fp32:16, *fp32:16, i32, BLOCK=128") != key);
  CHECK(kernel_key(*base, "*fp32:16, *fp32:16, i32:16, BLOCK=256") != key);
  CHECK(kernel_key(*base, "*fp32, *fp32:16, i32:16, BLOCK=128") != key);
  CHECK(kernel_key(*base, sig, 8) != key);
  CHECK(kernel_key(*base, sig, 4, 80) != key);
  CHECK(kernel_key(*base, sig) == key);  // and nothing drifts between calls
}

TEST_CASE("an entry of PTX alone round-trips; one of neither is refused", "[cache]") {
  // The runtime caches PTX without a cubin (the driver compiles it as a whole program at
  // load; its JIT linker's cubin is relocatable code, with more registers).
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs in = sample_inputs();
  cache::Entry entry = sample_entry(in);
  entry.cubin.clear();
  disk.store(entry);
  std::optional<cache::Entry> back = disk.load(in);
  REQUIRE(back);
  CHECK(back->ptx == entry.ptx);
  CHECK(back->cubin.empty());

  entry.ptx.clear();
  std::string error;
  CHECK_FALSE(cache::decode(cache::encode(entry), in, &error));
  CHECK(error.find("no PTX or cubin") != std::string::npos);
}

TEST_CASE("disk entries round-trip", "[cache]") {
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs in = sample_inputs();
  cache::Entry entry = sample_entry(in);
  disk.store(entry);
  REQUIRE(fs::exists(disk.path_of(entry.key)));
  std::optional<cache::Entry> back = disk.load(in);
  REQUIRE(back);
  CHECK(back->key == entry.key);
  CHECK(back->ptx == entry.ptx);
  CHECK(back->cubin == entry.cubin);
  CHECK(back->entry_name == "add_kernel");
  CHECK(back->sm == 90);
  REQUIRE(back->params.size() == 2);
  CHECK(back->params[0].name == "x");
  CHECK(back->params[0].is_pointer);
  CHECK(back->params[1].dtype == "i32");
  CHECK(back->params[1].size == 4);

  // Other inputs find nothing, and leave the entry alone.
  cache::KeyInputs other = in;
  other.num_warps = 8;
  CHECK_FALSE(disk.load(other));
  CHECK(fs::exists(disk.path_of(entry.key)));

  // No temporary files are left behind.
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir.path)) files += f.is_regular_file();
  CHECK(files == 1);

  std::vector<cache::EntryInfo> listed = disk.list();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].kernel == "add_kernel");
  CHECK(listed[0].signature == in.signature);
  std::optional<std::string> shown = disk.show(entry.key.substr(0, 8));
  REQUIRE(shown);
  CHECK(shown->find(".visible .entry add_kernel") != std::string::npos);
  CHECK(disk.clear() == 1);
  CHECK(disk.list().empty());
}

TEST_CASE("a tuple parameter's entries round-trip: one index, part 4, the leaf in dim", "[cache]") {
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs in = sample_inputs();
  cache::Entry entry = sample_entry(in);
  // t = (x, 1, n): leaves 0 and 2 are entries (leaf 1 was folded), then a parameter of its own.
  entry.params = {{"t_0", 0, true, "fp32", 8, 4, 0}, {"t_2", 0, false, "i32", 4, 4, 2}, {"m", 1, false, "i64", 8}};
  disk.store(entry);
  std::optional<cache::Entry> back = disk.load(in);
  REQUIRE(back);
  REQUIRE(back->params.size() == 3);
  CHECK((back->params[0].index == 0 && back->params[0].part == 4 && back->params[0].dim == 0));
  CHECK((back->params[1].index == 0 && back->params[1].part == 4 && back->params[1].dim == 2));
  CHECK((back->params[2].index == 1 && back->params[2].part == 0));
}

TEST_CASE("bad entries are detected and deleted", "[cache]") {
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs in = sample_inputs();
  cache::Entry entry = sample_entry(in);
  const fs::path path = disk.path_of(entry.key);

  using Damage = std::function<std::string(std::string)>;
  const std::vector<std::pair<const char*, Damage>> damages = {
      {"truncated payload", [](std::string b) { return b.substr(0, b.size() - 5); }},
      {"truncated header", [](std::string b) { return b.substr(0, 40); }},
      {"empty file", [](std::string) { return std::string(); }},
      {"flipped cubin byte", [](std::string b) { b[b.size() - 3] ^= 0x20; return b; }},
      {"flipped ptx byte",
       [](std::string b) { b[b.find(".target") + 1] = 'T'; return b; }},
      {"extra bytes", [](std::string b) { return b + "junk"; }},
      {"other key inputs in the header",
       [](std::string b) {
         std::string inputs = "\"num_stages\":3,\"num_warps\":4";
         size_t at = b.find(inputs);
         REQUIRE(at != std::string::npos);
         b.replace(at, inputs.size(), "\"num_stages\":3,\"num_warps\":8");
         return b;
       }},
      {"not an entry", [](std::string) { return std::string("hello\nworld"); }},
  };
  for (const auto& [what, damage] : damages) {
    INFO(what);
    disk.store(entry);
    REQUIRE(disk.load(in));
    write_all(path, damage(read_all(path)));
    uint64_t bad_before = tritium::cache_stats().bad_entries;
    CHECK_FALSE(disk.load(in));
    CHECK(tritium::cache_stats().bad_entries == bad_before + 1);
    CHECK_FALSE(fs::exists(path));  // deleted, so the next lookup recompiles
  }
}

TEST_CASE("the size cap evicts the least recently used entries", "[cache]") {
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  std::vector<cache::KeyInputs> inputs;
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) {
    cache::KeyInputs in = sample_inputs();
    in.signature = "*fp32:16, i32, X=" + std::to_string(i);
    inputs.push_back(in);
    keys.push_back(cache::key_of(in));
  }
  for (int i = 0; i < 3; ++i) {
    disk.store(sample_entry(inputs[i]));
    set_mtime(disk.path_of(keys[i]), 300 - 100 * i);  // 0 oldest, 2 newest
  }
  uint64_t one = fs::file_size(disk.path_of(keys[0]));
  // A hit makes entry 0 the most recently used.
  REQUIRE(disk.load(inputs[0]));
  // Room for three entries: storing a fourth evicts the least recently used, entry 1.
  ::setenv("TRITIUM_CACHE_MAX_BYTES", std::to_string(3 * one + one / 2).c_str(), 1);
  uint64_t evictions = tritium::cache_stats().evictions;
  disk.store(sample_entry(inputs[3]));
  ::unsetenv("TRITIUM_CACHE_MAX_BYTES");
  CHECK(tritium::cache_stats().evictions == evictions + 1);
  CHECK(fs::exists(disk.path_of(keys[0])));
  CHECK_FALSE(fs::exists(disk.path_of(keys[1])));
  CHECK(fs::exists(disk.path_of(keys[2])));
  CHECK(fs::exists(disk.path_of(keys[3])));
  // The entry just written stays even when it alone exceeds the cap.
  CHECK(disk.evict(1, keys[3]) == 2);
  CHECK(fs::exists(disk.path_of(keys[3])));
}

TEST_CASE("TRITIUM_CACHE_MAX_BYTES and the cache directory come from the environment", "[cache]") {
  ::setenv("TRITIUM_CACHE_MAX_BYTES", "2M", 1);
  CHECK(cache::max_bytes_from_env() == 2u << 20);
  ::setenv("TRITIUM_CACHE_MAX_BYTES", "nonsense", 1);
  CHECK(cache::max_bytes_from_env() == 0);
  ::unsetenv("TRITIUM_CACHE_MAX_BYTES");

  const char* saved = std::getenv("TRITIUM_CACHE_DIR");
  std::string saved_dir = saved ? saved : "";
  ::setenv("TRITIUM_CACHE_DIR", "/tmp/somewhere", 1);
  CHECK(tritium::cache_dir() == "/tmp/somewhere");
  ::unsetenv("TRITIUM_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(tritium::cache_dir() == "/tmp/xdg/tritium");
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(tritium::cache_dir().ends_with("/.cache/tritium"));
  if (saved) ::setenv("TRITIUM_CACHE_DIR", saved_dir.c_str(), 1);
}

TEST_CASE("the memory cache builds each key once", "[cache]") {
  cache::OnceMap<int, std::string> map;
  int builds = 0;
  bool hit = true;
  CHECK(map.get(1, [&] { ++builds; return std::string("one"); }, &hit) == "one");
  CHECK_FALSE(hit);
  CHECK(map.get(1, [&] { ++builds; return std::string("again"); }, &hit) == "one");
  CHECK(hit);
  CHECK(builds == 1);
  // A failed build leaves the slot empty: the next request builds again.
  CHECK_THROWS(map.get(2, []() -> std::string { throw std::runtime_error("no"); }));
  CHECK(map.peek(2) == nullptr);
  CHECK(map.get(2, [] { return std::string("two"); }) == "two");
  const std::string& kept = map.get(1, [] { return std::string(); });
  map.clear();
  CHECK(kept == "one");  // references handed out survive clear()
  CHECK(map.peek(1) == nullptr);
}

TEST_CASE("concurrent requests build once, and hits do not wait for a build", "[cache]") {
  cache::OnceMap<int, int> map;
  map.get(2, [] { return 2; });
  std::atomic<int> builds{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::future<int>> askers;
  for (int t = 0; t < 8; ++t) {
    askers.push_back(std::async(std::launch::async, [&] {
      return map.get(1, [&] {
        ++builds;
        released.wait();  // the build of key 1 is in progress until the main thread says
        return 1;
      });
    }));
  }
  while (builds.load() == 0) std::this_thread::yield();
  // Key 1 is building (its slot's mutex is held); a hit on key 2 returns at once.
  CHECK(map.get(2, [] { return -1; }) == 2);
  release.set_value();
  for (auto& asker : askers) CHECK(asker.get() == 1);
  CHECK(builds.load() == 1);
}

// ---- faults (issue 11): every byte checked, sizes that overflow, files that are not files ----

namespace {

// `bytes` with its first line rewritten to match the rest: what a forger (or a bug that
// writes a wrong header) produces. The loader must still refuse wrong facts.
std::string reseal(const std::string& bytes, const std::function<void(std::string&)>& edit_header) {
  size_t newline = bytes.find('\n');
  std::istringstream first(bytes.substr(0, newline));
  std::string magic, format, checksum;
  size_t header_bytes = 0;
  first >> magic >> format >> header_bytes >> checksum;
  std::string header = bytes.substr(newline + 1, header_bytes);
  std::string payload = bytes.substr(newline + 1 + header_bytes);
  edit_header(header);
  std::string body = header + payload;
  return magic + " " + format + " " + std::to_string(header.size()) + " " + cache::sha256_hex(body) + "\n" + body;
}

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("every single-bit flip of a disk entry is refused", "[cache][faults]") {
  cache::KeyInputs in = sample_inputs();
  std::string good = cache::encode(sample_entry(in));
  std::string error;
  REQUIRE(cache::decode(good, in, &error));
  size_t refused = 0;
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      error.clear();
      bool accepted = cache::decode(bad, in, &error).has_value();
      if (accepted) FAIL_CHECK("flip of bit " << bit << " of byte " << byte << " accepted");
      refused += !accepted && !error.empty();
    }
  }
  CHECK(refused == 8 * good.size());
}

TEST_CASE("headers the checksum vouches for are still checked against the kernel", "[cache][faults]") {
  cache::KeyInputs in = sample_inputs();
  std::string good = cache::encode(sample_entry(in));
  using Edit = std::function<void(std::string&)>;
  const std::vector<std::pair<const char*, Edit>> edits = {
      {"num_warps", [](std::string& h) { replace_once(h, "\"num_warps\":4,\"params\"", "\"num_warps\":8,\"params\""); }},
      {"entry name", [](std::string& h) { replace_once(h, "\"entry\":\"add_kernel\"", "\"entry\":\"other\""); }},
      {"sm", [](std::string& h) { replace_once(h, "\"sm\":90", "\"sm\":80"); }},
      {"target", [](std::string& h) {  // the last one: the first is in key_inputs
         const std::string from = "\"target\":\"sm_90\"";
         size_t at = h.rfind(from);
         REQUIRE(at != std::string::npos);
         h.replace(at, from.size(), "\"target\":\"sm_80\"");
       }},
      {"ptx_version", [](std::string& h) { replace_once(h, "\"ptx_version\":80,\"shared", "\"ptx_version\":70,\"shared"); }},
      {"negative shared memory", [](std::string& h) { replace_once(h, "\"shared_bytes\":0", "\"shared_bytes\":-1"); }},
      {"huge shared memory", [](std::string& h) { replace_once(h, "\"shared_bytes\":0", "\"shared_bytes\":4294967296"); }},
      {"a pointer of 4 bytes", [](std::string& h) { replace_once(h, "\"size\":8", "\"size\":4"); }},
      {"a size of 300", [](std::string& h) { replace_once(h, "\"size\":4", "\"size\":300"); }},
      {"indices out of order", [](std::string& h) { replace_once(h, "\"index\":1", "\"index\":0"); }},
      {"an index past int", [](std::string& h) { replace_once(h, "\"index\":1", "\"index\":99999999999"); }},
      {"a float index", [](std::string& h) { replace_once(h, "\"index\":1", "\"index\":1.5"); }},
      {"params not a list", [](std::string& h) {
         size_t at = h.find("\"params\":[");
         REQUIRE(at != std::string::npos);
         h.replace(at, h.find(']', at) - at + 1, "\"params\":\"x\"");
       }},
      // Lengths whose sum wraps around to the real payload size.
      {"ptx_bytes near 2^64", [](std::string& h) {
         size_t at = h.find("\"ptx_bytes\":");
         size_t end = h.find_first_of(",}", at);
         h.replace(at, end - at, "\"ptx_bytes\":18446744073709551615");
       }},
      {"cubin_bytes near 2^64", [](std::string& h) {
         size_t at = h.find("\"cubin_bytes\":");
         size_t end = h.find_first_of(",}", at);
         h.replace(at, end - at, "\"cubin_bytes\":18446744073709551615");
       }},
      {"a header that is a list", [](std::string& h) { h = "[1, 2]"; }},
  };
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  const fs::path path = disk.path_of(cache::key_of(in));
  for (const auto& [what, edit] : edits) {
    INFO(what);
    std::string bytes = reseal(good, edit);
    REQUIRE(bytes != good);
    std::string error;
    CHECK_FALSE(cache::decode(bytes, in, &error));
    CHECK_FALSE(error.empty());
    // Through the loader: refused without throwing, deleted, counted.
    write_all(path, bytes);
    uint64_t bad_before = tritium::cache_stats().bad_entries;
    CHECK_FALSE(disk.load(in));
    CHECK(tritium::cache_stats().bad_entries == bad_before + 1);
    CHECK_FALSE(fs::exists(path));
  }
  // The kernel's own check of its parameters: a mismatch is a bad entry too.
  disk.store(sample_entry(in));
  uint64_t bad_before = tritium::cache_stats().bad_entries;
  CHECK(disk.load(in, [](const cache::Entry&) { return std::string(); }));
  CHECK_FALSE(disk.load(in, [](const cache::Entry& e) { return e.params.size() == 2 ? "two parameters" : ""; }));
  CHECK(tritium::cache_stats().bad_entries == bad_before + 1);
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("only regular files in the cache directory are read", "[cache][faults]") {
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs in = sample_inputs();
  const fs::path path = disk.path_of(cache::key_of(in));
  // Another real entry, to list beside the strange files.
  cache::KeyInputs other = in;
  other.signature = "*fp32:16, i32";
  disk.store(sample_entry(other));
  fs::path elsewhere = dir.path / "elsewhere.bin";
  write_all(elsewhere, cache::encode(sample_entry(in)));

  using Make = std::function<void(const fs::path&)>;
  const std::vector<std::pair<const char*, Make>> strange = {
      {"a FIFO", [](const fs::path& p) { REQUIRE(::mkfifo(p.c_str(), 0644) == 0); }},
      {"a link to /dev/zero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }},
      {"a link to a valid entry", [&](const fs::path& p) { fs::create_symlink(elsewhere, p); }},
      {"a dangling link", [](const fs::path& p) { fs::create_symlink("/nonexistent/tritium", p); }},
  };
  for (const auto& [what, make] : strange) {
    INFO(what);
    make(path);
    // list and show read every entry: neither may block or throw.
    std::vector<cache::EntryInfo> listed = disk.list();
    CHECK(listed.size() >= 1);
    CHECK_NOTHROW(disk.show(cache::key_of(in)));
    uint64_t bad_before = tritium::cache_stats().bad_entries;
    CHECK_FALSE(disk.load(in));
    CHECK(tritium::cache_stats().bad_entries == bad_before + 1);
    CHECK_FALSE(fs::exists(fs::symlink_status(path)));  // the link itself is gone
    CHECK(fs::exists("/dev/zero"));
  }
  // The cache recovers: a store replaces what was there.
  disk.store(sample_entry(in));
  CHECK(disk.load(in));
  CHECK(disk.clear() == 2);
}

// stderr of the enclosed code, through a temporary file.
struct CapturedStderr {
  fs::path file;
  int saved;
  explicit CapturedStderr(const fs::path& where) : file(where) {
    std::fflush(stderr);
    saved = ::dup(STDERR_FILENO);
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
  }
  std::string finish() {
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    return read_all(file);
  }
};

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("a damaged entry's bytes reach the warning escaped", "[cache][faults]") {
  // Found on the H200: a parser's "last read" bytes from a corrupted header made stderr
  // invalid UTF-8, and the Python program reading it failed to decode.
  TempDir dir;
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs in = sample_inputs();
  cache::Entry entry = sample_entry(in);
  disk.store(entry);
  const fs::path path = disk.path_of(entry.key);
  std::string bytes = read_all(path);
  size_t brace = bytes.find('{');
  REQUIRE(brace != std::string::npos);
  bytes.replace(brace + 1, 3, "\xe1\x01\xff");
  write_all(path, bytes);
  CapturedStderr captured(dir.path / "stderr.txt");
  CHECK_FALSE(disk.load(in));
  std::string err = captured.finish();
  INFO(err);
  CHECK(count_of(err, "is bad (") == 1);
  for (char c : err) {
    auto byte = static_cast<unsigned char>(c);
    CHECK((c == '\n' || (byte >= 0x20 && byte < 0x7F)));
  }
  CHECK(cache::printable("a\xe1\n\x7f b") == "a\\xe1\\x0a\\x7f b");
}

TEST_CASE("a directory that takes no entries is reported once, and nothing fails", "[cache][faults]") {
  TempDir dir;
  // A cache "directory" below a regular file: no store can succeed, even as root.
  write_all(dir.path / "file", "not a directory");
  cache::DiskCache disk((dir.path / "file" / "cache").string());
  CapturedStderr captured(dir.path / "stderr.txt");
  cache::KeyInputs in = sample_inputs();
  for (int i = 0; i < 3; ++i) {
    in.signature = "*fp32:16, i32, " + std::to_string(i);
    CHECK_NOTHROW(disk.store(sample_entry(in)));
    CHECK_FALSE(disk.load(in));
  }
  std::string err = captured.finish();
  INFO(err);
  CHECK(count_of(err, "tritium: warning: cannot write the cache entry") == 1);
  CHECK(count_of(err, "are not reported") == 1);
  // Another directory's first failure is its own fault, reported too.
  cache::DiskCache other((dir.path / "file" / "other").string());
  CapturedStderr again(dir.path / "stderr2.txt");
  other.store(sample_entry(in));
  CHECK(count_of(again.finish(), "tritium: warning: cannot write the cache entry") == 1);
}
