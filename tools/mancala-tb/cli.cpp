#include "cli.h"

#include <unistd.h>

#include <cstdio>

namespace mancala::cli {

std::optional<std::string> Args::option(const std::string& name) {
  const std::string dashed = "--" + name;
  for (std::size_t i = 0; i < a_.size(); ++i) {
    if (a_[i] == dashed) {
      if (i + 1 >= a_.size()) throw UsageError(dashed + " needs a value");
      std::string v = a_[i + 1];
      a_.erase(a_.begin() + static_cast<long>(i), a_.begin() + static_cast<long>(i) + 2);
      return v;
    }
    if (a_[i].rfind(dashed + "=", 0) == 0) {
      std::string v = a_[i].substr(dashed.size() + 1);
      a_.erase(a_.begin() + static_cast<long>(i));
      return v;
    }
  }
  return std::nullopt;
}

bool Args::flag(const std::string& name) {
  const std::string dashed = (name.size() == 1 ? "-" : "--") + name;
  for (std::size_t i = 0; i < a_.size(); ++i)
    if (a_[i] == dashed) {
      a_.erase(a_.begin() + static_cast<long>(i));
      return true;
    }
  return false;
}

int Args::int_option(const std::string& name, int fallback, int lo, int hi) {
  const auto v = option(name);
  if (!v) return fallback;
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(*v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v->size() || v->empty()) throw UsageError("--" + name + " must be a whole number, got '" + *v + "'");
  if (n < lo || n > hi) throw UsageError("--" + name + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + *v);
  return n;
}

std::vector<std::string> Args::rest() const {
  for (const auto& s : a_)
    if (s.size() > 1 && s[0] == '-' && !(s[1] >= '0' && s[1] <= '9')) throw UsageError("unknown option '" + s + "' (see --help)");
  return a_;
}

VariantPtr variant_or_throw(const std::string& spec) {
  auto v = make_variant(spec);
  if (!v) throw UsageError(v.error());
  return *v;
}

ParsedPosition position_or_throw(const std::string& text) {
  auto p = parse_position(text);
  if (!p) throw UsageError(p.error());
  return *p;
}

ParsedPosition position_or_throw(const VariantPtr& v, const std::vector<std::string>& words) {
  std::string rest;
  for (const auto& w : words) rest += w + " ";
  auto p = parse_position(v, rest);
  if (!p) throw UsageError(p.error());
  return *p;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

Progress::Progress(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {}
Progress::~Progress() { finish(); }

void Progress::show(const std::string& label, std::uint64_t done, std::uint64_t total) {
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
  char buf[256];
  const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  std::snprintf(buf, sizeof buf, "\r%-28.28s [%s] %5.1f%%  %.3g pos/s  ~%.0fs left ", label.c_str(), bar.c_str(),
                frac * 100, rate, left);
  std::fputs(buf, stderr);
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

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace mancala::cli
