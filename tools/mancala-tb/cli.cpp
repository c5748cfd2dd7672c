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
  const VariantPtr v = variant_or_throw(words.at(from));
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
  if (!v) throw UsageError(v.error().message);
  return *v;
}

ParsedPosition position_or_throw(const std::string& text) {
  auto p = parse_position(text);
  if (!p) throw UsageError(p.error().message);
  return *p;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

Progress::Progress(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {}
Progress::~Progress() { finish(); }

void Progress::show(const std::string& label, std::uint64_t done, std::uint64_t total, const char* unit) {
  const auto now = std::chrono::steady_clock::now();
  if (!enabled_) {  // stderr is a log file: one plain line a minute on long jobs
    if (now - last_ < std::chrono::seconds(60)) return;
    last_ = now;
    std::fprintf(stderr, "mancala-tb: %s (%llu of %llu)\n", label.c_str(), static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total));
    std::fflush(stderr);
    return;
  }
  if (label != label_) {
    label_ = label;
    start_ = now;
  } else if (now - last_ < std::chrono::milliseconds(200) && done < total) {
    return;
  }
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  const double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int width = 24;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  char tail[128];
  if (unit)
    std::snprintf(tail, sizeof tail, " [%s] %5.1f%%  %.3g %s/s  ~%.0fs left ", bar.c_str(), frac * 100, rate, unit,
                  rate > 0 ? static_cast<double>(total - done) / rate : 0.0);
  else
    std::snprintf(tail, sizeof tail, " [%s] %5.1f%% ", bar.c_str(), frac * 100);
  // The whole label where the terminal is wide enough (a search's label says what is
  // searched and the bounds proven), cut to the terminal's width otherwise.
  winsize ws{};
  const int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
  const int room = std::max(20, cols - 1 - static_cast<int>(std::strlen(tail)));
  std::string line = "\r" + label.substr(0, static_cast<std::size_t>(room)) + tail + "\033[K";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  dirty_ = true;
}

void Progress::message(const std::string& line) {
  if (!enabled_) return;
  if (dirty_) std::fputs("\r\033[K", stderr);
  std::fputs((line + "\n").c_str(), stderr);
  dirty_ = false;
}

void Progress::finish() {
  if (enabled_ && dirty_) std::fputs("\r\033[K", stderr);
  dirty_ = false;
}

}  // namespace mancala::cli
