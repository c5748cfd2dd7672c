#include "mancala/notation.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <vector>

namespace mancala {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The next blank-separated word of s from i on (empty: none is left); i moves past it.
std::string_view next_word(std::string_view s, std::size_t& i) {
  while (i < s.size() && blank(s[i])) ++i;
  const std::size_t from = i;
  while (i < s.size() && !blank(s[i])) ++i;
  return s.substr(from, i - from);
}

// A thread's own parse state, reached once a parse (in a shared library each access
// to a thread_local is a call): the last variants parsed, and the buffer of a
// position's words, which keeps its room (a parse allocates nothing once warm: it made
// a dozen allocations a position, a tenth of a value's time from text).
struct ThreadParse {
  struct Seen {
    std::string spec;
    VariantPtr variant;
  };
  std::vector<Seen> seen;
  std::vector<std::string_view> words;
};

ThreadParse& thread_parse() {
  thread_local ThreadParse t;
  return t;
}

// The blank-separated words of s, as views into it, into out (cleared first).
void words(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  for (std::string_view w; !(w = next_word(s, i)).empty();) out.push_back(w);
}

// make_variant(spec), remembered: a position of the same variant as one of the last
// few parsed on this thread does not build its variant again (variants are immutable).
// The pointer is to the thread's entry, valid until the thread parses another variant
// (no copy of the shared pointer: its atomic counts were a quarter of a parse).
Result<const VariantPtr*> cached_variant(ThreadParse& t, std::string_view spec) {
  for (const ThreadParse::Seen& x : t.seen)
    if (x.spec == spec) return &x.variant;
  auto v = make_variant(spec);
  if (!v) return std::unexpected(v.error());
  if (t.seen.size() == 8) t.seen.erase(t.seen.begin());
  t.seen.push_back({std::string(spec), *v});
  return &t.seen.back().variant;
}

// The variant of a whole position (its first word) and the rest of the text.
Result<const VariantPtr*> variant_word(ThreadParse& t, std::string_view text, std::string_view& rest) {
  std::size_t at = 0;
  const std::string_view spec = next_word(text, at);
  if (spec.empty()) return fail_with(Error::BadPosition, "empty position (expected: VARIANT PITS SIDE [FLAGS])");
  auto v = cached_variant(t, spec);
  if (!v) return fail_with(Error::BadPosition, v.error().message);
  rest = text.substr(at);
  return v;
}

// The number of one to three decimal digits at s[i..], i moved past them; -1 when
// there is none or a fourth digit follows (such a cell is read by from_chars, which says
// what is wrong with it).
int short_number(std::string_view s, std::size_t& i) {
  const std::size_t from = i;
  int n = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (i - from == 3) return -1;
    n = n * 10 + (s[i] - '0');
  }
  return i == from ? -1 : n;
}

}  // namespace

// The common case in one pass (notation.h); parse_general reads the same text the same way.
// An engine's text probe (mtb_value) spends its instructions here: one pointer, each
// cell's digits unrolled (one to three), no index checked twice.
bool parse_plain_board(const Variant& v, std::string_view rest, Position& absolute, Side& side) {
  const char* p = rest.data();
  const char* const end = p + rest.size();
  while (p < end && blank(*p)) ++p;
  Position a;  // filled here, copied out only when the text is plain
  const int south_n = v.south_pits(a), total_n = v.pits();
  if (south_n <= 0 || south_n >= total_n) return false;  // no board of two halves: the general way
  auto digit = [&](unsigned& d) { return p < end && (d = static_cast<unsigned>(static_cast<unsigned char>(*p)) - '0') <= 9; };
  for (int idx = 0; idx < total_n; ++idx) {
    if (idx > 0) {  // the separator before this cell
      if (p == end || *p != (idx == south_n ? '/' : ',')) return false;
      ++p;
    }
    unsigned x = 0, d = 0;
    if (!digit(x)) return false;
    ++p;
    if (digit(d)) {
      x = 10 * x + d;
      ++p;
      if (digit(d)) {
        x = 10 * x + d;
        ++p;
        if (digit(d)) return false;  // a fourth digit: the general way names it
      }
    }
    if (x > 255) return false;
    a.pits[static_cast<std::size_t>(idx)] = static_cast<Seeds>(x);
  }
  if (end - p < 2 || p[0] != ' ' || (p[1] != 'S' && p[1] != 'N')) return false;
  side = p[1] == 'S' ? Side::South : Side::North;
  for (p += 2; p < end; ++p)
    if (!blank(*p)) return false;
  absolute = a;
  return true;
}

namespace {

// PITS SIDE [FLAGS] of variant v, any form, into absolute and side, or the error that
// names what is wrong.
Result<void> parse_general(ThreadParse& t, const Variant& v, std::string_view rest, Position& absolute, Side& side) {
  std::vector<std::string_view>& w = t.words;
  words(rest, w);
  const auto who = [&] { return v.name(); };  // for messages only (a name is built each call)
  if (w.size() < 2) return fail_with(Error::BadPosition, who() + ": expected PITS SIDE [FLAGS] after the variant, e.g. '" + format_position(v, v.start(), Side::South) + "'");
  // Flags first: they can change the board's geometry (none do today but Cenne's flip).
  Position p;
  if (w[1] == "S") side = Side::South;
  else if (w[1] == "N") side = Side::North;
  else return fail_with(Error::BadPosition, who() + ": side to move must be S or N, got '" + std::string(w[1]) + "'");
  int jeppe = -1;
  for (std::size_t i = 2; i < w.size(); ++i) {
    const std::string_view f = w[i];
    if (f == "first") p.flags |= kFirstMove;
    else if (f == "atappe") p.flags |= kAtappe;
    else if (f.starts_with("jeppe=")) {
      int j = -1;
      const char* b = f.data() + 6;
      const auto [ptr, ec] = std::from_chars(b, f.data() + f.size(), j);
      if (ec != std::errc() || ptr != f.data() + f.size() || j < 0 || j >= v.pits())
        return fail_with(Error::BadPosition, who() + ": jeppe must name a pit 0.." + std::to_string(v.pits() - 1) + ", got '" + std::string(f) + "'");
      jeppe = j;
    } else {
      return fail_with(Error::BadPosition, who() + ": unknown flag '" + std::string(f) + "' (known: first, atappe, jeppe=P)");
    }
  }
  // PITS, as written: South's half first in circuit order from pit 0.
  const std::string_view pits = w[0];
  const std::size_t slash = pits.find('/');
  if (slash == std::string_view::npos || pits.find('/', slash + 1) != std::string_view::npos)
    return fail_with(Error::BadPosition, who() + ": pits must be two halves separated by one '/', got '" + std::string(pits) + "'");
  absolute = Position{};  // South-at-bottom orientation as written
  const int south_n = v.south_pits(absolute);
  const int total_n = v.pits();
  const std::string_view halves[2] = {pits.substr(0, slash), pits.substr(slash + 1)};
  const int want[2] = {south_n, total_n - south_n};
  int idx = 0;
  for (int h = 0; h < 2; ++h) {
    // The comma-separated cells, counted first, then read in one pass.
    const std::string_view half = halves[h];
    const auto got = static_cast<std::size_t>(std::count(half.begin(), half.end(), ',')) + 1;
    if (static_cast<int>(got) != want[h])
      return fail_with(Error::BadPosition, who() + ": " + (h == 0 ? "South" : "North") + "'s half must list " + std::to_string(want[h]) +
                             " pits, got " + std::to_string(got) + " in '" + std::string(half) + "'");
    for (std::size_t from = 0, to = 0; from <= half.size(); from = to + 1) {
      for (to = from; to < half.size() && half[to] != ','; ++to) {
      }
      std::string_view cell = half.substr(from, to - from);
      Mark mark = Mark::None;
      if (!cell.empty() && (cell.back() == 'S' || cell.back() == 'N' || cell.back() == 'x')) {
        mark = cell.back() == 'S' ? Mark::South : cell.back() == 'N' ? Mark::North : Mark::Closed;
        cell.remove_suffix(1);
      }
      std::size_t end = 0;
      int n = short_number(cell, end);
      if (n < 0 || end != cell.size()) {
        n = 0;
        const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), n);
        if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size())
          return fail_with(Error::BadPosition, who() + ": pit " + std::to_string(idx) + " must be a number of seeds (optionally with suffix S, N or x), got '" + std::string(cell) + "'");
      }
      if (n < 0 || n > 255) return fail_with(Error::BadPosition, who() + ": pit " + std::to_string(idx) + " holds an impossible number of seeds (" + std::to_string(n) + ")");
      absolute.pits[static_cast<std::size_t>(idx)] = static_cast<Seeds>(n);
      absolute.marks[static_cast<std::size_t>(idx)] = mark;
      ++idx;
    }
  }
  absolute.flags = p.flags;
  absolute.jeppe = static_cast<std::int8_t>(jeppe);
  return {};
}

// Parses PITS SIDE [FLAGS] of variant v into position (normalised) and side.
Result<void> parse_rest(ThreadParse& t, const Variant& v, std::string_view rest, Position& position, Side& side) {
  Position absolute;
  if (!parse_plain_board(v, rest, absolute, side))
    if (auto r = parse_general(t, v, rest, absolute, side); !r) return r;
  if (std::string err = v.check(absolute); !err.empty()) return fail_with(Error::BadPosition, v.name() + ": " + err);
  position = side == Side::South ? absolute : v.rotate(absolute);
  return {};
}

// A whole position into position and side: its variant's entry in the thread's cache.
Result<const VariantPtr*> parse_whole(std::string_view text, Position& position, Side& side) {
  ThreadParse& t = thread_parse();
  std::string_view rest;
  auto v = variant_word(t, text, rest);
  if (!v) return v;
  if (auto r = parse_rest(t, ***v, rest, position, side); !r) return std::unexpected(r.error());
  return v;
}

}  // namespace

Result<ParsedPosition> parse_position(std::string_view text) {
  ParsedPosition out;
  auto v = parse_whole(text, out.position, out.side);
  if (!v) return std::unexpected(v.error());
  out.variant = **v;
  return out;
}

Result<PositionRef> parse_position_ref(std::string_view text) {
  PositionRef out;
  auto v = parse_whole(text, out.position, out.side);
  if (!v) return std::unexpected(v.error());
  out.variant = (*v)->get();
  return out;
}

Result<ParsedPosition> parse_position(const VariantPtr& v, std::string_view rest) {
  ParsedPosition out;
  if (auto r = parse_rest(thread_parse(), *v, rest, out.position, out.side); !r) return std::unexpected(r.error());
  out.variant = v;
  return out;
}

std::string format_pits(const Variant& v, const Position& a) {
  std::string s;
  const int south_n = v.south_pits(a);
  for (int i = 0; i < v.pits(); ++i) {
    if (i == south_n) s += '/';
    else if (i > 0) s += ',';
    const auto u = static_cast<std::size_t>(i);
    s += std::to_string(a.pits[u]);
    if (a.marks[u] == Mark::South) s += 'S';
    else if (a.marks[u] == Mark::North) s += 'N';
    else if (a.marks[u] == Mark::Closed) s += 'x';
  }
  return s;
}

std::string format_position(const Variant& v, const Position& normalised, Side side) {
  const Position a = side == Side::South ? normalised : v.rotate(normalised);
  std::string s = v.name() + " " + format_pits(v, a) + " " + side_char(side);
  if (a.flags & kFirstMove) s += " first";
  if (a.flags & kAtappe) s += " atappe";
  if (a.jeppe >= 0) s += " jeppe=" + std::to_string(a.jeppe);
  return s;
}

}  // namespace mancala
