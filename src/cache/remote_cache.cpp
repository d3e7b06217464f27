// The Redis second level of the disk cache (see remote_cache.h). One connection per process,
// guarded by a mutex: the remote cache is asked only on a local miss, i.e. next to a compile
// that costs far more than the lock. Any failure turns the remote cache off for the process
// with one warning: a fleet whose server is down pays one timeout per process, no more.
#include "cache/remote_cache.h"

#include <cstdlib>
#include <iostream>
#include <mutex>

#include "cache/stats.h"

#ifdef TRITIUM_HAVE_HIREDIS
#include <hiredis/hiredis.h>
#include <sys/time.h>
#endif

namespace tritium::cache {

namespace {

struct State {
  std::mutex mutex;
  bool configured = false;  // TRITIUM_REMOTE_CACHE was read
  bool off = false;         // unset, unsupported, or failed: no more attempts
  std::string url, host;
  int port = 6379;
  int timeout_ms = 500;
  RemoteStats stats;
#ifdef TRITIUM_HAVE_HIREDIS
  redisContext* context = nullptr;
#endif
};

State& state() {
  static State s;
  return s;
}

void warn_once(State& s, const std::string& why) {
  // Called at most once per process per configuration: `off` is set right after.
  std::cerr << "tritium: warning: remote cache " << s.url << ": " << why
            << "; continuing with the local cache only\n";
}

// Reads TRITIUM_REMOTE_CACHE once (under the mutex). Returns whether the cache is usable.
bool configure(State& s) {
  if (s.configured) return !s.off;
  s.configured = true;
  const char* url = std::getenv("TRITIUM_REMOTE_CACHE");
  if (url == nullptr || *url == '\0') {
    s.off = true;
    return false;
  }
  s.url = url;
  if (const char* t = std::getenv("TRITIUM_REMOTE_CACHE_TIMEOUT_MS"); t != nullptr && *t) {
    int value = std::atoi(t);
    if (value > 0) s.timeout_ms = value;
  }
  const std::string prefix = "redis://";
  if (s.url.rfind(prefix, 0) != 0) {
    warn_once(s, "only redis://host:port is supported");
    s.off = true;
    return false;
  }
  std::string rest = s.url.substr(prefix.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  s.host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (colon != std::string::npos) {
    char* end = nullptr;
    long port = std::strtol(rest.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || port <= 0 || port > 65535) {
      warn_once(s, "bad port in the URL");
      s.off = true;
      return false;
    }
    s.port = static_cast<int>(port);
  }
  if (s.host.empty()) {
    warn_once(s, "no host in the URL");
    s.off = true;
    return false;
  }
#ifndef TRITIUM_HAVE_HIREDIS
  warn_once(s, "this tritium was built without hiredis (Debian libhiredis-dev)");
  s.off = true;
  return false;
#else
  return true;
#endif
}

#ifdef TRITIUM_HAVE_HIREDIS
void fail(State& s, const std::string& why) {
  ++s.stats.failures;
  warn_once(s, why);
  s.off = true;
  if (s.context != nullptr) {
    redisFree(s.context);
    s.context = nullptr;
  }
}

redisContext* connection(State& s) {
  if (!configure(s)) return nullptr;
  if (s.context != nullptr) return s.context;
  timeval timeout{s.timeout_ms / 1000, (s.timeout_ms % 1000) * 1000};
  redisContext* context = redisConnectWithTimeout(s.host.c_str(), s.port, timeout);
  if (context == nullptr || context->err != 0) {
    std::string why = context != nullptr ? context->errstr : "cannot allocate a connection";
    if (context != nullptr) redisFree(context);
    fail(s, "unreachable (" + why + ")");
    return nullptr;
  }
  // Commands get the same bound: a server that stops answering costs one timeout too.
  redisSetTimeout(context, timeout);
  s.context = context;
  return context;
}

std::string redis_key(const std::string& key) { return "tritium:" + key; }
#endif

}  // namespace

bool remote_supported() {
#ifdef TRITIUM_HAVE_HIREDIS
  return true;
#else
  return false;
#endif
}

std::optional<std::string> remote_get(const std::string& key) {
#ifdef TRITIUM_HAVE_HIREDIS
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  redisContext* context = connection(s);
  if (context == nullptr) return std::nullopt;
  std::string name = redis_key(key);
  auto* reply = static_cast<redisReply*>(
      redisCommand(context, "GET %b", name.data(), name.size()));
  if (reply == nullptr) {
    fail(s, std::string("GET failed (") + context->errstr + ")");
    return std::nullopt;
  }
  std::optional<std::string> out;
  if (reply->type == REDIS_REPLY_STRING) {
    out = std::string(reply->str, reply->len);
  } else if (reply->type == REDIS_REPLY_NIL) {
    ++s.stats.misses;
  } else if (reply->type == REDIS_REPLY_ERROR) {
    std::string why = std::string("GET answered ") + reply->str;
    freeReplyObject(reply);
    fail(s, why);
    return std::nullopt;
  }
  freeReplyObject(reply);
  return out;
#else
  (void)key;
  std::lock_guard<std::mutex> lock(state().mutex);
  configure(state());
  return std::nullopt;
#endif
}

bool remote_put(const std::string& key, const std::string& bytes) {
#ifdef TRITIUM_HAVE_HIREDIS
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  redisContext* context = connection(s);
  if (context == nullptr) return false;
  std::string name = redis_key(key);
  auto* reply = static_cast<redisReply*>(redisCommand(
      context, "SET %b %b", name.data(), name.size(), bytes.data(), bytes.size()));
  if (reply == nullptr) {
    fail(s, std::string("SET failed (") + context->errstr + ")");
    return false;
  }
  bool ok = reply->type != REDIS_REPLY_ERROR;
  std::string why = ok ? "" : std::string("SET answered ") + reply->str;
  freeReplyObject(reply);
  if (!ok) fail(s, why);
  return ok;
#else
  (void)key;
  (void)bytes;
  std::lock_guard<std::mutex> lock(state().mutex);
  configure(state());
  return false;
#endif
}

void remote_reset() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
#ifdef TRITIUM_HAVE_HIREDIS
  if (s.context != nullptr) redisFree(s.context);
  s.context = nullptr;
#endif
  s.configured = false;
  s.off = false;
  s.stats = {};
}

RemoteStats remote_stats() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.stats;
}

std::optional<Entry> load_shared(const DiskCache& disk, const KeyInputs& inputs, const DiskCache::Validator& validate) {
  if (std::optional<Entry> entry = disk.load(inputs, validate)) return entry;
  std::string key = key_of(inputs);
  std::optional<std::string> bytes = remote_get(key);
  auto counted = [](uint64_t RemoteStats::*counter) {
    std::lock_guard<std::mutex> lock(state().mutex);
    ++(state().stats.*counter);
  };
  if (!bytes) return std::nullopt;
  std::string error;
  std::optional<Entry> entry = decode(*bytes, inputs, &error);
  if (entry && validate) {
    error = validate(*entry);
    if (!error.empty()) entry.reset();
  }
  if (!entry) {
    // Never trusted; the compile that follows publishes a good entry over it.
    counted(&RemoteStats::bad_entries);
    std::cerr << "tritium: warning: remote cache entry " << key << " is bad (" << printable(error)
              << "); recompiling kernel '" << inputs.kernel << "'\n";
    return std::nullopt;
  }
  counted(&RemoteStats::hits);
  if (log_enabled()) log("remote hit " + key + " kernel '" + inputs.kernel + "'");
  disk.store(*entry);
  return entry;
}

void store_shared(const DiskCache& disk, const Entry& entry) {
  disk.store(entry);
  if (remote_put(entry.key, encode(entry))) {
    std::lock_guard<std::mutex> lock(state().mutex);
    ++state().stats.publishes;
  }
}

}  // namespace tritium::cache
