// Finding libdevice (see libdevice.h): the environment variable, then CUDA_HOME, then the
// toolkits under /usr/local (newest name last in sorted order wins), then Debian's package.
#include "target/nvptx/libdevice.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace tritium::nvptx {

namespace {

bool exists(const std::string& path) {
  std::error_code error;
  return !path.empty() && std::filesystem::is_regular_file(path, error);
}

}  // namespace

std::string libdevice_search_text() {
  return "$TRITIUM_LIBDEVICE_PATH, $CUDA_HOME/nvvm/libdevice/libdevice.10.bc, "
         "/usr/local/cuda*/nvvm/libdevice/libdevice.10.bc, "
         "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc";
}

std::string libdevice_path() {
  if (const char* env = std::getenv("TRITIUM_LIBDEVICE_PATH"); env && *env) {
    return exists(env) ? std::string(env) : std::string();
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    std::string path = std::string(home) + "/nvvm/libdevice/libdevice.10.bc";
    if (exists(path)) return path;
  }
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/local", error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("cuda", 0) != 0) continue;
    std::string path = entry.path().string() + "/nvvm/libdevice/libdevice.10.bc";
    if (exists(path)) found.push_back(path);
  }
  std::sort(found.begin(), found.end());
  if (!found.empty()) return found.back();
  const std::string debian = "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc";
  return exists(debian) ? debian : std::string();
}

}  // namespace tritium::nvptx
