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
#include <mutex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cache/sha256.h"
#include "cache/stats.h"

namespace tritium::cache {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kMagic = "tritium-cache";
// Format 2: the first line carries the SHA-256 of everything after it (header and payload),
// so no byte of an entry escapes the check (format 1 checked only the payload).
constexpr int kFormat = 2;
constexpr const char* kSuffix = ".tritium";
constexpr const char* kTempPrefix = ".tmp-";
// No entry is larger (a cubin of a large kernel is a few MiB): a bigger file is not read.
constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;
// Launch facts outside these ranges cannot come from the compiler.
constexpr int64_t kMaxSharedBytes = int64_t{1} << 20;
constexpr int64_t kMaxParams = 1 << 16;

bool is_key(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// An entry split at its seams (no check of the checksum here: `list` and `show` read
// headers of entries they do not verify).
struct Parsed {
  json header;
  std::string checksum;  // the first line's, of bytes[body:]
  size_t body = 0;       // where the header starts
  size_t payload = 0;    // where the PTX starts
};

bool parse_entry(const std::string& bytes, Parsed* out, std::string* error) {
  size_t newline = bytes.find('\n');
  if (newline == std::string::npos || newline > 160) {
    *error = "no header line";
    return false;
  }
  std::istringstream first(bytes.substr(0, newline));
  std::string magic;
  int format = 0;
  uint64_t header_bytes = 0;
  if (!(first >> magic >> format) || magic != kMagic) {
    *error = "not a tritium cache entry";
    return false;
  }
  if (format != kFormat) {
    *error = "format " + std::to_string(format) + ", expected " + std::to_string(kFormat);
    return false;
  }
  if (!(first >> header_bytes >> out->checksum) || !is_key(out->checksum)) {
    *error = "malformed header line";
    return false;
  }
  out->body = newline + 1;
  if (header_bytes > bytes.size() - out->body) {
    *error = "truncated header";
    return false;
  }
  try {
    out->header = json::parse(bytes.begin() + static_cast<std::ptrdiff_t>(out->body),
                              bytes.begin() + static_cast<std::ptrdiff_t>(out->body + header_bytes));
  } catch (const json::exception& e) {
    *error = std::string("unreadable header: ") + e.what();
    return false;
  }
  if (!out->header.is_object()) {
    *error = "the header is not an object";
    return false;
  }
  out->payload = out->body + header_bytes;
  return true;
}

// An integer field of the header within [low, high]; throws std::runtime_error otherwise
// (a number that does not fit, a string, a float: never a silent conversion).
int64_t int_field(const json& header, const char* name, int64_t low, int64_t high) {
  const json& v = header.at(name);
  bool fits = v.is_number_integer() &&
              !(v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX));
  int64_t n = fits ? v.get<int64_t>() : 0;
  if (!fits || n < low || n > high) {
    throw std::runtime_error(std::string("'") + name + "' is " + v.dump() + ", outside [" + std::to_string(low) +
                             ", " + std::to_string(high) + "]");
  }
  return n;
}

enum class ReadResult { Ok, Missing, Unreadable };

// Reads `path` when it is a regular file of at most kMaxEntryBytes. Never follows a
// symbolic link and never blocks: a FIFO, a device or a link in the cache directory is
// Unreadable (its open with O_NONBLOCK returns at once, and fstat tells what it is).
ReadResult read_file(const std::string& path, std::string* out, std::string* why = nullptr) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return ReadResult::Missing;
    if (why) *why = errno == ELOOP ? "a symbolic link, not a file" : std::strerror(errno);
    return ReadResult::Unreadable;
  }
  struct stat st {};
  std::string reason;
  if (::fstat(fd, &st) != 0) {
    reason = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    reason = "not a regular file";
  } else if (static_cast<uint64_t>(st.st_size) > kMaxEntryBytes) {
    reason = "larger than " + std::to_string(kMaxEntryBytes) + " bytes";
  }
  if (!reason.empty()) {
    ::close(fd);
    if (why) *why = reason;
    return ReadResult::Unreadable;
  }
  // At most st_size bytes: a file that grows meanwhile reads as a prefix and fails its check.
  out->assign(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out->size()) {
    ssize_t n = ::read(fd, out->data() + got, out->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out->resize(got);
  return ReadResult::Ok;
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
  if (::close(fd) != 0) {  // a full disk may say so only here (NFS): no temporary file stays
    int saved = errno;
    ::unlink(path.c_str());
    errno = saved;
    return false;
  }
  return true;
}

// A directory that cannot take entries (read-only, full, not a directory) fails every
// store: one warning per directory and process says so; TRITIUM_CACHE_LOG=1 logs each.
void report_write_failure(const std::string& dir, const std::string& what) {
  static std::mutex mutex;
  static std::set<std::string> reported;
  bool first;
  {
    std::lock_guard<std::mutex> lock(mutex);
    first = reported.insert(dir).second;
  }
  if (first) {
    warn(what + " (the kernel still runs; set TRITIUM_CACHE_DIR to a writable directory; later "
                "failures to store in " + dir + " are not reported)");
  } else if (log_enabled()) {
    log(what);
  }
}

}  // namespace

std::string encode(const Entry& entry) {
  json params = json::array();
  for (const CachedParam& p : entry.params) {
    json param = {{"name", p.name}, {"index", p.index}, {"is_pointer", p.is_pointer},
                  {"dtype", p.dtype}, {"size", p.size}};
    if (p.part != 0) {
      param["part"] = p.part;
      param["dim"] = p.dim;
    }
    params.push_back(std::move(param));
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
  };
  std::string body = header.dump(-1, ' ', false, json::error_handler_t::replace);
  size_t header_bytes = body.size();
  body += entry.ptx;
  body += entry.cubin;
  return std::string(kMagic) + " " + std::to_string(kFormat) + " " + std::to_string(header_bytes) + " " +
         sha256_hex(body) + "\n" + body;
}

std::optional<Entry> decode(const std::string& bytes, const KeyInputs& inputs,
                            std::string* error) {
  Parsed parsed;
  if (!parse_entry(bytes, &parsed, error)) return std::nullopt;
  if (sha256_hex(std::string_view(bytes).substr(parsed.body)) != parsed.checksum) {
    *error = "checksum mismatch";
    return std::nullopt;
  }
  // The checksum proves the bytes are the ones written; what follows proves they were
  // written for this kernel, and that every launch fact is one the compiler can produce.
  const json& header = parsed.header;
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
    // Sizes are compared without adding them: two huge lengths cannot wrap to the truth.
    auto ptx_bytes = static_cast<uint64_t>(int_field(header, "ptx_bytes", 0, INT64_MAX));
    auto cubin_bytes = static_cast<uint64_t>(int_field(header, "cubin_bytes", 0, INT64_MAX));
    uint64_t payload_bytes = bytes.size() - parsed.payload;
    if (ptx_bytes > payload_bytes || cubin_bytes != payload_bytes - ptx_bytes) {
      *error = "the payload is " + std::to_string(payload_bytes) + " bytes, the header says " +
               std::to_string(ptx_bytes) + " + " + std::to_string(cubin_bytes);
      return std::nullopt;
    }
    Entry entry;
    entry.key = key;
    entry.inputs = inputs;
    entry.ptx = bytes.substr(parsed.payload, ptx_bytes);
    entry.cubin = bytes.substr(parsed.payload + ptx_bytes);
    entry.entry_name = header.at("entry").get<std::string>();
    entry.num_warps = static_cast<int>(int_field(header, "num_warps", 1, 64));
    entry.shared_bytes = static_cast<int>(int_field(header, "shared_bytes", 0, kMaxSharedBytes));
    entry.sm = static_cast<int>(int_field(header, "sm", 0, 1000));
    entry.ptx_version = static_cast<int>(int_field(header, "ptx_version", 0, 1000));
    if (entry.entry_name != inputs.kernel || entry.num_warps != inputs.num_warps ||
        "sm_" + std::to_string(entry.sm) != inputs.target || entry.ptx_version != inputs.ptx_version ||
        header.at("target").get<std::string>() != inputs.target) {
      *error = "the launch facts (entry '" + entry.entry_name + "', " + std::to_string(entry.num_warps) +
               " warps, sm_" + std::to_string(entry.sm) + ", PTX " + std::to_string(entry.ptx_version) +
               ") are not those of kernel '" + inputs.kernel + "' for " + inputs.target;
      return std::nullopt;
    }
    int64_t last_index = -1;
    for (const json& p : header.at("params")) {
      CachedParam param;
      param.name = p.at("name").get<std::string>();
      // The pieces of one descriptor share its index, as the elements of one tuple do (the
      // first of them may follow the previous parameter); every other parameter has its own.
      // A descriptor's CUtensorMap (5) comes after every other parameter, with its index.
      param.part = p.contains("part") ? static_cast<int>(int_field(p, "part", 1, 5)) : 0;
      const bool tuple_leaf = param.part == 4, tensor_map = param.part == 5;
      param.dim = p.contains("dim") ? static_cast<int>(int_field(p, "dim", 0, tuple_leaf ? kMaxParams : 4)) : 0;
      bool same_argument = param.part > 1 && !tuple_leaf;
      const int64_t lowest = tensor_map    ? 0
                             : same_argument ? last_index
                             : tuple_leaf    ? std::max<int64_t>(last_index, 0)
                                             : last_index + 1;
      param.index = static_cast<int>(int_field(p, "index", lowest, kMaxParams));
      param.is_pointer = p.at("is_pointer").get<bool>();
      param.dtype = p.at("dtype").get<std::string>();
      param.size = static_cast<int>(tensor_map ? int_field(p, "size", 128, 128) : int_field(p, "size", 1, 8));
      if (param.name.empty() || (param.is_pointer && param.size != 8)) {
        *error = "parameter " + std::to_string(param.index) + " is malformed";
        return std::nullopt;
      }
      if (!tensor_map) last_index = param.index;
      entry.params.push_back(std::move(param));
    }
    if (entry.cubin.empty() && entry.ptx.empty()) {  // PTX alone: the driver compiles it at load
      *error = "no PTX or cubin";
      return std::nullopt;
    }
    return entry;
  } catch (const std::exception& e) {  // json's errors and int_field's
    *error = std::string("malformed header: ") + e.what();
    return std::nullopt;
  }
}

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

DiskCache DiskCache::from_env() { return DiskCache(cache_dir()); }

std::string DiskCache::path_of(const std::string& key) const {
  return dir_ + "/" + key + kSuffix;
}

std::optional<Entry> DiskCache::load(const KeyInputs& inputs, const Validator& validate) const {
  StageTimer timer(Stage::Disk);
  std::string path = path_of(key_of(inputs));
  std::string bytes, error;
  ReadResult read = read_file(path, &bytes, &error);
  if (read == ReadResult::Missing) return std::nullopt;
  std::optional<Entry> entry;
  if (read == ReadResult::Ok) {
    entry = decode(bytes, inputs, &error);
    if (entry && validate) {
      error = validate(*entry);
      if (!error.empty()) entry.reset();
    }
  }
  if (!entry) {
    count(Counter::BadEntry);
    // Removes what is at the path (a link itself, never what it points to).
    ::unlink(path.c_str());
    warn("cache entry " + path + " is bad (" + printable(error) + "); deleted it, recompiling kernel '" +
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
    report_write_failure(dir_, "cannot write the cache entry " + temp + ": " + std::strerror(errno));
    return;
  }
  // rename() is atomic: readers see the old entry, no entry, or the whole new one, and two
  // processes writing the same key both succeed (their bytes are the same).
  if (::rename(temp.c_str(), path_of(entry.key).c_str()) != 0) {
    report_write_failure(dir_, "cannot rename " + temp + " into the cache: " + std::strerror(errno));
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
    Parsed parsed;
    if (read_file(info.path, &bytes) != ReadResult::Ok || !parse_entry(bytes, &parsed, &error)) continue;
    auto text = [&](const char* name) {
      const json* v = parsed.header.contains(name) ? &parsed.header[name] : nullptr;
      return v && v->is_string() ? v->get<std::string>() : std::string();
    };
    info.kernel = text("kernel");
    info.signature = text("signature");
    info.target = text("target");
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
  Parsed parsed;
  if (match.empty() || read_file(match, &bytes, &error) != ReadResult::Ok) return std::nullopt;
  if (!parse_entry(bytes, &parsed, &error)) return "bad entry " + match + ": " + error + "\n";
  std::string out = "# " + match + "\n" + parsed.header.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  const json* ptx_bytes = parsed.header.contains("ptx_bytes") ? &parsed.header["ptx_bytes"] : nullptr;
  if (ptx_bytes && ptx_bytes->is_number_unsigned() && ptx_bytes->get<uint64_t>() <= bytes.size() - parsed.payload) {
    out += "# PTX\n" + bytes.substr(parsed.payload, ptx_bytes->get<uint64_t>());
  }
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
