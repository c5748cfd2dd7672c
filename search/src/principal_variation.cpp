// The one principal-variation builder of every engine (engine.h): from each position
// of the line, the first move in the engine's order that reaches the position's value
// and repeats no position of the line.
#include <algorithm>

#include "engine.h"

namespace mancala::search_detail {

void principal_variation(Engine& e, Ctx& c, const Position& root, int value, SearchResult& out) {
  const Variant& variant = *e.variant;
  Position cur = root;
  int val = value;
  std::vector<Position> seen;
  for (int step = 0; step < 2000; ++step) {
    std::vector<Child> kids;
    variant.children(cur, kids);
    if (kids.empty()) {
      out.pv_end = "game over";
      return;
    }
    int chosen = -1, repeat = -1;
    for (int i : e.move_order(c, cur, kids)) {
      const Child& ch = kids[static_cast<std::size_t>(i)];
      const int r = e.reaches(c, ch, val);
      if (r == kStop) return;
      if (r == 0) continue;
      if (!ch.game_over && std::find(seen.begin(), seen.end(), ch.next) != seen.end()) {
        if (repeat < 0) repeat = i;
        continue;
      }
      chosen = i;
      break;
    }
    if (chosen < 0 && repeat >= 0) {
      out.pv.push_back(kids[static_cast<std::size_t>(repeat)]);
      out.pv_end = val == 0 ? "endless play" : "cut: every optimal move repeats a position of the line";
      return;
    }
    if (chosen < 0) {
      out.pv_end = "internal error: no move reaches the value";
      return;
    }
    const Child ch = kids[static_cast<std::size_t>(chosen)];
    out.pv.push_back(ch);
    if (ch.game_over) {
      out.pv_end = "game over";
      return;
    }
    seen.push_back(cur);
    if (e.kind == GameKind::WinLoss) {
      val = e.value(c, ch.next, "principal variation");
      if (val == kStop) return;
    } else {
      const int base = ch.gain_mover - ch.gain_opponent;
      val = ch.same_side ? val - base : base - val;
    }
    cur = ch.next;
  }
  out.pv_end = "limit";
}

}  // namespace mancala::search_detail
