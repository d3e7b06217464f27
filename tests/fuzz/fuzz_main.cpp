// tritium_fuzz: drives the compiler in-process on generated and mutated kernels (README.md
// here). The invariant: every input compiles through PTX emission or ends in a located
// CompileError (a signature that does not parse may be unlocated: it has no kernel line).
// An InternalError, any other exception, a crash or a hang is a finding, saved and counted.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "generator.h"
#include "lower/lower.h"
#include "lower/signature.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/llvm_info.h"
#include "transforms/pipeline.h"
#include "tritium/errors.h"

using namespace tritium;

namespace {

struct Options {
  uint64_t seed = 1;
  uint64_t start = 0;
  uint64_t iterations = 1000;
  double max_seconds = 0;  // 0: no limit
  int timeout = 60;        // seconds per input before it counts as a hang
  int max_memory_mb = 4096;
  std::vector<std::string> corpus;
  std::string findings = "fuzz-findings";
  bool ptx = true;
  int generated_percent = 50;
  int64_t replay = -1;  // an iteration to print and run alone
  int64_t emit = -1;    // a generated kernel's seed to print (for the differential harness)
  uint64_t emit_count = 1;  // with --emit: print this many seeds from it, each after "#### seed S"
  bool verbose = false;  // print every located error's message (to tune the generator)
  uint64_t report_every = 0;  // print the table every N inputs too (long runs killed midway)
  std::string ptxas;          // assemble every `ptxas_every`-th compiled kernel's PTX with it
  uint64_t ptxas_every = 1;
};

bool g_verbose = false;

enum class Outcome { Compiled, Located, BadSignature, NoKernel, Finding };

// The input being run, kept where the crash and hang handlers can write it without
// allocating (async-signal-safe: only write(2) on preformatted bytes).
char g_current[1 << 16];
size_t g_current_size = 0;
char g_findings_path[4096];

void set_current(const std::string& text) {
  g_current_size = std::min(text.size(), sizeof(g_current));
  std::memcpy(g_current, text.data(), g_current_size);
}

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void on_fatal(int sig) {
  const char* what = sig == SIGALRM ? "HANG" : "CRASH";
  char head[128];
  int n = std::snprintf(head, sizeof(head), "\n==== tritium_fuzz %s (signal %d) on this input:\n", what, sig);
  write_all(2, head, static_cast<size_t>(n));
  write_all(2, g_current, g_current_size);
  int fd = ::open(g_findings_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    write_all(fd, head, static_cast<size_t>(n));
    write_all(fd, g_current, g_current_size);
    ::close(fd);
  }
  if (sig == SIGALRM) ::_exit(3);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

std::string describe(const fuzz::Input& in, uint64_t iteration) {
  return "# iteration " + std::to_string(iteration) + " (" + in.origin + ")\n# kernel: " + in.kernel +
         "\n# signature: " + in.signature + "\n" + in.source + "\n";
}

// Runs one input through parse, lowering, the pipeline and PTX emission (kept in `*ptx_text`).
Outcome run_one(const fuzz::Input& in, bool ptx, std::string* finding, std::string* ptx_text) {
  bool in_signature = false;
  try {
    auto file = std::make_shared<SourceFile>("fuzz.py", in.source);
    auto module = parse_module(file);
    const ast::FunctionDef* fn = module->find_function(in.kernel);
    if (fn == nullptr) return Outcome::NoKernel;
    KernelParams params = read_params(*fn, {});
    in_signature = true;
    Signature sig = parse_signature(in.signature, params.names, params.is_constexpr);
    in_signature = false;
    auto function = lower_kernel(module, in.kernel, sig, {});
    transforms::run_pipeline(*function, {true});
    if (ptx) *ptx_text = nvptx::compile_to_ptx(*function, {}).ptx;
    return Outcome::Compiled;
  } catch (const CompileError& e) {
    if (e.line() > 0 && e.file() == "fuzz.py") {
      if (g_verbose) std::cerr << in.origin << ": " << e.message() << "\n";
      return Outcome::Located;
    }
    if (in_signature) return Outcome::BadSignature;
    *finding = std::string("unlocated CompileError: ") + e.what();
  } catch (const OutOfResources& e) {  // a block too big for the architecture's shared memory
    if (std::string(e.what()).rfind("fuzz.py:", 0) == 0) return Outcome::Located;
    *finding = std::string("unlocated OutOfResources: ") + e.what();
  } catch (const InternalError& e) {
    *finding = std::string("InternalError: ") + e.what();
  } catch (const std::exception& e) {
    *finding = std::string("exception: ") + e.what();
  } catch (...) {
    *finding = "unknown exception";
  }
  return Outcome::Finding;
}

struct Counts {
  uint64_t runs = 0, compiled = 0, located = 0, bad_signature = 0, no_kernel = 0, findings = 0;
};

// `ptxas -arch=sm_90` on the PTX: "" when it assembles, else ptxas's first message. LLVM
// emitting PTX does not make it valid PTX; the GPU's driver would refuse it at load.
std::string ptxas_rejects(const std::string& ptxas, const std::string& dir, const std::string& ptx) {
  // Named by process: fuzzers started side by side in one folder share `dir`, and one would
  // overwrite the file the other's ptxas is reading (a "syntax error" finding of neither).
  const std::string me = std::to_string(::getpid());
  std::string input = dir + "/ptxas-input-" + me + ".ptx", log = dir + "/ptxas-output-" + me + ".txt";
  std::ofstream(input, std::ios::trunc) << ptx;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // wgmma kernels target sm_90a, which ptxas must be told.
  std::string arch = ptx.find(".target sm_90a") != std::string::npos ? "-arch=sm_90a" : "-arch=sm_90";
  std::vector<std::string> args = {ptxas, arch, input, "-o", "/dev/null"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, ptxas.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return "cannot run " + ptxas + ": " + std::strerror(spawned);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  std::ifstream in(log);
  std::string first;
  std::getline(in, first);
  return "ptxas rejected the PTX (status " + std::to_string(status) + "): " + first;
}

bool parse_options(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--seed") o->seed = std::stoull(next());
    else if (a == "--start") o->start = std::stoull(next());
    else if (a == "--iterations") o->iterations = std::stoull(next());
    else if (a == "--max-seconds") o->max_seconds = std::stod(next());
    else if (a == "--timeout") o->timeout = std::stoi(next());
    else if (a == "--max-memory-mb") o->max_memory_mb = std::stoi(next());
    else if (a == "--corpus") o->corpus.push_back(next());
    else if (a == "--findings") o->findings = next();
    else if (a == "--no-ptx") o->ptx = false;
    else if (a == "--generated-percent") o->generated_percent = std::stoi(next());
    else if (a == "--replay") o->replay = std::stoll(next());
    else if (a == "--emit") o->emit = std::stoll(next());
    else if (a == "--emit-count") o->emit_count = std::max<uint64_t>(1, std::stoull(next()));
    else if (a == "--verbose") o->verbose = true;
    else if (a == "--report-every") o->report_every = std::stoull(next());
    else if (a == "--ptxas") o->ptxas = next();
    else if (a == "--ptxas-every") o->ptxas_every = std::max<uint64_t>(1, std::stoull(next()));
    else return false;
  }
  return true;
}

// The input of one iteration: a function of (seed, iteration) alone, so any one replays.
fuzz::Input input_of(const Options& o, const std::vector<fuzz::CorpusEntry>& corpus, uint64_t iteration) {
  fuzz::Rng rng(o.seed * 0x9E3779B97F4A7C15ull ^ (iteration + 1) * 0xD1B54A32D192ED03ull);
  bool generate = corpus.empty() || std::uniform_int_distribution<int>(0, 99)(rng) < o.generated_percent;
  if (generate) return fuzz::generate_kernel(rng);
  const fuzz::CorpusEntry& entry = corpus[std::uniform_int_distribution<size_t>(0, corpus.size() - 1)(rng)];
  return fuzz::mutate(entry, rng);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse_options(argc, argv, &o)) {
      std::cerr << "usage: tritium_fuzz [--seed S] [--start I] [--iterations N] [--max-seconds T]\n"
                   "                    [--timeout T] [--max-memory-mb M] [--corpus DIR]... [--findings DIR]\n"
                   "                    [--no-ptx] [--generated-percent P] [--replay I] [--emit SEED [--emit-count N]]\n"
                   "                    [--verbose] [--report-every N] [--ptxas PATH [--ptxas-every N]]\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "tritium_fuzz: " << e.what() << "\n";
    return 2;
  }
  if (o.emit >= 0) {
    // Generated kernels as JSON-free text for the differential harness: one process for a
    // range of seeds (--emit-count), each kernel after a "#### seed S" line; one seed alone
    // prints its kernel only.
    for (uint64_t i = 0; i < o.emit_count; ++i) {
      uint64_t seed = static_cast<uint64_t>(o.emit) + i;
      fuzz::Rng rng(seed);
      fuzz::Input in = fuzz::generate_kernel(rng);
      if (o.emit_count > 1) std::cout << "#### seed " << seed << "\n";
      std::cout << "# signature: " << in.signature << "\n# args: " << in.args << "\n# grid: " << in.grid << "\n"
                << in.source;
    }
    return 0;
  }
  if (!nvptx::nvptx_target_available()) o.ptx = false;
  g_verbose = o.verbose;
  std::vector<fuzz::CorpusEntry> corpus = fuzz::read_corpus(o.corpus);
  ::mkdir(o.findings.c_str(), 0755);
  std::snprintf(g_findings_path, sizeof(g_findings_path), "%s/crashes-and-hangs.txt", o.findings.c_str());
  struct sigaction action {};
  action.sa_handler = on_fatal;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) ::sigaction(sig, &action, nullptr);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  o.max_memory_mb = 0;  // the sanitizers reserve terabytes of address space for their shadow
#endif
  if (o.max_memory_mb > 0) {
    rlimit limit{static_cast<rlim_t>(o.max_memory_mb) << 20, static_cast<rlim_t>(o.max_memory_mb) << 20};
    ::setrlimit(RLIMIT_AS, &limit);
  }

  uint64_t first = o.replay >= 0 ? static_cast<uint64_t>(o.replay) : o.start;
  uint64_t last = o.replay >= 0 ? first + 1 : o.start + o.iterations;
  std::map<std::string, Counts> by_class;
  Counts total;
  auto began = std::chrono::steady_clock::now();
  std::ofstream findings_log(o.findings + "/findings.txt", std::ios::app);
  uint64_t assembled = 0;
  auto report = [&]() {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::cout << "| input class | executions | compiled to " << (o.ptx ? "PTX" : "IR") << " | located errors | "
              << "bad signatures | no kernel | findings |\n| --- | --- | --- | --- | --- | --- | --- |\n";
    std::map<std::string, Counts> rows = by_class;
    rows["all"] = total;
    for (const auto& [name, c] : rows) {
      std::cout << "| " << name << " | " << c.runs << " | " << c.compiled << " | " << c.located << " | "
                << c.bad_signature << " | " << c.no_kernel << " | " << c.findings << " |\n";
    }
    if (!o.ptxas.empty()) std::cout << "ptxas -arch=sm_90 assembled " << assembled << " of the compiled kernels\n";
    std::cout << "seed " << o.seed << ", iterations " << first << ".." << first + total.runs << ", " << seconds
              << " s, " << (seconds > 0 ? total.runs / seconds : 0) << " executions/s" << std::endl;
  };

  for (uint64_t it = first; it < last; ++it) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (o.max_seconds > 0 && elapsed > o.max_seconds) break;
    fuzz::Input in = input_of(o, corpus, it);
    std::string text = describe(in, it);
    if (o.replay >= 0) std::cout << text;
    set_current(text);
    ::alarm(static_cast<unsigned>(o.timeout));
    std::string finding, ptx;
    Outcome outcome = run_one(in, o.ptx, &finding, &ptx);
    if (outcome == Outcome::Compiled && !o.ptxas.empty() && !ptx.empty() && total.compiled % o.ptxas_every == 0) {
      finding = ptxas_rejects(o.ptxas, o.findings, ptx);
      if (finding.empty()) ++assembled;
      else outcome = Outcome::Finding;
    }
    ::alarm(0);
    std::string cls = in.origin.rfind("mutated:", 0) == 0 ? "mutated" : "generated";
    for (Counts* c : {&by_class[cls], &total}) {
      ++c->runs;
      c->compiled += outcome == Outcome::Compiled;
      c->located += outcome == Outcome::Located;
      c->bad_signature += outcome == Outcome::BadSignature;
      c->no_kernel += outcome == Outcome::NoKernel;
      c->findings += outcome == Outcome::Finding;
    }
    if (outcome == Outcome::Finding) {
      std::cerr << "FINDING at iteration " << it << ": " << finding << "\n";
      findings_log << "==== " << finding << "\n" << text << std::flush;
    }
    if (o.replay >= 0) std::cout << "outcome: " << static_cast<int>(outcome) << " " << finding << "\n";
    if (o.report_every > 0 && total.runs % o.report_every == 0) report();
  }
  report();
  return total.findings == 0 ? 0 : 1;
}
