// mancala-tb picture: an SVG of a position with every legal move's value from the
// tables written at its pit and the best move highlighted.
//
// Geometry. Two-row boards: South's row at the bottom, pits 0..k-1 left to right;
// North's row at the top, pits k..n-1 right to left (docs/rules/README.md). Cenne is
// drawn on its 7-column board: each side's pits in play are its leftmost ones, the
// dead pits are greyed. Imbelece has three rows (docs/rules/imbelece.md): South's outer
// row at the bottom (0..5), North's at the top (8..13, right to left) and the central
// row, from the left: 15, 14, the store, 6, 7. Stores (Kalah, Kotu-baendum, Cenne) are
// drawn at the ends, empty: captured seeds do not count in a value.
//
// Each move's badge is a <g class="move"> carrying data-move (its name as probe
// prints it), data-value (the margin, or win/draw/loss) and data-depth (plies, win/
// loss games), so a program can read the picture back (tests/cli/test_picture.py).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "mancala/probe.h"

namespace mancala::cli {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

// A value as short text for a badge ("+3", "W7", "D") and as data attributes.
std::string short_value(GameKind kind, Value v) {
  char buf[16];
  if (kind == GameKind::Score) std::snprintf(buf, sizeof buf, v > 0 ? "+%d" : "%d", v);
  else if (v == 0) std::snprintf(buf, sizeof buf, "D");
  else std::snprintf(buf, sizeof buf, "%c%d", v > 0 ? 'W' : 'L', plies_of(v));
  return buf;
}
std::string data_value(GameKind kind, Value v) {
  if (kind == GameKind::Score) return "data-value=\"" + std::to_string(v) + "\"";
  return std::string("data-value=\"") + (v > 0 ? "win" : v < 0 ? "loss" : "draw") + "\" data-depth=\"" +
         std::to_string(plies_of(v)) + "\"";
}

constexpr double kPitR = 27, kStep = 70, kMargin = 24, kStoreW = 52, kTitleH = 58, kBadgeH = 18;

struct Spot {
  double x = 0, y = 0;
  bool badge_below = true;  // where the move badges of this pit go
};

struct Board {
  std::vector<Spot> pits;             // per absolute pit
  std::vector<Spot> dead;             // Cenne pits out of play
  std::vector<std::pair<Spot, double>> stores;  // centre, width
  double width = 0, board_top = 0, board_bottom = 0;
  double left = 0, right = 0;
};

Board layout(const Variant& v, const Position& absolute, int badge_lines) {
  Board b;
  const int n = v.pits();
  const double room = badge_lines * kBadgeH + 8;  // badges outside the board
  b.board_top = kTitleH + room;
  if (v.id() == VariantId::Imbelece) {
    const double x0 = kMargin + kStep / 2;
    const double yt = b.board_top + kStep / 2, ym = yt + kStep + room, yb = ym + kStep + room;
    b.pits.resize(16);
    for (int i = 0; i < 6; ++i) {
      b.pits[static_cast<std::size_t>(i)] = {x0 + i * kStep, yb, true};
      b.pits[static_cast<std::size_t>(8 + i)] = {x0 + (5 - i) * kStep, yt, false};
    }
    b.pits[6] = {x0 + 3.5 * kStep, ym, true};
    b.pits[7] = {x0 + 5 * kStep, ym, true};
    b.pits[14] = {x0 + 1.5 * kStep, ym, false};
    b.pits[15] = {x0, ym, false};
    b.stores.push_back({{x0 + 2.5 * kStep, ym, true}, kStoreW});
    b.left = kMargin;
    b.right = kMargin + 6 * kStep;
    b.board_bottom = yb + kStep / 2;
    b.width = b.right + kMargin;
    return b;
  }
  const int ks = v.south_pits(absolute), kn = n - ks;
  const bool cenne = v.id() == VariantId::Cenne;
  const int cols = cenne ? 7 : std::max(ks, kn);
  const bool stores = cenne || v.id() == VariantId::Kalah || v.id() == VariantId::KotuBaendum;
  b.left = kMargin;
  const double x0 = b.left + (stores ? kStoreW + 8 : 0) + kStep / 2;
  const double yt = b.board_top + kStep / 2, yb = yt + kStep;
  b.pits.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < ks; ++i) b.pits[static_cast<std::size_t>(i)] = {x0 + i * kStep, yb, true};
  for (int j = 0; j < kn; ++j) b.pits[static_cast<std::size_t>(ks + j)] = {x0 + (cols - 1 - j) * kStep, yt, false};
  for (int c = ks; c < cols; ++c) b.dead.push_back({x0 + c * kStep, yb, true});
  for (int c = 0; c < cols - kn; ++c) b.dead.push_back({x0 + c * kStep, yt, false});
  b.right = x0 + (cols - 0.5) * kStep + (stores ? kStoreW + 8 : 0);
  if (stores) {
    b.stores.push_back({{b.left + kStoreW / 2, (yt + yb) / 2, false}, kStoreW});   // North's
    b.stores.push_back({{b.right - kStoreW / 2, (yt + yb) / 2, true}, kStoreW});   // South's
  }
  b.board_bottom = yb + kStep / 2;
  b.width = b.right + kMargin;
  return b;
}

// Where each pit of the normalised position (the mover's view) is on the board as
// written (South at the bottom): tag every pit with its number and turn the board.
std::vector<int> absolute_pits(const Variant& v, const Position& normalised, Side side) {
  Position t = normalised;
  for (int i = 0; i < v.pits(); ++i) t.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(i);
  const Position a = side == Side::South ? t : v.rotate(t);
  std::vector<int> where(static_cast<std::size_t>(v.pits()));
  for (int i = 0; i < v.pits(); ++i) where[a.pits[static_cast<std::size_t>(i)]] = i;
  return where;
}

std::string mark_label(const Variant& v, Mark m) {
  const std::string who = m == Mark::South ? "S" : "N";
  return (v.id() == VariantId::Enkeshui ? "bull " : "tie ") + who;
}

}  // namespace

std::string board_svg(const Variant& v, const Position& normalised, Side side, const ProbeResult& r) {
  const Position a = side == Side::South ? normalised : v.rotate(normalised);
  const std::vector<int> where = absolute_pits(v, normalised, side);
  const GameKind kind = v.kind();
  const Value best = r.moves.empty() ? 0 : r.moves.front().value;
  // Moves per absolute pit (Enkeshui's lap choices and Kotu-baendum's first-lap
  // direction give several moves from one pit); claims and passes have no pit.
  std::map<int, std::vector<std::size_t>> at_pit;
  std::vector<std::size_t> no_pit;
  for (std::size_t i = 0; i < r.moves.size(); ++i) {
    const Move m = r.moves[i].move;
    if (m.kind() == Move::Sow || m.kind() == Move::Forced) at_pit[where[static_cast<std::size_t>(m.pit())]].push_back(i);
    else no_pit.push_back(i);
  }
  std::size_t lines = 1;
  for (const auto& [pit, ms] : at_pit) lines = std::max(lines, std::min<std::size_t>(ms.size(), 4));
  const Board b = layout(v, a, static_cast<int>(lines));
  const double legend_top = b.board_bottom + static_cast<double>(lines) * kBadgeH + 20;
  const std::size_t legend_lines = 2 + r.moves.size();
  const double height = legend_top + static_cast<double>(legend_lines) * 16 + kMargin;
  const std::size_t legend_chars = 72;
  const double width = std::max(b.width, 2 * kMargin + 6.3 * static_cast<double>(legend_chars));

  std::ostringstream o;
  const std::string position = format_position(v, normalised, side);
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
    << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\""
    << " data-position=\"" << xml_escape(position) << "\" " << data_value(kind, r.value) << ">\n"
    << "<title>" << xml_escape(position) << "</title>\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"#fbf7ef\"/>\n";
  // Title: the position, the value, who moves and the flags.
  std::string who = std::string(side == Side::South ? "South" : "North") + " to move";
  std::string state;
  if (a.flags & kFirstMove) state += ", first move of the game";
  if (a.flags & kAtappe) state += ", atappe: the forced reply is due";
  if (a.jeppe >= 0) state += ", jeppe at pit " + std::to_string(a.jeppe);
  o << "<text x=\"" << num(kMargin) << "\" y=\"22\" font-size=\"14\" font-weight=\"bold\">" << xml_escape(position)
    << "</text>\n"
    << "<text x=\"" << num(kMargin) << "\" y=\"42\" font-size=\"13\">value " << xml_escape(value_text(kind, r.value))
    << " for " << who << xml_escape(state)
    << (r.from_children ? " (from its moves)" : "") << (r.moves.empty() ? "; no legal move: the game is over" : "")
    << "</text>\n";
  // The board.
  o << "<rect x=\"" << num(b.left) << "\" y=\"" << num(b.board_top) << "\" width=\"" << num(b.right - b.left)
    << "\" height=\"" << num(b.board_bottom - b.board_top) << "\" rx=\"22\" fill=\"#c89b5e\" stroke=\"#7a5230\" "
    << "stroke-width=\"2\"/>\n";
  for (const auto& [s, w] : b.stores)
    o << "<rect class=\"store\" x=\"" << num(s.x - w / 2 + 4) << "\" y=\"" << num(s.y - kPitR * 1.6) << "\" width=\""
      << num(w - 8) << "\" height=\"" << num(kPitR * 3.2) << "\" rx=\"" << num(w / 2 - 4)
      << "\" fill=\"#9c6b3a\" stroke=\"#6b4423\"/>\n";
  for (const Spot& s : b.dead)
    o << "<g class=\"dead\"><circle cx=\"" << num(s.x) << "\" cy=\"" << num(s.y) << "\" r=\"" << num(kPitR)
      << "\" fill=\"#b9b2a6\" stroke=\"#8f887c\" stroke-dasharray=\"4 3\"/><text x=\"" << num(s.x) << "\" y=\""
      << num(s.y + 4) << "\" font-size=\"10\" text-anchor=\"middle\" fill=\"#5f594f\">out</text></g>\n";
  const int ks = v.id() == VariantId::Imbelece ? 8 : v.south_pits(a);
  const bool mover_south = side == Side::South;
  for (int i = 0; i < v.pits(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    const Spot& s = b.pits[u];
    const Mark m = a.marks[u];
    const bool movers = (i < ks) == mover_south;
    const auto it = at_pit.find(i);
    const bool is_best = it != at_pit.end() && r.moves[it->second.front()].value == best;
    const bool first_best = it != at_pit.end() && it->second.front() == 0;
    const char *fill = movers ? "#6e4522" : "#7d5330", *stroke = "#4a2d14", *sw = "1.5", *dash = "";
    if (m == Mark::South) fill = "#2f6fb0";
    if (m == Mark::North) fill = "#b03a2e";
    if (m == Mark::Closed) fill = "#333333";
    if (a.jeppe == i) stroke = "#ff8c00", sw = "4", dash = " stroke-dasharray=\"6 4\"";
    if (is_best) stroke = "#f2b705", sw = first_best ? "6" : "3", dash = "";
    o << "<g class=\"pit\" data-pit=\"" << i << "\"><circle cx=\"" << num(s.x) << "\" cy=\"" << num(s.y) << "\" r=\""
      << num(kPitR) << "\" fill=\"" << fill << "\" stroke=\"" << stroke << "\" stroke-width=\"" << sw << "\"" << dash
      << "/>";
    if (m == Mark::Closed)
      o << "<path d=\"M" << num(s.x - 12) << " " << num(s.y - 12) << " l24 24 m0 -24 l-24 24\" stroke=\"#eeeeee\" "
        << "stroke-width=\"3\"/>";
    // A marked pit holds no live seeds: its mark instead of a number; a closed pit its X.
    if (m == Mark::None)
      o << "<text x=\"" << num(s.x) << "\" y=\"" << num(s.y + (a.jeppe == i ? 3 : 7)) << "\" font-size=\""
        << (a.jeppe == i ? 16 : 20) << "\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#ffffff\">"
        << static_cast<int>(a.pits[u]) << "</text>";
    if (m == Mark::South || m == Mark::North)
      o << "<text x=\"" << num(s.x) << "\" y=\"" << num(s.y + 4) << "\" font-size=\"12\" font-weight=\"bold\" "
        << "text-anchor=\"middle\" fill=\"#ffffff\">" << mark_label(v, m) << "</text>";
    if (a.jeppe == i && m == Mark::None)
      o << "<text x=\"" << num(s.x) << "\" y=\"" << num(s.y + 17) << "\" font-size=\"9\" text-anchor=\"middle\" "
        << "fill=\"#ffffff\">jeppe</text>";
    o << "<text x=\"" << num(s.x + kPitR - 2) << "\" y=\"" << num(s.y - kPitR + 6) << "\" font-size=\"8\" "
      << "fill=\"#3b250f\">" << i << "</text></g>\n";
    if (it == at_pit.end()) continue;
    // The badges: one line per move from this pit (at most 4; the legend has all).
    const auto& ms = it->second;
    for (std::size_t k = 0; k < ms.size() && k < 4; ++k) {
      const MoveValue& mv = r.moves[ms[k]];
      const bool top = mv.value == best;
      std::string text = short_value(kind, mv.value);
      if (ms.size() > 1) {
        const std::string name = v.move_name(mv.move);
        const auto colon = name.find(':');
        text = (colon == std::string::npos ? name : name.substr(colon + 1)) + " " + text;
      }
      if (k == 3 && ms.size() > 4) text = std::to_string(ms.size() - 3) + " more";
      const double y = s.badge_below ? s.y + kPitR + 4 + static_cast<double>(k) * kBadgeH
                                     : s.y - kPitR - 4 - static_cast<double>(k + 1) * kBadgeH;
      const double w = std::max(40.0, 7.0 * static_cast<double>(text.size()) + 10);
      o << "<g class=\"move\" data-move=\"" << xml_escape(v.move_name(mv.move)) << "\" " << data_value(kind, mv.value)
        << (ms[k] == 0 ? " data-best=\"true\"" : "") << "><rect x=\"" << num(s.x - w / 2) << "\" y=\"" << num(y)
        << "\" width=\"" << num(w) << "\" height=\"" << num(kBadgeH - 2) << "\" rx=\"4\" fill=\""
        << (top ? "#f2b705" : "#ffffff") << "\" stroke=\"#4a2d14\" stroke-width=\"0.8\"/><text x=\"" << num(s.x)
        << "\" y=\"" << num(y + 12) << "\" font-size=\"11\" text-anchor=\"middle\""
        << (ms[k] == 0 ? " font-weight=\"bold\"" : "") << ">" << xml_escape(text) << "</text></g>\n";
    }
  }
  // The legend: every move, best first (the moves without a pit too: claim, pass).
  double y = legend_top;
  o << "<text x=\"" << num(kMargin) << "\" y=\"" << num(y) << "\" font-size=\"12\" font-weight=\"bold\">"
    << (r.moves.empty() ? "no legal move" : "moves, best first: the value for the mover (gains + the value after it)")
    << "</text>\n";
  for (std::size_t i = 0; i < r.moves.size(); ++i) {
    const MoveValue& mv = r.moves[i];
    y += 16;
    const bool pitless = std::find(no_pit.begin(), no_pit.end(), i) != no_pit.end();
    std::string line = "move " + v.move_name(mv.move) + ": " + value_text(kind, mv.value);
    if (kind == GameKind::Score)
      line += ", gains " + std::to_string(mv.child.gain_mover) + "/" + std::to_string(mv.child.gain_opponent);
    if (i == 0) line += "  (best)";
    if (pitless)  // the only place such a move is shown: it carries the data too
      o << "<g class=\"move\" data-move=\"" << xml_escape(v.move_name(mv.move)) << "\" " << data_value(kind, mv.value)
        << (i == 0 ? " data-best=\"true\"" : "") << ">";
    o << "<text x=\"" << num(kMargin) << "\" y=\"" << num(y) << "\" font-size=\"11\""
      << (mv.value == best ? " fill=\"#8a6200\" font-weight=\"bold\"" : "") << ">" << xml_escape(line) << "</text>"
      << (pitless ? "</g>" : "") << "\n";
  }
  y += 16;
  std::string key = "gold: the best value; small numbers: pit numbers along the circuit";
  bool ties = false, closed = false;
  for (int i = 0; i < v.pits(); ++i) {
    ties = ties || a.marks[static_cast<std::size_t>(i)] == Mark::South || a.marks[static_cast<std::size_t>(i)] == Mark::North;
    closed = closed || a.marks[static_cast<std::size_t>(i)] == Mark::Closed;
  }
  if (ties) key += v.id() == VariantId::Enkeshui ? "; blue/red: South's/North's bulls" : "; blue/red: South's/North's ties";
  if (kind == GameKind::WinLoss) key += "; W/L n: win/loss in n plies, D: draw";
  if (closed) key += "; X: closed pit";
  if (a.jeppe >= 0) key += "; dashed orange: the jeppe";
  if (!b.dead.empty()) key += "; grey: out of play";
  o << "<text x=\"" << num(kMargin) << "\" y=\"" << num(y) << "\" font-size=\"9\" fill=\"#6b5a44\">" << key
    << "</text>\n";
  o << "</svg>\n";
  return o.str();
}

int run_picture(const std::string& dir, const std::vector<std::string>& words, const std::string& out) {
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
  const ParsedPosition pp = position_or_throw(text);
  auto tb = Tablebase::open(dir);
  if (!tb) throw std::runtime_error(tb.error().message);  // a failure (exit 1, "error:"), as probe
  const auto r = (*tb)->probe(*pp.variant, pp.position);
  if (!r) throw std::runtime_error(r.error().message);
  const std::string svg = board_svg(*pp.variant, pp.position, pp.side, *r);
  if (out.empty() || out == "-") {
    std::fputs(svg.c_str(), stdout);
    return 0;
  }
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f << svg;
  if (!f.flush()) throw std::runtime_error("cannot write " + out);
  return 0;
}

void add_picture_command(CLI::App& root, std::vector<Command>& out) {
  struct State {
    std::string dir, out;
    std::vector<std::string> position;
  };
  auto st = std::make_shared<State>();
  CLI::App* c = add_command(
      root, "picture", "an SVG of a position with every move's value from the tables",
      {"mancala-tb picture DIR POSITION [--out FILE.svg]",
       "An SVG picture of POSITION (VARIANT PITS SIDE [FLAGS], one argument or split) with\n"
       "every legal move's value from the tables in DIR written at its pit, the best move in\n"
       "gold, and a legend of every move (best first, as probe lists them). Ties, bulls,\n"
       "closed pits, a jeppe and Cenne's pits out of play are drawn; Imbelece on its three\n"
       "rows. Each move's badge carries data-move and data-value (data-depth for win/loss\n"
       "games) for programs.",
       {"mancala-tb generate kalah:6:empty --max-seeds 10 --out tb/",
        "mancala-tb picture tb/ \"kalah:6:empty 1,0,3,0,2,1/0,2,0,1,0,0 S\" --out board.svg"},
       ""});
  c->add_option("DIR", st->dir, "table folder made by `mancala-tb generate`");
  c->add_option("POSITION", st->position, "VARIANT PITS SIDE [FLAGS], one argument or split");
  c->add_option("--out", st->out, "write the SVG to FILE (default: standard output)");
  out.push_back({c, [st] {
                   if (st->dir.empty() || st->position.empty()) throw UsageError("picture needs DIR and a POSITION (see --help)");
                   return run_picture(st->dir, split_words(st->position), st->out);
                 }});
}

}  // namespace mancala::cli
