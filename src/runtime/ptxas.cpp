// assemble_with_ptxas (ptxas.h): posix_spawn of ptxas with its output in a temporary folder.
#include "runtime/ptxas.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "tritium/tritium.h"

extern char** environ;

namespace tritium::runtime {

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The first `count` lines of `text`, joined by "; ".
std::string first_lines(const std::string& text, int count) {
  std::istringstream in(text);
  std::string line, out;
  while (count > 0 && std::getline(in, line)) {
    if (line.empty()) continue;
    out += (out.empty() ? "" : "; ") + line;
    --count;
  }
  return out;
}

// The architecture the PTX's `.target` directive names ("sm_90a"), or "" (no std::regex: GCC
// 12's sanitizer builds warn inside it).
std::string ptx_target(const std::string& ptx) {
  for (size_t at = ptx.find(".target"); at != std::string::npos; at = ptx.find(".target", at + 1)) {
    if (at > 0 && ptx[at - 1] != '\n') continue;
    size_t start = ptx.find_first_not_of(" \t", at + 7);
    if (start == std::string::npos || ptx.compare(start, 3, "sm_") != 0) continue;
    size_t end = ptx.find_first_not_of("0123456789", start + 3);
    if (end == start + 3) continue;
    if (end != std::string::npos && ptx[end] == 'a') ++end;
    return ptx.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return "";
}

// A folder under $TMPDIR (or /tmp) that only this call uses, removed when it goes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/tritium-ptxas-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (mkdtemp(name.data()) != nullptr) path = name.data();
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

std::string assemble_with_ptxas(const std::string& ptxas, const std::string& ptx, const std::string& kernel) {
  auto fail = [&](const std::string& why) -> LaunchError {
    return LaunchError("kernel '" + kernel + "': TRITIUM_PTXAS=" + ptxas + ": " + why);
  };
  const std::string target = ptx_target(ptx);
  if (target.empty()) throw fail("the PTX names no .target");
  TempDir dir;
  if (dir.path.empty()) throw fail(std::string("cannot make a temporary folder: ") + std::strerror(errno));
  const std::filesystem::path src = dir.path / "kernel.ptx", bin = dir.path / "kernel.cubin",
                              log = dir.path / "ptxas.log";
  std::ofstream(src, std::ios::binary) << ptx;

  std::vector<std::string> args = {ptxas, "--gpu-name=" + target, src.string(), "-o", bin.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, ptxas.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw fail(std::string("cannot run it: ") + std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw fail(std::string("waiting for it failed: ") + std::strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string what = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                               : "signal " + std::to_string(WTERMSIG(status));
    throw fail("it failed (" + what + "): " + first_lines(read_file(log), 4));
  }
  std::string cubin = read_file(bin);
  if (cubin.empty()) throw fail("it wrote no cubin");
  return cubin;
}

}  // namespace tritium::runtime
