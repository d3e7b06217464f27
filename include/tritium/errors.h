// The error types tritium throws across its public surface.
// CompileError: the kernel source is wrong (always located). LaunchError: the call is wrong
// (arguments, grid, device). InternalError: a bug in tritium itself (names the pass and op).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace tritium {

// A user error in kernel source. what() is the full `file:line:col: error: message`
// report with the source line and a caret under the column.
class CompileError : public std::runtime_error {
 public:
  CompileError(std::string file, int line, int col, std::string message, std::string excerpt);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int col() const { return col_; }
  const std::string& message() const { return message_; }
  // The offending source line followed by a line with a caret under the column.
  const std::string& excerpt() const { return excerpt_; }

 private:
  std::string file_;
  int line_;
  int col_;
  std::string message_;
  std::string excerpt_;
};

// A user error at launch time: wrong arguments, bad grid, no device, driver failures.
// The message names the kernel and, where there is one, the argument.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An argument of a type the parameter cannot take (Python: tritium.errors.ArgumentTypeError,
// also a TypeError, as Triton raises one).
class ArgumentTypeError : public LaunchError {
 public:
  using LaunchError::LaunchError;
};

// A launch option out of its range (num_warps, num_stages, num_ctas): Triton checks those
// with `assert`, so Python sees tritium.errors.LaunchOptionError, a LaunchError that is
// also an AssertionError.
class LaunchOptionError : public LaunchError {
 public:
  using LaunchError::LaunchError;
};

// A kernel needs more of a device resource than the device has (shared memory): Python's
// tritium.errors.OutOfResources, as Triton's triton.runtime.errors.OutOfResources, which
// autotuners catch to pass over a configuration.
class OutOfResources : public LaunchError {
 public:
  OutOfResources(const std::string& message, std::string resource, long long required, long long limit)
      : LaunchError(message), resource_(std::move(resource)), required_(required), limit_(limit) {}

  const std::string& resource() const { return resource_; }
  long long required() const { return required_; }
  long long limit() const { return limit_; }

 private:
  std::string resource_;
  long long required_;
  long long limit_;
};

// A compiler bug: an invariant broke. Never the user's fault; the message names where.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace tritium
