// Source text and locations. Every AST node and IR op carries a Loc that points into a
// SourceFile; line numbers are those of the user's real file (first_line offsets them).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tritium {

class SourceFile {
 public:
  // `first_line` is the real line number of the first line of `text`, so a kernel cut out
  // of a larger file (Python's inspect.getsourcelines) still reports the user's lines.
  SourceFile(std::string path, std::string text, int first_line = 1);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  int first_line() const { return first_line_; }
  // The text of real line `line` without its newline; empty when out of range.
  std::string_view line_text(int line) const;

 private:
  std::string path_;
  std::string text_;
  int first_line_;
  std::vector<size_t> line_starts_;
};

// A position in a SourceFile: 1-based real line and 1-based column. A default Loc is
// "unknown" and prints without an excerpt.
struct Loc {
  const SourceFile* file = nullptr;
  int line = 0;
  int col = 0;

  bool known() const { return file != nullptr && line > 0; }
};

}  // namespace tritium
