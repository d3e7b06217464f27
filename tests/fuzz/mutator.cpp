// The source-and-signature mutator (see generator.h) and the corpus reader: corpus kernels
// are the golden and error tests, whose RUN lines give the kernel and signature to use.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "generator.h"

namespace tritium::fuzz {

namespace {

int pick(Rng& rng, int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); }

template <typename T>
const T& one_of(Rng& rng, const std::vector<T>& items) {
  return items[static_cast<size_t>(pick(rng, 0, static_cast<int>(items.size()) - 1))];
}

// Tokens worth splicing in: builtins, keywords, dtypes, operators, odd numbers.
const std::vector<std::string>& dictionary() {
  static const std::vector<std::string> words = {
      "tl.arange(0, 65536)", "tl.zeros((1048576, 2), tl.float32)", "tl.full((4,), 1.0, tl.float16)",
      "tl.load(", "tl.store(", "tl.atomic_max(", "tl.atomic_min(", "tl.atomic_cas(", "tl.atomic_xchg(",
      "tl.where(", "tl.reshape(", "tl.expand_dims(", "tl.broadcast_to(", "tl.static_range(", "range(",
      "tl.program_id(", "tl.num_programs(", ".to(tl.float16)", ".to(tl.int8, bitcast=True)", ".to(tl.uint64)",
      "tl.float64", "tl.bfloat16", "tl.int1", "tl.uint32", "tl.constexpr", "tl.static_assert(", "tl.cdiv(",
      "if ", "else:", "elif ", "while ", "for ", "return ", "break", "continue", "pass", "None", "True", "False",
      "lambda", "yield", "not ", " and ", " or ", " is ", " in ", "@triton.jit", "def ", "global ", "nonlocal ",
      "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "~", "==", "!=", "<", ">", "=", ":", ",",
      "(", ")", "[", "]", "[:, None]", "[None, :]", "...", "0", "1", "-1", "2", "3", "2147483648",
      "-2147483649", "18446744073709551616", "1e308", "1e-320", "float('nan')", "0x7fffffff", "1048576",
      "2097152", "4294967296", "'str'", "\"\"\"", "#", "\\", "\t", "\n", "\n    ", " ", "\xff", "\xc3\xa9",
  };
  return words;
}

const std::vector<std::string>& signature_values() {
  static const std::vector<std::string> values = {
      "*fp32", "*fp32:16", "*fp16:16", "*bf16", "*fp64:16", "*i1", "*i8:16", "*i16", "*i32:16", "*i64",
      "*u8", "*u32:16", "*u64", "i1", "i32", "i32:16", "i64", "i64:16", "u64", "fp32", "1", "None",
      "0", "-1", "3", "7", "1024", "65536", "1048576", "2097152", "4294967296", "fp16", "'abc'", "True",
      "*fp8", "i128", ":", "", "*", "BLOCK=1", "BLOCK=3", "BLOCK=0", "BLOCK=-8", "BLOCK=1048576",
  };
  return values;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

void mutate_source(std::string& s, Rng& rng) {
  if (s.empty()) s = "x";
  size_t at = static_cast<size_t>(pick(rng, 0, static_cast<int>(s.size()) - 1));
  switch (pick(rng, 0, 9)) {
    case 0: s[at] = static_cast<char>(s[at] ^ (1 << pick(rng, 0, 7))); break;  // a bit flip
    case 1: s.erase(at, static_cast<size_t>(pick(rng, 1, 16))); break;
    case 2: s.insert(at, one_of(rng, dictionary())); break;
    case 3: {  // a number becomes an interesting one
      std::vector<size_t> digits;
      for (size_t i = 0; i < s.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(s[i])) && (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])))) digits.push_back(i);
      }
      if (digits.empty()) break;
      size_t begin = one_of(rng, digits), end = begin;
      while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '.')) ++end;
      static const std::vector<std::string> numbers = {"0", "1", "2", "3", "16", "255", "256", "1024", "65536",
                                                       "1048576", "2097152", "2147483647", "2147483648",
                                                       "9223372036854775807", "18446744073709551615", "0.0",
                                                       "1e309", "-1", "4096", "131072"};
      s.replace(begin, end - begin, one_of(rng, numbers));
      break;
    }
    case 4: case 5: {  // duplicate, delete or swap whole lines
      std::vector<std::string> lines = split_lines(s);
      if (lines.size() < 2) break;
      size_t i = static_cast<size_t>(pick(rng, 0, static_cast<int>(lines.size()) - 1));
      size_t j = static_cast<size_t>(pick(rng, 0, static_cast<int>(lines.size()) - 1));
      int how = pick(rng, 0, 2);
      if (how == 0) lines.insert(lines.begin() + static_cast<long>(j), lines[i]);
      if (how == 1) lines.erase(lines.begin() + static_cast<long>(i));
      if (how == 2) std::swap(lines[i], lines[j]);
      s = join_lines(lines);
      break;
    }
    case 6: {  // indentation
      std::vector<std::string> lines = split_lines(s);
      size_t i = static_cast<size_t>(pick(rng, 0, static_cast<int>(lines.size()) - 1));
      if (pick(rng, 0, 1)) lines[i] = "    " + lines[i];
      else if (lines[i].rfind("    ", 0) == 0) lines[i] = lines[i].substr(4);
      s = join_lines(lines);
      break;
    }
    case 7: {  // one identifier replaced by another of the file
      static const std::regex word("[A-Za-z_][A-Za-z_0-9]*");
      std::vector<std::string> words;
      for (auto it = std::sregex_iterator(s.begin(), s.end(), word); it != std::sregex_iterator(); ++it) words.push_back(it->str());
      if (words.size() < 2) break;
      std::string from = one_of(rng, words), to = one_of(rng, words);
      size_t where = s.find(from, at);
      if (where == std::string::npos) where = s.find(from);
      s.replace(where, from.size(), to);
      break;
    }
    default: s.insert(at, one_of(rng, dictionary()) + " "); break;
  }
}

std::vector<std::string> split_signature(const std::string& sig) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : sig) {
    if (c == ',') {
      parts.push_back(part);
      part.clear();
    } else if (c != ' ') {
      part += c;
    }
  }
  parts.push_back(part);
  return parts;
}

void mutate_signature(std::string& sig, Rng& rng) {
  std::vector<std::string> parts = split_signature(sig);
  size_t i = static_cast<size_t>(pick(rng, 0, static_cast<int>(parts.size()) - 1));
  switch (pick(rng, 0, 4)) {
    case 0: parts[i] = one_of(rng, signature_values()); break;
    case 1: parts.erase(parts.begin() + static_cast<long>(i)); break;
    case 2: parts.insert(parts.begin() + static_cast<long>(i), one_of(rng, signature_values())); break;
    case 3: {  // a constexpr value changes
      size_t eq = parts[i].find('=');
      if (eq == std::string::npos) parts[i] = one_of(rng, signature_values());
      else parts[i] = parts[i].substr(0, eq + 1) + one_of(rng, signature_values());
      break;
    }
    default: {  // divisibility toggled
      if (parts[i].size() > 3 && parts[i].substr(parts[i].size() - 3) == ":16") parts[i].resize(parts[i].size() - 3);
      else parts[i] += ":16";
    }
  }
  sig.clear();
  for (size_t k = 0; k < parts.size(); ++k) sig += (k ? ", " : "") + parts[k];
}

}  // namespace

std::vector<CorpusEntry> read_corpus(const std::vector<std::string>& dirs) {
  static const std::regex run(R"re(#\s*RUN:.*--kernel\s+(\w+)\s+--signature\s+"([^"]*)")re");
  std::vector<CorpusEntry> out;
  for (const std::string& dir : dirs) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = f.path().filename().string();
      if (f.path().extension() == ".py" && name.rfind("run_", 0) != 0 && name.rfind("test_", 0) != 0) files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());  // the same corpus order everywhere: seeds replay
    for (const auto& path : files) {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      CorpusEntry entry;
      entry.path = path.string();
      entry.source = text.str();
      for (std::string line : split_lines(entry.source)) {
        std::smatch m;
        if (std::regex_search(line, m, run)) entry.runs.emplace_back(m[1], m[2]);
      }
      if (entry.runs.empty()) entry.runs.emplace_back("kernel", "*fp32");
      out.push_back(std::move(entry));
    }
  }
  return out;
}

Input mutate(const CorpusEntry& entry, Rng& rng) {
  Input input;
  const auto& [kernel, signature] = one_of(rng, entry.runs);
  input.kernel = kernel;
  input.signature = signature;
  input.source = entry.source;
  input.origin = "mutated:" + std::filesystem::path(entry.path).filename().string();
  int edits = pick(rng, 1, 4);
  for (int i = 0; i < edits; ++i) {
    if (pick(rng, 0, 3) == 0) mutate_signature(input.signature, rng);
    else mutate_source(input.source, rng);
  }
  return input;
}

}  // namespace tritium::fuzz
