#include "cli.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace mancala::cli {

namespace {

// The help of mancala-tb and of each sub-command: our usage lines and prose, CLI11's
// list of arguments and options, then the examples.
class Help : public CLI::Formatter {
 public:
  Help(HelpPage page, bool root) : page_(std::move(page)), root_(root) { column_width(kColumn); }
  // "--threads N", "--out TEXT": the value's kind without CLI11's validator text (the
  // ranges are in the descriptions and in the error messages).
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string type = opt->get_type_name();
    if (opt->get_positional() || type.empty() || opt->get_expected_max() == 0) return "";
    type = type.substr(0, type.find(':'));
    if (type == "INT" || type == "UINT") type = "N";
    return " " + type + (opt->get_expected_max() > 1 ? " ..." : "");
  }
  // Option texts wrapped to 80 columns (CLI11 indents the lines after a newline).
  std::string make_option_desc(const CLI::Option* opt) const override {
    const std::string text = CLI::Formatter::make_option_desc(opt);
    const std::size_t width = 80 - kColumn;
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
      if (!line.empty() && line.size() + 1 + w.size() > width) {
        out += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + w;
    }
    return out + line;
  }
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string out = "usage: " + page_.usage + "\n\n" + page_.text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (root_) {
      out += "\ncommands:\n";
      for (const CLI::App* sub : app->get_subcommands({}))
        out += "  " + pad(sub->get_name(), 10) + " " + sub->get_description() + "\n";
    } else {
      std::string args = make_positionals(app);
      std::string opts = make_groups(app, mode);
      if (!args.empty()) out += args;
      if (!opts.empty()) out += opts;
    }
    if (!page_.examples.empty()) {
      out += page_.examples.size() == 1 ? "\nexample:\n" : "\nexamples:\n";
      for (const auto& e : page_.examples) out += "  " + e + "\n";
    }
    if (!page_.notes.empty()) out += "\n" + page_.notes + (page_.notes.back() == '\n' ? "" : "\n");
    return out;
  }

 private:
  static std::string pad(std::string s, std::size_t n) {
    if (s.size() < n) s.resize(n, ' ');
    return s;
  }
  static constexpr std::size_t kColumn = 26;
  HelpPage page_;
  bool root_;
};

}  // namespace

CLI::App* add_command(CLI::App& root, const std::string& name, const std::string& summary, HelpPage page) {
  CLI::App* c = root.add_subcommand(name, summary);
  c->formatter(std::make_shared<Help>(std::move(page), false));
  return c;
}

void set_root_help(CLI::App& root, HelpPage page) { root.formatter(std::make_shared<Help>(std::move(page), true)); }

std::vector<std::string> split_words(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::size_t i = 0;
    while (i < a.size()) {
      while (i < a.size() && std::isspace(static_cast<unsigned char>(a[i]))) ++i;
      std::size_t j = i;
      while (j < a.size() && !std::isspace(static_cast<unsigned char>(a[j]))) ++j;
      if (j > i) out.push_back(a.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

std::string join_words(const std::vector<std::string>& words, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < std::min(to, words.size()); ++i) out += (out.empty() ? "" : " ") + words[i];
  return out;
}

ParsedPosition position_from_words(const std::vector<std::string>& words, std::size_t from, std::size_t to, int per_pit) {
  const VariantPtr v = variant_or_throw(words.at(from));  // "did you mean" before the pits
  if (to - from == 1) {
    ParsedPosition pp{v, v->start(per_pit), Side::South};
    if (auto e = v->check(pp.position); !e.empty()) throw UsageError("--per-pit " + std::to_string(per_pit) + ": " + e);
    return pp;
  }
  auto p = parse_position(v, join_words(words, from + 1, to));
  if (!p) throw UsageError(p.error().message);
  return *p;
}

std::vector<std::string> split_positions(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    if (make_variant(w).has_value() || out.empty()) out.push_back(w);
    else out.back() += " " + w;
  }
  return out;
}

VariantPtr variant_or_throw(const std::string& spec) {
  auto v = make_variant(spec);
  if (v) return *v;
  // "owar", "Oware", "kalh:6:empty": the closest game name, parameters kept.
  const std::string base = spec.substr(0, spec.find(':'));
  std::vector<std::string> names;
  bool known = false;
  for (const auto& d : variant_docs()) {
    names.push_back(d.name);
    known = known || d.name == base;
  }
  std::string hint = known ? "" : did_you_mean(base, names);
  if (!hint.empty()) {
    const std::size_t quote = hint.find('\'') + 1;
    hint.insert(hint.find('\'', quote), spec.substr(base.size()));
  }
  throw UsageError(v.error().message + hint);
}

ParsedPosition position_or_throw(const std::string& text) {
  auto p = parse_position(text);
  if (p) return *p;
  const auto w = split_words({text});
  if (!w.empty() && !make_variant(w[0])) variant_or_throw(w[0]);  // throws with the suggestion
  throw UsageError(p.error().message);
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

namespace {
bool g_quiet = false;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates, const char* quote) {
  const std::string w = lower(word);
  std::size_t best = std::string::npos;
  std::string pick;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(w, lower(c));
    if (d < best) best = d, pick = c;
  }
  if (pick.empty() || best > std::max<std::size_t>(1, w.size() / 3)) return "";
  return std::string(" (did you mean ") + quote + pick + quote + "?)";
}

std::string option_hint(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options())
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  for (const std::string& extra : cmd.remaining()) {
    if (extra.size() < 2 || extra[0] != '-') continue;
    const std::string hint = did_you_mean(extra.substr(0, extra.find('=')), names, "");
    if (!hint.empty()) return hint;
  }
  return "";
}

CLI::Validator in_range(long long lo, long long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        long long x = 0;
        std::size_t used = 0;
        try {
          x = std::stoll(text, &used);
        } catch (...) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return "'" + text + "' is not a whole number in " + range;
        if (x < lo || x > hi) return text + " is not in " + range;
        return "";
      },
      "N in " + range);
}

bool quiet() { return g_quiet; }

void add_quiet_flag(CLI::App* cmd) {
  cmd->add_flag("-q,--quiet", g_quiet, "no progress and no notes on stderr (results, warnings and errors still print)");
}

void add_json_flag(CLI::App* cmd, bool& json, const std::string& what) {
  cmd->add_flag("--json", json, what + " (docs/notation.md, \"JSON output\")");
}

std::string short_number(double x) {
  const char* suffix[] = {"", "k", "M", "G", "T"};
  int u = 0;
  while (x >= 1000 && u < 4) x /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : x < 10 ? "%.2f%s" : x < 100 ? "%.1f%s" : "%.0f%s", x, suffix[u]);
  return buf;
}

std::string short_duration(double s) {
  char buf[32];
  const long long t = static_cast<long long>(s + 0.5);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%lldh%02lldm", t / 3600, t / 60 % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%lldm%02llds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%llds", t);
  return buf;
}

Progress::Progress(bool enabled)
    : enabled_(enabled && !g_quiet), run_start_(std::chrono::steady_clock::now()), start_(run_start_), last_(start_) {}
Progress::~Progress() { finish(); }

void Progress::show(const std::string& label, std::uint64_t done, std::uint64_t total, const char* unit) {
  const auto now = std::chrono::steady_clock::now();
  if (g_quiet) return;
  const double run_secs = std::chrono::duration<double>(now - run_start_).count();
  // The whole run's estimate: its time so far over the share done.
  std::string run;
  if (overall_ > 0.001 && overall_ <= 1 && run_secs >= 2)
    run = "  run " + std::to_string(static_cast<int>(overall_ * 100)) + "%, ~" +
          short_duration(run_secs * (1 - overall_) / overall_) + " left";
  if (label != label_) {  // a new step: its rate is measured from here
    label_ = label;
    start_ = now;
    done_at_start_ = done;
  }
  if (!enabled_) {  // stderr is a log file: one plain line a minute on long jobs
    if (now - last_ < std::chrono::seconds(60)) return;
    last_ = now;
    std::fprintf(stderr, "mancala-tb: %s (%llu of %llu)%s\n", label.c_str(), static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total), run.c_str());
    std::fflush(stderr);
    return;
  }
  if (now - last_ < std::chrono::milliseconds(200) && done < total && dirty_) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  // A rate once the step has run long enough to measure one (none in its first half second).
  const double rate = secs >= 0.5 && done > done_at_start_ ? static_cast<double>(done - done_at_start_) / secs : 0;
  const double frac = total ? static_cast<double>(std::min(done, total)) / static_cast<double>(total) : 1.0;
  const int width = 20;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  std::string tail = " [" + bar + "] ";
  char pct[16];
  std::snprintf(pct, sizeof pct, "%5.1f%%", frac * 100);
  tail += pct;
  if (unit && rate > 0)
    tail += "  " + short_number(rate) + " " + unit + "/s  ~" +
            short_duration(static_cast<double>(total - std::min(done, total)) / rate) + " left";
  tail += run + " ";
  // The whole label where the terminal is wide enough (a search's label says what is
  // searched and the bounds proven), else cut at a word with "...".
  winsize ws{};
  const int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
  const std::size_t room = static_cast<std::size_t>(std::max(20, cols - 1 - static_cast<int>(tail.size())));
  std::string shown = label;
  if (shown.size() > room) {
    shown.resize(room - 3);
    if (const std::size_t space = shown.find_last_of(' '); space != std::string::npos && space > room / 2)
      shown.resize(space);
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == ',' || shown.back() == '[')) shown.pop_back();
    shown += "...";
  }
  std::fputs(("\r" + shown + tail + "\033[K").c_str(), stderr);
  std::fflush(stderr);
  dirty_ = true;
}

void Progress::message(const std::string& line) {
  if (!enabled_) return;  // on a terminal only, never under --quiet
  if (dirty_) std::fputs("\r\033[K", stderr);
  std::fputs((line + "\n").c_str(), stderr);
  dirty_ = false;
}

void Progress::finish() {
  if (enabled_ && dirty_) std::fputs("\r\033[K", stderr);
  dirty_ = false;
}

}  // namespace mancala::cli
