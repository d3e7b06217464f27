// Compiles configs.txt lines (name kernel signature warps sm) of a kernel file to name.ptx + name.json.
#include <fstream>
#include <iostream>
#include <sstream>
#include "frontend/parser.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "target/nvptx/codegen.h"
#include "transforms/pipeline.h"
using namespace tritium;
int main(int argc, char** argv) {
  if (argc != 3) { std::cerr << "usage: gen KERNELS.py CONFIGS.txt\n"; return 2; }
  std::ifstream in(argv[1]); std::stringstream ss; ss << in.rdbuf();
  auto file = std::make_shared<SourceFile>(argv[1], ss.str());
  auto module = parse_module(file);
  std::ifstream configs(argv[2]);
  std::string name, kernel, sig; int warps, sm;
  while (configs >> name >> kernel >> sig >> warps >> sm) {
    try {
      for (char& c : sig) if (c == ',') c = ',';
      KernelParams p = read_params(*module->find_function(kernel), {});
      std::string s; for (char c : sig) { s += c; if (c == ',') s += ' '; }
      Signature signature = parse_signature(s, p.names, p.is_constexpr);
      auto f = lower_kernel(module, kernel, signature, {});
      transforms::run_pipeline(*f, {true});
      nvptx::TargetOptions o; o.num_warps = warps; o.sm = sm;
      auto c = nvptx::compile_to_ptx(*f, o);
      std::ofstream(name + ".ptx") << c.ptx;
      std::ofstream js(name + ".json");
      js << "{\"kernel\": \"" << c.kernel_name << "\", \"num_warps\": " << c.num_warps << ", \"shared\": " << c.shared_bytes << ", \"sizes\": [";
      for (size_t i = 0; i < c.params.size(); ++i) js << (i ? ", " : "") << c.params[i].size;
      js << "]}\n";
      std::cout << name << ": ok, shared " << c.shared_bytes << "\n";
    } catch (const std::exception& e) { std::cout << name << ": " << e.what() << "\n"; }
  }
}
