// The cache's counters and per-stage compile times (public view: tritium/cache.h), and the
// TRITIUM_CACHE_LOG=1 trace: one line per lookup on stderr.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "tritium/cache.h"

namespace tritium::cache {

enum class Counter {
  MemoryHit, MemoryMiss, DiskHit, DiskMiss, BadEntry, Compile, DiskWrite, Eviction
};
enum class Stage { Lower, Optimize, Ptx, Cubin, Load, Disk };

// Relaxed atomic increments: the counters are for observation, not synchronization.
void count(Counter counter);
void add_time(Stage stage, double seconds);

// Measures one stage from construction to destruction (also when it throws).
class StageTimer {
 public:
  explicit StageTimer(Stage stage) : stage_(stage), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() { add_time(stage_, seconds()); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Stage stage_;
  std::chrono::steady_clock::time_point start_;
};

// TRITIUM_CACHE_LOG=1 (read once per process).
bool log_enabled();
// Prints "tritium cache: <line>" to stderr (one write, so lines of threads do not mix).
void log(const std::string& line);
// "tritium: warning: <text>" on stderr.
void warn(const std::string& text);
// `text` with every byte outside printable ASCII written as \xNN: what a damaged cache file
// puts into an error message (a parser's "last read" bytes) must not garble a terminal or
// make stderr invalid UTF-8 for the program reading it.
std::string printable(std::string_view text);

}  // namespace tritium::cache
