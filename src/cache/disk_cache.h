// The disk cache (DESIGN: Cache): one file per entry, `<dir>/<key>.tritium`, holding a
// first line `tritium-cache 2 <header bytes> <SHA-256 of the rest>`, a JSON header (kernel,
// signature, parameters, launch facts, versions, the full key inputs, payload lengths), then
// the PTX and the cubin. Written to a temporary file in the same directory and renamed into
// place; verified on every read (checksum, then every field against the kernel asking), and
// an entry that fails is deleted with a warning, never trusted. Only regular files are read.
// A size cap (TRITIUM_CACHE_MAX_BYTES) evicts the least recently used entries; a hit
// touches the entry's mtime.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cache/key.h"

namespace tritium::cache {

// One kernel parameter as the launcher packs it (mirrors nvptx::PtxParam).
struct CachedParam {
  std::string name;
  int index = 0;            // into the kernel's full parameter list
  bool is_pointer = false;
  std::string dtype;        // scalar or pointee type, Triton's spelling ("fp32")
  int size = 0;             // bytes passed
  // A piece of a host tensor descriptor (ir::ArgPart: 1 base, 2 shape, 3 stride) and its
  // dimension, or an element of a tuple (4) and its leaf index; 0 for a whole argument
  // (entries written before descriptors have neither); 5: a descriptor's CUtensorMap (128
  // bytes, after every other parameter).
  int part = 0;
  int dim = 0;
};

struct Entry {
  std::string key;
  KeyInputs inputs;
  std::string entry_name;  // the PTX entry (cuModuleGetFunction)
  int num_warps = 4;
  int shared_bytes = 0;
  int sm = 0;
  int ptx_version = 0;
  std::vector<CachedParam> params;
  std::string ptx;
  std::string cubin;
};

// What `list` shows of an entry without verifying its payload.
struct EntryInfo {
  std::string key;
  std::string path;
  uint64_t bytes = 0;
  int64_t mtime_ns = 0;   // last use
  std::string kernel;     // empty when the header cannot be read
  std::string signature;
  std::string target;
};

class DiskCache {
 public:
  // A cache in `dir` (created on first write).
  explicit DiskCache(std::string dir);
  // The cache at tritium::cache_dir().
  static DiskCache from_env();

  const std::string& dir() const { return dir_; }
  std::string path_of(const std::string& key) const;

  // Says what is wrong with an entry for the kernel asking (its parameters, which the cache
  // cannot know), or "" when nothing is.
  using Validator = std::function<std::string(const Entry&)>;

  // The verified entry for `inputs` (key_of(inputs)), or nothing. A bad entry (unreadable,
  // not a regular file, failing decode() or `validate`) is deleted, counted, and reported
  // with a warning; a hit touches the file's mtime.
  std::optional<Entry> load(const KeyInputs& inputs, const Validator& validate = {}) const;
  // Writes an entry atomically (temporary file + rename), then applies the size cap. Write
  // failures are warnings (the first per directory and process; TRITIUM_CACHE_LOG=1 logs
  // the rest): the cache is an optimization, never a reason to fail a launch.
  void store(const Entry& entry) const;

  // Entries sorted by key.
  std::vector<EntryInfo> list() const;
  // The header of the entry `key` (a full key or a unique prefix) pretty-printed, then its
  // PTX; nothing when no such entry.
  std::optional<std::string> show(const std::string& key) const;
  // Deletes every entry (and stray temporary files); returns how many entries.
  size_t clear() const;
  // Applies `max_bytes` now, keeping `keep` (a key) if given; returns entries evicted.
  size_t evict(uint64_t max_bytes, const std::string& keep = "") const;

 private:
  std::string dir_;
};

// TRITIUM_CACHE_MAX_BYTES as a number (suffixes K, M, G accepted), 0 when unset or invalid.
uint64_t max_bytes_from_env();

// Serializes an entry to the on-disk bytes, and parses them back (with every check `load`
// makes against `inputs`); on failure `error` says what was wrong. For tests and `load`.
std::string encode(const Entry& entry);
std::optional<Entry> decode(const std::string& bytes, const KeyInputs& inputs,
                            std::string* error);

}  // namespace tritium::cache
