// Shared helpers of the mancala-tb sub-commands: argument scanning, errors at the
// edge (exceptions become one error line and exit code 2), progress on a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mancala/notation.h"
#include "mancala/variant.h"

namespace mancala::cli {

// A user error: printed as "mancala-tb: <message>" with exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  Args(std::vector<std::string> a) : a_(std::move(a)) {}
  // Removes and returns `--name VALUE` (or --name=VALUE); nullopt if absent.
  std::optional<std::string> option(const std::string& name);
  bool flag(const std::string& name);  // removes `--name`
  int int_option(const std::string& name, int fallback, int lo, int hi);
  // Remaining positionals; errors on an unknown --option.
  std::vector<std::string> rest() const;
  bool help() { return flag("help") || flag("h"); }

 private:
  std::vector<std::string> a_;
};

VariantPtr variant_or_throw(const std::string& spec);
ParsedPosition position_or_throw(const std::string& text);
// A position given either whole ("oware 4,... S") or as PITS SIDE after a variant.
ParsedPosition position_or_throw(const VariantPtr& v, const std::vector<std::string>& words);

// Progress on a terminal (stderr is a tty), silent otherwise.
class Progress {
 public:
  // enabled: a bar redrawn in place (stderr is a terminal); else a plain line a minute.
  explicit Progress(bool enabled);
  ~Progress();
  void show(const std::string& label, std::uint64_t done, std::uint64_t total);
  void message(const std::string& line);  // a line that stays
  void finish();

 private:
  bool enabled_;
  bool dirty_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  std::string label_;
};
bool stderr_is_terminal();

std::string json_escape(const std::string& s);

}  // namespace mancala::cli
