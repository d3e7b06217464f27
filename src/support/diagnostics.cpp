// Formatting of located diagnostics: `file:line:col: error: message`, the line, a caret.
#include "support/diagnostics.h"

namespace tritium {

namespace {

std::string format_report(const std::string& file, int line, int col, const std::string& message,
                          const std::string& excerpt) {
  std::string out;
  if (!file.empty()) out += file + ":";
  if (line > 0) out += std::to_string(line) + ":" + std::to_string(col) + ":";
  if (!out.empty()) out += " ";
  out += "error: " + message;
  if (!excerpt.empty()) out += "\n" + excerpt;
  return out;
}

}  // namespace

CompileError::CompileError(std::string file, int line, int col, std::string message,
                           std::string excerpt)
    : std::runtime_error(format_report(file, line, col, message, excerpt)),
      file_(std::move(file)),
      line_(line),
      col_(col),
      message_(std::move(message)),
      excerpt_(std::move(excerpt)) {}

CompileError make_error(const Loc& loc, const std::string& message) {
  if (!loc.known()) return CompileError("", 0, 0, message, "");
  std::string excerpt;
  std::string_view text = loc.file->line_text(loc.line);
  if (!text.empty()) {
    excerpt = std::string(text) + "\n";
    // Keep tabs in the padding so the caret lines up under tab-indented code.
    for (int i = 1; i < loc.col && i <= static_cast<int>(text.size()); ++i) {
      excerpt += text[i - 1] == '\t' ? '\t' : ' ';
    }
    excerpt += "^";
  }
  return CompileError(loc.file->path(), loc.line, loc.col, message, excerpt);
}

void error_at(const Loc& loc, const std::string& message) { throw make_error(loc, message); }

namespace {
thread_local std::vector<CompileWarning> pending_warnings;
}  // namespace

void warn_at(const Loc& loc, const std::string& message) {
  if (pending_warnings.size() >= 64) return;
  CompileWarning w;
  if (loc.known()) {
    w.file = loc.file->path();
    w.line = loc.line;
    w.col = loc.col;
  }
  w.message = message;
  pending_warnings.push_back(std::move(w));
}

std::vector<CompileWarning> take_warnings() {
  std::vector<CompileWarning> out;
  out.swap(pending_warnings);
  return out;
}

void internal_error(const std::string& stage, const std::string& message, const Loc& loc) {
  std::string where;
  if (loc.known()) {
    where = " at " + loc.file->path() + ":" + std::to_string(loc.line) + ":" +
            std::to_string(loc.col);
  }
  throw InternalError("internal compiler error in " + stage + where + ": " + message +
                      " (this is a bug in tritium)");
}

}  // namespace tritium
