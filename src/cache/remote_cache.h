// The remote second level of the disk cache (DESIGN: Cache), for a fleet of machines:
// TRITIUM_REMOTE_CACHE=redis://host:port. A local miss asks the server before compiling, and
// a compiled entry is published after; entries travel in the disk cache's own format and
// are verified (checksum, key inputs) like a local file, and a good one is written to the
// local disk. An unreachable server costs one connect timeout
// (TRITIUM_REMOTE_CACHE_TIMEOUT_MS, default 500) and one warning for the whole process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cache/disk_cache.h"

namespace tritium::cache {

// The disk, then the remote cache: a verified remote entry is stored on the disk too.
std::optional<Entry> load_shared(const DiskCache& disk, const KeyInputs& inputs,
                                 const DiskCache::Validator& validate = {});
// Stores on the disk and publishes to the remote cache.
void store_shared(const DiskCache& disk, const Entry& entry);

// This process's remote-cache counters (for tests and TRITIUM_CACHE_LOG).
struct RemoteStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t bad_entries = 0;  // failed verification: ignored, and overwritten after compiling
  uint64_t publishes = 0;
  uint64_t failures = 0;     // connects or commands that failed (the cache is then off)
};
RemoteStats remote_stats();

// The raw level, for tests: the bytes stored under a key, and storing bytes. Nothing (and
// no effect) when TRITIUM_REMOTE_CACHE is unset, the server is unreachable, or tritium was
// built without hiredis.
std::optional<std::string> remote_get(const std::string& key);
bool remote_put(const std::string& key, const std::string& bytes);
// Forgets the connection and the "unreachable" verdict, so the next call reads
// TRITIUM_REMOTE_CACHE again (tests).
void remote_reset();
// Whether this build has the Redis client (hiredis).
bool remote_supported();

}  // namespace tritium::cache
