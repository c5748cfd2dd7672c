#include "mancala/rules/kotu_baendum.h"

#include <algorithm>
#include <utility>

#include "mancala/rules/sowing.h"

namespace mancala {

namespace {

constexpr int kEndHoles[4] = {0, 6, 7, 13};

std::size_t u(int i) { return static_cast<std::size_t>(i); }

}  // namespace

Position KotuBaendum::start(int per_pit) const {
  Position p;
  for (int i = 0; i < kPits; ++i) p.pits[u(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  p.flags = kFirstMove;
  return p;
}

Position KotuBaendum::mirror(const Position& p) {
  Position m = p;
  for (int i = 0; i < kPits; ++i) {
    m.pits[u(mirror_pit(i))] = p.pits[u(i)];
    m.marks[u(mirror_pit(i))] = p.marks[u(i)];
  }
  return m;
}

// A lap from `pit`: lift its seeds, drop one per pit counterclockwise. A seed that
// would land on an untied pit holding exactly 3 passes it by unless it is the last in
// hand; a seed dropped on a tie leaves play to the tie's owner. End of the lap, by
// the pit q of the last seed:
//   q tied              -> the turn ends
//   q held 3 (now 4)    -> capture 4; an end hole becomes tied by the mover; the turn ends
//   q held 0 (now 1)    -> the turn ends
//   otherwise           -> relay from q
// Endless: a lap-start state (board, marks, pit) repeats, or a seed that is not the
// last passes every pit (all untied pits hold 3 and there is no tie).
// The detector starts at the 8th lap (most turns end before): the lap-start states
// follow one another deterministically, so they repeat from some lap on iff they
// repeat at all, and the verdict is the same.
bool KotuBaendum::play(Position& p, int pit, int& gain_south, int& gain_north) {
  constexpr int kLapsUnchecked = 8;
  EndlessTurnDetector guard;
  auto& b = p.pits;
  for (int lap = 0;; ++lap) {
    if (lap >= kLapsUnchecked && guard.repeats(p, pit)) return false;
    int hand = b[u(pit)];
    b[u(pit)] = 0;
    int q = pit;
    int passed = 0;
    while (hand > 0) {
      q = (q + 1) % kPits;
      const Mark m = p.marks[u(q)];
      if (m == Mark::South || m == Mark::North) {
        (m == Mark::South ? gain_south : gain_north) += 1;
        --hand;
        passed = 0;
        if (hand == 0) return true;  // sits down in a tie
        continue;
      }
      if (b[u(q)] == 3 && hand > 1) {
        if (++passed >= kPits) return false;  // nowhere to put a seed
        continue;
      }
      passed = 0;
      ++b[u(q)];
      --hand;
    }
    const int before = b[u(q)] - 1;
    if (before == 0) return true;
    if (before == 3) {
      gain_south += 4;
      b[u(q)] = 0;
      if (is_end_hole(q)) p.marks[u(q)] = Mark::South;
      return true;
    }
    pit = q;  // relay
  }
}

// Pit i takes pit i+7 (mod 14); a tie changes owner (South <-> North).
Position KotuBaendum::rotate(const Position& p) const {
  auto turned = [](Mark m) { return m == Mark::South ? Mark::North : m == Mark::North ? Mark::South : m; };
  Position r;
  for (int i = 0; i < kRow; ++i) {
    r.pits[u(i)] = p.pits[u(i + kRow)];
    r.pits[u(i + kRow)] = p.pits[u(i)];
    r.marks[u(i)] = turned(p.marks[u(i + kRow)]);
    r.marks[u(i + kRow)] = turned(p.marks[u(i)]);
  }
  r.flags = p.flags;
  r.jeppe = p.jeppe < 0 ? std::int8_t{-1} : static_cast<std::int8_t>((p.jeppe + kRow) % kPits);
  return r;
}

// rotate(), in place.
void KotuBaendum::turn_in_place(Position& p) {
  auto turned = [](Mark m) { return m == Mark::South ? Mark::North : m == Mark::North ? Mark::South : m; };
  for (int i = 0; i < kRow; ++i) {
    std::swap(p.pits[u(i)], p.pits[u(i + kRow)]);
    const Mark a = p.marks[u(i)], b = p.marks[u(i + kRow)];
    p.marks[u(i)] = turned(b);
    p.marks[u(i + kRow)] = turned(a);
  }
  if (p.jeppe >= 0) p.jeppe = static_cast<std::int8_t>((p.jeppe + kRow) % kPits);
}

// The state of the turned board from the packed one: the 2-bit marks of pits 7..13
// move to pits 0..6 and back (a rotation of the 28 mark bits by 14), and South (01)
// and North (10) swap, i.e. the two bits of every pair swap (00 and 11 stay).
// Example: pit 0 tied by South = 0b01 -> pit 7 tied by North = 0b10 << 14.
ClassKey KotuBaendum::class_of(const Position& p) const {
  const int seeds = p.seeds_in(0, kPits);
  const std::uint64_t s = pack_state(p, kPits);
  if (s == 0) return ClassKey{0, seeds};
  constexpr std::uint64_t kHalf = (std::uint64_t{1} << (2 * kRow)) - 1, kLow = 0x5555555;  // 14 bits; 01 x 14
  const std::uint64_t marks = s & ((kHalf << (2 * kRow)) | kHalf);
  const std::uint64_t moved = (marks >> (2 * kRow)) | ((marks & kHalf) << (2 * kRow));
  const std::uint64_t swapped = ((moved & kLow) << 1) | ((moved >> 1) & kLow);
  const int jeppe = p.jeppe < 0 ? -1 : (p.jeppe + kRow) % kPits;
  const std::uint64_t t = swapped | (std::uint64_t{p.flags} << 48) | (static_cast<std::uint64_t>(jeppe + 1) << 56);
  return ClassKey{std::min(s, t), seeds};
}

void KotuBaendum::children(const Position& p, std::vector<Child>& out) const {
  out.clear();
  // Each child is built where it stays and turned round in place, pit by pit: a
  // turned copy read back whole (32-byte loads of what play() and the turn had
  // just stored byte by byte) waited for the stores to leave the store buffer, and
  // was a third of this function's time.
  auto add = [&](const Position& board, int pit, Move move) {
    Child& c = out.emplace_back();
    c.next = board;
    c.next.flags = 0;
    int gain_south = 0, gain_north = 0;
    if (!play(c.next, pit, gain_south, gain_north)) {  // endless: not a move
      out.pop_back();
      return;
    }
    c.move = move;
    c.gain_mover = static_cast<std::int16_t>(gain_south);
    c.gain_opponent = static_cast<std::int16_t>(gain_north);
    turn_in_place(c.next);
  };
  const auto playable = [&](int i) { return p.pits[u(i)] > 0 && p.marks[u(i)] == Mark::None; };
  if (p.flags & kFirstMove) {
    // Only the end holes 0 and 6, in either direction. Clockwise from j is
    // counterclockwise from mirror_pit(j) on the mirrored board (see the header).
    const Position mirrored = mirror(p);
    for (int j : {0, kRow - 1}) {
      if (!playable(j)) continue;
      add(p, j, Move::sow(j));
      add(mirrored, mirror_pit(j), Move::sow(j).with_clockwise_start());
    }
    return;
  }
  for (int i = 0; i < kRow; ++i)
    if (playable(i)) add(p, i, Move::sow(i));
}

// No legal move: the opponent (who moved last) takes every seed in untied pits.
Value KotuBaendum::terminal_value(const Position& p) const { return static_cast<Value>(-p.seeds_in(0, kPits)); }

std::string KotuBaendum::check(const Position& p) const {
  int total = 0;
  bool tied = false;
  for (int i = 0; i < kPits; ++i) {
    const Mark m = p.marks[u(i)];
    if (m == Mark::Closed) return "pit " + std::to_string(i) + ": kotu-baendum has no closed pits (x)";
    if (m != Mark::None) {
      if (!is_end_hole(i))
        return "pit " + std::to_string(i) + " cannot be tied: only the end holes 0, 6, 7 and 13 can be";
      if (p.pits[u(i)] != 0) return "pit " + std::to_string(i) + " is tied and must be written with 0 seeds";
      tied = true;
    }
    total += p.pits[u(i)];
  }
  if (total > total_seeds())
    return std::to_string(total) + " seeds on the board, but kotu-baendum is played with " + std::to_string(total_seeds());
  if (p.flags & ~kFirstMove) return "kotu-baendum knows only the flag 'first'";
  if ((p.flags & kFirstMove) && tied) return "'first' (the first move of the game) cannot have tied pits";
  if (p.jeppe >= 0) return "kotu-baendum has no jeppe pit";
  return {};
}

// 81 tie states (each end hole open, tied by South, tied by North) x seeds 0..max.
// A move keeps or lowers the seeds in play and keeps every tie, so the order is seeds
// ascending and, for equal seeds, more ties first. A quiet move turns the board round
// and so maps a tie state to its rotation (0 <-> 7, 6 <-> 13, owners exchanged): the
// two classes of a state and its rotation reach each other and are listed together
// (the solver treats such a pair as one class: ClassKey in variant.h).
std::vector<ClassKey> KotuBaendum::classes(int max_seeds) const {
  struct State {
    std::uint64_t state, rotated;
    int ties;
  };
  std::vector<State> states;
  for (int code = 0; code < 81; ++code) {
    Position s;
    int c = code, ties = 0;
    for (int h : kEndHoles) {
      s.marks[u(h)] = static_cast<Mark>(c % 3);
      ties += c % 3 != 0;
      c /= 3;
    }
    states.push_back({pack_state(s, kPits), pack_state(rotate(s), kPits), ties});
  }
  std::sort(states.begin(), states.end(), [](const State& a, const State& b) {
    if (a.ties != b.ties) return a.ties > b.ties;
    const auto pa = std::min(a.state, a.rotated), pb = std::min(b.state, b.rotated);
    return pa != pb ? pa < pb : a.state < b.state;
  });
  std::vector<ClassKey> out;
  for (int n = 0; n <= max_seeds; ++n)
    for (const State& s : states) out.push_back(ClassKey{s.state, n});
  return out;
}

}  // namespace mancala
