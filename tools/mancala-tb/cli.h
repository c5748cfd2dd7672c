// Shared helpers of the mancala-tb sub-commands: the command table (CLI11), help pages,
// positions from the command line, errors at the edge (exceptions become one error line
// and exit code 2), progress on a terminal.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mancala/notation.h"
#include "mancala/variant.h"

namespace mancala::cli {

// Exit statuses, documented in docs/notation.md ("Errors and exit status").
inline constexpr int kExitFailure = 1;      // a failure while working: "error: ..."
inline constexpr int kExitUsage = 2;        // bad command line or input
inline constexpr int kExitInterrupted = 130;

// A user error: printed as "mancala-tb COMMAND: <message>" with exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The help page of a sub-command. CLI11 lists the arguments and options between the
// text and the examples; every example must run as printed (tests/cli runs them in a
// fresh folder, in order, so an example may use the tables an earlier one generated).
struct HelpPage {
  std::string usage;     // the lines after "usage: ", e.g. "mancala-tb probe DIR POSITION..."
  std::string text;      // what the command does
  std::vector<std::string> examples;  // whole command lines, "mancala-tb ..."
  std::string notes;     // optional prose after the examples
};

// One sub-command: its CLI11 app (options bound to the command's state) and the
// function that runs it once the command line is parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Adds a sub-command to `root` with its summary (the line in `mancala-tb --help`) and page.
CLI::App* add_command(CLI::App& root, const std::string& name, const std::string& summary, HelpPage page);
// Prints the page of `mancala-tb --help`.
void set_root_help(CLI::App& root, HelpPage page);

// Positions on the command line, one argument or split: "oware 1,0/0,1 S" and
// oware 1,0/0,1 S are the same words once split at spaces.
std::vector<std::string> split_words(const std::vector<std::string>& args);
std::string join_words(const std::vector<std::string>& words, std::size_t from = 0, std::size_t to = std::string::npos);
// VARIANT [PITS SIDE [FLAGS]] from words[from, to); the variant's start position (with
// `per_pit` seeds a pit, 0 = the game's own) when only VARIANT is given.
ParsedPosition position_from_words(const std::vector<std::string>& words, std::size_t from, std::size_t to, int per_pit = 0);
// Several positions one after another: a new one starts at each word naming a variant.
std::vector<std::string> split_positions(const std::vector<std::string>& words);

// The variant, or a UsageError naming the closest known variant ("did you mean").
VariantPtr variant_or_throw(const std::string& spec);
ParsedPosition position_or_throw(const std::string& text);

// Progress on a terminal (stderr is a tty), silent otherwise.
class Progress {
 public:
  // enabled: a bar redrawn in place (stderr is a terminal); else a plain line a minute.
  // Disabled under --quiet.
  explicit Progress(bool enabled);
  ~Progress();
  // `unit`: what `done` counts, for the rate and the time left ("pos"), or null where
  // a rate means nothing (first moves of a search, plies of a proof). The rate of a
  // label is measured from its first call (a sweep that starts half done is not fast).
  void show(const std::string& label, std::uint64_t done, std::uint64_t total, const char* unit = "pos");
  // The share of the whole run done so far (0..1), for an estimate of the whole run's
  // time left beside the current step's; negative: none.
  void overall(double fraction) { overall_ = fraction; }
  void message(const std::string& line);  // a line that stays
  void finish();

 private:
  bool enabled_;
  bool dirty_ = false;
  double overall_ = -1;
  std::chrono::steady_clock::time_point run_start_, start_, last_;
  std::uint64_t done_at_start_ = 0;
  std::string label_;
};
// "12.3M" (k, M, G), for rates and counts read at a glance; "2h05m", "3m10s", "42s".
std::string short_number(double x);
std::string short_duration(double seconds);
bool stderr_is_terminal();

// " (did you mean 'x'?)" for the candidate closest to `word` (case folded, at most a
// third of its letters edited), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates, const char* quote = "'");
// The hint for options of `cmd` that CLI11 did not expect ("--jsn": did you mean --json?).
std::string option_hint(const CLI::App& cmd);

// A whole-number option's check with a readable message: "-3 is not in 0..255".
CLI::Validator in_range(long long lo, long long hi);

// --quiet (every sub-command that draws progress or notes): no progress bars and no
// notes on stderr; results, warnings and errors still print. --json: results as JSON.
bool quiet();
void add_quiet_flag(CLI::App* cmd);
void add_json_flag(CLI::App* cmd, bool& json, const std::string& what);

}  // namespace mancala::cli
