// Small text helpers shared by the signature parser and the CLI's argument parser.
#pragma once

#include <string>
#include <vector>

namespace tritium {

// `s` without leading and trailing whitespace.
std::string trim(const std::string& s);

// Splits `text` at commas outside single or double quotes (a backslash escapes the next
// character inside quotes); entries are trimmed. Sets `*unterminated` when a quote is left
// open. An empty or all-blank text gives one empty entry.
std::vector<std::string> split_outside_quotes(const std::string& text, bool* unterminated);

}  // namespace tritium
