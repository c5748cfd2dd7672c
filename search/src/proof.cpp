// Depth-bounded proof search for win/loss games (see proof.h).
#include "mancala/proof.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <unordered_map>

namespace mancala {

namespace {

using Clock = std::chrono::steady_clock;

// One predicate at one position: the smallest depth proven true, the largest proven false.
struct Known {
  std::int16_t yes = INT16_MAX, no = -1;
  std::optional<bool> at(int d) const {
    if (yes <= d) return true;
    if (no >= d) return false;
    return std::nullopt;
  }
  void record(int d, bool r) {
    if (r) yes = static_cast<std::int16_t>(std::min<int>(yes, d));
    else no = static_cast<std::int16_t>(std::max<int>(no, d));
  }
};
struct Bounds {
  Known win, loss;
};

class Prover {
 public:
  Prover(VariantPtr v, ProofOptions o) : v_(std::move(v)), opt_(std::move(o)) {
    // unordered_map node: the position, the bounds, a next pointer and a bucket slot.
    constexpr std::uint64_t kBytesPerEntry = sizeof(Position) + sizeof(Bounds) + 32;
    limit_ = std::max<std::uint64_t>(1024, opt_.tt_bytes / kBytesPerEntry);
    kids_.resize(static_cast<std::size_t>(std::clamp(opt_.max_plies, 0, 2000)) + 2);  // never reallocated: references stay valid
    start_ = Clock::now();
  }

  // W(p, d) and L(q, d) of proof.h, memoised.
  bool win(const Position& p, int d, int ply) {
    if (d <= 0) return false;
    if (const auto known = lookup(p, &Bounds::win, d)) return *known;
    if (!tick()) return false;  // stopped: nothing below is recorded, the depth is discarded
    std::vector<Child>& kids = kids_at(ply);
    v_->children(p, kids);
    bool r = false;
    for (std::size_t i = 0; i < kids.size() && !r && !stop_; ++i)
      if (!kids[i].game_over) r = loss(kids[i].next, d - 1, ply + 1);
    if (stop_) return false;
    entry(p).win.record(d, r);
    return r;
  }

  bool loss(const Position& q, int d, int ply) {
    if (d < 0) return false;
    if (const auto known = lookup(q, &Bounds::loss, d)) return *known;
    if (!tick()) return false;
    std::vector<Child>& kids = kids_at(ply);
    v_->children(q, kids);
    bool r = true;  // no move: lost now
    if (!kids.empty()) {
      if (d == 0) {
        r = false;
      } else {
        for (std::size_t i = 0; i < kids.size() && r && !stop_; ++i)
          r = !kids[i].game_over && win(kids[i].next, d - 1, ply + 1);
      }
    }
    if (stop_) return false;
    entry(q).loss.record(d, r);
    return r;
  }

  // A line of optimal moves from p, which is won (win = true) or lost in d plies.
  void line(Position p, bool won, int d, std::vector<Child>& pv) {
    for (; d > 0 && !stop_; --d, won = !won) {
      std::vector<Child> kids;
      v_->children(p, kids);
      const Child* pick = nullptr;
      for (const Child& c : kids) {
        if (c.game_over) continue;
        // Won in d: a move to a position lost in exactly d - 1 (no shorter loss exists,
        // or p would win sooner). Lost in d: a move to a position won in exactly d - 1.
        const bool ok = won ? loss(c.next, d - 1, 0) && (d < 2 || !loss(c.next, d - 2, 0))
                            : win(c.next, d - 1, 0) && (d < 2 || !win(c.next, d - 2, 0));
        if (ok) {
          pick = &c;
          break;
        }
      }
      if (!pick || stop_) return;  // no pick: cannot happen for a proven result; stop_: the line so far
      pv.push_back(*pick);
      p = pick->next;
    }
  }

  // Why the search stopped (the budget), or nothing.
  std::optional<Error::Code> stopped() const { return stop_; }
  std::uint64_t nodes() const { return nodes_; }
  std::uint64_t positions() const { return tt_.size(); }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  std::optional<bool> lookup(const Position& p, Known Bounds::*which, int d) const {
    const auto it = tt_.find(p);
    return it == tt_.end() ? std::nullopt : (it->second.*which).at(d);
  }
  Bounds& entry(const Position& p) {
    if (tt_.size() >= limit_) tt_.clear();  // a cache: every stored bound is a proof, dropping them is safe
    return tt_[p];
  }
  std::vector<Child>& kids_at(int ply) { return kids_[static_cast<std::size_t>(ply)]; }
  // Counts a node; false once the budget is spent (polled every 1024 nodes; sticky).
  bool tick() {
    if (stop_) return false;
    if ((++nodes_ & 0x3FF) != 0) return true;
    stop_ = opt_.budget.stop_code();
    return !stop_;
  }

  VariantPtr v_;
  ProofOptions opt_;
  std::unordered_map<Position, Bounds, PositionHash> tt_;
  std::uint64_t limit_ = 0;
  std::uint64_t nodes_ = 0;
  std::optional<Error::Code> stop_;
  std::vector<std::vector<Child>> kids_;
  Clock::time_point start_;
};

}  // namespace

std::expected<ProofResult, SearchError> prove_within(VariantPtr v, const Position& p, ProofOptions options) {
  if (v->kind() != GameKind::WinLoss)
    return std::unexpected(SearchError{SearchError::BadPosition,
                                       v->name() + " is scored by seeds, not won or lost: its value is for the search, not a proof"});
  if (const std::string e = v->check(p); !e.empty()) return std::unexpected(SearchError{SearchError::BadPosition, e});
  const int max_plies = std::clamp(options.max_plies, 0, 2000);
  Prover prover(v, options);
  ProofResult out;
  try {
    for (int d = 0; d <= max_plies; ++d) {
      const bool won = prover.win(p, d, 0);
      const bool lost = !won && !prover.stopped() && prover.loss(p, d, 0);
      if (prover.stopped()) break;  // the deepest completed depth stands
      if (won) {
        out.outcome = ProofResult::Win;
      } else if (lost) {
        out.outcome = ProofResult::Loss;
      }
      out.searched = d;
      if (options.progress)
        options.progress(ProofProgress{d, prover.nodes(), prover.positions(), prover.seconds()});
      if (out.outcome != ProofResult::Open) {
        out.plies = d;
        out.value = static_cast<Value>(out.outcome == ProofResult::Win ? kWinValue - d : -(kWinValue - d));
        prover.line(p, out.outcome == ProofResult::Win, d, out.pv);
        break;
      }
    }
  } catch (const std::bad_alloc&) {  // the allocator's own exception, caught where it can occur
    return fail_with(Error::OutOfMemory, "out of memory in the proof");
  }
  if (prover.stopped() == Error::Cancelled) return fail_with(Error::Cancelled, "proof: cancelled");
  out.nodes = prover.nodes();
  out.seconds = prover.seconds();
  return out;
}

}  // namespace mancala
