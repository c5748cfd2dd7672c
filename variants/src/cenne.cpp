#include "mancala/rules/cenne.h"

#include <algorithm>
#include <climits>

#include "mancala/rules/sowing.h"

namespace mancala {

namespace {

std::size_t u(int i) { return static_cast<std::size_t>(i); }

}  // namespace

// The seed counts at which jeppe states occur, found by playing the few positions
// that have them: an atappe position is fixed by its orientation and the h >= 2 seeds
// put into the rightmost pit (every other pit holds 3), so the positions right after
// the reply (jeppe on the opponent's side) are fixed too, and those one turn later
// (jeppe on the mover's side) are their children.
Cenne::Cenne(int south, int north) : a_(south), b_(north) {
  const int n = a_ + b_;
  min_jeppe_opp_ = min_jeppe_mover_ = INT_MAX;
  std::vector<Child> replies, kids;
  for (int o : {0, 1}) {
    if (o == 1 && a_ == b_) break;
    for (int h = 2; 3 * n + h <= total_seeds(); ++h) {
      Position p;
      p.flags = static_cast<std::uint8_t>(kAtappe | (o ? kFlipped : 0));
      for (int i = 0; i < n; ++i) p.pits[u(i)] = 3;
      p.pits[u(n - 1)] = static_cast<Seeds>(3 + h);
      children(p, replies);
      for (const Child& r : replies) {
        min_jeppe_opp_ = std::min(min_jeppe_opp_, r.next.seeds_in(0, n));
        children(r.next, kids);
        for (const Child& c : kids)
          if (!c.game_over && c.next.jeppe >= 0) min_jeppe_mover_ = std::min(min_jeppe_mover_, c.next.seeds_in(0, n));
      }
    }
  }
}

Position Cenne::start(int per_pit) const {
  Position p;
  for (int i = 0; i < pits(); ++i) p.pits[u(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}

// One turn. A lap lifts every seed of a pit and drops one per pit along the circuit;
// a pit holding 3 (murte) is passed by unless the seed is the last in hand. End of
// the lap, by what the pit q of the last seed held before it:
//   0 -> the turn ends
//   3 -> wanasu: capture the 4; the next pit empty -> the turn ends, else a new lap
//        from the next pit with all its seeds
//   otherwise -> relay from q
// If a seed that is not the last passes every pit (all hold 3), the seeds in hand go
// into the mover's rightmost pit and the turn ends (atappe). A repeated lap-start
// state (board, pit) is an endless turn.
constexpr int kLapsUnchecked = 8;

Cenne::Turn Cenne::play(Position& p, int pit) const {
  const int n = pits();
  const int sp = south_pits(p);
  auto& b = p.pits;
  Turn t;
  // The detector starts after a few laps (most turns end before): a turn is endless
  // iff its lap-start states repeat from some lap on, so the verdict is the same.
  EndlessTurnDetector guard;
  for (int lap = 0;; ++lap) {
    if (lap >= kLapsUnchecked && guard.repeats(p, pit)) {
      t.endless = true;
      return t;
    }
    int hand = b[u(pit)];
    b[u(pit)] = 0;
    int q = pit;
    int passed = 0;
    while (hand > 0) {
      q = q + 1 == n ? 0 : q + 1;
      if (b[u(q)] == 3 && hand > 1) {
        if (++passed >= n) {  // atappe
          b[u(sp - 1)] = static_cast<Seeds>(b[u(sp - 1)] + hand);
          t.atappe = true;
          return t;
        }
        continue;
      }
      passed = 0;
      ++b[u(q)];
      --hand;
      if (q >= sp) t.dropped_opponent = true;
    }
    const int before = b[u(q)] - 1;
    if (before == 0) return t;
    if (before == 3) {  // wanasu
      t.captured += 4;
      b[u(q)] = 0;
      const int next = q + 1 == n ? 0 : q + 1;
      if (b[u(next)] == 0) return t;
      pit = next;
      continue;
    }
    pit = q;  // relay
  }
}

// The forced reply to an atappe (not sowing along the circuit): r = the mover's
// rightmost pit, 3 seeds: one to the opponent's rightmost pit n-1, one back into r,
// one into r-1, which then holds 4 and is captured. r becomes the jeppe.
bool Cenne::reply(const Position& p, Child& c) const {
  const int n = pits();
  const int r = south_pits(p) - 1;
  if (p.pits[u(r)] != 3 || p.pits[u(r - 1)] != 3) return false;  // not a position an atappe leaves
  Position q = p;
  q.flags = static_cast<std::uint8_t>(q.flags & ~kAtappe);
  q.pits[u(n - 1)] = static_cast<Seeds>(q.pits[u(n - 1)] + 1);
  q.pits[u(r)] = 1;
  q.pits[u(r - 1)] = 0;
  q.jeppe = static_cast<std::int8_t>(r);
  c.move = Move::forced(r);
  c.gain_mover = 4;
  c.next = rotate(q);
  return true;
}

bool Cenne::claim_search(const Position& p, int turns_left, bool first) const {
  if (turns_left == 0) return true;
  const int sp = south_pits(p);
  const int banned = first && p.jeppe >= 0 && p.jeppe < sp ? p.jeppe : -1;
  for (int i = 0; i < sp; ++i) {
    if (p.pits[u(i)] == 0 || i == banned) continue;
    Position q = p;
    const Turn t = play(q, i);
    if (t.endless || t.dropped_opponent) continue;
    if (claim_search(q, turns_left - 1, false)) return true;
  }
  return false;
}

bool Cenne::claim_available(const Position& p) const { return !(p.flags & kAtappe) && claim_search(p, 4, true); }

void Cenne::children(const Position& p, std::vector<Child>& out) const { sow_children(p, out, true); }

void Cenne::sow_children(const Position& p, std::vector<Child>& out, bool with_claim) const {
  out.clear();
  if (p.flags & kAtappe) {
    Child c;
    if (reply(p, c)) out.push_back(c);
    return;
  }
  const int n = pits();
  const int sp = south_pits(p);
  const bool jeppe_mine = p.jeppe >= 0 && p.jeppe < sp;  // forbids that pit now, then ends
  for (int i = 0; i < sp; ++i) {
    if (p.pits[u(i)] == 0 || (jeppe_mine && i == p.jeppe)) continue;
    Child c;
    Position q = p;
    if (jeppe_mine) q.jeppe = -1;
    const Turn t = play(q, i);
    if (t.endless) continue;
    if (t.atappe) {
      q.flags = static_cast<std::uint8_t>(q.flags | kAtappe);
      q.jeppe = -1;  // the forced reply sets a new one
    }
    c.move = Move::sow(i);
    c.gain_mover = static_cast<std::int16_t>(t.captured);
    c.next = rotate(q);
    out.push_back(c);
  }
  if (with_claim && !out.empty() && claim_search(p, 4, true)) {
    Child c;
    c.move = Move::claim();
    c.gain_mover = static_cast<std::int16_t>(p.seeds_in(0, n));
    c.game_over = true;
    c.next = p;
    out.push_back(c);
  }
}

// No legal move at the start of the turn: the opponent takes every seed left.
Value Cenne::terminal_value(const Position& p) const { return static_cast<Value>(-p.seeds_in(0, pits())); }

// pit i of the turned board = pit (i + sp) of this one; jeppe follows its pit.
Position Cenne::rotate(const Position& p) const {
  const int n = pits();
  const int sp = south_pits(p);
  Position r;
  for (int i = 0, j = sp; i < n; ++i, j = j + 1 == n ? 0 : j + 1) r.pits[u(i)] = p.pits[u(j)];
  r.flags = static_cast<std::uint8_t>(a_ != b_ ? p.flags ^ kFlipped : p.flags);
  r.jeppe = p.jeppe < 0 ? std::int8_t{-1} : static_cast<std::int8_t>((p.jeppe - sp + n) % n);
  return r;
}

// pack_state without marks: flags << 48 | (jeppe + 1) << 56; turned round, the
// flags flip kFlipped (unequal rows) and the jeppe moves as in rotate().
ClassKey Cenne::class_of(const Position& p) const {
  const int n = pits();
  const int seeds = p.seeds_in(0, n);
  auto pack = [](int flags, int jeppe) {
    return (static_cast<std::uint64_t>(flags) << 48) | (static_cast<std::uint64_t>(jeppe + 1) << 56);
  };
  const std::uint64_t s = pack(p.flags, p.jeppe);
  if (s == 0) return ClassKey{0, seeds};
  const int sp = south_pits(p);
  const std::uint64_t t = pack(a_ != b_ ? p.flags ^ kFlipped : p.flags, p.jeppe < 0 ? -1 : (p.jeppe - sp + n) % n);
  return ClassKey{std::min(s, t), seeds};
}

std::string Cenne::check(const Position& p) const {
  const int n = pits();
  const int sp = south_pits(p);
  int total = 0;
  for (int i = 0; i < n; ++i) {
    if (p.marks[u(i)] != Mark::None) return "pit " + std::to_string(i) + ": cenne has no tied, bull or closed pits";
    total += p.pits[u(i)];
  }
  if (total > total_seeds())
    return std::to_string(total) + " seeds on the board, but " + name() + " is played with " +
           std::to_string(total_seeds()) + " (4 in each of the " + std::to_string(n) + " pits in play)";
  if (p.flags & kFirstMove) return "cenne has no 'first' flag";
  if ((p.flags & kFlipped) && a_ == b_) return "flipped orientation on a board with equal sides";
  if (p.flags & kAtappe) {
    if (p.jeppe >= 0) return "an atappe position has no jeppe: the forced reply makes a new one";
    // Every pit holds 3 except the rightmost pit of the player who made the atappe
    // (3 + the 2 or more seeds he had in hand).
    bool ok = false;
    for (int atappe_pit : {sp - 1, n - 1}) {
      bool fits = p.pits[u(atappe_pit)] >= 5;
      for (int i = 0; i < n; ++i)
        if (i != atappe_pit && p.pits[u(i)] != 3) fits = false;
      ok = ok || fits;
    }
    if (!ok)
      return "atappe: every pit in play must hold 3 except the rightmost pit of the player who made it (5 or more)";
  }
  if (p.jeppe >= 0 && p.jeppe != sp - 1 && p.jeppe != n - 1)
    return "jeppe=" + std::to_string(p.jeppe) + ": only a player's rightmost pit in play (" + std::to_string(sp - 1) +
           " or " + std::to_string(n - 1) + ") can be a jeppe";
  return {};
}

// Classes: (orientation, atappe / jeppe state, seeds). For each seed count, in an
// order where every class comes after those its moves reach:
//   atappe       -> its reply captures 4 (fewer seeds)
//   plain        -> plain (<= seeds, the other orientation), atappe (same seeds)
//   jeppe        -> plain (<= seeds), jeppe (<= seeds), atappe (same seeds)
// With A != B the plain classes of the two orientations reach each other with equal
// seeds (every quiet move turns the board round) and are listed together; the
// solver treats the pair as one class (ClassKey in variant.h).
// One jeppe class holds both jeppe states: class_of() keys a position by the lesser
// of its state and its turned state, and a jeppe on the mover's side (pit sp-1) is,
// turned round, a jeppe on the opponent's side (pit n-1). Its jeppe-on-the-opponent's-
// side positions hold every distribution of their seeds and their turns capture down
// to any lower count keeping the jeppe, so once one jeppe class is listed, the jeppe
// classes of every lower count are listed too. Atappe classes are listed only from the
// seed count at which they occur; tabled() says true for the states and counts that
// occur in play (jeppe classes below min_seeds_jeppe_mover() are solved for closure).
std::vector<ClassKey> Cenne::classes(int max_seeds) const {
  const int n = pits();
  std::vector<std::uint8_t> orientations = {0};
  if (a_ != b_) orientations.push_back(kFlipped);
  auto key = [&](std::uint8_t flags, int jeppe, int seeds) {
    Position s;
    s.flags = flags;
    s.jeppe = static_cast<std::int8_t>(jeppe);
    return ClassKey{pack_state(s, n), seeds};
  };
  // Closure (above): the jeppe classes of every count once the first one is in reach.
  const int jeppe_from = max_seeds >= std::min(min_jeppe_mover_, min_jeppe_opp_) ? 0 : INT_MAX;
  std::vector<ClassKey> out;
  for (int s = 0; s <= std::min(max_seeds, total_seeds()); ++s) {
    if (s >= min_seeds_atappe())
      for (auto o : orientations) out.push_back(key(static_cast<std::uint8_t>(o | kAtappe), -1, s));
    for (auto o : orientations) out.push_back(key(o, -1, s));
    if (s >= jeppe_from && s <= total_seeds() - 4)
      for (auto o : orientations) out.push_back(key(o, (o ? b_ : a_) - 1, s));
  }
  return out;
}

bool Cenne::tabled(const Position& p) const {
  const int n = pits();
  const int s = p.seeds_in(0, n);
  if (p.flags & kFirstMove) return false;
  if ((p.flags & kFlipped) && a_ == b_) return false;
  if (p.flags & kAtappe) return p.jeppe < 0 && s >= min_seeds_atappe();
  if (p.jeppe < 0) return true;
  if (s > total_seeds() - 4) return false;
  if (p.jeppe == n - 1) return s >= min_jeppe_opp_;
  if (p.jeppe == south_pits(p) - 1) return s >= min_jeppe_mover_;
  return false;
}

}  // namespace mancala
