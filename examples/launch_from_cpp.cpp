// Launches the vector add of examples/vector_add.py from C++ alone, through the public API
// (include/tritium/tritium.h) and the interpreter, on host buffers; checks the result.
//
//   launch_from_cpp [path/to/vector_add.py]
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tritium/tritium.h"

namespace {

// The same kernel as examples/vector_add.py, used when no file is given.
const char* kSource = R"(import tritium
import tritium.language as tl


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
)";

}  // namespace

int main(int argc, char** argv) {
  std::string source = kSource, path = "<vector_add>";
  if (argc > 1) {
    std::ifstream in(argv[1]);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[1]);
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    source = ss.str();
    path = argv[1];
  }
  try {
    tritium::Kernel add(source, "add_kernel", path);

    const int64_t n = 1000, block = 256;
    std::vector<float> x(n), y(n), out(n, -1.0f);  // poisoned: unwritten elements show
    for (int64_t i = 0; i < n; ++i) {
      x[i] = 0.25f * static_cast<float>(i);
      y[i] = 1.0f - static_cast<float>(i % 7);
    }
    const size_t bytes = n * sizeof(float);
    std::vector<tritium::Arg> args = {
        tritium::Arg::pointer(x.data(), tritium::DType::fp32, bytes),
        tritium::Arg::pointer(y.data(), tritium::DType::fp32, bytes),
        tritium::Arg::pointer(out.data(), tritium::DType::fp32, bytes),
        tritium::Arg::integer(n),
        tritium::Arg::integer(block),
    };
    tritium::LaunchConfig config;
    config.backend = tritium::Backend::Interpreter;
    std::printf("signature: %s\n", add.signature(args).c_str());
    add.launch({tritium::cdiv(n, block)}, args, {}, config);

    for (int64_t i = 0; i < n; ++i) {
      if (out[i] != x[i] + y[i]) {
        std::fprintf(stderr, "mismatch at %lld: %g != %g + %g\n", static_cast<long long>(i), out[i],
                     x[i], y[i]);
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
