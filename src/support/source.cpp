// Source text and line lookup for diagnostics.
#include "support/source.h"

namespace tritium {

SourceFile::SourceFile(std::string path, std::string text, int first_line)
    : path_(std::move(path)), text_(std::move(text)), first_line_(first_line) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::line_text(int line) const {
  long index = static_cast<long>(line) - first_line_;
  if (index < 0 || index >= static_cast<long>(line_starts_.size())) return {};
  size_t begin = line_starts_[index];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_);
  view = view.substr(begin, end - begin);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

}  // namespace tritium
