// Counters, stage times and the cache log (see stats.h and tritium/cache.h).
#include "cache/stats.h"

#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tritium::cache {

namespace {

struct Counters {
  std::atomic<uint64_t> values[8] = {};
  // Nanoseconds per stage, so that the sums stay integers.
  std::atomic<uint64_t> stage_ns[6] = {};
};

Counters& counters() {
  static Counters* instance = new Counters();  // leaked: launches may run during exit
  return *instance;
}

bool read_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && (std::strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 ||
                          strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0);
}

void write_line(const std::string& line) {
  // One write(2) per line: concurrent threads and processes do not interleave within it.
  const char* data = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, data, left);
    if (n <= 0) return;
    data += n;
    left -= static_cast<size_t>(n);
  }
}

double seconds(Stage stage) {
  return static_cast<double>(
             counters().stage_ns[static_cast<int>(stage)].load(std::memory_order_relaxed)) *
         1e-9;
}

}  // namespace

void count(Counter counter) {
  counters().values[static_cast<int>(counter)].fetch_add(1, std::memory_order_relaxed);
}

void add_time(Stage stage, double seconds) {
  counters().stage_ns[static_cast<int>(stage)].fetch_add(static_cast<uint64_t>(seconds * 1e9),
                                                         std::memory_order_relaxed);
}

bool log_enabled() {
  static const bool enabled = read_flag("TRITIUM_CACHE_LOG");
  return enabled;
}

void log(const std::string& line) { write_line("tritium cache: " + line + "\n"); }

void warn(const std::string& text) { write_line("tritium: warning: " + text + "\n"); }

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      out += c;
    } else {
      char escape[5];
      std::snprintf(escape, sizeof escape, "\\x%02x", byte);
      out += escape;
    }
  }
  return out;
}

}  // namespace tritium::cache

namespace tritium {

CacheStats cache_stats() {
  using cache::Counter;
  using cache::Stage;
  auto value = [](Counter c) {
    return cache::counters().values[static_cast<int>(c)].load(std::memory_order_relaxed);
  };
  CacheStats stats;
  stats.memory_hits = value(Counter::MemoryHit);
  stats.memory_misses = value(Counter::MemoryMiss);
  stats.disk_hits = value(Counter::DiskHit);
  stats.disk_misses = value(Counter::DiskMiss);
  stats.bad_entries = value(Counter::BadEntry);
  stats.compiles = value(Counter::Compile);
  stats.disk_writes = value(Counter::DiskWrite);
  stats.evictions = value(Counter::Eviction);
  stats.lower_seconds = cache::seconds(Stage::Lower);
  stats.optimize_seconds = cache::seconds(Stage::Optimize);
  stats.ptx_seconds = cache::seconds(Stage::Ptx);
  stats.cubin_seconds = cache::seconds(Stage::Cubin);
  stats.load_seconds = cache::seconds(Stage::Load);
  stats.disk_seconds = cache::seconds(Stage::Disk);
  return stats;
}

void reset_cache_stats() {
  for (auto& v : cache::counters().values) v.store(0, std::memory_order_relaxed);
  for (auto& v : cache::counters().stage_ns) v.store(0, std::memory_order_relaxed);
}

}  // namespace tritium
