// Trimming and quote-aware comma splitting.
#include "support/text.h"

namespace tritium {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_outside_quotes(const std::string& text, bool* unterminated) {
  std::vector<std::string> out;
  std::string current;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      current += c;
      if (c == '\\' && i + 1 < text.size()) {
        current += text[++i];
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      current += c;
    } else if (c == ',') {
      out.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  *unterminated = quote != 0;
  out.push_back(trim(current));
  return out;
}

}  // namespace tritium
