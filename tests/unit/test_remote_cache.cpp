// The remote cache level (src/cache/remote_cache) against a real redis-server started here on
// a free port: publish from one machine's disk cache, hit from another's (written to its
// disk), a corrupted remote entry rejected by its checksum, misses, and an unreachable server
// that costs one bounded attempt and one warning. Without redis-server (Debian redis-server)
// or without hiredis in this build, the tests say SKIPPED in a warning and check nothing else.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "cache/disk_cache.h"
#include "cache/key.h"
#include "cache/remote_cache.h"

namespace cache = tritium::cache;
namespace fs = std::filesystem;

namespace {

cache::KeyInputs inputs_named(const std::string& kernel) {
  cache::KeyInputs in;
  in.tritium_version = "0.1.0";
  in.compiler_hash = "build-id:00ff";
  in.llvm_version = "22.1.8";
  in.kernel = kernel;
  in.source = "@triton.jit\ndef " + kernel + "(x, n):\n    pass\n";
  in.source_path = "/tmp/k.py";
  in.globals = "{}";
  in.signature = "*fp32:16, i32:16";
  in.target = "sm_90";
  in.ptx_version = 80;
  return in;
}

cache::Entry entry_for(const cache::KeyInputs& inputs) {
  cache::Entry e;
  e.inputs = inputs;
  e.key = cache::key_of(inputs);
  e.entry_name = inputs.kernel;
  e.sm = 90;
  e.ptx_version = 80;
  e.params = {{"x", 0, true, "fp32", 8}, {"n", 1, false, "i32", 4}};
  e.ptx = ".version 8.0\n.target sm_90\n// " + inputs.kernel + "\n";
  e.cubin = std::string("\x7f" "ELF cubin bytes \x00\x01\x02", 20);
  return e;
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() / ("tritium-remote-test-" + std::to_string(::getpid()) + tag);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t length = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

// A redis-server child on a free port, stopped (by its pid) at scope exit.
struct RedisServer {
  pid_t pid = -1;
  int port = 0;
  std::string why_not;

  RedisServer() {
    const char* candidates[] = {"/usr/bin/redis-server", "/usr/local/bin/redis-server"};
    std::string binary;
    for (const char* c : candidates) {
      if (::access(c, X_OK) == 0) binary = c;
    }
    if (binary.empty()) {
      why_not = "redis-server is not installed (Debian: redis-server)";
      return;
    }
    port = free_port();
    std::string port_text = std::to_string(port);
    pid = ::fork();
    if (pid == 0) {
      int null_fd = ::open("/dev/null", O_WRONLY);
      if (null_fd >= 0) ::dup2(null_fd, 1);
      ::execl(binary.c_str(), binary.c_str(), "--port", port_text.c_str(), "--bind", "127.0.0.1",
              "--save", "", "--appendonly", "no", "--loglevel", "warning",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !accepts(port); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!accepts(port)) why_not = "redis-server did not start on port " + port_text;
  }
  ~RedisServer() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  }
  bool up() const { return why_not.empty(); }
};

void use_remote(const std::string& url) {
  ::setenv("TRITIUM_REMOTE_CACHE", url.c_str(), 1);
  cache::remote_reset();
}

}  // namespace

TEST_CASE("remote cache: publish, hit on another machine's disk, reject a corrupted entry") {
  if (!cache::remote_supported()) {
    WARN("SKIPPED: this build has no hiredis (Debian libhiredis-dev)");
    return;
  }
  RedisServer server;
  if (!server.up()) {
    WARN("SKIPPED: " + server.why_not);
    return;
  }
  use_remote("redis://127.0.0.1:" + std::to_string(server.port));
  TempDir machine_a("-a"), machine_b("-b"), machine_c("-c");
  cache::DiskCache disk_a(machine_a.path.string()), disk_b(machine_b.path.string()),
      disk_c(machine_c.path.string());

  cache::KeyInputs inputs = inputs_named("add_kernel");
  CHECK_FALSE(cache::load_shared(disk_a, inputs));  // nowhere yet
  CHECK(cache::remote_stats().misses == 1);
  cache::Entry entry = entry_for(inputs);
  cache::store_shared(disk_a, entry);
  CHECK(cache::remote_stats().publishes == 1);
  CHECK(fs::exists(disk_a.path_of(entry.key)));

  // Another machine: a local miss, a remote hit, and the entry lands on its disk.
  REQUIRE_FALSE(fs::exists(disk_b.path_of(entry.key)));
  std::optional<cache::Entry> got = cache::load_shared(disk_b, inputs);
  REQUIRE(got);
  CHECK(got->ptx == entry.ptx);
  CHECK(got->cubin == entry.cubin);
  CHECK(cache::remote_stats().hits == 1);
  CHECK(fs::exists(disk_b.path_of(entry.key)));

  // The server's bytes are verified like a file: a flipped byte is rejected.
  std::optional<std::string> bytes = cache::remote_get(entry.key);
  REQUIRE(bytes);
  std::string corrupted = *bytes;
  corrupted[corrupted.size() - 3] ^= 0x20;
  REQUIRE(cache::remote_put(entry.key, corrupted));
  CHECK_FALSE(cache::load_shared(disk_c, inputs));
  CHECK(cache::remote_stats().bad_entries == 1);
  CHECK_FALSE(fs::exists(disk_c.path_of(entry.key)));
  // An entry stored under another key's name does not match its inputs either.
  cache::KeyInputs other = inputs_named("mul_kernel");
  REQUIRE(cache::remote_put(cache::key_of(other), *bytes));
  CHECK_FALSE(cache::load_shared(disk_c, other));
  CHECK(cache::remote_stats().bad_entries == 2);
  // Publishing after the recompile repairs the server's copy.
  cache::store_shared(disk_c, entry);
  TempDir machine_d("-d");
  cache::DiskCache disk_d(machine_d.path.string());
  CHECK(cache::load_shared(disk_d, inputs));
  CHECK(cache::remote_stats().failures == 0);
  ::unsetenv("TRITIUM_REMOTE_CACHE");
  cache::remote_reset();
}

TEST_CASE("remote cache: an unreachable server costs one bounded attempt, then nothing") {
  if (!cache::remote_supported()) {
    WARN("SKIPPED: this build has no hiredis (Debian libhiredis-dev)");
    return;
  }
  ::setenv("TRITIUM_REMOTE_CACHE_TIMEOUT_MS", "300", 1);
  TempDir dir("-u");
  cache::DiskCache disk(dir.path.string());
  cache::KeyInputs inputs = inputs_named("add_kernel");
  // A closed local port (refused at once), and an address that may not answer at all (the
  // timeout bounds it).
  for (const std::string& url : {"redis://127.0.0.1:" + std::to_string(free_port()),
                                 std::string("redis://10.255.255.1:6379")}) {
    use_remote(url);
    auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(cache::load_shared(disk, inputs));
    double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(first < 2.0);
    CHECK(cache::remote_stats().failures == 1);
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) {
      CHECK_FALSE(cache::load_shared(disk, inputs));
      cache::store_shared(disk, entry_for(inputs_named("k" + std::to_string(i))));
    }
    double rest = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(rest < 0.5);  // no further attempts
    CHECK(cache::remote_stats().failures == 1);
    CHECK(cache::remote_stats().publishes == 0);
  }
  // The local cache kept working all along.
  CHECK(cache::load_shared(disk, inputs_named("k3")));
  ::unsetenv("TRITIUM_REMOTE_CACHE");
  ::unsetenv("TRITIUM_REMOTE_CACHE_TIMEOUT_MS");
  cache::remote_reset();
}

TEST_CASE("remote cache: a URL that is not redis:// is refused once") {
  use_remote("memcached://host:11211");
  CHECK_FALSE(cache::remote_get("00"));
  CHECK_FALSE(cache::remote_put("00", "x"));
  CHECK(cache::remote_stats().publishes == 0);
  ::unsetenv("TRITIUM_REMOTE_CACHE");
  cache::remote_reset();
}
