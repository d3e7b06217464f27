// tritium's kernel cache seen from C++: counters and compile times (so a test or a user can
// tell a warm start from a cold one), and where the disk cache lives. The cache itself works
// without any call here (DESIGN: Cache). No LLVM or CUDA types (DESIGN law 7).
#pragma once

#include <cstdint>
#include <string>

namespace tritium {

// Process-wide counters since the start or the last reset_cache_stats().
struct CacheStats {
  uint64_t memory_hits = 0;    // launches that found their kernel loaded already
  uint64_t memory_misses = 0;  // launches that had to find or build it
  uint64_t disk_hits = 0;      // ... and read it from the disk cache
  uint64_t disk_misses = 0;    // ... and found no disk entry
  uint64_t bad_entries = 0;    // disk entries that failed verification (deleted, rebuilt)
  uint64_t compiles = 0;       // kernels compiled to PTX and cubin
  uint64_t disk_writes = 0;    // entries written to the disk cache
  uint64_t evictions = 0;      // entries removed by the TRITIUM_CACHE_MAX_BYTES cap
  // Seconds spent in each stage, summed over all compiles and loads.
  double lower_seconds = 0;     // AST -> tile IR
  double optimize_seconds = 0;  // the tile-IR pipeline
  double ptx_seconds = 0;       // tile IR -> LLVM IR -> PTX (LLVM's O3 and NVPTX)
  double cubin_seconds = 0;     // PTX -> cubin (the driver's JIT linker)
  double load_seconds = 0;      // cubin -> loaded module and function
  double disk_seconds = 0;      // reading and writing disk entries
};

CacheStats cache_stats();
void reset_cache_stats();

// The disk cache directory: TRITIUM_CACHE_DIR, else $XDG_CACHE_HOME/tritium, else
// ~/.cache/tritium (read from the environment at each call).
std::string cache_dir();

}  // namespace tritium
