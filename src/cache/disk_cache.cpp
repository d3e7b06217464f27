// The disk cache (see disk_cache.h): the entry format, atomic writes, verified reads, LRU
// eviction under TRITIUM_CACHE_MAX_BYTES, and what `tritium cache list|show|clear` need.
#include "cache/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cache/sha256.h"
#include "cache/stats.h"

namespace tritium::cache {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kMagic = "tritium-cache";
constexpr int kFormat = 1;
constexpr const char* kSuffix = ".tritium";
constexpr const char* kTempPrefix = ".tmp-";

bool is_key(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string checksum(const std::string& ptx, const std::string& cubin) {
  Sha256 hasher;
  hasher.update(ptx);
  hasher.update(cubin);
  return hasher.hex();
}

// Splits the file into its JSON header and where the payload starts.
bool read_header(const std::string& bytes, json* header, size_t* payload, std::string* error) {
  size_t newline = bytes.find('\n');
  if (newline == std::string::npos || newline > 64) {
    *error = "no header line";
    return false;
  }
  std::istringstream first(bytes.substr(0, newline));
  std::string magic;
  int format = 0;
  uint64_t header_bytes = 0;
  if (!(first >> magic >> format >> header_bytes) || magic != kMagic) {
    *error = "not a tritium cache entry";
    return false;
  }
  if (format != kFormat) {
    *error = "format " + std::to_string(format) + ", expected " + std::to_string(kFormat);
    return false;
  }
  if (header_bytes > bytes.size() - newline - 1) {
    *error = "truncated header";
    return false;
  }
  try {
    *header = json::parse(bytes.begin() + static_cast<std::ptrdiff_t>(newline + 1),
                          bytes.begin() + static_cast<std::ptrdiff_t>(newline + 1 + header_bytes));
  } catch (const json::exception& e) {
    *error = std::string("unreadable header: ") + e.what();
    return false;
  }
  *payload = newline + 1 + header_bytes;
  return true;
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream bytes;
  bytes << file.rdbuf();
  *out = bytes.str();
  return !file.bad();
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Writes all of `bytes` to a new file at `path`; false (errno set) on failure.
bool write_new_file(const std::string& path, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const char* data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int saved = errno;
      ::close(fd);
      ::unlink(path.c_str());
      errno = saved;
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  return ::close(fd) == 0;
}

}  // namespace

std::string encode(const Entry& entry) {
  json params = json::array();
  for (const CachedParam& p : entry.params) {
    params.push_back({{"name", p.name}, {"index", p.index}, {"is_pointer", p.is_pointer},
                      {"dtype", p.dtype}, {"size", p.size}});
  }
  json header = {
      {"format", kFormat},
      {"key", entry.key},
      {"kernel", entry.inputs.kernel},
      {"signature", entry.inputs.signature},
      {"entry", entry.entry_name},
      {"params", params},
      {"num_warps", entry.num_warps},
      {"shared_bytes", entry.shared_bytes},
      {"target", "sm_" + std::to_string(entry.sm)},
      {"sm", entry.sm},
      {"ptx_version", entry.ptx_version},
      {"versions", {{"tritium", entry.inputs.tritium_version},
                    {"llvm", entry.inputs.llvm_version},
                    {"compiler", entry.inputs.compiler_hash}}},
      {"key_inputs", json::parse(inputs_json(entry.inputs))},
      {"ptx_bytes", entry.ptx.size()},
      {"cubin_bytes", entry.cubin.size()},
      {"checksum", checksum(entry.ptx, entry.cubin)},
  };
  std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out = std::string(kMagic) + " " + std::to_string(kFormat) + " " +
                    std::to_string(text.size()) + "\n";
  out += text;
  out += entry.ptx;
  out += entry.cubin;
  return out;
}

std::optional<Entry> decode(const std::string& bytes, const KeyInputs& inputs,
                            std::string* error) {
  json header;
  size_t payload = 0;
  if (!read_header(bytes, &header, &payload, error)) return std::nullopt;
  try {
    std::string key = key_of(inputs);
    if (header.at("key").get<std::string>() != key) {
      *error = "the header names another key";
      return std::nullopt;
    }
    if (header.at("key_inputs") != json::parse(inputs_json(inputs))) {
      *error = "the key inputs differ from this kernel's";
      return std::nullopt;
    }
    auto ptx_bytes = header.at("ptx_bytes").get<uint64_t>();
    auto cubin_bytes = header.at("cubin_bytes").get<uint64_t>();
    if (bytes.size() - payload != ptx_bytes + cubin_bytes) {
      *error = "the payload is " + std::to_string(bytes.size() - payload) +
               " bytes, the header says " + std::to_string(ptx_bytes + cubin_bytes);
      return std::nullopt;
    }
    Entry entry;
    entry.key = key;
    entry.inputs = inputs;
    entry.ptx = bytes.substr(payload, ptx_bytes);
    entry.cubin = bytes.substr(payload + ptx_bytes, cubin_bytes);
    if (checksum(entry.ptx, entry.cubin) != header.at("checksum").get<std::string>()) {
      *error = "checksum mismatch";
      return std::nullopt;
    }
    entry.entry_name = header.at("entry").get<std::string>();
    entry.num_warps = header.at("num_warps").get<int>();
    entry.shared_bytes = header.at("shared_bytes").get<int>();
    entry.sm = header.at("sm").get<int>();
    entry.ptx_version = header.at("ptx_version").get<int>();
    for (const json& p : header.at("params")) {
      CachedParam param;
      param.name = p.at("name").get<std::string>();
      param.index = p.at("index").get<int>();
      param.is_pointer = p.at("is_pointer").get<bool>();
      param.dtype = p.at("dtype").get<std::string>();
      param.size = p.at("size").get<int>();
      entry.params.push_back(std::move(param));
    }
    if (entry.entry_name.empty() || entry.cubin.empty()) {
      *error = "no entry point or no cubin";
      return std::nullopt;
    }
    return entry;
  } catch (const json::exception& e) {
    *error = std::string("malformed header: ") + e.what();
    return std::nullopt;
  }
}

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

DiskCache DiskCache::from_env() { return DiskCache(cache_dir()); }

std::string DiskCache::path_of(const std::string& key) const {
  return dir_ + "/" + key + kSuffix;
}

std::optional<Entry> DiskCache::load(const KeyInputs& inputs) const {
  StageTimer timer(Stage::Disk);
  std::string path = path_of(key_of(inputs));
  std::string bytes;
  if (!read_file(path, &bytes)) return std::nullopt;
  std::string error;
  std::optional<Entry> entry = decode(bytes, inputs, &error);
  if (!entry) {
    count(Counter::BadEntry);
    std::error_code ec;
    fs::remove(path, ec);
    warn("cache entry " + path + " is bad (" + error + "); deleted it, recompiling kernel '" +
         inputs.kernel + "'");
    return std::nullopt;
  }
  // Least recently *used*: a hit counts as a use.
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return entry;
}

void DiskCache::store(const Entry& entry) const {
  StageTimer timer(Stage::Disk);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  static std::atomic<uint64_t> counter{0};
  // The host name too: on a network filesystem, processes of two machines may share a pid.
  static const std::string host = [] {
    char name[256] = {};
    return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("host");
  }();
  std::string temp = dir_ + "/" + kTempPrefix + entry.key + "-" + host + "-" +
                     std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  if (!write_new_file(temp, encode(entry))) {
    warn("cannot write the cache entry " + temp + ": " + std::strerror(errno) +
         " (the kernel still runs; set TRITIUM_CACHE_DIR to a writable directory)");
    return;
  }
  // rename() is atomic: readers see the old entry, no entry, or the whole new one, and two
  // processes writing the same key both succeed (their bytes are the same).
  if (::rename(temp.c_str(), path_of(entry.key).c_str()) != 0) {
    warn("cannot rename " + temp + " into the cache: " + std::strerror(errno));
    ::unlink(temp.c_str());
    return;
  }
  count(Counter::DiskWrite);
  if (uint64_t cap = max_bytes_from_env(); cap > 0) evict(cap, entry.key);
}

std::vector<EntryInfo> DiskCache::list() const {
  std::vector<EntryInfo> out;
  std::error_code ec;
  for (const fs::directory_entry& file : fs::directory_iterator(dir_, ec)) {
    std::string name = file.path().filename().string();
    if (name.size() <= std::strlen(kSuffix) || !name.ends_with(kSuffix)) continue;
    EntryInfo info;
    info.key = name.substr(0, name.size() - std::strlen(kSuffix));
    if (!is_key(info.key)) continue;
    info.path = file.path().string();
    struct stat st {};
    if (::stat(info.path.c_str(), &st) != 0) continue;
    info.bytes = static_cast<uint64_t>(st.st_size);
    info.mtime_ns = mtime_ns(st);
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(),
            [](const EntryInfo& a, const EntryInfo& b) { return a.key < b.key; });
  for (EntryInfo& info : out) {
    std::string bytes, error;
    json header;
    size_t payload = 0;
    if (!read_file(info.path, &bytes) || !read_header(bytes, &header, &payload, &error)) continue;
    info.kernel = header.value("kernel", "");
    info.signature = header.value("signature", "");
    info.target = header.value("target", "");
  }
  return out;
}

std::optional<std::string> DiskCache::show(const std::string& key) const {
  std::string match;
  for (const EntryInfo& info : list()) {
    if (info.key.rfind(key, 0) != 0) continue;
    if (!match.empty()) return std::nullopt;  // ambiguous prefix
    match = info.path;
  }
  std::string bytes, error;
  json header;
  size_t payload = 0;
  if (match.empty() || !read_file(match, &bytes)) return std::nullopt;
  if (!read_header(bytes, &header, &payload, &error)) return "bad entry " + match + ": " + error + "\n";
  std::string out = "# " + match + "\n" + header.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  uint64_t ptx_bytes = header.value("ptx_bytes", uint64_t{0});
  if (payload + ptx_bytes <= bytes.size()) out += "# PTX\n" + bytes.substr(payload, ptx_bytes);
  return out;
}

size_t DiskCache::clear() const {
  size_t removed = 0;
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const fs::directory_entry& file : fs::directory_iterator(dir_, ec)) {
    std::string name = file.path().filename().string();
    bool entry = name.ends_with(kSuffix) && is_key(name.substr(0, name.size() - std::strlen(kSuffix)));
    if (entry || name.rfind(kTempPrefix, 0) == 0) doomed.push_back(file.path());
    if (entry) ++removed;
  }
  for (const fs::path& path : doomed) fs::remove(path, ec);
  return removed;
}

size_t DiskCache::evict(uint64_t max_bytes, const std::string& keep) const {
  std::vector<EntryInfo> entries;
  std::error_code ec;
  uint64_t total = 0;
  for (const fs::directory_entry& file : fs::directory_iterator(dir_, ec)) {
    std::string name = file.path().filename().string();
    struct stat st {};
    if (::stat(file.path().c_str(), &st) != 0) continue;
    if (name.rfind(kTempPrefix, 0) == 0) {
      // A temporary file older than an hour belongs to a writer that died.
      if (mtime_ns(st) < (static_cast<int64_t>(::time(nullptr)) - 3600) * 1000000000) {
        fs::remove(file.path(), ec);
      }
      continue;
    }
    if (!name.ends_with(kSuffix)) continue;
    EntryInfo info;
    info.key = name.substr(0, name.size() - std::strlen(kSuffix));
    if (!is_key(info.key)) continue;
    info.path = file.path().string();
    info.bytes = static_cast<uint64_t>(st.st_size);
    info.mtime_ns = mtime_ns(st);
    total += info.bytes;
    entries.push_back(std::move(info));
  }
  std::sort(entries.begin(), entries.end(), [](const EntryInfo& a, const EntryInfo& b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.key < b.key;
  });
  size_t evicted = 0;
  for (const EntryInfo& info : entries) {
    if (total <= max_bytes) break;
    if (info.key == keep) continue;
    if (fs::remove(info.path, ec)) {
      total -= info.bytes;
      ++evicted;
      count(Counter::Eviction);
      if (log_enabled()) log("evicted " + info.key + " (" + std::to_string(info.bytes) + " bytes)");
    }
  }
  return evicted;
}

uint64_t max_bytes_from_env() {
  const char* raw = std::getenv("TRITIUM_CACHE_MAX_BYTES");
  if (raw == nullptr || *raw == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(raw, &end, 10);
  if (errno != 0 || end == raw) return 0;
  switch (*end) {
    case 'k': case 'K': value <<= 10; ++end; break;
    case 'm': case 'M': value <<= 20; ++end; break;
    case 'g': case 'G': value <<= 30; ++end; break;
    default: break;
  }
  return *end == '\0' ? value : 0;
}

}  // namespace tritium::cache

namespace tritium {

std::string cache_dir() {
  if (const char* dir = std::getenv("TRITIUM_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/tritium";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/tmp") + "/.cache/tritium";
}

}  // namespace tritium
