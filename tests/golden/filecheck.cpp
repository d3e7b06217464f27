// A small FileCheck for the golden tests: reads `PREFIX:` lines from a check file and
// matches them, in order, against an input text (stdin or --input).
//
//   tritium_filecheck CHECK_FILE [--input FILE] [--check-prefix PREFIX]
//
// Directives: PREFIX: (somewhere at or after the last match), PREFIX-NEXT: (on the next
// line), PREFIX-SAME: (on the same line, after the last match), PREFIX-NOT: (nowhere
// between the surrounding matches), PREFIX-LABEL: (like PREFIX:, and it bounds the NOT
// lines before it), PREFIX-EMPTY: (the next line is empty). Patterns: literal text (runs of
// blanks match any run of blanks), {{regex}}, [[NAME:regex]] defines NAME, [[NAME]] uses it.
// Exit status 0 on success; 1 with a message naming the check line on failure; 2 on misuse.
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

enum class Kind { Plain, Next, Same, Not, Label, Empty };

const char* kind_suffix(Kind k) {
  switch (k) {
    case Kind::Plain:
      return "";
    case Kind::Next:
      return "-NEXT";
    case Kind::Same:
      return "-SAME";
    case Kind::Not:
      return "-NOT";
    case Kind::Label:
      return "-LABEL";
    case Kind::Empty:
      return "-EMPTY";
  }
  return "";
}

struct Check {
  Kind kind;
  std::string pattern;  // as written, trimmed
  int line;             // in the check file
};

struct Failure {
  std::string message;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string current;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(current);
      current.clear();
    } else if (c != '\r') {
      current += c;
    }
  }
  if (!current.empty()) lines.push_back(current);
  return lines;
}

std::vector<Check> read_checks(const std::string& text, const std::string& prefix) {
  std::vector<Check> checks;
  std::vector<std::string> lines = split_lines(text);
  const std::pair<const char*, Kind> suffixes[] = {
      {"-NEXT:", Kind::Next},   {"-SAME:", Kind::Same},   {"-NOT:", Kind::Not},
      {"-LABEL:", Kind::Label}, {"-EMPTY:", Kind::Empty}, {":", Kind::Plain}};
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    size_t pos = 0;
    while ((pos = line.find(prefix, pos)) != std::string::npos) {
      // The prefix must start a word: `# CHECK:` but not `MYCHECK:`.
      if (pos > 0 && is_word_char(line[pos - 1])) {
        pos += prefix.size();
        continue;
      }
      size_t after = pos + prefix.size();
      bool matched = false;
      for (const auto& [suffix, kind] : suffixes) {
        std::string s = suffix;
        if (line.compare(after, s.size(), s) == 0) {
          checks.push_back({kind, trim(line.substr(after + s.size())), static_cast<int>(i + 1)});
          matched = true;
          break;
        }
      }
      if (matched) break;
      pos = after;
    }
  }
  return checks;
}

std::string regex_escape(const std::string& s) {
  static const std::string special = R"(\^$.|?*+()[]{}/)";
  std::string out;
  for (char c : s) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// A pattern compiled against the variables defined so far.
struct Compiled {
  std::regex regex;
  std::vector<std::pair<std::string, int>> captures;  // variable name, group number
};

int count_groups(const std::string& re) {
  int n = 0;
  for (size_t i = 0; i < re.size(); ++i) {
    if (re[i] == '\\') {
      ++i;
      continue;
    }
    if (re[i] == '(' && (i + 1 >= re.size() || re[i + 1] != '?')) ++n;
  }
  return n;
}

Compiled compile(const Check& check, const std::map<std::string, std::string>& vars,
                 const std::string& file) {
  const std::string& p = check.pattern;
  std::string re;
  Compiled out;
  std::map<std::string, int> local;  // variables defined earlier in this same pattern
  int groups = 0;
  auto where = [&] { return file + ":" + std::to_string(check.line) + ": "; };
  size_t i = 0;
  while (i < p.size()) {
    if (p.compare(i, 2, "{{") == 0) {
      size_t end = p.find("}}", i + 2);
      if (end == std::string::npos) throw Failure{where() + "error: unterminated {{ in pattern"};
      std::string inner = p.substr(i + 2, end - i - 2);
      re += "(?:" + inner + ")";
      groups += count_groups(inner);
      i = end + 2;
    } else if (p.compare(i, 2, "[[") == 0) {
      size_t end = p.find("]]", i + 2);
      if (end == std::string::npos) throw Failure{where() + "error: unterminated [[ in pattern"};
      std::string inner = p.substr(i + 2, end - i - 2);
      size_t colon = inner.find(':');
      if (colon != std::string::npos) {
        std::string name = inner.substr(0, colon), sub = inner.substr(colon + 1);
        re += "(" + sub + ")";
        ++groups;
        out.captures.emplace_back(name, groups);
        local[name] = groups;
        groups += count_groups(sub);
      } else if (local.count(inner) != 0) {
        re += "\\" + std::to_string(local[inner]);
      } else {
        auto it = vars.find(inner);
        if (it == vars.end()) {
          throw Failure{where() + "error: use of undefined variable [[" + inner + "]]"};
        }
        re += regex_escape(it->second);
      }
      i = end + 2;
    } else if (p[i] == ' ' || p[i] == '\t') {
      while (i < p.size() && (p[i] == ' ' || p[i] == '\t')) ++i;
      re += "[ \\t]+";
    } else {
      re += regex_escape(std::string(1, p[i]));
      ++i;
    }
  }
  try {
    out.regex = std::regex(re, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Failure{where() + "error: bad regular expression in '" + p + "': " + e.what()};
  }
  return out;
}

class Checker {
 public:
  Checker(std::vector<std::string> input, std::string check_file, std::string prefix)
      : input_(std::move(input)), file_(std::move(check_file)), prefix_(std::move(prefix)) {}

  void run(const std::vector<Check>& checks) {
    std::vector<const Check*> pending_not;
    for (const Check& check : checks) {
      if (check.kind == Kind::Not) {
        pending_not.push_back(&check);
        continue;
      }
      Position before = pos_;
      Position match = find(check);
      verify_not(pending_not, before, match);
      pending_not.clear();
    }
    verify_not(pending_not, pos_, Position{static_cast<int>(input_.size()), 0});
  }

 private:
  struct Position {
    int line = 0;  // 0-based input line
    size_t col = 0;
  };

  std::string name(const Check& c) const { return prefix_ + kind_suffix(c.kind); }

  std::string where(const Check& c) const { return file_ + ":" + std::to_string(c.line) + ": "; }

  std::string show_input(int line) const {
    if (line < 0 || line >= static_cast<int>(input_.size())) return "  (end of input)\n";
    return "  input line " + std::to_string(line + 1) + ": " + input_[line] + "\n";
  }

  // Searches `line` from `col`; on success records the captures and returns true.
  bool match_at(const Compiled& c, int line, size_t col, size_t* start, size_t* end) {
    const std::string& text = input_[line];
    std::smatch m;
    if (col > text.size()) return false;
    auto begin = text.begin() + static_cast<std::ptrdiff_t>(col);
    if (!std::regex_search(begin, text.end(), m, c.regex)) return false;
    *start = col + static_cast<size_t>(m.position(0));
    *end = *start + static_cast<size_t>(m.length(0));
    for (const auto& [var, group] : c.captures) vars_[var] = m[group].str();
    return true;
  }

  Position find(const Check& check) {
    if (check.kind == Kind::Empty) {
      int next = pos_.line + (started_ ? 1 : 0);
      if (next >= static_cast<int>(input_.size()) || !trim(input_[next]).empty()) {
        throw Failure{where(check) + "error: " + name(check) +
                      ": expected an empty line after the previous match\n" + show_input(next)};
      }
      started_ = true;
      pos_ = {next, input_[next].size()};
      return {next, 0};
    }
    if (check.pattern.empty()) {
      throw Failure{where(check) + "error: " + name(check) + " has an empty pattern"};
    }
    Compiled c = compile(check, vars_, file_);
    size_t start = 0, end = 0;
    if (check.kind == Kind::Next || check.kind == Kind::Same) {
      if (!started_) {
        throw Failure{where(check) + "error: " + name(check) + " cannot be the first check"};
      }
      int line = check.kind == Kind::Next ? pos_.line + 1 : pos_.line;
      size_t col = check.kind == Kind::Next ? 0 : pos_.col;
      if (line >= static_cast<int>(input_.size()) || !match_at(c, line, col, &start, &end)) {
        std::string what = check.kind == Kind::Next ? "on the line after the previous match"
                                                    : "on the same line as the previous match";
        throw Failure{
            where(check) + "error: " + name(check) + ": expected string not found " + what +
            "\n  pattern: " + check.pattern + "\n" + show_input(line) +
            (check.kind == Kind::Next ? "  previous match:" + show_input(pos_.line) : "")};
      }
      pos_ = {line, end};
      return {line, start};
    }
    for (int line = started_ ? pos_.line : 0; line < static_cast<int>(input_.size()); ++line) {
      size_t col = started_ && line == pos_.line ? pos_.col : 0;
      if (match_at(c, line, col, &start, &end)) {
        started_ = true;
        pos_ = {line, end};
        return {line, start};
      }
    }
    int from = started_ ? pos_.line : 0;
    throw Failure{where(check) + "error: " + name(check) + ": expected string not found in input" +
                  "\n  pattern: " + check.pattern + "\n  searched from" + show_input(from)};
  }

  // The NOT patterns must not match between `from` and `to`.
  void verify_not(const std::vector<const Check*>& nots, Position from, Position to) {
    for (const Check* check : nots) {
      Compiled c = compile(*check, vars_, file_);
      for (int line = from.line; line <= to.line && line < static_cast<int>(input_.size());
           ++line) {
        std::string text = input_[line];
        size_t begin = line == from.line ? from.col : 0;
        size_t end = line == to.line ? to.col : text.size();
        if (begin > text.size() || end <= begin) continue;
        std::string segment = text.substr(begin, end - begin);
        if (std::regex_search(segment, c.regex)) {
          throw Failure{where(*check) + "error: " + name(*check) +
                        ": excluded string found in input\n  pattern: " + check->pattern + "\n" +
                        show_input(line)};
        }
      }
    }
  }

  std::vector<std::string> input_;
  std::string file_, prefix_;
  std::map<std::string, std::string> vars_;
  Position pos_;
  bool started_ = false;
};

bool read_all(std::istream& in, std::string* out) {
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  std::string check_file, input_file, prefix = "CHECK";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& opt) -> std::string {
      if (a.size() > opt.size() && a.compare(0, opt.size() + 1, opt + "=") == 0) {
        return a.substr(opt.size() + 1);
      }
      if (i + 1 >= argc) {
        std::cerr << "filecheck: " << opt << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a.rfind("--input", 0) == 0) {
      input_file = value("--input");
    } else if (a.rfind("--check-prefix", 0) == 0) {
      prefix = value("--check-prefix");
    } else if (check_file.empty() && a.rfind("--", 0) != 0) {
      check_file = a;
    } else {
      std::cerr << "usage: tritium_filecheck CHECK_FILE [--input FILE] [--check-prefix P]\n";
      return 2;
    }
  }
  if (check_file.empty() || prefix.empty()) {
    std::cerr << "usage: tritium_filecheck CHECK_FILE [--input FILE] [--check-prefix P]\n";
    return 2;
  }
  std::ifstream checks_in(check_file);
  std::string check_text, input_text;
  if (!checks_in || !read_all(checks_in, &check_text)) {
    std::cerr << "filecheck: cannot read " << check_file << "\n";
    return 2;
  }
  if (input_file.empty() || input_file == "-") {
    read_all(std::cin, &input_text);
  } else {
    std::ifstream in(input_file);
    if (!in || !read_all(in, &input_text)) {
      std::cerr << "filecheck: cannot read " << input_file << "\n";
      return 2;
    }
  }
  std::vector<Check> checks = read_checks(check_text, prefix);
  if (checks.empty()) {
    std::cerr << "filecheck: " << check_file << " has no " << prefix << ": lines\n";
    return 2;
  }
  try {
    Checker(split_lines(input_text), check_file, prefix).run(checks);
  } catch (const Failure& f) {
    std::cerr << f.message;
    if (!f.message.empty() && f.message.back() != '\n') std::cerr << '\n';
    return 1;
  }
  return 0;
}
